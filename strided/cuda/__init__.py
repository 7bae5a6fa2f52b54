"""strided's CUDA backend: device tensors, kernels as CUDA C sources, a CPU emulator.

A tensor on ``device="cuda"`` keeps its bytes in GPU memory from CuPy's memory pool; its ops
run kernels compiled from ``strided/cuda/kernels/*.cu`` by NVRTC on first use. A tensor on
``device="cuda-emulated"`` runs the very same kernels, compiled by g++ for the CPU, on the
emulator in ``strided/cuda/_emulator`` (for machines without a GPU: students, CI). Importing
strided never needs CuPy or a GPU; asking for a device that is not there raises an error that
says what is missing.

Reading order for a student: ``_backend.py`` (what a device can do), ``_launch.py`` (Note [The
CUDA launch]: from an op call to a kernel), ``kernels/common.cuh`` (Note [CUDA loop geometry]),
``kernels/elementwise.cu``, then ``_elementwise.py`` and ``_copy.py``.

Examples
--------
>>> import strided
>>> x = strided.arange(4.0, device="cuda-emulated")     # doctest: +SKIP
>>> (x * 2).cpu()                                        # doctest: +SKIP
tensor([0., 2., 4., 6.])
"""

from __future__ import annotations

import contextlib

from strided import _core, _iter
from strided.cuda import _backend
from strided.cuda._backend import CudaUnavailableError, _by_device, backend_for, cupy_usable

__all__ = [
    "CudaUnavailableError",
    "device_count",
    "empty_cache",
    "get_device_name",
    "is_available",
    "memory_allocated",
    "memory_reserved",
    "synchronize",
    "trace_launches",
]


def is_available():
    """Whether a real GPU can be used (CuPy installed, a driver and a device present)."""
    return cupy_usable()


def device_count():
    """The number of GPUs CuPy sees (0 without CuPy or a driver)."""
    if not cupy_usable():
        return 0
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


def _device(device):
    d = _core.as_device("cuda" if device is None else device)
    if not d.is_cuda:
        raise ValueError(f"expected a CUDA device ('cuda', 'cuda:N', 'cuda-emulated'), got {d}")
    return d


def synchronize(device=None):
    """Wait until every kernel queued on ``device`` has finished (for timing)."""
    backend_for(_device(device)).synchronize()


class LaunchTrace(list):
    """The kernel launches recorded by ``trace_launches``: (name, grid, block, shared bytes)."""

    def __str__(self):
        return "\n".join(
            f"{name}  grid {tuple(grid)} x block {tuple(block)}"
            + (f", {shared} B shared" if shared else "")
            for name, grid, block, shared in self
        )


@contextlib.contextmanager
def trace_launches():
    """Record every CUDA kernel launched inside the ``with`` block, on any CUDA device: the
    kernel's name expression (the template instantiation: op, dtypes, index width), its grid
    and its block. A teaching and debugging aid (Note [The CUDA launch] in _launch.py).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6.0, device="cuda-emulated")
    >>> with strided.cuda.trace_launches() as launches:
    ...     y = x * 2
    >>> print(launches)
    strided_binary<...>  grid (1,) x block (256,)
    """
    from strided.cuda import _launch

    recorded, previous = [], _backend.tracing
    _backend.tracing = recorded
    trace = LaunchTrace()
    try:
        yield trace
    finally:
        _backend.tracing = previous
        if previous is not None:  # an enclosing trace sees these launches too
            previous.extend(recorded)
        trace.extend((_launch.function_name(f), g, b, sh) for f, g, b, sh in recorded)


def memory_allocated(device=None):
    """Bytes held by live tensors on ``device`` (CuPy's pool: used bytes)."""
    return backend_for(_device(device)).memory_allocated()


def memory_reserved(device=None):
    """Bytes the caching allocator holds on ``device``, used or kept for reuse."""
    return backend_for(_device(device)).memory_reserved()


def empty_cache(device=None):
    """Give the cached, unused blocks of ``device`` back to the driver."""
    backend_for(_device(device)).empty_cache()


def get_device_name(device=None):
    """The GPU's name (``"strided CPU emulator"`` for the emulated device)."""
    return backend_for(_device(device)).properties["name"]


# -- what the lower layers need from this one (registered, not imported: DESIGN.md) ------------


def _allocate(device, nbytes, zero):
    """The allocator of CUDA storages (see Note [Device kinds] in _device.pyx): a device's
    first; its backend then registers its own (Note [A device's allocator] in _storage.pyx)."""
    backend = _by_device.get(id(device)) or backend_for(device)  # backend_for's first step
    ptr, owner = backend.allocate(nbytes)
    if zero:
        backend.memset(ptr, 0, nbytes)
    return _core.Storage._wrap(ptr, nbytes, owner, device)


def _iter_copy(dst, src):
    from strided.cuda._copy import copy_

    copy_(dst, src)


_core.set_device_allocator(_allocate)
_iter.set_device_copy(_iter_copy)
