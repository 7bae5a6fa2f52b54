"""Scans: cumulative sums and products along one dim, on any layout.

Note [Scans]
~~~~~~~~~~~~
A scan maps each *line* along the scanned dim (one line per index of the other dims, the *kept*
dims) to its running totals: ``out[0] = x[0]``, ``out[i] = out[i - 1] + x[i]``. Unlike a
reduction (Note [Reductions] in reduce.pyx.tp) a line is never split: its totals are computed
in order, one after another, exactly as NumPy's ``cumsum`` does, so the result of each element
is one fixed sequence of roundings whatever the layout or the number of threads. (A parallel
prefix scan over one line would be faster for a single long line, but it adds the elements in
another order, and its floats would then depend on how the line was cut.)

The driver (``scan`` below) walks the kept dims with a loop plan (Note [The loop plan]). Each
1-D run of the plan is ``n`` neighbouring lines, and one of two loop orders does them, picked by
which way memory runs:

* **line by line** (the scanned dim is the fast one, e.g. ``cumsum(x, 1)`` of a row-major
  matrix): each line is scanned from start to end, reading and writing consecutive elements;
* **row by row** (a kept dim is the fast one, e.g. ``cumsum(x, 0)``): step ``i`` updates all
  ``n`` lines at once, ``out[i, j] = out[i - 1, j] + x[i, j]`` for every ``j``, a loop over
  ``j`` the compiler vectorises, reading memory along its grain.

Both orders do the same operations on each element, so they give the same bits. Lines are spread
over threads (whole lines per thread) above GRAIN_SIZE elements of work.

Integer scans wrap around on overflow, as NumPy's do: signed sums and products are computed in
the unsigned type of the same width, where C defines wrapping (signed overflow is undefined in C,
and an optimising compiler may assume it never happens).
"""

from cython.parallel cimport prange
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from strided._core cimport MAX_DIMS, TensorBase, empty_tensor
from strided._dtype cimport (
    NUM_SCALAR_TYPES,
    DType,
    kComplex64,
    kComplex128,
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
    plan_run_range,
    plan_set_operand,
)

ctypedef float complex cfloat_t
ctypedef double complex cdouble_t

# bool is not here: a scan of bools runs in int64 (or the dtype= asked for), as a sum does.
ctypedef fused scan_t:
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

cdef enum:
    SCAN_SUM = 0
    SCAN_PROD = 1
    NUM_SCANS = 2

# The names the Python side passes, in the order of the enum above.
OPS = {"cumulative_sum": SCAN_SUM, "cumulative_prod": SCAN_PROD}


# =============================================================================================
# One step: a + b and a * b with NumPy's meaning (integers wrap)
# =============================================================================================

cdef inline scan_t _add(scan_t a, scan_t b) noexcept nogil:
    if scan_t is int32_t:
        return <int32_t>(<uint32_t>a + <uint32_t>b)
    elif scan_t is int64_t:
        return <int64_t>(<uint64_t>a + <uint64_t>b)
    elif scan_t is cfloat_t or scan_t is cdouble_t or scan_t is float or scan_t is double:
        # no cast: Cython builds a cast complex as re + im * I, which turns an infinite
        # imaginary part into a NaN real part (see Note [One loop, every dtype] in copy.pyx.tp)
        return a + b
    else:
        # int8/int16/uint8/uint16 add in C's int, which cannot overflow; the cast back wraps
        return <scan_t>(a + b)


cdef inline scan_t _mul(scan_t a, scan_t b) noexcept nogil:
    if scan_t is int32_t:
        return <int32_t>(<uint32_t>a * <uint32_t>b)
    elif scan_t is int64_t:
        return <int64_t>(<uint64_t>a * <uint64_t>b)
    elif scan_t is uint16_t:
        # two uint16 promote to (signed) int, whose product 65535 * 65535 would overflow
        return <uint16_t>(<uint32_t>a * <uint32_t>b)
    elif scan_t is cfloat_t or scan_t is cdouble_t or scan_t is float or scan_t is double:
        return a * b
    else:
        return <scan_t>(a * b)


# =============================================================================================
# The two loop orders. See Note [Scans]. Strides are in bytes.
# =============================================================================================

cdef void _scan_line(int op, scan_t* out, const scan_t* x, Py_ssize_t length,
                     Py_ssize_t so, Py_ssize_t sx) noexcept nogil:
    """One line: out[i] = out[i - 1] op x[i], out[0] = x[0] (length >= 1)."""
    cdef const char* px = <const char*>x
    cdef char* po = <char*>out
    cdef scan_t acc = x[0]
    cdef Py_ssize_t i
    out[0] = acc
    if op == SCAN_SUM:
        for i in range(1, length):
            acc = _add(acc, (<const scan_t*>(px + i * sx))[0])
            (<scan_t*>(po + i * so))[0] = acc
    else:
        for i in range(1, length):
            acc = _mul(acc, (<const scan_t*>(px + i * sx))[0])
            (<scan_t*>(po + i * so))[0] = acc


cdef void _scan_rows(int op, scan_t* out, const scan_t* x, Py_ssize_t length, Py_ssize_t n,
                     Py_ssize_t ao, Py_ssize_t ax, Py_ssize_t so, Py_ssize_t sx) noexcept nogil:
    """n lines at once, one step along them at a time (lines j, steps i)."""
    cdef char* prev
    cdef char* cur
    cdef const char* pin
    cdef Py_ssize_t i, j
    # step 0: a copy of the first row
    if so == sizeof(scan_t) and sx == sizeof(scan_t):
        memcpy(out, x, n * sizeof(scan_t))
    else:
        for j in range(n):
            (<scan_t*>(<char*>out + j * so))[0] = (<const scan_t*>(<const char*>x + j * sx))[0]
    for i in range(1, length):
        prev = <char*>out + (i - 1) * ao
        cur = <char*>out + i * ao
        pin = <const char*>x + i * ax
        if so == sizeof(scan_t) and sx == sizeof(scan_t):
            # the contiguous case, written with plain indexing so that it vectorises
            if op == SCAN_SUM:
                for j in range(n):
                    (<scan_t*>cur)[j] = _add((<scan_t*>prev)[j], (<const scan_t*>pin)[j])
            else:
                for j in range(n):
                    (<scan_t*>cur)[j] = _mul((<scan_t*>prev)[j], (<const scan_t*>pin)[j])
        elif op == SCAN_SUM:
            for j in range(n):
                (<scan_t*>(cur + j * so))[0] = _add(
                    (<scan_t*>(prev + j * so))[0], (<const scan_t*>(pin + j * sx))[0]
                )
        else:
            for j in range(n):
                (<scan_t*>(cur + j * so))[0] = _mul(
                    (<scan_t*>(prev + j * so))[0], (<const scan_t*>(pin + j * sx))[0]
                )


ctypedef void (*line_fn)(int op, void* out, const void* x, Py_ssize_t length,
                         Py_ssize_t so, Py_ssize_t sx) noexcept nogil
ctypedef void (*rows_fn)(int op, void* out, const void* x, Py_ssize_t length, Py_ssize_t n,
                         Py_ssize_t ao, Py_ssize_t ax, Py_ssize_t so,
                         Py_ssize_t sx) noexcept nogil

cdef line_fn _LINE[NUM_SCALAR_TYPES]
cdef rows_fn _ROWS[NUM_SCALAR_TYPES]


cdef void _set(int num, line_fn line, rows_fn rows) noexcept:
    _LINE[num] = line
    _ROWS[num] = rows


cdef void _fill_tables() noexcept:
    """The dtype dispatch: one specialisation of each loop order per ScalarType code."""
    cdef int d
    for d in range(<int>NUM_SCALAR_TYPES):
        _LINE[d] = NULL
        _ROWS[d] = NULL
    _set(kInt8, <line_fn>_scan_line[int8_t], <rows_fn>_scan_rows[int8_t])
    _set(kInt16, <line_fn>_scan_line[int16_t], <rows_fn>_scan_rows[int16_t])
    _set(kInt32, <line_fn>_scan_line[int32_t], <rows_fn>_scan_rows[int32_t])
    _set(kInt64, <line_fn>_scan_line[int64_t], <rows_fn>_scan_rows[int64_t])
    _set(kUInt8, <line_fn>_scan_line[uint8_t], <rows_fn>_scan_rows[uint8_t])
    _set(kUInt16, <line_fn>_scan_line[uint16_t], <rows_fn>_scan_rows[uint16_t])
    _set(kUInt32, <line_fn>_scan_line[uint32_t], <rows_fn>_scan_rows[uint32_t])
    _set(kUInt64, <line_fn>_scan_line[uint64_t], <rows_fn>_scan_rows[uint64_t])
    _set(kFloat32, <line_fn>_scan_line[float], <rows_fn>_scan_rows[float])
    _set(kFloat64, <line_fn>_scan_line[double], <rows_fn>_scan_rows[double])
    _set(kComplex64, <line_fn>_scan_line[cfloat_t], <rows_fn>_scan_rows[cfloat_t])
    _set(kComplex128, <line_fn>_scan_line[cdouble_t], <rows_fn>_scan_rows[cdouble_t])


_fill_tables()


# =============================================================================================
# The driver
# =============================================================================================

ctypedef struct ScanCtx:
    int op
    line_fn line
    rows_fn rows
    Py_ssize_t length       # elements of x along the scanned dim
    Py_ssize_t ao, ax       # byte strides along the scanned dim: out (from its first total), x


cdef inline Py_ssize_t _absz(Py_ssize_t v) noexcept nogil:
    return v if v >= 0 else -v


cdef void _scan_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                     void* ctx) noexcept nogil:
    """n neighbouring lines (a 1-D run of the kept plan): pick the loop order by memory."""
    cdef ScanCtx* c = <ScanCtx*>ctx
    cdef Py_ssize_t j
    if n > 1 and _absz(strides[0]) + _absz(strides[1]) < _absz(c.ao) + _absz(c.ax):
        c.rows(c.op, data[0], data[1], c.length, n, c.ao, c.ax, strides[0], strides[1])
    else:
        for j in range(n):
            c.line(c.op, data[0] + j * strides[0], data[1] + j * strides[1], c.length,
                   c.ao, c.ax)


ctypedef struct FillCtx:
    Py_ssize_t itemsize
    char value[16]


cdef void _fill_loop(char** data, const Py_ssize_t* strides, Py_ssize_t n,
                     void* ctx) noexcept nogil:
    cdef FillCtx* c = <FillCtx*>ctx
    cdef Py_ssize_t j
    for j in range(n):
        memcpy(data[0] + j * strides[0], c.value, c.itemsize)


cdef void _run(const LoopPlan* kp, loop1d_fn loop, void* ctx, Py_ssize_t work,
               int nthreads) noexcept nogil:
    """Whole lines to each thread, so that no result depends on the thread count."""
    cdef Py_ssize_t numel = kp.numel, chunk, c, nchunks
    if nthreads <= 1 or work < 2 * GRAIN_SIZE or numel < 2:
        plan_run_range(kp, loop, ctx, 0, numel)
        return
    nchunks = min(numel, nthreads)
    chunk = (numel + nchunks - 1) // nchunks
    for c in prange(nchunks, num_threads=nthreads, schedule="static"):
        plan_run_range(kp, loop, ctx, c * chunk, min(numel, (c + 1) * chunk))


def scan(str name, TensorBase x, int axis, bint include_initial):
    """The running sums (products) of ``x`` along dim ``axis`` (normalised), in x's own dtype,
    into a fresh C-contiguous tensor; with ``include_initial`` the result is one longer along
    ``axis`` and starts with the identity (0 or 1). See Note [Scans]."""
    cdef int op = OPS[name]
    cdef int nd = x._ndim, d, nk = 0, nthreads = num_threads()
    cdef DType dt = x.dtype
    cdef Py_ssize_t itemsize = dt.itemsize, length, extra = 1 if include_initial else 0
    cdef Py_ssize_t osizes[MAX_DIMS]
    cdef Py_ssize_t ksizes[MAX_DIMS]
    cdef Py_ssize_t kx[MAX_DIMS]
    cdef Py_ssize_t ko[MAX_DIMS]
    cdef TensorBase result
    cdef char* out_first
    cdef LoopPlan kp
    cdef ScanCtx ctx
    cdef FillCtx fill
    if not x._storage.device.is_cpu:
        raise NotImplementedError(f"{name}: no CPU kernel for a tensor on {x._storage.device}")
    if not 0 <= axis < nd:
        raise IndexError(f"{name}: axis={axis} is out of range for a tensor with {nd} dims")
    ctx.line = _LINE[dt.num]
    ctx.rows = _ROWS[dt.num]
    if ctx.line == NULL:
        raise TypeError(f"{name} does not support dtype {dt.name}")
    for d in range(nd):
        osizes[d] = x._sizes[d] + (extra if d == axis else 0)
    result = empty_tensor(nd, osizes, dt, x._storage.device)
    if result._numel == 0:
        return result
    length = x._sizes[axis]
    for d in range(nd):
        if d != axis:
            ksizes[nk] = x._sizes[d]
            kx[nk] = x._strides[d]
            ko[nk] = result._strides[d]
            nk += 1
    out_first = result._data()
    if include_initial:
        # the identity, then the totals from the next position on
        plan_init(&kp, 1, nk, ksizes)
        plan_set_operand(&kp, 0, out_first, ko, itemsize)
        plan_reorder(&kp)
        plan_coalesce(&kp)
        fill.itemsize = itemsize
        memset(fill.value, 0, 16)
        if op == SCAN_PROD:
            _one(dt, fill.value)
        plan_run_range(&kp, _fill_loop, &fill, 0, kp.numel)
        out_first += result._strides[axis] * itemsize
    if length > 0:
        ctx.op = op
        ctx.length = length
        ctx.ao = result._strides[axis] * itemsize
        ctx.ax = x._strides[axis] * itemsize
        plan_init(&kp, 2, nk, ksizes)
        plan_set_operand(&kp, 0, out_first, ko, itemsize)
        plan_set_operand(&kp, 1, x._data(), kx, itemsize)
        plan_reorder(&kp)
        plan_coalesce(&kp)
        with nogil:
            _run(&kp, _scan_loop, &ctx, kp.numel * length, nthreads)
    result._storage.version += 1
    return result


cdef void _one(DType dt, char* buf) noexcept:
    """Write the value 1 of dtype ``dt`` into buf (zeroed beforehand)."""
    cdef Py_ssize_t width = dt.itemsize
    if dt.kind == "c":
        width //= 2    # a complex one is (1, 0): the imaginary part stays 0
    if dt.kind in "fc":
        if width == 4:
            (<float*>buf)[0] = 1
        else:
            (<double*>buf)[0] = 1
    elif width == 1:
        (<uint8_t*>buf)[0] = 1
    elif width == 2:
        (<uint16_t*>buf)[0] = 1
    elif width == 4:
        (<uint32_t*>buf)[0] = 1
    else:
        (<uint64_t*>buf)[0] = 1
