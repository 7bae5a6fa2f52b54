"""Set routines, searches and partitions from NumPy (``isin``, ``intersect1d``, ``union1d``,
``setdiff1d``, ``setxor1d``, ``argwhere``, ``flatnonzero``, ``lexsort``, ``partition``,
``argpartition``), each composed of ``sort``, ``unique``, ``searchsorted`` and ``nonzero``.

Sets are sorted 1-D tensors. Membership is a search: ``isin(x, t)`` sorts t once, finds for each
element of x where it would go in the sorted t (``searchsorted``), and compares the element
found there with it, for O((n + m) log m) work instead of the n * m of comparing every pair
(integers in a small range are looked up in a table instead: Note [isin by table]). The
binary operations sort the two inputs together: after ``sort(concat(unique(a), unique(b)))`` a
value present in both stands twice, next to itself, so ``s[1:] == s[:-1]`` marks the
intersection, and the values with no equal neighbour are the symmetric difference.

Note [Partition by selection]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``partition(a, kth)`` promises what NumPy's does: the element at each ``kth`` is the one a sort
would put there, with smaller-or-equal ones before it and greater-or-equal ones after, in some
order (NaNs count as the largest values, so they go last). On the CPU that is the selection
kernel (Note [Selection] in _cpu/select.pyx.tp): introselect, O(n) per line where a sort is
O(n log n), the kth positions done in increasing order. ``argpartition`` is the same kernel
carrying the positions along. The order of the other elements is the kernel's own (NumPy's
differs, which the contract allows), and deterministic: it depends on the line alone, not on the
thread count. A tensor that needs a gradient gets its values gathered at those positions
(``take_along_axis``), so the result is differentiable.

On CUDA devices ``partition`` is still a full stable sort (and ``argpartition`` ``argsort``): a
sort keeps the promise for every kth at once, and the device's sort is one tested kernel.

Results whose size depends on the data (intersections, ``argwhere``) read that size back from
the device (``unique`` and ``nonzero`` do); nothing else waits for the device.
"""

from __future__ import annotations

import operator

from strided import _check, _core
from strided._cpu import select as _select
from strided._dtype import bool_, iinfo, int64, uint8
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import indexing as _ix
from strided._ops import reduction as _red
from strided._ops import shape as _shape
from strided._ops import sorting as _sort
from strided._ops import views as _views

__all__ = [
    "isin",
    "intersect1d",
    "union1d",
    "setdiff1d",
    "setxor1d",
    "argwhere",
    "flatnonzero",
    "lexsort",
    "partition",
    "argpartition",
]


_tensor = _check.tensor  # on ``like``'s device when given


def _flat(x):
    return _views.reshape(x, (-1,))


def _unique(x):
    """NumPy's ``unique(x)``: sorted distinct values of the flattened x (NaNs as one)."""
    return _sort.unique(x)


# Note [isin by table]
# ~~~~~~~~~~~~~~~~~~~~
# For integers whose test values span a small range, NumPy 2 (``_isin`` in
# numpy/lib/_arraysetops_impl.py) answers membership by a lookup table instead of a search: a bool
# per value from min(t) to max(t), True where the value is in t, indexed by ``x - min(t)``. So
# does strided, with NumPy's rule for when (``kind=None``: integer or bool inputs, a range
# ``max(t) - min(t)`` no larger than t's dtype's maximum, so that ``t - min(t)`` cannot overflow,
# and no larger than 6 * (x.size + t.size), so that the table stays in proportion to the inputs;
# ``kind="table"`` drops the second bound). It is composed of existing ops, so it runs on every
# device: the table gets one more False entry at each end, standing for "below min(t)" and
# "above max(t)", so that ``clip`` sends every out-of-range x to one of them, and then the answer
# is ``take(table, clip(x, lo, hi) - lo)``: three passes over x, where the search costs a binary
# search each (5x slower than NumPy at 1e6 values). ``lo`` and ``hi`` are min(t) - 1 and max(t) + 1
# held inside x's dtype (an int8 x cannot be below -128, so it needs no "below" entry there); the
# table is sliced to match. The one host read is min(t) and max(t) together (Note [Host reads in
# statistics] in stats.py).


def _isin_by_table(x, t, kind):
    """isin of the integer x in the non-empty flat integer t by a table, in x's shape, or None
    where NumPy's rule picks the search: Note [isin by table]."""
    x, t = (v.astype(uint8) if v.dtype is bool_ else v for v in (x, t))  # as NumPy does
    tmin, tmax = _shape.stack([_red.min(t), _red.max(t)]).tolist()  # one host read
    if tmax - tmin > iinfo(t.dtype).max:
        if kind == "table":
            raise RuntimeError(
                f"isin: kind='table', but the range of test_elements ({tmin} to {tmax}) "
                f"exceeds the maximum of its dtype {t.dtype.name}; use kind='sort' or None"
            )
        return None
    if kind is None and tmax - tmin > 6 * (x.numel() + t.numel()):
        return None
    info = iinfo(x.dtype)
    lo, hi = max(tmin - 1, info.min), min(tmax + 1, info.max)
    if lo > hi:  # no value of x's dtype is in t's range
        return _cr.zeros(x.shape, dtype=bool_, device=x.device)
    table = _cr.zeros(tmax - tmin + 3, dtype=bool_, device=x.device)
    # t - tmin fits in t's dtype (checked above); + 1 steps over the "below" entry
    pos = _ew.add(_ew.subtract(t, tmin).astype(int64, copy=False), 1)
    table = _ix.index_put(table, pos, True, inplace=True)
    c = _ew.clip(_flat(x), lo, hi)
    if x.dtype.kind == "u":  # c - lo >= 0 cannot wrap in x's dtype
        idx = _ew.subtract(c, lo).astype(int64, copy=False)
    else:  # int8 - (-128) may not fit in int8, but fits in int64
        idx = _ew.subtract(c.astype(int64, copy=False), lo)
    found = _ix.take(table[lo - tmin + 1 : hi - tmin + 2], idx)
    return _views.reshape(found, x.shape)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (bool, element's shape);
    with ``invert``, whether it is not. NaN is in nothing (NaN != NaN), as in NumPy.

    ``kind`` picks the method, as in NumPy: ``"table"`` (integer and bool inputs only) looks
    each element up in a table of bools spanning min(test_elements) to max(test_elements), O(n +
    range) (Note [isin by table]); ``"sort"`` sorts ``test_elements`` once and searches it
    (``searchsorted``), O((n + m) log m); ``None`` takes the table for integers whose range is at
    most 6 * (n + m), else the search. ``kind="table"`` raises a RuntimeError when the range does
    not fit in test_elements' dtype. ``assume_unique`` is accepted; the result does not depend
    on it.

    Examples
    --------
    >>> import strided
    >>> strided.isin(strided.asarray([[1, 2], [3, 4]]), [4, 1, 9])
    tensor([[ True, False],
            [False,  True]])
    >>> strided.isin(strided.asarray([1, 2, 3]), [2], invert=True)
    tensor([ True, False,  True])
    >>> strided.isin(strided.asarray([1, 2, 3]), [2, 10**9], kind="sort")
    tensor([False,  True, False])
    """
    if kind not in (None, "sort", "table"):
        raise ValueError(f"isin: kind must be None, 'sort' or 'table', got {kind!r}")
    x = _tensor(element)
    t = _flat(_tensor(test_elements, x))
    if t.device != x.device:
        raise ValueError(
            f"isin: element is on {x.device} but test_elements on {t.device}; move one"
        )
    ints = x.dtype.kind in "iub" and t.dtype.kind in "iub"
    if kind == "table" and not ints:
        raise ValueError(
            "isin: kind='table' is only supported for boolean or integer arrays, got "
            f"{x.dtype.name} and {t.dtype.name}; use kind='sort' or None"
        )
    found = None  # the table where NumPy's rule picks it (Note [isin by table]), else a search
    if ints and kind != "sort" and t.numel():
        found = _isin_by_table(x, t, kind)
    if found is not None:
        pass
    elif t.numel() == 0 or x.numel() == 0:
        found = _cr.zeros(x.shape, dtype=bool_, device=x.device)
    elif x.dtype.kind == "c" or t.dtype.kind == "c":
        # complex numbers have no order to search in: compare every pair
        pairs = _ew.equal(_views.expand_dims(_flat(x), axis=-1), _views.expand_dims(t, axis=0))
        found = _views.reshape(_red.any(pairs, axis=-1), x.shape)
    else:
        s = _sort.sort(t)
        pos = _ix.searchsorted(s, x)
        pos = _ew.clip(pos, 0, s.shape[0] - 1)
        found = _ew.equal(_ix.take(s, _flat(pos)), _flat(x))
        found = _views.reshape(found, x.shape)
    return _ew.logical_not(found) if invert else found


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values present in both ``ar1`` and ``ar2`` (flattened). With
    ``return_indices``, also the first position of each in the flattened ar1 and ar2.
    ``assume_unique=True`` skips the ``unique`` step (the inputs must then hold no repeats).

    Examples
    --------
    >>> import strided
    >>> strided.intersect1d(strided.asarray([1, 3, 4, 3]), [3, 1, 2, 1])
    tensor([1, 3])
    >>> strided.intersect1d([1, 3, 4, 3], [3, 1, 2, 1], return_indices=True)
    (tensor([1, 3]), tensor([0, 1]), tensor([1, 0]))
    """
    a = _tensor(ar1)
    b = _tensor(ar2, a)
    if assume_unique:
        a, b = _flat(a), _flat(b)
    elif return_indices:
        a, ind1 = _sort.unique(a, return_index=True)
        b, ind2 = _sort.unique(b, return_index=True)
    else:
        a, b = _unique(a), _unique(b)
    aux = _shape.concat([a, b])
    if return_indices:
        order = _sort.argsort(aux)
        aux = _ix.take(aux, order)
    else:
        aux = _sort.sort(aux)
    if aux.shape[0] < 2:
        empty = aux[:0]
        if return_indices:
            e = _cr.empty((0,), dtype=int64, device=aux.device)
            return empty, e, e
        return empty
    mask = _ew.equal(aux[1:], aux[:-1])
    common = aux[:-1][mask]  # the size depends on the data: a host read
    if not return_indices:
        return common
    i1 = order[:-1][mask]
    i2 = _ew.subtract(order[1:][mask], a.shape[0])
    if not assume_unique:
        i1, i2 = _ix.take(ind1, i1), _ix.take(ind2, i2)
    return common, i1, i2


def union1d(ar1, ar2):
    """The sorted values present in ``ar1`` or ``ar2`` (flattened): ``unique(concat)``.

    Examples
    --------
    >>> import strided
    >>> strided.union1d(strided.asarray([3, 1]), [[2, 1]])
    tensor([1, 2, 3])
    """
    a = _tensor(ar1)
    b = _tensor(ar2, a)
    return _unique(_shape.concat([_flat(a), _flat(b)]))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (with ``assume_unique``,
    ar1's values in their order, unsorted, as in NumPy).

    Examples
    --------
    >>> import strided
    >>> strided.setdiff1d(strided.asarray([5, 1, 2, 5, 4]), [2, 3])
    tensor([1, 4, 5])
    """
    a = _tensor(ar1)
    b = _tensor(ar2, a)
    a = _flat(a) if assume_unique else _unique(a)
    return a[isin(a, b, invert=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of ``ar1`` and ``ar2``.

    Examples
    --------
    >>> import strided
    >>> strided.setxor1d(strided.asarray([1, 2, 3, 2]), [2, 3, 5])
    tensor([1, 5])
    """
    a = _tensor(ar1)
    b = _tensor(ar2, a)
    if not assume_unique:
        a, b = _unique(a), _unique(b)
    aux = _sort.sort(_shape.concat([_flat(a), _flat(b)]))
    n = aux.shape[0]
    if n < 2:
        return aux
    differs = _ew.not_equal(aux[1:], aux[:-1])
    edge = _cr.ones((1,), dtype=bool_, device=aux.device)
    flag = _shape.concat([edge, differs, edge])
    return aux[_ew.logical_and(flag[1:], flag[:-1])]


def argwhere(a):
    """The coordinates of the non-zero elements of ``a``, one row each: int64 of shape (N,
    a.ndim) (for 0-d input, (N, 0) with N 0 or 1, as NumPy).

    Examples
    --------
    >>> import strided
    >>> strided.argwhere(strided.asarray([[0, 7], [3, 0]]))
    tensor([[0, 1],
            [1, 0]])
    """
    return _ix.torch_nonzero(_tensor(a))


def flatnonzero(a):
    """The positions (int64) of the non-zero elements of the flattened ``a``.

    Examples
    --------
    >>> import strided
    >>> strided.flatnonzero(strided.asarray([[0, 7], [3, 0]]))
    tensor([1, 2])
    """
    return _ix.nonzero(_flat(_tensor(a)))[0]


def lexsort(keys, axis=-1):
    """The indices (int64) that sort by several keys: the last key is the primary one, the
    one before it breaks its ties, and so on. ``keys`` is a sequence of same-shape arrays (or a
    2-D array, one key per row); the sort runs along ``axis``.

    Built from stable ``argsort``s, least significant key first: each pass keeps the order of
    the previous one among its ties.

    Examples
    --------
    >>> import strided
    >>> surname = strided.asarray([2, 1, 2, 1])
    >>> first = strided.asarray([0, 5, 1, 3])
    >>> strided.lexsort((first, surname))
    tensor([3, 1, 0, 2])
    """
    if isinstance(keys, _core.TensorBase):
        if keys.ndim == 0:
            raise TypeError("lexsort: keys must be a sequence of arrays, got a 0-d tensor")
        keys = [keys[i] for i in range(keys.shape[0])]
    else:
        keys = list(keys)
        if keys and not isinstance(keys[0], _core.TensorBase):
            keys = [_tensor(k) for k in keys]
    if not keys:
        raise TypeError("lexsort: need a sequence of keys with len > 0")
    keys = [_tensor(k, keys[0]) for k in keys]
    shape = keys[0].shape
    for k in keys:
        if k.shape != shape:
            raise ValueError(f"lexsort: all keys need the same shape, got {shape} and {k.shape}")
    if len(shape) == 0:
        return _cr.zeros((), dtype=int64, device=keys[0].device)
    axis = _sort._axis("lexsort", keys[0], axis)
    order = _sort.argsort(keys[0], axis=axis)
    for k in keys[1:]:
        ranked = _ix.take_along_axis(k, order, axis=axis)
        order = _ix.take_along_axis(order, _sort.argsort(ranked, axis=axis), axis=axis)
    return order


def _check_kth(name, a, kth, axis):
    """a (flattened when axis is None), its axis, and the kth checked to be in range, made
    non-negative, sorted and without repeats."""
    if axis is None:
        a, axis = _flat(a), 0
    if a.ndim == 0:
        raise ValueError(f"{name}: a 0-d tensor cannot be partitioned; pass a 1-D one")
    axis = _sort._axis(name, a, axis)
    n = a.shape[axis]
    ks = kth.tolist() if isinstance(kth, _core.TensorBase) else kth
    ks = [ks] if not isinstance(ks, (list, tuple)) else list(ks)
    for k in ks:
        if isinstance(k, bool) or not hasattr(k, "__index__"):
            raise TypeError(f"{name}: kth must be an int or a sequence of ints, got {k!r}")
        k = operator.index(k)
        if not -n <= k < n:
            raise ValueError(f"{name}: kth(={k}) out of bounds for axis {axis} of size {n}")
    return a, axis, sorted({operator.index(k) % n for k in ks})


def _kth_rows(a, axis, ks):
    """The positions ks as the kth rows ``select_axis`` reads: int64, broadcast (without a
    copy) to a's shape but len(ks) along ``axis``."""
    kt = _cr.asarray(ks, dtype=int64, device=a.device)
    shape = tuple(len(ks) if d == axis else 1 for d in range(a.ndim))
    sizes = tuple(len(ks) if d == axis else s for d, s in enumerate(a.shape))
    return _views.broadcast_to(_views.reshape(kt, shape), sizes)


def _partitioned(a, axis, kth):
    """``a`` (on the CPU) partitioned along ``axis`` around the positions in the rows of
    ``kth`` (see ``select_axis``). When a gradient is wanted, a's values are gathered at the
    kernel's positions by ``take_along_axis``, so that it flows back (Note [Partition by
    selection])."""
    if a.requires_grad:
        order = _select.select_axis(a, axis, kth, False, True)[1]
        return _ix.take_along_axis(a, order, axis=axis)
    return _select.select_axis(a, axis, kth, True, False)[0]


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A copy of ``a`` in which the element at each ``kth`` position along ``axis`` is where a
    sort would put it, smaller (or equal) ones before it and larger (or equal) ones after; NaNs
    last. Found by selection, O(n) per line, on the CPU; a full sort on CUDA devices (Note
    [Partition by selection]). Differentiable in ``a``.

    Examples
    --------
    >>> import strided
    >>> p = strided.partition(strided.asarray([7, 1, 5, 3, 9]), 2)
    >>> int(p[2]), bool((p[:2] <= p[2]).all()), bool((p[3:] >= p[2]).all())
    (5, True, True)
    """
    if order is not None:
        raise ValueError("partition: order= needs structured dtypes, which strided lacks")
    a = _tensor(a)
    a, axis, ks = _check_kth("partition", a, kth, axis)
    if a.device.type != "cpu":
        return _sort.sort(a, axis=axis)
    return _partitioned(a, axis, _kth_rows(a, axis, ks))


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """The indices (int64) that partition ``a`` along ``axis`` around ``kth`` (see
    ``partition``): by selection on the CPU, those of a full stable sort on CUDA devices
    (Note [Partition by selection]). ``take_along_axis(a, argpartition(a, kth))`` is
    partitioned.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([7, 1, 5, 3, 9])
    >>> int(x[strided.argpartition(x, 2)[2]])
    5
    """
    if order is not None:
        raise ValueError("argpartition: order= needs structured dtypes, which strided lacks")
    a = _tensor(a)
    a, axis, ks = _check_kth("argpartition", a, kth, axis)
    if a.device.type != "cpu":
        return _sort.argsort(a, axis=axis)
    return _select.select_axis(a, axis, _kth_rows(a, axis, ks), False, True)[1]
