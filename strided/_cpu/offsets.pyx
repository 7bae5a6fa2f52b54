"""Step 1 of advanced indexing: check the indices once, and turn them into byte offsets.

``index_offsets`` (integer indices) and ``mask_offsets`` (a boolean mask) make an
``IndexOffsets``: where each position of the broadcast index lands in the indexed tensor, every
index checked against its dim's size, negative ones wrapped once. Step 2, the gather and scatter
loops of ``index.pyx.tp``, trusts these offsets and checks nothing per element. See Note [Advanced
indexing is a gather over offsets] in ``index.pyx.tp``: holding an IndexOffsets is the proof that
those unchecked loops stay inside the storage, which is why only this module makes them.
"""

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from strided._cpu.chunks cimport nchunks as _nchunks
from strided._cpu.chunks cimport run_chunked
from strided._cpu.mask cimport nonzero_kernel
from strided._core cimport MAX_DIMS, TensorBase, empty_tensor
from strided._dtype cimport DType, dtype_from_num, kInt64
from strided._iter cimport (
    LoopPlan,
    loop1d_fn,
    plan_coalesce,
    plan_init,
    plan_reorder,
    plan_set_operand,
)

import numpy as np


cdef class IndexOffsets:
    """Where each position of a broadcast index lands in ``tensor``, already checked.

    Made only by ``index_offsets`` and ``mask_offsets``. Position i lands
    ``(v + (wrap if v < 0 else 0)) * scale`` bytes from ``tensor``'s first element, where ``v``
    is element i of the int64 tensor ``offsets`` (which has the index shape): a raw index
    (``wrap`` = the dim's size, ``scale`` = its stride in bytes) or a ready byte offset
    (``wrap`` = 0, ``scale`` = 1). ``dims`` are the dims of ``tensor`` the indices pick.
    """

    # the attributes are declared in offsets.pxd, for index.pyx.tp's loops

    def __init__(self, *args):
        raise TypeError("IndexOffsets are made by index_offsets(), which checks the indices")


cdef IndexOffsets _make_offsets(TensorBase offsets, int64_t wrap, int64_t scale, TensorBase t,
                                tuple dims, bint checked=True, object name=None):
    cdef IndexOffsets result = IndexOffsets.__new__(IndexOffsets)
    result.checked = checked
    result.name = name
    result.offsets = offsets
    result.wrap = wrap
    result.scale = scale
    result.tensor = t
    result.dims = dims
    return result


ctypedef struct OffsetCtx:
    int64_t size            # the size of the indexed dim
    int64_t stride_bytes    # its stride, in bytes
    bint first              # the first index: store instead of add
    bint bad                # set when an index is outside [-size, size)


cdef void check_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                     void* ctx) noexcept nogil:
    """Note whether any index[i] is outside [-size, size) (reads only)."""
    cdef OffsetCtx* c = <OffsetCtx*>ctx
    cdef Py_ssize_t i, si = strides[0]
    cdef int64_t v, size = c.size
    cdef bint bad = False
    for i in range(n):
        v = (<int64_t*>(data[0] + i * si))[0]
        bad |= v < -size or v >= size
    if bad:
        c.bad = True


cdef void offset_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                      void* ctx) noexcept nogil:
    """offsets[i] (+)= wrap(index[i]) * stride_bytes, noting any index out of range."""
    cdef OffsetCtx* c = <OffsetCtx*>ctx
    cdef Py_ssize_t i, so = strides[0], si = strides[1]
    cdef int64_t v, size = c.size, sb = c.stride_bytes, step
    cdef bint bad = False, first = c.first
    for i in range(n):
        v = (<int64_t*>(data[1] + i * si))[0]
        if v < 0:
            v += size  # wraps once: -size..-1 become 0..size-1
        if v >= 0 and v < size:
            step = v * sb
        else:
            step = 0
            bad = True
        if first:
            (<int64_t*>(data[0] + i * so))[0] = step
        else:
            (<int64_t*>(data[0] + i * so))[0] += step
    if bad:
        c.bad = True


cdef int _raise_out_of_bounds(TensorBase index, Py_ssize_t size, object name) except -1:
    """Raise the IndexError naming the first index (in row-major order) outside
    [-size, size), the dim and its size."""
    flat = np.asarray(index).reshape(-1)
    first = int(flat[np.argmax((flat < -size) | (flat >= size))])
    raise IndexError(f"index {first} is out of bounds for dim {name} with size {size}")


cdef int raise_out_of_bounds(IndexOffsets off) except -1:
    """Raise the IndexError for the first bad index of ``off`` (see offsets.pxd)."""
    return _raise_out_of_bounds(off.offsets, off.wrap, off.name)


cdef int check_unchecked(IndexOffsets off) except -1:
    """Check every index of ``off`` in one pass; raise if any is out of range."""
    if off.offsets._numel and _run_offsets(None, off.offsets, off.wrap, 0, True):
        raise_out_of_bounds(off)
    return 0


cdef bint _run_offsets(TensorBase out, TensorBase idx, int64_t size, int64_t stride_bytes,
                       bint first) except -1:
    """One pass of index_offsets over ``idx``: checks only (out is None), or also (+)= the
    byte offsets into ``out``. Returns whether an index was out of range."""
    cdef LoopPlan plan
    cdef Py_ssize_t nchunks, c
    cdef OffsetCtx* ctxs
    cdef bint bad = False
    cdef int k = 0
    cdef loop1d_fn loop = check_loop
    plan_init(&plan, 1 if out is None else 2, idx._ndim, idx._sizes)
    if out is not None:
        plan_set_operand(&plan, 0, out._data(), out._strides, 8)
        k = 1
        loop = offset_loop
    plan_set_operand(&plan, k, idx._data(), idx._strides, 8)
    plan_reorder(&plan)
    plan_coalesce(&plan)
    nchunks = _nchunks(plan.numel, plan.numel)
    ctxs = <OffsetCtx*>malloc(nchunks * sizeof(OffsetCtx))
    if ctxs == NULL:
        raise MemoryError()
    for c in range(nchunks):
        ctxs[c].size = size
        ctxs[c].stride_bytes = stride_bytes
        ctxs[c].first = first
        ctxs[c].bad = False
    if nchunks > 1:
        with nogil:
            run_chunked(&plan, loop, <char*>ctxs, sizeof(OffsetCtx), nchunks)
    else:
        run_chunked(&plan, loop, <char*>ctxs, sizeof(OffsetCtx), 1)
    for c in range(nchunks):
        bad = bad or ctxs[c].bad
    free(ctxs)
    return bad


def index_offsets(TensorBase t, tuple dims, tuple indices, tuple names=None, bint check=True):
    """Check the int64 ``indices`` (one per dim in ``dims``, all of one shape) against ``t``'s
    sizes; return where they land as an IndexOffsets.

    Raises IndexError naming the first bad index, the dim (``names[k]`` if given, the original
    tensor's numbering) and its size. Negative indices wrap once, as in NumPy. One index is
    only checked (the kernels scale it on the fly); several are summed into byte offsets.
    ``check=False`` skips the checking pass for one index: such offsets are good for
    ``index_get`` only, which then checks each index as it loads it (one pass instead of two;
    a gather can stop half-way, since it writes only into its own fresh output).

    Examples
    --------
    >>> import strided
    >>> from strided._cpu import offsets
    >>> x = strided.zeros((3, 4), dtype="float32")
    >>> off = offsets.index_offsets(x, (0, 1), (strided.asarray([2, -1]), strided.asarray([1, 0])))
    >>> off.offsets            # (2, 1) and (-1 = 2, 0): 2*16 + 1*4 and 2*16 + 0*4 bytes in
    tensor([36, 32])
    """
    cdef int k, nidx = len(indices), d
    cdef TensorBase idx, first_idx, out = None
    cdef DType int64 = dtype_from_num(kInt64)
    cdef bint seen[MAX_DIMS]
    cdef bint bad
    if nidx == 0 or len(dims) != nidx:
        raise ValueError("index_offsets: give one index tensor per dim, at least one")
    for d in range(t._ndim):
        seen[d] = False
    first_idx = <TensorBase?>indices[0]
    for k in range(nidx):
        idx = <TensorBase?>indices[k]
        d = dims[k]
        if d < 0 or d >= t._ndim or seen[d]:
            raise ValueError(f"index_offsets: dims {dims} must be distinct dims of a tensor "
                             f"with {t._ndim} dims")
        seen[d] = True
        if idx.dtype is not int64:
            raise TypeError(f"index_offsets: indices must be int64, got {idx.dtype.name}")
        if idx.shape != first_idx.shape:
            raise ValueError(f"index_offsets: the indices must be broadcast to one shape first, "
                             f"got {first_idx.shape} and {idx.shape}")
        if not idx._storage.device.is_cpu or not t._storage.device.is_cpu:
            raise NotImplementedError("indexing on the GPU needs the CUDA backend")
    if nidx == 1 and not check:
        d = dims[0]
        return _make_offsets(first_idx, t._sizes[d], t._strides[d] * t.dtype.itemsize, t, dims,
                             False, names[0] if names is not None else d)
    if nidx > 1:
        out = empty_tensor(first_idx._ndim, first_idx._sizes, int64, first_idx._storage.device)
    for k in range(nidx):
        idx = <TensorBase>indices[k]
        d = dims[k]
        if idx._numel == 0:
            break
        bad = _run_offsets(out, idx, t._sizes[d], t._strides[d] * t.dtype.itemsize, k == 0)
        if bad:
            _raise_out_of_bounds(idx, t._sizes[d], names[k] if names is not None else d)
    if nidx == 1:
        d = dims[0]
        return _make_offsets(first_idx, t._sizes[d], t._strides[d] * t.dtype.itemsize, t, dims)
    return _make_offsets(out, 0, 1, t, dims)


def mask_offsets(TensorBase mask, TensorBase t, int dim):
    """``t[..., mask, ...]`` with the contiguous bool ``mask`` covering dims dim, dim+1, ... of
    ``t`` (whose sizes it must have): the byte offsets of the picked elements, in one pass
    (nonzero's kernel, writing ``sum(coordinate * stride)`` instead of coordinates). In range by
    construction, so nothing needs checking.
    """
    cdef int64_t weights[MAX_DIMS]
    cdef int k
    if dim < 0 or mask._ndim < 1 or dim + mask._ndim > t._ndim:
        raise ValueError(f"mask_offsets: a mask of shape {mask.shape} does not fit dims {dim}.. "
                         f"of a tensor of shape {t.shape}")
    for k in range(mask._ndim):
        if mask._sizes[k] != t._sizes[dim + k]:
            raise IndexError(f"mask_offsets: mask of shape {mask.shape} does not match dims "
                             f"{dim}.. of a tensor of shape {t.shape}")
        weights[k] = t._strides[dim + k] * t.dtype.itemsize
    return _make_offsets(nonzero_kernel(mask, False, weights), 0, 1, t,
                         tuple(range(dim, dim + mask._ndim)))
