"""The CUDA emulator: kernels compiled by g++ against the shim and run as fibers on the CPU.

One module holds every kernel below (one compile per session, reused through the disk cache on
later runs); the compile-error, disk-cache and UBSan tests compile their own small sources.
"""

import doctest
import re

import numpy as np
import pytest

from strided.cuda import _emulator as emu
from strided.cuda._emulator import _compiler

SOURCE = r"""
#include <cstdint>

template <typename T, typename index_t>
__global__ void strided_add(T* __restrict__ out, const T* a, const T* b, index_t n) {
  const index_t step = (index_t)blockDim.x * gridDim.x;
  for (index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = a[i] + b[i];
}

// Tree reduction in dynamic shared memory: one partial sum per block.
template <typename T>
__global__ void block_sum(T* partial, const T* x, long long n) {
  STRIDED_DYNAMIC_SHARED(T, s);
  T acc = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x)
    acc += x[i];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// Warp shuffles, one static __shared__ slot per warp, then an atomicAdd per block.
template <typename T>
__global__ void warp_sum(T* out, const T* x, long long n) {
  __shared__ T warp_sums[32];
  T acc = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x)
    acc += x[i];
  for (int d = warpSize / 2; d > 0; d /= 2) acc += __shfl_down_sync(0xffffffffu, acc, d);
  const unsigned lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  const unsigned nwarps = (blockDim.x + warpSize - 1) / warpSize;
  if (warp == 0) {
    acc = lane < nwarps ? warp_sums[lane] : T(0);
    for (int d = warpSize / 2; d > 0; d /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, d);
    if (lane == 0) atomicAdd(out, acc);
  }
}

// Each thread reads its neighbour's shared slot: without the barrier, the value depends on
// which thread ran first.
template <bool Barrier>
__global__ void neighbour(int* out, int base) {
  __shared__ int s[1024];
  s[threadIdx.x] = base + (int)threadIdx.x;
  if (Barrier) __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

__global__ void write_n(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

__global__ void shared_overrun(int n) {
  STRIDED_DYNAMIC_SHARED(int, s);
  if (threadIdx.x == 0) for (int i = 0; i < n; ++i) s[i] = i;
}

struct Plan {
  int32_t ndim;
  int64_t sizes[4];
  int64_t strides[4];
  double scale;
};

__global__ void read_plan(Plan p, long long* out, double* scale) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  out[0] = p.ndim;
  for (int k = 0; k < 4; ++k) {
    out[1 + k] = p.sizes[k];
    out[5 + k] = p.strides[k];
  }
  *scale = p.scale;
}

__global__ void histogram(unsigned* hist, const int* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&hist[x[i]], 1u);
}

__global__ void early_return_then_barrier(int* out, int n) {
  if ((int)threadIdx.x >= n) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void shuffle_after_exit(int* out) {
  if (threadIdx.x == 3) return;
  out[threadIdx.x] = __shfl_sync(0xffffffffu, (int)threadIdx.x, 0);
}

__global__ void votes(unsigned* out) {
  const int pred = threadIdx.x % 3 == 0;
  const unsigned ballot = __ballot_sync(0xffffffffu, pred);
  const int count = __syncthreads_count(pred);
  if (threadIdx.x == 0) {
    out[0] = ballot;
    out[1] = (unsigned)count;
    out[2] = __activemask();
  }
}

__global__ void faults(int kind, int* p, int zero) {
  if (threadIdx.x != 5) return;
  if (kind == 0) *(volatile int*)nullptr = 1;
  if (kind == 1) p[0] = 10 / zero;
  if (kind == 2) assert(zero == 1);
  if (kind == 3) __trap();
}
"""

NAMES = [
    "strided_add<float, int>",
    "strided_add<double, long long>",
    "block_sum<double>",
    "warp_sum<float>",
    "neighbour<false>",
    "neighbour<true>",
    "write_n",
    "shared_overrun",
    "read_plan",
    "histogram",
    "early_return_then_barrier",
    "shuffle_after_exit",
    "votes",
    "faults",
]


@pytest.fixture(scope="module")
def mod():
    return emu.compile_module(SOURCE, NAMES)


@pytest.fixture(autouse=True)
def _forward_order():
    yield
    emu.set_thread_order("forward")


def ptr(mem):
    return np.uint64(mem.ptr)


def device(array):
    """Copy a NumPy array into fresh emulated memory; returns (memory, view)."""
    mem = emu.malloc(array.nbytes)
    view = mem.asarray(array.dtype, array.shape)
    view[...] = array
    return mem, view


@pytest.mark.parametrize(
    "dtype, index, name",
    [
        (np.float32, np.int32, "strided_add<float, int>"),
        (np.float64, np.int64, "strided_add<double,long long>"),
    ],
)
def test_grid_stride_elementwise(mod, rng, dtype, index, name):
    n = 10_007  # more elements than threads: the grid-stride loop runs several times
    a, b = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    (ma, _), (mb, _) = device(a), device(b)
    mo = emu.malloc(a.nbytes)
    # Memory objects pass as their pointer, like np.uint64(mem.ptr).
    mod.get_function(name)((4,), (128,), (mo, ptr(ma), mb, index(n)))
    np.testing.assert_array_equal(mo.asarray(dtype), a + b)


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_block_reduction_shared_memory(mod, rng, order):
    emu.set_thread_order(order)
    x = rng.standard_normal(5000)
    mx, _ = device(x)
    blocks, threads = 3, 256
    partial = emu.malloc(blocks * 8)
    fn = mod.get_function("block_sum<double>")
    fn((blocks,), (threads,), (ptr(partial), ptr(mx), np.int64(x.size)), shared_mem=threads * 8)
    np.testing.assert_allclose(partial.asarray(np.float64).sum(), x.sum(), rtol=1e-12)


@pytest.mark.parametrize("threads", [256, 96])  # 96: three warps, not a power of two
def test_block_reduction_warp_shuffles(mod, rng, threads):
    x = rng.standard_normal(3000).astype(np.float32)
    mx, _ = device(x)
    out, view = device(np.zeros(1, np.float32))
    mod.get_function("warp_sum<float>")((2,), (threads,), (ptr(out), ptr(mx), np.int64(x.size)))
    np.testing.assert_allclose(view[0], x.sum(dtype=np.float64), rtol=1e-4)


def test_missing_barrier_differs_between_thread_orders(mod):
    threads = 64
    out, view = device(np.zeros(threads, np.int32))
    expected = 1000 + (np.arange(threads) + 1) % threads
    results = {}
    for order in ("forward", "reverse"):
        emu.set_thread_order(order)
        for warm in (0, 1000):  # the first launch leaves stale values in the shared array
            mod.get_function("neighbour<false>")((1,), (threads,), (ptr(out), np.int32(warm)))
        results[order] = view.copy()
        mod.get_function("neighbour<true>")((1,), (threads,), (ptr(out), np.int32(1000)))
        np.testing.assert_array_equal(view, expected)  # with the barrier, either order is right
    assert not np.array_equal(results["forward"], results["reverse"])
    assert not np.array_equal(results["forward"], expected)


def test_out_of_bounds_write_is_caught_and_guard_restored(mod):
    n = 100
    out = emu.malloc(n * 4)
    fn = mod.get_function("write_n")
    with pytest.raises(
        RuntimeError,
        match=r"out-of-bounds write by write_n: 8 bytes past the end of a 400-byte allocation",
    ):
        fn((1,), (128,), (ptr(out), np.int32(n + 2)))
    fn((1,), (128,), (ptr(out), np.int32(n)))  # the canary was restored: no stale report
    np.testing.assert_array_equal(out.asarray(np.float32), 1.0)


def test_dynamic_shared_memory_overrun_is_caught(mod):
    fn = mod.get_function("shared_overrun")
    fn((1,), (32,), (np.int32(16),), shared_mem=64)
    with pytest.raises(RuntimeError, match=r"dynamic shared memory: 4 bytes past the end"):
        fn((1,), (32,), (np.int32(17),), shared_mem=64)


def test_argument_size_and_count_errors(mod):
    fn = mod.get_function("strided_add<float, int>")
    m = emu.malloc(16)
    with pytest.raises(
        TypeError,
        match=r"strided_add<float, int>, argument 3: 8 bytes given.*"
        r"parameter 3 of the kernel has 4 bytes",
    ):
        fn((1,), (1,), (ptr(m), ptr(m), ptr(m), 4))  # a Python int is an int64
    with pytest.raises(TypeError, match=r"argument 0: 4 bytes given.*has 8 bytes"):
        fn((1,), (1,), (np.int32(0), ptr(m), ptr(m), np.int32(4)))
    with pytest.raises(TypeError, match=r"argument 3: 3 bytes given \(bytes\)"):
        fn((1,), (1,), (ptr(m), ptr(m), ptr(m), b"\0\0\0"))  # a struct's bytes: checked too
    fn((1,), (1,), (ptr(m), ptr(m), ptr(m), np.int32(4).tobytes()))
    with pytest.raises(TypeError, match=r"takes 4 arguments, 3 were given"):
        fn((1,), (1,), (ptr(m), ptr(m), ptr(m)))
    with pytest.raises(KeyError, match="not one of this module's name expressions"):
        mod.get_function("strided_add<int, int>")
    with pytest.raises(ValueError, match="invalid configuration"):
        fn((1,), (2048,), (ptr(m), ptr(m), ptr(m), np.int32(4)))


def test_struct_passed_by_value(mod):
    plan_t = np.dtype(
        [
            ("ndim", np.int32),
            ("sizes", np.int64, 4),
            ("strides", np.int64, 4),
            ("scale", np.float64),
        ],
        align=True,  # C layout: 4 bytes of padding after ndim
    )
    plan = np.zeros((), plan_t)
    plan["ndim"] = 3
    plan["sizes"] = [2, 3, 5, 1]
    plan["strides"] = [-15, 5, 1, 0]
    plan["scale"] = 0.25
    out, view = device(np.zeros(9, np.int64))
    scale, sview = device(np.zeros(1, np.float64))
    assert isinstance(plan[()], np.void) and plan[()].nbytes == 80
    mod.get_function("read_plan")((1,), (32,), (plan[()], ptr(out), ptr(scale)))
    assert view.tolist() == [3, 2, 3, 5, 1, -15, 5, 1, 0]
    assert sview[0] == 0.25


def test_atomics_histogram_with_duplicates(mod, rng):
    x = rng.integers(0, 7, 4000).astype(np.int32)
    mx, _ = device(x)
    hist, view = device(np.zeros(7, np.uint32))
    mod.get_function("histogram")((3,), (64,), (ptr(hist), ptr(mx), np.int32(x.size)))
    np.testing.assert_array_equal(view, np.bincount(x, minlength=7))


def test_votes_and_barrier_count(mod):
    out, view = device(np.zeros(3, np.uint32))
    mod.get_function("votes")((1,), (40,), (ptr(out),))
    assert view[0] == sum(1 << k for k in range(32) if k % 3 == 0)
    assert view[1] == len(range(0, 40, 3))
    assert view[2] == 0xFFFFFFFF


def test_barrier_not_reached_by_all_threads(mod):
    out = emu.malloc(64 * 4)
    fn = mod.get_function("early_return_then_barrier")
    fn((1,), (64,), (ptr(out), np.int32(64)))
    with pytest.raises(RuntimeError, match=r"__syncthreads\(\) not reached by all threads"):
        fn((1,), (64,), (ptr(out), np.int32(40)))


def test_warp_operation_naming_an_exited_lane(mod):
    out = emu.malloc(32 * 4)
    with pytest.raises(RuntimeError, match=r"names lane 3, thread \(3, 0, 0\), which has returned"):
        mod.get_function("shuffle_after_exit")((1,), (32,), (ptr(out),))


@pytest.mark.parametrize(
    "kind, message",
    [
        (0, r"thread \(5, 0, 0\): invalid memory access \(SIGSEGV\)"),
        (1, r"integer division by zero"),
        (2, r"assertion failed: zero == 1"),
        (3, r"__trap\(\) called"),
    ],
)
def test_faults_become_errors(mod, kind, message):
    out = emu.malloc(4)
    fn = mod.get_function("faults")
    with pytest.raises(RuntimeError, match=message):
        fn((2,), (32,), (np.int32(kind), ptr(out), np.int32(0)))
    fn((1,), (32,), (np.int32(-1), ptr(out), np.int32(0)))  # the next launch runs normally


def test_memory_accounting():
    emu.empty_cache()
    before = emu.memory_allocated()
    m = emu.malloc(1000)
    assert m.ptr % 64 == 0 and m.nbytes == 1000
    assert emu.memory_allocated() == before + 1024  # rounded to 512, as CuPy's pool
    del m
    assert emu.memory_allocated() == before
    assert emu.memory_reserved() >= before + 1024
    emu.empty_cache()
    assert emu.memory_reserved() == before


def test_compile_error_shows_compiler_messages():
    with pytest.raises(RuntimeError, match=r"(?s)could not compile bad_kernel.*source\.cu:3:.*"):
        emu.compile_module(
            "__global__ void bad_kernel(int* x) {\n  x[0] = 1;\n  undefined_name = 2;\n}",
            ["bad_kernel"],
        )


def test_disk_cache_hit(tmp_path, monkeypatch):
    monkeypatch.setenv("STRIDED_CACHE_DIR", str(tmp_path))
    source = "__global__ void cached_kernel(int* x) { x[threadIdx.x] = 7; }"
    first = emu.compile_module(source, ["cached_kernel"])
    assert not first.cache_hit and first.path.startswith(str(tmp_path))
    mtime = (tmp_path / "emulator" / first.path.rsplit("/", 1)[1]).stat().st_mtime_ns
    monkeypatch.setattr(_compiler, "_modules", {})  # forget the process's copy: go to disk
    second = emu.compile_module(source, ["cached_kernel"])
    assert second.cache_hit and second.path == first.path
    assert (tmp_path / "emulator" / first.path.rsplit("/", 1)[1]).stat().st_mtime_ns == mtime
    out, view = device(np.zeros(4, np.int32))
    second.get_function("cached_kernel")((1,), (4,), (ptr(out),))
    assert view.tolist() == [7, 7, 7, 7]


def test_ubsan_reports_shared_array_overrun(monkeypatch):
    monkeypatch.setenv("STRIDED_EMULATOR_UBSAN", "1")
    mod = emu.compile_module(
        "__global__ void ubsan_kernel(int* out, int k) {\n"
        "  __shared__ int s[32];\n"
        "  s[threadIdx.x + k] = 1;\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}",
        ["ubsan_kernel"],
    )
    out = emu.malloc(32 * 4)
    fn = mod.get_function("ubsan_kernel")
    fn((1,), (32,), (ptr(out), np.int32(0)))
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "thread (31, 0, 0): UBSan: index out of bounds (type 'int [32]') at source.cu:3:"
        ),
    ):
        fn((1,), (32,), (ptr(out), np.int32(1)))


@pytest.mark.parametrize("module", [emu, _compiler, emu._memory])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize(
    "shape, strides, data, scalars",
    [
        ((), [(), ()], [0, 5], None),
        ((3, 4), [(8, 24), (4, 12)], [100, 200], None),
        ((7,), [(4,), (0,)], [123, 0], [None, b"\x01\x02\x03\x04"]),
        ((5,), [(-16,), (0,)], [9, 0], [None, bytes(range(16))]),
        ((2,) * 25, [(8,) * 25], [1], None),
    ],
)
def test_the_compiled_geometry_is_the_numpy_struct(shape, strides, data, scalars):
    """_params.geometry_bytes (what the copies, fills and index moves launch with) writes the
    bytes of _launch.geometry_struct, the readable form of the Geometry<N> struct."""
    from strided.cuda import _launch, _params

    ref = _launch.geometry_struct(shape, strides, data, scalars).tobytes()
    assert _params.geometry_bytes(shape, strides, data, scalars, _launch.MAX_DIMS) == ref
    with pytest.raises(NotImplementedError, match="at most 25 dims"):
        _params.geometry_bytes((2,) * 26, [(8,) * 26], [1], None, _launch.MAX_DIMS)
