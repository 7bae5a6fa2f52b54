"""Statistics: NumPy's nan-aware reductions, order statistics (median, quantiles), weighted
averages and covariance, each composed of existing ops (no kernels of
its own), so it runs on every device and autograd differentiates it through its parts.

A nan-aware reduction is an ordinary reduction of a cleaned input: ``nansum`` is
``sum(where(isnan(x), 0, x))``, ``nanmax`` replaces NaN by -inf (the identity of max) and puts
NaN back where a whole slice was NaN, ``nanmean`` divides that sum by
``count_nonzero(~isnan(x))``. Integer and bool inputs hold no NaN, so they take the ordinary
reduction directly.

An order statistic is the element a sort would put at a position: ``quantile(x, q)`` of n values
takes the *virtual index* ``v = (n - 1) * q`` (``method="linear"``), which lies between the
order statistics ``lo = floor(v)`` and ``lo + 1``; the result interpolates between them with
weight ``v - lo``. Other methods only change ``v`` (``hazen``, ``weibull``, ...) or round it to a
neighbour (``lower``, ``higher``, ``nearest``). Only those few positions are needed, so on the
CPU each slice is *partitioned* at them (the O(n) selection kernel, Note [Selection] in
_cpu/select.pyx), as NumPy does, instead of sorted; on CUDA devices it is sorted. Either way NaN
goes last, so the last element of a slice says whether it holds one. The order statistics are
then taken with ``take_along_axis`` and interpolated by arithmetic, so gradients flow to the
elements used. ``nanquantile`` does the same with ``n`` counted per slice, as a tensor (NaNs go
last, out of the way), so its positions differ from slice to slice.

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

from strided import _check
from strided._dtype import bool_, float64, int64, promote_types
from strided._dtype import result_type as _result_type
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import indexing as _ix
from strided._ops import linalg as _linalg
from strided._ops import reduction as _red
from strided._ops import scan as _scan
from strided._ops import sets as _sets
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
]


# -- helpers ------------------------------------------------------------------------------------


_tensor = _check.tensor  # on ``like``'s device when given


def _is_float(x):
    return x.dtype.kind in "fc"


def _single_axis(name, x, axis):
    """``axis`` as a non-negative int of x, checked."""
    return _check.axis(axis, x.ndim, name)


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
    a = _tensor(a)
    if a.dtype.kind == "c":
        raise TypeError(f"{name}: a must be real, got {a.dtype.name} (complex has no order)")
    y, dims = _to_last(name, a, axis)
    n = y.shape[-1]
    rdtype = a.dtype if _is_float(a) else float64
    if n == 0:  # NumPy warns and gives NaN
        r = _cr.full(_kept_shape(a, dims, keepdims), float("nan"), dtype=rdtype, device=a.device)
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
        s = _partitioned(y, _cr.asarray([(n - 1) // 2, n // 2], dtype=int64, device=a.device))
        m = _red.mean(_views.narrow(s, s.ndim - 1, (n - 1) // 2, k), axis=-1)
        if _is_float(a):  # NaN goes last: a slice holding one gives NaN
            m = _ew.where(_ew.isnan(_views.select(s, s.ndim - 1, n - 1)), float("nan"), m)
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
