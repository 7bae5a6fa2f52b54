"""The matrix-product loops of strided's own, compiled once per x86-64 level (Note [Choosing
kernels at run time] in cpu_dispatch.py): the tiny float32/float64 products of gemm_loops.h.
blas.pyx, which holds the shape work and the BLAS calls and is built once for the baseline,
chooses the route and calls them (Note [Which route a product takes] there).

Note [Tiny products in registers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A call into OpenBLAS costs ~50 ns before its first multiply-add (argument checks, the choice of
kernel, packing), and its kernels are built for blocks of dozens of rows: a batch of 8 x 8
float64 products (512 multiply-adds each) spent more time in the calls than in the arithmetic.
A product whose m, n and k are all at most STRIDED_TINY_MAX (16) is small enough to do in
registers: each row of C is at most 16 numbers, one or two AVX-512 vectors (two or four AVX2
ones), and row i of C is the sum over p of A[i, p] times row p of B. So gemm_loops.h keeps a
row of C in a vector of 4, 8 or 16 lanes (the fewest that hold n), reads B's rows as vectors
(in place when they are contiguous and exactly that long, otherwise copied once per product
into zero-padded rows on the stack), broadcasts A's elements one at a time through their
strides, and does four rows of C at once, four independent chains of fused multiply-adds. Any
strides will do (negative, zero, stepped): there is no layout to satisfy, so no copy first.
The product is oriented so that the lanes run along the longer side of C (C^T = B^T @ A^T
when C has more rows than columns: a matrix times a vector fills the lanes with its rows).
A 1 x 1 product (vecdot's rows) is a dot product, summed NP lanes at a time when both
vectors are contiguous.

The sums run in order of p in every lane, one rounding per multiply-add where the level has
FMA (x86-64-v3 and v4; two at v2); a dot product's lanes are added at the end. OpenBLAS orders
its sums its own way, so the last bits may differ from it and from NumPy (whose matmul calls
its BLAS): the tests compare within 1e-10 (float64) and 1e-4 (float32) relative.
"""


cdef extern from "gemm_loops.h" nogil:
    void _tiny_run "strided_tiny_run"(const strided_tiny_gemm* g, char* c, const char* a,
                                      const char* b, Py_ssize_t count, Py_ssize_t sc,
                                      Py_ssize_t sa, Py_ssize_t sb)


cdef void tiny_gemm(const strided_tiny_gemm* g, char* c, const char* a, const char* b,
                    Py_ssize_t count, Py_ssize_t sc, Py_ssize_t sa,
                    Py_ssize_t sb) noexcept nogil:
    """``count`` tiny products, C, A and B moving by sc, sa and sb bytes (Note [Tiny products
    in registers]); g is planned by strided_tiny_plan."""
    _tiny_run(g, c, a, b, count, sc, sa, sb)
