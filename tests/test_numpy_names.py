"""NumPy names strided lacked (issue 16): NumPy's spellings of Array API ops, the elementwise
math of strided/_ops/ufunclike.py, against NumPy over dtypes and layouts, with bad input."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import layouts

import strided

DTYPES = ("bool", "int64", "float32", "float64", "complex128")


def _values(dtype, rng, shape=(3, 4)):
    a = rng.standard_normal(shape) * 5
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype) if dtype != "bool" else a > 0
    if dtype in ("float32", "float64"):
        a.flat[:5] = [0.0, -0.0, np.inf, -np.inf, np.nan]
    return a


def _same(got, want, where, rtol=0.0):
    g = np.asarray(got)
    want = np.asarray(want)
    wdt = want.dtype  # float16 for bools: Note [Float results of integer input] in _dtype.pyx
    if wdt == np.float16 and not rtol:
        rtol = 1e-3  # computed in float32 and rounded once; NumPy's float16 loops may differ
    assert g.shape == want.shape and g.dtype == wdt, (where, g.dtype, wdt, g.shape, want.shape)
    if rtol:
        np.testing.assert_allclose(g, want.astype(wdt), rtol=rtol, atol=0, err_msg=where)
    else:
        np.testing.assert_array_equal(g, want.astype(wdt), err_msg=where)


# -- NumPy's spellings -------------------------------------------------------------------------

ALIASES = {
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctan2": "atan2",
    "arctanh": "atanh",
    "bitwise_not": "bitwise_invert",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
    "conjugate": "conj",
    "true_divide": "divide",
}


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_numpy_spelling_is_the_same_function(name):
    fn = getattr(strided, name)
    assert fn is getattr(strided, ALIASES[name]) and name in strided.__all__
    assert fn.nin == getattr(np, name).nin  # the ufunc table set its attributes
    x = strided.asarray([1, 2, 3]) if "shift" in name or "not" in name or "invert" in name else None
    x = strided.asarray([0.25, 0.5, 0.75]) if x is None else x
    args = (x, x) if fn.nin == 2 else (x,)
    with np.errstate(all="ignore"), strided.errstate(all="ignore"):
        want = getattr(np, name)(*(np.asarray(a) for a in args))
        got = getattr(np, name)(*args)  # NumPy's ufunc on tensors runs strided's (__array_ufunc__)
        mine = fn(*args)
    assert isinstance(got, strided.Tensor)
    _same(got, want, name, rtol=1e-15)
    _same(mine, want, name, rtol=1e-15)


# -- elementwise math --------------------------------------------------------------------------

# name -> dtypes NumPy accepts (the others must raise TypeError)
UNARY = {
    "cbrt": ("bool", "int64", "float32", "float64"),
    "exp2": DTYPES,
    "fabs": ("bool", "int64", "float32", "float64"),
    "fix": ("bool", "int64", "float32", "float64"),
    "rint": DTYPES,
    "spacing": ("bool", "int64", "float32", "float64"),
    "isposinf": ("bool", "int64", "float32", "float64"),
    "isneginf": ("bool", "int64", "float32", "float64"),
    "iscomplex": DTYPES,
    "isreal": DTYPES,
    "i0": ("bool", "int64", "float32", "float64"),
}
# cbrt: strided's float32 root is the float64 one rounded once (correctly rounded, measured
# on 2e5 values), NumPy's C library cbrtf is within 0.94 ulp, so they differ by an ulp in ~10%
# of elements; float64: a Newton step on a ** (1/3), within 3 ulp of the root (ufunclike.py)
RTOL = {"cbrt": 1.2e-15, "exp2": 1e-15, "i0": 1e-6}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_as_numpy(name, dtype, rng):
    fn, ref = getattr(strided, name), getattr(np, name)
    ok = dtype in UNARY[name]
    for layout, t, a in layouts(_values(dtype, rng), rng):
        a = np.asarray(a)
        if not ok:
            with pytest.raises(TypeError, match=name):
                fn(t)
            continue
        with np.errstate(all="ignore"), strided.errstate(all="ignore"):
            want, got = ref(a), fn(t)
        rtol = RTOL.get(name, 0.0) * (1e8 if dtype == "float32" and name != "i0" else 1)
        _same(got, want, f"{name} {dtype} {layout}", rtol=rtol)


@pytest.mark.parametrize("dtype", ("float32", "float64", "int64"))
def test_modf_frexp_ldexp_as_numpy(dtype, rng):
    a = _values(dtype, rng, (4, 5))
    if dtype == "float64":
        a.flat[5:9] = [5e-324, 1.7e308, -2.0, 2.0**-1022]
    for layout, t, x in layouts(a, rng):
        x = np.asarray(x)
        for g, w in zip(strided.modf(t), np.modf(x), strict=True):
            _same(g, w, f"modf {layout}")
            assert np.array_equal(np.signbit(np.asarray(g)), np.signbit(w)), layout
        for g, w in zip(strided.frexp(t), np.frexp(x), strict=True):
            _same(g, w, f"frexp {layout}")
        e = rng.integers(-60, 60, x.shape)
        with np.errstate(all="ignore"):
            _same(strided.ldexp(t, strided.asarray(e)), np.ldexp(x, e), f"ldexp {layout}")
    with pytest.raises(TypeError, match="ldexp: x2"):
        strided.ldexp(strided.ones(2), strided.ones(2))
    with pytest.raises(TypeError, match="modf"):
        strided.modf(strided.ones(2, dtype=strided.complex128))


@pytest.mark.parametrize("dtype", ("int64", "int8", "uint8"))
def test_gcd_lcm_as_numpy(dtype, rng):
    x = rng.integers(-60, 60, (4, 6)).astype(dtype)
    for layout, t, a in layouts(x, rng):
        a = np.asarray(a)
        y = rng.integers(-60, 60, a.shape).astype(dtype)
        _same(strided.gcd(t, strided.asarray(y)), np.gcd(a, y), f"gcd {layout}")
        _same(strided.lcm(t, strided.asarray(y)), np.lcm(a, y), f"lcm {layout}")
        _same(strided.gcd(t, 12), np.gcd(a, 12), f"gcd scalar {layout}")
    with pytest.raises(TypeError, match="gcd: integer"):
        strided.gcd(strided.ones(2), 2)
    yes = strided.ones(2, dtype=strided.bool)
    with pytest.raises(TypeError, match="lcm: integer"):
        strided.lcm(yes, yes)


def test_logaddexp2_unwrap_real_if_close_as_numpy(rng):
    for layout, t, x in layouts(_values("float64", rng), rng):
        b = _values("float64", rng, np.shape(x))
        with np.errstate(all="ignore"):
            want = np.logaddexp2(np.asarray(x), b)
        _same(strided.logaddexp2(t, strided.asarray(b)), want, layout, rtol=1e-15)
    _same(strided.logaddexp2(strided.asarray([1, 2]), 3), np.logaddexp2([1, 2], 3), "int")
    ph = np.cumsum(rng.standard_normal((3, 30)), axis=1) % (2 * np.pi)
    for layout, t, x in layouts(ph, rng):
        for axis in range(max(np.ndim(x), 1)):
            if np.ndim(x) == 0:
                break
            want = np.unwrap(np.asarray(x), axis=axis)
            _same(strided.unwrap(t, axis=axis), want, f"unwrap {layout}", rtol=1e-14)
    ints = np.arange(20) * 3 % 7
    _same(strided.unwrap(strided.asarray(ints), period=7), np.unwrap(ints, period=7), "int")
    _same(strided.unwrap(strided.asarray(ph), discont=4.0), np.unwrap(ph, discont=4.0), "d", 1e-14)
    z = np.array([2.1 + 4e-14j, 5.2 + 3e-15j])
    _same(strided.real_if_close(strided.asarray(z)), np.real_if_close(z), "close")
    _same(strided.real_if_close(strided.asarray(z), tol=1), np.real_if_close(z, tol=1), "tol")
    _same(strided.real_if_close(strided.asarray([1.5])), np.real_if_close([1.5]), "real")
    for obj in ([1.0], [1j], strided.asarray([1j]), np.ones(2, complex), 3, 2j):
        assert strided.iscomplexobj(obj) is np.iscomplexobj(np.asarray(obj))
        assert strided.isrealobj(obj) is np.isrealobj(np.asarray(obj))


# -- small helpers and windows -------------------------------------------------------------------


def test_introspection_as_numpy(rng):
    for layout, t, a in layouts(rng.standard_normal((3, 4)), rng):
        a = np.asarray(a)
        assert strided.ndim(t) == np.ndim(a) and strided.shape(t) == np.shape(a), layout
        assert strided.size(t) == np.size(a), layout
        if a.ndim:
            assert strided.size(t, -1) == np.size(a, -1), layout
        assert strided.iterable(t) is np.iterable(a), layout
        assert strided.isscalar(t) is False
        _same(strided.copy(t), a, layout)
        _same(strided.asfortranarray(t), np.asfortranarray(a), layout)
        if a.size > 1:  # 0-d becomes (1,) and empty is both orders: any stride is right
            assert strided.asfortranarray(t).strides == np.asfortranarray(a).strides, layout
        _same(strided.asanyarray(t), a, layout)
        assert [(i, v) for i, v in strided.ndenumerate(t)] == list(np.ndenumerate(a)), layout
    assert list(strided.ndindex(2, 3)) == list(np.ndindex(2, 3)) == list(strided.ndindex((2, 3)))
    assert strided.ndim([[1, 2]]) == 2 and strided.shape(5) == () and strided.isscalar(2.5)
    assert strided.euler_gamma == np.euler_gamma
    x = strided.arange(3)
    y = strided.copy(x)
    y[0] = 9
    assert int(x[0]) == 0
    with pytest.raises(ValueError, match="infs or NaNs"):
        strided.asarray_chkfinite([1.0, np.nan])
    _same(strided.asarray_chkfinite([1, 2]), np.asarray_chkfinite([1, 2]), "chkfinite")


def test_shares_memory_as_numpy():
    a = np.arange(24, dtype=np.int64)
    x = strided.asarray(a.copy())
    cases = [
        ((slice(None, None, 2),), (slice(1, None, 2),)),
        ((slice(0, 10),), (slice(9, 12),)),
        ((slice(0, 10),), (slice(10, 12),)),
        ((slice(None, None, -1),), (slice(3, 4),)),
        ((slice(0, 0),), (slice(None),)),
    ]
    for i, j in cases:
        want_may = np.may_share_memory(a[i], a[j])
        assert strided.may_share_memory(x[i], x[j]) is want_may, (i, j)
        assert strided.shares_memory(x[i], x[j]) is np.shares_memory(a[i], a[j]), (i, j)
        assert strided.may_share_memory(x[i], x[j], max_work=None) is np.shares_memory(a[i], a[j])
    m = x.reshape(4, 6)
    assert strided.shares_memory(m[:, ::2], m[:, 1::2]) is False
    assert strided.shares_memory(m.T, m[1:2]) is True
    assert strided.may_share_memory(x, strided.asarray(a)) is False
    assert strided.shares_memory([1, 2], [1, 2]) is False


def test_trim_zeros_rollaxis_matvec_vecmat_as_numpy(rng):
    f = np.array([0, 0, 3, 0, 4, 0, 0])
    for trim in ("fb", "f", "b", "F"):
        _same(strided.trim_zeros(strided.asarray(f), trim), np.trim_zeros(f, trim), trim)
    _same(strided.trim_zeros(strided.zeros(3)), np.trim_zeros(np.zeros(3)), "all zeros")
    m = np.zeros((4, 5))
    m[1:3, 2] = 1
    _same(strided.trim_zeros(strided.asarray(m)), np.trim_zeros(m), "2-d")
    _same(strided.trim_zeros(strided.asarray(m), axis=1), np.trim_zeros(m, axis=1), "axis")
    with pytest.raises(ValueError, match="trim"):
        strided.trim_zeros(strided.asarray(f), "x")
    t = strided.ones((3, 4, 5, 6))
    for axis, start in ((3, 1), (2, 0), (1, 4), (-1, -3), (0, 2)):
        want = np.rollaxis(np.ones((3, 4, 5, 6)), axis, start).shape
        assert strided.rollaxis(t, axis, start).shape == want, (axis, start)
    with pytest.raises(ValueError, match="start"):
        strided.rollaxis(t, 0, 9)
    for dtype in ("int64", "float64", "complex128"):
        for layout, x, a in layouts(_values(dtype, rng, (2, 3, 3)), rng):
            a = np.asarray(a)
            if a.ndim < 2 or 0 in a.shape:
                continue
            v = _values(dtype, rng, (a.shape[-1],))
            with np.errstate(all="ignore"):  # inf * 0 in the sums
                want, got = np.matvec(a, v), strided.matvec(x, strided.asarray(v))
            _same(got, want, f"matvec {dtype} {layout}", rtol=1e-12 if dtype != "int64" else 0)
            v = _values(dtype, rng, (a.shape[-2],))
            with np.errstate(all="ignore"):
                want, got = np.vecmat(v, a), strided.vecmat(strided.asarray(v), x)
            _same(got, want, f"vecmat {dtype} {layout}", rtol=1e-12 if dtype != "int64" else 0)
    with pytest.raises(ValueError, match="matvec"):
        strided.matvec(strided.ones(3), strided.ones(3))


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning", "kaiser"])
def test_windows_as_numpy(name):
    for M in (-1, 0, 1, 2, 5, 8):
        args = (M, 5.0) if name == "kaiser" else (M,)
        want = getattr(np, name)(*args)
        got = np.asarray(getattr(strided, name)(*args))
        assert got.dtype == want.dtype and got.shape == want.shape, (name, M)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15, err_msg=f"{name} {M}")
    with pytest.raises(TypeError, match="M"):
        getattr(strided, name)(*((2.5, 5.0) if name == "kaiser" else (2.5,)))


# -- small bugs ------------------------------------------------------------------------------------


def test_outer_flattens_nd_inputs_as_numpy(rng):
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 2))
    _same(strided.outer(strided.asarray(a), strided.asarray(b)), np.outer(a, b), "2-d", 1e-15)
    _same(strided.outer(strided.asarray(2.0), strided.asarray(b)), np.outer(2.0, b), "0-d", 1e-15)


# -- histogram_bin_edges, histogram2d, histogramdd ---------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_histograms_in_more_dims_match_numpy(dtype, rng):
    sample = (rng.standard_normal((300, 3)) * 3).astype(dtype)
    w = rng.random(300)
    for layout, t, a in layouts(sample, rng):
        if a.ndim != 2 or a.shape[1] != 3:
            continue
        where = f"{dtype} {layout}"
        for kw in (
            {"bins": 4},
            {"bins": (2, 3, 5), "range": [(-2, 2), (-1, 3), (0, 1)]},
            {"bins": [np.array([-9.0, 0.0, 9.0])] * 3, "density": True},
        ):
            got, gedges = strided.histogramdd(t, **kw)
            want, wedges = np.histogramdd(a, **kw)
            _same(got, want, f"histogramdd {kw} {where}", rtol=1e-12)
            for g, e in zip(gedges, wedges, strict=True):
                _same(g, e, f"histogramdd edges {where}", rtol=1e-12)
        if a.shape[0]:
            got = strided.histogramdd(t, bins=3, weights=strided.asarray(w[: a.shape[0]]))[0]
            _same(got, np.histogramdd(a, 3, weights=w[: a.shape[0]])[0], where, rtol=1e-12)
        x, y = t[:, 0], t[:, 1]
        for bins in (5, [2, 6], np.linspace(-4, 4, 5)):
            sb = strided.asarray(bins) if isinstance(bins, np.ndarray) else bins
            got = strided.histogram2d(x, y, sb)
            want = np.histogram2d(a[:, 0], a[:, 1], bins)
            for g, e in zip(got, want, strict=True):
                _same(g, e, f"histogram2d bins={bins} {where}", rtol=1e-12)
        flat = t.reshape(-1)
        for bins in (7, [0.0, 1.0, 5.0]):
            want = np.histogram_bin_edges(a.reshape(-1), bins)
            _same(strided.histogram_bin_edges(flat, bins), want, f"bin_edges {where}", rtol=1e-12)


def test_histograms_in_more_dims_refuse_bad_input():
    s = strided.zeros((5, 2))
    with pytest.raises(ValueError, match="bins has 3 entries for a sample of 2 dims"):
        strided.histogramdd(s, bins=(2, 3, 4))
    with pytest.raises(ValueError, match="weights has 4 values for 5 samples"):
        strided.histogramdd(s, weights=strided.ones(4))
    with pytest.raises(ValueError, match="must be 1-D of one length"):
        strided.histogram2d(strided.zeros(3), strided.zeros(4))
    with pytest.raises(ValueError, match="bins must be a positive integer"):
        strided.histogram2d(strided.zeros(3), strided.zeros(3), bins=0)
    with pytest.raises(TypeError, match="must be real"):
        strided.histogramdd(strided.zeros((3, 2), dtype="complex128"))


def test_require_meets_numpys_requirements(rng):
    ref = rng.standard_normal((3, 4))
    for layout, t, a in layouts(ref, rng):
        for reqs in (None, "C", ["F"], ["O"], ["W", "C"], "A", "E", ["C_CONTIGUOUS"]):
            got, want = strided.require(t, "float32", reqs), np.require(a, "float32", reqs)
            _same(got, want, f"require {reqs} {layout}")
            if reqs in ("C", ["W", "C"], ["C_CONTIGUOUS"]):
                assert got.is_contiguous(), (layout, reqs)
            if reqs == ["F"] and got.ndim > 1:
                assert got.T.is_contiguous(), layout
            if reqs == ["O"]:
                assert not strided.shares_memory(got, t), layout
    x = strided.ones((2, 3))
    assert strided.require(x) is x and strided.require(x, requirements="C") is x
    with pytest.raises(ValueError, match="unknown requirement 'Q'"):
        strided.require(x, requirements="Q")
    with pytest.raises(ValueError, match="both C and F"):
        strided.require(x, requirements="CF")
