"""The CUDA kernels of sorting and sets: sort/argsort along a dim, topk, unique.

Note [CUDA sorting]
~~~~~~~~~~~~~~~~~~~
Two implementations, picked by the device (issue 7 allows CuPy's routines where writing a radix
sort is not worth it):

- **On a GPU ("cuda")**: CuPy's ``cupy.argsort``/``cupy.sort`` on a zero-copy CuPy view of the
  input (``cupy.asarray(x)`` reads ``__cuda_array_interface__``: any strides, no copy). CuPy
  documents both as stable (``kind=None`` *is* "stable"; they run Thrust/CUB's stable radix
  and merge sorts), with NumPy's order: NaNs last, complex numbers by real then imaginary part.
  A descending stable sort is not a reversed ascending one (equal keys would come out in
  reverse order); it is the reverse of the ascending sort of the *reversed* line, with each
  position p mapped back to ``L - 1 - p``: reversing twice puts ties back in their original
  order, and NaNs, last in the ascending sort, come first, as on the CPU. (The Array API shim
  of CuPy does the same.) CuPy's result arrays, allocated from the pool strided's storages come
  from, become the result tensors without a copy (Note [Taking over CuPy's results] in
  _backend.py). That CuPy's
  NaN order is NumPy's is what test_cuda_scan_sort.py checks on a GPU (bit for bit against
  the CPU). Its *complex* order is not: on an H200 (CuPy 14.2) ``cupy.sort`` put ``nan+3j``
  before ``0+nanj``, where NumPy's order (Note [Complex order]) puts a NaN imaginary part
  before a NaN real part. So complex numbers take strided's own kernels on a GPU too.
- **On the emulator ("cuda-emulated")**, where there is no CuPy device, for complex numbers
  on a GPU, and on a GPU for any call that asks for it (``USE_CUPY = False``, for tests):
  strided's own kernels in kernels/sort.cu. Each line is cut into tiles of up to 2048
  elements (a power of two, as large as 40 KB of shared memory allows for (key, int32
  position) pairs); a block loads a tile into shared memory and sorts it with a bitonic
  network. Longer lines are then merged, pass after
  pass (runs of 2048, 4096, ...), by a thread per element that finds its output slot by rank
  (its place in its run plus a binary search in the other run). That is O(n log^2 n) work,
  fine for the emulator and for moderate sizes, slower than CuPy's radix sort for 1e7
  elements, which is why the GPU takes CuPy's.

Bitonic sorting is not stable by itself; it is made so by comparing (key, position) pairs, a
total order (the key in the CPU's order, Note [Where NaN goes], Note [Complex order], then the
position). Under a total order every correct sort has one answer, the stable sort's, so the
result is bit for bit the CPU's, whatever the tile size, the block size or the timing.

topk is the first k of the stable sort (CPU: Note [topk by selection] gives the same answer).
unique sorts the flattened input with its positions, then three kernels find the groups (Note
[Unique from a sort] in strided/_cpu/unique.pyx.tp): flags where a group starts, their running
count (the CUDA scan, Note [CUDA scans]) as group numbers, and a scatter of each group's value,
start, first position and every element's inverse. How many groups there are decides the
outputs' size, so unique reads one number back to the host (a synchronisation, as issue 7
allows for ops whose result size depends on the data).
"""

from __future__ import annotations

import math

import numpy as np

from strided import _core, _views
from strided._dtype import as_dtype
from strided.cuda import _half, _launch
from strided.cuda._backend import adopt, backend_for

__all__ = ["sort", "topk", "unique", "all_modules"]

BLOCK = 256  # STRIDED_SORT_BLOCK in kernels/sort.cu
MAX_TILE = 2048
SHARED_BYTES = 40 * 1024  # below the 48 KB a block may use without opting in
USE_CUPY = True  # on a real GPU, sort with CuPy (Note [CUDA sorting])
_INT64 = as_dtype("int64")
_GEOMETRY = np.dtype(
    [
        ("ksizes", "<i8", (_launch.MAX_DIMS,)),
        ("kstrides", "<i8", (_launch.MAX_DIMS,)),
        ("x", "<i8"),
        ("values", "<i8"),
        ("indices", "<i8"),
        ("M", "<i8"),
        ("L", "<i8"),
        ("sx", "<i8"),
        ("inner", "<i8"),
        ("tile", "<i8"),
        ("nk", "<i4"),
        ("direct", "<i4"),
    ],
    align=True,
)


def _names(dtype_name):
    """The instantiations of one dtype's module."""
    t = _launch.C_TYPES[dtype_name]
    names = [
        f"strided_sort_{kind}<{t}, {desc}>"
        for kind in ("tiles", "merge")
        for desc in ("false", "true")
    ]
    names += [f"strided_unique_flags<{t}>", f"strided_unique_scatter<{t}>"]
    if dtype_name == "int64":
        names.append("strided_unique_counts")
    return names


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    return [(("sort", d), "sort.cu", _names(d)) for d in _launch.NATIVE]


def _function(backend, dtype_name, fname):
    return _launch.get_function(
        backend, ("sort", dtype_name), "sort.cu", lambda: _names(dtype_name), fname
    )


def _grid(n):
    return (max(1, min(math.ceil(n / BLOCK), 2**31 - 1)),)


# -- sort -------------------------------------------------------------------------------------


def sort(x, axis, descending, want_values, want_indices):
    """Sort the CUDA tensor ``x`` (``ndim >= 1``) stably along ``axis`` (normalised): (values,
    int64 positions), fresh row-major tensors of x's shape, each None when not wanted. See
    Note [CUDA sorting]."""
    if _half.is_half(x):  # Note [CUDA half precision through float32]: widening keeps order
        values, indices = sort(_half.widen(x), axis, descending, want_values, want_indices)
        return (None if values is None else _half.narrow(values, x.dtype)), indices
    backend = backend_for(x.device)
    if x.numel() and (want_values or want_indices):
        if not backend.emulated and USE_CUPY and not x.dtype.is_complex:
            return _sort_cupy(x, axis, descending, want_values, want_indices)
    values = _core._empty(x.shape, x.dtype, x.device) if want_values else None
    indices = _core._empty(x.shape, _INT64, x.device) if want_indices else None
    if x.numel() == 0 or not (want_values or want_indices):
        return values, indices
    _sort_kernels(backend, x, axis, descending, values, indices)
    return values, indices


def _sort_cupy(x, axis, descending, want_values, want_indices):
    """CuPy's stable sort on a zero-copy view (Note [CUDA sorting]): (values, indices), CuPy's
    results taken over as strided tensors (Note [Taking over CuPy's results])."""
    import cupy

    cx = cupy.asarray(x)
    L = x.shape[axis]
    if descending:
        cx = cupy.flip(cx, axis)
    idx = None
    if not want_indices:
        v = cupy.sort(cx, axis=axis)
        if descending:
            v = cupy.flip(v, axis)
    else:
        idx = cupy.argsort(cx, axis=axis)
        if descending:
            idx = cupy.flip(idx, axis)
            idx = (L - 1) - idx
            cx = cupy.flip(cx, axis)  # back to x: idx now holds positions in x
        v = cupy.take_along_axis(cx, idx, axis=axis) if want_values else None
    values = adopt(v, x.device) if want_values else None
    indices = adopt(idx.astype(cupy.int64, copy=False), x.device) if want_indices else None
    return values, indices


def _sort_kernels(backend, x, axis, descending, values, indices):
    """strided's bitonic tiles and merges (Note [CUDA sorting])."""
    shape, strides, item = x.shape, x.stride(), x.itemsize
    L = shape[axis]
    M = x.numel() // L
    kept = [d for d in range(x.ndim) if d != axis]
    kdims = _launch.coalesce([shape[d] for d in kept], [strides[d] * item for d in kept])
    if len(kdims) > _launch.MAX_DIMS:
        raise NotImplementedError(f"sort: more than {_launch.MAX_DIMS} dims after coalescing")
    cap = MAX_TILE
    while cap * (item + 4) > SHARED_BYTES:
        cap //= 2
    tile = max(4, 1 << (min(L, cap) - 1).bit_length())  # a power of two, at least 4
    direct = L <= tile
    g = np.zeros((), dtype=_GEOMETRY)
    if kdims:
        g["ksizes"][: len(kdims)] = [n for n, _ in kdims]
        g["kstrides"][: len(kdims)] = [s for _, s in kdims]
    g["x"] = x.data_ptr()
    g["values"] = values.data_ptr() if values is not None else 0
    g["indices"] = indices.data_ptr() if indices is not None else 0
    g["M"], g["L"], g["sx"] = M, L, strides[axis] * item
    g["inner"], g["tile"] = math.prod(shape[axis + 1 :]), tile
    g["nk"], g["direct"] = len(kdims), int(direct)
    dname = x.dtype.name
    t = _launch.C_TYPES[dname]
    desc = "true" if descending else "false"
    tiles_fn = _function(backend, dname, f"strided_sort_tiles<{t}, {desc}>")
    threads = min(BLOCK, tile // 2)
    blocks = min(M * math.ceil(L / tile), 2**31 - 1)
    shared = tile * (item + 4)
    if direct:
        backend.launch(
            tiles_fn, (blocks,), (threads,), (g[()], np.uint64(0), np.uint64(0)), shared_mem=shared
        )
        return
    # scratch: two (keys, positions) buffers, ping-ponged by the merge passes
    n = M * L
    bufs = [
        (_core.Storage._new(n * item, x.device), _core.Storage._new(n * 8, x.device))
        for _ in range(2)
    ]
    ptrs = [(np.uint64(k.data_ptr()), np.uint64(i.data_ptr())) for k, i in bufs]
    backend.launch(tiles_fn, (blocks,), (threads,), (g[()],) + ptrs[0], shared_mem=shared)
    merge_fn = _function(backend, dname, f"strided_sort_merge<{t}, {desc}>")
    width, src = tile, 0
    while width < L:
        final = 2 * width >= L
        args = (g[()],) + ptrs[src] + ptrs[1 - src] + (np.int64(width), np.int32(final))
        backend.launch(merge_fn, _grid(n), (BLOCK,), args)
        width, src = 2 * width, 1 - src


# -- topk and unique --------------------------------------------------------------------------


def topk(x, dim, k, largest):
    """The first ``k`` of the stable sort along ``dim`` (descending for ``largest``)."""
    from strided.cuda._copy import contiguous_copy

    values, indices = sort(x, dim, largest, True, True)
    if k < x.shape[dim]:
        values = contiguous_copy(_views.narrow(values, dim, 0, k))
        indices = contiguous_copy(_views.narrow(indices, dim, 0, k))
    return values, indices


def unique(x, with_positions):
    """(values, first positions, counts, inverse in x's shape) of the CUDA tensor ``x``; the
    positions and the inverse are None without ``with_positions``. See Note [CUDA sorting]."""
    if _half.is_half(x):  # Note [CUDA half precision through float32]
        values, first, counts, inverse = unique(_half.widen(x), with_positions)
        return _half.narrow(values, x.dtype), first, counts, inverse
    from strided.cuda import _scan

    flat = x.reshape(-1)
    n = flat.numel()
    s, perm = sort(flat, 0, False, True, with_positions)
    dev = x.device
    if n == 0:
        empty = _core._empty((0,), _INT64, dev)
        inv = _core._empty(x.shape, _INT64, dev) if with_positions else None
        return s, (empty if with_positions else None), empty, inv
    backend = backend_for(dev)
    dname = x.dtype.name
    t = _launch.C_TYPES[dname]
    flags = _core._empty((n,), _INT64, dev)
    fn = _function(backend, dname, f"strided_unique_flags<{t}>")
    backend.launch(
        fn, _grid(n), (BLOCK,), (np.uint64(s.data_ptr()), np.uint64(flags.data_ptr()), np.int64(n))
    )
    grp = _scan.scan("cumulative_sum", flags, 0, False)
    groups = int(grp[n - 1].item())  # the one read back: the outputs' size depends on it
    values = _core._empty((groups,), x.dtype, dev)
    starts = _core._empty((groups,), _INT64, dev)
    counts = _core._empty((groups,), _INT64, dev)
    first = _core._empty((groups,), _INT64, dev) if with_positions else None
    inverse = _core._empty((n,), _INT64, dev) if with_positions else None

    def ptr(t):
        return np.uint64(t.data_ptr() if t is not None else 0)

    fn = _function(backend, dname, f"strided_unique_scatter<{t}>")
    backend.launch(
        fn,
        _grid(n),
        (BLOCK,),
        (
            ptr(s),
            ptr(perm),
            ptr(grp),
            np.int64(n),
            ptr(values),
            ptr(starts),
            ptr(first),
            ptr(inverse),
        ),
    )
    fn = _function(backend, "int64", "strided_unique_counts")
    backend.launch(
        fn, _grid(groups), (BLOCK,), (ptr(starts), ptr(counts), np.int64(groups), np.int64(n))
    )
    if inverse is not None:
        inverse = inverse.reshape(x.shape)
    return values, first, counts, inverse
