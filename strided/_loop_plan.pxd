# The loop machinery every kernel runs on. See Note [The loop plan] in _loop_plan.pyx.

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

# Whether a job is worth splitting over threads, by the measured serial cost of its kind (``key``:
# its inner loop or row function), and the measurement that keeps that cost: Note [When a loop
# is split] in _loop_plan.pyx. plan_run applies them itself; the reductions call them directly.
cdef bint split_pays(const void* key, Py_ssize_t work) noexcept nogil
cdef double clock_ns() noexcept nogil
cdef void cost_measured(const void* key, Py_ssize_t work, double ns,
                        Py_ssize_t threads) noexcept nogil
