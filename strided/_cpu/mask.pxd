from libc.stdint cimport int64_t

from strided._core cimport TensorBase


# The coordinates of mask's non-zero elements, or with ``weights`` one byte offset per element
# (sum(coordinate[d] * weights[d])): see mask.pyx.
cdef TensorBase nonzero_kernel(TensorBase mask, bint coords_last, const int64_t* weights)
