"""Tests for the copy kernels (strided/_cpu/copy.pyx.tp): copy_ into every layout, overlapping
source and destination, and results that do not depend on the thread count."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from layouts import LAYOUTS, make_layout, make_values, to_numpy_dtype

import strided

SHAPE = (4, 3, 5)
WRITABLE = [name for name in LAYOUTS if name != "expanded"]
SOURCES = ["contiguous", "transposed", "negative-stride", "expanded", "stepped"]


@pytest.mark.parametrize("dst_layout,src_layout", list(itertools.product(WRITABLE, SOURCES)))
@pytest.mark.parametrize(
    "dtypes",
    [
        (strided.float64, strided.float64),
        (strided.int16, strided.int16),
        (strided.complex64, strided.float32),
        (strided.int32, strided.uint8),
        (strided.bool, strided.float64),
    ],
    ids=lambda d: f"{d[1].name}->{d[0].name}",
)
def test_copy_into_every_layout(dst_layout, src_layout, dtypes, rng):
    dst_dtype, src_dtype = dtypes
    t, a = make_layout(dst_layout, make_values(SHAPE, dst_dtype, rng), rng)
    src_values = make_values(t.shape, src_dtype, rng, cast_safe=True)
    pair = make_layout(src_layout, src_values, rng) if t.ndim else None
    if pair is None or pair[0].shape != t.shape:
        pair = (strided.tensor(src_values), src_values)
    src, src_ref = pair
    version = t._version
    assert t.copy_(src) is t
    a[...] = np.asarray(src_ref).astype(to_numpy_dtype(dst_dtype))
    np.testing.assert_array_equal(np.asarray(t), a, strict=True)
    if t.numel():
        assert t._version == version + 1


@pytest.mark.parametrize("src_shape", [(), (4,), (3, 1), (1, 4), (5, 1, 1), (1, 3, 4)], ids=str)
def test_copy_broadcasts_the_source(src_shape, rng):
    dst = strided.zeros((4, 3, 5), dtype="int64")
    src = make_values(src_shape, strided.int64, rng)
    dst.T.copy_(strided.asarray(src))  # into a (5, 3, 4) transposed view
    ref = np.zeros((4, 3, 5), np.int64)
    ref.T[...] = src
    np.testing.assert_array_equal(np.asarray(dst), ref, strict=True)


def test_copy_between_overlapping_views():
    # Partial overlap: the source is read completely before anything is written.
    x = strided.arange(10)
    x[1:].copy_(x[:-1])
    assert x.tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    y = strided.arange(10)
    y.copy_(y.flip(0))
    assert y.tolist() == list(range(9, -1, -1))
    z = strided.arange(16).reshape(4, 4)
    z.copy_(z.T)
    np.testing.assert_array_equal(np.asarray(z), np.arange(16).reshape(4, 4).T)
    w = strided.arange(6.0)
    w.copy_(w)  # a view onto itself
    assert w.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    c = strided.asarray(np.arange(4, dtype=np.complex128))
    c.real.copy_(c.imag)  # same storage, different dtype views, interleaved
    assert c.tolist() == [0j, 0j, 0j, 0j]


def test_setitem_with_python_values():
    x = strided.zeros((2, 3), dtype="int32")
    x[0] = 5
    x[1, ::2] = [7, 8]
    x[:, 1] = np.array([-1, -2])
    assert x.tolist() == [[5, -1, 5], [7, -2, 8]]
    x[...] = True
    assert x.tolist() == [[1, 1, 1], [1, 1, 1]]


# =============================================================================================
# Threads: the same bytes with 1 and 2 threads, and the plan says it ran in parallel
# =============================================================================================


def _big_copies():
    x = strided.asarray(np.random.default_rng(0).normal(size=(640, 480)))  # 307,200 elements
    return {
        "transposed": lambda: x.T.contiguous(),
        "cast": lambda: x.T.astype("float32"),
        "cast-int": lambda: x[::-1].astype("int32"),
        "stepped": lambda: x[:, ::2].contiguous(),
        "fill": lambda: strided.empty((640, 480)).fill_(2.5),
    }, x


@pytest.mark.parametrize("which", ["transposed", "cast", "cast-int", "stepped", "fill"])
def test_copy_results_do_not_depend_on_threads(which, split_every_loop):
    # The autouse fixture in conftest.py restores the thread count.
    copies, x = _big_copies()
    strided.set_num_threads(1)
    one = np.asarray(copies[which]()).copy()
    assert strided.last_copy_plan()["parallel"] is False
    strided.set_num_threads(2)
    assert strided.get_num_threads() == 2
    two = np.asarray(copies[which]())
    plan = strided.last_copy_plan()
    assert plan["parallel"] is True, plan
    assert one.tobytes() == two.tobytes()
    ref = {
        "transposed": lambda a: a.T,
        "cast": lambda a: a.T.astype(np.float32),
        "cast-int": lambda a: a[::-1].astype(np.int32),
        "stepped": lambda a: a[:, ::2],
        "fill": lambda a: np.full((640, 480), 2.5),
    }[which](np.asarray(x))
    np.testing.assert_array_equal(two, ref, strict=True)


@pytest.mark.parametrize(
    "shape,perm,flip",
    [
        ((64, 2, 2, 32), (0, 3, 1, 2), None),  # a channels-last batch flattened: 64 of 32 x 4
        ((3, 40, 70), (0, 2, 1), 1),  # reversed rows
        ((5, 33, 2, 37), (2, 0, 3, 1), 3),  # odd sizes, tiles cut at both edges
        ((2, 300, 520), (0, 2, 1), None),  # two matrices: bands of rows with 4 threads
        ((40, 64, 130), (0, 2, 1), 2),  # forty matrices: whole matrices per thread
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_stacked_transposes_copy_in_tiles(shape, perm, flip, dtype, threads, split_every_loop):
    # Note [Blocked transpose]: a plan with outer dims is a stack of transposes, each in tiles
    a = np.random.default_rng(1).normal(size=shape).astype(dtype)
    x = strided.asarray(a)
    if flip is not None:
        x, a = x.flip(flip), np.flip(a, flip)
    strided.set_num_threads(threads)
    y = x.permute(*perm).contiguous()
    plan = strided.last_copy_plan()
    assert plan["kernel"] == "transpose_tiles" and len(plan["loop_shape"]) > 2, plan
    assert plan["parallel"] is (threads > 1 and y.numel() >= 2 * 32768), plan
    np.testing.assert_array_equal(
        np.asarray(y), np.ascontiguousarray(a.transpose(perm)), strict=True
    )


def test_small_copies_stay_serial():
    strided.set_num_threads(2)
    strided.arange(100.0).reshape(10, 10).T.contiguous()
    assert strided.last_copy_plan()["parallel"] is False


def test_last_copy_plan_describes_the_loop():
    x = strided.zeros((3, 4))
    x.T.contiguous()
    plan = strided.last_copy_plan()
    assert plan["kernel"] == "transpose_tiles" and plan["loop_shape"] == (4, 3)
    strided.zeros((2, 3, 4)).contiguous().clone()
    assert strided.last_copy_plan()["loop_shape"] == (24,)  # coalesced into one dim


@pytest.mark.parametrize("src,dst", [("complex128", "complex64"), ("complex64", "complex128")])
def test_complex_casts_keep_the_parts_apart(src, dst):
    # Each part converts on its own: a non-finite imaginary part leaves the real part alone.
    z = np.zeros(4, src)
    z.real = [1.0, np.nan, 1.0, np.inf]
    z.imag = [np.nan, 1.0, np.inf, 2.0]
    got = np.asarray(strided.asarray(z).astype(dst))
    np.testing.assert_array_equal(got.real, z.real.astype(got.real.dtype))
    np.testing.assert_array_equal(got.imag, z.imag.astype(got.imag.dtype))
