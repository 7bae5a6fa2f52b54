"""Tests for strided/_dlpack.pyx: zero-copy DLPack export and import, NumPy as the oracle.

Only ``strided._core`` and ``strided._dlpack`` are used for now; a ``ctypes`` mirror of
``dlpack.h`` reads the capsules strided makes and crafts the odd ones NumPy cannot (CUDA,
bfloat16, vector lanes, DLPack 2.0). See Note [DLPack] in strided/_dlpack.pyx.
"""

import ctypes
import gc
import sys
import weakref

import numpy as np
import pytest

import strided
from strided import _core as c
from strided import _dlpack as d

ALL_DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


# ---------------------------------------------------------------------------------------------
# dlpack.h v1.0 in ctypes
# ---------------------------------------------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


READ_ONLY, IS_COPIED = 1, 2

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# A capsule keeps a pointer to its name: these bytes objects must outlive every capsule.
_NAMES = {
    n: ctypes.create_string_buffer(n)
    for n in (
        b"dltensor",
        b"dltensor_versioned",
        b"used_dltensor",
        b"used_dltensor_versioned",
        b"something_else",
    )
}


def capsule_name(cap):
    return _api.PyCapsule_GetName(cap).decode()


def managed(cap, versioned):
    kind = DLManagedTensorVersioned if versioned else DLManagedTensor
    ptr = _api.PyCapsule_GetPointer(cap, capsule_name(cap).encode())
    return kind.from_address(ptr)


class Exporter:
    """The ``__dlpack__`` protocol over strided's functions (``strided.Tensor`` will do this)."""

    def __init__(self, t, legacy_only=False):
        self.t = t
        self.legacy_only = legacy_only

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if self.legacy_only:
            max_version = None
        return d.to_dlpack(self.t, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return d.dlpack_device(self.t)


def values(shape, dtype):
    a = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    if dtype == "bool":
        return a % 3 == 0
    if np.dtype(dtype).kind == "c":
        return (a + 1j * (a + 1)).astype(dtype)
    return a.astype(dtype)


def strided_tensor(shape, dtype):
    t = c._empty(shape, dtype)
    np.asarray(t)[...] = values(shape, dtype)
    return t


def view(t, offset, shape, strides):
    """A strided view of ``t``'s storage and its NumPy twin (strides in elements)."""
    v = c._from_parts(t.untyped_storage(), offset, shape, strides, t.dtype)
    base = np.asarray(t).reshape(-1)
    item = base.itemsize
    twin = np.lib.stride_tricks.as_strided(
        base[offset:] if offset < base.size else base[:0], shape, [s * item for s in strides]
    )
    return v, twin


def readonly_tensor(arr):
    """A strided tensor over NumPy's memory whose storage is marked read-only."""
    s = c.Storage._wrap(arr.ctypes.data, arr.nbytes, arr, "cpu", False)
    return c._from_parts(s, 0, arr.shape, [x // arr.itemsize for x in arr.strides], arr.dtype.name)


def capsule_for(arr, versioned):
    return arr.__dlpack__(max_version=(1, 0)) if versioned else arr.__dlpack__()


def address_range(arr):
    """The lowest and highest byte addresses of elements of ``arr`` (non-empty)."""
    steps = [(n - 1) * s for n, s in zip(arr.shape, arr.strides, strict=True)]
    lo = arr.ctypes.data + sum(min(0, x) for x in steps)
    hi = arr.ctypes.data + sum(max(0, x) for x in steps)
    return lo, hi


# ---------------------------------------------------------------------------------------------
# export: strided -> capsule -> NumPy
# ---------------------------------------------------------------------------------------------


def test_struct_sizes_match_dlpack_h():
    assert ctypes.sizeof(DLTensor) == 48
    assert ctypes.sizeof(DLManagedTensor) == 64
    assert ctypes.sizeof(DLManagedTensorVersioned) == 80


@pytest.mark.parametrize(
    "max_version, name",
    [
        (None, "dltensor"),
        ((0, 8), "dltensor"),
        ((1, 0), "dltensor_versioned"),
        ((1, 3), "dltensor_versioned"),
        ((2, 0), "dltensor_versioned"),
    ],
)
def test_capsule_kind_follows_max_version(max_version, name):
    t = strided_tensor((2, 3), "float32")
    assert capsule_name(d.to_dlpack(t, max_version=max_version)) == name


def test_capsule_fields():
    t = strided_tensor((4, 5), "int16")
    v, _ = view(t, 19, (4, 5), (-5, -1))
    for versioned in (False, True):
        cap = d.to_dlpack(v, max_version=(1, 0) if versioned else None)
        m = managed(cap, versioned)
        dl = m.dl_tensor
        assert dl.data == v.data_ptr() and dl.byte_offset == 0
        assert (dl.device.device_type, dl.device.device_id) == (1, 0)
        assert dl.ndim == 2
        assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (0, 16, 1)
        assert [dl.shape[i] for i in range(2)] == [4, 5]
        assert [dl.strides[i] for i in range(2)] == [-5, -1]
        if versioned:
            assert (m.version.major, m.version.minor) == (1, 0)
            assert m.flags == 0


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("legacy", [False, True])
def test_export_to_numpy_shares_memory(dtype, legacy):
    t = strided_tensor((2, 3), dtype)
    a = np.from_dlpack(Exporter(t, legacy_only=legacy))
    assert a.dtype == np.dtype(dtype)
    assert a.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(a, values((2, 3), dtype))
    # NumPy marks arrays from legacy capsules read-only (they cannot say), so write on our side.
    assert a.flags.writeable == (not legacy)
    np.asarray(t)[1, 2] = np.asarray(t)[0, 1]
    assert a[1, 2] == a[0, 1]


@pytest.mark.parametrize(
    "offset, shape, strides",
    [
        (0, (5, 4), (1, 5)),  # transposed
        (1, (2, 3), (10, 2)),  # stepped
        (19, (4, 5), (-5, -1)),  # negative strides
        (4, (4, 5), (5, -1)),  # one negative stride
        (0, (3, 5), (0, 1)),  # expanded
        (7, (), ()),  # 0-d
        (0, (0, 5), (5, 1)),  # empty
        (3, (2, 0, 4), (0, 1, -1)),  # empty with odd strides
    ],
)
@pytest.mark.parametrize("legacy", [False, True])
def test_export_layouts(offset, shape, strides, legacy):
    t = strided_tensor((4, 5), "float64")
    v, twin = view(t, offset, shape, strides)
    a = np.from_dlpack(Exporter(v, legacy_only=legacy))
    assert a.shape == shape
    assert a.strides == tuple(s * 8 for s in strides)
    if a.size:
        assert a.ctypes.data == v.data_ptr()
    np.testing.assert_array_equal(a, twin)


def test_export_read_only():
    arr = np.arange(6.0).reshape(2, 3)
    t = readonly_tensor(arr)
    cap = d.to_dlpack(t, max_version=(1, 0))
    assert managed(cap, True).flags & READ_ONLY
    a = np.from_dlpack(Exporter(t))
    assert not a.flags.writeable
    np.testing.assert_array_equal(a, arr)
    with pytest.raises(BufferError, match="read-only"):
        d.to_dlpack(t)
    with pytest.raises(BufferError, match="read-only"):
        np.from_dlpack(Exporter(t, legacy_only=True))


def test_export_copy_flag():
    t = strided_tensor((3,), "float32")
    assert managed(d.to_dlpack(t, max_version=(1, 0), copy=True), True).flags == IS_COPIED
    assert managed(d.to_dlpack(t, max_version=(1, 0), copy=False), True).flags == 0


def test_dlpack_device():
    t = strided_tensor((3,), "float32")
    assert d.dlpack_device(t) == (1, 0)
    assert d.dlpack_device(t)[0] is d.DLDeviceType.kDLCPU


def test_export_dl_device():
    t = strided_tensor((3,), "float32")
    assert capsule_name(d.to_dlpack(t, dl_device=(1, 0))) == "dltensor"
    assert capsule_name(d.to_dlpack(t, dl_device=(d.DLDeviceType.kDLCPU, 0))) == "dltensor"
    np.testing.assert_array_equal(np.from_dlpack(Exporter(t), device="cpu"), np.asarray(t))
    with pytest.raises(BufferError, match=r"cpu.*\(2, 0\)"):
        d.to_dlpack(t, dl_device=(2, 0))
    with pytest.raises(TypeError, match="dl_device"):
        d.to_dlpack(t, dl_device="cpu")


def test_export_bad_max_version():
    t = strided_tensor((3,), "float32")
    with pytest.raises(TypeError, match="max_version"):
        d.to_dlpack(t, max_version=1)
    with pytest.raises(TypeError, match="max_version"):
        d.to_dlpack(t, max_version=("a", "b"))


def test_unconsumed_capsule_releases_tensor():
    for versioned in (False, True):
        t = strided_tensor((2, 3), "float32")
        before = sys.getrefcount(t)
        ref = weakref.ref(t)
        cap = d.to_dlpack(t, max_version=(1, 0) if versioned else None)
        assert sys.getrefcount(t) == before + 1
        del t
        gc.collect()
        assert ref() is not None  # the capsule keeps the tensor alive
        del cap
        gc.collect()
        assert ref() is None  # and lets it go when it dies unconsumed


def test_consumer_lifetime_and_single_delete():
    """NumPy consumes the capsule: the tensor lives as long as NumPy's array, no longer."""
    t = strided_tensor((2, 3), "float32")
    ref = weakref.ref(t)
    cap = d.to_dlpack(t, max_version=(1, 0))
    a = np.from_dlpack(Exporter(t))
    del t
    gc.collect()
    assert ref() is not None
    del cap  # unconsumed: its own deleter runs, NumPy's view survives
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(a, values((2, 3), "float32"))
    del a
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("versioned", [False, True])
def test_deleter_without_gil(versioned):
    """A consumer may call the deleter from a thread without the GIL (ctypes releases it)."""
    t = strided_tensor((2, 3), "float32")
    ref = weakref.ref(t)
    cap = d.to_dlpack(t, max_version=(1, 0) if versioned else None)
    m = managed(cap, versioned)
    ptr = ctypes.addressof(m)
    deleter = DELETER(m.deleter)
    name = b"used_dltensor_versioned" if versioned else b"used_dltensor"
    assert _api.PyCapsule_SetName(cap, _NAMES[name]) == 0  # we are the consumer now
    del t, m
    gc.collect()
    assert ref() is not None
    deleter(ptr)  # CFUNCTYPE calls release the GIL
    gc.collect()
    assert ref() is None
    del cap  # consumed: the capsule must not delete again


# ---------------------------------------------------------------------------------------------
# import: NumPy -> capsule -> strided
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("versioned", [False, True])
def test_import_from_numpy_shares_memory(dtype, versioned):
    arr = values((2, 3), dtype)
    cap = capsule_for(arr, versioned)
    t = d.from_dlpack_capsule(cap)
    assert capsule_name(cap) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert t.dtype == np.dtype(dtype)
    assert t.shape == (2, 3) and t.stride() == (3, 1) and t.storage_offset() == 0
    assert t.data_ptr() == arr.ctypes.data
    assert t.untyped_storage().writable
    np.testing.assert_array_equal(np.asarray(t), arr)
    arr[0, 1] = arr[1, 2]
    assert np.asarray(t)[0, 1] == arr[1, 2]


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a[:, ::-1],
        lambda a: a.T,
        lambda a: a[::2, 1::2],
        lambda a: a[::-1, ::-2],
        lambda a: a[::-1].T[1:3],
        lambda a: a[1, 2, ...],  # 0-d view
        lambda a: a[:, 2:2],  # empty
        lambda a: np.empty((0,)),
    ],
    ids=[
        "flip-last",
        "transposed",
        "stepped",
        "negative",
        "neg-transposed",
        "0-d",
        "empty",
        "empty-fresh",
    ],
)
@pytest.mark.parametrize("versioned", [False, True])
def test_import_layouts(make, versioned):
    arr = make(np.arange(20.0).reshape(4, 5))
    t = d.from_dlpack_capsule(capsule_for(arr, versioned))
    assert t.shape == arr.shape
    assert t.stride() == tuple(s // arr.itemsize for s in arr.strides)
    np.testing.assert_array_equal(np.asarray(t), arr)
    s = t.untyped_storage()
    if arr.size:
        assert t.data_ptr() == arr.ctypes.data
        # The storage starts at the lowest touched address and ends after the highest.
        lo, hi = address_range(arr)
        assert s.data_ptr() == lo
        assert s.nbytes == hi + arr.itemsize - s.data_ptr()
        assert t.storage_offset() * arr.itemsize == arr.ctypes.data - s.data_ptr()
        arr[...] = -1.0
        assert (np.asarray(t) == -1.0).all()
    else:
        assert s.nbytes == 0 and t.numel() == 0


def test_import_broadcast_read_only():
    arr = np.broadcast_to(np.arange(3.0), (4, 3))  # stride 0 and read-only in NumPy
    t = d.from_dlpack_capsule(arr.__dlpack__(max_version=(1, 0)))
    assert t.stride() == (0, 1)
    assert not t.untyped_storage().writable
    assert t.untyped_storage().nbytes == 24
    np.testing.assert_array_equal(np.asarray(t), arr)


def test_import_read_only():
    arr = np.arange(6.0)
    arr.flags.writeable = False
    t = d.from_dlpack_capsule(arr.__dlpack__(max_version=(1, 0)))
    assert not t.untyped_storage().writable
    assert not np.asarray(t).flags.writeable
    with pytest.raises(BufferError):  # NumPy itself refuses a legacy export of read-only data
        arr.__dlpack__()


@pytest.mark.parametrize("versioned", [False, True])
def test_import_keeps_producer_alive(versioned):
    arr = np.arange(6.0)
    ref = weakref.ref(arr)
    t = d.from_dlpack_capsule(capsule_for(arr, versioned))
    v = c._from_parts(t.untyped_storage(), 1, (2,), (2,), "float64")  # a view of the import
    del arr, t
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(np.asarray(v), [1.0, 3.0])
    del v
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("versioned", [False, True])
def test_capsule_consumed_twice(versioned):
    cap = capsule_for(np.arange(3.0), versioned)
    d.from_dlpack_capsule(cap)
    with pytest.raises(ValueError, match="already consumed.*__dlpack__"):
        d.from_dlpack_capsule(cap)
    cap = d.to_dlpack(strided_tensor((3,), "int32"), max_version=(1, 0) if versioned else None)
    d.from_dlpack_capsule(cap)
    with pytest.raises(ValueError, match="already consumed"):
        d.from_dlpack_capsule(cap)


def test_import_not_a_capsule():
    with pytest.raises(TypeError, match="PyCapsule"):
        d.from_dlpack_capsule(np.arange(3))
    cap = _api.PyCapsule_New(1, _NAMES[b"something_else"], None)
    with pytest.raises(ValueError, match="something_else.*not a DLPack capsule"):
        d.from_dlpack_capsule(cap)


@pytest.mark.parametrize("versioned", [False, True])
def test_import_float16_shares_memory(versioned):
    arr = np.arange(3, dtype=np.float16) / 3
    t = d.from_dlpack_capsule(capsule_for(arr, versioned))
    assert t.dtype is strided.float16
    np.testing.assert_array_equal(np.asarray(t), arr)
    arr[0] = 7
    assert t[0].item() == 7  # one memory


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_round_trip_with_pytorch(dtype):
    torch = pytest.importorskip("torch")
    src = torch.linspace(-3, 3, 12, dtype=getattr(torch, dtype)).reshape(3, 4).T  # transposed
    t = strided.from_dlpack(src)
    assert t.dtype is getattr(strided, dtype) and t.stride() == src.stride()
    back = torch.from_dlpack(t)
    assert back.dtype == src.dtype and torch.equal(back, src)
    # the bits are the same bits: compare through float32 (exact for both)
    np.testing.assert_array_equal(np.asarray(t.astype("float32")), src.float().numpy())


@pytest.mark.parametrize("versioned", [False, True])
def test_round_trip_through_strided_shares_storage(versioned):
    t = strided_tensor((4, 5), "complex64")
    v, twin = view(t, 19, (4, 5), (-5, -1))
    u = d.from_dlpack_capsule(d.to_dlpack(v, max_version=(1, 0) if versioned else None))
    assert u.untyped_storage() is t.untyped_storage()  # one version counter for both
    assert (u.shape, u.stride(), u.storage_offset()) == (v.shape, v.stride(), v.storage_offset())
    np.testing.assert_array_equal(np.asarray(u), twin)


def test_round_trip_strided_numpy_strided():
    t = strided_tensor((3, 4), "uint16")
    v, twin = view(t, 3, (3, 4), (4, -1))
    a = np.from_dlpack(Exporter(v))
    u = d.from_dlpack_capsule(a.__dlpack__(max_version=(1, 0)))
    assert u.data_ptr() == v.data_ptr()
    np.testing.assert_array_equal(np.asarray(u), twin)
    ref = weakref.ref(v)
    del t, v, a, twin
    gc.collect()
    assert ref() is not None  # u -> NumPy's array -> our manager -> v
    del u
    gc.collect()
    assert ref() is None


# ---------------------------------------------------------------------------------------------
# import: hand-made capsules for what NumPy cannot produce
# ---------------------------------------------------------------------------------------------


class Crafted:
    """A DLPack capsule built by hand in ctypes, with a deleter that counts its calls."""

    def __init__(
        self,
        data,
        shape,
        strides,
        *,
        code=2,
        bits=64,
        lanes=1,
        device=(1, 0),
        versioned=False,
        version=(1, 0),
        flags=0,
        byte_offset=0,
    ):
        self.calls = 0
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(len(shape), 1))(*strides)
        self.deleter = DELETER(self._delete)
        m = (DLManagedTensorVersioned if versioned else DLManagedTensor)()
        dl = m.dl_tensor
        dl.data = data
        dl.device = DLDevice(*device)
        dl.ndim = len(shape)
        dl.dtype = DLDataType(code, bits, lanes)
        dl.shape = self.shape
        dl.strides = self.strides
        dl.byte_offset = byte_offset
        m.deleter = ctypes.cast(self.deleter, ctypes.c_void_p)
        if versioned:
            m.version = DLPackVersion(*version)
            m.flags = flags
        self.m = m
        name = _NAMES[b"dltensor_versioned" if versioned else b"dltensor"]
        self.capsule = _api.PyCapsule_New(ctypes.addressof(m), name, None)

    def _delete(self, ptr):
        assert ptr == ctypes.addressof(self.m)
        self.calls += 1


@pytest.mark.parametrize("versioned", [False, True])
def test_crafted_deleter_called_once_when_last_view_dies(versioned):
    arr = np.arange(12.0)
    cr = Crafted(arr.ctypes.data, (3, 4), None, versioned=versioned)  # NULL strides
    t = d.from_dlpack_capsule(cr.capsule)
    assert t.stride() == (4, 1)
    np.testing.assert_array_equal(np.asarray(t), arr.reshape(3, 4))
    v = c._from_parts(t.untyped_storage(), 2, (2,), (1,), "float64")
    del t
    gc.collect()
    assert cr.calls == 0
    del v
    gc.collect()
    assert cr.calls == 1
    del cr.capsule  # consumed: the (destructor-less) capsule does nothing
    gc.collect()
    assert cr.calls == 1


def test_crafted_byte_offset():
    arr = np.arange(12.0)
    cr = Crafted(arr.ctypes.data, (2, 2), (-4, 1), byte_offset=5 * 8)
    t = d.from_dlpack_capsule(cr.capsule)
    assert t.data_ptr() == arr.ctypes.data + 40
    assert t.untyped_storage().data_ptr() == arr.ctypes.data + 8
    assert t.storage_offset() == 4
    np.testing.assert_array_equal(np.asarray(t), [[5.0, 6.0], [1.0, 2.0]])


def test_crafted_read_only_flag():
    arr = np.arange(3.0)
    cr = Crafted(arr.ctypes.data, (3,), (1,), versioned=True, flags=READ_ONLY)
    assert not d.from_dlpack_capsule(cr.capsule).untyped_storage().writable


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(device=(10, 0)), BufferError, "kDLROCM:0.*CPU and CUDA memory only"),
        (dict(device=(99, 1)), BufferError, "device type 99.*CPU and CUDA memory only"),
        (dict(code=4, bits=32), TypeError, "bfloat32"),
        (dict(code=2, bits=8), TypeError, "float8"),
        (dict(code=2, bits=32, lanes=4), TypeError, "float32x4"),
        (dict(code=6, bits=1), TypeError, "bool1"),
        (dict(code=3, bits=64), TypeError, "type code 3"),
        (dict(versioned=True, version=(2, 0)), BufferError, "DLPack 2.0"),
    ],
    ids=["rocm", "unknown-device", "bfloat32", "float8", "lanes", "bool1", "opaque", "v2"],
)
def test_crafted_refused_and_not_consumed(kwargs, error, match):
    arr = np.arange(3.0)
    cr = Crafted(arr.ctypes.data, (3,), (1,), **kwargs)
    with pytest.raises(error, match=match):
        d.from_dlpack_capsule(cr.capsule)
    assert not capsule_name(cr.capsule).startswith("used_")
    assert cr.calls == 0


def test_crafted_cuda_host_memory_is_cpu():
    arr = np.arange(3.0)
    cr = Crafted(arr.ctypes.data, (3,), (1,), device=(3, 0))  # kDLCUDAHost: pinned host memory
    t = d.from_dlpack_capsule(cr.capsule)
    assert t.device == "cpu"
    np.testing.assert_array_equal(np.asarray(t), arr)
