// softmax and log_softmax along one dim, and their backward, each in one kernel. Composed of
// other ops they cost six to nine launches (max, subtract, exp, sum, log or divide, ...) and as
// many trips through memory; here each line is read from memory once (kept in registers, where
// it fits) or two or three times (where it does not) by one group of threads, and written
// once. The host (strided/cuda/_softmax.py) fills the line geometry (line.cuh); see Note [Fused
// softmax] there.
#include "line.cuh"
#include "ops.cuh"

#define STRIDED_SOFTMAX_BLOCK 256

template <typename T> __device__ __forceinline__ T minus_inf();
template <> __device__ __forceinline__ float minus_inf<float>() {
    return __int_as_float((int)0xff800000u);
}
template <> __device__ __forceinline__ double minus_inf<double>() {
    return __longlong_as_double((long long)0xfff0000000000000ull);
}

struct sm_max {  // NaN wins, as in the max reduction: a line with a NaN gives NaN everywhere
    template <typename T> __device__ __forceinline__ static T combine(T a, T b) {
        return (a != a || a > b) ? a : b;
    }
};
struct sm_sum {
    template <typename T> __device__ __forceinline__ static T combine(T a, T b) { return a + b; }
};

// The combination of the values of a group of W threads (W = 32: a warp; W = blockDim.x: the
// block), in every thread of the group. A butterfly of shuffles gives every lane of a warp the
// warp's total; for a block, the warps' totals then meet in shared memory and every thread
// combines them in warp order. The order is fixed by W alone, so results are deterministic.
template <typename Op, typename T>
__device__ __forceinline__ T group_all(T v, int W, T* sh) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, d));
    if (W == 32) return v;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();  // sh is free: every thread has read the previous combination
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = sh[0];
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) v = Op::combine(v, sh[w]);
    return v;
}

// The lines of this thread's group of W (BLOCK / W groups per block, W dividing into whole
// warps, so a group's loop bound is the same for all its threads): its first line, the step
// to its next one, and the thread's lane t within the group.
template <typename index_t>
__device__ __forceinline__ void line_group(int W, index_t* first, index_t* step, int* t) {
    const int per_block = (int)blockDim.x / W;
    *first = (index_t)blockIdx.x * per_block + (int)threadIdx.x / W;
    *step = (index_t)gridDim.x * per_block;
    *t = (int)threadIdx.x % W;
}

// y = softmax(x) (Log = false) or log_softmax(x) (Log = true) along each line, by a group of W
// threads per line (BLOCK / W lines per block), with the composite's formulas:
//   softmax:      m = max(x);                 y = exp(x - m) / sum(exp(x - m))
//   log_softmax:  m = max(x), 0 if infinite;  y = (x - m) - log(sum(exp(x - m)))
// (the composite's order of operations too: x - m first keeps the result's relative precision,
// where x - (m + log(s)) rounds at m's magnitude; on an H200 that lost 2e-6 of a -0.0014)
//
// Note [A softmax line read once]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The max, the sum and the output each pass over the line. With K > 0 the thread's elements
// (i = t, t + W, ..., K of them at most) are loaded once, into registers, and the three passes
// run over the registers; with K = 0 each pass loads them again (the later passes from L2 at
// best). On an H200, 8192x8192 float32, the eager softmax of softmax(2x) took ~240 us (370 less
// the 130 of x * 2) where one read and one write of the matrix (a copy) take 128 us: the two
// repeated reads are the difference. The host picks K, the power of two at or above
// ceil(L / W), up to 32 float or 16 double registers (8 with 64-bit indices), so that the line
// and the rest of the thread's state fit in the 64 registers that let four blocks of 256 share
// an SM (the __launch_bounds__; ptxas for sm_90: 56 registers for 8192-wide float32 lines, no
// spills); longer lines take K = 0. The loads come first and the max after them (combined as
// they arrived, the max kept their addresses alive and spilled). Each thread meets its
// elements in the same order, and the groups combine in the same order, either way: the same
// bits. The slots past the line's end (some threads' last, the power of two's spares) are
// skipped by comparing the slot with the thread's count n, indices in index_t (32 bits where
// the offsets fit).
template <typename T, bool Log, typename index_t, int K>
__global__ void __launch_bounds__(STRIDED_SOFTMAX_BLOCK, K > 0 ? 4 : 1)
    strided_softmax(LineGeometry g, int W) {
    __shared__ T sh[32];
    const char* x = reinterpret_cast<const char*>(g.x);
    T* y = reinterpret_cast<T*>(g.y);
    const index_t L = (index_t)g.L, sx = (index_t)g.sx, inner = (index_t)g.inner;
    index_t first, step;
    int t;
    line_group<index_t>(W, &first, &step, &t);
    for (index_t o = first; o < (index_t)g.M; o += step) {
        const char* px = x + kept_offset<index_t>(g, o);
        T* py = y + line_out<index_t>(g, o);
        T m = minus_inf<T>();
        if constexpr (K > 0) {
            // the thread's elements: n of them, from px + t * sx, a step of W * sx bytes apart
            const index_t n = t < L ? (L - 1 - t) / W + 1 : 0;
            const char* p = px + (index_t)t * sx;
            const index_t pstep = (index_t)W * sx;
            T v[K];
#pragma unroll
            for (int k = 0; k < K; ++k) v[k] = k < n ? *(const T*)(p + k * pstep) : (T)0;
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (k < n) m = sm_max::combine(m, v[k]);
            m = group_all<sm_max>(m, W, sh);
            if (Log && !m_isfinite(m)) m = (T)0;  // all -inf or an inf: no shift, as the composite
            T s = 0;
#pragma unroll
            for (int k = 0; k < K; ++k) {
                if (k < n) {
                    v[k] -= m;
                    if (Log) {
                        s += m_exp(v[k]);
                    } else {
                        v[k] = m_exp(v[k]);
                        s += v[k];
                    }
                }
            }
            s = group_all<sm_sum>(s, W, sh);
            const T ls = Log ? m_log(s) : (T)0;
            T* q = py + (index_t)t * inner;
            const index_t qstep = (index_t)W * inner;
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (k < n) q[k * qstep] = Log ? v[k] - ls : v[k] / s;
        } else {
            for (index_t i = t; i < L; i += W) m = sm_max::combine(m, *(const T*)(px + i * sx));
            m = group_all<sm_max>(m, W, sh);
            if (Log && !m_isfinite(m)) m = (T)0;  // as above
            T s = 0;
            for (index_t i = t; i < L; i += W) s += m_exp(*(const T*)(px + i * sx) - m);
            s = group_all<sm_sum>(s, W, sh);
            if (Log) {
                const T ls = m_log(s);
                for (index_t i = t; i < L; i += W)
                    py[i * inner] = (*(const T*)(px + i * sx) - m) - ls;
            } else {
                for (index_t i = t; i < L; i += W)
                    py[i * inner] = m_exp(*(const T*)(px + i * sx) - m) / s;
            }
        }
    }
}

// The backward of softmax (Log = false) or log_softmax (Log = true), with the derivative
// table's formulas: g is the incoming gradient (any strides, through the geometry), r the
// forward's result (row-major, as strided_softmax wrote it), gx (g.y) the input's gradient:
//   softmax:      gx = r * (g - sum(g * r))
//   log_softmax:  gx = g - exp(r) * sum(g)
// With K > 0 (Note [A softmax line read once]) a thread keeps its elements of g, and of r for
// softmax, in registers between the sum and the output: each read once (log_softmax reads r
// once either way); K = 0 reads them again. Four blocks an SM, as the forward, but three for
// softmax's two lines of 16 float32: at 64 registers sm_80's ptxas spilled 4 bytes.
template <typename T, bool Log, typename index_t, int K>
__global__ void __launch_bounds__(STRIDED_SOFTMAX_BLOCK,
                                  K == 0 ? 1 : (!Log && K == 16 && sizeof(T) == 4 ? 3 : 4))
    strided_softmax_backward(LineGeometry g, const T* r, int W) {
    __shared__ T sh[32];
    const char* gr = reinterpret_cast<const char*>(g.x);
    T* gx = reinterpret_cast<T*>(g.y);
    const index_t L = (index_t)g.L, sx = (index_t)g.sx, inner = (index_t)g.inner;
    index_t first, step;
    int t;
    line_group<index_t>(W, &first, &step, &t);
    for (index_t o = first; o < (index_t)g.M; o += step) {
        const char* pg = gr + kept_offset<index_t>(g, o);
        const index_t out = line_out<index_t>(g, o);
        T s = 0;
        if constexpr (K > 0) {
            const index_t n = t < L ? (L - 1 - t) / W + 1 : 0;
            const char* p = pg + (index_t)t * sx;
            const index_t pstep = (index_t)W * sx;
            const T* pr = r + out + (index_t)t * inner;
            T* q = gx + out + (index_t)t * inner;
            const index_t qstep = (index_t)W * inner;
            T gv[K], rv[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                gv[k] = k < n ? *(const T*)(p + k * pstep) : (T)0;
                if (!Log) rv[k] = k < n ? pr[k * qstep] : (T)0;
            }
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (k < n) s += Log ? gv[k] : gv[k] * rv[k];
            s = group_all<sm_sum>(s, W, sh);
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (k < n)
                    q[k * qstep] = Log ? gv[k] - m_exp(pr[k * qstep]) * s : rv[k] * (gv[k] - s);
        } else {
            for (index_t i = t; i < L; i += W) {
                const T gi = *(const T*)(pg + i * sx);
                s += Log ? gi : gi * r[out + i * inner];
            }
            s = group_all<sm_sum>(s, W, sh);
            for (index_t i = t; i < L; i += W) {
                const T gi = *(const T*)(pg + i * sx), ri = r[out + i * inner];
                gx[out + i * inner] = Log ? gi - m_exp(ri) * s : ri * (gi - s);
            }
        }
    }
}
