# Scalar helpers for the elementwise kernels: the few operations whose C spelling is not the
# NumPy meaning (integer division and remainder round toward zero in C, toward -inf in NumPy;
# C's fmax ignores NaN, NumPy's maximum propagates it; shifts past the width are undefined in
# C). Each is one small inline function, written once over a fused type, so the generated loops
# in unary.pyx / binary.pyx stay one expression long.

from libc.math cimport copysign, exp, fabs, floor, fmod, log1p
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

ctypedef fused sint_t:
    int8_t
    int16_t
    int32_t
    int64_t

ctypedef fused uint_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t

ctypedef fused anyint_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t

ctypedef fused real_t:
    float
    double


# Note [Integer division by zero]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# C makes x / 0 and x % 0 undefined (on x86 the process dies of SIGFPE), and so is
# INT_MIN / -1. NumPy defines them: x // 0 == 0, x % 0 == 0, and INT_MIN // -1 == INT_MIN (it
# wraps), with a RuntimeWarning. strided gives the same values; the kernels flag the event in
# their context and the caller turns the flag into the same RuntimeWarning.

cdef inline sint_t floordiv_s(sint_t a, sint_t b, int* flag) noexcept nogil:
    cdef sint_t q
    if b == 0:
        flag[0] = 1
        return 0
    if b == -1:
        return <sint_t>(0 - <uint64_t>a)   # wraps for the most negative value, as NumPy does
    q = a // b        # cdivision: truncates toward zero
    if (a % b != 0) and ((a < 0) != (b < 0)):
        q -= 1
    return q


cdef inline uint_t floordiv_u(uint_t a, uint_t b, int* flag) noexcept nogil:
    if b == 0:
        flag[0] = 1
        return 0
    return a // b


cdef inline sint_t remainder_s(sint_t a, sint_t b, int* flag) noexcept nogil:
    cdef sint_t r
    if b == 0:
        flag[0] = 1
        return 0
    if b == -1:
        return 0
    r = a % b         # cdivision: takes the sign of a
    if r != 0 and ((r < 0) != (b < 0)):
        r += b
    return r


cdef inline uint_t remainder_u(uint_t a, uint_t b, int* flag) noexcept nogil:
    if b == 0:
        flag[0] = 1
        return 0
    return a % b


cdef inline real_t floordiv_f(real_t a, real_t b) noexcept nogil:
    # NumPy: floor(a / b), computed through fmod so that it agrees with remainder_f
    cdef real_t mod, div
    if b == 0:
        return a / b
    mod = fmod(a, b)
    div = (a - mod) / b
    if mod != 0 and ((b < 0) != (mod < 0)):
        div -= 1
    if div != 0:
        return floor(div) + (1 if div - floor(div) > 0.5 else 0)
    return 0.0 * (a / b)   # a signed zero, as NumPy gives


cdef inline real_t remainder_f(real_t a, real_t b) noexcept nogil:
    # NumPy: the result has the sign of b
    cdef real_t mod
    if b == 0:
        return fmod(a, b)   # NaN
    mod = fmod(a, b)
    if mod != 0:
        if (b < 0) != (mod < 0):
            mod += b
    else:
        mod = copysign(0.0, b)   # zero with the sign of b (0 * b would be NaN for b = inf)
    return mod


cdef inline anyint_t ipow(anyint_t base, anyint_t exponent, int* flag) noexcept nogil:
    """base ** exponent by squaring, wrapping like NumPy; a negative exponent sets flag (NumPy
    raises ValueError: integers to negative integer powers are not allowed)."""
    cdef anyint_t result = 1
    if exponent < 0:
        flag[0] = 2
        return 0
    while exponent:
        if exponent & 1:
            result = <anyint_t>(result * base)
        exponent >>= 1
        base = <anyint_t>(base * base)
    return result


cdef inline real_t max_nan(real_t a, real_t b) noexcept nogil:
    """NumPy's maximum: NaN if either is NaN."""
    if a != a:
        return a
    if b != b:
        return b
    return a if a >= b else b


cdef inline real_t min_nan(real_t a, real_t b) noexcept nogil:
    """NumPy's minimum: NaN if either is NaN."""
    if a != a:
        return a
    if b != b:
        return b
    return a if a <= b else b


cdef inline real_t logaddexp_f(real_t a, real_t b) noexcept nogil:
    """log(exp(a) + exp(b)) without overflow: max + log1p(exp(-|a - b|))."""
    cdef real_t m, d
    if a == b:
        return a + <real_t>0.6931471805599453   # log(2); also right for +-inf
    if a != a or b != b:
        return a + b
    m = a if a > b else b
    d = a - b
    return m + <real_t>log1p(exp(-fabs(d)))


cdef inline sint_t shl_s(sint_t a, sint_t b) noexcept nogil:
    # NumPy: shifting by the width or more gives 0; a negative shift also gives 0
    if b < 0 or b >= <sint_t>(sizeof(sint_t) * 8):
        return 0
    return <sint_t>(<uint64_t>a << b)


cdef inline uint_t shl_u(uint_t a, uint_t b) noexcept nogil:
    if b >= <uint_t>(sizeof(uint_t) * 8):
        return 0
    return <uint_t>(a << b)


cdef inline sint_t shr_s(sint_t a, sint_t b) noexcept nogil:
    # arithmetic shift; past the width: 0 for a >= 0, -1 for a < 0 (NumPy)
    if b < 0 or b >= <sint_t>(sizeof(sint_t) * 8):
        return -1 if a < 0 else 0
    return a >> b


cdef inline uint_t shr_u(uint_t a, uint_t b) noexcept nogil:
    if b >= <uint_t>(sizeof(uint_t) * 8):
        return 0
    return a >> b
