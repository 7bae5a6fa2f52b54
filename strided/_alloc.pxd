# The CPU allocator: aligned small blocks, huge-page large blocks and their cache. See _alloc.pyx
# and Note [Allocation] there.

from libc.stdlib cimport free
from libc.string cimport memset

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef enum:
    ALIGNMENT = 64                      # one cache line, and enough for any SIMD load
    CACHED_THRESHOLD = 256 * 1024       # from this size on, a buffer is a cached block
    MEDIUM_GRAIN = 64 * 1024            # ... rounded up to this below MMAP_THRESHOLD
    MMAP_THRESHOLD = 4 * 1024 * 1024    # from this size on, a large block of huge pages
    HUGE_PAGE = 2 * 1024 * 1024

cdef void* large_alloc(size_t* n, bint zero) noexcept nogil
cdef void large_free(void* p, size_t n) noexcept nogil


cdef inline void* cpu_alloc(size_t* n, bint zero, bint* large) noexcept nogil:
    """At least ``n[0]`` bytes of CPU memory, 64-byte aligned and zeroed if ``zero``; NULL when
    the system has none. A cached block (256 KiB and more) is rounded up to 64 KiB, or to whole
    huge pages from 4 MiB on (and may be a reused block up to a quarter larger), its true size
    written back to ``n[0]`` and ``large[0]`` set: hand both to ``cpu_free``. Inline because
    every op's output comes through here (see Note [Allocation] in _alloc.pyx)."""
    cdef void* p = NULL
    if n[0] >= CACHED_THRESHOLD:
        if n[0] >= MMAP_THRESHOLD:
            n[0] = (n[0] + HUGE_PAGE - 1) // HUGE_PAGE * HUGE_PAGE
        else:
            n[0] = (n[0] + MEDIUM_GRAIN - 1) // MEDIUM_GRAIN * MEDIUM_GRAIN
        large[0] = True
        return large_alloc(n, zero)
    large[0] = False
    if posix_memalign(&p, ALIGNMENT, n[0]) != 0:
        return NULL
    if zero:
        memset(p, 0, n[0])
    return p


cdef inline void cpu_free(void* p, size_t n, bint large) noexcept nogil:
    """Give back a block from ``cpu_alloc``: a cached one to the cache (or the kernel)."""
    if large:
        large_free(p, n)
    else:
        free(p)
