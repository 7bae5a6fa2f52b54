// Copy, cast, fill and arange: the CUDA twins of strided/_cpu/copy.pyx.
#include "common.cuh"

// dst[i] = (To) src[i] over any strides (negative and zero included) of one shape.
template <typename To, typename From, typename index_t, bool CONTIG>
__global__ void strided_copy(Geometry<2> g, index_t n) {
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        if (CONTIG) {
            reinterpret_cast<To*>(g.data[0])[i] = cast<To>(reinterpret_cast<const From*>(g.data[1])[i]);
        } else {
            index_t off[2];
            operand_offsets<2, index_t>(g, i, off);
            *operand_ptr<To, 2, index_t>(g, 0, off[0]) = cast<To>(load_operand<From, 2, index_t>(g, 1, off[1]));
        }
    }
}

// dst[i] = the scalar in g.scalars[1] (operand 1 is that scalar).
template <typename T, typename index_t, bool CONTIG>
__global__ void strided_fill(Geometry<2> g, index_t n) {
    T value = scalar_operand<T>(g, 1);
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        if (CONTIG) {
            reinterpret_cast<T*>(g.data[0])[i] = value;
        } else {
            index_t off[2];
            operand_offsets<2, index_t>(g, i, off);
            *operand_ptr<T, 2, index_t>(g, 0, off[0]) = value;
        }
    }
}

// out[i] = start + i * step, computed in the type Acc (double for floats, int64 for integers,
// as strided/_cpu/copy.pyx's arange_fill) and then cast to T. ``out`` is contiguous.
template <typename T, typename Acc, typename index_t>
__global__ void strided_arange(T* out, Acc start, Acc step, index_t n) {
    for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (index_t)blockDim.x * gridDim.x) {
        out[i] = cast<T>((Acc)(start + (Acc)i * step));
    }
}

// Note [The transposing copy through a shared tile]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A GPU reads and writes global memory in aligned segments of 32 bytes: a warp (32 threads
// running one instruction together) is fast when its 32 addresses are neighbours, because a
// few segments serve them all ("coalesced"), and slow when they are far apart, because each
// thread then moves a whole segment to use 4 of its bytes. A transpose, dst[a][b] = src[b][a],
// cannot make both sides neighbours: if consecutive threads take consecutive a, the writes are
// neighbours and the reads are a row apart; if they take consecutive b, the reads are and the
// writes are not. The element-a-thread copy above therefore spends most of its bandwidth on
// bytes it throws away (about a quarter of a plain copy's speed for float32).
//
// The fix is to go through shared memory, the block's own small fast memory, where far-apart
// addresses cost nothing extra. A block of 32x8 threads takes a 32x32 tile: it reads the tile's
// rows from src with consecutive threads on consecutive source addresses (coalesced), waits
// until the whole tile is in (__syncthreads), then writes the tile's columns to dst with
// consecutive threads on consecutive destination addresses (coalesced again); the transpose
// happens inside shared memory. Shared memory is split into 32 banks of 4 bytes, and a warp
// reading one column of a 32x32 float tile would hit one bank 32 times (served one after
// another); one padding column (33 per row) shifts each row by one bank, so a column's 32
// elements lie in 32 different banks. Tiles at the edges are partly outside the matrix: their
// threads check both coordinates and skip what is outside. A second __syncthreads before the
// next tile keeps a fast warp from overwriting the tile while a slow one still reads it.
//
// The kernel copies bits, so it takes words of the element's width (W: 1, 2, 4, 8 or 16
// bytes) and serves every dtype of that width; strided/cuda/_copy.py sends it same-dtype copies
// whose coalesced loop is 2-D, or 3-D with a batch dim, with dst's unit step along one dim (a)
// and src's along the other (b), both at least 16 long (a shorter side leaves most of a block
// idle, and its run fits in one or two segments: the kernel above is then nearly coalesced).
// Every other copy keeps the kernel above, casts included.
#define STRIDED_TRANSPOSE_TILE 32
#define STRIDED_TRANSPOSE_ROWS 8

struct alignas(16) bytes16_t {
    unsigned long long lo, hi;
};

// dst[z][a][b] = src[z][a][b] for a < na, b < nb, z < nbatch, where dst steps sizeof(W) bytes
// along a and src sizeof(W) bytes along b; every other step is in bytes (any sign).
template <typename W, typename index_t>
__global__ void strided_transpose_copy(char* dst, const char* src, index_t na, index_t nb,
                                       index_t nbatch, index_t dst_b, index_t dst_z,
                                       index_t src_a, index_t src_z) {
    __shared__ W tile[STRIDED_TRANSPOSE_TILE][STRIDED_TRANSPOSE_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long tiles_a = (na + STRIDED_TRANSPOSE_TILE - 1) / STRIDED_TRANSPOSE_TILE;
    const long long tiles_b = (nb + STRIDED_TRANSPOSE_TILE - 1) / STRIDED_TRANSPOSE_TILE;
    const long long per_batch = tiles_a * tiles_b;
    // t is the same for every thread of the block, so each __syncthreads below is reached by all
    for (long long t = blockIdx.x; t < per_batch * nbatch; t += gridDim.x) {
        const index_t z = (index_t)(t / per_batch);
        const long long r = t - (long long)z * per_batch;
        const index_t a0 = (index_t)(r / tiles_b) * STRIDED_TRANSPOSE_TILE;
        const index_t b0 = (index_t)(r % tiles_b) * STRIDED_TRANSPOSE_TILE;
        const char* s = src + z * src_z;
        char* d = dst + z * dst_z;
        // read rows of the tile: consecutive threads (tx) on consecutive b, src's unit step
        const index_t b = b0 + tx;
        for (int k = ty; k < STRIDED_TRANSPOSE_TILE; k += STRIDED_TRANSPOSE_ROWS) {
            const index_t a = a0 + k;
            if (a < na && b < nb) {
                tile[k][tx] = *reinterpret_cast<const W*>(s + a * src_a + b * (index_t)sizeof(W));
            }
        }
        __syncthreads();
        // write columns of the tile: consecutive threads (tx) on consecutive a, dst's unit step
        const index_t a = a0 + tx;
        for (int k = ty; k < STRIDED_TRANSPOSE_TILE; k += STRIDED_TRANSPOSE_ROWS) {
            const index_t bk = b0 + k;
            if (a < na && bk < nb) {
                *reinterpret_cast<W*>(d + a * (index_t)sizeof(W) + bk * dst_b) = tile[tx][k];
            }
        }
        __syncthreads();
    }
}
