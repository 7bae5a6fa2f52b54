"""Storage: one flat block of bytes on one device, shared by every tensor that views it
(PyTorch's ``c10/core/StorageImpl.h``).

A Storage knows its bytes (``data``, ``nbytes``), its device, who owns the memory (itself, or an
``owner`` it borrows from: a NumPy array, a DLPack producer, CuPy's pool) and the version counter.
It knows nothing of shapes or dtypes: that is the tensor's part (``_core.pyx``, Note [Storage and
views]). CPU bytes come from the allocator in ``_alloc.pyx``; device bytes from the allocator
that ``strided.cuda`` registers here (Note [Device kinds] in _device.pyx).

Note [The version counter]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``Storage.version`` counts in-place writes. It lives on the storage, so every view of the same
bytes sees the same counter. Autograd records the version when it saves a tensor for backward and
checks it when it uses it: a change means someone wrote into the saved values in the meantime.
"""

from libc.stdint cimport uintptr_t

from strided._alloc cimport ALIGNMENT, cpu_alloc, cpu_free
from strided._device cimport as_device, cpu_device


# =============================================================================================
# Storage. See Note [Storage and views] in _core.pyx and Note [Allocation] in _alloc.pyx.
# =============================================================================================

cdef class Storage:
    """A flat, aligned block of bytes on one device, shared by every tensor that views it.

    ``Storage(nbytes)`` allocates fresh CPU memory. Storages that borrow memory owned by another
    object (a NumPy array, a DLPack producer) are made with ``Storage._wrap``.

    Examples
    --------
    >>> import strided
    >>> s = strided.arange(6).untyped_storage()
    >>> s.nbytes, s.device
    (48, device(type='cpu'))
    """

    def __cinit__(self):
        self.data = NULL
        self._alloc = NULL
        self.writable = True
        self.device = cpu_device

    def __init__(self, Py_ssize_t nbytes, bint zero=False):
        if nbytes < 0:
            raise ValueError(f"Storage: nbytes must be >= 0, got {nbytes}")
        self._allocate(nbytes, zero)

    @staticmethod
    def _new(Py_ssize_t nbytes, device=None, bint zero=False):
        """A fresh storage of ``nbytes`` on ``device`` (on a GPU, through the registered
        allocator: see Note [Device kinds] in _device.pyx)."""
        return alloc_storage(nbytes, as_device(device), zero)

    cdef int _allocate(self, Py_ssize_t nbytes, bint zero) except -1:
        # Even an empty storage gets a real, aligned pointer: DLPack and the buffer protocol
        # hand the pointer out and some consumers reject NULL.
        cdef size_t n = <size_t>(nbytes if nbytes > 0 else ALIGNMENT)
        cdef void* p = cpu_alloc(&n, zero, &self._mmapped)   # see Note [Allocation]
        if p == NULL:
            raise MemoryError(f"could not allocate {nbytes} bytes for a tensor")
        self._alloc = p
        self._alloc_nbytes = <Py_ssize_t>n
        self.data = <char*>p
        self.nbytes = nbytes
        return 0

    @staticmethod
    def _wrap(uintptr_t ptr, Py_ssize_t nbytes, owner, device="cpu", bint writable=True):
        """A storage over ``nbytes`` at address ``ptr`` that belongs to ``owner``.

        ``owner`` is kept alive as long as the storage lives; nothing is freed by the storage.
        """
        cdef Storage s = Storage.__new__(Storage)
        s.data = <char*>ptr
        s.nbytes = nbytes
        s.owner = owner
        s.writable = writable
        s.device = as_device(device)
        if not _device_seen and not s.device.is_cpu:
            _first_device_storage()
        return s

    def __dealloc__(self):
        if self._alloc != NULL:
            cpu_free(self._alloc, <size_t>self._alloc_nbytes, self._mmapped)
            self._alloc = NULL

    def data_ptr(self):
        """The address of the first byte, as an int."""
        return <uintptr_t>self.data

    def __len__(self):
        return self.nbytes

    def __repr__(self):
        borrowed = f", borrowed from {type(self.owner).__name__}" if self.owner is not None else ""
        return f"<strided.Storage of {self.nbytes} bytes on {self.device}{borrowed}>"

    def __reduce__(self):
        raise TypeError("a Storage is pickled through a tensor that views it")


# =============================================================================================
# Device storages: the allocator strided.cuda registers (Note [Device kinds] in _device.pyx)
# =============================================================================================

cdef object _device_allocator = None
cdef dict _storage_makers = {}   # id(Device) -> make(nbytes, zero): Note [A device's allocator]
cdef bint _device_seen = False   # has any storage on a device other than the CPU been made?
cdef list _device_callbacks = []


def on_device_storage(fn):
    """Call ``fn()`` once, when the first storage on a device other than the CPU is made (now,
    if one was already). The dispatcher registers here (a higher layer registering with a lower
    one, DESIGN.md): from then on it must look for CUDA tensors in every call."""
    if _device_seen:
        fn()
    else:
        _device_callbacks.append(fn)


cdef int _first_device_storage() except -1:
    global _device_seen
    _device_seen = True
    for fn in _device_callbacks:
        fn()
    _device_callbacks.clear()
    return 0


def set_device_allocator(fn):
    """Called once by strided.cuda: ``fn(device, nbytes, zero)`` returns a Storage on a CUDA
    device. A low layer reaching a higher one through a registered function (DESIGN.md)."""
    global _device_allocator
    _device_allocator = fn


# Note [A device's allocator]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Every op's output on a CUDA device is a fresh Storage, so the path from here to the memory
# pool runs at every op, an eager training step's 23 times. Through the registered allocator it
# is a Python call of strided.cuda, which finds the device's backend and calls its allocator,
# which calls CuPy's pool: the two Python frames in between cost about as much as the pool
# itself. So once a device's backend exists it registers its own maker here, keyed by the
# Device object (Devices are interned and never freed), and ``alloc_storage`` calls that
# directly: one Python frame from the op's C code to the pool. The registered allocator
# stays the path of a device's first storage (which creates the backend).


def set_device_storage_maker(device, fn):
    """``fn(nbytes, zero)`` returns a Storage on ``device`` (a Device), called directly by
    ``alloc_storage`` for that device from now on (None: through the registered allocator
    again); see Note [A device's allocator]."""
    cdef Device d = as_device(device)
    cdef Py_ssize_t key = <Py_ssize_t><void*>d
    if fn is None:
        _storage_makers.pop(key, None)
    else:
        _storage_makers[key] = fn


cdef Storage alloc_storage(Py_ssize_t nbytes, Device device, bint zero):
    """A fresh storage of ``nbytes`` on ``device``: CPU memory here, device memory through the
    device's maker or the allocator strided.cuda registered."""
    cdef Storage storage
    if device.is_cpu:
        storage = Storage.__new__(Storage)
        storage._allocate(nbytes, zero)
        return storage
    make = _storage_makers.get(<Py_ssize_t><void*>device)
    if make is not None:  # Note [A device's allocator]
        return make(nbytes, zero)
    if _device_allocator is None:
        raise RuntimeError(f"allocating on {device} needs strided.cuda, which is not loaded")
    storage = _device_allocator(device, nbytes, zero)
    return storage
