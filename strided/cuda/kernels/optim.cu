// The optimizers' fused steps on the device (Note [A fused SGD step on CUDA] and Note [A fused
// Adam step on CUDA] in strided/cuda/_optim.py): one grid-stride launch per parameter, each
// element's update op by op as eager's in-place ops compute it. Every product and sum is spelled __fmul_rn / __fadd_rn / __fsub_rn (and the double
// ones) so NVRTC, whose default is --fmad=true, cannot contract b * m + g * d into a fused
// multiply-add that eager's separate kernels never make; the emulator's host compiler targets
// baseline x86-64, with no FMA to contract into.
#include "common.cuh"

template <typename T> struct strided_rn;
template <> struct strided_rn<float> {
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
    static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
    static __device__ __forceinline__ float div(float a, float b) { return __fdiv_rn(a, b); }
    static __device__ __forceinline__ float sqrt(float a) { return __fsqrt_rn(a); }
};
template <> struct strided_rn<double> {
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
    static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
    static __device__ __forceinline__ double div(double a, double b) { return __ddiv_rn(a, b); }
    // a double sqrt on the device is always rounded to nearest (eager's sqrt kernel calls it too)
    static __device__ __forceinline__ double sqrt(double a) { return ::sqrt(a); }
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

// Adam's step (AdamW's when decay != 1: p *= 1 - lr wd first, and wd is 0), each line one of
// eager's ops: g + p wd; m += (g - m)(1 - b1); v = v b2 + g g (1 - b2); AMSGrad's maximum (the
// eager kernel's strided_maximum, NaN-propagating); p -= m / (sqrt(v) / bc2 + eps) step_size.
// step_size = lr / (1 - b1^t) and bc2 = sqrt(1 - b2^t) come rounded from the host's doubles, as
// eager's Python scalars do. flags: 1 maximize; vmax null without AMSGrad.
template <typename T>
__global__ void strided_fused_adam(T* p, const T* gr, T* m, T* v, T* vmax, int64_t n,
                                   T step_size, T bc2, T b1c, T b2, T b2c, T eps, T wd, T decay,
                                   int32_t flags) {
    typedef strided_rn<T> R;
    const bool maximize = flags & 1;
    const int64_t stride = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T g = maximize ? -gr[i] : gr[i];
        T pi = p[i];
        if (decay != 1) pi = R::mul(pi, decay);
        else if (wd != 0) g = R::add(g, R::mul(pi, wd));
        const T mi = R::add(m[i], R::mul(R::sub(g, m[i]), b1c));
        T vi = R::add(R::mul(v[i], b2), R::mul(R::mul(g, g), b2c));
        m[i] = mi;
        v[i] = vi;
        if (vmax) {
            vi = strided_maximum(vmax[i], vi);
            vmax[i] = vi;
        }
        p[i] = R::sub(pi, R::mul(R::div(mi, R::add(R::div(R::sqrt(vi), bc2), eps)), step_size));
    }
}
