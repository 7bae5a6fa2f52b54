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
