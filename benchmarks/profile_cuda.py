"""Where a GPU op's time goes: host Python, the launches, or the kernels themselves.

``benchmarks/bench_cuda.py`` says how long an op takes; this script says why, for the cases
where strided trails CuPy or PyTorch (issue 23 asks each shortfall to be explained with a
profile). For each case it prints:

- the wall-clock time per call, the GPU synchronised at the end of each batch;
- the launches per call (kernels and cuBLAS calls, from the backend's ``tracing`` hook);
- the GPU time of each launch of one call, from a CUDA event pair around it: their total
  against the wall-clock time shows whether the GPU or the host is the bottleneck;
- the 12 functions with the most host time of their own (cProfile over a batch of calls).

Run: ``python benchmarks/profile_cuda.py [--device cuda] [--case NAME ...]``. On
``--device cuda-emulated`` (no GPU) it still counts the launches and profiles the host, which
is how it is checked without one; the event timings need a GPU.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np
from bench_cuda_host import (  # the same training steps (benchmarks/ is on the path)
    compiled_mlp_step,
    mlp_step,
)

import strided
from strided.cuda import _backend


def _cases(dev):
    rng = np.random.default_rng(3)
    on = lambda a: strided.asarray(a, device=dev)  # noqa: E731
    a = on(np.ones(1, np.float32))
    x = on(rng.standard_normal((64, 784), dtype=np.float32))
    y = on(rng.integers(0, 10, 64))
    w1 = on((rng.standard_normal((784, 256)) * 0.05).astype(np.float32)).requires_grad_()
    w2 = on((rng.standard_normal((256, 10)) * 0.05).astype(np.float32)).requires_grad_()
    big = 10**8 if dev == "cuda" else 10**5  # the emulator runs every GPU thread on the CPU
    v = on(np.ones(big, np.float32))
    side = 8192 if dev == "cuda" else 128
    m = on(rng.standard_normal((side, side), dtype=np.float32))

    def step():
        mlp_step(x, y, w1, w2)

    return {
        "add1": ("1-element add", lambda: a + a),
        "mlp": ("MLP 784-256-10 training step, batch 64", step),
        "compiled": ("the same step compiled (fused SGD)", compiled_mlp_step(dev)),
        "sum": (f"sum of {big:.0e} float32", lambda: strided.sum(v)),
        "rowsum": (f"sum over dim 1 of {side}x{side}", lambda: strided.sum(m, axis=1)),
    }


def _wall(fn, backend, n):
    """Seconds per call: the median of 5 batches of ``n``, each ending with a synchronise."""
    for _ in range(10):
        fn()
    backend.synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        backend.synchronize()
        times.append((time.perf_counter() - t0) / n)
    return float(np.median(times))


def _launches(fn):
    """What one call launches: [(name, grid, block)], from the backend's tracing hook."""
    _backend.tracing = []
    try:
        fn()
        return [(_kernel_name(f), g, b) for f, g, b, _ in _backend.tracing]
    finally:
        _backend.tracing = None


def _kernel_name(function):
    """A launch's name: the kernel's (a RawKernel behind a GPU function handle) or the text
    the tracing hook recorded for a cuBLAS call."""
    for holder in (function, getattr(function, "raw", None)):
        name = getattr(holder, "name", None)
        if isinstance(name, str):
            return name
    return str(function)


def _kernel_times(fn, backend):
    """The GPU milliseconds of each launch of one call: an event pair around each."""
    cp = backend.cupy
    pairs = []
    launch, gemm = backend.launch, backend.gemm

    def timed(inner):
        def wrapper(*args, **kwargs):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            inner(*args, **kwargs)
            e.record()
            pairs.append((s, e))

        return wrapper

    backend.launch, backend.gemm = timed(launch), timed(gemm)
    try:
        fn()
        backend.synchronize()
    finally:
        backend.launch, backend.gemm = launch, gemm
    return [cp.cuda.get_elapsed_time(s, e) for s, e in pairs]


def _host_profile(fn, n):
    """The 12 functions with the most host time of their own, per call of ``fn``: own and
    cumulative microseconds, and how many times each runs per call."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    stats = pstats.Stats(prof).stats  # (file, line, name) -> (cc, ncalls, tottime, cumtime, ..)
    rows = sorted(stats.items(), key=lambda kv: -kv[1][2])[:12]
    lines = ["   own us   cum us  calls  function"]
    for (file, line, name), (_, ncalls, tt, ct, _) in rows:
        where = f"{file.split('site-packages/')[-1].split('/work/main/')[-1]}:{line}({name})"
        lines.append(f"{tt / n * 1e6:9.1f} {ct / n * 1e6:8.1f} {ncalls / n:6.1f}  {where}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--case", nargs="*", default=None)
    args = parser.parse_args(argv)
    dev = args.device
    backend = _backend.backend_for(strided.device(dev))
    if not backend.emulated:
        print(f"GPU: {backend.properties['name']}")
    for key, (name, fn) in _cases(dev).items():
        if args.case and key not in args.case:
            continue
        n = 200 if key in ("add1", "mlp") else 20
        if dev != "cuda":
            n = max(1, n // 20)
        wall = _wall(fn, backend, n)
        launched = _launches(fn)
        print(f"\n## {name}: {wall * 1e6:.1f} us per call, {len(launched)} launches")
        if not backend.emulated:
            ms = _kernel_times(fn, backend)
            gpu = sum(ms) * 1e3
            print(
                f"GPU time inside the launches: {gpu:.1f} us ({gpu / (wall * 1e6):.0%} of the wall)"
            )
            for (kname, grid, block), t in zip(launched, ms, strict=False):
                print(f"  {t * 1e3:8.1f} us  {kname[:90]} grid={grid} block={block}")
        else:
            for kname, grid, block in launched:
                print(f"  {kname[:90]} grid={grid} block={block}")
        print(f"host profile of {n} calls (own time):")
        print(_host_profile(fn, n))


if __name__ == "__main__":
    main()
