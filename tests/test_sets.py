"""strided._ops.sets against NumPy: membership, the 1-D set operations, argwhere and
flatnonzero, lexsort, and partitions.

NumPy is the oracle for values and dtypes, over the layouts of ``layouts.py`` and int, float
(with NaN) and bool inputs full of ties. ``partition``/``argpartition`` leave the order around
the kth element open, so they are checked by the contract (Note [Partition by selection]): the
kth elements equal the sorted ones, nothing before is larger, nothing after is smaller; the
selection kernel also on every dtype and layout, on the inputs that trouble a quickselect, and
on lines long and many enough to run in parallel. A subset runs on the CUDA devices of
``devices.py``.
"""

# ruff: noqa: B023 - the lambdas given to compare() run at once, inside their loop iteration

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, on, same_on_device
from layouts import ALL_DTYPES, LAYOUTS, agrees_with_numpy, make_layout, make_values

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
    """Run NumPy's ``fn``; strided's ``fs`` must match its result exactly, or raise like it."""
    agrees_with_numpy(fs, fn, same, where)


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
        with pytest.raises(ValueError, match=r"kth\(=0\) out of bounds"):
            fs(strided.zeros((2, 0)), 0)


# The selection kernel (Note [Selection] in strided/_cpu/select.pyx.tp), checked by the contract
# in NumPy's sort order, which also places NaNs (last) and complex numbers: x is at most the
# kth sorted value s[k] where searchsorted(s, x, "left") <= k, at least it where
# searchsorted(s, x, "right") > k.


def check_selected(p, a, kth, axis, where, order=None):
    """p partitions a along ``axis`` at every kth (``order``: argpartition's positions, which
    must be a permutation of each line, with p = a taken at them)."""
    p = to_np(p)
    if axis is None:
        a, axis = a.reshape(-1), 0
    assert p.shape == a.shape and p.dtype == a.dtype, where
    if a.size == 0:
        return
    n = a.shape[axis]
    lines, got = np.moveaxis(a, axis, -1).reshape(-1, n), np.moveaxis(p, axis, -1).reshape(-1, n)
    if order is not None:
        order = np.moveaxis(to_np(order), axis, -1).reshape(-1, n)
        assert order.dtype == np.int64, where
    for i, (line, row) in enumerate(zip(lines, got, strict=True)):
        s = np.sort(line)
        if order is not None:
            np.testing.assert_array_equal(np.sort(order[i]), np.arange(n), err_msg=where)
            np.testing.assert_array_equal(line[order[i]], row, err_msg=where)
        np.testing.assert_array_equal(np.sort(row), s, err_msg=where)
        for k in np.atleast_1d(kth):
            k = int(k) % n
            np.testing.assert_array_equal(row[k], s[k], err_msg=f"{where} k={k}")
            assert (np.searchsorted(s, row[:k], "left") <= k).all(), f"{where} before k={k}"
            assert (np.searchsorted(s, row[k + 1 :], "right") > k).all(), f"{where} after k={k}"


def partitions(t, kth, axis, where):
    """partition and argpartition of t, checked against the array a."""
    yield strided.partition(t, kth, axis=axis), None
    order = strided.argpartition(t, kth, axis=axis)
    flat = t.reshape(-1) if axis is None else t
    yield strided.take_along_axis(flat, order, axis=0 if axis is None else axis), order


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_partition_every_layout_and_dtype(dtype):
    rng = np.random.default_rng(11)
    ref = make_values((5, 9), dtype, rng)
    ref.reshape(-1)[::4] = ref.reshape(-1)[1]  # ties
    for layout in LAYOUTS:
        pair = make_layout(layout, ref, rng)
        if pair is None:
            continue
        t, a = pair
        where = f"{dtype} {layout}"
        if a.ndim == 0:
            with pytest.raises(ValueError, match="0-d tensor cannot be partitioned"):
                strided.partition(t, 0)
            continue
        for kth, axis in ((0, -1), (4, -1), (-1, -1), ([1, 3, 7], -1), ([-1, 0, 2, 2], 0),
                          (2, 0), (np.int64(3), 1), ([0, -8, 20], None)):  # fmt: skip
            n = a.size if axis is None else a.shape[axis]
            if n == 0:
                with pytest.raises(ValueError, match="out of bounds"):
                    strided.partition(t, kth, axis=axis)
                continue
            if not all(-n <= int(k) < n for k in np.atleast_1d(kth)):
                continue
            for p, order in partitions(t, kth, axis, where):
                check_selected(p, a, kth, axis, f"{where} kth={kth} axis={axis}", order)
        assert strided.partition(t, [], axis=0).shape == a.shape


def adversarial(n, rng):
    """The inputs that make a naive quickselect slow or wrong: sorted, reverse-sorted,
    all-equal, few distinct values, organ pipe, sawtooth, and random with NaNs."""
    x = rng.standard_normal(n)
    with_nan = x.copy()
    with_nan[rng.random(n) < 0.2] = np.nan
    return {
        "sorted": np.sort(x),
        "reverse-sorted": np.sort(x)[::-1].copy(),
        "all-equal": np.full(n, 1.5),
        "few-values": rng.integers(0, 3, n).astype(np.float64),
        "organ-pipe": np.concatenate([np.arange(n // 2), np.arange(n - n // 2)[::-1]]) * 1.0,
        "sawtooth": (np.arange(n) % 17).astype(np.float64),
        "nan": with_nan,
        "all-nan": np.full(n, np.nan),
    }


def test_partition_adversarial_inputs_and_long_lines():
    rng = np.random.default_rng(12)
    for n in (2, 17, 33, 1000, 70_001):
        for name, x in adversarial(n, rng).items():
            for dt in ("float64", "float32", "int32", "complex128") if n < 10_000 else ["float64"]:
                if dt.startswith("int") and np.isnan(x).any():
                    continue
                a = x.astype(dt)
                if dt == "complex128":
                    a = a + 1j * x[::-1]
                kths = sorted({0, n // 2, (n - 1) // 2, n - 1, n // 10})
                for kth in (n // 2, kths, -1):
                    for p, order in partitions(strided.asarray(a), kth, -1, name):
                        check_selected(p, a, kth, -1, f"{name} {dt} n={n} kth={kth}", order)


@pytest.mark.parametrize("threads", [1, 2])
def test_partition_many_lines_any_thread_count(threads):
    # above 2 * GRAIN_SIZE elements the lines are shared among threads; the result depends on
    # each line alone, so it is the same for every thread count and layout
    rng = np.random.default_rng(13)
    a = rng.integers(0, 50, (40, 4001)).astype(np.float64)
    a[rng.random(a.shape) < 0.05] = np.nan
    old = strided.get_num_threads()
    strided.set_num_threads(threads)
    try:
        for x in (a, a.T, a[:, ::-3]):
            for axis in (0, 1):
                n, t = x.shape[axis], strided.asarray(x)
                kth = [0, n // 2, n - 1]
                p, order = strided.partition(t, kth, axis=axis), strided.argpartition(t, kth, axis)
                check_partition(p, x, kth, axis, f"{x.shape} axis={axis}")
                line = np.arange(n).reshape((-1, 1) if axis == 0 else (1, -1))
                np.testing.assert_array_equal(
                    np.sort(np.asarray(order), axis), np.broadcast_to(line, x.shape)
                )
                check_partition(strided.take_along_axis(t, order, axis=axis), x, kth, axis, "arg")
                strided.set_num_threads(1)
                one = strided.partition(t, kth, axis=axis)
                strided.set_num_threads(threads)
                np.testing.assert_array_equal(np.asarray(p), np.asarray(one))
    finally:
        strided.set_num_threads(old)


def test_partition_kernel_checks_its_kth():
    from strided._cpu.select import select_axis

    x = strided.asarray([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    with pytest.raises(ValueError, match="kth lies outside"):
        select_axis(x, 1, strided.asarray([[0], [3]]), True, False)
    with pytest.raises(ValueError, match="int64"):
        select_axis(x, 1, strided.asarray([[0.0], [1.0]]), True, False)
    with pytest.raises(ValueError, match="does not match"):
        select_axis(x, 1, strided.asarray([[0]]), True, False)
    # rows in any order, with repeats, and a kth row per line
    v, i = select_axis(x, 1, strided.asarray([[2, 0, 2], [1, 1, 1]]), True, True)
    np.testing.assert_array_equal(np.asarray(v)[0], [1.0, 2.0, 3.0])
    assert float(v[1, 1]) == 4.0 and int(i[1, 1]) == 2


def test_partition_gradient():
    from strided.autograd import gradcheck

    x = strided.asarray([[3.0, 1.0, 2.5, 7.0], [0.5, 3.0, -1.0, 2.0]]).requires_grad_(True)
    assert gradcheck(lambda t: strided.partition(t, [1, 2], axis=1), (x,))
    assert gradcheck(lambda t: strided.partition(t, 0, axis=0), (x,))


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
}


@pytest.mark.parametrize("device", DEVICES)
def test_partition_devices_keep_the_contract(device):
    # a full sort on CUDA devices (Note [Partition by selection]): another order, the same promise
    rng = np.random.default_rng(3)
    ref = values((4, 5), "float64", rng)
    for layout in ("contiguous", "transposed"):
        t, a = make_layout(layout, ref, rng)
        d = on(device, t)
        for kth, axis in ((2, -1), ([0, 3], 0)):
            for p, order in partitions(d, kth, axis, layout):
                assert p.device == d.device, layout
                check_selected(p, a, kth, axis, f"{layout} kth={kth} axis={axis}", order)


@pytest.mark.parametrize("device", DEVICES)
def test_devices_give_cpu_values(device):
    rng = np.random.default_rng(3)
    ref = values((4, 5), "float64", rng)
    tensors = {layout: make_layout(layout, ref, rng)[0] for layout in ("contiguous", "transposed")}
    same_on_device(device, tensors, DEVICE_CASES, same)


# ---------------------------------------------------------------------------------------------
# isin by table (Note [isin by table] in strided/_ops/sets.py)
# ---------------------------------------------------------------------------------------------

INT_DTYPES = ["int8", "uint8", "int16", "int32", "int64", "uint64", "bool"]


def _with_extremes(dt, shape, rng):
    """Small values with the dtype's own min and max among them."""
    if dt == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dt)
    v = rng.integers(max(int(info.min), -4), 5, shape).astype(dt)
    if v.size:
        v.flat[0], v.flat[-1] = info.min, info.max
    return v


def compare_isin(t, a, test, where, kinds=(None, "table", "sort")):
    """strided.isin(t, test) against np.isin(a, test), for each kind, with and without invert."""
    for kind in kinds:
        for invert in (False, True):
            compare(
                lambda: strided.isin(t, test, invert=invert, kind=kind),
                lambda: np.isin(a, test, invert=invert, kind=kind),
                f"{where} {test} {kind} {invert}",
            )


def test_isin_table_matches_numpy_for_every_integer_dtype_and_kind():
    rng = np.random.default_rng(4)
    for xd in INT_DTYPES:
        for td in INT_DTYPES:
            a = _with_extremes(xd, (3, 4), rng)
            for test in (_with_extremes(td, (5,), rng), _with_extremes(td, (2,), rng)[:1]):
                compare_isin(a, a, test, f"{xd} in {td}")


def test_isin_table_on_every_layout():
    for where, t, a in cases((3, 4), ["int64", "int32", "bool"]):
        for test in ([1, -2, 1, 3], np.array([-3, 0, 2], np.int8), [True], [7, 9]):
            compare_isin(t, a, test, where, kinds=(None, "table"))


def test_isin_picks_the_table_by_numpy_rule():
    x = np.array([-5, 0, 3, 10**6, 2 * 10**6, 10**9], np.int64)
    compare_isin(x, x, [0, 10**6], "range 1e6 > 6 * (n + m): the search unless kind='table'")
    compare_isin(x, x, [0, 3, 29], "range 29 <= 6 * 8: the table")
    # range 1e9: the table only when forced, and a 1 GB table is too big to force here
    compare_isin(x, x, [3, 10**9], "range 1e9", kinds=(None, "sort"))
    big = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max])
    compare_isin(big, big, big, "int64 extremes", kinds=(None, "sort"))
    compare_isin(big[:1] + 5, big[:1] + 5, big, "int64 extremes", kinds=(None, "sort"))


def test_isin_empty_inputs_and_errors():
    empty_i, empty_f = np.zeros((0, 2), np.int64), np.zeros(0)
    compare_isin(empty_i, empty_i, [1, 2], "empty x")
    compare_isin(np.array([1, 2]), np.array([1, 2]), np.zeros(0, np.int64), "empty t")
    compare_isin(empty_i, empty_i, empty_i, "both empty")
    compare_isin(np.array([1.5, 2.0]), np.array([1.5, 2.0]), empty_f, "float, empty t")
    with pytest.raises(ValueError, match="only supported for boolean or integer"):
        strided.isin([1.0, 2.0], [1, 2], kind="table")
    with pytest.raises(ValueError, match="only supported for boolean or integer"):
        strided.isin([1, 2], [1 + 1j], kind="table")
    with pytest.raises(RuntimeError, match="exceeds the maximum"):
        strided.isin([1, 2], np.array([-100, 100], np.int8), kind="table")
    # the same range fits int16's maximum: the table is allowed
    compare(
        lambda: strided.isin([1, -100], np.array([-100, 100], np.int16), kind="table"),
        lambda: np.isin([1, -100], np.array([-100, 100], np.int16), kind="table"),
    )


@pytest.mark.parametrize("device", DEVICES)
def test_isin_table_devices_give_cpu_values(device):
    rng = np.random.default_rng(6)
    ref = np.concatenate([rng.integers(-6, 7, 18), [np.iinfo(np.int64).min, 10**12]])
    for layout in ("contiguous", "negative-stride"):
        t = make_layout(layout, ref.reshape(4, 5), rng)[0]
        d = on(device, t)
        for test, kinds in (([3, -2, 5, 3], (None, "table", "sort")), ([10**12, 7], (None,))):
            for kind in kinds:
                want = strided.isin(t, test, kind=kind)
                got = strided.isin(d, strided.asarray(test).to(d.device), kind=kind)
                assert got.device == d.device
                same(got, np.asarray(want), f"{layout} {test} {kind}")
