"""NumPy's spellings of Tensor methods that used to raise (issue 15): ``transpose()`` and its
permutation forms, ``flatten(order)``, ``reshape(order="F")``, ``squeeze(axis=)``, N-D ``dot``,
``round(decimals)``, ``f"{x:.3f}"``, ``round(x)`` and ``divmod``, against NumPy on every layout;
and the PyTorch spellings beside them (``transpose(d0, d1)`` on 3-D, ``flatten(start, end)``,
``squeeze(dim)``) keep theirs."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import layouts

import strided

DTYPES = (strided.float64, strided.float32, strided.int64, strided.bool)


def _pairs(shape, dtype, rng):
    ref = rng.standard_normal(shape) * 10
    ref = ref.astype(np.dtype(dtype.name) if dtype.name != "bool" else np.bool_)
    for layout, t, a in layouts(ref, rng):
        yield layout, t, np.asarray(a)


def _same(got, want, where):
    g = np.asarray(got)
    assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype, where
    np.testing.assert_array_equal(g, want, err_msg=where)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_transpose_flatten_reshape_squeeze_as_numpy(dtype, rng):
    for layout, t, a in _pairs((2, 3, 4), dtype, rng):
        where = f"{dtype.name} {layout} {a.shape}"
        _same(t.transpose(), a.transpose(), f"transpose() {where}")
        for order in "CFAK":
            _same(t.flatten(order), a.flatten(order), f"flatten({order!r}) {where}")
            _same(t.flatten(order=order), a.flatten(order=order), f"flatten order= {where}")
        if a.ndim == 3:
            _same(t.transpose((2, 0, 1)), a.transpose((2, 0, 1)), f"transpose(tuple) {where}")
            _same(t.transpose(1, 2, 0), a.transpose(1, 2, 0), f"transpose(*axes) {where}")
            _same(t.transpose(0, 2), np.swapaxes(a, 0, 2), f"PyTorch's transpose {where}")
            _same(t.flatten(1), a.reshape(a.shape[0], -1), f"PyTorch's flatten {where}")
            for shape in [(4, 6), (-1, 2), (3, 2, 4)] if a.size == 24 else [(-1,), (0, 4)]:
                want = a.reshape(shape, order="F")
                _same(t.reshape(shape, order="F"), want, f"reshape {shape} F {where}")
        if a.ndim >= 1 and a.size:
            one = t[..., :1]
            _same(one.squeeze(axis=-1), a[..., :1].squeeze(axis=-1), f"squeeze(axis) {where}")
            if a.shape[-1] != 1:
                with pytest.raises(ValueError, match="only size-1 dims can be squeezed"):
                    t.squeeze(axis=-1)


@pytest.mark.parametrize("dtype", (strided.float64, strided.int64), ids=lambda d: d.name)
def test_dot_round_format_divmod_as_numpy(dtype, rng):
    a = (rng.standard_normal((2, 3, 4)) * 10).astype(dtype.name)
    m = (rng.standard_normal((4, 5)) * 10).astype(dtype.name)
    v = (rng.standard_normal(4) * 10).astype(dtype.name)
    v[v == 0] = 1  # divmod(7, v) below: no division by zero
    t, tm, tv = strided.asarray(a), strided.asarray(m), strided.asarray(v)
    for got, want, what in [
        (t.dot(tm), a.dot(m), "N-D . 2-D"),
        (tm.T.dot(tm), m.T.dot(m), "2-D . 2-D (transposed)"),
        (t.dot(tv), a.dot(v), "N-D . 1-D"),
        (tv.dot(tv), v.dot(v), "1-D . 1-D"),
        (tv.dot(strided.asarray(3)), v.dot(3), "1-D . 0-d"),
    ]:
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, err_msg=what)
    for decimals in (0, 1, 2, -1, -2):
        _same(t.round(decimals), np.round(a, decimals), f"round({decimals})")
        _same(strided.round(t, decimals), np.round(a, decimals), f"strided.round {decimals}")
    x = strided.asarray(np.float64(2.71828))
    assert f"{x:.3f}" == "2.718" and f"{x:>8.2f}" == f"{2.71828:>8.2f}" and f"{x}" == "2.71828"
    assert round(x, 2) == 2.72 and round(x) == 3 and isinstance(round(x), int)
    with pytest.raises(TypeError, match="only 0-d tensors format as numbers"):
        f"{t:.2f}"
    assert f"{t}" == str(t)
    q, r = divmod(t, 3)
    wq, wr = divmod(a, 3)
    _same(q, wq, "divmod quotient")
    _same(r, wr, "divmod remainder")
    q, r = divmod(7, tv)
    wq, wr = divmod(7, v)
    _same(q, wq, "rdivmod quotient")
    _same(r, wr, "rdivmod remainder")


def test_bad_orders_are_refused():
    t = strided.ones((2, 3))
    with pytest.raises(ValueError, match="order must be one of"):
        t.flatten("X")
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        t.reshape(3, 2, order="A")
    with pytest.raises(IndexError, match="out of range"):
        t.squeeze(axis=5)


# -- the silent collisions: where NumPy and PyTorch give one call two meanings, NumPy's wins ----
# (docs/numpy-and-pytorch.md lists them; see Note [Reduction methods: NumPy's positions,
# PyTorch's keywords] in strided/_tensor.py)


@pytest.mark.parametrize("dtype", (strided.float64, strided.int64), ids=lambda d: d.name)
def test_method_collisions_give_numpys_answer(dtype, rng):
    for layout, t, a in _pairs((3, 4), dtype, rng):
        if a.ndim != 2 or not a.size:
            continue
        where = f"{dtype.name} {layout}"
        _same(t.max(0), a.max(0), f"max(0) {where}")
        _same(t.min(1), a.min(1), f"min(1) {where}")
        _same(t.max(axis=1, keepdims=True), a.max(axis=1, keepdims=True), f"max keepdims {where}")
        _same(t.sum(0, strided.float32), a.sum(0, np.float32), f"sum(0, dtype) {where}")
        _same(t.mean(1, None, None, True), a.mean(1, None, None, True), f"mean 4 args {where}")
        _same(t.argmax(0), a.argmax(0), f"argmax(0) {where}")
        _same(t.std(), a.std(), f"std() {where}")
        _same(t.var(0, None, None, 1), a.var(0, None, None, 1), f"var(0, ddof=1) {where}")
        _same(t.repeat(2), a.repeat(2), f"repeat(2) {where}")
        _same(t.repeat(2, 1), a.repeat(2, 1), f"repeat(2, 1) {where}")
        _same(t.repeat([1, 0, 2], axis=0), a.repeat([1, 0, 2], axis=0), f"repeat counts {where}")
        _same(t.transpose(0, 1), a.transpose(0, 1), f"transpose(0, 1) on 2-D {where}")
        _same(t.transpose(1, 0), a.transpose(1, 0), f"transpose(1, 0) on 2-D {where}")
        rows = t.nonzero()
        assert isinstance(rows, tuple) and len(rows) == 2, where
        for got, want in zip(rows, a.nonzero(), strict=True):
            _same(got, want, f"nonzero() {where}")
        _same(t.ravel("F"), a.ravel("F"), f"ravel('F') {where}")
        assert t.item(5) == a.item(5) and t.item(2, 1) == a.item(2, 1), where
        s, b = t.clone(), a.copy()
        assert s.sort() is None and s.sort(0, kind="stable") is None, where
        b.sort()
        b.sort(0, kind="stable")
        _same(s, b, f"in-place sort {where}")
        _same(t.argsort(0, kind="stable"), a.argsort(0, kind="stable"), f"argsort {where}")


def test_pytorch_spellings_give_pytorchs_answer(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 4))
    t, x = strided.asarray(a), torch.tensor(a)

    def same(got, want, where):
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-12, err_msg=where)

    for name in ("max", "min"):
        (gv, gi), (wv, wi) = getattr(t, name)(dim=1), getattr(x, name)(dim=1)
        same(gv, wv, f"{name}(dim=1) values")
        same(gi, wi, f"{name}(dim=1) indices")
        (gv, gi), (wv, wi) = getattr(strided, name)(t, dim=0), getattr(torch, name)(x, dim=0)
        same(gv, wv, f"strided.{name}(t, dim=0) values")
        same(gi, wi, f"strided.{name}(t, dim=0) indices")
        gv, gi = getattr(t, name)(0, True)
        wv, wi = getattr(x, name)(0, True)
        same(gv, wv, f"{name}(0, True)")
        same(gi, wi, f"{name}(0, True) indices")
    same(t.max(t[::-1]), torch.max(x, x.flip(0)), "max(other)")
    same(t.sum(1, True), x.sum(1, True), "sum(1, True)")
    same(t.argmax(1, True), x.argmax(1, True), "argmax(1, True)")
    for name in ("var", "std"):
        for fn in (getattr(t, name), lambda *a, _n=name, **k: getattr(strided, _n)(t, *a, **k)):
            same(fn(dim=0), getattr(x, name)(dim=0), f"{name}(dim=0): torch's correction 1")
            same(fn(dim=1, keepdim=True), getattr(x, name)(dim=1, keepdim=True), f"{name} keepdim")
        same(getattr(t, name)(1, False, True), getattr(x, name)(1, False, True), f"{name}(1, F, T)")
    gv, gi = t.sort(dim=0, descending=True)
    wv, wi = x.sort(dim=0, descending=True, stable=True)
    same(gv, wv, "sort(dim=0, descending=True)")
    same(gi, wi, "sort indices")
    same(t.sort(1, True).values, x.sort(1, True).values, "sort(1, True)")
    same(t.argsort(0, True), x.argsort(dim=0, descending=True, stable=True), "argsort(0, True)")
    m = t > 0
    same(m.nonzero(as_tuple=False), (x > 0).nonzero(), "nonzero(as_tuple=False)")
    same(t.repeat(2, 1, 3), x.repeat(2, 1, 3), "repeat(2, 1, 3): tiled")
    same(t.repeat(1, 2), x.repeat(1, 2), "repeat(1, 2): axis 2 of 2-D is no axis, tiled")
    same(t.transpose(dim0=0, dim1=1), x.transpose(0, 1), "transpose(dim0=, dim1=)")
    b = rng.standard_normal((2, 3, 4))
    same(strided.asarray(b).transpose(0, 2), torch.tensor(b).transpose(0, 2), "3-D transpose")


def test_collision_bad_calls_name_the_argument():
    t = strided.zeros((2, 3))
    with pytest.raises(TypeError, match=r"sum\(\) takes at most 4 positional"):
        t.sum(0, None, None, False, 1)
    with pytest.raises(TypeError, match="multiple values for argument 'axis'"):
        t.max(0, axis=1)
    with pytest.raises(TypeError, match="order="):
        t.sort(order="x")
    with pytest.raises(ValueError, match="axis=None"):
        t.sort(axis=None)
    with pytest.raises(TypeError, match="dim0= and dim1="):
        t.transpose(dim0=0)
    with pytest.raises(TypeError, match="casting"):
        t.clip(0, 1, casting="unsafe")  # a NumPy keyword strided lacks: named, never dropped
    with pytest.raises(IndexError, match="out of bounds"):
        t.item(6)


def test_numpy_creation_and_view_spellings():
    # zeros(3, int): a type object second is NumPy's dtype, never a size (Note [shape, three
    # ways]); *_like take NumPy's positional dtype and shape=; permute_dims(x) reverses;
    # diagonal takes NumPy's axis1=/axis2= and PyTorch's dim1=/dim2=
    for fn in ("zeros", "ones", "empty"):
        for dtype in (int, float, bool, np.float32):
            got, want = getattr(strided, fn)(3, dtype), getattr(np, fn)(3, dtype)
            assert got.shape == want.shape and np.asarray(got).dtype == want.dtype, (fn, dtype)
    for layout, t, ref in _pairs((2, 3, 4), strided.float64, np.random.default_rng(0)):
        if ref.ndim != 3:
            continue
        for fn in ("zeros_like", "ones_like", "empty_like"):
            for shape in (5, (2, 0), ()):
                got = getattr(strided, fn)(t, "int32", shape=shape)
                want = getattr(np, fn)(ref, "int32", shape=shape)
                assert got.shape == want.shape and np.asarray(got).dtype == want.dtype, fn
        _same(strided.full_like(t, 7, shape=(2,)), np.full_like(ref, 7, shape=(2,)), "full_like")
        _same(strided.permute_dims(t), np.permute_dims(ref), f"permute_dims() {layout}")
        want = ref.diagonal(1, axis1=2, axis2=0)
        _same(t.diagonal(1, axis1=2, axis2=0), want, f"diagonal(axis1=, axis2=) {layout}")
        _same(t.diagonal(1, dim1=2, dim2=0), want, f"diagonal(dim1=, dim2=) {layout}")
        _same(t.diagonal(1, 2, 0), want, f"diagonal(offset, axis1, axis2) {layout}")


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.parametrize("dtype", ("int8", "int64", "uint16", "bool", "float32"))
def test_reciprocal_of_integers_is_numpys(dtype, rng):
    # Note [Integer reciprocal]: NumPy keeps the integer dtype (1, -1 or 0); PyTorch's float
    # reciprocal is 1 / x (divide); a zero divides by zero, reported as errstate says
    ref = rng.integers(-3, 4, (3, 4)).astype(dtype)
    for layout, t, a in layouts(ref, rng):
        a = np.asarray(a)
        for got in (strided.reciprocal(t), t.reciprocal(), np.reciprocal(t)):
            want = np.reciprocal(a)
            if a.size and dtype != "float32":  # NumPy's integer 1 / 0 is undefined: 0 here
                want = np.where(a == 0, 0, want).astype(want.dtype)
            _same(got, want, f"reciprocal {dtype} {layout}")
    if dtype != "float32":
        with pytest.raises(FloatingPointError, match="divide by zero encountered in reciprocal"):
            with strided.errstate(divide="raise"):
                strided.reciprocal(strided.asarray([1, 0], dtype=dtype))
