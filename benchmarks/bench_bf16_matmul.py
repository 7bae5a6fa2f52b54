"""bfloat16 matmul on vdpbf16ps against the float32 path it replaces and against PyTorch (Note
[bfloat16 matmul through vdpbf16ps] in strided/_cpu/blas.pyx).

Run: ``python benchmarks/bench_bf16_matmul.py [--threads N] [--rounds R]``. Square products of
64 to 2048 and an MLP layer's 64x784 @ 784x256, bfloat16 in and out. "before" is strided's
float32 path (widen both operands, SGEMM, round), switched on for its calls. The three are timed
in turn for R rounds (each first in turn); medians, their spread (max - min) / median, and
ratios other / strided (above 1: strided is faster). 1 thread by default: the machine is
shared. On a CPU without AVX512_BF16 both strided columns run the float32 path.
"""

from __future__ import annotations

import numpy as np
from _harness import alternated_main, torch

import strided
from strided._cpu import blas

SHAPES = [(64, 64, 64), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048)]
SHAPES += [(64, 784, 256)]  # m, k, n


def _before(fn):
    """``fn`` run on the float32 path."""

    def run():
        keep = blas._set_bf16_gemm(False)
        try:
            return fn()
        finally:
            blas._set_bf16_gemm(keep)

    return run


def rows():
    """(name, strided, strided before, PyTorch or None) per shape."""
    rng = np.random.default_rng(0)
    out = []
    for m, k, n in SHAPES:
        a = strided.asarray(rng.standard_normal((m, k), dtype=np.float32)).astype("bfloat16")
        b = strided.asarray(rng.standard_normal((k, n), dtype=np.float32)).astype("bfloat16")

        def fn(a=a, b=b):
            return a @ b

        t_fn = None
        if torch is not None:
            ta = torch.from_numpy(np.asarray(a.astype("float32"))).to(torch.bfloat16)
            tb = torch.from_numpy(np.asarray(b.astype("float32"))).to(torch.bfloat16)

            def t_fn(ta=ta, tb=tb):
                return ta @ tb

        name = f"matmul {m}x{k} @ {k}x{n} bfloat16" if m != k else f"matmul {m} bfloat16"
        out.append((name, fn, _before(fn), t_fn))
    return out


def _check(name, s_fn, c_fn, t_fn):
    """The three agree to a few bfloat16 roundings (they sum in float32 in their own orders)."""
    ref = np.asarray(c_fn().astype("float32"))
    scale = np.abs(ref).max()
    assert np.abs(np.asarray(s_fn().astype("float32")) - ref).max() <= 2.0**-6 * scale, name
    if t_fn is not None:
        got = t_fn().float().numpy()
        assert np.abs(got - ref).max() <= 2.0**-6 * scale, name


def main():
    alternated_main(__doc__, rows, _check, "matmul, bfloat16", ("before", "torch"))


if __name__ == "__main__":
    main()
