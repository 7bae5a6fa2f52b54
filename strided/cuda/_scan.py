"""The CUDA kernels of the scans: cumulative sums and products along one dim.

Note [CUDA scans]
~~~~~~~~~~~~~~~~~
A scan maps each *line* along the scanned dim (one line per point of the other, *kept*, dims)
to its running totals (Note [Scans] in strided/_cpu/scan.pyx.tp). The host coalesces the kept dims
in row-major order (as Note [CUDA reductions] does, so the line number ``o`` is still the
row-major index over them) and writes a fresh row-major output, as the CPU does. Then one of two
kernels of kernels/scan.cu runs, picked by the shape alone:

- **a thread per line** when the lines are short (at most 32 elements) or a kept dim moves
  faster through memory than the scanned one (``cumsum(x, 0)`` of a row-major matrix):
  neighbouring threads then read neighbouring addresses, and each walks its line in order,
  exactly as the CPU does, so the result has the CPU's bits;
- **a block per line** otherwise: tiles of 1024 elements are loaded into shared memory
  (coalesced), each of 256 threads scans 4 neighbours, a Hillis-Steele scan in shared memory
  combines the 256 thread totals, and a running carry links the tiles.

A few long lines would leave most of the GPU idle with a block each, so a line longer than two
tiles is cut into G chunks (``gridDim.y``) when the lines give fewer than ~512k threads. Three
launches then do it, without atomics: each chunk's total (``strided_scan_totals``), each line's
exclusive scan over its G totals, in order (``strided_scan_carries``), and the scan of each chunk
starting from its carry (``strided_scan_block``). G and the chunk length depend on the shape
alone, so a float scan gives the same bits on every run and every GPU ("deterministic for a
given shape", issue 7). The block kernel adds in another order than the CPU's sequential loop,
so float results agree with the CPU within rounding, not bit for bit; integers wrap around
exactly as on the CPU (unsigned arithmetic, see kernels/scan.cu).
"""

from __future__ import annotations

import math

import numpy as np

from strided import _core
from strided._dtype import as_dtype
from strided.cuda import _half, _launch
from strided.cuda._backend import backend_for

__all__ = ["scan", "all_modules"]

BLOCK = 256  # STRIDED_SCAN_BLOCK in kernels/scan.cu
TILE = 1024  # STRIDED_SCAN_BLOCK * STRIDED_SCAN_ITEMS
THREAD_MAX_LINE = 32  # lines up to this long get a thread each
_OPS = {"cumulative_sum": "scan_sum", "cumulative_prod": "scan_prod"}
_KINDS = "iufc"  # as the CPU's scan: bools are cast to int64 (or dtype=) before the scan


def _names(name, dtype_name):
    """The instantiations of one (op, dtype) module."""
    t = _launch.C_TYPES[dtype_name]
    op = f"{_OPS[name]}<{t}>"
    names = [
        f"strided_scan_{kind}<{op}, {t}, {index}>"
        for kind in ("thread", "block", "totals")
        for index in ("int32_t", "int64_t")
    ]
    names.append(f"strided_scan_carries<{op}, {t}>")
    return names


def _dtypes():
    return [d for d in _launch.NATIVE if as_dtype(d).kind in _KINDS]


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(("scan", name, d), "scan.cu", _names(name, d)) for name in _OPS for d in _dtypes()]


def _function(backend, name, dtype_name, fname):
    return _launch.get_function(
        backend,
        ("scan", name, dtype_name),
        "scan.cu",
        lambda: _names(name, dtype_name),
        fname,
    )


def scan(name, x, axis, include_initial):
    """The running sums (products) of the CUDA tensor ``x`` along ``axis`` (normalised), in x's
    dtype, into a fresh row-major tensor (one longer along ``axis`` with ``include_initial``,
    starting with the identity). See Note [CUDA scans]."""
    if x.dtype.kind not in _KINDS:
        raise TypeError(f"{name} does not support dtype {x.dtype.name}")
    if _half.is_half(x):  # Note [CUDA half precision through float32]: float32 sums
        return _half.narrow(scan(name, _half.widen(x), axis, include_initial), x.dtype)
    if not 0 <= axis < x.ndim:
        raise IndexError(f"{name}: axis={axis} is out of range for a tensor with {x.ndim} dims")
    shape, strides, item = x.shape, x.stride(), x.itemsize
    L = shape[axis]
    Lout = L + (1 if include_initial else 0)
    y = _core._empty(shape[:axis] + (Lout,) + shape[axis + 1 :], x.dtype, x.device)
    if y.numel() == 0:
        return y
    g, kdims, M = _launch.line_geometry(x, axis, y, Lout)
    sx = strides[axis] * item
    # which kernel (the shape and strides alone decide: Note [CUDA scans])
    k_fast = min((abs(s) for _, s in kdims if s), default=None)
    per_thread = L <= THREAD_MAX_LINE or (k_fast is not None and (sx == 0 or k_fast < abs(sx)))
    G, chunk = 1, L
    if not per_thread and M * BLOCK < 1 << 19 and L > 2 * TILE:
        G = min(max(1, (1 << 19) // (M * BLOCK)), math.ceil(L / TILE), 4096)
        chunk = math.ceil(math.ceil(L / G) / TILE) * TILE  # whole tiles per chunk
        G = math.ceil(L / chunk)
    g["chunk"], g["initial"] = chunk, int(include_initial)
    idx32 = _launch.line_fits_int32(x, axis, y, kdims, M)
    index = "int32_t" if idx32 else "int64_t"
    backend = backend_for(x.device)
    dname = x.dtype.name
    t = _launch.C_TYPES[dname]
    op = f"{_OPS[name]}<{t}>"
    if per_thread:
        fn = _function(backend, name, dname, f"strided_scan_thread<{op}, {t}, {index}>")
        blocks = min(math.ceil(M / BLOCK), 2**31 - 1)
        backend.launch(fn, (blocks,), (BLOCK,), (g[()],))
        return y
    totals = None
    if G > 1:
        totals = _core.Storage._new(M * G * item, x.device)
    tptr = np.uint64(totals.data_ptr() if totals is not None else 0)
    blocks = min(M, 2**31 - 1)
    if G > 1:
        fn = _function(backend, name, dname, f"strided_scan_totals<{op}, {t}, {index}>")
        backend.launch(fn, (blocks, G), (BLOCK,), (g[()], tptr))
        fn = _function(backend, name, dname, f"strided_scan_carries<{op}, {t}>")
        backend.launch(
            fn, (min(math.ceil(M / BLOCK), 2**31 - 1),), (BLOCK,), (tptr, np.int64(M), np.int64(G))
        )
    fn = _function(backend, name, dname, f"strided_scan_block<{op}, {t}, {index}>")
    backend.launch(fn, (blocks, G), (BLOCK,), (g[()], tptr))
    return y
