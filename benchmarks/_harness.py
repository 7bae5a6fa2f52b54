"""A small, honest timing harness shared by strided's benchmarks.

Every case runs the same work in strided, NumPy and (when installed) PyTorch in one process, on
the same data, after checking that all three give the same answer. Each is warmed up, then timed
in batches big enough to last ~20 ms; the median batch is reported with the spread (max - min
over the median). Ratios are other-library time / strided time: above 1 means strided is faster.
"""

from __future__ import annotations

import os
import platform
import statistics
import time

import numpy as np

from strided.bench._run import IDLE_THREAD_SETTINGS, numpy_blas_threads, settle_idle_threads

try:
    import torch
except ImportError:  # PyTorch is optional: its column is left empty
    torch = None


def timeit(fn, min_time=0.02, repeats=7):
    """(median seconds per call, relative spread) of ``fn()``."""
    fn()  # warm up: first-call costs (imports, caches, page faults) are not steady state
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time or n >= 1 << 20:
            break
        n *= 4 if dt < min_time / 8 else 2
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n)
    med = statistics.median(samples)
    return med, (max(samples) - min(samples)) / med


def fmt_time(s):
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    return f"{s * 1e3:.2f} ms"


def machine_facts(threads):
    import strided

    facts = [
        f"cpu: {platform.processor() or platform.machine()}, {os.cpu_count()} cores visible",
        f"threads: {threads} (strided.set_num_threads, torch.set_num_threads)",
        # Note [NumPy's BLAS threads] in strided/bench/_run.py
        f"NumPy's BLAS threads: {numpy_blas_threads() or 'unknown'}",
        "idle threads: "  # Note [The other libraries' idle threads] in strided/bench/_run.py
        + " ".join(f"{k}={os.environ.get(k, 'unset')}" for k in IDLE_THREAD_SETTINGS),
        # a machine may force OpenBLAS's kernels (strided's and NumPy's GEMMs, not PyTorch's)
        f"OpenBLAS kernels: {os.environ.get('OPENBLAS_CORETYPE', 'unset (detected)')}",
        f"strided {strided.__version__}, numpy {np.__version__}",
        f"torch {torch.__version__}" if torch is not None else "torch: not installed",
    ]
    return facts


def start(title, threads, others=("numpy", "torch")):
    """Settle the idle thread pools, set the thread counts, print the title, the machine facts
    and the table's header (``others``: the names of the two columns after strided's)."""
    import strided

    settle_idle_threads()

    strided.set_num_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    numpy_blas_threads(threads)
    print(f"## {title}\n")
    for f in machine_facts(threads):
        print(f"- {f}")
    print()
    a, b = others
    print(f"| case | strided | {a} | {b} | {a}/strided | {b}/strided |")
    print("|---|---|---|---|---|---|")


def run(cases, threads=2, title="benchmark"):
    """Run ``cases``: (name, strided_fn, numpy_fn, torch_fn or None, check) tuples, where
    ``check()`` asserts that the three agree. Prints a Markdown table and returns its rows.
    The program restarts itself once first, so that the libraries' idle threads sleep between
    their calls (Note [The other libraries' idle threads] in strided/bench/_run.py)."""
    start(title, threads)
    rows = []
    for name, s_fn, n_fn, t_fn, check in cases:
        if check is not None:
            check()
        s, s_spread = timeit(s_fn)
        n, _ = timeit(n_fn)
        t = timeit(t_fn)[0] if (t_fn is not None and torch is not None) else None
        rows.append((name, s, n, t))
        t_col = fmt_time(t) if t is not None else "-"
        t_ratio = f"{t / s:.2f}" if t is not None else "-"
        print(
            f"| {name} | {fmt_time(s)} (±{s_spread:.0%}) | {fmt_time(n)} | {t_col} | "
            f"{n / s:.2f} | {t_ratio} |",
            flush=True,
        )
    return rows


def alternated(cases, rounds, threads, title, others=("numpy", "torch")):
    """Time each case's libraries (``run``'s cases) in turn, ``rounds`` times over (on a shared
    machine a load that comes and goes then falls on all three alike, not on whichever ran in
    that second): per library the median of its rounds and their spread, (max - min) / median.
    Prints the table under ``title``; ``others`` names the columns of the cases' second and
    third functions."""
    start(f"{title}, {rounds} alternated rounds", threads, others)
    for name, s_fn, n_fn, t_fn, check in cases:
        check()
        fns = [f for f in (s_fn, n_fn, t_fn) if f is not None]
        samples = [[] for _ in fns]
        for r in range(rounds):
            for k in range(len(fns)):
                j = (k + r) % len(fns)  # each library first in turn
                samples[j].append(timeit(fns[j], repeats=1)[0])
        med = [statistics.median(x) for x in samples]
        cols = [
            f"{fmt_time(m)} (±{(max(x) - min(x)) / m:.0%})"
            for m, x in zip(med, samples, strict=True)
        ]
        cols += ["-"] * (3 - len(cols))
        ratios = [f"{m / med[0]:.2f}" for m in med[1:]] + ["-"] * (3 - len(med))
        print(f"| {name} | {' | '.join(cols)} | {' | '.join(ratios)} |", flush=True)


def alternated_main(doc, rows, check, title, others):
    """A benchmark script's ``main``: ``--threads`` (default 1: the machine is shared) and
    ``--rounds``, then ``alternated`` over ``rows()``'s (name, strided, other, other) cases,
    each first checked by ``check(name, *fns)``."""
    import argparse

    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args()
    cases = [
        (name, s_fn, o_fn, t_fn, lambda a=(name, s_fn, o_fn, t_fn): check(*a))
        for name, s_fn, o_fn, t_fn in rows()
    ]
    alternated(cases, args.rounds, args.threads, title, others)


def agree(rtol, atol):
    """A benchmark's check for ``alternated_main``: strided's function, the other strided one
    and PyTorch's (or None) return tuples of the same values, to ``rtol`` and ``atol``."""

    def check(name, s_fn, c_fn, t_fn):
        for got, ref in zip(s_fn(), c_fn(), strict=True):
            np.testing.assert_allclose(np.asarray(got), np.asarray(ref), rtol=rtol, atol=atol)
        if t_fn is not None:
            for got, ref in zip(s_fn(), t_fn(), strict=True):
                np.testing.assert_allclose(np.asarray(got), ref.numpy(), rtol=rtol, atol=atol)

    return check


def switched_off(module, predicate, fn):
    """``fn`` run with ``module.predicate`` (a function that says whether a fast path applies)
    answering False: the "before" column of a fast path's benchmark."""

    def run():
        keep = getattr(module, predicate)
        setattr(module, predicate, lambda *args: False)
        try:
            return fn()
        finally:
            setattr(module, predicate, keep)

    return run
