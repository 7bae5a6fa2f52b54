# The floating-point status flags, as NumPy's error bits (divide 1, over 2, under 4, invalid 8):
# cleared before a checked loop and tested after it. See Note [Floating-point errors] in
# strided/_errstate.py. Inline functions only: no module of its own.
#
# On x86-64 every float and double operation runs on SSE, whose flags live in the MXCSR
# register: reading it (stmxcsr) costs a cycle or two, and the clear writes it (ldmxcsr) only
# when one of the four flags is actually set. fenv.h's feclearexcept also saves and reloads the
# x87 environment (fnstenv/fldenv, ~200 ns measured per op), which strided never computes with.
# Elsewhere (ARM, ...) fenv.h's functions are the portable spelling.

cdef extern from *:
    """
    #if defined(__x86_64__) || defined(_M_X64)
    #include <xmmintrin.h>
    /* MXCSR flag bits: invalid 0x01, divide-by-zero 0x04, overflow 0x08, underflow 0x10 */
    #define STRIDED_FP_MASK 0x1Du
    static inline unsigned strided_fp_raised(void) { return _mm_getcsr() & STRIDED_FP_MASK; }
    static inline void strided_fp_clear(void) {
        unsigned csr = _mm_getcsr();
        if (csr & STRIDED_FP_MASK) _mm_setcsr(csr & ~STRIDED_FP_MASK);
    }
    static inline void strided_fp_raise(unsigned raised) {
        if (raised) _mm_setcsr(_mm_getcsr() | (raised & STRIDED_FP_MASK));
    }
    static inline int strided_fp_bits(void) {
        unsigned r = strided_fp_raised();
        return (r & 0x04 ? 1 : 0) | (r & 0x08 ? 2 : 0) | (r & 0x10 ? 4 : 0) | (r & 0x01 ? 8 : 0);
    }
    #else
    #include <fenv.h>
    #define STRIDED_FP_MASK (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
    static inline unsigned strided_fp_raised(void) {
        return (unsigned)fetestexcept(STRIDED_FP_MASK);
    }
    static inline void strided_fp_clear(void) { feclearexcept(STRIDED_FP_MASK); }
    static inline void strided_fp_raise(unsigned raised) {
        if (raised) feraiseexcept((int)raised);
    }
    static inline int strided_fp_bits(void) {
        unsigned r = strided_fp_raised();
        return (r & FE_DIVBYZERO ? 1 : 0) | (r & FE_OVERFLOW ? 2 : 0)
            | (r & FE_UNDERFLOW ? 4 : 0) | (r & FE_INVALID ? 8 : 0);
    }
    #endif
    """
    unsigned fp_raised "strided_fp_raised"() noexcept nogil
    void fp_clear "strided_fp_clear"() noexcept nogil
    void fp_raise "strided_fp_raise"(unsigned raised) noexcept nogil
    int fp_bits "strided_fp_bits"() noexcept nogil
