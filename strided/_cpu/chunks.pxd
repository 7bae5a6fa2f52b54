# How many threads a job gets, and running it as that many element ranges: shared by the
# indexing kernels (offsets.pyx, index.pyx.tp, mask.pyx), which split their work into one element
# range (and one context) per thread.

from cython.parallel cimport prange

from strided._iter cimport GRAIN_SIZE, LoopPlan, loop1d_fn, plan_run_range
from strided._threads cimport num_threads


cdef inline Py_ssize_t nchunks(Py_ssize_t work, Py_ssize_t splittable) noexcept nogil:
    """How many threads a job of ``work`` elements gets, when only ``splittable`` of its
    positions may be divided among them."""
    cdef Py_ssize_t n = num_threads()
    if n <= 1 or work < 2 * GRAIN_SIZE:
        return 1
    if n > work // GRAIN_SIZE:
        n = work // GRAIN_SIZE
    if n > splittable:
        n = splittable
    return n if n > 1 else 1


cdef inline void run_chunked(const LoopPlan* plan, loop1d_fn loop, char* ctxs,
                             Py_ssize_t ctx_size, Py_ssize_t nparts) noexcept nogil:
    """Run the plan as ``nparts`` element ranges (``nchunks`` of its work), part c with the
    context at ``ctxs + c * ctx_size`` (so that each thread reports into its own context)."""
    cdef Py_ssize_t c, chunk
    if nparts <= 1:
        plan_run_range(plan, loop, ctxs, 0, plan.numel)
        return
    chunk = (plan.numel + nparts - 1) // nparts
    for c in prange(nparts, num_threads=nparts, schedule="static"):
        plan_run_range(plan, loop, ctxs + c * ctx_size, c * chunk,
                       min(plan.numel, (c + 1) * chunk))
