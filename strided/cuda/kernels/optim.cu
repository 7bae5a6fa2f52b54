// SGD's fused step on the device (Note [A fused SGD step on CUDA] in strided/cuda/_optim.py):
// one grid-stride launch per parameter, each element's update op by op as eager's in-place ops
// compute it. Every product and sum is spelled __fmul_rn / __fadd_rn / __fsub_rn (and the double
// ones) so NVRTC, whose default is --fmad=true, cannot contract b * m + g * d into a fused
// multiply-add that eager's separate kernels never make; the emulator's host compiler targets
// baseline x86-64, with no FMA to contract into.
#include "common.cuh"

template <typename T> struct strided_rn;
template <> struct strided_rn<float> {
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
    static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
};
template <> struct strided_rn<double> {
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
    static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
};

// flags: 1 the momentum buffer starts now (written with this step's g), 2 Nesterov, 4 maximize;
// b null without momentum
template <typename T>
__global__ void strided_fused_sgd(T* p, const T* gr, T* b, int64_t n, T lr, T momentum, T damp1,
                                  T wd, int32_t flags) {
    typedef strided_rn<T> R;
    const bool first = flags & 1, nesterov = flags & 2, maximize = flags & 4;
    const int64_t stride = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T g = maximize ? -gr[i] : gr[i];
        if (wd != 0) g = R::add(g, R::mul(p[i], wd));
        if (b) {
            const T buf = first ? g : R::add(R::mul(b[i], momentum), R::mul(g, damp1));
            b[i] = buf;
            g = nesterov ? R::add(g, R::mul(buf, momentum)) : buf;
        }
        p[i] = R::sub(p[i], R::mul(g, lr));
    }
}
