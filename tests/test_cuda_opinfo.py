"""The OpInfo tables beyond the elementwise one, run on every CUDA device against the CPU.

The CPU kernels are tested against NumPy by the tables' own test modules; here each row runs on
a CPU tensor and on a device copy in the same layout (``on`` of tests/devices.py: the same
storage size, offset and strides), and the two answers must agree: shape, strides, dtype, the
device, the values (floats within rounding, since a device reduction adds in another order;
integers, bools, indices and everything that does no arithmetic exactly), or both calls must
raise the same error with the same message. The input must be unchanged afterwards.

The tables:

- the view and copy rows ``OPS`` of tests/opinfo.py: views stay views of the device storage
  exactly where the CPU's are views of the CPU storage, at the same offset and strides;
- the reduction rows ``RED_OPS`` of tests/opinfo_reduction.py, every sample (no axis, each dim,
  tuples, keepdims), and on contiguous and transposed inputs the other spellings: ``dim=``, the
  Tensor methods (``x.max(dim)`` with its indices), ``out=`` and ``dtype=``;
- the copying shape ops ``SHAPE_OPS`` of tests/test_shape.py, second operands on the device;
- the scans ``FUNCS`` of tests/test_scan.py and the advanced indexing ``CASES`` of
  tests/test_indexing.py (test_cuda_scan_sort.py and test_cuda_indexing.py test the device
  kernels' own seams; these add the tables' dtypes and layouts);
- matmul on the layouts test_cuda.py leaves out (stepped, expanded, empty, 0-d).

Every row x layout (where the row has samples for that layout's shape) runs: the parametrisation
is derived from the tables, so a row added to a table runs on the devices without a change here,
and ``test_every_row_runs_on_the_devices`` fails if a filter below ever drops one. Dtypes: every
dtype the row claims on contiguous inputs, one of each kind (bool, int8, float32, complex128)
on the other layouts.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import ALL_DTYPES, LAYOUTS, make_layout, make_values
from opinfo import OPS
from opinfo_reduction import RED_OPS, dtype_samples, tame
from test_cuda import MATMUL_SHAPES
from test_indexing import CASES, GET_LAYOUTS, SET_LAYOUTS, _spell
from test_reduction import _method, _torch_method, _torch_spelling
from test_scan import FUNCS, _axes
from test_scan import _values as _scan_values
from test_shape import SELF, SHAPE_OPS, _bind

import strided

SHAPE = (4, 1, 3, 5)  # a size-1 dim, odd and even sizes, 60 elements
FEW_DTYPES = (strided.bool, strided.int8, strided.float32, strided.complex128)
VARIANT_LAYOUTS = ("contiguous", "transposed")
ERRORS = (IndexError, ValueError, TypeError, RuntimeError, NotImplementedError)
# Within rounding: another order of additions (Note [CUDA reductions]); exact elsewhere
TOLERANCES = {
    strided.float32: (1e-5, 1e-6),
    strided.complex64: (1e-5, 1e-6),
    strided.float64: (1e-12, 1e-13),
    strided.complex128: (1e-12, 1e-13),
}


def _layout_shape(layout, shape=SHAPE):
    if layout == "0-d":
        return ()
    if layout == "empty":
        return shape[:1] + (0,) + shape[2:] if len(shape) >= 2 else (0,)
    return shape


def _table_cases(rows, *, name=lambda row: row.name, applies=lambda row, layout: True):
    """pytest params (row, layout, dtype) for every row of a table and every layout that
    ``applies``: every dtype the row claims on contiguous inputs, FEW_DTYPES on the others."""
    for row in rows:
        claimed = getattr(row, "dtypes", ALL_DTYPES)
        for layout in LAYOUTS:
            if not applies(row, layout):
                continue
            for dtype in ALL_DTYPES if layout == "contiguous" else FEW_DTYPES:
                if dtype in claimed:
                    yield pytest.param(row, layout, dtype, id=f"{name(row)}-{layout}-{dtype.name}")


def _as_list(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _same(got, want, where, *, exact=False, tol_dtype=None):
    """``got`` (on a device) holds ``want``'s (a CPU result's) shape, dtype and values; floats
    within the rounding of ``tol_dtype`` (the dtype computed in; ``want``'s by default)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, type(want)) and len(got) == len(want), where
        for g, w in zip(got, want, strict=True):
            _same(g, w, where, exact=exact, tol_dtype=tol_dtype)
        return
    assert isinstance(got, strided.Tensor), f"{where}: got a {type(got).__name__}"
    assert got.device.is_cuda, f"{where}: the result is on {got.device}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, CPU {want.shape}"
    assert got.dtype is want.dtype, f"{where}: dtype {got.dtype}, CPU {want.dtype}"
    g, w = np.asarray(got.cpu()), np.asarray(want)
    rtol, atol = (0, 0) if exact else TOLERANCES.get(tol_dtype or want.dtype, (0, 0))
    if rtol:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where, strict=True)


def _cpu_and_device(call, t, d, where):
    """(``call(t)``, ``call(d)``), or (None, None) after checking that both raised alike."""
    try:
        want = call(t)
    except ERRORS as e:
        with pytest.raises(type(e)) as info:
            call(d)
        assert str(info.value) == str(e), where
        return None, None
    return want, call(d)


def _snapshot(x):
    return np.asarray(x.cpu()).copy()


# ---------------------------------------------------------------------------------------------
# View and copy ops (tests/opinfo.py)
# ---------------------------------------------------------------------------------------------


# mT or diagonal of a 0-d tensor have no samples: their error_inputs
VIEW_CASES = list(
    _table_cases(OPS, applies=lambda op, layout: list(op.sample_inputs(_layout_shape(layout))))
)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,layout,dtype", VIEW_CASES)
def test_view_and_copy_ops_match_the_cpu(device, op, layout, dtype, rng):
    t, _ = make_layout(layout, op.values(SHAPE, dtype, rng), rng)
    d = on(device, t)
    before = _snapshot(d)
    for args in op.sample_inputs(t.shape):
        where = f"{op.name}{args!r} on a {layout} {dtype.name} input on {device}"
        want, got = _cpu_and_device(lambda x, args=args: op.op(x, *args), t, d, where)
        if want is None:
            continue
        assert isinstance(got, tuple) == isinstance(want, tuple), where
        for g, w in zip(_as_list(got), _as_list(want), strict=True):
            _same(g, w, where, exact=True)
            assert g.device == d.device, where
            assert g.stride() == w.stride(), f"{where}: strides {g.stride()}, CPU {w.stride()}"
            is_view = w.untyped_storage() is t.untyped_storage()
            assert (g.untyped_storage() is d.untyped_storage()) == is_view, where
            if is_view:
                assert g.storage_offset() == w.storage_offset(), where
            assert (g is d) == (w is t), where  # contiguous() of a contiguous tensor
        np.testing.assert_array_equal(_snapshot(d), before, err_msg=where, strict=True)


def _view_error_cases():
    for op in OPS:
        for i, case in enumerate(op.error_inputs()):
            yield pytest.param(op, case, id=f"{op.name}-{i}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,case", list(_view_error_cases()))
def test_view_and_copy_errors_match_the_cpu(device, op, case):
    t, args, exc, match = case
    d = on(device, t)
    with pytest.raises(exc, match=match):
        op.op(d, *args)
    np.testing.assert_array_equal(_snapshot(d), np.asarray(t), strict=True)


# ---------------------------------------------------------------------------------------------
# Reductions (tests/opinfo_reduction.py)
# ---------------------------------------------------------------------------------------------


RED_CASES = list(_table_cases(RED_OPS))


def _outs(want, device):
    """out= tensors for a result like ``want``: its dtype, float64 (a cast), transposed."""
    outs = [strided.empty(want.shape, dtype=want.dtype, device=device)]
    outs.append(strided.zeros(want.shape, device=device))
    if want.ndim >= 2:
        outs.append(strided.empty(want.shape[::-1], dtype=want.dtype, device=device).T)
    return outs


def _check_spellings(op, t, d, kw, where):
    """dim=/keepdim=, the methods and out= on the device against the same on the CPU."""
    calls = {"method": lambda x: _method(op, x, kw)}
    calls["PyTorch method"] = lambda x: _torch_method(op, x, kw, indices=True)
    if op.supports_dim and op.kind != "dim":
        calls["dim="] = lambda x: op.op(x, **_torch_spelling(kw), **op.kwargs)
    for name, call in calls.items():
        want, got = _cpu_and_device(call, t, d, f"{where}, {name}")
        if want is not None:
            _same(got, want, f"{where}, {name}")
    if not op.supports_out:
        return
    plain = op.op(t, **kw, **op.kwargs)
    for cpu_out, dev_out in zip(_outs(plain, "cpu"), _outs(plain, d.device), strict=True):
        w = f"{where}, out={dev_out.dtype.name} {dev_out.stride()}"
        outs = {id(t): cpu_out, id(d): dev_out}
        want, got = _cpu_and_device(
            lambda x, outs=outs: op.op(x, **kw, **op.kwargs, out=outs[id(x)]), t, d, w
        )
        if want is not None:
            assert got is dev_out and want is cpu_out, w
            _same(got, want, w, tol_dtype=plain.dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,layout,dtype", RED_CASES)
def test_reductions_match_the_cpu(device, op, layout, dtype, rng):
    t, _ = make_layout(layout, op.values(SHAPE, dtype, rng), rng)
    d = on(device, t)
    before = _snapshot(d)
    for kw in op.sample_inputs(t.shape):
        where = f"{op.name}({kw}) of a {layout} {dtype.name} {t.shape} input on {device}"
        want, got = _cpu_and_device(lambda x, kw=kw: op.op(x, **kw, **op.kwargs), t, d, where)
        if want is not None:
            _same(got, want, where)
        if layout in VARIANT_LAYOUTS and dtype in FEW_DTYPES:
            _check_spellings(op, t, d, kw, where)
    np.testing.assert_array_equal(_snapshot(d), before, strict=True)


def _dtype_cases():
    for op in RED_OPS:
        if op.supports_dtype:
            for dtype in op.dtypes:
                yield pytest.param(op, dtype, id=f"{op.name}-{dtype.name}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,dtype", list(_dtype_cases()))
def test_reduction_dtype_argument_matches_the_cpu(device, op, dtype, rng):
    for target, values in dtype_samples(op, dtype, SHAPE, rng):
        t, _ = make_layout("transposed", values, rng)
        d = on(device, t)
        for axis in (None, 0, (1, 3), -1):
            where = f"{op.name}(axis={axis}, dtype={target.name}) of {dtype.name} on {device}"
            _same(op.op(d, axis=axis, dtype=target), op.op(t, axis=axis, dtype=target), where)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    "dtype", [strided.float32, strided.float64, strided.int16], ids=lambda d: d.name
)
def test_arg_reductions_take_the_first_tie_and_the_first_nan(device, layout, dtype, rng):
    # few distinct values (ties everywhere) and, for floats, NaNs: argmax/argmin and
    # x.max(dim)'s indices must be the CPU's exactly
    pool = np.array([0, 1, 2, -1] + ([np.nan] if dtype.kind == "f" else []))
    vals = pool[rng.integers(0, len(pool), SHAPE)].astype(dtype.numpy)
    vals[0, 0, 0, 0] = pool[-1]
    t, _ = make_layout(layout, vals, rng)
    d = on(device, t)
    for axis in [None, *range(t.ndim)]:
        for name in ("argmax", "argmin"):
            where = f"{name}(axis={axis}) of {layout} {dtype.name} on {device}"
            fn = getattr(strided, name)
            want, got = _cpu_and_device(lambda x, fn=fn, a=axis: fn(x, axis=a), t, d, where)
            if want is not None:
                _same(got, want, where)
        if axis is not None:
            for name in ("max", "min"):
                where = f"x.{name}({axis}) of {layout} {dtype.name} on {device}"
                want, got = _cpu_and_device(
                    lambda x, name=name, a=axis: getattr(x, name)(a), t, d, where
                )
                if want is not None:
                    _same(got, want, where)


# ---------------------------------------------------------------------------------------------
# Copying shape ops (tests/test_shape.py)
# ---------------------------------------------------------------------------------------------


def _shape_op_applies(op, layout):
    """Not transposed 1-D (meshgrid), nor a layout without samples (tril of a 0-d tensor)."""
    if make_layout(layout, np.zeros(op.shape)) is None:
        return False
    shape = _layout_shape(layout, op.shape)
    return bool(list(op.samples(shape, strided.int8, np.random.default_rng(0))))


SHAPE_CASES = list(_table_cases(SHAPE_OPS, applies=_shape_op_applies))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,layout,dtype", SHAPE_CASES)
def test_shape_ops_match_the_cpu(device, op, layout, dtype, rng):
    t, _ = make_layout(layout, make_values(op.shape, dtype, rng), rng)
    d = on(device, t)
    before = _snapshot(d)
    for args in op.samples(t.shape, dtype, rng):
        where = f"{op.name}{args!r} on a {layout} {dtype.name} input on {device}"
        if not op.takes_list:
            args = (SELF, *args)

        def call(x, args=args):
            return op.op(*_bind(args, x, True, x.device))

        want, got = _cpu_and_device(call, t, d, where)
        if want is None:
            continue
        _same(got, want, where, exact=True)
        for g in _as_list(got):
            assert g.is_contiguous() and g.untyped_storage() is not d.untyped_storage(), where
        np.testing.assert_array_equal(_snapshot(d), before, err_msg=where, strict=True)


# ---------------------------------------------------------------------------------------------
# Scans (tests/test_scan.py) and advanced indexing (tests/test_indexing.py)
# ---------------------------------------------------------------------------------------------


SCAN_CASES = list(_table_cases(FUNCS, name=str))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,layout,dtype", SCAN_CASES)
def test_scans_match_the_cpu(device, name, layout, dtype, rng):
    fn, _ = FUNCS[name]
    t, _ = make_layout(layout, _scan_values(name, SHAPE, dtype, rng), rng)
    d = on(device, t)
    for axis in _axes(t.ndim) + ([0] if t.ndim == 1 else []):
        for initial in (False, True):
            where = f"{name}(axis={axis}, include_initial={initial}) of {layout} {dtype.name}"
            want, got = _cpu_and_device(
                lambda x, a=axis, i=initial: fn(x, axis=a, include_initial=i), t, d, where
            )
            if want is not None:
                _same(got, want, where)


def _index_cases():
    for name, index in CASES:
        for layout in GET_LAYOUTS:
            yield pytest.param(index, layout, True, id=f"get-{name}-{layout}")
        if name != "repeated":  # which duplicate write wins: test_cuda_indexing.py
            for layout in SET_LAYOUTS:
                yield pytest.param(index, layout, False, id=f"set-{name}-{layout}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index,layout,get", list(_index_cases()))
def test_advanced_indexing_matches_the_cpu(device, index, layout, get, rng):
    for dtype in ALL_DTYPES if layout == "contiguous" else FEW_DTYPES:
        t, a = make_layout(layout, make_values((4, 5, 6), dtype, rng), rng)
        d = on(device, t)
        where = f"{'get' if get else 'set'} {index!r} of {layout} {dtype.name} on {device}"
        if get:
            for spelling in ("tensor", "numpy"):
                _same(d[_spell(index, spelling, d.device)], t[_spell(index, spelling)], where)
            continue
        value = make_values(a[index].shape, dtype, rng)
        t[_spell(index, "tensor")] = strided.asarray(value)
        d[_spell(index, "tensor", d.device)] = strided.asarray(value, device=d.device)
        _same(d, t, where, exact=True)


# ---------------------------------------------------------------------------------------------
# matmul on the layouts test_cuda.py leaves out
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", ["stepped", "expanded", "empty", "0-d"])
@pytest.mark.parametrize(
    "dtype",
    [strided.float32, strided.float64, strided.complex128, strided.int16, strided.bool],
    ids=lambda d: d.name,
)
def test_matmul_on_more_layouts_matches_the_cpu(device, layout, dtype, rng):
    for s1, s2 in MATMUL_SHAPES:
        values = [make_values(s, dtype, rng) for s in (s1, s2)]
        if dtype.kind in "fc":
            values = [tame()(s, dtype, rng) for s in (s1, s2)]
        pairs = [(make_layout(layout, v, rng), make_layout("contiguous", v, rng)) for v in values]
        for l1, l2 in ((0, 0), (0, 1), (1, 0)):
            p1, p2 = pairs[0][l1], pairs[1][l2]
            if p1 is None or p2 is None:
                continue
            x1, x2 = p1[0], p2[0]
            d1 = on(device, x1)
            where = f"{x1.shape} @ {x2.shape} ({layout} x{l1 + 1}) {dtype.name} on {device}"
            other = {id(x1): x2, id(d1): on(device, x2)}
            want, got = _cpu_and_device(lambda x, o=other: x @ o[id(x)], x1, d1, where)
            if want is not None:
                _same(got, want, where)


# ---------------------------------------------------------------------------------------------
# The tables are covered
# ---------------------------------------------------------------------------------------------


def test_every_row_runs_on_the_devices():
    """Each row of each table runs on each layout it has samples for (the cases are derived
    from the tables; this guards the filters above)."""

    def names(cases):
        return {(getattr(p.values[0], "name", p.values[0]), p.values[1]) for p in cases}

    views = {
        (op.name, layout)
        for op in OPS
        for layout in LAYOUTS
        if list(op.sample_inputs(_layout_shape(layout)))
    }
    assert names(VIEW_CASES) == views
    assert names(RED_CASES) == {(op.name, layout) for op in RED_OPS for layout in LAYOUTS}
    shape_rows = {op.name for op in SHAPE_OPS}
    assert {name for name, _ in names(SHAPE_CASES)} == shape_rows
    assert {layout for _, layout in names(SHAPE_CASES)} == set(LAYOUTS)
    assert names(SCAN_CASES) == {(name, layout) for name in FUNCS for layout in LAYOUTS}
    assert len(views) > 150 and len(RED_OPS) > 15  # the tables were found


# ---------------------------------------------------------------------------------------------
# Reduction results are laid out in the input's memory order, on every device
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
def test_reduction_results_are_laid_out_as_on_the_cpu(device, rng):
    # a channels-last activation, pooled and summed as nn does: the kept dims' memory order
    # decides the result's strides on the CPU (Note [Reductions]) and on CUDA (_kept_layout)
    a = rng.standard_normal((4, 6, 6, 8)).astype(np.float32)
    cases = [
        (lambda t: t.permute(0, 3, 1, 2), (2, 3), True),  # NHWC viewed as NCHW, keepdims
        (lambda t: t.permute(0, 3, 1, 2), (1,), False),
        (lambda t: t.permute(3, 1, 0, 2), (0,), False),
        (lambda t: t, (1, 2), False),  # row-major in, row-major out
    ]
    for view, axes, keep in cases:
        x, d = view(strided.asarray(a)), view(strided.asarray(a, device=device))
        for name in ("sum", "max", "argmax"):
            f = getattr(strided, name)
            ax = axes[0] if name == "argmax" else axes
            want = f(x, axis=ax, keepdims=keep)
            got = f(d, axis=ax, keepdims=keep)
            where = f"{name} over {axes} of {x.shape} strides {x.stride()} on {device}"
            assert got.shape == want.shape, where
            placed = [(st, n) for st, n in zip(got.stride(), got.shape, strict=True) if n > 1]
            wanted = [(st, n) for st, n in zip(want.stride(), want.shape, strict=True) if n > 1]
            assert placed == wanted, where  # a size-1 dim's stride says nothing
            np.testing.assert_allclose(got.cpu(), want, rtol=1e-5, atol=1e-5, err_msg=where)


def _reduction_layouts(t):
    """A 4-d tensor seen in the layouts a reduction's result strides depend on."""
    yield "contiguous", t
    yield "transposed", t.permute(3, 2, 1, 0)
    yield "channels-last", t.permute(0, 3, 1, 2)
    yield "stepped", t[::2, :, ::2]
    yield "negative", t[::-1, :, ::-2]
    yield "size-1", t[:, :1]
    yield "expanded", t[:, :1].expand(4, 6, 5, 3)
    yield "expanded transposed", t.permute(3, 2, 1, 0)[:, :, :1].expand(3, 5, 6, 4)
    yield "expanded channels-last", t.permute(0, 3, 1, 2)[:1].expand(4, 3, 6, 5)
    yield "empty", t[:, :0].permute(3, 1, 0, 2)
    yield "0-d", t[1, 2, 3, 1]


@pytest.mark.parametrize("device", DEVICES)
def test_reduction_strides_are_the_cpus_for_every_layout(device, rng):
    # the CUDA reduction takes its kept-dim order from the iterator (_kept_layout in
    # strided/cuda/_reduce.py), the rule the CPU's result is laid out by (Note [Reductions]):
    # every stride is the CPU's, a size-1 or empty dim's included
    a = rng.standard_normal((4, 6, 5, 3)).astype(np.float32)
    pairs = zip(
        _reduction_layouts(strided.asarray(a)),
        _reduction_layouts(strided.asarray(a, device=device)),
        strict=True,
    )
    for (layout, x), (_, d) in pairs:
        subsets = [None] + [
            s for r in range(1, x.ndim + 1) for s in itertools.combinations(range(x.ndim), r)
        ]
        for axes, keep in itertools.product(subsets, (False, True)):
            want = strided.sum(x, axis=axes, keepdims=keep)
            got = strided.sum(d, axis=axes, keepdims=keep)
            where = f"sum over {axes} of {layout} {x.shape} strides {x.stride()} on {device}"
            assert (got.shape, got.stride()) == (want.shape, want.stride()), where
            np.testing.assert_allclose(got.cpu(), want, rtol=1e-5, atol=1e-5, err_msg=where)
            if axes is not None and len(axes) == 1 and x.numel() > 0:
                want = strided.argmax(x, axis=axes[0], keepdims=keep)
                got = strided.argmax(d, axis=axes[0], keepdims=keep)
                assert (got.shape, got.stride()) == (want.shape, want.stride()), where
                np.testing.assert_array_equal(got.cpu(), want, err_msg=where)
