"""Boolean masks: ``nonzero``, the coordinates of a mask's true elements, and the same kernel
writing byte offsets instead, which ``index.pyx.tp``'s ``mask_offsets`` uses for ``x[mask]``.

The Python half is ``strided/_ops/indexing.py`` (``nonzero``, ``argwhere``, ``where`` with one
argument, and masks inside ``x[...]``).
"""

from cython.parallel cimport prange
from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc

from strided._core cimport MAX_DIMS, TensorBase, empty_tensor
from strided._dtype cimport dtype_from_num, kBool, kInt64

from strided._cpu.chunks cimport nchunks as _nchunks


# =============================================================================================
# nonzero: count, then fill, by ranges of elements (deterministic, parallel)
# =============================================================================================

cdef Py_ssize_t _count(const uint8_t* m, Py_ssize_t e0, Py_ssize_t e1) noexcept nogil:
    cdef Py_ssize_t i, n = 0
    for i in range(e0, e1):
        n += m[i] != 0
    return n


cdef void _fill(const uint8_t* m, int ndim, const Py_ssize_t* sizes, Py_ssize_t e0,
                Py_ssize_t e1, int64_t* out, Py_ssize_t start, Py_ssize_t stop,
                Py_ssize_t s_hit, Py_ssize_t s_coord, const int64_t* weights) noexcept nogil:
    """Hits start..stop-1 are the non-zero elements among elements [e0, e1) (row-major): write
    their coordinates, or with ``weights``, one number per hit, sum(coordinate[d] *
    weights[d]) (a byte offset).

    Branch-free, as NumPy's nonzero: every element is written to slot ``pos`` and ``pos``
    moves on only past a hit, so a miss is overwritten by the next hit; the scan stops when
    the last hit is in, so nothing lands past ``stop`` (another thread's first slot). The
    coordinates of all but the last dim are worked out once per row.
    """
    cdef Py_ssize_t e = e0, r, j, j0, jend, rem, inner = sizes[ndim - 1], pos = start
    cdef int64_t coords[MAX_DIMS]
    cdef int64_t base, w_last = weights[ndim - 1] if weights != NULL else 0
    cdef int d
    cdef int64_t* o
    if start >= stop:
        return
    while e < e1:
        r = e // inner
        j0 = e - r * inner
        jend = min(inner, j0 + (e1 - e))
        rem = r
        base = 0
        for d in range(ndim - 2, -1, -1):
            coords[d] = rem % sizes[d]
            rem = rem // sizes[d]
            if weights != NULL:
                base += coords[d] * weights[d]
        if weights != NULL:
            for j in range(j0, jend):
                out[pos] = base + j * w_last
                pos += m[e + j - j0] != 0
                if pos == stop:
                    return
        elif ndim == 1:
            for j in range(j0, jend):
                out[pos * s_hit] = j
                pos += m[j] != 0
                if pos == stop:
                    return
        else:
            for j in range(j0, jend):
                o = out + pos * s_hit
                for d in range(ndim - 1):
                    o[d * s_coord] = coords[d]
                o[(ndim - 1) * s_coord] = j
                pos += m[e + j - j0] != 0
                if pos == stop:
                    return
        e += jend - j0


cdef TensorBase nonzero_kernel(TensorBase mask, bint coords_last, const int64_t* weights):
    """The kernel of nonzero and of index.pyx.tp's mask_offsets: count, then fill, by ranges of
    elements."""
    cdef int nd = mask._ndim
    cdef Py_ssize_t numel = mask._numel, nchunks, chunk, c, total = 0
    cdef Py_ssize_t* counts
    cdef Py_ssize_t sizes[2]
    cdef TensorBase out
    cdef const uint8_t* m
    cdef int64_t* o
    cdef Py_ssize_t s_hit, s_coord
    if mask.dtype.num != kBool or nd < 1 or not mask.is_contiguous():
        raise ValueError("nonzero: needs a contiguous bool tensor with at least one dim")
    if not mask._storage.device.is_cpu:
        raise NotImplementedError("nonzero on the GPU needs the CUDA backend")
    m = <const uint8_t*>mask._data()
    nchunks = _nchunks(numel, numel)
    chunk = (numel + nchunks - 1) // nchunks
    counts = <Py_ssize_t*>malloc((nchunks + 1) * sizeof(Py_ssize_t))
    if counts == NULL:
        raise MemoryError()
    try:
        if nchunks > 1:
            with nogil:
                for c in prange(nchunks, num_threads=nchunks, schedule="static"):
                    counts[c] = _count(m, c * chunk, min(numel, (c + 1) * chunk))
        else:
            counts[0] = _count(m, 0, numel)
        for c in range(nchunks):  # counts become start positions
            total, counts[c] = total + counts[c], total
        counts[nchunks] = total
        if weights != NULL:
            sizes[0] = total
            out = empty_tensor(1, sizes, dtype_from_num(kInt64), mask._storage.device)
            s_hit, s_coord = 1, 0
        elif coords_last:
            sizes[0], sizes[1] = total, nd
            s_hit, s_coord = nd, 1
        else:
            sizes[0], sizes[1] = nd, total
            s_hit, s_coord = 1, total
        if weights == NULL:
            out = empty_tensor(2, sizes, dtype_from_num(kInt64), mask._storage.device)
        o = <int64_t*>out._data()
        if total:
            if nchunks > 1:
                with nogil:
                    for c in prange(nchunks, num_threads=nchunks, schedule="static"):
                        _fill(m, nd, mask._sizes, c * chunk, min(numel, (c + 1) * chunk),
                              o, counts[c], counts[c + 1], s_hit, s_coord, weights)
            else:
                _fill(m, nd, mask._sizes, 0, numel, o, 0, total, s_hit, s_coord, weights)
    finally:
        free(counts)
    return out


def nonzero(TensorBase mask, bint coords_last):
    """The coordinates of the non-zero elements of a contiguous bool ``mask`` (1+ dims), in
    row-major order, as int64: shape (n, ndim) if ``coords_last`` (PyTorch's layout), else
    (ndim, n) (one row per dim: NumPy's tuple).

    Two passes over ranges of elements: count the hits of each range, then (knowing where
    each range's hits start) write them, every range on its own thread. The order of the hits never
    depends on the thread count.
    """
    return nonzero_kernel(mask, coords_last, NULL)
