"""Autograd benchmark: one training step of a 784-256-10 MLP, batch 64, float32.

Run: ``python benchmarks/bench_autograd.py [--threads N]``. A step is the forward pass (ReLU,
then softmax cross-entropy written as log_softmax), ``backward()``, and an SGD update written with
tensor ops under ``no_grad``. The NumPy column is the same step with the backward pass written by
hand (the ideal: no graph, no bookkeeping); the PyTorch column uses torch's autograd on the CPU.
Ratios are other / strided: above 1 means strided is faster.

The last rows measure what autograd costs ops that do not need it: a one-element add once
autograd is active (the dispatcher's Autograd hook runs, says no, the CPU kernel runs), and the
same add recorded, with an input that requires grad.
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import run, torch

import strided

BATCH, D_IN, D_HID, D_OUT, LR = 64, 784, 256, 10, 0.01


def _init(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, D_IN)).astype(np.float32)
    labels = rng.integers(0, D_OUT, BATCH)
    onehot = np.eye(D_OUT, dtype=np.float32)[labels]
    w1 = (rng.standard_normal((D_IN, D_HID)) / np.sqrt(D_IN)).astype(np.float32)
    w2 = (rng.standard_normal((D_HID, D_OUT)) / np.sqrt(D_HID)).astype(np.float32)
    b1 = np.zeros(D_HID, np.float32)
    b2 = np.zeros(D_OUT, np.float32)
    return x, onehot, [w1, b1, w2, b2]


def strided_step(x, onehot, params):
    w1, b1, w2, b2 = params
    h = strided.relu(x @ w1 + b1)
    logp = strided.log_softmax(h @ w2 + b2, dim=1)
    loss = -(logp * onehot).sum() / BATCH
    loss.backward()
    with strided.no_grad():
        for p in params:
            p -= LR * p.grad
            p.grad = None
    return loss


def torch_step(x, onehot, params):
    w1, b1, w2, b2 = params
    h = torch.relu(x @ w1 + b1)
    logp = torch.log_softmax(h @ w2 + b2, dim=1)
    loss = -(logp * onehot).sum() / BATCH
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= LR * p.grad
            p.grad = None
    return loss


def numpy_step(x, onehot, params):
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    z = h @ w2 + b2
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e / e.sum(axis=1, keepdims=True)
    loss = -(np.log(s) * onehot).sum() / BATCH
    dz = (s - onehot) / BATCH  # the softmax cross-entropy gradient, by hand
    dw2 = h.T @ dz
    db2 = dz.sum(0)
    dh = dz @ w2.T
    dh[pre <= 0] = 0
    dw1 = x.T @ dh
    db1 = dh.sum(0)
    for p, g in zip(params, (dw1, db1, dw2, db2), strict=True):
        p -= LR * g
    return loss


def cases():
    x_np, onehot_np, params_np = _init()
    s_x, s_onehot = strided.asarray(x_np), strided.asarray(onehot_np)
    s_params = [strided.tensor(p).requires_grad_() for p in params_np]
    n_params = [p.copy() for p in params_np]
    t_params = t_x = t_onehot = None
    if torch is not None:
        t_x, t_onehot = torch.from_numpy(x_np), torch.from_numpy(onehot_np)
        t_params = [torch.tensor(p, requires_grad=True) for p in params_np]

    def check():
        # one step from the same start: same loss, same updated weights
        xs, oh, ps = _init(1)
        sp = [strided.tensor(p).requires_grad_() for p in ps]
        npp = [p.copy() for p in ps]
        ls = float(strided_step(strided.asarray(xs), strided.asarray(oh), sp))
        ln = float(numpy_step(xs, oh, npp))
        np.testing.assert_allclose(ls, ln, rtol=1e-5)
        for a, b in zip(sp, npp, strict=True):
            np.testing.assert_allclose(a.numpy(), b, rtol=1e-4, atol=1e-6)

    out = [
        (
            "MLP 784-256-10 step, batch 64, float32",
            lambda: strided_step(s_x, s_onehot, s_params),
            lambda: numpy_step(x_np, onehot_np, n_params),
            (lambda: torch_step(t_x, t_onehot, t_params)) if torch is not None else None,
            check,
        )
    ]
    a, b = strided.asarray(np.ones(1)), strided.asarray(np.ones(1))
    an, bn = np.ones(1), np.ones(1)
    ta = tb = None
    if torch is not None:
        ta, tb = torch.ones(1, dtype=torch.float64), torch.ones(1, dtype=torch.float64)
    out.append(
        (
            "1-element add, autograd active, no grad",
            lambda: a + b,
            lambda: an + bn,
            (lambda: ta + tb) if torch is not None else None,
            None,
        )
    )
    ag = strided.asarray(np.ones(1)).requires_grad_()
    tg = torch.ones(1, dtype=torch.float64, requires_grad=True) if torch is not None else None
    out.append(
        (
            "1-element add, recorded (input requires grad)",
            lambda: ag + b,
            lambda: an + bn,
            (lambda: tg + tb) if torch is not None else None,
            None,
        )
    )
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    run(cases(), threads=args.threads, title="strided autograd")


if __name__ == "__main__":
    main()
