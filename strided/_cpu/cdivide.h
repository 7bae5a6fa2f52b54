/* Complex division and reciprocal with NumPy's roundings, for binary.pyx.tp's complex divide
 * loops and unary.pyx.tp's complex reciprocal loops.
 *
 * Note [Complex division without fused multiply-adds]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * NumPy divides complex numbers by Smith's method (Note [Complex division, reciprocal and
 * power as NumPy's] in scalar_math.h), in its baseline build: every product rounded before
 * the sum it enters. The loops of binary.pyx.tp compiled for x86-64-v3 and v4 let the compiler
 * fuse ``ar + ai * rat`` into one multiply-add, which rounds once: an ulp off NumPy in about
 * 38% of random quotients. These loops compute the same formula with contraction off
 * (intpow.h's STRIDED_NO_CONTRACT), branch-free so that the compiler vectorises them: both
 * of Smith's branches are one formula with the divisor's parts swapped, and the scalar code's
 * choice is a select. They run over blocks of elements: the operands read where they lie
 * (contiguous, or one broadcast element) or gathered first, the quotients' parts written to
 * two arrays and then stored side by side, since a loop that stored both parts of each
 * quotient at once would meet GCC 12's vfmaddsub (Note [Integer powers by a scalar
 * exponent]). NumPy's bits at every level, at about the fused loop's speed (1e6 elements at
 * x86-64-v4, 1 thread: complex128 1.28 ms, fused 1.22, NumPy 5.3; complex64 0.45, fused
 * 0.43). Both operands contiguous take a loop of their own, whose constant strides the
 * compiler vectorises better (a third faster for complex64).
 */
#ifndef STRIDED_CDIVIDE_H
#define STRIDED_CDIVIDE_H

#include "intpow.h" /* STRIDED_NO_CONTRACT, STRIDED_NOINLINE, STRIDED_POWI_BLOCK */

/* One block of m quotients (ar + ai j) / (br + bi j) into (rr, ri): cdiv_parts of
 * scalar_math.h. Its two branches are one formula with the divisor's parts swapped (p the
 * larger in size, q the other), so one quotient and one reciprocal serve both: rat = q / p,
 * scl = 1 / (p + q rat); the real part's sum is the same either way (a + b is b + a), the
 * imaginary part's differences are not (x - y and -(y - x) differ in the sign of a zero), so
 * both are formed and one selected. A zero divisor gives x / +0 part by part, which is
 * x * inf (0 and NaN give NaN, the rest a signed infinity). */
#define STRIDED_CDIV_ONE(T, AR, AI, BR, BI)                                                     \
    do {                                                                                       \
        T ar = AR, ai = AI, br = BR, bi = BI;                                                  \
        T abr = br < 0 ? -br : br, abi = bi < 0 ? -bi : bi;                                    \
        int big = abr >= abi;                               /* cdiv_parts' first branch */    \
        int zero = (abr == 0) & (abi == 0);                                                    \
        T p = big ? br : bi, q = big ? bi : br;                                                \
        T s = big ? ar : ai, t = big ? ai : ar;                                                \
        T rat = q / p, scl = (T)1 / (p + q * rat);                                             \
        T re = (s + t * rat) * scl;                                                            \
        T im = big ? (ai - ar * rat) * scl : (ai * rat - ar) * scl;                            \
        rr[j] = zero ? ar * (T)INFINITY : re;                                                  \
        ri[j] = zero ? ai * (T)INFINITY : im;                                                  \
    } while (0)
#define STRIDED_CDIV_BLOCK(T)                                                                  \
STRIDED_NO_CONTRACT STRIDED_NOINLINE static void strided_cdiv_block_##T(                      \
        const T* restrict a, ptrdiff_t sa, const T* restrict b, ptrdiff_t sb,                 \
        T* restrict rr, T* restrict ri, ptrdiff_t m) {                                         \
    STRIDED_CONTRACT_OFF                                                                       \
    ptrdiff_t j;                                                                               \
    if (sa == 2 && sb == 2) {                      /* both contiguous: strides the compiler */ \
        for (j = 0; j < m; j++) STRIDED_CDIV_ONE(T, a[2 * j], a[2 * j + 1], b[2 * j], b[2 * j + 1]); \
    } else {                                       /* knows vectorise better */               \
        for (j = 0; j < m; j++) STRIDED_CDIV_ONE(T, a[j * sa], a[j * sa + 1], b[j * sb], b[j * sb + 1]); \
    }                                                                                          \
}
STRIDED_CDIV_BLOCK(float)
STRIDED_CDIV_BLOCK(double)

/* m complex elements from byte stride s, side by side into x */
#define STRIDED_CPARTS_GATHER(T)                                                               \
static inline void strided_cparts_gather_##T(T* x, const char* p, ptrdiff_t s,                \
                                             ptrdiff_t start, ptrdiff_t m) {                   \
    ptrdiff_t j;                                                                               \
    for (j = 0; j < m; j++) {                                                                  \
        const T* e = (const T*)(p + (start + j) * s);                                          \
        x[2 * j] = e[0];                                                                       \
        x[2 * j + 1] = e[1];                                                                   \
    }                                                                                          \
}
STRIDED_CPARTS_GATHER(float)
STRIDED_CPARTS_GATHER(double)

/* out = a / b for n complex elements (byte strides; 0 for a broadcast operand); returns 1 */
#define STRIDED_CDIV_LOOP(T, S)                                                                \
static int strided_cdiv_loop_##S(char* po, ptrdiff_t so, const char* pa, ptrdiff_t sa,      \
                                  const char* pb, ptrdiff_t sb, ptrdiff_t n) {                 \
    T a[2 * STRIDED_POWI_BLOCK], b[2 * STRIDED_POWI_BLOCK];                                   \
    T rr[STRIDED_POWI_BLOCK], ri[STRIDED_POWI_BLOCK];                                          \
    ptrdiff_t start, m;                                                                        \
    const ptrdiff_t whole = 2 * (ptrdiff_t)sizeof(T);                                          \
    for (start = 0; start < n; start += STRIDED_POWI_BLOCK) {                                  \
        const T *xa = (const T*)pa + 2 * start, *xb = (const T*)pb + 2 * start;                \
        ptrdiff_t ea = 2, eb = 2;                  /* element strides, in parts */            \
        m = n - start < STRIDED_POWI_BLOCK ? n - start : STRIDED_POWI_BLOCK;                   \
        if (sa == 0) {                                                                         \
            xa = (const T*)pa;                                                                 \
            ea = 0;                                                                            \
        } else if (sa != whole) {                  /* other strides: gathered first */        \
            strided_cparts_gather_##T(a, pa, sa, start, m);                                    \
            xa = a;                                                                            \
        }                                                                                      \
        if (sb == 0) {                                                                         \
            xb = (const T*)pb;                                                                 \
            eb = 0;                                                                            \
        } else if (sb != whole) {                                                              \
            strided_cparts_gather_##T(b, pb, sb, start, m);                                    \
            xb = b;                                                                            \
        }                                                                                      \
        strided_cdiv_block_##T(xa, ea, xb, eb, rr, ri, m);                                     \
        strided_cparts_store_##T(rr, ri, po, so, start, m);                                    \
    }                                                                                          \
    return 1;                                                                                  \
}
STRIDED_CDIV_LOOP(float, c64)
STRIDED_CDIV_LOOP(double, c128)

/* One block of m reciprocals 1 / (r + i j) into (rr, ri): crecip_parts of scalar_math.h, whose
 * two branches are again one formula with the parts swapped (p the larger in size, s the
 * other): q = s / p, d = p + s q, then 1 / d and -q / d, or q / d and -1 / d. 1 / 0 is NaN
 * there (0 / 0 first), as NumPy's. */
#define STRIDED_CRECIP_BLOCK(T)                                                                \
STRIDED_NO_CONTRACT STRIDED_NOINLINE static void strided_crecip_block_##T(                    \
        const T* restrict x, ptrdiff_t sx, T* restrict rr, T* restrict ri, ptrdiff_t m) {    \
    STRIDED_CONTRACT_OFF                                                                       \
    ptrdiff_t j;                                                                               \
    for (j = 0; j < m; j++) {                                                                  \
        T r = x[j * sx], i = x[j * sx + 1];                                                    \
        int big = (i < 0 ? -i : i) <= (r < 0 ? -r : r);    /* crecip_parts' first branch */   \
        T p = big ? r : i, s = big ? i : r;                                                    \
        T q = s / p, d = p + s * q;                                                            \
        rr[j] = (big ? (T)1 : q) / d;                                                          \
        ri[j] = (big ? -q : (T)-1) / d;                                                        \
    }                                                                                          \
}
STRIDED_CRECIP_BLOCK(float)
STRIDED_CRECIP_BLOCK(double)

/* out = 1 / x for n complex elements (byte strides); returns 1 */
#define STRIDED_CRECIP_LOOP(T, S)                                                              \
static int strided_crecip_loop_##S(char* po, ptrdiff_t so, const char* px, ptrdiff_t sx,     \
                                   ptrdiff_t n) {                                              \
    T x[2 * STRIDED_POWI_BLOCK], rr[STRIDED_POWI_BLOCK], ri[STRIDED_POWI_BLOCK];              \
    ptrdiff_t start, m;                                                                        \
    for (start = 0; start < n; start += STRIDED_POWI_BLOCK) {                                  \
        const T* xs = (const T*)px + 2 * start;                                                \
        m = n - start < STRIDED_POWI_BLOCK ? n - start : STRIDED_POWI_BLOCK;                   \
        if (sx != 2 * (ptrdiff_t)sizeof(T)) {                                                  \
            strided_cparts_gather_##T(x, px, sx, start, m);                                    \
            xs = x;                                                                            \
        }                                                                                      \
        strided_crecip_block_##T(xs, sx == 0 ? 0 : 2, rr, ri, m);                              \
        strided_cparts_store_##T(rr, ri, po, so, start, m);                                    \
    }                                                                                          \
    return 1;                                                                                  \
}
STRIDED_CRECIP_LOOP(float, c64)
STRIDED_CRECIP_LOOP(double, c128)

#endif /* STRIDED_CDIVIDE_H */
