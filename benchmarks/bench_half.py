"""float16 and bfloat16 benchmarks (issue 18): casts, elementwise ops, sums and matmul.

Run: ``python benchmarks/bench_half.py [--threads N]``, or ``python -m strided.bench --suite
half``. NumPy's own float16 is the float16 baseline; NumPy has no bfloat16, so ml_dtypes'
(NumPy-side, ufunc loops in C++) is the bfloat16 one. PyTorch has both.

What to expect (Note [Half precision: 16 bits stored, float computed] and Note [Half precision
through float32]): casts and elementwise ops are single passes that convert in registers, so
they should run at memory speed like their float32 forms; sums and matmuls widen to float32
first (one extra pass), then run the float32 kernel (SGEMM for matmul), except a bfloat16 matmul
on a CPU with AVX512_BF16, which runs vdpbf16ps on packed pairs (Note [bfloat16 matmul through
vdpbf16ps]; benchmarks/bench_bf16_matmul.py).
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, torch

import strided

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - the test extra installs it
    ml_dtypes = None


def _np_dtype(name):
    if name == "float16":
        return np.dtype(np.float16)
    return np.dtype(ml_dtypes.bfloat16) if ml_dtypes is not None else None


def cases():
    rng = np.random.default_rng(0)
    out = []
    x32 = rng.random(10**7, dtype=np.float32) + 0.5
    y32 = rng.random(10**7, dtype=np.float32) + 0.5
    a32 = rng.standard_normal((2048, 2048), dtype=np.float32)
    b32 = rng.standard_normal((2048, 2048), dtype=np.float32)
    for name in ("float16", "bfloat16"):
        if _np_dtype(name) is not None:
            out += _cases_for(name, x32, y32, a32, b32)
    return out


def _cases_for(name, x32, y32, a32, b32):
    """The cases of one half dtype (a function of its own, so the lambdas bind its names)."""
    out = []
    npd = _np_dtype(name)
    tdt = getattr(torch, name) if torch is not None else None

    def tt(a):
        return torch.from_numpy(a).to(tdt) if torch is not None else None

    xs, ys = strided.asarray(x32).astype(name), strided.asarray(y32).astype(name)
    xn, yn = x32.astype(npd), y32.astype(npd)
    xt, yt = tt(x32), tt(y32)
    x32s = strided.asarray(x32)
    x32t = torch.from_numpy(x32) if torch is not None else None

    def case(label, s_fn, n_fn, t_fn, check=None):
        out.append((f"{label} {name}", s_fn, n_fn, t_fn if torch is not None else None, check))

    def agree(s_fn, n_fn, rtol=1e-2, atol=0.0):
        # every case checks itself against float32 arithmetic rounded once (ml_dtypes' bfloat16
        # sum accumulates in bfloat16 and stalls; PyTorch's bfloat16 has no NumPy form)
        def check():
            got = np.asarray(s_fn().astype("float32"))
            want = np.asarray(n_fn(), np.float32)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)

        return check

    case(
        "cast f32 -> 1e7",
        lambda: x32s.astype(name),
        lambda: x32.astype(npd),
        lambda: x32t.to(tdt),
        agree(lambda: x32s.astype(name), lambda: x32.astype(npd).astype(np.float32), 0),
    )
    case(
        "cast 1e7 -> f32",
        lambda: xs.astype("float32"),
        lambda: xn.astype(np.float32),
        lambda: xt.float(),
    )
    case(
        "add 1e7",
        lambda: xs + ys,
        lambda: xn + yn,
        lambda: xt + yt,
        agree(lambda: xs + ys, lambda: xn + yn),
    )
    case(
        "exp 1e7",
        lambda: strided.exp(xs),
        lambda: np.exp(xn),
        lambda: torch.exp(xt),
        agree(lambda: strided.exp(xs), lambda: np.exp(xn)),
    )
    case(
        "sum 1e7",
        lambda: strided.sum(xs),
        lambda: np.sum(xn),
        lambda: torch.sum(xt),
        # 1e7 values near 1 overflow float16 (inf), as NumPy's float16 sum does
        agree(lambda: strided.sum(xs), lambda: np.float32(xn.astype(np.float64).sum()).astype(npd)),
    )
    # NumPy's float16 matmul is a naive loop (minutes at 2048): NumPy's column is its float32
    # product rounded, which is what strided computes. PyTorch's CPU half matmul is fast only
    # where the CPU has AVX-512 FP16/BF16 instructions; elsewhere it is a scalar loop (74 s for
    # one float16 product of 2048 on the project's Zen 3), so its column is measured at 512.
    for n in (2048, 512):
        a, b = strided.asarray(a32[:n, :n]).astype(name), strided.asarray(b32[:n, :n]).astype(name)
        a32n, b32n = a32[:n, :n], b32[:n, :n]
        an, bn = a32n.astype(npd).astype(np.float32), b32n.astype(npd).astype(np.float32)
        at, bt = (tt(a32n), tt(b32n)) if n <= 512 else (None, None)
        case(
            f"matmul {n}",
            lambda a=a, b=b: a @ b,
            lambda a32n=a32n, b32n=b32n: (a32n @ b32n).astype(npd),
            (lambda at=at, bt=bt: at @ bt) if at is not None else None,
            agree(lambda a=a, b=b: a @ b, lambda an=an, bn=bn: an @ bn, 2e-2, 0.5),
        )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided float16 / bfloat16")


if __name__ == "__main__":
    main()
