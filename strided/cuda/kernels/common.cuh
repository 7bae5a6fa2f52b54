// The header every strided CUDA source includes: scalar types, a complex type, and the loop
// geometry the host hands to a kernel. See Note [The CUDA launch] in strided/cuda/_launch.py.
//
// The same text is compiled two ways: by NVRTC (through CuPy) for a real GPU, and by g++ against
// the emulator's shim (strided/cuda/_emulator/shim.h, which defines STRIDED_EMULATOR) for the CPU.
// Everything here must mean the same in both.
#pragma once

#ifndef STRIDED_EMULATOR
// NVRTC compiles without the C library headers: the fixed-width types are spelled out here.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#define STRIDED_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

// A bool element is one byte holding 0 or 1, as on the CPU. C++'s bool is that byte (on
// every CUDA target and on x86-64), and a type of its own: uint8 is another type.
typedef bool bool_t;

// Note [CUDA loop geometry]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// The CPU iterator (strided/_iter.pyx) broadcasts, reorders and coalesces the operands of an op
// and ends with a loop shape and, per operand, byte strides. A kernel gets exactly that, as one
// struct passed by value (it lands in the GPU's constant bank, so reading it costs no memory
// traffic): ``sizes`` innermost dim first, ``strides[k]`` operand k's byte steps (operand 0 is
// the output), ``data[k]`` its address, or 0 when operand k is a Python scalar whose value
// sits in ``scalars[k]``. A thread turns its linear index into one byte offset per operand by
// peeling dims off with / and % (PyTorch's OffsetCalculator does the same), in 32-bit
// arithmetic when every offset fits (``index_t``: a 64-bit division costs several times a
// 32-bit one). The outermost dim needs no division: what is left of the index when the inner
// dims are peeled off is already its coordinate there. In 32-bit arithmetic the divisions
// themselves are multiplications by numbers the host computed when it packed the struct
// (``div_magic``, ``div_shift``: Note [Division by a loop size as a multiplication]).
#define STRIDED_MAX_DIMS 25

template <int N>
struct Geometry {
    int64_t sizes[STRIDED_MAX_DIMS];
    int64_t strides[N][STRIDED_MAX_DIMS];
    int64_t data[N];
    int64_t scalars[N][2];  // 16 bytes: room for one element of any dtype
    int32_t ndim;
    uint32_t div_magic[STRIDED_MAX_DIMS];  // sizes[d]'s multiplier, for 32-bit index math
    uint32_t div_shift[STRIDED_MAX_DIMS];  // and its shift (0: outermost dim, sizes >= 2^31)
};

// Note [Division by a loop size as a multiplication]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A GPU has no integer divide instruction: ``n / d`` on 32-bit integers compiles to some twenty
// instructions (a float reciprocal, then corrections), and a strided elementwise kernel does one
// per dim per element, which on an H200 made a broadcast add slower than its memory traffic.
// But d, a loop size, is the same for every thread and known on the host before the launch, so
// the host can do the slow part once (as PyTorch's IntDivider and every compiler dividing by a
// constant do): it picks a shift s and a multiplier m such that, for every 0 <= n < 2^31,
//
//     n / d  ==  (umulhi(n, m) + n) >> s        umulhi(n, m) = the high 32 bits of n * m
//
// which is one multiply-high, one add and one shift. The choice (``int_divider`` in
// strided/cuda/_params.pyx):
//
//     s = ceil(log2(d))  (the smallest s with 2^s >= d; 0 for d = 1)
//     m = floor(2^32 * (2^s - d) / d) + 1        (0 < m < 2^32 because 2^(s-1) < d <= 2^s)
//
// Why it is exact. Write M = 2^32 + m. Then umulhi(n, m) + n = floor(n * M / 2^32), and
// shifting that right by s gives floor(n * M / 2^(32+s)): the formula is n times M/2^(32+s),
// rounded down. By the choice of m, M = floor(2^(32+s) / d) + 1 = (2^(32+s) + e) / d with
// 0 < e <= d. So
//
//     n * M / 2^(32+s)  =  n/d + n * e / (d * 2^(32+s))  =  n/d + err,   0 <= err < 1/d
//
// where err < 1/d because n * e <= n * d < 2^32 * 2^s (n < 2^32, d <= 2^s). Write n/d as
// q + r/d with the remainder r <= d - 1: then q <= n/d + err < q + (r + 1)/d <= q + 1, so the
// floor is exactly q. A multiplier just above 2^(32+s)/d overshoots n/d, but by less than the
// gap 1/d between n/d and the next integer.
//
// The bound on n, 2^31, comes from the 32-bit addition: umulhi(n, m) < n (as m < 2^32), so the
// sum is below 2n, which fits 32 bits only for n < 2^31. Every index a 32-bit kernel divides is
// an element number below the count, and the host takes the 32-bit kernels only for counts
// below 2^31 (``fits_int32``), whose loop sizes are below 2^31 too. The 64-bit kernels divide
// as written: their multiply-high would need 128-bit products, rarely worth it at 2^31 elements
// and more. tests/test_cuda_emulator.py checks ``int_divider`` against Python's // for many
// divisors and numerators; the emulator's ``__umulhi`` (strided/cuda/_emulator/shim.h) is the
// GPU's: the high half of the 64-bit product.
__device__ __forceinline__ uint32_t divide_by_magic(uint32_t n, uint32_t magic, uint32_t shift) {
    return (__umulhi(n, magic) + n) >> shift;
}

template <int N, typename index_t>
__device__ __forceinline__ void operand_offsets(const Geometry<N>& g, index_t i, index_t* off) {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    const int outer = g.ndim - 1;
    for (int d = 0; d < outer; ++d) {  // a runtime loop: 0 to 2 trips after coalescing, mostly
        index_t size = (index_t)g.sizes[d];
        index_t q;
        if constexpr (sizeof(index_t) == 4) {
            q = (index_t)divide_by_magic((uint32_t)i, g.div_magic[d], g.div_shift[d]);
        } else {
            q = i / size;
        }
        index_t r = i - q * size;
        i = q;
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += r * (index_t)g.strides[k][d];
    }
    if (outer >= 0) {  // the outermost coordinate is what is left of i (a 0-d loop has none)
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += i * (index_t)g.strides[k][outer];
    }
}

// Operand k's scalar, the bytes the host put in ``g.scalars[k]``, as a T. ``scalars`` is only
// 8-byte aligned in the struct (it starts 8 bytes past a multiple of 16), while a complex128 is
// a 16-byte-aligned type: reading it through a ``const T*`` would tell the compiler it may load
// the 16 bytes at once, which needs an address 16 bytes aligned (the emulator's UBSan build
// reports it). Copying the bytes into a T asks for no alignment the struct does not have.
template <typename T, int N>
__device__ __forceinline__ T scalar_operand(const Geometry<N>& g, int k) {
    T v;
    memcpy(&v, &g.scalars[k][0], sizeof(T));
    return v;
}

// Operand k at byte offset ``off``: an element of memory, or the scalar the host passed.
template <typename T, int N, typename index_t>
__device__ __forceinline__ T load_operand(const Geometry<N>& g, int k, index_t off) {
    if (g.data[k] == 0) return scalar_operand<T>(g, k);
    return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(g.data[k]) + off);
}

template <typename T, int N, typename index_t>
__device__ __forceinline__ T* operand_ptr(const Geometry<N>& g, int k, index_t off) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(g.data[k]) + off);
}

// ---- complex numbers -----------------------------------------------------------------------
// Two floats (or doubles) side by side, laid out as NumPy's complex64/complex128. The functions
// follow the textbook formulas on finite values; see Note [CUDA complex functions] in
// strided/cuda/_elementwise.py for what that means at infinities and NaNs.
template <typename T>
struct alignas(2 * sizeof(T)) cplx {
    T re, im;
};
typedef cplx<float> complex64_t;
typedef cplx<double> complex128_t;

template <typename T> struct is_complex { static const bool value = false; };
template <typename T> struct is_complex<cplx<T> > { static const bool value = true; };
template <typename T> struct real_of { typedef T type; };
template <typename T> struct real_of<cplx<T> > { typedef T type; };
template <typename T> struct is_float { static const bool value = false; };
template <> struct is_float<float> { static const bool value = true; };
template <> struct is_float<double> { static const bool value = true; };
template <typename T> struct is_signed_int { static const bool value = false; };
template <> struct is_signed_int<int8_t> { static const bool value = true; };
template <> struct is_signed_int<int16_t> { static const bool value = true; };
template <> struct is_signed_int<int32_t> { static const bool value = true; };
template <> struct is_signed_int<int64_t> { static const bool value = true; };

template <typename T>
__device__ __forceinline__ cplx<T> mkc(T re, T im) {
    cplx<T> z;
    z.re = re;
    z.im = im;
    return z;
}
template <typename T>
__device__ __forceinline__ cplx<T> operator+(cplx<T> a, cplx<T> b) { return mkc(a.re + b.re, a.im + b.im); }
template <typename T>
__device__ __forceinline__ cplx<T> operator-(cplx<T> a, cplx<T> b) { return mkc(a.re - b.re, a.im - b.im); }
template <typename T>
__device__ __forceinline__ cplx<T> operator-(cplx<T> a) { return mkc(-a.re, -a.im); }
template <typename T>
__device__ __forceinline__ cplx<T> operator*(cplx<T> a, cplx<T> b) {
    return mkc(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <typename T>
__device__ __forceinline__ cplx<T> operator/(cplx<T> a, cplx<T> b) {
    // Smith's algorithm (as NumPy): scale by the larger part of b to avoid overflow
    T abr = fabs(b.re), abi = fabs(b.im);
    if (abr >= abi) {
        if (abr == 0 && abi == 0) return mkc(a.re / abr, a.im / abi);
        T rat = b.im / b.re, scl = (T)1 / (b.re + b.im * rat);
        return mkc((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    T rat = b.re / b.im, scl = (T)1 / (b.im + b.re * rat);
    return mkc((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <typename T>
__device__ __forceinline__ bool operator==(cplx<T> a, cplx<T> b) { return a.re == b.re && a.im == b.im; }
template <typename T>
__device__ __forceinline__ bool operator!=(cplx<T> a, cplx<T> b) { return !(a == b); }

// ---- float16 and bfloat16 ------------------------------------------------------------------
// Note [CUDA half types]
// ~~~~~~~~~~~~~~~~~~~~~~
// ``half_t`` and ``bfloat16_t`` (the "cuda" column of the dtype table's two half rows) are a
// struct holding the 16 bits, as the CPU kernels hold a uint16_t (Note [Half precision: 16 bits
// stored, float computed] in strided/_cpu/scalar_math.h). They have no arithmetic of their own:
// a kernel widens to float with scalar_math.h's conversions, computes, and rounds once with
// them. The same functions as the CPU's, compiled from the same text, so every cast and every
// elementwise result is bit for bit the CPU's (NaN payloads included for casts), on a GPU and
// under the emulator's g++ alike. CUDA's own ``__half``/``__nv_bfloat16`` (cuda_fp16.h) also
// round to nearest even, but their NaN handling is theirs, and NVRTC would need the CUDA
// include path to find the headers. On a GPU the arithmetic kernels convert with the
// hardware's instructions instead, which give the same bits but a NaN's payload: Note
// [Hardware half conversions in the arithmetic kernels] below. Only index_add needs a ``+``:
// one float addition rounded once, as the CPU's scatter-add loop does it.
#include "../../_cpu/scalar_math.h"

struct alignas(2) half_t {
    uint16_t bits;
};
struct alignas(2) bfloat16_t {
    uint16_t bits;
};
template <typename T> struct is_half { static const bool value = false; };
template <> struct is_half<half_t> { static const bool value = true; };
template <> struct is_half<bfloat16_t> { static const bool value = true; };
template <typename A, typename B> struct same_type { static const bool value = false; };
template <typename A> struct same_type<A, A> { static const bool value = true; };

__device__ __forceinline__ float half_widen(half_t h) { return strided_f16_to_f32(h.bits); }
__device__ __forceinline__ float half_widen(bfloat16_t h) { return strided_bf16_to_f32(h.bits); }
__device__ __forceinline__ double half_widen64(half_t h) { return strided_f16_to_f64(h.bits); }
__device__ __forceinline__ double half_widen64(bfloat16_t h) { return strided_bf16_to_f64(h.bits); }
template <typename H> __device__ __forceinline__ H half_bits(uint16_t bits) {
    H h;
    h.bits = bits;
    return h;
}
// x rounded once to H: from a float, or from a double directly (NumPy's float16 rule; bfloat16's
// goes through float, as ml_dtypes does: scalar_math.h's strided_f64_to_bf16)
template <typename H> __device__ __forceinline__ H half_round(float x);
template <> __device__ __forceinline__ half_t half_round<half_t>(float x) {
    return half_bits<half_t>(strided_f32_to_f16(x));
}
template <> __device__ __forceinline__ bfloat16_t half_round<bfloat16_t>(float x) {
    return half_bits<bfloat16_t>(strided_f32_to_bf16(x));
}
template <typename H> __device__ __forceinline__ H half_round64(double x);
template <> __device__ __forceinline__ half_t half_round64<half_t>(double x) {
    return half_bits<half_t>(strided_f64_to_f16(x));
}
template <> __device__ __forceinline__ bfloat16_t half_round64<bfloat16_t>(double x) {
    return half_bits<bfloat16_t>(strided_f64_to_bf16(x));
}

// Note [Hardware half conversions in the arithmetic kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// scalar_math.h's float16 conversions are a dozen integer instructions each way, and an
// elementwise op on float16 does both for every element: on an H200 a float16 add of 1e8
// elements took 367 us, 3.7x the time of its memory traffic, where the bfloat16 add (whose
// conversions are a shift and a rounding add) took 171 us. A GPU converts in one instruction:
// ``cvt.f32.f16`` widens exactly (subnormals included), ``cvt.rn.f16.f32`` rounds to nearest
// even with IEEE's subnormals and overflow to infinity, and ``cvt.rn.bf16.f32`` (sm_80 and
// later) does the same for bfloat16. For every value these give the bits the software gives;
// for a NaN they give a NaN, but not necessarily the same one (the hardware's canonical NaN,
// where the software keeps NumPy's payload). So they are used where a NaN's payload is
// computed anyway, the loads and stores of the arithmetic kernels (``half_op`` in ops.cuh,
// ``op_result`` in elementwise.cu, the half reductions in reduce.cu), whose NaN results the
// tests compare as NaNs, as they do the CPU's; casts (``cast`` below: copy.cu) move a NaN's
// bits and keep the software conversions, bit for bit the CPU's. A widened NaN gets its sign
// back from the 16 bits (signbit and copysign read it). The emulator, and any GPU older than
// sm_80 for bfloat16, keeps the software path (``__CUDA_ARCH__`` is defined only when NVRTC
// compiles for a GPU), which gives the same bits but NaN payloads; inline PTX needs no header.
__device__ __forceinline__ float half_load(half_t h) {
#ifdef __CUDA_ARCH__
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return __uint_as_float((__float_as_uint(f) & 0x7FFFFFFFu) | ((uint32_t)(h.bits & 0x8000u) << 16));
#else
    return strided_f16_to_f32(h.bits);
#endif
}
__device__ __forceinline__ float half_load(bfloat16_t h) {
    return strided_bf16_to_f32(h.bits);  // a shift: nothing for the hardware to save
}
template <typename H> __device__ __forceinline__ H half_store(float x);
template <> __device__ __forceinline__ half_t half_store<half_t>(float x) {
#ifdef __CUDA_ARCH__
    uint16_t r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x));
    return half_bits<half_t>(r);
#else
    return half_round<half_t>(x);
#endif
}
template <> __device__ __forceinline__ bfloat16_t half_store<bfloat16_t>(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint16_t r;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(x));
    return half_bits<bfloat16_t>(r);
#else
    return half_round<bfloat16_t>(x);
#endif
}

__device__ __forceinline__ half_t operator+(half_t a, half_t b) {
    return half_round<half_t>(half_widen(a) + half_widen(b));
}
__device__ __forceinline__ bfloat16_t operator+(bfloat16_t a, bfloat16_t b) {
    return half_round<bfloat16_t>(half_widen(a) + half_widen(b));
}

// Conversions between element types, including complex (real -> (x, 0); complex -> its real
// part, as NumPy's astype does with a ComplexWarning).
template <typename To, typename From>
struct convert {
    __device__ __forceinline__ static To run(From x) { return (To)x; }
};
template <typename From>
struct convert<bool_t, From> {
    __device__ __forceinline__ static bool_t run(From x) { return x != (From)0; }
};
template <typename T, typename From>
struct convert<cplx<T>, From> {
    __device__ __forceinline__ static cplx<T> run(From x) { return mkc((T)x, (T)0); }
};
template <typename To, typename T>
struct convert<To, cplx<T> > {
    __device__ __forceinline__ static To run(cplx<T> x) { return (To)x.re; }
};
template <typename T>
struct convert<bool_t, cplx<T> > {
    __device__ __forceinline__ static bool_t run(cplx<T> x) { return x.re != 0 || x.im != 0; }
};
template <typename T, typename U>
struct convert<cplx<T>, cplx<U> > {
    __device__ __forceinline__ static cplx<T> run(cplx<U> x) { return mkc((T)x.re, (T)x.im); }
};
// A half converts as _cpu/copy.pyx.tp's half loops do: widened through double for a double or
// complex128 destination, through float for every other; to bool, any bit but the sign's (NaN
// is true, -0.0 false); narrowed from a double or complex128 directly, from the rest through
// float (an integer's C conversion to float, then the one rounding).
template <typename To, typename From>
__device__ __forceinline__ To cast(From x) {
    if constexpr (is_half<From>::value) {
        if constexpr (same_type<To, From>::value) return x;
        else if constexpr (is_half<To>::value) return half_round<To>(half_widen(x));
        else if constexpr (same_type<To, bool_t>::value) return (x.bits & 0x7FFFu) != 0;
        else if constexpr (same_type<To, double>::value || same_type<To, complex128_t>::value)
            return convert<To, double>::run(half_widen64(x));
        else return convert<To, float>::run(half_widen(x));
    } else if constexpr (is_half<To>::value) {
        if constexpr (same_type<From, double>::value) return half_round64<To>(x);
        else if constexpr (same_type<From, complex128_t>::value) return half_round64<To>(x.re);
        else if constexpr (same_type<From, complex64_t>::value) return half_round<To>(x.re);
        else return half_round<To>((float)x);
    } else {
        return convert<To, From>::run(x);
    }
}

// An arithmetic kernel's result, computed in float for a half output, rounded once by the
// hardware (Note [Hardware half conversions in the arithmetic kernels]); any other result is
// converted as a cast.
template <typename To, typename From>
__device__ __forceinline__ To op_result(From x) {
    if constexpr (is_half<To>::value && same_type<From, float>::value) return half_store<To>(x);
    else return cast<To>(x);
}
