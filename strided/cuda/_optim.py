"""SGD's ``fused=True`` step on CUDA tensors: one kernel launch per parameter (kernels/optim.cu).

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
"""

from __future__ import annotations

import numpy as np

from strided.cuda import _launch

__all__ = ["all_modules", "fusable", "fused_sgd"]

_TYPES = {"float32": ("float", np.float32), "float64": ("double", np.float64)}
_NULL = bytes(8)


def _instantiations():
    return [f"strided_fused_sgd<{c}>" for c, _ in _TYPES.values()]


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
