# The CBLAS declarations of the OpenBLAS in the scipy-openblas32 wheel, for the modules that
# call it (blas.pyx's matmul, conv.pyx's Winograd GEMMs): functions only declared here, defined
# in the library.

cdef extern from "cblas.h" nogil:
    ctypedef int blasint
    ctypedef enum CBLAS_ORDER:
        CblasRowMajor
        CblasColMajor
    ctypedef enum CBLAS_TRANSPOSE:
        CblasNoTrans
        CblasTrans
    ctypedef enum CBLAS_UPLO:
        CblasUpper
        CblasLower
    # The wheel's library prefixes every symbol with scipy_ (see Note [Finding OpenBLAS at run
    # time] in setup.py): these are cblas_sgemm & co. (OpenBLAS's thread settings are in
    # blas_threads.pyx).
    void scipy_cblas_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m,
                           blasint n, blasint k, float alpha, const float* a, blasint lda,
                           const float* b, blasint ldb, float beta, float* c, blasint ldc)
    void scipy_cblas_dgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m,
                           blasint n, blasint k, double alpha, const double* a, blasint lda,
                           const double* b, blasint ldb, double beta, double* c, blasint ldc)
    void scipy_cblas_cgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m,
                           blasint n, blasint k, const void* alpha, const void* a, blasint lda,
                           const void* b, blasint ldb, const void* beta, void* c, blasint ldc)
    void scipy_cblas_zgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m,
                           blasint n, blasint k, const void* alpha, const void* a, blasint lda,
                           const void* b, blasint ldb, const void* beta, void* c, blasint ldc)
    void scipy_cblas_ssyrk(CBLAS_ORDER order, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans,
                           blasint n, blasint k, float alpha, const float* a, blasint lda,
                           float beta, float* c, blasint ldc)
    void scipy_cblas_dsyrk(CBLAS_ORDER order, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans,
                           blasint n, blasint k, double alpha, const double* a, blasint lda,
                           double beta, double* c, blasint ldc)
    float scipy_cblas_sdot(blasint n, const float* x, blasint incx, const float* y,
                           blasint incy)
    double scipy_cblas_ddot(blasint n, const double* x, blasint incx, const double* y,
                            blasint incy)
    void scipy_cblas_cdotu_sub(blasint n, const void* x, blasint incx, const void* y,
                               blasint incy, void* ret)
    void scipy_cblas_zdotu_sub(blasint n, const void* x, blasint incx, const void* y,
                               blasint incy, void* ret)
