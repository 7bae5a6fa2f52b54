"""Complex division and reciprocal with NumPy's roundings (strided/_cpu/cdivide.h, Note
[Complex division without fused multiply-adds]): NumPy's bits for every layout, broadcast and
scalar operand, special value and CPU level."""

from __future__ import annotations

import numpy as np
import pytest
from layouts import LAYOUTS, make_layout
from test_intpow import needs_lower_levels, run_at_level

import strided

nan, inf = np.nan, np.inf
SPECIAL = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), complex(inf, 0),
           complex(0, -inf), complex(nan, 1), complex(1, nan), complex(inf, inf), 1 + 2j,
           complex(1e300, 1e-300), complex(1e-300, -1e300), -1 + 0j, 1j, complex(3, 3),
           complex(-2, 2)]  # fmt: skip


def _values(dtype, seed, n=620):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3
    v[: len(SPECIAL)] = np.roll(SPECIAL, seed)
    with np.errstate(all="ignore"):
        return v.astype(dtype)


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        same = ((g == w) & (np.signbit(g) == np.signbit(w))) | (np.isnan(g) & np.isnan(w))
        assert same.all(), (got[~same][:5], want[~same][:5])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_division_is_numpys_bits(dtype, layout):
    a, b = _values(dtype, 0).reshape(20, 31), _values(dtype, 5).reshape(20, 31)
    pa, pb = make_layout(layout, a), make_layout(layout, b)
    if pa is None:
        return
    with np.errstate(all="ignore"), strided.errstate(all="ignore"):
        _same_bits(strided.divide(pa[0], pb[0]), np.divide(pa[1], pb[1]))
        _same_bits(pa[0] / pb[0], pa[1] / pb[1])
        for s in (1.5 - 2j, 0j, complex(0, -0.0), 3.0):
            _same_bits(strided.divide(pa[0], s), np.divide(pa[1], s))
            _same_bits(strided.divide(s, pb[0]), np.divide(s, pb[1]))
        row = pb[0][..., :1] if pb[0].ndim else pb[0]  # a broadcast divisor
        rown = pb[1][..., :1] if pb[1].ndim else pb[1]
        _same_bits(strided.divide(pa[0], row), np.divide(pa[1], rown))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_reciprocal_is_numpys_bits(dtype, layout):
    pair = make_layout(layout, _values(dtype, 3).reshape(20, 31))
    if pair is None:
        return
    with np.errstate(all="ignore"), strided.errstate(all="ignore"):
        _same_bits(strided.reciprocal(pair[0]), np.reciprocal(pair[1]))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_in_place_and_out(dtype):
    a, b = _values(dtype, 1), _values(dtype, 2)
    with np.errstate(all="ignore"), strided.errstate(all="ignore"):
        want = np.divide(a, b)
        t = strided.asarray(a.copy())
        strided.divide(t, strided.asarray(b), out=t)
        _same_bits(t, want)
        o = strided.empty((1240,), dtype=dtype)[::2]  # a stepped out=
        strided.divide(strided.asarray(a), strided.asarray(b), out=o)
        _same_bits(o, want)


@needs_lower_levels
@pytest.mark.parametrize("level", [2, 3])
def test_every_cpu_level_gives_numpys_bits(level):
    script = (
        "import numpy as np, strided as st\n"
        "rng = np.random.default_rng(3)\n"
        "for dt in ('complex64', 'complex128'):\n"
        "    a, b = (rng.standard_normal((2, 5000)) + 1j * rng.standard_normal((2, 5000)))\n"
        "    a, b = a.astype(dt), b.astype(dt)\n"
        "    g = np.asarray(st.divide(st.asarray(a), st.asarray(b)))\n"
        "    w = np.divide(a, b)\n"
        "    assert (g.real == w.real).all() and (g.imag == w.imag).all(), dt\n"
        "    g, w = np.asarray(st.reciprocal(st.asarray(a))), np.reciprocal(a)\n"
        "    assert (g.real == w.real).all() and (g.imag == w.imag).all(), dt\n"
        "print('ok')\n"
    )
    run_at_level(level, script)
