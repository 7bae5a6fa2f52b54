"""Convolution and pooling as strided views: im2col without a copy.

Note [Convolution is a strided view and a matmul]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A 2-D convolution of an input ``x`` of shape (N, C, H, W) with a (kh, kw) kernel looks, at every
output position (i, j), at the window ``x[n, c, i*s : i*s + kh*d : d, j*s : j*s + kw*d : d]``
(s the stride, d the dilation). All those windows are *already in memory*: window (i, j) starts
``i*s`` rows and ``j*s`` columns after window (0, 0), and inside a window neighbouring taps are
``d`` rows or columns apart. So one ``as_strided`` view describes all of them at once::

    sizes   (N,      C,      H_out,        W_out,        kh,         kw)
    strides (x_N,    x_C,    x_H * s_h,    x_W * s_w,    x_H * d_h,  x_W * d_w)

(x_* the input's strides, in elements). For a contiguous (1, 1, 4, 4) input, 3x3 kernel, stride
1: strides (16, 16, 4, 1, 4, 1) -- two pairs of dims walk the same memory, so each input element
appears in up to nine windows, yet nothing was copied. This is the "im2col" (image to columns)
matrix of Caffe and PyTorch's ``unfold``, as a view. Padding first makes a padded copy (the only
copy of the input), since a view cannot invent the zeros around the border.

The convolution is then one matrix product: the windows as rows, one row of taps per output
position, ``(N*H_out*W_out, taps)``, times the weight seen as ``(C_out, taps)``, transposed.
Making the rows is the one copy of the im2col (no strides can merge the window dims with the
position dims: Note [view versus reshape] in ``_views.pyx``), and its speed depends on how long
the runs of neighbouring bytes it copies are. ``conv2d`` therefore takes its windows over the
input seen *channels-last*, (N, H, W, C): a row is then ``(kh, kw, C)``, and within each
window row the kw taps of all C channels are one run of ``kw * C`` neighbouring elements (48
floats for a 3x3 kernel over 16 channels, where channels-first gives runs of 3). The weight is
permuted to the same (C_out, kh, kw, C) order (a small copy). The result ``(N*H_out*W_out,
C_out)`` is reshaped and permuted to (N, C_out, H_out, W_out): a channels-last layout that the
next convolution reads without a copy and later ops keep (results follow their inputs' memory
order).

Pooling is the same view followed by a reduction over the two window dims (``max`` or ``mean``)
instead of a matmul; in its common case, windows that tile the input (stride = kernel size),
the view is a plain reshape that splits H and W in two (``_tiles``), whose backward is a
reshape too. No new backward formula is needed anywhere: autograd differentiates the
view with the as_strided rule (each gradient element is *added* into the storage cell it was
read from, so a cell that appears in nine windows gets nine contributions: ``strided_backward``
in ``strided/autograd/formulas.py``), the reshape, the matmul and the
reduction with their own rows.

Max pooling differs from PyTorch in one corner: when several elements of a window tie for the
maximum, the ``max`` row splits the gradient evenly among them (as ``torch.amax`` does), where
PyTorch's ``max_pool2d`` gives all of it to the first. Both are valid subgradients; they agree
whenever the maximum is unique.
"""

from __future__ import annotations

import strided
from strided import _core
from strided.nn.functional._args import need_float, need_ndim, no_graph, pair
from strided.nn.functional.padding import pad

__all__ = ["window_view", "unfold", "conv2d", "max_pool2d", "avg_pool2d"]


def _out_size(size, k, s, p, d, what, fn):
    n = (size + 2 * p - d * (k - 1) - 1) // s + 1
    if n <= 0:
        raise ValueError(
            f"{fn}: the input's {what} of {size} (padding {p}) is smaller than the kernel's "
            f"reach {d * (k - 1) + 1} (size {k}, dilation {d}): no output position fits"
        )
    return n


def _window_args(x, kernel_size, stride, padding, dilation, fn):
    """The checked (kernel, stride, padding, dilation, output size) pairs of a window view of
    the (N, C, H, W) tensor ``x``."""
    need_ndim(x, (4,), "input", fn, "batch, channels, height, width")
    kh, kw = pair(kernel_size, "kernel_size", fn)
    sh, sw = pair(stride, "stride", fn)
    ph, pw = pair(padding, "padding", fn)
    dh, dw = pair(dilation, "dilation", fn)
    if min(kh, kw, sh, sw, dh, dw) < 1 or min(ph, pw) < 0:
        raise ValueError(
            f"{fn}: kernel_size {(kh, kw)}, stride {(sh, sw)} and dilation {(dh, dw)} must be "
            f">= 1 and padding {(ph, pw)} >= 0"
        )
    h, w = x.shape[2:]
    out = (_out_size(h, kh, sh, ph, dh, "height", fn), _out_size(w, kw, sw, pw, dw, "width", fn))
    return (kh, kw), (sh, sw), (ph, pw), (dh, dw), out


def window_view(x, kernel_size, stride=1, padding=0, dilation=1, pad_value=0.0, fn="window_view"):
    """All (kh, kw) windows of ``x`` (N, C, H, W) as one strided view (N, C, H_out, W_out, kh, kw).

    See Note [Convolution is a strided view and a matmul]. Without padding the result shares
    ``x``'s memory; with padding it views a padded copy.

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> x = strided.arange(16.0).reshape(1, 1, 4, 4)
    >>> w = F.window_view(x, 3)
    >>> w.shape, w.stride()
    ((1, 1, 2, 2, 3, 3), (16, 16, 4, 1, 4, 1))
    >>> w[0, 0, 1, 1]                    # the window at output position (1, 1)
    tensor([[ 5.,  6.,  7.],
            [ 9., 10., 11.],
            [13., 14., 15.]])
    """
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), (h_out, w_out) = _window_args(
        x, kernel_size, stride, padding, dilation, fn
    )
    n, c = x.shape[:2]
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph), value=pad_value)  # F.pad: the last two dims
    s_n, s_c, s_h, s_w = x.stride()
    return strided.as_strided(
        x,
        (n, c, h_out, w_out, kh, kw),
        (s_n, s_c, s_h * sh, s_w * sw, s_h * dh, s_w * dw),
        x.storage_offset(),
    )


def _windows_last(x, kernel_size, stride, padding, dilation, fn):
    """``window_view`` over x seen channels-last: (N, H_out, W_out, kh, kw, C), a view of x (or
    of its padded copy, made channels-last). See Note [Convolution is a strided view and a
    matmul] for why conv2d wants this order."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw), (h_out, w_out) = _window_args(
        x, kernel_size, stride, padding, dilation, fn
    )
    n, c = x.shape[:2]
    last = strided.permute(x, (0, 2, 3, 1))  # (N, H, W, C): a view
    if ph or pw:
        last = pad(last, (0, 0, pw, pw, ph, ph))  # F.pad: a fresh (N, H+2ph, W+2pw, C)
    s_n, s_h, s_w, s_c = last.stride()
    return strided.as_strided(
        last,
        (n, h_out, w_out, kh, kw, c),
        (s_n, s_h * sh, s_w * sw, s_h * dh, s_w * dw, s_c),
        last.storage_offset(),
    )


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """PyTorch's ``F.unfold``: the windows as columns, (N, C*kh*kw, L) with L = H_out*W_out.

    A copy of ``window_view`` in PyTorch's layout (the view itself is ``window_view``).
    """
    win = window_view(x, kernel_size, stride, padding, dilation, fn="unfold")
    n, c, h_out, w_out, kh, kw = win.shape
    cols = strided.permute(win, (0, 1, 4, 5, 2, 3))
    return strided.reshape(cols, (n, c * kh * kw, h_out * w_out))


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation (what deep learning calls convolution), as PyTorch's ``F.conv2d``:
    ``x`` (N, C_in, H, W), ``weight`` (C_out, C_in / groups, kh, kw), ``bias`` (C_out,).

    With ``groups`` = g the channels are cut into g groups and group k of the output sees only
    group k of the input (g = C_in is a depthwise convolution): the matmul becomes g matmuls,
    one batched matmul over the group dim. See Note [Convolution is a strided view and a
    matmul].

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> x = strided.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.conv2d(x, strided.ones((1, 1, 2, 2)))          # sums of 2x2 windows
    tensor([[[[10., 14., 18.],
              [26., 30., 34.],
              [42., 46., 50.]]]])
    """
    fn = "conv2d"
    need_float(x, "input", fn)
    need_float(weight, "weight", fn)
    need_ndim(x, (4,), "input", fn, "batch, channels, height, width")
    need_ndim(weight, (4,), "weight", fn, "out_channels, in_channels / groups, kh, kw")
    c_out, c_group, kh, kw = weight.shape
    if not isinstance(groups, int) or groups < 1 or c_out % groups:
        raise ValueError(
            f"conv2d: groups must be a positive int dividing the {c_out} output channels of "
            f"weight of shape {tuple(weight.shape)}, got {groups!r}"
        )
    if x.shape[1] != c_group * groups:
        raise ValueError(
            f"conv2d: input of shape {tuple(x.shape)} has {x.shape[1]} channels but weight of "
            f"shape {tuple(weight.shape)} with groups={groups} expects {c_group * groups} "
            "(weight is (out, in / groups, kh, kw))"
        )
    if bias is not None and tuple(bias.shape) != (c_out,):
        raise ValueError(
            f"conv2d: bias of shape {tuple(bias.shape)} must be ({c_out},), one value per "
            "output channel"
        )
    _, strides, pads, dilations, _ = _window_args(x, (kh, kw), stride, padding, dilation, fn)
    if _unit_stride_case(x, weight, bias, strides, dilations, groups):
        return _conv2d_stride1()(x, weight, bias, list(pads))
    win = _windows_last(x, (kh, kw), stride, padding, dilation, fn)  # (N, Ho, Wo, kh, kw, C)
    n, h_out, w_out = win.shape[:3]
    if groups == 1:
        rows = strided.reshape(win, (n * h_out * w_out, -1))  # the im2col copy
        w = strided.reshape(strided.permute(weight, (0, 2, 3, 1)), (c_out, -1))
        out = rows @ w.mT  # (N*H_out*W_out, C_out)
    else:
        # the channels split as (groups, c_group): one matmul per group, batched, over rows of
        # (kh, kw, c_group) taps
        g = strided.reshape(win, (n * h_out * w_out, kh, kw, groups, c_group))
        rows = strided.reshape(strided.permute(g, (3, 0, 1, 2, 4)), (groups, g.shape[0], -1))
        w = strided.reshape(weight, (groups, c_out // groups, c_group, kh, kw))
        w = strided.reshape(strided.permute(w, (0, 1, 3, 4, 2)), (groups, c_out // groups, -1))
        out = rows @ w.mT  # (groups, N*H_out*W_out, C_out / groups)
        out = strided.reshape(strided.permute(out, (1, 0, 2)), (g.shape[0], c_out))
    if bias is not None:
        out = out + bias
    return strided.permute(strided.reshape(out, (n, h_out, w_out, c_out)), (0, 3, 1, 2))


# Note [A stride-1 convolution as one op]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The composite above is right for every convolution, but its backward is the backward of its
# parts: the matmul's two products, then the window view's scatter of a (N*H_out*W_out, taps)
# gradient back into the padded input, a copy and a slice. The convolutions of a CNN are
# mostly stride 1, dilation 1, one group; on the CPU, in float32 and float64, those run as one
# op, ``nn::conv2d_stride1(x, weight, bias, padding)``, with a derivative row of its own:
#
# * its forward is Winograd's F(4x4, 3x3) for 3x3 filters (Note [Winograd's F(4x4, 3x3)] in
#   _cpu/conv.pyx), else the im2col rows (one C pass, _cpu/conv.pyx's ``im2col_rows``) and one
#   GEMM; the bias is added by the output transform, not by a pass of its own;
# * the input's gradient of a stride-1 convolution is itself a stride-1 convolution: output
#   (n, k, i, j) took x[n, c, i - p + a, j - q + b] times w[k, c, a, b], so x's element (y, z)
#   receives grad[n, k, y + p - a, z + q - b] w[k, c, a, b], the correlation of grad with the
#   filter flipped in both spatial dims and with in and out channels swapped, padded by
#   kh - 1 - p (and kw - 1 - q). That is the same op again (Winograd for 3x3 filters), on a
#   flipped and transposed *view* of the weight, which the kernels read through its negative
#   strides. A padding larger than kh - 1 would need a negative padding: the full correlation
#   (padding kh - 1) is computed and cropped;
# * the weight's gradient of a 3x3 filter is Winograd's too (Note [The weight's gradient by
#   Winograd] in _cpu/conv.pyx); of other filters, one GEMM: grad seen as (N*H_out*W_out,
#   C_out) (a view when grad is channels-last, as this op's outputs are) transposed, times the
#   im2col rows of x, made again in one C pass rather than saved from the forward;
# * the bias's gradient is grad summed over (N, H_out, W_out).
#
# The formulas are written with the op itself and public ops, so a backward recorded with
# ``create_graph=True`` is differentiable again; the rows are then made by the composite window
# view, whose backward autograd knows.
#
# Measured at 1 thread on the 2-core AMD EPYC (x86-64-v4 kernels), float32, with bias, the
# thread's CPU time per call (``time.thread_time``), medians of 9 alternated rounds; the machine
# was shared (load ~7), so the times are inflated alike and the ratios are what holds
# (benchmarks/bench_conv.py gives the wall-clock table):
#
# ====================================  ===========  ===========  ===========
# case                                  composite    this op      PyTorch
# ====================================  ===========  ===========  ===========
# 64x1x8x8, 16 filters, forward          168 us        71 us        49 us
# 64x1x8x8, 16 filters, fwd + bwd        534 us       348 us       309 us
# 64x16x8x8, 32 filters, forward         579 us       222 us       210 us
# 64x16x8x8, 32 filters, fwd + bwd       2.50 ms      0.91 ms      1.42 ms
# 8x64x56x56, 64 filters, forward        24.8 ms      7.7 ms       15.3 ms
# 8x64x56x56, 64 filters, fwd + bwd      79.6 ms      22.9 ms      40.3 ms
# ====================================  ===========  ===========  ===========
#
# (the first two rows are the digits CNN's convolutions, padding 1; without a bias PyTorch's
# 8x64x56x56 forward is ~7.9 ms wall on an idle machine, Winograd's ~8.0 ms. The first layer's
# rows were cut later, 71 -> ~55 us and, without an input gradient, 213 -> 163 us against
# PyTorch's 45 and 148.)
#
# Issue 20's second round took the products out of OpenBLAS (Note [The products in registers]
# in _cpu/conv.pyx), put the tiles of few-channel inputs in the vector lanes (Note [Tiles in
# lanes]), made the bias's gradient inside the weight's (Note [The bias's gradient in the
# weight's]) and the input's gradient channels-first (Note [The input's gradient
# channels-first] below), and cut the Python front (~1 us). ``STRIDED_NUM_THREADS=1 python
# benchmarks/bench_conv.py --threads 1 --rounds 5`` (wall-clock medians, alternated with
# PyTorch in one process; PyTorch / strided, above 1: strided faster; PyTorch's own times were
# within 10% in both runs):
#
# ====================================  ================  ================  ==============
# case                                  before            after             PyTorch
# ====================================  ================  ================  ==============
# 64x1x8x8, 16 filters, forward          54 us (0.90x)     25 us (1.91x)     49 / 48 us
# 64x1x8x8, 16 filters, fwd + bwd        286 us (1.02x)    168 us (1.73x)    293 / 291 us
# 64x16x8x8, 32 filters, forward         212 us (1.01x)    136 us (1.52x)    215 / 207 us
# 64x16x8x8, 32 filters, fwd + bwd       819 us (0.92x)    423 us (1.77x)    757 / 749 us
# 8x64x56x56, 64 filters, forward        8.45 ms (2.15x)   4.38 ms (3.80x)   18.2 / 16.7 ms
# 8x64x56x56, 64 filters, fwd + bwd      25.9 ms (2.01x)   13.5 ms (3.51x)   52.0 / 47.4 ms
# ====================================  ================  ================  ==============
#
# The digits CNN's Adam step (strided/_train.make_cnn, batch 64, 1 thread, thread time,
# alternated): 803 us against PyTorch's 1419 (1.77x).
#
# Winograd against im2col (the C rows and one GEMM), forward, 64 images, 16 -> 32 channels,
# by the share of the 4x4 tiles that the output fills: an output of 4x4 (all of it) 74 us
# against 135 us, 6x6 (0.56) 222 against 307, 9x9 (0.56) 474 against 693, 5x5 (0.39) 217
# against 214, 2x2 (0.25, 32 channels) 116 against 61, 1x1 117 against 20. So the rule
# (``_winograd_pays``): Winograd for every 3x3 filter whose output fills at least half of the
# tiles that cover it, else im2col's GEMM, which computes no wasted outputs. The digits CNN's
# 8x8 (and, after pooling, 4x4) outputs fill their 4x4 tiles exactly, so F(2x2, 3x3), with 4
# multiplications an output against F(4x4)'s 2.25, has no wasted outputs to win back there;
# after the second round im2col's GEMM took 140 and 614 us for its two convolutions against
# Winograd's 27 and 136 (the op's CPU impl, thread time, 1 thread).
#
# Note [The input's gradient channels-first]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The op's outputs are channels-last (above), and so was the input's gradient, being the same
# op. But x is most often channels-first (a batch of images, and it is a leaf), and the engine
# gives a leaf's .grad a contiguous copy of a gradient that is not: 27 us at 1 thread for the
# digits CNN's second layer (64x16x8x8), a twentieth of its forward and backward. The kernel
# writes a channels-first output channel by channel in rows of up to 4 for 3-8 us more
# (thread time, 1 thread: 64x32x8x8 -> 16, the second layer's input gradient, 168 -> 171 us;
# 64x16x8x8 -> 32, 141 -> 149 us), so a 3x3 input gradient is made channels-first, by the
# kernel directly, whenever the backward is not itself recorded; with create_graph it is the
# op, differentiable, and channels-last.


def _unit_stride_case(x, weight, bias, stride, dilation, groups):
    """Whether conv2d runs as the op of Note [A stride-1 convolution as one op]."""
    dt = x.dtype
    return (
        groups == 1
        and pair(stride, "stride", "conv2d") == (1, 1)
        and pair(dilation, "dilation", "conv2d") == (1, 1)
        and x.device.type == "cpu"
        and dt.name in ("float32", "float64")
        and weight.dtype == dt
        and weight.device.type == "cpu"
        and (bias is None or (bias.dtype == dt and bias.device.type == "cpu"))
    )


def _winograd_pays(kh, kw, h_out, w_out):
    """Note [A stride-1 convolution as one op]: 3x3 filters, and tiles at least half used."""
    tiles = ((h_out + 3) // 4) * ((w_out + 3) // 4)
    return (kh, kw) == (3, 3) and 2 * h_out * w_out >= 16 * tiles


def _conv2d_stride1_cpu(x, weight, bias, padding):
    from strided._cpu import conv as _kernels

    ph, pw = padding
    n, c, h, w = x.shape
    k, _, kh, kw = weight.shape
    ho, wo = h + 2 * ph - kh + 1, w + 2 * pw - kw + 1
    # channels-last, see the Note above (_core's allocation: strided.empty's argument handling
    # was a tenth of a small convolution's Python)
    out = _core._empty((n, ho, wo, k), x.dtype, None)
    if out.size == 0:
        return strided.permute(out, (0, 3, 1, 2))
    if c == 0:
        out[...] = 0.0 if bias is None else bias
        return strided.permute(out, (0, 3, 1, 2))
    if bias is not None and bias.stride() != (1,):
        bias = strided.ascontiguousarray(bias)
    if _winograd_pays(kh, kw, ho, wo):
        return _kernels.winograd_conv2d(x, weight, bias, ph, pw, strided.permute(out, (0, 3, 1, 2)))
    rows = _kernels.im2col_rows(
        x, kh, kw, ph, pw, strided.empty((n * ho * wo, kh * kw * c), dtype=x.dtype)
    )
    wmat = strided.reshape(strided.permute(weight, (0, 2, 3, 1)), (k, -1))
    flat = strided.reshape(out, (n * ho * wo, k))
    strided.matmul(rows, wmat.mT, out=flat)
    if bias is not None:
        flat += bias
    return strided.permute(out, (0, 3, 1, 2))


def _conv2d_stride1_meta(x, weight, bias, padding):
    from strided import library

    n, _, h, w = x.shape
    k, _, kh, kw = weight.shape
    shape = (n, k, h + 2 * padding[0] - kh + 1, w + 2 * padding[1] - kw + 1)
    return library.TensorMeta(shape, x.dtype, x.device)


def _rows(x, kh, kw, padding):
    """The (N*H_out*W_out, kh*kw*C) im2col rows of a stride-1 window: one C pass, or, when the
    backward is being recorded, the differentiable composite."""
    if strided.is_grad_enabled():
        win = _windows_last(x, (kh, kw), 1, tuple(padding), 1, "conv2d")
        return strided.reshape(win, (-1, win.shape[3] * win.shape[4] * win.shape[5]))
    from strided._cpu import conv as _kernels

    n, c, h, w = x.shape
    ho, wo = h + 2 * padding[0] - kh + 1, w + 2 * padding[1] - kw + 1
    rows = strided.empty((n * ho * wo, kh * kw * c), dtype=x.dtype)
    return _kernels.im2col_rows(x, kh, kw, padding[0], padding[1], rows)


def _input_grad(grad, weight, x_meta, padding):
    """Note [A stride-1 convolution as one op]: the correlation of grad with the flipped,
    transposed filters."""
    h, w = x_meta[0][2:]
    kh, kw = weight.shape[2:]
    flipped = strided.permute(strided.flip(weight, axis=(2, 3)), (1, 0, 2, 3))  # views
    ph, pw = padding
    pads = [kh - 1 - ph, kw - 1 - pw]
    if min(pads) >= 0 and not strided.is_grad_enabled() and _winograd_pays(kh, kw, h, w):
        # channels-first, as x (and .grad) most often is: Note [The input's gradient
        # channels-first]
        from strided._cpu import conv as _kernels

        out = strided.empty(x_meta[0], dtype=grad.dtype)
        return _kernels.winograd_conv2d(grad, flipped, None, pads[0], pads[1], out)
    op = _conv2d_stride1()
    if min(pads) >= 0:
        return op(grad, flipped, None, pads)
    full = op(grad, flipped, None, [kh - 1, kw - 1])  # (N, C, H + 2 ph, W + 2 pw)
    return full[:, :, ph : ph + h, pw : pw + w]


def _weight_bias_grad(grad, x, weight_meta, padding, needs):
    """Note [A stride-1 convolution as one op]: the weight's gradient, grad^T times the im2col
    rows of x or by Winograd, and the bias's, grad summed over (N, H_out, W_out) or made by
    Winograd's weight gradient on the way (Note [The bias's gradient in the weight's] in
    _cpu/conv.pyx)."""
    k, c, kh, kw = weight_meta[0]
    ho, wo = grad.shape[2:]
    need_w, need_b = needs[1], needs[2]
    if (
        need_w
        and c > 0
        and _winograd_pays(kh, kw, ho, wo)
        and not strided.is_grad_enabled()
        and grad.dtype == x.dtype
    ):
        from strided._cpu import conv as _kernels

        gw = strided.empty((k, c, kh, kw), dtype=x.dtype)
        gb = strided.empty((k,), dtype=x.dtype) if need_b else None
        _kernels.winograd_weight_grad(x, grad, padding[0], padding[1], gw, gb=gb)
        return gw, gb
    gb = strided.sum(grad, axis=(0, 2, 3)) if need_b else None
    if not need_w:
        return None, gb
    g = strided.reshape(strided.permute(grad, (0, 2, 3, 1)), (-1, k))  # a view if channels-last
    gw = g.mT @ _rows(x, kh, kw, padding)  # (C_out, kh*kw*C)
    return strided.permute(strided.reshape(gw, (k, kh, kw, c)), (0, 3, 1, 2)), gb


_OP = []


def _conv2d_stride1():
    """``nn::conv2d_stride1``, declared on first use (Note [A stride-1 convolution as one op])."""
    if not _OP:
        from strided import library

        _OP.append(
            library.declare(
                "nn::conv2d_stride1(Tensor x, Tensor weight, Tensor? bias, int[] padding)"
                " -> Tensor",
                _conv2d_stride1_cpu,
                _conv2d_stride1_meta,
                **{"x": _input_grad, "weight, bias": _weight_bias_grad},
            )
        )
    return _OP[0]


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1):
    """The maximum of each window (stride defaults to the kernel size), as ``F.max_pool2d``.

    Padding is with -inf, so a padded border never wins. See Note [Convolution is a strided view
    and a matmul] for the view, and for how ties share the gradient.

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> F.max_pool2d(strided.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    need_float(x, "input", "max_pool2d")
    k = pair(kernel_size, "kernel_size", "max_pool2d")
    _check_pool_padding(k, padding, "max_pool2d")
    tiles = _tiles(x, k, stride, padding, dilation, "max_pool2d")
    if tiles is not None:
        if _pool_op_case(x):
            # one loop, or one op with a graph (Note [Max pooling over tiles in one pass] in
            # strided/_cpu/conv.pyx)
            if no_graph(x):
                from strided._cpu import conv as _kernels

                return _kernels.max_pool2d_tiles(x, k[0], k[1])
            return _max_pool_op()(x, list(k))
        return strided.max(tiles, axis=(3, 5))
    win = window_view(
        x, k, k if stride is None else stride, padding, dilation, float("-inf"), "max_pool2d"
    )
    return strided.max(win, axis=(-2, -1))


def _pool_op_case(x):
    """Whether max pooling over tiles runs as the loop and op of Note [Max pooling over tiles
    in one pass] (strided/_cpu/conv.pyx): a channels-last float32 or float64 tensor on the
    CPU."""
    return (
        isinstance(x, _core.TensorBase)
        and x.device.type == "cpu"
        and x.dtype.name in ("float32", "float64")
        and x.shape[1] > 1
        and x.stride(1) == 1
    )


def _max_pool_cpu(x, kernel_size):
    from strided._cpu import conv as _kernels

    return _kernels.max_pool2d_tiles(x, kernel_size[0], kernel_size[1])


def _max_pool_meta(x, kernel_size):
    from strided import library

    n, c, h, w = x.shape
    return library.TensorMeta((n, c, h // kernel_size[0], w // kernel_size[1]), x.dtype, x.device)


def _max_pool_grad(grad, x, kernel_size):
    """x's gradient: one loop (Note [Max pooling over tiles in one pass]), or, when the backward
    is itself recorded (``create_graph=True``), max's own rule through the tiles view, as ops
    that double backward differentiates."""
    kh, kw = kernel_size
    if not strided.is_grad_enabled() and grad.dtype == x.dtype:
        from strided._cpu import conv as _kernels

        return _kernels.max_pool2d_tiles_backward(grad, x, kh, kw)
    from strided.autograd import formulas

    n, c, h, w = x.shape
    ho, wo = h // kh, w // kw
    tiles = _tiles(x, (kh, kw), None, 0, 1, "max_pool2d")
    share = formulas.max_min_backward(grad, tiles, strided.max(tiles, axis=(3, 5)), (3, 5), False)
    gx = strided.reshape(share, (n, c, ho * kh, wo * kw))
    if (ho * kh, wo * kw) != (h, w):  # the rows and columns no window covers
        gx = pad(gx, (0, w - wo * kw, 0, h - ho * kh))
    return gx


_POOL_OP = []


def _max_pool_op():
    """``nn::max_pool2d_tiles``, declared on first use (Note [Max pooling over tiles in one pass]
    in strided/_cpu/conv.pyx)."""
    if not _POOL_OP:
        from strided import library

        _POOL_OP.append(
            library.declare(
                "nn::max_pool2d_tiles(Tensor x, int[] kernel_size) -> Tensor",
                _max_pool_cpu,
                _max_pool_meta,
                x=_max_pool_grad,
            )
        )
    return _POOL_OP[0]


def avg_pool2d(x, kernel_size, stride=None, padding=0):
    """The mean of each window (zero padding counted, as PyTorch's default
    ``count_include_pad=True``); stride defaults to the kernel size."""
    need_float(x, "input", "avg_pool2d")
    k = pair(kernel_size, "kernel_size", "avg_pool2d")
    _check_pool_padding(k, padding, "avg_pool2d")
    tiles = _tiles(x, k, stride, padding, 1, "avg_pool2d")
    if tiles is not None:
        return strided.mean(tiles, axis=(3, 5))
    win = window_view(x, k, k if stride is None else stride, padding, 1, 0.0, "avg_pool2d")
    return strided.mean(win, axis=(-2, -1))


def _tiles(x, k, stride, padding, dilation, fn):
    """Pooling's common case, windows that tile the input (stride = kernel size, no padding,
    no dilation), as the view (N, C, H_out, kh, W_out, kw): the rows and columns that no
    window covers are sliced off, then H and W are each split in two, which strides can
    always express (a split never copies). Its backward is a reshape and a slice, where the
    general window view's is a scatter through every window (``strided_backward``). None
    when the windows do not tile."""
    kh, kw = k
    if stride is not None and pair(stride, "stride", fn) != k:
        return None
    if pair(padding, "padding", fn) != (0, 0) or pair(dilation, "dilation", fn) != (1, 1):
        return None
    need_ndim(x, (4,), "input", fn, "batch, channels, height, width")
    n, c, h, w = x.shape
    ho, wo = _out_size(h, kh, kh, 0, 1, "height", fn), _out_size(w, kw, kw, 0, 1, "width", fn)
    if (ho * kh, wo * kw) != (h, w):
        x = x[:, :, : ho * kh, : wo * kw]
    return strided.reshape(x, (n, c, ho, kh, wo, kw))


def _check_pool_padding(k, padding, fn):
    ph, pw = pair(padding, "padding", fn)
    if 2 * ph > k[0] or 2 * pw > k[1]:
        raise ValueError(
            f"{fn}: padding {(ph, pw)} must be at most half the kernel size {k} (as in PyTorch): "
            "a window made only of padding has no meaningful value"
        )
