"""The outer strategy of argmax/argmin and max/min (Note [argmax over an outer dim] and Note
[Branch-free max rows] in strided/_cpu/reduce.pyx.tp), its rows folded a block of columns at
a time (Note [Columns in registers]) and PyTorch's max(dim=) in one pass
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


def _rows_in_order(a, fn, axes):
    """fn folded over the reduced axes one row at a time, in memory order: the order of
    operations the outer strategy promises, so float results must match bit for bit."""
    moved = np.moveaxis(a, axes, range(len(axes)))
    rows = moved.reshape((-1,) + moved.shape[len(axes) :])
    acc = rows[0].copy()
    for row in rows[1:]:
        acc = fn(acc, row)
    return acc


@pytest.mark.parametrize(
    "dtype,shape,axes",
    [
        (np.float32, (4096, 16), (0,)),  # one vector of columns, 1024 rows a call
        (np.float32, (5000, 16), (0,)),  # ... and a last call of 904
        (np.float32, (300, 70), (0,)),  # four vectors, then 6 columns left
        (np.float32, (64, 8, 8, 16), (0, 1, 2)),  # a channels-last bias gradient
        (np.float64, (2000, 40), (0,)),  # five vectors of 8
        (np.float64, (30, 3000), (0,)),  # wide rows: blocks of OUTER_BLOCK outputs, 8 rows
        (np.int64, (1000, 300), (0,)),
        (np.uint8, (700, 130), (0,)),
        (np.complex64, (500, 20), (0,)),
    ],
    ids=str,
)
@pytest.mark.parametrize("layout", ["contiguous", "stepped rows", "negative rows", "strided"])
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_outer_columns_in_registers(dtype, shape, axes, layout, op):
    rng = np.random.default_rng(len(shape) + shape[-1])
    a = (rng.random(shape) * 3 + 0.5).astype(dtype)
    if np.dtype(dtype).kind == "c":
        if op in ("max", "min"):
            return  # complex numbers have no order
        a = a + 1j * (rng.random(shape) * 2).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a.flat[rng.integers(0, a.size, 2)] = np.nan
    if op == "prod":  # values near 1: no overflow to disagree on
        a = (a % 2 + 1) if np.dtype(dtype).kind in "iu" else (a / 1000 + 0.999).astype(dtype)
    s = strided.asarray(a)
    if layout == "stepped rows":  # the reduced rows do not coalesce: one walked like an odometer
        a, s = a[::2], s[::2]
    elif layout == "negative rows":
        a, s = a[::-1], s[::-1]
    elif layout == "strided":  # the columns' stride is not the element's size
        a, s = a[..., ::3], s[..., ::3]
    fold = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[op]
    got = getattr(strided, op)(s, axis=axes).numpy()
    # sums and products of small ints accumulate in int64/uint64
    want = _rows_in_order(np.asarray(a).astype(got.dtype), fold, axes)
    if op == "sum" and got.dtype.kind in "fc" and got.nbytes < 32:
        # few outputs: each column is summed pairwise, as an inner row (Note [Reductions])
        np.testing.assert_allclose(got, want, rtol=1e-5)
        return
    if op == "prod" and np.dtype(dtype).kind == "c":
        # a complex product's parts may be rounded once (a fused multiply-add) where NumPy
        # rounds twice: the order is the same, the last bit is not
        np.testing.assert_allclose(got, want, rtol=1e-5)
        return
    np.testing.assert_array_equal(got, want, strict=True)


@pytest.mark.parametrize("shape", [(100000, 3), (50001, 2), (7, 3), (2, 40000, 1)], ids=str)
@pytest.mark.parametrize("threads", [1, 2])
def test_few_outputs_fold_each_column_as_a_row(shape, threads):
    """Fewer outputs than half a vector (Note [Reductions]): each strided column is folded like
    an inner row, so a float sum is pairwise (far closer to the exact sum than NumPy's row after
    row), and max, min and integer sums are NumPy's exactly, at any thread count."""
    rng = np.random.default_rng(3)
    a = rng.random(shape, dtype=np.float32) + np.float32(1)
    axes = tuple(range(a.ndim - 1))
    exact = a.astype(np.float64).sum(axis=axes)
    old = strided.get_num_threads()
    strided.set_num_threads(threads)
    try:
        s = strided.asarray(a)
        got = strided.sum(s, axis=axes).numpy()
        assert got.dtype == np.float32
        err, numpy_err = np.abs(got - exact), np.abs(a.sum(axis=axes) - exact)
        assert np.all(err <= np.maximum(numpy_err, 4 * np.spacing(got))), (err, numpy_err)
        for fn in ("max", "min"):
            np.testing.assert_array_equal(
                getattr(strided, fn)(s, axis=axes).numpy(), getattr(np, fn)(a, axis=axes)
            )
        ints = (a * 1000).astype(np.int32)
        got_i = strided.sum(strided.asarray(ints), axis=axes).numpy()
        np.testing.assert_array_equal(got_i, ints.sum(axis=axes), strict=True)
    finally:
        strided.set_num_threads(old)


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
