"""SGD's and Adam's ``fused=True`` steps on CUDA tensors: one kernel launch per parameter
(kernels/optim.cu).

Note [A fused SGD step on CUDA]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The CPU's fused step (Note [A fused optimizer step] in strided/_compile/optim.py) is one C
call for a group; on a GPU the cost of an eager step is its launches and their host work, five
kernels and two temporaries per parameter with momentum. Here each parameter is one launch of
``strided_fused_sgd<T>``, which reads p, its gradient and its buffer once and writes p and the
buffer, the hyper-parameters passed as kernel arguments in the parameter's type (a Python
scalar is weak in eager's ops too, so ``b * momentum`` is a float32 product for a float32
buffer; ``1 - dampening`` is rounded on the host, as eager computes it).

The update gives eager's bits: each product, sum and difference is the IEEE operation eager's
kernel for that op performs, spelled ``__fmul_rn``/``__fadd_rn``/``__fsub_rn`` so that NVRTC
(``--fmad=true`` by default) cannot fuse ``b * m + g * d`` or ``p - g * lr`` into one rounding.

Taken: CUDA tensors of float32 or float64 whose parameter, gradient and buffer are contiguous
and of one dtype and shape, as the CPU path takes them; any other parameter takes the eager
update.

Note [A fused Adam step on CUDA]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Eager Adam is about a dozen kernels and five temporaries per parameter (AMSGrad's maximum one
more); ``strided_fused_adam<T>`` reads p, its gradient, m and v (and AMSGrad's maximum) once and
writes them back, one launch per parameter. Its arithmetic is Adam's ``_update`` op by op, with
the same roundings: the per-step scalars ``lr / (1 - b1^t)`` and ``sqrt(1 - b2^t)`` (per
parameter, as its step count is), ``1 - b1``, ``1 - b2`` and AdamW's ``1 - lr * wd`` are computed
on the host in double, as eager's Python expressions are, and rounded once to the parameter's
type when passed, as a weak Python scalar is when eager's kernel takes it; every operation on
the device is one IEEE operation in that type (``__fdiv_rn``, ``__fsqrt_rn``, a double's sqrt,
and AMSGrad's maximum by the elementwise kernel's own ``strided_maximum``), so the fused step
gives eager's bits. The CPU's fused Adam (Note [A fused optimizer step]) computes the same
expressions from the same scalars.
"""

from __future__ import annotations

import math

import numpy as np

from strided.cuda import _launch

__all__ = ["adam_scalars", "adam_step_scalars", "all_modules", "fusable", "fused_adam", "fused_sgd"]

_TYPES = {"float32": ("float", np.float32), "float64": ("double", np.float64)}
_NULL = bytes(8)


def _instantiations():
    return [f"strided_fused_{op}<{c}>" for op in ("sgd", "adam") for c, _ in _TYPES.values()]


def all_modules():
    """The module's instantiations, for compile_check."""
    return [(("optim",), "optim.cu", _instantiations())]


def fusable(p, *others):
    """Whether CUDA parameter ``p`` (its gradient and state ``others``) takes the fused step."""
    if not p.device.is_cuda or p.dtype.name not in _TYPES:
        return False
    return all(
        t.device == p.device and t.dtype == p.dtype and t.shape == p.shape and t.is_contiguous()
        for t in (p, *others)
    )


def fused_sgd(params, grads, bufs, first, lr, momentum, dampening, weight_decay, nesterov,
              maximize):  # fmt: skip
    """One SGD step of ``params`` (one dtype and device, every one ``fusable``), a launch each;
    the arguments as strided._compile.optim.fused_sgd takes them."""
    from strided.cuda._backend import backend_for

    ctype, scalar = _TYPES[params[0].dtype.name]
    backend = backend_for(params[0].device)
    name = f"strided_fused_sgd<{ctype}>"
    fn = _launch.get_function(backend, ("optim",), "optim.cu", _instantiations, name)
    hyper = (scalar(lr), scalar(momentum), scalar(1.0 - dampening), scalar(weight_decay))
    flags = 2 * bool(nesterov) + 4 * bool(maximize)
    for k, (p, g) in enumerate(zip(params, grads, strict=True)):
        n = p.numel()
        b = bufs[k] if bufs is not None else None
        if n:
            args = (
                p.data_ptr().to_bytes(8, "little"),
                g.data_ptr().to_bytes(8, "little"),
                b.data_ptr().to_bytes(8, "little") if b is not None else _NULL,
                np.int64(n),
                *hyper,
                np.int32(flags + bool(first[k])),
            )
            backend.launch(fn, _launch.grid_1d(n), (_launch.BLOCK,), args)
        p._bump_version()
        if b is not None:
            b._bump_version()


# Adam's scalars, computed on the host in double as eager's Python computes them. The CPU's
# fused Adam (strided/_compile/optim.py) takes the same ones: they live here, the lower layer
# of the two, so that each imports downwards only (DESIGN.md).
def adam_scalars(lr, betas, eps, weight_decay, decoupled):
    """Adam's hyper-parameters as its fused steps take them, in double as eager's Python
    computes them: 1 - b1, b2, 1 - b2, eps, the L2 decay (0 for AdamW) and AdamW's factor
    ``1 - lr * wd`` (1 for Adam)."""
    b1, b2 = betas
    decay = 1.0 - lr * weight_decay if (decoupled and weight_decay) else 1.0
    return 1.0 - b1, b2, 1.0 - b2, eps, 0.0 if decoupled else weight_decay, decay


def adam_step_scalars(lr, betas, t):
    """Step ``t``'s bias corrections as eager's Adam computes them: the step size
    ``lr / (1 - b1^t)`` and ``sqrt(1 - b2^t)``."""
    b1, b2 = betas
    return lr / (1.0 - b1**t), math.sqrt(1.0 - b2**t)


def fused_adam(params, grads, ms, vs, vmaxs, steps, lr, betas, eps, weight_decay, decoupled,
               maximize):  # fmt: skip
    """One Adam (AdamW when ``decoupled``) step of ``params`` (one dtype and device, every one
    ``fusable``), a launch each; the arguments as strided._compile.optim.fused_adam takes them."""
    from strided.cuda._backend import backend_for

    ctype, scalar = _TYPES[params[0].dtype.name]
    backend = backend_for(params[0].device)
    name = f"strided_fused_adam<{ctype}>"
    fn = _launch.get_function(backend, ("optim",), "optim.cu", _instantiations, name)
    hyper = tuple(scalar(x) for x in adam_scalars(lr, betas, eps, weight_decay, decoupled))
    flags = np.int32(bool(maximize))
    for k, (p, g) in enumerate(zip(params, grads, strict=True)):
        n = p.numel()
        state = (ms[k], vs[k]) + ((vmaxs[k],) if vmaxs is not None else ())
        if n:
            step_size, bc2 = adam_step_scalars(lr, betas, steps[k])
            args = (
                *(x.data_ptr().to_bytes(8, "little") for x in (p, g, *state)),
                *((_NULL,) if vmaxs is None else ()),
                np.int64(n),
                scalar(step_size),
                scalar(bc2),
                *hyper,
                flags,
            )
            backend.launch(fn, _launch.grid_1d(n), (_launch.BLOCK,), args)
        for x in (p, *state):
            x._bump_version()
