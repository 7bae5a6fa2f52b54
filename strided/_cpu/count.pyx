"""Counting: ``bincount`` and ``histogram`` on the CPU, each one pass over the data into a small
table of counts (or of weight sums), and the one-pass ``minmax`` that sizes the table. The Python
halves are ``strided.bincount`` and ``strided.histogram`` in ``strided/_ops/histograms.py``, which
keep a path composed of existing ops for the other devices and for autograd (Note [Counting
kernels] there says when each runs).

Note [Private histograms]
~~~~~~~~~~~~~~~~~~~~~~~~~
A count is a scatter: ``counts[bin(x[i])] += 1``. Threads cannot share one table without atomics
(slow, and contended when a few bins get most of the data), so each thread counts its own slice
of the input into a private table, and the tables are summed bin by bin at the end. That costs
``nthreads * nbins`` extra memory and additions, cheap while the tables are small next to the
input: threads are used only above 2 * GRAIN_SIZE elements and while ``nbins * nthreads`` is at
most an eighth of them; below, one thread counts into the result directly. Integer counts are
exact in any order, so the result does not depend on the thread count. Sums of float weights do
depend on the order of the additions, so weighted counts always run on one thread, in the order
of the input, which is the order ``np.bincount`` adds them in: the same bits as NumPy.

A histogram finds the bins of a block of BLOCK values first and counts them after. Fused into one
loop, the address of each ``counts[k] += 1`` is known only at the end of a long chain (load,
subtract, divide, convert, compare with two edges), so the next count's load runs before it is
known and the CPU must undo it whenever the two hit the same bin: on random data that made the
fused loop about 2x slower than the blocked one (measured on 1e6 normal values in 100 bins).

Note [Histogram bins by arithmetic]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Bin i holds ``edges[i] <= x < edges[i + 1]``, the last bin also its right edge; values outside
``[edges[0], edges[nb]]`` (and NaN, which compares false) are dropped. For explicit edges the bin
is a binary search. For ``nb`` equal bins NumPy (``numpy/lib/_histograms_impl.py``) computes it
by arithmetic instead, ``int((x - first) / (last - first) * nb)`` in the edges' dtype, and then,
because that can be one off within an ulp of an edge, moves it down one if ``x < edges[i]`` and
up one if ``x >= edges[i + 1]`` (never past the last bin). The kernel does the same operations in
the same dtype, so each value lands in the bin NumPy puts it in: the counts are NumPy's, bit for
bit. The estimate is clamped to ``[0, nb - 1]`` first so that no rounding can index outside the
edges.
"""

from cython.parallel cimport prange
from libc.math cimport NAN
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free

from strided._core cimport TensorBase, cpu_device, empty_tensor
from strided._dtype cimport DType, dtype_from_num, kFloat32, kFloat64, kInt64
# real_t: float, double; minmax_t: int64_t (the index dtype) and the real floats
from strided._fused cimport minmax_t, real_t
from strided._iter cimport GRAIN_SIZE
from strided._threads cimport num_threads


# =============================================================================================
# minmax: both ends of a 1-D tensor in one pass
# =============================================================================================

cdef void _minmax(const char* x, Py_ssize_t s, Py_ssize_t n, minmax_t* lo,
                  minmax_t* hi) noexcept nogil:
    """lo, hi = min and max of the n elements x[0], x[s], ...; a NaN gives NaN for both."""
    cdef Py_ssize_t i
    cdef const minmax_t* p = <const minmax_t*>x
    cdef minmax_t v, a = p[0], b = a
    cdef bint nan = False
    if s == sizeof(minmax_t):   # contiguous: a loop the compiler vectorises
        for i in range(n):
            v = p[i]
            if minmax_t is not int64_t:
                nan |= v != v
            a = v if v < a else a
            b = v if v > b else b
    else:
        for i in range(n):
            v = (<const minmax_t*>(x + i * s))[0]
            if minmax_t is not int64_t:
                nan |= v != v
            a = v if v < a else a
            b = v if v > b else b
    if minmax_t is not int64_t:
        if nan:
            a = b = <minmax_t>NAN
    lo[0] = a
    hi[0] = b


def minmax(TensorBase x):
    """``(min, max)`` of a non-empty 1-D int64, float32 or float64 CPU tensor as Python numbers,
    in one pass (``(nan, nan)`` when it holds a NaN, as NumPy's ``min`` and ``max`` give)."""
    cdef int num = x.dtype.num
    cdef Py_ssize_t n = x._numel, s
    cdef int64_t ilo, ihi
    cdef float flo, fhi
    cdef double dlo, dhi
    cdef const char* data
    if x._ndim != 1 or n == 0 or num not in (kInt64, kFloat32, kFloat64):
        raise ValueError("minmax: needs a non-empty 1-D int64, float32 or float64 tensor")
    if not x._storage.device.is_cpu:
        raise NotImplementedError(f"minmax: the tensor is on {x.device}; this is the CPU kernel")
    s = x._strides[0] * x.dtype.itemsize
    data = x._data()
    with nogil:
        if num == kInt64:
            _minmax[int64_t](data, s, n, &ilo, &ihi)
        elif num == kFloat32:
            _minmax[float](data, s, n, &flo, &fhi)
        else:
            _minmax[double](data, s, n, &dlo, &dhi)
    if num == kInt64:
        return ilo, ihi
    if num == kFloat32:
        return flo, fhi
    return dlo, dhi


# =============================================================================================
# Counting loops: one slice of the input into one table. See Note [Private histograms].
# =============================================================================================

cdef inline Py_ssize_t _bin(real_t v, const real_t* e, Py_ssize_t nb, bint uniform,
                            real_t denom) noexcept nogil:
    """The bin of v among the nb + 1 increasing edges e, or -1 when it falls outside them.
    See Note [Histogram bins by arithmetic]."""
    cdef Py_ssize_t i, n, half
    cdef const real_t* p
    cdef real_t f
    if not (v >= e[0] and v <= e[nb]):
        return -1
    if uniform:
        f = (v - e[0]) / denom * <real_t>nb
        i = <Py_ssize_t>f
        if i >= nb:
            i = nb - 1
        elif i < 0:
            i = 0
        if v < e[i]:
            i -= 1
        elif i != nb - 1 and v >= e[i + 1]:
            i += 1
        return i
    if v == e[nb]:
        return nb - 1
    # the last edge <= v (e[0] is one), by halving without branches: the compiler makes each
    # step a conditional move, where a branch would be mispredicted half the time
    p = e
    n = nb + 1
    while n > 1:
        half = n // 2
        p = p + half if p[half] <= v else p
        n -= half
    return p - e


cdef void _count_ints(const char* x, Py_ssize_t s, Py_ssize_t begin, Py_ssize_t end,
                      const char* w, Py_ssize_t sw, Py_ssize_t nbins,
                      char* out) noexcept nogil:
    """out[x[i]] += 1 (or w[i]) for i in [begin, end); indices outside [0, nbins) are skipped."""
    cdef Py_ssize_t i
    cdef int64_t k
    cdef int64_t* counts = <int64_t*>out
    cdef double* sums = <double*>out
    for i in range(begin, end):
        k = (<const int64_t*>(x + i * s))[0]
        if <uint64_t>k < <uint64_t>nbins:
            if w == NULL:
                counts[k] += 1
            else:
                sums[k] += (<const double*>(w + i * sw))[0]


cdef enum:
    BLOCK = 256     # bins found per step of _count_bins (Note [Private histograms])


cdef void _count_bins(const char* x, Py_ssize_t s, Py_ssize_t begin, Py_ssize_t end,
                      const char* w, Py_ssize_t sw, const real_t* e, Py_ssize_t nb,
                      bint uniform, real_t denom, char* out) noexcept nogil:
    """out[bin(x[i])] += 1 (or w[i]) for i in [begin, end), values outside the edges skipped.
    The bins of a block are found first, then counted: see Note [Private histograms]."""
    cdef Py_ssize_t i, j, k, m
    cdef Py_ssize_t bins[BLOCK]
    cdef int64_t* counts = <int64_t*>out
    cdef double* sums = <double*>out
    i = begin
    while i < end:
        m = min(<Py_ssize_t>BLOCK, end - i)
        for j in range(m):
            bins[j] = _bin((<const real_t*>(x + (i + j) * s))[0], e, nb, uniform, denom)
        for j in range(m):
            k = bins[j]
            if k >= 0:
                if w == NULL:
                    counts[k] += 1
                else:
                    sums[k] += (<const double*>(w + (i + j) * sw))[0]
        i += m


ctypedef struct CountCtx:
    const char* x
    Py_ssize_t s
    const char* w           # NULL: count ones
    Py_ssize_t sw
    Py_ssize_t nbins
    int kind                # 0: int64 bin numbers; kFloat32 / kFloat64: values among edges
    const char* edges
    bint uniform
    double denom


cdef void _count_range(const CountCtx* c, Py_ssize_t begin, Py_ssize_t end,
                       char* out) noexcept nogil:
    if c.kind == 0:
        _count_ints(c.x, c.s, begin, end, c.w, c.sw, c.nbins, out)
    elif c.kind == kFloat32:
        _count_bins[float](c.x, c.s, begin, end, c.w, c.sw, <const float*>c.edges, c.nbins,
                           c.uniform, <float>c.denom, out)
    else:
        _count_bins[double](c.x, c.s, begin, end, c.w, c.sw, <const double*>c.edges, c.nbins,
                            c.uniform, c.denom, out)


cdef int _count(const CountCtx* c, Py_ssize_t n, char* out) except -1:
    """Count the n inputs into the zeroed table out (c.nbins entries), on private tables per
    thread when that pays. See Note [Private histograms]."""
    cdef int nthreads = num_threads()
    cdef Py_ssize_t nb = c.nbins, chunk, k, b
    cdef int64_t* tables
    cdef int64_t total
    if (c.w != NULL or nthreads <= 1 or n < 2 * GRAIN_SIZE
            or nb * nthreads > n // 8):
        with nogil:
            _count_range(c, 0, n, out)
        return 0
    tables = <int64_t*>calloc(nthreads * nb, sizeof(int64_t))
    if tables == NULL:
        raise MemoryError()
    chunk = (n + nthreads - 1) // nthreads
    with nogil:
        for k in prange(nthreads, num_threads=nthreads, schedule="static"):
            _count_range(c, k * chunk, min(n, (k + 1) * chunk), <char*>(tables + k * nb))
        for b in range(nb):
            total = 0
            for k in range(nthreads):
                total = total + tables[k * nb + b]
            (<int64_t*>out)[b] = total
    free(tables)
    return 0


cdef CountCtx _ctx(TensorBase x, TensorBase weights, Py_ssize_t nbins, str name) except *:
    cdef CountCtx c
    cdef DType f64 = dtype_from_num(kFloat64)
    if x._ndim != 1:
        raise ValueError(f"{name}: x must be 1-D, got {x._ndim} dims")
    if weights is not None and (weights._ndim != 1 or weights._numel != x._numel
                                or weights.dtype is not f64):
        raise ValueError(f"{name}: weights must be float64 with x's shape")
    if not x._storage.device.is_cpu or (weights is not None
                                        and not weights._storage.device.is_cpu):
        raise NotImplementedError(f"{name}: the tensors must be on the CPU (this is its kernel)")
    c.x = x._data()
    c.s = x._strides[0] * x.dtype.itemsize
    c.w = NULL if weights is None else weights._data()
    c.sw = 0 if weights is None else weights._strides[0] * 8
    c.nbins = nbins
    c.kind = 0
    c.edges = NULL
    c.uniform = False
    c.denom = 1.0
    return c


cdef TensorBase _table(Py_ssize_t nbins, TensorBase weights):
    """The zeroed result: int64 counts, or float64 sums of weights."""
    return empty_tensor(1, &nbins, dtype_from_num(kInt64 if weights is None else kFloat64),
                        cpu_device, True)


def bincount(TensorBase x, Py_ssize_t nbins, TensorBase weights=None):
    """How many of the 1-D int64 ``x`` equal each of 0 .. nbins - 1 (int64), or with the 1-D
    float64 ``weights`` the sum of their weights (float64). Values outside [0, nbins) are not
    counted (the caller checks there are none). See Note [Private histograms]."""
    cdef CountCtx c = _ctx(x, weights, nbins, "bincount")
    cdef TensorBase out
    if x.dtype.num != kInt64 or nbins < 0:
        raise ValueError("bincount: x must be int64 and nbins non-negative")
    out = _table(nbins, weights)
    if x._numel and nbins:
        _count(&c, x._numel, out._data())
    return out


def histogram(TensorBase x, TensorBase edges, bint uniform, double denom,
              TensorBase weights=None):
    """How many of the 1-D float32 or float64 ``x`` fall in each bin between the contiguous,
    increasing ``edges`` of x's dtype (int64), or with the 1-D float64 ``weights`` the sum of
    their weights (float64). ``uniform``: the edges are NumPy's equal bins over a range of width
    ``denom``, found by arithmetic (Note [Histogram bins by arithmetic]); else by a binary
    search."""
    cdef Py_ssize_t nb = edges._numel - 1
    cdef CountCtx c = _ctx(x, weights, nb, "histogram")
    cdef TensorBase out
    if (x.dtype.num not in (kFloat32, kFloat64) or edges.dtype is not x.dtype
            or edges._ndim != 1 or nb < 1 or not edges.is_contiguous()
            or not edges._storage.device.is_cpu):
        raise ValueError("histogram: x must be float32 or float64, with at least two contiguous "
                         "CPU edges of its dtype")
    c.kind = x.dtype.num
    c.edges = edges._data()
    c.uniform = uniform
    c.denom = denom
    out = _table(nb, weights)
    if x._numel:
        _count(&c, x._numel, out._data())
    return out
