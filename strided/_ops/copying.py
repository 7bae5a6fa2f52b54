"""Copies, fills and casts for tensors on any device: the CPU kernels of strided/_cpu/copy.pyx.tp
when everything is on the CPU, the CUDA backend's (strided/cuda/_copy.py) otherwise, including
copies between the host and a GPU (Note [Copies across devices] there).

The CPU case is tested first and called directly: these functions sit under every
``contiguous()``, ``astype()`` and ``x[...] = v``, where a trip through the dispatcher would
cost more than a small copy itself.
"""

from __future__ import annotations

from strided import _dispatch
from strided._cpu import copy as _copy

__all__ = ["copy_", "contiguous_copy", "cast_in_memory_order", "fill_"]


def _cuda():
    from strided.cuda import _copy as cuda_copy  # loaded when a CUDA tensor exists

    return cuda_copy


def copy_(dst, src):
    """Copy ``src`` into ``dst`` (broadcast, cast), across devices if need be."""
    if dst.device.is_cpu and src.device.is_cpu:
        return _copy.copy_(dst, src)
    return _cuda().copy_(dst, src)


def contiguous_copy(src, dtype=None):
    """A fresh row-major copy of ``src`` on its device (cast to ``dtype``)."""
    if src.device.is_cpu:
        return _copy.contiguous_copy(src, dtype)
    return _cuda().contiguous_copy(src, dtype)


def cast_in_memory_order(src, dtype):
    """A fresh copy of ``src`` cast to ``dtype``, dense in ``src``'s memory order (NumPy's
    ``order='K'``): its dims are laid out outermost first by decreasing |stride|, so that a
    kernel that reads the copy walks it as it would have walked ``src``. A reduction casts its
    input this way (a channels-last tensor stays channels-last; Note [Reductions] in
    _cpu/reduce.pyx.tp)."""
    from strided import _core
    from strided._dtype import as_dtype

    strides, shape = src.stride(), src.shape
    if any(st == 0 and n > 1 for st, n in zip(strides, shape, strict=True)):
        return contiguous_copy(src, dtype)  # a broadcast dim has no place in memory: row-major
    # outermost first; a size-1 dim (any stride) goes innermost
    order = sorted(range(src.ndim), key=lambda d: -abs(strides[d]) if shape[d] > 1 else 0)
    if order == list(range(src.ndim)):
        return contiguous_copy(src, dtype)
    step, dense = 1, [0] * src.ndim
    for d in reversed(order):
        dense[d] = step
        step *= shape[d]
    dtype = as_dtype(dtype) if dtype is not None else src.dtype
    storage = _core.Storage._new(step * dtype.itemsize, src.device)
    dst = _core._from_parts(storage, 0, shape, dense, dtype)
    copy_(dst, src)
    return dst


def fill_(dst, value):
    """Set every element of ``dst`` to ``value``."""
    if dst.device.is_cpu:
        return _copy.fill_(dst, value)
    return _cuda().fill_(dst, value)


for _name, _cpu_kernel in (("copy_", _copy.copy_), ("fill_", _copy.fill_)):
    _dispatch.register(_name, "CPU", _cpu_kernel)
_dispatch.register("copy_", "CUDA", lambda dst, src: _cuda().copy_(dst, src))
_dispatch.register("fill_", "CUDA", lambda dst, value: _cuda().fill_(dst, value))
