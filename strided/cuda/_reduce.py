"""The CUDA kernels of the reductions: sum, prod, max, min, any, all, argmax, argmin.

Note [CUDA reductions]
~~~~~~~~~~~~~~~~~~~~~~
The host splits the input's dims in two groups: *kept* dims (each output element is one point
of them) and *reduced* dims (the elements that fold into one output). Each group is coalesced
on its own: the reduced dims in row-major order, so the reduced index ``r`` is still the flat
row-major index argmax returns; the kept dims in the input's memory order (below). Then one of
two kernels of kernels/reduce.cu runs:

- **a block per output** when the reduced dims hold the input's fastest (smallest-stride)
  dim, as in a row sum: the 256 threads of a block read neighbouring elements (coalesced),
  each keeps running accumulators, and the block combines its 256 threads;
- **a thread per output** when a kept dim is the fastest, as in a column sum: neighbouring
  threads then own neighbouring outputs and read neighbouring addresses, each walking its
  reduced elements in order.

A reduction with few outputs and many elements (the sum of a whole tensor) would leave most of
the GPU idle, so its reduced elements are cut into G chunks (``gridDim.y``); each block writes a
partial accumulator, and each output's G partials are combined in chunk order (a thread per
output when outputs are many; a block per output when they are few and their partials many,
since one thread walking thousands of partials waits for each load in turn). The last block to
finish combines them, in the same launch (Note [The last block combines the partials] in
kernels/reduce.cu): every split reduction of the block kernel (a whole sum, a row sum of few
long rows), and those of the thread kernel whose partials a thread per output combines. A
thread-kernel reduction with few outputs and many partials each (a column sum of a tall, narrow
matrix) keeps a second launch of a block per output: one last block would take its outputs'
block-wide combinations one after another, where the second launch spreads them over the GPU.
Within a block, each thread keeps 8 running accumulators (8 loads in flight), and the block
combines its threads with warp shuffles and one exchange through shared memory
(``block_combine`` in kernels/reduce.cu).
The kept dims are taken in the input's memory order (outermost first) as the iterator orders
them (``plan_reorder``, reached through ``_iter._plan_for``), and the result is laid out
densely in that order, as the CPU's reduction lays out its result (``plan_dense_operand``):
the same strides on both devices, and the thread-per-output kernel reads a channels-last input
along its channels (``_kept_layout``).
G, the chunk size and the block size depend on the shape alone, never on the GPU or on timing,
and the one atomic (the counter that picks the last block) decides who combines, never in what
order: a float sum gives the same bits on every run (issue 7's "deterministic for a given
shape"). Accumulators are the dtype the op computes in (the CPU's ``_run`` casts the
input first), as PyTorch accumulates float32 sums in float32 on a GPU; a float16 or bfloat16
input is not cast: its kernels read the halves and accumulate in float32 (Note [Half reductions
in one pass] in kernels/reduce.cu), into a result of the half type or of float32.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from strided import _core, _iter
from strided._dtype import as_dtype
from strided.cuda import _launch
from strided.cuda._backend import COUNTERS, backend_for

__all__ = ["reduce", "all_modules"]

BLOCK = 256  # STRIDED_REDUCE_BLOCK in kernels/reduce.cu
_OPS = {
    "sum": ("red_sum<{T}>", "biufc"),
    "prod": ("red_prod<{T}>", "biufc"),
    "max": ("red_max<{T}>", "biuf"),
    "min": ("red_min<{T}>", "biuf"),
    "any": ("red_any", "b"),
    "all": ("red_all", "b"),
    "argmax": ("red_argmax<{T}>", "biuf"),
    "argmin": ("red_argmin<{T}>", "biuf"),
}
_ALL = _launch.NATIVE
# halves: the float32 op over widened loads, into either result (Note [Half reductions in one
# pass] in kernels/reduce.cu), in modules of their own, compiled when a half tensor is reduced
HALF_OPS = ("sum", "prod", "max", "min", "argmax", "argmin")
_GEOMETRY = np.dtype(
    [
        ("osizes", "<i8", (_launch.MAX_DIMS,)),
        ("ostrides", "<i8", (_launch.MAX_DIMS,)),
        ("rsizes", "<i8", (_launch.MAX_DIMS,)),
        ("rstrides", "<i8", (_launch.MAX_DIMS,)),
        ("x", "<i8"),
        ("y", "<i8"),
        ("M", "<i8"),
        ("R", "<i8"),
        ("chunk", "<i8"),
        ("nout", "<i4"),
        ("nred", "<i4"),
    ],
    align=True,
)
_ACC_BYTES = {"argmax": 16, "argmin": 16}
_FEW_OUTPUTS = 4096  # below this many outputs, a split reduction's 2nd pass is block-wide
# the kernels' ``finish`` (STRIDED_FINISH_* in kernels/reduce.cu): who combines the partials
_FINISH_NONE, _FINISH_CHAIN, _FINISH_TREE = 0, 1, 2
# False: every split reduction combines its partials in a second launch, as before Note [The
# last block combines the partials] (the tests compare the two; clear _PLANS after changing it)
LAST_BLOCK_FINISHES = True


def _out_c(name, dtype_name):
    return "int64_t" if name in ("argmax", "argmin") else _launch.C_TYPES[dtype_name]


def _names(name, d, out=None):
    """The kernels of op ``name`` reading dtype ``d`` into dtype ``out`` (default ``d``)."""
    t, o = _launch.C_TYPES[d], _out_c(name, out or d)
    if d in _launch.HALVES:
        op = f"red_half<{_OPS[name][0].format(T='float')}, {t}>"
    else:
        op = _OPS[name][0].format(T=t)
    names = [
        f"strided_reduce_{kind}<{op}, {t}, {o}, {index}>"
        for kind in ("block", "thread")
        for index in ("int32_t", "int64_t")
    ]
    names.append(f"strided_reduce_partials<{op}, {t}, {o}>")
    names.append(f"strided_reduce_partials_block<{op}, {t}, {o}>")
    return names


def _instantiations(name):
    kinds = _OPS[name][1]
    return [n for d in _ALL if as_dtype(d).kind in kinds for n in _names(name, d)]


def _half_instantiations(name):
    outs = (None,) if name in ("argmax", "argmin") else (None, "float32")
    return [n for d in _launch.HALVES for out in outs for n in _names(name, d, out)]


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(("reduce", name), "reduce.cu", _instantiations(name)) for name in _OPS] + [
        (("reduce", name, "half"), "reduce.cu", _half_instantiations(name)) for name in HALF_OPS
    ]


# Note [Launch plans are cached by shape]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Everything the host decides before a reduction's launch (the output's shape, the coalesced
# dims, the kernel, the grid, the chunking, the Geometry struct's bytes) depends on the op, the
# dtype, the shape, the strides and the reduced dims, never on the data or the addresses. A
# training step reduces the same shapes every iteration, and the decisions cost ~10x the launch
# itself in Python, so they are made once per key and kept (``_ReducePlan``); a call then only
# allocates, writes the two addresses into a copy of the struct's bytes and launches.
_PLANS = _launch.KeptPlans()  # Note [Kept launch plans] in _launch.py
_XY = _GEOMETRY.fields["x"][1]  # byte offset of the x, y addresses in the struct (adjacent)
_NULL = np.uint64(0)


class _ReducePlan:
    __slots__ = ("out_shape", "out_strides", "out_dtype", "M", "geometry", "fn", "grid",
                 "partial_bytes", "fn2", "grid2", "M_G", "finish")  # fmt: skip


def _kept_layout(x, dims, keepdims):
    """The kept dims outermost first in the input's memory order, and the result's strides.

    The order is the iterator's (``_iter._plan_for``, which runs ``plan_reorder`` of Note [The
    loop plan]) over the result's dims with the input's strides, and the strides lay the result
    out densely in it, as ``plan_dense_operand`` does for the CPU's result (Note [Reductions] in
    _cpu/reduce.pyx.tp): so a reduction's result has the same strides on both devices, for any
    layout (a broadcast dim says nothing about memory order, and the sort moves past it). The
    order is that of the output index ``o`` the kernels write at, so neighbouring threads of the
    thread-per-output kernel read neighbouring addresses of a channels-last input. The strides
    are None when they are row-major's (a plain ``_empty``).
    """
    shape, strides = x.shape, x.stride()
    # the result's dims, as the CPU's kept plan holds them: a dim keepdims keeps is size 1 and
    # never moves the input's pointer
    dims_out = [d for d in range(x.ndim) if keepdims or d not in dims]
    sizes = [1 if d in dims else shape[d] for d in dims_out]
    steps = [0 if d in dims else strides[d] for d in dims_out]
    order = _iter._plan_for(sizes, [(steps, x.itemsize)])["dim_order"]  # outermost first
    out, step = [0] * len(dims_out), 1
    for i in reversed(order):
        out[i] = step
        step *= sizes[i]
    kept = [dims_out[i] for i in order if dims_out[i] not in dims]
    row_major, step = [0] * len(dims_out), 1  # as _core._empty lays a result out
    for i in reversed(range(len(dims_out))):
        row_major[i] = step
        step *= max(sizes[i], 1)
    return kept, (None if out == row_major else tuple(out))


def _plan(name, x, dims, keepdims, acc):
    """The shape-only half of ``reduce``: see Note [Launch plans are cached by shape]."""
    kinds = _OPS[name][1]
    if x.dtype.kind not in kinds:
        raise TypeError(f"{name} does not support dtype {x.dtype.name} on a CUDA device")
    plan = _ReducePlan()
    is_arg = name in ("argmax", "argmin")
    half = x.dtype.name in _launch.HALVES  # read as halves, accumulated in float32
    if half and name not in HALF_OPS:
        raise TypeError(f"{name} does not support dtype {x.dtype.name} on a CUDA device")
    plan.out_dtype = out_dtype = as_dtype("int64") if is_arg else (acc if half else x.dtype)
    shape, strides, item = x.shape, x.stride(), x.itemsize
    kept = [d for d in range(x.ndim) if d not in dims]
    plan.out_shape = (
        tuple(1 if d in dims else shape[d] for d in range(x.ndim))
        if keepdims
        else tuple(shape[d] for d in kept)
    )
    plan.M = M = math.prod(shape[d] for d in kept)
    R = math.prod(shape[d] for d in dims)
    kept, plan.out_strides = _kept_layout(x, dims, keepdims)
    if M == 0:
        return plan
    odims = _launch.coalesce([shape[d] for d in kept], [strides[d] * item for d in kept])
    rdims = _launch.coalesce([shape[d] for d in dims], [strides[d] * item for d in dims])
    if len(odims) > _launch.MAX_DIMS or len(rdims) > _launch.MAX_DIMS:
        raise NotImplementedError(f"{name}: more than {_launch.MAX_DIMS} dims after coalescing")
    # which kernel: does a kept dim move faster through memory than every reduced dim?
    o_fast = min((abs(s) for n, s in odims if s), default=None)
    r_fast = min((abs(s) for n, s in rdims if s), default=None)
    per_thread = R <= 16 or (o_fast is not None and (r_fast is None or o_fast < r_fast))
    # split long reductions with few outputs into G chunks (shape-only: deterministic)
    # (an H100 keeps ~270k threads resident: aim for ~512k threads, chunks of >= 128 elements
    # for a thread, >= 2048 for a block of 256)
    threads = M if per_thread else M * BLOCK
    min_chunk = 128 if per_thread else 2048
    G = 1
    if threads < 1 << 19 and R > 2 * min_chunk:
        G = min(max(1, (1 << 19) // max(threads, 1)), math.ceil(R / min_chunk), 4096)
    chunk = math.ceil(R / G) if R else 0
    g = np.zeros((), dtype=_GEOMETRY)
    if odims:
        g["osizes"][: len(odims)] = [n for n, _ in odims]
        g["ostrides"][: len(odims)] = [s for _, s in odims]
    if rdims:
        g["rsizes"][: len(rdims)] = [n for n, _ in rdims]
        g["rstrides"][: len(rdims)] = [s for _, s in rdims]
    g["M"], g["R"], g["chunk"] = M, R, chunk
    g["nout"], g["nred"] = len(odims), len(rdims)
    plan.geometry = g.tobytes()  # x and y (the addresses) are written per call
    extent = item + sum((n - 1) * abs(s) for n, s in odims + rdims)
    # counts with headroom: Note [A 32-bit loop counter's headroom] in _launch.py
    idx32 = extent < 2**31 and M * max(R, 1) < _launch.INT32_LOOP_LIMIT
    backend = backend_for(x.device)
    names = _names(name, x.dtype.name, None if is_arg else out_dtype.name)
    module = ("reduce", name, "half") if half else ("reduce", name)
    every = (lambda: _half_instantiations(name)) if half else (lambda: _instantiations(name))
    kind = "thread" if per_thread else "block"
    fname = [n for n in names if n.startswith(f"strided_reduce_{kind}<")][0 if idx32 else 1]
    plan.fn = _launch.get_function(backend, module, "reduce.cu", every, fname)
    blocks = min(math.ceil(M / BLOCK), 2**31 - 1) if per_thread else min(M, 2**31 - 1)
    plan.grid = (blocks, G)
    plan.partial_bytes = plan.fn2 = plan.grid2 = None
    plan.M_G = (np.int64(M), np.int64(G))
    plan.finish = np.int32(_FINISH_NONE)
    if G > 1:
        acc_bytes = 4 if half else out_dtype.itemsize  # a half's accumulator is a float32
        plan.partial_bytes = M * G * _ACC_BYTES.get(name, acc_bytes)
        # few outputs with many partials each: a block per output (Note [CUDA reductions])
        by_block = M < _FEW_OUTPUTS and G >= 16
        # the last block combines them (Note [The last block combines the partials]) where
        # the counters (one per output, or per column of blocks) fit the backend's array, and
        # not for the thread kernel's block-wide combinations (Note [CUDA reductions])
        groups = blocks if per_thread else M
        if LAST_BLOCK_FINISHES and groups <= COUNTERS and not (per_thread and by_block):
            plan.finish = np.int32(_FINISH_TREE if by_block else _FINISH_CHAIN)
            return plan
        plan.fn2 = _launch.get_function(
            backend, module, "reduce.cu", every, names[-1] if by_block else names[-2]
        )
        plan.grid2 = (min(M if by_block else math.ceil(M / BLOCK), 2**31 - 1),)
    return plan


def reduce(name, x, dims, keepdims, acc):
    """``name`` over ``dims`` of a CUDA tensor ``x`` (already of the accumulation dtype, or any
    dtype for argmax/argmin; or a half tensor, whose result is ``acc``, the half type or
    float32), into a fresh tensor. See Note [CUDA reductions]."""
    key = (name, x.dtype, acc, x.device, x.shape, x.stride(), tuple(dims), keepdims)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS.keep(key, _plan(name, x, dims, keepdims, acc))
    if plan.out_strides is None:
        y = _core._empty(plan.out_shape, plan.out_dtype, x.device)
    else:  # laid out like the input: see _kept_layout
        storage = _core.Storage._new(plan.M * plan.out_dtype.itemsize, x.device)
        y = _core._from_parts(storage, 0, plan.out_shape, plan.out_strides, plan.out_dtype)
    if plan.M == 0:
        return y
    g = bytearray(plan.geometry)
    struct.pack_into("<qq", g, _XY, x.data_ptr(), y.data_ptr())
    backend = backend_for(x.device)
    partials = None
    if plan.partial_bytes is not None:
        partials = _core.Storage._new(plan.partial_bytes, x.device)
    pptr = np.uint64(partials.data_ptr() if partials is not None else 0)
    if not plan.finish:
        backend.launch(plan.fn, plan.grid, (BLOCK,), (bytes(g), pptr, _NULL, plan.finish))
        if partials is not None:
            args = (pptr, np.uint64(y.data_ptr()), *plan.M_G)
            backend.launch(plan.fn2, plan.grid2, (BLOCK,), args)
        return y
    args = (bytes(g), pptr, np.uint64(backend.counters()), plan.finish)
    try:
        backend.launch(plan.fn, plan.grid, (BLOCK,), args)
    except BaseException:
        backend.drop_counters()  # a launch cut short may have left a count behind
        raise
    return y
