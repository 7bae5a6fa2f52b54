"""``python -m strided``: the main job. Trains a small MLP and a small CNN on handwritten digits.

``python -m strided`` prints the build facts (OpenMP threads, BLAS, CUDA), then trains both models
on scikit-learn's 8x8 digits (1,797 images that ship inside the scikit-learn package, so nothing
is downloaded) with a tqdm progress bar, and prints a summary. ``python -m strided --facts``
prints the build facts and a short tour of views with ``explain()`` instead (what this command did
before there was an nn). The training itself is in ``strided/_train.py``; ``--help`` lists the
options.
"""

from __future__ import annotations

import platform
import sys
import time

import numpy as np

import strided
from strided import _threads
from strided._cpu import cpu_dispatch


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
    has_omp, omp_max = _threads._openmp_info()
    return [
        ("strided", strided.__version__),
        ("python", f"{platform.python_version()} ({sys.platform}, {platform.machine()})"),
        ("numpy", np.__version__),
        # which compiled variant of the hot kernels this CPU runs (Note [Choosing kernels at run
        # time] in strided/_cpu/cpu_dispatch.py)
        ("kernels", cpu_dispatch.facts()),
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


def facts_and_tour():
    """The build facts, then the tour of views: ``python -m strided --facts``."""
    t0 = time.perf_counter()
    print(f"strided {strided.__version__}: tensors as (storage, offset, sizes, strides, dtype)")
    print()
    print_facts()
    print()
    print("A tour of views. Every tensor below shares the same 48-byte storage except the last.")
    tour()
    print()
    print(f"done in {time.perf_counter() - t0:.2f} s")
    return 0


def print_facts(out=print):
    facts = build_facts()
    width = max(len(k) for k, _ in facts)
    for k, v in facts:
        out(f"  {k:<{width}}  {v}")


def main(argv=None):
    from strided import _train

    args = _train.parse_args(argv)
    if args.facts:
        return facts_and_tour()
    print(f"strided {strided.__version__}: training on handwritten digits")
    print_facts()
    print()
    return _train.main(args)


if __name__ == "__main__":
    sys.exit(main())
