"""NumPy's polynomial routines of the ``numpy`` namespace (the "poly1d" family, highest power
first): ``polyfit``, ``polyval``, ``roots``, ``poly``, ``polyder``, ``polyint``, ``polyadd``,
``polysub``, ``polymul``, and ``vander``, the matrix they fit with. Each is composed of existing
ops: a least-squares fit is ``linalg.lstsq`` on a scaled Vandermonde matrix, roots are the
eigenvalues of the companion matrix (``linalg.eigvals``), evaluation is Horner's rule, one
multiply-add per coefficient over the whole tensor of points.

Note [Polynomial fits are scaled least squares]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``polyfit(x, y, deg)`` solves ``V c ~ y`` in the least-squares sense, where ``V = vander(x,
deg + 1)`` has the columns ``x**deg, ..., x, 1``. Those columns differ in size by many orders of
magnitude for large ``x`` or ``deg`` (``x = 1000``, ``deg = 5``: 1e15 against 1), which makes
``V`` badly conditioned and the SVD inside ``lstsq`` cut off the small columns. NumPy's remedy,
followed here so the coefficients agree to rounding: divide each column by its 2-norm, solve,
and divide the solution by the same norms. ``rcond`` defaults to ``len(x) * eps``; a rank below
``deg + 1`` warns with NumPy's ``RankWarning`` (the fit is then one of many). Weights ``w``
multiply the rows of ``V`` and ``y`` (``w = 1/sigma`` for Gaussian errors). ``cov=True`` gives
the covariance of the coefficients, ``inv(V^T V)`` (scaled back) times the residual variance
``resids / (len(x) - deg - 1)``, or unscaled with ``cov="unscaled"``.

The routines of the newer ``numpy.polynomial`` package (lowest power first, classes with
domains) are not here.
"""

from __future__ import annotations

import warnings

import numpy as np

from strided import _check, linalg
from strided._dtype import finfo, float64, int64, promote_types
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.indexing import nonzero
from strided._ops.products import convolve
from strided._ops.scan import cumprod
from strided._ops.shape import concat
from strided._ops.sorting import sort

__all__ = [
    "vander",
    "polyfit",
    "polyval",
    "roots",
    "poly",
    "polyder",
    "polyint",
    "polyadd",
    "polysub",
    "polymul",
    "polydiv",
]


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: column j is ``x ** (N - 1 - j)`` (or
    ``x ** j`` with ``increasing=True``), in NumPy's dtype (``x``'s promoted with int64, so
    integers stay exact), each power a running product of the one before.

    Examples
    --------
    >>> import strided
    >>> strided.vander(strided.asarray([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    x = _check.tensor(x)
    if x.ndim != 1:
        raise ValueError(f"vander: x must be one-dimensional, got shape {tuple(x.shape)}")
    n = x.shape[0]
    N = n if N is None else _check.integer(N, "vander", "N")
    if N < 0:
        raise ValueError(f"vander: N must not be negative, got {N}")
    dt = promote_types(x.dtype, int64)
    cols = [_cr.ones((n, min(N, 1)), dtype=dt, device=x.device)]
    if N > 1:
        xs = _vops.broadcast_to(_vops.reshape(_vops.astype(x, dt), (n, 1)), (n, N - 1))
        cols.append(cumprod(xs, axis=1, dtype=dt))
    v = concat(cols, axis=1)
    return v if increasing else _vops.flip(v, axis=1)


def _float(t):
    """NumPy's ``t + 0.0``: integers and bools to float64, floats and complex unchanged."""
    return _ew.add(t, 0.0)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The coefficients, highest power first, of the degree-``deg`` polynomial that fits the
    points ``(x, y)`` best in the least-squares sense (NumPy's ``polyfit``; see Note
    [Polynomial fits are scaled least squares]). ``y`` may be 2-D: one fit per column.

    Returns ``p``; with ``full=True`` also ``(residuals, rank, singular_values, rcond)``; with
    ``cov=True`` (and not ``full``) ``(p, covariance)``.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([0.0, 1.0, 2.0, 3.0])
    >>> strided.polyfit(x, 2 * x**2 - 3 * x + 1, 2).round(6)
    tensor([ 2., -3.,  1.])
    """
    fn = "polyfit"
    order = _check.integer(deg, fn, "deg") + 1
    if order < 1:
        raise ValueError(f"polyfit: deg must be >= 0, got {deg}")
    x = _float(_check.tensor(x))
    y = _float(_check.tensor(y, like=x))
    if x.ndim != 1:
        raise TypeError(f"polyfit: x must be a 1-D vector, got shape {tuple(x.shape)}")
    if x.shape[0] == 0:
        raise TypeError("polyfit: x must not be empty")
    if not 1 <= y.ndim <= 2:
        raise TypeError(f"polyfit: y must be 1-D or 2-D, got shape {tuple(y.shape)}")
    if x.shape[0] != y.shape[0]:
        raise TypeError(
            f"polyfit: x and y must have the same length, got {x.shape[0]} and {y.shape[0]}"
        )
    if rcond is None:
        rcond = x.shape[0] * finfo(x.dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = _float(_check.tensor(w, like=x))
        if w.ndim != 1:
            raise TypeError(f"polyfit: w must be 1-D, got shape {tuple(w.shape)}")
        if w.shape[0] != y.shape[0]:
            raise TypeError(
                f"polyfit: w and y must have the same length, got {w.shape[0]} and {y.shape[0]}"
            )
        wcol = _vops.reshape(w, (-1, 1))
        lhs = lhs * wcol
        rhs = rhs * (wcol if rhs.ndim == 2 else w)
    scale = _ew.sqrt(_red.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = _vops.matrix_transpose(_vops.matrix_transpose(c) / scale) if c.ndim == 2 else c / scale
    rank_ = int(rank)
    if rank_ != order and not full:
        warnings.warn(
            f"polyfit: the fit may be poorly conditioned (rank {rank_} < deg + 1 = {order})",
            np.exceptions.RankWarning,
            stacklevel=2,
        )
    if full:
        return c, resids, rank, s, rcond
    if cov:
        base = linalg.inv(_vops.matrix_transpose(lhs) @ lhs) / linalg.outer(scale, scale)
        if cov == "unscaled":
            fac = 1
        else:
            if x.shape[0] <= order:
                raise ValueError(
                    f"polyfit: the number of data points ({x.shape[0]}) must exceed deg + 1 "
                    f"({order}) to scale the covariance matrix (or pass cov='unscaled')"
                )
            fac = resids / (x.shape[0] - order)
        if y.ndim == 1:
            return c, base * fac
        return c, _vops.reshape(base, (order, order, 1)) * fac
    return c


def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at the points ``x``, by
    Horner's rule: ``((p[0] * x + p[1]) * x + ...) + p[-1]``, one multiply-add over all of
    ``x`` per coefficient. The dtype is NumPy's (``x``'s promoted with ``p``'s).

    Examples
    --------
    >>> import strided
    >>> strided.polyval([3, 0, 1], strided.asarray([0, 1, 2]))
    tensor([ 1,  4, 13])
    """
    x = _check.tensor(x)
    p = _check.tensor(p, like=x)
    y = _cr.zeros_like(x)
    for pv in _vops.unbind(p, 0) if p.ndim else (p,):
        y = y * x + pv
    return y


def roots(p):
    """The roots of the polynomial with coefficients ``p`` (highest power first): the
    eigenvalues of its companion matrix, whose characteristic polynomial is ``p / p[0]``.
    Leading zeros are dropped, trailing zeros are roots at 0. Real when every root is real,
    else complex, as NumPy's ``eigvals`` decides.

    Examples
    --------
    >>> import strided
    >>> strided.roots([1, -3, 2])
    tensor([2., 1.])
    """
    p = _check.tensor(p)
    if p.ndim == 0:
        p = _vops.reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError(f"roots: p must be a 1-D sequence of coefficients, got {p.ndim} dims")
    (nz,) = nonzero(p)
    if nz.shape[0] == 0:
        return _cr.asarray([], dtype=float64, device=p.device)
    first, last = int(nz[0]), int(nz[-1])
    trailing = p.shape[0] - last - 1
    p = p[first : last + 1]
    if p.dtype.kind not in "fc":
        p = _vops.astype(p, float64)
    n = p.shape[0]
    if n > 1:
        a = _cr.zeros((n - 1, n - 1), dtype=p.dtype, device=p.device)
        if n > 2:
            a[1:, :-1] = _cr.eye(n - 2, dtype=p.dtype, device=p.device)
        a[0, :] = -p[1:] / p[0]
        r = linalg.eigvals(a)
    else:
        r = _cr.asarray([], dtype=p.dtype, device=p.device)
    return concat([r, _cr.zeros(trailing, dtype=r.dtype, device=p.device)])


def poly(seq_of_zeros):
    """The coefficients (highest power first, leading 1) of the monic polynomial whose roots
    are ``seq_of_zeros``, or the characteristic polynomial of a square matrix: one
    ``convolve`` per root. Complex roots in conjugate pairs give real coefficients.

    Examples
    --------
    >>> import strided
    >>> strided.poly([1, 2])
    tensor([ 1., -3.,  2.])
    """
    z = _check.tensor(seq_of_zeros)
    z = _vops.reshape(z, (1,)) if z.ndim == 0 else z
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = linalg.eigvals(z)
    elif z.ndim != 1:
        raise ValueError(
            "poly: seq_of_zeros must be 1-D (the roots) or a non-empty square 2-D matrix, got "
            f"shape {tuple(z.shape)}"
        )
    elif z.dtype.kind not in "fc":
        z = _vops.astype(z, float64)  # NumPy's mintypecode: 'd' for all but float and complex
    if z.shape[0] == 0:
        return 1.0
    one = _cr.ones(1, dtype=z.dtype, device=z.device)
    a = one
    for r in _vops.unbind(z, 0):  # one convolution per root, not per element
        a = convolve(a, concat([one, -_vops.reshape(r, (1,))]))
    if a.dtype.kind == "c" and bool(_red.all(_ew.equal(sort(z), sort(_ew.conj(z))))):
        a = _ew.real(a) + 0  # conjugate pairs: NumPy returns the real part (a copy)
    return a


def _coeffs(p, fn, name="p"):
    p = _check.tensor(p)
    return _vops.reshape(p, (1,)) if p.ndim == 0 else p


def polyadd(a1, a2):
    """The sum of two polynomials (highest power first): the shorter padded with leading
    zeros.

    Examples
    --------
    >>> import strided
    >>> strided.polyadd([1, 2], [9, 5, 4])
    tensor([9, 6, 6])
    """
    return _pad_and(_ew.add, a1, a2, "polyadd")


def polysub(a1, a2):
    """The difference of two polynomials (highest power first).

    Examples
    --------
    >>> import strided
    >>> strided.polysub([2, 10, -2], [3, 10, -4])
    tensor([-1,  0,  2])
    """
    return _pad_and(_ew.subtract, a1, a2, "polysub")


def _pad_and(op, a1, a2, fn):
    a1, a2 = _coeffs(a1, fn, "a1"), _coeffs(a2, fn, "a2")
    diff = a2.shape[0] - a1.shape[0]
    if diff > 0:
        a1 = concat([_cr.zeros(diff, dtype=a1.dtype, device=a1.device), a1])
    elif diff < 0:
        a2 = concat([_cr.zeros(-diff, dtype=a2.dtype, device=a2.device), a2])
    return op(a1, a2)


def polymul(a1, a2):
    """The product of two polynomials (highest power first): the convolution of their
    coefficients.

    Examples
    --------
    >>> import strided
    >>> strided.polymul([1, 2, 3], [9, 5, 1])
    tensor([ 9, 23, 38, 17,  3])
    """
    return convolve(_coeffs(a1, "polymul", "a1"), _coeffs(a2, "polymul", "a2"))


def polydiv(u, v):
    """The quotient and remainder of two polynomials (highest power first), ``u = q v + r``, by
    NumPy's long division in floats (or complex): the remainder's leading coefficients that
    ``allclose`` finds zero are dropped, as NumPy does.

    Examples
    --------
    >>> import strided
    >>> q, r = strided.polydiv([3.0, 5.0, 2.0], [2.0, 1.0])
    >>> q, r
    (tensor([1.5 , 1.75]), tensor([0.25]))
    """
    from strided._dtype import result_type
    from strided._ops.mathfuncs import allclose

    u = _ew.add(_coeffs(u, "polydiv", "u"), 0.0)  # NumPy's u + 0.0: the division's float
    v = _ew.add(_coeffs(v, "polydiv", "v"), 0.0)
    dtype = result_type(u.dtype, v.dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = _ew.divide(1.0, v[0])
    q = _cr.zeros(max(m - n + 1, 1), dtype=dtype, device=u.device)
    r = u.astype(dtype, copy=True)
    for k in range(m - n + 1):  # one step of long division per power of the quotient
        d = _ew.multiply(scale, r[k])
        q[k] = d
        r[k : k + n + 1] = _ew.subtract(r[k : k + n + 1], _ew.multiply(d, v))
    while r.shape[0] > 1 and allclose(r[0], 0, rtol=1e-14):
        r = r[1:]
    return q, r


def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial (highest power first).

    Examples
    --------
    >>> import strided
    >>> strided.polyder([1, 1, 1, 1])
    tensor([3, 2, 1])
    """
    m = _check.integer(m, "polyder", "m")
    if m < 0:
        raise ValueError(f"polyder: the order m must not be negative (see polyint), got {m}")
    p = _coeffs(p, "polyder")
    for _ in range(m):  # once per order of derivative
        n = p.shape[0] - 1
        p = p[:-1] * _cr.arange(n, 0, -1, device=p.device)
    return p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial (highest power first), with the
    integration constants ``k`` (one per order, lowest order first; zeros by default).

    Examples
    --------
    >>> import strided
    >>> strided.polyint([3, 2, 1])
    tensor([1., 1., 1., 0.])
    """
    m = _check.integer(m, "polyint", "m")
    if m < 0:
        raise ValueError(f"polyint: the order m must not be negative (see polyder), got {m}")
    if k is None:
        k = [0.0] * m
    elif not hasattr(k, "__len__") or (hasattr(k, "ndim") and k.ndim == 0):
        k = [k] * m
    if len(k) < m:
        raise ValueError(f"polyint: k must hold m={m} integration constants, got {len(k)}")
    p = _coeffs(p, "polyint")
    for i in range(m):  # once per order of integration
        n = p.shape[0]
        p = p / _cr.arange(n, 0, -1, device=p.device)
        p = concat([p, _vops.astype(_check.tensor(k[i], like=p).reshape(1), p.dtype)])
    return p
