"""The CUDA kernels of indexing: index offsets, gathers, scatters, nonzero, searchsorted.

The CUDA twins of strided/_cpu/offsets.pyx, _cpu/index.pyx.tp, _cpu/mask.pyx and _cpu/search.pyx.tp,
with the same arguments and meaning, so that strided/_ops/indexing_cuda.py can compose them as
strided/_ops/indexing.py composes the CPU ones. Kernels in kernels/index.cu.

Note [CUDA indexing is a gather over byte offsets]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
As on the CPU (Note [Advanced indexing is a gather over offsets] in _cpu/index.pyx.tp), an
advanced index is two steps. ``index_offsets`` turns the K integer index tensors (broadcast to
one index shape B) into one int64 tensor of *byte offsets* into the indexed tensor ``t``: K
launches of one small kernel, each adding ``wrap(idx_k) * stride_k`` and checking the range.
Then ``index_get`` / ``index_put`` run one loop over the result's shape: loop dim s walks dim
``dim_map[s]`` of ``t`` (if not -1) and dim ``s - pos`` of the offsets (if in range), so
element i of the loop is at ``t + walked offset + offsets[...]``. The loop keeps the result's
row-major order (dims are coalesced, never reordered): the thread's linear index is the
element's row-major position, which the error report and the last-write rule below use. One
gather, of whole contiguous rows by one index tensor, skips the offsets and moves 16-byte vectors
in one launch (Note [Gathering whole rows] below).

Gathers and plain scatters only move bytes: one instantiation per element *size* (1, 2, 4, 8,
16 bytes) serves every dtype of that size.

Note [Checking indices on the device]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An index outside [-size, size) must raise IndexError naming the dim and its size, as on the
CPU. The indices live on the device, so the offsets kernel (or the whole rows' gather,
``index_rows``) checks them as it goes: a bad one adds nothing (its element points at t's
first element, never outside the storage; the rows' gather writes zeros) and the smallest
row-major position holding one goes to a slot in device memory (``atomicMin``: the same answer
in any thread order). The host does **not** wait to read it: that would make every
advanced index, take, gather and scatter synchronise. The slot is reported at the host's next
synchronisation with the device instead (Note [Errors found on the device are reported at the
next synchronisation] in _deferred.py), which reads the value back from the index tensor for
the message. A scatter's kernels read the slots before writing and write nothing if one is
set, so a bad index leaves the target untouched, as on the CPU. A gather with a bad index fills
its fresh output with something; the error is raised before anyone can read it.

Note [Duplicate indices on a GPU]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``x[[0, 0]] = [1, 2]`` writes one cell twice. The CPU makes the last write in row-major order
win (Note [Duplicate indices] in _cpu/index.pyx.tp); on a GPU the two writes race. To give the
CPU's answer, a scatter whose values may differ between duplicates runs in two passes: a
*claim* in which every position i does ``atomicMax(winner[cell], i)`` on an int64 scratch array
with one slot per element of the target's memory extent, then the write, done only by the
position that won. When the values cannot differ along the index dims (a scalar or a broadcast
value, as in ``x[mask] = 0``) any write order gives one answer and the single pass runs.

Accumulating scatters (``index_put_(accumulate=True)``, ``scatter_add_``, ``index_add_``) use
atomic adds (kernels/index.cu: ``atomicAdd`` for 32/64-bit integers and floats, a
compare-and-swap loop on the enclosing 4-byte word for 1- and 2-byte types, two float adds for
a complex). Integer sums are exact whatever the order (wrapping addition is associative and
commutative). **Float sums are not deterministic on a GPU**: the threads' order of arrival
changes from run to run, and so does the rounding of a cell that receives several values;
the result may differ in the last bits from the CPU's row-major sum. (The emulator runs threads
in a fixed order, so there it is repeatable.) PyTorch's CUDA ``index_add_`` behaves the same.
``strided.use_deterministic_algorithms(True)`` sorts the positions by cell first and adds each
cell's values in row-major order instead, which gives the CPU's bits on every run (Note
[Deterministic algorithms] in strided/_config.py; ``_add_in_order`` below).

Note [nonzero on a GPU synchronises]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The length of nonzero's result depends on the data, and the host must know it to allocate the
output. So nonzero is two kernels around one read back: pass 1 cuts the (contiguous bool) input
into chunks, one per block, and counts each chunk's hits; the host reads the counts (the
synchronisation), sums them into each chunk's first output row, allocates, and pass 2 re-reads
each chunk in order and writes its hits' coordinates there (a ballot per warp and a sum over
the block's warps give each hit its rank within a tile of 256). Rows come out in row-major
order, as on the CPU. Boolean-mask indexing goes through nonzero, so it synchronises too; the
issue allows exactly these (results whose size depends on data).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from strided import _config, _core, _iter
from strided._dtype import as_dtype, int64
from strided.cuda import _half, _launch, _params, _sort
from strided.cuda._backend import backend_for
from strided.cuda._deferred import NOTHING

__all__ = [
    "all_modules",
    "index_get",
    "index_offsets",
    "index_put",
    "index_rows",
    "nonzero",
    "searchsorted",
]

BLOCK = 256  # STRIDED_INDEX_BLOCK in kernels/index.cu
_ALL = tuple(_launch.C_TYPES)
_INDEX_TYPES = ("int32_t", "int64_t")
_CARRIERS = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t", 16: "complex128_t"}
_REAL = tuple(d for d in _launch.NATIVE if as_dtype(d).kind in "biuf")
GET, PUT, CLAIM, PUT_WINNER, SLOT = range(5)
# the dtypes whose sums depend on the order of the additions (Note [Deterministic algorithms])
_IN_ORDER = tuple(d for d in _ALL if as_dtype(d).kind in "fc")


def _move_instantiations():
    names = [f"strided_index_offsets<{i}>" for i in _INDEX_TYPES]
    names += [
        f"strided_index<{c}, {i}, {m}>"
        for c in _CARRIERS.values()
        for i in _INDEX_TYPES
        for m in range(5)
    ]
    names += [f"strided_index_rows<{c}, {i}>" for c in _CARRIERS.values() for i in _INDEX_TYPES]
    return names


def _add_instantiations():
    names = [f"strided_index_add<{_launch.C_TYPES[d]}, {i}>" for d in _ALL for i in _INDEX_TYPES]
    names += [
        f"strided_index_add_sorted<{_launch.C_TYPES[d]}, {i}>"
        for d in _IN_ORDER
        for i in _INDEX_TYPES
    ]
    return names


def _nonzero_instantiations():
    return ["strided_nonzero_count", "strided_nonzero_write"]


def _search_instantiations():
    return [f"strided_searchsorted<{_launch.C_TYPES[d]}, {i}>" for d in _REAL for i in _INDEX_TYPES]


_MODULES = {
    ("index", "move"): _move_instantiations,
    ("index", "add"): _add_instantiations,
    ("nonzero",): _nonzero_instantiations,
    ("searchsorted",): _search_instantiations,
}


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(key, "index.cu", fn()) for key, fn in _MODULES.items()]


def _function(backend, key, name):
    return _launch.get_function(backend, key, "index.cu", _MODULES[key], name)


def _row_major_loop(shape, strides):
    """The loop over ``shape`` (outermost first) with per-operand byte ``strides``: size-1
    dims dropped, neighbours merged where every operand allows, order kept; innermost first,
    as the kernels read it (the iterator's ``loop_dims``, without reordering)."""
    return _iter.loop_dims(shape, strides)


# Note [Kept plans of the index launches]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A gather or scatter is two to three launches over the same loop, and a training step makes
# the same ones at every step (cross-entropy's pick of the target's column, and its backward's
# scatter). What ``_launch_loop`` works out before a launch depends on the loop's shape, the
# operands' byte strides and item sizes and the kernel's template, never on the addresses: the
# coalesced loop, whether it counts in 32 bits, the compiled function, the element count. So
# that answer is kept under exactly those inputs (and the backend), as the eager matmul keeps
# its cuBLAS calls (Note [Planned cuBLAS calls in eager mode] in _linalg.py), and a launch
# with a kept plan only packs this call's addresses (Note [Kept launch plans] in _launch.py).
_LOOP_PLANS = _launch.KeptPlans()


def _launch_loop(backend, key, template, shape, strides, data, itemsizes, extra=()):
    """Launch ``template.format(index=...)`` over a row-major loop (see _row_major_loop), by
    a kept plan where there is one (Note [Kept plans of the index launches])."""
    plan_key = (id(backend), key, template, tuple(shape), tuple(itemsizes), *map(tuple, strides))
    plan = _LOOP_PLANS.get(plan_key)
    if plan is None:
        n = math.prod(shape)
        if n == 0:
            return
        loop_shape, loop_strides = _row_major_loop(shape, strides)
        idx32 = _launch.use_int32(loop_shape, loop_strides, itemsizes)
        fn = _function(backend, key, template.format(index="int32_t" if idx32 else "int64_t"))
        plan = (n, loop_shape, loop_strides, fn, np.int32(n) if idx32 else np.int64(n))
        _LOOP_PLANS.keep(plan_key, plan)
    n, loop_shape, loop_strides, fn, count = plan
    g = _params.geometry_bytes(loop_shape, loop_strides, data, None, _launch.MAX_DIMS)
    _launch.launch_1d(backend, fn, n, (g, count, *extra), 1)


def _byte_strides(t):
    return [s * t.itemsize for s in t.stride()]


def _same_device(t, ref, what):
    if t.device is not ref.device:
        raise ValueError(f"{what} is on {t.device}, but the indexed tensor is on {ref.device}")


# -- offsets ----------------------------------------------------------------------------------


class Offsets(NamedTuple):
    """What ``index_offsets`` makes: the int64 byte offsets, and the device address of the
    ``nbad`` slots where its kernels recorded the first bad position of each index tensor (the
    scatters read them and write nothing if one is set)."""

    tensor: object
    bad: int
    nbad: int


def index_offsets(t, dims, indices, names=None, what="an advanced index"):
    """Byte offsets into ``t`` picked by the int64 ``indices`` (one per dim in ``dims``, all on
    t's device and of one broadcast shape): an ``Offsets`` whose tensor has that shape. Checks
    every index on the device; an out-of-range one raises IndexError at the next
    synchronisation (Note [Checking indices on the device])."""
    shape = indices[0].shape
    for idx in indices:
        _same_device(idx, t, "an index tensor")
        if idx.dtype is not int64 or idx.shape != shape:
            raise ValueError("index_offsets: int64 indices of one broadcast shape, please")
    backend = backend_for(t.device)
    out = _core._empty(shape, int64, t.device)
    n = out.numel()
    if n == 0:
        return Offsets(out, 0, 0)
    backend.memset(out.data_ptr(), 0, n * 8)
    report = _bounds_report(t, dims, indices, names, what)
    retains = sum(idx.untyped_storage().nbytes for idx in indices)
    bad = backend.checks.reserve(len(indices), report, retains=retains)
    for j, (d, idx) in enumerate(zip(dims, indices, strict=True)):
        size, stride = t.shape[d], t.stride(d) * t.itemsize
        _launch_loop(
            backend,
            ("index", "move"),
            "strided_index_offsets<{index}>",
            shape,
            [_byte_strides(out), _byte_strides(idx)],
            [out.data_ptr(), idx.data_ptr()],
            [8, 8],
            (np.int64(size), np.int64(stride), np.uint64(bad + 8 * j)),
        )
    backend.checks.issued()  # STRIDED_CUDA_LAUNCH_BLOCKING: report now, before any write
    return Offsets(out, bad, len(indices))


def _bounds_report(t, dims, indices, names, what):
    """The report of an index check (Note [Errors found on the device are reported at the next
    synchronisation]): given the first bad row-major position of each index tensor, the
    IndexError for the first tensor that has one, or None."""
    shape = indices[0].shape
    sizes = [t.shape[d] for d in dims]
    names = names if names is not None else dims
    versions = [idx._version for idx in indices]
    device = t.device

    def report(first):
        for j, p in enumerate(first):
            if p == NOTHING:
                continue
            coords = tuple(int(c) for c in np.unravel_index(p, shape))
            if indices[j]._version == versions[j]:  # unchanged since the op: quote the value
                idx = indices[j][coords] if coords else indices[j]
                bad = f"index {int(idx.item())}"
            else:
                bad = f"the index at {coords} of index tensor {j}"
            return IndexError(
                f"{bad} is out of bounds for dim {names[j]} with size {sizes[j]} (found on "
                f"{device} by {what}; CUDA ops report such errors when the host next waits for "
                "the device, and a scatter that finds one writes nothing. Set "
                "STRIDED_CUDA_LAUNCH_BLOCKING=1 to have it raised by the op itself)"
            )
        return None

    return report


# -- gathers and scatters ---------------------------------------------------------------------

# Note [Gathering whole rows]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``table[idx]`` (and ``index_select``/``take`` along dim 0) on a table whose rows are
# contiguous is the commonest gather (an embedding lookup), and the two steps of Note [CUDA
# indexing is a gather over byte offsets] serve it badly: a memset and a launch build an int64
# offset per index (reading the index, then reading and writing the offsets: 3 x 8 bytes an
# index), and the gather then moves one element a thread, each thread unravelling its position
# into three operands' offsets. ``index_rows`` does it in one launch instead, moving 16-byte
# vectors of the output rows (Note [Vector loads in the contiguous elementwise loops] in
# kernels/elementwise.cu is the same idea), four a thread with all four loads issued before a
# store, each vector's row index read and checked by the thread itself (the threads of a row
# read the same 8 bytes: one broadcast load for the warp). The
# check and its report are the offsets kernel's, unchanged (Note [Checking indices on the
# device]): the same slot reserved, the same smallest bad row-major position recorded by
# atomicMin, the same IndexError at the next synchronisation. A bad index's row is written
# with zeros (the error is raised before anyone can read it) and nothing is read for it, so a
# table with no rows is never read at all. The bytes moved for good indices are the same, so
# the result is the same bits.
#
# Taken when: one index tensor (after broadcasting) whose positions are one loop (contiguous,
# stepped, reversed, 0-d; an expanded 2-D index is not), placed first in the result (``pos ==
# 0``), and the result's other dims walk a block of the table that is one contiguous run of
# bytes (the row: the table's trailing dims in row-major order). Everything else, a transposed
# table included, takes the general path. The vector is the widest of 16, 8, 4, 2, 1 bytes
# that divides the row's length, the table's address and row step and the output's address.


def _loop_strides(t, offsets, dim_map, pos):
    """Byte strides over the loop's dims of ``t`` (walked dims) and of the offsets."""
    ts, os_ = [], []
    for s, d in enumerate(dim_map):
        ts.append(t.stride(d) * t.itemsize if d >= 0 else 0)
        os_.append(offsets.stride(s - pos) * 8 if pos <= s < pos + offsets.ndim else 0)
    return ts, os_


# index_rows' 32-bit kernels count vectors below this (tests lower it to run the 64-bit one): a
# grid-stride step past the last vector (i + the grid's size, at most about 2n) stays in int32
_ROWS_INT32_LIMIT = 2**30
_ROWS_UNROLL = 4  # vectors a thread per trip: STRIDED_INDEX_ROWS_UNROLL in kernels/index.cu


def _row_bytes(t, walked, sizes):
    """The bytes of one row if the ``walked`` dims of ``t`` (of loop ``sizes``) are one
    contiguous run in row-major order, else None."""
    expected = t.itemsize
    for d, n in zip(reversed(walked), reversed(sizes), strict=True):
        if n != 1 and t.stride(d) * t.itemsize != expected:
            return None
        expected *= n
    return expected


def index_rows(t, dim, idx, dim_map, pos, out, name=None, what="an advanced index"):
    """``out = t[..., idx, ...]`` picking whole contiguous rows of ``t`` along ``dim`` with the
    int64 ``idx``, in one launch (Note [Gathering whole rows]): True if done, False if this
    gather is not one of rows (then nothing was launched or reserved)."""
    nb = idx.ndim
    if pos != 0 or idx.dtype is not int64 or out.numel() == 0 or not out.is_contiguous():
        return False
    if any(d != -1 for d in dim_map[:nb]):
        return False
    row = _row_bytes(t, dim_map[nb:], out.shape[nb:])
    if row is None:
        return False
    loop_shape, loop_strides = _row_major_loop(idx.shape, [_byte_strides(idx)])
    if len(loop_shape) > 1:
        return False
    _same_device(idx, t, "an index tensor")
    _same_device(out, t, "out")
    step = loop_strides[0][0] // 8 if loop_shape else 0
    stride = t.stride(dim) * t.itemsize
    vec = 16
    while (row | t.data_ptr() | stride | out.data_ptr()) % vec:
        vec //= 2
    per_row = row // vec
    n = out.nbytes // vec
    # the kernel's byte offsets are 64-bit (pointer arithmetic, v * stride): only the vector
    # count, divided by per_row, must fit 32-bit math
    idx32 = n < _ROWS_INT32_LIMIT
    backend = backend_for(t.device)
    report = _bounds_report(t, (dim,), (idx,), (dim if name is None else name,), what)
    bad = backend.checks.reserve(1, report, retains=idx.untyped_storage().nbytes)
    index = "int32_t" if idx32 else "int64_t"
    fn = _function(backend, ("index", "move"), f"strided_index_rows<{_CARRIERS[vec]}, {index}>")
    magic, shift = _params.int_divider(per_row) if idx32 else (0, 0)
    itype = np.int32 if idx32 else np.int64
    args = (
        np.uint64(out.data_ptr()),
        np.uint64(t.data_ptr()),
        np.uint64(idx.data_ptr()),
        np.int64(step),
        itype(n),
        itype(per_row),
        np.uint32(magic),
        np.uint32(shift),
        np.int64(t.shape[dim]),
        np.int64(stride),
        np.uint64(bad),
    )
    _launch.launch_1d(backend, fn, n, args, _ROWS_UNROLL)
    backend.checks.issued()  # STRIDED_CUDA_LAUNCH_BLOCKING: report now
    return True


def index_get(t, offsets, dim_map, pos, out):
    """Gather into ``out``: ``out[s] = t[walked dims of s, element picked by offsets]`` (the
    CPU's ``index_get``; Note [CUDA indexing is a gather over byte offsets])."""
    _same_device(out, t, "out")
    offsets = offsets.tensor  # a bad index added nothing: its element reads t's first one
    ts, os_ = _loop_strides(t, offsets, dim_map, pos)
    item = t.itemsize
    _launch_loop(
        backend_for(t.device),
        ("index", "move"),
        f"strided_index<{_CARRIERS[item]}, {{index}}, {GET}>",
        out.shape,
        [ts, _byte_strides(out), os_],
        [t.data_ptr(), out.data_ptr(), offsets.data_ptr()],
        [item, item, 8],
        (np.uint64(0), np.int64(0), np.uint64(0), np.int32(0)),
    )
    return out


def index_put(t, offsets, dim_map, pos, values, accumulate):
    """Scatter ``values`` (of t's dtype, the loop's shape) into ``t`` at the offsets; with
    ``accumulate``, add. See Note [Duplicate indices on a GPU]."""
    _same_device(values, t, "the values")
    if _core._has_internal_overlap(t):
        raise RuntimeError(
            f"index_put: the tensor has elements that share memory (an expanded or overlapping "
            f"view with shape {t.shape} and strides {t.stride()}); writing into it is "
            "ambiguous. Write into a .clone() or .contiguous() copy instead"
        )
    if values.numel() == 0:
        return t
    if _core._storage_overlap(values, t):  # read everything before writing anything
        from strided.cuda._copy import contiguous_copy

        values = contiguous_copy(values)
    backend = backend_for(t.device)
    # every write kernel first reads the offsets' bad slots, and writes nothing if one is set
    checked = (np.uint64(offsets.bad), np.int32(offsets.nbad))
    offsets = offsets.tensor
    ts, os_ = _loop_strides(t, offsets, dim_map, pos)
    vs = _byte_strides(values)
    item = t.itemsize
    strides = [ts, vs, os_]
    data = [t.data_ptr(), values.data_ptr(), offsets.data_ptr()]
    args = (values.shape, strides, data, [item, item, 8])
    if accumulate:
        if t.dtype.name in _IN_ORDER and _config.are_deterministic_algorithms_enabled():
            _add_in_order(backend, t, args, checked)
        else:
            _launch_loop(
                backend,
                ("index", "add"),
                f"strided_index_add<{_launch.C_TYPES[t.dtype.name]}, {{index}}>",
                *args,
                checked,
            )
        t._bump_version()
        return t
    carrier = _CARRIERS[item]
    # may two positions that hit one cell carry different values? only if the values move
    # along a dim the offsets walk (Note [Duplicate indices on a GPU])
    may_differ = any(o and v for o, v in zip(os_, vs, strict=True))
    if not may_differ:
        _launch_loop(
            backend,
            ("index", "move"),
            f"strided_index<{carrier}, {{index}}, {PUT}>",
            *args,
            (np.uint64(0), np.int64(0), *checked),
        )
    else:
        lo, hi = _core._storage_range(t)
        winner = _core.Storage._new(max(hi - lo, item) // item * 8, t.device)
        backend.memset(winner.data_ptr(), 0xFF, winner.nbytes)  # -1: nobody yet
        base = t.untyped_storage().data_ptr() + lo
        for mode in (CLAIM, PUT_WINNER):
            _launch_loop(
                backend,
                ("index", "move"),
                f"strided_index<{carrier}, {{index}}, {mode}>",
                *args,
                (np.uint64(winner.data_ptr()), np.int64(base), *checked),
            )
    t._bump_version()
    return t


def _add_in_order(backend, t, args, checked):
    """The accumulating scatter of Note [Deterministic algorithms] (strided/_config.py): the
    cell of every loop position (one launch), a stable sort by cell, then one thread per cell
    adds its values in row-major order."""
    shape = args[0]
    n = math.prod(shape)
    lo, _ = _core._storage_range(t)
    cells = _core._empty((n,), int64, t.device)
    base = t.untyped_storage().data_ptr() + lo
    carrier = _CARRIERS[t.itemsize]
    _launch_loop(
        backend,
        ("index", "move"),
        f"strided_index<{carrier}, {{index}}, {SLOT}>",
        *args,
        (np.uint64(cells.data_ptr()), np.int64(base), *checked),
    )
    keys, order = _sort.sort(cells, 0, False, True, True)
    # the loop is the values' row-major order, as above; keys and order ride along
    _launch_loop(
        backend,
        ("index", "add"),
        f"strided_index_add_sorted<{_launch.C_TYPES[t.dtype.name]}, {{index}}>",
        *args,
        (np.uint64(keys.data_ptr()), np.uint64(order.data_ptr()), *checked),
    )


# -- nonzero ----------------------------------------------------------------------------------

_NONZERO_GEOMETRY = np.dtype(
    [
        ("sizes", "<i8", (_launch.MAX_DIMS,)),
        ("row_stride", "<i8"),
        ("coord_stride", "<i8"),
        ("ndim", "<i4"),
    ],
    align=True,
)


def nonzero(m, coords_last):
    """The coordinates of the true elements of the contiguous bool tensor ``m``, in row-major
    order: an int64 tensor (n, ndim) if ``coords_last``, else (ndim, n). Synchronises: see
    Note [nonzero on a GPU synchronises]."""
    if not m.is_contiguous() or m.dtype.name != "bool":
        raise ValueError("nonzero: expects a contiguous bool tensor")
    if m.ndim > _launch.MAX_DIMS:
        raise NotImplementedError(f"nonzero: at most {_launch.MAX_DIMS} dims on a CUDA device")
    backend = backend_for(m.device)
    n, nd = m.numel(), m.ndim
    total = 0
    if n:
        # chunks of whole tiles, enough of them to fill a GPU, few enough to read back cheaply
        blocks = min(max(1, math.ceil(n / (BLOCK * 16))), 2048)
        chunk = math.ceil(math.ceil(n / blocks) / BLOCK) * BLOCK
        blocks = math.ceil(n / chunk)
        counts = _core.Storage._new(8 * blocks, m.device)
        fn = _function(backend, ("nonzero",), "strided_nonzero_count")
        args = (np.uint64(m.data_ptr()), np.int64(n), np.int64(chunk))
        backend.launch(fn, (blocks,), (BLOCK,), (*args, np.uint64(counts.data_ptr())))
        host = np.empty(blocks, dtype=np.int64)
        backend.copy_to_host(host.ctypes.data, counts.data_ptr(), 8 * blocks)  # the sync
        starts = np.zeros(blocks, dtype=np.int64)
        np.cumsum(host[:-1], out=starts[1:])
        total = int(host.sum())
    out = _core._empty((total, nd) if coords_last else (nd, total), int64, m.device)
    if total and nd:
        backend.copy_from_host(counts.data_ptr(), starts.ctypes.data, 8 * blocks)
        g = np.zeros((), dtype=_NONZERO_GEOMETRY)
        g["sizes"][:nd] = m.shape[::-1]
        g["row_stride"], g["coord_stride"] = (nd, 1) if coords_last else (1, total)
        g["ndim"] = nd
        fn = _function(backend, ("nonzero",), "strided_nonzero_write")
        backend.launch(
            fn,
            (blocks,),
            (BLOCK,),
            (*args, np.uint64(counts.data_ptr()), np.uint64(out.data_ptr()), g[()]),
        )
    return out


# -- searchsorted -----------------------------------------------------------------------------


def searchsorted(x1, x2, out, right):
    """out[i] = the position of x2[i] in the sorted, contiguous 1-D ``x1`` (same dtype), NaN
    sorting last (the CPU's ``searchsorted`` in _cpu/search.pyx.tp)."""
    _same_device(x2, x1, "x2")
    _same_device(out, x1, "out")
    if _half.is_half(x1) and x2.dtype is x1.dtype:
        # Note [CUDA half precision through float32]: widening keeps every value and the order
        return searchsorted(_half.widen(x1), _half.widen(x2), out, right)
    if x1.dtype is not x2.dtype or not x1.is_contiguous() or x1.dtype.name not in _REAL:
        raise ValueError("searchsorted: x1 contiguous and of x2's (real) dtype, please")
    _launch_loop(
        backend_for(x1.device),
        ("searchsorted",),
        f"strided_searchsorted<{_launch.C_TYPES[x1.dtype.name]}, {{index}}>",
        x2.shape,
        [_byte_strides(out), _byte_strides(x2)],
        [out.data_ptr(), x2.data_ptr()],
        [8, x2.itemsize],
        (np.uint64(x1.data_ptr()), np.int64(x1.numel()), np.int32(bool(right))),
    )
    return out
