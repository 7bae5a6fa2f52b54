"""Linear algebra: ``matmul`` (``@``) and the products built on it.

The kernel is in ``_cpu/blas.pyx``: float32, float64, complex64 and complex128 go to OpenBLAS's
GEMM, with each operand's strides mapped onto BLAS's (order, transpose, leading dimension) so
that transposed and sliced views are read in place (Note [Strided views as BLAS matrices]);
integers and bool run a blocked strided loop with NumPy's wraparound (Note [Integer matmul]).

Only ``matmul`` and ``addmm`` are dispatched ops, with a kernel per dispatch key (and, later, a
derivative formula each). ``mm``, ``bmm``, ``tensordot``, ``vecdot``, ``outer`` and
``Tensor.dot`` are compositions of them, of views and of elementwise ops, as PyTorch's
CompositeImplicitAutograd ops are: they check their own arguments, then call the parts.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

# Loads libscipy_openblas before the kernel module needs it: see Note [Finding OpenBLAS at run
# time] in setup.py.
import scipy_openblas32  # noqa: F401

from strided import _check, _core, _dispatch
from strided._cpu import blas as _blas
from strided._cpu import lapack as _lapack
from strided._ops import copying as _copying
from strided._ops import elementwise as _ew
from strided._ops import views as _vops

__all__ = [
    "LinAlgError",
    "SVDResult",
    "addmm",
    "bmm",
    "matmul",
    "mm",
    "outer",
    "svd",
    "svdvals",
    "tensordot",
    "vecdot",
]

_dispatch.register("matmul", "CPU", _blas.matmul)
_dispatch.register("addmm", "CPU", _blas.addmm)
_dispatch.register("linalg_svd", "CPU", _lapack.svd)
# (its CUDA kernel, LAPACK through host memory, is registered by _ops/linalg_solve.py: Note
# [Linear algebra on a CUDA device])


def _cuda_matmul(x1, x2, out=None):
    from strided.cuda import _linalg  # loaded with the first CUDA tensor

    return _linalg.matmul(x1, x2, out)


def _cuda_addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat1 @ mat2) on a CUDA device: the matmul kernel, then
    elementwise kernels (cuBLAS's own alpha and beta are not used yet)."""
    from strided.cuda import _linalg

    if not (input.device is mat1.device is mat2.device):
        # checked here: copy_ below would quietly fetch an input from another device
        raise RuntimeError(
            f"addmm: expected all tensors on one device, got {input.device}, {mat1.device} "
            f"and {mat2.device}"
        )
    from strided._dtype import promote_types
    from strided.cuda import _half

    if _half.is_half(input) or _half.is_half(mat1) or _half.is_half(mat2):
        # as the CPU's addmm: all in float32, rounded once (Note [CUDA half precision through
        # float32] in strided/cuda/_half.py), not a half product then half alpha and beta steps
        want = promote_types(promote_types(mat1.dtype, mat2.dtype), input.dtype)
        wide = [_half.widen(t) for t in (input, mat1, mat2)]
        result = _cuda_addmm(*wide, beta=beta, alpha=alpha)
        if out is not None:
            return _copying.copy_(out, result)
        return _half.narrow(result, want) if want.itemsize == 2 else result
    result = _linalg.matmul(mat1, mat2)
    if alpha != 1:
        result = _ew.multiply(result, alpha)
    if beta != 0:
        # input broadcasts one way only, to the product's shape, as in the CPU kernel (where C
        # starts as a copy_ of input): an input with more or bigger dims is copy_'s error, not a
        # bigger result. add() alone would broadcast both ways.
        start = _core._empty(result.shape, input.dtype, result.device)
        _copying.copy_(start, input)
        result = _ew.add(start if beta == 1 else _ew.multiply(start, beta), result)
    if out is None:
        return result
    return _copying.copy_(out, result)


_dispatch.register("matmul", "CUDA", _cuda_matmul)
_dispatch.register("addmm", "CUDA", _cuda_addmm)


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors
_TensorBase = _core.TensorBase
_possible, _CPU, _call = _dispatch.possible, _dispatch.CPU, _dispatch.call


def matmul(x1, x2, /, *, out=None):
    """The matrix product ``x1 @ x2``, by NumPy's rules.

    2-D times 2-D is the matrix product. Higher dims are stacks of matrices: the last two dims
    multiply, the others (the batch dims) broadcast against each other. A 1-D ``x1`` is a row
    vector and a 1-D ``x2`` a column vector, and the dim added for them is removed from the
    result (1-D @ 1-D is the 0-d dot product). 0-d inputs raise ValueError. The dtype is
    ``result_type(x1, x2)``.

    float32, float64, complex64 and complex128 run OpenBLAS's GEMM; transposed views (``x.T``,
    ``x.mT``) and slices whose last dim is contiguous go to it without a copy, other layouts
    are copied first (``strided.last_matmul_plan()`` says which). Integer dtypes wrap around on
    overflow, as NumPy's do; bool gives the logical (or of ands) product.

    Examples
    --------
    >>> import strided
    >>> a = strided.arange(6.0).reshape(2, 3)
    >>> a @ a.T
    tensor([[ 5., 14.],
            [14., 50.]])
    >>> strided.matmul(strided.ones((4, 1, 2, 3)), strided.ones((5, 3, 2))).shape
    (4, 5, 2, 2)
    """
    if not isinstance(x1, _TensorBase):  # (the test inline: the call is a small matmul's
        x1 = _tensor(x1)  # tenth)
    if not isinstance(x2, _TensorBase):
        x2 = _tensor(x2)
    if _possible[0] == _CPU:  # see Note [Dispatch key sets] in _dispatch.py
        return _blas.matmul(x1, x2, out)
    if out is None:
        return _call("matmul", x1, x2)
    return _call("matmul", x1, x2, out=out)


def _check_ndim(name, x, argname, ndim, what):
    if x.ndim != ndim:
        raise ValueError(
            f"{name}: {argname} must be {what} ({ndim}-D), got shape {x.shape}"
            + ("; use matmul for other shapes" if name != "outer" else "")
        )


def _check_inner(name, x1, x2, n1, n2):
    if x1.shape[-1] != x2.shape[-2]:
        raise ValueError(
            f"{name}: the last dim of {n1} (size {x1.shape[-1]}) must match the second-to-last "
            f"dim of {n2} (size {x2.shape[-2]}); {n1} has shape {x1.shape}, {n2} has shape "
            f"{x2.shape}"
        )


def mm(input, mat2, /, *, out=None):
    """The product of two matrices (PyTorch's ``mm``: 2-D only, no broadcasting).

    Examples
    --------
    >>> import strided
    >>> strided.mm(strided.ones((2, 3)), strided.ones((3, 4))).shape
    (2, 4)
    """
    input, mat2 = _tensor(input), _tensor(mat2)
    _check_ndim("mm", input, "input", 2, "a matrix")
    _check_ndim("mm", mat2, "mat2", 2, "a matrix")
    _check_inner("mm", input, mat2, "input", "mat2")
    return matmul(input, mat2, out=out)


def bmm(input, mat2, /, *, out=None):
    """Batched matrix product of two stacks of the same number of matrices (PyTorch's ``bmm``:
    3-D only, no broadcasting; ``matmul`` broadcasts).

    Examples
    --------
    >>> import strided
    >>> strided.bmm(strided.ones((5, 2, 3)), strided.ones((5, 3, 4))).shape
    (5, 2, 4)
    """
    input, mat2 = _tensor(input), _tensor(mat2)
    _check_ndim("bmm", input, "input", 3, "a stack of matrices")
    _check_ndim("bmm", mat2, "mat2", 3, "a stack of matrices")
    if input.shape[0] != mat2.shape[0]:
        raise ValueError(
            f"bmm: input holds {input.shape[0]} matrices and mat2 {mat2.shape[0]}; they must "
            "hold the same number (bmm does not broadcast: use matmul)"
        )
    _check_inner("bmm", input, mat2, "input", "mat2")
    return matmul(input, mat2, out=out)


def addmm(input, mat1, mat2, /, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)`` (PyTorch's ``addmm``), in one GEMM call.

    ``mat1`` and ``mat2`` are matrices; ``input`` broadcasts to their product's shape. With
    ``beta=0`` input is not read (NaN in it does not propagate). For integer dtypes alpha and
    beta must be integers.

    Examples
    --------
    >>> import strided
    >>> strided.addmm(strided.ones(2), strided.ones((2, 3)), strided.ones((3, 2)), alpha=2)
    tensor([[7., 7.],
            [7., 7.]])
    """
    input, mat1, mat2 = _tensor(input), _tensor(mat1), _tensor(mat2)
    _check_ndim("addmm", mat1, "mat1", 2, "a matrix")
    _check_ndim("addmm", mat2, "mat2", 2, "a matrix")
    _check_inner("addmm", mat1, mat2, "mat1", "mat2")
    if _dispatch.possible[0] == _dispatch.CPU:
        return _blas.addmm(input, mat1, mat2, beta=beta, alpha=alpha, out=out)
    return _dispatch.call("addmm", input, mat1, mat2, beta=beta, alpha=alpha, out=out)


def _normalize_axes(name, axes, ndim, argname):
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis={a} is out of range for {argname} with {ndim} dims")
        a %= ndim
        if a in out:
            raise ValueError(f"{name}: axis {a} of {argname} appears twice in axes")
        out.append(a)
    return out


def tensordot(x1, x2, /, axes=2):
    """Sum products over the given axes: ``axes=n`` contracts the last n dims of ``x1`` with the
    first n of ``x2``; ``axes=(a1, a2)`` contracts axis ``a1[i]`` of x1 with ``a2[i]`` of x2.

    The result has x1's remaining dims, then x2's. Computed as one matrix product: the
    contracted dims are moved together and flattened (a view when the strides allow it, else a
    copy), as NumPy does.

    Examples
    --------
    >>> import strided
    >>> a = strided.ones((2, 3, 4))
    >>> strided.tensordot(a, strided.ones((3, 4, 5))).shape
    (2, 5)
    >>> strided.tensordot(a, strided.ones((4, 2)), axes=([0, 2], [1, 0])).shape
    (3,)
    """
    x1, x2 = _tensor(x1), _tensor(x2)
    if isinstance(axes, tuple | list) and len(axes) == 2:
        a1, a2 = axes
        a1 = [a1] if not isinstance(a1, tuple | list) else list(a1)
        a2 = [a2] if not isinstance(a2, tuple | list) else list(a2)
        if len(a1) != len(a2):
            raise ValueError(
                f"tensordot: axes must name as many dims of x1 as of x2, got {a1} and {a2}"
            )
    else:
        try:
            n = operator.index(axes)
        except TypeError:
            raise TypeError(
                f"tensordot: axes must be an int or a pair of sequences of ints, got {axes!r}"
            ) from None
        if n < 0 or n > x1.ndim or n > x2.ndim:
            raise ValueError(
                f"tensordot: axes={n} must be between 0 and the dims of both inputs "
                f"({x1.ndim} and {x2.ndim})"
            )
        a1, a2 = list(range(x1.ndim - n, x1.ndim)), list(range(n))
    a1 = _normalize_axes("tensordot", a1, x1.ndim, "x1")
    a2 = _normalize_axes("tensordot", a2, x2.ndim, "x2")
    for i, j in zip(a1, a2, strict=True):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError(
                f"tensordot: axis {i} of x1 (size {x1.shape[i]}) must match axis {j} of x2 "
                f"(size {x2.shape[j]}); x1 has shape {x1.shape}, x2 has shape {x2.shape}"
            )
    free1 = [d for d in range(x1.ndim) if d not in a1]
    free2 = [d for d in range(x2.ndim) if d not in a2]
    k = 1
    for d in a1:
        k *= x1.shape[d]
    m = 1
    for d in free1:
        m *= x1.shape[d]
    n = 1
    for d in free2:
        n *= x2.shape[d]
    left = _vops.reshape(_vops.permute_dims(x1, free1 + a1), (m, k))
    right = _vops.reshape(_vops.permute_dims(x2, a2 + free2), (k, n))
    shape = tuple(x1.shape[d] for d in free1) + tuple(x2.shape[d] for d in free2)
    return _vops.reshape(matmul(left, right), shape)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of the vectors along ``axis``, ``sum(conj(x1) * x2)``, with the other
    dims broadcast (Array API). Complex ``x1`` is conjugated.

    ``axis`` counts in each input's own dims (-1, the default, is the last dim of both); the
    two vectors must have the same length.

    Examples
    --------
    >>> import strided
    >>> strided.vecdot(strided.asarray([1j, 2]), strided.asarray([1j, 1]))
    tensor(3.+0.j, dtype=strided.complex128)
    >>> strided.vecdot(strided.ones((4, 3)), strided.ones(3)).shape
    (4,)
    """
    x1, x2 = _tensor(x1), _tensor(x2)
    for x, argname in ((x1, "x1"), (x2, "x2")):
        if x.ndim == 0:
            raise ValueError(f"vecdot: {argname} is 0-d; it must have at least 1 dim")
    axis = operator.index(axis)
    ax1 = _normalize_axes("vecdot", [axis], x1.ndim, "x1")[0]
    ax2 = _normalize_axes("vecdot", [axis], x2.ndim, "x2")[0]
    if x1.shape[ax1] != x2.shape[ax2]:
        raise ValueError(
            f"vecdot: axis {axis} of x1 (size {x1.shape[ax1]}) must match axis {axis} of x2 "
            f"(size {x2.shape[ax2]}); x1 has shape {x1.shape}, x2 has shape {x2.shape}"
        )
    a = _vops.movedim(x1, ax1, -1)
    b = _vops.movedim(x2, ax2, -1)
    if a.dtype.kind == "c":
        a = _ew.conj(a)
    # a stack of (1, k) @ (k, 1) products, the other dims broadcast by matmul
    return matmul(_vops.expand_dims(a, axis=-2), _vops.expand_dims(b, axis=-1))[..., 0, 0]


def outer(x1, x2, /, *, out=None):
    """The outer product of two vectors: ``out[i, j] = x1[i] * x2[j]`` (an elementwise multiply
    of a column by a row; bool gives ``and``). N-D or 0-d inputs are flattened first, as
    NumPy's ``outer`` does (PyTorch's would raise; NumPy first).

    Examples
    --------
    >>> import strided
    >>> strided.outer(strided.arange(3), strided.arange(2))
    tensor([[0, 0],
            [0, 1],
            [0, 2]])
    """
    x1, x2 = _vops.reshape(_tensor(x1), (-1,)), _vops.reshape(_tensor(x2), (-1,))
    return _ew.multiply(_vops.expand_dims(x1, axis=1), x2, out=out)


def dot(x1, x2, /):
    """The dot product of two vectors of the same length, without conjugation (PyTorch's
    ``dot``; ``vecdot`` conjugates x1). Behind ``Tensor.dot``.
    """
    x1, x2 = _tensor(x1), _tensor(x2)
    _check_ndim("dot", x1, "x1", 1, "a vector")
    _check_ndim("dot", x2, "x2", 1, "a vector")
    return matmul(x1, x2)


# ---------------------------------------------------------------------------------------------
# The singular value decomposition (LAPACK's ?gesdd, in _cpu/lapack.pyx)
# ---------------------------------------------------------------------------------------------


class LinAlgError(ValueError):
    """A matrix that the operation cannot handle: singular for ``solve``/``inv``, not
    positive definite for ``cholesky``, not square, an SVD that does not converge (NumPy's
    ``numpy.linalg.LinAlgError``, also a ValueError)."""


class SVDResult(NamedTuple):
    """What ``svd`` returns: ``x = U @ diag(S) @ Vh`` (as NumPy's ``SVDResult``)."""

    U: object
    S: object
    Vh: object


def _svd(name, x, full_matrices, compute_uv):
    x = _tensor(x)
    try:
        if _dispatch.possible[0] == _dispatch.CPU:
            return _lapack.svd(x, full_matrices, compute_uv, name)
        return _dispatch.call("linalg_svd", x, full_matrices, compute_uv, name)
    except ValueError as e:
        if "did not converge" in str(e) or "at least 2 dims" in str(e):
            raise LinAlgError(str(e)) from None
        raise


def svd(x, /, *, full_matrices=True):
    """The singular value decomposition of each matrix in ``x`` (the last two dims; the
    others are a batch): ``(U, S, Vh)`` with ``x == U @ diag(S) @ Vh`` (Array API, NumPy).

    For an ``(..., m, n)`` input with ``k = min(m, n)``: ``S`` is ``(..., k)``, real and
    descending; ``U`` is ``(..., m, m)`` and ``Vh`` ``(..., n, n)`` with ``full_matrices``, else
    ``(..., m, k)`` and ``(..., k, n)``. The columns of ``U`` and rows of ``Vh`` are orthonormal;
    each pair is unique only up to a common sign (a phase, for complex), so compare products,
    not factors, with other libraries. float32, float64, complex64 and complex128 are computed
    in their own precision (S of complex64 is float32); integer and bool input is cast to the
    default float dtype first, as NumPy does. A matrix holding NaN raises ValueError
    (``svdvals`` gives NaN instead). Computed by LAPACK's ``?gesdd``: see Note [SVD through
    LAPACK's column-major] in ``_cpu/lapack.pyx``.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[3.0, 0.0], [0.0, -4.0], [0.0, 0.0]])
    >>> U, S, Vh = strided.linalg.svd(x)
    >>> S
    tensor([4., 3.])
    >>> U.shape, Vh.shape
    ((3, 3), (2, 2))
    >>> bool(strided.all(strided.abs((U[:, :2] * S) @ Vh - x) < 1e-12))
    True
    >>> strided.linalg.svd(x, full_matrices=False).U.shape
    (3, 2)
    """
    return SVDResult(*_svd("svd", x, full_matrices, True))


def svdvals(x, /):
    """The singular values of each matrix in ``x`` (the last two dims), descending: ``S`` of
    ``svd`` without computing ``U`` and ``Vh`` (Array API ``linalg.svdvals``).

    The result is ``(..., min(m, n))`` and real. A matrix holding NaN gets NaN singular values.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.svdvals(strided.asarray([[3.0, 0.0], [0.0, -4.0]]))
    tensor([4., 3.])
    >>> strided.linalg.svdvals(strided.ones((5, 2, 3), dtype=strided.complex64)).dtype
    strided.float32
    """
    return _svd("svdvals", x, False, False)
