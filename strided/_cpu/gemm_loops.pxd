# The matrix-product loops compiled once per x86-64 level (strided/_cpu/gemm_loops.pyx); the
# BLAS glue in blas.pyx, built once for the baseline, calls them through these declarations.

cdef extern from "gemm_loops.h" nogil:
    enum:
        STRIDED_TINY_MAX
        STRIDED_TINY_WORK
    ctypedef struct strided_tiny_gemm:
        Py_ssize_t m, n, k
        Py_ssize_t a_s0, a_s1, b_s0, b_s1, c_s0, c_s1
        double alpha, beta
        int beta_zero, is_double, swap, dots
    void strided_tiny_plan(strided_tiny_gemm* g, Py_ssize_t itemsize)
    ctypedef struct strided_int_gemm:
        Py_ssize_t m, n, k
        Py_ssize_t a_s0, a_s1, b_s0, b_s1, c_s0, c_s1
        Py_ssize_t itemsize
        unsigned long long alpha, beta
        int beta_zero


cdef void tiny_gemm(const strided_tiny_gemm* g, char* c, const char* a, const char* b,
                    Py_ssize_t count, Py_ssize_t sc, Py_ssize_t sa,
                    Py_ssize_t sb) noexcept nogil
cdef void int_gemm_rows(const strided_int_gemm* g, char* c, const char* a, const char* b,
                        Py_ssize_t i0, Py_ssize_t i1) noexcept nogil
cdef Py_ssize_t tiny_max_work() noexcept nogil
