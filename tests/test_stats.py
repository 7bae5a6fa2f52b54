"""strided._ops.stats and quantiles against NumPy: nan-aware reductions, order statistics, averages,
covariance, histograms, differences and interpolation.

NumPy is the oracle for values and dtypes, over the layouts of ``layouts.py`` (contiguous,
transposed, stepped, negative-stride, expanded, 0-d, empty) and int, float and bool inputs, with
NaNs and ties. Where NumPy raises, strided must raise the same exception type (NumPy's
AxisError counts as strided's IndexError). A subset runs on the CUDA devices of ``devices.py``
and must give the CPU's values with its results on the device; the differentiable functions get
a float64 ``gradcheck``.
"""

# ruff: noqa: B023 - the lambdas given to compare() run at once, inside their loop iteration

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, on, output_pairs, same_on_device
from layouts import LAYOUTS, agrees_with_numpy, make_layout

import strided
from strided.autograd import gradcheck

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

NAN = float("nan")


def values(shape, dtype, rng, nan=True):
    """Small values with ties (and NaNs for floats), so that sorts and counts are exercised."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -5, 6, shape).astype(dt)
    v = np.round(rng.normal(0, 3, shape), 1).astype(dt)
    if nan:
        v[rng.random(shape) < 0.2] = np.nan
    return v


def to_np(t):
    return np.asarray(t.cpu()) if t.device.is_cuda else np.asarray(t)


def close(got, want, *, dtype=True, rtol=None, where=""):
    """Same shape (and dtype), values within rounding, NaN where NumPy has NaN."""
    want = np.asarray(want)
    assert isinstance(got, strided.Tensor), (type(got), where)
    g = to_np(got)
    assert g.shape == want.shape, (g.shape, want.shape, where)
    if dtype:
        assert g.dtype == want.dtype, (g.dtype, want.dtype, where)
    if rtol is None:
        rtol = 2e-5 if np.float32 in (g.dtype, want.dtype) else 1e-10
    if want.dtype.kind in "fc" or g.dtype.kind in "fc":
        np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, want, err_msg=where)


def compare(fs, fn, where="", **kw):
    """Run NumPy's ``fn``; strided's ``fs`` must match its result, or raise like it."""
    agrees_with_numpy(fs, fn, lambda g, w, at: close(g, w, where=at, **kw), where)


def cases(shape, dtypes, layouts=LAYOUTS, seed=0, nan=True):
    """(where, tensor, array) for every dtype and layout."""
    rng = np.random.default_rng(seed)
    for dt in dtypes:
        ref = values(shape, dt, rng, nan)
        for layout in layouts:
            pair = make_layout(layout, ref, rng)
            if pair is not None:
                yield f"{np.dtype(dt).name} {layout}", pair[0], pair[1]


# ---------------------------------------------------------------------------------------------
# Reductions: nan-aware, ptp, median, average
# ---------------------------------------------------------------------------------------------

REDUCTIONS = {
    "nansum": {},
    "nanprod": {},
    "nanmean": {},
    "nanvar": {},
    "nanstd": {"ddof": 1},
    "nanmax": {},
    "nanmin": {},
    "median": {},
    "nanmedian": {},
    "ptp": {},
    "average": {},
}
AXES = [None, 0, 1, -1, (0, 1)]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_match_numpy(name):
    fs, fn, kw = getattr(strided, name), getattr(np, name), REDUCTIONS[name]
    for where, t, a in cases((3, 4), ["int64", "float32", "float64", "bool"]):
        for axis in AXES if a.ndim else [None]:
            for keepdims in (False, True):
                if name == "average" and np.mean(a, axis=axis).size == 0:
                    # NumPy divides by the empty result's size (ZeroDivisionError); strided
                    # gives the empty averages
                    assert fs(t, axis=axis, keepdims=keepdims).numel() == 0
                    continue
                compare(
                    lambda: fs(t, axis=axis, keepdims=keepdims, **kw),
                    lambda: fn(a, axis=axis, keepdims=keepdims, **kw),
                    f"{name} {where} axis={axis} keepdims={keepdims}",
                )


def test_reductions_all_nan_slices_and_lists():
    a = np.array([[NAN, NAN, NAN], [1.0, NAN, 2.0]])
    for name in ("nansum", "nanprod", "nanmean", "nanvar", "nanmax", "nanmin", "nanmedian"):
        close(getattr(strided, name)(a, axis=1), getattr(np, name)(a, axis=1), where=name)
        close(getattr(strided, name)(a.tolist()), getattr(np, name)(a), where=name)
    close(strided.nanvar(a, axis=1, ddof=2), np.nanvar(a, axis=1, ddof=2))
    close(strided.nanstd(a, axis=1, correction=1), np.nanstd(a, axis=1, ddof=1))
    close(strided.nansum(a, dtype=strided.float32), np.nansum(a, dtype=np.float32))
    close(strided.median(3.5), np.median(3.5))
    z = np.array([[1 + 2j, NAN, 3 - 1j], [2j, 1, NAN + 0j]])
    for name in ("nansum", "nanmean", "nanvar", "nanstd"):
        close(getattr(strided, name)(z, axis=1), getattr(np, name)(z, axis=1), where=name)
    out = strided.empty((2,))
    assert strided.nanmedian(a, axis=1, out=out) is out
    close(out, np.nanmedian(a, axis=1))


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg_match_numpy(name):
    fs, fn = getattr(strided, name), getattr(np, name)
    for where, t, a in cases((3, 4), ["int64", "float64", "bool"], nan=False):
        for axis in (None, 0, 1, -1) if a.ndim else [None]:
            compare(lambda: fs(t, axis=axis), lambda: fn(a, axis=axis), f"{where} {axis}")
            compare(
                lambda: fs(t, axis=axis, keepdims=True),
                lambda: fn(a, axis=axis, keepdims=True),
                f"{where} {axis} keepdims",
            )
    a = np.array([[NAN, 3.0, 5.0], [2.0, NAN, 1.0]])
    for axis in (None, 0, 1):
        close(fs(a, axis=axis), fn(a, axis=axis))
    with pytest.raises(ValueError, match="All-NaN slice"):
        fs(np.array([[NAN, NAN], [1.0, 2.0]]), axis=1)


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
def test_nancumulative_match_numpy(name):
    fs, fn = getattr(strided, name), getattr(np, name)
    for where, t, a in cases((3, 4), ["int64", "float32", "float64", "bool"]):
        for axis in (None, 0, 1) if a.ndim else [None]:
            compare(lambda: fs(t, axis=axis), lambda: fn(a, axis=axis), f"{where} {axis}")


def test_average_weights_and_returned():
    rng = np.random.default_rng(1)
    for where, t, a in cases((3, 4), ["int64", "float32", "float64"], nan=False):
        if a.ndim < 2 or a.size == 0:
            continue
        w = rng.uniform(0.5, 2.0, a.shape)
        w1 = rng.uniform(0.5, 2.0, a.shape[1])
        for args in (
            dict(weights=w),
            dict(weights=w, axis=0),
            dict(weights=w1, axis=1),
            dict(weights=w1.astype(np.float32), axis=-1, returned=True),
            dict(weights=w, axis=(0, 1), returned=True, keepdims=True),
            dict(weights=w.T, axis=(1, 0)),
            dict(axis=0, returned=True),
            dict(weights=rng.integers(1, 3, a.shape), returned=True),
        ):
            if a.size == 0 and "weights" not in args:
                # NumPy divides by the empty result's size (ZeroDivisionError); strided gives
                # the empty averages
                assert strided.average(t, **args)[0].numel() == 0
                continue
            compare(
                lambda: strided.average(t, **args),
                lambda: np.average(a, **args),
                f"{where} {sorted(args)}",
            )


# ---------------------------------------------------------------------------------------------
# Quantiles
# ---------------------------------------------------------------------------------------------

METHODS = [
    "linear",
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
]


@pytest.mark.parametrize("name", ["quantile", "percentile", "nanquantile", "nanpercentile"])
def test_quantiles_match_numpy(name):
    fs, fn = getattr(strided, name), getattr(np, name)
    scale = 100 if "percentile" in name else 1
    qs = [0.5, 0, [0.0, 0.3, 1.0], np.array([[0.1, 0.25], [0.9, 0.75]])]
    for where, t, a in cases((3, 5), ["int64", "float32", "float64", "bool"]):
        for q in qs:
            q = np.asarray(q) * scale if isinstance(q, (list, np.ndarray)) else q * scale
            for axis in (None, 1, (0, 1)) if a.ndim else [None]:
                compare(
                    lambda: fs(t, q, axis=axis),
                    lambda: fn(a, q, axis=axis),
                    f"{where} q={q} axis={axis}",
                )
    a = values((4, 6), "float64", np.random.default_rng(2))
    a[0] = NAN
    for method in METHODS:
        for axis in (None, 0, 1):
            for keepdims in (False, True):
                compare(
                    lambda: fs(
                        a, [0.1 * scale, 0.5 * scale, scale], axis, method=method, keepdims=keepdims
                    ),
                    lambda: fn(
                        a, [0.1 * scale, 0.5 * scale, scale], axis, method=method, keepdims=keepdims
                    ),
                    f"{method} axis={axis}",
                )
    # (1-D q: NumPy 2.x's nanquantile puts the dims of a 2-D q in the wrong place for a tuple
    # axis; strided keeps quantile's layout, q's shape first)
    for keepdims in (False, True):
        compare(
            lambda: fs(a.reshape(2, 3, 4), [0.2, 0.7], axis=(0, 2), keepdims=keepdims),
            lambda: fn(a.reshape(2, 3, 4), [0.2, 0.7], axis=(0, 2), keepdims=keepdims),
            f"tuple axis keepdims={keepdims}",
        )
    b = np.array([True, False, True, True])
    compare(lambda: fs(b, 0.5 * scale, method="lower"), lambda: fn(b, 0.5 * scale, method="lower"))
    compare(lambda: fs(b, [0.5 * scale]), lambda: fn(b, [0.5 * scale]), "bool linear")
    out = strided.empty((2,))
    assert fs(a, [0.5 * scale, scale], out=out) is out
    close(out, fn(a, [0.5 * scale, scale]))
    ia = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]])
    for method in METHODS:
        compare(
            lambda: fs(ia, 0.4 * scale, 1, method=method),
            lambda: fn(ia, 0.4 * scale, 1, method=method),
            method,
        )


def test_quantile_errors():
    x = strided.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match=r"quantiles must be in the range \[0, 1\]"):
        strided.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"percentiles must be in the range \[0, 100\]"):
        strided.percentile(x, [50, 101])
    with pytest.raises(ValueError, match="method='bogus' is not supported"):
        strided.quantile(x, 0.5, method="bogus")
    with pytest.raises(TypeError, match="must be real"):
        strided.quantile(strided.asarray([1j]), 0.5)
    with pytest.raises(IndexError, match="size 0"):
        strided.quantile(strided.zeros(0), 0.5)
    with pytest.raises(NotImplementedError, match="weights"):
        strided.quantile(x, 0.5, weights=[1.0, 1.0])
    with pytest.raises(IndexError, match="axis[= ]2 is out of range"):
        strided.median(strided.zeros((2, 2)), axis=2)


ORDER_STATS = {
    "median": lambda t, axis: strided.median(t, axis=axis),
    "nanmedian": lambda t, axis: strided.nanmedian(t, axis=axis),
    **{
        f"{name} {method}": lambda t, axis, name=name, method=method: getattr(strided, name)(
            t, [0.9, 0.0, 0.25, 0.5, 1.0, 0.251], axis=axis, method=method
        )
        for name in ("quantile", "nanquantile")
        for method in METHODS
    },
}


def test_order_statistics_by_selection_are_the_sorts_bit_for_bit(monkeypatch):
    # On the CPU each slice is partitioned at the positions read (Note [Selection] in
    # strided/_cpu/select.pyx.tp), not sorted: the results must be the sort's, to the bit, on
    # long lines (one thread each), many lines (shared among threads), ties and NaNs.
    from strided._ops import quantiles, sorting

    rng = np.random.default_rng(21)
    inputs = []
    for dtype in ("float64", "int64"):
        a = rng.integers(-40, 40, (4, 16_385)).astype(dtype)
        if a.dtype.kind == "f":
            a = a / 7
            a[1, rng.random(a.shape[1]) < 0.1] = np.nan
        inputs += [
            (a, 1),
            (a[:, ::-2], 1),
            (a.T, 0),
            (a.T[:999], 1),
            (a[::3, :99].astype(np.float32), 1),
        ]
    got = [[fn(strided.asarray(a), axis) for a, axis in inputs] for fn in ORDER_STATS.values()]
    monkeypatch.setattr(quantiles, "_partitioned", lambda y, kth: sorting.sort(y, axis=-1))
    for (name, fn), results in zip(ORDER_STATS.items(), got, strict=True):
        for (a, axis), g in zip(inputs, results, strict=True):
            want = np.asarray(fn(strided.asarray(a), axis))
            where = f"{name} {a.dtype} {a.shape} axis={axis}"
            assert g.dtype == strided.asarray(want).dtype, where
            assert np.asarray(g).tobytes() == want.tobytes(), where
    b = rng.standard_normal(50_001)
    close(strided.median(b), np.median(b))
    close(strided.quantile(b, [0.1, 0.5, 0.9]), np.quantile(b, [0.1, 0.5, 0.9]))


def test_order_statistics_that_need_grad_gather_at_the_kernels_positions():
    # with a gradient wanted, the order statistics are taken from a at the positions the
    # selection kernel found (take_along_axis), so the values are the same and grads flow
    rng = np.random.default_rng(22)
    a = rng.integers(0, 20, (4, 501)).astype(np.float64)
    x = leaf(a)
    for fn in ORDER_STATS.values():
        got, want = fn(x, 1), fn(strided.asarray(a), 1)
        assert got.requires_grad
        np.testing.assert_array_equal(np.asarray(got.detach()), np.asarray(want))
    strided.median(x, axis=1).sum().backward()
    assert np.asarray(x.grad).sum() == 4.0 and (np.asarray(x.grad) >= 0).all()


# ---------------------------------------------------------------------------------------------
# cov, corrcoef
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cov", "corrcoef"])
def test_cov_corrcoef_match_numpy(name):
    fs, fn = getattr(strided, name), getattr(np, name)
    rng = np.random.default_rng(3)
    for where, t, a in cases((3, 5), ["int64", "float32", "float64"], nan=False):
        if a.size == 0 and name == "corrcoef":
            continue
        for rowvar in (True, False):
            compare(lambda: fs(t, rowvar=rowvar), lambda: fn(a, rowvar=rowvar), where)
        if a.ndim == 2:
            y = rng.normal(size=a.shape)
            compare(lambda: fs(t, y), lambda: fn(a, y), where + " y")
    compare(lambda: fs([1.0, 2.0, 4.0]), lambda: fn([1.0, 2.0, 4.0]), "1-D")
    compare(lambda: fs([[1 + 2j, 2, 4j], [1, 0, 2]]), lambda: fn([[1 + 2j, 2, 4j], [1, 0, 2]]))


def test_cov_weights_and_bias():
    rng = np.random.default_rng(4)
    m = rng.normal(size=(3, 6))
    fw = rng.integers(1, 4, 6)
    aw = rng.uniform(0.1, 2.0, 6)
    for kw in (
        dict(bias=True),
        dict(ddof=0),
        dict(ddof=3),
        dict(ddof=6),
        dict(fweights=fw),
        dict(aweights=aw),
        dict(fweights=fw, aweights=aw),
        dict(fweights=fw, aweights=aw, ddof=0),
        dict(dtype=np.float32),
    ):
        compare(lambda: strided.cov(m, **kw), lambda: np.cov(m, **kw), str(sorted(kw)))
    with pytest.raises(TypeError, match="fweights must be integer"):
        strided.cov(m, fweights=aw)
    with pytest.raises(ValueError, match="fweights cannot be negative"):
        strided.cov(m, fweights=-fw)
    with pytest.raises(RuntimeError, match="incompatible numbers of samples"):
        strided.cov(m, aweights=aw[:3])
    with pytest.raises(ValueError, match="more than 2 dimensions"):
        strided.cov(strided.zeros((2, 2, 2)))


# ---------------------------------------------------------------------------------------------
# histogram, bincount, digitize
# ---------------------------------------------------------------------------------------------


def test_histogram_match_numpy():
    rng = np.random.default_rng(5)
    for where, t, a in cases((4, 5), ["int64", "float32", "float64"], nan=False):
        w = rng.uniform(0, 2, a.shape)
        for kw in (
            dict(),
            dict(bins=3),
            dict(bins=4, range=(-2, 2)),
            dict(bins=5, density=True),
            dict(bins=3, weights=w),
            dict(bins=[-3, -1, 0, 0.5, 4]),
            dict(bins=np.array([-1, 0, 1]), weights=w, density=True),
            dict(bins=1, range=(0, 0)),
        ):
            compare(
                lambda: strided.histogram(t, **kw),
                lambda: np.histogram(a, **kw),
                f"{where} {sorted(kw)}",
            )
    a = np.array([1.0, NAN, 2.0, 3.0])
    compare(lambda: strided.histogram(a, range=(0, 4)), lambda: np.histogram(a, range=(0, 4)))


def test_histogram_errors():
    x = strided.asarray([1.0, NAN])
    with pytest.raises(ValueError, match="autodetected range of"):
        strided.histogram(x)
    with pytest.raises(ValueError, match="max must be larger than min"):
        strided.histogram(x, range=(2, 1))
    with pytest.raises(ValueError, match="increase monotonically"):
        strided.histogram(x, bins=[0, 2, 1])
    with pytest.raises(ValueError, match="weights should have the same shape as a"):
        strided.histogram(x, weights=[1.0])
    with pytest.raises(NotImplementedError, match="'auto'"):
        strided.histogram(x, bins="auto")


def test_bincount_match_numpy():
    rng = np.random.default_rng(6)
    for dt in ("int64", "int32", "uint8", "bool"):
        x = rng.integers(0, 7, 20).astype(dt)
        w = rng.normal(size=20)
        for kw in (dict(), dict(minlength=10), dict(weights=w), dict(weights=w, minlength=3)):
            compare(lambda: strided.bincount(x, **kw), lambda: np.bincount(x, **kw), dt)
        compare(lambda: strided.bincount(x[::-3]), lambda: np.bincount(x[::-3]), dt)
    compare(lambda: strided.bincount(np.zeros(0, int)), lambda: np.bincount(np.zeros(0, int)))
    compare(
        lambda: strided.bincount(np.zeros(0, int), minlength=3),
        lambda: np.bincount(np.zeros(0, int), minlength=3),
    )
    with pytest.raises(ValueError, match="no negative elements"):
        strided.bincount([1, -1])
    with pytest.raises(TypeError, match="must hold integers"):
        strided.bincount([1.0, 2.0])
    with pytest.raises(ValueError, match="must be 1-D"):
        strided.bincount([[1]])


def test_digitize_match_numpy():
    rng = np.random.default_rng(7)
    for where, t, a in cases((3, 4), ["int64", "float64"]):
        for bins in ([-2.0, 0.0, 0.0, 3.0], [4, 1, 0, -3], [1.0]):
            for right in (False, True):
                compare(
                    lambda: strided.digitize(t, bins, right=right),
                    lambda: np.digitize(a, bins, right=right),
                    f"{where} {bins} {right}",
                )
    x = rng.normal(size=10)
    compare(lambda: strided.digitize(x, np.array([]), True), lambda: np.digitize(x, []))
    with pytest.raises(ValueError, match="monotonically increasing or decreasing"):
        strided.digitize(x, [1.0, 0.0, 2.0])
    with pytest.raises(TypeError, match="may not be complex"):
        strided.digitize([1j], [1.0])


# ---------------------------------------------------------------------------------------------
# diff, ediff1d, interp
# ---------------------------------------------------------------------------------------------


def test_diff_match_numpy():
    for where, t, a in cases((3, 4), ["int64", "uint8", "float32", "float64", "bool"]):
        for kw in (
            dict(),
            dict(n=2),
            dict(n=0),
            dict(axis=0),
            dict(n=5, axis=-1),
            dict(prepend=0),
            dict(append=np.ones((3, 1), a.dtype) if a.ndim == 2 and a.shape[0] == 3 else 1),
            dict(n=2, axis=0, prepend=1, append=2),
        ):
            compare(
                lambda: strided.diff(t, **kw), lambda: np.diff(a, **kw), f"{where} {sorted(kw)}"
            )
    with pytest.raises(ValueError, match="must be non-negative"):
        strided.diff([1, 2], n=-1)
    with pytest.raises(ValueError, match="at least 1-D"):
        strided.diff(strided.asarray(1.0))
    with pytest.raises(IndexError, match="axis[= ]1 is out of range"):
        strided.diff([1, 2], axis=1)


def test_ediff1d_match_numpy():
    for where, t, a in cases((3, 4), ["int64", "float32", "float64"]):
        for kw in (dict(), dict(to_begin=-9), dict(to_end=[7, 8], to_begin=[1])):
            compare(lambda: strided.ediff1d(t, **kw), lambda: np.ediff1d(a, **kw), where)
    with pytest.raises(TypeError, match="same_kind"):
        strided.ediff1d(strided.asarray([1, 2]), to_begin=0.5)


def test_interp_match_numpy():
    rng = np.random.default_rng(8)
    xp = np.array([-2.0, -1.0, 0.5, 0.5, 3.0])
    fp = np.array([1.0, 4.0, -2.0, 0.0, 5.0])
    for where, t, a in cases((3, 4), ["int64", "float32", "float64"]):
        compare(lambda: strided.interp(t, xp, fp), lambda: np.interp(a, xp, fp), where)
        compare(
            lambda: strided.interp(t, xp, fp, left=-7, right=9.5),
            lambda: np.interp(a, xp, fp, left=-7, right=9.5),
            where,
        )
        compare(
            lambda: strided.interp(t, [0.0, 1.5, 4.0], [1.0, 2.0, 0.0], period=5),
            lambda: np.interp(a, [0.0, 1.5, 4.0], [1.0, 2.0, 0.0], period=5),
            where,
        )
    x = np.array([-1.0, NAN, 0.0, 1.0, 2.0, 2.5, 3.0])
    compare(lambda: strided.interp(x, [1.0], [3.0]), lambda: np.interp(x, [1.0], [3.0]))
    compare(
        lambda: strided.interp(x, [0.0, 2.0, 3.0], [1j, 2.0, 1 - 1j]),
        lambda: np.interp(x, [0.0, 2.0, 3.0], [1j, 2.0, 1 - 1j]),
    )
    compare(lambda: strided.interp(2.5, [2.0, 3.0], [0, 1]), lambda: np.interp(2.5, [2, 3], [0, 1]))
    inf = np.array([0.0, 1.0, np.inf])
    compare(lambda: strided.interp(x, inf, [0.0, 1.0, 2.0]), lambda: np.interp(x, inf, [0, 1, 2]))
    compare(
        lambda: strided.interp(rng.normal(size=5), xp[:2], [np.inf, np.inf]),
        lambda: np.interp(rng.normal(size=5), xp[:2], [np.inf, np.inf]),
    )
    with pytest.raises(ValueError, match="not of the same length"):
        strided.interp(x, [1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="empty"):
        strided.interp(x, [], [])
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        strided.interp(x, [1.0, 2.0], [1.0, 2.0], period=0)


# ---------------------------------------------------------------------------------------------
# Errors of the reductions
# ---------------------------------------------------------------------------------------------


def test_reduction_errors():
    x = strided.asarray([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(IndexError, match="axis[= ]3 is out of range"):
        strided.nanmean(x, axis=3)
    with pytest.raises(ValueError, match="zero elements"):
        strided.nanmax(strided.zeros((0, 2)), axis=0)
    with pytest.raises(TypeError, match="bool input"):
        strided.ptp(strided.asarray([True, False]))
    with pytest.raises(TypeError, match="axis must be given"):
        strided.average(x, weights=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"expected weights of shape \(2,\)"):
        strided.average(x, axis=1, weights=[1.0, 2.0, 3.0])
    with pytest.raises(ZeroDivisionError, match="sum to zero"):
        strided.average(x, axis=1, weights=[1.0, -1.0])


# ---------------------------------------------------------------------------------------------
# Devices: the same values, results on the device
# ---------------------------------------------------------------------------------------------


def _no_nan(t):
    return strided.where(strided.isnan(t), 0.0, t)


DEVICE_CASES = {
    "nanmean": lambda t: strided.nanmean(t, axis=1),
    "nanvar": lambda t: strided.nanvar(t, axis=0, ddof=1),
    "nanmax": lambda t: strided.nanmax(t, axis=1),
    "nanargmin": lambda t: strided.nanargmin(_no_nan(t)),
    "median": lambda t: strided.median(t, axis=1),
    "nanmedian": lambda t: strided.nanmedian(t, axis=0),
    "quantile": lambda t: strided.quantile(t, [0.2, 0.5], axis=1),
    "nanpercentile": lambda t: strided.nanpercentile(t, 30, axis=1, method="nearest"),
    "average": lambda t: strided.average(t, axis=1, weights=strided.ones(4, device=t.device)),
    "cov": lambda t: strided.cov(strided.nansum(t, axis=0, keepdims=True).expand(2, 4)),
    "histogram": lambda t: strided.histogram(t, bins=3, range=(-3, 3)),
    "histogram-auto": lambda t: strided.histogram(_no_nan(t), bins=4, weights=_no_nan(t)),
    "average-list": lambda t: strided.average(t, axis=1, weights=[1.0, 2.0, 3.0, 4.0]),
    "interp-scalar": lambda t: strided.interp(
        0.25, strided.asarray([0.0, 1.0]).to(t.device), t[0, :2]
    ),
    "cov-aweights": lambda t: strided.cov(_no_nan(t), aweights=[1.0, 2.0, 0.5, 1.0]),
    "corrcoef": lambda t: strided.corrcoef(_no_nan(t)),
    "bincount": lambda t: strided.bincount(strided.abs(_no_nan(t[0])).astype(strided.int64)),
    "digitize": lambda t: strided.digitize(t, strided.asarray([-1.0, 1.0]).to(t.device)),
    "diff": lambda t: strided.diff(t, n=2, prepend=0),
    "interp": lambda t: strided.interp(t, strided.asarray([-1.0, 2.0]).to(t.device), [1.0, 0.0]),
}


@pytest.mark.parametrize("device", DEVICES)
def test_devices_give_cpu_values(device):
    rng = np.random.default_rng(9)
    ref = values((3, 4), "float64", rng)
    layouts = ("contiguous", "negative-stride")
    tensors = {layout: make_layout(layout, ref, rng)[0] for layout in layouts}
    same_on_device(device, tensors, DEVICE_CASES, lambda g, w, at: close(g, w, where=at))


# ---------------------------------------------------------------------------------------------
# Autograd
# ---------------------------------------------------------------------------------------------


def leaf(a):
    return strided.asarray(np.asarray(a, dtype=np.float64)).requires_grad_(True)


GRAD_CASES = {
    "nanmean": (lambda x: strided.nanmean(x, axis=1), [[1.0, NAN, 2.0], [0.5, 3.0, -1.0]]),
    "nanmean-all": (lambda x: strided.nanmean(x), [[1.0, NAN, 2.0], [0.5, 3.0, -1.0]]),
    "average": (
        lambda x, w: strided.average(x, axis=0, weights=w),
        [[1.0, 2.0, 3.0], [0.5, 3.0, -1.0]],
        [0.3, 0.9],
    ),
    "median-odd": (lambda x: strided.median(x, axis=1), [[3.0, 1.0, 2.5], [0.5, 3.0, -1.0]]),
    "median-even": (lambda x: strided.median(x), [[3.0, 1.0, 2.5], [0.5, 3.1, -1.0]]),
    "nanmedian": (lambda x: strided.nanmedian(x, axis=1), [[3.0, NAN, 2.5, 4.0], [1, 2, 3, 0]]),
    "quantile": (
        lambda x: strided.quantile(x, [0.1, 0.55, 0.9], axis=1),
        [[3.0, 1.0, 2.5, 7.0], [0.5, 3.0, -1.0, 2.0]],
    ),
    "nanquantile": (lambda x: strided.nanquantile(x, 0.3), [[3.0, NAN, 2.5], [0.5, 3.0, -1.0]]),
    "cov": (lambda m: strided.cov(m), [[3.0, 1.0, 2.5, 7.0], [0.5, 3.0, -1.0, 2.0]]),
    "cov-aweights": (
        lambda m, w: strided.cov(m, aweights=w),
        [[3.0, 1.0, 2.5, 7.0], [0.5, 3.0, -1.0, 2.0]],
        [0.5, 1.0, 2.0, 1.5],
    ),
    "corrcoef": (lambda m: strided.corrcoef(m), [[3.0, 1.0, 2.5, 7.0], [0.5, 3.0, -1.0, 2.0]]),
    "diff": (lambda x: strided.diff(x, n=2, axis=0, prepend=1.0), [[3.0, 1.0], [0.5, 3.0]]),
    "interp": (
        lambda x, fp: strided.interp(x, strided.asarray([0.0, 1.0, 2.5]), fp),
        [-0.5, 0.3, 1.2, 2.0, 3.0],
        [1.0, -2.0, 4.0],
    ),
}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradcheck(name):
    fn, *args = GRAD_CASES[name]
    assert gradcheck(fn, tuple(leaf(a) for a in args))


# ---------------------------------------------------------------------------------------------
# The CPU counting kernels (Note [Counting kernels] in strided/_ops/histograms.py)
# ---------------------------------------------------------------------------------------------

COUNT_DTYPES = ["int8", "uint8", "int32", "int64", "uint64", "float32", "float64", "bool"]


def test_histogram_kernel_matches_numpy_on_every_layout():
    rng = np.random.default_rng(11)
    for where, t, a in cases((4, 5), COUNT_DTYPES, nan=False):
        w = rng.uniform(0, 2, a.shape)
        for kw in (
            dict(bins=7),
            dict(bins=4, range=(-1, 2)),
            dict(bins=3, range=(0.1, 0.7)),
            dict(bins=[-3, -1, 0, 0.5, 4]),
            dict(bins=[-2, 0, 3]),
            dict(bins=6, weights=w),
            dict(bins=6, weights=w.astype(np.float32), density=True),
            dict(bins=[-2.5, 0, 2.5], weights=(w * 3).astype(np.int64)),
        ):
            compare(
                lambda: strided.histogram(t, **kw),
                lambda: np.histogram(a, **kw),
                f"{where} {kw}",
            )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogram_values_on_the_edges_match_numpy_exactly(dtype):
    # every edge value itself, and its neighbours one ulp away: the arithmetic estimate of the
    # bin is one off around here, and only the correction against the edges gets it right
    for nb, rng_ in ((1, None), (3, (0.1, 0.7)), (10, (-1.0, 1.0)), (97, (0.3, 7.1)), (100, None)):
        lo, hi = rng_ if rng_ else (-2.0, 3.0)
        edges = np.linspace(lo, hi, nb + 1, dtype=dtype)
        a = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)])
        a = np.concatenate([a, [lo - 1, hi + 1]]).astype(dtype)
        want = np.histogram(a, nb, range=rng_)
        got = strided.histogram(strided.asarray(a), nb, range=rng_)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0], err_msg=f"{nb} {rng_}")
        np.testing.assert_array_equal(np.asarray(got[1]), want[1])
        assert got[0].dtype == strided.int64


def test_histogram_kernel_drops_nan_and_outside_values():
    a = np.array([NAN, -1.0, 0.0, 0.5, 1.0, 1.5, NAN, np.inf, -np.inf])
    for kw in (dict(range=(0, 1)), dict(bins=[0.0, 0.5, 1.0]), dict(bins=2, range=(0, 1))):
        for w in (None, np.arange(9.0)):
            compare(
                lambda: strided.histogram(a, weights=w, **kw),
                lambda: np.histogram(a, weights=w, **kw),
                f"{kw} {w is None}",
            )
    for empty in (np.zeros(0), np.zeros((0, 3), np.int64)):
        compare(lambda: strided.histogram(empty, 4), lambda: np.histogram(empty, 4))
    compare(lambda: strided.histogram(a, bins=[1.0]), lambda: np.histogram(a, bins=[1.0]))


@pytest.mark.parametrize("threads", [1, 2])
def test_counting_kernels_large_inputs_any_thread_count(threads):
    # above 2 * GRAIN_SIZE elements the counts go through private tables per thread
    rng = np.random.default_rng(12)
    a = rng.standard_normal(200_003)
    k = (np.abs(a) * 50).astype(np.int64)
    w = rng.standard_normal(k.shape)
    old = strided.get_num_threads()
    strided.set_num_threads(threads)
    try:
        for x in (a, a[::-3]):
            for kw in (dict(bins=100), dict(bins=[-4.0, -1.0, 0.0, 0.1, 2.0]), dict(bins=30_000)):
                got, want = strided.histogram(x, **kw), np.histogram(x, **kw)
                np.testing.assert_array_equal(np.asarray(got[0]), want[0], err_msg=str(kw))
        for x in (k, k[::-2]):
            np.testing.assert_array_equal(np.asarray(strided.bincount(x)), np.bincount(x))
        # weighted sums run in the input's order, as np.bincount adds them: the same bits
        np.testing.assert_array_equal(
            np.asarray(strided.bincount(k, weights=w)), np.bincount(k, weights=w)
        )
    finally:
        strided.set_num_threads(old)


def test_bincount_kernel_dtypes_and_extremes():
    for dt in ("int8", "uint8", "int16", "uint32", "int64", "uint64", "bool"):
        info = np.iinfo(dt) if dt != "bool" else None
        top = 1 if info is None else min(int(info.max), 300)
        x = np.array([0, top, 1, top, 0, 1, 1]).astype(dt)
        for kw in (dict(), dict(minlength=400), dict(weights=np.arange(7, dtype=np.float32))):
            compare(lambda: strided.bincount(x, **kw), lambda: np.bincount(x, **kw), dt)
        compare(lambda: strided.bincount(x[::-2]), lambda: np.bincount(x[::-2]), dt)
    for dt in ("int8", "int64"):
        with pytest.raises(ValueError, match="no negative elements"):
            strided.bincount(np.array([3, np.iinfo(dt).min], dtype=dt))
    compare(
        lambda: strided.bincount(np.zeros(0, np.int64), weights=np.zeros(0), minlength=2),
        lambda: np.bincount(np.zeros(0, np.int64), weights=np.zeros(0), minlength=2),
    )


def test_histogram_weights_that_need_grad_take_the_composed_path():
    w = strided.asarray([1.0, 2.0, 3.0, 4.0]).requires_grad_()
    hist, _ = strided.histogram(strided.asarray([0.0, 1.0, 5.0, 2.0]), 2, range=(0, 2), weights=w)
    strided.multiply(hist, strided.asarray([10.0, 100.0])).sum().backward()
    np.testing.assert_array_equal(np.asarray(w.grad), [10.0, 100.0, 0.0, 100.0])


COUNT_DEVICE_CASES = {
    "equal bins, edges": lambda a, w: strided.histogram(a, 5, range=(-2.0, 2.0)),
    "equal bins, auto": lambda a, w: strided.histogram(a, 7, weights=w),
    "explicit edges": lambda a, w: strided.histogram(a, bins=[-3.0, -0.4, 0.0, 0.4, 3.0]),
    "density": lambda a, w: strided.histogram(a, 4, range=(-1.0, 1.0), density=True),
    "bincount": lambda a, w: strided.bincount(strided.abs(a * 4).astype(strided.int64)),
    "bincount-weights": lambda a, w: strided.bincount(
        strided.abs(a * 4).astype(strided.int64), weights=w
    ),
}


@pytest.mark.parametrize("device", DEVICES)
def test_counting_devices_match_the_cpu_kernels(device):
    # the composed path (every device) and the CPU kernels must count the same
    rng = np.random.default_rng(13)
    ref = np.concatenate([np.linspace(-2.0, 2.0, 6), np.round(rng.normal(0, 1.5, 34), 1)])
    w_np = rng.uniform(0, 1, ref.shape)
    for layout in ("contiguous", "negative-stride"):
        t, _ = make_layout(layout, ref, rng)
        w = strided.asarray(w_np)
        for name, fn in COUNT_DEVICE_CASES.items():
            want, got = fn(t, w), fn(on(device, t), on(device, w))
            for g, wt in output_pairs(got, want):
                assert g.device.is_cuda, name
                close(g, np.asarray(wt), where=f"{name} {layout}")
