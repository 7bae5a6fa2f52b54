"""TensorBase: a strided view onto a Storage (PyTorch's TensorImpl).

This is the tensor module of the core, the bottom of strided: everything a tensor *is* lives in
the core, this module and the few below it (Note [The core, file by concept]); everything a
tensor *does* lives in the layers above (views in ``_views``, kernels in ``_cpu``, operators in
``_ops``, the Python face in ``_tensor``).

Note [The core, file by concept]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Follow ``strided.empty(3)`` from Python down to memory, one file per concept, as PyTorch splits
``c10/core`` (names on the right):

    _tensor.py      Tensor, the Python face: methods as thin glue      torch/_tensor.py
    _core.pyx       TensorBase: storage, offset, sizes, strides,       c10/core/TensorImpl.h
                    dtype; its operator slots and protocols;
                    make_tensor and empty_tensor, where tensors are
                    born; shape checks (check_shape, normalize_dim)
    _overlap.pyx    may a view's elements, or two views, share a       ATen/MemoryOverlap.cpp
                    memory cell? (Note [Internal overlap])
    _storage.pyx    Storage: bytes on one device, their owner, the     c10/core/StorageImpl.h
                    version counter (Note [The version counter]);
                    the device allocator strided.cuda registers
    _device.pyx     Device: "cpu", "cuda:N", "cuda-emulated"           c10/core/Device.h
                    (Note [Device kinds])
    _alloc.pyx      CPU bytes: aligned blocks, huge pages and the      c10/core/CPUAllocator.cpp
                    cache of large blocks (Note [Allocation])
    _dtype.pyx      DType: the one dtype table                         c10/core/ScalarType.h

Memory that another library owns enters through ``_from_numpy.pyx`` (a NumPy array) and
``_dlpack.pyx`` (DLPack). Each file imports only the files below it; ``_limits.pxd`` holds
MAX_DIMS for all of them. Code above the core may keep importing every name from ``_core``
(Note [What _core re-exports]).

Note [Storage and views]
~~~~~~~~~~~~~~~~~~~~~~~~
A ``Storage`` is a flat block of bytes on one device; it knows nothing of shapes or dtypes. A
tensor is a *view* onto a storage: a dtype, a storage offset, and for each dim a size and a
stride, both counted in elements. Element ``[i0, i1, ..., ik]`` of a tensor lives at::

    storage.data + (offset + i0*stride0 + i1*stride1 + ... + ik*stridek) * itemsize

So a transpose swaps two strides, ``x[::2]`` doubles a stride, ``x[::-1]`` negates one and moves
the offset to the last element, and ``expand`` sets a stride to 0: none of them touches a byte of
data. Many tensors may share one storage; the storage is freed when the last of them goes.
"""

import numpy as np

from cpython.buffer cimport PyBUF_FORMAT, PyBUF_ND, PyBUF_STRIDES, PyBUF_WRITABLE
from cpython.object cimport PyObject, PyTypeObject
from libc.stdint cimport uintptr_t
from libc.stdlib cimport free, malloc

from strided._dtype cimport DType, as_dtype

from strided import _alloc, _device, _storage

# Note [What _core re-exports]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Device, Storage and the allocator were defined here until issue 17 gave each concept its file.
# Every name Python code imported from ``strided._core`` stays importable from it: the modules
# above (``_core.Device``, ``_core.Storage._new``, ``_core.as_device``), the tests, and pickles
# written before the split, which name ``strided._core.as_device``. The C side does the same in
# _core.pxd: the kernels' ``from strided._core cimport Storage, cpu_device, storage_overlap``
# lines stay valid, and Cython resolves each name to the module that defines it, so a kernel
# calls _storage's or _overlap's C function directly, with nothing added between. New code may
# import or cimport from either place; the defining module is the one to read.
globals().update(
    Device=_device.Device,
    device=_device.device,
    as_device=_device.as_device,
    Storage=_storage.Storage,
    on_device_storage=_storage.on_device_storage,
    set_device_allocator=_storage.set_device_allocator,
    empty_cpu_cache=_alloc.empty_cpu_cache,
    cpu_cache_info=_alloc.cpu_cache_info,
    set_cpu_cache_limit=_alloc.set_cpu_cache_limit,
)

cdef Py_ssize_t _INT64_MAX = 0x7FFFFFFFFFFFFFFF


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


cdef object _autograd_activate = None  # set by strided.autograd: see ``on_requires_grad``


def on_requires_grad(fn):
    """Call ``fn()`` whenever a tensor is made to require grad (strided.autograd registers its
    ``activate`` here: a higher layer registering with a lower one, DESIGN.md)."""
    global _autograd_activate
    _autograd_activate = fn


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
        """Whether autograd records operations on this tensor: set it on a leaf (a weight) to get
        its ``.grad``; results of recorded ops require grad when any input does (see
        strided.autograd). The one definition: ``requires_grad_()`` sets it too."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        cdef bint flag = bool(value)
        if flag == self._requires_grad:
            return
        if not flag and self.grad_fn is not None:
            raise RuntimeError(
                "requires_grad: only a leaf tensor's flag can be turned off; this tensor is the "
                f"result of {self.grad_fn.name()}. Use y = x.detach() for a tensor without "
                "history.")
        if flag and self.dtype.kind != "f":
            raise RuntimeError(
                "requires_grad: only floating-point tensors can require gradients, got "
                f"{self.dtype.name}" + (
                    " (complex autograd is not implemented yet)" if self.dtype.kind == "c"
                    else "; convert first with x.astype('float64')"))
        if flag and _autograd_activate is not None:
            _autograd_activate()  # Note [The Autograd hook]: autograd costs nothing until now
        self._requires_grad = flag

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
        if not self.dtype._format_bytes:
            raise BufferError(
                f"{self.dtype.name} has no buffer-protocol (PEP 3118) format letter: use "
                "numpy.asarray(t) (with the ml_dtypes package installed) or DLPack "
                "(torch.from_dlpack(t)), or t.astype('float32')")
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
# Memory overlap, for Python callers (the checks: _overlap.pyx; their tensor forms: _core.pxd)
# =============================================================================================

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
