"""NumPy's routines beyond the Array API, as strided composes them (strided/_ops/stats.py,
quantiles.py, histograms.py, sets.py, products.py, arrays.py): order statistics, nan-aware
reductions, histograms, sets, einsum, convolution.

Run: ``python benchmarks/bench_numpy.py [--threads N]``. Prints a Markdown table of times and
ratios against NumPy (and PyTorch when it has the function); above 1 means strided is faster.

These functions have no kernels of their own, so the table shows what composing costs. The
exceptions: ``median``, ``quantile`` and ``partition`` select rather than sort, as NumPy does
(introselect, O(n) per slice: Note [Selection]); ``histogram`` and ``bincount`` count in
one pass of a CPU kernel (Note [Counting kernels]), and ``isin`` of integers looks them up in a
table of bools as NumPy 2 does (Note [isin by table]). ``convolve`` is one GEMM over blocks of
the signal (Note [Convolution in blocks of m outputs]) and ``einsum`` contracts through matmul, both
OpenBLAS, where NumPy loops in C. The first rows time NumPy's own functions called on tensors
(``np.add(t, t)``, ``np.sum(t)``), which run strided's through NEP 13/18: ``np.add(t, t)``
minus ``strided.add(t, t)`` is the cost of the override.
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

    def case(name, s_fn, n_fn, t_fn=None, rtol=1e-10):
        def check():
            got, want = s_fn(), n_fn()
            if isinstance(want, tuple):
                got, want = got[0], want[0]
            np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-10)

        out.append((name, s_fn, n_fn, t_fn if torch is not None else None, check))

    # -- NumPy's protocols (Note [NumPy's protocols]): NumPy's functions called on tensors. The
    # first two rows differ only by the override, NumPy's machinery plus strided's lookup.
    v_np, w_np = rng.random(10), rng.random(10)
    v, w, tv, tw = strided.asarray(v_np), strided.asarray(w_np), _t(v_np), _t(w_np)
    case("strided.add(t, t), 10 f64", lambda: strided.add(v, w), lambda: np.add(v_np, w_np),
         lambda: torch.add(tv, tw))  # fmt: skip
    case("np.add(t, t), 10 f64 (NEP 13 override)", lambda: np.add(v, w),
         lambda: np.add(v_np, w_np), lambda: torch.add(tv, tw))  # fmt: skip
    case("np.sum(t), 10 f64 (NEP 18 override)", lambda: np.sum(v), lambda: np.sum(v_np),
         lambda: torch.sum(tv))  # fmt: skip

    a_np = rng.standard_normal(10**6)
    a, ta = strided.asarray(a_np), _t(a_np)
    case("median of 1e6 float64", lambda: strided.median(a), lambda: np.median(a_np),
         lambda: torch.median(ta))  # fmt: skip
    case(
        "quantile [0.1, 0.5, 0.9] of 1e6 float64",
        lambda: strided.quantile(a, [0.1, 0.5, 0.9]),
        lambda: np.quantile(a_np, [0.1, 0.5, 0.9]),
        lambda: torch.quantile(ta[:16_000_000], torch.tensor([0.1, 0.5, 0.9], dtype=ta.dtype)),
    )
    # (the element at kth is checked: the order around it is each library's own)
    case("partition of 1e6 float64 at 500000", lambda: strided.partition(a, 500_000)[500_000],
         lambda: np.partition(a_np, 500_000)[500_000],
         lambda: torch.kthvalue(ta, 500_001).values)  # fmt: skip
    m_np = rng.standard_normal((1000, 1000))
    m_np[rng.random((1000, 1000)) < 0.1] = np.nan
    m = strided.asarray(m_np)
    case("nanmean over dim 0 of 1000x1000 (10% NaN)", lambda: strided.nanmean(m, axis=0),
         lambda: np.nanmean(m_np, axis=0), lambda: torch.nanmean(_t(m_np), dim=0))  # fmt: skip
    # bytes summed into 64 bits as they are read (Note [Byte sums widened as they are read])
    b_np = a_np > 1.0
    b, tb = strided.asarray(b_np), _t(b_np)
    case("count_nonzero of 1e6 bool", lambda: strided.count_nonzero(b),
         lambda: np.count_nonzero(b_np), lambda: torch.count_nonzero(tb))  # fmt: skip
    case("mean of 1e6 bool ((pred == y).mean())", lambda: strided.mean(b), lambda: np.mean(b_np),
         lambda: tb.float().mean())  # fmt: skip
    case("histogram of 1e6 float64, 100 bins", lambda: strided.histogram(a, 100),
         lambda: np.histogram(a_np, 100))  # fmt: skip
    k_np = (np.abs(a_np) * 100).astype(np.int64)
    k = strided.asarray(k_np)
    case("bincount of 1e6 int64", lambda: strided.bincount(k), lambda: np.bincount(k_np),
         lambda: torch.bincount(_t(k_np)))  # fmt: skip
    i_np = rng.integers(0, 1000, 10**6)
    test_np = np.arange(0, 1000, 3)
    i, test = strided.asarray(i_np), strided.asarray(test_np)
    case("isin of 1e6 int64 in 334 values", lambda: strided.isin(i, test),
         lambda: np.isin(i_np, test_np), lambda: torch.isin(_t(i_np), _t(test_np)))  # fmt: skip
    b_np = rng.standard_normal((500, 500))
    b = strided.asarray(b_np)
    case("einsum ij,jk->ik 500x500", lambda: strided.einsum("ij,jk->ik", b, b),
         lambda: np.einsum("ij,jk->ik", b_np, b_np),
         lambda: torch.einsum("ij,jk->ik", _t(b_np), _t(b_np)))  # fmt: skip
    c_np = rng.standard_normal((100, 100, 100))
    c = strided.asarray(c_np)
    case("einsum bij,bjk->bik 100x100x100", lambda: strided.einsum("bij,bjk->bik", c, c),
         lambda: np.einsum("bij,bjk->bik", c_np, c_np),
         lambda: torch.einsum("bij,bjk->bik", _t(c_np), _t(c_np)))  # fmt: skip
    case("cov of 100 variables x 10000 samples", lambda: strided.cov(c.reshape(100, 10000)),
         lambda: np.cov(c_np.reshape(100, 10000)),
         lambda: torch.cov(_t(c_np.reshape(100, 10000))))  # fmt: skip
    case("convolve 1e5 with 101 taps", lambda: strided.convolve(a[:100_000], a[:101]),
         lambda: np.convolve(a_np[:100_000], a_np[:101]))  # fmt: skip
    xp_np, fp_np = np.linspace(-3, 3, 100), np.linspace(0, 1, 100)
    xp, fp = strided.asarray(xp_np), strided.asarray(fp_np)
    case("interp of 1e6 points among 100", lambda: strided.interp(a, xp, fp),
         lambda: np.interp(a_np, xp_np, fp_np))  # fmt: skip
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided: NumPy's extra routines")


if __name__ == "__main__":
    main()
