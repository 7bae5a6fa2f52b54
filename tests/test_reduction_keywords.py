"""NumPy's keywords on the reductions and their NaN-ignoring forms: ``axis`` tuples,
``keepdims``, ``where=``, ``initial=``, ``out=``, ``dtype=``, ``ddof``/``correction`` and
NumPy 2's ``mean=``, on the functions and the Tensor methods, against NumPy over layouts (with
NaNs, so that the nan- forms have something to skip)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from layouts import layouts

import strided

FUNCS = ["sum", "prod", "mean", "std", "var", "max", "min", "amax", "amin", "any", "all",
         "nansum", "nanprod", "nanmean", "nanstd", "nanvar", "nanmax", "nanmin", "ptp",
         "median", "nanmedian", "count_nonzero"]  # fmt: skip


def _mask(shape):
    return (np.arange(int(np.prod(shape))).reshape(shape) % 3) != 0


def _keywords(fn, shape):
    """The keyword sets NumPy's ``fn`` takes, for an input of ``shape``."""
    nd = len(shape)
    out = [{"axis": None}, {"axis": -1}, {"axis": 0, "keepdims": True}]
    if nd >= 2:
        out.append({"axis": (0, nd - 1)})
    if fn in ("sum", "prod", "max", "min", "amax", "amin", "nansum", "nanprod", "nanmax",
              "nanmin"):  # fmt: skip
        out += [{"initial": 5.0}, {"axis": -1, "where": _mask(shape), "initial": 1.0}]
    if fn in ("sum", "prod", "mean", "std", "var", "nansum", "nanprod", "nanmean", "nanstd",
              "nanvar", "any", "all"):  # fmt: skip
        out.append({"axis": -1, "where": _mask(shape)})
    if fn in ("sum", "prod", "mean", "std", "var", "nansum", "nanprod", "nanmean", "nanstd",
              "nanvar"):  # fmt: skip
        out.append({"dtype": np.float32})
    if fn in ("std", "var", "nanstd", "nanvar"):
        out += [{"ddof": 1, "axis": 0}, {"correction": 1}, {"mean": "mean", "axis": -1}]
    return out


def _call(mod, fn, x, kw, where_):
    kw = dict(kw)
    if kw.get("mean") == "mean":  # the mean, computed with keepdims=True, as NumPy asks
        nan = fn.startswith("nan")
        mean = (np.nanmean if nan else np.mean)(np.asarray(x), axis=kw["axis"], keepdims=True)
        kw["mean"] = mean if mod is np else strided.asarray(mean)
    if "where" in kw and mod is strided:
        kw["where"] = strided.asarray(kw["where"])
    return getattr(mod, fn)(x, **kw)


@pytest.mark.parametrize("fn", FUNCS)
def test_numpys_keywords_on_every_layout(fn):
    rng = np.random.default_rng(1)
    ref = rng.standard_normal((3, 4)) * 3
    ref[1, 2] = np.nan
    for layout, t, a in layouts(ref, rng):
        a = np.asarray(a)
        for kw in _keywords(fn, a.shape):
            if a.ndim == 0 and kw.get("axis") not in (None,):
                continue
            where_ = f"{fn} {layout} {kw}"
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    want = _call(np, fn, a, kw, where_)
                except Exception as e:  # noqa: BLE001 - the kind is compared
                    with pytest.raises(type(e) if not isinstance(e, ValueError) else ValueError):
                        _call(strided, fn, t, kw, where_)
                    continue
                got = _call(strided, fn, t, kw, where_)
            want = np.asarray(want)
            got = np.asarray(got)
            assert got.shape == want.shape and got.dtype == want.dtype, (where_, got, want)
            # (dtype=float32 of float64 input: NumPy subtracts a float32 mean from the float64
            # values, strided computes in float32 throughout: both within float32's rounding)
            atol = 1e-6 if "dtype" in kw else 0
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=atol, equal_nan=True,
                                       err_msg=where_)  # fmt: skip


def test_out_and_methods():
    a = np.arange(12.0).reshape(3, 4)
    a[0, 1] = np.nan
    t = strided.asarray(a)
    o = strided.empty(3)
    strided.nansum(t, axis=1, out=o)
    np.testing.assert_allclose(np.asarray(o), np.nansum(a, axis=1))
    m = a.mean(1, keepdims=True)
    np.testing.assert_allclose(np.asarray(t.var(1, mean=strided.asarray(m))), a.var(1, mean=m))
    np.testing.assert_allclose(np.asarray(t.std(axis=1, mean=m)), a.std(1, mean=m))
    # an all-NaN slice: NaN, or initial where it is given (NumPy's fmax.reduce)
    b = np.array([[np.nan, np.nan], [1.0, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in ({}, {"initial": -3.0}):
            np.testing.assert_array_equal(
                np.asarray(strided.nanmax(strided.asarray(b), axis=1, **kw)),
                np.nanmax(b, axis=1, **kw),
            )
    with pytest.raises(ValueError):  # a mask needs initial=, as in NumPy
        strided.nanmax(strided.asarray(b), where=strided.asarray(b > 0))
