"""``python -m strided.bench [--quick] [--suite NAME ...] [--out DIR] [--threads N]``.

See Note [How the benchmark CLI measures] in ``strided/bench/__init__.py``.
"""

from __future__ import annotations

import argparse
import itertools
import sys

import strided
from strided.bench import _cases, _report
from strided.bench._run import numpy_blas_threads, run_suite, settle_idle_threads


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m strided.bench", description=__doc__.split("\n")[0])
    p.add_argument(
        "--quick",
        action="store_true",
        help="check that the libraries agree on every case; time nothing (CI)",
    )
    p.add_argument(
        "--suite",
        action="append",
        default=None,
        help="only these suites (repeatable): core, elementwise, linalg, reduce, sort, "
        "indexing, autograd, compile (benchmarks/bench_*.py), nn, gpu",
    )
    p.add_argument("--out", default="bench-results", help="directory for the reports")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument(
        "--bench-dir",
        default=None,
        help="the benchmarks/ directory (default: the source checkout's)",
    )
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    only = set(args.suite) if args.suite else None
    strided.set_num_threads(args.threads)
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    numpy_blas_threads(args.threads)  # Note [NumPy's BLAS threads]
    facts = _report.machine_facts(args.threads)
    print(
        f"strided.bench{' --quick' if args.quick else ''}: "
        + "; ".join(f"{k} {v}" for k, v in facts),
        flush=True,
    )
    bench_dir = _cases.find_benchmarks_dir(args.bench_dir)
    sources = []
    if bench_dir is None:
        print(
            "(no benchmarks/ directory next to the strided package: running only the nn and "
            "GPU cases; pass --bench-dir to a source checkout's benchmarks/)"
        )
    else:
        sources.append(_cases.script_cases(bench_dir, only))
    sources += [_cases.nn_cases(only), _cases.gpu_cases(only)]

    def report(r):
        timing = ""
        if r.median:
            timing = "  " + ", ".join(f"{k} {v * 1e6:.1f} us" for k, v in r.median.items())
        print(
            f"  [{r.status:>9}] {r.suite}: {r.name}{timing}"
            + (f"  <- {r.message}" if r.status in ("disagree", "error") else ""),
            flush=True,
        )

    results = run_suite(itertools.chain(*sources), quick=args.quick, on_result=report)
    print()
    print(_report.markdown(results, facts, args.quick))
    for m in _report.write_all(results, facts, args.quick, args.out):
        print(m)
    bad = [r for r in results if r.status in ("disagree", "error")]
    if bad:
        print(f"{len(bad)} case(s) failed: " + "; ".join(f"{r.suite}: {r.name}" for r in bad))
        return 1
    return 0


if __name__ == "__main__":
    settle_idle_threads()  # Note [The other libraries' idle threads]
    sys.exit(main())
