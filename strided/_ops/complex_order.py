"""NumPy's order of complex numbers for the reductions and searches that need one: max, min,
argmax, argmin (and so nanmax, nanargmax, ptp...) and searchsorted, composed of elementwise ops
and real reductions, so that they run on every device the parts run on.

Note [The extremes of complex numbers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy orders complex numbers by the real part, then the imaginary part (Note [The order of
complex numbers] in _cpu/scalar_math.h), and its complex reductions are its binary loops run
along the slice: ``maximum.reduce`` keeps the running value ``acc`` unless the next one is
strictly larger (ties keep the first: ``0j`` before ``-0j`` stays ``0j``) and stops at a NaN in
either part, which wins; ``argmax`` is the same walk with the index kept; ``fmax.reduce``
(nanmax) steps over NaNs instead and gives the first NaN only where a slice holds nothing
else. So the answer is always one element of the slice, the first of its kind:

- the first element with a NaN part, where the slice holds one (not where NaNs are skipped);
- else the first of the elements whose real part is the largest and, among those, whose
  imaginary part is the largest.

Both are found without a loop of our own: the largest real part (a real max), the elements
that have it, the largest imaginary part among them (a real max again), and a bool argmax for
the first element of the chosen kind; the values are the elements at those indices (a
gather), bit for bit, signs of zero and NaN payloads included. Several reduced dims are moved
last and flattened, so "first" is in row-major order over them.

``searchsorted`` needs the order of NumPy's sort instead, where NaNs go last: a number with
no NaN part, then ``x + nanj``, then ``nan + yj``, then ``nan + nanj``, each kind ordered by
its non-NaN parts (``sort_less``, NumPy's ``CFLOAT_LT`` of npysort). The search is NumPy's
binary search, one elementwise step per halving of the range for all keys at once.
"""

from __future__ import annotations

import math

from strided._ops import elementwise as _ew

__all__ = ["extreme", "extreme_index", "searchsorted", "sort_less"]


def _flat_last(x, dims):
    """x with the dims ``dims`` moved last and flattened into one (a view where it can be)."""
    kept = [d for d in range(x.ndim) if d not in dims]
    n = math.prod(x.shape[d] for d in dims)
    return x.permute(*kept, *dims).reshape(tuple(x.shape[d] for d in kept) + (n,))


def extreme_index(y, largest, skip_nan):
    """The index (int64, y's shape less its last dim) of each row's largest (smallest) element
    in NumPy's order of complex numbers: Note [The extremes of complex numbers]. ``skip_nan``:
    the NaNs are passed over unless the row holds nothing else (fmax / fmin), instead of
    winning (maximum / minimum)."""
    from strided._ops import reduction as _red

    far = float("-inf") if largest else float("inf")
    best = _red.max if largest else _red.min
    nan = _ew.isnan(y)
    re, im = _ew.real(y), _ew.imag(y)  # contiguous copies: every pass below reads them fast
    if skip_nan:
        top_re = best(_ew.where(nan, far, re), axis=-1, keepdims=True)
        tied = _ew.logical_and(_ew.equal(re, top_re), _ew.logical_not(nan))
    else:  # a row with a NaN takes its first NaN below, whatever these find there
        top_re = best(re, axis=-1, keepdims=True)
        tied = _ew.equal(re, top_re)
    top_im = best(_ew.where(tied, im, far), axis=-1, keepdims=True)
    hit = _ew.logical_and(tied, _ew.equal(im, top_im))
    take_nan = (_red.all if skip_nan else _red.any)(nan, axis=-1, keepdims=True)
    pick = _ew.logical_or(
        _ew.logical_and(take_nan, nan), _ew.logical_and(_ew.logical_not(take_nan), hit)
    )
    return _red.argmax(pick, axis=-1)


def extreme(name, x, dims, keepdims, skip_nan=False):
    """max, min, argmax or argmin (``name``) of the complex tensor x over ``dims`` (argmax
    and argmin: one dim), NumPy's answer: Note [The extremes of complex numbers]."""
    from strided._ops import indexing as _ix

    y = _flat_last(x, dims)
    index = extreme_index(y, name in ("max", "argmax"), skip_nan)
    if name in ("argmax", "argmin"):
        result = index
    else:
        result = _ix.take_along_axis(y, index.reshape(index.shape + (1,)), axis=-1)
        result = result.reshape(index.shape)
    if keepdims:
        result = result.reshape(tuple(1 if d in dims else n for d, n in enumerate(x.shape)))
    return result


def sort_less(a, b):
    """``a < b`` in the order of NumPy's sort for complex numbers (NaNs last: see Note [The
    extremes of complex numbers]), elementwise, broadcast."""
    ar, ai, br, bi = _ew.real(a), _ew.imag(a), _ew.real(b), _ew.imag(b)
    a_im_num, b_im_nan = _ew.equal(ai, ai), _ew.not_equal(bi, bi)
    lt = _ew.logical_or(a_im_num, b_im_nan)  # a.real < b.real
    gt = _ew.logical_and(b_im_nan, a_im_num)  # a.real > b.real
    same = _ew.logical_or(_ew.less(ai, bi), gt)  # equal real parts, or both NaN
    both_nan = _ew.logical_and(_ew.not_equal(ar, ar), _ew.not_equal(br, br))
    other = _ew.not_equal(br, br)  # one real part NaN: a is less when it is b's
    return _ew.where(
        _ew.less(ar, br),
        lt,
        _ew.where(
            _ew.greater(ar, br),
            gt,
            _ew.where(_ew.logical_or(_ew.equal(ar, br), both_nan), same, other),
        ),
    )


def searchsorted(x1, x2, right):
    """NumPy's binary search of the complex keys x2 in the sorted 1-D complex x1 (one dtype):
    the first i with not x1[i] < key (left), or key < x1[i] (right), as int64."""
    from strided._ops import creation as _cr
    from strided._ops import indexing as _ix

    n = x1.shape[0]
    lo = _cr.zeros(x2.shape, dtype="int64", device=x2.device)
    hi = _cr.full(x2.shape, n, dtype="int64", device=x2.device)
    while n:  # ceil(log2(n + 1)) halvings bring every range to one point
        mid = _ew.floor_divide(_ew.add(lo, hi), 2)
        active = _ew.less(lo, hi)
        at = _ix.take(x1, _ew.minimum(mid, x1.shape[0] - 1))
        go_up = sort_less(x2, at) if right else sort_less(at, x2)
        go_up = _ew.logical_not(go_up) if right else go_up
        go_up = _ew.logical_and(go_up, active)
        lo = _ew.where(go_up, _ew.add(mid, 1), lo)
        hi = _ew.where(_ew.logical_and(active, _ew.logical_not(go_up)), mid, hi)
        n //= 2
    return lo
