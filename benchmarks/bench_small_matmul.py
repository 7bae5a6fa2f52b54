"""Batched and small matrix products against NumPy and PyTorch, in one process (issue 20):
the tiny float kernels (Note [Tiny products in registers] in strided/_cpu/gemm_loops.pyx), the
integer register tiles (Note [Integer products in registers]), the batched routes of matmul,
einsum and vecdot (Note [Which route a product takes] in strided/_cpu/blas.pyx), and det from
its LU factors (Note [A determinant from its LU factors in one pass] in lapack.pyx).

Each round times every case in strided, NumPy and PyTorch one after the other (alternated, so
that a change in the machine's load reaches all three), ``--rounds`` rounds; the table gives the
median of the rounds with [min-max], and the ratios of the medians. A round's time for one
library is _harness.timeit's median of 5 batches of about 4 ms each.

Run: ``flock /tmp/strided-build.lock python benchmarks/bench_small_matmul.py [--threads N]``;
``STRIDED_CPU_FEATURES=x86-64-v3`` (or v2) in front runs the lower levels' kernels.
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np
from _harness import timeit


def rows(strided, torch, rng):
    """(name, strided fn, NumPy fn, PyTorch fn) for every row. Not named ``cases``: the suite
    (``python -m strided.bench``) has these products in its linalg and numpy rows already."""
    out = []

    def batch(name, shape1, shape2, dtype):
        a_np = rng.uniform(-1, 1, shape1).astype(dtype)
        b_np = rng.uniform(-1, 1, shape2).astype(dtype)
        if np.dtype(dtype).kind in "iu":
            a_np = rng.integers(-100, 100, shape1).astype(dtype)
            b_np = rng.integers(-100, 100, shape2).astype(dtype)
        a, b = strided.asarray(a_np), strided.asarray(b_np)
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        out.append((name, lambda: a @ b, lambda: a_np @ b_np, lambda: ta @ tb))

    batch("bmm 2000 x (8x8 @ 8x8) float64", (2000, 8, 8), (2000, 8, 8), np.float64)
    batch("bmm 10000 x (3x3 @ 3x3) float32", (10000, 3, 3), (10000, 3, 3), np.float32)
    batch("bmm 2000 x (4x4 @ 4x4) float64", (2000, 4, 4), (2000, 4, 4), np.float64)
    batch("bmm 2000 x (16x16 @ 16x16) float64", (2000, 16, 16), (2000, 16, 16), np.float64)
    batch("bmm 2000 x (12x12 @ 12x12) float32", (2000, 12, 12), (2000, 12, 12), np.float32)
    batch("matvec 10000 x (16x16 @ 16) float64", (10000, 16, 16), (10000, 16, 1), np.float64)
    batch("bmm 100 x (100x100 @ 100x100) float64", (100, 100, 100), (100, 100, 100), np.float64)
    batch("matmul 256 int32", (256, 256), (256, 256), np.int32)
    batch("matmul 256 int8", (256, 256), (256, 256), np.int8)
    batch("matmul 256 int64", (256, 256), (256, 256), np.int64)
    batch("bmm 2000 x (8x8 @ 8x8) int32", (2000, 8, 8), (2000, 8, 8), np.int32)

    c_np = rng.standard_normal((100, 100, 100))
    c, tc = strided.asarray(c_np), torch.from_numpy(c_np)
    out.append(
        (
            "einsum bij,bjk->bik 100x100x100",
            lambda: strided.einsum("bij,bjk->bik", c, c),
            lambda: np.einsum("bij,bjk->bik", c_np, c_np),
            lambda: torch.einsum("bij,bjk->bik", tc, tc),
        )
    )
    v_np = rng.random((100000, 16))
    v, tv = strided.asarray(v_np), torch.from_numpy(v_np)
    out.append(
        (
            "vecdot 100000 x 16 float64",
            lambda: strided.vecdot(v, v),
            lambda: np.vecdot(v_np, v_np),
            lambda: torch.linalg.vecdot(tv, tv),
        )
    )
    g_np = rng.standard_normal((10000, 4, 4)).astype(np.float32)
    g, tg = strided.asarray(g_np), torch.from_numpy(g_np)
    out.append(
        (
            "det 10000 x 4x4 float32",
            lambda: strided.linalg.det(g),
            lambda: np.linalg.det(g_np),
            lambda: torch.linalg.det(tg),
        )
    )
    return out


def _check(name, s_fn, n_fn, t_fn):
    """The three agree (exactly for integers), before anything is timed."""
    s, n, t = np.asarray(s_fn()), np.asarray(n_fn()), t_fn().numpy()
    if n.dtype.kind in "iu":
        assert np.array_equal(s, n) and np.array_equal(t, n), name
    else:
        tol = 1e-3 if n.dtype in (np.float32, np.complex64) else 1e-9
        np.testing.assert_allclose(s, n, rtol=tol, atol=tol, err_msg=name)
        np.testing.assert_allclose(t, n, rtol=tol, atol=tol, err_msg=name)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--only", default="", help="run the rows whose name contains this")
    args = p.parse_args()
    os.environ["STRIDED_NUM_THREADS"] = str(args.threads)
    import torch

    import strided
    from strided._cpu import cpu_dispatch
    from strided.bench._run import numpy_blas_threads

    strided.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    numpy_blas_threads(args.threads)  # NumPy's own OpenBLAS, else it runs on every core
    rng = np.random.default_rng(0)
    table = [c for c in rows(strided, torch, rng) if args.only in c[0]]
    for row in table:
        _check(*row)
    times = [[[] for _ in range(3)] for _ in table]
    for _ in range(args.rounds):
        for r, row in enumerate(table):
            for lib, fn in enumerate(row[1:]):
                times[r][lib].append(timeit(fn, min_time=0.004, repeats=5)[0])
    level = cpu_dispatch.LEVELS[cpu_dispatch.level]
    print(f"{args.threads} thread(s) each, strided's kernels at {level};")
    print(f"medians of {args.rounds} alternated rounds [min-max], us; ratios of the medians")
    print("| case | strided | NumPy | PyTorch | NumPy / strided | PyTorch / strided |")
    print("|---|---|---|---|---|---|")
    for row, t in zip(table, times, strict=True):
        cells = []
        for samples in t:
            med = statistics.median(samples) * 1e6
            cells.append(f"{med:.1f} [{min(samples) * 1e6:.0f}-{max(samples) * 1e6:.0f}]")
        s, n, pt = (statistics.median(x) for x in t)
        print(f"| {row[0]} | {' | '.join(cells)} | {n / s:.2f}x | {pt / s:.2f}x |")


if __name__ == "__main__":
    main()
