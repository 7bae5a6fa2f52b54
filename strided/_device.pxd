# Device: where a tensor's bytes live. See _device.pyx and Note [Device kinds] there.

cdef class Device:
    cdef readonly str type      # "cpu", "cuda" or "cuda-emulated" (Note [Device kinds])
    cdef readonly object index  # None for the CPU, an int for a GPU
    cdef readonly bint is_cpu
    cdef readonly bint is_cuda  # "cuda" or "cuda-emulated": the CUDA dispatch key


cdef Device cpu_device
cpdef Device as_device(object obj)
