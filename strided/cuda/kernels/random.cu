// Random draws on the device: the same Philox4x32-10 stream as the CPU (strided/_cpu/random.pyx.tp,
// Note [Counter-based random numbers]), one thread per 128-bit block. Element i of a draw is a
// pure function of (seed, offset + i / k), so this kernel writes exactly the CPU's numbers:
// bit for bit for uniform and integer draws (the affine step is spelled without a fused
// multiply-add, as the CPU computes it), and the normals too (their log and sincos are
// boxmuller.cuh's, shared with the CPU; float32's are computed in double and rounded once).
#include "common.cuh"
#define STRIDED_HD __device__ __forceinline__
#include "boxmuller.cuh"

#ifdef STRIDED_EMULATOR
// The emulator's host compiler targets baseline x86-64, which has no FMA to contract into.
#define STRIDED_DMUL(a, b) ((a) * (b))
#define STRIDED_DADD(a, b) ((a) + (b))
__device__ __forceinline__ uint64_t strided_umulhi64(uint64_t a, uint64_t b) {
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
#else
#define STRIDED_DMUL(a, b) __dmul_rn(a, b)
#define STRIDED_DADD(a, b) __dadd_rn(a, b)
__device__ __forceinline__ uint64_t strided_umulhi64(uint64_t a, uint64_t b) { return __umul64hi(a, b); }
#endif

struct DrawArgs {
    int64_t out;        // address of the contiguous output (complex: as floats, twice as many)
    int64_t n;          // elements to write
    uint64_t seed;
    uint64_t offset;    // the generator's offset: block b of this draw is counter offset + b
    double a;           // uniform: low; normal: the mean of even elements
    double a_odd;       // normal: the mean of odd elements (imaginary parts)
    double b;           // uniform: high - low; normal: the standard deviation
    double high;        // uniform: results stay below it
    uint64_t low_bits;  // integers: low as a 64-bit word
    uint64_t range;     // integers: high - low (0 meaning 2**64)
    int32_t wide;       // integers: 128 random bits per element
};

__device__ __forceinline__ void philox4x32_10(uint64_t counter, uint64_t seed, uint32_t* r) {
    uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * c0;
        uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
        c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
    }
    r[0] = c0;
    r[1] = c1;
    r[2] = c2;
    r[3] = c3;
}

__device__ __forceinline__ uint64_t word64(uint32_t lo, uint32_t hi) {
    return (uint64_t)lo | ((uint64_t)hi << 32);
}

#define STRIDED_BLOCKS(PER_BLOCK)                                                          \
    for (int64_t blk = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                      \
         blk * (PER_BLOCK) < g.n; blk += (int64_t)blockDim.x * gridDim.x)

__global__ void strided_uniform_f32(DrawArgs g) {
    float* out = reinterpret_cast<float*>(g.out);
    const float high = (float)g.high;
    const float top = nextafterf(high, (float)g.a);
    STRIDED_BLOCKS(4) {
        uint32_t r[4];
        philox4x32_10(g.offset + (uint64_t)blk, g.seed, r);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            int64_t i = 4 * blk + k;
            if (i < g.n) {
                double u = (double)(r[k] >> 8) * 5.9604644775390625e-08;
                float v = (float)STRIDED_DADD(g.a, STRIDED_DMUL(g.b, u));
                out[i] = v < high ? v : top;
            }
        }
    }
}

__global__ void strided_uniform_f64(DrawArgs g) {
    double* out = reinterpret_cast<double*>(g.out);
    const double top = nextafter(g.high, g.a);
    STRIDED_BLOCKS(2) {
        uint32_t r[4];
        philox4x32_10(g.offset + (uint64_t)blk, g.seed, r);
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            int64_t i = 2 * blk + k;
            if (i < g.n) {
                double u = (double)(word64(r[2 * k], r[2 * k + 1]) >> 11) * 1.1102230246251565e-16;
                double v = STRIDED_DADD(g.a, STRIDED_DMUL(g.b, u));
                out[i] = v < g.high ? v : top;
            }
        }
    }
}

__global__ void strided_normal_f32(DrawArgs g) {
    float* out = reinterpret_cast<float*>(g.out);
    STRIDED_BLOCKS(4) {
        uint32_t r[4];
        philox4x32_10(g.offset + (uint64_t)blk, g.seed, r);
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            // in double with the CPU's log and sincos (boxmuller.cuh), as the CPU computes them
            // (strided_normal_f32_lanes in random_lanes.h), each value rounded to float once
            double u1 = (double)((r[2 * k] >> 8) + 1) * 5.9604644775390625e-08;
            double rad = sqrt(-2.0 * strided_bm_log(u1)), c, s;
            strided_bm_sincos_turn53((uint64_t)(r[2 * k + 1] >> 8) << 29, &s, &c);
            int64_t i = 4 * blk + 2 * k;
            if (i < g.n) out[i] = (float)STRIDED_DADD(g.a, STRIDED_DMUL(g.b, rad * c));
            if (i + 1 < g.n) out[i + 1] = (float)STRIDED_DADD(g.a_odd, STRIDED_DMUL(g.b, rad * s));
        }
    }
}

__global__ void strided_normal_f64(DrawArgs g) {
    double* out = reinterpret_cast<double*>(g.out);
    STRIDED_BLOCKS(2) {
        uint32_t r[4];
        philox4x32_10(g.offset + (uint64_t)blk, g.seed, r);
        // the CPU's log and sincos (boxmuller.cuh), so the normals match it bit for bit
        double u1 = (double)((word64(r[0], r[1]) >> 11) + 1) * 1.1102230246251565e-16;
        double rad = sqrt(-2.0 * strided_bm_log(u1)), c, s;
        strided_bm_sincos_turn53(word64(r[2], r[3]) >> 11, &s, &c);
        int64_t i = 2 * blk;
        out[i] = STRIDED_DADD(g.a, STRIDED_DMUL(g.b, rad * c));
        if (i + 1 < g.n) out[i + 1] = STRIDED_DADD(g.a_odd, STRIDED_DMUL(g.b, rad * s));
    }
}

// Integers in [low, high): Note [Unbiased bounded integers] in strided/_cpu/random.pyx.
__device__ __forceinline__ uint64_t below(uint64_t x, uint64_t range) {
    return range == 0 ? x : strided_umulhi64(x, range);
}
__device__ __forceinline__ uint64_t below_wide(uint64_t lo, uint64_t hi, uint64_t range) {
    if (range == 0) return hi;
    uint64_t h1 = strided_umulhi64(hi, range), l1 = hi * range, h2 = strided_umulhi64(lo, range);
    return h1 + (l1 + h2 < l1 ? 1 : 0);
}

template <typename T>
__global__ void strided_integers(DrawArgs g) {
    T* out = reinterpret_cast<T*>(g.out);
    const int per = g.wide ? 1 : 2;
    for (int64_t blk = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; blk * per < g.n;
         blk += (int64_t)blockDim.x * gridDim.x) {
        uint32_t r[4];
        philox4x32_10(g.offset + (uint64_t)blk, g.seed, r);
        if (g.wide) {
            out[blk] = (T)(g.low_bits + below_wide(word64(r[0], r[1]), word64(r[2], r[3]), g.range));
        } else {
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                int64_t i = 2 * blk + k;
                if (i < g.n) out[i] = (T)(g.low_bits + below(word64(r[2 * k], r[2 * k + 1]), g.range));
            }
        }
    }
}
