"""Indexing kernels: gather and scatter through checked byte offsets.

The Python half (``strided/_ops/indexing.py``) turns ``x[idx]``, ``x[idx] = v``, ``take``,
``gather``, ``scatter_add``, ``index_add`` and friends into three calls: ``index_offsets`` of
``offsets.pyx`` (check every index once, and turn the indices into byte offsets: step 1 below),
then ``index_get`` or ``index_put`` here (loops that trust those offsets: step 2).

Note [Advanced indexing is a gather over offsets]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Take ``x[:, i, j]`` with ``x`` of shape (A, B, C) and integer tensors ``i``, ``j`` that broadcast
to shape (K,). Element ``out[a, k]`` is ``x[a, i[k], j[k]]``, which lives at byte::

    x.data + a*stride0 + i[k]*stride1 + j[k]*stride2      (strides in bytes)
             ---------   ---------------------------
             walks x's    one number per index position k:
             other dims   offsets[k], computed once

So advanced indexing splits into two steps, which is NumPy's *mapiter* idea (and PyTorch's
``index`` kernel on its TensorIterator):

1. ``index_offsets`` (``offsets.pyx``): for every position of the broadcast index shape, add up
   ``index * stride`` over the indexed dims, after wrapping negative indices once and checking
   every one against its dim's size. The result is one int64 tensor of byte offsets.
2. A loop over the result's shape with three operands: the output, ``x`` *restrided* (its own
   strides on the dims it keeps, stride 0 on the dims the offsets stand for) and the offsets
   (their strides on the index dims, 0 elsewhere). Each element is a load from
   ``data[1] + offsets[i]``: a gather. The loop plan (``_iter.pyx``) reorders and coalesces
   these three operands like any others, so ``x[idx]`` of whole rows becomes one ``memcpy``-like
   copy per row (the offset is constant along the row), and a 1-D ``x[idx]`` one tight loop.

With a single index array (``x[idx]``, ``take``, ``gather``, ``index_add``: the common case)
step 1 writes nothing: it only checks the indices, and the loops compute
``wrap(index) * stride`` on the fly, saving a pass over memory. A boolean mask is turned into
byte offsets directly, in one pass (``mask_offsets``), without its coordinates in between.

Because step 1 checks every index before step 2 reads or writes a byte, the loops need no
bounds checks, and a call with one bad index fails having written nothing. The offsets come in an
``IndexOffsets`` object that only ``index_offsets`` (and ``mask_offsets``) make, and that
remembers which tensor and which dims it was checked for; ``index_get`` and ``index_put`` refuse
any other tensor and check that every other dim of it is walked within its size. Holding an
``IndexOffsets`` is the proof that the unchecked loops stay inside the storage.

One exception, for speed: a *gather* of one index array may skip step 1 (``check=False``) and
check each index just before its load instead, in the same pass, as NumPy's ``take`` does. It
writes only into its own fresh output, which is dropped when it raises, so stopping half-way
is harmless; a scatter refuses such offsets.

Note [Duplicate indices]
~~~~~~~~~~~~~~~~~~~~~~~~
Reading the same element twice is harmless, so a gather splits its output across threads like
any elementwise op. Writing is not: in ``x[[0, 0]] = [1, 2]`` both writes hit one cell, and the
answer depends on which lands last; in ``scatter_add`` both *add* to one cell, and two threads
doing ``cell += v`` at once lose one of the additions (a data race), while a different split of
the work adds floats in a different order and rounds differently.

``index_put`` therefore sorts the loop's dims into two groups:

* **independent dims** (P): dims that walk a dim of ``x`` itself (``dim_map[s] >= 0``). Two
  positions that differ along such a dim touch different elements of ``x``, which, being
  checked free of internal overlap, are different cells. These dims are split across threads.
* **index dims** (I): the dims the offsets stand for. Two positions that differ only here may
  hit the same cell. They are always walked by one thread, in row-major order.

Every cell is therefore written by one thread, in the order of the index positions, whatever the
number of threads: the last write wins exactly as in a sequential loop (NumPy's answer), and
accumulated sums are bitwise the same with 1 thread or 16. When there are no independent dims
to split (``x[idx] = v`` on a 1-D ``x``) the write is serial; that is the price of determinism.
PyTorch instead lets ``index_put_`` race on duplicates and documents the result as undefined.
"""

from cython.parallel cimport prange
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from strided._cpu.chunks cimport nchunks as _nchunks
from strided._cpu.chunks cimport run_chunked
from strided._cpu.offsets cimport (
    IndexOffsets,
    check_unchecked,
    raise_out_of_bounds,
)
from strided._cpu.offsets cimport byte_offset as _offset
from strided._cpu.words cimport word128, word_t
from strided._core cimport MAX_DIMS, TensorBase, may_have_internal_overlap, storage_overlap
from strided._dtype cimport (
    kBool,
    kComplex64,
    kFloat32,
    kFloat64,
    kInt8,
    kInt16,
    kInt32,
    kInt64,
    kUInt8,
    kUInt16,
    kUInt32,
    kUInt64,
)
from strided._iter cimport (
    GRAIN_SIZE,
    LoopPlan,
    loop1d_fn,
    num_threads,
    plan_coalesce,
    plan_init,
    plan_reorder,
    plan_run,
    plan_run_range,
    plan_set_operand,
)

import numpy as np

ctypedef float complex cfloat_t
ctypedef double complex cdouble_t

cdef enum:
    # index_put splits its independent dims across threads only when each thread gets at least
    # this many of their positions; below it, the independent dims run inside the index loop.
    MIN_SPLIT = 16


# =============================================================================================
# Step 2: the loops. data[0] = the values (out for a gather, source for a scatter), data[1] =
# the indexed tensor, restrided, data[2] = the byte offsets (int64).
# =============================================================================================

# word128 and word_t (elements by width) come from _cpu/words.pxd.

ctypedef struct IndexCtx:
    Py_ssize_t width        # itemsize: what a gather or scatter moves
    int num                 # the ScalarType code: how an accumulation adds
    int64_t wrap            # see IndexOffsets
    int64_t scale
    bint check              # the indices are unchecked: check each (wrap is the dim's size)
    bint bad                # ... and one was out of range


cdef inline void _gather_checked(char** data, const Py_ssize_t* s, Py_ssize_t n, IndexCtx* c,
                                 word_t* kind) noexcept nogil:
    """The gather of unchecked indices: each index is checked before its load, and a bad one
    loads nothing (its output is never seen: the call raises)."""
    cdef Py_ssize_t i, sv = s[0], st = s[1], so = s[2]
    cdef char* v = data[0]
    cdef char* src = data[1]
    cdef char* off = data[2]
    cdef int64_t k, size = c.wrap, scale = c.scale
    cdef bint bad = False
    for i in range(n):
        k = (<int64_t*>(off + i * so))[0]
        if k < 0:
            k += size
        if <uint64_t>k < <uint64_t>size:
            (<word_t*>(v + i * sv))[0] = (<word_t*>(src + i * st + k * scale))[0]
        else:
            bad = True
    if bad:
        c.bad = True


cdef inline void _gather(char** data, const Py_ssize_t* s, Py_ssize_t n, const IndexCtx* c,
                         word_t* kind) noexcept nogil:
    """values[i] = *(tensor + i*s1 + offset(i)), for one width of word."""
    cdef Py_ssize_t i, sv = s[0], st = s[1], so = s[2]
    cdef char* v = data[0]
    cdef char* src = data[1]
    cdef char* off = data[2]
    cdef int64_t wrap = c.wrap, scale = c.scale
    if so == 0:
        # one offset for the whole row (whole rows picked by the index): a strided copy
        src += _offset(off, wrap, scale)
        if sv == sizeof(word_t) and st == sizeof(word_t):
            memcpy(v, src, n * sizeof(word_t))
        else:
            for i in range(n):
                (<word_t*>(v + i * sv))[0] = (<word_t*>(src + i * st))[0]
    elif st == 0 and sv == sizeof(word_t) and so == sizeof(int64_t):
        # the pure gather: contiguous values and indices
        for i in range(n):
            (<word_t*>v)[i] = (<word_t*>(src + _offset(off + i * 8, wrap, scale)))[0]
    else:
        for i in range(n):
            (<word_t*>(v + i * sv))[0] = \
                (<word_t*>(src + i * st + _offset(off + i * so, wrap, scale)))[0]


cdef inline void _scatter(char** data, const Py_ssize_t* s, Py_ssize_t n, const IndexCtx* c,
                          word_t* kind) noexcept nogil:
    """*(tensor + i*s1 + offset(i)) = values[i], in order, for one width of word."""
    cdef Py_ssize_t i, sv = s[0], st = s[1], so = s[2]
    cdef char* v = data[0]
    cdef char* dst = data[1]
    cdef char* off = data[2]
    cdef int64_t wrap = c.wrap, scale = c.scale
    if so == 0:
        dst += _offset(off, wrap, scale)
        if sv == sizeof(word_t) and st == sizeof(word_t):
            memcpy(dst, v, n * sizeof(word_t))
        else:
            for i in range(n):
                (<word_t*>(dst + i * st))[0] = (<word_t*>(v + i * sv))[0]
    else:
        for i in range(n):
            (<word_t*>(dst + i * st + _offset(off + i * so, wrap, scale)))[0] = \
                (<word_t*>(v + i * sv))[0]


cdef void gather_loop(char** data, const Py_ssize_t* s, Py_ssize_t n, void* ctx) noexcept nogil:
    """The 1-D loop of a gather; ctx is an IndexCtx (only the width of the values matters)."""
    cdef IndexCtx* c = <IndexCtx*>ctx
    cdef int64_t k
    if c.check and s[2] == 0:
        # one index for the whole row: check it here, then copy the row unchecked
        k = (<int64_t*>data[2])[0]
        if k < -c.wrap or k >= c.wrap:
            c.bad = True
            return
    if c.check and s[2] != 0:
        if c.width == 1:
            _gather_checked[uint8_t](data, s, n, c, NULL)
        elif c.width == 2:
            _gather_checked[uint16_t](data, s, n, c, NULL)
        elif c.width == 4:
            _gather_checked[uint32_t](data, s, n, c, NULL)
        elif c.width == 8:
            _gather_checked[uint64_t](data, s, n, c, NULL)
        else:
            _gather_checked[word128](data, s, n, c, NULL)
    elif c.width == 1:
        _gather[uint8_t](data, s, n, c, NULL)
    elif c.width == 2:
        _gather[uint16_t](data, s, n, c, NULL)
    elif c.width == 4:
        _gather[uint32_t](data, s, n, c, NULL)
    elif c.width == 8:
        _gather[uint64_t](data, s, n, c, NULL)
    else:
        _gather[word128](data, s, n, c, NULL)


cdef void scatter_loop(char** data, const Py_ssize_t* s, Py_ssize_t n,
                       void* ctx) noexcept nogil:
    """The 1-D loop of a scatter (assignment); ctx is an IndexCtx."""
    cdef const IndexCtx* c = <const IndexCtx*>ctx
    if c.width == 1:
        _scatter[uint8_t](data, s, n, c, NULL)
    elif c.width == 2:
        _scatter[uint16_t](data, s, n, c, NULL)
    elif c.width == 4:
        _scatter[uint32_t](data, s, n, c, NULL)
    elif c.width == 8:
        _scatter[uint64_t](data, s, n, c, NULL)
    else:
        _scatter[word128](data, s, n, c, NULL)


# Accumulation needs the values' meaning, not just their width, except for integers: two's
# complement addition is the same bits for signed and unsigned, and unsigned overflow wraps in C
# (signed overflow would be undefined), so every integer adds as the unsigned type of its width.
ctypedef fused acc_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double
    cfloat_t
    cdouble_t


cdef inline void _accumulate(char** data, const Py_ssize_t* s, Py_ssize_t n, const IndexCtx* c,
                             acc_t* kind) noexcept nogil:
    """*(tensor + i*s1 + offset(i)) += values[i], in order."""
    cdef Py_ssize_t i, sv = s[0], st = s[1], so = s[2]
    cdef int64_t wrap = c.wrap, scale = c.scale
    cdef acc_t* cell
    for i in range(n):
        cell = <acc_t*>(data[1] + i * st + _offset(data[2] + i * so, wrap, scale))
        cell[0] = cell[0] + (<acc_t*>(data[0] + i * sv))[0]


cdef void _accumulate_bool(char** data, const Py_ssize_t* s, Py_ssize_t n,
                           const IndexCtx* c) noexcept nogil:
    """*cell = *cell or values[i]: bool addition as NumPy's ``np.add.at`` does it."""
    cdef Py_ssize_t i, sv = s[0], st = s[1], so = s[2]
    cdef uint8_t* cell
    for i in range(n):
        cell = <uint8_t*>(data[1] + i * st + _offset(data[2] + i * so, c.wrap, c.scale))
        cell[0] = (cell[0] | (<uint8_t*>(data[0] + i * sv))[0]) != 0


cdef void accumulate_loop(char** data, const Py_ssize_t* s, Py_ssize_t n,
                          void* ctx) noexcept nogil:
    """The 1-D loop of a scatter-add; ctx is an IndexCtx (its dtype code picks the addition)."""
    cdef const IndexCtx* c = <const IndexCtx*>ctx
    cdef int num = c.num
    if num == kBool:
        _accumulate_bool(data, s, n, c)
    elif num == kInt8 or num == kUInt8:
        _accumulate[uint8_t](data, s, n, c, NULL)
    elif num == kInt16 or num == kUInt16:
        _accumulate[uint16_t](data, s, n, c, NULL)
    elif num == kInt32 or num == kUInt32:
        _accumulate[uint32_t](data, s, n, c, NULL)
    elif num == kInt64 or num == kUInt64:
        _accumulate[uint64_t](data, s, n, c, NULL)
    elif num == kFloat32:
        _accumulate[float](data, s, n, c, NULL)
    elif num == kFloat64:
        _accumulate[double](data, s, n, c, NULL)
    elif num == kComplex64:
        _accumulate[cfloat_t](data, s, n, c, NULL)
    else:
        _accumulate[cdouble_t](data, s, n, c, NULL)


# =============================================================================================
# index_get and index_put: checks, then the plan
# =============================================================================================

cdef int _check_index_args(TensorBase t, IndexOffsets off, tuple dim_map, Py_ssize_t pos,
                           TensorBase values, Py_ssize_t* data_strides,
                           Py_ssize_t* off_strides, str fn) except -1:
    """Check that the loop over ``values``' shape stays inside ``t`` (see Note [Advanced
    indexing is a gather over offsets]), and fill the restrided operands' element strides.

    Loop dim s walks dim ``dim_map[s]`` of t (-1: none); the offsets' dims are loop dims
    pos, pos+1, ...; every dim of t is walked by the loop or picked by the offsets, once.
    """
    cdef int s, d, nd = values._ndim
    cdef int nb = off.offsets._ndim
    cdef bint covered[MAX_DIMS]
    if off.tensor is not t:
        raise ValueError(f"{fn}: the offsets were checked for another tensor")
    if values.dtype is not t.dtype:
        raise TypeError(f"{fn}: values are {values.dtype.name}, the tensor {t.dtype.name}")
    if not t._storage.device.is_cpu or not values._storage.device.is_cpu:
        raise NotImplementedError(f"{fn} on the GPU needs the CUDA backend")
    if len(dim_map) != nd or pos < 0 or pos + nb > nd:
        raise ValueError(f"{fn}: dim_map {dim_map} and pos {pos} do not fit a loop of shape "
                         f"{values.shape} with index shape {off.offsets.shape}")
    for d in range(t._ndim):
        covered[d] = False
    for d in off.dims:
        covered[d] = True
    for s in range(nd):
        d = dim_map[s]
        if d == -1:
            data_strides[s] = 0
        elif 0 <= d < t._ndim and not covered[d] and values._sizes[s] <= t._sizes[d]:
            covered[d] = True
            data_strides[s] = t._strides[d]
        else:
            raise ValueError(f"{fn}: loop dim {s} of shape {values.shape} cannot walk dim {d} "
                             f"of a tensor of shape {t.shape} (dim_map {dim_map})")
        if pos <= s < pos + nb:
            if values._sizes[s] != off.offsets._sizes[s - pos]:
                raise ValueError(f"{fn}: loop shape {values.shape} does not hold the index "
                                 f"shape {off.offsets.shape} at dim {pos}")
            off_strides[s] = off.offsets._strides[s - pos]
        else:
            off_strides[s] = 0
    for d in range(t._ndim):
        if not covered[d]:
            raise ValueError(f"{fn}: dim {d} of the tensor is neither walked nor indexed")
    return 0


# What the last index_get / index_put did, for explain() and tests (kept in C: a few stores).
cdef int _last_kernel = -1
cdef bint _last_parallel = False
cdef Py_ssize_t _last_chunks = 0
cdef Py_ssize_t _last_independent = 0
cdef Py_ssize_t _last_serial = 0
_KERNEL_NAMES = ("gather_loop", "scatter_loop", "accumulate_loop")


def last_index_plan():
    """What the most recent gather or scatter did: its kernel, how many positions of the loop
    were independent (split across threads) and how many were walked in order by one thread
    (see Note [Duplicate indices]), and how many threads ran it. A teaching aid.

    Examples
    --------
    >>> import strided
    >>> x = strided.zeros((4, 3))
    >>> x[strided.asarray([0, 0, 2])] = 1.0
    >>> plan = strided._cpu.index.last_index_plan()
    >>> plan["kernel"], plan["independent"], plan["in_order"]
    ('scatter_loop', 3, 3)
    """
    if _last_kernel < 0:
        return None
    return {
        "kernel": _KERNEL_NAMES[_last_kernel],
        "independent": _last_independent,
        "in_order": _last_serial,
        "threads": _last_chunks,
        "parallel": _last_parallel,
    }


def index_get(TensorBase t, IndexOffsets off, tuple dim_map, Py_ssize_t pos, TensorBase out):
    """Gather into ``out``: ``out[s] = t[walked dims of s, indices picked by offsets]``.

    ``dim_map[s]`` is the dim of ``t`` that loop dim s walks (-1 for none) and the offsets'
    dims sit at loop dims ``pos, pos+1, ...`` (see Note [Advanced indexing is a gather over
    offsets]). ``out`` must be writable and not share memory with ``t``.
    """
    global _last_kernel, _last_parallel, _last_chunks, _last_independent, _last_serial
    cdef Py_ssize_t data_strides[MAX_DIMS]
    cdef Py_ssize_t off_strides[MAX_DIMS]
    cdef LoopPlan plan
    cdef IndexCtx ctx
    cdef IndexCtx* ctxs
    cdef Py_ssize_t width = t.dtype.itemsize, nchunks, c
    cdef bint parallel, bad = False
    _check_index_args(t, off, dim_map, pos, out, data_strides, off_strides, "index_get")
    if not out._storage.writable or may_have_internal_overlap(out) or storage_overlap(out, t):
        raise ValueError("index_get: out must be writable, without overlapping elements, and "
                         "apart from the indexed tensor")
    if out._numel == 0:
        if not off.checked:
            check_unchecked(off)
        return out
    plan_init(&plan, 3, out._ndim, out._sizes)
    plan_set_operand(&plan, 0, out._data(), out._strides, width)
    plan_set_operand(&plan, 1, t._data(), data_strides, width)
    plan_set_operand(&plan, 2, off.offsets._data(), off_strides, 8)
    plan_reorder(&plan)
    plan_coalesce(&plan)
    ctx.width = width
    ctx.wrap = off.wrap
    ctx.scale = off.scale
    ctx.check = not off.checked
    ctx.bad = False
    if off.checked and plan.numel < GRAIN_SIZE:
        parallel = plan_run(&plan, gather_loop, &ctx)
    elif off.checked:
        with nogil:
            parallel = plan_run(&plan, gather_loop, &ctx)
    else:  # each chunk reports its bad indices in its own context
        nchunks = _nchunks(plan.numel, plan.numel)
        ctxs = <IndexCtx*>malloc(nchunks * sizeof(IndexCtx))
        if ctxs == NULL:
            raise MemoryError()
        for c in range(nchunks):
            ctxs[c] = ctx
        if nchunks > 1:
            with nogil:
                run_chunked(&plan, gather_loop, <char*>ctxs, sizeof(IndexCtx), nchunks)
        else:
            run_chunked(&plan, gather_loop, <char*>ctxs, sizeof(IndexCtx), 1)
        for c in range(nchunks):
            bad = bad or ctxs[c].bad
        free(ctxs)
        parallel = nchunks > 1
        if bad:
            raise_out_of_bounds(off)
    _last_kernel = 0
    _last_parallel = parallel
    _last_chunks = num_threads() if parallel else 1
    _last_independent = plan.numel
    _last_serial = 0
    out._storage.version += 1
    return out


cdef void _run_nested(const LoopPlan* outer, const LoopPlan* inner, loop1d_fn loop, void* ctx,
                      Py_ssize_t begin, Py_ssize_t end) noexcept nogil:
    """For each position of ``outer``, in row-major order, run elements [begin, end) of
    ``inner`` with every operand moved by outer's strides to that position.

    The operands' base pointers are inner's; outer only contributes strides. The outer
    position is an odometer (no divisions), and a 1-D inner range is one call of the loop.
    """
    cdef LoopPlan local
    cdef Py_ssize_t idx[MAX_DIMS]
    cdef char* ptrs[4]
    cdef int d, k, nops = inner.noperands
    cdef bint flat = inner.ndim == 1
    if begin >= end:
        return
    memcpy(&local, inner, sizeof(LoopPlan))
    for d in range(outer.ndim):
        idx[d] = 0
    for _ in range(outer.numel):
        if flat:  # the usual case after coalescing: one call, no odometer
            for k in range(nops):
                ptrs[k] = local.data[k] + begin * inner.stride_bytes[0][k]
            loop(ptrs, inner.stride_bytes[0], end - begin, ctx)
        else:
            plan_run_range(&local, loop, ctx, begin, end)
        # advance the outer odometer, moving every operand with it
        for d in range(outer.ndim):
            idx[d] += 1
            if idx[d] < outer.shape[d]:
                for k in range(nops):
                    local.data[k] += outer.stride_bytes[d][k]
                break
            idx[d] = 0
            for k in range(nops):
                local.data[k] -= (outer.shape[d] - 1) * outer.stride_bytes[d][k]


cdef void _run_split(const LoopPlan* serial, const LoopPlan* split, loop1d_fn loop, void* ctx,
                     Py_ssize_t nchunks) noexcept nogil:
    """Threads take ranges of the independent positions; each walks every index position in
    order for its range (see Note [Duplicate indices])."""
    cdef Py_ssize_t c, chunk = (split.numel + nchunks - 1) // nchunks
    for c in prange(nchunks, num_threads=nchunks, schedule="static"):
        _run_nested(serial, split, loop, ctx, c * chunk, min(split.numel, (c + 1) * chunk))


def index_put(TensorBase t, IndexOffsets off, tuple dim_map, Py_ssize_t pos, TensorBase values,
              bint accumulate=False):
    """Scatter ``values`` into ``t`` (``accumulate``: add them), the reverse of ``index_get``.

    Duplicate indices are written in the order of the index positions, by one thread, whatever
    the thread count: the last write wins, and sums do not depend on the number of threads (see
    Note [Duplicate indices]). ``values`` that share memory with ``t`` are copied aside first.
    """
    global _last_kernel, _last_parallel, _last_chunks, _last_independent, _last_serial
    cdef Py_ssize_t data_strides[MAX_DIMS]
    cdef Py_ssize_t off_strides[MAX_DIMS]
    cdef Py_ssize_t psizes[MAX_DIMS]
    cdef Py_ssize_t pst[3][MAX_DIMS]
    cdef Py_ssize_t isizes[MAX_DIMS]
    cdef Py_ssize_t ist[3][MAX_DIMS]
    cdef LoopPlan pplan, iplan
    cdef int s, npd = 0, nid = 0
    cdef Py_ssize_t width = t.dtype.itemsize, nchunks = 1
    cdef loop1d_fn loop
    cdef IndexCtx ctx
    cdef TensorBase offsets = off.offsets
    _check_index_args(t, off, dim_map, pos, values, data_strides, off_strides, "index_put")
    if not off.checked:
        raise ValueError("index_put: the offsets must be checked first (index_offsets(check="
                         "True)): a scatter may not stop half-way")
    if not t._storage.writable:
        raise ValueError("index_put: the tensor is read-only (it views read-only memory)")
    if may_have_internal_overlap(t):
        raise RuntimeError(
            f"index_put: the tensor has elements that share memory (an expanded or overlapping "
            f"view with shape {t.shape} and strides {t.stride()}); writing into it is "
            "ambiguous. Write into a .clone() or .contiguous() copy instead")
    if values._numel == 0:
        return t
    if storage_overlap(values, t) or storage_overlap(offsets, t):
        # read everything before writing anything (x[x] = v: the indices are x itself)
        from strided._cpu.copy import contiguous_copy
        if storage_overlap(values, t):
            values = contiguous_copy(values)
        if storage_overlap(offsets, t):
            offsets = contiguous_copy(offsets)
            for s in range(values._ndim):
                if pos <= s < pos + offsets._ndim:
                    off_strides[s] = offsets._strides[s - pos]
    # Split the loop dims (see Note [Duplicate indices]): P walk t itself, I are index dims.
    for s in range(values._ndim):
        if values._sizes[s] == 1:
            continue
        if dim_map[s] >= 0:
            psizes[npd] = values._sizes[s]
            pst[0][npd] = values._strides[s]
            pst[1][npd] = data_strides[s]
            pst[2][npd] = off_strides[s]
            npd += 1
        else:
            isizes[nid] = values._sizes[s]
            ist[0][nid] = values._strides[s]
            ist[1][nid] = data_strides[s]
            ist[2][nid] = off_strides[s]
            nid += 1
    plan_init(&pplan, 3, npd, psizes)
    plan_set_operand(&pplan, 0, values._data(), pst[0], width)
    plan_set_operand(&pplan, 1, t._data(), pst[1], width)
    plan_set_operand(&pplan, 2, offsets._data(), pst[2], 8)
    plan_reorder(&pplan)   # free: independent positions may run in any order
    plan_coalesce(&pplan)
    plan_init(&iplan, 3, nid, isizes)
    plan_set_operand(&iplan, 0, values._data(), ist[0], width)
    plan_set_operand(&iplan, 1, t._data(), ist[1], width)
    plan_set_operand(&iplan, 2, offsets._data(), ist[2], 8)
    plan_coalesce(&iplan)  # merging keeps row-major order; reordering would not
    ctx.width = width
    ctx.num = t.dtype.num
    ctx.wrap = off.wrap
    ctx.scale = off.scale
    loop = accumulate_loop if accumulate else scatter_loop
    _last_kernel = 2 if accumulate else 1
    if pplan.numel < MIN_SPLIT:
        # few independent positions: each runs the whole index loop, one after the other
        _run_nested(&pplan, &iplan, loop, &ctx, 0, iplan.numel)
    else:
        nchunks = _nchunks(values._numel, pplan.numel // MIN_SPLIT)
        if nchunks > 1:
            with nogil:
                _run_split(&iplan, &pplan, loop, &ctx, nchunks)
        else:
            _run_nested(&iplan, &pplan, loop, &ctx, 0, pplan.numel)
    _last_parallel = nchunks > 1
    _last_chunks = nchunks
    _last_independent = pplan.numel
    _last_serial = iplan.numel
    t._storage.version += 1
    return t


# =============================================================================================
# Which indices are advanced (for Tensor.__setitem__: compiled, since every x[i] = v asks)
# =============================================================================================

cdef object _np_bool = np.bool_
cdef object _np_ndarray = np.ndarray


cdef bint _advanced_item(object item):
    cdef type tp = type(item)
    if tp is int or tp is slice or item is None or item is Ellipsis:
        return False
    if tp is bool or tp is _np_bool:
        return True
    if isinstance(item, TensorBase):
        return (<TensorBase>item)._ndim != 0 or (<TensorBase>item).dtype.kind not in "iu"
    if isinstance(item, _np_ndarray):
        return item.ndim != 0 or item.dtype.kind not in "iu"
    if isinstance(item, (list, tuple)):
        return True
    # NumPy integers and anything else with __index__ are basic; anything else is an error,
    # which the advanced path names
    return not hasattr(tp, "__index__")


cpdef bint is_advanced(object index):
    """Whether ``x[index]`` is advanced indexing (integer arrays, masks, bools: a copy) rather
    than basic indexing (ints, slices, None, ...: a view)."""
    if type(index) is tuple:
        for item in <tuple>index:
            if _advanced_item(item):
                return True
        return False
    return _advanced_item(index)
