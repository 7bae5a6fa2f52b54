"""Bad inputs fail early, with the right exception and a message that names what is wrong; a
failed op leaves its inputs as they were.

(Per-op argument errors of the view ops also live in the ``error_inputs`` of tests/opinfo.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

import strided


def _snapshot(t):
    return (t.shape, t.stride(), t.storage_offset(), t._version, np.asarray(t).copy())


def _assert_unchanged(t, snap):
    now = _snapshot(t)
    assert now[:4] == snap[:4]
    np.testing.assert_array_equal(now[4], snap[4], strict=True)


MAKERS = {
    "empty": lambda shape: strided.empty(shape),
    "zeros": lambda shape: strided.zeros(shape),
    "ones": lambda shape: strided.ones(shape),
    "full": lambda shape: strided.full(shape, 1.0),
}


# =============================================================================================
# Sizes
# =============================================================================================


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize(
    "shape,exc,match",
    [
        (-1, ValueError, r"sizes must be >= 0, got -1"),
        ((2, -3), ValueError, r"sizes must be >= 0, got -3 in shape \(2, -3\)"),
        ((2.5,), TypeError, r"sizes must be integers, got 2.5"),
        ((2, 3.0), TypeError, r"sizes must be integers, got 3.0 in shape \(2, 3.0\)"),
        (("3",), TypeError, r"sizes must be integers, got '3'"),
        ((2, "3"), TypeError, r"sizes must be integers, got '3'"),
        ((True, 2), TypeError, r"sizes must be integers, got True"),
        ((None,), TypeError, r"sizes must be integers, got None"),
        ((2**64,), ValueError, r"size 18446744073709551616 .* is too large"),
        ((2**40, 2**40), ValueError, r"more than 2\*\*63-1 elements"),
        ((2**31, 2**31, 4), ValueError, r"more than 2\*\*63-1 elements"),
        ((2**61,), ValueError, r"would need more than 2\*\*63-1 bytes"),
        ((2**32, 2**30), ValueError, r"would need more than 2\*\*63-1 bytes"),
        ((1,) * 70, ValueError, r"at most 64 dims"),
    ],
    ids=repr,
)
def test_bad_shapes(make, shape, exc, match):
    # Every one fails before allocating anything (none of these could be allocated).
    with pytest.raises(exc, match=match):
        make(shape)


def test_bad_size_as_a_single_argument():
    with pytest.raises(TypeError, match=r"sizes must be integers, got 2.5"):
        strided.zeros(2.5)
    with pytest.raises(ValueError, match=r"sizes must be >= 0"):
        strided.empty(2, -1)


def test_empty_shapes_with_large_sizes():
    # A zero size makes the tensor empty, but, as in NumPy, the other sizes must still
    # multiply to a count that fits in int64 (the strides of a row-major layout are made
    # from them).
    t = strided.zeros((0, 2**20, 2**20))
    assert t.numel() == 0 and t.shape == (0, 2**20, 2**20)
    with pytest.raises(ValueError, match=r"more than 2\*\*63-1 elements"):
        strided.zeros((0, 2**62, 2**62))


def test_eye_bad_sizes():
    with pytest.raises(ValueError, match=r"sizes must be >= 0"):
        strided.eye(-1)
    with pytest.raises(TypeError, match=r"sizes must be integers, got 2.5"):
        strided.eye(2.5)
    with pytest.raises(ValueError, match=r"more than 2\*\*63-1 elements"):
        strided.eye(2**32)


def test_storage_negative_size():
    with pytest.raises(ValueError, match=r"nbytes must be >= 0, got -1"):
        strided.Storage(-1)


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="create tensors with strided.tensor"):
        strided.Tensor()


# =============================================================================================
# dtypes
# =============================================================================================

SUPPORTED = (
    r"use one of bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
    r"float32, float64, complex64, complex128, float16, bfloat16"
)


@pytest.mark.parametrize(
    "dtype", ["float128", "foo", np.longdouble, object, "U8", "complex256"], ids=repr
)
@pytest.mark.parametrize(
    "call",
    [
        lambda d: strided.zeros(3, dtype=d),
        lambda d: strided.empty(3, dtype=d),
        lambda d: strided.full(3, 1, dtype=d),
        lambda d: strided.asarray([1, 2], dtype=d),
        lambda d: strided.arange(3, dtype=d),
        lambda d: strided.arange(3).astype(d),
        lambda d: strided.astype(strided.arange(3), d),
        lambda d: strided.eye(2, dtype=d),
    ],
    ids=["zeros", "empty", "full", "asarray", "arange", "astype", "strided.astype", "eye"],
)
def test_unsupported_dtypes(call, dtype):
    with pytest.raises(TypeError, match=r"dtype .* is not supported by strided; " + SUPPORTED):
        call(dtype)


# =============================================================================================
# Dims and indices out of range
# =============================================================================================

X = strided.arange(24).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "call,match",
    [
        (
            lambda: X.transpose(0, 3),
            r"dim1=3 is out of range for a tensor with 3 dims "
            r"\(expected a value in \[-3, 2\]\)",
        ),
        (lambda: X.transpose(-4, 0), r"dim0=-4 is out of range.*\[-3, 2\]"),
        (lambda: X.permute(0, 1, 5), r"dims=5 is out of range"),
        (lambda: X.squeeze(3), r"dim=3 is out of range"),
        (lambda: X.unsqueeze(4), r"dim=4 is out of range.*\[-4, 3\]"),
        (lambda: X.unsqueeze(-5), r"dim=-5 is out of range"),
        (lambda: X.narrow(3, 0, 1), r"dim=3 is out of range"),
        (lambda: X.select(-4, 0), r"dim=-4 is out of range"),
        (lambda: X.flatten(0, 3), r"end_dim=3 is out of range"),
        (lambda: X.flatten(-4), r"start_dim=-4 is out of range"),
        (lambda: X.movedim(3, 0), r"source=3 is out of range"),
        (lambda: X.diagonal(0, 0, 3), r"dim2=3 is out of range"),
        (lambda: X.split(1, 3), r"dim=3 is out of range"),
        (lambda: X.chunk(2, 3), r"dim=3 is out of range"),
        (lambda: X.unbind(3), r"dim=3 is out of range"),
        (lambda: X.flip(3), r"dims=3 is out of range"),
        (lambda: X.unfold(3, 1, 1), r"dimension=3 is out of range"),
        (lambda: X.unflatten(3, (1,)), r"dim=3 is out of range"),
        (lambda: X.stride(3), r"out of range"),
        (lambda: X.size(3), r"dim out of range"),
        (
            lambda: strided.zeros(()).transpose(0, 1),
            r"dim1=1 is out of range for a tensor with "
            r"0 dims \(expected a value in \[-1, 0\]\)",
        ),
    ],
    ids=lambda x: "" if callable(x) else x[:20],
)
def test_dims_out_of_range(call, match):
    with pytest.raises(IndexError, match=match):
        call()


@pytest.mark.parametrize(
    "index,match",
    [
        (2, r"index 2 is out of bounds for dim 0 with size 2"),
        (-3, r"index -3 is out of bounds for dim 0 with size 2"),
        ((0, 3), r"index 3 is out of bounds for dim 1 with size 3"),
        ((slice(None), slice(None), 4), r"index 4 is out of bounds for dim 2 with size 4"),
        ((Ellipsis, -5), r"index -5 is out of bounds for dim 2 with size 4"),
        ((None, 0, None, 5), r"index 5 is out of bounds for dim 1 with size 3"),
    ],
)
def test_indices_out_of_range(index, match):
    with pytest.raises(IndexError, match=match):
        X[index]
    with pytest.raises(IndexError, match=match):
        X[index] = 0


def test_too_many_indices():
    with pytest.raises(
        IndexError,
        match=r"too many indices for a tensor of shape \(2, 3, 4\): "
        r"4 were given",
    ):
        X[0, 0, 0, 0]
    with pytest.raises(IndexError, match="too many indices"):
        X[0, ..., 0, 0, 0]
    with pytest.raises(IndexError, match="too many indices"):
        strided.asarray(1.0)[0]
    with pytest.raises(IndexError, match="single ellipsis"):
        X[..., ...]


@pytest.mark.parametrize("index", [1.0, "a", strided.asarray(1.0), [0.5]], ids=repr)
def test_indices_that_are_neither_basic_nor_advanced(index):
    # integer arrays and masks are advanced indexing (tests/test_indexing.py); these are errors
    with pytest.raises(IndexError, match=r"only integers, slices .* are valid indices"):
        X[index]


def test_integer_0d_tensors_and_numpy_ints_index():
    assert X[strided.asarray(1), np.int64(2), np.array(3)].item() == 23


# =============================================================================================
# view, as_strided, squeeze, expand
# =============================================================================================


def test_view_on_incompatible_strides():
    x = strided.arange(12).reshape(3, 4)
    assert x[:, ::2].view(6).stride() == (2,)  # rows 4 apart, columns 2 apart: one stride
    for v, shape in [
        (x.T, (12,)),
        (x[:, ::3], (6,)),
        (x.T, (2, 6)),
        (x[:, :1].expand(3, 4), (12,)),
    ]:
        snap = _snapshot(v)
        with pytest.raises(
            RuntimeError,
            match=r"cannot view a tensor of shape .* strides .* "
            r"without copying.*\.reshape\(\.\.\.\)",
        ):
            v.view(shape)
        _assert_unchanged(v, snap)


def test_view_dtype_names_what_stops_it():
    # Note [A view as another dtype]: the same bytes as another dtype, or why not
    assert strided.arange(3).view("float64").shape == (3,)
    with pytest.raises(ValueError, match="last axis holds 24 bytes"):
        strided.arange(3).view("complex128")
    with pytest.raises(ValueError, match="last axis must be contiguous; its stride is 2"):
        strided.arange(6)[::2].view("int32")


def test_as_strided_outside_the_storage():
    x = strided.arange(6)
    with pytest.raises(
        ValueError,
        match=r"reach storage elements 0..6, outside the "
        r"storage's 0..5 \(48 bytes of int64\)",
    ):
        x.as_strided((7,), (1,), 0)
    with pytest.raises(ValueError, match="reach storage elements -2..0"):
        x.as_strided((3,), (-1,), 0)
    with pytest.raises(ValueError, match=r"storage_offset must be >= 0"):
        x.as_strided((1,), (1,), -1)
    with pytest.raises(ValueError, match="outside the storage"):
        x[3:].as_strided((2, 2), (3, 1))  # offset 3: reaches 3..7
    with pytest.raises(ValueError, match="sizes must be >= 0"):
        x.as_strided((-1,), (1,), 0)
    # the bounds are the storage's, not the view's
    assert x[4:].as_strided((6,), (1,), 0).tolist() == list(range(6))


def test_squeeze_of_a_non_1_dim():
    with pytest.raises(
        ValueError,
        match=r"squeeze: dim 1 has size 3, not 1, in shape "
        r"\(2, 3, 4\); only size-1 dims can be squeezed",
    ):
        X.squeeze(1)
    with pytest.raises(ValueError, match="not 1"):
        strided.squeeze(X, axis=(0,))


def test_expand_to_incompatible_shape():
    x = strided.zeros((2, 1))
    with pytest.raises(
        ValueError,
        match=r"cannot expand shape \(2, 1\) to \(3, 4\): dim 0 "
        r"has size 2, which is neither 1 nor 3",
    ):
        x.expand(3, 4)
    with pytest.raises(ValueError, match="fewer dims"):
        x.expand(4)
    with pytest.raises(ValueError, match="cannot be broadcast together"):
        strided.broadcast_shapes((2, 3), (4, 3))
    with pytest.raises(ValueError, match=r"shapes \(3,\) and \(4,\) cannot be broadcast"):
        strided.broadcast_arrays(strided.zeros(3), strided.zeros(4))


# =============================================================================================
# Ragged lists
# =============================================================================================


def test_ragged_lists():
    with pytest.raises(
        ValueError,
        match=r"ragged nested sequence: the items of the top level "
        r"have different lengths \[2, 1\]",
    ):
        strided.asarray([[1, 2], [3]])
    with pytest.raises(ValueError, match="ragged"):
        strided.tensor([[1.0], [2.0, 3.0]])


# =============================================================================================
# Writes that must be refused
# =============================================================================================


def _expanded():
    base = strided.arange(4.0).reshape(4, 1)
    return base, base.expand(4, 3)


@pytest.mark.parametrize(
    "write",
    [
        lambda e: e.fill_(1.0),
        lambda e: e.zero_(),
        lambda e: e.copy_(strided.ones((4, 3))),
        lambda e: e.copy_(strided.ones(3)),
        lambda e: e.__setitem__(0, 1.0),
        lambda e: e.__setitem__((slice(None), slice(1, None)), strided.ones(2)),
        lambda e: e.__setitem__(Ellipsis, 0.0),
        lambda e: e[1:].fill_(2.0),
        lambda e: e.T.copy_(strided.zeros((3, 4))),
    ],
    ids=[
        "fill_",
        "zero_",
        "copy_",
        "copy_-broadcast",
        "setitem-row",
        "setitem-column",
        "setitem-all",
        "slice-fill_",
        "transposed-copy_",
    ],
)
def test_writing_through_an_expanded_view(write):
    base, e = _expanded()
    snap = _snapshot(base)
    with pytest.raises(RuntimeError, match=r"share memory .*expanded or overlapping view"):
        write(e)
    _assert_unchanged(base, snap)


def test_writing_one_element_of_an_expanded_view():
    # Note: a single element of an expanded view has no overlap, so (as in PyTorch) it can be
    # written: it is the one storage cell the whole expanded row reads. NumPy would refuse,
    # as its broadcast arrays are read-only as a whole.
    base, e = _expanded()
    e[2, 1] = 10.0
    assert base[2, 0].item() == 10.0
    assert e[2].tolist() == [10.0, 10.0, 10.0]
    e[:, 1] = strided.asarray([5.0, 6.0, 7.0, 8.0])  # one column: no two elements share a cell
    assert base.tolist() == [[5.0], [6.0], [7.0], [8.0]]


def test_overlapping_as_strided_is_not_writable():
    x = strided.zeros(6)
    v = x.as_strided((3, 2), (1, 1))
    with pytest.raises(RuntimeError, match="share memory"):
        v.fill_(1.0)
    assert not np.asarray(x).any()


def test_assigning_a_wrong_shape():
    x = strided.zeros((3, 4))
    snap = _snapshot(x)
    with pytest.raises(
        ValueError,
        match=r"cannot broadcast a tensor of shape \(5,\) to shape "
        r"\(4,\)",
    ):
        x[0] = strided.ones(5)
    with pytest.raises(ValueError, match=r"shape \(2, 4\) to shape \(3, 4\)"):
        x[...] = [[1, 2, 3, 4], [5, 6, 7, 8]]
    with pytest.raises(ValueError, match=r"shape \(3, 4\) to shape \(4,\)"):
        x[1].copy_(strided.ones((3, 4)))
    _assert_unchanged(x, snap)


def test_failed_copy_leaves_the_destination_unchanged():
    dst = strided.arange(6.0).reshape(2, 3)
    snap = _snapshot(dst)
    with pytest.raises(ValueError, match="cannot broadcast"):
        dst.copy_(strided.ones((3, 2)))
    with pytest.raises(ValueError, match="cannot broadcast"):
        dst.T.copy_(strided.ones(3))
    with pytest.raises(OverflowError, match="does not fit in dtype int8"):
        strided.zeros(3, dtype="int8").fill_(1000)
    with pytest.raises(TypeError, match="complex value"):
        dst.fill_(1j)
    with pytest.raises(OverflowError):
        dst[0] = 10**400
    _assert_unchanged(dst, snap)


def test_failed_views_leave_the_input_unchanged():
    x = strided.arange(12).reshape(3, 4)
    snap = _snapshot(x)
    for bad in (
        lambda: x.reshape(5, 3),
        lambda: x.permute(0, 0),
        lambda: x.expand(2, 4),
        lambda: x.as_strided((13,), (1,)),
        lambda: x.narrow(0, 2, 5),
        lambda: x.unflatten(1, (3, 2)),
        lambda: x.split([1, 1]),
    ):
        with pytest.raises((ValueError, IndexError, RuntimeError)):
            bad()
        _assert_unchanged(x, snap)


# =============================================================================================
# DLPack
# =============================================================================================


def test_dlpack_capsule_used_twice():
    x = strided.arange(3.0)
    capsule = x.__dlpack__()
    t = strided.from_dlpack(capsule)
    np.testing.assert_array_equal(np.asarray(t), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="capsule was already consumed"):
        strided.from_dlpack(capsule)


def test_from_dlpack_of_a_non_producer():
    with pytest.raises(TypeError, match="has no __dlpack__ method"):
        strided.from_dlpack([1, 2])


# =============================================================================================
# Arguments of the wrong kind
# =============================================================================================


def test_functions_want_tensors():
    for fn in (strided.reshape, strided.permute_dims, strided.flip, strided.clone):
        with pytest.raises(TypeError, match="expected a strided tensor, got list"):
            fn([1, 2], *([(2,)] if fn in (strided.reshape, strided.permute_dims) else []))


def test_bad_devices():
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        strided.zeros(2, device="gpu")
    with pytest.raises(TypeError, match="device must be"):
        strided.device(3)
    if not strided.cuda.is_available():  # a clear error that says what is missing
        with pytest.raises(strided.cuda.CudaUnavailableError, match="no(ne)? .*cuda-emulated"):
            strided.zeros(2, device="cuda")
        with pytest.raises(strided.cuda.CudaUnavailableError, match="cuda-emulated"):
            strided.zeros(2).to("cuda")


def test_set_num_threads_must_be_positive():
    with pytest.raises(ValueError, match=r"n must be >= 1, got 0"):
        strided.set_num_threads(0)
