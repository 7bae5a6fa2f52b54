// Indexing: the offsets of integer indices, gathers and scatters over them (plain, "last write
// wins" and accumulating), nonzero, searchsorted. The host side is strided/cuda/_index.py; see
// Note [CUDA indexing is a gather over byte offsets] and Note [Duplicate indices on a GPU] there.
//
// Every loop here runs over its shape in row-major order (the host coalesces dims but never
// reorders them): a thread's linear index ``i`` *is* the row-major position, which the error
// report (the first bad index) and the last-write-wins rule both need.
#include "common.cuh"

#define STRIDED_INDEX_BLOCK 256

// ---- offsets: off[i] += wrap(idx[i]) * stride, checked --------------------------------------
// Operand 0: the int64 byte offsets being built (one per index position), operand 1: one index
// tensor broadcast to the index shape. An index outside [-size, size) is not added: the
// smallest row-major position holding one goes to *bad (atomicMin: any order of the threads
// leaves the same, smallest, position); the host reads it back at its next synchronisation
// and raises there (strided/cuda/_deferred.py).
template <typename index_t>
__global__ void strided_index_offsets(Geometry<2> g, index_t n, int64_t size, int64_t stride,
                                      long long* bad) {
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        index_t off[2];
        operand_offsets<2, index_t>(g, i, off);
        int64_t v = load_operand<int64_t, 2, index_t>(g, 1, off[1]);
        if (v < -size || v >= size) {
            atomicMin(bad, (long long)i);
            continue;
        }
        if (v < 0) v += size;
        *operand_ptr<int64_t, 2, index_t>(g, 0, off[0]) += v * stride;
    }
}

// ---- the scatters' guard ---------------------------------------------------------------------
// Whether the offsets kernels found a bad index (any of the ``nbad`` slots holds a position):
// then a scatter writes nothing, and the target is left as it was when the host raises
// (Note [Errors found on the device are reported at the next synchronisation]). Every thread
// reads the same few slots, so this is a handful of cached loads per thread.
__device__ __forceinline__ bool strided_any_bad(const long long* bad, int nbad) {
    for (int j = 0; j < nbad; ++j) {
        if (bad[j] != 0x7F7F7F7F7F7F7F7FLL) return true;
    }
    return false;
}

// ---- gathers and scatters -------------------------------------------------------------------
// Operand 0 is the indexed tensor v (its strides on the loop's walked dims, 0 on its index
// dims), operand 2 the int64 byte offsets (0 strides on the walked dims): element i of the loop
// is at ``v + off[0] + offsets[off[2]]``. Operand 1 is the other side: the fresh output of a
// gather, the values of a scatter. Gathers and plain scatters only move bytes, so T is an
// unsigned type of the element's size (a 16-byte struct for complex128): 5 instantiations
// serve 13 dtypes.
//
// MODE 0: gather (operand 1 <- indexed element);
// MODE 1: scatter (indexed element <- operand 1), for duplicates that cannot differ;
// MODE 2: claim: winner[slot] = max(winner[slot], i), slot = the indexed element's place in v;
// MODE 3: scatter where this i won the claim: the last write in row-major order wins;
// MODE 4: no write: winner[i] = the cell position i hits (strided_index_add_sorted's keys).
// The scatters (MODE 1-3) write nothing when the offsets kernels found a bad index.
template <typename T, typename index_t, int MODE>
__global__ void strided_index(Geometry<3> g, index_t n, long long* winner, int64_t lo,
                              const long long* bad, int nbad) {
    if (MODE != 0 && strided_any_bad(bad, nbad)) return;
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        index_t off[3];
        operand_offsets<3, index_t>(g, i, off);
        int64_t o = *reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(g.data[2]) + off[2]);
        char* at = reinterpret_cast<char*>(g.data[0]) + off[0] + o;
        if (MODE == 0) {
            *operand_ptr<T, 3, index_t>(g, 1, off[1]) = *reinterpret_cast<const T*>(at);
        } else if (MODE == 1) {
            *reinterpret_cast<T*>(at) = load_operand<T, 3, index_t>(g, 1, off[1]);
        } else {
            int64_t slot = ((int64_t)at - lo) / (int64_t)sizeof(T);
            if (MODE == 2) {
                atomicMax(&winner[slot], (long long)i);
            } else if (MODE == 4) {
                winner[i] = slot;  // the cell of position i, for the deterministic add below
            } else if (winner[slot] == (long long)i) {
                *reinterpret_cast<T*>(at) = load_operand<T, 3, index_t>(g, 1, off[1]);
            }
        }
    }
}

// ---- the gather of whole rows: one launch, 16-byte vectors ------------------------------------
// ``out[r, :] = t[wrap(idx[r]), :]`` where every picked row is ``row`` contiguous bytes (Note
// [Gathering whole rows] in strided/cuda/_index.py). V is an unsigned type (or the 16-byte
// complex128_t) of the widest size that divides the row, t's address and row step and out's
// address, so every access is aligned; ``per_row`` = row / sizeof(V). Vector i of the output
// is vector ``j = i % per_row`` of output row ``r = i / per_row`` (the division by the host's
// multiplier in 32-bit kernels: Note [Division by a loop size as a multiplication] in
// common.cuh); the threads of one row read the same index, one broadcast load for the warp, and
// a thread moves STRIDED_INDEX_ROWS_UNROLL vectors a trip, loading all before storing any, so
// that several (index, row) chains of dependent loads are in flight at once. The check is the
// offsets kernel's: for an index outside [-size, size) the first thread of its row records the
// row's position with atomicMin (the row's position in the index tensor is r, as the index is
// one loop of ``idx_step`` elements) and the row is written with zeros.
#define STRIDED_INDEX_ROWS_UNROLL 4  // _ROWS_UNROLL in strided/cuda/_index.py

template <typename V, typename index_t>
__global__ void strided_index_rows(V* out, const char* t, const int64_t* idx, int64_t idx_step,
                                   index_t n, index_t per_row, uint32_t magic, uint32_t shift,
                                   int64_t size, int64_t stride, long long* bad) {
    // A block takes UNROLL * blockDim.x consecutive vectors per trip, thread k of it vectors
    // k, k + blockDim.x, ...: a warp's vectors stay neighbours in the output. The trip is three
    // passes so that nothing stands between independent loads: every index, then every row's
    // vector (a bad index's load is skipped, not branched around), then the reports and stores.
    const index_t tile = (index_t)blockDim.x * STRIDED_INDEX_ROWS_UNROLL;
    for (index_t first = (index_t)blockIdx.x * tile + threadIdx.x; first < n;
         first += tile * gridDim.x) {
        index_t row[STRIDED_INDEX_ROWS_UNROLL], col[STRIDED_INDEX_ROWS_UNROLL];
        int64_t at[STRIDED_INDEX_ROWS_UNROLL];
        V got[STRIDED_INDEX_ROWS_UNROLL];
#pragma unroll
        for (int u = 0; u < STRIDED_INDEX_ROWS_UNROLL; ++u) {
            index_t i = first + (index_t)u * blockDim.x;
            if constexpr (sizeof(index_t) == 4) {
                row[u] = (index_t)divide_by_magic((uint32_t)i, magic, shift);
            } else {
                row[u] = i / per_row;
            }
            col[u] = i - row[u] * per_row;
            at[u] = i < n ? idx[(int64_t)row[u] * idx_step] : 0;
        }
#pragma unroll
        for (int u = 0; u < STRIDED_INDEX_ROWS_UNROLL; ++u) {
            index_t i = first + (index_t)u * blockDim.x;
            int64_t v = at[u] < 0 ? at[u] + size : at[u];
            bool ok = i < n && at[u] >= -size && at[u] < size;
            got[u] = ok ? reinterpret_cast<const V*>(t + v * stride)[col[u]] : V{};
        }
#pragma unroll
        for (int u = 0; u < STRIDED_INDEX_ROWS_UNROLL; ++u) {
            index_t i = first + (index_t)u * blockDim.x;
            if (i >= n) break;
            if (col[u] == 0 && (at[u] < -size || at[u] >= size)) atomicMin(bad, (long long)row[u]);
            out[i] = got[u];  // a bad index's row: zeros, read nothing (a table may have no rows)
        }
    }
}

// ---- accumulation: *p += v as one atomic step, for every dtype --------------------------------
// CUDA has atomicAdd for 32- and 64-bit integers (wrapping: two's complement addition is the
// same for signed and unsigned), float and double (sm_60+). Complex adds its two parts apart
// (each part is exact to the same rounding as a sequential add; the two parts are not one
// transaction, which no reader can see before the kernel ends). One- and two-byte types have no
// atomicAdd: their aligned 4-byte word is updated with a compare-and-swap loop.
template <typename T> struct is_bool { static const bool value = false; };
template <> struct is_bool<bool_t> { static const bool value = true; };

template <typename T>
__device__ __forceinline__ void atomic_add_small(T* p, T v) {
    unsigned long long addr = (unsigned long long)p;
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~3ull);
    unsigned int shift = (unsigned int)(addr & 3) * 8;
    unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        T cur;
        unsigned int bits = (assumed & mask) >> shift;
        if (sizeof(T) == 1) {
            uint8_t b = (uint8_t)bits;
            cur = *reinterpret_cast<T*>(&b);
        } else {
            uint16_t b = (uint16_t)bits;
            cur = *reinterpret_cast<T*>(&b);
        }
        T sum;
        if constexpr (is_bool<T>::value) {
            sum = cur || v;  // bool: add is or, as on the CPU
        } else {
            sum = (T)(cur + v);
        }
        unsigned int nb;
        if (sizeof(T) == 1) {
            nb = *reinterpret_cast<uint8_t*>(&sum);
        } else {
            nb = *reinterpret_cast<uint16_t*>(&sum);
        }
        old = atomicCAS(word, assumed, (assumed & ~mask) | (nb << shift));
    } while (old != assumed);
}

template <typename T> struct atomic_adder {
    __device__ __forceinline__ static void run(T* p, T v) { atomic_add_small<T>(p, v); }
};
#define STRIDED_ATOMIC_AS(T, U)                                                                   \
    template <> struct atomic_adder<T> {                                                        \
        __device__ __forceinline__ static void run(T* p, T v) {                                 \
            atomicAdd(reinterpret_cast<U*>(p), (U)v);                                           \
        }                                                                                       \
    };
STRIDED_ATOMIC_AS(int32_t, unsigned int)
STRIDED_ATOMIC_AS(uint32_t, unsigned int)
STRIDED_ATOMIC_AS(int64_t, unsigned long long)
STRIDED_ATOMIC_AS(uint64_t, unsigned long long)
STRIDED_ATOMIC_AS(float, float)
STRIDED_ATOMIC_AS(double, double)
#undef STRIDED_ATOMIC_AS
template <typename R> struct atomic_adder<cplx<R> > {
    __device__ __forceinline__ static void run(cplx<R>* p, cplx<R> v) {
        atomicAdd(&p->re, v.re);
        atomicAdd(&p->im, v.im);
    }
};

// The accumulating scatter: indexed element += operand 1 (see MODE above for the operands).
template <typename T, typename index_t>
__global__ void strided_index_add(Geometry<3> g, index_t n, const long long* bad, int nbad) {
    if (strided_any_bad(bad, nbad)) return;
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        index_t off[3];
        operand_offsets<3, index_t>(g, i, off);
        int64_t o = *reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(g.data[2]) + off[2]);
        T* at = reinterpret_cast<T*>(reinterpret_cast<char*>(g.data[0]) + off[0] + o);
        atomic_adder<T>::run(at, load_operand<T, 3, index_t>(g, 1, off[1]));
    }
}

// The accumulating scatter in a fixed order (Note [Deterministic algorithms] in
// strided/_config.py): ``keys`` are the cells of the loop positions, sorted (stably), and
// ``order`` the positions in that order. The first position of each run of equal keys owns the
// cell: it reads the cell, adds the run's values in row-major order (the stable sort kept it)
// and writes the cell once. The same additions, in the same order, as the CPU's serial loop.
template <typename T, typename index_t>
__global__ void strided_index_add_sorted(Geometry<3> g, index_t n, const long long* keys,
                                         const long long* order, const long long* bad, int nbad) {
    if (strided_any_bad(bad, nbad)) return;
    for (index_t k = (index_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (index_t)blockDim.x * gridDim.x) {
        if (k > 0 && keys[k] == keys[k - 1]) continue;  // another position owns this cell
        index_t off[3];
        operand_offsets<3, index_t>(g, (index_t)order[k], off);
        int64_t o = *reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(g.data[2]) + off[2]);
        T* at = reinterpret_cast<T*>(reinterpret_cast<char*>(g.data[0]) + off[0] + o);
        T acc = *at;
        for (index_t j = k; j < n && keys[j] == keys[k]; ++j) {
            operand_offsets<3, index_t>(g, (index_t)order[j], off);
            acc = acc + load_operand<T, 3, index_t>(g, 1, off[1]);
        }
        *at = acc;
    }
}

// ---- nonzero: count, then write ---------------------------------------------------------------
// The input is a contiguous bool tensor of n elements, cut into gridDim.x chunks of ``chunk``
// elements, one per block. Pass 1 counts each chunk's true elements; the host turns the counts
// into each chunk's first output row (and learns the result's length); pass 2 re-reads each
// chunk in order and writes the coordinates of its true elements from that row on.
__global__ void strided_nonzero_count(const bool_t* m, int64_t n, int64_t chunk,
                                      long long* counts) {
    int64_t begin = (int64_t)blockIdx.x * chunk;
    int64_t end = begin + chunk < n ? begin + chunk : n;
    long long total = 0;
    for (int64_t t = begin; t < end; t += blockDim.x) {  // the same trips for every thread
        int64_t j = t + threadIdx.x;
        total += __syncthreads_count(j < end && m[j]);
    }
    if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

struct NonzeroGeometry {
    int64_t sizes[STRIDED_MAX_DIMS];  // the input's shape, innermost dim first
    int64_t row_stride;               // output elements between two hits
    int64_t coord_stride;             // output elements between two coordinates of one hit
    int32_t ndim;
};

__global__ void strided_nonzero_write(const bool_t* m, int64_t n, int64_t chunk,
                                      const long long* starts, int64_t* out, NonzeroGeometry g) {
    __shared__ int warp_counts[STRIDED_INDEX_BLOCK / 32];
    int64_t begin = (int64_t)blockIdx.x * chunk;
    int64_t end = begin + chunk < n ? begin + chunk : n;
    int64_t row = starts[blockIdx.x];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int64_t t = begin; t < end; t += blockDim.x) {
        int64_t j = t + threadIdx.x;
        bool hit = j < end && m[j];
        // this hit's rank in the tile: the hits of earlier warps, then of earlier lanes
        unsigned int ballot = __ballot_sync(0xffffffffu, hit);
        if (lane == 0) warp_counts[warp] = __popc(ballot);
        __syncthreads();
        int before = __popc(ballot & ((1u << lane) - 1u)), tile = 0;
        for (int w = 0; w < nwarps; ++w) {
            if (w < warp) before += warp_counts[w];
            tile += warp_counts[w];
        }
        if (hit) {
            int64_t* o = out + (row + before) * g.row_stride;
            int64_t rest = j;
            for (int d = 0; d < g.ndim; ++d) {  // innermost dim first: the last coordinate
                int64_t q = rest / g.sizes[d];
                o[(int64_t)(g.ndim - 1 - d) * g.coord_stride] = rest - q * g.sizes[d];
                rest = q;
            }
        }
        row += tile;
        __syncthreads();  // warp_counts is rewritten by the next tile
    }
}

// ---- searchsorted: one binary search per value, NaN last as in NumPy's sort ----------------
template <typename T>
__device__ __forceinline__ bool sort_less(T a, T b) {
    if constexpr (is_float<T>::value) {
        return a < b || (b != b && a == a);
    } else {
        return a < b;
    }
}

// Operand 0: the int64 output, operand 1: the values; ``sorted`` is contiguous, of x2's dtype.
template <typename T, typename index_t>
__global__ void strided_searchsorted(Geometry<2> g, index_t n, const T* sorted, int64_t len,
                                     int right) {
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        index_t off[2];
        operand_offsets<2, index_t>(g, i, off);
        T v = load_operand<T, 2, index_t>(g, 1, off[1]);
        int64_t lo = 0, hi = len;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            // right: the first element greater than v; left: the first not less than v
            bool go_right = right ? !sort_less(v, sorted[mid]) : sort_less(sorted[mid], v);
            if (go_right)
                lo = mid + 1;
            else
                hi = mid;
        }
        *operand_ptr<int64_t, 2, index_t>(g, 0, off[0]) = lo;
    }
}
