"""Tests of the scans (strided/_ops/scan.py, strided/_cpu/scan.pyx.tp) against NumPy's
``cumulative_sum``, ``cumulative_prod``, ``cumsum`` and ``cumprod``.

Both libraries scan each line in order (Note [Scans]), so the results are compared bit for bit,
floats included (NaN == NaN), over every dtype, every layout of tests/layouts.py, every axis,
with and without ``include_initial``; then ``dtype=``, ``out=``, the PyTorch/NumPy aliases and
methods, big inputs on one and three threads, and the error messages.
"""

from __future__ import annotations

import numpy as np
import pytest
from layouts import ALL_DTYPES, LAYOUTS, make_layout, make_values, to_numpy_dtype
from opinfo_reduction import tame

import strided

SHAPE = (4, 1, 3, 5)
FEW_DTYPES = (strided.bool, strided.int8, strided.float32, strided.complex128)
FUNCS = {
    "cumulative_sum": (strided.cumulative_sum, np.cumulative_sum),
    "cumulative_prod": (strided.cumulative_prod, np.cumulative_prod),
}


def _layout_shape(layout):
    return {"0-d": (), "empty": SHAPE[:1] + (0,) + SHAPE[2:]}.get(layout, SHAPE)


def _values(name, shape, dtype, rng):
    """Integers: the full range (scans wrap exactly, as NumPy's). Floats: every special value
    for sums; for products, values near 1 (and complex products finite: C99's complex multiply
    and NumPy's differ at infinities, on purpose)."""
    if name == "cumulative_sum" or dtype.kind in "biu":
        return make_values(shape, dtype, rng)
    return tame(-1.3, 1.3)(shape, dtype, rng)


def _check(got, exp, where):
    exp = np.asarray(exp)
    assert isinstance(got, strided.Tensor), where
    arr = np.asarray(got)
    assert arr.shape == exp.shape and arr.dtype == exp.dtype, (where, arr.dtype, exp.dtype)
    if arr.dtype.kind == "c":
        # complex products may round differently by an ulp (contracted multiply-adds)
        np.testing.assert_allclose(arr, exp, rtol=1e-6 if arr.dtype == np.complex64 else 1e-14)
    else:
        np.testing.assert_array_equal(arr, exp, err_msg=where, strict=True)


def _axes(ndim):
    return [None] if ndim <= 1 else [*range(ndim), -1, -ndim]


def _cases():
    for name in FUNCS:
        for layout in LAYOUTS:
            for dtype in ALL_DTYPES if layout == "contiguous" else FEW_DTYPES:
                yield pytest.param(name, layout, dtype, id=f"{name}-{layout}-{dtype.name}")


@pytest.mark.parametrize("name,layout,dtype", list(_cases()))
def test_scan_matches_numpy(name, layout, dtype, rng):
    fn, npfn = FUNCS[name]
    t, a = make_layout(layout, _values(name, SHAPE, dtype, rng), rng)
    before = np.asarray(t).copy()
    for axis in _axes(t.ndim) + ([0] if t.ndim == 1 else []):
        for include_initial in (False, True):
            where = f"{name}(axis={axis}, include_initial={include_initial}) of {layout}"
            with np.errstate(all="ignore"):
                exp = npfn(a, axis=axis, include_initial=include_initial)
            got = fn(t, axis=axis, include_initial=include_initial)
            _check(got, exp, where)
            assert got.is_contiguous()
    np.testing.assert_array_equal(np.asarray(t), before, strict=True)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_scan_dtype_argument(name, dtype, rng):
    fn, npfn = FUNCS[name]
    t, a = make_layout("transposed", _values(name, (3, 7), dtype, rng), rng)
    targets = [strided.complex128] if dtype.kind == "c" else [strided.float64, strided.complex64]
    if dtype.kind in "iu":
        targets.append(dtype)  # wraps around in the input's own dtype, as NumPy does
    for target in targets:
        for axis in (0, 1):
            with np.errstate(all="ignore"):
                exp = npfn(a, axis=axis, dtype=to_numpy_dtype(target))
            _check(fn(t, axis=axis, dtype=target), exp, f"{name} dtype={target.name}")


def test_scan_dtypes_follow_sum():
    for dtype, result in (
        ("bool", "int64"),
        ("int8", "int64"),
        ("int32", "int64"),
        ("uint8", "uint64"),
        ("float32", "float32"),
        ("complex64", "complex64"),
    ):
        x = strided.ones(3, dtype=dtype)
        assert strided.cumulative_sum(x).dtype.name == result
        assert strided.cumprod(x, 0).dtype.name == result
        assert np.cumsum(np.ones(3, dtype=dtype)).dtype.name == result


def test_scan_out(rng):
    a = rng.integers(-5, 5, (3, 4))
    x = strided.asarray(a)
    out = strided.empty((3, 4), dtype="int64")
    assert strided.cumulative_sum(x, axis=1, out=out) is out
    np.testing.assert_array_equal(np.asarray(out), np.cumsum(a, 1))
    wide = strided.empty((4, 3)).T  # a transposed float64 out: a same_kind cast
    assert strided.cumsum(x, 0, out=wide) is wide
    np.testing.assert_array_equal(np.asarray(wide), np.cumsum(a, 0).astype(float))
    initial = strided.zeros((4, 4), dtype="int64")
    strided.cumulative_prod(x, axis=0, include_initial=True, out=initial)
    np.testing.assert_array_equal(
        np.asarray(initial), np.cumulative_prod(a, axis=0, include_initial=True)
    )
    with pytest.raises(ValueError, match=r"out= has shape \(3, 4\).*\(4, 4\)"):
        strided.cumulative_sum(x, axis=0, include_initial=True, out=out)
    with pytest.raises(TypeError, match="same_kind"):
        strided.cumsum(x.astype("float32"), 0, out=out)


# ---------------------------------------------------------------------------------------------
# The PyTorch and NumPy spellings
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative-stride", "expanded"])
def test_aliases_and_methods(layout, rng):
    a = rng.integers(-3, 4, (3, 4, 5))
    t, arr = make_layout(layout, a, rng)
    for dim in (0, 1, 2, -1):
        for alias, npfn in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
            exp = npfn(arr, axis=dim)
            _check(getattr(strided, alias)(t, dim), exp, f"{alias}({dim})")
            _check(getattr(strided, alias)(t, axis=dim), exp, f"{alias}(axis={dim})")
            _check(getattr(t, alias)(dim), exp, f"x.{alias}({dim})")
            _check(getattr(t, alias)(dim=dim), exp, f"x.{alias}(dim={dim})")
            _check(
                getattr(t, alias)(dim, dtype=strided.float32),
                npfn(arr, axis=dim, dtype=np.float32),
                f"x.{alias}({dim}, dtype=float32)",
            )
    # NumPy's meaning of no axis: the flattened tensor, in row-major order
    _check(strided.cumsum(t), np.cumsum(arr), "cumsum()")
    _check(t.cumprod(), np.cumprod(arr), "x.cumprod()")


def test_zero_d_and_one_d():
    s = strided.asarray(5)
    # the Array API functions, like NumPy's: a 1-D result
    _check(strided.cumulative_sum(s), np.cumulative_sum(np.asarray(5)), "0-d")
    _check(
        strided.cumulative_prod(s, include_initial=True),
        np.cumulative_prod(np.asarray(5), include_initial=True),
        "0-d",
    )
    # PyTorch's cumsum(x, dim) of a 0-d tensor: 0-d
    for dim in (0, -1):
        got = strided.cumsum(s, dim)
        assert got.shape == () and got.item() == 5
    assert s.cumprod(0).shape == ()
    _check(strided.cumsum(s), np.cumsum(np.asarray(5)), "cumsum of 0-d, no dim")
    e = strided.zeros(0, dtype="int8")
    _check(strided.cumulative_sum(e), np.cumulative_sum(np.zeros(0, np.int8)), "empty")
    _check(
        strided.cumulative_prod(e, include_initial=True),
        np.cumulative_prod(np.zeros(0, np.int8), include_initial=True),
        "empty, include_initial",
    )


def test_signed_zero_and_nan_keep_their_place():
    x = strided.asarray([-0.0, np.nan, 1.0])
    got = np.asarray(strided.cumulative_sum(x))
    assert np.signbit(got[0]) and np.isnan(got[1:]).all()
    got = np.asarray(strided.cumulative_prod(strided.asarray([2.0, np.inf, 0.0, 3.0])))
    np.testing.assert_array_equal(got, [2.0, np.inf, np.nan, np.nan])


# ---------------------------------------------------------------------------------------------
# Big inputs: both loop orders, threads
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "negative-stride"])
def test_big_scans_are_numpys_bits_on_any_thread_count(layout, rng):
    # each line is one sequential scan, whichever loop order and however many threads: the
    # same bits as NumPy's (which also scans in order)
    a = rng.standard_normal((300, 257)).astype(np.float32)
    t, arr = make_layout(layout, a, rng)
    results = {}
    for threads in (1, 3):
        strided.set_num_threads(threads)
        for axis in (0, 1):
            got = np.asarray(strided.cumsum(t, axis))
            np.testing.assert_array_equal(got, np.cumsum(arr, axis), f"{layout} {axis}")
            results.setdefault(axis, []).append(got.view(np.uint32))
    for axis, (one, three) in results.items():
        np.testing.assert_array_equal(one, three, f"{layout} axis {axis}")


def test_long_line():
    a = np.random.default_rng(3).random(10**6).astype(np.float32)
    np.testing.assert_array_equal(
        np.asarray(strided.cumulative_sum(strided.asarray(a))), np.cumsum(a)
    )


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------

_X = strided.zeros((2, 3))


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (
            lambda: strided.cumulative_sum(_X),
            ValueError,
            r"cumulative_sum: axis=None needs a 1-D tensor, got shape \(2, 3\)",
        ),
        (
            lambda: strided.cumulative_prod(_X, axis=2),
            IndexError,
            r"cumulative_prod: axis=2 is out of range .* 2 dims \(expected a value in \[-2, 1\]\)",
        ),
        (lambda: strided.cumulative_sum(_X, axis=1.0), TypeError, r"axis must be an int"),
        (lambda: strided.cumulative_sum(_X, axis=(0, 1)), TypeError, r"axis must be an int"),
        (lambda: strided.cumsum(_X, -3), IndexError, r"cumsum: axis=-3 is out of range"),
        (lambda: strided.cumsum(_X, 0, axis=0), TypeError, r"cumsum: pass dim= or axis="),
        (lambda: strided.cumprod(strided.asarray(1.0), 1), IndexError, r"cumprod: axis=1"),
        (
            lambda: strided.cumulative_sum(_X, axis=0, dtype=strided.bool),
            TypeError,
            r"cumulative_sum does not support dtype bool",
        ),
    ],
)
def test_scan_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_scans_go_through_the_dispatcher():
    x = strided.arange(6).reshape(2, 3)
    with strided.trace_dispatch() as trace:
        strided.cumsum(x, 1)
        x.cumprod(0)
        strided.cumulative_sum(x, axis=0, include_initial=True)
    assert [r["op"] for r in trace] == [
        "cumulative_sum",
        "cumulative_prod",
        "cumulative_sum",
    ]
    assert {r["key"] for r in trace} == {"CPU"}
