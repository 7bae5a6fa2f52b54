"""``explain``: a picture of a view, and the arithmetic of a strided view it is drawn from.

``explain`` is for learning: it draws which storage cell holds which element of a view, computed
from shape, strides and offset alone (it never reads the data), so it works on any view, on any
device. The small helpers (``element_offset``, ``contiguous_strides``, ``cell_span``,
``cells_touched``) are that arithmetic, each small enough to test on its own. The other text
face of a tensor, its ``repr``, is in ``_format.py``.

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

import itertools
import math
import textwrap

__all__ = [
    "cell_span",
    "cells_touched",
    "contiguous_strides",
    "element_offset",
    "explain",
]

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
