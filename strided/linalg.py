"""``strided.linalg``: the Array API 2025.12 linear algebra extension, and NumPy's everyday extras.

The functions live elsewhere (norms in ``_ops/norms.py``, products and the SVD in
``_ops/linalg.py``, the LAPACK factorisations in ``_ops/linalg_solve.py``, views in
``_ops/views.py``); this module gathers them under the extension's names, as ``numpy.linalg``
and ``torch.linalg`` do, and composes the rest from them: ``pinv``, ``matrix_rank`` and
``cond`` from the SVD, ``matrix_power`` from matmul and ``inv``, ``lstsq`` from the SVD,
``multi_dot``, ``tensorinv``/``tensorsolve``, NumPy's ``norm``. ``diagonal`` and ``trace`` here
take the last two dims, as the extension says (``strided.diagonal`` is PyTorch's, over dims 0
and 1).

``svd`` and ``svdvals`` (LAPACK's ``?gesdd``, ``_cpu/lapack.pyx``) are only here, not in the
top-level namespace: ``torch.svd`` returns V where ``linalg.svd`` returns Vh, and a top-level
``strided.svd`` would invite that confusion.

Every function runs on every device: the factorisations by LAPACK on the CPU and by cuSOLVER on a
GPU (LU, Cholesky, the symmetric eigensolver, QR), written once for both; the SVD and the
nonsymmetric eigenproblem with a round trip through host memory for tensors on a CUDA device
(Note [Linear algebra on a CUDA device] in ``_ops/linalg_solve.py``).
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

from strided._dtype import finfo
from strided._ops import creation as _creation
from strided._ops import elementwise as _ew
from strided._ops import linalg as _linalg
from strided._ops import products as _products
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.linalg import matmul, outer, tensordot, vecdot
from strided._ops.linalg_solve import (
    EighResult,
    EigResult,
    LinAlgError,
    QRResult,
    SlogdetResult,
    _lapack_dtype,
    _matrices,
    cholesky,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    on_host,
    qr,
    slogdet,
    solve,
)
from strided._ops.norms import matrix_norm, vector_norm
from strided._ops.views import matrix_transpose

svd, svdvals = _linalg.svd, _linalg.svdvals

__all__ = [
    "EigResult",
    "EighResult",
    "LinAlgError",
    "LstsqResult",
    "QRResult",
    "SlogdetResult",
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
]


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix in ``x`` (the last two dims), as a view.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.diagonal(strided.arange(9).reshape(3, 3), offset=1)
    tensor([1, 5])
    """
    return _vops.diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the ``offset``-th diagonal of each matrix in ``x``; dtypes as ``sum``.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.trace(strided.arange(9).reshape(3, 3))
    tensor(12)
    """
    return _red.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of the 3-vectors along ``axis`` of ``x1`` and ``x2``; the other dims
    broadcast (Array API ``linalg.cross``: 3-vectors only, unlike ``strided.cross``).

    Examples
    --------
    >>> import strided
    >>> strided.linalg.cross(strided.asarray([1.0, 0.0, 0.0]), strided.asarray([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    x1, x2 = _products._tensor(x1), _products._tensor(x2)
    for name, x in (("x1", x1), ("x2", x2)):
        if x.ndim == 0 or not -x.ndim <= axis < x.ndim or x.shape[axis] != 3:
            raise ValueError(
                f"linalg.cross: {name} must have 3 elements along axis {axis}, got shape "
                f"{x.shape} (strided.cross also takes 2-vectors)"
            )
    if axis >= 0 and x1.ndim != x2.ndim:
        raise ValueError(
            f"linalg.cross: a non-negative axis ({axis}) needs x1 and x2 of the same number of "
            f"dims, got shapes {x1.shape} and {x2.shape}; use a negative axis"
        )
    return _products.cross(x1, x2, axis=axis)


def matrix_power(x, n, /):
    """``x`` multiplied by itself ``n`` times, for each square matrix of ``x``: the identity
    for ``n == 0``, powers of ``inv(x)`` for negative ``n`` (by repeated squaring).

    Examples
    --------
    >>> import strided
    >>> strided.linalg.matrix_power(strided.asarray([[1, 1], [0, 1]]), 5)
    tensor([[1, 5],
            [0, 1]])
    """
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"matrix_power: n must be an integer, got {n!r}") from None
    x = _products._tensor(x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise LinAlgError(f"matrix_power: x must be square matrices, got shape {x.shape}")
    if n == 0:
        eye = _creation.eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return _vops.broadcast_to(eye, x.shape).copy()
    if n < 0:
        x, n = inv(x), -n
    result, power = None, x
    while n:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result if result is not x else x.copy()


def _cutoff(s, shape, rtol):
    """The singular-value threshold of ``matrix_rank``, ``pinv`` and ``lstsq``: ``rtol``
    (default max(m, n) * eps) times the largest singular value of each matrix."""
    if rtol is None:
        rtol = max(shape[-2:]) * finfo(s.dtype).eps
    rtol = _products._tensor(rtol)
    if s.shape[-1] == 0:
        return _ew.multiply(s[..., :1], 0)
    biggest = _red.max(s, axis=-1, keepdims=True)
    return _ew.multiply(_vops.expand_dims(rtol, -1) if rtol.ndim else rtol, biggest)


def _pinv_of_svd(u, s, vh, cut):
    """V diag(1/s) U^H, with the singular values at most ``cut`` taken as zero."""
    large = _ew.greater(s, cut)
    inv_s = _ew.where(large, _ew.divide(1, _ew.where(large, s, 1)), 0)
    v = _ew.conj(matrix_transpose(vh))
    uh = _ew.conj(matrix_transpose(u))
    return matmul(_ew.multiply(v, _vops.expand_dims(inv_s.astype(v.dtype), -2)), uh)


def matrix_rank(x, /, *, rtol=None, tol=None, hermitian=False):
    """The number of singular values of each matrix in ``x`` above a threshold: ``tol`` if
    given, else ``rtol`` (default ``max(m, n) * eps``) times the largest (Array API and NumPy).

    Examples
    --------
    >>> import strided
    >>> strided.linalg.matrix_rank(strided.asarray([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    if rtol is not None and tol is not None:
        raise ValueError("matrix_rank: give tol or rtol, not both")
    x, _ = _matrices("matrix_rank", x, square=False)
    s = svdvals(x)
    if tol is not None:
        tol = _products._tensor(tol)
        cut = _vops.expand_dims(tol, -1) if tol.ndim else tol
    else:
        cut = _cutoff(s, x.shape, rtol)
    return _red.sum(_ew.greater(s, cut), axis=-1)


def pinv(x, /, *, rtol=None, rcond=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse of each matrix in ``x``, from its SVD: singular values
    at most ``rtol`` times the largest are treated as zero (Array API's default ``rtol``,
    ``max(m, n) * eps``; NumPy's ``rcond=`` is the same threshold under its old name).

    Examples
    --------
    >>> import strided
    >>> strided.linalg.pinv(strided.asarray([[1.0, 0.0], [0.0, 0.0]]))
    tensor([[1., 0.],
            [0., 0.]])
    """
    if rtol is not None and rcond is not None:
        raise ValueError("pinv: give rtol or rcond (its NumPy name), not both")
    x, _ = _matrices("pinv", x, square=False)
    m, n = x.shape[-2:]
    if m == 0 or n == 0:
        return _creation.zeros(x.shape[:-2] + (n, m), dtype=_lapack_dtype(x.dtype))
    u, s, vh = svd(x, full_matrices=False)
    return _pinv_of_svd(u, s, vh, _cutoff(s, x.shape, rtol if rtol is not None else rcond))


class LstsqResult(NamedTuple):
    """What ``lstsq`` returns (NumPy's four results)."""

    solution: object
    residuals: object
    rank: object
    singular_values: object


def lstsq(a, b, /, rcond=None):
    """The least-squares solution ``x`` of ``a @ x ~= b`` (NumPy's ``lstsq``, for one matrix
    ``a``): ``(x, residuals, rank, singular_values)``, from the SVD of ``a``. Singular values
    at most ``rcond`` times the largest are treated as zero (default ``max(m, n) * eps``).
    ``residuals`` holds the squared 2-norm of each column of ``b - a @ x`` when ``a`` has full
    column rank and more rows than columns, else it is empty, as in NumPy.

    Examples
    --------
    >>> import strided
    >>> a = strided.asarray([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 1.0]])
    >>> x, res, rank, sv = strided.linalg.lstsq(a, strided.asarray([-1.0, 0.2, 0.9, 2.1]))
    >>> x
    tensor([ 1.  , -0.95])
    >>> int(rank)
    2
    """
    a, _ = _matrices("lstsq", a, "a", square=False)
    b = _products._tensor(b)
    if a.ndim != 2:
        raise LinAlgError(f"lstsq: a must be one matrix (2 dims), got shape {a.shape}")
    m, n = a.shape
    if b.ndim not in (1, 2) or b.shape[0] != m:
        raise LinAlgError(
            f"lstsq: b must have {m} rows, as a (shape {a.shape}) has, and 1 or 2 dims; got "
            f"shape {b.shape}"
        )
    vector = b.ndim == 1
    bm = _vops.expand_dims(b, -1) if vector else b
    if m == 0 or n == 0:
        x_pinv = pinv(a)
        s = svdvals(a)
        cut = _cutoff(s, a.shape, rcond)
    else:  # one SVD serves the solution, the rank and the singular values
        u, s, vh = svd(a, full_matrices=False)
        cut = _cutoff(s, a.shape, rcond)
        x_pinv = _pinv_of_svd(u, s, vh, cut)
    x = matmul(x_pinv, bm.astype(x_pinv.dtype) if bm.dtype != x_pinv.dtype else bm)
    rank = _red.sum(_ew.greater(s, cut))

    if int(rank) == n and m > n:
        r = _ew.subtract(matmul(a.astype(x.dtype), x), bm)
        residuals = _red.sum(_ew.abs(r) ** 2, axis=0)
    else:
        residuals = _creation.empty((0,), dtype=s.dtype)
    return LstsqResult(x[..., 0] if vector else x, residuals, rank, s)


def multi_dot(arrays, /, *, out=None):
    """The product of the matrices in ``arrays``, multiplied in the order that needs the
    fewest scalar multiplications (the classic matrix-chain order); a 1-D first (last)
    argument is a row (column) vector, as in NumPy.

    Examples
    --------
    >>> import strided
    >>> a, b, c = strided.ones((10, 100)), strided.ones((100, 5)), strided.ones((5, 50))
    >>> strided.linalg.multi_dot([a, b, c]).shape
    (10, 50)
    """
    arrays = [_products._tensor(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError(f"multi_dot: needs at least 2 arrays, got {len(arrays)}")
    first_1d, last_1d = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if first_1d:
        arrays[0] = _vops.expand_dims(arrays[0], 0)
    if last_1d:
        arrays[-1] = _vops.expand_dims(arrays[-1], -1)
    for i, a in enumerate(arrays):
        if a.ndim != 2:
            raise ValueError(
                f"multi_dot: array {i} must be 2-D (1-D at the ends), got shape {a.shape}"
            )
    dims = [arrays[0].shape[0]] + [a.shape[1] for a in arrays]
    k = len(arrays)
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = math.inf
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s

    def product(i, j):
        if i == j:
            return arrays[i]
        return matmul(product(i, split[i][j]), product(split[i][j] + 1, j))

    result = product(0, k - 1)
    if first_1d:
        result = result[0]
    if last_1d:
        result = result[..., 0]
    if out is not None:
        out[...] = result
        return out
    return result


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: with ``axis=None`` the 2-norm of the flattened ``x`` (or, with
    ``ord`` and a 1- or 2-D ``x``, its vector or matrix norm); an int ``axis`` gives vector
    norms along it, a pair of axes matrix norms over them. ``ord`` as NumPy: for vectors any
    number, ``inf``, ``-inf``, 0; for matrices ``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1, -1,
    2, -2.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.norm(strided.asarray([[3.0, 4.0], [0.0, 0.0]]))
    tensor(5.)
    >>> strided.linalg.norm(strided.asarray([[1.0, 2.0], [3.0, 4.0]]), ord=1)
    tensor(6.)
    """
    x = _products._tensor(x)
    if axis is None:
        if ord is None or x.ndim == 1:
            return vector_norm(x, axis=None if ord is None else 0, keepdims=keepdims,
                               ord=2 if ord is None else ord)  # fmt: skip
        if x.ndim == 2:
            return matrix_norm(x, keepdims=keepdims, ord=ord)
        raise ValueError(f"norm: ord={ord!r} needs a 1- or 2-D x, or axis=; got shape {x.shape}")
    if isinstance(axis, tuple) and len(axis) == 2:
        if ord is None:
            ord = "fro"
        a0, a1 = (operator.index(a) % x.ndim for a in axis)
        if a0 == a1:
            raise ValueError(f"norm: the two axes must differ, got {axis}")
        moved = _vops.moveaxis(x, (a0, a1), (-2, -1))
        result = matrix_norm(moved, keepdims=False, ord=ord)
        if keepdims:
            for a in sorted((a0, a1)):
                result = _vops.expand_dims(result, a)
        return result
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if isinstance(axis, tuple):
        raise ValueError(f"norm: axis must be an int or a pair of ints, got {axis}")
    if isinstance(ord, str):
        raise ValueError(f"norm: ord={ord!r} is a matrix norm; give a pair of axes")
    return vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)


@on_host
def cond(x, p=None):
    """The condition number of each matrix in ``x`` in the norm ``p`` (NumPy's ``cond``): the
    ratio of the largest to the smallest singular value for ``p`` None, 2 or -2 (its inverse
    for -2), else ``norm(x, p) * norm(inv(x), p)``.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.cond(strided.asarray([[1.0, 0.0], [0.0, 4.0]]))
    tensor(4.)
    """
    x, _ = _matrices("cond", x, square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = svdvals(x)
        big, small = _red.max(s, axis=-1), _red.min(s, axis=-1)
        return _ew.divide(small, big) if p == -2 else _ew.divide(big, small)
    # a singular matrix has condition number inf, as in NumPy: its inverse is taken of the
    # identity instead, and its result replaced
    from strided._ops.linalg_solve import _lu

    _, _, info = _lu("cond", x, _lapack_dtype(x.dtype))
    singular = _ew.greater(info, 0)
    eye = _vops.broadcast_to(_creation.eye(x.shape[-1], dtype=x.dtype), x.shape)
    safe = _ew.where(_vops.expand_dims(_vops.expand_dims(singular, -1), -1), eye, x)
    r = _ew.multiply(matrix_norm(x, ord=p), matrix_norm(inv(safe), ord=p))
    return _ew.where(singular, float("inf"), r)


def tensorinv(a, /, ind=2):
    """The inverse of ``a`` seen as a linear map from its last dims to its first ``ind``
    (NumPy's ``tensorinv``): ``tensordot(tensorinv(a), a, ind)`` is the identity.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.tensorinv(_creation.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    a = _products._tensor(a)
    if ind <= 0:
        raise ValueError(f"tensorinv: ind must be a positive integer, got {ind}")
    old = a.shape
    rows = math.prod(old[:ind])
    cols = math.prod(old[ind:])
    if rows != cols:
        raise LinAlgError(
            f"tensorinv: the first {ind} dims of a {old} hold {rows} elements and the rest "
            f"{cols}: they must be equal"
        )
    return inv(a.reshape(rows, cols)).reshape(old[ind:] + old[:ind])


def tensorsolve(a, b, /, axes=None):
    """The ``x`` with ``tensordot(a, x, x.ndim) == b`` (NumPy's ``tensorsolve``).

    Examples
    --------
    >>> import strided
    >>> a = _creation.eye(6).reshape(6, 2, 3)
    >>> strided.linalg.tensorsolve(a, strided.ones(6)).shape
    (2, 3)
    """
    a, b = _products._tensor(a), _products._tensor(b)
    if axes is not None:
        rest = [k for k in range(a.ndim) if k not in [ax % a.ndim for ax in axes]]
        a = _vops.permute(a, rest + [ax % a.ndim for ax in axes])
    tail = a.shape[b.ndim :]
    n = math.prod(tail)
    if math.prod(a.shape[: b.ndim]) != n:
        raise LinAlgError(
            f"tensorsolve: a of shape {a.shape} is not square once b's dims {b.shape} are "
            "taken as its rows"
        )
    return solve(a.reshape(n, n), b.reshape(n)).reshape(tail)
