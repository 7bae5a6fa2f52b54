"""Sorting kernels: a stable merge sort of keys (and their positions) along one axis, and a heap
selection of the first k.

``sort_axis`` is what ``strided.sort``, ``argsort``, ``Tensor.sort`` and ``topk`` with a large k
run; ``topk_axis`` is ``topk`` with a small k. ``sort_axis`` on the flattened input is also the
first half of the ``unique_*`` functions, whose second half is ``unique.pyx``. The dtypes that
sort and their order (``key_t`` and the comparisons) are in ``sort.pxd``, shared with it. The
public functions are in ``strided/_ops/sorting.py``.

Note [Why merge sort]
~~~~~~~~~~~~~~~~~~~~~
The Array API asks for a *stable* sort by default (equal elements keep their original order), and
``argsort`` and ``unique_all`` need one: the first position of each unique value is the first
position in a stable sort's output. Merge sort is the simplest stable sort with an
O(n log n) worst case (quicksort is not stable and is O(n^2) on bad inputs; heapsort is neither
stable nor cache-friendly). It also reads and writes memory strictly in sequence: each pass
streams two sorted runs in and one merged run out, which the hardware prefetcher loves. The price
is a scratch buffer as large as the input.

The version here is bottom-up: insertion sort makes sorted runs of ``RUN`` elements (for a handful
of elements it beats merging), then passes merge neighbouring runs of width 16, 32, 64, ...,
ping-ponging between the line's buffer and the scratch buffer. A merge is a chain of steps
that each wait for the last (which run moved on?), so it is the latency of that chain, not the
arithmetic, that limits it. Three things shorten it: no unpredictable branch (``take_b`` picks
the element with a conditional move; the positions are picked with bit arithmetic, as the
compiler turned a plain ``?:`` back into a branch and made argsort twice as slow); two chains at
once, merging from the front and from the back (``_merge``); and no work at all when two runs
are already in order, so sorted input costs one comparison per run.

Keys carry their positions along (argsort needs them) only when asked: the index type is a fused
type whose second member, ``NoIndex``, is an empty tag, so the values-only sort compiles to code
that never touches an index array. Descending order is a second tag, not a reversed ascending
sort: reversing would put equal elements in *reverse* original order, which is not stable.

Note [Where NaN goes]
~~~~~~~~~~~~~~~~~~~~~
NaN compares false with everything, so a sort that only uses ``<`` would scatter NaNs wherever the
merges leave them. strided follows NumPy: in ascending order NaNs go last (the Array API leaves it
to the implementation); in descending order they go first, where ``np.sort(x)[::-1]`` and
``torch.sort(descending=True)`` put them. NaNs among themselves keep their original order, as the
stability rule asks of equal elements. -0.0 and 0.0 compare equal, so they too keep their order.

For real floats the kernel does not compare NaNs at all: gathering a line into the scratch buffer,
it puts the non-NaN values at the front and the NaNs at the back (back to front, so their order is
reversed there and read back reversed), sorts only the front with plain ``<``, and writes the NaNs
after (ascending) or before (descending) the sorted values. For complex numbers it uses NumPy's
lexicographic order with its NaN rules (Note [Complex order]); integers and bools have no NaN.

Note [Complex order]
~~~~~~~~~~~~~~~~~~~~
Complex numbers sort by real part, then imaginary part (NumPy's order; PyTorch refuses to sort
them). With NaNs, NumPy's order is ``R + Rj < R + nanj < nan + Rj < nan + nanj``: numbers without a
NaN first, then those with a NaN imaginary part (by real part), then a NaN real part (by imaginary
part), then both NaN. ``_complex_less`` is NumPy's ``CFLOAT_LT`` line for line.

Note [Sorting in parallel]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A sort along an axis is many independent lines (every position of the other axes). When there are
at least as many lines as threads, each thread takes a block of lines (``prange``), with its own
scratch buffer. When there are fewer lines than threads and the lines are long (one long line is
the common case), the threads share each line: it is cut into one chunk per thread, the chunks
are sorted in parallel, and then merged in rounds (pairs of chunks, then pairs of pairs). Each
merge is itself split among the threads by *merge path*: the k-th element of the merged output
comes from the first ``i`` elements of one run and the first ``k - i`` of the other, and ``i`` is
found by a binary search (``_corank``), so every thread can start merging at its own ``k`` without
waiting for the others.

A stable sort has exactly one correct output, so however the work is split the result is the same
bit for bit: results do not depend on the thread count. Below ``GRAIN_SIZE`` elements everything
runs on one thread.

Note [topk by selection]
~~~~~~~~~~~~~~~~~~~~~~~~
``topk`` with k much smaller than the line does not sort it. The line is read once while a heap
holds the best k so far, with the worst of them at the root: an element that does not beat the
root is rejected with one comparison, which is the fate of almost every element of a long line
in random order (only about k * log(n / k) ever enter); one that does replaces the root and sinks
to its place in O(log k). At the end a heap sort puts the k in order. The heap orders elements by
(value, position), so ties are broken exactly as the stable sort breaks them, and a newcomer
equal to the root stays out (the earlier element wins): the result is the first k of the stable
sort, bit for bit. The worst case, a line already in the order wanted, costs O(n log k).
"""

from cython.parallel cimport prange, threadid
from cpython.mem cimport PyMem_Free, PyMem_Malloc
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
from strided._iter cimport GRAIN_SIZE, num_threads

# The sortable dtypes (key_t), the compile-time tags (order_t, index_t) and the comparisons
# that define the sort order are declared in sort.pxd, shared with unique.pyx.

cdef enum:
    RUN = 16            # insertion sort makes sorted runs of this many elements


ctypedef struct SortJob:
    char* src                       # element [0, ..., 0] of the input
    Py_ssize_t n                    # the line length: the size along the sorted axis
    Py_ssize_t step                 # the input's stride along the axis, in elements
    Py_ssize_t nlines               # how many lines (the product of the other sizes)
    int nother                      # how many other dims
    Py_ssize_t sizes[MAX_DIMS]      # the other dims' sizes ...
    Py_ssize_t strides[MAX_DIMS]    # ... their input strides, in elements ...
    Py_ssize_t out_strides[MAX_DIMS]  # ... and their strides in the (row-major) outputs
    Py_ssize_t out_step             # the outputs' stride along the axis, in elements
    char* values                    # where the sorted values go, or NULL (argsort)
    int64_t* indices                # where the positions go, or NULL (sort)
    bint descending
    int nthreads                    # 1: serial
    bint split_lines                # all threads share each line (few long lines)
    char* scratch                   # per thread: positions a, b (if any), then keys a, b
    Py_ssize_t scratch_stride       # bytes between two threads' scratch blocks
    Py_ssize_t* bounds              # split_lines only: nthreads + 1 chunk boundaries
    Py_ssize_t k                    # topk by selection: keep the first k (0: a full sort)


# =============================================================================================
# The merge sort of one contiguous run. See Note [Why merge sort].
# =============================================================================================

cdef void _insertion_sort(key_t* a, index_t* ia, Py_ssize_t n, order_t* order) noexcept nogil:
    """Sort a[0:n] (and ia alongside) stably: each element slides left past larger ones only."""
    cdef Py_ssize_t i, j
    cdef key_t x
    cdef index_t xi
    for i in range(1, n):
        x = a[i]
        if index_t is int64_t:
            xi = ia[i]
        j = i
        while j > 0 and _before(x, a[j - 1], order):
            a[j] = a[j - 1]
            if index_t is int64_t:
                ia[j] = ia[j - 1]
            j -= 1
        a[j] = x
        if index_t is int64_t:
            ia[j] = xi


cdef void _merge(const key_t* a, const index_t* ia, Py_ssize_t na,
                 const key_t* b, const index_t* ib, Py_ssize_t nb,
                 key_t* out, index_t* iout, order_t* order) noexcept nogil:
    """Merge the sorted runs a[0:na] and b[0:nb] into out, stably (a's element first on ties).

    From both ends at once: the front picks the first element (a's on ties), the back picks the
    last (b's on ties). Each step of a merge waits for the previous one (which run moved on?),
    but the two ends do not wait for each other, so the CPU overlaps them. For the first
    min(na, nb) steps neither end can run off its runs, so those need no bounds checks; the
    |na - nb| elements left in the middle are merged with checks.
    """
    cdef Py_ssize_t i = 0, j = 0, k = 0, ie = na - 1, je = nb - 1, ke = na + nb - 1, _t
    cdef bint take_b, take_a
    cdef key_t x, y
    if na == 0 or nb == 0 or not _before(b[0], a[na - 1], order):
        # already in order (or one run is empty): the merge is two copies
        memcpy(out, a, na * sizeof(key_t))
        memcpy(out + na, b, nb * sizeof(key_t))
        if index_t is int64_t:
            memcpy(iout, ia, na * sizeof(int64_t))
            memcpy(iout + na, ib, nb * sizeof(int64_t))
        return
    for _t in range(min(na, nb)):
        # the front: both candidates are loaded, take_b selects one without a branch
        x = a[i]
        y = b[j]
        take_b = _before(y, x, order)
        out[k] = y if take_b else x
        if index_t is int64_t:
            (<int64_t*>iout)[k] = _pick((<const int64_t*>ia)[i], (<const int64_t*>ib)[j], take_b)
        j += take_b
        i += 1 - take_b
        k += 1
        # the back
        x = a[ie]
        y = b[je]
        take_a = _before(y, x, order)
        out[ke] = x if take_a else y
        if index_t is int64_t:
            (<int64_t*>iout)[ke] = _pick((<const int64_t*>ib)[je], (<const int64_t*>ia)[ie],
                                         take_a)
        ie -= take_a
        je -= 1 - take_a
        ke -= 1
    while i <= ie and j <= je:
        x = a[i]
        y = b[j]
        take_b = _before(y, x, order)
        out[k] = y if take_b else x
        if index_t is int64_t:
            (<int64_t*>iout)[k] = _pick((<const int64_t*>ia)[i], (<const int64_t*>ib)[j], take_b)
        j += take_b
        i += 1 - take_b
        k += 1
    memcpy(out + k, a + i, (ie + 1 - i) * sizeof(key_t))
    memcpy(out + k + ie + 1 - i, b + j, (je + 1 - j) * sizeof(key_t))
    if index_t is int64_t:
        memcpy(iout + k, ia + i, (ie + 1 - i) * sizeof(int64_t))
        memcpy(iout + k + ie + 1 - i, ib + j, (je + 1 - j) * sizeof(int64_t))


cdef bint _merge_sort(key_t* a, index_t* ia, key_t* b, index_t* ib, Py_ssize_t n,
                      order_t* order) noexcept nogil:
    """Sort a[0:n] stably, using b[0:n] as scratch. Returns whether the result ended in b (and
    ib) rather than in a (and ia): the passes ping-pong between the two buffers."""
    cdef Py_ssize_t lo, mid, hi, width = RUN
    cdef key_t* src = a
    cdef key_t* dst = b
    cdef key_t* tmp
    cdef index_t* isrc = ia
    cdef index_t* idst = ib
    cdef index_t* itmp
    cdef bint in_b = False
    lo = 0
    while lo < n:
        _insertion_sort(a + lo, _at(ia, lo), min(<Py_ssize_t>RUN, n - lo), order)
        lo += RUN
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            _merge(src + lo, _at(isrc, lo), mid - lo, src + mid, _at(isrc, mid), hi - mid,
                   dst + lo, _at(idst, lo), order)
            lo = hi
        tmp = src
        src = dst
        dst = tmp
        itmp = isrc
        isrc = idst
        idst = itmp
        in_b = not in_b
        width *= 2
    return in_b


cdef Py_ssize_t _corank(Py_ssize_t k, const key_t* a, Py_ssize_t na, const key_t* b,
                        Py_ssize_t nb, order_t* order) noexcept nogil:
    """How many of the first k elements of the stable merge of a and b come from a (the merge
    path; see Note [Sorting in parallel]): the smallest i with b[k-i-1] strictly before a[i]."""
    cdef Py_ssize_t lo = k - nb if k > nb else 0
    cdef Py_ssize_t hi = k if k < na else na
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) // 2        # here mid < na and k - mid - 1 >= 0
        if _before(b[k - mid - 1], a[mid], order):
            hi = mid
        else:
            lo = mid + 1
    return lo


# =============================================================================================
# One line: gather into scratch, sort, write out. See Note [Where NaN goes].
# =============================================================================================

cdef inline void _line_start(const SortJob* job, Py_ssize_t line, Py_ssize_t* in_off,
                             Py_ssize_t* out_off) noexcept nogil:
    """Element offsets of line number ``line`` (row-major over the other dims) in the input and
    in the outputs."""
    cdef Py_ssize_t r = line, q, i = 0, o = 0
    cdef int d
    for d in range(job.nother - 1, -1, -1):
        q = r % job.sizes[d]
        r = r // job.sizes[d]
        i += q * job.strides[d]
        o += q * job.out_strides[d]
    in_off[0] = i
    out_off[0] = o


cdef Py_ssize_t _gather(const key_t* src, Py_ssize_t step, Py_ssize_t n, key_t* a,
                        index_t* ia) noexcept nogil:
    """Copy a line into a[0:n] (positions into ia): non-NaN values to the front in order, NaNs
    to the back in reverse order. Returns how many are not NaN."""
    cdef Py_ssize_t i, m = 0, t = n
    cdef key_t x
    if key_t is float or key_t is double:
        for i in range(n):
            x = src[i * step]
            if x != x:
                t -= 1
                a[t] = x
                if index_t is int64_t:
                    ia[t] = i
            else:
                a[m] = x
                if index_t is int64_t:
                    ia[m] = i
                m += 1
        return m
    else:
        if step == 1:
            memcpy(a, src, n * sizeof(key_t))
        else:
            for i in range(n):
                a[i] = src[i * step]
        if index_t is int64_t:
            for i in range(n):
                ia[i] = i
        return n


cdef void _write_out(const SortJob* job, Py_ssize_t out_off, const key_t* r, const index_t* ir,
                     const key_t* a, const index_t* ia, Py_ssize_t m,
                     order_t* order) noexcept nogil:
    """Write the sorted non-NaN values r[0:m] and the NaNs a[m:n] (stored reversed) to the
    outputs: NaNs last in ascending order, first in descending order."""
    cdef Py_ssize_t n = job.n, step = job.out_step, k = 0, s
    cdef key_t* vals = NULL if job.values == NULL else (<key_t*>job.values) + out_off
    cdef int64_t* idx = NULL if job.indices == NULL else job.indices + out_off
    if order_t is Descending:
        for s in range(n - 1, m - 1, -1):
            if vals != NULL:
                vals[k * step] = a[s]
            if index_t is int64_t:
                idx[k * step] = ia[s]
            k += 1
    if vals != NULL:
        if step == 1:
            memcpy(vals + k, r, m * sizeof(key_t))
        else:
            for s in range(m):
                vals[(k + s) * step] = r[s]
    if index_t is int64_t:
        if step == 1:
            memcpy(idx + k, ir, m * sizeof(int64_t))
        else:
            for s in range(m):
                idx[(k + s) * step] = ir[s]
    k += m
    if order_t is Ascending:
        for s in range(n - 1, m - 1, -1):
            if vals != NULL:
                vals[k * step] = a[s]
            if index_t is int64_t:
                idx[k * step] = ia[s]
            k += 1


cdef void _sort_line(const SortJob* job, Py_ssize_t line, char* scratch, order_t* order,
                     key_t* key_tag, index_t* index_tag) noexcept nogil:
    """Sort one line on one thread, with ``scratch`` as its buffers."""
    cdef Py_ssize_t n = job.n, in_off, out_off, m
    cdef index_t* ia = NULL
    cdef index_t* ib = NULL
    cdef key_t* a
    cdef key_t* b
    if index_t is int64_t:
        ia = <int64_t*>scratch
        ib = ia + n
        scratch += 2 * n * sizeof(int64_t)
    a = <key_t*>scratch
    b = a + n
    _line_start(job, line, &in_off, &out_off)
    m = _gather((<key_t*>job.src) + in_off, job.step, n, a, ia)
    if _merge_sort(a, ia, b, ib, m, order):
        _write_out(job, out_off, b, ib, a, ia, m, order)
    else:
        _write_out(job, out_off, a, ia, a, ia, m, order)


cdef void _merge_piece(key_t* src, index_t* isrc, key_t* dst, index_t* idst,
                       const Py_ssize_t* bounds, Py_ssize_t nchunks, Py_ssize_t pair,
                       Py_ssize_t piece, Py_ssize_t npieces, order_t* order) noexcept nogil:
    """One thread's share of one merge round: piece ``piece`` of ``npieces`` equal parts of the
    output of merging chunks 2*pair and 2*pair + 1 (a lone last chunk is copied)."""
    cdef Py_ssize_t lo = bounds[2 * pair], mid, hi, total, k0, k1, i0, i1
    if 2 * pair + 1 >= nchunks:   # the odd chunk out: copy its piece across
        total = bounds[nchunks] - lo
        k0 = lo + total * piece // npieces
        k1 = lo + total * (piece + 1) // npieces
        memcpy(dst + k0, src + k0, (k1 - k0) * sizeof(key_t))
        if index_t is int64_t:
            memcpy(idst + k0, isrc + k0, (k1 - k0) * sizeof(int64_t))
        return
    mid = bounds[2 * pair + 1]
    hi = bounds[2 * pair + 2]
    total = hi - lo
    k0 = total * piece // npieces
    k1 = total * (piece + 1) // npieces
    i0 = _corank(k0, src + lo, mid - lo, src + mid, hi - mid, order)
    i1 = _corank(k1, src + lo, mid - lo, src + mid, hi - mid, order)
    _merge(src + lo + i0, _at(isrc, lo + i0), i1 - i0,
           src + mid + k0 - i0, _at(isrc, mid + k0 - i0), (k1 - i1) - (k0 - i0),
           dst + lo + k0, _at(idst, lo + k0), order)


cdef void _sort_line_shared(const SortJob* job, Py_ssize_t line, order_t* order,
                            key_t* key_tag, index_t* index_tag) noexcept nogil:
    """Sort one long line with all threads: chunks sorted in parallel, then merged in rounds,
    each merge split by merge path. See Note [Sorting in parallel]."""
    cdef Py_ssize_t n = job.n, in_off, out_off, m, lo, hi, q, t, p, nchunks, npairs
    cdef Py_ssize_t nt = job.nthreads
    cdef Py_ssize_t* bounds = job.bounds
    cdef char* scratch = job.scratch
    cdef index_t* ia = NULL
    cdef index_t* ib = NULL
    cdef index_t* itmp
    cdef key_t* a
    cdef key_t* b
    cdef key_t* tmp
    if index_t is int64_t:
        ia = <int64_t*>scratch
        ib = ia + n
        scratch += 2 * n * sizeof(int64_t)
    a = <key_t*>scratch
    b = a + n
    _line_start(job, line, &in_off, &out_off)
    m = _gather((<key_t*>job.src) + in_off, job.step, n, a, ia)
    nchunks = min(nt, max(m // RUN, 1))
    for q in range(nchunks + 1):
        bounds[q] = m * q // nchunks
    for q in prange(nchunks, num_threads=nt, schedule="static"):
        lo = bounds[q]
        hi = bounds[q + 1]
        if _merge_sort(a + lo, _at(ia, lo), b + lo, _at(ib, lo), hi - lo, order):
            memcpy(a + lo, b + lo, (hi - lo) * sizeof(key_t))
            if index_t is int64_t:
                memcpy(ia + lo, ib + lo, (hi - lo) * sizeof(int64_t))
    while nchunks > 1:
        npairs = (nchunks + 1) // 2
        for t in prange(npairs * nt, num_threads=nt, schedule="static"):
            _merge_piece(a, ia, b, ib, bounds, nchunks, t // nt, t % nt, nt, order)
        for p in range(npairs):
            bounds[p] = bounds[2 * p]
        bounds[npairs] = m
        nchunks = npairs
        tmp = a
        a = b
        b = tmp
        itmp = ia
        ia = ib
        ib = itmp
    # a (after the swaps) holds the sorted values; the NaNs sit in the tail of the first buffer
    if index_t is int64_t:
        itmp = <int64_t*>job.scratch
        tmp = <key_t*>(job.scratch + 2 * n * sizeof(int64_t))
    else:
        itmp = NULL
        tmp = <key_t*>job.scratch
    _write_out(job, out_off, a, ia, tmp, itmp, m, order)


cdef void _sort_lines(const SortJob* job, order_t* order, key_t* key_tag,
                      index_t* index_tag) noexcept nogil:
    """Sort every line: one thread, a prange over lines, or all threads on each line."""
    cdef Py_ssize_t line
    if job.split_lines:
        for line in range(job.nlines):
            _sort_line_shared(job, line, order, key_tag, index_tag)
    elif job.nthreads > 1:
        for line in prange(job.nlines, num_threads=job.nthreads, schedule="static"):
            _sort_line(job, line, job.scratch + threadid() * job.scratch_stride, order,
                       key_tag, index_tag)
    else:
        for line in range(job.nlines):
            _sort_line(job, line, job.scratch, order, key_tag, index_tag)


# =============================================================================================
# topk by selection. See Note [topk by selection].
# =============================================================================================

cdef inline bint _before_nan(key_t a, key_t b, order_t* order) noexcept nogil:
    """``_before`` for keys that may be NaN (NaN is the largest value, see Note [Where NaN
    goes]): selection looks at every element once, so it does not set NaNs aside first."""
    if key_t is float or key_t is double:
        if order_t is Ascending:
            return a < b or (b != b and a == a)
        else:
            return b < a or (a != a and b == b)
    else:
        return _before(a, b, order)


cdef inline bint _after(key_t av, int64_t ai, key_t bv, int64_t bi, order_t* order) noexcept nogil:
    """Whether element (value av, position ai) comes after (bv, bi) in the stable sort."""
    if _before_nan(bv, av, order):
        return True
    if _before_nan(av, bv, order):
        return False
    return ai > bi


cdef void _sift_down(key_t* hv, int64_t* hi, Py_ssize_t size, Py_ssize_t p,
                     order_t* order) noexcept nogil:
    """Move heap entry p down until no child of it comes after it (the root is the entry that
    comes last of all)."""
    cdef key_t v = hv[p]
    cdef int64_t vi = hi[p]
    cdef Py_ssize_t c
    while True:
        c = 2 * p + 1
        if c >= size:
            break
        if c + 1 < size and _after(hv[c + 1], hi[c + 1], hv[c], hi[c], order):
            c += 1
        if not _after(hv[c], hi[c], v, vi, order):
            break
        hv[p] = hv[c]
        hi[p] = hi[c]
        p = c
    hv[p] = v
    hi[p] = vi


cdef void _select_line(const SortJob* job, Py_ssize_t line, char* scratch, order_t* order,
                       key_t* key_tag) noexcept nogil:
    """The first k elements of the stable sort of one line, by a heap of the best k so far.
    See Note [topk by selection]."""
    cdef Py_ssize_t n = job.n, k = job.k, step = job.step, in_off, out_off, i, p, e
    cdef int64_t* hi = <int64_t*>scratch
    cdef key_t* hv = <key_t*>(scratch + k * sizeof(int64_t))
    cdef const key_t* src
    cdef key_t* vals
    cdef key_t x
    cdef int64_t xi
    _line_start(job, line, &in_off, &out_off)
    src = (<const key_t*>job.src) + in_off
    for i in range(k):
        hv[i] = src[i * step]
        hi[i] = i
    for p in range(k // 2 - 1, -1, -1):
        _sift_down(hv, hi, k, p, order)
    for i in range(k, n):
        x = src[i * step]
        # a later element enters only if it goes strictly before the last of the best k
        if _before_nan(x, hv[0], order):
            hv[0] = x
            hi[0] = i
            _sift_down(hv, hi, k, 0, order)
    for e in range(k - 1, 0, -1):   # heap sort: the last of all goes to the end, and so on
        x = hv[e]
        xi = hi[e]
        hv[e] = hv[0]
        hi[e] = hi[0]
        hv[0] = x
        hi[0] = xi
        _sift_down(hv, hi, e, 0, order)
    vals = (<key_t*>job.values) + out_off
    for i in range(k):
        vals[i * job.out_step] = hv[i]
        job.indices[out_off + i * job.out_step] = hi[i]


cdef void _select_lines(const SortJob* job, order_t* order, key_t* key_tag) noexcept nogil:
    cdef Py_ssize_t line
    if job.nthreads > 1:
        for line in prange(job.nlines, num_threads=job.nthreads, schedule="static"):
            _select_line(job, line, job.scratch + threadid() * job.scratch_stride, order,
                         key_tag)
    else:
        for line in range(job.nlines):
            _select_line(job, line, job.scratch, order, key_tag)


# =============================================================================================
# Dispatch and the Python entry points
# =============================================================================================

cdef void _sort_typed(const SortJob* job, key_t* key_tag) noexcept nogil:
    """The second switch of the dispatch: order and index tags, once per call."""
    if job.k:
        if job.descending:
            _select_lines(job, <Descending*>NULL, key_tag)
        else:
            _select_lines(job, <Ascending*>NULL, key_tag)
    elif job.descending:
        if job.indices != NULL:
            _sort_lines(job, <Descending*>NULL, key_tag, <int64_t*>NULL)
        else:
            _sort_lines(job, <Descending*>NULL, key_tag, <NoIndex*>NULL)
    else:
        if job.indices != NULL:
            _sort_lines(job, <Ascending*>NULL, key_tag, <int64_t*>NULL)
        else:
            _sort_lines(job, <Ascending*>NULL, key_tag, <NoIndex*>NULL)


cdef void _sort_dispatch(const SortJob* job, int num) noexcept nogil:
    """The dtype switch (see Note [One loop, every dtype] in copy.pyx.tp)."""
    if num == kBool or num == kUInt8:
        _sort_typed(job, <uint8_t*>NULL)
    elif num == kInt8:
        _sort_typed(job, <int8_t*>NULL)
    elif num == kInt16:
        _sort_typed(job, <int16_t*>NULL)
    elif num == kInt32:
        _sort_typed(job, <int32_t*>NULL)
    elif num == kInt64:
        _sort_typed(job, <int64_t*>NULL)
    elif num == kUInt16:
        _sort_typed(job, <uint16_t*>NULL)
    elif num == kUInt32:
        _sort_typed(job, <uint32_t*>NULL)
    elif num == kUInt64:
        _sort_typed(job, <uint64_t*>NULL)
    elif num == kFloat32:
        _sort_typed(job, <float*>NULL)
    elif num == kFloat64:
        _sort_typed(job, <double*>NULL)
    elif num == kComplex64:
        _sort_typed(job, <cfloat_t*>NULL)
    else:
        _sort_typed(job, <cdouble_t*>NULL)


cdef int _init_job(SortJob* job, TensorBase x, int axis, Py_ssize_t out_n,
                   str name) except -1:
    """Fill in the geometry of a job over ``x``'s lines along ``axis`` (outputs row-major, with
    ``out_n`` elements along the axis)."""
    cdef int nd = x._ndim, d, k
    cdef Py_ssize_t out_stride = 1
    if not x._storage.device.is_cpu:
        raise NotImplementedError(f"{name}: the tensor is on {x.device}; only the CPU kernel "
                                  "exists yet")
    if nd < 1 or not 0 <= axis < nd:
        raise ValueError(f"{name}: axis {axis} is not a dim of a {nd}-d tensor")
    job.n = x._sizes[axis]
    job.step = x._strides[axis]
    job.src = x._data()
    job.nother = nd - 1
    job.nlines = 1
    for d in range(nd - 1, -1, -1):
        if d == axis:
            job.out_step = out_stride
            out_stride *= out_n
        else:
            k = d if d < axis else d - 1
            job.sizes[k] = x._sizes[d]
            job.strides[k] = x._strides[d]
            job.out_strides[k] = out_stride
            job.nlines *= x._sizes[d]
            out_stride *= x._sizes[d]
    job.split_lines = False
    job.bounds = NULL
    job.scratch = NULL
    job.k = 0
    return 0


cdef int _run_job(SortJob* job, int num, Py_ssize_t per_thread, Py_ssize_t work) except -1:
    """Allocate the scratch space (``per_thread`` bytes for each thread), run, free."""
    cdef Py_ssize_t nbytes
    per_thread = (per_thread + 63) // 64 * 64   # threads do not share cache lines
    job.scratch_stride = per_thread
    nbytes = per_thread * (1 if job.split_lines else job.nthreads)
    job.scratch = <char*>PyMem_Malloc(nbytes)
    if job.scratch == NULL:
        raise MemoryError(f"sort: cannot allocate {nbytes} bytes of scratch space")
    if job.split_lines:
        job.bounds = <Py_ssize_t*>PyMem_Malloc((job.nthreads + 1) * sizeof(Py_ssize_t))
        if job.bounds == NULL:
            PyMem_Free(job.scratch)
            raise MemoryError("sort: cannot allocate the chunk table")
    try:
        if work < GRAIN_SIZE:   # small sorts keep the GIL: releasing it costs more
            _sort_dispatch(job, num)
        else:
            with nogil:
                _sort_dispatch(job, num)
    finally:
        PyMem_Free(job.scratch)
        PyMem_Free(job.bounds)
    return 0


def sort_axis(TensorBase x, int axis, bint descending, bint want_values, bint want_indices):
    """Sort ``x`` stably along ``axis`` (normalised; ``x.ndim >= 1``): returns ``(values,
    indices)``, fresh row-major tensors of x's shape (values in x's dtype, positions along the
    axis as int64), each None when not wanted. See Note [Why merge sort].

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.sort import sort_axis
    >>> sort_axis(strided.asarray([3.0, float("nan"), 1.0, 3.0]), 0, True, True, True)
    (tensor([nan,  3.,  3.,  1.]), tensor([1, 0, 3, 2]))
    """
    cdef SortJob job
    cdef int nthreads = num_threads()
    cdef TensorBase values = None, indices = None
    _init_job(&job, x, axis, x._sizes[axis] if 0 <= axis < x._ndim else 0, "sort")
    if want_values:
        values = empty_tensor(x._ndim, x._sizes, x.dtype, x._storage.device)
    if want_indices:
        indices = empty_tensor(x._ndim, x._sizes, dtype_from_num(kInt64), x._storage.device)
    if x._numel == 0:
        return values, indices
    job.values = NULL if values is None else values._data()
    job.indices = NULL if indices is None else <int64_t*>indices._data()
    job.descending = descending
    if nthreads > 1 and x._numel >= GRAIN_SIZE:
        # few long lines: all threads share each line; else each thread takes whole lines
        job.split_lines = job.nlines < nthreads and job.n >= 2 * RUN * nthreads
        if not job.split_lines:
            nthreads = min(<Py_ssize_t>nthreads, job.nlines)
    else:
        nthreads = 1
    job.nthreads = nthreads
    # scratch: two position arrays (if wanted) and two key arrays
    _run_job(&job, x.dtype.num, 2 * job.n * (x.dtype.itemsize + (8 if want_indices else 0)),
             x._numel)
    return values, indices


def topk_axis(TensorBase x, int axis, Py_ssize_t k, bint largest):
    """``(values, indices)`` of the first ``k`` elements along ``axis`` of the stable sort of
    ``x`` (descending if ``largest``), found by selection; fresh row-major tensors with ``k``
    elements along the axis. Meant for k much smaller than the line (see Note [topk by
    selection]); ``1 <= k <= n``.

    Examples
    --------
    >>> import strided
    >>> from strided._cpu.sort import topk_axis
    >>> topk_axis(strided.asarray([[1, 7, 7, 3], [5, 0, 9, 5]]), 1, 2, True)
    (tensor([[7, 7],
            [9, 5]]), tensor([[1, 2],
            [2, 0]]))
    """
    cdef SortJob job
    cdef int nthreads = num_threads()
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef TensorBase values, indices
    cdef int d
    _init_job(&job, x, axis, k, "topk")
    if not 1 <= k <= job.n:
        raise ValueError(f"topk_axis: k={k} is out of range for a dim of size {job.n} (the "
                         "selection takes 1 <= k <= n)")
    for d in range(x._ndim):
        sizes[d] = k if d == axis else x._sizes[d]
    values = empty_tensor(x._ndim, sizes, x.dtype, x._storage.device)
    indices = empty_tensor(x._ndim, sizes, dtype_from_num(kInt64), x._storage.device)
    if values._numel == 0:
        return values, indices
    job.k = k
    job.values = values._data()
    job.indices = <int64_t*>indices._data()
    job.descending = largest
    if nthreads > 1 and x._numel >= GRAIN_SIZE:
        nthreads = min(<Py_ssize_t>nthreads, job.nlines)
    else:
        nthreads = 1
    job.nthreads = nthreads
    _run_job(&job, x.dtype.num, k * (x.dtype.itemsize + 8), x._numel)
    return values, indices
