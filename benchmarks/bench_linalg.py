"""Matrix multiplication benchmarks: GEMM throughput, transposed views, small and batched
products, and the integer loop.

Run: ``python benchmarks/bench_linalg.py [--threads N] [--quick]``. Prints a Markdown table of
times and ratios against NumPy (and PyTorch when installed; above 1 means strided is faster),
then the GEMM rows again as GFLOP/s (2*n^3 flops per n x n product). strided calls the OpenBLAS
of the ``scipy-openblas32`` wheel, NumPy its own bundled OpenBLAS, PyTorch its own BLAS (MKL or
OpenBLAS): large products measure the BLAS, small ones the per-call overhead of each library.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, torch

import strided
from strided._cpu import blas


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a)) if torch is not None else None


def cases(quick=False):
    rng = np.random.default_rng(0)
    out = []
    flops = {}

    def case(name, s_fn, n_fn, t_fn, check=None, nflop=None):
        out.append((name, s_fn, n_fn, t_fn if torch is not None else None, check))
        if nflop is not None:
            flops[name] = nflop

    def agree(s_fn, n_fn, rtol):
        def check():
            np.testing.assert_allclose(np.asarray(s_fn()), n_fn(), rtol=rtol, atol=rtol)

        return check

    # -- GEMM throughput -------------------------------------------------------------------------
    sizes = (512, 1024) if quick else (512, 1024, 2048)
    for dtype, rtol in (("float32", 1e-3), ("float64", 1e-9)):
        for n in sizes:
            a_np = rng.random((n, n)).astype(dtype)
            b_np = rng.random((n, n)).astype(dtype)
            a, b = strided.asarray(a_np), strided.asarray(b_np)
            ta, tb = _t(a_np), _t(b_np)
            case(
                f"matmul {n} {dtype}",
                lambda a=a, b=b: a @ b,
                lambda a=a_np, b=b_np: a @ b,
                lambda a=ta, b=tb: a @ b,
                agree(lambda a=a, b=b: a @ b, lambda a=a_np, b=b_np: a @ b, rtol)
                if n <= 1024
                else None,
                nflop=2 * n**3,
            )

    # -- layouts: a transposed view goes to BLAS as Trans, no copy -------------------------------
    n = 1024
    a_np = rng.random((n, n), dtype=np.float32)
    b_np = rng.random((n, n), dtype=np.float32)
    a, b = strided.asarray(a_np), strided.asarray(b_np)
    ta, tb = _t(a_np), _t(b_np)
    case(
        f"a.T @ b.T {n} float32",
        lambda: a.T @ b.T,
        lambda: a_np.T @ b_np.T,
        lambda: ta.T @ tb.T,
        agree(lambda: a.T @ b.T, lambda: a_np.T @ b_np.T, 1e-3),
        nflop=2 * n**3,
    )
    case(
        f"a[:, ::-1] @ b {n} float32 (copy first)",
        lambda: a[:, ::-1] @ b,
        lambda: a_np[:, ::-1] @ b_np,
        lambda: ta.flip(1) @ tb,
        agree(lambda: a[:, ::-1] @ b, lambda: a_np[:, ::-1] @ b_np, 1e-3),
        nflop=2 * n**3,
    )

    # -- per-call overhead and batches of small matrices -----------------------------------------
    s_np = rng.random((4, 4))
    s, ts = strided.asarray(s_np), _t(s_np)
    case(
        "matmul 4x4 float64 (overhead)",
        lambda: s @ s,
        lambda: s_np @ s_np,
        lambda: ts @ ts,
        agree(lambda: s @ s, lambda: s_np @ s_np, 1e-12),
    )
    x_np = rng.random((2000, 8, 8))
    y_np = rng.random((2000, 8, 8))
    x, y = strided.asarray(x_np), strided.asarray(y_np)
    tx, ty = _t(x_np), _t(y_np)
    case(
        "bmm 2000 x (8x8 @ 8x8) float64",
        lambda: x @ y,
        lambda: x_np @ y_np,
        lambda: tx @ ty,
        agree(lambda: x @ y, lambda: x_np @ y_np, 1e-12),
        nflop=2 * 2000 * 8**3,
    )
    v_np = rng.random((100000, 16))
    v, tv = strided.asarray(v_np), _t(v_np)
    case(
        "vecdot 100000 x 16 float64",
        lambda: strided.vecdot(v, v),
        lambda: np.vecdot(v_np, v_np),
        lambda: torch.linalg.vecdot(tv, tv),
        agree(lambda: strided.vecdot(v, v), lambda: np.vecdot(v_np, v_np), 1e-12),
    )

    # -- integers: the strided loop (NumPy has no BLAS for them either) -------------------------
    n = 256
    i_np = rng.integers(-100, 100, (n, n), dtype=np.int32)
    j_np = rng.integers(-100, 100, (n, n), dtype=np.int32)
    i, j = strided.asarray(i_np), strided.asarray(j_np)
    ti, tj = _t(i_np), _t(j_np)
    case(
        f"matmul {n} int32",
        lambda: i @ j,
        lambda: i_np @ j_np,
        lambda: ti @ tj,
        agree(lambda: i @ j, lambda: i_np @ j_np, 0),
        nflop=2 * n**3,
    )
    return out, flops


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--quick", action="store_true", help="skip the 2048 products")
    args = p.parse_args()
    case_list, flops = cases(args.quick)
    rows = run(case_list, threads=args.threads, title="strided linalg")
    info = blas.blas_info()
    print(f"\nstrided's BLAS: {info['config']} ({info['threading']}, {info['threads']} threads)")
    print("\n| case | strided GFLOP/s | numpy GFLOP/s | torch GFLOP/s |")
    print("|---|---|---|---|")
    for name, s, n, t in rows:
        if name not in flops:
            continue
        f = flops[name] / 1e9
        t_col = f"{f / t:.1f}" if t is not None else "-"
        print(f"| {name} | {f / s:.1f} | {f / n:.1f} | {t_col} |")


if __name__ == "__main__":
    main()
