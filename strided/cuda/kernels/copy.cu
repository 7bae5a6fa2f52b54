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
