"""Assignment 1: strides and views (the arithmetic of TensorImpl, Storage and the view ops).

A tensor is (storage, offset, shape, strides): element ``[i, j]`` lives at storage cell
``offset + i*strides[0] + j*strides[1]``. Every view op (transpose, permute, slicing, expand,
view) makes a new (shape, strides, offset) over the same storage and copies nothing. The student
writes that arithmetic on plain tuples; each task is graded against the function strided itself
runs (``strided/_explain.py``, ``strided/_views.pyx``), by building real views with
``as_strided`` and reading their ``stride()``. The layout tasks show, on failure, the ``explain``
picture of the expected view and of the student's.
"""

from __future__ import annotations

import math

import hypothesis.strategies as st

import strided
from strided import _explain, _views
from strided.classroom._check import compare, same_value
from strided.classroom._engine import Assignment, Task

# small shapes keep counter-examples readable: at most 4 dims of at most 4 positions
_sizes = st.integers(0, 4)
_shapes = st.lists(_sizes, max_size=4).map(tuple)
_nonempty = st.lists(st.integers(1, 4), max_size=4).map(tuple)


@st.composite
def _layouts(draw, shapes=_shapes, negative=True):
    """(shape, strides, offset) of a view that stays inside its storage: strides drawn from
    a permuted contiguous layout, a stepped one, or at random (overlaps and stride 0 included)."""
    shape = draw(shapes)
    kind = draw(st.sampled_from(["contiguous", "permuted", "stepped", "random"]))
    if kind == "random":
        lo = -5 if negative else 0
        strides = tuple(
            draw(st.lists(st.integers(lo, 7), min_size=len(shape), max_size=len(shape)))
        )
    else:
        order = list(range(len(shape)))
        if kind == "permuted":
            order = draw(st.permutations(order))
        step = draw(st.integers(1, 2)) if kind == "stepped" else 1
        strides = [0] * len(shape)
        s = step
        for d in reversed(order):
            strides[d] = s
            s *= max(shape[d], 1) + (1 if kind == "stepped" else 0)
        strides = tuple(strides)
    # the offset that puts the lowest cell the view touches at cell 0 (or later)
    base = sum(-(n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0 and n > 0)
    return shape, strides, base + draw(st.integers(0, 2))


def layout_tensor(shape, strides, offset):
    """A view with this layout over ``arange`` (cell k holds k), as ``as_strided`` makes it."""
    span = _explain.cell_span(shape, strides, offset)
    cells = max(offset + 1, span[1] + 1 if span else 1)
    return strided.as_strided(strided.arange(cells), shape, strides, offset)


def _picture(title, shape, strides, offset):
    try:
        body = _explain.explain(layout_tensor(shape, strides, offset))
    except Exception as e:
        body = f"(no picture: {type(e).__name__}: {e})"
    return f"{title}:\n" + "\n".join("    " + line for line in body.splitlines())


def _explain_views(to_layout):
    """An ``explain`` hook for compare(): the expected and the student's view side by side.
    ``to_layout(args, answer)`` turns an answer into (shape, strides, offset)."""

    def explain(args, want, got):
        lines = [_picture("the expected view", *to_layout(args, want))]
        try:
            mine = to_layout(args, got)
        except Exception:
            return lines[0]
        lines.append(_picture("your view", *mine))
        return "\n".join(lines)

    return explain


# ---------------------------------------------------------------------------------------------
# References: strided's own functions, called on real views
# ---------------------------------------------------------------------------------------------


def _is_contiguous(shape, strides):
    if math.prod(shape) == 0:
        # PyTorch's rule, as the task states it: no elements, contiguous. strided's
        # is_contiguous_c (_core.pyx) answers False for an empty view whose inner strides are
        # out of order, e.g. shape (0, 2, 1), strides (6, 2, 1): found by this task, reported
        # on issue 22, graded here by PyTorch's rule until it is fixed.
        return True
    return bool(_views.is_contiguous(layout_tensor(shape, strides, _low(shape, strides))))


def _low(shape, strides):
    return sum(-(n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0 and n > 0)


def _broadcast_strides(shape, strides, target):
    t = layout_tensor(shape, strides, _low(shape, strides))
    return tuple(strided.broadcast_to(t, tuple(target)).stride())


def _view_strides(shape, strides, new_shape):
    t = layout_tensor(shape, strides, _low(shape, strides))
    v = _views.try_view(t, tuple(new_shape))
    return None if v is None else tuple(v.stride())


def _permute(shape, strides, dims):
    t = layout_tensor(shape, strides, _low(shape, strides))
    p = _views.permute(t, tuple(dims))
    return tuple(p.shape), tuple(p.stride())


def _slice(shape, strides, offset, dim, start, stop, step):
    t = layout_tensor(shape, strides, offset)
    v = t[(slice(None),) * dim + (slice(start, stop, step),)]
    return tuple(v.shape), tuple(v.stride()), v.storage_offset()


# ---------------------------------------------------------------------------------------------
# Strategies for each task's arguments
# ---------------------------------------------------------------------------------------------

_index_args = _layouts().flatmap(
    lambda lay: st.tuples(
        st.tuples(*[st.integers(0, max(n - 1, 0)) for n in lay[0]]),
        st.just(lay[1]),
        st.just(lay[2]),
    )
)


@st.composite
def _broadcast_pairs(draw):
    target = draw(_shapes)
    shape = []
    for n in target[len(target) - draw(st.integers(0, len(target))) :]:
        shape.append(draw(st.sampled_from([n, 1, n + 1])))  # n+1: an incompatible size
    return tuple(shape), target


@st.composite
def _broadcast_strides_args(draw):
    shape, target = draw(_broadcast_pairs())
    _, strides, _ = draw(_layouts(shapes=st.just(shape)))
    return shape, strides, target


@st.composite
def _view_args(draw):
    shape, strides, _ = draw(_layouts(shapes=_nonempty))
    numel = math.prod(shape)
    # a new shape with the same number of elements: regroup its prime factors
    factors = [p for p in (2, 3) for _ in range(_multiplicity(numel, p))]
    groups = draw(st.lists(st.integers(0, 3), min_size=len(factors), max_size=len(factors)))
    new = [1] * 4
    for f, g in zip(factors, groups, strict=True):
        new[g] *= f
    keep = draw(st.integers(0, 4))
    new = [n for i, n in enumerate(new) if n != 1 or i < keep]
    return shape, strides, tuple(new)


def _multiplicity(n, p):
    k = 0
    while n % p == 0 and n > 0:
        n //= p
        k += 1
    return k


@st.composite
def _permute_args(draw):
    shape, strides, _ = draw(_layouts())
    return shape, strides, tuple(draw(st.permutations(range(len(shape)))))


@st.composite
def _slice_args(draw):
    shape, strides, offset = draw(
        _layouts(shapes=st.lists(_sizes, min_size=1, max_size=3).map(tuple))
    )
    dim = draw(st.integers(0, len(shape) - 1))
    bound = st.none() | st.integers(-5, 5)
    step = draw(st.none() | st.sampled_from([1, 2, 3, -1, -2]))
    return shape, strides, offset, dim, draw(bound), draw(bound), step


def _slice_layout(args, answer):
    return answer


def _strides_layout(args, answer):
    shape, strides, *_ = args
    return _target_shape(args), tuple(answer), _low(shape, strides)


def _target_shape(args):
    return tuple(args[2])


def _permute_layout(args, answer):
    shape, strides, _ = args
    return tuple(answer[0]), tuple(answer[1]), _low(shape, strides)


def same_view(want, got):
    """Two layouts (shape, strides, offset) are the same view when they have the same shape and
    put every element in the same cell: strides of size-1 dims, and strides and offset of a view
    with no elements, are never used, so they are not graded (PyTorch and strided pick
    conventional values there; any value is right)."""
    try:
        shape, strides, offset = (tuple(got[0]), tuple(got[1]), got[2])
    except (TypeError, IndexError, ValueError):
        return False
    if not same_value(tuple(want[0]), shape) or len(strides) != len(shape):
        return False
    if 0 in shape:
        return True
    used = [d for d, n in enumerate(shape) if n != 1]
    return same_value([want[1][d] for d in used], [strides[d] for d in used]) and same_value(
        want[2], offset
    )


def _same_strides(layout):
    """A ``same`` for answers that are strides (or None): compared as views of the shape
    ``layout(args)`` gives. See same_view."""

    def same(want, got, args):
        if want is None or got is None:
            return want is None and got is None
        shape = layout(args)
        return same_view((shape, want, 0), (shape, got, 0))

    return same


def _check(name, strategy, reference, explain=None, examples=100, same=None):
    def check(student, module):
        compare(name, student, reference, strategy, examples=examples, explain=explain, same=same)

    return check


# ---------------------------------------------------------------------------------------------
# The tasks
# ---------------------------------------------------------------------------------------------

TASKS = (
    Task(
        "strides_for_shape",
        10,
        "strides_for_shape(shape)",
        """The strides (in elements) of a contiguous, row-major tensor of this shape.

        The last dim moves by one cell; each earlier dim moves past a whole block of the dims
        after it. A size-0 dim counts as size 1 (as PyTorch does).

        >>> strides_for_shape((2, 3, 4))
        (12, 4, 1)
        >>> strides_for_shape(())
        ()""",
        _check("strides_for_shape", _shapes.map(lambda s: (s,)), _explain.contiguous_strides),
        reference=_explain.contiguous_strides,
        replaces="strided._explain.contiguous_strides",
    ),
    Task(
        "index_to_offset",
        10,
        "index_to_offset(index, strides, offset)",
        """The storage cell of element ``index`` of a view with these strides and offset.

        >>> index_to_offset((1, 2), (3, 1), 0)
        5
        >>> index_to_offset((1, 2), (1, 2), 1)   # a transposed view starting at cell 1
        6""",
        _check("index_to_offset", _index_args, _explain.element_offset),
        reference=_explain.element_offset,
        replaces="strided._explain.element_offset",
    ),
    Task(
        "is_contiguous",
        10,
        "is_contiguous(shape, strides)",
        """True when a view with these shape and strides is row-major contiguous: its elements,
        in index order, sit in consecutive cells. Dims of size 1 can have any stride; a tensor
        with no elements is contiguous.

        >>> is_contiguous((2, 3), (3, 1))
        True
        >>> is_contiguous((2, 3), (1, 2))
        False
        >>> is_contiguous((2, 1), (1, 7))
        True""",
        _check("is_contiguous", _layouts().map(lambda lay: (lay[0], lay[1])), _is_contiguous),
        reference=_is_contiguous,
        replaces="strided._views.is_contiguous",
    ),
    Task(
        "broadcast_shapes",
        10,
        "broadcast_shapes(a, b)",
        """The shape two shapes broadcast to (NumPy's rules): align them at the right; at each
        position the sizes must be equal or one of them 1, and the result takes the larger. A
        missing leading dim counts as 1. Raise ValueError when they cannot broadcast.

        >>> broadcast_shapes((3, 1), (4,))
        (3, 4)
        >>> broadcast_shapes((2, 3), (3, 2))
        Traceback (most recent call last):
        ValueError: ...""",
        _check(
            "broadcast_shapes",
            _broadcast_pairs().flatmap(lambda p: st.permutations(p).map(tuple)),
            _views.broadcast_shapes,
        ),
        reference=_views.broadcast_shapes,
        replaces="strided._views.broadcast_shapes",
    ),
    Task(
        "broadcast_strides",
        15,
        "broadcast_strides(shape, strides, target)",
        """The strides of ``broadcast_to(x, target)`` for an ``x`` with this shape and these
        strides: new leading dims and size-1 dims that grow get stride 0 (every position reads
        the same cell); other dims keep their stride. Raise ValueError when ``shape`` cannot
        broadcast to ``target``.

        >>> broadcast_strides((3,), (1,), (2, 3))
        (0, 1)
        >>> broadcast_strides((3, 1), (2, 5), (3, 4))
        (2, 0)""",
        _check(
            "broadcast_strides",
            _broadcast_strides_args(),
            _broadcast_strides,
            _explain_views(_strides_layout),
            same=_same_strides(_target_shape),
        ),
        reference=_broadcast_strides,
        replaces="strided._views.expand",
    ),
    Task(
        "view_strides",
        20,
        "view_strides(shape, strides, new_shape)",
        """The strides of ``x.view(new_shape)`` for an ``x`` with this shape and these strides,
        or None when no strides can show the same memory in the new shape (then ``view`` raises
        and ``reshape`` copies). ``new_shape`` has as many elements as ``shape``.

        The rule (PyTorch's computeStride): split ``x``'s dims into blocks that are contiguous
        among themselves (``strides[d] == strides[d+1] * shape[d+1]``, size-1 dims ignored);
        each block may be re-split into any sizes with the same product, each new dim getting
        the stride of the element count to its right times the block's innermost stride; a new
        dim may not straddle two blocks. A tensor with no elements or with 0 dims gets
        row-major strides.

        >>> view_strides((2, 3), (3, 1), (3, 2))
        (2, 1)
        >>> view_strides((2, 3), (1, 2), (6,)) is None    # a transposed tensor cannot flatten
        True""",
        _check(
            "view_strides",
            _view_args(),
            _view_strides,
            _explain_views(
                lambda args, ans: (
                    tuple(args[2]),
                    tuple(ans),
                    _low(args[0], args[1]),
                )
            ),
            examples=150,
            same=_same_strides(_target_shape),
        ),
        reference=_view_strides,
        replaces="strided._views.try_view (compute_view_strides)",
    ),
    Task(
        "permute",
        10,
        "permute(shape, strides, dims)",
        """``x.permute(dims)`` as stride arithmetic: the new shape and strides, as a pair of
        tuples. New dim ``i`` is old dim ``dims[i]``. (``transpose`` is the permutation that
        swaps two dims.)

        >>> permute((2, 3, 4), (12, 4, 1), (2, 0, 1))
        ((4, 2, 3), (1, 12, 4))""",
        _check(
            "permute",
            _permute_args(),
            _permute,
            _explain_views(_permute_layout),
            same=lambda want, got, args: (
                same_view((*want, 0), (*got, 0))
                if isinstance(got, (tuple, list)) and len(got) == 2
                else False
            ),
        ),
        reference=_permute,
        replaces="strided._views.permute",
    ),
    Task(
        "slice_view",
        15,
        "slice_view(shape, strides, offset, dim, start, stop, step)",
        """``x[..., start:stop:step, ...]`` (the slice at ``dim``) as stride arithmetic: return
        the new (shape, strides, offset). Python's slice rules apply (``None``, negative and
        out-of-range bounds; ``slice(start, stop, step).indices(n)`` does the clamping); a
        negative step walks backwards, so the stride becomes negative. When the result has no
        elements only its shape is graded (no cell is ever read, so any strides and offset do).

        >>> slice_view((4, 3), (3, 1), 0, 0, 1, None, 2)
        ((2, 3), (6, 1), 3)
        >>> slice_view((4,), (1,), 0, 0, None, None, -1)
        ((4,), (-1,), 3)""",
        _check(
            "slice_view",
            _slice_args(),
            _slice,
            _explain_views(_slice_layout),
            same=lambda want, got, args: same_view(want, got),
        ),
        reference=_slice,
        replaces="strided._views.getitem",
    ),
)

ASSIGNMENT = Assignment(
    key="strides",
    number=1,
    title="strides and views",
    filename="strides.py",
    intro="""
    A tensor is a view onto a storage: (storage, offset, shape, strides). Element [i, j]
    lives at cell offset + i*strides[0] + j*strides[1] (in elements, not bytes). Every view op
    (transpose, permute, slicing, expand, view) is new strides over the same memory. Write that
    arithmetic on plain tuples of ints.""",
    tasks=TASKS,
)
