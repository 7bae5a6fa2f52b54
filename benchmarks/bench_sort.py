"""Sorting benchmarks: sort and argsort of 1e6 elements, many short lines, strided lines, topk and
unique_counts.

Run: ``python benchmarks/bench_sort.py [--threads N]``. Prints a Markdown table of times and
ratios against NumPy (and PyTorch when installed); above 1 means strided is faster.

What each library runs: strided, its stable sort (``_cpu/sort.pyx.tp``: radix for numbers, merging
for complex numbers and lines under 256) in every row. NumPy's
default ``np.sort`` is an unstable introsort, vectorised with AVX-512/AVX2 (x86-simd-sort) for
float32 on CPUs that have it; ``kind="stable"`` is timsort (radix sort for 16-bit and smaller
integers). ``torch.sort`` always computes the indices too, and is single-threaded per line.
NumPy never uses more than one thread; strided and PyTorch get ``--threads``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, torch

import strided


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a)) if torch is not None else None


def cases():
    rng = np.random.default_rng(0)
    out = []

    def case(name, s_fn, n_fn, t_fn, check=None):
        out.append((name, s_fn, n_fn, t_fn if torch is not None else None, check))

    def agree(s_fn, n_fn):
        def check():
            np.testing.assert_array_equal(np.asarray(s_fn()), n_fn())

        return check

    n = 10**6
    x_np = rng.random(n, dtype=np.float32)
    x, tx = strided.asarray(x_np), _t(x_np)
    case(
        "sort of 1e6 float32 (numpy: default kind)",
        lambda: strided.sort(x),
        lambda: np.sort(x_np),
        lambda: torch.sort(tx),
        agree(lambda: strided.sort(x), lambda: np.sort(x_np)),
    )
    case(
        "sort of 1e6 float32, stable (numpy kind=stable, torch stable=True)",
        lambda: strided.sort(x),
        lambda: np.sort(x_np, kind="stable"),
        lambda: torch.sort(tx, stable=True),
    )
    case(
        "argsort of 1e6 float32, stable",
        lambda: strided.argsort(x),
        lambda: np.argsort(x_np, kind="stable"),
        lambda: torch.argsort(tx, stable=True),
        agree(lambda: strided.argsort(x), lambda: np.argsort(x_np, kind="stable")),
    )
    xd_np = rng.integers(0, 1000, n)  # int64 with many duplicates
    xd, txd = strided.asarray(xd_np), _t(xd_np)
    case(
        "sort of 1e6 int64, 1000 distinct values, stable",
        lambda: strided.sort(xd),
        lambda: np.sort(xd_np, kind="stable"),
        lambda: torch.sort(txd, stable=True),
        agree(lambda: strided.sort(xd), lambda: np.sort(xd_np, kind="stable")),
    )
    m_np = rng.random((1000, 1000), dtype=np.float32)
    m, tm = strided.asarray(m_np), _t(m_np)
    case(
        "sort 1000x1000 float32 along the last dim (1000 lines)",
        lambda: strided.sort(m, axis=-1),
        lambda: np.sort(m_np, axis=-1, kind="stable"),
        lambda: torch.sort(tm, dim=-1, stable=True),
        agree(lambda: strided.sort(m, axis=-1), lambda: np.sort(m_np, axis=-1)),
    )
    case(
        "sort 1000x1000 float32 along dim 0 (strided lines)",
        lambda: strided.sort(m, axis=0),
        lambda: np.sort(m_np, axis=0, kind="stable"),
        lambda: torch.sort(tm, dim=0, stable=True),
        agree(lambda: strided.sort(m, axis=0), lambda: np.sort(m_np, axis=0)),
    )

    def np_topk(a, k):
        part = np.argpartition(a, -k)[-k:]
        return a[part[np.argsort(-a[part], kind="stable")]]

    case(
        "topk k=10 of 1e6 float32 (strided: heap selection; numpy: argpartition)",
        lambda: strided.topk(x, 10),
        lambda: np_topk(x_np, 10),
        lambda: torch.topk(tx, 10),
        agree(lambda: strided.topk(x, 10).values, lambda: np_topk(x_np, 10)),
    )
    case(
        "unique_counts of 1e6 int64, 1000 distinct values",
        lambda: strided.unique_counts(xd),
        lambda: np.unique_counts(xd_np),
        lambda: torch.unique(txd, sorted=True, return_counts=True),
        agree(lambda: strided.unique_counts(xd).counts, lambda: np.unique_counts(xd_np).counts),
    )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided sorting")


if __name__ == "__main__":
    main()
