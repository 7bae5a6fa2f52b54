"""Agreement checks and timing of benchmark cases (Note [How the benchmark CLI measures])."""

from __future__ import annotations

import os
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

LIBRARIES = ("strided", "numpy", "torch", "cupy")

__all__ = [
    "CaseResult",
    "IDLE_THREAD_SETTINGS",
    "LIBRARIES",
    "run_suite",
    "numpy_blas_threads",
    "settle_idle_threads",
    "to_numpy",
]

# Note [The other libraries' idle threads]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The libraries compared here share one process, and each brings a pool of threads that stays
# busy *after* its call returns: NumPy's OpenBLAS polls for its next job for up to 2^28 cycles
# (~0.1 s, its OPENBLAS_THREAD_TIMEOUT) before its threads sleep, and the OpenMP runtimes of
# strided and PyTorch spin for GOMP_SPINCOUNT (300000) pauses. When the process has as many
# threads as the machine has cores, the next library's call meets those spinners, and a GEMM,
# whose jobs wait for each other, stalls whenever one of them is descheduled. Measured on the
# project's 2 cores at 2 threads, `x.T @ g` (64x784 transposed times 64x256, float32), medians:
#
#   | in the process            | strided | NumPy  | PyTorch |
#   |---------------------------|---------|--------|---------|
#   | each library alone        | 220-267 | 218 us | 222 us  |
#   | strided and NumPy         | 1249 us | 402 us |         |
#   | all three, settings below | 217 us  | 225 us | 217 us  |
#
# So whoever ran second paid for whoever ran first, and a ratio measured the pools' fight, not
# the libraries. The benchmark programs therefore tell idle pools to sleep soon, with the
# settings below (a user's own values win), and restart themselves once so that every library
# reads them when it loads; the report's header names them. A pool still spins for ~0.1-0.2 ms
# after its call, long enough to catch the next call of the same library in a timing loop.

IDLE_THREAD_SETTINGS = {"OPENBLAS_THREAD_TIMEOUT": "4", "GOMP_SPINCOUNT": "10000"}


def settle_idle_threads():
    """Restart this program once with IDLE_THREAD_SETTINGS in its environment (Note [The other
    libraries' idle threads]); returns only when they are in effect, or cannot be applied."""
    if os.environ.get("STRIDED_BENCH_SETTLED") == "1":
        return
    env = dict(os.environ, STRIDED_BENCH_SETTLED="1")
    for k, v in IDLE_THREAD_SETTINGS.items():
        env.setdefault(k, v)
    argv = getattr(sys, "orig_argv", None)
    if not argv or sys.flags.interactive or argv[1:2] == ["-c"]:
        return  # not a program we can start again as it was
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *argv[1:]], env)


# Note [NumPy's BLAS threads]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A "1 thread" row must hold every library to one thread. strided and PyTorch have a call for
# it; NumPy has none, and its matmul, solve and the like run in the OpenBLAS that NumPy's wheel
# carries (numpy.libs/libscipy_openblas64_*.so), which starts as many threads as the machine
# has cores. So at 1 thread the NumPy column of a matmul-heavy row (the MLP step) was a
# 2-thread number. That library's own C call sets its thread count at run time; we find the
# library among the ones this process has loaded (/proc/self/maps) and call it. Where it
# cannot be found (another BLAS, another system), the report says "unknown" and the reader
# knows the NumPy column may use more threads.

_NUMPY_BLAS_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def numpy_blas_threads(n=None):
    """Set NumPy's own OpenBLAS to ``n`` threads (when given) and return its thread count, or
    None when that library cannot be reached (Note [NumPy's BLAS threads])."""
    import ctypes

    libs_dir = os.path.dirname(os.path.dirname(np.__file__))
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line}
    except OSError:
        return None
    for path in sorted(paths):
        if not path.startswith(os.path.join(libs_dir, "numpy")):  # numpy.libs or numpy/.libs
            continue
        lib = ctypes.CDLL(path)  # already loaded: this only looks it up
        for name in _NUMPY_BLAS_SETTERS:
            setter = getattr(lib, name, None)
            getter = getattr(lib, name.replace("set_", "get_"), None)
            if setter is None or getter is None:
                continue
            if n is not None:
                setter(ctypes.c_int(int(n)))
            return int(getter())
    return None


@dataclass
class CaseResult:
    suite: str
    name: str
    device: str
    status: str  # "ok", "unchecked", "disagree", "error"
    message: str = ""
    median: dict = field(default_factory=dict)  # library -> seconds per call, steady state
    spread: dict = field(default_factory=dict)  # library -> (max - min) / median
    first: dict = field(default_factory=dict)  # library -> seconds of the very first call

    def ratio(self, lib):
        """other library's time / strided's: above 1 means strided is faster."""
        if lib not in self.median or "strided" not in self.median:
            return None
        return self.median[lib] / self.median["strided"]


def to_numpy(r):
    """Any library's result as a NumPy array (None stays None)."""
    if r is None:
        return None
    if isinstance(r, tuple):  # (values, indices) of a sort or topk: compare the values
        r = r[0]
    if hasattr(r, "get") and type(r).__module__.startswith("cupy"):
        return r.get()
    if type(r).__module__.startswith("torch"):
        return r.detach().cpu().numpy()
    if hasattr(r, "device") and getattr(r.device, "type", "cpu") != "cpu":
        return np.asarray(r.cpu())
    return np.asarray(r)


def _tolerance(a, rtol):
    if rtol is not None:
        return rtol
    if a.dtype.kind in "fc":
        return 1e-5 if a.dtype in (np.float32, np.complex64) else 1e-9
    return 0


def check_agreement(case):
    """("ok" | "unchecked" | "disagree", message). The case's own check when it has one; else
    each library's result against the reference library's."""
    if case.check is not None:
        case.check()
        return "ok", "the case's own check"
    ref_fn = case.fns.get(case.reference)
    if ref_fn is None:
        return "unchecked", f"no {case.reference} to compare with"
    ref = to_numpy(ref_fn())
    if ref is None:
        return "unchecked", (case.notes[0] if case.notes else "the function returns nothing")
    compared = []
    for lib, fn in case.fns.items():
        if lib == case.reference:
            continue
        got = to_numpy(fn())
        if got is None:
            continue
        if got.shape != ref.shape:
            return "disagree", f"{lib} gives shape {got.shape}, {case.reference} {ref.shape}"
        rtol = _tolerance(ref, case.rtol)
        # atol relative to the largest value: a sum of many float32 products is exact to
        # about rtol * its scale, not rtol * itself when it lands near zero
        scale = float(np.max(np.abs(ref))) if ref.size and ref.dtype.kind in "fc" else 0.0
        if not np.allclose(got, ref, rtol=rtol, atol=rtol * scale, equal_nan=True):
            err = np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64)))
            return "disagree", f"{lib} differs from {case.reference} by up to {err:.3g}"
        compared.append(lib)
    return "ok", "agrees with " + case.reference + (f" ({', '.join(compared)})" if compared else "")


def _cpu_clock(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return time.perf_counter() - t0


def _gpu_clock(lib):
    import cupy as cp

    def clock(fn, n):
        cp.cuda.runtime.deviceSynchronize()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(n):
            fn()
        end.record()
        end.synchronize()
        if lib in ("strided", "torch"):  # work queued on other streams
            cp.cuda.runtime.deviceSynchronize()
        return cp.cuda.get_elapsed_time(start, end) / 1e3

    return clock


def time_fn(fn, clock, min_time=0.02, repeats=7, warmup=2):
    """(first call, steady-state median, spread) in seconds per call."""
    first = clock(fn, 1)
    for _ in range(warmup):
        fn()
    n = 1
    while True:
        dt = clock(fn, n)
        if dt >= min_time or n >= 1 << 16:
            break
        n *= 4 if dt < min_time / 8 else 2
    samples = [clock(fn, n) / n for _ in range(repeats)]
    med = statistics.median(samples)
    return first, med, (max(samples) - min(samples)) / med if med > 0 else 0.0


def run_case(case, quick=False):
    try:
        status, message = check_agreement(case)
    except Exception as e:  # a check that raises is a disagreement, named
        last = traceback.extract_tb(e.__traceback__)[-1]
        return CaseResult(
            case.suite,
            case.name,
            case.device,
            "disagree",
            f"{type(e).__name__}: {str(e).strip()[:300]} ({last.name})",
        )
    result = CaseResult(case.suite, case.name, case.device, status, message)
    if quick or status == "disagree":
        return result
    for lib in LIBRARIES:
        fn = case.fns.get(lib)
        if fn is None:
            continue
        clock = _gpu_clock(lib) if case.device == "cuda" else _cpu_clock
        try:
            first, med, spread = time_fn(fn, clock)
        except Exception as e:
            result.status = "error"
            result.message = f"{lib}: {type(e).__name__}: {e}"
            continue
        result.first[lib], result.median[lib], result.spread[lib] = first, med, spread
    return result


def run_suite(cases, quick=False, on_result=None):
    """Run ``cases`` (an iterable of Case); returns the CaseResults, calling ``on_result(r)``
    after each."""
    results = []
    for case in cases:
        r = run_case(case, quick)
        results.append(r)
        if on_result is not None:
            on_result(r)
    return results
