"""The CPU allocator: where the bytes of every CPU Storage come from.

PyTorch keeps this in ``c10/core/CPUAllocator.cpp``, apart from the Storage that holds the bytes
(``_storage.pyx`` here). The hot half, ``cpu_alloc``/``cpu_free``, is inline in ``_alloc.pxd``
so that a small op's output costs one ``posix_memalign`` and no call into this module; only
cached blocks come here, to the page mappings and the cache below.

Note [Allocation]
~~~~~~~~~~~~~~~~~
Small buffers (under 256 KiB) come from ``posix_memalign`` (64-byte alignment: one cache line,
and enough for any SIMD load). Buffers of 256 KiB and more are *cached blocks*:

* They come from ``mmap``. From 4 MiB on they are rounded up to whole 2 MiB huge pages and
  aligned to 2 MiB, and we ask for transparent huge pages with ``madvise(MADV_HUGEPAGE)``:
  touching a fresh 40 MB buffer then takes 20 page faults instead of ~10,000, as NumPy also
  arranges. Below 4 MiB they are rounded up to 64 KiB, on ordinary pages.
* When a cached block is freed it is kept in a small cache instead of being returned to the
  kernel, and the next allocation of the same rounded size (or of a size at most a quarter
  smaller, when no block fits exactly) takes it back: its pages are already mapped, so the
  kernel does not fault and zero them again. This is the CPU twin of PyTorch's
  CUDA caching allocator; on the project's machines it makes an allocating 1e7-element op ~2x
  faster (see ``benchmarks/bench_core.py``). The cache holds at most ``STRIDED_CPU_CACHE_MB``
  (default 1024) MiB in CACHE_SLOTS blocks; a freed block always goes in, and the oldest blocks
  go back to the kernel until it fits. ``strided._alloc.empty_cpu_cache()``
  hands it all back; ``cpu_cache_info()`` counts hits and misses.
* Why 256 KiB and not only the large blocks: glibc's malloc serves these sizes from its heap
  and gives the heap's free top back to the kernel once it passes its trim threshold, twice the
  largest block freed so far. Two live temporaries of 3.2 MB, as ``(x - u) ** 2`` makes, pass it
  at every free, so every op faulted its pages in again: (200, 2000) float64 chunks of a Dask
  array took 6.4 ms for ``(x - u) ** 2`` against NumPy's 0.3 ms (NumPy writes the square into
  the temporary ``x - u``, one block fewer), 0.29 ms with this cache.
* ``zeros`` skips the cache and takes fresh pages, which the kernel zeroes lazily (as ``calloc``
  does for NumPy): a block from the cache would need a memset.
"""

import os

from libc.stdint cimport uintptr_t

cdef extern from "<sys/mman.h>" nogil:
    void* mmap(void* addr, size_t length, int prot, int flags, int fd, long offset)
    int munmap(void* addr, size_t length)
    int madvise(void* addr, size_t length, int advice)
    int PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS
    void* MAP_FAILED
    int MADV_HUGEPAGE

cdef enum:
    CACHE_SLOTS = 64


# =============================================================================================
# Large blocks and their cache. See Note [Allocation].
# =============================================================================================

cdef void* _cache_ptr[CACHE_SLOTS]
cdef size_t _cache_size[CACHE_SLOTS]
cdef int _cache_count = 0
cdef size_t _cache_bytes = 0
cdef size_t _cache_limit = 1024 * 1024 * 1024
cdef Py_ssize_t _cache_hits = 0, _cache_misses = 0


cdef void* _map_aligned(size_t n) noexcept nogil:
    """n bytes of fresh zeroed pages: for a large block (n a multiple of HUGE_PAGE) at a 2
    MiB-aligned address, for a smaller one wherever the kernel puts it (page-aligned)."""
    cdef char* raw
    cdef char* p
    cdef size_t head
    cdef size_t extra = n + HUGE_PAGE
    if n < MMAP_THRESHOLD:
        raw = <char*>mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        return NULL if <void*>raw == MAP_FAILED else raw
    raw = <char*>mmap(NULL, extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if <void*>raw == MAP_FAILED:
        return NULL
    # trim the unaligned head and the tail so that every 2 MiB of the block can be a huge page
    p = <char*>((<uintptr_t>raw + HUGE_PAGE - 1) & ~(<uintptr_t>HUGE_PAGE - 1))
    head = p - raw
    if head:
        munmap(raw, head)
    if extra - head - n:
        munmap(p + n, extra - head - n)
    madvise(p, n, MADV_HUGEPAGE)  # a hint: harmless if the kernel says no
    return p


cdef void* large_alloc(size_t* n, bint zero) noexcept nogil:
    """A cached block of at least n[0] bytes (rounded as cpu_alloc does): from the cache if one
    of that size is there, or one at most a quarter larger (its size written back to n[0]), and
    zeroing is not needed; else fresh from the kernel. The cache's slots are kept oldest first."""
    global _cache_count, _cache_bytes, _cache_hits, _cache_misses
    cdef int i, j, best = -1
    cdef void* p
    if not zero:
        for i in range(_cache_count - 1, -1, -1):   # newest first: its pages are warmest
            if _cache_size[i] == n[0]:
                best = i
                break
            if n[0] < _cache_size[i] <= n[0] + n[0] // 4 and (
                    best < 0 or _cache_size[i] < _cache_size[best]):
                best = i
        if best >= 0:
            p = _cache_ptr[best]
            n[0] = _cache_size[best]
            _cache_count -= 1
            for j in range(best, _cache_count):
                _cache_ptr[j] = _cache_ptr[j + 1]
                _cache_size[j] = _cache_size[j + 1]
            _cache_bytes -= n[0]
            _cache_hits += 1
            return p
    _cache_misses += 1
    return _map_aligned(n[0])


cdef void large_free(void* p, size_t n) noexcept nogil:
    """Keep the block for reuse: the oldest cached blocks go back to the kernel until it fits in
    the slots and under the byte limit. The blocks freed now are the ones the program uses; a
    cache that turned them away once it was full of blocks freed long ago missed every
    allocation from then on (a training step that had run after bigger work: every 4 MB
    temporary faulted its pages in again, 9x slower). A block larger than the whole limit goes
    back at once."""
    global _cache_count, _cache_bytes
    cdef int i
    if n > _cache_limit:
        munmap(p, n)
        return
    while _cache_count > 0 and (_cache_count == CACHE_SLOTS or _cache_bytes + n > _cache_limit):
        munmap(_cache_ptr[0], _cache_size[0])  # the oldest block: slot 0, the rest move down
        _cache_bytes -= _cache_size[0]
        _cache_count -= 1
        for i in range(_cache_count):
            _cache_ptr[i] = _cache_ptr[i + 1]
            _cache_size[i] = _cache_size[i + 1]
    _cache_ptr[_cache_count] = p
    _cache_size[_cache_count] = n
    _cache_count += 1
    _cache_bytes += n


def empty_cpu_cache():
    """Return every cached large block to the operating system."""
    global _cache_count, _cache_bytes
    cdef int i
    for i in range(_cache_count):
        munmap(_cache_ptr[i], _cache_size[i])
    _cache_count = 0
    _cache_bytes = 0


def cpu_cache_info():
    """How the large-block cache is doing: blocks and bytes held, hits and misses so far."""
    return {"blocks": _cache_count, "bytes": _cache_bytes, "limit": _cache_limit,
            "hits": _cache_hits, "misses": _cache_misses}


def set_cpu_cache_limit(Py_ssize_t nbytes):
    """Cap the bytes the large-block cache may hold (0 turns caching off)."""
    global _cache_limit
    if nbytes < 0:
        raise ValueError(f"set_cpu_cache_limit: nbytes must be >= 0, got {nbytes}")
    _cache_limit = nbytes
    if _cache_bytes > _cache_limit:
        empty_cpu_cache()


set_cpu_cache_limit(int(os.environ.get("STRIDED_CPU_CACHE_MB", "1024")) * 1024 * 1024)
