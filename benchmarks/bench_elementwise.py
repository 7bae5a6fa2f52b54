"""Elementwise benchmarks: per-call overhead, memory-bound and compute-bound kernels, layouts.

Run: ``python benchmarks/bench_elementwise.py [--threads N]``. Prints a Markdown table of times
and ratios against NumPy (and PyTorch when installed); above 1 means strided is faster. The first
rows measure the machine's memory bandwidth with a STREAM-like triad (``a = b + s*c`` with
``out=``) in NumPy and strided: the ceiling for every memory-bound op below.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, timeit, torch

import strided


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a)) if torch is not None else None


def cases():
    rng = np.random.default_rng(0)
    out = []

    def case(name, s_fn, n_fn, t_fn, check=None):
        out.append((name, s_fn, n_fn, t_fn if torch is not None else None, check))

    def agree(s_fn, n_fn, rtol=1e-6):
        def check():
            np.testing.assert_allclose(np.asarray(s_fn()), n_fn(), rtol=rtol)

        return check

    # -- per-call overhead ---------------------------------------------------------------------
    for n in (1, 100):
        a_np, b_np = rng.random(n), rng.random(n)
        a, b = strided.asarray(a_np), strided.asarray(b_np)
        ta, tb = _t(a_np), _t(b_np)
        case(
            f"add {n} f64 (overhead)",
            lambda a=a, b=b: a + b,
            lambda a=a_np, b=b_np: a + b,
            lambda a=ta, b=tb: a + b,
            agree(lambda a=a, b=b: a + b, lambda a=a_np, b=b_np: a + b),
        )

    # -- 1e7 float32: memory-bound add/mul, compute-bound exp/tanh -----------------------------
    n = 10**7
    x_np = rng.random(n, dtype=np.float32)
    y_np = rng.random(n, dtype=np.float32)
    o_np = np.empty_like(x_np)
    x, y, o = strided.asarray(x_np), strided.asarray(y_np), strided.empty(n, dtype="float32")
    tx, ty, to = _t(x_np), _t(y_np), _t(o_np)
    case(
        "triad a = b + 2.5*c, out= (bandwidth)",
        lambda: strided.add(x, strided.multiply(y, 2.5, out=o), out=o),
        lambda: np.add(x_np, np.multiply(y_np, 2.5, out=o_np), out=o_np),
        lambda: torch.add(tx, ty, alpha=2.5, out=to),
    )
    case(
        "add 1e7 f32",
        lambda: x + y,
        lambda: x_np + y_np,
        lambda: tx + ty,
        agree(lambda: x + y, lambda: x_np + y_np),
    )
    case(
        "add 1e7 f32 out=",
        lambda: strided.add(x, y, out=o),
        lambda: np.add(x_np, y_np, out=o_np),
        lambda: torch.add(tx, ty, out=to),
    )
    case("mul 1e7 f32", lambda: x * y, lambda: x_np * y_np, lambda: tx * ty)
    case(
        "mul 1e7 f32 out=",
        lambda: strided.multiply(x, y, out=o),
        lambda: np.multiply(x_np, y_np, out=o_np),
        lambda: torch.mul(tx, ty, out=to),
    )
    case(
        "exp 1e7 f32",
        lambda: strided.exp(x),
        lambda: np.exp(x_np),
        lambda: torch.exp(tx),
        agree(lambda: strided.exp(x), lambda: np.exp(x_np), 1e-5),
    )
    case(
        "exp 1e7 f32 out=",
        lambda: strided.exp(x, out=o),
        lambda: np.exp(x_np, out=o_np),
        lambda: torch.exp(tx, out=to),
    )
    case(
        "tanh 1e7 f32",
        lambda: strided.tanh(x),
        lambda: np.tanh(x_np),
        lambda: torch.tanh(tx),
        agree(lambda: strided.tanh(x), lambda: np.tanh(x_np), 1e-5),
    )
    case(
        "tanh 1e7 f32 out=",
        lambda: strided.tanh(x, out=o),
        lambda: np.tanh(x_np, out=o_np),
        lambda: torch.tanh(tx, out=to),
    )

    # -- dtypes ---------------------------------------------------------------------------------
    xd_np, yd_np = x_np.astype(np.float64), y_np.astype(np.float64)
    xd, yd = strided.asarray(xd_np), strided.asarray(yd_np)
    txd, tyd = _t(xd_np), _t(yd_np)
    case("add 1e7 f64", lambda: xd + yd, lambda: xd_np + yd_np, lambda: txd + tyd)
    xi_np = rng.integers(-1000, 1000, n, dtype=np.int32)
    yi_np = rng.integers(-1000, 1000, n, dtype=np.int32)
    xi, yi = strided.asarray(xi_np), strided.asarray(yi_np)
    txi, tyi = _t(xi_np), _t(yi_np)
    case(
        "add 1e7 i32",
        lambda: xi + yi,
        lambda: xi_np + yi_np,
        lambda: txi + tyi,
        agree(lambda: xi + yi, lambda: xi_np + yi_np),
    )

    # -- layouts --------------------------------------------------------------------------------
    A_np = rng.random((4000, 4000), dtype=np.float32)
    B_np = rng.random((4000, 4000), dtype=np.float32)
    A, B = strided.asarray(A_np), strided.asarray(B_np)
    tA, tB = _t(A_np), _t(B_np)
    case(
        "a.T + b (4000x4000 f32)",
        lambda: A.T + B,
        lambda: A_np.T + B_np,
        lambda: tA.T + tB,
        agree(lambda: A.T + B, lambda: A_np.T + B_np),
    )
    case(
        "x[::2, ::3] + y[::2, ::3]",
        lambda: A[::2, ::3] + B[::2, ::3],
        lambda: A_np[::2, ::3] + B_np[::2, ::3],
        lambda: tA[::2, ::3] + tB[::2, ::3],
        agree(lambda: A[::2, ::3] + B[::2, ::3], lambda: A_np[::2, ::3] + B_np[::2, ::3]),
    )
    c_np, r_np = rng.random((4096, 1), dtype=np.float32), rng.random((1, 4096), dtype=np.float32)
    c, r = strided.asarray(c_np), strided.asarray(r_np)
    tc, tr = _t(c_np), _t(r_np)
    case(
        "(4096,1) + (1,4096) f32",
        lambda: c + r,
        lambda: c_np + r_np,
        lambda: tc + tr,
        agree(lambda: c + r, lambda: c_np + r_np),
    )
    # the digits CNN's max-pool backward: an unpredictable mask, the share broadcast over each
    # 2x2 window, inner rows of 16 (Note [A branch-free where] in strided/_cpu/binary.pyx.tp)
    win_np = rng.standard_normal((64, 4, 2, 4, 2, 16)).astype(np.float32)
    mask_np = win_np == win_np.max(axis=(2, 4), keepdims=True)
    share_np = rng.standard_normal((64, 4, 1, 4, 1, 16)).astype(np.float32)
    mask, share = strided.asarray(mask_np), strided.asarray(share_np)
    tmask, tshare = _t(mask_np), _t(share_np)
    zero_np = np.float32(0.0)
    case(
        "where(mask, share, 0) 64x4x2x4x2x16 f32 (broadcast)",
        lambda: strided.where(mask, share, 0.0),
        lambda: np.where(mask_np, share_np, zero_np),
        lambda: torch.where(tmask, tshare, 0.0),
        agree(
            lambda: strided.where(mask, share, 0.0), lambda: np.where(mask_np, share_np, zero_np)
        ),
    )
    return out


def bandwidth(threads):
    """GB/s of a triad with out= (3 arrays of 4e7 bytes moved per call)."""
    n = 10**7
    x, y, o = (
        strided.asarray(np.random.default_rng(1).random(n, dtype=np.float32)) for _ in range(3)
    )
    t, _ = timeit(lambda: strided.add(x, strided.multiply(y, 2.5, out=o), out=o))
    return 5 * 4 * n / t / 1e9  # mul reads 1 writes 1, add reads 2 writes 1


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided elementwise")
    print(
        f"\nstrided triad bandwidth: {bandwidth(args.threads):.1f} GB/s "
        f"(mul + add with out=, 5 arrays of 40 MB moved)"
    )


if __name__ == "__main__":
    main()
