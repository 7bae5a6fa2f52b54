"""The two ways strided reaches a CUDA device: CuPy on a real GPU, or the CPU emulator.

Note [Two CUDA backends]
~~~~~~~~~~~~~~~~~~~~~~~~
Everything the CUDA side of strided does to a device goes through one small object, a backend:
allocate and free memory, copy bytes between host and device, compile a CUDA source into a
module, launch a kernel of that module, wait for the device (and, whenever it waits, report
what earlier kernels found wrong with the data: ``checks``, see _deferred.py). There are two:

- ``CupyBackend`` ("cuda:N"): memory from CuPy's memory pool (the caching allocator, PyTorch's
  CUDACachingAllocator's twin: freed blocks are kept for reuse, so an op's output costs no
  cudaMalloc), kernels compiled by NVRTC through CuPy's ``compile_using_nvrtc`` (IEEE
  subnormals, Note [Subnormal floats on the GPU]) and cached on disk, launched on CuPy's current
  stream.
- ``EmulatorBackend`` ("cuda-emulated:N"): host memory with guard bytes, kernels compiled by g++
  against the emulator's shim and run on the CPU (strided/cuda/_emulator).

The kernel sources, the choice of instantiation, the loop geometry and the launch arguments are
the same for both (strided/cuda/_launch.py), so a test on the emulator tests the launch code a
GPU runs. Neither backend is created before a tensor asks for its device, so ``import strided``
needs neither CuPy nor a GPU.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import threading

import numpy as np

from strided import _storage
from strided.cuda import _params
from strided.cuda._deferred import DeferredChecks

__all__ = ["backend_for", "CudaUnavailableError"]


class CudaUnavailableError(RuntimeError):
    """A CUDA device was asked for on a machine (or install) that cannot provide it."""


_wrap = _storage.Storage._wrap
_lock = threading.Lock()
_backends: dict = {}
_by_device: dict = {}  # id(Device) -> backend: the per-op lookup, without building a key


def backend_for(device):
    """The backend object of a CUDA ``device`` (a strided Device), created on first use."""
    b = _by_device.get(id(device))  # Device objects are canonical: one per name, never freed
    if b is not None:
        return b
    key = (device.type, device.index)
    b = _backends.get(key)
    if b is None:
        with _lock:
            b = _backends.get(key)
            if b is None:
                if device.type == "cuda":
                    b = CupyBackend(device.index)
                else:
                    b = EmulatorBackend(device.index)
                _backends[key] = b
    _by_device[id(device)] = b
    # from now on the core allocates this device's storages through the backend directly
    _storage.set_device_storage_maker(device, functools.partial(b.storage, device))
    return b


def adopt(array, device):
    """A strided tensor on ``device`` for the CuPy array ``array``, a result CuPy computed for
    strided (cuFFT's transform, CuPy's sort): it takes over the array's memory, no copy, when
    the array is row-major, and is a row-major copy of it otherwise. See Note [Taking over
    CuPy's results]."""
    from strided import _core

    shape = tuple(array.shape)
    if array.flags.c_contiguous:
        # a Storage over CuPy's bytes, owned by the array (_core's pieces: this layer does not
        # reach up to the ops' asarray)
        storage = _core.Storage._wrap(array.data.ptr, array.nbytes, array, device)
        strides, step = [], 1  # row-major, in elements (CuPy's for an empty array may differ)
        for n in reversed(shape):
            strides.append(step)
            step *= max(n, 1)
        return _core._from_parts(storage, 0, shape, strides[::-1], array.dtype.name)
    out = _core._empty(shape, array.dtype.name, device)
    backend_for(device).cupy.asarray(out)[...] = array
    return out


# Note [Taking over CuPy's results]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Where strided hands a computation to CuPy (an FFT, a sort), CuPy allocates its result from
# the same memory pool strided's own storages come from (``allocate`` below). Copying that
# result into a fresh strided tensor would read and write every byte once more: for an FFT of
# 2**24 complex64 numbers 256 MB, 65 us of an H200's 340 us. Instead the result's memory
# becomes the tensor's: ``adopt`` wraps the address in a Storage (``_core.Storage._wrap``) whose
# owner is the CuPy array, so the memory goes back to the pool when the last tensor viewing it
# is gone, on the stream both libraries use (CuPy's current one). Only a row-major result is
# taken over, so the tensor has the layout a fresh result would have.


# How many uint32 counters ``counters()`` gives each stream: the most one launch counts on (a
# split reduction: a counter per output or per column of blocks, at most 2048; _reduce.py)
COUNTERS = 2048

# The launches being recorded by strided.cuda.trace_launches() (None: not recording). Both
# backends append (function, grid, block, shared bytes) to it; a teaching and debugging aid.
tracing = None


def _import_cupy():
    try:
        import cupy
    except ImportError as e:
        raise CudaUnavailableError(
            "device 'cuda' needs CuPy, which is not installed: pip install 'strided[cuda]' "
            "(or run the same kernels on the CPU with device='cuda-emulated')"
        ) from e
    return cupy


def cupy_usable():
    """Whether CuPy is installed and sees a GPU with a working driver (never raises)."""
    try:
        cupy = _import_cupy()
        return bool(cupy.is_available())
    except Exception:
        return False


# cuBLAS's letter for each dtype it multiplies, and alpha = 1, beta = 0 in that dtype (kept
# alive here: cuBLAS reads them through their addresses)
_GEMM_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}
_GEMM_SCALARS = {d: (np.ones(1, d), np.zeros(1, d)) for d in _GEMM_PREFIX}
# ... and their addresses, read once: ``array.ctypes`` builds an object at each access, which
# cost more than a microsecond a read, two reads a cuBLAS call
_GEMM_SCALAR_ADDRESSES = {
    d: (one.ctypes.data, zero.ctypes.data) for d, (one, zero) in _GEMM_SCALARS.items()
}
# The half types go through cublasGemmStridedBatchedEx: each one's cudaDataType (a name in
# CuPy's runtime module) for A, B and C; see Note [cuBLAS for half matrices]
_GEMM_EX_TYPES = {"float16": "CUDA_R_16F", "bfloat16": "CUDA_R_16BF"}
# cublasMath_t's CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION (cublas_api.h, CUDA >= 11),
# a flag OR-ed into the handle's math mode; CuPy 14's binding does not name it
_DISALLOW_REDUCED_PRECISION_REDUCTION = 16

# Note [cuBLAS for half matrices]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# strided's rule for float16 and bfloat16 is "compute in float32, round once" (Note [Half
# precision through float32] in _cpu/half.py); for a product that means a float32 sum of
# float32 products of the (exactly widened) elements, rounded once to the half type. cuBLAS
# says exactly that with ``cublasGemmStridedBatchedEx``: A, B and C of the half type
# (CUDA_R_16F / CUDA_R_16BF), ``CUBLAS_COMPUTE_32F`` (float32 accumulation; alpha and beta are
# float32), and C written once at the end. One thing must be asked for: by default cuBLAS may
# split a long sum (split-K) and add the pieces in the *half* type ("reduced precision
# reduction"), a rounding per piece. ``CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION`` in the
# handle's math mode forbids it; the handle is CuPy's, shared with CuPy's own calls, so the
# mode is set for the call and put back after. No widened float32 copies are made (the half
# operands are read in place, with the same plan as any other dtype: Note [cuBLAS on strided
# views]), so a half product moves a quarter of the bytes of the float32 round trip, and runs
# on the tensor cores, as PyTorch's and CuPy's half matmuls do.


# Note [Switching to a backend's device]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# CuPy allocates from, and cuBLAS runs on, the *current* device, so a backend of "cuda:1" must
# make GPU 1 current around its calls. ``with cupy.cuda.Device(i)`` does that, and costs an
# object, its enter and exit each time: over a microsecond of a 13 us one-element add in an
# H200's host profile (benchmarks/profile_cuda.py), paid again by each of the 23 allocations
# and 5 cuBLAS calls of an eager training step.
# Almost always the device is current already (one GPU, or the one the program works on), so
# the backend first asks which one is (cudaGetDevice, a thread-local read) and switches only
# when it must. Nothing is remembered between calls: another library may switch in between.
_ALREADY_CURRENT = contextlib.nullcontext()


class CupyBackend:
    """A real GPU through CuPy. See Note [Two CUDA backends]."""

    emulated = False

    def __init__(self, index):
        cupy = _import_cupy()
        if not cupy.is_available():
            raise CudaUnavailableError(
                "device 'cuda' needs a GPU and its driver, and CuPy finds none here "
                "(cupy.is_available() is False); use device='cuda-emulated' to run strided's "
                "CUDA kernels on the CPU emulator"
            )
        count = cupy.cuda.runtime.getDeviceCount()
        if index >= count:
            raise CudaUnavailableError(f"device 'cuda:{index}' does not exist: {count} GPU(s)")
        self.cupy = cupy
        self.index = index
        self.checks = DeferredChecks(self)
        self.runtime = cupy.cuda.runtime
        self._launch_kernel = cupy.cuda.driver.launchKernel
        # the per-op calls, looked up once (Note [A device's allocator] in _storage.pyx)
        self._current_stream = cupy.cuda.get_current_stream
        self._get_device = self.runtime.getDevice
        self._alloc = cupy.cuda.alloc
        self._cublas = None  # CuPy's binding of cuBLAS, imported by the first gemm
        self._counters = {}  # stream handle -> (address, owner): see counters()
        with cupy.cuda.Device(index):
            props = self.runtime.getDeviceProperties(index)
        self.properties = {
            "name": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
            "multiProcessorCount": props["multiProcessorCount"],
            "maxThreadsPerBlock": props["maxThreadsPerBlock"],
            "warpSize": props["warpSize"],
            "sharedMemPerBlock": props["sharedMemPerBlock"],
            "major": props["major"],
            "minor": props["minor"],
        }

    def _current_stream(self):
        # __init__ replaces this with CuPy's own function; a backend built without __init__ (a
        # test's stand-in) keeps this method, which reads its ``cupy``
        return self.cupy.cuda.get_current_stream()

    def _stream(self):
        return self._current_stream().ptr

    def counters(self):
        """The address of ``COUNTERS`` uint32 counters, zero, for kernels on the current stream
        (Note [The last block combines the partials] in kernels/reduce.cu). Made and zeroed once
        per stream: launches on one stream run one after another, and each launch leaves the
        counters it used at 0 again; launches on two streams may run at once, so each stream
        has its own."""
        stream = self._stream()
        c = self._counters.get(stream)
        if c is None:
            ptr, owner = self.allocate(4 * COUNTERS)
            self.memset(ptr, 0, 4 * COUNTERS)  # on the stream, before any launch that counts
            c = self._counters[stream] = (ptr, owner)
        return c[0]

    def drop_counters(self):
        """Forget the counters (a launch that failed may have left a count behind): the next
        ``counters()`` makes new ones."""
        self._counters = {}

    def _on_device(self):
        """A context in which this backend's GPU is CuPy's current device (Note [Switching
        to a backend's device])."""
        if self.cupy.cuda.runtime.getDevice() == self.index:
            return _ALREADY_CURRENT
        return self.cupy.cuda.Device(self.index)

    def allocate(self, nbytes):
        """(address, owner): ``nbytes`` of device memory from CuPy's pool, freed with owner."""
        with self._on_device():
            mem = self.cupy.cuda.alloc(max(nbytes, 1))
        return mem.ptr, mem

    def storage(self, device, nbytes, zero):
        """A Storage on ``device`` of ``nbytes`` from CuPy's pool (zeroed on the stream if
        ``zero``): the core's allocator for this device, one Python frame from the op to the
        pool (Note [A device's allocator] in _storage.pyx; the device switch of _on_device,
        written out)."""
        if self._get_device() == self.index:  # Note [Switching to a backend's device]
            mem = self._alloc(nbytes if nbytes > 0 else 1)
        else:
            with self.cupy.cuda.Device(self.index):
                mem = self._alloc(nbytes if nbytes > 0 else 1)
        if zero and nbytes:
            self.runtime.memsetAsync(mem.ptr, 0, nbytes, self._current_stream().ptr)
        return _wrap(mem.ptr, nbytes, mem, device)

    def memset(self, ptr, value, nbytes):
        if nbytes:
            self.runtime.memsetAsync(ptr, value, nbytes, self._stream())

    def copy_from_host(self, dst, src, nbytes):
        if nbytes:
            # pageable host memory: returns once the bytes are staged, so src may go right after
            self.runtime.memcpyAsync(
                dst, src, nbytes, self.runtime.memcpyHostToDevice, self._stream()
            )

    def copy_to_host(self, dst, src, nbytes):
        """Copy to host memory; waits for the device, so it reports what earlier kernels found
        (Note [Errors found on the device are reported at the next synchronisation])."""
        if nbytes:
            self._read_back(dst, src, nbytes)
            self.checks.flush()

    def _read_back(self, dst, src, nbytes):
        self.runtime.memcpyAsync(dst, src, nbytes, self.runtime.memcpyDeviceToHost, self._stream())
        self._wait()

    def copy_device(self, dst, src, nbytes):
        if nbytes:
            self.runtime.memcpyAsync(
                dst, src, nbytes, self.runtime.memcpyDeviceToDevice, self._stream()
            )

    def compile(self, source, name_expressions, options):
        with self.cupy.cuda.Device(self.index):
            module, lowered = _nvrtc_module(
                self.cupy, source, tuple(options), list(name_expressions)
            )
        return _CupyModule(self.cupy, module, lowered, self.index)

    def launch(self, function, grid, block, args, shared_mem=0):
        """Launch through the driver directly: strided's arguments are all NumPy scalars whose
        bytes are the kernel's parameters, packed in C into the array of pointers
        cuLaunchKernel wants (Note [Kernel parameters] in _params.pyx). CuPy's own
        ``function(grid, block, args)`` inspects every argument's type and costs several
        microseconds more; see bench_cuda.py."""
        if tracing is not None:
            tracing.append((function, grid, block, shared_mem))
        buffer, params = _params.pack(args)
        g = (*grid, 1, 1)
        b = (*block, 1, 1)
        stream = self._current_stream().ptr
        self._launch_kernel(
            function.ptr, g[0], g[1], g[2], b[0], b[1], b[2], shared_mem, stream, params, 0
        )
        del buffer  # the driver has copied the parameters: their memory may go now

    def gemm(self, dtype, transa, transb, m, n, k, a, lda, sa, b, ldb, sb, c, ldc, sc, count):
        """``cublas<t>gemmStridedBatched`` with alpha 1 and beta 0 on CuPy's current stream
        (arguments planned by gemm_calls in _linalg.py, Note [cuBLAS on strided views]);
        ``cublasGemmStridedBatchedEx`` for float16 and bfloat16 (Note [cuBLAS for half
        matrices])."""
        if tracing is not None:
            tracing.append((f"cublas gemmStridedBatched<{dtype}>", (count,), (), 0))
        if self._cublas is None:
            from cupy_backends.cuda.libs import cublas

            self._cublas = cublas
        cublas = self._cublas
        half = _GEMM_EX_TYPES.get(dtype)
        # host memory: alpha and beta are read at the call (float32 for a half product)
        one, zero = _GEMM_SCALAR_ADDRESSES["float32" if half else dtype]
        ops = {"N": cublas.CUBLAS_OP_N, "T": cublas.CUBLAS_OP_T}
        with self._on_device():
            handle = self.cupy.cuda.device.get_cublas_handle()
            cublas.setStream(handle, self._stream())
            if cublas.getPointerMode(handle) != cublas.CUBLAS_POINTER_MODE_HOST:
                cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
            if half is None:
                getattr(cublas, _GEMM_PREFIX[dtype] + "gemmStridedBatched")(
                    handle, ops[transa], ops[transb], m, n, k, one,
                    a, lda, sa, b, ldb, sb, zero, c, ldc, sc, count,
                )  # fmt: skip
                return
            # Note [cuBLAS for half matrices]: float32 sums, rounded once
            t = getattr(self.runtime, half)
            mode = cublas.getMathMode(handle)
            exact = mode | _DISALLOW_REDUCED_PRECISION_REDUCTION
            if exact != mode:
                cublas.setMathMode(handle, exact)
            try:
                cublas.gemmStridedBatchedEx(
                    handle, ops[transa], ops[transb], m, n, k, one,
                    a, t, lda, sa, b, t, ldb, sb, zero, c, t, ldc, sc, count,
                    cublas.CUBLAS_COMPUTE_32F, cublas.CUBLAS_GEMM_DEFAULT,
                )  # fmt: skip
            finally:
                if exact != mode:
                    cublas.setMathMode(handle, mode)

    def synchronize(self):
        """Wait for every queued kernel, then report what they found."""
        self._wait()
        self.checks.flush()

    def _wait(self):
        with self.cupy.cuda.Device(self.index):
            self.runtime.deviceSynchronize()

    def memory_allocated(self):
        return self.cupy.get_default_memory_pool().used_bytes()

    def memory_reserved(self):
        return self.cupy.get_default_memory_pool().total_bytes()

    def empty_cache(self):
        self.cupy.get_default_memory_pool().free_all_blocks()


# Note [Subnormal floats on the GPU]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A float32 below 2**-126 is subnormal: IEEE 754, NumPy, PyTorch's CUDA kernels (nvcc's default)
# and the CPU keep it, so nextafter(0, -1) is -1.4e-45 and a bfloat16 subnormal widens to a
# float32 subnormal. CuPy compiles every kernel with ``-ftz=true`` (flush to zero), appended
# after the caller's options, so ``cupy.RawModule`` cannot be asked for IEEE arithmetic: the
# first GPU run of the half kernels found float32 nextafter, the bfloat16 casts and every
# float32 op on subnormals flushed to 0, where the emulator (the CPU) kept them. So strided
# calls the step below CuPy's cache, ``compile_using_nvrtc`` (NVRTC with our options, whose
# default is ``-ftz=false``), loads the cubin into a ``cupy.cuda.function.Module``, and keeps
# its own disk cache, as CuPy's would: a module with hundreds of instantiations takes NVRTC
# seconds, and every process would pay them. The file is named by a hash of everything that
# makes the cubin (source, options, GPU architecture, NVRTC and CuPy versions) and written
# whole or not at all (a temporary file renamed into place).

_NVRTC_FORMAT = 1  # the cache file's layout: a JSON line of names, then the cubin


def _cache_dir():
    import os

    return os.environ.get("STRIDED_CUDA_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "strided", "cuda"
    )


def _nvrtc_module(cupy, source, options, name_expressions):
    """A ``cupy.cuda.function.Module`` of ``source`` compiled by NVRTC without flushing
    subnormals to zero, and its functions' mangled names by name expression; see Note
    [Subnormal floats on the GPU]."""
    import hashlib
    import json
    import os
    import tempfile

    from cupy.cuda import compiler, function, nvrtc

    options = (*options, "--ftz=false")
    cc = cupy.cuda.Device().compute_capability
    key = hashlib.sha256(
        "\0".join(
            [str(_NVRTC_FORMAT), source, *options, cc, str(nvrtc.getVersion()), cupy.__version__]
            + sorted(name_expressions)
        ).encode()
    ).hexdigest()
    path = os.path.join(_cache_dir(), key + ".cubin")
    mapping, binary = None, None
    try:
        with open(path, "rb") as f:
            head = f.readline()
            mapping, binary = json.loads(head), f.read()
    except (OSError, ValueError):
        pass  # not compiled yet (or unreadable): compile it
    if binary is None:
        binary, mapping = compiler.compile_using_nvrtc(
            source, options, cc, name_expressions=name_expressions or None, cache_in_memory=True
        )
        if isinstance(binary, str):  # PTX, where NVRTC is older than the GPU
            binary = binary.encode()
        mapping = {k: v.decode() if isinstance(v, bytes) else v for k, v in (mapping or {}).items()}
        try:
            os.makedirs(_cache_dir(), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=_cache_dir(), suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(json.dumps(mapping).encode() + b"\n" + binary)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home: compile again next time
    module = function.Module()
    module.load(binary)
    return module, mapping or {}


class _CupyModule:
    """A compiled module whose functions are handed out as driver handles (``.ptr``)."""

    def __init__(self, cupy, module, lowered, index):
        self.cupy = cupy
        self.module = module
        self.lowered = lowered  # name expression (strided_binary<...>) -> its mangled name
        self.index = index

    def get_function(self, name):
        with self.cupy.cuda.Device(self.index):
            fn = self.module.get_function(self.lowered.get(name, name))
            return _CupyFunction(fn, fn.ptr)


class _CupyFunction:
    __slots__ = ("raw", "ptr")

    def __init__(self, raw, ptr):
        self.raw = raw  # keeps the module (and so the CUfunction) alive
        self.ptr = ptr


class EmulatorBackend:
    """strided's CUDA kernels on the CPU. See Note [Two CUDA backends]."""

    emulated = True

    def __init__(self, index):
        if index != 0:
            raise CudaUnavailableError("there is one emulated CUDA device: 'cuda-emulated:0'")
        from strided.cuda import _emulator

        self.emu = _emulator
        self.index = index
        self.checks = DeferredChecks(self)
        self.properties = dict(_emulator.DEVICE_PROPERTIES)
        self._counters = None  # (address, owner): one stream, see counters()

    def counters(self):
        """As CupyBackend.counters: the emulator has one stream, whose launches run to the
        end inside the call."""
        if self._counters is None:
            ptr, owner = self.allocate(4 * COUNTERS)
            self.memset(ptr, 0, 4 * COUNTERS)
            self._counters = (ptr, owner)
        return self._counters[0]

    def drop_counters(self):
        """As CupyBackend.drop_counters."""
        self._counters = None

    def allocate(self, nbytes):
        mem = self.emu.malloc(max(nbytes, 1))
        return mem.ptr, mem

    def storage(self, device, nbytes, zero):
        """As CupyBackend.storage: the core's allocator for the emulated device."""
        mem = self.emu.malloc(nbytes if nbytes > 0 else 1)
        if zero and nbytes:
            ctypes.memset(mem.ptr, 0, nbytes)
        return _wrap(mem.ptr, nbytes, mem, device)

    def memset(self, ptr, value, nbytes):
        if nbytes:
            ctypes.memset(ptr, value, nbytes)

    def copy_from_host(self, dst, src, nbytes):
        if nbytes:
            ctypes.memmove(dst, src, nbytes)

    def copy_to_host(self, dst, src, nbytes):
        if nbytes:
            self._read_back(dst, src, nbytes)
            self.checks.flush()  # as on a GPU: see CupyBackend.copy_to_host

    def _read_back(self, dst, src, nbytes):
        ctypes.memmove(dst, src, nbytes)

    def copy_device(self, dst, src, nbytes):
        if nbytes:
            ctypes.memmove(dst, src, nbytes)

    def compile(self, source, name_expressions, options):
        opts = [o for o in options if not o.startswith(("-arch", "--gpu-architecture"))]
        return self.emu.compile_module(source, list(name_expressions), options=opts)

    def launch(self, function, grid, block, args, shared_mem=0):
        if tracing is not None:
            tracing.append((function, grid, block, shared_mem))
        function(grid, block, args, shared_mem)

    def gemm(self, dtype, *args):
        """cuBLAS's gemmStridedBatched, as the reference in _emulator/_blas.py computes it."""
        if tracing is not None:
            tracing.append((f"cublas gemmStridedBatched<{dtype}>", (args[-1],), (), 0))
        self.emu.gemm_strided_batched(dtype, *args)

    def synchronize(self):
        # kernels ran to completion inside the launch; what they found is reported now, as on
        # a GPU (Note [Errors found on the device are reported at the next synchronisation])
        self.checks.flush()

    def memory_allocated(self):
        return self.emu.memory_allocated()

    def memory_reserved(self):
        return self.emu.memory_reserved()

    def empty_cache(self):
        self.emu.empty_cache()
