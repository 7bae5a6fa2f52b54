"""The outer strategy of argmax/argmin and max/min (Note [argmax over an outer dim] and Note
[Branch-free max rows] in strided/_cpu/reduce.pyx.tp) and PyTorch's max(dim=) in one pass
(Note [max(dim=) in one pass] in strided/_ops/reduction.py), against NumPy and PyTorch on
every layout, with NaNs and ties, at one and two threads."""

import numpy as np
import pytest

import strided

DTYPES = [np.float32, np.float64, np.int8, np.int64, np.uint16, np.bool_]
SHAPES = [(7, 5), (3, 40, 6), (300, 70), (1, 9), (9, 1)]


def _data(rng, dtype, shape):
    """Small integers (many ties) and, for floats, a few NaNs."""
    a = (rng.random(shape) * 4).astype(dtype)
    if a.dtype.kind == "f" and a.size > 4:
        a.flat[rng.integers(0, a.size, 3)] = np.nan
    return a


def _layouts(a):
    s = strided.asarray(a)
    yield "contiguous", a, s
    yield "transposed", a.T, s.T
    yield "negative", a[::-1], s[::-1]
    yield "stepped", a[..., ::2], s[..., ::2]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_arg_and_extremes_every_axis(dtype, shape):
    rng = np.random.default_rng(hash((np.dtype(dtype).name, shape)) % 2**32)
    for layout, a, s in _layouts(_data(rng, dtype, shape)):
        for axis in range(a.ndim):
            for fn in ("argmax", "argmin", "max", "min"):
                got = getattr(strided, fn)(s, axis=axis).numpy()
                want = getattr(np, fn)(a, axis=axis)
                assert np.array_equal(got, want, equal_nan=True), (layout, axis, fn)


@pytest.mark.parametrize("threads", [1, 2])
def test_outer_split_over_threads(threads):
    """Enough work to split the outputs over threads; a NaN and a column of ties."""
    rng = np.random.default_rng(0)
    a = rng.random((300, 1500), dtype=np.float32)
    a[5, 7] = a[250, 7] = np.nan
    a[:, 9] = 0.5
    a[100, 11] = a[200, 11] = 2.0  # equal maxima: the first wins
    old = strided.get_num_threads()
    strided.set_num_threads(threads)
    try:
        for fn in ("argmax", "argmin", "max", "min"):
            got = getattr(strided, fn)(strided.asarray(a), axis=0).numpy()
            assert np.array_equal(got, getattr(np, fn)(a, axis=0), equal_nan=True), fn
    finally:
        strided.set_num_threads(old)


def test_argmax_keepdims_and_3d_middle_axis():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 5, (4, 6, 5)).astype(np.float64)
    s = strided.asarray(a)
    got = strided.argmax(s, axis=1, keepdims=True).numpy()
    assert np.array_equal(got, np.argmax(a, axis=1, keepdims=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(7, 5), (3, 40, 6), (1, 9), (9, 1), (4, 0, 3)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_dim_matches_pytorch(dtype, shape, keepdim):
    torch = pytest.importorskip("torch")  # CI has no PyTorch; NumPy checks the rest
    rng = np.random.default_rng(5)
    for layout, a, s in _layouts(_data(rng, dtype, shape)):
        t = torch.from_numpy(a.copy())
        for dim in range(a.ndim):
            for fn in ("max", "min"):
                if a.shape[dim] == 0:
                    with pytest.raises(ValueError, match="zero elements"):
                        getattr(s, fn)(dim=dim, keepdim=keepdim)
                    continue
                values, indices = getattr(s, fn)(dim=dim, keepdim=keepdim)
                want_v, want_i = getattr(t, fn)(dim=dim, keepdim=keepdim)
                assert values.dtype == s.dtype and indices.dtype == strided.int64
                assert np.array_equal(values.numpy(), want_v.numpy(), equal_nan=True)
                assert np.array_equal(indices.numpy(), want_i.numpy()), (layout, dim, fn)


def test_max_dim_zero_d_and_grad_road():
    """A 0-d tensor, and a tensor that requires grad (the two-op road, which records)."""
    values, indices = strided.asarray(np.float32(3.0)).max(dim=0)
    assert float(values) == 3.0 and int(indices) == 0
    x = strided.asarray(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 7.5]])).requires_grad_()
    values, indices = x.max(dim=1)
    values.sum().backward()
    assert np.array_equal(indices.numpy(), [1, 2])
    assert np.array_equal(x.grad.numpy(), [[0, 1, 0], [0, 0, 1]])
