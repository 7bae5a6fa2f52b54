"""The CPU kernels of a stride-1 convolution: Winograd's F(4x4, 3x3) for 3x3 filters (the
forward and the weight's gradient), and the im2col rows of any filter (for the GEMM of the
other shapes and of their weight's gradient); and max pooling over tiles, forward and backward
(Note [Max pooling over tiles in one pass]).

The front end, the choice between them and the derivative row are in
``strided/nn/functional/conv.py`` (Note [A stride-1 convolution as one op]); these kernels see
pointers, sizes and element strides only, so they read any layout of their inputs (transposed,
stepped, negative strides) without a copy.

Note [Winograd's F(4x4, 3x3)]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A 3x3 filter slid over a 6x6 patch gives a 4x4 block of outputs: 16 outputs of 9 taps each,
144 multiplications per channel pair. Winograd's minimal filtering algorithm (Lavin and Gray,
"Fast Algorithms for Convolutional Neural Networks", 2015) computes the same 16 numbers as

    Y = A^T [ (G g G^T) * (B^T d B) ] A

with d the 6x6 input patch, g the 3x3 filter, ``*`` the element-wise product of two 6x6
matrices and B^T (6x6), G (6x3), A^T (4x6) small constant matrices (interpolation at the points
0, 1, -1, 2, -2 and infinity): 36 multiplications instead of 144. Summed over the input
channels c, the element-wise product becomes, for each of the 36 positions xi of the 6x6 grid,
a matrix product over c::

    M[xi](tile, k) = sum_c V[xi](tile, c) U[xi](c, k)       V = B^T d B,  U = G g G^T

so the convolution is: transform every input tile (V), transform every filter once (U), 36
matrix products (register-blocked loops of our own for small layers, OpenBLAS's GEMMs for large
ones: Note [The products in registers]), and the inverse transform A^T M A of every output
tile. The multiplications fall by 144 / 36 = 4 and the transforms are additions and
multiplications by small powers of two (winograd.h), so where the products dominate it runs up
to ~4x fewer flops than im2col + GEMM. Partial tiles at the right
and bottom edges read zeros past the image and drop the outputs past the end.

The price is rounding error: the transforms' coefficients (up to 8 in A^T, 5 in B^T, 1/24 in G)
make the intermediate numbers larger than the result, and the error grows with them. Measured
against a float64 einsum (tests/test_cpu_conv.py), on inputs and filters of standard normal
values: float32 F(4x4) has a largest error of 1e-6 to 1e-5 times the largest output (3 to 64
channels; im2col's GEMM: 1e-7 to 6e-7), float64 ~1e-14. F(6x6, 3x3) would be ~10x worse again,
and F(2x2, 3x3) is nearly as exact as im2col but saves only 2.25x. F(4x4) is what cuDNN and
NNPACK use too; its error is far below what float32 training notices (the digits CNN trains to
the same 98-99% test accuracy). The filter transform is computed in double and rounded once.

Note [The tiles' layout]
~~~~~~~~~~~~~~~~~~~~~~~~
A block's transformed tiles V are stored tile by tile, each tile's 36 positions by C channels
together (element (t, xi, c) at t*36*C + xi*C + c), and the GEMMs' results M likewise: V[xi]
is then the matrix whose row t is at t*36*C + xi*C, rows 36*C apart, which BLAS takes as its
leading dimension (Note [Strided views as BLAS matrices] in blas.pyx) and packs anyway. The
transforms, which run tile by tile, then read and write one compact block per tile rather
than one row in each of 36 planes; measured on the digits CNN's convolution, position-major
planes cost ~15% more for the whole step.

Note [The products in registers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The 36 products M[xi] = V[xi] U[xi] were first OpenBLAS's GEMMs, one call per xi and block of
tiles. For the channel counts of small networks each call is small (the digits CNN's second
layer: 75 tiles by 16 by 32) and OpenBLAS's set-up (argument checks, packing both operands,
a pass that zeroes C for beta = 0) is a large part of it; with one input channel (the first
layer) each product is an outer product and the calls cost more than the arithmetic. And on
the project's AMD EPYC (Zen 5, AVX-512) OpenBLAS picks its Haswell kernels (AVX2: half the
vector width; ``scipy_openblas_get_corename()`` says "Haswell").

So the products are made here, by winograd.h's strided_wino_products: a group of WINO_RT
tiles (8 with AVX-512) and a block of WINO_CB = 16 output channels at a time, the 8 rows of
16 sums held in registers (GCC's vector extension: one AVX-512 register of floats each) while
the loop over the input channels broadcasts one V element per tile and multiplies it into
one row of U[xi] (16 output channels, loaded once for the 8 tiles). The 36 x 16 sums of each
tile go to a scratch in L1 that the output transform reads at once, so no block of M is
stored (stored for the whole block first, M was a third of the first layer's time: its
stores, and with a loop over K of unknown count, an overlap check and a peeled loop per
(tile, xi)). U's rows are padded with zeros to whole blocks of 16 (Kp), so every load is a
whole vector. The weight gradient's sums (Note [The weight's gradient by Winograd]) are made
the same way (strided_wino_sums): the 8 tiles' A u A^T for one xi in registers, each input
channel's row of 16 sums loaded, added to and stored once per 8 tiles.

The group walks all of U for every 8 tiles, so U should stay in the L2 cache: the products
are made here while U is at most OWN_PRODUCTS_BYTES (1.5 MiB: 96 -> 96 channels in float32),
OpenBLAS's GEMMs above (one call per xi for a block of tiles, which packs U once). Kernels
alone, 1 thread, x86-64-v4, float32, padding 1, medians of 9 (us; OpenBLAS -> here):

=================================  ===============  ===============
input, filters                     forward          weight gradient
=================================  ===============  ===============
64x1x8x8, 16 (digits CNN, first)   111 -> 49        76 -> 42
64x16x8x8, 32 (digits CNN, second) 210 -> 146       195 -> 147
64x32x8x8, 16 (its input gradient) 256 -> 149       214 -> 143
8x64x56x56, 64                     7865 -> 5731     7357 -> 5124
8x96x28x28, 96                     4447 -> 2755     3656 -> 2872
8x128x28x28, 128                   7299 -> 6187     6744 -> 7486
8x256x14x14, 256                   10538 -> 7005    11700 -> 15464
=================================  ===============  ===============

(the first row's "OpenBLAS" is the GEMM path run on one input channel; the path it replaces,
one tile's products at a time by plain loops, took ~45 us.) At x86-64-v3 (AVX2, 4 tiles a
group, a block two registers), same machine and load, OpenBLAS -> here: forward 107 -> 48,
291 -> 245, 380 -> 254 us, 15.3 -> 12.5 ms, 8.1 -> 8.2 ms; weight gradient 71 -> 43, 296 ->
269, 296 -> 328 us, 14.4 -> 15.6 ms, 6.6 -> 5.3 ms: about even for the weight gradient. At the
baseline (SSE, 2 tiles a group) the products in registers lost with 16 input channels (684
against 469 us), so there they are made here only with the tiles in lanes.

Past ~100 channels the weight gradient's sums, which load and store their rows of S, lose to
OpenBLAS; the forward still wins there on this machine, whose OpenBLAS runs AVX2 kernels, but
one threshold serves both and leaves large layers to the library that blocks for the caches.

Note [Tiles in lanes]
~~~~~~~~~~~~~~~~~~~~~
The input transform works on a block of 16 channels in the 16 lanes of a vector (Note [The
tiles' layout]); with one input channel (a network's first layer) 15 lanes transform zeros,
and the gather writes a whole vector of zeros per patch element for one value: the gather and
transform were ~45% of the digits CNN's first convolution. Up to LANE_CHANNELS (4) input
channels the lanes are tiles instead: the patches of 16 tiles, one channel at a time, are
gathered into one 6x6 x 16 patch (strided_wino_lane_patches), and the same transform makes V
for all 16. V is then stored group by group (16 tiles), channel by channel, position by
position, the tiles innermost: element (t, xi, c) of a block at (t/16)*36*16*C + c*36*16 +
xi*16 + t%16, and the products read it through strides (1, 16, 36*16) for (tile, xi, c)
instead of (36*C, C, 1). A block is then whole groups of 16 tiles (the last one cut short,
its missing tiles zeros). OpenBLAS's GEMMs cannot read this layout; it is used with the
products in registers only, which is how few channels are made anyway. Kernels alone, 1
thread, x86-64-v4, float32, padding 1, thread time, medians of 11 alternated rounds (us;
channels in lanes -> tiles in lanes):

===================================  ============  ===============
input, filters                       forward       weight gradient
===================================  ============  ===============
64x1x8x8, 16 (digits CNN, first)     47 -> 26      43 -> 22
64x3x8x8, 16                         55 -> 37      54 -> 36
64x4x8x8, 16                         61 -> 44      60 -> 43
64x8x8x8, 16 (not taken)             65 -> 72      65 -> 72
16x3x32x32, 32                       297 -> 221    279 -> 203
===================================  ============  ===============

The tiles are processed in blocks sized so that a block's V (and, with OpenBLAS, M: 36 * (C +
K) numbers per tile) stays in the L2 cache, each block by one thread: its input transforms, its
products (OpenBLAS's GEMMs each small enough that OpenBLAS runs it on the calling thread: Note
[Threads: ours and OpenBLAS's] in blas.pyx), its output transforms. The blocks are the
prange's unit.

Note [The weight's gradient by Winograd]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The weight's gradient of a 3x3 convolution is itself a correlation, of the input with the
output's gradient: gw[k, c, a, b] = sum over n, y, z of grad[n, k, y, z] x[n, c, y + a - p,
z + b - q]. Cut into the forward's tiles, each 6x6 input patch d meets the 4x4 tile u of grad
at the same place and contributes a 3x3 correlation of d with u: Winograd's F(3x3, 4x4),
whose matrices are the forward's, transposed. (In one dim: F(4, 3) is y = A^T [(G g) * (B^T
d)], so for any 4-vector u, u . y = g . G^T [(A u) * (B^T d)], and the correlation of d with u,
z_j = sum_i u_i d_(i+j), is the vector that dots with g to give u . y: z = G^T [(A u) * (B^T
d)].) In two dims, per tile::

    gw_tile = G^T [ (A u A^T) * (B^T d B) ] G

and summed over tiles and images, for each of the 36 positions xi, a GEMM whose inner dim is
the tiles: S[xi](k, c) = sum_t W[xi](t, k) V[xi](t, c), W = A u A^T. V is the forward's input
transform, W a transform like the forward's output one, and G^T S G (3x3, in double) is done
once per filter at the end (S is stored C x K, transposed, so that its rows are the output
channels that the sums hold in vector lanes). 36 GEMMs of (K x tiles) by (tiles x C) against
im2col's one GEMM of (K x N*H_out*W_out) by (N*H_out*W_out x 9C): again 4x fewer
multiplications, and no im2col rows. Each thread sums its blocks' products into sums of its
own, added together at the end (a fixed order for a given thread count).

Note [The bias's gradient in the weight's]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The bias's gradient is grad summed over (N, H_out, W_out). The weight's gradient already takes
every 4x4 tile u of grad to W = A u A^T, and the row of A at the interpolation point 1 is all
ones (1, 1, 1, 1), so W's element (1, 1), xi = 7, is the tile's sum (zeros past the edges).
Each thread adds those up per output channel in double as it goes (8 tiles' worth of adds per
block of channels), and the threads' totals are added in order at the end: the bias's
gradient for nearly nothing. As its own reduction, strided.sum(grad, axis=(0, 2, 3)) of the
digits CNN's channels-last 64x32x8x8 gradient took ~35 us at 1 thread (PyTorch's sum 7-14
us), a quarter of that layer's weight-gradient kernel. The derivative row asks for both at
once (``"weight, bias"`` in nn/functional/conv.py).
"""

from cython cimport floating
from cython.parallel cimport prange, threadid
from libc.stdlib cimport calloc, free, malloc

from strided._core cimport TensorBase, alloc_storage, make_tensor
from strided._iter cimport LoopPlan, plan_dense_operand, plan_init, plan_reorder, plan_set_operand
from strided._cpu.cblas cimport (
    CblasNoTrans,
    CblasRowMajor,
    CblasTrans,
    blasint,
    scipy_cblas_dgemm,
    scipy_cblas_sgemm,
)
from strided._threads cimport num_threads


cdef extern from "winograd.h" nogil:
    enum:
        WINO_CB
        WINO_RT
        WINO_VB
    void strided_wino_patch_float(const float* x, long sc, long sh, long sw, long H, long W,
                                  long y0, long x0, long cb, float* d)
    void strided_wino_patch_double(const double* x, long sc, long sh, long sw, long H, long W,
                                   long y0, long x0, long cb, double* d)
    void strided_wino_input_float(const float* d, long cb, float* v, long plane)
    void strided_wino_input_double(const double* d, long cb, double* v, long plane)
    void strided_wino_output_float(const float* m, long plane, long cb, const float* bias,
                                   float* y)
    void strided_wino_output_double(const double* m, long plane, long cb, const double* bias,
                                    double* y)
    void strided_wino_filter_float(const float* g, long gk, long gh, long gw, long kb, float* u,
                                   long plane)
    void strided_wino_filter_double(const double* g, long gk, long gh, long gw, long kb,
                                    double* u, long plane)
    void strided_wino_grad_float(const float* g, long sk, long sh, long sw, long Ho, long Wo,
                                 long y0, long x0, long cb, float* u, float* w, long plane)
    void strided_wino_grad_double(const double* g, long sk, long sh, long sw, long Ho, long Wo,
                                  long y0, long x0, long cb, double* u, double* w, long plane)
    void strided_wino_weight_float(const float* s, long plane, long K, float* g, long gk,
                                   long gh, long gw)
    void strided_wino_weight_double(const double* s, long plane, long K, double* g, long gk,
                                    long gh, long gw)
    void strided_wino_products_float(const float* v, long rs, long xs, long cs, const float* u,
                                     long C, long Kp, long rows, float* mt)
    void strided_wino_products_double(const double* v, long rs, long xs, long cs,
                                      const double* u, long C, long Kp, long rows, double* mt)
    void strided_wino_sums_float(const float* mt, const float* v, long rs, long xs, long cs,
                                 float* s, long C, long Kp, long rows)
    void strided_wino_sums_double(const double* mt, const double* v, long rs, long xs, long cs,
                                  double* s, long C, long Kp, long rows)
    void strided_wino_lane_patches_float(const float* x, long sn, long sh, long sw, long H,
                                         long W, const long* n, const long* y0, const long* x0,
                                         long lanes, float* d)
    void strided_wino_lane_patches_double(const double* x, long sn, long sh, long sw, long H,
                                          long W, const long* n, const long* y0, const long* x0,
                                          long lanes, double* d)


cdef extern from "pool.h" nogil:
    void strided_pool_max_float(const float* x, long lx, float* out, long lo, long n, long xh,
                                long xw, long kh, long kw)
    void strided_pool_max_double(const double* x, long lx, double* out, long lo, long n,
                                 long xh, long xw, long kh, long kw)
    void strided_pool_back_float(const float* x, long lx, const float* g, long lo, float* gx,
                                 long lg, long n, long xh, long xw, long gh, long gw, long kh,
                                 long kw)
    void strided_pool_back_double(const double* x, long lx, const double* g, long lo,
                                  double* gx, long lg, long n, long xh, long xw, long gh,
                                  long gw, long kh, long kw)


cdef enum:
    OPENBLAS_SERIAL_MNK = 262144    # m*n*k at or below which OpenBLAS runs on one thread
    OWN_PRODUCTS_BYTES = 1572864    # U's size up to which the products skip BLAS
    LANE_CHANNELS = 4               # input channels up to which the tiles are the lanes


cdef struct Geometry:
    # input (N, C, H, W) and output (N, K, Ho, Wo), element strides; padding; tiles
    Py_ssize_t n, c, h, w, k, ho, wo
    Py_ssize_t xn, xc, xh, xw, on, ok, oh, ow
    Py_ssize_t ph, pw, th, tw, tiles
    # K rounded up to whole blocks of WINO_CB (U's and the sums' rows); whether the products
    # are OpenBLAS's GEMMs (Note [The products in registers]); whether V's lanes are tiles
    # (Note [Tiles in lanes]) and its strides by tile, position xi and channel
    Py_ssize_t kp
    bint blas, lanes
    Py_ssize_t vr, vx, vc


cdef inline void _gemm(const floating* a, Py_ssize_t lda, const floating* b, Py_ssize_t ldb,
                       floating* c, Py_ssize_t ldc, Py_ssize_t m, Py_ssize_t n,
                       Py_ssize_t k) noexcept nogil:
    """c (m x n, rows ldc apart) = a (m x k, rows lda apart) @ b (k x n, rows ldb apart)."""
    if floating is float:
        scipy_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, <blasint>m, <blasint>n,
                          <blasint>k, 1.0, a, <blasint>lda, b, <blasint>ldb, 0.0, c,
                          <blasint>ldc)
    else:
        scipy_cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, <blasint>m, <blasint>n,
                          <blasint>k, 1.0, a, <blasint>lda, b, <blasint>ldb, 0.0, c,
                          <blasint>ldc)


cdef void _filters(const floating* w, Py_ssize_t wk, Py_ssize_t wc, Py_ssize_t wh,
                   Py_ssize_t ww, const Geometry* g, floating* u) noexcept nogil:
    """U[xi](c, k) = (G g G^T)[xi] of filter (k, c), at u + xi*C*Kp + c*Kp + k."""
    cdef Py_ssize_t kblk, k0, kb, c
    for c in range(g.c):
        for kblk in range((g.k + WINO_CB - 1) // WINO_CB):
            k0 = kblk * WINO_CB
            kb = min(<Py_ssize_t>WINO_CB, g.k - k0)
            if floating is float:
                strided_wino_filter_float(w + k0 * wk + c * wc, wk, wh, ww, kb,
                                          u + c * g.kp + k0, g.c * g.kp)
            else:
                strided_wino_filter_double(w + k0 * wk + c * wc, wk, wh, ww, kb,
                                           u + c * g.kp + k0, g.c * g.kp)


cdef inline Py_ssize_t _tile_origin(const Geometry* g, Py_ssize_t tile, Py_ssize_t* ty,
                                    Py_ssize_t* tx) noexcept nogil:
    """Tile number ``tile`` (image by image, rows of tiles within one): its image, returned,
    and its row and column of tiles in ty, tx."""
    cdef Py_ssize_t per_image = g.th * g.tw
    cdef Py_ssize_t n = tile // per_image
    cdef Py_ssize_t r = tile - n * per_image
    ty[0] = r // g.tw
    tx[0] = r - ty[0] * g.tw
    return n


cdef inline floating* _vrow(const Geometry* g, floating* v, Py_ssize_t r) noexcept nogil:
    """Where tile r of a block starts in its V (Note [The tiles' layout], Note [Tiles in
    lanes])."""
    if g.lanes:
        return v + (r // WINO_CB) * 36 * WINO_CB * g.c + r % WINO_CB
    return v + r * 36 * g.c


cdef void _lane_tiles(const floating* x, const Geometry* g, Py_ssize_t t0, Py_ssize_t nt,
                      floating* v, floating* d) noexcept nogil:
    """V = B^T d B of tiles t0 .. t0+nt-1, WINO_CB tiles at a time in the vector lanes, one
    channel at a time (Note [Tiles in lanes]); lanes past nt hold zeros."""
    cdef long n[WINO_CB]
    cdef long y0[WINO_CB]
    cdef long x0[WINO_CB]
    cdef Py_ssize_t grp, lanes, lane, c, ty, tx
    for grp in range((nt + WINO_CB - 1) // WINO_CB):
        lanes = min(<Py_ssize_t>WINO_CB, nt - grp * WINO_CB)
        for lane in range(lanes):
            n[lane] = _tile_origin(g, t0 + grp * WINO_CB + lane, &ty, &tx)
            y0[lane], x0[lane] = ty * 4 - g.ph, tx * 4 - g.pw
        for c in range(g.c):
            if floating is float:
                strided_wino_lane_patches_float(x + c * g.xc, g.xn, g.xh, g.xw, g.h, g.w, n, y0,
                                                x0, lanes, d)
                strided_wino_input_float(d, WINO_CB, v + (grp * g.c + c) * 36 * WINO_CB,
                                         WINO_CB)
            else:
                strided_wino_lane_patches_double(x + c * g.xc, g.xn, g.xh, g.xw, g.h, g.w, n,
                                                 y0, x0, lanes, d)
                strided_wino_input_double(d, WINO_CB, v + (grp * g.c + c) * 36 * WINO_CB,
                                          WINO_CB)


cdef void _input_tiles(const floating* x, const Geometry* g, Py_ssize_t t0, Py_ssize_t nt,
                       floating* v, floating* d) noexcept nogil:
    """V = B^T d B of tiles t0 .. t0+nt-1, at v + t*36*C + xi*C + c (d: two patches' scratch).

    The patch of one (tile, channel block) is gathered while the one before it is transformed:
    a gather stores one element at a time (the input's channels are rarely neighbours), and a
    full-width vector load of what is still in the store buffer as single elements cannot be
    forwarded from it, a stall per load; the patch gathered one step earlier has left it."""
    cdef Py_ssize_t t = 0, n, ty, tx, cblk, c0 = 0, cb = 0, j, prev_t = 0, prev_c0 = 0
    cdef Py_ssize_t prev_cb = 0
    cdef Py_ssize_t blocks = (g.c + WINO_CB - 1) // WINO_CB
    cdef const floating* src
    if g.lanes:
        _lane_tiles(x, g, t0, nt, v, d)
        return
    for j in range(nt * blocks + 1):
        if j < nt * blocks:
            t = j // blocks
            cblk = j - t * blocks
            n = _tile_origin(g, t0 + t, &ty, &tx)
            c0 = cblk * WINO_CB
            cb = min(<Py_ssize_t>WINO_CB, g.c - c0)
            src = x + n * g.xn + c0 * g.xc
            if floating is float:
                strided_wino_patch_float(src, g.xc, g.xh, g.xw, g.h, g.w, ty * 4 - g.ph,
                                         tx * 4 - g.pw, cb, d + (j & 1) * 36 * WINO_CB)
            else:
                strided_wino_patch_double(src, g.xc, g.xh, g.xw, g.h, g.w, ty * 4 - g.ph,
                                          tx * 4 - g.pw, cb, d + (j & 1) * 36 * WINO_CB)
        if j > 0:
            if floating is float:
                strided_wino_input_float(d + ((j - 1) & 1) * 36 * WINO_CB, prev_cb,
                                         v + prev_t * 36 * g.c + prev_c0, g.c)
            else:
                strided_wino_input_double(d + ((j - 1) & 1) * 36 * WINO_CB, prev_cb,
                                          v + prev_t * 36 * g.c + prev_c0, g.c)
        prev_t, prev_c0, prev_cb = t, c0, cb


cdef inline void _output_tile(const floating* m, Py_ssize_t plane, const floating* bias,
                              floating* out, const Geometry* g, Py_ssize_t tile, Py_ssize_t c0,
                              Py_ssize_t cb, floating* yt) noexcept nogil:
    """The output transform of one tile's products m (element xi at m + xi*plane) for output
    channels c0 .. c0+cb-1, bias added, into yt and from there into out, cut at its edges."""
    cdef Py_ssize_t n, ty, tx, i, j, c, ni, nj
    cdef floating* dst
    n = _tile_origin(g, tile, &ty, &tx)
    if floating is float:
        strided_wino_output_float(m, plane, cb, bias + c0 if bias != NULL else NULL, yt)
    else:
        strided_wino_output_double(m, plane, cb, bias + c0 if bias != NULL else NULL, yt)
    # (the strides in locals: with -fno-strict-aliasing a store through dst might change g's
    # fields, which the loops would then reload at every element, unvectorised)
    cdef Py_ssize_t ok = g.ok, oh = g.oh, ow = g.ow
    cdef floating* row
    ni, nj = min(4, g.ho - ty * 4), min(4, g.wo - tx * 4)
    dst = out + n * g.on + c0 * ok + ty * 4 * oh + tx * 4 * ow
    if ok == 1 and cb == WINO_CB:  # channels-last, a whole block: one vector per element
        for i in range(ni):
            for j in range(nj):
                row = dst + i * oh + j * ow
                for c in range(WINO_CB):
                    row[c] = yt[(i * 4 + j) * WINO_CB + c]
    elif ok == 1:  # channels-last: each output element's cb channels are neighbours
        for i in range(ni):
            for j in range(nj):
                row = dst + i * oh + j * ow
                for c in range(cb):
                    row[c] = yt[(i * 4 + j) * WINO_CB + c]
    else:  # channel by channel, rows of up to 4 (neighbours when channels-first)
        for c in range(cb):
            for i in range(ni):
                row = dst + c * ok + i * oh
                for j in range(nj):
                    row[j * ow] = yt[(i * 4 + j) * WINO_CB + c]


cdef void _block(const floating* x, const floating* u, const floating* bias, floating* out,
                 const Geometry* g, Py_ssize_t t0, Py_ssize_t nt, floating* v, floating* m,
                 floating* d) noexcept nogil:
    """Tiles t0 .. t0+nt-1: input transforms into v, the products, output transforms into out
    (Note [Winograd's F(4x4, 3x3)]). The products: WINO_RT tiles at a time, a block of output
    channels at a time, into a scratch that the output transform reads from L1 (Note [The
    products in registers]), or, g.blas, 36 GEMMs into m. d: scratch for two patches, one
    output tile and WINO_RT tiles' products."""
    cdef Py_ssize_t t, cblk, c0, cb, xi, grp, r0, r, rows
    cdef floating* yt = d + 72 * WINO_CB
    cdef floating* mt = d + 88 * WINO_CB
    _input_tiles(x, g, t0, nt, v, d)
    if g.blas:
        for xi in range(36):
            # the rows of V[xi] and M[xi] are their tiles, 36 * C and 36 * K apart (Note [The
            # tiles' layout])
            _gemm(v + xi * g.c, 36 * g.c, u + xi * g.c * g.kp, g.kp, m + xi * g.k, 36 * g.k,
                  nt, g.k, g.c)
        for t in range(nt):
            for cblk in range((g.k + WINO_CB - 1) // WINO_CB):
                c0 = cblk * WINO_CB
                cb = min(<Py_ssize_t>WINO_CB, g.k - c0)
                _output_tile(m + t * 36 * g.k + c0, g.k, bias, out, g, t0 + t, c0, cb, yt)
        return
    for grp in range((nt + WINO_RT - 1) // WINO_RT):
        r0, rows = grp * WINO_RT, min(<Py_ssize_t>WINO_RT, nt - grp * WINO_RT)
        for cblk in range((g.k + WINO_CB - 1) // WINO_CB):
            c0 = cblk * WINO_CB
            cb = min(<Py_ssize_t>WINO_CB, g.k - c0)
            if floating is float:
                strided_wino_products_float(_vrow(g, v, r0), g.vr, g.vx, g.vc, u + c0, g.c, g.kp,
                                            rows, mt)
            else:
                strided_wino_products_double(_vrow(g, v, r0), g.vr, g.vx, g.vc, u + c0, g.c,
                                             g.kp, rows, mt)
            for r in range(rows):
                _output_tile(mt + r * 36 * WINO_CB, WINO_CB, bias, out, g, t0 + r0 + r, c0, cb,
                             yt)


cdef inline Py_ssize_t _per_thread(const Geometry* g, Py_ssize_t tile_block) noexcept nogil:
    """Each thread's scratch: a block's V (and M with BLAS), two patches, one output tile and
    WINO_RT tiles' products."""
    if g.lanes:  # whole groups of WINO_CB tiles
        tile_block = (tile_block + WINO_CB - 1) // WINO_CB * WINO_CB
    return 36 * tile_block * (g.c + (g.k if g.blas else 0)) + (88 + 36 * WINO_RT) * WINO_CB


cdef int _winograd(const floating* x, const floating* w, Py_ssize_t wk, Py_ssize_t wc,
                   Py_ssize_t wh, Py_ssize_t ww, const floating* bias, floating* out,
                   Geometry* g, Py_ssize_t tile_block) noexcept nogil:
    """The whole convolution; -1 when out of memory."""
    cdef Py_ssize_t nblocks = (g.tiles + tile_block - 1) // tile_block, b, t0
    cdef Py_ssize_t per_thread = _per_thread(g, tile_block)
    cdef int nthreads = num_threads()
    # U's padding lanes, past K, are zeros (calloc): the products read whole blocks
    cdef floating* u = <floating*>calloc(36 * g.c * g.kp, sizeof(floating))
    cdef floating* scratch
    cdef floating* v
    if nthreads > nblocks:
        nthreads = <int>nblocks
    scratch = <floating*>malloc(nthreads * per_thread * sizeof(floating))
    if u == NULL or scratch == NULL:
        free(u)
        free(scratch)
        return -1
    _filters(w, wk, wc, wh, ww, g, u)
    for b in prange(nblocks, num_threads=nthreads, schedule="static"):
        v = scratch + threadid() * per_thread
        t0 = b * tile_block
        _block(x, u, bias, out, g, t0, min(tile_block, g.tiles - t0), v,
               v + 36 * tile_block * g.c, v + per_thread - (88 + 36 * WINO_RT) * WINO_CB)
    free(scratch)
    free(u)
    return 0


cdef void _grad_block(const floating* x, const floating* gr, const Geometry* g, Py_ssize_t t0,
                      Py_ssize_t nt, floating* v, floating* m, floating* d, floating* s,
                      double* bs) noexcept nogil:
    """Tiles t0 .. t0+nt-1 of the weight's gradient (Note [The weight's gradient by Winograd]):
    V of the input tiles into v, A u A^T of the gradient's tiles, and s[xi] += their products
    with v[xi] for the 36 positions xi: WINO_RT tiles and a block of output channels at a time
    from a scratch in L1 (Note [The products in registers]), or, g.blas, the whole block's A u
    A^T into m and 36 GEMMs. s[xi] is C x Kp, element (c, k) at s + xi*C*Kp + c*Kp + k. bs,
    unless NULL: the bias's gradient, each tile's sum added (Note [The bias's gradient in the
    weight's])."""
    cdef Py_ssize_t t, n, ty, tx, kblk, k0, kb, xi, grp, r0, r, rows, k
    cdef floating* mt = d + 88 * WINO_CB
    _input_tiles(x, g, t0, nt, v, d)
    if not g.blas:
        for grp in range((nt + WINO_RT - 1) // WINO_RT):
            r0, rows = grp * WINO_RT, min(<Py_ssize_t>WINO_RT, nt - grp * WINO_RT)
            for kblk in range((g.k + WINO_CB - 1) // WINO_CB):
                k0 = kblk * WINO_CB
                kb = min(<Py_ssize_t>WINO_CB, g.k - k0)
                for r in range(rows):
                    n = _tile_origin(g, t0 + r0 + r, &ty, &tx)
                    if floating is float:
                        strided_wino_grad_float(gr + n * g.on + k0 * g.ok, g.ok, g.oh, g.ow, g.ho,
                                                g.wo, ty * 4, tx * 4, kb, d,
                                                mt + r * 36 * WINO_CB, WINO_CB)
                    else:
                        strided_wino_grad_double(gr + n * g.on + k0 * g.ok, g.ok, g.oh, g.ow,
                                                 g.ho, g.wo, ty * 4, tx * 4, kb, d,
                                                 mt + r * 36 * WINO_CB, WINO_CB)
                    if bs != NULL:
                        for k in range(kb):
                            bs[k0 + k] += mt[r * 36 * WINO_CB + 7 * WINO_CB + k]
                if floating is float:
                    strided_wino_sums_float(mt, _vrow(g, v, r0), g.vr, g.vx, g.vc, s + k0, g.c,
                                            g.kp, rows)
                else:
                    strided_wino_sums_double(mt, _vrow(g, v, r0), g.vr, g.vx, g.vc, s + k0,
                                             g.c, g.kp, rows)
        return
    for t in range(nt):
        n = _tile_origin(g, t0 + t, &ty, &tx)
        for kblk in range((g.k + WINO_CB - 1) // WINO_CB):
            k0 = kblk * WINO_CB
            kb = min(<Py_ssize_t>WINO_CB, g.k - k0)
            if floating is float:
                strided_wino_grad_float(gr + n * g.on + k0 * g.ok, g.ok, g.oh, g.ow, g.ho, g.wo,
                                        ty * 4, tx * 4, kb, d, m + t * 36 * g.k + k0, g.k)
            else:
                strided_wino_grad_double(gr + n * g.on + k0 * g.ok, g.ok, g.oh, g.ow, g.ho,
                                         g.wo, ty * 4, tx * 4, kb, d, m + t * 36 * g.k + k0, g.k)
            if bs != NULL:
                for k in range(kb):
                    bs[k0 + k] += m[t * 36 * g.k + 7 * g.k + k0 + k]
    for xi in range(36):
        # s[xi] (C x K) += v[xi]^T (C x nt) @ m[xi] (nt x K)
        if floating is float:
            scipy_cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, <blasint>g.c,
                              <blasint>g.k, <blasint>nt, 1.0, v + xi * g.c, <blasint>(36 * g.c),
                              m + xi * g.k, <blasint>(36 * g.k), 1.0, s + xi * g.c * g.kp,
                              <blasint>g.kp)
        else:
            scipy_cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, <blasint>g.c,
                              <blasint>g.k, <blasint>nt, 1.0, v + xi * g.c, <blasint>(36 * g.c),
                              m + xi * g.k, <blasint>(36 * g.k), 1.0, s + xi * g.c * g.kp,
                              <blasint>g.kp)


cdef int _winograd_weight(const floating* x, const floating* gr, floating* gw, Py_ssize_t gwk,
                          Py_ssize_t gwc, Py_ssize_t gwh, Py_ssize_t gww, floating* gb,
                          Py_ssize_t gbk, Geometry* g, Py_ssize_t tile_block) noexcept nogil:
    """The weight's gradient into gw (K, C, 3, 3), and, unless gb is NULL, the bias's into gb
    (K elements gbk apart); -1 when out of memory."""
    cdef Py_ssize_t nblocks = (g.tiles + tile_block - 1) // tile_block, b, t0, i, k, c
    cdef Py_ssize_t sums = 36 * g.c * g.kp
    # per thread: the forward's scratch, and the thread's own sums
    cdef Py_ssize_t before_sums = _per_thread(g, tile_block)
    cdef Py_ssize_t per_thread = before_sums + sums
    cdef int nthreads = num_threads(), th
    cdef floating* scratch
    cdef floating* v
    cdef floating* s0
    cdef floating* si
    # each thread's sums of the bias's gradient, in double (a float total of thousands of
    # tiles would lose digits)
    cdef double* bsums = NULL
    if nthreads > nblocks:
        nthreads = <int>nblocks
    scratch = <floating*>calloc(nthreads * per_thread, sizeof(floating))
    if gb != NULL:
        bsums = <double*>calloc(nthreads * g.kp, sizeof(double))
    if scratch == NULL or (gb != NULL and bsums == NULL):
        free(scratch)
        free(bsums)
        return -1
    for b in prange(nblocks, num_threads=nthreads, schedule="static"):
        v = scratch + threadid() * per_thread
        t0 = b * tile_block
        _grad_block(x, gr, g, t0, min(tile_block, g.tiles - t0), v, v + 36 * tile_block * g.c,
                    v + before_sums - (88 + 36 * WINO_RT) * WINO_CB, v + before_sums,
                    bsums + threadid() * g.kp if gb != NULL else NULL)
    s0 = scratch + before_sums
    for th in range(1, nthreads):
        si = scratch + th * per_thread + before_sums
        for i in range(sums):
            s0[i] += si[i]
        if gb != NULL:
            for k in range(g.k):
                bsums[k] += bsums[th * g.kp + k]
    if gb != NULL:
        for k in range(g.k):
            gb[k * gbk] = <floating>bsums[k]
        free(bsums)
    for c in range(g.c):
        if floating is float:
            strided_wino_weight_float(s0 + c * g.kp, g.c * g.kp, g.k, gw + c * gwc, gwk, gwh, gww)
        else:
            strided_wino_weight_double(s0 + c * g.kp, g.c * g.kp, g.k, gw + c * gwc, gwk, gwh,
                                       gww)
    free(scratch)
    return 0


cdef bint _blas_products(Py_ssize_t c, Py_ssize_t k, Py_ssize_t itemsize, int products):
    """Whether the products are OpenBLAS's GEMMs (Note [The products in registers]):
    ``products`` 0 says yes, 1 or 2 no, -1 asks U's size."""
    cdef Py_ssize_t kp = (k + WINO_CB - 1) // WINO_CB * WINO_CB
    if products >= 0:
        return products == 0
    if WINO_VB < 32 and c > LANE_CHANNELS:
        # the baseline build (SSE: registers of 4 floats) lost to OpenBLAS with 16 channels
        # (64x16x8x8 -> 32: 684 against 469 us, though OpenBLAS ran its AVX2 kernels on that
        # AVX-512 machine); with the tiles in lanes it still won (64x1x8x8: 136 against 257)
        return True
    return 36 * c * kp * itemsize > OWN_PRODUCTS_BYTES


cdef bint _tiles_in_lanes(Py_ssize_t c, Py_ssize_t k, Py_ssize_t itemsize, int products):
    """Whether V's lanes are tiles (Note [Tiles in lanes]): ``products`` 2 says yes, 0 or 1
    no, -1 asks the channel count (the products then in registers)."""
    if products >= 0:
        return products == 2
    return c <= LANE_CHANNELS and not _blas_products(c, k, itemsize, products)


cdef Geometry _geometry(TensorBase x, TensorBase out, Py_ssize_t ph, Py_ssize_t pw,
                        int products):
    cdef Geometry g
    g.n, g.c, g.h, g.w = x._sizes[0], x._sizes[1], x._sizes[2], x._sizes[3]
    g.k, g.ho, g.wo = out._sizes[1], out._sizes[2], out._sizes[3]
    g.xn, g.xc, g.xh, g.xw = x._strides[0], x._strides[1], x._strides[2], x._strides[3]
    g.on, g.ok, g.oh, g.ow = out._strides[0], out._strides[1], out._strides[2], out._strides[3]
    g.ph, g.pw = ph, pw
    g.th, g.tw = (g.ho + 3) // 4, (g.wo + 3) // 4
    g.tiles = g.n * g.th * g.tw
    g.kp = (g.k + WINO_CB - 1) // WINO_CB * WINO_CB
    g.blas = _blas_products(g.c, g.k, x.dtype.itemsize, products)
    g.lanes = _tiles_in_lanes(g.c, g.k, x.dtype.itemsize, products)
    if g.lanes:
        g.vr, g.vx, g.vc = 1, WINO_CB, 36 * WINO_CB
    else:
        g.vr, g.vx, g.vc = 36 * g.c, g.c, 1
    return g


def tile_block(Py_ssize_t c, Py_ssize_t k, Py_ssize_t itemsize, Py_ssize_t tiles,
               int products=-1):
    """How many tiles one block holds (Note [Winograd's F(4x4, 3x3)]): V (and, when the
    products are GEMMs, M) within ~512 KiB (an L2 cache), and, with several threads, at least
    one block per thread (the digits CNN's first layer, 256 tiles, was one block of 214 and
    one of 42: no faster on 2 threads than on 1) and each GEMM small enough for OpenBLAS to run
    it on the calling thread."""
    cdef bint blas = _blas_products(c, k, itemsize, products)
    cdef Py_ssize_t tb = (512 * 1024) // (36 * (c + (k if blas else 0)) * itemsize)
    cdef Py_ssize_t nthreads = num_threads()
    if nthreads > 1:
        tb = min(tb, (tiles + nthreads - 1) // nthreads)
        if blas:
            tb = min(tb, OPENBLAS_SERIAL_MNK // max(c * k, 1))
    tb = max(16, min(tb, tiles))
    if _tiles_in_lanes(c, k, itemsize, products):  # whole groups of WINO_CB tiles
        tb = (tb + WINO_CB - 1) // WINO_CB * WINO_CB
    return tb


def winograd_conv2d(TensorBase x, TensorBase w, object bias, Py_ssize_t ph, Py_ssize_t pw,
                    TensorBase out, Py_ssize_t block=0, int products=-1):
    """out (N, K, Ho, Wo) = the 3x3 convolution of x (N, C, H, W) with w (K, C, 3, 3), stride 1,
    padding (ph, pw), plus bias (a contiguous (K,) tensor, or None); all of one dtype, float32
    or float64, any strides (Note [Winograd's F(4x4, 3x3)]). ``block``: tiles per block, 0 for
    ``tile_block``'s choice; ``products``: 0 by OpenBLAS, 1 in registers, 2 in registers with
    the tiles in V's lanes, -1 (the default) by U's size and the channels (Note [The products
    in registers], Note [Tiles in lanes])."""
    cdef Geometry g = _geometry(x, out, ph, pw, products)
    cdef Py_ssize_t wk = w._strides[0], wc = w._strides[1], wh = w._strides[2]
    cdef Py_ssize_t ww = w._strides[3]
    cdef char* b = NULL if bias is None else (<TensorBase>bias)._data()
    if g.tiles == 0 or g.k == 0:
        return out
    if g.c == 0:
        raise ValueError("winograd_conv2d: no input channels")
    if block <= 0:
        block = tile_block(g.c, g.k, x.dtype.itemsize, g.tiles, products)
    cdef char* xp = x._data()
    cdef char* wp = w._data()
    cdef char* op = out._data()
    cdef int rc
    if x.dtype.itemsize == 4:
        with nogil:
            rc = _winograd(<float*>xp, <float*>wp, wk, wc, wh, ww, <float*>b, <float*>op, &g,
                           block)
    else:
        with nogil:
            rc = _winograd(<double*>xp, <double*>wp, wk, wc, wh, ww, <double*>b, <double*>op,
                           &g, block)
    if rc < 0:
        raise MemoryError("winograd_conv2d: out of memory for the transformed tiles")
    return out


def winograd_weight_grad(TensorBase x, TensorBase grad, Py_ssize_t ph, Py_ssize_t pw,
                         TensorBase gw, Py_ssize_t block=0, int products=-1, object gb=None):
    """gw (K, C, 3, 3) = the gradient of a 3x3, stride-1 convolution of x (N, C, H, W) with
    padding (ph, pw), for the output's gradient grad (N, K, Ho, Wo); one dtype, float32 or
    float64, any strides (Note [The weight's gradient by Winograd]); ``block`` and ``products``
    as winograd_conv2d's. ``gb``, a (K,) tensor of that dtype or None: the bias's gradient,
    grad summed over (N, Ho, Wo), made on the way (Note [The bias's gradient in the
    weight's]); C must then be at least 1."""
    cdef Geometry g = _geometry(x, grad, ph, pw, products)
    cdef char* xp = x._data()
    cdef char* gp = grad._data()
    cdef char* wp = gw._data()
    cdef Py_ssize_t gwk = gw._strides[0], gwc = gw._strides[1], gwh = gw._strides[2]
    cdef Py_ssize_t gww = gw._strides[3]
    cdef char* bp = NULL if gb is None else (<TensorBase>gb)._data()
    cdef Py_ssize_t gbk = 0 if gb is None else (<TensorBase>gb)._strides[0]
    cdef int rc
    if gb is not None and g.c == 0:
        raise ValueError("winograd_weight_grad: the bias's gradient needs an input channel")
    if g.k == 0 or g.c == 0:
        return gw
    if g.tiles == 0:
        gw[...] = 0
        if gb is not None:
            gb[...] = 0
        return gw
    if block <= 0:
        block = tile_block(g.c, g.k, x.dtype.itemsize, g.tiles, products)
    if x.dtype.itemsize == 4:
        with nogil:
            rc = _winograd_weight(<float*>xp, <float*>gp, <float*>wp, gwk, gwc, gwh, gww,
                                  <float*>bp, gbk, &g, block)
    else:
        with nogil:
            rc = _winograd_weight(<double*>xp, <double*>gp, <double*>wp, gwk, gwc, gwh, gww,
                                  <double*>bp, gbk, &g, block)
    if rc < 0:
        raise MemoryError("winograd_weight_grad: out of memory for the transformed tiles")
    return gw


cdef void _im2col(const floating* x, floating* rows, const Geometry* g, Py_ssize_t kh,
                  Py_ssize_t kw) noexcept nogil:
    """rows[(n*Ho + i)*Wo + j, (a*kw + b)*C + c] = x[n, c, i - ph + a, j - pw + b] (0 outside)."""
    cdef Py_ssize_t taps = kh * kw * g.c, ni, n, i, j, a, bb, y, z, c
    cdef floating* dst
    cdef const floating* src
    cdef int nthreads = num_threads()
    if g.n * g.ho * g.wo * taps < 32768:
        nthreads = 1
    for ni in prange(g.n * g.ho, num_threads=nthreads, schedule="static"):
        n = ni // g.ho
        i = ni - n * g.ho
        for j in range(g.wo):
            for a in range(kh):
                y = i - g.ph + a
                for bb in range(kw):
                    z = j - g.pw + bb
                    dst = rows + (ni * g.wo + j) * taps + (a * kw + bb) * g.c
                    if y < 0 or y >= g.h or z < 0 or z >= g.w:
                        for c in range(g.c):
                            dst[c] = 0
                    else:
                        src = x + n * g.xn + y * g.xh + z * g.xw
                        if g.xc == 1:
                            for c in range(g.c):
                                dst[c] = src[c]
                        else:
                            for c in range(g.c):
                                dst[c] = src[c * g.xc]


def im2col_rows(TensorBase x, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t ph, Py_ssize_t pw,
                TensorBase rows):
    """rows (N*Ho*Wo, kh*kw*C), contiguous: the stride-1 windows of x (N, C, H, W), taps in
    (kh, kw, C) order, zeros for the padding (Note [Convolution is a strided view and a
    matmul] in nn/functional/conv.py). float32 or float64, any strides of x."""
    cdef Geometry g
    g.n, g.c, g.h, g.w = x._sizes[0], x._sizes[1], x._sizes[2], x._sizes[3]
    g.xn, g.xc, g.xh, g.xw = x._strides[0], x._strides[1], x._strides[2], x._strides[3]
    g.ph, g.pw = ph, pw
    g.ho, g.wo = g.h + 2 * ph - kh + 1, g.w + 2 * pw - kw + 1
    cdef char* xp = x._data()
    cdef char* rp = rows._data()
    if x.dtype.itemsize == 4:
        with nogil:
            _im2col(<float*>xp, <float*>rp, &g, kh, kw)
    else:
        with nogil:
            _im2col(<double*>xp, <double*>rp, &g, kh, kw)
    return rows


# -- Max pooling over tiles -------------------------------------------------------------------

# Note [Max pooling over tiles in one pass]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Pooling whose windows tile the input (stride = kernel size, no padding: 2x2 pooling of a CNN)
# is, as ops, a reshape of (N, C, H, W) into (N, C, Ho, kh, Wo, kw) and a max over dims 3 and
# 5 (``_tiles`` in nn/functional/conv.py), and its backward max's rule: the gradient to the
# elements equal to the result, split evenly among ties (Note [max's backward in one pass] in
# reduce.pyx.tp). Both are right for any layout, but neither is fast for the channels-last
# layout that convolutions leave (Note [Convolution is a strided view and a matmul]): the
# channels are the only dim that runs through memory, 16 of them in the digits CNN, and the
# reduction's loops take 16 outputs and 2 rows a call (2048 calls for a 64x16x8x8 batch), the
# backward's 16 outputs at a time too. 2x2 pooling forward took 58 us there at 1 thread, the
# backward 66 (PyTorch's whole forward 26 us).
#
# Here one loop nest does each. Threads take whole output rows (n, i); within a row, the
# channels are the vector lanes, a block of them at a time (pool.h), and the kh x kw taps of
# the window are walked around them: the forward keeps the lanes' maxima on the stack and
# writes them once; the backward finds the same maxima, counts the taps equal to them, and
# writes ``grad / count`` to each of those and 0 to the others. The values are the ops'
# exactly: the same maximum (``v if (v > a) | (v != v) else a``, taps in the window's row-major
# order: Note [Branch-free max rows]), the same count and quotient in the gradient's dtype, so
# a NaN maximum matches nothing and its window gets zeros. The rows and columns that no window
# covers get zeros. The result is laid out in x's memory order, as the reduction's would be
# (channels-last in, channels-last out); x's gradient too. 1 thread, x86-64-v4, float32, the
# digits CNN's (64, 16, 8, 8) channels-last: forward 58 -> 15 us, the op's backward 48 us
# (the ops' one-pass backward 66), ``max_pool2d(x, 2).sum().backward()`` 195 -> 129 us
# (PyTorch 105; its forward alone 26).
#
# The kernels take any layout (for one channel, or channels not next to each other, the lanes
# are the output columns, kw elements apart), but nn.functional sends only channels-last
# tensors: channels-first ones have few output columns per row (4 in the digits CNN) and
# strided lanes, and there the reduction's loops were faster (the step 440 us against 545).

cdef enum:
    POOL_SERIAL = 32768      # input elements below which one thread does it all


cdef struct PoolGeometry:
    Py_ssize_t n, c, ho, wo, kh, kw
    Py_ssize_t xn, xc, xh, xw       # x's element strides
    Py_ssize_t on, oc, oh, ow       # the pooled result's (or its gradient's)
    Py_ssize_t gn, gc, gh, gw       # x's gradient's (backward only)
    bint lanes_c                    # the lanes are the channels (else the output columns)


cdef inline void _pool_lanes(const PoolGeometry* g, Py_ssize_t n, Py_ssize_t i, Py_ssize_t k,
                             Py_ssize_t* nl, Py_ssize_t* lx, Py_ssize_t* xo, Py_ssize_t* lo,
                             Py_ssize_t* oo, Py_ssize_t* lg, Py_ssize_t* go) noexcept nogil:
    """The lanes under output row (n, i) and outer index k (a column j where the lanes are the
    channels, else a channel): their count, and where they start and their stride in x, in
    the result (or its gradient) and in x's gradient."""
    if g.lanes_c:
        nl[0], lx[0], lo[0], lg[0] = g.c, g.xc, g.oc, g.gc
        xo[0] = n * g.xn + i * g.kh * g.xh + k * g.kw * g.xw
        oo[0] = n * g.on + i * g.oh + k * g.ow
        go[0] = n * g.gn + i * g.kh * g.gh + k * g.kw * g.gw
    else:
        nl[0], lx[0], lo[0], lg[0] = g.wo, g.kw * g.xw, g.ow, g.kw * g.gw
        xo[0] = n * g.xn + i * g.kh * g.xh + k * g.xc
        oo[0] = n * g.on + i * g.oh + k * g.oc
        go[0] = n * g.gn + i * g.kh * g.gh + k * g.gc


cdef void _max_pool_row(const floating* x, floating* out, const PoolGeometry* g,
                        Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """Output row (n, i) of the pooling, a run of lanes at a time (pool.h)."""
    cdef Py_ssize_t k, nl, lx, xo, lo, oo, lg, go
    for k in range(g.wo if g.lanes_c else g.c):
        _pool_lanes(g, n, i, k, &nl, &lx, &xo, &lo, &oo, &lg, &go)
        if floating is float:
            strided_pool_max_float(x + xo, lx, out + oo, lo, nl, g.xh, g.xw, g.kh, g.kw)
        else:
            strided_pool_max_double(x + xo, lx, out + oo, lo, nl, g.xh, g.xw, g.kh, g.kw)


cdef void _max_pool_back_row(const floating* x, const floating* gout, floating* gx,
                             const PoolGeometry* g, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """x's gradient under output row (n, i), a run of lanes at a time (pool.h)."""
    cdef Py_ssize_t k, nl, lx, xo, lo, oo, lg, go
    for k in range(g.wo if g.lanes_c else g.c):
        _pool_lanes(g, n, i, k, &nl, &lx, &xo, &lo, &oo, &lg, &go)
        if floating is float:
            strided_pool_back_float(x + xo, lx, gout + oo, lo, gx + go, lg, nl, g.xh, g.xw,
                                    g.gh, g.gw, g.kh, g.kw)
        else:
            strided_pool_back_double(x + xo, lx, gout + oo, lo, gx + go, lg, nl, g.xh, g.xw,
                                     g.gh, g.gw, g.kh, g.kw)


cdef void _max_pool(const floating* x, floating* out, const PoolGeometry* g,
                    int nthreads) noexcept nogil:
    cdef Py_ssize_t ni
    for ni in prange(g.n * g.ho, num_threads=nthreads, schedule="static"):
        _max_pool_row(x, out, g, ni // g.ho, ni % g.ho)


cdef void _max_pool_back(const floating* x, const floating* gout, floating* gx,
                         const PoolGeometry* g, int nthreads) noexcept nogil:
    cdef Py_ssize_t ni
    for ni in prange(g.n * g.ho, num_threads=nthreads, schedule="static"):
        _max_pool_back_row(x, gout, gx, g, ni // g.ho, ni % g.ho)


cdef TensorBase _new_in_order(TensorBase x, Py_ssize_t* sizes, Py_ssize_t* strides,
                              bint zeros):
    """A tensor of ``sizes`` (4 dims, x's dtype and device) dense in the memory order of
    ``strides`` (elements, the view's), as the elementwise iterator lays out an output (Note
    [The loop plan]), uninitialised or ``zeros``; its strides are written into ``strides``."""
    cdef LoopPlan plan
    cdef Py_ssize_t count, item = x.dtype.itemsize
    plan_init(&plan, 1, 4, sizes)
    plan_set_operand(&plan, 0, x._data(), strides, item)
    plan_reorder(&plan)
    count = plan_dense_operand(&plan, 0, strides, item)
    return make_tensor(alloc_storage(count * item, x._storage.device, zeros), 0, 4, sizes,
                       strides, x.dtype)


cdef PoolGeometry _pool_geometry(TensorBase x, Py_ssize_t kh, Py_ssize_t kw, str fn) except *:
    """The pooling's sizes and x's strides, after the checks that keep the loops inside x."""
    if x._ndim != 4 or x.dtype.name not in ("float32", "float64") or x.device.type != "cpu":
        raise TypeError(
            f"{fn}: x must be a 4-d float32 or float64 CPU tensor (N, C, H, W), got "
            f"{x.dtype.name}{list(x.shape)} on {x.device}"
        )
    if kh < 1 or kw < 1 or kh > x._sizes[2] or kw > x._sizes[3]:
        raise ValueError(
            f"{fn}: the window ({kh}, {kw}) must be at least 1 and fit in x's (H, W) = "
            f"({x._sizes[2]}, {x._sizes[3]})"
        )
    cdef PoolGeometry g
    g.n, g.c = x._sizes[0], x._sizes[1]
    g.ho, g.wo = x._sizes[2] // kh, x._sizes[3] // kw
    g.kh, g.kw = kh, kw
    g.xn, g.xc, g.xh, g.xw = x._strides[0], x._strides[1], x._strides[2], x._strides[3]
    # the channels are the lanes where they run through memory (channels-last), else the
    # output columns, kw * W-stride apart
    g.lanes_c = g.c > 1 and (g.xc == 1 or g.xc == -1)
    return g


def max_pool2d_tiles(TensorBase x, Py_ssize_t kh, Py_ssize_t kw):
    """2-D max pooling of x (N, C, H, W), float32 or float64, any strides, over the (kh, kw)
    windows that tile it (stride = kernel size, the last H % kh rows and W % kw columns
    unread): a new (N, C, H // kh, W // kw) tensor in x's memory order. See Note [Max pooling
    over tiles in one pass]."""
    cdef PoolGeometry g = _pool_geometry(x, kh, kw, "max_pool2d_tiles")
    cdef Py_ssize_t sizes[4]
    cdef Py_ssize_t strides[4]
    sizes[0], sizes[1], sizes[2], sizes[3] = g.n, g.c, g.ho, g.wo
    strides[0], strides[1], strides[2], strides[3] = g.xn, g.xc, g.xh * kh, g.xw * kw
    cdef TensorBase out = _new_in_order(x, sizes, strides, False)
    g.on, g.oc, g.oh, g.ow = strides[0], strides[1], strides[2], strides[3]
    cdef int nthreads = num_threads() if g.n * g.c * g.ho * g.wo * kh * kw >= POOL_SERIAL else 1
    cdef char* xp = x._data()
    cdef char* op = out._data()
    if x.dtype.itemsize == 4:
        with nogil:
            _max_pool(<float*>xp, <float*>op, &g, nthreads)
    else:
        with nogil:
            _max_pool(<double*>xp, <double*>op, &g, nthreads)
    return out


def max_pool2d_tiles_backward(TensorBase grad, TensorBase x, Py_ssize_t kh, Py_ssize_t kw):
    """x's gradient of ``max_pool2d_tiles(x, kh, kw)`` given the result's gradient ``grad``
    (same dtype as x, any strides): ``grad / count`` to each element equal to its window's
    maximum (count of them), 0 elsewhere and in the rows and columns no window covers; a new
    tensor of x's shape in x's memory order. See Note [Max pooling over tiles in one pass]."""
    cdef PoolGeometry g = _pool_geometry(x, kh, kw, "max_pool2d_tiles_backward")
    if (grad.dtype is not x.dtype or grad.shape != (g.n, g.c, g.ho, g.wo)
            or grad.device.type != "cpu"):
        raise ValueError(
            f"max_pool2d_tiles_backward: grad must be the result's shape and x's dtype, "
            f"{x.dtype.name}{[g.n, g.c, g.ho, g.wo]}, got {grad.dtype.name}{list(grad.shape)}"
        )
    cdef Py_ssize_t sizes[4]
    cdef Py_ssize_t strides[4]
    cdef Py_ssize_t d, item = x.dtype.itemsize
    for d in range(4):
        sizes[d] = x._sizes[d]
        strides[d] = x._strides[d]
    # zeros where some rows or columns are in no window
    cdef TensorBase gx = _new_in_order(
        x, sizes, strides, g.ho * kh != sizes[2] or g.wo * kw != sizes[3]
    )
    g.gn, g.gc, g.gh, g.gw = strides[0], strides[1], strides[2], strides[3]
    g.on, g.oc, g.oh, g.ow = grad._strides[0], grad._strides[1], grad._strides[2], grad._strides[3]
    cdef int nthreads = num_threads() if g.n * g.c * g.ho * g.wo * kh * kw >= POOL_SERIAL else 1
    cdef char* xp = x._data()
    cdef char* gp = grad._data()
    cdef char* dp = gx._data()
    if item == 4:
        with nogil:
            _max_pool_back(<float*>xp, <float*>gp, <float*>dp, &g, nthreads)
    else:
        with nogil:
            _max_pool_back(<double*>xp, <double*>gp, <double*>dp, &g, nthreads)
    return gx
