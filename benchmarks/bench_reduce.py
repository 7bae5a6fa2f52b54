"""Reduction and scan benchmarks: full and per-dim sums, max/argmax, cumsum, and the transposing
copy that a reduction over the "wrong" dim would otherwise need.

Run: ``python benchmarks/bench_reduce.py [--threads N]``. Prints a Markdown table of times and
ratios against NumPy (and PyTorch when installed); above 1 means strided is faster. Sums over
dim 0 and dim 1 of a row-major matrix take the two strategies of Note [Reductions]
(``_cpu/reduce.pyx.tp``); cumsum along dim 0 and dim 1 the two loop orders of Note [Scans]
(``_cpu/scan.pyx.tp``). A float32 sum is pairwise in all three libraries, but each cuts the work
differently, so the check compares with a tolerance.
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

    def case(name, s_fn, n_fn, t_fn, rtol=None):
        check = None
        if rtol is not None:

            def check():
                got = np.asarray(s_fn())
                np.testing.assert_allclose(got, n_fn(), rtol=rtol)
                if torch is not None:
                    np.testing.assert_allclose(got, t_fn().numpy(), rtol=rtol)

        out.append((name, s_fn, n_fn, t_fn if torch is not None else None, check))

    n = 10**7
    v_np = rng.random(n, dtype=np.float32)
    v, tv = strided.asarray(v_np), _t(v_np)
    case("sum 1e7 f32", lambda: strided.sum(v), lambda: v_np.sum(), lambda: tv.sum(), 1e-5)

    # the per-call cost: a whole reduction of 100 elements, as the method NumPy code calls
    # (Note [Whole reductions at NumPy's per-call cost] in strided/_ops/reduction.py)
    small_np = rng.random(100, dtype=np.float32)
    small, t_small = strided.asarray(small_np), _t(small_np)
    case(
        "x.sum() of 100 f32",
        small.sum,
        small_np.sum,
        t_small.sum if torch is not None else None,
        1e-6,
    )
    case(
        "x.max() of 100 f32", small.max, small_np.max, t_small.max if torch is not None else None, 0
    )

    a_np = rng.random((4000, 4000), dtype=np.float32)
    a, ta = strided.asarray(a_np), _t(a_np)
    case(
        "sum dim 0, 4000x4000 f32",
        lambda: a.sum(0),
        lambda: a_np.sum(0),
        lambda: ta.sum(0),
        1e-5,
    )
    case(
        "sum dim 1, 4000x4000 f32",
        lambda: a.sum(1),
        lambda: a_np.sum(1),
        lambda: ta.sum(1),
        1e-5,
    )
    case(
        "max dim 1, 4000x4000 f32",
        lambda: strided.max(a, axis=1),
        lambda: a_np.max(1),
        lambda: torch.amax(ta, 1),
        0,
    )
    case(
        "min dim 1, 4000x4000 f32",
        lambda: strided.min(a, axis=1),
        lambda: a_np.min(1),
        lambda: torch.amin(ta, 1),
        0,
    )
    case(
        "argmax dim 1, 4000x4000 f32",
        lambda: strided.argmax(a, axis=1),
        lambda: a_np.argmax(1),
        lambda: ta.argmax(1),
        0,
    )
    # issue 20: a dim that is not the fastest (Note [argmax over an outer dim]), and PyTorch's
    # max(dim=), values and indices in one pass (Note [max(dim=) in one pass]); NumPy's column
    # takes its max and its argmax
    case(
        "argmax dim 0, 4000x4000 f32",
        lambda: strided.argmax(a, axis=0),
        lambda: a_np.argmax(0),
        lambda: ta.argmax(0),
        0,
    )
    case(
        "max dim 0, 4000x4000 f32",
        lambda: strided.max(a, axis=0),
        lambda: a_np.max(0),
        lambda: torch.amax(ta, 0),
        0,
    )
    # narrow rows folded many a call (Note [Columns in registers]): a bias gradient over a
    # channels-last batch, and a tall matrix of three columns
    cl_np = rng.random((64, 8, 8, 16), dtype=np.float32).transpose(0, 3, 1, 2)
    cl = strided.asarray(np.ascontiguousarray(cl_np.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
    t_cl = _t(cl_np.transpose(0, 2, 3, 1)).permute(0, 3, 1, 2) if torch is not None else None
    case(
        "sum over (N, H, W), channels-last 64x16x8x8 f32",
        lambda: cl.sum(axis=(0, 2, 3)),
        lambda: cl_np.sum(axis=(0, 2, 3)),
        lambda: t_cl.sum(dim=(0, 2, 3)),
        1e-5,
    )
    tall_np = rng.random((100000, 3), dtype=np.float32)
    tall, t_tall = strided.asarray(tall_np), _t(tall_np)
    case(
        "sum dim 0, 100000x3 f32",
        lambda: tall.sum(0),
        lambda: tall_np.sum(0),
        lambda: t_tall.sum(0),
        1e-4,
    )
    out.append(
        (
            "max(dim=1) values and indices, 4000x4000 f32",
            lambda: a.max(dim=1),
            lambda: (a_np.max(1), a_np.argmax(1)),
            (lambda: ta.max(dim=1)) if torch is not None else None,
            None,
        )
    )
    case(
        "cumsum 1e7 f32",
        lambda: strided.cumsum(v, 0),
        lambda: np.cumsum(v_np),
        lambda: torch.cumsum(tv, 0),
        1e-4,
    )
    case(
        "cumsum dim 0, 4000x4000 f32",
        lambda: strided.cumsum(a, 0),
        lambda: np.cumsum(a_np, 0),
        lambda: torch.cumsum(ta, 0),
        1e-5,
    )
    case(
        "cumsum dim 1, 4000x4000 f32",
        lambda: strided.cumsum(a, 1),
        lambda: np.cumsum(a_np, 1),
        lambda: torch.cumsum(ta, 1),
        1e-5,
    )
    case(
        "x.T.contiguous(), 4000x4000 f32",
        lambda: a.T.contiguous(),
        lambda: np.ascontiguousarray(a_np.T),
        lambda: ta.T.contiguous(),
        0,
    )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided reductions and scans")


if __name__ == "__main__":
    main()
