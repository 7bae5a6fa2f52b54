"""float16 and bfloat16 (Note [Half precision rows] in strided/_dtype_table.py).

The oracles: NumPy's float16 for float16, bit for bit; ml_dtypes' bfloat16 (the NumPy-side
bfloat16 of JAX and TensorFlow) for bfloat16, bit for bit, and float32 arithmetic rounded once
for what ml_dtypes does not define; PyTorch for the PyTorch spellings.
"""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest
from test_intpow import needs_lower_levels, run_at_level

import strided
from strided import _views
from strided._cpu import cpu_dispatch

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)
HALVES = {"float16": np.dtype(np.float16), "bfloat16": BF16}
ALL_BITS = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


def bits(t):
    """The 16-bit patterns of a half tensor, as a NumPy uint16 array."""
    return np.asarray(_views.bits_view(t))


def from_bits(pattern, name):
    return strided.asarray(pattern.view(HALVES[name]))


def random_f32(n=1_000_000, seed=0):
    """n float32 values from random bit patterns: every exponent, NaNs, infinities, subnormals."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def near_halfway_f32(name):
    """The float32 values around every rounding boundary of the 16-bit format: each half value,
    the midpoints to its neighbours, and one float32 ulp either side of those."""
    x = ALL_BITS.view(HALVES[name]).astype(np.float32)
    x = np.sort(x[np.isfinite(x)])
    mid = (x[:-1].astype(np.float64) + x[1:]) / 2
    points = np.concatenate([x, mid.astype(np.float32)])
    return np.concatenate([points, np.nextafter(points, np.inf), np.nextafter(points, -np.inf)])


# -- casts: every pattern, both ways --------------------------------------------------------


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on overflow in its cast
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_every_pattern_widens_exactly(name):
    t = from_bits(ALL_BITS, name)
    ref = ALL_BITS.view(HALVES[name])
    for wide, ubits in ((np.float32, np.uint32), (np.float64, np.uint64)):
        got = np.asarray(t.astype(wide.__name__))
        np.testing.assert_array_equal(got.view(ubits), ref.astype(wide).view(ubits))
    # and every finite or infinite value comes back unchanged from float32 (NaNs stay NaN)
    back = bits(t.astype("float32").astype(name))
    finite = ~np.isnan(ref.astype(np.float32))
    np.testing.assert_array_equal(back[finite], ALL_BITS[finite])
    assert np.isnan(np.asarray(t.astype("float32"))[~finite]).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("source", ["random", "halfway"])
def test_narrowing_from_float32_is_bit_exact(name, source):
    x = random_f32() if source == "random" else near_halfway_f32(name)
    got = bits(strided.asarray(x).astype(name))
    np.testing.assert_array_equal(got, x.astype(HALVES[name]).view(np.uint16))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_narrowing_from_float64_is_bit_exact(name):
    # float16: directly from the double, as NumPy does (no double rounding through float);
    # bfloat16: through float, as ml_dtypes does
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1 << 64, 1_000_000, dtype=np.uint64).view(np.float64)
    halfway = near_halfway_f32(name).astype(np.float64)
    x = np.concatenate([x, halfway, halfway * (1 + 2.0**-40), halfway * (1 - 2.0**-40)])
    got = bits(strided.asarray(x).astype(name))
    np.testing.assert_array_equal(got, x.astype(HALVES[name]).view(np.uint16))
    # a double just above a float16 tie rounds up; through float it would tie to even
    assert strided.asarray([1 + 2.0**-11 + 2.0**-40]).astype("float16").item() == 1 + 2.0**-10


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "other", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
)
def test_casts_with_integers_and_bool(name, other):
    rng = np.random.default_rng(2)
    info = np.iinfo(other) if other != "bool" else None
    if info is None:
        a = np.array([True, False, True])
    else:
        a = rng.integers(info.min, info.max, 2000, dtype=other, endpoint=True)
        a = np.concatenate([a, np.arange(-300, 300).astype(other)])
    got = strided.asarray(a).astype(name)
    np.testing.assert_array_equal(bits(got), a.astype(HALVES[name]).view(np.uint16))
    # and back: every half value that fits converts as NumPy/ml_dtypes convert it
    h = ALL_BITS.view(HALVES[name])
    f = h.astype(np.float32)
    ok = np.isfinite(f) & (f == np.trunc(f))
    if info is not None:  # info.max + 1 is a power of two, exact as a float (info.max is not:
        ok &= (f >= info.min) & (f < float(info.max) + 1)  # 2**32 - 1 rounds up to 2**32)
    back = np.asarray(from_bits(ALL_BITS[ok], name).astype(other))
    np.testing.assert_array_equal(back, h[ok].astype(other))
    # to bool: NaN is true, -0.0 false
    nz = np.asarray(from_bits(ALL_BITS, name).astype("bool"))
    np.testing.assert_array_equal(nz, h.astype(np.float32) != 0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_casts_between_the_halves_and_with_complex():
    f16 = ALL_BITS.view(np.float16)
    got = bits(from_bits(ALL_BITS, "float16").astype("bfloat16"))
    want = f16.astype(np.float32).astype(BF16).view(np.uint16)
    np.testing.assert_array_equal(got, want)
    bf = ALL_BITS.view(BF16)
    got = bits(from_bits(ALL_BITS, "bfloat16").astype("float16"))
    want = bf.astype(np.float32).astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(got, want)
    z = np.array([1.5 - 2j, np.inf + 1j, -3e5 + 0j], np.complex128)
    with pytest.warns(np.exceptions.ComplexWarning):
        want = z.astype(np.float16)
    np.testing.assert_array_equal(np.asarray(strided.asarray(z).astype("float16")), want)
    zz = np.asarray(strided.asarray(f16[:100]).astype("complex64"))
    np.testing.assert_array_equal(zz, f16[:100].astype(np.complex64))


# -- arithmetic: in float, rounded once --------------------------------------------------


def _pair(name, n=4000, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(np.float32) * 50
    b = rng.standard_normal(n).astype(np.float32) * 50
    b[::7] = 0  # a few divisions by zero
    a[::11] = np.nan
    return a.astype(HALVES[name]), b.astype(HALVES[name])


def _rounded(values, name):
    """What a half op must give: the float32 answer rounded once."""
    return np.asarray(values, np.float32).astype(HALVES[name]).view(np.uint16)


EXACT_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "copysign"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", EXACT_BINARY + ["floor_divide", "remainder", "hypot", "atan2"])
def test_binary_ops_compute_in_float_and_round_once(name, op):
    a, b = _pair(name)
    ta, tb = strided.asarray(a), strided.asarray(b)
    got = getattr(strided, op)(ta, tb)
    assert got.dtype is getattr(strided, name)
    fn = getattr(np, op)
    want = _rounded(fn(a.astype(np.float32), b.astype(np.float32)), name)
    if name == "float16" and op in EXACT_BINARY + ["floor_divide", "remainder"]:
        # NumPy's own float16 loops: the same rule, so the same bits
        np.testing.assert_array_equal(bits(got), fn(a, b).view(np.uint16))
    g, w = bits(got), want
    nan = np.isnan(np.asarray(got.astype("float32")))
    np.testing.assert_array_equal(nan, np.isnan(w.view(HALVES[name]).astype(np.float32)))
    np.testing.assert_array_equal(g[~nan], w[~nan])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_comparisons_and_scalars(name):
    a, b = _pair(name)
    ta, tb = strided.asarray(a), strided.asarray(b)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    for op in ["equal", "less", "greater_equal", "logical_and"]:
        np.testing.assert_array_equal(
            np.asarray(getattr(strided, op)(ta, tb)), getattr(np, op)(af, bf)
        )
    # Python scalars are weak: the result stays the half type
    assert (ta * 2.5).dtype is ta.dtype and (1 + ta).dtype is ta.dtype
    np.testing.assert_array_equal(bits(ta * 2.5), _rounded(af * np.float32(2.5), name))
    # a half with float32 is float32 (NumPy's and PyTorch's rule)
    assert (ta + strided.ones(1, dtype="float32")).dtype is strided.float32
    assert (
        strided.ones(1, dtype="float16") + strided.ones(1, dtype="bfloat16")
    ).dtype is strided.float32


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "op",
    [
        "negative",
        "abs",
        "sqrt",
        "exp",
        "log",
        "sin",
        "tanh",
        "sigmoid",
        "floor",
        "round",
        "sign",
        "isnan",
        "isfinite",
    ],
)
def test_unary_ops(name, op):
    a, _ = _pair(name)
    t = strided.asarray(a)
    got = getattr(strided, op)(t)
    if op in ("isnan", "isfinite"):
        np.testing.assert_array_equal(np.asarray(got), getattr(np, op)(a.astype(np.float32)))
        return
    assert got.dtype is t.dtype
    # the rule: float32's answer, rounded once (bit for bit the float32 kernel's, rounded)
    want = getattr(strided, op)(t.astype("float32")).astype(name)
    nan = np.isnan(np.asarray(want.astype("float32")))  # a NaN's sign bit is not meaningful
    np.testing.assert_array_equal(np.isnan(np.asarray(got.astype("float32"))), nan)
    np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])
    if name == "float16" and hasattr(np, op):
        # and NumPy's float16 loops agree to the last place (they round libm's float answer;
        # strided's vectorised float32 exp, tanh... may differ from libm's by an ulp of float32)
        ref = getattr(np, op)(a).astype(np.float64)
        g = np.asarray(got.astype("float64"))
        np.testing.assert_array_equal(np.isnan(g), np.isnan(ref))
        ok = np.isfinite(ref)
        np.testing.assert_array_equal(g[~ok & ~np.isnan(ref)], ref[~ok & ~np.isnan(ref)])
        ulp = np.abs(np.spacing(ref[ok].astype(np.float16)).astype(np.float64))
        assert np.all(np.abs(g[ok] - ref[ok]) <= ulp), op


# the ops whose half loops run a fix-up pass (Note [Fix-up passes in the half blocks] in
# unary.pyx.tp: the checked ops for both halves, trig for bfloat16) or a form of their own (Note
# [exp for a half result] in scalar_math.h)
EVERY_PATTERN_OPS = [
    *("log", "log1p", "log2", "log10", "acosh", "asin", "acos", "atanh", "sin", "cos", "tan"),
    "exp",
]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", EVERY_PATTERN_OPS)
def test_every_pattern_of_the_half_loops_is_float32s_rounded(name, op):
    every = from_bits(ALL_BITS, name)
    fn = getattr(strided, op)
    with strided.errstate(all="ignore"):
        want = bits(fn(every.astype("float32")).astype(name))  # the float32 loop's, rounded
        # contiguous (the blocks, every lane hard or easy), reversed and stepped (per element)
        for t, w in ((every, want), (every[::-1], want[::-1]), (every[1::3], want[1::3])):
            np.testing.assert_array_equal(bits(fn(t)), w, err_msg=op)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_a_fix_up_pass_raises_the_c_librarys_flags(name):
    x = ALL_BITS.view(HALVES[name]).astype(np.float32)
    positive = from_bits(ALL_BITS[(x > 0) & np.isfinite(x)], name)
    with strided.errstate(all="raise"):
        strided.log(positive)  # no flag from the vector pass or the conversions
        for value, kind in ((0.0, "divide"), (-1.0, "invalid")):
            t = strided.asarray(np.full(1000, 2.0, np.float32)).astype(name)
            t[517] = value  # one hard lane in a block of easy ones
            with pytest.raises(FloatingPointError, match=kind):
                strided.log(t)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_nextafter_steps_the_16_bit_pattern(name):
    x = ALL_BITS.view(HALVES[name])
    finite = np.isfinite(x.astype(np.float32))
    x = x[finite][::97]
    for toward in (np.inf, -np.inf, 0.0):
        y = np.full_like(x, toward)
        got = bits(strided.nextafter(strided.asarray(x), strided.asarray(y)))
        np.testing.assert_array_equal(got, np.nextafter(x, y).view(np.uint16))
    # x == y gives y, C's rule (0.0 toward -0.0 is -0.0): ml_dtypes' bfloat16 and NumPy's
    # float16 since 2.5 (older NumPy gave x); NaN gives the library's NaN
    z = strided.asarray(np.array([0.0, np.nan], HALVES[name]))
    w = strided.asarray(np.array([-0.0, 1.0], HALVES[name]))
    ref = np.nextafter(np.array([0.0, np.nan], HALVES[name]), np.array([-0.0, 1.0], HALVES[name]))
    got = bits(strided.nextafter(z, w))
    assert got[0] == 0x8000 and got[1] == ref.view(np.uint16)[1]
    if name == "bfloat16" or np.lib.NumpyVersion(np.__version__) >= "2.5.0":
        np.testing.assert_array_equal(got, ref.view(np.uint16))


# -- every layout ------------------------------------------------------------------------


def _layouts(a):
    """(name, strided tensor, NumPy twin) for the layouts every op is tested on."""
    t = strided.asarray(a)
    yield "contiguous", t, a
    yield "transposed", t.T, a.T
    yield "stepped", t[::2, 1::3], a[::2, 1::3]
    yield "negative", t[::-1, ::-1], a[::-1, ::-1]
    yield "expanded", strided.broadcast_to(t[:1], a.shape), np.broadcast_to(a[:1], a.shape)
    yield "0-d", t[1, 2], a[1, 2]
    yield "empty", t[:0], a[:0]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_ops_on_every_layout(name):
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((6, 9)) * 10).astype(HALVES[name])
    for layout, t, ref in _layouts(a):
        ref32 = np.asarray(ref, np.float32)
        np.testing.assert_array_equal(
            bits(t.contiguous()),
            np.ascontiguousarray(ref).view(np.uint16)
            if ref.ndim
            else np.asarray(ref).reshape(()).view(np.uint16),
        )
        got = t * t + 1.0
        np.testing.assert_array_equal(
            bits(got),
            _rounded(_rounded(ref32 * ref32, name).view(HALVES[name]).astype(np.float32) + 1, name),
            err_msg=layout,
        )
        np.testing.assert_array_equal(np.asarray(t.astype("float32")), ref32, err_msg=layout)
        s = strided.sum(t)
        assert s.dtype is t.dtype
        assert (
            bits(s) == np.float32(ref32.sum(dtype=np.float64)).astype(HALVES[name]).view(np.uint16)
            or abs(s.item() - ref32.sum()) <= abs(ref32).sum() * 2.0**-7
        ), layout


# -- reductions, sorts, scans, matmul: through float32 ------------------------------------


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_reductions_accumulate_in_float32(name):
    rng = np.random.default_rng(5)
    a = rng.random((300, 70)).astype(HALVES[name])
    t = strided.asarray(a)
    a32 = a.astype(np.float32)
    # 21000 values near 0.5: a float16 accumulator would stall at 4096 (its spacing there is 4)
    for axis in (None, 0, 1):
        got = strided.sum(t, axis=axis)
        assert got.dtype is t.dtype
        want = a32.sum(axis=axis, dtype=np.float64).astype(np.float32).astype(HALVES[name])
        np.testing.assert_allclose(
            np.asarray(got.astype("float64")), want.astype(np.float64), rtol=2.0**-7
        )
    for op in ("max", "min", "argmax", "argmin"):
        np.testing.assert_array_equal(
            np.asarray(getattr(strided, op)(t, axis=1)), getattr(np, op)(a32, axis=1)
        )
    m = strided.mean(t)
    assert m.dtype is t.dtype and abs(m.item() - a32.mean()) < 2.0**-6
    assert strided.sum(t, dtype="float64").dtype is strided.float64


_HALF_SUM_VIEWS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.T,
    "stepped": lambda t: t[::2, ::3],
    "negative": lambda t: t[::-1, ::-1],
    "expanded": lambda t: t[:1].expand(5, t.shape[1]),
    "0-d": lambda t: t[1, 2],
    "empty": lambda t: t[:0],
    "3-d": lambda t: t.reshape(6, 50, 30)[:, 1::2],
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", list(_HALF_SUM_VIEWS))
@pytest.mark.parametrize("threads", [1, 2])
def test_half_sums_are_the_float32_sums_of_the_same_layout(name, layout, threads, split_every_loop):
    # Note [Half sums widened by the leaf]: the halves are widened a leaf at a time, with
    # float32's splits, so the sum is bit for bit float32's over a float32 tensor laid out the
    # same, whatever the layout, the dims and the threads; over a dim that is not the fastest the
    # kernel widens the whole tensor first (the same value again)
    rng = np.random.default_rng(6)
    base = strided.asarray((rng.standard_normal((300, 30)) * 4).astype(HALVES[name]))
    base32 = base.astype("float32")
    view = _HALF_SUM_VIEWS[layout]
    t, t32 = view(base), view(base32)
    strided.set_num_threads(threads)
    dims_list = [None] + [(d,) for d in range(t.ndim)] + ([(0, 1)] if t.ndim > 1 else [])
    for dims in dims_list:
        got = strided.sum(t, axis=dims, dtype="float32")
        want = strided.sum(t32, axis=dims)
        assert got.dtype is strided.float32 and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=str(dims))
        rounded = strided.sum(t, axis=dims)
        assert rounded.dtype is t.dtype
        np.testing.assert_array_equal(bits(rounded), bits(want.astype(name)), err_msg=str(dims))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_sums_of_every_leaf_length_are_float32s(name):
    # a contiguous leaf of 129 to 2048 halves is summed in registers as it is widened
    # (strided_f16_sum_lanes64 in scalar_math.h): rows of the lengths around the leaves' bounds,
    # over every finite pattern, and rows with a signalling NaN or an infinity in a lane
    x = ALL_BITS.view(HALVES[name])
    finite = ALL_BITS[np.isfinite(x.astype(np.float32))]
    special = np.array([0x7C01, 0xFC00] if name == "float16" else [0x7F81, 0xFF80], np.uint16)
    for n in (7, 8, 127, 128, 129, 130, 191, 192, 193, 1000, 2047, 2048, 2049, 4097):
        rows = np.resize(finite, (6, n))
        rows[4, n // 3] = special[0]
        rows[5, n - 1] = special[1]
        t = from_bits(rows, name)
        want = strided.sum(t.astype("float32"), axis=1)
        got = strided.sum(t, axis=1, dtype="float32")
        np.testing.assert_array_equal(
            np.asarray(got).view(np.uint32), np.asarray(want).view(np.uint32), err_msg=str(n)
        )
        np.testing.assert_array_equal(bits(strided.sum(t, axis=1)), bits(want.astype(name)))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_sum_of_a_long_row_splits_as_float32s(name):
    # 1e6 halves: many leaves, split in two down to 2048; NaN and inf come through
    a = np.random.default_rng(7).random(1_000_003).astype(HALVES[name])
    t = strided.asarray(a)
    want = strided.sum(t.astype("float32"))
    assert strided.sum(t, dtype="float32").item() == want.item()
    a[5] = np.inf
    assert strided.sum(strided.asarray(a), dtype="float32").item() == np.inf
    a[77777] = np.nan
    assert np.isnan(strided.sum(strided.asarray(a), dtype="float32").item())


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_sorting_searching_and_scans(name):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(500) * 100).astype(HALVES[name])
    a[::50] = np.nan
    t = strided.asarray(a)
    a32 = a.astype(np.float32)
    np.testing.assert_array_equal(
        bits(strided.sort(t)), np.sort(a32).astype(HALVES[name]).view(np.uint16)
    )
    np.testing.assert_array_equal(
        np.asarray(strided.argsort(t, stable=True)), np.argsort(a32, kind="stable")
    )
    u = strided.unique_values(t)
    assert u.dtype is t.dtype
    # every NaN its own value (the Array API's rule, strided's), so NumPy's equal_nan=False
    np.testing.assert_array_equal(np.asarray(u.astype("float32")), np.unique(a32, equal_nan=False))
    s = strided.sort(t[~strided.isnan(t)])
    np.testing.assert_array_equal(
        np.asarray(strided.searchsorted(s, t)),
        np.searchsorted(np.asarray(s.astype("float32")), a32),
    )
    c = strided.cumsum(t[:40])
    assert c.dtype is t.dtype
    want = np.cumsum(a32[:40], dtype=np.float32).astype(HALVES[name])
    np.testing.assert_array_equal(bits(c), want.view(np.uint16))
    v = strided.topk(strided.nan_to_num(t), 3)
    np.testing.assert_array_equal(
        np.asarray(v.values.astype("float32")), np.sort(np.nan_to_num(a32))[::-1][:3]
    )


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_matmul_rounds_a_float32_product_once(name):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((33, 40)).astype(HALVES[name])
    b = rng.standard_normal((40, 17)).astype(HALVES[name])
    got = strided.asarray(a) @ strided.asarray(b)
    assert got.dtype.name == name
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(HALVES[name])
    np.testing.assert_allclose(
        np.asarray(got.astype("float32")), want.astype(np.float32), rtol=2.0**-7, atol=2.0**-7
    )
    # transposed operands, out= of the half type and of float32 (BLAS may order the sums of a
    # transposed product differently: AVX-512 OpenBLAS gives a last-bit difference)
    out = strided.empty((17, 33), dtype=name)
    strided.matmul(strided.asarray(b).T, strided.asarray(a).T, out=out)
    np.testing.assert_allclose(
        np.asarray(out.astype("float32")), want.T.astype(np.float32), rtol=2.0**-7, atol=2.0**-7
    )
    mixed = strided.asarray(a) @ strided.asarray(b.astype(np.float32))
    assert mixed.dtype is strided.float32


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_indexing_and_scatter_add(name):
    a = np.arange(12, dtype=np.float32).reshape(3, 4).astype(HALVES[name])
    t = strided.asarray(a)
    idx = strided.asarray([2, 0, 2])
    np.testing.assert_array_equal(bits(t[idx]), a[[2, 0, 2]].view(np.uint16))
    np.testing.assert_array_equal(bits(t[t > 4]), a[a.astype(np.float32) > 4].view(np.uint16))
    acc = strided.zeros(3, dtype=name)
    acc.index_add_(0, idx, strided.ones(3, dtype=name))
    np.testing.assert_array_equal(np.asarray(acc.astype("float32")), [1, 0, 2])
    w = strided.where(t > 5, t, -t)
    np.testing.assert_array_equal(
        np.asarray(w.astype("float32")),
        np.where(a.astype(np.float32) > 5, a, -a).astype(np.float32),
    )


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_creation_and_random(name):
    assert strided.zeros(3, dtype=name).dtype.name == name
    np.testing.assert_array_equal(
        np.asarray(strided.full((2,), 1.1, dtype=name)), np.full(2, 1.1, dtype=HALVES[name])
    )
    strided.random.manual_seed(0)
    x = strided.random.rand(1000, dtype=name)
    assert x.dtype.name == name
    f = np.asarray(x.astype("float32"))
    assert (f >= 0).all() and (f <= 1).all() and 0.4 < f.mean() < 0.6


# -- interop ----------------------------------------------------------------------------


def test_float16_buffer_protocol_and_numpy():
    t = strided.asarray([1.5, -2.0], dtype="float16")
    m = memoryview(t)
    assert m.format == "e" and m.itemsize == 2
    a = np.asarray(t)
    assert a.dtype == np.float16 and a.tolist() == [1.5, -2.0]
    assert strided.asarray(np.float16([0.25])).dtype is strided.float16


def test_bfloat16_reaches_numpy_through_ml_dtypes_not_the_buffer_protocol():
    t = strided.asarray([1.5, -2.0], dtype="bfloat16")
    with pytest.raises(BufferError, match="bfloat16 has no buffer-protocol"):
        memoryview(t)
    a = np.asarray(t)
    assert a.dtype == BF16 and a.astype(np.float32).tolist() == [1.5, -2.0]
    assert strided.asarray(a).dtype is strided.bfloat16  # and back, sharing nothing it needn't
    assert t.tolist() == [1.5, -2.0] and t[0].item() == 1.5


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_pickle_repr_and_finfo(name):
    t = strided.asarray([1.0, 2.5, -0.125], dtype=name)
    u = pickle.loads(pickle.dumps(t))
    assert u.dtype is t.dtype and np.array_equal(bits(u), bits(t))
    assert f"dtype=strided.{name}" in repr(t)
    assert strided.finfo(name).bits == 16


def test_linalg_refuses_halves_as_numpy_does():
    a = strided.eye(3, dtype="float16")
    with pytest.raises(TypeError, match="float16"):
        strided.linalg.inv(a)


def test_gradcheck_refuses_halves_but_gradients_keep_the_dtype():
    from strided.autograd import gradcheck

    x = strided.asarray([0.5, 1.5], dtype="float16").requires_grad_()
    with pytest.raises(ValueError, match="float64"):
        gradcheck(lambda v: (v * v).sum(), (x,))
    y = (x * x).sum()
    y.backward()
    assert x.grad.dtype is strided.float16
    np.testing.assert_array_equal(np.asarray(x.grad.astype("float32")), [1.0, 3.0])


def test_nn_shorthands_convert_modules_and_tensors():
    x = strided.asarray([1.5, 2.0])
    assert x.half().dtype is strided.float16 and x.bfloat16().dtype is strided.bfloat16
    assert x.half().float().dtype is strided.float32 and x.double() is x  # already float64
    m = strided.nn.Linear(4, 3, dtype="float16")
    assert m.weight.dtype is strided.float16
    m.bfloat16()
    assert m.weight.dtype is strided.bfloat16 and m.bias.dtype is strided.bfloat16
    y = m(strided.ones((2, 4), dtype="bfloat16"))
    assert y.dtype is strided.bfloat16
    y.astype("float32").sum().backward()
    assert m.weight.grad.dtype is strided.bfloat16
    np.testing.assert_array_equal(np.asarray(m.bias.grad.astype("float32")), [2, 2, 2])
    assert m.float().weight.dtype is strided.float32


def test_digits_mlp_trains_in_bfloat16_parameters_with_a_float32_loss():
    # the mixed-precision recipe: parameters, activations and gradients in bfloat16, the loss
    # (a sum of many small terms) in float32; accuracy as float32's
    pytest.importorskip("sklearn")
    from strided import optim
    from strided._train import accuracy, load_digits_data, make_mlp
    from strided.nn import functional as F

    x_tr, y_tr, x_te, y_te = load_digits_data()

    def train(dtype):
        strided.random.manual_seed(0)
        model = make_mlp().to(dtype=dtype)
        xs, ys = strided.asarray(x_tr).astype(dtype), strided.asarray(y_tr)
        opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        order = np.random.default_rng(0).permutation
        for _ in range(6):
            perm = strided.asarray(order(xs.shape[0]))
            for i in range(0, xs.shape[0], 64):
                idx = perm[i : i + 64]
                loss = F.cross_entropy(model(xs[idx]).astype("float32"), ys[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
        assert all(p.dtype.name == dtype for p in model.parameters())
        return accuracy(model, strided.asarray(x_te).astype(dtype), strided.asarray(y_te))

    threads = strided.get_num_threads()
    strided.set_num_threads(1)  # small batches: threads would only spin on a loaded machine
    try:
        acc16, acc32 = train("bfloat16"), train("float32")
    finally:
        strided.set_num_threads(threads)
    assert acc16 >= 0.95 and acc16 >= acc32 - 0.02, (acc16, acc32)


def test_save_and_load(tmp_path):
    import io

    f16 = strided.asarray([1.5, -2.25, 65504.0], dtype="float16")
    strided.save(tmp_path / "h.npy", f16)
    back = strided.load(tmp_path / "h.npy")
    assert back.dtype is strided.float16 and np.array_equal(bits(back), bits(f16))
    bf = strided.asarray([1.5, -2.25, 3e38], dtype="bfloat16")
    with pytest.raises(TypeError, match="no bfloat16"):
        strided.save(tmp_path / "b.npy", bf)
    assert not (tmp_path / "b.npy").exists()  # nothing half-written
    buf = io.BytesIO()
    strided.save({"w": bf, "h": f16}, buf)  # strided's own format records the dtype
    buf.seek(0)
    state = strided.load(buf)
    assert state["w"].dtype is strided.bfloat16 and np.array_equal(bits(state["w"]), bits(bf))
    assert state["h"].dtype is strided.float16


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_out_overlapping_an_input_is_computed_aside_then_copied(name):
    # the iterator computes into a temporary and copies it into out=, the copy of a half
    # temporary into a half out= once did nothing; NumPy's answer is the copy-first one
    for shift, fn in [(8, lambda a, out: strided.add(a, 1, out=out)),
                      (3, lambda a, out: strided.negative(a, out=out)),
                      (1, lambda a, out: strided.multiply(a, a, out=out))]:  # fmt: skip
        base = np.arange(20, dtype=np.float32) / 4
        t = strided.asarray(base).astype(name)
        f = t.astype("float32").numpy().copy()
        fn(t[:-shift], t[shift:])
        want = f.copy()
        want[shift:] = fn(strided.asarray(f[:-shift]), None).numpy()
        got = t.astype("float32").numpy()
        np.testing.assert_array_equal(got, strided.asarray(want).astype(name).astype("float32"))
    # the other direction and a reversed view
    t = strided.asarray(np.arange(12, dtype=np.float32)).astype(name)
    strided.add(t[4:], 0.5, out=t[:-4])
    assert t.astype("float32").numpy().tolist()[:8] == [v + 0.5 for v in range(4, 12)]
    t = strided.asarray(np.arange(6, dtype=np.float32)).astype(name)
    strided.negative(t[::-1], out=t)
    assert t.astype("float32").numpy().tolist() == [-5.0, -4.0, -3.0, -2.0, -1.0, -0.0]


# -- the conversions at every CPU level ---------------------------------------------------

# Note [Half conversions in blocks, with F16C] (scalar_math.h): at x86-64-v3 and v4 the
# contiguous conversions use the F16C instructions a chunk at a time and convert a chunk again
# by NumPy's rule where it held a NaN; v2 converts with the bit arithmetic alone. The script
# below runs in an interpreter forced to one level: every float16 and bfloat16 pattern to
# float32 and back on every layout, float32 narrowed (random patterns, rounding boundaries with
# sparse NaNs, odd lengths and offsets), and add and exp through the half loops' blocks, whose
# bits must be the float32 kernel's rounded once, NaN payloads included.
LEVEL_SCRIPT = """
import sys
sys.path.insert(0, TESTS)
import numpy as np, strided as st
from test_half import HALVES, _layouts, bits

def layouts(a):
    yield from _layouts(a)
    yield "odd run", st.asarray(a).reshape(-1)[3:-5], a.reshape(-1)[3:-5]

every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
rng = np.random.default_rng(11)
f32 = rng.integers(0, 1 << 32, 300_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
for name, npd in HALVES.items():
    a = every.view(npd).reshape(256, 256)
    for layout, t, ref in layouts(a):
        wide = np.asarray(t.astype("float32"))
        want = ref.astype(np.float32)
        assert (wide.view(np.uint32) == want.view(np.uint32)).all(), (name, layout)
        back = bits(st.asarray(want).astype(name))
        assert (back == want.astype(npd).view(np.uint16)).all(), (name, layout)
        w = st.asarray(want)
        u, wu = (t[::-1], w[::-1]) if t.ndim else (t, w)
        # NaN + NaN may give either payload (the loops' operand order), so the two NaNs' bits
        # are left out; a NaN and a number give the NaN's, quieted, in both
        both = np.isnan(want) & np.isnan(np.asarray(wu))
        for got, w in ((t + u, w + wu), (st.exp(t), st.exp(w))):
            same = bits(got) == bits(w.astype(name))
            assert (same | both).all(), (name, layout)
            both = False
    x = np.sort(every.view(npd)[np.isfinite(every.view(npd).astype(np.float32))].astype(np.float32))
    mid = ((x[:-1].astype(np.float64) + x[1:]) / 2).astype(np.float32)
    edges = np.concatenate([x, mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf)])
    edges[::1001] = f32[np.isnan(f32)][: edges[::1001].size]
    for v in (f32, edges, edges[5:-3]):
        got = bits(st.asarray(v).astype(name))
        assert (got == v.astype(npd).view(np.uint16)).all(), name
print("ok")
"""


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@needs_lower_levels
@pytest.mark.parametrize("level", [2, 3, 4])
def test_conversions_at_every_cpu_level_are_numpys(level):
    if level > cpu_dispatch.cpu_level:
        pytest.skip(f"this CPU does not run x86-64-v{level}")
    tests = os.path.dirname(os.path.abspath(__file__))
    script = "import warnings; warnings.simplefilter('ignore')\n" + LEVEL_SCRIPT
    run_at_level(level, script.replace("TESTS", repr(tests), 1))
