# Storage and TensorBase: the two objects every other layer is built on. See _core.pyx.

from libc.stdint cimport int64_t

from strided._dtype cimport DType

cdef enum:
    MAX_DIMS = 64        # as NumPy; the iterator's fixed-size arrays depend on it
    INLINE_DIMS = 6      # sizes and strides of tensors up to this many dims live inside the object


cdef class Device:
    cdef readonly str type      # "cpu", "cuda" or "cuda-emulated" (Note [Device kinds])
    cdef readonly object index  # None for the CPU, an int for a GPU
    cdef readonly bint is_cpu
    cdef readonly bint is_cuda  # "cuda" or "cuda-emulated": the CUDA dispatch key


cdef class Storage:
    cdef char* data             # first byte of the buffer (on the storage's device)
    cdef void* _alloc           # what to free: NULL when the memory belongs to `owner`
    cdef Py_ssize_t _alloc_nbytes
    cdef bint _mmapped          # the allocation came from mmap (large blocks)
    cdef readonly Py_ssize_t nbytes
    cdef readonly Device device
    cdef readonly object owner  # another object whose memory this storage borrows, kept alive
    cdef readonly bint writable
    cdef public int64_t version  # bumped by every in-place write through any view of this storage

    cdef int _allocate(self, Py_ssize_t nbytes, bint zero) except -1


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


cdef Device cpu_device
cpdef Device as_device(object obj)
cdef object tensor_class()
cdef TensorBase make_tensor(Storage storage, Py_ssize_t offset, int ndim,
                            const Py_ssize_t* sizes, const Py_ssize_t* strides, DType dtype)
cdef TensorBase make_view(TensorBase base, int ndim, const Py_ssize_t* sizes,
                          const Py_ssize_t* strides, Py_ssize_t offset)
cdef TensorBase make_view_dtype(TensorBase base, int ndim, const Py_ssize_t* sizes,
                                const Py_ssize_t* strides, Py_ssize_t offset, DType dtype)
cdef Storage alloc_storage(Py_ssize_t nbytes, Device device, bint zero)
cdef TensorBase empty_tensor(int ndim, const Py_ssize_t* sizes, DType dtype, Device device,
                             bint zero=*)
cdef Py_ssize_t normalize_dim(Py_ssize_t dim, int ndim, str argname=*) except? -1
cdef bint is_contiguous_c(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept
cdef int memory_extent(TensorBase t, Py_ssize_t* lo, Py_ssize_t* hi) except -1
cdef bint storage_overlap(TensorBase a, TensorBase b) except -1
cdef bint may_have_internal_overlap(TensorBase t)
cdef Py_ssize_t check_shape(object shape, int* ndim, Py_ssize_t* sizes, str fn) except -1
