"""Accuracy and special cases of the vectorised binary functions (issue 20; Note [Vectorised
binary functions] in strided/_cpu/vecmath.h): float32 atan2, pow, logaddexp and hypot,
float64 atan2, logaddexp, hypot and pow.

The oracle is NumPy's function in float64 (within an ulp of float64, 2^-29 of a float32 ulp).
Arguments: random bit patterns (every exponent, both signs, subnormals, inf and NaN), sweeps of
the ranges where each function is interesting, and every pair of special values, whose results
must be NumPy's exactly (the fix-up pass gives them to the C library). The error of a result is
|got - want| / ulp(want rounded to float32); for logaddexp, whose result crosses zero where
max(a, b) + log1p(exp(-|a - b|)) cancels, the ulp is at least that of 2^-20 (the float64
oracle itself is only ~1e-16 absolute there).
"""

from __future__ import annotations

import numpy as np
import pytest

import strided

BOUND = 2.0  # ulps, the bound for float32 (measured: 0.50 for all three)

SPECIALS = np.array(
    [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, 1e-45, -1e-45, 3e38, -3e38]
    + [np.inf, -np.inf, np.nan],
    dtype=np.float32,
)


def _bits(rng, n):
    return rng.integers(0, 2**32 - 1, n, dtype=np.uint32, endpoint=True).view(np.float32)


def _arguments(name, n=1 << 19, seed=0):
    """(a, b): random bit patterns, the function's interesting ranges, all special pairs."""
    rng = np.random.default_rng(seed)
    a, b = [_bits(rng, 2 * n)], [_bits(rng, 2 * n)]
    if name == "arctan2":  # around the diagonal |y| = |x| and the axes, all four quadrants
        x = rng.uniform(-10, 10, n).astype(np.float32)
        a += [x, rng.uniform(-1e-3, 1e-3, n).astype(np.float32)]
        b += [(x * rng.uniform(0.9, 1.1, n)).astype(np.float32), x]
    if name == "power":  # bases near 1, results near overflow and in the subnormals
        a += [np.exp(rng.uniform(-20, 20, n)).astype(np.float32)]
        b += [rng.uniform(-30, 30, n).astype(np.float32)]
        a += [rng.uniform(0.5, 2.0, n).astype(np.float32)]
        b += [rng.uniform(-300, 300, n).astype(np.float32)]
        base = rng.uniform(1.5, 3.0, n).astype(np.float32)
        top = rng.uniform(-155, 130, n) / np.log2(base)  # 2^-155 .. 2^130
        a += [base]
        b += [top.astype(np.float32)]
        # negative bases with integer exponents (the sign of an odd one), up to 2^24 and past
        neg = -np.exp(rng.uniform(-5, 5, n)).astype(np.float32)
        near = -(1 + rng.uniform(-1e-6, 1e-6, n // 4)).astype(np.float32)
        a += [neg, near, near]
        b += [np.round(rng.uniform(-30, 30, n)).astype(np.float32)]
        b += [np.round(rng.uniform(-3e5, 3e5, n // 4)).astype(np.float32)]
        b += [rng.choice(np.float32([2**23 - 1, 2**23 + 1, 2**24 - 1, 2**24, 2**25 + 2]), n // 4)]
    if name == "logaddexp":  # the cancellation (near -ln 2) and far apart
        a += [
            rng.uniform(-2, 0, n).astype(np.float32),
            rng.uniform(-100, 100, n).astype(np.float32),
        ]
        b += [
            rng.uniform(-2, 0, n).astype(np.float32),
            rng.uniform(-100, 100, n).astype(np.float32),
        ]
    if name == "hypot":  # both sizes alike, and far apart
        a += [rng.uniform(-10, 10, n).astype(np.float32), _bits(rng, n)]
        b += [rng.uniform(-10, 10, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)]
    sa, sb = np.meshgrid(SPECIALS, SPECIALS)
    a.append(sa.ravel())
    b.append(sb.ravel())
    return np.concatenate(a), np.concatenate(b)


def _call(name, a, b):
    with strided.errstate(all="ignore"):
        return np.asarray(getattr(strided, name)(strided.asarray(a), strided.asarray(b)))


def _oracle(name, a, b, wide):
    """NumPy's function in the wider dtype and in a's own, and where the wider value is finite
    and within a's dtype's range (where an ulp error can be measured)."""
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a.astype(wide), b.astype(wide))
        want_np = getattr(np, name)(a, b)
    finite = np.isfinite(want) & (np.abs(want) <= np.finfo(a.dtype).max)
    return want, want_np, finite


def _check(name, a, b, got, oracle, err, bound, n_special):
    """The ulp error ``err`` (over the finite points of ``oracle``) within ``bound``; what the
    oracle cannot measure (inf, NaN, overflow to inf) NumPy's exactly, and so the last
    ``n_special`` pairs (the specials) with a zero, an infinity or a NaN (the C library's
    cases; the others are within the bound: NumPy's own atan2(1, 1e-45) is an ulp below
    pi/2), and the signs of zeros."""
    want, want_np, finite = oracle
    worst = int(np.argmax(err))
    i = np.flatnonzero(finite)[worst]
    assert err[worst] <= bound, (
        f"{name}: {err[worst]:.3f} ulp at a={a[i]!r}, b={b[i]!r}: got {got[i]!r}, want {want[i]!r}"
    )
    np.testing.assert_array_equal(got[~finite], want_np[~finite])
    sa, sb = a[-n_special:], b[-n_special:]
    edge = ~np.isfinite(sa) | ~np.isfinite(sb)
    if name not in ("logaddexp", "hypot"):  # (whose zeros are ordinary arguments)
        edge |= (sa == 0) | (sb == 0)
    np.testing.assert_array_equal(got[-n_special:][edge], want_np[-n_special:][edge])
    zeros = want_np == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want_np[zeros]))


@pytest.mark.parametrize("name", ["arctan2", "power", "logaddexp", "hypot"])
def test_ulp_error_and_special_values(name):
    a, b = _arguments(name)
    got = _call(name, a, b)
    want, want_np, finite = _oracle(name, a, b, np.float64)
    w = want[finite]
    floor = 2.0**-20 if name == "logaddexp" else 0.0
    with np.errstate(all="ignore"):
        ulp = np.spacing(np.maximum(np.abs(w), floor).astype(np.float32)).astype(np.float64)
    err = np.abs(got[finite].astype(np.float64) - w) / ulp
    _check(name, a, b, got, (want, want_np, finite), err, BOUND, SPECIALS.size**2)


SPECIALS64 = np.concatenate(
    [SPECIALS.astype(np.float64), [5e-324, -5e-324, 2.2e-308, 1e-300, 1e300, -1.7e308, 1e-200]]
)


def _arguments64(name, n=1 << 20, seed=0):
    """float64 (a, b): random bit patterns, the ranges where each function is interesting (the
    diagonal and the axes for atan2, every band of its reduction), and every special pair."""
    rng = np.random.default_rng(seed)
    bits = [rng.integers(0, 2**64 - 1, 2 * n, dtype=np.uint64, endpoint=True) for _ in "ab"]
    a, b = [bits[0].view(np.float64)], [bits[1].view(np.float64)]
    if name == "arctan2":
        x = rng.uniform(-10, 10, n)
        a += [x, rng.uniform(-1e-3, 1e-3, n), rng.uniform(-1, 1, n)]
        b += [x * rng.uniform(0.9, 1.1, n), x, rng.uniform(-1, 1, n)]
        tiny = np.exp2(rng.uniform(-1074, -900, n // 4)) * rng.choice([-1.0, 1.0], n // 4)
        a += [tiny, tiny * rng.uniform(0.5, 2.0, n // 4)]  # both small: the 2^100 scaling
        b += [tiny * rng.uniform(0.5, 2.0, n // 4), np.exp2(rng.uniform(-100, 990, n // 4))]
    if name == "hypot":  # alike, far apart, near overflow and in the subnormals
        for lo, hi in ((-10, 10), (-1e300, 1e300), (-1e-300, 1e-300)):
            a.append(rng.uniform(lo, hi, n))
            b.append(rng.uniform(lo, hi, n))
    if name == "logaddexp":  # the cancellation near -ln 2, far apart, past e^-746
        for lo, hi in ((-2, 0), (-100, 100), (-800, 800)):
            a.append(rng.uniform(lo, hi, n))
            b.append(rng.uniform(lo, hi, n))
    if name == "power":
        a_, b_ = _power_arguments64(rng, n)
        a += a_
        b += b_
    sa, sb = np.meshgrid(SPECIALS64, SPECIALS64)
    a.append(sa.ravel())
    b.append(sb.ravel())
    return np.concatenate(a), np.concatenate(b)


def _power_arguments64(rng, n):
    """float64 pow's hard cases: bases over every exponent (subnormals too) with exponents that
    put b log(a) anywhere in [-760, 720] (the normal results, their edges, the subnormal ones,
    beyond), bases near 1 with huge exponents (where log(a)'s relative error counts 745 times),
    both ends of the log's reduction interval [sqrt(2)/2, sqrt(2)), integer exponents on
    negative bases (odd and even, up to 2^53), tiny and huge exponents."""
    with np.errstate(all="ignore"):
        bits = rng.integers(0, 0x7FEFFFFFFFFFFFFF, n, dtype=np.uint64, endpoint=True)
        x = bits.view(np.float64)
        to = rng.uniform(-760, 720, n)
        a = [x, 1 + rng.uniform(-1e-6, 1e-6, n), 1 + rng.uniform(-0.3, 0.42, n)]
        b = [to / np.log(x), rng.uniform(-745, 709, n) / np.log(a[1]), None]
        b[2] = rng.uniform(-745, 709, n) / np.log(a[2])
        # the result's sign from an odd exponent, and the largest integers
        neg = -np.exp(rng.uniform(-5, 5, n))
        a += [neg, neg[: n // 4], -(1 + rng.uniform(-1e-12, 1e-12, n // 4))]
        b += [np.round(rng.uniform(-100, 100, n)), np.round(to[: n // 4] / np.log(-neg[: n // 4]))]
        b += [rng.choice([2.0**52 + 1, 2.0**52 + 2, 2.0**53 - 1, 2.0**53, 3.0 * 2**60], n // 4)]
        tiny = np.exp2(rng.uniform(-1074, -60, n // 4)) * rng.choice([-1.0, 1.0], n // 4)
        a += [np.exp(rng.uniform(-700, 700, n // 4)), np.exp(rng.uniform(-1e-12, 1e-12, n // 4))]
        b += [tiny, np.exp2(rng.uniform(50, 80, n // 4))]
    return a, b


def test_softplus_float64_ulp_error_and_special_values():
    """float64 softplus (strided_vsoftplus, Note [softplus in float64]; the C library from
    |x| = 700 on, in the loop's fix-up pass): within 1 ulp of logaddexp(x, 0) in long double
    (softplus is positive: no cancellation, no floor on the ulp), both sides of the fix-up
    pass's edge and the subnormal results below -708, and inf, NaN and the far tails as NumPy's
    logaddexp(x, 0)."""
    rng = np.random.default_rng(6)
    bits = rng.integers(0, 2**64 - 1, 1 << 20, dtype=np.uint64, endpoint=True).view(np.float64)
    x = np.concatenate([bits, rng.uniform(-760, 720, 1 << 19), rng.uniform(-3, 3, 1 << 18)])
    edge = np.nextafter(np.repeat([700.0, -700.0], 2), np.tile([0.0, np.inf], 2))
    x = np.concatenate([x, edge, -edge, rng.uniform(-750, -690, 1 << 14), SPECIALS64])
    got = np.asarray(strided.softplus(strided.asarray(x)))
    with np.errstate(all="ignore"):
        want = np.logaddexp(x.astype(np.longdouble), np.longdouble(0))
        finite = np.isfinite(want) & (want <= np.finfo(np.float64).max)
        w = want[finite]
        ulp = np.spacing(w.astype(np.float64)).astype(np.longdouble)
        err = (np.abs(got[finite].astype(np.longdouble) - w) / ulp).astype(np.float64)
        want_rest = np.logaddexp(x[~finite], 0.0)
    assert err.max() <= 1.0, x[finite][np.argmax(err)]
    np.testing.assert_array_equal(got[~finite], want_rest)


@pytest.mark.parametrize(
    "name,dtype,top", [("softplus", "float64", 800.0), ("sigmoid", "float32", 120.0)]
)
def test_unary_fixup_layouts(name, dtype, top):
    """The fix-up pass of float64 softplus (Note [softplus in float64]: |x| >= 700) and float32
    sigmoid (Note [sigmoid within 2 ulp]: |x| >= 87) on every layout: out apart from x (the
    vector pass writes out), out = x (through a block), out overlapping x one element behind,
    strided, negative strides, transposed, expanded, 0-d and empty, each against the
    contiguous result, with hard elements (inf, NaN, beyond the edge) among the rest."""
    rng = np.random.default_rng(3)
    fn = getattr(strided, name)
    x = rng.uniform(-top, top, 3000).astype(dtype)
    x[::97] = np.inf
    x[1::97] = -np.inf
    x[2::97] = np.nan
    want = np.asarray(fn(strided.asarray(x)))
    t = strided.asarray(np.repeat(x, 2))
    np.testing.assert_array_equal(np.asarray(fn(t[::2])), want)
    np.testing.assert_array_equal(np.asarray(fn(t[::-2])), want[::-1])
    m = strided.asarray(x.reshape(50, 60))
    np.testing.assert_array_equal(np.asarray(fn(m.T)), want.reshape(50, 60).T)
    inplace = strided.asarray(x.copy())
    fn(inplace, out=inplace)
    np.testing.assert_array_equal(np.asarray(inplace), want)
    shifted = strided.asarray(np.concatenate([[0.0], x]).astype(dtype))
    fn(shifted[1:], out=shifted[:-1])  # out overlapping x, one element behind
    np.testing.assert_array_equal(np.asarray(shifted)[:-1], want)
    e = strided.broadcast_to(strided.asarray(x[:7]), (5, 7))
    np.testing.assert_array_equal(np.asarray(fn(e)), np.broadcast_to(want[:7], (5, 7)))
    for v in (-top + 1, top - 100, np.nan):
        np.testing.assert_array_equal(
            np.asarray(fn(strided.asarray(np.asarray(v, dtype)))),
            np.asarray(fn(strided.asarray(np.asarray([v], dtype))))[0],
        )
    assert np.asarray(fn(strided.asarray(np.empty(0, dtype)))).shape == (0,)


@pytest.mark.parametrize("name", ["arctan2", "logaddexp", "hypot", "power"])
def test_float64_ulp_error_and_special_values(name):
    """float64 within 1 ulp of NumPy's function in long double (the C library's x87 functions:
    11 more bits), and NumPy's values exactly where the C library takes over (zeros, inf, NaN).
    logaddexp's ulp is at least that of 1/16: nearer zero max + log1p(...) cancels, and the
    vector code's absolute error (below 1e-17) is a few ulps of the result there (NumPy's
    own: 7 ulps at 1/16, 59 at 1/128)."""
    a, b = _arguments64(name)
    got = _call(name, a, b)
    want, want_np, finite = _oracle(name, a, b, np.longdouble)
    w = want[finite]
    floor = 1 / 16 if name == "logaddexp" else 0.0
    with np.errstate(all="ignore"):
        ulp = np.spacing(np.maximum(np.abs(w), floor).astype(np.float64)).astype(np.longdouble)
        err = (np.abs(got[finite].astype(np.longdouble) - w) / ulp).astype(np.float64)
    _check(name, a, b, got, (want, want_np, finite), err, 1.0, SPECIALS64.size**2)


@pytest.mark.parametrize("name", ["arctan2", "logaddexp", "hypot", "power"])
def test_float64_layouts(name):
    """The float64 fix-up loops: strided views, a scalar on either side, out= an input."""
    a, b = _arguments64(name, n=1 << 10, seed=1)
    a, b = a[: 1 << 12], b[: 1 << 12]
    fn = getattr(strided, name)
    want = _call(name, a, b)
    with strided.errstate(all="ignore"):
        wa, wb = strided.asarray(np.repeat(a, 2)), strided.asarray(np.repeat(b, 3))
        np.testing.assert_array_max_ulp(np.asarray(fn(wa[::2], wb[::3])), want, maxulp=1)
        for k in (0, 7, 100, 1500):
            got = np.asarray(fn(strided.asarray(a), float(b[k])))
            np.testing.assert_array_equal(got, _call(name, a, np.full_like(a, b[k])))
            got = np.asarray(fn(float(a[k]), strided.asarray(b)))
            np.testing.assert_array_equal(got, _call(name, np.full_like(b, a[k]), b))
        inplace = strided.asarray(a.copy())
        fn(inplace, strided.asarray(b), out=inplace)
    np.testing.assert_array_equal(np.asarray(inplace), want)


@pytest.mark.parametrize("name", ["arctan2", "power", "logaddexp", "hypot"])
def test_layouts(name):
    """Strided views, a scalar on either side and out= an input give the contiguous values
    (the fix-up pass reads the inputs again after the vector pass wrote the block)."""
    a, b = _arguments(name, n=1 << 10, seed=1)
    a, b = a[: 1 << 12], b[: 1 << 12]
    want = _call(name, a, b)
    with strided.errstate(all="ignore"):
        fn = getattr(strided, name)
        wa, wb = strided.asarray(np.repeat(a, 2)), strided.asarray(np.repeat(b, 3))
        np.testing.assert_array_max_ulp(np.asarray(fn(wa[::2], wb[::3])), want, maxulp=1)
        for k in (0, 7, 100, 1500):  # a special value among them: the fix-up on a broadcast
            got = np.asarray(fn(strided.asarray(a), float(b[k])))
            with np.errstate(all="ignore"):
                ref = np.asarray(fn(strided.asarray(a), strided.asarray(np.full_like(a, b[k]))))
            np.testing.assert_array_equal(got, ref)
            got = np.asarray(fn(float(a[k]), strided.asarray(b)))
            ref = np.asarray(fn(strided.asarray(np.full_like(b, a[k])), strided.asarray(b)))
            np.testing.assert_array_equal(got, ref)
        inplace = strided.asarray(a.copy())
        fn(inplace, strided.asarray(b), out=inplace)
    np.testing.assert_array_equal(np.asarray(inplace), want)
    # both operands constant along the loop: a scalar and an expanded tensor, so the 1-D loop
    # sees two zero strides (np.angle's arctan2(0, x) of a broadcast x once read past them)
    for k in (0, 7, 100):
        for av, bv in ((float(a[k]), b[k : k + 1]), (a[k : k + 1], float(b[k]))):
            wide = [strided.asarray(v).expand(3, 1000) if not isinstance(v, float) else v
                    for v in (av, bv)]  # fmt: skip
            with strided.errstate(all="ignore"), np.errstate(all="ignore"):
                got = np.asarray(fn(*wide))
                ref = _call(name, np.asarray(av, np.float32), np.asarray(bv, np.float32))
                want_k = np.broadcast_to(ref.reshape(-1)[:1], (3, 1000))
            np.testing.assert_array_max_ulp(got, want_k.astype(got.dtype), maxulp=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["arctan2", "power"])
def test_fixup_out_apart_or_aliasing(name, dtype):
    """The fix-up loops write out directly when out is apart from both inputs and go through
    the block when out is one of them (Note [Fix-up passes] in unary.pyx.tp): out = a, out = b,
    out = a = b, an operand with stride 0 (a scalar, an expanded row), out overlapping an input
    one element off (a temporary), strided, negative-stride and transposed views, 0-d and
    empty, with hard elements (the C library's: inf, NaN, zeros, negative bases) in every
    block, all against the values computed with out apart."""
    rng = np.random.default_rng(4)
    n = 1000  # four blocks, the last partial
    a = rng.uniform(-4, 4, n).astype(dtype)
    b = rng.uniform(-4, 4, n).astype(dtype)
    a[::53], b[5::61], a[9::67], b[11::71] = np.inf, np.nan, 0.0, -0.0
    fn = getattr(strided, name)
    with strided.errstate(all="ignore"), np.errstate(all="ignore"):
        want = _call(name, a, b)
        fresh = strided.empty(n, dtype=dtype)  # out apart: the direct writes
        fn(strided.asarray(a), strided.asarray(b), out=fresh)
        np.testing.assert_array_equal(np.asarray(fresh), want)
        for which in ("a", "b", "ab"):
            ta, tb = strided.asarray(a.copy()), strided.asarray(b.copy())
            if which == "ab":
                ta = tb = strided.asarray(a.copy())
            out = ta if which != "b" else tb
            fn(ta, tb, out=out)
            ref = _call(name, a, a) if which == "ab" else want
            np.testing.assert_array_equal(np.asarray(out), ref)
        for k in (0, 53, 61):  # a scalar operand, hard or not; out = the other operand
            ta = strided.asarray(a.copy())
            fn(ta, float(b[k]), out=ta)
            np.testing.assert_array_equal(np.asarray(ta), _call(name, a, np.full_like(a, b[k])))
            tb = strided.asarray(b.copy())
            fn(float(a[k]), tb, out=tb)
            np.testing.assert_array_equal(np.asarray(tb), _call(name, np.full_like(b, a[k]), b))
            row = strided.asarray(b[k : k + 1]).expand(n)  # stride 0, out apart
            got = np.asarray(fn(strided.asarray(a), row))
            np.testing.assert_array_equal(got, _call(name, a, np.full_like(a, b[k])))
        both = strided.asarray(np.concatenate([[0], a]).astype(dtype))
        fn(both[1:], strided.asarray(b), out=both[:-1])  # out one element behind a
        np.testing.assert_array_equal(np.asarray(both)[:-1], want)
        wa, wb = strided.asarray(np.repeat(a, 2)), strided.asarray(np.repeat(b, 3))
        np.testing.assert_array_equal(np.asarray(fn(wa[::2], wb[::3])), want)
        ra, rb = strided.asarray(a[::-1].copy()), strided.asarray(b[::-1].copy())
        np.testing.assert_array_equal(np.asarray(fn(ra[::-1], rb[::-1])), want)
        ma, mb = strided.asarray(a.reshape(20, 50)), strided.asarray(b.reshape(20, 50))
        got = strided.empty((50, 20), dtype=dtype)
        fn(ma.T, mb.T, out=got)
        np.testing.assert_array_equal(np.asarray(got), want.reshape(20, 50).T)
        zero_d = fn(strided.asarray(a[53]), strided.asarray(b[0]))  # inf: a hard element
        np.testing.assert_array_equal(np.asarray(zero_d), _call(name, a[53:54], b[0:1])[0])
        empty = strided.empty(0, dtype=dtype)
        assert np.asarray(fn(empty, empty, out=empty)).shape == (0,)


_POW_FLAGS = [
    # (base, exponent, NumPy's warning or None)
    (2.0, 200.0, "overflow"),
    (-2.0, 0.5, "invalid value"),
    (0.0, -1.0, "divide by zero"),
    (-8.0, 3.0, None),
    (np.nan, 0.0, None),
    (1.0, np.nan, None),
    (np.inf, -1.0, None),
    (3.0, 2.0, None),
]


_POW_FLAGS64 = [
    (2.0, 1100.0, "overflow"),
    (1.5, 1e70, "overflow"),
    (-2.0, 0.5, "invalid value"),
    (0.0, -1.0, "divide by zero"),
    (-0.0, -3.0, "divide by zero"),
    (-8.0, 3.0, None),
    (-8.0, 2.0**52 + 1, "overflow"),
    (np.nan, 0.0, None),
    (1.0, np.nan, None),
    (-1.0, np.inf, None),
    (np.inf, -1.0, None),
    (1.5, 1e-90, None),
    (1e-320, 0.5, None),
    (3.0, 2.0, None),
]


@pytest.mark.parametrize(
    "dtype,base,exponent,warning",
    [("float32", *f) for f in _POW_FLAGS] + [("float64", *f) for f in _POW_FLAGS64],
)
def test_pow_warns_as_numpy(dtype, base, exponent, warning):
    """pow is a checked op: the vector lanes raise nothing of their own, the fix-up pass's C
    library raises what NumPy raises (one special element among ordinary ones)."""
    a = np.full(1000, 1.5, dtype=dtype)
    b = np.full(1000, 0.75, dtype=dtype)
    a[500], b[500] = base, exponent
    with np.errstate(all="ignore"):
        want = np.power(a, b)
    with strided.errstate(all="raise", under="ignore"):
        if warning is None:
            got = strided.power(strided.asarray(a), strided.asarray(b))
        else:
            with pytest.raises(FloatingPointError, match=warning):
                strided.power(strided.asarray(a), strided.asarray(b))
            with strided.errstate(all="ignore"):
                got = strided.power(strided.asarray(a), strided.asarray(b))
    np.testing.assert_array_max_ulp(np.asarray(got), want, maxulp=1)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_rows_use_the_c_library_where_it_matters(dtype):
    """The half rows of pow and atan2 run the fix-up's C expression (negative bases, zeros)."""
    a = strided.asarray(np.array([-8.0, -2.0, 0.0, -0.0, 4.0], dtype=np.float32)).astype(dtype)
    b = strided.asarray(np.array([3.0, 0.5, -0.0, -1.0, 0.5], dtype=np.float32)).astype(dtype)
    with strided.errstate(all="ignore"):
        p = np.asarray(strided.power(a, b).astype("float32"))
        t = np.asarray(strided.arctan2(a, b).astype("float32"))
    with np.errstate(all="ignore"):
        af, bf = np.asarray(a.astype("float32")), np.asarray(b.astype("float32"))
        np.testing.assert_allclose(p, np.power(af, bf), rtol=1e-2)
        np.testing.assert_allclose(t, np.arctan2(af, bf), rtol=1e-2)
    np.testing.assert_array_equal(np.signbit(t), np.signbit(np.arctan2(af, bf)))


def test_pow_silent_where_numpy_is():
    """No flag from the vector lanes over pow's quiet domain (Note [Vectorised transcendental
    functions]'s rule; -fno-trapping-math lets the compiler compute both arms of a select)."""
    rng = np.random.default_rng(3)
    a = np.exp2(rng.uniform(-149, 127, 1 << 14)).astype(np.float32)
    b = (rng.uniform(-1, 1, 1 << 14) * 100 / np.abs(np.log2(a))).astype(np.float32)  # 2^+-100
    b[::7] = np.float32(0.0)
    b[::11] = np.float32(-0.0)
    a[::13] = np.float32(1.0)
    with strided.errstate(all="raise"):
        got = strided.power(strided.asarray(a), strided.asarray(b))
    np.testing.assert_array_max_ulp(np.asarray(got), np.power(a, b), maxulp=1)


def test_pow_float64_silent_where_numpy_is():
    """float64 pow's lanes raise nothing over its quiet domain either: bases over every normal
    exponent and negative ones with integer exponents, results up to 2^+-1000, zero, tiny and
    huge exponents of 1; and underflow is NumPy's where the result is subnormal."""
    rng = np.random.default_rng(4)
    a = np.exp2(rng.uniform(-1022, 1023, 1 << 14))
    b = rng.uniform(-1, 1, 1 << 14) * 1000 / np.abs(np.log2(a))
    a[::5] = -np.exp2(rng.uniform(-20, 20, a[::5].size))
    b[::5] = np.round(rng.uniform(-40, 40, a[::5].size))
    b[::7] = 0.0
    b[::11] = -0.0
    b[(np.arange(a.size) % 17 == 1) & (a > 0)] = 1e-300
    a[::13] = 1.0
    b[::13] = 1e300
    with strided.errstate(all="raise"):
        got = strided.power(strided.asarray(a), strided.asarray(b))
    np.testing.assert_array_max_ulp(np.asarray(got), np.power(a, b), maxulp=1)
    a = np.full(100, 2.0)
    a[50] = 0.5**1000
    with strided.errstate(under="raise"), pytest.raises(FloatingPointError, match="underflow"):
        strided.power(strided.asarray(a), 1.5)


def test_softplus_float32_is_logaddexp_with_zero():
    """float32 softplus (strided_vsoftplusf, Note [softplus in float lanes]) is logaddexp(x, 0):
    within the bound of log1p(e^x) in float64, inf, NaN and the far tails as NumPy's
    logaddexp(x, 0)."""
    rng = np.random.default_rng(5)
    x = np.concatenate(
        [_bits(rng, 1 << 20), rng.uniform(-120, 90, 1 << 19).astype(np.float32), SPECIALS]
    )
    got = np.asarray(strided.softplus(strided.asarray(x)))
    with np.errstate(all="ignore"):
        want = np.logaddexp(x.astype(np.float64), 0.0)
        finite = np.isfinite(want) & (want <= np.finfo(np.float32).max)
        ulp = np.spacing(want[finite].astype(np.float32)).astype(np.float64)
        want_rest = np.logaddexp(x[~finite], np.float32(0))
    err = np.abs(got[finite].astype(np.float64) - want[finite]) / ulp
    assert err.max() <= BOUND, x[finite][np.argmax(err)]
    np.testing.assert_array_equal(got[~finite], want_rest)
