"""OpenBLAS's threads: how many it uses, and which threads run its jobs (strided's OpenMP team).

The thread count itself is one number kept in ``strided/_threads.pyx`` (Note [Thread
settings]); this module keeps OpenBLAS in step with it and lends OpenBLAS strided's threads, so
that the process has one pool of threads, not two (Note [One pool of threads] below). The matmul
kernel (``_cpu/blas.pyx``) decides how a batch of products is split between threads (Note
[Threads: ours and OpenBLAS's] there); nothing here knows about matrices.

``blas.pyx`` imports this module before its first GEMM, so the set-up below has run by then.
"""

cimport openmp
from cython.parallel cimport prange

from strided._threads cimport num_threads

from strided._threads import _on_num_threads


cdef extern from "cblas.h" nogil:
    # The wheel's library prefixes every symbol with scipy_ (see Note [Finding OpenBLAS at run
    # time] in setup.py).
    void scipy_openblas_set_num_threads(int n)
    int scipy_openblas_get_num_threads()
    # Caller-managed threading (OpenBLAS >= 0.3.27): see Note [One pool of threads]
    ctypedef void (*openblas_dojob_callback)(
        int thread_num, void* jobdata, int dojob_data) noexcept nogil
    ctypedef void (*openblas_threads_callback)(
        int sync, openblas_dojob_callback dojob, int numjobs, size_t jobdata_elsize,
        void* jobdata, int dojob_data) noexcept nogil
    void scipy_openblas_set_threads_callback_function(openblas_threads_callback callback)
    int scipy_openblas_get_parallel()
    char* scipy_openblas_get_config()
    char* scipy_openblas_get_corename()


# Note [One pool of threads]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# OpenBLAS brings its own pool of threads (pthreads), and strided's kernels use OpenMP's. Two
# pools on the same cores fight *between* calls: after a parallel loop, GNU OpenMP's idle
# workers spin for a while (GOMP_SPINCOUNT, 300000 pause instructions, milliseconds) before they
# sleep, and OpenBLAS's idle workers likewise poll for their next job. A GEMM started meanwhile
# finds a core taken; its jobs wait for each other (each one packs a panel of B that the others
# read), so one descheduled job stalls them all for whole scheduler ticks, and the next parallel
# loop meets OpenBLAS's pollers in turn. Measured on 2 shared cores: the MLP training step of
# benchmarks/bench_autograd.py (2 GEMMs forward, 3 backward, a few parallel elementwise loops)
# took 30 to 120 ms with both pools at 2 threads, against 1.0 ms with either pool at 1 thread;
# and copying a 1024 x 1024 float32 operand (0.3 ms, in parallel) right before its GEMM
# (10.6 ms) made the pair take 19.9 ms.
#
# So OpenBLAS gets no threads of its own: ``openblas_set_threads_callback_function`` hands every
# threaded call's jobs to ``_blas_jobs``, which runs them on strided's OpenMP team, the threads
# that are still spinning from the last loop and pick a job up at once. That is PyTorch's set-up
# too (one OpenMP pool for ATen's loops and for MKL or OpenBLAS). Measured on the same 2 cores,
# shared with other jobs, steps interleaved in one process (``_share_threads`` switches): median
# 1.1 ms with one pool, 24 ms with two, PyTorch 1.2 ms. Environment settings such as
# OMP_WAIT_POLICY=passive would also stop the fight, but slow the start of every parallel loop
# and reach every other OpenMP library in the process.
#
# The jobs of one level-3 call wait for each other, so all of them must run at once: one thread
# per job, never a team smaller than the job count. A team is that small only inside another
# parallel region with nesting off; strided never calls a threaded GEMM from inside its own
# prange (Note [Threads: ours and OpenBLAS's]), and for a caller that does, ``_blas_jobs``
# raises OpenMP's nesting limit first rather than deadlock.


cdef void _blas_jobs(int sync, openblas_dojob_callback dojob, int numjobs, size_t jobdata_elsize,
                     void* jobdata, int dojob_data) noexcept nogil:
    """Run OpenBLAS's jobs on strided's OpenMP threads, one thread per job (Note [One pool of
    threads]); ``dojob(thread, job, data)`` is OpenBLAS's own worker body."""
    cdef char* jobs = <char*>jobdata
    cdef int job
    if numjobs <= 1:
        if numjobs == 1:
            dojob(0, jobs, dojob_data)
        return
    if openmp.omp_get_active_level() >= openmp.omp_get_max_active_levels():
        openmp.omp_set_max_active_levels(openmp.omp_get_active_level() + 1)
    # a team of numjobs threads (nesting is allowed above) and one job each: job j runs on
    # thread j, which is also the index of the packing buffer OpenBLAS lends it
    for job in prange(numjobs, num_threads=numjobs, schedule="static", chunksize=1):
        dojob(job, jobs + <size_t>job * jobdata_elsize, dojob_data)


def _share_threads(bint share=True):
    """Run OpenBLAS's jobs on strided's OpenMP threads (the default), or, with False, on
    OpenBLAS's own pool again: for measuring Note [One pool of threads]. Call it only while no
    matmul is running."""
    scipy_openblas_set_threads_callback_function(
        _blas_jobs if share else <openblas_threads_callback>NULL)


_share_threads(True)


def _set_blas_threads(int n):
    """Make OpenBLAS use n threads (called by strided.set_num_threads)."""
    scipy_openblas_set_num_threads(n)


def blas_info():
    """Which BLAS the float matmuls call, and how it is set up.

    Examples
    --------
    >>> import strided
    >>> from strided._cpu import blas
    >>> blas.blas_info()["threads"] == strided.get_num_threads()
    True
    """
    parallel = scipy_openblas_get_parallel()
    return {
        "library": "OpenBLAS (scipy-openblas32: 32-bit ints, symbols prefixed scipy_)",
        "config": scipy_openblas_get_config().decode(),
        "corename": scipy_openblas_get_corename().decode(),
        "threads": scipy_openblas_get_num_threads(),
        "threading": {0: "sequential", 1: "pthreads", 2: "OpenMP"}.get(parallel, str(parallel))
        + ", jobs run on strided's OpenMP threads (Note [One pool of threads])",
    }


_on_num_threads(_set_blas_threads)
_set_blas_threads(num_threads())
