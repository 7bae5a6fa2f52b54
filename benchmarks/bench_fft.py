"""FFT benchmarks: fft of 2^20 complex64, rfft of 2^22 float32, fft2 of 2048 x 2048 complex64
(the sizes of issue 14), then a strided view, double precision, a batch of short lines and the
per-call overhead of a small transform.

Run: ``python benchmarks/bench_fft.py [--threads 1,2]``. Prints one Markdown table per thread
count, of times and ratios against NumPy (and PyTorch when installed; above 1 means strided is
faster).

What each library runs: strided, NumPy's pocketfft (``numpy.fft``) on a zero-copy view of its
tensor (Note [FFT backend] in strided/fft.py), so its time is NumPy's plus the call overhead;
NumPy's FFT is single-threaded, so the thread count changes neither. PyTorch runs its own FFT
(MKL or pocketfft, with threads) and gets ``--threads``.
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
    F = strided.fft

    def case(name, s_fn, n_fn, t_fn, check=True):
        def agree():
            np.testing.assert_array_equal(np.asarray(s_fn()), n_fn())

        out.append(
            (name, s_fn, n_fn, t_fn if torch is not None else None, agree if check else None)
        )

    def complex_values(shape, dtype):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    a_np = complex_values(2**20, np.complex64)
    a, ta = strided.asarray(a_np), _t(a_np)
    case(
        "fft of 2^20 complex64",
        lambda: F.fft(a),
        lambda: np.fft.fft(a_np),
        lambda: torch.fft.fft(ta),
    )
    r_np = rng.standard_normal(2**22).astype(np.float32)
    r, tr = strided.asarray(r_np), _t(r_np)
    case(
        "rfft of 2^22 float32",
        lambda: F.rfft(r),
        lambda: np.fft.rfft(r_np),
        lambda: torch.fft.rfft(tr),
    )
    m_np = complex_values((2048, 2048), np.complex64)
    m, tm = strided.asarray(m_np), _t(m_np)
    case(
        "fft2 of 2048x2048 complex64",
        lambda: F.fft2(m),
        lambda: np.fft.fft2(m_np),
        lambda: torch.fft.fft2(tm),
    )
    v, v_np = m[::2, ::-2], m_np[::2, ::-2]  # a stepped, reversed view: read in place
    tv = tm[::2].flip(-1)[:, ::2] if torch is not None else None
    case(
        "fft along axis 0 of a 1024x1024 view m[::2, ::-2] complex64",
        lambda: F.fft(v, axis=0),
        lambda: np.fft.fft(v_np, axis=0),
        lambda: torch.fft.fft(tv, dim=0),
    )
    d_np = complex_values(2**20, np.complex128)
    d, td = strided.asarray(d_np), _t(d_np)
    case(
        "fft of 2^20 complex128",
        lambda: F.fft(d),
        lambda: np.fft.fft(d_np),
        lambda: torch.fft.fft(td),
    )
    b_np = rng.standard_normal((1000, 1024)).astype(np.float32)
    b, tb = strided.asarray(b_np), _t(b_np)
    case(
        "rfft of 1000 lines of 1024 float32",
        lambda: F.rfft(b),
        lambda: np.fft.rfft(b_np),
        lambda: torch.fft.rfft(tb),
    )
    s_np = complex_values(64, np.complex128)
    s, ts = strided.asarray(s_np), _t(s_np)
    case(
        "fft of 64 complex128 (per-call overhead)",
        lambda: F.fft(s),
        lambda: np.fft.fft(s_np),
        lambda: torch.fft.fft(ts),
    )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    args = p.parse_args()
    for threads in (int(t) for t in args.threads.split(",")):
        run(cases(), threads=threads, title=f"strided FFT, {threads} thread(s)")
        print()


if __name__ == "__main__":
    main()
