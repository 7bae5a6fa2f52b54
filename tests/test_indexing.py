"""Tests of advanced indexing (``x[idx]``, ``x[idx] = v``) and the indexing functions, with
NumPy as the oracle (strided/_ops/indexing.py, strided/_cpu/index.pyx.tp).

- get and set for many index forms (integer arrays of several dims, masks, bools, mixed with
  slices/None/Ellipsis/ints, adjacent and separated advanced indices) on every layout of
  tests/layouts.py (an expanded source for gets only), every dtype on the contiguous layout;
- a Hypothesis test of random indices, get and set, against NumPy and against the documented
  sequential order for repeated indices;
- each function against its NumPy reference (np.take, np.take_along_axis, np.put_along_axis,
  np.add.at, np.nonzero, np.argwhere, np.searchsorted, np.where);
- repeated indices, thread-count invariance of scatter_add / index_add / set, every error and its
  message, and that a failing set writes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import ALL_DTYPES, layouts, make_layout, make_values

import strided
from strided._cpu import index as _index
from strided._cpu import offsets as _offsets

SHAPE = (4, 5, 6)
FEW_DTYPES = (strided.int8, strided.float32, strided.complex128)
GET_LAYOUTS = ("contiguous", "transposed", "stepped", "negative-stride", "expanded")
SET_LAYOUTS = ("contiguous", "transposed", "stepped", "negative-stride")


def _np(t):
    return np.asarray(t)


def _mask(shape, seed, p=0.5):
    return np.random.default_rng(seed).random(shape) < p


def _two_true(n, seed):
    m = np.zeros(n, bool)
    m[np.random.default_rng(seed).choice(n, 2, replace=False)] = True
    return m


# Each case: (name, index as NumPy spells it). Arrays in it are converted per "spelling".
CASES = [
    ("int-array", np.array([3, 0, -1, 2])),
    ("int-array-2d", np.array([[0, 1], [3, -4]])),
    ("repeated", np.array([0, 0, 2, 0])),
    ("two-adjacent", (np.array([0, 2, 3]), np.array([1, 1, 4]))),
    ("three-arrays", (np.array([0, 3]), np.array([4, 0]), np.array([5, -6]))),
    ("broadcast", (np.array([[0], [3]]), np.array([1, 2, 4]))),
    ("slice-array", (slice(None), np.array([4, 0, 2]))),
    ("array-slice-array", (np.array([0, 1]), slice(None), np.array([5, 2]))),
    ("int-slice-array", (1, slice(None), np.array([0, 2]))),
    ("slice-int-array", (slice(None), 1, np.array([0, 2]))),
    ("none-between", (slice(None), np.array([0]), None, np.array([1]))),
    ("ellipsis-between", (np.array([0, 3]), Ellipsis, np.array([1, 5]))),
    ("ellipsis-first", (Ellipsis, np.array([1, 0]))),
    ("none-first", (None, np.array([2, 1]), slice(1, None, 2))),
    ("stepped-slices", (slice(None, None, -1), np.array([1, -1]), slice(None, None, 2))),
    ("mask-full", _mask(SHAPE, 1)),
    ("mask-first-two", _mask(SHAPE[:2], 2)),
    ("mask-last-two", (slice(None), _mask(SHAPE[1:], 3))),
    ("mask-and-array", (_two_true(4, 4), slice(None), np.array([0, 5]))),
    ("mask-array-adjacent", (np.eye(4, 5, dtype=bool), [2])),
    ("mask-empty", np.zeros(4, bool)),
    ("true", True),
    ("false", False),
    ("ellipsis-true", (Ellipsis, True)),
    ("array-true", (np.array([0, 1]), True)),
    ("array-slice-true", (np.array([0]), slice(None), True)),
    ("empty-list", []),
    ("empty-2d", np.zeros((2, 0), np.int64)),
    ("numpy-int-and-array", (np.int64(2), np.array([0, 1]))),
    ("nested-tuple", ((0, 3),)),
    ("int32-index", np.array([1, 3], np.int32)),
    ("uint8-index", (slice(None), np.array([4, 0], np.uint8))),
]


def _spell(index, spelling, device=None):
    """The NumPy-style ``index`` with its arrays as strided tensors (on ``device``), NumPy
    arrays or lists."""

    def one(item):
        if isinstance(item, np.ndarray):
            if spelling == "tensor":
                return strided.asarray(item, device=device)
            if spelling == "list":
                return item.tolist()
        return item

    if isinstance(index, tuple):
        return tuple(one(i) for i in index)
    return one(index)


def _check_equal(got, expected, where=""):
    assert isinstance(got, strided.Tensor), where
    assert got.shape == expected.shape, f"{where}: shape {got.shape}, NumPy {expected.shape}"
    np.testing.assert_array_equal(_np(got), expected, err_msg=where, strict=True)


def _get_params():
    for name, index in CASES:
        for layout in GET_LAYOUTS:
            yield pytest.param(index, layout, id=f"{name}-{layout}")


@pytest.mark.parametrize("index,layout", list(_get_params()))
def test_get_matches_numpy(index, layout, rng):
    dtypes = ALL_DTYPES if layout == "contiguous" else FEW_DTYPES
    for dtype in dtypes:
        t, a = make_layout(layout, make_values(SHAPE, dtype, rng), rng)
        expected = a[index]
        for spelling in ("tensor", "numpy", "list"):
            got = t[_spell(index, spelling)]
            _check_equal(got, expected, f"{dtype.name} {spelling}")
            assert got.untyped_storage() is not t.untyped_storage()  # a copy, never a view
            assert got.is_contiguous()


def _set_params():
    for name, index in CASES:
        if name == "repeated":
            continue  # see test_set_repeated_indices_last_write_wins
        for layout in SET_LAYOUTS:
            yield pytest.param(index, layout, id=f"{name}-{layout}")


@pytest.mark.parametrize("index,layout", list(_set_params()))
def test_set_matches_numpy(index, layout, rng):
    dtypes = ALL_DTYPES if layout == "contiguous" else FEW_DTYPES
    for dtype in dtypes:
        t, a = make_layout(layout, make_values(SHAPE, dtype, rng), rng)
        shape = a[index].shape
        value = make_values(shape, dtype, rng)
        before = t.untyped_storage()
        a[index] = value
        t[_spell(index, "tensor")] = strided.asarray(value)
        assert t.untyped_storage() is before
        np.testing.assert_array_equal(_np(t), a, err_msg=dtype.name, strict=True)


@pytest.mark.parametrize(
    "index",
    [c[1] for c in CASES if c[0] in ("int-array", "two-adjacent", "mask-full", "int-slice-array")],
)
def test_set_broadcasts_and_casts_the_value(index, rng):
    a = make_values(SHAPE, strided.int32, rng)
    t = strided.asarray(a.copy())
    shape = a[index].shape
    values = [
        7,  # a Python scalar
        np.int16(-3),  # a NumPy scalar
        strided.asarray(2.75),  # a 0-d float tensor: cast (truncated) to int32
        make_values(shape[-1:], strided.float64, rng, cast_safe=True),  # broadcast, cast
        make_values((1, 1, *shape), strided.int64, rng),  # extra leading 1s are dropped
        make_values(shape, strided.uint8, rng).tolist(),  # a nested list
    ]
    for v in values:
        nv = np.asarray(v)
        if nv.ndim > len(shape):  # NumPy drops them too, but not for masks: help it
            nv = nv.reshape(nv.shape[nv.ndim - len(shape) :])
        a[index] = nv.astype(np.int32)
        t[_spell(index, "tensor")] = v
        np.testing.assert_array_equal(_np(t), a, err_msg=repr(v))


def test_set_repeated_indices_last_write_wins():
    x = strided.zeros(6, dtype="int64")
    x[[0, 3, 0, 5, 3, 0]] = strided.asarray([1, 2, 3, 4, 5, 6])
    assert x.tolist() == [6, 0, 0, 5, 0, 4]
    # rows: the last of each repeated row, whole
    y = strided.zeros((3, 4), dtype="float32")
    y[[2, 2, 1]] = strided.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert y.tolist() == [[0] * 4, [8, 9, 10, 11], [4, 5, 6, 7]]
    # two index arrays: positions in row-major order of the broadcast index
    z = strided.zeros((2, 2), dtype="int64")
    z[[[0, 0], [0, 1]], [[1, 1], [1, 0]]] = strided.asarray([[1, 2], [3, 4]])
    assert z.tolist() == [[0, 3], [4, 0]]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative-stride", "0-d"])
def test_setitem_promotes_the_value_to_the_target_dtype(layout, rng):
    # The Array API 2025.12: an array value is converted to x's dtype, which never changes; the
    # standard specifies the pairs where the value's dtype promotes to x's (the others are
    # NumPy's casts, left to the implementation). Through a basic index, a mask and an
    # integer array, NumPy as the oracle.
    for target in ALL_DTYPES:
        t0, a0 = make_layout(layout, make_values((2, 3), target, rng), rng)
        for value in ALL_DTYPES:
            if strided.result_type(target, value) is not target:
                continue
            v = make_values((), value, rng, cast_safe=True)
            mask = a0 != a0.flat[0]
            for index in (Ellipsis, mask, (np.array([0, 0]),) if a0.ndim else Ellipsis):
                t, a = t0.clone(), a0.copy()
                t[strided.asarray(index) if isinstance(index, np.ndarray) else index] = (
                    strided.asarray(v)
                )
                a[index] = v
                assert t.dtype is target
                np.testing.assert_array_equal(_np(t), a, err_msg=f"{target} <- {value} {layout}")


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative-stride", "empty"])
def test_a_mask_dim_of_size_0_selects_nothing(layout, rng):
    # NumPy and the Array API: a mask dim may be 0 where x's is not (the Array API suite's
    # test_getitem_masking draws such masks). See Note [NumPy's advanced indexing rules].
    t, a = make_layout(layout, make_values((2, 3), strided.int16, rng), rng)
    for shape in [(0, 3), (2, 0), (0, 0), (0,), (1, 0), (2, 3, 0)]:
        mask = np.zeros(shape, bool)
        try:
            want = a[mask]
        except IndexError:  # neither the dim's size nor 0, or more dims than x
            with pytest.raises(IndexError, match="boolean index of shape|too many indices"):
                t[strided.asarray(mask)]
            continue
        got = t[strided.asarray(mask)]
        assert got.shape == want.shape and got.dtype is t.dtype, (layout, shape)
        t[strided.asarray(mask)] = 7  # writes nothing
        a[mask] = 7
        np.testing.assert_array_equal(_np(t), a)


def test_searchsorted_takes_a_python_scalar():
    # The Array API 2025.12: x2 may be a scalar, read as a 0-d array (NumPy returns a scalar)
    a = np.array([1, 3, 5, 7])
    for x2 in (4, 4.5, 7, True):
        for side in ("left", "right"):
            got = strided.searchsorted(strided.asarray(a), x2, side=side)
            assert got.shape == () and got.dtype is strided.int64
            assert got.item() == np.searchsorted(a, x2, side=side), (x2, side)


def test_augmented_assignment_increments_repeats_once():
    a = np.zeros(5)
    t = strided.zeros(5)
    a[[1, 1, 3]] += 1
    t[[1, 1, 3]] += 1
    np.testing.assert_array_equal(_np(t), a)


def test_index_put_accumulate_adds_every_repeat(rng):
    a = make_values((5, 4), strided.float64, rng, cast_safe=True)
    t = strided.asarray(a.copy())
    i, j = np.array([0, 4, 0, 0, 2]), np.array([1, 1, 1, 3, 0])
    v = np.arange(5.0)
    ref = a.copy()
    np.add.at(ref, (i, j), v)
    got = t.index_put((strided.asarray(i), strided.asarray(j)), strided.asarray(v), True)
    np.testing.assert_allclose(_np(got), ref)
    np.testing.assert_array_equal(_np(t), a)  # index_put copies
    t.index_put_((strided.asarray(i), strided.asarray(j)), strided.asarray(v), accumulate=True)
    np.testing.assert_allclose(_np(t), ref)


def test_basic_indexing_still_makes_views():
    x = strided.arange(24).reshape(2, 3, 4)
    for index in [0, (1, slice(None), 2), (Ellipsis, None, 1), np.int64(1), strided.asarray(1)]:
        assert x[index].untyped_storage() is x.untyped_storage()
    assert not _index.is_advanced((0, slice(None), None, Ellipsis, np.int64(2)))
    assert _index.is_advanced(([0],)) and _index.is_advanced(True)
    assert _index.is_advanced(strided.asarray([0])) and not _index.is_advanced(strided.asarray(0))


def test_get_from_0d_and_1d(rng):
    a = np.array(5.5)
    t = strided.asarray(a)
    for index in (True, False, (None, True), (Ellipsis, True)):
        _check_equal(t[index], a[index], repr(index))
    b = make_values((7,), strided.int16, rng)
    u = strided.asarray(b)
    for index in ([6, -7, 0], np.array([[1], [2]]), b > 0, (None, [1, 2])):
        _check_equal(u[_spell(index, "tensor")], b[index], repr(index))


def test_indices_and_values_that_alias_the_target():
    a = np.arange(6)
    t = strided.arange(6)
    a[a[::-1]] = a.copy()
    t[t.flip(0)] = t
    np.testing.assert_array_equal(_np(t), a)
    a = np.arange(8.0)
    t = strided.arange(8.0)
    a[[0, 1, 2, 3]] = a[1:5].copy()
    t[[0, 1, 2, 3]] = t[1:5]  # an overlapping view of the target itself: read before writing
    np.testing.assert_array_equal(_np(t), a)


def test_set_bumps_the_version_counter():
    t = strided.zeros(4)
    v = t._version
    t[[1, 2]] = 1.0
    assert t._version > v


def test_get_through_the_dispatcher():
    x = strided.arange(6)
    with strided.trace_dispatch() as trace:
        x[[1, 2]]
        x[[1, 2]] = 0
    assert [r["op"] for r in trace] == ["index", "index_put_"]


# =============================================================================================
# Hypothesis: random advanced indices, get and set, against NumPy
# =============================================================================================


@st.composite
def _indexed(draw):
    """(shape, index, seed): a random index of every kind of item, always valid on ``shape``
    except where arrays (and masks) do not broadcast together."""
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # First the kinds of item and how many dims each consumes, then (knowing where the
    # Ellipsis puts the items after it) the items themselves.
    kinds = []
    consumed = 0
    while len(kinds) < 6:
        options = ["stop", "none", "bool"]
        if consumed < ndim:
            options += ["int", "slice", "array", "array", "mask"]
        if ("ellipsis", 0) not in kinds:
            options.append("ellipsis")
        kind = draw(st.sampled_from(options))
        if kind == "stop":
            break
        width = 0
        if kind in ("int", "slice", "array"):
            width = 1
        elif kind == "mask":
            width = draw(st.integers(1, min(2, ndim - consumed)))
        kinds.append((kind, width))
        consumed += width
    dim = 0
    items = []
    for kind, width in kinds:
        n = shape[dim] if width else 0
        if kind == "none":
            items.append(None)
        elif kind == "ellipsis":
            items.append(Ellipsis)
            dim += ndim - consumed
        elif kind == "bool":
            items.append(draw(st.booleans()))
        elif kind == "int":
            items.append(int(rng.integers(-n, n)) if n else 0)  # 0 on an empty dim: an error
        elif kind == "slice":
            start, stop = (draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))) for _ in "ab")
            items.append(slice(start, stop, draw(st.sampled_from([None, 1, 2, -1, -3]))))
        elif kind == "array":
            ishape = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
            items.append(rng.integers(-n, n, ishape) if n else np.zeros(ishape, np.int64))
        else:
            items.append(rng.random(shape[dim : dim + width]) < 0.5)
        dim += width
    index = tuple(items) if draw(st.booleans()) or len(items) != 1 else items[0]
    return shape, index, seed


def _sequential_set(a, index, value):
    """``a[index] = value`` with repeated cells written in row-major order of the indexing
    result: the last write wins (strided's documented order)."""
    out = np.ascontiguousarray(a).copy()
    cells = np.arange(a.size).reshape(a.shape)[index]
    vals = np.broadcast_to(value, cells.shape)
    flat = out.reshape(-1)
    for c, v in zip(cells.reshape(-1), vals.reshape(-1), strict=True):
        flat[c] = v
    return out


@settings(max_examples=500, deadline=None)
@given(_indexed())
def test_hypothesis_get_and_set(case):
    shape, index, seed = case
    rng = np.random.default_rng(seed)
    a = rng.integers(-100, 100, shape).astype(np.int32)
    try:
        expected = a[index]
    except IndexError as e:  # arrays that do not broadcast, an index on an empty dim
        with pytest.raises(IndexError, match="broadcast" if "broadcast" in str(e) else "bounds"):
            strided.asarray(a)[_spell(index, "tensor")]
        return
    t = strided.asarray(a.copy())
    got = t[_spell(index, "tensor")]
    _check_equal(got, expected if isinstance(expected, np.ndarray) else np.asarray(expected))
    value = rng.integers(-100, 100, np.shape(expected)).astype(np.int32)
    t[_spell(index, "numpy")] = strided.asarray(value)
    np.testing.assert_array_equal(_np(t), _sequential_set(a, index, value))
    cells = np.arange(a.size).reshape(a.shape)[index]
    if np.unique(cells).size == np.size(cells):  # no repeats: NumPy's answer is defined
        ref = a.copy()
        ref[index] = value
        np.testing.assert_array_equal(_np(t), ref)


# =============================================================================================
# The functions, each against its reference
# =============================================================================================


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_take(dtype, rng):
    for layout in GET_LAYOUTS:
        t, a = make_layout(layout, make_values(SHAPE, dtype, rng), rng)
        for axis in (0, 1, -1):
            n = a.shape[axis]
            for ishape in ((5,), (2, 3), ()):
                idx = rng.integers(-n, n, ishape)
                _check_equal(
                    strided.take(t, strided.asarray(idx), axis=axis),
                    np.take(a, idx, axis=axis),
                    f"{layout} axis={axis}",
                )
        idx = rng.integers(-a.size, a.size, (3, 2))
        _check_equal(strided.take(t, idx), np.take(a, idx), f"{layout} flattened")
        _check_equal(t.take(strided.asarray(idx)), np.take(a, idx))


@pytest.mark.parametrize("dtype", FEW_DTYPES + (strided.bool, strided.uint64), ids=str)
def test_index_select(dtype, rng):
    for layout in GET_LAYOUTS:
        t, a = make_layout(layout, make_values(SHAPE, dtype, rng), rng)
        for dim in range(3):
            idx = rng.integers(0, SHAPE[dim], 7)
            expected = np.take(a, idx, axis=dim)
            _check_equal(strided.index_select(t, dim, strided.asarray(idx)), expected)
            _check_equal(t.index_select(dim - 3, idx), expected)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_take_along_axis_and_gather(dtype, rng):
    t, a = make_layout("transposed", make_values(SHAPE, dtype, rng), rng)
    for axis in (0, 1, 2, -1):
        n = SHAPE[axis]
        for ishape in (SHAPE[: axis % 3] + (3,) + SHAPE[axis % 3 + 1 :], (1, 1, 1)):
            idx = rng.integers(-n, n, ishape)
            expected = np.take_along_axis(a, idx, axis=axis)
            _check_equal(strided.take_along_axis(t, strided.asarray(idx), axis=axis), expected)
        # gather (PyTorch): no broadcasting, index smaller than x in the other dims is fine
        small = tuple(max(1, s - 1) for s in SHAPE)
        small = small[: axis % 3] + (4,) + small[axis % 3 + 1 :]
        idx = rng.integers(0, n, small)
        region = a[
            tuple(slice(0, s) if d != axis % 3 else slice(None) for d, s in enumerate(small))
        ]
        expected = np.take_along_axis(region, idx, axis=axis)
        _check_equal(strided.gather(t, axis, strided.asarray(idx)), expected)
        _check_equal(t.gather(axis, idx), expected)
    idx = rng.integers(0, t.numel(), (2, 3))
    _check_equal(t.take_along_dim(strided.asarray(idx)), np.take(a, idx).reshape(-1))


@pytest.mark.parametrize("device", ["cpu", "cuda-emulated"])
def test_take_along_axis_graph_and_gradient(device, rng):
    # the row picked by a cross-entropy: no expand node where the shapes already agree, and
    # the gradient added into one fresh tensor, repeated and negative indices summing
    a = rng.standard_normal((5, 4))
    idx = np.array([[0, -4, 3], [2, 2, 2], [1, 0, 1], [3, 3, -1], [0, 1, 2]])
    for layout in ("contiguous", "transposed", "stepped", "negative-stride"):
        x, ref = make_layout(layout, a, rng)
        x = strided.asarray(x, device=device).requires_grad_()
        picked = strided.take_along_axis(x, strided.asarray(idx, device=device), axis=1)
        assert picked.grad_fn.name() == "TakeAlongAxisBackward"
        assert picked.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
        w = rng.standard_normal(idx.shape)
        (picked * strided.asarray(w, device=device)).sum().backward()
        expected = np.zeros_like(ref)
        np.add.at(expected, (np.arange(5)[:, None], idx % 4), w)
        np.testing.assert_allclose(x.grad.cpu(), expected, rtol=1e-12)
        np.testing.assert_allclose(picked.detach().cpu(), np.take_along_axis(ref, idx, 1))


def _scatter_ref(a, dim, index, src, add):
    """PyTorch's scatter / scatter_add in NumPy: np.add.at, or assignment in row-major order."""
    out = a.copy()
    coords = list(np.indices(index.shape))
    coords[dim] = index
    src = src[tuple(slice(0, n) for n in index.shape)]
    if add:
        np.add.at(out, tuple(coords), src)
    else:
        for pos in np.ndindex(index.shape):
            out[tuple(c[pos] for c in coords)] = src[pos]
    return out


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_scatter_and_scatter_add(dtype, rng):
    a = make_values((5, 6), dtype, rng, cast_safe=True)
    for layout in SET_LAYOUTS:
        t, _ = make_layout(layout, a, rng)
        for dim in (0, 1):
            n = a.shape[dim]
            # full-size index, one permutation per line: np.put_along_axis is the reference
            perm = np.argsort(rng.random(a.shape), axis=dim)
            src = make_values(a.shape, dtype, rng, cast_safe=True)
            ref = a.copy()
            np.put_along_axis(ref, perm, src, axis=dim)
            _check_equal(strided.scatter(t, dim, strided.asarray(perm), strided.asarray(src)), ref)
            # a smaller index with repeats, a larger src
            idx = rng.integers(-n, n, (3, 4))
            big = make_values((4, 7), dtype, rng, cast_safe=True)
            for add in (False, True):
                fn = strided.scatter_add if add else strided.scatter
                expected = _scatter_ref(a, dim, idx % n, big, add)
                _check_equal(fn(t, dim, strided.asarray(idx), strided.asarray(big)), expected)
            np.testing.assert_array_equal(_np(t), a)  # out of place
    # in place, and a scalar src
    t = strided.asarray(a.copy())
    t.scatter_(1, strided.asarray([[0], [5]]), 1)
    ref = a.copy()
    ref[0, 0] = ref[1, 5] = 1
    np.testing.assert_array_equal(_np(t), ref)
    t.scatter_add_(0, strided.asarray([[1, 1]]), strided.asarray([[1, 2]]).astype(dtype))
    np.add.at(ref, ([1, 1], [0, 1]), np.array([1, 2]).astype(ref.dtype))
    np.testing.assert_array_equal(_np(t), ref)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_index_add(dtype, rng):
    a = make_values((4, 5, 3), dtype, rng, cast_safe=True)
    for layout in SET_LAYOUTS:
        t, _ = make_layout(layout, a, rng)
        for dim in range(3):
            idx = rng.integers(-a.shape[dim], a.shape[dim], 6)
            shape = list(a.shape)
            shape[dim] = 6
            src = make_values(tuple(shape), dtype, rng, cast_safe=True)
            ref = a.copy()
            np.add.at(ref, (slice(None),) * dim + (idx,), src)
            _check_equal(strided.index_add(t, dim, strided.asarray(idx), strided.asarray(src)), ref)
        np.testing.assert_array_equal(_np(t), a)
    if dtype.kind in "iuf":
        t = strided.asarray(a.copy())
        ref = a.copy()
        src = np.ones((4, 2, 3), a.dtype)
        np.add.at(ref, (slice(None), [4, 4]), 3 * src)
        t.index_add_(1, strided.asarray([4, -1]), strided.asarray(src), alpha=3)
        np.testing.assert_array_equal(_np(t), ref)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_masked_fill(dtype, rng):
    for layout in SET_LAYOUTS:
        t, a = make_layout(layout, make_values(SHAPE, dtype, rng), rng)
        for mshape in (SHAPE, SHAPE[1:], (1, 5, 1)):
            m = rng.random(mshape) < 0.4
            for value in (1, strided.asarray(0)):
                expected = np.where(m, np.asarray(value).astype(a.dtype), a)
                _check_equal(strided.masked_fill(t, strided.asarray(m), value), expected)
        m = rng.random(SHAPE) < 0.5
        t.masked_fill_(strided.asarray(m), True)
        np.testing.assert_array_equal(_np(t), np.where(m, np.ones((), a.dtype), a))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_nonzero_and_where(dtype, rng):
    for layout in GET_LAYOUTS + ("empty",):
        t, a = make_layout(layout, make_values(SHAPE, dtype, rng), rng)
        expected = np.nonzero(a)  # NaN is non-zero, -0.0 is zero
        got = strided.nonzero(t)
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _check_equal(g, e.astype(np.int64), layout)
        for g, e in zip(strided.where(t), expected, strict=True):
            _check_equal(g, e.astype(np.int64), layout)
        _check_equal(t.nonzero(as_tuple=False), np.argwhere(a).astype(np.int64), layout)
        for g, e in zip(t.nonzero(), a.nonzero(), strict=True):  # NumPy's method: the tuple
            _check_equal(g, e.astype(np.int64), layout)
        assert len(t.nonzero(as_tuple=True)) == a.ndim
        _check_equal(t[strided.nonzero(t)], a[np.nonzero(a)])
    one = make_values((9,), dtype, rng)
    _check_equal(strided.nonzero(one)[0], np.nonzero(one)[0].astype(np.int64))


def test_nonzero_of_0d_and_large(rng):
    assert strided.asarray(3).nonzero(as_tuple=False).shape == (1, 0)
    assert strided.asarray(0).nonzero(as_tuple=False).shape == (0, 0)
    with pytest.raises(ValueError, match="at least one dim"):
        strided.nonzero(strided.asarray(1))
    big = rng.random((700, 301)) < 0.3  # several threads' worth, split inside rows
    flat = rng.random(200_001) < 0.5
    values = rng.standard_normal((700, 301))
    for threads in (1, 2, 3):
        strided.set_num_threads(threads)
        for g, e in zip(strided.nonzero(big), np.nonzero(big), strict=True):
            np.testing.assert_array_equal(_np(g), e)
        np.testing.assert_array_equal(
            _np(strided.asarray(big).nonzero(as_tuple=False)), np.argwhere(big)
        )
        np.testing.assert_array_equal(_np(strided.nonzero(flat)[0]), np.nonzero(flat)[0])
        np.testing.assert_array_equal(_np(strided.asarray(values)[big]), values[big])


@pytest.mark.parametrize(
    "dtype",
    [d for d in ALL_DTYPES if d.kind != "c"],
    ids=lambda d: d.name,
)
def test_searchsorted(dtype, rng):
    x1 = np.sort(make_values((40,), dtype, rng))  # NumPy's sort puts NaN last
    x2 = make_values((3, 5), dtype, rng)
    x2[0, :3] = x1[[0, 17, -1]]  # equal elements: left and right differ
    for side in ("left", "right"):
        expected = np.searchsorted(x1, x2, side=side)
        _check_equal(strided.searchsorted(strided.asarray(x1), x2, side=side), expected)
        t2, a2 = make_layout("transposed", x2, rng)
        _check_equal(strided.searchsorted(x1, t2, side=side), np.searchsorted(x1, a2, side=side))
    perm = rng.permutation(40)
    shuffled = x1[perm]
    sorter = np.argsort(shuffled, kind="stable")
    _check_equal(
        strided.searchsorted(shuffled, x2, sorter=sorter),
        np.searchsorted(shuffled, x2, sorter=sorter),
    )


def test_searchsorted_promotion_nan_and_edges():
    x1 = np.array([1.0, 2.0, 2.0, np.nan, np.nan])
    v = np.array([np.nan, -np.inf, np.inf, 2.0, 0.5])
    for side in ("left", "right"):
        _check_equal(strided.searchsorted(x1, v, side=side), np.searchsorted(x1, v, side=side))
    ints = np.array([1, 3, 5], np.int8)
    _check_equal(
        strided.searchsorted(ints, np.array([2.5, 300.0])),
        np.searchsorted(ints, np.array([2.5, 300.0])),
    )
    _check_equal(strided.searchsorted(ints, 3, side="right"), np.searchsorted(ints, 3, "right"))
    _check_equal(strided.searchsorted(np.zeros(0), np.arange(3.0)), np.zeros(3, np.int64))
    big = np.sort(np.random.default_rng(0).standard_normal(100_000))
    keys = np.random.default_rng(1).standard_normal(300_000)
    _check_equal(strided.searchsorted(big, keys), np.searchsorted(big, keys))


def test_searchsorted_four_at_a_time_every_length():
    # the kernel searches four values at once and the rest one by one: every sorted length
    # from 0 to 17 (ties and NaNs included), every count of values mod 4, both sides,
    # stepped values (a stride between them)
    rng = np.random.default_rng(5)
    for n in range(18):
        x1 = np.sort(np.concatenate([rng.integers(0, 5, n).astype(float), [np.nan] * (n % 3)]))
        for count in range(1, 12):
            v = np.concatenate([rng.integers(-1, 7, 2 * count) / 1.0, [np.nan]])[::2]
            for side in ("left", "right"):
                got = strided.searchsorted(strided.asarray(x1), strided.asarray(v), side=side)
                _check_equal(got, np.searchsorted(x1, v, side=side))


# =============================================================================================
# Repeated indices and threads: results must not depend on the thread count
# =============================================================================================


def _with_threads(fn):
    results = []
    for threads in (1, 2, 3, 4):
        strided.set_num_threads(threads)
        results.append(_np(fn()))
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0], strict=True)  # bitwise, floats included
    return results[0]


def test_scatter_add_is_thread_count_invariant(rng):
    x = strided.zeros((100, 1024), dtype="float32")
    idx = rng.integers(0, 100, (256, 1024))  # every cell receives ~2.6 additions
    src = rng.standard_normal((256, 1024)).astype(np.float32)
    ti, ts = strided.asarray(idx), strided.asarray(src)
    got = _with_threads(lambda: strided.scatter_add(x, 0, ti, ts))
    strided.set_num_threads(4)
    strided.scatter_add(x, 0, ti, ts)
    assert _index.last_index_plan()["parallel"]
    ref = np.zeros((100, 1024), np.float32)
    np.add.at(ref, (idx, np.arange(1024)), src)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_index_add_is_thread_count_invariant(rng):
    x = strided.zeros((50, 300), dtype="float64")
    idx = rng.integers(0, 50, 2000)  # each row of x receives ~40 rows of source
    src = rng.standard_normal((2000, 300))
    ti, ts = strided.asarray(idx), strided.asarray(src)
    got = _with_threads(lambda: strided.index_add(x, 0, ti, ts))
    assert _index.last_index_plan()["parallel"]
    ref = np.zeros((50, 300))
    np.add.at(ref, idx, src)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    # along dim 1, and a 1-D target (nothing independent: one thread, in order)
    got = _with_threads(lambda: strided.index_add(strided.zeros((300, 50)), 1, ti, ts.T))
    ref = np.zeros((300, 50))
    np.add.at(ref, (slice(None), idx), src.T)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    got = _with_threads(lambda: strided.index_add(strided.zeros(50), 0, ti, ts[:, 0]))
    assert not _index.last_index_plan()["parallel"]


# Note [Scatter-adds of rows]: index_add and assignment of rows go through the rows kernel (one
# loop over the index positions, the cells' rows prefetched ahead); every dtype, every layout of
# the target, the source and the index, against np.add.at, which adds in the same order (so
# equal bits), and NumPy's assignment
ROWS_SOURCE_LAYOUTS = ("contiguous", "transposed", "stepped", "negative-stride", "expanded")


def _add_rows(x, ti, src, x_np, i_np, src_np):
    with np.errstate(all="ignore"):
        np.add.at(x_np, i_np, src_np)
        x.index_add_(0, ti, src)
    # bool adds as "or" and the halves in float: the general loop
    d = x.dtype
    return d.kind in "iu" or (d.kind != "b" and d.itemsize > 2)


def _set_rows(x, ti, src, x_np, i_np, src_np):
    x_np[i_np] = src_np  # the last of repeated rows wins, in NumPy as in strided
    x[ti] = src
    return True


@pytest.mark.parametrize("op", [_add_rows, _set_rows], ids=["index_add", "set"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_rows_kernel_every_dtype_and_layout(op, dtype):
    rng = np.random.default_rng(7)
    idx_np = rng.integers(-7, 7, 40)  # repeats and negative indices
    idx_np[:3] = [6, 6, -1]  # the same row three times in a row
    for tname in SET_LAYOUTS:
        for sname in ROWS_SOURCE_LAYOUTS:
            for iname in ("contiguous", "stepped", "negative-stride"):
                x, x_np = make_layout(tname, make_values((7, 9), dtype, rng), rng)
                src, src_np = make_layout(sname, make_values((40, 9), dtype, rng), rng)
                ti, i_np = make_layout(iname, idx_np, rng)
                want = x_np.copy()
                rows_kernel = op(x, ti, src, want, i_np, src_np)
                where = f"{dtype} target {tname}, source {sname}, index {iname}"
                np.testing.assert_array_equal(_np(x), want, err_msg=where, strict=True)
                assert _index.last_index_plan()["rows_kernel"] == rows_kernel, where


@pytest.mark.parametrize("width", [2, 5, 16, 33, 64, 100, 1000])
def test_index_add_of_rows_is_thread_count_invariant(rng, width):
    # rows of 64 and more are cut into ranges of columns, one a thread
    idx = rng.integers(0, 300, 50_000 // width + 100)
    src = rng.standard_normal((idx.size, width)).astype(np.float32)
    ti, ts = strided.asarray(idx), strided.asarray(src)
    got = _with_threads(lambda: strided.zeros((300, width), dtype="float32").index_add_(0, ti, ts))
    assert _index.last_index_plan()["rows_kernel"]
    want = np.zeros((300, width), np.float32)
    np.add.at(want, idx, src)
    np.testing.assert_array_equal(got, want)
    # along dim 1: the rows are columns of the target (a step of width elements)
    got = _with_threads(
        lambda: strided.zeros((width, 300), dtype="float32").index_add_(1, ti, ts.T)
    )
    assert _index.last_index_plan()["rows_kernel"]
    np.testing.assert_array_equal(got, want.T)


def test_index_add_of_rows_alpha_and_empty():
    x = strided.ones((4, 3))
    x.index_add_(0, strided.asarray([3, 3, 0]), strided.arange(9.0).reshape(3, 3), alpha=2)
    want = np.ones((4, 3))
    np.add.at(want, [3, 3, 0], 2 * np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(_np(x), want)
    x.index_add_(0, strided.asarray([], dtype="int64"), strided.zeros((0, 3)))
    np.testing.assert_array_equal(_np(x), want)


def test_set_with_repeats_is_thread_count_invariant(rng):
    idx = rng.integers(0, 64, 3000)
    values = np.arange(3000 * 512, dtype=np.float32).reshape(3000, 512)

    def run():
        x = strided.zeros((64, 512), dtype="float32")
        x[strided.asarray(idx)] = strided.asarray(values)
        return x

    got = _with_threads(run)
    last = {int(i): k for k, i in enumerate(idx)}  # the last occurrence of each row wins
    for row, k in last.items():
        np.testing.assert_array_equal(got[row], values[k])


# =============================================================================================
# Errors, and nothing written on failure
# =============================================================================================

X = strided.arange(60).reshape(3, 4, 5)


@pytest.mark.parametrize(
    "index,exc,match",
    [
        ([5], IndexError, r"^index 5 is out of bounds for dim 0 with size 3$"),
        ([0, -4], IndexError, r"^index -4 is out of bounds for dim 0 with size 3$"),
        ((slice(None), [1, 4]), IndexError, r"index 4 is out of bounds for dim 1 with size 4"),
        ((None, 0, [9]), IndexError, r"index 9 is out of bounds for dim 1 with size 4"),
        ((Ellipsis, [0], [5]), IndexError, r"index 5 is out of bounds for dim 2 with size 5"),
        ((0, [0], 7), IndexError, r"index 7 is out of bounds for dim 2 with size 5"),
        ((2**70, [0]), IndexError, r"out of bounds for dim 0 with size 3"),
        # uint64 indices are read as int64 (as NumPy): 2**63 + 5 wraps to a negative index
        (np.array([2**63 + 5], np.uint64), IndexError, r"index -9223372036854775803 is out"),
        (np.ones(4, bool), IndexError, r"boolean index of shape \(4,\).*shape \(3,\)"),
        ((slice(None), np.ones((4, 4), bool)), IndexError, r"shape \(4, 4\).*shape \(4, 5\)"),
        (
            ([0, 1], [0, 1, 2]),
            IndexError,
            r"could not be broadcast together with shapes \(2,\) "
            r"\(3,\)",
        ),
        ([0.5], IndexError, r"only integers, slices .* are valid indices"),
        (strided.asarray([1.0]), IndexError, r"valid indices; got an array of dtype float64"),
        (1.5, IndexError, r"valid indices; got float 1.5"),
        ("a", IndexError, r"valid indices"),
        ([0, slice(None)], IndexError, r"valid indices"),
        (([0], 0, 0, 0), IndexError, r"too many indices for a tensor of shape \(3, 4, 5\)"),
        (([0], ..., ...), IndexError, r"single ellipsis"),
    ],
)
def test_index_errors(index, exc, match):
    with pytest.raises(exc, match=match):
        X[index]
    t = X.clone()
    with pytest.raises(exc, match=match):
        t[index] = 0
    np.testing.assert_array_equal(_np(t), _np(X))


def test_a_failing_set_writes_nothing(rng):
    strided.set_num_threads(2)
    a = rng.standard_normal(200_000)
    t = strided.asarray(a.copy())
    idx = np.arange(200_000)
    idx[150_000] = 200_000  # one bad index, late
    with pytest.raises(IndexError, match="index 200000 is out of bounds for dim 0"):
        t[strided.asarray(idx)] = 1.0
    with pytest.raises(
        ValueError,
        match=r"value array of shape \(3,\) could not be broadcast "
        r"to indexing result of shape \(2,\)",
    ):
        t[[0, 1]] = strided.asarray([1.0, 2.0, 3.0])
    with pytest.raises(IndexError):
        t.index_add_(0, strided.asarray([0, 1, 500_000]), strided.ones(3, dtype="float64"))
    with pytest.raises(IndexError):
        t.scatter_add_(0, strided.asarray([4, -200_001]), strided.ones(2, dtype="float64"))
    with pytest.raises(IndexError):
        t.index_put_((strided.asarray([1, 2, 3, 10**6]),), strided.asarray(0.0), accumulate=True)
    np.testing.assert_array_equal(_np(t), a)


def test_an_empty_mask_stands_against_a_dim_of_any_size():
    # as NumPy, and as the Array API asks (strided refused this before 2025.12's conformance run)
    mask = np.array([], bool)
    assert strided.zeros((2, 2))[..., mask].shape == np.zeros((2, 2))[..., mask].shape == (2, 0)


def test_writing_into_shared_or_read_only_memory_is_refused():
    e = strided.zeros(3).expand(4, 3)
    with pytest.raises(RuntimeError, match="share memory"):
        e[[0, 1]] = 1.0
    ro = np.zeros(4)
    ro.flags.writeable = False
    t = strided.from_numpy(ro)
    with pytest.raises(ValueError, match="read-only"):
        t[[0]] = 1.0
    assert e[[0, 3]].shape == (2, 3)  # reading an expanded tensor is fine


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: strided.take(X, [0], axis=3), IndexError, r"take: axis=3 is out of range"),
        (lambda: strided.take(X, [0.5]), TypeError, r"take: indices must hold integers"),
        (
            lambda: strided.take(X, [60]),
            IndexError,
            r"index 60 is out of bounds for dim 0 with "
            r"size 60",
        ),
        (
            lambda: strided.take(X, [3], axis=0),
            IndexError,
            r"index 3 is out of bounds for dim "
            r"0 with size 3",
        ),
        (
            lambda: strided.take_along_axis(X, strided.zeros((3, 4), dtype="int64")),
            ValueError,
            r"same number of dims",
        ),
        (
            lambda: strided.take_along_axis(X, strided.zeros((2, 4, 1), dtype="int64")),
            ValueError,
            r"do not broadcast",
        ),
        (lambda: strided.index_select(X, 0, [[0]]), ValueError, r"index must be 1-D"),
        (
            lambda: strided.index_select(X, 1, [4]),
            IndexError,
            r"index 4 is out of bounds for "
            r"dim 1 with size 4",
        ),
        (
            lambda: strided.gather(X, 0, strided.zeros((3, 4), dtype="int64")),
            ValueError,
            r"as many dims as x \(3\)",
        ),
        (
            lambda: strided.gather(X, 0, strided.zeros((1, 5, 1), dtype="int64")),
            ValueError,
            r"larger than x of shape \(3, 4, 5\) at dim 1",
        ),
        (
            lambda: strided.gather(X, 3, strided.zeros((1, 1, 1), dtype="int64")),
            IndexError,
            r"gather: dim=3 is out of range",
        ),
        (
            lambda: strided.scatter(
                X,
                0,
                strided.zeros((1, 2, 1), dtype="int64"),
                strided.zeros((1, 1, 1), dtype="int64"),
            ),
            ValueError,
            r"src of shape \(1, 1, 1\) must have index's dims and be at least as large",
        ),
        (
            lambda: strided.scatter_add(X, 1, strided.full((1, 1, 1), 4), 1),
            IndexError,
            r"index 4 is out of bounds for dim 1 with size 4",
        ),
        (
            lambda: strided.index_add(X, 0, [0, 1], strided.zeros((3, 4, 5), dtype="int64")),
            ValueError,
            r"source must have shape \(2, 4, 5\)",
        ),
        (
            lambda: strided.index_add(
                X, 0, [0], strided.zeros((1, 4, 5), dtype="int64"), alpha=0.5
            ),
            TypeError,
            r"alpha must be an integer",
        ),
        (lambda: strided.masked_fill(X, strided.zeros(5), 0), TypeError, r"mask must be a bool"),
        (
            lambda: strided.masked_fill(X, strided.zeros((2, 1, 1), dtype="bool"), 0),
            ValueError,
            r"mask of shape \(2, 1, 1\) does not broadcast to x's shape \(3, 4, 5\)",
        ),
        (
            lambda: strided.masked_fill(X, X > 3, strided.zeros(2)),
            ValueError,
            r"value must be a scalar or 0-d",
        ),
        (lambda: strided.searchsorted(X, 1), ValueError, r"x1 must be 1-D, got shape"),
        (lambda: strided.searchsorted([1, 2], 1, side="middle"), ValueError, r"side must be"),
        (
            lambda: strided.searchsorted([1, 2], 1, sorter=[0, 2]),
            ValueError,
            r"sorter index out of range",
        ),
        (
            lambda: strided.searchsorted([1, 2], 1, sorter=[0]),
            ValueError,
            r"sorter must have x1's shape",
        ),
        (lambda: strided.where(X > 1, X), TypeError, r"where takes one argument"),
        (lambda: strided.where(X > 1, out=X), TypeError, r"takes no out="),
    ],
)
def test_function_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_the_kernels_refuse_offsets_they_cannot_trust():
    x = strided.zeros((3, 4))
    y = strided.zeros((3, 4))
    off = _offsets.index_offsets(x, (0,), (strided.asarray([0, 2]),))
    out = strided.zeros((2, 4))
    with pytest.raises(TypeError, match="made by index_offsets"):
        _offsets.IndexOffsets()
    with pytest.raises(ValueError, match="checked for another tensor"):
        _index.index_get(y, off, (-1, 1), 0, out)
    with pytest.raises(ValueError, match="cannot walk dim"):
        _index.index_get(x, off, (-1, 0), 0, out)  # dim 0 is the indexed one
    with pytest.raises(ValueError, match="neither walked nor indexed"):
        _index.index_get(x, off, (-1, -1), 0, out)
    with pytest.raises(ValueError, match="cannot walk dim"):
        _index.index_get(x, off, (-1, 1), 0, strided.zeros((2, 5)))  # past dim 1's size
    unchecked = _offsets.index_offsets(x, (0,), (strided.asarray([0, 9]),), None, False)
    with pytest.raises(ValueError, match="must be checked first"):
        _index.index_put(x, unchecked, (-1, 1), 0, out)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        _index.index_get(x, unchecked, (-1, 1), 0, out)


def test_last_index_plan_explains_the_split():
    x = strided.zeros((8, 1000))
    x[[1, 1, 2]] = 1.0
    plan = _index.last_index_plan()
    assert plan["kernel"] == "scatter_loop"
    assert (plan["independent"], plan["in_order"]) == (1000, 3)
    strided.index_add(strided.zeros(5), 0, [0, 0], strided.ones(2))
    plan = _index.last_index_plan()
    assert (plan["kernel"], plan["independent"], plan["in_order"]) == ("accumulate_loop", 1, 2)


def test_index_put_with_no_array_part_writes_each_element_once(rng):
    # ints, slices, Ellipsis and None only: the basic view; accumulate is then a plain +=,
    # as np.add.at does with such an index
    ref = rng.standard_normal((3, 4))
    for layout, t, a in layouts(ref, rng):
        if a.ndim != 2 or not a.size:
            continue
        for index in [(), (slice(None),), (1,), (slice(None), 2), (Ellipsis, slice(1, 3)), (0, 1)]:
            v = np.asarray(rng.standard_normal(a[index].shape))
            want = a.copy()
            want[index] = v
            got = t.index_put(index, strided.asarray(v))
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{layout} {index}")
            want = a.copy()
            np.add.at(want, index, v)
            got = t.clone()
            got.index_put_(index, strided.asarray(v), accumulate=True)
            np.testing.assert_allclose(np.asarray(got), want, err_msg=f"{layout} {index} +=")
