"""The loop plan: how any strided, broadcast operation becomes a few tight 1-D loops.

This is the shape half of PyTorch's TensorIterator (``aten/src/ATen/TensorIterator.cpp``). A
kernel never sees a tensor: it sees data pointers, byte strides and a length. This module turns
tensors into exactly that, and runs the loops, in parallel when there is enough work.

Note [The loop plan]
~~~~~~~~~~~~~~~~~~~~
Given operands that all have the same shape (broadcasting has already given stride 0 to the
dims an input lacks), the plan is built in three steps:

1. **Strides in bytes.** ``stride_bytes[d][k] = strides[d] * itemsize`` of operand k, so that one
   loop can step operands of different dtypes (a float32 -> float64 copy).
2. **Reorder** (``plan_reorder``). Dims are sorted so that dim 0 is the one where operand 0 (the
   output) takes its smallest steps. A transposed output is then walked in memory order, not in
   index order; the result is the same, the cache is far happier. Ties (stride 0, a broadcast
   dim) are broken by the next operand, as PyTorch does.
3. **Coalesce** (``plan_coalesce``). Neighbouring dims d (inner) and d+1 merge into one when,
   for *every* operand, ``shape[d] * stride[d] == stride[d+1]``: stepping off the end of dim d
   lands exactly where the next step of dim d+1 would. A contiguous tensor of any rank becomes
   one dim; ``x[:, :3]`` of a contiguous (4, 6) tensor stays two (a gap after each row), while
   ``x[:, ::2]`` becomes one evenly stepped dim.

Running it (``plan_run_range``): dim 0 is the inner loop handed to the kernel; the outer dims are
walked by a counter, like an odometer. Work is split across threads by *element ranges*
[begin, end): each thread starts its odometer at ``begin``. Every element is computed by exactly
the same code whichever thread runs it, so elementwise results do not depend on the thread count.
"""

from cython.parallel cimport prange

from strided._core cimport MAX_DIMS
from strided._fpstatus cimport fp_clear, fp_raise, fp_raised
from strided._threads cimport num_threads


# =============================================================================================
# Building a plan. See Note [The loop plan].
# =============================================================================================

cdef int plan_init(LoopPlan* plan, int noperands, int ndim, const Py_ssize_t* shape) except -1:
    cdef int d
    if noperands > MAX_OPERANDS:
        raise ValueError(f"at most {MAX_OPERANDS} operands per loop, got {noperands}")
    plan.noperands = noperands
    plan.ndim = ndim
    plan.numel = 1
    # The plan stores dims innermost-first: plan dim d is the caller's dim ndim-1-d.
    for d in range(ndim):
        plan.shape[d] = shape[ndim - 1 - d]
        plan.perm[d] = ndim - 1 - d
        plan.numel *= plan.shape[d]
    return 0


cdef void plan_set_operand(LoopPlan* plan, int k, char* data, const Py_ssize_t* strides,
                           Py_ssize_t itemsize) noexcept:
    """Operand k: its first element and its strides (in elements, in the caller's dim order)."""
    cdef int d, n = plan.ndim
    plan.data[k] = data
    for d in range(n):
        plan.stride_bytes[d][k] = strides[n - 1 - d] * itemsize


cdef inline Py_ssize_t _absval(Py_ssize_t x) noexcept nogil:
    return x if x >= 0 else -x


cdef int _should_swap(const LoopPlan* plan, int a, int b) noexcept:
    """Compare dims a (currently inner) and b (outer): 1 if b should be inner, -1 if not, 0 if
    no operand has an opinion."""
    cdef int k
    cdef Py_ssize_t sa, sb
    for k in range(plan.noperands):
        sa = _absval(plan.stride_bytes[a][k])
        sb = _absval(plan.stride_bytes[b][k])
        if sa == 0 or sb == 0:
            continue  # a broadcast dim says nothing about memory order
        if sa < sb:
            return -1
        if sa > sb:
            return 1
        # equal strides: the longer dim goes inside (PyTorch's rule for size-1 dims)
        if plan.shape[a] > plan.shape[b]:
            return -1
        if plan.shape[a] < plan.shape[b]:
            return 1
    return 0


cdef void _swap_dims(LoopPlan* plan, int a, int b) noexcept:
    cdef int k
    cdef Py_ssize_t t
    plan.shape[a], plan.shape[b] = plan.shape[b], plan.shape[a]
    plan.perm[a], plan.perm[b] = plan.perm[b], plan.perm[a]
    for k in range(plan.noperands):
        t = plan.stride_bytes[a][k]
        plan.stride_bytes[a][k] = plan.stride_bytes[b][k]
        plan.stride_bytes[b][k] = t


cdef void plan_reorder(LoopPlan* plan) noexcept:
    """Insertion sort of the dims, smallest steps innermost (see Note [The loop plan]).

    As in PyTorch's reorder_dimensions, a comparison without an opinion (a broadcast or size-1
    dim) does not stop the scan: the dim being placed keeps moving past it toward the inside.
    """
    cdef int i, dim0, dim1, c
    for i in range(1, plan.ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            c = _should_swap(plan, dim0, dim1)
            if c > 0:
                _swap_dims(plan, dim0, dim1)
                dim1 = dim0
            elif c < 0:
                break


cdef void plan_coalesce(LoopPlan* plan) noexcept:
    """Merge neighbouring dims that every operand walks as one (see Note [The loop plan])."""
    cdef int d, k, out = 0
    cdef bint can_merge
    if plan.ndim <= 1:
        return
    if plan.numel == 0:
        # Nothing will run: one empty dim is the whole story.
        plan.ndim = 1
        plan.shape[0] = 0
        return
    for d in range(1, plan.ndim):
        if plan.shape[d] == 1:
            continue  # a size-1 dim never moves the pointers: drop it
        if plan.shape[out] == 1:
            # the kept dim is size 1 (only possible at out == 0): replace it by dim d
            plan.shape[out] = plan.shape[d]
            plan.perm[out] = plan.perm[d]
            for k in range(plan.noperands):
                plan.stride_bytes[out][k] = plan.stride_bytes[d][k]
            continue
        can_merge = True
        for k in range(plan.noperands):
            if plan.shape[out] * plan.stride_bytes[out][k] != plan.stride_bytes[d][k]:
                can_merge = False
                break
        if can_merge:
            plan.shape[out] *= plan.shape[d]
        else:
            out += 1
            plan.shape[out] = plan.shape[d]
            plan.perm[out] = plan.perm[d]
            for k in range(plan.noperands):
                plan.stride_bytes[out][k] = plan.stride_bytes[d][k]
    plan.ndim = out + 1


cdef Py_ssize_t plan_dense_operand(LoopPlan* plan, int k, Py_ssize_t* strides,
                                   Py_ssize_t itemsize) noexcept:
    """Lay operand k (an output not allocated yet) out densely in the plan's dim order: plan dim
    0, where the inputs step least, becomes its fastest dim. Writes its strides (in elements, in
    the caller's dim order) into ``strides``, sets its byte strides in the plan, and returns how
    many elements to allocate. Call it after plan_reorder and before plan_coalesce.

    This is how an output keeps the inputs' memory order (NumPy's ``order='K'``): the
    elementwise iterator's output (Note [The elementwise iterator], step 4) and a reduction's
    result (Note [Reductions] in _cpu/reduce.pyx.tp) are both laid out by it.
    """
    cdef int d
    cdef Py_ssize_t acc = 1
    for d in range(plan.ndim):
        strides[plan.perm[d]] = acc
        plan.stride_bytes[d][k] = acc * itemsize
        acc *= plan.shape[d]
    return acc


# =============================================================================================
# Running a plan
# =============================================================================================

cdef void plan_run_range(const LoopPlan* plan, loop1d_fn loop, void* ctx,
                         Py_ssize_t begin, Py_ssize_t end) noexcept nogil:
    """Run elements [begin, end) of the plan (in its dim order) through ``loop``."""
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef char* ptrs[MAX_OPERANDS]
    cdef Py_ssize_t rem = begin, n
    cdef int d, k, nops = plan.noperands, ndim = plan.ndim
    if begin >= end:
        return
    if ndim == 0:
        # a 0-d plan: one element
        for k in range(nops):
            ptrs[k] = plan.data[k]
        loop(ptrs, plan.stride_bytes[0], 1, ctx)
        return
    # the odometer's starting position: ``begin`` in mixed radix (shape[0] fastest)
    for d in range(ndim):
        idx[d] = rem % plan.shape[d]
        rem = rem // plan.shape[d]
    while True:
        for k in range(nops):
            ptrs[k] = plan.data[k]
            for d in range(ndim):
                ptrs[k] += idx[d] * plan.stride_bytes[d][k]
        n = plan.shape[0] - idx[0]
        if n > end - begin:
            n = end - begin
        loop(ptrs, plan.stride_bytes[0], n, ctx)
        begin += n
        if begin >= end:
            return
        # advance the odometer: the inner dim is done, carry into the outer ones
        idx[0] = 0
        for d in range(1, ndim):
            idx[d] += 1
            if idx[d] < plan.shape[d]:
                break
            idx[d] = 0


cdef bint plan_run(const LoopPlan* plan, loop1d_fn loop, void* ctx) noexcept nogil:
    """Run the whole plan, split into one element range per thread above GRAIN_SIZE elements.

    Returns whether it ran in parallel (for explain()).
    """
    cdef Py_ssize_t numel = plan.numel, chunk, c, nchunks
    cdef int nthreads = num_threads()
    cdef unsigned raised = 0
    if numel == 0:
        return False
    if nthreads <= 1 or numel < 2 * GRAIN_SIZE:
        plan_run_range(plan, loop, ctx, 0, numel)
        return False
    nchunks = numel // GRAIN_SIZE
    if nchunks > nthreads:
        nchunks = nthreads
    chunk = (numel + nchunks - 1) // nchunks
    for c in prange(nchunks, num_threads=nthreads, schedule="static"):
        # each thread has its own floating-point status flags: collect every chunk's and raise
        # them on this thread, where the op tests them (Note [Floating-point errors] in
        # _errstate.py); two flag operations per chunk of at least GRAIN_SIZE elements
        fp_clear()
        plan_run_range(plan, loop, ctx, c * chunk, min(numel, (c + 1) * chunk))
        raised |= fp_raised()
    fp_raise(raised)
    return True


# =============================================================================================
# A Python view of a plan, for explain() and for tests of the shape logic itself
# =============================================================================================

def _plan_for(shape, operands):
    """The plan for ``operands`` (a list of (strides_in_elements, itemsize)) of one ``shape``.

    Returns a dict with the reordered, coalesced shape (outermost first), each operand's byte
    strides in the same order, and which original dims ended up where. A teaching and testing aid:
    the kernels build the same plan in C.
    """
    cdef LoopPlan plan
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int ndim = len(shape), k, d
    for d in range(ndim):
        sizes[d] = shape[d]
    plan_init(&plan, len(operands), ndim, sizes)
    for k, (st, item) in enumerate(operands):
        for d in range(ndim):
            strides[d] = st[d]
        plan_set_operand(&plan, k, NULL, strides, item)
    plan_reorder(&plan)
    order = [plan.perm[d] for d in range(plan.ndim)][::-1]
    plan_coalesce(&plan)
    return {
        "loop_shape": tuple([plan.shape[d] for d in range(plan.ndim)][::-1]),
        "stride_bytes": [tuple([plan.stride_bytes[d][k] for d in range(plan.ndim)][::-1])
                         for k in range(plan.noperands)],
        "dim_order": tuple(order),
        "numel": plan.numel,
        "parallel": num_threads() > 1 and plan.numel >= 2 * GRAIN_SIZE,
    }


def loop_dims(shape, strides, bint reorder=False):
    """The loop over ``shape`` (outermost first) for operands with ``strides`` (one sequence per
    operand, in the same dim order, in any unit: bytes or elements): size-1 dims dropped,
    neighbours merged where every operand allows (plan_coalesce), and, with ``reorder``, dims
    first sorted by stride (plan_reorder; without it row-major order is kept). Returned as
    ``(sizes, strides)``, innermost first, ``strides[k]`` operand k's: the loop geometry the CUDA
    kernels take (Note [The CUDA launch] in strided/cuda/_launch.py), built by the same code as
    every CPU loop.

    Examples
    --------
    >>> from strided._loop_plan import loop_dims
    >>> loop_dims((2, 3, 4), [(96, 32, 8)])      # a contiguous float64 tensor: one run
    ([24], [[8]])
    >>> loop_dims((2, 3), [(8, 16)], reorder=True)   # its transpose: walked in memory order
    ([6], [[8]])
    """
    cdef LoopPlan plan
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t st[MAX_DIMS]
    cdef int ndim = len(shape), nops = len(strides), k, d
    if ndim > MAX_DIMS:
        raise ValueError(f"at most {MAX_DIMS} dims, got {ndim}")
    for d in range(ndim):
        sizes[d] = shape[d]
    plan_init(&plan, nops, ndim, sizes)
    for k in range(nops):
        for d in range(ndim):
            st[d] = strides[k][d]
        plan_set_operand(&plan, k, NULL, st, 1)
    if reorder:
        plan_reorder(&plan)
    plan_coalesce(&plan)
    if plan.ndim == 1 and plan.shape[0] == 1 or plan.ndim == 0:
        return [], [[] for _ in range(nops)]    # one element: no dims at all
    return ([plan.shape[d] for d in range(plan.ndim)],
            [[plan.stride_bytes[d][k] for d in range(plan.ndim)] for k in range(nops)])
