"""Memory overlap: can two elements of one view, or two views, reach the same memory cell?
(PyTorch's ``aten/src/ATen/MemoryOverlap.cpp``.)

Every kernel that writes asks two questions before it starts. May two elements of the output
share a cell? Then the result would depend on the order of the writes, and the write is refused
(Note [Internal overlap]). May the output share memory with an input? Then the input must be read
before it is overwritten, and the kernel works on a copy. Both answers follow from the geometry
alone (sizes, strides in elements, offset), so the functions here take C arrays, not tensors: the
tensor-level forms (``memory_extent``, ``storage_overlap``, ``may_have_internal_overlap``) are
inline in ``_core.pxd``, next to TensorBase, and the kernels cimport them from there.
"""

from strided._limits cimport MAX_DIMS


cdef void memory_range(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                       Py_ssize_t offset, Py_ssize_t numel,
                       Py_ssize_t* lo, Py_ssize_t* hi) noexcept nogil:
    """The positions [lo, hi) of the storage, in elements, that a view with this geometry can
    touch (an empty view, ``numel == 0``: lo == hi == offset). Negative strides reach below the
    offset, positive ones above it."""
    cdef Py_ssize_t low = offset, high = offset
    cdef int i
    if numel == 0:
        lo[0] = offset
        hi[0] = offset
        return
    for i in range(ndim):
        if strides[i] < 0:
            low += (sizes[i] - 1) * strides[i]
        else:
            high += (sizes[i] - 1) * strides[i]
    lo[0] = low
    hi[0] = high + 1


cdef bint internal_overlap(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                           Py_ssize_t numel) noexcept nogil:
    """Whether two elements of a view might share a memory cell (so writing through it is
    unsafe).

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
    cdef Py_ssize_t sorted_sizes[MAX_DIMS]
    cdef int n = 0, i, j
    cdef Py_ssize_t s, span
    if numel <= 1:
        return False
    for i in range(ndim):
        if sizes[i] > 1:
            s = strides[i] if strides[i] >= 0 else -strides[i]
            if s == 0:
                return True
            # insertion sort by |stride|: ndim is small
            j = n
            while j > 0 and abs_strides[j - 1] > s:
                abs_strides[j] = abs_strides[j - 1]
                sorted_sizes[j] = sorted_sizes[j - 1]
                j -= 1
            abs_strides[j] = s
            sorted_sizes[j] = sizes[i]
            n += 1
    span = 0  # the largest offset reachable with the dims seen so far
    for i in range(n):
        if abs_strides[i] <= span:
            return True
        span += abs_strides[i] * (sorted_sizes[i] - 1)
    return False
