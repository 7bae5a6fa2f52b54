"""Copies, fills and casts for tensors on any device: the CPU kernels of strided/_cpu/copy.pyx
when everything is on the CPU, the CUDA backend's (strided/cuda/_copy.py) otherwise, including
copies between the host and a GPU (Note [Copies across devices] there).

The CPU case is tested first and called directly: these functions sit under every
``contiguous()``, ``astype()`` and ``x[...] = v``, where a trip through the dispatcher would
cost more than a small copy itself.
"""

from __future__ import annotations

from strided import _dispatch
from strided._cpu import copy as _copy

__all__ = ["copy_", "contiguous_copy", "fill_"]


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


def fill_(dst, value):
    """Set every element of ``dst`` to ``value``."""
    if dst.device.is_cpu:
        return _copy.fill_(dst, value)
    return _cuda().fill_(dst, value)


for _name, _cpu_kernel in (("copy_", _copy.copy_), ("fill_", _copy.fill_)):
    _dispatch.register(_name, "CPU", _cpu_kernel)
_dispatch.register("copy_", "CUDA", lambda dst, src: _cuda().copy_(dst, src))
_dispatch.register("fill_", "CUDA", lambda dst, value: _cuda().fill_(dst, value))
