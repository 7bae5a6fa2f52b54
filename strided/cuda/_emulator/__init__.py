"""A CUDA emulator: the project's CUDA C kernels compiled by g++ and run on the CPU.

``compile_module(source, name_expressions)`` compiles one CUDA C source against a small shim
header (shim.h) and returns a Module whose ``get_function(name)`` kernels are launched like
CuPy's ``RawKernel``: ``fn(grid, block, args, shared_mem=0)``, with NumPy scalars as arguments
and device pointers as ``np.uint64`` addresses of ``malloc``'d emulated memory. It lets kernels be
tested, and students run them, on machines without a GPU.

Note [How the emulator runs a kernel]
A GPU runs the blocks of a grid on its multiprocessors in any order and at the same time, and
the threads of a block in warps of 32 that execute in lockstep until they diverge. The emulator
maps that onto one CPU core:

- grid -> a loop over blocks, one block after another (forwards, or in reverse with
  ``set_thread_order("reverse")``);
- block -> one fiber per thread: its own 64 KiB stack and saved registers, switched by a few
  instructions, not an OS thread;
- barrier -> a yield: a fiber runs until it returns or reaches ``__syncthreads()``, a warp
  shuffle or vote, or ``__syncwarp()``; when no fiber can go on, the scheduler releases the
  barrier (every live thread has arrived) or completes the warp operation (every lane of its
  mask has arrived, values exchanged); a kernel without barriers runs each thread to the end;
- ``__shared__`` -> static storage, one copy, used by one block at a time; dynamic shared memory
  (``STRIDED_DYNAMIC_SHARED(type, name)``) -> a per-launch buffer of ``shared_mem`` bytes;
- atomics -> plain read-modify-writes (fibers never switch inside one);
- device memory -> host memory (``malloc``) with guard bytes on both sides.

What it catches, as a RuntimeError from the launch naming the kernel (and block and thread):
wrong indexing and stride arithmetic (results differ from NumPy; writes beyond an allocation or
beyond the dynamic shared memory damage the guards and are reported with how many bytes past
the end); missing barriers (run under both thread orders: the results differ); a
``__syncthreads()`` that some threads never reach because they returned; warp operations whose
mask names lanes that returned, or whose lanes wait at different operations (deadlocks); invalid
memory accesses, integer division by zero, stack overflows, ``assert`` and ``__trap()`` (caught
as signals, reported without killing the interpreter); with ``STRIDED_EMULATOR_UBSAN=1``,
out-of-bounds indexing of fixed-size (e.g. ``__shared__``) arrays, signed overflow, bad shifts,
misaligned accesses, with the source line.

What it cannot see: races between blocks (blocks never overlap; reverse order only catches a
kernel that depends on block order); races inside a warp that the lockstep of a real GPU hides or
reveals (fibers interleave only at synchronisation points, so code that is correct only by
warp-synchronous timing, without ``__syncwarp``, may pass here and fail there, or the reverse);
reads out of bounds (only writes into guards are seen, and a wild write far from any buffer may
go unnoticed); uninitialised ``__shared__`` arrays (they start as zeros, or the previous block's
values); the speed of anything: launches cost microseconds of Python and each thread a few
nanoseconds of switching, and the grid runs on one core. Partial warps (a block size that is not
a multiple of 32) are modelled as warps whose missing lanes never take part (see Note [Emulated
warps] in shim.h).

The source sees ``STRIDED_EMULATOR`` defined and neither ``__CUDA_ARCH__`` nor ``__CUDACC__``;
it gets the built-in variables, qualifiers, barriers, warp operations, atomics, integer and
conversion intrinsics and the C math library with float overloads, as NVRTC device code does.
There is no ``half`` type, no cooperative groups, no inline PTX and no ``extern __shared__`` (use
``STRIDED_DYNAMIC_SHARED``).

Examples
--------
>>> import numpy as np
>>> from strided.cuda import _emulator as emu
>>> src = '''
... template <typename T>
... __global__ void scale(T* x, T a, int n) {
...   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
...     x[i] *= a;
... }'''
>>> mod = emu.compile_module(src, ["scale<float>"])
>>> mem = emu.malloc(10 * 4)
>>> x = mem.asarray(np.float32)
>>> x[:] = np.arange(10)
>>> mod.get_function("scale<float>")((2,), (4,), (np.uint64(mem.ptr), np.float32(2), np.int32(10)))
>>> x.tolist()
[0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0]
"""

from ._blas import gemm_strided_batched
from ._compiler import (
    Function,
    Module,
    compile_module,
    get_thread_order,
    set_thread_order,
)
from ._memory import Memory, empty_cache, malloc, memory_allocated, memory_reserved

# What cupy.cuda.runtime.getDeviceProperties() reports, for an emulated device. The SM count is
# small on purpose: launch heuristics that size grids by it keep emulated launches small.
DEVICE_PROPERTIES = {
    "name": "strided CPU emulator",
    "major": 8,
    "minor": 0,
    "multiProcessorCount": 2,
    "maxThreadsPerBlock": 1024,
    "maxThreadsDim": (1024, 1024, 64),
    "maxGridSize": (2**31 - 1, 65535, 65535),
    "maxThreadsPerMultiProcessor": 2048,
    "warpSize": 32,
    "sharedMemPerBlock": 49152,
    "sharedMemPerBlockOptin": 227 * 1024,
    "sharedMemPerMultiprocessor": 228 * 1024,
    "regsPerBlock": 65536,
    "totalConstMem": 65536,
    "totalGlobalMem": 16 << 30,
    "l2CacheSize": 4 << 20,
    "clockRate": 1_000_000,
    "memoryClockRate": 1_000_000,
    "memoryBusWidth": 64,
    "concurrentKernels": 0,
    "unifiedAddressing": 1,
}

__all__ = [
    "DEVICE_PROPERTIES",
    "Function",
    "Memory",
    "Module",
    "compile_module",
    "empty_cache",
    "gemm_strided_batched",
    "get_thread_order",
    "malloc",
    "memory_allocated",
    "memory_reserved",
    "set_thread_order",
]
