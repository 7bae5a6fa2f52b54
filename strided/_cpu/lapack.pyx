"""Matrix factorisations through LAPACK: the singular value decomposition (``?gesdd``), and
LU, Cholesky, symmetric eigen and QR (``run_batch``, Note [A batch of LAPACK calls]).

``svd`` here is the CPU kernel behind ``strided.linalg.svd`` and ``strided.linalg.svdvals``
(and so behind ``matrix_norm`` of orders ``"nuc"``, 2 and -2). LAPACK comes from the same
library as BLAS (the ``scipy-openblas32`` wheel, every symbol prefixed ``scipy_``: see Note
[Finding OpenBLAS at run time] in setup.py), called through LAPACKE's ``_work`` functions, which
take C arguments (no Fortran hidden string lengths) and, in column-major order, go straight to
the Fortran routine without copying or allocating anything.

Note [SVD through LAPACK's column-major]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
LAPACK stores matrices column-major: element (i, j) at ``i + j * ld``. The same bytes read
row-major are the *transpose*. So a row-major (C-contiguous) m x n matrix A is, to LAPACK, the
n x m matrix B = A^T, and its SVD B = U_B S V_B^H gives A's by transposing (no conjugation):

    A = B^T = conj(V_B) S U_B^T,   so   U_A = (V_B^H)^T = VT_B^T   and   Vh_A = U_B^T.

Each of LAPACK's outputs (U_B and VT_B, column-major) read row-major *is* that transpose: we let
LAPACK write VT_B straight into the buffer of our U, and U_B into that of our Vh, and both come
out C-contiguous. Nothing is transposed, nothing conjugated, and S is the same.

``?gesdd`` overwrites its input, so the input is always copied into a work buffer (a fresh
copy, also when it is already contiguous: the caller's tensor must not change). Since we copy
anyway, we copy into whichever layout is cheaper to copy into: a batch of column-major matrices
(``x.mT`` of a contiguous batch: strides (..., 1, m)) is copied as it lies, a plain memory copy,
and given to LAPACK as A itself; U and Vh then come back column-major, returned as ``.mT``
views of contiguous buffers (as PyTorch's ``linalg.svd`` returns U). Every other layout
(row-major, stepped, negative strides, expanded, ...) is copied row-major and takes the
transposed route above. Either way LAPACK sees leading dimensions equal to its row counts.

Note [SVD edge cases]
~~~~~~~~~~~~~~~~~~~~~
- Integer and bool input is first cast to the default float dtype (float64 unless changed), as
  NumPy's ``linalg`` does; S is real (float32 for complex64).
- A matrix with a zero dim has no singular values (k = min(m, n) = 0). LAPACK is not called;
  with ``full_matrices`` the one non-empty factor is the identity, as in NumPy.
- NaN in the input: LAPACK refuses it (``info = -4``, -5 through LAPACKE); a matrix whose
  iteration does not converge gets ``info > 0``. ``svdvals`` (``compute_uv=False``) then gives
  NaN singular values for that matrix, and ``svd`` raises ValueError naming the matrix, as
  NumPy does (its LinAlgError is a ValueError; its ``svdvals`` gives NaN).
- One matrix after another, each by LAPACK, which threads its BLAS calls through OpenBLAS's
  pool (Note [Threads: ours and OpenBLAS's] in blas.pyx); the batch is not split across
  threads.
"""

cimport openmp
from cython.parallel cimport prange
from libc.limits cimport INT_MAX
from libc.math cimport NAN
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from strided._core cimport MAX_DIMS, TensorBase, cpu_device, empty_tensor, make_view
from strided._fused cimport real_t
from strided._threads cimport num_threads
from strided._dtype cimport (
    DType,
    default_float_dtype,
    dtype_from_num,
    kComplex64,
    kFloat32,
    kFloat64,
)
from strided._cpu.small_lapack cimport (  # Note [Small matrices without LAPACK] there
    SMALL_DECLINED,
    SMALL_EIGH_N,
    SMALL_EIGVALSH_N,
    SMALL_N,
    SMALL_SVD_N,
    small_geqrf,
    small_gesvd,
    small_getrf,
    small_getrs,
    small_orgqr,
    small_potrf,
    small_syev,
)

from strided._cpu.copy import contiguous_copy


cdef extern from "lapacke.h" nogil:
    ctypedef int lapack_int
    int LAPACK_COL_MAJOR
    # The complex routines take lapack_complex_float/double pointers: void* converts to them.
    lapack_int scipy_LAPACKE_sgesdd_work(int layout, char jobz, lapack_int m, lapack_int n,
                                         float* a, lapack_int lda, float* s, float* u,
                                         lapack_int ldu, float* vt, lapack_int ldvt,
                                         float* work, lapack_int lwork, lapack_int* iwork)
    lapack_int scipy_LAPACKE_dgesdd_work(int layout, char jobz, lapack_int m, lapack_int n,
                                         double* a, lapack_int lda, double* s, double* u,
                                         lapack_int ldu, double* vt, lapack_int ldvt,
                                         double* work, lapack_int lwork, lapack_int* iwork)
    lapack_int scipy_LAPACKE_cgesdd_work(int layout, char jobz, lapack_int m, lapack_int n,
                                         void* a, lapack_int lda, float* s, void* u,
                                         lapack_int ldu, void* vt, lapack_int ldvt,
                                         void* work, lapack_int lwork, float* rwork,
                                         lapack_int* iwork)
    lapack_int scipy_LAPACKE_zgesdd_work(int layout, char jobz, lapack_int m, lapack_int n,
                                         void* a, lapack_int lda, double* s, void* u,
                                         lapack_int ldu, void* vt, lapack_int ldvt,
                                         void* work, lapack_int lwork, double* rwork,
                                         lapack_int* iwork)


# =============================================================================================
# One gesdd call, any of the four dtypes
# =============================================================================================

ctypedef struct GesddCtx:
    int num                     # the dtype's ScalarType code (float32/64, complex64/128)
    char jobz                   # 'N': S only; 'A': full U and VT; 'S': the first k columns/rows
    lapack_int m, n, k          # LAPACK's view of one matrix (m x n, column-major), k = min
    lapack_int ldu, ldvt
    lapack_int lwork
    void* work                  # lwork elements of the dtype
    void* rwork                 # complex only: real workspace
    lapack_int* iwork           # 8 * k integers
    bint small                  # real and small: Note [Small SVDs by one-sided Jacobi] first


cdef lapack_int _gesdd(GesddCtx* g, void* a, void* s, void* u, void* vt,
                       lapack_int lwork) noexcept nogil:
    """One ?gesdd on the column-major m x n matrix at a (lda = m); lwork = -1 asks for the
    optimal workspace size, written to work[0]."""
    cdef lapack_int lda = g.m if g.m > 1 else 1
    if g.num == kFloat32:
        return scipy_LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, g.jobz, g.m, g.n, <float*>a, lda,
                                         <float*>s, <float*>u, g.ldu, <float*>vt, g.ldvt,
                                         <float*>g.work, lwork, g.iwork)
    if g.num == kFloat64:
        return scipy_LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, g.jobz, g.m, g.n, <double*>a, lda,
                                         <double*>s, <double*>u, g.ldu, <double*>vt, g.ldvt,
                                         <double*>g.work, lwork, g.iwork)
    if g.num == kComplex64:
        return scipy_LAPACKE_cgesdd_work(LAPACK_COL_MAJOR, g.jobz, g.m, g.n, a, lda,
                                         <float*>s, u, g.ldu, vt, g.ldvt, g.work, lwork,
                                         <float*>g.rwork, g.iwork)
    return scipy_LAPACKE_zgesdd_work(LAPACK_COL_MAJOR, g.jobz, g.m, g.n, a, lda, <double*>s,
                                     u, g.ldu, vt, g.ldvt, g.work, lwork, <double*>g.rwork,
                                     g.iwork)


cdef lapack_int _gesdd_on_thread(GesddCtx* g, int t, Py_ssize_t work_bytes,
                                 Py_ssize_t rwork_bytes, void* a, void* s, void* u,
                                 void* vt) noexcept nogil:
    """``_gesdd`` on thread ``t``'s share of the workspaces (its own, for a parallel batch);
    a small real matrix by one-sided Jacobi unless that declines it (inf or NaN)."""
    cdef lapack_int info
    if g.small:
        if g.num == kFloat32:
            info = small_gesvd(g.jobz, <float*>a, g.m, g.n, <float*>s, <float*>u, g.ldu,
                               <float*>vt, g.ldvt)
        else:
            info = small_gesvd(g.jobz, <double*>a, g.m, g.n, <double*>s, <double*>u, g.ldu,
                               <double*>vt, g.ldvt)
        if info != SMALL_DECLINED:
            return info
    cdef GesddCtx mine = g[0]
    mine.work = <char*>g.work + t * work_bytes
    mine.rwork = <char*>g.rwork + t * rwork_bytes if g.rwork != NULL else NULL
    mine.iwork = g.iwork + t * 8 * g.k
    return _gesdd(&mine, a, s, u, vt, g.lwork)


cdef Py_ssize_t _rwork_size(GesddCtx* g) noexcept nogil:
    """The real workspace ?gesdd needs for complex input (its documented LRWORK, LAPACK 3.7+)."""
    cdef Py_ssize_t mn = g.k, mx = g.m if g.m > g.n else g.n
    if g.jobz == b'N':
        return 7 * mn
    return max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn)


cdef void _eye(char* p, Py_ssize_t n, Py_ssize_t itemsize, bint single) noexcept nogil:
    """Write the n x n identity at p; ``single``: the dtype is made of floats (float32,
    complex64), else doubles. A complex 1 is (1, 0): the real part comes first."""
    cdef Py_ssize_t i
    memset(p, 0, n * n * itemsize)
    for i in range(n):
        if single:
            (<float*>(p + (i * n + i) * itemsize))[0] = 1
        else:
            (<double*>(p + (i * n + i) * itemsize))[0] = 1


# =============================================================================================
# svd: shapes, layouts, the batch
# =============================================================================================

cdef TensorBase _mT(TensorBase t):
    """t with its last two dims swapped, as a view (Tensor.mT, at this layer)."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int d, nd = t._ndim
    for d in range(nd):
        sizes[d] = t._sizes[d]
        strides[d] = t._strides[d]
    sizes[nd - 2], sizes[nd - 1] = sizes[nd - 1], sizes[nd - 2]
    strides[nd - 2], strides[nd - 1] = strides[nd - 1], strides[nd - 2]
    return make_view(t, nd, sizes, strides, t._offset)


cdef TensorBase _stack_of(TensorBase x, Py_ssize_t rows, Py_ssize_t cols, DType dtype,
                          bint matrix=True):
    """A new C-contiguous tensor of x's batch dims followed by (rows, cols), or by (rows,)
    when not ``matrix``."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int d, nb = x._ndim - 2
    for d in range(nb):
        sizes[d] = x._sizes[d]
    sizes[nb] = rows
    sizes[nb + 1] = cols
    return empty_tensor(nb + 2 if matrix else nb + 1, sizes, dtype, cpu_device)


def svd(TensorBase x, bint full_matrices=True, bint compute_uv=True, str name="svd"):
    """The singular value decomposition of each matrix in x (the last two dims): (U, S, Vh)
    with x = U @ diag(S) @ Vh, or only S when not ``compute_uv``. S is descending and real.
    See Note [SVD through LAPACK's column-major] and Note [SVD edge cases]; ``name`` is the
    public function's, for messages."""
    cdef int nd = x._ndim, d
    cdef Py_ssize_t m, n, k, nbatch = 1, b, failed = -1, i, nwork
    cdef Py_ssize_t a_step, s_step, u_step, vt_step, isz
    cdef Py_ssize_t cu, rv, nt = 1, work_bytes, rwork_bytes = 0
    cdef lapack_int* infos = NULL
    cdef int blas_threads
    cdef bint parallel
    cdef lapack_int info = 0, bad_info = 0
    cdef bint colmajor, single
    cdef DType dtype, real
    cdef TensorBase a, s, bu = None, bvt = None, u_res, vh_res
    cdef GesddCtx g
    cdef char* pa
    cdef char* ps
    cdef char* pu
    cdef char* pvt
    cdef double query[2]
    cdef lapack_int dummy_i[1]
    cdef double dummy[2]

    # -- checks and dtypes ----------------------------------------------------------------------
    if nd < 2:
        raise ValueError(
            f"{name}: x must have at least 2 dims (a matrix, or a stack of matrices in the "
            f"last two dims), got shape {x.shape}; reshape a vector to (1, n) or (n, 1) first")
    if not x._storage.device.is_cpu:
        raise NotImplementedError(f"{name}: x is on {x.device}; only CPU tensors have a "
                                  "kernel in this build")
    dtype = x.dtype
    if dtype.kind in "biu":
        dtype = default_float_dtype()   # as NumPy: see Note [SVD edge cases]
    single = dtype.num == kFloat32 or dtype.num == kComplex64
    real = dtype_from_num(kFloat32 if single else kFloat64)
    m = x._sizes[nd - 2]
    n = x._sizes[nd - 1]
    k = min(m, n)
    if m > INT_MAX or n > INT_MAX:
        raise ValueError(f"{name}: a {m} x {n} matrix is too large for 32-bit LAPACK (each "
                         f"size must be below 2**31); x has shape {x.shape}")
    for d in range(nd - 2):
        nbatch *= x._sizes[d]

    # -- the work copy: column-major matrices as they lie, everything else row-major ------------
    colmajor = m > 1 and n > 1 and x._strides[nd - 2] == 1 and x._strides[nd - 1] == m
    if colmajor:
        a = contiguous_copy(_mT(x), dtype)   # (..., n, m) row-major: A, column-major
        g.m, g.n = <lapack_int>m, <lapack_int>n
    else:
        a = contiguous_copy(x, dtype)        # (..., m, n) row-major: A^T, column-major
        g.m, g.n = <lapack_int>n, <lapack_int>m
    g.k = <lapack_int>k
    g.num = dtype.num
    g.small = ((dtype.num == kFloat32 or dtype.num == kFloat64)
               and m <= SMALL_SVD_N and n <= SMALL_SVD_N)
    isz = dtype.itemsize

    # -- outputs: S, and LAPACK's U (g.m x cu) and VT (rv x g.n), column-major ------------------
    s = _stack_of(x, k, 0, real, False)
    if not compute_uv:
        g.jobz = b'N'
        cu = rv = 0
        g.ldu = g.ldvt = 1
    else:
        g.jobz = b'A' if full_matrices else b'S'
        cu = g.m if full_matrices else k
        rv = g.n if full_matrices else k
        g.ldu = max(1, g.m)
        g.ldvt = max(1, <lapack_int>rv)
        bu = _stack_of(x, cu, g.m, dtype)     # column j of LAPACK's U is row j here
        bvt = _stack_of(x, g.n, rv, dtype)
    pa = a._data()
    ps = s._data()
    pu = bu._data() if compute_uv else <char*>dummy
    pvt = bvt._data() if compute_uv else <char*>dummy
    a_step = m * n * isz
    s_step = k * real.itemsize
    u_step = cu * g.m * isz
    vt_step = rv * g.n * isz

    if nbatch > 0 and k == 0 and compute_uv and full_matrices:
        # no singular values; the non-empty factor is the identity (Note [SVD edge cases])
        for b in range(nbatch):
            _eye(pu + b * u_step, g.m, isz, single)
            _eye(pvt + b * vt_step, g.n, isz, single)
    elif nbatch > 0 and k > 0:
        # -- workspace: ask LAPACK how much (lwork = -1), once for the whole batch --------------
        g.work = query
        g.rwork = dummy
        g.iwork = dummy_i
        query[0] = query[1] = 0
        info = _gesdd(&g, pa, ps, pu, pvt, -1)
        if info != 0:
            raise RuntimeError(f"{name}: LAPACK's workspace query failed (info={info})")
        nwork = <Py_ssize_t>((<float*>query)[0] if single else query[0]) + 1
        if nwork > INT_MAX:
            raise ValueError(f"{name}: the workspace for a {m} x {n} matrix exceeds 32-bit "
                             "LAPACK's limits")
        g.lwork = <lapack_int>nwork
        # a batch of small matrices runs across the threads, each with its own workspaces and
        # each ?gesdd on one OpenBLAS thread (Note [A batch of LAPACK calls]); 10000 4 x 4
        # float32 on 2 threads: 69 -> 37 ms (NumPy 65 ms, one matrix after another)
        parallel = nbatch >= 16 and m <= 64 and n <= 64 and num_threads() > 1
        nt = num_threads() if parallel else 1
        work_bytes = nwork * isz
        if dtype.kind == "c":
            rwork_bytes = max(1, _rwork_size(&g)) * real.itemsize
        g.work = malloc(work_bytes * nt)
        g.iwork = <lapack_int*>malloc(8 * k * sizeof(lapack_int) * nt)
        g.rwork = malloc(rwork_bytes * nt) if dtype.kind == "c" else NULL
        infos = <lapack_int*>malloc(nbatch * sizeof(lapack_int))
        blas_threads = scipy_openblas_get_num_threads()
        try:
            if g.work == NULL or g.iwork == NULL or (dtype.kind == "c" and g.rwork == NULL) \
                    or infos == NULL:
                raise MemoryError(f"{name}: no memory for LAPACK's workspace ({nwork} "
                                  f"elements of {dtype.name})")
            if parallel:
                if blas_threads > 1:
                    scipy_openblas_set_num_threads(1)
                for b in prange(nbatch, nogil=True, num_threads=nt, schedule="static"):
                    infos[b] = _gesdd_on_thread(&g, openmp.omp_get_thread_num(), work_bytes,
                                                rwork_bytes, pa + b * a_step, ps + b * s_step,
                                                pu + b * u_step, pvt + b * vt_step)
            else:
                with nogil:
                    for b in range(nbatch):
                        infos[b] = _gesdd_on_thread(&g, 0, work_bytes, rwork_bytes,
                                                    pa + b * a_step, ps + b * s_step,
                                                    pu + b * u_step, pvt + b * vt_step)
            for b in range(nbatch):
                if infos[b] == 0:
                    continue
                if compute_uv:  # the first matrix that failed is the error's
                    failed = b
                    bad_info = infos[b]
                    break
                for i in range(k):  # svdvals: NaN for this matrix, as NumPy
                    if single:
                        (<float*>(ps + b * s_step))[i] = NAN
                    else:
                        (<double*>(ps + b * s_step))[i] = NAN
        finally:
            if parallel and blas_threads > 1:
                scipy_openblas_set_num_threads(blas_threads)
            free(g.work)
            free(g.iwork)
            free(g.rwork)
            free(infos)
    if failed >= 0:
        # ?gesdd refuses NaN as its argument 4 (A): info = -4, which LAPACKE reports as -5,
        # counting its own first argument (the layout)
        raise ValueError(
            f"{name}: the SVD of matrix {failed} of the batch (x has shape {x.shape}) did not "
            + ("converge: the matrix holds NaN" if bad_info == -5 else
               f"converge (LAPACKE ?gesdd info={bad_info}): does the matrix hold inf?")
            + "; svdvals gives NaN singular values for such matrices instead of raising")
    if not compute_uv:
        return s
    # Note [SVD through LAPACK's column-major]: which buffer is U, which is Vh
    if colmajor:
        u_res, vh_res = _mT(bu), _mT(bvt)
    else:
        u_res, vh_res = bvt, bu
    return u_res, s, vh_res


# =============================================================================================
# The factorisations behind solve, inv, det, slogdet, cholesky, eigh and qr
# =============================================================================================
#
# Note [A batch of LAPACK calls]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``run_batch`` is the one kernel behind every factorisation but the SVD. Its caller
# (strided/_ops/linalg_solve.py) has already copied each operand into a C-contiguous batch laid
# out as LAPACK wants it (which of A and A^T LAPACK sees is that module's Note [Row-major
# matrices are LAPACK's transposes]); here each matrix of the batch gets one LAPACK call, in
# place, and its ``info`` is written to a per-matrix int32 tensor, so that the caller can say
# which matrix was singular or not positive definite. Nothing here raises for such a matrix.
#
# The routines that need a workspace (?syevd/?heevd, ?geqrf, ?orgqr/?ungqr) ask LAPACK for its
# size once (lwork = -1), and each thread gets its own. A batch of small matrices runs in
# parallel over strided's OpenMP threads (prange), each LAPACK call then single-threaded, as a
# batch of small GEMMs does (Note [Threads: ours and OpenBLAS's] in blas.pyx): OpenBLAS threads
# only much larger problems, and Note [One pool of threads] keeps a nested request safe. Large
# matrices run one after another, each free to use OpenBLAS's threads.

cdef extern from "lapacke.h" nogil:
    lapack_int scipy_LAPACKE_sgetrf_work(int, lapack_int, lapack_int, float*, lapack_int,
                                         lapack_int*)
    lapack_int scipy_LAPACKE_dgetrf_work(int, lapack_int, lapack_int, double*, lapack_int,
                                         lapack_int*)
    lapack_int scipy_LAPACKE_cgetrf_work(int, lapack_int, lapack_int, void*, lapack_int,
                                         lapack_int*)
    lapack_int scipy_LAPACKE_zgetrf_work(int, lapack_int, lapack_int, void*, lapack_int,
                                         lapack_int*)
    lapack_int scipy_LAPACKE_sgetrs_work(int, char, lapack_int, lapack_int, const float*,
                                         lapack_int, const lapack_int*, float*, lapack_int)
    lapack_int scipy_LAPACKE_dgetrs_work(int, char, lapack_int, lapack_int, const double*,
                                         lapack_int, const lapack_int*, double*, lapack_int)
    lapack_int scipy_LAPACKE_cgetrs_work(int, char, lapack_int, lapack_int, const void*,
                                         lapack_int, const lapack_int*, void*, lapack_int)
    lapack_int scipy_LAPACKE_zgetrs_work(int, char, lapack_int, lapack_int, const void*,
                                         lapack_int, const lapack_int*, void*, lapack_int)
    lapack_int scipy_LAPACKE_spotrf_work(int, char, lapack_int, float*, lapack_int)
    lapack_int scipy_LAPACKE_dpotrf_work(int, char, lapack_int, double*, lapack_int)
    lapack_int scipy_LAPACKE_cpotrf_work(int, char, lapack_int, void*, lapack_int)
    lapack_int scipy_LAPACKE_zpotrf_work(int, char, lapack_int, void*, lapack_int)
    lapack_int scipy_LAPACKE_ssyevd_work(int, char, char, lapack_int, float*, lapack_int,
                                         float*, float*, lapack_int, lapack_int*, lapack_int)
    lapack_int scipy_LAPACKE_dsyevd_work(int, char, char, lapack_int, double*, lapack_int,
                                         double*, double*, lapack_int, lapack_int*, lapack_int)
    lapack_int scipy_LAPACKE_cheevd_work(int, char, char, lapack_int, void*, lapack_int,
                                         float*, void*, lapack_int, float*, lapack_int,
                                         lapack_int*, lapack_int)
    lapack_int scipy_LAPACKE_zheevd_work(int, char, char, lapack_int, void*, lapack_int,
                                         double*, void*, lapack_int, double*, lapack_int,
                                         lapack_int*, lapack_int)
    lapack_int scipy_LAPACKE_sgeqrf_work(int, lapack_int, lapack_int, float*, lapack_int,
                                         float*, float*, lapack_int)
    lapack_int scipy_LAPACKE_dgeqrf_work(int, lapack_int, lapack_int, double*, lapack_int,
                                         double*, double*, lapack_int)
    lapack_int scipy_LAPACKE_cgeqrf_work(int, lapack_int, lapack_int, void*, lapack_int,
                                         void*, void*, lapack_int)
    lapack_int scipy_LAPACKE_zgeqrf_work(int, lapack_int, lapack_int, void*, lapack_int,
                                         void*, void*, lapack_int)
    lapack_int scipy_LAPACKE_sorgqr_work(int, lapack_int, lapack_int, lapack_int, float*,
                                         lapack_int, const float*, float*, lapack_int)
    lapack_int scipy_LAPACKE_dorgqr_work(int, lapack_int, lapack_int, lapack_int, double*,
                                         lapack_int, const double*, double*, lapack_int)
    lapack_int scipy_LAPACKE_cungqr_work(int, lapack_int, lapack_int, lapack_int, void*,
                                         lapack_int, const void*, void*, lapack_int)
    lapack_int scipy_LAPACKE_zungqr_work(int, lapack_int, lapack_int, lapack_int, void*,
                                         lapack_int, const void*, void*, lapack_int)

cdef extern from "lapacke.h" nogil:
    lapack_int scipy_LAPACKE_sgeev_work(int, char, char, lapack_int, float*, lapack_int, float*,
                                        float*, float*, lapack_int, float*, lapack_int, float*,
                                        lapack_int)
    lapack_int scipy_LAPACKE_dgeev_work(int, char, char, lapack_int, double*, lapack_int,
                                        double*, double*, double*, lapack_int, double*,
                                        lapack_int, double*, lapack_int)
    lapack_int scipy_LAPACKE_cgeev_work(int, char, char, lapack_int, void*, lapack_int, void*,
                                        void*, lapack_int, void*, lapack_int, void*, lapack_int,
                                        float*)
    lapack_int scipy_LAPACKE_zgeev_work(int, char, char, lapack_int, void*, lapack_int, void*,
                                        void*, lapack_int, void*, lapack_int, void*, lapack_int,
                                        double*)

cdef extern from "cblas.h" nogil:
    void scipy_openblas_set_num_threads(int n)
    int scipy_openblas_get_num_threads()

cdef enum Routine:
    GETRF = 0    # LU with partial pivoting: a (n x n) -> factors, ipiv
    GETRS = 1    # solve with the LU factors: b (n x nrhs) -> x; c1 = trans
    POTRF = 2    # Cholesky: c1 = uplo
    HEEVD = 3    # symmetric/Hermitian eigen: w (n); c1 = jobz, c2 = uplo
    GEQRF = 4    # QR: a (m x n) -> R and reflectors, tau (k)
    ORGQR = 5    # Q from the reflectors: a (m x n, its first k reflectors), tau (k)
    GEEV = 6     # general eigen: w (n; real input: wr in b, wi in b2), right vectors in v

_ROUTINES = {"getrf": GETRF, "getrs": GETRS, "potrf": POTRF, "heevd": HEEVD,
             "geqrf": GEQRF, "orgqr": ORGQR, "geev": GEEV}

ctypedef struct Job:
    int routine
    int num                    # the dtype's ScalarType code
    char c1, c2
    lapack_int m, n, k, nrhs
    char* a                    # the batch of matrices, column-major, lda = m
    Py_ssize_t a_step          # bytes between matrices
    char* b                    # getrs: the right-hand sides (ldb = n); heevd: w; qr: tau
    Py_ssize_t b_step
    char* b2                   # geev of real input: the imaginary parts of the eigenvalues
    Py_ssize_t b2_step
    char* v                    # geev: the right eigenvectors (column-major, ldvr = n)
    Py_ssize_t v_step
    lapack_int* ipiv           # getrf/getrs: n pivots per matrix
    lapack_int* info           # one per matrix
    lapack_int lwork, lrwork, liwork
    Py_ssize_t work_bytes, rwork_bytes, iwork_bytes   # one thread's share of each


cdef bint _small(Job* j) noexcept nogil:
    """Whether ``j`` runs on the loops of Note [Small matrices without LAPACK]
    (small_lapack.pxd)."""
    if j.num != kFloat32 and j.num != kFloat64:
        return False
    if j.routine == GEQRF or j.routine == ORGQR:  # any shape; never a workspace query
        return j.m <= SMALL_N and j.n <= SMALL_N and j.lwork != -1
    if j.routine == HEEVD:  # ?syevd: Jacobi (Note [Small symmetric eigenproblems by Jacobi])
        return j.n <= (SMALL_EIGH_N if j.c1 == b"V" else SMALL_EIGVALSH_N) and j.lwork != -1
    return ((j.routine == GETRF or j.routine == GETRS or j.routine == POTRF)
            and j.m == j.n and j.n <= SMALL_N)


cdef lapack_int _call_small(Job* j, char* a, char* b, lapack_int* ipiv) noexcept nogil:
    """``_call`` for a job that is ``_small``."""
    if j.routine == GETRF:
        if j.num == kFloat32:
            return small_getrf(<float*>a, j.n, ipiv)
        return small_getrf(<double*>a, j.n, ipiv)
    if j.routine == GETRS:
        if j.num == kFloat32:
            small_getrs(j.c1, <float*>a, j.n, ipiv, <float*>b, j.nrhs)
        else:
            small_getrs(j.c1, <double*>a, j.n, ipiv, <double*>b, j.nrhs)
        return 0
    if j.routine == GEQRF:
        if j.num == kFloat32:
            small_geqrf(<float*>a, j.m, j.n, <float*>b)
        else:
            small_geqrf(<double*>a, j.m, j.n, <double*>b)
        return 0
    if j.routine == ORGQR:
        if j.num == kFloat32:
            small_orgqr(<float*>a, j.m, j.n, j.k, <float*>b)
        else:
            small_orgqr(<double*>a, j.m, j.n, j.k, <double*>b)
        return 0
    if j.routine == HEEVD:  # SMALL_DECLINED for a matrix that must go to LAPACK
        if j.num == kFloat32:
            return small_syev(j.c1, j.c2, <float*>a, j.n, <float*>b)
        return small_syev(j.c1, j.c2, <double*>a, j.n, <double*>b)
    if j.num == kFloat32:
        return small_potrf(j.c1, <float*>a, j.n)
    return small_potrf(j.c1, <double*>a, j.n)


cdef lapack_int _call(Job* j, Py_ssize_t i, char* work, char* rwork,
                      lapack_int* iwork) noexcept nogil:
    """The LAPACK routine of ``j`` on matrix ``i`` of the batch (a workspace query when the
    job's lwork is -1)."""
    cdef int L = LAPACK_COL_MAJOR, num = j.num
    cdef char* a = j.a + i * j.a_step
    cdef char* b = j.b + i * j.b_step if j.b != NULL else NULL
    cdef lapack_int* ipiv = j.ipiv + i * j.n if j.ipiv != NULL else NULL
    cdef lapack_int lda = j.m if j.m > 1 else 1
    cdef lapack_int ldb = j.n if j.n > 1 else 1
    cdef void* va = a        # the complex routines take lapack_complex_* pointers: void*
    cdef void* vb = b
    cdef void* vw = work
    cdef char* b2
    cdef char* v
    cdef void* vv
    cdef lapack_int small_info
    if _small(j):
        small_info = _call_small(j, a, b, ipiv)
        if small_info != SMALL_DECLINED:
            return small_info
    if j.routine == GETRF:
        if num == kFloat32:
            return scipy_LAPACKE_sgetrf_work(L, j.m, j.n, <float*>a, lda, ipiv)
        if num == kFloat64:
            return scipy_LAPACKE_dgetrf_work(L, j.m, j.n, <double*>a, lda, ipiv)
        if num == kComplex64:
            return scipy_LAPACKE_cgetrf_work(L, j.m, j.n, va, lda, ipiv)
        return scipy_LAPACKE_zgetrf_work(L, j.m, j.n, va, lda, ipiv)
    if j.routine == GETRS:
        if num == kFloat32:
            return scipy_LAPACKE_sgetrs_work(L, j.c1, j.n, j.nrhs, <float*>a, lda, ipiv,
                                             <float*>b, ldb)
        if num == kFloat64:
            return scipy_LAPACKE_dgetrs_work(L, j.c1, j.n, j.nrhs, <double*>a, lda, ipiv,
                                             <double*>b, ldb)
        if num == kComplex64:
            return scipy_LAPACKE_cgetrs_work(L, j.c1, j.n, j.nrhs, va, lda, ipiv, vb, ldb)
        return scipy_LAPACKE_zgetrs_work(L, j.c1, j.n, j.nrhs, va, lda, ipiv, vb, ldb)
    if j.routine == POTRF:
        if num == kFloat32:
            return scipy_LAPACKE_spotrf_work(L, j.c1, j.n, <float*>a, lda)
        if num == kFloat64:
            return scipy_LAPACKE_dpotrf_work(L, j.c1, j.n, <double*>a, lda)
        if num == kComplex64:
            return scipy_LAPACKE_cpotrf_work(L, j.c1, j.n, va, lda)
        return scipy_LAPACKE_zpotrf_work(L, j.c1, j.n, va, lda)
    if j.routine == HEEVD:
        if num == kFloat32:
            return scipy_LAPACKE_ssyevd_work(L, j.c1, j.c2, j.n, <float*>a, lda, <float*>b,
                                             <float*>work, j.lwork, iwork, j.liwork)
        if num == kFloat64:
            return scipy_LAPACKE_dsyevd_work(L, j.c1, j.c2, j.n, <double*>a, lda, <double*>b,
                                             <double*>work, j.lwork, iwork, j.liwork)
        if num == kComplex64:
            return scipy_LAPACKE_cheevd_work(L, j.c1, j.c2, j.n, va, lda, <float*>vb, vw,
                                             j.lwork, <float*>rwork, j.lrwork, iwork, j.liwork)
        return scipy_LAPACKE_zheevd_work(L, j.c1, j.c2, j.n, va, lda, <double*>vb, vw,
                                         j.lwork, <double*>rwork, j.lrwork, iwork, j.liwork)
    if j.routine == GEEV:
        b2 = j.b2 + i * j.b2_step if j.b2 != NULL else NULL
        v = j.v + i * j.v_step if j.v != NULL else NULL
        vv = v
        if num == kFloat32:
            return scipy_LAPACKE_sgeev_work(L, b'N', j.c1, j.n, <float*>a, lda, <float*>b,
                                            <float*>b2, NULL, 1, <float*>v, ldb,
                                            <float*>work, j.lwork)
        if num == kFloat64:
            return scipy_LAPACKE_dgeev_work(L, b'N', j.c1, j.n, <double*>a, lda, <double*>b,
                                            <double*>b2, NULL, 1, <double*>v, ldb,
                                            <double*>work, j.lwork)
        if num == kComplex64:
            return scipy_LAPACKE_cgeev_work(L, b'N', j.c1, j.n, va, lda, vb, NULL, 1, vv, ldb,
                                            vw, j.lwork, <float*>rwork)
        return scipy_LAPACKE_zgeev_work(L, b'N', j.c1, j.n, va, lda, vb, NULL, 1, vv, ldb, vw,
                                        j.lwork, <double*>rwork)
    if j.routine == GEQRF:
        if num == kFloat32:
            return scipy_LAPACKE_sgeqrf_work(L, j.m, j.n, <float*>a, lda, <float*>b,
                                             <float*>work, j.lwork)
        if num == kFloat64:
            return scipy_LAPACKE_dgeqrf_work(L, j.m, j.n, <double*>a, lda, <double*>b,
                                             <double*>work, j.lwork)
        if num == kComplex64:
            return scipy_LAPACKE_cgeqrf_work(L, j.m, j.n, va, lda, vb, vw, j.lwork)
        return scipy_LAPACKE_zgeqrf_work(L, j.m, j.n, va, lda, vb, vw, j.lwork)
    # ORGQR
    if num == kFloat32:
        return scipy_LAPACKE_sorgqr_work(L, j.m, j.n, j.k, <float*>a, lda, <float*>b,
                                         <float*>work, j.lwork)
    if num == kFloat64:
        return scipy_LAPACKE_dorgqr_work(L, j.m, j.n, j.k, <double*>a, lda, <double*>b,
                                         <double*>work, j.lwork)
    if num == kComplex64:
        return scipy_LAPACKE_cungqr_work(L, j.m, j.n, j.k, va, lda, vb, vw, j.lwork)
    return scipy_LAPACKE_zungqr_work(L, j.m, j.n, j.k, va, lda, vb, vw, j.lwork)


cdef Py_ssize_t _query_size(Job* j, char* word) noexcept nogil:
    """The element count LAPACK wrote in the first workspace element during a query (a float
    for single precision, a double otherwise; the real part for complex)."""
    if j.num == kFloat32 or j.num == kComplex64:
        return <Py_ssize_t>(<float*>word)[0] + 1
    return <Py_ssize_t>(<double*>word)[0] + 1


def run_batch(str routine, TensorBase a, TensorBase b, TensorBase ipiv, TensorBase info,
              Py_ssize_t m, Py_ssize_t n, Py_ssize_t k=0, Py_ssize_t nrhs=0, str c1="N",
              str c2="N", TensorBase b2=None, TensorBase v=None):
    """One LAPACK ``routine`` ("getrf", "getrs", "potrf", "heevd", "geqrf", "orgqr") on each
    matrix of the C-contiguous batch ``a`` (column-major m x n matrices, in place), with
    ``b`` (the right-hand sides, eigenvalues or tau; or None) and ``ipiv`` (int32 pivots, or
    None) batches alongside (``geev`` also takes ``b2``, the imaginary parts of a real matrix's
    eigenvalues, and ``v``, its eigenvectors); each matrix's LAPACK info goes to the int32
    tensor ``info``. See Note [A batch of LAPACK calls]."""
    cdef Job j
    cdef Py_ssize_t nbatch = info.numel(), i, nt, t
    cdef DType dtype = a.dtype
    cdef char* work = NULL
    cdef char* rwork = NULL
    cdef lapack_int* iwork = NULL
    cdef double query[2]
    cdef double rquery[2]
    cdef lapack_int iquery[2]
    cdef bint parallel, one_thread
    cdef int blas_threads
    if m > INT_MAX or n > INT_MAX or k > INT_MAX or nrhs > INT_MAX:
        raise ValueError(f"{routine}: a {m} x {n} matrix is too large for 32-bit LAPACK")
    for t_ in (a, b, ipiv, info, b2, v):
        # LAPACK reads and writes host memory only: the CPU's, or the emulated CUDA device's,
        # which is host memory too (Note [Linear algebra on a CUDA device] in linalg_solve.py)
        host = ("cpu", "cuda-emulated")
        if t_ is not None and (<TensorBase>t_)._storage.device.type not in host:
            raise ValueError(f"{routine}: a tensor on {t_.device}: LAPACK needs tensors in "
                             "host memory (the CPU's, or the CUDA emulator's)")
    j.routine = _ROUTINES[routine]
    j.num = dtype.num
    j.c1 = ord(c1)
    j.c2 = ord(c2)
    j.m, j.n, j.k, j.nrhs = <lapack_int>m, <lapack_int>n, <lapack_int>k, <lapack_int>nrhs
    j.a = a._data()
    j.a_step = a.numel() // nbatch * dtype.itemsize if nbatch else 0
    j.b = b._data() if b is not None else NULL
    j.b_step = b.numel() // nbatch * b.dtype.itemsize if b is not None and nbatch else 0
    j.b2 = b2._data() if b2 is not None else NULL
    j.b2_step = b2.numel() // nbatch * b2.dtype.itemsize if b2 is not None and nbatch else 0
    j.v = v._data() if v is not None else NULL
    j.v_step = v.numel() // nbatch * v.dtype.itemsize if v is not None and nbatch else 0
    j.ipiv = <lapack_int*>ipiv._data() if ipiv is not None else NULL
    j.info = <lapack_int*>info._data()
    j.lwork = j.lrwork = j.liwork = 0
    j.work_bytes = j.rwork_bytes = j.iwork_bytes = 0
    if nbatch == 0:
        return
    if j.routine == HEEVD or ((j.routine == GEQRF or j.routine == ORGQR or j.routine == GEEV)
                              and not _small(&j)):
        # one workspace query for the whole batch (every matrix has the same shape); also for
        # small eigenproblems, whose matrices with an inf or a NaN go to LAPACK
        # (SMALL_DECLINED, Note [Small symmetric eigenproblems by Jacobi])
        j.lwork = j.lrwork = j.liwork = -1
        query[0] = query[1] = rquery[0] = rquery[1] = 0
        iquery[0] = iquery[1] = 0
        _call(&j, 0, <char*>query, <char*>rquery, iquery)
        j.lwork = <lapack_int>_query_size(&j, <char*>query)
        j.work_bytes = j.lwork * dtype.itemsize
        if j.routine == GEEV and dtype.kind == "c":  # ?geev's rwork: 2n reals, no query
            j.lrwork = 2 * j.n if j.n > 0 else 1
            j.rwork_bytes = j.lrwork * dtype.itemsize // 2
        if j.routine == HEEVD:
            j.liwork = iquery[0] if iquery[0] > 1 else 1
            j.iwork_bytes = j.liwork * sizeof(lapack_int)
            if dtype.kind == "c":
                j.lrwork = <lapack_int>_query_size(&j, <char*>rquery)
                j.rwork_bytes = j.lrwork * dtype.itemsize // 2
    # small matrices: the batch across the threads, each call single-threaded; not for the LU
    # and Cholesky routines, whose OpenBLAS calls take buffers from a pool shared by every
    # thread: on 2 threads 10000 4 x 4 solves took 37 ms in parallel and 3.0 ms one by one
    # (NumPy 2.7 ms), where eigh went from 19 to 9.8 ms (NumPy 22 ms)
    # (Note [Small matrices without LAPACK]: small real ones do not call LAPACK at all)
    parallel = (nbatch >= 16 and m <= 64 and n <= 64 and num_threads() > 1
                and (_small(&j) or (j.routine != GETRF and j.routine != GETRS
                                    and j.routine != POTRF)))
    nt = num_threads() if parallel else 1
    work = <char*>malloc(max(1, j.work_bytes * nt))
    rwork = <char*>malloc(max(1, j.rwork_bytes * nt))
    iwork = <lapack_int*>malloc(max(1, j.iwork_bytes * nt))
    try:
        if work == NULL or rwork == NULL or iwork == NULL:
            raise MemoryError(f"{routine}: no memory for LAPACK's workspace")
        # Note [LU on one OpenBLAS thread]: OpenBLAS's threaded ?getrf is slower than its
        # serial one here (512 x 512 float64 on 2 cores: 16 ms on 2 threads, 3.7 ms on 1,
        # NumPy 4.8 ms); its jobs synchronise after every panel, and one descheduled job stalls
        # the others. So ?getrf runs on one OpenBLAS thread, and ?getrs too unless it has many
        # right-hand sides (inv: one per column), whose triangular solves thread well. Inside
        # the prange every call is on one thread: on 2 threads a batch of 10000 4 x 4 Cholesky
        # factorisations took 32 ms with OpenBLAS free to thread each.
        one_thread = parallel or j.routine == GETRF or (j.routine == GETRS and j.nrhs < 64)
        blas_threads = scipy_openblas_get_num_threads()
        if one_thread and blas_threads > 1:
            scipy_openblas_set_num_threads(1)
        try:
            if parallel:
                for i in prange(nbatch, nogil=True, num_threads=nt, schedule="static"):
                    t = openmp.omp_get_thread_num()
                    j.info[i] = _call(&j, i, work + t * j.work_bytes,
                                      rwork + t * j.rwork_bytes,
                                      <lapack_int*>(<char*>iwork + t * j.iwork_bytes))
            else:
                with nogil:
                    for i in range(nbatch):
                        j.info[i] = _call(&j, i, work, rwork, iwork)
        finally:
            if one_thread and blas_threads > 1:
                scipy_openblas_set_num_threads(blas_threads)
    finally:
        free(work)
        free(rwork)
        free(iwork)


# Note [A determinant from its LU factors in one pass]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# det(A) is (-1) ** (the rows ?getrf swapped) times the product of U's diagonal. Written as ops
# (the diagonal as a view, a product along it, the pivots compared with 1..n, a sum, a
# remainder, a multiply, a subtract, a cast, a last multiply), a batch of small matrices paid
# nine passes over short rows: for 10000 4 x 4 float32 matrices 0.2 ms of the 0.77 ms det,
# where the LU itself takes 0.55. ``lu_det`` reads each matrix's pivots and diagonal once,
# multiplying the diagonal in order as the product did: the real dtypes' values are the same
# bits, the complex ones' within a rounding (the complex multiply written out here, not the
# product reduction's).

cdef void _lu_det(const char* lu, const lapack_int* ipiv, char* out, Py_ssize_t nbatch,
                  Py_ssize_t n, bint cplx, real_t* kind) noexcept nogil:
    """det of each of ``nbatch`` n x n factored matrices (real_t elements, or pairs of them
    when ``cplx``) into ``out``: see Note [A determinant from its LU factors in one pass]."""
    cdef Py_ssize_t i, p, swaps, w = 2 if cplx else 1
    cdef const real_t* a
    cdef real_t re, im, t, dre, dim
    for i in range(nbatch):
        a = <const real_t*>lu + i * n * n * w
        swaps = 0
        re = 1
        im = 0
        for p in range(n):
            swaps += ipiv[i * n + p] != p + 1
            dre = a[p * (n + 1) * w]
            if cplx:
                dim = a[p * (n + 1) * w + 1]
                t = re * dre - im * dim
                im = re * dim + im * dre
                re = t
            else:
                re = re * dre
        if swaps % 2:
            re = -re
            im = -im
        (<real_t*>out)[i * w] = re
        if cplx:
            (<real_t*>out)[i * w + 1] = im


def lu_det(TensorBase lu, TensorBase ipiv, TensorBase out):
    """The determinant of each matrix from its LU factors: ``lu`` and ``ipiv`` as
    ``run_batch("getrf")`` left them (C-contiguous; int32 pivots), into the C-contiguous
    ``out`` of the batch's shape (Note [A determinant from its LU factors in one pass])."""
    cdef Py_ssize_t nbatch = out.numel()
    cdef Py_ssize_t n = lu._sizes[lu._ndim - 1] if lu._ndim else 0
    cdef int num = lu.dtype.num
    cdef const char* pa = lu._data()
    cdef const lapack_int* pp = <const lapack_int*>ipiv._data()
    cdef char* po = out._data()
    with nogil:
        if num == kFloat32 or num == kComplex64:
            _lu_det[float](pa, pp, po, nbatch, n, num == kComplex64, NULL)
        else:
            _lu_det[double](pa, pp, po, nbatch, n, num != kFloat64, NULL)
