// Elementwise kernels: unary, binary and where, for every op of ops.cuh and every dtype.
// The host (strided/cuda/_elementwise.py) picks the instantiation: the op's functor, the
// computation and output types, the index type and whether the loop is contiguous.
// See Note [CUDA loop geometry] in common.cuh and Note [The CUDA launch] in _launch.py.
#include "common.cuh"
#include "ops.cuh"

// Each thread handles UNROLL elements per trip, loading all of them before computing any, so
// that several memory requests are in flight per thread (PyTorch's unrolled elementwise loop).
#define STRIDED_UNROLL 4

template <typename Op, typename In, typename Out, typename index_t, bool CONTIG>
__global__ void strided_unary(Geometry<2> g, index_t n) {
    Op op;
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

// where(cond, a, b): operand 1 is the condition (bool bytes), 2 and 3 the values.
template <typename T, typename index_t, bool CONTIG>
__global__ void strided_where(Geometry<4> g, index_t n) {
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
