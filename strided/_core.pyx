"""Storage and TensorBase: bytes, and a strided view onto them.

This is the bottom of strided (only ``_dtype`` is below it). Everything a tensor *is* lives here;
everything a tensor *does* lives in the layers above (views in ``_views``, kernels in ``_cpu``,
operators in ``_ops``, the Python face in ``_tensor``).

Note [Storage and views]
~~~~~~~~~~~~~~~~~~~~~~~~
A ``Storage`` is a flat block of bytes on one device; it knows nothing of shapes or dtypes. A
tensor is a *view* onto a storage: a dtype, a storage offset, and for each dim a size and a
stride, both counted in elements. Element ``[i0, i1, ..., ik]`` of a tensor lives at::

    storage.data + (offset + i0*stride0 + i1*stride1 + ... + ik*stridek) * itemsize

So a transpose swaps two strides, ``x[::2]`` doubles a stride, ``x[::-1]`` negates one and moves
the offset to the last element, and ``expand`` sets a stride to 0: none of them touches a byte of
data. Many tensors may share one storage; the storage is freed when the last of them goes.

Note [The version counter]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``Storage.version`` counts in-place writes. It lives on the storage, so every view of the same
bytes sees the same counter. Autograd records the version when it saves a tensor for backward and
checks it when it uses it: a change means someone wrote into the saved values in the meantime.

Note [Allocation]
~~~~~~~~~~~~~~~~~
Small buffers come from ``posix_memalign`` (64-byte alignment: one cache line, and enough for any
SIMD load). Buffers of 4 MiB and more are *large blocks*:

* They come from ``mmap``, rounded up to whole 2 MiB huge pages and aligned to 2 MiB, and we ask
  for transparent huge pages with ``madvise(MADV_HUGEPAGE)``: touching a fresh 40 MB buffer then
  takes 20 page faults instead of ~10,000, as NumPy also arranges.
* When a large block is freed it is kept in a small cache instead of being returned to the
  kernel, and the next allocation of the same rounded size takes it back: its pages are already
  mapped, so the kernel does not fault and zero them again. This is the CPU twin of PyTorch's
  CUDA caching allocator; on the project's machines it makes an allocating 1e7-element op ~2x
  faster (see ``benchmarks/bench_core.py``). The cache holds at most ``STRIDED_CPU_CACHE_MB``
  (default 1024) MiB; ``strided._core.empty_cpu_cache()`` hands it all back.
* ``zeros`` skips the cache and takes fresh pages, which the kernel zeroes lazily (as ``calloc``
  does for NumPy): a block from the cache would need a memset.
"""

import os

import numpy as np

from cpython.buffer cimport PyBUF_FORMAT, PyBUF_ND, PyBUF_STRIDES, PyBUF_WRITABLE
from cpython.object cimport PyObject, PyTypeObject
from libc.stdint cimport uintptr_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cimport numpy as cnp

from strided._dtype cimport DType, as_dtype

from strided._dtype import all_dtypes

cnp.import_array()

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef extern from "<sys/mman.h>" nogil:
    void* mmap(void* addr, size_t length, int prot, int flags, int fd, long offset)
    int munmap(void* addr, size_t length)
    int madvise(void* addr, size_t length, int advice)
    int PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS
    void* MAP_FAILED
    int MADV_HUGEPAGE

cdef enum:
    ALIGNMENT = 64
    MMAP_THRESHOLD = 4 * 1024 * 1024
    HUGE_PAGE = 2 * 1024 * 1024
    CACHE_SLOTS = 32


# =============================================================================================
# Large blocks and their cache. See Note [Allocation].
# =============================================================================================

cdef void* _cache_ptr[CACHE_SLOTS]
cdef size_t _cache_size[CACHE_SLOTS]
cdef int _cache_count = 0
cdef size_t _cache_bytes = 0
cdef size_t _cache_limit = 1024 * 1024 * 1024
cdef Py_ssize_t _cache_hits = 0, _cache_misses = 0


cdef void* _map_aligned(size_t n) noexcept nogil:
    """n bytes (a multiple of HUGE_PAGE) of fresh zeroed pages at a 2 MiB-aligned address."""
    cdef size_t extra = n + HUGE_PAGE
    cdef char* raw = <char*>mmap(NULL, extra, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    cdef char* p
    cdef size_t head
    if <void*>raw == MAP_FAILED:
        return NULL
    # trim the unaligned head and the tail so that every 2 MiB of the block can be a huge page
    p = <char*>((<uintptr_t>raw + HUGE_PAGE - 1) & ~(<uintptr_t>HUGE_PAGE - 1))
    head = p - raw
    if head:
        munmap(raw, head)
    if extra - head - n:
        munmap(p + n, extra - head - n)
    madvise(p, n, MADV_HUGEPAGE)  # a hint: harmless if the kernel says no
    return p


cdef void* _large_alloc(size_t n, bint zero) noexcept nogil:
    """A large block of exactly n bytes (n a multiple of HUGE_PAGE): from the cache if one of
    that size is there and zeroing is not needed, else fresh from the kernel."""
    global _cache_count, _cache_bytes, _cache_hits, _cache_misses
    cdef int i
    cdef void* p
    if not zero:
        for i in range(_cache_count - 1, -1, -1):   # newest first: its pages are warmest
            if _cache_size[i] == n:
                p = _cache_ptr[i]
                _cache_count -= 1
                _cache_ptr[i] = _cache_ptr[_cache_count]
                _cache_size[i] = _cache_size[_cache_count]
                _cache_bytes -= n
                _cache_hits += 1
                return p
    _cache_misses += 1
    return _map_aligned(n)


cdef void _large_free(void* p, size_t n) noexcept nogil:
    """Keep the block for reuse if the cache has room, else give it back to the kernel."""
    global _cache_count, _cache_bytes
    if _cache_count < CACHE_SLOTS and _cache_bytes + n <= _cache_limit:
        _cache_ptr[_cache_count] = p
        _cache_size[_cache_count] = n
        _cache_count += 1
        _cache_bytes += n
    else:
        munmap(p, n)


def empty_cpu_cache():
    """Return every cached large block to the operating system."""
    global _cache_count, _cache_bytes
    cdef int i
    for i in range(_cache_count):
        munmap(_cache_ptr[i], _cache_size[i])
    _cache_count = 0
    _cache_bytes = 0


def cpu_cache_info():
    """How the large-block cache is doing: blocks and bytes held, hits and misses so far."""
    return {"blocks": _cache_count, "bytes": _cache_bytes, "limit": _cache_limit,
            "hits": _cache_hits, "misses": _cache_misses}


def set_cpu_cache_limit(Py_ssize_t nbytes):
    """Cap the bytes the large-block cache may hold (0 turns caching off)."""
    global _cache_limit
    if nbytes < 0:
        raise ValueError(f"set_cpu_cache_limit: nbytes must be >= 0, got {nbytes}")
    _cache_limit = nbytes
    if _cache_bytes > _cache_limit:
        empty_cpu_cache()


set_cpu_cache_limit(int(os.environ.get("STRIDED_CPU_CACHE_MB", "1024")) * 1024 * 1024)

cdef Py_ssize_t _INT64_MAX = 0x7FFFFFFFFFFFFFFF


# =============================================================================================
# Device
# =============================================================================================

cdef dict _DEVICES = {}


cdef class Device:
    """Where a tensor's bytes live: ``strided.device("cpu")`` or ``strided.device("cuda:0")``.

    Examples
    --------
    >>> import strided
    >>> strided.device("cpu")
    device(type='cpu')
    >>> strided.device("cpu") == "cpu"
    True
    """

    def __init__(self, *args):
        raise TypeError("use strided.device('cpu'), strided.device('cuda:0') or "
                        "strided.device('cuda-emulated')")

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, Device):
            return self is other
        if isinstance(other, str):
            try:
                return as_device(other) is self
            except (ValueError, TypeError):
                return False
        return NotImplemented

    def __hash__(self):
        return hash(str(self))

    def __reduce__(self):
        return (as_device, (str(self),))


cpdef Device as_device(object obj):
    """Turn ``obj`` (a Device, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"cuda-emulated"`` or None)
    into a Device. See Note [Device kinds]."""
    if obj is None:
        return cpu_device
    if isinstance(obj, Device):
        return <Device>obj
    if not isinstance(obj, str):
        raise TypeError(f"device must be a strided.device or a string such as 'cpu', got {obj!r}")
    cdef Device d = _DEVICES.get(obj)
    if d is not None:
        return d
    kind, _, idx = obj.partition(":")
    if kind not in ("cpu", "cuda", "cuda-emulated") or (idx and not idx.isdigit()) or \
            (kind == "cpu" and idx):
        raise ValueError(
            f"unknown device {obj!r}: use 'cpu', 'cuda', 'cuda:N' or 'cuda-emulated'")
    d = Device.__new__(Device)
    d.type = kind
    d.index = None if kind == "cpu" else int(idx or 0)
    d.is_cpu = kind == "cpu"
    d.is_cuda = not d.is_cpu
    canonical = str(d)
    if canonical in _DEVICES:
        d = _DEVICES[canonical]
    _DEVICES[canonical] = d
    _DEVICES[obj] = d
    return d


# Note [Device kinds]
# ~~~~~~~~~~~~~~~~~~~
# Three kinds of device: "cpu"; "cuda:N", a real GPU reached through CuPy; and "cuda-emulated:N",
# the CUDA backend's kernels compiled for the CPU and run by the emulator in strided/cuda/_emulator
# (threads as fibers). The two CUDA kinds share everything above the kernel launch: the same CUDA
# sources, the same launch code, the same dispatch key (CUDA). Their memory is different (GPU
# memory from CuPy's pool; host memory with guard bytes for the emulator) and the core does not
# care: a Storage on a CUDA device is allocated by the allocator that strided.cuda registers
# here (``set_device_allocator``), and its bytes are never touched by CPU code.


cpu_device = as_device("cpu")


def device(spec):
    """``strided.device("cpu")``: the Device object for a name (see Device)."""
    return as_device(spec)


# =============================================================================================
# Storage. See Note [Storage and views] and Note [Allocation].
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
        allocator: see Note [Device kinds])."""
        return alloc_storage(nbytes, as_device(device), zero)

    cdef int _allocate(self, Py_ssize_t nbytes, bint zero) except -1:
        # Even an empty storage gets a real, aligned pointer: DLPack and the buffer protocol
        # hand the pointer out and some consumers reject NULL.
        cdef size_t n = <size_t>(nbytes if nbytes > 0 else ALIGNMENT)
        cdef void* p = NULL
        if n >= MMAP_THRESHOLD:
            n = (n + HUGE_PAGE - 1) // HUGE_PAGE * HUGE_PAGE
            p = _large_alloc(n, zero)
            if p == NULL:
                raise MemoryError(f"could not allocate {nbytes} bytes for a tensor")
            self._mmapped = True
        else:
            if posix_memalign(&p, ALIGNMENT, n) != 0:
                raise MemoryError(f"could not allocate {nbytes} bytes for a tensor")
            if zero:
                memset(p, 0, n)
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
            if self._mmapped:
                _large_free(self._alloc, <size_t>self._alloc_nbytes)
            else:
                free(self._alloc)
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
# Shapes and dims: small checked helpers every view op uses
# =============================================================================================

cdef Py_ssize_t normalize_dim(Py_ssize_t dim, int ndim, str argname="dim") except? -1:
    """Map a possibly negative ``dim`` into [0, ndim) or raise IndexError naming the range."""
    cdef int n = ndim if ndim > 0 else 1   # a 0-d tensor accepts dim 0 and -1, like PyTorch
    if dim < -n or dim >= n:
        raise IndexError(
            f"{argname}={dim} is out of range for a tensor with {ndim} dims "
            f"(expected a value in [{-n}, {n - 1}])"
        )
    return dim + n if dim < 0 else dim


cdef Py_ssize_t check_shape(object shape, int* ndim, Py_ssize_t* sizes, str fn) except -1:
    """Validate ``shape`` (an int or a sequence of ints) into C arrays; return numel.

    Raises TypeError for non-integers, ValueError for negative sizes and for shapes whose element
    count would overflow int64.
    """
    cdef Py_ssize_t numel = 1, s
    cdef int i
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        shape = tuple(shape)
    except TypeError:
        raise TypeError(
            f"{fn}: shape must be an int or a sequence of ints, got {shape!r}") from None
    if len(shape) > MAX_DIMS:
        raise ValueError(f"{fn}: at most {MAX_DIMS} dims are supported, got {len(shape)}")
    ndim[0] = len(shape)
    for i in range(ndim[0]):
        item = shape[i]
        if type(item) is int and 0 <= item <= _INT64_MAX:   # the common case, checked cheaply
            sizes[i] = item
            continue
        if isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(f"{fn}: sizes must be integers, got {item!r} in shape {shape!r}")
        try:
            s = item.__index__()
        except OverflowError:
            raise ValueError(f"{fn}: size {item} in shape {shape!r} is too large") from None
        if s < 0:
            raise ValueError(f"{fn}: sizes must be >= 0, got {s} in shape {shape!r}")
        sizes[i] = s
    # The product of the non-zero sizes must fit in int64 even when a zero size makes the tensor
    # empty: NumPy refuses (0, 2**62, 2**62) too, and strides computed from it would overflow.
    for i in range(ndim[0]):
        s = sizes[i]
        if s != 0:
            if numel > _INT64_MAX // s:
                raise ValueError(
                    f"{fn}: shape {shape!r} has more than 2**63-1 elements")
            numel *= s
    for i in range(ndim[0]):
        if sizes[i] == 0:
            return 0
    return numel


cdef bint is_contiguous_c(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept:
    """Row-major (C) contiguity. Size-1 dims may have any stride, as in PyTorch and NumPy."""
    cdef Py_ssize_t expected = 1
    cdef int i
    for i in range(ndim - 1, -1, -1):
        if sizes[i] == 0:
            return True
        if sizes[i] != 1:
            if strides[i] != expected:
                return False
            expected *= sizes[i]
    return True


# =============================================================================================
# TensorBase. See Note [Storage and views].
# =============================================================================================

cdef type _tensor_cls = None
cdef dict _OPERATORS = {}


cdef inline bint _operand(object other):
    """Whether an operator should try ``other``: tensors, Python numbers, NumPy arrays and
    scalars, and sequences. Anything else (None, a string) gets NotImplemented, so Python falls
    back to its own rules: ``t == None`` is False, ``t + "a"`` a TypeError."""
    cdef type tp = type(other)
    return (isinstance(other, TensorBase) or tp is float or tp is int or tp is bool
            or tp is complex or isinstance(other, (np.ndarray, np.generic, list, tuple)))


def _register_operators(dict functions):
    """Called once by _ops/elementwise.py: the functions behind ``+``, ``==`` and the rest
    (see Note [Operators in the compiled class])."""
    _OPERATORS.update(functions)


# NumPy's protocols (NEP 13 and NEP 18): see Note [NumPy's protocols] in _numpy_protocols.py.
cdef dict _NUMPY_UFUNCS = {}  # numpy ufunc -> the strided function that computes it
cdef object _array_ufunc = None  # the general __array_ufunc__ (_numpy_protocols.array_ufunc)
cdef object _array_function = None  # __array_function__ (_numpy_protocols.array_function)


def _register_numpy_protocols(dict ufuncs, array_ufunc, array_function):
    """Called once by strided/_numpy_protocols.py: the table of NumPy ufuncs strided computes
    (kept by reference, so later entries are seen) and the two general protocol functions."""
    global _NUMPY_UFUNCS, _array_ufunc, _array_function
    _NUMPY_UFUNCS = ufuncs
    _array_ufunc = array_ufunc
    _array_function = array_function


cdef inline bint _plain_operands(tuple inputs):
    """Whether every input is a tensor or a Python number: the inputs the fast path of
    ``__array_ufunc__`` hands to strided's function unexamined."""
    cdef type tp
    for x in inputs:
        tp = type(x)
        if not (isinstance(x, TensorBase) or tp is float or tp is int or tp is bool
                or tp is complex):
            return False
    return True


def _register_tensor_class(cls):
    """Called once by strided/_tensor.py: views made down here are instances of ``cls``.

    This is how a low layer creates objects of a higher layer's class without importing it.
    """
    global _tensor_cls
    if not issubclass(cls, TensorBase):
        raise TypeError("the tensor class must subclass TensorBase")
    _tensor_cls = cls


cdef object tensor_class():
    return _tensor_cls if _tensor_cls is not None else TensorBase


class _Size(int):
    """``t.size`` is both NumPy's attribute and PyTorch's method.

    Note [size: attribute and method]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    NumPy and the Array API spell the element count ``x.size`` (an int); PyTorch spells the shape
    ``x.size()`` and one dim's length ``x.size(0)``. Both kinds of code are what strided must run,
    so ``x.size`` is an int subclass equal to the element count that can also be called.
    """

    def __call__(self, dim=None):
        if dim is None:
            return self._shape
        n = len(self._shape)
        if not -max(n, 1) <= dim < max(n, 1) or n == 0:
            raise IndexError(f"size(dim={dim}): dim out of range for a tensor with {n} dims")
        return self._shape[dim]


cdef class TensorBase:
    """The compiled half of a tensor: storage, offset, sizes, strides, dtype (PyTorch's TensorImpl).

    Users meet it as ``strided.Tensor``, its Python subclass (``strided/_tensor.py``). Create
    tensors with ``strided.tensor``, ``strided.asarray``, ``strided.zeros`` and friends.
    """

    def __cinit__(self):
        self._sizes = self._inline
        self._strides = self._inline + INLINE_DIMS
        self._ndim = 0
        self._numel = 1
        self._requires_grad = False

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "create tensors with strided.tensor(data), strided.asarray(obj), strided.empty(shape) "
            "or strided.zeros(shape)"
        )

    def __dealloc__(self):
        if self._sizes != self._inline:
            free(self._sizes)

    cdef int _set_geometry(self, int ndim, const Py_ssize_t* sizes,
                           const Py_ssize_t* strides) except -1:
        cdef int i
        cdef Py_ssize_t numel = 1
        if ndim > MAX_DIMS:
            raise ValueError(f"at most {MAX_DIMS} dims are supported, got {ndim}")
        if self._sizes != self._inline:
            free(self._sizes)
            self._sizes = self._inline
            self._strides = self._inline + INLINE_DIMS
        if ndim > INLINE_DIMS:
            self._sizes = <Py_ssize_t*>malloc(2 * ndim * sizeof(Py_ssize_t))
            if self._sizes == NULL:
                raise MemoryError()
            self._strides = self._sizes + ndim
        for i in range(ndim):
            self._sizes[i] = sizes[i]
            self._strides[i] = strides[i]
            numel *= sizes[i]
        self._ndim = ndim
        self._numel = numel
        return 0

    # -- geometry -----------------------------------------------------------------------------

    @property
    def shape(self):
        """The size of each dim, as a tuple of ints."""
        return tuple([self._sizes[i] for i in range(self._ndim)])

    @property
    def ndim(self):
        """The number of dims."""
        return self._ndim

    @property
    def size(self):
        """The element count (NumPy), callable for the shape or one dim's size (PyTorch).

        See Note [size: attribute and method].
        """
        s = _Size(self._numel)
        s._shape = self.shape
        return s

    def dim(self):
        """The number of dims (PyTorch's spelling of ``ndim``)."""
        return self._ndim

    def numel(self):
        """The number of elements."""
        return self._numel

    def stride(self, dim=None):
        """The step, in elements, between neighbours along each dim (or along ``dim``)."""
        if dim is None:
            return tuple([self._strides[i] for i in range(self._ndim)])
        if self._ndim == 0:
            raise IndexError("stride(dim): a 0-d tensor has no dims")
        return self._strides[normalize_dim(dim, self._ndim)]

    @property
    def strides(self):
        """NumPy's ``strides``: the step between neighbours along each dim, in *bytes*."""
        cdef Py_ssize_t item = self.dtype.itemsize
        return tuple([self._strides[i] * item for i in range(self._ndim)])

    def storage_offset(self):
        """Where element [0, ..., 0] sits in the storage, counted in elements."""
        return self._offset

    def untyped_storage(self):
        """The Storage this tensor is a view of."""
        return self._storage

    def data_ptr(self):
        """The address of element [0, ..., 0] as an int."""
        return <uintptr_t>self._data()

    def element_size(self):
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def itemsize(self):
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self):
        """Bytes the elements would take if stored contiguously (numel * itemsize), as NumPy."""
        return self._numel * self.dtype.itemsize

    @property
    def device(self):
        """The Device the storage lives on."""
        return self._storage.device

    @property
    def is_cuda(self):
        """Whether the tensor lives on a CUDA device (a GPU, or the emulated one)."""
        return self._storage.device.is_cuda

    @property
    def is_cpu(self):
        return self._storage.device.is_cpu

    @property
    def _version(self):
        """The storage's in-place write counter. See Note [The version counter]."""
        return self._storage.version

    def _bump_version(self):
        self._storage.version += 1

    def is_contiguous(self):
        """Whether the elements sit in row-major order with no gaps (size-1 dims ignored)."""
        return is_contiguous_c(self._ndim, self._sizes, self._strides)

    def _is_view(self):
        return self._base is not None

    @property
    def requires_grad(self):
        """Whether autograd records operations on this tensor (see strided.autograd)."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, bint value):
        self._requires_grad = value

    # -- the buffer protocol (PEP 3118): zero-copy to memoryview, NumPy, and friends -----------

    # Note [No writable window into a tensor that requires grad]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # Autograd records operations, not memory: a write that bypasses the ops (through a NumPy
    # array or a memoryview sharing the tensor's bytes) changes a value the graph has already
    # used, and backward() then computes a gradient of a function that never ran, silently.
    # PyTorch refuses ``t.numpy()`` on such a tensor and names ``t.detach().numpy()``. strided
    # hands out a *read-only* window instead: ``np.asarray(t)``, ``t.numpy()`` and
    # ``memoryview(t)`` all go through this buffer export, so one rule covers the three.
    # Reading (printing, plotting, np.testing, a NumPy function that converts its input) keeps
    # working; a write raises (NumPy's "assignment destination is read-only"), and a consumer
    # that asks for a writable buffer gets a BufferError naming the way out: ``t.detach()``
    # shares the memory with no autograd history (PyTorch's own escape hatch, an explicit
    # promise that the writes are meant), ``t.clone()`` copies. The rule is checked when the
    # window is made: an array taken before ``requires_grad = True`` stays writable, as a
    # PyTorch ``.numpy()`` array taken before does.

    def __getbuffer__(self, Py_buffer* buffer, int flags):
        if not self._storage.device.is_cpu:
            raise BufferError(
                f"a tensor on {self._storage.device} has no CPU buffer: call .cpu() first")
        cdef bint readonly = ((not self._storage.writable) or self._requires_grad
                              or may_have_internal_overlap(self))
        if (flags & PyBUF_WRITABLE) == PyBUF_WRITABLE and readonly:
            if self._requires_grad:
                raise BufferError(
                    "a tensor that requires grad cannot be exported as writable: a write would "
                    "change values autograd has recorded (Note [No writable window into a "
                    "tensor that requires grad]); use t.detach() to share its memory without "
                    "autograd, or t.clone() for a copy")
            raise BufferError(
                "this tensor cannot be exported as writable: it is read-only or has overlapping "
                "elements (an expanded view); use .contiguous() or .clone() for a writable copy")
        if (flags & PyBUF_STRIDES) != PyBUF_STRIDES and not self.is_contiguous():
            raise BufferError("the consumer asked for a contiguous buffer and this tensor is "
                              "not contiguous: use .contiguous()")
        cdef Py_ssize_t* shape_and_strides = <Py_ssize_t*>malloc(
            (2 * self._ndim + 1) * sizeof(Py_ssize_t))
        if shape_and_strides == NULL:
            raise MemoryError()
        cdef int i
        for i in range(self._ndim):
            shape_and_strides[i] = self._sizes[i]
            shape_and_strides[self._ndim + i] = self._strides[i] * self.dtype.itemsize
        buffer.buf = self._data()
        buffer.obj = self
        buffer.len = self._numel * self.dtype.itemsize
        buffer.readonly = readonly
        buffer.itemsize = self.dtype.itemsize
        buffer.format = <char*>self.dtype._format_bytes if (flags & PyBUF_FORMAT) else NULL
        buffer.ndim = self._ndim
        buffer.shape = shape_and_strides if (flags & PyBUF_ND) == PyBUF_ND else NULL
        buffer.strides = (shape_and_strides + self._ndim
                          if (flags & PyBUF_STRIDES) == PyBUF_STRIDES else NULL)
        buffer.suboffsets = NULL
        buffer.internal = shape_and_strides

    def __releasebuffer__(self, Py_buffer* buffer):
        free(buffer.internal)
        buffer.internal = NULL

    # -- NumPy's protocols: np.exp(t), np.concatenate([t, u]) run strided's functions -----------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # NEP 13. The commonest call is answered here, compiled: a ufunc strided computes,
        # called plainly (no out=, no other keyword) on tensors and Python numbers, as
        # ``np.add(t, t)`` or ``np.exp(t)``. NumPy's own override machinery already costs about
        # half a microsecond, and a Python method on top cost as much again. Every other call
        # goes to _numpy_protocols.array_ufunc (see Note [NumPy's protocols] there).
        if not kwargs and method == "__call__":
            fn = _NUMPY_UFUNCS.get(ufunc)
            if fn is not None and _plain_operands(inputs):
                return fn(*inputs)
        if _array_ufunc is None:
            return NotImplemented
        return _array_ufunc(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        # NEP 18: NumPy's functions (np.sum, np.concatenate, np.linalg.solve, ...) called with
        # a tensor run strided's. See Note [NumPy's protocols] in _numpy_protocols.py.
        if _array_function is None:
            return NotImplemented
        return _array_function(self, func, types, args, kwargs)

    # -- Python operators -----------------------------------------------------------------------
    # Note [Operators in the compiled class]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # ``a + b`` on a class defined in Python looks ``__add__`` up and binds it on every call,
    # which costs more than a one-element add. Defined here, on the compiled class, the operator
    # is a C slot that calls the op's public function straight away. The functions live in
    # _ops/elementwise.py, above this layer, which registers them at import
    # (_register_operators): the core still imports nothing from above.

    def __add__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["add"](self, other)

    def __radd__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["radd"](self, other)

    def __sub__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["subtract"](self, other)

    def __rsub__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rsubtract"](self, other)

    def __mul__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["multiply"](self, other)

    def __rmul__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rmultiply"](self, other)

    def __truediv__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["divide"](self, other)

    def __rtruediv__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rdivide"](self, other)

    def __floordiv__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["floor_divide"](self, other)

    def __rfloordiv__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rfloor_divide"](self, other)

    def __mod__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["remainder"](self, other)

    def __rmod__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rremainder"](self, other)

    def __and__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["bitwise_and"](self, other)

    def __rand__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rbitwise_and"](self, other)

    def __or__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["bitwise_or"](self, other)

    def __ror__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rbitwise_or"](self, other)

    def __xor__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["bitwise_xor"](self, other)

    def __rxor__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rbitwise_xor"](self, other)

    def __lshift__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["bitwise_left_shift"](self, other)

    def __rlshift__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rbitwise_left_shift"](self, other)

    def __rshift__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["bitwise_right_shift"](self, other)

    def __rrshift__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["rbitwise_right_shift"](self, other)

    def __pow__(self, other, modulo):
        if modulo is not None or not _operand(other):
            return NotImplemented
        return _OPERATORS["pow"](self, other)

    def __rpow__(self, other, modulo):
        if modulo is not None or not _operand(other):
            return NotImplemented
        return _OPERATORS["rpow"](self, other)

    def __eq__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["equal"](self, other)

    def __ne__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["not_equal"](self, other)

    def __lt__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["less"](self, other)

    def __le__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["less_equal"](self, other)

    def __gt__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["greater"](self, other)

    def __ge__(self, other):
        if not _operand(other):
            return NotImplemented
        return _OPERATORS["greater_equal"](self, other)

    def __hash__(self):
        return id(self) >> 4   # tensors hash by identity, as in PyTorch (== is elementwise)

    def __reduce__(self):
        # TensorBase alone cannot be rebuilt; strided.Tensor defines pickling.
        raise TypeError("pickle strided.Tensor objects, not TensorBase")


cdef tuple _EMPTY_TUPLE = ()


cdef TensorBase make_tensor(Storage storage, Py_ssize_t offset, int ndim,
                            const Py_ssize_t* sizes, const Py_ssize_t* strides, DType dtype):
    """A new tensor object viewing ``storage``: the one place tensors are born."""
    # Allocate through the class's tp_new slot directly: a Python subclass inherits TensorBase's
    # tp_new (which runs __cinit__), and the direct call skips a Python-level method lookup that
    # would cost more than everything else a view does.
    cdef type cls = _tensor_cls if _tensor_cls is not None else TensorBase
    cdef TensorBase t = <TensorBase>(<PyTypeObject*>cls).tp_new(cls, <PyObject*>_EMPTY_TUPLE, NULL)
    t._storage = storage
    t._offset = offset
    t.dtype = dtype
    t._set_geometry(ndim, sizes, strides)
    return t


cdef TensorBase make_view(TensorBase base, int ndim, const Py_ssize_t* sizes,
                          const Py_ssize_t* strides, Py_ssize_t offset):
    """A view of ``base`` with new geometry and the same dtype; records ``_base``."""
    return make_view_dtype(base, ndim, sizes, strides, offset, base.dtype)


cdef TensorBase make_view_dtype(TensorBase base, int ndim, const Py_ssize_t* sizes,
                                const Py_ssize_t* strides, Py_ssize_t offset, DType dtype):
    cdef TensorBase t = make_tensor(base._storage, offset, ndim, sizes, strides, dtype)
    # Like PyTorch, ``_base`` is the tensor that owns its history, never a view of a view.
    t._base = base._base if base._base is not None else base
    return t


cdef TensorBase empty_tensor(int ndim, const Py_ssize_t* sizes, DType dtype, Device device,
                             bint zero=False):
    """A fresh, row-major tensor. Checks that numel * itemsize fits in int64."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t numel = 1, acc = 1
    cdef int i
    for i in range(ndim - 1, -1, -1):
        strides[i] = acc
        if sizes[i] != 0:
            if acc > _INT64_MAX // sizes[i]:
                raise ValueError(f"a tensor of shape {tuple([sizes[j] for j in range(ndim)])} "
                                 "has more than 2**63-1 elements")
            acc *= sizes[i]
    for i in range(ndim):
        numel *= sizes[i]
    if numel > _INT64_MAX // dtype.itemsize:
        raise ValueError(
            f"a tensor of shape {tuple([sizes[j] for j in range(ndim)])} and dtype {dtype.name} "
            "would need more than 2**63-1 bytes")
    cdef Storage storage = alloc_storage(numel * dtype.itemsize, device, zero)
    return make_tensor(storage, 0, ndim, sizes, strides, dtype)


cdef object _device_allocator = None
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


cdef Storage alloc_storage(Py_ssize_t nbytes, Device device, bint zero):
    """A fresh storage of ``nbytes`` on ``device``: CPU memory here, device memory through the
    allocator strided.cuda registered."""
    cdef Storage storage
    if device.is_cpu:
        storage = Storage.__new__(Storage)
        storage._allocate(nbytes, zero)
        return storage
    if _device_allocator is None:
        raise RuntimeError(f"allocating on {device} needs strided.cuda, which is not loaded")
    storage = _device_allocator(device, nbytes, zero)
    return storage


def _empty(shape, dtype, device=None, bint zero=False):
    """Python entry to ``empty_tensor``: checks ``shape`` and names what is wrong."""
    cdef int ndim = 0
    cdef Py_ssize_t sizes[MAX_DIMS]
    check_shape(shape, &ndim, sizes, "empty")
    return empty_tensor(ndim, sizes, as_dtype(dtype), as_device(device), zero)


def _from_parts(Storage storage, Py_ssize_t offset, shape, strides, dtype):
    """A tensor over ``storage`` with the given geometry, trusted (callers check bounds)."""
    cdef int ndim = 0, i
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t st[MAX_DIMS]
    check_shape(shape, &ndim, sizes, "tensor")
    if len(strides) != ndim:
        raise ValueError(f"shape {tuple(shape)} and strides {tuple(strides)} differ in length")
    for i in range(ndim):
        st[i] = strides[i]
    return make_tensor(storage, offset, ndim, sizes, st, as_dtype(dtype))


# =============================================================================================
# Memory facts about a view, used by the checks of every writing kernel
# =============================================================================================

cdef int memory_extent(TensorBase t, Py_ssize_t* lo, Py_ssize_t* hi) except -1:
    """The byte range [lo, hi) of the storage that ``t`` can touch (empty tensors: lo == hi).

    In bytes, not elements, so that views of one storage with different dtypes (``real`` of a
    complex tensor) can be compared.
    """
    cdef Py_ssize_t low = t._offset, high = t._offset
    cdef Py_ssize_t item = t.dtype.itemsize
    cdef int i
    if t._numel == 0:
        lo[0] = t._offset * item
        hi[0] = t._offset * item
        return 0
    for i in range(t._ndim):
        if t._strides[i] < 0:
            low += (t._sizes[i] - 1) * t._strides[i]
        else:
            high += (t._sizes[i] - 1) * t._strides[i]
    lo[0] = low * item
    hi[0] = (high + 1) * item
    return 0


cdef bint storage_overlap(TensorBase a, TensorBase b) except -1:
    """Whether a and b might share a memory cell: the same storage and overlapping byte ranges.

    Every kernel that writes asks this before reading an input it might be overwriting.
    """
    cdef Py_ssize_t alo, ahi, blo, bhi
    if a._storage is not b._storage:
        return False
    memory_extent(a, &alo, &ahi)
    memory_extent(b, &blo, &bhi)
    return alo < bhi and blo < ahi


cdef bint may_have_internal_overlap(TensorBase t):
    """Whether two elements of ``t`` might share a memory cell (so writing through it is unsafe).

    Note [Internal overlap]
    ~~~~~~~~~~~~~~~~~~~~~~~
    Sort the dims (of size > 1) by |stride|. If every dim's |stride| is larger than the span
    covered by all the smaller dims together, no two index tuples can reach the same cell, so the
    view is safe to write. A zero stride (``expand``) always fails the test. The test is
    sufficient, not necessary: an odd ``as_strided`` view whose cells interleave without meeting
    (strides (3, 2) over sizes (2, 2)) is reported as overlapping, and writing into it is refused
    rather than risked. NumPy solves the exact problem (a bounded Diophantine equation); PyTorch
    refuses only the zero-stride case and lets other overlaps race.
    """
    cdef Py_ssize_t abs_strides[MAX_DIMS]
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int n = 0, i, j
    cdef Py_ssize_t s, span
    if t._numel <= 1:
        return False
    for i in range(t._ndim):
        if t._sizes[i] > 1:
            s = t._strides[i] if t._strides[i] >= 0 else -t._strides[i]
            if s == 0:
                return True
            # insertion sort by |stride|: ndim is small
            j = n
            while j > 0 and abs_strides[j - 1] > s:
                abs_strides[j] = abs_strides[j - 1]
                sizes[j] = sizes[j - 1]
                j -= 1
            abs_strides[j] = s
            sizes[j] = t._sizes[i]
            n += 1
    span = 0  # the largest offset reachable with the dims seen so far
    for i in range(n):
        if abs_strides[i] <= span:
            return True
        span += abs_strides[i] * (sizes[i] - 1)
    return False


def _has_internal_overlap(TensorBase t):
    return may_have_internal_overlap(t)


def _storage_overlap(TensorBase a, TensorBase b):
    """``storage_overlap`` for Python callers (the CUDA backend's copies and scatters)."""
    return storage_overlap(a, b)


def _storage_range(TensorBase t):
    """(lo, hi): the storage bytes ``t`` can touch, as a half-open range."""
    cdef Py_ssize_t lo, hi
    memory_extent(t, &lo, &hi)
    return lo, hi


# =============================================================================================
# Borrowing NumPy's memory: from_numpy
# =============================================================================================

cdef dict _BY_NPY_NUM = {}   # NumPy type number -> DType (int64 has two: 'l' and 'q')


def _fill_npy_table():
    for d in all_dtypes():
        for code in np.typecodes["All"]:
            try:
                npd = np.dtype(code)
            except TypeError:
                continue
            if npd == (<DType>d).numpy:
                _BY_NPY_NUM[npd.num] = d


_fill_npy_table()


def from_numpy_array(cnp.ndarray array):
    """A tensor over ``array``'s memory (see strided.from_numpy for the public face).

    The Storage borrows the array's bytes and keeps the array alive; it starts at the lowest
    address the array touches (negative strides reach below the array's data pointer), so the
    tensor's offset is where element [0, ..., 0] sits above that.
    """
    cdef int ndim = cnp.PyArray_NDIM(array), i
    cdef cnp.npy_intp* dims = cnp.PyArray_DIMS(array)
    cdef cnp.npy_intp* bstrides = cnp.PyArray_STRIDES(array)
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t lo = 0, hi = 0, numel = 1, item
    cdef char* data = <char*>cnp.PyArray_DATA(array)
    cdef DType d = _BY_NPY_NUM.get(cnp.PyArray_TYPE(array))
    if d is None:
        raise TypeError(
            f"from_numpy: NumPy dtype {array.dtype} is not supported; strided supports bool, "
            "int8..int64, uint8..uint64, float32, float64, complex64, complex128")
    if cnp.PyArray_ISBYTESWAPPED(array):
        raise TypeError(
            f"from_numpy: the array is in non-native byte order ({array.dtype.str}); convert it "
            "with array.astype(array.dtype.newbyteorder('='))")
    item = d.itemsize
    # A complex number needs only the alignment of its real part (complex128: 8 bytes).
    if (<uintptr_t>data) % (item // 2 if d.kind == "c" else item):
        raise ValueError(f"from_numpy: the array's address is not aligned for {d.name}; use "
                         "numpy.ascontiguousarray(array) first")
    for i in range(ndim):
        if bstrides[i] % item:
            raise ValueError(
                f"from_numpy: the array's byte strides {(<object>array).strides} are not "
                f"multiples of its itemsize {item}, which strided's element strides need; use "
                "numpy.ascontiguousarray(array) first")
        sizes[i] = dims[i]
        strides[i] = bstrides[i] // item
        numel *= dims[i]
    if numel:
        for i in range(ndim):
            if strides[i] < 0:
                lo += (sizes[i] - 1) * strides[i]
            else:
                hi += (sizes[i] - 1) * strides[i]
        hi += 1
    cdef Storage storage = Storage.__new__(Storage)
    storage.data = data + lo * item
    storage.nbytes = (hi - lo) * item
    storage.owner = array
    storage.writable = cnp.PyArray_ISWRITEABLE(array)
    return make_tensor(storage, -lo, ndim, sizes, strides, d)
