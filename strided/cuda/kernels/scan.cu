// Scans: cumulative sums and products along one dim of any strides.
// The host (strided/cuda/_scan.py) splits the input's dims into the scanned dim and the kept
// dims (one *line* per point of them), coalesces the kept dims, and picks one of the kernels
// below; see Note [CUDA scans] there. Results are deterministic: every combination happens in
// an order fixed by the shape alone (no atomics, no dependence on timing).
#include "line.cuh"

#define STRIDED_SCAN_BLOCK 256
#define STRIDED_SCAN_ITEMS 4  // elements per thread in a tile: a tile is 1024 elements

// ---- the ops -------------------------------------------------------------------------------
// Integer scans wrap around, as NumPy's do. Signed overflow is undefined in C++ (and small
// types are promoted to int, where uint16 * uint16 can overflow), so integers are combined in an
// unsigned type at least as wide as int, where wrapping is defined, and cast back.
template <typename T> struct wrap_type { typedef T type; };  // floats and complex: themselves
template <> struct wrap_type<int8_t> { typedef uint32_t type; };
template <> struct wrap_type<int16_t> { typedef uint32_t type; };
template <> struct wrap_type<int32_t> { typedef uint32_t type; };
template <> struct wrap_type<uint8_t> { typedef uint32_t type; };
template <> struct wrap_type<uint16_t> { typedef uint32_t type; };
template <> struct wrap_type<uint32_t> { typedef uint32_t type; };
template <> struct wrap_type<int64_t> { typedef uint64_t type; };
template <> struct wrap_type<uint64_t> { typedef uint64_t type; };

template <typename T>
struct scan_sum {
    __device__ __forceinline__ static T identity() { return cast<T>(0); }
    __device__ __forceinline__ static T combine(T a, T b) {
        typedef typename wrap_type<T>::type W;
        return (T)((W)a + (W)b);
    }
};
template <typename T>
struct scan_prod {
    __device__ __forceinline__ static T identity() { return cast<T>(1); }
    __device__ __forceinline__ static T combine(T a, T b) {
        typedef typename wrap_type<T>::type W;
        return (T)((W)a * (W)b);
    }
};

// One thread per line, walking it in order: for many short lines, and for lines across the
// input's fastest dim (cumsum(x, 0) of a row-major matrix), where neighbouring threads then read
// neighbouring addresses. The additions happen in the CPU's order, so the bits match it.
template <typename Op, typename T, typename index_t>
__global__ void strided_scan_thread(LineGeometry g) {
    const char* x = reinterpret_cast<const char*>(g.x);
    T* y = reinterpret_cast<T*>(g.y);
    const index_t step = (index_t)g.inner;
    for (index_t o = (index_t)blockIdx.x * blockDim.x + threadIdx.x; o < (index_t)g.M;
         o += (index_t)blockDim.x * gridDim.x) {
        const char* px = x + kept_offset<index_t>(g, o);
        index_t out = line_out<index_t>(g, o);
        if (g.initial) {
            y[out] = Op::identity();
            out += step;
        }
        if (g.L == 0) continue;
        T acc = *reinterpret_cast<const T*>(px);
        y[out] = acc;
        for (index_t i = 1; i < (index_t)g.L; ++i) {
            acc = Op::combine(acc, *reinterpret_cast<const T*>(px + i * (index_t)g.sx));
            y[out + i * step] = acc;
        }
    }
}

// One block per line (per chunk of a line, along gridDim.y), tile by tile: the block loads a
// tile of 1024 elements into shared memory (coalesced), each thread scans its 4 neighbours in
// order, a Hillis-Steele scan over the 256 per-thread totals gives each thread what comes
// before it, and a carry holds the total of the tiles before. A "has" flag, not the identity,
// marks an empty prefix: 0.0 + -0.0 is +0.0, and the first element must come out as itself.
//
// TOTALS_ONLY: the first pass of a split line (Note [CUDA scans]): scan the chunk's tiles but
// write only the chunk's total into totals[o * G + c]. Otherwise the chunk starts from the
// carry the middle pass left in totals[o * G + c] (chunk 0 starts empty).
template <typename Op, typename T, typename index_t, bool TOTALS_ONLY>
__device__ __forceinline__ void scan_block_body(const LineGeometry& g, T* totals) {
    __shared__ T sh[STRIDED_SCAN_BLOCK * STRIDED_SCAN_ITEMS];
    __shared__ T tot[STRIDED_SCAN_BLOCK];
    const char* x = reinterpret_cast<const char*>(g.x);
    T* y = reinterpret_cast<T*>(g.y);
    const int tid = threadIdx.x;
    const index_t tile = STRIDED_SCAN_BLOCK * STRIDED_SCAN_ITEMS;
    const index_t c = blockIdx.y, G = gridDim.y;
    index_t r0 = c * (index_t)g.chunk;
    index_t r1 = r0 + (index_t)g.chunk;
    if (r1 > (index_t)g.L) r1 = (index_t)g.L;
    for (index_t o = blockIdx.x; o < (index_t)g.M; o += gridDim.x) {
        const char* px = x + kept_offset<index_t>(g, o);
        const index_t out = line_out<index_t>(g, o) + (index_t)g.initial * (index_t)g.inner;
        if (!TOTALS_ONLY && g.initial && c == 0 && tid == 0) y[out - (index_t)g.inner] = Op::identity();
        bool has = !TOTALS_ONLY && c > 0;
        T carry = has ? totals[(int64_t)o * G + c] : Op::identity();
        for (index_t t0 = r0; t0 < r1; t0 += tile) {
            const int cnt = (int)(r1 - t0 < tile ? r1 - t0 : tile);
            for (int j = tid; j < cnt; j += STRIDED_SCAN_BLOCK)
                sh[j] = *reinterpret_cast<const T*>(px + (t0 + j) * (index_t)g.sx);
            __syncthreads();
            // each thread: its ITEMS neighbours, in order (the valid ones are a prefix)
            const int first = tid * STRIDED_SCAN_ITEMS;
            const int nt = (cnt + STRIDED_SCAN_ITEMS - 1) / STRIDED_SCAN_ITEMS;
            if (first < cnt) {
                T acc = sh[first];
                for (int k = 1; k < STRIDED_SCAN_ITEMS && first + k < cnt; ++k) {
                    acc = Op::combine(acc, sh[first + k]);
                    sh[first + k] = acc;
                }
                tot[tid] = acc;
            }
            __syncthreads();
            // Hillis-Steele over the nt thread totals: after the step of width w, tot[t] holds
            // the total of threads t - 2w + 1 .. t
            for (int w = 1; w < nt; w <<= 1) {
                bool upd = tid >= w && tid < nt;
                T v = upd ? Op::combine(tot[tid - w], tot[tid]) : Op::identity();
                __syncthreads();
                if (upd) tot[tid] = v;
                __syncthreads();
            }
            if (!TOTALS_ONLY) {
                // what comes before this thread's elements: the carry, then threads 0..tid-1
                bool pre = has || tid > 0;
                T p = carry;
                if (tid > 0) p = has ? Op::combine(carry, tot[tid - 1]) : tot[tid - 1];
                if (pre && first < cnt)
                    for (int k = 0; k < STRIDED_SCAN_ITEMS && first + k < cnt; ++k)
                        sh[first + k] = Op::combine(p, sh[first + k]);
                __syncthreads();
                for (int j = tid; j < cnt; j += STRIDED_SCAN_BLOCK)
                    y[out + (t0 + j) * (index_t)g.inner] = sh[j];
            }
            carry = has ? Op::combine(carry, tot[nt - 1]) : tot[nt - 1];
            has = true;
            __syncthreads();  // sh and tot are reused by the next tile
        }
        if (TOTALS_ONLY && tid == 0) totals[(int64_t)o * G + c] = carry;
    }
}

template <typename Op, typename T, typename index_t>
__global__ void strided_scan_block(LineGeometry g, T* totals) {
    scan_block_body<Op, T, index_t, false>(g, totals);
}

template <typename Op, typename T, typename index_t>
__global__ void strided_scan_totals(LineGeometry g, T* totals) {
    scan_block_body<Op, T, index_t, true>(g, totals);
}

// The middle pass of a split line: turn each line's G chunk totals into the carries the
// chunks start from (an exclusive scan, in chunk order; chunk 0's slot is not read).
template <typename Op, typename T>
__global__ void strided_scan_carries(T* totals, int64_t M, int64_t G) {
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < M;
         o += (int64_t)blockDim.x * gridDim.x) {
        T* t = totals + o * G;
        T run = t[0];
        for (int64_t c = 1; c < G; ++c) {
            T v = t[c];
            t[c] = run;
            run = Op::combine(run, v);
        }
    }
}
