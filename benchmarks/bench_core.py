"""Core benchmarks: the cost of a view, of contiguous() and of the copy/cast/fill kernels.

Run: ``python benchmarks/bench_core.py [--threads N]``. Prints a Markdown table of times and
ratios against NumPy (and PyTorch when installed); above 1 means strided is faster.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, torch

import strided


def cases():
    rng = np.random.default_rng(0)
    small_np = rng.random((40, 40))
    small = strided.asarray(small_np)
    big_np = rng.random((4000, 4000), dtype=np.float32)
    big = strided.asarray(big_np)
    vec_np = rng.random(10**7, dtype=np.float32)
    vec = strided.asarray(vec_np)
    small_t = big_t = vec_t = None
    if torch is not None:
        small_t = torch.from_numpy(small_np.copy())
        big_t = torch.from_numpy(big_np.copy())
        vec_t = torch.from_numpy(vec_np.copy())

    def same(a, b):
        def check():
            np.testing.assert_array_equal(np.asarray(a()), b())

        return check

    def tfn(f):
        return f if torch is not None else None

    return [
        # -- the cost of making a view: pure per-call overhead --------------------------------
        (
            "view: x.T (40x40)",
            lambda: small.T,
            lambda: small_np.T,
            tfn(lambda: small_t.T),
            same(lambda: small.T, lambda: small_np.T),
        ),
        (
            "view: x[1:3, ::2]",
            lambda: small[1:3, ::2],
            lambda: small_np[1:3, ::2],
            tfn(lambda: small_t[1:3, ::2]),
            same(lambda: small[1:3, ::2], lambda: small_np[1:3, ::2]),
        ),
        (
            "view: x[5]",
            lambda: small[5],
            lambda: small_np[5],
            tfn(lambda: small_t[5]),
            same(lambda: small[5], lambda: small_np[5]),
        ),
        (
            "view: x.reshape(20, 80)",
            lambda: small.reshape(20, 80),
            lambda: small_np.reshape(20, 80),
            tfn(lambda: small_t.reshape(20, 80)),
            same(lambda: small.reshape(20, 80), lambda: small_np.reshape(20, 80)),
        ),
        (
            "view: x[None].expand(3, 40, 40)",
            lambda: small[None].expand(3, 40, 40),
            lambda: np.broadcast_to(small_np[None], (3, 40, 40)),
            tfn(lambda: small_t[None].expand(3, 40, 40)),
            None,
        ),
        # -- the copy kernel ------------------------------------------------------------------
        (
            "contiguous(): 4000x4000 f32 .T",
            lambda: big.T.contiguous(),
            lambda: np.ascontiguousarray(big_np.T),
            tfn(lambda: big_t.T.contiguous()),
            same(lambda: big.T.contiguous(), lambda: np.ascontiguousarray(big_np.T)),
        ),
        (
            "clone: 1e7 f32",
            lambda: vec.clone(),
            lambda: vec_np.copy(),
            tfn(lambda: vec_t.clone()),
            same(lambda: vec.clone(), lambda: vec_np.copy()),
        ),
        (
            "cast f32->f64: 1e7",
            lambda: vec.astype("float64"),
            lambda: vec_np.astype(np.float64),
            tfn(lambda: vec_t.to(torch.float64)),
            same(lambda: vec.astype("float64"), lambda: vec_np.astype(np.float64)),
        ),
        (
            "cast f32->int32: 1e7",
            lambda: vec.astype("int32"),
            lambda: vec_np.astype(np.int32),
            tfn(lambda: vec_t.to(torch.int32)),
            same(lambda: vec.astype("int32"), lambda: vec_np.astype(np.int32)),
        ),
        (
            "strided copy x[::2] (5e6 f32)",
            lambda: vec[::2].contiguous(),
            lambda: np.ascontiguousarray(vec_np[::2]),
            tfn(lambda: vec_t[::2].contiguous()),
            same(lambda: vec[::2].contiguous(), lambda: np.ascontiguousarray(vec_np[::2])),
        ),
        (
            "fill: full(1e7, 1.5) f32",
            lambda: strided.full((10**7,), 1.5, dtype="float32"),
            lambda: np.full(10**7, 1.5, np.float32),
            tfn(lambda: torch.full((10**7,), 1.5, dtype=torch.float32)),
            None,
        ),
        (
            "zeros(1e7) f32",
            lambda: strided.zeros(10**7, dtype="float32"),
            lambda: np.zeros(10**7, np.float32),
            tfn(lambda: torch.zeros(10**7)),
            None,
        ),
        (
            "arange(1e7) i64",
            lambda: strided.arange(10**7),
            lambda: np.arange(10**7),
            tfn(lambda: torch.arange(10**7)),
            same(lambda: strided.arange(10**7), lambda: np.arange(10**7)),
        ),
        # -- getting data in ------------------------------------------------------------------
        (
            "asarray(ndarray) zero-copy",
            lambda: strided.asarray(big_np),
            lambda: np.asarray(big_np),
            tfn(lambda: torch.from_numpy(big_np)),
            None,
        ),
        (
            "asarray([1.0, 2.0, 3.0])",
            lambda: strided.asarray([1.0, 2.0, 3.0]),
            lambda: np.asarray([1.0, 2.0, 3.0]),
            tfn(lambda: torch.tensor([1.0, 2.0, 3.0])),
            None,
        ),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided core: views and copies")


if __name__ == "__main__":
    main()
