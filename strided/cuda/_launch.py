"""From an op call to a kernel launch: sources, instantiations, the geometry struct, the grid.

Note [The CUDA launch]
~~~~~~~~~~~~~~~~~~~~~~
A CUDA op in strided runs in four steps, the same on a GPU and on the emulator:

1. **Plan.** The CPU's elementwise iterator (``prepare_elementwise`` in strided/_iter.pyx) does
   all the shape and dtype work, exactly as for a CPU op: broadcast, promote, allocate the
   output on the device in the inputs' memory order, reorder and coalesce the dims. It never
   touches the device's bytes; its loop (the shape, each operand's byte strides, addresses and
   scalar values) is packed for the kernel by ``elementwise_geometry`` in _params.pyx. Ops
   that are not elementwise (reductions, scans, sorts, gathers, copies) coalesce their groups
   of dims with the same code, through ``_iter.loop_dims``: the iterator is the only shape
   engine.
2. **Instantiation.** The kernel source is a C++ template (``strided_binary<Op, T, Out, index_t,
   CONTIG>``); the host picks the template arguments: the op's functor, the C types of the
   dtypes, 32- or 64-bit index math (32 when every byte offset fits: see
   Note [CUDA loop geometry] in kernels/common.cuh) and whether the loop is one contiguous run
   (no index arithmetic at all). That name expression is the cache key.
3. **Module.** All instantiations of one op live in one module, compiled on the op's first use
   (NVRTC through ``cupy.RawModule(name_expressions=...)``, or g++ for the emulator) and cached
   for the process (CuPy also caches the binary on disk; the emulator does the same). The list of
   instantiations is a function of the op alone, so the compile test in CI compiles exactly what
   the runtime would (``all_modules()``).
4. **Launch.** The geometry is packed into the ``Geometry<N>`` struct (a NumPy structured scalar,
   passed by value), the grid is sized to the work, and the kernel is launched on the current
   stream. Nothing waits for it: the host goes on while the GPU works, and only reading values
   back (``.cpu()``, ``item()``, ``print``) synchronises.

Kernels use grid-stride loops, so any grid size is correct; the grid is ceil(n / (block * 4))
blocks (4 elements per thread, Note in kernels/elementwise.cu), as PyTorch sizes it; a
contiguous elementwise loop gives a thread one 16-byte vector when that is more elements (8
float16s: Note [Vector loads in the contiguous elementwise loops] there). Capping
the grid at a few blocks per multiprocessor (each thread then loops) was measured slower on an
H100 for transposed inputs: the blocks in flight then span many more rows, and the L2 cache
no longer catches the neighbouring reads of a column.
"""

from __future__ import annotations

import math
import os
import re
import threading
from functools import cache

import numpy as np

from strided import _dtype_table, _iter
from strided.cuda import _params

__all__ = [
    "C_TYPES",
    "HALVES",
    "NATIVE",
    "coalesce",
    "MAX_DIMS",
    "geometry_struct",
    "get_function",
    "launch_1d",
    "source",
    "use_int32",
]

MAX_DIMS = 25  # STRIDED_MAX_DIMS in kernels/common.cuh
BLOCK = 256
UNROLL = 4


# dtype name -> the C type the kernels spell it with (kernels/common.cuh): the "cuda" column of
# the one dtype table (Note [The dtype table] in strided/_dtype_table.py). float16 and bfloat16
# are ``half_t``/``bfloat16_t``, their 16 bits with no arithmetic (Note [CUDA half types] in
# kernels/common.cuh): the casts, elementwise ops, where, fills and index moves have kernels
# for them; every other kernel takes ``NATIVE`` only and runs a half tensor through float32
# (strided/cuda/_half.py).
C_TYPES = {row.name: row.cuda for row in _dtype_table.ROWS}
NATIVE = tuple(row.name for row in _dtype_table.NATIVE_ROWS)
HALVES = tuple(row.name for row in _dtype_table.ROWS if row.half is not None)

KERNEL_DIR = os.path.join(os.path.dirname(__file__), "kernels")
# The options CuPy would use, plus C++17 for ``if constexpr`` and no contraction of a product
# and a sum into one fused multiply-add (Note [One rounding per operation on the GPU]).
NVRTC_OPTIONS = ("--std=c++17", "--fmad=false")

# Note [One rounding per operation on the GPU]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``a * b + c`` is two roundings in C: the product is rounded to float, then the sum. A GPU
# (and an x86-64-v3 CPU) has an instruction that rounds once, the fused multiply-add, and
# NVRTC's default, ``--fmad=true``, lets it replace the two operations wherever the source has
# them side by side: in a complex product (``a.re * b.re - a.im * b.im``), in a compiled
# kernel where one op's product feeds the next op's sum (``x * 2 + 1``). The answer is then
# more accurate but different, in the last bit, from the CPU's (setup.py compiles every CPU
# kernel with ``-ffp-contract=off``), from the emulator's (the same source under g++, for
# baseline x86-64, which has no FMA) and from the eager ops' on the same GPU (each op's result
# rounded to memory). strided's rule is that a device gives the CPU's bits where the
# arithmetic is the same (issue 23: a kernel that differs between the emulator and the GPU is a
# bug in one of them), so every kernel is compiled with ``--fmad=false``: each ``*`` and ``+``
# rounds, as written. An FMA the source asks for (``fma(a, b, c)``, CUDA's own exp and log,
# which are written with them) is kept. The kernels are memory-bound: the extra instruction
# costs nothing measurable.

_INCLUDE = re.compile(r'^#include "([^"]+)"\s*$', re.M)


@cache
def source(name):
    """The text of kernels/``name`` with our own ``#include "..."`` files pasted in.

    One self-contained string per module: the cache keys of CuPy and of the emulator hash the
    source text, so a change to a header must change the text they see.
    """
    seen = set()

    def expand(fname):
        if fname in seen:
            return ""
        seen.add(fname)
        with open(os.path.join(KERNEL_DIR, fname)) as f:
            text = f.read()
        text = text.replace("#pragma once\n", "")
        return _INCLUDE.sub(lambda m: expand(m.group(1)), text)

    return expand(name)


@cache
def _geometry_dtype(n):
    return np.dtype(
        [
            ("sizes", "<i8", (MAX_DIMS,)),
            ("strides", "<i8", (n, MAX_DIMS)),
            ("data", "<i8", (n,)),
            ("scalars", "<i8", (n, 2)),
            ("ndim", "<i4"),
            ("div_magic", "<u4", (MAX_DIMS,)),
            ("div_shift", "<u4", (MAX_DIMS,)),
        ],
        align=True,
    )


def geometry_struct(shape, strides, data, scalars=None):
    """The ``Geometry<N>`` struct of kernels/common.cuh as a NumPy structured scalar: the
    readable form of its layout; the launches pass ``_params.geometry_bytes``, the same bytes
    written in C (tests/test_cuda_emulator.py compares them).

    ``shape`` innermost first, ``strides[k]`` operand k's byte strides, ``data[k]`` its address
    (0 for a scalar operand, whose bytes are ``scalars[k]``); each size's divider for the 32-bit
    kernels (Note [Division by a loop size as a multiplication] in kernels/common.cuh), zeros
    for the outermost dim (never divided) and where a size is beyond them.
    """
    n = len(data)
    if len(shape) > MAX_DIMS:
        raise NotImplementedError(
            f"CUDA kernels take at most {MAX_DIMS} dims after coalescing; this loop has "
            f"{len(shape)} (shape {tuple(shape)}); make the tensors contiguous on the CPU first"
        )
    g = np.zeros((), dtype=_geometry_dtype(n))
    nd = len(shape)
    g["ndim"] = nd
    if nd:
        g["sizes"][:nd] = shape
        for k in range(n):
            g["strides"][k, :nd] = strides[k]
        for d, size in enumerate(shape[:-1]):  # the outermost dim is never divided
            if 1 <= size <= 2**31:
                g["div_magic"][d], g["div_shift"][d] = _params.int_divider(size)
    g["data"][:] = data
    if scalars is not None:
        for k, b in enumerate(scalars):
            if b is not None:
                g["scalars"][k] = np.frombuffer(b.ljust(16, b"\0"), dtype="<i8")
    return g[()]


def coalesce(sizes, strides):
    """Row-major dims of one operand (outermost first, byte strides) merged where one steps
    over the whole of the next, size-1 dims dropped: ``[(size, stride)]``, innermost first, as
    the kernels read them. The reductions, scans and sorts use it on each group of dims (kept,
    reduced, the line). The merging is the iterator's own (``loop_dims`` in _iter.pyx, Note [The
    loop plan]): there is one coalescer."""
    shape, (st,) = _iter.loop_dims(sizes, [strides])
    return list(zip(shape, st, strict=True))


# struct LineGeometry of kernels/line.cuh: the lines of a line op (scans, softmax)
LINE_GEOMETRY = np.dtype(
    [
        ("ksizes", "<i8", (MAX_DIMS,)),
        ("kstrides", "<i8", (MAX_DIMS,)),
        ("x", "<i8"),
        ("y", "<i8"),
        ("M", "<i8"),
        ("L", "<i8"),
        ("sx", "<i8"),
        ("inner", "<i8"),
        ("Lout", "<i8"),
        ("chunk", "<i8"),
        ("nk", "<i4"),
        ("initial", "<i4"),
    ],
    align=True,
)


def line_geometry(x, axis, y, Lout):
    """``(geometry, kdims, M)``: the LineGeometry of ``x``'s lines along ``axis`` (a NumPy
    struct, ``chunk`` = L and ``initial`` = 0 until the caller sets them), written into the
    fresh row-major ``y`` whose lines are ``Lout`` long; the coalesced kept dims (innermost
    first, byte strides) and the number of lines."""
    shape, strides, item = x.shape, x.stride(), x.itemsize
    kept = [d for d in range(x.ndim) if d != axis]
    M = math.prod(shape[d] for d in kept)
    kdims = coalesce([shape[d] for d in kept], [strides[d] * item for d in kept])
    if len(kdims) > MAX_DIMS:
        raise NotImplementedError(f"more than {MAX_DIMS} kept dims after coalescing")
    g = np.zeros((), dtype=LINE_GEOMETRY)
    if kdims:
        g["ksizes"][: len(kdims)] = [n for n, _ in kdims]
        g["kstrides"][: len(kdims)] = [s for _, s in kdims]
    g["x"], g["y"], g["M"], g["L"] = x.data_ptr(), y.data_ptr(), M, shape[axis]
    g["sx"], g["inner"], g["Lout"] = strides[axis] * item, math.prod(shape[axis + 1 :]), Lout
    g["chunk"], g["nk"] = shape[axis], len(kdims)
    return g, kdims, M


# Note [A 32-bit loop counter's headroom]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A grid-stride loop ``for (i = first; i < n; i += blockDim.x * gridDim.x)`` computes the
# index *after* its last element too: i + stride, up to n + stride. With a 32-bit index and a
# grid sized to the work (stride up to about n), that is up to about 2n, and past 2**31 - 1 a
# signed int32 overflows: undefined behaviour, in practice a negative index that passes
# ``i < n`` and reads before the tensor. So a kernel counts in 32 bits only when the count it
# loops over is below 2**30 (``INT32_LOOP_LIMIT``): then i + stride stays below 2**31. Byte
# offsets, which are computed but never stepped past the end, may go up to 2**31 - 1.
INT32_LOOP_LIMIT = 2**30


# Note [Kept launch plans]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# What the host works out before a launch (the coalesced loop, the index width, the compiled
# function, the grid, a geometry's bytes) depends on shapes, strides, dtypes and the op, never
# on the addresses, and a training step launches the same ones at every step. So the eager
# paths keep that answer under exactly those inputs and a later call only packs its addresses:
# the matmul's cuBLAS calls (_linalg.py), the reductions (_reduce.py), the index launches
# (_index.py), the softmax lines (_softmax.py) and the fills (_copy.py), each in a table of
# this one kind. A table is emptied when it holds ``limit`` plans, so shapes that change at
# every call do not grow it without bound. It is a dict (``get`` is the dict's own, from C);
# ``keep`` is the only way in.
class KeptPlans(dict):
    """Launch plans by key, emptied when ``limit`` are kept (Note [Kept launch plans])."""

    def __init__(self, limit=1024):
        super().__init__()
        self.limit = limit

    def keep(self, key, plan):
        """Keep ``plan`` under ``key`` (emptying a full table first); return ``plan``."""
        if len(self) >= self.limit:
            self.clear()
        self[key] = plan
        return plan


def line_fits_int32(x, axis, y, kdims, M):
    """Whether every offset a line op computes (into x and the row-major y) fits in int32."""
    L, sx = x.shape[axis], x.stride()[axis] * x.itemsize
    extent = x.itemsize + sum((n - 1) * abs(s) for n, s in kdims) + max(L - 1, 0) * abs(sx)
    # counts below INT32_LOOP_LIMIT: Note [A 32-bit loop counter's headroom]
    return extent < 2**31 and y.numel() < INT32_LOOP_LIMIT and M * max(L, 1) < INT32_LOOP_LIMIT


def use_int32(shape, strides, itemsizes):
    """Whether every element count and byte offset of the loop fits in int32 (the count with
    headroom: Note [A 32-bit loop counter's headroom])."""
    numel = 1
    for s in shape:
        numel *= s
    if numel >= INT32_LOOP_LIMIT:
        return False
    for st, item in zip(strides, itemsizes, strict=True):
        extent = item
        for s, b in zip(shape, st, strict=True):  # a loop, not sum() of a generator: this
            if s > 0:  # runs at every launch of the copies, fills and index moves
                extent += (s - 1) * abs(b)
        if extent >= 2**31:
            return False
    return True


def is_contiguous_loop(shape, strides, itemsizes, data):
    """Whether the loop is one run with every tensor operand at unit (itemsize) steps."""
    if len(shape) > 1:
        return False
    if not shape:
        return True
    return all(
        d == 0 or st[0] == item for st, item, d in zip(strides, itemsizes, data, strict=True)
    )


# -- modules and functions --------------------------------------------------------------------

_modules: dict = {}
_functions: dict = {}
_lock = threading.Lock()


def get_function(backend, module_key, source_name, name_expressions, name):
    """The compiled kernel ``name`` of module ``module_key`` on ``backend``.

    The module (every instantiation in ``name_expressions()``, a callable) is compiled on first
    use, once per backend; see Note [The CUDA launch], step 3.
    """
    fkey = (id(backend), name)
    fn = _functions.get(fkey)
    if fn is not None:
        return fn
    with _lock:
        mkey = (id(backend), module_key)
        mod = _modules.get(mkey)
        if mod is None:
            names = name_expressions()
            if name not in names:
                raise KeyError(f"{name} is not an instantiation of module {module_key}")
            mod = backend.compile(source(source_name), names, NVRTC_OPTIONS)
            _modules[mkey] = mod
        fn = mod.get_function(name)
        _functions[fkey] = fn
        _names[id(fn)] = name
    return fn


_names: dict = {}  # id(compiled function) -> its name expression, for trace_launches


def function_name(fn):
    """The name expression a compiled function was fetched by (``strided_binary<...>``)."""
    if isinstance(fn, str):  # a library call (cuBLAS), traced under its own name
        return fn
    return _names.get(id(fn), repr(fn))


def launch_1d(backend, function, n, args, unroll=UNROLL):
    """Launch a grid-stride kernel over ``n`` elements (see Note [The CUDA launch], step 4)."""
    if n == 0:
        return
    backend.launch(function, grid_1d(n, unroll), (BLOCK,), args)


def grid_1d(n, unroll=UNROLL):
    """The grid of a grid-stride launch over ``n`` > 0 elements (blocks of BLOCK threads)."""
    per_block = BLOCK * unroll
    return (min((n + per_block - 1) // per_block, 2**31 - 1),)
