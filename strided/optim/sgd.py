"""Stochastic gradient descent with momentum, dampening, weight decay and Nesterov momentum."""

from __future__ import annotations

from strided.optim.optimizer import Optimizer, _check_fused

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD as PyTorch writes it (``g`` the gradient, ``b`` the momentum buffer)::

        g = grad + weight_decay * p
        b = g                                  on the first step
        b = momentum * b + (1 - dampening) * g  afterwards
        g = g + momentum * b   (nesterov)   or   g = b   (plain momentum)
        p = p - lr * g

    The updates are in-place tensor ops under ``no_grad`` (Note [Updates are tensor ops under
    no_grad] in ``optimizer.py``); with ``fused=True`` (PyTorch's keyword) one generated C
    function updates every parameter of a group (Note [A fused optimizer step] in
    ``strided/_compile/optim.py``), or on CUDA one kernel each parameter (Note [A fused SGD
    step on CUDA] in ``strided/cuda/_optim.py``).

    Examples
    --------
    >>> import strided
    >>> w = strided.asarray([1.0, -1.0]).requires_grad_()
    >>> opt = strided.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.8, -0.8], requires_grad=True)
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0.0,
        dampening=0.0,
        weight_decay=0.0,
        nesterov=False,
        maximize=False,
        fused=None,
    ):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(
                f"SGD: lr ({lr}), momentum ({momentum}) and weight_decay ({weight_decay}) must "
                "be >= 0"
            )
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError(
                f"SGD: nesterov momentum needs momentum > 0 and dampening == 0, got momentum="
                f"{momentum}, dampening={dampening}"
            )
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            fused=_check_fused("SGD", fused),
        )
        super().__init__(params, defaults)

    def _update(self, p, grad, state, group):
        g = -grad if group["maximize"] else grad
        if group["weight_decay"]:
            g = g + p * group["weight_decay"]
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.clone()
            else:
                buf.mul_(momentum).add_(g * (1.0 - group["dampening"]))
            g = g + buf * momentum if group["nesterov"] else buf
        p.sub_(g * group["lr"])

    def _fused_update(self, todo, group):
        from strided import empty
        from strided._compile import optim as fused
        from strided.cuda import _optim as fused_cuda  # Note [A fused SGD step on CUDA]

        cpu = fused._library() is not None
        momentum, rest, by_kind = group["momentum"], [], {}
        for p, state in todo:
            buf = state.get("momentum_buffer")
            state_ = [buf] if buf is not None else []
            if fused_cuda.fusable(p, p.grad, *state_):
                by_kind.setdefault((fused_cuda, p.device, p.dtype), []).append((p, state))
            elif cpu and fused.fusable(p, p.grad, *state_):
                by_kind.setdefault((fused, p.device, p.dtype), []).append((p, state))
            else:
                rest.append((p, state))
        for (module, device, _), pairs in by_kind.items():
            first = [bool(momentum) and "momentum_buffer" not in st for _, st in pairs]
            for (p, st), new in zip(pairs, first, strict=True):
                if new:  # written with the step's g by the kernel (eager: g.clone())
                    st["momentum_buffer"] = empty(p.shape, dtype=p.dtype, device=device)
            module.fused_sgd(
                [p for p, _ in pairs],
                [p.grad for p, _ in pairs],
                [st["momentum_buffer"] for _, st in pairs] if momentum else None,
                first,
                group["lr"],
                momentum,
                group["dampening"],
                group["weight_decay"],
                group["nesterov"],
                group["maximize"],
            )
        return rest
