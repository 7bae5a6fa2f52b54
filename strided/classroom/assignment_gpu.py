"""Assignment 4: GPU kernels in CUDA C, graded on the CUDA emulator (and on a GPU when present).

The student writes three kernels in one ``kernels.cu``: an elementwise add, a shared-memory
reduction and a tiled matmul. They are compiled by the emulator (strided/cuda/_emulator/, Note
[How the emulator runs a kernel]: the same CUDA C, compiled by the host C++ compiler, threads
as fibers that switch at barriers) and run under both thread orders, so a reduction missing a
``__syncthreads()`` gives a different (wrong) answer in one of them and is caught; the
emulator's own reports (writes out of bounds, barriers not reached by every thread, invalid
accesses) are shown to the student as they are. With CuPy and a GPU, each kernel also runs on
the device. The sizes are drawn by Hypothesis, so the counter-example is the smallest launch
that goes wrong (often one element past a multiple of the block size).
"""

from __future__ import annotations

import re

import hypothesis.strategies as st
import numpy as np

from strided.classroom._check import Failed, NotStarted, search
from strided.classroom._engine import Assignment, Task

BLOCK = 64  # threads per block of add and sum (a multiple of 32, a power of 2)
TILE = 8  # the matmul's tile: blocks of TILE x TILE threads


def _kernel_body(source, name):
    """The text of kernel ``name``'s body in ``source`` (whitespace squeezed), or None."""
    m = re.search(r"__global__\s+void\s+" + re.escape(name) + r"\s*\(", source)
    if m is None:
        return None
    i = source.find("{", m.end())
    if i < 0:
        return None
    depth = 0
    for j in range(i, len(source)):
        depth += {"{": 1, "}": -1}.get(source[j], 0)
        if depth == 0:
            return " ".join(source[i : j + 1].split())
    return None


def _compile(source, name):
    from strided.cuda import _emulator as emu

    if _kernel_body(source, name) is None:
        raise Failed(f"kernels.cu has no kernel `__global__ void {name}(...)`")
    if _kernel_body(source, name) == _kernel_body(_STUBS[name], name):
        raise NotStarted(f"{name}: the starter's empty kernel")
    # one module for every kernel the file has: one compile per file, cached by the emulator
    names = [k for k in _STUBS if _kernel_body(source, k) is not None]
    try:
        return emu.compile_module(source, names).get_function(name)
    except RuntimeError as e:
        lines = str(e).splitlines()
        raise Failed("kernels.cu does not compile:\n" + "\n".join(lines[:25])) from None


def _launch_everywhere(fn_emulated, run, case):
    """Run ``run(launcher, case)`` on the emulator in both thread orders; a message for a
    launch that goes wrong, or None."""
    from strided.cuda import _emulator as emu

    messages = {}
    for order in ("forward", "reverse"):
        emu.set_thread_order(order)
        try:
            messages[order] = run(_EmulatedLauncher(fn_emulated), case)
        except RuntimeError as e:
            messages[order] = "the emulator reported:\n    " + str(e).replace("\n", "\n    ")
        finally:
            emu.set_thread_order("forward")
    wrong = [o for o in messages if messages[o]]
    if not wrong:
        return None
    message = f"threads in {wrong[0]} order: {messages[wrong[0]]}"
    if len(wrong) == 1:
        right = "reverse" if wrong[0] == "forward" else "forward"
        message += (
            f"\n(the same launch is right with threads in {right} order: threads read shared "
            "memory that others had not written yet, or overwrote it while others still read "
            "it; a __syncthreads() is missing)"
        )
    return message


class _EmulatedLauncher:
    """Allocate, copy, launch and read back on the emulator, as the kernels' callers do."""

    def __init__(self, fn):
        self.fn = fn
        self.keep = []

    def to_device(self, array):
        from strided.cuda import _emulator as emu

        mem = emu.malloc(max(array.nbytes, 1))
        view = mem.asarray(array.dtype)[: array.size]
        view[:] = array.ravel()
        self.keep.append(mem)
        return mem

    def empty(self, n, dtype):
        from strided.cuda import _emulator as emu

        mem = emu.malloc(max(n * np.dtype(dtype).itemsize, 1))
        mem.asarray(dtype)[:n] = 0
        self.keep.append(mem)
        return mem

    @staticmethod
    def read(mem, n, dtype):
        return np.array(mem.asarray(dtype)[:n])

    def __call__(self, grid, block, args):
        args = [np.uint64(a.ptr) if hasattr(a, "ptr") else a for a in args]
        self.fn(grid, block, tuple(args))


def _blocks(n):
    k = max(1, -(-n // BLOCK))
    return f"{k} block" + ("s" if k > 1 else "")


def _values(n, seed, lo=-4, hi=5):
    """Small integers as float32: sums are exact, so any difference is a bug, not rounding."""
    return np.random.default_rng(seed).integers(lo, hi, size=n).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# The three kernels
# ---------------------------------------------------------------------------------------------


def _run_add(launch, n):
    a, b = _values(n, 1), _values(n, 2)
    out = launch.empty(n, np.float32)
    grid = max(1, -(-n // BLOCK))
    launch((grid,), (BLOCK,), [launch.to_device(a), launch.to_device(b), out, np.int32(n)])
    got = launch.read(out, n, np.float32)
    if not np.array_equal(got, a + b):
        bad = int(np.flatnonzero(got != a + b)[0])
        return f"out[{bad}] is {got[bad]}, expected a[{bad}] + b[{bad}] = {a[bad] + b[bad]}"
    return None


def _run_sum(launch, n):
    x = _values(n, 3)
    blocks = max(1, -(-n // BLOCK))
    out = launch.empty(blocks, np.float32)
    launch((blocks,), (BLOCK,), [launch.to_device(x), out, np.int32(n)])
    got = launch.read(out, blocks, np.float32)
    for blk in range(blocks):
        want = x[blk * BLOCK : (blk + 1) * BLOCK].sum()
        if got[blk] != want:
            return (
                f"block {blk} wrote partial sum {got[blk]}, expected {want} (the sum of "
                f"x[{blk * BLOCK}:{min(n, (blk + 1) * BLOCK)}])"
            )
    return None


def _run_matmul(launch, mnk):
    m, n, k = mnk
    a = _values(m * k, 4, -2, 3).reshape(m, k)
    b = _values(k * n, 5, -2, 3).reshape(k, n)
    c = launch.empty(m * n, np.float32)
    grid = (-(-n // TILE), -(-m // TILE))
    args = [launch.to_device(a), launch.to_device(b), c, np.int32(m), np.int32(n), np.int32(k)]
    launch(grid, (TILE, TILE), args)
    got = launch.read(c, m * n, np.float32).reshape(m, n)
    want = a @ b
    if not np.array_equal(got, want):
        i, j = (int(v[0]) for v in np.nonzero(got != want))
        return f"C[{i}, {j}] is {got[i, j]}, expected {want[i, j]}"
    return None


def _grade_kernel(name, run, strategy, describe, examples):
    def check(source, module):
        fn = _compile(source, name)
        found = search(strategy, lambda case: _launch_everywhere(fn, run, case), examples=examples)
        if found is not None:
            case, message = found
            raise Failed(
                f"counter-example (the smallest Hypothesis found): {describe(case)}\n{message}"
            )
        return _on_gpu(source, name, run, strategy)

    return check


def _on_gpu(source, name, run, strategy):
    """Run the kernel on a real GPU too, when CuPy has one: a note, or Failed."""
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return ["no GPU here: graded on the CUDA emulator only"]
    except Exception:
        return ["no GPU here (or no CuPy): graded on the CUDA emulator only"]
    kernel = cupy.RawModule(code=source, name_expressions=[name]).get_function(name)

    class GpuLauncher(_EmulatedLauncher):
        def to_device(self, array):
            return cupy.asarray(array.ravel())

        def empty(self, n, dtype):
            return cupy.zeros(max(n, 1), dtype)

        @staticmethod
        def read(mem, n, dtype):
            return cupy.asnumpy(mem[:n])

        def __call__(self, grid, block, args):
            kernel(grid, block, tuple(args))
            cupy.cuda.runtime.deviceSynchronize()

    for case in _GPU_CASES[name]:
        message = run(GpuLauncher(None), case)
        if message:
            raise Failed(f"on the GPU ({case}): {message}")
    return [f"also ran on the GPU: {len(_GPU_CASES[name])} launches agree"]


_GPU_CASES = {
    "add_kernel": [1, 63, 64, 65, 1000],
    "sum_kernel": [1, 64, 65, 1000],
    "matmul_kernel": [(1, 1, 1), (8, 8, 8), (9, 17, 5), (33, 20, 31)],
}

_STUBS = {
    "add_kernel": """
        // out[i] = a[i] + b[i] for i < n. Launched with blocks of BLOCK (64) threads and
        // ceil(n / 64) blocks: the last block has threads past the end, which must not write.
        // Re-implements strided's elementwise kernels (strided/cuda/kernels/).
        __global__ void add_kernel(const float* a, const float* b, float* out, int n) {
          // TODO: write this kernel
        }""",
    "sum_kernel": """
        // Block b writes out[b] = the sum of x[b*64 : b*64 + 64] (elements past n count as 0),
        // by a tree reduction in shared memory: each thread loads one element into a
        // __shared__ float[64], then in rounds s = 32, 16, ..., 1 thread t < s adds element
        // t + s into element t. Every round must wait for the one before (__syncthreads()).
        // Launched with blocks of 64 threads. Re-implements strided's CUDA reductions
        // (strided/cuda/_reduce.py).
        __global__ void sum_kernel(const float* x, float* out, int n) {
          // TODO: write this kernel
        }""",
    "matmul_kernel": """
        // C = A @ B for row-major A (M x K), B (K x N), C (M x N). Launched with blocks of
        // TILE x TILE (8 x 8) threads, grid (ceil(N / 8), ceil(M / 8)): thread (x, y) of block
        // (bx, by) computes C[by*8 + y, bx*8 + x]. Tiled: loop over the K dimension in steps of
        // 8, each step loading one 8 x 8 tile of A and one of B into __shared__ arrays (zeros
        // past the edges), __syncthreads(), accumulating, __syncthreads() again.
        // Re-implements the GEMM that strided's matmul calls (cuBLAS on a GPU).
        __global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N,
                                      int K) {
          // TODO: write this kernel
        }""",
}

_SOLUTIONS = {
    "add_kernel": """
        // strided's elementwise kernels, specialised to one contiguous float add
        __global__ void add_kernel(const float* a, const float* b, float* out, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i < n) out[i] = a[i] + b[i];
        }""",
    "sum_kernel": """
        __global__ void sum_kernel(const float* x, float* out, int n) {
          __shared__ float buf[64];
          int t = threadIdx.x;
          int i = blockIdx.x * blockDim.x + t;
          buf[t] = i < n ? x[i] : 0.0f;
          __syncthreads();
          for (int s = blockDim.x / 2; s > 0; s /= 2) {
            if (t < s) buf[t] += buf[t + s];
            __syncthreads();
          }
          if (t == 0) out[blockIdx.x] = buf[0];
        }""",
    "matmul_kernel": """
        #define TILE 8
        __global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N,
                                      int K) {
          __shared__ float a[TILE][TILE];
          __shared__ float b[TILE][TILE];
          int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
          float acc = 0.0f;
          for (int k0 = 0; k0 < K; k0 += TILE) {
            int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
            a[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0.0f;
            b[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0.0f;
            __syncthreads();
            for (int k = 0; k < TILE; ++k) acc += a[threadIdx.y][k] * b[k][threadIdx.x];
            __syncthreads();
          }
          if (row < M && col < N) C[row * N + col] = acc;
        }""",
}

_sizes = st.integers(1, 3 * BLOCK + 1)
_shapes = st.tuples(
    st.integers(1, 3 * TILE + 1), st.integers(1, 3 * TILE + 1), st.integers(1, 3 * TILE + 1)
)

TASKS = (
    Task(
        "add_kernel",
        30,
        "",
        "",
        _grade_kernel(
            "add_kernel",
            _run_add,
            _sizes,
            lambda n: f"add_kernel on n={n} ({_blocks(n)} of {BLOCK} threads)",
            20,
        ),
        replaces="strided's CUDA elementwise kernels (strided/cuda/kernels/)",
        stub=_STUBS["add_kernel"],
        solution=_SOLUTIONS["add_kernel"],
        time_limit=60.0,
    ),
    Task(
        "sum_kernel",
        35,
        "",
        "",
        _grade_kernel(
            "sum_kernel",
            _run_sum,
            _sizes,
            lambda n: f"sum_kernel on n={n} ({_blocks(n)} of {BLOCK} threads)",
            20,
        ),
        replaces="strided's CUDA reductions (strided/cuda/_reduce.py)",
        stub=_STUBS["sum_kernel"],
        solution=_SOLUTIONS["sum_kernel"],
        time_limit=60.0,
    ),
    Task(
        "matmul_kernel",
        35,
        "",
        "",
        _grade_kernel(
            "matmul_kernel",
            _run_matmul,
            _shapes,
            lambda mnk: f"matmul_kernel on M, N, K = {mnk} (blocks of {TILE}x{TILE} threads)",
            12,
        ),
        replaces="the GEMM behind strided.matmul on a GPU (cuBLAS)",
        stub=_STUBS["matmul_kernel"],
        solution=_SOLUTIONS["matmul_kernel"],
        time_limit=90.0,
    ),
)

ASSIGNMENT = Assignment(
    key="gpu",
    number=4,
    title="GPU kernels",
    filename="kernels.cu",
    intro="""
    Write three CUDA C kernels: an elementwise add, a shared-memory reduction and a tiled
    matmul. They are graded on strided's CUDA emulator, so no GPU is needed: it runs the blocks
    one after another and the threads of a block as fibers that switch at __syncthreads(),
    once in forward and once in reverse thread order (a missing barrier shows up as a wrong
    answer in one of them), and it reports writes past the end of a buffer. With a GPU and
    CuPy the kernels also run on the device. The same source compiles with nvcc/NVRTC.""",
    tasks=TASKS,
    language="cuda",
)
