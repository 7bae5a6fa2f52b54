"""Tests of the reductions (strided/_ops/reduction.py, strided/_cpu/reduce.pyx.tp) against
NumPy, driven by the rows of tests/opinfo_reduction.py.

Each (row, layout, dtype) case builds the input in that layout (tests/layouts.py) and runs every
sample (no axis, each dim, negative dims, tuples, keepdims or not) on the strided tensor and
NumPy on the array, comparing values, shape and dtype; where NumPy refuses an empty reduction
with ValueError (max, argmax), strided must too. Then, on contiguous and transposed inputs, the
other spellings: PyTorch's ``dim=``/``keepdim=``, the Tensor methods, ``out=`` (contiguous,
transposed, a wider dtype) and ``dtype=``.

Dtypes: every dtype on the contiguous layout, and every layout on bool, int8, float32 and
complex128 (one of each kind). Then the edge cases: empty reductions, NaN propagation and the
first NaN in argmax, float32 accuracy against a float64 sum, independence of the thread count,
``x.max(dim)`` as ``(values, indices)``, and the error messages.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from layouts import ALL_DTYPES, HALF_DTYPES, LAYOUTS, make_layout, to_numpy_dtype
from opinfo_elementwise import HALF_TOLERANCES, half_tolerance
from opinfo_reduction import RED_OPS, dtype_samples, numpy_axis, reference

import strided

SHAPE = (4, 1, 3, 5)  # a size-1 dim, odd and even sizes, 60 elements
FEW_DTYPES = (strided.bool, strided.int8, strided.float32, strided.complex128)
VARIANT_LAYOUTS = ("contiguous", "transposed")


def _layout_shape(layout):
    return {"0-d": (), "empty": SHAPE[:1] + (0,) + SHAPE[2:]}.get(layout, SHAPE)


def _check(op, got, expected, where, tol_dtype=None):
    exp = np.asarray(expected)
    assert isinstance(got, strided.Tensor), f"{where}: got a {type(got).__name__}"
    assert got.shape == exp.shape, f"{where}: shape {got.shape}, NumPy {exp.shape}"
    arr = np.asarray(got)
    assert arr.dtype == exp.dtype, f"{where}: dtype {arr.dtype}, NumPy {exp.dtype}"
    rtol, atol = op.tolerances.get(tol_dtype or got.dtype, (0, 0))
    if (tol_dtype or got.dtype) in HALF_TOLERANCES:
        rtol, atol = half_tolerance(op, tol_dtype or got.dtype)
    if arr.dtype.kind == "V":  # bfloat16 (ml_dtypes): NumPy's testing compares float32 copies
        arr, exp = arr.astype(np.float32), exp.astype(np.float32)
    if rtol or atol:
        np.testing.assert_allclose(arr, exp, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(arr, exp, err_msg=where, strict=True)


def _numpy_or_error(op, a, kw):
    """NumPy's result, or the ValueError class when NumPy refuses (an empty max)."""
    try:
        return reference(op, a, **kw)
    except ValueError:
        assert not op.has_identity, f"{op.name}: NumPy raised on {a.shape} {kw}"
        return ValueError


def _torch_spelling(kw):
    """axis=/keepdims= as PyTorch's dim=/keepdim=."""
    out = dict(kw)
    if "axis" in out:
        out["dim"] = out.pop("axis")
    if "keepdims" in out:
        out["keepdim"] = out.pop("keepdims")
    return out


# ---------------------------------------------------------------------------------------------
# The table itself
# ---------------------------------------------------------------------------------------------


def test_every_reduction_has_a_row():
    names = set(strided._ops.reduction.__all__)
    rows = {op.name.split("_correction")[0] for op in RED_OPS}
    assert names == rows, names ^ rows


def test_rows_agree_with_the_kernel_table():
    # the dtypes of the kernel-backed rows are the kinds of their rows in _cpu/reduce.pyx.tp
    from strided._cpu import reduce

    kinds_of = {"sum": "iufc", "prod": "iufc", "max": "biuf", "min": "biuf", "any": "b"}
    for name, kinds in kinds_of.items():
        assert reduce.OPS[name][1] == kinds, name


# ---------------------------------------------------------------------------------------------
# Every row x layout x dtype x sample
# ---------------------------------------------------------------------------------------------


def _cases():
    for op in RED_OPS:
        for layout in LAYOUTS:
            dtypes = ALL_DTYPES if layout == "contiguous" else FEW_DTYPES
            for dtype in dtypes:
                if dtype in op.dtypes:
                    yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")
            # the halves on every layout, for every row that takes real floats
            for dtype in HALF_DTYPES if strided.float32 in op.dtypes else ():
                yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")


def _half_oracle(op, a, kw):
    """Note [The halves' oracles] (opinfo_elementwise.py): NumPy's float32 answer on the widened
    input, rounded once (for float16 too: NumPy's float16 softmax or var would round every
    intermediate, where a reduction of halves accumulates in float32)."""
    expected = _numpy_or_error(op, a.astype(np.float32), kw)
    if expected is not ValueError and expected.dtype == np.float32:
        expected = expected.astype(a.dtype)
    return expected


@pytest.mark.parametrize("op,layout,dtype", list(_cases()))
def test_op_matches_numpy(op, layout, dtype, rng):
    if dtype in HALF_DTYPES:
        with np.errstate(over="ignore"):
            values = op.values(SHAPE, strided.float32, rng).astype(to_numpy_dtype(dtype))
    else:
        values = op.values(SHAPE, dtype, rng)
    t, a = make_layout(layout, values, rng)
    before = np.asarray(t).copy()
    for kw in op.sample_inputs(t.shape):
        kw = {**kw, **op.kwargs}
        where = f"{op.name}({kw}) of a {layout} {dtype.name} {t.shape} input"
        expected = (_half_oracle if dtype in HALF_DTYPES else _numpy_or_error)(op, a, kw)
        if expected is ValueError:
            with pytest.raises(ValueError, match="zero elements"):
                op.op(t, **kw)
            continue
        _check(op, op.op(t, **kw), expected, where)
    # a reduction never writes into its input (bits compared: bfloat16 has no NumPy testing)
    now, before = (np.ascontiguousarray(x).reshape(-1).view(np.uint8) for x in (t, before))
    np.testing.assert_array_equal(now, before, strict=True)


# ---------------------------------------------------------------------------------------------
# The other spellings and variants: dim=/keepdim=, methods, out=, dtype=
# ---------------------------------------------------------------------------------------------


def _variant_cases():
    for op in RED_OPS:
        for layout in VARIANT_LAYOUTS:
            for dtype in FEW_DTYPES:
                if dtype in op.dtypes:
                    yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")


def _method(op, t, kw):
    """The Tensor method, called as NumPy users do (axis=, keepdims=) for reductions, or with
    the positional dim (softmax)."""
    fn = getattr(t, op.method)
    if op.kind == "dim":
        return fn(kw["dim"], **op.kwargs)
    return fn(**kw, **op.kwargs)


def _torch_method(op, t, kw, *, indices=False):
    """The Tensor method as PyTorch users call it: ``x.sum(1, True)``, ``x.var(dim=(0, 2))``.
    ``x.max(int)`` returns (values, indices): its values, or with ``indices`` the pair."""
    fn = getattr(t, op.method)
    tkw = _torch_spelling(kw)
    if op.kind == "dim":
        return fn(dim=tkw["dim"])
    dim, keepdim = tkw.pop("dim"), tkw.pop("keepdim")
    if op.name == "count_nonzero":
        return fn(dim, keepdims=keepdim)
    if op.method in ("var", "std"):  # torch's x.var(dim, unbiased, keepdim)
        return fn(dim, bool(op.kwargs.get("correction", 0)), keepdim)
    got = fn(dim, keepdim, **op.kwargs)
    return got.values if isinstance(got, tuple) and not indices else got


@pytest.mark.parametrize("op,layout,dtype", list(_variant_cases()))
def test_spellings_and_out(op, layout, dtype, rng):
    t, a = make_layout(layout, op.values(SHAPE, dtype, rng), rng)
    samples = op.sample_inputs(t.shape)
    for kw in samples:
        where = f"{op.name}({kw}) of a {layout} {dtype.name} input"
        expected = reference(op, a, **kw, **op.kwargs)
        if op.supports_dim and op.kind != "dim":
            # dim= alone would give var/std torch's correction 1 (tested in test_numpy_spellings)
            kwargs = {"correction": 0, **op.kwargs} if op.method in ("var", "std") else op.kwargs
            got = op.op(t, **_torch_spelling(kw), **kwargs)
            if op.name in ("max", "min") and isinstance(kw.get("axis"), int):
                got = got.values  # torch.max(x, dim=1): (values, indices), checked below too
            _check(op, got, expected, f"{where}, dim=")
        _check(op, _method(op, t, kw), expected, f"{where}, method")
        _check(op, _torch_method(op, t, kw), expected, f"{where}, PyTorch method")
        if not op.supports_out:
            continue
        exp_dtype = strided.asarray(expected).dtype
        outs = [strided.empty(expected.shape, dtype=exp_dtype), strided.zeros(expected.shape)]
        if expected.ndim >= 2:
            outs.append(strided.empty(expected.shape[::-1], dtype=exp_dtype).T)
        for out in outs:
            if not strided.can_cast(exp_dtype, out.dtype, "same_kind"):
                with pytest.raises(TypeError, match="same_kind"):
                    op.op(t, **kw, **op.kwargs, out=out)
                continue
            got = op.op(t, **kw, **op.kwargs, out=out)
            assert got is out, where
            wide = expected.astype(to_numpy_dtype(out.dtype))
            _check(op, got, wide, f"{where}, out={out.dtype.name}", tol_dtype=exp_dtype)


def _dtype_cases():
    for op in RED_OPS:
        if op.supports_dtype:
            for dtype in ALL_DTYPES:
                if dtype in op.dtypes:
                    yield pytest.param(op, dtype, id=f"{op.name}-{dtype.name}")


@pytest.mark.parametrize("op,dtype", list(_dtype_cases()))
def test_dtype_argument(op, dtype, rng):
    # dtype= casts the input first (see dtype_samples for the targets and values)
    npfn = {"sum": np.sum, "prod": np.prod, "mean": np.mean}[op.name]
    for target, values in dtype_samples(op, dtype, SHAPE, rng):
        t, a = make_layout("transposed", values, rng)
        for axis in (None, 0, (1, 3), -1):
            where = f"{op.name}(axis={axis}, dtype={target.name}) of {dtype.name}"
            got = op.op(t, axis=axis, dtype=target)
            with np.errstate(all="ignore"):
                exp = np.asarray(npfn(a, axis=axis, dtype=to_numpy_dtype(target)))
            _check(op, got, exp, where, tol_dtype=target)


# ---------------------------------------------------------------------------------------------
# Empty reductions
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [strided.int8, strided.uint16, strided.float32])
def test_empty_reductions_with_an_identity(dtype):
    e = strided.zeros((0,), dtype=dtype)
    assert strided.sum(e).item() == 0 and strided.prod(e).item() == 1
    assert strided.sum(e).dtype is strided.sum(strided.ones(1, dtype=dtype)).dtype
    assert strided.any(e).item() is False and strided.all(e).item() is True
    assert strided.count_nonzero(e).item() == 0
    m = strided.zeros((3, 0), dtype=dtype)
    np.testing.assert_array_equal(np.asarray(m.sum(1)), np.zeros(3))
    np.testing.assert_array_equal(np.asarray(m.prod(axis=1, keepdims=True)), np.ones((3, 1)))
    assert m.sum(0).shape == (0,)
    assert math.isnan(strided.mean(e).item())


def test_empty_reductions_without_an_identity():
    e = strided.zeros((0,))
    for fn in (strided.max, strided.min, strided.argmax, strided.argmin):
        with pytest.raises(ValueError, match=f"{fn.__name__}: the reduction is over zero"):
            fn(e)
    m = strided.zeros((0, 3))
    # over the empty dim with outputs left: no value to give
    with pytest.raises(ValueError, match="zero elements"):
        strided.max(m, axis=0)
    with pytest.raises(ValueError, match="zero elements"):
        m.argmin(0)
    # over a dim with elements, the output is empty: an empty result, as NumPy
    for fn in (strided.max, strided.min, strided.argmax, strided.argmin):
        got = fn(m, axis=1)
        assert got.shape == (0,), fn
    assert strided.max(m, axis=1, keepdims=True).shape == (0, 1)
    assert strided.max(strided.zeros((2, 0, 3)), axis=2).shape == (2, 0)
    assert strided.max(strided.zeros((0, 0)), axis=1).shape == (0,)
    values, indices = strided.zeros((0, 4)).max(dim=1)
    assert values.shape == indices.shape == (0,) and indices.dtype is strided.int64


def test_logsumexp_and_softmax_of_empty():
    assert strided.logsumexp(strided.zeros((0,))).item() == -math.inf
    np.testing.assert_array_equal(
        np.asarray(strided.logsumexp(strided.zeros((2, 0)), axis=1)), [-np.inf, -np.inf]
    )
    assert strided.softmax(strided.zeros((2, 0)), 1).shape == (2, 0)


# ---------------------------------------------------------------------------------------------
# NaN, inf, signed zero
# ---------------------------------------------------------------------------------------------


def test_max_min_propagate_nan_along_every_strategy():
    a = np.arange(60.0).reshape(4, 15)
    a[2, 7] = np.nan
    for layout in ("contiguous", "transposed", "negative-stride"):
        t, arr = make_layout(layout, a)
        for fn, npfn in ((strided.max, np.max), (strided.min, np.min)):
            for axis in (None, 0, 1):
                got = np.asarray(fn(t, axis=axis))
                np.testing.assert_array_equal(got, npfn(arr, axis=axis), err_msg=layout)
                assert np.isnan(got).sum() == (1 if axis is not None else 1)


def test_argmax_takes_the_first_nan_and_the_first_tie():
    x = strided.asarray([1.0, 5.0, np.nan, 5.0, np.nan])
    assert strided.argmax(x).item() == 2 and strided.argmin(x).item() == 2
    assert strided.argmax(strided.asarray([np.nan, 3.0])).item() == 0
    assert strided.argmax(strided.asarray([3.0, 7.0, 7.0, 1.0])).item() == 1
    assert strided.argmin(strided.asarray([3, 1, 7, 1], dtype="int8")).item() == 1
    assert strided.argmax(strided.asarray([False, True, True])).item() == 1
    m = np.array([[0.0, np.nan, 2.0, np.nan], [4.0, 4.0, -np.inf, np.inf]])
    for layout in ("contiguous", "transposed", "negative-stride"):
        t, arr = make_layout(layout, m)
        for axis in (0, 1, None):
            for fn, npfn in ((strided.argmax, np.argmax), (strided.argmin, np.argmin)):
                np.testing.assert_array_equal(np.asarray(fn(t, axis=axis)), npfn(arr, axis=axis))


# Lengths around the kernels' seams (Note [Vectorised reductions], Note [argmax in one pass]):
# below, at and above one group of 32 lanes, a pairwise leaf (512), an argmax block (1024
# float64, 2048 float32 elements), and several blocks.
_SEAMS = (1, 31, 32, 33, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 5000)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", _SEAMS)
def test_contiguous_float_rows_at_the_kernel_seams(n, dtype):
    rng = np.random.default_rng(n)
    rows = [
        rng.integers(-50, 50, n).astype(dtype),  # many ties: the first occurrence must win
        np.full(n, -np.inf, dtype),  # the extreme is the starting value of every lane
        rng.random(n).astype(dtype),
    ]
    for at in {0, n // 3, n - 1}:  # a NaN in the first lane group, in the middle, in the tail
        row = rng.random(n).astype(dtype)
        row[at] = np.nan
        if at + 5 < n:
            row[at + 5] = np.nan  # a later NaN must not win argmax
        rows.append(row)
    if n > 2048 + 7:
        row = np.zeros(n, dtype)
        row[[7, 2048 + 7]] = 1.0  # a tie across two argmax blocks
        rows.append(row)
    for a in rows:
        x = strided.asarray(a)
        for fn, npfn in ((strided.max, np.max), (strided.min, np.min)):
            np.testing.assert_array_equal(np.asarray(fn(x)), npfn(a), err_msg=f"{fn.__name__}")
        for fn, npfn in ((strided.argmax, np.argmax), (strided.argmin, np.argmin)):
            assert fn(x).item() == npfn(a), f"{fn.__name__} of {a[:8]}..."
        # the same row as one of several rows of a matrix (the per-output path)
        m = np.stack([a, a[::-1].copy()])
        np.testing.assert_array_equal(
            np.asarray(strided.argmax(strided.asarray(m), axis=1)), m.argmax(1)
        )
        np.testing.assert_array_equal(np.asarray(strided.max(strided.asarray(m), axis=1)), m.max(1))
        if np.isfinite(a).all():
            exact = a.astype(np.float64).sum()
            got = float(strided.sum(x))
            assert abs(got - exact) <= 10 * float(np.finfo(dtype).eps) * np.abs(a).sum() + 1e-30


def test_sum_of_inf_and_nan():
    assert math.isnan(strided.sum(strided.asarray([np.inf, -np.inf, 1.0])).item())
    assert strided.sum(strided.asarray([np.inf, 1.0])).item() == math.inf
    assert math.isnan(strided.prod(strided.asarray([np.inf, 0.0])).item())
    assert strided.any(strided.asarray([0.0, np.nan])).item() is True
    assert strided.all(strided.asarray([np.nan, -0.0])).item() is False
    assert strided.count_nonzero(strided.asarray([np.nan, -0.0, 0.0, 1e-300])).item() == 2


def test_any_all_of_complex_read_either_part():
    z = strided.asarray(np.array([0j, 1j, 1 + 0j, 0j]))
    assert z.any().item() and not z.all().item()
    np.testing.assert_array_equal(np.asarray(z.reshape(2, 2).any(0)), [True, True])
    np.testing.assert_array_equal(np.asarray(z.reshape(2, 2).all(1)), [False, False])
    w = strided.asarray(np.array([[0j, 1j], [0j, -0.0j]]))
    np.testing.assert_array_equal(np.asarray(w.any(0)), [False, True])


# ---------------------------------------------------------------------------------------------
# Accuracy and thread-count independence of float32 sums
# ---------------------------------------------------------------------------------------------

F32_EPS = float(np.finfo(np.float32).eps)


@pytest.mark.parametrize(
    "n,values",
    [
        (10**6, "random"),
        (10**6, "constant"),
        (10**7, "random"),
        (10**7, "constant"),
    ],
)
def test_float32_sum_is_as_accurate_as_pairwise(n, values):
    # Against a float64 sum (exact enough), strided's float32 sum is within a few ulps, as
    # NumPy's pairwise summation is, on random values and on n copies of 0.1, where a running
    # float32 sum (strided's own cumulative_sum, last element) drifts far off: the bound can
    # tell pairwise from naive summation.
    rng = np.random.default_rng(n)
    bound = 10 * F32_EPS
    a = rng.random(n, dtype=np.float32) if values == "random" else np.full(n, 0.1, np.float32)
    x = strided.asarray(a)
    for name, t, view in (
        ("contiguous", x, a),
        ("reversed", x[::-1], a[::-1]),
        ("stepped", x[::3], a[::3]),
    ):
        exact = view.astype(np.float64).sum()
        err = abs(float(strided.sum(t)) - exact) / exact
        err_np = abs(float(view.sum()) - exact) / exact
        where = f"{values} {name}: relative error {err:.2e}, NumPy's {err_np:.2e}"
        assert err_np <= bound, where
        assert err <= bound, where
    if values == "constant":
        running = float(np.asarray(strided.cumulative_sum(x))[-1])
        assert abs(running - exact) / exact > 100 * bound


def test_float32_sum_over_a_dim_is_accurate():
    rng = np.random.default_rng(1)
    a = rng.random((1000, 1000), dtype=np.float32)
    x = strided.asarray(a)
    for axis in (0, 1):
        exact = a.astype(np.float64).sum(axis)
        for t in (x, x.T):
            ax = axis if t is x else 1 - axis
            err = np.max(np.abs(np.asarray(t.sum(ax)) - exact) / exact)
            err_np = np.max(np.abs(a.sum(axis) - exact) / exact)
            assert err <= max(4 * err_np, 10 * F32_EPS), (axis, err, err_np)


_THREAD_CASES = [
    ("full", lambda x: x.sum()),
    ("dim 0", lambda x: x.sum(0)),
    ("dim 1", lambda x: x.sum(1)),
    ("transposed full", lambda x: x.T.sum()),
    ("transposed dim 0", lambda x: x.T.sum(0)),
    ("transposed dim 1", lambda x: x.T.sum(1)),
    ("stepped dim 1", lambda x: x[::-1, ::2].sum(1)),
    ("mean dim 1", lambda x: x.mean(1)),
    ("few long rows", lambda x: x.reshape(4, 250000).sum(1)),
    ("few columns", lambda x: x.reshape(250000, 4).sum(0)),
    ("stepped full", lambda x: x[:, ::3].sum()),
]


@pytest.mark.parametrize("name,fn", _THREAD_CASES, ids=[c[0] for c in _THREAD_CASES])
def test_float32_sums_do_not_depend_on_the_thread_count(name, fn):
    a = np.random.default_rng(2).random((1000, 1000), dtype=np.float32)
    x = strided.asarray(a)
    strided.set_num_threads(1)
    one = np.asarray(fn(x)).copy()
    for threads in (2, 3):
        strided.set_num_threads(threads)
        again = np.asarray(fn(x))
        np.testing.assert_array_equal(
            one.view(np.uint32), again.view(np.uint32), err_msg=f"{name}, {threads} threads"
        )


def test_integer_sums_wrap_like_numpy():
    a = np.array([2**62, 2**62, 2**62, -5], dtype=np.int64)
    assert strided.sum(strided.asarray(a)).item() == int(a.sum())
    u = np.array([2**63, 2**63, 3], dtype=np.uint64)
    assert strided.sum(strided.asarray(u)).item() == int(u.sum())
    b = np.full(1000, 100, dtype=np.int8)
    assert strided.sum(strided.asarray(b)).item() == 100_000  # int64 accumulator
    assert strided.sum(strided.asarray(b), dtype=strided.int8).item() == int(b.sum(dtype=np.int8))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8"])
def test_byte_sums_widen_as_they_read(dtype, threads):
    # Note [Byte sums widened as they are read]: a contiguous row adds blocks of 65536 bytes in
    # 32-bit lanes; extreme bytes across several blocks, every strategy (a whole sum, sums
    # along rows, the outer strategy's columns), strided and negative steps
    strided.set_num_threads(threads)  # (the conftest restores the count)
    rng = np.random.default_rng(3)
    n = 3 * 65536 + 7
    if dtype == "bool":
        filled = [np.ones(n, bool), rng.random(n) < 0.3]
    else:
        info = np.iinfo(dtype)
        filled = [np.full(n, info.min, dtype), np.full(n, info.max, dtype)]
        filled.append(rng.integers(info.min, info.max + 1, n).astype(dtype))
    views = (
        lambda x: x,
        lambda x: x[::3],
        lambda x: x[::-1],
        lambda x: x[:-7].reshape(3, 65536),
        lambda x: x[:-7].reshape(-1, 3),
    )
    for a in filled:
        for view in views:
            want_in, t = view(a), view(strided.asarray(a))
            for axis in [None] + list(range(want_in.ndim)):
                got = strided.sum(t, axis=axis)
                want = np.sum(want_in, axis=axis)
                assert np.asarray(got).dtype == want.dtype, (dtype, t.shape, axis)
                np.testing.assert_array_equal(np.asarray(got), want)
                np.testing.assert_array_equal(
                    np.asarray(strided.count_nonzero(t, axis=axis)),
                    np.count_nonzero(want_in, axis=axis),
                )


# ---------------------------------------------------------------------------------------------
# PyTorch's x.max(dim): (values, indices)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative-stride", "expanded"])
def test_max_min_with_an_int_dim_return_values_and_indices(layout, rng):
    a = rng.integers(-3, 4, SHAPE).astype(np.float32)
    t, arr = make_layout(layout, a, rng)
    for dim in (0, 2, -1):
        for keepdim in (False, True):
            for name, npv, npi in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
                got = getattr(t, name)(dim, keepdim)
                assert isinstance(got, tuple) and got._fields == ("values", "indices")
                values, indices = got
                np.testing.assert_array_equal(
                    np.asarray(values), npv(arr, axis=dim, keepdims=keepdim)
                )
                np.testing.assert_array_equal(
                    np.asarray(indices), npi(arr, axis=dim, keepdims=keepdim)
                )
                assert indices.dtype is strided.int64
                same = getattr(t, name)(dim=dim, keepdim=keepdim)
                np.testing.assert_array_equal(np.asarray(same.indices), np.asarray(indices))
    # no dim, a tuple, or NumPy's axis=: the values alone
    assert isinstance(t.max(), strided.Tensor)
    assert isinstance(t.max((0, 1)), strided.Tensor)
    assert isinstance(t.min(axis=1), strided.Tensor)


# ---------------------------------------------------------------------------------------------
# Results are fresh tensors
# ---------------------------------------------------------------------------------------------


def test_results_do_not_share_the_input_storage():
    x = strided.arange(6.0).reshape(2, 3)
    for r in (x.sum(()), x.max(axis=()), x.sum(axis=(), keepdims=True), x.mean(())):
        assert r.untyped_storage() is not x.untyped_storage()
        np.testing.assert_array_equal(np.asarray(r), np.asarray(x))


def test_numpy_axis_helper():
    assert numpy_axis(np.zeros(()), 0) is None and numpy_axis(np.zeros(3), 0) == 0


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------

_X = strided.zeros((2, 3))


@pytest.mark.parametrize(
    "fn,kwargs,exc,match",
    [
        (strided.sum, {"axis": 2}, IndexError, r"sum: axis=2 is out of range .* 2 dims"),
        (strided.prod, {"axis": -3}, IndexError, r"prod: axis=-3 is out of range"),
        (strided.mean, {"axis": (0, 5)}, IndexError, r"mean: axis=5 is out of range"),
        (strided.max, {"axis": (0, -2)}, ValueError, r"max: axis 0 appears twice"),
        (strided.sum, {"axis": (1, 1)}, ValueError, r"sum: axis 1 appears twice"),
        (strided.var, {"axis": (1, -1)}, ValueError, r"var: axis 1 appears twice"),
        (strided.sum, {"axis": 0, "dim": 0}, TypeError, r"sum: pass axis= or dim=, not both"),
        (strided.any, {"axis": 0, "dim": 1}, TypeError, r"not both"),
        (strided.sum, {"axis": 1.0}, TypeError, r"axis must be an int or a tuple of ints"),
        (strided.sum, {"axis": True}, TypeError, r"axis must be an int"),
        (strided.argmax, {"axis": (0, 1)}, TypeError, r"argmax: axis must be a single int"),
        (strided.argmin, {"axis": 2}, IndexError, r"argmin: axis=2 is out of range"),
        (strided.logsumexp, {"axis": 2}, IndexError, r"logsumexp: axis=2 is out of range"),
        (strided.count_nonzero, {"axis": 3}, IndexError, r"count_nonzero: axis=3 is out"),
        (strided.std, {"axis": (0, 0)}, ValueError, r"std|var"),
        (strided.sum, {"out": strided.zeros(2)}, ValueError, r"out= has shape \(2,\)"),
        (
            strided.sum,
            {"axis": 0, "out": strided.zeros(3, dtype="int64")},
            TypeError,
            r"float64 result into out= of dtype int64 .*same_kind",
        ),
    ],
)
def test_error_messages(fn, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fn(_X, **kwargs)


def test_complex_extremes_need_no_kernel_of_their_own():
    # max, min, argmax, argmin of complex are composed (Note [The extremes of complex
    # numbers]): the kernel table still has no complex row, and the whole-tensor road and
    # PyTorch's max(dim=) both step around it
    from strided._cpu import reduce

    assert "c" not in reduce.OPS["max"][1]
    z = strided.asarray(np.array([[1 + 2j, 3 - 1j], [3 + 0j, -1j]], dtype="complex64"))
    assert complex(strided.max(z)) == 3 + 0j and complex(z.min()) == -1j
    values, indices = z.max(dim=1)
    np.testing.assert_array_equal(np.asarray(values), [3 - 1j, 3 + 0j])
    np.testing.assert_array_equal(np.asarray(indices), [1, 0])


def test_softmax_needs_a_valid_dim():
    with pytest.raises(IndexError, match="softmax: axis=2 is out of range"):
        strided.softmax(_X, 2)
    with pytest.raises(IndexError, match="log_softmax: axis=-3 is out of range"):
        _X.log_softmax(-3)
    with pytest.raises(TypeError):
        strided.softmax(_X)  # PyTorch's dim is required


# ---------------------------------------------------------------------------------------------
# Big inputs: the parallel paths (blocks of one output, outputs per thread, the outer strategy)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "negative-stride"])
def test_big_reductions_match_numpy_exactly(layout, threads, rng):
    # integers (exact whatever the order) and extremes, over enough elements (> 2 * 32768) that
    # every strategy of Note [Reductions] runs, with one thread and with three
    strided.set_num_threads(threads)
    values = rng.integers(-1000, 1000, (2, 300, 150), dtype=np.int64)
    t, a = make_layout(layout, values, rng)
    tf = t.astype("float64")
    af = a.astype(np.float64)
    for axis in (None, 0, 1, 2, (0, 1), (1, 2), (0, 2)):
        where = f"{layout}, axis={axis}, {threads} threads"
        for fn, npfn in ((strided.sum, np.sum), (strided.max, np.max), (strided.min, np.min)):
            np.testing.assert_array_equal(np.asarray(fn(t, axis=axis)), npfn(a, axis=axis), where)
        np.testing.assert_array_equal(
            np.asarray(strided.prod(t % 3 - 1, axis=axis)), np.prod(a % 3 - 1, axis=axis), where
        )
        np.testing.assert_array_equal(
            np.asarray(strided.any(t > 998, axis=axis)), np.any(a > 998, axis=axis), where
        )
        np.testing.assert_allclose(
            np.asarray(strided.sum(tf, axis=axis)), np.sum(af, axis=axis), rtol=1e-15
        )
    for axis in (None, 0, 1, 2):
        for fn, npfn in ((strided.argmax, np.argmax), (strided.argmin, np.argmin)):
            np.testing.assert_array_equal(
                np.asarray(fn(t, axis=axis)), npfn(a, axis=axis), f"{layout}, axis={axis}"
            )


# Note [Reductions]: the result is laid out in the input's memory order, as NumPy's is
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_reduction_results_follow_the_inputs_memory_order(dtype):
    a = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    for perm, axes in [((0, 2, 3, 1), (1, 2)), ((3, 1, 0, 2), (0,)), ((0, 1, 2, 3), (1, 3))]:
        an = np.transpose(a.copy(order="C"), np.argsort(perm)).copy(order="C").transpose(perm)
        x = strided.asarray(np.ascontiguousarray(np.transpose(an, np.argsort(perm))))
        x = x.permute(*perm)  # x and an: the same values and the same memory order
        for name in ("sum", "max"):
            got = getattr(strided, name)(x, axis=axes, dtype=dtype) if name == "sum" else \
                strided.max(x, axis=axes)  # fmt: skip
            want = getattr(np, name)(an, axis=axes, dtype=dtype) if name == "sum" else \
                np.max(an, axis=axes)  # fmt: skip
            np.testing.assert_allclose(np.asarray(got), want)
            itemsize = got.dtype.itemsize
            assert tuple(s * itemsize for s in got.stride()) == want.strides, (perm, axes, name)


def test_a_cast_for_a_reduction_keeps_the_memory_order():
    from strided._ops import copying

    x = strided.asarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4)).permute(2, 0, 1)
    y = copying.cast_in_memory_order(x, strided.float64)
    assert y.stride() == x.stride() and y._base is None and y.dtype is strided.float64
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    e = strided.ones(3).expand(4, 3)  # a broadcast dim: dense, row-major
    assert copying.cast_in_memory_order(e, strided.float32).stride() == (3, 1)


def _softmax_by_ops(x, dim, log):
    """softmax / log_softmax as the separate ops (Note [Softmax rows in one pass])."""
    m = strided.max(x, axis=dim, keepdims=True)
    if log:
        m = strided.where(strided.isfinite(m), m, 0.0)
        shifted = x - m
        return shifted - strided.log(strided.sum(strided.exp(shifted), axis=dim, keepdims=True))
    e = strided.exp(x - m)
    return e / strided.sum(e, axis=dim, keepdims=True)


def _softmax_backward_by_ops(g, y, dim, log):
    if log:
        return g - strided.exp(y) * strided.sum(g, axis=dim, keepdims=True)
    return y * (g - strided.sum(g * y, axis=dim, keepdims=True))


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_rows_in_one_pass_are_the_ops_bit_for_bit(log, layout, dtype, rng):
    # Note [Softmax rows in one pass]: where the dim has unit stride softmax and log_softmax
    # (and their backward) run one pass per row; every other layout runs the ops. Either way
    # the values are the ops' bit for bit, special values included, along every dim.
    from strided.autograd import formulas

    npdt = to_numpy_dtype(dtype)
    ref = (rng.standard_normal((5, 3, 37)) * 20).astype(npdt)
    ref[0, 0, 3] = np.nan
    ref[1, 0, :] = -np.inf  # all -inf: NaN either way
    ref[1, 1, 4] = np.inf
    ref[2, 2, :] = np.inf
    ref[3, 1, 7] = -np.inf
    pair = make_layout(layout, ref, rng)
    if pair is None:
        pytest.skip(f"no {layout} layout of a 3-d array")
    x = pair[0]
    fn = strided.log_softmax if log else strided.softmax
    for dim in range(max(x.ndim, 1)) if x.ndim else [0]:
        got = fn(x, dim)
        if x.numel() == 0:
            assert got.shape == x.shape
            continue
        with np.errstate(all="ignore"), strided.errstate(all="ignore"):
            want = _softmax_by_ops(x, dim, log)
        assert got.shape == x.shape and got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"dim={dim}")
        if x.ndim == 0:
            continue
        # the backward's incoming gradient in two layouts: dense, and broadcast along the dim
        # (the gradient of a sum: stride 0)
        dense = strided.asarray(rng.standard_normal(x.shape).astype(npdt))
        for g in (dense, strided.broadcast_to(strided.narrow(dense, dim, 0, 1), x.shape)):
            with strided.no_grad():  # no graph of the backward: the one-pass rows where they apply
                back = formulas.softmax_backward(g, got, (dim,), log)
            np.testing.assert_array_equal(
                back.numpy(), _softmax_backward_by_ops(g, got, dim, log).numpy()
            )


def test_softmax_rows_through_autograd_match_torch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((64, 10)).astype(np.float32)
    for log in (False, True):
        x = strided.tensor(a, requires_grad=True)
        y = strided.log_softmax(x, 1) if log else strided.softmax(x, 1)
        (y * strided.arange(10.0, dtype=strided.float32)).sum().backward()
        tx = torch.tensor(a, requires_grad=True)
        ty = torch.log_softmax(tx, 1) if log else torch.softmax(tx, 1)
        (ty * torch.arange(10.0)).sum().backward()
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-7)
        # atol: g - exp(y) * sum(g) cancels; sum(g) is ~45 here, an ulp of it ~4e-6
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=2e-5)


def test_softmax_rows_do_not_depend_on_the_thread_count(rng):
    x = strided.asarray(rng.standard_normal((300, 700)).astype(np.float32))
    before = strided.get_num_threads()
    try:
        strided.set_num_threads(1)
        one = strided.softmax(x, 1).numpy()
        strided.set_num_threads(2)
        two = strided.softmax(x, 1).numpy()
    finally:
        strided.set_num_threads(before)
    np.testing.assert_array_equal(one, two)
