"""Unit tests of the core objects on their own: Storage (a block of bytes on a device) and the
tensor's geometry over it (sizes, strides, offset; Note [Storage and views] in _core.pyx), which
the rest of the suite only reaches through ops. Everything here goes through public names
(``strided.Storage``, tensor methods, ``strided.as_strided``), so it holds however the core is
split into modules."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import strided

# ---------------------------------------------------------------------------------------------
# Storage
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("nbytes", [0, 1, 7, 64, 4096, 1 << 20])
def test_a_storage_has_its_size_an_aligned_pointer_and_starts_fresh(nbytes):
    s = strided.Storage(nbytes)
    assert s.nbytes == nbytes and len(s) == nbytes
    assert s.device == strided.device("cpu")
    assert s.writable and s.version == 0
    # even an empty storage has a real pointer (DLPack and the buffer protocol hand it out)
    assert s.data_ptr() != 0 and s.data_ptr() % 64 == 0


def test_a_zeroed_storage_reads_as_zeros():
    t = strided.zeros((1000,), dtype="int64")
    assert t.untyped_storage().nbytes == 8000
    assert not np.asarray(t).any()


def test_a_storage_refuses_a_negative_size():
    with pytest.raises(ValueError, match="nbytes must be >= 0"):
        strided.Storage(-1)


def test_views_share_one_storage_and_its_version_counter():
    t = strided.arange(12, dtype="float64")
    s = t.untyped_storage()
    views = [t[2:], t[::3], t.reshape(3, 4), t.reshape(3, 4).T, t[::-1]]
    for v in views:
        assert v.untyped_storage() is s
    assert t[2:].data_ptr() == s.data_ptr() + 2 * 8
    before = t._version
    views[1].add_(100)  # elements 0, 3, 6, 9 of the one storage
    np.testing.assert_array_equal(np.asarray(t)[::3], np.arange(0, 12, 3) + 100)
    assert all(v._version == before + 1 for v in [t, *views])
    # a copy is a new storage with its own counter
    c = t.clone() if hasattr(t, "clone") else t.copy()
    assert c.untyped_storage() is not s
    c.add_(1)
    assert t._version == before + 1


def test_nbytes_counts_the_elements_not_the_storage():
    t = strided.ones((4, 6), dtype="float32")
    assert t.nbytes == 96 and t.untyped_storage().nbytes == 96
    v = t[::2, 1:4]
    assert v.nbytes == 2 * 3 * 4 and v.untyped_storage().nbytes == 96
    assert t[:0].nbytes == 0 and t[:0].untyped_storage().nbytes == 96


def test_pickling_a_tensor_keeps_its_values_not_its_storage():
    t = strided.arange(24, dtype="int32").reshape(4, 6)
    for x in [t, t.T, t[1:3, ::-2], t[0, 0], t[:0]]:
        y = pickle.loads(pickle.dumps(x))
        assert type(y) is type(x)
        assert y.shape == x.shape and y.dtype == x.dtype
        np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
        # the copy owns exactly its own elements, row-major
        assert y.untyped_storage() is not t.untyped_storage()
        assert y.untyped_storage().nbytes == x.nbytes
        assert y.is_contiguous()


def test_a_storage_is_pickled_only_through_a_tensor():
    # raw bytes without a dtype and a shape mean nothing to the unpickler
    for s in [strided.Storage(8), strided.arange(4).untyped_storage()]:
        with pytest.raises(TypeError, match="pickled through a tensor"):
            pickle.dumps(s)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32", "complex128"])
def test_pickling_round_trips_every_kind_of_dtype(dtype):
    a = np.array([[1, 0, 3], [0, 5, 1]]).astype(dtype)
    y = pickle.loads(pickle.dumps(strided.asarray(a)))
    assert y.dtype == strided.asarray(a).dtype
    np.testing.assert_array_equal(np.asarray(y), a)


# ---------------------------------------------------------------------------------------------
# The tensor's geometry: sizes, strides (in elements; NumPy's .strides in bytes), offset
# ---------------------------------------------------------------------------------------------


def test_a_fresh_tensor_is_row_major_at_offset_zero():
    t = strided.empty((2, 3, 4), dtype="float32")
    assert t.shape == (2, 3, 4) and t.ndim == 3 and t.dim() == 3
    assert t.numel() == 24 and t.size == 24 and t.size(1) == 3
    assert t.stride() == (12, 4, 1) and t.stride(-1) == 1
    assert t.strides == (48, 16, 4)  # NumPy's: bytes
    assert t.storage_offset() == 0 and t.is_contiguous()
    assert t.itemsize == t.element_size() == 4


def test_a_0d_tensor_has_no_dims_and_one_element():
    t = strided.asarray(3.5)
    assert t.shape == () and t.stride() == () and t.numel() == 1 and t.is_contiguous()
    with pytest.raises(IndexError):
        t.stride(0)


@pytest.mark.parametrize(
    "view, shape, stride, offset",
    [
        (lambda t: t[1], (4,), (1,), 4),
        (lambda t: t[:, 1], (3,), (4,), 1),
        (lambda t: t[1:, 2:], (2, 2), (4, 1), 6),
        (lambda t: t[::2, ::3], (2, 2), (8, 3), 0),
        (lambda t: t.T, (4, 3), (1, 4), 0),
        (lambda t: t[::-1], (3, 4), (-4, 1), 8),
        (lambda t: t[:, ::-1], (3, 4), (4, -1), 3),
        (lambda t: t[::-1, ::-2], (3, 2), (-4, -2), 11),
        (lambda t: t[:, None, 1], (3, 1), (4, 0), 1),  # a new dim steps nowhere, as NumPy's
    ],
)
def test_views_are_sizes_strides_and_an_offset_over_the_same_storage(view, shape, stride, offset):
    a = np.arange(12.0).reshape(3, 4)
    t = strided.asarray(a)
    v = view(t)
    assert v.shape == shape
    assert v.stride() == stride
    assert v.storage_offset() == offset
    assert v.untyped_storage() is t.untyped_storage()
    np.testing.assert_array_equal(np.asarray(v), view(a))
    # element [i, j] sits at offset + i * stride[0] + j * stride[1] of the flat storage
    flat = a.ravel()
    for index in np.ndindex(*shape):
        at = offset + sum(i * s for i, s in zip(index, v.stride(), strict=True))
        assert flat[at] == np.asarray(v)[index]


def test_is_contiguous_ignores_size_one_dims_and_knows_the_rest():
    t = strided.zeros((3, 1, 4))
    assert t.is_contiguous() and t[:, :, :].is_contiguous()
    assert not t[:, :, ::2].is_contiguous() and not t.permute(2, 1, 0).is_contiguous()
    assert strided.zeros((3, 4))[1:2].is_contiguous()  # one row of a matrix
    assert strided.zeros((0, 4)).is_contiguous()


# ---------------------------------------------------------------------------------------------
# as_strided: the one view with any geometry, checked to stay inside the storage
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "size, stride, offset",
    [
        ((3, 3), (1, 1), 0),  # sliding windows: overlapping, read-only use
        ((2, 5), (5, 1), 0),
        ((5,), (2,), 0),
        ((4,), (-3,), 9),  # negative strides walk down from the offset
        ((2, 2), (0, 1), 4),  # a broadcast row
        ((3,), (1,), 7),  # ends exactly at the last element
        ((0, 4), (100, 1), 10),  # empty: nothing is read, the offset may be the end
        ((), (), 9),  # a 0-d view of the last element
    ],
)
def test_as_strided_views_read_what_numpy_reads(size, stride, offset):
    a = np.arange(10.0)
    t = strided.asarray(a)
    v = strided.as_strided(t, size, stride, offset)
    assert v.shape == size and v.storage_offset() == offset
    assert v.untyped_storage() is t.untyped_storage()
    want = np.lib.stride_tricks.as_strided(a[offset:], size, [s * 8 for s in stride])
    np.testing.assert_array_equal(np.asarray(v), want)


@pytest.mark.parametrize(
    "size, stride, offset",
    [
        ((11,), (1,), 0),  # one past the end
        ((3,), (1,), 8),  # starts inside, ends outside
        ((2, 2), (9, 1), 0),  # the last row's end is element 10
        ((3,), (-1,), 1),  # walks below element 0
        ((2,), (1,), -1),  # a negative offset
        ((), (), 10),  # a 0-d view past the end
        ((0,), (1,), 11),  # even an empty view cannot start past the end
        ((2,), (2**62,), 0),  # far outside
        ((3,), (2**62,), 0),  # a reach of 2 * 2**62 elements, which overflows int64
        ((3,), (-(2**62),), 5),
        ((2, 2), (-(2**63), 1), 5),
        ((2**40, 2**40), (2**30, 2**30), 0),
    ],
)
def test_as_strided_never_reaches_outside_the_storage(size, stride, offset):
    t = strided.arange(10, dtype="float64")
    with pytest.raises((ValueError, OverflowError)):
        strided.as_strided(t, size, stride, offset)


def test_as_strided_of_a_view_is_bounded_by_the_storage_not_the_view():
    # PyTorch's rule: the geometry is absolute, over the whole storage
    t = strided.arange(10, dtype="int64")
    v = t[2:4]
    whole = strided.as_strided(v, (10,), (1,), 0)
    np.testing.assert_array_equal(np.asarray(whole), np.arange(10))
    with pytest.raises(ValueError, match="outside the storage"):
        strided.as_strided(v, (11,), (1,), 0)


def test_as_strided_checks_its_arguments():
    t = strided.arange(10)
    with pytest.raises(ValueError, match="differ in length"):
        strided.as_strided(t, (2, 2), (1,))
    with pytest.raises((ValueError, TypeError)):
        strided.as_strided(t, (-1,), (1,))
    with pytest.raises(TypeError):
        strided.as_strided(t, (2,), (1.5,))
