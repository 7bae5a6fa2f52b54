"""``python -m strided``: what this build of strided is, and a short tour of a view.

Prints the version, the build facts (OpenMP threads, BLAS, CUDA) and then walks one tensor
through a few views with ``explain()``, so that a new user sees strides at work in ten seconds.
"""

from __future__ import annotations

import platform
import sys
import time

import numpy as np

import strided
from strided import _iter


def _cuda_status():
    """Whether a CUDA device could be used, and if not, why not (never raises)."""
    try:
        import cupy  # noqa: F401
    except ImportError:
        return "not available: CuPy is not installed (pip install 'strided[cuda]')"
    try:
        import cupy

        if cupy.is_available():
            return (
                f"CuPy {cupy.__version__} sees {cupy.cuda.runtime.getDeviceCount()} GPU(s); "
                "strided's CUDA backend is not part of this build yet"
            )
        return f"not available: CuPy {cupy.__version__} is installed but finds no usable GPU/driver"
    except Exception as e:  # a broken CUDA install must not break the tour
        return f"not available: {type(e).__name__}: {e}"


def _blas_status():
    """Which BLAS matmul uses, its CPU kernel and threads."""
    from strided._cpu import blas

    info = blas.blas_info()
    return f"{info['config']} (kernel {info['corename']}, {info['threads']} thread(s))"


def build_facts():
    """The facts a benchmark report or a bug report needs, as (name, value) pairs."""
    has_omp, omp_max = _iter._openmp_info()
    return [
        ("strided", strided.__version__),
        ("python", f"{platform.python_version()} ({sys.platform}, {platform.machine()})"),
        ("numpy", np.__version__),
        (
            "OpenMP",
            f"{'yes' if has_omp else 'no'}; strided uses {strided.get_num_threads()} "
            f"thread(s) (OpenMP offers {omp_max}; strided.set_num_threads to change)",
        ),
        (
            "BLAS",
            _blas_status(),
        ),
        ("CUDA", _cuda_status()),
        ("dtypes", ", ".join(d.name for d in strided._dtype.all_dtypes())),
    ]


def tour(out=print):
    """A few views of one small tensor, each explained."""
    x = strided.arange(12, dtype="float32").reshape(3, 4)
    steps = [
        ("x = strided.arange(12, dtype='float32').reshape(3, 4)", x),
        ("x.T  (a transpose swaps two strides; no data moves)", x.T),
        ("x[::2, 1::2]  (steps multiply strides, the start moves the offset)", x[::2, 1::2]),
        ("x[:, ::-1]  (a negative stride walks backwards)", x[:, ::-1]),
        ("x[1].expand(2, 4)  (stride 0: one row seen twice)", x[1].expand(2, 4)),
        (
            "x.T.reshape(12)  (no strides can do this: reshape copies, and says why)",
            x.T.reshape(12),
        ),
    ]
    for title, t in steps:
        out("")
        out(">>> " + title)
        out(repr(t))
        out(t.explain())


def main(argv=None):
    t0 = time.perf_counter()
    print(f"strided {strided.__version__}: tensors as (storage, offset, sizes, strides, dtype)")
    print()
    width = max(len(k) for k, _ in build_facts())
    for k, v in build_facts():
        print(f"  {k:<{width}}  {v}")
    print()
    print("A tour of views. Every tensor below shares the same 48-byte storage except the last.")
    tour()
    print()
    print(f"done in {time.perf_counter() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
