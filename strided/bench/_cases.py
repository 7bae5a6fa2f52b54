"""The benchmark cases: those of ``benchmarks/bench_*.py`` plus nn and GPU cases defined here.

A case is ``Case(suite, name, fns, check)``: ``fns`` maps a library name ("strided", "numpy",
"torch", "cupy") to a function of no arguments; ``check`` (optional) raises if they disagree.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import strided

__all__ = ["Case", "find_benchmarks_dir", "script_cases", "nn_cases", "gpu_cases"]


@dataclass
class Case:
    suite: str
    name: str
    fns: dict
    check: object = None
    device: str = "cpu"
    reference: str = "numpy"
    rtol: float | None = None
    notes: list = field(default_factory=list)


def find_benchmarks_dir(explicit=None):
    """``benchmarks/`` of the source checkout strided was imported from, or None."""
    if explicit is not None:
        p = Path(explicit)
        if not (p / "_harness.py").exists():
            raise SystemExit(f"--bench-dir {p}: no _harness.py there; point it at benchmarks/")
        return p
    p = Path(strided.__file__).resolve().parent.parent / "benchmarks"
    return p if (p / "_harness.py").exists() else None


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def script_cases(bench_dir, only=None):
    """The cases of every ``bench_*.py`` with a ``cases()`` function (``bench_cuda.py`` has a
    main only: its GPU cases are redone in ``gpu_cases``). Yields (suite, Case) lazily, so the
    data of one script is freed before the next script makes its own."""
    if str(bench_dir) not in sys.path:
        sys.path.insert(0, str(bench_dir))  # the scripts import their _harness as a top module
    for path in sorted(Path(bench_dir).glob("bench_*.py")):
        suite = path.stem.removeprefix("bench_")
        if only and suite not in only:
            continue
        spec = importlib.util.spec_from_file_location(f"_strided_bench_{suite}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not hasattr(module, "cases"):
            continue
        made = module.cases()
        if isinstance(made, tuple):  # bench_linalg returns (cases, flops)
            made = made[0]
        for name, s_fn, n_fn, t_fn, check in made:
            fns = {"strided": s_fn, "numpy": n_fn}
            if t_fn is not None:
                fns["torch"] = t_fn
            yield Case(suite, name, fns, check)


def nn_cases(only=None):
    """strided.nn against PyTorch (and NumPy where it has the op): conv2d forward, one training
    step of the main job's CNN."""
    if only and "nn" not in only:
        return []
    from strided import nn, optim
    from strided.nn import functional as F

    torch = _torch()
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((64, 16, 8, 8), dtype=np.float32)
    w_np = rng.standard_normal((32, 16, 3, 3), dtype=np.float32)
    x, w = strided.asarray(x_np), strided.asarray(w_np)

    def np_conv():
        xp = np.pad(x_np, ((0, 0), (0, 0), (1, 1), (1, 1)))
        win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
        return np.tensordot(win, w_np, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)

    fns = {"strided": lambda: F.conv2d(x, w, padding=1), "numpy": np_conv}
    if torch is not None:
        tx, tw = torch.from_dlpack(x), torch.from_dlpack(w)  # zero-copy: the same memory
        fns["torch"] = lambda: torch.nn.functional.conv2d(tx, tw, padding=1)
    out = [Case("nn", "conv2d 64x16x8x8, 32 3x3 filters, padding 1 (forward)", fns, rtol=1e-4)]
    out += _conv_backward_cases(torch, rng, x_np, w_np)
    out.append(_max_pool_backward_case(torch, x_np))
    out += _gelu_step_cases(torch, rng)

    from strided._train import make_cnn

    model = make_cnn().to("float32")
    opt = optim.Adam(model.parameters(), lr=1e-3)
    xb = strided.asarray(rng.standard_normal((64, 1, 8, 8), dtype=np.float32))
    yb = strided.asarray(rng.integers(0, 10, 64))

    def s_step():
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return None  # a step's result is the updated weights: not compared

    fns = {"strided": s_step}
    if torch is not None:
        tn = torch.nn
        tmodel = tn.Sequential(
            tn.Conv2d(1, 16, 3, padding=1),
            tn.ReLU(),
            tn.MaxPool2d(2),
            tn.Conv2d(16, 32, 3, padding=1),
            tn.ReLU(),
            tn.MaxPool2d(2),
            tn.Flatten(),
            tn.Linear(128, 10),
        )
        topt = torch.optim.Adam(tmodel.parameters(), lr=1e-3)
        txb, tyb = torch.from_dlpack(xb), torch.from_dlpack(yb)

        def t_step():
            loss = tn.functional.cross_entropy(tmodel(txb), tyb)
            topt.zero_grad()
            loss.backward()
            topt.step()

        fns["torch"] = t_step
    out.append(
        Case(
            "nn",
            "digits CNN training step, batch 64 (Adam)",
            fns,
            reference="strided",
            notes=["not compared: the updated weights are checked in tests/"],
        )
    )
    return out


def _conv_backward_cases(torch, rng, x_np, w_np):
    """conv2d forward and backward (the input's gradient, compared), on the digits CNN's
    shapes and on a ResNet layer, an 8x64x56x56 input with 64 3x3 filters (issue 20's case at
    batch 8: batch 64 is too slow for a 2-core machine), whose forward is a row too: strided
    against PyTorch (NumPy has no autograd). benchmarks/bench_conv.py also times strided's
    composite convolution, the one before Note [A stride-1 convolution as one op]."""
    from strided.nn import functional as F

    big_x = rng.standard_normal((8, 64, 56, 56), dtype=np.float32)
    big_w = rng.standard_normal((64, 64, 3, 3), dtype=np.float32) / 24
    bx, bw = strided.asarray(big_x), strided.asarray(big_w)
    fns = {"strided": lambda: F.conv2d(bx, bw, padding=1)}
    if torch is not None:
        tbx, tbw = torch.from_numpy(big_x), torch.from_numpy(big_w)
        fns["torch"] = lambda: torch.nn.functional.conv2d(tbx, tbw, padding=1)
    name = "conv2d 8x64x56x56, 64 3x3 filters, padding 1 (forward)"
    out = [Case("nn", name, fns, reference="torch", rtol=1e-3)]
    for label, xn, wn in (("64x16x8x8, 32", x_np, w_np), ("8x64x56x56, 64", big_x, big_w)):
        x = strided.asarray(xn).requires_grad_()
        w = strided.asarray(wn).requires_grad_()

        def s_step(x=x, w=w):
            F.conv2d(x, w, padding=1).sum().backward()
            g, x.grad, w.grad = x.grad, None, None
            return g

        fns = {"strided": s_step}
        if torch is not None:
            tx = torch.from_numpy(xn).requires_grad_()
            tw = torch.from_numpy(wn).requires_grad_()

            def t_step(tx=tx, tw=tw):
                torch.nn.functional.conv2d(tx, tw, padding=1).sum().backward()
                g, tx.grad, tw.grad = tx.grad, None, None
                return g.numpy()

            fns["torch"] = t_step
        name = f"conv2d {label} 3x3 filters, padding 1, forward + backward"
        out.append(Case("nn", name, fns, reference="torch", rtol=1e-3))
    return out


def _gelu_step_cases(torch, rng):
    """F.gelu forward + backward (x's gradient compared), both forms, float32, 1e6 elements:
    strided against PyTorch (Note [gelu as one op] in strided/_cpu/unary.pyx.tp; the forward
    alone is bench_transcendental.py's row, and benchmarks/bench_gelu.py times both dtypes and
    the ops)."""
    from strided.nn import functional as F

    xn = rng.standard_normal(1_000_000, dtype=np.float32) * 3
    gn = rng.standard_normal(1_000_000, dtype=np.float32)
    out = []
    for form in ("none", "tanh"):
        x, g = strided.asarray(xn).requires_grad_(), strided.asarray(gn)

        def s_step(x=x, g=g, form=form):
            F.gelu(x, approximate=form).backward(g)
            grad, x.grad = x.grad, None
            return grad

        fns = {"strided": s_step}
        if torch is not None:
            tx, tg = torch.from_numpy(xn.copy()).requires_grad_(), torch.from_numpy(gn)

            def t_step(tx=tx, tg=tg, form=form):
                torch.nn.functional.gelu(tx, approximate=form).backward(tg)
                grad, tx.grad = tx.grad, None
                return grad.numpy()

            fns["torch"] = t_step
        name = f"gelu 1e6 f32 ({form}), forward + backward"
        out.append(Case("nn", name, fns, reference="torch", rtol=1e-4))
    return out


def _max_pool_backward_case(torch, x_np):
    """2x2 max pooling forward and backward on a channels-last (64, 16, 8, 8) input, the digits
    CNN's first pooling (issue 20: Note [max's backward in one pass] in _cpu/reduce.pyx.tp)."""
    from strided.nn import functional as F

    last = np.ascontiguousarray(x_np.transpose(0, 2, 3, 1))
    x = strided.permute(strided.asarray(last), (0, 3, 1, 2)).requires_grad_()

    def s_step():
        F.max_pool2d(x, 2).sum().backward()
        g, x.grad = x.grad, None
        return g

    fns = {"strided": s_step}
    if torch is not None:
        tx = torch.from_numpy(last).permute(0, 3, 1, 2).requires_grad_()

        def t_step():
            torch.nn.functional.max_pool2d(tx, 2).sum().backward()
            g, tx.grad = tx.grad, None
            return g.numpy()

        fns["torch"] = t_step
    name = "max_pool2d 2x2 64x16x8x8 channels-last, forward + backward"
    return Case("nn", name, fns, reference="torch", rtol=0)


def gpu_cases(only=None):
    """Elementwise and copy cases on the GPU: strided makes the data, CuPy and PyTorch see the
    same device memory through DLPack. Empty without a usable GPU."""
    if (only and "gpu" not in only) or not strided.cuda.is_available():
        return []
    import cupy as cp

    torch = _torch()
    torch_cuda = torch is not None and torch.cuda.is_available()
    rng = np.random.default_rng(0)
    n = 10**7
    a = strided.asarray(rng.standard_normal(n, dtype=np.float32)).to("cuda")
    b = strided.asarray(rng.standard_normal(n, dtype=np.float32)).to("cuda")
    ca, cb = cp.from_dlpack(a), cp.from_dlpack(b)
    ta = tb = None
    if torch_cuda:
        ta, tb = torch.from_dlpack(a), torch.from_dlpack(b)
    m = a.reshape(1000, 10**4)
    cm = ca.reshape(1000, 10**4)
    tm = ta.reshape(1000, 10**4) if torch_cuda else None
    specs = [
        ("add 1e7 f32", lambda: a + b, lambda: ca + cb, lambda: ta + tb),
        ("exp 1e7 f32", lambda: strided.exp(a), lambda: cp.exp(ca), lambda: torch.exp(ta)),
        ("add broadcast row 1e3x1e4", lambda: m + m[0], lambda: cm + cm[0], lambda: tm + tm[0]),
        (
            "T.contiguous() 1e3x1e4",
            lambda: m.T.contiguous(),
            lambda: cp.ascontiguousarray(cm.T),
            lambda: tm.T.contiguous(),
        ),
        (
            "add of 1 element (launch overhead)",
            lambda: a[:1] + b[:1],
            lambda: ca[:1] + cb[:1],
            lambda: ta[:1] + tb[:1],
        ),
    ]
    out = []
    for name, s_fn, c_fn, t_fn in specs:
        fns = {"strided": s_fn, "cupy": c_fn}
        if torch_cuda:
            fns["torch"] = t_fn
        out.append(Case("gpu", name, fns, device="cuda", reference="strided", rtol=1e-5))
    return out + _gpu_linalg_fft_cases(cp, torch if torch_cuda else None, rng)


def _gpu_linalg_fft_cases(cp, torch, rng, device="cuda"):
    """cuSOLVER (Note [cuSOLVER for a batch of LAPACK calls]) and cuFFT (Note [CUDA FFT])
    through strided, CuPy and PyTorch on the same device memory (issue 23's linalg and fft
    rows). Eigenvalues, not vectors, are compared: vectors are unique only up to sign.
    (tests/test_bench.py runs them on the emulator, with NumPy standing in for CuPy.)"""

    def on_gpu(x):
        t = strided.asarray(x).to(device)
        return t, cp.from_dlpack(t), (torch.from_dlpack(t) if torch is not None else None)

    def well_conditioned(shape, dtype):
        x = rng.standard_normal(shape) + shape[-1] * np.eye(shape[-1])
        return x.astype(dtype)

    a, ca, ta = on_gpu(well_conditioned((1024, 1024), np.float64))
    b, cb, tb = on_gpu(rng.standard_normal((1024, 16)))
    h_np = a.cpu().numpy()
    h, ch, th = on_gpu(h_np @ h_np.T)
    s, cs, ts = on_gpu(well_conditioned((10000, 4, 4), np.float32))
    sb, csb, tsb = on_gpu(rng.standard_normal((10000, 4, 1)).astype(np.float32))
    z, cz, tz = on_gpu((rng.standard_normal(2**20) + 1j * rng.standard_normal(2**20)).astype(
        np.complex64))  # fmt: skip
    r, cr, tr = on_gpu(rng.standard_normal(2**22).astype(np.float32))
    z2, cz2, tz2 = on_gpu(rng.standard_normal((2048, 2048)).astype(np.complex64))
    L, F = strided.linalg, strided.fft
    tl = torch.linalg if torch is not None else None
    tf = torch.fft if torch is not None else None
    specs = [
        ("solve 1024x1024 f64, 16 rhs", lambda: L.solve(a, b), lambda: cp.linalg.solve(ca, cb),
         lambda: tl.solve(ta, tb), 1e-8),
        ("solve 10000 4x4 f32", lambda: L.solve(s, sb), lambda: cp.linalg.solve(cs, csb),
         lambda: tl.solve(ts, tsb), 1e-3),
        ("cholesky 1024 f64", lambda: L.cholesky(h), lambda: cp.linalg.cholesky(ch),
         lambda: tl.cholesky(th), 1e-8),
        ("eigvalsh 1024 f64", lambda: L.eigvalsh(h), lambda: cp.linalg.eigvalsh(ch),
         lambda: tl.eigvalsh(th), 1e-8),
        ("inv 1024 f64", lambda: L.inv(a), lambda: cp.linalg.inv(ca), lambda: tl.inv(ta), 1e-8),
        ("fft 2^20 c64", lambda: F.fft(z), lambda: cp.fft.fft(cz), lambda: tf.fft(tz), 1e-4),
        ("rfft 2^22 f32", lambda: F.rfft(r), lambda: cp.fft.rfft(cr), lambda: tf.rfft(tr), 1e-4),
        ("fft2 2048x2048 c64", lambda: F.fft2(z2), lambda: cp.fft.fft2(cz2),
         lambda: tf.fft2(tz2), 1e-4),
    ]  # fmt: skip
    out = []
    for name, s_fn, c_fn, t_fn, rtol in specs:
        fns = {"strided": s_fn, "cupy": c_fn}
        if torch is not None:
            fns["torch"] = t_fn
        out.append(Case("gpu", name, fns, device=device, reference="strided", rtol=rtol))
    return out
