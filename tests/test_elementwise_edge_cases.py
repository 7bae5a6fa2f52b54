"""Elementwise ops at their edges: special values, integer division by zero, errors, overlap,
memory order, thread-count independence and the dispatcher (the generic tests over the OpInfo
rows are in test_elementwise.py).

NumPy 2 is the oracle throughout, with strided's documented exceptions: integer inputs to
float-valued ops compute in float64 (``opinfo_elementwise.reference``), and complex arithmetic
follows C99 at infinities (so complex special values are checked only where both agree on what
the answer is).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import ALL_DTYPES, LAYOUTS, make_layout, to_numpy_dtype
from opinfo_elementwise import EW_OPS, EW_OPS_BY_NAME, check, quiet, reference

import strided

SIGNED = (np.int8, np.int16, np.int32, np.int64)
UNSIGNED = (np.uint8, np.uint16, np.uint32, np.uint64)
FLOATS = (np.float32, np.float64)


def _t(values, dtype=None):
    return strided.asarray(np.asarray(values, dtype=dtype))


# ---------------------------------------------------------------------------------------------
# Integer division and remainder
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_integer_division_by_zero_gives_zero_and_warns(name, dtype):
    a = np.array([7, 0, 1, 100], dtype)
    b = np.array([0, 0, 3, 0], dtype)
    with np.errstate(divide="ignore"):
        expected = getattr(np, name)(a, b)
    assert (expected[[0, 1, 3]] == 0).all()
    with pytest.warns(RuntimeWarning, match=f"{name}: integer division by zero"):
        got = getattr(strided, name)(_t(a), _t(b))
    check(EW_OPS_BY_NAME[name], got, expected, f"{name} by zero")
    # the operators and a scalar divisor too
    op = (lambda x, y: x // y) if name == "floor_divide" else (lambda x, y: x % y)
    with pytest.warns(RuntimeWarning, match="division by zero"):
        got = op(_t(a), 0)
    np.testing.assert_array_equal(np.asarray(got), np.zeros(4, dtype), strict=True)
    # no zero divisor: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(strided, name)(_t(a), _t([1, 2, 3, 4], dtype))
    check(EW_OPS_BY_NAME[name], got, getattr(np, name)(a, np.array([1, 2, 3, 4], dtype)), name)


@pytest.mark.parametrize("dtype", SIGNED, ids=lambda d: np.dtype(d).name)
def test_int_min_divided_by_minus_one_wraps_as_numpy(dtype):
    lo = np.iinfo(dtype).min
    a = np.array([lo, lo, lo + 1, -7, 7, -7], dtype)
    b = np.array([-1, 1, -1, 2, -2, -2], dtype)
    with np.errstate(all="ignore"):
        quotient, rest = np.floor_divide(a, b), np.remainder(a, b)
    assert quotient[0] == lo and rest[0] == 0
    with quiet():
        check(EW_OPS_BY_NAME["floor_divide"], _t(a) // _t(b), quotient, "INT_MIN // -1")
        check(EW_OPS_BY_NAME["remainder"], _t(a) % _t(b), rest, "INT_MIN % -1")


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_integer_pow(dtype):
    base = np.array([0, 1, 2, 3, 0, 5, 2], dtype)
    expo = np.array([0, 0, 3, 4, 1, 0, 7], dtype)
    with np.errstate(all="ignore"):
        check(EW_OPS_BY_NAME["pow"], _t(base) ** _t(expo), base**expo, "integer pow")
        big = np.array([3, 7], dtype) ** np.array([40, 21], dtype)  # wraps
    check(EW_OPS_BY_NAME["pow"], _t([3, 7], dtype) ** _t([40, 21], dtype), big, "wrapping pow")


@pytest.mark.parametrize("dtype", SIGNED, ids=lambda d: np.dtype(d).name)
def test_integer_pow_to_a_negative_power_raises(dtype):
    x = _t([1, 2, 3], dtype)
    match = "integers to negative integer powers are not allowed"
    with pytest.raises(ValueError, match=match):
        strided.pow(x, _t([1, -1, 2], dtype))
    with pytest.raises(ValueError, match=match):
        x**-1
    with pytest.raises(ValueError, match=match):
        2 ** _t([-2], dtype)
    # floats are fine
    np.testing.assert_array_equal(np.asarray(x.astype("float64") ** -1), [1, 0.5, 1 / 3])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_squared_is_the_correctly_rounded_square(dtype):
    # x ** 2 with a scalar 2 is x * x in the float pow loop (binary.pyx.tp): NumPy's square,
    # bit for bit, specials and overflow included, through every spelling
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(1000) * 10.0 ** rng.integers(-30, 30, 1000)).astype(dtype)
    a[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(dtype).max]
    want = np.square(a)
    t = strided.asarray(a)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for got in (t**2, strided.pow(t, 2), strided.pow(t, 2.0), np.power(t, 2)):
            np.testing.assert_array_equal(np.asarray(got), want, strict=True)
        rtol = 4 * np.finfo(dtype).eps  # other powers: libm's pow, within NumPy's few ulps
        np.testing.assert_allclose(np.asarray(t**3), a**3, rtol=rtol)


def test_failed_integer_pow_leaves_out_unchanged():
    # Note [The elementwise iterator]: a failing call leaves out= untouched.
    x = _t([1, 2, 3], np.int8)
    out = strided.full((3,), 7, dtype="int8")
    with pytest.raises(ValueError, match="negative integer powers"):
        strided.pow(x, _t([2, -1, 2], np.int8), out=out)
    np.testing.assert_array_equal(np.asarray(out), [7, 7, 7])
    with pytest.raises(ValueError, match="negative integer powers"):
        x **= -1
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3])


# ---------------------------------------------------------------------------------------------
# Special float values: every float row on every pair of specials, against NumPy
# ---------------------------------------------------------------------------------------------

SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 7.0, 1e-30, -1e30]
SPECIALS += [np.inf, -np.inf, np.nan, -np.nan]
# which result zeros may have either sign: NumPy's SIMD maximum/minimum return either operand
# of a tie (the Array API leaves the sign of maximum(0.0, -0.0) unspecified)
ANY_ZERO_SIGN = {"maximum", "minimum", "clip"}


def _assert_same_specials(op, got, exp, args, where):
    got = np.asarray(got)
    assert got.dtype == exp.dtype, where
    tol_dtype = strided.float32 if exp.dtype == np.float32 else strided.float64
    rtol, atol = op.tolerances.get(tol_dtype, (0, 0))
    bad = []
    for i in range(exp.size):
        g, e = got.flat[i], exp.flat[i]
        if exp.dtype.kind == "b":
            ok = g == e
        elif np.isnan(e):
            ok = np.isnan(g)
        elif np.isinf(e):
            ok = g == e
        else:
            ok = abs(g - e) <= atol + rtol * abs(e)
            if e == 0 and op.name not in ANY_ZERO_SIGN:
                ok = ok and np.signbit(g) == np.signbit(e)
        if not ok:
            bad.append(f"{op.name}{tuple(x.flat[i] for x in args)}: got {g!r}, NumPy {e!r}")
    assert not bad, f"{where}:\n" + "\n".join(bad)


FLOAT_ROWS = [op for op in EW_OPS if "f" in op.kinds and op.nargs < 3]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", FLOAT_ROWS, ids=lambda op: op.name)
def test_special_float_values(op, dtype):
    if op.nargs == 2:
        args = (
            np.array([x for x in SPECIALS for _ in SPECIALS], dtype),
            np.array([y for _ in SPECIALS for y in SPECIALS], dtype),
        )
    else:
        args = (np.array(SPECIALS, dtype),)
    exp = reference(op, *args)
    got = op.op(*[strided.asarray(a) for a in args])
    _assert_same_specials(op, got, exp, args, f"{op.name} on {np.dtype(dtype)} specials")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_round_half_to_even(dtype):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.5, -0.0, 1e20, np.nan], dtype)
    got = np.asarray(strided.round(strided.asarray(x)))
    np.testing.assert_array_equal(got, np.round(x), strict=True)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.round(x)))  # round(-0.5) = -0.0


def test_round_complex_rounds_each_part_half_to_even():
    z = np.array([0.5 + 2.5j, -1.5 - 0.5j, 3.5 + 0.4j], np.complex64)
    check(EW_OPS_BY_NAME["round"], strided.round(strided.asarray(z)), np.round(z), "round")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_maximum_and_minimum_propagate_nan_from_either_side(dtype):
    a = np.array([np.nan, 1.0, np.nan, -np.inf], dtype)
    b = np.array([1.0, np.nan, np.nan, np.nan], dtype)
    for name in ("maximum", "minimum"):
        got = getattr(strided, name)(strided.asarray(a), strided.asarray(b))
        assert np.isnan(np.asarray(got)).all(), name
        got = getattr(strided, name)(strided.asarray(a), 0.0)  # a weak scalar too
        np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(a, 0.0))


def nextafter_cases(dtype):
    """Every pair of the values where stepping a float's bits could go wrong: both zeros, the
    smallest and largest subnormals, the smallest normal, 1, the largest finite, the
    infinities, NaN (each sign). strided's nextafter steps the bits on the CPU and on CUDA alike
    (Note [One scalar-math source] in strided/_cpu/scalar_math.h)."""
    info = np.finfo(dtype)
    tiny = info.smallest_subnormal
    values = [0.0, tiny, info.smallest_normal - tiny, info.smallest_normal, 1.0, info.max]
    values = [v for x in values for v in (x, -x)] + [np.inf, -np.inf, np.nan]
    x = np.array([a for a in values for _ in values], dtype)
    y = np.array([b for _ in values for b in values], dtype)
    return x, y


def assert_same_bits(got, want, where):
    """Equal bit for bit (signed zeros and subnormals included); any NaN for a NaN."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, where
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=where)
    bits = np.dtype(f"u{want.itemsize}")
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits), err_msg=where)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_nextafter_steps_through_subnormals_zeros_and_infinities(dtype):
    x, y = nextafter_cases(dtype)
    got = strided.nextafter(strided.asarray(x), strided.asarray(y))
    assert_same_bits(got, np.nextafter(x, y), f"nextafter on {np.dtype(dtype)}")


def test_copysign_and_signbit_see_the_sign_of_zero_and_nan():
    mag = np.array([1.0, 1.0, 2.0, 0.0, np.inf])
    sgn = np.array([-0.0, np.copysign(np.nan, -1), 0.0, -1.0, -np.nan])
    got = np.asarray(strided.copysign(strided.asarray(mag), strided.asarray(sgn)))
    np.testing.assert_array_equal(got, np.copysign(mag, sgn))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.copysign(mag, sgn)))
    x = np.array([-0.0, 0.0, -np.inf, np.copysign(np.nan, -1), -1e-300])
    np.testing.assert_array_equal(np.asarray(strided.signbit(strided.asarray(x))), np.signbit(x))


def test_sign():
    x = np.array([-0.0, 0.0, -3.5, 2.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(np.asarray(strided.sign(strided.asarray(x))), np.sign(x))
    i = np.array([-128, -1, 0, 1, 127], np.int8)
    check(EW_OPS_BY_NAME["sign"], strided.sign(strided.asarray(i)), np.sign(i), "int8 sign")
    z = np.array([3 + 4j, 0j, -2j, complex(-0.0, 0.0)])
    check(EW_OPS_BY_NAME["sign"], strided.sign(strided.asarray(z)), np.sign(z), "complex sign")


def test_sign_of_complex_infinities():
    # x / |x| is NaN for an infinite x; NumPy 2 (and the limit) give the direction
    z = np.array([complex(np.inf, 0), complex(0, -np.inf), complex(-np.inf, 2.0)])
    got = np.asarray(strided.sign(strided.asarray(z)))
    np.testing.assert_array_equal(got, np.sign(z))  # [1, -1j, -1]


# ---------------------------------------------------------------------------------------------
# Complex functions where strided and NumPy must agree
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["log", "log2", "log10"])
def test_complex_logs_of_zero_and_infinity(name, dtype):
    # C99: clog(+-0 + 0i) = -inf + (0 or pi)i, clog(inf + 0i) = inf + 0i; log2 and log10 only
    # scale it by a real constant, which must not turn the zero imaginary part into NaN
    z = np.array([0j, complex(-0.0, 0.0), complex(np.inf, 0.0), complex(0.0, np.inf)], dtype)
    with np.errstate(all="ignore"):
        exp = getattr(np, name)(z)
    got = np.asarray(getattr(strided, name)(strided.asarray(z)))
    np.testing.assert_allclose(got, exp, rtol=1e-6, err_msg=f"{name} of {z}")


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128), ids=lambda d: np.dtype(d).name)
def test_complex_log1p_keeps_the_sign_of_a_zero_imaginary_part(dtype):
    # on the branch cut (real part below -1) the sign of a zero imaginary part picks the side
    z = np.array([complex(-2.0, -0.0), complex(-3.0, 0.0)], dtype)
    got = np.asarray(strided.log1p(strided.asarray(z)))
    np.testing.assert_allclose(got, np.log1p(z), rtol=1e-6)  # imaginary parts -pi and pi


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["expm1", "log1p"])
def test_complex_expm1_and_log1p_are_accurate_near_zero(name, dtype):
    # the point of expm1 and log1p ("accurate near 0", their docstrings say)
    tiny = 1e-5 if dtype == np.complex64 else 1e-10
    z = np.array([complex(tiny, 0), complex(tiny, tiny), complex(-tiny, 2 * tiny)], dtype)
    got = np.asarray(getattr(strided, name)(strided.asarray(z)))
    x, y = z.real.astype(np.float64), z.imag.astype(np.float64)
    if name == "expm1":  # NumPy's formula: expm1(x) cos(y) - 2 sin(y/2)^2 + i exp(x) sin(y)
        exp = np.expm1(x) * np.cos(y) - 2 * np.sin(y / 2) ** 2 + 1j * np.exp(x) * np.sin(y)
    else:  # log|1 + z| = log1p(2x + x^2 + y^2) / 2 (NumPy's clog(1 + z) is inaccurate too)
        exp = np.log1p(x * (2 + x) + y * y) / 2 + 1j * np.arctan2(y, 1 + x)
    rtol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(got, exp, rtol=rtol, err_msg=f"{name}{z}")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["expm1", "log1p"])
def test_real_expm1_and_log1p_are_accurate_near_zero(name, dtype):
    x = np.array([1e-5, -1e-5, 1e-10, 1e-30], dtype)
    got = np.asarray(getattr(strided, name)(strided.asarray(x)))
    np.testing.assert_allclose(got, getattr(np, name)(x), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# Bool results hold 0 or 1
# ---------------------------------------------------------------------------------------------

BOOL_ROWS = [op for op in EW_OPS if op.result == "bool"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_conj_method_is_numpys_method(dtype, layout):
    # NumPy's a.conj() (and PyTorch's) is the array itself unless it is complex; the function
    # np.conjugate is the ufunc, int8 for bools (Note [Bools read as int8] in _iter.pyx)
    ref = np.array([[1, 0, 2], [3, 1, 0]]).astype(to_numpy_dtype(dtype))
    if dtype.kind == "c":
        ref = ref * (1 - 2j)
    pair = make_layout(layout, ref)
    if pair is None:
        return
    t, a = pair
    got, want = t.conj(), a.conj()
    assert got.dtype == dtype and np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    assert (got is t) == (dtype.kind != "c")
    assert t.conjugate().dtype == got.dtype


@pytest.mark.parametrize("device", ["cpu", *DEVICES])
@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_read_a_wide_int_by_its_truth(name, device):
    # NumPy reads a Python int that does not fit the tensor's dtype by whether it is 0 (within
    # int64's range: beyond, OverflowError), where the other binary ops raise (NEP 50)
    a = np.array([0, 1, 2], np.uint8)
    t = strided.asarray(a) if device == "cpu" else on(device, strided.asarray(a))
    fn, ref = getattr(strided, name), getattr(np, name)
    for s in (-1, 300, -(2**63), 2**63 - 1):
        np.testing.assert_array_equal(np.asarray(fn(t, s).cpu()), ref(a, s))
        np.testing.assert_array_equal(np.asarray(fn(s, t).cpu()), ref(s, a))
    with pytest.raises(OverflowError):
        fn(t, 2**63)


@pytest.mark.parametrize("op", BOOL_ROWS, ids=lambda op: op.name)
def test_bool_results_are_zero_or_one(op):
    # A bool tensor holding 255 prints as True but compares unequal to True and casts to 255.
    values = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 2.5]
    for dtype in op.dtypes:
        nd = to_numpy_dtype(dtype)
        if nd.kind == "c":
            v = np.array([complex(x, y) for x in values for y in values], nd)
        elif nd.kind == "f":
            v = np.array(values, nd)
        else:
            v = np.array([0, 1, 2, 5], nd) if nd.kind != "b" else np.array([0, 1], bool)
        args = [strided.asarray(v)] + [strided.asarray(v[::-1].copy())] * (op.nargs - 1)
        got = op.op(*args)
        raw = np.asarray(got).view(np.uint8)
        assert set(np.unique(raw)) <= {0, 1}, f"{op.name} on {nd}: bytes {np.unique(raw)}"
        np.testing.assert_array_equal(np.asarray(got == True), np.asarray(got))  # noqa: E712


# ---------------------------------------------------------------------------------------------
# Errors: the message names what went wrong, and out= is left untouched
# ---------------------------------------------------------------------------------------------


def _error_cases():
    """(id, exception, message pattern, the failing call, the out= it must leave alone)."""
    i8 = _t([1, 2, 3], np.int8)
    f32 = _t([1.0, 2.0, 3.0], np.float32)
    out_i8 = strided.full((3,), 9, dtype="int8")
    out_f32 = strided.full((3,), 9, dtype="float32")
    out_4 = strided.full((4,), 9, dtype="int8")
    expanded = strided.full((1,), 9, dtype="int8").expand(3)
    readonly = np.zeros(1)
    readonly.flags.writeable = False
    zeros = np.zeros
    cases = [
        ("broadcast", ValueError, r"add: shapes \(3, 1\) and \(4, 2\) cannot be broadcast",
         lambda: strided.add(_t(zeros((3, 1))), _t(zeros((4, 2)))), None),
        ("broadcast of 3 inputs", ValueError, r"where: shapes \(2,\) and \(3,\) cannot be",
         lambda: strided.where(_t([True, False]), _t([1, 2, 3]), 0), None),
        ("out= shape", ValueError, r"add: out= has shape \(4,\), but the result has shape \(3,\)",
         lambda: strided.add(i8, 1, out=out_4), out_4),
        ("out= smaller than the broadcast", ValueError, r"out= has shape \(3,\).*\(2, 3\)",
         lambda: strided.add(i8, _t(zeros((2, 3), np.int8)), out=out_i8), out_i8),
        ("float result into int out=", TypeError,
         r"divide: cannot write the float64 result into out= of dtype int8.*same_kind",
         lambda: strided.divide(i8, 2, out=out_i8), out_i8),
        ("sqrt of int into int out=", TypeError, r"sqrt: cannot write the float16 result",
         lambda: strided.sqrt(i8, out=out_i8), out_i8),
        ("complex into float out=", TypeError,
         r"multiply: cannot write the complex64 result into out= of dtype float32",
         lambda: strided.multiply(f32, 1j, out=out_f32), out_f32),
        ("int8.add_(1.5)", TypeError, "same_kind", lambda: i8.add_(1.5), i8),
        ("overlapping out=", RuntimeError, r"add: out= has elements that share memory",
         lambda: strided.add(i8, 1, out=expanded), expanded),
        ("read-only out=", ValueError, "read-only",
         lambda: strided.add(_t([1.0]), 1, out=strided.from_numpy(readonly)), None),
        ("subtract bool", TypeError, r"subtract does not support dtype bool",
         lambda: strided.subtract(_t([True]), _t([False])), None),
        ("bitwise_and float", TypeError, r"bitwise_and does not support dtype float32",
         lambda: strided.bitwise_and(f32, f32), None),
        ("float32 & 1", TypeError, r"bitwise_and does not support dtype float32",
         lambda: f32 & 1, None),
        ("shift floats", TypeError, r"bitwise_left_shift does not support dtype float32",
         lambda: strided.bitwise_left_shift(f32, f32), None),
        ("negative of bool", TypeError, r"negative does not support dtype bool",  # NumPy's too
         lambda: strided.negative(_t([True])), None),
        ("erf of complex", TypeError, r"erf does not support dtype complex128",
         lambda: strided.erf(_t([1j])), None),
        ("complex into int out=", TypeError, r"maximum: cannot write the complex128 result",
         lambda: strided.maximum(_t([1j, 2j, 3j]), 1, out=out_i8), out_i8),
        ("int8 + 300", OverflowError, r"300 does not fit in dtype int8", lambda: i8 + 300, None),
        ("uint8 - (-1)", OverflowError, r"-1 does not fit in dtype uint8",
         lambda: _t([1], np.uint8) - (-1), None),
        ("int8 + 300 into out=", OverflowError, "int8",
         lambda: strided.add(i8, 300, out=out_i8), out_i8),
        ("a string", TypeError, "string", lambda: strided.add(i8, "a"), None),
    ]  # fmt: skip
    for name, exc, match, call, out in cases:
        yield pytest.param(exc, match, call, out, id=name)


@pytest.mark.parametrize("exc,match,call,out", list(_error_cases()))
def test_errors(exc, match, call, out):
    before = None if out is None else np.asarray(out).copy()
    with pytest.raises(exc, match=match):
        call()
    if out is not None:
        np.testing.assert_array_equal(np.asarray(out), before, err_msg="out= changed")


def test_where_condition_scalar_and_tensor_methods():
    x = _t([1, 2, 3])
    np.testing.assert_array_equal(np.asarray(strided.where(True, x, 0)), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(x.where(x > 1, -1)), [-1, 2, 3])  # PyTorch order
    np.testing.assert_array_equal(np.asarray(x.clamp(2, 2)), [2, 2, 2])
    y = x.clone()
    assert y.clamp_(0, 2) is y
    np.testing.assert_array_equal(np.asarray(y), [1, 2, 2])


# ---------------------------------------------------------------------------------------------
# Out-of-range Python integers (NEP 50)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", SIGNED + UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_out_of_range_python_int_in_arithmetic_raises(dtype):
    info = np.iinfo(dtype)
    t = _t([1, 2], dtype)
    for value in (info.max + 1, info.min - 1):
        with pytest.raises(OverflowError):
            np.add(np.array([1, 2], dtype), value)  # NumPy 2 refuses too
        with pytest.raises(OverflowError, match=f"{value} does not fit in dtype"):
            t + value
        with pytest.raises(OverflowError):
            value * t


@pytest.mark.parametrize("dtype", (np.int8, np.uint8, np.uint64), ids=lambda d: np.dtype(d).name)
def test_out_of_range_python_int_in_comparisons_as_numpy(dtype):
    # NumPy 2 compares with an out-of-range Python int by value (uint8_array < -1 is all
    # False) instead of raising: NEP 50's special case for comparisons.
    a = np.array([0, 1, np.iinfo(dtype).max], dtype)
    t = strided.asarray(a)
    for value in (-1, 1000, 2**64):
        for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
            exp = getattr(np, name)(a, value)
            got = getattr(strided, name)(t, value)
            np.testing.assert_array_equal(np.asarray(got), exp, err_msg=f"{name}({a}, {value})")


def test_comparing_with_none_is_not_an_error():
    # Python's rule: == with an unrelated object is False, not an exception (so that
    # ``t in [None, t]`` and ``t == None`` work); NumPy and PyTorch both answer False.
    t = _t([1, 2])
    assert not np.any(np.asarray(t == None))  # noqa: E711
    assert np.all(np.asarray(t != None))  # noqa: E711


# ---------------------------------------------------------------------------------------------
# Overlap between out= and the inputs
# ---------------------------------------------------------------------------------------------


def _overlap_cases():
    # (description, strided statement, the NumPy statement; both on x = arange(n)-like data)
    yield (
        "x[1:] += x[:-1]",
        lambda x: x[1:].add_(x[:-1]),
        lambda a: np.add(a[1:], a[:-1], out=a[1:]),
    )
    yield (
        "x[:-1] += x[1:]",
        lambda x: x[:-1].add_(x[1:]),
        lambda a: np.add(a[:-1], a[1:], out=a[:-1]),
    )
    yield "x += x[::-1]", lambda x: x.add_(x.flip(0)), lambda a: np.add(a, a[::-1], out=a)
    yield "x *= x (exact aliasing)", lambda x: x.mul_(x), lambda a: np.multiply(a, a, out=a)
    yield "add(x, x, out=x)", lambda x: strided.add(x, x, out=x), lambda a: np.add(a, a, out=a)
    yield (
        "x[2:] = x[:-2] - x[1:-1]",
        lambda x: strided.subtract(x[:-2], x[1:-1], out=x[2:]),
        lambda a: np.subtract(a[:-2], a[1:-1], out=a[2:]),
    )
    yield (
        "out=x[::-1] of negative(x)",
        lambda x: strided.negative(x, out=x.flip(0)),
        lambda a: np.negative(a, out=a[::-1]),
    )
    yield (
        "x[::2] += x[1::2] (disjoint)",
        lambda x: x[::2].add_(x[1::2]),
        lambda a: np.add(a[::2], a[1::2], out=a[::2]),
    )
    yield (
        "where(x > 3, x[::-1], x, out=x)",
        lambda x: strided.where(x > 3, x.flip(0), x, out=x),
        lambda a: np.copyto(a, np.where(a > 3, a[::-1], a)),
    )


@pytest.mark.parametrize("case", list(_overlap_cases()), ids=lambda c: c[0])
@pytest.mark.parametrize("dtype", (np.int32, np.float64), ids=lambda d: np.dtype(d).name)
def test_out_overlapping_inputs_gives_numpys_answer(case, dtype):
    _, ours, theirs = case
    a = np.arange(1, 11, dtype=dtype) / (1 if dtype == np.int32 else 4)
    a = a.astype(dtype)
    x = strided.asarray(a.copy())
    with np.errstate(all="ignore"):
        theirs(a)
    ours(x)
    np.testing.assert_allclose(np.asarray(x), a, rtol=1e-15)


def test_overlap_2d_transpose_and_broadcast():
    a = np.arange(16.0).reshape(4, 4)
    x = strided.asarray(a.copy())
    x.add_(x.T)  # every element read after some are written, in the naive order
    np.testing.assert_array_equal(np.asarray(x), a + a.T)
    x = strided.asarray(a.copy())
    x.add_(x[0])  # row 0 is both an input (broadcast) and written
    np.testing.assert_array_equal(np.asarray(x), a + a[0])
    x = strided.asarray(a.copy())
    strided.multiply(x[:, :1], x[0], out=x)  # (4, 1) * (4,) into x itself
    np.testing.assert_array_equal(np.asarray(x), a[:, :1] * a[0])


def test_overlap_with_a_cast_out():
    # out= of another dtype that also overlaps an input: compute, then cast-copy
    x = strided.asarray(np.arange(6, dtype=np.float64))
    strided.add(x[:3].astype("float32"), 1.0, out=x[3:])
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 1, 2, 3])
    y = strided.asarray(np.arange(6, dtype=np.int64))
    strided.add(y[1:], y[:-1].astype("int8"), out=y[:-1])
    np.testing.assert_array_equal(np.asarray(y), [1, 3, 5, 7, 9, 5])


# ---------------------------------------------------------------------------------------------
# Memory order of a fresh result
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (4, 1, 3, 5), (5, 3, 1, 4), (1, 3, 1)])
def test_result_follows_the_inputs_memory_order(shape):
    # x.T + 1 is transposed too (NumPy's order='K', PyTorch's TensorIterator), size-1 dims or not
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    x = strided.asarray(a)
    for res, ref in [
        (x.T + 1, a.T + 1),
        (strided.exp(x.T), np.exp(a.T)),
        (x.T * x.T, a.T * a.T),
        (strided.where(x.T > 2, x.T, 0.0), np.where(a.T > 2, a.T, np.float32(0))),
    ]:
        np.testing.assert_allclose(np.asarray(res), ref, rtol=1e-6)
        big = [(n, s) for n, s in zip(res.shape, res.stride(), strict=True) if n > 1]
        want = [(n, s // 4) for n, s in zip(ref.shape, ref.strides, strict=True) if n > 1]
        assert big == want, f"{shape}: result strides {res.stride()}, NumPy {ref.strides}"


def test_broadcast_results_are_row_major():
    col = strided.asarray(np.arange(4096.0).reshape(4096, 1))
    row = strided.asarray(np.arange(4096.0).reshape(1, 4096))
    for res in (col + row, row + col):
        assert res.stride() == (4096, 1) and res.is_contiguous()
    np.testing.assert_array_equal(np.asarray(col + row)[5, :3], [5.0, 6.0, 7.0])
    np.testing.assert_array_equal(np.asarray(row * col)[7, 2:4], [14.0, 21.0])
    # a transposed input with a broadcast one: the transposed input sets the order
    x = strided.asarray(np.ones((300, 200))).T
    assert (x + row[:, :300]).stride() == (1, 200)


def test_mixed_orders_give_correct_values(rng):
    a = rng.normal(size=(6, 5))
    b = rng.normal(size=(5, 6))
    x, y = strided.asarray(a), strided.asarray(b)
    np.testing.assert_array_equal(np.asarray(x + y.T), a + b.T)
    np.testing.assert_array_equal(
        np.asarray(x[::-1, ::2] * y.T[::-1, ::2]), a[::-1, ::2] * b.T[::-1, ::2]
    )


# ---------------------------------------------------------------------------------------------
# Thread count: the same bits with 1 and 2 threads
# ---------------------------------------------------------------------------------------------


def test_results_do_not_depend_on_the_thread_count(rng, split_every_loop):
    a = rng.normal(0, 10, 300_000).astype(np.float32)
    b = rng.normal(0, 10, 300_000).astype(np.float32)
    x, y = strided.asarray(a), strided.asarray(b)
    xt = strided.asarray(rng.normal(size=(600, 500)).astype(np.float32)).T
    results = []
    for threads in (1, 2):
        strided.set_num_threads(threads)
        assert strided.get_num_threads() == threads
        results.append(
            [
                np.asarray(strided.exp(x)).tobytes(),
                np.asarray(x + y).tobytes(),
                np.asarray(strided.exp(xt)).tobytes(),
                np.asarray(xt * 3 + 1).tobytes(),
                np.asarray(strided.maximum(x, y[::-1])).tobytes(),
            ]
        )
        if threads == 2:
            plan = strided.plan("exp", x).explain()
            assert "parallel" in plan.split("threads:")[1], plan  # really two threads
    assert results[0] == results[1]
    np.testing.assert_allclose(np.frombuffer(results[0][0], np.float32), np.exp(a), rtol=2e-6)


# ---------------------------------------------------------------------------------------------
# The dispatcher: trace_dispatch and the fast path
# ---------------------------------------------------------------------------------------------


def test_trace_dispatch_records_op_key_kernel_and_plan():
    x = strided.ones((2, 3), dtype="float32")
    y = strided.ones((3,), dtype="float32")
    with strided.trace_dispatch() as trace:
        strided.add(x, y)
        strided.exp(x.T)
        x.mul_(2)
    assert [r["op"] for r in trace] == ["add", "exp", "multiply"]
    assert all(r["key"] == "CPU" for r in trace)
    assert "add" in trace[0]["kernel"] and "exp" in trace[1]["kernel"]
    assert "broadcast shape (2, 3)" in trace[0]["plan"]
    assert "broadcast shape (3, 2)" in trace[1]["plan"]
    assert trace[2]["out="] is True
    assert trace[0]["inputs"] == ["float32[2, 3]", "float32[3]"]
    assert "add(float32[2, 3], float32[3]) -> key CPU" in str(trace)
    # TRACE leaves the key sets after the trace (Note [Dispatch key sets] in _dispatch.py)
    assert strided._dispatch.forced[0] == 0
    assert not strided._dispatch.possible[0] & strided._dispatch.TRACE


def test_fast_path_and_traced_path_agree(rng):
    a = rng.normal(size=(4, 5)).astype(np.float32)
    b = rng.integers(-5, 5, (5,)).astype(np.int16)
    x, y = strided.asarray(a), strided.asarray(b)

    def run():
        out = strided.empty((5, 4), dtype="float64")
        return [
            x + y,
            2 - x.T,
            strided.exp(x[::-1]),
            strided.atan2(y, x),
            strided.where(x > 0, x, y),
            strided.clip(x, -0.5, 0.5),
            strided.multiply(x.T, 3, out=out),
            x == y,
            -y,
        ]

    fast = run()
    with strided.trace_dispatch() as trace:
        traced = run()
    assert len(trace) >= 9
    for f, t in zip(fast, traced, strict=True):
        assert f.dtype is t.dtype and f.shape == t.shape and f.stride() == t.stride()
        assert np.asarray(f).tobytes() == np.asarray(t).tobytes()


def test_plain_cpu_calls_skip_the_dispatcher_only_when_it_would_pick_the_cpu_kernel():
    # Note [Dispatch key sets]: with autograd active and a CUDA tensor alive, a CPU op on
    # tensors that need no gradient goes straight to the CPU kernel, and anything else does not
    from strided._cpu import binary as _binary
    from strided.autograd import recording

    strided.ones(1, device="cuda-emulated")  # activates the CUDA key
    w = strided.ones(3).requires_grad_()
    x = strided.arange(3.0)
    assert recording._activated and strided._dispatch.possible[0] != strided._dispatch.CPU
    calls = []
    real = strided._dispatch.call
    try:
        strided._dispatch.call = lambda *a, **k: calls.append(a[0]) or real(*a, **k)
        _binary.set_front_end(  # the front ends look the dispatcher up once
            strided._dispatch.possible, strided._dispatch.forced, strided.asarray,
            strided._dispatch.call)  # fmt: skip
        plain = [x + 1, x * x, strided.exp(x), strided.negative(x)]
        assert calls == [] and all(t.grad_fn is None for t in plain)
        y, z = w * x, strided.exp(w)  # a gradient is needed: the Autograd key records them
        assert calls == ["multiply", "exp"] and y.grad_fn is not None and z.grad_fn is not None
        out = strided.empty(3)
        strided.add(x, x, out=out)  # out=: the dispatcher (in-place writes are recorded)
        assert calls[-1] == "add"
        with strided.trace_dispatch() as trace:
            x + 1, strided.exp(x)
        assert [r["op"] for r in trace] == ["add", "exp"]
    finally:
        strided._dispatch.call = real
        _binary.set_front_end(
            strided._dispatch.possible, strided._dispatch.forced, strided.asarray, real
        )


def test_trace_of_a_failing_call_still_raises_the_real_error():
    with strided.trace_dispatch() as trace:
        with pytest.raises(ValueError, match="cannot be broadcast"):
            strided.add(strided.ones(3), strided.ones(4))
    assert trace[0]["op"] == "add" and "no plan" in trace[0]["plan"]


def test_every_op_is_registered_for_the_cpu_key():
    ops = strided._dispatch.registered_ops()
    for op in EW_OPS:
        if op.name not in ("clip", "lerp"):  # compositions of other ops
            assert "CPU" in ops[op.name], op.name
