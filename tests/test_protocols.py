"""Tests for the Python protocols of a tensor (strided/_core.pyx, strided/_tensor.py): the buffer
protocol, ``__array__``, conversions to Python numbers, len/iter, the Array API namespace,
pickle and copy, repr/explain, and the geometry accessors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from layouts import ALL_DTYPES, make_values, to_numpy_dtype

import strided

FORMATS = {
    "bool": "?",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "uint8": "B",
    "uint16": "H",
    "uint32": "I",
    "uint64": "Q",
    "float32": "f",
    "float64": "d",
    "complex64": "Zf",
    "complex128": "Zd",
}


# =============================================================================================
# The buffer protocol
# =============================================================================================


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_memoryview_describes_the_tensor(dtype):
    t = strided.zeros((2, 3), dtype=dtype)
    m = memoryview(t)
    assert m.shape == (2, 3)
    assert m.strides == t.strides == (3 * dtype.itemsize, dtype.itemsize)
    assert m.format == FORMATS[dtype.name]
    assert m.itemsize == dtype.itemsize
    assert not m.readonly
    assert m.nbytes == t.nbytes


def test_memoryview_of_views():
    x = strided.arange(24, dtype="int32").reshape(2, 3, 4)
    v = x.permute(2, 0, 1)[::-1, :, 1:]
    m = memoryview(v)
    assert m.shape == v.shape and m.strides == v.strides
    assert not m.readonly
    np.testing.assert_array_equal(
        np.asarray(m), np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1)[::-1, :, 1:]
    )
    z = memoryview(strided.asarray(3.5))
    assert z.shape == () and z.strides == ()


def test_memoryview_of_expanded_is_readonly():
    e = strided.arange(3.0).expand(4, 3)
    m = memoryview(e)
    assert m.readonly and m.strides == (0, 8)
    a = np.asarray(m)
    assert not a.flags.writeable
    np.testing.assert_array_equal(a, np.broadcast_to(np.arange(3.0), (4, 3)))


def test_numpy_from_memoryview_shares_memory():
    t = strided.arange(6.0).reshape(2, 3)
    a = np.asarray(memoryview(t.T))
    a[2, 1] = -7.0
    assert t[1, 2].item() == -7.0


def test_memoryview_keeps_the_tensor_alive():
    m = memoryview(strided.arange(100))
    import gc

    gc.collect()
    assert m[99] == 99


PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_STRIDES = 0, 0x1, 0x18


def _get_buffer(obj, flags):
    """PyObject_GetBuffer with exactly ``flags`` (memoryview always asks for strides)."""
    import ctypes

    view = ctypes.create_string_buffer(256)  # larger than any Py_buffer
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.c_void_p, ctypes.c_int]
    get(obj, ctypes.addressof(view), flags)
    release = ctypes.pythonapi.PyBuffer_Release
    release.argtypes = [ctypes.c_void_p]
    release(ctypes.addressof(view))


def test_writable_buffer_request_of_a_readonly_tensor():
    e = strided.zeros(3).expand(2, 3)
    with pytest.raises(BufferError, match="cannot be exported as writable.*expanded"):
        _get_buffer(e, PyBUF_WRITABLE | PyBUF_STRIDES)
    r = strided.asarray(b"12345678")
    with pytest.raises(BufferError, match="cannot be exported as writable"):
        _get_buffer(r, PyBUF_WRITABLE)
    _get_buffer(strided.zeros(4), PyBUF_WRITABLE)
    _get_buffer(e, PyBUF_STRIDES)  # reading is fine


def test_contiguous_buffer_request_of_a_strided_tensor():
    t = strided.arange(6.0)[::2]
    with pytest.raises(BufferError, match="not contiguous"):
        _get_buffer(t, PyBUF_SIMPLE)
    _get_buffer(t, PyBUF_STRIDES)
    assert bytes(memoryview(t.contiguous())) == np.arange(0.0, 6.0, 2.0).tobytes()


# =============================================================================================
# __array__
# =============================================================================================


def test_array_shares_memory():
    t = strided.arange(6.0).reshape(2, 3)[:, ::-1]
    a = np.asarray(t)
    assert a.strides == t.strides
    a[0, 0] = 100.0
    assert t[0, 0].item() == 100.0


def test_array_dtype_and_copy_arguments():
    t = strided.arange(4.0)
    f = np.asarray(t, dtype=np.float32)
    assert f.dtype == np.float32
    np.testing.assert_array_equal(f, [0, 1, 2, 3])
    c = np.array(t, copy=True)
    c[0] = 5
    assert t[0].item() == 0.0
    assert np.shares_memory(np.array(t, copy=False), np.asarray(t))
    with pytest.raises(ValueError):
        np.array(t, dtype=np.float32, copy=False)
    assert t.__array__(dtype=np.int64).dtype == np.int64
    with pytest.raises(ValueError, match="needs a copy"):
        t.__array__(dtype=np.int64, copy=False)


def test_numpy_ufunc_on_tensor():
    t = strided.arange(4, dtype="int32")
    np.testing.assert_array_equal(np.add(t, 1), [1, 2, 3, 4])


# =============================================================================================
# A tensor that requires grad: a read-only window
# (Note [No writable window into a tensor that requires grad] in _core.pyx)
# =============================================================================================


def test_no_writable_window_into_a_tensor_that_requires_grad():
    x = strided.asarray([1.0, 2.0, 3.0]).requires_grad_(True)
    loss = (x * x).sum()  # records x's values: the gradient is 2 * x
    windows = [np.asarray(x), x.numpy(), np.asarray(memoryview(x)), np.asarray(x[1:])]
    for a in windows:
        assert not a.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 100.0
    assert memoryview(x).readonly
    with pytest.raises(BufferError, match=r"requires grad.*t\.detach\(\)"):
        _get_buffer(x, PyBUF_WRITABLE | PyBUF_STRIDES)
    with pytest.raises(ValueError):
        np.copyto(np.asarray(x), 0.0)  # NumPy's own writers refuse too
    loss.backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0, 3.0])
    # reading is unchanged, copies are the caller's, and detach() is the explicit way to write
    assert np.asarray(x).sum() == 6.0 and np.array(x).flags.writeable
    d = np.asarray(x.detach())
    d[0] = 5.0
    assert x[0].item() == 5.0 and d.flags.writeable
    with strided.no_grad():
        assert np.asarray(x.detach()[1:]).flags.writeable
    assert np.asarray(x.grad).flags.writeable  # the gradient itself does not require grad


# =============================================================================================
# Python numbers, len, iter
# =============================================================================================


def test_tolist_matches_numpy(rng):
    for dtype in ALL_DTYPES:
        vals = make_values((2, 3), dtype, rng)
        t = strided.asarray(vals)
        assert t.tolist() == vals.tolist() or dtype.kind in "fc"  # nan != nan
        np.testing.assert_array_equal(np.asarray(t.T.tolist()), vals.T)
    assert strided.asarray(2.5).tolist() == 2.5
    assert strided.zeros((2, 0)).tolist() == [[], []]


def test_item_and_scalar_conversions():
    assert strided.asarray([[7]]).item() == 7
    assert isinstance(strided.asarray([[7]]).item(), int)
    assert strided.asarray(True).item() is True
    assert strided.asarray(1 + 2j).item() == 1 + 2j
    assert int(strided.asarray(2.7)) == 2
    assert float(strided.asarray(3)) == 3.0
    assert complex(strided.asarray(1.5)) == 1.5 + 0j
    assert bool(strided.asarray([0])) is False
    assert bool(strided.asarray([[3]])) is True
    assert [10, 20, 30][strided.asarray(1)] == 20
    assert [10, 20, 30][strided.asarray(2, dtype="uint8")] == 30
    assert strided.arange(5)[strided.asarray(3)].item() == 3


def test_scalar_conversion_errors():
    x = strided.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*ambiguous"):
        bool(x)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(strided.zeros(0))
    with pytest.raises(TypeError, match="only a tensor with one element"):
        int(x)
    with pytest.raises(TypeError, match="only a tensor with one element"):
        float(x)
    with pytest.raises(TypeError, match="only a tensor with one element"):
        complex(x)
    with pytest.raises(ValueError, match=r"item\(\): only a tensor with one element"):
        x.item()
    with pytest.raises(TypeError, match="only 0-d integer tensors can be used as an index"):
        [1, 2][strided.asarray(1.0)]
    with pytest.raises(TypeError, match="only 0-d integer tensors"):
        [1, 2][strided.asarray([1])]


def test_len_and_iter():
    x = strided.arange(6).reshape(3, 2)
    assert len(x) == 3
    rows = list(x)
    assert len(rows) == 3 and all(r.shape == (2,) for r in rows)
    assert all(r.untyped_storage() is x.untyped_storage() for r in rows)
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    assert list(strided.zeros((0, 2))) == []
    z = strided.asarray(1.0)
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor"):
        len(z)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(z)


# =============================================================================================
# The Array API namespace
# =============================================================================================


def test_array_namespace():
    x = strided.zeros(2)
    assert x.__array_namespace__() is strided
    assert x.__array_namespace__(api_version="2024.12") is strided
    assert x.__array_namespace__(api_version="2023.12") is strided
    assert x.__array_namespace__(api_version="2025.12") is strided
    for bad in ("2021.12", "2026.12", 2025.12):
        with pytest.raises(ValueError, match=f"api_version {bad!r} is not supported.*2025.12"):
            x.__array_namespace__(api_version=bad)
    assert strided.__array_api_version__ == "2025.12"


# =============================================================================================
# pickle and copy
# =============================================================================================


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_pickle_round_trip(dtype, rng):
    vals = make_values((3, 4), dtype, rng)
    x = strided.asarray(vals)
    for t, ref in [
        (x, vals),
        (x.T[::-1, 1:], vals.T[::-1, 1:]),
        (x[1, 2], vals[1, 2, ...]),
        (x[:, :0], vals[:, :0]),
    ]:
        for protocol in (2, pickle.HIGHEST_PROTOCOL):
            back = pickle.loads(pickle.dumps(t, protocol=protocol))
            assert isinstance(back, strided.Tensor)
            assert back.dtype is dtype and back.shape == t.shape
            assert back.untyped_storage() is not t.untyped_storage()
            np.testing.assert_array_equal(np.asarray(back), ref, strict=True)


def test_pickle_keeps_requires_grad():
    t = strided.ones(2)
    t.requires_grad = True
    assert pickle.loads(pickle.dumps(t)).requires_grad


def test_deepcopy_and_copy_make_new_storage():
    x = strided.arange(6.0).reshape(2, 3).T
    for c in (copy.deepcopy(x), copy.copy(x)):
        assert c.untyped_storage() is not x.untyped_storage()
        np.testing.assert_array_equal(np.asarray(c), np.asarray(x), strict=True)
        c[0, 0] = 99.0
        assert x[0, 0].item() == 0.0
    # deepcopy keeps identity inside containers
    pair = copy.deepcopy([x, x])
    assert pair[0] is pair[1]


def test_storage_and_device_objects():
    s = strided.arange(6).untyped_storage()
    assert s.nbytes == 48 and len(s) == 48
    with pytest.raises(TypeError, match="pickled through a tensor"):
        pickle.dumps(s)
    d = strided.device("cpu")
    assert pickle.loads(pickle.dumps(d)) is d
    assert d == "cpu" and str(d) == "cpu" and repr(d) == "device(type='cpu')"


# =============================================================================================
# repr and explain
# =============================================================================================


def test_repr_shows_values_and_non_default_dtype():
    r = repr(strided.asarray([1, 2, 3], dtype="int32"))
    assert r.startswith("tensor(") and "1, 2, 3" in r and "dtype=strided.int32" in r
    assert repr(strided.asarray([1.5, 2.0])) == "tensor([1.5, 2. ])"
    assert "dtype" not in repr(strided.asarray([1, 2]))  # int64 is a default
    assert "dtype=strided.float32" in repr(strided.asarray([1.5], dtype="float32"))
    assert "True" in repr(strided.asarray([True, False]))
    assert str(strided.asarray(2)) == repr(strided.asarray(2))


def test_explain_mentions_contiguity():
    x = strided.arange(6).reshape(2, 3)
    assert "contiguous" in x.explain()
    assert "contiguous" in x.T.explain()
    assert "strides (1, 3)" in x.T.explain()


# =============================================================================================
# Geometry accessors
# =============================================================================================


def test_size_is_an_int_and_a_method():
    x = strided.zeros((2, 3, 4))
    assert x.size == 24 and isinstance(x.size, int)
    assert x.size() == (2, 3, 4)
    assert x.size(1) == 3 and x.size(-1) == 4
    with pytest.raises(IndexError, match="dim out of range"):
        x.size(3)
    z = strided.zeros(())
    assert z.size == 1 and z.size() == ()
    with pytest.raises(IndexError, match="dim out of range"):
        z.size(0)
    assert strided.zeros((2, 0)).size == 0


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_geometry_accessors(dtype):
    x = strided.zeros((3, 4, 5), dtype=dtype)
    item = to_numpy_dtype(dtype).itemsize
    v = x[1:, ::-2].transpose(0, 2)
    ref = np.zeros((3, 4, 5), to_numpy_dtype(dtype))[1:, ::-2].transpose(2, 1, 0)
    assert v.shape == ref.shape and v.ndim == 3 and v.dim() == 3
    assert v.numel() == ref.size
    assert v.stride() == tuple(s // item for s in ref.strides)
    assert v.strides == ref.strides
    assert v.stride(0) == 1 and v.stride(-1) == 20
    assert v.storage_offset() == 20 + 3 * 5
    assert v.data_ptr() == x.data_ptr() + v.storage_offset() * item
    assert v.element_size() == v.itemsize == item
    assert v.nbytes == v.numel() * item
    assert not v.is_contiguous() and x.is_contiguous()
    assert v.device == "cpu" and v.device == strided.device("cpu")
    assert v.is_cpu and not v.is_cuda
    assert x.untyped_storage().nbytes == 60 * item


def test_contiguity_ignores_size_one_and_empty_dims():
    x = strided.zeros((3, 1, 4))
    assert x.transpose(0, 1).is_contiguous()
    assert x[:, :, :0].is_contiguous()
    assert strided.zeros(()).is_contiguous()
    assert not x[:, :, ::2].is_contiguous()


def test_stride_of_0d():
    with pytest.raises(IndexError, match="0-d tensor has no dims"):
        strided.zeros(()).stride(0)
    assert strided.zeros(()).stride() == ()
