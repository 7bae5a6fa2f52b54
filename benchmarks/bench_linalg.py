"""Linear algebra benchmarks: GEMM throughput, transposed views, small and batched products,
the integer loop, and the LAPACK factorisations (solve, inv, det, cholesky, eigh, qr, svd) on
one 512 x 512 float64 matrix and on a batch of 10000 4 x 4 float32 matrices.

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


def _factorisations(rng, shape, dtype):
    """(name, strided, NumPy, PyTorch) calls of each factorisation on one batch of inputs:
    a well-conditioned general matrix, a symmetric positive-definite one, a right-hand side."""
    L, NL = strided.linalg, np.linalg
    TL = torch.linalg if torch is not None else None
    g_np = rng.standard_normal(shape).astype(dtype) + 4 * np.eye(shape[-1], dtype=dtype)
    spd_np = (g_np @ np.swapaxes(g_np, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)
    rhs_np = rng.standard_normal(shape[:-1] + (1,)).astype(dtype)
    g, spd, rhs = strided.asarray(g_np), strided.asarray(spd_np), strided.asarray(rhs_np)
    tg, tspd, trhs = _t(g_np), _t(spd_np), _t(rhs_np)
    return (
        ("solve", lambda: L.solve(g, rhs), lambda: NL.solve(g_np, rhs_np),
         lambda: TL.solve(tg, trhs)),
        ("inv", lambda: L.inv(g), lambda: NL.inv(g_np), lambda: TL.inv(tg)),
        ("det", lambda: L.det(g), lambda: NL.det(g_np), lambda: TL.det(tg)),
        ("cholesky", lambda: L.cholesky(spd), lambda: NL.cholesky(spd_np),
         lambda: TL.cholesky(tspd)),
        ("eigvalsh", lambda: L.eigvalsh(spd), lambda: NL.eigvalsh(spd_np),
         lambda: TL.eigvalsh(tspd)),
        ("eigh", lambda: L.eigh(spd)[0], lambda: NL.eigh(spd_np)[0], lambda: TL.eigh(tspd)[0]),
        ("qr", lambda: L.qr(g)[1], lambda: NL.qr(g_np)[1], lambda: TL.qr(tg)[1]),
        ("svd", lambda: L.svd(g, full_matrices=False)[1],
         lambda: NL.svd(g_np, full_matrices=False)[1],
         lambda: TL.svd(tg, full_matrices=False)[1]),
    )  # fmt: skip


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

    # -- factorisations (LAPACK): one 512 x 512 float64, and a batch of 10000 4 x 4 float32 --
    for label, shape, dtype, rtol in (
        ("512x512 float64", (512, 512), "float64", 1e-6),
        ("10000 x 4x4 float32", (10000, 4, 4), "float32", 1e-2),
    ):
        for name, s_fn, n_fn, t_fn in _factorisations(rng, shape, dtype):
            check = None
            if name != "qr":  # R's signs are LAPACK's choice: compare |R| elsewhere (tests)
                check = agree(s_fn, n_fn, rtol)
            case(f"{name} {label}", s_fn, n_fn, t_fn if torch is not None else None, check)
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
