// Sorting along one dim, and the unique pass over a sorted sequence. The host
// (strided/cuda/_sort.py) picks the kernels; see Note [CUDA sorting] there for why a bitonic
// sort of (key, position) pairs in shared memory, then merges, is stable and deterministic.
#include "common.cuh"

#define STRIDED_SORT_BLOCK 256

struct SortGeometry {
    int64_t ksizes[STRIDED_MAX_DIMS];    // kept dims (one line each), innermost first
    int64_t kstrides[STRIDED_MAX_DIMS];  // the input's byte strides along them
    int64_t x;                           // input address (element [0, ..., 0])
    int64_t values;                      // output values (row-major), or 0 if not wanted
    int64_t indices;                     // output int64 positions (row-major), or 0
    int64_t M;                           // lines
    int64_t L;                           // elements per line
    int64_t sx;                          // the input's byte stride along a line
    int64_t inner;                       // output: elements of the dims after the sorted one
    int64_t tile;                        // elements a block sorts in shared memory (power of 2)
    int32_t nk;
    int32_t direct;                      // one tile per line: write the outputs directly
};

__device__ __forceinline__ int64_t sort_kept_offset(const SortGeometry& g, int64_t o) {
    int64_t off = 0;
    for (int d = 0; d < g.nk; ++d) {
        int64_t q = o / g.ksizes[d];
        off += (o - q * g.ksizes[d]) * g.kstrides[d];
        o = q;
    }
    return off;
}

// Line o, position i of the row-major output (see line_out in scan.cu).
__device__ __forceinline__ int64_t sort_out(const SortGeometry& g, int64_t o, int64_t i) {
    int64_t a = o / g.inner;
    return a * g.L * g.inner + (o - a * g.inner) + i * g.inner;
}

// ---- the order (Note [Where NaN goes] and Note [Complex order] in strided/_cpu/sort.pyx.tp) -
// key_less(a, b): a < b with NaN the largest value, and complex numbers in NumPy's order.
template <typename T>
__device__ __forceinline__ bool key_less(T a, T b) {
    if (is_float<T>::value && b != b) return a == a;  // only a non-NaN is less than a NaN
    return a < b;
}
template <typename R>
__device__ __forceinline__ bool complex_less(R ar, R ai, R br, R bi) {  // NumPy's CFLOAT_LT
    if (ar < br) return ai == ai || bi != bi;
    if (ar > br) return bi != bi && ai == ai;
    if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
    return br != br;
}
template <>
__device__ __forceinline__ bool key_less<complex64_t>(complex64_t a, complex64_t b) {
    return complex_less(a.re, a.im, b.re, b.im);
}
template <>
__device__ __forceinline__ bool key_less<complex128_t>(complex128_t a, complex128_t b) {
    return complex_less(a.re, a.im, b.re, b.im);
}

// A total order on (key, position): by key (descending: reversed, NaN first), then by position.
// Any correct sort under a total order has one answer, the stable sort's: so an unstable
// algorithm (bitonic) gives the stable result, and the answer cannot depend on timing.
template <typename T, bool DESC>
__device__ __forceinline__ bool before(T a, int64_t ia, T b, int64_t ib) {
    if (DESC ? key_less(b, a) : key_less(a, b)) return true;
    if (DESC ? key_less(a, b) : key_less(b, a)) return false;
    return ia < ib;
}

// Sort tiles of ``g.tile`` elements (a power of two) in shared memory, one tile per block at a
// time: load the tile's keys and positions (positions past the line's end are padding, which
// sorts after everything), run the bitonic network (log2(tile) stages of compare-exchanges,
// a barrier after each step), and write the sorted tile: to the outputs when it is the whole
// line (``g.direct``), else to the scratch runs that strided_sort_merge merges.
template <typename T, bool DESC>
__global__ void strided_sort_tiles(SortGeometry g, T* skeys, int64_t* sidx) {
    // declared with one type in every instantiation (NVRTC refuses an extern array whose type
    // differs between them), and a 16-byte aligned one, for complex128 keys
    STRIDED_DYNAMIC_SHARED(complex128_t, smem_raw);
    unsigned char* smem = reinterpret_cast<unsigned char*>(smem_raw);
    const int64_t P = g.tile;
    T* keys = reinterpret_cast<T*>(smem);
    int32_t* pos = reinterpret_cast<int32_t*>(smem + P * sizeof(T));
    const int64_t ntiles = (g.L + P - 1) / P;
    const int tid = threadIdx.x;
    for (int64_t b = blockIdx.x; b < g.M * ntiles; b += gridDim.x) {
        const int64_t o = b / ntiles, t0 = (b - o * ntiles) * P;
        const int64_t cnt = g.L - t0 < P ? g.L - t0 : P;
        const char* px = reinterpret_cast<const char*>(g.x) + sort_kept_offset(g, o);
        for (int64_t i = tid; i < P; i += blockDim.x) {
            keys[i] = i < cnt ? *reinterpret_cast<const T*>(px + (t0 + i) * g.sx) : cast<T>(0);
            pos[i] = (int32_t)i;
        }
        __syncthreads();
        for (int64_t k = 2; k <= P; k <<= 1) {
            for (int64_t j = k >> 1; j > 0; j >>= 1) {
                for (int64_t p = tid; p < P / 2; p += blockDim.x) {
                    const int64_t i = (p / j) * 2 * j + (p % j), l = i + j;
                    const int32_t pi = pos[i], pl = pos[l];
                    // is the pair out of order for this step's direction?
                    bool l_first = (pi >= cnt || pl >= cnt)
                                       ? pl < pi
                                       : before<T, DESC>(keys[l], pl, keys[i], pi);
                    if (l_first == ((i & k) == 0)) {
                        T tk = keys[i];
                        keys[i] = keys[l];
                        keys[l] = tk;
                        pos[i] = pl;
                        pos[l] = pi;
                    }
                }
                __syncthreads();
            }
        }
        for (int64_t i = tid; i < cnt; i += blockDim.x) {
            if (g.direct) {
                int64_t off = sort_out(g, o, i);
                if (g.values) reinterpret_cast<T*>(g.values)[off] = keys[i];
                if (g.indices) reinterpret_cast<int64_t*>(g.indices)[off] = pos[i];
            } else {
                skeys[o * g.L + t0 + i] = keys[i];
                sidx[o * g.L + t0 + i] = t0 + pos[i];
            }
        }
        __syncthreads();
    }
}

// One merge pass: sorted runs of ``width`` (line-contiguous in kin/iin) are merged in pairs.
// A thread per element finds its place by rank: its position in its own run plus the number
// of elements of the other run that come before it (a binary search). The order is total, so
// the ranks are distinct and every output slot is written once. The last pass (``final``)
// writes to the outputs instead of the scratch.
template <typename T, bool DESC>
__global__ void strided_sort_merge(SortGeometry g, const T* kin, const int64_t* iin, T* kout,
                                   int64_t* iout, int64_t width, int32_t final) {
    const int64_t n = g.M * g.L;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)blockDim.x * gridDim.x) {
        const int64_t o = e / g.L, p = e - o * g.L, line = o * g.L;
        const int64_t base = (p / (2 * width)) * 2 * width;
        const bool in_a = p - base < width;
        // the other run: [lo, hi) within the line
        const int64_t lo = in_a ? base + width : base;
        int64_t hi = in_a ? base + 2 * width : base + width;
        if (hi > g.L) hi = g.L;
        const T key = kin[e];
        const int64_t idx = iin[e];
        int64_t a = lo, b = lo > hi ? lo : hi;  // count the other run's elements before (key, idx)
        while (a < b) {
            int64_t m = a + (b - a) / 2;
            if (before<T, DESC>(kin[line + m], iin[line + m], key, idx))
                a = m + 1;
            else
                b = m;
        }
        const int64_t rank = (in_a ? p - base : p - base - width) + (lo < hi ? a - lo : 0);
        const int64_t q = base + rank;
        if (final) {
            int64_t off = sort_out(g, o, q);
            if (g.values) reinterpret_cast<T*>(g.values)[off] = key;
            if (g.indices) reinterpret_cast<int64_t*>(g.indices)[off] = idx;
        } else {
            kout[line + q] = key;
            iout[line + q] = idx;
        }
    }
}

// ---- unique (Note [Unique from a sort] in strided/_cpu/unique.pyx.tp) ----------------------
// flags[k] = 1 where a new group starts in the sorted s (NaN != NaN: every NaN starts one).
template <typename T>
__global__ void strided_unique_flags(const T* s, int64_t* flags, int64_t n) {
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (int64_t)blockDim.x * gridDim.x)
        flags[k] = (k == 0 || s[k] != s[k - 1]) ? 1 : 0;
}

// grp: the inclusive running count of flags (group number + 1). Each group's first element
// writes the group's value, start and first input position; every element its inverse.
template <typename T>
__global__ void strided_unique_scatter(const T* s, const int64_t* perm, const int64_t* grp,
                                       int64_t n, T* values, int64_t* starts, int64_t* first,
                                       int64_t* inverse) {
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (int64_t)blockDim.x * gridDim.x) {
        const int64_t gi = grp[k] - 1;
        if (k == 0 || grp[k] != grp[k - 1]) {
            values[gi] = s[k];
            starts[gi] = k;
            if (perm) first[gi] = perm[k];
        }
        if (perm) inverse[perm[k]] = gi;
    }
}

// counts[i]: from the start of group i to the start of the next (or the end).
__global__ void strided_unique_counts(const int64_t* starts, int64_t* counts, int64_t groups,
                                      int64_t n) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < groups;
         i += (int64_t)blockDim.x * gridDim.x)
        counts[i] = (i + 1 < groups ? starts[i + 1] : n) - starts[i];
}
