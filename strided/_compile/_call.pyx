"""A compiled call's hot path: the guards checked in one pass, a fused kernel called on its
tensors' data pointers, an output allocated (Note [The cost of a compiled call] in
strided/_compile/__init__.py). The Python in __init__.py is the reference: ``_guard`` and
``CompiledFunction._call`` say what a call must match, ``_kernel_ctypes`` how a kernel runs
without this module.
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

from strided._core cimport TensorBase, empty_tensor
from strided._device cimport Device
from strided._dtype cimport DType
from strided._limits cimport MAX_DIMS
from strided.autograd._grad_state cimport grad_enabled

ctypedef void (*kernel_t)(void**) noexcept nogil

cdef enum:
    MAX_POINTERS = 64  # a fused group's inputs and outputs; codegen never makes more

# The one value that says "not this plan": a miss, the caller takes the general road.
MISS = object()


cdef class Kernel:
    """A generated C function ``void f(void** pointers)`` called on tensors: ``k(a, b, out)``
    passes ``[a.data_ptr(), b.data_ptr(), out.data_ptr()]``. ``release`` lets other Python
    threads run while it works; a small kernel keeps the GIL, whose release and retaking would
    cost more than its loop (the plan decides, from the group's size)."""

    cdef kernel_t fn
    cdef readonly bint release
    cdef readonly object name

    def __init__(self, size_t address, name, bint release):
        if address == 0:
            raise ValueError(f"Kernel {name}: null function address")
        self.fn = <kernel_t>address
        self.name = name
        self.release = release

    def __call__(self, *tensors):
        cdef void* pointers[MAX_POINTERS]
        cdef Py_ssize_t i, n = len(tensors)
        if n > MAX_POINTERS:
            raise ValueError(f"{self.name}: {n} tensors, at most {MAX_POINTERS}")
        for i in range(n):
            t = tensors[i]
            if not isinstance(t, TensorBase):
                raise TypeError(f"{self.name}: argument {i} is {type(t).__name__}, not a tensor")
            pointers[i] = (<TensorBase>t)._data()
        if self.release:
            with nogil:
                self.fn(pointers)
        else:
            self.fn(pointers)

    def __repr__(self):
        return f"<fused kernel {self.name}>"


def empty(tuple shape, DType dtype, Device device):
    """A new tensor of ``shape`` (a tuple of ints, checked by the plan), contiguous."""
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t i, ndim = len(shape)
    if ndim > MAX_DIMS:
        raise ValueError(f"empty: {ndim} dims, at most {MAX_DIMS}")
    for i in range(ndim):
        sizes[i] = shape[i]
    return empty_tensor(<int>ndim, sizes, dtype, device)


cdef class _TensorGuard:
    """One tensor argument's guard: dtype, device, sizes, strides and requires_grad."""

    cdef DType dtype
    cdef Device device
    cdef int ndim
    cdef Py_ssize_t* sizes
    cdef Py_ssize_t* strides
    cdef bint requires_grad

    def __cinit__(self, TensorBase t):
        cdef size_t n = t._ndim * sizeof(Py_ssize_t)
        self.sizes = <Py_ssize_t*>malloc(2 * n + 1)
        if self.sizes == NULL:
            raise MemoryError()
        self.strides = self.sizes + t._ndim
        memcpy(self.sizes, t._sizes, n)
        memcpy(self.strides, t._strides, n)
        self.dtype = t.dtype
        self.device = t._storage.device
        self.ndim = t._ndim
        self.requires_grad = t._requires_grad

    def __dealloc__(self):
        free(self.sizes)

    cdef inline bint matches(self, TensorBase t):
        cdef size_t n = self.ndim * sizeof(Py_ssize_t)
        return (
            t.dtype is self.dtype
            and t._ndim == self.ndim
            and t._requires_grad == self.requires_grad
            and memcmp(t._sizes, self.sizes, n) == 0
            and memcmp(t._strides, self.strides, n) == 0
            and (t._storage.device is self.device or t._storage.device == self.device)
        )


cdef bint _same_constant(object a, object want):
    """``a`` is the constant a plan was traced with: the same type and value, a float by its
    bits (-0.0 is not 0.0, and a NaN is the NaN): Note [Constants in the guard key]."""
    cdef double x, y
    if type(a) is not type(want):
        return False
    if type(a) is float:
        x, y = a, want
        return memcmp(&x, &y, sizeof(double)) == 0
    if type(a) is tuple or type(a) is list:
        return repr(a) == repr(want)
    return a == want


cdef class FastCall:
    """The most recent plan of a CompiledFunction, with its guards: ``fast(args)`` runs the
    plan's program when ``args`` (positional, in parameter order) and grad mode are what the
    plan was made for, and gives MISS otherwise. ``FastCall()`` has no plan and always misses.
    The check is ``_guard``'s key, compared in place: no tuples are built."""

    cdef tuple guards  # per argument: a _TensorGuard, or the constant itself
    cdef bint grad_on
    cdef bint all_tensors  # every argument a tensor: the program takes args as they are
    cdef tuple tensor_args  # else the positions of the tensors
    cdef object program
    cdef readonly object plan

    def __init__(self, plan=None, args=(), program=None, bint grad_on=False):
        cdef list guards = []
        cdef list where = []
        self.plan, self.program, self.grad_on = plan, program, grad_on
        for i, a in enumerate(args):
            if isinstance(a, TensorBase):
                guards.append(_TensorGuard(a))
                where.append(i)
            else:
                guards.append(a)
        self.guards = tuple(guards)
        self.tensor_args = tuple(where)
        self.all_tensors = len(where) == len(guards)

    def __call__(self, tuple args):
        cdef Py_ssize_t i, n
        if self.program is None or grad_enabled() != self.grad_on:
            return MISS
        n = len(self.guards)
        if len(args) != n:
            return MISS
        for i in range(n):
            g = self.guards[i]
            a = args[i]
            if type(g) is _TensorGuard:
                if not isinstance(a, TensorBase) or not (<_TensorGuard>g).matches(a):
                    return MISS
            elif not _same_constant(a, g):
                return MISS
        if self.all_tensors:
            out = self.program(*args)
        else:
            out = self.program(*[args[i] for i in self.tensor_args])
        return MISS if out is None else out
