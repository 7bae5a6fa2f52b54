"""strided.nn.functional against NumPy references, PyTorch (when installed), and gradcheck."""

import math

import numpy as np
import pytest
from layouts import LAYOUTS

import strided
from strided.autograd import gradcheck
from strided.nn import functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # the PyTorch comparisons are skipped, the NumPy ones still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def s64(a, grad=True):
    t = strided.asarray(np.array(a, dtype=np.float64))
    return t.requires_grad_() if grad else t


# -- NumPy references ---------------------------------------------------------------------------


def np_windows(x, kh, kw, stride, padding, dilation=1, value=0.0):
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=value)
    n, c, h, w = xp.shape
    ho = (h - dilation * (kh - 1) - 1) // stride + 1
    wo = (w - dilation * (kw - 1) - 1) // stride + 1
    out = np.empty((n, c, ho, wo, kh, kw), dtype=x.dtype)
    for i in range(ho):
        for j in range(wo):
            out[:, :, i, j] = xp[
                :,
                :,
                i * stride : i * stride + dilation * (kh - 1) + 1 : dilation,
                j * stride : j * stride + dilation * (kw - 1) + 1 : dilation,
            ]
    return out


def np_conv2d(x, w, b, stride, padding, dilation=1, groups=1):
    win = np_windows(x, w.shape[2], w.shape[3], stride, padding, dilation)
    cin, cout = w.shape[1], w.shape[0] // groups  # per group
    out = np.concatenate(
        [
            np.einsum(
                "ncijkl,ockl->noij",
                win[:, g * cin : (g + 1) * cin],
                w[g * cout : (g + 1) * cout],
            )
            for g in range(groups)
        ],
        axis=1,
    )
    return out if b is None else out + b[None, :, None, None]


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


# -- convolution and pooling ----------------------------------------------------------------------


def test_window_view_is_a_view_of_the_input():
    x = strided.arange(2 * 3 * 5 * 5, dtype="float64").reshape(2, 3, 5, 5)
    w = F.window_view(x, 3, stride=2)
    assert w.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert w.shape == (2, 3, 2, 2, 3, 3)
    np.testing.assert_array_equal(np.asarray(w), np_windows(np.asarray(x), 3, 3, 2, 0))


@pytest.mark.parametrize("stride,padding,dilation", [(1, 0, 1), (1, 1, 1), (2, 1, 1), (1, 2, 2)])
def test_conv2d_matches_numpy(rng, stride, padding, dilation):
    x = rng.standard_normal((2, 3, 7, 6))
    w = rng.standard_normal((4, 3, 3, 2))
    b = rng.standard_normal(4)
    got = F.conv2d(
        strided.asarray(x), strided.asarray(w), strided.asarray(b), stride, padding, dilation
    )
    np.testing.assert_allclose(
        np.asarray(got), np_conv2d(x, w, b, stride, padding, dilation), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("groups,cin,cout", [(2, 4, 6), (4, 4, 4), (3, 3, 6)])
def test_grouped_and_depthwise_conv2d(rng, groups, cin, cout):
    x = rng.standard_normal((2, cin, 6, 5))
    w = rng.standard_normal((cout, cin // groups, 3, 2))
    b = rng.standard_normal(cout)
    for stride, padding, dilation in [(1, 0, 1), (2, 1, 1), (1, 1, 2)]:
        got = F.conv2d(
            strided.asarray(x), strided.asarray(w), strided.asarray(b), stride, padding, dilation,
            groups,
        )  # fmt: skip
        want = np_conv2d(x, w, b, stride, padding, dilation, groups)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
    assert gradcheck(
        lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=groups), (s64(x), s64(w), s64(b))
    )
    with pytest.raises(ValueError, match=f"with groups={groups} expects {cin}"):
        F.conv2d(strided.asarray(x[:, :-1]), strided.asarray(w), groups=groups)
    with pytest.raises(ValueError, match="groups must be a positive int dividing"):
        F.conv2d(strided.asarray(x), strided.asarray(w), groups=5)


def test_conv2d_of_a_non_contiguous_input(rng):
    x = rng.standard_normal((2, 6, 6, 3)).transpose(0, 3, 1, 2)  # channels-last memory
    w = rng.standard_normal((2, 3, 3, 3))
    xs = strided.asarray(np.ascontiguousarray(x.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
    got = F.conv2d(xs, strided.asarray(w), padding=1)
    np.testing.assert_allclose(np.asarray(got), np_conv2d(x, w, None, 1, 1), rtol=1e-10)


def test_pools_match_numpy(rng):
    x = rng.standard_normal((2, 3, 6, 5))
    xs = strided.asarray(x)
    np.testing.assert_allclose(
        np.asarray(F.max_pool2d(xs, 2)), np_windows(x, 2, 2, 2, 0).max(axis=(-2, -1))
    )
    np.testing.assert_allclose(
        np.asarray(F.max_pool2d(xs, 3, stride=1, padding=1)),
        np_windows(x, 3, 3, 1, 1, value=-np.inf).max(axis=(-2, -1)),
    )
    np.testing.assert_allclose(
        np.asarray(F.avg_pool2d(xs, 2, padding=1)),
        np_windows(x, 2, 2, 2, 1).mean(axis=(-2, -1)),
    )


@pytest.mark.parametrize("layout", ["contiguous", "channels-last", "stepped"])
def test_tiling_pools_are_views_and_match_the_window_path(rng, layout):
    """Windows that tile the input (stride = kernel, no padding) pool a reshaped view of it
    (``_tiles``); odd sizes crop the last row/column, as PyTorch's floor mode."""
    x = rng.standard_normal((2, 3, 7, 9))
    xs = strided.asarray(x)
    if layout == "channels-last":
        xs = strided.permute(
            strided.asarray(np.ascontiguousarray(x.transpose(0, 2, 3, 1))), (0, 3, 1, 2)
        )
    elif layout == "stepped":
        xs = strided.asarray(np.repeat(x, 2, axis=3))[:, :, :, ::2]
    for k in (2, 3, (2, 3)):
        kh, kw = (k, k) if isinstance(k, int) else k
        tiles = F.conv._tiles(xs, (kh, kw), None, 0, 1, "max_pool2d")
        assert tiles.untyped_storage() is xs.untyped_storage()  # a view: nothing copied
        want = np_windows(x, kh, kw, 1, 0)[:, :, ::kh, ::kw]
        np.testing.assert_array_equal(np.asarray(F.max_pool2d(xs, k)), want.max(axis=(-2, -1)))
        np.testing.assert_allclose(np.asarray(F.avg_pool2d(xs, k)), want.mean(axis=(-2, -1)))
        assert F.conv._tiles(xs, (kh, kw), 1, 0, 1, "max_pool2d") is None  # overlapping
    t = s64(x)
    assert gradcheck(lambda t: F.max_pool2d(t, 2) + F.avg_pool2d(t, (2, 3)).sum(), (t,))
    ties = strided.asarray(np.ones((1, 1, 4, 4))).requires_grad_()
    F.max_pool2d(ties, 2).sum().backward()  # four-way ties share the gradient evenly
    np.testing.assert_array_equal(np.asarray(ties.grad), np.full((1, 1, 4, 4), 0.25))
    assert ties.grad.dtype is strided.float64


def test_conv_and_pool_gradcheck(rng):
    x = s64(rng.standard_normal((2, 2, 5, 4)))
    w = s64(rng.standard_normal((3, 2, 3, 2)))
    b = s64(rng.standard_normal(3))
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), (x, w, b))
    assert gradcheck(lambda x: F.max_pool2d(x, 2, stride=1), (x,))
    assert gradcheck(lambda x: F.avg_pool2d(x, 3, stride=2, padding=1), (x,))


def test_unfold_layout(rng):
    x = rng.standard_normal((1, 2, 4, 4))
    got = np.asarray(F.unfold(strided.asarray(x), 3, padding=1))
    win = np_windows(x, 3, 3, 1, 1)  # (n, c, ho, wo, kh, kw) -> (n, c*kh*kw, ho*wo)
    want = win.transpose(0, 1, 4, 5, 2, 3).reshape(1, 18, 16)
    np.testing.assert_allclose(got, want)


def test_conv_errors_name_shapes():
    x = strided.zeros((1, 3, 5, 5))
    with pytest.raises(ValueError, match=r"3 channels but weight of shape \(2, 4, 3, 3\)"):
        F.conv2d(x, strided.zeros((2, 4, 3, 3)))
    with pytest.raises(ValueError, match="must be 4-D"):
        F.conv2d(strided.zeros((3, 5, 5)), strided.zeros((2, 3, 3, 3)))
    with pytest.raises(ValueError, match="smaller than the kernel"):
        F.conv2d(x, strided.zeros((2, 3, 7, 7)))
    with pytest.raises(TypeError, match="floating dtype"):
        F.conv2d(strided.zeros((1, 3, 5, 5), dtype="int64"), strided.zeros((2, 3, 3, 3)))


# -- activations, linear, losses ------------------------------------------------------------------


def test_activations_match_numpy(rng):
    x = rng.standard_normal((3, 4))
    xs = strided.asarray(x)
    from math import erf

    np.testing.assert_allclose(np.asarray(F.relu(xs)), np.maximum(x, 0))
    np.testing.assert_allclose(np.asarray(F.sigmoid(xs)), 1 / (1 + np.exp(-x)))
    np.testing.assert_allclose(np.asarray(F.tanh(xs)), np.tanh(x))
    gelu = x * 0.5 * (1 + np.vectorize(erf)(x / math.sqrt(2)))
    np.testing.assert_allclose(np.asarray(F.gelu(xs)), gelu, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(F.log_softmax(xs, 1)), np_log_softmax(x, 1))
    np.testing.assert_allclose(np.asarray(F.softmax(xs, 0)), np.exp(np_log_softmax(x, 0)))


def test_activation_gradcheck(rng):
    x = s64(rng.standard_normal((3, 4)) + 0.1)
    for fn in (
        F.gelu,
        lambda t: F.gelu(t, "tanh"),
        F.sigmoid,
        F.tanh,
        lambda t: F.softmax(t, 1),
        lambda t: F.log_softmax(t, 0),
    ):
        assert gradcheck(fn, (x,))


def test_linear_and_embedding(rng):
    x, w, b = rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), rng.standard_normal(4)
    got = F.linear(strided.asarray(x), strided.asarray(w), strided.asarray(b))
    np.testing.assert_allclose(np.asarray(got), x @ w.T + b)
    assert gradcheck(F.linear, (s64(x), s64(w), s64(b)))
    table = rng.standard_normal((6, 2))
    idx = np.array([[0, 5], [5, 2]])
    got = F.embedding(strided.asarray(idx), strided.asarray(table))
    np.testing.assert_allclose(np.asarray(got), table[idx])
    t = s64(table)
    F.embedding(strided.asarray(idx), t).sum().backward()
    want = np.zeros((6, 2))
    np.add.at(want, idx.reshape(-1), 1.0)
    np.testing.assert_allclose(np.asarray(t.grad), want)  # repeated index 5 counted twice
    with pytest.raises(IndexError, match="index 6 is out of range for 6 embeddings"):
        F.embedding(strided.asarray([6]), strided.asarray(table))


def test_dropout_scales_and_is_identity_in_eval():
    strided.manual_seed(0)
    x = strided.ones(10000)
    y = np.asarray(F.dropout(x, 0.3))
    assert set(np.unique(y)) <= {0.0, 1 / 0.7}
    assert abs((y == 0).mean() - 0.3) < 0.03
    assert F.dropout(x, 0.3, training=False) is x


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_matches_numpy(rng, smoothing):
    x = rng.standard_normal((6, 5))
    y = rng.integers(0, 5, 6)
    logp = np_log_softmax(x, 1)
    want = -(1 - smoothing) * logp[np.arange(6), y] - smoothing * logp.mean(1)
    got = F.cross_entropy(
        strided.asarray(x), strided.asarray(y), reduction="none", label_smoothing=smoothing
    )
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    assert gradcheck(
        lambda t: F.cross_entropy(t, strided.asarray(y), label_smoothing=smoothing), (s64(x),)
    )


def test_cross_entropy_spatial_and_probabilities(rng):
    x = rng.standard_normal((2, 3, 4))
    y = rng.integers(0, 3, (2, 4))
    logp = np_log_softmax(x, 1)
    want = -np.take_along_axis(logp, y[:, None], 1)[:, 0].mean()
    got = F.cross_entropy(strided.asarray(x), strided.asarray(y))
    np.testing.assert_allclose(float(got), want, rtol=1e-12)
    p = np.exp(np_log_softmax(rng.standard_normal((2, 3, 4)), 1))
    got = F.cross_entropy(strided.asarray(x), strided.asarray(p), reduction="sum")
    np.testing.assert_allclose(float(got), -(p * logp).sum(), rtol=1e-12)


def np_weighted_nll(logp, y, w, ignore, reduction):
    """NumPy's answer for Note [Weighted and ignored targets]: (N, C, ...) log-probabilities."""
    kept = y != ignore
    safe = np.where(kept, y, 0)
    picked = np.take_along_axis(logp, safe[:, None], 1)[:, 0]
    wi = w[safe] * kept
    loss = -picked * wi
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / wi.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(7, 4), (3, 4, 5)])
def test_class_weights_and_ignore_index(rng, reduction, shape):
    x = rng.standard_normal(shape)
    y = rng.integers(0, shape[1], (shape[0],) + shape[2:])
    y.flat[[1, 4]] = -100  # ignored samples
    w = rng.uniform(0.5, 2.0, shape[1])
    logp = np_log_softmax(x, 1)
    want = np_weighted_nll(logp, y, w, -100, reduction)
    sx, sy, sw = strided.asarray(x), strided.asarray(y), strided.asarray(w)
    got = F.cross_entropy(sx, sy, sw, reduction=reduction)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    got = F.nll_loss(strided.asarray(logp), sy, sw, reduction=reduction)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    # no weight: every kept sample weighs 1, the mean is over the kept ones
    want = np_weighted_nll(logp, y, np.ones(shape[1]), -100, reduction)
    np.testing.assert_allclose(np.asarray(F.cross_entropy(sx, sy, reduction=reduction)), want)
    # another ignore_index: -100 is then an ordinary (bad) class, 2 is skipped
    y2 = np.where(y < 0, 2, y)
    want = np_weighted_nll(logp, y2, w, 2, reduction)
    got = F.cross_entropy(sx, strided.asarray(y2), sw, ignore_index=2, reduction=reduction)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    assert gradcheck(
        lambda t: F.cross_entropy(t, sy, sw, reduction=reduction, label_smoothing=0.2), (s64(x),)
    )


def test_weighted_label_smoothing_and_probabilities(rng):
    x = rng.standard_normal((6, 4))
    y = rng.integers(0, 4, 6)
    y[2] = -100
    w = rng.uniform(0.5, 2.0, 4)
    logp = np_log_softmax(x, 1)
    e = 0.3
    kept = y != -100
    smooth = np.where(kept, -(logp * w).sum(1), 0.0)
    total = (w[np.where(kept, y, 0)] * kept).sum()
    want = (1 - e) * np_weighted_nll(logp, y, w, -100, "mean") + e / 4 * smooth.sum() / total
    got = F.cross_entropy(
        strided.asarray(x), strided.asarray(y), strided.asarray(w), label_smoothing=e
    )
    np.testing.assert_allclose(float(got), want, rtol=1e-12)
    p = np.exp(np_log_softmax(rng.standard_normal((6, 4)), 1))  # probabilities: mean over N
    got = F.cross_entropy(strided.asarray(x), strided.asarray(p), strided.asarray(w))
    np.testing.assert_allclose(float(got), -(p * logp * w).sum(1).mean(), rtol=1e-12)
    every = F.cross_entropy(strided.asarray(x[:2]), strided.asarray([-100, -100]))
    assert np.isnan(float(every))  # 0 / 0, as in PyTorch
    with pytest.raises(ValueError, match=r"weight of shape \(3,\) must be \(4,\)"):
        F.cross_entropy(strided.asarray(x), strided.asarray(y), strided.ones(3))


def test_embedding_padding_idx_gets_no_gradient(rng):
    table = rng.standard_normal((5, 3))
    idx = np.array([[0, 4], [4, 2]])
    for pad in (4, -1):
        w = s64(table)
        out = F.embedding(strided.asarray(idx), w, padding_idx=pad)
        np.testing.assert_array_equal(np.asarray(out.detach()), table[idx])  # values unchanged
        out.sum().backward()
        want = np.zeros_like(table)
        np.add.at(want, idx[idx != 4], 1.0)
        np.testing.assert_array_equal(np.asarray(w.grad), want)
    with pytest.raises(ValueError, match=r"padding_idx must be an int in \[-5, 5\)"):
        F.embedding(strided.asarray(idx), strided.asarray(table), padding_idx=5)


def test_loss_errors():
    x = strided.zeros((2, 3))
    with pytest.raises(IndexError, match="target holds class 3, outside 0..2"):
        F.cross_entropy(x, strided.asarray([0, 3]))
    with pytest.raises(IndexError, match="target holds class -1, outside 0..2"):
        F.cross_entropy(x, strided.asarray([-1, -100]))  # -100 is ignored; -1 is not
    with pytest.raises(ValueError, match=r"target of class indices of shape \(2,\)"):
        F.cross_entropy(x, strided.asarray([0, 1, 2]))
    with pytest.raises(ValueError, match="reduction must be"):
        F.mse_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match="differ"):
        F.mse_loss(x, strided.zeros(3))


def test_mse_and_bce_with_logits(rng):
    x, t = rng.standard_normal((4, 3)) * 30, rng.random((4, 3))
    np.testing.assert_allclose(
        float(F.mse_loss(strided.asarray(x), strided.asarray(t))), ((x - t) ** 2).mean()
    )
    sig = 1 / (1 + np.exp(-x.clip(-700, 700)))
    with np.errstate(divide="ignore"):
        naive = -(t * np.log(sig) + (1 - t) * np.log1p(-sig))
    stable = np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))
    got = np.asarray(
        F.binary_cross_entropy_with_logits(strided.asarray(x), strided.asarray(t), reduction="none")
    )
    np.testing.assert_allclose(got, stable, rtol=1e-12)
    ok = np.abs(x) < 10  # where the naive formula is still accurate
    np.testing.assert_allclose(got[ok], naive[ok], rtol=1e-6, atol=1e-9)
    assert np.isfinite(got).all()  # where the naive formula overflows
    x2 = s64(rng.standard_normal((3, 2)))
    t2, pw = strided.asarray(rng.random((3, 2))), strided.asarray([2.0, 0.5])
    assert gradcheck(lambda a: F.binary_cross_entropy_with_logits(a, t2, pos_weight=pw), (x2,))
    assert gradcheck(lambda a: F.mse_loss(a, t2), (x2,))


def test_norms_match_numpy(rng):
    x = rng.standard_normal((5, 3, 4))
    w, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    mean = x.mean(axis=(1, 2), keepdims=True)
    var = x.var(axis=(1, 2), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * w + b
    got = F.layer_norm(strided.asarray(x), (3, 4), strided.asarray(w), strided.asarray(b))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10)
    assert gradcheck(
        lambda a, w, b: F.layer_norm(a, (4,), w, b), (s64(x[:2]), s64(w[0]), s64(b[0]))
    )
    rm, rv = strided.zeros(3, dtype="float64"), strided.ones(3, dtype="float64")
    got = F.batch_norm(strided.asarray(x), rm, rv, training=True, momentum=0.1)
    bm = x.mean(axis=(0, 2), keepdims=True)
    bv = x.var(axis=(0, 2), keepdims=True)
    np.testing.assert_allclose(np.asarray(got), (x - bm) / np.sqrt(bv + 1e-5), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(rm), 0.1 * bm.reshape(3))
    np.testing.assert_allclose(np.asarray(rv), 0.9 + 0.1 * x.var(axis=(0, 2), ddof=1))
    assert gradcheck(
        lambda a, w, b: F.batch_norm(a, None, None, w, b, training=True),
        (s64(x[:3, :, :2]), s64(w[:, 0]), s64(b[:, 0])),
    )


# -- PyTorch, forward and gradients ------------------------------------------------------------

TORCH_CASES = [
    (
        "conv2d",
        lambda F, x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
        [(2, 3, 7, 7), (4, 3, 3, 3), (4,)],
    ),
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 3, 2, 1), [(2, 3, 7, 6)]),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 2), [(2, 3, 6, 6)]),
    ("linear", lambda F, x, w, b: F.linear(x, w, b), [(5, 3), (4, 3), (4,)]),
    ("gelu", lambda F, x: F.gelu(x), [(4, 5)]),
    ("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh"), [(4, 5)]),
    ("softmax", lambda F, x: F.softmax(x, 1), [(4, 5)]),
    ("layer_norm", lambda F, x, w, b: F.layer_norm(x, (5,), w, b), [(4, 5), (5,), (5,)]),
    ("mse", lambda F, x, t: F.mse_loss(x, t), [(4, 5), (4, 5)]),
    (
        "bce_logits",
        lambda F, x, t: F.binary_cross_entropy_with_logits(x, t.sigmoid()),
        [(4, 5), (4, 5)],
    ),
]


@needs_torch
@pytest.mark.parametrize("name,fn,shapes", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_against_torch(rng, name, fn, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [s64(a) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = fn(F, *ours)
    ref = fn(TF, *theirs)
    np.testing.assert_allclose(
        np.asarray(out.detach()), ref.detach().numpy(), rtol=1e-9, atol=1e-12
    )
    g = rng.standard_normal(tuple(ref.shape))
    out.backward(strided.asarray(g))
    ref.backward(torch.tensor(g))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(a.grad), b.grad.numpy(), rtol=1e-8, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_against_torch(rng, smoothing, reduction, weighted):
    x = rng.standard_normal((6, 4, 3))
    y = rng.integers(0, 4, (6, 3))
    y[1, 2] = y[4, 0] = -100
    w = rng.uniform(0.5, 2.0, 4) if weighted else None
    ours = s64(x)
    theirs = torch.tensor(x, requires_grad=True)
    a = F.cross_entropy(
        ours, strided.asarray(y), None if w is None else strided.asarray(w),
        reduction=reduction, label_smoothing=smoothing,
    )  # fmt: skip
    b = TF.cross_entropy(
        theirs, torch.tensor(y), None if w is None else torch.tensor(w),
        reduction=reduction, label_smoothing=smoothing,
    )  # fmt: skip
    np.testing.assert_allclose(np.asarray(a.detach()), b.detach().numpy(), rtol=1e-12)
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_allclose(np.asarray(ours.grad), theirs.grad.numpy(), rtol=1e-10)


@needs_torch
def test_batch_norm_against_torch(rng):
    x = rng.standard_normal((8, 3, 4))
    rm, rv = strided.zeros(3, dtype="float64"), strided.ones(3, dtype="float64")
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    ours, theirs = s64(x), torch.tensor(x, requires_grad=True)
    a = F.batch_norm(ours, rm, rv, training=True)
    b = TF.batch_norm(theirs, trm, trv, training=True)
    np.testing.assert_allclose(np.asarray(a.detach()), b.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(rm), trm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(rv), trv.numpy(), rtol=1e-12)
    (a * a * a).sum().backward()
    (b * b * b).sum().backward()
    np.testing.assert_allclose(np.asarray(ours.grad), theirs.grad.numpy(), rtol=1e-8, atol=1e-10)


def _layer_norm_by_ops(x, k, w, b, eps):
    """F.layer_norm as the separate ops (Note [Layer norm rows] in _cpu/reduce.pyx.tp)."""
    dims = tuple(range(x.ndim - k, x.ndim))
    mean = strided.mean(x, axis=dims, keepdims=True)
    out = (x - mean) / strided.sqrt(strided.var(x, axis=dims, keepdims=True) + eps)
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize(
    "layout", ["contiguous", "transposed", "stepped", "negative-stride", "expanded", "empty"]
)
def test_layer_norm_rows_are_the_ops_bit_for_bit(layout, k, dtype, rng):
    # Note [Layer norm rows]: without a graph to record, layer norm over contiguous trailing
    # dims runs one pass per row; every other case runs the ops. The values are the same bits
    # either way, with and without weight and bias, and with a weight that is not contiguous.
    from layouts import make_layout

    ref = (rng.standard_normal((4, 3, 37)) * 3 + 2).astype(dtype)
    ref[0, 1, 5] = np.nan
    ref[1, 2, :] = 7.0  # a constant row: variance 0
    x = make_layout(layout, ref, rng)[0]
    shape = tuple(x.shape[x.ndim - k :])
    w = strided.asarray(rng.standard_normal(shape).astype(dtype))
    b = strided.asarray(rng.standard_normal(shape).astype(dtype))
    w_stepped = strided.asarray(rng.standard_normal((2,) + shape).astype(dtype))[1]
    w_t = strided.asarray(rng.standard_normal(shape[::-1]).astype(dtype)).T
    for weight, bias in [(None, None), (w, None), (None, b), (w, b), (w_stepped, b), (w_t, b)]:
        got = F.layer_norm(x, shape, weight, bias, eps=1e-3)
        assert got.shape == x.shape and got.dtype == x.dtype
        if x.numel() == 0:
            continue
        want = _layer_norm_by_ops(x, k, weight, bias, 1e-3)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    # with a graph to record, the ops (and their backward) run: the same values again
    # (of a contiguous copy: the ops' sums over another layout may add in another order)
    xc = strided.tensor(x.numpy())
    got = F.layer_norm(strided.tensor(x.numpy(), requires_grad=True), shape, w, b, eps=1e-3)
    np.testing.assert_array_equal(got.detach().numpy(), F.layer_norm(xc, shape, w, b, 1e-3).numpy())


def test_layer_norm_rows_match_torch_and_threads(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((300, 200)).astype(np.float32)
    w = rng.standard_normal(200).astype(np.float32)
    b = rng.standard_normal(200).astype(np.float32)
    before = strided.get_num_threads()
    try:
        results = []
        for threads in (1, 2):
            strided.set_num_threads(threads)
            results.append(
                F.layer_norm(strided.asarray(a), (200,), strided.asarray(w), strided.asarray(b))
            )
    finally:
        strided.set_num_threads(before)
    np.testing.assert_array_equal(results[0].numpy(), results[1].numpy())
    want = torch.nn.functional.layer_norm(
        torch.from_numpy(a), (200,), torch.from_numpy(w), torch.from_numpy(b)
    )
    np.testing.assert_allclose(results[0].numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize(
    "layout", ["contiguous", "transposed", "stepped", "negative-stride", "expanded", "empty"]
)
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_one_op_gradients_match_torch(layout, k, dtype, affine, rng):
    # Note [Layer norm as one op]: with a graph recorded, layer norm is one op whose backward
    # runs one pass per row (or the formulas as ops where the kernel does not apply); its
    # values are the ops' and its gradients PyTorch's, on every layout of x, with an incoming
    # gradient that is a tensor of x's shape and one that is expanded (``.sum()``'s)
    torch = pytest.importorskip("torch")
    from layouts import make_layout

    tol = 1e-5 if dtype == "float32" else 1e-12
    ref = (rng.standard_normal((4, 3, 37)) * 3 + 2).astype(dtype)
    x0 = make_layout(layout, ref, rng)[0]
    shape = tuple(x0.shape[x0.ndim - k :])
    w_np = rng.standard_normal(shape).astype(dtype)
    b_np = rng.standard_normal(shape).astype(dtype)
    c_np = rng.standard_normal(tuple(x0.shape)).astype(dtype)
    for weighted in (True, False):
        x = x0.detach().requires_grad_()
        w = strided.tensor(w_np).requires_grad_() if affine != "none" else None
        b = strided.tensor(b_np).requires_grad_() if affine == "both" else None
        y = F.layer_norm(x, shape, w, b, eps=1e-3)
        assert y.grad_fn.op == "nn::layer_norm"
        (y * strided.asarray(c_np) if weighted else y).sum().backward()
        tx = torch.tensor(x0.numpy().copy(), requires_grad=True)
        tw = torch.tensor(w_np, requires_grad=True) if w is not None else None
        tb = torch.tensor(b_np, requires_grad=True) if b is not None else None
        ty = torch.nn.functional.layer_norm(tx, shape, tw, tb, eps=1e-3)
        (ty * torch.tensor(c_np) if weighted else ty).sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
        for ours, theirs in ((x, tx), (w, tw), (b, tb)):
            if ours is not None:
                assert ours.grad.shape == ours.shape
                np.testing.assert_allclose(
                    ours.grad.numpy(), theirs.grad.numpy(), rtol=tol, atol=10 * tol
                )


def test_layer_norm_one_op_backward_kernel_and_formulas_agree(rng):
    # the backward's kernel (no graph recorded) against its formulas as ops (create_graph),
    # and at 1 and 2 threads (whole rows go to threads, the weight's and the bias's sums are
    # made over blocks of rows fixed by the shape: the same bits); 301 rows, a last block of 13
    a = rng.standard_normal((301, 400)).astype(np.float32)
    w = strided.asarray(rng.standard_normal(400).astype(np.float32)).requires_grad_()
    b = strided.asarray(rng.standard_normal(400).astype(np.float32)).requires_grad_()
    c = strided.asarray(rng.standard_normal((301, 400)).astype(np.float32))
    before = strided.get_num_threads()
    grads = []
    try:
        for threads, create_graph in ((1, False), (2, False), (1, True)):
            strided.set_num_threads(threads)
            x = strided.asarray(a).requires_grad_()
            loss = (F.layer_norm(x, (400,), w, b) * c).sum()
            grads.append(strided.autograd.grad(loss, (x, w, b), create_graph=create_graph))
    finally:
        strided.set_num_threads(before)
    for g1, g2 in zip(grads[0], grads[1], strict=True):
        np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    for g1, g3 in zip(grads[0], grads[2], strict=True):
        np.testing.assert_allclose(g1.numpy(), g3.detach().numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("k", [1, 2])
def test_layer_norm_one_op_gradcheck_and_double_backward(k, rng):
    from strided.autograd import gradgradcheck

    x = s64(rng.standard_normal((3, 4, 5)))
    shape = tuple(x.shape[3 - k :])
    w, b = s64(rng.standard_normal(shape)), s64(rng.standard_normal(shape))
    for fn, args in [
        (lambda x, w, b: F.layer_norm(x, shape, w, b), (x, w, b)),
        (lambda x: F.layer_norm(x, shape), (x,)),
        (lambda x: F.layer_norm(x[..., ::-1], shape), (x,)),  # rows not contiguous
    ]:
        assert gradcheck(fn, args)
        assert gradgradcheck(fn, args)


def np_gelu(x, approximate):
    """gelu and its derivative in float64, in forms that do not cancel (the references of Note
    [gelu's lanes] in strided/_cpu/gelu.h)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        if approximate == "tanh":
            k = math.sqrt(2 / math.pi)
            v = 2 * k * (x + 0.044715 * x**3)
            e = np.exp(-np.abs(v))
            s = np.where(v < 0, e, 1.0) / (1 + e)
            return x * s, s + x * 2 * e / (1 + e) ** 2 * k * (1 + 3 * 0.044715 * x * x)
        special = pytest.importorskip("scipy.special")
        cdf = 0.5 * special.erfc(-x / math.sqrt(2))
        return x * cdf, cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


_LD = np.longdouble


def ld_gelu(x):
    """gelu(x) = x Phi(x) and its derivative Phi(x) + x phi(x) in long double for float64 x (the
    float64 erf form's oracle, within 0.06 of a float64 ulp of mpmath at 50 digits): Phi(-b) =
    1/2 - phi(b) sum b^(2n+1) / (2n+1)!! below b = 2.125 (positive terms), else phi(b) / (b +
    1/(b + 2/(b + 3/...))) (the Mills ratio's continued fraction, from a level deep enough for
    its band back); exp(-b^2 / 2) with b split so that no rounding of b^2 enters it."""
    x = np.asarray(x, dtype=np.float64)
    b = np.abs(np.where(np.isfinite(x), x, 0.0))
    hi = (b.view(np.uint64) & np.uint64(0xFFFFFFFFF8000000)).view(np.float64)
    h, lo = hi.astype(_LD), b - hi
    pdf = np.exp(-(h * h) / 2) * np.exp(-(h * lo + _LD(lo) * lo / 2))
    pdf *= _LD("0.398942280401432677939946059934381868")
    tail = np.empty(b.shape, _LD)
    small = b < 2.125
    s = b[small].astype(_LD)
    term, total = s.copy(), s.copy()
    for n in range(1, 60):
        term = term * (s * s) / (2 * n + 1)
        total += term
    tail[small] = _LD(0.5) - pdf[small] * total
    for lo_, hi_, levels in ((2.125, 2.875, 300), (2.875, 4.25, 150), (4.25, 6, 80), (6, 1e3, 40)):
        part = (b >= lo_) & (b < hi_)
        s = b[part].astype(_LD)
        t = s.copy()
        for n in range(levels, 0, -1):
            t = s + _LD(n) / t
        tail[part] = pdf[part] / t
    xl = x.astype(_LD)
    with np.errstate(all="ignore"):
        far = np.where(x > 0, x, np.nan)  # inf, and NaN for -inf and NaN (x * 0)
        gelu = np.where(np.isfinite(x), np.where(x < 0, xl * tail, xl - xl * tail), far)
        return gelu, np.where(x < 0, tail, 1 - tail) + xl * pdf


# Note [gelu's lanes]'s bounds. The float64 erf form: in ulp of gelu itself, against ld_gelu
# (measured 0.78 at x86-64-v3 and v4, 0.75 at v2). The others (measured: float32 erf 2.8 and
# 4.6 at x86-64-v4, 3.5 and 5.7 at v2; float32 tanh 2.4; float64 tanh 3): in ulp of gelu for
# x >= 0, of |x| / 2 for x < 0 (where 1 + erf cancels, as in the ops' form), against float64.
# The derivatives in ulp of 1, their scale (measured: float32 1.76 at v3/v4, 1.96 at v2;
# float64 erf 1.32 against ld_gelu's; float64 tanh 2.0 against a float64 reference)
GELU_ULP = {
    ("none", "float32"): 6.0,
    ("none", "float64"): 1.0,
    ("tanh", "float32"): 6.0,
    ("tanh", "float64"): 4.0,
}
GELU_GRAD_ULP = {
    ("none", "float32"): 2.5,
    ("none", "float64"): 1.5,
    ("tanh", "float32"): 2.5,
    ("tanh", "float64"): 3.0,
}


def assert_gelu_close(got, x, approximate, dtype):
    x = np.asarray(x, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    if approximate == "none" and dtype == "float64":
        want, _ = ld_gelu(x)
        scale = np.abs(want.astype(np.float64))
    else:
        want, _ = np_gelu(x, approximate)
        scale = np.where(x < 0, np.abs(x) / 2, np.abs(want)).astype(dtype)
    ulp = np.spacing(np.maximum(scale, np.finfo(dtype).smallest_subnormal)).astype(want.dtype)
    same = (np.isnan(got) & np.isnan(want)) | (got == want)
    with np.errstate(invalid="ignore"):
        err = np.where(same, 0.0, np.abs(got - want) / ulp)
    worst = np.nanmax(err, initial=0.0)
    assert worst <= GELU_ULP[approximate, dtype], (worst, x[np.nanargmax(err)])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_gelu_one_loop_values_and_layout(layout, dtype, approximate, rng):
    # Note [gelu as one op]: without a graph, one loop; with one, the op nn::gelu, whose
    # forward is the same loop: the same values, the ops' output layout
    from layouts import make_layout

    ref = (rng.standard_normal((4, 3, 37)) * 4).astype(dtype)
    ref[0, 0, :9] = [
        np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        np.finfo(dtype).smallest_subnormal,
        -20.0,
        20.0,
        -5.6,
    ]
    x = make_layout(layout, ref, rng)[0]
    got = F.gelu(x, approximate=approximate)
    ops = x * 0.5 * (1.0 + strided.erf(x * (1 / math.sqrt(2))))
    assert got.shape == ops.shape and got.dtype == ops.dtype
    assert got.strides == ops.strides or x.numel() == 0
    assert_gelu_close(got.numpy(), x.numpy(), approximate, dtype)
    if approximate == "none":  # the ops' specials: gelu(inf) = inf, gelu(-inf) = NaN (x * 0)
        np.testing.assert_array_equal(np.isnan(got.numpy()), np.isnan(ops.numpy()))
    xg = strided.tensor(x.numpy(), requires_grad=True)
    yg = F.gelu(xg, approximate=approximate)
    assert yg.grad_fn is not None
    np.testing.assert_array_equal(yg.detach().numpy(), got.numpy())


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_strided_blocks_equal_the_contiguous_loop(dtype, approximate, rng):
    # Note [gelu as one op]: strided operands go through blocks of GELU_BLOCK (256) elements,
    # reversed runs copied as one: the same function, so the contiguous loop's values, over
    # several blocks and a partial last one
    from strided._cpu import unary

    tanh = approximate == "tanh"
    a = (rng.standard_normal(2 * 1000 + 1) * 4).astype(dtype)
    g = rng.standard_normal(2 * 1000 + 1).astype(dtype)
    for view in (np.s_[::2], np.s_[::-1], np.s_[-2::-2]):
        x, gx = strided.asarray(a)[view], strided.asarray(g)[view]
        xc, gc = strided.asarray(a[view].copy()), strided.asarray(g[view].copy())
        np.testing.assert_array_equal(unary.gelu(x, tanh).numpy(), unary.gelu(xc, tanh).numpy())
        np.testing.assert_array_equal(
            unary.gelu_backward(gx, x, tanh).numpy(), unary.gelu_backward(gc, xc, tanh).numpy()
        )
        np.testing.assert_array_equal(  # strided x, contiguous grad
            unary.gelu_backward(gc, x, tanh).numpy(), unary.gelu_backward(gc, xc, tanh).numpy()
        )


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_accuracy_and_derivative_on_many_points(dtype, approximate):
    # Note [gelu's lanes]: float32 every 251st float of |x| < 12 (8.7e6), float64 1e6 points
    from strided._cpu import unary

    if dtype == "float32":
        half = np.arange(0, 0x41400000, 251, dtype=np.uint32).view(np.float32)
        x = np.concatenate([half, -half])
    else:  # and for the erf form the far tail, to the subnormal results and 0 (x < -38.5)
        rng = np.random.default_rng(5)
        x = [rng.uniform(-14, 14, 500_000), rng.standard_normal(500_000)]
        if approximate == "none":
            x += [rng.uniform(-40, -14, 100_000), rng.uniform(-1, 1, 100_000)]
        x = np.concatenate(x)
    tanh = approximate == "tanh"
    xs = strided.asarray(x)
    assert_gelu_close(unary.gelu(xs, tanh).numpy(), x, approximate, dtype)
    _, want = ld_gelu(x) if (approximate, dtype) == ("none", "float64") else np_gelu(x, approximate)
    got = unary.gelu_backward(strided.ones_like(xs), xs, tanh).numpy()
    err = np.abs(got.astype(want.dtype) - want) / float(np.finfo(dtype).eps)
    assert np.max(err) <= GELU_GRAD_ULP[approximate, dtype], (np.max(err), x[np.argmax(err)])


def test_gelu_float64_tail_and_specials():
    # Note [gelu's lanes]: float64's erf form to the subnormal results (from x = -37.5) and
    # past them; |x| >= 38.8 gives x or x * 0 (-0, NaN for -inf), -0 stays -0
    from strided._cpu import unary

    x = np.array(
        [-np.inf, -1e300, -40.0, -38.8, -38.79, -38.5, -38.0, -37.5, -20.0, -5e-324, -0.0, 0.0]
        + [5e-324, 2.2250738585072014e-308, 1e-300, 0.3, 5.0, 38.79, 38.8, 1e300, np.inf, np.nan]
    )
    got = unary.gelu(strided.asarray(x), False).numpy()
    assert_gelu_close(got, x, "none", "float64")
    np.testing.assert_array_equal(got[[1, 2, 3, -3, -4]], [0.0, 0.0, 0.0, 1e300, 38.8])
    assert np.all(np.signbit(got[[1, 2, 3, 10]])) and not np.signbit(got[11])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(x) | (x == -np.inf))
    assert got[-2] == np.inf and 0 > got[6] > -np.finfo(np.float64).tiny  # subnormal


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_gelu_gradient_against_torch(layout, dtype, approximate, rng):
    # Note [gelu as one op]: the backward in one loop (grad * gelu'(x)), any layout of x, the
    # incoming gradient weighted or expanded (that of a sum)
    torch = pytest.importorskip("torch")
    from layouts import make_layout

    ref = (rng.standard_normal((4, 3, 37)) * 3).astype(dtype)
    x = make_layout(layout, ref, rng)[0]
    # PyTorch's float64 gradient on the same values (its float32 one is within 1e-6 of it,
    # strided's within 3 ulp of 1: Note [gelu's lanes]; PyTorch's own float64 tanh form, by
    # 1 - tanh^2, is within 22 ulp), and the float64 reference within 4 ulp
    _, dx = np_gelu(x.numpy(), approximate)
    xt = torch.tensor(x.numpy().astype(np.float64), requires_grad=True)
    yt = TF.gelu(xt, approximate=approximate)
    eps = float(np.finfo(dtype).eps)
    for weighted in (True, False):
        xg = strided.tensor(x.numpy(), requires_grad=True)
        y = F.gelu(xg, approximate=approximate)
        if weighted:
            g = rng.standard_normal(tuple(x.shape)).astype(dtype)
            y.backward(strided.asarray(g))
            (gt,) = torch.autograd.grad(yt, xt, torch.tensor(g.astype(np.float64)), True)
            scale, d = np.abs(g), dx * g
        else:
            y.sum().backward()
            (gt,) = torch.autograd.grad(yt.sum(), xt, retain_graph=True)
            scale, d = 1.0, dx
        assert xg.grad.dtype == xg.dtype and xg.grad.shape == xg.shape
        got = xg.grad.numpy().astype(np.float64)
        err = np.abs(got - gt.numpy())
        assert np.all(err <= (4 if dtype == "float32" else 64) * eps * (scale + np.abs(d)))
        assert np.all(np.abs(got - d) <= 4 * eps * (scale + np.abs(d)))
    assert_gelu_close(y.detach().numpy(), x.numpy(), approximate, dtype)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_one_op_gradcheck_and_double_backward(approximate, rng):
    # Note [gelu as one op]: under create_graph the derivative row runs as public ops
    from strided.autograd import gradgradcheck

    x = s64(rng.standard_normal((3, 4, 5)) * 2)
    for fn in (
        lambda x: F.gelu(x, approximate=approximate),
        lambda x: F.gelu(x[..., ::-1].transpose(0, 2, 1), approximate=approximate),
    ):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_gelu_other_dtypes_and_bad_form():
    # float16 and bfloat16 run the ops (computed in float32, rounded once per op)
    x = strided.asarray(np.linspace(-3, 3, 13), dtype="float16")
    want = x * 0.5 * (1.0 + strided.erf(x * (1 / math.sqrt(2))))
    np.testing.assert_array_equal(F.gelu(x).numpy(), want.numpy())
    with pytest.raises(ValueError, match="approximate must be 'none' or 'tanh'"):
        F.gelu(x, approximate="sigmoid")
