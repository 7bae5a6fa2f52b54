"""float16 and bfloat16 on CUDA devices, against the CPU kernels (bit for bit where they share
the arithmetic).

The CUDA half types are 16 bits converted by the CPU's own functions (Note [CUDA half types]
in strided/cuda/kernels/common.cuh), so a cast or an elementwise op gives the CPU's bits; every
other kernel runs through float32 as the CPU's does (Note [CUDA half precision through float32]
in strided/cuda/_half.py). ``cuda-emulated`` is always tested, ``cuda`` where a GPU is usable
(tests/devices.py). The CPU's own tests (tests/test_half.py) check the CPU against NumPy's
float16 and ml_dtypes' bfloat16; here the CPU is the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, on, standin_gpu

import strided
from strided import _views

ml_dtypes = pytest.importorskip("ml_dtypes")  # bfloat16's NumPy type, to build test inputs
HALVES = ("float16", "bfloat16")
NUMPY = {"float16": np.dtype(np.float16), "bfloat16": np.dtype(ml_dtypes.bfloat16)}
ALL_BITS = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
UINT_OF = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}
# widened values exact in every format; including 0.5 steps, negatives and zeros of both signs
SMALL = np.array(
    [-3.5, -2.0, -1.25, -0.0, 0.0, 0.5, 1.0, 1.5, 2.75, 4.0, 7.0, 9.5, 12.0, 0.25, 3.0]
)


def half(pattern, name):
    """A CPU tensor of dtype ``name`` holding the uint16 bit patterns ``pattern``."""
    return strided.asarray(pattern.view(NUMPY[name]))


def raw(t):
    """The bytes of a tensor's elements (moved to the CPU, made contiguous) as unsigned ints:
    comparing these compares bits, NaN payloads and zero signs included."""
    if t.dtype.name in HALVES:
        return np.asarray(_views.bits_view(t.cpu().contiguous()))
    a = np.asarray(t.cpu().contiguous())
    return a.view(UINT_OF[a.itemsize]) if a.dtype != bool else a.view(np.uint8)


def _nan_mask(t):
    """Where the tensor holds a NaN, as a bool array of its shape (all False for non-floats)."""
    if t.dtype.kind not in "fc":
        return np.zeros(t.shape, dtype=bool)
    return np.asarray(strided.isnan(t.cpu()).contiguous())


def assert_same(got, want, nan_bits=False):
    """Bit for bit, but a NaN an op computes only as a NaN: IEEE 754 leaves its sign and
    payload to the hardware (x86 makes 0xFE00 of sqrt(-1), a GPU 0x7FFF). Casts compare NaN
    bits too (``nan_bits``): they move the pattern, they do not compute a new NaN."""
    assert got.dtype is want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    g, w = raw(got), raw(want)
    if not nan_bits:
        gn, wn = _nan_mask(got), _nan_mask(want)
        if gn.shape != g.shape:  # complex: a NaN in either half marks both halves' words
            gn, wn = np.repeat(gn, 2, axis=-1), np.repeat(wn, 2, axis=-1)
        np.testing.assert_array_equal(gn, wn)
        g, w = np.where(gn.reshape(g.shape), 0, g), np.where(wn.reshape(w.shape), 0, w)
    np.testing.assert_array_equal(g, w)


# -- casts: every pattern, both ways ---------------------------------------------------------


def _in_range(pattern, name, target):
    """The patterns whose value a cast to ``target`` defines: all for a float, complex or bool
    target; for an integer, the finite values inside its range (C leaves the rest undefined,
    and a GPU saturates where the CPU wraps)."""
    if target.kind not in "iu":
        return pattern
    x = half(pattern, name).astype(strided.float64)
    v = np.asarray(x)
    info = np.iinfo(target.numpy)
    keep = np.isfinite(v) & (v > float(info.min) - 1) & (v < float(info.max) + 1)
    return pattern[keep]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_casts_from_every_pattern_are_the_cpus(device, name):
    for target in [strided._dtype.as_dtype(n) for n in strided._dtype_table.DTYPE_NAMES]:
        pattern = _in_range(ALL_BITS, name, target)
        x = half(pattern, name)
        assert_same(on(device, x).astype(target), x.astype(target), nan_bits=True)
    # strided views cast through the non-contiguous kernel
    x = half(ALL_BITS, name).reshape(256, 256)
    got = on(device, x).mT.astype(strided.float32)
    assert_same(got, x.mT.astype(strided.float32), nan_bits=True)


def _sources():
    """Values of every source dtype that cover each half format's rounding: every float32
    near a rounding boundary and random patterns, every int16/uint16, the ends of the wide
    integers, and each half's 65536 patterns for the other."""
    rng = np.random.default_rng(0)
    f32 = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    f16 = ALL_BITS.view(np.float16).astype(np.float32)
    mids = (f16[:-1].astype(np.float64) + f16[1:]) / 2  # ties of float16 (in order: sorted)
    f32 = np.concatenate([f32, f16, mids[np.isfinite(mids)].astype(np.float32)])
    f64 = rng.integers(0, 1 << 64, 200_000, dtype=np.uint64).view(np.float64)
    f64 = np.concatenate([f64, f32.astype(np.float64) * (1 + 2.0**-30)])
    big = np.concatenate([np.arange(-70000, 70000, 7), [2**31 - 1, -(2**31), 65519, 65520]])
    return {
        "bool": np.array([True, False]),
        "int8": np.arange(-128, 128, dtype=np.int8),
        "uint8": np.arange(256, dtype=np.uint8),
        "int16": ALL_BITS.view(np.int16),
        "uint16": ALL_BITS,
        "int32": big.astype(np.int32),
        "uint32": np.abs(big).astype(np.uint32),
        "int64": np.concatenate([big, [2**63 - 1, -(2**63), 2**40 + 1]]).astype(np.int64),
        "uint64": np.array([0, 1, 2**64 - 1, 2**53 + 1, 65504, 65505], dtype=np.uint64),
        "float32": f32,
        "float64": f64,
        "complex64": (f32[:1000] + 1j * f32[1000:2000]).astype(np.complex64),
        "complex128": f64[:1000] + 1j * f64[1000:2000],
    }


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_casts_to_half_are_the_cpus(device, name):
    target = getattr(strided, name)
    for values in _sources().values():
        x = strided.asarray(values)
        assert_same(on(device, x).astype(target), x.astype(target), nan_bits=True)
    other = half(ALL_BITS, HALVES[1 - HALVES.index(name)])  # the other half: all patterns
    assert_same(on(device, other).astype(target), other.astype(target), nan_bits=True)


# -- elementwise: compute in float, round once -------------------------------------------------

# bit-exact: arithmetic that float computes correctly rounded, or exactly (and the bool results)
# (a few ops of each kind: every module costs the emulator a compile; the CPU's own tests run
# every op on the halves, and every op here goes through the same ``half_op`` wrapper)
EXACT_BINARY = ("add", "divide", "floor_divide", "maximum", "greater", "nextafter")
EXACT_UNARY = ("sqrt", "isnan", "sign")
# the C library's float functions: the GPU's may differ from the CPU's in the last float bit,
# which rounding to 16 bits almost always hides; allowed: one step of the 16-bit pattern
CLOSE_BINARY = ("atan2",)
CLOSE_UNARY = ("exp",)


def _layouts(values):
    """(layout name, CPU tensor) of the same values in each layout."""
    square = values[:15].reshape(3, 5)
    t = strided.asarray(square)
    yield "contiguous", t
    yield "transposed", strided.asarray(np.ascontiguousarray(square.T)).mT
    yield "stepped", strided.asarray(np.repeat(square, 2, axis=0))[::2]
    yield "expanded", strided.asarray(square[:1]).expand(3, 5)
    yield "empty", strided.asarray(square[:0])


def _operands(name):
    """Three CPU half tensors of x's, y's layouts: the small values, specials appended."""
    specials = np.array([np.inf, -np.inf, np.nan, 65504.0, 1e-7, -1e-7, 3.0e38, 0.0])
    x = np.concatenate([SMALL, specials]).astype(np.float32)
    y = np.concatenate([SMALL[::-1] + 0.25, specials[::-1]]).astype(np.float32)
    for layout, t in _layouts(x):
        u = strided.asarray(y[: t.numel()].reshape(t.shape) if t.numel() else y[:0].reshape(0, 5))
        yield layout, t.astype(name), u.astype(name)


def _close(got, want):
    """Equal bits, or NaN in both, or one step of the 16-bit pattern apart."""
    g = raw(got).astype(np.int32)
    w = raw(want).astype(np.int32)
    assert np.all(np.abs(g - w) <= 1), (got, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
@pytest.mark.parametrize("op", EXACT_BINARY + CLOSE_BINARY + EXACT_UNARY + CLOSE_UNARY)
def test_elementwise_ops_are_the_cpus(device, name, op):
    f = getattr(strided, op)
    unary = op in EXACT_UNARY + CLOSE_UNARY
    for layout, x, y in _operands(name):
        args = (x,) if unary else (x, y)
        with np.errstate(all="ignore"), strided.errstate(all="ignore"):
            pairs = [(f(*[on(device, a) for a in args]), f(*args))]
            if not unary:  # a Python float stays weak: a half result
                pairs.append((f(on(device, x), 1.5), f(x, 1.5)))
        for got, want in pairs:
            assert got.device == strided.device(device), layout
            if op in EXACT_BINARY + EXACT_UNARY:
                assert_same(got, want)
            else:
                _close(got, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_nextafter_steps_the_bits_as_the_cpu(device, name):
    # every pattern toward +inf, -inf, zero and NaN: the CPU's steps (NaN, zeros, subnormals)
    x = half(ALL_BITS, name)
    for toward in (np.inf, -np.inf, 0.0, -0.0, np.nan):
        y = strided.full(x.shape, toward, dtype=name)
        assert_same(strided.nextafter(on(device, x), on(device, y)), strided.nextafter(x, y))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_mixed_dtypes_promote_as_on_the_cpu(device, name):
    x = strided.asarray(SMALL).astype(name)
    for other in ("float32", "float16", "bfloat16", "int8", "bool"):
        y = strided.asarray(SMALL[::-1]).astype(other)
        assert_same(strided.add(on(device, x), on(device, y)), strided.add(x, y))
        assert_same(strided.multiply(on(device, y), on(device, x)), strided.multiply(y, x))


# -- moves: where, fill, indexing ---------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_where_fill_and_index_moves_keep_the_bits(device, name):
    x = half(ALL_BITS[::257].copy(), name)  # 256 patterns, NaNs and -0.0 included
    y = half(ALL_BITS[::257] + np.uint16(1), name)
    cond = strided.asarray(np.arange(x.numel()) % 3 == 0)
    dx, dy, dc = on(device, x), on(device, y), on(device, cond)
    assert_same(strided.where(dc, dx, dy), strided.where(cond, x, y))
    assert_same(strided.where(dc, dx, 2.5), strided.where(cond, x, 2.5))
    idx = strided.asarray(np.array([5, 0, 255, 5, 17]))
    assert_same(dx[on(device, idx)], x[idx])
    assert_same(dx[on(device, cond)], x[cond])
    # fill: a scalar rounded as the CPU rounds it; a stepped view takes the kernel, not memset
    for value in (1 / 3, -0.0, 1e6, float("nan")):
        want = strided.zeros((4, 6), dtype=name)
        got = on(device, want)
        want[:, ::2].fill_(value)
        got[:, ::2].fill_(value)
        assert_same(got, want)
    # scatter: plain, and accumulating (each addition in float, rounded once, in order)
    want, got = x.clone(), dx.clone()
    want[idx] = y[:5]
    got[on(device, idx)] = dy[:5]
    assert_same(got, want)
    v = strided.asarray(np.array([0.1, 0.2, 0.3, 1000.0, 0.7], dtype=np.float32)).astype(name)
    base = strided.asarray(np.linspace(-2, 2, 256, dtype=np.float32)).astype(name)
    with _deterministic():
        want = base.clone().index_put_((idx,), v, accumulate=True)
        got = on(device, base).index_put_((on(device, idx),), on(device, v), accumulate=True)
    assert_same(got, want)


class _deterministic:
    """``use_deterministic_algorithms(True)`` for a block: the CUDA scatter-add then adds in
    the CPU's order (Note [Deterministic algorithms] in strided/_config.py)."""

    def __enter__(self):
        self.before = strided.are_deterministic_algorithms_enabled()
        strided.use_deterministic_algorithms(True)

    def __exit__(self, *exc):
        strided.use_deterministic_algorithms(self.before)


# -- everything else: through float32, as the CPU -------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_reductions_scans_sorts_and_matmul_are_the_cpus(device, name):
    rng = np.random.default_rng(1)
    a = rng.integers(-8, 9, (6, 7)).astype(np.float32) / 4  # sums exact in float32
    a[2, 3] = np.nan
    x = strided.asarray(a).astype(name)
    d = on(device, x)
    for op in ("sum", "mean", "max", "argmax"):
        f = getattr(strided, op)
        assert_same(f(d), f(x))
        assert_same(f(d, axis=0), f(x, axis=0))
        assert_same(f(d.mT, axis=1), f(x.mT, axis=1))
    clean = strided.nan_to_num(x)
    dc = on(device, clean)
    assert_same(strided.cumsum(dc, axis=1), strided.cumsum(clean, axis=1))
    assert_same(strided.cumsum(dc.mT, axis=0), strided.cumsum(clean.mT, axis=0))
    assert_same(strided.sort(d, axis=1), strided.sort(x, axis=1))
    assert_same(strided.argsort(d.mT, axis=0), strided.argsort(x.mT, axis=0))
    for got, want in zip(strided.topk(d, 3, dim=1), strided.topk(x, 3, dim=1), strict=True):
        assert_same(got, want)
    assert_same(strided.unique(dc), strided.unique(clean))
    s = strided.sort(clean.reshape(-1))
    assert_same(strided.searchsorted(on(device, s), dc), strided.searchsorted(s, clean))
    assert_same(strided.matmul(dc, dc.mT), strided.matmul(clean, clean.mT))
    assert_same(dc @ on(device, clean.astype("float32")).mT, clean @ clean.astype("float32").mT)
    c = strided.asarray(np.linspace(-1, 1, 6, dtype=np.float32)).astype(name)
    got = strided.addmm(on(device, c), dc, dc.mT, beta=0.5, alpha=1 / 3)
    assert_same(got, strided.addmm(c, clean, clean.mT, beta=0.5, alpha=1 / 3))  # one rounding
    out = on(device, strided.empty((6, 6), dtype=name))
    strided.matmul(dc, dc.mT, out=out)
    assert_same(out, strided.matmul(clean, clean.mT))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_random_fills_round_float32_draws(device, name):
    strided.manual_seed(3)
    u = strided.random.rand(1000, dtype=name, device=device)
    n = strided.random.randn(1000, dtype=name, device=device)
    assert u.dtype.name == name and n.dtype.name == name and u.device == strided.device(device)
    v = np.asarray(u.astype("float32").cpu())
    assert v.min() >= 0 and v.max() <= 1 and len(np.unique(v)) > 50
    m = np.asarray(n.astype("float32").cpu())
    assert abs(m.mean()) < 0.2 and 0.8 < m.std() < 1.2


def _gemm_ex_operands(name):
    """(layout, x1, x2) CPU half pairs whose float32 products sum exactly (integers below 2**24)
    but whose sums need rounding to the half type: one rounding gives one answer."""
    rng = np.random.default_rng(4)
    a = strided.asarray(rng.integers(-40, 41, (2, 5, 6)).astype(np.float32)).astype(name)
    b = strided.asarray(rng.integers(-40, 41, (6, 3)).astype(np.float32)).astype(name)
    yield "contiguous", a[0], b
    yield "transposed", a[0].mT.contiguous().mT, b.mT.contiguous().mT
    yield "stepped and reversed", a[:, ::2][0], b[::-1]
    yield "batch, broadcast", a, b
    yield "expanded batch", a[:1].expand(4, 5, 6), b[None].expand(4, 6, 3)
    yield "vector", a[1], b[:, 0]
    yield "vector first", b[:, 1], a[1].mT
    yield "empty sum", a[0, :, :0], b[:0]
    yield "empty", a[0, :0], b


@pytest.mark.parametrize("name", HALVES)
def test_the_gpu_backend_multiplies_halves_with_gemm_ex(monkeypatch, name):
    # CupyBackend.gemm without a GPU, for the halves: a stand-in for CuPy's binding of
    # cublasGemmStridedBatchedEx (the argument order of cupy_backends.cuda.libs.cublas) that
    # checks the data and compute types, reads alpha and beta through their host addresses as
    # float32, and computes in the emulator's reference. See Note [cuBLAS for half matrices].
    import ctypes
    import types

    from strided.cuda import _backend, _emulator

    data_types = {2: "float16", 14: "bfloat16"}
    calls, mode = [], [0]

    def gemm_ex(handle, transa, transb, m, n, k, alpha, a, atype, lda, sa, b, btype, ldb, sb,
                beta, c, ctype, ldc, sc, count, compute, algo):  # fmt: skip
        assert data_types[atype] == data_types[btype] == data_types[ctype] == name
        assert (compute, algo) == (68, -1)  # CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT
        assert mode[0] & 16, "half sums of split-K pieces are not forbidden"
        one, zero = (np.frombuffer(ctypes.string_at(p, 4), np.float32)[0] for p in (alpha, beta))
        assert (one, zero) == (1, 0)
        calls.append((handle, m, n, k, count))
        ops = {0: "N", 1: "T"}
        _emulator.gemm_strided_batched(name, ops[transa], ops[transb], m, n, k, a, lda, sa, b,
                                       ldb, sb, c, ldc, sc, count)  # fmt: skip

    cublas = types.SimpleNamespace(
        CUBLAS_OP_N=0, CUBLAS_OP_T=1, CUBLAS_POINTER_MODE_HOST=0, CUBLAS_COMPUTE_32F=68,
        CUBLAS_GEMM_DEFAULT=-1,
        setStream=lambda h, s: None, getPointerMode=lambda h: 0,
        getMathMode=lambda h: mode[0], setMathMode=lambda h, m: mode.__setitem__(0, m),
        gemmStridedBatchedEx=gemm_ex,
    )  # fmt: skip
    gpu = standin_gpu(cublas, runtime=types.SimpleNamespace(CUDA_R_16F=2, CUDA_R_16BF=14))
    emulated = _backend.backend_for(strided.device("cuda-emulated"))
    monkeypatch.setattr(emulated, "gemm", gpu.gemm, raising=False)
    for layout, x1, x2 in _gemm_ex_operands(name):
        want = strided.matmul(x1, x2)
        assert_same(strided.matmul(on("cuda-emulated", x1), on("cuda-emulated", x2)), want)
        out = on("cuda-emulated", strided.empty(want.shape, dtype=name))
        strided.matmul(on("cuda-emulated", x1), on("cuda-emulated", x2), out=out)
        assert_same(out, want)
        assert mode[0] == 0, layout  # CuPy's handle is left as it was
    assert calls and all(call[0] == 77 for call in calls)
    assert any(call[-1] == 4 for call in calls)  # the expanded batch: one batched call


@pytest.mark.parametrize("name", HALVES)
def test_emulated_half_matmul_rounds_each_float32_sum_once(name):
    # the emulator's cuBLAS reference itself, against float32 sums rounded by the CPU's cast
    rng = np.random.default_rng(5)
    a = strided.asarray(rng.standard_normal((7, 40)).astype(np.float32)).astype(name)
    b = strided.asarray(rng.standard_normal((40, 9)).astype(np.float32)).astype(name)
    want = (a.astype("float32") @ b.astype("float32")).astype(name)
    got = on("cuda-emulated", a) @ on("cuda-emulated", b).mT.contiguous().mT
    # the sums' order may differ (BLAS kernels): equal, or one step of the 16-bit pattern
    _close(got, want)
    a[0, 0] = float("nan")
    assert bool(strided.isnan((on("cuda-emulated", a) @ on("cuda-emulated", b))[0]).all())


def _reduction_layouts(name):
    """(layout, CPU half tensor) of values whose float32 sums are exact, in every layout; the
    long one takes the split path (partials and a second pass)."""
    rng = np.random.default_rng(6)
    a = rng.integers(-8, 9, (6, 8)).astype(np.float32) / 4
    a[1, 2] = -0.0
    t = strided.asarray(a).astype(name)
    yield "contiguous", t
    yield "transposed", strided.asarray(np.ascontiguousarray(a.T)).astype(name).mT
    yield "stepped", t[::2, 1::3]
    yield "negative-stride", t[::-1, ::-2]
    yield "expanded", t[:1].expand(5, 8)
    yield "0-d", t[2, 3]
    yield "empty", t[:0]
    long = rng.integers(-8, 9, 70_000).astype(np.float32) / 4
    yield "long", strided.asarray(long).astype(name)
    yield "long, with a NaN", strided.asarray(np.where(np.arange(70_000) == 901, np.nan, long))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", HALVES)
def test_half_reductions_read_the_halves_in_one_pass(device, name):
    # Note [Half reductions in one pass]: one kernel (or a split's two), no widened copy, and
    # the CPU's result (float32 reduction, rounded once) bit for bit
    for layout, x in _reduction_layouts(name):
        x = x.astype(name)
        d = on(device, x)
        axes = [None] + list(range(x.ndim))
        for op in ("sum", "prod", "max", "min", "argmax", "argmin", "mean"):
            f = getattr(strided, op)
            for axis in axes:
                if op in ("max", "min", "argmax", "argmin") and x.numel() == 0:
                    continue  # no identity: the CPU's error, tested elsewhere
                kw = {} if axis is None else {"axis": axis}
                with strided.errstate(all="ignore"):
                    want = f(x, **kw)
                    with strided.cuda.trace_launches() as launches:
                        got = f(d, **kw)
                assert_same(got, want)
                kernels = [str(k) for k in launches]
                if op != "mean" and x.numel():  # mean divides after its sum
                    assert all("strided_reduce" in k for k in kernels), (layout, op, kernels)
                    assert any("red_half" in k for k in kernels), (layout, op, kernels)
        want = strided.sum(x, dtype="float32")  # into float32: not rounded to the half type
        assert_same(strided.sum(d, dtype="float32"), want)
        if x.ndim == 2:
            assert_same(
                strided.sum(d, axis=1, keepdims=True), strided.sum(x, axis=1, keepdims=True)
            )
