"""The loop geometry of the CUDA kernels (Note [CUDA loop geometry] in kernels/common.cuh): the
host's dividers against Python's ``//`` (Note [Division by a loop size as a multiplication]),
the device's division on the emulator, and the kernels that unravel an element's index
(elementwise, where, copy/cast, fill, the index moves, searchsorted) on every layout and in both
index widths, against NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import LAYOUTS, make_layout

import strided
from strided.cuda import _launch, _params

TOP = 2**31  # the 32-bit kernels divide numerators below this

DIVISORS = sorted(
    {1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 25, 100, 641, 1000, 6700417, 10000, 65535, 65536, 65537}
    | {2**k for k in range(32)}
    | {2**k - 1 for k in range(2, 32)}
    | {2**k + 1 for k in range(1, 31)}
    | {3 * 2**k for k in range(30)}
    | {TOP - 1, TOP}
    | set(np.random.default_rng(23).integers(1, TOP, 300).tolist())
    | set(np.random.default_rng(24).integers(1, 1 << 16, 300).tolist())
)


def divide(n, magic, shift):
    """The device's formula on NumPy uint64 (no product overflows: n * magic < 2^63)."""
    n = np.asarray(n, dtype=np.uint64)
    return (((n * np.uint64(magic)) >> np.uint64(32)) + n) >> np.uint64(shift)


def numerators(d, rng):
    """0, 1, d - 1, d, d + 1, multiples of d and their neighbours near the top, the largest
    numerator below 2^31 with remainder d - 1 (the one the rounding error is largest for), the
    top itself, random ones."""
    last = (TOP - 1 - (d - 1)) // d * d + (d - 1) if d <= TOP - 1 else TOP - 1
    near_top = [
        k * d + j for k in range((TOP - 1) // d - 2, (TOP - 1) // d + 1) for j in (-1, 0, 1)
    ]
    ns = [0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, last, TOP - 2, TOP - 1, *near_top]
    ns += rng.integers(0, TOP, 2000).tolist()
    return np.array(sorted({n for n in ns if 0 <= n < TOP}), dtype=np.uint64)


def test_int_divider_matches_floor_division():
    rng = np.random.default_rng(0)
    for d in DIVISORS:
        magic, shift = _params.int_divider(d)
        # the Note's choice: s = ceil(log2(d)), m = floor(2^32 * (2^s - d) / d) + 1 < 2^32
        assert shift == (d - 1).bit_length(), d
        assert magic == 2**32 * (2**shift - d) // d + 1 and 0 < magic < 2**32, d
        n = numerators(d, rng)
        np.testing.assert_array_equal(divide(n, magic, shift), n // np.uint64(d), err_msg=f"d={d}")


def test_int_divider_exhaustively_for_small_divisors():
    """Every divisor up to 2^11 against every numerator below 2^14 and the 2^14 below 2^31."""
    n = np.concatenate([np.arange(1 << 14), np.arange(TOP - (1 << 14), TOP)]).astype(np.uint64)
    for d in range(1, 1 << 11):
        magic, shift = _params.int_divider(d)
        np.testing.assert_array_equal(divide(n, magic, shift), n // np.uint64(d), err_msg=f"d={d}")


def test_int_divider_exhaustively_for_one_divisor_per_shift():
    """One odd divisor per shift (the hard kind: not a power of two), every numerator in a wide
    window below 2^31, where the quotients are largest."""
    n = np.arange(TOP - (1 << 20), TOP, dtype=np.uint64)
    for s in range(2, 32):
        d = 2 ** (s - 1) + 1
        magic, shift = _params.int_divider(d)
        assert shift == s
        np.testing.assert_array_equal(divide(n, magic, shift), n // np.uint64(d), err_msg=f"d={d}")


@pytest.mark.parametrize("d", [0, -1, TOP + 1, 2**40])
def test_int_divider_rejects_what_it_cannot_divide_by(d):
    with pytest.raises(ValueError, match="1 <= d <= 2"):
        _params.int_divider(d)


DEVICE_SOURCE = r"""
#include "common.cuh"

__global__ void magic_divide(unsigned* q, unsigned* hi, const unsigned* n, const unsigned* m,
                             int count, unsigned magic, unsigned shift) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += blockDim.x * gridDim.x) {
        q[i] = divide_by_magic(n[i], magic, shift);
        hi[i] = __umulhi(n[i], m[i]);
    }
}
"""


def test_the_emulated_device_divides_as_the_host_formula():
    """kernels/common.cuh's divide_by_magic and the emulator's __umulhi (the high 32 bits of the
    64-bit product, as on a GPU), compiled by the emulator."""
    from strided.cuda import _emulator as emu

    src = _launch.source("common.cuh").replace(
        '#include "common.cuh"\n', ""
    ) + DEVICE_SOURCE.replace('#include "common.cuh"\n', "")
    mod = emu.compile_module(src, ["magic_divide"])
    fn = mod.get_function("magic_divide")
    rng = np.random.default_rng(1)
    for d in (1, 3, 7, 10000, 65537, TOP - 1, TOP):
        magic, shift = _params.int_divider(d)
        n = numerators(d, rng).astype(np.uint32)
        m = np.concatenate([[0, 1, 2**32 - 1], rng.integers(0, 2**32, n.size - 3)]).astype(
            np.uint32
        )
        bufs = [emu.malloc(n.nbytes) for _ in range(4)]
        q, hi, dn, dm = (b.asarray(np.uint32, n.shape) for b in bufs)
        dn[...], dm[...] = n, m
        args = (*(np.uint64(b.ptr) for b in bufs), np.int32(n.size), np.uint32(magic))
        fn((8,), (64,), (*args, np.uint32(shift)))
        np.testing.assert_array_equal(q, n // np.uint32(d), err_msg=f"d={d}")
        wide = n.astype(np.uint64) * m.astype(np.uint64)
        np.testing.assert_array_equal(hi, (wide >> np.uint64(32)).astype(np.uint32))


@pytest.mark.parametrize("nop", [2, 3, 4])
def test_the_packed_geometry_carries_each_sizes_divider(nop):
    """Each size's divider but the outermost's (never divided) and those beyond 2^31."""
    shape = (10000, 7, 65537, 1, 2**31, 2**31 + 5, 3)
    strides = [tuple(range(len(shape)))] * nop
    raw = _params.geometry_bytes(shape, strides, list(range(nop)), None, _launch.MAX_DIMS)
    g = np.frombuffer(raw, dtype=_launch._geometry_dtype(nop))[0]
    assert g["ndim"] == len(shape)
    for d, size in enumerate(shape[:5]):
        assert (g["div_magic"][d], g["div_shift"][d]) == _params.int_divider(size)
    assert not g["div_magic"][5:].any() and not g["div_shift"][5:].any()
    assert raw == _launch.geometry_struct(shape, strides, list(range(nop))).tobytes()


def test_an_elementwise_plan_packs_its_loop_sizes_dividers():
    """_params.elementwise_geometry (the eager ops' packing) writes the same dividers."""
    from strided._cpu import binary as _binary

    a = strided.asarray(np.ones((3, 1, 5, 7), np.float32), device="cuda-emulated")
    b = strided.asarray(np.ones((11, 1, 7), np.float32), device="cuda-emulated")
    plan = _binary.binary_plan("add", a[:, :, ::2], b[:, :, ::-1])
    raw, count, n, idx32, contig = _params.elementwise_geometry(plan, _launch.MAX_DIMS)
    g = np.frombuffer(raw, dtype=_launch._geometry_dtype(3))[0]
    nd = g["ndim"]
    assert nd >= 3 and n == 3 * 11 * 3 * 7 and idx32 and not contig
    sizes = g["sizes"][:nd].tolist()
    want = [_params.int_divider(size) for size in sizes[:-1]] + [(0, 0)] * (26 - nd)
    assert list(zip(g["div_magic"].tolist(), g["div_shift"].tolist(), strict=True)) == want


# ---- the kernels, on every layout ---------------------------------------------------------------

# (a shape, b shape): broadcast rows and columns, and 3-D and 4-D broadcasts of odd sizes, whose
# coalesced loops keep 2 to 4 dims of sizes that are not powers of two
BROADCASTS = [
    ((37, 41), (41,)),
    ((37, 41), (37, 1)),
    ((1, 41), (37, 1)),
    ((3, 1, 7), (1, 5, 7)),
    ((3, 5, 1), (5, 7)),
    ((2, 1, 5, 7), (3, 1, 7)),
    ((3, 1, 5, 1), (1, 7, 1, 9)),
    ((1, 3, 1, 13), (11, 1, 5, 1)),
    ((), (4, 3)),
    ((0, 5), (5,)),
]


@pytest.fixture(params=["int32", "int64"])
def index_width(request, monkeypatch):
    """Run the test's kernels with 32-bit index math (the default at these sizes: the dividers)
    or forced to 64-bit (plain division)."""
    if request.param == "int64":
        packed = _params.elementwise_geometry

        def wide(plan, max_dims):
            geometry, _count, n, _idx32, contig = packed(plan, max_dims)
            return geometry, np.int64(n).tobytes(), n, False, contig

        monkeypatch.setattr(_params, "elementwise_geometry", wide)
        monkeypatch.setattr(_launch, "use_int32", lambda *args: False)
    return request.param


def values(shape, rng, dtype=np.float32):
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sa, sb", BROADCASTS, ids=str)
def test_broadcast_binary_and_where(device, sa, sb, index_width, rng):
    a, b = values(sa, rng), values(sb, rng)
    ta, tb = strided.asarray(a, device=device), strided.asarray(b, device=device)
    np.testing.assert_array_equal(np.asarray((ta + tb).cpu()), a + b)
    np.testing.assert_array_equal(np.asarray((ta * tb).cpu()), a * b)
    cond = a > 0
    got = strided.where(strided.asarray(cond, device=device), ta, tb)
    np.testing.assert_array_equal(np.asarray(got.cpu()), np.where(cond, a, b))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 5, 7), (2, 3, 5, 7), (37, 41)], ids=str)
def test_layouts_through_every_unravelling_kernel(device, layout, shape, index_width, rng):
    pair = make_layout(layout, values(shape, rng, np.float64), rng)
    if pair is None:
        pytest.skip(f"layout {layout} does not apply")
    t, x = on(device, pair[0]), pair[1]
    where = f"{layout} {shape} on {device}, {index_width} index"
    # unary, binary against itself reversed, where: elementwise.cu's strided branch
    np.testing.assert_array_equal(np.asarray((-t).cpu()), -x, err_msg=where)
    np.testing.assert_allclose(np.asarray(strided.exp(t).cpu()), np.exp(x), rtol=1e-14)
    np.testing.assert_array_equal(np.asarray((t * t).cpu()), x * x, err_msg=where)
    np.testing.assert_array_equal(np.asarray((t + 1.5).cpu()), x + 1.5, err_msg=where)
    np.testing.assert_array_equal(
        np.asarray(strided.where(t > 0, t, 0.5).cpu()), np.where(x > 0, x, 0.5), err_msg=where
    )
    # copy.cu: a cast into a fresh tensor, a copy into a strided one, a fill of a strided one
    np.testing.assert_array_equal(np.asarray(t.astype("float32").cpu()), x.astype(np.float32))
    # (an expanded destination's elements overlap, and writes into it raise: a reversed one)
    dst_layout = "negative-stride" if layout == "expanded" else layout
    dst = on(device, make_layout(dst_layout, np.zeros(x.shape), rng)[0])
    dst.copy_(t)
    np.testing.assert_array_equal(np.asarray(dst.cpu()), x, err_msg=where)
    dst.fill_(2.5)
    np.testing.assert_array_equal(np.asarray(dst.cpu()), np.full(x.shape, 2.5), err_msg=where)
    # index.cu: a gather and a searchsorted over the strided values
    if x.ndim and x.shape[0]:
        idx = np.array([[0, -1], [x.shape[0] - 1, 1 % x.shape[0]]])
        got = t[strided.asarray(idx, device=device)]
        np.testing.assert_array_equal(np.asarray(got.cpu()), x[idx], err_msg=where)
    sorted_ = np.sort(values(50, rng, np.float64))
    got = strided.searchsorted(strided.asarray(sorted_, device=device), t)
    np.testing.assert_array_equal(np.asarray(got.cpu()), np.searchsorted(sorted_, x))


@pytest.mark.parametrize("device", DEVICES)
def test_index_scatter_on_a_transposed_broadcast(device, index_width, rng):
    """index.cu's scatters (plain, last write wins, accumulating) unravel the same way."""
    x = values((7, 5, 3), rng, np.float64)
    v = values((3,), rng, np.float64)  # broadcast over the indexed rows
    idx = np.array([4, 0, 6, 0])
    for accumulate in (False, True):
        t = on(device, strided.asarray(np.ascontiguousarray(x.transpose(2, 1, 0))).permute(2, 1, 0))
        t.index_put_(
            (strided.asarray(idx, device=device),),
            strided.asarray(v, device=device),
            accumulate=accumulate,
        )
        want = x.copy()
        if accumulate:
            np.add.at(want, idx, v)
        else:
            want[idx] = v
        np.testing.assert_allclose(np.asarray(t.cpu()), want, rtol=1e-15)


@pytest.mark.parametrize("numel", [2**30 - 1, 2**30])
def test_a_32_bit_loop_leaves_its_counter_headroom(numel):
    # Note [A 32-bit loop counter's headroom]: a grid-stride loop computes i + stride past its
    # last element, up to ~2n, so 32-bit counting stops at 2**30 elements, not 2**31
    from strided._cpu import binary as _binary

    fits = numel < 2**30
    assert _launch.use_int32((numel,), [(1,), (0,)], (1, 1)) is fits
    one = strided.ones(1, dtype="bool", device="cuda-emulated")
    plan = _binary.binary_plan("logical_and", one.expand(numel), one.expand(numel))
    assert _params.elementwise_geometry(plan, _launch.MAX_DIMS)[3] is fits
    x = strided.ones(1, device="cuda-emulated").expand(numel // 2, 2)
    assert _launch.line_fits_int32(x, 1, x, [(numel // 2, 0)], numel // 2) is (
        numel // 2 * 2 < 2**30
    )
