"""Issue 20's OpenMP measurement (Note [Waking the workers on a shared machine] in
strided/_threads.pyx): a mid-size op (a 65536-element float32 add into out=) timed right after
~50 us of Python work, as inside a training step, at one thread and at two under each OpenMP
wait policy. Each policy needs a fresh process (libgomp reads its environment once, when it
loads), so the policies alternate over ``--rounds`` rounds of subprocesses.

Run: ``python benchmarks/issue20_omp_wake.py [--rounds 3] [--n 65536]``.

``--step`` measures the policy of Note [When a loop is split] (strided/_loop_plan.pyx) where it
matters, inside training steps, in one process: the digits CNN's Adam step and the MLP's
cross-entropy step (bench_autograd.py) at two threads with loops split by their measured serial
time (the default, 100 us) and with every loop of at least 65,536 elements split (the rule
before it, ``_set_parallel_us(0)``), and at one thread; the three alternate over ``--rounds``
rounds of ``--steps`` steps each. Per round: the median and 90th percentile step time, and the
slowest call of the step's mid-size elementwise and reduction kernels (16,384 to 1e6
elements), each call timed where the dispatcher runs it.
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


STEP_POLICIES = [  # (name, threads, _set_parallel_us's argument)
    ("2 threads, split by measured time (100 us)", 2, 100.0),
    ("2 threads, split at 65,536 elements", 2, 0.0),
    ("1 thread", 1, 100.0),
]


def _time_mid_size_kernels(slowest):
    """Wrap the dispatcher's CPU kernels so that each call on 16,384 to 1e6 elements records
    its time into ``slowest`` (the largest seen, per policy in ``slowest["policy"]``)."""
    import time

    import strided
    from strided import _dispatch
    from strided._ops.elementwise import _Kernel

    def timed(fn):
        def kernel(*args, **kwargs):
            t0 = time.perf_counter()
            result = fn(*args, **kwargs)
            dt = time.perf_counter() - t0
            first = result[0] if isinstance(result, tuple) else result
            if isinstance(first, strided.Tensor) and 16384 <= first.numel() <= 1_000_000:
                key = slowest["policy"]
                slowest[key] = max(slowest.get(key, 0.0), dt)
            return result

        return kernel

    for name, table in _dispatch.registered_ops().items():
        cpu = _dispatch._kernels[name].get("CPU") if "CPU" in table else None
        if cpu is None or name == "matmul":  # OpenBLAS's threads: not this policy's
            continue
        if type(cpu) is _Kernel:
            cpu.run = timed(cpu.run)
        else:
            _dispatch._kernels[name]["CPU"] = timed(cpu)


def step_main(rounds, steps):
    import statistics
    import time

    import numpy as np
    from bench_autograd import _init, ce_step

    import strided
    from strided import _loop_plan, optim
    from strided._train import make_cnn
    from strided.nn import functional as F

    rng = np.random.default_rng(0)
    xc = strided.asarray(rng.standard_normal((64, 1, 8, 8), dtype=np.float32))
    yc = strided.asarray(rng.integers(0, 10, 64))
    _ = strided.manual_seed(0)
    net = make_cnn().to("float32")
    opt = optim.Adam(net.parameters(), lr=1e-3)

    def cnn():
        loss = F.cross_entropy(net(xc), yc)
        opt.zero_grad()
        loss.backward()
        opt.step()

    x, onehot, params = _init()
    x, onehot = strided.asarray(x), strided.asarray(onehot)
    params = [strided.asarray(p).requires_grad_() for p in params]

    def mlp():
        ce_step(strided, x, onehot, params)

    slowest = {"policy": None}
    _time_mid_size_kernels(slowest)
    results = {}
    for r in range(rounds):
        for name, threads, us in STEP_POLICIES[r % 3 :] + STEP_POLICIES[: r % 3]:
            strided.set_num_threads(threads)
            _loop_plan._set_parallel_us(us)
            for label, step in (("CNN", cnn), ("MLP", mlp)):
                for _ in range(5):
                    step()
                slowest["policy"] = (name, label)
                slowest.pop((name, label), None)
                times = []
                for _ in range(steps):
                    t0 = time.perf_counter()
                    step()
                    times.append(time.perf_counter() - t0)
                times.sort()
                results.setdefault((name, label), []).append(
                    (
                        statistics.median(times),
                        times[int(0.9 * len(times))],
                        slowest.get((name, label), 0.0),
                    )
                )
    _loop_plan._set_parallel_us(100.0)
    print(
        f"training steps in one process, policies alternated, {rounds} rounds of {steps} steps; "
        "per round: median / p90 step, slowest mid-size kernel call"
    )
    print("| step | policy | " + " | ".join(f"round {i + 1}" for i in range(rounds)) + " |")
    print("|---|---|" + "---|" * rounds)
    for label in ("CNN", "MLP"):
        for name, _, _ in STEP_POLICIES:
            cells = [
                f"{m * 1e3:.2f} / {q * 1e3:.2f} ms, {k * 1e6:.0f} us"
                for m, q, k in results[(name, label)]
            ]
            print(f"| {label} | {name} | " + " | ".join(cells) + " |")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--n", type=int, default=65536)
    p.add_argument("--step", action="store_true", help="the training steps, policies alternated")
    p.add_argument("--steps", type=int, default=40, help="with --step: steps per round")
    args = p.parse_args()
    if args.step:
        step_main(args.rounds, args.steps)
        return
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
