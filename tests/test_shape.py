"""Tests of the shape ops that copy (strided/_ops/shape.py, padding.py), NumPy as the oracle.

The table below is OpInfo-like (see tests/opinfo.py), but the ops here take several tensors
(``concat([x, y])``), so a sample's arguments may hold two placeholders: ``SELF`` stands for the
input under test (built in each layout of tests/layouts.py) and ``Arr(array)`` for a second,
contiguous operand. ``_bind`` turns them into tensors for strided and arrays for NumPy.

Each (op, layout, dtype) case checks, for every sample: the values, shape and dtype equal
NumPy's; the result shares no memory with any input and is contiguous; the input is unchanged.
Every dtype on contiguous inputs, every layout on int8, float32 and complex128.

Then: mixed-dtype promotion, the PyTorch spellings (``cat``, ``Tensor.repeat`` ...), the
dispatcher path, error messages, and the existing view ops the Array API lists beside these.
"""

from __future__ import annotations

import doctest
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from layouts import ALL_DTYPES, LAYOUTS, make_layout, make_values

import strided
from strided._ops import shape as shape_ops
from strided.nn import functional as F

SHAPE = (4, 1, 3, 5)  # a size-1 dim, odd and even sizes, 60 elements
FEW_DTYPES = (strided.int8, strided.float32, strided.complex128)


class _Self:
    def __repr__(self):
        return "SELF"


SELF = _Self()


@dataclass
class Arr:
    """A second operand: a contiguous tensor for strided, the array itself for NumPy."""

    array: np.ndarray

    def __repr__(self):
        return f"Arr({self.array.dtype}{list(self.array.shape)})"


def _bind(args, self_value, to_tensor, device=None):
    """``args`` with SELF replaced by ``self_value`` and each Arr by a tensor (on ``device``)
    or an array."""
    if args is SELF:
        return self_value
    if isinstance(args, Arr):
        return strided.tensor(args.array, device=device) if to_tensor else args.array
    if isinstance(args, list):
        return [_bind(a, self_value, to_tensor, device) for a in args]
    if isinstance(args, tuple):
        return tuple(_bind(a, self_value, to_tensor, device) for a in args)
    return args


def _same_values(other, out):
    """Another spelling of the op gave ``out``'s values, on ``out``'s device (the rows also run
    on CUDA devices: tests/test_cuda_opinfo.py)."""
    assert other.device == out.device, (other.device, out.device)
    np.testing.assert_array_equal(np.asarray(other.cpu()), np.asarray(out.cpu()))


def _tensors_in(args):
    if isinstance(args, strided.Tensor):
        return [args]
    if isinstance(args, (list, tuple)):
        return [t for a in args for t in _tensors_in(a)]
    return []


@dataclass
class ShapeOp:
    name: str
    op: Callable  # op(*args) with tensors
    ref: Callable  # ref(*args) with arrays
    samples: Callable  # samples(shape, dtype, rng) -> iterable of argument tuples
    shape: tuple = SHAPE  # the input's shape (meshgrid takes 1-D inputs)
    takes_list: bool = False  # whether the op takes a list of tensors (SELF among them)

    def __repr__(self):
        return f"ShapeOp({self.name})"


def _other(shape, dtype, rng):
    return Arr(make_values(shape, dtype, rng))


def _with(shape, d, n):
    return shape[:d] + (n,) + shape[d + 1 :]


# -- concat, stack ------------------------------------------------------------------------------


def _concat_samples(shape, dtype, rng):
    nd = len(shape)
    yield ([SELF, SELF], None)
    yield ([SELF, _other((3,), dtype, rng)], None)
    if nd == 0:
        return
    yield ([SELF], 0)
    for d in range(nd):
        yield ([SELF, SELF], d)
        yield ([SELF, _other(_with(shape, d, 2), dtype, rng)], d - nd)
        yield ([_other(_with(shape, d, 0), dtype, rng), SELF, _other(shape, dtype, rng)], d)


def _concat_op(arrays, axis):
    out = strided.concat(arrays, axis=axis)
    if axis is not None:
        _same_values(strided.cat(arrays, axis), out)
    return out


def _stack_samples(shape, dtype, rng):
    nd = len(shape)
    for axis in sorted({0, nd, -1, -(nd + 1), nd // 2}):
        yield ([SELF, SELF, _other(shape, dtype, rng)], axis)
    yield ([SELF], 0)


def _stack_op(arrays, axis):
    out = strided.stack(arrays, axis=axis)
    _same_values(strided.stack(arrays, dim=axis), out)
    return out


# -- tile, repeat -------------------------------------------------------------------------------


def _tile_samples(shape, dtype, rng):
    nd = len(shape)
    yield ((2,) * nd,)
    yield ((1,) * nd,)
    yield ((2,),)
    yield ((),)
    yield (3,)
    yield ((2, 1) + (1,) * nd,)  # more repetitions than dims: leading dims appear
    if nd >= 2:
        yield ((1, 0) + (2,) * (nd - 2),)
        yield ((3,) + (1,) * (nd - 2) + (2,),)


def _tile_op(x, reps):
    out = strided.tile(x, reps)
    tup = reps if isinstance(reps, tuple) else (reps,)
    _same_values(x.tile(tup), out)
    _same_values(x.tile(*tup), out)
    if len(tup) >= max(x.ndim, 3):  # three sizes or more, which NumPy's a.repeat refuses, are
        _same_values(x.repeat(*tup), out)  # PyTorch's Tensor.repeat: tile with a size per dim
    return out


def _repeat_samples(shape, dtype, rng):
    nd = len(shape)
    n = int(np.prod(shape))
    yield (2, None)
    yield (0, None)
    yield ([3], None)
    yield (list(rng.integers(0, 3, n)), None)  # one count per element: runs of equal counts
    if nd == 0:
        yield (3, 0)
        yield ([2], -1)
        return
    for d in range(nd):
        yield (3, d)
        yield ([2], d - nd)
        counts = rng.integers(0, 4, shape[d])
        yield (list(counts), d)
        yield (Arr(counts.astype(np.int32)), d)  # repeats as an integer tensor
    if shape[-1] >= 4:
        yield ([0, 2, 2, 1] + [1] * (shape[-1] - 4), -1)


def _repeat_op(x, repeats, axis):
    out = strided.repeat(x, repeats, axis=axis)
    for other in (strided.repeat_interleave(x, repeats, axis), x.repeat_interleave(repeats, axis)):
        _same_values(other, out)
    return out


def _repeat_ref(a, repeats, axis):
    if a.ndim == 0 and axis is not None:
        a = a.reshape(1)
    return np.repeat(a, repeats, axis=axis)


# -- roll -----------------------------------------------------------------------------------------


def _roll_samples(shape, dtype, rng):
    nd = len(shape)
    yield (1, None)
    yield (-7, None)
    yield (0, None)
    for d in range(nd):
        yield (2, d)
        yield (-1, d - nd)
        yield (100, d)
    if nd >= 2:
        yield ((1, 2), (0, -1))
        yield (1, (0, 0))  # an axis named twice shifts by the sum
        yield ((-3, 4), (1, -1))
        yield (1, tuple(range(nd)))


def _roll_op(x, shift, axis):
    out = strided.roll(x, shift, axis=axis)
    _same_values(x.roll(shift, axis), out)
    return out


# -- pad ------------------------------------------------------------------------------------------

_NUMPY_MODES = {
    "constant": "constant",
    "reflect": "reflect",
    "replicate": "edge",
    "circular": "wrap",
}


def _pad_samples(shape, dtype, rng):
    nd = len(shape)
    yield ((), "constant", None)
    if nd == 0:
        return
    yield ((1, 2), "constant", None)
    yield ((1, 1) * nd, "constant", 1)
    yield ((0, 0, 2, 1), "constant", 0) if nd >= 2 else ((3, 0), "constant", 1)
    if shape[-1] >= 2:
        yield ((-1, 2), "constant", None)  # a negative pad crops
        yield ((0, -shape[-1]), "constant", None)  # ... all of the dim
    for mode in ("reflect", "replicate", "circular"):
        limit = (lambda n: n - 1) if mode == "reflect" else (lambda n: n)
        pads = ()
        for d in range(nd - 1, max(nd - 3, -1), -1):  # the last two dims, last first
            n = shape[d]
            pads += (min(2, limit(n)), min(1, limit(n))) if n else (0, 0)
        yield (pads, mode, None)
        if shape[-1] >= 3:
            m = shape[-1] - (1 if mode == "reflect" else 0)
            yield ((m, m), mode, None)  # the largest pads allowed
        if nd >= 4 and mode == "reflect":
            yield ((0, 0, 0, 0, 0, 0, 3, 2), mode, None)  # the first dim only


def _pad_ref(a, pads, mode, value):
    """np.pad with F.pad's order (pairs from the last dim backward) and negative crops."""
    if a.ndim == 0:
        return a.copy()  # np.pad cannot take an empty pad_width
    pairs = [(0, 0)] * a.ndim
    for i in range(len(pads) // 2):
        pairs[a.ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    crop = tuple(slice(max(-lo, 0), a.shape[d] - max(-hi, 0)) for d, (lo, hi) in enumerate(pairs))
    a = a[crop]
    width = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if mode == "constant":
        return np.pad(a, width, mode="constant", constant_values=value or 0)
    return np.pad(a, width, mode=_NUMPY_MODES[mode])


def _pad_op(x, pads, mode, value):
    return F.pad(x, pads, mode=mode, value=value)


# -- tril, triu -----------------------------------------------------------------------------------


def _triangle_samples(shape, dtype, rng):
    if len(shape) < 2:
        return
    for k in (0, 1, -1, 3, -2, 100, -100, 2**62):
        yield (k,)


def _tril_op(x, k):
    out = strided.tril(x, k=k)
    _same_values(x.tril(k), out)
    return out


def _triu_op(x, k):
    out = strided.triu(x, k=k)
    _same_values(x.triu(k), out)
    return out


# -- meshgrid -------------------------------------------------------------------------------------


def _meshgrid_samples(shape, dtype, rng):
    yield ([SELF], "xy")
    yield ([SELF, _other((3,), dtype, rng)], "xy")
    yield ([SELF, _other((3,), dtype, rng)], "ij")
    yield ([_other((2,), dtype, rng), SELF, _other((3,), dtype, rng)], "xy")
    yield ([SELF, SELF, _other((2,), dtype, rng)], "ij")


def _meshgrid_op(arrays, indexing):
    out = strided.meshgrid(*arrays, indexing=indexing)
    assert isinstance(out, tuple)  # as NumPy 2's, and the Array API 2025.12's
    for a, b in zip(out, strided.meshgrid(arrays, indexing=indexing), strict=True):
        _same_values(a, b)
    return out


def _meshgrid_ref(arrays, indexing):
    return tuple(np.meshgrid(*arrays, indexing=indexing))


SHAPE_OPS = [
    ShapeOp(
        "concat",
        _concat_op,
        lambda arrs, axis: np.concatenate(arrs, axis),
        _concat_samples,
        takes_list=True,
    ),
    ShapeOp(
        "stack", _stack_op, lambda arrs, axis: np.stack(arrs, axis), _stack_samples, takes_list=True
    ),
    ShapeOp("tile", _tile_op, np.tile, _tile_samples),
    ShapeOp("repeat", _repeat_op, _repeat_ref, _repeat_samples),
    ShapeOp("roll", _roll_op, lambda a, s, axis: np.roll(a, s, axis), _roll_samples),
    ShapeOp("pad", _pad_op, _pad_ref, _pad_samples),
    ShapeOp("tril", _tril_op, lambda a, k: np.tril(a, k), _triangle_samples),
    ShapeOp("triu", _triu_op, lambda a, k: np.triu(a, k), _triangle_samples),
    ShapeOp(
        "meshgrid", _meshgrid_op, _meshgrid_ref, _meshgrid_samples, shape=(5,), takes_list=True
    ),
]


def _layout_shape(op, layout):
    if layout == "0-d":
        return ()
    if layout == "empty":
        return op.shape[:1] + (0,) + op.shape[2:] if len(op.shape) >= 2 else (0,)
    return op.shape


def _cases():
    for op in SHAPE_OPS:
        for layout in LAYOUTS:
            probe = np.zeros(op.shape)
            if make_layout(layout, probe) is None:
                continue  # e.g. transposed 1-D
            if not list(
                op.samples(_layout_shape(op, layout), strided.int8, np.random.default_rng())
            ):
                continue  # tril of a 0-d tensor: see the error tests
            dtypes = ALL_DTYPES if layout == "contiguous" else FEW_DTYPES
            for dtype in dtypes:
                yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


@pytest.mark.parametrize("op,layout,dtype", list(_cases()))
def test_op_matches_numpy(op, layout, dtype, rng):
    values = make_values(op.shape, dtype, rng)
    t, a = make_layout(layout, values, rng)
    assert t.shape == _layout_shape(op, layout)
    before = np.asarray(t).copy()
    for args in op.samples(t.shape, dtype, rng):
        where = f"{op.name}{args!r} on a {layout} {dtype.name} input"
        if not op.takes_list:
            args = (SELF, *args)  # a one-tensor op: the input comes first
        targs = _bind(args, t, True)
        inputs = [x.untyped_storage() for x in _tensors_in(targs)]
        outs = _as_tuple(op.op(*targs))
        exps = _as_tuple(op.ref(*_bind(args, a, False)))
        assert len(outs) == len(exps), where
        for out, exp in zip(outs, exps, strict=True):
            assert isinstance(out, strided.Tensor), where
            assert out.shape == exp.shape, where
            got = np.asarray(out)
            assert got.dtype == exp.dtype, where
            np.testing.assert_array_equal(got, exp, err_msg=where, strict=True)
            assert all(out.untyped_storage() is not s for s in inputs), f"{where}: shares memory"
            assert out.is_contiguous(), f"{where}: strides {out.stride()}"
        np.testing.assert_array_equal(np.asarray(t), before, err_msg=f"{where}: input changed")


def test_every_op_has_a_row():
    from strided._ops import padding

    exported = set(shape_ops.__all__) | set(padding.__all__)
    assert exported <= set(strided.__all__)
    assert exported - {"cat", "repeat_interleave"} == {op.name for op in SHAPE_OPS}


# ---------------------------------------------------------------------------------------------
# Promotion, PyTorch spellings, layouts of the second operand
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", ["concat", "stack"])
def test_mixed_dtypes_promote_like_numpy(fn, rng):
    ref = np.concatenate if fn == "concat" else np.stack
    for d1 in ALL_DTYPES:
        for d2 in ALL_DTYPES:
            a, b = make_values((2, 3), d1, rng), make_values((2, 3), d2, rng)
            out = getattr(strided, fn)([strided.asarray(a), strided.asarray(b)], axis=1)
            exp = ref([a, b], axis=1)
            assert out.dtype is strided.result_type(d1, d2), (d1, d2)
            got = np.asarray(out)
            assert got.dtype == exp.dtype, (d1, d2, got.dtype, exp.dtype)
            np.testing.assert_array_equal(got, exp, err_msg=f"{d1} {d2}", strict=True)


def test_concat_int8_float32_is_float32():
    out = strided.concat([strided.ones(2, dtype="int8"), strided.ones(2, dtype="float32")])
    assert out.dtype is strided.float32 is strided.result_type(strided.int8, strided.float32)
    assert np.result_type(np.int8, np.float32) == np.float32


def test_concat_takes_every_layout_in_any_position(rng):
    ref = make_values(SHAPE, strided.float64, rng)
    pairs = [make_layout(name, ref, rng) for name in LAYOUTS[:5]]
    ts, arrs = [p[0] for p in pairs], [p[1] for p in pairs]
    for axis in (0, 2, -1, None):
        out = strided.concat(ts, axis=axis)
        np.testing.assert_array_equal(np.asarray(out), np.concatenate(arrs, axis=axis))


def test_inputs_may_be_arrays_or_lists():
    out = strided.concat([[1, 2], np.array([3])])
    assert out.tolist() == [1, 2, 3]
    assert strided.stack([[1, 2], [3, 4]]).shape == (2, 2)
    assert strided.tril([[1, 2], [3, 4]]).tolist() == [[1, 0], [3, 4]]


def test_tensor_repeat_is_numpys_and_pytorchs_tile_where_numpy_refuses_the_call():
    x = strided.asarray([[1, 2], [3, 4]])
    a = np.asarray(x)
    for args, kwargs in [((2,), {}), ((2, 1), {}), ((2, -2), {}), ((2,), {"axis": 0})]:
        assert x.repeat(*args, **kwargs).tolist() == a.repeat(*args, **kwargs).tolist()
    assert x.repeat([1, 2], axis=1).tolist() == a.repeat([1, 2], axis=1).tolist()
    # axis 2 of a 2-D tensor, which NumPy refuses: PyTorch's sizes, as torch's x.repeat(1, 2)
    assert x.repeat(1, 2).tolist() == [[1, 2, 1, 2], [3, 4, 3, 4]]
    assert x.repeat(2, 1, 1).shape == (2, 2, 2)
    assert strided.repeat(x, 2, axis=1).tolist() == [[1, 1, 2, 2], [3, 3, 4, 4]]
    assert x.repeat_interleave(2, 1).tolist() == [[1, 1, 2, 2], [3, 3, 4, 4]]
    assert strided.asarray(5).repeat().shape == ()


def test_repeat_of_a_0d_tensor_along_axis_0_is_1d():
    assert strided.repeat(strided.asarray(7), 3, axis=0).tolist() == [7, 7, 7]
    assert strided.repeat(strided.asarray(7), 3).tolist() == [7, 7, 7]


def test_repeat_accepts_numpy_integers_and_0d_tensors():
    x = strided.arange(3)
    assert strided.repeat(x, np.int64(2)).tolist() == [0, 0, 1, 1, 2, 2]
    assert strided.repeat(x, strided.asarray(2)).tolist() == [0, 0, 1, 1, 2, 2]
    assert strided.repeat(x, np.array([1, 0, 2])).tolist() == [0, 2, 2]
    assert strided.tile(x, np.array([2])).tolist() == [0, 1, 2, 0, 1, 2]


def test_meshgrid_views_when_asked():
    x, y = strided.arange(3), strided.arange(2.0)
    gx, gy = strided.meshgrid(x, y, copy=False)
    assert gx.untyped_storage() is x.untyped_storage() and gx.stride() == (0, 1)
    assert gy.dtype is strided.float64 and gy.stride() == (1, 0)
    with pytest.raises(RuntimeError, match="share memory"):
        gx[...] = 0
    assert strided.meshgrid() == ()
    assert strided.meshgrid(strided.asarray(4))[0].tolist() == [4]


def test_pad_value_casts_and_fits():
    x = strided.zeros((2, 2), dtype="int8")
    assert F.pad(x, (1, 0), value=2.7).tolist() == [[2, 0, 0], [2, 0, 0]]
    assert F.pad(x, (0, 1), value=strided.asarray(3)).tolist() == [[0, 0, 3], [0, 0, 3]]
    with pytest.raises(OverflowError, match="300"):
        F.pad(x, (1, 1), value=300)


def test_pad_reflect_corners_and_3d():
    a = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5)
    got = F.pad(strided.asarray(a), (4, 3, 3, 2, 1, 1), mode="reflect")
    np.testing.assert_array_equal(np.asarray(got), np.pad(a, ((1, 1), (3, 2), (4, 3)), "reflect"))


def test_broadcast_arrays_are_views(rng):
    a = rng.integers(0, 9, (3, 1))
    b = rng.integers(0, 9, (4,))
    ta, tb = strided.asarray(a), strided.asarray(b)
    outs = strided.broadcast_arrays(ta, tb)
    for o, e, t in zip(outs, np.broadcast_arrays(a, b), (ta, tb), strict=True):
        np.testing.assert_array_equal(np.asarray(o), e, strict=True)
        assert o.untyped_storage() is t.untyped_storage()  # documented: views, as in NumPy
    assert isinstance(outs, tuple)  # as NumPy 2's, and the Array API 2025.12's


def test_existing_array_api_view_ops():
    x = strided.arange(6).reshape(2, 1, 3)
    a = np.arange(6).reshape(2, 1, 3)
    np.testing.assert_array_equal(np.asarray(strided.expand_dims(x, axis=-1)), a[..., None])
    np.testing.assert_array_equal(np.asarray(strided.moveaxis(x, 0, -1)), np.moveaxis(a, 0, -1))
    np.testing.assert_array_equal(np.asarray(strided.swapaxes(x, 0, 2)), np.swapaxes(a, 0, 2))
    np.testing.assert_array_equal(np.asarray(strided.squeeze(x, axis=1)), a.squeeze(1))
    np.testing.assert_array_equal(np.asarray(strided.flip(x, axis=2)), np.flip(a, 2))
    with pytest.raises(ValueError, match=r"squeeze: dim 0 has size 2, not 1.*only size-1"):
        strided.squeeze(x, axis=0)
    with pytest.raises(IndexError, match=r"out of range"):
        strided.expand_dims(x, axis=4)


# ---------------------------------------------------------------------------------------------
# The dispatcher
# ---------------------------------------------------------------------------------------------


def test_ops_are_registered_and_run_through_the_dispatcher():
    ops = strided._dispatch.registered_ops()
    for name in ("concat", "stack", "tile", "repeat", "roll", "pad", "tril", "triu", "meshgrid"):
        assert "CPU" in ops[name], name  # and "Autograd" once autograd is active
    x = strided.arange(6).reshape(2, 3)
    calls = [
        ("concat", lambda: strided.concat([x, x])),
        ("stack", lambda: strided.stack([x, x])),
        ("tile", lambda: strided.tile(x, (2,))),
        ("repeat", lambda: strided.repeat(x, [1, 2], axis=0)),
        ("roll", lambda: strided.roll(x, 1, axis=1)),
        ("pad", lambda: F.pad(x, (1, 1), mode="reflect")),
        ("tril", lambda: strided.tril(x)),
        ("triu", lambda: strided.triu(x)),
        ("meshgrid", lambda: strided.meshgrid(x[0], x[1])),
    ]
    for name, call in calls:
        fast = call()
        with strided.trace_dispatch() as trace:
            slow = call()
        assert trace[0]["op"] == name and trace[0]["key"] == "CPU", trace
        assert trace[0]["inputs"][0].startswith("int64"), trace  # tensors are positional
        for f, s in zip(_as_tuple(fast), _as_tuple(slow), strict=True):
            np.testing.assert_array_equal(np.asarray(f), np.asarray(s))


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


def _z(*shape, dtype="float64"):
    return strided.zeros(shape, dtype=dtype)


ERRORS = [
    # concat
    (
        lambda: strided.concat([_z(2, 3), _z(2, 3), _z(2, 4)]),
        ValueError,
        r"concat: input 2 has shape \(2, 4\), which differs from input 0's shape \(2, 3\) at dim 1",
    ),
    (lambda: strided.concat([_z(2, 3), _z(3, 3)], axis=1), ValueError, r"input 1 .* at dim 0"),
    (
        lambda: strided.concat([_z(2, 3), _z(2, 3, 1)]),
        ValueError,
        r"input 1 has 3 dims \(shape \(2, 3, 1\)\) but input 0 has 2",
    ),
    (lambda: strided.concat([_z(), _z()]), ValueError, r"0-d tensors cannot be joined"),
    (lambda: strided.concat([]), ValueError, r"at least one tensor"),
    (lambda: strided.concat(_z(2)), TypeError, r"list or tuple of tensors, got Tensor"),
    (lambda: strided.concat([_z(2, 3)], axis=2), IndexError, r"axis=2 is out of range.*\[-2, 1\]"),
    (lambda: strided.concat([_z(2)], axis=0.0), TypeError, r"axis must be an integer"),
    # stack
    (
        lambda: strided.stack([_z(2, 3), _z(3, 2)]),
        ValueError,
        r"stack: input 1 has shape \(3, 2\) but input 0 has shape \(2, 3\)",
    ),
    (lambda: strided.stack([_z(2, 3)], axis=3), IndexError, r"axis=3 is out of range.*\[-3, 2\]"),
    # tile, Tensor.repeat, repeat
    (lambda: strided.tile(_z(3), (-1,)), ValueError, r"repetitions must be >= 0, got \(-1,\)"),
    (lambda: strided.tile(_z(3), 2.5), TypeError, r"repetitions must be an integer, got 2.5"),
    (
        lambda: _z(2, 3, 4, 5).repeat(2, 1, 1),
        ValueError,
        r"3 sizes \(2, 1, 1\) for a tensor with 4 dims.*per dim",
    ),
    (lambda: strided.repeat(_z(3), -1), ValueError, r"repeats must be >= 0, got -1"),
    (lambda: strided.repeat(_z(2, 3), [1, -2], axis=0), ValueError, r"must be >= 0, got -2"),
    (
        lambda: strided.repeat(_z(2, 3), [1, 2, 3], axis=0),
        ValueError,
        r"3 counts in repeats for 2 slices along axis 0 of a tensor of shape \(2, 3\)",
    ),
    (lambda: strided.repeat(_z(2, 3), [1, 2]), ValueError, r"2 counts in repeats for 6 elements"),
    (lambda: strided.repeat(_z(2, 3), [1.5, 2], axis=0), TypeError, r"hold integers, got float64"),
    (lambda: strided.repeat(_z(2, 3), [[1, 2]], axis=0), ValueError, r"int or 1-D, got shape"),
    (lambda: strided.repeat(_z(2, 3), True), TypeError, r"got a bool"),
    (lambda: strided.repeat(_z(2, 3), 2, axis=2), IndexError, r"axis=2 is out of range"),
    # roll
    (lambda: strided.roll(_z(2, 3), (1, 2), axis=(0, 1, 1)), ValueError, r"differ in length"),
    (lambda: strided.roll(_z(2, 3), (1, 2)), ValueError, r"must be an int when axis is None"),
    (lambda: strided.roll(_z(2, 3), 1, axis=2), IndexError, r"axis=2 is out of range"),
    (lambda: strided.roll(_z(), 1, axis=0), IndexError, r"axis=0 is out of range"),
    # pad
    (lambda: F.pad(_z(2, 3), (1, 2, 3)), ValueError, r"3 pad sizes .* must be even"),
    (
        lambda: F.pad(_z(2, 3), (1,) * 6),
        ValueError,
        r"3 \(left, right\) pairs for a tensor with 2 dims",
    ),
    (
        lambda: F.pad(_z(2, 3), (3, 0), mode="reflect"),
        ValueError,
        r"reflect pads \(3, 0\) on dim 1 of size 3 .* smaller than the dim's size",
    ),
    (
        lambda: F.pad(_z(2, 3), (0, 0, 0, 2), mode="reflect"),
        ValueError,
        r"reflect pads \(0, 2\) on dim 0 of size 2",
    ),
    (lambda: F.pad(_z(2, 3), (-1, 1), mode="reflect"), ValueError, r"only mode='constant'"),
    (lambda: F.pad(_z(2, 3), (1, 1), mode="wrap"), ValueError, r"mode must be one of"),
    (lambda: F.pad(_z(2, 3), (-4, 0)), ValueError, r"give a negative size -1"),
    (lambda: F.pad(_z(2, 3), (4, 0), mode="circular"), ValueError, r"at most the dim's"),
    (lambda: F.pad(_z(2, 0), (1, 0), mode="replicate"), ValueError, r"no edge"),
    (
        lambda: F.pad(_z(2, 3), (1, 0), mode="reflect", value=1),
        ValueError,
        r"value is only for mode='constant'",
    ),
    # tril, triu
    (
        lambda: strided.tril(_z(3)),
        ValueError,
        r"tril: needs a matrix or a stack of matrices \(at least 2 dims\), got shape \(3,\)",
    ),
    (lambda: strided.triu(_z()), ValueError, r"triu: needs a matrix.*got shape \(\)"),
    (lambda: strided.tril(_z(2, 2), k=1.5), TypeError, r"k must be an integer"),
    # meshgrid
    (lambda: strided.meshgrid(_z(2, 3)), ValueError, r"input 0 has shape \(2, 3\); .* 1-D"),
    (lambda: strided.meshgrid(_z(2), indexing="xx"), ValueError, r"'xy' or 'ij', got 'xx'"),
    # broadcast_arrays, squeeze (existing ops)
    (lambda: strided.broadcast_arrays(_z(2, 3), _z(4)), ValueError, r"cannot be broadcast"),
    (lambda: strided.squeeze(_z(2, 1), axis=0), ValueError, r"dim 0 has size 2, not 1"),
]


@pytest.mark.parametrize("call,exc,match", ERRORS, ids=[f"error-{i}" for i in range(len(ERRORS))])
def test_error_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_doctests():
    result = doctest.testmod(shape_ops, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10 and result.failed == 0
