# Memory overlap: can two elements of one view, or two views, reach the same byte? See
# _overlap.pyx. The tensor-level forms (memory_extent, storage_overlap,
# may_have_internal_overlap) are inline in _core.pxd and call these.

cdef void memory_range(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                       Py_ssize_t offset, Py_ssize_t numel,
                       Py_ssize_t* lo, Py_ssize_t* hi) noexcept nogil
cdef bint internal_overlap(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                           Py_ssize_t numel) noexcept nogil
