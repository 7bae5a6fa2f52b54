"""pow by one scalar integer exponent (strided/_cpu/intpow.h, Note [Integer powers by a scalar
exponent]): complex results are NumPy's bits, at every CPU level; real results are pow's
correctly rounded value, with pow's special values and floating-point warnings."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
from layouts import LAYOUTS, make_layout

import strided
from strided._cpu import _build, cpu_dispatch

nan, inf = np.nan, np.inf
EXPONENTS = [-99, -7, -3, -2, -1, 0, 1, 2, 3, 4, 5, 17, 99, 3.0, -2.0]


def _complex_values(dtype, n=620):
    """n values over more than two of the loops' blocks: random ones, then zeros of every sign,
    infinities and NaNs in either part."""
    rng = np.random.default_rng(7)
    v = rng.standard_normal(n) * 2 + 1j * rng.standard_normal(n) * 2
    special = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), complex(inf, 0),
               complex(0, -inf), complex(nan, 1), complex(1, nan), complex(inf, nan), 1 + 2j,
               complex(1e30, 1e30), complex(1e-30, -1e-30), -1 + 0j, 1j]  # fmt: skip
    v[: len(special)] = special
    return v.astype(dtype)


def _same_bits(got, want):
    """Every part equal, signs of zeros included, or both NaN."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    parts = [(got.real, want.real), (got.imag, want.imag)] if got.dtype.kind == "c" else [
        (got, want)
    ]  # fmt: skip
    for g, w in parts:
        same = ((g == w) & (np.signbit(g) == np.signbit(w))) | (np.isnan(g) & np.isnan(w))
        assert same.all(), (got[~same][:5], want[~same][:5])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", EXPONENTS, ids=repr)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_integer_powers_are_numpys_bits(dtype, n, layout):
    pair = make_layout(layout, _complex_values(dtype).reshape(20, 31))
    if pair is None:
        return
    t, a = pair
    with np.errstate(all="ignore"):
        want = np.power(a, n)
    _same_bits(strided.pow(t, n), want)
    _same_bits(t**n, want)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_in_place_and_a_complex_exponent(dtype):
    a = _complex_values(dtype)
    t = strided.asarray(a.copy())
    strided.pow(t, 3, out=t)  # out is the input itself
    _same_bits(t, np.power(a, 3))
    _same_bits(strided.pow(strided.asarray(a), 3 + 0j), np.power(a, 3 + 0j))
    # beyond the fast path: NumPy's cpow, to the C library's last bits
    for b in (100, 2.5, 1 + 1j):
        with np.errstate(all="ignore"):
            want = np.power(a[20:], b)
        np.testing.assert_allclose(np.asarray(strided.pow(strided.asarray(a[20:]), b)), want,
                                   rtol=1e-5 if dtype == "complex64" else 1e-12)  # fmt: skip


def _rounded(x, n, dtype):
    """x ** n exactly, rounded once to dtype (to nearest, ties to even)."""
    exact = Fraction(float(x)) ** n
    r = np.array(float(exact), dtype=dtype)[()]  # float64: correctly rounded
    if dtype == "float64":
        return r
    down, up = np.nextafter(r, np.float32(-inf)), np.nextafter(r, np.float32(inf))
    return min(
        (down, r, up), key=lambda c: (abs(Fraction(float(c)) - exact), int(c.view(np.uint32)) & 1)
    )


@pytest.mark.parametrize("n", [3, 4, 7, -2, -3, 17, 99, -99])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_real_integer_powers_are_correctly_rounded(dtype, n):
    rng = np.random.default_rng(abs(n))
    limit = (900 if dtype == "float64" else 120) / abs(n)
    x = (np.exp2(rng.uniform(-limit, limit, 300)) * rng.choice([-1, 1], 300)).astype(dtype)
    got = np.asarray(strided.pow(strided.asarray(x), n))
    want = np.array([_rounded(v, n, dtype) for v in x], dtype=dtype)
    np.testing.assert_array_equal(got, want)


REAL_SPECIAL = [0.0, -0.0, inf, -inf, nan, 5e-324, -1e-310, 1e-200, 1e200, -1e300, 1.5e-45,
                3e38, 1.0, -1.0, 2.0, 0.5, 1e-20, -1e20]  # fmt: skip


@pytest.mark.parametrize("n", EXPONENTS, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_real_special_values_and_warnings_are_pows(dtype, n):
    with np.errstate(all="ignore"):
        a = np.array(REAL_SPECIAL, dtype=dtype)
    t = strided.asarray(a)
    # values: pow's (exact at these points) for every layout
    for layout in LAYOUTS:
        pair = make_layout(layout, a.reshape(3, 6))
        if pair is not None:
            with np.errstate(all="ignore"), strided.errstate(all="ignore"):
                _same_bits(strided.pow(pair[0], n), np.power(pair[1], n))
    # warnings: one element at a time, so that each flag is pow's own
    for i in range(len(a)):
        with warnings.catch_warnings(record=True) as w_np:
            warnings.simplefilter("always")
            np.power(a[i : i + 1], n)
        with warnings.catch_warnings(record=True) as w_st:
            warnings.simplefilter("always")
            strided.pow(t[i : i + 1], n)
        assert sorted(str(w.message) for w in w_st) == sorted(str(w.message) for w in w_np), (
            a[i],
            n,
        )


needs_lower_levels = pytest.mark.skipif(
    _build.MARCH != "dispatch" or cpu_dispatch.cpu_level < 3,
    reason="one build, or no lower level to force",
)


def run_at_level(level, script):
    """Run ``script`` in a fresh interpreter whose kernels are those of CPU ``level`` (2, 3);
    it prints ok when its checks hold."""
    env = dict(os.environ, STRIDED_CPU_FEATURES=cpu_dispatch.LEVELS[level])
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr


@needs_lower_levels
@pytest.mark.parametrize("level", [2, 3])
def test_every_cpu_level_gives_numpys_bits(level):
    # x86-64-v3 and up have fused multiply-adds; NumPy's loop does not fuse (intpow.h)
    script = (
        "import numpy as np, strided as st\n"
        "rng = np.random.default_rng(3)\n"
        "for dt in ('complex64', 'complex128'):\n"
        "    a = (rng.standard_normal(5000) + 1j * rng.standard_normal(5000)).astype(dt)\n"
        "    for n in (2, 3, 4, 7, -1, -3, 17):\n"
        "        g = np.asarray(st.pow(st.asarray(a), n)).view(a.real.dtype)\n"
        "        w = np.power(a, n).view(a.real.dtype)\n"
        "        assert (g == w).all(), (dt, n)\n"
        "print('ok')\n"
    )
    run_at_level(level, script)
