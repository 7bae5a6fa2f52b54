"""Generic tests of the view and copy rows of the OpInfo table (tests/opinfo.py).

Each (op, layout, dtype) case builds the input in that layout (tests/layouts.py), runs every
sample of the op on the strided tensor and on the NumPy array, and checks:

- the values, shape and dtype equal NumPy's;
- memory: a view shares the input's storage, a copy does not (as the row's ``view`` says) and
  is row-major, or laid out as NumPy's copy ("copy-as-numpy": ``a.astype``'s order="K");
- for views, the strides of non-trivial dims equal NumPy's when NumPy also made a view;
- writing through a writable view lands in the input exactly where NumPy's write lands, and
  writing through a view whose elements share memory (expanded) raises RuntimeError.

Dtypes: every dtype on the contiguous and negative-stride layouts, and every layout on int8,
float32 and complex128 (one of each kind), which keeps the suite fast.
"""

from __future__ import annotations

import numpy as np
import pytest
from layouts import ALL_DTYPES, HALF_DTYPES, LAYOUTS, has_exact_overlap, make_layout
from opinfo import OPS, OPS_BY_NAME

import strided

SHAPE = (4, 1, 3, 5)  # a size-1 dim for squeeze/expand, odd and even sizes, 60 elements
FEW_DTYPES = (strided.int8, strided.float32, strided.complex128)
ALL_LAYOUT_NAMES = ("contiguous", "negative-stride")


def _layout_shape(layout):
    return {"0-d": (), "empty": SHAPE[:1] + (0,) + SHAPE[2:]}.get(layout, SHAPE)


def _cases():
    for op in OPS:
        for layout in LAYOUTS:
            if not list(op.sample_inputs(_layout_shape(layout))):
                continue  # e.g. mT or diagonal of a 0-d tensor: see their error_inputs
            # (the halves with every dtype: a view moves bits, whatever they stand for)
            dtypes = ALL_DTYPES + HALF_DTYPES if layout in ALL_LAYOUT_NAMES else FEW_DTYPES
            for dtype in dtypes:
                if dtype in op.dtypes:
                    yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")


def _as_list(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _big_strides(shape, strides):
    return tuple(s for n, s in zip(shape, strides, strict=True) if n > 1)


def _equal(got, expected, where):
    """Equal arrays, dtype included; float16 and bfloat16 compared by their bits (a view or a
    copy moves bits, and NumPy's testing has no bfloat16)."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.dtype.itemsize == 2 and got.dtype.kind in "fV":
        assert got.dtype == expected.dtype, f"{where}: dtype {got.dtype}, NumPy {expected.dtype}"
        got, expected = (np.ascontiguousarray(x).view(np.uint16) for x in (got, expected))
    np.testing.assert_array_equal(got, expected, err_msg=where, strict=True)


def _check_values(op, out, expected, where):
    exp = np.asarray(expected)
    assert isinstance(out, strided.Tensor), where
    assert out.shape == exp.shape, where
    got = np.asarray(out)
    assert got.dtype == exp.dtype, where
    rtol, atol = op.tolerances.get(out.dtype, (0, 0))
    if rtol or atol:
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, err_msg=where)
    else:
        _equal(got, exp, where)


def _check_memory(op, t, a, out, expected, where):
    shares = out.untyped_storage() is t.untyped_storage()
    if op.view == "always" or op.view == "view-or-raise":
        assert shares, f"{where}: a view op returned a tensor with a new storage"
        assert out.device == t.device
        if isinstance(expected, np.ndarray) and expected.size and np.shares_memory(expected, a):
            assert _big_strides(out.shape, out.strides) == _big_strides(
                expected.shape, expected.strides
            ), where
    elif op.view == "never":
        assert not shares, f"{where}: a copying op returned a view of its input"
        assert out.is_contiguous(), where
    elif op.view == "copy-as-numpy":  # a.astype: NumPy's order="K" (Note [A copy's order])
        assert not shares, f"{where}: a copying op returned a view of its input"
        if isinstance(expected, np.ndarray) and expected.size:
            assert _big_strides(out.shape, out.strides) == _big_strides(
                expected.shape, expected.strides
            ), where
    elif op.view == "self-or-copy":
        if t.is_contiguous():
            assert out is t, where
        else:
            assert not shares and out.is_contiguous(), where
    elif op.view == "maybe":
        if not shares:
            assert out.is_contiguous(), where
            with pytest.raises(RuntimeError, match="reshape"):
                t.view(out.shape)
    else:
        raise AssertionError(f"unknown view kind {op.view!r}")


def _check_writes(op, t, a, args, outs, expecteds, rng, where):
    """Write fresh values through every writable view in ``outs``; check they land right."""
    mirrored = True
    written = {}
    for pos, (out, exp) in enumerate(zip(outs, expecteds, strict=True)):
        if out.numel() == 0 or out.untyped_storage() is not t.untyped_storage():
            continue
        new = op.values(out.shape, out.dtype, rng)
        if has_exact_overlap(out):
            with pytest.raises(RuntimeError, match="share memory"):
                out[...] = strided.asarray(new)
            continue
        try:
            out[...] = strided.asarray(new)
        except RuntimeError:
            # Allowed only in the documented conservative case: see Note [Internal overlap].
            assert strided._core._has_internal_overlap(out), where
            continue
        _equal(out, new, where)
        # The values landed where the op points: a fresh view reads them back.
        fresh = _as_list(op.op(t, *args))[pos]
        _equal(fresh, new, where)
        written[pos] = new
        if isinstance(exp, np.ndarray) and exp.flags.writeable and np.shares_memory(exp, a):
            exp[...] = new
        else:
            mirrored = False
    # ... and nowhere else: the whole input equals NumPy's after the same writes.
    if written and mirrored:
        _equal(t, a, f"{where}: after writes")


@pytest.mark.parametrize("op,layout,dtype", list(_cases()))
def test_op_matches_numpy(op, layout, dtype, rng):
    ref_values = op.values(SHAPE, dtype, rng)
    for args in op.sample_inputs(_layout_shape(layout)):
        where = f"{op.name}{args!r} on a {layout} {dtype.name} input"
        t, a = make_layout(layout, ref_values, rng)
        before = np.asarray(t).copy()
        if op.view == "view-or-raise":
            try:
                out = op.op(t, *args)
            except RuntimeError as e:
                assert layout != "contiguous", f"{where}: view of a contiguous tensor failed"
                assert "reshape" in str(e), where
                copied = t.reshape(*args)
                assert copied.untyped_storage() is not t.untyped_storage(), where
                continue
        else:
            out = op.op(t, *args)
        expected = op.ref(a, *args)
        outs, expecteds = _as_list(out), _as_list(expected)
        assert isinstance(out, tuple) == isinstance(expected, list), where
        assert len(outs) == len(expecteds), where
        for o, e in zip(outs, expecteds, strict=True):
            _check_values(op, o, e, where)
            _check_memory(op, t, a, o, e, where)
        # Making a view or a copy never changes the input.
        _equal(t, before, where)
        _check_writes(op, t, a, args, outs, expecteds, rng, where)


def _error_cases():
    for op in OPS:
        for i, case in enumerate(op.error_inputs()):
            yield pytest.param(op, case, id=f"{op.name}-{i}")


@pytest.mark.parametrize("op,case", list(_error_cases()))
def test_op_error_inputs(op, case):
    t, args, exc, match = case
    before = (t.shape, t.stride(), t.storage_offset(), np.asarray(t).copy())
    with pytest.raises(exc, match=match):
        op.op(t, *args)
    after = (t.shape, t.stride(), t.storage_offset(), np.asarray(t))
    assert before[:3] == after[:3]
    np.testing.assert_array_equal(before[3], after[3])


def test_every_op_has_error_inputs_or_says_why():
    # A row with no error_inputs must be one whose every input is valid.
    no_errors = {op.name for op in OPS if not list(op.error_inputs())}
    # (imag: a real tensor's is zeros, as NumPy's; test_numpy_methods.py tests it)
    valid = {"T", "real", "imag", "contiguous", "clone", "astype_special"}
    assert no_errors <= valid, no_errors


def test_view_on_contiguous_never_refuses():
    x = strided.arange(24)
    for shape in [(2, 3, 4), (4, -1), (24,), (1, 24, 1), (2, 12)]:
        assert x.view(shape).untyped_storage() is x.untyped_storage()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_reshape_views_exactly_when_numpy_does(layout, rng):
    # NumPy's _attempt_nocopy_reshape and PyTorch's computeStride agree on when a reshape can
    # be a view, for tensors with elements (empty and 0-d tensors can always be viewed).
    ref = rng.integers(-5, 5, SHAPE)
    t, a = make_layout(layout, ref, rng)
    for args in OPS_BY_NAME["reshape"].sample_inputs(t.shape):
        if t.numel() == 0:
            continue
        (shape,) = args
        out = t.reshape(shape)
        exp = a.reshape(shape)
        assert (out.untyped_storage() is t.untyped_storage()) == np.shares_memory(exp, a), (
            layout,
            shape,
        )


def test_reshape_copy_argument():
    x = strided.arange(6).reshape(2, 3)
    forced = strided.reshape(x, (3, 2), copy=True)
    assert forced.untyped_storage() is not x.untyped_storage()
    np.testing.assert_array_equal(np.asarray(forced), np.arange(6).reshape(3, 2))
    assert strided.reshape(x, (3, 2), copy=False).untyped_storage() is x.untyped_storage()
    with pytest.raises(ValueError, match="copy=False forbids it"):
        strided.reshape(x.T, (6,), copy=False)
    copied = x.T.reshape(6)
    assert "had to copy" in copied.explain() or copied.is_contiguous()


def test_view_results_keep_the_original_base():
    x = strided.arange(12)
    v = x.reshape(3, 4).T[1:]
    assert v._base is x
    assert x._base is None


def test_real_imag_write_through():
    z = strided.asarray(np.array([1 + 2j, 3 - 4j], dtype=np.complex64))
    z.real[...] = strided.asarray(np.array([10.0, 20.0], dtype=np.float32))
    z.imag[1] = -1.5
    np.testing.assert_array_equal(np.asarray(z), np.array([10 + 2j, 20 - 1.5j], np.complex64))
    assert z.real.dtype is strided.float32 and z.imag.stride() == (2,)
    x = strided.arange(3.0)
    assert x.real is x


def test_split_pieces_cover_the_input_once(rng):
    x = strided.asarray(rng.integers(0, 9, (7, 3)))
    for pieces in (x.split(3), x.chunk(3), x.split([2, 0, 5])):
        stacked = np.concatenate([np.asarray(p) for p in pieces])
        np.testing.assert_array_equal(stacked, np.asarray(x))


# -- The Array API 2025.12: expand_dims with a tuple of axes; broadcast_arrays gives a tuple --


@pytest.mark.parametrize("layout", LAYOUTS)
def test_expand_dims_with_a_tuple_matches_numpy(layout, rng):
    # positions count in the result (x.ndim + len(axis) dims): see Note [expand_dims with a tuple]
    t, a = make_layout(layout, rng.integers(-5, 5, (2, 3)), rng)
    for axis in [(), (0,), (0, -1), (-1, -2), (3, 0), (1, 0, 2), [-4, 1]]:
        try:
            want = np.expand_dims(a, axis)
        except np.exceptions.AxisError:  # positions beyond a 0-d or 1-D result
            with pytest.raises(IndexError, match="out of range for a result with"):
                strided.expand_dims(t, axis=axis)
            continue
        got = strided.expand_dims(t, axis=axis)
        assert got.shape == want.shape, (layout, axis)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert got.untyped_storage() is t.untyped_storage()  # a view, as NumPy's


def test_expand_dims_refuses_a_position_twice_as_numpy():
    t, a = strided.zeros((2, 3)), np.zeros((2, 3))
    for axis in [(1, 1), (1, -3)]:  # -3 of a 4-dim result is position 1
        with pytest.raises(ValueError, match="repeated axis"):
            np.expand_dims(a, axis)
        with pytest.raises(ValueError, match=r"names a position twice"):
            strided.expand_dims(t, axis=axis)


def test_broadcast_arrays_is_a_tuple_as_numpys():
    a, b = np.zeros((2, 1)), np.zeros(3)
    got = strided.broadcast_arrays(strided.asarray(a), strided.asarray(b))
    want = np.broadcast_arrays(a, b)
    assert type(got) is type(want) is tuple
    assert [g.shape for g in got] == [w.shape for w in want]
    assert strided.broadcast_arrays() == np.broadcast_arrays() == ()
