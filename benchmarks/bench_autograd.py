"""Autograd benchmark: one training step of a 784-256-10 MLP, batch 64, float32.

Run: ``python benchmarks/bench_autograd.py [--threads N]``. A step is the forward pass (ReLU,
then softmax cross-entropy written as log_softmax, or the mean squared error against the one-hot
labels), ``backward()``, and an SGD update written with tensor ops under ``no_grad``. The NumPy
column is the same step with the backward pass written by hand (the ideal: no graph, no
bookkeeping); the PyTorch column uses torch's autograd on the CPU.
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


def _backward_and_sgd(lib, loss, params):
    """``loss.backward()``, then the SGD update under ``lib.no_grad()`` (strided or torch)."""
    loss.backward()
    with lib.no_grad():
        for p in params:
            p -= LR * p.grad
            p.grad = None
    return loss


def ce_step(lib, x, onehot, params):
    """The softmax cross-entropy step with autograd, for ``lib`` strided or torch."""
    w1, b1, w2, b2 = params
    h = lib.relu(x @ w1 + b1)
    logp = lib.log_softmax(h @ w2 + b2, dim=1)
    return _backward_and_sgd(lib, -(logp * onehot).sum() / BATCH, params)


def mse_step(lib, x, target, params):
    """The mean-squared-error step with autograd, for ``lib`` strided or torch."""
    w1, b1, w2, b2 = params
    out = lib.relu(x @ w1 + b1) @ w2 + b2
    return _backward_and_sgd(lib, ((out - target) ** 2).mean(), params)


def strided_step(x, onehot, params):
    return ce_step(strided, x, onehot, params)


def _numpy_backprop(x, pre, h, dout, params):
    """From the gradient of the output layer ``dout`` down, by hand, then the SGD update."""
    w1, b1, w2, b2 = params
    dw2 = h.T @ dout
    db2 = dout.sum(0)
    dh = dout @ w2.T
    dh[pre <= 0] = 0
    dw1 = x.T @ dh
    db1 = dh.sum(0)
    for p, g in zip(params, (dw1, db1, dw2, db2), strict=True):
        p -= LR * g


def numpy_step(x, onehot, params):
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    z = h @ w2 + b2
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e / e.sum(axis=1, keepdims=True)
    loss = -(np.log(s) * onehot).sum() / BATCH
    _numpy_backprop(x, pre, h, (s - onehot) / BATCH, params)  # softmax cross-entropy's gradient
    return loss


def numpy_mse_step(x, target, params):
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    diff = h @ w2 + b2 - target
    _numpy_backprop(x, pre, h, diff * (2 / diff.size), params)  # the squared error's gradient
    return (diff**2).mean()


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
            "MLP 784-256-10 step, batch 64, float32",  # softmax cross-entropy
            lambda: strided_step(s_x, s_onehot, s_params),
            lambda: numpy_step(x_np, onehot_np, n_params),
            (lambda: ce_step(torch, t_x, t_onehot, t_params)) if torch is not None else None,
            check,
        )
    ]
    m_params = [strided.tensor(p).requires_grad_() for p in params_np]
    mn_params = [p.copy() for p in params_np]
    mt_params = None
    if torch is not None:
        mt_params = [torch.tensor(p, requires_grad=True) for p in params_np]

    def check_mse():
        xs, oh, ps = _init(1)
        sp = [strided.tensor(p).requires_grad_() for p in ps]
        npp = [p.copy() for p in ps]
        ls = float(mse_step(strided, strided.asarray(xs), strided.asarray(oh), sp))
        ln = float(numpy_mse_step(xs, oh, npp))
        np.testing.assert_allclose(ls, ln, rtol=1e-5)
        for a, b in zip(sp, npp, strict=True):
            np.testing.assert_allclose(a.numpy(), b, rtol=1e-4, atol=1e-6)

    out.append(
        (
            "MLP 784-256-10 step, batch 64, float32, MSE",
            lambda: mse_step(strided, s_x, s_onehot, m_params),
            lambda: numpy_mse_step(x_np, onehot_np, mn_params),
            (lambda: mse_step(torch, t_x, t_onehot, mt_params)) if torch is not None else None,
            check_mse,
        )
    )
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
