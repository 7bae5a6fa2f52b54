"""The matrix-product loops of strided's own, compiled once per x86-64 level (Note [Choosing
kernels at run time] in cpu_dispatch.py): the tiny float32/float64 products and the integer
products of gemm_loops.h.
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
when C has more rows than columns). A 1 x 1 product (vecdot's rows) is a dot product,
summed a vector of lanes at a time when both vectors are contiguous, and so is each row of a
matrix times a vector when the matrix's rows are contiguous (10000 x (16x16 @ 16) float64:
1.80 ms as 16 rows of one lane each after a transposing copy, 0.62 ms as dots; NumPy 0.72).
Partial rows (n below the lanes) are copied in pieces of fixed size (8, 4, 2, 1 elements), not
by a call to memcpy of a length known at run time: 2000 x (12x12 @ 12x12) float32 0.24 ->
0.12 ms (NumPy 0.22).

The sums run in order of p in every lane, one rounding per multiply-add where the level has
FMA (x86-64-v3 and v4; two at v2); a dot product's lanes are added at the end. OpenBLAS orders
its sums its own way, so the last bits may differ from it and from NumPy (whose matmul calls
its BLAS): the tests compare within 1e-10 (float64) and 1e-4 (float32) relative.

Note [Integer products in registers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
BLAS has no integer GEMM, and the integers' sums wrap around modulo 2**w (Note [Integer matmul]
in blas.pyx), so their products are strided's own at every size. The loop that wrote each sum
into a tile of accumulators in L1 (load, multiply, add, store for every multiply-add) ran 256 x
256 int32 in 2.1 ms where PyTorch takes 0.67. gemm_loops.h does what a GEMM microkernel does,
in miniature (Note [Why GEMM is fast] in blas.pyx): B is packed a panel at a time, 256 rows by
two vectors of lanes (32 at AVX-512 for 8- to 32-bit dtypes, 16 for 64-bit), widened to the
unsigned sum type and padded with zeros past n; four rows of C then keep their 4 x 2 vectors
of sums in registers through the panel, each element of A read once and broadcast, each row of
the panel loaded once for four rows. A panel's sums are added to C as alpha * sum (the first
panel puts beta * C, or 0 when beta is 0, first): modulo 2**w the order of the additions does
not matter, so C itself holds the partial sums between panels and the results are exact,
whatever the blocking, the level or the threads. Any strides will do (they are read while
packing, and A's through its strides). 256 x 256 int32 at 1 thread on the Zen 4: 0.16 ms at
x86-64-v4, 0.34 at v3, 0.76 at v2 (C alone, without the call). A product whose rows of C fit
two 16-byte vectors (8 x 8 int32) takes a build of the kernel with 16-byte vectors, not 8 of
the wide panel's 32 lanes: 2000 x (8x8 @ 8x8) int32 0.32 -> 0.18 ms at v4 (NumPy 0.53).
"""


cdef extern from "gemm_loops.h" nogil:
    void _tiny_run "strided_tiny_run"(const strided_tiny_gemm* g, char* c, const char* a,
                                      const char* b, Py_ssize_t count, Py_ssize_t sc,
                                      Py_ssize_t sa, Py_ssize_t sb)
    void _int_rows "strided_int_gemm_rows"(const strided_int_gemm* g, char* c, const char* a,
                                           const char* b, Py_ssize_t i0, Py_ssize_t i1)


cdef Py_ssize_t tiny_max_work() noexcept nogil:
    """The largest m * n * k a tiny product takes at the level this module was built for
    (STRIDED_TINY_WORK: blas.pyx, built once for the baseline, asks the loaded build)."""
    return STRIDED_TINY_WORK


cdef void tiny_gemm(const strided_tiny_gemm* g, char* c, const char* a, const char* b,
                    Py_ssize_t count, Py_ssize_t sc, Py_ssize_t sa,
                    Py_ssize_t sb) noexcept nogil:
    """``count`` tiny products, C, A and B moving by sc, sa and sb bytes (Note [Tiny products
    in registers]); g is planned by strided_tiny_plan."""
    _tiny_run(g, c, a, b, count, sc, sa, sb)


cdef void int_gemm_rows(const strided_int_gemm* g, char* c, const char* a, const char* b,
                        Py_ssize_t i0, Py_ssize_t i1) noexcept nogil:
    """Rows [i0, i1) of an integer product (Note [Integer products in registers])."""
    _int_rows(g, c, a, b, i0, i1)
