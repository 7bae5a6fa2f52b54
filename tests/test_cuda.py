"""The CUDA backend against NumPy, on every CUDA device this machine can use.

``cuda-emulated`` (strided's kernels compiled by g++ and run by the CPU emulator) is always
tested; ``cuda`` (a real GPU through CuPy) when ``cupy.is_available()``, else skipped with the
reason. ``STRIDED_REQUIRE_GPU=1`` turns that skip into a failure (for runs on a GPU machine).

Every elementwise row of the OpInfo table runs on each device: every dtype on contiguous inputs,
every layout (transposed, stepped, negative-stride, expanded, 0-d, empty) on one dtype of each
kind, with out= and in-place variants; the answer is compared with NumPy's, as on the CPU.
Then: copies between devices with casts and broadcasting, creation functions with ``device=``,
errors (mixed devices, missing backends, ops without a CUDA kernel), the memory pool.
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, GPU, NVRTC_ONLY, on, standin_gpu
from layouts import ALL_DTYPES, LAYOUTS, make_layout, make_values
from opinfo_elementwise import EW_OPS, check, dtype_of, quiet, ranged, reference
from test_elementwise_edge_cases import assert_same_bits, nextafter_cases

import strided
from strided.cuda import _backend

SHAPE = (4, 1, 3, 5)
FEW_DTYPES = (strided.bool, strided.int8, strided.float32, strided.complex128)
# complex functions on CUDA follow the formulas, not C99's Annex G at inf/NaN (Note [CUDA
# complex functions] in strided/cuda/_elementwise.py): they are compared on finite values
COMPLEX_FORMULAS = {
    "exp",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "pow",
    "divide",
    "reciprocal",
    "sign",
    "abs",
    "multiply",
    "square",
    "lerp",
}


def check_on_device(op, got, exp, where, dtype, tol_dtype=None):
    """``check`` of the CPU tests; for the complex formulas, on the finite answers only."""
    with quiet():  # a division by zero's warning comes when the host waits: here
        got = got.cpu()
    if dtype.kind == "c" and op.name in COMPLEX_FORMULAS and exp.dtype.kind == "c":
        finite = np.isfinite(exp)
        assert got.shape == exp.shape and got.dtype.numpy == exp.dtype, where
        rtol, atol = op.tolerances.get(tol_dtype or got.dtype, (1e-5, 1e-6))
        np.testing.assert_allclose(
            np.asarray(got)[finite], exp[finite], rtol=rtol, atol=atol, err_msg=where
        )
        return
    check(op, got, exp, where, tol_dtype=tol_dtype)


def host(t):
    return t.cpu() if isinstance(t, strided.Tensor) else t


class _Host:
    """Wraps a device result so the CPU-side ``check`` reads it as a CPU tensor."""


def _cases():
    for op in EW_OPS:
        for layout in LAYOUTS:
            for dtype in ALL_DTYPES if layout == "contiguous" else FEW_DTYPES:
                if dtype in op.dtypes:
                    yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")


# finite complex values off the axes: the CUDA formulas do not honour the sign of a zero part
# on a branch cut (Note [CUDA complex functions])
FINITE_C = ranged(complex_zeros=False)


def _domain(op, k, dtype):
    make = op.domains[k]
    if dtype.kind == "c" and op.name in COMPLEX_FORMULAS:
        return FINITE_C
    return make


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,layout,dtype", list(_cases()))
def test_op_matches_numpy(device, op, layout, dtype, rng):
    values = [_domain(op, k, dtype)(SHAPE, dtype, rng) for k in range(op.nargs)]
    pairs = [make_layout(layout, v, rng) for v in values]
    if any(p is None for p in pairs):
        pytest.skip(f"layout {layout} does not apply")
    ts = [on(device, p[0]) for p in pairs]
    arrs = [p[1] for p in pairs]
    where = f"{op.name} on {layout} {dtype.name} inputs on {device}"
    exp = reference(op, *arrs)
    with quiet():
        got = op.op(*ts)
    assert got.device == strided.device(device), where
    check_on_device(op, got, exp, where, dtype)
    if op.supports_out:
        out = (
            strided.empty(exp.shape[::-1], dtype=dtype_of(exp.dtype), device=device).T
            if exp.ndim >= 2
            else strided.empty(exp.shape, dtype=dtype_of(exp.dtype), device=device)
        )
        with quiet():
            res = op.op(*ts, out=out)
        assert res is out, where
        check_on_device(op, out, exp, f"{where}, into out=", dtype)
    if op.supports_inplace and layout in ("contiguous", "transposed", "negative-stride"):
        k = op.inplace_arg
        if np.can_cast(exp.dtype, arrs[k].dtype, "same_kind"):
            target = on(device, pairs[k][0])
            args = list(ts)
            args[k] = target
            with quiet():
                op.op(*args, out=target)
            check_on_device(
                op,
                target,
                exp.astype(arrs[k].dtype),
                f"{where}, in place",
                dtype,
                tol_dtype=dtype_of(exp.dtype),
            )


@pytest.mark.parametrize("device", DEVICES)
def test_broadcasting_and_weak_scalars(device, rng):
    a = rng.standard_normal((3, 1, 4)).astype(np.float32)
    b = rng.standard_normal((5, 1)).astype(np.float32)
    ta, tb = strided.asarray(a, device=device), strided.asarray(b, device=device)
    np.testing.assert_allclose((ta * tb + 1.5).cpu(), a * b + np.float32(1.5), rtol=1e-6)
    i8 = strided.asarray(np.arange(-3, 3, dtype=np.int8), device=device)
    r = i8 * 2
    assert r.dtype is strided.int8 and r.device == strided.device(device)
    np.testing.assert_array_equal(r.cpu(), np.arange(-3, 3, dtype=np.int8) * 2)
    np.testing.assert_array_equal((i8 < 1000).cpu(), np.ones(6, bool))  # out-of-range int
    np.testing.assert_array_equal((1 - i8).cpu(), 1 - np.arange(-3, 3, dtype=np.int8))
    w = strided.where(i8 > 0, i8, -1)
    np.testing.assert_array_equal(w.cpu(), np.where(np.arange(-3, 3) > 0, np.arange(-3, 3), -1))
    np.testing.assert_array_equal(strided.clip(i8, -1, 1).cpu(), np.clip(np.arange(-3, 3), -1, 1))


@pytest.mark.parametrize("device", DEVICES)
def test_integer_division_flags(device):
    a = strided.asarray([5, -7, 3], dtype="int32", device=device)
    b = strided.asarray([2, 0, -2], dtype="int32", device=device)
    # the kernels flag; the host hears of it when it next waits for the device (Note [Errors
    # found on the device are reported at the next synchronisation]): the op itself never waits
    q = a // b
    with pytest.warns(RuntimeWarning, match="division by zero") as record:
        got = q.cpu()
    assert record[0].filename == __file__  # the warning points at the line that waited
    np.testing.assert_array_equal(got, [2, 0, -2])
    p = a**b
    with pytest.raises(ValueError, match="negative integer powers"):
        strided.cuda.synchronize(p.device)
    strided.cuda.synchronize(p.device)  # reported once
    out = strided.zeros(3, dtype="int32", device=device)
    with pytest.raises(ValueError, match="negative integer powers"):
        strided.pow(a, b, out=out)  # with out=, pow waits: out is untouched
    np.testing.assert_array_equal(out.cpu(), [0, 0, 0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_steps_through_the_subnormals(device, dtype):
    # CUDA's own nextafterf steps from 0 straight to the smallest normal; the kernels use
    # scalar_math.h's, which steps the bits as the C library does
    x, y = nextafter_cases(dtype)
    got = strided.nextafter(strided.asarray(x, device=device), strided.asarray(y, device=device))
    assert_same_bits(got.cpu(), np.nextafter(x, y), f"nextafter on {device}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FEW_DTYPES + (strided.float64, strided.uint16))
def test_transfers_keep_values(device, layout, dtype, rng):
    pair = make_layout(layout, make_values(SHAPE, dtype, rng), rng)
    if pair is None:
        pytest.skip("layout does not apply")
    t, a = pair
    d = t.to(device)
    assert d.device == strided.device(device) and d.is_cuda and d.dtype is dtype
    np.testing.assert_array_equal(d.cpu(), a, strict=True)
    dl = on(device, t)  # a device tensor in the same layout, copied back
    np.testing.assert_array_equal(dl.cpu(), a, strict=True)
    np.testing.assert_array_equal(dl.contiguous().cpu(), a, strict=True)
    np.testing.assert_array_equal(dl.clone().cpu(), a, strict=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "src", ["bool", "int8", "uint8", "int64", "float32", "float64", "complex64"]
)
@pytest.mark.parametrize("dst", ["bool", "int16", "uint32", "float32", "float64", "complex128"])
def test_casts_on_device(device, src, dst, rng):
    a = (rng.integers(0, 100, (3, 4)) * 1.0).astype(src)  # in range for every pair
    t = strided.asarray(a, device=device)
    want = (
        a.astype(dst)
        if not (np.dtype(src).kind == "c" and np.dtype(dst).kind != "c")
        else a.real.astype(dst)
    )
    np.testing.assert_array_equal(t.T.astype(dst).cpu(), want.T)
    out = strided.empty((4, 3), dtype=dst, device=device)
    out.copy_(t.T)
    np.testing.assert_array_equal(out.cpu(), want.T)
    back = strided.empty((3, 4), dtype=dst)
    back.copy_(t)  # device -> host with a cast
    np.testing.assert_array_equal(np.asarray(back), want)
    up = strided.empty((3, 4), dtype=dst, device=device)[:, ::-1]
    up.copy_(strided.asarray(a))  # host -> a non-contiguous device tensor with a cast
    np.testing.assert_array_equal(up.cpu(), want)


@pytest.mark.parametrize("device", DEVICES)
def test_copy_broadcast_and_overlap(device):
    d = strided.zeros((3, 4), dtype="float64", device=device)
    d.copy_(strided.arange(4.0, device=device))
    np.testing.assert_array_equal(d.cpu(), np.broadcast_to(np.arange(4.0), (3, 4)))
    d[1:].copy_(d[:-1] * 0 + d[:-1] + 1)
    x = strided.arange(10, device=device)
    x[1:].copy_(x[:-1])  # overlapping: read everything first
    np.testing.assert_array_equal(x.cpu(), [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    with pytest.raises(RuntimeError, match="share memory"):
        strided.zeros(3, device=device).expand(2, 3).copy_(strided.ones(3))
    with pytest.raises(ValueError, match="broadcast"):
        strided.zeros(3, device=device).copy_(strided.ones(4, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_creation_on_device(device):
    dev = strided.device(device)
    cases = [
        (strided.zeros((2, 3), device=device), np.zeros((2, 3))),
        (strided.ones(4, dtype="int8", device=device), np.ones(4, np.int8)),
        (strided.full((2, 2), 1.5 + 2j, device=device), np.full((2, 2), 1.5 + 2j)),
        (strided.full((2, 2), 7, dtype="uint16", device=device), np.full((2, 2), 7, np.uint16)),
        (strided.arange(10, device=device), np.arange(10)),
        (strided.arange(1.0, 2.0, 0.25, device=device), np.arange(1.0, 2.0, 0.25)),
        (strided.arange(3, 30, 4, dtype="uint8", device=device), np.arange(3, 30, 4, np.uint8)),
        # computed in double and rounded once, as strided does on the CPU (NumPy's float32
        # arange steps in float32 and can differ in the last bit)
        (
            strided.arange(0, 1, 0.1, dtype="float32", device=device),
            np.asarray(strided.arange(0, 1, 0.1, dtype="float32")),
        ),
        (strided.linspace(0, 1, 5, device=device), np.linspace(0, 1, 5)),
        (strided.eye(3, k=1, device=device), np.eye(3, k=1)),
        (strided.asarray([[1, 2], [3, 4]], device=device), np.array([[1, 2], [3, 4]])),
        (
            strided.tensor([1.5, 2.5], dtype="float32", device=device),
            np.array([1.5, 2.5], np.float32),
        ),
    ]
    for t, a in cases:
        assert t.device is dev
        np.testing.assert_array_equal(t.cpu(), a, strict=True)
    x = strided.arange(6.0, device=device).reshape(2, 3)
    for like, a in [
        (strided.zeros_like(x), np.zeros((2, 3))),
        (strided.ones_like(x), np.ones((2, 3))),
        (strided.full_like(x, 3), np.full((2, 3), 3.0)),
    ]:
        assert like.device is dev
        np.testing.assert_array_equal(like.cpu(), a, strict=True)
    assert strided.empty_like(x).device is dev
    assert x[1, 2].item() == 5.0 and x.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert "device='" in repr(x) or str(dev) in repr(x)


@pytest.mark.parametrize("device", DEVICES)
def test_views_stay_on_device(device):
    x = strided.arange(24, device=device).reshape(2, 3, 4)
    for v, a in [
        (x.T, np.arange(24).reshape(2, 3, 4).T),
        (x[:, ::-1, 1::2], np.arange(24).reshape(2, 3, 4)[:, ::-1, 1::2]),
        (x.flip(0), np.arange(24).reshape(2, 3, 4)[::-1]),
    ]:
        assert v.device == x.device and v.untyped_storage() is x.untyped_storage()
        np.testing.assert_array_equal(v.cpu(), a)
        np.testing.assert_array_equal((v + 0).cpu(), a)


@pytest.mark.parametrize("device", DEVICES)
def test_errors_name_devices_and_missing_kernels(device):
    x = strided.ones(3, device=device)
    with pytest.raises(RuntimeError, match=f"cpu and {device}|{device}.* and cpu"):
        x + strided.ones(3)
    from strided import _dispatch

    _dispatch.register("test_cpu_only_op", "CPU", lambda t: t)  # an op with no CUDA kernel
    with pytest.raises(NotImplementedError, match="CUDA dispatch key.*cpu"):
        _dispatch.call("test_cpu_only_op", strided.ones((3, 3), device=device))
    _dispatch._kernels.pop("test_cpu_only_op")
    with pytest.raises(TypeError, match="cpu"):
        np.asarray(x)
    with pytest.raises(TypeError, match="does not support dtype"):
        strided.bitwise_and(x, x)


def test_device_names_and_errors():
    assert str(strided.device("cuda-emulated")) == "cuda-emulated:0"
    assert strided.device("cuda-emulated") == "cuda-emulated:0"
    assert strided.ones(2, device="cuda-emulated").is_cuda
    assert not strided.ones(2).is_cuda
    with pytest.raises(ValueError, match="cuda-emulated"):
        strided.device("gpu")
    with pytest.raises(_backend.CudaUnavailableError, match="one emulated CUDA device"):
        strided.zeros(2, device="cuda-emulated:1")
    assert strided.cuda.get_device_name("cuda-emulated") == "strided CPU emulator"


@pytest.mark.skipif(GPU, reason="this machine has a GPU")
def test_cuda_without_gpu_says_what_is_missing():
    with pytest.raises(_backend.CudaUnavailableError, match="cuda-emulated"):
        strided.zeros(3, device="cuda")
    assert strided.cuda.is_available() is False
    assert strided.cuda.device_count() == 0


@pytest.mark.parametrize("device", DEVICES)
def test_memory_pool_counts(device):
    strided.cuda.synchronize(device)
    before = strided.cuda.memory_allocated(device)
    x = strided.empty(1 << 20, dtype="uint8", device=device)
    assert strided.cuda.memory_allocated(device) >= before + (1 << 20)
    assert strided.cuda.memory_reserved(device) >= strided.cuda.memory_allocated(device)
    del x
    assert strided.cuda.memory_allocated(device) <= before + 4096
    strided.cuda.empty_cache(device)


@pytest.mark.skipif(not GPU, reason="needs a GPU and CuPy")
def test_interop_with_cupy_zero_copy():
    import cupy

    c = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)[:, ::2]
    t = strided.asarray(c)
    assert t.device == strided.device("cuda:0") and t.stride() == (4, 2)
    c[0, 0] = 42
    assert t[0, 0].item() == 42.0
    back = cupy.asarray(t)
    assert back.data.ptr == c.data.ptr
    cupy.testing.assert_array_equal(back, c)
    d = strided.from_dlpack(c)
    assert d.data_ptr() == c.data.ptr
    e = cupy.from_dlpack(t)
    assert e.data.ptr == c.data.ptr


@NVRTC_ONLY
def test_every_kernel_compiles_for_sm90_without_spills(capsys):
    """sm_90 only: both archs take ~25 CPU-minutes, beyond CI's budget (compile_check's
    docstring); sm_80 is compiled by ``python -m strided.cuda.compile_check``."""
    from strided.cuda import compile_check

    assert compile_check.nvrtc_available(), "STRIDED_REQUIRE_NVRTC=1 but NVRTC cannot be loaded"
    rc = compile_check.main(["--arch=sm_90"])
    out = capsys.readouterr().out
    assert rc == 0, out


# ---------------------------------------------------------------------------------------------
# Reductions (Note [CUDA reductions]): the same answers as the CPU kernels, which are tested
# against NumPy in test_reduction.py; floats within rounding (another summation order)
# ---------------------------------------------------------------------------------------------

REDUCTIONS = [
    "sum",
    "prod",
    "max",
    "min",
    "any",
    "all",
    "argmax",
    "argmin",
    "mean",
    "var",
    "std",
    "count_nonzero",
    "logsumexp",
]
RED_SHAPES = [
    ((6, 7, 5), None),
    ((6, 7, 5), 1),
    ((6, 7, 5), (0, 2)),
    ((6, 7, 5), 2),
    ((6, 7, 5), 0),
    ((3000, 5), 0),
    ((5, 3000), 1),
    ((20000,), None),
    ((0, 4), 1),
    ((4, 0), 1),
    ((), None),
]


def _red_call(name, x, axis, keep):
    fn = getattr(strided, name)
    if name in ("argmax", "argmin"):
        if isinstance(axis, tuple):
            axis = axis[0]
        return fn(x, axis=axis, keepdims=keep)
    return fn(x, axis=axis, keepdims=keep)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize(
    "dtype",
    [
        strided.float32,
        strided.float64,
        strided.int32,
        strided.bool,
        strided.uint8,
        strided.complex64,
    ],
)
def test_reductions_match_the_cpu(device, name, dtype, rng):
    if dtype.kind == "c" and name == "logsumexp":
        pytest.skip("no ordering of complex numbers")
    if dtype.kind in "biu" and name in ("logsumexp",):
        pytest.skip("float only")
    for shape, axis in RED_SHAPES:
        # long lines in every layout with elements (0-d and empty shapes are in RED_SHAPES):
        # the kernels' block and grid strategies read stepped and expanded inputs too
        for layout in ("contiguous", "transposed", "stepped", "negative-stride", "expanded"):
            vals = make_values(shape, dtype, rng)
            if dtype.kind in "fc":  # moderate values: extremes make the result order-dependent
                lo, hi = (0.8, 1.25) if name == "prod" else (-2.0, 2.0)
                vals = rng.uniform(lo, hi, shape).astype(dtype.numpy)
                if dtype.kind == "c":
                    vals = vals + 1j * rng.uniform(lo, hi, shape).astype(vals.dtype)
                    if name == "prod":  # on the unit circle: long products stay finite
                        vals = np.exp(1j * rng.uniform(-1, 1, shape)).astype(dtype.numpy)
            pair = make_layout(layout, vals, rng)
            if pair is None:
                continue
            t = pair[0]
            d = on(device, t)
            where = f"{name} {dtype.name} {layout} {shape} axis={axis} on {device}"
            for keep in (False, True):
                try:
                    with quiet():
                        want = _red_call(name, t, axis, keep)
                except (ValueError, TypeError, IndexError) as e:
                    with pytest.raises(type(e)):
                        _red_call(name, d, axis, keep)
                    continue
                with quiet():
                    got = _red_call(name, d, axis, keep)
                assert got.device == d.device, where
                assert got.shape == want.shape and got.dtype is want.dtype, where
                g, w = np.asarray(got.cpu()), np.asarray(want)
                if want.dtype.kind in "fc":
                    tol = 1e-4 if want.dtype in (strided.float32, strided.complex64) else 1e-10
                    if layout == "expanded":
                        # n equal values: a tree of products makes the same rounding error at
                        # every node, and those add up to n * eps (the CPU's sequential order
                        # makes different ones, a random walk); both are within the n * eps
                        # bound of any order
                        n = t.numel() // max(want.numel(), 1)
                        tol = max(tol, 2 * n * np.finfo(w.dtype).eps)
                    np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=where)
                else:
                    np.testing.assert_array_equal(g, w, err_msg=where)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype",
    [
        strided.bool,
        strided.int8,
        strided.int16,
        strided.float32,
        strided.float64,
        strided.complex128,
    ],
    ids=lambda d: d.name,
)
def test_reductions_over_contiguous_runs_at_every_alignment(device, dtype, rng):
    """The block kernel's vector loads (Note [Vector loads in the block reduction]): runs that
    start at every element offset from a 16-byte boundary, of lengths with a head, whole
    vectors and a tail, short (one chunk) and long (split into chunks and combined by a second
    pass), give the CPU's answer; argmax's ties (the first index wins) and NaNs included."""
    for n in (1, 5, 37, 4096 + 13, 70_001):
        base = make_values((n + 16,), dtype, rng)
        if dtype.kind == "f":
            base = rng.integers(-3, 4, n + 16).astype(dtype.numpy)  # ties for argmax
            base[rng.integers(0, n + 16)] = np.nan
        t_all = strided.asarray(base)
        d_all = on(device, t_all)
        for start in range(16 // dtype.itemsize if dtype.itemsize < 16 else 1):
            t, d = t_all[start : start + n], d_all[start : start + n]
            names = ["sum", "max", "argmax"] if dtype.kind != "c" else ["sum"]
            if dtype.kind == "b":
                names = ["any", "all", "sum"]
            for name in names:
                where = f"{name} of {n} {dtype.name} starting at element {start} on {device}"
                want = np.asarray(getattr(strided, name)(t))
                got = np.asarray(getattr(strided, name)(d).cpu())
                if dtype.kind in "fc" and name == "sum":
                    tol = 1e-4 if dtype.itemsize == 4 else 1e-10
                    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * n, err_msg=where)
                else:
                    np.testing.assert_array_equal(got, want, err_msg=where)
        # rows of a matrix: a run per output, every row at its own alignment (a row sum)
        rows = 7
        m_all = on(device, strided.asarray(make_values((rows * 37 + 1,), dtype, rng)))
        m = m_all[1:].reshape(rows, 37)
        np.testing.assert_allclose(
            np.asarray(strided.sum(m, axis=1).cpu()),
            np.asarray(strided.sum(m.cpu(), axis=1)),
            rtol=1e-5 if dtype.kind in "fc" else 0,
            err_msg=f"row sums of {dtype.name} on {device}",
        )


@pytest.mark.parametrize("device", DEVICES)
def test_reductions_nan_and_ties_and_determinism(device):
    x = strided.asarray(
        [[1.0, 3.0, 3.0, float("nan"), 2.0, float("nan")], [5.0, 5.0, -1.0, 0.0, 5.0, 1.0]],
        device=device,
    )
    np.testing.assert_array_equal(strided.argmax(x, axis=1).cpu(), [3, 0])
    np.testing.assert_array_equal(strided.argmin(x, axis=1).cpu(), [3, 2])
    assert np.isnan(strided.max(x, axis=1).cpu()[0])
    big = strided.asarray(
        np.random.default_rng(0).standard_normal(300_000, dtype=np.float32), device=device
    )
    first = strided.sum(big).item()
    assert all(strided.sum(big).item() == first for _ in range(3))  # same bits every run
    np.testing.assert_allclose(first, np.asarray(big.cpu()).astype(np.float64).sum(), rtol=1e-5)
    m = strided.asarray(np.arange(12.0).reshape(3, 4), device=device)
    np.testing.assert_allclose(
        strided.softmax(m, dim=1).cpu(), np.asarray(strided.softmax(m.cpu(), dim=1)), rtol=1e-12
    )


# ---------------------------------------------------------------------------------------------
# matmul (Note [CUDA matmul]): cuBLAS through CuPy on a GPU for floats, the tiled kernel for
# integers, bool and everything on the emulator
# ---------------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((5, 7), (7, 3)),
    ((7,), (7, 3)),
    ((5, 7), (7,)),
    ((7,), (7,)),
    ((2, 1, 5, 7), (3, 7, 4)),
    ((33, 17), (17, 40)),
    ((0, 3), (3, 4)),
    ((4, 0), (0, 5)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype",
    [
        strided.float32,
        strided.float64,
        strided.complex64,
        strided.int16,
        strided.uint8,
        strided.bool,
    ],
)
def test_matmul_matches_numpy(device, dtype, rng):
    for s1, s2 in MATMUL_SHAPES:
        a = make_values(s1, dtype, rng)
        b = make_values(s2, dtype, rng)
        if dtype.kind in "fc":
            a = rng.uniform(-2, 2, s1).astype(dtype.numpy)
            b = rng.uniform(-2, 2, s2).astype(dtype.numpy)
        for layout in ("contiguous", "transposed", "negative-stride"):
            pa, pb = make_layout(layout, a, rng), make_layout(layout, b, rng)
            if pa is None or pb is None:
                continue
            da, db = on(device, pa[0]), on(device, pb[0])
            want = np.matmul(pa[1], pb[1])
            got = da @ db
            where = f"{s1} @ {s2} {layout} {dtype.name} on {device}"
            assert got.device == da.device and got.dtype is dtype, where
            tol = 1e-4 if dtype in (strided.float32, strided.complex64) else 1e-10
            if dtype.kind in "fc":
                np.testing.assert_allclose(got.cpu(), want, rtol=tol, atol=tol, err_msg=where)
            else:
                np.testing.assert_array_equal(got.cpu(), want, err_msg=where)
    x = strided.ones((2, 3), device=device, dtype=dtype)
    with pytest.raises(ValueError, match="must match"):
        x @ x
    with pytest.raises(RuntimeError, match="device"):
        x @ strided.ones((3, 2), dtype=dtype)
    y = strided.ones((3, 2), device=device, dtype=dtype)
    for a, b, out in ((x, y, strided.empty((2, 2), dtype=dtype)), (x.cpu(), y.cpu(), x[:, :2])):
        with pytest.raises(RuntimeError, match=r"matmul: out= is on .*, the inputs on"):
            strided.matmul(a, b, out=out)


# Batch shapes whose broadcast strides coalesce (one cuBLAS call) or do not (a host loop of
# calls), and matrix views cuBLAS reads in place (row-major, transposed) or only after a copy.
GEMM_BATCHES = [
    ((4, 3, 5), (4, 5, 2)),
    ((2, 1, 3, 5), (1, 4, 5, 2)),
    ((3, 5), (2, 3, 5, 2)),
    ((2, 3, 1, 5), (3, 5, 1)),
    ((1, 3, 5), (6, 5, 2)),
]


def _gemm_view(values, kind):
    """A device view of ``values`` (..., r, c) laid out as ``kind`` says, and its NumPy twin."""
    t = strided.asarray(values, device="cuda-emulated")
    if kind == "transposed":  # unit steps down the columns: cuBLAS's "T"
        t = strided.asarray(np.swapaxes(values, -1, -2).copy(), device="cuda-emulated").mT
    elif kind == "stepped":  # neither: a copy first
        t = strided.asarray(np.repeat(values, 2, axis=-1), device="cuda-emulated")[..., ::2]
    elif kind == "reversed":
        t = strided.asarray(values[..., ::-1, ::-1].copy(), device="cuda-emulated")[..., ::-1, ::-1]
    return t


@pytest.mark.parametrize("kind_a", ["row-major", "transposed", "stepped", "reversed"])
@pytest.mark.parametrize("kind_b", ["row-major", "transposed", "stepped"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_cublas_calls_on_strided_views_match_numpy(kind_a, kind_b, dtype, rng):
    # Note [cuBLAS on strided views]: on the emulator the calls run in the reference cuBLAS
    # (strided/cuda/_emulator/_blas.py), which checks leading dimensions and every address
    for s1, s2 in GEMM_BATCHES:
        a = rng.standard_normal(s1).astype(dtype)
        b = rng.standard_normal(s2).astype(dtype)
        if np.dtype(dtype).kind == "c":
            a, b = a + 1j * rng.standard_normal(s1), b - 1j * rng.standard_normal(s2)
            a, b = a.astype(dtype), b.astype(dtype)
        da, db = _gemm_view(a, kind_a), _gemm_view(b, kind_b)
        with strided.cuda.trace_launches() as launches:
            got = da @ db
        where = f"{s1} {kind_a} @ {s2} {kind_b} {np.dtype(dtype).name}"
        tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got.cpu(), np.matmul(a, b), rtol=tol, atol=tol, err_msg=where)
        names = [name for name, *_ in launches]
        copies = sum(1 for n in names if not n.startswith("cublas"))
        assert copies == _copied(kind_a, s1) + _copied(kind_b, s2), (where, names)


def _copied(kind, shape):
    """Whether cuBLAS needs a copy of a ``kind`` view of ``shape``: a reversed dim always; a
    stepped one unless the matrix is a single row or column (a size-1 dim takes any stride)."""
    return kind == "reversed" or (kind == "stepped" and min(shape[-2:]) > 1)


@pytest.mark.parametrize("s1, s2", GEMM_BATCHES)
def test_kept_gemm_plans_take_each_call_s_addresses(s1, s2, rng):
    # Note [Planned cuBLAS calls in eager mode]: the second product of views with the same
    # dtypes, shapes and strides runs the kept plan, at the new views' addresses (other
    # storage offsets, another result), and writes out= as the first one did
    from strided.cuda import _linalg

    big1 = rng.standard_normal((3, *s1)).astype(np.float32)
    big2 = rng.standard_normal((3, *s2)).astype(np.float32)
    d1, d2 = (strided.asarray(v, device="cuda-emulated") for v in (big1, big2))
    _linalg._GEMM_PLANS.clear()
    for i in range(3):
        a, b = d1[i].mT.mT, d2[2 - i]
        key = (a.dtype, b.dtype, a.shape, b.shape, a.stride(), b.stride())
        assert (key in _linalg._GEMM_PLANS) == (i > 0)
        with strided.cuda.trace_launches() as launches:
            got = a @ b
        want = np.matmul(big1[i], big2[2 - i])
        np.testing.assert_allclose(got.cpu(), want, rtol=1e-5, atol=1e-5)
        assert len(launches) == len(_linalg._GEMM_PLANS[key][3])  # the kept calls, all
        out = strided.empty(want.shape, device="cuda-emulated")
        assert strided.matmul(a, b, out=out) is out
        np.testing.assert_allclose(out.cpu(), want, rtol=1e-5, atol=1e-5)


def test_gemm_plans_are_kept_only_for_operands_read_in_place(rng):
    # Note [Planned cuBLAS calls in eager mode]: a copied operand, a cast or a 1-D operand is
    # planned afresh at every call
    from strided.cuda import _linalg

    x1 = strided.asarray(rng.standard_normal((3, 8)), device="cuda-emulated", dtype="float32")
    x2 = strided.asarray(rng.standard_normal((4, 5)), device="cuda-emulated", dtype="float32")
    for a, b in ((x1[:, ::2], x2), (x1[:, :4], x2.astype("float64")), (x1[:, :4], x2[:, 0])):
        want = np.matmul(a.cpu(), b.cpu())
        for _ in range(2):
            np.testing.assert_allclose((a @ b).cpu(), want, rtol=1e-5, atol=1e-5)
        key = (a.dtype, b.dtype, a.shape, b.shape, a.stride(), b.stride())
        assert key not in _linalg._GEMM_PLANS


def test_cublas_batches_coalesce_into_one_call():
    from strided.cuda import _linalg

    a = strided.ones((4, 3, 5, 7), device="cuda-emulated")
    b = strided.ones((7, 2), device="cuda-emulated")
    c = strided.empty((4, 3, 5, 2), device="cuda-emulated")
    calls, _ = _linalg.gemm_calls(a, b, c, (4, 3), 5, 7, 2)
    assert len(calls) == 1 and calls[0][-1] == 12  # b broadcast: stride 0 over all 12
    assert calls[0][:5] == ("N", "N", 2, 5, 7) and calls[0][7] == 0 and calls[0][10] == 35
    a2 = strided.ones((4, 1, 5, 7), device="cuda-emulated").expand(4, 3, 5, 7)
    calls, _ = _linalg.gemm_calls(a2, b, c, (4, 3), 5, 7, 2)
    assert [call[-1] for call in calls] == [3] * 4  # (35, 0) strides do not merge: 4 calls of 3


@pytest.mark.parametrize("device", DEVICES)
def test_a_matrix_product_is_a_fresh_tensor_not_a_view(device):
    # autograd copies a gradient that is a view (engine._accumulate), so w.grad = x.T @ g must
    # come back as a tensor of its own, as on the CPU; a 1-D operand's product is a view
    a, b = strided.ones((3, 4), device=device), strided.ones((4, 2), device=device)
    assert (a @ b)._base is None and (a.cpu() @ b.cpu())._base is None
    assert (a @ b[:, 0]).shape == (3,)


def test_the_reference_cublas_refuses_what_cublas_refuses():
    from strided.cuda import _emulator

    mem = _emulator.malloc(6 * 8)
    with pytest.raises(ValueError, match="CUBLAS_STATUS_INVALID_VALUE: lda=1"):
        _emulator.gemm_strided_batched("float64", "N", "N", 2, 3, 1, mem.ptr, 1, 0, mem.ptr, 1,
                                       0, mem.ptr, 2, 0, 1)  # fmt: skip
    with pytest.raises(RuntimeError, match="invalid device memory access: 48 bytes"):
        # C (2 x 3, ld 2) one element past the allocation's start: its last byte is out
        _emulator.gemm_strided_batched("float64", "N", "N", 2, 3, 1, mem.ptr, 2, 0, mem.ptr, 1,
                                       0, mem.ptr + 8, 2, 0, 1)  # fmt: skip


def test_the_gpu_backend_passes_the_planned_calls_to_cublas_in_its_order(monkeypatch, rng):
    # CupyBackend.gemm without a GPU: a stand-in for CuPy's cuBLAS binding (the argument order
    # of cupy_backends.cuda.libs.cublas.<t>gemmStridedBatched) that reads alpha and beta through
    # their host addresses, as cuBLAS does, and computes in the emulator's reference
    import ctypes
    import types

    from strided.cuda import _emulator

    seen = []

    def gemm_of(prefix):
        def gemm(handle, transa, transb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc,
                 sc, count):  # fmt: skip
            dtype = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}
            dt = np.dtype(dtype[prefix])
            one = np.frombuffer(ctypes.string_at(alpha, dt.itemsize), dt)[0]
            zero = np.frombuffer(ctypes.string_at(beta, dt.itemsize), dt)[0]
            seen.append((handle, prefix, one, zero))
            ops = {0: "N", 1: "T"}
            _emulator.gemm_strided_batched(dt, ops[transa], ops[transb], m, n, k, a, lda, sa, b,
                                           ldb, sb, c, ldc, sc, count)  # fmt: skip

        return gemm

    cublas = types.SimpleNamespace(
        CUBLAS_OP_N=0, CUBLAS_OP_T=1, CUBLAS_POINTER_MODE_HOST=0, CUBLAS_POINTER_MODE_DEVICE=1,
        setStream=lambda h, s: seen.append(("stream", h, s)),
        getPointerMode=lambda h: 1,
        setPointerMode=lambda h, mode: seen.append(("pointer mode", h, mode)),
        **{p + "gemmStridedBatched": gemm_of(p) for p in "sdcz"},
    )  # fmt: skip
    gpu = standin_gpu(cublas)
    emulated = _backend.backend_for(strided.device("cuda-emulated"))
    monkeypatch.setattr(emulated, "gemm", gpu.gemm, raising=False)
    for dtype in (np.float32, np.float64, np.complex64, np.complex128):
        a = rng.standard_normal((3, 4, 5)).astype(dtype)
        b = rng.standard_normal((5, 2)).astype(dtype)
        da = strided.asarray(a, device="cuda-emulated")
        db = strided.asarray(b.T.copy(), device="cuda-emulated").T
        got = (da @ db).cpu()
        np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)
    prefixes = [call[1] for call in seen if call[0] == 77]
    assert prefixes == list("sdcz")
    assert all(call[2] == 1 and call[3] == 0 for call in seen if call[0] == 77)
    assert ("stream", 77, 5) in seen and ("pointer mode", 77, 0) in seen


def test_kernel_parameters_are_packed_as_the_driver_reads_them():
    # Note [Kernel parameters]: one buffer, each parameter 16-byte aligned, pointers at the end
    import ctypes

    from strided.cuda import _params

    args = (np.void(bytes(range(123))), np.int32(-7), np.uint64(2**63 + 5), np.complex128(1 - 2j))
    buffer, address = _params.pack(args)
    pointers = (ctypes.c_void_p * len(args)).from_address(address)
    for a, p in zip(args, pointers, strict=True):
        assert p % 16 == 0 and ctypes.string_at(p, a.nbytes) == a.tobytes(), a
    assert _params.pack(())[0] is not None
    with pytest.raises(TypeError):
        _params.pack((np.int32(1), "not bytes"))
    with pytest.raises(ValueError, match="at most 64 parameters"):
        _params.pack((np.int32(0),) * 65)


def test_the_gpu_backend_launches_through_the_driver_with_packed_parameters():
    # CupyBackend.launch without a GPU: a stand-in for cuLaunchKernel that reads the pointers
    import ctypes
    import types

    got = {}

    def launch_kernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        ptrs = (ctypes.c_void_p * 2).from_address(params)
        a, b = ctypes.string_at(ptrs[0], 4), ctypes.string_at(ptrs[1], 8)
        got.update(f=f, grid=(gx, gy, gz), block=(bx, by, bz), shared=shared, stream=stream)
        got.update(a=a, b=b, extra=extra)

    gpu = object.__new__(_backend.CupyBackend)
    stream = types.SimpleNamespace(ptr=99)
    gpu.cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(get_current_stream=lambda: stream))
    gpu._launch_kernel = launch_kernel
    gpu.launch(types.SimpleNamespace(ptr=1234), (7,), (256,), (np.int32(5), np.float64(2.5)), 64)
    assert got == dict(f=1234, grid=(7, 1, 1), block=(256, 1, 1), shared=64, stream=99,
                       a=np.int32(5).tobytes(), b=np.float64(2.5).tobytes(), extra=0)  # fmt: skip


def test_device_storages_come_from_the_backend_in_one_call():
    # Note [A device's allocator]: the emulated device's backend registered its maker, which
    # zeroes when asked; without it the registered allocator serves, with the same results
    from strided import _storage

    dev = strided.device("cuda-emulated")
    backend = _backend.backend_for(dev)
    made = []

    def maker(nbytes, zero):
        made.append((nbytes, zero))
        return backend.storage(dev, nbytes, zero)

    _storage.set_device_storage_maker(dev, maker)
    try:
        z = strided.zeros((3, 5), dtype="int16", device=dev)
        e = strided.empty(0, device=dev)
        assert made == [(30, True), (0, False)]
        assert z.device is dev and e.untyped_storage().nbytes == 0
        np.testing.assert_array_equal(z.cpu(), np.zeros((3, 5), np.int16))
        _storage.set_device_storage_maker(dev, None)
        np.testing.assert_array_equal(strided.zeros(4, device=dev).cpu(), np.zeros(4))
        assert len(made) == 2
    finally:
        _storage.set_device_storage_maker(dev, lambda n, zero: backend.storage(dev, n, zero))
    np.testing.assert_array_equal(strided.ones(2, device=dev).cpu(), np.ones(2))


def test_the_gpu_backend_allocates_on_its_own_device_and_zeroes_on_the_stream():
    # CupyBackend.storage without a GPU: CuPy's pool as a stand-in; the device is switched
    # only when another is current (Note [Switching to a backend's device])
    import contextlib
    import types

    calls = []

    @contextlib.contextmanager
    def switch(index):
        calls.append(("switch", index))
        yield

    gpu = object.__new__(_backend.CupyBackend)
    gpu.index, current = 1, [1]
    gpu.cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(Device=switch))
    gpu._get_device = lambda: current[0]
    gpu._alloc = lambda n: calls.append(("alloc", n)) or types.SimpleNamespace(ptr=4096 * n)
    gpu._current_stream = lambda: types.SimpleNamespace(ptr=7)
    gpu.runtime = types.SimpleNamespace(memsetAsync=lambda *args: calls.append(("memset", *args)))
    dev = strided.device("cuda-emulated")  # only recorded on the Storage
    s = gpu.storage(dev, 24, True)
    assert (s.data_ptr(), s.nbytes, s.device) == (4096 * 24, 24, dev)
    assert calls == [("alloc", 24), ("memset", 4096 * 24, 0, 24, 7)]
    calls.clear()
    current[0] = 0
    gpu.storage(dev, 0, True)
    assert calls == [("switch", 1), ("alloc", 1)]


def test_the_gpu_backend_compiles_without_flushing_subnormals_and_caches_the_cubin(
    monkeypatch, tmp_path
):
    # Note [Subnormal floats on the GPU]: CupyBackend.compile without a GPU, stand-ins for
    # CuPy's NVRTC call and its module; the first compile writes one cache file, whole, the
    # second reads it instead of compiling, and functions are fetched by their mangled names
    import contextlib
    import types

    pytest.importorskip("cupy")
    from cupy.cuda import compiler, function
    from cupy.cuda import nvrtc as nvrtc_library

    calls, loaded = [], []

    class Module:
        def load(self, binary):
            loaded.append(binary)

        def get_function(self, name):
            return types.SimpleNamespace(ptr=hash(name), name=name)

    def nvrtc(source, options, arch, name_expressions=None, cache_in_memory=False):
        calls.append((options, arch, name_expressions))
        return b"\x7fELF cubin", {n: f"_Z{len(n)}{n[:4]}" for n in name_expressions or ()}

    monkeypatch.setattr(compiler, "compile_using_nvrtc", nvrtc)
    monkeypatch.setattr(function, "Module", Module)
    monkeypatch.setattr(nvrtc_library, "getVersion", lambda: (13, 0))  # none needed here
    monkeypatch.setenv("STRIDED_CUDA_CACHE", str(tmp_path))

    def device(index=None):  # Device(i) enters the GPU; Device() is the current one
        if index is None:
            return types.SimpleNamespace(compute_capability="90")
        return contextlib.nullcontext()

    cupy = types.SimpleNamespace(__version__="0.test", cuda=types.SimpleNamespace(Device=device))
    gpu = object.__new__(_backend.CupyBackend)
    gpu.cupy, gpu.index = cupy, 0
    for _ in range(2):
        mod = gpu.compile("__global__ void k() {}", ["k<float>", "k<double>"], ("--std=c++17",))
        fn = mod.get_function("k<double>")
        assert fn.raw.name == "_Z9k<do" and fn.ptr == hash("_Z9k<do")
    assert len(calls) == 1 and calls[0][1] == "90"
    assert calls[0][0][-1] == "--ftz=false" and not any("ftz=true" in o for o in calls[0][0])
    assert loaded == [b"\x7fELF cubin"] * 2
    assert [f.suffix for f in tmp_path.iterdir()] == [".cubin"]  # no temporary file left


def test_the_tiled_kernel_multiplies_floats_too(rng):
    # floats go to cuBLAS on every device; the tiled kernel (integers, bool) is instantiated
    # for them as well, so it is checked on the emulator here
    from strided.cuda import _linalg

    a, b = rng.standard_normal((2, 33, 17)), rng.standard_normal((17, 40))
    da, db = strided.asarray(a, device="cuda-emulated"), strided.asarray(b, device="cuda-emulated")
    c = strided.empty((2, 33, 40), dtype="float64", device="cuda-emulated")
    _linalg._tiled(da, db, c, (2,), 33, 17, 40)
    np.testing.assert_allclose(c.cpu(), a @ b, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# softmax and log_softmax in one launch each way (Note [Fused softmax] in strided/cuda/_softmax.py)
# ---------------------------------------------------------------------------------------------

SOFTMAX_CASES = [((64, 10), 1), ((64, 10), 0), ((3, 2000), 1), ((4, 5, 6), 1), ((7,), 0),
                 ((2, 1500, 3), 1), ((1, 1), 0)]  # fmt: skip


def _softmax_inputs(shape, dtype, rng):
    """Values with the lines that test a softmax: ordinary, huge, all -inf, an inf, a NaN."""
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    flat = x.reshape(-1)
    if flat.size >= 40:
        flat[:3] = (1e4, -1e4, 300.0)
        flat[10], flat[20], flat[30] = np.inf, np.nan, -np.inf
    return x


@pytest.fixture(params=["forward", "reverse"])
def thread_order(request):
    from strided.cuda import _emulator

    _emulator.set_thread_order(request.param)
    yield request.param
    _emulator.set_thread_order("forward")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_in_one_launch_matches_the_cpu(device, layout, dtype, log, rng, thread_order):
    f = strided.log_softmax if log else strided.softmax
    tol = 2e-6 if dtype == np.float32 else 1e-13
    for shape, dim in SOFTMAX_CASES:
        pair = make_layout(layout, _softmax_inputs(shape, dtype, rng), rng)
        if pair is None:
            continue
        x, ref = pair
        dim = min(dim, x.ndim - 1) if x.ndim else None
        if dim is None:
            continue
        want = np.asarray(f(strided.asarray(ref), dim=dim))
        d = on(device, x)
        with strided.cuda.trace_launches() as launches:
            got = f(d, dim=dim)
        where = f"{f.__name__} of {layout} {x.shape} along {dim} ({np.dtype(dtype).name})"
        # x - logsumexp(x) cancels: its rounding error scales with the line's largest value
        finite = np.abs(ref[np.isfinite(ref)])
        atol = tol * max(1.0, float(finite.max()) if finite.size else 1.0)
        np.testing.assert_allclose(got.cpu(), want, rtol=tol, atol=atol, err_msg=where)
        names = [n for n, *_ in launches]
        if x.numel():
            assert len(names) == 1 and names[0].startswith("strided_softmax<"), (where, names)


# (shape, dim, dtype, K): lines of a warp and of a block, along the last dim and another one,
# in registers (K > 0) or read again (K = 0: float32 beyond 8192, float64 beyond 16 a thread)
SOFTMAX_KEPT = [
    ((64, 10), 1, "float32", 1), ((64, 10), 0, "float32", 2), ((5, 700), 1, "float32", 32),
    ((5, 700), 1, "float64", 0), ((3, 2000), 1, "float64", 8), ((2, 1500, 3), 1, "float32", 8),
    ((2, 8192), 1, "float32", 32), ((2, 4096), 1, "float64", 16), ((2, 8200), 1, "float32", 0),
]  # fmt: skip


def _kept_and_read_again(monkeypatch, where, fn, *args, **kwargs):
    """The launches of ``fn(*args, **kwargs)`` (a softmax kernel), after checking that its
    result has the bits of the same call with every line read again (K = 0)."""
    from strided.cuda import _launch, _softmax

    kept = _softmax.kept_per_thread
    # plans made afresh under each monkeypatch (Note [Kept plans of the softmax lines]), in a
    # table of the test's own
    monkeypatch.setattr(_softmax, "_PLANS", _launch.KeptPlans())
    with strided.cuda.trace_launches() as launches:
        got = fn(*args, **kwargs).cpu()
    monkeypatch.setattr(_softmax, "kept_per_thread", lambda *a: 0)
    _softmax._PLANS.clear()
    again = fn(*args, **kwargs).cpu()
    monkeypatch.setattr(_softmax, "kept_per_thread", kept)
    _softmax._PLANS.clear()
    assert np.array_equal(np.asarray(got).view(np.uint8), np.asarray(again).view(np.uint8)), where
    return [n for n, *_ in launches]


@pytest.mark.parametrize("index", ["int32_t", "int64_t"])
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_keeps_a_line_that_fits_in_registers(monkeypatch, index, log, rng):
    """Note [A softmax line read once] (kernels/softmax.cu): a line whose thread's share fits in
    registers is read once, by the instantiation of its K, and gives the bits of the kernel that
    reads it again for each pass, on every layout (a transposed or reversed line steps through
    memory); 64-bit indices keep 8 float64 a thread."""
    from strided.cuda import _launch

    if index == "int64_t":
        monkeypatch.setattr(_launch, "line_fits_int32", lambda *a: False)
    f = strided.log_softmax if log else strided.softmax
    for shape, dim, dtype, K in SOFTMAX_KEPT:
        if index == "int64_t" and dtype == "float64" and K == 16:
            K = 0
        for layout in ("contiguous", "transposed", "stepped", "negative-stride", "expanded"):
            pair = make_layout(layout, _softmax_inputs(shape, dtype, rng), rng)
            if pair is None:
                continue
            d = on("cuda-emulated", pair[0])
            where = f"{f.__name__} of {layout} {shape} along {dim} ({dtype}, {index})"
            names = _kept_and_read_again(monkeypatch, where, f, d, dim=dim)
            ctype = _launch.C_TYPES[dtype]
            assert names == [f"strided_softmax<{ctype}, {str(log).lower()}, {index}, {K}>"], where


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_backward_keeps_a_line_that_fits_in_registers(monkeypatch, log, rng):
    """The backward keeps g (and r for softmax) in registers, half as many elements a thread
    as the forward: float32 lines of a block up to 4096, float64 up to 2048; the same bits as
    reading them again, for gradients of every layout."""
    from strided.cuda import _launch, _softmax

    f = strided.log_softmax if log else strided.softmax
    cases = [((64, 10), 1, "float32", 1), ((5, 700), 1, "float64", 0), ((3, 250), 1, "float64", 8),
             ((2, 4096), 1, "float32", 16), ((2, 8192), 1, "float32", 0),
             ((2, 1500, 3), 1, "float64", 8)]  # fmt: skip
    for shape, dim, dtype, K in cases:
        x = on("cuda-emulated", strided.asarray(rng.standard_normal(shape).astype(dtype)))
        y = f(x, dim=dim)
        for layout in ("contiguous", "transposed", "negative-stride", "expanded"):
            pair = make_layout(layout, rng.standard_normal(shape).astype(dtype), rng)
            g = on("cuda-emulated", pair[0])
            where = f"{f.__name__} backward of {layout} {shape} along {dim} ({dtype})"
            names = _kept_and_read_again(
                monkeypatch, where, _softmax.softmax_backward, g, y, dim, log
            )
            ctype = _launch.C_TYPES[dtype]
            assert names == [
                f"strided_softmax_backward<{ctype}, {str(log).lower()}, int32_t, {K}>"
            ], where


@NVRTC_ONLY
def test_softmax_kernels_compile_for_sm90_without_spills_loading_a_kept_line_once():
    """Note [A softmax line read once]: the softmax module compiles for sm_90 without spills,
    and the kept kernels of 8192- and 4096-wide float32 lines (K = 32, 16) have one load of the
    input per slot (the kernel that reads again has unrolled loops, with more)."""
    from strided.cuda import _softmax, compile_check

    for key, source_name, names in _softmax.all_modules():
        _, spills, _ = compile_check.compile_module(source_name, names, "sm_90")
        assert not spills, (key, spills)
    for K in (32, 16):
        name = f"strided_softmax<float, false, int32_t, {K}>"
        ptx = compile_check.ptx("softmax.cu", name)
        assert ptx.count("ld.global.f32") == K, (name, ptx.count("ld.global.f32"))


@pytest.mark.parametrize("limit", [1024, 1])
def test_softmax_plans_serve_new_addresses_and_layouts(monkeypatch, limit, rng):
    # Note [Kept plans of the softmax lines]: forward and backward repeated on new tensors of
    # one shape, on other layouts of it and along the other dim, with a table of 1024 plans and
    # of 1 (emptied at every new plan): the answers of plans made afresh
    from strided.cuda import _launch, _softmax

    monkeypatch.setattr(_softmax, "_PLANS", _launch.KeptPlans(limit))
    cases = [("contiguous", 1), ("transposed", 1), ("contiguous", 1), ("negative-stride", 0)]
    for log in (False, True):
        f = strided.log_softmax if log else strided.softmax
        for layout, dim in cases * 2:
            x, a = make_layout(layout, rng.standard_normal((6, 5)), rng)
            g, b = make_layout(layout, rng.standard_normal((6, 5)), rng)
            d = on("cuda-emulated", x)
            got = f(d, dim=dim).cpu()
            back = _softmax.softmax_backward(on("cuda-emulated", g), f(d, dim=dim), dim, log)
            kept = dict(_softmax._PLANS)
            _softmax._PLANS.clear()
            want = f(d, dim=dim).cpu()
            np.testing.assert_array_equal(got, want)
            back_want = _softmax.softmax_backward(on("cuda-emulated", g), f(d, dim=dim), dim, log)
            np.testing.assert_array_equal(back.cpu(), back_want.cpu())
            e = np.exp(a - a.max(dim, keepdims=True))
            ref = np.log(e / e.sum(dim, keepdims=True)) if log else e / e.sum(dim, keepdims=True)
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
            assert len(kept) <= limit


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_backward_in_one_launch_matches_the_cpu(device, log, rng, thread_order):
    f = strided.log_softmax if log else strided.softmax
    for shape, dim in SOFTMAX_CASES:
        x = rng.standard_normal(shape)
        g = rng.standard_normal(shape)
        grads = []
        for dev in ("cpu", device):
            xt = strided.asarray(x, device=dev).requires_grad_()
            gt = strided.asarray(g.T.copy(), device=dev).mT if len(shape) == 2 else g
            gt = strided.asarray(gt, device=dev)
            y = f(xt, dim=dim)
            with strided.cuda.trace_launches() as launches:
                y.backward(gt)
            grads.append(xt.grad.cpu())
        where = f"{f.__name__} backward {shape} along {dim}"
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12, err_msg=where)
        fused = [n for n, *_ in launches if n.startswith("strided_softmax_backward<")]
        assert len(fused) == 1, (where, [n for n, *_ in launches])


@pytest.mark.parametrize("device", DEVICES)
def test_softmax_double_backward_on_the_device(device):
    # create_graph=True keeps the composite backward, which can be differentiated again
    from strided.autograd import gradcheck, gradgradcheck

    x = strided.asarray(np.random.default_rng(1).standard_normal((3, 5)), device=device)
    x.requires_grad_()
    for f in (strided.softmax, strided.log_softmax):
        assert gradcheck(lambda t, f=f: f(t, dim=1), (x,))
        assert gradgradcheck(lambda t, f=f: f(t, dim=1), (x,))


@pytest.mark.parametrize("device", DEVICES)
def test_a_small_mlp_trains_on_the_device(device):
    # forward, backward (strided.autograd) and an SGD step, all on the device
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 8)).astype(np.float32)
    y = (X[:, :1] - X[:, 1:2] > 0).astype(np.float32)
    x_d, y_d = strided.asarray(X, device=device), strided.asarray(y, device=device)
    w1 = strided.asarray(rng.standard_normal((8, 16)).astype(np.float32) * 0.3, device=device)
    w2 = strided.asarray(rng.standard_normal((16, 1)).astype(np.float32) * 0.3, device=device)
    w1.requires_grad_()
    w2.requires_grad_()
    losses = []
    for _ in range(60):
        p = strided.sigmoid(strided.relu(x_d @ w1) @ w2)
        loss = strided.mean((p - y_d) ** 2)
        loss.backward()
        losses.append(loss.item())
        with strided.no_grad():
            w1 -= 0.5 * w1.grad
            w2 -= 0.5 * w2.grad
        w1.grad = None
        w2.grad = None
    assert w1.grad is None and losses[-1] < 0.6 * losses[0], losses[::10]


# ---------------------------------------------------------------------------------------------
# Random numbers (Note [Random numbers on CUDA devices] in strided/random.py): the CPU's
# Philox stream, computed on the device
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_random_draws_match_the_cpu_stream(device):
    R = strided.random
    draws = [
        ("rand f64", lambda d: R.rand(1001, device=d)),
        ("rand f32", lambda d: R.rand(3, 333, dtype="float32", device=d)),
        (
            "uniform c128",
            lambda d: R.uniform(-3, 5, size=(3, 4), dtype="complex128", device=d),
        ),
        ("randint", lambda d: R.randint(-5, 100, size=(1001,), device=d)),
        ("randint wide", lambda d: R.randint(0, 2**40, size=(77,), device=d)),
        ("randint uint8", lambda d: R.randint(0, 256, size=(77,), dtype="uint8", device=d)),
        ("randint bool", lambda d: R.randint(0, 2, size=9, dtype="bool", device=d)),
        # normal draws: boxmuller.cuh's log and sincos on both sides, in double for float32 too
        ("randn f64", lambda d: R.randn(1001, device=d)),
        ("randn c64", lambda d: R.randn(500, dtype="complex64", device=d)),
        ("normal", lambda d: R.normal(2.0, 3.0, size=(4, 5), dtype="float32", device=d)),
    ]
    for what, draw in draws:
        R.manual_seed(11)
        want = np.asarray(draw(None))
        state = R.get_state()
        R.manual_seed(11)
        got = draw(device)
        assert got.device == strided.device(device), what
        assert R.get_state() == state, f"{what}: the generator advanced differently"
        np.testing.assert_array_equal(got.cpu(), want, err_msg=what)


# ---------------------------------------------------------------------------------------------
# Autograd on the device. The derivative formulas are gradchecked (and gradgradchecked) on the
# devices by the table-driven tests of tests/test_autograd_ops.py: every differentiable OpInfo
# row and every explicit case, in the same layouts as on the CPU, with each .grad checked to be
# on its input's device with its shape and dtype. Here: one training step of an nn model.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_an_nn_training_step_on_the_device_matches_the_cpu(device):
    # the digits MLP's step (strided/_train.py): Linear, ReLU, cross_entropy with label
    # smoothing, backward, Adam; the same step on the CPU is the reference
    from strided import nn, optim
    from strided.nn import functional as F

    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    y = rng.integers(0, 4, 16)
    results = {}
    for dev in ("cpu", device):
        strided.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 12), nn.ReLU(), nn.Linear(12, 4)).to(device=dev)
        opt = optim.Adam(model.parameters(), lr=0.01)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(
                model(strided.asarray(x, device=dev)),
                strided.asarray(y, device=dev),
                label_smoothing=0.1,
            )
            loss.backward()
            opt.step()
            losses.append(loss.item())
        for p in model.parameters():
            assert p.device == strided.device(dev) and p.grad.device == p.device
            assert p.grad.shape == p.shape and p.grad.dtype == p.dtype
        results[dev] = (losses, [p.detach().cpu() for p in model.parameters()])
    (cpu_losses, cpu_params), (dev_losses, dev_params) = results["cpu"], results[device]
    np.testing.assert_allclose(dev_losses, cpu_losses, rtol=1e-5)
    assert dev_losses[-1] < dev_losses[0]
    for got, want in zip(dev_params, cpu_params, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_addmm_on_the_device(device, rng):
    c = rng.uniform(-1, 1, (4,))
    a, b = rng.uniform(-1, 1, (4, 6)), rng.uniform(-1, 1, (6, 4))
    dc, da, db = (strided.asarray(v, device=device) for v in (c, a, b))
    for beta, alpha in ((1, 1), (2, 0.5), (0, 3)):
        got = strided.addmm(dc, da, db, beta=beta, alpha=alpha)
        assert got.device == dc.device
        np.testing.assert_allclose(got.cpu(), beta * c + alpha * (a @ b), rtol=1e-12)
    out = strided.empty((4, 4), device=device)
    assert strided.addmm(dc, da, db, out=out) is out
    np.testing.assert_allclose(out.cpu(), c + a @ b, rtol=1e-12)
    # input broadcasts to the product's shape, never the other way (the CPU's message)
    big = strided.ones((2, 4, 4), dtype="float64")
    with pytest.raises(ValueError) as cpu:
        strided.addmm(big, da.cpu(), db.cpu())
    with pytest.raises(ValueError) as dev:
        strided.addmm(big.to(device), da, db)
    assert str(dev.value) == str(cpu.value) and "more dims" in str(cpu.value)
    with pytest.raises(RuntimeError, match="addmm: expected all tensors on one device"):
        strided.addmm(strided.ones(4), da, db)


@pytest.mark.parametrize("device", DEVICES)
def test_split_reductions_take_both_second_passes(device, rng):
    """Note [CUDA reductions]: a long reduction with few outputs is cut into chunks whose
    partials a second pass combines, by a block per output (one output of 150001 elements,
    (5000, 40) over dim 0) or by a thread per output (4100 outputs of 1300); same bits twice."""
    cases = [((150001,), None), ((5000, 40), 0), ((1300, 4100), 0), ((2, 200000), 1)]
    for shape, axis in cases:
        x = rng.standard_normal(shape)
        d = strided.asarray(x, device=device)
        where = f"{shape} axis={axis} on {device}"
        got = strided.sum(d, axis=axis)
        np.testing.assert_allclose(
            got.cpu(), x.sum(axis=axis), rtol=1e-12, atol=1e-11, err_msg=where
        )
        again = strided.sum(d, axis=axis)
        np.testing.assert_array_equal(again.cpu(), got.cpu(), err_msg=where)  # deterministic
        np.testing.assert_array_equal(strided.argmax(d, axis=axis).cpu(), x.argmax(axis=axis))
        m = strided.max(strided.asarray(x.astype(np.float32), device=device), axis=axis)
        np.testing.assert_array_equal(m.cpu(), x.astype(np.float32).max(axis=axis), err_msg=where)
        i = strided.sum(strided.asarray((x * 100).astype(np.int64), device=device), axis=axis)
        np.testing.assert_array_equal(i.cpu(), (x * 100).astype(np.int64).sum(axis=axis))


def test_the_sanitizer_program_runs_every_kernel_family_on_the_emulator():
    """benchmarks/sanitize_cuda.py is what compute-sanitizer runs on a GPU (gpu_check.sh): it
    must launch every family and agree with the CPU, here on the emulator, so that it is
    ready when a GPU is lent."""
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(__file__).parent.parent / "benchmarks" / "sanitize_cuda.py"
    done = subprocess.run(
        [sys.executable, str(script), "--device", "cuda-emulated"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAILED" not in done.stdout
    families = done.stdout.count(": ok")
    assert families >= 13, done.stdout  # every family of _families, and the random draws
    assert done.stdout.strip().splitlines()[-1] == f"{families} passed, 0 failed"
