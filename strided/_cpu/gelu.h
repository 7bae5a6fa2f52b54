/* gelu and its derivative, both forms, one element at a time and written for the compiler to
 * vectorise (Note [Vectorised transcendental functions] in vecmath.h): the loops of
 * F.gelu's op in unary.pyx.tp (Note [gelu as one op] there) inline these.
 *
 * Note [gelu's lanes]
 * ~~~~~~~~~~~~~~~~~~~
 * gelu(x) = x Phi(x), Phi the standard normal CDF, Phi(x) = (1 + erf(x / sqrt 2)) / 2; its
 * derivative Phi(x) + x phi(x), phi(x) = exp(-x^2 / 2) / sqrt(2 pi). The tanh form replaces
 * Phi(x) by (1 + tanh(u)) / 2 = sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3).
 *
 * * float32, erf form: Phi(x) = 1/2 + x P(x^2) / Q(x^2), P of degree 6 and Q of degree 5
 *   (fitted once, weighted least squares iterated towards the minimax, on |x| <= 5.6: the
 *   fit's own error is 7e-10, under a tenth of an ulp of Phi near 1), and Phi = 1 or 0 beyond
 *   5.6, where 1 - Phi(5.6) = 1.1e-8 already rounds to 1. One division and eleven
 *   multiply-adds. The loop over erf (strided_verff) that this replaces was vectorised (zmm
 *   at x86-64-v4) and spent its time neither in the iterator nor in the allocation: erf
 *   itself computes two pieces, an exp and a division in every lane, 0.39 of the loop's
 *   0.43 ms (1e6 elements, 1 thread, the loop alone); this one takes 0.15, a copy 0.06.
 *   (PyTorch's float32 gelu does not call its erf, 2.5x slower than strided's, but oneDNN's
 *   kernel, a polynomial per interval: 0.22 ms, 0.34 with oneDNN switched off.) Error
 *   against float64 (x erfc(-x / sqrt 2) / 2, which does not cancel), every 7th and every 31st
 *   float32 of |x| < 8 (x86-64-v4; v2, without fused multiply-adds, in brackets): within 2.8
 *   [3.5] ulp of gelu for x >= 0; for x < 0, where 1/2 + x R cancels as 1 + erf does, within
 *   4.6 [5.7] ulp of |x| / 2, and of gelu itself not at all (the fit's error is absolute: 1e8
 *   ulp at x = -5.5). The ops' form ``x * 0.5 * (1 + erf(x / sqrt 2))``: 1.7 and 2.9;
 *   PyTorch's (its oneDNN kernel): 5.1 and 10.1, its own loop 9.8 and 9.9. Within 2 ulp of
 *   gelu itself needs exp(-x^2 / 2) G(|x|) for x < 0 (G a rational function, 1e-8 with degrees
 *   5 and 6), and that was measured at 3x this loop's time in float lanes (0.52 ms at v4, and
 *   5 ulp: the float Horner steps of G's numerator and denominator at |x| ~ 10), 4.5x in
 *   double lanes (0.77 ms, 0.64 ulp): 2.5x-3.5x PyTorch's time, so not done.
 * * float64, erf form: within 1 ulp of gelu itself, through erfc rather than erf: x erfc(a) / 2
 *   for x < 0 and x - x erfc(a) / 2 for x >= 0, a = |x| / sqrt 2. The ops' form x/2 (1 +
 *   erf(x / sqrt 2)) cancels for x < 0, where erf's error is of 1, not of the result (3 ulp of
 *   |x| / 2, but 3e14 ulp of gelu itself near x = -8, and more beyond). And a is not a double: a =
 *   ah + al, ah = |x| c rounded and al its error (by fma, Dekker's product at x86-64-v2) plus
 *   |x| c_lo, 1 / sqrt 2 = c + c_lo; erfc(ah) alone is off by 2 a^2 al / a, up to 1500 ulp at
 *   x = -38. vecmath.h's erfc takes al where a's first-order effect is (strided_erfc_parts: a^2's
 *   tail and a + 2's, which w, t and Q then carry; at v2 strided_erfc_big_parts: a^2's tail and
 *   M' al, M' = 2 a M - 2 / sqrt(pi), as the pieces' own F'(m) was 30% off M'(a) at a = 2.6)
 *   and gives its product unrounded, (qh + ql)(fh + fl) 2^(k - k1), x / 2 folded into 1 /
 *   (a + 2) exactly; fl holds exp's tail beyond 1 + u (6% of fh), so it is made a double and
 *   its error first (the low products' roundings otherwise cost 0.2 ulp). Then one rounding:
 *   for x < 0 of the sum (and into the subnormals by 2^(k - k1), from x = -37.5), for x >= 0
 *   of x - m by Fast2Sum (m <= x / 2). At v2, below erfc's pieces (a < 0.25): x / 2 + x erf(u)
 *   / 2, u = x / sqrt 2, erf(u) = u + u y(u^2) <= 0.28 (no cancellation), x uh / 2 exact.
 *   From |x| = 38.8 (a clamped there), gelu is x or x * 0 (-0; NaN for -inf, as the ops' form).
 *   Measured against tests/test_nn_functional.py's long double oracle (ld_gelu, within 0.06 ulp
 *   of mpmath at 50 digits), 5.8 million points (uniform on [-40, 40], N(0, 9), [-1, 1],
 *   [-40, -25] and a grid): 0.78 ulp at x86-64-v3 and v4, 0.75 at v2 (the worst near x =
 *   -37.6, results just below the least normal; elsewhere 0.73). The time is erfc's, ~1.8x
 *   erf's (Note [gelu as one op]'s table).
 * * The tanh form: x sigmoid(2u), without the cancellation that 1 + tanh(u) has for x < 0,
 *   sigmoid from e = exp(-|2u|) as in Note [sigmoid from exp(-|x|)] (scalar_math.h);
 *   float32's result is set to x * 0 below x = -12, where it rounds to -0 (e is kept from
 *   2^-104 on). Within 2.4 ulp in float32, 3 in float64 (x < 0: of |x| / 2).
 * * The derivatives: the same Phi plus x phi(x) (phi by strided_expf's steps, or strided_exp),
 *   or s + x 2 s (1 - s) u' for the tanh form, s (1 - s) = e / (1 + e)^2 (1 - s cancels where
 *   s rounds to 1). Within 1.8 ulp of 1 (their scale) in float32 (2.0 at x86-64-v2), and for
 *   float64's erf form 1.32 against the long double oracle (float64's tanh form: 2 against a
 *   float64 reference, whose own error is part of it).
 * NaN goes through every step; inf gives inf, -inf NaN (x * 0), as the ops' form does. */
#ifndef STRIDED_GELU_H
#define STRIDED_GELU_H

#include "vecmath.h"

#define STRIDED_GELU_CUT 5.6f
#define STRIDED_INV_SQRT_2PI 0.39894228040143267794
#define STRIDED_SQRT_2_OVER_PI 0.79788456080286535588

/* Phi(x) in float lanes for |x| <= 5.6, 1 or 0 beyond (NaN: 0, and x * 0 is NaN) */
STRIDED_VINLINE float strided_vphif(float x) {
    float xc = x > STRIDED_GELU_CUT ? STRIDED_GELU_CUT : x;
    xc = xc < -STRIDED_GELU_CUT ? -STRIDED_GELU_CUT : xc;
    float s = xc * xc;
    float p = -7.467311491371476e-11f;
    p = p * s + 5.250287671287879e-08f;
    p = p * s + 8.433140465058386e-06f;
    p = p * s + 0.00016955244063865393f;
    p = p * s + 0.004800260532647371f;
    p = p * s + 0.03265290707349777f;
    p = p * s + 0.3989422917366028f;
    float q = 1.9918952602893114e-06f;
    q = q * s + 8.172284287866205e-05f;
    q = q * s + 0.0019304730230942369f;
    q = q * s + 0.028451478108763695f;
    q = q * s + 0.24851547181606293f;
    q = q * s + 1.0f;
    float phi = 0.5f + xc * (p / q);
    phi = x > STRIDED_GELU_CUT ? 1.0f : phi;
    return x < -STRIDED_GELU_CUT ? 0.0f : phi;
}

STRIDED_VINLINE float strided_vgeluf(float x) {
    return x * strided_vphif(x);
}

/* phi(x) sqrt(2 pi) = exp(-x^2 / 2): strided_expf's steps without its guards, as the argument
 * is <= 0, clamped at -87 (a normal 2^n, one scale); 0 from x^2 = 174 on, where x phi(x) is
 * below 1e-36 (NaN goes through: its compares are false) */
STRIDED_VINLINE float strided_gelu_pdff(float x) {
    float s = x * x;
    float a = -0.5f * s;
    a = a < -87.0f ? -87.0f : a;
    float fn = (a * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = (a - fn * 0.693359375f) - fn * -2.12194440e-4f;
    float e = strided_expf_reduced(r) * strided_pow2if((int32_t)fn);
    return s > 174.0f ? 0.0f : e * (float)STRIDED_INV_SQRT_2PI;
}

STRIDED_VINLINE float strided_vgelu_gradf(float x) {
    return strided_vphif(x) + x * strided_gelu_pdff(x);
}

/* gelu(x) in float64 (Note [gelu's lanes]): x erfc(a) / 2 for x < 0 and x - x erfc(a) / 2
 * for x >= 0, a = |x| / sqrt 2 = ah + al, each rounded once. |x| is clamped at 38.8 on its
 * bits (38.8 / sqrt 2 < erfc's 27.5, where erfc(a) x / 2 is below half the least subnormal);
 * from there gelu is x, or x * 0 (-0, and NaN for -inf, as the ops' form) */
#define STRIDED_GELU_FAR 38.8
#define STRIDED_GELU_FAR_BITS 0x4043666666666666LL                             /* 38.8 */
#define STRIDED_INV_SQRT_2_HI 0.70710678118654757
#define STRIDED_INV_SQRT_2_LO -4.8336466567264567e-17  /* 1 / sqrt 2 - the double above */

STRIDED_VINLINE double strided_gelu_far(double x, double y) {
    double far = x > 0.0 ? x : x * 0.0;
    y = fabs(x) >= STRIDED_GELU_FAR ? far : y;
    return x == 0.0 ? x : y;                                /* -0 stays -0 */
}

/* x - m for x >= 0, x m for x < 0, m = mh + ml = erfc(a) x / 2 unrounded (and for x < 0 then
 * scaled by `scale`, a power of 2, into the subnormals): one rounding each (x - mh by
 * Fast2Sum, mh <= x / 2) */
STRIDED_VINLINE double strided_gelu_from_tail(double x, double mh, double ml, double scale) {
    double neg = (mh + ml) * scale;
    double s = x - mh;
    double pos = s + (((x - s) - mh) - ml);
    return x < 0.0 ? neg : pos;
}

#if defined(__FMA__) || defined(__aarch64__)
STRIDED_VINLINE double strided_vgelu(double x) {
    int64_t bb = (int64_t)strided_bits64(fabs(x));
    bb = bb > STRIDED_GELU_FAR_BITS ? STRIDED_GELU_FAR_BITS : bb;
    double b = strided_from_bits64((uint64_t)bb);
    double ah = b * STRIDED_INV_SQRT_2_HI;
    double al = fma(b, STRIDED_INV_SQRT_2_HI, -ah) + b * STRIDED_INV_SQRT_2_LO;
    double qh, ql, fh, fl, two_kk;
    strided_erfc_parts(ah, al, 1, 0.5 * x, &qh, &ql, &fh, &fl, &two_kk);
    /* erfc(a) x / 2 = (qh + ql) (gh + gl) 2^(k - k1): fl holds exp's tail beyond 1 + u (up to
     * 6% of fh), so G = F is made a double and its error first (Fast2Sum), or the roundings of
     * the low terms below cost 0.2 ulp */
    double gh = fh + fl, gl = (fh - gh) + fl;
    double mh = qh * gh, ml = fma(qh, gh, -mh) + (qh * gl + ql * gh);
    return strided_gelu_far(x, strided_gelu_from_tail(x, mh, ml, two_kk));
}
#else
STRIDED_VINLINE double strided_vgelu(double x) {
    int64_t bb = (int64_t)strided_bits64(fabs(x));
    bb = bb > STRIDED_GELU_FAR_BITS ? STRIDED_GELU_FAR_BITS : bb;
    double b = strided_from_bits64((uint64_t)bb);
    double ah = b * STRIDED_INV_SQRT_2_HI;
    double al = -strided_residual(ah, b, STRIDED_INV_SQRT_2_HI) + b * STRIDED_INV_SQRT_2_LO;
    double hx = 0.5 * x;
    /* a >= 0.25: erfc(a) = (y0 + y_lo) 2^k (Note [erf and erfc in float64]) */
    double y_lo, k;
    double y1 = strided_erfc_big_parts(ah, al, 1, &y_lo, &k);
    double y0 = y1 + y_lo;                          /* y_lo holds exp's tail too: Fast2Sum */
    y_lo = (y1 - y0) + y_lo;
    double k1 = (k * 0.5 + 6755399441055744.0) - 6755399441055744.0;
    double s1 = strided_pow2_of(k1), s2 = strided_pow2_of(k - k1);
    double ph = hx * y0, pl = -strided_residual(ph, hx, y0) + hx * y_lo;
    double sc = x < 0.0 ? 1.0 : s2;                 /* x >= 0: scaled now, x < 0: at the end */
    double big = strided_gelu_from_tail(x, (ph * s1) * sc, (pl * s1) * sc, s2);
    /* a < 0.25: x / 2 + x erf(u) / 2, u = x / sqrt 2 = uh + ul, erf(u) = uh + (ul + u y(u^2)),
     * |erf| <= 0.28: x uh / 2 exact (Dekker) and the sums by Fast2Sum, then one rounding */
    double uh = x < 0.0 ? -ah : ah, ul = x < 0.0 ? -al : al;
    double el = ul + uh * strided_erf_y(uh * uh);
    double p = hx * uh, p_lo = -strided_residual(p, hx, uh);
    double sh = hx + p;
    double small = sh + ((((hx - sh) + p) + p_lo) + hx * el);
    return strided_gelu_far(x, ah < 0.25 ? small : big);
}
#endif

STRIDED_VINLINE double strided_vgelu_grad(double x) {
    double cdf = 0.5 * (1.0 + strided_verf(x * 0.70710678118654752440));
    return cdf + x * (strided_exp(-0.5 * (x * x)) * STRIDED_INV_SQRT_2PI);
}

/* The tanh form's s = sigmoid(v), v = 2u, and in *ds its derivative 2 s (1 - s) u': with
 * e = exp(-|v|) <= 1 (strided_sigmoidf's steps, Note [sigmoid from exp(-|x|)]), s = (v < 0 ? e :
 * 1) / (1 + e) and s (1 - s) = e / (1 + e)^2, which 1 - s would lose where s rounds to 1
 * (16 ulp of the gradient at x = 5). s is 0 below x = -12; ds is 0 where |v| >= 104 (e is
 * clamped there; u' might be inf), and not computed where ds is NULL (the forward). */
STRIDED_VINLINE float strided_gelu_tanh_sf(float x, float* ds) {
    const float k = (float)STRIDED_SQRT_2_OVER_PI, c = 0.044715f;
    float sq = x * x;
    float v = 2.0f * (k * (x + c * (x * sq)));
    float a = fabsf(v);
    float xc = a > 104.0f ? -104.0f : -a;
    float fn = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    int32_t n = (int32_t)fn, n1 = n >> 1;
    float r = (xc - fn * 0.693359375f) - fn * -2.12194440e-4f;
    float e = strided_expf_reduced(r) * strided_pow2if(n1) * strided_pow2if(n - n1);
    float q = 1.0f / (1.0f + e);
    if (ds) {
        float d = (2.0f * e) * (q * q) * (k * (1.0f + (3.0f * c) * sq));
        *ds = a >= 104.0f ? 0.0f : d;
    }
    float sg = (v < 0.0f ? e : 1.0f) * q;
    return x < -12.0f ? 0.0f : sg;
}

STRIDED_VINLINE float strided_vgelu_tanhf(float x) { return x * strided_gelu_tanh_sf(x, NULL); }

STRIDED_VINLINE float strided_vgelu_tanh_gradf(float x) {
    float ds, s = strided_gelu_tanh_sf(x, &ds);
    return s + x * ds;
}

/* float64's: strided_exp(-|v|) (0 from |v| = 745 on, so no clamp), the rest as float32's */
STRIDED_VINLINE double strided_gelu_tanh_s(double x, double* ds) {
    const double k = STRIDED_SQRT_2_OVER_PI, c = 0.044715;
    double sq = x * x;
    double v = 2.0 * (k * (x + c * (x * sq)));
    double e = strided_exp(-fabs(v));
    double q = 1.0 / (1.0 + e);
    if (ds) {
        double d = (2.0 * e) * (q * q) * (k * (1.0 + (3.0 * c) * sq));
        *ds = e == 0.0 ? 0.0 : d;
    }
    return (v < 0.0 ? e : 1.0) * q;
}

STRIDED_VINLINE double strided_vgelu_tanh(double x) { return x * strided_gelu_tanh_s(x, NULL); }

STRIDED_VINLINE double strided_vgelu_tanh_grad(double x) {
    double ds, s = strided_gelu_tanh_s(x, &ds);
    return s + x * ds;
}

#endif /* STRIDED_GELU_H */
