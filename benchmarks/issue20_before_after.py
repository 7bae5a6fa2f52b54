"""Issue 20's before/after table for the training-step, reduction and bookkeeping work, in one
process: each case alternates the old code path (switched back on in place) with the new one
and PyTorch, 7 rounds, medians and [min-max].

Run: ``python benchmarks/issue20_before_after.py [--threads N] [--general]``. The old paths:
the Python fast path (``recording._fast_kernel``, Note [The recorded op's fast path]) instead of
the compiled one (Note [The compiled recorder] in strided/autograd/_record.pyx), or with
``--general`` the general Autograd kernel (``record_call``) for every op; ``strided.sum(x,
axis=0)`` (the general road) instead of ``x.sum()``; Note [A view's backward by taps] (the
strided in-place adds) instead of Note [A view's backward in one pass] in _record.pyx; the
mask/count/divide/where ops instead of Note [max's backward in one pass] (_cpu/reduce.pyx.tp)
for max pooling and the digits CNN step.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

import numpy as np
import torch
from bench_autograd import _init, ce_step, mse_step

import strided
from strided import _dispatch
from strided._cpu import reduce as _reduce
from strided.autograd import derivatives as _d
from strided.autograd import formulas, recording
from strided.nn import functional as F

SPELLING = "{:.2f} us [{:.2f}-{:.2f}]"


def _old_kernels(general):
    """{op: its old Autograd kernel} for the ops that now have a compiled fast one: the Python
    fast path, or (``general``) record_call's kernel."""
    out = {}
    for name, keys in _dispatch.registered_ops().items():
        entry = _d.TABLE.get(name)
        if "Autograd" not in keys or entry is None or name.endswith("_") or entry.prepare:
            continue
        if not general:
            out[name] = recording._autograd_kernel(name, compiled=False)
            continue
        run = functools.partial(_dispatch.redispatch, name, "Autograd")

        def kernel(*args, _name=name, _entry=entry, _run=run, **kwargs):
            return recording.record_call(_name, _entry, _run, args, kwargs, kwargs.get("out"))

        out[name] = kernel
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--general", action="store_true", help="before: record_call for every op")
    args = p.parse_args()
    strided.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    ag = strided.ones(1, dtype="float64").requires_grad_()
    old_kernels = _old_kernels(args.general)
    fast = {n: _dispatch._kernels[n]["Autograd"] for n in old_kernels}

    def autograd_path(old):
        for n in fast:
            _dispatch._kernels[n]["Autograd"] = old_kernels[n] if old else fast[n]

    one_pass = formulas._record

    def taps_path(old):  # before: the taps; after: Note [A view's backward in one pass]
        formulas._record = None if old else one_pass

    def none(old):
        pass

    fused_max_backward = _reduce.max_backward

    def pool_path(old):  # before: the mask/count/divide/where ops of max_min_backward
        _reduce.max_backward = (lambda *a: None) if old else fused_max_backward

    last = np.ascontiguousarray(
        np.random.default_rng(1).standard_normal((64, 8, 8, 16), dtype=np.float32)
    )
    px = strided.permute(strided.asarray(last), (0, 3, 1, 2)).requires_grad_()
    tpx = torch.from_numpy(last).permute(0, 3, 1, 2).requires_grad_()

    def pool_step(lib, x):
        pool = F.max_pool2d if lib is strided else torch.nn.functional.max_pool2d
        pool(x, 2).sum().backward()
        x.grad = None

    b = strided.ones(1, dtype="float64")
    tg = torch.ones(1, dtype=torch.float64, requires_grad=True)
    tb = torch.ones(1, dtype=torch.float64)
    small = strided.asarray(np.random.default_rng(0).random(100, dtype=np.float32))
    small_np, small_t = small.numpy(), torch.from_numpy(small.numpy())
    x_np, onehot, params = _init()
    sx, so = strided.asarray(x_np), strided.asarray(onehot)
    sp = [strided.tensor(p).requires_grad_() for p in params]
    tx, to = torch.from_numpy(x_np), torch.from_numpy(onehot)
    tp = [torch.tensor(p, requires_grad=True) for p in params]
    rng = np.random.default_rng(0)
    cx = strided.asarray(rng.standard_normal((64, 16, 8, 8), dtype=np.float32)).requires_grad_()
    cw = strided.asarray(rng.standard_normal((32, 16, 3, 3), dtype=np.float32)).requires_grad_()
    ctx = torch.from_numpy(cx.detach().numpy()).requires_grad_()
    ctw = torch.from_numpy(cw.detach().numpy()).requires_grad_()

    def conv_step(lib, x, w):
        conv = F.conv2d if lib is strided else torch.nn.functional.conv2d
        conv(x, w, padding=1).sum().backward()
        x.grad = w.grad = None

    from strided.bench._cases import nn_cases

    cnn = next(c for c in nn_cases() if c.name.startswith("digits CNN"))

    cases = [
        ("one recorded 1-element add", autograd_path, lambda old: ag + b, lambda: tg + tb, 2000),
        (
            "x.sum() of 100 f32",
            none,
            lambda old: strided.sum(small, axis=0) if old else small.sum(),
            small_t.sum,
            2000,
            small_np.sum,
        ),
        (
            "MLP step, softmax CE",
            autograd_path,
            lambda old: ce_step(strided, sx, so, sp),
            lambda: ce_step(torch, tx, to, tp),
            20,
        ),
        (
            "MLP step, MSE",
            autograd_path,
            lambda old: mse_step(strided, sx, so, sp),
            lambda: mse_step(torch, tx, to, tp),
            20,
        ),
        (
            "conv2d 64x16x8x8 fwd+bwd",
            taps_path,
            lambda old: conv_step(strided, cx, cw),
            lambda: conv_step(torch, ctx, ctw),
            10,
        ),
        (
            "max_pool2d 2x2 fwd+bwd, 64x16x8x8 channels-last",
            pool_path,
            lambda old: pool_step(strided, px),
            lambda: pool_step(torch, tpx),
            50,
        ),
        (
            "digits CNN step (Adam)",
            pool_path,
            lambda old: cnn.fns["strided"](),
            cnn.fns.get("torch"),
            10,
        ),
    ]
    print(f"threads: {args.threads}; times per call, median [min-max] of {args.rounds} rounds")
    print("| case | before | after | PyTorch | NumPy |\n|---|---|---|---|---|")
    for case in cases:
        name, switch, fn, t_fn, n = case[:5]
        n_fn = case[5] if len(case) > 5 else None
        res = {"before": [], "after": [], "torch": [], "numpy": []}
        for _ in range(args.rounds):
            for key in res:
                if key in ("before", "after"):
                    switch(key == "before")
                    f = functools.partial(fn, key == "before")
                else:
                    f = t_fn if key == "torch" else n_fn
                if f is None:
                    continue
                f()
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                res[key].append((time.perf_counter() - t0) / n * 1e6)
        switch(False)
        cells = [
            SPELLING.format(statistics.median(v), min(v), max(v)) if v else "-"
            for v in res.values()
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
