"""Tests for matmul and the products built on it (strided/_ops/linalg.py, strided/_cpu/blas.pyx).

NumPy is the oracle. Floats and complex go through OpenBLAS (compared with a tolerance per
dtype: OpenBLAS and NumPy's own BLAS may sum in different orders, and OpenBLAS's results may
change in the last bits with the thread count); integers and bool go through the strided loop
and must match NumPy exactly, wraparound included.
"""

from __future__ import annotations

import doctest
import importlib
import itertools
import re

import numpy as np
import pytest
from layouts import ALL_DTYPES, make_layout, to_numpy_dtype

import strided
from strided._cpu import blas

FLOATS = (strided.float32, strided.float64, strided.complex64, strided.complex128)
INTS = tuple(d for d in ALL_DTYPES if d not in FLOATS)
OPERAND_LAYOUTS = ("contiguous", "transposed", "stepped", "negative-stride", "expanded")


def values(shape, dtype, rng):
    """Values that make every dtype's product well-conditioned (floats in [-1, 1]) or, for
    integers, overflow: the whole range, so that wraparound is exercised."""
    dt = to_numpy_dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    if dt.kind == "f":
        return rng.uniform(-1, 1, shape).astype(dt)
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dt)


def tol(dtype):
    dt = np.dtype(to_numpy_dtype(dtype))
    if dt in (np.float32, np.complex64):
        return {"rtol": 1e-4, "atol": 1e-4}
    if dt in (np.float64, np.complex128):
        return {"rtol": 1e-10, "atol": 1e-10}
    return {"rtol": 0, "atol": 0}


def check(result, expected):
    """result (a tensor) equals expected (a NumPy array) in shape, dtype and values."""
    assert isinstance(result, strided.Tensor)
    assert result.shape == expected.shape
    assert np.dtype(result.dtype.numpy) == expected.dtype
    np.testing.assert_allclose(np.asarray(result), expected, **tol(result.dtype))


def pair(dtype, shape, rng, layout="contiguous"):
    """(tensor, array) with the same values and layout."""
    t, a = make_layout(layout, values(shape, dtype, rng), rng)
    return t, a


# ---------------------------------------------------------------------------------------------
# Every dtype, every layout of each operand
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize(
    "layout1,layout2", list(itertools.product(OPERAND_LAYOUTS, OPERAND_LAYOUTS))
)
def test_matmul_dtypes_and_layouts(dtype, layout1, layout2, rng):
    x1, a1 = pair(dtype, (5, 7), rng, layout1)
    x2, a2 = pair(dtype, (7, 3), rng, layout2)
    check(x1 @ x2, a1 @ a2)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("layout", OPERAND_LAYOUTS)
def test_batched_layouts(dtype, layout, rng):
    x1, a1 = pair(dtype, (3, 4, 5), rng, layout)
    x2, a2 = pair(dtype, (3, 5, 2), rng, "contiguous")
    check(strided.matmul(x1, x2), np.matmul(a1, a2))
    check(strided.matmul(x2.mT, x1.mT), np.matmul(a2.swapaxes(-1, -2), a1.swapaxes(-1, -2)))


# Views that BLAS reads in place (see Note [Strided views as BLAS matrices]), and views that it
# cannot: those are copied first. Each builder maps a big array (rows x cols) to a view whose
# values form the matrix of shape `shape`; the same indexing is applied to NumPy and strided.
def _no_copy_views(shape):
    r, c = shape
    return {
        "contiguous": ((r, c), lambda x: x),
        "transposed": ((c, r), lambda x: x.T),
        "every other row": ((2 * r, c), lambda x: x[::2]),
        "column slice": ((r, c + 3), lambda x: x[:, 1 : 1 + c]),
        "transposed, every other row": ((2 * c, r), lambda x: x[::2].T),
        "one row of a batch": ((3, r, c), lambda x: x[1]),
    }


def _copy_views(shape):
    r, c = shape
    return {
        "both dims stepped": ((2 * r, 3 * c), lambda x: x[::2, ::3]),
        "negative rows": ((r, c), lambda x: x[::-1]),
        "negative columns": ((r, c), lambda x: x[:, ::-1]),
        "expanded row": ((1, c), lambda x: x.expand(r, c) if hasattr(x, "expand") else x),
    }


def _view(dtype, shape, build, rng):
    big_shape, fn = build
    big = values(big_shape, dtype, rng)
    t = fn(strided.asarray(big))
    if big_shape[0] == 1 and shape[0] != 1:  # the expanded row: NumPy spells it differently
        return t, np.broadcast_to(big, shape)
    return t, fn(big)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("which", ["x1", "x2"])
@pytest.mark.parametrize("view", list(_no_copy_views((4, 20))) + list(_copy_views((4, 20))))
def test_blas_reads_views_in_place(dtype, which, view, rng):
    # 20 columns: past the tiny products' 16 (Note [Which route a product takes] in blas.pyx)
    shape = (4, 20)
    builders = _no_copy_views(shape) | _copy_views(shape)
    t, a = _view(dtype, shape, builders[view], rng)
    assert t.shape == shape and a.shape == shape
    other_t, other_a = pair(dtype, (20, 5) if which == "x1" else (3, 4), rng)
    if which == "x1":
        check(t @ other_t, a @ other_a)
    else:
        check(other_t @ t, other_a @ a)
    plan = strided.last_matmul_plan()
    assert plan["kernel"].startswith("cblas_")
    copied = "copied to row-major" in plan[which]
    assert copied == (view in _copy_views(shape)), plan[which]
    if view.startswith("transposed"):
        assert "passed as Trans" in plan[which]


def test_transposed_out_swaps_the_product(rng):
    x1, a1 = pair(strided.float64, (3, 20), rng)  # k past the tiny products' 16: BLAS
    x2, a2 = pair(strided.float64, (20, 5), rng)
    out = strided.empty((5, 3)).T
    assert strided.matmul(x1, x2, out=out) is out
    check(out, a1 @ a2)
    plan = strided.last_matmul_plan()
    assert "x2^T @ x1^T" in plan["call"] and "temporary" not in plan["out"]


def test_mixed_dtypes_promote(rng):
    for d1, d2 in [
        (strided.int8, strided.float32),
        (strided.int32, strided.float32),
        (strided.bool, strided.int8),
        (strided.uint64, strided.int64),
        (strided.float32, strided.complex128),
        (strided.uint8, strided.int16),
    ]:
        a1 = values((3, 4), d1, rng)
        a2 = values((4, 2), d2, rng)
        if (a1 @ a2).dtype.kind in "fc":
            # small integers, so that products converted to floats compare closely
            a1, a2 = (a % 7 if a.dtype.kind in "iu" else a for a in (a1, a2))
        check(strided.asarray(a1) @ strided.asarray(a2), a1 @ a2)


# ---------------------------------------------------------------------------------------------
# Integers: wraparound, bool, tiles, threads
# ---------------------------------------------------------------------------------------------


def test_int8_wraps_around_like_numpy():
    a = np.full((2, 3), 100, dtype=np.int8)
    b = np.full((3, 2), 3, dtype=np.int8)
    check(strided.asarray(a) @ strided.asarray(b), a @ b)  # 900 wraps to -124


def test_bool_is_or_of_ands(rng):
    a = rng.random((6, 9)) < 0.2
    b = rng.random((9, 4)) < 0.2
    check(strided.asarray(a) @ strided.asarray(b), a @ b)


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.name)
@pytest.mark.parametrize("threads", [1, 2])
def test_int_loop_crosses_tiles(dtype, threads, rng):
    # 300 and 270 cross the loop's 256-column and 128-deep tiles; 37 rows, its 16-row blocks
    strided.set_num_threads(threads)
    x1, a1 = pair(dtype, (37, 300), rng)
    x2, a2 = pair(dtype, (300, 270), rng)
    check(x1 @ x2, a1 @ a2)
    check(x2.T @ x1.T, a2.T @ a1.T)


def test_int_results_do_not_depend_on_threads(rng):
    x1, _ = pair(strided.int32, (64, 200), rng)
    x2, _ = pair(strided.int32, (200, 100), rng)
    results = []
    for n in (1, 2, 3):
        strided.set_num_threads(n)
        results.append(np.asarray(x1 @ x2))
    assert all(np.array_equal(results[0], r) for r in results[1:])


@pytest.mark.parametrize("dtype", [strided.int64, strided.float64], ids=lambda d: d.name)
def test_many_small_matrices_run_across_the_batch(dtype, rng):
    strided.set_num_threads(2)
    x1, a1 = pair(dtype, (400, 8, 9), rng)
    x2, a2 = pair(dtype, (400, 9, 10), rng)
    check(x1 @ x2, a1 @ a2)
    assert strided.last_matmul_plan()["threads"] == "across the batch"


# ---------------------------------------------------------------------------------------------
# Shapes: empty dims, 1-D promotion, batch broadcasting
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize(
    "s1,s2",
    [
        ((0, 3), (3, 4)),
        ((2, 3), (3, 0)),
        ((2, 0), (0, 4)),
        ((0, 2, 3), (3, 4)),
        ((0,), (0,)),
        ((0,), (0, 3)),
        ((2, 0), (0,)),
    ],
)
def test_empty_dims(dtype, s1, s2, rng):
    x1, a1 = pair(dtype, s1, rng)
    x2, a2 = pair(dtype, s2, rng)
    expected = a1 @ a2
    check(x1 @ x2, expected)
    # k == 0 gives zeros even over garbage in out=
    out = strided.full(expected.shape, 1, dtype=dtype)
    check(strided.matmul(x1, x2, out=out), expected)


@pytest.mark.parametrize("dtype", [strided.float64, strided.int16, strided.complex64])
@pytest.mark.parametrize(
    "s1,s2",
    [
        ((4,), (4, 3)),
        ((2, 4), (4,)),
        ((4,), (4,)),
        ((5, 2, 4), (4,)),
        ((4,), (5, 4, 3)),
        ((2, 1, 3, 4), (5, 4, 2)),
        ((5, 4, 2), (2, 1, 2, 3)),
        ((1, 3, 4), (6, 1, 4, 2)),
    ],
)
def test_promotion_and_batch_broadcasting(dtype, s1, s2, rng):
    x1, a1 = pair(dtype, s1, rng)
    x2, a2 = pair(dtype, s2, rng)
    expected = np.matmul(a1, a2)
    check(strided.matmul(x1, x2), expected)
    out = strided.empty(expected.shape, dtype=dtype)
    assert strided.matmul(x1, x2, out=out) is out
    check(out, expected)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize(
    "layout1,layout2", [("contiguous", "stepped"), ("negative-stride", "stepped")]
)
def test_dot_products_use_blas_dot(dtype, layout1, layout2, rng):
    x1, a1 = pair(dtype, (300,), rng, layout1)
    x2, a2 = pair(dtype, (300,), rng, layout2)
    check(x1 @ x2, np.asarray(a1 @ a2))
    assert (
        strided.last_matmul_plan()["kernel"].startswith("cblas_")
        and "dot" in (strided.last_matmul_plan()["kernel"])
    )
    # a batch of them, with alpha and beta (addmm of 1 x 1 matrices)
    b1, c1 = pair(dtype, (6, 1, 5), rng)
    b2, c2 = pair(dtype, (6, 5, 1), rng)
    check(strided.matmul(b1, b2), c1 @ c2)
    i, ai = pair(dtype, (1, 1), rng)
    alpha, beta = (2 - 1j, 0.5j) if dtype.kind == "c" else (2.0, -0.5)
    expected = (beta * ai + alpha * (c1[0] @ c2[0])).astype(ai.dtype)
    check(strided.addmm(i, b1[0], b2[0], alpha=alpha, beta=beta), expected)


def test_vector_dot_vector_is_0d(rng):
    x1, a1 = pair(strided.float64, (5,), rng)
    x2, a2 = pair(strided.float64, (5,), rng)
    r = x1 @ x2
    assert r.shape == () and r.ndim == 0
    np.testing.assert_allclose(r.item(), a1 @ a2)


def test_expanded_batch_dims_need_no_copy(rng):
    x1, a1 = pair(strided.float32, (1, 3, 4), rng)
    x2, a2 = pair(strided.float32, (6, 4, 2), rng)
    check(x1.expand(6, 3, 4) @ x2, np.broadcast_to(a1, (6, 3, 4)) @ a2)
    plan = strided.last_matmul_plan()
    assert plan["batches"] == 6 and "copied" not in plan["x1"]


# ---------------------------------------------------------------------------------------------
# out=
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [strided.float32, strided.complex128, strided.int32])
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed", "stepped", "negative-stride"])
def test_out_layouts(dtype, out_layout, rng):
    x1, a1 = pair(dtype, (4, 6), rng)
    x2, a2 = pair(dtype, (6, 3), rng)
    out, out_np = make_layout(out_layout, np.zeros((4, 3), dtype=to_numpy_dtype(dtype)), rng)
    version = out._version
    assert strided.matmul(x1, x2, out=out) is out
    check(out, a1 @ a2)
    assert out._version > version


def test_out_of_another_dtype_is_cast(rng):
    x1, a1 = pair(strided.float32, (3, 4), rng)
    x2, a2 = pair(strided.float32, (4, 2), rng)
    out = strided.empty((3, 2), dtype="float64")
    strided.matmul(x1, x2, out=out)
    np.testing.assert_allclose(np.asarray(out), a1 @ a2, rtol=1e-5)
    i1, b1 = pair(strided.int8, (3, 4), rng)
    i2, b2 = pair(strided.int8, (4, 2), rng)
    out = strided.empty((3, 2), dtype="float32")
    strided.matmul(i1, i2, out=out)
    np.testing.assert_array_equal(np.asarray(out), (b1 @ b2).astype(np.float32))
    assert "temporary" in strided.last_matmul_plan()["out"]
    with pytest.raises(TypeError, match="same_kind"):
        strided.matmul(x1, x2, out=strided.empty((3, 2), dtype="int32"))


@pytest.mark.parametrize("dtype", [strided.float64, strided.int64])
def test_out_overlapping_an_input(dtype, rng):
    x, a = pair(dtype, (4, 4), rng)
    y, b = pair(dtype, (4, 4), rng)
    expected = a @ b
    strided.matmul(x, y, out=x)
    check(x, expected)
    x, a = pair(dtype, (4, 4), rng)
    expected = a @ a.T
    strided.matmul(x, x.T, out=x.T)  # the transpose of an input
    check(x.T, expected)
    x, a = pair(dtype, (4, 4), rng)
    x @= y
    check(x, a @ b)


def test_out_errors(rng):
    x1, _ = pair(strided.float64, (3, 4), rng)
    x2, _ = pair(strided.float64, (4, 2), rng)
    with pytest.raises(ValueError, match=r"out= has shape \(2, 3\), but the result has shape"):
        strided.matmul(x1, x2, out=strided.empty((2, 3)))
    with pytest.raises(RuntimeError, match="share memory"):
        strided.matmul(x1, x2, out=strided.empty((1, 2)).expand(3, 2))
    x = strided.ones((2, 3))
    with pytest.raises(ValueError, match="out= has shape"):
        x @= strided.ones((3, 4))


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


def test_mismatch_names_both_dims_and_shapes():
    with pytest.raises(ValueError) as e:
        strided.ones((2, 3)) @ strided.ones((4, 5))
    msg = str(e.value)
    assert (
        "matmul: the last dim of x1 (size 3) must match the second-to-last dim of x2 (size 4)"
        in msg
    )
    assert "(2, 3)" in msg and "(4, 5)" in msg
    with pytest.raises(ValueError, match="the only dim of x2 \\(size 4\\)"):
        strided.ones((2, 3)) @ strided.ones(4)
    with pytest.raises(ValueError, match="the only dim of x1 \\(size 2\\)"):
        strided.ones(2) @ strided.ones((4, 5))


def test_0d_inputs_raise():
    with pytest.raises(ValueError, match="x1 is 0-d"):
        strided.matmul(strided.asarray(2.0), strided.ones(3))
    with pytest.raises(ValueError, match="x2 is 0-d"):
        strided.matmul(strided.ones(3), 2.0)
    with pytest.raises(ValueError):
        np.matmul(np.float64(2.0), np.ones(3))  # the oracle agrees


def test_batch_mismatch():
    with pytest.raises(ValueError, match=r"batch dims of x1 \(2,\) and x2 \(3,\) cannot be broad"):
        strided.ones((2, 3, 4)) @ strided.ones((3, 4, 5))


def test_mm_bmm_checks():
    with pytest.raises(ValueError, match="mm: input must be a matrix"):
        strided.mm(strided.ones(3), strided.ones((3, 2)))
    with pytest.raises(ValueError, match="mm: the last dim of input \\(size 3\\)"):
        strided.mm(strided.ones((2, 3)), strided.ones((2, 2)))
    with pytest.raises(ValueError, match="bmm: input holds 2 matrices and mat2 3"):
        strided.bmm(strided.ones((2, 3, 4)), strided.ones((3, 4, 5)))
    with pytest.raises(ValueError, match="bmm: mat2 must be a stack of matrices"):
        strided.bmm(strided.ones((2, 3, 4)), strided.ones((4, 5)))


# ---------------------------------------------------------------------------------------------
# mm, bmm, addmm, tensordot, vecdot, outer, dot
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [strided.float32, strided.int32, strided.complex64])
def test_mm_and_bmm(dtype, rng):
    x1, a1 = pair(dtype, (3, 4), rng)
    x2, a2 = pair(dtype, (4, 5), rng)
    check(strided.mm(x1, x2), a1 @ a2)
    check(x1.mm(x2), a1 @ a2)
    b1, c1 = pair(dtype, (2, 3, 4), rng)
    b2, c2 = pair(dtype, (2, 4, 5), rng)
    check(strided.bmm(b1, b2), c1 @ c2)
    check(b1.bmm(b2), c1 @ c2)
    out = strided.empty((2, 3, 5), dtype=dtype)
    assert strided.bmm(b1, b2, out=out) is out
    check(out, c1 @ c2)


@pytest.mark.parametrize("dtype", [strided.float64, strided.complex128, strided.float32])
@pytest.mark.parametrize("alpha,beta", [(1, 1), (2.5, -0.5), (1, 0), (0, 3)])
@pytest.mark.parametrize("input_shape", [(3, 5), (5,), (1, 5), ()])
def test_addmm(dtype, alpha, beta, input_shape, rng):
    i, ai = pair(dtype, input_shape, rng)
    x1, a1 = pair(dtype, (3, 4), rng)
    x2, a2 = pair(dtype, (4, 5), rng)
    expected = (beta * ai + alpha * (a1 @ a2)).astype(a1.dtype)
    check(strided.addmm(i, x1, x2, alpha=alpha, beta=beta), expected)
    out = strided.empty((3, 5), dtype=dtype)
    assert strided.addmm(i, x1, x2, alpha=alpha, beta=beta, out=out) is out
    check(out, expected)


def test_addmm_complex_alpha_and_transposed_operands(rng):
    i, ai = pair(strided.complex64, (3, 5), rng)
    x1, a1 = pair(strided.complex64, (4, 3), rng)
    x2, a2 = pair(strided.complex64, (5, 4), rng)
    expected = 0.5j * ai + (1 - 2j) * (a1.T @ a2.T)
    check(strided.addmm(i, x1.T, x2.T, alpha=1 - 2j, beta=0.5j), expected.astype(np.complex64))


def test_addmm_in_place_and_overlapping_out(rng):
    c, ac = pair(strided.float64, (3, 3), rng)
    x, ax = pair(strided.float64, (3, 3), rng)
    assert strided.addmm(c, x, x.T, beta=0.5, out=c) is c
    check(c, 0.5 * ac + ax @ ax.T)
    x, ax = pair(strided.float64, (3, 3), rng)
    strided.addmm(x, x, x, alpha=2, out=x)  # out is input and both factors
    check(x, ax + 2 * (ax @ ax))


def test_addmm_beta_zero_ignores_nan_and_ints():
    i = strided.full((2, 2), float("nan"))
    r = strided.addmm(i, strided.ones((2, 3)), strided.ones((3, 2)), beta=0)
    np.testing.assert_array_equal(np.asarray(r), np.full((2, 2), 3.0))
    ii = strided.full((2, 2), 100, dtype="int8")
    one = strided.ones((2, 3), dtype="int8")
    r = strided.addmm(ii, one, one.T, beta=2, alpha=-3)
    hundred, three = np.full((2, 2), 100, np.int8), np.full((2, 2), 3, np.int8)
    check(r, np.int8(2) * hundred + np.int8(-3) * three)  # wraps around, as in NumPy
    with pytest.raises(TypeError, match="alpha and beta must be integers"):
        strided.addmm(ii, one, one.T, alpha=0.5)
    check(ii.addmm(one, one.T), (np.full((2, 2), 103, np.int8)))


@pytest.mark.parametrize("dtype", [strided.float64, strided.int16, strided.complex64])
@pytest.mark.parametrize(
    "s1,s2,axes",
    [
        ((2, 3, 4), (3, 4, 5), 2),
        ((2, 3, 4), (4, 5), 1),
        ((2, 3), (4, 5), 0),
        ((), (), 0),
        ((2, 3, 4), (4, 2), ([0, 2], [1, 0])),
        ((3, 4), (4, 3), (1, 0)),
        ((2, 3, 4), (4, 3, 2), ((-1, 1), (0, -2))),
        ((2, 0, 3), (3, 0), ([1, 2], [1, 0])),
    ],
)
def test_tensordot(dtype, s1, s2, axes, rng):
    x1, a1 = pair(dtype, s1, rng)
    x2, a2 = pair(dtype, s2, rng)
    check(strided.tensordot(x1, x2, axes=axes), np.tensordot(a1, a2, axes=axes))


def test_tensordot_on_views_and_errors(rng):
    x1, a1 = pair(strided.float32, (4, 3, 5), rng, "transposed")
    x2, a2 = pair(strided.float32, (3, 5, 2), rng, "negative-stride")
    check(strided.tensordot(x1, x2, axes=([1, 2], [0, 1])), np.tensordot(a1, a2, ([1, 2], [0, 1])))
    with pytest.raises(ValueError, match=r"axis 1 of x1 \(size 3\) must match axis 0 of x2"):
        strided.tensordot(strided.ones((2, 3)), strided.ones((4, 2)), axes=([1], [0]))
    with pytest.raises(ValueError, match="axes=3"):
        strided.tensordot(strided.ones((2, 3)), strided.ones((2, 3)), axes=3)
    with pytest.raises(ValueError, match="as many dims"):
        strided.tensordot(strided.ones((2, 3)), strided.ones((2, 3)), axes=([0, 1], [0]))


@pytest.mark.parametrize(
    "dtype", [strided.complex128, strided.complex64, strided.float32, strided.int8]
)
@pytest.mark.parametrize(
    "s1,s2,axis",
    [((5,), (5,), -1), ((4, 5), (5,), -1), ((3, 1, 5), (4, 5), -1), ((5, 3), (5, 3), -2)],
)
def test_vecdot(dtype, s1, s2, axis, rng):
    x1, a1 = pair(dtype, s1, rng)
    x2, a2 = pair(dtype, s2, rng)
    check(strided.vecdot(x1, x2, axis=axis), np.vecdot(a1, a2, axis=axis))


def test_vecdot_conjugates_x1_and_errors():
    x = strided.asarray([1 + 2j, 3j])
    assert strided.vecdot(x, x).item() == pytest.approx(14)  # |1+2j|^2 + |3j|^2
    assert x.dot(x).item() == pytest.approx((1 + 2j) ** 2 + (3j) ** 2)  # dot does not
    with pytest.raises(ValueError, match=r"axis -1 of x1 \(size 3\) must match"):
        strided.vecdot(strided.ones(3), strided.ones(4))
    with pytest.raises(ValueError, match="0-d"):
        strided.vecdot(strided.asarray(1.0), strided.ones(1))


@pytest.mark.parametrize("dtype", [strided.float64, strided.bool, strided.uint8, strided.complex64])
def test_outer(dtype, rng):
    x1, a1 = pair(dtype, (4,), rng, "negative-stride")
    x2, a2 = pair(dtype, (3,), rng, "stepped")
    check(strided.outer(x1, x2), np.outer(a1, a2))
    check(x1.outer(x2), np.outer(a1, a2))
    out = strided.empty((4, 3), dtype=dtype)
    assert strided.outer(x1, x2, out=out) is out
    check(out, np.outer(a1, a2))
    # NumPy's outer flattens N-D input (tests/test_numpy_names.py checks more)
    assert strided.outer(strided.ones((2, 2)), x2).shape == (4, x2.shape[0])


def test_dot_method():
    x = strided.arange(4.0)
    assert x.dot(x).item() == 14.0
    # NumPy's dot (tests/test_numpy_spellings.py checks the N-D forms): a matrix and a vector
    # of another length are refused, naming both shapes
    with pytest.raises(ValueError, match=r"x1 has shape \(2, 2\), x2 has shape \(4,\)"):
        strided.ones((2, 2)).dot(x)
    np.testing.assert_array_equal(strided.ones((2, 2)).dot(x[:2]), np.ones((2, 2)).dot([0, 1]))


# ---------------------------------------------------------------------------------------------
# Operators, dispatch, threads, doctests
# ---------------------------------------------------------------------------------------------


def test_operators_and_methods(rng):
    x1, a1 = pair(strided.float64, (3, 4), rng)
    x2, a2 = pair(strided.float64, (4, 2), rng)
    check(x1 @ x2, a1 @ a2)
    check(x1.matmul(x2), a1 @ a2)
    check(a1.tolist() @ x2, a1 @ a2)  # a list on the left: Tensor.__rmatmul__
    check(x1 @ a2, a1 @ a2)  # a NumPy array on the right
    check(x1 @ a2.tolist(), a1 @ a2)  # a list on the right: matmul converts it
    check(strided.matmul(a1, a2), a1 @ a2)  # array-likes are converted


def test_dispatch_trace(rng):
    x1, _ = pair(strided.float64, (3, 4), rng)
    with strided.trace_dispatch() as trace:
        strided.matmul(x1, x1.T)
        strided.addmm(x1[:, :1], x1, x1.T)
    assert [r["op"] for r in trace] == ["matmul", "addmm"]
    assert all(r["key"] == "CPU" for r in trace)


def test_threaded_gemm_runs_on_strided_threads_from_several_callers():
    # Note [One pool of threads]: OpenBLAS's jobs run on strided's OpenMP team; results match
    # OpenBLAS's own pool, also with two Python threads multiplying at once (GIL released)
    import threading

    rng = np.random.default_rng(0)
    pairs = [
        (rng.standard_normal((96, 200)).astype(np.float32), rng.standard_normal((200, 160)))
        for _ in range(2)
    ]
    pairs = [(strided.asarray(a), strided.asarray(b.astype(np.float32))) for a, b in pairs]
    strided.set_num_threads(2)
    try:
        blas._share_threads(False)
        own = [(a @ b).numpy() for a, b in pairs]
        blas._share_threads(True)
        errors = []

        def work(k):
            a, b = pairs[k]
            for _ in range(20):
                if not np.allclose((a @ b).numpy(), own[k], rtol=1e-5, atol=1e-4):
                    errors.append(k)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
    finally:
        blas._share_threads(True)


def test_blas_threads_follow_strided():
    strided.set_num_threads(1)
    assert blas.blas_info()["threads"] == 1
    strided.set_num_threads(2)
    assert blas.blas_info()["threads"] == 2


def test_float_results_close_across_threads(rng):
    # OpenBLAS may sum in another order on another thread count: close, not bitwise equal
    x1, a1 = pair(strided.float32, (300, 200), rng)
    x2, a2 = pair(strided.float32, (200, 250), rng)
    results = []
    for n in (1, 2):
        strided.set_num_threads(n)
        results.append(np.asarray(x1 @ x2))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(results[0], a1 @ a2, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["strided._ops.linalg", "strided._cpu.blas"])
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


# ---------------------------------------------------------------------------------------------
# svd and svdvals (LAPACK ?gesdd, strided/_cpu/lapack.pyx)
# ---------------------------------------------------------------------------------------------

SVD_LAYOUTS = OPERAND_LAYOUTS + ("empty",)
SVD_SHAPES = ((5, 3), (3, 5), (4, 4), (1, 4), (2, 3, 4), (3, 1, 5, 2))


def _svd_tol(dtype, scale):
    """Absolute tolerance for singular values and products: a few ulps of the largest singular
    value per element (the error of a backward-stable SVD), in the result's precision."""
    single = np.dtype(to_numpy_dtype(dtype)) in (np.float32, np.complex64)
    return (2e-5 if single else 1e-12) * max(1.0, scale)


def _svd_dtype(dtype):
    """The dtype svd computes in: ints and bool promote to float64, as NumPy's linalg."""
    dt = np.dtype(to_numpy_dtype(dtype))
    return np.dtype(np.float64) if dt.kind in "biu" else dt


def _herm(f):
    return np.conj(np.swapaxes(f, -1, -2))


def check_svd(x, a, full_matrices):
    """strided.linalg.svd(x) is an SVD of the NumPy array a: shapes and dtypes as NumPy's,
    S equal to NumPy's, orthonormal factors whose product is a (the factors themselves are
    unique only up to signs / phases)."""
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    res = strided.linalg.svd(x, full_matrices=full_matrices)
    assert isinstance(res, tuple) and len(res) == 3
    U, S, Vh = (np.asarray(r) for r in res)
    assert (U.shape, S.shape, Vh.shape) == (u.shape, s.shape, vh.shape)
    assert (U.dtype, S.dtype, Vh.dtype) == (u.dtype, s.dtype, vh.dtype)
    atol = _svd_tol(x.dtype, float(np.abs(s).max(initial=0)))
    np.testing.assert_allclose(S, s, rtol=0, atol=atol)
    assert np.all(np.diff(S, axis=-1) <= 0), "S must be descending"
    k = S.shape[-1]
    recon = (U[..., :, :k] * S[..., None, :]) @ Vh[..., :k, :]
    np.testing.assert_allclose(recon, a.astype(u.dtype), rtol=0, atol=atol * 4)
    for gram in (_herm(U) @ U, Vh @ _herm(Vh)):  # orthonormal columns of U, rows of Vh
        eye = np.broadcast_to(np.eye(gram.shape[-1]), gram.shape)
        np.testing.assert_allclose(gram, eye, rtol=0, atol=_svd_tol(x.dtype, 1.0) * 10)
    np.testing.assert_allclose(np.asarray(strided.linalg.svdvals(x)), s, rtol=0, atol=atol)
    assert np.asarray(strided.linalg.svdvals(x)).dtype == s.dtype


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("layout", SVD_LAYOUTS)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_dtypes_and_layouts(dtype, layout, full_matrices, rng):
    for shape in SVD_SHAPES:
        made = make_layout(layout, values(shape, dtype, rng), rng)
        if made is None:
            continue
        x, a = made
        check_svd(x, a, full_matrices)


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 0), (2, 3, 0), (0, 2, 3)])
def test_svd_of_empty_matrices_and_batches(shape, full_matrices):
    # no singular values; with full_matrices the one non-empty factor is the identity (NumPy)
    for dtype in (strided.float32, strided.complex128):
        a = np.zeros(shape, to_numpy_dtype(dtype))
        check_svd(strided.asarray(a), a, full_matrices)
        u, _, vh = np.linalg.svd(a, full_matrices=full_matrices)
        U, _, Vh = strided.linalg.svd(strided.asarray(a), full_matrices=full_matrices)
        np.testing.assert_array_equal(np.asarray(U), u)
        np.testing.assert_array_equal(np.asarray(Vh), vh)


def test_svd_of_column_major_input_needs_no_transposing_copy(rng):
    # Note [SVD through LAPACK's column-major]: x.mT of a contiguous batch is copied as it lies
    # and the factors come back column-major too; the input is left as it was
    x, a = pair(strided.float64, (3, 6, 4), rng)
    t = x.mT
    before = np.asarray(t).copy()
    U, S, Vh = strided.linalg.svd(t)
    assert U.stride()[-2:] == (1, 4) and Vh.stride()[-2:] == (1, 6)
    check_svd(t, np.swapaxes(a, -1, -2), True)
    np.testing.assert_array_equal(np.asarray(t), before)
    U, S, Vh = strided.linalg.svd(x)  # row-major input: row-major factors
    assert U.is_contiguous() and Vh.is_contiguous()
    np.testing.assert_array_equal(np.asarray(x), a)


def test_svd_of_rank_deficient_and_special_matrices(rng):
    for a in (
        np.outer(rng.uniform(-1, 1, 5), rng.uniform(-1, 1, 4)),  # rank 1
        np.zeros((3, 3)),
        np.eye(4)[::-1],
        np.diag([1e150, 1.0, 1e-150]),
        np.array([[3.0 + 4.0j]]),
    ):
        check_svd(strided.asarray(a), a, True)


def test_svd_with_nan_raises_and_svdvals_gives_nan():
    a = np.array([[[1.0, 2.0], [3.0, 4.0]], [[np.nan, 1.0], [1.0, 1.0]]])
    x = strided.asarray(a)
    with pytest.raises(ValueError, match=r"svd: the SVD of matrix 1 of the batch .* NaN"):
        strided.linalg.svd(x)
    s = np.asarray(strided.linalg.svdvals(x))
    np.testing.assert_allclose(s[0], np.linalg.svd(a[0], compute_uv=False))
    assert np.isnan(s[1]).all()


def test_svd_follows_the_default_float_dtype():
    x = strided.asarray([[1, 2], [3, 4]], dtype=strided.int32)
    assert strided.linalg.svdvals(x).dtype is strided.float64
    strided.set_default_dtype(strided.float32)
    try:
        assert strided.linalg.svdvals(x).dtype is strided.float32
        assert strided.linalg.svd(x).U.dtype is strided.float32
    finally:
        strided.set_default_dtype(strided.float64)


def test_svd_of_array_likes_and_dispatch():
    a = [[1.0, 2.0], [3.0, 4.0]]
    np.testing.assert_allclose(np.asarray(strided.linalg.svdvals(a)), np.linalg.svdvals(a))
    with strided.trace_dispatch() as trace:
        strided.linalg.svdvals(strided.asarray(a))
    assert [r["op"] for r in trace][:1] == ["linalg_svd"]


@pytest.mark.parametrize("fn", ["svd", "svdvals"])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_svd_needs_a_matrix(fn, shape):
    pattern = rf"{fn}: x must have at least 2 dims .*got shape {re.escape(str(shape))}"
    with pytest.raises(ValueError, match=pattern):
        getattr(strided.linalg, fn)(strided.ones(shape))
