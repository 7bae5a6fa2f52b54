/* The scalar math of the elementwise kernels, written once for the CPU loops (the Cython
 * modules, compiled as C) and the CUDA kernels (compiled by NVRTC for a GPU, and by g++ as C++
 * in the CUDA emulator).
 *
 * Note [One scalar-math source]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * For most ops NumPy's meaning is C's spelling: ``a + b``, ``sqrtf(x)``. A few ops are not:
 * C's integer division and remainder round toward zero (NumPy's toward -inf) and die on x / 0;
 * C's fmax ignores a NaN (NumPy's maximum propagates it); a shift by the width or more is
 * undefined in C (0 or -1 in NumPy); exp overflows inside the obvious logaddexp; CUDA's
 * nextafterf skips the subnormals. Each of these is one small function here, and both devices
 * call it: the generated CPU loops (_cpu/binary.pyx.tp, reduce.pyx.tp) and the CUDA functors
 * (cuda/kernels/ops.cuh, reduce.cu). Written twice, once in Cython and once in CUDA C++, they
 * had drifted apart; PyTorch keeps its scalar math the same way, as C10_HOST_DEVICE functions
 * in headers that its CPU and CUDA kernels both include.
 *
 * One text, three compilers:
 * - C (gcc, the Cython extensions): scalar_math.pxd (rendered from scalar_math.pxd.tp)
 *   declares every function below in a ``cdef extern from "scalar_math.h"`` block, and an
 *   expression row calls it by name. The functions are ``static inline``: after inlining, the
 *   loop is the same as if the expression were written out in it, and vectorises the same.
 * - CUDA C++ under NVRTC: ops.cuh includes this file after common.cuh, which gives it the
 *   fixed-width integer types (NVRTC has no system headers; its math functions, expf and
 *   friends, are built in). STRIDED_HD marks every function ``__host__ __device__``.
 * - C++ under the emulator: g++ compiles the same kernel text after the emulator's shim.h,
 *   which has included the C library's headers.
 *
 * C has no overloading, so each function is defined once per C type by a macro over the types
 * (STRIDED_SIGNED_MATH and its siblings below), and its C name carries the type as a suffix:
 * ``strided_floordiv_i32``, ``strided_maximum_f64`` (i8 ... i64, u8 ... u64, f32, f64; bool
 * uses u8, as the CPU kernels read it as uint8_t; ``MATH_SUFFIX`` in strided/_dtype_table.py
 * gives each dtype's, and ``{t}`` in an expression row of the templates becomes it). Under C++
 * the same macro names the function without the suffix (STRIDED_FN), so the CUDA functors
 * write ``strided_floordiv(a, b, flag)`` and overload resolution picks the type: one body, two
 * spellings, no forwarding layer.
 *
 * The file lives in _cpu/ next to the other C headers of the CPU build (setup.py's include
 * dirs reach it); the CUDA side reaches it by its relative path: ops.cuh includes
 * "../../_cpu/scalar_math.h", which strided/cuda/_launch.py's source() pastes into the kernel
 * text, as it does every quoted include (so CuPy's and the emulator's caches see a change
 * here). pyproject.toml ships the _cpu headers as package data, so that an installed package
 * finds it at run time.
 *
 * The second half of the file is the host's vectorisable layer (Note [Vectorisable math]):
 * branch-free versions of exp, tanh and sigmoid that the C compiler turns into SIMD, and the
 * complex helpers of the unary table. It is C only (C99 complex numbers); the GPU has fast
 * exp and friends of its own, and ops.cuh's complex functions work on its cplx struct.
 *
 * A new scalar function: write it once in the macro of its kind, declare it in
 * scalar_math.pxd.tp, and call it from its row of unary.pyx.tp or binary.pyx.tp and from its
 * functor in ops.cuh. tests/test_elementwise.py checks the CPU against NumPy, and
 * tests/test_cuda_opinfo.py the CUDA kernels (on the emulator where there is no GPU).
 */
#ifndef STRIDED_SCALAR_MATH_H
#define STRIDED_SCALAR_MATH_H

#ifndef __CUDACC_RTC__  /* NVRTC has no system headers: common.cuh has given the int types */
#include <math.h>
#include <stdint.h>
#endif

#ifndef STRIDED_HD
#ifdef __CUDACC__  /* nvcc or NVRTC; C++ inline functions, so an unused one is no warning */
#define STRIDED_HD __host__ __device__ __forceinline__
#else
#define STRIDED_HD static inline
#endif
#endif

#ifdef __cplusplus
#define STRIDED_FN(name, suffix) strided_##name              /* overloaded by argument type */
#else
#define STRIDED_FN(name, suffix) strided_##name##_##suffix   /* C: one name per type */
#endif

/* Note [Integer division by zero]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * C makes x / 0 and x % 0 undefined (on x86 the process dies of SIGFPE), and so is
 * INT_MIN / -1. NumPy defines them: x // 0 == 0, x % 0 == 0, and INT_MIN // -1 == INT_MIN (it
 * wraps), with a RuntimeWarning. strided gives the same values; the functions set *flag to 1,
 * the kernels pass the flag in their context, and the caller turns it into the same
 * RuntimeWarning (strided/_errstate.py). *flag = 2 is an integer to a negative power, which
 * NumPy rejects with a ValueError. The CUDA kernels write the same flag to device memory, and
 * the host reads it back only for the ops that can set it.
 */

/* ---- every integer type: T and its suffix S ---------------------------------------------- */
#define STRIDED_INTEGER_MAXMIN(T, S)                                                           \
STRIDED_HD T STRIDED_FN(maximum, S)(T a, T b) { return a >= b ? a : b; }                       \
STRIDED_HD T STRIDED_FN(minimum, S)(T a, T b) { return a <= b ? a : b; }

/* ---- signed integers: T, its suffix S, and the unsigned type of its width UT (suffix US) -- */
#define STRIDED_SIGNED_MATH(T, S, UT, US)                                                      \
STRIDED_HD T STRIDED_FN(floordiv, S)(T a, T b, int* flag) {                                    \
    T q;                                                                                       \
    if (b == 0) {                                                                              \
        *flag = 1;                                                                             \
        return 0;                                                                              \
    }                                                                                          \
    if (b == -1) return (T)(0 - (uint64_t)a);  /* wraps for the most negative value */        \
    q = (T)(a / b);                            /* C truncates toward zero... */               \
    if (a % b != 0 && ((a < 0) != (b < 0))) q -= 1;   /* ...NumPy floors */                   \
    return q;                                                                                  \
}                                                                                              \
STRIDED_HD T STRIDED_FN(remainder, S)(T a, T b, int* flag) {                                   \
    T r;                                                                                       \
    if (b == 0) {                                                                              \
        *flag = 1;                                                                             \
        return 0;                                                                              \
    }                                                                                          \
    if (b == -1) return 0;                                                                     \
    r = (T)(a % b);                            /* C: the sign of a; NumPy: the sign of b */   \
    if (r != 0 && ((r < 0) != (b < 0))) r += b;                                                \
    return r;                                                                                  \
}                                                                                              \
STRIDED_HD T STRIDED_FN(pow, S)(T base, T exponent, int* flag) {                               \
    if (exponent < 0) {                                                                        \
        *flag = 2;                                                                             \
        return 0;                                                                              \
    }                                                                                          \
    /* two's complement: the low bits of a product do not depend on the sign */               \
    return (T)STRIDED_FN(pow, US)((UT)base, (UT)exponent, flag);                               \
}                                                                                              \
STRIDED_HD T STRIDED_FN(shl, S)(T a, T b) {                                                    \
    /* NumPy: shifting by the width or more gives 0; so does a negative shift */              \
    if (b < 0 || b >= (T)(sizeof(T) * 8)) return 0;                                           \
    return (T)((uint64_t)a << b);                                                              \
}                                                                                              \
STRIDED_HD T STRIDED_FN(shr, S)(T a, T b) {                                                    \
    /* arithmetic shift; past the width: 0 for a >= 0, -1 for a < 0 */                        \
    if (b < 0 || b >= (T)(sizeof(T) * 8)) return (T)(a < 0 ? -1 : 0);                          \
    return (T)(a >> b);                                                                        \
}                                                                                              \
STRIDED_INTEGER_MAXMIN(T, S)

/* ---- unsigned integers ------------------------------------------------------------------ */
#define STRIDED_UNSIGNED_MATH(T, S)                                                            \
STRIDED_HD T STRIDED_FN(floordiv, S)(T a, T b, int* flag) {                                    \
    if (b == 0) {                                                                              \
        *flag = 1;                                                                             \
        return 0;                                                                              \
    }                                                                                          \
    return (T)(a / b);                                                                         \
}                                                                                              \
STRIDED_HD T STRIDED_FN(remainder, S)(T a, T b, int* flag) {                                   \
    if (b == 0) {                                                                              \
        *flag = 1;                                                                             \
        return 0;                                                                              \
    }                                                                                          \
    return (T)(a % b);                                                                         \
}                                                                                              \
STRIDED_HD T STRIDED_FN(pow, S)(T base, T exponent, int* flag) {                               \
    /* base ** exponent by squaring, wrapping as NumPy does (in uint64_t: a uint16_t product  \
     * would be promoted to int and could overflow it) */                                     \
    T result = 1;                                                                              \
    (void)flag;                                                                                \
    while (exponent) {                                                                         \
        if (exponent & 1) result = (T)((uint64_t)result * base);                               \
        exponent >>= 1;                                                                        \
        base = (T)((uint64_t)base * base);                                                     \
    }                                                                                          \
    return result;                                                                             \
}                                                                                              \
STRIDED_HD T STRIDED_FN(shl, S)(T a, T b) {                                                    \
    if (b >= (T)(sizeof(T) * 8)) return 0;                                                     \
    return (T)((uint64_t)a << b);                                                              \
}                                                                                              \
STRIDED_HD T STRIDED_FN(shr, S)(T a, T b) {                                                    \
    if (b >= (T)(sizeof(T) * 8)) return 0;                                                     \
    return (T)(a >> b);                                                                        \
}                                                                                              \
STRIDED_INTEGER_MAXMIN(T, S)

/* log1p(exp(x)), logaddexp's correction term. float32's is computed in double on the host
 * (glibc's log1pf takes 1.5 times as long as its log1p, and the result is as close or closer),
 * and in float on a GPU, where double arithmetic is slow (1/64 of float's rate on many cards). */
STRIDED_HD float STRIDED_FN(log1pexp, f32)(float x) {
#ifdef __CUDA_ARCH__
    return log1pf(expf(x));
#else
    return (float)log1p(exp((double)x));
#endif
}

STRIDED_HD double STRIDED_FN(log1pexp, f64)(double x) {
    return log1p(exp(x));
}

/* ---- real floats: T, its suffix S, F the suffix of its C math functions ("f" for float,
 * nothing for double: fmod##F is fmodf or fmod), and UT the unsigned integer of its bits --- */
#define STRIDED_FLOAT_MATH(T, S, F, UT)                                                        \
STRIDED_HD T STRIDED_FN(floordiv, S)(T a, T b) {                                               \
    /* NumPy: floor(a / b), computed through fmod so that it agrees with remainder */         \
    T mod, div;                                                                                \
    if (b == 0) return a / b;                                                                  \
    mod = fmod##F(a, b);                                                                       \
    div = (a - mod) / b;                                                                       \
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;                                          \
    if (div != 0) return floor##F(div) + (div - floor##F(div) > (T)0.5 ? (T)1 : (T)0);          \
    return (T)0 * (a / b);                     /* a signed zero, as NumPy gives */            \
}                                                                                              \
STRIDED_HD T STRIDED_FN(remainder, S)(T a, T b) {                                              \
    /* NumPy: the result has the sign of b */                                                 \
    T mod;                                                                                     \
    if (b == 0) return fmod##F(a, b);          /* NaN */                                      \
    mod = fmod##F(a, b);                                                                       \
    if (mod != 0) {                                                                            \
        if ((b < 0) != (mod < 0)) mod += b;                                                    \
    } else {                                                                                   \
        mod = copysign##F((T)0, b);            /* 0 * b would be NaN for b = inf */           \
    }                                                                                          \
    return mod;                                                                                \
}                                                                                              \
STRIDED_HD T STRIDED_FN(maximum, S)(T a, T b) {                                                \
    /* NumPy's maximum: NaN if either is NaN (C's fmax returns the other one); of two equal   \
     * values the second, so maximum(0.0, -0.0) is -0.0, as NumPy's loops give */            \
    if (a != a) return a;                                                                      \
    if (b != b) return b;                                                                      \
    return a > b ? a : b;                                                                      \
}                                                                                              \
STRIDED_HD T STRIDED_FN(minimum, S)(T a, T b) {                                                \
    if (a != a) return a;                                                                      \
    if (b != b) return b;                                                                      \
    return a < b ? a : b;                                                                      \
}                                                                                              \
STRIDED_HD T STRIDED_FN(logaddexp, S)(T a, T b) {                                              \
    /* log(exp(a) + exp(b)) without overflow: max + log1p(exp(-|a - b|)) */                   \
    T m;                                                                                       \
    if (a == b) return a + (T)0.6931471805599453;   /* log(2); also right for +-inf */         \
    if (a != a || b != b) return a + b;                                                        \
    m = a > b ? a : b;                                                                         \
    return m + STRIDED_FN(log1pexp, S)(-fabs##F(a - b));                                       \
}                                                                                              \
STRIDED_HD T STRIDED_FN(nextafter, S)(T x, T y) {                                              \
    /* The next float after x toward y, by stepping x's bit pattern: the patterns of floats   \
     * of one sign are ordered as the integers are, subnormals included. (C's nextafter does  \
     * the same; CUDA's steps from 0 straight to the smallest normal.) */                     \
    union { T f; UT u; } v;                                                                    \
    if (x != x || y != y) return x + y;                                                        \
    if (x == y) return y;                      /* nextafter(0.0, -0.0) is -0.0 */             \
    if (x == 0) {                              /* the smallest subnormal, on y's side */       \
        v.u = 1;                                                                               \
        return y > 0 ? v.f : -v.f;                                                             \
    }                                                                                          \
    v.f = x;                                                                                   \
    if ((x < y) == (x > 0)) v.u += 1;          /* away from zero */                           \
    else v.u -= 1;                             /* toward zero */                              \
    return v.f;                                                                                \
}

/* Unsigned first: the signed pow calls the unsigned one of its width. */
STRIDED_UNSIGNED_MATH(uint8_t, u8)
STRIDED_UNSIGNED_MATH(uint16_t, u16)
STRIDED_UNSIGNED_MATH(uint32_t, u32)
STRIDED_UNSIGNED_MATH(uint64_t, u64)
STRIDED_SIGNED_MATH(int8_t, i8, uint8_t, u8)
STRIDED_SIGNED_MATH(int16_t, i16, uint16_t, u16)
STRIDED_SIGNED_MATH(int32_t, i32, uint32_t, u32)
STRIDED_SIGNED_MATH(int64_t, i64, uint64_t, u64)
STRIDED_FLOAT_MATH(float, f32, f, uint32_t)
STRIDED_FLOAT_MATH(double, f64, , uint64_t)

/* Note [The order of complex numbers]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * C has no order on complex numbers; NumPy's comparisons, maximum and minimum have one: by the
 * real part, then by the imaginary part (its loops' CLT, CLE, CGT, CGE). A NaN imaginary part on
 * either side leaves a decision by the real parts undecided (false), so that NaN compares false
 * as it does for reals. These functions take the four real parts, so that the CPU loops
 * (through strided_lt_c64 and its siblings in the C99 layer below) and the CUDA functors (the
 * cplx struct's ``a.re``, ops.cuh) call one text. T is the real type, S the complex dtype's
 * suffix (c64, c128). maximum picks a where a has a NaN or cgreater_equal(a, b) holds, else b;
 * minimum the same with cless_equal (NumPy's rule). The tests are combined with & and |, not
 * && and ||: no branch per element, so the loops can select without mispredictions. */
#define STRIDED_COMPLEX_ORDER(T, S)                                                            \
STRIDED_HD int STRIDED_FN(cless, S)(T ar, T ai, T br, T bi) {                                  \
    return ((ar < br) & (ai == ai) & (bi == bi)) | ((ar == br) & (ai < bi));                   \
}                                                                                              \
STRIDED_HD int STRIDED_FN(cless_equal, S)(T ar, T ai, T br, T bi) {                            \
    return ((ar < br) & (ai == ai) & (bi == bi)) | ((ar == br) & (ai <= bi));                  \
}                                                                                              \
STRIDED_HD int STRIDED_FN(cgreater, S)(T ar, T ai, T br, T bi) {                               \
    return ((ar > br) & (ai == ai) & (bi == bi)) | ((ar == br) & (ai > bi));                   \
}                                                                                              \
STRIDED_HD int STRIDED_FN(cgreater_equal, S)(T ar, T ai, T br, T bi) {                         \
    return ((ar > br) & (ai == ai) & (bi == bi)) | ((ar == br) & (ai >= bi));                  \
}                                                                                              \
STRIDED_HD int STRIDED_FN(cmaximum_takes_a, S)(T ar, T ai, T br, T bi) {                       \
    return (ar != ar) | (ai != ai) | STRIDED_FN(cgreater_equal, S)(ar, ai, br, bi);            \
}                                                                                              \
STRIDED_HD int STRIDED_FN(cminimum_takes_a, S)(T ar, T ai, T br, T bi) {                       \
    return (ar != ar) | (ai != ai) | STRIDED_FN(cless_equal, S)(ar, ai, br, bi);               \
}
STRIDED_COMPLEX_ORDER(float, c64)
STRIDED_COMPLEX_ORDER(double, c128)

/* Note [Complex division, reciprocal and power as NumPy's]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * NumPy does not leave these to C. It divides by Smith's method (scale by the larger part of the
 * divisor; a zero divisor gives x / 0 part by part), takes the reciprocal by a two-branch form
 * of the same idea, and raises to a power through npy_cpow: x ** 0 is 1, 0 ** y is 0 when
 * y.real > 0 and NaN otherwise, an integer exponent below 100 in size by repeated squaring
 * (a negative one divides 1 by the product), and only the rest through the C library's cpow.
 * C's complex division (gcc's __divdc3) and cpow give other last bits, other signs of zero and
 * other answers at 0 and infinity ((1+2j) ** 3 is not exactly -11-2j through cpow). These are
 * NumPy's steps on the real parts, for the CPU loops (through the C99 wrappers below) and the
 * CUDA functors (ops.cuh; its cplx operator/ in common.cuh is the same Smith's method).
 * cpow_parts returns 0 where the exponent is not one of its cases: the caller then uses its
 * general formula (cpow on the host, exp(b log a) on a GPU). F is the C library's suffix. */
#define STRIDED_COMPLEX_ARITH(T, S, F)                                                         \
STRIDED_HD void STRIDED_FN(cdiv_parts, S)(T ar, T ai, T br, T bi, T* re, T* im) {              \
    T abr = fabs##F(br), abi = fabs##F(bi), rat, scl;        /* |-0.0| is +0.0: x / +0 */     \
    if (abr >= abi) {                                                                          \
        if (abr == 0 && abi == 0) {                                                            \
            *re = ar / abr;                                                                    \
            *im = ai / abr;                                                                    \
            return;                                                                            \
        }                                                                                      \
        rat = bi / br;                                                                         \
        scl = (T)1 / (br + bi * rat);                                                          \
        *re = (ar + ai * rat) * scl;                                                           \
        *im = (ai - ar * rat) * scl;                                                           \
    } else {                                                                                   \
        rat = br / bi;                                                                         \
        scl = (T)1 / (bi + br * rat);                                                          \
        *re = (ar * rat + ai) * scl;                                                           \
        *im = (ai * rat - ar) * scl;                                                           \
    }                                                                                          \
}                                                                                              \
STRIDED_HD void STRIDED_FN(crecip_parts, S)(T r, T i, T* re, T* im) {                          \
    T q, d;                                                                                    \
    if (fabs##F(i) <= fabs##F(r)) {                                                            \
        q = i / r;                                                                             \
        d = r + i * q;                                                                         \
        *re = (T)1 / d;                                                                        \
        *im = -q / d;                                                                          \
    } else {                                                                                   \
        q = r / i;                                                                             \
        d = r * q + i;                                                                         \
        *re = q / d;                                                                           \
        *im = (T)-1 / d;                                                                       \
    }                                                                                          \
}                                                                                              \
STRIDED_HD int STRIDED_FN(cpow_parts, S)(T ar, T ai, T br, T bi, T* re, T* im) {               \
    long n, m, mask;                                                                           \
    T rr = 1, ri = 0, pr = ar, pi = ai, t;                                                     \
    if (br == 0 && bi == 0) {                                                                  \
        *re = 1;                                                                               \
        *im = 0;                                                                               \
        return 1;                                                                              \
    }                                                                                          \
    if (ar == 0 && ai == 0) {                  /* NaN (and 'invalid') unless y.real > 0 */     \
        *re = *im = br > 0 ? (T)0 : (T)0 / (T)0;                                               \
        return 1;                                                                              \
    }                                                                                          \
    if (bi != 0 || !(br > -100 && br < 100) || br != (T)(long)br) return 0;                    \
    n = (long)br;                                                                              \
    m = n < 0 ? -n : n;                                                                        \
    if (n == 1) {                              /* a itself: 1 * a would turn 0 * inf to NaN */ \
        *re = ar;                                                                              \
        *im = ai;                                                                              \
        return 1;                                                                              \
    }                                                                                          \
    if (n == 2 || n == 3) {                    /* NumPy's unrolled a * a and a * (a * a) */   \
        rr = ar * ar - ai * ai;                                                                \
        ri = ar * ai + ai * ar;                                                                \
        if (n == 3) {                                                                          \
            t = ar * rr - ai * ri;                                                             \
            ri = ar * ri + ai * rr;                                                            \
            rr = t;                                                                            \
        }                                                                                      \
        *re = rr;                                                                              \
        *im = ri;                                                                              \
        return 1;                                                                              \
    }                                                                                          \
    for (mask = 1;; mask <<= 1) {              /* by squaring, low bit first */               \
        if (m & mask) {                                                                        \
            t = rr * pr - ri * pi;                                                             \
            ri = rr * pi + ri * pr;                                                            \
            rr = t;                                                                            \
        }                                                                                      \
        if (m < (mask << 1)) break;                                                            \
        t = pr * pr - pi * pi;                                                                 \
        pi = pr * pi + pi * pr;                                                                \
        pr = t;                                                                                \
    }                                                                                          \
    if (n < 0) {                                                                               \
        STRIDED_FN(cdiv_parts, S)((T)1, (T)0, rr, ri, re, im);                                 \
    } else {                                                                                   \
        *re = rr;                                                                              \
        *im = ri;                                                                              \
    }                                                                                          \
    return 1;                                                                                  \
}
STRIDED_COMPLEX_ARITH(float, c64, f)
STRIDED_COMPLEX_ARITH(double, c128, )

/* ---- half precision: float16 and bfloat16, stored in 16 bits, computed in float ---------- */
/* Note [Half precision: 16 bits stored, float computed]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * float16 (IEEE binary16: 1 sign bit, 5 exponent bits, 10 mantissa bits) and bfloat16 (1, 8, 7:
 * the top half of a float32) are *storage* formats. No C type is portable for them, so a kernel
 * holds one as its bits, a uint16_t, and does its arithmetic in float: load, convert to float,
 * compute, round back once. That is NumPy's float16 and PyTorch's CPU rule, and it gives the
 * correctly rounded answer for + - * / and sqrt: float has more than twice the bits of either
 * format plus two, so rounding first to float and then to 16 bits cannot round twice the wrong
 * way.
 *
 * The conversions below are the whole of the two formats. Widening (16 -> 32 or 64 bits) is
 * exact. Narrowing rounds to nearest, ties to even; a value beyond the largest finite one
 * (65504 for float16) rounds to infinity; values below the smallest normal become subnormals,
 * rounded the same way. NaNs follow the library each dtype is checked against, bit for bit
 * (tests/test_half.py converts all 65536 patterns both ways and a million float32 patterns):
 *
 * - float16 is NumPy's: a NaN keeps the top 10 bits of its payload (shifted, never "quieted"),
 *   and one whose kept bits are all zero gets the lowest bit set so that it stays a NaN; a
 *   double narrows *directly* (NumPy's npy_double_to_half), not through float, which could
 *   round twice;
 * - bfloat16 is ml_dtypes' (JAX's and PyTorch's NumPy-side type): every NaN becomes the quiet
 *   NaN 0x7FC0 with its sign; a double, an integer or a complex narrows through float (as
 *   ml_dtypes does, so double rounding and all).
 *
 * Every function is a few integer operations and mask selects, no branches, so the loops that
 * call them vectorise. The tricks: ``bits + 0x7FFF + lsb`` rounds the low 16 (or 13) bits away
 * to nearest-even (a carry into the exponent is exactly the right next value, infinity
 * included); a subnormal result n 2^-24 is read off ``|x| + 0.5`` in float (2^28 in double),
 * whose ulp is 2^-24, so the FPU rounds |x| to a multiple of 2^-24, to nearest even, as it
 * rounds every sum; and a subnormal float16 widens as ``2^-14 (1 + m/1024) - 2^-14``, exact.
 */
typedef union { float f; uint32_t u; } strided_f32_bits;
typedef union { double f; uint64_t u; } strided_f64_bits;

/* select(c, a, b): a where c, else b, as masks. Written with ?: GCC turns the float16
 * conversions into branches (it will not compute a float value it might not use, in case that
 * raises a floating-point flag), and a loop with branches does not vectorise; with masks, every
 * candidate is computed and the loop runs 8 lanes at a time (AVX2). */
STRIDED_HD uint32_t strided_select32(uint32_t c, uint32_t a, uint32_t b) {
    uint32_t m = 0u - c;
    return (a & m) | (b & ~m);
}

STRIDED_HD uint64_t strided_select64(uint64_t c, uint64_t a, uint64_t b) {
    uint64_t m = 0u - c;
    return (a & m) | (b & ~m);
}

STRIDED_HD float strided_f16_to_f32(uint16_t h) {
    strided_f32_bits sub, out;
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
    sub.u = 0x38800000u | (man << 13);                          /* 2^-14 (1 + man/1024) */
    sub.f -= 6.103515625e-05f;                                  /* - 2^-14 = man 2^-24, exact */
    out.u = strided_select32(exp == 0, sign | sub.u,            /* zero, subnormal */
            strided_select32(exp == 0x1Fu,
                             sign | 0x7F800000u | (man << 13),  /* inf, NaN: payload kept */
                             sign | ((exp + 112u) << 23) | (man << 13)));   /* bias 15 -> 127 */
    return out.f;
}

STRIDED_HD double strided_f16_to_f64(uint16_t h) {
    strided_f64_bits sub, out;
    uint64_t sign = (uint64_t)(h & 0x8000u) << 48;
    uint64_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
    sub.u = 0x3F10000000000000ull | (man << 42);
    sub.f -= 6.103515625e-05;
    out.u = strided_select64(exp == 0, sign | sub.u,
            strided_select64(exp == 0x1Fu,
                             sign | 0x7FF0000000000000ull | (man << 42),
                             sign | ((exp + 1008u) << 52) | (man << 42)));  /* bias 15 -> 1023 */
    return out.f;
}

STRIDED_HD uint16_t strided_f32_to_f16(float x) {
    strided_f32_bits in, sub;
    uint32_t sign, ax, normal, nan, r;
    in.f = x;
    sign = (in.u >> 16) & 0x8000u;
    ax = in.u & 0x7FFFFFFFu;
    /* normal: rebias the exponent (127 -> 15), round the 13 dropped bits to nearest even */
    normal = ((ax - 0x38000000u) + 0x0FFFu + (((ax - 0x38000000u) >> 13) & 1u)) >> 13;
    /* below 2^-14: a subnormal n 2^-24. float's ulp at 0.5 is 2^-24, so |x| + 0.5 rounds |x| to
     * a multiple of it (to nearest even), and the low bits of the sum are n (up to 1024, the
     * smallest normal) */
    sub.u = ax;
    sub.f += 0.5f;
    nan = 0x7C00u | ((ax >> 13) & 0x3FFu);
    nan = strided_select32(nan == 0x7C00u, 0x7C01u, nan);      /* NumPy: stay a NaN */
    r = strided_select32(ax < 0x38800000u, sub.u - 0x3F000000u, normal);
    r = strided_select32(ax >= 0x477FF000u, 0x7C00u, r);       /* 65520 and up: infinity */
    r = strided_select32(ax > 0x7F800000u, nan, r);
    return (uint16_t)(sign | r);
}

STRIDED_HD uint16_t strided_f64_to_f16(double x) {
    strided_f64_bits in, sub;
    uint64_t ax, v;
    uint32_t sign, normal, nan, r;
    in.f = x;
    sign = (uint32_t)(in.u >> 48) & 0x8000u;
    ax = in.u & 0x7FFFFFFFFFFFFFFFull;
    v = ax - 0x3F00000000000000ull;                             /* rebias 1023 -> 15 */
    normal = (uint32_t)((v + 0x1FFFFFFFFFFull + ((v >> 42) & 1u)) >> 42);
    sub.u = ax;
    sub.f += 268435456.0;                                       /* 2^28: its ulp is 2^-24 */
    nan = 0x7C00u | (uint32_t)((ax >> 42) & 0x3FFu);
    nan = strided_select32(nan == 0x7C00u, 0x7C01u, nan);
    r = strided_select32(ax < 0x3F10000000000000ull,            /* below 2^-14 */
                         (uint32_t)(sub.u - 0x41B0000000000000ull), normal);
    r = strided_select32(ax >= 0x40EFFE0000000000ull, 0x7C00u, r);   /* 65520 and up */
    r = strided_select32(ax > 0x7FF0000000000000ull, nan, r);
    return (uint16_t)(sign | r);
}

STRIDED_HD float strided_bf16_to_f32(uint16_t h) {
    strided_f32_bits out;
    out.u = (uint32_t)h << 16;                                  /* the top half of a float */
    return out.f;
}

STRIDED_HD double strided_bf16_to_f64(uint16_t h) {
    return (double)strided_bf16_to_f32(h);
}

STRIDED_HD uint16_t strided_f32_to_bf16(float x) {
    strided_f32_bits in;
    uint32_t rounded;
    in.f = x;
    rounded = (in.u + 0x7FFFu + ((in.u >> 16) & 1u)) >> 16;
    return (in.u & 0x7FFFFFFFu) > 0x7F800000u
        ? (uint16_t)(((in.u >> 16) & 0x8000u) | 0x7FC0u)        /* any NaN: the quiet one */
        : (uint16_t)rounded;
}

STRIDED_HD uint16_t strided_f64_to_bf16(double x) {
    return strided_f32_to_bf16((float)x);
}

/* nextafter in 16 bits: the neighbour of x toward y is one step of x's bit pattern (the patterns
 * of one sign are ordered as the integers are, subnormals included), so it cannot be computed
 * in float like the other ops. NaN gives each library's NaN; x == y gives y, C's rule, which
 * ml_dtypes' bfloat16 and NumPy's float16 since NumPy 2.5 follow (NumPy 2.4 and older gave x:
 * the two differ only for nextafter(0.0, -0.0)). */
#define STRIDED_HALF_NEXTAFTER(S, QNAN)                                                         \
STRIDED_HD uint16_t strided_nextafter_##S(uint16_t x, uint16_t y) {                           \
    float fx = strided_##S##_to_f32(x), fy = strided_##S##_to_f32(y);                          \
    if (fx != fx || fy != fy) return QNAN;                                                     \
    if (fx == fy) return y;                                                                    \
    if ((x & 0x7FFFu) == 0) return (uint16_t)((y & 0x8000u) | 1u); /* smallest subnormal */   \
    return (uint16_t)(((fx < fy) == !(x & 0x8000u)) ? x + 1u : x - 1u); /* away from or    \
                                                                      toward zero */         \
}
STRIDED_HALF_NEXTAFTER(f16, 0x7E00u)
STRIDED_HALF_NEXTAFTER(bf16, 0x7FC0u)

#ifndef __cplusplus
/* Note [Half conversions in blocks, with F16C]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Converting many float16 values at once: the casts of contiguous tensors (copy.pyx.tp) and the
 * blocks of the half loops (Note [Half loops in blocks] in unary.pyx.tp) call these instead of
 * converting one value at a time. x86 CPUs since 2012 (Ivy Bridge; every AVX2 CPU) have F16C,
 * instructions that convert 8 values at once (16 with AVX-512's zmm forms) and round as IEEE
 * says (to nearest even, subnormals and overflow to infinity included): the same numbers as the
 * bit arithmetic above. They differ from NumPy only for NaNs: the instructions "quiet" a
 * signalling NaN (set the top payload bit), and NumPy keeps a NaN's payload bits as they are.
 *
 * NaNs are rare, so the loops do not fix them lane by lane. They convert a chunk of
 * STRIDED_HALF_CHUNK values with the instructions alone, 16 a step, and keep the running maximum
 * of the 16-bit patterns' magnitudes (the float16 side: the input when widening, the output
 * when narrowing, which is a NaN exactly where the input is); a maximum above 0x7C00 (infinity)
 * means the chunk held a NaN, and then the whole chunk is converted again by the functions
 * above, NumPy's rule bit for bit (tests/test_half.py converts every pattern at every level).
 * The check is two integer operations per 16 values; fixing each group of 8 lanes with a
 * compare, a blend and a pack was three more per 8, and it was what made float16 cost 2.8x
 * bfloat16 in the same loops (benchmarks/bench_half_loops.py: 1e7 elements, out= given,
 * 1 thread, 2-core AMD EPYC Zen 4 at x86-64-v4: add 3.26 -> 1.17 ms, PyTorch 1.31; bfloat16
 * 1.15). The chunk is read again by the second pass, so src and dst must
 * not overlap (the half loops' blocks are stack arrays; copies of overlapping tensors go
 * through a copy aside). At x86-64-v4 the zmm forms convert 16 at a time; at v3 two ymm ones.
 *
 * Where the build's target has no F16C (__F16C__ undefined: another CPU family, or the x86-64-v2
 * baseline), the loops call the scalar functions above, which the compiler vectorises as it can.
 * Which one a build uses is decided by the target it is compiled for (setup.py). bfloat16 needs
 * no instructions: its conversions are shifts and a rounding add (Note [Aligned 64-byte loads]
 * says how its narrowing is written out).
 */
#include <stddef.h>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#define STRIDED_HALF_CHUNK 256

/* where the chunk that starts at i ends: STRIDED_HALF_CHUNK on, or the last multiple of 16 */
static inline ptrdiff_t strided_half_chunk_end(ptrdiff_t i, ptrdiff_t n) {
    return n - i < STRIDED_HALF_CHUNK ? n - ((n - i) & 15) : i + STRIDED_HALF_CHUNK;
}

#if defined(__F16C__) && defined(__AVX2__)
/* whether a chunk's running maximum of |float16 pattern| (16 lanes) is a NaN's */
static inline int strided_f16_top_is_nan(__m256i top) {
    __m256i nan = _mm256_cmpgt_epi16(top, _mm256_set1_epi16(0x7C00));   /* top <= 0x7FFF */
    return !_mm256_testz_si256(nan, nan);
}

/* the magnitudes' running maximum, with one more vector of 16 float16 patterns */
static inline __m256i strided_f16_top(__m256i top, __m256i h) {
    return _mm256_max_epu16(top, _mm256_and_si256(h, _mm256_set1_epi16(0x7FFF)));
}
#endif

static inline void strided_f16_to_f32_n(const uint16_t* src, float* dst, ptrdiff_t n) {
    ptrdiff_t i = 0;
#if defined(__F16C__) && defined(__AVX2__)
    while (n - i >= 16) {
        ptrdiff_t start = i, stop = strided_half_chunk_end(i, n);
        __m256i top = _mm256_setzero_si256();
        for (; i < stop; i += 16) {
            __m256i h = _mm256_loadu_si256((const __m256i*)(src + i));
            top = strided_f16_top(top, h);
#if defined(__AVX512F__)
            _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(h));
#else
            _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm256_castsi256_si128(h)));
            _mm256_storeu_ps(dst + i + 8, _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1)));
#endif
        }
        if (strided_f16_top_is_nan(top))    /* a NaN: NumPy keeps its payload as it is */
            for (ptrdiff_t j = start; j < i; j++) dst[j] = strided_f16_to_f32(src[j]);
    }
#endif
    for (; i < n; i++) dst[i] = strided_f16_to_f32(src[i]);
}

/* float16 -> float32 for a sum (Note [Half sums widened by the leaf] in reduce.pyx.tp): the
 * instructions alone, 16 lanes with AVX-512, without the NaN fix-up above. They quiet a
 * signalling NaN where NumPy keeps it signalling, and the sum's first addition quiets it anyway,
 * so a sum's bits are the same. */
static inline void strided_f16_to_f32_quieting_n(const uint16_t* src, float* dst, ptrdiff_t n) {
    ptrdiff_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(src + i))));
#elif defined(__F16C__) && defined(__AVX2__)
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(src + i))));
#endif
    for (; i < n; i++) dst[i] = strided_f16_to_f32(src[i]);
}

/* The 64 lanes of the pairwise sum's leaf (Note [Half sums widened by the leaf] in
 * reduce.pyx.tp) over rows of 64 halves, widened in registers: r[j] = x[j], then r[j] += x[64 i +
 * j] for i = 1 .. rows - 1, each lane's additions in the float32 leaf's order (so the same bits
 * as that leaf over the widened values; float16 by the instructions, which quiet a signalling
 * NaN, as the leaf's first addition does). Widening the leaf into a buffer first and summing the
 * buffer ran the conversions and the additions one after the other: the float16 sum of 1e6 at
 * x86-64-v3 took 67 us (PyTorch 41, float32's sum 43). */
#if defined(__AVX512F__)
#define STRIDED_HALF_LANES 16
#define STRIDED_F16_WIDEN(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(p)))
#define STRIDED_BF16_WIDEN(p) _mm512_castsi512_ps(_mm512_slli_epi32(                        \
    _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)(p))), 16))
#define STRIDED_HALF_VEC __m512
#define STRIDED_HALF_ADD _mm512_add_ps
#define STRIDED_HALF_STORE _mm512_storeu_ps
#elif defined(__F16C__) && defined(__AVX2__)
#define STRIDED_HALF_LANES 8
#define STRIDED_F16_WIDEN(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(p)))
#define STRIDED_BF16_WIDEN(p) _mm256_castsi256_ps(_mm256_slli_epi32(                        \
    _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)(p))), 16))
#define STRIDED_HALF_VEC __m256
#define STRIDED_HALF_ADD _mm256_add_ps
#define STRIDED_HALF_STORE _mm256_storeu_ps
#endif

#ifdef STRIDED_HALF_LANES
/* named accumulators, not an array: GCC 12 kept an array of them on the stack */
#define STRIDED_HALF_SUM_LANES64(S, WIDEN)                                                    \
static inline void strided_##S##_sum_lanes64(const uint16_t* x, ptrdiff_t rows, float* r) {  \
    const int L = STRIDED_HALF_LANES;                                                         \
    STRIDED_HALF_VEC a0 = WIDEN(x), a1 = WIDEN(x + L), a2 = WIDEN(x + 2 * L),                 \
                     a3 = WIDEN(x + 3 * L);                                                   \
    STRIDED_HALF_VEC_8_MORE(WIDEN(x + 4 * L), WIDEN(x + 5 * L), WIDEN(x + 6 * L),             \
                            WIDEN(x + 7 * L))                                                 \
    for (ptrdiff_t i = 1; i < rows; i++) {                                                    \
        const uint16_t* p = x + 64 * i;                                                       \
        a0 = STRIDED_HALF_ADD(a0, WIDEN(p));                                                  \
        a1 = STRIDED_HALF_ADD(a1, WIDEN(p + L));                                              \
        a2 = STRIDED_HALF_ADD(a2, WIDEN(p + 2 * L));                                          \
        a3 = STRIDED_HALF_ADD(a3, WIDEN(p + 3 * L));                                          \
        STRIDED_HALF_ADD_8_MORE(WIDEN(p + 4 * L), WIDEN(p + 5 * L), WIDEN(p + 6 * L),         \
                                WIDEN(p + 7 * L))                                             \
    }                                                                                         \
    STRIDED_HALF_STORE(r, a0);                                                                \
    STRIDED_HALF_STORE(r + L, a1);                                                            \
    STRIDED_HALF_STORE(r + 2 * L, a2);                                                        \
    STRIDED_HALF_STORE(r + 3 * L, a3);                                                        \
    STRIDED_HALF_STORE_8_MORE                                                                 \
}
#if STRIDED_HALF_LANES == 16   /* four zmm accumulators hold the 64 lanes */
#define STRIDED_HALF_VEC_8_MORE(w4, w5, w6, w7)
#define STRIDED_HALF_ADD_8_MORE(w4, w5, w6, w7)
#define STRIDED_HALF_STORE_8_MORE
#else                          /* eight ymm */
#define STRIDED_HALF_VEC_8_MORE(w4, w5, w6, w7) STRIDED_HALF_VEC a4 = w4, a5 = w5, a6 = w6, a7 = w7;
#define STRIDED_HALF_ADD_8_MORE(w4, w5, w6, w7)                                               \
    a4 = STRIDED_HALF_ADD(a4, w4); a5 = STRIDED_HALF_ADD(a5, w5);                             \
    a6 = STRIDED_HALF_ADD(a6, w6); a7 = STRIDED_HALF_ADD(a7, w7);
#define STRIDED_HALF_STORE_8_MORE                                                             \
    STRIDED_HALF_STORE(r + 4 * L, a4); STRIDED_HALF_STORE(r + 5 * L, a5);                     \
    STRIDED_HALF_STORE(r + 6 * L, a6); STRIDED_HALF_STORE(r + 7 * L, a7);
#endif
#else
#define STRIDED_HALF_SUM_LANES64(S, WIDEN)                                                    \
static inline void strided_##S##_sum_lanes64(const uint16_t* x, ptrdiff_t rows, float* r) {  \
    for (int j = 0; j < 64; j++)                                                              \
        r[j] = strided_##S##_to_f32(x[j]);                                                    \
    for (ptrdiff_t i = 1; i < rows; i++)                                                      \
        for (int j = 0; j < 64; j++)                                                          \
            r[j] = r[j] + strided_##S##_to_f32(x[64 * i + j]);                                \
}
#endif
STRIDED_HALF_SUM_LANES64(f16, STRIDED_F16_WIDEN)
STRIDED_HALF_SUM_LANES64(bf16, STRIDED_BF16_WIDEN)

static inline void strided_f32_to_f16_n(const float* src, uint16_t* dst, ptrdiff_t n) {
    ptrdiff_t i = 0;
#if defined(__AVX512F__)
    for (; n >= 1024 && ((uintptr_t)(src + i) & 63); i++)  /* Note [Aligned 64-byte loads] */
        dst[i] = strided_f32_to_f16(src[i]);
#endif
#if defined(__F16C__) && defined(__AVX2__)
    while (n - i >= 16) {
        ptrdiff_t start = i, stop = strided_half_chunk_end(i, n);
        __m256i top = _mm256_setzero_si256();
        for (; i < stop; i += 16) {
#if defined(__AVX512F__)
            __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
#else
            __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
            __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(src + i + 8), _MM_FROUND_TO_NEAREST_INT);
            __m256i h = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
#endif
            top = strided_f16_top(top, h);  /* a NaN out where a NaN came in */
            _mm256_storeu_si256((__m256i*)(dst + i), h);
        }
        if (strided_f16_top_is_nan(top))    /* NumPy's NaN: the top 10 payload bits, unquieted */
            for (ptrdiff_t j = start; j < i; j++) dst[j] = strided_f32_to_f16(src[j]);
    }
#endif
    for (; i < n; i++) dst[i] = strided_f32_to_f16(src[i]);
}

/* bfloat16 in blocks: its conversions are shifts and a rounding add, which vectorise as they are */
static inline void strided_bf16_to_f32_n(const uint16_t* src, float* dst, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; i++) dst[i] = strided_bf16_to_f32(src[i]);
}

/* Note [Aligned 64-byte loads]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A narrowing loop reads 64 bytes of float32 for every 32 it writes. At x86-64-v4 those are
 * zmm loads, and a zmm load whose address is not a multiple of 64 spans two cache lines: each
 * load then costs two, and a loop over memory slows by half. A NumPy array's data begins 16
 * bytes past a line (strided's own buffers are aligned), so a long narrowing (1024 values or
 * more: a cast, not a half loop's block, which is short and in L1, where a few values converted
 * one at a time would cost more than the split loads) converts the first few elements one at a
 * time until the source is aligned, then loads whole lines. A cast of 1e7 float32 read from a
 * NumPy array, 1 thread, 2-core AMD EPYC Zen 4: to bfloat16 2.4 -> 1.5 ms (PyTorch 1.43), to
 * float16 1.34 -> 1.22 ms.
 *
 * At v4 GCC vectorises strided_f32_to_bf16 well once its loads are aligned (16 a step, vpmovdw
 * to 16 bits). At v3 its AVX2 loop is slower than written out: the same rounding add in two ymm
 * registers, packed (packus works within 128-bit lanes; a permute puts them in order), NaNs
 * found as float16's are (a running maximum of |x|'s bits per chunk, the chunk converted again
 * by the function where it held one) ran in 0.5 of its time (a block of 256 in L1: 16.6 against
 * 31.6 ns; with a blend for the NaNs in every step 22.8). Without AVX2 the scalar function
 * vectorises as it can.
 */
#if defined(__AVX2__) && !defined(__AVX512F__)
/* 8 float32 (as bits) rounded to bfloat16 in the low 16 bits of each lane, NaNs aside */
static inline __m256i strided_bf16_round8(__m256i u) {
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), lsb)),
                             16);
}
#endif

static inline void strided_f32_to_bf16_n(const float* src, uint16_t* dst, ptrdiff_t n) {
    ptrdiff_t i = 0;
#if defined(__AVX512F__)
    for (; n >= 1024 && ((uintptr_t)(src + i) & 63); i++)  /* Note [Aligned 64-byte loads] */
        dst[i] = strided_f32_to_bf16(src[i]);
#elif defined(__AVX2__)
    while (n - i >= 16) {
        ptrdiff_t start = i, stop = strided_half_chunk_end(i, n);
        __m256i top = _mm256_setzero_si256();     /* the largest |x| as bits: NaN above inf's */
        for (; i < stop; i += 16) {
            __m256i u0 = _mm256_loadu_si256((const __m256i*)(src + i));
            __m256i u1 = _mm256_loadu_si256((const __m256i*)(src + i + 8));
            __m256i magnitude = _mm256_set1_epi32(0x7FFFFFFF);
            top = _mm256_max_epu32(top, _mm256_max_epu32(_mm256_and_si256(u0, magnitude),
                                                         _mm256_and_si256(u1, magnitude)));
            __m256i h = _mm256_packus_epi32(strided_bf16_round8(u0), strided_bf16_round8(u1));
            _mm256_storeu_si256((__m256i*)(dst + i), _mm256_permute4x64_epi64(h, 0xD8));
        }
        __m256i nan = _mm256_cmpgt_epi32(top, _mm256_set1_epi32(0x7F800000));
        if (!_mm256_testz_si256(nan, nan))        /* a NaN: the quiet one, by the function */
            for (ptrdiff_t j = start; j < i; j++) dst[j] = strided_f32_to_bf16(src[j]);
    }
#endif
    for (; i < n; i++) dst[i] = strided_f32_to_bf16(src[i]);
}
#endif

#ifndef __cplusplus
/* ---- the host's vectorisable layer (C only) -------------------------------------------- */

/* Note [Vectorisable math]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A loop that calls the C library's expf() runs one element at a time: the call is opaque to the
 * compiler. NumPy and PyTorch reach 4-16 elements per instruction with hand-written SIMD
 * (SVML-style) versions. The functions here get most of that for free: each is a short, branch
 * free sequence of multiplies, adds, conversions and selects, inlined into the generated loops
 * (_cpu/unary.pyx.tp), which the C compiler then vectorises for whatever the build targets
 * (setup.py's -march).
 *
 * The method is the classic one (Cephes, as in many SIMD libraries):
 *   exp(x) = 2^n * exp(r),  n = round(x / ln 2),  r = x - n ln 2 in [-ln2/2, ln2/2],
 * with ln 2 split in two constants so that r is exact, exp(r) from a short polynomial (float)
 * or rational function (double), and 2^n built straight into the exponent bits, in two halves
 * so that results near the bottom of the range (subnormals) come out right. Accuracy: within
 * 2 ulp of the correctly rounded result over the whole range; inf, -inf and NaN as the C
 * library gives them. tanh and sigmoid are built on exp.
 */
#include <complex.h>
#include <string.h>

static inline float strided_pow2if(int32_t n) {
    /* 2^n for n in [-126, 127], straight into the exponent bits */
    uint32_t bits = (uint32_t)(n + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline float strided_expm1f_reduced(float r) {
    /* exp(r) - 1 for |r| <= ln(2) / 2: Cephes' expf polynomial without its last add (vecmath.h's
     * erfc adds the 1 in double) */
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    return p * (r * r) + r;
}

static inline float strided_expf_reduced(float r) {
    /* exp(r) for |r| <= ln(2) / 2 (vecmath.h's erf calls it too) */
    return strided_expm1f_reduced(r) + 1.0f;
}

/* exp(xc) for xc in [-104, 88.8] (NaN falls through): 2^n e^r, r = xc - n ln 2. 2^n is one
 * factor where the caller knows it is a normal float (``halves`` 0), else two halves (n down
 * to -150: a subnormal result); ``halves`` is a constant, so the branch is gone once inlined. */
static inline float strided_expf_steps(float xc, int halves) {
    const float log2e = 1.44269504088896341f;
    const float c1 = 0.693359375f, c2 = -2.12194440e-4f;   /* ln 2 = c1 + c2, c1 exact */
    float t = xc * log2e;
    float fn = (t + 12582912.0f) - 12582912.0f;            /* round to nearest */
    int32_t n = (int32_t)fn;
    float r = (xc - fn * c1) - fn * c2;
    float p = strided_expf_reduced(r);
    int32_t n1 = n >> 1;
    if (!halves) return p * strided_pow2if(n);
    return p * strided_pow2if(n1) * strided_pow2if(n - n1);
}

static inline float strided_expf(float x) {
    /* Written so that GCC vectorises it: no library calls, no branches (only selects), and
     * rounding by the 1.5 * 2^23 trick instead of a call to rintf. */
    float xc = x > 88.8f ? 88.8f : x;                      /* NaN falls through */
    xc = xc < -104.0f ? -104.0f : xc;
    float y = strided_expf_steps(xc, 1);
    y = x > 88.72283905f ? INFINITY : y;
    y = x < -103.972084f ? 0.0f : y;
    y = x != x ? x : y;
    return y;
}

/* Note [exp for a half result]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The half loops round exp's float to 16 bits, and a few of strided_expf's steps only matter
 * to a float. float16's exp is inf from x = 11.09 and 0 below -17.33, so its x is clamped to
 * [-18, 12], where 2^n is a normal float (one factor, not two) and exp(12) and exp(-18) already
 * round to inf and 0: the selects of inf and 0 go too. bfloat16 has float's range, so keeps
 * the two halves (subnormal results) and drops only the selects: exp(88.8) is inf in float and
 * exp(-104) rounds to 0, and the values they select between round to the same bfloat16. Both
 * give strided_expf's 16 bits for every one of the 65536 inputs (tests/test_half.py checks
 * them all), in 0.75 (float16) and 0.9 (bfloat16) of its time: 1e5 values of the half loop,
 * 1 thread, 2-core AMD EPYC Zen 4, x86-64-v4 30 -> 22 us, v3 49 -> 40 us for float16.
 */
static inline float strided_expf_f16(float x) {
    float xc = x > 12.0f ? 12.0f : x;                      /* NaN falls through */
    xc = xc < -18.0f ? -18.0f : xc;
    float y = strided_expf_steps(xc, 0);
    return x != x ? x : y;
}

static inline float strided_expf_bf16(float x) {
    float xc = x > 88.8f ? 88.8f : x;
    xc = xc < -104.0f ? -104.0f : xc;
    float y = strided_expf_steps(xc, 1);
    return x != x ? x : y;
}

static inline double strided_pow2i(int64_t n) {
    /* 2^n for n in [-1022, 1023] */
    uint64_t bits = (uint64_t)(n + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline double strided_exp(double x) {
    const double log2e = 1.4426950408889634073599;
    const double c1 = 6.93145751953125e-1, c2 = 1.42860682030941723212e-6;
    double xc = x > 709.79 ? 709.79 : x;
    xc = xc < -745.2 ? -745.2 : xc;
    double t = xc * log2e;
    double fn = (t + 6755399441055744.0) - 6755399441055744.0;   /* round: 1.5 * 2^52 */
    int32_t n = (int32_t)fn;
    double r = (xc - fn * c1) - fn * c2;
    double rr = r * r;
    /* Cephes exp: exp(r) = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2)) */
    double p = ((1.26177193074810590878e-4 * rr + 3.02994407707441961300e-2) * rr
                + 9.99999999999999999910e-1) * r;
    double q = ((3.00198505138664455042e-6 * rr + 2.52448340349684104192e-3) * rr
                + 2.27265548208155028766e-1) * rr + 2.00000000000000000009e0;
    double e = 1.0 + 2.0 * (p / (q - p));
    int32_t n1 = n >> 1;
    double y = e * strided_pow2i(n1) * strided_pow2i(n - n1);
    y = x > 709.782712893384 ? INFINITY : y;
    y = x < -745.1332191019412 ? 0.0 : y;
    y = x != x ? x : y;
    return y;
}

static inline float strided_tanhf(float x) {
    /* |x| < 0.625: an odd polynomial (Cephes tanhf); else 1 - 2 / (exp(2|x|) + 1) */
    float ax = fabsf(x);
    float z = x * x;
    float small = ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z
                    + 1.33314422036e-1f) * z - 3.33332819422e-1f) * z * x + x;
    float big = 1.0f - 2.0f / (strided_expf(2.0f * ax) + 1.0f);
    float y = ax < 0.625f ? fabsf(small) : big;
    y = copysignf(y, x);             /* tanh is odd: keeps the sign of x, -0.0 included */
    y = x != x ? x : y;
    return y;
}

/* Note [sigmoid from exp(-|x|)]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * sigmoid(x) = 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0, e = exp(-|x|) <= 1: e cannot
 * overflow, so none of strided_expf's guards for it (the clamp at 88.8, the select of inf) is
 * needed, and the one division takes a selected numerator. 1 / (1 + exp(-x)) gave 0 for x
 * below -88.7, where exp(-x) overflows but sigmoid is e^x, a subnormal (2e6 ulp off); here e
 * is 2^n exp(r) with 2^n exact down to 2^-149, so it is rounded once there.
 *
 * Note [sigmoid within 2 ulp]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * e rounded to float, then 1 + e rounded, then the division rounded made 2.40 ulp (at x =
 * -4.16; every float32 measured against float64): each of the three is worth up to an ulp of a
 * result just below a power of two. With fused multiply-adds two of them go for a few
 * instructions:
 *   - 1 + e = d + dl exactly, dl = e - (d - 1) (Fast2Sum: 1 >= e);
 *   - q = num / d rounded; num - q d is exact as fma(-q, d, num), so num / (d + dl) = q + (num
 *     - q d - q dl) / d, whose correction (about an ulp of q) needs 1 / d only to a few bits:
 *     the bits of d subtracted from a constant (a reciprocal within 5.1%, one integer subtract).
 *   - e = fma(2^n, expm1(r), 2^n), rounded once (it was 1 + expm1(r) rounded, then scaled).
 * What is left is e's rounding and the polynomial's error: 1.53 ulp over every float32 (at x =
 * -5.86; 0.71 in the subnormal tail), at x86-64-v3 and v4. To pay for the correction, exp(r)'s
 * polynomial is a degree below strided_expf's (fitted for sigmoid: relative error 5e-9 with
 * float coefficients, a tenth of an ulp) in Estrin's form, 2^n is one multiply (2^(n + 64) from
 * the bits, times 2^-64), and |x| is clamped at 104 by an integer minimum on its bits (a float
 * select there GCC carried through the arithmetic as blends), NaN selected back in at the end.
 * 1e6 float32 from [-30, 30], the loop alone, 1 thread, AMD EPYC with AVX-512, medians of
 * three runs: x86-64-v4 0.211 -> 0.218 ms, v3 0.413 -> 0.422 ms.
 * Without fma (x86-64-v2) the roundings are avoided in double instead: e, 1 + e and the
 * quotient in double lanes, one rounding to float: 1.05 ulp, at 1.19 -> 1.43 ms.
 * The CPU loop then runs strided_sigmoidf_normal, for |x| < 87, and its fix-up pass (Note
 * [Fix-up passes] in unary.pyx.tp) strided_sigmoidf on the rest: no clamp, no NaN select, 2^n
 * from the bits alone, the same values. The loop alone as above: v4 0.209 -> 0.199 ms, v3
 * 0.416 -> 0.367 ms (faster than before the correction); bench_transcendental.py --only
 * sigmoid --rounds 7 --threads 1: 1.08x PyTorch at v4, 1.09x at v3 (its AVX2 build), where
 * without it 1.02x and 0.99x. */
/* sigmoid(x) from a = |x| (at most 104): strided_sigmoidf's steps after its clamp (Note
 * [sigmoid within 2 ulp]); `normal` where a < 87, so that 2^n is a normal float, made from the
 * bits alone (the CPU loop's strided_sigmoidf_normal) */
static inline float strided_sigmoidf_of(float x, float a, int normal) {
    float big = a * -1.44269504088896341f + 12582912.0f;     /* 1.5 * 2^23 + n, n <= 0 */
    float fn = big - 12582912.0f;
    float r = (-a - fn * 0.693359375f) - fn * -2.12194440e-4f;   /* -a - n ln 2: strided_expf's */
    uint32_t sb;
    memcpy(&sb, &big, sizeof sb);
    sb = (sb + (normal ? 127u : 191u)) << 23;     /* the low bits of 1.5 * 2^23 + n: 2^n or
                                                   * 2^(n + 64) */
    float s;
    memcpy(&s, &sb, sizeof s);
    if (!normal)
        s = s * 5.42101086e-20f;                  /* 2^n (times 2^-64: exact down to 2^-149) */
    float r2 = r * r;
    float em1 = ((0.49999997f + 0.1666652f * r) + r2 * ((0.041667234f + 0.008368898f * r)
                                                        + r2 * 0.0013879609f)) * r2 + r;
#if defined(__FMA__) || defined(__aarch64__)
    float e = fmaf(s, em1, s);                    /* 2^n exp(r), rounded once */
    float d = 1.0f + e;
    float dl = e - (d - 1.0f);                    /* 1 + e = d + dl */
    float num = x < 0.0f ? e : 1.0f;
    float q = num / d;
    uint32_t rb;
    memcpy(&rb, &d, sizeof rb);
    rb = 0x7ef311c3u - rb;                        /* 1 / d within 5.1% */
    float rd;
    memcpy(&rd, &rb, sizeof rd);
    return fmaf(fmaf(-q, dl, fmaf(-q, d, num)), rd, q);
#else
    double e = (double)s * (1.0 + (double)em1);
    return (float)((x < 0.0f ? e : 1.0) / (1.0 + e));
#endif
}

static inline float strided_sigmoidf(float x) {
    uint32_t ab;
    memcpy(&ab, &x, sizeof ab);
    ab &= 0x7fffffffu;
    ab = ab < 0x42d00000u ? ab : 0x42d00000u;     /* min(|x|, 104): e^-104 is below float's
                                                   * last; NaN too */
    float a;
    memcpy(&a, &ab, sizeof a);
    float y = strided_sigmoidf_of(x, a, 0);
    return x != x ? x : y;
}

/* strided_sigmoidf for |x| < 87 (e^-|x| a normal float), for the CPU loop, whose fix-up pass
 * gives the rest (NaN, inf, the subnormal tail) to strided_sigmoidf (Note [sigmoid within 2
 * ulp]) */
static inline float strided_sigmoidf_normal(float x) {
    return strided_sigmoidf_of(x, fabsf(x), 1);
}

static inline double strided_sigmoid(double x) {
    return 1.0 / (1.0 + strided_exp(-x));
}

/* A complex number from its parts, without computing re + im*I (which turns an infinite or NaN
 * imaginary part into a NaN real part). */
static inline float _Complex strided_cmplxf(float re, float im) {
    return __builtin_complex(re, im);
}

static inline double _Complex strided_cmplx(double re, double im) {
    return __builtin_complex(re, im);
}

/* Complex functions whose obvious formulas lose accuracy or signs (Note [Vectorisable math] does
 * not apply: these are scalar, for correctness). Each builds its result from real parts. */

#define STRIDED_COMPLEX_HELPERS(T, SUF, CT)                                                     \
static inline CT strided_clog2##SUF(CT z) {     /* log(z) * log2(e), part by part (NumPy) */  \
    CT l = clog##SUF(z);                                                                        \
    return __builtin_complex((T)(creal##SUF(l) * (T)1.4426950408889634),                        \
                             (T)(cimag##SUF(l) * (T)1.4426950408889634));                       \
}                                                                                               \
static inline CT strided_clog10##SUF(CT z) {                                                   \
    CT l = clog##SUF(z);                                                                        \
    return __builtin_complex((T)(creal##SUF(l) * (T)0.4342944819032518),                        \
                             (T)(cimag##SUF(l) * (T)0.4342944819032518));                       \
}                                                                                               \
static inline CT strided_clog1p##SUF(CT z) {                                                   \
    /* log|1+z| = log1p(2x + x^2 + y^2) / 2 is accurate near 0; arg(1+z) = atan2(y, 1+x),    \
     * which keeps the sign of a zero y */                                                      \
    T x = creal##SUF(z), y = cimag##SUF(z);                                                     \
    T ax = fabs##SUF(x), ay = fabs##SUF(y);                                                     \
    if (ax > (T)1e10 || ay > (T)1e10 || x != x || y != y || isinf(x) || isinf(y)) {           \
        return clog##SUF(__builtin_complex((T)(1 + x), y));                                     \
    }                                                                                           \
    return __builtin_complex((T)(0.5 * log1p##SUF(x * (2 + x) + y * y)),                        \
                             atan2##SUF(y, (T)(1 + x)));                                        \
}                                                                                               \
static inline CT strided_cexpm1##SUF(CT z) {                                                   \
    /* e^x (cos y + i sin y) - 1, with the real part as expm1(x) cos y - 2 sin^2(y/2) */       \
    T x = creal##SUF(z), y = cimag##SUF(z);                                                     \
    T s = sin##SUF(y / 2);                                                                      \
    if (isinf(x) || x != x || y != y || isinf(y)) {                                             \
        CT e = cexp##SUF(z);                                                                    \
        return __builtin_complex((T)(creal##SUF(e) - 1), cimag##SUF(e));                        \
    }                                                                                           \
    return __builtin_complex((T)(expm1##SUF(x) * cos##SUF(y) - 2 * s * s),                      \
                             (T)(exp##SUF(x) * sin##SUF(y)));                                   \
}                                                                                               \
static inline CT strided_csign##SUF(CT z) {                                                    \
    /* z / |z|; an infinite part points the way (NumPy 2); 0 stays 0 */                        \
    T x = creal##SUF(z), y = cimag##SUF(z);                                                     \
    T m;                                                                                        \
    if (isinf(x) || isinf(y)) {                                                                 \
        T ux = isinf(x) ? copysign##SUF(1, x) : 0, uy = isinf(y) ? copysign##SUF(1, y) : 0;     \
        m = sqrt##SUF(ux * ux + uy * uy);                                                       \
        return __builtin_complex((T)(ux / m), (T)(uy / m));                                     \
    }                                                                                           \
    if (x == 0 && y == 0) {                                                                     \
        return __builtin_complex((T)0, (T)0);                                                   \
    }                                                                                           \
    m = cabs##SUF(z);                                                                           \
    return __builtin_complex((T)(x / m), (T)(y / m));                                           \
}

STRIDED_COMPLEX_HELPERS(float, f, float _Complex)
STRIDED_COMPLEX_HELPERS(double, , double _Complex)

/* NumPy's order of complex numbers on C99 complex operands, for the CPU loops' expression rows:
 * the functions on parts above (Note [The order of complex numbers]), called with the parts.
 * T is the real type, S the dtype's suffix, SUF the C library's (crealf / creal). */
#define STRIDED_COMPLEX_ORDER_C99(T, CT, S, SUF)                                                   \
static inline int strided_lt_##S(CT a, CT b) {                                                 \
    return strided_cless_##S(creal##SUF(a), cimag##SUF(a), creal##SUF(b), cimag##SUF(b));      \
}                                                                                               \
static inline int strided_le_##S(CT a, CT b) {                                                 \
    return strided_cless_equal_##S(creal##SUF(a), cimag##SUF(a), creal##SUF(b), cimag##SUF(b)); \
}                                                                                               \
static inline int strided_gt_##S(CT a, CT b) {                                                 \
    return strided_cgreater_##S(creal##SUF(a), cimag##SUF(a), creal##SUF(b), cimag##SUF(b));   \
}                                                                                               \
static inline int strided_ge_##S(CT a, CT b) {                                                 \
    return strided_cgreater_equal_##S(creal##SUF(a), cimag##SUF(a), creal##SUF(b),             \
                                      cimag##SUF(b));                                           \
}                                                                                               \
static inline CT strided_max_##S(CT a, CT b) {       /* part by part: selects, not a branch */ \
    T ar = creal##SUF(a), ai = cimag##SUF(a), br = creal##SUF(b), bi = cimag##SUF(b);          \
    int t = strided_cmaximum_takes_a_##S(ar, ai, br, bi);                                      \
    return __builtin_complex(t ? ar : br, t ? ai : bi);                                         \
}                                                                                               \
static inline CT strided_min_##S(CT a, CT b) {                                                 \
    T ar = creal##SUF(a), ai = cimag##SUF(a), br = creal##SUF(b), bi = cimag##SUF(b);          \
    int t = strided_cminimum_takes_a_##S(ar, ai, br, bi);                                      \
    return __builtin_complex(t ? ar : br, t ? ai : bi);                                         \
}

STRIDED_COMPLEX_ORDER_C99(float, float _Complex, c64, f)
STRIDED_COMPLEX_ORDER_C99(double, double _Complex, c128, )

/* NumPy's complex division, reciprocal and power on C99 complex operands (Note [Complex
 * division, reciprocal and power as NumPy's]): the expression rows' strided_cdiv_c64(a, b),
 * strided_cpow_c64(a, b) and strided_crecipf(x). */
#define STRIDED_COMPLEX_ARITH_C99(T, CT, S, SUF)                                                \
static inline CT strided_cdiv_##S(CT a, CT b) {                                                \
    T re, im;                                                                                   \
    strided_cdiv_parts_##S(creal##SUF(a), cimag##SUF(a), creal##SUF(b), cimag##SUF(b), &re, &im); \
    return __builtin_complex(re, im);                                                           \
}                                                                                               \
static inline CT strided_crecip##SUF(CT z) {                                                   \
    T re, im;                                                                                   \
    strided_crecip_parts_##S(creal##SUF(z), cimag##SUF(z), &re, &im);                          \
    return __builtin_complex(re, im);                                                           \
}                                                                                               \
static inline CT strided_cpow_##S(CT a, CT b) {                                                \
    T re, im;                                                                                   \
    if (strided_cpow_parts_##S(creal##SUF(a), cimag##SUF(a), creal##SUF(b), cimag##SUF(b),     \
                               &re, &im)) {                                                     \
        return __builtin_complex(re, im);                                                       \
    }                                                                                           \
    return cpow##SUF(a, b);                                                                     \
}

STRIDED_COMPLEX_ARITH_C99(float, float _Complex, c64, f)
STRIDED_COMPLEX_ARITH_C99(double, double _Complex, c128, )

#endif /* !__cplusplus: the vectorisable layer */

#endif /* STRIDED_SCALAR_MATH_H */
