# The Cython declarations of strided/_cpu/cdivide.h: complex division and reciprocal with
# NumPy's roundings (Note [Complex division without fused multiply-adds] there), the whole loop
# of binary.pyx.tp's complex divide rows and unary.pyx.tp's complex reciprocal rows. Each
# returns 1. The functions are defined only in the header.

cdef extern from "cdivide.h" nogil:
    int strided_cdiv_loop_c64(char* po, Py_ssize_t so, const char* pa, Py_ssize_t sa,
                              const char* pb, Py_ssize_t sb, Py_ssize_t n)
    int strided_cdiv_loop_c128(char* po, Py_ssize_t so, const char* pa, Py_ssize_t sa,
                               const char* pb, Py_ssize_t sb, Py_ssize_t n)
    int strided_crecip_loop_c64(char* po, Py_ssize_t so, const char* px, Py_ssize_t sx,
                                Py_ssize_t n)
    int strided_crecip_loop_c128(char* po, Py_ssize_t so, const char* px, Py_ssize_t sx,
                                 Py_ssize_t n)
