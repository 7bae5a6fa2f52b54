"""The text faces of a tensor: ``repr``/``str``, and ``explain``, a picture of a view.

``format_repr`` prints what NumPy and PyTorch users expect to read. ``explain`` is for learning:
it draws which storage cell holds which element of a view, computed from shape, strides and
offset alone (it never reads the data), so it works on any view, on any device.

The small helpers (``element_offset``, ``contiguous_strides``, ``cell_span``, ``cells_touched``)
are the arithmetic of a strided view, each small enough to test on its own.

Note [What repr prints]
~~~~~~~~~~~~~~~~~~~~~~~
The numbers come from ``numpy.array2string`` (``separator=', '``), run under strided's own print
options (Note [Print options]), so large tensors are summarised with ``...`` exactly as NumPy
does. The default line width is 80, PyTorch's, not NumPy's 75, so that the numbers and the
suffixes wrap at the same column. The suffixes follow ``torch/_tensor_str.py`` in its order and
rules:

- ``device='cuda:0'`` when the tensor is not on the CPU;
- for an empty tensor, ``size=(0, 3)`` unless it is 1-d, and ``dtype=`` unless it is the
  default float (an empty tensor has no numbers to tell an int from a float);
- otherwise ``dtype=`` unless the dtype is the default float, int64 or bool (the numbers show
  which of those it is: ``1.``, ``1``, ``True``);
- ``grad_fn=<Name>`` when the tensor was made by a recorded op, else ``requires_grad=True``
  when it is a leaf that requires grad.

A suffix that would pass the line width goes on its own line, indented under the first bracket.

Note [Print options]
~~~~~~~~~~~~~~~~~~~~
``set_printoptions``, ``get_printoptions`` and ``printoptions`` take NumPy's keys (precision,
threshold, edgeitems, linewidth, suppress, nanstr, infstr, formatter, sign, floatmode, legacy,
override_repr) with NumPy's meanings, and NumPy itself validates and merges them: strided's
``set_printoptions`` runs ``numpy.set_printoptions`` inside a ``numpy.printoptions`` block that
starts from strided's current options and keeps what NumPy made of them, so a bad value gets
NumPy's error, ``None`` leaves a key unchanged, and ``formatter``/``override_repr`` reset unless
given, exactly as in NumPy. An unknown key is a TypeError naming it (the signature is NumPy's).
The options are strided's own (as ``torch.set_printoptions`` are PyTorch's): setting NumPy's does
not change how tensors print, nor the other way round; they differ from NumPy's defaults only in
``linewidth`` (80). They live in a ``contextvars.ContextVar``, as NumPy's do, so ``printoptions``
is safe across threads and asyncio tasks, and restores the options when its block raises.
``repr`` formats under them with ``numpy.printoptions``, and ``override_repr``, when set, is
called with the tensor.

Note [The explain picture]
~~~~~~~~~~~~~~~~~~~~~~~~~~
The picture has two rows: storage cells (numbered in units of this tensor's dtype, that is
``nbytes // itemsize`` of them), and under each cell the multi-index of the element of the view
that lives there. Indices are written without commas (``12`` is element ``[1, 2]``) when every
dim has at most 10 positions, else with commas (``1,12``). A ``.`` is a cell the view does not
use. A dim with stride 0 (and more than one position) is written ``*``: ``*2`` is every element
``[i, 2]``, all of them in one cell. A cell reached by several different indices (overlapping
strides, as ``as_strided`` can make) shows a count instead, ``3x``.

At most 32 cells are drawn: the first 32 of the storage, or, when the view starts beyond them,
the 32 from the first cell it uses; the lines say how many were left out. Only the elements that
land in the drawn cells are enumerated: the search walks the dims from the largest stride down
and, at each dim, solves for the range of indices that can still land in the window, so a view
of a billion elements costs what its 32 drawn cells cost. Stride-0 dims are not enumerated at
all: they multiply the count of a cell, which is what ``*`` shows.
"""

import contextlib
import contextvars
import itertools
import math
import textwrap

import numpy as np

__all__ = [
    "cell_span",
    "cells_touched",
    "contiguous_strides",
    "element_offset",
    "explain",
    "format_repr",
    "format_str",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]

_PREFIX = "tensor("
_SHOWN_CELLS = 32  # see Note [The explain picture]
_PICTURE_WIDTH = 88
_TEXT_WIDTH = 92  # explain's prose lines wrap here, continuing under a 4-space indent
_TOUCH_LIMIT = 4096
_EXACT_COUNT_LIMIT = 1 << 16  # elements enumerated to count shared cells of overlapping views


# ---------------------------------------------------------------------------------------------
# The arithmetic of a strided view
# ---------------------------------------------------------------------------------------------


def element_offset(index, strides, offset=0):
    """Storage cell of the element at ``index`` of a view with these strides and offset.

    This is the whole idea of a strided tensor: element ``[i, j]`` lives at cell
    ``offset + i * strides[0] + j * strides[1]``, in units of elements, not bytes.

    Parameters
    ----------
    index : sequence of int
        The multi-index of the element, one non-negative int per dim.
    strides : sequence of int
        How many cells one step along each dim moves; may be negative or 0.
    offset : int, optional
        The cell of element ``[0, 0, ...]`` (the tensor's ``storage_offset()``).

    Returns
    -------
    int
        The cell, counted from the start of the storage.

    Raises
    ------
    ValueError
        If ``index`` and ``strides`` have different lengths.

    Examples
    --------
    >>> element_offset((1, 2), (3, 1), 0)
    5
    >>> element_offset((1, 2), (1, 2), 1)  # a transposed view, starting at cell 1
    6
    >>> element_offset((), (), 4)  # the one element of a 0-d tensor
    4
    """
    if len(index) != len(strides):
        raise ValueError(
            f"element_offset: index {tuple(index)} has {len(index)} entries but strides "
            f"{tuple(strides)} have {len(strides)}"
        )
    return offset + sum(i * s for i, s in zip(index, strides, strict=True))


def contiguous_strides(shape):
    """The strides of a contiguous (row-major, C-order) tensor of this shape.

    The last dim moves by one cell, and each earlier dim moves past a whole block of the dims
    after it. Size-0 dims count as size 1, as PyTorch does, so an empty tensor still gets
    useful strides.

    Parameters
    ----------
    shape : sequence of int
        The sizes of the dims.

    Returns
    -------
    tuple of int
        One stride per dim, in elements.

    Examples
    --------
    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    >>> contiguous_strides((5,))
    (1,)
    >>> contiguous_strides(())
    ()
    >>> contiguous_strides((2, 0, 3))
    (3, 3, 1)
    """
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def cell_span(shape, strides, offset=0):
    """The first and last storage cells a view can touch, or ``None`` if it has no elements.

    A positive stride reaches furthest at the last index of its dim, a negative one at index
    0 of it, so the span is found without visiting any element.

    Parameters
    ----------
    shape, strides : sequence of int
        The view's sizes and strides (in elements).
    offset : int, optional
        The view's storage offset.

    Returns
    -------
    tuple of (int, int) or None
        ``(lowest, highest)`` cell, both inclusive.

    Examples
    --------
    >>> cell_span((2, 3), (3, 1), 0)
    (0, 5)
    >>> cell_span((4,), (-1,), 3)  # x[::-1] of a 4-element tensor
    (0, 3)
    >>> cell_span((0, 3), (3, 1), 0) is None
    True
    """
    if any(n == 0 for n in shape):
        return None
    lo = hi = offset
    for n, s in zip(shape, strides, strict=True):
        reach = s * (n - 1)
        lo += min(0, reach)
        hi += max(0, reach)
    return lo, hi


def cells_touched(shape, strides, offset=0, limit=_TOUCH_LIMIT):
    """Which elements of a view live in which storage cell.

    Elements are visited in row-major order (the last index moving fastest) and the visit
    stops after ``limit`` elements, so a huge view gives a partial answer quickly.

    Parameters
    ----------
    shape, strides : sequence of int
        The view's sizes and strides (in elements).
    offset : int, optional
        The view's storage offset.
    limit : int, optional
        The most elements to visit (4096).

    Returns
    -------
    dict of int to list of tuple
        Cell -> the multi-indices of the elements living there, sorted by cell. A cell with
        more than one index is shared (a stride-0 or overlapping view).

    Examples
    --------
    >>> cells_touched((2, 2), (1, 2), 0)  # the transpose of a contiguous 2x2
    {0: [(0, 0)], 1: [(1, 0)], 2: [(0, 1)], 3: [(1, 1)]}
    >>> cells_touched((2, 3), (0, 1), 0)  # a (3,) tensor expanded to (2, 3)
    {0: [(0, 0), (1, 0)], 1: [(0, 1), (1, 1)], 2: [(0, 2), (1, 2)]}
    >>> cells_touched((), (), 5)
    {5: [()]}
    """
    cells = {}
    every_index = itertools.product(*(range(n) for n in shape))
    for index in itertools.islice(every_index, limit):
        cells.setdefault(element_offset(index, strides, offset), []).append(index)
    return dict(sorted(cells.items()))


# ---------------------------------------------------------------------------------------------
# repr and str
# ---------------------------------------------------------------------------------------------

# NumPy's defaults but PyTorch's line width; see Note [Print options].
_DEFAULT_PRINTOPTIONS = {
    "edgeitems": 3,
    "threshold": 1000,
    "floatmode": "maxprec",
    "precision": 8,
    "suppress": False,
    "linewidth": 80,
    "nanstr": "nan",
    "infstr": "inf",
    "sign": "-",
    "formatter": None,
    "legacy": False,
    "override_repr": None,
}
_printoptions = contextvars.ContextVar("strided_printoptions", default=_DEFAULT_PRINTOPTIONS)


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    suppress=None,
    nanstr=None,
    infstr=None,
    formatter=None,
    sign=None,
    floatmode=None,
    *,
    legacy=None,
    override_repr=None,
):
    """Set how tensors print: NumPy's ``set_printoptions``, for strided's tensors.

    Every key means what it means in NumPy; ``None`` leaves a key as it is (``formatter`` and
    ``override_repr`` are reset unless given, as in NumPy). See Note [Print options].

    Parameters
    ----------
    precision : int, optional
        Digits after the decimal point (default 8).
    threshold : int, optional
        Tensors with more elements than this are summarised with ``...`` (default 1000).
    edgeitems : int, optional
        Items shown at each end of a summarised dim (default 3).
    linewidth : int, optional
        Characters per line (default 80, PyTorch's; NumPy's is 75).
    suppress : bool, optional
        Print tiny floats as 0 rather than in scientific notation.
    nanstr, infstr : str, optional
        How nan and inf are written.
    formatter : dict of callables, optional
        Per-kind formatting functions, as NumPy's.
    sign : {'-', '+', ' '}, optional
        How the sign of positive numbers is written.
    floatmode : {'fixed', 'unique', 'maxprec', 'maxprec_equal'}, optional
        How ``precision`` is applied.
    legacy : str or False, optional
        Print as an older NumPy did ('1.13', '1.21', ...).
    override_repr : callable, optional
        Called with the tensor to make its ``repr``.

    Raises
    ------
    TypeError
        For a key NumPy does not have.
    ValueError
        For a value NumPy refuses (``sign='x'``, a negative ``precision``...).

    Examples
    --------
    >>> import strided
    >>> strided.set_printoptions(precision=2, suppress=True)
    >>> strided.asarray([1 / 3, 1e-9])
    tensor([0.33, 0.  ])
    >>> strided.set_printoptions(precision=8, suppress=False)
    """
    given = {
        "precision": precision,
        "threshold": threshold,
        "edgeitems": edgeitems,
        "linewidth": linewidth,
        "suppress": suppress,
        "nanstr": nanstr,
        "infstr": infstr,
        "formatter": formatter,
        "sign": sign,
        "floatmode": floatmode,
        "legacy": legacy,
        "override_repr": override_repr,
    }
    # NumPy validates and merges, in a block that leaves NumPy's own options as they were.
    with np.printoptions(**_printoptions.get()):
        np.set_printoptions(**given)
        merged = np.get_printoptions()
    _printoptions.set(merged)


def get_printoptions():
    """The current print options, as a new dict (NumPy's keys; Note [Print options]).

    Examples
    --------
    >>> import strided
    >>> opts = strided.get_printoptions()
    >>> opts["precision"], opts["threshold"], opts["linewidth"]
    (8, 1000, 80)
    """
    return dict(_printoptions.get())


@contextlib.contextmanager
def printoptions(*args, **kwargs):
    """Print options for the length of a ``with`` block, restored after it even if it raises.

    Takes the arguments of ``set_printoptions`` and yields the options in force.

    Examples
    --------
    >>> import strided
    >>> with strided.printoptions(precision=3, sign="+"):
    ...     print(strided.asarray([3.14159, -1.0]))
    tensor([+3.142, -1.   ])
    >>> strided.get_printoptions()["precision"]
    8
    """
    token = _printoptions.set(_printoptions.get())
    try:
        set_printoptions(*args, **kwargs)
        yield get_printoptions()
    finally:
        _printoptions.reset(token)


def _default_float_name():
    """Name of the default float dtype (imported late so this module stays pure Python)."""
    from strided._dtype import get_default_dtype

    return get_default_dtype().name


def _host_array(t):
    """A NumPy array with ``t``'s values, copied to the host if ``t`` lives on a GPU."""
    # Printing must not trip over autograd: look at the values, not the graph.
    if t.requires_grad and hasattr(t, "detach"):
        t = t.detach()
    if str(t.device) != "cpu":
        t = t.cpu()
    return t.numpy()


def _add_suffixes(body, suffixes, linewidth):
    """``body`` closed with its suffixes, each wrapped to its own line if it passes the line
    width."""
    parts = [body]
    indent = len(_PREFIX)
    line_len = len(body) - body.rfind("\n") + 1
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_repr(t):
    """The ``repr`` of a tensor, as PyTorch writes it, with NumPy's number formatting.

    See Note [What repr prints] for the rules of the suffixes.

    Parameters
    ----------
    t : Tensor
        Any tensor, on any device; a GPU tensor is copied to the host to be printed.

    Returns
    -------
    str
        ``tensor(<numbers>[, device=...][, size=...][, dtype=...][, grad_fn=...])``.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape(2, 3)
    >>> print(format_repr(x))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    >>> print(format_repr(strided.ones(2, dtype=strided.float32)))
    tensor([1., 1.], dtype=strided.float32)
    >>> print(format_repr(strided.zeros((0, 3))))
    tensor([], size=(0, 3))
    >>> print(format_repr(strided.asarray(3.0)))
    tensor(3.)
    """
    opts = _printoptions.get()
    if opts["override_repr"] is not None:
        return opts["override_repr"](t)
    suffixes = []
    device = str(t.device)
    if device != "cpu":
        suffixes.append(f"device='{device}'")
    dtype_name = t.dtype.name
    dtype_suffix = f"dtype=strided.{dtype_name}"
    default_float = _default_float_name()
    if t.numel() == 0:
        body = _PREFIX + "[]"
        if t.ndim != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if dtype_name != default_float:
            suffixes.append(dtype_suffix)
    else:
        with np.printoptions(**opts):  # Note [Print options]
            numbers = np.array2string(_host_array(t), separator=", ", prefix=_PREFIX)
        body = _PREFIX + numbers
        if dtype_name not in (default_float, "int64", "bool"):
            suffixes.append(dtype_suffix)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(body, suffixes, opts["linewidth"])


def format_str(t):
    """The ``str`` of a tensor: the same text as its ``repr``, as in PyTorch.

    Parameters
    ----------
    t : Tensor
        Any tensor.

    Returns
    -------
    str
        ``format_repr(t)``.

    Examples
    --------
    >>> import strided
    >>> print(format_str(strided.arange(3)))
    tensor([0, 1, 2])
    """
    return format_repr(t)


# ---------------------------------------------------------------------------------------------
# explain: a picture of a view
# ---------------------------------------------------------------------------------------------


def _index_names(ndim):
    """Names for the index variables in the formula line: i, j, k, l, else i0, i1, ..."""
    return list("ijkl"[:ndim]) if ndim <= 4 else [f"i{d}" for d in range(ndim)]


def _formula(offset, strides, names):
    """``1 + 1*i - 2*j``: the cell of element [i, j] written out."""
    text = str(offset)
    for s, name in zip(strides, names, strict=True):
        text += f" - {-s}*{name}" if s < 0 else f" + {s}*{name}"
    return text


def _window_hits(shape, strides, offset, lo, hi, limit=_TOUCH_LIMIT):
    """Cells in ``[lo, hi)`` -> the indices landing there (``None`` for stride-0 dims).

    Returns ``(hits, complete)``; ``complete`` is False when ``limit`` indices were found
    and the search stopped. See Note [The explain picture].
    """
    ndim = len(shape)
    free = [d for d in range(ndim) if shape[d] > 1 and strides[d] != 0]
    free.sort(key=lambda d: -abs(strides[d]))
    # rest_min[k] / rest_max[k]: the least / most that the dims free[k:] can add to a cell.
    rest_min = [0] * (len(free) + 1)
    rest_max = [0] * (len(free) + 1)
    for k in reversed(range(len(free))):
        reach = strides[free[k]] * (shape[free[k]] - 1)
        rest_min[k] = rest_min[k + 1] + min(0, reach)
        rest_max[k] = rest_max[k + 1] + max(0, reach)
    index = [None if shape[d] > 1 and strides[d] == 0 else 0 for d in range(ndim)]
    hits = {}
    found = 0

    def visit(k, cell):
        nonlocal found
        if k == len(free):
            hits.setdefault(cell, []).append(tuple(index))
            found += 1
            return found < limit
        d = free[k]
        s = strides[d]
        # Indices i along d that can still land in the window whatever the later dims add:
        # lo <= cell + s*i + rest <= hi - 1, with rest in [rest_min, rest_max].
        low = lo - rest_max[k + 1] - cell
        high = hi - 1 - rest_min[k + 1] - cell
        if s > 0:
            first, last = -(-low // s), high // s
        else:
            first, last = -(-high // s), low // s
        for i in range(max(first, 0), min(last, shape[d] - 1) + 1):
            index[d] = i
            if not visit(k + 1, cell + s * i):
                return False
        index[d] = 0
        return True

    complete = visit(0, offset)
    return hits, complete


def _distinct_cells(shape, strides):
    """How many distinct cells the view uses, and how many of them hold several elements.

    Returns ``(distinct, shared)``; both are None when too costly to count exactly.
    """
    free = [(n, abs(s)) for n, s in zip(shape, strides, strict=True) if n > 1 and s != 0]
    copies = math.prod(n for n, s in zip(shape, strides, strict=True) if n > 1 and s == 0)
    # If each stride steps past everything the smaller strides can reach, no two indices meet.
    reach = 0
    injective = True
    for n, s in sorted(free, key=lambda pair: pair[1]):
        if s <= reach:
            injective = False
            break
        reach += s * (n - 1)
    if injective:
        distinct = math.prod(n for n, _ in free)
        return distinct, (distinct if copies > 1 else 0)
    if math.prod(n for n, _ in free) > _EXACT_COUNT_LIMIT:
        return None, None
    counts = {}
    for index in itertools.product(*(range(n) for n, _ in free)):
        cell = sum(i * s for i, (_, s) in zip(index, free, strict=True))
        counts[cell] = counts.get(cell, 0) + 1
    shared = len(counts) if copies > 1 else sum(1 for c in counts.values() if c > 1)
    return len(counts), shared


def _label(index, compact):
    """``12`` (or ``1,12``) for index (1, 12); ``*`` for a stride-0 dim; ``()`` for 0-d."""
    if not index:
        return "()"
    parts = ["*" if i is None else str(i) for i in index]
    return ("" if compact else ",").join(parts)


def _picture(shape, strides, offset, ncells):
    """The ``cells:`` / ``index:`` rows and the lines that explain them."""
    lines = []
    span = cell_span(shape, strides, offset)
    start = 0
    if ncells > _SHOWN_CELLS and span is not None and span[0] >= _SHOWN_CELLS:
        start = min(span[0], ncells - _SHOWN_CELLS)
    stop = min(ncells, start + _SHOWN_CELLS)
    hits, complete = _window_hits(shape, strides, offset, start, stop)
    copies = math.prod(n for n, s in zip(shape, strides, strict=True) if n > 1 and s == 0)
    compact = len(shape) == 1 or all(n <= 10 for n in shape)
    labels = []
    for cell in range(start, stop):
        found = hits.get(cell, [])
        if not found:
            labels.append(".")
        elif len(found) == 1:
            labels.append(_label(found[0], compact))
        else:
            labels.append(f"{len(found) * copies}x")
    width = max(len(str(stop - 1)), max(len(lab) for lab in labels))
    # Rows of equal length (16 + 16 rather than 26 + 6) read better.
    rows = math.ceil(len(labels) / max(1, (_PICTURE_WIDTH - 9) // (width + 1)))
    per_row = math.ceil(len(labels) / rows)
    for row in range(start, stop, per_row):
        cells = range(row, min(row + per_row, stop))
        shown = labels[row - start : row - start + len(cells)]
        lines.append("cells:   " + " ".join(f"{c:<{width}}" for c in cells))
        lines.append("index:   " + " ".join(f"{lab:<{width}}" for lab in shown))

    legend = []
    example = next((lab for lab in reversed(labels) if lab[-1] != "x" and lab != "."), None)
    if example is not None and example != "()":
        parts = [example] if len(shape) == 1 else example if compact else example.split(",")
        legend.append(f"index {example} = element [{', '.join(parts)}]")
    elif example == "()":
        legend.append("index () = the one element of a 0-d tensor")
    if any("*" in lab for lab in labels):
        legend.append("* = every position along a stride-0 dim")
    shared = next((lab for lab in labels if lab[-1] == "x"), None)
    if shared is not None:
        legend.append(f"{shared} = {shared[:-1]} elements in one cell")
    if "." in labels:
        legend.append(". = not in this view")
    if legend:
        lines.append("         (" + "; ".join(legend) + ")")
    if start > 0 or stop < ncells:
        left_out = ncells - (stop - start)
        lines.append(
            f"showing cells {start}..{stop - 1} of {ncells}; the other {left_out} are left out"
        )
    if not complete:
        lines.append(f"(the picture stopped after {_TOUCH_LIMIT} elements: it is incomplete)")
    return lines


def _contiguity_line(t, shape, strides):
    """Whether ``t`` is contiguous, and if not, what row-major strides would be."""
    row_major = contiguous_strides(shape)
    if t.is_contiguous():
        return f"contiguous: yes (row-major: strides {row_major})"
    line = f"contiguous: no (row-major strides would be {row_major})"
    # A permuted contiguous tensor (x.T, x.permute(...)) is the common case: say which permute
    # would bring it back to row-major.
    order = sorted(range(len(shape)), key=lambda d: -abs(strides[d]))
    permuted = tuple(shape[d] for d in order)
    positive = all(strides[d] > 0 for d in order if shape[d] > 1)
    if positive and order != list(range(len(shape))):
        wanted = contiguous_strides(permuted)
        if all(shape[d] == 1 or strides[d] == w for d, w in zip(order, wanted, strict=True)):
            dims = ", ".join(str(d) for d in order)
            line += f"; .permute({dims}) of it is contiguous"
    return line


def _dim_notes(shape, strides):
    """One line for each dim whose stride deserves a word: negative, zero, or unused."""
    notes = []
    for d, (n, s) in enumerate(zip(shape, strides, strict=True)):
        if n == 1:
            notes.append(f"dim {d} has size 1: its index is always 0, so its stride {s} is unused")
        elif s < 0:
            slicing = ":, " * d + "::-1"
            notes.append(f"stride {s} along dim {d}: walking backwards, as x[{slicing}] does")
        elif s == 0 and n > 1:
            notes.append(
                f"stride 0 along dim {d}: its {n} positions share the same cells "
                "(as expand/broadcast make)"
            )
    return notes


def _footprint_lines(shape, strides, offset, distinct, itemsize, nbytes):
    """Bytes the view spans against the bytes of its storage, and the gaps inside the span."""
    span = cell_span(shape, strides, offset)
    if span is None:
        return [f"footprint: no elements, so none of the storage's {nbytes} bytes"]
    lo, hi = span
    span_cells = hi - lo + 1
    numel = math.prod(shape)
    lines = [
        f"footprint: spans cells {lo}..{hi}, {span_cells * itemsize} of the storage's {nbytes} "
        f"bytes; {_plural(numel, 'element')} x {itemsize} = {numel * itemsize} bytes"
    ]
    if distinct is not None and distinct < span_cells:
        gaps = _plural(span_cells - distinct, "cell")
        lines.append(f"gaps: {gaps} inside that span {_be(span_cells - distinct)} not in the view")
    return lines


def explain(t):
    """A picture of how a tensor's elements sit in its storage, for learning.

    Everything is worked out from ``shape``, ``stride()`` and ``storage_offset()``; the data is
    never read. See Note [The explain picture] for how the picture is drawn.

    Parameters
    ----------
    t : Tensor
        Any tensor (a view or not, on any device).

    Returns
    -------
    str
        Several lines: the tensor, its storage, the formula from index to storage cell, a
        picture of the cells, notes on unusual strides, contiguity and memory footprint.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(8, dtype=strided.float32)
    >>> y = x[1:7].reshape(3, 2).T
    >>> print(explain(y))
    tensor of shape (2, 3), dtype float32 (4 bytes per element) on cpu
    storage: 8 cells (32 bytes); this tensor is a view (of a tensor of shape (8,))
    offset 1, strides (1, 2): element [i, j] lives at storage cell 1 + 1*i + 2*j
    cells:   0  1  2  3  4  5  6  7
    index:   .  00 10 01 11 02 12 .
             (index 12 = element [1, 2]; . = not in this view)
    contiguous: no (row-major strides would be (3, 1)); .permute(1, 0) of it is contiguous
    footprint: spans cells 1..6, 24 of the storage's 32 bytes; 6 elements x 4 = 24 bytes

    An expanded (broadcast) view keeps one copy of each value:

    >>> print(explain(strided.broadcast_to(strided.arange(3), (2, 3))))
    tensor of shape (2, 3), dtype int64 (8 bytes per element) on cpu
    storage: 3 cells (24 bytes); this tensor is a view (of a tensor of shape (3,))
    offset 0, strides (0, 1): element [i, j] lives at storage cell 0 + 0*i + 1*j
    cells:   0  1  2
    index:   *0 *1 *2
             (index *2 = element [*, 2]; * = every position along a stride-0 dim)
    stride 0 along dim 0: its 2 positions share the same cells (as expand/broadcast make)
    3 cells are shared by several elements (stride 0: an expanded view, read-only)
    contiguous: no (row-major strides would be (3, 1))
    footprint: spans cells 0..2, 24 of the storage's 24 bytes; 6 elements x 8 = 48 bytes
    """
    shape = tuple(t.shape)
    strides = tuple(t.stride())
    offset = t.storage_offset()
    dtype = t.dtype
    itemsize = dtype.itemsize
    nbytes = t.untyped_storage().nbytes
    ncells, spare = divmod(nbytes, itemsize)
    numel = t.numel()

    lines = [
        f"tensor of shape {shape}, dtype {dtype.name} ({itemsize} bytes per element) on {t.device}"
    ]
    base = t._base
    owner = (
        "this tensor is not a view of another tensor"
        if base is None
        else f"this tensor is a view (of a tensor of shape {tuple(base.shape)})"
    )
    spare_text = f" + {spare} spare bytes" if spare else ""
    lines.append(f"storage: {_plural(ncells, 'cell')}{spare_text} ({nbytes} bytes); {owner}")

    if not shape:
        lines.append(
            f"offset {offset}, 0-d (no strides): its one element lives at storage cell {offset}"
        )
    else:
        names = _index_names(len(shape))
        lines.append(
            f"offset {offset}, strides {strides}: element [{', '.join(names)}] lives at storage "
            f"cell {_formula(offset, strides, names)}"
        )
    if numel == 0:
        lines.append("it has no elements, so it uses no cells")
    elif ncells > 0:
        lines.extend(_picture(shape, strides, offset, ncells))

    lines.extend(_dim_notes(shape, strides))
    distinct, shared = _distinct_cells(shape, strides) if numel else (0, 0)
    if numel > 0:
        expanded = any(n > 1 and s == 0 for n, s in zip(shape, strides, strict=True))
        why = (
            "stride 0: an expanded view, read-only"
            if expanded
            else "overlapping strides: in-place writes raise"
        )
        if shared is None:
            lines.append(f"some cells are shared by several elements ({why})")
        elif shared:
            cells = _plural(shared, "cell")
            lines.append(f"{cells} {_be(shared)} shared by several elements ({why})")
    lines.append(_contiguity_line(t, shape, strides))
    lines.extend(_footprint_lines(shape, strides, offset, distinct, itemsize, nbytes))

    provenance = getattr(t, "__dict__", {}).get("_provenance")
    if provenance:
        lines.append(f"made by: {provenance}")
    if t.grad_fn is not None:
        lines.append(f"autograd: made by {t.grad_fn.name()}, which records it for backward")
    elif t.requires_grad:
        lines.append("autograd: a leaf that requires grad (backward will fill its .grad)")
    return "\n".join(_wrap(line) for line in lines)


def _plural(n, noun):
    """``1 cell``, ``3 cells``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _be(n):
    """``is`` or ``are``, to agree with ``n``."""
    return "is" if n == 1 else "are"


def _wrap(line):
    """A long prose line wrapped to ``_TEXT_WIDTH``; the picture rows are never wrapped."""
    if line.startswith(("cells:", "index:")) or len(line) <= _TEXT_WIDTH:
        return line.rstrip()
    # Keep tuples and indices whole: no break after a comma inside brackets.
    glued, depth = [], 0
    for i, ch in enumerate(line):
        depth += (ch in "([") - (ch in ")]")
        glued.append("\0" if ch == " " and depth > 0 and line[i - 1] == "," else ch)
    lead = line[: len(line) - len(line.lstrip())]
    wrapped = textwrap.fill(
        "".join(glued).strip(),
        width=_TEXT_WIDTH,
        initial_indent=lead,
        subsequent_indent=lead + "    ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return wrapped.replace("\0", " ")
