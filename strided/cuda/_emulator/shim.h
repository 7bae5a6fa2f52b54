// strided CUDA emulator: the CUDA C++ surface that lets a kernel source compile with g++.
//
// compile_module() builds one translation unit: this header, then the kernel source, then the
// launchers (launch.h and one table row per name expression). The source sees what NVRTC gives
// device code: the built-in variables, qualifiers, barriers, warp operations, atomics, intrinsics
// and the C math library with float overloads in the global namespace. STRIDED_EMULATOR is
// defined; __CUDA_ARCH__, __CUDACC__ and __NVCC__ are not.
//
// Note [Emulated warps]
// Lanes of a warp run as separate fibers; a warp operation (shuffle, vote, __syncwarp, reduce,
// match) waits until every lane named in its mask has reached it, then hands every lane its
// result, as the *_sync operations of Volta and later define. Lanes that do not exist (a block
// whose size is not a multiple of 32 has a partial last warp) are dropped from the mask, so a full
// mask works there; a shuffle whose source lane is outside the group (not in the mask, missing
// from the partial warp, or outside the width segment) returns the caller's own value. A mask
// that names a lane that has returned is reported as an error (a hang or undefined behaviour on a
// GPU), as are lanes of one group waiting at different operations. Shuffled types: any trivially
// copyable type of at most 8 bytes (NVRTC accepts fewer).
#pragma once

#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>  // libstdc++'s wrapper: float overloads (expf and exp(float)) in the global namespace
#include <stdlib.h>
#include <type_traits>
#include <utility>

// ---------------------------------------------------------------------------------------------
// Vector types, with CUDA's sizes and alignments (T2: 2*sizeof(T), T4: up to 16 bytes).

#define STRIDED_EMU_VECTOR(T, N)                                                                  \
  struct N##1 { T x; };                                                                           \
  struct alignas(2 * sizeof(T) < 16 ? 2 * sizeof(T) : 16) N##2 { T x, y; };                      \
  struct N##3 { T x, y, z; };                                                                     \
  struct alignas(4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16) N##4 { T x, y, z, w; };                 \
  inline N##1 make_##N##1(T x) { return N##1{x}; }                                                \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                                        \
  inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                                \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }

STRIDED_EMU_VECTOR(signed char, char)
STRIDED_EMU_VECTOR(unsigned char, uchar)
STRIDED_EMU_VECTOR(short, short)
STRIDED_EMU_VECTOR(unsigned short, ushort)
STRIDED_EMU_VECTOR(int, int)
STRIDED_EMU_VECTOR(unsigned int, uint)
STRIDED_EMU_VECTOR(long, long)
STRIDED_EMU_VECTOR(unsigned long, ulong)
STRIDED_EMU_VECTOR(long long, longlong)
STRIDED_EMU_VECTOR(unsigned long long, ulonglong)
STRIDED_EMU_VECTOR(float, float)
STRIDED_EMU_VECTOR(double, double)
#undef STRIDED_EMU_VECTOR

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

#include "runtime.h"

// ---------------------------------------------------------------------------------------------
// Qualifiers and built-in variables.

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// Static storage shared by the fibers of a block; blocks run one after another, so one copy
// serves every block (it keeps the previous block's values, as a GPU's shared memory may).
#define __shared__ static
// Dynamic shared memory (the launch's shared_mem bytes, filled with 0xFF bytes and guarded by a
// canary on both sides). On a GPU the project's common header defines this as
// `extern __shared__ type name[]`. It works in a kernel body and at namespace scope.
#define STRIDED_DYNAMIC_SHARED(type, name)                                                        \
  type* const name = reinterpret_cast<type*>(::strided_emu::dynamic_shared + ::strided_emu::kGuardBytes)

inline const uint3& threadIdx = strided_emu::rt.thread_idx;
inline const uint3& blockIdx = strided_emu::rt.block_idx;
inline const dim3& blockDim = strided_emu::rt.block_dim;
inline const dim3& gridDim = strided_emu::rt.grid_dim;
constexpr int warpSize = 32;

// ---------------------------------------------------------------------------------------------
// Barriers, fences, errors.

inline void __syncthreads() { strided_emu::block_wait(strided_emu::kSync, 0); }
inline int __syncthreads_count(int pred) {
  return (int)strided_emu::block_wait(strided_emu::kSyncCount, pred != 0);
}
inline int __syncthreads_and(int pred) {
  return (int)strided_emu::block_wait(strided_emu::kSyncAnd, pred != 0);
}
inline int __syncthreads_or(int pred) {
  return (int)strided_emu::block_wait(strided_emu::kSyncOr, pred != 0);
}
// Fibers of one OS thread see each other's writes at once: fences only stop the compiler.
inline void __threadfence() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __nanosleep(unsigned) { strided_emu::yield_runnable(); }
inline long long clock64() {
  static long long ticks = 0;
  return ++ticks;
}
inline void __trap() { strided_emu::fail("__trap() called"); }
inline void __brkpt() { strided_emu::fail("__brkpt() called"); }

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e)                                                                                 \
  ((e) ? (void)0 : ::strided_emu::fail("assertion failed: %s (%s:%d)", #e, __FILE__, __LINE__))
#endif

// ---------------------------------------------------------------------------------------------
// Warp operations. See Note [Emulated warps].

namespace __attribute__((visibility("hidden"))) strided_emu {
template <class T>
inline uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "warp shuffles take a trivially copyable value of at most 8 bytes");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
inline int check_width(int op, int width) {
  if (width <= 0 || width > 32 || (width & (width - 1)))
    fail("%s: width %d is not a power of two in [1, 32]", warp_op_name(op), width);
  return width;
}
inline unsigned lane_id() { return (unsigned)rt.current % kWarpSize; }
}  // namespace strided_emu

template <class T>
inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  using namespace strided_emu;
  return from_bits<T>(warp_wait(kShfl, mask, to_bits(var), src_lane, check_width(kShfl, width)));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  using namespace strided_emu;
  return from_bits<T>(
      warp_wait(kShflUp, mask, to_bits(var), (int)delta, check_width(kShflUp, width)));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  using namespace strided_emu;
  return from_bits<T>(
      warp_wait(kShflDown, mask, to_bits(var), (int)delta, check_width(kShflDown, width)));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  using namespace strided_emu;
  return from_bits<T>(
      warp_wait(kShflXor, mask, to_bits(var), lane_mask, check_width(kShflXor, width)));
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
  return (unsigned)strided_emu::warp_wait(strided_emu::kBallot, mask, pred != 0);
}
inline int __any_sync(unsigned mask, int pred) {
  return (int)strided_emu::warp_wait(strided_emu::kAny, mask, pred != 0);
}
inline int __all_sync(unsigned mask, int pred) {
  return (int)strided_emu::warp_wait(strided_emu::kAll, mask, pred != 0);
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  strided_emu::warp_wait(strided_emu::kSyncWarp, mask, 0);
}
// The lanes of the caller's warp that have not returned (fibers are never "inactive" otherwise).
inline unsigned __activemask() {
  using namespace strided_emu;
  const int base = rt.current - rt.current % kWarpSize;
  unsigned m = 0;
  for (int k = 0; k < kWarpSize && base + k < rt.nthreads; ++k)
    if (rt.threads[base + k].state != State::Done) m |= 1u << k;
  return m;
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned v) {
  return (unsigned)strided_emu::warp_wait(strided_emu::kReduceAdd, mask, v);
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) {
  return (unsigned)strided_emu::warp_wait(strided_emu::kReduceMin, mask, v);
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) {
  return (unsigned)strided_emu::warp_wait(strided_emu::kReduceMax, mask, v);
}
inline int __reduce_add_sync(unsigned mask, int v) {
  return (int)strided_emu::warp_wait(strided_emu::kReduceAdd, mask, (uint32_t)v);
}
inline int __reduce_min_sync(unsigned mask, int v) {
  return (int)strided_emu::warp_wait(strided_emu::kReduceMinSigned, mask, (uint32_t)v);
}
inline int __reduce_max_sync(unsigned mask, int v) {
  return (int)strided_emu::warp_wait(strided_emu::kReduceMaxSigned, mask, (uint32_t)v);
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned v) {
  return (unsigned)strided_emu::warp_wait(strided_emu::kReduceAnd, mask, v);
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned v) {
  return (unsigned)strided_emu::warp_wait(strided_emu::kReduceOr, mask, v);
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v) {
  return (unsigned)strided_emu::warp_wait(strided_emu::kReduceXor, mask, v);
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value) {
  using namespace strided_emu;
  return (unsigned)warp_wait(kMatchAny, mask, to_bits(value));
}

// ---------------------------------------------------------------------------------------------
// Atomics: the overloads CUDA has (so what NVRTC rejects is rejected here too). Fibers never
// switch inside one, so a plain read-modify-write is atomic. Integer arithmetic wraps.

#define STRIDED_EMU_ATOMIC(NAME, T, EXPR)                                                         \
  inline T NAME(T* address, T val) {                                                              \
    T old = *address;                                                                             \
    *address = (EXPR);                                                                            \
    return old;                                                                                   \
  }                                                                                               \
  inline T NAME##_block(T* address, T val) { return NAME(address, val); }                         \
  inline T NAME##_system(T* address, T val) { return NAME(address, val); }

#define STRIDED_EMU_WRAP(T, OP) (T)((std::make_unsigned_t<T>)old OP(std::make_unsigned_t<T>) val)
STRIDED_EMU_ATOMIC(atomicAdd, int, STRIDED_EMU_WRAP(int, +))
STRIDED_EMU_ATOMIC(atomicAdd, unsigned int, old + val)
STRIDED_EMU_ATOMIC(atomicAdd, unsigned long long, old + val)
STRIDED_EMU_ATOMIC(atomicAdd, float, old + val)
STRIDED_EMU_ATOMIC(atomicAdd, double, old + val)
STRIDED_EMU_ATOMIC(atomicSub, int, STRIDED_EMU_WRAP(int, -))
STRIDED_EMU_ATOMIC(atomicSub, unsigned int, old - val)
STRIDED_EMU_ATOMIC(atomicExch, int, val)
STRIDED_EMU_ATOMIC(atomicExch, unsigned int, val)
STRIDED_EMU_ATOMIC(atomicExch, unsigned long long, val)
STRIDED_EMU_ATOMIC(atomicExch, float, val)
STRIDED_EMU_ATOMIC(atomicMin, int, val < old ? val : old)
STRIDED_EMU_ATOMIC(atomicMin, unsigned int, val < old ? val : old)
STRIDED_EMU_ATOMIC(atomicMin, long long, val < old ? val : old)
STRIDED_EMU_ATOMIC(atomicMin, unsigned long long, val < old ? val : old)
STRIDED_EMU_ATOMIC(atomicMax, int, val > old ? val : old)
STRIDED_EMU_ATOMIC(atomicMax, unsigned int, val > old ? val : old)
STRIDED_EMU_ATOMIC(atomicMax, long long, val > old ? val : old)
STRIDED_EMU_ATOMIC(atomicMax, unsigned long long, val > old ? val : old)
STRIDED_EMU_ATOMIC(atomicAnd, int, old & val)
STRIDED_EMU_ATOMIC(atomicAnd, unsigned int, old & val)
STRIDED_EMU_ATOMIC(atomicAnd, unsigned long long, old & val)
STRIDED_EMU_ATOMIC(atomicOr, int, old | val)
STRIDED_EMU_ATOMIC(atomicOr, unsigned int, old | val)
STRIDED_EMU_ATOMIC(atomicOr, unsigned long long, old | val)
STRIDED_EMU_ATOMIC(atomicXor, int, old ^ val)
STRIDED_EMU_ATOMIC(atomicXor, unsigned int, old ^ val)
STRIDED_EMU_ATOMIC(atomicXor, unsigned long long, old ^ val)
STRIDED_EMU_ATOMIC(atomicInc, unsigned int, old >= val ? 0u : old + 1u)
STRIDED_EMU_ATOMIC(atomicDec, unsigned int, (old == 0u || old > val) ? val : old - 1u)
#undef STRIDED_EMU_WRAP
#undef STRIDED_EMU_ATOMIC

#define STRIDED_EMU_CAS(T)                                                                        \
  inline T atomicCAS(T* address, T compare, T val) {                                              \
    T old = *address;                                                                             \
    if (old == compare) *address = val;                                                           \
    return old;                                                                                   \
  }                                                                                               \
  inline T atomicCAS_block(T* address, T compare, T val) { return atomicCAS(address, compare, val); } \
  inline T atomicCAS_system(T* address, T compare, T val) { return atomicCAS(address, compare, val); }
STRIDED_EMU_CAS(int)
STRIDED_EMU_CAS(unsigned int)
STRIDED_EMU_CAS(unsigned long long)
STRIDED_EMU_CAS(unsigned short)
#undef STRIDED_EMU_CAS

// ---------------------------------------------------------------------------------------------
// Integer and bit intrinsics.

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
  return (long long)(((__int128)a * b) >> 64);
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = ((unsigned long long)hi << 32 | lo) << (shift & 31);
  return (unsigned int)(v >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = ((unsigned long long)hi << 32 | lo) >> (shift & 31);
  return (unsigned int)v;
}
template <class T>
inline T __ldg(const T* p) { return *p; }
template <class T>
inline T __ldcs(const T* p) { return *p; }
template <class T>
inline T __ldcg(const T* p) { return *p; }
template <class T>
inline void __stcs(T* p, T v) { *p = v; }
template <class T>
inline void __stcg(T* p, T v) { *p = v; }

// ---------------------------------------------------------------------------------------------
// Reinterpretation and conversion intrinsics.

namespace __attribute__((visibility("hidden"))) strided_emu {
template <class To, class From>
inline To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
  To r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}
}  // namespace strided_emu
inline int __float_as_int(float x) { return strided_emu::bit_cast<int>(x); }
inline unsigned int __float_as_uint(float x) { return strided_emu::bit_cast<unsigned int>(x); }
inline float __int_as_float(int x) { return strided_emu::bit_cast<float>(x); }
inline float __uint_as_float(unsigned int x) { return strided_emu::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return strided_emu::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return strided_emu::bit_cast<double>(x); }
inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo));
}
inline int __float2int_rn(float x) { return (int)rintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline unsigned int __float2uint_rn(float x) { return (unsigned int)rintf(x); }
inline unsigned int __float2uint_rz(float x) { return (unsigned int)x; }
inline long long __float2ll_rn(float x) { return (long long)rintf(x); }
inline long long __float2ll_rz(float x) { return (long long)x; }
inline int __double2int_rn(double x) { return (int)rint(x); }
inline int __double2int_rz(double x) { return (int)x; }
inline long long __double2ll_rn(double x) { return (long long)rint(x); }
inline long long __double2ll_rz(double x) { return (long long)x; }
inline float __double2float_rn(double x) { return (float)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned int x) { return (float)x; }
inline float __ll2float_rn(long long x) { return (float)x; }
inline float __ull2float_rn(unsigned long long x) { return (float)x; }
inline double __ll2double_rn(long long x) { return (double)x; }
inline double __ull2double_rn(unsigned long long x) { return (double)x; }

// ---------------------------------------------------------------------------------------------
// Math beyond <cmath>: CUDA's extra functions and the fast intrinsics (here: the exact ones).

inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline float sinpif(float x) { return sinf((float)M_PI * x); }
inline float cospif(float x) { return cosf((float)M_PI * x); }
inline double sinpi(double x) { return sin(M_PI * x); }
inline double cospi(double x) { return cos(M_PI * x); }
inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dsub_rn(double x, double y) { return x - y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __ddiv_rn(double x, double y) { return x / y; }
inline double __fma_rn(double x, double y, double z) { return fma(x, y, z); }

// min and max as CUDA overloads them: integers of any mix (the usual arithmetic conversions) and
// floats (fmin/fmax: a NaN operand loses).
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> min(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point<T>::value) return std::fmin((T)a, (T)b);
  else return (T)b < (T)a ? (T)b : (T)a;
}
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> max(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point<T>::value) return std::fmax((T)a, (T)b);
  else return (T)b > (T)a ? (T)b : (T)a;
}
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---------------------------------------------------------------------------------------------
// UBSan (STRIDED_EMULATOR_UBSAN=1 compiles with -fsanitize=undefined): the module defines the
// runtime's handlers itself, so a finding becomes a launch error naming the kernel, the thread
// and the source line, instead of a message on stderr or an abort of the interpreter.

#ifdef STRIDED_EMULATOR_UBSAN
namespace __attribute__((visibility("hidden"))) strided_emu {
struct UbsanLocation {
  const char* file;
  uint32_t line, column;
};
struct UbsanType {
  uint16_t kind, info;
  char name[1];
};
inline void ubsan_fail(void* data, const char* what, const char* detail = "") {
  const UbsanLocation* loc = static_cast<const UbsanLocation*>(data);
  fail("UBSan: %s%s at %s:%u:%u", what, detail, loc->file ? loc->file : "?", loc->line,
       loc->column);
}
}  // namespace strided_emu

#define STRIDED_EMU_UBSAN(NAME, WHAT)                                                             \
  extern "C" void __ubsan_handle_##NAME(void* d, void*, void*) { strided_emu::ubsan_fail(d, WHAT); } \
  extern "C" void __ubsan_handle_##NAME##_abort(void* d, void*, void*) {                          \
    strided_emu::ubsan_fail(d, WHAT);                                                             \
  }
STRIDED_EMU_UBSAN(add_overflow, "signed integer overflow in +")
STRIDED_EMU_UBSAN(sub_overflow, "signed integer overflow in -")
STRIDED_EMU_UBSAN(mul_overflow, "signed integer overflow in *")
STRIDED_EMU_UBSAN(negate_overflow, "signed integer overflow in negation")
STRIDED_EMU_UBSAN(divrem_overflow, "integer division overflow or by zero")
STRIDED_EMU_UBSAN(shift_out_of_bounds, "shift exponent out of range")
STRIDED_EMU_UBSAN(vla_bound_not_positive, "variable-length array bound not positive")
STRIDED_EMU_UBSAN(load_invalid_value, "load of an invalid value (bool or enum)")
STRIDED_EMU_UBSAN(pointer_overflow, "pointer arithmetic overflow")
STRIDED_EMU_UBSAN(nonnull_arg, "null passed as a nonnull argument")
STRIDED_EMU_UBSAN(nonnull_return_v1, "null returned from a returns_nonnull function")
STRIDED_EMU_UBSAN(invalid_builtin, "invalid argument to a builtin (__clz(0)?)")
STRIDED_EMU_UBSAN(float_cast_overflow, "float to integer conversion out of range")
#undef STRIDED_EMU_UBSAN
extern "C" void __ubsan_handle_out_of_bounds(void* d, void*) {
  const strided_emu::UbsanType* t = *reinterpret_cast<const strided_emu::UbsanType* const*>(
      static_cast<const char*>(d) + sizeof(strided_emu::UbsanLocation));
  char detail[160];
  std::snprintf(detail, sizeof detail, " (type %s)", t ? t->name : "?");
  strided_emu::ubsan_fail(d, "index out of bounds", detail);
}
extern "C" void __ubsan_handle_out_of_bounds_abort(void* d, void* i) {
  __ubsan_handle_out_of_bounds(d, i);
}
extern "C" void __ubsan_handle_type_mismatch_v1(void* d, void* ptr) {
  strided_emu::ubsan_fail(d, ptr ? "misaligned or undersized access through a pointer"
                                 : "null pointer access");
}
extern "C" void __ubsan_handle_type_mismatch_v1_abort(void* d, void* ptr) {
  __ubsan_handle_type_mismatch_v1(d, ptr);
}
extern "C" void __ubsan_handle_builtin_unreachable(void* d) {
  strided_emu::ubsan_fail(d, "__builtin_unreachable() reached");
}
extern "C" void __ubsan_handle_missing_return(void* d) {
  strided_emu::ubsan_fail(d, "end of a non-void function reached without a return");
}
#endif
