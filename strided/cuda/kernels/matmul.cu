// A batched matrix product over any strides: C[z] = A[z] @ B[z], C contiguous. The classic
// shared-memory tiling: a 16x16 block of threads computes a 16x16 tile of C, walking k in
// steps of 16; each step loads one tile of A and one of B into shared memory (each element
// read from global memory once per tile instead of 16 times), waits for all threads
// (__syncthreads), multiplies the tiles, and waits again before the next loads overwrite them.
// On a GPU, float and complex products go to cuBLAS (strided/cuda/_linalg.py); this kernel
// serves integers and bool, and every dtype on the emulator.
#include "common.cuh"

#define STRIDED_TILE 16

struct MatmulGeometry {
    int64_t bsizes[STRIDED_MAX_DIMS];    // batch dims, innermost first
    int64_t bstrides_a[STRIDED_MAX_DIMS];  // byte strides of A along them (0: broadcast)
    int64_t bstrides_b[STRIDED_MAX_DIMS];
    int64_t a, b, c;                     // addresses
    int64_t m, n, k, batch;
    int64_t as0, as1, bs0, bs1;          // byte strides of A's rows and columns, B's likewise
    int32_t nb;
};

template <typename T> __device__ __forceinline__ T mac(T acc, T a, T b) { return (T)(acc + a * b); }
template <> __device__ __forceinline__ bool_t mac<bool_t>(bool_t acc, bool_t a, bool_t b) {
    return acc || (a && b);
}
template <> __device__ __forceinline__ complex64_t mac<complex64_t>(complex64_t acc, complex64_t a, complex64_t b) {
    return acc + a * b;
}
template <> __device__ __forceinline__ complex128_t mac<complex128_t>(complex128_t acc, complex128_t a, complex128_t b) {
    return acc + a * b;
}

template <typename T>
__global__ void strided_matmul(MatmulGeometry g) {
    __shared__ T As[STRIDED_TILE][STRIDED_TILE];
    __shared__ T Bs[STRIDED_TILE][STRIDED_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t row = (int64_t)blockIdx.y * STRIDED_TILE + ty;
    const int64_t col = (int64_t)blockIdx.x * STRIDED_TILE + tx;
    for (int64_t z = blockIdx.z; z < g.batch; z += gridDim.z) {
        int64_t aoff = 0, boff = 0, rest = z;
        for (int d = 0; d < g.nb; ++d) {
            int64_t i = rest % g.bsizes[d];
            rest /= g.bsizes[d];
            aoff += i * g.bstrides_a[d];
            boff += i * g.bstrides_b[d];
        }
        const char* A = reinterpret_cast<const char*>(g.a) + aoff;
        const char* B = reinterpret_cast<const char*>(g.b) + boff;
        T acc = cast<T>(0);
        for (int64_t k0 = 0; k0 < g.k; k0 += STRIDED_TILE) {
            As[ty][tx] = (row < g.m && k0 + tx < g.k)
                ? *reinterpret_cast<const T*>(A + row * g.as0 + (k0 + tx) * g.as1) : cast<T>(0);
            Bs[ty][tx] = (k0 + ty < g.k && col < g.n)
                ? *reinterpret_cast<const T*>(B + (k0 + ty) * g.bs0 + col * g.bs1) : cast<T>(0);
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < STRIDED_TILE; ++kk) acc = mac<T>(acc, As[ty][kk], Bs[kk][tx]);
            __syncthreads();
        }
        if (row < g.m && col < g.n)
            reinterpret_cast<T*>(g.c)[(z * g.m + row) * g.n + col] = acc;
    }
}
