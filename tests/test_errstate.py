"""errstate / seterr / geterr / seterrcall: floating-point errors reported as NumPy reports them
(Note [Floating-point errors] in strided/_errstate.py), NumPy as the oracle."""

import warnings

import numpy as np
import pytest
from devices import DEVICES

import strided

# (strided's function, NumPy's, operands); values chosen to raise every kind NumPy reports
BINARY = [
    ("divide", [1.0, 0.0, -1.0, np.nan, np.inf, 6.0], [0.0, 0.0, 0.0, 0.0, np.inf, 3.0]),
    ("floor_divide", [1.0, 0.0, -1.0, np.inf, 7.0], [0.0, 0.0, 0.0, 1.0, 2.0]),
    ("remainder", [1.0, 0.0, np.inf, 1.0, 7.0], [0.0, 0.0, 1.0, np.inf, 2.0]),
    ("pow", [0.0, -1.0, 1e30, 2.0], [-1.0, 0.5, 20.0, 3.0]),
]
UNARY = [
    ("sqrt", "sqrt"),
    ("reciprocal", "reciprocal"),
    ("log", "log"),
    ("log1p", "log1p"),
    ("log2", "log2"),
    ("log10", "log10"),
    ("asin", "arcsin"),
    ("acos", "arccos"),
    ("acosh", "arccosh"),
    ("atanh", "arctanh"),
]
UNARY_INPUT = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, np.nan, np.inf]
NUMPY_NAMES = {"pow": "power"}


def _messages(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, sorted(str(w.message) for w in caught if w.category is RuntimeWarning)


def _layouts(values, dtype):
    """The same values contiguous and small (the fast path), stepped (the iterator's path)."""
    t = strided.asarray(values, dtype=dtype)
    stepped = strided.zeros(2 * len(values), dtype=dtype)
    stepped[::2] = t
    return {"contiguous": t, "stepped": stepped[::2]}


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("name,a,b", BINARY, ids=[row[0] for row in BINARY])
def test_binary_warnings_match_numpy(name, a, b, dtype):
    np_dtype = np.dtype(dtype.name)
    expected_values, expected = _messages(
        getattr(np, NUMPY_NAMES.get(name, name)),
        np.asarray(a, np_dtype),
        np.asarray(b, np_dtype),
    )
    assert expected  # the inputs do raise something
    tb = strided.asarray(b, dtype=dtype)
    for layout, ta in _layouts(a, dtype).items():
        got_values, got = _messages(getattr(strided, name), ta, tb)
        assert got == expected, layout
        np.testing.assert_array_equal(np.asarray(got_values), expected_values)


@pytest.mark.parametrize("name,numpy_name", UNARY, ids=[row[0] for row in UNARY])
def test_unary_warnings_match_numpy(name, numpy_name):
    for dtype in (strided.float32, strided.float64):
        _, expected = _messages(getattr(np, numpy_name), np.asarray(UNARY_INPUT, dtype.name))
        for layout, t in _layouts(UNARY_INPUT, dtype).items():
            _, got = _messages(getattr(strided, name), t)
            assert got == expected, (dtype, layout)


def test_ordinary_values_and_nans_do_not_warn():
    x = strided.asarray([1.0, np.nan, 4.0])
    with strided.errstate(all="raise"):
        strided.exp(strided.asarray([1000.0]))  # an unchecked op's flags do not leak
        assert np.isnan(strided.divide(x, 2.0)[1].item())
        strided.sqrt(x)
        strided.log(x)


def test_defaults_are_numpys_and_seterr_returns_the_old_modes():
    assert strided.geterr() == np.geterr()
    old = strided.seterr(all="ignore")
    try:
        assert old == np.geterr()
        assert set(strided.geterr().values()) == {"ignore"}
        _, caught = _messages(strided.divide, strided.asarray([1.0]), 0.0)
        assert caught == []
    finally:
        strided.seterr(**old)
    assert strided.geterr() == np.geterr()


def test_errstate_raise_ignore_nesting_and_restore_on_exception():
    one = strided.asarray([1.0])
    with strided.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="divide by zero encountered in divide"):
            one / 0
        with strided.errstate(divide="ignore"):
            assert (one / 0).item() == np.inf
        with pytest.raises(FloatingPointError):
            strided.log(strided.asarray([0.0]))
        assert strided.geterr()["invalid"] == "warn"  # the other kinds keep their modes
    before = strided.geterr()
    with pytest.raises(KeyError):
        with strided.errstate(all="raise"):
            raise KeyError("boom")
    assert strided.geterr() == before

    @strided.errstate(invalid="raise")
    def f():
        return strided.sqrt(strided.asarray([-1.0]))

    with pytest.raises(FloatingPointError, match="invalid value encountered in sqrt"):
        f()


def test_integer_division_by_zero_is_a_divide_error():
    a = strided.asarray([1, 2])
    with pytest.warns(RuntimeWarning, match="floor_divide: integer division by zero"):
        assert (a // 0).tolist() == [0, 0]
    with strided.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="integer division by zero"):
            a // 0
    with strided.errstate(divide="ignore"):
        _, caught = _messages(strided.remainder, a, 0)
        assert caught == []


def test_call_log_and_print_modes(capsys):
    seen = []
    with strided.errstate(divide="call", invalid="call", call=lambda *args: seen.append(args)):
        strided.asarray([1.0, 0.0]) / 0
    assert seen == [("divide by zero", 1), ("invalid value", 8)]  # NumPy's text and bits

    class Log:
        lines = []

        def write(self, text):
            self.lines.append(text)

    old = strided.seterrcall(Log())
    try:
        with strided.errstate(divide="log"):
            strided.log(strided.asarray([0.0]))
    finally:
        strided.seterrcall(old)
    assert Log.lines == ["Warning: divide by zero encountered in log\n"]
    with strided.errstate(invalid="print"):
        strided.sqrt(strided.asarray([-1.0]))
    assert "Warning: invalid value encountered in sqrt" in capsys.readouterr().err
    with strided.errstate(divide="call", call=None):
        with pytest.raises(ValueError, match="no callable"):
            strided.asarray([1.0]) / 0


def test_bad_modes_and_keys():
    with pytest.raises(ValueError, match="divide='loud' is not a mode"):
        strided.errstate(divide="loud")
    with pytest.raises(ValueError, match="all='x'"):
        strided.seterr(all="x")
    with pytest.raises(TypeError, match="overflow"):
        strided.errstate(overflow="raise")
    with pytest.raises(ValueError, match="callable"):
        strided.seterrcall(42)


def test_parallel_loops_report_every_threads_flags():
    threads = strided.get_num_threads()
    strided.set_num_threads(2)
    try:
        x = strided.ones(200_000)
        x[-1] = 0.0  # in the last chunk, run by a worker thread
        with strided.errstate(divide="raise"):
            with pytest.raises(FloatingPointError):
                strided.divide(1.0, x)
    finally:
        strided.set_num_threads(threads)


def test_the_warning_points_at_the_callers_line():
    with pytest.warns(RuntimeWarning) as record:
        strided.asarray([1.0]) / 0
    assert record[0].filename == __file__


@pytest.mark.parametrize("device", DEVICES)
def test_integer_division_on_a_gpu_follows_the_mode_in_force_at_the_wait(device):
    x = strided.asarray([1, 2], device=device)
    with strided.errstate(divide="raise"):
        x // 0  # found by the kernel, reported when the host next waits
        with pytest.raises(FloatingPointError, match="integer division by zero"):
            strided.cuda.synchronize(x.device)
    with strided.errstate(divide="ignore"):
        x // 0
        strided.cuda.synchronize(x.device)
