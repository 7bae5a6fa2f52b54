"""Split CUDA reductions finished by their last block (strided/cuda/_reduce.py, Note [The last
block combines the partials] in strided/cuda/kernels/reduce.cu).

A long reduction with few outputs is cut into chunks whose partials the last block to finish
combines, in the same launch. Checked here on every device: every dtype the reductions take,
lengths that split (a chain and a tree of partials, the block and the thread kernel) and ones
that do not, every layout; the answer against NumPy (or the CPU for the halves), and bit for bit
against the same reduction finished by a second launch, as before the change; NaNs; repeated
calls and reductions in sequence on one stream (each launch leaves its counters at 0); on the
emulator, both orders of blocks (the last block is then chunk G - 1, or chunk 0).
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, NVRTC_ONLY, on
from layouts import LAYOUTS, make_layout, make_values, to_numpy_dtype

import strided
from strided.cuda import _backend, _reduce

DTYPES = (
    strided.bool,
    strided.int8,
    strided.int32,
    strided.int64,
    strided.uint8,
    strided.uint64,
    strided.float16,
    strided.bfloat16,
    strided.float32,
    strided.float64,
    strided.complex64,
    strided.complex128,
)
# (shape, axis, how the partials are combined: "tree" or "chain" by the last block, "two" by a
# second launch, None: not split), for the contiguous layout (Note [CUDA reductions]'s G)
CASES = [
    ((40000,), None, "tree"),  # whole: 20 chunks, the block combines the partials
    ((20000,), None, "chain"),  # whole: 10 chunks, thread 0 combines them
    ((3000,), None, None),  # too short to split
    ((2, 33000), 1, "tree"),  # row sums: a counter per output
    ((3, 9000), 1, "chain"),
    ((1500, 7), 0, "chain"),  # column sums, thread kernel: a counter per column of blocks
    ((300, 260), 0, "chain"),  # two columns of blocks, the second one partly idle
    ((3000, 5), 0, "two"),  # few outputs, many partials each: a second launch
    ((6, 7, 5), 1, None),
]


def _two_launches(f):
    """``f()`` with every split reduction finished by a second launch, as before the change."""
    _reduce.LAST_BLOCK_FINISHES = False
    _reduce._PLANS.clear()
    try:
        return f()
    finally:
        _reduce.LAST_BLOCK_FINISHES = True
        _reduce._PLANS.clear()


def _bytes(t):
    return np.asarray(t.cpu()).tobytes()


def _ops(dtype):
    if dtype.kind == "b":
        return ("sum", "any", "all", "argmax")
    if dtype.kind == "c":
        return ("sum", "prod")
    return ("sum", "max", "min", "argmax", "argmin") + (("mean",) if dtype.kind == "f" else ())


def _values(shape, dtype, rng):
    if dtype.kind == "f":  # moderate values: a long float sum stays well inside its range
        return rng.uniform(-2, 2, shape).astype(to_numpy_dtype(dtype))
    if dtype.kind == "c":  # on the unit circle: long products stay finite
        return np.exp(1j * rng.uniform(-1, 1, shape)).astype(dtype.numpy)
    if dtype.kind in "iu" and dtype.itemsize < 8:  # small: no wrapping in the sum
        return rng.integers(0 if dtype.kind == "u" else -3, 4, shape).astype(dtype.numpy)
    return make_values(shape, dtype, rng)


def _check(name, dtype, got, t, axis, where, layout):
    """``got`` (a device result) against the CPU's answer for the CPU tensor ``t``: NumPy's
    (test_reduction.py), or the halves' float32 arithmetic rounded once (test_half.py)."""
    want = getattr(strided, name)(t, axis=axis)
    assert got.shape == want.shape and got.dtype is want.dtype, where
    g, w = np.asarray(got.cpu()), np.asarray(want)
    if dtype.kind in "fc" and name in ("sum", "mean", "prod"):
        # another order of float additions (test_cuda.py's tolerances), and the halves' rounding
        n = max(t.numel() // max(want.numel(), 1), 1)
        wide = dtype in (strided.float64, strided.complex128)
        eps = float(np.finfo(np.float64 if wide else np.float32).eps)
        rounding = {"float16": 2.0**-11, "bfloat16": 2.0**-8}.get(dtype.name, 0.0)
        base = 1e-10 if wide else 1e-4
        rtol = base + 4 * rounding
        if layout == "expanded" or name == "prod":  # n equal values, or n factors: n * eps
            rtol = max(rtol, 4 * n * eps)
        atol = 0.0 if name == "prod" else base * np.sqrt(n) / (n if name == "mean" else 1)
        g, w = g.astype(np.complex128), w.astype(np.complex128)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_split_reductions_in_one_launch_match_the_cpu_and_the_two_launches(device, dtype, rng):
    for shape, axis, how in CASES:
        vals = _values(shape, dtype, rng)
        for layout in LAYOUTS:
            pair = make_layout(layout, vals, rng)
            if pair is None:
                continue
            t = pair[0]
            d = on(device, t)
            ax = axis if axis is None or axis < t.ndim else None
            every = layout in ("contiguous", "negative-stride")
            for name in _ops(dtype) if every else ("sum", "argmax")[: 1 + (dtype.kind != "c")]:
                if t.numel() == 0 and name in ("max", "min", "argmax", "argmin"):
                    continue  # no identity: the CPU's error, tested in test_cuda.py
                where = f"{name} {dtype.name} {layout} {t.shape} axis={ax} on {device}"
                f = getattr(strided, name)
                with strided.cuda.trace_launches() as launches:
                    got = f(d, axis=ax)
                _check(name, dtype, got, t, ax, where, layout)
                before = _two_launches(lambda f=f, d=d, ax=ax: f(d, axis=ax))
                assert _bytes(got) == _bytes(before), where  # the same combination, bit for bit
                if layout == "contiguous" and name != "mean" and t.numel():
                    n = len([k for k, *_ in launches if "strided_reduce" in str(k)])
                    assert n == (2 if how == "two" else 1), (where, launches)


@pytest.mark.parametrize("device", DEVICES)
def test_which_partials_the_last_block_combines(device):
    """The plans: the block kernel always finishes in one launch (a tree of many partials, a
    chain of few); the thread kernel does where a thread per output combines."""
    expected = {"tree": _reduce._FINISH_TREE, "chain": _reduce._FINISH_CHAIN}
    for shape, axis, how in CASES:
        x = strided.zeros(shape, dtype="float32", device=device)
        dims = tuple(range(len(shape))) if axis is None else (axis,)
        plan = _reduce._plan("sum", x, dims, False, x.dtype)
        assert int(plan.finish) == expected.get(how, _reduce._FINISH_NONE), (shape, axis)
        assert (plan.fn2 is not None) == (how == "two"), (shape, axis)
        assert (plan.grid[1] > 1) == (how is not None), (shape, axis)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_split_reductions_propagate_nan(device, dtype):
    """A NaN in one chunk wins whichever block finishes last: sum, max and min are NaN, argmax
    and argmin give the first NaN's index, as NumPy's."""
    x = np.linspace(-1, 1, 40001).astype(dtype)
    x[[25000, 33000]] = np.nan
    d = strided.asarray(x, device=device)
    for name in ("sum", "max", "min"):
        assert np.isnan(float(getattr(strided, name)(d).item())), name
    assert strided.argmax(d).item() == 25000 and strided.argmin(d).item() == 25000
    m = strided.asarray(np.stack([x, x[::-1].copy()]), device=device)
    np.testing.assert_array_equal(strided.argmax(m, axis=1).cpu(), [25000, 40000 - 33000])


def _counters_on_host(device):
    b = _backend.backend_for(strided.zeros(1, device=device).device)
    out = np.empty(_backend.COUNTERS, np.uint32)
    b.synchronize()
    b.copy_to_host(out.ctypes.data, b.counters(), out.nbytes)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_each_launch_leaves_its_counters_at_zero(device, rng):
    """Repeated calls give the same bits (the counter was reset, so the same block is elected
    by the same count), reductions of other shapes in sequence on the one stream, without a
    wait between them, each give their own answer, and the counters are all 0 after."""
    xs = [rng.standard_normal(s).astype(np.float32) for s in ((40000,), (2, 33000), (1500, 7))]
    ds = [strided.asarray(x, device=device) for x in xs]
    axes = (None, 1, 0)
    first = [strided.sum(d, axis=a) for d, a in zip(ds, axes, strict=True)]
    for _ in range(3):  # interleaved: every launch starts from counters its predecessor reset
        again = [strided.sum(d, axis=a) for d, a in zip(ds, axes, strict=True)]
        for g, w in zip(again, first, strict=True):
            assert _bytes(g) == _bytes(w)
    for g, x, a in zip(first, xs, axes, strict=True):
        np.testing.assert_allclose(g.cpu(), x.sum(axis=a, dtype=np.float64), rtol=1e-4, atol=1e-3)
    assert not _counters_on_host(device).any()


@pytest.mark.parametrize("device", DEVICES)
def test_a_failed_launch_forgets_the_counters(device, monkeypatch):
    """A launch cut short may leave a count behind: the backend makes new counters."""
    d = strided.asarray(np.ones(40000, np.float32), device=device)
    b = _backend.backend_for(d.device)
    b.counters()
    old = b._counters

    def fail(*args, **kwargs):
        raise RuntimeError("launch failed")

    with monkeypatch.context() as m:
        m.setattr(b, "launch", fail)
        with pytest.raises(RuntimeError, match="launch failed"):
            strided.sum(d)
    assert b._counters is None or b._counters != old
    assert strided.sum(d).item() == 40000.0
    assert not _counters_on_host(device).any()


def test_the_last_block_may_be_any_chunk(rng):
    """On the emulator the last block run is chunk G - 1 in the forward order of blocks and
    chunk 0 in the reverse one: the same bits either way, as on a GPU whichever block finishes
    last."""
    from strided.cuda import _emulator

    for shape, axis, how in CASES:
        if how not in ("tree", "chain"):
            continue
        x = strided.asarray(rng.standard_normal(shape), device="cuda-emulated")
        forward = strided.sum(x, axis=axis)
        _emulator.set_thread_order("reverse")
        try:
            reverse = strided.sum(x, axis=axis)
            i = strided.argmax(x, axis=axis)
        finally:
            _emulator.set_thread_order("forward")
        assert _bytes(reverse) == _bytes(forward), (shape, axis)
        np.testing.assert_array_equal(i.cpu(), np.asarray(x.cpu()).argmax(axis=axis))


def test_each_stream_has_its_own_counters():
    """CupyBackend.counters, without a GPU: one array per stream (reductions on two streams
    may run at once), zeroed once on that stream by a memset queued before any launch that
    counts on it, the same array for every later launch on the stream; a new one after
    ``drop_counters``."""
    import types

    stream, memsets = [5], []
    gpu = object.__new__(_backend.CupyBackend)
    current = types.SimpleNamespace(get_current_stream=lambda: types.SimpleNamespace(ptr=stream[0]))
    gpu.cupy = types.SimpleNamespace(cuda=current)
    gpu.runtime = types.SimpleNamespace(memsetAsync=lambda *args: memsets.append(args))
    gpu._counters = {}
    addresses = iter(range(1 << 16, 1 << 24, 1 << 16))
    gpu.allocate = lambda nbytes: (next(addresses), None)
    a = gpu.counters()
    assert gpu.counters() == a
    stream[0] = 9
    b = gpu.counters()
    assert b != a and gpu.counters() == b
    stream[0] = 5
    assert gpu.counters() == a
    assert memsets == [(a, 0, 4 * _backend.COUNTERS, 5), (b, 0, 4 * _backend.COUNTERS, 9)]
    gpu.drop_counters()
    c = gpu.counters()
    assert c not in (a, b) and memsets[-1] == (c, 0, 4 * _backend.COUNTERS, 5)


def _block_order_sum(x, head, vector):
    """The float32 sum of ``x`` by one block of the block kernel (no split), in the order
    kernels/reduce.cu gives (Note [Vector loads in the block reduction]): ``head`` elements up
    to the first 16-byte boundary, then vectors of ``vector`` elements (loaded four at a time,
    added trip by trip into 8 accumulators), then the tail; each thread's 8 accumulators by a
    tree, then the block's 256 threads by block_combine's shuffle trees."""
    x = x.astype(np.float32)
    f32 = np.float32
    threads, unroll, batch = 256, 8, 4
    trip = max(unroll // vector, 1)  # vectors a trip
    nvec = (len(x) - head) // vector
    totals = []
    for t in range(threads):
        acc = [f32(0)] * unroll
        for r in range(t, head, threads):
            acc[0] = f32(acc[0] + x[r])

        def add(k, u, acc=acc):
            for e in range(vector):
                j = (u * vector + e) % unroll
                acc[j] = f32(acc[j] + x[head + k * vector + e])

        k = t
        while k + (max(batch, trip) - 1) * threads < nvec:
            for w in range(max(batch, trip)):
                add(k + w * threads, w % trip)
            k += max(batch, trip) * threads
        while k + (trip - 1) * threads < nvec:
            for u in range(trip):
                add(k + u * threads, u)
            k += trip * threads
        while k < nvec:
            add(k, 0)
            k += threads
        for r in range(head + nvec * vector + t, len(x), threads):
            acc[0] = f32(acc[0] + x[r])
        w = 1
        while w < unroll:
            for j in range(0, unroll - w, 2 * w):
                acc[j] = f32(acc[j] + acc[j + w])
            w *= 2
        totals.append(acc[0])

    def warp(v):  # lane 0 of the shuffle tree: lanes d apart, d = 16, 8, 4, 2, 1
        v = np.array(v + [f32(0)] * (32 - len(v)), np.float32)
        for d in (16, 8, 4, 2, 1):
            v = v[:d] + v[d : 2 * d]
        return v[0]

    return warp([warp(totals[i : i + 32]) for i in range(0, threads, 32)])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_a_block_sums_in_the_order_its_note_gives(device, dtype, rng):
    """Bit for bit, the order of Note [Vector loads in the block reduction]: batches of four
    vectors added trip by trip, the trips and single vectors left over, the head and the tail,
    then the trees; at lengths and alignments that take each loop (one block: no split). The
    four-vector batches kept the bits of one trip at a time."""
    base = rng.standard_normal(4096 + 8).astype(dtype)
    x_all = strided.asarray(base, device=device)
    item = np.dtype(dtype).itemsize
    for start, n in ((0, 4096), (0, 4095), (1, 4095), (3, 3000), (0, 1300), (5, 37)):
        x = x_all[start : start + n]
        head = min(((16 - x.data_ptr() % 16) % 16) // item, n)
        want = _block_order_sum(base[start : start + n], head, 16 // item)
        got = np.asarray(strided.sum(x).cpu())
        where = f"{n} {np.dtype(dtype).name} from element {start} on {device}"
        assert got.tobytes() == np.asarray(want).astype(dtype).tobytes(), where


@NVRTC_ONLY
@pytest.mark.parametrize(
    "op, dtype, out, vector_load",
    [
        ("sum", "float32", None, "ld.global.v4.f32"),
        ("sum", "float16", None, "ld.global.v4"),
        ("sum", "bfloat16", "float32", "ld.global.v4"),
        ("max", "float32", None, "ld.global.v4.f32"),
        ("sum", "float64", None, "ld.global.v2.f64"),
    ],
)
def test_the_block_kernel_loads_four_vectors_before_it_adds(op, dtype, out, vector_load):
    """NVRTC's PTX for sm_90: the contiguous body issues four 16-byte loads in a row, with no
    float arithmetic (a widening, an addition, a comparison) between them (Note [Vector loads
    in the block reduction])."""
    from strided.cuda import compile_check

    name = [n for n in _reduce._names(op, dtype, out) if n.startswith("strided_reduce_block<")][0]
    modules = _reduce.all_modules()
    assert any(name in names for _, _, names in modules), "not an instantiation the runtime has"
    lines = [s.strip() for s in compile_check.ptx("reduce.cu", name).splitlines()]
    run = longest = 0
    for s in lines:
        if s.startswith(vector_load):
            run += 1
            longest = max(longest, run)
        elif s.startswith(("add.rn.f", "add.f", "setp.", "cvt.f32.")):
            run = 0
    assert longest >= 4, (name, longest)
