# Strided's own small-matrix factorisations: LAPACK's unblocked loops, for matrices too small
# for a LAPACK call to pay. Header-only (inline functions, no module at run time): lapack.pyx
# cimports them and decides, per batch, which of the two runs (``_small`` there). Compiled as
# part of lapack.pyx, with its options (no fused multiply-adds: lapack_options in setup.py).

from libc.math cimport fabs, sqrt

from strided._fused cimport real_t  # float, double: the loops' element types

cdef extern from "lapacke.h" nogil:
    ctypedef int lapack_int


# Note [Small matrices without LAPACK]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# For a tiny matrix a LAPACK call is mostly overhead: OpenBLAS's ?getrf + ?getrs take about
# 0.8 us on one 4 x 4 float32 system, where the arithmetic is 60 multiply-adds, and its LU and
# Cholesky draw buffers from a pool shared by every thread, so a batch of them cannot run in
# parallel (see the comment above ``parallel`` in lapack.pyx's run_batch). A batch of 10000
# such systems, the common case in graphics, robotics and per-pixel fits, took 12 ms here,
# NumPy 14 ms.
# So square real matrices of up to SMALL_N rows take these loops instead: LAPACK's own
# unblocked algorithms (?getf2, ?getrs through ?trsm's loops, ?potf2), in the same order of
# operations, with the same pivots, the same ``ipiv`` (1-based) and the same ``info`` (the
# first zero pivot, or the first column that is not positive definite, 1-based), and they run
# the batch across strided's threads; so do real matrices of any shape up to SMALL_N x SMALL_N
# for QR (?geqr2 and ?org2r: the same reflectors, so R's signs are LAPACK's; unlike ?larfg,
# no rescaling of columns whose norm is below the smallest normal number). Complex matrices
# and bigger ones stay with LAPACK, whose blocked algorithms pay from about 24 rows on
# (measured with a C loop over 10000 matrices: n = 4: 12.5 ms LAPACK, 2.8 ms here; n = 16:
# 41 ms and 23 ms).

cdef enum:
    SMALL_N = 16


cdef inline lapack_int small_getrf(real_t* a, lapack_int n, lapack_int* ipiv) noexcept nogil:
    """LAPACK's ?getf2 on the n x n column-major ``a``: P A = L U with partial pivoting."""
    cdef lapack_int i, c, k, p, info = 0
    cdef real_t big, v, t, pivot
    for k in range(n):
        p = k  # the pivot: the first largest |a[i, k]| for i >= k (as i?amax)
        big = fabs(a[k + k * n])
        for i in range(k + 1, n):
            v = fabs(a[i + k * n])
            if v > big:
                big = v
                p = i
        ipiv[k] = p + 1
        pivot = a[p + k * n]
        if pivot != 0:
            if p != k:  # swap rows k and p, every column
                for c in range(n):
                    t = a[k + c * n]
                    a[k + c * n] = a[p + c * n]
                    a[p + c * n] = t
            for i in range(k + 1, n):  # the multipliers: column k of L
                a[i + k * n] = a[i + k * n] / pivot
        elif info == 0:
            info = k + 1
        for c in range(k + 1, n):  # the rank-1 update of the trailing block (as ?ger)
            t = a[k + c * n]
            if t != 0:
                for i in range(k + 1, n):
                    a[i + c * n] -= a[i + k * n] * t
    return info


cdef inline void small_getrs(char trans, const real_t* a, lapack_int n, const lapack_int* ipiv,
                             real_t* b, lapack_int nrhs) noexcept nogil:
    """LAPACK's ?getrs: solves A X = B (``trans`` "N") or A^T X = B ("T") from ?getf2's
    factors, each column of the column-major n x nrhs ``b`` in place."""
    cdef lapack_int i, k, p, c
    cdef real_t t
    cdef real_t* x
    for c in range(nrhs):
        x = b + c * n
        if trans == b"N":  # P A = L U: x = U^-1 L^-1 P b
            for i in range(n):
                p = ipiv[i] - 1
                if p != i:
                    t = x[i]
                    x[i] = x[p]
                    x[p] = t
            for i in range(n):  # L, unit lower, column by column
                t = x[i]
                if t != 0:
                    for k in range(i + 1, n):
                        x[k] -= t * a[k + i * n]
            for i in range(n - 1, -1, -1):  # U, upper, column by column
                if x[i] != 0:
                    x[i] = x[i] / a[i + i * n]
                    t = x[i]
                    for k in range(i):
                        x[k] -= t * a[k + i * n]
        else:  # A^T = U^T L^T P: x = P^T L^-T U^-T b
            for i in range(n):  # U^T, lower: row i of U^T is column i of U
                t = x[i]
                for k in range(i):
                    t -= a[k + i * n] * x[k]
                x[i] = t / a[i + i * n]
            for i in range(n - 1, -1, -1):  # L^T, unit upper
                t = x[i]
                for k in range(i + 1, n):
                    t -= a[k + i * n] * x[k]
                x[i] = t
            for i in range(n - 1, -1, -1):  # P^T: the swaps in reverse order
                p = ipiv[i] - 1
                if p != i:
                    t = x[i]
                    x[i] = x[p]
                    x[p] = t


cdef inline lapack_int small_potrf(char uplo, real_t* a, lapack_int n) noexcept nogil:
    """LAPACK's ?potf2: A = L L^T (``uplo`` "L", the lower triangle of the column-major
    ``a``) or U^T U ("U"), the other triangle untouched; stops at the first column whose
    pivot is not positive (NaN included) and returns its 1-based index."""
    cdef lapack_int i, jj, k
    cdef real_t d, t
    for jj in range(n):
        d = a[jj + jj * n]
        if uplo == b"L":
            for k in range(jj):
                d -= a[jj + k * n] * a[jj + k * n]
        else:
            for k in range(jj):
                d -= a[k + jj * n] * a[k + jj * n]
        if not d > 0:
            a[jj + jj * n] = d
            return jj + 1
        d = sqrt(d)
        a[jj + jj * n] = d
        for i in range(jj + 1, n):
            if uplo == b"L":  # column jj of L below the diagonal
                t = a[i + jj * n]
                for k in range(jj):
                    t -= a[i + k * n] * a[jj + k * n]
                a[i + jj * n] = t / d
            else:  # row jj of U right of the diagonal
                t = a[jj + i * n]
                for k in range(jj):
                    t -= a[k + jj * n] * a[k + i * n]
                a[jj + i * n] = t / d
    return 0


cdef inline real_t _norm2(const real_t* x, lapack_int n) noexcept nogil:
    """||x||_2 without overflow or underflow (as ?nrm2: scaled by the largest |x_i|)."""
    cdef lapack_int i
    cdef real_t scale = 0, ssq = 0, t
    for i in range(n):
        t = fabs(x[i])
        if t > scale:
            scale = t
    if scale == 0 or scale != scale:
        return scale
    for i in range(n):
        t = x[i] / scale
        ssq += t * t
    return scale * sqrt(ssq)


cdef inline void _apply_reflector(const real_t* v, real_t tau, real_t* c, lapack_int m,
                                  lapack_int ncols, lapack_int ldc) noexcept nogil:
    """C = (I - tau v v^T) C for the m x ncols column-major block ``c`` (?larf, 'Left')."""
    cdef lapack_int i, col
    cdef real_t w
    if tau == 0:
        return
    for col in range(ncols):
        w = 0
        for i in range(m):
            w += v[i] * c[i + col * ldc]
        w *= tau
        for i in range(m):
            c[i + col * ldc] -= v[i] * w


cdef inline void small_geqrf(real_t* a, lapack_int m, lapack_int n, real_t* tau) noexcept nogil:
    """LAPACK's ?geqr2: A = Q R by Householder reflectors, in place (R on and above the
    diagonal, reflector i's tail below it, its scale in tau[i]); as ?larfg, each reflector
    makes the diagonal element -sign(alpha) ||x||."""
    cdef lapack_int i, r, k = m if m < n else n
    cdef real_t alpha, xnorm, beta, t, big, small
    cdef real_t v[SMALL_N]
    for i in range(k):
        alpha = a[i + i * m]
        xnorm = _norm2(a + i + 1 + i * m, m - i - 1)
        if xnorm == 0:
            tau[i] = 0
        else:
            big = fabs(alpha) if fabs(alpha) > xnorm else xnorm  # ?lapy2: sqrt(alpha^2 +
            small = xnorm if fabs(alpha) > xnorm else fabs(alpha)  # xnorm^2), no overflow
            beta = big * sqrt(1 + (small / big) * (small / big))
            if alpha >= 0:
                beta = -beta
            tau[i] = (beta - alpha) / beta
            t = 1 / (alpha - beta)
            for r in range(i + 1, m):
                a[r + i * m] *= t
            a[i + i * m] = beta
        if i < n - 1:
            v[0] = 1
            for r in range(i + 1, m):
                v[r - i] = a[r + i * m]
            _apply_reflector(v, tau[i], a + i + (i + 1) * m, m - i, n - i - 1, m)


cdef inline void small_orgqr(real_t* a, lapack_int m, lapack_int n, lapack_int k,
                             const real_t* tau) noexcept nogil:
    """LAPACK's ?org2r: the first n columns of Q = H(0) ... H(k-1), in place over the k
    reflectors ?geqr2 left in the m x n column-major ``a``."""
    cdef lapack_int i, r, col
    cdef real_t v[SMALL_N]
    for col in range(k, n):  # the columns past the reflectors start as the identity's
        for r in range(m):
            a[r + col * m] = 0
        a[col + col * m] = 1
    for i in range(k - 1, -1, -1):
        if i < n - 1:
            v[0] = 1
            for r in range(i + 1, m):
                v[r - i] = a[r + i * m]
            _apply_reflector(v, tau[i], a + i + (i + 1) * m, m - i, n - i - 1, m)
        for r in range(i + 1, m):
            a[r + i * m] *= -tau[i]
        a[i + i * m] = 1 - tau[i]
        for r in range(i):
            a[r + i * m] = 0
