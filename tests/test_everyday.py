"""NumPy's everyday functions (issue 16): index tricks, polynomials, placing, the functions that
call Python functions, calculus, block and sort_complex, each against NumPy as the oracle over
dtypes and layouts, and each refusing bad input with a message that names the argument."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import strided
from tests.layouts import layouts, make_values

DTYPES = (strided.int64, strided.float32, strided.float64, strided.bool, strided.complex128)


def same(got, want, rtol=1e-6, atol=1e-9):
    """``got`` (a tensor, or a tuple of them) equals NumPy's ``want``: values, shape, dtype."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            same(g, w, rtol, atol)
        return
    want = np.asarray(want)
    assert isinstance(got, strided.Tensor), type(got)
    g = np.asarray(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, equal_nan=True)


def values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return make_values(shape, dtype, rng, cast_safe=True)


# -- index tricks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        (slice(1, 4), 0, [7, 8]),
        (slice(0, 1, 5j),),
        (slice(-1, 1, 6j), [0] * 3, 5, 6),
        ("0,2", [1, 2], [3, 4]),
        ("1,2,0", [1, 2, 3], [4, 5, 6]),
        ("-1", np.ones((2, 2)), np.zeros((2, 1))),
        (np.array([1, 2], np.int8), 3),
        (np.array([1, 2], np.int8), np.int64(3)),
        (1, 2.5),
        (slice(0, 6, 2), np.array([True, False])),
    ],
)
def test_r_(key):
    t_key = tuple(strided.asarray(k) if isinstance(k, np.ndarray) else k for k in key)
    same(strided.r_[t_key], np.r_[key])


@pytest.mark.parametrize(
    "key",
    [
        ([1, 2, 3], [4, 5, 6]),
        (np.zeros((2, 2)), [1, 2]),
        (slice(0, 3), [1.5, 2, 3]),
        (np.array([1, 2], np.float32), np.array([3, 4], np.float32)),
    ],
)
def test_c_(key):
    t_key = tuple(strided.asarray(k) if isinstance(k, np.ndarray) else k for k in key)
    same(strided.c_[t_key], np.c_[key])


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # NumPy's matrix
def test_r_matrix_directives_give_2d():
    same(strided.r_["r", [1, 2], [3]], np.asarray(np.r_["r", [1, 2], [3]]))
    same(strided.r_["c", [1, 2], [3]], np.asarray(np.r_["c", [1, 2], [3]]))


def test_r_bad_directive():
    with pytest.raises(ValueError, match="special directive"):
        strided.r_["x,y", [1]]
    with pytest.raises(ValueError, match="first entry"):
        strided.r_[[1], "0"]


@pytest.mark.parametrize(
    "key",
    [
        (slice(0, 2), slice(0, 3)),
        (slice(0, 1, 3j), slice(0, 2)),
        (slice(-1, 1, 0.5),),
        (slice(0, 5, 2),),
    ],
)
def test_mgrid_ogrid(key):
    k = key if len(key) > 1 else key[0]
    same(strided.mgrid[k], np.mgrid[k])
    same(strided.ogrid[k], np.ogrid[k] if len(key) > 1 else np.ogrid[k])


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dims", [(2, 3), (4,), (), (2, 0, 3)])
def test_indices(dims, sparse):
    same(strided.indices(dims, sparse=sparse), np.indices(dims, sparse=sparse))
    same(strided.indices(dims, dtype=strided.float32), np.indices(dims, dtype=np.float32))


def test_fromfunction():
    f = lambda i, j: i * 10 + j  # noqa: E731
    same(strided.fromfunction(f, (2, 3)), np.fromfunction(f, (2, 3)))
    same(strided.fromfunction(f, (2, 3), dtype=int), np.fromfunction(f, (2, 3), dtype=int))
    with pytest.raises(TypeError, match="function must be callable"):
        strided.fromfunction(3, (2,))


def test_ix_():
    x = np.arange(20).reshape(4, 5)
    t = strided.asarray(x)
    same(t[strided.ix_([0, 3], [1, 2, 4])], x[np.ix_([0, 3], [1, 2, 4])])
    mask = [True, False, True, False, True]
    same(strided.ix_([1, 2], mask), np.ix_([1, 2], mask))
    with pytest.raises(ValueError, match="argument 0 must be 1-D"):
        strided.ix_([[1]])


@pytest.mark.parametrize("order", ["C", "F"])
def test_ravel_unravel(order):
    dims = (3, 4, 5)
    flat = np.array([[0, 7], [59, 23]])
    want = np.unravel_index(flat, dims, order=order)
    got = strided.unravel_index(strided.asarray(flat), dims, order=order)
    same(got, want)
    same(strided.ravel_multi_index(got, dims, order=order), flat)
    same(strided.unravel_index(17, dims, order=order), np.unravel_index(17, dims, order=order))
    # the index as transposed and negative-stride int32 tensors
    for name, t, a in layouts(flat.astype(np.int32)):
        if name in ("0-d",):
            continue
        same(strided.unravel_index(t, dims, order=order), np.unravel_index(a, dims, order=order))


@pytest.mark.parametrize("mode", ["wrap", "clip", ("clip", "wrap")])
def test_ravel_multi_index_modes(mode):
    idx = ([-1, 3, 7], [5, -6, 2])
    want = np.ravel_multi_index(idx, (3, 4), mode=mode)
    same(strided.ravel_multi_index(tuple(map(strided.asarray, idx)), (3, 4), mode=mode), want)


def test_ravel_unravel_errors():
    with pytest.raises(ValueError, match="invalid entry"):
        strided.ravel_multi_index(([0, 3], [0, 0]), (3, 4))
    with pytest.raises(ValueError, match="sequence of 2 index arrays"):
        strided.ravel_multi_index(([0],), (3, 4))
    with pytest.raises(TypeError, match="must hold integers"):
        strided.ravel_multi_index(([0.5], [1]), (3, 4))
    with pytest.raises(ValueError, match="mode must be"):
        strided.ravel_multi_index(([0], [1]), (3, 4), mode="bad")
    with pytest.raises(ValueError, match="index 12 is out of bounds for array with size 12"):
        strided.unravel_index([1, 12], (3, 4))
    with pytest.raises(TypeError, match="indices must hold integers"):
        strided.unravel_index(1.0, (3, 4))
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        strided.unravel_index(1, (3, 4), order="K")


@pytest.mark.parametrize("n,k,m", [(3, 0, None), (4, -1, None), (3, 1, 5), (4, 2, 2), (0, 0, None)])
def test_tri_indices(n, k, m):
    same(strided.tril_indices(n, k, m), np.tril_indices(n, k, m))
    same(strided.triu_indices(n, k, m), np.triu_indices(n, k, m))
    a = np.zeros((n, n if m is None else m))
    same(strided.tril_indices_from(strided.asarray(a), k), np.tril_indices_from(a, k))
    same(strided.triu_indices_from(strided.asarray(a), k), np.triu_indices_from(a, k))


def test_diag_indices():
    same(strided.diag_indices(3), np.diag_indices(3))
    same(strided.diag_indices(2, 3), np.diag_indices(2, 3))
    same(
        strided.diag_indices_from(strided.zeros((2, 2, 2))),
        np.diag_indices_from(np.zeros((2,) * 3)),
    )
    with pytest.raises(ValueError, match="at least 2-d"):
        strided.diag_indices_from(strided.zeros(3))
    with pytest.raises(ValueError, match="equal length"):
        strided.diag_indices_from(strided.zeros((2, 3)))
    with pytest.raises(ValueError, match="arr must be 2-d"):
        strided.tril_indices_from(strided.zeros(3))


# -- polynomials --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_polyfit(dtype):
    x = np.linspace(-2, 3, 9).astype(dtype) if dtype != np.int64 else np.arange(-4, 5)
    y = np.stack([x**3 - x, np.cos(x)], axis=1)
    w = np.arange(1.0, 10.0)
    for yy in (y[:, 0], y):
        same(
            strided.polyfit(strided.asarray(x), strided.asarray(yy), 2), np.polyfit(x, yy, 2), 1e-4
        )
        for kw in ({"w": w}, {"cov": True}, {"cov": "unscaled", "w": w}, {"full": True}):
            got = strided.polyfit(strided.asarray(x), strided.asarray(yy), 2, **kw)
            want = np.polyfit(x, yy, 2, **kw)
            if kw.get("full"):
                got, want = got[:2] + got[3:4], want[:2] + want[3:4]  # rank is a 0-d int
            same(got, want, 1e-4, 1e-6)


def test_polyfit_layouts_and_errors():
    x = np.linspace(0, 1, 6)
    for name, t, a in layouts(x):
        if name in ("0-d", "empty", "expanded"):  # expanded: equal x, a singular fit
            continue
        same(strided.polyfit(t, t**2, 2), np.polyfit(a, a**2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(np.exceptions.RankWarning):
            strided.polyfit([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], 5)
    with pytest.raises(ValueError, match="deg must be >= 0"):
        strided.polyfit([1.0, 2.0], [1.0, 2.0], -1)
    with pytest.raises(TypeError, match="same length"):
        strided.polyfit([1.0, 2.0], [1.0, 2.0, 3.0], 1)
    with pytest.raises(TypeError, match="x must be a 1-D vector"):
        strided.polyfit([[1.0, 2.0]], [1.0, 2.0], 1)
    with pytest.raises(TypeError, match="w must be 1-D"):
        strided.polyfit([1.0, 2.0], [1.0, 2.0], 1, w=[[1.0, 1.0]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_polyval(dtype):
    p = values((4,), dtype, 1)
    x = values((3, 4), dtype, 2)
    for _name, t, a in layouts(x):
        same(strided.polyval(strided.asarray(p), t), np.polyval(p, a), 1e-5)
    same(strided.polyval([3, 0, 1], strided.asarray(2.5)), np.polyval([3, 0, 1], np.asarray(2.5)))
    same(strided.polyval([], strided.asarray([1, 2])), np.polyval(np.array([], np.int64), [1, 2]))


@pytest.mark.parametrize(
    "p",
    [
        [1, -3, 2],
        [0, 1, 0, 1, 0, 0],
        [0, 0],
        [5],
        [1.0, 0, -2],
        np.array([1, 2, 2], np.float32),
        [1 + 1j, 2, 3j],
    ],
)
def test_roots(p):
    want = np.roots(p)
    got = strided.roots(strided.asarray(p))
    key = lambda r: np.lexsort((np.round(r.imag, 6), np.round(r.real, 6)))  # noqa: E731
    g = np.asarray(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_allclose(g[key(g)], want[key(want)], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="p must be a 1-D"):
        strided.roots([[1, 2]])


def test_poly_family():
    same(strided.poly([1, 2]), np.poly([1, 2]))
    same(strided.poly(strided.asarray([1j, -1j])), np.poly([1j, -1j]))
    same(strided.poly(strided.eye(2)), np.poly(np.eye(2)))
    same(strided.polyder([1, 1, 1, 1], 2), np.polyder([1, 1, 1, 1], 2))
    same(strided.polyint([3, 2, 1], 2, k=[1, 2]), np.polyint([3, 2, 1], 2, k=[1, 2]))
    same(strided.polyadd([1, 2], [9, 5, 4]), np.polyadd([1, 2], [9, 5, 4]))
    same(strided.polysub([2.0, 10], [3, 10, -4]), np.polysub([2.0, 10], [3, 10, -4]))
    same(strided.polymul([1, 2, 3], [9, 5, 1]), np.polymul([1, 2, 3], [9, 5, 1]))
    for x in ([1, 2, 3], np.array([1.5, 2], np.float32), [True, False]):
        same(strided.vander(strided.asarray(x)), np.vander(x))
        same(strided.vander(strided.asarray(x), 4, increasing=True), np.vander(x, 4, True))
    with pytest.raises(ValueError, match="x must be one-dimensional"):
        strided.vander([[1]])
    with pytest.raises(ValueError, match="order m must not be negative"):
        strided.polyder([1, 2], -1)


# -- placing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_put_place_putmask(dtype):
    ref = values((3, 4), dtype)
    v = values((5,), dtype, 3)
    for name, t, a in layouts(ref):
        if name == "expanded":  # overlapping elements: writes are refused
            continue
        n = a.size
        ind = np.array([0, -1, 5, 5]) % max(n, 1) if n else np.array([], np.int64)
        mask = np.arange(n).reshape(a.shape) % 3 == 1
        for f, args in ((np.put, (ind, v)), (np.place, (mask, v)), (np.putmask, (mask, v))):
            want = a.copy()
            f(want, *args)
            got = t.clone()
            assert getattr(strided, f.__name__)(got, *map(strided.asarray, args)) is None
            same(got, want)
        strided.put(t, strided.asarray(ind), strided.asarray(v))  # through the layout's view
        np.put(a, ind, v)
        same(t, a)


def test_put_modes_and_layout_writes():
    x = np.arange(12).reshape(3, 4)
    for name, t, a in layouts(x):
        if name in ("expanded", "empty", "0-d"):
            continue
        a = a.copy()
        for mode in ("wrap", "clip"):
            np.put(a, [-20, 3, 40], [7, 8], mode=mode)
            strided.put(t, [-20, 3, 40], [7, 8], mode=mode)
        same(t, a)
    with pytest.raises(IndexError, match="index 12 is out of bounds"):
        strided.put(strided.zeros((3, 4)), [12], 1)
    with pytest.raises(TypeError, match="must be a strided tensor"):
        strided.put(np.zeros(3), [0], 1)
    with pytest.raises(TypeError, match="ind must hold integers"):
        strided.put(strided.zeros(3), [0.5], 1)
    with pytest.raises(ValueError, match="cannot insert from an empty vals"):
        strided.place(strided.zeros(3), [True, False, True], [])
    with pytest.raises(ValueError, match="same number of elements"):
        strided.place(strided.zeros(3), [True], [1])
    with pytest.raises(ValueError, match="same shape"):
        strided.putmask(strided.zeros(3), [True], [1])


@pytest.mark.parametrize("dtype", [strided.int64, strided.float32, strided.complex128])
def test_put_along_axis(dtype):
    ref = values((3, 4), dtype)
    for name, t, a in layouts(ref):
        if name in ("expanded", "0-d", "empty"):
            continue
        a = a.copy()
        for axis in (0, 1, -1):
            idx = np.argsort(a.real, axis=axis)[(slice(None),) * (axis % 2) + (slice(0, 1),)]
            np.put_along_axis(a, idx, 7, axis)
            strided.put_along_axis(t, strided.asarray(idx), 7, axis)
            same(t, a)
        np.put_along_axis(a, np.array([0, -1]), a.flat[1:3].copy(), None)
        strided.put_along_axis(t, [0, -1], strided.asarray(a.flat[1:3].copy()), None)
        same(t, a)
    with pytest.raises(ValueError, match="same number of dims"):
        strided.put_along_axis(strided.zeros((2, 2)), strided.asarray([0]), 1, 0)
    with pytest.raises(IndexError, match="integer array"):
        strided.put_along_axis(strided.zeros((2, 2)), strided.asarray([[0.0]]), 1, 0)


def test_fill_diagonal():
    for shape, wrap in (
        ((3, 3), False),
        ((5, 3), True),
        ((5, 3), False),
        ((2, 4), False),
        ((3, 3, 3), False),
    ):
        a = np.zeros(shape, np.int64)
        t = strided.zeros(shape, dtype=strided.int64)
        np.fill_diagonal(a, [1, 2], wrap=wrap)
        strided.fill_diagonal(t, [1, 2], wrap=wrap)
        same(t, a)
    t = strided.zeros((4, 4)).T
    strided.fill_diagonal(t, 5.0)
    same(t, np.diag([5.0] * 4))
    with pytest.raises(ValueError, match="at least 2-d"):
        strided.fill_diagonal(strided.zeros(3), 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_choose_compress(dtype):
    a = values((3, 4), dtype, 1)
    b = values((4,), dtype, 2)
    c1, c2 = np.arange(12).reshape(3, 4) % 3 == 0, np.array([True, False, False, True])
    for name, t, x in layouts(a):
        if name in ("0-d", "empty"):
            continue
        same(strided.select([strided.asarray(c1), c2], [t, b]), np.select([c1, c2], [x, b]))
        same(strided.select([c2], [b], default=1), np.select([c2], [b], default=1))
        same(
            strided.compress([True, False, True], t, axis=0),
            np.compress([True, False, True], x, axis=0),
        )
        same(strided.compress([False, True], t), np.compress([False, True], x))
        same(strided.extract(c1, t), np.extract(c1, x))
        ch = np.arange(12).reshape(3, 4) % 2
        same(strided.choose(ch, [t, strided.asarray(b)]), np.choose(ch, [x, b]))
    same(
        strided.select([c2], [np.array([1, 2, 3, 4], np.int8)], 3),
        np.select([c2], [np.array([1, 2, 3, 4], np.int8)], 3),
    )


def test_select_errors_and_pytorch_meaning():
    x = strided.arange(6).reshape(2, 3)
    same(strided.select(x, 1, 0), np.arange(6).reshape(2, 3)[:, 0])
    same(strided.select(x, dim=0, index=1), np.arange(3, 6))
    with pytest.raises(ValueError, match="same length"):
        strided.select([x > 1], [x, x])
    with pytest.raises(ValueError, match="condlist is empty"):
        strided.select([], [])
    with pytest.raises(TypeError, match=r"condlist\[0\] must be boolean"):
        strided.select([x], [x])
    with pytest.raises(ValueError, match="values outside"):
        strided.choose([0, 2], [[1, 2], [3, 4]])
    same(
        strided.choose([0, 2], [[1, 2], [3, 4]], mode="wrap"),
        np.choose([0, 2], [[1, 2], [3, 4]], mode="wrap"),
    )


# -- functions of functions ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [strided.int64, strided.float64, strided.complex128])
def test_apply_along_axis(dtype):
    ref = values((3, 4), dtype)
    for name, t, a in layouts(ref):
        if name in ("0-d", "empty"):
            continue
        for axis in (0, 1):
            same(
                strided.apply_along_axis(lambda v: v[0] + v[-1], axis, t),
                np.apply_along_axis(lambda v: v[0] + v[-1], axis, a),
            )
            same(
                strided.apply_along_axis(lambda v: strided.outer(v, v), axis, t),
                np.apply_along_axis(lambda v: np.outer(v, v), axis, a),
            )
    with pytest.raises(ValueError, match="a dim other than axis is empty"):
        strided.apply_along_axis(sum, 1, strided.zeros((0, 3)))
    with pytest.raises(IndexError, match="axis=2 is out of range"):
        strided.apply_along_axis(sum, 2, strided.zeros((2, 3)))


def test_apply_over_axes():
    a = np.arange(24).reshape(2, 3, 4)
    t = strided.asarray(a)
    same(strided.apply_over_axes(strided.sum, t, [0, 2]), np.apply_over_axes(np.sum, a, [0, 2]))
    same(
        strided.apply_over_axes(strided.sum, t.mT, -1),
        np.apply_over_axes(np.sum, a.swapaxes(-1, -2), -1),
    )
    with pytest.raises(ValueError, match="must return an array"):
        strided.apply_over_axes(lambda x, ax: x.sum(), t, [0])


@pytest.mark.parametrize("dtype", [strided.int64, strided.float32, strided.float64])
def test_piecewise(dtype):
    ref = values((3, 4), dtype)
    for name, t, a in layouts(ref):
        if name == "0-d":  # NumPy reads a list of 0-d conditions as one 1-D condition
            continue
        c = [a < 20, a > 60]
        fs = [lambda v: v * 2, 7]
        same(strided.piecewise(t, [strided.asarray(k) for k in c], fs), np.piecewise(a, c, fs))
        fs3 = [lambda v: v * 2, 7, lambda v: -v]
        same(strided.piecewise(t, c, fs3), np.piecewise(a, c, fs3))
    v = np.array([1.0, 30.0, 5.0])
    same(strided.piecewise(strided.asarray(v), v < 20, [1, 0]), np.piecewise(v, v < 20, [1, 0]))
    same(
        strided.piecewise(strided.asarray(v), strided.asarray(v) < 20, [1, 0]),
        np.piecewise(v, v < 20, [1, 0]),
    )
    with pytest.raises(ValueError, match="either 1 or 2 functions"):
        strided.piecewise(strided.zeros(3), [[True, False, True]], [1, 2, 3])


def test_vectorize():
    f = lambda a, b: a - b if a > b else a + b  # noqa: E731
    a = np.arange(6).reshape(2, 3)
    for name, t, x in layouts(a):
        if name == "empty":  # NumPy asks for otypes to call on size 0, as strided's does
            with pytest.raises(ValueError, match="otypes"):
                strided.vectorize(f)(t, 2)
            continue
        same(strided.vectorize(f)(t, 2), np.vectorize(f)(x, 2))
    same(
        strided.vectorize(f, otypes=[strided.float32])(strided.asarray(a), 2),
        np.vectorize(f, otypes=[np.float32])(a, 2),
    )
    g = strided.vectorize(lambda v: (v.sum(), v.max()), signature="(n)->(),()")
    same(
        g(strided.asarray(a)), np.vectorize(lambda v: (v.sum(), v.max()), signature="(n)->(),()")(a)
    )
    h = strided.vectorize(lambda x, p: sum(p) * x, excluded={"p"})
    same(h(strided.asarray([1, 2]), p=[1, 2]), np.array([3, 6]))

    @strided.vectorize
    def double(v):
        """Twice v."""
        return 2 * v

    assert double.__doc__ == "Twice v."
    same(double(strided.asarray([1.5])), np.array([3.0]))
    with pytest.raises(TypeError, match="pyfunc must be callable"):
        strided.vectorize(3)


# -- calculus -----------------------------------------------------------------------------------


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize(
    "dtype", [strided.int64, strided.float32, strided.float64, strided.complex128]
)
def test_gradient(dtype, edge_order):
    rng = np.random.default_rng(0)
    ref = values((4, 5), dtype)
    xs = np.cumsum(rng.random(5)) + 0.1
    for name, t, a in layouts(ref):
        if name in ("0-d", "empty") or (name == "expanded" and min(a.shape) < 3):
            continue
        tol = 1e-4 if dtype == strided.float32 else 1e-9
        same(
            strided.gradient(t, edge_order=edge_order),
            np.gradient(a, edge_order=edge_order),
            tol,
            tol,
        )
        same(
            strided.gradient(t, 2.0, xs, edge_order=edge_order),
            np.gradient(a, 2.0, xs, edge_order=edge_order),
            tol,
            tol,
        )
        same(
            strided.gradient(t, xs, axis=-1, edge_order=edge_order),
            np.gradient(a, xs, axis=-1, edge_order=edge_order),
            tol,
            tol,
        )
        same(
            strided.gradient(t, np.arange(4), axis=0, edge_order=edge_order),
            np.gradient(a, np.arange(4), axis=0, edge_order=edge_order),
            tol,
            tol,
        )


def test_gradient_errors():
    with pytest.raises(ValueError, match="edge_order must be 1 or 2"):
        strided.gradient(strided.zeros(5), edge_order=3)
    with pytest.raises(ValueError, match="at least edge_order"):
        strided.gradient(strided.zeros(2), edge_order=2)
    with pytest.raises(TypeError, match="one per axis"):
        strided.gradient(strided.zeros((3, 3)), 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="must have its length"):
        strided.gradient(strided.zeros(3), [1.0, 2.0])
    with pytest.raises(TypeError, match="boolean"):
        strided.gradient(strided.asarray([True, False]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_trapezoid(dtype):
    ref = values((3, 4), dtype)
    xs = np.array([0.0, 0.5, 2.0, 2.5])
    for name, t, a in layouts(ref):
        if name == "0-d":
            continue
        same(strided.trapezoid(t), np.trapezoid(a), 1e-5)
        same(strided.trapezoid(t, dx=0.5, axis=0), np.trapezoid(a, dx=0.5, axis=0), 1e-5)
        if a.shape[-1] == 4:
            same(strided.trapezoid(t, xs), np.trapezoid(a, xs), 1e-5)
    with pytest.raises(ValueError, match="at least 1-D"):
        strided.trapezoid(strided.asarray(1.0))


# -- block, sort_complex ------------------------------------------------------------------------


def test_block():
    a, b = np.eye(2), np.arange(4.0).reshape(2, 2)
    ta, tb = strided.asarray(a), strided.asarray(b).T
    same(strided.block([[ta, tb], [tb, ta]]), np.block([[a, b.T], [b.T, a]]))
    same(strided.block([strided.asarray([1, 2]), 3]), np.block([np.array([1, 2]), 3]))
    same(strided.block([[1, 2], [3, 4]]), np.block([[1, 2], [3, 4]]))
    same(strided.block(strided.asarray(5)), np.block(np.asarray(5)))
    same(strided.block([[ta], [strided.zeros((1, 2))]]), np.block([[a], [np.zeros((1, 2))]]))
    with pytest.raises(ValueError, match="depths are mismatched"):
        strided.block([[ta], tb])
    with pytest.raises(TypeError, match="is a tuple"):
        strided.block((ta, tb))
    with pytest.raises(ValueError, match="cannot be empty"):
        strided.block([[], [ta]])


@pytest.mark.parametrize(
    "dtype", ["int8", "uint16", "int64", "float32", "float64", "bool", "complex128"]
)
def test_sort_complex(dtype):
    ref = values((3, 4), getattr(strided, dtype))
    for name, t, a in layouts(ref):
        if name != "0-d":  # NumPy has no axis to sort a 0-d array along
            same(strided.sort_complex(t), np.sort_complex(a))
