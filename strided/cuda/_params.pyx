"""Kernel parameters as the CUDA driver takes them, packed in C: the loop geometry of an
elementwise plan, and the argument array of ``cuLaunchKernel``.

Note [Kernel parameters]
~~~~~~~~~~~~~~~~~~~~~~~~
``cuLaunchKernel(f, grid, block, shared, stream, kernelParams, extra)`` does not take the
kernel's arguments themselves: ``kernelParams`` is an array of pointers, one per parameter of
the kernel, each pointing at that parameter's bytes in host memory. The driver copies the bytes
(as many as the kernel's parameter has) into the launch before ``cuLaunchKernel`` returns, so
the memory only has to live for the call.

strided's launch arguments are NumPy scalars whose bytes are exactly the kernel's parameters
(``np.void`` of a ``Geometry<N>`` struct, ``np.int32`` sizes, ``np.uint64`` addresses).
``pack`` copies them, one after another at 16-byte-aligned offsets, into one buffer, and puts
the array of pointers at its end: one allocation, a loop of ``memcpy``s. Done in Python with
ctypes (a string buffer per argument, a pointer array built from a list) the same work costs
several microseconds per launch, a sizeable part of a small op's time on a GPU.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t, uintptr_t
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.string cimport memcpy, memset

from strided._iter cimport ElementwisePlan

cdef extern from *:
    int __builtin_clzll(unsigned long long x) nogil

cdef enum:
    ALIGN = 16  # no kernel parameter needs more (a complex128 or a 16-byte struct member)


def pack(tuple args):
    """``(buffer, address)``: the bytes of ``args`` and, at ``address`` inside ``buffer``, the
    array of pointers to them that ``cuLaunchKernel`` takes (Note [Kernel parameters]). Keep
    ``buffer`` alive until the launch call returns."""
    cdef Py_ssize_t n = len(args), i, offset = 0
    cdef Py_ssize_t[64] starts
    cdef Py_buffer view
    if n > 64:
        raise ValueError(f"a kernel takes at most 64 parameters here, got {n}")
    for i in range(n):  # first pass: where each parameter goes
        PyObject_GetBuffer(args[i], &view, PyBUF_SIMPLE)
        starts[i] = offset
        offset += (view.len + ALIGN - 1) // ALIGN * ALIGN
        PyBuffer_Release(&view)
    buffer = bytearray(offset + n * sizeof(void*) + ALIGN)
    cdef char* base = buffer
    cdef Py_ssize_t shift = (-<uintptr_t>base) % ALIGN  # bytearray data is not 16-aligned
    cdef void** pointers = <void**>(base + shift + offset)
    for i in range(n):  # second pass: copy the bytes, point at them
        PyObject_GetBuffer(args[i], &view, PyBUF_SIMPLE)
        memcpy(base + shift + starts[i], view.buf, view.len)
        PyBuffer_Release(&view)
        pointers[i] = base + shift + starts[i]
    return buffer, <uintptr_t>pointers


cdef inline bint _divider(int64_t d, uint32_t* magic, uint32_t* shift) noexcept:
    """The multiplier and shift that divide by ``d`` in 1..2^31 (Note [Division by a loop size
    as a multiplication] in kernels/common.cuh); false, and zeros, for any other ``d``."""
    cdef uint32_t s = 0
    magic[0] = shift[0] = 0
    if d < 1 or d > 2147483648:
        return False
    if d > 1:  # s = ceil(log2(d)): the bit length of d - 1
        s = 64 - __builtin_clzll(<unsigned long long>(d - 1))
    # 2^32 * (2^s - d) < 2^32 * d <= 2^63: the product fits 64 bits
    magic[0] = <uint32_t>((((<uint64_t>1 << s) - <uint64_t>d) << 32) // <uint64_t>d + 1)
    shift[0] = s
    return True


def int_divider(d):
    """``(magic, shift)`` with ``n // d == (((n * magic) >> 32) + n) >> shift`` for every
    ``0 <= n < 2**31``: the numbers a 32-bit kernel divides by loop size ``d`` with, 1 <= d <=
    2**31 (Note [Division by a loop size as a multiplication] in kernels/common.cuh).

    >>> int_divider(1), int_divider(8), int_divider(7)
    ((1, 0), (1, 3), (613566757, 3))
    """
    cdef uint32_t magic, shift
    if not _divider(d, &magic, &shift):
        raise ValueError(f"a divider takes 1 <= d <= 2**31, got {d}")
    return magic, shift


cdef inline void _write_dividers(int64_t* q, int nd, int nop, int max_dims) noexcept:
    """Fill ``div_magic`` and ``div_shift`` of the Geometry struct at ``q`` from its sizes (the
    two uint32 arrays that follow ``ndim``), but the outermost's: it is never divided, and a
    1-D loop, the common one, costs no division here either."""
    cdef uint32_t* magic = <uint32_t*>(<char*>&q[max_dims + nop * max_dims + 3 * nop] + 4)
    cdef uint32_t* shift = magic + max_dims
    cdef int d
    for d in range(nd - 1):
        _divider(q[d], &magic[d], &shift[d])


cdef inline bytes _zero_bytes(Py_ssize_t n):
    """A new bytes object of ``n`` zeros, for the caller to fill in place before anyone else
    sees it (the C API's way to build a bytes object in one allocation). The geometries were a
    bytearray copied into bytes: two allocations and a copy, and once the dividers made a
    Geometry<3> larger than the 1032 bytes that glibc keeps per-thread caches of, the two cost
    35 ns more a launch than the one."""
    buf = PyBytes_FromStringAndSize(NULL, n)
    memset(PyBytes_AS_STRING(buf), 0, n)
    return buf


cdef inline Py_ssize_t _geometry_nbytes(int nop, int max_dims) noexcept:
    """sizeof(Geometry<nop>): the int64 fields, ndim, the two uint32 arrays, padded to 8."""
    return 8 * (max_dims + nop * max_dims + nop + 2 * nop) + 8 + 8 * max_dims


cdef inline Py_ssize_t _absval(Py_ssize_t x) noexcept:
    return x if x >= 0 else -x


def elementwise_geometry(ElementwisePlan plan, int max_dims):
    """An elementwise plan's loop packed for a CUDA kernel: ``(geometry, count, numel,
    fits_int32, contiguous)``.

    ``geometry`` is the bytes of the ``Geometry<N>`` struct of strided/cuda/kernels/common.cuh
    (N operands; per dim innermost first: sizes, then each operand's byte strides, addresses,
    scalar values, ndim, the sizes' dividers): the loop the iterator reordered and coalesced
    (Note [The loop plan] in _loop_plan.pyx), written here in C because doing it with NumPy in
    Python costs more than the launch itself (Note [The CUDA launch] in _launch.py).
    ``fits_int32``: every element count and byte offset fits 32-bit index math; ``contiguous``:
    one run at unit steps; ``count``: the kernel's element count parameter, ``numel`` as the
    bytes of an ``index_t`` (int32 when it fits, else int64), as the launch passes it.
    """
    cdef int nd = plan.loop.ndim, nop = plan.loop.noperands, d, k
    cdef Py_ssize_t item, extent, numel = plan.loop.numel
    # the count below 2**30, offsets below 2**31: Note [A 32-bit loop counter's headroom] in
    # _launch.py
    cdef bint fits = numel < 1073741824, contig = nd <= 1
    cdef Py_ssize_t nbytes = _geometry_nbytes(nop, max_dims)
    if nd > max_dims:
        raise NotImplementedError(
            f"{plan.name}: CUDA kernels take at most {max_dims} dims after coalescing; this "
            f"loop has {nd}; make the tensors contiguous first")
    buf = _zero_bytes(nbytes)
    cdef char* b = PyBytes_AS_STRING(buf)
    cdef int64_t* q = <int64_t*>b
    for d in range(nd):
        q[d] = plan.loop.shape[d]
    for k in range(nop):
        item = plan.out_dtype.itemsize if k == 0 else (
            1 if (k == 1 and plan.name == "where") else plan.dtype.itemsize)
        extent = item
        for d in range(nd):
            q[max_dims + k * max_dims + d] = plan.loop.stride_bytes[d][k]
            extent += (plan.loop.shape[d] - 1) * _absval(plan.loop.stride_bytes[d][k])
        if extent >= 2147483648:
            fits = False
        if k > 0 and plan.loop.data[k] == <char*>&plan._scalars[k - 1]:
            q[max_dims + nop * max_dims + k] = 0
            memcpy(&q[max_dims + nop * max_dims + nop + 2 * k], plan.loop.data[k], item)
        else:
            q[max_dims + nop * max_dims + k] = <int64_t>plan.loop.data[k]
            if nd == 1 and plan.loop.stride_bytes[0][k] != item:
                contig = False
    (<int32_t*>&q[max_dims + nop * max_dims + 3 * nop])[0] = nd
    _write_dividers(q, nd, nop, max_dims)
    cdef int32_t count32 = <int32_t>numel
    cdef int64_t count64 = numel
    count = (<char*>&count32)[:4] if fits else (<char*>&count64)[:8]
    return buf, count, numel, fits, contig


def geometry_bytes(shape, strides, data, scalars, int max_dims):
    """The bytes of the ``Geometry<N>`` struct of kernels/common.cuh, as
    ``_launch.geometry_struct`` (the readable NumPy form, the reference) lays them out, written
    in C: ``shape`` innermost first, ``strides[k]`` operand k's byte strides, ``data[k]`` its
    address (0 for a scalar operand, whose bytes, at most 16, are ``scalars[k]``; ``scalars``
    may be None). The copies, fills and index moves launch with it: the NumPy struct costs a
    few microseconds per launch (Note [The host path of an elementwise launch] in
    _elementwise.py)."""
    cdef Py_ssize_t nd = len(shape), nop = len(data), d, k
    cdef const char* raw
    if nd > max_dims:
        raise NotImplementedError(
            f"CUDA kernels take at most {max_dims} dims after coalescing; this loop has "
            f"{nd} (shape {tuple(shape)}); make the tensors contiguous on the CPU first")
    buf = _zero_bytes(_geometry_nbytes(nop, max_dims))
    cdef char* b = PyBytes_AS_STRING(buf)
    cdef int64_t* q = <int64_t*>b
    for d in range(nd):
        q[d] = shape[d]
    for k in range(nop):
        st = strides[k]
        for d in range(nd):
            q[max_dims + k * max_dims + d] = st[d]
        q[max_dims + nop * max_dims + k] = data[k]
        if scalars is not None and scalars[k] is not None:
            value = scalars[k]
            if len(value) > 16:
                raise ValueError(f"a scalar operand has at most 16 bytes, got {len(value)}")
            raw = value
            memcpy(&q[max_dims + nop * max_dims + nop + 2 * k], raw, len(value))
    (<int32_t*>&q[max_dims + nop * max_dims + 3 * nop])[0] = <int32_t>nd
    _write_dividers(q, nd, nop, max_dims)
    return buf


# A loop kind of ``launch_elementwise`` beside 1 (contiguous) and 0 (strided): a binary loop
# through a shared tile, kernels/elementwise.cu's strided_binary_tiled
TILED = 2
cdef enum:
    TILE_SIDE = 16  # both sides at least half a tile: a shorter one leaves most of a block idle
    SEGMENT = 32    # bytes the GPU moves for one scattered load


cdef int _tiled_input(ElementwisePlan plan) noexcept:
    """The input (1 or 2) of a binary loop to read through a shared tile, 0 for none: a 2-D
    loop where the output steps one element along dim 0 and that input, in memory, one element
    along dim 1 and a segment or more along dim 0 (Note [A binary op with a transposed input
    through a shared tile] in kernels/elementwise.cu)."""
    cdef int k
    if (plan.loop.ndim != 2 or plan.loop.noperands != 3 or plan.loop.shape[0] < TILE_SIDE
            or plan.loop.shape[1] < TILE_SIDE
            or plan.loop.stride_bytes[0][0] != plan.out_dtype.itemsize):
        return 0
    for k in range(1, 3):
        if (plan.loop.data[k] != <char*>&plan._scalars[k - 1]
                and plan.loop.stride_bytes[1][k] == plan.dtype.itemsize
                and _absval(plan.loop.stride_bytes[0][k]) >= SEGMENT):
            return k
    return 0


def launch_elementwise(int max_dims, Py_ssize_t per_block, tuple block, launch,
                       ElementwisePlan plan, tuple extra=()):
    """Launch ``plan``'s loop with the function ``launch`` (an ``_elementwise._Launch``) keeps
    for it (Note [The host path of an elementwise launch] in _elementwise.py, whose ``_run``
    binds the first three arguments). ``per_block``: the elements a block of a strided loop
    takes (a contiguous one takes ``launch.contiguous_per_block``); ``extra``: the kernel's
    parameters after the geometry and the count."""
    geometry, count, n, idx32, contig = elementwise_geometry(plan, max_dims)
    cdef Py_ssize_t numel = n, pb, blocks
    if numel == 0:
        return
    device = plan.out.device
    cdef int kind = 1 if contig else 0
    cdef int32_t tiled = 0
    if not contig and launch.tiles:
        tiled = _tiled_input(plan)
        if tiled:
            kind = TILED
            extra = extra + ((<char*>&tiled)[:4],)  # the kernel's ``int s``
    # Device objects are canonical (one per name, never freed): the address names one, and
    # hashes faster than the Device, whose hash is its name's
    entry = launch.functions.get((<Py_ssize_t><void*>device, idx32, kind))
    if entry is None:
        entry = launch.function(device, idx32, kind)
    backend, fn = entry
    pb = launch.contiguous_per_block if contig else per_block  # a tile is a strided block's work
    blocks = (numel + pb - 1) // pb  # launch_1d's grid
    if blocks > 2147483647:
        blocks = 2147483647
    backend.launch(fn, (blocks,), block, (geometry, count) + extra)
