"""Complex arithmetic and ordering, the loops that follow NumPy's own steps rather than C's.

Run: ``python benchmarks/bench_complex.py [--threads N] [--n N] [--rounds R]``. Each row is
``fn(a, b, out=o)`` on contiguous complex128 (or complex64) arrays of ``--n`` values, in strided,
NumPy and PyTorch (where PyTorch has the operation: it has no order on complex numbers), the
three libraries timed in turn for R rounds; medians, their spread (max - min) / median, and
ratios other-library / strided (above 1: strided is faster). The kernels: Note [Complex
division, reciprocal and power as NumPy's] and Note [The order of complex numbers] in
strided/_cpu/scalar_math.h; x**3 is Note [Integer powers by a scalar exponent]
(strided/_cpu/intpow.h), divide and reciprocal Note [Complex division without fused
multiply-adds] (strided/_cpu/cdivide.h).
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import alternated, torch

import strided

# (name, strided function, NumPy function, PyTorch function or None, second operand)
ROWS = [
    ("divide", strided.divide, np.divide, "div", "array"),
    ("reciprocal", strided.reciprocal, np.reciprocal, "reciprocal", None),
    ("power x**3", strided.pow, np.power, "pow", 3),
    ("power x**2.5", strided.pow, np.power, "pow", 2.5),
    ("less", strided.less, np.less, None, "array"),
    ("maximum", strided.maximum, np.maximum, None, "array"),
]


def cases(n=10**6, dtypes=(np.complex128, np.complex64)):
    """(name, strided call, NumPy call, PyTorch call or None, check) per row and dtype."""
    out = []
    for dtype in dtypes:
        out += _cases(n, dtype)
    return out


def _cases(n, dtype):
    rng = np.random.default_rng(0)
    a_np = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    b_np = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    a, b = strided.asarray(a_np), strided.asarray(b_np)
    out = []
    for name, s_fn, n_fn, t_name, second in ROWS:
        args_np = (a_np,) if second is None else (a_np, b_np if second == "array" else second)
        args = (a,) if second is None else (a, b if second == "array" else second)
        o_np = np.empty(n, dtype=bool if name == "less" else dtype)
        o = strided.empty(n, dtype=o_np.dtype.name)
        t_fn = None
        if torch is not None and t_name is not None:
            targs = [torch.from_numpy(x) if isinstance(x, np.ndarray) else x for x in args_np]
            to = torch.from_numpy(np.empty_like(o_np))
            tf = getattr(torch, t_name)
            t_fn = lambda tf=tf, targs=targs, to=to: tf(*targs, out=to)  # noqa: E731

        def check(s_fn=s_fn, n_fn=n_fn, args=args, args_np=args_np):
            with np.errstate(all="ignore"):
                want = n_fn(*args_np)
            np.testing.assert_allclose(np.asarray(s_fn(*args)), want, rtol=1e-5)

        out.append(
            (
                f"{name} {n:.0e} {np.dtype(dtype).name}, out=",
                lambda s_fn=s_fn, args=args, o=o: s_fn(*args, out=o),
                lambda n_fn=n_fn, args=args_np, o=o_np: n_fn(*args, out=o),
                t_fn,
                check,
            )
        )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--n", type=int, default=10**6)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    alternated(cases(args.n), args.rounds, args.threads, "strided complex arithmetic")


if __name__ == "__main__":
    main()
