"""Set routines, searches and partitions from NumPy (``isin``, ``intersect1d``, ``union1d``,
``setdiff1d``, ``setxor1d``, ``argwhere``, ``flatnonzero``, ``lexsort``, ``partition``,
``argpartition``), each composed of ``sort``, ``unique``, ``searchsorted`` and ``nonzero``.

Sets are sorted 1-D tensors. Membership is a search: ``isin(x, t)`` sorts t once, finds for each
element of x where it would go in the sorted t (``searchsorted``), and compares the element
found there with it, for O((n + m) log m) work instead of the n * m of comparing every pair. The
binary operations sort the two inputs together: after ``sort(concat(unique(a), unique(b)))`` a
value present in both stands twice, next to itself, so ``s[1:] == s[:-1]`` marks the
intersection, and the values with no equal neighbour are the symmetric difference.

Note [Partition is a sort]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``partition(a, kth)`` promises only that the element at ``kth`` is the one a sort would put
there, smaller ones before it and larger ones after, in some order. A full stable sort keeps that
promise (for every kth at once), so ``partition`` is ``sort`` and ``argpartition`` is
``argsort``: O(n log n) rather than introselect's O(n), but one tested kernel on every device,
and the result is deterministic. NumPy's order of the other elements differs, which its contract
allows.

Results whose size depends on the data (intersections, ``argwhere``) read that size back from
the device (``unique`` and ``nonzero`` do); nothing else waits for the device.
"""

from __future__ import annotations

import operator

from strided import _check, _core
from strided._dtype import bool_, int64
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


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` is in ``test_elements`` (bool, element's shape);
    with ``invert``, whether it is not. NaN is in nothing (NaN != NaN), as in NumPy.

    ``test_elements`` is sorted once and searched (``searchsorted``): O((n + m) log m).
    ``assume_unique`` and ``kind`` are accepted; the result does not depend on them.

    Examples
    --------
    >>> import strided
    >>> strided.isin(strided.asarray([[1, 2], [3, 4]]), [4, 1, 9])
    tensor([[ True, False],
            [False,  True]])
    >>> strided.isin(strided.asarray([1, 2, 3]), [2], invert=True)
    tensor([ True, False,  True])
    """
    if kind not in (None, "sort", "table"):
        raise ValueError(f"isin: kind must be None, 'sort' or 'table', got {kind!r}")
    x = _tensor(element)
    t = _flat(_tensor(test_elements, x))
    if t.device != x.device:
        raise ValueError(
            f"isin: element is on {x.device} but test_elements on {t.device}; move one"
        )
    if t.numel() == 0 or x.numel() == 0:
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
    """a (flattened when axis is None) and its axis, with every kth checked to be in range."""
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
    return a, axis


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A copy of ``a`` in which the element at each ``kth`` position along ``axis`` is where a
    sort would put it, smaller (or equal) ones before it and larger ones after. Here it is a
    full stable sort, which keeps that promise for every kth (Note [Partition is a sort]).

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
    a, axis = _check_kth("partition", a, kth, axis)
    return _sort.sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """The indices (int64) that partition ``a`` along ``axis`` around ``kth`` (see
    ``partition``): here those of a full stable sort (Note [Partition is a sort]).

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
    a, axis = _check_kth("argpartition", a, kth, axis)
    return _sort.argsort(a, axis=axis)
