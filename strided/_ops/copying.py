"""Copies, fills and casts for tensors on any device: the CPU kernels of strided/_cpu/copy.pyx.tp
when everything is on the CPU, the CUDA backend's (strided/cuda/_copy.py) otherwise, including
copies between the host and a GPU (Note [Copies across devices] there).

Note [Copies through the dispatcher]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
These functions sit under every ``contiguous()``, ``astype()`` and ``x[...] = v``, where a trip
through the dispatcher would cost more than a small copy itself, so they call the device kernel
directly, as a kernel's own copies do. But a copy that autograd must record (``x[0] = y`` on a
tensor that requires grad, or ``copy_`` bound by a module long before autograd was imported)
goes through the dispatcher to the Autograd key: ``copy_``, ``fill_`` and ``contiguous_copy``
are dispatcher ops (registered for the CPU and CUDA keys below). Which copies those are is
autograd's question (``recording.needs_autograd``, Note [The Autograd hook]), registered here
when autograd activates; until then the test is one global read. Asked for every in-place copy,
it also notes the write for the version counter's message.
"""

from __future__ import annotations

from strided import _core, _dispatch
from strided._cpu import copy as _copy

__all__ = ["copy_", "contiguous_copy", "cast_in_memory_order", "fill_"]


_needs_autograd = None  # autograd's question, once it is active: Note [Copies through ...]


def _set_autograd_check(fn):
    """Called once by strided.autograd when it activates (a higher layer registering with a
    lower one, DESIGN.md): ``fn(name, args, kwargs)`` says whether a call needs the Autograd
    key."""
    global _needs_autograd
    _needs_autograd = fn


def _cuda():
    from strided.cuda import _copy as cuda_copy  # loaded when a CUDA tensor exists

    return cuda_copy


def copy_(dst, src):
    """Copy ``src`` into ``dst`` (broadcast, cast), across devices if need be."""
    if _needs_autograd is not None and _needs_autograd("copy_", (dst, src), None):
        return _dispatch.call("copy_", dst, src)  # Note [Copies through the dispatcher]
    if dst.device.is_cpu and src.device.is_cpu:
        return _copy.copy_(dst, src)
    return _cuda().copy_(dst, src)


def contiguous_copy(src, dtype=None):
    """A fresh row-major copy of ``src`` on its device (cast to ``dtype``)."""
    if (
        src._requires_grad
        and _needs_autograd is not None
        and _needs_autograd("contiguous_copy", (src,), None)
    ):
        return _dispatch.call("contiguous_copy", src, dtype)  # Note [Copies through ...]
    if src.device.is_cpu:
        return _copy.contiguous_copy(src, dtype)
    return _cuda().contiguous_copy(src, dtype)


def cast_in_memory_order(src, dtype):
    """A fresh copy of ``src`` cast to ``dtype``, dense in ``src``'s memory order (NumPy's
    ``order='K'``): its dims are laid out outermost first by decreasing |stride|, so that a
    kernel that reads the copy walks it as it would have walked ``src``. A reduction casts its
    input this way (a channels-last tensor stays channels-last; Note [Reductions] in
    _cpu/reduce.pyx.tp)."""
    from strided._dtype import as_dtype

    strides, shape = src.stride(), src.shape
    if any(st == 0 and n > 1 for st, n in zip(strides, shape, strict=True)):
        return contiguous_copy(src, dtype)  # a broadcast dim has no place in memory: row-major
    # outermost first; a size-1 dim (any stride) goes innermost
    order = sorted(range(src.ndim), key=lambda d: -abs(strides[d]) if shape[d] > 1 else 0)
    if order == list(range(src.ndim)):
        return contiguous_copy(src, dtype)
    return copy_in_dims_order(src, order, as_dtype(dtype) if dtype is not None else None)


def copy_in_dims_order(src, dims, dtype=None):
    """A fresh copy of ``src`` (cast to ``dtype``) whose memory is dense with its dims laid out
    in the order ``dims``, outermost first: ``dims == (1, 0)`` of a matrix is column-major. The
    shape is ``src``'s; only where each element lies is chosen. One allocation, one copy_."""
    shape = src.shape
    step, dense = 1, [0] * src.ndim
    for d in reversed(dims):
        dense[d] = step
        step *= shape[d]
    dtype = src.dtype if dtype is None else dtype
    storage = _core.Storage._new(step * dtype.itemsize, src.device)
    dst = _core._from_parts(storage, 0, shape, tuple(dense), dtype)
    copy_(dst, src)
    return dst


def fill_(dst, value):
    """Set every element of ``dst`` to ``value``."""
    if _needs_autograd is not None and _needs_autograd("fill_", (dst, value), None):
        return _dispatch.call("fill_", dst, value)  # Note [Copies through the dispatcher]
    if dst.device.is_cpu:
        return _copy.fill_(dst, value)
    return _cuda().fill_(dst, value)


for _name, _cpu_kernel in (("copy_", _copy.copy_), ("fill_", _copy.fill_)):
    _dispatch.register(_name, "CPU", _cpu_kernel)
_dispatch.register("copy_", "CUDA", lambda dst, src: _cuda().copy_(dst, src))
_dispatch.register("fill_", "CUDA", lambda dst, value: _cuda().fill_(dst, value))
_dispatch.register("contiguous_copy", "CPU", _copy.contiguous_copy)
_dispatch.register(
    "contiguous_copy", "CUDA", lambda src, dtype=None: _cuda().contiguous_copy(src, dtype)
)
