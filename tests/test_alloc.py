"""The CPU allocator's cache of mapped blocks (Note [Allocation] in strided/_alloc.pyx): which
sizes it keeps, that a block of the same rounded size comes back from it, that zeros never take
a used block, and that its limits hold."""

import numpy as np
import pytest

import strided
from strided import _alloc


@pytest.fixture
def fresh_cache():
    """An empty cache with its default limit, restored afterwards."""
    limit = _alloc.cpu_cache_info()["limit"]
    _alloc.empty_cpu_cache()
    yield
    _alloc.set_cpu_cache_limit(limit)
    _alloc.empty_cpu_cache()


def _counts():
    info = _alloc.cpu_cache_info()
    return info["hits"], info["misses"]


@pytest.mark.parametrize(
    "nbytes",
    [256 * 1024, 400_000, 3_200_000, 4 * 1024 * 1024, 40_000_000],
    ids=["256KiB", "400KB", "3.2MB", "4MiB", "40MB"],
)
def test_a_freed_block_serves_the_next_same_sized_buffer(fresh_cache, nbytes):
    n = nbytes // 8
    a = strided.empty((n,), dtype=strided.float64)
    a.fill_(1.5)
    ptr = a.data_ptr()
    assert ptr % 64 == 0
    del a
    info = _alloc.cpu_cache_info()
    assert info["blocks"] == 1 and info["bytes"] >= nbytes
    hits, misses = _counts()
    b = strided.empty((n,), dtype=strided.float64)
    assert b.data_ptr() == ptr  # the same pages, already mapped
    assert _counts() == (hits + 1, misses)
    b.fill_(2.0)
    np.testing.assert_array_equal(np.asarray(b), np.full(n, 2.0))


def test_small_buffers_are_not_cached(fresh_cache):
    a = strided.empty((1000,), dtype=strided.float64)  # 8 KB: posix_memalign's
    del a
    assert _alloc.cpu_cache_info()["blocks"] == 0


def test_sizes_round_up_to_the_same_block():
    # 300,000 and 310,000 bytes both round up to 5 x 64 KiB: one block serves both
    _alloc.empty_cpu_cache()
    a = strided.empty((300_000,), dtype=strided.uint8)
    ptr = a.data_ptr()
    del a
    b = strided.empty((310_000,), dtype=strided.uint8)
    assert b.data_ptr() == ptr
    b.fill_(7)
    assert int(np.asarray(b).sum()) == 7 * 310_000  # every byte of the request is there
    del b
    _alloc.empty_cpu_cache()


def test_zeros_take_fresh_pages_not_a_used_block(fresh_cache):
    a = strided.empty((100_000,), dtype=strided.float64)
    a.fill_(3.0)
    del a
    z = strided.zeros((100_000,), dtype=strided.float64)
    assert not np.asarray(z).any()


def test_the_oldest_block_leaves_when_the_slots_are_full(fresh_cache):
    # more distinct sizes than slots: the cache keeps the newest, and never more than its slots
    keep = [strided.empty(((256 + 16 * i) * 1024,), dtype=strided.uint8) for i in range(70)]
    grain = 64 * 1024
    sizes = [-(-t.nbytes // grain) * grain for t in keep]  # rounded up as cpu_alloc does
    while keep:
        keep.pop(0)  # freed in order, oldest first
    info = _alloc.cpu_cache_info()
    assert info["blocks"] == 64
    assert info["bytes"] == sum(sizes[-64:])  # the six oldest went back to the kernel


def test_the_byte_limit_holds(fresh_cache):
    _alloc.set_cpu_cache_limit(1024 * 1024)
    a = strided.empty((2_000_000,), dtype=strided.uint8)  # over the limit: not kept
    del a
    assert _alloc.cpu_cache_info()["blocks"] == 0
    b = strided.empty((500_000,), dtype=strided.uint8)
    del b
    assert _alloc.cpu_cache_info()["blocks"] == 1
    _alloc.set_cpu_cache_limit(0)  # off: what it held goes back
    assert _alloc.cpu_cache_info()["blocks"] == 0
    with pytest.raises(ValueError, match="nbytes must be >= 0"):
        _alloc.set_cpu_cache_limit(-1)


def test_a_cache_full_of_old_blocks_still_keeps_the_new_ones(fresh_cache):
    # the byte limit filled by blocks freed long ago: the blocks freed now push the oldest out,
    # so the working set is served from the cache again (it once turned them all away)
    _alloc.set_cpu_cache_limit(4 * 1024 * 1024)
    old = [strided.empty((1024 * 1024,), dtype=strided.uint8) for _ in range(4)]
    del old
    info = _alloc.cpu_cache_info()
    assert info["blocks"] == 4 and info["bytes"] == 4 * 1024 * 1024
    x = strided.empty((600_000,), dtype=strided.uint8)  # 640 KiB: a miss, nothing fits
    ptr = x.data_ptr()
    del x
    info = _alloc.cpu_cache_info()
    assert info["bytes"] <= 4 * 1024 * 1024 and info["blocks"] == 4  # one old block went
    hits, misses = _counts()
    for _ in range(3):
        y = strided.empty((600_000,), dtype=strided.uint8)
        assert y.data_ptr() == ptr  # the same block each time: hits, no fresh pages
        del y
    assert _counts() == (hits + 3, misses)


def test_a_block_at_most_a_quarter_larger_is_reused(fresh_cache):
    # 400 KB rounds to 448 KiB; 360 KB to 384 KiB (448 <= 1.25 x 384: reused); 300 KB to
    # 320 KiB (448 > 1.25 x 320: a fresh block, the cached one stays)
    a = strided.empty((400_000,), dtype=strided.uint8)
    ptr = a.data_ptr()
    del a
    b = strided.empty((360_000,), dtype=strided.uint8)
    assert b.data_ptr() == ptr
    b.fill_(5)
    assert int(np.asarray(b).sum()) == 5 * 360_000  # (NumPy: no strided temporaries)
    del b
    assert _alloc.cpu_cache_info()["bytes"] == 448 * 1024  # its whole size came back
    c = strided.empty((300_000,), dtype=strided.uint8)
    assert c.data_ptr() != ptr
    assert _alloc.cpu_cache_info()["blocks"] == 1
