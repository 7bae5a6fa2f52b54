"""Transcendental elementwise functions (issue 20): strided, NumPy and PyTorch on the same data.

Run: ``python benchmarks/bench_transcendental.py [--threads N] [--n N] [--only exp,log]
[--rounds R]``, or ``python -m strided.bench --suite transcendental``. Every row is
``fn(x, out=o)`` on a contiguous array of float32 or float64 values spread over the range where
the function is interesting (each its own: log's inputs are positive, asin's in [-1, 1], ...),
so no allocation is timed. ``--rounds R`` times the three libraries in turn, R rounds, and
reports medians and spreads (the form for a shared, loaded machine).
Ratios are other-library time / strided time: above 1 means strided is faster. The kernels and
their accuracy: Note [Vectorised transcendental functions] in strided/_cpu/vecmath.h.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import alternated, run, torch

import strided

# (name, NumPy function, PyTorch function name, input range (low, high))
UNARY = [
    ("exp", np.exp, "exp", (-80.0, 80.0)),
    ("exp2", np.exp2, "exp2", (-120.0, 120.0)),
    ("expm1", np.expm1, "expm1", (-20.0, 20.0)),
    ("log", np.log, "log", (1e-30, 1e30)),
    ("log2", np.log2, "log2", (1e-30, 1e30)),
    ("log10", np.log10, "log10", (1e-30, 1e30)),
    ("log1p", np.log1p, "log1p", (-0.9, 1e10)),
    ("sin", np.sin, "sin", (-100.0, 100.0)),
    ("cos", np.cos, "cos", (-100.0, 100.0)),
    ("tan", np.tan, "tan", (-100.0, 100.0)),
    ("arcsin", np.arcsin, "asin", (-1.0, 1.0)),
    ("arccos", np.arccos, "acos", (-1.0, 1.0)),
    ("arctan", np.arctan, "atan", (-100.0, 100.0)),
    ("sinh", np.sinh, "sinh", (-80.0, 80.0)),
    ("cosh", np.cosh, "cosh", (-80.0, 80.0)),
    ("tanh", np.tanh, "tanh", (-10.0, 10.0)),
    ("arcsinh", np.arcsinh, "asinh", (-1e10, 1e10)),
    ("arccosh", np.arccosh, "acosh", (1.0, 1e10)),
    ("arctanh", np.arctanh, "atanh", (-0.99, 0.99)),
    ("erf", None, "erf", (-5.0, 5.0)),
    ("erfc", None, "erfc", (-3.0, 9.0)),
    ("sigmoid", None, "sigmoid", (-30.0, 30.0)),
    ("softplus", None, "softplus", (-30.0, 30.0)),
]

# (name, NumPy function, PyTorch function name)
BINARY = [
    ("arctan2", np.arctan2, "atan2"),
    ("power", np.power, "pow"),
    ("logaddexp", np.logaddexp, "logaddexp"),
    ("hypot", np.hypot, "hypot"),
]


def _spread(rng, n, low, high, dtype):
    """n values in [low, high]: log-uniform when the range spans decades, else uniform."""
    if low > 0 and high / low > 1e3:
        x = np.exp(rng.uniform(np.log(low), np.log(high), n))
    elif low > -1 and high / max(-low, 1e-300) > 1e3:  # log1p: mostly positive, decades wide
        x = np.concatenate(
            [rng.uniform(low, 1.0, n // 4), np.exp(rng.uniform(0.0, np.log(high), n - n // 4))]
        )
        rng.shuffle(x)
    elif high > 1e3:
        x = np.exp(rng.uniform(-10, np.log(high), n)) * rng.choice([-1.0, 1.0], n)
    else:
        x = rng.uniform(low, high, n)
    return x.astype(dtype)


def _numpy_sigmoid(x, out):
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def _numpy_softplus(x, out):
    return np.logaddexp(x, 0.0, out=out)


# the NumPy stand-ins for the functions NumPy lacks (SciPy's erf and erfc are looked up by name)
_NUMPY_OF = {"sigmoid": _numpy_sigmoid, "softplus": _numpy_softplus}


def _torch_fn(name):
    """torch.<name>, or the ATen function of torch.nn.functional's softplus and gelu, which
    takes out= (torch._C._nn.softplus): the comparison is out= on both sides."""
    return getattr(torch, name, None) or getattr(torch._C._nn, name)


def cases(n=10**6, only=None):
    import scipy.special

    rng = np.random.default_rng(0)
    out = []
    for dtype in (np.float32, np.float64):
        short = "f32" if dtype == np.float32 else "f64"
        rtol = 1e-5 if dtype == np.float32 else 1e-13  # a few ulp: the check is a sanity check
        for name, n_fn, t_name, (low, high) in UNARY:
            if only and name not in only:
                continue
            x_np = _spread(rng, n, low, high, dtype)
            o_np = np.empty_like(x_np)
            x, o = strided.asarray(x_np), strided.empty(n, dtype=x_np.dtype.name)
            s_fn = getattr(strided, name)
            if n_fn is None:
                n_fn = getattr(scipy.special, name) if name.startswith("erf") else _NUMPY_OF[name]
            t_fn = None
            if torch is not None:
                tx, to = torch.from_numpy(x_np), torch.from_numpy(np.empty_like(x_np))
                tf = _torch_fn(t_name)
                t_fn = lambda tf=tf, tx=tx, to=to: tf(tx, out=to)  # noqa: E731

            def check(s_fn=s_fn, n_fn=n_fn, x=x, x_np=x_np, rtol=rtol):
                with np.errstate(all="ignore"):
                    want = n_fn(x_np, out=np.empty_like(x_np))
                got = np.asarray(s_fn(x))
                np.testing.assert_allclose(got, want, rtol=rtol)

            out.append(
                (
                    f"{name} 1e{len(str(n)) - 1} {short}, out=",
                    lambda s_fn=s_fn, x=x, o=o: s_fn(x, out=o),
                    lambda n_fn=n_fn, x=x_np, o=o_np: n_fn(x, out=o),
                    t_fn,
                    check,
                )
            )
        if not only or "gelu" in only:
            out.append(_gelu_case(_spread(rng, n, -6.0, 6.0, dtype), short, n, rtol))
        for name, n_fn, t_name in BINARY:
            if only and name not in only:
                continue
            a_np = _spread(rng, n, -50.0, 50.0, dtype)
            b_np = _spread(rng, n, -50.0, 50.0, dtype)
            cases = [("", a_np, b_np)]
            if name == "power":
                # positive bases, and bases of either sign with integer exponents (the sign of
                # an odd one)
                cases = [
                    ("", np.abs(a_np), (b_np / 5).astype(dtype)),
                    (" a of both signs, b integer", a_np, np.round(b_np / 5).astype(dtype)),
                ]
            for label, a_np, b_np in cases:
                out.append(_binary_case(name, n_fn, t_name, a_np, b_np, short + label, n, rtol))
    return out


def _gelu_case(x_np, short, n, rtol):
    """strided.nn.functional.gelu (erf's form) against PyTorch's: neither with out= (strided's
    has none), so both allocate their result; NumPy's column is the same formula with SciPy's
    erf."""
    import scipy.special

    from strided.nn import functional as F

    x = strided.asarray(x_np)

    def numpy_gelu(x=x_np):
        return x * 0.5 * (1.0 + scipy.special.erf(x * np.sqrt(0.5)))

    t_fn = None
    if torch is not None:
        tx = torch.from_numpy(x_np)
        t_fn = lambda tx=tx: torch.nn.functional.gelu(tx)  # noqa: E731

    def check(x=x, x_np=x_np, rtol=rtol):
        np.testing.assert_allclose(np.asarray(F.gelu(x)), numpy_gelu(), rtol=rtol, atol=rtol)

    return (
        f"gelu 1e{len(str(n)) - 1} {short}",
        lambda x=x: F.gelu(x),
        numpy_gelu,
        t_fn,
        check,
    )


def _binary_case(name, n_fn, t_name, a_np, b_np, short, n, rtol):
    """A benchmark case of a binary function: (label, strided, NumPy, PyTorch, check)."""
    o_np = np.empty_like(a_np)
    a, b = strided.asarray(a_np), strided.asarray(b_np)
    o = strided.empty(n, dtype=a_np.dtype.name)
    s_fn = getattr(strided, name)
    t_fn = None
    if torch is not None:
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        to = torch.from_numpy(np.empty_like(a_np))
        tf = getattr(torch, t_name)
        t_fn = lambda tf=tf, ta=ta, tb=tb, to=to: tf(ta, tb, out=to)  # noqa: E731

    def check2(s_fn=s_fn, n_fn=n_fn, a=a, b=b, a_np=a_np, b_np=b_np, rtol=rtol):
        got = np.asarray(s_fn(a, b))
        # logaddexp's results cross zero: an absolute tolerance there
        np.testing.assert_allclose(got, n_fn(a_np, b_np), rtol=rtol, atol=rtol)

    return (
        f"{name} 1e{len(str(n)) - 1} {short}, out=",
        lambda s_fn=s_fn, a=a, b=b, o=o: s_fn(a, b, out=o),
        lambda n_fn=n_fn, a=a_np, b=b_np, o=o_np: n_fn(a, b, out=o),
        t_fn,
        check2,
    )


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--n", type=int, default=10**6)
    p.add_argument("--only", default="", help="comma-separated function names")
    p.add_argument("--rounds", type=int, default=0, help="alternate the libraries, R rounds")
    args = p.parse_args()
    only = set(args.only.split(",")) if args.only else None
    if args.rounds:
        alternated(
            cases(args.n, only), args.rounds, args.threads, "strided transcendental functions"
        )
        return
    run(cases(args.n, only), threads=args.threads, title="strided transcendental functions")


if __name__ == "__main__":
    main()
