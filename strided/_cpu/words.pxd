# Element types by width, for kernels that move bytes without caring what they mean.
#
# A copy, a fill, a gather or a scatter between tensors of one dtype only needs to know how
# wide an element is: float32 and int32 move alike. Such kernels are written once over
# ``word_t`` (1, 2, 4, 8 or 16 bytes) instead of thirteen dtypes; _cpu/copy.pyx.tp and
# _cpu/index.pyx.tp both use these.

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

ctypedef struct word128:    # a complex128: two 8-byte halves moved together
    uint64_t lo
    uint64_t hi

ctypedef fused word_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    word128
