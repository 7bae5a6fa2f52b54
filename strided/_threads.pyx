"""Thread settings: how many threads strided's CPU kernels use (``strided.set_num_threads``).

Note [Thread settings]
~~~~~~~~~~~~~~~~~~~~~~
One number, kept here, decides how many threads every parallel loop may use: the loop plan's
element ranges (``plan_run`` in _iter.pyx), the reductions, sorts and scans, the random
generators and OpenBLAS's own pool (Note [Threads: ours and OpenBLAS's] in _cpu/blas.pyx). It
defaults to the cores this process may run on (``os.sched_getaffinity``, which respects
``taskset`` and container limits, unlike ``os.cpu_count``), or to ``STRIDED_NUM_THREADS``, or,
when that is unset, to ``OMP_NUM_THREADS``, the variable NumPy's BLAS and PyTorch read: a
process started with OMP_NUM_THREADS=1 (as a Dask worker is, or a job on a shared machine) gets
one thread from all three libraries, not one from two of them and every core from strided.
Kernels read it with the C function ``num_threads()`` (cimported from _threads.pxd), which needs
no GIL. Whether a loop is worth splitting at all is the loop plan's decision (Note [When a loop
is split] in _loop_plan.pyx), not this module's.

Note [Waking the workers on a shared machine]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Issue 20: mid-size ops inside a training step sometimes took 3-6x their time alone. Measured
with ``benchmarks/issue20_omp_wake.py`` (a 65536-element float32 add into out=, right after
~50 us of Python work, 100 calls per process, the OpenMP policies alternating over rounds;
2026-11-27 on the project's 2-core Zen 3 while three other engineers' builds and tests ran,
load average 7-8), median / 90th percentile:

    one thread                               17-24 / 21-35 us
    two threads, libgomp's default           10-17 us or 12-20 ms / 16-32 ms (bimodal)
    two threads, OMP_WAIT_POLICY=passive     39-52 / 46-70 us
    two threads, GOMP_SPINCOUNT=10000        0.8-1.0 ms / 1.1-3.9 ms (one round 11 us)
    two threads, OMP_WAIT_POLICY=active      12-20 ms / 16-32 ms (one round 10 us)

What happens: a worker that spins between regions uses up its share of a core that other
processes want, so the scheduler runs them instead, and the next region waits for the worker
to get the core back: a scheduler time slice, milliseconds, for an op worth 20 us. The
region's closing barrier waits for every worker, so no work sharing inside the region can hide
it. A sleeping worker (passive) has earned its wake-up and runs within ~20-30 us, every time.
The 3-6x of the issue is the mild form of this; on a loaded machine it is 1000x, and PyTorch's
own OpenMP pool (with the same 32k grain) behaves the same way (torch.add, same test: 13 us or
8-12 ms).

The policy this points to is built: a loop is split only when its serial time, measured per
inner loop, is well above a wake-up (Note [When a loop is split] in _loop_plan.pyx), which
takes the mid-size loops of a training step off the threads. The wait policy stays the
user's (libgomp reads it once, when it loads, possibly from another library first; passive
waiting was no better on the loaded machine, see that Note). OpenBLAS's GEMMs still split by
their own size rule (Note [Threads: ours and OpenBLAS's] in _cpu/blas.pyx) and meet the same
late workers on a loaded machine, so a job on a shared machine still runs best with
STRIDED_NUM_THREADS=1 (or OMP_NUM_THREADS=1, which all three libraries read).
"""

import os

cimport openmp

cdef int _num_threads = 1

# Called with the new count after every set_num_threads: how a library with its own thread pool
# (OpenBLAS, see Note [Threads: ours and OpenBLAS's] in _cpu/blas.pyx) keeps in step, registered
# from above so that this module imports nothing of it.
cdef list _num_threads_callbacks = []


def _default_threads():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def set_num_threads(int n):
    """Set how many threads strided's CPU kernels use (default: the cores this process may use).

    Examples
    --------
    >>> import strided
    >>> strided.set_num_threads(1); strided.get_num_threads()
    1
    >>> strided.set_num_threads(2)
    """
    global _num_threads
    if n < 1:
        raise ValueError(f"set_num_threads: n must be >= 1, got {n}")
    _num_threads = n
    openmp.omp_set_num_threads(n)
    for callback in _num_threads_callbacks:
        callback(n)


def _on_num_threads(callback):
    """Call ``callback(n)`` whenever set_num_threads(n) changes strided's thread count."""
    _num_threads_callbacks.append(callback)


def get_num_threads():
    """How many threads strided's CPU kernels use."""
    return _num_threads


cdef int num_threads() noexcept nogil:
    return _num_threads


def _openmp_info():
    """(whether OpenMP is compiled in, the most threads it will give)."""
    return True, openmp.omp_get_max_threads()


def _threads_from_environment():
    """STRIDED_NUM_THREADS, else the first level of OMP_NUM_THREADS ("4" or "4,2"), else 0."""
    for name in ("STRIDED_NUM_THREADS", "OMP_NUM_THREADS"):
        text = os.environ.get(name, "").split(",")[0].strip()
        if text.isdigit() and int(text) > 0:
            return int(text)
    return 0


set_num_threads(_threads_from_environment() or _default_threads())
