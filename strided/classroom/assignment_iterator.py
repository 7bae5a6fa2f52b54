"""Assignment 2: the iterator and a kernel (TensorIterator's loop plan, loops over raw strides).

Every elementwise op and reduction in strided goes through one shape engine, the loop plan
(strided/_loop_plan.pyx, Note [The loop plan]): it sorts the dims so the one with the smallest
steps is innermost (reorder), merges neighbouring dims that every operand walks as one
(coalesce), and hands the kernel a few tight loops over raw pointers and strides. The student
writes the two plan steps, then an elementwise loop and a reduction over flat buffers and
element strides, graded on every layout (contiguous, permuted, stepped, negative, broadcast,
overlapping, 0-d, empty) against strided's own kernels, and timed against them (reported, never
failed: Python loops are expected to be far slower; the ratio is the lesson).
"""

from __future__ import annotations

import math
import time

import hypothesis.strategies as st
import numpy as np

import strided
from strided import _loop_plan
from strided.classroom._check import compare
from strided.classroom._engine import Assignment, Task
from strided.classroom.assignment_strides import _layouts

# ---------------------------------------------------------------------------------------------
# The loop plan: reorder and coalesce
# ---------------------------------------------------------------------------------------------


@st.composite
def _operands(draw):
    """(shape, [strides of each operand]): 1 to 3 operands of one shape, each with its own
    layout (permuted, stepped, broadcast, negative)."""
    shape = draw(st.lists(st.integers(1, 4), max_size=4).map(tuple))
    strides = []
    for _ in range(draw(st.integers(1, 3))):
        _, s, _ = draw(_layouts(shapes=st.just(shape)))
        if shape and draw(st.booleans()):  # broadcast one dim
            d = draw(st.integers(0, len(shape) - 1))
            s = s[:d] + (0,) + s[d + 1 :]
        strides.append(s)
    return shape, strides


def _reorder_reference(shape, strides):
    if not shape:
        return ()
    return tuple(_loop_plan._plan_for(shape, [(s, 1) for s in strides])["dim_order"])


def _coalesce_reference(shape, strides):
    sizes, st_ = _loop_plan.loop_dims(shape, strides)
    return tuple(sizes[::-1]), [tuple(s[::-1]) for s in st_]


def _check_reorder(student, module):
    compare(
        "reorder_dims",
        student,
        _reorder_reference,
        _operands(),
        same=lambda want, got, args: _as_tuple(got) == want,
        examples=200,
    )


def _check_coalesce(student, module):
    compare(
        "coalesce_dims",
        student,
        _coalesce_reference,
        _operands(),
        same=lambda want, got, args: _normal(got) == want,
        examples=200,
    )


def _as_tuple(v):
    try:
        return tuple(int(x) for x in v)
    except (TypeError, ValueError):
        return v


def _normal(got):
    try:
        sizes, strides = got
        return _as_tuple(sizes), [_as_tuple(s) for s in strides]
    except (TypeError, ValueError):
        return got


# ---------------------------------------------------------------------------------------------
# Kernels over raw buffers
# ---------------------------------------------------------------------------------------------


@st.composite
def _buffer_for(draw, shape, *, writable=False):
    """(buffer, strides, offset): a float64 storage holding a view of ``shape``. An output
    layout never overlaps itself (each element its own cell)."""
    if writable:
        order = draw(st.permutations(range(len(shape))))
        strides, step = [0] * len(shape), 1
        for d in reversed(order):
            strides[d] = step
            step *= max(shape[d], 1)
        if shape and draw(st.booleans()):  # walk one dim backwards
            d = draw(st.integers(0, len(shape) - 1))
            strides[d] = -strides[d]
        strides = tuple(strides)
        offset = sum(-(n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0 and n)
        offset += draw(st.integers(0, 1))
    else:
        _, strides, offset = draw(_layouts(shapes=st.just(shape)))
    hi = offset + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0 and n)
    cells = hi + 1 + draw(st.integers(0, 1))
    values = draw(st.lists(st.integers(-5, 5), min_size=cells, max_size=cells))
    return np.array(values, dtype=np.float64), strides, offset


@st.composite
def _add_args(draw):
    shape = draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
    out, out_strides, out_offset = draw(_buffer_for(shape, writable=True))
    a, a_strides, a_offset = draw(_buffer_for(shape))
    b, b_strides, b_offset = draw(_buffer_for(shape))
    if shape and draw(st.booleans()):  # a broadcast input: stride 0
        d = draw(st.integers(0, len(shape) - 1))
        b_strides = b_strides[:d] + (0,) + b_strides[d + 1 :]
    return (
        shape,
        len(out),
        out_strides,
        out_offset,
        a,
        a_strides,
        a_offset,
        b,
        b_strides,
        b_offset,
    )


def _view(buf, shape, strides, offset):
    return strided.as_strided(strided.from_numpy(buf), shape, strides, offset)


def _add_reference(shape, out_cells, out_strides, out_offset, a, a_st, a_off, b, b_st, b_off):
    out = np.full(out_cells, -1.0)
    o = _view(out, shape, out_strides, out_offset)
    strided.add(_view(a, shape, a_st, a_off), _view(b, shape, b_st, b_off), out=o)
    return out


def _add_student(student):
    def run(shape, out_cells, out_strides, out_offset, a, a_st, a_off, b, b_st, b_off):
        out = np.full(out_cells, -1.0)
        student(shape, out, out_strides, out_offset, a, a_st, a_off, b, b_st, b_off)
        return out

    return run


def _speed(name, student_call, library_call, numel):
    def best(fn):
        t = math.inf
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            t = min(t, time.perf_counter() - t0)
        return t

    mine, lib = best(student_call), best(library_call)
    return (
        f"speed (reported, not graded): your {name} took {mine * 1e3:.2f} ms for {numel} "
        f"elements of a transposed 64x64 layout, strided's kernel {lib * 1e3:.3f} ms "
        f"({mine / lib:.0f}x)"
    )


def _check_add(student, module):
    compare(
        "add_strided",
        _add_student(student),
        _add_reference,
        _add_args(),
        same=lambda want, got, args: np.array_equal(want, got),
        examples=150,
    )
    a = np.arange(64 * 64, dtype=np.float64)
    out = np.zeros(64 * 64)
    shape, tr = (64, 64), (1, 64)
    va, vo = _view(a, shape, tr, 0), _view(out, shape, tr, 0)
    return [
        _speed(
            "add_strided",
            lambda: student(shape, out, tr, 0, a, tr, 0, a, (64, 1), 0),
            lambda: strided.add(va, va.T, out=vo),
            64 * 64,
        )
    ]


@st.composite
def _sum_args(draw):
    shape = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple))
    a, strides, offset = draw(_buffer_for(shape))
    return shape, a, strides, offset, draw(st.integers(0, len(shape) - 1))


def _sum_reference(shape, a, strides, offset, dim):
    return strided.sum(_view(a, shape, strides, offset), axis=dim).numpy()


def _check_sum(student, module):
    compare(
        "sum_strided",
        lambda *args: np.asarray(student(*args)),
        _sum_reference,
        _sum_args(),
        same=lambda want, got, args: want.shape == got.shape and np.array_equal(want, got),
        examples=150,
    )
    a = np.arange(64 * 64, dtype=np.float64)
    va = _view(a, (64, 64), (1, 64), 0)
    return [
        _speed(
            "sum_strided",
            lambda: student((64, 64), a, (1, 64), 0, 1),
            lambda: strided.sum(va, axis=1),
            64 * 64,
        )
    ]


TASKS = (
    Task(
        "reorder_dims",
        20,
        "reorder_dims(shape, strides)",
        """The order in which the iterator walks the dims: a tuple of dim numbers, outermost
        first, for operands of one ``shape`` whose strides are ``strides`` (one tuple per
        operand, in dim order).

        The rule is PyTorch's ``reorder_dimensions``, an insertion sort that puts the dim with
        the smallest steps innermost. Work on a list of dims, innermost first (start from the
        last dim of ``shape`` going back to dim 0). Insert each dim in turn, moving it inwards
        past the dims already placed while it *should swap* with them, and stopping at the first
        dim it *should not* swap with; a comparison with no opinion does not stop it. Dim
        ``b`` (further out) should swap with dim ``a`` (further in) when, for the first operand
        with an opinion: both strides nonzero (a stride 0 gives no opinion) and
        ``|stride[a]| > |stride[b]|`` (swap) or ``<`` (do not); with equal strides, the larger
        size goes inside (``shape[a] < shape[b]``: swap; ``>``: do not; equal: no opinion, ask
        the next operand). No operand with an opinion: no opinion.

        >>> reorder_dims((2, 3), [(3, 1)])       # contiguous: keep the order
        (0, 1)
        >>> reorder_dims((2, 3), [(1, 2)])       # transposed: dim 0 has the small steps
        (1, 0)""",
        _check_reorder,
        reference=_reorder_reference,
        replaces="strided._loop_plan.plan_reorder",
    ),
    Task(
        "coalesce_dims",
        20,
        "coalesce_dims(shape, strides)",
        """Merge neighbouring dims that every operand walks as one, as the loop plan does before
        a kernel runs: returns ``(sizes, strides)``, outermost first, ``strides`` one tuple per
        operand.

        Size-1 dims are dropped (they never move a pointer). Dims ``d`` and ``d+1`` merge when
        for every operand ``k``: ``strides[k][d] == shape[d+1] * strides[k][d+1]``; the merged
        dim has size ``shape[d] * shape[d+1]`` and the inner stride. No elements at all: one
        dim of size 0, ``((0,), [(s,)...])`` with each operand's innermost stride of the
        original dims... see the reference in strided/_loop_plan.pyx (``plan_coalesce``).
        One element (or no dims): ``((), [(), ...])``.

        >>> coalesce_dims((2, 3, 4), [(12, 4, 1)])
        ((24,), [(1,)])
        >>> coalesce_dims((2, 3), [(3, 1), (1, 2)])   # the transposed operand stops the merge
        ((2, 3), [(3, 1), (1, 2)])""",
        _check_coalesce,
        reference=_coalesce_reference,
        replaces="strided._loop_plan.plan_coalesce (loop_dims)",
    ),
    Task(
        "add_strided",
        30,
        "add_strided(shape, out, out_strides, out_offset, a, a_strides, a_offset, b, "
        "b_strides, b_offset)",
        """The elementwise kernel: ``out[i] = a[i] + b[i]`` for every multi-index ``i`` of
        ``shape``, where ``out``, ``a`` and ``b`` are flat float64 buffers (1-d NumPy arrays:
        the storages) and element ``i`` of each lives at ``offset + sum(i[d] * strides[d])``.
        Write into ``out`` in place; touch no other cell of it; change neither ``a`` nor ``b``.
        Strides may be negative (a flipped view) or 0 (a broadcast input). Return None.

        Hint: an odometer over the multi-index, or coalesce first and loop over the few dims
        that are left.""",
        _check_add,
        replaces="strided's add kernel (strided/_cpu/, driven by strided/_iter.pyx)",
    ),
    Task(
        "sum_strided",
        30,
        "sum_strided(shape, a, strides, offset, dim)",
        """The reduction kernel: the sum of a view over ``dim``, as a new NumPy array of
        ``shape`` without ``dim`` (``np.zeros(...)`` then accumulate). ``a`` is a flat float64
        buffer; element ``i`` of the view lives at ``offset + sum(i[d] * strides[d])``. Summing
        over a size-0 dim gives zeros.""",
        _check_sum,
        reference=_sum_reference,
        replaces="strided.sum's kernel (strided/_cpu/reduce)",
    ),
)

_ADD_SOLUTION = '''
def add_strided(shape, out, out_strides, out_offset, a, a_strides, a_offset, b, b_strides,
                b_offset):
    """strided's own kernel on the three views (strided.from_numpy shares the buffers)."""
    def view(buf, strides, offset):
        return strided.as_strided(strided.from_numpy(buf), shape, strides, offset)

    strided.add(view(a, a_strides, a_offset), view(b, b_strides, b_offset),
                out=view(out, out_strides, out_offset))
'''

TASKS = tuple(
    t if t.name != "add_strided" else Task(**{**t.__dict__, "solution": _ADD_SOLUTION})
    for t in TASKS
)

ASSIGNMENT = Assignment(
    key="iterator",
    number=2,
    title="the iterator and a kernel",
    filename="iterator.py",
    intro="""
    Every op runs through one shape engine, the loop plan (strided/_loop_plan.pyx): reorder
    the dims so the smallest steps are innermost, coalesce dims that every operand walks as
    one, then run a tight loop over raw buffers and strides. Write the two plan steps, then an
    elementwise loop and a reduction over flat buffers. They are graded on every layout and
    timed against strided's compiled kernels (the time is reported, not graded).""",
    tasks=TASKS,
    imports="import numpy as np\n\nimport strided",
)
