"""Indexing and shape ops on CUDA devices against the CPU kernels (and NumPy).

Every case runs an op on CPU tensors and on device copies with the same layout (``on`` of
test_cuda.py): the results must be equal (values, shape, dtype, device), or both must raise
the same error with the same message. Inputs come in every layout of tests/layouts.py; indices
hold duplicates and negative values. Scatters compare the written tensor itself, so they also
write through transposed, stepped and negative-stride views. See Note [CUDA indexing is a gather
over byte offsets] and the other Notes in strided/cuda/_index.py.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import ALL_DTYPES, LAYOUTS, make_layout, make_values

import strided
from strided import _core
from strided.nn import functional as F

SHAPE = (4, 3, 5)
FEW_DTYPES = (strided.bool, strided.int16, strided.float32, strided.complex128)
ERRORS = (IndexError, ValueError, TypeError, RuntimeError, NotImplementedError)


@pytest.fixture(params=["forward", "reverse"])
def thread_order(request):
    """Run the emulator's threads (and blocks) forwards, then backwards: a scatter whose
    answer depends on which thread writes last shows up as a difference (real GPUs promise no
    order at all)."""
    from strided.cuda import _emulator as emu

    emu.set_thread_order(request.param)
    yield request.param
    emu.set_thread_order("forward")


def _cases():
    for layout in LAYOUTS:
        for dtype in ALL_DTYPES if layout == "contiguous" else FEW_DTYPES:
            yield pytest.param(layout, dtype, id=f"{layout}-{dtype.name}")


def twin(t):
    """A CPU copy of ``t`` with the same layout (its own storage), for in-place ops."""
    src = t.untyped_storage()
    storage = _core.Storage._new(src.nbytes, "cpu")
    ctypes.memmove(storage.data_ptr(), src.data_ptr(), src.nbytes)
    return _core._from_parts(storage, t.storage_offset(), t.shape, t.stride(), t.dtype)


def _same(got, want, where):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), where
        for g, w in zip(got, want, strict=True):
            _same(g, w, where)
        return
    assert got.device.is_cuda, where
    assert got.shape == want.shape and got.dtype is want.dtype, where
    g, w = np.asarray(got.cpu()), np.asarray(want)
    if w.dtype.kind in "fc":
        # float sums of duplicates may round differently: the atomics' order is not the CPU's
        # (Note [Duplicate indices on a GPU]). Complex parts are compared apart (an infinite
        # part would hide a rounding difference in the other).
        tol = 1e-4 if w.dtype in (np.float32, np.complex64) else 1e-10
        g, w = np.stack([g.real, g.imag]), np.stack([w.real, w.imag])
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def check(device, fn, *args, where=""):
    """fn(*args) on the CPU and on ``device`` (tensor arguments copied there, same layout)."""
    cpu_args = [twin(a) if isinstance(a, strided.Tensor) else a for a in args]
    dev_args = [on(device, a) if isinstance(a, strided.Tensor) else a for a in args]
    try:
        want = fn(*cpu_args)
    except ERRORS as e:
        with pytest.raises(type(e)) as info:
            fn(*dev_args)
        assert str(info.value) == str(e), where
        return
    got = fn(*dev_args)
    _same(got, want, where)
    # in-place ops: the tensors written must agree too
    for c, d in zip(cpu_args, dev_args, strict=True):
        if isinstance(c, strided.Tensor):
            _same(d, c, where + " (argument after the call)")


def _ints(rng, n, size):
    """``size`` indices in [-n, n) (with duplicates), or an empty index when n is 0."""
    if n == 0:
        return strided.asarray(np.zeros(0, dtype=np.int64))
    return strided.asarray(rng.integers(-n, n, size))


def _layout(layout, dtype, rng, shape=SHAPE):
    pair = make_layout(layout, make_values(shape, dtype, rng), rng)
    return None if pair is None else pair[0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout,dtype", list(_cases()))
def test_gathers_match_the_cpu(device, layout, dtype, rng):
    x = _layout(layout, dtype, rng)
    if x is None:
        pytest.skip(f"layout {layout} does not apply")
    shape = x.shape + (1,) * (3 - x.ndim)
    i0, i1, i2 = (_ints(rng, n, 6) for n in shape)
    mask = strided.asarray(rng.random(x.shape) < 0.4)
    w = f"{layout} {dtype.name} {x.shape} on {device}"
    check(device, lambda x, i: strided.take(x, i), x, _ints(rng, x.numel(), 7), where=w)
    for d in range(x.ndim):
        i = (i0, i1, i2)[d]
        g = strided.asarray(rng.integers(-shape[d], max(shape[d], 1), x.shape[:d] + (2,)))
        check(device, lambda x, i, d=d: strided.take(x, i, axis=d), x, i, where=w)
        check(device, lambda x, i, d=d: strided.index_select(x, d, i), x, i, where=w)
        check(device, lambda x, g, d=d: strided.gather(x, d, g), x, g, where=w)
        check(device, lambda x, g, d=d: strided.take_along_axis(x, g, axis=d), x, g, where=w)
    check(device, lambda x, i: x[i], x, i0, where=w + " x[i]")
    check(device, lambda x: x[[0, -1, 0]], x, where=w + " x[list]")  # a host index
    check(device, lambda x, i: x[:, i], x, i1, where=w + " x[:, i]")
    check(device, lambda x, i, j: x[i, :, j], x, i0, i2, where=w + " x[i, :, j]")
    check(device, lambda x, i, j: x[i[:, None], j], x, i0, i1, where=w + " x[i[:, None], j]")
    check(device, lambda x, j: x[1, j], x, i1, where=w + " x[1, j]")
    check(device, lambda x, i: x[None, i, ..., None], x, i0, where=w + " x[None, i, ..., None]")
    check(device, lambda x, m: x[m], x, mask, where=w + " x[mask]")
    check(device, lambda x, m, i: x[m[..., 0, 0], i], x, mask, i1, where=w + " x[mask, i]")
    check(device, lambda x: x[True], x, where=w + " x[True]")
    check(device, lambda x: x[..., False], x, where=w + " x[..., False]")
    check(device, lambda x, m: strided.masked_fill(x, m, 1), x, mask, where=w)
    check(device, lambda x, m: strided.masked_fill(x, m[0], 0), x, mask, where=w + " broadcast")
    check(device, strided.nonzero, x, where=w + " nonzero")
    check(device, lambda x: x.nonzero(as_tuple=False), x, where=w + " Tensor.nonzero")
    check(device, lambda x: strided.where(x != 0), x, where=w + " where(cond)")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("limit", [1024, 1])
def test_kept_launch_plans_serve_new_addresses_and_layouts(device, limit, rng, monkeypatch):
    # Note [Kept plans of the index launches]: the same gather and scatter-add repeated on new
    # tensors of one shape reuse their plans; another layout of that shape, an empty one, or a
    # full table (limit 1: emptied at every new plan) gets its own, with the CPU's answers
    from strided.cuda import _index, _launch

    monkeypatch.setattr(_index, "_LOOP_PLANS", _launch.KeptPlans(limit))
    for layout in ("contiguous", "transposed", "negative-stride", "contiguous", "empty"):
        x, a = make_layout(layout, rng.standard_normal((6, 5)), rng)
        idx = rng.integers(-5, 5, (6, 3)) if a.size else np.zeros(a.shape, np.int64)
        i = on(device, strided.asarray(idx))
        got = strided.gather(on(device, x), 1, i)
        np.testing.assert_array_equal(got.cpu(), np.take_along_axis(a, idx % 5, 1))
        src = rng.standard_normal(idx.shape)
        target = on(device, strided.zeros(a.shape))
        strided.scatter_add(target, 1, i, on(device, strided.asarray(src)), inplace=True)
        expected = np.zeros(a.shape)
        np.add.at(expected, (np.arange(a.shape[0])[:, None], idx % 5), src)
        np.testing.assert_allclose(target.cpu(), expected, rtol=1e-12)
        assert len(_index._LOOP_PLANS) <= limit


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout,dtype", list(_cases()))
def test_scatters_match_the_cpu(device, layout, dtype, rng, thread_order):
    x = _layout(layout, dtype, rng)
    if x is None:
        pytest.skip(f"layout {layout} does not apply")
    shape = x.shape + (1,) * (3 - x.ndim)
    i0, i1 = _ints(rng, shape[0], 6), _ints(rng, shape[1], 6)
    mask = strided.asarray(rng.random(x.shape) < 0.4)
    nmask = int(np.count_nonzero(np.asarray(mask)))
    w = f"{layout} {dtype.name} {x.shape} on {device}"

    def vals(*s):
        return strided.asarray(make_values(s, dtype, rng, cast_safe=True))

    def put(x, i, v):
        x[i] = v
        return x

    def put_cols(x, i, v):
        x[:, i] = v
        return x

    check(device, put, x, i0, vals(6, *x.shape[1:]), where=w + " x[i] = v (duplicates)")
    check(device, put, x, i0, vals(), where=w + " x[i] = scalar")
    check(device, put_cols, x, i1, vals(shape[-1]), where=w + " x[:, i] = broadcast v")
    check(device, put, x, mask, vals(nmask), where=w + " x[mask] = v")
    check(device, put, x, mask, 1, where=w + " x[mask] = 1")
    check(
        device,
        lambda x, i, v: x.index_put_((i,), v, accumulate=True),
        x,
        i0,
        vals(6, *x.shape[1:]),
        where=w + " index_put accumulate",
    )
    for d in range(x.ndim):
        g = strided.asarray(rng.integers(-shape[d], max(shape[d], 1), x.shape[:d] + (7,)))
        g = g[(slice(None),) * d + (slice(0, x.shape[d]),)] if x.shape[d] < 7 else g
        src = vals(*g.shape)
        for fn in (strided.scatter, strided.scatter_add):
            check(
                device,
                lambda x, g, s, d=d, fn=fn: fn(x, d, g, s, inplace=True),
                x,
                g,
                src,
                where=w + f" {fn.__name__} dim {d}",
            )
        check(
            device,
            lambda x, g, d=d: strided.scatter(x, d, g, 2, inplace=True),
            x,
            g,
            where=w + f" scatter scalar dim {d}",
        )
        i = _ints(rng, shape[d], 5)
        source = vals(*x.shape[:d], 5, *x.shape[d + 1 :])
        check(
            device,
            lambda x, i, s, d=d: strided.index_add(x, d, i, s, inplace=True),
            x,
            i,
            source,
            where=w + f" index_add dim {d}",
        )
    check(
        device,
        lambda x, m: strided.masked_fill(x, m, 3, inplace=True),
        x,
        mask,
        where=w + " masked_fill_",
    )


@pytest.mark.parametrize("device", DEVICES)
def test_duplicates_last_write_wins_and_sums_are_exact(device, rng, thread_order):
    n, k = 50, 3000
    idx = rng.integers(0, n, k)
    vals = rng.integers(-1000, 1000, k)
    x = strided.zeros(n, dtype="int64", device=device)
    x[strided.asarray(idx)] = strided.asarray(vals)  # index on the host, values too
    want = np.zeros(n, dtype=np.int64)
    want[idx] = vals  # NumPy: the last write wins
    np.testing.assert_array_equal(x.cpu(), want)
    for dtype in ("int8", "uint16", "int32", "int64", "float64", "complex64", "bool"):
        d = np.dtype(dtype)
        v = make_values((k,), np.dtype(dtype), rng, cast_safe=True)
        got = strided.index_add(
            strided.zeros(n, dtype=dtype, device=device),
            0,
            strided.asarray(idx, device=device),
            strided.asarray(v, device=device),
        )
        want = np.zeros(n, dtype=d)
        if dtype == "bool":
            np.logical_or.at(want, idx, v)
        else:
            np.add.at(want, idx, v)  # wraps for small integers, as the atomics do
        if d.kind in "fc":
            np.testing.assert_allclose(got.cpu(), want, rtol=1e-5, err_msg=dtype)
        else:
            np.testing.assert_array_equal(got.cpu(), want, err_msg=dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_out_of_range_indices_raise_and_write_nothing(device):
    x = strided.arange(12.0, device=device).reshape(3, 4)
    bad = strided.asarray([0, 5, -9], device=device)
    msg = "index 5 is out of bounds for dim 1 with size 4"
    cases = [
        lambda: strided.take(x, bad, axis=1),
        lambda: strided.index_select(x, 1, bad),
        lambda: x[:, bad],
        lambda: x[[0, 1, 0], bad],
        lambda: strided.gather(x, 1, bad.reshape(1, 3)),
        lambda: strided.take_along_axis(x, bad.reshape(1, 3), axis=1),
        lambda: strided.scatter(x, 1, bad.reshape(1, 3), 1.0, inplace=True),
        lambda: strided.scatter_add(x, 1, bad.reshape(1, 3), x[:1, :3], inplace=True),
        lambda: strided.index_add(x, 1, bad, x[:, :3], inplace=True),
        lambda: x.__setitem__((slice(None), bad), 7.0),
        lambda: x.index_put_((slice(None), bad), x[:, :3], True),
    ]
    # Note [Checking indices on the device]: the op returns; the error comes when the host next
    # waits for the device (here .cpu() and synchronize), and a scatter has written nothing
    for i, fn in enumerate(cases):
        fn()
        with pytest.raises(IndexError, match=msg):
            x.cpu()
        np.testing.assert_array_equal(x.cpu(), np.arange(12.0).reshape(3, 4), err_msg=str(i))
    x[strided.asarray([[0, -4]])]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dim 0 with size 3"):
        strided.cuda.synchronize(x.device)
    y = strided.take(x, strided.asarray([12]))
    with pytest.raises(IndexError, match="index 12 is out of bounds for dim 0 with size 12"):
        y.cpu()
    with pytest.raises(RuntimeError, match="share memory"):
        strided.scatter(x[:1].expand(3, 4), 0, strided.asarray([[0]]), 1.0, inplace=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_nonzero_over_many_blocks(device, layout, rng):
    # enough elements for several chunks of the two-pass kernel (Note [nonzero on a GPU
    # synchronises]), some chunks empty
    vals = rng.random((70, 9, 40)) < 0.05
    vals[10:40] = False
    pair = make_layout(layout, vals, rng)
    if pair is None:
        pytest.skip(f"layout {layout} does not apply")
    t, a = pair
    d = on(device, t)
    for coords_last in (True, False):
        want = np.argwhere(a) if coords_last else np.stack(np.nonzero(a)) if a.ndim else None
        if want is None:
            continue
        got = d.nonzero(as_tuple=False) if coords_last else strided.stack(strided.nonzero(d))
        np.testing.assert_array_equal(got.cpu(), want.reshape(got.shape))
    check(device, lambda m: strided.masked_fill(m, m, False), t)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64", "bool"])
def test_searchsorted_matches_numpy(device, dtype, rng):
    dt = np.dtype(dtype)
    pool = make_values((40,), np.dtype(dtype), rng)
    x1 = np.sort(pool)  # NaN last, as searchsorted expects
    x2 = make_values((6, 7), np.dtype(dtype), rng)
    x2[0, :4] = x1[:4]  # ties
    for layout in ("contiguous", "transposed", "negative-stride", "expanded", "0-d"):
        t, a = make_layout(layout, x2, rng)
        for side in ("left", "right"):
            got = strided.searchsorted(strided.asarray(x1, device=device), on(device, t), side=side)
            assert got.device.is_cuda and got.dtype is strided.int64
            want = np.searchsorted(x1, a, side=side)
            np.testing.assert_array_equal(got.cpu(), want, err_msg=f"{dtype} {layout} {side}")
    shuffled = rng.permutation(x1)  # unsorted, with the order that sorts it: sorter=
    sorter = strided.asarray(np.argsort(shuffled, kind="stable"), device=device)
    got = strided.searchsorted(strided.asarray(shuffled, device=device), x2[0, 0], sorter=sorter)
    assert got.item() == np.searchsorted(x1, x2[0, 0]), dt


SHAPE_OPS = [
    ("concat", lambda x: strided.concat([x, x[:1]], axis=0)),
    ("concat flat", lambda x: strided.concat([x, x], axis=None)),
    ("stack", lambda x: strided.stack([x, x], axis=-1)),
    ("tile", lambda x: strided.tile(x, (2, 1, 3))),
    ("repeat", lambda x: strided.repeat(x, 2, axis=-1)),
    ("repeat counts", lambda x: strided.repeat(x, [1, 0, 2] if x.ndim else 2, axis=x.ndim // 2)),
    ("roll", lambda x: strided.roll(x, (1, -2), axis=(0, -1)) if x.ndim else strided.roll(x, 1)),
    ("pad constant", lambda x: F.pad(x, (1, 2, -1, 1), value=7)),
    ("pad reflect", lambda x: F.pad(x, (2, 1, 1, 1), mode="reflect")),
    ("pad replicate", lambda x: F.pad(x, (1, 2), mode="replicate")),
    ("pad circular", lambda x: F.pad(x, (2, 1, 1, 0), mode="circular")),
    ("tril", lambda x: strided.tril(x, k=-1)),
    ("triu", lambda x: strided.triu(x, k=1)),
    ("meshgrid", lambda x: strided.meshgrid(x.reshape(-1)[:3], x.reshape(-1)[:2], indexing="xy")),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [strided.int8, strided.float64, strided.complex64])
def test_shape_ops_match_the_cpu(device, layout, dtype, rng):
    x = _layout(layout, dtype, rng)
    if x is None:
        pytest.skip(f"layout {layout} does not apply")
    for name, fn in SHAPE_OPS:
        check(device, fn, x, where=f"{name} of {layout} {dtype.name} {x.shape} on {device}")


@pytest.mark.parametrize("device", DEVICES)
def test_a_small_cnn_step_matches_the_cpu(device):
    """pad (conv2d's padding), take_along_axis (cross_entropy) and index_add (their
    backwards) on the device: one training step's gradients equal the CPU's."""
    from strided import nn
    from strided.nn import functional as F

    strided.random.seed(0)
    model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(32, 3))
    x = strided.asarray(np.random.default_rng(0).standard_normal((2, 1, 4, 4)), dtype="float32")
    y = strided.asarray([2, 0])
    grads = []
    for dev in ("cpu", device):
        m = model.to(dev)
        for p in m.parameters():
            p.grad = None
        loss = F.cross_entropy(m(x.to(dev)), y.to(dev), label_smoothing=0.1)
        loss.backward()
        grads.append([np.asarray(p.grad.cpu()) for p in m.parameters()])
    for g_cpu, g_dev in zip(*grads, strict=True):
        np.testing.assert_allclose(g_dev, g_cpu, rtol=1e-4, atol=1e-6)


@pytest.fixture
def deterministic():
    strided.use_deterministic_algorithms(True)
    yield
    strided.use_deterministic_algorithms(False)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_deterministic_accumulation_is_the_cpus_bit_for_bit(
    device, dtype, rng, thread_order, deterministic
):
    """Note [Deterministic algorithms] (strided/_config.py): sorted by cell, each cell's values
    added in row-major order from the cell's value, so any thread order gives the CPU's bits
    (atomics in reverse order give other last bits: checked below on the emulator)."""
    values = (rng.standard_normal((400, 5)) * 1e3).astype(dtype)
    base = rng.standard_normal((6, 5)).astype(dtype)
    idx = rng.integers(-6, 6, 400)
    idx2 = rng.integers(0, 6, (7, 5))
    cases = [
        ("index_add_", lambda x, v, i, i2: x.index_add_(0, i, v)),
        ("scatter_add_", lambda x, v, i, i2: x.scatter_add_(0, i2, v[:7])),
        ("index_put_ accumulate", lambda x, v, i, i2: x.index_put_((i,), v, True)),
        ("transposed target", lambda x, v, i, i2: x.T.index_add_(1, i, v.T)),
        ("negative-stride values", lambda x, v, i, i2: x.index_add_(0, i, v[::-1])),
    ]
    for name, fn in cases:
        want = strided.asarray(base.copy())
        fn(want, strided.asarray(values), strided.asarray(idx), strided.asarray(idx2))
        got = strided.asarray(base, device=device)
        dev = [strided.asarray(a, device=device) for a in (values, idx, idx2)]
        fn(got, *dev)
        np.testing.assert_array_equal(got.cpu(), want, err_msg=f"{name} {dtype} on {device}")
    if dtype == "complex64":  # no complex autograd (yet): the backward case is real only
        dtype = "float32"
        base, values = base.real.copy(), values.real.copy()
    # and the backward of a gather, through the same scatter
    w = strided.asarray(base, device=device).requires_grad_()
    strided.sum(
        w[strided.asarray(idx, device=device)] * strided.asarray(values, device=device)
    ).backward()
    cw = strided.asarray(base.copy()).requires_grad_()
    strided.sum(cw[strided.asarray(idx)] * strided.asarray(values)).backward()
    np.testing.assert_array_equal(w.grad.cpu(), cw.grad, err_msg=f"gather backward {dtype}")
    # a bad index still writes nothing
    target = strided.asarray(base, device=device)
    target.index_add_(
        0, strided.asarray([0, 9], device=device), strided.ones((2, 5), dtype=dtype, device=device)
    )
    with pytest.raises(IndexError, match="index 9 is out of bounds for dim 0 with size 6"):
        target.cpu()
    np.testing.assert_array_equal(target.cpu(), base)


def test_atomic_accumulation_on_the_emulated_device_depends_on_the_thread_order(rng):
    """Why the switch exists: with atomics, the emulator's reverse thread order rounds a float
    sum differently from the CPU's row-major one."""
    from strided.cuda import _emulator as emu

    values = (rng.standard_normal((400, 5)) * 1e3).astype("float32")
    idx = rng.integers(0, 3, 400)
    want = strided.zeros((3, 5), dtype="float32").index_add_(
        0, strided.asarray(idx), strided.asarray(values)
    )
    emu.set_thread_order("reverse")
    try:
        got = strided.zeros((3, 5), dtype="float32", device="cuda-emulated")
        got.index_add_(
            0,
            strided.asarray(idx, device="cuda-emulated"),
            strided.asarray(values, device="cuda-emulated"),
        )
        assert not np.array_equal(got.cpu(), want)
        np.testing.assert_allclose(got.cpu(), want, rtol=1e-4, atol=1e-2)
    finally:
        emu.set_thread_order("forward")


# Note [Gathering whole rows]: tables whose picked rows are contiguous, in every layout that keeps
# them so, rows of 16-, 8-, 4-, 2- and 1-byte vectors, and index tensors that are one loop
ROW_TABLES = [(9, 64), (9, 6, 5), (9, 3), (9, 1), (9,)]


def _row_tables(x):
    """(name, view, whether its rows are one contiguous run) for the table ``x``."""
    yield "contiguous", x, True
    yield "stepped rows", x[::2], True
    yield "reversed rows", x[::-1], True
    yield "expanded rows", x[:1].expand(x.shape), True
    if x.ndim > 1:
        yield "a row's tail", x[:, 1:], True  # contiguous, but its address is one element off
        single = all(n == 1 for n in x.shape[1:])  # a row of one element is a run anyway
        yield "a row's step", x[:, ::2], single
        yield "transposed", x.swapaxes(0, -1).copy().swapaxes(0, -1), single


def _row_indices(rng, size):
    i = strided.asarray(rng.integers(-size, size, 12))
    yield "1-D", i, True
    yield "reversed", i[::-1], True
    yield "stepped", i[::3], True
    yield "0-d", strided.asarray(np.int64(-1)), True
    yield "2-D", i.reshape(3, 4), True
    yield "expanded", i[:4].reshape(1, 4).expand(3, 4), False
    yield "empty", i[:0], False


def _bits(t):
    """The bytes of ``t``'s elements in row-major order: a gather moves them unchanged."""
    return np.ascontiguousarray(np.asarray(t)).reshape(-1).view(np.uint8)


def _row_gathers(ndim):
    """take along dim 0, x[i] (a 0-d index is a basic one: a view) and index_select (1-D)."""
    yield lambda x, i: strided.take(x, i, axis=0)
    if ndim:
        yield lambda x, i: x[i]
    if ndim == 1:
        yield lambda x, i: strided.index_select(x, 0, i)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [*ALL_DTYPES, strided.float16, strided.bfloat16])
def test_gathers_of_whole_rows_take_one_launch_and_match_the_cpu(device, dtype, rng, monkeypatch):
    from strided.cuda import _index

    limit32 = _index._ROWS_INT32_LIMIT
    for shape in ROW_TABLES:
        for tname, x, rows in _row_tables(strided.asarray(make_values(shape, dtype, rng))):
            for iname, i, one_loop in _row_indices(rng, x.shape[0]):
                for width in (32, 64):
                    # the 64-bit kernel where a test says no vector count fits 32 bits
                    limit = limit32 if width == 32 else 0
                    monkeypatch.setattr(_index, "_ROWS_INT32_LIMIT", limit)
                    w = f"{dtype.name} {shape} {tname} table, {iname} index, {width}-bit"
                    dx, di = on(device, x), on(device, i)
                    for fn in _row_gathers(i.ndim):
                        with strided.cuda.trace_launches() as launches:
                            got = fn(dx, di)
                        names = [str(n) for n, *_ in launches]
                        want = fn(twin(x), i)
                        assert got.device.is_cuda, w
                        assert got.shape == want.shape and got.dtype is want.dtype, w
                        np.testing.assert_array_equal(_bits(got.cpu()), _bits(want), err_msg=w)
                        if rows and one_loop and got.numel():  # an empty result: offsets
                            assert len(names) == 1, (w, names)
                            assert names[0].startswith("strided_index_rows<"), (w, names)
                            assert names[0].endswith(f"int{width}_t>"), (w, names)
                            if shape == (9, 64) and tname == "contiguous":  # 16-byte vectors
                                assert "<complex128_t," in names[0], (w, names)
                        else:
                            assert not any("index_rows" in n for n in names), (w, names)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("blocking", [False, True])
def test_gathers_of_whole_rows_report_bad_indices_as_the_offsets_do(device, blocking, monkeypatch):
    if blocking:  # Note [Errors found on the device are reported at the next synchronisation]
        monkeypatch.setenv("STRIDED_CUDA_LAUNCH_BLOCKING", "1")
    x = strided.arange(9.0 * 64, device=device).reshape(9, 64)
    index, take = (lambda x, i: x[i]), (lambda x, i: strided.take(x, i, axis=0))
    cases = [
        (index, [[1, 9], [-10, 2]], "index 9 is out of bounds for dim 0 with size 9"),  # first
        (index, [[1, 2], [-10, 9]], "index -10 is out of bounds for dim 0 with size 9"),
        (take, -10, "index -10 is out of bounds for dim 0 with size 9"),  # x[0-d] is basic
    ]
    for fn, value, msg in cases:
        i = strided.asarray(value, device=device)
        with strided.cuda.trace_launches() as launches, pytest.raises(IndexError, match=msg):
            fn(x, i).cpu()
        assert [str(n).split("<")[0] for n, *_ in launches] == ["strided_index_rows"], value
    empty = strided.zeros((0, 4), device=device)  # no row to read, and none is read
    with pytest.raises(IndexError, match="index 0 is out of bounds for dim 0 with size 0"):
        strided.take(empty, strided.asarray([0, 0], device=device), axis=0).cpu()
    np.testing.assert_array_equal(x[strided.asarray([-9, 8], device=device)].cpu(), x.cpu()[[0, 8]])


@pytest.mark.parametrize("device", DEVICES)
def test_gathers_of_whole_rows_over_many_blocks(device, rng, thread_order):
    """Many blocks of 4 vectors a thread, a partial last tile, and bad indices in several
    blocks: the smallest position is reported, whatever the blocks' order."""
    table = rng.standard_normal((300, 64)).astype(np.float32)
    x = strided.asarray(table, device=device)
    idx = rng.integers(-300, 300, 1001)
    np.testing.assert_array_equal(x[strided.asarray(idx, device=device)].cpu(), table[idx])
    idx[[700, 333, 999]] = [300, -301, 1000]
    with pytest.raises(IndexError, match="index -301 is out of bounds for dim 0 with size 300"):
        x[strided.asarray(idx, device=device)].cpu()
