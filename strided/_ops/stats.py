"""Statistics: NumPy's nan-aware reductions, order statistics (median, quantiles), weighted
averages, covariance, histograms and differences, each composed of existing ops (no kernels of
its own), so it runs on every device and autograd differentiates it through its parts.

A nan-aware reduction is an ordinary reduction of a cleaned input: ``nansum`` is
``sum(where(isnan(x), 0, x))``, ``nanmax`` replaces NaN by -inf (the identity of max) and puts
NaN back where a whole slice was NaN, ``nanmean`` divides that sum by
``count_nonzero(~isnan(x))``. Integer and bool inputs hold no NaN, so they take the ordinary
reduction directly.

An order statistic comes from a sort: ``quantile(x, q)`` sorts each slice (NaN goes last), and
for n values takes the *virtual index* ``v = (n - 1) * q`` (``method="linear"``), which lies
between the order statistics ``lo = floor(v)`` and ``lo + 1``; the result interpolates between
them with weight ``v - lo``. Other methods only change ``v`` (``hazen``, ``weibull``, ...) or
round it to a neighbour (``lower``, ``higher``, ``nearest``). The sort is differentiable and the
interpolation is arithmetic, so gradients flow to the two order statistics used. ``nanquantile``
does the same with ``n`` counted per slice, as a tensor (NaNs sort last, out of the way).

Note [Host reads in statistics]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
On a CUDA device ``int(t)``/``bool(t)`` makes the host wait for the device, so the functions
here read values back only where NumPy's contract needs a value on the host: where the size of
the result depends on the data (``bincount``'s length), where the bin edges depend on it
(``histogram`` without ``range``), and where NumPy raises on the data (an all-NaN slice in
``nanargmax``, weights summing to zero in ``average``, non-monotonic ``bins`` in ``digitize``,
negative ``fweights`` in ``cov``). Each such place says so. The range check of ``q`` in
``quantile`` runs only when ``q`` is on the CPU (a Python number, list or CPU tensor): a q that
lives on a CUDA device is trusted, rather than waited for.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from strided import _check, _core
from strided._dtype import bool_, can_cast, float64, int64, promote_types
from strided._dtype import result_type as _result_type
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import indexing as _ix
from strided._ops import linalg as _linalg
from strided._ops import reduction as _red
from strided._ops import scan as _scan
from strided._ops import shape as _shape
from strided._ops import sorting as _sort
from strided._ops import views as _views

__all__ = [
    "nansum",
    "nanprod",
    "nanmean",
    "nanvar",
    "nanstd",
    "nanmax",
    "nanmin",
    "nanargmax",
    "nanargmin",
    "nancumsum",
    "nancumprod",
    "average",
    "ptp",
    "median",
    "nanmedian",
    "quantile",
    "percentile",
    "nanquantile",
    "nanpercentile",
    "cov",
    "corrcoef",
    "histogram",
    "bincount",
    "digitize",
    "diff",
    "ediff1d",
    "interp",
]


# -- helpers ------------------------------------------------------------------------------------


_tensor = _check.tensor  # on ``like``'s device when given


def _is_float(x):
    return x.dtype.kind in "fc"


def _single_axis(name, x, axis):
    """``axis`` as a non-negative int of x (a 0-d tensor takes none), checked."""
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"{name}: axis must be an int, got {axis!r}")
    a = operator.index(axis)
    n = x.ndim
    if not -n <= a < n:
        raise IndexError(
            f"{name}: axis {a} is out of range for a tensor with {n} dims "
            f"(expected a value in [{-n}, {n - 1}])"
        )
    return a % n


def _kept_shape(x, dims, keepdims):
    """The shape of a reduction of x over ``dims``."""
    if keepdims:
        return tuple(1 if d in dims else s for d, s in enumerate(x.shape))
    return tuple(s for d, s in enumerate(x.shape) if d not in dims)


def _to_last(name, x, axis):
    """(y, dims): x with the dims of ``axis`` moved last and merged into one, so that y has the
    kept dims then one reduced dim; dims are the reduced dims of x (sorted)."""
    dims = _red._dims(name, x, axis, None)
    if x.ndim == 0:
        return _views.reshape(x, (1,)), dims
    keep = [d for d in range(x.ndim) if d not in dims]
    y = _views.permute_dims(x, tuple(keep + list(dims)))
    n = math.prod(x.shape[d] for d in dims)
    return _views.reshape(y, tuple(x.shape[d] for d in keep) + (n,)), dims


def _nan_to(x, value):
    """x with its NaNs replaced by ``value`` (x itself when it cannot hold NaN)."""
    if not _is_float(x):
        return x
    return _ew.where(_ew.isnan(x), value, x)


# -- nan-aware reductions -----------------------------------------------------------------------


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """The sum over ``axis``, treating NaN as zero (an all-NaN slice sums to 0).

    Examples
    --------
    >>> import strided
    >>> strided.nansum(strided.asarray([[1.0, float("nan")], [2.0, 3.0]]), axis=1)
    tensor([1., 5.])
    """
    a = _tensor(a)
    return _red.sum(_nan_to(a, 0), axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product over ``axis``, treating NaN as one.

    Examples
    --------
    >>> import strided
    >>> strided.nanprod(strided.asarray([2.0, float("nan"), 3.0]))
    tensor(6.)
    """
    a = _tensor(a)
    return _red.prod(_nan_to(a, 1), axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def _nan_count(a, dims, keepdims, dtype):
    """How many non-NaN elements each slice over ``dims`` holds, as ``dtype``."""
    return _red.sum(_ew.logical_not(_ew.isnan(a)), axis=dims, keepdims=keepdims).astype(dtype)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """The mean over ``axis`` of the non-NaN elements (NaN for an all-NaN slice); integers give
    float64, as ``mean``. Differentiable: it is a sum of ``where`` over a count.

    Examples
    --------
    >>> import strided
    >>> strided.nanmean(strided.asarray([[1.0, float("nan")], [2.0, 4.0]]), axis=1)
    tensor([1., 3.])
    """
    a = _tensor(a)
    if not _is_float(a):
        return _red.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    dims = _red._dims("nanmean", a, axis, None)
    total = _red.sum(_nan_to(a, 0), axis=dims, keepdims=keepdims, dtype=dtype)
    count = _nan_count(a, dims, keepdims, total.dtype)
    return _red._finish(_ew.divide(total, count), out)


def nanvar(
    a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, mean=None, correction=None
):
    """The variance over ``axis`` of the non-NaN elements: sum(|x - nanmean|^2) / (n - ddof),
    with n counted per slice; NaN where n - ddof <= 0 (NumPy warns there).

    Examples
    --------
    >>> import strided
    >>> strided.nanvar(strided.asarray([1.0, float("nan"), 3.0]))
    tensor(1.)
    """
    if mean is not None:
        raise NotImplementedError("nanvar: mean= is not supported; leave it out")
    if correction is not None:
        ddof = correction
    a = _tensor(a)
    if not _is_float(a):
        return _red.var(a, axis=axis, correction=ddof, keepdims=keepdims, out=out)
    if dtype is not None:
        a = a.astype(dtype)
    dims = _red._dims("nanvar", a, axis, None)
    m = nanmean(a, axis=dims, keepdims=True)
    centred = _nan_to(a, 0) if a.numel() == 0 else _ew.where(_ew.isnan(a), 0, _ew.subtract(a, m))
    sq = (
        _ew.real(_ew.multiply(centred, _ew.conj(centred)))
        if a.dtype.kind == "c"
        else _ew.square(centred)
    )
    total = _red.sum(sq, axis=dims, keepdims=keepdims)
    dof = _ew.subtract(_nan_count(a, dims, keepdims, total.dtype), ddof)
    bad = _ew.less_equal(dof, 0)
    result = _ew.where(bad, float("nan"), _ew.divide(total, _ew.where(bad, 1, dof)))
    return _red._finish(result, out)


def nanstd(
    a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, mean=None, correction=None
):
    """The standard deviation over ``axis`` of the non-NaN elements: ``sqrt(nanvar(...))``.

    Examples
    --------
    >>> import strided
    >>> strided.nanstd(strided.asarray([1.0, float("nan"), 3.0]))
    tensor(1.)
    """
    v = nanvar(
        a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, mean=mean, correction=correction
    )
    return _red._finish(_ew.sqrt(v), out)


def _nan_extreme(name, a, axis, out, keepdims, largest):
    a = _tensor(a)
    op = _red.max if largest else _red.min
    if not _is_float(a):
        return op(a, axis=axis, out=out, keepdims=keepdims)
    dims = _red._dims(name, a, axis, None)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: complex input has no order; pass a real tensor")
    filled = _nan_to(a, float("-inf") if largest else float("inf"))
    m = op(filled, axis=dims, keepdims=keepdims)
    all_nan = _red.all(_ew.isnan(a), axis=dims, keepdims=keepdims)
    return _red._finish(_ew.where(all_nan, float("nan"), m), out)


def nanmax(a, axis=None, out=None, keepdims=False):
    """The largest non-NaN element over ``axis``; NaN for an all-NaN slice (NumPy warns there);
    an empty reduction raises ValueError, as ``max``.

    Examples
    --------
    >>> import strided
    >>> strided.nanmax(strided.asarray([[1.0, float("nan")], [float("nan")] * 2]), axis=1)
    tensor([ 1., nan])
    """
    return _nan_extreme("nanmax", a, axis, out, keepdims, True)


def nanmin(a, axis=None, out=None, keepdims=False):
    """The smallest non-NaN element over ``axis``; NaN for an all-NaN slice (see ``nanmax``).

    Examples
    --------
    >>> import strided
    >>> strided.nanmin(strided.asarray([3.0, float("nan"), 2.0]))
    tensor(2.)
    """
    return _nan_extreme("nanmin", a, axis, out, keepdims, False)


def _nan_arg(name, a, axis, out, keepdims, largest):
    a = _tensor(a)
    op = _red.argmax if largest else _red.argmin
    if not _is_float(a):
        return op(a, axis=axis, out=out, keepdims=keepdims)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: complex input has no order; pass a real tensor")
    isnan = _ew.isnan(a)
    if a.numel():
        dims = None if axis is None else (_single_axis(name, a, axis),)
        # A host read (Note [Host reads in statistics]): NumPy raises on an all-NaN slice.
        if bool(_red.any(_red.all(isnan, axis=dims))):
            raise ValueError(
                f"{name}: All-NaN slice encountered (a slice along axis={axis} holds only NaN, "
                f"so it has no {'largest' if largest else 'smallest'} element); use "
                f"{'nanmax' if largest else 'nanmin'} to get NaN for such slices"
            )
    filled = _ew.where(isnan, float("-inf") if largest else float("inf"), a)
    return op(filled, axis=axis, out=out, keepdims=keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """The index (int64) of the largest non-NaN element along ``axis`` (of the flattened tensor
    if None); an all-NaN slice raises ValueError, as in NumPy.

    Examples
    --------
    >>> import strided
    >>> strided.nanargmax(strided.asarray([float("nan"), 3.0, 5.0, 1.0]))
    tensor(2)
    """
    return _nan_arg("nanargmax", a, axis, out, keepdims, True)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """The index (int64) of the smallest non-NaN element along ``axis`` (see ``nanargmax``).

    Examples
    --------
    >>> import strided
    >>> strided.nanargmin(strided.asarray([float("nan"), 3.0, 1.0]))
    tensor(2)
    """
    return _nan_arg("nanargmin", a, axis, out, keepdims, False)


def nancumsum(a, axis=None, dtype=None, out=None):
    """The running sum along ``axis`` (of the flattened tensor if None), NaN counting as zero.

    Examples
    --------
    >>> import strided
    >>> strided.nancumsum(strided.asarray([1.0, float("nan"), 2.0]))
    tensor([1., 1., 3.])
    """
    a = _tensor(a)
    return _scan.cumsum(_nan_to(a, 0), axis=axis, dtype=dtype, out=out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """The running product along ``axis`` (of the flattened tensor if None), NaN counting as
    one.

    Examples
    --------
    >>> import strided
    >>> strided.nancumprod(strided.asarray([2.0, float("nan"), 3.0]))
    tensor([2., 2., 6.])
    """
    a = _tensor(a)
    return _scan.cumprod(_nan_to(a, 1), axis=axis, dtype=dtype, out=out)


# -- averages and ranges ------------------------------------------------------------------------


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The weighted mean over ``axis``: ``sum(a * w) / sum(w)``; without weights, ``mean``.

    ``weights`` has a's shape, or the shape of a's dims in ``axis`` (in that order). Integer and
    bool inputs average in float64. With ``returned=True`` the result is ``(average, sum of
    weights)``, the second broadcast to the first's shape. Weights summing to zero raise
    ZeroDivisionError, as in NumPy (a host read: Note [Host reads in statistics]).

    Examples
    --------
    >>> import strided
    >>> a = strided.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> strided.average(a, axis=1, weights=[3.0, 1.0])
    tensor([1.25, 3.25])
    >>> strided.average(a, returned=True)
    (tensor(2.5), tensor(4.))
    """
    a = _tensor(a)
    dims = _red._dims("average", a, axis, None)
    if weights is None:
        avg = _red.mean(a, axis=dims, keepdims=keepdims)
        n = a.numel() // avg.numel() if avg.numel() else 0
        scl = _cr.full(avg.shape, n, dtype=avg.dtype, device=avg.device)
    else:
        w = _tensor(weights, a)
        if a.dtype.kind in "biu":
            rdtype = _result_type(a.dtype, w.dtype, float64)
        else:
            rdtype = _result_type(a.dtype, w.dtype)
        if a.shape != w.shape:
            if axis is None:
                raise TypeError(
                    f"average: axis must be given when the shapes of a {a.shape} and weights "
                    f"{w.shape} differ"
                )
            given = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
            given = tuple(operator.index(g) % a.ndim for g in given)
            want = tuple(a.shape[g] for g in given)
            if w.shape != want:
                raise ValueError(
                    f"average: weights of shape {w.shape} do not fit a of shape {a.shape} "
                    f"along axis={axis}; expected weights of shape {want} (or {a.shape})"
                )
            order = tuple(sorted(range(len(given)), key=lambda i: given[i]))
            w = _views.permute_dims(w, order)
            w = _views.reshape(w, tuple(s if d in dims else 1 for d, s in enumerate(a.shape)))
        scl = _red.sum(w, axis=dims, keepdims=keepdims, dtype=rdtype)
        if scl.numel() and bool(_red.any(_ew.equal(scl, 0))):  # host read, see the docstring
            raise ZeroDivisionError("average: the weights sum to zero, so cannot be normalized")
        prod = _ew.multiply(a.astype(rdtype), w.astype(rdtype))
        avg = _ew.divide(_red.sum(prod, axis=dims, keepdims=keepdims), scl)
        if scl.shape != avg.shape:
            scl = _views.broadcast_to(scl, avg.shape).clone()
    return (avg, scl) if returned else avg


def ptp(a, axis=None, out=None, keepdims=False):
    """The range ``max - min`` over ``axis`` ("peak to peak"), in a's dtype (integers wrap
    around, as in NumPy).

    Examples
    --------
    >>> import strided
    >>> strided.ptp(strided.asarray([[4, 9, 2], [1, 1, 1]]), axis=1)
    tensor([7, 0])
    """
    a = _tensor(a)
    dims = _red._dims("ptp", a, axis, None)
    hi = _red.max(a, axis=dims, keepdims=keepdims)  # first, so an empty reduction raises first
    lo = _red.min(a, axis=dims, keepdims=keepdims)
    if a.dtype is bool_:
        raise TypeError("ptp: bool input has no subtraction; cast it, e.g. a.astype(strided.int8)")
    return _red._finish(_ew.subtract(hi, lo), out)


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


def _order_stat(name, y, q, method, count):
    """The q-quantiles of each row of the sorted y (kept dims, then the sorted dim), with n
    ``count`` values per row (an int, or an int64 tensor of the kept shape): shape (..., Q)."""
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
    shape = y.shape[:-1] + (q.shape[0],)
    v = _views.broadcast_to(v, shape)
    # NumPy's _get_indexes: at or above the last index both neighbours are the last value (and
    # the weight is counted from -1), below 0 both are the first
    above = _ew.greater_equal(v, last)
    below = _ew.less(v, 0)
    lo = _ew.where(above, -1, _ew.where(below, 0, _ew.floor(v)))
    lo_i = _ew.where(above, last, lo).astype(int64)
    lo_i = _ew.clip(lo_i, 0, max(y.shape[-1] - 1, 0))
    lo_v = _ix.take_along_axis(y, lo_i, axis=-1)
    if method in _DISCRETE:
        return lo_v
    hi_i = _ew.where(above, lo_i, _ew.add(lo_i, 1))
    hi_i = _ew.where(below, 0, _ew.clip(hi_i, 0, max(y.shape[-1] - 1, 0)))
    hi_v = _ix.take_along_axis(y, hi_i, axis=-1)
    gamma = _ew.subtract(v, lo)
    return _lerp(lo_v, hi_v, gamma)


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
    s = _sort.sort(y, axis=-1)
    if nan and _is_float(a):
        count = _red.sum(_ew.logical_not(_ew.isnan(y)), axis=-1)
        r = _order_stat(name, s, qt, method, count)
        r = _ew.where(_views.expand_dims(_ew.equal(count, 0), axis=-1), float("nan"), r)
    else:
        r = _order_stat(name, s, qt, method, n)
        if _is_float(a):  # NaN sorts last: a slice holding one gives NaN
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
    in NumPy 2. Differentiable in ``a`` (through the sort).

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
    a = _tensor(a)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: a must be real, got {a.dtype.name} (complex has no order)")
    y, dims = _to_last(name, a, axis)
    n = y.shape[-1]
    rdtype = a.dtype if _is_float(a) else float64
    if n == 0:  # NumPy warns and gives NaN
        r = _cr.full(_kept_shape(a, dims, keepdims), float("nan"), dtype=rdtype, device=a.device)
        return _red._finish(r, out)
    s = _sort.sort(y, axis=-1)
    if nan and _is_float(a):
        count = _red.sum(_ew.logical_not(_ew.isnan(y)), axis=-1, keepdims=True)
        lo = _ew.clip(_ew.floor_divide(_ew.subtract(count, 1), 2), 0, n - 1)
        hi = _ew.floor_divide(count, 2)
        hi = _ew.clip(hi, 0, n - 1)
        pair = _ix.take_along_axis(s, _shape.concat([lo, hi], axis=-1), axis=-1)
        m = _red.mean(pair, axis=-1)
        m = _ew.where(_ew.equal(_views.squeeze(count, -1), 0), float("nan"), m)
    else:
        k = 2 - n % 2
        m = _red.mean(_views.narrow(s, s.ndim - 1, (n - 1) // 2, k), axis=-1)
        if _is_float(a):  # NaN sorts last: a slice holding one gives NaN
            m = _ew.where(_ew.isnan(_views.select(s, s.ndim - 1, n - 1)), float("nan"), m)
    return _red._finish(_views.reshape(m, _kept_shape(a, dims, keepdims)), out)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median over ``axis`` (all dims if None): the middle of the sorted values, or the mean
    of the two middle ones; NaN if the slice holds NaN; integers give float64. Differentiable in
    ``a`` (through the sort).

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


# -- covariance ---------------------------------------------------------------------------------


def _as_2d_rows(name, what, x, rowvar, dtype):
    x = _tensor(x)
    if x.ndim > 2:
        raise ValueError(f"{name}: {what} has more than 2 dimensions (shape {x.shape})")
    x = x.astype(dtype)
    if x.ndim < 2:
        x = _views.reshape(x, (1, -1) if x.ndim else (1, 1))
    if not rowvar and x.shape[0] != 1:
        x = _views.matrix_transpose(x)
    return x


def _check_weights(name, what, w, n, integer):
    if w.ndim > 1:
        raise RuntimeError(f"{name}: cannot handle multidimensional {what} (shape {w.shape})")
    if w.shape[0] != n:
        raise RuntimeError(
            f"{name}: incompatible numbers of samples ({n}) and {what} ({w.shape[0]})"
        )
    if integer and w.dtype.kind not in "iub":
        raise TypeError(f"{name}: {what} must be integer, got {w.dtype.name}")
    if w.numel() and bool(_red.any(_ew.less(w, 0))):  # Note [Host reads in statistics]
        raise ValueError(f"{name}: {what} cannot be negative")


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """The covariance matrix of the variables in the rows of ``m`` (columns if not ``rowvar``),
    observations along the other dim, with ``y`` as more variables: ``(X - mean) @ (X -
    mean).T / (N - ddof)``. ``ddof`` defaults to 1 (0 with ``bias``); ``fweights`` (integer
    repeat counts) and ``aweights`` weight the observations, as in NumPy. At least float64;
    one variable gives a 0-d result. Differentiable (mean and matmul).

    Examples
    --------
    >>> import strided
    >>> strided.cov(strided.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if ddof is not None and ddof != int(ddof):
        raise ValueError(f"cov: ddof must be an integer, got {ddof!r}")
    m = _tensor(m)
    if dtype is None:
        dtype = _result_type(m.dtype, float64)
        if y is not None:
            dtype = promote_types(dtype, _tensor(y, m).dtype)
    x = _as_2d_rows("cov", "m", m, rowvar, dtype)
    if x.shape[0] == 0:
        return _cr.empty((0, 0), dtype=dtype, device=m.device)
    if y is not None:
        x = _shape.concat([x, _as_2d_rows("cov", "y", _tensor(y, m), rowvar, dtype)], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    w = None
    if fweights is not None:
        fw = _tensor(fweights, m)
        _check_weights("cov", "fweights", fw, n, True)
        w = fw.astype(float64)
    if aweights is not None:
        aw = _tensor(aweights, m)
        _check_weights("cov", "aweights", aw, n, False)
        aw = aw.astype(float64)
        w = aw if w is None else _ew.multiply(w, aw)
    if w is None:
        avg = _red.mean(x, axis=1, keepdims=True)
        fact = _larger(n - ddof, 0)
        xc = _ew.subtract(x, avg)
        c = _linalg.matmul(xc, _ew.conj(_views.matrix_transpose(xc)))
        c = _ew.multiply(c, 1.0 / fact if fact else float("inf"))
    else:
        w_sum = _red.sum(w)
        avg = _ew.divide(_red.sum(_ew.multiply(x, w), axis=1, keepdims=True), w_sum)
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = _ew.subtract(w_sum, ddof)
        else:
            fact = _ew.subtract(
                w_sum, _ew.divide(_ew.multiply(ddof, _red.sum(_ew.multiply(w, aw))), w_sum)
            )
        fact = _ew.where(_ew.greater(fact, 0), fact, 0.0)
        xc = _ew.subtract(x, avg)
        c = _linalg.matmul(xc, _ew.conj(_views.matrix_transpose(_ew.multiply(xc, w))))
        c = _ew.multiply(c, _ew.divide(1.0, fact))
    return _views.squeeze(c) if 1 in c.shape else c


def _larger(a, b):
    """The larger of two Python numbers (``max`` is the reduction here)."""
    return a if a >= b else b


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """The Pearson correlation coefficients: ``cov`` normalised by the standard deviations,
    clipped to [-1, 1].

    Examples
    --------
    >>> import strided
    >>> strided.corrcoef(strided.asarray([[1.0, 2.0, 3.0], [6.0, 4.0, 2.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return _ew.divide(c, c)
    d = _views.diagonal(c)
    std = _ew.sqrt(_ew.real(d) if d.dtype.kind == "c" else d)
    c = _ew.divide(_ew.divide(c, _views.expand_dims(std, axis=1)), _views.expand_dims(std, axis=0))
    if c.dtype.kind == "c":
        re = _ew.clip(_ew.real(c), -1, 1)
        im = _ew.clip(_ew.imag(c), -1, 1)
        return _ew.add(re, _ew.multiply(im, 1j))
    return _ew.clip(c, -1, 1)


# -- histograms ---------------------------------------------------------------------------------


def _counts(index, nbins, weights, device):
    """How many (or how much weight) of ``index``'s entries fall in each of ``nbins`` bins."""
    if weights is None:
        base = _cr.zeros(nbins, dtype=int64, device=device)
        ones = _cr.ones(index.shape, dtype=int64, device=device)
        return _ix.index_add(base, 0, index, ones)
    base = _cr.zeros(nbins, dtype=weights.dtype, device=device)
    return _ix.index_add(base, 0, index, weights)


def histogram(a, bins=10, range=None, density=None, weights=None):
    """``(hist, bin_edges)``: how many elements of ``a`` (flattened) fall in each bin.

    ``bins`` is a number of equal bins over ``range`` (default: a's min to max; a host read of
    the data, Note [Host reads in statistics]) or the increasing bin edges. Bin i holds
    ``edges[i] <= x < edges[i + 1]``, the last bin also its right edge; values outside are not
    counted. ``weights`` (a's shape) counts weight instead of 1; ``density`` normalises to a
    probability density. Bin-selection strings ("auto", ...) are not supported.

    Examples
    --------
    >>> import strided
    >>> hist, edges = strided.histogram(strided.asarray([1, 2, 1, 4]), bins=3)
    >>> hist
    tensor([2, 1, 1])
    >>> edges
    tensor([1., 2., 3., 4.])
    """
    a = _tensor(a)
    if a.dtype.kind == "c":
        raise TypeError("histogram: a must be real (complex numbers have no order)")
    flat = _views.reshape(a, (-1,))
    w = None
    if weights is not None:
        w = _tensor(weights, a)
        if w.shape != a.shape:
            raise ValueError(
                f"histogram: weights should have the same shape as a: got {w.shape} and {a.shape}"
            )
        w = _views.reshape(w, (-1,))
    if isinstance(bins, str):
        raise NotImplementedError(
            f"histogram: bins={bins!r} (an estimator name) is not supported; pass a number of "
            "bins or the bin edges"
        )
    if (
        isinstance(bins, (int, np.integer))
        and not isinstance(bins, bool)
        or (isinstance(bins, _core.TensorBase) and bins.ndim == 0)
    ):
        nb = operator.index(bins if not isinstance(bins, _core.TensorBase) else int(bins))
        if nb < 1:
            raise ValueError(f"histogram: bins must be a positive integer, got {nb}")
        if range is not None:
            first, last = (float(v) for v in range)
            if first > last:
                raise ValueError(f"histogram: range=({first}, {last}): max must be larger than min")
            if not (math.isfinite(first) and math.isfinite(last)):
                raise ValueError(f"histogram: supplied range of [{first}, {last}] is not finite")
        elif flat.numel() == 0:
            first, last = 0.0, 1.0
        else:
            # host reads: the edges depend on the data (Note [Host reads in statistics])
            first, last = _red.min(flat).item(), _red.max(flat).item()
            if a.dtype.kind == "f":  # NumPy computes the edges from a's own scalars
                first, last = a.dtype.numpy.type(first), a.dtype.numpy.type(last)
            if not (math.isfinite(first) and math.isfinite(last)):
                raise ValueError(
                    f"histogram: autodetected range of [{first}, {last}] is not finite; pass "
                    "range= or remove the NaN/inf values"
                )
        if first == last:
            first, last = first - 0.5, last + 0.5
        edge_np = a.dtype.numpy if a.dtype.kind == "f" else np.float64
        edges = _cr.asarray(
            np.linspace(first, last, nb + 1, dtype=edge_np), device=a.device
        )  # as NumPy computes them, in a's float dtype
    else:
        edges = _tensor(bins, a)
        if edges.ndim != 1:
            raise ValueError(
                f"histogram: bins must be an int or 1-D edges, got shape {edges.shape}"
            )
        if edges.shape[0] < 1:
            raise ValueError("histogram: bins must hold at least one edge")
        # a host read (Note [Host reads in statistics]): NumPy refuses decreasing edges
        if edges.shape[0] > 1 and bool(_red.any(_ew.greater(edges[:-1], edges[1:]))):
            raise ValueError("histogram: bins must increase monotonically, when an array")
        nb = edges.shape[0] - 1
    if weights is None and nb == 0:
        return _cr.zeros(0, dtype=int64, device=a.device), edges
    lo, hi = _views.select(edges, 0, 0), _views.select(edges, 0, nb)
    inside = _ew.logical_and(_ew.greater_equal(flat, lo), _ew.less_equal(flat, hi))
    idx = _ew.subtract(_ix.searchsorted(edges, flat, side="right"), 1)
    idx = _ew.where(_ew.equal(flat, hi), nb - 1, idx)  # the last bin holds its right edge
    idx = _ew.where(inside, idx, nb)  # outside: a spill bin, dropped below
    hist = _counts(idx, nb + 1, None if w is None else _ew.where(inside, w, 0), a.device)[:nb]
    if density:
        widths = _ew.subtract(edges[1:], edges[:-1]).astype(float64)
        hist = _ew.divide(_ew.divide(hist, widths), _red.sum(hist))
    return hist, edges


def bincount(x, /, weights=None, minlength=0):
    """How often each value 0, 1, ..., max(x) occurs in the non-negative integers ``x`` (1-D),
    at least ``minlength`` bins; with ``weights``, their sums per value (float64). The length
    depends on the data: one host read (Note [Host reads in statistics]).

    Examples
    --------
    >>> import strided
    >>> strided.bincount(strided.asarray([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    >>> strided.bincount(strided.asarray([0, 1, 1]), weights=[0.5, 1.0, 2.0], minlength=3)
    tensor([0.5, 3. , 0. ])
    """
    x = _tensor(x)
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, got shape {x.shape}")
    if x.dtype.kind not in "iub":
        raise TypeError(
            f"bincount: x must hold integers, got {x.dtype.name}; cast it, e.g. x.astype(int64)"
        )
    if minlength is None or isinstance(minlength, bool) or not hasattr(minlength, "__index__"):
        raise TypeError(f"bincount: minlength must be an int, got {minlength!r}")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    w = None
    if weights is not None:
        w = _tensor(weights, x)
        if w.shape != x.shape:
            raise ValueError(f"bincount: weights must have x's shape {x.shape}, got {w.shape}")
        w = w.astype(float64)
    x = x.astype(int64)
    length = minlength
    if x.numel():
        lo, hi = _red.min(x).item(), _red.max(x).item()  # host reads: the length depends on x
        if lo < 0:
            raise ValueError(f"bincount: x must have no negative elements, got {lo}")
        length = _larger(hi + 1, minlength)
    return _counts(x, length, w, x.device)


def digitize(x, bins, right=False):
    """The index (int64) of the bin each element of ``x`` falls in: with increasing ``bins``,
    i such that ``bins[i-1] <= x < bins[i]`` (``bins[i-1] < x <= bins[i]`` with ``right``);
    decreasing bins work too. Checking that bins are monotonic is a host read (Note [Host
    reads in statistics]).

    Examples
    --------
    >>> import strided
    >>> strided.digitize(strided.asarray([0.5, 1.0, 2.5, 9.0]), [1.0, 2.0, 3.0])
    tensor([0, 1, 2, 3])
    >>> strided.digitize(strided.asarray([0.5, 1.0, 2.5, 9.0]), [1.0, 2.0, 3.0], right=True)
    tensor([0, 0, 2, 3])
    """
    x = _tensor(x)
    b = _tensor(bins, x)
    if x.dtype.kind == "c":
        raise TypeError("digitize: x may not be complex")
    if b.ndim != 1:
        raise ValueError(f"digitize: bins must be 1-D, got shape {b.shape}")
    side = "left" if right else "right"
    if b.shape[0] > 1:
        up = bool(_red.all(_ew.less_equal(b[:-1], b[1:])))
        if not up:
            if not bool(_red.all(_ew.greater_equal(b[:-1], b[1:]))):
                raise ValueError("digitize: bins must be monotonically increasing or decreasing")
            return _ew.subtract(b.shape[0], _ix.searchsorted(_views.flip(b, 0), x, side=side))
    return _ix.searchsorted(b, x, side=side)


# -- differences and interpolation --------------------------------------------------------------


def _edge(name, what, v, a, axis):
    """prepend/append ``v`` as a tensor that concatenates to a along ``axis``."""
    v = _tensor(v, a)
    if v.ndim == 0:
        shape = list(a.shape)
        shape[axis] = 1
        v = _views.broadcast_to(v, tuple(shape))
    return v


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along ``axis``: ``a[1:] - a[:-1]``, n times (for bools,
    ``!=``). ``prepend``/``append`` are joined to ``a`` along ``axis`` first (scalars broadcast).
    Differentiable.

    Examples
    --------
    >>> import strided
    >>> strided.diff(strided.asarray([1, 4, 9, 16]))
    tensor([3, 5, 7])
    >>> strided.diff(strided.asarray([1, 4, 9, 16]), n=2, prepend=0)
    tensor([2, 2, 2])
    """
    a = _tensor(a)
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"diff: n must be an int, got {n!r}")
    n = operator.index(n)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"diff: order n must be non-negative, got {n}")
    if a.ndim == 0:
        raise ValueError("diff: a must be at least 1-D, got a 0-d tensor")
    axis = _single_axis("diff", a, axis)
    parts = []
    if prepend is not None:
        parts.append(_edge("diff", "prepend", prepend, a, axis))
    parts.append(a)
    if append is not None:
        parts.append(_edge("diff", "append", append, a, axis))
    if len(parts) > 1:
        a = _shape.concat(parts, axis=axis)
    op = _ew.not_equal if a.dtype is bool_ else _ew.subtract
    for _ in range(n):
        length = a.shape[axis]
        if length == 0:
            break
        a = op(_views.narrow(a, axis, 1, length - 1), _views.narrow(a, axis, 0, length - 1))
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive elements of the flattened ``ary``, with ``to_begin`` and
    ``to_end`` (cast to ary's dtype, NumPy's "same_kind" rule) around them.

    Examples
    --------
    >>> import strided
    >>> strided.ediff1d(strided.asarray([[1, 2], [4, 7]]), to_begin=-99)
    tensor([-99,   1,   2,   3])
    """
    a = _views.reshape(_tensor(ary), (-1,))
    if a.dtype is bool_:
        raise TypeError("ediff1d: bool input has no subtraction; cast it first")
    parts = []
    for what, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            parts.append(None)
            continue
        v = _tensor(v, a)
        if not can_cast(v.dtype, a.dtype, "same_kind"):
            raise TypeError(
                f"ediff1d: dtype of {what} ({v.dtype.name}) must be compatible with the input "
                f"ary ({a.dtype.name}) under the 'same_kind' rule"
            )
        parts.append(_views.reshape(v.astype(a.dtype), (-1,)))
    d = (
        _ew.subtract(a[1:], a[:-1])
        if a.shape[0] > 1
        else _cr.empty((0,), dtype=a.dtype, device=a.device)
    )
    pieces = [p for p in (parts[0], d, parts[1]) if p is not None]
    return _shape.concat(pieces, axis=0) if len(pieces) > 1 else d


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through the points ``(xp, fp)``, at ``x``: ``xp`` must
    increase (not checked, as in NumPy). Below ``xp[0]`` gives ``left`` (default ``fp[0]``),
    above ``xp[-1]`` gives ``right`` (default ``fp[-1]``); with ``period`` the points repeat
    (and left/right are ignored). float64 (complex128 for complex ``fp``). Differentiable in
    ``x`` and ``fp``.

    Examples
    --------
    >>> import strided
    >>> strided.interp(strided.asarray([0.5, 1.5, 5.0]), [0.0, 1.0, 2.0], [0.0, 10.0, 30.0])
    tensor([ 5., 20., 30.])
    """
    # the first tensor among the three decides the device (a Python x goes to xp's)
    like = next((v for v in (x, xp, fp) if isinstance(v, _core.TensorBase)), None)
    x = _tensor(x, like)
    xp = _tensor(xp, x)
    fp = _tensor(fp, x)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"interp: xp and fp must be 1-D, got shapes {xp.shape} and {fp.shape}")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError(
            f"interp: fp and xp are not of the same length ({fp.shape[0]} and {xp.shape[0]})"
        )
    if xp.shape[0] == 0:
        raise ValueError("interp: array of sample points (xp) is empty")
    if x.dtype.kind == "c" or xp.dtype.kind == "c":
        raise TypeError("interp: x and xp must be real; only fp may be complex")
    fdt = fp.dtype if fp.dtype.kind == "c" else float64
    x, xp, fp = x.astype(float64), xp.astype(float64), fp.astype(promote_types(fdt, float64))
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period = abs(period)
        left = right = None
        x = _ew.remainder(x, period)
        xp = _ew.remainder(xp, period)
        order = _sort.argsort(xp)
        xp, fp = _ix.take(xp, order), _ix.take(fp, order)
        xp = _shape.concat([_ew.subtract(xp[-1:], period), xp, _ew.add(xp[0:1], period)])
        fp = _shape.concat([fp[-1:], fp, fp[0:1]])
    m = xp.shape[0]
    first_x, last_x = xp[0], xp[m - 1]
    first_f, last_f = fp[0], fp[m - 1]
    if m == 1:
        val = _views.broadcast_to(first_f, x.shape)
    else:
        j = _ew.subtract(_ix.searchsorted(xp, x, side="right"), 1)
        j = _ew.clip(j, 0, m - 2)
        x0, x1 = _ix.take(xp, j), _ix.take(xp, _ew.add(j, 1))
        f0, f1 = _ix.take(fp, j), _ix.take(fp, _ew.add(j, 1))
        slope = _ew.divide(_ew.subtract(f1, f0), _ew.subtract(x1, x0))
        val = _ew.add(_ew.multiply(slope, _ew.subtract(x, x0)), f0)
        # NumPy: a NaN from one end is retried from the other; exact hits give fp itself
        other = _ew.add(_ew.multiply(slope, _ew.subtract(x, x1)), f1)
        val = _ew.where(_ew.isnan(val), other, val)
        val = _ew.where(_ew.logical_and(_ew.isnan(val), _ew.equal(f0, f1)), f0, val)
        val = _ew.where(_ew.equal(x, x0), f0, val)
        val = _ew.where(_ew.equal(x, last_x), last_f, val)
    lo = first_f if left is None else _tensor(left, x).astype(fp.dtype)
    hi = last_f if right is None else _tensor(right, x).astype(fp.dtype)
    val = _ew.where(_ew.less(x, first_x), lo, val)
    val = _ew.where(_ew.greater(x, last_x), hi, val)
    if fp.dtype.kind != "c" and m > 1:  # NumPy: one point gives fp[0] even for a NaN x
        val = _ew.where(_ew.isnan(x), x, val)
    return val
