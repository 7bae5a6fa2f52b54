// One functor per elementwise op: the CUDA twin of the expression tables in
// strided/_cpu/unary.pyx.tp and binary.pyx.tp, with the same meaning for every dtype (NumPy's).
// A functor's operator() is a template over the computation type; ``if constexpr`` picks the
// branch for bools, signed/unsigned integers, floats or complex at compile time. The scalar
// functions that NumPy defines differently from C (floor division, remainder, integer powers,
// NaN-propagating maximum and minimum, shifts, logaddexp, nextafter) are not here: both the CPU
// loops and these functors call them from strided/_cpu/scalar_math.h, by their overloaded C++
// names (strided_floordiv(a, b, flag)). See Note [One scalar-math source] there.
#pragma once
#include "common.cuh"
#include "../../_cpu/scalar_math.h"

// ---- real math, one spelling for float and double -----------------------------------------
#define STRIDED_REAL_FN(name)                                                          \
    __device__ __forceinline__ float m_##name(float x) { return name##f(x); }          \
    __device__ __forceinline__ double m_##name(double x) { return name(x); }
#define STRIDED_REAL_FN2(name)                                                          \
    __device__ __forceinline__ float m_##name(float x, float y) { return name##f(x, y); } \
    __device__ __forceinline__ double m_##name(double x, double y) { return name(x, y); }
STRIDED_REAL_FN(fabs)
STRIDED_REAL_FN(sqrt)
STRIDED_REAL_FN(exp)
STRIDED_REAL_FN(expm1)
STRIDED_REAL_FN(exp2)
STRIDED_REAL_FN(log)
STRIDED_REAL_FN(log1p)
STRIDED_REAL_FN(log2)
STRIDED_REAL_FN(log10)
STRIDED_REAL_FN(sin)
STRIDED_REAL_FN(cos)
STRIDED_REAL_FN(tan)
STRIDED_REAL_FN(asin)
STRIDED_REAL_FN(acos)
STRIDED_REAL_FN(atan)
STRIDED_REAL_FN(sinh)
STRIDED_REAL_FN(cosh)
STRIDED_REAL_FN(tanh)
STRIDED_REAL_FN(asinh)
STRIDED_REAL_FN(acosh)
STRIDED_REAL_FN(atanh)
STRIDED_REAL_FN(erf)
STRIDED_REAL_FN(erfc)
STRIDED_REAL_FN(ceil)
STRIDED_REAL_FN(floor)
STRIDED_REAL_FN(trunc)
STRIDED_REAL_FN(rint)
STRIDED_REAL_FN2(atan2)
STRIDED_REAL_FN2(hypot)
STRIDED_REAL_FN2(copysign)
STRIDED_REAL_FN2(pow)

template <typename T> __device__ __forceinline__ bool m_isnan(T x) { return x != x; }
template <typename T> __device__ __forceinline__ bool m_isinf(T x) { return x == x && (x - x) != (x - x); }
template <typename T> __device__ __forceinline__ bool m_isfinite(T x) { return (x - x) == (x - x); }
template <typename T> __device__ __forceinline__ bool m_signbit(T x) { return m_copysign((T)1, x) < 0; }

// ---- complex math --------------------------------------------------------------------------
template <typename T> __device__ __forceinline__ T c_abs(cplx<T> z) { return m_hypot(z.re, z.im); }
template <typename T> __device__ __forceinline__ cplx<T> c_exp(cplx<T> z) {
    if (z.im == 0) return mkc(m_exp(z.re), z.im);
    T e = m_exp(z.re);
    return mkc(e * m_cos(z.im), e * m_sin(z.im));
}
template <typename T> __device__ __forceinline__ cplx<T> c_log(cplx<T> z) {
    return mkc(m_log(c_abs(z)), m_atan2(z.im, z.re));
}
template <typename T> __device__ __forceinline__ cplx<T> c_sqrt(cplx<T> z) {
    // the principal root, from |z| without cancellation
    T x = z.re, y = z.im;
    if (x == 0 && y == 0) return mkc((T)0, y);
    T t = m_sqrt((m_fabs(x) + c_abs(z)) / 2);
    if (x >= 0) return mkc(t, y / (2 * t));
    return mkc(m_fabs(y) / (2 * t), m_copysign(t, y));
}
template <typename T> __device__ __forceinline__ cplx<T> c_sin(cplx<T> z) {
    return mkc(m_sin(z.re) * m_cosh(z.im), m_cos(z.re) * m_sinh(z.im));
}
template <typename T> __device__ __forceinline__ cplx<T> c_cos(cplx<T> z) {
    return mkc(m_cos(z.re) * m_cosh(z.im), -m_sin(z.re) * m_sinh(z.im));
}
template <typename T> __device__ __forceinline__ cplx<T> c_sinh(cplx<T> z) {
    return mkc(m_sinh(z.re) * m_cos(z.im), m_cosh(z.re) * m_sin(z.im));
}
template <typename T> __device__ __forceinline__ cplx<T> c_cosh(cplx<T> z) {
    return mkc(m_cosh(z.re) * m_cos(z.im), m_sinh(z.re) * m_sin(z.im));
}
template <typename T> __device__ __forceinline__ cplx<T> c_tanh(cplx<T> z) {
    // (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), with the limit +-1 for large |x|
    if (m_fabs(z.re) > (T)20) return mkc(m_copysign((T)1, z.re), (T)0 * m_sin(2 * z.im));
    T d = m_cosh(2 * z.re) + m_cos(2 * z.im);
    return mkc(m_sinh(2 * z.re) / d, m_sin(2 * z.im) / d);
}
template <typename T> __device__ __forceinline__ cplx<T> c_tan(cplx<T> z) {
    // tan z = -i tanh(i z)
    cplx<T> t = c_tanh(mkc(-z.im, z.re));
    return mkc(t.im, -t.re);
}
template <typename T> __device__ __forceinline__ cplx<T> c_asinh(cplx<T> z) {
    // log(z + sqrt(z^2 + 1)), on the half plane x >= 0 (asinh is odd) to avoid cancellation
    bool neg = z.re < 0 || (z.re == 0 && m_signbit(z.re));
    cplx<T> w = neg ? -z : z;
    cplx<T> r = c_log(w + c_sqrt(w * w + mkc((T)1, (T)0)));
    return neg ? -r : r;
}
template <typename T> __device__ __forceinline__ cplx<T> c_asin(cplx<T> z) {
    // asin z = -i asinh(i z)
    cplx<T> t = c_asinh(mkc(-z.im, z.re));
    return mkc(t.im, -t.re);
}
template <typename T> __device__ __forceinline__ cplx<T> c_acos(cplx<T> z) {
    cplx<T> a = c_asin(z);
    return mkc((T)1.5707963267948966 - a.re, -a.im);
}
template <typename T> __device__ __forceinline__ cplx<T> c_atanh(cplx<T> z) {
    // (log(1 + z) - log(1 - z)) / 2
    cplx<T> one = mkc((T)1, (T)0);
    cplx<T> r = c_log(one + z) - c_log(one - z);
    return mkc(r.re / 2, r.im / 2);
}
template <typename T> __device__ __forceinline__ cplx<T> c_atan(cplx<T> z) {
    // atan z = -i atanh(i z)
    cplx<T> t = c_atanh(mkc(-z.im, z.re));
    return mkc(t.im, -t.re);
}
template <typename T> __device__ __forceinline__ cplx<T> c_acosh(cplx<T> z) {
    // log(z + sqrt(z + 1) sqrt(z - 1))
    cplx<T> one = mkc((T)1, (T)0);
    return c_log(z + c_sqrt(z + one) * c_sqrt(z - one));
}
template <typename T> __device__ __forceinline__ cplx<T> c_expm1(cplx<T> z) {
    // real part expm1(x) cos y - 2 sin^2(y/2): accurate near 0
    T s = m_sin(z.im / 2);
    return mkc(m_expm1(z.re) * m_cos(z.im) - 2 * s * s, m_exp(z.re) * m_sin(z.im));
}
template <typename T> __device__ __forceinline__ cplx<T> c_log1p(cplx<T> z) {
    T x = z.re, y = z.im;
    if (m_fabs(x) > (T)1e10 || m_fabs(y) > (T)1e10) return c_log(mkc((T)1 + x, y));
    return mkc((T)0.5 * m_log1p(x * (2 + x) + y * y), m_atan2(y, (T)1 + x));
}
template <typename T> __device__ __forceinline__ cplx<T> c_pow(cplx<T> a, cplx<T> b) {
    // NumPy's cases first (Note [Complex division, reciprocal and power as NumPy's] in
    // scalar_math.h), then the general formula where the host calls cpow
    T re, im;
    if (strided_cpow_parts(a.re, a.im, b.re, b.im, &re, &im)) return mkc(re, im);
    return c_exp(b * c_log(a));
}
template <typename T> __device__ __forceinline__ cplx<T> c_sign(cplx<T> z) {
    if (z.re == 0 && z.im == 0) return z;
    T m = c_abs(z);
    return mkc(z.re / m, z.im / m);
}

// ---- unary ops -----------------------------------------------------------------------------
#define STRIDED_UNARY(NAME) struct op_##NAME { template <typename T> __device__ __forceinline__ auto operator()(T x) const
#define STRIDED_END };

STRIDED_UNARY(abs) {
    if constexpr (is_complex<T>::value) return c_abs(x);
    else if constexpr (is_float<T>::value) return m_fabs(x);
    else if constexpr (is_signed_int<T>::value) return (T)(x >= 0 ? x : -x);
    else return x;
} STRIDED_END
STRIDED_UNARY(negative) { if constexpr (is_complex<T>::value) return -x; else return (T)(-x); } STRIDED_END
STRIDED_UNARY(positive) { return x; } STRIDED_END
STRIDED_UNARY(square) { if constexpr (is_complex<T>::value) return x * x; else return (T)(x * x); } STRIDED_END
STRIDED_UNARY(sqrt) { if constexpr (is_complex<T>::value) return c_sqrt(x); else return m_sqrt(x); } STRIDED_END
STRIDED_UNARY(reciprocal) {
    if constexpr (is_complex<T>::value) {
        typename real_of<T>::type re, im;  // NumPy's formula, scalar_math.h
        strided_crecip_parts(x.re, x.im, &re, &im);
        return mkc(re, im);
    } else return (T)1 / x;
} STRIDED_END
#define STRIDED_FC(NAME)                                                          \
    STRIDED_UNARY(NAME) {                                                         \
        if constexpr (is_complex<T>::value) return c_##NAME(x); else return m_##NAME(x); \
    } STRIDED_END
STRIDED_FC(exp)
STRIDED_FC(expm1)
STRIDED_FC(log)
STRIDED_FC(log1p)
STRIDED_FC(sin)
STRIDED_FC(cos)
STRIDED_FC(tan)
STRIDED_FC(asin)
STRIDED_FC(acos)
STRIDED_FC(atan)
STRIDED_FC(sinh)
STRIDED_FC(cosh)
STRIDED_FC(tanh)
STRIDED_FC(asinh)
STRIDED_FC(acosh)
STRIDED_FC(atanh)
STRIDED_UNARY(log2) {
    if constexpr (is_complex<T>::value) {
        T l = c_log(x);
        return mkc(l.re * (typename real_of<T>::type)1.4426950408889634, l.im * (typename real_of<T>::type)1.4426950408889634);
    } else return m_log2(x);
} STRIDED_END
STRIDED_UNARY(log10) {
    if constexpr (is_complex<T>::value) {
        T l = c_log(x);
        return mkc(l.re * (typename real_of<T>::type)0.4342944819032518, l.im * (typename real_of<T>::type)0.4342944819032518);
    } else return m_log10(x);
} STRIDED_END
STRIDED_UNARY(exp2) { return m_exp2(x); } STRIDED_END
STRIDED_UNARY(erf) { return m_erf(x); } STRIDED_END
STRIDED_UNARY(erfc) { return m_erfc(x); } STRIDED_END
STRIDED_UNARY(sigmoid) { return (T)1 / ((T)1 + m_exp(-x)); } STRIDED_END
STRIDED_UNARY(softplus) { return x > 0 ? x + m_log1p(m_exp(-x)) : m_log1p(m_exp(x)); } STRIDED_END
STRIDED_UNARY(relu) {
    if constexpr (is_float<T>::value) return !(x <= 0) ? x : (T)0;
    else return x > 0 ? x : (T)0;
} STRIDED_END
STRIDED_UNARY(ceil) { if constexpr (is_float<T>::value) return m_ceil(x); else return x; } STRIDED_END
STRIDED_UNARY(floor) { if constexpr (is_float<T>::value) return m_floor(x); else return x; } STRIDED_END
STRIDED_UNARY(trunc) { if constexpr (is_float<T>::value) return m_trunc(x); else return x; } STRIDED_END
STRIDED_UNARY(round) {
    if constexpr (is_complex<T>::value) return mkc(m_rint(x.re), m_rint(x.im));
    else if constexpr (is_float<T>::value) return m_rint(x);
    else return x;
} STRIDED_END
STRIDED_UNARY(sign) {
    if constexpr (is_complex<T>::value) return c_sign(x);
    else if constexpr (is_float<T>::value) return x == x ? (T)((x > 0) - (x < 0)) : x;
    else return (T)((x > 0) - (x < 0));
} STRIDED_END
STRIDED_UNARY(signbit) {
    if constexpr (is_float<T>::value) return m_signbit(x);
    else if constexpr (is_signed_int<T>::value) return x < 0;
    else return false;  // bool and unsigned: never negative
} STRIDED_END
STRIDED_UNARY(conj) { if constexpr (is_complex<T>::value) return mkc(x.re, -x.im); else return x; } STRIDED_END
STRIDED_UNARY(real) { if constexpr (is_complex<T>::value) return x.re; else return x; } STRIDED_END
STRIDED_UNARY(imag) { if constexpr (is_complex<T>::value) return x.im; else return (T)0; } STRIDED_END
STRIDED_UNARY(isfinite) {
    if constexpr (is_complex<T>::value) return m_isfinite(x.re) && m_isfinite(x.im);
    else if constexpr (is_float<T>::value) return m_isfinite(x);
    else return true;
} STRIDED_END
STRIDED_UNARY(isinf) {
    if constexpr (is_complex<T>::value) return m_isinf(x.re) || m_isinf(x.im);
    else if constexpr (is_float<T>::value) return m_isinf(x);
    else return false;
} STRIDED_END
STRIDED_UNARY(isnan) {
    if constexpr (is_complex<T>::value) return x.re != x.re || x.im != x.im;
    else return x != x;
} STRIDED_END
STRIDED_UNARY(logical_not) {
    if constexpr (is_complex<T>::value) return x.re == 0 && x.im == 0;
    else return x == 0;
} STRIDED_END
STRIDED_UNARY(bitwise_invert) { return (T)(~x); } STRIDED_END
// bool's bitwise_invert is logical not: the host picks op_logical_not for bool (see the table)

// ---- binary ops ----------------------------------------------------------------------------
// ``flag`` reports what NumPy reports: 1 an integer division by zero (a RuntimeWarning), 2 an
// integer to a negative power (a ValueError). See Note [Integer division by zero] in
// strided/_cpu/scalar_math.h; the host reads it back only for the ops that can set it.
#define STRIDED_BINARY(NAME) struct op_##NAME { template <typename T> __device__ __forceinline__ auto operator()(T a, T b, int* flag) const

STRIDED_BINARY(add) { return (T)(a + b); } STRIDED_END
struct op_add_bool { template <typename T> __device__ __forceinline__ T operator()(T a, T b, int*) const { return (T)(a | b); } };
struct op_multiply_bool { template <typename T> __device__ __forceinline__ T operator()(T a, T b, int*) const { return (T)(a & b); } };
STRIDED_BINARY(subtract) { return (T)(a - b); } STRIDED_END
STRIDED_BINARY(multiply) { return (T)(a * b); } STRIDED_END
STRIDED_BINARY(divide) { return a / b; } STRIDED_END
STRIDED_BINARY(floor_divide) {
    if constexpr (is_float<T>::value) return strided_floordiv(a, b);
    else return strided_floordiv(a, b, flag);
} STRIDED_END
STRIDED_BINARY(remainder) {
    if constexpr (is_float<T>::value) return strided_remainder(a, b);
    else return strided_remainder(a, b, flag);
} STRIDED_END
STRIDED_BINARY(pow) {
    if constexpr (is_complex<T>::value) return c_pow(a, b);
    else if constexpr (is_float<T>::value) return m_pow(a, b);
    else return strided_pow(a, b, flag);
} STRIDED_END
// bool has no overload of its own: it promotes to int32_t's, and the cast brings it back
// complex: NumPy's order, on the parts (Note [The order of complex numbers] in scalar_math.h)
STRIDED_BINARY(maximum) {
    if constexpr (is_complex<T>::value) return strided_cmaximum_takes_a(a.re, a.im, b.re, b.im) ? a : b;
    else return (T)strided_maximum(a, b);
} STRIDED_END
STRIDED_BINARY(minimum) {
    if constexpr (is_complex<T>::value) return strided_cminimum_takes_a(a.re, a.im, b.re, b.im) ? a : b;
    else return (T)strided_minimum(a, b);
} STRIDED_END
STRIDED_BINARY(atan2) { return m_atan2(a, b); } STRIDED_END
STRIDED_BINARY(hypot) { return m_hypot(a, b); } STRIDED_END
STRIDED_BINARY(copysign) { return m_copysign(a, b); } STRIDED_END
STRIDED_BINARY(nextafter) { return strided_nextafter(a, b); } STRIDED_END
STRIDED_BINARY(logaddexp) { return strided_logaddexp(a, b); } STRIDED_END
STRIDED_BINARY(bitwise_and) { return (T)(a & b); } STRIDED_END
STRIDED_BINARY(bitwise_or) { return (T)(a | b); } STRIDED_END
STRIDED_BINARY(bitwise_xor) { return (T)(a ^ b); } STRIDED_END
STRIDED_BINARY(bitwise_left_shift) { return strided_shl(a, b); } STRIDED_END
STRIDED_BINARY(bitwise_right_shift) { return strided_shr(a, b); } STRIDED_END
STRIDED_BINARY(equal) { return a == b; } STRIDED_END
STRIDED_BINARY(not_equal) { return a != b; } STRIDED_END
#define STRIDED_ORDER(NAME, OP)                                                        \
    STRIDED_BINARY(NAME) {                                                             \
        if constexpr (is_complex<T>::value) return strided_c##NAME(a.re, a.im, b.re, b.im) != 0; \
        else return a OP b;                                                            \
    } STRIDED_END
STRIDED_ORDER(less, <)
STRIDED_ORDER(less_equal, <=)
STRIDED_ORDER(greater, >)
STRIDED_ORDER(greater_equal, >=)
template <typename T> __device__ __forceinline__ bool truth(T x) {
    if constexpr (is_complex<T>::value) return x.re != 0 || x.im != 0;
    else return x != 0;
}
STRIDED_BINARY(logical_and) { return truth(a) && truth(b); } STRIDED_END
STRIDED_BINARY(logical_or) { return truth(a) || truth(b); } STRIDED_END
STRIDED_BINARY(logical_xor) { return truth(a) != truth(b); } STRIDED_END

// ---- float16 and bfloat16: the float functor, widened and rounded once ----------------------
// The CUDA twin of the CPU's HALF_LOOPS (strided/_cpu/unary.pyx.tp, binary.pyx.tp): a half op
// loads each operand into float, runs the float functor and hands back its float (or bool)
// result, which the kernel's ``op_result<Out>`` rounds once to the half type (Note [CUDA half
// types] in common.cuh; on a GPU both conversions are the hardware's, Note [Hardware half
// conversions in the arithmetic kernels]). The host names ``half_op<op_add>`` for a half dtype.
template <typename Op>
struct half_op {
    template <typename H>
    __device__ __forceinline__ auto operator()(H x) const { return Op()(half_load(x)); }
    template <typename H>
    __device__ __forceinline__ auto operator()(H a, H b, int* flag) const {
        return Op()(half_load(a), half_load(b), flag);
    }
};
// nextafter's answer is one step of the 16-bit pattern: it reads the bits (scalar_math.h)
__device__ __forceinline__ half_t half_nextafter(half_t a, half_t b) {
    return half_bits<half_t>(strided_nextafter_f16(a.bits, b.bits));
}
__device__ __forceinline__ bfloat16_t half_nextafter(bfloat16_t a, bfloat16_t b) {
    return half_bits<bfloat16_t>(strided_nextafter_bf16(a.bits, b.bits));
}
template <>
struct half_op<op_nextafter> {
    template <typename H>
    __device__ __forceinline__ H operator()(H a, H b, int*) const { return half_nextafter(a, b); }
};
