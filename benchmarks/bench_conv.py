"""conv2d on the CPU: forward, and forward + backward, against PyTorch and against strided's
composite convolution (the im2col view and matmul that every conv2d ran before the stride-1
op: Note [A stride-1 convolution as one op] in strided/nn/functional/conv.py).

Run: ``python benchmarks/bench_conv.py [--threads N] [--rounds R]``. The shapes are the digits
CNN's two convolutions (batch 64, 8x8 images, 1 -> 16 and 16 -> 32 channels, padding 1) and a
ResNet layer at batch 8 (8x64x56x56, 64 filters, padding 1), float32. A backward row is
``conv2d(x, w, b).sum().backward()`` with x, w and b requiring grad. The three are timed in
turn for R rounds (each first in turn); medians, their spread (max - min) / median, and ratios
other / strided (above 1: strided is faster). 1 thread by default: the machine is shared.
"""

from __future__ import annotations

import numpy as np
from _harness import alternated_main, switched_off, torch

import strided
from strided.nn.functional import conv as _conv

SHAPES = [
    ("64x1x8x8, 16", (64, 1, 8, 8), 16),
    ("64x16x8x8, 32", (64, 16, 8, 8), 32),
    ("8x64x56x56, 64", (8, 64, 56, 56), 64),
]


def _composite(fn):
    """``fn`` run with the stride-1 op switched off: the composite convolution."""
    return switched_off(_conv, "_unit_stride_case", fn)


def conv_rows():
    """(name, strided, strided composite, PyTorch or None) per row. (Not ``cases()``: the
    bench suite's conv2d rows are its nn cases, strided/bench/_cases.py.)"""
    from strided.nn import functional as F

    rng = np.random.default_rng(0)
    out = []
    for label, shape, k in SHAPES:
        x_np = rng.standard_normal(shape, dtype=np.float32)
        w_np = rng.standard_normal((k, shape[1], 3, 3), dtype=np.float32) / (3 * shape[1] ** 0.5)
        b_np = rng.standard_normal(k, dtype=np.float32)
        x, w, b = (strided.asarray(a) for a in (x_np, w_np, b_np))
        xg, wg, bg = (strided.asarray(a).requires_grad_() for a in (x_np, w_np, b_np))

        def fwd(x=x, w=w, b=b):
            return F.conv2d(x, w, b, padding=1)

        def step(x=xg, w=wg, b=bg):
            F.conv2d(x, w, b, padding=1).sum().backward()
            g = x.grad
            x.grad = w.grad = b.grad = None
            return g

        t_fwd = t_step = None
        if torch is not None:
            tx, tw, tb = (torch.from_numpy(a) for a in (x_np, w_np, b_np))
            txg, twg, tbg = (
                torch.from_numpy(a.copy()).requires_grad_() for a in (x_np, w_np, b_np)
            )

            def t_fwd(tx=tx, tw=tw, tb=tb):
                return torch.nn.functional.conv2d(tx, tw, tb, padding=1)

            def t_step(x=txg, w=twg, b=tbg):
                torch.nn.functional.conv2d(x, w, b, padding=1).sum().backward()
                g = x.grad
                x.grad = w.grad = b.grad = None
                return g

        name = f"conv2d {label} 3x3 filters, padding 1"
        out.append((f"{name} (forward)", fwd, _composite(fwd), t_fwd))
        out.append((f"{name}, forward + backward", step, _composite(step), t_step))
    return out


def _check(name, s_fn, c_fn, t_fn):
    """The three agree: Winograd's float32 error is a few 1e-6 of the largest value (Note
    [Winograd's F(4x4, 3x3)] in strided/_cpu/conv.pyx)."""
    ref = np.asarray(c_fn())
    got = np.asarray(s_fn())
    scale = np.abs(ref).max()
    assert np.abs(got - ref).max() <= 1e-4 * scale, name
    if t_fn is not None:
        assert np.abs(t_fn().detach().numpy() - ref).max() <= 1e-4 * scale, name


def main():
    alternated_main(__doc__, conv_rows, _check, "conv2d, float32", ("before", "torch"))


if __name__ == "__main__":
    main()
