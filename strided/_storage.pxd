# Storage: one block of bytes on one device, shared by every view of it. See _storage.pyx.

from libc.stdint cimport int64_t

from strided._device cimport Device


cdef class Storage:
    cdef char* data             # first byte of the buffer (on the storage's device)
    cdef void* _alloc           # what to free: NULL when the memory belongs to `owner`
    cdef Py_ssize_t _alloc_nbytes
    cdef bint _mmapped          # the allocation is a large block (Note [Allocation] in _alloc.pyx)
    cdef readonly Py_ssize_t nbytes
    cdef readonly Device device
    cdef readonly object owner  # another object whose memory this storage borrows, kept alive
    cdef readonly bint writable
    cdef public int64_t version  # bumped by every in-place write through any view of this storage

    cdef int _allocate(self, Py_ssize_t nbytes, bint zero) except -1


cdef Storage alloc_storage(Py_ssize_t nbytes, Device device, bint zero)
