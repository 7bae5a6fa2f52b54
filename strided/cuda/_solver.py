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
?potrf     cusolverDn<t>potrf               cholesky
?syevd     cusolverDn<t>syevd / heevd       eigh, eigvalsh
?geqrf     cusolverDn<t>geqrf               qr
?orgqr     cusolverDn<t>orgqr / ungqr       qr's Q
=========  ===============================  =======================================

cuSOLVER's dense routines take LAPACK's arguments (column-major, leading dimensions, 1-based
pivots, ``info`` > 0 for a singular or indefinite matrix or an eigensolver that did not
converge), so the pivots' sign and the error messages need nothing new. The differences: the
workspace is device memory sized by a ``_bufferSize`` query (one per batch: every matrix has
the same shape), ``info`` is written to device memory (the code above reads it with a strided
reduction, which waits for the device), and the calls are queued on CuPy's current stream,
strided's stream for every other kernel, so they run in order with the copies around them.

One call per matrix is what CuPy does for most of these too. For a batch of many small
matrices the calls cost more than the work: on an H200, solve of 64 systems of 128 x 128
(float32) took 14.9 ms, 64 getrf and 64 getrs calls, where CuPy's 0.39 ms is cuBLAS's
batched LU. So LU (getrf, and getrs on its factors: det, slogdet, inv, solve) of more than
one square matrix of at most ``BATCHED_N`` rows goes to cuBLAS's ``<t>getrfBatched`` and
``<t>getrsBatched``: one call for the whole batch, with LAPACK's arguments again (1-based
pivots in n ints per matrix, one device ``info`` per matrix for getrf, > 0 for a singular
factor), plus what a batched routine needs: a device array of the matrices' addresses
(``_addresses``: start, start + step, ..., made by one small kernel, as CuPy makes them),
and for getrs a *host* ``info`` that reports only an invalid argument (each matrix's info is
then LAPACK's 0). Past ``BATCHED_N`` rows a matrix's O(n^3) work dominates and cuSOLVER's
blocked getrf is the faster one. Cholesky and the eigensolver have batched routines too
(cuSOLVER's potrfBatched and syevjBatched: the next step, after measurements on a GPU).

The SVD and the nonsymmetric eigenproblem (``?gesdd``, ``?geev``) are not here: they run on
the CPU through host memory on every CUDA device (``on_host`` in linalg_solve.py).
"""

from __future__ import annotations

__all__ = ["batch"]

_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}
BATCHED_N = 256  # LU of a batch of matrices up to this size: cuBLAS's batched routines


def _addresses(cupy, start, step, count):
    """A device array of the ``count`` addresses ``start + i * step``: the array of matrices a
    batched cuBLAS routine reads (the caller keeps it alive until the call is queued)."""
    return cupy.arange(start, start + step * count, step, dtype=cupy.uintp)


def _lu_batched(backend, routine, t, pa, a_step, pb, b_step, pp, pi, info, n, nrhs, op):
    """getrf or getrs of every matrix at once through cuBLAS's batched routines (Note
    [cuSOLVER for a batch of LAPACK calls]); the arguments are ``batch``'s, resolved."""
    import numpy as np
    from cupy_backends.cuda.libs import cublas

    cupy = backend.cupy
    nbatch = info.numel()
    handle = cupy.cuda.device.get_cublas_handle()
    cublas.setStream(handle, backend._stream())
    matrices = _addresses(cupy, pa, a_step, nbatch)
    if routine == "getrf":
        getattr(cublas, t + "getrfBatched")(handle, n, matrices.data.ptr, n, pp, pi, nbatch)
        return
    rhs = _addresses(cupy, pb, b_step, nbatch)
    status = np.zeros(1, np.int32)  # host memory: written before the call returns
    getattr(cublas, t + "getrsBatched")(handle, op, n, nrhs, matrices.data.ptr, n, pp,
                                        rhs.data.ptr, n, status.ctypes.data, nbatch)  # fmt: skip
    if status[0] < 0:
        raise RuntimeError(f"cublas{t.upper()}getrsBatched: argument {-status[0]} is invalid")
    backend.memset(pi, 0, info.nbytes)  # LAPACK's getrs: info 0 for every matrix


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
        with cupy.cuda.Device(backend.index):
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
