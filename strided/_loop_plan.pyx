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


# Note [When a loop is split]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Splitting a loop over threads pays when the loop's serial time is well above what starting
# the other threads costs. On a quiet machine that is a few microseconds (the OpenMP workers
# still spin from the last loop); on a shared one it is a scheduler time slice, milliseconds,
# whenever a worker has lost its core while spinning (Note [Waking the workers on a shared
# machine] in _threads.pyx). Measured inside the digits CNN's Adam step at two threads on the
# project's 2-core machine under the other engineers' builds and tests (each dispatcher
# kernel call timed where it runs): the step's 65,536-element relu, greater and where took
# 11-13 us at the median but ~16 ms at the 90th percentile (alone: 3-4 us), its 16,384-output
# max pooling reduction 34 us and 16 ms; the step 9.8 ms at the median, 88 ms at the 90th
# percentile, against 1.2 ms on one thread. An element count cannot say which loops are worth
# splitting: on this machine, per element, a float32 copy costs 0.07 ns, an add 0.12, float64
# tanh 1.7 and float64 erf 3.5 with AVX-512 but 27 ns at the x86-64-v2 level, a 400-fold
# range.
#
# So the grain is a time, and each loop's cost per element is measured, not guessed: a loop
# of at least 2 * GRAIN_SIZE elements is split only when its serial time, predicted from the
# last runs of the same inner loop (the same op, dtype and ISA level: one function pointer;
# a reduction's row function), is at least ``_parallel_ns`` (default 100 us,
# ``STRIDED_PARALLEL_US``; 0 is the rule before it, every such loop split). A loop not seen
# yet is assumed to cost an add's 0.25 ns per element. Every run of such a loop is timed (two
# clock reads, ~40 ns against at least ~5 us of work) and updates the loop's estimate: serial
# runs directly, split runs as their time times the threads used, an upper bound that keeps a
# loop that ran well in parallel split. The estimate is the mean of the old one and the new
# measurement, the new one capped at four times the old, so one run that was preempted does
# not push a cheap loop onto the threads. The estimates live in a small table indexed by the
# function pointer; two loops that share a slot only take turns to overwrite it, and a race
# between threads can only misplace a prediction, never change a result: elementwise results
# do not depend on the split (Note [The loop plan]), nor do the reductions' (fixed blocks,
# whole outputs per thread). The indexing kernels, scans, sorts and random generators keep
# their element grain (chunks.pxd and their own modules), OpenBLAS its own size rule.
#
# Measured with it (benchmarks/issue20_omp_wake.py --step: the rules alternated in one
# process, rounds of 30 steps; step median / 90th percentile, and the slowest call of a
# kernel on 16,384 to 1e6 elements in each round):
#
#   loaded machine (load 2-3)       CNN step                   slowest     MLP step
#   two threads, split by time      1.45-1.59 / 10.6-16.4 ms   0.05-5 ms   0.62 / 4.8-8.9 ms
#   two threads, split at 65,536    1.44-2.95 / 13.2-24.9 ms   4-20 ms     0.56 / 8.9-12.5 ms
#   one thread                      1.27-1.34 / 1.5-5.6 ms     0.04-4 ms   0.65 / 0.7-4.8 ms
#   quiet machine
#   two threads, split by time      1.18-1.22 / 1.24-1.39 ms   42-69 us    0.45 / 0.47-0.50 ms
#   two threads, split at 65,536    1.17-1.27 / 1.20-3.30 ms   26-1062 us  0.43 / 0.46-0.53 ms
#   one thread                      1.25-1.27 / 1.31-1.51 ms   39-107 us   0.65 / 0.68-0.72 ms
#
# The mid-size loops no longer stall (timed per call as above: relu, greater and where 15-28
# us at the 90th percentile instead of ~16 ms, the pooling reduction 40 us instead of 8-16
# ms). What is left of the loaded machine's 90th percentile is the GEMMs, which OpenBLAS
# splits by its own size rule (Note [Threads: ours and OpenBLAS's] in _cpu/blas.pyx), and the
# machine's own preemption, which the one-thread rows show too; one loaded round of the MLP
# step had a median of 72 ms under the new rule, none of it in the mid-size kernels (slowest
# 93 us): the GEMMs. The price on a quiet machine is the split the mid-size loops no longer
# get: ~20 us of the MLP step's 0.43 ms (its 200,704-element subtract and the like run on one
# thread). The 1e7-element rows at two
# threads are unchanged (15 alternated rounds, both rules: add, multiply, exp into out=
# 1.0-1.2 ms, sum 0.58, copy 0.7, max over dim 0 of a 1000 x 10000 matrix 1.4). Passive
# waiting (OMP_WAIT_POLICY=passive) was measured on the whole step too: no better loaded
# (medians of 2.4-24 ms in some rounds) and slower quiet; the wait policy stays the user's.

from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec
from libc.stdint cimport uintptr_t

cdef enum:
    COST_SLOTS = 256        # the table of measured loop costs (a power of two)

cdef struct LoopCost:
    const void* key         # whose estimate this is (NULL: an empty slot)
    double ns               # nanoseconds per element, serial

cdef LoopCost _costs[COST_SLOTS]
cdef double _DEFAULT_NS = 0.25  # per element, for a loop not measured yet: an add's
cdef double _parallel_ns = 100000.0  # serial time at which a loop is split (0: always)


cdef double clock_ns() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec * 1e9 + t.tv_nsec


cdef inline LoopCost* _cost_slot(const void* key) noexcept nogil:
    cdef uintptr_t h = <uintptr_t>key
    return &_costs[((h >> 4) ^ (h >> 12)) & (COST_SLOTS - 1)]


cdef bint split_pays(const void* key, Py_ssize_t work) noexcept nogil:
    """Whether ``work`` elements of the loop ``key`` are predicted to take at least
    ``_parallel_ns`` on one thread (Note [When a loop is split])."""
    cdef LoopCost* slot = _cost_slot(key)
    return (slot.ns if slot.key == key else _DEFAULT_NS) * work >= _parallel_ns


cdef void cost_measured(const void* key, Py_ssize_t work, double ns,
                        Py_ssize_t threads) noexcept nogil:
    """Fold one run of ``work`` elements of loop ``key``, ``ns`` long on ``threads`` threads,
    into the loop's estimate (Note [When a loop is split])."""
    cdef LoopCost* slot = _cost_slot(key)
    cdef double per = ns * threads / work
    if slot.key != key:
        slot.ns = per
        slot.key = key
        return
    if per > 4 * slot.ns:
        per = 4 * slot.ns
    slot.ns = 0.5 * (slot.ns + per)


cdef bint plan_run(const LoopPlan* plan, loop1d_fn loop, void* ctx) noexcept nogil:
    """Run the whole plan, split into one element range per thread when its serial time is
    worth it (Note [When a loop is split]).

    Returns whether it ran in parallel (for explain()).
    """
    cdef Py_ssize_t numel = plan.numel, chunk, c, nchunks
    cdef int nthreads = num_threads()
    cdef unsigned raised = 0
    cdef double t0
    if numel == 0:
        return False
    if nthreads <= 1 or numel < 2 * GRAIN_SIZE:
        plan_run_range(plan, loop, ctx, 0, numel)
        return False
    t0 = clock_ns()
    if not split_pays(<const void*>loop, numel):
        plan_run_range(plan, loop, ctx, 0, numel)
        cost_measured(<const void*>loop, numel, clock_ns() - t0, 1)
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
    cost_measured(<const void*>loop, numel, clock_ns() - t0, nchunks)
    return True


def _set_parallel_us(double us):
    """Split loops whose serial time is at least ``us`` microseconds (Note [When a loop is
    split]; 0: every loop of at least 2 * GRAIN_SIZE elements, the rule before it). Returns
    the old value. For benchmarks and tests."""
    global _parallel_ns
    old = _parallel_ns / 1000
    _parallel_ns = us * 1000
    return old


def _loop_costs():
    """{loop address: estimated ns per element} of every loop measured so far (for tests)."""
    cdef int i
    return {<uintptr_t>_costs[i].key: _costs[i].ns for i in range(COST_SLOTS)
            if _costs[i].key != NULL}


def _parallel_us_from_environment():
    """STRIDED_PARALLEL_US if set to a number >= 0, else None."""
    import os

    text = os.environ.get("STRIDED_PARALLEL_US", "").strip()
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value >= 0 else None


if _parallel_us_from_environment() is not None:
    _set_parallel_us(_parallel_us_from_environment())


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
        # may run split: whether it does depends on its loop (Note [When a loop is split])
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
