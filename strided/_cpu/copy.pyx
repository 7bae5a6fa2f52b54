# GENERATED from copy.pyx.tp by setup.py: edit the template, not this file.
"""The first kernels: strided copy with dtype casting, fill, arange and linspace.

Every op that writes memory ends in a loop like the ones here: the loop plan (``_iter``) turns the
tensors into pointers, byte strides and a length, and a 1-D loop does the work.

Note [One loop, every dtype]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``_cast_typed`` is written once over two fused types (``dst_t``, ``src_t``); Cython generates
its 12 x 12 specialisations (bool is handled beside them, see the fused types below).
``cast_loop`` is the dtype dispatch (PyTorch's ``AT_DISPATCH_ALL_TYPES``): a switch on the
destination's ScalarType picks a specialisation of ``_cast_from[dst_t]``, whose switch on the
source picks ``_cast_typed[dst_t, src_t]``. The two switches run once per 1-D loop
(once per row), not once per element.

A copy between equal dtypes does not care what the bytes mean, only how wide they are: it runs
``width_loop`` over 1, 2, 4, 8 or 16-byte words, five specialisations instead of thirteen. Fill
does the same.

Casting follows NumPy: to bool is ``x != 0``; complex to real keeps the real part; float to int
truncates toward zero (out-of-range and NaN give what the C cast gives on this machine, as in
NumPy).
"""

cimport cython
from cython.parallel cimport prange
from libc.stdint cimport (
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)
from libc.string cimport memcpy

from strided._accessor cimport Accessor2, accessor2, accessor2_raw, at2, element_t
from strided._cpu.words cimport word128, word_t
from strided._core cimport (
    MAX_DIMS,
    TensorBase,
    empty_tensor,
    may_have_internal_overlap,
    storage_overlap,
)
from strided._dtype cimport (
    DType,
    kBool,
    kInt8,
    kInt16,
    kInt32,
    kInt64,
    kUInt8,
    kUInt16,
    kUInt32,
    kUInt64,
    kFloat32,
    kFloat64,
    kComplex64,
    kComplex128,
)
from strided._iter cimport (
    GRAIN_SIZE,
    LoopPlan,
    num_threads,
    plan_coalesce,
    plan_init,
    plan_reorder,
    plan_run,
    plan_set_operand,
    register_cast,
    scalar_to_bytes,
)

ctypedef float complex cfloat_t
ctypedef double complex cdouble_t

# bool is not in these lists: as a C type it is the same unsigned char as uint8_t, which a
# fused type cannot tell apart. A bool *source* holds only 0 and 1, so it is read as uint8_t; a
# bool *destination* needs ``x != 0``, which _cast_to_bool does.
ctypedef fused dst_t:
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
    cfloat_t
    cdouble_t

ctypedef fused src_t:
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
    cfloat_t
    cdouble_t


# =============================================================================================
# Casting copy. See Note [One loop, every dtype].
# =============================================================================================

cdef inline void _store_cast(dst_t* out, src_t x) noexcept nogil:
    """out[0] = x converted to dst_t, by NumPy's rules (see Note [One loop, every dtype]).

    Complex results are written as their two parts, never built as ``re + im*I``: in C that
    product turns an infinite or NaN imaginary part into a NaN real part.
    """
    if dst_t is cfloat_t:
        if src_t is cfloat_t or src_t is cdouble_t:
            (<float*>out)[0] = <float>x.real
            (<float*>out)[1] = <float>x.imag
        else:
            (<float*>out)[0] = <float>x
            (<float*>out)[1] = 0
    elif dst_t is cdouble_t:
        if src_t is cfloat_t or src_t is cdouble_t:
            (<double*>out)[0] = <double>x.real
            (<double*>out)[1] = <double>x.imag
        else:
            (<double*>out)[0] = <double>x
            (<double*>out)[1] = 0
    elif src_t is cfloat_t or src_t is cdouble_t:
        out[0] = <dst_t>x.real
    else:
        out[0] = <dst_t>x


cdef void _cast_typed(dst_t* out, src_t* inp, Py_ssize_t s_out, Py_ssize_t s_in,
                      Py_ssize_t n) noexcept nogil:
    """Copy n elements from inp (src_t) to out (dst_t), converting each; strides in bytes."""
    cdef Py_ssize_t i
    cdef char* o = <char*>out
    cdef char* a = <char*>inp
    if s_out == sizeof(dst_t) and s_in == sizeof(src_t):
        # the contiguous fast path: plain indexing the C compiler can vectorise
        for i in range(n):
            _store_cast[dst_t, src_t](&out[i], inp[i])
    else:
        for _ in range(n):
            _store_cast[dst_t, src_t](<dst_t*>o, (<src_t*>a)[0])
            o += s_out
            a += s_in


cdef void _cast_from(dst_t* out, char* inp, int src, Py_ssize_t s_out, Py_ssize_t s_in,
                     Py_ssize_t n) noexcept nogil:
    # The inner switch of the dtype dispatch: the source's ScalarType picks src_t.
    if src == kBool:
        _cast_typed[dst_t, uint8_t](out, <uint8_t*>inp, s_out, s_in, n)
    elif src == kInt8:
        _cast_typed[dst_t, int8_t](out, <int8_t*>inp, s_out, s_in, n)
    elif src == kInt16:
        _cast_typed[dst_t, int16_t](out, <int16_t*>inp, s_out, s_in, n)
    elif src == kInt32:
        _cast_typed[dst_t, int32_t](out, <int32_t*>inp, s_out, s_in, n)
    elif src == kInt64:
        _cast_typed[dst_t, int64_t](out, <int64_t*>inp, s_out, s_in, n)
    elif src == kUInt8:
        _cast_typed[dst_t, uint8_t](out, <uint8_t*>inp, s_out, s_in, n)
    elif src == kUInt16:
        _cast_typed[dst_t, uint16_t](out, <uint16_t*>inp, s_out, s_in, n)
    elif src == kUInt32:
        _cast_typed[dst_t, uint32_t](out, <uint32_t*>inp, s_out, s_in, n)
    elif src == kUInt64:
        _cast_typed[dst_t, uint64_t](out, <uint64_t*>inp, s_out, s_in, n)
    elif src == kFloat32:
        _cast_typed[dst_t, float](out, <float*>inp, s_out, s_in, n)
    elif src == kFloat64:
        _cast_typed[dst_t, double](out, <double*>inp, s_out, s_in, n)
    elif src == kComplex64:
        _cast_typed[dst_t, cfloat_t](out, <cfloat_t*>inp, s_out, s_in, n)
    elif src == kComplex128:
        _cast_typed[dst_t, cdouble_t](out, <cdouble_t*>inp, s_out, s_in, n)


cdef void _cast_to_bool(unsigned char* out, src_t* inp, Py_ssize_t s_out, Py_ssize_t s_in,
                        Py_ssize_t n) noexcept nogil:
    """out[i] = (inp[i] != 0): NumPy's rule for any dtype to bool (complex: either part)."""
    cdef char* o = <char*>out
    cdef char* a = <char*>inp
    cdef src_t x
    for _ in range(n):
        x = (<src_t*>a)[0]
        if src_t is cfloat_t or src_t is cdouble_t:
            o[0] = x.real != 0 or x.imag != 0
        else:
            o[0] = x != 0
        o += s_out
        a += s_in


cdef void _cast_to_bool_from(unsigned char* out, char* inp, int src, Py_ssize_t s_out,
                             Py_ssize_t s_in, Py_ssize_t n) noexcept nogil:
    if src == kBool:
        _cast_to_bool[uint8_t](out, <uint8_t*>inp, s_out, s_in, n)
    elif src == kInt8:
        _cast_to_bool[int8_t](out, <int8_t*>inp, s_out, s_in, n)
    elif src == kInt16:
        _cast_to_bool[int16_t](out, <int16_t*>inp, s_out, s_in, n)
    elif src == kInt32:
        _cast_to_bool[int32_t](out, <int32_t*>inp, s_out, s_in, n)
    elif src == kInt64:
        _cast_to_bool[int64_t](out, <int64_t*>inp, s_out, s_in, n)
    elif src == kUInt8:
        _cast_to_bool[uint8_t](out, <uint8_t*>inp, s_out, s_in, n)
    elif src == kUInt16:
        _cast_to_bool[uint16_t](out, <uint16_t*>inp, s_out, s_in, n)
    elif src == kUInt32:
        _cast_to_bool[uint32_t](out, <uint32_t*>inp, s_out, s_in, n)
    elif src == kUInt64:
        _cast_to_bool[uint64_t](out, <uint64_t*>inp, s_out, s_in, n)
    elif src == kFloat32:
        _cast_to_bool[float](out, <float*>inp, s_out, s_in, n)
    elif src == kFloat64:
        _cast_to_bool[double](out, <double*>inp, s_out, s_in, n)
    elif src == kComplex64:
        _cast_to_bool[cfloat_t](out, <cfloat_t*>inp, s_out, s_in, n)
    elif src == kComplex128:
        _cast_to_bool[cdouble_t](out, <cdouble_t*>inp, s_out, s_in, n)


cdef void cast_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                    void* ctx) noexcept nogil:
    """The 1-D loop of a casting copy: data[0] <- data[1]; ctx points to the (dst, src) codes.

    The outer switch of the dtype dispatch: the destination's ScalarType picks dst_t.
    """
    cdef int dst = (<int*>ctx)[0], src = (<int*>ctx)[1]
    cdef char* o = data[0]
    cdef Py_ssize_t so = strides[0], si = strides[1]
    if dst == kBool:
        _cast_to_bool_from(<unsigned char*>o, data[1], src, so, si, n)
    elif dst == kInt8:
        _cast_from[int8_t](<int8_t*>o, data[1], src, so, si, n)
    elif dst == kInt16:
        _cast_from[int16_t](<int16_t*>o, data[1], src, so, si, n)
    elif dst == kInt32:
        _cast_from[int32_t](<int32_t*>o, data[1], src, so, si, n)
    elif dst == kInt64:
        _cast_from[int64_t](<int64_t*>o, data[1], src, so, si, n)
    elif dst == kUInt8:
        _cast_from[uint8_t](<uint8_t*>o, data[1], src, so, si, n)
    elif dst == kUInt16:
        _cast_from[uint16_t](<uint16_t*>o, data[1], src, so, si, n)
    elif dst == kUInt32:
        _cast_from[uint32_t](<uint32_t*>o, data[1], src, so, si, n)
    elif dst == kUInt64:
        _cast_from[uint64_t](<uint64_t*>o, data[1], src, so, si, n)
    elif dst == kFloat32:
        _cast_from[float](<float*>o, data[1], src, so, si, n)
    elif dst == kFloat64:
        _cast_from[double](<double*>o, data[1], src, so, si, n)
    elif dst == kComplex64:
        _cast_from[cfloat_t](<cfloat_t*>o, data[1], src, so, si, n)
    elif dst == kComplex128:
        _cast_from[cdouble_t](<cdouble_t*>o, data[1], src, so, si, n)


# =============================================================================================
# Width-only loops: same-dtype copy and fill
# =============================================================================================

# word128 and word_t (elements by width) come from _cpu/words.pxd.


cdef void _width_copy(word_t* out, word_t* inp, Py_ssize_t s_out, Py_ssize_t s_in,
                      Py_ssize_t n) noexcept nogil:
    """Copy n words of one width from inp to out; strides in bytes."""
    cdef Py_ssize_t _
    cdef char* o = <char*>out
    cdef char* a = <char*>inp
    if s_out == sizeof(word_t) and s_in == sizeof(word_t):
        memcpy(o, a, n * sizeof(word_t))
    elif s_in == 0:
        # a broadcast source (a scalar, an expanded dim): one load, many stores
        for _ in range(n):
            (<word_t*>o)[0] = inp[0]
            o += s_out
    else:
        for _ in range(n):
            (<word_t*>o)[0] = (<word_t*>a)[0]
            o += s_out
            a += s_in


cdef void _width_fill(word_t* out, word_t* value, Py_ssize_t s_out, Py_ssize_t n) noexcept nogil:
    """Store the word ``value[0]`` into n places starting at out; stride in bytes."""
    cdef Py_ssize_t i
    cdef word_t v = value[0]
    cdef char* o = <char*>out
    if s_out == sizeof(word_t):
        for i in range(n):
            out[i] = v
    else:
        for _ in range(n):
            (<word_t*>o)[0] = v
            o += s_out


cdef void width_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                     void* ctx) noexcept nogil:
    """The 1-D loop of a same-dtype copy: data[0] <- data[1]; ctx points to the itemsize."""
    cdef Py_ssize_t w = (<Py_ssize_t*>ctx)[0]
    if w == 1:
        _width_copy[uint8_t](<uint8_t*>data[0], <uint8_t*>data[1], strides[0], strides[1], n)
    elif w == 2:
        _width_copy[uint16_t](<uint16_t*>data[0], <uint16_t*>data[1], strides[0], strides[1], n)
    elif w == 4:
        _width_copy[uint32_t](<uint32_t*>data[0], <uint32_t*>data[1], strides[0], strides[1], n)
    elif w == 8:
        _width_copy[uint64_t](<uint64_t*>data[0], <uint64_t*>data[1], strides[0], strides[1], n)
    else:
        _width_copy[word128](<word128*>data[0], <word128*>data[1], strides[0], strides[1], n)


ctypedef struct FillCtx:
    Py_ssize_t itemsize
    word128 value           # the element's bytes; 16 bytes hold any dtype


cdef void fill_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                    void* ctx) noexcept nogil:
    """The 1-D loop of fill_: data[0] <- the value in ctx (a FillCtx)."""
    cdef FillCtx* f = <FillCtx*>ctx
    cdef char* v = <char*>&f.value
    if f.itemsize == 1:
        _width_fill[uint8_t](<uint8_t*>data[0], <uint8_t*>v, strides[0], n)
    elif f.itemsize == 2:
        _width_fill[uint16_t](<uint16_t*>data[0], <uint16_t*>v, strides[0], n)
    elif f.itemsize == 4:
        _width_fill[uint32_t](<uint32_t*>data[0], <uint32_t*>v, strides[0], n)
    elif f.itemsize == 8:
        _width_fill[uint64_t](<uint64_t*>data[0], <uint64_t*>v, strides[0], n)
    else:
        _width_fill[word128](<word128*>data[0], <word128*>v, strides[0], n)


# =============================================================================================
# The blocked transpose: when the output's fast dim is the input's slow one
# =============================================================================================

cdef enum:
    TILE = 32


cdef void transpose_tiles(const Accessor2* out, const Accessor2* inp, Py_ssize_t r0,
                          Py_ssize_t r1, element_t* kind) noexcept nogil:
    """Copy rows [r0, r1) of inp into out (same shape), tile by tile.

    Note [Blocked transpose]
    ~~~~~~~~~~~~~~~~~~~~~~~~
    Copying ``x.T`` into a contiguous tensor reads along columns of x: each read lands in a new
    cache line, which is then evicted before its neighbours are read. Walking 32x32 tiles keeps
    one tile of the input (32 lines) in L1 while its rows are written out, so every line is
    fetched once. The loop order inside a tile makes the *writes* sequential. The tiles index
    both tensors through accessors (see Note [TensorAccessor]).
    """
    cdef Py_ssize_t rb, cb, r, c, rend, cend, cols = out.sizes[1]
    rb = r0
    while rb < r1:
        rend = min(rb + TILE, r1)
        cb = 0
        while cb < cols:
            cend = min(cb + TILE, cols)
            for r in range(rb, rend):
                for c in range(cb, cend):
                    at2(out, r, c, kind)[0] = at2(inp, r, c, kind)[0]
            cb += TILE
        rb += TILE


cdef void _tiles(const Accessor2* out, const Accessor2* inp, Py_ssize_t r0,
                 Py_ssize_t r1) noexcept nogil:
    # The width picks the element type: a copy moves bytes, whatever they mean.
    cdef Py_ssize_t w = out.itemsize
    if w == 1:
        transpose_tiles[cython.uchar](out, inp, r0, r1, NULL)
    elif w == 2:
        transpose_tiles[cython.ushort](out, inp, r0, r1, NULL)
    elif w == 4:
        transpose_tiles[cython.uint](out, inp, r0, r1, NULL)
    elif w == 8:
        transpose_tiles[cython.ulonglong](out, inp, r0, r1, NULL)
    else:
        transpose_tiles[cython.doublecomplex](out, inp, r0, r1, NULL)


cdef bint _run_transposed(const LoopPlan* plan, Py_ssize_t itemsize) noexcept nogil:
    """Run the 2-D plan of a same-dtype copy whose input is walked across its rows (see Note
    [Blocked transpose]) in tiles, threads taking bands of rows. Returns whether it ran in
    parallel."""
    cdef Py_ssize_t cols = plan.shape[0], rows = plan.shape[1]
    cdef Py_ssize_t nbands, band, b
    cdef int nthreads = num_threads()
    # plan dim 0 is the inner one: as a (rows, cols) matrix, strides are (dim 1, dim 0)
    cdef Accessor2 out = accessor2_raw(plan.data[0], rows, cols,
                                       plan.stride_bytes[1][0] // itemsize,
                                       plan.stride_bytes[0][0] // itemsize, itemsize)
    cdef Accessor2 inp = accessor2_raw(plan.data[1], rows, cols,
                                       plan.stride_bytes[1][1] // itemsize,
                                       plan.stride_bytes[0][1] // itemsize, itemsize)
    if nthreads <= 1 or plan.numel < 2 * GRAIN_SIZE:
        _tiles(&out, &inp, 0, rows)
        return False
    # bands of whole tiles, one per thread
    band = ((rows + nthreads - 1) // nthreads + TILE - 1) // TILE * TILE
    nbands = (rows + band - 1) // band
    for b in prange(nbands, num_threads=nthreads, schedule="static"):
        _tiles(&out, &inp, b * band, min(rows, (b + 1) * band))
    return True


# =============================================================================================
# What the last copy did, for explain() and tests
# =============================================================================================

cdef enum:
    KERNEL_WIDTH = 0
    KERNEL_CAST = 1
    KERNEL_TILES = 2
    KERNEL_FILL = 3

_KERNEL_NAMES = ("width_loop (same dtype)", "cast_loop", "transpose_tiles", "fill_loop")

# Kept in C so that recording it costs a few stores per copy.
cdef int _last_kernel = -1
cdef int _last_ndim = 0
cdef Py_ssize_t _last_shape[MAX_DIMS]
cdef bint _last_parallel = False


cdef void _note(int kernel, const LoopPlan* plan, bint parallel) noexcept:
    global _last_kernel, _last_ndim, _last_parallel
    cdef int d
    _last_kernel = kernel
    _last_ndim = plan.ndim
    _last_parallel = parallel
    for d in range(plan.ndim):
        _last_shape[d] = plan.shape[d]


def last_copy_plan():
    """What the most recent copy or fill did: its kernel, its loop shape after reordering and
    coalescing (outermost first), and whether it ran in parallel. A teaching aid.

    Examples
    --------
    >>> import strided
    >>> x = strided.zeros((3, 4))
    >>> _ = x.T.contiguous()
    >>> strided._cpu.copy.last_copy_plan()["kernel"]
    'transpose_tiles'
    """
    if _last_kernel < 0:
        return None
    return {
        "kernel": _KERNEL_NAMES[_last_kernel],
        "loop_shape": tuple([_last_shape[d] for d in range(_last_ndim)][::-1]),
        "parallel": _last_parallel,
    }


# =============================================================================================
# copy_: the kernel behind contiguous(), clone(), astype() and every __setitem__
# =============================================================================================

cdef int broadcast_strides(TensorBase src, TensorBase dst, Py_ssize_t* strides) except -1:
    """src's strides stretched to dst's shape (stride 0 where src is broadcast), or raise."""
    cdef int nd = dst._ndim, ns = src._ndim, i, j
    if ns > nd:
        raise ValueError(f"cannot broadcast a tensor of shape {src.shape} to shape {dst.shape}: "
                         f"it has more dims ({ns}) than the target ({nd})")
    for i in range(nd):
        j = i - (nd - ns)
        if j < 0:
            strides[i] = 0
        elif src._sizes[j] == dst._sizes[i]:
            strides[i] = src._strides[j] if src._sizes[j] != 1 else 0
        elif src._sizes[j] == 1:
            strides[i] = 0
        else:
            raise ValueError(
                f"cannot broadcast a tensor of shape {src.shape} to shape {dst.shape}: "
                f"dim {j} has size {src._sizes[j]}, which is neither 1 nor {dst._sizes[i]}")
    return 0


cdef int check_writable(TensorBase dst, str what) except -1:
    if not dst._storage.writable:
        raise ValueError(f"{what}: the destination is read-only (it views read-only memory, "
                         "such as a non-writeable NumPy array or bytes)")
    if may_have_internal_overlap(dst):
        raise RuntimeError(
            f"{what}: the destination has elements that share memory (an expanded or "
            f"overlapping view with shape {dst.shape} and strides {dst.stride()}); writing into "
            "it is ambiguous. Write into a .clone() or .contiguous() copy instead")
    return 0


cdef inline Py_ssize_t _absval(Py_ssize_t x) noexcept nogil:
    return x if x >= 0 else -x


def copy_checks(TensorBase dst, TensorBase src, str what="copy_"):
    """The checks ``copy_`` makes, for a copy on another device: raise if dst is not writable
    or src does not broadcast to dst; return src's strides stretched to dst's shape."""
    cdef Py_ssize_t strides[MAX_DIMS]
    broadcast_strides(src, dst, strides)
    check_writable(dst, what)
    return tuple([strides[i] for i in range(dst._ndim)])


cpdef TensorBase copy_(TensorBase dst, TensorBase src):
    """Copy ``src`` into ``dst`` elementwise, broadcasting src and casting to dst's dtype.

    Safe when src and dst overlap in memory: src is first copied aside.
    """
    cdef Py_ssize_t src_strides[MAX_DIMS]
    cdef LoopPlan plan
    cdef int codes[2]
    cdef Py_ssize_t width = dst.dtype.itemsize
    cdef bint parallel = False, same_layout
    cdef int i
    if not dst._storage.device.is_cpu or not src._storage.device.is_cpu:
        raise NotImplementedError(
            f"copy between {src.device} and {dst.device} needs the CUDA backend")
    broadcast_strides(src, dst, src_strides)
    check_writable(dst, "copy_")
    if dst._numel == 0:
        return dst
    if storage_overlap(dst, src):
        same_layout = src.dtype is dst.dtype and src._data() == dst._data() \
            and src._ndim == dst._ndim
        if same_layout:
            for i in range(dst._ndim):
                if src_strides[i] != dst._strides[i] and dst._sizes[i] != 1:
                    same_layout = False
        if same_layout:
            return dst  # copying a view onto itself
        src = contiguous_copy(src)  # partial overlap: read everything before writing anything
        broadcast_strides(src, dst, src_strides)
    plan_init(&plan, 2, dst._ndim, dst._sizes)
    plan_set_operand(&plan, 0, dst._data(), dst._strides, dst.dtype.itemsize)
    plan_set_operand(&plan, 1, src._data(), src_strides, src.dtype.itemsize)
    plan_reorder(&plan)
    plan_coalesce(&plan)
    if src.dtype is dst.dtype:
        if (plan.ndim == 2 and plan.stride_bytes[0][0] == width
                and _absval(plan.stride_bytes[1][1]) == width
                and _absval(plan.stride_bytes[0][1]) > width):
            with nogil:
                parallel = _run_transposed(&plan, width)
            _note(KERNEL_TILES, &plan, parallel)
        else:
            if plan.numel < GRAIN_SIZE:  # small copies keep the GIL: releasing it costs more
                parallel = plan_run(&plan, width_loop, &width)
            else:
                with nogil:
                    parallel = plan_run(&plan, width_loop, &width)
            _note(KERNEL_WIDTH, &plan, parallel)
    else:
        codes[0] = dst.dtype.num
        codes[1] = src.dtype.num
        if plan.numel < GRAIN_SIZE:
            parallel = plan_run(&plan, cast_loop, codes)
        else:
            with nogil:
                parallel = plan_run(&plan, cast_loop, codes)
        _note(KERNEL_CAST, &plan, parallel)
    dst._storage.version += 1
    return dst


cpdef TensorBase contiguous_copy(TensorBase src, DType dtype=None):
    """A fresh row-major tensor with src's values (cast to ``dtype`` if given)."""
    cdef TensorBase out = empty_tensor(src._ndim, src._sizes,
                                       src.dtype if dtype is None else dtype,
                                       src._storage.device)
    copy_(out, src)
    return out


# =============================================================================================
# fill_, arange, linspace
# =============================================================================================

cpdef TensorBase fill_(TensorBase dst, object value):
    """Set every element of dst to ``value`` (a Python scalar, converted as NumPy 2 would:
    an int that does not fit the dtype raises OverflowError)."""
    cdef LoopPlan plan
    cdef FillCtx ctx
    cdef bint parallel
    check_writable(dst, "fill_")
    scalar_to_bytes(value, dst.dtype, <char*>&ctx.value)
    ctx.itemsize = dst.dtype.itemsize
    if dst._numel == 0:
        return dst
    plan_init(&plan, 1, dst._ndim, dst._sizes)
    plan_set_operand(&plan, 0, dst._data(), dst._strides, dst.dtype.itemsize)
    plan_reorder(&plan)
    plan_coalesce(&plan)
    if plan.numel < GRAIN_SIZE:
        parallel = plan_run(&plan, fill_loop, &ctx)
    else:
        with nogil:
            parallel = plan_run(&plan, fill_loop, &ctx)
    _note(KERNEL_FILL, &plan, parallel)
    dst._storage.version += 1
    return dst


ctypedef fused num_t:
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


cdef void _arange(num_t* out, Py_ssize_t n, bint as_int, int64_t istart, int64_t istep,
                  double fstart, double fstep) noexcept nogil:
    """out[i] = start + i*step, computed in int64 for integer arguments, in double otherwise."""
    cdef Py_ssize_t i
    if as_int:
        for i in range(n):
            out[i] = <num_t>(istart + i * istep)
    else:
        for i in range(n):
            out[i] = <num_t>(fstart + i * fstep)


def arange_fill(TensorBase out, start, step):
    """Fill a fresh contiguous 1-D ``out`` with start, start+step, ... (each value computed as
    ``start + i*step``, as NumPy does, so the last value carries no accumulated rounding)."""
    cdef Py_ssize_t n = out._numel
    cdef char* p = out._data()
    cdef int num = out.dtype.num
    cdef bint as_int = isinstance(start, int) and isinstance(step, int) and num != kFloat32 \
        and num != kFloat64
    cdef int64_t istart = start if as_int else 0
    cdef int64_t istep = step if as_int else 0
    cdef double fstart = 0 if as_int else start
    cdef double fstep = 0 if as_int else step
    if num == kInt8:
        _arange[int8_t](<int8_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kInt16:
        _arange[int16_t](<int16_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kInt32:
        _arange[int32_t](<int32_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kInt64:
        _arange[int64_t](<int64_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kUInt8:
        _arange[uint8_t](<uint8_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kUInt16:
        _arange[uint16_t](<uint16_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kUInt32:
        _arange[uint32_t](<uint32_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kUInt64:
        _arange[uint64_t](<uint64_t*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kFloat32:
        _arange[float](<float*>p, n, as_int, istart, istep, fstart, fstep)
    elif num == kFloat64:
        _arange[double](<double*>p, n, as_int, istart, istep, fstart, fstep)
    else:
        raise TypeError(f"arange: dtype {out.dtype.name} is not supported; use an integer or "
                        "real floating dtype")
    out._storage.version += 1


cdef void _linspace(double* out, Py_ssize_t n, double start, double stop, bint endpoint) \
        noexcept nogil:
    cdef Py_ssize_t i, div = (n - 1) if endpoint else n
    cdef double step
    if n == 0:
        return
    if div == 0:
        out[0] = start
        return
    step = (stop - start) / div
    for i in range(n):
        out[i] = start + i * step
    if endpoint and n > 1:
        out[n - 1] = stop  # exactly stop, as NumPy guarantees


def linspace_fill(TensorBase out, double start, double stop, bint endpoint):
    """Fill a fresh contiguous float64 1-D ``out`` with evenly spaced values."""
    if out.dtype.num != kFloat64:
        raise TypeError("linspace_fill computes in float64; cast afterwards")
    _linspace(<double*>out._data(), out._numel, start, stop, endpoint)
    out._storage.version += 1


cdef void _eye_typed(const Accessor2* acc, Py_ssize_t k, const FillCtx* one,
                     element_t* kind) noexcept nogil:
    cdef Py_ssize_t i, first = -k if k < 0 else 0
    cdef Py_ssize_t last = min(acc.sizes[0], acc.sizes[1] - k)
    cdef element_t v = (<element_t*>&one.value)[0]
    for i in range(first, last):
        at2(acc, i, i + k, kind)[0] = v


def eye_fill(TensorBase out, Py_ssize_t k):
    """Write 1 on diagonal ``k`` of the 2-D ``out`` (already zeroed), through an accessor."""
    cdef Accessor2 acc
    cdef FillCtx one
    accessor2(out, &acc)
    check_writable(out, "eye")
    one.itemsize = out.dtype.itemsize
    scalar_to_bytes(1, out.dtype, <char*>&one.value)
    if one.itemsize == 1:
        _eye_typed[cython.uchar](&acc, k, &one, NULL)
    elif one.itemsize == 2:
        _eye_typed[cython.ushort](&acc, k, &one, NULL)
    elif one.itemsize == 4:
        _eye_typed[cython.uint](&acc, k, &one, NULL)
    elif one.itemsize == 8:
        _eye_typed[cython.ulonglong](&acc, k, &one, NULL)
    else:
        _eye_typed[cython.doublecomplex](&acc, k, &one, NULL)
    out._storage.version += 1


# The elementwise iterator casts its inputs with this module's cast loop (see Note [The
# elementwise iterator] in _iter.pyx): hand it over, from the layer above to the one below.
register_cast(cast_loop)
