# The only list of dtypes in strided. See Note [The dtype table] in _dtype.pyx.

cdef enum ScalarType:
    # The order is the order of the rows of the table in _dtype.pyx; kernels switch on it.
    kBool = 0
    kInt8 = 1
    kInt16 = 2
    kInt32 = 3
    kInt64 = 4
    kUInt8 = 5
    kUInt16 = 6
    kUInt32 = 7
    kUInt64 = 8
    kFloat32 = 9
    kFloat64 = 10
    kComplex64 = 11
    kComplex128 = 12
    NUM_SCALAR_TYPES = 13


cdef class DType:
    cdef readonly str name          # "float32"
    cdef readonly int num           # its ScalarType code
    cdef readonly Py_ssize_t itemsize
    cdef readonly str kind          # NumPy's kind letter: b, i, u, f, c
    cdef readonly str c_type        # the C spelling used by the CPU kernels
    cdef readonly str cuda_type     # the CUDA C spelling used by the CUDA sources
    cdef readonly object numpy      # the numpy.dtype it maps to
    cdef readonly str format        # PEP 3118 buffer-protocol format character
    cdef bytes _format_bytes        # the same, kept alive for Py_buffer.format


cdef DType dtype_from_num(int num)
cpdef DType as_dtype(object obj)
cpdef DType promote_types(object a, object b)
cpdef DType default_float_dtype()
