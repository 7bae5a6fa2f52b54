"""The nn layers a training step is made of, as ops the compiler can see through: the im2col
rows of a convolution, whose derivative row is col2im, and the target distribution of a
cross-entropy, each with a schema, a CPU kernel and a meta function, declared with
``strided.library`` like any user's op (Note [One registration path] in library.py).

Note [Layers as ops with rows]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``F.conv2d`` (where eager does not run it as one op: Note [Eager's convolution in a joint
graph] below) is a composite (Note [Convolution is a strided view and a matmul] in
nn/functional/conv.py): a padded copy, an ``as_strided`` window view, the im2col reshape (the
one copy), a matmul and views. Eager autograd records each part, and the window view's
backward scatters its gradient back through storage cells (``formulas.strided_backward``),
which is no formula a graph can hold. The joint graph (Note [The joint graph] in
_compile/joint.py) needs every node to have a row, so the decomposition of conv2d
(``_conv2d`` in passes.py) makes the view and its copy one op:

* ``nn::im2col(x, kernel, stride, padding, dilation)``: the (N*H_out*W_out, kh*kw*C) window
  rows, eager conv2d's own ``_windows_last`` and reshape; its row's formula is
* ``nn::col2im(grad, x_shape, ...)``: each row's gradient added back into the window it was
  read from, in a padded channels-last buffer (the window view's one-pass scatter, PyTorch's
  col2im), the padding sliced off.

The rest of the convolution is the matmul of the rows with the weight, seen as (C_out, taps),
views back to (N, C_out, H_out, W_out), and the bias as a primitive add, so the bias fuses with
the ReLU after it and its gradient is the engine's sum over the broadcast dims, a fused
reduction. The rows are *saved* for the weight's gradient (``rows.T @ grad``), as eager
autograd saves them, not made again. ``max_pool2d`` over tiling windows and ``flatten`` need
no op: a reshape (a view whose gradient is a reshape) and ``amax`` (a primitive).

Cross-entropy against class indices picks one log-probability per sample, a gather the fused
loops do not do. Written as ``-sum(log_softmax(x) * q)`` with ``q`` the target distribution
(one-hot, mixed with the uniform one by label smoothing, zero for ignored samples, divided by
the number of samples kept when the reduction is the mean), everything but ``q`` is
elementwise or a reduction, and ``q`` does not depend on the logits: ``nn::class_targets``
makes it, eagerly, and needs no row. These ops are the compiler's: ``F.conv2d`` and
``F.cross_entropy`` stay what they are for eager code.

Note [Eager's convolution in a joint graph]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A convolution of stride 1, dilation 1 and one group, on the CPU in float32 or float64, runs
eagerly as one op, ``nn::conv2d_stride1`` (Note [A stride-1 convolution as one op] in
nn/functional/conv.py): Winograd's F(4x4, 3x3) forward, and a derivative row whose formulas
run Winograd (or the C im2col rows and one GEMM) again for x's and the weight's gradients.
Decomposed into im2col rows and GEMMs as above, the digits CNN's convolutions were ~320 us of
GEMMs at OpenBLAS's peak, where eager's op did the same work in ~200 us (its second layer, on
one thread: forward 62 us against im2col 23 + GEMM 87, x's gradient 59 against a GEMM 84 and
col2im 25, the weight's 61 against a GEMM 88). So ``_conv2d`` in fx/passes.py keeps such a
convolution as the op itself, whose forward then has eager's bits, and the joint graph
differentiates it by the op's own row. That row's formulas call kernels on real tensors
(choosing by grad mode), which a trace cannot see into, so the joint graph's row for the op
(``_COMPILER_ROWS`` in _compile/joint.py) is made of ``nn::conv2d_stride1_grad`` nodes, an op
whose kernel runs the row's formula for one input, x or the weight, on the call's tensors
(eager's kernels, eager's bits), and of the bias's gradient as the sum of the gradient over
(N, H, W), a primitive reduction that fuses with the ReLU's backward before it. That sum is
taken in a double, as every fused sum is, where eager makes the bias's gradient inside
Winograd's weight gradient: the two agree to float32 rounding, and the tests compare the
compiled step's gradients with eager's at the step's tolerance (rtol 1e-4). Every other
convolution (strided, dilated, grouped, on CUDA) keeps the im2col decomposition.
"""

from __future__ import annotations

import ctypes

import strided
from strided import library

__all__ = ["im2col", "class_targets", "conv2d_stride1_grad"]


class _WindowGeometry:
    """What ``formulas.strided_backward`` reads from a view node: the padded channels-last
    input's geometry and the window view's (Note [Layers as ops with rows])."""

    def __init__(self, in_shape, out_shape, out_strides):
        n, hp, wp, c = in_shape
        self.in_geometry = (tuple(in_shape), (hp * wp * c, wp * c, c, 1), 0)
        self.storage_cells = n * hp * wp * c
        self.out_geometry = (tuple(out_shape), tuple(out_strides), 0)


def _out_hw(x_shape, kernel, stride, padding, dilation):
    return tuple(
        (x_shape[2 + i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
        for i in (0, 1)
    )


def _im2col(x, kernel, stride, padding, dilation):
    fast = _c_layers()
    if fast is not None and x.device.type == "cpu" and x.dtype.name in _C_TYPES:
        n, c, h, w = x.shape
        ho, wo = _out_hw(x.shape, kernel, stride, padding, dilation)
        rows = strided.empty((n * ho * wo, kernel[0] * kernel[1] * c), dtype=x.dtype)
        geo = [n, c, h, w, *x.stride(), *kernel, *stride, *padding, *dilation, ho, wo]
        if getattr(fast, f"strided_im2col_{_C_TYPES[x.dtype.name]}")(
            _ptr(x), _ptr(rows), (ctypes.c_long * len(geo))(*geo)
        ):
            raise MemoryError("im2col: no memory for the padded copy of its input")
        return rows
    from strided.nn.functional.conv import _windows_last

    win = _windows_last(x, tuple(kernel), tuple(stride), tuple(padding), tuple(dilation), "conv2d")
    n, ho, wo = win.shape[:3]
    taps = kernel[0] * kernel[1] * x.shape[1]  # not -1: an empty batch leaves it undefined
    return strided.reshape(win, (n * ho * wo, taps))  # the one copy (Note [Convolution is ...])


def _im2col_meta(x, kernel, stride, padding, dilation):
    n, c = x.shape[:2]
    ho, wo = _out_hw(x.shape, kernel, stride, padding, dilation)
    return library.TensorMeta((n * ho * wo, kernel[0] * kernel[1] * c), x.dtype, x.device)


def _col2im(grad, x_shape, kernel, stride, padding, dilation):
    from strided.autograd import formulas

    n, c, h, w = x_shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    ho, wo = _out_hw(x_shape, kernel, stride, padding, dilation)
    fast = _c_layers()
    if fast is not None and grad.device.type == "cpu" and grad.dtype.name in _C_TYPES:
        grad = grad if grad.is_contiguous() else strided.ascontiguousarray(grad)
        out = strided.empty((n, h, w, c), dtype=grad.dtype)  # channels-last, as x was
        geo = [n, c, h, w, 0, 0, 0, 0, *kernel, *stride, *padding, *dilation, ho, wo]
        getattr(fast, f"strided_col2im_{_C_TYPES[grad.dtype.name]}")(
            _ptr(grad), _ptr(out), (ctypes.c_long * len(geo))(*geo)
        )
        return strided.permute(out, (0, 3, 1, 2))
    cols = strided.reshape(grad, (n, ho, wo, kh, kw, c))
    hp, wp = h + 2 * ph, w + 2 * pw
    window = (hp * wp * c, wp * c * sh, c * sw, wp * c * dh, c * dw, 1)
    view = _WindowGeometry((n, hp, wp, c), cols.shape, window)
    padded = formulas.strided_backward(view, cols)  # every window added back
    return strided.permute(padded[:, ph : ph + h, pw : pw + w, :], (0, 3, 1, 2))


def _col2im_meta(grad, x_shape, kernel, stride, padding, dilation):
    return library.TensorMeta(x_shape, grad.dtype, grad.device)


def _class_targets(target, num_classes, ignore_index, label_smoothing, mean, dtype):
    n = target.shape[0]
    fast = _c_layers()
    if fast is not None and target.device.type == "cpu" and dtype in _C_TYPES:
        t = target if target.dtype.name == "int64" else target.astype("int64")
        q = strided.empty((n, num_classes), dtype=dtype)
        f = getattr(fast, f"strided_class_targets_{_C_TYPES[dtype]}")
        f.restype = ctypes.c_long
        args = (t.stride()[0], n, num_classes, ignore_index)
        if f(_ptr(t), _ptr(q), *map(ctypes.c_long, args), ctypes.c_double(label_smoothing),
             ctypes.c_int(bool(mean))) >= 0:  # fmt: skip
            return q
    hits = strided.reshape(target, (n, 1)) == strided.arange(num_classes)
    ignored = target == ignore_index
    n_ignored = int(strided.sum(ignored))
    if 0 <= ignore_index < num_classes and n_ignored:
        hits = strided.logical_and(hits, strided.reshape(~ignored, (n, 1)))
    if int(strided.sum(hits)) + n_ignored != n:  # a class out of range: eager's message (the
        # C loop returned -1)
        from strided.nn.functional.loss import _check_classes

        _check_classes(strided.empty((n, num_classes)), target, ignore_index, "cross_entropy")
    q = hits.astype(dtype)
    kept = n - n_ignored
    scale = 1.0 / kept if mean and kept else (float("nan") if mean else 1.0)
    if label_smoothing:  # (1 - e) one-hot + e uniform, on the samples kept
        q = q * ((1.0 - label_smoothing) * scale) + label_smoothing / num_classes * scale
        if n_ignored:
            q = strided.where(strided.reshape(ignored, (n, 1)), 0.0, q).astype(dtype)
    elif scale != 1.0:
        q = q * scale
    return q


def _class_targets_meta(target, num_classes, ignore_index, label_smoothing, mean, dtype):
    return library.TensorMeta((target.shape[0], num_classes), strided.dtype(dtype), target.device)


# Note [The layers' loops in C]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The kernels above are written with strided's own ops, and are what runs without a C
# compiler. Each of them is a handful of eager calls on small tensors: the digits CNN's im2col
# of a (64, 1, 8, 8) input is a padded copy and a copy of 4,096 rows of 9 taps whose runs are
# 3 elements long (~260 us on the 2-core Zen 3), its col2im a scatter by taps and a slice, the
# class targets six ops and two host reads. Under strided.compile there is a C compiler (the
# fused kernels need it), so the three are also written as C loops below, compiled and cached
# on disk as fused kernels are (Note [The kernel cache] in _compile/cc.py), and called through
# ctypes: one pass each, the same values (im2col and the targets copy or set values; col2im
# adds a row's taps in the same order as the scatter by taps, kh then kw).
#
# im2col first copies x, zero-padded, into a channels-last buffer (x's size, ~26 KB for the
# first layer), so that a kernel row's taps are one run of kw * C contiguous values: no bounds
# test per tap, and a run of a known length (3, one channel) is a few moves. Testing each tap
# against the border, a tap at a time, took 48 us for the first layer's 4,096 rows of 9 taps
# (one channel) on the 2-core AVX-512 EPYC, one thread; the padded copy and runs 16 us.
_C_TYPES = {"float32": "float", "float64": "double"}
_C_SOURCE = r"""
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* geometry g: N C H W, x's strides (n c h w), kh kw, sh sw, ph pw, dh dw, H_out W_out */
/* a run of R taps copied, R known to the compiler: a few moves, no loop (im2col below) */
#define STRIDED_RUN(R) for (long t = 0; t < (R); t++) dst[t] = src[t]
#define LAYERS(T)                                                                        \
/* 0, or -1 when the padded copy cannot be allocated */                                  \
int strided_im2col_##T(const T* x, T* rows, const long* g) {                             \
  /* the geometry in locals: a store through rows/out could alias g, and would reload it */\
  const long N = g[0], C = g[1], H = g[2], W = g[3], SN = g[4], SC = g[5], SH = g[6];    \
  const long SW = g[7], KH = g[8], KW = g[9], TH = g[10], TW = g[11], PH = g[12];        \
  const long PW = g[13], DH = g[14], DW = g[15], HO = g[16], WO = g[17];                 \
  const long HP = H + 2 * PH, WP = W + 2 * PW, taps = KH * KW * C;                       \
  /* x padded with zeros, channels-last (Note [The layers' loops in C]) */                \
  if (N * HP * WP * C == 0) return 0; /* no rows, or rows of no taps */                 \
  T* pad = (T*)calloc((size_t)(N * HP * WP * C), sizeof(T));                            \
  if (!pad) return -1;                                                                   \
  for (long n = 0; n < N; n++)                                                           \
    for (long y = 0; y < H; y++) {                                                       \
      T* dst = pad + ((n * HP + y + PH) * WP + PW) * C;                                  \
      const T* src = x + n * SN + y * SH;                                                \
      if (C == 1) { /* one channel (a first layer): along the row */                     \
        for (long z = 0; z < W; z++) dst[z] = src[z * SW];                               \
      } else {                                                                           \
        for (long z = 0; z < W; z++)                                                     \
          for (long c = 0; c < C; c++) dst[z * C + c] = src[z * SW + c * SC];            \
      }                                                                                  \
    }                                                                                    \
  const long run = KW * C; /* a kernel row's taps, contiguous in pad when DW == 1 */      \
  for (long n = 0; n < N; n++)                                                           \
    for (long i = 0; i < HO; i++)                                                        \
      for (long j = 0; j < WO; j++) {                                                    \
        T* row = rows + ((n * HO + i) * WO + j) * taps;                                  \
        for (long a = 0; a < KH; a++) {                                                  \
          const T* src = pad + ((n * HP + i * TH + a * DH) * WP + j * TW) * C;           \
          T* dst = row + a * run;                                                        \
          if (DW != 1) {                                                                 \
            for (long b = 0; b < KW; b++)                                                \
              for (long c = 0; c < C; c++) dst[b * C + c] = src[b * DW * C + c];         \
          } else if (run == 3) { /* 3 taps of one channel */                             \
            STRIDED_RUN(3);                                                              \
          } else {                                                                       \
            STRIDED_RUN(run);                                                            \
          }                                                                              \
        }                                                                                \
      }                                                                                  \
  free(pad);                                                                             \
  return 0;                                                                              \
}                                                                                        \
/* out: (N, H, W, C) contiguous; each row's taps added into the cells they were read from */\
void strided_col2im_##T(const T* rows, T* out, const long* g) {                          \
  /* the geometry in locals: a store through rows/out could alias g, and would reload it */\
  const long N = g[0], C = g[1], H = g[2], W = g[3], SN = g[4], SC = g[5], SH = g[6];    \
  const long SW = g[7], KH = g[8], KW = g[9], TH = g[10], TW = g[11], PH = g[12];        \
  const long PW = g[13], DH = g[14], DW = g[15], HO = g[16], WO = g[17];                 \
  const long taps = KH * KW * C;                                                         \
  memset(out, 0, sizeof(T) * N * H * W * C);                                         \
  for (long n = 0; n < N; n++)                                                        \
    for (long a = 0; a < KH; a++)                                                        \
      for (long b = 0; b < KW; b++)                                                      \
        for (long i = 0; i < HO; i++) {                                                  \
          const long y = i * TH - PH + a * DH;                                  \
          if (y < 0 || y >= H) continue;                                                 \
          for (long j = 0; j < WO; j++) {                                                \
            const long z = j * TW - PW + b * DW;                                \
            if (z < 0 || z >= W) continue;                                               \
            const T* src = rows + ((n * HO + i) * WO + j) * taps + (a * KW + b) * C;     \
            T* dst = out + ((n * H + y) * W + z) * C;                                    \
            for (long c = 0; c < C; c++) dst[c] += src[c];                               \
          }                                                                              \
        }                                                                                \
}                                                                                        \
/* q (N, C): -1 when a target is out of range (eager's check then raises), else kept */  \
long strided_class_targets_##T(const int64_t* y, T* q, long sy, long N, long C,          \
                               long ignore, double smooth, int mean) {                   \
  long kept = 0;                                                                         \
  for (long n = 0; n < N; n++) {                                                         \
    const int64_t t = y[n * sy];                                                         \
    if (t == ignore) continue;                                                           \
    if (t < 0 || t >= C) return -1;                                                      \
    kept++;                                                                              \
  }                                                                                      \
  const double scale = mean ? (kept ? 1.0 / kept : NAN) : 1.0;                           \
  const T off = (T)(smooth / C * scale), on = (T)((1.0 - smooth) * scale + off);         \
  for (long n = 0; n < N; n++) {                                                         \
    const int64_t t = y[n * sy];                                                         \
    for (long c = 0; c < C; c++) q[n * C + c] = t == ignore ? 0 : (c == t ? on : off);   \
  }                                                                                      \
  return kept;                                                                           \
}
LAYERS(float)
LAYERS(double)
"""
_c_lib = []


def _c_layers():
    """The C loops of Note [The layers' loops in C] (built once, then from the disk cache), or
    None without a C compiler."""
    if not _c_lib:
        from strided._compile import cc

        _c_lib.append(cc.build_or_none(_C_SOURCE))
    return _c_lib[0]


def _ptr(t):
    return ctypes.c_void_p(t.data_ptr())


class _RowNode:
    """What a derivative row's formula reads from its node (Note [Named derivative rows] in
    autograd/rows.py), over the real tensors of a call."""

    def __init__(self, args, needs):
        self.args, self.kwargs, self.needs = tuple(args), {}, tuple(needs)
        self.saved = frozenset(i for i, a in enumerate(args) if isinstance(a, strided.Tensor))
        self.input_meta = [
            (tuple(a.shape), a.dtype, a.device.type) if isinstance(a, strided.Tensor) else None
            for a in args
        ]

    def saved_tensor(self, key):
        return self.args[key]


def _conv_grad(grad, x, weight, padding, which):
    """One input's gradient of eager's ``nn::conv2d_stride1`` (``which``: 0 for x, 1 for the
    weight), by that op's own derivative row (Note [Eager's convolution in a joint graph])."""
    from strided.autograd import derivatives
    from strided.nn.functional import conv

    conv._conv2d_stride1()  # declared, and its row with it
    needs = (which == 0, which == 1, False, False)
    node = _RowNode((x, weight, None, list(padding)), needs)
    with strided.no_grad():
        return derivatives.TABLE["nn::conv2d_stride1"].formula(node, grad)[which]


def _conv_grad_meta(grad, x, weight, padding, which):
    t = (x, weight)[which]
    return library.TensorMeta(tuple(t.shape), t.dtype, t.device)


_OPS = {}


def _define():
    """Declare the ops once (the first decomposition that needs them)."""
    if _OPS:
        return _OPS
    window = "int[] kernel, int[] stride, int[] padding, int[] dilation"
    for name, schema, kernel, meta in (
        ("im2col", f"nn::im2col(Tensor x, {window}) -> Tensor", _im2col, _im2col_meta),
        (
            "col2im",
            f"nn::col2im(Tensor grad, int[] x_shape, {window}) -> Tensor",
            _col2im,
            _col2im_meta,
        ),
        (
            "conv2d_stride1_grad",
            "nn::conv2d_stride1_grad(Tensor grad, Tensor x, Tensor weight, int[] padding, "
            "int which) -> Tensor",
            _conv_grad,
            _conv_grad_meta,
        ),
        (
            "class_targets",
            "nn::class_targets(Tensor target, int num_classes, int ignore_index, "
            "float label_smoothing, bool mean, str dtype) -> Tensor",
            _class_targets,
            _class_targets_meta,
        ),
    ):
        qualified = f"nn::{name}"
        try:
            op = library.get_op(qualified)
        except ValueError:
            op = library.define(schema)
            library.impl(qualified, "CPU", kernel)
            library.register_meta(qualified, meta)
        _OPS[name] = op
    col2im = _OPS["col2im"]
    library.register_autograd(
        "nn::im2col",
        x=lambda grad, x_meta, kernel, stride, padding, dilation: col2im(
            grad, list(x_meta[0]), kernel, stride, padding, dilation
        ),
    )
    return _OPS


def im2col(x, kernel, stride, padding, dilation):
    """``nn::im2col``: the (N*H_out*W_out, kh*kw*C) window rows of ``x`` (Note [Layers as
    ops with rows])."""
    return _define()["im2col"](x, *(list(v) for v in (kernel, stride, padding, dilation)))


def conv2d_stride1_grad(grad, x, weight, padding, which):
    """``nn::conv2d_stride1_grad``: x's (``which`` 0) or the weight's (1) gradient of eager's
    stride-1 convolution (Note [Eager's convolution in a joint graph])."""
    return _define()["conv2d_stride1_grad"](grad, x, weight, list(padding), int(which))


def class_targets(target, num_classes, ignore_index, label_smoothing, mean, dtype):
    """``nn::class_targets``: the (N, C) target distribution of a cross-entropy."""
    return _define()["class_targets"](
        target, num_classes, ignore_index, float(label_smoothing), bool(mean), dtype
    )
