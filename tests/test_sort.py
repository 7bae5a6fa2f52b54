"""Sorting and sets (strided/_ops/sorting.py, strided/_cpu/sort.pyx.tp) against NumPy.

The oracles: ``np.sort``/``np.argsort`` with ``kind="stable"`` for ascending order; for
descending order a stable descending argsort built from NumPy's (sort the reversed line, map the
positions back, reverse: ties keep their original order, NaNs come first); ``np.unique_*`` for
the sets; a topk reference from that argsort. Values are compared bit for bit, so -0.0 against
0.0 and the place of every NaN are checked, not just numeric equality.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import ALL_DTYPES, LAYOUTS, make_layout, make_values

import strided

SHAPE = (4, 3, 5)
FEW_DTYPES = (strided.bool, strided.int8, strided.uint64, strided.float32, strided.complex128)


def _shape(layout):
    return {"0-d": (), "empty": (4, 0, 5)}.get(layout, SHAPE)


def _layout_cases(dtypes_for_all_layouts=ALL_DTYPES):
    for layout in LAYOUTS:
        dtypes = ALL_DTYPES if layout in ("contiguous", "negative-stride") else FEW_DTYPES
        for dtype in dtypes:
            if dtype in dtypes_for_all_layouts:
                yield pytest.param(layout, dtype, id=f"{layout}-{dtype.name}")


def _axes(ndim):
    return (-1, 0) if ndim == 0 else tuple(range(-ndim, ndim))


def ref_argsort(a, axis, descending):
    """NumPy's stable argsort along ``axis``, or the stable descending one (see the module
    docstring); a 0-d array sorts as one element."""
    if a.ndim == 0:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    idx = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - idx, axis)


def ref_sort(a, axis, descending):
    if a.ndim == 0:
        return a.copy()
    if not descending:
        return np.sort(a, axis=axis, kind="stable")
    return np.take_along_axis(a, ref_argsort(a, axis, True), axis)


def assert_bitwise(got, expected, where=""):
    """Same shape, dtype and bytes (so -0.0 is not 0.0, and NaNs sit in the same places)."""
    exp = np.asarray(expected)
    assert isinstance(got, strided.Tensor), where
    g = np.asarray(got)
    assert g.shape == exp.shape, f"{where}: shape {g.shape} != {exp.shape}"
    assert g.dtype == exp.dtype, f"{where}: dtype {g.dtype} != {exp.dtype}"
    gb = np.ascontiguousarray(g).view(np.uint8)
    eb = np.ascontiguousarray(exp).view(np.uint8)
    if not np.array_equal(gb, eb):
        np.testing.assert_array_equal(g, exp, err_msg=where)  # a readable message ...
        raise AssertionError(f"{where}: equal values but different bits (-0.0 or NaN)\n{g}\n{exp}")


# ---------------------------------------------------------------------------------------------
# sort, argsort, Tensor.sort: every dtype, layout, axis and direction
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("layout", "dtype"), list(_layout_cases()))
def test_sort_argsort_layouts(layout, dtype, rng):
    ref = make_values(_shape(layout), dtype, rng)
    pair = make_layout(layout, ref, rng)
    if pair is None:
        pytest.skip(f"the {layout} layout does not apply to shape {ref.shape}")
    t, a = pair
    before = np.asarray(t).copy()
    for axis in _axes(a.ndim):
        for descending in (False, True):
            where = f"{layout} {dtype.name} axis={axis} descending={descending}"
            exp_idx = ref_argsort(a, axis, descending)
            exp_val = ref_sort(a, axis, descending)
            got_val = strided.sort(t, axis=axis, descending=descending)
            got_idx = strided.argsort(t, axis=axis, descending=descending)
            assert_bitwise(got_val, exp_val, where)
            assert_bitwise(got_idx, exp_idx.astype(np.int64), where)
            assert got_val.is_contiguous() and got_idx.is_contiguous(), where
            assert got_val.untyped_storage() is not t.untyped_storage(), where
            values, indices = t.sort(dim=axis, descending=descending)
            assert_bitwise(values, exp_val, where)
            assert_bitwise(indices, exp_idx.astype(np.int64), where)
    assert_bitwise(t, before, "the input is left alone")


def test_sort_default_axis_and_dim_spelling():
    a = np.array([[3, 1, 2], [0, 5, -1]], dtype=np.int32)
    t = strided.asarray(a)
    assert_bitwise(strided.sort(t), np.sort(a, axis=-1))
    assert_bitwise(strided.sort(t, 0), np.sort(a, axis=0))  # NumPy's positional axis
    assert_bitwise(strided.sort(t, dim=0).values, np.sort(a, axis=0))  # torch.sort's pair
    assert_bitwise(strided.argsort(t, dim=0), np.argsort(a, axis=0, kind="stable"))
    assert_bitwise(strided.sort(t, stable=False), np.sort(a))  # accepted, stable anyway
    assert_bitwise(strided.argsort(t.T, axis=1), np.argsort(a.T, axis=1, kind="stable"))
    assert_bitwise(strided.sort([3, 1, 2]), np.array([1, 2, 3]))  # non-tensors go via asarray
    assert_bitwise(t.argsort(), np.argsort(a, kind="stable"))
    assert_bitwise(t.argsort(0, True), ref_argsort(a, 0, True))
    assert type(t.sort(dim=-1)).__name__ == "SortResult"
    assert_bitwise(t.sort(0, True).values, -np.sort(-a, axis=0))  # torch's x.sort(dim, descending)
    assert t.sort(axis=0) is None  # NumPy's a.sort: in place
    a.sort(axis=0)
    assert_bitwise(t, a)


def test_descending_is_stable_not_reversed():
    x = strided.asarray([1, 2, 1, 2, 1])
    # a reversed ascending sort would give [3, 1, 4, 2, 0]
    assert strided.argsort(x, descending=True).tolist() == [1, 3, 0, 2, 4]
    assert strided.argsort(x).tolist() == [0, 2, 4, 1, 3]
    assert x.sort(descending=True).indices.tolist() == [1, 3, 0, 2, 4]


def test_nan_inf_and_signed_zero_placement():
    nan, inf = np.nan, np.inf
    a = np.array([nan, -inf, 0.0, -0.0, inf, nan, 1.0, -0.0], dtype=np.float64)
    for dtype in (np.float32, np.float64):
        t = strided.asarray(a.astype(dtype))
        idx = strided.argsort(t).tolist()
        assert idx == [1, 2, 3, 7, 6, 4, 0, 5]  # NaNs last, ties (0.0, -0.0) in order
        assert idx == np.argsort(a.astype(dtype), kind="stable").tolist()
        assert strided.argsort(t, descending=True).tolist() == [0, 5, 4, 6, 2, 3, 7, 1]
        assert_bitwise(strided.sort(t), np.sort(a.astype(dtype), kind="stable"))
        got = np.asarray(strided.sort(t, descending=True))
        assert np.isnan(got[:2]).all() and got[2] == inf and got[-1] == -inf
        assert np.signbit(got[4:7]).tolist() == [False, True, True]  # 0.0, -0.0, -0.0


def test_all_nan_and_nan_heavy_lines():
    a = np.full(50, np.nan)
    assert strided.argsort(strided.asarray(a)).tolist() == list(range(50))
    assert strided.argsort(strided.asarray(a), descending=True).tolist() == list(range(50))
    b = np.where(np.arange(100) % 3 == 0, np.nan, np.arange(100.0)[::-1])
    for desc in (False, True):
        assert_bitwise(
            strided.argsort(strided.asarray(b), descending=desc), ref_argsort(b, 0, desc)
        )


def test_complex_order_matches_numpy():
    nan = np.nan
    parts = [0.0, 1.0, -1.0, nan, np.inf]
    a = np.array([complex(r, i) for r in parts for i in parts] * 2, dtype=np.complex128)
    a = a[np.random.default_rng(3).permutation(a.size)]
    for dtype in (np.complex64, np.complex128):
        c = a.astype(dtype)
        t = strided.asarray(c)
        assert_bitwise(strided.argsort(t), np.argsort(c, kind="stable"))
        assert_bitwise(strided.sort(t), np.sort(c, kind="stable"))
        assert_bitwise(strided.argsort(t, descending=True), ref_argsort(c, 0, True))


@pytest.mark.parametrize(
    "dtype", [strided.int8, strided.uint8, strided.int64, strided.uint64], ids=lambda d: d.name
)
def test_integer_extremes(dtype):
    info = np.iinfo(dtype.numpy)
    a = np.array([info.max, info.min, 0, info.max, 1, info.min, info.max - 1], dtype=dtype.numpy)
    for desc in (False, True):
        assert_bitwise(
            strided.argsort(strided.asarray(a), descending=desc), ref_argsort(a, 0, desc)
        )


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 4097])
def test_lengths_around_run_boundaries(n, rng):
    a = rng.integers(0, max(n // 3, 2), n).astype(np.float64)  # many ties
    a[rng.random(n) < 0.1] = np.nan
    for desc in (False, True):
        assert_bitwise(
            strided.argsort(strided.asarray(a), descending=desc), ref_argsort(a, 0, desc)
        )
        assert_bitwise(strided.sort(strided.asarray(a), descending=desc), ref_sort(a, 0, desc))


def test_presorted_and_reversed_inputs():
    for a in (np.arange(5000), np.arange(5000)[::-1].copy(), np.zeros(5000, np.int64)):
        for desc in (False, True):
            got = strided.argsort(strided.asarray(a), descending=desc)
            assert_bitwise(got, ref_argsort(a, 0, desc))


REAL_DTYPES = [d for d in ALL_DTYPES if d.numpy.kind in "iuf"]


def _radix_values(dtype, n, rng):
    """n values of ``dtype`` with everything the radix keys must order right: the extremes,
    both zeros, infinities and NaNs (of both signs, among floats), and many ties."""
    nd = dtype.numpy
    if nd.kind == "f":
        info = np.finfo(nd)
        special = [info.min, info.max, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan]
        special += [info.tiny, -info.tiny, info.eps, info.smallest_subnormal]
        special += [-info.smallest_subnormal]
        pool = np.concatenate([np.array(special, nd), rng.normal(0, 50, 40).astype(nd)])
    else:
        info = np.iinfo(nd)
        special = [info.min, info.max, info.min + 1, info.max - 1, 0, 1]
        pool = np.concatenate([np.array(special, nd), rng.integers(0, 100, 40).astype(nd)])
    a = pool[rng.integers(0, pool.size, n)]
    if nd.kind == "f":  # NaNs with other payloads: still NaNs, kept in input order
        bits = a.view(f"u{a.itemsize}")
        bits[np.isnan(a) & (np.arange(n) % 2 == 0)] |= 1
    return a


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("n", [255, 256, 257, 3000])
def test_radix_sort_every_real_dtype(dtype, n, rng):
    # Note [Radix sort for numbers]: lines of at least RADIX_MIN (256) numbers are radix-sorted;
    # the output must be the stable sort's, bit for bit (-0.0 and 0.0 in input order, NaNs
    # last or first in input order), for values, positions and both orders
    a = _radix_values(dtype, n, rng)
    t = strided.asarray(a)
    for desc in (False, True):
        values, indices = t.sort(descending=desc)
        assert_bitwise(indices, ref_argsort(a, 0, desc), f"descending={desc}")
        assert_bitwise(values, ref_sort(a, 0, desc), f"descending={desc}")
        assert_bitwise(strided.sort(t, descending=desc), ref_sort(a, 0, desc))


@pytest.mark.parametrize("dtype", [strided.int64, strided.uint64, strided.float64])
def test_radix_sort_skips_passes_that_change_nothing(dtype, rng):
    # small values in a wide type share their upper bytes: those passes are skipped, and an
    # odd number of passes leaves the result in the scratch buffer, not the line's
    for hi in (1, 2, 256, 65536):
        a = rng.integers(0, hi, 5000).astype(dtype.numpy)
        for desc in (False, True):
            assert_bitwise(
                strided.argsort(strided.asarray(a), descending=desc),
                ref_argsort(a, 0, desc),
                f"hi={hi}",
            )
            assert_bitwise(
                strided.sort(strided.asarray(a), descending=desc), ref_sort(a, 0, desc), f"hi={hi}"
            )


@pytest.mark.parametrize(
    "shape_axis",
    [((200_003,), 0), ((3, 70_001), 1), ((70_001, 3), 0), ((64, 2048), 1), ((2048, 64), 0)],
    ids=["one-line", "few-long-lines", "few-strided-lines", "many-lines", "many-strided-lines"],
)
def test_results_do_not_depend_on_thread_count(shape_axis):
    shape, axis = shape_axis
    rng = np.random.default_rng(7)
    a = rng.integers(0, 1000, shape).astype(np.float32)  # many ties
    a[rng.random(shape) < 0.05] = np.nan
    a[rng.random(shape) < 0.05] = -0.0
    t = strided.asarray(a)
    exp = {d: (ref_argsort(a, axis, d), ref_sort(a, axis, d)) for d in (False, True)}
    for threads in (1, 2, 3, 4):
        strided.set_num_threads(threads)
        for desc in (False, True):
            values, indices = t.sort(dim=axis, descending=desc)
            where = f"threads={threads} descending={desc}"
            assert_bitwise(indices, exp[desc][0], where)
            assert_bitwise(values, exp[desc][1], where)
            assert_bitwise(strided.sort(t, axis=axis, descending=desc), exp[desc][1], where)


@pytest.mark.parametrize(
    "dtype",
    [strided.int16, strided.uint32, strided.float64, strided.complex64],
    ids=lambda d: d.name,
)
def test_big_sorts_against_numpy(dtype, rng):
    a = make_values((100_000,), dtype, rng)
    strided.set_num_threads(2)
    t = strided.asarray(a)
    for desc in (False, True):
        assert_bitwise(strided.argsort(t, descending=desc), ref_argsort(a, 0, desc))
        assert_bitwise(strided.sort(t, descending=desc), ref_sort(a, 0, desc))


def test_sort_errors():
    t = strided.asarray([[1, 2], [3, 4]])
    with pytest.raises(IndexError, match=r"sort: axis=2 is out of range for a tensor with 2 dims"):
        strided.sort(t, axis=2)
    with pytest.raises(IndexError, match=r"argsort: axis=-3 is out of range .* \[-2, 1\]"):
        strided.argsort(t, axis=-3)
    with pytest.raises(IndexError, match="out of range for a tensor with 0 dims"):
        strided.sort(strided.asarray(1.0), axis=1)
    with pytest.raises(TypeError, match="axis must be an int"):
        strided.sort(t, axis=1.0)
    with pytest.raises(TypeError, match="axis must be an int"):
        strided.sort(t, axis=(0, 1))
    with pytest.raises(TypeError, match="axis= or dim=, not both"):
        strided.sort(t, axis=0, dim=1)


def test_sort_goes_through_the_dispatcher():
    t = strided.asarray([2.0, 1.0])
    with strided.trace_dispatch() as trace:
        v = strided.sort(t)
        u = strided.unique_values(t)
    assert [r["op"] for r in trace] == ["sort", "unique"]
    assert trace[0]["key"] == "CPU"
    assert v.tolist() == [1.0, 2.0] and u.tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------------------------------
# topk
# ---------------------------------------------------------------------------------------------


def ref_topk(a, k, axis, largest):
    idx = ref_argsort(a, axis, largest)
    idx = np.take(idx, np.arange(k), axis=axis)
    return np.take_along_axis(a, idx, axis), idx


@pytest.mark.parametrize(("layout", "dtype"), list(_layout_cases(FEW_DTYPES)))
def test_topk_layouts(layout, dtype, rng):
    ref = make_values(_shape(layout), dtype, rng)
    pair = make_layout(layout, ref, rng)
    if pair is None:
        pytest.skip(f"the {layout} layout does not apply to shape {ref.shape}")
    t, a = pair
    if a.ndim == 0:
        values, indices = strided.topk(t, 1)
        assert_bitwise(values, a)
        assert_bitwise(indices, np.zeros((), np.int64))
        return
    for axis in _axes(a.ndim):
        n = a.shape[axis]
        for k in sorted({0, min(1, n), n // 2, n}):
            for largest in (True, False):
                where = f"{layout} {dtype.name} axis={axis} k={k} largest={largest}"
                exp_v, exp_i = ref_topk(a, k, axis, largest)
                values, indices = strided.topk(t, k, dim=axis, largest=largest)
                assert_bitwise(values, exp_v, where)
                assert_bitwise(indices, exp_i.astype(np.int64), where)
                assert values.is_contiguous() and indices.is_contiguous(), where
                values, indices = t.topk(k, axis, largest)
                assert_bitwise(indices, exp_i.astype(np.int64), where)


@pytest.mark.parametrize(
    "dtype", FEW_DTYPES + (strided.float64, strided.int64), ids=lambda d: d.name
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "negative-stride"])
def test_topk_by_selection_long_lines(layout, dtype, rng):
    """Lines long enough (n >= 8k, k <= 64) that topk selects instead of sorting."""
    ref = make_values((6, 400), dtype, rng)
    if dtype.kind in "iuf":
        ref[:, 1::2] = ref[:, ::2]  # ties
    t, a = make_layout(layout, ref, rng)
    for axis in (1, -1):
        for k in (1, 2, 7, 50):
            for largest in (True, False):
                where = f"{layout} {dtype.name} axis={axis} k={k} largest={largest}"
                exp_v, exp_i = ref_topk(a, k, axis, largest)
                values, indices = strided.topk(t, k, dim=axis, largest=largest)
                assert_bitwise(values, exp_v, where)
                assert_bitwise(indices, exp_i.astype(np.int64), where)
    t0, a0 = make_layout(layout, ref.T.copy(), rng)  # the selected dim is dim 0
    exp_v, exp_i = ref_topk(a0, 5, 0, True)
    assert_bitwise(strided.topk(t0, 5, dim=0).indices, exp_i.astype(np.int64), layout)
    assert_bitwise(strided.topk(t0, 5, dim=0).values, exp_v, layout)


@pytest.mark.parametrize("order", ["random", "ascending", "descending", "constant", "nan-heavy"])
def test_topk_selection_adversarial_orders_and_threads(order):
    rng = np.random.default_rng(11)
    n = 50_000
    a = {
        "random": rng.random(n),
        "ascending": np.arange(n, dtype=np.float64),
        "descending": np.arange(n, dtype=np.float64)[::-1].copy(),
        "constant": np.zeros(n),
        "nan-heavy": np.where(rng.random(n) < 0.5, np.nan, rng.integers(0, 5, n)),
    }[order].reshape(2, n // 2)
    t = strided.asarray(a)
    for k in (1, 64):
        for largest in (True, False):
            exp_v, exp_i = ref_topk(a, k, 1, largest)
            for threads in (1, 2, 3):
                strided.set_num_threads(threads)
                values, indices = strided.topk(t, k, largest=largest)
                where = f"{order} k={k} largest={largest} threads={threads}"
                assert_bitwise(indices, exp_i.astype(np.int64), where)
                assert_bitwise(values, exp_v, where)


def test_topk_selects_for_small_k_and_sorts_for_large_k(monkeypatch):
    from strided._cpu import sort as kernels

    calls = []
    real = kernels.topk_axis
    monkeypatch.setattr(kernels, "topk_axis", lambda *a: calls.append(a[2]) or real(*a))
    t = strided.arange(10_000)
    assert strided.topk(t, 64).indices.tolist() == list(range(9999, 9935, -1))
    assert strided.topk(t, 1025).indices.tolist() == list(range(9999, 8974, -1))
    assert strided.topk(t[:100], 13).indices.tolist() == list(range(99, 86, -1))
    assert strided.topk(t[:100], 12, largest=False).indices.tolist() == list(range(12))
    assert calls == [64, 12]  # 1025 is above the limit; 13 * 8 > 100


def test_topk_semantics():
    x = strided.asarray([1.0, np.nan, 9.0, 9.0, -np.inf])
    r = strided.topk(x, 3)
    assert type(r).__name__ == "TopKResult"
    assert np.isnan(r.values.tolist()[0]) and r.values.tolist()[1:] == [9.0, 9.0]
    assert r.indices.tolist() == [1, 2, 3]  # NaN is the largest (PyTorch); ties in order
    assert strided.topk(x, 2, largest=False).indices.tolist() == [4, 0]
    assert strided.topk(x, 2, sorted=False).indices.tolist() == [1, 2]


def test_topk_errors():
    t = strided.asarray([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match=r"topk: k=4 is out of range for dim 1 of size 3"):
        strided.topk(t, 4)
    with pytest.raises(ValueError, match=r"k=-1 is out of range"):
        strided.topk(t, -1)
    with pytest.raises(ValueError, match=r"k=3 is out of range for dim 0 of size 2"):
        strided.topk(t, 3, dim=0)
    with pytest.raises(TypeError, match="k must be an int"):
        strided.topk(t, 1.5)
    with pytest.raises(IndexError, match="topk: axis=2 is out of range"):
        strided.topk(t, 1, dim=2)
    with pytest.raises(ValueError, match="a 0-d tensor takes k=1"):
        strided.topk(strided.asarray(3), 0)


# ---------------------------------------------------------------------------------------------
# unique_values, unique_counts, unique_inverse, unique_all, unique
# ---------------------------------------------------------------------------------------------


def _check_unique_all(t, a, where):
    exp = np.unique_all(a)
    got = strided.unique_all(t)
    assert type(got).__name__ == "UniqueAllResult"
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    # np.unique_all sorts stably too, so even the bits of -0.0 and NaN agree
    assert_bitwise(got.values, exp.values, where)
    assert_bitwise(got.indices, exp.indices.astype(np.int64), where)
    assert_bitwise(got.inverse_indices, exp.inverse_indices.astype(np.int64), where)
    assert_bitwise(got.counts, exp.counts.astype(np.int64), where)
    # each value is its first occurrence, bit for bit
    assert_bitwise(got.values, a.reshape(-1)[exp.indices], where)

    v = strided.unique_values(t)
    assert_bitwise(v, got.values, where)
    c = strided.unique_counts(t)
    assert c._fields == ("values", "counts")
    assert_bitwise(c.values, got.values, where)
    assert_bitwise(c.counts, got.counts, where)
    np.testing.assert_array_equal(np.asarray(c.counts), np.unique_counts(a).counts, where)
    i = strided.unique_inverse(t)
    assert i._fields == ("values", "inverse_indices")
    assert_bitwise(i.values, got.values, where)
    assert_bitwise(i.inverse_indices, got.inverse_indices, where)
    # np.unique_inverse sorts unstably, so which NaN gets which of the NaN values varies; the
    # other elements must agree
    known = ~np.isnan(a) if a.dtype.kind in "fc" else np.ones(a.shape, bool)
    exp_inv = np.unique_inverse(a).inverse_indices
    np.testing.assert_array_equal(np.asarray(i.inverse_indices)[known], exp_inv[known], where)
    # np.unique_values is unordered since NumPy 2.3: compare as sorted multisets
    np.testing.assert_array_equal(np.asarray(v), np.sort(np.unique_values(a)), where)


@pytest.mark.parametrize(("layout", "dtype"), list(_layout_cases()))
def test_unique_layouts(layout, dtype, rng):
    ref = make_values(_shape(layout), dtype, rng)
    if dtype.kind in "iu" or dtype.kind == "f":  # fewer distinct values: real groups
        ref = ref.reshape(-1)
        ref[::2] = ref[1::2][: ref[::2].size] if ref.size > 1 else ref[::2]
        ref = ref.reshape(_shape(layout))
    pair = make_layout(layout, ref, rng)
    if pair is None:
        pytest.skip(f"the {layout} layout does not apply to shape {ref.shape}")
    t, a = pair
    _check_unique_all(t, np.asarray(a), f"{layout} {dtype.name}")


def test_unique_nans_are_distinct_and_zeros_are_one():
    a = np.array([np.nan, 1.0, np.nan, 1.0, -0.0, 0.0])
    r = strided.unique_all(strided.asarray(a))
    got = np.asarray(r.values)
    assert got.shape == (4,) and np.isnan(got[2:]).all()
    assert np.signbit(got[0])  # -0.0 came first, so it represents the 0s
    assert r.indices.tolist() == [4, 1, 0, 2]
    assert r.counts.tolist() == [2, 2, 1, 1]
    assert r.inverse_indices.tolist() == [2, 1, 3, 1, 0, 0]


def test_unique_complex_with_nans():
    c = np.array(
        [1 + 0j, complex(np.nan, 0), complex(1, np.nan), 2 + 0j, 1 + 0j, complex(1, np.nan)]
    )
    _check_unique_all(strided.asarray(c), c, "complex")


def test_unique_big_with_threads(rng):
    a = rng.integers(0, 500, 100_000).astype(np.int32)
    for threads in (1, 2):
        strided.set_num_threads(threads)
        _check_unique_all(strided.asarray(a), a, f"threads={threads}")


def test_unique_inverse_rebuilds_input(rng):
    a = rng.integers(-3, 3, (5, 7))
    t = strided.asarray(a)
    values, inverse = strided.unique_inverse(t)
    assert inverse.shape == (5, 7)
    np.testing.assert_array_equal(np.asarray(values)[np.asarray(inverse)], a)


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.int16])
def test_numpy_style_unique(dtype, equal_nan, rng):
    a = rng.integers(0, 4, 40).astype(dtype)
    if dtype != np.int16:
        a[rng.random(40) < 0.3] = np.nan
    if dtype == np.complex128:
        a[rng.random(40) < 0.2] = complex(1, np.nan)
    a = a.reshape(5, 8)
    t = strided.asarray(a)
    exp = np.unique(
        a, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan
    )
    got = strided.unique(
        t, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan
    )
    for g, e, name in zip(got, exp, ("values", "index", "inverse", "counts"), strict=True):
        np.testing.assert_array_equal(np.asarray(g), e, err_msg=name)
    np.testing.assert_array_equal(
        np.asarray(strided.unique(t, equal_nan=equal_nan)), np.unique(a, equal_nan=equal_nan)
    )
    _, counts = strided.unique(t, return_counts=True)
    np.testing.assert_array_equal(np.asarray(counts), np.unique(a, return_counts=True)[1])


def test_unique_empty_and_0d():
    e = strided.unique_all(strided.zeros((2, 0)))
    assert e.values.shape == (0,) and e.counts.shape == (0,) and e.indices.shape == (0,)
    assert e.inverse_indices.shape == (2, 0)
    z = strided.unique_all(strided.asarray(5))
    assert z.values.tolist() == [5] and z.inverse_indices.shape == ()
    assert z.counts.tolist() == [1] and z.indices.tolist() == [0]


def test_unique_errors():
    with pytest.raises(NotImplementedError, match="only axis=None"):
        strided.unique(strided.asarray([1, 2]), axis=0)


# ---------------------------------------------------------------------------------------------
# Hypothesis: random shapes, axes, dtypes and many duplicates against np.argsort(stable)
# ---------------------------------------------------------------------------------------------

_HYP_DTYPES = (np.int8, np.uint16, np.int64, np.float32, np.float64)


@st.composite
def _arrays(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(0, 40), min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(_HYP_DTYPES))
    size = int(np.prod(shape))
    pool = draw(st.integers(1, 6))  # a few distinct values: lots of ties
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = rng.integers(0, pool, size).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[rng.random(size) < 0.15] = np.nan
        a[rng.random(size) < 0.1] = -0.0
    a = a.reshape(shape)
    view = draw(st.sampled_from(["plain", "T", "flip", "step"]))
    return a, view, draw(st.integers(-ndim, ndim - 1)), draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(_arrays())
def test_hypothesis_argsort_matches_numpy(case):
    a, view, axis, descending = case
    t = strided.asarray(a)
    if view == "T":
        a, t = a.T, t.T
    elif view == "flip":
        a, t = a[::-1], t[::-1]
    elif view == "step":
        a, t = a[::2], t[::2]
    where = f"shape={a.shape} dtype={a.dtype} {view} axis={axis} descending={descending}"
    assert_bitwise(
        strided.argsort(t, axis=axis, descending=descending),
        ref_argsort(a, axis, descending),
        where,
    )
    assert_bitwise(
        strided.sort(t, axis=axis, descending=descending), ref_sort(a, axis, descending), where
    )
