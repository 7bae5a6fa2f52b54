"""Selection: partition each line along one axis around given positions, in O(n), without
sorting it.

``select_axis`` is what ``strided.partition`` and ``argpartition`` run on the CPU, and what
``median``, ``quantile`` and their ``nan*`` forms (``strided/_ops/stats.py``) run to find the
few order statistics they read. The dtypes and their order (``key_t``, ``_less``, NaN last) are
those of the sort, from ``sort.pxd.tp``; the public functions are in ``strided/_ops/sets.py``.

Note [Selection]
~~~~~~~~~~~~~~~~
*Selecting* the k-th smallest of n values (the element at position k of the sorted line) does
not need the sort. Quickselect (Hoare, 1961) is quicksort that recurses into one side only: pick
a *pivot* value, *partition* the line so that everything before some position j is <= the pivot,
the pivot sits at j, and everything after j is >= it. Then the pivot is exactly where a sort
would put it. If j == k we are done; if j > k the answer lies in [lo, j - 1], else in
[j + 1, hi]: go on in that part only and forget the other. With a pivot near the middle each
round halves the range, so the work is n + n/2 + n/4 + ... < 2n comparisons: O(n), against
O(n log n) for a sort. When it ends, the line is *partitioned* at k: ``a[k]`` is the sorted
one, nothing before it is larger and nothing after it is smaller. That is all
``np.partition`` promises, and all a median needs.

The partition step (``_partition``) is Hoare's: with the pivot parked at ``a[lo]``, one index
walks right past elements smaller than the pivot, another walks left past larger ones, and when
both stop (each on an element on the wrong side) they swap. Both stop on elements *equal* to
the pivot too: that looks like wasted swaps, but it is what keeps a line full of duplicates
(an all-equal line is the extreme) splitting down the middle instead of to one end.

The pivot is the *median of three* (first, middle, last): on sorted, reverse-sorted and
all-equal lines, the cases that make a naive "first element" pivot take n^2 / 2 steps, it is the
true median. Some inputs still defeat it (they can be built on purpose), so the selection is an
*introselect* (Musser, 1997): each selection allows itself 2 * log2(n) rounds, after which every
further pivot is the *median of medians* (Blum, Floyd, Pratt, Rivest and Tarjan, 1973), slower
to find but guaranteed to leave at least 3/10 of the range on each side. So the worst case is
O(n) too, as in NumPy's introselect. Ranges of at most ``SMALL`` elements are finished by
selection sort (``_select_small``: the minimum to the front, k - lo + 1 times).

*NaN goes last*, as in the sort (Note [Where NaN goes] in sort.pyx.tp). NaN compares false with
everything, which would break the partition's invariants, so the line is first split into its
non-NaN values (to the front) and its NaNs (to the back; ``_nans_last``), and only the front is
selected with plain ``<``. A kth at or after the first NaN is then already in place. This also
means that *every* result has its NaNs at the back, whatever kth it was asked for: the last
element of a line is NaN exactly when the line holds one, which ``median`` and ``quantile`` use.
Complex numbers are compared in NumPy's order with its NaN rules (``_less``, Note [Complex
order] in sort.pyx.tp).

*Several kth* are done in increasing order, each in what the last one left: after placing
``k1``, the range after it is all >= ``a[k1]``, so ``k2 > k1`` is selected in
[k1 + 1, hi]. And ``hi`` can be smaller than the line's end: every pivot that landed at a
position j > k1 while selecting k1 is in its sorted place too, so the nearest one above ``k2``
bounds the range. These pivots are kept on a small stack (``Pivots``), smallest on top; a
quantile's pair ``floor(v), floor(v) + 1`` costs little more than one selection thanks to it.
NumPy's introselect does the same.

*Lines* (every position of the other axes) are independent: above ``GRAIN_SIZE`` elements they
are shared among threads, whole lines to each (Note [The loop plan] in _iter.pyx walks them).
One long line runs on one thread: unlike a merge, a partition step cannot be cut into
independent pieces cheaply. The result depends only on the line, not on the thread count.

Each line is copied first (the input is never changed): straight into the output when the
output runs contiguously along the axis, else into a scratch buffer that is copied out after.
With positions wanted (argpartition) every swap moves the position along with the value.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memcpy

from strided._core cimport MAX_DIMS, TensorBase, empty_tensor
from strided._dtype cimport (
    dtype_from_num,
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
    plan_coalesce,
    plan_init,
    plan_reorder,
    plan_set_operand,
)

from strided._cpu.chunks cimport nchunks, run_chunked
# the sortable dtypes, their C types and their order come from sort.pxd.tp, as in sort.pyx.tp
from strided._cpu.sort cimport (
    NoIndex,
    _less,
    cdouble_t,
    cfloat_t,
    index_t,
    int8_t,
    int16_t,
    int32_t,
    int64_t,
    key_t,
    uint8_t,
    uint16_t,
    uint32_t,
    uint64_t,
)

cdef enum:
    SMALL = 16          # ranges this short are finished by selection sort
    MAX_PIVOTS = 128    # the pivot stack's depth; a full stack only loosens the bounds
    X = 0               # the loop plan's operands: the input, the kth rows, then the outputs
    KTH = 1


ctypedef struct Pivots:
    Py_ssize_t n
    Py_ssize_t at[MAX_PIVOTS]       # positions of pivots in their sorted place, decreasing


ctypedef struct SelectCtx:
    int num                         # the dtype's ScalarType code
    Py_ssize_t n                    # the line length
    Py_ssize_t step                 # the input's stride along the axis, in elements
    Py_ssize_t nk                   # how many kth per line
    Py_ssize_t kstep                # the kth rows' stride, in elements (0 when broadcast)
    Py_ssize_t out_step             # the outputs' stride along the axis, in elements
    int values_at, indices_at       # which plan operand each output is (-1: not wanted)
    char* scratch                   # this thread's: kth row, then positions, then values
    bint bad                        # a kth row held a position outside [0, n)


# =============================================================================================
# Introselect on one contiguous range. See Note [Selection].
# =============================================================================================

cdef inline void _swap(key_t* a, index_t* ia, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    """Exchange elements i and j (and their positions, when carried)."""
    cdef key_t t = a[i]
    cdef int64_t ti
    a[i] = a[j]
    a[j] = t
    if index_t is int64_t:
        ti = ia[i]
        ia[i] = ia[j]
        ia[j] = ti


cdef void _select_small(key_t* a, index_t* ia, Py_ssize_t lo, Py_ssize_t hi,
                        Py_ssize_t k) noexcept nogil:
    """Partition a[lo:hi + 1] at k by selection sort: the minimum of the rest to lo, lo + 1,
    ..., k (at most SMALL * SMALL comparisons)."""
    cdef Py_ssize_t i, j, best
    for i in range(lo, k + 1):
        best = i
        for j in range(i + 1, hi + 1):
            if _less(a[j], a[best]):
                best = j
        _swap(a, ia, i, best)


cdef void _sort3(key_t* a, index_t* ia, Py_ssize_t i, Py_ssize_t j,
                 Py_ssize_t k) noexcept nogil:
    """Order a[i] <= a[j] <= a[k] by at most three exchanges."""
    if _less(a[j], a[i]):
        _swap(a, ia, i, j)
    if _less(a[k], a[j]):
        _swap(a, ia, j, k)
        if _less(a[j], a[i]):
            _swap(a, ia, i, j)


cdef Py_ssize_t _partition(key_t* a, index_t* ia, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Hoare's partition of a[lo:hi + 1] around the pivot a[lo]: returns the pivot's final
    position j, with a[lo:j] <= a[j] <= a[j + 1:hi + 1]. Both scans stop on elements equal to the
    pivot, so duplicates split evenly."""
    cdef key_t pivot = a[lo]
    cdef Py_ssize_t i = lo, j = hi + 1
    while True:
        i += 1
        while i < hi and _less(a[i], pivot):
            i += 1
        j -= 1
        while _less(pivot, a[j]):     # stops at lo at the latest: a[lo] is the pivot
            j -= 1
        if i >= j:
            break
        _swap(a, ia, i, j)
    _swap(a, ia, lo, j)
    return j


cdef Py_ssize_t _depth_limit(Py_ssize_t n) noexcept nogil:
    """2 * floor(log2(n)): the median-of-three rounds a selection allows itself."""
    cdef Py_ssize_t d = 0
    while n > 1:
        n >>= 1
        d += 2
    return d


cdef void _introselect(key_t* a, index_t* ia, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t k,
                       Pivots* pivots) noexcept nogil:
    """Partition a[lo:hi + 1] at k (lo <= k <= hi). The pivots that land above k are pushed on
    ``pivots`` (when given) for the next, larger kth. See Note [Selection]."""
    cdef Py_ssize_t depth = _depth_limit(hi - lo + 1), mid, j, g
    while hi - lo >= SMALL:
        if depth > 0:
            depth -= 1
            mid = lo + (hi - lo) // 2
            _sort3(a, ia, lo, mid, hi)
            _swap(a, ia, lo, mid)        # the median of the three is the pivot
        else:
            # the median of medians: the median of each group of five to the front (from lo
            # to mid - 1), then the median of those, selected by this function, is the pivot
            mid = lo
            g = lo
            while g + 4 <= hi:
                _select_small(a, ia, g, g + 4, g + 2)
                _swap(a, ia, mid, g + 2)
                mid += 1
                g += 5
            _introselect(a, ia, lo, mid - 1, lo + (mid - lo) // 2, NULL)
            _swap(a, ia, lo, lo + (mid - lo) // 2)
        j = _partition(a, ia, lo, hi)
        if j == k:
            return
        if j > k:
            if pivots != NULL and pivots.n < MAX_PIVOTS:
                pivots.at[pivots.n] = j
                pivots.n += 1
            hi = j - 1
        else:
            lo = j + 1
    _select_small(a, ia, lo, hi, k)


# =============================================================================================
# One line: copy in, NaNs to the back, select each kth, copy out.
# =============================================================================================

cdef Py_ssize_t _nans_last(key_t* a, index_t* ia, Py_ssize_t n) noexcept nogil:
    """Move the NaNs of a[0:n] to the back; returns how many values are not NaN (only real
    floats have NaNs that ``_less`` cannot order: see Note [Selection])."""
    cdef Py_ssize_t i = 0, j = n - 1
    if key_t is float or key_t is double:
        while True:
            while i <= j and a[i] == a[i]:
                i += 1
            while i <= j and a[j] != a[j]:
                j -= 1
            if i >= j:
                return i
            _swap(a, ia, i, j)
    return n


cdef bint _read_kth(const SelectCtx* c, const int64_t* krow, int64_t* ks) noexcept nogil:
    """Copy the line's kth into ks in increasing order (insertion sort: rows come sorted from
    strided/_ops, so this is one pass). False if one lies outside [0, n)."""
    cdef Py_ssize_t i, j
    cdef int64_t k
    for i in range(c.nk):
        k = krow[i * c.kstep]
        if k < 0 or k >= c.n:
            return False
        j = i
        while j > 0 and ks[j - 1] > k:
            ks[j] = ks[j - 1]
            j -= 1
        ks[j] = k
    return True


cdef void _select_line(SelectCtx* c, const key_t* src, const int64_t* krow, key_t* vout,
                       index_t* iout) noexcept nogil:
    """Partition one line at each of its kth into the outputs (vout, iout: NULL when not
    wanted). See Note [Selection]."""
    cdef Py_ssize_t n = c.n, step = c.step, os = c.out_step, i, m, lo = 0, prev = -1
    cdef int64_t* ks = <int64_t*>c.scratch
    cdef char* spare = c.scratch + c.nk * sizeof(int64_t)
    cdef index_t* ia = NULL
    cdef key_t* a
    cdef Py_ssize_t k
    cdef Pivots pivots
    if not _read_kth(c, krow, ks):
        c.bad = True
        return
    if index_t is int64_t:
        # positions: straight into the output when it is contiguous along the axis
        if os == 1:
            ia = iout
        else:
            ia = <int64_t*>spare
            spare += n * sizeof(int64_t)
        for i in range(n):
            ia[i] = i
    a = vout if vout != NULL and os == 1 else <key_t*>spare
    if step == 1:
        memcpy(a, src, n * sizeof(key_t))
    else:
        for i in range(n):
            a[i] = src[i * step]
    m = _nans_last(a, ia, n)
    pivots.n = 0
    for i in range(c.nk):
        k = ks[i]
        if k >= m:          # among the NaNs: in place already, and so is every later kth
            break
        if k == prev:
            continue
        prev = k
        while pivots.n > 0 and pivots.at[pivots.n - 1] < k:
            pivots.n -= 1   # pivots below k bound nothing any more
        if pivots.n > 0 and pivots.at[pivots.n - 1] == k:
            lo = k + 1      # a pivot already sits at k
            continue
        _introselect(a, ia, lo, pivots.at[pivots.n - 1] - 1 if pivots.n > 0 else m - 1, k,
                     &pivots)
        lo = k + 1
    if vout != NULL and a != vout:
        for i in range(n):
            vout[i * os] = a[i]
    if index_t is int64_t:
        if ia != iout:
            for i in range(n):
                iout[i * os] = ia[i]


cdef void _select_lines(SelectCtx* c, char** data, const Py_ssize_t* strides, Py_ssize_t n,
                        key_t* key_tag) noexcept nogil:
    """n neighbouring lines of the plan, for one dtype: pick whether positions are carried."""
    cdef Py_ssize_t j
    cdef char* vout
    for j in range(n):
        vout = NULL if c.values_at < 0 else data[c.values_at] + j * strides[c.values_at]
        if c.indices_at < 0:
            _select_line(c, <const key_t*>(data[X] + j * strides[X]),
                         <const int64_t*>(data[KTH] + j * strides[KTH]), <key_t*>vout,
                         <NoIndex*>NULL)
        else:
            _select_line(c, <const key_t*>(data[X] + j * strides[X]),
                         <const int64_t*>(data[KTH] + j * strides[KTH]), <key_t*>vout,
                         <int64_t*>(data[c.indices_at] + j * strides[c.indices_at]))


cdef void _select_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                       void* ctx) noexcept nogil:
    """The plan's 1-D loop (a loop1d_fn): the dtype switch (see Note [One loop, every dtype]
    in copy.pyx.tp), once per run of lines."""
    cdef SelectCtx* c = <SelectCtx*>ctx
    cdef int num = c.num
    if num == kBool or num == kUInt8:
        _select_lines(c, data, strides, n, <uint8_t*>NULL)
    elif num == kInt8:
        _select_lines(c, data, strides, n, <int8_t*>NULL)
    elif num == kInt16:
        _select_lines(c, data, strides, n, <int16_t*>NULL)
    elif num == kInt32:
        _select_lines(c, data, strides, n, <int32_t*>NULL)
    elif num == kInt64:
        _select_lines(c, data, strides, n, <int64_t*>NULL)
    elif num == kUInt16:
        _select_lines(c, data, strides, n, <uint16_t*>NULL)
    elif num == kUInt32:
        _select_lines(c, data, strides, n, <uint32_t*>NULL)
    elif num == kUInt64:
        _select_lines(c, data, strides, n, <uint64_t*>NULL)
    elif num == kFloat32:
        _select_lines(c, data, strides, n, <float*>NULL)
    elif num == kFloat64:
        _select_lines(c, data, strides, n, <double*>NULL)
    elif num == kComplex64:
        _select_lines(c, data, strides, n, <cfloat_t*>NULL)
    else:
        _select_lines(c, data, strides, n, <cdouble_t*>NULL)


# =============================================================================================
# The Python entry point
# =============================================================================================

cdef int _check_kth(TensorBase x, int axis, TensorBase kth) except -1:
    """kth must be int64 on the CPU, with x's sizes on every dim but ``axis``."""
    cdef int d
    if not x._storage.device.is_cpu or not kth._storage.device.is_cpu:
        raise NotImplementedError(f"select_axis: the tensors are on {x.device} and "
                                  f"{kth.device}; this is the CPU kernel")
    if not 0 <= axis < x._ndim:
        raise ValueError(f"select_axis: axis {axis} is not a dim of a {x._ndim}-d tensor")
    if kth.dtype.num != kInt64 or kth._ndim != x._ndim:
        raise ValueError(f"select_axis: kth must be an int64 tensor with {x._ndim} dims, got "
                         f"{kth.dtype.name} with {kth._ndim}")
    for d in range(x._ndim):
        if d != axis and kth._sizes[d] != x._sizes[d]:
            raise ValueError(f"select_axis: kth has shape {kth.shape}, which does not match "
                             f"x's {x.shape} off axis {axis}")
    return 0


def select_axis(TensorBase x, int axis, TensorBase kth, bint want_values, bint want_indices):
    """Partition every line of ``x`` along ``axis`` (normalised; ``x.ndim >= 1``) around the
    positions in the matching line of ``kth`` (int64, x's shape but for its own length along
    ``axis``; any order, repeats allowed; a broadcast view costs nothing): each of those
    positions holds what a sort would put there, with nothing larger before it and nothing
    smaller after it, NaNs last. Returns ``(values, indices)``, fresh row-major tensors of x's
    shape (positions along the axis as int64), each None when not wanted. See Note [Selection].

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.select import select_axis
    >>> x = strided.asarray([5.0, float("nan"), 1.0, 4.0, 2.0])
    >>> values, indices = select_axis(x, 0, strided.asarray([1]), True, True)
    >>> values[1], values[4], bool((values[:1] <= 2.0).all())
    (tensor(2.), tensor(nan), True)
    >>> x[indices]
    tensor([ 1.,  2.,  5.,  4., nan])
    """
    cdef SelectCtx ctx
    cdef SelectCtx* ctxs
    cdef TensorBase values = None, indices = None
    cdef Py_ssize_t ksizes[MAX_DIMS]
    cdef Py_ssize_t kx[MAX_DIMS]
    cdef Py_ssize_t kk[MAX_DIMS]
    cdef Py_ssize_t ko[MAX_DIMS]
    cdef Py_ssize_t per_part, nparts, p
    cdef int nd = x._ndim, d, nk = 0, nops = 2
    cdef LoopPlan plan
    cdef bint bad = False
    _check_kth(x, axis, kth)
    if want_values:
        values = empty_tensor(nd, x._sizes, x.dtype, x._storage.device)
    if want_indices:
        indices = empty_tensor(nd, x._sizes, dtype_from_num(kInt64), x._storage.device)
    if x._numel == 0:
        return values, indices
    for d in range(nd):
        if d != axis:
            ksizes[nk] = x._sizes[d]
            kx[nk] = x._strides[d]
            kk[nk] = kth._strides[d]
            nk += 1
    ctx.num = x.dtype.num
    ctx.n = x._sizes[axis]
    ctx.step = x._strides[axis]
    ctx.nk = kth._sizes[axis]
    ctx.kstep = kth._strides[axis]
    ctx.values_at = ctx.indices_at = -1
    ctx.bad = False
    plan_init(&plan, 2 + want_values + want_indices, nk, ksizes)
    plan_set_operand(&plan, X, x._data(), kx, x.dtype.itemsize)
    plan_set_operand(&plan, KTH, kth._data(), kk, 8)
    for out in (values, indices):
        if out is not None:
            nk = 0
            for d in range(nd):
                if d != axis:
                    ko[nk] = (<TensorBase>out)._strides[d]
                    nk += 1
            ctx.out_step = (<TensorBase>out)._strides[axis]
            plan_set_operand(&plan, nops, (<TensorBase>out)._data(), ko,
                             (<TensorBase>out).dtype.itemsize)
            if out is values:
                ctx.values_at = nops
            else:
                ctx.indices_at = nops
            nops += 1
    plan_reorder(&plan)
    plan_coalesce(&plan)
    # per thread: the sorted kth row, then room for the positions and the values of a line
    per_part = ctx.nk * 8 + ctx.n * (8 * want_indices + x.dtype.itemsize)
    per_part = (per_part + 63) // 64 * 64   # threads do not share cache lines
    nparts = nchunks(x._numel, plan.numel)
    ctxs = <SelectCtx*>PyMem_Malloc(nparts * sizeof(SelectCtx))
    if ctxs == NULL:
        raise MemoryError("select_axis: cannot allocate the thread contexts")
    ctx.scratch = <char*>PyMem_Malloc(nparts * per_part)
    if ctx.scratch == NULL:
        PyMem_Free(ctxs)
        raise MemoryError(f"select_axis: cannot allocate {nparts * per_part} bytes of scratch")
    for p in range(nparts):
        ctxs[p] = ctx
        ctxs[p].scratch = ctx.scratch + p * per_part
    try:
        if x._numel < GRAIN_SIZE:   # small jobs keep the GIL: releasing it costs more
            run_chunked(&plan, _select_loop, <char*>ctxs, sizeof(SelectCtx), nparts)
        else:
            with nogil:
                run_chunked(&plan, _select_loop, <char*>ctxs, sizeof(SelectCtx), nparts)
        for p in range(nparts):
            bad = bad or ctxs[p].bad
    finally:
        PyMem_Free(ctx.scratch)
        PyMem_Free(ctxs)
    if bad:
        raise ValueError(f"select_axis: a kth lies outside [0, {x._sizes[axis]}) for axis "
                         f"{axis}")
    return values, indices
