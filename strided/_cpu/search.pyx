"""``searchsorted``: where values would go in a sorted 1-D tensor, one binary search each, in
NumPy's sort order (NaN last). The Python half is ``strided.searchsorted`` in
``strided/_ops/indexing.py``, which sorts through ``sorter=`` and casts both to one dtype first.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from strided._core cimport TensorBase, may_have_internal_overlap
from strided._dtype cimport (
    kBool,
    kFloat32,
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
    plan_coalesce,
    plan_init,
    plan_reorder,
    plan_run,
    plan_set_operand,
)


# =============================================================================================
# searchsorted: one binary search per value, NaN sorting last as in NumPy
# =============================================================================================

ctypedef fused real_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double

ctypedef struct SearchCtx:
    const char* sorted_     # the sorted 1-D tensor, contiguous
    Py_ssize_t n
    int num                 # its ScalarType code (the values have the same dtype)
    bint right              # side="right": after equal elements


cdef inline bint _less(real_t a, real_t b) noexcept nogil:
    """a < b in NumPy's sort order: NaN after every number (and not before another NaN)."""
    if real_t is float or real_t is double:
        return a < b or (b != b and a == a)
    else:
        return a < b


cdef inline void _search(char** data, const Py_ssize_t* s, Py_ssize_t n, const SearchCtx* c,
                         real_t* kind) noexcept nogil:
    cdef const real_t* x = <const real_t*>c.sorted_
    cdef Py_ssize_t i, lo, hi, mid
    cdef real_t v
    for i in range(n):
        v = (<real_t*>(data[1] + i * s[1]))[0]
        lo = 0
        hi = c.n
        if c.right:   # the first element greater than v
            while lo < hi:
                mid = lo + (hi - lo) // 2
                if _less(v, x[mid]):
                    hi = mid
                else:
                    lo = mid + 1
        else:         # the first element not less than v
            while lo < hi:
                mid = lo + (hi - lo) // 2
                if _less(x[mid], v):
                    lo = mid + 1
                else:
                    hi = mid
        (<int64_t*>(data[0] + i * s[0]))[0] = lo


cdef void searchsorted_loop(char** data, const Py_ssize_t* s, Py_ssize_t n,
                            void* ctx) noexcept nogil:
    """The 1-D loop of searchsorted: data[0] = int64 positions, data[1] = the values."""
    cdef const SearchCtx* c = <const SearchCtx*>ctx
    if c.num == kBool or c.num == kUInt8:
        _search[uint8_t](data, s, n, c, NULL)
    elif c.num == kInt8:
        _search[int8_t](data, s, n, c, NULL)
    elif c.num == kInt16:
        _search[int16_t](data, s, n, c, NULL)
    elif c.num == kInt32:
        _search[int32_t](data, s, n, c, NULL)
    elif c.num == kInt64:
        _search[int64_t](data, s, n, c, NULL)
    elif c.num == kUInt16:
        _search[uint16_t](data, s, n, c, NULL)
    elif c.num == kUInt32:
        _search[uint32_t](data, s, n, c, NULL)
    elif c.num == kUInt64:
        _search[uint64_t](data, s, n, c, NULL)
    elif c.num == kFloat32:
        _search[float](data, s, n, c, NULL)
    else:
        _search[double](data, s, n, c, NULL)


def searchsorted(TensorBase sorted_, TensorBase values, TensorBase out, bint right):
    """For each of ``values``, where it would go in the contiguous 1-D ``sorted_`` (same real
    dtype) to keep it sorted, into the int64 ``out`` (``values``' shape)."""
    cdef LoopPlan plan
    cdef SearchCtx ctx
    if sorted_._ndim != 1 or not sorted_.is_contiguous() or values.dtype is not sorted_.dtype:
        raise ValueError("searchsorted: needs a contiguous 1-D tensor and values of its dtype")
    if sorted_.dtype.kind == "c":
        raise TypeError("searchsorted: complex numbers have no order")
    if out.dtype.num != kInt64 or out.shape != values.shape or may_have_internal_overlap(out):
        raise ValueError("searchsorted: out must be int64 with the values' shape")
    if not sorted_._storage.device.is_cpu or not values._storage.device.is_cpu:
        raise NotImplementedError("searchsorted on the GPU needs the CUDA backend")
    if out._numel == 0:
        return out
    ctx.sorted_ = sorted_._data()
    ctx.n = sorted_._numel
    ctx.num = sorted_.dtype.num
    ctx.right = right
    plan_init(&plan, 2, out._ndim, out._sizes)
    plan_set_operand(&plan, 0, out._data(), out._strides, 8)
    plan_set_operand(&plan, 1, values._data(), values._strides, values.dtype.itemsize)
    plan_reorder(&plan)
    plan_coalesce(&plan)
    # a binary search costs ~log2(n) loads: count that as work when deciding on threads
    if plan.numel * 8 < GRAIN_SIZE:
        plan_run(&plan, searchsorted_loop, &ctx)
    else:
        with nogil:
            plan_run(&plan, searchsorted_loop, &ctx)
    out._storage.version += 1
    return out
