/* Vectorisable math functions for the elementwise kernels.
 *
 * Note [Vectorisable math]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A loop that calls the C library's expf() runs one element at a time: the call is opaque to the
 * compiler. NumPy and PyTorch reach 4-16 elements per instruction with hand-written SIMD
 * (SVML-style) versions. The functions here get most of that for free: each is a short, branch
 * free sequence of multiplies, adds, conversions and selects, inlined into the generated loops
 * (_cpu/unary.pyx.tp), which the C compiler then vectorises for whatever the build targets
 * (setup.py's -march).
 *
 * The method is the classic one (Cephes, as in many SIMD libraries):
 *   exp(x) = 2^n * exp(r),  n = round(x / ln 2),  r = x - n ln 2 in [-ln2/2, ln2/2],
 * with ln 2 split in two constants so that r is exact, exp(r) from a short polynomial (float)
 * or rational function (double), and 2^n built straight into the exponent bits, in two halves
 * so that results near the bottom of the range (subnormals) come out right. Accuracy: within
 * 2 ulp of the correctly rounded result over the whole range; inf, -inf and NaN as the C
 * library gives them. tanh and sigmoid are built on exp.
 */
#ifndef STRIDED_VECMATH_H
#define STRIDED_VECMATH_H

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float strided_pow2if(int32_t n) {
    /* 2^n for n in [-126, 127], straight into the exponent bits */
    uint32_t bits = (uint32_t)(n + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline float strided_expf(float x) {
    /* Written so that GCC vectorises it: no library calls, no branches (only selects), and
     * rounding by the 1.5 * 2^23 trick instead of a call to rintf. */
    const float log2e = 1.44269504088896341f;
    const float c1 = 0.693359375f, c2 = -2.12194440e-4f;   /* ln 2 = c1 + c2, c1 exact */
    float xc = x > 88.8f ? 88.8f : x;                      /* NaN falls through */
    xc = xc < -104.0f ? -104.0f : xc;
    float t = xc * log2e;
    float fn = (t + 12582912.0f) - 12582912.0f;            /* round to nearest */
    int32_t n = (int32_t)fn;
    float r = (xc - fn * c1) - fn * c2;
    float z = r * r;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * z + r + 1.0f;
    int32_t n1 = n >> 1;                                    /* 2^n in two halves */
    float y = p * strided_pow2if(n1) * strided_pow2if(n - n1);
    y = x > 88.72283905f ? INFINITY : y;
    y = x < -103.972084f ? 0.0f : y;
    y = x != x ? x : y;
    return y;
}

static inline double strided_pow2i(int64_t n) {
    /* 2^n for n in [-1022, 1023] */
    uint64_t bits = (uint64_t)(n + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline double strided_exp(double x) {
    const double log2e = 1.4426950408889634073599;
    const double c1 = 6.93145751953125e-1, c2 = 1.42860682030941723212e-6;
    double xc = x > 709.79 ? 709.79 : x;
    xc = xc < -745.2 ? -745.2 : xc;
    double t = xc * log2e;
    double fn = (t + 6755399441055744.0) - 6755399441055744.0;   /* round: 1.5 * 2^52 */
    int32_t n = (int32_t)fn;
    double r = (xc - fn * c1) - fn * c2;
    double rr = r * r;
    /* Cephes exp: exp(r) = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2)) */
    double p = ((1.26177193074810590878e-4 * rr + 3.02994407707441961300e-2) * rr
                + 9.99999999999999999910e-1) * r;
    double q = ((3.00198505138664455042e-6 * rr + 2.52448340349684104192e-3) * rr
                + 2.27265548208155028766e-1) * rr + 2.00000000000000000009e0;
    double e = 1.0 + 2.0 * (p / (q - p));
    int32_t n1 = n >> 1;
    double y = e * strided_pow2i(n1) * strided_pow2i(n - n1);
    y = x > 709.782712893384 ? INFINITY : y;
    y = x < -745.1332191019412 ? 0.0 : y;
    y = x != x ? x : y;
    return y;
}

static inline float strided_tanhf(float x) {
    /* |x| < 0.625: an odd polynomial (Cephes tanhf); else 1 - 2 / (exp(2|x|) + 1) */
    float ax = fabsf(x);
    float z = x * x;
    float small = ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z
                    + 1.33314422036e-1f) * z - 3.33332819422e-1f) * z * x + x;
    float big = 1.0f - 2.0f / (strided_expf(2.0f * ax) + 1.0f);
    float y = ax < 0.625f ? fabsf(small) : big;
    y = copysignf(y, x);             /* tanh is odd: keeps the sign of x, -0.0 included */
    y = x != x ? x : y;
    return y;
}

static inline float strided_sigmoidf(float x) {
    return 1.0f / (1.0f + strided_expf(-x));
}

static inline double strided_sigmoid(double x) {
    return 1.0 / (1.0 + strided_exp(-x));
}

/* A complex number from its parts, without computing re + im*I (which turns an infinite or NaN
 * imaginary part into a NaN real part). */
static inline float _Complex strided_cmplxf(float re, float im) {
    return __builtin_complex(re, im);
}

static inline double _Complex strided_cmplx(double re, double im) {
    return __builtin_complex(re, im);
}

/* Complex functions whose obvious formulas lose accuracy or signs (Note [Vectorisable math] does
 * not apply: these are scalar, for correctness). Each builds its result from real parts. */

#define STRIDED_COMPLEX_HELPERS(T, SUF, CT)                                                     \
static inline CT strided_clog2##SUF(CT z) {     /* log(z) * log2(e), part by part (NumPy) */  \
    CT l = clog##SUF(z);                                                                        \
    return __builtin_complex((T)(creal##SUF(l) * (T)1.4426950408889634),                        \
                             (T)(cimag##SUF(l) * (T)1.4426950408889634));                       \
}                                                                                               \
static inline CT strided_clog10##SUF(CT z) {                                                   \
    CT l = clog##SUF(z);                                                                        \
    return __builtin_complex((T)(creal##SUF(l) * (T)0.4342944819032518),                        \
                             (T)(cimag##SUF(l) * (T)0.4342944819032518));                       \
}                                                                                               \
static inline CT strided_clog1p##SUF(CT z) {                                                   \
    /* log|1+z| = log1p(2x + x^2 + y^2) / 2 is accurate near 0; arg(1+z) = atan2(y, 1+x),    \
     * which keeps the sign of a zero y */                                                      \
    T x = creal##SUF(z), y = cimag##SUF(z);                                                     \
    T ax = fabs##SUF(x), ay = fabs##SUF(y);                                                     \
    if (ax > (T)1e10 || ay > (T)1e10 || x != x || y != y || isinf(x) || isinf(y)) {           \
        return clog##SUF(__builtin_complex((T)(1 + x), y));                                     \
    }                                                                                           \
    return __builtin_complex((T)(0.5 * log1p##SUF(x * (2 + x) + y * y)),                        \
                             atan2##SUF(y, (T)(1 + x)));                                        \
}                                                                                               \
static inline CT strided_cexpm1##SUF(CT z) {                                                   \
    /* e^x (cos y + i sin y) - 1, with the real part as expm1(x) cos y - 2 sin^2(y/2) */       \
    T x = creal##SUF(z), y = cimag##SUF(z);                                                     \
    T s = sin##SUF(y / 2);                                                                      \
    if (isinf(x) || x != x || y != y || isinf(y)) {                                             \
        CT e = cexp##SUF(z);                                                                    \
        return __builtin_complex((T)(creal##SUF(e) - 1), cimag##SUF(e));                        \
    }                                                                                           \
    return __builtin_complex((T)(expm1##SUF(x) * cos##SUF(y) - 2 * s * s),                      \
                             (T)(exp##SUF(x) * sin##SUF(y)));                                   \
}                                                                                               \
static inline CT strided_csign##SUF(CT z) {                                                    \
    /* z / |z|; an infinite part points the way (NumPy 2); 0 stays 0 */                        \
    T x = creal##SUF(z), y = cimag##SUF(z);                                                     \
    T m;                                                                                        \
    if (isinf(x) || isinf(y)) {                                                                 \
        T ux = isinf(x) ? copysign##SUF(1, x) : 0, uy = isinf(y) ? copysign##SUF(1, y) : 0;     \
        m = sqrt##SUF(ux * ux + uy * uy);                                                       \
        return __builtin_complex((T)(ux / m), (T)(uy / m));                                     \
    }                                                                                           \
    if (x == 0 && y == 0) {                                                                     \
        return __builtin_complex((T)0, (T)0);                                                   \
    }                                                                                           \
    m = cabs##SUF(z);                                                                           \
    return __builtin_complex((T)(x / m), (T)(y / m));                                           \
}

STRIDED_COMPLEX_HELPERS(float, f, float _Complex)
STRIDED_COMPLEX_HELPERS(double, , double _Complex)

#endif /* STRIDED_VECMATH_H */
