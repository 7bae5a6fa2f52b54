"""No floating-point warning where NumPy gives none (Note [Fix-up passes] in unary.pyx.tp).

The vectorised functions (strided/_cpu/vecmath.h) are compiled with -fno-trapping-math, which
lets the compiler compute both sides of a select in every lane: an expression meant only for
subnormal inputs then runs on every input too, and if it can raise a flag (a signalling NaN
made from a normal input's bits, an overflowing multiply), strided warns "invalid value" or
"overflow" on ordinary inputs. Float32 and float64 log did, on every call. Each function is
swept here over its domain, from subnormals to the largest finite values, both signs where
they are allowed: where NumPy is silent, strided must be too, and the values must agree.
"""

import math
import warnings

import numpy as np
import pytest

import strided

TINY = {np.float32: 1e-45, np.float64: 5e-324}


def _magnitudes(dtype, rng, n=4096):
    """|x| spread over every binade of the dtype: subnormals, normals, the largest finite."""
    info = np.finfo(dtype)
    lo, hi = np.log2(TINY[dtype]), np.log2(float(info.max))
    x = np.exp2(rng.uniform(lo, hi, n)).astype(dtype)
    extra = [TINY[dtype], info.smallest_normal, 0.5, 1.0, 2.0, 2.5, 15.0, info.max]
    return np.concatenate([x, np.array(extra, dtype=dtype)])


def _below(m, limit):
    """The magnitudes under ``limit`` times the log of the dtype's largest value: where exp,
    exp2, sinh and cosh do not overflow."""
    return m[m < limit * np.log(float(np.finfo(m.dtype).max))]


# function: which inputs are in its domain (NumPy silent there)
DOMAINS = {
    "exp": lambda m: np.concatenate([_below(m, 0.99), -m]),
    "exp2": lambda m: np.concatenate([_below(m, 1.4), -m]),
    "expm1": lambda m: np.concatenate([_below(m, 0.99), -m]),
    "log": lambda m: m,
    "log2": lambda m: m,
    "log10": lambda m: m,
    "log1p": lambda m: np.concatenate([m, -m[m < 1]]),
    "sqrt": lambda m: m,
    "cbrt": lambda m: np.concatenate([m, -m]),
    "sin": lambda m: np.concatenate([m, -m]),
    "cos": lambda m: np.concatenate([m, -m]),
    "tan": lambda m: np.concatenate([m, -m]),
    "arcsin": lambda m: np.concatenate([m[m <= 1], -m[m <= 1]]),
    "arccos": lambda m: np.concatenate([m[m <= 1], -m[m <= 1]]),
    "arctan": lambda m: np.concatenate([m, -m]),
    "sinh": lambda m: np.concatenate([_below(m, 0.99), -_below(m, 0.99)]),
    "cosh": lambda m: np.concatenate([_below(m, 0.99), -_below(m, 0.99)]),
    "tanh": lambda m: np.concatenate([m, -m]),
    "arcsinh": lambda m: np.concatenate([m, -m]),
    "arccosh": lambda m: m[m >= 1],
    "arctanh": lambda m: np.concatenate([m[m < 1], -m[m < 1]]),
    # NumPy has neither (float32 erfc is subnormal from x = 9.2 on and 0 from 10.06)
    "erf": lambda m: np.concatenate([m, -m]),
    "erfc": lambda m: np.concatenate([m, -m]),
}


def _reference(name):
    """np.<name>, or Python's math.erf and math.erfc in float64 for erf and erfc (NumPy has
    neither; SciPy's float64 erfc is ~10 ulp off in the tail, the C library's within 1)."""
    if hasattr(np, name):
        return getattr(np, name)
    fn = np.vectorize(getattr(math, name), otypes=[np.float64])
    return lambda x: fn(x.astype(np.float64)).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_no_warning_where_numpy_gives_none(name, dtype):
    rng = np.random.default_rng(abs(hash((name, dtype.__name__))) % 2**32)
    x = DOMAINS[name](_magnitudes(dtype, rng)).astype(dtype)
    x = x[rng.permutation(len(x))]  # every lane of a vector sees every kind of input
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = _reference(name)(x)  # (NumPy is silent here: this is the domain)
        got = getattr(strided, name)(strided.asarray(x))
    # erf's and erfc's references are rounded from float64: a few steps of the subnormals
    # apart (tests/test_vecmath_accuracy.py measures their ulps against an oracle); NumPy's
    # own are a step apart at the bottom (its float32 exp2(-149.9093) is 0, where 2^x is
    # 7.5e-46, above half the smallest subnormal: strided's 1e-45 is the rounded value)
    np.testing.assert_allclose(
        np.asarray(got),
        want,
        rtol=4 * np.finfo(dtype).eps,
        atol=TINY[dtype] if hasattr(np, name) else 4 * TINY[dtype],
        equal_nan=True,
    )
