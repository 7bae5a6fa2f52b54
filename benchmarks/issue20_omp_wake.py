"""Issue 20's OpenMP measurement (Note [Waking the workers on a shared machine] in
strided/_threads.pyx): a mid-size op (a 65536-element float32 add into out=) timed right after
~50 us of Python work, as inside a training step, at one thread and at two under each OpenMP
wait policy. Each policy needs a fresh process (libgomp reads its environment once, when it
loads), so the policies alternate over ``--rounds`` rounds of subprocesses.

Run: ``python benchmarks/issue20_omp_wake.py [--rounds 3] [--n 65536]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CHILD = r"""
import sys, time
import numpy as np
import strided
threads, n = int(sys.argv[1]), int(sys.argv[2])
x = strided.asarray(np.random.rand(n).astype(np.float32))
y = strided.asarray(np.random.rand(n).astype(np.float32))
out = strided.empty(n, dtype="float32")
strided.set_num_threads(threads)

def busy(us):  # Python work between two ops, as in a training step
    t = time.perf_counter() + us * 1e-6
    while time.perf_counter() < t:
        pass

ts = []
for _ in range(100):
    busy(50)
    t0 = time.perf_counter()
    strided.add(x, y, out=out)
    ts.append(time.perf_counter() - t0)
ts = np.array(ts) * 1e6
print(f"{np.median(ts):.1f} {np.percentile(ts, 90):.1f}")
"""

POLICIES = [
    ("1 thread", 1, {}),
    ("2 threads, libgomp's default", 2, {}),
    ("2 threads, OMP_WAIT_POLICY=passive", 2, {"OMP_WAIT_POLICY": "passive"}),
    ("2 threads, GOMP_SPINCOUNT=10000", 2, {"GOMP_SPINCOUNT": "10000"}),
    ("2 threads, OMP_WAIT_POLICY=active", 2, {"OMP_WAIT_POLICY": "active"}),
]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--n", type=int, default=65536)
    args = p.parse_args()
    results = {name: [] for name, _, _ in POLICIES}
    for _ in range(args.rounds):
        for name, threads, env in POLICIES:
            e = {
                k: v
                for k, v in os.environ.items()
                if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
            }
            e.update(env)
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(threads), str(args.n)],
                env=e,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            results[name].append((float(out[0]), float(out[1])))
    print(f"add of {args.n} float32 after 50 us of Python; per round: median / p90 of 100 calls")
    print("| policy | " + " | ".join(f"round {i + 1}" for i in range(args.rounds)) + " |")
    print("|---|" + "---|" * args.rounds)
    for name, rows in results.items():
        print(f"| {name} | " + " | ".join(f"{m:.1f} / {q:.1f} us" for m, q in rows) + " |")


if __name__ == "__main__":
    main()
