"""The CUDA copy's tiled transpose (Note [The transposing copy through a shared tile] in
strided/cuda/kernels/copy.cu) on ``cuda-emulated`` (and a GPU when there is one): the same bits
as NumPy's copy for every dtype, edge tiles, batches, views with offsets and steps, and which
copies take it."""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES
from layouts import ALL_DTYPES, HALF_DTYPES, make_values

import strided
from strided import _views

DTYPES = ALL_DTYPES + HALF_DTYPES
SHAPES = [(1, 1), (31, 33), (32, 32), (100, 37), (3, 65, 70)]


def _bits(a):
    """The bytes of a strided tensor (any device) or a NumPy array, in row-major order."""
    if isinstance(a, strided.Tensor):
        a = a.cpu()
        if a.dtype.name in ("float16", "bfloat16"):
            a = _views.bits_view(a)
        a = np.asarray(a)
    return np.ascontiguousarray(a).view(np.uint8)


def _kernels(launches):
    return [name.split("<")[0] for name, *_ in launches]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # float16's make_values
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_transposed_contiguous_copies_the_bits(device, dtype):
    rng = np.random.default_rng(7)
    for shape in SHAPES:
        v = make_values(shape, dtype, rng)
        t = strided.asarray(v, device=device)
        with strided.cuda.trace_launches() as launches:
            got = t.mT.contiguous()
        want = np.swapaxes(v, -1, -2)
        assert got.shape == want.shape
        assert np.array_equal(_bits(got), _bits(want)), shape
        if shape != (1, 1):  # (1, 1) coalesces to one run: a plain device copy
            assert _kernels(launches) == ["strided_transpose_copy"], (shape, launches)
        # the other direction: a contiguous source into a transposed destination
        out = strided.empty(shape[:-2] + shape[:-3:-1], dtype=dtype, device=device).mT
        with strided.cuda.trace_launches() as launches:
            out.copy_(t)
        assert np.array_equal(_bits(out.contiguous()), _bits(v)), shape
        if shape != (1, 1):
            assert _kernels(launches) == ["strided_transpose_copy"], (shape, launches)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "complex128", "uint8", "bfloat16"])
def test_transposing_copy_of_views(device, dtype):
    """Offsets and steps in the other dims, a reversed batch, a destination inside a larger
    tensor: only the two unit steps are required."""
    rng = np.random.default_rng(3)
    base = make_values((5, 70, 90), getattr(strided, dtype), rng)
    t = strided.asarray(base, device=device)
    cases = [
        (t[1:4, 3:68:2, 5:80], base[1:4, 3:68:2, 5:80]),  # offset, stepped rows
        (t[::-2, 1:, 7:40], base[::-2, 1:, 7:40]),  # reversed, stepped batch
        (t[2, :33, 1:], base[2, :33, 1:]),  # 2-D with an offset
        (t[..., 1:66], base[..., 1:66]),  # 3-D, rows of 65
    ]
    for src, ref in cases:
        with strided.cuda.trace_launches() as launches:
            got = src.mT.contiguous()
        assert np.array_equal(_bits(got), _bits(np.swapaxes(ref, -1, -2))), ref.shape
        assert _kernels(launches) == ["strided_transpose_copy"], (ref.shape, launches)
    # (5, 70, 90) -> (90, 5, 70): the source's (5, 70) coalesce to one dim of 350, a transpose
    with strided.cuda.trace_launches() as launches:
        got = t.permute(2, 0, 1).contiguous()
    assert np.array_equal(_bits(got), _bits(base.transpose(2, 0, 1)))
    assert _kernels(launches) == ["strided_transpose_copy"], launches
    # into a view of a larger destination: dst's unit step along one dim, others stepped
    big = strided.zeros((4, 100, 80), dtype=dtype, device=device)
    dst = big[1::2, 10:85:3, 3:73]  # (2, 25, 70)
    src = t[:2, :70, 40:65].mT  # (2, 25, 70), src's unit step along dim 1
    with strided.cuda.trace_launches() as launches:
        dst.copy_(src)
    want = np.zeros((4, 100, 80), dtype=base.dtype)
    want[1::2, 10:85:3, 3:73] = np.swapaxes(base[:2, :70, 40:65], -1, -2)
    assert np.array_equal(_bits(big), _bits(want))
    assert _kernels(launches) == ["strided_transpose_copy"], launches


@pytest.mark.parametrize("device", DEVICES)
def test_other_copies_keep_the_general_kernel(device):
    rng = np.random.default_rng(5)
    v = rng.standard_normal((3, 40, 50)).astype(np.float32)
    t = strided.asarray(v, device=device)
    v4 = v.reshape(2, 3, 20, 50)
    t4 = strided.asarray(v4, device=device)
    cases = [
        (lambda: t.mT.astype("float64"), np.swapaxes(v, -1, -2).astype(np.float64)),  # a cast
        (lambda: t[:, :, ::-1].mT.contiguous(), np.swapaxes(v[:, :, ::-1], -1, -2)),  # reversed
        (lambda: t[:, :, ::2].mT.contiguous(), np.swapaxes(v[:, :, ::2], -1, -2)),  # stepped
        (lambda: t.permute(1, 0, 2).contiguous(), v.transpose(1, 0, 2)),  # rows move whole
        (lambda: t[:, :10].mT.contiguous(), np.swapaxes(v[:, :10], -1, -2)),  # a thin side
        (lambda: t4.permute(3, 1, 0, 2).contiguous(), v4.transpose(3, 1, 0, 2)),  # a 4-D loop
    ]
    for make, want in cases:
        with strided.cuda.trace_launches() as launches:
            got = make()
        np.testing.assert_array_equal(got.cpu(), want)
        assert "strided_transpose_copy" not in _kernels(launches), launches


@pytest.mark.parametrize("device", DEVICES)
def test_transposing_copy_of_empty_tensors(device):
    for shape in [(0, 5), (5, 0), (3, 0, 4), (0, 4, 6)]:
        t = strided.zeros(shape, dtype="float32", device=device)
        with strided.cuda.trace_launches() as launches:
            got = t.mT.contiguous()
        assert got.shape == shape[:-2] + shape[:-3:-1]
        assert list(launches) == []


@pytest.mark.parametrize("limit", [1024, 1])
def test_kept_fill_plans_serve_new_tensors_layouts_and_values(monkeypatch, limit, rng):
    # Note [Kept plans of the fills]: fills repeated over new tensors, layouts and values give
    # the CPU's bits; bytes are kept only for scalars that convert exactly
    from devices import on
    from layouts import make_layout

    from strided.cuda import _copy, _launch

    monkeypatch.setattr(_copy, "_FILL_PLANS", _launch.KeptPlans(limit))
    monkeypatch.setattr(_copy, "_SCALAR_BYTES", _launch.KeptPlans(limit))
    values = [1.5, -0.0, 0.0, 1.5, 0.1, 3, True, float("inf"), 1.5]
    layouts = ("contiguous", "transposed", "stepped", "negative-stride", "0-d", "empty")
    for dtype in ("float32", "float16", "int16"):
        for layout in layouts:
            for v in values:
                if dtype == "int16" and not float(v).is_integer():
                    continue
                x, _ = make_layout(layout, rng.standard_normal((4, 3)).astype(dtype), rng)
                d = on("cuda-emulated", x)
                d.fill_(v)
                x.fill_(v)
                got, want = np.ascontiguousarray(d.cpu()), np.ascontiguousarray(x)
                assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (dtype, layout, v)
    kept = {(k[0].name, k[2]) for k in _copy._SCALAR_BYTES}
    assert len(_copy._FILL_PLANS) <= limit and len(_copy._SCALAR_BYTES) <= limit
    if limit > 1:
        assert ("float32", "0.1") not in kept and ("float16", "0.1") not in kept
        assert {("float32", "-0.0"), ("float16", "1.5"), ("int16", "3")} <= kept
