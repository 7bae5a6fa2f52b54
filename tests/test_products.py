"""Tests of the products (strided/_ops/products.py) against NumPy.

einsum: a table of subscript strings (matrix products, batches, transposes, traces, diagonals,
outer products, sums, ellipses, implicit outputs, three operands, repeated indices), each on the
contiguous, transposed, stepped, negative-stride and expanded layouts of tests/layouts.py, in
float64, plus int, float32, complex, bool, broadcasting and empty cases and the error messages.
dot, inner, vdot, kron, cross, convolve and correlate: NumPy's shape cases in several dtypes and
layouts. A representative subset runs on the CUDA devices of tests/devices.py, and the
differentiable ones get a float64 gradcheck.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import make_layout

import strided
from strided.autograd import gradcheck

SIZES = {"i": 3, "j": 4, "k": 2, "l": 5, "b": 2, "a": 3, "n": 4, "m": 3, "A": 2}
ELLIPSIS = (2, 3)
SHAPE_LAYOUTS = ("contiguous", "transposed", "stepped", "negative-stride", "expanded")

EINSUM = [
    "ij,jk->ik",  # matmul
    "ij,jk",  # implicit output
    "bij,bjk->bik",  # batched matmul
    "ij->ji",  # transpose
    "ba",  # implicit output, alphabetical: a transpose
    "ijk->kji",
    "ii",  # trace
    "ii->",
    "ii->i",  # diagonal
    "iii->i",
    "iij->j",  # repeated index, then a sum
    "ijj,jk->ik",
    "i,j->ij",  # outer
    "ij,kl->ijkl",
    "ij->",  # sums
    "ij->i",
    "ij->j",
    "ijk->j",
    "...ij,...jk->...ik",  # ellipsis
    "...ij,...jk",
    "...i,...i",
    "i...->...",
    "ij...,j->i...",
    "ij,jk,kl->il",  # three operands
    "i,i,i->",
    "bn,anm,bm->ba",
    "i,i",  # dot
    "i,i->i",
    "ij,j->i",
    "ij,ij->",
    "Ab,bA->",
]


def _shapes(spec):
    inputs = spec.split("->")[0].split(",")
    shapes = []
    for term in inputs:
        shape = []
        for part in term.split("..."):
            shape.extend(SIZES[c] for c in part)
            shape.extend(ELLIPSIS)
        shapes.append(tuple(shape[: len(shape) - len(ELLIPSIS)]))
    return shapes


def _values(shape, dtype, rng):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(-5, 6, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _layout(name, ref, rng):
    pair = make_layout(name, ref, rng)
    return pair if pair is not None else make_layout("contiguous", ref, rng)


def _check(got, want, where=""):
    """Same shape and dtype, values to a few ulps of the dtype (exact for ints and bools)."""
    want = np.asarray(want)
    assert isinstance(got, strided.Tensor), where
    g = np.asarray(got.cpu())
    assert g.shape == want.shape, (where, g.shape, want.shape)
    assert g.dtype == want.dtype, (where, g.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(g, want, err_msg=str(where))
    else:
        tol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol, err_msg=str(where))


# ---------------------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", EINSUM)
def test_einsum_table(spec, rng):
    refs = [_values(s, np.float64, rng) for s in _shapes(spec)]
    for layout in SHAPE_LAYOUTS:
        pairs = [_layout(layout, r, rng) for r in refs]
        tensors = [p[0] for p in pairs]
        arrays = [p[1] for p in pairs]
        want = np.einsum(spec, *arrays)
        _check(strided.einsum(spec, *tensors), want, (spec, layout))
        _check(strided.einsum(spec, *tensors, optimize=True), want, (spec, layout, "greedy"))


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float32, np.complex128, np.bool_])
@pytest.mark.parametrize("spec", ["ij,jk->ik", "ii->i", "ij->", "bn,anm,bm->ba", "...i,...i"])
def test_einsum_dtypes(spec, dtype, rng):
    arrays = [_values(s, dtype, rng) for s in _shapes(spec)]
    want = np.einsum(spec, *arrays)
    _check(strided.einsum(spec, *[strided.asarray(a) for a in arrays]), want, (spec, dtype))


def test_einsum_int8_sums_wrap_and_dtype_argument():
    a = np.full(4, 100, np.int8)
    _check(strided.einsum("i->", strided.asarray(a)), np.einsum("i->", a))
    b = np.arange(6).reshape(2, 3)
    _check(
        strided.einsum("ij->j", strided.asarray(b), dtype=strided.float32, casting="unsafe"),
        np.einsum("ij->j", b, dtype=np.float32, casting="unsafe"),
    )
    with pytest.raises(TypeError, match="operand 0 .int64. cannot be cast to dtype=float32"):
        strided.einsum("ij->j", strided.asarray(b), dtype="float32")
    mixed = strided.einsum("i,i", strided.asarray([1, 2]), strided.asarray([0.5, 0.25]))
    _check(mixed, np.einsum("i,i", [1, 2], [0.5, 0.25]))


@pytest.mark.parametrize(
    "spec, shapes",
    [
        ("i,i", [(1,), (3,)]),  # a labelled dim of size 1 broadcasts, as in NumPy
        ("ij,ij->ij", [(2, 1), (2, 3)]),
        ("...ij,...jk->...ik", [(3, 2, 4), (1, 4, 5)]),
        ("...ij,jk->...ik", [(2, 4), (4, 5)]),  # '...' covering no dims
        ("ij,jk->ik", [(2, 0), (0, 3)]),  # an empty contraction gives zeros
        ("ij,jk->ik", [(0, 4), (4, 3)]),
        ("ij->", [(0, 3)]),
        ("ii->i", [(0, 0)]),
        ("ij,kl->ijkl", [(2, 0), (1, 2)]),
        (",i->i", [(), (3,)]),  # 0-d operands
        ("->", [()]),
    ],
)
def test_einsum_broadcast_empty_and_0d(spec, shapes, rng):
    arrays = [_values(s, np.float64, rng) for s in shapes]
    want = np.einsum(spec, *arrays)
    _check(strided.einsum(spec, *[strided.asarray(a) for a in arrays]), want, spec)


def test_einsum_accepts_numpy_and_lists_and_out(rng):
    a = rng.standard_normal((2, 3))
    _check(strided.einsum("ij,j", a, [1.0, 2.0, 3.0]), np.einsum("ij,j", a, [1.0, 2.0, 3.0]))
    out = strided.empty((3, 2))
    r = strided.einsum("ij->ji", strided.asarray(a), out=out)
    assert r is out
    _check(out, a.T)


@pytest.mark.parametrize(
    "args, exc, fragment",
    [
        (("ij,jk", np.ones((2, 3))), ValueError, "name 2 operand(s) but 1 were given"),
        (("ij", np.ones((2, 3, 4))), ValueError, "operand 0 has 3 dims"),
        (("ij", np.ones((2, 3, 4))), ValueError, "add '...'"),
        (("ij,jk", np.ones((2, 3)), np.ones((4, 5))), ValueError, "subscript 'j' has size 3"),
        (("ij,jk", np.ones((2, 3)), np.ones((4, 5))), ValueError, "size 4 in operand 1"),
        (("ii", np.ones((2, 3))), ValueError, "operand 0 repeats subscript 'i'"),
        (("i2", np.ones((2, 3))), ValueError, "the character '2'"),
        (("ij->k", np.ones((2, 3))), ValueError, "'k', which no operand"),
        (("ij->ii", np.ones((2, 3))), ValueError, "repeats 'i'"),
        (("...i->i", np.ones((2, 3))), ValueError, "has no '...'"),
        (("i->i->i", np.ones(2)), ValueError, "more than one '->'"),
        (("......", np.ones(2)), ValueError, "more than one '...'"),
        ((np.ones(2), [0]), TypeError, "subscripts string"),
        (("i",), ValueError, "no operands"),
    ],
)
def test_einsum_errors(args, exc, fragment):
    with pytest.raises(exc, match=None) as info:
        strided.einsum(*args)
    assert fragment in str(info.value)


def test_einsum_views_for_pure_relabelling():
    x = strided.arange(9.0).reshape(3, 3)
    d = strided.einsum("ii->i", x)
    assert d._base is not None or d.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


# ---------------------------------------------------------------------------------------------
# dot, inner, vdot, kron
# ---------------------------------------------------------------------------------------------

DTYPES = [np.int64, np.float32, np.float64, np.complex128]
DOT_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3, 4)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (5, 4, 6)),
    ((4,), (2, 4, 3)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((2, 0), (0, 3)),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dot(dtype, rng):
    for sa, sb in DOT_SHAPES:
        a, b = _values(sa, dtype, rng), _values(sb, dtype, rng)
        for layout in SHAPE_LAYOUTS:
            ta, na = _layout(layout, a, rng)
            _check(strided.dot(ta, b), np.dot(na, b), (sa, sb, layout))


def test_dot_out_and_mixed_dtypes(rng):
    a, b = rng.standard_normal((2, 3)), np.arange(12).reshape(3, 4)
    out = strided.empty((2, 4))
    assert strided.dot(strided.asarray(a), strided.asarray(b), out=out) is out
    _check(out, np.dot(a, b))
    _check(strided.dot(strided.asarray(b.T), [1, 2, 3]), np.dot(b.T, [1, 2, 3]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_inner_and_vdot(dtype, rng):
    for sa, sb in [((3,), (3,)), ((2, 3), (4, 3)), ((2, 3, 4), (5, 4)), ((), (3,)), ((0,), (0,))]:
        a, b = _values(sa, dtype, rng), _values(sb, dtype, rng)
        for layout in SHAPE_LAYOUTS:
            ta, na = _layout(layout, a, rng)
            _check(strided.inner(ta, b), np.inner(na, b), (sa, sb, layout))
    for sa, sb in [((6,), (6,)), ((2, 3), (6,)), ((3, 2), (2, 3)), ((0,), (0, 2))]:
        a, b = _values(sa, dtype, rng), _values(sb, dtype, rng)
        for layout in SHAPE_LAYOUTS:
            ta, na = _layout(layout, a, rng)
            _check(strided.vdot(ta, b), np.vdot(na, b), (sa, sb, layout))


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.complex128, np.bool_])
def test_kron(dtype, rng):
    cases = [
        ((2,), (3,)),
        ((2, 3), (4, 2)),
        ((2, 2), (3,)),
        ((3,), (2, 2, 2)),
        ((), (2, 3)),
        ((2, 3), ()),
        ((0, 2), (3, 1)),
    ]
    for sa, sb in cases:
        a, b = _values(sa, dtype, rng), _values(sb, dtype, rng)
        for layout in (*SHAPE_LAYOUTS, "0-d", "empty"):
            pair = make_layout(layout, a, rng)
            if pair is None:
                continue
            ta, na = pair
            _check(strided.kron(ta, b), np.kron(na, b), (sa, sb, layout))


@pytest.mark.parametrize(
    "fn, args, fragment",
    [
        (strided.dot, (np.ones((2, 3)), np.ones((4, 2))), "not aligned"),
        (strided.dot, (np.ones((2, 3, 4)), np.ones((3, 2))), "dim 2 of x1 (size 4)"),
        (strided.dot, (np.ones(3), np.ones(4)), "not aligned"),
        (strided.inner, (np.ones((2, 3)), np.ones((3, 2))), "size 3"),
        (strided.vdot, (np.ones((2, 3)), np.ones(5)), "same number of elements"),
    ],
)
def test_dot_family_errors(fn, args, fragment):
    with pytest.raises(ValueError) as info:
        fn(*args)
    assert fragment in str(info.value)


# ---------------------------------------------------------------------------------------------
# cross
# ---------------------------------------------------------------------------------------------

CROSS = [
    ((3,), (3,), {}),
    ((5, 3), (5, 3), {}),
    ((5, 3), (3,), {}),
    ((4, 1, 3), (2, 3), {}),
    ((2,), (2,), {}),
    ((4, 2), (4, 2), {}),
    ((4, 2), (4, 3), {}),
    ((3,), (4, 2), {}),
    ((3, 5), (5, 3), {"axisa": 0}),
    ((3, 5), (3, 5), {"axis": 0}),
    ((4, 3), (3, 4), {"axisb": 0, "axisc": 0}),
    ((2, 3, 4), (3,), {"axisa": 1, "axisc": 1}),
    ((0, 3), (3,), {}),
]


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, np.complex128])
def test_cross(dtype, rng):
    for sa, sb, kw in CROSS:
        a, b = _values(sa, dtype, rng), _values(sb, dtype, rng)
        for layout in SHAPE_LAYOUTS:
            ta, na = _layout(layout, a, rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # NumPy 2's 2-vectors
                want = np.cross(na, b, **kw)
            _check(strided.cross(ta, b, **kw), want, (sa, sb, kw, layout))


@pytest.mark.parametrize(
    "args, kw, exc, fragment",
    [
        ((np.ones(4), np.ones(3)), {}, ValueError, "incompatible vector sizes 4 (a) and 3"),
        ((np.ones((3, 4)), np.ones(3)), {}, ValueError, "each must be 2 or 3"),
        ((np.ones(3), np.ones(3)), {"axisa": 1}, ValueError, "axisa=1 is out of range for a"),
        ((np.ones(()), np.ones(3)), {}, ValueError, "a is 0-d"),
        ((np.ones(3, bool), np.ones(3, bool)), {}, TypeError, "bool"),
    ],
)
def test_cross_errors(args, kw, exc, fragment):
    with pytest.raises(exc) as info:
        strided.cross(*args, **kw)
    assert fragment in str(info.value)


# ---------------------------------------------------------------------------------------------
# convolve, correlate
# ---------------------------------------------------------------------------------------------

CONV_LENGTHS = [(5, 3), (3, 5), (4, 4), (1, 6), (6, 1), (4, 2), (2, 7), (1, 1)]


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate(mode, dtype, rng):
    for n, m in CONV_LENGTHS:
        a, v = _values((n,), dtype, rng), _values((m,), dtype, rng)
        for layout in ("contiguous", "stepped", "negative-stride"):
            ta, na = make_layout(layout, a, rng)
            tv, nv = make_layout(layout, v, rng)
            _check(strided.convolve(ta, tv, mode), np.convolve(na, nv, mode), (n, m, layout))
            _check(strided.correlate(ta, tv, mode), np.correlate(na, nv, mode), (n, m, layout))


def test_convolve_defaults_and_mixed_inputs():
    a, v = [1, 2, 3, 4], [0.5, -1.0]
    _check(strided.convolve(strided.asarray(a), v), np.convolve(a, v))
    _check(strided.correlate(strided.asarray(a), v), np.correlate(a, v))
    _check(
        strided.convolve(np.asarray(a, np.int8), [True, False]),
        np.convolve(np.int8(a), [True, False]),
    )


@pytest.mark.parametrize(
    "fn, args, fragment",
    [
        (strided.convolve, ([], [1.0]), "a cannot be empty"),
        (strided.convolve, ([1.0], []), "v cannot be empty"),
        (strided.correlate, (np.ones((2, 2)), [1.0]), "a must be 1-D, got shape (2, 2)"),
        (strided.convolve, ([1.0], [1.0], "middle"), "mode must be 'full', 'same' or 'valid'"),
    ],
)
def test_convolve_errors(fn, args, fragment):
    with pytest.raises(ValueError) as info:
        fn(*args)
    assert fragment in str(info.value)


# ---------------------------------------------------------------------------------------------
# Devices and gradients
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_products_on_device(device, rng):
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((3, 4))
    c = rng.standard_normal(3)
    ta, na = make_layout("transposed", a.T.copy(), rng)  # a transposed view: (4, 3)
    da, db, dc = on(device, ta), on(device, strided.tensor(b)), on(device, strided.tensor(c))
    cases = [
        (strided.einsum("ij,jk->ik", da, db), np.einsum("ij,jk->ik", na, b)),
        (strided.einsum("ii->i", strided.einsum("ij,jk", db, da)), np.diag(b @ na)),
        (strided.einsum("ij,j,jk", da, dc, db), np.einsum("ij,j,jk", na, c, b)),
        (strided.einsum("ij->", da), np.einsum("ij->", na)),
        (strided.dot(da, dc), np.dot(na, c)),
        (strided.inner(dc, dc), np.inner(c, c)),
        (strided.vdot(da, db), np.vdot(na, b)),
        (strided.kron(dc, da), np.kron(c, na)),
        (strided.cross(da, dc), np.cross(na, c)),
        (strided.convolve(dc, da[:, 0], "same"), np.convolve(c, na[:, 0], "same")),
        (strided.correlate(da[:, 1], dc, "full"), np.correlate(na[:, 1], c, "full")),
    ]
    for k, (got, want) in enumerate(cases):
        assert got.device.is_cuda, k
        _check(got, want, k)


def _leaf(shape, rng):
    return strided.tensor(rng.standard_normal(shape), requires_grad=True)


@pytest.mark.parametrize(
    "spec, shapes",
    [
        ("ij,jk->ik", [(2, 3), (3, 2)]),
        ("ii->i", [(3, 3)]),
        ("bij,bjk", [(2, 2, 3), (2, 3, 2)]),
        ("i,j,ij->", [(2,), (3,), (2, 3)]),
        ("...i,...i->...", [(2, 3), (3,)]),
    ],
)
def test_einsum_gradcheck(spec, shapes, rng):
    leaves = [_leaf(s, rng) for s in shapes]
    assert gradcheck(lambda *xs: strided.einsum(spec, *xs), leaves)


def test_products_gradcheck(rng):
    assert gradcheck(strided.dot, (_leaf((2, 3), rng), _leaf((3, 2), rng)))
    assert gradcheck(strided.dot, (_leaf((2, 2, 3), rng), _leaf((2, 3, 2), rng)))
    assert gradcheck(strided.inner, (_leaf((2, 3), rng), _leaf((3,), rng)))
    assert gradcheck(strided.kron, (_leaf((2, 2), rng), _leaf((3,), rng)))
    assert gradcheck(strided.cross, (_leaf((2, 3), rng), _leaf((3,), rng)))
    assert gradcheck(strided.cross, (_leaf((2,), rng), _leaf((3,), rng)))
    for mode in ("full", "same", "valid"):
        a, v = _leaf((5,), rng), _leaf((3,), rng)
        assert gradcheck(lambda x, y, mode=mode: strided.convolve(x, y, mode), (a, v))
        assert gradcheck(lambda x, y, mode=mode: strided.correlate(x, y, mode), (v, a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "negative-stride"])
def test_a_matrix_times_its_own_transpose(dtype, layout, rng):
    # Note [A matrix times its own transpose] (_cpu/blas.pyx): x.T @ x and x @ x.T through
    # ?syrk when x is a BLAS matrix and the product is big enough, else through GEMM: NumPy's
    # values either way, and an exactly symmetric result from ?syrk
    for shape in [(300, 40), (40, 300), (5, 3)]:
        t, a = make_layout(layout, rng.standard_normal(shape).astype(dtype), rng)
        tol = 1e-4 if dtype == np.float32 else 1e-12
        for got, want in ((t.T @ t, a.T @ a), (t @ t.T, a @ a.T), (t.mT @ t, a.T @ a)):
            got = np.asarray(got)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
            if layout in ("contiguous", "transposed") and got.size > 10000:
                np.testing.assert_array_equal(got, got.T)
        # a copy of x, or x with another offset, is not x's transpose: GEMM, the same values
        other = strided.asarray(a.copy())
        np.testing.assert_allclose(
            np.asarray(t.T @ other), a.T @ a, rtol=tol, atol=tol * np.abs(a.T @ a).max()
        )
