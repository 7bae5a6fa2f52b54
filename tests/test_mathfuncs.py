"""Tests of NumPy's math functions composed of elementwise ops (strided/_ops/mathfuncs.py),
against NumPy.

Every function runs over the layouts of tests/layouts.py (contiguous, transposed, stepped,
negative-stride, expanded, 0-d, empty) with the values of ``make_values`` (NaN, +-inf, -0.0,
huge and tiny floats; integer extremes), in an int, float32 and float64 (complex where NumPy
takes it), with Python scalars as weak operands (NEP 50), and signed zeros compared bit for bit
where the sign is part of the answer. Then the error messages, a subset on the CUDA devices of
tests/devices.py, and float64 gradchecks of fmax, fmin, sinc and float_power.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import LAYOUTS, make_layout, make_values

import strided
from strided.autograd import gradcheck

SHAPE = (3, 4)
INF, NAN = np.inf, np.nan


def _np(dtype):
    return np.dtype(dtype)


def _check(got, want, where="", exact=False):
    """Same shape, dtype and values (NaN equal to NaN; a few ulps for floats unless
    ``exact``, where the sign of zero is also compared)."""
    want = np.asarray(want)
    half = want.dtype == np.float16
    if half:  # NumPy's choice for int8, uint8 and bool: computed in float32, rounded once
        exact = False
    assert isinstance(got, strided.Tensor), where
    g = np.asarray(got.cpu())
    assert g.shape == want.shape, (where, g.shape, want.shape)
    assert g.dtype == want.dtype, (where, g.dtype, want.dtype)
    if want.dtype.kind in "biu" or exact:
        np.testing.assert_array_equal(g, want, err_msg=str(where))
        if want.dtype.kind in "fc":  # the sign of zero (and of inf), not NaN's
            keep = ~np.isnan(want.real)
            np.testing.assert_array_equal(
                np.signbit(g.real[keep]), np.signbit(want.real[keep]), str(where)
            )
    else:
        tol = 1e-6 if want.dtype in (np.float32, np.complex64) else 1e-14
        tol = 1e-3 if half else tol
        np.testing.assert_allclose(g, want, rtol=tol, atol=0, equal_nan=True, err_msg=str(where))


@contextlib.contextmanager
def _quiet():
    """Silence NumPy's and strided's warnings about NaN, overflow and division by zero."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _inputs(dtype, rng, cast_safe=False):
    """(layout, tensor, array) for every layout of a SHAPE-d input."""
    ref = make_values(SHAPE, dtype, rng, cast_safe=cast_safe)
    for layout in LAYOUTS:
        pair = make_layout(layout, ref, rng)
        if pair is not None:
            yield layout, *pair


def _binary_cases(dtype, rng, other=None, cast_safe=False):
    """(where, x1 tensor, x1 array, x2 tensor, x2 array) over layouts of x1, with x2 a
    contiguous tensor of the same shape (and once a broadcast row)."""
    for layout, t, a in _inputs(dtype, rng, cast_safe):
        b = make_values(a.shape, other or dtype, rng, cast_safe=cast_safe)
        yield layout, t, a, strided.asarray(b), b
        if a.ndim == 2:
            row = make_values(a.shape[1:], other or dtype, rng, cast_safe=cast_safe)
            yield layout + "+row", t, a, strided.asarray(row), row


# ---------------------------------------------------------------------------------------------
# Binary functions
# ---------------------------------------------------------------------------------------------

BINARY = {
    "fmax": (strided.fmax, np.fmax),
    "fmin": (strided.fmin, np.fmin),
    "fmod": (strided.fmod, np.fmod),
    "mod": (strided.mod, np.mod),
    "heaviside": (strided.heaviside, np.heaviside),
    "float_power": (strided.float_power, np.float_power),
}
REAL_DTYPES = [strided.int8, strided.int64, strided.float32, strided.float64]


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_against_numpy(name, dtype, rng):
    ours, ref = BINARY[name]
    with _quiet():
        for where, t1, a1, t2, a2 in _binary_cases(dtype, rng):
            if name == "float_power" and dtype.kind == "i":
                a2 = np.abs(a2) % 4  # integer powers of integers: keep them representable
                t2 = strided.asarray(a2)
            ctx = (name, dtype, where)
            exact = name in ("fmod", "mod", "heaviside")  # fmax(-0.0, 0.0) may be either zero
            _check(ours(t1, t2), ref(a1, a2), ctx, exact=exact and dtype.kind == "f")


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_python_scalars(name, rng):
    ours, ref = BINARY[name]
    x = np.asarray([-2.5, -0.0, 0.0, 1.5, INF, -INF, NAN], np.float32)
    i8 = np.asarray([-7, -1, 0, 3, 127], np.int8)
    with _quiet():
        for a, s in [(x, 2.0), (x, -1.5), (x, NAN), (x, 0.0), (i8, 3), (i8, -2), (i8, 2.5)]:
            if name == "float_power" and a.dtype.kind == "i" and s < 0:
                continue
            _check(ours(strided.asarray(a), s), ref(a, s), (name, a.dtype, s))
            if name != "heaviside":
                _check(ours(s, strided.asarray(a)), ref(s, a), (name, s, a.dtype))


def test_fmod_signs_and_exactness():
    a = np.asarray([-7.0, 7.0, -7.0, 7.0, -0.0, 0.0, -2.0, 1e-20, 1e300, 5.0, INF, 3.0])
    b = np.asarray([3.0, -3.0, -3.0, 3.0, 1.0, -1.0, 1.0, -1.0, 7.0, 0.0, 2.0, INF])
    with _quiet():
        _check(strided.fmod(strided.asarray(a), strided.asarray(b)), np.fmod(a, b), exact=True)
    ints = np.asarray([-128, -7, 7, 0, 127, -128], np.int8)
    div = np.asarray([-1, 3, -3, 5, 0, 7], np.int8)
    with _quiet():
        _check(strided.fmod(strided.asarray(ints), strided.asarray(div)), np.fmod(ints, div))
    u = np.asarray([7, 250], np.uint8)
    _check(strided.fmod(strided.asarray(u), 3), np.fmod(u, 3))
    bools = np.asarray([True, False, True])
    with _quiet():
        _check(strided.fmod(strided.asarray(bools), strided.asarray(bools)), np.fmod(bools, bools))


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
def test_divmod(dtype, rng):
    with _quiet():
        for where, t1, a1, t2, a2 in _binary_cases(dtype, rng):
            q, r = strided.divmod(t1, t2)
            nq, nr = np.divmod(a1, a2)
            _check(q, nq, (dtype, where, "q"), exact=True)
            _check(r, nr, (dtype, where, "r"), exact=True)
    out = (strided.empty(2, dtype=strided.int64), strided.empty(2, dtype=strided.int64))
    q, r = strided.divmod([7, -7], 3, out=out)
    assert q is out[0] and r is out[1]
    _check(q, [2, -3])
    _check(r, [1, 2])


def test_fmax_fmin_nan_handling():
    a = np.asarray([1.0, NAN, NAN, -0.0, INF, -INF])
    b = np.asarray([NAN, 2.0, NAN, 1.0, NAN, 3.0])
    for ours, ref in (BINARY["fmax"], BINARY["fmin"]):
        _check(ours(strided.asarray(a), strided.asarray(b)), ref(a, b), exact=True)
        _check(ours(strided.asarray(a), NAN), ref(a, NAN), exact=True)
        _check(ours(NAN, strided.asarray(a)), ref(NAN, a), exact=True)
        _check(ours(strided.asarray([1, 5], dtype="int16"), 3), ref(np.int16([1, 5]), 3))
        bools = np.asarray([True, False]), np.asarray([False, False])
        _check(ours(strided.asarray(bools[0]), bools[1]), ref(*bools))


def test_power_mod_absolute_aliases(rng):
    for layout, t, a in _inputs(strided.float64, rng):
        with _quiet():
            _check(strided.absolute(t), np.absolute(a), layout, exact=True)
            _check(strided.power(t, 2), np.power(a, 2), layout)
    c = np.asarray([3 + 4j, -1j])
    _check(strided.absolute(strided.asarray(c)), np.absolute(c))
    _check(strided.power(strided.asarray([2, 3]), 3), np.power([2, 3], 3))
    _check(strided.mod(strided.asarray([-7, 7]), -3), np.mod([-7, 7], -3))


# ---------------------------------------------------------------------------------------------
# Unary functions
# ---------------------------------------------------------------------------------------------

UNARY = {
    "sinc": (strided.sinc, np.sinc),
    "angle": (strided.angle, np.angle),
    "angle_deg": (lambda x: strided.angle(x, deg=True), lambda x: np.angle(x, deg=True)),
    "deg2rad": (strided.deg2rad, np.deg2rad),
    "rad2deg": (strided.rad2deg, np.rad2deg),
    "radians": (strided.radians, np.radians),
    "degrees": (strided.degrees, np.degrees),
    "nan_to_num": (strided.nan_to_num, np.nan_to_num),
    "around": (strided.around, np.around),
    "around_2": (lambda x: strided.around(x, 2), lambda x: np.around(x, 2)),
    "around_-1": (lambda x: strided.around(x, -1), lambda x: np.around(x, -1)),
}
COMPLEX_OK = ("sinc", "angle", "angle_deg", "nan_to_num", "around", "around_2", "around_-1")


@pytest.mark.parametrize(
    "dtype",
    [strided.int8, strided.int64, strided.float32, strided.float64, strided.complex128],
    ids=str,
)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_numpy(name, dtype, rng):
    if dtype.kind == "c" and name not in COMPLEX_OK:
        pytest.skip("NumPy does not take complex input here")
    ours, ref = UNARY[name]
    # around's scaling overflows differently for huge values; keep them moderate there
    cast_safe = name.startswith("around") and dtype.kind != "i"
    with _quiet():
        for layout, t, a in _inputs(dtype, rng, cast_safe=cast_safe):
            exact = name in ("nan_to_num", "around") or dtype.kind == "i"
            _check(ours(t), ref(a), (name, layout), exact=exact and name != "sinc")


def test_nan_to_num_options_and_in_place():
    x = np.asarray([NAN, INF, -INF, -0.0, 2.5], np.float32)
    _check(strided.nan_to_num(strided.asarray(x)), np.nan_to_num(x), exact=True)
    got = strided.nan_to_num(strided.asarray(x), nan=-1.0, posinf=1e3, neginf=-1e3)
    _check(got, np.nan_to_num(x, nan=-1.0, posinf=1e3, neginf=-1e3), exact=True)
    c = np.asarray([complex(NAN, INF), complex(-INF, 1.0)])
    _check(strided.nan_to_num(strided.asarray(c), nan=5.0), np.nan_to_num(c, nan=5.0))
    t = strided.asarray(x.copy())
    assert strided.nan_to_num(t, copy=False) is t
    _check(t, np.nan_to_num(x), exact=True)
    kept = strided.asarray(x.copy())
    strided.nan_to_num(kept)
    _check(kept, x, exact=True)  # copy=True leaves the input alone
    ints = strided.asarray([1, 2])
    assert strided.nan_to_num(ints) is not ints
    _check(strided.nan_to_num(ints), [1, 2])


def test_around_halves_and_integers():
    x = np.asarray([0.5, 1.5, 2.5, -0.5, -2.5, 1.25, 0.125, 12345.678])
    for d in (0, 1, 2, -1, -2):
        _check(strided.around(strided.asarray(x), d), np.around(x, d), d, exact=True)
    i = np.asarray([15, 25, 35, -15, -25, 1234], np.int32)
    for d in (0, 2, -1, -2):
        _check(strided.around(strided.asarray(i), d), np.around(i, d), d)
    out = strided.empty(3)
    assert strided.around([1.26, 2.0, 3.0], 1, out=out) is out
    _check(out, [1.3, 2.0, 3.0])


@pytest.mark.parametrize("dtype", [strided.int64, strided.float32, strided.float64], ids=str)
def test_amax_amin(dtype, rng):
    with _quiet():
        for layout, t, a in _inputs(dtype, rng):
            for fn, ref in ((strided.amax, np.amax), (strided.amin, np.amin)):
                for axis in (None, 0, -1, (0, 1)) if a.ndim == 2 else (None,):
                    for keepdims in (False, True):
                        kw = {"axis": axis, "keepdims": keepdims}
                        if a.size == 0:
                            kw["initial"] = 7
                            if a.ndim == 2 and axis == -1:
                                continue  # not an empty reduction: checked below
                        _check(fn(t, **kw), ref(a, **kw), (layout, axis, keepdims), exact=True)
    a = np.asarray([[1, 5], [7, 2]])
    _check(strided.amax(strided.asarray(a), initial=9), np.amax(a, initial=9))
    _check(strided.amin(strided.asarray(a), axis=0, initial=2), np.amin(a, axis=0, initial=2))
    e = np.zeros((0, 3))
    _check(strided.amax(strided.asarray(e), axis=0, initial=-1.0), np.amax(e, 0, initial=-1.0))
    _check(strided.amax(strided.asarray(e), axis=1, initial=-1.0), np.amax(e, 1, initial=-1.0))


# ---------------------------------------------------------------------------------------------
# isclose, allclose, array_equal, array_equiv
# ---------------------------------------------------------------------------------------------


def test_isclose_allclose():
    a = np.asarray([1e10, 1e-7, 1e-8, INF, INF, -INF, NAN, NAN, 1.0, 0.0, -0.0])
    b = np.asarray([1.00001e10, 1e-8, 1e-9, INF, -INF, -INF, NAN, 1.0, 1.0 + 1e-6, 1e-9, 0.0])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.0, "atol": 1e-7}, {"rtol": 1e-3}):
        _check(strided.isclose(strided.asarray(a), b, **kw), np.isclose(a, b, **kw), kw)
        _check(strided.isclose(strided.asarray(a), 1.0, **kw), np.isclose(a, 1.0, **kw), kw)
        _check(strided.isclose(strided.asarray(a), NAN, **kw), np.isclose(a, NAN, **kw), kw)
        assert strided.allclose(strided.asarray(a), b, **kw) == np.allclose(a, b, **kw)
    i = np.asarray([1, 2, 3], np.int32)
    _check(strided.isclose(strided.asarray(i), [1, 2, 4]), np.isclose(i, [1, 2, 4]))
    _check(strided.isclose(strided.asarray(i), 2), np.isclose(i, 2))
    f32 = np.asarray([1.0, 2.0], np.float32)
    _check(strided.isclose(strided.asarray(f32), f32 + 1e-6), np.isclose(f32, f32 + 1e-6))
    c = np.asarray([1 + 1j, NAN + 1j])
    _check(strided.isclose(strided.asarray(c), [1 + 1.000001j, NAN], equal_nan=True),
           np.isclose(c, [1 + 1.000001j, NAN], equal_nan=True))  # fmt: skip
    b_ = np.asarray([True, False])
    _check(strided.isclose(strided.asarray(b_), b_), np.isclose(b_, b_))
    assert strided.allclose([1.0, 2.0], strided.asarray([1.0, 2.0])) is True
    assert strided.allclose(strided.asarray([1.0]), [1.1]) is False


def test_array_equal_and_equiv():
    a = np.asarray([1.0, NAN, -0.0])
    cases = [
        (a, a.copy()),
        (a, np.asarray([1.0, NAN, 0.0])),
        (a, np.asarray([1.0, 2.0, 0.0])),
        (a, a[:2]),
        (np.asarray([1, 2]), np.asarray([1.0, 2.0])),
        (np.asarray([[1, 2]]), np.asarray([1, 2])),
        (np.asarray([1 + 1j, complex(NAN, 0)]), np.asarray([1 + 1j, complex(0, NAN)])),
        (np.zeros((0, 2)), np.zeros((0, 2))),
        (np.asarray([True, False]), np.asarray([1, 0])),
    ]
    for x, y in cases:
        for equal_nan in (False, True):
            got = strided.array_equal(strided.asarray(x), y, equal_nan=equal_nan)
            assert got is np.array_equal(x, y, equal_nan=equal_nan), (x, y, equal_nan)
        assert strided.array_equiv(strided.asarray(x), y) is np.array_equiv(x, y), (x, y)
    assert strided.array_equiv(strided.asarray([1, 2]), [[1, 2], [1, 2]]) is True
    assert strided.array_equiv(strided.asarray([1, 2]), [[1, 2], [1, 3]]) is False
    assert strided.array_equal(strided.asarray([1, 2]), [[1], [2, 3]]) is False  # ragged
    assert strided.array_equiv(strided.asarray([1, 2]), [[1], [2, 3]]) is False


# ---------------------------------------------------------------------------------------------
# Errors, devices, gradients
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, args, exc, fragment",
    [
        (strided.heaviside, ([1j], 0.5), TypeError, "heaviside: complex input"),
        (strided.deg2rad, ([1j],), TypeError, "deg2rad: complex input"),
        (strided.rad2deg, ([1j],), TypeError, "rad2deg: complex input"),
        (strided.divmod, ([1], [2]), ValueError, "out must be a pair"),
    ],
)
def test_errors(fn, args, exc, fragment):
    kwargs = {"out": (None,)} if fn is strided.divmod else {}
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert fragment in str(info.value)


@pytest.mark.parametrize("device", DEVICES)
def test_mathfuncs_on_device(device, rng):
    ref = make_values(SHAPE, strided.float64, rng)
    other = make_values(SHAPE, strided.float64, rng)
    t, a = make_layout("transposed", ref.T.copy(), rng)
    dt, do = on(device, t), on(device, strided.tensor(other.T.copy()))
    o = other.T.copy()
    with _quiet():
        cases = [
            (strided.fmax(dt, do), np.fmax(a, o), True),
            (strided.fmin(dt, 0.5), np.fmin(a, 0.5), True),
            (strided.fmod(dt, do), np.fmod(a, o), True),
            (strided.divmod(dt, 2.0)[1], np.divmod(a, 2.0)[1], True),
            (strided.nan_to_num(dt), np.nan_to_num(a), True),
            (strided.heaviside(dt, 0.5), np.heaviside(a, 0.5), True),
            (strided.sinc(dt), np.sinc(a), False),
            (strided.float_power(dt, 2), np.float_power(a, 2), False),
            (strided.angle(dt, deg=True), np.angle(a, deg=True), False),
            (strided.rad2deg(dt), np.rad2deg(a), False),
            (strided.around(dt, 1), np.around(a, 1), False),
            (strided.amax(dt, axis=0, initial=0.0), np.amax(a, axis=0, initial=0.0), True),
            (strided.isclose(dt, do, equal_nan=True), np.isclose(a, o, equal_nan=True), True),
        ]
    for k, (got, want, exact) in enumerate(cases):
        assert got.device.is_cuda, k
        _check(got, want, k, exact=exact)
    assert strided.allclose(dt, dt, equal_nan=True) is True
    assert strided.array_equal(dt, on(device, t), equal_nan=True) is True
    assert strided.array_equiv(dt, do) is bool(np.array_equiv(a, o))


def _leaf(values):
    return strided.tensor(np.asarray(values, np.float64), requires_grad=True)


def test_gradcheck():
    x = _leaf([0.3, -1.2, 2.0, 0.7])
    y = _leaf([0.5, -2.0, 1.1, NAN])
    assert gradcheck(strided.fmax, (x, _leaf([0.5, -2.0, 1.1, 0.1])))
    assert gradcheck(strided.fmin, (x, _leaf([0.5, -2.0, 1.1, 0.1])))
    assert gradcheck(lambda a: strided.fmax(a, y), (x,))  # NaN on one side: the other's gradient
    assert gradcheck(lambda a: strided.fmin(y, a), (x,))
    assert gradcheck(strided.sinc, (_leaf([0.3, -1.2, 2.5, 1e-3]),))
    assert gradcheck(strided.float_power, (_leaf([0.5, 1.5, 2.0]), _leaf([1.5, -0.5, 2.0])))
    assert gradcheck(lambda a: strided.float_power(a, 3), (x,))
