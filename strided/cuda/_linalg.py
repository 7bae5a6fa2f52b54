"""matmul on CUDA devices (addmm is composed of it in strided/_ops/linalg.py).

Note [CUDA matmul]
~~~~~~~~~~~~~~~~~~
On a GPU, float32/float64/complex products go to cuBLAS through ``cupy.matmul`` on zero-copy
CuPy views of the tensors (``__cuda_array_interface__``): the same library PyTorch and CuPy
call, so the comparison in benchmarks/bench_cuda.py measures strided's overhead, not a
different GEMM. Integers and bool (which cuBLAS does not multiply) and every dtype on the
emulator run strided's own tiled kernel (kernels/matmul.cu), a lesson in shared memory and
barriers, and the reason the emulator must model __syncthreads.

The shape rules (NumPy's 1-D promotion, broadcast batch dims) are the CPU kernel's, and the
error messages the same: the CPU's checks run first on the shapes alone.
"""

from __future__ import annotations

import math

import numpy as np

from strided import _core, _views
from strided._dtype import can_cast, promote_types
from strided.cuda import _launch
from strided.cuda._backend import backend_for

__all__ = ["matmul", "all_modules"]

_TILE = 16
_BLAS = ("float32", "float64", "complex64", "complex128")
_GEOMETRY = np.dtype(
    [
        ("bsizes", "<i8", (_launch.MAX_DIMS,)),
        ("bstrides_a", "<i8", (_launch.MAX_DIMS,)),
        ("bstrides_b", "<i8", (_launch.MAX_DIMS,)),
        ("a", "<i8"),
        ("b", "<i8"),
        ("c", "<i8"),
        ("m", "<i8"),
        ("n", "<i8"),
        ("k", "<i8"),
        ("batch", "<i8"),
        ("as0", "<i8"),
        ("as1", "<i8"),
        ("bs0", "<i8"),
        ("bs1", "<i8"),
        ("nb", "<i4"),
    ],
    align=True,
)


def _instantiations():
    return [f"strided_matmul<{c}>" for c in _launch.C_TYPES.values()]


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(("matmul",), "matmul.cu", _instantiations())]


def _dim_text(vector, first):
    """How the CPU kernel's messages name a contracted dim."""
    if vector:
        return "the only dim"
    return "the last dim" if first else "the second-to-last dim"


def _shapes(x1, x2, name="matmul"):
    """(batch shape, m, k, n, result shape), with the CPU kernel's checks and messages."""
    if x1.ndim == 0 or x2.ndim == 0:
        which = "x1" if x1.ndim == 0 else "x2"
        raise ValueError(
            f"{name}: {which} is 0-d (a scalar), but {name} needs tensors of at "
            "least 1 dim; multiply by a scalar with strided.multiply or *"
        )
    v1, v2 = x1.ndim == 1, x2.ndim == 1
    m = 1 if v1 else x1.shape[-2]
    k = x1.shape[-1]
    k2 = x2.shape[0] if v2 else x2.shape[-2]
    n = 1 if v2 else x2.shape[-1]
    # The messages are the CPU kernel's word for word (_matmul in _cpu/blas.pyx): the same call
    # must fail alike on every device (tests/test_cuda_opinfo.py compares them).
    if k != k2:
        raise ValueError(
            f"{name}: {_dim_text(v1, True)} of x1 (size {k}) must match "
            f"{_dim_text(v2, False)} of x2 (size {k2}); x1 has shape {x1.shape}, x2 has "
            f"shape {x2.shape}"
        )
    try:
        batch = _views.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    except ValueError:
        raise ValueError(
            f"{name}: the batch dims of x1 {x1.shape[:-2]} and x2 {x2.shape[:-2]} cannot be "
            f"broadcast together (sizes must be equal, or one of them 1); x1 has shape "
            f"{x1.shape}, x2 has shape {x2.shape}"
        ) from None
    rshape = tuple(batch) + (() if v1 else (m,)) + (() if v2 else (n,))
    return tuple(batch), m, k, n, rshape


def matmul(x1, x2, out=None):
    """The CUDA kernel of ``strided.matmul`` (see Note [CUDA matmul])."""
    if x1.device is not x2.device:
        raise RuntimeError(
            f"matmul: expected both tensors on one device, got {x1.device} and {x2.device}"
        )
    if out is not None and out.device is not x1.device:
        # as the CPU kernel: out= on another device is an error, not a copy across the bus (and
        # CPU inputs reach this kernel when only out= is on a CUDA device)
        raise RuntimeError(f"matmul: out= is on {out.device}, the inputs on {x1.device}")
    batch, m, k, n, rshape = _shapes(x1, x2)
    dtype = promote_types(x1.dtype, x2.dtype)
    if out is not None:  # checked before any work, so that a refused out= costs nothing
        _check_out(out, rshape, dtype)
    a = x1 if x1.dtype is dtype else x1.astype(dtype)
    b = x2 if x2.dtype is dtype else x2.astype(dtype)
    a = a.reshape(1, -1) if a.ndim == 1 else a
    b = b.reshape(-1, 1) if b.ndim == 1 else b
    c = _core._empty(tuple(batch) + (m, n), dtype, x1.device)
    if c.numel():
        if x1.device.type == "cuda" and dtype.name in _BLAS:
            import cupy

            cupy.matmul(cupy.asarray(a), cupy.asarray(b), out=cupy.asarray(c))
        else:
            _tiled(a, b, c, batch, m, k, n)
    c = c.reshape(rshape)
    if out is None:
        return c
    from strided.cuda._copy import copy_

    return copy_(out, c)


def _check_out(out, shape, dtype):
    if out.shape != shape:
        raise ValueError(
            f"matmul: out= has shape {out.shape}, but the result has shape "
            f"{shape}; out= must have exactly the result's shape"
        )
    if not can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(
            f"matmul: cannot write the {dtype.name} result into out= of dtype "
            f"{out.dtype.name} (NumPy's 'same_kind' casting rule)"
        )


def _tiled(a, b, c, batch, m, k, n):
    nb = len(batch)
    ea = a.expand(tuple(batch) + a.shape[-2:]) if a.ndim - 2 < nb or a.shape[:-2] != batch else a
    eb = b.expand(tuple(batch) + b.shape[-2:]) if b.ndim - 2 < nb or b.shape[:-2] != batch else b
    item = c.itemsize
    g = np.zeros((), dtype=_GEOMETRY)
    if nb > _launch.MAX_DIMS:
        raise NotImplementedError(f"matmul: more than {_launch.MAX_DIMS} batch dims")
    sa, sb = ea.stride(), eb.stride()
    for j, d in enumerate(range(nb - 1, -1, -1)):  # innermost first
        g["bsizes"][j] = batch[d]
        g["bstrides_a"][j] = sa[d] * item
        g["bstrides_b"][j] = sb[d] * item
    g["nb"] = nb
    g["a"], g["b"], g["c"] = ea.data_ptr(), eb.data_ptr(), c.data_ptr()
    g["m"], g["n"], g["k"] = m, n, k
    g["batch"] = math.prod(batch)
    g["as0"], g["as1"] = sa[-2] * item, sa[-1] * item
    g["bs0"], g["bs1"] = sb[-2] * item, sb[-1] * item
    backend = backend_for(c.device)
    fname = f"strided_matmul<{_launch.C_TYPES[c.dtype.name]}>"
    fn = _launch.get_function(backend, ("matmul",), "matmul.cu", _instantiations, fname)
    grid = (math.ceil(n / _TILE), math.ceil(m / _TILE), min(math.prod(batch), 65535))
    backend.launch(fn, grid, (_TILE, _TILE), (g[()],))
