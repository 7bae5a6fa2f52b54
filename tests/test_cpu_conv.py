"""The stride-1 convolution op and its CPU kernels (strided/_cpu/conv.pyx, Note [A stride-1
convolution as one op] in strided/nn/functional/conv.py): Winograd's F(4x4, 3x3) forward and
weight gradient, the im2col rows, and the derivative row, against a float64 einsum.

Tolerances. Winograd's float32 error comes from its transforms (coefficients up to 8 and 1/24,
Note [Winograd's F(4x4, 3x3)] in strided/_cpu/conv.pyx): measured at most ~1e-5 of the largest
output on standard normal data with up to 64 channels, where im2col's GEMM gives ~6e-7. The
float32 bound is 1e-4 of the largest reference value, ten times the worst measured; float64
(measured ~1.5e-14) is held to 1e-12.
"""

import numpy as np
import pytest
from layouts import make_layout

import strided
from strided._cpu import conv as kernels
from strided.autograd import gradcheck, gradgradcheck
from strided.nn import functional as F
from strided.nn.functional import conv as conv_module

TOL = {"float32": 1e-4, "float64": 1e-12}


def ref_conv(x, w, b, padding):
    """The stride-1 correlation in float64, by einsum over the padded windows."""
    ph, pw = padding
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))
    out = np.einsum("nchwij,kcij->nkhw", win, w.astype(np.float64))
    return out if b is None else out + b.astype(np.float64)[None, :, None, None]


def ref_weight_grad(x, g, padding):
    ph, pw = padding
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kh, kw = xp.shape[2] - g.shape[2] + 1, xp.shape[3] - g.shape[3] + 1
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    return np.einsum("nchwij,nkhw->kcij", win, g.astype(np.float64))


def close(got, want, dtype):
    got = np.asarray(got)
    assert got.shape == want.shape
    scale = max(np.abs(want).max(initial=0.0), 1.0)
    err = np.abs(got - want).max(initial=0.0)
    assert err <= TOL[dtype] * scale, f"{err / scale:.2e} of the largest value"


# (N, C, H, W, K, padding): odd sizes, padding 0 to 3, one and many channels (more than one
# block of 16, and not a multiple of it), batch 1, outputs that end inside a 4x4 tile
SHAPES = [
    (2, 3, 7, 9, 5, (1, 1)),
    (1, 1, 5, 5, 1, (0, 0)),
    (3, 20, 11, 6, 17, (2, 2)),
    (2, 4, 6, 5, 3, (3, 3)),
    (1, 40, 9, 10, 33, (1, 0)),
    (4, 16, 8, 8, 32, (1, 1)),
    (1, 2, 13, 4, 2, (0, 2)),
    # few input channels (each tile's products made per block of output channels): the
    # digits CNN's first layer, and two blocks of output channels, the second partial
    (3, 1, 8, 8, 16, (1, 1)),
    (2, 4, 9, 7, 21, (1, 1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("bias", [False, True])
def test_forward_matches_float64(rng, shape, dtype, bias):
    n, c, h, w, k, padding = shape
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((k, c, 3, 3)).astype(dtype)
    b = rng.standard_normal(k).astype(dtype) if bias else None
    got = F.conv2d(
        strided.asarray(x),
        strided.asarray(wt),
        None if b is None else strided.asarray(b),
        padding=padding,
    )
    close(got, ref_conv(x, wt, b, padding), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["contiguous", "transposed", "stepped", "negative-stride"])
@pytest.mark.parametrize("channels", [5, 2])
def test_forward_reads_every_layout(rng, name, dtype, channels):
    """The kernels read x and the weight through their strides: no copy, any layout (2
    channels: the tiles in lanes, Note [Tiles in lanes])."""
    x_ref = rng.standard_normal((2, channels, 7, 6)).astype(dtype)
    w_ref = rng.standard_normal((4, channels, 3, 3)).astype(dtype)
    x, x_np = make_layout(name, x_ref, rng)
    w, w_np = make_layout(name, w_ref, rng)
    for kernel in (3, 2):  # Winograd, and the im2col rows
        wk, wk_np = w[:, :, :kernel, :kernel], w_np[:, :, :kernel, :kernel]
        close(F.conv2d(x, wk, padding=1), ref_conv(x_np, wk_np, None, (1, 1)), dtype)


def test_forward_of_an_expanded_input(rng):
    x_ref = rng.standard_normal((3, 4, 6, 7))
    x, x_np = make_layout("expanded", x_ref, rng)
    w = rng.standard_normal((2, 4, 3, 3))
    close(F.conv2d(x, strided.asarray(w), padding=1), ref_conv(x_np, w, None, (1, 1)), "float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("channels", [20, 3])
def test_channels_expanded_from_one_value(rng, dtype, channels):
    """An input whose channels are one value expanded (stride 0: the gather broadcasts it), and
    the gradient of a sum, every element of it one value expanded."""
    x1 = rng.standard_normal((2, 1, 9, 7)).astype(dtype)
    x = strided.broadcast_to(strided.asarray(x1), (2, channels, 9, 7))
    x_np = np.broadcast_to(x1, (2, channels, 9, 7))
    wt = rng.standard_normal((17, channels, 3, 3)).astype(dtype)
    b = rng.standard_normal(17).astype(dtype)
    close(F.conv2d(x, strided.asarray(wt), padding=1), ref_conv(x_np, wt, None, (1, 1)), dtype)
    xs = strided.asarray(x_np.copy()).requires_grad_()
    w, bb = strided.asarray(wt).requires_grad_(), strided.asarray(b).requires_grad_()
    F.conv2d(xs, w, bb, padding=1).sum().backward()  # the gradient: ones, all strides 0
    g = np.ones((2, 17, 9, 7), dtype)
    flipped = np.ascontiguousarray(wt[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    close(xs.grad, ref_conv(g, flipped, None, (1, 1)), dtype)
    close(w.grad, ref_weight_grad(x_np, g, (1, 1)), dtype)
    close(bb.grad, g.sum(axis=(0, 2, 3)), dtype)


@pytest.mark.parametrize("kernel", [(1, 1), (2, 2), (5, 5), (3, 5), (3, 3)])
@pytest.mark.parametrize("hw", [(3, 3), (4, 6), (9, 7)])
def test_other_filters_and_small_outputs_take_im2col(rng, kernel, hw):
    """Filters other than 3x3, and outputs that fill less than half their tiles, run as the
    im2col rows and one GEMM (Note [A stride-1 convolution as one op]); values alike."""
    x = rng.standard_normal((2, 3, *hw)).astype("float32")
    w = rng.standard_normal((4, 3, *kernel)).astype("float32")
    b = rng.standard_normal(4).astype("float32")
    padding = (kernel[0] // 2, kernel[1] // 2)
    got = F.conv2d(strided.asarray(x), strided.asarray(w), strided.asarray(b), padding=padding)
    close(got, ref_conv(x, w, b, padding), "float32")


def test_winograd_rule():
    assert conv_module._winograd_pays(3, 3, 8, 8)
    assert conv_module._winograd_pays(3, 3, 7, 9)
    assert not conv_module._winograd_pays(3, 3, 1, 1)  # a 4x4 tile for 1 output
    assert not conv_module._winograd_pays(3, 3, 5, 5)  # 8x8 for 25
    assert not conv_module._winograd_pays(5, 5, 8, 8)


def test_empty_batch_and_no_channels(rng):
    w = strided.asarray(rng.standard_normal((4, 3, 3, 3)))
    b = strided.asarray(rng.standard_normal(4))
    out = F.conv2d(strided.zeros((0, 3, 6, 6)), w, b, padding=1)
    assert out.shape == (0, 4, 6, 6)
    out = F.conv2d(strided.zeros((2, 0, 6, 6)), strided.zeros((4, 0, 3, 3)), b, padding=1)
    np.testing.assert_array_equal(
        np.asarray(out), np.broadcast_to(np.asarray(b)[:, None, None], (2, 4, 6, 6))
    )
    x = strided.zeros((0, 3, 6, 6)).requires_grad_()
    wg = strided.asarray(rng.standard_normal((4, 3, 3, 3))).requires_grad_()
    F.conv2d(x, wg, padding=1).sum().backward()
    assert x.grad.shape == (0, 3, 6, 6)
    np.testing.assert_array_equal(np.asarray(wg.grad), 0.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("block", [0, 1, 7])
@pytest.mark.parametrize("products", [0, 1, 2])
def test_weight_gradient_kernel(rng, shape, dtype, block, products):
    """Note [The weight's gradient by Winograd]: any number of tiles per block (groups of
    WINO_RT tiles cut short), the sums by OpenBLAS (0) and in registers (1: Note [The
    products in registers])."""
    n, c, h, w, k, padding = shape
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    ho, wo = h + 2 * padding[0] - 2, w + 2 * padding[1] - 2
    g = rng.standard_normal((n, k, ho, wo)).astype(dtype)
    gw = strided.empty((k, c, 3, 3), dtype=dtype)
    gb = strided.empty((2 * k,), dtype=dtype)[::2]  # a stepped bias gradient
    kernels.winograd_weight_grad(
        strided.asarray(x), strided.asarray(g), padding[0], padding[1], gw, block, products, gb
    )
    close(gw, ref_weight_grad(x, g, padding), dtype)
    # Note [The bias's gradient in the weight's]: each tile's sum, xi = 7
    close(gb, g.astype(np.float64).sum(axis=(0, 2, 3)), dtype)


def test_weight_gradient_kernel_bias_edges(rng):
    x = strided.asarray(rng.standard_normal((0, 3, 6, 6)))
    gw, gb = strided.empty((4, 3, 3, 3)), strided.empty((4,))
    kernels.winograd_weight_grad(x, strided.zeros((0, 4, 6, 6)), 1, 1, gw, gb=gb)
    np.testing.assert_array_equal(np.asarray(gb), 0.0)
    with pytest.raises(ValueError, match="input channel"):
        kernels.winograd_weight_grad(
            strided.zeros((1, 0, 6, 6)),
            strided.zeros((1, 4, 6, 6)),
            1,
            1,
            strided.empty((4, 0, 3, 3)),
            gb=gb,
        )


@pytest.mark.parametrize("needs", ["x", "w", "b", "wb", "xwb"])
def test_gradients_of_any_subset(rng, needs):
    """The row's joint formula for the weight and the bias (Winograd's weight gradient makes
    the bias's on the way), whichever of x, weight and bias require grad; the input's gradient
    channels-first (Note [The input's gradient channels-first])."""
    xs = rng.standard_normal((2, 3, 8, 7)).astype("float32")
    ws = rng.standard_normal((5, 3, 3, 3)).astype("float32")
    bs = rng.standard_normal(5).astype("float32")
    g = rng.standard_normal((2, 5, 8, 7)).astype("float32")
    x, w, b = (strided.asarray(a) for a in (xs, ws, bs))
    for t, name in ((x, "x"), (w, "w"), (b, "b")):
        if name in needs:
            t.requires_grad_()
    (F.conv2d(x, w, b, padding=1) * strided.asarray(g)).sum().backward()
    if "x" in needs:
        flipped = np.ascontiguousarray(ws[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
        close(x.grad, ref_conv(g, flipped, None, (1, 1)), "float32")
        assert x.grad.is_contiguous()
    if "w" in needs:
        close(w.grad, ref_weight_grad(xs, g, (1, 1)), "float32")
    if "b" in needs:
        close(b.grad, g.astype(np.float64).sum(axis=(0, 2, 3)), "float32")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("products", [0, 1, 2])
def test_forward_kernel_both_products(rng, shape, dtype, products):
    """The forward's products by OpenBLAS (0) and in registers (1), with a bias, into a
    channels-first output (Note [The products in registers])."""
    n, c, h, w, k, padding = shape
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((k, c, 3, 3)).astype(dtype)
    b = rng.standard_normal(k).astype(dtype)
    ho, wo = h + 2 * padding[0] - 2, w + 2 * padding[1] - 2
    out = strided.empty((n, k, ho, wo), dtype=dtype)
    kernels.winograd_conv2d(
        strided.asarray(x), strided.asarray(wt), strided.asarray(b), *padding, out, 0, products
    )
    close(out, ref_conv(x, wt, b, padding), dtype)


@pytest.mark.parametrize("block", [1, 5, 1000])
@pytest.mark.parametrize("products", [0, 1, 2])
def test_forward_kernel_any_block(rng, block, products):
    x = rng.standard_normal((3, 5, 9, 11)).astype("float32")
    w = rng.standard_normal((6, 5, 3, 3)).astype("float32")
    out = strided.permute(strided.empty((3, 9, 11, 6), dtype="float32"), (0, 3, 1, 2))
    kernels.winograd_conv2d(
        strided.asarray(x), strided.asarray(w), None, 1, 1, out, block, products
    )
    close(out, ref_conv(x, w, None, (1, 1)), "float32")


def test_im2col_rows(rng):
    x = rng.standard_normal((2, 3, 5, 4))
    rows = kernels.im2col_rows(strided.asarray(x), 3, 2, 1, 0, strided.empty((2 * 5 * 3, 18)))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 2), axis=(2, 3))  # n c i j a b
    want = win.transpose(0, 2, 3, 4, 5, 1).reshape(30, 18)  # taps in (a, b, c) order
    np.testing.assert_array_equal(np.asarray(rows), want)


@pytest.mark.parametrize(
    "kernel,padding",
    [((3, 3), (1, 1)), ((3, 3), (0, 2)), ((3, 3), (3, 1)), ((2, 2), (1, 1)), ((3, 5), (2, 3))],
)
def test_gradcheck(rng, kernel, padding):
    """The row's formulas (Note [A stride-1 convolution as one op]): the input's gradient as a
    convolution with the flipped filters (padding 3 > kh - 1: the full one, cropped), the
    weight's by Winograd or the im2col rows, the bias's a sum; and once more (gradgradcheck)."""
    x = strided.asarray(rng.standard_normal((2, 3, 6, 7))).requires_grad_()
    w = strided.asarray(rng.standard_normal((4, 3, *kernel))).requires_grad_()
    b = strided.asarray(rng.standard_normal(4)).requires_grad_()

    def fn(x, w, b):
        return F.conv2d(x, w, b, padding=padding)

    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["transposed", "stepped", "negative-stride"])
@pytest.mark.parametrize("channels", [18, 3])
def test_gradients_match_float64(rng, dtype, name, channels):
    """Gradients of a non-contiguous input and weight, a channels-first gradient from the
    loss, against the float64 einsum references (3 channels: the weight's gradient with the
    tiles in lanes)."""
    x_ref = rng.standard_normal((3, channels, 9, 10)).astype(dtype)
    w_ref = rng.standard_normal((20, channels, 3, 3)).astype(dtype)
    x, x_np = make_layout(name, x_ref, rng)
    w, w_np = make_layout(name, w_ref, rng)
    x.requires_grad_()
    w.requires_grad_()
    y = F.conv2d(x, w, padding=1)
    g_np = rng.standard_normal(y.shape).astype(dtype)
    (y * strided.asarray(g_np)).sum().backward()
    close(w.grad, ref_weight_grad(x_np, g_np, (1, 1)), dtype)
    # the input's gradient is the correlation of g with the flipped, transposed filters
    flipped = np.ascontiguousarray(w_np[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    close(x.grad, ref_conv(g_np, flipped, None, (1, 1)), dtype)


def test_matches_pytorch(rng):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((4, 16, 8, 8)).astype("float32")
    w = rng.standard_normal((32, 16, 3, 3)).astype("float32")
    b = rng.standard_normal(32).astype("float32")
    s = [strided.asarray(a).requires_grad_() for a in (x, w, b)]
    t = [torch.from_numpy(a.astype("float64")).requires_grad_() for a in (x, w, b)]
    F.conv2d(*s, padding=1).square().sum().backward()
    torch.nn.functional.conv2d(*t, padding=1).square().sum().backward()
    for got, want in zip(s, t, strict=True):
        close(got.grad, want.grad.numpy(), "float32")


def test_other_cases_stay_composite(rng):
    """Stride, dilation, groups, mixed dtypes and float16 keep the composite conv2d."""
    x = strided.asarray(rng.standard_normal((1, 4, 7, 7)).astype("float32"))
    w = strided.asarray(rng.standard_normal((4, 4, 3, 3)).astype("float32"))
    case = conv_module._unit_stride_case
    assert case(x, w, None, 1, 1, 1)
    assert not case(x, w, None, 2, 1, 1)
    assert not case(x, w, None, 1, 2, 1)
    assert not case(x, w, None, 1, 1, 2)
    assert not case(x, w.astype("float64"), None, 1, 1, 1)
    assert not case(x.astype("float16"), w.astype("float16"), None, 1, 1, 1)
    got = F.conv2d(x, w.astype("float64"), padding=1)
    close(got, ref_conv(np.asarray(x), np.asarray(w).astype("float64"), None, (1, 1)), "float64")


def test_tile_blocks_give_every_thread_a_block():
    # Note [Winograd's F(4x4, 3x3)]'s blocks are the prange's unit: the digits CNN's first
    # layer (256 tiles, 1 -> 16 channels) fits one block's cache budget, but with 2 threads it
    # must be cut in two (it was 214 + 42 tiles: no faster than 1 thread)
    keep = strided.get_num_threads()
    try:
        strided.set_num_threads(1)
        assert kernels.tile_block(1, 16, 4, 256) == 256
        # with OpenBLAS's products a block holds M too: V and M of 214 tiles in 512 KiB
        assert kernels.tile_block(1, 16, 4, 256, 0) == 214
        strided.set_num_threads(2)
        assert kernels.tile_block(1, 16, 4, 256) == 128
        assert kernels.tile_block(1, 16, 4, 256, 0) == 128
        assert kernels.tile_block(1, 16, 4, 20) == 16  # never below 16 tiles
    finally:
        strided.set_num_threads(keep)
