"""Indexing benchmarks: fancy-index gathers, masks and scatter-add.

Run: ``python benchmarks/bench_indexing.py [--threads N]``. Prints a Markdown table of times
and ratios against NumPy (and PyTorch when installed); above 1 means strided is faster.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, torch

import strided


def cases():
    rng = np.random.default_rng(0)
    table_np = rng.random((100_000, 16), dtype=np.float32)
    rows_np = rng.integers(0, 100_000, 1_000_000)
    vec_np = rng.random(1_000_000, dtype=np.float32)
    mask_np = vec_np > 0.5
    table, rows = strided.asarray(table_np), strided.asarray(rows_np)
    vec, mask = strided.asarray(vec_np), strided.asarray(mask_np)
    t = torch is not None
    t_table = torch.from_numpy(table_np) if t else None
    t_rows = torch.from_numpy(rows_np) if t else None
    t_vec = torch.from_numpy(vec_np) if t else None
    t_mask = torch.from_numpy(mask_np) if t else None
    src_np = table_np[rows_np]
    src = strided.asarray(src_np)
    t_src = torch.from_numpy(src_np) if t else None
    acc_np = np.zeros((100_000, 16), np.float32)
    acc = strided.zeros((100_000, 16), dtype="float32")
    t_acc = torch.zeros((100_000, 16)) if t else None

    def same(a, b):
        def check():
            np.testing.assert_array_equal(np.asarray(a()), b())

        return check

    return [
        (
            "gather 1e6 rows of (1e5, 16) f32",
            lambda: table[rows],
            lambda: table_np[rows_np],
            (lambda: t_table[t_rows]) if t else None,
            same(lambda: table[rows], lambda: table_np[rows_np]),
        ),
        (
            "mask get 1e6 f32",
            lambda: vec[mask],
            lambda: vec_np[mask_np],
            (lambda: t_vec[t_mask]) if t else None,
            same(lambda: vec[mask], lambda: vec_np[mask_np]),
        ),
        (
            "nonzero 1e6",
            lambda: strided.nonzero(mask),
            lambda: np.nonzero(mask_np),
            (lambda: torch.nonzero(t_mask, as_tuple=True)) if t else None,
            None,
        ),
        (
            "set 1e6 rows of (1e5, 16): x[rows] = src",
            lambda: acc.__setitem__(rows, src),
            lambda: acc_np.__setitem__(rows_np, src_np),
            (lambda: t_acc.__setitem__(t_rows, t_src)) if t else None,
            None,
        ),
        (
            "index_add 1e6 rows into (1e5, 16)",
            lambda: acc.index_add_(0, rows, table[rows]),
            lambda: np.add.at(acc_np, rows_np, table_np[rows_np]),
            (lambda: t_acc.index_add_(0, t_rows, t_table[t_rows])) if t else None,
            None,
        ),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided indexing")


if __name__ == "__main__":
    main()
