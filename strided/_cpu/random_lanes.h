/* The float64 draws and the float32 normals of strided/_cpu/random.pyx.tp, STRIDED_LANES Philox
   blocks at a time, written so that gcc vectorises every loop over the lanes (Note [Philox in
   lanes] there). */
#pragma once
#include <stdint.h>
#include <string.h>
#include <math.h>
#include "../cuda/kernels/boxmuller.cuh"

#define STRIDED_LANES 8

/* Blocks first .. first + LANES - 1 under key (k0, k1): x[j] = (r0, r1) and y[j] = (r2, r3) of
   block first + j, each pair as one 64-bit word. */
#if defined(__AVX2__)
#include <immintrin.h>

/* One Philox round on four blocks, each word in the low half of a 64-bit lane: vpmuludq
   multiplies the low halves to full 64-bit products, whose high halves are the new words 0
   and 2 (after the xors) and whose low halves are words 1 and 3. The high halves of the lanes
   fill with junk that no multiply reads; the stores below drop it. */
#define STRIDED_PHILOX_ROUND(c0, c1, c2, c3, k0, k1)                                    \
    do {                                                                                \
        __m256i p0_ = _mm256_mul_epu32(c0, m0), p2_ = _mm256_mul_epu32(c2, m1);         \
        c0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p2_, 32), c1), k0);    \
        c2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0_, 32), c3), k1);    \
        c1 = p2_;                                                                       \
        c3 = p0_;                                                                       \
    } while (0)

static inline void strided_philox_lanes(uint64_t first, uint32_t k0, uint32_t k1, uint64_t* x,
                                        uint64_t* y) {
    const __m256i m0 = _mm256_set1_epi64x(0xD2511F53u), m1 = _mm256_set1_epi64x(0xCD9E8D57u);
    const __m256i low = _mm256_set1_epi64x(0xffffffffu);
    /* two groups of four blocks, interleaved so that one's multiplies hide the other's */
    __m256i na = _mm256_add_epi64(_mm256_set1_epi64x((int64_t)first), _mm256_setr_epi64x(0, 1, 2, 3));
    __m256i nb = _mm256_add_epi64(na, _mm256_set1_epi64x(4));
    __m256i a0 = na, a1 = _mm256_srli_epi64(na, 32), a2 = _mm256_setzero_si256(), a3 = a2;
    __m256i b0 = nb, b1 = _mm256_srli_epi64(nb, 32), b2 = a2, b3 = a2;
    for (int rnd = 0; rnd < 10; rnd++) {
        __m256i kk0 = _mm256_set1_epi64x(k0), kk1 = _mm256_set1_epi64x(k1);
        STRIDED_PHILOX_ROUND(a0, a1, a2, a3, kk0, kk1);
        STRIDED_PHILOX_ROUND(b0, b1, b2, b3, kk0, kk1);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    _mm256_storeu_si256((__m256i*)x, _mm256_or_si256(_mm256_and_si256(a0, low), _mm256_slli_epi64(a1, 32)));
    _mm256_storeu_si256((__m256i*)(x + 4), _mm256_or_si256(_mm256_and_si256(b0, low), _mm256_slli_epi64(b1, 32)));
    _mm256_storeu_si256((__m256i*)y, _mm256_or_si256(_mm256_and_si256(a2, low), _mm256_slli_epi64(a3, 32)));
    _mm256_storeu_si256((__m256i*)(y + 4), _mm256_or_si256(_mm256_and_si256(b2, low), _mm256_slli_epi64(b3, 32)));
}
#else
static inline void strided_philox_lanes(uint64_t first, uint32_t k0, uint32_t k1,
                                        uint64_t* restrict x, uint64_t* restrict y) {
    uint32_t c0[STRIDED_LANES], c1[STRIDED_LANES], c2[STRIDED_LANES], c3[STRIDED_LANES];
    for (int j = 0; j < STRIDED_LANES; j++) {
        uint64_t n = first + (uint64_t)j;
        c0[j] = (uint32_t)n;
        c1[j] = (uint32_t)(n >> 32);
        c2[j] = 0;
        c3[j] = 0;
    }
    for (int rnd = 0; rnd < 10; rnd++) {
        for (int j = 0; j < STRIDED_LANES; j++) {
            /* the high and low halves of the 32x32-bit products as two 32-bit expressions:
               gcc vectorises these (vpmuludq for the high halves, vpmulld for the low), not
               one 64-bit product split afterwards */
            uint32_t h0 = (uint32_t)(((uint64_t)c0[j] * 0xD2511F53u) >> 32);
            uint32_t h2 = (uint32_t)(((uint64_t)c2[j] * 0xCD9E8D57u) >> 32);
            uint32_t l0 = c0[j] * 0xD2511F53u, l2 = c2[j] * 0xCD9E8D57u;
            c0[j] = h2 ^ c1[j] ^ k0;
            c2[j] = h0 ^ c3[j] ^ k1;
            c1[j] = l2;
            c3[j] = l0;
        }
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    for (int j = 0; j < STRIDED_LANES; j++) {
        x[j] = (uint64_t)c0[j] | ((uint64_t)c1[j] << 32);
        y[j] = (uint64_t)c2[j] | ((uint64_t)c3[j] << 32);
    }
}
#endif

/* v < 2**53 as a double, exactly: two halves of at most 32 bits by the magic conversion of
   Note [Box-Muller math that vectorises] (AVX2 cannot convert 64-bit integers). */
static inline double strided_u53_to_double(uint64_t v) {
    return fma(strided_bm_i2d((int64_t)(v >> 21)), 2097152.0,
               strided_bm_i2d((int64_t)(v & 2097151)));
}

/* Uniform float64 of blocks first .. first + LANES - 1 into dst[0 .. 2 LANES): element 2j is
   low + span * u(x[j]), element 2j + 1 the same of y[j], u(w) = (w >> 11) 2**-53, kept below
   high (it is replaced by top, the double before high, where the rounding reaches high). */
static inline void strided_uniform_f64_lanes(double* dst, uint64_t first, uint32_t k0,
                                             uint32_t k1, double low, double span, double high,
                                             double top) {
    uint64_t x[STRIDED_LANES], y[STRIDED_LANES];
    strided_philox_lanes(first, k0, k1, x, y);
    for (int j = 0; j < STRIDED_LANES; j++) {
        double v = low + span * (strided_u53_to_double(x[j] >> 11) * 1.1102230246251565e-16);
        double w = low + span * (strided_u53_to_double(y[j] >> 11) * 1.1102230246251565e-16);
        dst[2 * j] = v < high ? v : top;
        dst[2 * j + 1] = w < high ? w : top;
    }
}

/* Normal float64 (Box-Muller, Note [Box-Muller]) of blocks first .. first + LANES - 1 into
   dst[0 .. 2 LANES): u1 = ((x >> 11) + 1) 2**-53 in (0, 1], the angle (y >> 11) 2**-53 turns;
   element 2j is mean + std r cos, element 2j + 1 mean_odd + std r sin. */
static inline void strided_normal_f64_lanes(double* dst, uint64_t first, uint32_t k0,
                                            uint32_t k1, double mean, double mean_odd,
                                            double std) {
    uint64_t x[STRIDED_LANES], y[STRIDED_LANES];
    strided_philox_lanes(first, k0, k1, x, y);
    for (int j = 0; j < STRIDED_LANES; j++) {
        double u1 = strided_u53_to_double((x[j] >> 11) + 1) * 1.1102230246251565e-16;
        double rad = sqrt(-2.0 * strided_bm_log(u1)), s, c;
        strided_bm_sincos_turn53(y[j] >> 11, &s, &c);
        dst[2 * j] = mean + std * (rad * c);
        dst[2 * j + 1] = mean_odd + std * (rad * s);
    }
}

/* Normal float32 (Box-Muller, Note [Box-Muller]) of blocks first .. first + LANES - 1 into
   dst[0 .. 4 LANES): two pairs a block, (r0, r1) and (r2, r3), each u1 = ((r >> 8) + 1) 2**-24
   in (0, 1] and an angle of (r' >> 8) 2**-24 turns; element 4j + 2k is mean + std r cos,
   element 4j + 2k + 1 mean_odd + std r sin, computed in double with the float64 draw's log and
   sincos (the 24-bit angle is the 53-bit one's top bits) and rounded to float once. */
static inline void strided_normal_f32_lanes(float* dst, uint64_t first, uint32_t k0, uint32_t k1,
                                            double mean, double mean_odd, double std) {
    uint64_t w[2][STRIDED_LANES];
    strided_philox_lanes(first, k0, k1, w[0], w[1]);
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < STRIDED_LANES; j++) {
            uint64_t v = w[k][j];
            double u1 = strided_bm_i2d((int64_t)(((uint32_t)v >> 8) + 1)) * 5.9604644775390625e-08;
            double rad = sqrt(-2.0 * strided_bm_log(u1)), s, c;
            strided_bm_sincos_turn53((v >> 40) << 29, &s, &c);
            dst[4 * j + 2 * k] = (float)(mean + std * (rad * c));
            dst[4 * j + 2 * k + 1] = (float)(mean_odd + std * (rad * s));
        }
    }
}
