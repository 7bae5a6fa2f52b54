// The log and sincos of the Box-Muller transform (Note [Box-Muller] in strided/_cpu/random.pyx.tp),
// shared by the CPU kernels (strided/_cpu/random_lanes.h) and the CUDA ones (random.cu), so
// that both compute the same normals from the same random words.
//
// Note [Box-Muller math that vectorises]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A libm's log, sin and cos are scalar calls with branches for every range of argument: in the
// float64 normal draw they cost two thirds of the time, and no loop around them vectorises.
// Box-Muller needs far less than a libm: log on (0, 1], and sin and cos of 2 pi u2 where u2 is
// a 53-bit fraction of a turn. So the functions here are branch-free straight-line code, which
// the compiler turns into SIMD over the lanes of strided/_cpu/random_lanes.h:
//
// - log is fdlibm's (musl's log.c before 2018): x = 2**k m with m in [sqrt(2)/2, sqrt(2)), found
//   by integer operations on the bits; log(m) = 2 atanh(f / (2 + f)) with f = m - 1, a degree-14
//   odd polynomial; error below 1 ulp.
// - sin and cos take the angle as an integer v of 2**-53 turns (the uniform's 53 bits), so the
//   argument reduction is exact integer arithmetic: the quadrant q = round(4 v / 2**53) and the
//   rest r = v - q 2**51, |r| <= 2**50, then x = 2 pi r 2**-53 (one rounding) in [-pi/4, pi/4],
//   where fdlibm's kernels (musl's __sin and __cos) take over; a swap and two signs place the
//   quadrant. Errors about 1 ulp, and more exact near the zeros than sin(2 pi u2) with 2 pi u2
//   rounded first.
//
// Bit for bit on every target: every a * b + c is spelled fma(a, b, c), and no sum has a bare
// product as an operand, so a compiler that fuses multiply-adds (gcc -march=native on the CPU,
// nvcc) finds nothing to fuse and one that does not (the CUDA emulator's baseline x86-64)
// computes the same roundings; the int-to-double conversions are the exact "magic number" ones
// (an integer below 2**51 placed in the mantissa of 1.5 * 2**52, minus 1.5 * 2**52), which need
// no conversion instruction (AVX2 has none for 64-bit integers). So the CPU, a GPU and the
// emulator give the same normals, which tests/test_cuda.py checks.
#pragma once

#ifndef STRIDED_HD
#define STRIDED_HD static inline
#endif

STRIDED_HD double strided_bm_from_bits(uint64_t b) {
    union { uint64_t i; double d; } u;
    u.i = b;
    return u.d;
}

STRIDED_HD uint64_t strided_bm_to_bits(double d) {
    union { uint64_t i; double d; } u;
    u.d = d;
    return u.i;
}

// An integer |r| < 2**51 as a double, exactly.
STRIDED_HD double strided_bm_i2d(int64_t r) {
    return strided_bm_from_bits((uint64_t)(r + 0x4338000000000000LL)) - 6755399441055744.0;
}

// log(x) for a normal double x > 0 (Box-Muller's x is in [2**-53, 1]).
STRIDED_HD double strided_bm_log(double x) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
                 Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
                 Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                 Lg7 = 1.479819860511658591e-01;
    // shift the exponent's boundary from 1 down to sqrt(2)/2, then split exponent and mantissa
    uint64_t ix = strided_bm_to_bits(x) + ((uint64_t)(0x3ff00000 - 0x3fe6a09e) << 32);
    double dk = strided_bm_i2d((int64_t)(ix >> 52) - 0x3ff);
    double f = strided_bm_from_bits((ix & 0x000fffffffffffffULL) + (0x3fe6a09eULL << 32)) - 1.0;
    double hf = 0.5 * f;
    double s = f / (2.0 + f), z = s * s, w = z * z;
    double t1 = w * fma(w, fma(w, Lg6, Lg4), Lg2);
    double R = fma(z, fma(w, fma(w, fma(w, Lg7, Lg5), Lg3), Lg1), t1);
    // log(1 + f) = f - hfsq + s (hfsq + R), hfsq = f^2 / 2, plus k log 2 in two parts
    double a = fma(s, fma(hf, f, R), dk * ln2_lo);
    return fma(dk, ln2_hi, fma(-hf, f, a) + f);
}

// sin and cos of 2 pi v / 2**53, for 0 <= v < 2**53.
STRIDED_HD void strided_bm_sincos_turn53(uint64_t v, double* sin_out, double* cos_out) {
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    const double two_pi_2m53 = 6.283185307179586 * 1.1102230246251565e-16;  // exact scaling
    uint64_t q = (v + (1ULL << 50)) >> 51;                 // the nearest quarter turn, 0..4
    double x = strided_bm_i2d((int64_t)v - (int64_t)(q << 51)) * two_pi_2m53;
    double z = x * x, w = z * z;
    double rs = fma(z * w, fma(z, S6, S5), fma(z, fma(z, S4, S3), S2));
    double sx = fma(z * x, fma(z, rs, S1), x);
    double rc = fma(w * w, fma(z, fma(z, C6, C5), C4), z * fma(z, fma(z, C3, C2), C1));
    double hz = 0.5 * z, w1 = 1.0 - hz;
    double cx = w1 + fma(z, rc, (1.0 - w1) - hz);
    // angle = q pi/2 + x: odd quadrants swap sin and cos; sin < 0 in quadrants 2, 3 and cos in
    // 1, 2 (sign flips as xors of the sign bit, the swap as a masked select: no branches)
    uint64_t bs = strided_bm_to_bits(sx), bc = strided_bm_to_bits(cx);
    uint64_t swap = (bs ^ bc) & (0 - (q & 1));
    *sin_out = strided_bm_from_bits((bs ^ swap) ^ ((q & 2) << 62));
    *cos_out = strided_bm_from_bits((bc ^ swap) ^ (((q + 1) & 2) << 62));
}
