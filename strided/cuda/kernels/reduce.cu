// Reductions: sum, prod, max, min, any, all, argmax, argmin over any dims of any strides.
// The host (strided/cuda/_reduce.py) splits the input's dims into kept dims (one output element
// each) and reduced dims, coalesces each group, and picks one of two kernels; see
// Note [CUDA reductions] there. Results are deterministic: every combination happens in an
// order fixed by the shape alone, so a float sum is the same on every run (the one atomic, a
// counter, picks which block combines a split reduction's partials, never the order: Note
// [The last block combines the partials]).
#include "common.cuh"
#include "../../_cpu/scalar_math.h"

#define STRIDED_REDUCE_BLOCK 256

struct ReduceGeometry {
    int64_t osizes[STRIDED_MAX_DIMS];   // kept dims, innermost first
    int64_t ostrides[STRIDED_MAX_DIMS]; // the input's byte strides along them
    int64_t rsizes[STRIDED_MAX_DIMS];   // reduced dims, innermost first
    int64_t rstrides[STRIDED_MAX_DIMS];
    int64_t x;                          // input address (element [0, ..., 0])
    int64_t y;                          // output address (contiguous, M elements)
    int64_t M;                          // output elements
    int64_t R;                          // elements reduced into each output
    int64_t chunk;                      // reduced elements per block along gridDim.y
    int32_t nout;
    int32_t nred;
};

template <typename index_t>
__device__ __forceinline__ index_t dims_offset(const int64_t* sizes, const int64_t* strides,
                                               int nd, index_t i) {
    // one dim (the common case after coalescing) needs no division: a uniform branch
    if (nd == 1) return i * (index_t)strides[0];
    index_t off = 0;
    for (int d = 0; d < nd; ++d) {
        index_t size = (index_t)sizes[d];
        index_t q = i / size;
        off += (i - q * size) * (index_t)strides[d];
        i = q;
    }
    return off;
}

// ---- numeric limits for the identities of max and min --------------------------------------
template <typename T> struct limits;
#define STRIDED_LIMITS(T, LO, HI) \
    template <> struct limits<T> { \
        __device__ __forceinline__ static T lowest() { return LO; } \
        __device__ __forceinline__ static T highest() { return HI; } \
    };
STRIDED_LIMITS(bool_t, false, true)
STRIDED_LIMITS(int8_t, -128, 127)
STRIDED_LIMITS(int16_t, -32768, 32767)
STRIDED_LIMITS(int32_t, (-2147483647 - 1), 2147483647)
STRIDED_LIMITS(int64_t, (-9223372036854775807LL - 1), 9223372036854775807LL)
STRIDED_LIMITS(uint8_t, 0, 255)
STRIDED_LIMITS(uint16_t, 0, 65535)
STRIDED_LIMITS(uint32_t, 0u, 4294967295u)
STRIDED_LIMITS(uint64_t, 0ull, 18446744073709551615ull)
STRIDED_LIMITS(float, -__int_as_float(0x7f800000), __int_as_float(0x7f800000))
STRIDED_LIMITS(double, -__longlong_as_double(0x7ff0000000000000LL),
               __longlong_as_double(0x7ff0000000000000LL))

template <typename T> __device__ __forceinline__ bool is_nan(T x) { return x != x; }

// ---- the ops: identity, load (element -> accumulator), combine, finish (accumulator -> out) -
template <typename T>
struct red_sum {
    typedef T acc_t;
    __device__ __forceinline__ static T identity() { return cast<T>(0); }
    __device__ __forceinline__ static T load(T v, int64_t) { return v; }
    __device__ __forceinline__ static T combine(T a, T b) { return (T)(a + b); }
};
template <>
struct red_sum<bool_t> {
    typedef bool_t acc_t;
    __device__ __forceinline__ static bool_t identity() { return false; }
    __device__ __forceinline__ static bool_t load(bool_t v, int64_t) { return v; }
    __device__ __forceinline__ static bool_t combine(bool_t a, bool_t b) { return a || b; }
};
template <typename T>
struct red_prod {
    typedef T acc_t;
    __device__ __forceinline__ static T identity() { return cast<T>(1); }
    __device__ __forceinline__ static T load(T v, int64_t) { return v; }
    __device__ __forceinline__ static T combine(T a, T b) { return (T)(a * b); }
};
template <>
struct red_prod<bool_t> {
    typedef bool_t acc_t;
    __device__ __forceinline__ static bool_t identity() { return true; }
    __device__ __forceinline__ static bool_t load(bool_t v, int64_t) { return v; }
    __device__ __forceinline__ static bool_t combine(bool_t a, bool_t b) { return a && b; }
};
template <typename T>
struct red_max {  // NaN wins, as NumPy's maximum.reduce: scalar_math.h's maximum, as on the CPU
    typedef T acc_t;
    __device__ __forceinline__ static T identity() { return limits<T>::lowest(); }
    __device__ __forceinline__ static T load(T v, int64_t) { return v; }
    __device__ __forceinline__ static T combine(T a, T b) { return (T)strided_maximum(a, b); }
};
template <typename T>
struct red_min {
    typedef T acc_t;
    __device__ __forceinline__ static T identity() { return limits<T>::highest(); }
    __device__ __forceinline__ static T load(T v, int64_t) { return v; }
    __device__ __forceinline__ static T combine(T a, T b) { return (T)strided_minimum(a, b); }
};
struct red_any {
    typedef bool_t acc_t;
    __device__ __forceinline__ static bool_t identity() { return false; }
    __device__ __forceinline__ static bool_t load(bool_t v, int64_t) { return v; }
    __device__ __forceinline__ static bool_t combine(bool_t a, bool_t b) { return a || b; }
};
struct red_all {
    typedef bool_t acc_t;
    __device__ __forceinline__ static bool_t identity() { return true; }
    __device__ __forceinline__ static bool_t load(bool_t v, int64_t) { return v; }
    __device__ __forceinline__ static bool_t combine(bool_t a, bool_t b) { return a && b; }
};

// argmax/argmin carry (value, index). The winner does not depend on the order of combination:
// a NaN beats any number, the larger (smaller) value beats the other, and equal values go to
// the smaller index. So the first NaN, else the first extreme, wins, as in NumPy.
template <typename T>
struct value_index {
    T v;
    int64_t i;
};
template <typename T, bool MAX>
struct red_arg {
    typedef value_index<T> acc_t;
    __device__ __forceinline__ static acc_t identity() {
        acc_t a;
        a.v = MAX ? limits<T>::lowest() : limits<T>::highest();
        a.i = 9223372036854775807LL;
        return a;
    }
    __device__ __forceinline__ static acc_t load(T v, int64_t i) {
        acc_t a;
        a.v = v;
        a.i = i;
        return a;
    }
    __device__ __forceinline__ static acc_t combine(acc_t a, acc_t b) {
        bool an = is_nan(a.v), bn = is_nan(b.v);
        if (an || bn) {
            if (an && bn) return a.i < b.i ? a : b;
            return an ? a : b;
        }
        if (MAX ? a.v > b.v : a.v < b.v) return a;
        if (MAX ? b.v > a.v : b.v < a.v) return b;
        return a.i < b.i ? a : b;
    }
};
template <typename T> struct red_argmax : red_arg<T, true> {};
template <typename T> struct red_argmin : red_arg<T, false> {};

// Note [Half reductions in one pass]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// float16 and bfloat16 reduce as the CPU reduces them (Note [Half precision through float32]
// in _cpu/half.py): in float32, the result rounded once. The CPU makes a widened float32
// copy first; on a GPU that copy is two of three passes over memory (read 2 bytes, write 4;
// read 4; the reduction of 1e8 halves took 400 us on an H200, 7x CuPy's). ``red_half`` wraps
// the float32 op so that the kernel reads the halves themselves and widens each one as it is
// loaded (exactly: Note [Hardware half conversions in the arithmetic kernels] in common.cuh);
// accumulators, partials, combination order and identities are the float32 op's, and the
// finisher rounds each output once (or writes float32: a sum with dtype=float32, which mean
// of halves computes). So the result is the float32 reduction of the widened copy, bit for
// bit, in one pass over 2-byte elements.
template <typename Op, typename H>
struct red_half {
    typedef typename Op::acc_t acc_t;
    __device__ __forceinline__ static acc_t identity() { return Op::identity(); }
    __device__ __forceinline__ static acc_t load(H v, int64_t i) { return Op::load(half_load(v), i); }
    __device__ __forceinline__ static acc_t combine(acc_t a, acc_t b) { return Op::combine(a, b); }
};

// accumulator -> output element: a cast (a float rounded to a half output by the hardware,
// as an arithmetic result: op_result in common.cuh), or the index of an argmax/argmin
template <typename Out, typename A> struct finisher {
    __device__ __forceinline__ static Out run(A a) { return op_result<Out>(a); }
};
template <typename Out, typename T> struct finisher<Out, value_index<T> > {
    __device__ __forceinline__ static Out run(value_index<T> a) { return (Out)a.i; }
};

// ---- combining a block's accumulators --------------------------------------------------------
// CUDA's __shfl_down_sync moves one 4- or 8-byte register between the lanes of a warp. An
// accumulator may be a bool, a complex or a (value, index) pair: a small one travels as an int,
// a larger one as its 4-byte words (every accumulator of 4 bytes or more is a whole number of
// words: float, double, the 64-bit integers, complex, value_index).
template <typename A> struct alignas(A) Words { unsigned int w[sizeof(A) / 4]; };
template <typename A>
__device__ __forceinline__ A shfl_down(A v, int delta) {
    if constexpr (sizeof(A) < 4) {
        return (A)__shfl_down_sync(0xffffffffu, (int)v, delta);
    } else {
        static_assert(sizeof(A) % 4 == 0, "an accumulator of whole 4-byte words");
        Words<A> u = *reinterpret_cast<const Words<A>*>(&v);
#pragma unroll
        for (int k = 0; k < (int)(sizeof(A) / 4); ++k)
            u.w[k] = __shfl_down_sync(0xffffffffu, u.w[k], delta);
        return *reinterpret_cast<const A*>(&u);
    }
}

// The combination of every thread's ``v`` (blockDim.x a multiple of 32), valid in thread 0.
// Lanes first, by a tree of shuffles within each warp (no shared memory, no barrier), then
// warp 0 combines the warps' results the same way: two barriers in all, where a tree in shared
// memory needs one per level (eight for 256 threads). The order is fixed by the block size, so
// the result is the same on every run. ``sh`` holds 32 accumulators; the caller must
// __syncthreads() before using it again.
template <typename Op>
__device__ __forceinline__ typename Op::acc_t block_combine(typename Op::acc_t v,
                                                            typename Op::acc_t* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v = Op::combine(v, shfl_down(v, d));
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? sh[lane] : Op::identity();
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) v = Op::combine(v, shfl_down(v, d));
    }
    return v;
}

// ---- combining a split reduction's partials -------------------------------------------------
// A split reduction (Note [CUDA reductions] in _reduce.py) leaves G partial accumulators per
// output, stored chunk-major: partials[c * M + o]. Two orders combine them, both fixed by the
// shape alone; whoever runs them (the last block of the launch, or a second launch) gives the
// same bits.
//
// ``chain_partials``: one thread walks output o's G partials in chunk order, loading eight
// before it combines them (eight loads in flight), for outputs with few partials each.
template <typename Op>
__device__ __forceinline__ typename Op::acc_t chain_partials(const typename Op::acc_t* partials,
                                                             int64_t M, int64_t G, int64_t o) {
    typedef typename Op::acc_t A;
    A acc = partials[o];
    int64_t c = 1;
    for (; c + 7 < G; c += 8) {
        A p[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) p[j] = partials[(c + j) * M + o];
#pragma unroll
        for (int j = 0; j < 8; ++j) acc = Op::combine(acc, p[j]);
    }
    for (; c < G; ++c) acc = Op::combine(acc, partials[c * M + o]);
    return acc;
}

// ``tree_partials``: the whole block combines output o's G partials, for an output with many
// (the sum of a whole tensor: 2048): thread t combines partials t, t + blockDim.x, ... in order,
// then the block combines its threads (block_combine's fixed tree). Valid in thread 0; every
// thread must call it (it has barriers), and __syncthreads() before ``sh`` is used again.
template <typename Op>
__device__ __forceinline__ typename Op::acc_t tree_partials(const typename Op::acc_t* partials,
                                                            int64_t M, int64_t G, int64_t o,
                                                            typename Op::acc_t* sh) {
    typename Op::acc_t acc = Op::identity();
    for (int64_t c = threadIdx.x; c < G; c += blockDim.x) acc = Op::combine(acc, partials[c * M + o]);
    return block_combine<Op>(acc, sh);
}

// How a split launch finishes (the kernels' ``finish`` parameter, chosen by the host):
#define STRIDED_FINISH_NONE 0   // write the partials only: a second launch combines them
#define STRIDED_FINISH_CHAIN 1  // the last block combines them, a thread per output (chain)
#define STRIDED_FINISH_TREE 2   // the last block combines them, the block per output (tree)

// Note [The last block combines the partials]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A split reduction's G blocks of one output each write a partial, and someone must combine
// the G partials once all are written. A second kernel launch is the simple way (a launch
// starts after the previous one has finished and its writes are visible), but it costs a
// launch: on an H200 the sum of 1e8 float32 was 102.4 us for its 2048 blocks, then 6.0 us for
// the one block combining their partials, plus the host's second launch. Instead, the block
// that finishes *last* combines them, in the same launch:
//
//   1. each block writes its partial, then ``__threadfence()``, then one of its threads adds 1
//      to a counter in global memory with ``atomicAdd``, which returns the count before;
//   2. the block that gets G - 1 knows that every other block has already counted; it fences
//      again, reads the G partials, writes the result, and sets the counter back to 0.
//
// Why the fences. A GPU does not promise that other SMs see one thread's writes in the order
// it made them: the partial may still sit in a write buffer or reach L2 after the counter's
// new value. ``__threadfence()`` between the two (release) makes every write the thread made
// before it visible to the whole device before any write it makes after it, so a block that
// sees the count also sees the partial; the last block's own fence after the count (acquire)
// keeps its reads from being served before it. The barrier before the count lets every thread
// of the block write and fence (in the thread-per-output kernel each thread writes partials)
// before thread 0 counts; the barrier after it shares thread 0's answer with the block.
// Without the first fence the last block could read a partial that is not there yet: memory
// the pool handed out holding an older tensor's bytes, a wrong answer now and then.
//
// Why it is deterministic. Which block finishes last changes from run to run, but the last
// block never combines partials "as they arrive": it reads all G of them from memory, in chunk
// order, by the same chain or tree the second launch used (``chain_partials``,
// ``tree_partials``). Timing decides who combines, never in what order, so a float sum has the
// same bits on every run, and the bits the two launches gave.
//
// The counter. One per group of blocks that share partials: per output for the block kernel
// (blocks (o, 0..G-1)), per column of blocks for the thread kernel (blocks (b, 0..G-1) write
// the partials of the same outputs). The last block of a group resets its counter: no block of
// this launch touches it again (all G have counted), and the next launch on the stream starts
// after this one ends, so it finds 0. The backend keeps one zeroed array of counters per stream
// (``counters`` in _backend.py): two streams may run reductions at once, and must not share.
// On the emulator blocks run one after another, so the last block is the last one run (chunk
// G - 1, or chunk 0 under the reverse order): a schedule a GPU may choose too.
__device__ __forceinline__ bool last_to_finish(unsigned int* counter, unsigned int n) {
    __shared__ bool last;
    __threadfence();  // this thread's partials, before the count
    __syncthreads();  // every thread's, before thread 0 counts
    if (threadIdx.x == 0) {
        last = atomicAdd(counter, 1u) == n - 1u;
        if (last) *counter = 0u;  // every block has counted: ready for the next launch
    }
    __syncthreads();
    const bool mine = last;
    if (mine) __threadfence();  // the count, before this thread's reads of the partials
    return mine;
}

// One block per output element (threads stride over the reduced elements, then the block
// combines its threads): for long reductions along the input's fastest dim. blockIdx.y picks a
// chunk of the reduced elements when one output's work is split over several blocks; those
// blocks write partial accumulators that the last of them to finish combines (Note [The last
// block combines the partials]).
//
// Memory bandwidth needs many bytes in flight: each thread keeps UNROLL running accumulators
// and issues UNROLL independent loads before it adds any (eight 4-byte loads per thread, 2048
// threads per SM: 64 KiB in flight per SM, well over the ~25 KiB an H100 SM needs to hide
// its memory latency). The UNROLL accumulators are combined in a fixed order at the end.
#define STRIDED_REDUCE_UNROLL 8

// Sixteen bytes of T, for one vector load (ld.global.v4 on a GPU): 4 floats, 2 doubles, ...
// and how many a thread loads before it adds any (Note [Vector loads in the block reduction])
#define STRIDED_REDUCE_VECTORS 4
template <typename T> struct alignas(16) Vec16 { T v[16 / sizeof(T)]; };

// Note [Vector loads in the block reduction]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// When the reduced elements are one contiguous run (one reduced dim after coalescing, stride
// one element), a thread loads 16 bytes at a time instead of one element: a quarter of the
// load instructions for float32, as CUB's reduction does. On an H200 the scalar loop summed
// 1e8 float32 at 86% of the copy bandwidth, behind CuPy's (CUB) 100%. The run is cut in
// three: a head up to the first 16-byte boundary (fewer than 16 / sizeof(T) elements), a body
// of whole vectors, a tail. Element e of a thread's u-th vector goes to accumulator
// (u * V + e) % UNROLL, so UNROLL accumulators are still running, and each element still
// carries its own index r for argmax/argmin. Where the head ends depends on the address, so
// for one shape two tensors at different alignments may sum in a different order: each is
// still the same on every run.
//
// A trip's vectors are few for the narrow types: two for float32 (32 bytes), one for float16
// and bfloat16 (16 bytes); a thread waits for them, adds them, and only then issues the next
// trip's loads. The block kernel holds 40 registers a thread, so a multiprocessor runs 6
// blocks of 256: 16 bytes a thread is 24 KiB in flight a multiprocessor, 32 bytes 48 KiB,
// less the time each thread spends adding, where an H200 (~4.8 TB/s, ~0.8 us under load)
// needs some 30 KiB a multiprocessor. It summed 1e8 float16 in 64.2 us (CuPy 54.4) and 1e8
// float32 at 3.97 TB/s (CuPy, that is CUB, 4.3). So the body loads STRIDED_REDUCE_VECTORS = 4
// vectors, 64 bytes, before it adds any (CUB's 4 vectors a thread): the vectors of whole
// trips (two of float32, four of a half), then adds them trip by trip, element by element,
// into the accumulators one trip at a time would use. Each accumulator sees its elements in
// the same order, so the sums keep their bits (tests/test_cuda_reduce.py replays the order);
// only the loads move earlier. Trips left over that fill no batch run one at a time as
// before. (The float64 and 16-byte types already loaded 4 or 8 vectors a trip.) argmax and
// argmin keep one trip at a time: their 8 accumulators of (value, index) are 16 bytes each,
// and loading four float32 vectors at once took them from 63 to 70 registers, 4 blocks a
// multiprocessor to 3, where a row of 8192 costs more in the block's combination of those
// pairs than in its loads (111 us on an H200 for 8192 rows: 2.4 TB/s).
template <typename Op, typename T, typename index_t>
__device__ __forceinline__ void accumulate_run(const T* p, index_t r0, index_t r1,
                                               typename Op::acc_t* acc) {
    const int U = STRIDED_REDUCE_UNROLL;
    constexpr int V = 16 / sizeof(T);
    constexpr int UV = U / V > 0 ? U / V : 1;  // vectors per thread per trip
    // vectors loaded at once: whole trips, STRIDED_REDUCE_VECTORS at least (one trip for the
    // 16-byte accumulators of argmax and argmin: see the Note)
    constexpr int W = STRIDED_REDUCE_VECTORS > UV && sizeof(typename Op::acc_t) <= 8
                          ? STRIDED_REDUCE_VECTORS
                          : UV;
    static_assert(W % UV == 0, "a batch of whole trips");
    const index_t step = blockDim.x;
    const unsigned long long addr = (unsigned long long)(p + r0);
    index_t rv = r0 + (index_t)(((16 - addr % 16) % 16) / sizeof(T));
    if (rv > r1) rv = r1;
    index_t r = r0 + threadIdx.x;
    for (; r < rv; r += step) acc[0] = Op::combine(acc[0], Op::load(p[r], (int64_t)r));
    const Vec16<T>* pv = reinterpret_cast<const Vec16<T>*>(p + rv);
    const index_t nvec = (r1 - rv) / V;
    index_t k = threadIdx.x;
    for (; W > UV && k + (W - 1) * step < nvec; k += W * step) {  // W / UV trips, loads first
        Vec16<T> v[W];
#pragma unroll
        for (int w = 0; w < W; ++w) v[w] = pv[k + w * step];
#pragma unroll
        for (int w = 0; w < W; ++w) {  // trip w / UV, its vector w % UV
#pragma unroll
            for (int e = 0; e < V; ++e) {
                const int j = ((w % UV) * V + e) % U;
                const index_t r_e = rv + (k + w * step) * V + e;
                acc[j] = Op::combine(acc[j], Op::load(v[w].v[e], (int64_t)r_e));
            }
        }
    }
    for (; k + (UV - 1) * step < nvec; k += UV * step) {
        Vec16<T> v[UV];
#pragma unroll
        for (int u = 0; u < UV; ++u) v[u] = pv[k + u * step];
#pragma unroll
        for (int u = 0; u < UV; ++u) {
#pragma unroll
            for (int e = 0; e < V; ++e) {
                const int j = (u * V + e) % U;
                const index_t r_e = rv + (k + u * step) * V + e;
                acc[j] = Op::combine(acc[j], Op::load(v[u].v[e], (int64_t)r_e));
            }
        }
    }
    for (; k < nvec; k += step) {
        const Vec16<T> v = pv[k];
#pragma unroll
        for (int e = 0; e < V; ++e)
            acc[e % U] = Op::combine(acc[e % U], Op::load(v.v[e], (int64_t)(rv + k * V + e)));
    }
    for (r = rv + nvec * V + threadIdx.x; r < r1; r += step)
        acc[0] = Op::combine(acc[0], Op::load(p[r], (int64_t)r));
}

template <typename Op, typename T, typename Out, typename index_t>
__global__ void strided_reduce_block(ReduceGeometry g, typename Op::acc_t* partials,
                                     unsigned int* counters, int finish) {
    typedef typename Op::acc_t A;
    const int U = STRIDED_REDUCE_UNROLL;
    __shared__ A sh[32];
    const char* x = reinterpret_cast<const char*>(g.x);
    index_t r0 = (index_t)blockIdx.y * (index_t)g.chunk;
    index_t r1 = r0 + (index_t)g.chunk;
    if (r1 > (index_t)g.R) r1 = (index_t)g.R;
    for (index_t o = blockIdx.x; o < (index_t)g.M; o += gridDim.x) {
        index_t base = dims_offset<index_t>(g.osizes, g.ostrides, g.nout, o);
        A acc[STRIDED_REDUCE_UNROLL];
#pragma unroll
        for (int j = 0; j < U; ++j) acc[j] = Op::identity();
        const char* px = x + base;
        const bool run = g.nred == 1 && g.rstrides[0] == (int64_t)sizeof(T) &&
                         (unsigned long long)px % sizeof(T) == 0;  // uniform over the block
        index_t r = run ? r1 : r0 + threadIdx.x;  // a run skips the strided loops below
        if (run) accumulate_run<Op, T, index_t>(reinterpret_cast<const T*>(px), r0, r1, acc);
        const index_t step = blockDim.x;
        for (; r + (U - 1) * step < r1; r += U * step) {
            T v[STRIDED_REDUCE_UNROLL];
#pragma unroll
            for (int j = 0; j < U; ++j)
                v[j] = *reinterpret_cast<const T*>(
                    x + base + dims_offset<index_t>(g.rsizes, g.rstrides, g.nred, r + j * step));
#pragma unroll
            for (int j = 0; j < U; ++j) acc[j] = Op::combine(acc[j], Op::load(v[j], (int64_t)(r + j * step)));
        }
        for (; r < r1; r += step) {
            index_t off = base + dims_offset<index_t>(g.rsizes, g.rstrides, g.nred, r);
            acc[0] = Op::combine(acc[0], Op::load(*reinterpret_cast<const T*>(x + off), (int64_t)r));
        }
#pragma unroll
        for (int w = 1; w < U; w *= 2) {  // a tree over the U accumulators: (0+1)+(2+3), ...
#pragma unroll
            for (int j = 0; j + w < U; j += 2 * w) acc[j] = Op::combine(acc[j], acc[j + w]);
        }
        A total = block_combine<Op>(acc[0], sh);
        if (gridDim.y == 1) {
            if (threadIdx.x == 0) reinterpret_cast<Out*>(g.y)[o] = finisher<Out, A>::run(total);
        } else {
            if (threadIdx.x == 0) partials[(int64_t)blockIdx.y * g.M + o] = total;
            // Note [The last block combines the partials]: a counter per output
            if (finish != STRIDED_FINISH_NONE && last_to_finish(counters + o, gridDim.y)) {
                if (finish == STRIDED_FINISH_TREE) {
                    A all = tree_partials<Op>(partials, g.M, gridDim.y, o, sh);
                    if (threadIdx.x == 0) reinterpret_cast<Out*>(g.y)[o] = finisher<Out, A>::run(all);
                } else if (threadIdx.x == 0) {
                    A all = chain_partials<Op>(partials, g.M, gridDim.y, o);
                    reinterpret_cast<Out*>(g.y)[o] = finisher<Out, A>::run(all);
                }
            }
        }
        __syncthreads();  // sh is written again by the next output's block_combine
    }
}

// One thread per output element (each walks its reduced elements in order): for reductions
// across the input's fastest dim (a column sum), where neighbouring threads then read
// neighbouring addresses, and for short reductions. A split launch finishes with
// STRIDED_FINISH_NONE or STRIDED_FINISH_CHAIN (the host combines by a tree in a second launch:
// one last block would take the outputs' trees one after another).
template <typename Op, typename T, typename Out, typename index_t>
__global__ void strided_reduce_thread(ReduceGeometry g, typename Op::acc_t* partials,
                                      unsigned int* counters, int finish) {
    typedef typename Op::acc_t A;
    const char* x = reinterpret_cast<const char*>(g.x);
    index_t r0 = (index_t)blockIdx.y * (index_t)g.chunk;
    index_t r1 = r0 + (index_t)g.chunk;
    if (r1 > (index_t)g.R) r1 = (index_t)g.R;
    const index_t first = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    const index_t stride = (index_t)blockDim.x * gridDim.x;
    for (index_t o = first; o < (index_t)g.M; o += stride) {
        index_t base = dims_offset<index_t>(g.osizes, g.ostrides, g.nout, o);
        A acc4[4] = {Op::identity(), Op::identity(), Op::identity(), Op::identity()};
        index_t r = r0;
        for (; r + 3 < r1; r += 4) {  // four loads in flight, as in the block kernel
            T v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
                v[j] = *reinterpret_cast<const T*>(
                    x + base + dims_offset<index_t>(g.rsizes, g.rstrides, g.nred, r + j));
#pragma unroll
            for (int j = 0; j < 4; ++j) acc4[j] = Op::combine(acc4[j], Op::load(v[j], (int64_t)(r + j)));
        }
        for (; r < r1; ++r) {
            index_t off = base + dims_offset<index_t>(g.rsizes, g.rstrides, g.nred, r);
            acc4[0] = Op::combine(acc4[0], Op::load(*reinterpret_cast<const T*>(x + off), (int64_t)r));
        }
        A acc = Op::combine(Op::combine(acc4[0], acc4[1]), Op::combine(acc4[2], acc4[3]));
        if (gridDim.y == 1)
            reinterpret_cast<Out*>(g.y)[o] = finisher<Out, A>::run(acc);
        else
            partials[(int64_t)blockIdx.y * g.M + o] = acc;
    }
    // Note [The last block combines the partials]: a counter per column of blocks, whose
    // thread t combines the partials of the outputs thread t wrote
    if (gridDim.y > 1 && finish == STRIDED_FINISH_CHAIN &&
        last_to_finish(counters + blockIdx.x, gridDim.y)) {
        for (index_t o = first; o < (index_t)g.M; o += stride)
            reinterpret_cast<Out*>(g.y)[o] =
                finisher<Out, A>::run(chain_partials<Op>(partials, g.M, gridDim.y, o));
    }
}

// The second launch of a split reduction (STRIDED_FINISH_NONE): output o combines its G
// partials, in chunk order. The partials are stored chunk-major, partials[c * M + o], so that
// neighbouring threads of the first pass write, and of this pass read, neighbouring addresses.
//
// A thread per output, for many outputs with few partials each (``chain_partials``).
template <typename Op, typename T, typename Out>
__global__ void strided_reduce_partials(const typename Op::acc_t* partials, Out* y, int64_t M,
                                        int64_t G) {
    typedef typename Op::acc_t A;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < M;
         o += (int64_t)blockDim.x * gridDim.x)
        y[o] = finisher<Out, A>::run(chain_partials<Op>(partials, M, G, o));
}

// The same pass with a block per output, for few outputs with many partials
// (``tree_partials``): one thread walking thousands of partials would wait for each load in
// turn, as long as the first pass took.
template <typename Op, typename T, typename Out>
__global__ void strided_reduce_partials_block(const typename Op::acc_t* partials, Out* y,
                                              int64_t M, int64_t G) {
    typedef typename Op::acc_t A;
    __shared__ A sh[32];
    for (int64_t o = blockIdx.x; o < M; o += gridDim.x) {
        A total = tree_partials<Op>(partials, M, G, o, sh);
        if (threadIdx.x == 0) y[o] = finisher<Out, A>::run(total);
        __syncthreads();
    }
}
