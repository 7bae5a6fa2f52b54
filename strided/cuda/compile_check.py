"""Compile every CUDA kernel instantiation strided can launch, without a GPU.

``python -m strided.cuda.compile_check`` runs NVRTC (the same compiler CuPy calls, with the
same options) on every module of the CUDA backend for sm_80 (A100) and sm_90 (H100), asks ptxas
for its resource report, and fails when a kernel does not compile or spills registers to local
memory. NVRTC needs no GPU and no driver, so CI runs this on machines without one (see
Note [The CUDA launch] in _launch.py: the list of instantiations is the one the runtime uses).

The whole check is ~11200 compiles (5622 instantiations, two archs), ~27 CPU-minutes: the test
suite compiles for sm_90 alone (``--arch=sm_90``: the H100/H200 the project's GPU machines
have), half of that; ``python -m strided.cuda.compile_check`` compiles for both.

NVRTC comes with CuPy's ``cuda`` extra (the ``nvidia-cuda-nvrtc`` wheel, pinned to 13.0.88: a
newer NVRTC emits PTX that the CUDA 13.0 drivers of the project's GPU machines cannot load).
"""

from __future__ import annotations

import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["ARCHS", "all_modules", "compile_module", "nvrtc_available", "main", "ptx"]

ARCHS = ("sm_80", "sm_90")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_ENTRY = re.compile(r"Compiling entry function '([^']+)'")


def nvrtc_available():
    """Whether NVRTC can be loaded here (CuPy and the nvidia-cuda-nvrtc wheel)."""
    try:
        from cupy.cuda import nvrtc

        nvrtc.getVersion()
        return True
    except Exception:
        return False


def all_modules():
    """(module key, source file, instantiations) for every module of the CUDA backend."""
    from strided.cuda import (
        _copy,
        _elementwise,
        _index,
        _linalg,
        _optim,
        _random,
        _reduce,
        _scan,
        _softmax,
        _sort,
    )

    return (
        _elementwise.all_modules()
        + _copy.all_modules()
        + _reduce.all_modules()
        + _linalg.all_modules()
        + _optim.all_modules()
        + _random.all_modules()
        + _scan.all_modules()
        + _softmax.all_modules()
        + _sort.all_modules()
        + _index.all_modules()
    )


def compile_module(source_name, names, arch):
    """Compile one module for ``arch``; return (kernel count, spilling kernels, seconds)."""
    from cupy.cuda import nvrtc

    from strided.cuda import _launch

    t = time.perf_counter()
    prog = nvrtc.createProgram(_launch.source(source_name), source_name, [], [])
    try:
        for n in names:
            nvrtc.addNameExpression(prog, n)
        opts = list(_launch.NVRTC_OPTIONS) + [f"-arch={arch}", "--ptxas-options=-v"]
        try:
            nvrtc.compileProgram(prog, opts)
        except Exception as e:
            raise RuntimeError(
                f"{source_name} for {arch} failed to compile: {e}\n{nvrtc.getProgramLog(prog)}"
            ) from None
        log = nvrtc.getProgramLog(prog)
    finally:
        nvrtc.destroyProgram(prog)
    spills = []
    entry = None
    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            entry = m.group(1)
        m = _SPILL.search(line)
        if m and (int(m.group(1)) or int(m.group(2))):
            spills.append((entry, line.strip()))
    return len(names), spills, time.perf_counter() - t


def ptx(source_name, name, options=None, arch="compute_90"):
    """NVRTC's PTX of the one instantiation ``name`` of ``source_name``, with the runtime's
    options unless ``options`` are given: what tests read for the instructions a kernel has."""
    from cupy.cuda import nvrtc

    from strided.cuda import _launch

    options = _launch.NVRTC_OPTIONS if options is None else options
    prog = nvrtc.createProgram(_launch.source(source_name), source_name, [], [])
    try:
        nvrtc.addNameExpression(prog, name)
        nvrtc.compileProgram(prog, [*options, f"-arch={arch}"])
        text = nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    return text.decode() if isinstance(text, bytes) else text


def _job(args):
    key, source_name, names, arch = args
    return key, arch, compile_module(source_name, names, arch)


def main(argv=None):
    """``[--arch=sm_90,...] [WORD ...]``: every module (or those whose key holds a WORD) for
    every arch of ARCHS (or those named)."""
    argv = sys.argv[1:] if argv is None else argv
    archs = ARCHS
    for a in [a for a in argv if a.startswith("--arch=")]:
        archs = tuple(a[len("--arch=") :].split(","))
        argv = [w for w in argv if w != a]
    if not nvrtc_available():
        print("NVRTC is not available: pip install 'strided[cuda]'")
        return 2
    jobs = [(k, s, n, a) for k, s, n in all_modules() for a in archs]
    if argv:  # a filter: module keys containing one of the words
        jobs = [j for j in jobs if any(w in repr(j[0]) for w in argv)]
    t = time.perf_counter()
    failures, kernels = [], 0
    workers = min(len(jobs), os.cpu_count() or 1) or 1
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for key, arch, (count, spills, _secs) in pool.map(_job, jobs):
            kernels += count
            for entry, line in spills:
                failures.append(f"{key} {arch}: {entry}: {line}")
    print(
        f"compiled {kernels} kernel instantiations in {len(jobs)} modules for "
        f"{', '.join(archs)} in {time.perf_counter() - t:.1f} s"
    )
    for f in failures:
        print("SPILLS:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
