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


# Note [Small symmetric eigenproblems by Jacobi]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ?syevd reduces a matrix to tridiagonal form and then divides and conquers: the right plan for
# a 500 x 500 matrix, and about 2 us of set-up on a 4 x 4 one, whose arithmetic is a few hundred
# multiply-adds. For real symmetric matrices of up to SMALL_EIGH_N rows (SMALL_EIGVALSH_N for
# eigenvalues alone; measured below) ``small_syev`` runs the
# cyclic Jacobi method instead (Golub and Van Loan, "Matrix Computations", 8.5, with the
# rotation formulas of Numerical Recipes' ``jacobi``): each rotation
#
#     J = [[c, s], [-s, c]] in rows/columns p and q,  A <- J^T A J,  V <- V J,
#
# is chosen to zero A[p, q]; a sweep visits every pair p < q, and a few sweeps (4-6 for these sizes:
# the convergence is quadratic) drive the off-diagonal part below the rounding noise (an element
# under eps sqrt(|A_pp A_qq|), or under eps n max|A|, is dropped), the rotations' product V holding
# the eigenvectors. Jacobi is as accurate as LAPACK's method or more (every eigenvalue to a few ulps
# of ||A||), works on the full matrix built from the triangle ``uplo`` names (the other is not read,
# as LAPACK), and sorts the eigenvalues ascending with their vectors, as ?syevd returns them.
# Eigenvectors are defined only up to sign (or, for a repeated eigenvalue, up to a rotation of their
# space), and Jacobi's signs are not ?syevd's: NumPy's own results change sign between LAPACK builds
# for the same reason. A matrix with an infinity or a NaN, or one that has not converged after 50
# sweeps (it does not happen for finite input), is declined (SMALL_DECLINED) and goes to LAPACK,
# whose NaN results NumPy users see.
#
# Jacobi's work grows as n^3 per sweep, LAPACK's set-up does not, so the crossover is low.
# Measured on 10000 float32 matrices, one thread (AMD EPYC, AVX2), Jacobi against NumPy's
# LAPACK: eigh n = 3: 4.5x, 4: 2.9x, 5: 2.0x, 6: 1.6x, 8: 1.2x, 10: 0.9x; eigvalsh (no
# vectors to rotate, and LAPACK's value-only path is cheaper) n = 3: 2.0x, 4: 1.8x, 5: 1.4x,
# 6: 0.8x. Hence the two limits.

cdef enum:
    SMALL_DECLINED = -1000000  # not an info LAPACK returns: "run LAPACK on this matrix"
    SMALL_EIGH_N = 8           # the largest n that eigh (jobz "V") solves by Jacobi
    SMALL_EIGVALSH_N = 5       # ... and eigvalsh (jobz "N")


cdef inline void _rotate(real_t* x, real_t* y, lapack_int n, lapack_int step, real_t cs,
                         real_t sn) noexcept nogil:
    """[x, y] <- [x, y] [[cs, sn], [-sn, cs]]: a plane rotation of two vectors of n elements,
    ``step`` elements apart (the columns of a matrix)."""
    cdef lapack_int i
    cdef real_t a, b
    for i in range(n):
        a = x[i * step]
        b = y[i * step]
        x[i * step] = cs * a - sn * b
        y[i * step] = sn * a + cs * b


cdef inline real_t _jacobi_tangent(real_t theta) noexcept nogil:
    """t = tan(phi) of the Jacobi rotation whose cotangent of twice its angle is ``theta``: the
    root of t^2 + 2 theta t - 1 = 0 of smaller magnitude (|phi| <= pi/4, the rotation that
    moves the vectors least, which keeps the sweep convergent). Shared by the eigen-solver
    (theta from the diagonal and the off-diagonal element) and the one-sided SVD (from two
    columns' norms and their dot product)."""
    cdef real_t t
    if fabs(theta) > <real_t>1e15:
        return <real_t>0.5 / theta  # theta^2 would overflow: t = 1 / (2 theta)
    t = 1 / (fabs(theta) + sqrt(1 + theta * theta))
    return -t if theta < 0 else t


cdef inline lapack_int small_syev(char jobz, char uplo, real_t* a, lapack_int n,
                                  real_t* w) noexcept nogil:
    """Eigenvalues (ascending, into ``w``) and, for ``jobz`` "V", eigenvectors (the columns
    of the column-major ``a``, overwritten) of the symmetric n x n matrix whose triangle
    ``uplo`` ("L" or "U") ``a`` holds; 0, or SMALL_DECLINED (Note [Small symmetric
    eigenproblems by Jacobi])."""
    cdef real_t s[SMALL_N * SMALL_N]   # the full symmetric matrix, row-major
    cdef real_t v[SMALL_N * SMALL_N]   # the rotations' product
    cdef real_t d[SMALL_N]
    cdef lapack_int i, k, p, q, r, _sweep, best
    cdef real_t eps, big, floor, lim, apq, h, t, c, sn, tau, x, y
    cdef bint rotated
    # eps: half an ulp of 1 in the element type
    eps = <real_t>5.9604644775390625e-08 if real_t is float else <real_t>1.1102230246251565e-16
    big = 0
    for i in range(n):
        for k in range(n):
            # element (i, k) from the stored triangle: (i, k) itself or its mirror (k, i)
            if (uplo == b"L") == (i >= k):
                x = a[i + k * n]
            else:
                x = a[k + i * n]
            if not (x - x == 0):  # inf or NaN
                return SMALL_DECLINED
            s[i * n + k] = x
            v[i * n + k] = 1 if i == k else 0
            if fabs(x) > big:
                big = fabs(x)
        d[i] = s[i * n + i]
    # an off-diagonal element is negligible below eps sqrt(|d_p d_q|) (it cannot change either
    # eigenvalue's leading digits), and never above eps n max|A_ik| (>= eps ||A||_F, without
    # squares that overflow), which bounds the noise each rotation leaves: the sweeps end when
    # a whole sweep rotates nothing
    floor = eps * n * big
    for _sweep in range(50):
        rotated = False
        for p in range(n):
            for q in range(p + 1, n):
                apq = s[p * n + q]
                lim = eps * sqrt(fabs(d[p])) * sqrt(fabs(d[q]))
                if lim < floor:
                    lim = floor
                if fabs(apq) <= lim:
                    s[p * n + q] = 0
                    s[q * n + p] = 0
                    continue
                rotated = True
                # the rotation that zeroes A[p, q]: t = tan of its angle, the smaller root
                h = d[q] - d[p]
                t = _jacobi_tangent(<real_t>0.5 * h / apq)
                c = 1 / sqrt(1 + t * t)
                sn = t * c
                tau = sn / (1 + c)
                h = t * apq
                d[p] -= h
                d[q] += h
                s[p * n + q] = 0
                s[q * n + p] = 0
                for r in range(n):  # rows/columns p and q of A, the rest of them
                    if r != p and r != q:
                        x = s[r * n + p]
                        y = s[r * n + q]
                        s[r * n + p] = x - sn * (y + x * tau)
                        s[r * n + q] = y + sn * (x - y * tau)
                        s[p * n + r] = s[r * n + p]
                        s[q * n + r] = s[r * n + q]
                if jobz == b"V":  # V <- V J (for eigenvectors): V's columns p and q
                    _rotate(v + p, v + q, n, n, c, sn)
        if not rotated:
            break
    else:
        return SMALL_DECLINED
    for k in range(n):  # ascending, each vector with its value (selection sort: n <= 16)
        best = k
        for i in range(k + 1, n):
            if d[i] < d[best]:
                best = i
        w[k] = d[best]
        d[best] = d[k]
        d[k] = w[k]
        if jobz == b"V":
            for r in range(n):
                x = v[r * n + best]
                v[r * n + best] = v[r * n + k]
                v[r * n + k] = x
    if jobz == b"V":
        for r in range(n):
            for k in range(n):
                a[r + k * n] = v[r * n + k]
    return 0


# Note [Small SVDs by one-sided Jacobi]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ?gesdd's set-up costs a small matrix what ?syevd's does (Note [Small symmetric eigenproblems
# by Jacobi]), so real matrices of up to SMALL_SVD_N rows and columns take Hestenes' one-sided
# Jacobi method instead (Demmel and Veselic, "Jacobi's method is more accurate than QR",
# 1992). With W the tall one of A and A^T (r x c, r >= c), each rotation of two columns p, q
#
#     [w_p, w_q] <- [w_p, w_q] [[cs, sn], [-sn, cs]],  V <- V (the same rotation),
#
# makes them orthogonal; sweeps over every pair p < q go on until no pair is further from
# orthogonal than eps ||w_p|| ||w_q||. Then W = U' S (S the column norms, U' the normalised
# columns), and W = U' S V^T is the SVD of W: of A, U = U' and V^T; of A^T, U = V and
# V^T = U'^T. Values are sorted descending with their vectors. The columns of U' whose value is
# 0 (a rank-deficient matrix), and the extra columns of a full U' (full_matrices), are
# completed to an orthonormal basis from the unit vectors (Gram-Schmidt, twice). The matrix is
# first scaled by a power of 2 so that its largest element is about 1 (exact: the squares of
# 1e30 would overflow float32), and S scaled back. As with eigh, singular vectors are defined
# up to sign (a pair of them) and Jacobi's signs are not ?gesdd's; a matrix with inf or NaN is
# declined (SMALL_DECLINED) and goes to LAPACK, whose error or NaN values NumPy users see.

cdef enum:
    SMALL_SVD_N = 8  # the largest rows and columns svd solves by one-sided Jacobi


cdef inline real_t _dot(const real_t* x, const real_t* y, lapack_int n) noexcept nogil:
    cdef lapack_int i
    cdef real_t t = 0
    for i in range(n):
        t += x[i] * y[i]
    return t


cdef inline void _complete(real_t* q, lapack_int r, lapack_int ncols, bint* have) noexcept nogil:
    """Make the columns j < ncols of the column-major r x ncols ``q`` with ``have[j]`` False
    orthonormal to the others and each other: unit vectors orthogonalised twice."""
    cdef lapack_int j, e, i, k, _rep
    cdef real_t t, nrm
    for j in range(ncols):
        if have[j]:
            continue
        for e in range(r):
            for i in range(r):
                q[i + j * r] = 1 if i == e else 0
            for _rep in range(2):
                for k in range(ncols):
                    if have[k]:
                        t = _dot(q + k * r, q + j * r, r)
                        for i in range(r):
                            q[i + j * r] -= t * q[i + k * r]
            nrm = sqrt(_dot(q + j * r, q + j * r, r))
            if nrm > <real_t>0.5:
                for i in range(r):
                    q[i + j * r] /= nrm
                have[j] = True
                break


cdef inline lapack_int small_gesvd(char jobz, const real_t* a, lapack_int m, lapack_int n,
                                   real_t* s, real_t* u, lapack_int ldu, real_t* vt,
                                   lapack_int ldvt) noexcept nogil:
    """?gesdd's results for the column-major m x n ``a`` (not written): ``s`` (min(m, n),
    descending) and, for ``jobz`` "S" or "A", U (m x min(m, n), or m x m; column-major with
    leading dim ``ldu``) and V^T (min(m, n) x n, or n x n; ``ldvt``). 0, or SMALL_DECLINED
    (Note [Small SVDs by one-sided Jacobi])."""
    cdef real_t w[SMALL_N * SMALL_N]   # W, column-major r x r (the first c columns used)
    cdef real_t v[SMALL_N * SMALL_N]   # V, column-major c x c
    cdef real_t uq[SMALL_N * SMALL_N]  # U', column-major r x (c, or r when full)
    cdef real_t sig[SMALL_N]
    cdef lapack_int order[SMALL_N]
    cdef bint have[SMALL_N]
    cdef bint tall = m >= n, vectors = jobz != b"N", full = jobz == b"A", rotated
    cdef lapack_int r = m if tall else n, c = n if tall else m, i, j, k, p, q, _sweep
    cdef lapack_int ucols
    cdef real_t eps, big = 0, scale, x, alpha, beta, gamma, t, cs, sn, top
    eps = <real_t>5.9604644775390625e-08 if real_t is float else <real_t>1.1102230246251565e-16
    for j in range(n):
        for i in range(m):
            x = a[i + j * m]
            if not (x - x == 0):  # inf or NaN
                return SMALL_DECLINED
            if fabs(x) > big:
                big = fabs(x)
    scale = 1
    if big > 0:  # a power of 2 near 1 / big: scaling by it is exact
        while big * scale > 2:
            scale *= <real_t>0.5
        while big * scale < <real_t>0.5:
            scale *= 2
    for j in range(c):
        for i in range(r):
            w[i + j * r] = (a[i + j * m] if tall else a[j + i * m]) * scale
        for i in range(c):
            v[i + j * c] = 1 if i == j else 0
    for _sweep in range(60):
        rotated = False
        for p in range(c):
            for q in range(p + 1, c):
                alpha = _dot(w + p * r, w + p * r, r)
                beta = _dot(w + q * r, w + q * r, r)
                gamma = _dot(w + p * r, w + q * r, r)
                if fabs(gamma) <= eps * sqrt(alpha) * sqrt(beta):
                    continue
                rotated = True
                t = _jacobi_tangent((beta - alpha) / (2 * gamma))
                cs = 1 / sqrt(1 + t * t)
                sn = cs * t
                _rotate(w + p * r, w + q * r, r, 1, cs, sn)
                if vectors:
                    _rotate(v + p * c, v + q * c, c, 1, cs, sn)
        if not rotated:
            break
    else:
        return SMALL_DECLINED
    for j in range(c):
        sig[j] = sqrt(_dot(w + j * r, w + j * r, r))
        order[j] = j
    for j in range(c):  # descending (selection sort of the order: c <= SMALL_SVD_N)
        k = j
        for i in range(j + 1, c):
            if sig[order[i]] > sig[order[k]]:
                k = i
        i = order[j]
        order[j] = order[k]
        order[k] = i
    for j in range(c):
        s[j] = sig[order[j]] / scale
    if not vectors:
        return 0
    # U' (r x ucols, column-major): W's columns in sorted order, normalised; those whose value
    # is 0 (to working precision) and the extra ones of a full U' completed
    ucols = r if full else c
    top = sig[order[0]]
    for j in range(ucols):
        have[j] = j < c and sig[order[j]] > top * eps * eps
        if have[j]:
            for i in range(r):
                uq[i + j * r] = w[i + order[j] * r] / sig[order[j]]
    _complete(uq, r, ucols, have)
    if tall:  # A = U' S V^T
        for j in range(ucols):
            for i in range(r):
                u[i + j * ldu] = uq[i + j * r]
        for j in range(c):
            for i in range(c):
                vt[j + i * ldvt] = v[i + order[j] * c]
    else:  # A^T = U' S V^T, so A = V S U'^T
        for j in range(c):
            for i in range(c):
                u[i + j * ldu] = v[i + order[j] * c]
        for j in range(ucols):
            for i in range(r):
                vt[j + i * ldvt] = uq[i + j * r]
    return 0
