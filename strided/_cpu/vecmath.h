/* Vectorisable transcendental functions for the CPU's elementwise loops (issue 20).
 *
 * Note [Vectorised transcendental functions]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The C library's logf(), sinf() and the rest are opaque calls: a loop over them runs one
 * element at a time, 3-10x behind PyTorch (SLEEF) and NumPy (its own SIMD routines). The
 * functions here are written so that GCC vectorises the generated loops of unary.pyx.tp for
 * whatever -march the build uses (the same idea as Note [Vectorisable math] in scalar_math.h,
 * whose strided_exp they reuse): straight-line code of multiplies, adds, integer operations on
 * the bit patterns and selects (``c ? a : b``); no calls, no branches, no tables; rounding to
 * an integer by adding and subtracting 1.5 * 2^52; int64 -> double conversions by the same
 * trick (a plain conversion vectorises only with AVX-512DQ).
 *
 * Why our own polynomials, not a library: SLEEF (what PyTorch uses) is a C library that is not
 * on PyPI, so a wheel build could not get it through the registries; NumPy's SIMD routines are
 * internal to NumPy; SVML is Intel's and closed. The classic public-domain algorithms are
 * short: fdlibm/musl's log (f = m - 1, s = f / (2 + f), a degree-14 polynomial in s), fdlibm's
 * sin/cos kernels with its medium-size Cody-Waite reduction, musl's float sin/cos kernels.
 *
 * Accuracy (tests/test_vecmath_accuracy.py measures it on 2.6-3.3 million points per function,
 * against float64 for float32 results and long double for float64 results). Measured maxima,
 * with NumPy 2.4's on the same points in brackets:
 *   float64: log 0.73 ulp (0.51), log2 0.63 (0.54), log10 0.63 (1.57), log1p 0.74 (0.79),
 *            sin 0.76 (0.52), cos 0.76 (0.52), exp2 0.76 (0.51), expm1 0.89 (0.83), tanh 0.73
 *            (1.17), erf 0.79 (SciPy's 2.6), erfc 0.84, atan 0.83 (0.52), asin 0.85 (0.51),
 *            acos 0.89 (0.52), sinh 0.86 (1.81), cosh 0.73 (1.81), asinh 0.74 (1.65), acosh
 *            0.73 (2.09), atanh 0.74 (1.60), tan 0.79 (0.57; 0.87 built without FMA);
 *   float32: log 0.74 (3.36), log2 1.06, log10 0.90, log1p 0.80 (float lanes: Note [Float
 *            logarithms in float lanes]), sinh 0.88, cosh 0.90 (float lanes: Note [sinh and
 *            cosh in float lanes]), asinh 0.82, acosh 1.13 (float lanes with FMA, Note [asinh
 *            and acosh in float lanes]; 0.50 on x86-64-v2), atanh 1.04 (float lanes), sin and
 *            cos 0.56 (1.47), tan 0.95 (1.27),
 *            atan 1.31 (float lanes, 1.41 without FMA: Note [atan in float lanes]), asin,
 *            acos 0.50, expm1 1.43 (float lanes, 1.57 without FMA: Note [expm1 in float
 *            lanes]),
 *            erf 1.09 (1.39 without FMA), erfc 1.41 (every float32; 1.21 without FMA;
 *            SciPy's; NumPy has neither), exp2 1.09 (1.33 without FMA; every float32).
 *
 * Three rules that the code follows:
 *   - The float32 functions widen to double and round once at the end: a double polynomial of
 *     modest accuracy (~1e-15) then gives a float result within 1 ulp, and float subnormals
 *     are normal doubles. Half the lanes of a float vector, but no float-specific subtleties.
 *     The exceptions, in float lanes to keep up with PyTorch: log, log2, log10, log1p, erf, exp2,
 *     atanh, sinh, cosh, atan, expm1, asinh and acosh (with FMA), and erfc's polynomials (Note
 *     [erfc in float lanes]; all of erfc where there are fused multiply-adds, Note [erfc in
 *     float lanes with fma]).
 *   - Floating-point flags are NumPy's. log, log1p, log2 and log10 are "checked" ops (Note
 *     [Floating-point errors] in strided/_errstate.py): the loop's flags become warnings. So
 *     every lane computes only values that raise nothing (inputs are classified by integer
 *     compares on their bits: a float compare of NaN may raise "invalid"), and the arguments
 *     that must raise something (log(0), log(-1)) go to the C library in the fix-up pass, with
 *     inf and NaN. (Raising the flags in the vector code takes a division per element, which
 *     costs as much as the rest of log.)
 *   - Arguments the vector code cannot reduce accurately (trig beyond 2^20 pi/2), inf, NaN and
 *     outside the domain are not its business: the kernel computes a block with the vector code, then recomputes the
 *     rare such elements with the C library (Note [Fix-up passes] in unary.pyx.tp).
 */
#ifndef STRIDED_VECMATH_H
#define STRIDED_VECMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "scalar_math.h"  /* strided_exp */

/* Always inlined: a function that stays a call is a scalar call in every lane. GCC's inliner
 * gives up on the bigger ones (log is used by five loops per dtype) without this. */
#if defined(__GNUC__)
#define STRIDED_VINLINE static inline __attribute__((always_inline))
#else
#define STRIDED_VINLINE static inline
#endif

/* The fix-up passes' count of hard float64 lanes (Note [Fix-up passes] in unary.pyx.tp): 64
 * bits wide at AVX2, where an int made GCC pack each pair of double masks into int lanes,
 * unroll by two and spill (float64 exp2's loop 1.46x slower); an int where AVX-512's mask
 * registers add into int lanes directly (there a 64-bit count made log and log1p 10% slower) */
#if defined(__AVX2__) && !defined(__AVX512F__)
typedef int64_t strided_count64_t;
#else
typedef int32_t strided_count64_t;
#endif

STRIDED_VINLINE uint64_t strided_bits64(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

STRIDED_VINLINE double strided_from_bits64(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* c ? a : b done on the bits with integer masks. The functions of checked ops (log1p, acosh,
 * atanh: NumPy warns on their flags) replace out-of-domain arguments by harmless ones this way,
 * not by a select: with -fno-trapping-math (setup.py's unary_options) the compiler may move
 * the arithmetic that follows a select into both of its arms, and then compute inf - inf or
 * sqrt(-1) on the raw argument in every lane; it does not look through integer masks. */
STRIDED_VINLINE double strided_blend64(int c, double a, double b) {
    uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
    return strided_from_bits64((strided_bits64(a) & m) | (strided_bits64(b) & ~m));
}

/* a + b = s + e exactly (Knuth's TwoSum: no condition on the sizes of a and b) */
#define STRIDED_TWO_SUM(a, b, s, e)                                                             \
    do {                                                                                        \
        (s) = (a) + (b);                                                                        \
        double _bb = (s) - (a);                                                                 \
        (e) = ((a) - ((s) - _bb)) + ((b) - _bb);                                                \
    } while (0)

/* ---- log -------------------------------------------------------------------------------- */

/* log(x) for x > 0 finite and normal, plus ek * ln 2 (ek a small integer as a double): fdlibm's
 * e_log.c without its branches (musl's form). x = 2^k * m, m in [sqrt(2)/2, sqrt(2)), f = m - 1,
 * s = f / (2 + f); log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)) with R a degree-7 polynomial in
 * s^2; k ln 2 in two parts (ln2_hi has trailing zero bits, so k * ln2_hi is exact). < 1 ulp. */
#define STRIDED_LOG_E 0
#define STRIDED_LOG_2 1
#define STRIDED_LOG_10 2
STRIDED_VINLINE double strided_vlog_core(double x, double ek, int for_float, int base, double c) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
                 Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
                 Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                 Lg7 = 1.479819860511658591e-01;
    /* move the boundary of m's interval from 1 to sqrt(2)/2 (bits 0x3fe6a09e...) */
    uint64_t ix = strided_bits64(x) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL);
    /* k + 1023 from the exponent field, to a double by 2^52 + i - 2^52 */
    double dk = strided_from_bits64(0x4330000000000000ULL | (ix >> 52))
                - (4503599627370496.0 + 1023.0) + ek;
    ix = (ix & 0x000fffffffffffffULL) + 0x3fe6a09e00000000ULL;
    double f = strided_from_bits64(ix) - 1.0;
    double hfsq = 0.5 * f * f;
    double s = f / (2.0 + f);
    if (for_float) {
        /* a float result needs s only to ~2^-40: a float division (twice the lanes per
         * instruction, and the division is the slowest step) and one Newton step in double */
        double d = 2.0 + f;
        double r = (double)(1.0f / (float)d);
        r = r * (2.0 - d * r);
        s = f * r;
    }
    double z = s * s;
    double w = z * z;
    double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
    double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
    double R = t2 + t1;
    if (base == STRIDED_LOG_E)  /* c: log1p's correction for the rounding of 1 + x */
        return s * (hfsq + R) + (dk * ln2_lo + c) - hfsq + f + dk * ln2_hi;
    /* log2 and log10 (musl's e_log2.c, e_log10.c): log(1 + f) = hi + lo with hi = f - hfsq
     * cut to its high 32 bits, so that hi times the high part of 1/ln 2 (1/ln 10) loses little,
     * then k (k log10(2)) added with the rounding error kept */
    double hi = f - hfsq;
    hi = strided_from_bits64(strided_bits64(hi) & 0xffffffff00000000ULL);
    double lo = f - hi - hfsq + s * (hfsq + R);
    double val_hi, val_lo, y;
    if (base == STRIDED_LOG_2) {
        const double ivln2hi = 1.44269504072144627571e+00, ivln2lo = 1.67517131648865118353e-10;
        val_hi = hi * ivln2hi;
        val_lo = (lo + hi) * ivln2lo + lo * ivln2hi;
        y = dk;
    } else {
        const double ivln10hi = 4.34294481878168880939e-01,
                     ivln10lo = 2.50829467116452752298e-11,
                     log10_2hi = 3.01029995663611771306e-01,
                     log10_2lo = 3.69423907715893078616e-13;
        val_hi = hi * ivln10hi;
        val_lo = dk * log10_2lo + (lo + hi) * ivln10lo + lo * ivln10hi;
        y = dk * log10_2hi;
    }
    double sum = y + val_hi;
    val_lo += (y - sum) + val_hi;
    return val_lo + sum;
}

/* log(x) for x > 0 finite, subnormals included (scaled by 2^54 first, by a multiply by 1
 * elsewhere, which cannot overflow). Zero, negative, inf and NaN arguments are left to the C
 * library by the loop's fix-up pass (strided_vlog_hard below; Note [Fix-up passes] in
 * unary.pyx.tp), which then also raises NumPy's flags (divide by zero for log(0), invalid for
 * log(-1)): here they only must not raise anything, and they do not (the bits of such an x give
 * some finite m and k). */
STRIDED_VINLINE double strided_vlog_base(double x, int base) {
    uint64_t ix = strided_bits64(x);
    int sub = ix < 0x0010000000000000ULL;                  /* +0 or a positive subnormal */
    /* a subnormal times 2^1022 without a multiply (which the compiler might do in every lane,
     * where a big x would raise "overflow", with -fno-trapping-math): its mantissa bits under
     * 1.0's exponent give 1 + x 2^1022, exactly */
    /* (the compiler computes this in every lane, and a normal x's bits or'ed in would make a
     * signalling NaN, whose subtraction raises "invalid": other lanes take the bits of 0 by an
     * integer mask first; masking x's mantissa alone is not enough, as the compiler drops the
     * mask, knowing it changes nothing where the branch is taken) */
    uint64_t mbits = ix & (0 - (uint64_t)sub);
    double xs = sub ? strided_from_bits64(mbits | 0x3ff0000000000000ULL) - 1.0 : x;
    return strided_vlog_core(xs, sub ? -1022.0 : 0.0, 0, base, 0.0);
}

STRIDED_VINLINE double strided_vlog(double x) {
    return strided_vlog_base(x, STRIDED_LOG_E);
}

STRIDED_VINLINE double strided_vlog2(double x) {
    return strided_vlog_base(x, STRIDED_LOG_2);
}

STRIDED_VINLINE double strided_vlog10(double x) {
    return strided_vlog_base(x, STRIDED_LOG_10);
}

STRIDED_VINLINE int strided_vlog1p_hard(double x) {
    uint64_t b = strided_bits64(x);
    return !(b < 0x7ff0000000000000ULL || (b >= 0x8000000000000000ULL && b < 0xbff0000000000000ULL));
}

/* log1p(x) for x > -1 finite (others: the fix-up pass): musl's log1p without branches. u = 1 + x
 * is rounded; c = the rounding error over u corrects log(u) (dropped when x is so big that 1
 * vanishes in it); below 2^-54, log1p(x) rounds to x. */
STRIDED_VINLINE double strided_vlog1p(double x) {
    uint64_t ix = strided_bits64(x);
    /* x <= -1, inf, NaN: a harmless argument (the fix-up pass redoes them), by integer masks
     * (strided_blend64: else inf - inf could appear in a lane) */
    double xx = strided_blend64(strided_vlog1p_hard(x), 0.0, x);
    double u = 1.0 + xx;
    uint64_t ku = (strided_bits64(u) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL)) >> 52;
    /* k = ku - 1023 >= 2: u - x is exact; k < 2: u - 1 is */
    double c = ku >= 1023 + 2 ? 1.0 - (u - xx) : xx - (u - 1.0);
    c = ku < 1023 + 54 ? c / u : 0.0;
    double y = strided_vlog_core(u, 0.0, 0, STRIDED_LOG_E, c);
    return (ix & 0x7fffffffffffffffULL) < 0x3c90000000000000ULL ? x : y;  /* 2^-54 */
}


/* 1 where x is not a positive finite double (or float): the fix-up pass's condition for log,
 * as an integer compare of the bits (a float compare of NaN may raise "invalid") */
STRIDED_VINLINE int strided_vlog_hard(double x) {
    return strided_bits64(x) - 1 >= 0x7fefffffffffffffULL;
}

STRIDED_VINLINE int strided_vlogf_hard(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b - 1 >= 0x7f7fffffu;
}

/* 1 where log1p(x) is not for the vector code: x <= -1, inf or NaN */
STRIDED_VINLINE int strided_vlog1pf_hard(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return !(b < 0x7f800000u || (b >= 0x80000000u && b < 0xbf800000u));
}

/* Note [Float logarithms in float lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * log, log2, log10 and log1p of float32 share Cephes' logf reduction (strided_logf_reduce):
 * x = 2^k (1 + f) with f in [sqrt(2)/2 - 1, sqrt(2) - 1) exact, and log(1 + f) = f - z/2 + q,
 * z = f^2, q = f z P(f) with P of degree 8: eight float lanes per AVX2 instruction, twice the
 * double route's four (which log2, log10 and log1p took until issue 20 measured them at half
 * PyTorch's speed). What each adds to the shared part, so that the float result is rounded
 * (nearly) once:
 *   log:   k ln 2 in two parts, 0.693359375 (exact times any k) and -2.12e-4: 0.74 ulp;
 *   log2:  k + f log2(e) + (log(1 + f) - f) log2(e): f log2(e) is split, f's top 12 bits times
 *          log2(e)'s top 12 bits exact, the rest small; k + that head summed with its rounding
 *          error kept (Fast2Sum: |k| >= 1 > the head, or k = 0): 1.06 ulp (0.93 with FMA);
 *   log10: the same with k log10(2) = k l2_hi (16 bits: exact) + k l2_lo: 0.90 ulp;
 *   log1p: log(u) of u = 1 + x (rounded) plus c / u, c = the rounding error of 1 + x (exact
 *          in float: x - (u - 1), or 1 - (u - x) once u >= 2); below 2^-26 log1p(x) rounds to
 *          x: 0.80 ulp.
 * (Measured on 3.7 million points each, x86-64-v2 and v3; tests/test_vecmath_accuracy.py.) */
/* q = f z P(f), z = f^2 (returned by pointer): Cephes' log(1 + f) = f - z/2 + q */
STRIDED_VINLINE float strided_logf_q(float f, float* z_out) {
    float z = f * f;
    float p = 7.0376836292e-2f;
    p = p * f - 1.1514610310e-1f;
    p = p * f + 1.1676998740e-1f;
    p = p * f - 1.2420140846e-1f;
    p = p * f + 1.4249322787e-1f;
    p = p * f - 1.6668057665e-1f;
    p = p * f + 2.0000714765e-1f;
    p = p * f - 2.4999993993e-1f;
    p = p * f + 3.3333331174e-1f;
    *z_out = z;
    return p * f * z;
}

STRIDED_VINLINE float strided_logf_reduce(float x, float* f_out, float* k_out, float* z_out) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    int sub = b < 0x00800000u;                            /* +0 or a positive subnormal */
    uint32_t one_bits = (b & (0 - (uint32_t)sub)) | 0x3f800000u;  /* x 2^126 as in strided_vlog
                                                                   * (other lanes: 1.0) */
    float one_x;
    memcpy(&one_x, &one_bits, sizeof one_x);
    float xs = sub ? one_x - 1.0f : x;
    memcpy(&b, &xs, sizeof b);
    b += 0x3f800000u - 0x3f3504f3u;
    *k_out = (float)((int32_t)(b >> 23) - 0x7f) + (sub ? -126.0f : 0.0f);
    b = (b & 0x007fffffu) + 0x3f3504f3u;
    float f;
    memcpy(&f, &b, sizeof f);
    f -= 1.0f;
    *f_out = f;
    return strided_logf_q(f, z_out);
}

/* logf in float lanes: Cephes' logf, within 1.5 ulp (0.74 measured) */
STRIDED_VINLINE float strided_vlogf(float x) {
    float f, k, z;
    float y = strided_logf_reduce(x, &f, &k, &z);
    y += -2.12194440e-4f * k;          /* ln 2 = 0.693359375 - 2.12194440e-4, the first exact */
    y += -0.5f * z;
    return (f + y) + 0.693359375f * k;
}

/* f with its 12 low mantissa bits cleared: 12 significant bits, so that its product with
 * another 12-bit number is exact */
STRIDED_VINLINE float strided_head12f(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    b &= 0xfffff000u;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* log(1 + f) times the constant L = L_hi + L_lo (L_hi of 12 bits) as head + tail: head =
 * f_hi L_hi exact, tail the small rest (Note [Float logarithms in float lanes]) */
STRIDED_VINLINE float strided_logf_times(float f, float t, float L, float L_hi, float L_lo,
                                         float* tail) {
    float f_hi = strided_head12f(f), f_lo = f - f_hi;
    *tail = (f_lo * L + f_hi * L_lo) + t * L;
    return f_hi * L_hi;
}

STRIDED_VINLINE float strided_vlog2f(float x) {
    float f, k, z, lo;
    float q = strided_logf_reduce(x, &f, &k, &z);
    float hi = strided_logf_times(f, q - 0.5f * z, 1.44269504088896341f, 1.4423828125f,
                                  3.1222839606925845e-4f, &lo);
    float sum = k + hi;
    float err = (k - sum) + hi;                 /* Fast2Sum: |k| >= 1 > |hi|, or k = 0 */
    return sum + (err + lo);
}

STRIDED_VINLINE float strided_vlog10f(float x) {
    float f, k, z, lo;
    float q = strided_logf_reduce(x, &f, &k, &z);
    float hi = strided_logf_times(f, q - 0.5f * z, 0.434294481903251828f, 0.4342041015625f,
                                  9.038033749675378e-5f, &lo);
    float kh = k * 0.301025390625f;             /* k log10(2)'s head: 8 bits times 16, exact */
    float sum = kh + hi;
    float err = (kh - sum) + hi;                /* |kh| >= 0.30 > |hi|, or k = 0 */
    return sum + (err + (k * 4.605039066518657e-6f + lo));
}

/* c ? a : b on the bits, for floats (strided_blend64's reason: no select that the compiler may
 * push arithmetic into) */
STRIDED_VINLINE float strided_blend32(int c, float a, float b) {
    uint32_t m = 0 - (uint32_t)(c != 0), ua, ub;
    memcpy(&ua, &a, sizeof ua);
    memcpy(&ub, &b, sizeof ub);
    ua = (ua & m) | (ub & ~m);
    memcpy(&a, &ua, sizeof a);
    return a;
}

/* a b + c: one fused multiply-add where the hardware has it (x86-64-v3 on; one rounding),
 * else a multiply and an add (x86-64-v2: fmaf() would be a library call in every lane) */
STRIDED_VINLINE float strided_maddf(float a, float b, float c) {
#if defined(__FMA__) || defined(__aarch64__)
    return fmaf(a, b, c);
#else
    return a * b + c;
#endif
}

/* log(u) + c for a small correction c (|c| <= 2^-24): log1p's sum of log(1 + x) rounded and
 * its rounding error over u */
STRIDED_VINLINE float strided_logf_plus(float u, float c) {
    float f, k, z;
    float y = strided_logf_reduce(u, &f, &k, &z);
    y = (y + (c + -2.12194440e-4f * k)) - 0.5f * z;
    return (f + y) + 0.693359375f * k;
}

/* log1p in float lanes (Note [Float logarithms in float lanes]). x <= -1, inf and NaN go to
 * the fix-up pass (strided_vlog1pf_hard); the lanes see 0 instead. */
STRIDED_VINLINE float strided_vlog1pf(float x) {
    uint32_t ax;
    memcpy(&ax, &x, sizeof ax);
    ax &= 0x7fffffffu;                       /* |x|'s bits: compared as integers, no flags */
    float xx = strided_blend32(strided_vlog1pf_hard(x), 0.0f, x);
    float u = 1.0f + xx;
    uint32_t ub;
    memcpy(&ub, &u, sizeof ub);
    uint32_t ku = (ub + (0x3f800000u - 0x3f3504f3u)) >> 23;   /* u's k + 127 */
    float c = ku >= 127 + 2 ? 1.0f - (u - xx) : xx - (u - 1.0f);
    /* c / u would underflow (a flag: log1p is a checked op) for huge u, where it is nothing */
    c = strided_blend32(ku >= 127 + 26, 0.0f, c) / u;
    return ax < 0x32800000u ? x : strided_logf_plus(u, c);         /* 2^-26: log1p(x) rounds to x */
}

/* ---- expm1 ------------------------------------------------------------------------------ */

/* Note [expm1 in float lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * float32 expm1 was exp(x) - 1 in double (Cephes' rational exp, a division; 0.50 ulp) at half
 * the lanes, 0.52x NumPy's AVX-512 loop. Now in float lanes, one path for every x:
 *   x = k ln2 + r, k = round(x / ln2), r = x - k ln2 by fused multiply-adds on ln 2 in two
 *   parts (Note [Vectorisable math]'s reduction; k = 0 and r = x exactly for |x| < ln2 / 2, so
 *   small x keep their relative accuracy), e = expm1(r) = r + r^2 P(r) with Cephes' expf
 *   polynomial (strided_expm1f_reduced's), and expm1(x) = 2^k (e + (1 - 2^-k)): 1 - 2^-k is
 *   exact for k <= 24 and rounds to 1 above, where 2^-k is below the sum's rounding; 2^k goes
 *   in as 2^(k-1) times 2, so that k = 128 (x up to ln of the largest float) needs no second
 *   exponent. x is clamped to [-18, 88.73]: expm1 rounds to -1 below -17.33, and above 88.7228
 *   the last multiply overflows to inf by itself (with the flag NumPy raises).
 * |x| < 2^-25 (expm1 rounds to x; -0 stays -0; no underflow of r^2) and NaN return x by one
 * unsigned compare on the bits. The values differ between levels (fused multiply-adds at
 * x86-64-v3 and v4, a multiply and an add at v2), within the bound. The largest error is at
 * k = 1 with r < 0 (x near 0.37: e's rounding, doubled, is an ulp of the result).
 * Measured on every fifth float32 (855 million points, both signs, subnormals to inf) against
 * the C library's double expm1: 1.43 ulp at x86-64-v3 and v4, 1.57 at v2 (was 0.50). The loop
 * alone, 1e6 floats from [-2, 2], 1 thread, 2-core AMD EPYC Zen 4: v4 778 -> 231 us, v3 1533
 * -> 418 us, v2 3256 -> 1462 us. strided.expm1(x, out=o), the same 1e6 floats, 1 thread,
 * medians of 11 alternated: v4 671 -> 250 us (NumPy 352-404, PyTorch 712-9800: its time varies
 * run to run), v3 419 us, v2 1113 us. */
STRIDED_VINLINE float strided_vexpm1f(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    b &= 0x7fffffffu;
    float xc = x > 88.73f ? 88.73f : (x < -18.0f ? -18.0f : x);      /* NaN falls through */
    float fn = strided_maddf(xc, 1.44269504088896341f, 12582912.0f) - 12582912.0f;   /* k */
    float r = strided_maddf(-fn, 0.693359375f, xc);
    r = strided_maddf(-fn, -2.12194440e-4f, r);
    float p = 1.9875691500e-4f;
    p = strided_maddf(p, r, 1.3981999507e-3f);
    p = strided_maddf(p, r, 8.3334519073e-3f);
    p = strided_maddf(p, r, 4.1665795894e-2f);
    p = strided_maddf(p, r, 1.6666665459e-1f);
    p = strided_maddf(p, r, 5.0000001201e-1f);
    float e = strided_maddf(p, r * r, r);                            /* expm1(r) */
    int32_t k = (int32_t)fn;
    int32_t kc = k > 30 ? 30 : k;
    uint32_t cb = (uint32_t)(127 - kc) << 23, sb = (uint32_t)(126 + k) << 23;
    float c, s;                                                      /* 2^-k, 2^(k-1) */
    memcpy(&c, &cb, sizeof c);
    memcpy(&s, &sb, sizeof s);
    float y = ((e + (1.0f - c)) * s) * 2.0f;
    /* |x| < 2^-25 and NaN: x itself */
    return strided_blend32(b - 0x33000000u > 0x7f800000u - 0x33000000u, x, y);
}

/* ---- exp2 ------------------------------------------------------------------------------- */

/* Note [exp2 without a logarithm's rounding]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * 2^x = 2^n 2^r with n = round(x) and r = x - n in [-1/2, 1/2]: both exact (x and n are
 * doubles a few hundred apart at most, and r keeps x's low bits), so unlike exp there is no
 * ln 2 to split for the reduction and no reduction error. 2^r from its Taylor series,
 * 1 + ln2 r + c2 r^2 + ... (c_k = ln2^k / k!, exact to double's rounding): to r^13 in float64
 * (the first term left out, (ln2 / 2)^14 / 14!, is 4e-18 relative); float32 has a fit of its
 * own in float lanes (below).
 *
 * In float64 the plain 1 + r P(r) is 0.85 ulp off with FMA and 1.13 without (x86-64-v2): for
 * r < 0 the result is below 1, where an ulp is half as big, and P's rounding counts |r| times.
 * So the big term ln2 r is made exact: with FMA, A = ln2 r and its rounding error by fma (plus
 * r times ln2's own tail, 2.3e-17); without, r_hi (r's top 26 bits) times ln2_hi (27 bits) is
 * exact in double, and r_lo ln2 + r_hi ln2_lo is the error. 1 + A is added with its rounding
 * error kept (Fast2Sum: s = 1 + A, (1 - s) + A is exact as |A| < 1), and everything else (A's
 * error, r^2 Q(r), at most 0.06) is added to that error before the last add: 0.64 ulp with
 * FMA, 0.66 without. Q by pairs (Estrin's scheme).
 * The vector code is for |x| < 1021, where 2^x is a normal double: 2^n goes into the exponent
 * bits by one integer add (n is in the low bits of x + 1.5 * 2^52). The rest (subnormal
 * results, overflow, +-inf, NaN) is the C library's, in the loop's fix-up pass (Note [Fix-up
 * passes] in unary.pyx.tp). Before, x was clamped to +-1100 in every lane (GCC made the two
 * selects eight blends, copying arithmetic into both arms), 2^n went in in two halves and NaN
 * was selected through: ~60 instructions per vector, throughput-bound, 0.66x PyTorch's AVX2
 * build at x86-64-v3 and 0.70x its AVX-512 one at v4. The loop alone, 1e6 float64 from [-120,
 * 120], 1 thread, AMD EPYC with AVX-512: v3 1.18 -> 0.81 ms (with the fix-up pass's count
 * of hard lanes 64 bits wide, strided_count64_t), v4 0.57 -> 0.47 ms; bench_transcendental.py
 * --only exp2 --rounds 5 --threads 1: v3 0.98x PyTorch's AVX2 build (792 us, PyTorch 775; was
 * 0.66x); v4 still 0.71x (552 us, PyTorch's AVX-512 build 392, the machine loaded). */
/* Q(r) = c2 + c3 r + ... + c13 r^11 of 2^r's Taylor series (c_k = ln2^k / k!), |r| <= 1/2,
 * by pairs */
STRIDED_VINLINE double strided_exp2_q(double r, double r2) {
    double r4 = r2 * r2, r8 = r4 * r4;
    double p0 = 0.05550410866482158 * r + 0.24022650695910072;
    double p1 = 0.0013333558146428443 * r + 0.009618129107628477;
    double p2 = 1.5252733804059841e-05 * r + 0.0001540353039338161;
    double p3 = 1.01780860092397e-07 * r + 1.321548679014431e-06;
    double p4 = 4.4455382718708116e-10 * r + 7.054911620801123e-09;
    double p5 = 1.3691488853904128e-12 * r + 2.5678435993488206e-11;
    return ((p5 * r2 + p4) * r8 + (p3 * r2 + p2) * r4) + (p1 * r2 + p0);
}

/* 2^m for an integer-valued double m in [-1022, 1023]: m + 1.5 * 2^52 holds m + 1023 in its
 * low bits (the same trick as strided_exp_for_float) */
STRIDED_VINLINE double strided_pow2_of(double m) {
    double t = m + 6755399441055744.0;
    return strided_from_bits64((strided_bits64(t) + 1023 - 0x0008000000000000ULL) << 52);
}

STRIDED_VINLINE double strided_vexp2(double x) {
    double t = x + 6755399441055744.0;                          /* 1.5 * 2^52: n in low bits */
    double n = t - 6755399441055744.0;                          /* round to nearest */
    double r = x - n;
    double r2 = r * r;
    double q = strided_exp2_q(r, r2);
    const double ln2 = 0.6931471805599453;
#if defined(__FMA__) || defined(__aarch64__)
    double a = r * ln2;
    double a_err = fma(r, ln2, -a) + r * 2.3190468138462996e-17;  /* ln2's tail */
#else
    const double ln2_hi = 0x1.62e42fcp-1, ln2_lo = 5.5459262969660605e-09;
    double r_hi = strided_from_bits64(strided_bits64(r) & 0xfffffffff8000000ULL);
    double a = r_hi * ln2_hi;                                   /* exact */
    double a_err = (r - r_hi) * ln2 + r_hi * ln2_lo;
#endif
    double s = 1.0 + a;
    double y = s + (((1.0 - s) + a) + (a_err + r2 * q));
    /* |x| < 1021 (the fix-up pass has the rest): y 2^n is normal */
    uint64_t scale = (strided_bits64(t) - 0x4338000000000000ULL) << 52;
    return strided_from_bits64(strided_bits64(y) + scale);
}

/* float32 in float lanes (twice as many per instruction as double; PyTorch's is): the same
 * reduction, r exact, and 2^r = 1 + r P(r) with P of degree 5 fitted to (2^r - 1) / r on
 * [-1/2, 1/2] (Chebyshev least squares, float coefficients: 9e-9 relative, 0.15 of a float
 * ulp), by pairs (Estrin's scheme). The rounding of P and of the last add make it 1.09 ulp
 * over every float32, 1.33 without FMA (by Horner's scheme 0.91 and 1.15, 8% slower at
 * x86-64-v3 and 19% at v4), within float32's bound of 2 (through double it was 0.50, at half the speed). 2^n in
 * two halves (n in [-151, 151] after the clamp: each half a normal float), so a subnormal
 * result is rounded once. The clamp is an integer min on |x|'s bits, the sign put back (as
 * Note [erfc in float lanes with fma] does): the two selects of a float clamp became six
 * blends. The loop alone, 1e6 float32 from [-120, 120], 1 thread, AMD EPYC with AVX-512:
 * v3 0.311 -> 0.289 ms, v4 0.165 -> 0.138 ms; bench_transcendental.py --only exp2 --rounds 7
 * --threads 1: v3 0.89x -> 0.93x PyTorch's AVX2 build (292 us, PyTorch 271), v4 0.90x ->
 * 1.05x (141 us, PyTorch 148). */
STRIDED_VINLINE float strided_vexp2f(float x) {
    uint32_t xb;
    memcpy(&xb, &x, sizeof xb);
    uint32_t sgn = xb & 0x80000000u, mag = xb ^ sgn;
    mag = (mag < 0x43170000u ? mag : 0x43170000u) | sgn;      /* |x| <= 151 (NaN: 151) */
    float xc;
    memcpy(&xc, &mag, sizeof xc);
    float n = (xc + 12582912.0f) - 12582912.0f;                /* 1.5 * 2^23: round */
    float r = xc - n;
    float r2 = r * r;
    float p01 = 0.24022650718688965f * r + 0.6931471824645996f;
    float p23 = 0.009618056938052177f * r + 0.055503569543361664f;
    float p45 = 0.00015461447765119374f * r + 0.0013390866806730628f;
    float p = (p45 * r2 + p23) * r2 + p01;
    float y = 1.0f + r * p;
    int32_t ni = (int32_t)n, n1 = ni >> 1;
    y = (y * strided_pow2if(n1)) * strided_pow2if(ni - n1);
    return x != x ? x : y;
}

/* strided_vexp2f for |x| < 125 only, where 2^x is a normal float: no clamp, no select, and 2^n
 * goes into the exponent bits by one integer add (n is in the low bits of x + 1.5 * 2^23). The
 * float32 loop's fix-up pass gives the rest (subnormal results, overflow, inf, NaN) to the C
 * library, as float64's does (Note [exp2 without a logarithm's rounding]); the half loops, which
 * have none, keep strided_vexp2f. The same values as strided_vexp2f on |x| < 125 (every float
 * checked). The loop alone, 1e6 float32 from [-120, 120], 1 thread, AMD EPYC with AVX-512,
 * writing out directly: x86-64-v3 0.283 -> 0.157 ms, v4 0.136 -> 0.092 ms. */
#define STRIDED_VEXP2F_MAX 125.0f
STRIDED_VINLINE float strided_vexp2f_normal(float x) {
    float t = x + 12582912.0f;                                  /* 1.5 * 2^23: n in low bits */
    float n = t - 12582912.0f;                                  /* round to nearest */
    float r = x - n;
    float r2 = r * r;
    float p01 = 0.24022650718688965f * r + 0.6931471824645996f;
    float p23 = 0.009618056938052177f * r + 0.055503569543361664f;
    float p45 = 0.00015461447765119374f * r + 0.0013390866806730628f;
    float y = 1.0f + r * ((p45 * r2 + p23) * r2 + p01);
    uint32_t tb, yb;
    memcpy(&tb, &t, sizeof tb);
    memcpy(&yb, &y, sizeof yb);
    yb += (tb - 0x4b400000u) << 23;                             /* t's bits less 1.5 * 2^23's */
    memcpy(&y, &yb, sizeof y);
    return y;
}

/* ---- expm1 in float64 ---------------------------------------------------------------- */

/* expm1 in float64. Note [expm1 in float64]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * One polynomial, expm1(u) = u + u^2 (1/2 + u P(u)) with P the Taylor series to u^14 / 17!
 * (|u| <= 1/2: the first term left out is 2e-20 relative), on one of two arguments:
 *   |x| < 1/2: u = x itself, no reduction (the result has x's sign and size: 0.75 ulp);
 *   else:      x = k ln2 + u (fdlibm's reduction: k ln2_hi exact, u = r_hi - r_lo with its
 *              rounding error c kept, |u| <= ln2 / 2), e = expm1(u) + c (1 + e), and
 *              expm1(x) = 2^k e + (2^k - 1): 2^k - 1 is exact, and 2^k e is at most ~1.2
 *              times the result for k = +-1, where the ulps of e are smaller than the result's.
 * fdlibm reduces for |x| > ln2 / 2 and must then treat k = 1 apart (2e + 1 at x = 0.35
 * cancels: 2e = -0.58 of a result 0.41); reducing only from 1/2 on avoids that case. k is
 * capped at 1000 and the rest applied after (expm1 overflows at 709.78, where 2^1024 would
 * already be inf); x is clamped to [-40, 710] (expm1(-40) rounds to -1; 710 overflows).
 * Zeros (the sign of -0) and NaN are selected through at the end. Not a checked op, no fix-up
 * pass. P by Estrin's scheme (strided_expm1_tail_of(u, c, 2): the pairs c_i + c_{i+1} u combined
 * by u^2, u^4, u^8, 5 multiply-adds deep instead of Horner's 14, Note [logaddexp's latency]):
 * the loop ran at the chain's latency. The extra roundings are of terms below u^3 / 6 (0.91
 * ulp on 12 million points against long double, was 0.93). The loop alone, 1e6 float64 from
 * [-20, 20], 1 thread: x86-64-v4 1.26 -> 1.04 ms, v3 2.62 -> 2.33 ms, v2 8.8 -> 5.7 ms. */
/* expm1(u + c) - u for |u| <= 1/2 and c a tiny tail (u's rounding error): u^2 (1/2 + u P(u)) +
 * c (1 + u), P the Taylor series to u^14 / 17!; when `reduced` (|u| <= ln2 / 2, after exp's
 * reduction) to u^11 / 14! (the first term left out, u^15 / 15!, is below 2^-63 there: the
 * three steps less made float64 logaddexp 12% faster; there it is evaluated by Estrin's
 * scheme, Note [logaddexp's latency]); `reduced` 2: the whole series by Estrin's scheme
 * (Note [expm1 in float64]) */
STRIDED_VINLINE double strided_expm1_tail_of(double u, double c, int reduced) {
    if (reduced) {
        /* Estrin's scheme (Note [logaddexp's latency]) */
        double u2 = u * u, u4 = u2 * u2, u8 = u4 * u4;
        double q0 = 0.16666666666666666 + u * 0.041666666666666664;
        double q1 = 0.008333333333333333 + u * 0.001388888888888889;
        double q2 = 0.0001984126984126984 + u * 2.48015873015873e-05;
        double q3 = 2.7557319223985893e-06 + u * 2.755731922398589e-07;
        double q4 = 2.505210838544172e-08 + u * 2.08767569878681e-09;
        double q5 = 1.6059043836821613e-10 + u * 1.1470745597729725e-11;
        double r0 = q0 + u2 * q1, r1 = q2 + u2 * q3, r2 = q4 + u2 * q5;
        if (reduced == 2) {                       /* to u^14 / 17!, for |u| <= 1/2 */
            double q6 = 7.647163731819816e-13 + u * 4.779477332387385e-14;
            r2 = r2 + u4 * (q6 + u2 * 2.8114572543455206e-15);
        }
        double e = (r0 + u4 * r1) + u8 * r2;
        return u2 * (0.5 + u * e) + c * (1.0 + u);
    }
    double p = reduced ? 1.1470745597729725e-11
                       : ((2.8114572543455206e-15 * u + 4.779477332387385e-14) * u +
                          7.647163731819816e-13) * u + 1.1470745597729725e-11;
    p = p * u + 1.6059043836821613e-10;
    p = p * u + 2.08767569878681e-09;
    p = p * u + 2.505210838544172e-08;
    p = p * u + 2.755731922398589e-07;
    p = p * u + 2.7557319223985893e-06;
    p = p * u + 2.48015873015873e-05;
    p = p * u + 0.0001984126984126984;
    p = p * u + 0.001388888888888889;
    p = p * u + 0.008333333333333333;
    p = p * u + 0.041666666666666664;
    p = p * u + 0.16666666666666666;
    return (u * u) * (0.5 + u * p) + c * (1.0 + u);
}

STRIDED_VINLINE double strided_expm1_tail(double u, double c) {
    return strided_expm1_tail_of(u, c, 0);
}

/* expm1(u + c) with one rounding at the end */
STRIDED_VINLINE double strided_expm1_reduced(double u, double c) {
    return u + strided_expm1_tail(u, c);
}

STRIDED_VINLINE double strided_vexpm1(double x) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double xc = x > 710.0 ? 710.0 : (x < -40.0 ? -40.0 : x);
    double k = (xc * 1.44269504088896340736 + 6755399441055744.0) - 6755399441055744.0;
    k = fabs(xc) < 0.5 ? 0.0 : k;
    double r_hi = xc - k * ln2_hi;                 /* exact: ln2_hi's last 21 bits are 0 */
    double r_lo = k * ln2_lo;
    double u = r_hi - r_lo;
    double c = (r_hi - u) - r_lo;
    double e = u + strided_expm1_tail_of(u, c, 2);
    double kk = k > 1000.0 ? 1000.0 : k;
    double two_k = strided_pow2_of(kk);
    /* 2^k e + (2^k - 1), three terms: 2^k - 1 = b_hi + b_lo (b_lo is 0 up to k = 53, then
     * the 1 that b_hi lost), and the sum's rounding error err kept (Fast2Sum: |b_hi| is the
     * bigger), so that the last add rounds (nearly) the exact sum once */
    double a = two_k * e;
    double b_hi = two_k - 1.0;
    double b_lo = (two_k - b_hi) - 1.0;
    double t = b_hi + a;
    double err = (b_hi - t) + a;
    double y = (t + (err + b_lo)) * strided_pow2_of(k - kk);
    return (x != x || x == 0.0) ? x : y;
}

/* ---- tanh in float64 ------------------------------------------------------------------ */

/* n - q d exactly, for q a rounded quotient n / d (so the result is tiny and exact): one fused
 * multiply-add where the hardware has it (x86-64-v3); else (x86-64-v2, where fma() would be a
 * library call in every lane) Dekker's exact product of Veltkamp's 26-bit halves, 17 flops. */
STRIDED_VINLINE double strided_residual(double n, double q, double d) {
#if defined(__FMA__) || defined(__aarch64__)
    return fma(-q, d, n);
#else
    const double split = 134217729.0;                            /* 2^27 + 1 */
    double tq = q * split, qh = tq - (tq - q), ql = q - qh;
    double td = d * split, dh = td - (td - d), dl = d - dh;
    double p = q * d;
    double err = ((qh * dh - p) + qh * dl + ql * dh) + ql * dl;  /* q d = p + err exactly */
    return (n - p) - err;                                       /* n - p exact (Sterbenz) */
#endif
}

/* Note [tanh in float64]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * Two pieces, both computed in every lane and selected by |x| (a = |x|, the sign put back by
 * copysign, so -0 stays -0):
 *   a < 0.55: tanh(a) = a + a^3 P(a^2), P of degree 10 fitted to (tanh(a) - a) / a^3 (Chebyshev
 *             interpolation in mpmath at 50 digits, 6e-17 relative). The correction a^3 P is at
 *             most 0.1 of the result, so its rounding costs ~0.1 ulp: 0.6 ulp in all.
 *   a >= 0.55 (tanh >= 1/2): tanh(a) = (E - 1) / (E + 1), E = exp(2a) = 2^k (1 + e) with k >= 2
 *             and e = expm1(u + c) from expm1's reduction and polynomial (Note [expm1 in
 *             float64]). The simple form 1 - 2 / (E + 1) is 1.2-1.5 ulp (E's rounding, the
 *             division's, the subtraction's). Here E = 2^k + 2^k e, N = E - 1 and D = E + 1 are
 *             each a double plus its rounding error (Fast2Sums; 2^k +- 1 would not be exact
 *             from k = 53 on, where tanh is still 3 ulps from 1), the
 *             quotient q = N_hi / D_hi is corrected by the exact residual N_hi - q D_hi
 *             (strided_residual) and the tails: the last add rounds (nearly) the exact quotient
 *             once. 2a is clamped to 40 (tanh rounds to 1 from a = 19.06 on; inf too).
 * NaN is selected through at the end; tanh is not a checked op (Note [Floating-point
 * errors]): a subnormal's a^2 may underflow in its lane. No fix-up pass. */
STRIDED_VINLINE double strided_vtanh(double x) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double a = fabs(x);
    double z = a * a;
    double p = -2.0602765376366344e-05;
    p = p * z + 8.511313685577672e-05;
    p = p * z - 0.0002346347410887237;
    p = p * z + 0.0005889360520074057;
    p = p * z - 0.001455661830100716;
    p = p * z + 0.003592110378689024;
    p = p * z - 0.008863234397814355;
    p = p * z + 0.021869488493666944;
    p = p * z - 0.053968253967434016;
    p = p * z + 0.13333333333332714;
    p = p * z - 0.3333333333333333;
    double small = a + a * (z * p);
    double t = a > 20.0 ? 40.0 : (a < 0.55 ? 1.1 : 2.0 * a);     /* 2a, exact */
    double k = (t * 1.44269504088896340736 + 6755399441055744.0) - 6755399441055744.0;
    double r_hi = t - k * ln2_hi;                  /* exact: ln2_hi's last 21 bits are 0 */
    double r_lo = k * ln2_lo;
    double u = r_hi - r_lo;
    double e = strided_expm1_reduced(u, (r_hi - u) - r_lo);      /* E = 2^k (1 + e) */
    double two_k = strided_pow2_of(k);
    double ke = two_k * e;                         /* exact (a power of 2) */
    double s = two_k + ke;                         /* E, and its rounding error (Fast2Sum) */
    double s_lo = (two_k - s) + ke;
    double n_hi = s - 1.0;                         /* E -+ 1, each with its error (|E| > 2) */
    double n_lo = ((s - n_hi) - 1.0) + s_lo;
    double d_hi = s + 1.0;
    double d_lo = ((s - d_hi) + 1.0) + s_lo;
    double inv = 1.0 / d_hi;
    double q = n_hi * inv;
    double big = q + ((strided_residual(n_hi, q, d_hi) + n_lo) - q * d_lo) * inv;
    double y = copysign(a < 0.55 ? small : big, x);
    return x != x ? x : y;
}

/* ---- erf and erfc in float64 ------------------------------------------------------------ */

/* Note [erf and erfc in float64]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * (The form built without fused multiply-adds, x86-64-v2; with them, Note [erf and erfc in
 * float64 with fma] below.) A float64 result within 1 ulp needs every step before the last rounding within about a
 * quarter of an ulp, so the pieces are written as a double plus a small correction:
 *   small |x|:  erf(x) = x + x y(x^2), y = erf(x)/x - 1 of degree 13 (|x| < 0.84375, fdlibm's
 *               first split; |x y| <= 0.11 |erf|, so y's rounding costs ~0.1 ulp), and
 *               erfc(x) = (1 - x) - x y for -0.84375 < x < 0.25, 1 - x with its rounding
 *               error kept (Fast2Sum). Beyond 0.25 erfc has fallen to 0.72 and x y would cost
 *               more than a quarter ulp (at 0.84375, erfc = 0.23: the simple form is 1.3 ulp).
 *   a >= 0.25:  erfc(a) = exp(-a^2) M(a), both as a double and its tail:
 *               exp(-a^2) = 2^k (s + t): a^2 = A + A_lo exactly (strided_residual), fdlibm's
 *               reduction of -A with A_lo in its tail, 1 + u and expm1's remainder (Note
 *               [expm1 in float64]) kept apart (2^-57 relative);
 *               M = F(a) = exp(a^2) erfc(a) below a = 4, in four pieces ([0.25, 0.84375),
 *               [0.84375, 1.5), [1.5, 2.5), [2.5, 4)), each F(m) + F'(m) d + d^2 Q(d) around its
 *               middle m, d = a - m (with its rounding error), F(m) to 107 bits, F'(m) d
 *               exact (strided_residual) and Q of degree 14 (the curvature, at most 0.09 of
 *               F: its rounding costs little): the pieces' coefficients are picked per lane by
 *               selects (no tables); M = (1/a) G(1/a^2) from a = 4 on, G = 1/sqrt(pi) +
 *               w Q(w), Q of degree 16 in w = 1/a^2 <= 1/16 (the asymptotic series of erfc,
 *               fitted), 1/a to 107 bits by one residual.
 *               The product is rounded once, then scaled by 2^k in two halves (erfc is
 *               subnormal from a = 26.55 and 0 from 27.23; a is clamped at 27.5).
 *   erf(a) = 1 - erfc(a) from 0.84375 on (erfc <= 0.23 there: its errors shrink by 4), and
 *   erfc(-a) = 2 - erfc(a) from 0.84375 on (the same).
 * The coefficients: Chebyshev interpolation at 50 digits with mpmath (Q's fits within 1.2e-17
 * of F, G's 4e-18). Measured: erf 0.79 ulp (0.87 built without FMA), erfc 0.74, on 4 million
 * points each (NumPy has neither; SciPy's erf is 2.6 ulp). The price is speed: ~300
 * instructions per 4 lanes, about twice PyTorch's time (SLEEF's erf is 1.0 ulp, its erfc 1.5).
 * NaN is selected through at the end; erf and
 * erfc are not checked ops (Note [Floating-point errors]), so the lanes may raise what they like
 * (the small piece's x^2 underflows for subnormal x). No fix-up pass. */
/* Note [erf and erfc in float64 with fma]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The form of Note [erf and erfc in float64] picks each lane's piece coefficients by selects:
 * ~300 instructions per vector, 57 of them blends, every lane computing the small piece, four
 * pieces' coefficients, the asymptotic series and a division; 0.31x PyTorch at x86-64-v3 for
 * erf, 0.55x for erfc. With fma() one instruction, both are rebuilt with fewer pieces and no
 * coefficient selects (fits: Chebyshev interpolation at 50 digits in mpmath):
 *   erf, |x| < 1.2:  x + x y, y = erf(x)/x - 1 a polynomial of degree 13 in v = x^2 - 3/4 (z
 *                    = x^2 rounds: z + zl exactly by fma, and z - 3/4 = v + dz by Fast2Sum, so
 *                    y gets dz y'(z) from a line for y'), its last step v y1 with y1 in two
 *                    doubles, then fma(x, y, x): one rounding. The small piece cannot go much
 *                    further: from 1.25 on |y| > 1/4 and y's own rounding costs 0.3 ulp; in
 *                    powers of x^2 (not v) the Horner steps' roundings grow with x^2 (1.9 ulp
 *                    at 1.5).
 *   erf, |x| >= 1.2: 1 - exp(-a^2) q(t) w, w = 1 / (a + 2), t = 1 - 4w (exact: 4w in [1/2,
 *                    2]), q of degree 15 fitted to erfcx(a) (a + 2) on [1.2, 6] (a clamped; erf
 *                    is +-1 from 5.92). erfc <= 0.09 there, so a double each for exp(-a^2) =
 *                    2^k (1 + em) and q suffices, with two corrections: a^2's rounding (A_lo)
 *                    in exp's argument, and w's and a + 2's (q w is erfcx at 1/w - 2, not a:
 *                    times 1 + L (a - a'), L = erfcx'/erfcx a line in t); the product q
 *                    (1 + em + delta) rounds once and 1 - it w 2^k once more, by fma.
 *   erfc, all x:     one piece, exp(-a^2) Q(t) / (a + 2) on [0, 27.5] (a clamped), Q of
 *                    degree 27 (2^-59 relative; t reaches -1 at a = 0, where erfc = 1). Its
 *                    relative error counts down to the subnormals, so each part is a double and
 *                    a tail: 1 / (a + 2) = wh + wl (a + 2 itself by Fast2Sum, the residual by
 *                    fma), t = th + tl, Q = S + t^3 U with S = c0 + c1 t + c2 t^2 in two doubles
 *                    (its coefficients too) and U of degree 24 in doubles, exp(-a^2) = 2^k (s +
 *                    te) as in the form without fma (A_lo, expm1's tail), the product rounded
 *                    once by fma, scaled by 2^(k - k1) once more (k1 = max(k, -1000) keeps the
 *                    product normal: one rounding into the subnormals). x < 0: 2 - erfc(a)
 *                    from erfc(a) rounded (< 1, its rounding is at most a quarter of the
 *                    result's ulp).
 * At x86-64-v3 the loops are bound by the length of their dependency chains, not by their
 * count of instructions (one iteration of erfc is ~170 instructions, two fit in the
 * out-of-order window; at v4 the same count covers 8 lanes and the loops run twice as fast):
 * so the polynomials run as two or four Horner chains in t^2 or t^4 (constants as memory
 * operands: Estrin's scheme needed a register broadcast per pair, and spilled), S beside U
 * rather than three nested steps in two doubles, and clamps compare the bits as integers (a
 * select of doubles had GCC compute what follows in both arms: 11 blends). NaN flows through
 * erf's small piece and is selected through in erfc; +-inf clamp to 1 and 0 / 2. Not checked
 * ops (Note [Floating-point errors]): a subnormal's x^2 may underflow in its lane.
 * Measured against the long double oracle of tests/test_vecmath_accuracy.py: erf 0.79 ulp,
 * erfc 0.78 on its 2.5 million points, and on 2 million uniform points each of [0, 0.2],
 * [0.9, 1.6] (erf), [-1, 1] and [1, 30] (erfc): erf 0.79, erfc 0.84; the same values at v3
 * and v4. Time, 1e6 elements, out=, 1 thread, benchmarks/bench_transcendental.py --only
 * erf,erfc --rounds 7 --threads 1 (PyTorch alternated in the same process; at v3
 * STRIDED_CPU_FEATURES=x86-64-v3 ATEN_CPU_CAPABILITY=avx2), AMD EPYC with AVX-512, shared:
 *                    before                  after                  PyTorch
 *     v4  erf   3.87 ms (0.62x PyTorch)  1.24 ms (2.01x)        2.40-2.50 ms
 *         erfc  3.59 ms (1.17x)          1.98 ms (2.17x)        4.21-4.30 ms
 *     v3  erf   7.68 ms (0.31x)          2.51 ms (1.00x)        2.41-2.52 ms (AVX2 build)
 *         erfc  7.60 ms (0.55x)          4.24 ms (1.07x)        4.19-4.53 ms
 *     v2  unchanged (the form of Note [erf and erfc in float64]). */
#if defined(__FMA__) || defined(__aarch64__)
/* erf(x) in float64 with fused multiply-adds (Note [erf and erfc in float64 with fma]) */
STRIDED_VINLINE double strided_verf(double x) {
    double a = fabs(x);
    /* |x| < 1.2: x + x y(z), y = erf(x)/x - 1 in v = z - 3/4 (z = x^2 = z + zl exactly) */
    double z = x * x, zl = fma(x, x, -z);
    double v = z - 0.75;
    double dz = (z - (v + 0.75)) + zl;                /* z + zl - 3/4 = v + dz (Fast2Sum) */
    double v2 = v * v;
    double s0 = 4.7503560349461324e-11;
    s0 = fma(s0, v2, 7.479287420132449e-09);
    s0 = fma(s0, v2, 8.43695181614313e-07);
    s0 = fma(s0, v2, 6.318505372171521e-05);
    s0 = fma(s0, v2, 0.00284720833496622);
    s0 = fma(s0, v2, 0.06691888796466312);
    double s1 = -3.4626566025252654e-12;
    s1 = fma(s1, v2, -6.172752275637845e-10);
    s1 = fma(s1, v2, -8.321177888187076e-08);
    s1 = fma(s1, v2, -7.725334054346784e-06);
    s1 = fma(s1, v2, -0.0004554912389295751);
    s1 = fma(s1, v2, -0.015131144700105025);
    s0 = fma(s1, v, s0);                              /* y = y0 + y1 v + v^2 s0 */
    double dy = fma(0.13383777592932625, v, -0.24458841374655807);   /* ~y'(z), for dz */
    double inner = fma(v2, s0, fma(dz, dy, -0.10010880203447822));
    double y = fma(v, -0.24458841374655807, fma(v, 9.48679611503098e-18, inner));
    double small = fma(x, y, x);
    /* |x| >= 1.2: 1 - exp(-a^2) q(t) / (a + 2), t = (a - 2) / (a + 2), a clamped to [1.2, 6]
     * by integer compares on its bits (a >= 0: the bits order as the values) */
    int64_t ab = (int64_t)strided_bits64(a);
    ab = ab < 0x3ff3333333333333LL ? 0x3ff3333333333333LL : ab;                   /* 1.2 */
    ab = ab > 0x4018000000000000LL ? 0x4018000000000000LL : ab;                   /* 6 */
    double ac = strided_from_bits64((uint64_t)ab);
    double dh = ac + 2.0;
    double dl = ac - (dh - 2.0);                      /* a + 2 = dh + dl exactly */
    double w = 1.0 / dh;
    double res = fma(-dh, w, 1.0);                    /* 1 - dh w, exact */
    double t = fma(-4.0, w, 1.0);                     /* exact: 4w in [1/2, 2] */
    double t2 = t * t;
    double t4 = t2 * t2;
    double q0 = -2.1601802799799367e-05;
    q0 = fma(q0, t4, -0.0006630730152543587);
    q0 = fma(q0, t4, -0.0215106618893405);
    q0 = fma(q0, t4, 1.021582705242023);
    double q1 = -1.644898638861683e-05;
    q1 = fma(q1, t4, 3.43707458646245e-05);
    q1 = fma(q1, t4, 0.006479185067490458);
    q1 = fma(q1, t4, -0.6871606844138106);
    double q2 = -1.2931637877125887e-06;
    q2 = fma(q2, t4, 0.00014446071832385115);
    q2 = fma(q2, t4, 0.003090612046962112);
    q2 = fma(q2, t4, 0.2794720925560541);
    double q3 = 5.394086547437862e-06;
    q3 = fma(q3, t4, 3.417135137512823e-05);
    q3 = fma(q3, t4, -0.0008372960508437889);
    q3 = fma(q3, t4, -0.03644223150687403);
    q0 = fma(q1, t, q0);
    q2 = fma(q3, t, q2);
    q0 = fma(q2, t2, q0);
    /* q w is erfcx at a' = 1/w - 2, not a: times 1 + L (a - a'), L = erfcx'/erfcx (a
     * line in t, 9%), a - a' = dl - dh res */
    double el = fma(0.5603317281102214, t, -0.42849271295120556);
    double delta = -el * fma(dh, res, -dl);
    /* exp(-a^2) = 2^k (1 + em): a^2 = A + A_lo, r = -A - k ln2 - A_lo */
    double A = ac * ac, A_lo = fma(ac, ac, -A);
    double kt = fma(A, -1.4426950408889634, 6755399441055744.0);      /* 1.5 * 2^52 + k */
    double k = kt - 6755399441055744.0;
    double r = fma(k, -6.93147180369123816490e-01, -A) -              /* exact */
               fma(k, 1.90821492927058770002e-10, A_lo);
    double r2 = r * r;
    double e0 = 2.5110037605963777e-08;
    e0 = fma(e0, r2, 2.755724091857897e-06);
    e0 = fma(e0, r2, 0.00019841269890047113);
    e0 = fma(e0, r2, 0.008333333333319601);
    e0 = fma(e0, r2, 0.1666666666666668);
    e0 = fma(e0, r2, 1.0);
    double e1 = 2.763263963904103e-07;
    e1 = fma(e1, r2, 2.4801485482328494e-05);
    e1 = fma(e1, r2, 0.0013888888952314775);
    e1 = fma(e1, r2, 0.0416666666664881);
    e1 = fma(e1, r2, 0.5000000000000019);
    e0 = fma(e1, r, e0);
    double em = r * e0;                               /* e^r - 1 */
    /* w 2^k by an integer add to w's exponent (w 2^k >= 2^-55 stays normal): kt's low bits
     * are 2^51 + k, and shifted by 52 only k is left */
    double w2k = strided_from_bits64(strided_bits64(w) + (strided_bits64(kt) << 52));
    double m = fma(q0, em + delta, q0);               /* q (1 + em + delta) */
    double big = copysign(fma(-m, w2k, 1.0), x);
    return a >= 1.2 ? big : small;                    /* NaN: small, which is NaN */
}

/* erfc(a + al) for a >= 0 (Note [erf and erfc in float64 with fma]) before its last rounding:
 * (qh + ql) (fh + fl) 2^(k - k1), the last factor in *two_kk; with with_al, m erfc(a + al) (m
 * folded into 1 / (a + 2) as two doubles). al is a's own rounding error (gelu's a = |x| /
 * sqrt 2 and m = x / 2, Note [gelu's lanes] in gelu.h); with_al is a constant, and erfc's 0
 * leaves its instructions as they were. al goes in where a's first-order effect is carried:
 * a^2's tail A_lo (+ 2 a al) and a + 2's (dl + al), so w, t and Q take it through wl and tl. */
STRIDED_VINLINE void strided_erfc_parts(double a, double al, int with_al, double m, double* qh_,
                                        double* ql_, double* fh_, double* fl_, double* two_kk) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    int64_t ab = (int64_t)strided_bits64(a);          /* a >= 0: the bits order as the values */
    ab = ab > 0x403b800000000000LL ? 0x403b800000000000LL : ab;                   /* 27.5 */
    double ac = strided_from_bits64((uint64_t)ab);
    double dh = ac + 2.0;
    double dl = ac - (dh - 2.0);                      /* a + 2 = dh + dl exactly */
    dl = with_al ? dl + al : dl;
    double wh = 1.0 / dh;
    double wl = wh * (fma(-dh, wh, 1.0) - dl * wh);   /* 1 / (a + 2) = wh + wl */
    double mwh = with_al ? m * wh : wh;
    double mwl = with_al ? fma(m, wh, -mwh) + m * wl : wl;
    double w4 = 4.0 * wh;
    double th = 1.0 - w4;                             /* t = (a - 2) / (a + 2) = th + tl */
    double tl = ((1.0 - th) - w4) - 4.0 * wl;
    /* Q(t) = S(t) + t^3 U(t): S = c0 + c1 t + c2 t^2 in two doubles (c_i and t = th + tl
     * too; Fast2Sums, each sum's first term the bigger), beside U of degree 24 by Estrin's
     * scheme (Note [erf and erfc in float64 with fma]: the chain, not the count, is the time) */
    double th2 = th * th;
    double th4 = th2 * th2;
    double u0 = 1.001678806772894e-09;
    u0 = fma(u0, th4, -6.5828387701094655e-09);
    u0 = fma(u0, th4, -3.1912682474346437e-07);
    u0 = fma(u0, th4, 3.6453760319315154e-06);
    u0 = fma(u0, th4, 3.414896908291877e-05);
    u0 = fma(u0, th4, -0.0008372960623146001);
    u0 = fma(u0, th4, -0.03644223150687938);
    double u1 = -2.0760858629105406e-08;
    u1 = fma(u1, th4, -9.429515766181598e-09);
    u1 = fma(u1, th4, 1.9975259228468624e-06);
    u1 = fma(u1, th4, -2.1696754571714906e-05);
    u1 = fma(u1, th4, -0.0006630735134038681);
    u1 = fma(u1, th4, -0.02151066188949216);
    double u2 = -4.5948703589607996e-09;
    u2 = fma(u2, th4, 1.0509801990537705e-07);
    u2 = fma(u2, th4, -1.5216648817948621e-09);
    u2 = fma(u2, th4, -1.612135962063602e-05);
    u2 = fma(u2, th4, 3.437143004068811e-05);
    u2 = fma(u2, th4, 0.006479185067745441);
    double u3 = 2.5965306870672166e-09;
    u3 = fma(u3, th4, 6.176456583654824e-08);
    u3 = fma(u3, th4, -5.648430964479494e-07);
    u3 = fma(u3, th4, -1.1236162048948927e-06);
    u3 = fma(u3, th4, 0.00014447083626129305);
    u3 = fma(u3, th4, 0.00309061205956084);
    u0 = fma(u1, th, u0);
    u2 = fma(u3, th, u2);
    u0 = fma(u2, th2, u0);
    const double c0h = 1.021582705242023, c0l = -1.6894539517907146e-17;
    const double c1h = -0.6871606844138106, c1l = 3.146068988787412e-17;
    const double c2h = 0.27947209255605476, c2l = -2.5749684749198137e-17;
    double t2 = th * th, t2l = fma(th, th, -t2) + 2.0 * th * tl;
    double p1 = c1h * th, p2 = c2h * t2;
    double s1 = c0h + p1;
    double s2 = s1 + p2;
    double sl = (((c0h - s1) + p1) + ((s1 - s2) + p2)) +
                ((fma(c1h, th, -p1) + fma(c2h, t2, -p2)) +
                 ((c0l + c1h * tl) + (c1l * th + (c2h * t2l + c2l * t2))));
    double t3 = t2 * th;
    double m3 = t3 * u0;
    double qh = s2 + m3;
    double ql = ((s2 - qh) + m3) + (sl + (fma(t3, u0, -m3) + (3.0 * tl) * (t2 * u0)));
    /* exp(-a^2) = 2^k (s + te) (as strided_erfc_big does) */
    double A = ac * ac, A_lo = fma(ac, ac, -A);
    A_lo = with_al ? A_lo + 2.0 * ac * al : A_lo;
    double kt = fma(A, -1.44269504088896340736, 6755399441055744.0);   /* 1.5 * 2^52 + k */
    double k = kt - 6755399441055744.0;
    double r_hi = -A - k * ln2_hi;                    /* exact */
    double r_lo = k * ln2_lo + A_lo;
    double uu = r_hi - r_lo;
    double s = 1.0 + uu;
    /* e^uu - 1 - uu = uu^2 (1/2 + uu P(uu)), P the Taylor series to uu^11 / 14! (as
     * strided_expm1_tail_of's reduced form), in two Horner chains in uu^2 */
    double uu2 = uu * uu;
    double pe = 1.6059043836821613e-10, po = 1.1470745597729725e-11;
    pe = fma(pe, uu2, 2.505210838544172e-08);
    po = fma(po, uu2, 2.08767569878681e-09);
    pe = fma(pe, uu2, 2.7557319223985893e-06);
    po = fma(po, uu2, 2.755731922398589e-07);
    pe = fma(pe, uu2, 0.0001984126984126984);
    po = fma(po, uu2, 2.48015873015873e-05);
    pe = fma(pe, uu2, 0.008333333333333333);
    po = fma(po, uu2, 0.001388888888888889);
    pe = fma(pe, uu2, 0.16666666666666666);
    po = fma(po, uu2, 0.041666666666666664);
    double em_tail = uu2 * (0.5 + uu * fma(po, uu, pe)) + ((r_hi - uu) - r_lo) * (1.0 + uu);
    double te = ((1.0 - s) + uu) + em_tail;
    /* 2^k = 2^k1 2^(k - k1), k1 = max(k, -1000): 2^k1 (s + te) / (a + 2) stays normal; on
     * the bits of kt, integers (a select of doubles had GCC compute what follows in both arms) */
    int64_t kb = (int64_t)strided_bits64(kt);
    int64_t k1b = kb < 0x4337fffffffffc18LL ? 0x4337fffffffffc18LL : kb;        /* k1 = -1000 */
    double two_k1 = strided_from_bits64((uint64_t)(k1b + 1023 - 0x0008000000000000LL) << 52);
    double sh = s * two_k1, stl = te * two_k1;
    double fh = sh * mwh;
    double fl = fma(sh, mwh, -fh) + (sh * mwl + stl * mwh);
    *qh_ = qh;
    *ql_ = ql;
    *fh_ = fh;
    *fl_ = fl;
    *two_kk = strided_from_bits64((uint64_t)(kb - k1b + 1023) << 52);
}

/* erfc(x) in float64 with fused multiply-adds (Note [erf and erfc in float64 with fma]) */
STRIDED_VINLINE double strided_verfc(double x) {
    double qh, ql, fh, fl, two_kk;
    strided_erfc_parts(fabs(x), 0.0, 0, 1.0, &qh, &ql, &fh, &fl, &two_kk);
    /* erfc(a) = Q F rounded once (then into the subnormals by 2^(k - k1)); erfc(-a) = 2 -
     * erfc(a), a second rounding: erfc(a)'s (< 1) is at most a quarter of the result's ulp */
    double e = fma(qh, fh, qh * fl + ql * fh);
    double y = x < 0.0 ? 2.0 - e : e * two_kk;
    return x != x ? x : y;
}
#else
#define STRIDED_ERF_PIECE(c0, c1, c2, c3) (p3 ? (c3) : (p2 ? (c2) : (p1 ? (c1) : (c0))))
/* erfc(a + al) for a >= 0.25 before its last rounding: (y0 + *y_lo) 2^*k_out; al and with_al
 * as strided_erfc_parts has them (with_al 0 for erfc itself), al carried by A_lo and M's tail */
STRIDED_VINLINE double strided_erfc_big_parts(double a, double al, int with_al, double* y_lo,
                                              double* k_out) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double h0 = 0.5641895835477563, h0_lo = 7.66772980658294e-18;    /* 1 / sqrt(pi) */
    double ac = a < 0.25 ? 0.25 : (a > 27.5 ? 27.5 : a);
    /* exp(-a^2) = 2^k (s + t) */
    double A = ac * ac;
    double A_lo = -strided_residual(A, ac, ac);    /* a^2 - A, exact */
    A_lo = with_al ? A_lo + 2.0 * ac * al : A_lo;
    double k = (A * -1.44269504088896340736 + 6755399441055744.0) - 6755399441055744.0;
    double r_hi = -A - k * ln2_hi;                 /* exact */
    double r_lo = k * ln2_lo + A_lo;
    double u = r_hi - r_lo;
    double s = 1.0 + u;
    double t = ((1.0 - s) + u) + strided_expm1_tail(u, (r_hi - u) - r_lo);
    /* F(a) = F(m) + F'(m) d + d^2 Q(d), the piece's coefficients picked by selects */
    int p1 = ac >= 0.84375, p2 = ac >= 1.5, p3 = ac >= 2.5;
    double m = STRIDED_ERF_PIECE(0.546875, 1.171875,
                              2.0, 3.25);
    double d = ac - m;                             /* and its rounding error (TwoSum) */
    double d_bb = d - ac;
    double d_lo = (ac - (d - d_bb)) + (-m - d_bb);
    double q = STRIDED_ERF_PIECE(1.2734989726879922e-06, 5.715148601682856e-08,
                              1.529016541930546e-09, 1.4815659900320632e-11);
    q = q * d + STRIDED_ERF_PIECE(-3.386966382985259e-06, -1.5584420215668227e-07,
                              -6.297542940170568e-09, -7.333664827236583e-11);
    q = q * d + STRIDED_ERF_PIECE(1.2012830770186476e-05, 6.723906640404137e-07,
                              2.3308886068590568e-08, 3.2715257742255646e-10);
    q = q * d + STRIDED_ERF_PIECE(-3.607422504292988e-05, -2.2722038597736563e-06,
                              -9.053317535815415e-08, -1.5671462377511156e-09);
    q = q * d + STRIDED_ERF_PIECE(0.00010374607991580687, 7.350882542081818e-06,
                              3.448612083419824e-07, 7.4069470355054575e-09);
    q = q * d + STRIDED_ERF_PIECE(-0.00028990922114946184, -2.3266685061298017e-05,
                              -1.2795756606524545e-06, -3.4291946427125684e-08);
    q = q * d + STRIDED_ERF_PIECE(0.0007810333685006735, 7.137421818009785e-05,
                              4.62817474831245e-06, 1.558810521166772e-07);
    q = q * d + STRIDED_ERF_PIECE(-0.0020217796722945083, -0.00021162469977354566,
                              -1.6293711104295678e-05, -6.952076220128825e-07);
    q = q * d + STRIDED_ERF_PIECE(0.0050108266430337264, 0.000604868506403137,
                              5.572831528222506e-05, 3.0388319994507403e-06);
    q = q * d + STRIDED_ERF_PIECE(-0.011838295883477743, -0.001661140326207968,
                              -0.00018477836787275296, -1.3004640310331042e-05);
    q = q * d + STRIDED_ERF_PIECE(0.026517374669667103, 0.004366122857925317,
                              0.0005924699953309713, 5.4420408811616426e-05);
    q = q * d + STRIDED_ERF_PIECE(-0.05593572510385281, -0.010930541403823815,
                              -0.0018316642757052895, -0.00022238256956719335);
    q = q * d + STRIDED_ERF_PIECE(0.11014197367448401, 0.02590759678109587,
                              0.0054407385374722755, 0.0008860045775342812);
    q = q * d + STRIDED_ERF_PIECE(-0.2000732046096896, -0.057686818486791976,
                              -0.015460637764291723, -0.0034354713009075227);
    q = q * d + STRIDED_ERF_PIECE(0.3296989811198977, 0.11941693397640395,
                              0.04180275260352655, 0.012937290883018157);
    double f0 = STRIDED_ERF_PIECE(0.5924253530340741, 0.38481374714100164,
                              0.25539567631050575, 0.16633534842682188);
    double f0_lo = STRIDED_ERF_PIECE(3.9605982178374507e-17, -1.3389093912911274e-17,
                              -4.276022290165946e-18, -6.133416339501975e-19);
    double f1 = STRIDED_ERF_PIECE(-0.48041393721449405, -0.22647194723379002,
                              -0.1067964618534896, -0.047199402321170376);
    double l1 = f1 * d;
    double l1_lo = -strided_residual(l1, f1, d);   /* F'(m) d - l1, exact */
    double f_hi = f0 + l1;                         /* Fast2Sum: |F(m)| > |F'(m) d| */
    double f_lo = ((f0 - f_hi) + l1) + ((l1_lo + f1 * d_lo) + f0_lo + (d * d) * q);
    /* the tail: (1/a) (1/sqrt(pi) + w Q(w)), 1/a = v + v_lo */
    double v = 1.0 / ac;
    double v_lo = v * strided_residual(1.0, v, ac);
    double w = v * v;
    double g = -62067377943.77748;
    g = g * w + 38005597478.85516;
    g = g * w + -11095931179.002205;
    g = g * w + 2087551624.0168078;
    g = g * w + -291511496.50406873;
    g = g * w + 33459074.978143245;
    g = g * w + -3463505.776013086;
    g = g * w + 352559.25018593634;
    g = g * w + -37813.36692295955;
    g = g * w + 4464.975262959031;
    g = g * w + -595.6140227467433;
    g = g * w + 91.63654422007716;
    g = g * w + -16.661222709385648;
    g = g * w + 3.70249413918657;
    g = g * w + -1.0578554691474273;
    g = g * w + 0.42314218766081424;
    g = g * w + -0.28209479177387814;
    double g_hi = v * h0;
    double g_lo = -strided_residual(g_hi, v, h0) + (v * h0_lo + v_lo * h0 + v * (w * g));
    int tail = ac >= 4.0;
    double m_hi = tail ? g_hi : f_hi, m_lo = tail ? g_lo : f_lo;
    /* M(a + al) = M + M' al: M' = 2 a M - 2 / sqrt(pi) below 4 (the piece's F'(m) is not
     * M'(a)), and -(1/sqrt(pi) - 3/(2 sqrt(pi)) w) / a^2 of the series from 4 on (within 2%) */
    double dm = tail ? -w * (h0 - 0.8462843753216345 * w)
                     : 2.0 * ac * (m_hi + m_lo) - 1.1283791670955126;
    m_lo = with_al ? m_lo + al * dm : m_lo;
    /* (s + t)(m_hi + m_lo), rounded once, then 2^k */
    double y0 = s * m_hi;
    *y_lo = (-strided_residual(y0, s, m_hi) + t * m_hi) + (s + t) * m_lo;
    *k_out = k;
    return y0;
}

STRIDED_VINLINE double strided_erfc_big(double a) {
    double y_lo, k;
    double y0 = strided_erfc_big_parts(a, 0.0, 0, &y_lo, &k);
    double y = y0 + y_lo;
    double k1 = (k * 0.5 + 6755399441055744.0) - 6755399441055744.0;
    return (y * strided_pow2_of(k1)) * strided_pow2_of(k - k1);
}
#undef STRIDED_ERF_PIECE

/* erf(x) / x - 1 for z = x^2 <= 0.84375^2 */
STRIDED_VINLINE double strided_erf_y(double z) {
    double p = -4.82829654207977e-12;
    p = p * z + 9.027552555889268e-11;
    p = p * z + -1.224027313411101e-09;
    p = p * z + 1.4802959692811836e-08;
    p = p * z + -1.6365598526546128e-07;
    p = p * z + 1.6462104288440418e-06;
    p = p * z + -1.4925650067221512e-05;
    p = p * z + 0.00012055332975919006;
    p = p * z + -0.0008548327023370446;
    p = p * z + 0.005223977625441474;
    p = p * z + -0.026866170645131214;
    p = p * z + 0.11283791670955126;
    p = p * z + -0.37612638903183754;
    p = p * z + 0.1283791670955126;
    return p;
}

STRIDED_VINLINE double strided_verf(double x) {
    double a = fabs(x);
    double small = x + x * strided_erf_y(x * x);
    double big = copysign(1.0 - strided_erfc_big(a), x);
    return x != x ? x : (a < 0.84375 ? small : big);
}

STRIDED_VINLINE double strided_verfc(double x) {
    double s = 1.0 - x;
    double small = s + (((1.0 - s) - x) - x * strided_erf_y(x * x));   /* Fast2Sum's error */
    double e = strided_erfc_big(fabs(x));
    double big = x < 0.0 ? 2.0 - e : e;
    return x != x ? x : ((x > -0.84375 && x < 0.25) ? small : big);
}
#endif

/* ---- atan, asin, acos in float64 ------------------------------------------------------- */

/* Note [atan, asin and acos in float64]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * fdlibm's algorithms (musl's s_atan.c, e_asin.c, e_acos.c, < 1 ulp in their analysis), with
 * their branches turned into selects:
 *   atan: |x| is reduced by atan(x) = atan(c) + atan((x - c) / (1 + c x)) with c = 0, 1/2, 1,
 *         3/2 or inf by |x|'s band (7/16, 11/16, 19/16, 39/16): every band is one division
 *         num / den with num = A |x| - B (exact in its band) and den = A + B |x|, (A, B) =
 *         (1, c) or (2, 1) for c = 1/2, picked by selects (c = inf: -1 / |x|), and atan(c) in
 *         two parts (hi + lo) added last;
 *         the reduced argument is at most 7/16, where fdlibm's odd polynomial of degree 23 is
 *         accurate. inf gives -1 / inf = 0 and atan = pi/2; no other special case.
 *   asin, acos: one rational function R(z) = (asin(s) - s) / s^3 at s = sqrt(z), evaluated
 *         once per lane on the z of the lane's band: z = x^2 for |x| < 1/2, else z = (1 - |x|) /
 *         2 and asin(x) = pi/2 - 2 asin(sqrt(z)); where that would lose bits, sqrt(z)'s
 *         head f (32 bits, so that f^2 is exact) and the correction c = (z - f^2) / (s + f)
 *         carry the missing precision (fdlibm's forms, picked by selects).
 *   asin and acos of |x| >= 1 and NaN go to the C library in the fix-up pass (they are checked
 *         ops: |x| > 1 must raise "invalid"; +-1 and NaN are simplest there too), so the vector
 *         code sees 1/2 there.
 * Measured: atan 0.83 ulp, asin 0.85 (0.87 built without FMA), acos 0.89 on 3-4 million points
 * each (NumPy's C library 0.52). */
/* fdlibm's atan polynomial: atan(t) = t - t R(t), R = s1 + s2 even, for |t| <= 7/16 */
STRIDED_VINLINE double strided_atan_odd(double t) {
    double z = t * t, w = z * z;
    double s1 = z * (3.33333333333329318027e-01 + w * (1.42857142725034663711e-01 +
                w * (9.09088713343650656196e-02 + w * (6.66107313738753120669e-02 +
                w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
    double s2 = w * (-1.99999999998764832476e-01 + w * (-1.11111104054623557880e-01 +
                w * (-7.69187620504482999495e-02 + w * (-5.83357013379057348645e-02 +
                w * -3.65315727442169155270e-02))));
    return s1 + s2;
}

STRIDED_VINLINE double strided_vatan(double x) {
    const double hi0 = 4.63647609000806093515e-01, hi1 = 7.85398163397448278999e-01,
                 hi2 = 9.82793723247329054082e-01, hi3 = 1.57079632679489655800e+00;
    const double lo0 = 2.26987774529616870924e-17, lo1 = 3.06161699786838301793e-17,
                 lo2 = 1.39033110312309984516e-17, lo3 = 6.12323399573676603587e-17;
    double a = fabs(x);
    int b0 = a >= 0.4375, b1 = a >= 0.6875, b2 = a >= 1.1875, b3 = a >= 2.4375;
    /* (x - c) / (1 + c x) as (A a - B) / (A + B a), and -1 / a for c = inf; the bands picked
     * by bit blends: GCC 12's if-conversion gave up on this many nested selects and left a
     * branchy scalar loop (3.6-9.2 ms a million elements, the branches mispredicted on mixed
     * bands), not the vector one */
    double A = strided_blend64(b0 & !b1, 2.0, 1.0);
    double B = strided_blend64(b2, 1.5, strided_blend64(b0, 1.0, 0.0));
    double num = strided_blend64(b3, -1.0, A * a - B);
    double den = strided_blend64(b3, a, A + B * a);
    double t = num / den;
    double hi = strided_blend64(b3, hi3, strided_blend64(b2, hi2, strided_blend64(b1, hi1,
                strided_blend64(b0, hi0, 0.0))));
    double lo = strided_blend64(b3, lo3, strided_blend64(b2, lo2, strided_blend64(b1, lo1,
                strided_blend64(b0, lo0, 0.0))));
    double y = hi - ((t * strided_atan_odd(t) - lo) - t);
    return strided_blend64(x != x, x, copysign(y, x));
}

/* fdlibm's R(z) = (asin(s) - s) / s^3, s = sqrt(z), for z <= 1/4 */
STRIDED_VINLINE double strided_asin_r(double z) {
    double p = z * (1.66666666666666657415e-01 + z * (-3.25565818622400915405e-01 +
               z * (2.01212532134862925881e-01 + z * (-4.00555345006794114027e-02 +
               z * (7.91534994289814532176e-04 + z * 3.47933107596021167570e-05)))));
    double q = 1.0 + z * (-2.40339491173441421878e+00 + z * (2.02094576023350569471e+00 +
               z * (-6.88283971605453293030e-01 + z * 7.70381505559019352791e-02)));
    return p / q;
}

/* 1 where asin or acos of x is for the C library: |x| >= 1, NaN */
STRIDED_VINLINE int strided_vasin_hard(double x) {
    return (strided_bits64(x) & 0x7fffffffffffffffULL) >= 0x3ff0000000000000ULL;
}

/* sqrt(z)'s top 32 bits f (f^2 is exact) and c = (z - f^2) / (s + f): s = f + c closely. Only
 * the lanes with |x| >= 1/2 use them; the others (whose z = x^2 may be 0, and 0 / 0 would raise
 * "invalid") compute them on 1/4, through an integer mask (strided_blend64's reason) */
STRIDED_VINLINE double strided_sqrt_head(int big, double z, double* s, double* c) {
    double zb = strided_blend64(big, z, 0.25);
    double r = sqrt(zb);
    double f = strided_from_bits64(strided_bits64(r) & 0xffffffff00000000ULL);
    *c = (zb - f * f) / (r + f);
    *s = r;
    return f;
}

STRIDED_VINLINE double strided_vasin(double x) {
    const double pio2_hi = 1.57079632679489655800e+00, pio2_lo = 6.12323399573676603587e-17,
                 pio4_hi = 7.85398163397448278999e-01;
    double a = strided_blend64(strided_vasin_hard(x), 0.5, fabs(x));
    int big = a >= 0.5;
    double z = big ? (1.0 - a) * 0.5 : a * a;
    double r = strided_asin_r(z);
    double small = a + a * r;
    double s, c;
    double f = strided_sqrt_head(big, z, &s, &c);
    /* |x| >= 0.975: pi/2 - 2 (s + s r), else in parts around pi/4 */
    double near1 = pio2_hi - (2.0 * (s + s * r) - pio2_lo);
    double mid = pio4_hi - ((2.0 * s * r - (pio2_lo - 2.0 * c)) - (pio4_hi - 2.0 * f));
    double y = big ? (a >= 0.975 ? near1 : mid) : small;
    return copysign(y, x);
}

STRIDED_VINLINE double strided_vacos(double x) {
    const double pio2_hi = 1.57079632679489655800e+00, pio2_lo = 6.12323399573676603587e-17;
    double xx = strided_blend64(strided_vasin_hard(x), 0.5, x);
    double a = fabs(xx);
    int big = a >= 0.5;
    double z = big ? (1.0 - a) * 0.5 : xx * xx;
    double r = strided_asin_r(z);
    double small = pio2_hi - (xx - (pio2_lo - xx * r));
    double s, c;
    double f = strided_sqrt_head(big, z, &s, &c);
    double neg = 2.0 * (pio2_hi - (s + (r * s - pio2_lo)));    /* x <= -1/2 */
    double pos = 2.0 * (f + (r * s + c));                      /* x >= 1/2 */
    return big ? (xx < 0.0 ? neg : pos) : small;
}

/* ---- sinh, cosh, asinh, acosh, atanh in float64 ----------------------------------------- */

/* exp(hi + lo) = 2^k (s + t) for |hi| <= 745 and lo tiny (a rounding error of hi): fdlibm's
 * reduction with lo in its tail, then 1 + u and expm1's remainder kept apart (Note [expm1 in
 * float64]): 2^-57 relative. Returns s; k (a small integer as a double) and t by pointer. */
STRIDED_VINLINE double strided_exp_parts(double hi, double lo, double* k, double* t) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double kk = (hi * 1.44269504088896340736 + 6755399441055744.0) - 6755399441055744.0;
    double r_hi = hi - kk * ln2_hi;                /* exact */
    double r_lo = kk * ln2_lo - lo;
    double u = r_hi - r_lo;
    double s = 1.0 + u;
    *t = ((1.0 - s) + u) + strided_expm1_tail_of(u, (r_hi - u) - r_lo, 1);
    *k = kk;
    return s;
}

/* Note [sinh and cosh in float64]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * One reduction serves both exponentials, as in Note [sinh and cosh in float lanes]: a = |x| =
 * n ln 2 + r (fdlibm's split of ln 2: n ln2_hi exact, r = r_hi - n ln2_lo with its rounding
 * error rerr kept), e^r = E + O and e^-r = E - O with E = cosh(r), O = sinh(r) (the even and
 * odd halves of e^r's Taylor series, to r^14 and r^15, by pairs), and with c = 2^-2n, s = -1
 * for sinh and +1 for cosh,
 *   sinh(a), cosh(a) = 2^(n-1) ((1 + s c) E + (1 - s c) O)
 *                    = 2^(n-1) ((1 + s c) + (r - s c r) + [(1 + s c)(E - 1) + (1 - s c)(O - r)]).
 * The first two terms are each a float64 plus its exact error (Fast2Sum; s c r is exact, c
 * being a power of 2), summed by Fast2Sum (1 + s c >= 3/4 > |r - s c r|); the errors, rerr
 * times the derivative (1 - s c), and the bracket (at most 0.09) make the tail, added last: one
 * rounding of the result, and a tail's roundings 2^-3 of an ulp. 2^(n-1) goes into the exponent
 * bits by an integer add (the sum is in [0.5, 2.2) and n - 1 <= 1025 for a <= 711, the clamp;
 * past 710.47586007394, where sinh and cosh overflow, the result is selected to inf: they are
 * not checked ops). Below |x| = 1 sinh is x + x^3 P(x^2), P of degree 7 fitted (the correction
 * is at most 0.18 of sinh): there the form above would cancel. NaN selected through; no fix-up
 * pass. |x| is clamped on its bits, which order as the values (strided_clamp_bits64): GCC made
 * float selects blends and copied arithmetic into both arms.
 * It was e^a = 2^k (s + t) (strided_exp_parts) and 2^-2k / (s + t) by a division with its
 * residual: the division was a third of the time. Measured on 10-20 million points (uniform on
 * [0, 712] and [0, 4], log-uniform on [2^-70, 2^10]) against the C library's long double sinhl
 * and coshl, x86-64-v2, v3 and v4 alike: sinh 0.86 ulp (all of it in the x + x^3 P(x^2) piece,
 * unchanged), cosh 0.73 (the form before: 0.60 on the test's points). The loop alone, 1e6
 * float64 from [-2, 2], 1 thread, AMD EPYC with AVX-512 (2 cores, shared), medians of 21, old
 * and new alternated in one program:
 *   sinh  v4 1518 -> 1244 us, v3 3304 -> 2930, v2 8816 -> 5898
 *   cosh  v4 1245 -> 1007 us, v3 2742 -> 2297, v2 7031 -> 4570
 * (the module's figures, with NumPy's and PyTorch's, at strided_vsinh below). */
/* a >= 0 (or NaN, which becomes hi) clamped to [lo, hi] by its bits: for doubles >= 0 the bits
 * order as the values, and a select of integers stays one compare and one blend */
STRIDED_VINLINE double strided_clamp_bits64(double a, double lo, double hi) {
    int64_t b = (int64_t)strided_bits64(a);
    int64_t bl = (int64_t)strided_bits64(lo), bh = (int64_t)strided_bits64(hi);
    b = b < bl ? bl : b;
    b = b > bh ? bh : b;
    return strided_from_bits64((uint64_t)b);
}

/* 2^(n-1) ((1 + s c) E + (1 - s c) O) for a = |x| clamped to [0, 711] (Note [sinh and cosh
 * in float64]); inf past the overflow edge */
STRIDED_VINLINE double strided_sinh_cosh_even_odd(double x, double sign) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    uint64_t mag = strided_bits64(x) & 0x7fffffffffffffffULL;
    double a = strided_clamp_bits64(strided_from_bits64(mag), 0.0, 711.0);
    double t = a * 1.44269504088896340736 + 6755399441055744.0;    /* 1.5 * 2^52: n in low bits */
    double fn = t - 6755399441055744.0;
    double r_hi = a - fn * ln2_hi;                                  /* exact */
    double r_lo = fn * ln2_lo;
    double r = r_hi - r_lo;
    double rerr = (r_hi - r) - r_lo;
    double z = r * r;
    double z2 = z * z;
    /* 1/2! + z/4! + ... + z^6/14! and 1/3! + z/5! + ... + z^6/15!, by pairs */
    double e01 = 0.5 + z * 0.041666666666666664;
    double e23 = 0.001388888888888889 + z * 2.48015873015873e-05;
    double e45 = 2.755731922398589e-07 + z * 2.08767569878681e-09;
    double pe = e01 + z2 * (e23 + z2 * (e45 + z2 * 1.1470745597729725e-11));
    double o01 = 0.16666666666666666 + z * 0.008333333333333333;
    double o23 = 0.0001984126984126984 + z * 2.7557319223985893e-06;
    double o45 = 2.505210838544172e-08 + z * 1.6059043836821613e-10;
    double po = o01 + z2 * (o23 + z2 * (o45 + z2 * 7.647163731819816e-13));
    double em = z * pe, od = r * z * po;                            /* E - 1, O - r */
    int64_t n = (int64_t)(strided_bits64(t) - 0x4338000000000000ULL);
    int64_t m2 = 2 * n < 1022 ? 2 * n : 1022;                       /* c = 2^-2n, or tiny */
    double sc = sign * strided_from_bits64((uint64_t)(1023 - m2) << 52);
    double h0 = 1.0 + sc;
    double h0_err = (1.0 - h0) + sc;                                /* Fast2Sum: 1 >= c */
    double cr = sc * r;                                             /* exact */
    double r1 = r - cr;
    double d1 = (r - r1) - cr;                                      /* Fast2Sum: |r| >= |c r| */
    double h = h0 + r1;
    double e = (h0 - h) + r1;                                       /* Fast2Sum: h0 > |r1| */
    double omc = 1.0 - sc;
    double tail = ((e + d1) + (h0_err + rerr * omc)) + (h0 * em + omc * od);
    double v = h + tail;
    double y = strided_from_bits64(strided_bits64(v) + ((uint64_t)(n - 1) << 52));
    return mag > 0x408633ce8fb9f87dULL ? INFINITY : y;              /* past 710.47586007394 */
}

/* float64 sinh and cosh (Note [sinh and cosh in float64]). In the module, 1e6 float64 from
 * [-2, 2], out= given, 1 thread, medians of 11 alternated with NumPy and PyTorch in one
 * process (us, strided / NumPy / PyTorch; "v3": STRIDED_CPU_FEATURES=x86-64-v3, the others as
 * built):
 *   sinh  v4 1173 -> 897 / 889 / 1533 (0.92-1.12x NumPy over three runs)   v3 1932 / 855 / 1516
 *   cosh  v4 1178 -> 707 / 806 / 1482 (1.09-1.14x NumPy)                   v3 1510 / 787 / 1513 */
STRIDED_VINLINE double strided_vsinh(double x) {
    double a = fabs(x);
    double z = a * a;
    double p = 2.8445264169895285e-15;
    p = p * z + 7.646625361656657e-13;
    p = p * z + 1.6059048396350562e-10;
    p = p * z + 2.505210836405804e-08;
    p = p * z + 2.755731922404034e-06;
    p = p * z + 0.00019841269841269773;
    p = p * z + 0.008333333333333333;
    p = p * z + 0.16666666666666666;
    double small = a + a * (z * p);
    double big = strided_sinh_cosh_even_odd(x, -1.0);
    double y = copysign(a < 1.0 ? small : big, x);
    return x != x ? x : y;
}

STRIDED_VINLINE double strided_vcosh(double x) {
    double y = strided_sinh_cosh_even_odd(x, 1.0);
    return x != x ? x : y;
}

/* Note [asinh, acosh and atanh in float64]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each is log(w) for a w computed as a double plus its rounding error, w_hi + w_lo, and log's
 * core (strided_vlog_core, 0.73 ulp) takes w_lo / w_hi as the correction log1p already passes
 * it: the function is then as accurate as log, including near 0, where w_hi - 1 is exact and
 * carries the small result (and for subnormal x, w_hi = 1 and the result is w_lo).
 *   asinh(a) = log(a + sqrt(1 + a^2)), 1 + a^2 as a double-double (strided_residual), its
 *              square root corrected by one Newton step on the residual, a + sqrt(...) by
 *              Fast2Sum; a > 2^28: log(2a) (the core's ek = 1), where 1 + a^2 would overflow.
 *   acosh(x) = log(x + sqrt((x - 1)(x + 1))), x - 1 exact, the product as a double-double;
 *              x > 2^28: log(2x). x < 1, inf and NaN go to the fix-up pass (a checked op).
 *   atanh(a) = log(1 + 2a / (1 - a)) / 2, 1 - a by Fast2Sum, the quotient with its residual,
 *              1 + it by TwoSum. |x| >= 1 and NaN go to the fix-up pass (a checked op).
 * Below 2^-26 (atanh: 2^-27) the result is x itself (x^3/6 is under half an ulp), where w_lo
 * would be as big as w_hi - 1 and the core's first-order correction would miss its square.
 * The sign of x is put back by copysign. Measured: asinh 0.74 ulp, acosh 0.73 (0.80 built
 * without FMA), atanh 0.74 on 3-4 million points each (NumPy's C library 1.65, 2.09, 1.60). */

/* sqrt(h + l) = r + *lo for h + l > 0 a double-double: one Newton step on the exact residual */
STRIDED_VINLINE double strided_sqrt_dd(double h, double l, double* lo) {
    double r = sqrt(h);
    *lo = (strided_residual(h, r, r) + l) * (0.5 / r);
    return r;
}

/* log(w_hi + w_lo) for 0.5 <= w_hi, |w_lo| <= ulp(w_hi) (or log(2 w_hi) when twice) */
STRIDED_VINLINE double strided_log_dd(double w_hi, double w_lo, int twice) {
    return strided_vlog_core(w_hi, twice ? 1.0 : 0.0, 0, STRIDED_LOG_E, w_lo / w_hi);
}

STRIDED_VINLINE double strided_vasinh(double x) {
    uint64_t ix = strided_bits64(x) & 0x7fffffffffffffffULL;
    int special = ix >= 0x7ff0000000000000ULL;     /* inf, NaN: x itself */
    double a = fabs(x);
    int huge = ix > 0x41b0000000000000ULL;         /* 2^28 */
    double aa = (huge || special) ? 1.0 : a;
    double A = aa * aa;
    double A_lo = -strided_residual(A, aa, aa);    /* aa^2 = A + A_lo */
    double B, B_lo;
    STRIDED_TWO_SUM(1.0, A, B, B_lo);
    B_lo += A_lo;                                  /* 1 + aa^2 = B + B_lo */
    double S_lo;
    double S = strided_sqrt_dd(B, B_lo, &S_lo);    /* S >= aa */
    double w = S + aa;
    double w_lo = ((S - w) + aa) + S_lo;
    double y = strided_log_dd(huge ? a : w, huge ? 0.0 : w_lo, huge);
    /* below 2^-26 asinh rounds to x (and there w_lo is as big as w_hi - 1, and the core's
     * first-order correction would miss its square) */
    return (special || ix < 0x3e50000000000000ULL) ? x : copysign(y, x);
}

STRIDED_VINLINE int strided_vacosh_hard(double x) {
    return strided_bits64(x) - 0x3ff0000000000000ULL >= 0x7ff0000000000000ULL - 0x3ff0000000000000ULL;
}

STRIDED_VINLINE double strided_vacosh(double x) {
    double xx = strided_blend64(strided_vacosh_hard(x), 1.0, x);
    int huge = xx > 0x1p28;
    double xs = strided_blend64(huge, 1.0, xx);    /* (a select: (x - 1)(x + 1) might overflow) */
    double d = xs - 1.0;                           /* exact */
    double e = xs + 1.0;
    double e_lo = (xs - e) + 1.0;                  /* xs + 1 = e + e_lo (Fast2Sum: xs >= 1) */
    double P = d * e;
    double P_lo = -strided_residual(P, d, e) + d * e_lo;
    double S_lo;
    double S = strided_sqrt_dd(strided_blend64(P > 0.0, P, 1.0), P_lo, &S_lo);
    S = P > 0.0 ? S : 0.0;
    S_lo = P > 0.0 ? S_lo : 0.0;
    double w = xs + S;                             /* Fast2Sum: xs >= S */
    double w_lo = ((xs - w) + S) + S_lo;
    return strided_log_dd(huge ? xx : w, huge ? 0.0 : w_lo, huge);
}

STRIDED_VINLINE int strided_vatanh_hard(double x) {
    return (strided_bits64(x) & 0x7fffffffffffffffULL) >= 0x3ff0000000000000ULL;
}

STRIDED_VINLINE double strided_vatanh(double x) {
    double a = strided_blend64(strided_vatanh_hard(x), 0.5, fabs(x));
    double D = 1.0 - a;
    double D_lo = (1.0 - D) - a;                   /* Fast2Sum: 1 > a */
    double q = (2.0 * a) / D;
    double q_lo = (strided_residual(2.0 * a, q, D) - q * D_lo) / D;
    double u, u_err;
    STRIDED_TWO_SUM(1.0, q, u, u_err);
    double y = copysign(0.5 * strided_log_dd(u, u_err + q_lo, 0), x);
    return a < 0x1p-27 ? x : y;                   /* atanh rounds to x there (as asinh) */
}

/* ---- float32 sinh, cosh, asinh, acosh, atanh -------------------------------------------- */

/* Note [sinh and cosh in float lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * float32 sinh and cosh in float lanes (through double before: exp in double, a double
 * division for 1/e, half the lanes; 0.5x NumPy's speed). One reduction serves both
 * exponentials: a = |x| = n ln 2 + r, |r| <= ln2 / 2, e^r = E + O and e^-r = E - O with E =
 * cosh(r) and O = sinh(r) (the even and odd halves of one Taylor series, to r^8 and r^9:
 * 2e-10 relative), so that with c = 2^-2n
 *   sinh(a) = 2^(n-1) ((1 - c) E + (1 + c) O),  cosh(a) = 2^(n-1) ((1 + c) E + (1 - c) O)
 * and no division. The sum is 1 + r (Fast2Sum: |r| < 1, its error e exact) plus a tail of small
 * terms (e, +-c (1 - r), (1 +- c)(E - 1), (1 -+ c)(O - r)), added last: one rounding of the
 * result and a few of a tail at most 0.4 of it. 2^(n-1) goes into the exponent bits by an
 * integer add (the sum is in [0.5, 2) and n - 1 <= 128 for a <= 89.5, the clamp, so the
 * exponent stays below 255); past 89.41599, where sinhf and coshf overflow, the result is
 * selected to inf (sinh and cosh are not checked ops: no flag wanted). For the reduction r =
 * a - n ln2_hi - n ln2_lo by fma where there is one (ln2_hi of 16 bits), else Cephes' split
 * (ln2_hi = 0.693359375). Below |x| = 1 sinh is x + x^3 P(x^2), P Taylor's to x^11 (1.6e-10
 * relative at 1): there the form above would cancel. NaN is selected through at the end; the
 * clamp of a is an integer min on its bits (Note [erfc in float lanes with fma]'s reason).
 * Measured against the C library's double sinh and cosh on every float of [0, 96] at x86-64-v4
 * and every 7th at v3 and v2 (the same maxima): sinh 0.875 ulp, cosh 0.898 (through double:
 * 0.50); special values and the overflow edge as NumPy's. The loop alone, 1e6 float32 from [-2, 2], 1 thread, AMD EPYC with
 * AVX-512 (2 cores, shared), medians of 21, old and new alternated in one program:
 *   sinh  v4 895 -> 411 us, v3 2371 -> 1081, v2 3728 -> 1907
 *   cosh  v4 788 -> 318 us, v3 2021 -> 870,  v2 3006 -> 1478
 * (the module's figures, with NumPy's and PyTorch's, in strided_vsinhf's comment below). */
STRIDED_VINLINE float strided_sinh_cosh_f(float x, int is_cosh) {
    uint32_t xb;
    memcpy(&xb, &x, sizeof xb);
    uint32_t mag = xb & 0x7fffffffu;
    uint32_t mc = mag < 0x42b30000u ? mag : 0x42b30000u;       /* a <= 89.5 (NaN: 89.5) */
    float a;
    memcpy(&a, &mc, sizeof a);
    float fn = (a * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  /* 1.5 * 2^23: round */
    int32_t n = (int32_t)fn;
#if defined(__FMA__) || defined(__aarch64__)
    float r = fmaf(-fn, 0.693145751953125f, a);
    r = fmaf(-fn, 1.428606765330187e-06f, r);
#else
    float r = (a - fn * 0.693359375f) - fn * -2.12194440e-4f;
#endif
    float z = r * r;
    float pe = 2.4801587e-05f;                                 /* 1/8!, 1/6!, 1/4!, 1/2 */
    pe = pe * z + 1.3888889e-03f;
    pe = pe * z + 4.1666668e-02f;
    pe = pe * z + 0.5f;
    float po = 2.7557319e-06f;                                 /* 1/9!, 1/7!, 1/5!, 1/3! */
    po = po * z + 1.9841270e-04f;
    po = po * z + 8.3333338e-03f;
    po = po * z + 0.16666667f;
    float em = z * pe;                                         /* E - 1 */
    float od = r * z * po;                                     /* O - r */
    int32_t m2 = 2 * n < 126 ? 2 * n : 126;                    /* c = 2^-2n, or tiny */
    float c = strided_pow2if(-m2);
    float sg = is_cosh ? 1.0f : -1.0f;
    float s = 1.0f + r;
    float e = (1.0f - s) + r;                                  /* Fast2Sum: |r| < 1 */
    float tail = e + (sg * c * (1.0f - r) + ((1.0f + sg * c) * em + (1.0f - sg * c) * od));
    float v = s + tail;
    uint32_t vb;
    memcpy(&vb, &v, sizeof vb);
    vb += (uint32_t)(n - 1) << 23;                             /* times 2^(n-1) */
    float y;
    memcpy(&y, &vb, sizeof y);
    y = mag > 0x42b2d4fcu ? INFINITY : y;                      /* a > 89.41599: overflow */
    if (!is_cosh) {
        float zz = a * a;
        float p = 2.5052108e-08f;                              /* 1/11!, 1/9!, ..., 1/3! */
        p = p * zz + 2.7557319e-06f;
        p = p * zz + 1.9841270e-04f;
        p = p * zz + 8.3333338e-03f;
        p = p * zz + 0.16666667f;
        float small = a + a * (zz * p);
        y = copysignf(a < 1.0f ? small : y, x);
    }
    return x != x ? x : y;
}

/* float32 sinh and cosh (Note [sinh and cosh in float lanes]). In the module, 1e6 float32 from
 * [-2, 2], out= given, 1 thread, medians of 11 alternated with NumPy (its SIMD loop) and
 * PyTorch in one process (us, strided / NumPy / PyTorch):
 *   sinh  v4 798 -> 343 / 402 / 15802 (1.17x NumPy)   v3 670 / 406 / 14830
 *   cosh  v4 680 -> 275 / 395 / 5844  (1.44x NumPy)   v3 529 / 379 / 5662 */
STRIDED_VINLINE float strided_vsinhf(float x) {
    return strided_sinh_cosh_f(x, 0);
}

STRIDED_VINLINE float strided_vcoshf(float x) {
    return strided_sinh_cosh_f(x, 1);
}

/* log1p(t) in double for t >= 2^-24 (to be rounded to float): log of 1 + t (rounded) */
STRIDED_VINLINE double strided_vlog1p_for_float(double t) {
    return strided_vlog_core(1.0 + t, 0.0, 1, STRIDED_LOG_E, 0.0);
}

/* acosh's x < 1 and NaN (invalid: acosh is a checked op) go to the fix-up pass, and the vector
 * code sees 1 instead */
STRIDED_VINLINE int strided_vacoshf_hard(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b - 0x3f800000u >= 0x7f800000u - 0x3f800000u;   /* not in [1, inf) */
}

#if defined(__FMA__) || defined(__aarch64__)
/* Note [asinh and acosh in float lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With fma() one instruction, float32 asinh and acosh are float lanes only, as Note [asinh,
 * acosh and atanh in float64] does them in double: log(w) for w = w_hi + w_lo,
 *   asinh: w = a + sqrt(1 + a^2), a = |x|: a^2 = A + A_lo by fma, 1 + a^2 = B + B_lo (Fast2Sum
 *          of max(A, 1) and min(A, 1)), S = sqrt(B), its residual B - S^2 by fma plus B_lo;
 *   acosh: w = x + sqrt((x - 1)(x + 1)), x - 1 and x + 1 exact (x < 2^12), their product P +
 *          P_lo by fma, S = sqrt(P) and its residual likewise;
 * w_hi = a + S (Fast2Sum), and c = w_lo / w_hi = (e 2S + residual) / (2S w_hi), one division
 * (e the Fast2Sum's error; the Newton correction of S is residual / 2S). log(w_hi) + c is
 * Cephes' logf reduction and polynomial (Note [Float logarithms in float lanes]) with c added
 * to its small terms, as log1p's does. From 2^12 on, log(2a) (w's 1/(2a) is below 2^-25 of
 * it): the same log with k + 1. asinh below 2^-12 is x (x^3/6 under a fifth of an ulp); inf
 * and NaN are x itself; acosh(1) = 0 (c's denominator blended to 1 where P = 0).
 * Measured against the C library's double asinh and acosh on every 7th float of [0, inf),
 * x86-64-v3 and v4: asinh 0.82 ulp, acosh 1.13 (through double: 0.50). The loop alone, 1e6
 * float32 (asinh from [-2, 2], acosh |x| + 1), 1 thread, AMD EPYC with AVX-512 (2 cores,
 * shared), medians of 21, old and new alternated in one program:
 *   asinh  v4 1581 -> 640 us, v3 3261 -> 1338
 *   acosh  v4 1338 -> 606 us, v3 2528 -> 1201
 * v2 keeps the double form below (without fma the products' errors take Dekker's splits).
 * (The module's figures, with NumPy's and PyTorch's, at strided_vasinhf.) */
/* log(u) + c + kadd ln 2 for u a positive normal float and |c| <= 2^-23 */
STRIDED_VINLINE float strided_logf_normal_plus(float u, float c, float kadd) {
    uint32_t b;
    memcpy(&b, &u, sizeof b);
    b += 0x3f800000u - 0x3f3504f3u;
    float k = (float)((int32_t)(b >> 23) - 0x7f) + kadd;
    b = (b & 0x007fffffu) + 0x3f3504f3u;
    float f, z;
    memcpy(&f, &b, sizeof f);
    f -= 1.0f;
    float y = strided_logf_q(f, &z);
    y = (y + (c + -2.12194440e-4f * k)) - 0.5f * z;
    return (f + y) + 0.693359375f * k;
}

/* float32 asinh and acosh (Note [asinh and acosh in float lanes]). In the module, 1e6 float32,
 * out= given, 1 thread, medians of 11 alternated with NumPy and PyTorch in one process (us,
 * strided / NumPy / PyTorch; asinh from [-2, 2], acosh |x| + 1; two runs at v4):
 *   asinh  v4 1405 -> 445-448 / 462-487 / 16174-16364 (1.03-1.09x NumPy)   v3 903 / 509 / 16502
 *   acosh  v4 1175 -> 459-464 / 440-465 / 11362-11456 (0.96-1.00x NumPy)   v3 847 / 503 / 11696 */
STRIDED_VINLINE float strided_vasinhf(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    uint32_t mag = b & 0x7fffffffu;
    uint32_t mc = mag < 0x45800000u ? mag : 0x45800000u;         /* a <= 2^12 */
    float a;
    memcpy(&a, &mc, sizeof a);
    float A = a * a;
    float A_lo = fmaf(a, a, -A);
    float hi = A > 1.0f ? A : 1.0f, lo = A > 1.0f ? 1.0f : A;
    float B = hi + lo;
    float B_lo = ((hi - B) + lo) + A_lo;                         /* Fast2Sum */
    float S = sqrtf(B);
    float res = fmaf(-S, S, B) + B_lo;
    float w = S + a;
    float e = (S - w) + a;                                       /* Fast2Sum: S > a */
    float c = (e * (2.0f * S) + res) / ((2.0f * S) * w);
    int big = mag >= 0x45800000u;
    float ax;
    memcpy(&ax, &mag, sizeof ax);
    float u = strided_blend32(mag >= 0x7f800000u, 1.0f, big ? ax : w);   /* inf, NaN: 1 */
    float y = strided_logf_normal_plus(u, big ? 0.0f : c, big ? 1.0f : 0.0f);
    return (mag < 0x39800000u || mag >= 0x7f800000u) ? x : copysignf(y, x);   /* 2^-12 */
}

STRIDED_VINLINE float strided_vacoshf(float x) {
    float xx = strided_blend32(strided_vacoshf_hard(x), 1.0f, x);
    int big = xx >= 4096.0f;
    float xs = strided_blend32(big, 1.0f, xx);     /* (a select: (x - 1)(x + 1) might overflow) */
    float d = xs - 1.0f;                                         /* exact */
    float ep = xs + 1.0f;                                        /* exact below 2^23 */
    float P = d * ep;
    float P_lo = fmaf(d, ep, -P);
    float S = sqrtf(P);
    float res = fmaf(-S, S, P) + P_lo;
    float w = xs + S;
    float e = (xs - w) + S;                                      /* Fast2Sum: xs >= S */
    float den = strided_blend32(P == 0.0f, 1.0f, (2.0f * S) * w);
    float c = (e * (2.0f * S) + res) / den;
    return strided_logf_normal_plus(big ? xx : w, big ? 0.0f : c, big ? 1.0f : 0.0f);
}
#else
/* asinh(x) = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) (no cancellation; x^2 of a float
 * is finite in double); below 2^-20, asinh(x) rounds to x(1 - x^2/6). */
STRIDED_VINLINE float strided_vasinhf(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    int special = (b & 0x7fffffffu) >= 0x7f800000u;          /* inf, NaN: x itself */
    double a = strided_blend64(special, 1.0, fabs((double)x));
    double t = a + a * a / (1.0 + sqrt(1.0 + a * a));
    double y = copysign(strided_vlog1p_for_float(t), (double)x);
    return (special || a < 0x1p-20) ? x : (float)y;
}

/* acosh(x) = log1p((x - 1) + sqrt((x - 1)(x + 1))) for x >= 1 (x - 1 exact) */
STRIDED_VINLINE float strided_vacoshf(float x) {
    double xd = strided_blend64(strided_vacoshf_hard(x), 1.0, (double)x);
    double d = xd - 1.0;
    return (float)strided_vlog1p_for_float(d + sqrt(d * (xd + 1.0)));
}
#endif

/* atanh in float lanes (twice the lanes of the double route it had, 0.7x PyTorch's speed):
 *   |x| < 1/2:  a + a z P(z), a = |x|, z = a^2, P of degree 5 fitted to (atanh(a) - a) / a^3
 *               (Chebyshev least squares, float coefficients: 1.6e-9 relative); below 2^-13
 *               atanh(x) rounds to x (and z would underflow: a flag, in a checked op);
 *   |x| >= 1/2: log1p(q) / 2, q = 2a / (1 - a) >= 2 (1 - a exact: Sterbenz), as log1pf does
 *               it (Note [Float logarithms in float lanes]): u = 1 + q rounded, its error c
 *               exact, log(u) + c / u; 1 / u = (1 - a) / (1 + a) with 1 / (1 + a) taken as
 *               5/6 - a/3 (2% off, of a term below 2^-24 relative: no second division).
 * The quotient's rounding counts at most 0.6 ulp there (d log1p(q) / dq q / log1p(q) <= 0.6
 * for q >= 2). Measured: 1.04 ulp on 112 million points (every third float of [1e-5, 1),
 * random bit patterns, near +-1) on x86-64-v2, v3 and v4. |x| >= 1 and NaN (divide by zero,
 * invalid) go to the fix-up pass; the lanes see 1/2. */
STRIDED_VINLINE int strided_vatanhf_hard(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return (b & 0x7fffffffu) >= 0x3f800000u;
}

STRIDED_VINLINE float strided_vatanhf(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    b &= 0x7fffffffu;
    float a = strided_blend32(strided_vatanhf_hard(x), 0.5f, fabsf(x));
    float as = a < 0x1p-13f ? 0x1p-13f : (a > 0.5f ? 0.5f : a);
    float z = as * as;
    float p = 0.17503133416175842f;
    p = p * z + 0.05259426683187485f;
    p = p * z + 0.11789384484291077f;
    p = p * z + 0.14227114617824554f;
    p = p * z + 0.20002275705337524f;
    p = p * z + 0.3333330452442169f;
    float small = as + as * (z * p);
    float ab = a < 0.5f ? 0.5f : a;
    float d = 1.0f - ab;                                     /* exact */
    float q = (2.0f * ab) / d;
    float u = 1.0f + q;
    float c = (1.0f - (u - q)) * (d * (0.8333333f - 0.33333333f * ab));   /* (its error) / u */
    float y = strided_logf_plus(u, c);                       /* log1p(q) */
    float r = copysignf(a < 0.5f ? small : 0.5f * y, x);
    return b < 0x39000000u ? x : r;                          /* |x| < 2^-13 */
}

/* ---- atan in float lanes; asin and acos in float32 through double ------------------------ */

/* atan(t) for t in [0, 1] in double, to be rounded to float (float32 arctan2's, Note
 * [Vectorised binary functions]): above tan(pi/8), fdlibm's atan(t) = pi/4 +
 * atan((t - 1)/(t + 1)), leaving |v| <= tan(pi/8) for v + v z Q(z), z = v^2, Q of degree 5
 * fitted to (atan(v) - v) / (v z) (Chebyshev least squares: 5e-10, 1e-10 relative to atan) */
STRIDED_VINLINE double strided_atan01(double t) {
    int mid = t > 0.41421356237309504880;
    double v = mid ? (t - 1.0) / (t + 1.0) : t;
    double z = v * v;
    double q = 0.050540937985738485;
    q = q * z - 0.08627239605591074;
    q = q * z + 0.11071751411655845;
    q = q * z - 0.1428417497336817;
    q = q * z + 0.1999997777032897;
    q = q * z - 0.33333333280978467;
    return (v + v * z * q) + (mid ? 0.78539816339744830962 : 0.0);
}

/* Note [atan in float lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * float32 atan was computed in double (strided_atan01 above, rounded once: 0.50 ulp) at half
 * the lanes, 0.47x NumPy's AVX-512 loop. Now in float lanes, with r = |x| for |x| <= 1 and
 * r = 1 / |x| above (the division's operand blended to 1 where it is not needed):
 *   atan(r) = r + r z P(z), z = r^2, P of degree 7 fitted to (atan(r) - r) / r^3 on [0, 1]
 *             (least squares on Chebyshev nodes weighted to atan's relative error, each float
 *             coefficient fitted after the rounding of those before it: 2.0e-8 relative,
 *             a third of a float ulp);
 *   atan(x) = sgn(x) (K + s r + s r z P(z)), K = 0 and s = 1 for |x| <= 1, K = pi/2 and s = -1
 *             above. K and s are sign-bit and mask operations on the bits (no selects); pi/2 is
 *             a float head and tail: the head is added to s r first (exact for results below 1,
 *             one rounding above), the tail goes into the multiply-add of the small term.
 * |x| < 2^-12 (atan rounds to x, and -0 must stay -0) and NaN return x by one unsigned compare;
 * +-inf give r = 0 and +-pi/2 rounded. Not a checked op: the underflow of z for |x| > 2^63 in
 * its lane raises nothing that is reported. The values differ between levels (a fused
 * multiply-add at x86-64-v3 and v4, a multiply and an add at v2), within the bound.
 * Measured on every fifth float32 (855 million points, both signs, subnormals to inf) against
 * the C library's double atan: 1.31 ulp at x86-64-v3 and v4, 1.41 at v2 (was 0.50). The loop
 * alone, 1e6 floats from [-2, 2], 1 thread, 2-core AMD EPYC Zen 4: v4 894 -> 199 us, v3 1946
 * -> 394 us, v2 4361 -> 1256 us. strided.arctan(x, out=o), the same 1e6 floats, 1 thread,
 * medians of 11 alternated: v4 737 -> 210 us (NumPy 313-350, PyTorch 2100), v3 386 us, v2
 * 1084 us. */
STRIDED_VINLINE float strided_vatanf(float x) {
    uint32_t b, s;
    memcpy(&b, &x, sizeof b);
    s = b & 0x80000000u;                                     /* x's sign */
    b &= 0x7fffffffu;
    uint32_t big = 0 - (uint32_t)(b > 0x3f800000u);          /* |x| > 1 (inf, NaN too) */
    float a;
    memcpy(&a, &b, sizeof a);
    float r = strided_blend32(big, 1.0f / strided_blend32(big, a, 1.0f), a);
    float z = r * r;
    float p = 0.002841484f;
    p = strided_maddf(p, z, -0.016049758f);
    p = strided_maddf(p, z, 0.04269273f);
    p = strided_maddf(p, z, -0.07508143f);
    p = strided_maddf(p, z, 0.10645326f);
    p = strided_maddf(p, z, -0.14205821f);
    p = strided_maddf(p, z, 0.19993135f);
    p = strided_maddf(p, z, -0.33333126f);
    uint32_t rb, kh, kl;
    memcpy(&rb, &r, sizeof rb);
    rb ^= s ^ (big & 0x80000000u);                           /* sgn(x) s r */
    kh = (0x3fc90fdbu & big) | s;                            /* sgn(x) K: pi/2's head, */
    kl = (0xb33bbd2eu & big) ^ s;                            /* its tail -4.37113883e-8 */
    float sr, k_hi, k_lo;
    memcpy(&sr, &rb, sizeof sr);
    memcpy(&k_hi, &kh, sizeof k_hi);
    memcpy(&k_lo, &kl, sizeof k_lo);
    float y = (k_hi + sr) + strided_maddf(sr, z * p, k_lo);
    /* |x| < 2^-12 and NaN: x itself */
    return strided_blend32(b - 0x39800000u > 0x7f800000u - 0x39800000u, x, y);
}

/* asin and acos of a float in double, one polynomial and one square root (fdlibm's and
 * Cephes' reduction): asin(w) = w + w z P(z), z = w^2, for w in [0, 1/2], P of degree 6 fitted
 * to (asin(w) - w) / (w z) (Chebyshev least squares, 2.3e-10 absolute: 1.4e-9 relative, a
 * hundredth of a float ulp); for |x| > 1/2, w = sqrt(z) with z = (1 - |x|) / 2 (exact in
 * double), asin(|x|) = pi/2 - 2 asin(w), acos(x) = 2 asin(w) (x > 0) or pi - 2 asin(w). The
 * float result is rounded once: 0.50 ulp. (It was atan(x / sqrt(1 - x^2)) through a 16-term
 * series and three divisions, at half PyTorch's speed.) Returns asin(w) for the w and z that
 * strided_asin_arg picked. */
STRIDED_VINLINE double strided_asin_small(double w, double z) {
    double p = 0.031087541846562042;
    p = p * z + 0.010490098496003833;
    p = p * z + 0.023635390829117003;
    p = p * z + 0.030266103786895326;
    p = p * z + 0.044647840346575735;
    p = p * z + 0.07499992028953262;
    p = p * z + 0.16666666687407208;
    return w + w * z * p;
}

/* the argument of strided_asin_small for a = |x| <= 1: a itself up to 1/2, else sqrt((1 - a)/2)
 * (a double square root: a float one and a Newton step in double measured slower) */
STRIDED_VINLINE double strided_asin_arg(double a, double* z) {
    int big = a > 0.5;
    double zb = 0.5 * (1.0 - a);
    *z = big ? zb : a * a;
    return big ? sqrt(zb) : a;
}

/* |x| >= 1 and NaN go to the fix-up pass (asin is a checked op: |x| > 1 is invalid) */
STRIDED_VINLINE int strided_vasinf_hard(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return (b & 0x7fffffffu) >= 0x3f800000u;
}

STRIDED_VINLINE float strided_vasinf(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    double a = strided_blend64(strided_vasinf_hard(x), 0.5, fabs((double)x));
    double z;
    double w = strided_asin_arg(a, &z);
    double p = strided_asin_small(w, z);
    double y = a > 0.5 ? 1.57079632679489661923 - 2.0 * p : p;
    /* |x| < 2^-12: x; compared on the bits (a float compare of NaN may raise "invalid") */
    return (b & 0x7fffffffu) < 0x39800000u ? x : (float)copysign(y, (double)x);
}

/* acos: |x| > 1 and NaN go to the fix-up pass (and x = -1, which the old formula divided by) */
STRIDED_VINLINE int strided_vacosf_hard(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return (b & 0x7fffffffu) > 0x3f800000u || b == 0xbf800000u;
}

STRIDED_VINLINE float strided_vacosf(float x) {
    double xd = strided_blend64(strided_vacosf_hard(x), 0.5, (double)x);
    double z;
    double w = strided_asin_arg(fabs(xd), &z);
    double p = strided_asin_small(w, z);
    double big = xd > 0.0 ? 2.0 * p : 3.14159265358979323846 - 2.0 * p;
    return (float)(fabs(xd) > 0.5 ? big : 1.57079632679489661923 - copysign(p, xd));
}

/* ---- erf and erfc in float32 ------------------------------------------------------------ */

/* Note [erf and erfc from two fits]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Two smooth pieces, each a polynomial fitted once (Chebyshev least squares, then written in
 * powers of the fit's variable):
 *   small |x|: erf(x) = x E(x^2);
 *   the rest:  erfc(a) = exp(-a^2) Q(t) / (1 + 2a) (or / (a + 2)), a = |x|, t = (a - 2) /
 *              (a + 2) (the variable of Schonfelder's expansions of erfc: it maps [1, inf) to
 *              [-1/3, 1) and straightens erfc's tail).
 * erf = sign(x) (1 - erfc(|x|)) and erfc(-a) = 2 - erfc(a) there. strided_verff does erf in
 * float lanes (|x| < 1 and a degree-6 Q on [1, 4], past which erf rounds to +-1; within
 * 1.1-1.4 ulp); strided_verfcf erfc (Note [erfc in float lanes]: |x| < 0.35 and a degree-10 Q
 * on [0.35, 10.1], a few steps in double; with FMA one piece, a degree-11 Q on [0, 10.1] in
 * float-float, Note [erfc in float lanes with fma]). Beyond the fit, a is clamped (erf's 4,
 * erfc's 10.1): erf rounds to +-1 from 3.92 on, erfc to 0 from 10.06 on, and erfc(-a) to 2; inf
 * needs nothing else. NaN is selected through at the end; erf and erfc are not checked ops
 * (Note [Floating-point errors]), so the lanes may raise what they like. No fix-up pass. */

/* exp(x) for a result to be rounded to float, x in [-700, 700]: n = round(x / ln 2), r = x - n ln 2
 * (ln 2 in two parts, n ln2_hi exact), exp(r) by its Taylor series to r^11 (|r| <= ln2 / 2:
 * the first term left out is below 3e-13), 2^n put into the exponent bits. No division, unlike
 * strided_exp's rational form, which is within an ulp of double but twice the cost. */
STRIDED_VINLINE double strided_exp_for_float(double x) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double t = x * 1.44269504088896340736 + 6755399441055744.0;  /* 1.5 * 2^52: round */
    double fn = t - 6755399441055744.0;
    double r = (x - fn * ln2_hi) - fn * ln2_lo;
    double p = 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    /* n + 1023 is in t's low bits (t = 1.5 * 2^52 + n) */
    return p * strided_from_bits64((strided_bits64(t) + 1023 - 0x0008000000000000ULL) << 52);
}

/* erf in float lanes (twice as many per instruction as double: erf is GELU's, the most used):
 * the same two pieces, fitted again for float arithmetic. |x| < 1: x + x P(x^2), P = E - 1
 * (written so, the rounding errors of P shrink with it: |P| <= 0.16); |x| >= 1: 1 - erfc, and
 * erfc rounded a few ulps is enough, as erfc <= 0.16 there (a degree-6 Q on [1, 4], past which
 * erf rounds to 1; a^2 = a2 + e exactly, a split into halves of 12 bits, and exp(-a^2) =
 * exp(-a2) (1 - e)). Measured: 1.09 ulp with FMA (x86-64-v3), 1.39 without (v2). */
STRIDED_VINLINE float strided_verff(float x) {
    float a = fabsf(x);
    float z = x * x;
    float p = 7.882497448008507e-05f;
    p = p * z - 0.0008018855005502701f;
    p = p * z + 0.005189312156289816f;
    p = p * z - 0.02685432881116867f;
    p = p * z + 0.11283597350120544f;
    p = p * z - 0.3761262595653534f;
    p = p * z + 0.12837916612625122f;
    float small = x + x * p;
    float ac = a > 4.0f ? 4.0f : (a < 1.0f ? 1.0f : a);
    float d1 = ac + 2.0f, d2 = 1.0f + 2.0f * ac;
    float r = 1.0f / (d1 * d2);                 /* one division for t and 1 / (1 + 2a) */
    float t = (ac - 2.0f) * d2 * r;
    float q = 0.008406068198382854f;
    q = q * t - 0.00779891200363636f;
    q = q * t - 0.05419817939400673f;
    q = q * t + 0.16403843462467194f;
    q = q * t - 0.1660308837890625f;
    q = q * t - 0.09276364743709564f;
    q = q * t + 1.2769783735275269f;
    uint32_t b;
    memcpy(&b, &ac, sizeof b);
    b &= 0xfffff000u;
    float ah;
    memcpy(&ah, &b, sizeof ah);
    float al = ac - ah, a2 = ac * ac;
    float e = ((ah * ah - a2) + 2.0f * ah * al) + al * al;
    /* exp(-a2) for a2 in [1, 16]: strided_expf without its guards for overflow, underflow and
     * NaN (none can happen here) */
    float fn = (a2 * -1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float rr = (-a2 - fn * 0.693359375f) - fn * -2.12194440e-4f;
    float ex = strided_expf_reduced(rr) * strided_pow2if((int32_t)fn);
    float erfc = ex * (1.0f - e) * (q * (d1 * r));
    float big = copysignf(1.0f - erfc, x);
    float y = a < 1.0f ? small : big;
    return x != x ? x : y;
}

/* P(x^2) of erfc's |x| < 0.35 piece: erf(x) = x + x P(x^2) */
STRIDED_VINLINE float strided_erfcf_small_p(float x) {
    float z = x * x;
    float p = 0.0048283739015460014f;
    p = p * z - 0.026800893247127533f;
    p = p * z + 0.11283331364393234f;
    p = p * z - 0.3761262595653534f;
    p = p * z + 0.12837916612625122f;
    return p;
}

/* exp(-(a2 + e)) = 2^fn e^r: fn = round(-a2 / ln 2), r reduced in float as strided_expf does,
 * e (a^2's rounding error, tiny) taken off r */
STRIDED_VINLINE float strided_erfcf_reduce(float a2, float e, float* fn) {
    float n = (a2 * -1.44269504088896341f + 12582912.0f) - 12582912.0f;
    *fn = n;
    return ((-a2 - n * 0.693359375f) - e) - n * -2.12194440e-4f;
}

/* Note [erfc in float lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * erfc's relative error counts all the way down its tail, to the subnormal 1e-45 at a = 10.05,
 * so float32 erfc is not 1 - erf. It was all in double (0.50 ulp; half PyTorch's speed on
 * AVX2); now the long parts are float lanes and only the few steps that carry the error are
 * double, and the result is rounded once from a double:
 *   |x| < 0.35: 1 - erf(x), erf(x) = x + x P(x^2) (P of degree 4 in float, 9e-10), the
 *               subtraction in double (erf <= 0.38 there: no cancellation);
 *   else:       erfc(a) = exp(-a^2) Q(t) / (a + 2), a = |x| (clamped to 10.1, past which the
 *               float result is 0), t = (a - 2) / (a + 2) = 1 - 4 / (a + 2) (the variable of
 *               Note [erf and erfc from two fits], here over [0.35, 10.1]: t in [-0.70, 0.67]);
 *               Q of degree 10 fitted to erfcx(a) (a + 2) (Chebyshev least squares, float
 *               coefficients rounded one at a time and the rest refitted; its constant term a
 *               double: 1.1e-9 relative). 1 / (a + 2) and t in double (one division, the only
 *               one); Q's Horner steps to t^2 in float on t rounded to float, its last two
 *               steps in double on the double t (in float they and t's rounding cost 0.9
 *               ulp). exp(-a^2): a^2 = a2 + e exactly (a in halves of 12 bits), a2 = n ln 2 + r
 *               reduced in float as strided_expf does, e taken off r, Cephes' expf polynomial
 *               for e^r - 1 in float, 1 + it and 2^-n (n up to 147: a normal double) in double.
 *               erfc(-a) = 2 - erfc(a).
 * Measured on 31 million points (all floats of [0.3, 11] in steps of 7, random bit patterns,
 * the subnormal tail): 1.21 ulp (the expf polynomial's rounding is most of it). NaN is selected
 * through; inf gives 0 and 2 from the clamp. Not a checked op.
 *
 * That form is what x86-64-v2 runs. With fused multiply-adds (x86-64-v3 and up) the double
 * steps go too (Note [erfc in float lanes with fma]). */

/* Note [erfc in float lanes with fma]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * At x86-64-v3 the double steps of Note [erfc in float lanes] were most of the time: a double
 * lane is half a float lane, and each value crossing between them costs a widening (or
 * narrowing) and an extract; two divisions in double where float needs one; and a select of
 * doubles by a float compare widens its mask (vpmovsxdq). With fma() a single instruction, the
 * few steps that need more than a float carry their rounding error in a second float (a
 * float-float) instead, and the function is float lanes only. And one piece, not two:
 *   erfc(a) = exp(-a^2) Q(t) / (a + 2) over all of [0, 10.1] (a = |x| clamped), Q of degree 11
 *   fitted again (as in Note [erfc in float lanes], c1 rounded to float first, then c2, ...,
 *   each time the rest refitted; 1.6e-9 relative). t reaches -1 at a = 0, where Q = 2: the
 *   small piece 1 - erf(x), computed in every lane beside this one and selected, went.
 *   d = a + 2 = dh + dl exactly (Fast2Sum of max(a, 2) and min(a, 2)); 1/d = rh + rl, rl = rh
 *   (1 - dh rh - dl rh) with the residual by fma; t = 1 - 4/d = th + tl (exact for 4/d >= 1
 *   by Sterbenz, Fast2Sum below). Q = S + t^2 U: S = c0 + c1 t a float-float (c0 as two
 *   floats, c1 t's error by fma and tl's share, the sum's by Fast2Sum), U = c2 + ... + c11 t^9
 *   in float by pairs (Estrin's scheme), t^2 U's error by fma (U's own rounding is within
 *   1e-8 of Q, which is >= 0.67), Q = qh + ql by Fast2Sum (|S| >= 0.56 > |t^2 U|).
 *   exp(-a^2) = 2^n (1 + em1) (a^2 = a2 + e by fma; a2 = n ln 2 + r reduced in float as
 *   strided_expf does; Cephes' polynomial for em1), 1 + em1 = eh + el; F = 2^n1 (1 + em1) / d
 *   as fh + fl (2^n1 put into rh and rl first: exact), n1 = n / 2 rounded down. Then Q F =
 *   fma(qh, fh, qh fl + ql fh), and the result fma(Q F, +-2^(n - n1), 0 or 2): for x < 0, 2 -
 *   erfc(a) rounded once; n down to -147, so Q F stays normal and the last step rounds once
 *   into the subnormals. NaN goes in as the addend and comes out.
 * The loop is bound by the latency of its longest chain (the division, t, Q, the product),
 * not by its count of instructions (100 per 8 lanes at v3): three iterations fit in the
 * out-of-order window. So the order of the sums is chosen for a short chain: the exp side
 * (long but parallel to Q) takes 1/d and 2^n1 before Q is done; S is ready with t^2 long
 * before t^2 U; Q's low part goes into the product in two fmas, the later one taking only
 * Fast2Sum's term; r = (-a2 - n ln2_hi) - (e + n ln2_lo), two rounds side by side.
 * The clamps of a are integer min/max on the bits (a >= 0, so the bits order as the values; NaN
 * clamps to 10.1): with a select, GCC copied the arithmetic that follows into both arms
 * (-fno-trapping-math lets it) and the loop grew 57 blends.
 * Measured on every float32 (all 2^32 bit patterns, against the C library's double erfc):
 * 1.41 ulp at v3, 1.28 at v4 (the two-piece form of the commit before: 1.32 at v3).
 * Time, 1e6 float32 from [-3, 9], AMD EPYC with AVX-512 (2 cores, shared and loaded),
 * medians with spread; the loop alone is old and new compiled into one program and alternated,
 * 31 rounds (quartiles); the benchmark is STRIDED_CPU_FEATURES=<level> python
 * benchmarks/bench_transcendental.py --only erfc --rounds 7 --threads 1 (out=, PyTorch
 * alternated in the same process, ATEN_CPU_CAPABILITY=avx2 at v3):
 *   the double steps to float-float, two pieces (the form before this one):
 *     loop alone, 1 thread  v3: 2.21 ms (2.17-2.23) -> 1.58 (1.57-1.61)   1.39x
 *                           v4: 1.05 ms (1.05-1.09) -> 0.75 (0.74-0.77)   1.41x
 *     benchmark, 1 thread   v3: PyTorch's AVX2 build 1.47-1.53 ms: 0.68x -> 0.96-0.98x
 *   one piece, the short chain:
 *     loop alone, 1 thread  v3: 1.555 ms (1.54-1.59) -> 1.234 (1.23-1.25)  1.26x
 *                           v4: 0.703 ms (0.70-0.71) -> 0.586 (0.58-0.59)  1.20x
 *     benchmark, 1 thread   v3: 1.23 ms (+-34%, the machine loaded), PyTorch's AVX2 build
 *                           1.52 ms: 1.23x; v4: 0.84 ms, PyTorch 2.23: 2.6x
 *                           v2: unchanged (the form of Note [erfc in float lanes]) */
#if defined(__FMA__) || defined(__aarch64__)
STRIDED_VINLINE uint32_t strided_umin32(uint32_t a, uint32_t b) { return a < b ? a : b; }
STRIDED_VINLINE uint32_t strided_umax32(uint32_t a, uint32_t b) { return a > b ? a : b; }

STRIDED_VINLINE float strided_verfcf(float x) {
    float a = fabsf(x);
    uint32_t ab, acb;
    memcpy(&ab, &a, sizeof ab);
    acb = strided_umin32(ab, 0x4121999au);                             /* 10.1f */
    float ac, hi, lo;
    memcpy(&ac, &acb, sizeof ac);
    uint32_t hib = strided_umax32(acb, 0x40000000u), lob = strided_umin32(acb, 0x40000000u);
    memcpy(&hi, &hib, sizeof hi);                                      /* max(ac, 2) */
    memcpy(&lo, &lob, sizeof lo);                                      /* min(ac, 2) */
    float dh = ac + 2.0f;                                              /* = hi + lo */
    float dl = lo - (dh - hi);
    float rh = 1.0f / dh;
    float rl = rh * (fmaf(-dh, rh, 1.0f) - dl * rh);
    float r4 = 4.0f * rh;
    float th = 1.0f - r4;                          /* exact: Sterbenz for r4 >= 1 */
    float tl = ((1.0f - th) - r4) - 4.0f * rl;
    float t2 = th * th, t4 = t2 * t2;
    float t2l = fmaf(th, th, -t2) + 2.0f * th * tl;
    /* U = c2 + c3 t + ... + c11 t^9, by pairs (Estrin's scheme) */
    float u0 = -0.03644239529967308f * th + 0.27947208285331726f;
    float u1 = 0.006479389499872923f * th - 0.02151045762002468f;
    float u2 = -0.0008349416311830282f * th + 0.0030886998865753412f;
    float u3 = 2.851817407645285e-05f * th - 0.0006532059633173048f;
    float u4 = 3.007491432072129e-05f * th + 0.00012015125685138628f;
    float u = (u4 * t4 + (u3 * t2 + u2)) * t4 + (u1 * t2 + u0);
    const float c1 = -0.6871606707572937f;
    const float c0h = 1.0215827226638794f, c0l = -1.754008138732388e-08f;  /* 1.0215827051237971 */
    float p1 = c1 * th;                                                /* S = c0 + c1 t */
    float sh = c0h + p1;
    float sl = ((c0h - sh) + p1) + ((fmaf(c1, th, -p1) + c0l) + c1 * tl);
    float m2 = t2 * u;                                                 /* Q = S + t^2 U */
    float qh = sh + m2;
    float qlx = sl + (fmaf(t2, u, -m2) + t2l * u);     /* Q's low part but for Fast2Sum's */
    float a2 = ac * ac;
    float e = fmaf(ac, ac, -a2);
    float fn = (a2 * -1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = (-a2 - fn * 0.693359375f) - (e + fn * -2.12194440e-4f);
    float r2 = r * r;
    float e45 = 1.9875691500e-4f * r + 1.3981999507e-3f;      /* strided_expm1f_reduced, */
    float e23 = 8.3334519073e-3f * r + 4.1665795894e-2f;      /* by pairs */
    float e01 = 1.6666665459e-1f * r + 5.0000001201e-1f;
    float em1 = ((e45 * r2 + e23) * r2 + e01) * r2 + r;
    int32_t n = (int32_t)fn, n1 = n >> 1;
    float s1 = strided_pow2if(n1);
    float rs = rh * s1, rls = rl * s1;                                 /* exact */
    float eh = 1.0f + em1, el = (1.0f - eh) + em1;
    float fh = rs * eh;                                  /* F = 2^n1 (1 + em1) / (a + 2) */
    float fl = fmaf(rs, eh, -fh) + (rs * el + rls * eh);
    float lo1 = fmaf(qlx, fh, qh * fl);
    float lo2 = fmaf((sh - qh) + m2, fh, lo1);
    float res = fmaf(qh, fh, lo2);                                     /* Q F */
    float k = strided_pow2if(n - n1);
    k = x < 0.0f ? -k : k;
    float off = x < 0.0f ? 2.0f : 0.0f;
    off = x != x ? x : off;
    return fmaf(res, k, off);
}
#else
STRIDED_VINLINE float strided_verfcf(float x) {
    float a = fabsf(x);
    float p = strided_erfcf_small_p(x);
    double small = 1.0 - ((double)x + (double)(x * p));
    float ac = a > 10.1f ? 10.1f : (a < 0.35f ? 0.35f : a);
    double rd = 1.0 / ((double)ac + 2.0);
    double td = 1.0 - 4.0 * rd;
    float t = (float)td;
    float q = 0.00011424488184275106f;
    q = q * t + 6.704408588120714e-05f;
    q = q * t - 0.0006476225098595023f;
    q = q * t - 0.0008526420569978654f;
    q = q * t + 0.003087083576247096f;
    q = q * t + 0.006482777651399374f;
    q = q * t - 0.021510323509573936f;
    q = q * t - 0.03644261509180069f;
    double qd = (double)q * td + 0.27947208285331726;
    qd = qd * td - 0.6871606707572937;
    qd = qd * td + 1.021582705299881;
    float ah = strided_head12f(ac);
    float al = ac - ah, a2 = ac * ac;
    float e = ((ah * ah - a2) + 2.0f * ah * al) + al * al;      /* ac^2 = a2 + e, exactly */
    float fn;
    float r = strided_erfcf_reduce(a2, e, &fn);
    double tail = ((1.0 + (double)strided_expm1f_reduced(r)) * qd) * (rd * strided_pow2_of((double)fn));
    double big = x < 0.0f ? 2.0 - tail : tail;
    double y = a < 0.35f ? small : big;
    return x != x ? x : (float)y;
}
#endif

/* ---- sin and cos ------------------------------------------------------------------------ */

/* musl's __sindf and __cosdf: sin and cos on [-pi/4, pi/4] in double, |error| < 2^-37, for the
 * float functions. */
STRIDED_VINLINE double strided_sindf(double x) {
    const double S1 = -0x15555554cbac77.0p-55, S2 = 0x111110896efbb2.0p-59,
                 S3 = -0x1a00f9e2cae774.0p-65, S4 = 0x16cd878c3b46a7.0p-71;
    double z = x * x, w = z * z, r = S3 + z * S4, s = z * x;
    return (x + s * (S1 + z * S2)) + s * w * r;
}

STRIDED_VINLINE double strided_cosdf(double x) {
    const double C0 = -0x1ffffffd0c5e81.0p-54, C1 = 0x155553e1053a42.0p-57,
                 C2 = -0x16c087e80f1e27.0p-62, C3 = 0x199342e0ee5069.0p-68;
    double z = x * x, w = z * z, r = C2 + z * C3;
    return ((1.0 + z * C0) + w * C1) + (w * z) * r;
}

/* The float reduction: n = round(x 2/pi), y = x - n pi/2 with pi/2 in 25 + 53 bits (musl's
 * __rem_pio2f), good for |x| < 2^28 pi/2 (STRIDED_VTRIGF_MAX below); larger, inf and NaN go to
 * the C library in the fix-up pass. Returns y and the quadrant n mod 4. */
#define STRIDED_VTRIGF_MAX 0x1.921fb6p+28f
STRIDED_VINLINE double strided_rem_pio2f(float x, uint64_t* quadrant) {
    const double invpio2 = 6.36619772367581382433e-01;
    const double pio2_1 = 1.57079631090164184570e+00, pio2_1t = 1.58932547735281966916e-08;
    double xd = (double)x;
    double t = xd * invpio2 + 6755399441055744.0;          /* 1.5 * 2^52: n in the low bits */
    double fn = t - 6755399441055744.0;
    *quadrant = strided_bits64(t) & 3;
    return (xd - fn * pio2_1) - fn * pio2_1t;
}

STRIDED_VINLINE float strided_vsinf(float x) {
    uint64_t q;
    double y = strided_rem_pio2f(x, &q);
    double s = strided_sindf(y), c = strided_cosdf(y);
    double r = (q & 1) ? c : s;
    r = (q & 2) ? -r : r;
    return fabsf(x) < 0x1p-12f ? x : (float)r;               /* tiny: x, and -0 stays -0 */
}

STRIDED_VINLINE float strided_vcosf(float x) {
    uint64_t q;
    double y = strided_rem_pio2f(x, &q);
    double s = strided_sindf(y), c = strided_cosdf(y);
    double r = (q & 1) ? -s : c;
    r = (q & 2) ? -r : r;
    return (float)r;
}

/* tan = sin / cos of the reduced argument (odd quadrants: -cos / sin), each within 2^-37, so
 * the quotient is far within a float ulp before its one rounding */
STRIDED_VINLINE float strided_vtanf(float x) {
    uint64_t q;
    double y = strided_rem_pio2f(x, &q);
    double s = strided_sindf(y), c = strided_cosdf(y);
    double num = (q & 1) ? -c : s;
    double den = (q & 1) ? s : c;
    return fabsf(x) < 0x1p-12f ? x : (float)(num / den);
}

/* fdlibm's __kernel_sin(x, y, 1) and __kernel_cos(x, y): sin and cos of x + y, |x + y| <= pi/4,
 * y the tail of the reduced argument; < 1 ulp in fdlibm's analysis. */
STRIDED_VINLINE double strided_ksin(double x, double y) {
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    double z = x * x, w = z * z;
    double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    double v = z * x;
    return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

STRIDED_VINLINE double strided_kcos(double x, double y) {
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    double z = x * x, w = z * z;
    double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    double hz = 0.5 * z;
    double v = 1.0 - hz;
    return v + (((1.0 - v) - hz) + (z * r - x * y));
}


/* The medium-size reduction for |x| < 2^20 pi/2 (fdlibm's __rem_pio2 range), branch free:
 * n = round(x 2/pi), pi/2 = pio2_1 + pio2_2 + pio2_3 + pio2_3t with the first three of 33 bits
 * (fdlibm's constants), so each n * pio2_i is exact; x - n pio2_1 is exact (x and n pio2_1 are
 * close), the next two subtractions are TwoSums whose errors join the tail. (fdlibm does its
 * second and third rounds only after a cancellation, when they are exact; done always, they
 * must keep their rounding errors.) Returns y0 + y1 (|y1| <= ulp(y0)/2) and n mod 4. */
#define STRIDED_VTRIG_MAX 0x1.921fb54442d18p+20
STRIDED_VINLINE double strided_rem_pio2(double x, double* tail, uint64_t* quadrant) {
    const double invpio2 = 6.36619772367581382433e-01;
    const double pio2_1 = 1.57079632673412561417e+00, pio2_2 = 6.07710050630396597660e-11,
                 pio2_3 = 2.02226624871116645580e-21, pio2_3t = 8.47842766036889956997e-32;
    double t0 = x * invpio2 + 6755399441055744.0;
    double fn = t0 - 6755399441055744.0;
    *quadrant = strided_bits64(t0) & 3;
    double r1 = x - fn * pio2_1;
    double r2, e2, r3, e3;
    STRIDED_TWO_SUM(r1, -(fn * pio2_2), r2, e2);
    STRIDED_TWO_SUM(r2, -(fn * pio2_3), r3, e3);
    double w = (e2 + e3) - fn * pio2_3t;
    double y0 = r3 + w;
    *tail = (r3 - y0) + w;
    return y0;
}

STRIDED_VINLINE double strided_vsin(double x) {
    uint64_t q;
    double y1;
    double y0 = strided_rem_pio2(x, &y1, &q);
    double s = strided_ksin(y0, y1), c = strided_kcos(y0, y1);
    double r = (q & 1) ? c : s;
    r = (q & 2) ? -r : r;
    return fabs(x) < 0x1p-26 ? x : r;                       /* tiny: x, and -0 stays -0 */
}

STRIDED_VINLINE double strided_vcos(double x) {
    uint64_t q;
    double y1;
    double y0 = strided_rem_pio2(x, &y1, &q);
    double s = strided_ksin(y0, y1), c = strided_kcos(y0, y1);
    double r = (q & 1) ? -s : c;
    r = (q & 2) ? -r : r;
    return r;
}

/* ---- binary functions: logaddexp, atan2, pow (binary.pyx.tp's VECTORISED) --------------- */

/* Note [Vectorised binary functions]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The binary loops called the C library per element for logaddexp, atan2 and pow: 4-10x behind
 * PyTorch (issue 20). These are the same kind of straight-line code as the unary functions,
 * for the loops of binary.pyx.tp (which take its FIXUP pass for the rare arguments, as unary's
 * do: Note [Fix-up passes] in unary.pyx.tp):
 *   logaddexp (float32): max(a, b) + log1p(exp(-|a - b|)) in double (exp and log at float
 *     accuracy: strided_exp_for_float, strided_vlog_core's float route), rounded once: 0.50
 *     ulp, also where max + log1p(...) cancels (NumPy's float32 loop, in float: 2.5 ulp of
 *     max(|a|, |b|) there). a == b (infinities too) is a + ln 2 and NaN is selected through,
 *     as scalar_math.h's strided_logaddexp does; no fix-up pass.
 *   hypot (float32): sqrt(a^2 + b^2) in double, rounded once: 0.50 ulp (strided_vhypotf);
 *     float64: the same with the sum of squares as a double and its tail and a Newton step
 *     (strided_vhypot).
 *   logaddexp (float64): the same formula as a double and its tail throughout: d = a - b by
 *     TwoSum, e^d = 2^k (s + t) from strided_exp_parts (its argument's tail included), 1 + e^d
 *     by TwoSum, log of that as hi + lo (strided_log1_dd), max + hi by TwoSum and the tails
 *     added last; e^d below 2^-54 as E - E^2/2, |d| > 746 (infinities) gives max. Within
 *     0.87 ulp where |result| >= 1/16 (0.91 on x86-64-v2), on 10.5 million points against
 *     long double; nearer zero, where max + log1p(...) cancels, the absolute error stays below
 *     1e-17 (8.5e-18 measured, 9.2e-18 on x86-64-v2; expm1's tail in strided_exp_parts is a
 *     plain double: 3.4 ulp at |result| = 1/128), NumPy's C library's over 100 times that (7.4
 *     ulp at 1/16, 59 at 1/128). 4-6x the C library's speed; 1.04x PyTorch's at x86-64-v4 (Note
 *     [logaddexp's latency]).
 *   atan2 (float32): in double, t = min(|y|, |x|) / max(|y|, |x|) in [0, 1], atan(t) by
 *     fdlibm's pi/4 + atan((t - 1)/(t + 1)) above tan(pi/8) and t + t z Q(z) (Q of degree 5,
 *     5e-10), then pi/2 - r if |y| > |x|, pi - r if x is negative (its sign bit), y's sign.
 *     Zeros in both, infinities and NaN go to the fix-up pass (the C library's signed cases).
 *   atan2 (float64): atan2(y, x) = K + s atan(t), t = min(|y|, |x|) / max(|y|, |x|) in [0, 1],
 *     K = 0, pi/2 or pi and s = +-1 by the octant, y's sign last; everything carried as a
 *     double and its tail, summed once at the end: t = num (1 / den) and its tail from the
 *     exact residual num - t den (strided_residual: a fused multiply-add, or Dekker's product
 *     on x86-64-v2), then Note [atan, asin and acos in float64]'s reduction u = (A t - B) /
 *     (A + B t) (c = 0, 1/2 or 1: t's bands 7/16 and 11/16) with its own residual and t's
 *     tail carried through it, fdlibm's atan polynomial on u, and K_hi + s atan(c)_hi + s u by
 *     two TwoSums, with the tails (K_lo, atan(c)_lo, u's, the polynomial) added before the
 *     last rounding. Arguments whose smaller is below 2^-900 are scaled by 2^100 first, so that
 *     the residual stays exact; the larger from 2^990 on (where Dekker's split overflows), inf,
 *     NaN and both zero go to the fix-up pass. 0.76 ulp on 10 million points (0.80 on
 *     x86-64-v2), against long double (NumPy's C library 0.52); C library's 4-7x the time.
 *   pow (float32): exp2(b log2(a)) in double: log2 as k + s P(s^2) (s = (m - 1) / (m + 1),
 *     P of degree 4: 2^-37 relative; strided_log2_for_float), b log2(a) then within 150
 *     2^-37, strided_exp2_for_float (5.6e-11): the float result is rounded once: 0.51 ulp
 *     on 21 million points. A negative a with an integer b is |a|'s power with a's sign for
 *     an odd b, as float64's (whole and odd by rint: b == rint(b), b/2 != rint(b/2)).
 *     a zero, inf or NaN, a negative a with a b that is not an integer, b inf or NaN give 0
 *     in the lane; they and results that overflow, are zero or subnormal go to the fix-up
 *     pass (pow is a checked op: the C library raises NumPy's invalid, divide by zero,
 *     overflow and underflow). (It took log2 from strided_vlog_core's float route, 2^-46, at
 *     0.8x PyTorch's speed; negative bases went to the C library, 8 ms for 1e6 of mixed sign
 *     at x86-64-v4, now 1.7, as positive ones.)
 *   pow (float64): exp(b log|a|) with both steps carried as a double and its tail, as a
 *     float64 result within 1 ulp needs: b log|a| is up to 745 in size where the result is
 *     normal, so its absolute error must stay near 2^-55, 2^-65 of it. log|a| = hi + lo
 *     (strided_log_parts: 2^-64 relative), b (hi + lo) by its exact product's residual, then
 *     strided_exp_parts with the tail (2^-57), the result (s + t) 2^k rounded once. The vector
 *     code takes a > 0 normal and a < 0 with an integer b (|a|'s power, a's sign for an odd b:
 *     whole and odd read off |b| + 2^52), b zero or of size 2^-80 to 2^64, and results that
 *     are normal (|b log|a|| below 708); everything else gives 0 in the lane (nothing there
 *     raises a flag) and goes to the fix-up pass: zeros, subnormal, infinite and NaN bases,
 *     negative bases with non-integer exponents, infinite, NaN, tiny and huge exponents, and
 *     results that overflow, underflow or are subnormal: there the C library gives C99's
 *     special values (pow(x, +-0) = 1 for NaN x, pow(1, y) = 1, pow(-1, +-inf) = 1, the sign
 *     of a zero or infinite base under an odd integer exponent) and raises NumPy's flags.
 *     Measured: 0.65 ulp (0.71 on x86-64-v2) on 14.7 million points against long double
 *     (NumPy's own routines differ from the C library's in the last bit of 1 result in 32);
 *     2.5x the C library's speed at x86-64-v4.
 * Measured: tests/test_vecmath_binary.py. */
STRIDED_VINLINE double strided_log1pexp_neg(double d) {
    /* log1p(exp(d)) for d <= 0 (NaN: anything), to be rounded to float: u = 1 + e rounded,
     * plus its rounding error over u (exp(-200) is far below a float ulp of 1) */
    double e = strided_exp_for_float(d < -200.0 ? -200.0 : d);
    double u = 1.0 + e;
    return strided_vlog_core(u, 0.0, 1, STRIDED_LOG_E, (e - (u - 1.0)) / u);
}

STRIDED_VINLINE float strided_vlogaddexpf(float a, float b) {
    double ad = (double)a, bd = (double)b;
    double m = ad > bd ? ad : bd;
    double d = -fabs(ad - bd);
    double y = m + strided_log1pexp_neg(d);
    y = a == b ? ad + 0.69314718055994530942 : y;       /* equal, infinities included */
    return (a != a || b != b) ? a + b : (float)y;
}

/* Note [softplus in float lanes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * float32 softplus was strided_vlogaddexpf(x, 0): double lanes, exp and log in double, 0.50 ulp,
 * 0.83-0.87x PyTorch's speed at x86-64-v3. In float lanes: softplus(x) = max(x, 0) + log1p(e),
 * e = exp(-|x|) <= 1 (strided_expf: no overflow, the subnormal tail rounded once); log1p(e) =
 * log(u) + c, u = 1 + e and c = (e - (u - 1)) / u its rounding error over u (u - 1 is exact
 * for u in [1, 2]), by strided_logf_plus, or e itself below 2^-26, where log1p(e) rounds to e.
 * Every float32: 1.66 ulp at v3, 1.66 without FMA (v2) (exp's error passes through for x < 0,
 * where softplus is about e). inf, -inf, -0 need nothing else; NaN is selected through. The
 * loop alone, 1e6 float32 from [-30, 30], 1 thread, AMD EPYC with AVX-512 (the machine
 * loaded): x86-64-v3 5.4 -> 1.75 ms, v4 1.55 -> 0.89 ms, v2 27 -> 13 ms; bench_transcendental.py
 * --only softplus --rounds 7 --threads 1 at v3: 0.83-0.87x -> 1.54x PyTorch's AVX2 build. */
STRIDED_VINLINE float strided_vsoftplusf(float x) {
    float a = fabsf(x);
    float e = strided_expf(-a);                    /* (0, 1]; NaN stays NaN */
    float u = 1.0f + e;
    float c = (e - (u - 1.0f)) / u;
    float l = e < 0x1p-26f ? e : strided_logf_plus(u, c);
    return x != x ? x : (x > 0.0f ? x : 0.0f) + l;
}

STRIDED_VINLINE int strided_vatan2f_hard(float y, float x) {
    uint32_t by, bx;
    memcpy(&by, &y, sizeof by);
    memcpy(&bx, &x, sizeof bx);
    by &= 0x7fffffffu;
    bx &= 0x7fffffffu;
    return (by >= 0x7f800000u) | (bx >= 0x7f800000u) | ((by | bx) == 0);
}

STRIDED_VINLINE float strided_vatan2f(float y, float x) {
    double ay = fabs((double)y), ax = fabs((double)x);
    int swap = ay > ax;
    double num = swap ? ax : ay, den = swap ? ay : ax;
    double r = strided_atan01(num / strided_blend64(den == 0.0, 1.0, den));
    r = swap ? 1.57079632679489661923 - r : r;
    uint32_t bx;
    memcpy(&bx, &x, sizeof bx);
    r = (bx >> 31) ? 3.14159265358979323846 - r : r;
    return (float)copysign(r, (double)y);
}

/* b whole, and *odd: rint(b) == b, and b / 2 not whole (b / 2 is exact but for subnormal b,
 * which is not whole; from 2^24 on every float is even); NaN is not whole */
STRIDED_VINLINE int strided_vpowf_whole(float b, int* odd) {
    float h = 0.5f * b;
    int whole = rintf(b) == b;
    *odd = whole & (rintf(h) != h);
    return whole;
}

/* the arguments pow's vector code does not take: a zero or not finite, a negative a with a b
 * that is not an integer, b not finite */
STRIDED_VINLINE int strided_vpowf_bad(float a, float b) {
    uint32_t ba, bb;
    int odd;
    memcpy(&ba, &a, sizeof ba);
    memcpy(&bb, &b, sizeof bb);
    int whole = strided_vpowf_whole(b, &odd);
    return ((ba & 0x7fffffffu) - 1 >= 0x7f7fffffu) | ((bb & 0x7fffffffu) >= 0x7f800000u) |
           ((int)(ba >> 31) & !whole);
}

/* the fix-up condition: a vector result y of 0 (strided_vpowf's mark for the arguments it does
 * not take) or one that overflowed or is subnormal (the C library raises overflow and underflow
 * as NumPy's powf does; the lanes' flags for these are not to be trusted: a lane clamped far
 * past the overflow gave inf without the flag). (Testing the arguments again here, now that a
 * negative base's test has an exponent's parity in it, cost 60% of the loop's time at
 * x86-64-v4.) */
STRIDED_VINLINE int strided_vpowf_hard(float a, float b, float y) {
    uint32_t by;
    (void)a;
    (void)b;
    memcpy(&by, &y, sizeof by);
    by = (by >> 23) & 0xffu;
    return (by == 0) | (by == 0xffu);
}

/* 2^t to be rounded to float: 2^n 2^r, n = round(t), r = t - n exact, 2^r by a degree-7 fit
 * (Chebyshev least squares on [-1/2, 1/2]: 5.6e-11 relative); t clamped to [-160, 160], past
 * which the float result is 0 or inf anyway (2^n then a normal double: one rounding, to float) */
STRIDED_VINLINE double strided_exp2_for_float(double t) {
    double tc = t > 160.0 ? 160.0 : (t < -160.0 ? -160.0 : t);
    double n = (tc + 6755399441055744.0) - 6755399441055744.0;
    double r = tc - n;
    double p = 1.5310087504161676e-05;
    p = p * r + 0.0001546974023763099;
    p = p * r + 0.0013333450535738338;
    p = p * r + 0.009618025577150822;
    p = p * r + 0.05550410941247383;
    p = p * r + 0.24022651213788893;
    p = p * r + 0.6931471805459062;
    p = p * r + 0.999999999959527;
    return p * strided_pow2_of(n);
}

/* log2(x) for x a positive normal double, to 2^-37 relative, for a float result (pow's): x = 2^k
 * m, m in [sqrt(2)/2, sqrt(2)), s = (m - 1) / (m + 1), log2(m) = s P(s^2), P of degree 4
 * fitted to 2 atanh(s) / (s ln 2) (Chebyshev interpolation in mpmath) */
STRIDED_VINLINE double strided_log2_for_float(double x) {
    uint64_t ix = strided_bits64(x) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL);
    double k = strided_from_bits64(0x4330000000000000ULL | (ix >> 52))
               - (4503599627370496.0 + 1023.0);
    double f = strided_from_bits64((ix & 0x000fffffffffffffULL) + 0x3fe6a09e00000000ULL) - 1.0;
    double d = 2.0 + f;
    double s = f / d;             /* (a double division: 20% faster here than a float one, its
                                   * conversions and a Newton step) */
    double z = s * s;
    double p = 0.3407186665934361;
    p = p * z + 0.41167342520224887;
    p = p * z + 0.5770835713773625;
    p = p * z + 0.96179667342523;
    p = p * z + 2.8853900817900064;
    return k + s * p;
}

/* |a|'s power, with a's sign for an odd b (a negative a with an integer b) */
STRIDED_VINLINE float strided_vpowf(float a, float b) {
    int hard = strided_vpowf_bad(a, b), odd;
    (void)strided_vpowf_whole(b, &odd);
    double ad = strided_blend64(hard, 2.0, fabs((double)a));
    double bd = strided_blend64(hard, 1.0, (double)b);
    float y = (float)strided_exp2_for_float(bd * strided_log2_for_float(ad));
    uint32_t ba, by;
    memcpy(&ba, &a, sizeof ba);
    memcpy(&by, &y, sizeof by);
    by = hard ? 0u : by | (ba & ((uint32_t)odd << 31));  /* 0: for the fix-up pass */
    memcpy(&y, &by, sizeof y);
    return y;
}

/* pow in float64 (Note [Vectorised binary functions]) */
/* log(x) = hi + *lo for x a positive normal double, within 2^-64 relative: x = 2^k m with m in
 * [sqrt(2)/2, sqrt(2)) as in strided_vlog_core, s = (m - 1) / (m + 1) as s + s_lo (the
 * division's residual), and log(m) = 2 atanh(s) = 2s + s^3 (2/3 + z Q(z)), z = s^2 (|s| <=
 * 0.1716), Q of degree 7 fitted to (2 atanh(s) - 2s - 2s^3/3) / s^5 (Chebyshev interpolation
 * in mpmath: 2^-53.8 relative). s^2, s^3 and s^3 (2/3 + z Q) are products kept with their
 * rounding errors (strided_residual), 2/3 is a double and its tail, the sums are Fast2Sums:
 * only z Q(z), at most 1/56 of 2/3 + z Q(z), is a plain double. k ln 2 in two parts. */
STRIDED_VINLINE double strided_log_parts(double x, double* lo) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double c3_hi = 0.6666666666666666, c3_lo = 3.700743415417188e-17;   /* 2/3 */
    uint64_t jx = strided_bits64(x) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL);
    double k = strided_from_bits64(0x4330000000000000ULL | (jx >> 52))
               - (4503599627370496.0 + 1023.0);
    double f = strided_from_bits64((jx & 0x000fffffffffffffULL) + 0x3fe6a09e00000000ULL) - 1.0;
    double D = 2.0 + f;
    double D_lo = (2.0 - D) + f;                      /* Fast2Sum: m + 1 = D + D_lo */
    double rD = 1.0 / D;
    double s = f * rD;
    double s_lo = (strided_residual(f, s, D) - s * D_lo) * rD;
    double z = s * s;
    double z_lo = -strided_residual(z, s, s) + 2.0 * (s * s_lo);
    double q = 0.11723454509771833;
    q = q * z + 0.11706209953550313;
    q = q * z + 0.13334805679298412;
    q = q * z + 0.1538459494439715;
    q = q * z + 0.18181818335562422;
    q = q * z + 0.22222222221655138;
    q = q * z + 0.2857142857142937;
    q = q * z + 0.4;
    double zq = z * q;
    double c = c3_hi + zq;                            /* 2/3 + z Q, and its tail */
    double c_lo = ((c3_hi - c) + zq) + (c3_lo + z_lo * q);
    double p = s * z;                                 /* s^3 */
    double p_lo = -strided_residual(p, s, z) + (s * z_lo + s_lo * z);
    double h = p * c;
    double h_lo = -strided_residual(h, p, c) + (p * c_lo + p_lo * c);
    double two_s = 2.0 * s;
    double g = two_s + h;                             /* Fast2Sum: |2s| > 100 |h| */
    double g_lo = ((two_s - g) + h) + (2.0 * s_lo + h_lo);
    double kh = k * ln2_hi;                           /* exact */
    double L = kh + g;                                /* Fast2Sum: k = 0 or |k ln 2| > |g| */
    *lo = ((kh - L) + g) + (g_lo + k * ln2_lo);
    return L;
}

/* the fix-up condition: a vector result of 0 (strided_vpow's mark for the arguments it does not
 * take and for results beyond its range), or subnormal, inf or NaN: an exponent field of 0 or
 * 0x7ff, as the sign bit of (e - 1) | (e + 1), without a compare (the loop sums the
 * conditions, and a compare's mask made into a 64-bit integer per lane cost a fifth of pow's
 * time) */
STRIDED_VINLINE int strided_vpow_hard(double a, double b, double y) {
    uint64_t e = strided_bits64(y) & 0x7ff0000000000000ULL;
    (void)a;
    (void)b;
    return (int)(((e - 0x0010000000000000ULL) | (e + 0x0010000000000000ULL)) >> 63);
}

STRIDED_VINLINE double strided_vpow(double a, double b) {
    uint64_t aa = strided_bits64(a) & 0x7fffffffffffffffULL;
    uint64_t ab = strided_bits64(b) & 0x7fffffffffffffffULL;
    /* b is 0 or |b| in [2^-80, 2^64] (beyond, b log|a| could overflow or underflow; such a b
     * gives 1, 0, inf or NaN) */
    int b_ok = (ab - 0x3af0000000000000ULL <= 0x43f0000000000000ULL - 0x3af0000000000000ULL) |
               (ab == 0);
    double y = strided_blend64(b_ok, b, 1.0);
    /* y whole and odd: w = |y| + 2^52 rounds |y| < 2^52 to an integer in w's last bits */
    double ay = fabs(y);
    double w = ay < 0x1p52 ? ay + 0x1p52 : ay;
    int whole = (ay >= 0x1p52) | ((w - 0x1p52) == ay);
    /* (32-bit ints: with them GCC takes 16 lanes a step, two vectors side by side, whose
     * independent chains hide each other's latency: 15% faster than 64-bit masks at 8 lanes) */
    int odd = whole & (ay < 0x1p53) & (int)(strided_bits64(w) & 1);
    int neg = (int)(strided_bits64(a) >> 63);
    /* for the C library: a zero, subnormal, inf or NaN, b not as above, a negative a with a b
     * that is not an integer (NaN, "invalid") */
    int bad = (aa - 0x0010000000000000ULL >= 0x7ff0000000000000ULL - 0x0010000000000000ULL) |
              !b_ok | (neg & !whole);
    double x = strided_blend64(bad, 2.0, strided_from_bits64(aa));
    double L_lo;
    double L = strided_log_parts(x, &L_lo);
    double T = y * L;                                 /* y log|a| = T + T_lo */
    double T_lo = -strided_residual(T, y, L) + y * L_lo;
    int in = (T > -708.0) & (T < 709.0);              /* a normal result */
    double k, t;
    double s = strided_exp_parts(in ? T : 0.0, in ? T_lo : 0.0, &k, &t);
    double v = in ? (s + t) * strided_pow2_of(k) : 0.0;
    v = strided_blend64(bad, 0.0, v);                 /* 0: for the fix-up pass */
    return strided_from_bits64(strided_bits64(v) | ((uint64_t)(odd & neg) << 63));
}

/* atan2 in float64 (Note [Vectorised binary functions]) */
STRIDED_VINLINE int strided_vatan2_hard(double y, double x) {
    uint64_t by = strided_bits64(y) & 0x7fffffffffffffffULL, bx = strided_bits64(x) & 0x7fffffffffffffffULL;
    uint64_t m = by > bx ? by : bx;
    /* the larger of |y|, |x| from 2^990 on (inf and NaN too), or both zero */
    return (m >= 0x7dd0000000000000ULL) | (m == 0);
}
STRIDED_VINLINE double strided_vatan2(double y, double x) {
    const double hi0 = 4.63647609000806093515e-01, hi1 = 7.85398163397448278999e-01;
    const double lo0 = 2.26987774529616870924e-17, lo1 = 3.06161699786838301793e-17;
    const double pio2_hi = 1.57079632679489655800e+00, pio2_lo = 6.12323399573676603587e-17;
    const double pi_hi = 3.14159265358979311600e+00, pi_lo = 1.22464679914735317720e-16;
    double ay = fabs(y), ax = fabs(x);
    int swap = ay > ax;
    double num = swap ? ax : ay, den = swap ? ay : ax;
    double sc = (num < 0x1p-900 && den < 0x1p800) ? 0x1p100 : 1.0;
    num *= sc;
    den *= sc;
    double rden = 1.0 / den;
    double t = num * rden;
    double t_lo = strided_residual(num, t, den) * rden;
    int b0 = t >= 0.4375, b1 = t >= 0.6875;
    double A = b1 ? 1.0 : (b0 ? 2.0 : 1.0);
    double B = b0 ? 1.0 : 0.0;
    double N = A * t - B;                          /* exact in its band */
    double D = A + B * t;
    double D_lo = (A - D) + B * t;                 /* Fast2Sum: A >= B t */
    double rD = 1.0 / D;
    double u = N * rD;
    double u_lo = (strided_residual(N, u, D) + (A * t_lo - u * (D_lo + B * t_lo))) * rD;
    double hi = b1 ? hi1 : (b0 ? hi0 : 0.0);
    double lo = b1 ? lo1 : (b0 ? lo0 : 0.0);
    double tail = lo + u_lo - u * strided_atan_odd(u);   /* atan(t + t_lo) = hi + u + tail */
    int neg = (strided_bits64(x) >> 63) != 0;
    double K_hi = swap ? pio2_hi : (neg ? pi_hi : 0.0);
    double K_lo = swap ? pio2_lo : (neg ? pi_lo : 0.0);
    double s = (neg != swap) ? -1.0 : 1.0;
    double S1, e1, S2, e2;
    STRIDED_TWO_SUM(K_hi, s * hi, S1, e1);
    STRIDED_TWO_SUM(S1, s * u, S2, e2);
    double v = S2 + ((e1 + e2) + (K_lo + s * tail));
    return copysign(v, y);
}
/* logaddexp in float64 (Note [Vectorised binary functions]) */
/* Note [logaddexp's latency]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The float64 logaddexp loop is vectorised (8 lanes at x86-64-v4, 4 at v3) and has no slow
 * path: infinities, NaN and a == b are selects in every lane, with no fix-up pass. It was
 * 0.87x PyTorch's speed for another reason: its ~180 instructions per vector form one chain
 * of dependent steps (a - b, exp's reduction and polynomial, 1 + e^d, log's division and
 * polynomials, the last sums), longer than the core can overlap with the next vector's, so the
 * loop ran at the chain's latency, not at the machine's throughput (perf: 2 instructions a
 * cycle, the samples on the instructions waiting for the divide and the polynomial). Three
 * steps shorten the chain, none loses accuracy:
 *   - exp's polynomial (strided_expm1_tail_of, reduced: degree 11) by Estrin's scheme: the
 *     pairs c_i + c_{i+1} u, then u^2, u^4, u^8 combine them, 4 multiply-adds deep instead of
 *     11 (Horner); the extra roundings are of terms below u^3 / 6 of e^d (2^-59 of it);
 *   - the second division per element, U_lo / U in strided_log1_dd, went: the tail needs
 *     little of 1 / U (an error r in it moves the result by |U_lo| r <= 2^-52 r), so it is
 *     1 / (1 + f) = (1 - s) / (1 + s) = 1 - 2s (1 - s + s^2 - s^3 + s^4) from the s at hand
 *     (|s| <= 0.172: r <= 2 s^6 = 6e-5, 1e-20 of the result), halved where U was;
 *   - 1 + e^d by Fast2Sum (1 >= e^d), 3 additions instead of TwoSum's 6.
 * Measured (1e6 float64 a, b of both signs, |.| in [4.5e-5, 50], out=, medians of 7 rounds
 * alternated with PyTorch 2.14 in one process, 2-core AMD EPYC; before and after are separate
 * runs; PyTorch at v3 is its AVX2 build (ATEN_CPU_CAPABILITY=avx2), its AVX-512 one being
 * 3.1 ms):
 *   | level, threads | before        | after         | PyTorch       | after / PyTorch speed |
 *   | v4, 1          | 3.48 ms (±7%) | 2.96 ms (±3%) | 3.07 ms (±8%) | 1.04 (was 0.89)       |
 *   | v3, 1          | 7.17 ms (±2%) | 6.03 ms (±2%) | 6.20 ms       | 1.03                  |
 * At 2 threads the second core was busy with other work during the after runs (spreads of
 * 10-40%): v4 3.75 ms against PyTorch's 3.56 (0.95x; before, with the core free, 1.76 against
 * 1.54: 0.87x), v3 6.89 against PyTorch's AVX2 6.83 (0.99x; 1.05x in a second run).
 * python benchmarks/bench_transcendental.py --only logaddexp --rounds 7 --threads 1 (or 2),
 * with STRIDED_CPU_FEATURES=x86-64-v3 (and ATEN_CPU_CAPABILITY=avx2) for v3. */

/* log(U + U_lo) for U in [1, 2], |U_lo| <= ulp(U), as hi + *lo: strided_vlog_core's steps
 * (musl's log2 split: hi = f - f^2/2 cut to 32 bits, so k ln2_hi + hi is exact) with the
 * rounding errors of f^2/2, s = f / (2 + f) and s (f^2/2 + R) kept (residuals and TwoSum);
 * U_lo / U without a division (Note [logaddexp's latency]) */
STRIDED_VINLINE double strided_log1_dd(double U, double U_lo, double* lo_out) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
                 Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
                 Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                 Lg7 = 1.479819860511658591e-01;
    int big = U >= 1.4142135623730951;
    double k = big ? 1.0 : 0.0;
    double f = (big ? 0.5 * U : U) - 1.0;                    /* exact */
    double hfsq = 0.5 * f * f;
    double hfsq_lo = -strided_residual(hfsq, 0.5 * f, f);   /* 0.5 f^2 = hfsq + hfsq_lo */
    double D = 2.0 + f;
    double D_lo = (2.0 - D) + f;
    double rD = 1.0 / D;
    double s = f * rD;
    double s_lo = (strided_residual(f, s, D) - s * D_lo) * rD;
    double z = s * s, w = z * z;
    double c = (big ? 0.5 * U_lo : U_lo) * (1.0 - 2.0 * s * ((1.0 - s) + z * ((1.0 - s) + z)));
    double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
    double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
    double R = t2 + t1;
    double g, g_err;
    STRIDED_TWO_SUM(hfsq, R, g, g_err);
    double sg = s * g;
    double sg_lo = -strided_residual(sg, s, g);              /* s g = sg + sg_lo */
    double hi = f - hfsq;
    hi = strided_from_bits64(strided_bits64(hi) & 0xffffffff00000000ULL);
    double lo = ((f - hi) - hfsq) + sg + ((((sg_lo + s * g_err) + s_lo * g) - hfsq_lo) + c +
                                          k * ln2_lo);
    *lo_out = lo;
    return k * ln2_hi + hi;
}
STRIDED_VINLINE double strided_vlogaddexp(double a, double b) {
    double m = a > b ? a : b;
    double dh, dl;
    STRIDED_TWO_SUM(a, -b, dh, dl);
    int pos = dh > 0.0;
    dh = pos ? -dh : dh;
    dl = pos ? -dl : dl;
    int far = !(dh > -746.0);                      /* -inf and NaN too */
    dh = far ? -746.0 : dh;
    dl = far ? 0.0 : dl;
    double k, t;
    double s = strided_exp_parts(dh, dl, &k, &t);    /* e^d = 2^k (s + t) */
    double k1 = (k * 0.5 + 6755399441055744.0) - 6755399441055744.0;
    double p1 = strided_pow2_of(k1), p2 = strided_pow2_of(k - k1);
    double st = s + t;
    double st_lo = (s - st) + t;                   /* Fast2Sum: s >= 1/2 > |t| */
    double E = (st * p1) * p2, E_lo = (st_lo * p1) * p2;
    double U = 1.0 + E;
    double U_err = (1.0 - U) + E;                  /* Fast2Sum: 1 >= E */
    double L_lo;
    double L = strided_log1_dd(U, U_err + E_lo, &L_lo);
    /* e^d below 2^-36: log1p(E) = E - E^2/2 (E^3/3 is 2^-72 of it). Through log(1 + E), a
     * result that is E alone (m = 0: softplus(-36.6) = logaddexp(-36.6, 0)) was 1.06 ulp off
     * where E is near 2^-53 */
    int tiny = k < -36.0;
    L_lo = tiny ? E_lo - 0.5 * E * E : L_lo;
    L = tiny ? E : L;
    double y, y_err;
    STRIDED_TWO_SUM(m, L, y, y_err);
    y = far ? m + 0.0 : y + (y_err + L_lo);   /* far: e^d is nothing (m inf too; -0 + 0 = 0) */
    y = a == b ? a + 0.69314718055994530942 : y;
    return (a != a || b != b) ? a + b : y;
}

/* Note [softplus in float64]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * float64 softplus was strided_vlogaddexp(x, 0): 0.94x PyTorch's speed at x86-64-v4, 0.97x at
 * v3. With the zero known, softplus(x) = max(x, 0) + log1p(e^-|x|) is logaddexp's steps less
 * what the general b needs: no TwoSum of a - b (-|x| is exact), no tail in exp's reduction, no
 * a == b case. And |x| >= 700 (inf, NaN too) goes to the C library in the loop's fix-up pass
 * (Note [Fix-up passes] in unary.pyx.tp: x + log1p(exp(-x)) or log1p(exp(x)), whose exp is
 * within an ulp and log1p of it exact there): so here e^-|x| = 2^k (s + t) with k >= -1010,
 * 2^k one normal power (logaddexp scales by two, for subnormal e^d), and no selects for the far
 * tails and NaN. The same log(1 + E) in double-double (strided_log1_dd) and E itself below
 * 2^-36, as logaddexp's. 0.59 ulp on 24 million points against long double (logaddexp's path
 * 0.75, at -709, now the C library's). The loop alone, 1e6 float64 from [-30, 30], 1 thread:
 * x86-64-v4 2.73 -> 2.47 ms, v3 5.32 -> 5.14 ms; bench_transcendental.py --only softplus
 * --rounds 7 --threads 1: 1.37x PyTorch at v4 (1.88 ms, PyTorch 2.58), 1.17x at v3 (4.61 ms,
 * PyTorch's AVX2 build 5.41). */
STRIDED_VINLINE double strided_vsoftplus(double x) {
    double a = strided_from_bits64(strided_bits64(x) & 0x7fffffffffffffffULL);
    double m = x > 0.0 ? x : 0.0;
    double k, t;
    double s = strided_exp_parts(-a, 0.0, &k, &t);  /* e^-|x| = 2^k (s + t), k >= -1010 */
    double p = strided_pow2_of(k);
    double st = s + t;
    double st_lo = (s - st) + t;                   /* Fast2Sum: s >= 1/2 > |t| */
    double E = st * p, E_lo = st_lo * p;
    double U = 1.0 + E;
    double U_err = (1.0 - U) + E;                  /* Fast2Sum: 1 >= E */
    double L_lo;
    double L = strided_log1_dd(U, U_err + E_lo, &L_lo);
    int tiny = k < -36.0;                          /* log1p(E) = E - E^2/2, as logaddexp's */
    L_lo = tiny ? E_lo - 0.5 * E * E : L_lo;
    L = tiny ? E : L;
    double y, y_err;
    STRIDED_TWO_SUM(m, L, y, y_err);
    return y + (y_err + L_lo);
}
/* hypot in float32: sqrt(a^2 + b^2) in double, where the squares are exact and nothing
 * overflows or underflows, rounded once to float (0.50 ulp); an infinity wins over a NaN, as
 * C's hypot has it */
STRIDED_VINLINE float strided_vhypotf(float a, float b) {
    uint32_t ba, bb;
    memcpy(&ba, &a, sizeof ba);
    memcpy(&bb, &b, sizeof bb);
    double ad = (double)a, bd = (double)b;
    float y = (float)sqrt(ad * ad + bd * bd);
    int inf = ((ba & 0x7fffffffu) == 0x7f800000u) | ((bb & 0x7fffffffu) == 0x7f800000u);
    return inf ? INFINITY : y;
}

/* hypot in float64: the larger B and smaller S of |a|, |b| scaled by a power of 2 (2^-600 from
 * 2^500 on, 2^600 below 2^-500) so that nothing overflows or underflows that matters, B^2 + S^2
 * as a double and its tail (the squares' residuals, Fast2Sum), its square root r corrected by
 * one Newton step on the exact residual H - r^2 (strided_sqrt_dd's), the scale undone by a
 * multiply: 0.5 ulp and a little. An infinity wins over NaN (C's rule), both zero give 0. */
STRIDED_VINLINE double strided_vhypot(double a, double b) {
    double ax = fabs(a), ay = fabs(b);
    int swap = ay > ax;
    double big = swap ? ay : ax, small = swap ? ax : ay;
    double sc = big >= 0x1p500 ? 0x1p-600 : (big < 0x1p-500 ? 0x1p600 : 1.0);
    double B = big * sc, S = small * sc;
    double X = B * B, Y = S * S;
    double H = X + Y;
    double H_lo = ((X - H) + Y) - (strided_residual(X, B, B) + strided_residual(Y, S, S));
    double r_lo;
    double r = strided_sqrt_dd(strided_blend64(H == 0.0, 1.0, H), H_lo, &r_lo);
    double y = (r + r_lo) * (big >= 0x1p500 ? 0x1p600 : (big < 0x1p-500 ? 0x1p-600 : 1.0));
    y = H == 0.0 ? 0.0 : y;                        /* both zero (NaN is not) */
    int inf = (strided_bits64(ax) == 0x7ff0000000000000ULL) |
              (strided_bits64(ay) == 0x7ff0000000000000ULL);
    return inf ? INFINITY : y;
}

/* fdlibm's __kernel_tan (musl's __tan.c) with its branches as selects: tan of y0 + y1, |y0 + y1|
 * <= pi/4, or -1/tan for an odd quadrant. Above |y| = 0.6744 it works on pi/4 - |y| (tan(pi/4 -
 * z) = (1 - tan z) / (1 + tan z), written to keep the rounding small); -1/tan is a division
 * with its error corrected by the products of 32-bit heads. < 1 ulp in fdlibm's analysis. */
STRIDED_VINLINE double strided_ktan(double x, double y, int odd) {
    const double pio4 = 7.85398163397448278999e-01, pio4lo = 3.06161699786838301793e-17;
    int big = (strided_bits64(x) & 0x7fffffffffffffffULL) >= 0x3fe5942800000000ULL;
    int neg = x < 0.0;
    double xa = (big && neg) ? -x : x, ya = (big && neg) ? -y : y;
    double xb = big ? (pio4 - xa) + (pio4lo - ya) : xa;
    double yb = big ? 0.0 : ya;
    double z = xb * xb, w = z * z;
    double r = 1.33333333333201242699e-01 + w * (2.18694882948595424599e-02 +
               w * (3.59207910759131235356e-03 + w * (5.88041240820264096874e-04 +
               w * (7.81794442939557092300e-05 + w * -1.85586374855275456654e-05))));
    double v = z * (5.39682539762260521377e-02 + w * (8.86323982359930005737e-03 +
               w * (1.45620945432529025516e-03 + w * (2.46463134818469906812e-04 +
               w * (7.14072491382608190305e-05 + w * 2.59073051863633712884e-05)))));
    double s = z * xb;
    r = yb + z * (s * (r + v) + yb) + s * 3.33333333333334091986e-01;
    double t = xb + r;
    double sg = odd ? -1.0 : 1.0;
    double vbig = sg - 2.0 * (xb + (r - t * t / (t + sg)));
    vbig = neg ? -vbig : vbig;
    /* odd quadrant, small: -1 / (x + r) to within an ulp */
    double t0 = strided_from_bits64(strided_bits64(t) & 0xffffffff00000000ULL);
    double vv = r - (t0 - xb);                     /* t0 + vv = x + r */
    double a = -1.0 / t;
    double a0 = strided_from_bits64(strided_bits64(a) & 0xffffffff00000000ULL);
    double vodd = a0 + a * (1.0 + a0 * t0 + a0 * vv);
    return big ? vbig : (odd ? vodd : t);
}

STRIDED_VINLINE double strided_vtan(double x) {
    uint64_t q;
    double y1;
    double y0 = strided_rem_pio2(x, &y1, &q);
    double r = strided_ktan(y0, y1, (int)(q & 1));
    return fabs(x) < 0x1p-27 ? x : r;                       /* tiny: x, and -0 stays -0 */
}

#endif /* STRIDED_VECMATH_H */
