# Step 1 of advanced indexing (offsets.pyx): indices checked once and turned into byte offsets,
# held in an IndexOffsets. Step 2, the loops that trust them, is index.pyx.tp. See Note [Advanced
# indexing is a gather over offsets] there.

from libc.stdint cimport int64_t

from strided._core cimport TensorBase


cdef class IndexOffsets:
    cdef readonly TensorBase offsets
    cdef readonly int64_t wrap
    cdef readonly int64_t scale
    cdef readonly TensorBase tensor
    cdef readonly tuple dims
    cdef readonly bint checked      # False: the gather checks each index as it loads
    cdef readonly object name       # the dim to name in an out-of-bounds message


cdef inline int64_t byte_offset(const char* p, int64_t wrap, int64_t scale) noexcept nogil:
    """The byte offset an IndexOffsets element at ``p`` stands for (see IndexOffsets)."""
    cdef int64_t v = (<const int64_t*>p)[0]
    return (v + (wrap if v < 0 else 0)) * scale


# For offsets made with check=False: raise the IndexError naming their first out-of-range
# index, after a checking pass (check_unchecked, which returns quietly if all are in range) or
# when a gather has already found one (raise_out_of_bounds).
cdef int check_unchecked(IndexOffsets off) except -1
cdef int raise_out_of_bounds(IndexOffsets off) except -1
