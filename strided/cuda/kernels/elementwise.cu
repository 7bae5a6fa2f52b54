// Elementwise kernels: unary, binary and where, for every op of ops.cuh and every dtype.
// The host (strided/cuda/_elementwise.py) picks the instantiation: the op's functor, the
// computation and output types, the index type and whether the loop is contiguous.
// See Note [CUDA loop geometry] in common.cuh and Note [The CUDA launch] in _launch.py.
#include "common.cuh"
#include "ops.cuh"

// Each thread handles UNROLL elements per trip, loading all of them before computing any, so
// that several memory requests are in flight per thread (PyTorch's unrolled elementwise loop).
#define STRIDED_UNROLL 4

// Note [Vector loads in the contiguous elementwise loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An add of two large arrays does one addition per 6 bytes moved (float16): its speed is the
// speed of memory, and memory is fast only when enough requests are in flight to cover its
// latency. A GPU hides the latency of DRAM (some 600 ns) by keeping many loads outstanding at
// once, and what it can keep outstanding is counted in instructions per thread and threads per
// multiprocessor, not in bytes. A load of one float16 brings 2 bytes; the same instruction can
// bring 16 (``ld.global.v4.u32``) when the address is a multiple of 16. So a thread that loads
// its elements as 16-byte vectors has 8 times the bytes in flight per load instruction for
// float16 (4 times for float32), issues fewer instructions for the same work, and a warp's 32
// vectors are 512 contiguous bytes, whole cache lines. With one-element loads, UNROLL = 4
// elements of float16 are 8 bytes in flight per operand per thread, too few to reach the
// memory's bandwidth (an H200 added 1e8 float16 in 142 us, PyTorch in 100 us); one vector of 8
// elements is 16 bytes, what float32's four one-element loads already had.
//
// The vector path is taken when the loop is contiguous (the ``CONTIG`` instantiations) and every
// operand that lives in memory starts at a multiple of its vector's size (a scalar operand,
// ``g.data[k] == 0``, is filled into a vector from ``g.scalars[k]``). A view that starts one
// element in (``x[1:]``) fails the test and takes the element loop; the test is the same for
// every thread of the launch, so no warp diverges on it. The vector width is one per kernel:
// ``VEC = 16 / (the widest operand's size)``, at most 8 elements (1-byte operands move 8 bytes),
// and 1, no vector path, for complex128. A thread handles ``max(UNROLL, VEC)`` elements per trip
// (two vectors of 2 for float64), and the host sizes the grid by the same count
// (``_Launch.contiguous_per_block`` in strided/cuda/_elementwise.py); the last ``n % VEC``
// elements, which fill no vector, are one element each for the first threads of the grid. Each
// element is computed by the same functor as in the element loop, so the results are the same
// bits; only the loads and stores are wider (PyTorch's ``vectorized`` elementwise policy does the
// same). A misaligned contiguous view keeps the element loop under that smaller grid: its
// threads take two trips instead of one, which a loop of that size does not notice.
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) aligned_vector {
    T val[VEC];
};

// The vector width, in elements, of a kernel whose widest operand is ``widest`` bytes.
__host__ __device__ constexpr int vector_width(int widest) {
    return widest >= 16 ? 1 : (16 / widest > 8 ? 8 : 16 / widest);
}
// Vectors per thread per trip: together ``max(UNROLL, VEC)`` elements.
__host__ __device__ constexpr int vectors_per_thread(int vec) {
    return vec >= STRIDED_UNROLL ? 1 : STRIDED_UNROLL / vec;
}

// Whether operand k (of ``size``-byte elements) can be read as VEC-element vectors: a scalar,
// or an address that is a multiple of the vector's size.
template <int VEC, int N>
__device__ __forceinline__ bool vector_aligned(const Geometry<N>& g, int k, int size) {
    return (uint64_t)g.data[k] % (uint64_t)(VEC * size) == 0;
}

// Vector ``v`` (elements v * VEC ...) of operand k, or VEC copies of its scalar.
template <typename T, int VEC, int N, typename index_t>
__device__ __forceinline__ aligned_vector<T, VEC> load_vector(const Geometry<N>& g, int k,
                                                              index_t v) {
    aligned_vector<T, VEC> r;
    if (g.data[k] == 0) {
        T s = scalar_operand<T>(g, k);
#pragma unroll
        for (int e = 0; e < VEC; ++e) r.val[e] = s;
    } else {
        r = reinterpret_cast<const aligned_vector<T, VEC>*>(g.data[k])[v];
    }
    return r;
}

// What one trip loads for one vector index before computing: up to three operands' vectors.
template <typename A, typename B = char, typename C = char>
struct loaded_vectors {
    A a;
    B b;
    C c;
};

// The vector loop over n elements. Thread t of block b starts at vector b * blockDim * VECS + t
// and takes VECS vectors blockDim apart (so that a warp reads contiguous bytes), then steps by
// the whole grid's share; per trip it loads all its vectors (``load(v)``) before computing and
// storing any (``store(v, loaded)``), as the element loop does. The elements past the last
// whole vector go to ``element(i)``, one per thread from the grid's first thread.
template <int VEC, typename index_t, typename Load, typename Store, typename Element>
__device__ __forceinline__ void vector_loop(index_t n, Load load, Store store, Element element) {
    constexpr int VECS = vectors_per_thread(VEC);
    const index_t nv = n / VEC;
    const index_t block_work = (index_t)blockDim.x * VECS;
    for (index_t base = (index_t)blockIdx.x * block_work + threadIdx.x; base < nv;
         base += block_work * (index_t)gridDim.x) {
        decltype(load(base)) loaded[VECS];
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            const index_t v = base + (index_t)j * blockDim.x;
            if (v < nv) loaded[j] = load(v);
        }
#pragma unroll
        for (int j = 0; j < VECS; ++j) {
            const index_t v = base + (index_t)j * blockDim.x;
            if (v < nv) store(v, loaded[j]);
        }
    }
    // (the thread's number compared with the tail's length first: nv * VEC plus the number
    // could pass the index type's range where n nearly fills it)
    const index_t t = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n - nv * VEC) element(nv * VEC + t);
}

template <typename Op, typename In, typename Out, typename index_t, bool CONTIG>
__global__ void strided_unary(Geometry<2> g, index_t n) {
    Op op;
    constexpr int VEC = vector_width(sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out));
    if constexpr (CONTIG && VEC > 1) {
        if (vector_aligned<VEC>(g, 0, sizeof(Out)) && vector_aligned<VEC>(g, 1, sizeof(In))) {
            // Note [Vector loads in the contiguous elementwise loops]
            typedef aligned_vector<In, VEC> InVec;
            typedef aligned_vector<Out, VEC> OutVec;
            OutVec* out = reinterpret_cast<OutVec*>(g.data[0]);
            vector_loop<VEC>(
                n, [&](index_t v) { return loaded_vectors<InVec>{load_vector<In, VEC>(g, 1, v)}; },
                [&](index_t v, const loaded_vectors<InVec>& x) {
                    OutVec r;
#pragma unroll
                    for (int e = 0; e < VEC; ++e) r.val[e] = op_result<Out>(op(x.a.val[e]));
                    out[v] = r;
                },
                [&](index_t i) {
                    reinterpret_cast<Out*>(g.data[0])[i] =
                        op_result<Out>(op(reinterpret_cast<const In*>(g.data[1])[i]));
                });
            return;
        }
    }
    if (CONTIG) {
        const In* a = reinterpret_cast<const In*>(g.data[1]);
        Out* out = reinterpret_cast<Out*>(g.data[0]);
        const index_t block_work = (index_t)blockDim.x * STRIDED_UNROLL;
        for (index_t base = (index_t)blockIdx.x * block_work + threadIdx.x; base < n;
             base += block_work * (index_t)gridDim.x) {
            In v[STRIDED_UNROLL];
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n) v[j] = a[i];
            }
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n) out[i] = op_result<Out>(op(v[j]));
            }
        }
    } else {
        // strided: the same unrolled trips, each element's offsets computed once and kept
        const index_t block_work = (index_t)blockDim.x * STRIDED_UNROLL;
        for (index_t base = (index_t)blockIdx.x * block_work + threadIdx.x; base < n;
             base += block_work * (index_t)gridDim.x) {
            In v[STRIDED_UNROLL];
            index_t out_off[STRIDED_UNROLL];
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n) {
                    index_t off[2];
                    operand_offsets<2, index_t>(g, i, off);
                    out_off[j] = off[0];
                    v[j] = *reinterpret_cast<const In*>(reinterpret_cast<const char*>(g.data[1]) + off[1]);
                }
            }
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n) *operand_ptr<Out, 2, index_t>(g, 0, out_off[j]) = op_result<Out>(op(v[j]));
            }
        }
    }
}

template <typename Op, typename T, typename Out, typename index_t, bool CONTIG>
__global__ void strided_binary(Geometry<3> g, index_t n, int* flag) {
    Op op;
    int local_flag = 0;
    constexpr int VEC = vector_width(sizeof(T) > sizeof(Out) ? sizeof(T) : sizeof(Out));
    if constexpr (CONTIG && VEC > 1) {
        if (vector_aligned<VEC>(g, 0, sizeof(Out)) && vector_aligned<VEC>(g, 1, sizeof(T)) &&
            vector_aligned<VEC>(g, 2, sizeof(T))) {
            // Note [Vector loads in the contiguous elementwise loops]
            typedef aligned_vector<T, VEC> TVec;
            typedef aligned_vector<Out, VEC> OutVec;
            OutVec* out = reinterpret_cast<OutVec*>(g.data[0]);
            vector_loop<VEC>(
                n,
                [&](index_t v) {
                    return loaded_vectors<TVec, TVec>{load_vector<T, VEC>(g, 1, v),
                                                      load_vector<T, VEC>(g, 2, v)};
                },
                [&](index_t v, const loaded_vectors<TVec, TVec>& x) {
                    OutVec r;
#pragma unroll
                    for (int e = 0; e < VEC; ++e)
                        r.val[e] = op_result<Out>(op(x.a.val[e], x.b.val[e], &local_flag));
                    out[v] = r;
                },
                [&](index_t i) {
                    const index_t off = i * (index_t)sizeof(T);
                    reinterpret_cast<Out*>(g.data[0])[i] =
                        op_result<Out>(op(load_operand<T, 3, index_t>(g, 1, off),
                                          load_operand<T, 3, index_t>(g, 2, off), &local_flag));
                });
            if (local_flag && flag) *flag = local_flag;  // as below
            return;
        }
    }
    if (CONTIG) {
        Out* out = reinterpret_cast<Out*>(g.data[0]);
        const index_t block_work = (index_t)blockDim.x * STRIDED_UNROLL;
        for (index_t base = (index_t)blockIdx.x * block_work + threadIdx.x; base < n;
             base += block_work * (index_t)gridDim.x) {
            T va[STRIDED_UNROLL], vb[STRIDED_UNROLL];
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n) {
                    va[j] = load_operand<T, 3, index_t>(g, 1, i * (index_t)sizeof(T));
                    vb[j] = load_operand<T, 3, index_t>(g, 2, i * (index_t)sizeof(T));
                }
            }
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n) out[i] = op_result<Out>(op(va[j], vb[j], &local_flag));
            }
        }
    } else {
        // strided: the same unrolled trips, each element's offsets computed once and kept
        const index_t block_work = (index_t)blockDim.x * STRIDED_UNROLL;
        for (index_t base = (index_t)blockIdx.x * block_work + threadIdx.x; base < n;
             base += block_work * (index_t)gridDim.x) {
            T va[STRIDED_UNROLL], vb[STRIDED_UNROLL];
            index_t out_off[STRIDED_UNROLL];
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n) {
                    index_t off[3];
                    operand_offsets<3, index_t>(g, i, off);
                    out_off[j] = off[0];
                    va[j] = load_operand<T, 3, index_t>(g, 1, off[1]);
                    vb[j] = load_operand<T, 3, index_t>(g, 2, off[2]);
                }
            }
#pragma unroll
            for (int j = 0; j < STRIDED_UNROLL; ++j) {
                index_t i = base + (index_t)j * blockDim.x;
                if (i < n)
                    *operand_ptr<Out, 3, index_t>(g, 0, out_off[j]) = op_result<Out>(op(va[j], vb[j], &local_flag));
            }
        }
    }
    // every thread that saw an event writes the same small value: a benign race
    if (local_flag && flag) *flag = local_flag;
}

// Note [A binary op with a transposed input through a shared tile]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// ``a + b.T`` (a and b row-major) is a transpose inside an add: the output and ``a`` step one
// element along one dim of the loop, ``b.T`` along the other. The element loop of
// strided_binary gives consecutive threads consecutive outputs, so its reads of ``b.T`` are a
// row apart, a 32-byte segment each for 4 useful bytes (float32): on an H200 the add of two
// 1e4 x 1e4 float32 matrices took 773 us, 2.7x its 1.2 GB at the copy's bandwidth (CuPy 735,
// PyTorch 752: the same loop). The transposing copy has the cure (Note [The transposing copy
// through a shared tile] in copy.cu), and a binary loop takes it when it is 2-D, the output
// steps one element along dim 0, an input in memory steps one element along dim 1 and at
// least 32 bytes (a segment) along dim 0, and both sides are at least half a tile long
// (``_tiled_input`` in strided/cuda/_params.pyx decides, on the host, and passes the input's
// number ``s``). The block's 256 threads, as 32 x 8, read input s's 32 x 32 tile along its
// rows (consecutive threads on consecutive addresses) into shared memory, then compute the
// tile's outputs along the output's rows, taking input s from the tile and the other input (a
// scalar, a broadcast, any strides) from memory, with the op's functor: the same bits as the
// element loop. The tiles are a grid-stride loop, so the element loop's grid serves (a block's
// 1024 elements are one tile). The kernel is a module of its own (``binary_tiled``), compiled
// when a loop first needs it: as a branch of strided_binary it made the binary modules 60%
// slower to compile (add, maximum, remainder for sm_90: 19.9 -> 31.8 s) and took a quarter of
// the blocks of 7 of the 316 32-bit element loops (more registers: floor_divide, atan2,
// maximum of float64, ...). Other strided loops (3-D and more, both inputs transposed, short
// sides) keep the element loop.
#define STRIDED_BINARY_TILE 32

#define STRIDED_BINARY_PAD (STRIDED_BINARY_TILE + 1)  // a tile's column in 32 banks

template <int S, typename Op, typename T, typename Out, typename index_t>
__device__ __forceinline__ void binary_through_tile(const Geometry<3>& g, Op& op, int* local_flag,
                                                    T* tile) {
    constexpr int TILE = STRIDED_BINARY_TILE, PAD = STRIDED_BINARY_PAD;
    constexpr int o = 3 - S;  // the other input
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const index_t n0 = (index_t)g.sizes[0], n1 = (index_t)g.sizes[1];
    const index_t tiles0 = (n0 + TILE - 1) / TILE, tiles = tiles0 * ((n1 + TILE - 1) / TILE);
    const char* xs = reinterpret_cast<const char*>(g.data[S]);  // in memory, not a scalar
    const index_t s0 = (index_t)g.strides[S][0], s1 = (index_t)g.strides[S][1];
    const index_t o0 = (index_t)g.strides[o][0], o1 = (index_t)g.strides[o][1];
    const index_t y1 = (index_t)g.strides[0][1];
    // t is the same for every thread of the block, so each __syncthreads below is reached by all
    for (index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const index_t i0 = (t % tiles0) * TILE, j0 = (t / tiles0) * TILE;
        // input S's tile, along its rows: consecutive threads on consecutive j
        const index_t j = j0 + tx;
        T vs[TILE / 8];
#pragma unroll
        for (int r = 0; r < TILE / 8; ++r) {  // four loads in flight
            const index_t i = i0 + ty + 8 * r;
            if (i < n0 && j < n1) vs[r] = *reinterpret_cast<const T*>(xs + i * s0 + j * s1);
        }
#pragma unroll
        for (int r = 0; r < TILE / 8; ++r) {
            const int k = ty + 8 * r;
            if (i0 + k < n0 && j < n1) tile[k * PAD + tx] = vs[r];
        }
        __syncthreads();
        // the outputs, along the output's rows: consecutive threads on consecutive i; the
        // other input's four loads before any store (a store might alias them, so the
        // compiler would not move a load above it)
        const index_t i = i0 + tx;
        T vo[TILE / 8];
#pragma unroll
        for (int r = 0; r < TILE / 8; ++r) {
            const index_t jk = j0 + ty + 8 * r;
            if (i < n0 && jk < n1) vo[r] = load_operand<T, 3, index_t>(g, o, i * o0 + jk * o1);
        }
#pragma unroll
        for (int r = 0; r < TILE / 8; ++r) {
            const int k = ty + 8 * r;
            const index_t jk = j0 + k;
            if (i < n0 && jk < n1) {
                const T v = tile[tx * PAD + k];
                *operand_ptr<Out, 3, index_t>(g, 0, i * (index_t)sizeof(Out) + jk * y1) =
                    op_result<Out>(S == 1 ? op(v, vo[r], local_flag) : op(vo[r], v, local_flag));
            }
        }
        __syncthreads();  // the tile is read before the next one is written
    }
}

// strided_binary's loop through a shared tile, input ``s`` (1 or 2) transposed against the
// output: Note [A binary op with a transposed input through a shared tile]. Blocks of 256, 8
// to a multiprocessor for the types of 4 bytes or less with 32-bit indices (32 registers,
// where ptxas chose 40 for float32: 6 blocks, a quarter fewer loads in flight); the wider
// types hold as many bytes in flight with fewer blocks, and some of them and of the 64-bit
// index loops (complex comparisons, int16 maximum) spill at 32 registers: ptxas chooses.
template <typename Op, typename T, typename Out, typename index_t>
__global__ void __launch_bounds__(8 * STRIDED_BINARY_TILE,
                                  sizeof(T) <= 4 && sizeof(index_t) == 4 ? 8 : 1)
    strided_binary_tiled(Geometry<3> g, index_t n, int* flag, int s) {
    Op op;
    int local_flag = 0;
    alignas(16) __shared__ unsigned char tile[STRIDED_BINARY_TILE * STRIDED_BINARY_PAD * sizeof(T)];
    T* t = reinterpret_cast<T*>(tile);
    if (s == 1)
        binary_through_tile<1, Op, T, Out, index_t>(g, op, &local_flag, t);
    else
        binary_through_tile<2, Op, T, Out, index_t>(g, op, &local_flag, t);
    if (local_flag && flag) *flag = local_flag;  // as in strided_binary
}

// where(cond, a, b): operand 1 is the condition (bool bytes), 2 and 3 the values.
template <typename T, typename index_t, bool CONTIG>
__global__ void strided_where(Geometry<4> g, index_t n) {
    constexpr int VEC = vector_width(sizeof(T));
    if constexpr (CONTIG && VEC > 1) {
        if (vector_aligned<VEC>(g, 0, sizeof(T)) && vector_aligned<VEC>(g, 1, 1) &&
            vector_aligned<VEC>(g, 2, sizeof(T)) && vector_aligned<VEC>(g, 3, sizeof(T))) {
            // Note [Vector loads in the contiguous elementwise loops]
            typedef aligned_vector<T, VEC> TVec;
            typedef aligned_vector<bool_t, VEC> CondVec;
            TVec* out = reinterpret_cast<TVec*>(g.data[0]);
            vector_loop<VEC>(
                n,
                [&](index_t v) {
                    return loaded_vectors<CondVec, TVec, TVec>{load_vector<bool_t, VEC>(g, 1, v),
                                                               load_vector<T, VEC>(g, 2, v),
                                                               load_vector<T, VEC>(g, 3, v)};
                },
                [&](index_t v, const loaded_vectors<CondVec, TVec, TVec>& x) {
                    TVec r;
#pragma unroll
                    for (int e = 0; e < VEC; ++e) r.val[e] = x.a.val[e] ? x.b.val[e] : x.c.val[e];
                    out[v] = r;
                },
                [&](index_t i) {
                    const index_t off = i * (index_t)sizeof(T);
                    const bool_t c = load_operand<bool_t, 4, index_t>(g, 1, i);
                    reinterpret_cast<T*>(g.data[0])[i] = c ? load_operand<T, 4, index_t>(g, 2, off)
                                                           : load_operand<T, 4, index_t>(g, 3, off);
                });
            return;
        }
    }
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        index_t off[4];
        if (CONTIG) {
            off[0] = i * (index_t)sizeof(T);
            off[1] = i;
            off[2] = off[0];
            off[3] = off[0];
        } else {
            operand_offsets<4, index_t>(g, i, off);
        }
        bool_t c = load_operand<bool_t, 4, index_t>(g, 1, off[1]);
        *operand_ptr<T, 4, index_t>(g, 0, off[0]) =
            c ? load_operand<T, 4, index_t>(g, 2, off[2]) : load_operand<T, 4, index_t>(g, 3, off[3]);
    }
}
