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
no GIL. Whether a loop is worth splitting at all is the loop plan's decision (``GRAIN_SIZE`` in
_iter.pxd), not this module's.
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
