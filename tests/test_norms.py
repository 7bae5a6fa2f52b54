"""Tests of the norms (strided/_ops/norms.py) against ``np.linalg.norm``, and of the
``strided.linalg`` namespace (strided/linalg.py).

vector_norm: every ord (2, 1, inf, -inf, 0, and other p, negative ones too) over every layout
of tests/layouts.py, on float, complex (a real result), integer and bool input, over no axis,
each axis, negative axes and tuples, with keepdims. matrix_norm: "fro", "nuc", 1, -1, 2, -2,
inf, -inf on matrices and stacks of them in several layouts (the singular-value norms through
linalg.svdvals), and on matrices with a zero dim.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from layouts import LAYOUTS, make_layout
from opinfo_reduction import tame

import strided

SHAPE = (4, 1, 3, 5)
INF = math.inf
VECTOR_ORDS = (2, 1, INF, -INF, 0, 3, 0.5, -1, -2.5)
MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, INF, -INF)
SINGULAR_VALUE_ORDS = ("nuc", 2, -2)
DTYPES = (strided.float32, strided.float64, strided.complex64, strided.complex128, strided.int16)
FEW = (strided.float32, strided.complex128)


def _real_of(dt):
    """The dtype of the norm: real, and integers compute in float64."""
    return {np.complex64: np.float32, np.complex128: np.float64}.get(
        dt.type, dt if dt.kind == "f" else np.dtype(np.float64)
    )


def _np_vector_norm(a, axis, keepdims, ord):
    """np.linalg.norm's vector norm over any axes (it takes at most one axis for vectors, so
    the axes are first moved to the end and merged)."""
    dt = _real_of(a.dtype)
    a = a.astype(np.float64) if a.dtype.kind in "biu" else a
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = tuple(x % nd for x in axes) if nd else ()
    kept = [d for d in range(nd) if d not in axes]
    merged = math.prod(a.shape[d] for d in axes)
    moved = np.transpose(a, kept + list(axes)).reshape([a.shape[d] for d in kept] + [merged])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = np.linalg.norm(moved, ord=ord, axis=-1)
    if keepdims:
        r = r.reshape([1 if d in axes else a.shape[d] for d in range(nd)])
    return np.asarray(r, dtype=dt)


def _check(got, exp, where, scale=0.0):
    """got equals exp to a few ulps, relatively; ``scale``: also absolutely, to a few ulps of
    scale (singular values are exact only relative to the largest one: the smallest singular
    value of a rank-deficient matrix is 0 up to rounding)."""
    arr = np.asarray(got)
    assert arr.shape == exp.shape, (where, arr.shape, exp.shape)
    assert arr.dtype == exp.dtype, (where, arr.dtype, exp.dtype)
    rtol = 2e-5 if arr.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(arr, exp, rtol=rtol, atol=rtol * scale, err_msg=where)


def _axes(nd):
    if nd == 0:
        return [None]
    return [None, 0, -1, tuple(range(nd))] + ([(0, 2), (-1, 1)] if nd >= 3 else [])


def _vector_cases():
    for layout in LAYOUTS:
        for dtype in DTYPES if layout == "contiguous" else FEW:
            yield pytest.param(layout, dtype, id=f"{layout}-{dtype.name}")


@pytest.mark.parametrize("layout,dtype", list(_vector_cases()))
def test_vector_norm_matches_numpy(layout, dtype, rng):
    values = tame(-3.0, 3.0, ints=(-50, 50))(SHAPE, dtype, rng)
    values.reshape(-1)[::7] = 0  # zeros, for ord=0 and negative ords
    t, a = make_layout(layout, values, rng)
    for ord in VECTOR_ORDS:
        for axis in _axes(t.ndim):
            for keepdims in (False, True):
                where = f"vector_norm(ord={ord}, axis={axis}, keepdims={keepdims}) of {layout}"
                if a.size == 0 and ord in (INF, -INF):
                    continue  # see test_vector_norm_of_empty
                exp = _np_vector_norm(a, axis, keepdims, ord)
                got = strided.vector_norm(t, axis=axis, keepdims=keepdims, ord=ord)
                _check(got, exp, where)
                assert got.dtype.kind == "f", where


def test_vector_norm_of_bool_and_special_values():
    b = strided.asarray([True, False, True])
    assert strided.vector_norm(b).item() == pytest.approx(math.sqrt(2))
    assert math.isnan(strided.vector_norm(strided.asarray([3.0, np.nan])).item())
    assert strided.vector_norm(strided.asarray([1.0, -np.inf]), ord=1).item() == INF
    assert strided.vector_norm(strided.asarray([0.0, 0.0]), ord=-1).item() == 0.0
    z = strided.asarray(np.array([3 + 4j, -5j], dtype=np.complex64))
    got = strided.vector_norm(z, ord=INF)
    assert got.dtype is strided.float32 and got.item() == 5.0


def test_vector_norm_of_empty():
    e = strided.zeros((0, 3))
    assert strided.vector_norm(e).item() == 0.0
    np.testing.assert_array_equal(np.asarray(strided.vector_norm(e, axis=0, ord=1)), [0, 0, 0])
    assert strided.vector_norm(e, axis=1, ord=INF).shape == (0,)
    with pytest.raises(ValueError, match=r"vector_norm: ord=inf over zero elements"):
        strided.vector_norm(e, ord=INF)
    with pytest.raises(ValueError, match=r"vector_norm: ord=-inf over zero elements"):
        strided.vector_norm(e, axis=0, ord=-INF)


def _matrix_cases():
    for layout in ("contiguous", "transposed", "stepped", "negative-stride", "expanded"):
        for dtype in DTYPES if layout == "contiguous" else FEW:
            yield pytest.param(layout, dtype, id=f"{layout}-{dtype.name}")


@pytest.mark.parametrize("layout,dtype", list(_matrix_cases()))
def test_matrix_norm_matches_numpy(layout, dtype, rng):
    for shape in ((3, 5), (2, 4, 3), (4, 1, 3, 5)):
        t, a = make_layout(layout, tame(-3.0, 3.0)(shape, dtype, rng), rng)
        af = a.astype(np.float64) if a.dtype.kind in "biu" else a
        for ord in MATRIX_ORDS:
            for keepdims in (False, True):
                where = f"matrix_norm(ord={ord}, keepdims={keepdims}) of {layout} {shape}"
                exp = np.asarray(
                    np.linalg.norm(af, ord=ord, axis=(-2, -1), keepdims=keepdims),
                    dtype=_real_of(a.dtype),
                )
                scale = np.abs(af).sum() if ord in SINGULAR_VALUE_ORDS else 0.0
                _check(strided.matrix_norm(t, ord=ord, keepdims=keepdims), exp, where, scale)


def test_matrix_norm_of_empty_matrices():
    for shape in ((0, 3), (3, 0), (2, 0, 0)):
        a = np.zeros(shape)
        t = strided.asarray(a)
        np.testing.assert_array_equal(
            np.asarray(strided.matrix_norm(t)), np.linalg.norm(a, axis=(-2, -1))
        )
    # a max over no column sums has no value, as in NumPy
    with pytest.raises(ValueError, match=r"matrix_norm: ord=1 over zero elements"):
        strided.matrix_norm(strided.zeros((3, 0)), ord=1)
    assert strided.matrix_norm(strided.zeros((3, 0)), ord=INF).item() == 0.0


def test_singular_value_norms_of_empty_matrices():
    # no singular values: "nuc" and 2 are 0 (NumPy's 2-norm is a max starting at 0), -2 has
    # no value, also for an empty batch, as in NumPy
    for shape in ((0, 3), (3, 0), (0, 0), (2, 0, 0), (0, 3, 0), (0, 2, 3)):
        a = np.zeros(shape, np.float32)
        t = strided.asarray(a)
        for ord in ("nuc", 2):
            for keepdims in (False, True):
                exp = np.asarray(np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims))
                _check(strided.matrix_norm(t, ord=ord, keepdims=keepdims), exp, (shape, ord))
        if 0 in shape[-2:]:
            with pytest.raises(ValueError, match=r"matrix_norm: ord=-2 .* has none \(x has shape"):
                strided.matrix_norm(t, ord=-2)
        else:
            _check(strided.matrix_norm(t, ord=-2), np.zeros(shape[:-2], np.float32), shape)


@pytest.mark.parametrize("dtype", [strided.float32, strided.complex64, strided.float64])
def test_singular_value_norms_of_known_matrices(dtype):
    # diag(3, -4) has singular values 4 and 3; a rank-1 matrix has one non-zero
    t = strided.asarray([[[3.0, 0.0], [0.0, -4.0]], [[1.0, 2.0], [2.0, 4.0]]], dtype=dtype)
    real = strided.float64 if dtype is strided.float64 else strided.float32
    for ord, exp in (("nuc", [7.0, 5.0]), (2, [4.0, 5.0]), (-2, [3.0, 0.0]), (2.0, [4.0, 5.0])):
        got = strided.matrix_norm(t, ord=ord)
        assert got.dtype is real, (ord, got.dtype)
        np.testing.assert_allclose(np.asarray(got), exp, rtol=1e-6, atol=1e-6)
    nan = strided.matrix_norm(strided.asarray([[np.nan, 1.0], [1.0, 1.0]]), ord=2)
    assert math.isnan(nan.item())  # NaN in, NaN out, as NumPy


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: strided.vector_norm(strided.ones(3), ord="fro"), ValueError, "real number"),
        (lambda: strided.vector_norm(strided.ones(3), ord=True), ValueError, "real number"),
        (lambda: strided.vector_norm(strided.ones(3), axis=1), IndexError, "axis=1 is out"),
        (
            lambda: strided.vector_norm(strided.ones((2, 2)), axis=(0, 0)),
            ValueError,
            "vector_norm: axis 0 appears twice",
        ),
        (
            lambda: strided.matrix_norm(strided.ones(3)),
            ValueError,
            r"matrix_norm: x must have at least 2 dims .* shape \(3,\)",
        ),
        (lambda: strided.matrix_norm(strided.ones((2, 2)), ord=3), ValueError, "got 3"),
        (lambda: strided.matrix_norm(strided.ones((2, 2)), ord="max"), ValueError, "'max'"),
    ],
)
def test_norm_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------------------------------------------------------------------------------------------
# The strided.linalg namespace
# ---------------------------------------------------------------------------------------------


def test_linalg_namespace():
    la = strided.linalg
    extension = set(
        "cholesky cross det diagonal eig eigh eigvals eigvalsh inv matmul matrix_norm matrix_power "
        "matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace "
        "vecdot vector_norm".split()
    )  # the Array API 2025.12 linalg extension, plus NumPy's extras
    numpy_extras = {"cond", "lstsq", "multi_dot", "norm", "tensorinv", "tensorsolve"}
    results = {"EigResult", "EighResult", "LinAlgError", "LstsqResult", "QRResult", "SlogdetResult"}
    assert set(la.__all__) == extension | numpy_extras | results
    for name in la.__all__:
        assert callable(getattr(la, name)), name
    assert la.matmul is strided.matmul and la.vector_norm is strided.vector_norm
    assert la.matrix_transpose is strided.matrix_transpose


@pytest.mark.parametrize("dtype", [strided.int8, strided.uint8, strided.float32, strided.bool])
def test_linalg_diagonal_and_trace(dtype, rng):
    a = tame(ints=(0, 5))((2, 4, 4), dtype, rng)
    t = strided.asarray(a)
    for offset in (0, 1, -2, 5):
        np.testing.assert_array_equal(
            np.asarray(strided.linalg.diagonal(t, offset=offset)),
            np.diagonal(a, offset, -2, -1),
        )
        got = strided.linalg.trace(t, offset=offset)
        exp = np.trace(a, offset, -2, -1)
        assert got.dtype.numpy == exp.dtype or (
            dtype.kind == "u" and got.dtype is strided.uint64
        ), (got.dtype, exp.dtype)
        np.testing.assert_allclose(np.asarray(got), exp)
    assert strided.linalg.trace(t, dtype=strided.float64).dtype is strided.float64
    assert strided.linalg.diagonal(t).untyped_storage() is t.untyped_storage()
