"""DLPack: hand a tensor's memory to another library (and take theirs) without copying a byte.

DLPack is a small C header (``dlpack.h``) that NumPy, PyTorch, CuPy, JAX and most array
libraries agree on: a ``DLTensor`` struct says where the data is (pointer, device), what it is
(dtype) and how it is laid out (shape, strides in elements). The Array API standard builds its
interop on it: ``y = lib.from_dlpack(x)`` calls ``x.__dlpack__()`` for a capsule and
``x.__dlpack_device__()`` for the device. This module is the compiled half of both directions;
``Tensor.__dlpack__``, ``Tensor.__dlpack_device__`` and ``strided.from_dlpack`` are thin glue
around ``to_dlpack``, ``dlpack_device`` and ``from_dlpack_capsule``.

Note [DLPack]
~~~~~~~~~~~~~
Two libraries that share memory must agree on who frees it and when. DLPack's answer is a
handshake through a ``PyCapsule`` (a Python object that carries one C pointer and a name):

1. The *producer* (``x.__dlpack__()``) mallocs a *manager* struct: a ``DLTensor`` describing
   the memory, a ``manager_ctx`` (here: a strong reference to the exported tensor, which keeps
   its Storage alive) and a ``deleter`` function that undoes both. It returns the manager inside
   a capsule named ``"dltensor"`` (``"dltensor_versioned"`` for DLPack >= 1.0).
2. The *consumer* (``from_dlpack``) reads the struct, builds its own array over the same
   pointer, and *renames* the capsule to ``"used_dltensor"`` (``"used_dltensor_versioned"``).
   From then on the consumer owns the manager: when its last array over that memory dies it
   calls ``manager->deleter(manager)``, which drops the producer's reference.
3. The capsule's own destructor runs whenever the capsule object dies. It calls the deleter
   only if the capsule still has its original name, i.e. nobody consumed it.

The rename is what prevents a double free. Exactly one of two parties calls the deleter: the
capsule (never consumed: nobody else knows about the manager) or the consumer (consumed: the
renamed capsule's destructor sees "used_..." and does nothing). It also makes a capsule
single-use: a second ``from_dlpack_capsule`` on the same capsule finds the "used_" name and
refuses, instead of creating a second owner that would call the deleter a second time.

The deleter may be called from a thread that does not hold the GIL (a consumer freeing memory
from a C++ destructor, a CUDA callback), so ours takes the GIL before touching the reference.

Note [DLPack layout choices]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
- On export, ``data`` points at element [0, ..., 0] and ``byte_offset`` is 0, as NumPy, PyTorch
  and CuPy do on CPU and CUDA (the header's "data is 256-byte aligned" rule is, by the header's
  own admission, not followed by anyone; consumers must not rely on it).
- Strides are always written out (never NULL), in elements, and may be negative or zero.
- Shape and strides live in the same malloc block as the manager, right after the struct, so
  one ``free`` releases everything.
- A legacy (pre-1.0) capsule cannot say "read-only", so a read-only tensor is exported only as
  a versioned capsule (with ``DLPACK_FLAG_BITMASK_READ_ONLY``); asked for a legacy capsule, we
  raise BufferError as NumPy does, rather than let the consumer write into read-only memory.
- On import, the tensor's Storage starts at the *lowest* address any element touches (with
  negative strides that is not element [0, ..., 0]) and the storage offset points back at
  element [0, ..., 0], so the Storage's byte range is exactly the memory the view may touch.
- Host memory that a GPU runtime allocated (kDLCUDAHost, kDLROCMHost, kDLCUDAManaged) is
  ordinary CPU-addressable memory and is imported as a CPU tensor, as NumPy does.
- A capsule that strided itself produced is imported onto the *same* Storage object, not a new
  one wrapping the same pointer, so both tensors share the version counter that autograd
  checks (see Note [The version counter] in _storage.pyx).
"""

from enum import IntEnum

from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc

from strided._core cimport MAX_DIMS, Storage, TensorBase, as_device, make_tensor
from strided._dtype cimport (
    NUM_SCALAR_TYPES,
    DType,
    dtype_from_num,
    kBool,
    kComplex64,
    kComplex128,
    kBFloat16,
    kFloat16,
    kFloat32,
    kFloat64,
    kInt8,
    kUInt8,
)

__all__ = ["DLDeviceType", "to_dlpack", "dlpack_device", "from_dlpack_capsule"]


# =============================================================================================
# dlpack.h, v1.0, transcribed. The field order and types must match the header byte for byte:
# the other library reads these structs with its own copy of the header.
# =============================================================================================

ctypedef struct DLDevice:
    int32_t device_type      # a DLDeviceType (a C enum, which is an int32)
    int32_t device_id        # which GPU; 0 for the CPU

ctypedef struct DLDataType:
    uint8_t code             # a DLDataTypeCode: int, uint, float, ...
    uint8_t bits             # bits per lane: 8, 16, 32, 64, 128
    uint16_t lanes           # 1 for scalars; > 1 for SIMD vector types, which strided has not

ctypedef struct DLTensor:
    void* data               # device pointer to the memory (see Note [DLPack layout choices])
    DLDevice device
    int32_t ndim
    DLDataType dtype
    int64_t* shape           # ndim sizes
    int64_t* strides         # ndim strides in elements; NULL means row-major contiguous
    uint64_t byte_offset     # add to data for the first element

ctypedef struct DLManagedTensor:
    DLTensor dl_tensor
    void* manager_ctx
    void (*deleter)(DLManagedTensor* self) noexcept nogil

ctypedef struct DLPackVersion:
    uint32_t major
    uint32_t minor

ctypedef struct DLManagedTensorVersioned:
    DLPackVersion version
    void* manager_ctx
    void (*deleter)(DLManagedTensorVersioned* self) noexcept nogil
    uint64_t flags           # DLPACK_FLAG_BITMASK_*
    DLTensor dl_tensor

cdef enum:
    DLPACK_MAJOR_VERSION = 1
    DLPACK_MINOR_VERSION = 0

cdef enum DLDeviceTypeCode:   # the codes this file uses; DLDeviceType below has them all
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLROCM = 10
    kDLROCMHost = 11
    kDLCUDAManaged = 13

cdef enum DLDataTypeCode:
    kDLInt = 0
    kDLUInt = 1
    kDLFloat = 2
    kDLBfloat = 4
    kDLComplex = 5
    kDLBool = 6

cdef uint64_t DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
cdef uint64_t DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1


class DLDeviceType(IntEnum):
    """dlpack.h's DLDeviceType codes, as returned by ``__dlpack_device__`` (an int each)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


# The capsule API, declared over raw PyObject* so that the capsule destructor, which runs while
# the capsule is being deallocated (reference count 0), never creates a new reference to it.
ctypedef void (*_capsule_destructor_t)(PyObject*) noexcept

cdef extern from "Python.h":
    object _capsule_new "PyCapsule_New"(void* pointer, const char* name,
                                        _capsule_destructor_t destructor)
    bint _capsule_is_valid_raw "PyCapsule_IsValid"(PyObject* capsule, const char* name)
    void* _capsule_get_pointer_raw "PyCapsule_GetPointer"(PyObject* capsule, const char* name)
    bint _capsule_check "PyCapsule_CheckExact"(object o)
    bint _capsule_is_valid "PyCapsule_IsValid"(object capsule, const char* name)
    void* _capsule_get_pointer "PyCapsule_GetPointer"(object capsule,
                                                      const char* name) except? NULL
    const char* _capsule_get_name "PyCapsule_GetName"(object capsule) except? NULL
    int _capsule_set_name "PyCapsule_SetName"(object capsule, const char* name) except -1
    int Py_IsInitialized() nogil

# String literals: static C storage, so they outlive every capsule that points at them.
cdef const char* _LEGACY = "dltensor"
cdef const char* _LEGACY_USED = "used_dltensor"
cdef const char* _VERSIONED = "dltensor_versioned"
cdef const char* _VERSIONED_USED = "used_dltensor_versioned"


# =============================================================================================
# Export: tensor -> capsule. See Note [DLPack].
# =============================================================================================

# The DLPack type code of each ScalarType, in the order of _dtype.pxd (bits = 8 * itemsize).
cdef uint8_t _DL_CODE[NUM_SCALAR_TYPES]
_DL_CODE[:] = [kDLBool, kDLInt, kDLInt, kDLInt, kDLInt, kDLUInt, kDLUInt, kDLUInt, kDLUInt,
               kDLFloat, kDLFloat, kDLComplex, kDLComplex, kDLFloat, kDLBfloat]


cdef void _deleter_legacy(DLManagedTensor* self) noexcept nogil:
    """Release what ``to_dlpack`` allocated for a legacy capsule: the tensor, then the block."""
    if self == NULL:
        return
    # During interpreter shutdown there is no GIL to take: leak, rather than crash.
    if Py_IsInitialized():
        with gil:
            Py_XDECREF(<PyObject*>self.manager_ctx)
    free(self)


cdef void _deleter_versioned(DLManagedTensorVersioned* self) noexcept nogil:
    """Release what ``to_dlpack`` allocated for a versioned capsule."""
    if self == NULL:
        return
    if Py_IsInitialized():
        with gil:
            Py_XDECREF(<PyObject*>self.manager_ctx)
    free(self)


cdef void _capsule_destructor_legacy(PyObject* capsule) noexcept:
    """Free an unconsumed legacy capsule's manager; a consumed ("used_") one is not ours."""
    cdef DLManagedTensor* m
    if _capsule_is_valid_raw(capsule, _LEGACY):
        m = <DLManagedTensor*>_capsule_get_pointer_raw(capsule, _LEGACY)
        if m.deleter != NULL:
            m.deleter(m)


cdef void _capsule_destructor_versioned(PyObject* capsule) noexcept:
    """Free an unconsumed versioned capsule's manager; a consumed one is not ours."""
    cdef DLManagedTensorVersioned* m
    if _capsule_is_valid_raw(capsule, _VERSIONED):
        m = <DLManagedTensorVersioned*>_capsule_get_pointer_raw(capsule, _VERSIONED)
        if m.deleter != NULL:
            m.deleter(m)


cdef tuple _device_tuple(TensorBase t):
    dev = t._storage.device
    if dev.is_cpu:
        return (DLDeviceType.kDLCPU, 0)
    if dev.type == "cuda":
        return (DLDeviceType.kDLCUDA, int(dev.index))
    raise BufferError(f"DLPack: strided does not know the DLPack code of device {dev}")


def dlpack_device(TensorBase t):
    """``(device_type, device_id)`` of ``t`` in DLPack's terms: ``(kDLCPU, 0)``, ``(kDLCUDA, i)``.

    Examples
    --------
    >>> import strided._core as c, strided._dlpack as d
    >>> d.dlpack_device(c._empty((2,), "float32"))
    (<DLDeviceType.kDLCPU: 1>, 0)
    """
    return _device_tuple(t)


cdef void _fill_dltensor(DLTensor* dl, TensorBase t, int64_t* shape, int64_t* strides,
                         int32_t device_type, int32_t device_id) noexcept:
    cdef int i
    dl.data = <void*>t._data()
    dl.device.device_type = device_type
    dl.device.device_id = device_id
    dl.ndim = t._ndim
    dl.dtype.code = _DL_CODE[t.dtype.num]
    dl.dtype.bits = <uint8_t>(t.dtype.itemsize * 8)
    dl.dtype.lanes = 1
    dl.shape = shape
    dl.strides = strides
    dl.byte_offset = 0
    for i in range(t._ndim):
        shape[i] = t._sizes[i]
        strides[i] = t._strides[i]


def to_dlpack(TensorBase t, *, max_version=None, dl_device=None, copy=None):
    """Export ``t`` as a DLPack capsule that shares its memory (never copies).

    This is the body of ``Tensor.__dlpack__`` (Array API semantics; ``stream`` is the caller's
    business, as strided has no CUDA streams yet). See Note [DLPack].

    Parameters
    ----------
    t : TensorBase
        The tensor to export. The capsule holds a reference to it until the consumer (or the
        capsule, if never consumed) calls the deleter.
    max_version : tuple of two ints, optional
        The newest DLPack version the consumer understands. None or a major version < 1 gives a
        legacy ``"dltensor"`` capsule (``DLManagedTensor``); (1, 0) or newer gives a
        ``"dltensor_versioned"`` capsule (``DLManagedTensorVersioned``, version 1.0), whose flags
        say whether the memory is read-only.
    dl_device : tuple of two ints, optional
        The device the consumer wants, as ``(device_type, device_id)``. Only ``t``'s own device
        is possible: another one raises BufferError naming both.
    copy : bool, optional
        This function never copies. ``copy=True`` is the caller's job: ``Tensor.__dlpack__``
        exports a fresh clone and passes ``copy=True``, and the versioned capsule then carries
        ``DLPACK_FLAG_BITMASK_IS_COPIED``. None and False export ``t``'s own memory.

    Returns
    -------
    PyCapsule
        To be consumed once by a ``from_dlpack``.

    Raises
    ------
    BufferError
        ``dl_device`` is not ``t``'s device, or a legacy capsule was asked for a read-only tensor
        (legacy DLPack cannot mark memory read-only).

    Examples
    --------
    >>> import numpy as np, strided._core as c, strided._dlpack as d
    >>> t = c._empty((2, 3), "float32")
    >>> d.to_dlpack(t, max_version=(1, 0))  # doctest: +ELLIPSIS
    <capsule object "dltensor_versioned" at 0x...>
    """
    cdef bint versioned = False
    cdef int ndim = t._ndim
    cdef size_t arrays = 2 * <size_t>ndim * sizeof(int64_t)
    cdef DLManagedTensor* legacy
    cdef DLManagedTensorVersioned* vers
    cdef int64_t* shape

    if max_version is not None:
        try:
            major, minor = max_version
            major = int(major)
            minor = int(minor)
        except (TypeError, ValueError):
            raise TypeError(
                f"__dlpack__: max_version must be None or a (major, minor) tuple of ints, "
                f"got {max_version!r}") from None
        versioned = major >= 1

    device_type, device_id = _device_tuple(t)
    if dl_device is not None:
        try:
            want_type, want_id = dl_device
            want = (int(want_type), int(want_id))
        except (TypeError, ValueError):
            raise TypeError(f"__dlpack__: dl_device must be None or a (device_type, device_id) "
                            f"tuple of ints, got {dl_device!r}") from None
        if want != (int(device_type), int(device_id)):
            raise BufferError(
                f"__dlpack__: cannot export a tensor on {t._storage.device} "
                f"(DLPack device {(int(device_type), int(device_id))}) to DLPack device {want}: "
                "strided exports only to the tensor's own device; move it first with .to()")

    if not versioned and not t._storage.writable:
        raise BufferError(
            "__dlpack__: this tensor is read-only and a legacy DLPack capsule (max_version=None "
            "or < (1, 0)) cannot mark memory read-only; ask for max_version=(1, 0), or export "
            "a writable copy (.clone())")

    if versioned:
        vers = <DLManagedTensorVersioned*>malloc(sizeof(DLManagedTensorVersioned) + arrays)
        if vers == NULL:
            raise MemoryError()
        shape = <int64_t*>(<char*>vers + sizeof(DLManagedTensorVersioned))
        vers.version.major = DLPACK_MAJOR_VERSION
        vers.version.minor = DLPACK_MINOR_VERSION
        vers.flags = 0
        if not t._storage.writable:
            vers.flags |= DLPACK_FLAG_BITMASK_READ_ONLY
        if copy:
            vers.flags |= DLPACK_FLAG_BITMASK_IS_COPIED
        _fill_dltensor(&vers.dl_tensor, t, shape, shape + ndim, device_type, device_id)
        Py_INCREF(t)
        vers.manager_ctx = <void*>t
        vers.deleter = _deleter_versioned
        try:
            return _capsule_new(vers, _VERSIONED, _capsule_destructor_versioned)
        except BaseException:
            _deleter_versioned(vers)
            raise

    legacy = <DLManagedTensor*>malloc(sizeof(DLManagedTensor) + arrays)
    if legacy == NULL:
        raise MemoryError()
    shape = <int64_t*>(<char*>legacy + sizeof(DLManagedTensor))
    _fill_dltensor(&legacy.dl_tensor, t, shape, shape + ndim, device_type, device_id)
    Py_INCREF(t)
    legacy.manager_ctx = <void*>t
    legacy.deleter = _deleter_legacy
    try:
        return _capsule_new(legacy, _LEGACY, _capsule_destructor_legacy)
    except BaseException:
        _deleter_legacy(legacy)
        raise


# =============================================================================================
# Import: capsule -> tensor. See Note [DLPack].
# =============================================================================================

cdef class _DLPackOwner:
    """Holds a consumed DLPack manager; calls the producer's deleter when the last view dies.

    A Storage made by ``from_dlpack_capsule`` keeps one of these as its ``owner``, so the
    producer's memory lives exactly as long as some strided tensor views it.
    """
    cdef void* manager
    cdef bint versioned

    def __dealloc__(self):
        cdef DLManagedTensor* legacy
        cdef DLManagedTensorVersioned* vers
        if self.manager == NULL:
            return
        if self.versioned:
            vers = <DLManagedTensorVersioned*>self.manager
            if vers.deleter != NULL:
                vers.deleter(vers)
        else:
            legacy = <DLManagedTensor*>self.manager
            if legacy.deleter != NULL:
                legacy.deleter(legacy)
        self.manager = NULL


cdef str _dl_dtype_name(DLDataType dt):
    """A readable name for a DLPack dtype, for error messages: float16, bfloat16, int32x4."""
    names = {kDLInt: "int", kDLUInt: "uint", kDLFloat: "float", kDLBfloat: "bfloat",
             kDLComplex: "complex", kDLBool: "bool"}
    name = names.get(dt.code, f"<DLPack type code {dt.code}>")
    name = f"{name}{dt.bits}"
    if dt.lanes != 1:
        name += f"x{dt.lanes}"
    return name


cdef int _bits_index(uint8_t bits) noexcept:
    """0, 1, 2, 3 for 8, 16, 32, 64 bits (the order of the int and uint rows); -1 otherwise."""
    if bits == 8:
        return 0
    if bits == 16:
        return 1
    if bits == 32:
        return 2
    if bits == 64:
        return 3
    return -1


cdef DType _dtype_from_dl(DLDataType dt):
    """The strided dtype of a DLPack dtype, or TypeError naming it."""
    cdef int num = -1
    if dt.lanes == 1:
        if dt.code == kDLBool and dt.bits == 8:
            num = kBool
        elif dt.code == kDLInt and _bits_index(dt.bits) >= 0:
            num = kInt8 + _bits_index(dt.bits)
        elif dt.code == kDLUInt and _bits_index(dt.bits) >= 0:
            num = kUInt8 + _bits_index(dt.bits)
        elif dt.code == kDLFloat and dt.bits == 16:
            num = kFloat16
        elif dt.code == kDLBfloat and dt.bits == 16:
            num = kBFloat16
        elif dt.code == kDLFloat and dt.bits == 32:
            num = kFloat32
        elif dt.code == kDLFloat and dt.bits == 64:
            num = kFloat64
        elif dt.code == kDLComplex and dt.bits == 64:
            num = kComplex64
        elif dt.code == kDLComplex and dt.bits == 128:
            num = kComplex128
    if num < 0:
        raise TypeError(
            f"from_dlpack: strided has no dtype for DLPack dtype {_dl_dtype_name(dt)}; "
            "supported: bool, int8-64, uint8-64, float16, bfloat16, float32, float64, complex64, "
            "complex128")
    return dtype_from_num(num)


cdef str _dl_device_name(DLDevice dev):
    try:
        name = DLDeviceType(dev.device_type).name
    except ValueError:
        name = f"DLPack device type {dev.device_type}"
    return f"{name}:{dev.device_id}"


cdef TensorBase _import_dltensor(object capsule, const char* used_name, _DLPackOwner owner,
                                 void* manager, DLTensor* dl, bint writable, object ours):
    """Check ``dl``, consume the capsule into ``owner``, and return a tensor over its memory.

    ``ours`` is the exported tensor when strided itself made the capsule, else None.
    """
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t numel = 1, lo = 0, hi = 0, acc = 1, nbytes = 0
    cdef int i, ndim = dl.ndim
    cdef char* data
    cdef Storage storage
    cdef TensorBase base

    # Everything is checked before the capsule is renamed: if we raise, the capsule is still
    # unconsumed and its own destructor frees the producer's memory.
    if dl.device.device_type not in (kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged,
                                     kDLCUDA):
        raise BufferError(
            f"from_dlpack: the tensor lives on {_dl_device_name(dl.device)}, and strided can "
            "import CPU and CUDA memory only; copy it to the host in the producing library "
            "first")
    cdef DType dtype = _dtype_from_dl(dl.dtype)
    if ndim < 0 or ndim > MAX_DIMS:
        raise BufferError(f"from_dlpack: ndim={ndim} is outside strided's range [0, {MAX_DIMS}]")
    if ndim > 0 and dl.shape == NULL:
        raise BufferError("from_dlpack: the DLPack tensor has ndim > 0 but no shape")
    for i in range(ndim - 1, -1, -1):
        if dl.shape[i] < 0:
            raise BufferError(
                f"from_dlpack: negative size {dl.shape[i]} in the DLPack tensor's shape")
        sizes[i] = <Py_ssize_t>dl.shape[i]
        if dl.strides == NULL:      # NULL strides: row-major contiguous
            strides[i] = acc
            acc *= sizes[i]
        else:
            strides[i] = <Py_ssize_t>dl.strides[i]
        numel *= sizes[i]

    # The elements the view touches lie in [lo, hi], in elements from element [0, ..., 0].
    data = <char*>dl.data + dl.byte_offset
    if numel > 0:
        for i in range(ndim):
            if strides[i] < 0:
                lo += (sizes[i] - 1) * strides[i]
            else:
                hi += (sizes[i] - 1) * strides[i]
        nbytes = (hi - lo + 1) * dtype.itemsize

    # Consume. The rename and the hand-over to ``owner`` happen back to back, so from here on
    # exactly one party (``owner``) calls the deleter, even if something below raises.
    _capsule_set_name(capsule, used_name)
    owner.manager = manager

    if ours is not None:
        # Our own capsule: view the very same Storage (see Note [DLPack layout choices]). The
        # manager is no longer needed; ``owner`` dies on return and calls the deleter.
        base = <TensorBase>ours
        return make_tensor(base._storage, base._offset + (data - base._data()) // dtype.itemsize,
                           ndim, sizes, strides, dtype)

    # GPU memory becomes a storage on "cuda:N" (Note [Device kinds] in _device.pyx)
    device = as_device("cpu")
    if dl.device.device_type == kDLCUDA:
        device = as_device(f"cuda:{dl.device.device_id}")
    storage = Storage._wrap(<uintptr_t>(data + lo * dtype.itemsize), nbytes, owner,
                            device, writable)
    return make_tensor(storage, -lo, ndim, sizes, strides, dtype)


def from_dlpack_capsule(capsule):
    """A tensor sharing the memory of a DLPack capsule from another library's ``__dlpack__``.

    Both capsule kinds are accepted (``"dltensor_versioned"`` from ``max_version=(1, 0)``, and
    legacy ``"dltensor"``). The capsule is consumed: it is renamed to ``"used_..."`` and the
    producer's memory is released when the last strided tensor viewing it is gone. See
    Note [DLPack].

    Raises
    ------
    TypeError
        ``capsule`` is not a PyCapsule, or its dtype has no strided equivalent (float16,
        bfloat16, vector lanes).
    ValueError
        The capsule was already consumed, or is not a DLPack capsule.
    BufferError
        The memory is not on the CPU, or the capsule's DLPack major version is newer than 1.

    Examples
    --------
    >>> import numpy as np, strided._dlpack as d
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> t = d.from_dlpack_capsule(a.__dlpack__(max_version=(1, 0)))
    >>> t.shape, t.stride(), t.data_ptr() == a.ctypes.data
    ((2, 3), (3, 1), True)
    """
    cdef DLManagedTensor* legacy
    cdef DLManagedTensorVersioned* vers
    cdef const char* name_ptr
    cdef object ours = None

    if not _capsule_check(capsule):
        raise TypeError(
            f"from_dlpack_capsule expects the PyCapsule returned by x.__dlpack__(), got "
            f"{type(capsule).__name__}")
    # The owner exists before the capsule is renamed, so that nothing can fail between the
    # rename and the moment someone is responsible for calling the deleter.
    cdef _DLPackOwner owner = _DLPackOwner.__new__(_DLPackOwner)

    if _capsule_is_valid(capsule, _VERSIONED):
        vers = <DLManagedTensorVersioned*>_capsule_get_pointer(capsule, _VERSIONED)
        if vers.version.major > DLPACK_MAJOR_VERSION:
            raise BufferError(
                f"from_dlpack: the capsule uses DLPack {vers.version.major}."
                f"{vers.version.minor}, and strided understands DLPack up to "
                f"{DLPACK_MAJOR_VERSION}.x; pass max_version=(1, 0) to __dlpack__")
        if vers.deleter == _deleter_versioned:
            ours = <object>vers.manager_ctx
        owner.versioned = True
        return _import_dltensor(capsule, _VERSIONED_USED, owner, vers, &vers.dl_tensor,
                                not (vers.flags & DLPACK_FLAG_BITMASK_READ_ONLY), ours)

    if _capsule_is_valid(capsule, _LEGACY):
        legacy = <DLManagedTensor*>_capsule_get_pointer(capsule, _LEGACY)
        if legacy.deleter == _deleter_legacy:
            ours = <object>legacy.manager_ctx
        owner.versioned = False
        return _import_dltensor(capsule, _LEGACY_USED, owner, legacy, &legacy.dl_tensor,
                                True, ours)

    name_ptr = _capsule_get_name(capsule)
    name = None if name_ptr == NULL else (<bytes>name_ptr).decode("utf-8", "replace")
    if name in ("used_dltensor", "used_dltensor_versioned"):
        raise ValueError(
            "this DLPack capsule was already consumed: a capsule can be imported only once; "
            "call x.__dlpack__() again")
    raise ValueError(
        f"from_dlpack_capsule: a capsule named {name!r} is not a DLPack capsule (expected "
        "'dltensor' or 'dltensor_versioned', as returned by x.__dlpack__())")
