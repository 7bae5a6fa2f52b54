# How many threads strided's CPU kernels use. See Note [Thread settings] in _threads.pyx.

cdef int num_threads() noexcept nogil
