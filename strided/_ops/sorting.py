"""Sorting and sets: ``sort``, ``argsort`` and ``topk`` along an axis, and the Array API's
``unique_*`` functions, each a thin front to the stable merge sort in ``_cpu/sort.pyx.tp`` (see
Note [Why merge sort] there) and, for unique, the one pass of ``_cpu/unique.pyx.tp``; on a CUDA
device, to ``strided/cuda/_sort.py`` (Note [CUDA sorting]), with the same results.

Signatures are NumPy's and the Array API's (``sort(x, /, axis=-1, kind=None, order=None, *,
descending=False, stable=None)``), with PyTorch's ``dim=`` giving PyTorch's result (Note [Three
sorts]); ``topk`` is PyTorch's. The sort is always stable, so ``stable=False`` is accepted and
gives the same (stable) result, which the standard allows. Decisions the standards leave open:

- NaN sorts last in ascending order and first in descending order (NumPy's and PyTorch's
  placement; Note [Where NaN goes]); complex numbers sort by real part, then imaginary part, as in
  NumPy (Note [Complex order]).
- A 0-d tensor sorts as a one-element line along ``axis=-1`` or ``0`` (PyTorch's rule; NumPy
  refuses).
- ``unique_*`` return their values sorted (the Array API leaves the order unspecified; NumPy 2.3+
  may return ``unique_values`` unsorted), and every NaN is its own value, as NumPy 2's
  ``unique_*`` functions (``equal_nan=False``). ``indices`` holds the first occurrence of each
  value. The NumPy-style ``unique`` folds NaNs into one (``equal_nan=True``), as ``np.unique``.
"""

from __future__ import annotations

import collections
import operator

from strided import _check, _dispatch, _views
from strided._cpu import copy as _copy
from strided._cpu import sort as _sort
from strided._cpu import unique as _unique
from strided._ops import elementwise as _ew

__all__ = [
    "sort",
    "argsort",
    "topk",
    "unique_values",
    "unique_counts",
    "unique_inverse",
    "unique_all",
    "unique",
    "sort_complex",
]

SortResult = collections.namedtuple("SortResult", ["values", "indices"])
SortResult.__doc__ = "PyTorch's ``x.sort(dim)`` result: the sorted values and their positions."
TopKResult = collections.namedtuple("TopKResult", ["values", "indices"])
TopKResult.__doc__ = "``topk``'s result: the k selected values and their positions."
UniqueAllResult = collections.namedtuple(
    "UniqueAllResult", ["values", "indices", "inverse_indices", "counts"]
)
UniqueAllResult.__doc__ = "The Array API's ``unique_all`` result."
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueCountsResult.__doc__ = "The Array API's ``unique_counts`` result."
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"])
UniqueInverseResult.__doc__ = "The Array API's ``unique_inverse`` result."


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors


def _axis(name, x, axis, dim=None):
    """The sorted axis as a non-negative int (0 for a 0-d tensor), checked."""
    if dim is not None:
        if axis not in (-1, None) and axis != dim:
            raise TypeError(f"{name}: pass axis= or dim=, not both")
        axis = dim
    if axis is None:
        axis = -1
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"{name}: axis must be an int, got {axis!r}")
    return _check.axis(axis, x.ndim, name, zero_d=True)  # a 0-d tensor takes -1 and 0


def _sort_kernel(x, axis, descending, want_values, want_indices):
    """The CPU kernel of ``sort``: (values or None, int64 positions or None) along ``axis``."""
    if x.ndim == 0:
        values, indices = _sort.sort_axis(x.reshape(1), 0, descending, want_values, want_indices)
        return (
            None if values is None else values.reshape(()),
            None if indices is None else indices.reshape(()),
        )
    return _sort.sort_axis(x, axis, descending, want_values, want_indices)


_dispatch.register("sort", "CPU", _sort_kernel)


def _cuda():
    from strided.cuda import _sort as cuda_sort  # loaded with the first CUDA tensor

    return cuda_sort


def _sort_kernel_cuda(x, axis, descending, want_values, want_indices):
    """The CUDA kernel of ``sort``: as ``_sort_kernel`` (Note [CUDA sorting] in
    strided/cuda/_sort.py)."""
    if x.ndim == 0:
        values, indices = _cuda().sort(x.reshape(1), 0, descending, want_values, want_indices)
        return (
            None if values is None else values.reshape(()),
            None if indices is None else indices.reshape(()),
        )
    return _cuda().sort(x, axis, descending, want_values, want_indices)


_dispatch.register("sort", "CUDA", _sort_kernel_cuda)


def _run_sort(x, axis, descending, want_values, want_indices):
    if _dispatch.possible[0] == _dispatch.CPU:  # see Note [Dispatch key sets] in _dispatch.py
        return _sort_kernel(x, axis, descending, want_values, want_indices)
    return _dispatch.call("sort", x, axis, descending, want_values, want_indices)


# Note [Three sorts]
# ~~~~~~~~~~~~~~~~~~
# ``numpy.sort(a, axis=-1, kind=None, order=None, *, stable=None)``, the Array API's
# ``sort(x, /, *, axis=-1, descending=False, stable=True)`` and PyTorch's ``torch.sort(input,
# dim=-1, descending=False, stable=False)`` share a name and disagree on the result: NumPy's
# and the Array API's are the sorted values, PyTorch's the pair (values, indices). NumPy's
# call is the function's (Note [NumPy first] in DESIGN.md): the axis may be given by position,
# ``axis=None`` sorts the flattened tensor, ``kind`` is checked as NumPy checks it (any
# algorithm gives the one stable result here, the sort being stable whatever is asked), and
# ``descending`` is the Array API's keyword. PyTorch's keyword ``dim=`` makes the call
# PyTorch's and returns (values, indices). ``argsort`` has one result in all three, so
# ``dim=`` is only another name for the axis there.


def _kind(name, kind, stable):
    """NumPy's check of ``kind``: a string whose first letter names quicksort, heapsort,
    mergesort or stable (case ignored), and not given together with ``stable``."""
    if kind is None:
        return
    if stable is not None:
        raise ValueError(
            f"{name}: kind and stable can't be given together; give one of them (as NumPy)"
        )
    if isinstance(kind, bytes):
        kind = kind.decode()
    if not isinstance(kind, str):
        raise TypeError(f"{name}: sort kind must be str, not {type(kind).__name__}")
    if kind[:1].lower() not in ("q", "h", "m", "s"):
        raise ValueError(
            f"{name}: sort kind must be one of 'quicksort', 'heapsort', 'mergesort' or "
            f"'stable', got {kind!r}"
        )


def _order(name, order):
    if order is not None:
        raise ValueError(
            f"{name}: order= sorts a structured array by its fields; strided tensors have none "
            "(NumPy refuses it on such arrays too)"
        )


def sort(x, /, axis=-1, kind=None, order=None, *, descending=False, stable=None, dim=None):
    """The values of ``x`` sorted along ``axis`` (the flattened ``x`` if None), stably (a new
    tensor): NumPy's ``sort`` and the Array API's (Note [Three sorts]).

    NaNs go last (first when ``descending``); equal elements keep their order, also when
    ``descending`` (it is not a reversed ascending sort). Every ``kind`` and ``stable=False``
    are accepted; the sort is stable either way. With PyTorch's ``dim=`` the result is
    PyTorch's ``(values, indices)``, as ``torch.sort``.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[3.0, float("nan"), 1.0], [2.0, 2.0, -1.0]])
    >>> strided.sort(x)
    tensor([[ 1.,  3., nan],
            [-1.,  2.,  2.]])
    >>> strided.sort(x, axis=0, descending=True)
    tensor([[ 3., nan,  1.],
            [ 2.,  2., -1.]])
    >>> strided.sort(x, None, kind="stable")
    tensor([-1.,  1.,  2.,  2.,  3., nan])
    >>> strided.sort(strided.asarray([3, 1, 2]), dim=0)
    SortResult(values=tensor([1, 2, 3]), indices=tensor([1, 2, 0]))
    """
    x = _tensor(x)
    _kind("sort", kind, stable)
    _order("sort", order)
    if dim is not None:
        if axis not in (-1, dim):
            raise TypeError("sort: pass axis= or dim=, not both")
        return sort_with_indices(x, dim, descending)
    if axis is None:
        x, axis = x.reshape(-1), 0
    return _run_sort(x, _axis("sort", x, axis), bool(descending), True, False)[0]


def argsort(x, /, axis=-1, kind=None, order=None, *, descending=False, stable=None, dim=None):
    """The positions (int64) that sort ``x`` along ``axis`` (of the flattened ``x`` if None),
    stably: ``take_along_axis(x, argsort(x))`` is ``sort(x)``. Ties keep their original order,
    also when ``descending``. NumPy's arguments (``kind`` checked, every kind stable), the
    Array API's ``descending``, PyTorch's ``dim=`` (Note [Three sorts]).

    Examples
    --------
    >>> import strided
    >>> strided.argsort(strided.asarray([3, 1, 2, 1]))
    tensor([1, 3, 2, 0])
    >>> strided.argsort(strided.asarray([3, 1, 2, 1]), descending=True)
    tensor([0, 2, 1, 3])
    >>> strided.argsort(strided.asarray([[3, 1], [2, 0]]), axis=None, kind="stable")
    tensor([3, 1, 2, 0])
    """
    x = _tensor(x)
    _kind("argsort", kind, stable)
    _order("argsort", order)
    if axis is None and dim is None:
        x, axis = x.reshape(-1), 0
    return _run_sort(x, _axis("argsort", x, axis, dim), bool(descending), False, True)[1]


def sort_with_indices(x, dim=-1, descending=False, stable=False):
    """PyTorch's ``torch.sort``: ``(values, indices)`` along ``dim`` (always stable here)."""
    x = _tensor(x)
    return SortResult(*_run_sort(x, _axis("sort", x, dim), bool(descending), True, True))


# Note [topk by selection] in _cpu/sort.pyx.tp: selection reads each line once and keeps a heap of
# k, which pays while the heap is small (fits in cache) and k is a small part of the line.
_SELECT_MAX_K = 1024
_SELECT_MIN_RATIO = 8  # n >= 8 * k


def _topk_kernel(x, dim, k, largest):
    """The CPU kernel of ``topk``: selection for small k, else a sort and the first k."""
    n = x.shape[dim] if x.ndim else 1
    if x.ndim and 0 < k <= _SELECT_MAX_K and _SELECT_MIN_RATIO * k <= n:
        return _sort.topk_axis(x, dim, k, largest)
    values, indices = _sort_kernel(x, dim, largest, True, True)
    if k < n:
        values = _copy.contiguous_copy(_views.narrow(values, dim, 0, k))
        indices = _copy.contiguous_copy(_views.narrow(indices, dim, 0, k))
    return values, indices


_dispatch.register("topk", "CPU", _topk_kernel)


def _topk_kernel_cuda(x, dim, k, largest):
    """The CUDA kernel of ``topk``: the first k of the stable sort (Note [CUDA sorting])."""
    if x.ndim == 0:
        values, indices = _cuda().topk(x.reshape(1), 0, k, largest)
        return values.reshape(()), indices.reshape(())
    return _cuda().topk(x, dim, k, largest)


_dispatch.register("topk", "CUDA", _topk_kernel_cuda)


def topk(x, k, dim=-1, largest=True, sorted=True, *, axis=None):
    """The ``k`` largest (or smallest) elements along ``dim`` and their positions (PyTorch's
    ``topk``), in sorted order: descending for ``largest``, ascending otherwise.

    The result is exactly the first k of the stable sort: NaN counts as the largest value, as
    in PyTorch, and equal values come in their original order. For small k each line is read
    once, keeping the best k so far (a selection: Note [topk by selection] in _cpu/sort.pyx.tp);
    for large k the line is sorted. ``sorted=False`` is accepted; the result is sorted anyway.

    Examples
    --------
    >>> import strided
    >>> strided.topk(strided.asarray([1, 9, 3, 9, 5]), 3)
    TopKResult(values=tensor([9, 9, 5]), indices=tensor([1, 3, 4]))
    """
    x = _tensor(x)
    dim = _axis("topk", x, dim if axis is None else axis)
    if isinstance(k, bool) or not hasattr(k, "__index__"):
        raise TypeError(f"topk: k must be an int, got {k!r}")
    k = operator.index(k)
    n = x.shape[dim] if x.ndim else 1
    if not 0 <= k <= n or (x.ndim == 0 and k != 1):
        raise ValueError(
            f"topk: k={k} is out of range for dim {dim} of size {n} "
            f"(expected 0 <= k <= {n}{'; a 0-d tensor takes k=1' if x.ndim == 0 else ''})"
        )
    largest = bool(largest)
    if _dispatch.possible[0] == _dispatch.CPU:
        return TopKResult(*_topk_kernel(x, dim, k, largest))
    return TopKResult(*_dispatch.call("topk", x, dim, k, largest))


# -- sets ---------------------------------------------------------------------------------------


def _unique_kernel(x, with_positions):
    """The CPU kernel of the unique functions: sort the flattened input, then one pass (Note
    [Unique from a sort] in _cpu/unique.pyx.tp). (values, indices, counts, inverse in x's shape);
    indices and inverse are None without ``with_positions``."""
    flat = x.reshape(-1)
    values, perm = _sort_kernel(flat, 0, False, True, with_positions)
    values, first, counts, inverse = _unique.unique_from_sorted(values, perm)
    if inverse is not None:
        inverse = inverse.reshape(x.shape)
    return values, first, counts, inverse


_dispatch.register("unique", "CPU", _unique_kernel)
_dispatch.register("unique", "CUDA", lambda x, with_positions: _cuda().unique(x, with_positions))


def _run_unique(x, with_positions):
    x = _tensor(x)
    if _dispatch.possible[0] == _dispatch.CPU:
        return _unique_kernel(x, with_positions)
    return _dispatch.call("unique", x, with_positions)


def unique_values(x, /):
    """The distinct values of ``x``, sorted, as a 1-D tensor; every NaN counts as distinct.

    Examples
    --------
    >>> import strided
    >>> strided.unique_values(strided.asarray([[3, 1], [3, 2]]))
    tensor([1, 2, 3])
    """
    return _run_unique(x, False)[0]


def unique_counts(x, /):
    """``(values, counts)``: the distinct values of ``x`` (sorted) and how often each occurs.

    Examples
    --------
    >>> import strided
    >>> strided.unique_counts(strided.asarray([3, 1, 3, 3]))
    UniqueCountsResult(values=tensor([1, 3]), counts=tensor([1, 3]))
    """
    values, _, counts, _ = _run_unique(x, False)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """``(values, inverse_indices)``: the distinct values (sorted), and for every element of
    ``x`` the position of its value among them (in x's shape): ``values[inverse_indices]``
    rebuilds ``x``.

    Examples
    --------
    >>> import strided
    >>> strided.unique_inverse(strided.asarray([3, 1, 3]))
    UniqueInverseResult(values=tensor([1, 3]), inverse_indices=tensor([1, 0, 1]))
    """
    values, _, _, inverse = _run_unique(x, True)
    return UniqueInverseResult(values, inverse)


def unique_all(x, /):
    """``(values, indices, inverse_indices, counts)``: the distinct values (sorted), the first
    position of each in the flattened ``x``, the inverse (as ``unique_inverse``) and the counts.

    Examples
    --------
    >>> import strided
    >>> r = strided.unique_all(strided.asarray([3.0, 1.0, 3.0, float("nan")]))
    >>> r.values, r.indices, r.counts
    (tensor([ 1.,  3., nan]), tensor([1, 0, 3]), tensor([1, 2, 1]))
    """
    values, first, counts, inverse = _run_unique(x, True)
    return UniqueAllResult(values, first, inverse, counts)


def unique(
    x,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    *,
    equal_nan=True,
):
    """NumPy's ``np.unique`` (for ``axis=None``): the sorted distinct values, and with the
    flags also the first indices, the inverse (in x's shape) and the counts, as a tuple in that
    order. Unlike ``unique_values``, all NaNs count as one value unless ``equal_nan=False``.

    Examples
    --------
    >>> import strided
    >>> nan = float("nan")
    >>> strided.unique(strided.asarray([2.0, nan, 1.0, nan]), return_counts=True)
    (tensor([ 1.,  2., nan]), tensor([1, 1, 2]))
    """
    if axis is not None:
        raise NotImplementedError("unique: only axis=None (unique elements) is supported yet")
    x = _tensor(x)
    values, first, counts, inverse = _run_unique(x, return_index or return_inverse)
    if equal_nan and values.dtype.kind in "fc" and values.numel() > 1:
        # NaNs (for complex: anything with a NaN part) sort last, each its own value: fold
        # them into the first of them, as np.unique does
        nnan = int(_ew.isnan(values).sum())
        if nnan > 1:
            g = values.numel() - nnan
            values = values[: g + 1].clone()
            counts = counts[: g + 1].clone()
            counts[g] = nnan
            if first is not None:
                first = first[: g + 1].clone()
                inverse = _ew.minimum(inverse, g)
            elif not return_counts:
                # NumPy (2.3 on) answers this call from a hash table, which keeps the first NaN
                # met in x (1+nanj, not the -1+nanj that sorts first); its sorting road, taken
                # with the flags, keeps the first in sorted order, as above
                from strided._ops.reduction import argmax

                flat = x.reshape(-1)
                values[g] = flat[argmax(_ew.isnan(flat))]
    out = [values]
    if return_index:
        out.append(first)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


def sort_complex(a):
    """``a`` sorted along its last axis, real part first, then imaginary part, as a complex
    tensor: complex64 for int8/int16/uint8/uint16 input, complex128 for other real input (as
    NumPy), complex input keeping its dtype.

    Examples
    --------
    >>> import strided
    >>> strided.sort_complex(strided.asarray([5, 3, 6, 2, 1]))
    tensor([1.+0.j, 2.+0.j, 3.+0.j, 5.+0.j, 6.+0.j], dtype=strided.complex128)
    """
    b = sort(_check.tensor(a), axis=-1)
    if b.dtype.kind == "c":
        return b
    small = b.dtype.name in ("int8", "int16", "uint8", "uint16")
    return b.astype("complex64" if small else "complex128")
