# How many threads a job gets: shared by the indexing kernels (index.pyx, mask.pyx), which
# split their work into one element range (and one context) per thread.

from strided._iter cimport GRAIN_SIZE, num_threads


cdef inline Py_ssize_t nchunks(Py_ssize_t work, Py_ssize_t splittable) noexcept nogil:
    """How many threads a job of ``work`` elements gets, when only ``splittable`` of its
    positions may be divided among them."""
    cdef Py_ssize_t n = num_threads()
    if n <= 1 or work < 2 * GRAIN_SIZE:
        return 1
    if n > work // GRAIN_SIZE:
        n = work // GRAIN_SIZE
    if n > splittable:
        n = splittable
    return n if n > 1 else 1
