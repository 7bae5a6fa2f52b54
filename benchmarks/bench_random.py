"""Random number benchmarks: NumPy's Generator methods on strided's Philox stream against
``numpy.random.default_rng`` (PCG64) and PyTorch's CPU generator (mt19937).

Run: ``python benchmarks/bench_random.py [--threads N]``. Prints a Markdown table of times and
ratios against NumPy (and PyTorch when installed); above 1 means strided is faster.

What each library runs: strided, Philox4x32-10 blocks eight side by side in SIMD lanes (Note
[Philox in lanes] in ``strided/_cpu/random.pyx``), Box-Muller for normals with a vectorised
log and sincos (Note [Box-Muller math that vectorises]), split across ``--threads``
(the numbers do not depend on the thread count); the other distributions composed from those
fills (Note [How the distributions consume the stream] in ``strided/_random_dists.py``).
NumPy: PCG64, ziggurat normals and exponentials, one thread. PyTorch: mt19937, Box-Muller
(vectorised) normals. The libraries draw different numbers, so ``check`` compares means.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, torch

import strided


def cases():
    rng = np.random.default_rng(0)
    g = strided.random.default_rng(0)
    tg = torch.Generator().manual_seed(0) if torch is not None else None
    out = []

    def case(name, s_fn, n_fn, t_fn, mean):
        def check():
            for got in (np.asarray(s_fn()), np.asarray(n_fn())):
                assert abs(got.mean() - mean) < 0.01 * max(1.0, abs(mean)), (name, got.mean())

        out.append((name, s_fn, n_fn, t_fn if torch is not None else None, check))

    n = 10**7
    buf, buf_np = strided.empty(n), np.empty(n)
    case(
        "random(1e7) float64",
        lambda: g.random(n),
        lambda: rng.random(n),
        lambda: torch.rand(n, dtype=torch.float64, generator=tg),
        0.5,
    )
    case(
        "random(out=) 1e7 float64 (no allocation)",
        lambda: g.random(out=buf),
        lambda: rng.random(out=buf_np),
        None,
        0.5,
    )
    case(
        "standard_normal(1e7) float64",
        lambda: g.standard_normal(n),
        lambda: rng.standard_normal(n),
        lambda: torch.randn(n, dtype=torch.float64, generator=tg),
        0.0,
    )
    case(
        "standard_normal(out=) 1e7 float64 (no allocation)",
        lambda: g.standard_normal(out=buf),
        lambda: rng.standard_normal(out=buf_np),
        None,
        0.0,
    )
    case(
        "standard_normal(1e7) float32",
        lambda: g.standard_normal(n, dtype="float32"),
        lambda: rng.standard_normal(n, dtype=np.float32),
        lambda: torch.randn(n, generator=tg),
        0.0,
    )
    m = 10**6
    case(
        "integers(0, 1000, 1e6)",
        lambda: g.integers(0, 1000, m),
        lambda: rng.integers(0, 1000, m),
        lambda: torch.randint(0, 1000, (m,), generator=tg),
        499.5,
    )
    case(
        "exponential(2.0, 1e6)",
        lambda: g.exponential(2.0, m),
        lambda: rng.exponential(2.0, m),
        lambda: torch.empty(m, dtype=torch.float64).exponential_(0.5, generator=tg),
        2.0,
    )
    case(
        "gamma(3.0, 1.0, 1e6) (rejection in rounds)",
        lambda: g.gamma(3.0, 1.0, m),
        lambda: rng.gamma(3.0, 1.0, m),
        lambda: torch._standard_gamma(torch.full((m,), 3.0, dtype=torch.float64)),
        3.0,
    )
    case(
        "poisson(40.0, 1e6) (PTRS in rounds)",
        lambda: g.poisson(40.0, m),
        lambda: rng.poisson(40.0, m),
        lambda: torch.poisson(torch.full((m,), 40.0), generator=tg),
        40.0,
    )
    case(
        "binomial(100, 0.3, 1e6) (BTRS in rounds)",
        lambda: g.binomial(100, 0.3, m),
        lambda: rng.binomial(100, 0.3, m),
        lambda: torch.binomial(torch.full((m,), 100.0), torch.full((m,), 0.3), generator=tg),
        30.0,
    )
    case(
        "choice(1000, 1e6, p=...)",
        lambda: g.choice(1000, m, p=np.full(1000, 1e-3)),
        lambda: rng.choice(1000, m, p=np.full(1000, 1e-3)),
        lambda: torch.multinomial(torch.full((1000,), 1e-3), m, True, generator=tg),
        499.5,
    )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided random numbers")


if __name__ == "__main__":
    main()
