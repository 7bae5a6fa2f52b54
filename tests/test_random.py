"""Tests for strided/random.py and strided/_cpu/random.pyx: Philox4x32-10 against its published
known answers, the stream layout (which the CUDA backend must reproduce), reproducibility,
independence of the thread count, and statistical sanity on fixed seeds (so every check here is
deterministic: a bound that held once holds forever)."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest

import strided
from strided._cpu.random import philox
from strided.random import Generator

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture(autouse=True)
def _restore_default_generator():
    state = strided.random.get_state()
    yield
    strided.random.set_state(state)


def _np(t):
    return np.asarray(t)


# =============================================================================================
# Philox4x32-10: Random123's known-answer vectors (kat_vectors, philox4x32_10)
# =============================================================================================

KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize("counter, key, expected", KAT)
def test_philox_known_answers(counter, key, expected):
    assert philox(counter, key) == expected


def test_philox_rejects_wrong_lengths():
    with pytest.raises(ValueError, match="4 words"):
        philox((0, 0, 0), (0, 0))


# =============================================================================================
# The stream layout: element i of a draw from (seed, offset), as Note [Counter-based random
# numbers] documents it, recomputed in Python from the bare bijection
# =============================================================================================

SEED = 0x0123456789ABCDEF


def _block(seed, n):
    return philox((n & 0xFFFFFFFF, n >> 32, 0, 0), (seed & 0xFFFFFFFF, seed >> 32))


def _word64(lo, hi):
    return lo | (hi << 32)


def test_layout_uniform_float64():
    g = Generator(SEED)
    _ = g.random(3)  # uses blocks 0 and 1
    got = _np(g.random(5)).tolist()  # blocks 2, 3, 4
    want = []
    for i in range(5):
        r = _block(SEED, 2 + i // 2)
        k = i % 2
        want.append((_word64(r[2 * k], r[2 * k + 1]) >> 11) * 2.0**-53)
    assert got == want


def test_layout_uniform_float32():
    got = _np(Generator(SEED).random(6, dtype="float32")).tolist()
    want = [(_block(SEED, i // 4)[i % 4] >> 8) * 2.0**-24 for i in range(6)]
    assert got == want


def test_layout_normal_float64():
    got = _np(Generator(SEED).standard_normal(4))
    want = []
    for b in range(2):
        r = _block(SEED, b)
        u1 = ((_word64(r[0], r[1]) >> 11) + 1) * 2.0**-53
        u2 = (_word64(r[2], r[3]) >> 11) * 2.0**-53
        rad = math.sqrt(-2 * math.log(u1))
        want += [rad * math.cos(2 * math.pi * u2), rad * math.sin(2 * math.pi * u2)]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


@pytest.mark.skipif(
    np.finfo(np.longdouble).nmant < 63, reason="needs an 80-bit long double for the reference"
)
def test_normal_float64_is_accurate_to_a_few_ulps():
    # Note [Box-Muller math that vectorises]: the kernels' own log and sincos, against the
    # Box-Muller values of the same words in long double, in ulps of the radius (long double's
    # rounded angle is not exact enough to judge the relative error near the zeros of sin and
    # cos: mpmath puts the kernels within 3 ulps of the exact value there too)
    n = 4000
    got = _np(Generator(SEED).standard_normal(2 * n))
    words = np.array([_block(SEED, b) for b in range(n)], dtype=np.uint64)
    x = (words[:, 0] | (words[:, 1] << np.uint64(32))) >> np.uint64(11)
    y = (words[:, 2] | (words[:, 3] << np.uint64(32))) >> np.uint64(11)
    two53 = np.longdouble(2.0**53)
    rad = np.sqrt(-2 * np.log((x + np.uint64(1)).astype(np.longdouble) / two53))
    theta = np.longdouble("6.28318530717958647692528676655900577") * (
        y.astype(np.longdouble) / two53
    )
    want = np.stack([rad * np.cos(theta), rad * np.sin(theta)], axis=1).ravel()
    ulps = np.abs(got - want) / np.spacing(np.repeat(rad.astype(np.float64), 2))
    assert ulps.max() <= 2, ulps.max()


@pytest.mark.skipif(
    np.finfo(np.longdouble).nmant < 63, reason="needs an 80-bit long double for the reference"
)
def test_normal_float32_layout_and_rounding():
    # Note [Box-Muller]: two pairs a block, (r0, r1) and (r2, r3), 24-bit uniforms, computed in
    # double with the float64 draw's log and sincos and rounded to float once: against the same
    # words in long double, each value is the float nearest the exact one but where the double
    # steps' own error (a few 2**-53) decides a rounding, and then the other neighbour
    n = 4001  # not a multiple of the 32 values one group of lanes makes
    got = _np(Generator(SEED).standard_normal(n, dtype="float32"))
    assert got.dtype == np.float32
    words = np.array([_block(SEED, b) for b in range((n + 3) // 4)], dtype=np.uint64)
    u1 = ((words[:, 0::2] >> np.uint64(8)) + np.uint64(1)).astype(np.longdouble) / 2**24
    turns = (words[:, 1::2] >> np.uint64(8)).astype(np.longdouble) / 2**24
    rad = np.sqrt(-2 * np.log(u1))
    theta = np.longdouble("6.28318530717958647692528676655900577") * turns
    want = np.stack([rad * np.cos(theta), rad * np.sin(theta)], axis=2).ravel()[:n]
    nearest = want.astype(np.float32)
    assert (got == nearest).mean() > 0.999
    assert np.all(np.abs(got.astype(np.longdouble) - want) <= np.spacing(np.abs(nearest)))
    # the tails that 24-bit uniforms allow: |z| <= sqrt(-2 log 2**-24) = 5.77
    assert np.abs(got).max() <= math.sqrt(-2 * math.log(2.0**-24))


def test_draws_are_prefixes_of_longer_draws():
    # the float64 kernels and the float32 normals make 8 blocks at a time and drop what is past
    # the end: a draw of n is the first n of any longer one, whatever n is modulo 16 (or 32)
    for draw in (
        lambda g, n: g.random(n),
        lambda g, n: g.standard_normal(n),
        lambda g, n: g.standard_normal(n, dtype="float32"),
    ):
        full = _np(draw(Generator(3), 80))
        for n in range(80):
            assert _np(draw(Generator(3), n)).tobytes() == full[:n].tobytes()


def test_layout_integers():
    got = _np(Generator(SEED).integers(-5, 1000, size=4)).tolist()
    want = []
    for i in range(4):
        r = _block(SEED, i // 2)
        x = _word64(r[2 * (i % 2)], r[2 * (i % 2) + 1])
        want.append(-5 + ((x * 1005) >> 64))
    assert got == want
    # ranges above 2**32 take all 128 bits of a block for each value
    got = _np(Generator(SEED).integers(0, 2**40 + 3, size=2)).tolist()
    want = []
    for i in range(2):
        r = _block(SEED, i)
        x = _word64(r[0], r[1]) | (_word64(r[2], r[3]) << 64)
        want.append((x * (2**40 + 3)) >> 128)
    assert got == want


@pytest.mark.parametrize(
    "draw, n, blocks",
    [
        (lambda g, n: g.random(n), 5, 3),
        (lambda g, n: g.random(n, dtype="float32"), 5, 2),
        (lambda g, n: g.random(n, dtype="complex128"), 5, 5),
        (lambda g, n: g.random(n, dtype="complex64"), 5, 3),
        (lambda g, n: g.standard_normal(n), 5, 3),
        (lambda g, n: g.standard_normal(n, dtype="float32"), 5, 2),
        (lambda g, n: g.integers(10, size=n), 5, 3),
        (lambda g, n: g.integers(2**33, size=n), 5, 5),
        (lambda g, n: g.permutation(n), 5, 3),
        (lambda g, n: g.random(n), 0, 0),
    ],
)
def test_offset_advances_by_blocks_used(draw, n, blocks):
    g = Generator(1)
    draw(g, n)
    assert g.get_state() == ("philox4x32-10", 1, blocks)


def test_block_aligned_draws_concatenate():
    g = Generator(9)
    a, b = _np(g.random(4)), _np(g.random(6))
    assert np.array_equal(np.concatenate([a, b]), _np(Generator(9).random(10)))


# =============================================================================================
# Reproducibility, state, and independence of the thread count
# =============================================================================================

DRAWS = {
    "random_f64": lambda g, n: g.random(n),
    "random_f32": lambda g, n: g.random(n, dtype="float32"),
    "random_c64": lambda g, n: g.random(n, dtype="complex64"),
    "uniform": lambda g, n: g.uniform(-3.0, 7.0, n),
    "normal_f64": lambda g, n: g.normal(1.0, 2.0, n),
    "normal_f32": lambda g, n: g.standard_normal(n, dtype="float32"),
    "normal_c128": lambda g, n: g.standard_normal(n, dtype="complex128"),
    "int64": lambda g, n: g.integers(-100, 100, n),
    "int64_wide": lambda g, n: g.integers(-(2**62), 2**62, n),
    "uint8": lambda g, n: g.integers(0, 256, n, dtype="uint8"),
    "bool": lambda g, n: g.integers(0, 2, n, dtype="bool"),
}


@pytest.mark.parametrize("name", list(DRAWS))
def test_same_seed_same_numbers(name):
    draw = DRAWS[name]
    a, b = _np(draw(Generator(123), 1000)), _np(draw(Generator(123), 1000))
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != _np(draw(Generator(124), 1000)).tobytes()


@pytest.mark.parametrize("name", list(DRAWS))
def test_thread_count_does_not_change_results(name):
    draw = DRAWS[name]
    n = 10**6 + 3  # not a multiple of anything: the last block is partial
    results = []
    for threads in (1, 2, 3):
        strided.set_num_threads(threads)
        results.append(_np(draw(Generator(5), n)).tobytes())
    assert results[0] == results[1] == results[2]


def test_consecutive_draws_differ():
    g = Generator(0)
    assert _np(g.random(8)).tobytes() != _np(g.random(8)).tobytes()


def test_state_round_trip():
    g = Generator(77)
    g.random(10)
    state = g.get_state()
    a = _np(g.standard_normal(7))
    g.random(100)
    g.set_state(state)
    assert _np(g.standard_normal(7)).tobytes() == a.tobytes()
    h = Generator(0)
    h.set_state(state)
    assert h.get_state() == state and h.initial_seed() == 77


def test_generator_pickles_with_its_state():
    import pickle

    g = Generator(21)
    g.random(3)
    h = pickle.loads(pickle.dumps(g))
    assert h.get_state() == g.get_state()
    assert _np(h.random(4)).tobytes() == _np(g.random(4)).tobytes()


def test_seed_methods():
    g = Generator(3)
    assert g.manual_seed(4) is g and g.get_state() == ("philox4x32-10", 4, 0)
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2**64
    assert Generator().initial_seed() != Generator().initial_seed()  # os.urandom: 2**-64 odds


def test_module_level_seeding():
    assert strided.random is __import__("strided.random").random
    assert strided.manual_seed is strided.random.manual_seed
    assert strided.seed is strided.random.seed
    assert strided.manual_seed(11) is strided.random.default_generator
    a = _np(strided.random.rand(5))
    assert strided.random.seed(11) == 11
    assert _np(strided.random.rand(5)).tobytes() == a.tobytes()
    s = strided.seed()
    assert strided.random.initial_seed() == s
    g = Generator(11)
    assert _np(strided.random.rand(5, generator=g)).tobytes() == a.tobytes()


# =============================================================================================
# Shapes and dtypes
# =============================================================================================


def test_shapes():
    assert strided.random.rand(2, 3).shape == (2, 3)
    assert strided.random.rand((2, 3)).shape == (2, 3)
    assert strided.random.rand().shape == ()
    assert strided.random.randn(0, 4).shape == (0, 4)
    assert strided.random.randint(5, size=(2, 2)).shape == (2, 2)
    assert strided.random.randint(5, (3,)).shape == (3,)  # PyTorch's randint(high, size)
    assert strided.random.randint(5).shape == ()
    assert Generator(0).random().shape == ()
    assert strided.random.uniform(size=4).shape == (4,)
    assert strided.random.normal(size=[2, 1]).shape == (2, 1)


def test_default_dtype():
    assert strided.random.rand(2).dtype is strided.float64
    strided.set_default_dtype(strided.float32)
    assert strided.random.rand(2).dtype is strided.float32
    assert strided.random.randn(2).dtype is strided.float32
    assert strided.random.randint(3, size=2).dtype is strided.int64


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_float_dtypes(dtype):
    x = strided.random.rand(100, dtype=dtype)
    y = strided.random.randn(100, dtype=dtype)
    assert x.dtype.name == dtype and y.dtype.name == dtype
    a = _np(x)
    parts = [a.real, a.imag] if a.dtype.kind == "c" else [a]
    for p in parts:
        assert (p >= 0).all() and (p < 1).all() and len(np.unique(p)) > 90


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_dtypes_cover_their_range(dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    # the top and the bottom of the dtype, high = max + 1 included
    a = _np(Generator(0).integers(hi - 2, hi + 1, size=300, dtype=dtype))
    assert a.dtype == np.dtype(dtype) and set(a.tolist()) == {hi - 2, hi - 1, hi}
    a = _np(Generator(0).integers(lo, lo + 3, size=300, dtype=dtype))
    assert set(a.tolist()) == {lo, lo + 1, lo + 2}
    # the whole dtype
    a = _np(Generator(0).integers(lo, hi + 1, size=10_000, dtype=dtype))
    assert a.min() >= lo and a.max() <= hi
    span = hi - lo + 1
    assert a.min() < lo + span // 50 and a.max() > hi - span // 50


def test_bool_draw():
    a = _np(strided.random.randint(0, 2, size=10_000, dtype="bool"))
    assert a.dtype == np.bool_ and 4800 < a.sum() < 5200
    assert _np(strided.random.randint(1, 2, size=5, dtype="bool")).all()


# =============================================================================================
# Statistics on fixed seeds
# =============================================================================================

N = 10**6


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_mean_and_variance(dtype):
    a = _np(Generator(2024).random(N, dtype=dtype)).astype(np.float64)
    assert abs(a.mean() - 0.5) < 5 * math.sqrt(1 / 12 / N)
    # var of the sample variance: (mu4 - sigma**4) / n, mu4 = 1/80 for U(0, 1)
    assert abs(a.var() - 1 / 12) < 5 * math.sqrt((1 / 80 - 1 / 144) / N)
    assert a.min() >= 0 and a.max() < 1


def test_uniform_scaled():
    a = _np(Generator(1).uniform(-2.0, 6.0, N))
    assert abs(a.mean() - 2.0) < 5 * 8 * math.sqrt(1 / 12 / N)
    assert a.min() >= -2 and a.max() < 6


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_never_reaches_high(dtype):
    """low + span * u may round up to high when the interval is a few ulps wide."""
    one_up = float(np.nextafter(np.array(1.0, dtype), np.array(2.0, dtype)))
    a = _np(Generator(0).uniform(1.0, one_up, 10_000, dtype=dtype))
    assert (a >= 1.0).all() and (a < one_up).all()


def test_float32_rand_strictly_below_one():
    a = _np(Generator(3).random(N, dtype="float32"))
    assert a.dtype == np.float32 and a.min() >= 0 and a.max() < 1


def _normal_cdf(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_moments_and_histogram(dtype):
    a = _np(Generator(99).standard_normal(N, dtype=dtype)).astype(np.float64)
    assert abs(a.mean()) < 5 / math.sqrt(N)
    assert abs(a.var() - 1) < 5 * math.sqrt(2 / N)
    # chi-square of a histogram against the normal CDF, 40 bins plus the two tails
    edges = np.linspace(-4, 4, 41)
    counts = np.histogram(a, bins=np.concatenate([[-np.inf], edges, [np.inf]]))[0]
    cdf = np.array([0.0] + [_normal_cdf(e) for e in edges] + [1.0])
    expected = N * np.diff(cdf)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    dof = len(counts) - 1
    assert chi2 < dof + 5 * math.sqrt(2 * dof)


def test_normal_loc_scale():
    a = _np(Generator(4).normal(-3.0, 0.5, N))
    assert abs(a.mean() + 3) < 5 * 0.5 / math.sqrt(N)
    assert abs(a.std() - 0.5) < 5 * 0.5 * math.sqrt(1 / (2 * N))
    assert (_np(Generator(4).normal(2.5, 0.0, 10)) == 2.5).all()


def test_complex_normal_is_circular():
    z = _np(Generator(6).normal(1 + 2j, 2.0, N, dtype="complex128"))
    assert abs(z.real.mean() - 1) < 0.01 and abs(z.imag.mean() - 2) < 0.01
    assert abs(z.real.var() - 2) < 0.02 and abs(z.imag.var() - 2) < 0.02  # (2 / sqrt 2)**2
    assert abs(np.corrcoef(z.real, z.imag)[0, 1]) < 0.01


@pytest.mark.parametrize("low, high", [(-3, 17), (0, 7), (10**6, 10**6 + 13)])
def test_integers_chi_square(low, high):
    a = _np(Generator(2025).integers(low, high, size=200_000))
    assert a.min() == low and a.max() == high - 1
    counts = np.bincount(a - low, minlength=high - low)
    expected = len(a) / (high - low)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    dof = high - low - 1
    assert chi2 < dof + 5 * math.sqrt(2 * dof)


def test_wide_integers_are_uniform_in_their_range():
    high = 3 * 2**61  # > 2**32: the 128-bit path; thirds of the range equally likely
    a = _np(Generator(8).integers(0, high, size=300_000)).astype(object)
    counts = np.bincount(np.array([3 * int(x) // high for x in a]), minlength=3)
    expected = len(a) / 3
    assert ((counts - expected) ** 2 / expected).sum() < 2 + 5 * 2
    full = _np(Generator(8).integers(0, 2**64, size=10_000, dtype="uint64"))
    assert abs((full >> np.uint64(63)).mean() - 0.5) < 0.03


# =============================================================================================
# Permutations
# =============================================================================================


@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000])
def test_permutation_is_a_permutation(n):
    p = Generator(n).permutation(n)
    assert p.dtype is strided.int64 and p.shape == (n,)
    assert sorted(_np(p).tolist()) == list(range(n))


def test_permutation_is_deterministic_and_uniform():
    assert _np(Generator(1).permutation(50)).tolist() == _np(Generator(1).permutation(50)).tolist()
    g = Generator(12)
    seen = {p: 0 for p in permutations(range(3))}
    for _ in range(6000):
        seen[tuple(_np(g.permutation(3)).tolist())] += 1
    chi2 = sum((c - 1000) ** 2 / 1000 for c in seen.values())
    assert chi2 < 5 + 5 * math.sqrt(10)


def test_permutation_of_a_tensor_and_shuffle():
    x = strided.asarray(np.arange(12).reshape(6, 2))
    y = Generator(3).permutation(x)
    assert y.shape == (6, 2)
    assert sorted(map(tuple, _np(y).tolist())) == sorted(map(tuple, _np(x).tolist()))
    assert _np(x).tolist() == np.arange(12).reshape(6, 2).tolist()  # x untouched
    Generator(3).shuffle(x)
    assert _np(x).tolist() == _np(y).tolist()
    z = strided.arange(10)
    strided.random.shuffle(z)
    assert sorted(_np(z).tolist()) == list(range(10))
    assert sorted(_np(strided.random.permutation(4)).tolist()) == [0, 1, 2, 3]


# =============================================================================================
# Errors
# =============================================================================================

R = strided.random

ERRORS = [
    (lambda: R.uniform(1.0, 1.0), ValueError, "low must be < high"),
    (lambda: R.uniform(2.0, 1.0), ValueError, "low must be < high"),
    (lambda: R.uniform(0.0, float("inf")), ValueError, "finite"),
    (lambda: R.uniform(-1e308, 1e308), ValueError, "overflows"),
    (lambda: R.uniform(1.0, 1.0 + 1e-12, dtype="float32"), ValueError, "empty in float32"),
    (lambda: R.uniform(0.0, 1e39, dtype="complex64"), ValueError, "float32's range"),
    (lambda: R.uniform(float("nan"), 1.0), ValueError, "finite"),
    (lambda: R.uniform("a", 1.0), TypeError, "real number"),
    (lambda: R.randint(5, 5), ValueError, "low must be < high"),
    (lambda: R.randint(5, 2), ValueError, "low must be < high"),
    (lambda: R.randint(0), ValueError, "low must be < high"),
    (lambda: R.randint(0.5, 3), TypeError, "must be an int"),
    (lambda: R.rand(-1), ValueError, "sizes must be >= 0"),
    (lambda: R.randn(2, -3), ValueError, "sizes must be >= 0"),
    (lambda: R.randint(3, size=(-1,)), ValueError, "sizes must be >= 0"),
    (lambda: R.uniform(size=2.5), TypeError, "size must be"),
    (lambda: R.rand(2, dtype="int64"), TypeError, "floating or complex"),
    (lambda: R.randn(2, dtype="bool"), TypeError, "floating or complex"),
    (lambda: R.normal(size=2, dtype="int32"), TypeError, "floating or complex"),
    (lambda: R.normal(0.0, -1.0), ValueError, "scale must be >= 0"),
    (lambda: R.normal(1j, 1.0, size=2), TypeError, "complex loc needs a complex dtype"),
    (lambda: R.randint(0, 10, dtype="float32"), TypeError, "integer or bool dtype"),
    (lambda: R.randint(0, 257, dtype="uint8"), ValueError, r"outside the range of uint8"),
    (lambda: R.randint(-1, 5, dtype="uint32"), ValueError, r"outside the range of uint32"),
    (lambda: R.randint(-129, 0, dtype="int8"), ValueError, r"outside the range of int8"),
    (lambda: R.randint(0, 3, dtype="bool"), ValueError, r"outside the range of bool"),
    (lambda: R.randint(0, 2**63 + 1), ValueError, r"outside the range of int64"),
    (lambda: R.rand(2, device="tpu"), ValueError, "unknown device"),
    (lambda: R.rand(2, generator=object()), TypeError, "strided.random.Generator"),
    (lambda: R.permutation(-1), ValueError, "n must be >= 0"),
    (lambda: R.permutation(2.0), TypeError, "an int or a tensor"),
    (lambda: R.permutation(strided.asarray(1.0)), ValueError, "0-d"),
    (lambda: R.shuffle([1, 2]), TypeError, "expected a tensor"),
    (lambda: R.manual_seed(-1), ValueError, r"\[0, 2\*\*64\)"),
    (lambda: R.manual_seed(2**64), ValueError, r"\[0, 2\*\*64\)"),
    (lambda: R.manual_seed(1.5), TypeError, "seed must be an int"),
    (lambda: R.manual_seed(True), TypeError, "seed must be an int"),
    (lambda: Generator("x"), TypeError, "seed must be an int"),
    (lambda: R.set_state((1, 2)), ValueError, "get_state"),
    (lambda: R.set_state(("philox4x32-10", 0, -1)), ValueError, "offset"),
]


@pytest.mark.parametrize("fn, exc, match", ERRORS)
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


def test_kernels_check_their_output():
    from strided._cpu import random as kernels

    x = strided.zeros((4, 4)).T  # not contiguous
    with pytest.raises(ValueError, match="contiguous"):
        kernels.uniform_fill(x, 0, 0, 0.0, 1.0)
    with pytest.raises(TypeError, match="not a floating dtype"):
        kernels.normal_fill(strided.zeros(2, dtype="int32"), 0, 0, 0.0, 1.0)
    with pytest.raises(TypeError, match="not an integer dtype"):
        kernels.integers_fill(strided.zeros(2), 0, 0, 0, 3)


def test_same_numbers_on_every_device():
    # Note [Random numbers on CUDA devices] in strided/random.py
    for fn in (
        lambda d: R.rand(3, 4, device=d),
        lambda d: R.randn(5, dtype="complex64", device=d),
        lambda d: R.randint(0, 100, size=(7,), device=d),
        lambda d: R.normal(1.0, 2.0, size=3, device=d),
        lambda d: R.permutation(6, device=d),
    ):
        R.manual_seed(1234)
        cpu = np.asarray(fn(None))
        R.manual_seed(1234)
        dev = fn("cuda-emulated")
        assert dev.device == "cuda-emulated:0"
        np.testing.assert_array_equal(np.asarray(dev.cpu()), cpu)
