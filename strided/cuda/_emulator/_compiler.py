"""Compile CUDA C sources with the host C++ compiler, cache the modules, launch their kernels."""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from . import _memory

_HERE = Path(__file__).resolve().parent
_HEADERS = ("shim.h", "runtime.h", "launch.h")
_VERSION = "1"  # bump when the generated translation unit changes shape
_ERROR_LINES = 40
_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".cuh", ".cu", ".inc", ".inl", ".ipp", ".tcc")

# NVRTC options that mean nothing on the CPU (architecture, fast math, debug info for the GPU).
_NVRTC_ONLY = re.compile(
    r"^(-arch|--gpu-architecture|-lineinfo|--generate-line-info|-use_fast_math|--use_fast_math|"
    r"-G|--device-debug|--ptxas-options|-Xptxas|--maxrregcount|-maxrregcount|--fmad|-fmad|"
    r"-ftz|--ftz|-prec-div|--prec-div|-prec-sqrt|--prec-sqrt|-default-device|"
    r"--device-as-default-execution-space|-rdc|--relocatable-device-code|-dopt|--dopt|"
    r"-dlto|--dlto|-ewp|--extensible-whole-program|--device-int128|-no-source-include)"
)

MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_THREADS_PER_BLOCK = 1024
MAX_DYNAMIC_SHARED = 227 * 1024  # must equal strided_emu::kMaxDynamicShared in runtime.h

_thread_order = {"forward": 0, "reverse": 1}
_order = 0  # see set_thread_order


def set_thread_order(order: str) -> None:
    """Schedule the threads of each block (and the blocks) forwards or in reverse.

    A kernel that reads shared memory written by another thread without the barrier between the
    write and the read gives different results under the two orders.

    Examples
    --------
    >>> from strided.cuda import _emulator as emu
    >>> emu.set_thread_order("reverse"); emu.get_thread_order()
    'reverse'
    >>> emu.set_thread_order("forward")
    """
    global _order
    if order not in _thread_order:
        raise ValueError(f"thread order must be 'forward' or 'reverse', not {order!r}")
    _order = _thread_order[order]


def get_thread_order() -> str:
    """The current thread order: 'forward' or 'reverse'."""
    return "reverse" if _order else "forward"


# ------------------------------------------------------------------------------------------------
# Compiling.


def _cache_dir() -> Path:
    root = os.environ.get("STRIDED_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "strided"
    path = base / "emulator"
    path.mkdir(parents=True, exist_ok=True)
    return path


_compiler_ids: dict[str, str] = {}


def _compiler() -> tuple[str, str]:
    """The C++ compiler (STRIDED_EMULATOR_CXX, else g++) and its version line, for the key."""
    cxx = os.environ.get("STRIDED_EMULATOR_CXX", "g++")
    if cxx not in _compiler_ids:
        exe = shutil.which(cxx)
        if exe is None:
            raise RuntimeError(
                f"the CUDA emulator needs a C++17 compiler: {cxx!r} was not found "
                "(install g++, or set STRIDED_EMULATOR_CXX)"
            )
        out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
        _compiler_ids[cxx] = exe + "\n" + (out.splitlines() or [""])[0]
    return cxx, _compiler_ids[cxx]


def _flags(options) -> list[str]:
    """g++ flags: the fixed ones, then what of ``options`` means something on the CPU."""
    std = "-std=c++17"
    extra = []
    ubsan = os.environ.get("STRIDED_EMULATOR_UBSAN", "0") not in ("", "0")
    for opt in options:
        opt = str(opt)
        if opt.startswith(("-std=", "--std=")):
            std = "-std=" + opt.split("=", 1)[1]
        elif opt in ("-fsanitize=undefined", "--ubsan"):
            ubsan = True
        elif opt.startswith(("-D", "-U", "-I", "-O", "-f", "-W", "-g")):
            extra.append(opt)
        elif _NVRTC_ONLY.match(opt):
            continue
        else:
            raise ValueError(f"compile option {opt!r} is not understood by the CUDA emulator")
    flags = [std, "-O1", "-shared", "-fPIC", "-fvisibility=hidden", "-fno-exceptions"]
    # A store through a null pointer must fault (and be reported), not be optimised away as
    # undefined behaviour; kernels that type-pun through pointers should work as under NVRTC.
    flags += ["-fno-delete-null-pointer-checks", "-fno-strict-aliasing"]
    flags += ["-DSTRIDED_EMULATOR", *extra]
    if ubsan:
        # The shim defines the UBSan handlers (see shim.h), so nothing needs libubsan at run time:
        # compile_module links such a module without it (g++ -fsanitize would add it).
        flags += [
            "-DSTRIDED_EMULATOR_UBSAN",
            "-fsanitize=undefined",
            "-fno-sanitize=vptr",
            "-fno-sanitize-recover=all",
        ]
    return flags


_shim_digests: dict[tuple, bytes] = {}


def _shim_digest() -> bytes:
    """A hash of the emulator's own headers (re-read only when one changes on disk)."""
    stats = tuple((st.st_mtime_ns, st.st_size) for st in ((_HERE / n).stat() for n in _HEADERS))
    digest = _shim_digests.get(stats)
    if digest is None:
        h = hashlib.sha256()
        for name in _HEADERS:
            h.update((_HERE / name).read_bytes() + b"\1")
        digest = _shim_digests[stats] = h.digest()
    return digest


_include_hashes: dict[tuple, str] = {}


def _hash_includes(include_dirs) -> str:
    """A hash of every header-like file under the include directories (memoised by stat)."""
    h = hashlib.sha256()
    for d in include_dirs:
        root = Path(d).resolve()
        h.update(str(root).encode() + b"\0")
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix not in _HEADER_SUFFIXES or not path.is_file():
                continue
            st = path.stat()
            key = (str(path), st.st_mtime_ns, st.st_size)
            digest = _include_hashes.get(key)
            if digest is None:
                digest = _include_hashes[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            h.update(str(path.relative_to(root)).encode() + b"\0" + digest.encode())
    return h.hexdigest()


def _translation_unit(source: str, names: list[str]) -> str:
    rows = "".join(f"    STRIDED_EMU_KERNEL({n}),\n" for n in names)
    return (
        "// GENERATED by strided.cuda._emulator.compile_module: shim, source, launchers.\n"
        f'#include "{_HERE / "shim.h"}"\n'
        '#line 1 "source.cu"\n'
        f"{source}\n"
        f'#include "{_HERE / "launch.h"}"\n'
        '#line 1 "name_expressions"\n'
        f"static const strided_emu::Kernel strided_emu_kernels[] = {{\n{rows}}};\n"
        "STRIDED_EMU_API(strided_emu_kernels)\n"
    )


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


_modules: dict[str, Module] = {}


def compile_module(source: str, name_expressions, include_dirs=(), options=()) -> Module:
    """Compile a CUDA C source for the CPU emulator and load it.

    One translation unit: the shim (shim.h), ``source``, then a launcher for each name expression
    (``"strided_add<float, int>"``). Cached on disk under ``$STRIDED_CACHE_DIR/emulator`` (or
    ``~/.cache/strided/emulator``) by a hash of everything that goes into it, and in the process.
    ``options`` take NVRTC-style flags: ``-D``/``-U``/``-I``/``-std=`` are honoured,
    ``-fsanitize=undefined`` turns on UBSan (as does ``STRIDED_EMULATOR_UBSAN=1``), and
    options that only mean something to NVRTC (``--gpu-architecture``, ``--use_fast_math``, ...)
    are ignored; any other option raises ValueError.

    Raises RuntimeError with the compiler's first 40 lines of messages when it fails.
    """
    names = [str(n) for n in name_expressions]
    if not names:
        raise ValueError("compile_module needs at least one name expression")
    include_dirs = [str(Path(d).resolve()) for d in include_dirs]
    flags = _flags(options) + [f"-I{d}" for d in include_dirs]
    cxx, compiler_id = _compiler()
    h = hashlib.sha256()
    for part in (_VERSION, compiler_id, "\0".join(flags), source, "\0".join(names)):
        h.update(part.encode() + b"\1")
    h.update(_shim_digest())
    h.update(_hash_includes(include_dirs).encode())
    key = h.hexdigest()[:40]
    module = _modules.get(key)
    if module is not None:
        return module

    cache = _cache_dir()
    so_path = cache / f"{key}.so"
    cache_hit = so_path.exists()
    if not cache_hit:
        cpp_path = cache / f"{key}.cpp"
        _write_atomic(cpp_path, _translation_unit(source, names).encode())
        fd, tmp_so = tempfile.mkstemp(dir=cache, prefix=f"{key}.", suffix=".so.tmp")
        os.close(fd)
        try:
            if "-fsanitize=undefined" in flags:
                obj = tmp_so[: -len(".so.tmp")] + ".o"
                proc = subprocess.run(
                    [cxx, *flags, "-c", "-o", obj, str(cpp_path)], capture_output=True, text=True
                )
                if proc.returncode == 0:
                    proc = subprocess.run(
                        [cxx, "-shared", "-o", tmp_so, obj], capture_output=True, text=True
                    )
                if os.path.exists(obj):
                    os.unlink(obj)
            else:
                proc = subprocess.run(
                    [cxx, *flags, "-o", tmp_so, str(cpp_path)], capture_output=True, text=True
                )
            if proc.returncode != 0:
                lines = (proc.stderr or proc.stdout).splitlines()
                more = len(lines) - _ERROR_LINES
                text = "\n".join(lines[:_ERROR_LINES])
                if more > 0:
                    text += f"\n... ({more} more lines; the source is {cpp_path})"
                raise RuntimeError(
                    f"the CUDA emulator could not compile {', '.join(names)} "
                    f"({cxx} exited with {proc.returncode}):\n{text}"
                )
            os.replace(tmp_so, so_path)
        finally:
            if os.path.exists(tmp_so):
                os.unlink(tmp_so)
    module = _modules[key] = Module(so_path, names, cache_hit)
    return module


# ------------------------------------------------------------------------------------------------
# Loading and launching.


def _normalise(name: str) -> str:
    """Spacing-insensitive form of a name expression: 'f<float,int>' == 'f< float, int >'."""
    name = " ".join(name.split())
    return re.sub(r" ?([^\w ]) ?", r"\1", name)


class Module:
    """A compiled, loaded emulator module: ``get_function(name_expression)`` gives its kernels."""

    def __init__(self, path: Path, names: list[str], cache_hit: bool):
        self.path = str(path)
        self.cache_hit = cache_hit
        self.name_expressions = list(names)
        self._lib = lib = ctypes.PyDLL(self.path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        lib.strided_emu_kernel_count.restype = ctypes.c_int
        lib.strided_emu_kernel_params.argtypes = [
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_size_t),
            ctypes.c_int,
        ]
        lib.strided_emu_init.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_size_t,
            ctypes.c_int,
        ]
        launch = lib.strided_emu_launch
        launch.restype = ctypes.c_int
        launch.argtypes = [
            ctypes.c_int,  # kernel index
            ctypes.c_char_p,  # name, for messages
            ctypes.c_void_p,  # grid[3]
            ctypes.c_void_p,  # block[3]
            ctypes.c_size_t,  # dynamic shared bytes
            ctypes.c_char_p,  # packed arguments
            ctypes.c_int,  # reverse order
            ctypes.c_void_p,  # live allocations: (base, nbytes) pairs
            ctypes.c_size_t,  # how many
            ctypes.c_char_p,  # canary
            ctypes.c_void_p,  # out: damaged allocations
            ctypes.c_void_p,  # out: error text
            ctypes.c_size_t,
        ]
        self._launch = launch
        stacks = _memory.stacks()
        lib.strided_emu_init(stacks.base, stacks.stride, stacks.guard, stacks.count)
        self._index = {}
        self._sizes = []
        for i, name in enumerate(names):
            buf = (ctypes.c_size_t * 256)()
            n = lib.strided_emu_kernel_params(i, buf, 256)
            self._sizes.append(tuple(buf[:n]))
            self._index[_normalise(name)] = i
        self._functions: dict[int, Function] = {}

    def get_function(self, name: str) -> Function:
        """The kernel compiled for this name expression (spacing does not matter)."""
        i = self._index.get(_normalise(name))
        if i is None:
            raise KeyError(
                f"{name!r} is not one of this module's name expressions: {self.name_expressions}"
            )
        fn = self._functions.get(i)
        if fn is None:
            fn = self._functions[i] = Function(self, i, self.name_expressions[i])
        return fn

    def __repr__(self) -> str:
        return f"<emulator module {Path(self.path).name}: {', '.join(self.name_expressions)}>"


def _dim3(value, what: str) -> tuple[int, int, int]:
    if isinstance(value, int | np.integer):
        value = (value,)
    dims = tuple(int(v) for v in value)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{what} must be 1 to 3 ints, not {value!r}")
    return dims + (1,) * (3 - len(dims))


_ERROR_BYTES = 4096


class Function:
    """One kernel of a Module; call it like CuPy's RawKernel: ``fn(grid, block, args)``."""

    def __init__(self, module: Module, index: int, name: str):
        self.module = module
        self.name = name
        self._index = index
        self._cname = name.encode()
        self._sizes = module._sizes[index]
        self._error = ctypes.create_string_buffer(_ERROR_BYTES)
        self._error_ptr = ctypes.addressof(self._error)
        self._bad = ctypes.c_int(0)
        self._bad_ptr = ctypes.addressof(self._bad)
        self._dims = (ctypes.c_uint * 6)()
        self._dims_ptr = ctypes.addressof(self._dims)

    @property
    def num_params(self) -> int:
        return len(self._sizes)

    def _pack(self, args) -> bytes:
        sizes = self._sizes
        if len(args) != len(sizes):
            raise TypeError(
                f"kernel {self.name} takes {len(sizes)} arguments, {len(args)} were given"
            )
        parts = []
        for i, a in enumerate(args):
            if isinstance(a, np.generic):
                b = a.tobytes()
            elif isinstance(a, bytes):  # a struct's bytes, as the host packed them
                b = a
            elif isinstance(a, bool):
                b = b"\1" if a else b"\0"
            elif isinstance(a, int):
                b = np.int64(a).tobytes()  # as CuPy passes a Python int
            elif isinstance(a, float):
                b = np.float64(a).tobytes()
            elif isinstance(a, _memory.Memory):
                b = np.uint64(a.ptr).tobytes()
            else:
                raise TypeError(
                    f"kernel {self.name}, argument {i}: {type(a).__name__} cannot be passed; "
                    "pass NumPy scalars (pointers as np.uint64), Python int/float/bool, "
                    "the bytes of a struct, or emulator Memory"
                )
            if len(b) != sizes[i]:
                raise TypeError(
                    f"kernel {self.name}, argument {i}: {len(b)} bytes given "
                    f"({type(a).__name__}), but parameter {i} of the kernel has {sizes[i]} bytes"
                )
            parts.append(b)
        return b"".join(parts)

    def __call__(self, grid, block, args, shared_mem: int = 0) -> None:
        g = _dim3(grid, "grid")
        b = _dim3(block, "block")
        if (
            min(g) < 1
            or min(b) < 1
            or any(x > m for x, m in zip(g, MAX_GRID, strict=True))
            or any(x > m for x, m in zip(b, MAX_BLOCK, strict=True))
            or b[0] * b[1] * b[2] > MAX_THREADS_PER_BLOCK
        ):
            raise ValueError(
                f"invalid configuration for {self.name}: grid {g}, block {b} (each dimension "
                f">= 1, grid <= {MAX_GRID}, block <= {MAX_BLOCK}, "
                f"at most {MAX_THREADS_PER_BLOCK} threads per block)"
            )
        shared_mem = int(shared_mem)
        if not 0 <= shared_mem <= MAX_DYNAMIC_SHARED:
            raise ValueError(
                f"{self.name}: {shared_mem} bytes of dynamic shared memory requested; "
                f"at most {MAX_DYNAMIC_SHARED}"
            )
        blob = self._pack(args)
        alloc = _memory._allocator
        alloc.collect()
        self._dims[:] = g + b
        status = self.module._launch(
            self._index,
            self._cname,
            self._dims_ptr,
            self._dims_ptr + 12,
            shared_mem,
            blob,
            _order,
            alloc.table_ptr,
            len(alloc.live),
            _memory.CANARY,
            self._bad_ptr,
            self._error_ptr,
            _ERROR_BYTES,
        )
        message = self._error.value.decode(errors="replace") if status else ""
        if self._bad.value:
            damage = alloc.damaged(self.name)
            message = f"{message}\n{damage}" if message else damage
        if status == 2:
            raise KeyboardInterrupt(f"emulated launch of {self.name} interrupted")
        if message:
            raise RuntimeError(message)

    def __repr__(self) -> str:
        return f"<emulated kernel {self.name}: {self.num_params} parameters>"
