"""Copies that involve a CUDA device: device to device (any strides, with casts), host to
device, device to host; fill and arange on the device. The CUDA twins of strided/_cpu/copy.pyx.

Note [Copies across devices]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The bus between host and GPU moves contiguous bytes well and anything else badly, so a copy
between devices is three steps: make the source one contiguous run *on its own device* (a
strided copy kernel there, if it is not already), move the bytes in one transfer, then scatter
them into the destination's strides *on the destination's device*. Casts happen on whichever side
does the strided step; broadcasting likewise. A device-to-host copy waits for the GPU (the
values must be there to be read); a host-to-device copy does not.
"""

from __future__ import annotations

import numpy as np

from strided import _core, _iter, _views
from strided._cpu import copy as _cpu_copy
from strided._dtype import as_dtype
from strided.cuda import _launch, _params
from strided.cuda._backend import backend_for

__all__ = ["copy_", "contiguous_copy", "fill_", "arange_fill", "all_modules"]

_ALL = tuple(_launch.C_TYPES)


def _variants():
    for index in ("int32_t", "int64_t"):
        for contig in ("true", "false"):
            yield index, contig


def _copy_instantiations(to):
    c = _launch.C_TYPES
    return [f"strided_copy<{c[to]}, {c[src]}, {i}, {k}>" for src in _ALL for i, k in _variants()]


def _fill_instantiations():
    return [f"strided_fill<{_launch.C_TYPES[d]}, {i}, {k}>" for d in _ALL for i, k in _variants()]


_ARANGE = [(d, "int64_t") for d in _ALL if as_dtype(d).kind in "iu"] + [
    (d, "double") for d in _ALL if as_dtype(d).kind in "iuf"
]


def _arange_instantiations():
    return [
        f"strided_arange<{_launch.C_TYPES[d]}, {acc}, {i}>"
        for d, acc in _ARANGE
        for i in ("int32_t", "int64_t")
    ]


# The word types of the transposing copy, by element width (Note [The transposing copy through
# a shared tile] in kernels/copy.cu): it moves bits, so one kernel serves every dtype of a width.
_WORDS = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t", 16: "bytes16_t"}
_TILE, _TILE_ROWS = 32, 8  # STRIDED_TRANSPOSE_TILE, STRIDED_TRANSPOSE_ROWS
# A side shorter than half a tile leaves most of each block idle, and the element-a-thread copy
# is then nearly coalesced anyway (the short side's run fits in one or two 32-byte segments).
_MIN_SIDE = 16


def _transpose_instantiations():
    return [
        f"strided_transpose_copy<{w}, {i}>" for w in _WORDS.values() for i in ("int32_t", "int64_t")
    ]


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    mods = [(("copy", to), "copy.cu", _copy_instantiations(to)) for to in _ALL]
    mods.append((("transpose",), "copy.cu", _transpose_instantiations()))
    mods.append((("fill",), "copy.cu", _fill_instantiations()))
    mods.append((("arange",), "copy.cu", _arange_instantiations()))
    return mods


def _loop(dst, src_strides, src):
    """The iterator's reordered, coalesced 2-operand loop, innermost first (Note [The CUDA
    launch], step 1)."""
    p = _iter._plan_for(dst.shape, [(dst.stride(), dst.itemsize), (src_strides, src.itemsize)])
    shape = list(p["loop_shape"])[::-1]
    strides = [list(s)[::-1] for s in p["stride_bytes"]]
    return shape, strides


def _device_copy(dst, src, src_strides):
    """dst <- src on one CUDA device, src's strides already stretched to dst's shape."""
    backend = backend_for(dst.device)
    shape, strides = _loop(dst, src_strides, src)
    n = dst.numel()
    itemsizes = [dst.itemsize, src.itemsize]
    data = [dst.data_ptr(), src.data_ptr()]
    contig = _launch.is_contiguous_loop(shape, strides, itemsizes, data)
    if contig and src.dtype is dst.dtype:
        backend.copy_device(dst.data_ptr(), src.data_ptr(), n * dst.itemsize)
        return
    idx32 = _launch.use_int32(shape, strides, itemsizes)
    if src.dtype is dst.dtype and _transposing_copy(backend, shape, strides, data, dst, idx32):
        return
    c = _launch.C_TYPES
    fname = (
        f"strided_copy<{c[dst.dtype.name]}, {c[src.dtype.name]}, "
        f"{'int32_t' if idx32 else 'int64_t'}, {'true' if contig else 'false'}>"
    )
    fn = _launch.get_function(
        backend,
        ("copy", dst.dtype.name),
        "copy.cu",
        lambda: _copy_instantiations(dst.dtype.name),
        fname,
    )
    g = _params.geometry_bytes(shape, strides, data, None, _launch.MAX_DIMS)
    args = (g, np.int32(n) if idx32 else np.int64(n))
    _launch.launch_1d(backend, fn, n, args, unroll=1)


def _transpose_dims(shape, strides, itemsize):
    """(a, b, z) for a loop the transposing copy takes: dims where dst, then src, steps one
    element, and the batch dim (None in 2-D); None for every other loop."""
    if len(shape) not in (2, 3):
        return None
    d_strides, s_strides = strides
    a = next((k for k in range(len(shape)) if d_strides[k] == itemsize), None)
    b = next((k for k in range(len(shape)) if s_strides[k] == itemsize and k != a), None)
    if a is None or b is None:
        return None
    z = next((k for k in range(len(shape)) if k not in (a, b)), None)
    return a, b, z


def _transposing_copy(backend, shape, strides, data, dst, idx32):
    """Launch the tiled transposing copy if the loop is a transpose (Note [The transposing
    copy through a shared tile] in kernels/copy.cu); whether it did."""
    itemsize = dst.itemsize
    dims = _transpose_dims(shape, strides, itemsize)
    if dims is None or itemsize not in _WORDS or any(p % itemsize for p in data):
        return False
    a, b, z = dims
    if shape[a] < _MIN_SIDE or shape[b] < _MIN_SIDE:
        return False
    nbatch, dst_z, src_z = (1, 0, 0) if z is None else (shape[z], strides[0][z], strides[1][z])
    fname = f"strided_transpose_copy<{_WORDS[itemsize]}, {'int32_t' if idx32 else 'int64_t'}>"
    fn = _launch.get_function(backend, ("transpose",), "copy.cu", _transpose_instantiations, fname)
    index = np.int32 if idx32 else np.int64
    tiles = -(-shape[a] // _TILE) * -(-shape[b] // _TILE) * nbatch
    args = (
        np.uint64(data[0]),
        np.uint64(data[1]),
        *(
            index(v)
            for v in (shape[a], shape[b], nbatch, strides[0][b], dst_z, strides[1][a], src_z)
        ),
    )
    backend.launch(fn, (min(tiles, 2**31 - 1),), (_TILE, _TILE_ROWS), args)
    return True


def copy_(dst, src):
    """Copy ``src`` into ``dst`` (broadcast, cast), where at least one is on a CUDA device."""
    src_strides = _cpu_copy.copy_checks(dst, src)
    if dst.numel() == 0:
        return dst
    if dst.device is src.device:
        if _core._storage_overlap(dst, src):
            if (
                src.data_ptr() == dst.data_ptr()
                and src.dtype is dst.dtype
                and tuple(src_strides) == tuple(dst.stride())
            ):
                return dst
            src = contiguous_copy(src)  # read everything before writing anything
            src_strides = _cpu_copy.copy_checks(dst, src)
        _device_copy(dst, src, src_strides)
    elif src.device.is_cpu:
        _host_to_device(dst, src)
    elif dst.device.is_cpu:
        _device_to_host(dst, src)
    else:  # two CUDA devices: through the host
        _host_to_device(dst, _to_host(src))
    dst._bump_version()
    return dst


def _to_host(src):
    """src's values in a fresh contiguous CPU tensor (waits for the device)."""
    backend = backend_for(src.device)
    if not src.is_contiguous():
        src = contiguous_copy(src)
    host = _core._empty(src.shape, src.dtype, "cpu")
    backend.copy_to_host(host.data_ptr(), src.data_ptr(), src.numel() * src.itemsize)
    return host


def _host_to_device(dst, src):
    backend = backend_for(dst.device)
    if src.shape != dst.shape or src.dtype is not dst.dtype or not src.is_contiguous():
        host = _core._empty(dst.shape, dst.dtype, "cpu")
        _cpu_copy.copy_(host, src)  # broadcast and cast on the CPU
        src = host
    if dst.is_contiguous():
        backend.copy_from_host(dst.data_ptr(), src.data_ptr(), dst.numel() * dst.itemsize)
        return
    staged = _core._empty(dst.shape, dst.dtype, dst.device)
    backend.copy_from_host(staged.data_ptr(), src.data_ptr(), dst.numel() * dst.itemsize)
    _device_copy(dst, staged, staged.stride())


def _device_to_host(dst, src):
    _cpu_copy.copy_(dst, _to_host(src))  # broadcast and cast on the CPU


def contiguous_copy(src, dtype=None):
    """A fresh row-major tensor on src's device with src's values (cast to ``dtype``)."""
    d = src.dtype if dtype is None else as_dtype(dtype)
    out = _core._empty(src.shape, d, src.device)
    if src.numel():
        _device_copy(out, src, _cpu_copy.copy_checks(out, src))
    return out


def _scalar_bytes(dtype, value):
    """``value`` as one element of ``dtype``, with the CPU's conversion rules and errors."""
    if isinstance(value, _core.TensorBase) and value.device.is_cuda:
        value = value.item()
    cell = _core._empty((), dtype, "cpu")
    _cpu_copy.fill_(cell, value)
    if dtype.name in _launch.HALVES:  # bfloat16 has no buffer format: read its 16 bits
        cell = _views.bits_view(cell)
    return bytes(memoryview(cell).cast("B"))


# Note [Kept plans of the fills]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``ones``, ``full`` and the seed of every ``backward()`` (a one-element 1) are fills, and a
# training step makes the same ones at every step. Two things a fill works out on the host are
# kept, as the index launches keep theirs (Note [Kept plans of the index launches] in
# _index.py): the element's bytes for a Python scalar, under (dtype, the scalar's type, its
# repr: -0.0 and 0.0 differ there; a NaN is one repr), made by the CPU's conversion once; and
# the launch's loop, index width, function and count, under (backend, dtype, shape, strides),
# with this call's address and bytes packed per launch. Bytes are kept only where they read
# back as the scalar itself: a conversion that rounds, overflows or wraps (which may warn) is
# made again at each call. Both are tables of Note [Kept launch plans] in _launch.py.
_SCALAR_BYTES = _launch.KeptPlans()
_FILL_PLANS = _launch.KeptPlans()


def _fill_bytes(dtype, value):
    """``_scalar_bytes`` of a fill, kept for a Python scalar it converts exactly (Note [Kept
    plans of the fills])."""
    if type(value) not in (bool, int, float, complex):
        return _scalar_bytes(dtype, value)
    key = (dtype, type(value), repr(value))
    raw = _SCALAR_BYTES.get(key)
    if raw is None:
        raw = _scalar_bytes(dtype, value)
        if np.frombuffer(raw, dtype.numpy)[0].item() == value:  # compared as Python numbers
            _SCALAR_BYTES.keep(key, raw)
    return raw


def _fill_plan(backend, dst):
    """(loop shape, its strides, function, count) of a fill of ``dst``'s layout."""
    shape, strides = _loop(dst, dst.stride(), dst)
    strides = [strides[0], [0] * len(shape)]
    itemsizes = [dst.itemsize, dst.itemsize]
    idx32 = _launch.use_int32(shape, strides, itemsizes)
    contig = _launch.is_contiguous_loop(shape, strides, itemsizes, [1, 0])
    fname = (
        f"strided_fill<{_launch.C_TYPES[dst.dtype.name]}, "
        f"{'int32_t' if idx32 else 'int64_t'}, {'true' if contig else 'false'}>"
    )
    fn = _launch.get_function(backend, ("fill",), "copy.cu", _fill_instantiations, fname)
    n = dst.numel()
    return shape, strides, fn, np.int32(n) if idx32 else np.int64(n)


def fill_(dst, value):
    """Set every element of a CUDA tensor to ``value``."""
    _cpu_copy.copy_checks(dst, dst, "fill_")
    dtype = dst.dtype
    raw = _fill_bytes(dtype, value)
    n = dst.numel()
    if n:
        backend = backend_for(dst.device)
        if dst.is_contiguous() and raw.count(raw[0]) == len(raw):
            backend.memset(dst.data_ptr(), raw[0], n * dst.itemsize)
        else:
            key = (id(backend), dtype, dst.shape, dst.stride())
            plan = _FILL_PLANS.get(key)
            if plan is None:
                plan = _FILL_PLANS.keep(key, _fill_plan(backend, dst))
            shape, strides, fn, count = plan
            data = [dst.data_ptr(), 0]
            g = _params.geometry_bytes(shape, strides, data, [None, raw], _launch.MAX_DIMS)
            _launch.launch_1d(backend, fn, n, (g, count), unroll=1)
    dst._bump_version()
    return dst


def arange_fill(out, start, step):
    """out[i] = start + i * step for a fresh contiguous 1-D CUDA tensor (as the CPU's
    arange_fill: integer arithmetic for integer arguments and dtypes, else double)."""
    d = out.dtype
    if d.kind not in "iuf":
        raise TypeError(
            f"arange: dtype {d.name} is not supported; use an integer or real floating dtype"
        )
    as_int = isinstance(start, int) and isinstance(step, int) and d.kind in "iu"
    acc = "int64_t" if as_int else "double"
    n = out.numel()
    idx32 = n < _launch.INT32_LOOP_LIMIT  # Note [A 32-bit loop counter's headroom]
    backend = backend_for(out.device)
    fname = f"strided_arange<{_launch.C_TYPES[d.name]}, {acc}, {'int32_t' if idx32 else 'int64_t'}>"
    fn = _launch.get_function(backend, ("arange",), "copy.cu", _arange_instantiations, fname)
    conv = np.int64 if as_int else np.float64
    args = (
        np.uint64(out.data_ptr()),
        conv(start),
        conv(step),
        np.int32(n) if idx32 else np.int64(n),
    )
    _launch.launch_1d(backend, fn, n, args, unroll=1)
    out._bump_version()
    return out
