# The elementwise iterator, and (re-exported) the loop machinery every kernel runs on.
#
# The loop plan lives in _loop_plan.pxd (Note [The loop plan] in _loop_plan.pyx). Its names are
# cimported here so that the kernels' ``from strided._iter cimport LoopPlan, plan_run`` lines stay
# valid, as _core.pxd does for Device and Storage (Note [What _core re-exports] in _core.pyx):
# each name is _loop_plan's own function, reached through Cython's cross-module table of C
# functions as any cimported cdef function is, with no wrapper added between.
from strided._loop_plan cimport (
    GRAIN_SIZE,
    MAX_OPERANDS,
    LoopPlan,
    loop1d_fn,
    plan_coalesce,
    plan_dense_operand,
    plan_init,
    plan_reorder,
    plan_run,
    plan_run_range,
    plan_set_operand,
)

from strided._core cimport MAX_DIMS


# =============================================================================================
# The elementwise iterator (see Note [The elementwise iterator] in _iter.pyx)
# =============================================================================================

from strided._core cimport Device, TensorBase
from strided._dtype cimport DType

cdef enum ResultKind:
    RESULT_SAME = 0     # out dtype = the inputs' common dtype (add, maximum, negative)
    RESULT_BOOL = 1     # out dtype = bool (equal, isnan, logical_and)
    # computed in floating point: ints and bools become the smallest float that holds them,
    # NumPy's rule (exp, sqrt, arctan2; Note [Float results of integer input] in _dtype.pyx)
    RESULT_FLOAT = 2
    RESULT_REAL = 3     # like SAME, but complex becomes its real dtype (abs, real, imag)
    RESULT_FLOAT_REAL = 4  # FLOAT, then complex to real (e.g. a float-only op applied to complex)
    RESULT_WHERE = 5    # like SAME over inputs 1.., while input 0 is a condition read as bool
    # like FLOAT, but ints and bools become the default float whatever their width (divide;
    # erf, sigmoid: names NumPy has no ufunc for), Note [Float results of integer input]
    RESULT_DEFAULT_FLOAT = 6
    # like SAME, but bools compute in (and give) int8: the op has no bool loop, and NumPy runs
    # the first loop a bool casts to safely (square, floor_divide, power, shifts; Note [Bools
    # read as int8] in _iter.pyx)
    RESULT_INT8_BOOL = 7

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
