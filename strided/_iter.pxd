# The loop machinery every kernel runs on. See Note [The loop plan] in _iter.pyx.

from strided._core cimport MAX_DIMS

cdef enum:
    MAX_OPERANDS = 4        # output(s) first, then inputs
    GRAIN_SIZE = 32768      # below this many elements a loop runs on one thread

# A 1-D inner loop: n elements, operand k starts at data[k] and steps stride_bytes[k] bytes.
# ``ctx`` carries anything else the kernel needs (a scalar value, a dtype pair).
ctypedef void (*loop1d_fn)(char** data, const Py_ssize_t* stride_bytes, Py_ssize_t n,
                           void* ctx) noexcept nogil

ctypedef struct LoopPlan:
    int ndim                # after reordering and coalescing; dim 0 is the innermost
    int noperands
    Py_ssize_t numel
    Py_ssize_t shape[MAX_DIMS]
    # stride_bytes[d][k]: the byte step of operand k along dim d. Laid out so that the inner
    # strides of all operands, stride_bytes[0], are one array the 1-D loop receives.
    Py_ssize_t stride_bytes[MAX_DIMS][MAX_OPERANDS]
    char* data[MAX_OPERANDS]
    # perm[d]: which dim of the caller's shape became plan dim d (before coalescing)
    int perm[MAX_DIMS]

cdef int plan_init(LoopPlan* plan, int noperands, int ndim, const Py_ssize_t* shape) except -1
cdef void plan_set_operand(LoopPlan* plan, int k, char* data, const Py_ssize_t* strides,
                           Py_ssize_t itemsize) noexcept
cdef void plan_reorder(LoopPlan* plan) noexcept
cdef void plan_coalesce(LoopPlan* plan) noexcept
cdef Py_ssize_t plan_dense_operand(LoopPlan* plan, int k, Py_ssize_t* strides,
                                   Py_ssize_t itemsize) noexcept
cdef void plan_run_range(const LoopPlan* plan, loop1d_fn loop, void* ctx,
                         Py_ssize_t begin, Py_ssize_t end) noexcept nogil
cdef bint plan_run(const LoopPlan* plan, loop1d_fn loop, void* ctx) noexcept nogil


# =============================================================================================
# The elementwise iterator (see Note [The elementwise iterator] in _iter.pyx)
# =============================================================================================

from strided._core cimport Device, TensorBase
from strided._dtype cimport DType

cdef enum ResultKind:
    RESULT_SAME = 0     # out dtype = the inputs' common dtype (add, maximum, negative)
    RESULT_BOOL = 1     # out dtype = bool (equal, isnan, logical_and)
    # computed in floating point: ints and bools become the default float (divide, exp, sqrt)
    RESULT_FLOAT = 2
    RESULT_REAL = 3     # like SAME, but complex becomes its real dtype (abs, real, imag)
    RESULT_FLOAT_REAL = 4  # FLOAT, then complex to real (e.g. a float-only op applied to complex)
    RESULT_WHERE = 5    # like SAME over inputs 1.., while input 0 is a condition read as bool

ctypedef struct ScalarBuf:
    double pad[2]       # 16 aligned bytes: room for one element of any dtype


cdef class ElementwisePlan:
    cdef LoopPlan loop
    cdef readonly int nin
    cdef readonly DType dtype           # the dtype the kernel computes in
    cdef readonly DType out_dtype       # the dtype the kernel writes
    cdef readonly TensorBase out        # what the caller gets back
    cdef TensorBase _write_to           # where the kernel writes (out, or a temporary)
    cdef readonly str name
    cdef int ndim
    cdef Py_ssize_t shape_[MAX_DIMS]    # the broadcast shape
    cdef readonly bint parallel
    cdef list notes                     # what the iterator did beyond the usual, for explain()
    cdef list _keep                     # temporaries that must outlive the loop
    cdef ScalarBuf _scalars[MAX_OPERANDS]

    cdef int run(self, loop1d_fn loop, void* ctx) except -1


cdef ElementwisePlan prepare_elementwise(str name, tuple inputs, TensorBase out,
                                         int result_kind, bint check_overlap=*)
# the small fast path: see Note [The small fast path] in _iter.pyx
cdef TensorBase prepare_small(int result_kind, TensorBase a, object b, bint unary,
                              char** data, Py_ssize_t* strides, ScalarBuf* scalar)
# out= checks, one wording for every op: see Note [Checking out=] in _iter.pyx
cdef int check_out_c(str name, TensorBase out, int ndim, const Py_ssize_t* shape, DType dtype,
                     Device device) except -1
cdef int scalar_to_bytes(object value, DType dtype, char* buf) except -1
cdef object register_cast(loop1d_fn cast)
