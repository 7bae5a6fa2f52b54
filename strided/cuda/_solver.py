"""LAPACK's routines on a GPU: cuSOLVER through CuPy's binding of its C functions.

Note [cuSOLVER for a batch of LAPACK calls]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The factorisations in ``strided/_ops/linalg_solve.py`` are written once, for every device: the
checks, the copies into LAPACK's column-major layout, the pivots' sign, the error that names
the first singular matrix of a batch, the triangles cut out of the factors are all strided ops,
which run wherever the tensors are. Only the LAPACK call in the middle is device-specific, and
it goes through ``run_batch`` there (Note [Linear algebra on a CUDA device]), with the CPU's
arguments: a C-contiguous batch of column-major matrices, a batch of right-hand sides (or
eigenvalues, or tau), int32 pivots and one int32 ``info`` per matrix. On a GPU, ``batch``
below runs the same routine from cuSOLVER's dense API on each matrix, with the same arguments:

=========  ===============================  =======================================
LAPACK     cuSOLVER (s, d, c, z)            what linalg_solve.py uses it for
=========  ===============================  =======================================
?getrf     cusolverDn<t>getrf               det, slogdet, inv, solve (LU)
?getrs     cusolverDn<t>getrs               inv, solve
?potrf     cusolverDnXpotrf (64-bit API)    cholesky
?syevd     cusolverDn<t>syevd / heevd       eigh, eigvalsh
?geqrf     cusolverDn<t>geqrf               qr
?orgqr     cusolverDn<t>orgqr / ungqr       qr's Q
=========  ===============================  =======================================

cuSOLVER's dense routines take LAPACK's arguments (column-major, leading dimensions, 1-based
pivots, ``info`` > 0 for a singular or indefinite matrix or an eigensolver that did not
converge), so the pivots' sign and the error messages need nothing new. The differences: the
workspace is device memory sized by a ``_bufferSize`` query (one per batch: every matrix has
the same shape), ``info`` is written to device memory (linalg_solve.py checks it with strided
reductions: solve and inv put the result into the device's check slots, reported when the
host next waits, Note [One wait for a solve]; the others read it back, which waits), and the
calls are queued on CuPy's current stream, strided's stream for every other kernel, so they
run in order with the copies around them.

One call per matrix is what CuPy does for most of these too. For a batch of many small
matrices the calls cost more than the work: on an H200, solve of 64 systems of 128 x 128
(float32) took 14.9 ms, 64 getrf and 64 getrs calls, where CuPy's 0.39 ms is cuBLAS's
batched LU. So LU (getrf, and getrs on its factors: det, slogdet, inv, solve) of more than
one square matrix of at most ``BATCHED_N`` rows goes to cuBLAS's ``<t>getrfBatched`` and
``<t>getrsBatched``: one call for the whole batch, with LAPACK's arguments again (1-based
pivots in n ints per matrix, one device ``info`` per matrix for getrf, > 0 for a singular
factor), plus what a batched routine needs: a device array of the matrices' addresses
(``_addresses``: start, start + step, ..., made by one small kernel, as CuPy makes them, and
kept: Note [A batched LU's arrays of addresses]), and for getrs a *host* ``info`` that reports
only an invalid argument (each matrix's info is left as getrf wrote it, where LAPACK's getrs
would write 0: nobody reads it). Past ``BATCHED_N`` rows a matrix's O(n^3) work dominates
and cuSOLVER's blocked getrf is the faster one. Cholesky and the eigensolver have batched
routines too (cuSOLVER's potrfBatched and syevjBatched: the next step, after measurements on
a GPU).

The SVD and the nonsymmetric eigenproblem (``?gesdd``, ``?geev``) are not here: they run on
the CPU through host memory on every CUDA device (``on_host`` in linalg_solve.py).
"""

from __future__ import annotations

__all__ = ["batch"]

_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}
BATCHED_N = 256  # LU of a batch of matrices up to this size: cuBLAS's batched routines


# Note [A batched LU's arrays of addresses]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# cuBLAS's batched routines read the matrices' addresses from a device array, and a solve
# needs three of them (the factors for getrf and again for getrs, the right-hand sides for
# getrs): each one a small kernel (a launch, ~5-10 us of host time on an H200) before the cuBLAS
# call. The array of ``start + i * step`` depends on (start, step, count) alone, never on what
# lies at those addresses, so it is kept under that key and made once: getrs finds getrf's,
# and a loop of solves, whose tensors CuPy's memory pool hands back at the same addresses, finds
# all of them. The kept arrays are a few bytes a matrix; past ``_ADDRESSES_KEPT`` keys the
# table starts again.
_ADDRESSES_KEPT = 64
_addresses_made = {}  # (device index, start, step, count) -> the device array


def _addresses(backend, start, step, count):
    """A device array of the ``count`` addresses ``start + i * step``: the array of matrices a
    batched cuBLAS routine reads (Note [A batched LU's arrays of addresses])."""
    key = (backend.index, start, step, count)
    made = _addresses_made.get(key)
    if made is None:
        if len(_addresses_made) >= _ADDRESSES_KEPT:
            _addresses_made.clear()
        cupy = backend.cupy
        made = cupy.arange(start, start + step * count, step, dtype=cupy.uintp)
        _addresses_made[key] = made
    return made


def _lu_batched(backend, routine, t, pa, a_step, pb, b_step, pp, pi, info, n, nrhs, op):
    """getrf or getrs of every matrix at once through cuBLAS's batched routines (Note
    [cuSOLVER for a batch of LAPACK calls]); the arguments are ``batch``'s, resolved."""
    import numpy as np
    from cupy_backends.cuda.libs import cublas

    nbatch = info.numel()
    handle = backend.cupy.cuda.device.get_cublas_handle()
    cublas.setStream(handle, backend._stream())
    matrices = _addresses(backend, pa, a_step, nbatch)
    if routine == "getrf":
        getattr(cublas, t + "getrfBatched")(handle, n, matrices.data.ptr, n, pp, pi, nbatch)
        return
    rhs = _addresses(backend, pb, b_step, nbatch)
    status = np.zeros(1, np.int32)  # host memory: written before the call returns
    getattr(cublas, t + "getrsBatched")(handle, op, n, nrhs, matrices.data.ptr, n, pp,
                                        rhs.data.ptr, n, status.ctypes.data, nbatch)  # fmt: skip
    if status[0] < 0:
        raise RuntimeError(f"cublas{t.upper()}getrsBatched: argument {-status[0]} is invalid")
    # no per-matrix info to write: getrs's is LAPACK's 0 for valid arguments, and the callers
    # have queued their check of getrf's info before getrs (Note [One wait for a solve] in
    # linalg_solve.py), so ``info`` keeps what getrf wrote rather than pay a memset for a 0


# Note [cuSOLVER's 64-bit API for Cholesky]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# cuSOLVER has two dense APIs: the legacy one, a function per type (``cusolverDnSpotrf``), and
# the "64-bit" one, a function per routine whose types are arguments (``cusolverDnXpotrf``:
# the matrix's cudaDataType and the compute type, 64-bit sizes, a device and a host workspace,
# a ``cusolverDnParams_t`` of options). Same arguments otherwise, same factor (both are
# LAPACK's blocked right-looking algorithm; the rounding may differ in the last bits, as two
# BLAS builds' do). On an H200, Cholesky of one 2048 x 2048 float32 matrix took 1.9-2.2 ms
# through the legacy ``spotrf`` (CuPy's too) and 0.81 ms in PyTorch, which calls Xpotrf.
# CuPy's binding has no Xpotrf, so it is called here through ctypes, from the libcusolver CuPy
# has loaded (found in the process's memory map: the same library, no second copy); where it
# cannot be found, the legacy routine runs.
_CUDA_TYPES = {"float32": 0, "float64": 1, "complex64": 4, "complex128": 5}  # cudaDataType
_x_lib = []  # [the ctypes library, or None]: looked up once


def _x_api():
    """libcusolver through ctypes with Xpotrf's signatures, or None where it is not found."""
    if _x_lib:
        return _x_lib[0]
    import ctypes

    lib = None
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "libcusolver.so" in line}
        for path in sorted(paths):
            lib = ctypes.CDLL(path)
            p, i64, i32, sz = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_size_t
            lib.cusolverDnXpotrf_bufferSize.argtypes = [
                p, p, i32, i64, i32, p, i64, i32, ctypes.POINTER(sz), ctypes.POINTER(sz)
            ]  # fmt: skip
            lib.cusolverDnXpotrf.argtypes = [p, p, i32, i64, i32, p, i64, i32, p, sz, p, sz, p]
            break
    except (OSError, AttributeError):
        lib = None
    _x_lib.append(lib)
    return lib


def _xpotrf(cupy, cusolver, handle, dtype, uplo, n, pa, a_step, lda, pi, nbatch):
    """potrf of each matrix through cusolverDnXpotrf (Note [cuSOLVER's 64-bit API for
    Cholesky]); the arguments are ``batch``'s, resolved."""
    import ctypes

    import numpy as np

    lib, t = _x_api(), _CUDA_TYPES[dtype]
    params = cusolver.createParams()
    try:
        dev_bytes, host_bytes = ctypes.c_size_t(), ctypes.c_size_t()
        status = lib.cusolverDnXpotrf_bufferSize(
            handle, params, uplo, n, t, pa, lda, t, ctypes.byref(dev_bytes),
            ctypes.byref(host_bytes),
        )  # fmt: skip
        if status:
            raise RuntimeError(f"cusolverDnXpotrf_bufferSize failed with status {status}")
        work = cupy.empty(max(dev_bytes.value, 1), dtype=cupy.uint8)
        host = np.empty(max(host_bytes.value, 1), np.uint8)
        for i in range(nbatch):
            status = lib.cusolverDnXpotrf(
                handle, params, uplo, n, t, pa + i * a_step, lda, t, work.data.ptr,
                dev_bytes.value, host.ctypes.data, host_bytes.value, pi + i * 4,
            )  # fmt: skip
            if status:
                raise RuntimeError(f"cusolverDnXpotrf failed with status {status}")
    finally:
        cusolver.destroyParams(params)


def batch(backend, routine, a, b, ipiv, info, m, n, k=0, nrhs=0, c1="N", c2="N"):
    """cuSOLVER's ``routine`` on each matrix of the batch ``a`` on a GPU, with the arguments of
    ``strided._cpu.lapack.run_batch`` (see Note [cuSOLVER for a batch of LAPACK calls])."""
    from cupy_backends.cuda.libs import cublas, cusolver

    cupy = backend.cupy
    nbatch = info.numel()
    if nbatch == 0:
        return
    work_size = {"getrf": m * n, "geqrf": m * n, "orgqr": m * n, "getrs": n * nrhs}
    if work_size.get(routine, n) == 0:
        # Empty matrices: LAPACK returns at once with info 0, but cuSOLVER launches a kernel of
        # no blocks, which fails ("invalid argument": geqrf of a 0x12 matrix, found by
        # compute-sanitizer on a GPU); LAPACK's quick return instead
        backend.memset(info.data_ptr(), 0, info.nbytes)
        return
    t = _PREFIX[a.dtype.name]
    real = t in "sd"
    lda, ldb = max(m, 1), max(n, 1)
    a_step = a.numel() // nbatch * a.itemsize  # bytes from one matrix to the next
    b_step = b.numel() // nbatch * b.itemsize if b is not None else 0
    pa = a.data_ptr()
    pb = b.data_ptr() if b is not None else 0
    pp = ipiv.data_ptr() if ipiv is not None else 0
    pi = info.data_ptr()
    if routine in ("getrf", "getrs") and m == n <= BATCHED_N and nbatch > 1:
        op = {"N": cublas.CUBLAS_OP_N, "T": cublas.CUBLAS_OP_T, "C": cublas.CUBLAS_OP_C}[c1]
        with backend._on_device():
            _lu_batched(backend, routine, t, pa, a_step, pb, b_step, pp, pi, info, n, nrhs, op)
        return
    fill = {"L": cublas.CUBLAS_FILL_MODE_LOWER, "U": cublas.CUBLAS_FILL_MODE_UPPER}
    with cupy.cuda.Device(backend.index):
        handle = cupy.cuda.device.get_cusolver_handle()
        cusolver.setStream(handle, backend._stream())

        def workspace(size):
            return cupy.empty(max(int(size), 1), dtype=a.dtype.name)

        if routine == "getrf":
            work = workspace(getattr(cusolver, t + "getrf_bufferSize")(handle, m, n, pa, lda))
            getrf = getattr(cusolver, t + "getrf")
            for i in range(nbatch):
                getrf(handle, m, n, pa + i * a_step, lda, work.data.ptr, pp + i * 4 * n,
                      pi + i * 4)  # fmt: skip
        elif routine == "getrs":
            op = {"N": cublas.CUBLAS_OP_N, "T": cublas.CUBLAS_OP_T, "C": cublas.CUBLAS_OP_C}[c1]
            getrs = getattr(cusolver, t + "getrs")
            for i in range(nbatch):
                getrs(handle, op, n, nrhs, pa + i * a_step, lda, pp + i * 4 * n,
                      pb + i * b_step, ldb, pi + i * 4)  # fmt: skip
        elif routine == "potrf" and _x_api() is not None:
            _xpotrf(cupy, cusolver, handle, a.dtype.name, fill[c1], n, pa, a_step, lda, pi, nbatch)
        elif routine == "potrf":
            size = getattr(cusolver, t + "potrf_bufferSize")(handle, fill[c1], n, pa, lda)
            work = workspace(size)
            potrf = getattr(cusolver, t + "potrf")
            for i in range(nbatch):
                potrf(handle, fill[c1], n, pa + i * a_step, lda, work.data.ptr, size,
                      pi + i * 4)  # fmt: skip
        elif routine == "heevd":
            name = t + ("syevd" if real else "heevd")
            jobz = (
                cusolver.CUSOLVER_EIG_MODE_VECTOR
                if c1 == "V"
                else cusolver.CUSOLVER_EIG_MODE_NOVECTOR
            )
            size = getattr(cusolver, name + "_bufferSize")(handle, jobz, fill[c2], n, pa, lda, pb)
            work = workspace(size)
            evd = getattr(cusolver, name)
            for i in range(nbatch):
                evd(handle, jobz, fill[c2], n, pa + i * a_step, lda, pb + i * b_step,
                    work.data.ptr, size, pi + i * 4)  # fmt: skip
        elif routine == "geqrf":
            size = getattr(cusolver, t + "geqrf_bufferSize")(handle, m, n, pa, lda)
            work = workspace(size)
            geqrf = getattr(cusolver, t + "geqrf")
            for i in range(nbatch):
                geqrf(handle, m, n, pa + i * a_step, lda, pb + i * b_step, work.data.ptr, size,
                      pi + i * 4)  # fmt: skip
        elif routine == "orgqr":
            name = t + ("orgqr" if real else "ungqr")
            size = getattr(cusolver, name + "_bufferSize")(handle, m, n, k, pa, lda, pb)
            work = workspace(size)
            orgqr = getattr(cusolver, name)
            for i in range(nbatch):
                orgqr(handle, m, n, k, pa + i * a_step, lda, pb + i * b_step, work.data.ptr,
                      size, pi + i * 4)  # fmt: skip
        else:
            raise NotImplementedError(
                f"{routine}: no cuSOLVER call for this LAPACK routine; linalg_solve.py runs it "
                "on the CPU through host memory (on_host)"
            )
