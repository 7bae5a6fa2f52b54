"""The CUDA kernels of softmax and log_softmax along one dim, and of their backward.

Note [Fused softmax]
~~~~~~~~~~~~~~~~~~~~
On the CPU, softmax and log_softmax are composed of other ops (Note [Composite kernels with
their own derivative] in strided/_ops/reduction.py): a max, a subtraction, an exp, a sum, a log
or a division. On a GPU each of those is a launch of its own, ~10 microseconds of host work and
a trip through memory, and the classifier at the end of every training step pays nine of them
forwards and four backwards. kernels/softmax.cu does each direction in one launch, as PyTorch
does: a group of threads takes a line (the elements along the softmax dim), finds its max and
its sum of exponentials with shuffles (Note in the kernel), and writes the line.

- The group is a warp (32 threads, 8 lines per block of 256) for lines of up to 1024 elements,
  a class's logits or a sequence's scores, and the whole block for longer lines.
- The forward reads a line from memory once where its thread's share fits in registers (32
  float32 or 16 float64 elements a thread, 8 float64 with 64-bit indices: float32 lines up to
  8192 long, float64 ones up to 512 and from 1025 to 4096), else once for each of its three
  passes (Note [A softmax line read once] in the kernel). The backward keeps g and r, half as
  many of each.
- The formulas are the composite's and the derivative table's, term for term. The results
  therefore agree with the CPU's within rounding, not bit for bit: the sums add in another
  order. They are deterministic for a given shape.
- float32 and float64 lines of one dim take the kernels. Other cases (several dims, other
  dtypes, empty tensors) keep the composite, which every device runs.
- The backward kernel runs when no graph of the backward is being recorded. With
  ``create_graph=True`` the composite formula runs instead, so that it can be differentiated
  again.

The lines are described by the scans' geometry (kernels/line.cuh, ``_launch.line_geometry``):
the input with any strides, a fresh row-major output.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from strided import _core
from strided.cuda import _launch
from strided.cuda._backend import backend_for

__all__ = ["fusable", "softmax", "softmax_backward", "all_modules"]

BLOCK = 256  # STRIDED_SOFTMAX_BLOCK in kernels/softmax.cu
WARP_MAX_LINE = 1024  # lines up to this long get a warp each, longer ones a block
_DTYPES = ("float32", "float64")


# A thread keeps up to this many elements of its line in registers (Note [A softmax line read
# once] in kernels/softmax.cu), by dtype and index type: float64 with 64-bit indices would spill
# at 16 under the kernel's 64 registers
KEPT_MAX = {
    ("float32", "int32_t"): 32,
    ("float32", "int64_t"): 32,
    ("float64", "int32_t"): 16,
    ("float64", "int64_t"): 8,
}


def _kept(dtype_name, index, backward=False):
    """The K of a kernel's instantiations: 0 (read again) and the powers of two."""
    return [0] + [1 << j for j in range((KEPT_MAX[dtype_name, index] >> backward).bit_length())]


def _names(dtype_name):
    t = _launch.C_TYPES[dtype_name]
    logs, indices = ("false", "true"), ("int32_t", "int64_t")
    forward = [
        f"strided_softmax<{t}, {log}, {index}, {k}>"
        for log in logs
        for index in indices
        for k in _kept(dtype_name, index)
    ]
    backward = [
        f"strided_softmax_backward<{t}, {log}, {index}, {k}>"
        for log in logs
        for index in indices
        for k in _kept(dtype_name, index, True)
    ]
    return forward + backward


def kept_per_thread(dtype_name, index, L, W, backward=False):
    """The K the kernel takes for lines of ``L`` elements, ``W`` threads each; the backward
    keeps two lines (g and r), half as long."""
    need = -(-L // W)
    k = 1 << (need - 1).bit_length()
    return k if k <= KEPT_MAX[dtype_name, index] >> backward else 0


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(("softmax", d), "softmax.cu", _names(d)) for d in _DTYPES]


def fusable(x, dims):
    """Whether softmax of ``x`` over ``dims`` runs in the fused kernel (Note [Fused softmax])."""
    return len(dims) == 1 and x.dtype.name in _DTYPES and x.numel() > 0


# Note [Kept plans of the softmax lines]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Everything a softmax launch works out on the host (the lines' geometry, the index width, the
# kernel's K and function, the grid) depends on the input's dtype, shape and strides, the dim
# and the direction, never on the addresses, which are two fields of the geometry: x and y. A
# classifier's log_softmax and its backward run with the same ones at every training step, so
# the plan is kept under exactly those (and the backend): the geometry's bytes before and after
# the two addresses, the function, the grid and the group's width; a launch with a kept plan
# only writes its two addresses between them (Note [Kept launch plans] in _launch.py).
_PLANS = _launch.KeptPlans()
_X_AT = _launch.LINE_GEOMETRY.fields["x"][1]  # x, then y: the byte offsets of the addresses
_ADDRESSES = struct.Struct("<QQ")
assert _launch.LINE_GEOMETRY.fields["y"][1] == _X_AT + 8


def _plan(backend, kind, x, axis, log, y):
    """The kept launch of ``_lines`` (Note [Kept plans of the softmax lines])."""
    L = x.shape[axis]
    g, kdims, M = _launch.line_geometry(x, axis, y, L)
    index = "int32_t" if _launch.line_fits_int32(x, axis, y, kdims, M) else "int64_t"
    W = 32 if L <= WARP_MAX_LINE else BLOCK
    dname = x.dtype.name
    K = kept_per_thread(dname, index, L, W, kind == "_backward")
    fname = f"strided_softmax{kind}<{_launch.C_TYPES[dname]}, {str(log).lower()}, {index}, {K}>"
    fn = _launch.get_function(
        backend, ("softmax", dname), "softmax.cu", lambda: _names(dname), fname
    )
    blocks = min(math.ceil(M / (BLOCK // W)), 2**31 - 1)
    raw = g.tobytes()
    return raw[:_X_AT], raw[_X_AT + 16 :], fn, (blocks,), np.int32(W)


def _lines(kind, x, axis, log, extra=()):
    """Launch ``strided_softmax<kind>`` over the lines of ``x`` along ``axis``; the fresh
    row-major result. The kernel's name ends in the line's K (Note [A softmax line read
    once]); the launch's plan is kept (Note [Kept plans of the softmax lines])."""
    y = _core._empty(x.shape, x.dtype, x.device)
    backend = backend_for(x.device)
    key = (id(backend), kind, log, x.dtype, x.shape, x.stride(), axis)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS.keep(key, _plan(backend, kind, x, axis, log, y))
    head, tail, fn, grid, width = plan
    g = np.void(head + _ADDRESSES.pack(x.data_ptr(), y.data_ptr()) + tail)
    backend.launch(fn, grid, (BLOCK,), (g, *extra, width))
    return y


def softmax(x, axis, log):
    """softmax (``log``: log_softmax) of the CUDA tensor ``x`` along ``axis``, when
    ``fusable``: one launch, a fresh row-major result."""
    return _lines("", x, axis, log)


def softmax_backward(grad, result, axis, log):
    """The gradient of softmax (``log``: log_softmax) for its input, from the gradient of its
    ``result``, in one launch; None where the kernel does not apply (the caller composes it)."""
    if grad.shape != result.shape or grad.dtype is not result.dtype:
        return None
    if not fusable(grad, (axis,)):
        return None
    r = result.contiguous()  # the kernel reads it as the forward wrote it: row-major
    return _lines("_backward", grad, axis, log, (np.uint64(r.data_ptr()),))
