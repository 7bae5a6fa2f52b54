"""Order statistics: NumPy's median, quantile and percentile, and their nan-aware forms.

An order statistic is the element a sort would put at a position: ``quantile(x, q)`` of n values
takes the *virtual index* ``v = (n - 1) * q`` (``method="linear"``), which lies between the
order statistics ``lo = floor(v)`` and ``lo + 1``; the result interpolates between them with
weight ``v - lo``. Other methods only change ``v`` (``hazen``, ``weibull``, ...) or round it to a
neighbour (``lower``, ``higher``, ``nearest``). Only those few positions are needed, so on the
CPU each slice is *partitioned* at them (the O(n) selection kernel, Note [Selection] in
_cpu/select.pyx.tp), as NumPy does, instead of sorted; on CUDA devices it is sorted. Either way NaN
goes last, so the last element of a slice says whether it holds one. The order statistics are
then taken with ``take_along_axis`` and interpolated by arithmetic, so gradients flow to the
elements used. ``nanquantile`` does the same with ``n`` counted per slice, as a tensor (NaNs go
last, out of the way), so its positions differ from slice to slice.

The host reads these functions make are described in Note [Host reads in statistics] in
stats.py.
"""

from __future__ import annotations

from strided._dtype import bool_, float64, int64
from strided._dtype import result_type as _result_type
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import indexing as _ix
from strided._ops import reduction as _red
from strided._ops import sets as _sets
from strided._ops import shape as _shape
from strided._ops import sorting as _sort
from strided._ops import views as _views
from strided._ops.stats import (
    _is_float,
    _kept_shape,
    _tensor,
    _to_last,
    nanmean,
)

__all__ = [
    "median",
    "nanmedian",
    "quantile",
    "percentile",
    "nanquantile",
    "nanpercentile",
]


# -- order statistics ---------------------------------------------------------------------------

# virtual index of each continuous method, (alpha, beta) as in Hyndman & Fan (NumPy's table);
# "linear" is computed as (n - 1) * q, as NumPy does, not through the general formula
_ALPHA_BETA = {
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "median_unbiased": (1 / 3, 1 / 3),
    "normal_unbiased": (3 / 8, 3 / 8),
}
_DISCRETE = ("lower", "higher", "nearest")
_METHODS = ("linear", "midpoint", *_DISCRETE, *_ALPHA_BETA)


def _lerp(a, b, t):
    """a + (b - a) * t, computed from the nearer end (NumPy's ``_lerp``: exact at t = 1)."""
    d = _ew.subtract(b, a)
    return _ew.where(
        _ew.greater_equal(t, 0.5),
        _ew.subtract(b, _ew.multiply(d, _ew.subtract(1, t))),
        _ew.add(a, _ew.multiply(d, t)),
    )


def _q_tensor(name, q, a, percent):
    """(q as a 1-D float tensor on a's device, q's shape, whether q was integer): q is checked
    to lie in [0, 1] ([0, 100] for percentiles) when it is on the host."""
    scalar = isinstance(q, (int, float)) and not isinstance(q, bool)
    integer = False
    if scalar and a.dtype.kind == "f":
        qt = _cr.asarray(q, dtype=a.dtype, device=a.device)  # NumPy 2: a Python q takes a's dtype
    else:
        qt = _tensor(q, a)
        if qt.dtype.kind not in "f":
            integer = not percent
            qt = qt.astype(float64)
    if qt.device != a.device:
        qt = qt.to(a.device)
    if not qt.device.is_cuda and qt.numel():  # Note [Host reads in statistics]
        hi = 100 if percent else 1
        ok = _red.all(_ew.logical_and(_ew.greater_equal(qt, 0), _ew.less_equal(qt, hi)))
        if not bool(ok):
            what = "percentiles" if percent else "quantiles"
            raise ValueError(f"{name}: {what} must be in the range [0, {hi}]")
    if percent:
        qt = _ew.divide(qt, 100)
    return _views.reshape(qt, (-1,)), qt.shape, integer


def _partitioned(y, kth):
    """y (kept dims, then the reduced dim) with each row partitioned at the positions in kth
    (int64, (K,) or the kept shape + (K,)): each holds what a sort would put there, NaNs last.
    The selection kernel on the CPU, a sort elsewhere; differentiable either way."""
    if y.device.type != "cpu":
        return _sort.sort(y, axis=-1)
    kth = _sort.sort(kth, axis=-1)  # the kernel takes each row's kth in increasing order
    kth = _views.broadcast_to(kth, y.shape[:-1] + (kth.shape[-1],))
    return _sets._partitioned(y, y.ndim - 1, kth)


def _q_positions(q, method, count, size):
    """Where the q-quantiles of rows of ``count`` values (an int, or an int64 tensor of the kept
    shape) lie among the ``size`` sorted elements of a row: ``(lo_i, hi_i, gamma)``, int64
    positions of the two order statistics and the weight between them (hi_i and gamma None
    for the discrete methods), of shape (Q,) or the kept shape + (Q,)."""
    if isinstance(count, int):
        n, last = count, count - 1  # Python numbers: weak, so q keeps its dtype (NEP 50)
    else:
        n = _views.expand_dims(count.astype(q.dtype), axis=-1)
        last = _ew.subtract(n, 1)
    if method in _DISCRETE:
        v = _ew.multiply(last, q)
        v = {"lower": _ew.floor, "higher": _ew.ceil, "nearest": _ew.round}[method](v)
    elif method == "linear":
        v = _ew.multiply(last, q)
    elif method == "midpoint":
        v0 = _ew.multiply(last, q)
        v = _ew.multiply(_ew.add(_ew.floor(v0), _ew.ceil(v0)), 0.5)
    else:
        alpha, beta = _ALPHA_BETA[method]
        v = _ew.multiply(n, q)
        v = _ew.subtract(_ew.add(v, _ew.add(_ew.multiply(q, 1 - alpha - beta), alpha)), 1)
    # NumPy's _get_indexes: at or above the last index both neighbours are the last value (and
    # the weight is counted from -1), below 0 both are the first
    above = _ew.greater_equal(v, last)
    below = _ew.less(v, 0)
    lo = _ew.where(above, -1, _ew.where(below, 0, _ew.floor(v)))
    lo_i = _ew.where(above, last, lo).astype(int64)
    lo_i = _ew.clip(lo_i, 0, max(size - 1, 0))
    if method in _DISCRETE:
        return lo_i, None, None
    hi_i = _ew.where(above, lo_i, _ew.add(lo_i, 1))
    hi_i = _ew.where(below, 0, _ew.clip(hi_i, 0, max(size - 1, 0)))
    return lo_i, hi_i, _ew.subtract(v, lo)


def _order_stat(y, q, method, count):
    """The q-quantiles of each row of y (kept dims, then the reduced dim), with n ``count``
    values per row (see ``_q_positions``): shape (..., Q), and y partitioned at the positions
    they read (NaNs last)."""
    lo_i, hi_i, gamma = _q_positions(q, method, count, y.shape[-1])
    s = _partitioned(y, lo_i if hi_i is None else _shape.concat([lo_i, hi_i], axis=-1))
    shape = y.shape[:-1] + (q.shape[0],)
    lo_v = _ix.take_along_axis(s, _views.broadcast_to(lo_i, shape), axis=-1)
    if hi_i is None:
        return lo_v, s
    hi_v = _ix.take_along_axis(s, _views.broadcast_to(hi_i, shape), axis=-1)
    return _lerp(lo_v, hi_v, gamma), s


def _finish_q(r, q_shape, a, dims, keepdims, out):
    """(..., Q) -> q's shape + the reduction's shape."""
    r = _views.moveaxis(r, -1, 0)
    r = _views.reshape(r, q_shape + _kept_shape(a, dims, keepdims))
    return _red._finish(r, out)


def _quantile(name, a, q, axis, out, method, keepdims, weights, interpolation, percent, nan):
    if interpolation is not None:
        method = interpolation
    if weights is not None:
        raise NotImplementedError(f"{name}: weights= is not supported; leave it out")
    if method not in _METHODS:
        raise ValueError(f"{name}: method={method!r} is not supported; expected one of {_METHODS}")
    a = _tensor(a)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: a must be real, got {a.dtype.name} (complex has no order)")
    qt, q_shape, q_int = _q_tensor(name, q, a, percent)
    if q_int and method == "linear":
        method = "lower"  # integer q (0 or 1) hits an order statistic: NumPy takes it as is
    if nan and a.numel() == 0:
        # NumPy's nanquantile of an empty tensor is nanmean's NaN, whatever q's shape
        return nanmean(a, axis=axis, out=out, keepdims=keepdims)
    y, dims = _to_last(name, a, axis)
    n = y.shape[-1]
    if n == 0:
        if not nan:
            raise IndexError(
                f"{name}: cannot take a quantile over axis={axis} of size 0 (a has shape "
                f"{a.shape}); reduce over a non-empty axis"
            )
        dt = _result_type(a.dtype, qt.dtype)
        r = _cr.full(y.shape[:-1] + (qt.shape[0],), float("nan"), dtype=dt, device=a.device)
        return _finish_q(r, q_shape, a, dims, keepdims, out)
    if a.dtype is bool_ and method not in _DISCRETE:
        raise TypeError(
            f"{name}: method={method!r} interpolates, and bool has no subtraction; cast a "
            "(e.g. a.astype(strided.float64)) or use method='lower', 'higher' or 'nearest'"
        )
    if nan and _is_float(a):
        count = _red.sum(_ew.logical_not(_ew.isnan(y)), axis=-1)
        r = _order_stat(y, qt, method, count)[0]
        r = _ew.where(_views.expand_dims(_ew.equal(count, 0), axis=-1), float("nan"), r)
    else:
        r, s = _order_stat(y, qt, method, n)
        if _is_float(a):  # NaN goes last: a slice holding one gives NaN
            has_nan = _ew.isnan(_views.narrow(s, s.ndim - 1, n - 1, 1))
            r = _ew.where(has_nan, float("nan"), r)
    return _finish_q(r, q_shape, a, dims, keepdims, out)


def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    """The q-th quantiles of ``a`` over ``axis`` (all dims if None), ``q`` in [0, 1].

    The result has q's shape followed by the reduction's shape. ``method``: "linear" (default),
    "lower", "higher", "nearest", "midpoint", "hazen", "weibull", "median_unbiased" or
    "normal_unbiased", as in NumPy (``weights=`` and the discontinuous methods are not
    supported). A slice holding NaN gives NaN. A Python-number q computes in a's float dtype, as
    in NumPy 2. Differentiable in ``a`` (through the order statistics it takes).

    Examples
    --------
    >>> import strided
    >>> a = strided.asarray([[10.0, 7.0, 4.0], [3.0, 2.0, 1.0]])
    >>> strided.quantile(a, 0.5, axis=1)
    tensor([7., 2.])
    >>> strided.quantile(a, [0.25, 0.75])
    tensor([2.25, 6.25])
    """
    return _quantile(
        "quantile", a, q, axis, out, method, keepdims, weights, interpolation, False, False
    )


def percentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    """The q-th percentiles of ``a`` over ``axis``, ``q`` in [0, 100]: ``quantile(a, q / 100)``.

    Examples
    --------
    >>> import strided
    >>> strided.percentile(strided.asarray([1.0, 2.0, 3.0, 4.0]), 50)
    tensor(2.5)
    """
    return _quantile(
        "percentile", a, q, axis, out, method, keepdims, weights, interpolation, True, False
    )


def nanquantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    """``quantile`` ignoring NaNs: each slice's quantiles among its non-NaN values (NaN for an
    all-NaN slice).

    Examples
    --------
    >>> import strided
    >>> strided.nanquantile(strided.asarray([1.0, float("nan"), 3.0]), 0.5)
    tensor(2.)
    """
    return _quantile(
        "nanquantile", a, q, axis, out, method, keepdims, weights, interpolation, False, True
    )


def nanpercentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method="linear",
    keepdims=False,
    *,
    weights=None,
    interpolation=None,
):
    """``percentile`` ignoring NaNs (see ``nanquantile``).

    Examples
    --------
    >>> import strided
    >>> strided.nanpercentile(strided.asarray([1.0, float("nan"), 3.0, 5.0]), 50)
    tensor(3.)
    """
    return _quantile(
        "nanpercentile", a, q, axis, out, method, keepdims, weights, interpolation, True, True
    )


def _median(name, a, axis, out, keepdims, nan):
    a = _tensor(a)  # complex too: NumPy's sort order, NaNs last (Note [The extremes of ...])
    y, dims = _to_last(name, a, axis)
    n = y.shape[-1]
    rdtype = a.dtype if _is_float(a) else float64
    if n == 0:  # NumPy warns and gives NaN (the mean of nothing: nan+nanj for complex)
        fill = complex("nan+nanj") if a.dtype.kind == "c" else float("nan")
        r = _cr.full(_kept_shape(a, dims, keepdims), fill, dtype=rdtype, device=a.device)
        return _red._finish(r, out)
    if nan and _is_float(a):
        count = _red.sum(_ew.logical_not(_ew.isnan(y)), axis=-1, keepdims=True)
        lo = _ew.clip(_ew.floor_divide(_ew.subtract(count, 1), 2), 0, n - 1)
        hi = _ew.floor_divide(count, 2)
        hi = _ew.clip(hi, 0, n - 1)
        pos = _shape.concat([lo, hi], axis=-1)
        pair = _ix.take_along_axis(_partitioned(y, pos), pos, axis=-1)
        m = _red.mean(pair, axis=-1)
        m = _ew.where(_ew.equal(_views.squeeze(count, -1), 0), float("nan"), m)
    else:
        k = 2 - n % 2
        # complex: the last place too, where a NaN would be (the kinds of complex NaN have an
        # order of their own, and the last is NumPy's answer)
        kth = [(n - 1) // 2, n // 2] + ([n - 1] if a.dtype.kind == "c" else [])
        s = _partitioned(y, _cr.asarray(kth, dtype=int64, device=a.device))
        m = _red.mean(_views.narrow(s, s.ndim - 1, (n - 1) // 2, k), axis=-1)
        if _is_float(a):  # NaN goes last: a slice holding one gives it, as NumPy's
            last = _views.select(s, s.ndim - 1, n - 1)
            m = _ew.where(_ew.isnan(last), last, m)
    return _red._finish(_views.reshape(m, _kept_shape(a, dims, keepdims)), out)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median over ``axis`` (all dims if None): the middle of the sorted values, or the mean
    of the two middle ones; NaN if the slice holds NaN; integers give float64. Differentiable in
    ``a`` (through the middle values it takes).

    Examples
    --------
    >>> import strided
    >>> strided.median(strided.asarray([[3, 1, 2], [4, 6, 5]]), axis=1)
    tensor([2., 5.])
    >>> strided.median(strided.asarray([4.0, 1.0, 3.0, 2.0]))
    tensor(2.5)
    """
    return _median("median", a, axis, out, keepdims, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median over ``axis`` of the non-NaN elements (NaN for an all-NaN slice).

    Examples
    --------
    >>> import strided
    >>> strided.nanmedian(strided.asarray([4.0, float("nan"), 1.0, 3.0]))
    tensor(3.)
    """
    return _median("nanmedian", a, axis, out, keepdims, True)
