"""bfloat16 matmul on vdpbf16ps (Note [bfloat16 matmul through vdpbf16ps] in
strided/_cpu/blas.pyx), and the float32 path it replaces, which must stay correct: every test
runs on both paths where the CPU has AVX512_BF16, on the float32 path alone elsewhere.

The oracle is NumPy's float64 product of the same bfloat16 values. Both paths multiply exactly
(a product of two bfloat16 fits a float32) and add k products in float32 in an order of their
own, so each float32 sum s is within e = gamma_k * sum |a||b| of the exact sum C, gamma_k =
k u / (1 - k u) with u = 2^-24; then s is rounded once to bfloat16 (unit roundoff 2^-8). So

    |result - C| <= 2^-8 (|C| + e) + e,

the bound ``_check`` asserts, elementwise.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from layouts import make_layout

import strided
from strided._cpu import blas, cpu_dispatch

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)

HAS_VDPBF16PS = cpu_dispatch.avx512_bf16
PATHS = ["vdpbf16ps", "float32"]


@pytest.fixture(params=PATHS)
def path(request):
    """Run the test with the vdpbf16ps kernel, then with the float32 one."""
    if request.param == "vdpbf16ps" and not HAS_VDPBF16PS:
        pytest.skip("this CPU (or the level it runs) has no AVX512_BF16")
    before = blas._set_bf16_gemm(request.param == "vdpbf16ps")
    yield request.param
    blas._set_bf16_gemm(before)


def _kernel():
    return strided.last_matmul_plan()["kernel"]


VDP = "bf16_gemm (vdpbf16ps)"


def _expect_kernel(path):
    assert (_kernel() == VDP) == (path == "vdpbf16ps"), _kernel()


def _bf16(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(BF16)


def _f64(t):
    return (
        np.asarray(t.astype("float64")) if isinstance(t, strided.Tensor) else t.astype(np.float64)
    )


def _check(got, a, b, c=None, alpha=1.0, beta=0.0):
    """got (a bfloat16 tensor) against alpha * a @ b + beta * c in float64, within the bound of
    the module's docstring (alpha and beta scale the sum's bound as they scale the sum)."""
    assert got.dtype is strided.bfloat16
    a64, b64 = _f64(a), _f64(b)
    exact = alpha * np.matmul(a64, b64)
    k = a64.shape[-1]
    mags = abs(alpha) * np.matmul(abs(a64), abs(b64))
    if c is not None and beta != 0:
        exact = exact + beta * _f64(c)
        mags = mags + abs(beta * _f64(c))
        k += 2
    gamma = k * 2.0**-24 / (1 - k * 2.0**-24)
    e = gamma * mags
    bound = 2.0**-8 * (abs(exact) + e) + e
    g = _f64(got)
    assert g.shape == exact.shape
    bad = ~(abs(g - exact) <= bound)
    assert not bad.any(), (np.argwhere(bad)[:5], g[bad][:5], exact[bad][:5])


# -- shapes at every edge of the tiling (12 x 32 tiles, k in pairs, 256-pair blocks) ----------

SIZES = (1, 2, 15, 16, 17, 31, 33, 64, 100, 513)


@pytest.mark.parametrize("size", SIZES)
def test_every_edge_of_each_dim(path, size, rng):
    for m, n, k in ((size, 33, 17), (17, size, 31), (33, 15, size), (size, size, size)):
        if m * n * k > 40_000_000:
            m = 100
        a, b = _bf16(rng, (m, k)), _bf16(rng, (k, n))
        got = strided.asarray(a) @ strided.asarray(b)
        _expect_kernel(path)
        _check(got, a, b)


@pytest.mark.parametrize("shape", [(513, 100, 257), (100, 513, 100), (64, 256, 784), (12, 32, 256)])
def test_larger_products(path, shape, rng):
    m, n, k = shape
    a, b = _bf16(rng, (m, k)), _bf16(rng, (k, n))
    _check(strided.asarray(a) @ strided.asarray(b), a, b)


# -- layouts: packing reads every one --------------------------------------------------------

LAYOUTS_2D = ("contiguous", "transposed", "stepped", "negative-stride", "expanded", "empty")


@pytest.mark.parametrize("la", LAYOUTS_2D)
@pytest.mark.parametrize("lb", LAYOUTS_2D)
def test_every_layout_of_each_operand(path, la, lb, rng):
    # k odd: every panel of A packed; k even: a row-major A (contiguous, negative-stride,
    # expanded rows) is read where it lies but for its last, partial panel of 12 rows
    for m, k, n in ((37, 45, 50), (37, 44, 50)):
        ta, a = make_layout(la, _bf16(rng, (m, k)), rng)
        tb, b = make_layout(lb, _bf16(rng, (k, n)), rng)
        if a.shape[1] != b.shape[0]:  # "empty" cuts dim 1: an empty k of A, or an empty n of B
            continue
        _check(ta @ tb, a, b)


def test_rows_of_a_read_where_they_lie(path, rng):
    # contiguous rows and even k: panels of A are not copied, whatever the step between rows
    base, b = _bf16(rng, (80, 64)), _bf16(rng, (64, 40))
    t, tb = strided.asarray(base), strided.asarray(b)
    views = {
        "rows reversed": (t[::-1], base[::-1]),
        "every other row": (t[1::2], base[1::2]),
        "one row expanded": (t[3:4].expand(30, 64), np.broadcast_to(base[3:4], (30, 64))),
        "columns sliced": (t[:, 2:62], base[:, 2:62]),
        "odd column offset": (t[:, 1:63], base[:, 1:63]),
    }
    for ta, a in views.values():
        _check(ta @ tb[: a.shape[1]], a, b[: a.shape[1]])
        _expect_kernel(path)


@pytest.mark.parametrize("layout", ["transposed", "stepped", "negative", "float32"])
def test_out_in_every_layout(path, layout, rng):
    a, b = _bf16(rng, (40, 33)), _bf16(rng, (33, 70))
    if layout == "transposed":
        out = strided.empty((70, 40), dtype="bfloat16").T
    elif layout == "stepped":
        full = strided.zeros((80, 210), dtype="bfloat16")
        out = full[::2, ::3]
    elif layout == "negative":
        out = strided.empty((40, 70), dtype="bfloat16")[::-1, ::-1]
    else:
        out = strided.empty((40, 70), dtype="float32")
    res = strided.matmul(strided.asarray(a), strided.asarray(b), out=out)
    assert res is out
    want = strided.asarray(a) @ strided.asarray(b)  # bit for bit: the layout of C changes nothing
    np.testing.assert_array_equal(_f64(out), _f64(want))
    if layout == "stepped":  # nothing outside the view was written
        assert not np.asarray(full.astype("float32"))[1::2].any()
        assert not np.asarray(full.astype("float32"))[:, 1::3].any()


def test_out_that_overlaps_an_input(path, rng):
    a = strided.asarray(_bf16(rng, (30, 30)))
    want = a @ a
    strided.matmul(a, a, out=a)
    np.testing.assert_array_equal(_f64(a), _f64(want))


# -- vectors, batches, broadcast batches ------------------------------------------------------


def test_vectors(path, rng):
    v, w, mat = _bf16(rng, 65), _bf16(rng, 65), _bf16(rng, (65, 31))
    tv, tw, tm = strided.asarray(v), strided.asarray(w), strided.asarray(mat)
    got = tv @ tw
    assert got.shape == ()
    _check(got, v, w)
    _check(tv @ tm, v, mat)
    _check(tm.T @ tv, mat.T, v)
    _check(tv[::-2] @ tm[::-2], v[::-2], mat[::-2])


@pytest.mark.parametrize("threads", [1, 2])
def test_batches_and_broadcast_batches(path, threads, rng):
    strided.set_num_threads(threads)
    a, b = _bf16(rng, (3, 1, 17, 40)), _bf16(rng, (4, 40, 33))
    got = strided.asarray(a) @ strided.asarray(b)
    assert got.shape == (3, 4, 17, 33)
    _check(got, a, b)
    # a broadcast B (x @ w with a 3-d x): packed once, the same answer as one product each
    x, w = _bf16(rng, (5, 20, 64)), _bf16(rng, (64, 48))
    got = strided.asarray(x) @ strided.asarray(w)
    _check(got, x, w)
    for i in range(5):
        one = strided.asarray(x[i]) @ strided.asarray(w)
        np.testing.assert_array_equal(_f64(got[i]), _f64(one))
    # many small products: split across the batch at 2 threads, a workspace each
    p, q = _bf16(rng, (300, 5, 24)), _bf16(rng, (300, 24, 7))
    tp = strided.asarray(p).transpose(0, 2, 1).copy().transpose(0, 2, 1)
    _check(tp @ strided.asarray(q)[::-1], p, q[::-1])


def test_threads_do_not_change_the_bits(path, rng):
    # every element's sum runs over k in one order, whatever the split of C between threads
    a, b = _bf16(rng, (300, 700)), _bf16(rng, (700, 260))
    strided.set_num_threads(1)
    one = strided.asarray(a) @ strided.asarray(b)
    strided.set_num_threads(2)
    two = strided.asarray(a) @ strided.asarray(b)
    if path == "vdpbf16ps":
        np.testing.assert_array_equal(_f64(one), _f64(two))
    _check(two, a, b)


# -- addmm: alpha, beta, the input broadcast ---------------------------------------------------


@pytest.mark.parametrize("alpha, beta", [(1, 0), (1, 1), (0.5, -2.0), (3, 0), (0, 1)])
def test_addmm(path, alpha, beta, rng):
    c, a, b = _bf16(rng, (1, 50)), _bf16(rng, (20, 35)), _bf16(rng, (35, 50))
    got = strided.addmm(
        strided.asarray(c), strided.asarray(a), strided.asarray(b), alpha=alpha, beta=beta
    )
    _check(got, a, b, np.broadcast_to(c, (20, 50)), alpha, beta)


def test_addmm_with_beta_0_ignores_nan_in_the_input(path, rng):
    a, b = _bf16(rng, (20, 35)), _bf16(rng, (35, 50))
    c = strided.full((20, 50), float("nan"), dtype="bfloat16")
    got = strided.addmm(c, strided.asarray(a), strided.asarray(b), beta=0)
    _check(got, a, b)


# -- the floating-point edges -----------------------------------------------------------------


def test_empty_and_zero_k(path):
    a, b = strided.ones((5, 0), dtype="bfloat16"), strided.ones((0, 4), dtype="bfloat16")
    got = a @ b
    assert got.shape == (5, 4) and not np.asarray(got.astype("float32")).any()
    assert (
        strided.ones((0, 3), dtype="bfloat16") @ strided.ones((3, 4), dtype="bfloat16")
    ).shape == (
        0,
        4,
    )


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_inf_and_nan_propagate_as_in_float32(path):
    a = np.array([[np.inf, 1], [0, 1], [np.nan, 1], [1, 1], [np.inf, 1]], dtype=BF16)
    b = np.array([[1, 0, 2], [1, 1, -np.inf]], dtype=BF16)
    got = _f64(strided.asarray(a) @ strided.asarray(b))
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_array_equal(got, want.astype(BF16).astype(np.float64))


def test_subnormals(path):
    # vdpbf16ps reads subnormal inputs as 0 and flushes subnormal sums to 0 (DAZ, FTZ); the
    # float32 path keeps both: Note [bfloat16 matmul through vdpbf16ps] states the difference
    tiny = np.array([[2.0**-130, 1.0]], dtype=BF16)  # a bfloat16 subnormal
    big = np.array([[2.0**100], [0.0]], dtype=BF16)
    got = (strided.asarray(tiny) @ strided.asarray(big)).item()
    assert got == (0.0 if path == "vdpbf16ps" else 2.0**-30)
    small = np.array([[2.0**-64, 2.0**-64]], dtype=BF16)  # normal, product 2^-128 is not
    got = (strided.asarray(small) @ strided.asarray(small.T)).item()
    assert got == (0.0 if path == "vdpbf16ps" else 2.0**-127)
    # normal products whose sum is normal are exact as ever
    got = (strided.asarray(small) @ strided.asarray(np.array([[2.0**60], [2.0**60]], BF16))).item()
    assert got == 2.0**-3


def test_subnormals_as_pytorch_gives_them_at_64x64(path):
    # PyTorch's bfloat16 matmul runs the same instruction at this size on a CPU with
    # AVX512_BF16 (at some small sizes, 16 x 16, it takes a kernel that keeps subnormals)
    torch = pytest.importorskip("torch")
    if path != "vdpbf16ps":
        pytest.skip("the float32 path keeps subnormals")
    a = np.tile(np.array([[2.0**-130, 1.0], [2.0**-64, 2.0**-64]], dtype=BF16), (32, 1))
    b = np.tile(np.array([[2.0**100, 2.0**-64], [0.0, 2.0**-64]], dtype=BF16), (1, 32))
    got = _f64(strided.asarray(a) @ strided.asarray(b))
    ta, tb = (torch.tensor(x.astype(np.float32)).bfloat16() for x in (a, b))
    np.testing.assert_array_equal(got, (ta @ tb).double().numpy())
    assert not got[0, 0] and not got[1, 1]


def test_other_dtypes_keep_their_paths(path, rng):
    a, b = _bf16(rng, (20, 30)), _bf16(rng, (30, 10))
    mixed = strided.asarray(a) @ strided.asarray(b.astype(np.float32))
    assert mixed.dtype is strided.float32 and _kernel() != VDP
    ints = strided.asarray(np.arange(30, dtype=np.int8).reshape(1, 30) % 7)
    got = ints @ strided.asarray(b)
    assert got.dtype is strided.bfloat16
    _check(got, np.arange(30).reshape(1, 30) % 7, b)
    half = strided.asarray(a.astype(np.float16)) @ strided.asarray(b.astype(np.float16))
    assert half.dtype is strided.float16 and _kernel() != VDP


def _view(base, flip0, flip1, step0, step1, transpose):
    """A view of a NumPy array: reversed, stepped and transposed as drawn."""
    v = base[:: -step0 if flip0 else step0, :: -step1 if flip1 else step1]
    return v.T if transpose else v


def test_random_shapes_and_strides(path):
    hypothesis = pytest.importorskip("hypothesis")
    hs = hypothesis.strategies
    views = hs.tuples(
        hs.booleans(), hs.booleans(), hs.integers(1, 3), hs.integers(1, 3), hs.booleans()
    )

    @hypothesis.settings(max_examples=60, deadline=None, derandomize=True)
    @hypothesis.given(hs.integers(0, 40), hs.integers(0, 70), hs.integers(0, 40), views, views)
    def check(m, k, n, va, vb):
        rng = np.random.default_rng(m * 10007 + k * 101 + n)
        # bases big enough that the views, after their steps, are m x k and k x n
        sa = (k, m) if va[4] else (m, k)
        sb = (n, k) if vb[4] else (k, n)
        base_a = _bf16(rng, (sa[0] * va[2], sa[1] * va[3]))
        base_b = _bf16(rng, (sb[0] * vb[2], sb[1] * vb[3]))
        a, b = _view(base_a, *va), _view(base_b, *vb)
        ta, tb = _view(strided.asarray(base_a), *va), _view(strided.asarray(base_b), *vb)
        assert ta.shape == a.shape == (m, k) and tb.shape == b.shape == (k, n)
        _check(ta @ tb, a, b)

    check()


# -- the switches -----------------------------------------------------------------------------

_SCRIPT = (
    "import strided as st\n"
    "a = st.ones((40, 40), dtype='bfloat16')\n"
    "b = a @ a\n"
    "assert b.item(0, 0) == 40\n"
    "print(st.last_matmul_plan()['kernel'])\n"
)


@pytest.mark.parametrize(
    "env, want",
    [
        ({}, VDP if HAS_VDPBF16PS else "cblas_sgemm"),
        ({"STRIDED_BF16_GEMM": "0"}, "cblas_sgemm"),
        ({"STRIDED_CPU_FEATURES": "x86-64-v3"}, "cblas_sgemm"),
    ],
)
def test_the_environment_chooses_the_path(env, want):
    env = {k: v for k, v in os.environ.items() if k not in ("STRIDED_BF16_GEMM",)} | env
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == want, done.stderr


def test_the_switch_cannot_turn_on_what_the_cpu_lacks():
    before = blas._set_bf16_gemm(True)
    try:
        assert blas._set_bf16_gemm(True) == HAS_VDPBF16PS
    finally:
        blas._set_bf16_gemm(before)


def test_cpuid_agrees_with_the_kernel():
    from strided._cpu import cpu_features

    has = cpu_features.has_avx512_bf16()
    assert isinstance(has, bool)
    assert not HAS_VDPBF16PS or (cpu_dispatch.level >= 4 and has)
    if os.path.exists("/proc/cpuinfo"):  # Linux lists the CPUID bits it saw as flags
        with open("/proc/cpuinfo") as f:
            flags = next((line.split() for line in f if line.startswith("flags")), [])
        if flags:
            assert has == ("avx512_bf16" in flags)
