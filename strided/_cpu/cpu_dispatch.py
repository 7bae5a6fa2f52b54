"""Which compiled variant of the hot kernel modules this process loads, chosen once at import.

Note [Choosing kernels at run time]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A wheel is built once and installed on many CPUs. Compiled with ``-march=native`` on an AVX-512
machine, it dies with SIGILL ("Illegal instruction", no Python error) at ``import strided`` on a
laptop without AVX-512; compiled for plain x86-64 it runs everywhere but leaves the elementwise
loops at SSE2 width, two to four times slower than they can be. NumPy and PyTorch solve this by
compiling their hot loops several times and choosing at run time; strided does the same, in the
way that needs the least machinery with Cython:

* **One module, several builds.** Every kernel module in ``DISPATCHED`` (the elementwise loops
  and vector math of binary and unary, the reductions and scans, copies and casts, sort and
  select, the random number kernels) is cythonized once to one ``.c`` file, and that file is
  compiled three times by setup.py: for the baseline ``x86-64-v2`` (SSE4.2, POPCNT: every
  x86-64 CPU since 2008), into the usual place, ``strided/_cpu/binary.*.so``; for ``x86-64-v3``
  (AVX2, FMA, F16C, BMI) into ``strided/_cpu/x86_64_v3/binary.*.so``; and for ``x86-64-v4``
  (AVX-512 F/BW/CD/DQ/VL) into ``strided/_cpu/x86_64_v4/``. The C source does not change: the
  compiler vectorises the same loops to each width, and the ``#if defined(__AVX2__)`` paths of
  scalar_math.h and random_lanes.h switch on by themselves. Every other module (the Python-facing
  glue, BLAS and LAPACK calls, which OpenBLAS dispatches itself) is built once, for the baseline.
* **Chosen at import.** ``import strided._cpu.binary`` first runs ``strided/_cpu/__init__.py``,
  which imports this module. It asks the CPU its level (``cpu_features.cpu_level()``: CPUID, and
  XGETBV for whether the operating system saves the wide registers), lowers it to
  ``STRIDED_CPU_FEATURES`` when that is set, and puts a finder at the front of ``sys.meta_path``.
  From then on, any import of a module in ``DISPATCHED`` (by Python code, or by another
  extension's ``cimport``, which imports by name too) loads the file of the chosen level under
  the module's usual name. A Cython module's init function is named after the last part of its
  name (``PyInit_binary``), which is why each variant keeps its file name and lives in its own
  folder. Each module is loaded once, so there is one copy of every type and function table.
* **Why not the alternatives.** GCC's ``target_clones`` attribute makes one function into
  several and picks one through an ifunc, but it must be written on every C function, and
  Cython writes the functions (a kernel per dtype per op, thousands of them); an ifunc call also
  cannot be inlined into the loop that calls it. A table of function pointers per level would
  have the same problem one level up, and adds an indirect call per inner loop. Whole-module
  variants keep every kernel exactly as the native build compiles it (measured on a Zen 3
  machine, x86-64-v3 against ``-march=native``: the elementwise, reduction and sort suites of
  ``python -m strided.bench`` within their noise, sort of 1e6 float32 63-68 ms against
  63-76 ms; the tables are in issue 19's closing note) at the cost of compile time and wheel
  size for the dispatched modules only.
* **Overrides.** ``STRIDED_CPU_FEATURES=x86-64-v2`` (or ``x86-64-v3``, ``x86-64-v4``,
  ``baseline``) runs a lower level, to test the baseline kernels on a fast machine; a level above
  what the CPU has is refused with a warning (it would crash), and the CPU's own level is used.
  ``STRIDED_MARCH=native`` at build time builds every module once for this machine, with no
  variants (the local tuned build: Note [-march] in setup.py); ``python -m strided --facts``
  prints which build and which level this process runs.
* **aarch64, on paper.** The baseline there is NEON (Armv8-A, always present), which the
  compiler uses without flags; the variant worth building is SVE (``-march=armv8.2-a+sve``, for
  Graviton 3 and Neoverse V1/V2), chosen by ``getauxval(AT_HWCAP) & HWCAP_SVE`` in
  cpu_features.h. The same folder scheme carries it (``strided/_cpu/aarch64_sve/``). Today
  cpu_features.h answers 0 on aarch64 and the baseline modules are loaded: nothing in the C is
  x86-specific outside ``#if defined(__AVX2__)``/``__F16C__`` blocks, which fall back to
  portable C.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import warnings

try:
    from strided._cpu import _build, cpu_features
except ImportError:  # a checkout compiled before setup.py recorded its builds: one build
    _build = cpu_features = None

# The levels by number (cpu_features.h), and the names STRIDED_CPU_FEATURES accepts. The
# modules compiled per level, and the folder of each level's variants, are setup.py's
# (DISPATCHED, DISPATCH_LEVELS), recorded in the generated strided/_cpu/_build.py.
LEVELS = {1: "x86-64", 2: "x86-64-v2", 3: "x86-64-v3", 4: "x86-64-v4"}
_NAMES = {"baseline": 2, **{LEVELS[level]: level for level in (2, 3, 4)}}


def _requested_level(cpu):
    """The level this process runs: the CPU's, or lower when STRIDED_CPU_FEATURES says so."""
    asked = os.environ.get("STRIDED_CPU_FEATURES", "").strip().lower()
    if not asked:
        return cpu
    if asked not in _NAMES:
        raise ValueError(
            f"STRIDED_CPU_FEATURES={asked!r} is not a level strided knows; use one of "
            f"{', '.join(sorted(_NAMES))}, or leave it unset to use what the CPU has"
        )
    level = _NAMES[asked]
    if level > cpu:
        warnings.warn(
            f"STRIDED_CPU_FEATURES={asked} asks for more than this CPU has "
            f"({LEVELS[cpu]}); using {LEVELS[cpu]}",
            RuntimeWarning,
            stacklevel=3,
        )
        return cpu
    return level


class _VariantFinder:
    """Finds a DISPATCHED module's variant for the chosen level (Note [Choosing kernels at run
    time]); every other import falls through to Python's own finders."""

    def __init__(self, folder):
        self.folder = folder

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _build.DISPATCHED:
            return None
        leaf = fullname.rpartition(".")[2]
        here = os.path.join(os.path.dirname(__file__), self.folder)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            file = os.path.join(here, leaf + suffix)
            if os.path.exists(file):
                loader = importlib.machinery.ExtensionFileLoader(fullname, file)
                return importlib.machinery.ModuleSpec(fullname, loader, origin=file)
        return None  # not built for this level: the baseline module, found as usual

    def invalidate_caches(self):
        pass


cpu_level = cpu_features.cpu_level() if cpu_features is not None else 0
if _build is None:
    level = cpu_level
    loaded = "one build, from before run-time dispatch (rebuild: setup.py build_ext)"
elif _build.MARCH == "none":
    level = cpu_level
    loaded = "one build for the compiler's default target (no variants)"
elif _build.MARCH != "dispatch":
    # Built for one target (STRIDED_MARCH=native or another -march): one build of everything.
    level = cpu_level
    loaded = f"one build for -march={_build.MARCH} (no variants)"
else:
    if cpu_level < 2:
        raise ImportError(
            "strided's wheels need an x86-64-v2 CPU (SSE4.2 and POPCNT, every x86-64 CPU "
            "since 2008); this one has only x86-64. Build from source with STRIDED_MARCH=x86-64."
        )
    level = _requested_level(cpu_level)
    if level in _build.FOLDERS:
        sys.meta_path.insert(0, _VariantFinder(_build.FOLDERS[level]))
    here = os.path.dirname(__file__)
    built = ", ".join(
        LEVELS[lv]
        for lv in (2, *_build.FOLDERS)
        if lv == 2 or os.path.isdir(os.path.join(here, _build.FOLDERS[lv]))
    )
    loaded = f"{LEVELS[level]} kernels (built for {built})"

# bfloat16 products through vdpbf16ps (Note [bfloat16 matmul through vdpbf16ps] in blas.pyx):
# only where the x86-64-v4 kernels run, so that STRIDED_CPU_FEATURES=x86-64-v3 (or lower) also
# turns it off, and the level's check that the system saves the AVX-512 registers covers it.
avx512_bf16 = level >= 4 and cpu_features is not None and cpu_features.has_avx512_bf16()


def facts():
    """What ``python -m strided --facts`` prints about the kernels: the variant this process
    loaded, the file a dispatched module came from (the proof), and the CPU's level."""
    import strided._cpu.binary as binary

    where = os.path.relpath(binary.__file__, os.path.dirname(__file__))
    cpu = LEVELS.get(cpu_level, "not x86-64" if cpu_features is not None else "not asked")
    forced = os.environ.get("STRIDED_CPU_FEATURES")
    bf16 = "; bfloat16 matmul on vdpbf16ps" if avx512_bf16 else ""
    return f"{loaded}: binary from {where}; CPU {cpu}{bf16}" + (
        f"; STRIDED_CPU_FEATURES={forced}" if forced else ""
    )
