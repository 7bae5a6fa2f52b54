"""max/min's backward in one pass (Note [max's backward in one pass] in
strided/_cpu/reduce.pyx.tp): the same values as the four ops it replaces, on every layout and
set of dims, with ties and NaNs; gradcheck; max pooling's gradient against PyTorch."""

import numpy as np
import pytest

import strided
from strided._cpu import reduce as _reduce
from strided.autograd import formulas, gradcheck
from strided.autograd.grad_mode import enable_grad, no_grad
from strided.nn import functional as F


def _ops_road(grad, x, result, dims, keepdims):
    """The four-op formula (grad mode on: the road a double backward takes)."""
    with enable_grad():
        return formulas.max_min_backward(grad, x, result, dims, keepdims)


def _layouts(a):
    s = strided.asarray(a)
    yield "contiguous", s
    yield "transposed", strided.permute(strided.asarray(np.ascontiguousarray(a.T)), (2, 1, 0))
    yield "negative", strided.asarray(a[::-1].copy())[::-1]
    yield "stepped", strided.asarray(np.repeat(a, 2, axis=2))[:, :, ::2]


@pytest.mark.filterwarnings("ignore:divide by zero")  # the ops' count of a NaN group is 0
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dims", [(0,), (2,), (1, 2), (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_same_values_as_the_ops(dtype, dims, keepdims):
    rng = np.random.default_rng(len(dims) * 7 + keepdims)
    a = rng.integers(0, 3, (3, 4, 5)).astype(dtype)  # many ties
    a[1, 2, 3] = np.nan
    for layout, x in _layouts(a):
        for fn in (strided.max, strided.min):
            result = fn(x, axis=dims, keepdims=keepdims)
            grad = strided.asarray(rng.random(result.shape).astype(dtype))
            want = _ops_road(grad, x, result, dims, keepdims)
            with no_grad():
                got = formulas.max_min_backward(grad, x, result, dims, keepdims)
            assert got.dtype == x.dtype and got.shape == x.shape
            assert np.array_equal(got.numpy(), want.numpy(), equal_nan=True), (layout, fn)


def test_the_kernel_declines_what_it_does_not_do():
    x = strided.asarray(np.arange(6, dtype=np.int64).reshape(2, 3))
    r = strided.max(x, axis=1, keepdims=True)
    assert _reduce.max_backward(x, r, r, (1,)) is None  # integers
    x = strided.ones((2, 5000), dtype="float32")
    r = strided.max(x, axis=1, keepdims=True)
    assert _reduce.max_backward(x, r, r, (1,)) is None  # groups past MAX_BACKWARD_GROUP
    g = strided.ones((2, 1), dtype="float64")
    assert _reduce.max_backward(x, r, g, (1,)) is None  # mixed dtypes


def test_broadcast_gradient_and_whole_max():
    """A zero-stride gradient (from .sum()) and a max over every dim."""
    x = strided.asarray(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]])).requires_grad_()
    strided.max(x, axis=1).sum().backward()
    assert np.array_equal(x.grad.numpy(), [[0, 0.5, 0.5], [0, 0, 1]])
    x.grad = None
    strided.max(x).backward()
    assert np.array_equal(x.grad.numpy(), [[0, 0, 0], [0, 0, 1]])


def test_gradcheck():
    rng = np.random.default_rng(1)
    x = strided.asarray(rng.standard_normal((3, 4, 5))).requires_grad_()
    assert gradcheck(lambda t: strided.max(t, axis=(0, 2)), (x,))
    assert gradcheck(lambda t: strided.min(t, axis=1, keepdims=True), (x,))


@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("shape", [(4, 3, 8, 8), (2, 5, 7, 6)])
def test_max_pool_gradient_matches_pytorch(channels_last, shape):
    torch = pytest.importorskip("torch")  # CI has no PyTorch; NumPy checks the rest
    rng = np.random.default_rng(2)
    a = rng.standard_normal(shape).astype(np.float32)  # unique maxima
    x = strided.asarray(a)
    if channels_last:
        x = strided.permute(
            strided.asarray(np.ascontiguousarray(a.transpose(0, 2, 3, 1))), (0, 3, 1, 2)
        )
    x.requires_grad_()
    t = torch.from_numpy(a).requires_grad_()
    for k, s in ((2, None), (3, 2)):
        y = F.max_pool2d(x, k, s)
        ty = torch.nn.functional.max_pool2d(t, k, s)
        g = rng.random(tuple(y.shape)).astype(np.float32)
        (y * strided.asarray(g)).sum().backward()
        (ty * torch.from_numpy(g)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)
        x.grad = t.grad = None
