"""NumPy's joining and splitting routines that the Array API leaves out: ``concatenate`` (with
``out=``, ``dtype=`` and ``casting=``), ``hstack``, ``vstack``, ``dstack``, ``column_stack``,
``append``, ``array_split`` and the ``hsplit``/``vsplit``/``dsplit`` family, with NumPy's
names, signatures and semantics. The joins are ``concat`` (a copy, as in NumPy); the splits are
narrows along the axis (views). The rest of NumPy's array manipulation routines, and the
conventions both modules follow, are in arrays.py.
"""

from __future__ import annotations

import numpy as np

from strided import _core, _iter, _views
from strided._dtype import as_dtype
from strided._ops import copying as _copy
from strided._ops import views as _vops
from strided._ops.arrays import (
    _CASTINGS,
    _axis,
    _check_cast,
    _int,
    _is_tensor,
    _prepend_dims,
    _sequence,
    _slice_along,
    _tensor,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    ravel,
)
from strided._ops.shape import concat

__all__ = [
    "concatenate",
    "hstack",
    "vstack",
    "dstack",
    "column_stack",
    "array_split",
    "split",
    "hsplit",
    "vsplit",
    "dsplit",
    "append",
    "block",
]


# =============================================================================================
# Joining: concatenate, the stacks, append
# =============================================================================================


def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join tensors along an existing axis (NumPy's ``concatenate``; strided's ``concat``).

    ``axis=None`` flattens every input first. ``dtype`` casts the inputs (checked against
    ``casting``, NumPy's rule names); ``out`` receives the result. A fresh tensor.

    Examples
    --------
    >>> import strided
    >>> strided.concatenate([[1, 2], [[3], [4]]], axis=None)
    tensor([1, 2, 3, 4])
    >>> strided.concatenate([strided.zeros((1, 2), dtype="int8"), [[1, 2]]], dtype="float32")
    tensor([[0., 0.],
            [1., 2.]], dtype=strided.float32)
    """
    arrays = _sequence(arrays, "concatenate")
    if casting not in _CASTINGS:
        raise ValueError(f"concatenate: casting must be one of {_CASTINGS}, got {casting!r}")
    if dtype is not None and out is not None:
        raise TypeError("concatenate: give dtype or out, not both (out's dtype decides)")
    if dtype is not None:
        want = as_dtype(dtype)
        for i, a in enumerate(arrays):
            _check_cast(a.dtype, want, casting, "concatenate", f"input {i}")
        arrays = [a if a.dtype is want else _vops.astype(a, want) for a in arrays]
    if axis is None:
        result = concat(arrays, axis=None)
    else:
        first = arrays[0]
        if first.ndim == 0:
            raise ValueError(
                "concatenate: zero-dimensional arrays cannot be concatenated along an axis; "
                "use axis=None, or stack"
            )
        for i, a in enumerate(arrays[1:], 1):
            if a.ndim != first.ndim:
                raise ValueError(
                    "concatenate: all the input arrays must have same number of dimensions, "
                    f"but the array at index 0 has {first.ndim} dimension(s) (shape "
                    f"{first.shape}) and the array at index {i} has {a.ndim} dimension(s) "
                    f"(shape {a.shape})"
                )
        result = concat(arrays, axis=_axis(axis, first.ndim, "concatenate"))
    if out is None:
        return result
    return _into(out, result, casting, "concatenate")


def _into(out, result, casting, fn):
    """Copy ``result`` into the tensor ``out`` (same shape, castable under ``casting``) and
    return ``out``."""
    _iter.check_out(fn, out, result.shape)  # Note [Checking out=] in _iter.pyx
    _check_cast(result.dtype, out.dtype, casting, fn, "the result")
    _copy.copy_(out, result)
    return out


def _stack_along(arrays, axis, dtype, casting, fn):
    if dtype is not None:
        want = as_dtype(dtype)
        for i, a in enumerate(arrays):
            _check_cast(a.dtype, want, casting, fn, f"input {i}")
        arrays = [a if a.dtype is want else _vops.astype(a, want) for a in arrays]
    first = arrays[0]
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim:
            raise ValueError(
                f"{fn}: all the input arrays must have same number of dimensions, but the "
                f"array at index 0 has shape {first.shape} and the array at index {i} has "
                f"shape {a.shape}"
            )
    return concat(arrays, axis=axis)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Stack tensors horizontally: along axis 1, or axis 0 when all are 1-D (0-d count as 1-D).

    Examples
    --------
    >>> import strided
    >>> strided.hstack([strided.arange(2), [5, 6, 7]])
    tensor([0, 1, 5, 6, 7])
    >>> strided.hstack([strided.zeros((2, 1), dtype="int64"), [[1], [2]]])
    tensor([[0, 1],
            [0, 2]])
    """
    arrays = [atleast_1d(a) for a in _sequence(tup, "hstack")]
    axis = 0 if arrays[0].ndim == 1 else 1
    return _stack_along(arrays, axis, dtype, casting, "hstack")


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Stack tensors vertically, along axis 0, after making 1-D (and 0-d) inputs rows.

    Examples
    --------
    >>> import strided
    >>> strided.vstack([strided.arange(3), [7, 8, 9]])
    tensor([[0, 1, 2],
            [7, 8, 9]])
    """
    arrays = [atleast_2d(a) for a in _sequence(tup, "vstack")]
    return _stack_along(arrays, 0, dtype, casting, "vstack")


def dstack(tup):
    """Stack tensors along the third axis, after making each at least 3-D as ``atleast_3d``.

    Examples
    --------
    >>> import strided
    >>> strided.dstack([[1, 2], [3, 4]])
    tensor([[[1, 3],
             [2, 4]]])
    """
    arrays = [atleast_3d(a) for a in _sequence(tup, "dstack")]
    return _stack_along(arrays, 2, None, "same_kind", "dstack")


def column_stack(tup):
    """Stack 1-D tensors as the columns of a matrix (2-D inputs are stacked as they are).

    Examples
    --------
    >>> import strided
    >>> strided.column_stack([[1, 2, 3], strided.arange(3)])
    tensor([[1, 0],
            [2, 1],
            [3, 2]])
    """
    arrays = []
    for a in _sequence(tup, "column_stack"):
        if a.ndim < 2:
            a = _views.view(a, (-1, 1)) if a.ndim == 1 else _views.view(a, (1, 1))
        arrays.append(a)
    return _stack_along(arrays, 1, None, "same_kind", "column_stack")


def append(arr, values, axis=None):
    """``values`` appended to the end of ``arr``: both flattened when ``axis`` is None, else
    joined along ``axis`` (then they need the same number of dims). A fresh tensor.

    Examples
    --------
    >>> import strided
    >>> strided.append(strided.arange(3), [[7, 8]])
    tensor([0, 1, 2, 7, 8])
    >>> strided.append([[1, 2]], [[3, 4]], axis=0)
    tensor([[1, 2],
            [3, 4]])
    """
    arr = _tensor(arr)
    values = _tensor(values, arr.device)
    if axis is None:
        return concat([ravel(arr), ravel(values)], axis=0)
    return concatenate([arr, values], axis=axis)


# =============================================================================================
# Splitting (views)
# =============================================================================================


def array_split(ary, indices_or_sections, axis=0):
    """Views of ``ary`` split along ``axis``: into N nearly equal parts (the first
    ``len % N`` one longer) for an int N, or at the listed indices (Python slice rules, so an
    index past the end gives empty parts).

    Examples
    --------
    >>> import strided
    >>> strided.array_split(strided.arange(5), 3)
    [tensor([0, 1]), tensor([2, 3]), tensor([4])]
    >>> strided.array_split(strided.arange(5), [1, 10])
    [tensor([0]), tensor([1, 2, 3, 4]), tensor([], dtype=strided.int64)]
    """
    x = _tensor(ary)
    if x.ndim == 0:
        raise IndexError("array_split: a 0-d tensor has no axis to split along")
    axis = _axis(axis, x.ndim, "array_split")
    n = x.shape[axis]
    if _is_tensor(indices_or_sections) or isinstance(indices_or_sections, np.ndarray):
        if indices_or_sections.ndim > 0:
            indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, (list, tuple)):
        cuts = [_int(i, "array_split", "indices") for i in indices_or_sections]
        points = [0, *cuts, n]
    else:
        sections = _int(indices_or_sections, "array_split", "indices_or_sections")
        if sections <= 0:
            raise ValueError(f"array_split: number sections must be larger than 0, got {sections}")
        each, extras = divmod(n, sections)
        points = [0]
        for i in range(sections):
            points.append(points[-1] + each + (1 if i < extras else 0))
    return [_slice_along(x, axis, a, b) for a, b in zip(points[:-1], points[1:], strict=True)]


def _split(x, indices_or_sections, axis, fn):
    """NumPy's ``split``: ``array_split`` that needs an int N to divide the axis evenly."""
    if not isinstance(indices_or_sections, (list, tuple, np.ndarray, _core.TensorBase)):
        sections = _int(indices_or_sections, fn, "indices_or_sections")
        n = x.shape[axis]
        if sections <= 0:
            raise ValueError(f"{fn}: number sections must be larger than 0, got {sections}")
        if n % sections:
            raise ValueError(
                f"{fn}: array split does not result in an equal division: axis {axis} of "
                f"shape {x.shape} has {n} elements, not a multiple of {sections}; "
                "array_split allows unequal parts"
            )
    return array_split(x, indices_or_sections, axis)


def split(ary, indices_or_sections, axis=0, *, dim=None):
    """Views of ``ary`` split along ``axis``: NumPy's ``split``, into N equal parts for an int
    N (else a ValueError), or at the listed indices; a list of views.

    Note [Two splits]
    ~~~~~~~~~~~~~~~~~
    ``numpy.split(a, 3)`` cuts ``a`` into 3 equal parts; ``torch.split(x, 3)`` into parts of
    3 elements. ``numpy.split(a, [1, 4])`` cuts at indices 1 and 4; ``torch.split(x, [1, 4])``
    into parts of sizes 1 and 4. Both calls are valid in both libraries and disagree, so
    NumPy's meaning wins (Note [NumPy first] in DESIGN.md). PyTorch's keyword ``dim=`` asks
    for PyTorch's meaning, with its tuple of views, as does the method ``x.split(3)`` (NumPy's
    arrays have no ``split`` method). An int that does not divide the axis is NumPy's error,
    not PyTorch's uneven last part: that would make the meaning of ``split(x, 2)`` depend on
    the length of ``x``.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6)
    >>> strided.split(x, 3)                 # 3 equal parts (NumPy)
    [tensor([0, 1]), tensor([2, 3]), tensor([4, 5])]
    >>> strided.split(x, [1, 4])            # at indices 1 and 4
    [tensor([0]), tensor([1, 2, 3]), tensor([4, 5])]
    >>> strided.split(x, 4, dim=0)          # parts of 4 elements (PyTorch)
    (tensor([0, 1, 2, 3]), tensor([4, 5]))
    """
    x = _tensor(ary)
    if dim is not None:
        if axis != 0:
            raise TypeError("split: pass axis= (NumPy's sections) or dim= (PyTorch's sizes)")
        return _views.split(x, indices_or_sections, dim)
    if x.ndim == 0:
        raise IndexError("split: a 0-d tensor has no axis to split along")
    return _split(x, indices_or_sections, _axis(axis, x.ndim, "split"), "split")


def hsplit(ary, indices_or_sections):
    """Split horizontally into views: along axis 1, or axis 0 of a 1-D tensor (the parts
    must be equal when an int is given).

    Examples
    --------
    >>> import strided
    >>> strided.hsplit(strided.arange(6).reshape(2, 3), [1])
    [tensor([[0],
            [3]]), tensor([[1, 2],
            [4, 5]])]
    """
    x = _tensor(ary)
    if x.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions, got a 0-d tensor")
    return _split(x, indices_or_sections, 1 if x.ndim > 1 else 0, "hsplit")


def vsplit(ary, indices_or_sections):
    """Split vertically into views, along axis 0 (the tensor must have 2 or more dims).

    Examples
    --------
    >>> import strided
    >>> [p.shape for p in strided.vsplit(strided.zeros((4, 2)), 2)]
    [(2, 2), (2, 2)]
    """
    x = _tensor(ary)
    if x.ndim < 2:
        raise ValueError(
            f"vsplit only works on arrays of 2 or more dimensions, got shape {x.shape}; "
            "use array_split(x, ..., axis=0)"
        )
    return _split(x, indices_or_sections, 0, "vsplit")


def dsplit(ary, indices_or_sections):
    """Split into views along the third axis (the tensor must have 3 or more dims).

    Examples
    --------
    >>> import strided
    >>> [p.shape for p in strided.dsplit(strided.zeros((1, 2, 4)), [1])]
    [(1, 2, 1), (1, 2, 3)]
    """
    x = _tensor(ary)
    if x.ndim < 3:
        raise ValueError(
            f"dsplit only works on arrays of 3 or more dimensions, got shape {x.shape}; "
            "use array_split(x, ..., axis=...)"
        )
    return _split(x, indices_or_sections, 2, "dsplit")


# -- block --------------------------------------------------------------------------------------


def _block_depths(arrays, index):
    """(index of the first leaf, largest leaf ndim) of a nested list of blocks, checking that
    every leaf sits at the same depth (NumPy's rule); an empty list is a leaf marked None."""
    if type(arrays) is tuple:
        raise TypeError(
            f"block: arrays{''.join(f'[{i}]' for i in index)} is a tuple; only lists arrange "
            "blocks (block does not convert tuples to arrays)"
        )
    if type(arrays) is not list:
        return index, _tensor(arrays).ndim
    if not arrays:
        return index + [None], 0
    first, most = None, 0
    for i, item in enumerate(arrays):
        idx, nd = _block_depths(item, index + [i])
        most = max(most, nd)
        if first is None:
            first = idx
        elif len(idx) != len(first):
            where = "".join(f"[{j}]" for j in idx if j is not None)
            raise ValueError(
                f"block: list depths are mismatched: the first element is at depth "
                f"{len(first)}, but arrays{where} is at depth {len(idx)}"
            )
        elif idx[-1] is None:
            first = idx
    return first, most


def _block(arrays, list_ndim, result_ndim, depth):
    if depth < list_ndim:
        parts = [_block(a, list_ndim, result_ndim, depth + 1) for a in arrays]
        return concatenate(parts, axis=-(list_ndim - depth))
    t = _tensor(arrays)
    return _prepend_dims(t, result_ndim - t.ndim)


def block(arrays):
    """Assemble a tensor from nested lists of blocks: the innermost lists are concatenated
    along the last axis, the next along the second-to-last, and so on (blocks with fewer dims
    get leading size-1 dims first), as NumPy's ``block``.

    Examples
    --------
    >>> import strided
    >>> a = strided.eye(2, dtype=strided.int64)
    >>> strided.block([[a, 2 * a], [3 * a, strided.zeros((2, 2), dtype=strided.int64)]])
    tensor([[1, 0, 2, 0],
            [0, 1, 0, 2],
            [3, 0, 0, 0],
            [0, 3, 0, 0]])
    >>> strided.block([strided.asarray([1, 2]), 3])
    tensor([1, 2, 3])
    """
    first, arr_ndim = _block_depths(arrays, [])
    list_ndim = len(first)
    if list_ndim and first[-1] is None:
        where = "".join(f"[{j}]" for j in first[:-1])
        raise ValueError(f"block: the list arrays{where} cannot be empty")
    return _block(arrays, list_ndim, max(arr_ndim, list_ndim), 0)
