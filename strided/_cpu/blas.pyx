"""Matrix multiplication: GEMM through OpenBLAS for float and complex dtypes, a blocked strided
loop for integers and bool.

``matmul`` here is the CPU kernel behind ``strided.matmul``, ``@``, ``mm``, ``bmm``, ``addmm`` and
everything built on them (``tensordot``, ``vecdot``): it does the shape work (NumPy's 1-D
promotion, broadcasting of the batch dims), picks a kernel by dtype, maps each operand's strides
onto BLAS's arguments, and loops over the batch in C.

Note [Why GEMM is fast]
~~~~~~~~~~~~~~~~~~~~~~~
C = A @ B does 2*m*n*k flops on only m*k + k*n + m*n numbers, so every number loaded can be
used many times: a matrix product is compute-bound if, and only if, the code reuses what it
loads. The naive triple loop does not: each multiply-add loads two numbers. A BLAS GEMM (Goto's
algorithm, which OpenBLAS implements) cuts the matrices into blocks sized for the caches: a
k-by-n panel of B that stays in L3, an m-by-k block of A that stays in L2, and copies ("packs")
each block once into a contiguous buffer laid out exactly in the order the innermost kernel
reads it. That innermost "microkernel", written in assembly for each CPU, keeps a small tile of C
(say 8x6 doubles) in vector registers and updates it with fused multiply-adds (FMA: a*b+c in one
instruction, one rounding) from the packed buffers, so it runs near the CPU's peak of several
FMA vectors per cycle. Packing also removes strides: which is why GEMM takes any leading
dimension and either transpose for free, but not a general stride (Note [Strided views as BLAS
matrices]). Threads split the blocks of C between them.

Note [Strided views as BLAS matrices]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
CBLAS describes a matrix by a pointer, an order (row- or column-major), a transpose flag and a
*leading dimension* ``ld``: the distance, in elements, from one row (row-major) to the next. A
strided view of shape (rows, cols) and element strides (s0, s1) is such a matrix when

- ``s1 == 1`` and ``s0 >= cols``: row-major with ``ld = s0`` (a contiguous matrix, ``ld = cols``;
  a slice of columns ``x[:, 2:5]`` or every other row ``x[::2]`` too, with ``ld`` the parent's
  row length times the step). BLAS flag ``NoTrans``.
- ``s0 == 1`` and ``s1 >= rows``: column-major with ``ld = s1``, which is the same bytes as the
  row-major *transpose*: ``x.T`` of a contiguous ``x``. It is passed as that transpose with the
  flag ``Trans``: ``op(A) = A^T`` undoes the transposition. No copy.
- a dim of size 1 has no meaningful stride: a single row or column fits either rule.

We always call BLAS in row-major order. The output C must itself be row- or column-major. If it
is column-major (an ``out=`` that is a transposed view), we compute ``C^T = B^T @ A^T`` instead,
a row-major product with the roles of A and B swapped and each one's flag flipped.

Anything else cannot be described to BLAS: a negative stride (``x[::-1]``), a stride 0 inside the
matrix (``expand``), steps in both dims (``x[::2, ::3]``: neither stride is 1), or a leading
dimension beyond 32-bit BLAS's ``int``. Such an operand is first copied into a row-major
temporary (``last_matmul_plan()`` reports it), which costs O(rows*cols) against the O(m*n*k)
product: negligible for large matrices, and the only way, since BLAS has no per-element
strides. An ``out=`` that is no BLAS matrix gets the result through a temporary likewise. The
batch dims never need a copy: BLAS sees one matrix at a time, and the batch loop (a loop plan,
Note [The loop plan] in _loop_plan.pyx, with stride 0 on broadcast batch dims) moves the pointers.

Integers and bool do not go through BLAS (it has no integer GEMM); they run ``matmul_loop``,
which reads every operand through its strides, so it never copies for layout.
"""

cimport openmp
from cython.parallel cimport prange
from libc.limits cimport INT_MAX
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from strided._cpu.bf16_gemm cimport (  # Note [bfloat16 matmul through vdpbf16ps]
    STRIDED_HAVE_BF16_GEMM,
    strided_bf16_gemm,
    strided_bf16_gemm_args,
    strided_bf16_gemm_bytes,
    strided_bf16_ws_head,
)
from strided._cpu.cblas cimport (
    CBLAS_TRANSPOSE,
    CblasNoTrans,
    CblasRowMajor,
    CblasTrans,
    CblasUpper,
    blasint,
    scipy_cblas_cdotu_sub,
    scipy_cblas_cgemm,
    scipy_cblas_ddot,
    scipy_cblas_dgemm,
    scipy_cblas_dsyrk,
    scipy_cblas_sdot,
    scipy_cblas_sgemm,
    scipy_cblas_ssyrk,
    scipy_cblas_zdotu_sub,
    scipy_cblas_zgemm,
)
from strided._cpu.gemm_loops cimport (  # Note [Tiny products in registers] there
    STRIDED_TINY_MAX,
    int_gemm_rows,
    tiny_max_work,
    strided_int_gemm,
    strided_tiny_gemm,
    strided_tiny_plan,
    tiny_gemm,
)
from strided._core cimport (
    MAX_DIMS,
    TensorBase,
    cpu_device,
    empty_tensor,
    storage_overlap,
)
from strided._dtype cimport (
    DType,
    kBFloat16,
    kBool,
    kComplex64,
    kComplex128,
    kFloat32,
    kFloat64,
    kUInt8,
    dtype_from_num,
    promote_types,
)
from strided._fused cimport matmul_acc_t as acc_t, unsigned_t as elem_t
from strided._iter cimport (
    LoopPlan,
    ScalarBuf,
    check_out_c,
    plan_coalesce,
    plan_init,
    plan_reorder,
    plan_run_range,
    plan_set_operand,
    scalar_to_bytes,
)
from strided._loop_plan cimport loop1d_fn
from strided._threads cimport num_threads

import os

from strided._cpu import cpu_dispatch as _cpu_dispatch
from strided._cpu import half as _half  # Note [Half precision through float32]
from strided._cpu.copy import contiguous_copy, copy_
# OpenBLAS's thread set-up (Note [One pool of threads]); imported first so that it has run
# before the first GEMM, and re-exported (blas.blas_info() is where a user looks)
from strided._cpu import blas_threads as _blas_threads


blas_info = _blas_threads.blas_info
_set_blas_threads = _blas_threads._set_blas_threads
_share_threads = _blas_threads._share_threads


# =============================================================================================
# Routes. See Note [Which route a product takes].
# =============================================================================================

# Note [Which route a product takes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Every product of a batch has the same m, k and n, so the route is chosen once per call:
#
# - integers and bool, any size: matmul_loop (Note [Integer matmul]);
# - float32 and float64 with m, n and k all at most STRIDED_TINY_MAX (16) and m * n * k at
#   most STRIDED_TINY_WORK (16**3 at x86-64-v3 and v4, 2048 at v2), and 1 x 1 products (dot
#   products: vecdot's rows) of at most TINY_DOT_K (64) terms: the tiny kernels of
#   gemm_loops.h, compiled per CPU level (Note [Tiny products in registers] in gemm_loops.pyx).
#   They read any strides, so nothing is copied first; a run of products is one call;
# - everything else, and complex numbers at every size: one BLAS call per product (?gemm, or
#   ?dot for 1 x 1), after a copy of an operand whose layout BLAS cannot read.
#
# Where the bounds come from, measured at 1 thread on the 2-core AMD EPYC (Zen 4, x86-64-v4)
# with batches of 2000 float64 products (strided / NumPy / PyTorch, us): 4x4 @ 4x4 15 / 117 /
# 141, 8x8 @ 8x8 43 / 174 / 206, 16x16 @ 16x16 186 / 576 / 910; one past the bound, through
# OpenBLAS as NumPy, 16x17 @ 17x16 628 / 613 / 1017 and 17x17 @ 17x17 822 / 804 / 1313. A call
# into OpenBLAS costs ~50 ns before its first multiply-add and its kernels are built for big
# blocks, so up to 16 the registers win by 3x or more (8x8 at x86-64-v3: 58 us, at v2: 115
# us); the bound is where a row of C stops fitting the kernels' 16 lanes. At x86-64-v2 (SSE's
# 16-byte registers) 16x16 @ 16x16 took 757 us against OpenBLAS's 612 and 12x12 @ 12x12
# float32 241 against 255, hence its lower bound on m * n * k. A 1 x 1 product of
# k terms is a short call to ?dot above 64 terms (1 x 65: 24 us against 20 for 1 x 64 here,
# NumPy 27): longer dots are memory-bound either way.
#
# Threads do not change the route: a batch whose products are each small enough for OpenBLAS
# to keep on one thread is split across the batch, every thread running its share of the
# products by the route above (Note [Threads: ours and OpenBLAS's]).


# =============================================================================================
# Threads. See Note [Threads: ours and OpenBLAS's].
# =============================================================================================

# Note [Threads: ours and OpenBLAS's]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# OpenBLAS's GEMM splits one product into jobs, one per thread, and strided decides how many:
# OpenBLAS's thread count is kept equal to strided's own (_cpu/blas_threads.pyx, at import and
# on every set_num_threads), and its jobs run on strided's threads (Note [One pool of threads]
# there). A batch of matrices is run in one of two ways, never both at once:
#
# - one GEMM after another, each split into jobs by OpenBLAS (the default), or
# - a prange over the batch, when every GEMM is so small that OpenBLAS would run it on one
#   thread anyway: OpenBLAS threads a GEMM only above m*n*k = 65536 * 4 (SMP_THRESHOLD_MIN times
#   GEMM_MULTITHREAD_THRESHOLD in its interface/gemm.c). So a GEMM inside the prange never asks
#   for threads of its own (Note [One pool of threads] relies on it).
#
# The integer loop makes the same choice with its own grain: across the batch, or across blocks
# of output rows inside each product. Integer results are exact, so they do not depend on the
# thread count; OpenBLAS's float results may differ in the last bits between thread counts,
# because the order of the additions follows the split of the work.

# Note [Products of a batch across threads]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A batch of mid-size products (einsum's bij,bjk->bik of 100 matrices of 100 x 100: 10**6
# multiply-adds each) is above the size OpenBLAS runs on one thread, and OpenBLAS splits each
# product into jobs that wait for each other after every panel, so one descheduled job stalls
# the product. With at least BATCH_SPLIT_MIN products a thread, products of up to
# _batch_split_mnk multiply-adds (512**3) are split across the batch instead, each thread
# running whole products, OpenBLAS held to one thread for the time of the batch (strided's
# threads are OpenBLAS's, Note [One pool of threads]: a threaded GEMM inside the prange would
# nest). float64 at 2 threads on the 2-core Zen 4, shared with other jobs (load 3), OpenBLAS's
# jobs -> the batch split (PyTorch): 100 x 100^3 4.85 -> 1.99 ms (2.42), 40 x 200^3 8.3 -> 5.8
# ms (6.8), 8 x 300^3 21 -> 16 ms (16.0), 8 x 512^3 21.5 -> 19.1 ms (21.6). At 1 thread
# nothing changes.

cdef double _batch_split_mnk = 134217728.0   # 512 ** 3

# Python threads inside a batch split, each holding OpenBLAS to one thread: the count makes the
# last of them, not the first to finish, give OpenBLAS its threads back (a product threaded by
# OpenBLAS inside another thread's prange would nest). Changed with the GIL held.
cdef int _one_blas_thread_holds = 0


cdef _hold_one_blas_thread():
    global _one_blas_thread_holds
    if _one_blas_thread_holds == 0:
        _set_blas_threads(1)
    _one_blas_thread_holds += 1


cdef _release_one_blas_thread():
    global _one_blas_thread_holds
    _one_blas_thread_holds -= 1
    if _one_blas_thread_holds == 0:
        _set_blas_threads(num_threads())


def _set_batch_split(double mnk):
    """Set the largest product (m*n*k) whose batch is split across threads above OpenBLAS's
    own threshold (Note [Products of a batch across threads]); 0 keeps every such product to
    OpenBLAS's threads. Returns the previous value (for benchmarks and tests)."""
    global _batch_split_mnk
    old = _batch_split_mnk
    _batch_split_mnk = mnk
    return old


cdef enum:
    BATCH_SPLIT_MIN = 4             # products a thread at least, for a batch split above it
    TINY_DOT_K = 64                 # the longest dot product (a 1 x 1 product) done without BLAS
    GEMM_GRAIN = 65536              # multiply-adds below which one thread does the whole job
    OPENBLAS_SERIAL_MNK = 262144    # m*n*k at or below which OpenBLAS runs on one thread
    GIL_GRAIN = 32768               # multiply-adds below which the GIL is kept


# =============================================================================================
# What one matrix product needs (the same for every matrix of a batch)
# =============================================================================================

cdef enum:
    LAYOUT_ROW = 0      # strides (ld, 1)
    LAYOUT_COL = 1      # strides (1, ld): the transpose of a row-major matrix
    LAYOUT_OTHER = 2    # neither: BLAS needs a copy; the strided loop reads it as it is

cdef enum:
    KERNEL_SGEMM = 0
    KERNEL_DGEMM = 1
    KERNEL_CGEMM = 2
    KERNEL_ZGEMM = 3
    KERNEL_LOOP = 4     # matmul_loop, for integers and bool
    KERNEL_BF16 = 5     # bf16_gemm.h, for bfloat16 (Note [bfloat16 matmul through vdpbf16ps])

ctypedef struct GemmCtx:
    int kernel
    Py_ssize_t m, n, k          # C (m x n) = A (m x k) @ B (k x n), as the caller sees them
    # BLAS's arguments (after the swap of Note [Strided views as BLAS matrices] if C is
    # column-major: then BLAS computes C^T = B^T @ A^T and its "A" is our B)
    bint swap
    CBLAS_TRANSPOSE trans_a, trans_b
    blasint bm, bn, bk, lda, ldb, ldc
    ScalarBuf alpha, beta       # as the computation dtype
    # the strided loop's arguments: byte strides of each matrix, the element width, and alpha
    # and beta widened to 64 bits (only their low bits matter: see Note [Integer matmul])
    Py_ssize_t a_s0, a_s1, b_s0, b_s1, c_s0, c_s1
    Py_ssize_t itemsize
    bint is_bool
    bint beta_zero              # beta == 0: C is written, never read (it may be uninitialised)
    uint64_t alpha_u, beta_u
    bint inner_parallel         # may the product itself use threads (not already in a prange)
    bint tiny                   # the products run gemm_loops.h's tiny kernels, planned in tp
    strided_tiny_gemm tp
    strided_int_gemm ip         # an integer product, for gemm_loops.h's integer kernels


cdef int blas_layout(Py_ssize_t rows, Py_ssize_t cols, Py_ssize_t s0, Py_ssize_t s1,
                     Py_ssize_t* ld) noexcept:
    """Whether a (rows, cols) view with element strides (s0, s1) is a BLAS matrix, and its
    leading dimension: see Note [Strided views as BLAS matrices]."""
    if rows == 0 or cols == 0:
        ld[0] = max(1, cols)  # nothing is read; any legal ld will do
        return LAYOUT_ROW
    if (cols == 1 or s1 == 1) and (rows == 1 or s0 >= cols):
        ld[0] = s0 if rows > 1 else cols
    elif (rows == 1 or s0 == 1) and (cols == 1 or s1 >= rows):
        ld[0] = s1 if cols > 1 else rows
        return LAYOUT_COL if ld[0] <= INT_MAX else LAYOUT_OTHER
    else:
        return LAYOUT_OTHER
    return LAYOUT_ROW if ld[0] <= INT_MAX else LAYOUT_OTHER


# =============================================================================================
# BLAS
# =============================================================================================

cdef void _blas_dot(GemmCtx* g, char* c, const char* a, const char* b) noexcept nogil:
    """A 1 x 1 product, C = alpha * (row a . column b) + beta * C, through cblas_?dot: a batch
    of dot products (vecdot) then costs a short call each, not a GEMM's setup."""
    cdef blasint k = g.bk
    cdef blasint inca = <blasint>(g.a_s1 // g.itemsize), incb = <blasint>(g.b_s0 // g.itemsize)
    cdef double re = 0, im = 0, cre = 0, cim = 0, are, aim, bre, bim
    cdef float fr[2]
    cdef double dr[2]
    if g.kernel == KERNEL_SGEMM:
        re = scipy_cblas_sdot(k, <const float*>a, inca, <const float*>b, incb)
        are, aim, bre, bim = (<float*>&g.alpha)[0], 0, (<float*>&g.beta)[0], 0
        cre = (<float*>c)[0] if not g.beta_zero else 0
    elif g.kernel == KERNEL_DGEMM:
        re = scipy_cblas_ddot(k, <const double*>a, inca, <const double*>b, incb)
        are, aim, bre, bim = (<double*>&g.alpha)[0], 0, (<double*>&g.beta)[0], 0
        cre = (<double*>c)[0] if not g.beta_zero else 0
    elif g.kernel == KERNEL_CGEMM:
        scipy_cblas_cdotu_sub(k, a, inca, b, incb, fr)
        re, im = fr[0], fr[1]
        are, aim = (<float*>&g.alpha)[0], (<float*>&g.alpha)[1]
        bre, bim = (<float*>&g.beta)[0], (<float*>&g.beta)[1]
        if not g.beta_zero:
            cre, cim = (<float*>c)[0], (<float*>c)[1]
    else:
        scipy_cblas_zdotu_sub(k, a, inca, b, incb, dr)
        re, im = dr[0], dr[1]
        are, aim = (<double*>&g.alpha)[0], (<double*>&g.alpha)[1]
        bre, bim = (<double*>&g.beta)[0], (<double*>&g.beta)[1]
        if not g.beta_zero:
            cre, cim = (<double*>c)[0], (<double*>c)[1]
    # alpha * dot + beta * c, as complex numbers (the imaginary parts are 0 for real dtypes);
    # beta * c is left out when beta is 0, so that NaN in c does not propagate (as BLAS)
    dr[0] = are * re - aim * im
    dr[1] = are * im + aim * re
    if not g.beta_zero:
        dr[0] += bre * cre - bim * cim
        dr[1] += bre * cim + bim * cre
    if g.kernel == KERNEL_SGEMM:
        (<float*>c)[0] = <float>dr[0]
    elif g.kernel == KERNEL_DGEMM:
        (<double*>c)[0] = dr[0]
    elif g.kernel == KERNEL_CGEMM:
        (<float*>c)[0] = <float>dr[0]
        (<float*>c)[1] = <float>dr[1]
    else:
        (<double*>c)[0] = dr[0]
        (<double*>c)[1] = dr[1]


cdef void _blas_gemm(GemmCtx* g, char* c, const char* a, const char* b) noexcept nogil:
    """One product through cblas_?gemm, in row-major order (see Note [Strided views as BLAS
    matrices]); a 1 x 1 result through cblas_?dot."""
    cdef const char* first = b if g.swap else a
    cdef const char* second = a if g.swap else b
    if g.m == 1 and g.n == 1:
        _blas_dot(g, c, a, b)
    elif g.kernel == KERNEL_SGEMM:
        scipy_cblas_sgemm(CblasRowMajor, g.trans_a, g.trans_b, g.bm, g.bn, g.bk,
                          (<float*>&g.alpha)[0], <const float*>first, g.lda,
                          <const float*>second, g.ldb, (<float*>&g.beta)[0], <float*>c, g.ldc)
    elif g.kernel == KERNEL_DGEMM:
        scipy_cblas_dgemm(CblasRowMajor, g.trans_a, g.trans_b, g.bm, g.bn, g.bk,
                          (<double*>&g.alpha)[0], <const double*>first, g.lda,
                          <const double*>second, g.ldb, (<double*>&g.beta)[0], <double*>c,
                          g.ldc)
    elif g.kernel == KERNEL_CGEMM:
        scipy_cblas_cgemm(CblasRowMajor, g.trans_a, g.trans_b, g.bm, g.bn, g.bk, &g.alpha,
                          first, g.lda, second, g.ldb, &g.beta, c, g.ldc)
    else:
        scipy_cblas_zgemm(CblasRowMajor, g.trans_a, g.trans_b, g.bm, g.bn, g.bk, &g.alpha,
                          first, g.lda, second, g.ldb, &g.beta, c, g.ldc)


# =============================================================================================
# The strided loop for integers and bool
# =============================================================================================

# Note [Integer matmul]
# ~~~~~~~~~~~~~~~~~~~~~
# NumPy's matmul of int8 gives int8, computed with wraparound: the sum of products modulo 2**8.
# Arithmetic modulo 2**w does not care about signs (two's complement: -1 and 255 are the same
# bits) nor about doing the sums in a wider type and keeping the low w bits at the end. So one
# loop per *width* does every integer dtype: the elements are read as unsigned integers and the
# products summed in unsigned 32-bit (for 8, 16 and 32-bit dtypes) or 64-bit accumulators, where
# overflow is defined to wrap (signed overflow in C is undefined behaviour; unsigned is not).
# bool is the logical semiring: C[i, j] = any(A[i, p] and B[p, j]).
#
# The integer dtypes run gemm_loops.h's kernels, compiled per CPU level, which keep a 4-row
# tile of C in vector registers (Note [Integer products in registers] in gemm_loops.pyx);
# threads take contiguous ranges of output rows, a multiple of TILE_M each.
#
# bool runs matmul_loop below, blocked (Note [Why GEMM is fast], in miniature): a tile of
# TILE_M x TILE_N accumulators stays in L1 while a TILE_K x TILE_N block of B, kept in L2, is
# reused by each of the TILE_M rows; the innermost loop runs along a row of B and of the tile.
# Threads take blocks of TILE_M output rows. (matmul_loop is written for every width, and
# was the integers' loop before the register kernels: 256 x 256 int32 took 2.1 ms there.)

cdef enum:
    TILE_M = 16
    TILE_N = 256
    TILE_K = 128

# The element types are the unsigned integer of each width (elem_t), the accumulators bool's
# uint8_t (an or of ands) and the unsigned integers of 4 and 8 bytes (acc_t); both from the
# dtype table (strided/_fused.pxd.tp).


cdef void matmul_loop(GemmCtx* g, char* c, const char* a, const char* b, Py_ssize_t i0,
                      Py_ssize_t i1, elem_t* kind, acc_t* tile) noexcept nogil:
    """Rows [i0, i1) of C = alpha * A @ B + beta * C, through the strides in g, with the
    accumulators in ``tile`` (TILE_M * TILE_N of them). See Note [Integer matmul]."""
    cdef Py_ssize_t n = g.n, k = g.k, ib, jb, pb, i, j, p, mb, nb, kb
    cdef Py_ssize_t as0 = g.a_s0, as1 = g.a_s1, bs0 = g.b_s0, bs1 = g.b_s1
    cdef Py_ssize_t cs0 = g.c_s0, cs1 = g.c_s1
    cdef acc_t av, v, alpha = <acc_t>g.alpha_u, beta = <acc_t>g.beta_u
    cdef acc_t* row
    cdef const char* arow
    cdef const char* bp
    cdef char* cp
    ib = i0
    while ib < i1:
        mb = min(<Py_ssize_t>TILE_M, i1 - ib)
        jb = 0
        while jb < n:
            nb = min(<Py_ssize_t>TILE_N, n - jb)
            for i in range(mb):
                memset(tile + i * TILE_N, 0, nb * sizeof(acc_t))
            pb = 0
            while pb < k:
                kb = min(<Py_ssize_t>TILE_K, k - pb)
                for i in range(mb):
                    row = tile + i * TILE_N
                    arow = a + (ib + i) * as0
                    for p in range(pb, pb + kb):
                        av = <acc_t>(<const elem_t*>(arow + p * as1))[0]
                        if av == 0:
                            continue
                        bp = b + p * bs0 + jb * bs1
                        if acc_t is uint8_t:
                            for j in range(nb):
                                row[j] |= (<const elem_t*>(bp + j * bs1))[0] != 0
                        elif bs1 == sizeof(elem_t):
                            for j in range(nb):  # the contiguous fast path, vectorised
                                row[j] += av * <acc_t>(<const elem_t*>bp)[j]
                        else:
                            for j in range(nb):
                                row[j] += av * <acc_t>(<const elem_t*>(bp + j * bs1))[0]
                pb += TILE_K
            for i in range(mb):
                row = tile + i * TILE_N
                cp = c + (ib + i) * cs0 + jb * cs1
                for j in range(nb):
                    if acc_t is uint8_t:
                        v = alpha & row[j]
                        if not g.beta_zero:
                            v = v | (beta & ((<elem_t*>cp)[0] != 0))
                    else:
                        v = alpha * row[j]
                        if not g.beta_zero:
                            v = v + beta * <acc_t>(<elem_t*>cp)[0]
                    (<elem_t*>cp)[0] = <elem_t>v
                    cp += cs1
            jb += TILE_N
        ib += TILE_M


cdef void _loop_rows(GemmCtx* g, char* c, const char* a, const char* b, Py_ssize_t i0,
                     Py_ssize_t i1) noexcept nogil:
    # The dtype dispatch: the element width picks elem_t, bool the logical accumulator. The
    # tile lives on this thread's stack (32 KB at most).
    cdef uint64_t tile[TILE_M * TILE_N]
    if g.is_bool:
        matmul_loop[uint8_t, uint8_t](g, c, a, b, i0, i1, NULL, <uint8_t*>tile)
    else:  # Note [Integer products in registers]
        int_gemm_rows(&g.ip, c, a, b, i0, i1)


cdef void _loop_gemm(GemmCtx* g, char* c, const char* a, const char* b) noexcept nogil:
    """One product through the strided loop, its row blocks across threads when big enough."""
    cdef Py_ssize_t m = g.m, nblocks = (g.m + TILE_M - 1) // TILE_M, blk, rows = TILE_M
    cdef int nthreads = num_threads()
    if (g.inner_parallel and nthreads > 1 and nblocks > 1
            and <double>g.m * g.n * g.k >= GEMM_GRAIN):
        if not g.is_bool:  # one range of rows a thread: each packs B's panels once
            rows = (nblocks + nthreads - 1) // nthreads * TILE_M
            nblocks = (m + rows - 1) // rows
        for blk in prange(nblocks, num_threads=nthreads, schedule="static"):
            _loop_rows(g, c, a, b, blk * rows, min(m, (blk + 1) * rows))
    else:
        _loop_rows(g, c, a, b, 0, m)


# =============================================================================================
# The batch: a loop plan over the batch dims, one product per element
# =============================================================================================

cdef void gemm_batch_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                          void* ctx) noexcept nogil:
    """The 1-D loop of the batch plan: n products; operand 0 is C, 1 is A, 2 is B."""
    cdef GemmCtx* g = <GemmCtx*>ctx
    cdef char* c = data[0]
    cdef const char* a = data[1]
    cdef const char* b = data[2]
    if g.tiny:  # the whole run of products in one call (Note [Tiny products in registers])
        tiny_gemm(&g.tp, c, a, b, n, strides[0], strides[1], strides[2])
        return
    for _ in range(n):
        if g.kernel == KERNEL_LOOP:
            _loop_gemm(g, c, a, b)
        else:
            _blas_gemm(g, c, a, b)
        c += strides[0]
        a += strides[1]
        b += strides[2]


cdef void _run_batches(const LoopPlan* plan, loop1d_fn loop, void* g,
                       bint across_batch) noexcept nogil:
    """Every product of the plan, each by ``loop``: one after another, or split across
    threads (see Note [Threads: ours and OpenBLAS's])."""
    cdef Py_ssize_t nbatch = plan.numel, chunk, nchunks, ch
    cdef int nthreads = num_threads()
    if not across_batch:
        plan_run_range(plan, loop, g, 0, nbatch)
        return
    nchunks = min(<Py_ssize_t>nthreads, nbatch)
    chunk = (nbatch + nchunks - 1) // nchunks
    for ch in prange(nchunks, num_threads=nthreads, schedule="static"):
        plan_run_range(plan, loop, g, ch * chunk, min(nbatch, (ch + 1) * chunk))


# =============================================================================================
# What the last matmul did, for last_matmul_plan() and tests
# =============================================================================================

cdef enum:
    FIX_CAST = 1        # cast to the computation dtype first (a contiguous copy)
    FIX_COPY = 2        # copied to row-major first: its layout is no BLAS matrix
    FIX_TEMP = 4        # (out=) the result went through a temporary, then into out=

ctypedef struct MatmulRecord:
    bint valid
    int kernel
    Py_ssize_t m, n, k, nbatch
    int itemsize
    bint is_bool, swap, tiny
    int threads         # THREADS_*: how the work was split
    int layout[3]       # out, x1, x2
    Py_ssize_t ld[3]
    int fixes[3]
    CBLAS_TRANSPOSE trans_a, trans_b

cdef enum:
    THREADS_ONE = 0
    THREADS_BATCH = 1   # a prange over the batch
    THREADS_ROWS = 2    # matmul_loop: a prange over blocks of output rows
    THREADS_BLAS = 3    # OpenBLAS's own threads, inside each GEMM (above its threshold)

cdef MatmulRecord _last

_KERNELS = ("cblas_sgemm", "cblas_dgemm", "cblas_cgemm", "cblas_zgemm", "matmul_loop")
_DOTS = ("cblas_sdot", "cblas_ddot", "cblas_cdotu_sub", "cblas_zdotu_sub")
_TRANS = {CblasNoTrans: "NoTrans", CblasTrans: "Trans"}


def last_matmul_plan():
    """What the most recent matmul did: the kernel, the sizes, how each operand reached it
    (its BLAS layout and leading dimension, or a cast or copy first) and how the batch ran. A
    teaching aid; see Note [Strided views as BLAS matrices].

    Examples
    --------
    >>> import strided
    >>> a = strided.ones((3, 20), dtype="float32")
    >>> _ = a.T @ a
    >>> plan = strided.last_matmul_plan()
    >>> plan["kernel"], plan["x1"]
    ('cblas_sgemm', 'column-major (a transposed view): lda=20, passed as Trans')
    >>> _ = a[:, :4].T @ a[:, :4]
    >>> strided.last_matmul_plan()["kernel"]
    'tiny_gemm (float32)'
    """
    if not _last.valid:
        return None
    r = _last
    if r.kernel == KERNEL_BF16:
        return _bf16_plan_info(r)
    names = ("out", "x1", "x2")
    lds = ("ldc", "lda", "ldb")
    dot = r.kernel != KERNEL_LOOP and r.m == 1 and r.n == 1
    if r.tiny:
        kernel = f"tiny_gemm ({'float64' if r.kernel == KERNEL_DGEMM else 'float32'})"
    elif dot:
        kernel = _DOTS[r.kernel]
    else:
        kernel = _KERNELS[r.kernel] + (
            f" ({'bool' if r.is_bool else f'{8 * r.itemsize}-bit'})"
            if r.kernel == KERNEL_LOOP else "")
    info = {
        "kernel": kernel,
        "m": r.m, "n": r.n, "k": r.k, "batches": r.nbatch,
        "threads": ("one", "across the batch", "across blocks of rows",
                    "OpenBLAS's own, inside each product")[r.threads],
    }
    for i in range(3):
        if r.kernel == KERNEL_LOOP or r.tiny:
            text = "read through its strides"
        elif dot:
            text = "one element" if i == 0 else "a vector: BLAS's inc is its stride"
        elif r.layout[i] == LAYOUT_ROW:
            text = f"row-major: {lds[i]}={r.ld[i]}"
        else:
            text = f"column-major (a transposed view): {lds[i]}={r.ld[i]}"
        if r.kernel != KERNEL_LOOP and not r.tiny and not dot and i > 0:
            text += ", passed as " + ("Trans" if r.layout[i] == LAYOUT_COL else "NoTrans")
        if r.fixes[i] & FIX_CAST:
            text = "cast into a contiguous temporary; " + text
        if r.fixes[i] & FIX_COPY:
            text = "copied to row-major (no BLAS layout); " + text
        if r.fixes[i] & FIX_TEMP:
            text = "computed into a temporary, then copied into out=; " + text
        info[names[i]] = text
    if r.kernel != KERNEL_LOOP and not r.tiny and not dot:
        info["call"] = (
            f"{_KERNELS[r.kernel]}(RowMajor, {_TRANS[r.trans_a]}, {_TRANS[r.trans_b]}, "
            f"M={r.m if not r.swap else r.n}, N={r.n if not r.swap else r.m}, K={r.k})"
            + (" computing out^T = x2^T @ x1^T (out is column-major)" if r.swap else ""))
    return info


# =============================================================================================
# matmul: shapes, dtypes, out=, then the batch loop
# =============================================================================================

cdef inline Py_ssize_t _stride_or_zero(TensorBase t, int d) noexcept:
    """t's stride along dim d, or 0 when the dim has size 1 (where a stride means nothing)."""
    return 0 if t._sizes[d] == 1 else t._strides[d]


cdef bint _is_tiny(int kernel, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) noexcept:
    """Whether an m x k by k x n product of this kernel's dtype takes the tiny kernels (Note
    [Which route a product takes])."""
    if kernel != KERNEL_SGEMM and kernel != KERNEL_DGEMM:
        return False
    if m == 1 and n == 1:
        return k <= TINY_DOT_K
    return (m <= STRIDED_TINY_MAX and n <= STRIDED_TINY_MAX and k <= STRIDED_TINY_MAX
            and m * n * k <= _tiny_work)


cdef Py_ssize_t _tiny_work = tiny_max_work()  # this CPU level's bound (gemm_loops.h)


cdef void _plan_tiny(GemmCtx* g, bint is_double) noexcept:
    """g.tp from the product's geometry, alpha and beta: see Note [Tiny products in registers]
    in gemm_loops.pyx."""
    g.tp.m = g.m
    g.tp.n = g.n
    g.tp.k = g.k
    g.tp.a_s0 = g.a_s0
    g.tp.a_s1 = g.a_s1
    g.tp.b_s0 = g.b_s0
    g.tp.b_s1 = g.b_s1
    g.tp.c_s0 = g.c_s0
    g.tp.c_s1 = g.c_s1
    g.tp.is_double = is_double
    g.tp.beta_zero = g.beta_zero
    if is_double:
        g.tp.alpha = (<double*>&g.alpha)[0]
        g.tp.beta = (<double*>&g.beta)[0]
    else:
        g.tp.alpha = (<float*>&g.alpha)[0]
        g.tp.beta = (<float*>&g.beta)[0]
    strided_tiny_plan(&g.tp, g.itemsize)


cdef void _plan_int(GemmCtx* g) noexcept:
    """g.ip from the product's geometry, alpha and beta (Note [Integer products in registers]
    in gemm_loops.pyx)."""
    g.ip.m = g.m
    g.ip.n = g.n
    g.ip.k = g.k
    g.ip.a_s0 = g.a_s0
    g.ip.a_s1 = g.a_s1
    g.ip.b_s0 = g.b_s0
    g.ip.b_s1 = g.b_s1
    g.ip.c_s0 = g.c_s0
    g.ip.c_s1 = g.c_s1
    g.ip.itemsize = g.itemsize
    g.ip.alpha = g.alpha_u
    g.ip.beta = g.beta_u
    g.ip.beta_zero = g.beta_zero


cdef int _kernel_for(DType dtype) noexcept:
    if dtype.num == kBFloat16:  # only reached when _bf16_on (see _half_matmul)
        return KERNEL_BF16
    if dtype.num == kFloat32:
        return KERNEL_SGEMM
    if dtype.num == kFloat64:
        return KERNEL_DGEMM
    if dtype.num == kComplex64:
        return KERNEL_CGEMM
    if dtype.num == kComplex128:
        return KERNEL_ZGEMM
    return KERNEL_LOOP


cdef void _matrix_strides(TensorBase t, bint vector, bint first, Py_ssize_t* s0,
                          Py_ssize_t* s1) noexcept:
    """The (row, col) element strides of t's matrices; a 1-D t is a row (first operand) or a
    column (second operand), NumPy's promotion."""
    cdef int nd = t._ndim
    if vector:
        s0[0] = 0 if first else t._strides[0]
        s1[0] = t._strides[0] if first else 0
    else:
        s0[0] = t._strides[nd - 2]
        s1[0] = t._strides[nd - 1]


cdef bint _broadcast_into(Py_ssize_t* batch, int nb, TensorBase t, int nbt) noexcept:
    """Broadcast t's first nbt dims (its batch dims) into batch[:nb], NumPy's rule (align
    the trailing dims; 1 stretches). False if they do not broadcast."""
    cdef int d, j
    cdef Py_ssize_t s
    for d in range(nbt):
        j = d + nb - nbt
        s = t._sizes[d]
        if batch[j] == 1:
            batch[j] = s
        elif s != 1 and s != batch[j]:
            return False
    return True


cdef str _dim_text(bint vector, bint first):
    if vector:
        return "the only dim"
    return "the last dim" if first else "the second-to-last dim"


# Note [A matrix times its own transpose]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# x.T @ x (a Gram matrix, the heart of least squares, PCA and covariances) and x @ x.T are
# symmetric: C[i, j] = C[j, i]. BLAS's ?syrk computes one triangle of such a product, half of
# GEMM's multiply-adds, and NumPy's matmul calls it when its two operands are one buffer read
# both ways. strided does the same for float32/float64 matrices (2-d, no out=, big enough for
# the saving to show: SYRK_MIN multiply-adds): when x2 is x1's transpose (one storage, one
# offset, the strides swapped), it asks ?syrk for the upper triangle and copies it into the
# lower one, in tiles so that both reads and writes stay in cache. The result is exactly
# symmetric, which GEMM's is not always (its two triangles are summed in different orders).
# 2000 x 200 float64, x.T @ x on one thread: GEMM 48 ms, ?syrk + mirror ~25 ms (NumPy 30 ms).

cdef enum:
    SYRK_MIN = 262144   # m * m * k: below it GEMM (one call) is as quick


cdef bint _is_own_transpose(TensorBase x1, TensorBase x2) noexcept:
    """Whether the 2-d x2 is x1's transpose: the same storage, offset and swapped strides."""
    return (x1._storage is x2._storage and x1._offset == x2._offset
            and x1._sizes[0] == x2._sizes[1] and x1._sizes[1] == x2._sizes[0]
            and x1._strides[0] == x2._strides[1] and x1._strides[1] == x2._strides[0])


cdef void _mirror_upper(char* c, Py_ssize_t n, Py_ssize_t itemsize) noexcept nogil:
    """Copy the upper triangle of the row-major n x n ``c`` into its lower one, in 64 x 64 tiles."""
    cdef Py_ssize_t i0, j0, i, j, i1, j1
    for i0 in range(0, n, 64):
        i1 = min(i0 + 64, n)
        for j0 in range(0, i0 + 1, 64):
            j1 = min(j0 + 64, n)
            for i in range(i0, i1):  # row i of the lower triangle, from column i above
                for j in range(j0, min(j1, i)):
                    if itemsize == 4:
                        (<float*>c)[i * n + j] = (<float*>c)[j * n + i]
                    else:
                        (<double*>c)[i * n + j] = (<double*>c)[j * n + i]


cdef TensorBase _syrk(TensorBase x1, DType dtype, Py_ssize_t m, Py_ssize_t k):
    """x1 @ x1.T through ?syrk (Note [A matrix times its own transpose]), or None when x1 is
    not a BLAS matrix (strides BLAS cannot read: the GEMM path copies it)."""
    cdef Py_ssize_t ld
    cdef Py_ssize_t shape[2]
    cdef int lay = blas_layout(m, k, x1._strides[0], x1._strides[1], &ld)
    cdef CBLAS_TRANSPOSE trans
    cdef TensorBase c
    cdef char* pc
    cdef const char* pa = x1._data()
    if lay == LAYOUT_OTHER:
        return None
    # C = X X^T with X = x1 (m x k): row-major X is ?syrk's NoTrans; column-major X is the
    # row-major k x m matrix Y = X^T, and C = Y^T Y is its Trans
    trans = CblasNoTrans if lay == LAYOUT_ROW else CblasTrans
    shape[0] = m
    shape[1] = m
    c = empty_tensor(2, shape, dtype, cpu_device)
    pc = c._data()
    with nogil:
        if dtype.num == kFloat32:
            scipy_cblas_ssyrk(CblasRowMajor, CblasUpper, trans, <blasint>m, <blasint>k, 1,
                              <const float*>pa, <blasint>ld, 0, <float*>pc, <blasint>m)
        else:
            scipy_cblas_dsyrk(CblasRowMajor, CblasUpper, trans, <blasint>m, <blasint>k, 1,
                              <const double*>pa, <blasint>ld, 0, <double*>pc, <blasint>m)
        _mirror_upper(pc, m, dtype.itemsize)
    return c


def matmul(TensorBase x1, TensorBase x2, TensorBase out=None):
    """The CPU kernel of ``strided.matmul``: see Note [Strided views as BLAS matrices]."""
    if _half.is_half(x1) or _half.is_half(x2):
        return _half_matmul(x1, x2, out, None, 1, 0)
    return _matmul("matmul", "x1", "x2", x1, x2, out, None, 1, 0)


def addmm(TensorBase input, TensorBase mat1, TensorBase mat2, *, beta=1, alpha=1,
          TensorBase out=None):
    """The CPU kernel of ``strided.addmm``: beta * input + alpha * (mat1 @ mat2), with BLAS's
    own alpha and beta (input is first copied into the result, broadcast)."""
    if _half.is_half(mat1) or _half.is_half(mat2) or _half.is_half(input):
        return _half_matmul(mat1, mat2, out, input, alpha, beta)
    return _matmul("addmm", "mat1", "mat2", mat1, mat2, out, input, alpha, beta)


cdef object _half_matmul(TensorBase x1, TensorBase x2, TensorBase out, TensorBase c_in,
                         object alpha, object beta):
    """A product with a float16 or bfloat16 operand: SGEMM on float32 copies (exact), the
    result rounded once to the promoted dtype (Note [Half precision through float32]), as
    PyTorch does on CPUs without native half GEMM; bfloat16 on a CPU with AVX512_BF16 runs
    bf16_gemm.h instead (Note [bfloat16 matmul through vdpbf16ps])."""
    cdef str name = "matmul" if c_in is None else "addmm"
    cdef DType want = promote_types(x1.dtype, x2.dtype)
    cdef TensorBase result
    if c_in is not None:
        want = promote_types(want, c_in.dtype)
    if want.num == kBFloat16 and _bf16_on:
        return _matmul(name, "x1", "x2", x1, x2, out, c_in, alpha, beta)
    result = _matmul(name, "x1", "x2", _half.widen(x1), _half.widen(x2), None,
                     _half.widen(c_in), alpha, beta)
    if out is not None:
        check_out_c(name, out, result._ndim, result._sizes, want, cpu_device)
    if want.itemsize == 2:  # rounded to the result's dtype, then cast into out= (as NumPy)
        result = _half.narrow(result, want)
    return result if out is None else _half.into(out, result)


cdef object _matmul(str name, str n1, str n2, TensorBase x1, TensorBase x2, TensorBase out,
                    TensorBase c_in, object alpha, object beta):
    cdef int nd1 = x1._ndim, nd2 = x2._ndim, nb, nb1, nb2, rnd, d
    cdef bint v1 = nd1 == 1, v2 = nd2 == 1, across, one_blas_thread
    cdef Py_ssize_t m, n, k, k2
    cdef Py_ssize_t batch[MAX_DIMS]
    cdef Py_ssize_t rshape[MAX_DIMS]
    cdef Py_ssize_t as0, as1, bs0, bs1, cs0, cs1, lda = 0, ldb = 0, ldc = 0
    cdef int lay_a = LAYOUT_ROW, lay_b = LAYOUT_ROW, lay_c = LAYOUT_ROW
    cdef int fix_a = 0, fix_b = 0, fix_c = 0
    cdef DType dtype
    cdef TensorBase a, b, target
    cdef GemmCtx g
    cdef LoopPlan plan
    cdef double work

    # -- shapes: NumPy's 1-D promotion, the contracted dims, the broadcast batch ---------------
    if nd1 == 0 or nd2 == 0:
        raise ValueError(
            f"{name}: {n1 if nd1 == 0 else n2} is 0-d (a scalar), but {name} needs tensors of "
            f"at least 1 dim; multiply by a scalar with strided.multiply or *")
    if not x1._storage.device.is_cpu or not x2._storage.device.is_cpu:
        raise NotImplementedError(f"{name}: tensors on {x1.device} and {x2.device}: only CPU "
                                  "tensors have a kernel in this build")
    m = 1 if v1 else x1._sizes[nd1 - 2]
    k = x1._sizes[nd1 - 1]
    k2 = x2._sizes[0] if v2 else x2._sizes[nd2 - 2]
    n = 1 if v2 else x2._sizes[nd2 - 1]
    if k != k2:
        raise ValueError(
            f"{name}: {_dim_text(v1, True)} of {n1} (size {k}) must match "
            f"{_dim_text(v2, False)} of {n2} (size {k2}); {n1} has shape {x1.shape}, {n2} has "
            f"shape {x2.shape}")
    nb1 = max(nd1 - 2, 0)
    nb2 = max(nd2 - 2, 0)
    nb = max(nb1, nb2)
    for d in range(nb):
        batch[d] = 1
    if not (_broadcast_into(batch, nb, x1, nb1) and _broadcast_into(batch, nb, x2, nb2)):
        raise ValueError(
            f"{name}: the batch dims of {n1} {x1.shape[:nb1]} and {n2} {x2.shape[:nb2]} cannot "
            f"be broadcast together (sizes must be equal, or one of them 1); {n1} has shape "
            f"{x1.shape}, {n2} has shape {x2.shape}")
    rnd = nb
    for d in range(nb):
        rshape[d] = batch[d]
    if not v1:
        rshape[rnd] = m
        rnd += 1
    if not v2:
        rshape[rnd] = n
        rnd += 1

    # -- dtypes ---------------------------------------------------------------------------------
    dtype = promote_types(x1.dtype, x2.dtype)
    if c_in is not None:
        dtype = promote_types(dtype, c_in.dtype)
    g.kernel = _kernel_for(dtype)
    g.tiny = _is_tiny(g.kernel, m, n, k)
    if g.kernel == KERNEL_LOOP and (isinstance(alpha, (float, complex))
                                    or isinstance(beta, (float, complex))):
        raise TypeError(f"{name}: alpha and beta must be integers for {dtype.name} tensors, "
                        f"got alpha={alpha!r}, beta={beta!r}")

    # -- out= checks (Note [Checking out=] in _iter.pyx) ---------------------------------------
    if out is not None:
        check_out_c(name, out, rnd, rshape, dtype, cpu_device)
    if g.kernel == KERNEL_BF16:  # its packing reads every layout: none of BLAS's fixes below
        return _bf16_matmul(x1, x2, out, c_in, alpha, beta, v1, v2, nb, rnd, batch, rshape)

    # -- x @ x.T and x.T @ x: half the work (Note [A matrix times its own transpose]) ----------
    if (out is None and c_in is None and nd1 == 2 and nd2 == 2 and m == n
            and (g.kernel == KERNEL_SGEMM or g.kernel == KERNEL_DGEMM)
            and x1.dtype is dtype and x2.dtype is dtype and <double>m * m * k >= SYRK_MIN
            and m <= INT_MAX and k <= INT_MAX and _is_own_transpose(x1, x2)):
        target = _syrk(x1, dtype, m, k)
        if target is not None:
            return target

    # -- inputs: cast to the computation dtype; copy what BLAS cannot read ----------------------
    a = x1
    b = x2
    if a.dtype is not dtype:
        a = contiguous_copy(a, dtype)
        fix_a |= FIX_CAST
    if b.dtype is not dtype:
        b = contiguous_copy(b, dtype)
        fix_b |= FIX_CAST
    _matrix_strides(a, v1, True, &as0, &as1)
    _matrix_strides(b, v2, False, &bs0, &bs1)
    if g.kernel != KERNEL_LOOP and not g.tiny:
        if m > INT_MAX or n > INT_MAX or k > INT_MAX:
            raise ValueError(f"{name}: matrices of {m} x {k} and {k} x {n} are too large for "
                             "32-bit BLAS (each size must be below 2**31)")
        lay_a = blas_layout(m, k, as0, as1, &lda)
        if lay_a == LAYOUT_OTHER:
            a = contiguous_copy(a)
            fix_a |= FIX_COPY
            _matrix_strides(a, v1, True, &as0, &as1)
            lay_a = blas_layout(m, k, as0, as1, &lda)
        lay_b = blas_layout(k, n, bs0, bs1, &ldb)
        if lay_b == LAYOUT_OTHER:
            b = contiguous_copy(b)
            fix_b |= FIX_COPY
            _matrix_strides(b, v2, False, &bs0, &bs1)
            lay_b = blas_layout(k, n, bs0, bs1, &ldb)

    # -- the output: out= itself, or a fresh (or temporary) row-major tensor --------------------
    target = None
    if out is not None:
        target = out
        if out.dtype is not dtype or storage_overlap(out, a) or storage_overlap(out, b):
            target = None
        elif g.kernel != KERNEL_LOOP and not g.tiny:
            cs0 = 0 if v1 else out._strides[nb]
            cs1 = 0 if v2 else out._strides[rnd - 1]
            if blas_layout(m, n, cs0, cs1, &ldc) == LAYOUT_OTHER:
                target = None
        if target is None:
            fix_c |= FIX_TEMP
    if target is None:
        target = empty_tensor(rnd, rshape, dtype, cpu_device)
    cs0 = 0 if v1 else target._strides[nb]
    cs1 = 0 if v2 else target._strides[rnd - 1]
    if g.kernel != KERNEL_LOOP:
        lay_c = blas_layout(m, n, cs0, cs1, &ldc)

    # -- alpha, beta, and the input of addmm ----------------------------------------------------
    g.beta_zero = beta == 0
    if g.kernel == KERNEL_LOOP:
        g.alpha_u = 1
        g.beta_u = 0
        if not (alpha == 1 and g.beta_zero):
            scalar_to_bytes(alpha, dtype, <char*>&g.alpha)
            scalar_to_bytes(beta, dtype, <char*>&g.beta)
            g.alpha_u = _widen(<char*>&g.alpha, dtype.itemsize)
            g.beta_u = _widen(<char*>&g.beta, dtype.itemsize)
    elif alpha == 1 and g.beta_zero:
        _one_zero(dtype.num, &g.alpha, &g.beta)
    else:
        scalar_to_bytes(alpha, dtype, <char*>&g.alpha)
        scalar_to_bytes(beta, dtype, <char*>&g.beta)
    if c_in is not None and not g.beta_zero:
        copy_(target, c_in)  # broadcast and cast: C starts as input, GEMM adds to it

    # -- the geometry of one product ------------------------------------------------------------
    g.m = m
    g.n = n
    g.k = k
    g.itemsize = dtype.itemsize
    g.is_bool = dtype.num == kBool
    g.a_s0 = as0 * dtype.itemsize
    g.a_s1 = as1 * dtype.itemsize
    g.b_s0 = bs0 * dtype.itemsize
    g.b_s1 = bs1 * dtype.itemsize
    g.c_s0 = cs0 * dtype.itemsize
    g.c_s1 = cs1 * dtype.itemsize
    g.swap = lay_c == LAYOUT_COL
    g.bk = <blasint>k
    g.ldc = <blasint>ldc
    if not g.swap:
        g.bm = <blasint>m
        g.bn = <blasint>n
        g.trans_a = CblasNoTrans if lay_a == LAYOUT_ROW else CblasTrans
        g.trans_b = CblasNoTrans if lay_b == LAYOUT_ROW else CblasTrans
        g.lda = <blasint>lda
        g.ldb = <blasint>ldb
    else:
        # C^T = B^T @ A^T: BLAS's A is our B transposed, its B our A transposed
        g.bm = <blasint>n
        g.bn = <blasint>m
        g.trans_a = CblasNoTrans if lay_b == LAYOUT_COL else CblasTrans
        g.trans_b = CblasNoTrans if lay_a == LAYOUT_COL else CblasTrans
        g.lda = <blasint>ldb
        g.ldb = <blasint>lda
    if g.tiny:
        _plan_tiny(&g, dtype.num == kFloat64)
    elif g.kernel == KERNEL_LOOP:
        _plan_int(&g)

    # -- the batch: a loop plan over the batch dims (stride 0 where an input is broadcast) ------
    _batch_plan(&plan, nb, batch, target, a, b)

    # -- run ------------------------------------------------------------------------------------
    work = <double>m * n * k
    across = False
    if plan.numel > 1 and num_threads() > 1 and work * plan.numel >= GEMM_GRAIN:
        if g.kernel == KERNEL_LOOP:
            across = plan.numel >= num_threads() or work < GEMM_GRAIN
        else:
            across = work <= OPENBLAS_SERIAL_MNK or (
                work <= _batch_split_mnk and plan.numel >= BATCH_SPLIT_MIN * num_threads())
    g.inner_parallel = not across
    # a product OpenBLAS would thread, inside the prange: it must keep to one thread (Note
    # [Products of a batch across threads])
    one_blas_thread = across and g.kernel != KERNEL_LOOP and work > OPENBLAS_SERIAL_MNK
    if one_blas_thread:
        _hold_one_blas_thread()
    try:
        if m > 0 and n > 0 and plan.numel > 0:
            if work * plan.numel < GIL_GRAIN:
                _run_batches(&plan, gemm_batch_loop, &g, across)
            else:
                with nogil:
                    _run_batches(&plan, gemm_batch_loop, &g, across)
    finally:
        if one_blas_thread:
            _release_one_blas_thread()

    _last.valid = True
    _last.kernel = g.kernel
    _last.m = m
    _last.n = n
    _last.k = k
    _last.nbatch = plan.numel
    _last.itemsize = <int>dtype.itemsize
    _last.is_bool = g.is_bool
    _last.swap = g.swap
    _last.tiny = g.tiny
    _last.threads = THREADS_ONE
    if across:
        _last.threads = THREADS_BATCH
    elif num_threads() > 1 and work >= GEMM_GRAIN:
        if g.kernel == KERNEL_LOOP and m > TILE_M:
            _last.threads = THREADS_ROWS
        elif g.kernel != KERNEL_LOOP and work > OPENBLAS_SERIAL_MNK:
            _last.threads = THREADS_BLAS
    _last.trans_a = g.trans_a
    _last.trans_b = g.trans_b
    _last.layout[0] = lay_c
    _last.layout[1] = lay_a
    _last.layout[2] = lay_b
    _last.ld[0] = ldc
    _last.ld[1] = lda
    _last.ld[2] = ldb
    _last.fixes[0] = fix_c
    _last.fixes[1] = fix_a
    _last.fixes[2] = fix_b
    return _finish(out, target)


cdef void _batch_plan(LoopPlan* plan, int nb, const Py_ssize_t* batch, TensorBase target,
                      TensorBase a, TensorBase b) except *:
    """The loop plan over the batch dims: C, A, B, with stride 0 where an input is broadcast."""
    cdef Py_ssize_t sa[MAX_DIMS]
    cdef Py_ssize_t sb[MAX_DIMS]
    cdef Py_ssize_t sc[MAX_DIMS]
    cdef int nb1 = a._ndim - 2 if a._ndim > 2 else 0, nb2 = b._ndim - 2 if b._ndim > 2 else 0
    cdef int d, j
    cdef Py_ssize_t itemsize = target.dtype.itemsize
    for d in range(nb):
        sc[d] = target._strides[d]
        j = d - (nb - nb1)
        sa[d] = 0 if j < 0 else _stride_or_zero(a, j)
        j = d - (nb - nb2)
        sb[d] = 0 if j < 0 else _stride_or_zero(b, j)
    plan_init(plan, 3, nb, batch)
    plan_set_operand(plan, 0, target._data(), sc, itemsize)
    plan_set_operand(plan, 1, a._data(), sa, itemsize)
    plan_set_operand(plan, 2, b._data(), sb, itemsize)
    plan_reorder(plan)
    plan_coalesce(plan)


cdef object _finish(TensorBase out, TensorBase target):
    """The result: target, or out= with target's values (copied in when they differ)."""
    if out is None:
        return target
    if target is not out:
        copy_(out, target)  # casts, and bumps out's version
    else:
        out._storage.version += 1
    return out


cdef uint64_t _widen(const char* p, Py_ssize_t itemsize) noexcept:
    """The element at p as an unsigned 64-bit integer (its low bits are all that matter)."""
    if itemsize == 1:
        return (<const uint8_t*>p)[0]
    if itemsize == 2:
        return (<const uint16_t*>p)[0]
    if itemsize == 4:
        return (<const uint32_t*>p)[0]
    return (<const uint64_t*>p)[0]


cdef void _one_zero(int num, ScalarBuf* one, ScalarBuf* zero) noexcept:
    """alpha = 1 and beta = 0 in a float or complex dtype, without the Python conversion."""
    cdef float f = 1
    cdef double x = 1
    memset(one, 0, sizeof(ScalarBuf))
    memset(zero, 0, sizeof(ScalarBuf))
    if num == kFloat32 or num == kComplex64:
        memcpy(one, &f, sizeof(float))
    else:
        memcpy(one, &x, sizeof(double))


# =============================================================================================
# bfloat16 on vdpbf16ps
# =============================================================================================

# Note [bfloat16 matmul through vdpbf16ps]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A bfloat16 product otherwise runs SGEMM on float32 copies (Note [Half precision through
# float32]), so it can never be faster than float32. CPUs with AVX512_BF16 (Intel Cooper Lake and
# Sapphire Rapids, AMD Zen 4) have an instruction for it: vdpbf16ps takes 16 pairs of bfloat16
# from each of two registers, multiplies pair by pair and adds both products to 16 float32
# accumulators, 32 multiply-adds an instruction, twice float32's FMA. bf16_gemm.h is a GEMM
# built on it the way Note [Why GEMM is fast] describes:
#
# - Packing. A pair is two bfloat16 of consecutive k in one 32-bit word. A is packed in panels
#   of 12 rows of k/2 pairs (each pair is broadcast to all 16 lanes), B in panels of 32
#   columns ([k/2][32] pairs: two registers of 16 columns). Packing reads each operand through
#   its own strides, so every layout (transposed, stepped, negative or 0 strides, a vector)
#   costs one pass over it and no copy; rows and columns of contiguous memory take loops the
#   compiler vectorises. An odd k is padded with a zero pair half in both A and B. Rows of A
#   that are contiguous with k even are such panels already, at any step between rows: they
#   are read where they lie, unpacked (512 x 512 at 1 thread: 0.59 -> 0.57 ms).
# - The micro-kernel keeps a 12 x 32 tile of C in 24 of the 32 vector registers across 256
#   pairs of k (a 12 KB micro-panel of A stays in L1 while the panels of B stream past it from
#   L2), then adds the tile into a float32 buffer of its block of C (48 x 1024 at most, sizes
#   chosen by measurement: bf16_gemm.h); blocks of C are the threads' work, made smaller when
#   there are fewer than two per thread. At the end of k each element is alpha * sum
#   (+ beta * C, fused) rounded once to bfloat16, as strided_f32_to_bf16 rounds. A batch whose
#   B is broadcast packs it once. Measured on a Zen 4 core (benchmarks/bench_bf16_matmul.py,
#   1 thread, medians of 9 alternated rounds, float32 path -> this, PyTorch): 64 x 64 7.2 ->
#   3.6 us (11.4), 512 x 512 2.18 -> 0.57 ms (0.57), 2048 x 2048 142 -> 38.5 ms (39.1),
#   64x784 @ 784x256 242 -> 73 us (74). 2 threads, in a quiet moment of the shared machine:
#   512 x 512 1.14 -> 0.30 ms (0.29), 2048 x 2048 71 -> 19 ms (19), 64x784 @ 784x256
#   139 -> 39 us (44).
#
# The arithmetic. A product of two bfloat16 (8-bit significands) is exact in float32, in both
# paths; the sums are float32 additions in an order of this kernel's own (each lane adds a
# pair's two products in turn, each block of 256 pairs is summed from zero, and the blocks' sums
# are added in order of k; the same order whatever the threads), so the float32 sum s differs
# from the exact one by at most k * 2^-24 * sum |a||b| (the usual bound for k float32
# additions), as SGEMM's does, and the result is s rounded once to bfloat16. What differs is
# the instruction's fixed environment: vdpbf16ps treats subnormal inputs as zero and flushes
# subnormal results to zero (DAZ and FTZ, whatever MXCSR says), where SGEMM on the widened
# copies keeps them. So a bfloat16 subnormal (magnitude below 2^-126 ~ 1.2e-38) in A or B
# counts as 0 (times inf it gives NaN, not inf), and a partial sum that falls below 2^-126
# becomes 0: an absolute error of at most 2^-126 per addition, k * 2^-126 in all. PyTorch's
# bfloat16 matmul gives the same zeros where it runs the instruction (64 x 2 @ 2 x 64 on a
# Zen 4; at 16 x 16 it takes another kernel and keeps them). Infinities and NaN propagate as
# in float32 (inf - inf and 0 * inf are NaN).
#
# Chosen when CPUID lists AVX512_BF16 and the x86-64-v4 kernels run (cpu_dispatch.avx512_bf16);
# STRIDED_BF16_GEMM=0 in the environment, or STRIDED_CPU_FEATURES=x86-64-v3 or lower, keeps the
# float32 path (tests run both). bf16_gemm.h's functions carry a target attribute, so the module
# is still compiled for the baseline and the rest of the build is unchanged. float16 has no such
# instruction on these CPUs and keeps the float32 path: a float32 micro-kernel fed by packing
# that widens could save only the widening copies, 0.03 ms of float16's 2.24 ms at 512 x 512
# (float32 2.18 ms; PyTorch's float16 takes 105 ms), so it is not worth a kernel of its own.

cdef bint _bf16_on = (STRIDED_HAVE_BF16_GEMM != 0 and _cpu_dispatch.avx512_bf16
                      and os.environ.get("STRIDED_BF16_GEMM", "").strip() != "0")


def _set_bf16_gemm(on):
    """Turn the vdpbf16ps path on or off (for tests and benchmarks); it stays off where the
    CPU lacks it. Returns the previous setting."""
    global _bf16_on
    cdef bint before = _bf16_on
    _bf16_on = bool(on) and STRIDED_HAVE_BF16_GEMM != 0 and _cpu_dispatch.avx512_bf16
    return before


ctypedef struct Bf16Ctx:
    strided_bf16_gemm_args args
    char* ws            # one workspace per thread when threads take products of the batch
    size_t ws_bytes
    int threads         # threads inside each product


cdef void bf16_batch_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                          void* ctx) noexcept nogil:
    """The 1-D loop of the batch plan for bfloat16: n products, each by bf16_gemm.h."""
    cdef Bf16Ctx* x = <Bf16Ctx*>ctx
    cdef char* ws = x.ws + <size_t>openmp.omp_get_thread_num() * x.ws_bytes
    cdef char* c = data[0]
    cdef const char* a = data[1]
    cdef const char* b = data[2]
    for _ in range(n):
        strided_bf16_gemm(&x.args, c, a, b, ws, x.threads)
        c += strides[0]
        a += strides[1]
        b += strides[2]


cdef object _bf16_matmul(TensorBase x1, TensorBase x2, TensorBase out, TensorBase c_in,
                         object alpha, object beta, bint v1, bint v2, int nb, int rnd,
                         const Py_ssize_t* batch, const Py_ssize_t* rshape):
    """matmul and addmm of bfloat16 through bf16_gemm.h, after _matmul's shape and out= work
    (Note [bfloat16 matmul through vdpbf16ps])."""
    cdef DType dtype = x1.dtype if x1.dtype.num == kBFloat16 else x2.dtype
    cdef TensorBase a = x1, b = x2, target = None
    cdef Py_ssize_t s0, s1, m, n, k, i, nbytes
    cdef TensorBase workspace
    cdef Bf16Ctx x
    cdef LoopPlan plan
    cdef int nt = num_threads(), nws, fix_a = 0, fix_b = 0, fix_c = 0
    cdef double work
    cdef bint across
    if a.dtype is not dtype:
        a = contiguous_copy(a, dtype)
        fix_a = FIX_CAST
    if b.dtype is not dtype:
        b = contiguous_copy(b, dtype)
        fix_b = FIX_CAST
    m = 1 if v1 else a._sizes[a._ndim - 2]
    k = a._sizes[a._ndim - 1]
    n = 1 if v2 else b._sizes[b._ndim - 1]
    _matrix_strides(a, v1, True, &s0, &s1)
    x.args.a_s0, x.args.a_s1 = s0 * 2, s1 * 2
    _matrix_strides(b, v2, False, &s0, &s1)
    x.args.b_s0, x.args.b_s1 = s0 * 2, s1 * 2
    x.args.m, x.args.n, x.args.k = m, n, k
    if out is not None:
        if out.dtype is dtype and not storage_overlap(out, a) and not storage_overlap(out, b):
            target = out
        else:
            fix_c = FIX_TEMP
    if target is None:
        target = empty_tensor(rnd, rshape, dtype, cpu_device)
    x.args.c_s0 = 0 if v1 else target._strides[nb] * 2
    x.args.c_s1 = 0 if v2 else target._strides[rnd - 1] * 2
    x.args.beta_zero = beta == 0
    x.args.alpha = <float>float(alpha)
    x.args.beta = 0 if x.args.beta_zero else <float>float(beta)
    if c_in is not None and not x.args.beta_zero:
        copy_(target, c_in)  # broadcast and cast: C starts as input
    _batch_plan(&plan, nb, batch, target, a, b)

    # threads: across the batch when it has enough small products (as the integer loop),
    # else inside each product, over blocks of C
    work = <double>m * n * k
    across = (plan.numel > 1 and nt > 1 and work * plan.numel >= GEMM_GRAIN
              and (plan.numel >= nt or work < GEMM_GRAIN))
    x.threads = 1 if across or work < GEMM_GRAIN else nt
    nws = nt if across else 1
    x.ws_bytes = strided_bf16_gemm_bytes(m, n, k, x.threads)
    if m > 0 and n > 0 and plan.numel > 0:
        # from the caching allocator (Note [Allocation] in _alloc.pyx): large blocks kept for
        # reuse, on huge pages, rather than page faults on fresh memory in each call
        nbytes = x.ws_bytes * nws
        workspace = empty_tensor(1, &nbytes, dtype_from_num(kUInt8), cpu_device)
        x.ws = workspace._data()
        for i in range(nws):
            (<strided_bf16_ws_head*>(x.ws + i * x.ws_bytes)).packed_b = NULL
        with nogil:
            _run_batches(&plan, bf16_batch_loop, &x, across)

    _last.valid = True
    _last.kernel = KERNEL_BF16
    _last.m, _last.n, _last.k, _last.nbatch = m, n, k, plan.numel
    _last.itemsize = 2
    _last.threads = (THREADS_BATCH if across else
                     THREADS_BLOCKS if x.threads > 1 else THREADS_ONE)
    _last.fixes[0], _last.fixes[1], _last.fixes[2] = fix_c, fix_a, fix_b
    return _finish(out, target)


cdef enum:
    THREADS_BLOCKS = 4  # bf16_gemm.h: threads over blocks of C inside each product


cdef dict _bf16_plan_info(MatmulRecord r):
    """last_matmul_plan() for a product through bf16_gemm.h."""
    cdef dict info = {
        "kernel": "bf16_gemm (vdpbf16ps)", "m": r.m, "n": r.n, "k": r.k, "batches": r.nbatch,
        "threads": ("one", "across the batch", "", "", "across blocks of the output")[r.threads],
    }
    for i, name in enumerate(("out", "x1", "x2")):
        text = ("written through its strides" if i == 0 else
                "packed into pairs through its strides")
        if r.fixes[i] & FIX_CAST:
            text = "cast into a contiguous temporary; " + text
        if r.fixes[i] & FIX_TEMP:
            text = "computed into a temporary, then copied into out=; " + text
        info[name] = text
    return info
