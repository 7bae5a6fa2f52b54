"""Scans, sorting, topk and unique on CUDA devices against the CPU kernels.

The CPU kernels are tested against NumPy in test_scan.py and test_sort.py; here every CUDA
device this machine can use must give the CPU's answer: bit for bit for integers, sorting, topk
and unique (a stable sort has one answer, Note [CUDA sorting]), within rounding for float
scans done by the block kernel (another order of additions, Note [CUDA scans]). Inputs come in
every layout of ``layouts.py`` (contiguous, transposed, stepped, negative-stride, expanded, 0-d,
empty), with NaNs, signed zeros and duplicates. ``cuda`` is skipped without a usable GPU, as in
test_cuda.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, GPU_ONLY, on
from layouts import ALL_DTYPES, LAYOUTS, make_layout

import strided


def same_bits(got, want, where):
    """Equal shapes, dtypes and bytes (NaN payloads and the sign of zero included)."""
    assert got.device.is_cuda, where
    g, w = np.asarray(got.cpu()), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, where
    np.testing.assert_array_equal(
        np.ascontiguousarray(g).view(np.uint8), np.ascontiguousarray(w).view(np.uint8), where
    )


def _layouts(vals, rng, layouts=LAYOUTS):
    for layout in layouts:
        pair = make_layout(layout, vals, rng)
        if pair is not None:
            yield layout, pair[0]


# ---------------------------------------------------------------------------------------------
# Scans (Note [CUDA scans])
# ---------------------------------------------------------------------------------------------

SCAN_DTYPES = [
    strided.bool,
    strided.int8,
    strided.uint16,
    strided.int32,
    strided.int64,
    strided.float32,
    strided.float64,
    strided.complex64,
]
# (shape, axis, layouts): small shapes in every layout; long lines (the block kernel, a line
# cut into chunks) in two
SCAN_CASES = [
    ((4, 5, 6), 0, LAYOUTS),
    ((4, 5, 6), 1, LAYOUTS),
    ((4, 5, 6), 2, LAYOUTS),
    ((3, 2500), 1, ("contiguous", "negative-stride")),
    ((2600,), 0, ("contiguous", "stepped")),
    ((70, 40), 1, ("contiguous", "transposed")),
]


def _scan_values(name, shape, dtype, rng):
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -50, 50, shape).astype(dtype.numpy)
    lo, hi = (0.9, 1.1) if name == "cumulative_prod" else (-2.0, 2.0)
    v = rng.uniform(lo, hi, shape)
    if dtype.kind == "c":
        v = v + 1j * rng.uniform(-0.1, 0.1, shape)
    return v.astype(dtype.numpy)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize("dtype", SCAN_DTYPES, ids=lambda d: d.name)
def test_scans_match_the_cpu(device, name, dtype, rng):
    fn = getattr(strided, name)
    for shape, axis, layouts in SCAN_CASES:
        vals = _scan_values(name, shape, dtype, rng)
        for layout, t in _layouts(vals, rng, layouts):
            d = on(device, t)
            ax = axis if t.ndim > 1 else 0
            for initial in (False, True):
                where = f"{name} {dtype.name} {layout} {shape} axis={ax} initial={initial}"
                want = fn(t.reshape(1) if t.ndim == 0 else t, axis=ax, include_initial=initial)
                got = fn(d.reshape(1) if d.ndim == 0 else d, axis=ax, include_initial=initial)
                assert got.device == d.device, where
                if want.dtype.kind in "fc":
                    g, w = np.asarray(got.cpu()), np.asarray(want)
                    assert g.shape == w.shape and g.dtype == w.dtype, where
                    # within rounding of the running totals' size (Note [CUDA scans])
                    scale = np.maximum(1.0, np.abs(w))
                    eps = 1e-5 if want.dtype in (strided.float32, strided.complex64) else 1e-12
                    assert np.all(np.abs(g - w) <= 20 * eps * scale * np.sqrt(shape[ax])), where
                else:
                    same_bits(got, want, where)


@pytest.mark.parametrize("device", DEVICES)
def test_scan_variants_and_wrapping(device, rng):
    x = rng.integers(-100, 100, (3, 4)).astype(np.int8)
    t, d = strided.asarray(x), strided.asarray(x, device=device)
    # dtype= casts first and wraps around in the small type, as NumPy's
    same_bits(strided.cumsum(d, 1, dtype=strided.int8), np.cumsum(x, 1, dtype=np.int8), "int8")
    same_bits(strided.cumprod(d, 0, dtype=strided.int8), np.cumprod(x, 0, dtype=np.int8), "prod")
    big = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    same_bits(strided.cumsum(strided.asarray(big, device=device)), np.cumsum(big), "int64 wrap")
    u = np.array([65535, 65535, 3], dtype=np.uint16)
    same_bits(
        strided.cumprod(strided.asarray(u, device=device), dtype=strided.uint16),
        np.cumprod(u, dtype=np.uint16),
        "uint16 products wrap in uint16",
    )
    # NumPy's spelling flattens; PyTorch's keeps a 0-d tensor 0-d; out= lands on the device
    same_bits(strided.cumsum(d), strided.cumsum(t), "flattened")
    same_bits(strided.cumsum(d[0, 0], 0), strided.cumsum(t[0, 0], 0), "0-d")
    out = strided.empty((3, 4), dtype=strided.int64, device=device)
    r = strided.cumsum(d, 1, out=out)
    assert r is out
    same_bits(out, np.cumsum(x.astype(np.int64), 1), "out=")


@pytest.mark.parametrize("device", DEVICES)
def test_float_scans_are_deterministic_and_thread_scans_are_the_cpus(device, rng):
    v = rng.standard_normal(50_000).astype(np.float32)
    d = strided.asarray(v, device=device)
    first = np.asarray(strided.cumulative_sum(d).cpu())  # one line in chunks: three launches
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(strided.cumulative_sum(d).cpu()), first)
    np.testing.assert_allclose(first, np.cumsum(v.astype(np.float64)), rtol=1e-3, atol=2e-3)
    # across the fast dim each thread walks its line in order: the CPU's exact bits
    m = rng.standard_normal((300, 17))
    same_bits(
        strided.cumsum(strided.asarray(m, device=device), 0),
        strided.cumsum(strided.asarray(m), 0),
        "thread per line",
    )


@pytest.mark.parametrize("device", DEVICES)
def test_scan_errors_match_the_cpu(device):
    d = strided.asarray([[True, False]], device=device)
    with pytest.raises(TypeError, match="does not support dtype bool"):
        strided.cumulative_sum(d, axis=1, dtype=strided.bool)
    with pytest.raises(IndexError, match="out of range"):
        strided.cumulative_sum(d, axis=2)
    with pytest.raises(ValueError, match="axis=None needs a 1-D"):
        strided.cumulative_prod(d)


# ---------------------------------------------------------------------------------------------
# Sorting (Note [CUDA sorting]): a stable sort has one answer, the CPU's
# ---------------------------------------------------------------------------------------------


def _sort_values(shape, dtype, rng):
    """Few distinct values (many ties), NaNs and both zeros for floats."""
    n = int(np.prod(shape))
    if dtype.kind == "b":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype.numpy)
        pool = np.array([info.min, info.max, 0, 1, 2, 3, info.max - 1], dtype=dtype.numpy)
        return pool[rng.integers(0, len(pool), n)].reshape(shape)
    pool = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 3.0])
    v = np.empty(n, dtype.numpy)
    if dtype.kind == "c":  # each part from the pool (not re + 1j * im: inf * 1j has a NaN)
        v.real = pool[rng.integers(0, len(pool), n)]
        v.imag = pool[rng.integers(0, len(pool), n)]
    else:
        v[:] = pool[rng.integers(0, len(pool), n)]
    return v.reshape(shape)


SORT_CASES = [
    ((5, 7), 1, LAYOUTS),
    ((5, 7), 0, LAYOUTS),
    ((2, 3, 4), 1, ("contiguous", "transposed", "negative-stride")),
    ((2, 2600), 1, ("contiguous", "transposed")),  # longer than a tile: merge passes
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_sort_argsort_match_the_cpu(device, dtype, rng):
    for shape, axis, layouts in SORT_CASES:
        vals = _sort_values(shape, dtype, rng)
        for layout, t in _layouts(vals, rng, layouts):
            d = on(device, t)
            ax = axis if t.ndim > 1 else -1
            for desc in (False, True):
                where = f"{dtype.name} {layout} {shape} axis={ax} descending={desc}"
                wv, wi = t.sort(ax, desc)
                gv, gi = d.sort(ax, desc)
                same_bits(gv, wv, where)
                same_bits(gi, wi, where)
                same_bits(strided.sort(d, axis=ax, descending=desc), wv, where)
                same_bits(strided.argsort(d, axis=ax, descending=desc), wi, where)


@pytest.mark.parametrize("device", DEVICES)
def test_sort_nan_placement_and_stability(device):
    nan = float("nan")
    d = strided.asarray([[3.0, nan, 1.0, -0.0, 0.0, nan, 1.0]], device=device)
    np.testing.assert_array_equal(strided.argsort(d).cpu(), [[3, 4, 2, 6, 0, 1, 5]])
    np.testing.assert_array_equal(
        strided.argsort(d, descending=True).cpu(), [[1, 5, 0, 2, 6, 3, 4]]
    )
    c = strided.asarray([complex(nan, 0), 1 + 1j, complex(1, nan), 1 + 0j], device=device)
    np.testing.assert_array_equal(strided.argsort(c).cpu(), [3, 1, 2, 0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype",
    [
        strided.int8,
        strided.int16,
        strided.uint64,
        strided.float32,
        strided.float64,
        strided.complex128,
        strided.bool,
    ],
    ids=lambda d: d.name,
)
def test_topk_matches_the_cpu(device, dtype, rng):
    vals = _sort_values((6, 40), dtype, rng)
    for layout, t in _layouts(vals, rng):
        d = on(device, t)
        for dim in range(max(t.ndim, 1)):
            n = t.shape[dim] if t.ndim else 1
            for k in sorted({0, min(1, n), min(3, n), n}) if t.ndim else (1,):
                for largest in (True, False):
                    where = f"{dtype.name} {layout} dim={dim} k={k} largest={largest}"
                    wv, wi = strided.topk(t, k, dim, largest)
                    gv, gi = strided.topk(d, k, dim, largest)
                    same_bits(gv, wv, where)
                    same_bits(gi, wi, where)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype",
    [
        strided.bool,
        strided.int8,
        strided.uint32,
        strided.uint64,
        strided.float32,
        strided.float64,
        strided.complex128,
    ],
    ids=lambda d: d.name,
)
def test_unique_matches_the_cpu(device, dtype, rng):
    for shape in ((4, 6), (3000,)):
        vals = _sort_values(shape, dtype, rng)
        for layout, t in _layouts(vals, rng):
            d = on(device, t)
            where = f"{dtype.name} {layout} {shape}"
            for fn in (strided.unique_values, strided.unique_counts, strided.unique_all):
                got, want = fn(d), fn(t)
                for g, w in zip(
                    got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,),
                    strict=True,
                ):
                    same_bits(g, w, f"{fn.__name__} {where}")
            got = strided.unique(d, return_index=True, return_inverse=True, return_counts=True)
            want = strided.unique(t, return_index=True, return_inverse=True, return_counts=True)
            for g, w in zip(got, want, strict=True):
                same_bits(g, w, f"unique {where}")


@pytest.mark.parametrize("device", DEVICES)
def test_sort_errors_match_the_cpu(device):
    d = strided.asarray([[3, 1], [2, 2]], device=device)
    with pytest.raises(IndexError, match="out of range"):
        strided.sort(d, axis=2)
    with pytest.raises(ValueError, match="out of range"):
        strided.topk(d, 3, 1)
    with pytest.raises(TypeError, match="k must be an int"):
        strided.topk(d, 1.5)
    with pytest.raises(NotImplementedError, match="axis=None"):
        strided.unique(d, axis=0)


@GPU_ONLY
def test_strided_sort_kernels_on_a_gpu(monkeypatch, rng):
    """On a GPU, sorting goes through CuPy; strided's own kernels must agree there too."""
    from strided.cuda import _sort

    monkeypatch.setattr(_sort, "USE_CUPY", False)
    for dtype in (strided.float32, strided.int64, strided.complex64):
        t = strided.asarray(_sort_values((3, 5000), dtype, rng))
        d = on("cuda", t)
        for desc in (False, True):
            gv, gi = d.sort(1, desc)
            wv, wi = t.sort(1, desc)
            same_bits(gv, wv, f"{dtype.name} descending={desc}")
            same_bits(gi, wi, f"{dtype.name} descending={desc}")
