# The bfloat16 GEMM of strided/_cpu/bf16_gemm.h, for blas.pyx: see Note [bfloat16 matmul
# through vdpbf16ps] there.

cdef extern from "bf16_gemm.h" nogil:
    int STRIDED_HAVE_BF16_GEMM
    ctypedef struct strided_bf16_gemm_args:
        Py_ssize_t m, n, k
        Py_ssize_t a_s0, a_s1, b_s0, b_s1, c_s0, c_s1
        float alpha, beta
        int beta_zero
    ctypedef struct strided_bf16_ws_head:
        const char* packed_b
    size_t strided_bf16_gemm_bytes(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k, int threads)
    void strided_bf16_gemm(const strided_bf16_gemm_args* g, char* c, const char* a,
                           const char* b, char* ws, int threads)
