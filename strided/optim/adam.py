"""Adam and AdamW: per-parameter step sizes from running moments of the gradient.

Note [Adam's bias correction, and AdamW's decoupled decay]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Adam keeps ``m`` (mean of gradients) and ``v`` (mean of squared gradients) as exponential moving
averages starting at zero, so early on both are biased towards zero: after ``t`` steps the
weights of the average sum to ``1 - beta**t``, not 1. Dividing by that ("bias correction") makes
them unbiased. The update is ``lr * m_hat / (sqrt(v_hat) + eps)``: each weight moves by about
``lr`` whatever its gradient's scale.

Adam's ``weight_decay`` adds ``wd * p`` to the gradient (L2 regularisation), which then passes
through the ``1/sqrt(v)`` scaling, so weights with large gradients are decayed less. AdamW
(Loshchilov & Hutter, 2019) instead shrinks the weights directly, ``p *= 1 - lr * wd``, before the
Adam step: the decay is "decoupled" from the adaptive scaling, which regularises better. That
one line is the whole difference.
"""

from __future__ import annotations

import math

import strided
from strided.optim.optimizer import Optimizer, _check_fused

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015), as PyTorch computes it; see Note [Adam's bias correction, and
    AdamW's decoupled decay]. ``amsgrad`` uses the running maximum of ``v``; ``fused=True``
    updates every parameter of a group in one generated C function (Note [A fused optimizer
    step] in ``strided/_compile/optim.py``), or on CUDA one kernel each parameter (Note [A fused
    Adam step on CUDA] in ``strided/cuda/_optim.py``).

    Examples
    --------
    >>> import strided
    >>> w = strided.asarray([1.0, -3.0]).requires_grad_()
    >>> opt = strided.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()                      # the first step moves each weight by lr
    >>> w
    tensor([ 0.9, -2.9], requires_grad=True)
    """

    _decoupled = False

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0.0,
        amsgrad=False,
        maximize=False,
        fused=None,
    ):
        b1, b2 = betas
        if lr < 0 or eps < 0 or weight_decay < 0 or not (0 <= b1 < 1 and 0 <= b2 < 1):
            raise ValueError(
                f"{type(self).__name__}: need lr >= 0 (got {lr}), eps >= 0 ({eps}), weight_decay"
                f" >= 0 ({weight_decay}) and betas in [0, 1) ({betas})"
            )
        defaults = dict(
            lr=lr,
            betas=(b1, b2),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            fused=_check_fused(type(self).__name__, fused),
        )
        super().__init__(params, defaults)

    def _update(self, p, grad, state, group):
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        g = -grad if group["maximize"] else grad
        if not state:
            state["step"] = 0
            state["exp_avg"] = strided.zeros_like(p)
            state["exp_avg_sq"] = strided.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = strided.zeros_like(p)
        state["step"] += 1
        t = state["step"]
        if wd:
            if self._decoupled:
                p.mul_(1.0 - lr * wd)
            else:
                g = g + p * wd
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.add_((g - m) * (1.0 - b1))  # m += (1 - b1) (g - m): PyTorch's lerp
        v.mul_(b2).add_(g * g * (1.0 - b2))
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]
            strided.maximum(vmax, v, out=vmax)
            v = vmax
        step_size = lr / (1.0 - b1**t)
        denom = strided.sqrt(v) / math.sqrt(1.0 - b2**t) + eps
        p.sub_(m / denom * step_size)

    def _fused_update(self, todo, group):
        from strided._compile import optim as fused
        from strided.cuda import _optim as fused_cuda  # Note [A fused Adam step on CUDA]

        cpu = fused._library() is not None
        amsgrad, rest, by_kind = group["amsgrad"], [], {}
        keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())
        for p, state in todo:
            state_ = [state[k] for k in keys if k in state]
            if fused_cuda.fusable(p, p.grad, *state_):
                by_kind.setdefault((fused_cuda, p.device, p.dtype), []).append((p, state))
            elif cpu and fused.fusable(p, p.grad, *state_):
                by_kind.setdefault((fused, p.device, p.dtype), []).append((p, state))
            else:
                rest.append((p, state))
        for (module, _, _), pairs in by_kind.items():
            for p, state in pairs:
                if not state:  # as _update starts it
                    state["step"] = 0
                    for k in keys:
                        state[k] = strided.zeros_like(p)
                state["step"] += 1
            module.fused_adam(
                [p for p, _ in pairs],
                [p.grad for p, _ in pairs],
                [st["exp_avg"] for _, st in pairs],
                [st["exp_avg_sq"] for _, st in pairs],
                [st["max_exp_avg_sq"] for _, st in pairs] if amsgrad else None,
                [st["step"] for _, st in pairs],
                group["lr"],
                group["betas"],
                group["eps"],
                group["weight_decay"],
                self._decoupled,
                group["maximize"],
            )
        return rest


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01): ``p *= 1 - lr * wd`` before the Adam
    step. See Note [Adam's bias correction, and AdamW's decoupled decay]."""

    _decoupled = True

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        maximize=False,
        fused=None,
    ):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize, fused)
