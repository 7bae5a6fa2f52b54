"""strided._ops.sets against NumPy: membership, the 1-D set operations, argwhere and
flatnonzero, lexsort, and partitions.

NumPy is the oracle for values and dtypes, over the layouts of ``layouts.py`` and int, float
(with NaN) and bool inputs full of ties. ``partition``/``argpartition`` leave the order around
the kth element open, so they are checked by the contract (Note [Partition is a sort]): the kth
elements equal the sorted ones, nothing before is larger, nothing after is smaller. A subset
runs on the CUDA devices of ``devices.py``.
"""

# ruff: noqa: B023 - the lambdas given to compare() run at once, inside their loop iteration

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, on, output_pairs
from layouts import LAYOUTS, make_layout

import strided

NAN = float("nan")
DTYPES = ["int64", "int32", "float32", "float64", "bool"]


def values(shape, dtype, rng):
    """Small values with many ties (and NaNs for floats)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(-3, 4, shape).astype(dt)
    v = rng.integers(-3, 4, shape).astype(dt) / 2
    v[rng.random(shape) < 0.15] = np.nan
    return v


def cases(shape, dtypes=DTYPES, layouts=LAYOUTS, seed=0):
    rng = np.random.default_rng(seed)
    for dt in dtypes:
        ref = values(shape, dt, rng)
        for layout in layouts:
            pair = make_layout(layout, ref, rng)
            if pair is not None:
                yield f"{np.dtype(dt).name} {layout}", pair[0], pair[1]


def to_np(t):
    return np.asarray(t.cpu()) if t.device.is_cuda else np.asarray(t)


def same(got, want, where=""):
    """Same shape, dtype and values (NaN where NumPy has NaN)."""
    want = np.asarray(want)
    assert isinstance(got, strided.Tensor), (type(got), where)
    g = to_np(got)
    assert g.shape == want.shape, (g.shape, want.shape, where)
    assert g.dtype == want.dtype, (g.dtype, want.dtype, where)
    np.testing.assert_array_equal(g, want, err_msg=where)


def compare(fs, fn, where=""):
    """Run NumPy's ``fn``; strided's ``fs`` must match its result, or raise like it."""
    try:
        want = fn()
    except Exception as e:
        expected = IndexError if isinstance(e, np.exceptions.AxisError) else type(e)
        with pytest.raises(expected):
            fs()
        return
    got = fs()
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), where
        for g, w in zip(got, want, strict=True):
            same(g, w, where)
    else:
        same(got, want, where)


# ---------------------------------------------------------------------------------------------
# isin and the set operations
# ---------------------------------------------------------------------------------------------

TESTS = [
    [1, -2, 1, 3],
    [0.5, NAN, -1.5, 0.5],
    [True],
    np.array([[2, 2], [-3, 0]], dtype=np.int8),
    [],
]


def test_isin_matches_numpy():
    for where, t, a in cases((3, 4)):
        for test in TESTS:
            for invert in (False, True):
                compare(
                    lambda: strided.isin(t, test, invert=invert),
                    lambda: np.isin(a, test, invert=invert),
                    f"{where} {test} {invert}",
                )
        compare(lambda: strided.isin(t, t), lambda: np.isin(a, a), where)
    compare(lambda: strided.isin(3, [1, 3]), lambda: np.isin(3, [1, 3]))
    compare(
        lambda: strided.isin([1 + 1j, 2, 0], [2, 1 + 1j]),
        lambda: np.isin([1 + 1j, 2, 0], [2, 1 + 1j]),
    )
    with pytest.raises(ValueError, match="kind must be"):
        strided.isin([1], [1], kind="hash")


SET_OPS = {
    "intersect1d": [{}, {"assume_unique": True}, {"return_indices": True}],
    "union1d": [{}],
    "setdiff1d": [{}, {"assume_unique": True}],
    "setxor1d": [{}, {"assume_unique": True}],
}


@pytest.mark.parametrize("name", SET_OPS)
def test_set_operations_match_numpy(name):
    fs, fn = getattr(strided, name), getattr(np, name)
    rng = np.random.default_rng(1)
    for where, t, a in cases((3, 4)):
        for dt in ("int64", "float64"):
            b = values((5,), dt, rng)
            for kw in SET_OPS[name]:
                if kw.get("assume_unique"):
                    # the contract: inputs without repeats (NaN-free, as NumPy needs too)
                    ua, ub = np.unique(a[~np.isnan(a)] if a.dtype.kind == "f" else a), np.unique(b)
                    ub = ub[~np.isnan(ub)] if ub.dtype.kind == "f" else ub
                    ta = strided.asarray(ua[::-1].copy())
                    compare(
                        lambda: fs(ta, ub, **kw), lambda: fn(ua[::-1], ub, **kw), f"{where} {kw}"
                    )
                    continue
                compare(lambda: fs(t, b, **kw), lambda: fn(a, b, **kw), f"{where} {dt} {kw}")
                compare(lambda: fs(b, t, **kw), lambda: fn(b, a, **kw), f"{where} {dt} {kw} r")
    compare(lambda: fs([], []), lambda: fn([], []), "empty")
    compare(lambda: fs([3], []), lambda: fn([3], []), "one")
    compare(lambda: fs(2, [2, 1]), lambda: fn(2, [2, 1]), "0-d")


# ---------------------------------------------------------------------------------------------
# argwhere, flatnonzero
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["argwhere", "flatnonzero"])
def test_nonzero_family_matches_numpy(name):
    fs, fn = getattr(strided, name), getattr(np, name)
    for where, t, a in cases((3, 4)):
        compare(lambda: fs(t), lambda: fn(a), where)
    compare(lambda: fs(0), lambda: fn(0), "0-d zero")
    compare(lambda: fs([[0.0, -0.0], [NAN, 2]]), lambda: fn([[0.0, -0.0], [NAN, 2]]), "floats")


# ---------------------------------------------------------------------------------------------
# lexsort
# ---------------------------------------------------------------------------------------------


def test_lexsort_matches_numpy():
    rng = np.random.default_rng(2)
    for where, t, a in cases((3, 4), ["int64", "float64", "bool"]):
        if a.ndim == 0:
            continue
        b = values(a.shape, "int32", rng)
        c = values(a.shape, "float32", rng)
        for axis in (-1, 0) if a.ndim == 2 else (-1,):
            compare(
                lambda: strided.lexsort((t, b), axis=axis),
                lambda: np.lexsort((a, b), axis=axis),
                f"{where} {axis}",
            )
            compare(
                lambda: strided.lexsort([c, t, b], axis=axis),
                lambda: np.lexsort([c, a, b], axis=axis),
                f"{where} {axis} three keys",
            )
    keys = rng.integers(0, 3, (3, 10))
    compare(lambda: strided.lexsort(strided.asarray(keys)), lambda: np.lexsort(keys), "2-D")
    compare(lambda: strided.lexsort([[3, 1, 2]]), lambda: np.lexsort([[3, 1, 2]]), "lists")
    with pytest.raises(TypeError, match="len > 0"):
        strided.lexsort([])
    with pytest.raises(ValueError, match="same shape"):
        strided.lexsort(([1, 2], [1, 2, 3]))
    with pytest.raises(IndexError, match="axis[= ]1 is out of range"):
        strided.lexsort(([1, 2],), axis=1)


# ---------------------------------------------------------------------------------------------
# partition, argpartition
# ---------------------------------------------------------------------------------------------


def check_partition(p, a, kth, axis, where):
    """The contract: p holds a's values along ``axis``, and for every kth the element there is
    the sorted one, with nothing larger before it and nothing smaller after it."""
    p = to_np(p)
    if axis is None:
        a, axis = a.reshape(-1), 0
    s = np.sort(a, axis=axis)
    assert p.shape == a.shape and p.dtype == a.dtype, where
    np.testing.assert_array_equal(np.sort(p, axis=axis), s, err_msg=where)
    n = a.shape[axis]
    for k in np.atleast_1d(kth):
        k = int(k) % n
        pk = np.take(p, [k], axis=axis)
        np.testing.assert_array_equal(pk, np.take(s, [k], axis=axis), err_msg=where)
        before, after = np.take(p, range(k), axis=axis), np.take(p, range(k + 1, n), axis=axis)
        if not np.isnan(pk).any() if p.dtype.kind == "f" else True:
            assert not (before > pk).any() and not (after < pk).any(), where


@pytest.mark.parametrize("name", ["partition", "argpartition"])
def test_partition_contract(name):
    for where, t, a in cases((3, 5), ["int64", "float32", "float64", "bool"]):
        if a.ndim == 0 or a.size == 0:
            continue
        for kth, axis in ((0, -1), (2, -1), (-1, -1), ([1, 3], -1), (1, 0), (4, None)):
            if axis == 0 and a.ndim < 2:
                continue
            r = getattr(strided, name)(t, kth, axis=axis)
            if name == "argpartition":
                assert r.dtype == strided.int64
                flat = a.reshape(-1) if axis is None else a
                r = np.take_along_axis(flat, np.asarray(r), axis=0 if axis is None else axis)
                r = strided.asarray(r)
            check_partition(r, a, kth, axis, f"{where} kth={kth} axis={axis}")


def test_partition_errors():
    x = strided.asarray([3, 1, 2])
    for name in ("partition", "argpartition"):
        fs = getattr(strided, name)
        with pytest.raises(ValueError, match=r"kth\(=3\) out of bounds"):
            fs(x, 3)
        with pytest.raises(ValueError, match=r"kth\(=-4\) out of bounds"):
            fs(x, [0, -4])
        with pytest.raises(ValueError, match="0-d tensor cannot be partitioned"):
            fs(strided.asarray(1), 0)
        with pytest.raises(TypeError, match="kth must be an int"):
            fs(x, 1.5)
        with pytest.raises(IndexError, match="axis[= ]1 is out of range"):
            fs(x, 0, axis=1)


# ---------------------------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------------------------

DEVICE_CASES = {
    "isin": lambda t: strided.isin(t, strided.asarray([0.5, -1.0, NAN]).to(t.device)),
    "isin-invert": lambda t: strided.isin(t, t[0], invert=True),
    "intersect1d": lambda t: strided.intersect1d(t, t[1:], return_indices=True),
    "union1d": lambda t: strided.union1d(t[0], t[2]),
    "setdiff1d": lambda t: strided.setdiff1d(t, t[0]),
    "setxor1d": lambda t: strided.setxor1d(t[0], t[1]),
    "argwhere": lambda t: strided.argwhere(t),
    "flatnonzero": lambda t: strided.flatnonzero(t),
    "lexsort": lambda t: strided.lexsort((t[0], t[1])),
    "partition": lambda t: strided.partition(t, 2),
    "argpartition": lambda t: strided.argpartition(t, [0, 3], axis=0),
}


@pytest.mark.parametrize("device", DEVICES)
def test_devices_give_cpu_values(device):
    rng = np.random.default_rng(3)
    ref = values((4, 5), "float64", rng)
    for layout in ("contiguous", "transposed"):
        t = make_layout(layout, ref, rng)[0]
        d = on(device, t)
        for name, fn in DEVICE_CASES.items():
            want, got = fn(t), fn(d)
            for g, w in output_pairs(got, want):
                assert g.device == d.device, name
                same(g, np.asarray(w), f"{name} {layout}")
