"""Statistics: NumPy's nan-aware reductions, weighted averages and covariance, each composed of
existing ops (no kernels of its own), so it runs on every device and autograd differentiates it
through its parts. The order statistics (median, quantiles) are in quantiles.py.

A nan-aware reduction is an ordinary reduction of a cleaned input: ``nansum`` is
``sum(where(isnan(x), 0, x))``, ``nanmax`` replaces NaN by -inf (the identity of max) and puts
NaN back where a whole slice was NaN, ``nanmean`` divides that sum by
``count_nonzero(~isnan(x))``. Integer and bool inputs hold no NaN, so they take the ordinary
reduction directly.

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
from strided._dtype import bool_, float64, promote_types
from strided._dtype import result_type as _result_type
from strided._ops import complex_order as _complex_order
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import linalg as _linalg
from strided._ops import reduction as _red
from strided._ops import scan as _scan
from strided._ops import shape as _shape
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


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The sum over ``axis``, treating NaN as zero (an all-NaN slice sums to 0).

    Examples
    --------
    >>> import strided
    >>> strided.nansum(strided.asarray([[1.0, float("nan")], [2.0, 3.0]]), axis=1)
    tensor([1., 5.])
    """
    a = _tensor(a)
    kw = dict(axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where)
    return _red.sum(_nan_to(a, 0), **kw)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """The product over ``axis``, treating NaN as one.

    Examples
    --------
    >>> import strided
    >>> strided.nanprod(strided.asarray([2.0, float("nan"), 3.0]))
    tensor(6.)
    """
    a = _tensor(a)
    kw = dict(axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where)
    return _red.prod(_nan_to(a, 1), **kw)


def _dropped(a, where):
    """Where a's element is left out (bool, a's shape): a NaN, or outside NumPy's ``where=``
    mask. One pass (isnan) when there is no mask: the NaN functions read it twice, for the
    sum and for the count, rather than computing the kept elements again."""
    nan = _ew.isnan(a)
    if where is None or where is True:
        return nan
    keep = _views.broadcast_to(_tensor(where, like=a), a.shape)
    return _ew.logical_or(nan, _ew.logical_not(keep))


def _nan_count(a, dims, keepdims, dtype, dropped):
    """How many elements each slice over ``dims`` keeps (its size less the ``dropped``), as
    ``dtype``."""
    n = math.prod(a.shape[d] for d in dims)
    return _ew.subtract(n, _red.sum(dropped, axis=dims, keepdims=keepdims)).astype(dtype)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
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
        return _red.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    dims = _red._dims("nanmean", a, axis, None)
    dropped = _dropped(a, where)
    total = _red.sum(_ew.where(dropped, 0, a), axis=dims, keepdims=keepdims, dtype=dtype)
    count = _nan_count(a, dims, keepdims, total.dtype, dropped)
    return _red._finish(_ew.divide(total, count), out)


def nanvar(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """The variance over ``axis`` of the non-NaN elements: sum(|x - nanmean|^2) / (n - ddof),
    with n counted per slice; NaN where n - ddof <= 0 (NumPy warns there). ``where=`` keeps
    only the elements it marks; ``mean=`` is the mean, already computed with ``keepdims=True``.

    Examples
    --------
    >>> import strided
    >>> strided.nanvar(strided.asarray([1.0, float("nan"), 3.0]))
    tensor(1.)
    """
    if correction is not None:
        ddof = correction
    a = _tensor(a)
    if not _is_float(a):
        kw = dict(correction=ddof, keepdims=keepdims, out=out, where=where, mean=mean)
        return _red.var(a, axis=axis, **kw)
    if dtype is not None:
        a = a.astype(dtype)
    dims = _red._dims("nanvar", a, axis, None)
    dropped = _dropped(a, where)
    m = nanmean(a, axis=dims, keepdims=True, where=where) if mean is None else _tensor(mean, like=a)
    centred = _nan_to(a, 0) if a.numel() == 0 else _ew.where(dropped, 0, _ew.subtract(a, m))
    sq = (
        _ew.real(_ew.multiply(centred, _ew.conj(centred)))
        if a.dtype.kind == "c"
        else _ew.square(centred)
    )
    total = _red.sum(sq, axis=dims, keepdims=keepdims)
    dof = _ew.subtract(_nan_count(a, dims, keepdims, total.dtype, dropped), ddof)
    bad = _ew.less_equal(dof, 0)
    result = _ew.where(bad, float("nan"), _ew.divide(total, _ew.where(bad, 1, dof)))
    return _red._finish(result, out)


def nanstd(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof=0,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """The standard deviation over ``axis`` of the non-NaN elements: ``sqrt(nanvar(...))``.

    Examples
    --------
    >>> import strided
    >>> strided.nanstd(strided.asarray([1.0, float("nan"), 3.0]))
    tensor(1.)
    """
    kw = dict(keepdims=keepdims, where=where, mean=mean, correction=correction)
    v = nanvar(a, axis=axis, dtype=dtype, ddof=ddof, **kw)
    return _red._finish(_ew.sqrt(v), out)


def _nan_extreme(name, a, axis, out, keepdims, largest, initial, where):
    a = _tensor(a)
    op = _red.max if largest else _red.min
    if not _is_float(a):
        return op(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)
    dims = _red._dims(name, a, axis, None)
    if a.dtype.kind == "c":  # NumPy's fmax.reduce: Note [The extremes of complex numbers]
        if initial is not None or (where is not None and where is not True):
            raise NotImplementedError(f"{name}: initial= and where= take real input only")
        if a.numel() == 0:
            return op(a, axis=dims, out=out, keepdims=keepdims)  # max's error
        r = _complex_order.extreme(name[3:], a, dims, keepdims, skip_nan=True)
        return _red._finish(r, out)
    # NumPy's fmax.reduce: NaNs step aside; a slice with no number left is NaN, or initial
    filled = _nan_to(a, float("-inf") if largest else float("inf"))
    m = op(filled, axis=dims, keepdims=keepdims, initial=initial, where=where)
    if initial is not None:
        return _red._finish(m, out)
    all_nan = _red.all(_dropped(a, where), axis=dims, keepdims=keepdims)
    return _red._finish(_ew.where(all_nan, float("nan"), m), out)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The largest non-NaN element over ``axis``; NaN for an all-NaN slice (NumPy warns there);
    an empty reduction raises ValueError, as ``max``. ``initial`` and ``where=`` as ``max``'s
    (real input).

    Examples
    --------
    >>> import strided
    >>> strided.nanmax(strided.asarray([[1.0, float("nan")], [float("nan")] * 2]), axis=1)
    tensor([ 1., nan])
    """
    return _nan_extreme("nanmax", a, axis, out, keepdims, True, initial, where)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """The smallest non-NaN element over ``axis``; NaN for an all-NaN slice (see ``nanmax``).

    Examples
    --------
    >>> import strided
    >>> strided.nanmin(strided.asarray([3.0, float("nan"), 2.0]))
    tensor(2.)
    """
    return _nan_extreme("nanmin", a, axis, out, keepdims, False, initial, where)


def _nan_arg(name, a, axis, out, keepdims, largest):
    a = _tensor(a)
    op = _red.argmax if largest else _red.argmin
    if not _is_float(a):
        return op(a, axis=axis, out=out, keepdims=keepdims)
    isnan = _ew.isnan(a)  # complex: a NaN in either part, replaced by -inf+0j (+inf+0j)
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
        # xc @ xc.T for real data: the matmul sees a matrix times its own transpose and does
        # half the work (Note [A matrix times its own transpose]); conj would copy and hide it
        xct = _views.matrix_transpose(xc)
        c = _linalg.matmul(xc, _ew.conj(xct) if xc.dtype.kind == "c" else xct)
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
