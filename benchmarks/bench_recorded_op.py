"""Issue 20's autograd bookkeeping rows: one recorded op, and the eager training steps it adds
up to, strided against PyTorch eager in one process, alternated over rounds, one thread.

Rows: ``a + b``, ``a * b``, ``a.exp()`` on four float32 elements and ``a @ b`` on 8x8 float32,
every input requiring grad (the op and its recording; the graph dies at once); the MLP
784-256-10 steps of bench_autograd.py (softmax cross-entropy and MSE, SGD); the digits CNN's
Adam step (``python -m strided.bench``'s row). Per row and library: the median over the rounds of
each round's median call, and the rounds' spread, (max - min) / median.

Run: ``STRIDED_NUM_THREADS=1 python benchmarks/bench_recorded_op.py [--rounds 7]``. For a
before/after table, run it in two checkouts (the old one built) one after the other, a few
times each in turn.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _harness import fmt_time, torch
from bench_autograd import _init, ce_step, mse_step

import strided


def _per_call(fn, min_time=0.02):
    """Seconds per call of ``fn()``: the median of 5 batches of about ``min_time`` each."""
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= min_time / 5 or n >= 1 << 20:
            break
        n *= 2
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def _ops(lib):
    """The four recorded ops of ``lib`` (strided or torch) on inputs that require grad."""
    rng = np.random.default_rng(0)

    def leaf(*shape):
        x = lib.asarray(rng.random(shape, dtype=np.float32))
        return x.requires_grad_() if lib is strided else x.detach().requires_grad_()

    a, b, m1, m2 = leaf(4), leaf(4), leaf(8, 8), leaf(8, 8)
    return {
        "a + b (4 float32), recorded": lambda: a + b,
        "a * b, recorded": lambda: a * b,
        "a.exp(), recorded": lambda: a.exp(),
        "a @ b (8x8 float32), recorded": lambda: m1 @ m2,
    }


def _mlp(lib, step):
    x, onehot, params = _init()
    x, onehot = lib.asarray(x), lib.asarray(onehot)
    params = [lib.asarray(p).requires_grad_() for p in params]
    return lambda: step(lib, x, onehot, params)


def lib_cases(lib, cnn_steps):
    """{name: fn} for one library (the suite's recorded-op row is in bench_autograd.py)."""
    out = _ops(lib)
    out["MLP step, softmax cross-entropy"] = _mlp(lib, ce_step)
    out["MLP step, MSE"] = _mlp(lib, mse_step)
    out["digits CNN step, Adam"] = cnn_steps["strided" if lib is strided else "torch"]
    return out


def _cnn_steps():
    """{"strided": step, "torch": step} of the suite's digits CNN row (strided.bench)."""
    from strided.bench._cases import nn_cases

    (case,) = [c for c in nn_cases() if c.name.startswith("digits CNN training step")]
    return case.fns


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    strided.set_num_threads(1)
    cnn = _cnn_steps()
    libs = {"strided": lib_cases(strided, cnn)}
    if torch is not None:
        torch.set_num_threads(1)
        libs["torch"] = lib_cases(torch, cnn)
    times = {(lib, name): [] for lib in libs for name in libs["strided"]}
    for r in range(args.rounds):
        for name in libs["strided"]:
            order = list(libs) if r % 2 == 0 else list(libs)[::-1]  # each library first in turn
            for lib in order:
                times[(lib, name)].append(_per_call(libs[lib][name]))
    print(f"one thread, {args.rounds} alternated rounds: median [spread]")
    print("| case | strided | torch | strided/torch |")
    print("|---|---|---|---|")
    for name in libs["strided"]:
        cols, med = [], {}
        for lib in ("strided", "torch"):
            xs = times.get((lib, name))
            if not xs:
                cols.append("-")
                continue
            med[lib] = statistics.median(xs)
            cols.append(f"{fmt_time(med[lib])} [±{(max(xs) - min(xs)) / med[lib]:.0%}]")
        ratio = f"{med['strided'] / med['torch']:.2f}" if len(med) == 2 else "-"
        print(f"| {name} | {cols[0]} | {cols[1]} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
