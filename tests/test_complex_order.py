"""NumPy's order of complex numbers in the reductions, sorts and searches
(strided/_ops/complex_order.py, Note [The extremes of complex numbers]): every function against
NumPy's answer, bit for bit (NaN payloads aside), on values with NaN in either part, infinities
and signed zeros, in every layout, for complex64 and complex128."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import LAYOUTS, make_layout

import strided

nan, inf = np.nan, np.inf
SPECIAL = [
    complex(1, 2), complex(1, nan), complex(nan, 0), complex(nan, nan), complex(0.0, -0.0),
    complex(-0.0, 0.0), complex(1, -1), complex(-inf, 0), complex(inf, nan), complex(2, 0),
    complex(1, 2), complex(-1, nan), complex(0, 1), complex(nan, -1), complex(2, -inf),
    complex(2, inf), complex(-0.0, -0.0), complex(0.0, 0.0), complex(-inf, -1), complex(3, 0),
    complex(nan, 0), complex(1, nan), complex(0, 0), complex(-2, 5),
]  # fmt: skip
DTYPES = ("complex64", "complex128")


def _rows(dtype, with_nan):
    """(4, 6) values: the special ones (or those without NaN), shuffled."""
    vals = [v for v in SPECIAL if with_nan or v == v]
    vals = (vals * 2)[:24]
    return np.array(vals, dtype=dtype)[np.random.default_rng(0).permutation(24)].reshape(4, 6)


def _same(got, want):
    """Equal, dtype and shape too, with NaN == NaN and the signs of zeros compared."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if want.dtype.kind != "c":
        np.testing.assert_array_equal(got, want)
        return
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        np.testing.assert_array_equal(g, w)  # NaN == NaN here
        np.testing.assert_array_equal(np.signbit(g[w == 0]), np.signbit(w[w == 0]))


def _both(fn_np, fn_st, a, t):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = fn_np(a)
        except Exception as e:  # noqa: BLE001 - the kind is compared
            with pytest.raises(type(e)):
                fn_st(t)
            return
        got = fn_st(t)
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            _same(g, w)
    else:
        _same(got, want)


REDUCTIONS = {
    "max": lambda m, x, ax: m.max(x, axis=ax),
    "min": lambda m, x, ax: m.min(x, axis=ax),
    "amax keepdims": lambda m, x, ax: m.amax(x, axis=ax, keepdims=True),
    "argmax": lambda m, x, ax: m.argmax(x, axis=ax),
    "argmin": lambda m, x, ax: m.argmin(x, axis=ax),
    "nanmax": lambda m, x, ax: m.nanmax(x, axis=ax),
    "nanmin": lambda m, x, ax: m.nanmin(x, axis=ax),
    "nanargmax": lambda m, x, ax: m.nanargmax(x, axis=ax),
    "nanargmin": lambda m, x, ax: m.nanargmin(x, axis=ax),
    "ptp": lambda m, x, ax: m.ptp(x, axis=ax),
    "median": lambda m, x, ax: m.median(x, axis=ax),
    "nanmedian": lambda m, x, ax: m.nanmedian(x, axis=ax),
    "sort": lambda m, x, ax: m.sort(x, axis=-1 if ax is None else ax),
}


@pytest.mark.parametrize("with_nan", [True, False], ids=["nan", "no-nan"])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_and_sort_match_numpy(name, dtype, layout, axis, with_nan):
    pair = make_layout(layout, _rows(dtype, with_nan))
    if pair is None:
        return
    t, a = pair
    if name == "sort" and a.ndim == 0:
        return  # a 0-d sort along -1 is PyTorch's no-op, NumPy's AxisError: not an order matter
    if a.ndim < 2 and axis is not None:
        axis = 0 if a.ndim else None
    fn = REDUCTIONS[name]
    _both(lambda x: fn(np, x, axis), lambda x: fn(strided, x, axis), a, t)


@pytest.mark.parametrize("dtype", DTYPES)
def test_several_axes_and_the_tensor_methods(dtype):
    a = _rows(dtype, True).reshape(2, 3, 4)
    t = strided.asarray(a)
    _same(strided.max(t, axis=(0, 2)), np.max(a, axis=(0, 2)))
    _same(t.min(axis=(1, 2), keepdims=True), a.min(axis=(1, 2), keepdims=True))
    _same(t.argmax(axis=1), a.argmax(axis=1))
    _same(t.max(), a.max())
    b = _rows(dtype, False).reshape(2, 3, 4)
    _same(strided.nanmax(strided.asarray(b), axis=(0, 1)), np.nanmax(b, axis=(0, 1)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_ties_keep_the_first_element(dtype):
    # equal values (+0 and -0 parts) are different bits: the first one met is NumPy's answer
    a = np.array([complex(-0.0, 0.0), complex(0.0, -0.0), complex(0.0, 0.0)], dtype=dtype)
    t = strided.asarray(a)
    for name in ("max", "min", "argmax", "argmin", "nanmax", "nanmin"):
        _same(getattr(strided, name)(t), getattr(np, name)(a))
        _same(getattr(strided, name)(t[::-1]), getattr(np, name)(a[::-1]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_nan_slices(dtype):
    a = np.array([[complex(nan, 1), complex(2, nan)], [1 + 1j, complex(nan, 0)]], dtype=dtype)
    t = strided.asarray(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(strided.nanmax(t, axis=1), np.nanmax(a, axis=1))  # the first NaN, as fmax
        _same(strided.nanmin(t, axis=1), np.nanmin(a, axis=1))
        _same(strided.nanmedian(t, axis=1), np.nanmedian(a, axis=1))
    for name in ("nanargmax", "nanargmin"):
        with pytest.raises(ValueError, match="All-NaN slice"):
            getattr(strided, name)(t, axis=1)


def test_errors_are_numpys():
    z = strided.zeros((0, 3), dtype="complex128")
    for name in ("max", "min", "argmax", "argmin", "ptp"):
        with pytest.raises(ValueError):
            getattr(strided, name)(z, axis=0)
    # NumPy's percentile and quantile refuse complex input
    with pytest.raises(TypeError):
        strided.percentile(strided.asarray([1j, 2j]), 50)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_searchsorted_in_numpys_sort_order(dtype, side):
    keys = _rows(dtype, True)
    for x1 in (np.sort(keys.ravel()), np.sort(keys.ravel()[::3]), np.sort(keys.ravel())[:1]):
        got = strided.searchsorted(strided.asarray(x1), strided.asarray(keys), side=side)
        _same(got, np.searchsorted(x1, keys, side=side))
        # a scalar key, a real key (promoted), and a sorter
        _same(strided.searchsorted(strided.asarray(x1), 1 + 2j, side=side),
              np.searchsorted(x1, 1 + 2j, side=side))  # fmt: skip
        _same(strided.searchsorted(strided.asarray(x1), strided.asarray([0.0, 2.0]), side=side),
              np.searchsorted(x1, [0.0, 2.0], side=side))  # fmt: skip
    x1 = keys.ravel()
    order = np.argsort(x1, kind="stable")
    got = strided.searchsorted(strided.asarray(x1), strided.asarray(keys), side, order)
    _same(got, np.searchsorted(x1, keys, side, order))
    empty = np.array([], dtype=dtype)
    _same(strided.searchsorted(strided.asarray(empty), strided.asarray(keys)),
          np.searchsorted(empty, keys))  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_with_its_indices(dtype):
    a = _rows(dtype, True)
    t = strided.asarray(a)
    kw = {"return_index": True, "return_inverse": True, "return_counts": True}
    _both(lambda x: np.unique(x, **kw), lambda x: strided.unique(x, **kw), a, t)
    b = _rows(dtype, False)
    _both(np.unique, strided.unique, b, strided.asarray(b))
    # without the flags NumPy keeps the first NaN of a (a hash table), with them the first
    # in sorted order: both NumPy's
    _both(np.unique, strided.unique, a, t)
    _both(lambda x: np.unique(x, return_counts=True),
          lambda x: strided.unique(x, return_counts=True), a, t)  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
def test_the_same_on_cuda_devices(device):
    # composed of real reductions, a bool argmax and a gather: every device runs them
    a = _rows("complex64", True)
    t = on(device, strided.asarray(a))
    for name in ("max", "min", "argmax", "argmin", "nanmax", "nanargmin"):
        for axis in (None, 1):
            got = getattr(strided, name)(t, axis=axis)
            assert str(got.device) == str(t.device)
            _same(got.cpu(), getattr(np, name)(a, axis=axis))
    x1 = np.sort(a.ravel())
    got = strided.searchsorted(on(device, strided.asarray(x1)), t)
    _same(got.cpu(), np.searchsorted(x1, a))
