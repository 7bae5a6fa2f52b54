# The Cython declarations of strided/_cpu/intpow.h: pow by a scalar integer exponent, by
# squaring over blocks (Note [Integer powers by a scalar exponent] there), for the pow loops of
# binary.pyx.tp. Each returns 0, having written nothing, when the exponent is not one of its
# integers. The functions are defined only in the header.

cdef extern from "intpow.h" nogil:
    int strided_powi_f32(char* po, Py_ssize_t so, const char* pa, Py_ssize_t sa, float b,
                         Py_ssize_t n)
    int strided_powi_f64(char* po, Py_ssize_t so, const char* pa, Py_ssize_t sa, double b,
                         Py_ssize_t n)
    int strided_cpowi_c64(char* po, Py_ssize_t so, const char* pa, Py_ssize_t sa, float br,
                          float bi, Py_ssize_t n)
    int strided_cpowi_c128(char* po, Py_ssize_t so, const char* pa, Py_ssize_t sa, double br,
                           double bi, Py_ssize_t n)
