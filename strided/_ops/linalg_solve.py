"""Solving and factorising square and tall matrices through LAPACK: ``solve``, ``inv``, ``det``,
``slogdet``, ``cholesky``, ``eigh``, ``eigvalsh`` and ``qr`` (``strided.linalg``'s names).

Each function checks its arguments, copies its operands into the C-contiguous batches LAPACK
works on (a fresh copy: LAPACK overwrites its input, and the caller's tensor must not change),
runs one LAPACK routine over the batch (``run_batch`` in ``_cpu/lapack.pyx``, Note [A batch of
LAPACK calls]), and reads the results back as views of those buffers. The SVD is in
``_ops/linalg.py``.

Note [Row-major matrices are LAPACK's transposes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
LAPACK reads a matrix column-major: element (i, j) at ``i + j * n``. The bytes of a C-contiguous
(row-major) A, read that way, are A^T. Rather than transposing, each routine is asked the
question whose answer for A^T is the one wanted for A:

- ``det`` and ``slogdet``: the LU factors of A^T; det(A^T) = det(A).
- ``inv``: ``?getrs`` solves A^T Y = I, and Y = inv(A^T) = inv(A)^T, which read row-major is
  inv(A): a C-contiguous result with no transpose.
- ``solve``: A X = B is (A^T)^T X = B, ``?getrs`` with ``trans = 'T'`` (not 'C': no conjugate)
  on the factors of A^T. B must be column-major, so it is copied as B^T row-major, and X comes
  back column-major: the result is ``.mT`` of a contiguous buffer, as PyTorch's is.
- ``cholesky``: for Hermitian A, A^T = conj(A). ``?potrf`` with uplo 'U' factors conj(A) = U^H U,
  and U read row-major is U^T =: L with A = L L^H, the lower factor, row-major, as it lies;
  uplo 'L' gives the upper factor the same way. Only the other triangle is cleared. On a
  CUDA device the copy is column-major and uplo 'L' (Note [Which triangle potrf factors]).
- ``eigh``: A^T = conj(A) has A's eigenvalues and the conjugates of its eigenvectors, which
  LAPACK writes as columns: read row-major they are rows, so the result is ``conj(V.mT)``.
  NumPy's ``UPLO='L'`` (read A's lower triangle) is the upper triangle of A^T: uplo 'U'.
- ``qr`` and ``eig`` need A itself, not A^T: the input is copied column-major (``x.mT``
  copied row-major), and Q, R and the eigenvectors come back column-major too.

Integer and bool inputs are cast to the default float dtype (float64), as NumPy's ``linalg``
does; float32 and complex64 are computed in single precision.
"""

from __future__ import annotations

from typing import NamedTuple

import scipy_openblas32  # noqa: F401  (Note [Finding OpenBLAS at run time] in setup.py)

from strided import _check, _core, _dispatch
from strided._cpu import lapack as _lapack
from strided._dtype import as_dtype, default_float_dtype, result_type
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops import shape as _shape
from strided._ops import views as _vops
from strided._ops.copying import contiguous_copy
from strided._ops.linalg import LinAlgError

__all__ = [
    "EigResult",
    "EighResult",
    "LinAlgError",
    "QRResult",
    "SlogdetResult",
    "cholesky",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "qr",
    "slogdet",
    "solve",
]

_tensor = _check.tensor
_INT32 = as_dtype("int32")


class SlogdetResult(NamedTuple):
    """What ``slogdet`` returns: ``det == sign * exp(logabsdet)``."""

    sign: object
    logabsdet: object


class EigResult(NamedTuple):
    """What ``eig`` returns: the eigenvalues, and the eigenvectors as columns."""

    eigenvalues: object
    eigenvectors: object


class EighResult(NamedTuple):
    """What ``eigh`` returns: ascending real eigenvalues, and the eigenvectors as columns."""

    eigenvalues: object
    eigenvectors: object


class QRResult(NamedTuple):
    """What ``qr`` returns: ``x == Q @ R``."""

    Q: object
    R: object


# -- devices -----------------------------------------------------------------------------------

# Note [Linear algebra on a CUDA device]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The factorisations that use LU, Cholesky, the symmetric eigensolver and QR (det, slogdet,
# inv, solve, cholesky, eigh, eigvalsh, qr) are written once, for every device: their checks,
# copies, pivots' signs, error messages and triangles are strided ops, which run where the
# tensors are, around one LAPACK call per batch, ``_run_batch`` below. That call picks the
# LAPACK of the device:
#
# - on the CPU, OpenBLAS's LAPACK (``strided._cpu.lapack.run_batch``);
# - on the emulator ("cuda-emulated"), the same LAPACK, straight on the emulated device's
#   memory, which is host memory: so the tests on the emulator run every line a GPU runs
#   except the cuSOLVER calls themselves, and give the CPU's results bit for bit;
# - on a GPU, cuSOLVER's routine of the same name through CuPy (Note [cuSOLVER for a batch of
#   LAPACK calls] in strided/cuda/_solver.py), on the device's memory: no copy to the host.
#
# The SVD and the nonsymmetric eigenproblem (svd, svdvals, eig, eigvals, and what is built on
# them) have a kernel for the CPU only; on a CUDA device they copy their arguments to host
# memory, run it, and copy the results back (``on_host``). The compositions (pinv,
# matrix_rank, lstsq, ...) run their other steps (matmul, where, sums) on the device.


def _run_batch(routine, a, b, ipiv, info, m, n, k=0, nrhs=0, c1="N", c2="N"):
    """LAPACK's ``routine`` on each matrix of the batch ``a``, on a's device (Note [Linear
    algebra on a CUDA device]); the arguments are ``strided._cpu.lapack.run_batch``'s."""
    if not a.device.is_cpu:
        from strided.cuda._backend import backend_for

        backend = backend_for(a.device)
        if not backend.emulated:
            from strided.cuda import _solver

            return _solver.batch(backend, routine, a, b, ipiv, info, m, n, k, nrhs, c1, c2)
    _lapack.run_batch(routine, a, b, ipiv, info, m, n, k, nrhs, c1, c2)


def on_host(fn):
    """``fn`` (a function of CPU tensors) for tensors on any device: see Note [Linear algebra
    on a CUDA device]."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        device = next(
            (a.device for a in (*args, *kwargs.values()) if isinstance(a, _core.TensorBase)
             and not a.device.is_cpu),
            None,
        )  # fmt: skip
        if device is None:
            return fn(*args, **kwargs)
        cpu = [a.cpu() if isinstance(a, _core.TensorBase) else a for a in args]
        kw = {k: v.cpu() if isinstance(v, _core.TensorBase) else v for k, v in kwargs.items()}
        return _to_device(fn(*cpu, **kw), device)

    return wrapper


def _to_device(result, device):
    if isinstance(result, _core.TensorBase):
        return result.to(device)
    if isinstance(result, tuple):
        moved = [_to_device(r, device) for r in result]
        return type(result)(*moved) if hasattr(result, "_fields") else tuple(moved)
    return result


def _op(name, kernel, every_device=True):
    """Register ``kernel`` (positional arguments) as the dispatched op ``name``: its CPU
    kernel, and on CUDA devices the same kernel when it runs on ``every_device``, else the
    CPU's through host memory (Note [Linear algebra on a CUDA device]). Through the
    dispatcher autograd records the call, with the op's row of the derivatives table
    (autograd/derivatives.py), or refuses an input that requires grad where the op has none.
    Returns the function that calls it."""
    _dispatch.register(name, "CPU", kernel)
    _dispatch.register(name, "CUDA", kernel if every_device else on_host(kernel))

    def run(*args):
        if _dispatch.possible[0] == _dispatch.CPU:
            return kernel(*args)
        return _dispatch.call(name, *args)

    return run


_dispatch.register("linalg_svd", "CUDA", on_host(_lapack.svd))


# -- checks ------------------------------------------------------------------------------------


def _matrices(name, x, argname="x", square=True):
    """``x`` as a tensor of at least 2 dims (square in its last two when ``square``), and the
    dtype LAPACK computes it in."""
    x = _tensor(x)
    if x.ndim < 2:
        raise LinAlgError(
            f"{name}: {argname} must have at least 2 dims (a matrix, or a stack of matrices in "
            f"the last two dims), got shape {x.shape}"
        )
    if square and x.shape[-1] != x.shape[-2]:
        raise LinAlgError(
            f"{name}: {argname} must be square in its last two dims, got shape {x.shape} "
            f"({x.shape[-2]} x {x.shape[-1]} matrices)"
        )
    return x, _lapack_dtype(x.dtype)


def _lapack_dtype(dtype):
    """The dtype LAPACK computes in: the float and complex dtypes as they are, the rest the
    default float dtype (as NumPy's linalg does)."""
    if dtype.kind in "fc" and dtype.itemsize >= 4:
        return dtype
    if dtype.kind in "biu":
        return default_float_dtype()
    raise TypeError(f"strided.linalg has no LAPACK kernel for {dtype.name}")


def _real(dtype):
    return as_dtype({"complex64": "float32", "complex128": "float64"}.get(dtype.name, dtype.name))


def _batch(x):
    return tuple(x.shape[:-2])


# Note [One wait for a solve]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A singular matrix must raise LinAlgError naming it, and only the host can raise: the check
# reads getrf's infos back, which waits for the device to finish everything queued before it.
# Read between getrf and getrs, as LAPACK's order suggests, that wait comes in the middle of
# the op: on a GPU the host sits idle until the factorisation is done, then queues the copy of
# the right-hand sides and getrs, which the device waits for in turn (two gaps of a few tens of
# microseconds for a batch of small systems). So ``solve`` and ``inv`` *queue* the check first
# (``_singular_check``: which matrices failed, and whether any did, computed from getrf's
# infos), then getrs, and finish the check last: on the CPU at once, after all the work is
# done. A singular matrix's getrs divides by its zero pivot and fills its solution with inf or
# nan, which is thrown away with the error; the others are unharmed.
#
# On a CUDA device even one wait per solve is one too many: it drains the queue, so the host's
# Python for the next op (its checks, copies and launches, tens of microseconds) no longer
# overlaps the device's work, and a loop of solves runs at the host's pace plus the device's
# instead of the slower of the two (DESIGN.md: no host sync inside ops). A singular matrix is
# an error in the *data*, found on the device, like an index out of range: it is reported the
# same way (Note [Errors found on the device are reported at the next synchronisation] in
# strided/cuda/_deferred.py). A batch of up to ``_INFOS_IN_SLOTS`` matrices has its infos
# copied into the device's check slots, as they are (one copy, no kernel: the host finds the
# first positive one); a larger batch, the two results of a check on the device (whether any
# matrix failed, the first that did). The LinAlgError, with the same words, is raised when the
# host next waits for that device (``.cpu()``, ``.item()``, printing,
# ``strided.cuda.synchronize()``); ``STRIDED_CUDA_LAUNCH_BLOCKING=1`` raises it in the op
# itself. The result of a solve with a singular matrix is then there to be read, with inf
# or nan in that matrix's solution, as PyTorch's ``linalg.solve_ex`` leaves it.


def _failures(info):
    """(which matrices' LAPACK info is positive, whether any is) as tensors on info's device,
    queued and not read (Note [One wait for a solve])."""
    bad = _ew.greater(info.reshape(-1), 0)
    return bad, _red.any(bad)


def _first_of(failures):
    """The flat batch index of the first matrix ``_failures`` found failed, or None: reading
    it waits for the device."""
    bad, any_bad = failures
    if not bool(any_bad):
        return None
    return int(_red.argmax(bad))


def _first_failed(info):
    """The flat batch index of the first matrix whose LAPACK info is positive, or None."""
    return _first_of(_failures(info))


def _where(index, batch):
    """Words naming matrix ``index`` (flat) of a batch of shape ``batch``."""
    if not batch:
        return "the matrix"
    import numpy as np

    return f"matrix {tuple(int(i) for i in np.unravel_index(index, batch))} of the batch"


# -- LU: det, slogdet, solve, inv ----------------------------------------------------------------


def _lu(name, x, dtype):
    """The LU factors of A^T for each A of ``x`` (Note [Row-major matrices are LAPACK's
    transposes]): (factors, int32 pivots, info)."""
    n = x.shape[-1]
    lu = contiguous_copy(x, dtype)
    ipiv = _core._empty(_batch(x) + (n,), _INT32, lu.device)
    info = _core._empty(_batch(x), _INT32, lu.device)
    _run_batch("getrf", lu, None, ipiv, info, n, n)
    return lu, ipiv, info


def _perm_sign(ipiv, n, dtype):
    """(-1) to the number of row swaps LAPACK's pivots record, for each matrix."""
    from strided._ops import creation as _creation

    rows = _creation.arange(1, n + 1, dtype=_INT32, device=ipiv.device)
    swaps = _red.sum(_ew.not_equal(ipiv, rows), axis=-1)
    return _ew.subtract(1, _ew.multiply(2, _ew.remainder(swaps, 2))).astype(dtype)


def det(x, /):
    """The determinant of each square matrix in ``x`` (the last two dims; the others are a
    batch), from its LU factorisation (LAPACK's ``?getrf``). A singular matrix gives 0.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.det(strided.asarray([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    >>> strided.linalg.det(strided.eye(3, dtype="float32")[None].repeat(2, axis=0))
    tensor([1., 1.], dtype=strided.float32)
    """
    return _det_op(x)


def _lu_diagonal(name, x):
    """(U's diagonal, the permutation's sign) of the LU factors of each matrix of ``x``:
    det = sign * prod(diagonal)."""
    x, dtype = _matrices(name, x)
    lu, ipiv, _ = _lu(name, x, dtype)
    return _vops.diagonal(lu, 0, -2, -1), _perm_sign(ipiv, x.shape[-1], dtype)


def _det_kernel(x):
    x, dtype = _matrices("det", x)
    if x.device.is_cpu:  # Note [A determinant from its LU factors in one pass] (lapack.pyx)
        lu, ipiv, _ = _lu("det", x, dtype)
        out = _core._empty(_batch(x), dtype, lu.device)
        _lapack.lu_det(lu, ipiv, out)
        return out
    diag, sign = _lu_diagonal("det", x)
    return _ew.multiply(sign, _red.prod(diag, axis=-1))


_det_op = _op("linalg_det", _det_kernel)


def slogdet(x, /):
    """``(sign, logabsdet)`` of the determinant of each square matrix in ``x``: ``det = sign *
    exp(logabsdet)``, without overflow for large matrices. ``sign`` is -1, 0 or 1 (a unit
    complex number for complex input); a singular matrix gives ``(0, -inf)``, as NumPy.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.slogdet(strided.asarray([[1.0, 2.0], [3.0, 4.0]]))
    SlogdetResult(sign=tensor(-1.), logabsdet=tensor(0.69314718))
    >>> strided.linalg.slogdet(strided.zeros((2, 2))).logabsdet
    tensor(-inf)
    """
    return _slogdet_op(x)


def _slogdet_kernel(x):
    diag, perm_sign = _lu_diagonal("slogdet", x)
    mag = _ew.abs(diag)
    zero = _ew.equal(mag, 0)
    with _errstate_quiet():
        unit = _ew.where(zero, 0, _ew.divide(diag, _ew.where(zero, 1, mag)))
        logabs = _red.sum(_ew.log(mag), axis=-1)
    sign = _ew.multiply(perm_sign, _red.prod(unit, axis=-1))
    return SlogdetResult(sign, logabs)


_slogdet_op = _op("linalg_slogdet", _slogdet_kernel)


def _errstate_quiet():
    """A context in which log(0) = -inf says nothing (where strided has such a switch)."""
    import contextlib

    import strided

    errstate = getattr(strided, "errstate", None)
    return errstate(divide="ignore", invalid="ignore") if errstate else contextlib.nullcontext()


def _singular(name, failed, batch, found=""):
    """The LinAlgError for matrix ``failed`` (flat) of the batch, found singular."""
    return LinAlgError(
        f"{name}: {_where(failed, batch)} is singular (its LU factorisation has an exact "
        "zero pivot): it has no inverse; strided.linalg.lstsq or pinv solve such systems in "
        f"the least-squares sense{found}"
    )


_INFOS_IN_SLOTS = 256  # a batch of up to this many: its infos copied whole into check slots


def _singular_check(name, info, batch):
    """Start the check of getrf's ``info`` for a singular matrix, before getrs (which may
    overwrite it); return the function that finishes it, after getrs, and raises LinAlgError
    naming the first singular matrix: at once on the CPU, on a CUDA device when the host next
    waits for it (Note [One wait for a solve])."""
    nbatch = info.numel()
    if info.device.is_cpu or nbatch == 0:
        failures = _failures(info)

        def finish():
            failed = _first_of(failures)
            if failed is not None:
                raise _singular(name, failed, batch)

        return finish
    from strided.cuda._backend import backend_for

    backend = backend_for(info.device)
    found = (
        f" (found on {info.device}; CUDA ops report such errors when the host next waits for "
        "the device: set STRIDED_CUDA_LAUNCH_BLOCKING=1 to have it raised by the op itself)"
    )
    if nbatch <= _INFOS_IN_SLOTS:
        # a small batch's infos themselves, two int32 to a slot: one copy, no kernel

        def report_infos(values):
            import numpy as np

            infos = np.asarray(values, dtype=np.int64).view(np.int32)[:nbatch]
            failed = np.flatnonzero(infos > 0)
            return _singular(name, int(failed[0]), batch, found) if failed.size else None

        slots = backend.checks.reserve((nbatch + 1) // 2, report_infos, fill=0)
        backend.copy_device(slots, info.data_ptr(), info.nbytes)  # info: C-contiguous int32
        return backend.checks.issued
    bad, any_bad = _failures(info)
    first = _red.argmax(bad)

    def report(values):  # [whether any matrix failed, the first that did]
        return _singular(name, values[1], batch, found) if values[0] else None

    def finish():
        slots = backend.checks.reserve(2, report, fill=0)
        backend.copy_device(slots, any_bad.data_ptr(), any_bad.itemsize)  # a bool: low byte
        backend.copy_device(slots + 8, first.data_ptr(), first.itemsize)
        backend.checks.issued()

    return finish


def inv(x, /):
    """The inverse of each square matrix in ``x`` (LAPACK's ``?getrf`` and ``?getrs``). A
    singular matrix raises LinAlgError naming it.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.inv(strided.asarray([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5 , 0.  ],
            [0.  , 0.25]])
    """
    return _inv_op(x)


def _inv_kernel(x):
    x, dtype = _matrices("inv", x)
    n = x.shape[-1]
    lu, ipiv, info = _lu("inv", x, dtype)
    finish_check = _singular_check("inv", info, _batch(x))  # Note [One wait for a solve]
    from strided._ops import creation as _creation

    y = contiguous_copy(
        _vops.broadcast_to(_creation.eye(n, dtype=dtype, device=x.device), _batch(x) + (n, n)),
        dtype,
    )
    # A^T Y = I: Y = inv(A)^T column-major, which is inv(A) row-major (Note [Row-major
    # matrices are LAPACK's transposes])
    _run_batch("getrs", lu, y, ipiv, info, n, n, 0, n, "N")
    finish_check()
    return y


_inv_op = _op("linalg_inv", _inv_kernel)


def solve(x1, x2, /):
    """The solution ``X`` of ``x1 @ X == x2`` for each square matrix of ``x1`` (Array API and
    NumPy 2 semantics): ``x2`` is a vector when it is 1-D, else a stack of matrices whose
    columns are right-hand sides; the batch dims broadcast. A singular matrix raises
    LinAlgError naming it.

    Examples
    --------
    >>> import strided
    >>> a = strided.asarray([[3.0, 1.0], [1.0, 2.0]])
    >>> strided.linalg.solve(a, strided.asarray([9.0, 8.0]))
    tensor([2., 3.])
    >>> strided.linalg.solve(a[None].repeat(4, axis=0), strided.ones((4, 2, 3))).shape
    (4, 2, 3)
    """
    return _solve_op(x1, x2)


def _solve_kernel(x1, x2):
    x1, _ = _matrices("solve", x1, "x1")
    x2 = _tensor(x2)
    if x2.ndim < 1:
        raise LinAlgError("solve: x2 must be a vector or a stack of matrices, got shape ()")
    n = x1.shape[-1]
    vector = x2.ndim == 1
    rows = x2.shape[0] if vector else x2.shape[-2]
    if rows != n:
        raise LinAlgError(
            f"solve: x1 holds {n} x {n} matrices (shape {x1.shape}) but x2 has {rows} rows "
            f"(shape {x2.shape}); x2's {'length' if vector else 'second-to-last dim'} must be {n}"
        )
    dtype = _lapack_dtype(result_type(x1.dtype, x2.dtype))
    if vector:
        batch = _batch(x1)
        k = 1
    else:
        try:
            batch = _vops.broadcast_shapes(_batch(x1), _batch(x2))
        except ValueError as e:
            raise LinAlgError(
                f"solve: the batch dims of x1 {_batch(x1)} and x2 {_batch(x2)} (shapes "
                f"{x1.shape} and {x2.shape}) do not broadcast"
            ) from e
        k = x2.shape[-1]
    a = _vops.broadcast_to(x1, batch + (n, n))
    lu, ipiv, info = _lu("solve", a, dtype)
    finish_check = _singular_check("solve", info, batch)  # Note [One wait for a solve]
    if vector:
        b = contiguous_copy(_vops.broadcast_to(x2, batch + (n,)), dtype).reshape(batch + (1, n))
    else:
        b = contiguous_copy(_vops.matrix_transpose(_vops.broadcast_to(x2, batch + (n, k))), dtype)
    _run_batch("getrs", lu, b, ipiv, info, n, n, 0, k, "T")
    finish_check()
    return b.reshape(batch + (n,)) if vector else _vops.matrix_transpose(b)


_solve_op = _op("linalg_solve", _solve_kernel)


# -- Cholesky --------------------------------------------------------------------------------------


def cholesky(x, /, *, upper=False):
    """The Cholesky factor of each Hermitian positive-definite matrix in ``x``: lower ``L``
    with ``x == L @ L.mH`` (or, with ``upper=True``, upper ``U`` with ``x == U.mH @ U``).
    Only the lower triangle of ``x`` is read (NumPy's convention); a matrix that is not
    positive definite raises LinAlgError naming it. LAPACK's ``?potrf``.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.cholesky(strided.asarray([[4.0, 2.0], [2.0, 5.0]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    return _cholesky_op(x, upper)


# Note [Which triangle potrf factors]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# cholesky reads the lower triangle of x, and there are two ways to hand it to ``?potrf``:
#
# - x copied row-major is x^T to LAPACK, whose *upper* triangle is x's lower one: uplo 'U'
#   factors it as U^H U, and U read row-major is U^T = L, the lower factor, already in place.
# - x copied column-major (``x.mT`` copied row-major) is x itself to LAPACK: uplo 'L' writes L
#   there, column-major, so the buffer read row-major is L^T; the result is ``tril`` of its
#   transpose (and the upper factor U = L^H is ``triu`` of the buffer, conjugated). This is
#   NumPy's route (and PyTorch's), so in float64 its bits are NumPy's.
#
# Both are one copy in and one triangle out; what differs is the library's speed for each
# triangle. OpenBLAS factors the upper triangle faster (float64, 1536 x 1536, one thread on
# an AVX-512 EPYC: 25.4 ms through 'U', 39.2 ms through 'L'; NumPy, through 'L', 62 ms), so
# the CPU takes the first route; cuSOLVER factors the lower one faster (one 2048 x 2048 float32
# ``spotrf`` on an H200: 'U' 1846 us, 'L' 681 us; the whole cholesky took PyTorch, through 'L',
# 0.84 ms, CuPy and this module, through 'U', 1.87 and 2.30 ms), so a CUDA device takes the
# second.
def _cholesky_kernel(x, upper=False):
    x, dtype = _matrices("cholesky", x)
    n = x.shape[-1]
    lower_triangle = not x.device.is_cpu  # Note [Which triangle potrf factors]
    if lower_triangle:
        a = contiguous_copy(_vops.matrix_transpose(x), dtype)
    else:
        a = contiguous_copy(x, dtype)
        if upper:  # mirror the lower triangle, to factor from the other side
            a = contiguous_copy(_vops.matrix_transpose(_ew.conj(a)), dtype)
    info = _core._empty(_batch(x), _INT32, a.device)
    _run_batch("potrf", a, None, None, info, n, n, 0, 0, "L" if upper or lower_triangle else "U")
    failed = _first_failed(info)
    if failed is not None:
        raise LinAlgError(
            f"cholesky: {_where(failed, _batch(x))} is not positive definite (its leading "
            f"minor of order {int(info.reshape(-1)[failed])} is not positive)"
        )
    if not lower_triangle:
        return _shape.triu(a) if upper else _shape.tril(a)
    if upper:
        u = _shape.triu(a)
        return _ew.conj(u) if u.dtype.kind == "c" else u
    return _shape.tril(_vops.matrix_transpose(a))


_cholesky_op = _op("linalg_cholesky", _cholesky_kernel)


# -- symmetric / Hermitian eigenproblems ----------------------------------------------------------


def _eigh(name, x, UPLO, vectors):
    if UPLO not in ("L", "U"):
        raise ValueError(f"{name}: UPLO must be 'L' or 'U', got {UPLO!r}")
    x, dtype = _matrices(name, x)
    n = x.shape[-1]
    a = contiguous_copy(x, dtype)
    w = _core._empty(_batch(x) + (n,), _real(dtype), a.device)
    info = _core._empty(_batch(x), _INT32, a.device)
    uplo = "U" if UPLO == "L" else "L"  # Note [Row-major matrices are LAPACK's transposes]
    _run_batch("heevd", a, w, None, info, n, n, 0, 0, "V" if vectors else "N", uplo)
    failed = _first_failed(info)
    if failed is not None:
        raise LinAlgError(
            f"{name}: the eigenvalues of {_where(failed, _batch(x))} did not converge"
        )
    if not vectors:
        return w
    v = _vops.matrix_transpose(a)
    return EighResult(w, _ew.conj(v) if dtype.kind == "c" else v)


def eigh(x, /, UPLO="L"):
    """Eigenvalues (real, ascending) and eigenvectors (the columns of the second result) of
    each symmetric or Hermitian matrix in ``x``, reading its lower triangle (``UPLO='L'``,
    NumPy's default) or upper. LAPACK's ``?syevd``/``?heevd``. Each eigenvector is unique only
    up to sign (a phase, for complex), and only up to the eigenspace for a repeated
    eigenvalue: compare ``V @ diag(w) @ V.mH`` with ``x``, not the vectors.

    Examples
    --------
    >>> import strided
    >>> a = strided.asarray([[2.0, 1.0], [1.0, 2.0]])
    >>> w, v = strided.linalg.eigh(a)
    >>> w
    tensor([1., 3.])
    >>> bool(strided.all(strided.abs(v @ strided.diag(w) @ v.T - a) < 1e-12))
    True
    """
    return _eigh_op(x, UPLO)


def _eigh_kernel(x, UPLO="L"):
    return _eigh("eigh", x, UPLO, True)


_eigh_op = _op("linalg_eigh", _eigh_kernel)


def eigvalsh(x, /, UPLO="L"):
    """The eigenvalues of each symmetric or Hermitian matrix in ``x``, real and ascending
    (``eigh`` without the vectors).

    Examples
    --------
    >>> import strided
    >>> strided.linalg.eigvalsh(strided.asarray([[2.0, 1.0], [1.0, 2.0]]))
    tensor([1., 3.])
    """
    return _eigvalsh_op(x, UPLO)


def _eigvalsh_kernel(x, UPLO="L"):
    return _eigh("eigvalsh", x, UPLO, False)


_eigvalsh_op = _op("linalg_eigvalsh", _eigvalsh_kernel)


# -- QR --------------------------------------------------------------------------------------------


def qr(x, /, mode="reduced"):
    """The QR decomposition of each matrix in ``x``: ``x == Q @ R`` with ``Q``'s columns
    orthonormal and ``R`` upper triangular. For ``(..., m, n)`` input and ``k = min(m, n)``:
    ``mode='reduced'`` gives ``Q`` ``(..., m, k)`` and ``R`` ``(..., k, n)``; ``'complete'``
    gives ``(..., m, m)`` and ``(..., m, n)``; ``'r'`` gives ``R`` alone. LAPACK's ``?geqrf``
    and ``?orgqr``/``?ungqr``.

    Examples
    --------
    >>> import strided
    >>> q, r = strided.linalg.qr(strided.asarray([[3.0, 1.0], [4.0, 2.0], [0.0, 0.0]]))
    >>> q.shape, r.shape
    ((3, 2), (2, 2))
    >>> r
    tensor([[-5. , -2.2],
            [ 0. ,  0.4]])
    """
    return _qr_op(x, mode)


def _qr_kernel(x, mode="reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(
            f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r} (NumPy's 'raw' "
            "returns LAPACK's reflectors, which strided does not expose)"
        )
    x, dtype = _matrices("qr", x, square=False)
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = _batch(x)
    a = contiguous_copy(_vops.matrix_transpose(x), dtype)  # x column-major: (..., n, m)
    tau = _core._empty(batch + (k,), dtype, a.device)
    info = _core._empty(batch, _INT32, a.device)
    _run_batch("geqrf", a, tau, None, info, m, n)
    full = _vops.matrix_transpose(a)  # (..., m, n): R above the diagonal, reflectors below
    r = _shape.triu(full if mode == "complete" else full[..., :k, :])
    if mode == "r":
        return r
    cols = m if mode == "complete" else k
    q = _core._empty(batch + (cols, m), dtype, a.device)  # Q column-major: (..., cols, m)
    q[..., :k, :] = a[..., :k, :]
    if cols > k:
        q[..., k:, :] = 0
    _run_batch("orgqr", q, tau, None, info, m, cols, k)
    return QRResult(_vops.matrix_transpose(q), r)


_qr_op = _op("linalg_qr", _qr_kernel)


# -- general eigenproblems -------------------------------------------------------------------


def _complex_of(dtype):
    return as_dtype("complex64" if dtype.name in ("float32", "complex64") else "complex128")


def _eig(name, x, vectors):
    x, result_dtype = _matrices(name, x)
    # single precision is computed in double, as NumPy computes all of its linalg: whether a
    # real matrix's eigenvalues are all real (and so the result's dtype) then agrees with
    # NumPy's for nearly-defective matrices, where float32 rounding makes a tiny complex pair
    dtype = as_dtype(
        {"float32": "float64", "complex64": "complex128"}.get(result_dtype.name, result_dtype.name)
    )
    n = x.shape[-1]
    batch = _batch(x)
    a = contiguous_copy(_vops.matrix_transpose(x), dtype)  # x column-major
    info = _core._empty(batch, _INT32, a.device)
    v = _core._empty(batch + (n, n), dtype, a.device) if vectors else None
    job = "V" if vectors else "N"
    if dtype.kind == "c":
        w = _core._empty(batch + (n,), dtype, a.device)
        _lapack.run_batch("geev", a, w, None, info, n, n, 0, 0, job, "N", None, v)
        wi = None
    else:
        w = _core._empty(batch + (n,), dtype, a.device)
        wi = _core._empty(batch + (n,), dtype, a.device)
        _lapack.run_batch("geev", a, w, None, info, n, n, 0, 0, job, "N", wi, v)
    failed = _first_failed(info)
    if failed is not None:
        raise LinAlgError(f"{name}: the eigenvalues of {_where(failed, batch)} did not converge")
    vm = _vops.matrix_transpose(v) if vectors else None  # columns are the eigenvectors
    if wi is not None and bool(_red.any(_ew.not_equal(wi, 0))):
        # Note [Real matrices with complex eigenvalues]: LAPACK returns a conjugate pair
        # (wi[j] > 0, wi[j+1] < 0) as real columns j and j+1 holding the real and imaginary
        # parts of the first vector; the second is its conjugate. NumPy then returns complex
        # results for the whole call, and real ones when every eigenvalue is real.
        cdt = _complex_of(dtype)
        w = _ew.add(w.astype(cdt), _ew.multiply(wi.astype(cdt), 1j))
        if vectors:
            first = _vops.expand_dims(_ew.greater(wi, 0), -2)
            second = _vops.expand_dims(_ew.less(wi, 0), -2)
            nxt = _shape.roll(vm, -1, axis=-1)
            prev = _shape.roll(vm, 1, axis=-1)
            vc = vm.astype(cdt)
            vm = _ew.where(
                first,
                _ew.add(vc, _ew.multiply(nxt.astype(cdt), 1j)),
                _ew.where(second, _ew.subtract(prev.astype(cdt), _ew.multiply(vc, 1j)), vc),
            )
    if result_dtype != dtype:
        single = _complex_of(result_dtype) if w.dtype.kind == "c" else result_dtype
        w = w.astype(single)
        vm = vm.astype(single) if vectors else None
    return EigResult(w, vm) if vectors else w


def eig(x, /):
    """Eigenvalues and right eigenvectors (the columns of the second result) of each square
    matrix in ``x``: ``x @ v[..., :, j] == w[..., j] * v[..., :, j]``. LAPACK's ``?geev``.
    As NumPy does, a real input gives real results when every eigenvalue in the call is real,
    else complex ones (the Array API asks for complex results always: NumPy's answer wins,
    DESIGN.md's NumPy-first rule); each eigenvector has unit norm, its largest component real.

    Examples
    --------
    >>> import strided
    >>> w, v = strided.linalg.eig(strided.asarray([[2.0, 0.0], [0.0, 3.0]]))
    >>> w
    tensor([2., 3.])
    >>> strided.linalg.eig(strided.asarray([[0.0, -1.0], [1.0, 0.0]])).eigenvalues
    tensor([0.+1.j, 0.-1.j], dtype=strided.complex128)
    """
    return _eig_op(x)


def _eig_kernel(x):
    return _eig("eig", x, True)


_eig_op = _op("linalg_eig", _eig_kernel, every_device=False)


def eigvals(x, /):
    """The eigenvalues of each square matrix in ``x`` (``eig`` without the vectors).

    Examples
    --------
    >>> import strided
    >>> strided.linalg.eigvals(strided.asarray([[1.0, 2.0], [0.0, 3.0]]))
    tensor([1., 3.])
    """
    return _eigvals_op(x)


def _eigvals_kernel(x):
    return _eig("eigvals", x, False)


_eigvals_op = _op("linalg_eigvals", _eigvals_kernel, every_device=False)
