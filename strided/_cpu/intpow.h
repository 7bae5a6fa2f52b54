/* Integer powers of a tensor by a scalar exponent, for binary.pyx.tp's pow loops.
 *
 * Note [Integer powers by a scalar exponent]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * x ** 3 with a Python int (or an integral float) is the commonest power after x ** 2, and a
 * call of pow() or of the complex steps per element costs 10-20 ns where a few multiplies
 * would do. When the exponent is one scalar integer n with |n| < 100, the loops of pow call
 * the functions below instead, and those run the powering by squaring over a block of
 * elements at a time: the bits of n are walked once per block, and each step is a loop over
 * the block that the compiler turns into vector code. They return 0 for any other exponent
 * (the general loop then runs).
 *
 * - complex: exactly NumPy's steps (Note [Complex division, reciprocal and power as NumPy's]
 *   in scalar_math.h; npy_cpow / nc_pow): 1 for n == 0 (NaN bases included), 0 ** n is +0
 *   for n > 0 and NaN for n < 0, a itself for n == 1, a * a and a * (a * a) unrolled for 2 and
 *   3, else products from aa = 1 upward (the 1 * p is kept: 0 * inf is NaN there too), and
 *   1 / aa by Smith's division for n < 0. The same multiplies in the same order give the same
 *   bits, as long as the compiler does not fuse a * b - c * d into a fused multiply-add
 *   (x86-64-v3 and up have one; NumPy's loop is compiled for its baseline, without): these
 *   functions are compiled with contraction off (STRIDED_NO_CONTRACT).
 * - real floats: NumPy calls pow per element (the C library's, or on AVX-512 CPUs a vector
 *   one of its own, an ulp off for 3% of random float64 bases and 11% of float32 ones), not
 *   squaring, so its last bits are no method to copy: these aim at the correctly rounded
 *   value. Squaring in plain doubles would round at every step (x * x * x is an ulp off for
 *   over a quarter of random bases), so float64 keeps each power as a double-double (the product's rounding error
 *   recovered exactly: a fused multiply-add where the CPU has one, Dekker's product of
 *   Veltkamp halves on x86-64-v2), about 2^-100 relative, and rounds once at the end; float32
 *   squares in double (a few roundings of 2^-53 each) and rounds once to float. Both give
 *   pow's correctly rounded value but in cases rarer than one in 2^40 (float64) and 2^25
 *   (float32).
 *   The double-double steps stay clear of overflow and underflow only for |x| ** |n| well
 *   inside the exponent range, so an element outside it (0, a subnormal, inf, NaN, or a power
 *   beyond 2^+-900) is computed as 1 in the vector pass and then by the C library's pow, as
 *   in Note [Fix-up passes] (unary.pyx.tp): its special values and floating-point flags
 *   (overflow, division by zero) are pow's own, and the vector pass raises none of its own.
 *   n = 0, 1, -1 and 2 are 1, x, 1 / x and x * x for every x: each is pow's correctly rounded
 *   answer with pow's flags.
 */
#ifndef STRIDED_INTPOW_H
#define STRIDED_INTPOW_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#define STRIDED_NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#define STRIDED_CONTRACT_OFF
#elif defined(__clang__)
#define STRIDED_NO_CONTRACT
#define STRIDED_CONTRACT_OFF _Pragma("clang fp contract(off)")
#else
#define STRIDED_NO_CONTRACT
#define STRIDED_CONTRACT_OFF
#endif

#define STRIDED_NOINLINE __attribute__((noinline))
#define STRIDED_POWI_BLOCK 256
#define STRIDED_POWI_NONE (-1000)  /* not an exponent of the fast path */

/* n when the exponent br + bi j is an integer with |n| < 100 (NumPy's bound for squaring),
 * else STRIDED_POWI_NONE */
static inline int strided_powi_exponent(double br, double bi) {
    if (bi != 0 || !(br > -100 && br < 100) || br != (double)(int)br) return STRIDED_POWI_NONE;
    return (int)br;
}

/* ---- complex ------------------------------------------------------------------------------ */

/* (xr + xi j)(yr + yi j) as NumPy's nc_prod computes it, into (*re, *im) */
#define STRIDED_CMUL(T)                                                                        \
STRIDED_NO_CONTRACT static inline void strided_cmul_##T(T xr, T xi, T yr, T yi, T* re, T* im) { \
    STRIDED_CONTRACT_OFF                                                                       \
    *re = xr * yr - xi * yi;                                                                   \
    *im = xr * yi + xi * yr;                                                                   \
}
STRIDED_CMUL(float)
STRIDED_CMUL(double)

/* One block of m complex numbers a (parts ar, ai) to the power n, into (rr, ri): the steps of
 * cpow_parts in scalar_math.h, a loop over the block per step. pr, pi are scratch. */
#define STRIDED_CPOWI_BLOCK(T)                                                                 \
STRIDED_NO_CONTRACT STRIDED_NOINLINE static void strided_cpowi_block_##T(                      \
        const T* restrict ar, const T* restrict ai, T* restrict rr, T* restrict ri,          \
        T* restrict pr, T* restrict pi, ptrdiff_t m, int n) {                                  \
    STRIDED_CONTRACT_OFF                                                                       \
    ptrdiff_t j;                                                                               \
    long e = n < 0 ? -n : n, mask;                                                             \
    T abr, abi, rat, scl, re1, im1, re2, im2;                                                  \
    const T one = 1, zero = 0;                                                                 \
    if (n == 0) {                                                                              \
        for (j = 0; j < m; j++) {                                                              \
            rr[j] = 1;                                                                         \
            ri[j] = 0;                                                                         \
        }                                                                                      \
        return;                                                                                \
    }                                                                                          \
    if (n == 1) {                                                                              \
        memcpy(rr, ar, m * sizeof(T));                                                         \
        memcpy(ri, ai, m * sizeof(T));                                                         \
    } else if (n == 2 || n == 3) {                  /* NumPy's unrolled a * a, a * (a * a) */ \
        for (j = 0; j < m; j++) strided_cmul_##T(ar[j], ai[j], ar[j], ai[j], &rr[j], &ri[j]);  \
        if (n == 3) {                                                                          \
            for (j = 0; j < m; j++) strided_cmul_##T(ar[j], ai[j], rr[j], ri[j], &rr[j], &ri[j]); \
        }                                                                                      \
    } else {                                        /* by squaring, low bit first, from 1 */  \
        for (j = 0; j < m; j++) {                                                              \
            rr[j] = 1;                                                                         \
            ri[j] = 0;                                                                         \
        }                                                                                      \
        memcpy(pr, ar, m * sizeof(T));                                                         \
        memcpy(pi, ai, m * sizeof(T));                                                         \
        for (mask = 1;; mask <<= 1) {                                                          \
            if (e & mask) {                                                                    \
                for (j = 0; j < m; j++)                                                        \
                    strided_cmul_##T(rr[j], ri[j], pr[j], pi[j], &rr[j], &ri[j]);              \
            }                                                                                  \
            if (e < (mask << 1)) break;                                                        \
            for (j = 0; j < m; j++) strided_cmul_##T(pr[j], pi[j], pr[j], pi[j], &pr[j], &pi[j]); \
        }                                                                                      \
        if (n < 0) {                                /* 1 / aa: cdiv_parts(1, 0, rr, ri) */    \
            for (j = 0; j < m; j++) {                                                          \
                abr = fabs(rr[j]);                                                             \
                abi = fabs(ri[j]);                                                             \
                rat = ri[j] / rr[j];                                                           \
                scl = one / (rr[j] + ri[j] * rat);                                             \
                re1 = (one + zero * rat) * scl;                                                \
                im1 = (zero - one * rat) * scl;                                                \
                if (abr == 0 && abi == 0) {                                                    \
                    re1 = one / abr;                                                           \
                    im1 = zero / abr;                                                          \
                }                                                                              \
                rat = rr[j] / ri[j];                                                           \
                scl = one / (ri[j] + rr[j] * rat);                                             \
                re2 = (one * rat + zero) * scl;                                                \
                im2 = (zero * rat - one) * scl;                                                \
                rr[j] = abr >= abi ? re1 : re2;                                                \
                ri[j] = abr >= abi ? im1 : im2;                                                \
            }                                                                                  \
        }                                                                                      \
    }                                                                                          \
    for (j = 0; j < m; j++) {                       /* 0 ** n: +0 for n > 0, NaN for n < 0 */ \
        if (ar[j] == 0 && ai[j] == 0) {                                                        \
            rr[j] = n > 0 ? zero : (T)NAN;                                                \
            ri[j] = rr[j];                                                                     \
        }                                                                                      \
    }                                                                                          \
}
STRIDED_CPOWI_BLOCK(float)
STRIDED_CPOWI_BLOCK(double)

/* a ** 2 and a ** 3 (cube) of contiguous x into y: NumPy's unrolled steps, computed while
 * the parts are read, then stored side by side. A loop that stored the two parts of each
 * result together would be faster still, but GCC 12 then pairs the real part's a * b - c * d
 * with the imaginary part's a * b + c * d into one fused vfmaddsub on x86-64-v3 and up, even
 * with contraction off, and the last bits would no longer be NumPy's. y is x itself or does
 * not overlap it. */
#define STRIDED_CPOWI_23(T)                                                                    \
STRIDED_NO_CONTRACT STRIDED_NOINLINE static void strided_cpowi_23_##T(const T* x, T* y,       \
                                                                      ptrdiff_t n, int cube) { \
    STRIDED_CONTRACT_OFF                                                                       \
    T rr[STRIDED_POWI_BLOCK], ri[STRIDED_POWI_BLOCK];                                         \
    ptrdiff_t start, j, m;                                                                     \
    T ar, ai, sr, si;                                                                          \
    for (start = 0; start < n; start += STRIDED_POWI_BLOCK) {                                  \
        const T* xb = x + 2 * start;                                                           \
        T* yb = y + 2 * start;                                                                 \
        m = n - start < STRIDED_POWI_BLOCK ? n - start : STRIDED_POWI_BLOCK;                   \
        if (cube) {                                                                            \
            for (j = 0; j < m; j++) {                                                          \
                ar = xb[2 * j];                                                                \
                ai = xb[2 * j + 1];                                                            \
                strided_cmul_##T(ar, ai, ar, ai, &sr, &si);                                    \
                strided_cmul_##T(ar, ai, sr, si, &rr[j], &ri[j]);                              \
                if (ar == 0 && ai == 0) rr[j] = ri[j] = 0;       /* 0 ** n is +0 */            \
            }                                                                                  \
        } else {                                                                               \
            for (j = 0; j < m; j++) {                                                          \
                ar = xb[2 * j];                                                                \
                ai = xb[2 * j + 1];                                                            \
                strided_cmul_##T(ar, ai, ar, ai, &rr[j], &ri[j]);                              \
                if (ar == 0 && ai == 0) rr[j] = ri[j] = 0;                                     \
            }                                                                                  \
        }                                                                                      \
        for (j = 0; j < m; j++) {                                                              \
            yb[2 * j] = rr[j];                                                                 \
            yb[2 * j + 1] = ri[j];                                                             \
        }                                                                                      \
    }                                                                                          \
}
STRIDED_CPOWI_23(float)
STRIDED_CPOWI_23(double)

/* m complex results, their parts in rr and ri, stored side by side at byte stride so */
#define STRIDED_CPARTS_STORE(T)                                                                \
static inline void strided_cparts_store_##T(const T* rr, const T* ri, char* po, ptrdiff_t so, \
                                            ptrdiff_t start, ptrdiff_t m) {                    \
    ptrdiff_t j;                                                                               \
    if (so == 2 * (ptrdiff_t)sizeof(T)) {                                                      \
        T* y = (T*)po + 2 * start;                                                             \
        for (j = 0; j < m; j++) {                                                              \
            y[2 * j] = rr[j];                                                                  \
            y[2 * j + 1] = ri[j];                                                              \
        }                                                                                      \
    } else {                                                                                   \
        for (j = 0; j < m; j++) {                                                              \
            T* y = (T*)(po + (start + j) * so);                                                \
            y[0] = rr[j];                                                                      \
            y[1] = ri[j];                                                                      \
        }                                                                                      \
    }                                                                                          \
}
STRIDED_CPARTS_STORE(float)
STRIDED_CPARTS_STORE(double)

/* out = a ** b for n complex elements (byte strides sa, so; the parts of each element side by
 * side) and a scalar exponent b = br + bi j: 1 when b is an exponent of the fast path, else 0
 * and nothing written. */
#define STRIDED_CPOWI(T, S)                                                                    \
static int strided_cpowi_##S(char* po, ptrdiff_t so, const char* pa, ptrdiff_t sa,          \
                             T br, T bi, ptrdiff_t n) {                                        \
    T ar[STRIDED_POWI_BLOCK], ai[STRIDED_POWI_BLOCK], rr[STRIDED_POWI_BLOCK];                 \
    T ri[STRIDED_POWI_BLOCK], pr[STRIDED_POWI_BLOCK], pi[STRIDED_POWI_BLOCK];                 \
    ptrdiff_t start, j, m;                                                                     \
    int e = strided_powi_exponent(br, bi);                                                     \
    if (e == STRIDED_POWI_NONE) return 0;                                                      \
    if ((e == 2 || e == 3) && sa == 2 * (ptrdiff_t)sizeof(T) && so == sa) {                   \
        strided_cpowi_23_##T((const T*)pa, (T*)po, n, e == 3);                                 \
        return 1;                                                                              \
    }                                                                                          \
    for (start = 0; start < n; start += STRIDED_POWI_BLOCK) {                                  \
        m = n - start < STRIDED_POWI_BLOCK ? n - start : STRIDED_POWI_BLOCK;                   \
        if (sa == 2 * (ptrdiff_t)sizeof(T)) {      /* contiguous: a loop that vectorises */   \
            const T* x = (const T*)pa + 2 * start;                                             \
            for (j = 0; j < m; j++) {                                                          \
                ar[j] = x[2 * j];                                                              \
                ai[j] = x[2 * j + 1];                                                          \
            }                                                                                  \
        } else {                                                                               \
            for (j = 0; j < m; j++) {                                                          \
                const T* x = (const T*)(pa + (start + j) * sa);                                \
                ar[j] = x[0];                                                                  \
                ai[j] = x[1];                                                                  \
            }                                                                                  \
        }                                                                                      \
        strided_cpowi_block_##T(ar, ai, rr, ri, pr, pi, m, e);                                 \
        strided_cparts_store_##T(rr, ri, po, so, start, m);                                    \
    }                                                                                          \
    return 1;                                                                                  \
}
STRIDED_CPOWI(float, c64)
STRIDED_CPOWI(double, c128)

/* ---- real floats ---------------------------------------------------------------------------- */

/* p + e = a * b exactly: a fused multiply-add where the CPU has one; else Dekker's product of
 * Veltkamp's 26-bit halves (exact for |a|, |b| below 2^996) */
static inline double strided_powi_two_prod(double a, double b, double* e) {
    double p = a * b;
#if defined(__FMA__) || defined(__aarch64__)
    *e = fma(a, b, -p);
#else
    const double split = 134217729.0;                            /* 2^27 + 1 */
    double ta = a * split, ah = ta - (ta - a), al = a - ah;
    double tb = b * split, bh = tb - (tb - b), bl = b - bh;
    *e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
    return p;
}

/* (h, l) = (ah, al) * (bh, bl) as a double-double: the product of the heads exactly, the cross
 * terms added, then Fast2Sum so that h is the pair's sum rounded */
static inline void strided_powi_dd_mul(double ah, double al, double bh, double bl,
                                       double* h, double* l) {
    double e, p = strided_powi_two_prod(ah, bh, &e);
    double s;
    e += ah * bl + al * bh;
    s = p + e;
    *l = e - (s - p);
    *h = s;
}

/* a block of m elements from (into) byte strides: a copy where contiguous */
#define STRIDED_POWI_MOVES(T)                                                                  \
static inline void strided_powi_load_##T(T* x, const char* pa, ptrdiff_t sa, ptrdiff_t start, \
                                         ptrdiff_t m) {                                        \
    ptrdiff_t j;                                                                               \
    if (sa == (ptrdiff_t)sizeof(T)) {                                                          \
        memcpy(x, (const T*)pa + start, m * sizeof(T));                                        \
    } else {                                                                                   \
        for (j = 0; j < m; j++) x[j] = *(const T*)(pa + (start + j) * sa);                     \
    }                                                                                          \
}                                                                                              \
static inline void strided_powi_store_##T(const T* y, char* po, ptrdiff_t so, ptrdiff_t start, \
                                          ptrdiff_t m) {                                       \
    ptrdiff_t j;                                                                               \
    if (so == (ptrdiff_t)sizeof(T)) {                                                          \
        memcpy((T*)po + start, y, m * sizeof(T));                                              \
    } else {                                                                                   \
        for (j = 0; j < m; j++) *(T*)(po + (start + j) * so) = y[j];                           \
    }                                                                                          \
}
STRIDED_POWI_MOVES(float)
STRIDED_POWI_MOVES(double)

/* 1 for an x whose |x| ** |n| (and every step to it) keeps clear of 2^+-lim, from its biased
 * exponent be of bias (|x| in [2^(be - bias), 2^(be - bias + 1))); 0, a subnormal, inf and NaN
 * are out (be 0 or all ones) */
static inline int strided_powi_in_range(int64_t be, int64_t top, int64_t bias, int64_t m,
                                        int64_t lim) {
    return (be > 0) & (be < top) & (m * (be - bias) > -lim) & (m * (be - bias + 1) < lim);
}

/* One block of m float64 x (read through the block xs, already 1 where out of range) to the
 * integer power n (|n| >= 3): double-double squaring, rounded once */
static void strided_powi_block_f64(const double* xs, double* y, ptrdiff_t m, int n) {
    double h[STRIDED_POWI_BLOCK], l[STRIDED_POWI_BLOCK];
    double ph[STRIDED_POWI_BLOCK], pl[STRIDED_POWI_BLOCK];
    long e = n < 0 ? -n : n, mask;
    ptrdiff_t j;
    int started = 0;
    for (j = 0; j < m; j++) {
        ph[j] = xs[j];
        pl[j] = 0;
    }
    for (mask = 1;; mask <<= 1) {
        if (e & mask) {
            if (!started) {
                memcpy(h, ph, m * sizeof(double));
                memcpy(l, pl, m * sizeof(double));
                started = 1;
            } else {
                for (j = 0; j < m; j++) strided_powi_dd_mul(h[j], l[j], ph[j], pl[j], &h[j], &l[j]);
            }
        }
        if (e < (mask << 1)) break;
        for (j = 0; j < m; j++) strided_powi_dd_mul(ph[j], pl[j], ph[j], pl[j], &ph[j], &pl[j]);
    }
    if (n < 0) {                     /* 1 / (h + l): q, then q (1 - q h - q l) added */
        for (j = 0; j < m; j++) {
            double q = 1.0 / h[j], r;
            double p = strided_powi_two_prod(q, h[j], &r);     /* q h = p + r exactly */
            r = ((1.0 - p) - r) - q * l[j];                     /* 1 - p exact: p near 1 */
            y[j] = q + q * r;
        }
    } else {
        memcpy(y, h, m * sizeof(double));
    }
}

/* float32's block: the same squaring in plain doubles (a few roundings of 2^-53 each), whose
 * range holds any float32's |n| < 100 power but the extremes; the conversion to float rounds
 * once and raises float's overflow and underflow */
static void strided_powi_block_f32(const double* xs, float* y, ptrdiff_t m, int n) {
    double h[STRIDED_POWI_BLOCK], p[STRIDED_POWI_BLOCK];
    long e = n < 0 ? -n : n, mask;
    ptrdiff_t j;
    int started = 0;
    memcpy(p, xs, m * sizeof(double));
    for (mask = 1;; mask <<= 1) {
        if (e & mask) {
            if (!started) {
                memcpy(h, p, m * sizeof(double));
                started = 1;
            } else {
                for (j = 0; j < m; j++) h[j] *= p[j];
            }
        }
        if (e < (mask << 1)) break;
        for (j = 0; j < m; j++) p[j] *= p[j];
    }
    if (n < 0) {
        for (j = 0; j < m; j++) h[j] = 1.0 / h[j];
    }
    for (j = 0; j < m; j++) y[j] = (float)h[j];
}

/* out = a ** b for n real elements (byte strides) and a scalar b: 1 when b is an integer of
 * the fast path, else 0 and nothing written. UT is the unsigned integer of T's bits, SHIFT,
 * TOP and BIAS its exponent field, LIM the bound of Note [Integer powers by a scalar
 * exponent] on the powers' binary exponents, POW the C library's function. */
#define STRIDED_POWI_REAL(T, S, UT, SHIFT, TOP, BIAS, LIM, POW)                                \
static int strided_powi_##S(char* po, ptrdiff_t so, const char* pa, ptrdiff_t sa, T b,       \
                            ptrdiff_t n) {                                                     \
    T x[STRIDED_POWI_BLOCK], y[STRIDED_POWI_BLOCK];                                            \
    double xs[STRIDED_POWI_BLOCK];                                                             \
    unsigned char out_of_range[STRIDED_POWI_BLOCK];                                            \
    ptrdiff_t start, j, m;                                                                     \
    int e = strided_powi_exponent(b, 0), hard;                                                 \
    int64_t me = e < 0 ? -e : e;                                                               \
    if (e == STRIDED_POWI_NONE) return 0;                                                      \
    for (start = 0; start < n; start += STRIDED_POWI_BLOCK) {                                  \
        m = n - start < STRIDED_POWI_BLOCK ? n - start : STRIDED_POWI_BLOCK;                   \
        strided_powi_load_##T(x, pa, sa, start, m);                                            \
        hard = 0;                                                                              \
        if (e == 0) {                              /* pow's answers, for every x */           \
            for (j = 0; j < m; j++) y[j] = 1;                                                  \
        } else if (e == 1) {                                                                   \
            memcpy(y, x, m * sizeof(T));                                                       \
        } else if (e == -1) {                                                                  \
            for (j = 0; j < m; j++) y[j] = (T)1 / x[j];                                        \
        } else if (e == 2) {                                                                   \
            for (j = 0; j < m; j++) y[j] = x[j] * x[j];                                        \
        } else {                                                                               \
            for (j = 0; j < m; j++) {                                                          \
                UT u;                                                                          \
                int ok;                                                                        \
                memcpy(&u, &x[j], sizeof u);                                                   \
                ok = strided_powi_in_range((int64_t)((u >> SHIFT) & TOP), TOP, BIAS, me, LIM); \
                xs[j] = ok ? (double)x[j] : 1.0;                                               \
                out_of_range[j] = !ok;                                                         \
                hard += !ok;                                                                   \
            }                                                                                  \
            strided_powi_block_##S(xs, y, m, e);                                               \
            if (hard) {                            /* Note [Fix-up passes] (unary.pyx.tp) */  \
                for (j = 0; j < m; j++) {                                                      \
                    if (out_of_range[j]) y[j] = POW(x[j], (T)e);                               \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        strided_powi_store_##T(y, po, so, start, m);                                           \
    }                                                                                          \
    return 1;                                                                                  \
}
STRIDED_POWI_REAL(double, f64, uint64_t, 52, 0x7ff, 1023, 900, pow)
STRIDED_POWI_REAL(float, f32, uint32_t, 23, 0xff, 127, 1000, powf)

#endif /* STRIDED_INTPOW_H */
