# TensorBase: a strided view onto a Storage, the object every other layer is built on. See
# _core.pyx, whose Note [The core, file by concept] says which file holds which part of the core.

from strided._dtype cimport DType

# Re-exported (Note [What _core re-exports] in _core.pyx): the kernels cimport these from here.
from strided._device cimport Device, as_device, cpu_device
from strided._limits cimport MAX_DIMS
from strided._overlap cimport internal_overlap, memory_range
from strided._storage cimport Storage, alloc_storage

cdef enum:
    INLINE_DIMS = 6      # sizes and strides of tensors up to this many dims live inside the object


cdef class TensorBase:
    cdef Storage _storage
    cdef Py_ssize_t _offset         # storage offset, in elements
    cdef int _ndim
    cdef Py_ssize_t* _sizes         # point into _inline, or into a malloc'd block for many dims
    cdef Py_ssize_t* _strides       # in elements, may be negative or zero
    cdef Py_ssize_t _inline[2 * INLINE_DIMS]
    cdef Py_ssize_t _numel
    cdef readonly DType dtype
    # Autograd's slots. The core stores them and never looks inside (see DESIGN.md's layers).
    cdef public object grad
    cdef public object grad_fn
    cdef public object _base
    cdef public object _autograd_meta
    cdef public bint _requires_grad
    cdef object __weakref__

    cdef int _set_geometry(self, int ndim, const Py_ssize_t* sizes,
                           const Py_ssize_t* strides) except -1
    cdef inline char* _data(self):
        return self._storage.data + self._offset * self.dtype.itemsize


cdef object tensor_class()
cdef TensorBase make_tensor(Storage storage, Py_ssize_t offset, int ndim,
                            const Py_ssize_t* sizes, const Py_ssize_t* strides, DType dtype)
cdef TensorBase make_view(TensorBase base, int ndim, const Py_ssize_t* sizes,
                          const Py_ssize_t* strides, Py_ssize_t offset)
cdef TensorBase make_view_dtype(TensorBase base, int ndim, const Py_ssize_t* sizes,
                                const Py_ssize_t* strides, Py_ssize_t offset, DType dtype)
cdef TensorBase empty_tensor(int ndim, const Py_ssize_t* sizes, DType dtype, Device device,
                             bint zero=*)
cdef Py_ssize_t normalize_dim(Py_ssize_t dim, int ndim, str argname=*) except? -1
cdef bint is_contiguous_c(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept
cdef Py_ssize_t check_shape(object shape, int* ndim, Py_ssize_t* sizes, str fn) except -1


# The memory-overlap checks of every writing kernel, on tensors: the geometry is _overlap.pyx's
# (Note [Internal overlap] there); these say which fields of a tensor it reads. Inline: a kernel
# calls _overlap's C function directly.

cdef inline int memory_extent(TensorBase t, Py_ssize_t* lo, Py_ssize_t* hi) except -1:
    """The byte range [lo, hi) of the storage that ``t`` can touch (empty tensors: lo == hi).

    In bytes, not elements, so that views of one storage with different dtypes (``real`` of a
    complex tensor) can be compared.
    """
    memory_range(t._ndim, t._sizes, t._strides, t._offset, t._numel, lo, hi)
    lo[0] *= t.dtype.itemsize
    hi[0] *= t.dtype.itemsize
    return 0


cdef inline bint storage_overlap(TensorBase a, TensorBase b) except -1:
    """Whether a and b might share a memory cell: the same storage and overlapping byte ranges.

    Every kernel that writes asks this before reading an input it might be overwriting.
    """
    cdef Py_ssize_t alo, ahi, blo, bhi
    if a._storage is not b._storage:
        return False
    memory_extent(a, &alo, &ahi)
    memory_extent(b, &blo, &bhi)
    return alo < bhi and blo < ahi


cdef inline bint may_have_internal_overlap(TensorBase t):
    """Whether two elements of ``t`` might share a memory cell (so writing through it is unsafe).
    See Note [Internal overlap] in _overlap.pyx."""
    return internal_overlap(t._ndim, t._sizes, t._strides, t._numel)
