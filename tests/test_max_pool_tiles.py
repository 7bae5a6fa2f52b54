"""Max pooling over tiles in one pass (Note [Max pooling over tiles in one pass] in
strided/_cpu/conv.pyx): the kernels against max's ops through the tiles view, value for value
and in the same layout, on every layout of x and of the gradient, with ties, NaN, +-inf and
uncovered rows and columns; the op's graph (backward, double backward, gradcheck); which
tensors F.max_pool2d sends to it."""

import numpy as np
import pytest

import strided
from strided._cpu import conv as _kernels
from strided.autograd import formulas, gradcheck
from strided.autograd.grad_mode import enable_grad
from strided.nn import functional as F
from strided.nn.functional.conv import _tiles


def _cl(a):
    """a (N, C, H, W) as a channels-last tensor."""
    return strided.permute(
        strided.asarray(np.ascontiguousarray(a.transpose(0, 2, 3, 1))), (0, 3, 1, 2)
    )


def _layouts(a):
    """Every layout of x: the kernels take any strides (F.max_pool2d sends channels-last)."""
    yield "contiguous", strided.asarray(a)
    yield "channels-last", _cl(a)
    yield "negative", strided.asarray(a[:, ::-1, ::-1].copy())[:, ::-1, ::-1]
    yield "channels-last negative", _cl(a[:, :, ::-1].copy())[:, :, ::-1]
    yield "stepped", strided.asarray(np.repeat(a, 2, axis=1))[:, ::2]
    yield "channels-last stepped", _cl(np.repeat(a, 2, axis=3))[:, :, :, ::2]
    yield (
        "transposed",
        strided.permute(
            strided.asarray(np.ascontiguousarray(a.transpose(1, 0, 3, 2))), (1, 0, 3, 2)
        ),
    )
    yield "expanded", strided.broadcast_to(strided.asarray(a[:1]), a.shape)


def _ops(x, k):
    """The ops the kernels replace: max over the tiles view."""
    return strided.max(_tiles(x, k, None, 0, 1, "max_pool2d"), axis=(3, 5))


def _ops_grad(grad, x, k):
    """max's own backward rule through the tiles view, zeros where no window reaches."""
    n, c, h, w = x.shape
    ho, wo = h // k[0], w // k[1]
    t = _tiles(x, k, None, 0, 1, "max_pool2d")
    with enable_grad():
        share = formulas.max_min_backward(grad, t, strided.max(t, axis=(3, 5)), (3, 5), False)
    out = np.zeros(x.shape, dtype=share.dtype.name)
    out[:, :, : ho * k[0], : wo * k[1]] = np.asarray(share).reshape(n, c, ho * k[0], wo * k[1])
    return out


def _values(rng, shape, dtype):
    """Small integers (ties in most windows), a NaN, +-inf, -0.0 beside 0.0."""
    a = rng.integers(-2, 3, shape).astype(dtype)
    if a.size:
        flat = a.reshape(-1)
        flat[rng.integers(0, flat.size, 4)] = [np.nan, np.inf, -np.inf, -0.0]
    return a


SHAPES = [
    ((3, 16, 8, 8), (2, 2)),  # the digits CNN's first pooling
    ((2, 5, 7, 9), (2, 3)),  # rows and columns in no window
    ((2, 70, 6, 6), (3, 2)),  # more channels than a block of lanes (64)
    ((1, 3, 4, 4), (1, 1)),
    ((2, 1, 6, 6), (2, 2)),  # one channel: the lanes are the output columns
    ((0, 3, 4, 4), (2, 2)),
    ((2, 0, 4, 4), (2, 2)),
]


@pytest.mark.filterwarnings("ignore:divide by zero")  # the ops' count of a NaN window is 0
@pytest.mark.filterwarnings("ignore:invalid value")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, k", SHAPES)
def test_kernels_match_the_ops(dtype, shape, k):
    rng = np.random.default_rng(shape[1] * 10 + k[0])
    a = _values(rng, shape, dtype)
    for layout, x in _layouts(a):
        got = _kernels.max_pool2d_tiles(x, *k)
        want = _ops(x, k)
        assert got.dtype == x.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=layout)
        # the result in x's memory order, as the reduction lays it out (size-1 dims aside)
        assert got.size == 0 or all(
            s == t or n == 1 for s, t, n in zip(got.stride(), want.stride(), got.shape, strict=True)
        ), layout
        g = rng.standard_normal(got.shape).astype(dtype)
        for g_layout, grad in (
            ("contiguous", strided.asarray(g)),
            ("channels-last", _cl(g)),
            ("expanded", strided.broadcast_to(strided.asarray(g[:1, :1]), g.shape)),
        ):
            gx = _kernels.max_pool2d_tiles_backward(grad, x, *k)
            assert gx.shape == x.shape and gx.dtype == x.dtype
            np.testing.assert_array_equal(
                np.asarray(gx), _ops_grad(grad, x, k), err_msg=f"{layout}, grad {g_layout}"
            )


def test_signed_zero_and_nan_windows():
    """The first of tied zeros wins, as the reduction's; a NaN window's maximum is NaN and its
    gradient all zeros; an all-minus-infinity window's is -inf, shared by all four."""
    a = np.array([[[[-0.0, 0.0, np.nan, 1.0], [0.0, -0.0, 2.0, 3.0]]]] * 2, dtype=np.float32)
    a = np.concatenate([a, np.full_like(a, -np.inf)], axis=1)  # (2, 2, 2, 4)
    x = _cl(a)
    y = _kernels.max_pool2d_tiles(x, 2, 2)
    assert np.signbit(np.asarray(y)[0, 0, 0, 0])  # -0.0, the first tap
    assert np.isnan(np.asarray(y)[0, 0, 0, 1])
    assert np.asarray(y)[0, 1, 0, 0] == -np.inf
    ones = strided.ones(y.shape, dtype="float32")
    gx = np.asarray(_kernels.max_pool2d_tiles_backward(ones, x, 2, 2))
    assert np.array_equal(gx[0, 0, :, :2], [[0.25, 0.25], [0.25, 0.25]])  # four tied zeros
    assert np.array_equal(gx[0, 0, :, 2:], [[0, 0], [0, 0]])  # the NaN window
    assert np.array_equal(gx[0, 1], np.full((2, 4), 0.25))


@pytest.mark.filterwarnings("ignore:divide by zero")  # the ops' count of a NaN window is 0
@pytest.mark.filterwarnings("ignore:invalid value")
@pytest.mark.parametrize("threads", [1, 2])
def test_threads_give_the_same_values(threads):
    rng = np.random.default_rng(3)
    a = _values(rng, (32, 16, 16, 16), np.float32)  # past the serial bound
    x = _cl(a)
    g = strided.asarray(rng.standard_normal((32, 16, 8, 8)).astype(np.float32))
    with _threads(threads):
        y = _kernels.max_pool2d_tiles(x, 2, 2)
        gx = _kernels.max_pool2d_tiles_backward(g, x, 2, 2)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(_ops(x, (2, 2))))
    np.testing.assert_array_equal(np.asarray(gx), _ops_grad(g, x, (2, 2)))


class _threads:
    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.old = strided.get_num_threads()
        strided.set_num_threads(self.n)

    def __exit__(self, *exc):
        strided.set_num_threads(self.old)


def test_max_pool2d_routes_channels_last_float_tensors_to_the_op():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 4, 6, 6))
    calls = []
    real = _kernels.max_pool2d_tiles

    def spy(x, kh, kw):
        calls.append(x.shape)
        return real(x, kh, kw)

    _kernels.max_pool2d_tiles = spy
    try:
        F.max_pool2d(_cl(a), 2)  # channels-last float64: the kernel
        F.max_pool2d(_cl(a.astype(np.float32)), 3)
        assert len(calls) == 2
        F.max_pool2d(strided.asarray(a), 2)  # channels-first: the reduction
        F.max_pool2d(_cl(a), 2, stride=1)  # overlapping windows: the window view
        F.max_pool2d(_cl(a.astype(np.float16)), 2)  # half: the reduction
        assert len(calls) == 2
    finally:
        _kernels.max_pool2d_tiles = real


@pytest.mark.parametrize("shape, k", [((2, 3, 6, 6), (2, 2)), ((2, 4, 7, 5), (2, 2))])
def test_the_op_backward_double_backward_and_gradcheck(shape, k):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape)  # unique maxima: the gradient is smooth around them
    x = _cl(a).requires_grad_()
    y = F.max_pool2d(x, k)
    assert y.grad_fn.name() == "Nn::maxPool2dTilesBackward"  # the op, not max through a view
    g = strided.asarray(rng.standard_normal(tuple(y.shape)))
    (y * g).sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), _ops_grad(g, x.detach(), k))
    assert gradcheck(lambda t: F.max_pool2d(t, k), (x,))
    # create_graph: the backward is recorded as ops, so a second derivative exists (it is 0:
    # the gradient is piecewise constant in x, linear in the incoming gradient)
    x.grad = None
    gg = g.clone().requires_grad_()
    (gx,) = strided.autograd.grad((F.max_pool2d(x, k) * gg).sum(), x, create_graph=True)
    np.testing.assert_array_equal(np.asarray(gx.detach()), _ops_grad(g, x.detach(), k))
    (ggrad,) = strided.autograd.grad((gx * gx).sum(), gg)
    assert ggrad.shape == gg.shape and np.isfinite(np.asarray(ggrad)).all()


def test_leaf_gradient_is_not_the_callers_tensor():
    """backward(g) of a leaf keeps a copy of g in .grad, not g itself (writing into one must not
    change the other), as PyTorch's AccumulateGrad copies a gradient someone else holds."""
    x = strided.ones(3).requires_grad_()
    g = strided.asarray([1.0, 2.0, 3.0])
    x.backward(g)
    assert x.grad is not g
    g[0] = 100.0
    assert np.array_equal(np.asarray(x.grad), [1.0, 2.0, 3.0])
    y = strided.ones(3).requires_grad_()
    (y * 2).backward(g)  # a fresh gradient is kept as it is
    assert np.array_equal(np.asarray(y.grad), [200.0, 4.0, 6.0])


def test_bad_input_is_refused_before_any_read():
    x = _cl(np.zeros((2, 3, 4, 4), np.float32))
    y = _kernels.max_pool2d_tiles(x, 2, 2)
    with pytest.raises(ValueError, match="x's dtype"):
        _kernels.max_pool2d_tiles_backward(strided.ones(y.shape), x, 2, 2)  # float64 grad
    with pytest.raises(ValueError, match="result's shape"):
        _kernels.max_pool2d_tiles_backward(strided.ones((2, 3, 1, 2), dtype="float32"), x, 2, 2)
    with pytest.raises(TypeError, match="4-d float32 or float64"):
        _kernels.max_pool2d_tiles(strided.zeros((2, 3, 4), dtype="float32"), 2, 2)
    with pytest.raises(TypeError, match="4-d float32 or float64"):
        _kernels.max_pool2d_tiles(strided.zeros((2, 3, 4, 4), dtype="int32"), 2, 2)
    with pytest.raises(ValueError, match="must be at least 1 and fit"):
        _kernels.max_pool2d_tiles(x, 5, 1)
    with pytest.raises(ValueError, match="must be at least 1 and fit"):
        _kernels.max_pool2d_tiles(x, 0, 1)


def test_a_leaf_keeps_a_gradient_laid_out_as_itself():
    """A fresh gradient dense in the leaf's own strides becomes its .grad without a copy (a
    channels-last input's gradient stays channels-last, as PyTorch's layout contract has it);
    one in other strides is copied C-contiguous, as before."""
    rng = np.random.default_rng(6)
    x = _cl(rng.standard_normal((2, 3, 4, 4))).requires_grad_()
    F.max_pool2d(x, 2).sum().backward()
    assert x.grad.stride() == x.stride()
    np.testing.assert_array_equal(
        np.asarray(x.grad), _ops_grad(strided.ones((2, 3, 2, 2)), x.detach(), (2, 2))
    )
    u = strided.asarray(rng.standard_normal((3, 4))).requires_grad_()
    (u.T * 2).sum().backward()  # a gradient reaching u through a view: copied, C-contiguous
    assert u.grad.is_contiguous()
