"""float16 and bfloat16 elementwise loops, casts and sums against NumPy and PyTorch (issue 20).

Run: ``python benchmarks/bench_half_loops.py [--threads N] [--rounds R] [--n N]``, with
``STRIDED_CPU_FEATURES=x86-64-v3`` (or v2) to time a lower level's kernels, and
``ATEN_CPU_CAPABILITY=avx2`` to give PyTorch the same instructions (else it keeps its AVX-512
ones). Every row writes into an ``out=`` made beforehand (a cast copies into a tensor of the
other dtype), so no allocation is timed; the three libraries run in turn, R rounds, and each
column is the median with its spread. NumPy's bfloat16 is ml_dtypes' (its ufunc loops convert
one element at a time): a column to read for its values more than its times.

What the rows measure: Note [Half conversions in blocks, with F16C] in
strided/_cpu/scalar_math.h (every float16 row converts on the way in and out of the float32
computation) and Note [Half loops in blocks] in strided/_cpu/unary.pyx.tp.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import alternated, torch

import strided

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - the test extra installs it
    ml_dtypes = None

UNARY = ["exp", "tanh", "sigmoid", "log", "sin", "sqrt"]
BINARY = ["add", "multiply"]


def _numpy_sigmoid(x, out):
    """1 / (1 + exp(-x)) in x's dtype, into ``out``."""
    np.negative(x, out=out)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    return np.reciprocal(out, out=out)


def _row(label, s_fn, n_fn, t_fn, got, want):
    """A case of ``alternated``: the check compares strided's answer with NumPy's (float32
    arithmetic rounded once against NumPy's own half loops: a half's last place apart)."""

    def check():
        with np.errstate(over="ignore"):  # the float16 sums' infinity
            g = np.asarray(got().astype("float32"), np.float32)
            w = np.asarray(want(), np.float32)
        np.testing.assert_allclose(g, w, rtol=2e-2, atol=1e-3)

    return (label, s_fn, n_fn, t_fn, check)


def cases(n=10**7, names=("float16", "bfloat16")):
    rng = np.random.default_rng(0)
    x32 = rng.random(n, dtype=np.float32) + 0.5
    y32 = rng.random(n, dtype=np.float32) + 0.5
    out = []
    for name in names:
        npd = np.dtype(np.float16) if name == "float16" else np.dtype(ml_dtypes.bfloat16)
        out += _cases_for(name, npd, x32, y32)
    return out


def _cases_for(name, npd, x32, y32):
    """The rows of one half dtype (a function of its own, so the lambdas bind its names)."""
    n = x32.size
    size = f"1e{len(str(n)) - 1}"
    x, y = strided.asarray(x32).astype(name), strided.asarray(y32).astype(name)
    o, x32s, o32 = strided.empty_like(x), strided.asarray(x32), strided.empty(n, dtype="float32")
    xn, yn, on, o32n = x32.astype(npd), y32.astype(npd), np.empty(n, npd), np.empty_like(x32)
    xt = yt = ot = x32t = o32t = None
    if torch is not None:
        tdt = getattr(torch, name)
        xt, yt = torch.from_numpy(x32).to(tdt), torch.from_numpy(y32).to(tdt)
        ot, x32t, o32t = torch.empty_like(xt), torch.from_numpy(x32), torch.empty(n)
    rows = []
    for op in BINARY:
        s_fn, n_fn = getattr(strided, op), getattr(np, op)
        t_fn = getattr(torch, op, None) if torch is not None else None
        rows.append(
            _row(
                f"{op} {size} {name}, out=",
                lambda s_fn=s_fn: s_fn(x, y, out=o),
                lambda n_fn=n_fn: n_fn(xn, yn, out=on),
                None if t_fn is None else lambda t_fn=t_fn: t_fn(xt, yt, out=ot),
                lambda s_fn=s_fn: s_fn(x, y),
                lambda n_fn=n_fn: n_fn(xn, yn),
            )
        )
    for op in UNARY:
        s_fn = getattr(strided, op)
        n_fn = _numpy_sigmoid if op == "sigmoid" else getattr(np, op)
        t_fn = getattr(torch, op) if torch is not None else None
        rows.append(
            _row(
                f"{op} {size} {name}, out=",
                lambda s_fn=s_fn: s_fn(x, out=o),
                lambda n_fn=n_fn: n_fn(xn, out=on),
                None if t_fn is None else lambda t_fn=t_fn: t_fn(xt, out=ot),
                lambda s_fn=s_fn: s_fn(x),
                lambda n_fn=n_fn: n_fn(xn, out=np.empty_like(xn)),
            )
        )
    casts = [
        (f"f32 -> {name}", o, x32s, on, x32, ot, x32t, name, npd),
        (f"{name} -> f32", o32, x, o32n, xn, o32t, xt, "float32", np.float32),
    ]
    for label, s_out, s_in, n_out, n_in, t_out, t_in, dst, npdst in casts:
        rows.append(
            _row(
                f"cast {label} {size}, into out",
                lambda s_out=s_out, s_in=s_in: s_out.copy_(s_in),
                lambda n_out=n_out, n_in=n_in: np.copyto(n_out, n_in, casting="unsafe"),
                None if torch is None else lambda t_out=t_out, t_in=t_in: t_out.copy_(t_in),
                lambda s_in=s_in, dst=dst: s_in.astype(dst),
                lambda n_in=n_in, npdst=npdst: n_in.astype(npdst),
            )
        )
    rows.append(
        _row(
            f"sum {size} {name}",
            lambda: strided.sum(x),
            lambda: np.sum(xn),
            None if torch is None else lambda: torch.sum(xt),
            lambda: strided.sum(x),
            # 1e7 values near 1 overflow float16, as NumPy's float16 sum does: the float32
            # sum of the same values, rounded once, is the answer
            lambda: np.float32(xn.astype(np.float64).sum()).astype(npd),
        )
    )
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=11)
    p.add_argument("--n", type=int, default=10**7)
    p.add_argument("--only", default="float16,bfloat16", help="dtypes, comma separated")
    args = p.parse_args()
    names = tuple(args.only.split(","))
    title = "float16 and bfloat16 loops (strided, NumPy or ml_dtypes, PyTorch)"
    alternated(cases(args.n, names), args.rounds, args.threads, title)


if __name__ == "__main__":
    main()
