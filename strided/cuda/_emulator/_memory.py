"""Host memory standing in for device memory: guarded allocations, their cache, fiber stacks.

Note [Emulator guards]
Every allocation is ``GUARD_BYTES`` of canary, the caller's bytes (rounded up to 512, as CuPy's
pool rounds), then ``GUARD_BYTES`` of canary, with ``ptr`` 64-byte aligned. After every launch the
C side compares the guards of every live allocation with the canary (one memcmp each) and returns
how many are damaged; only then does Python look for which ones, name them in the error and
restore their canaries. Freed blocks go to a small cache keyed by rounded size (the emulated
caching allocator: ``memory_reserved()`` counts them, ``empty_cache()`` drops them). New and reused
blocks are filled with 0xFF bytes, so a kernel that forgets to write an element leaves a NaN (or
-1) behind, not a plausible zero. Frees requested by ``__del__`` are queued and applied at the next
allocator call: ``__del__`` can run during a garbage collection inside ``malloc`` itself.
"""

from __future__ import annotations

import ctypes
import mmap
import os

import numpy as np

GUARD_BYTES = 256  # must equal strided_emu::kGuardBytes in runtime.h
ALIGNMENT = 64
_ROUND = 512
_CACHE_LIMIT = 256 << 20  # cached free bytes beyond this are returned to the system
_FILL = 0xFF

# A canary that is no single repeated byte, so a write of any constant shows.
CANARY = bytes(((i * 0x3B) ^ 0xA5) & 0xFF for i in range(GUARD_BYTES))
_CANARY_ARRAY = np.frombuffer(CANARY, np.uint8)


class _Block:
    """One host buffer: [guard][capacity bytes][guard], with its place in the live table."""

    __slots__ = ("buf", "base", "ptr", "capacity", "nbytes", "slot")

    def __init__(self, capacity: int):
        self.buf = np.empty(capacity + 2 * GUARD_BYTES + ALIGNMENT, np.uint8)
        start = (-self.buf.ctypes.data) % ALIGNMENT
        self.base = self.buf.ctypes.data + start  # the front guard; ptr - GUARD_BYTES
        self.ptr = self.base + GUARD_BYTES
        self.capacity = capacity
        self.nbytes = 0
        self.slot = -1
        view = self._view()
        view[:GUARD_BYTES] = _CANARY_ARRAY

    def _view(self) -> np.ndarray:
        start = self.base - self.buf.ctypes.data
        return self.buf[start : start + self.capacity + 2 * GUARD_BYTES]

    def arm(self, nbytes: int) -> None:
        """Fill the caller's bytes and put the back guard right after its ``nbytes``."""
        self.nbytes = nbytes
        view = self._view()
        view[GUARD_BYTES : GUARD_BYTES + nbytes] = _FILL
        view[GUARD_BYTES + nbytes : GUARD_BYTES + nbytes + GUARD_BYTES] = _CANARY_ARRAY

    def damage(self) -> tuple[int, int]:
        """(bytes written before the start, bytes written past the end), restoring the canary."""
        view = self._view()
        front = view[:GUARD_BYTES]
        back = view[GUARD_BYTES + self.nbytes : 2 * GUARD_BYTES + self.nbytes]
        bad_front = np.flatnonzero(front != _CANARY_ARRAY)
        bad_back = np.flatnonzero(back != _CANARY_ARRAY)
        before = int(GUARD_BYTES - bad_front[0]) if bad_front.size else 0
        past = int(bad_back[-1] + 1) if bad_back.size else 0
        front[:] = _CANARY_ARRAY
        back[:] = _CANARY_ARRAY
        return before, past


class Memory:
    """A block of emulated device memory: ``ptr`` (int, 64-byte aligned) and ``nbytes``.

    Freed when garbage-collected. ``asarray`` gives a NumPy view for filling and reading it from
    the host (the view keeps the memory alive).
    """

    __slots__ = ("ptr", "nbytes", "_block", "__weakref__")

    def __init__(self, block: _Block):
        self._block = block
        self.ptr = block.ptr
        self.nbytes = block.nbytes

    def asarray(self, dtype=np.uint8, shape=None) -> np.ndarray:
        """A NumPy array over these bytes (all of them, as ``dtype``, unless ``shape`` says)."""
        dtype = np.dtype(dtype)
        if shape is None:
            shape = (self.nbytes // dtype.itemsize,)
        shape = tuple(int(s) for s in shape) if isinstance(shape, tuple | list) else (int(shape),)
        if int(np.prod(shape)) * dtype.itemsize > self.nbytes:
            raise ValueError(f"shape {shape} of {dtype} needs more than the {self.nbytes} bytes")
        return np.asarray(_ArrayView(self, dtype, shape))

    def __repr__(self) -> str:
        return f"<emulated device memory: {self.nbytes} bytes at 0x{self.ptr:x}>"

    def __del__(self):
        try:
            _allocator.pending.append(self._block)
        except (AttributeError, TypeError):  # interpreter shutdown
            pass


class _ArrayView:
    """Exports a Memory's bytes to NumPy and keeps the Memory alive as the array's base."""

    __slots__ = ("memory", "__array_interface__")

    def __init__(self, memory: Memory, dtype: np.dtype, shape: tuple):
        self.memory = memory
        self.__array_interface__ = {
            "data": (memory.ptr, False),
            "shape": shape,
            "typestr": dtype.str,
            "descr": dtype.descr,
            "version": 3,
        }


class _Allocator:
    """The live table that the C side checks after each launch, plus the free-block cache."""

    def __init__(self):
        self.table = np.zeros((64, 2), np.uint64)  # rows (base address, nbytes) of live blocks
        self.table_ptr = self.table.__array_interface__["data"][0]
        self.live: list[_Block] = []
        self.cache: dict[int, list[_Block]] = {}
        self.pending: list[_Block] = []
        self.allocated = 0
        self.cached = 0

    def malloc(self, nbytes: int) -> Memory:
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError(f"cannot allocate {nbytes} bytes")
        self.collect()
        capacity = max(_ROUND, -(-nbytes // _ROUND) * _ROUND)
        free = self.cache.get(capacity)
        if free:
            block = free.pop()
            self.cached -= capacity
        else:
            block = _Block(capacity)
        block.arm(nbytes)
        if len(self.live) == len(self.table):
            self.table = np.concatenate([self.table, np.zeros_like(self.table)])
            self.table_ptr = self.table.__array_interface__["data"][0]
        block.slot = len(self.live)
        self.live.append(block)
        self.table[block.slot] = (block.base, nbytes)
        self.allocated += capacity
        return Memory(block)

    def collect(self) -> None:
        """Apply the frees queued by ``Memory.__del__``."""
        while self.pending:
            block = self.pending.pop()
            last = self.live.pop()
            if last is not block:  # move the last live block into the freed slot
                self.live[block.slot] = last
                self.table[block.slot] = self.table[last.slot]
                last.slot = block.slot
            block.slot = -1
            self.allocated -= block.capacity
            if self.cached + block.capacity <= _CACHE_LIMIT:
                self.cache.setdefault(block.capacity, []).append(block)
                self.cached += block.capacity

    def empty_cache(self) -> None:
        self.collect()
        self.cache.clear()
        self.cached = 0

    def damaged(self, kernel: str) -> str:
        """Describe every live allocation whose guards a kernel wrote, restoring them."""
        problems = []
        for block in self.live:
            before, past = block.damage()
            where = f"a {block.nbytes}-byte allocation at 0x{block.ptr:x}"
            if past:
                problems.append(f"{past} bytes past the end of {where}")
            if before:
                problems.append(f"{before} bytes before the start of {where}")
        return f"out-of-bounds write by {kernel}: " + "; ".join(problems)


_allocator = _Allocator()


def device_bytes(ptr: int, nbytes: int) -> np.ndarray:
    """The ``nbytes`` of emulated device memory at ``ptr``, as a writable uint8 array, after
    checking that they lie inside one live allocation: what the emulator's library routines
    (the reference cuBLAS in _blas.py) read and write through, so that a wrong address or
    extent is an error here, as compute-sanitizer would report it on a GPU."""
    _allocator.collect()
    for block in _allocator.live:
        if block.ptr <= ptr and ptr + nbytes <= block.ptr + block.nbytes:
            start = ptr - block.buf.ctypes.data
            return block.buf[start : start + nbytes]
    raise RuntimeError(
        f"invalid device memory access: {nbytes} bytes at 0x{ptr:x} are not inside one live "
        "allocation"
    )


def malloc(nbytes: int) -> Memory:
    """Allocate ``nbytes`` of emulated device memory (host memory with guards on both sides).

    Examples
    --------
    >>> from strided.cuda import _emulator as emu
    >>> m = emu.malloc(100)
    >>> m.nbytes, m.ptr % 64
    (100, 0)
    """
    return _allocator.malloc(nbytes)


def memory_allocated() -> int:
    """Bytes held by live allocations (each rounded up to 512 bytes, as CuPy's pool does)."""
    _allocator.collect()
    return _allocator.allocated


def memory_reserved() -> int:
    """Bytes held by live allocations plus the freed blocks kept for reuse."""
    _allocator.collect()
    return _allocator.allocated + _allocator.cached


def empty_cache() -> None:
    """Return the cached free blocks to the system."""
    _allocator.empty_cache()


class _Stacks:
    """The fiber stacks, one per thread of a block, shared by every module of the process.

    One anonymous mapping, committed by the kernel only where touched; the lowest page of each
    stack is made inaccessible, so an overflow faults (and is reported) instead of corrupting the
    next stack.
    """

    def __init__(self, count: int, stack_bytes: int):
        page = mmap.PAGESIZE
        self.guard = page
        self.stride = -(-stack_bytes // page) * page + page
        self.count = count
        self.map = mmap.mmap(-1, self.stride * count, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        for i in range(count):
            if libc.mprotect(self.base + i * self.stride, page, 0) != 0:  # PROT_NONE
                raise OSError(ctypes.get_errno(), "mprotect of an emulator stack guard failed")


_stacks: _Stacks | None = None


def stacks() -> _Stacks:
    """The process's fiber stacks (64 KiB each unless STRIDED_EMULATOR_STACK_KB says)."""
    global _stacks
    if _stacks is None:
        kib = int(os.environ.get("STRIDED_EMULATOR_STACK_KB", "64"))
        _stacks = _Stacks(1024, kib * 1024)
    return _stacks
