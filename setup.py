"""Build the compiled half of strided: one C extension per .pyx module.

Cython directives are set here, once, for every module (see STYLE.md). ``STRIDED_DEBUG=1`` in the
environment turns bounds checks, wraparound and initialised-check back on and compiles with
``-O0 -g``, for when a kernel misbehaves.
"""

import copy
import os
import platform
import sys
import sysconfig

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

DEBUG = os.environ.get("STRIDED_DEBUG", "0") not in ("", "0")


def dtype_table():
    """The names every template may use, from the one dtype table (Note [The dtype table] in
    strided/_dtype_table.py), read by path: nothing of strided is compiled yet."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_dtype_table", "strided/_dtype_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    return {name: getattr(table, name) for name in table.__all__}


def render_templates():
    """Render every Tempita template, ``X.pyx.tp`` or ``X.pxd.tp``, to ``X.pyx`` or ``X.pxd``
    (see Note [Generated loops] in strided/_cpu/binary.pyx.tp), with the dtype table's names
    in scope. Generated files say so on line 1 and are not committed."""
    from Cython import Tempita

    names = dtype_table()
    for root, _, files in os.walk("strided"):
        for name in files:
            if not name.endswith((".pyx.tp", ".pxd.tp")):
                continue
            src = os.path.join(root, name)
            dst = src[: -len(".tp")]
            with open(src) as f:
                text = Tempita.sub(f.read(), **names)
            text = (
                f"# GENERATED from {name} by setup.py: edit the template, not this file.\n"
                + text.lstrip("\n")
            )
            old = open(dst).read() if os.path.exists(dst) else None
            if old != text:  # leave the file alone when unchanged, so nothing recompiles
                with open(dst, "w") as f:
                    f.write(text)


render_templates()

# Every compiled module of the package, in layer order (see DESIGN.md: each imports downwards).
MODULES = [
    "strided._dtype",
    "strided._alloc",
    "strided._device",
    "strided._storage",
    "strided._overlap",
    "strided._core",
    "strided._from_numpy",
    "strided._dlpack",
    "strided._threads",
    "strided._loop_plan",
    "strided._iter",
    "strided._cpu.copy",
    "strided._cpu.mask",
    "strided._cpu.offsets",
    "strided._cpu.index",
    "strided._cpu.search",
    "strided._cpu.sort",
    "strided._cpu.select",
    "strided._cpu.unique",
    "strided._cpu.random",
    "strided._cpu.binary",
    "strided._cpu.unary",
    "strided._cpu.blas_threads",
    "strided._cpu.gemm_loops",
    "strided._cpu.blas",
    "strided._cpu.conv",
    "strided._cpu.lapack",
    "strided._cpu.reduce",
    "strided._cpu.scan",
    "strided._cpu.count",
    "strided._views",
    "strided._dispatch_call",
    "strided._compile._call",
    "strided.autograd._grad_state",
    "strided.autograd._node",
    "strided.autograd._record",
    "strided.cuda._params",
    "strided._cpu.cpu_features",
]

# The hot kernel modules, compiled once per x86-64 level beyond the baseline when the build
# dispatches (Note [-march] below; Note [Choosing kernels at run time] in
# strided/_cpu/cpu_dispatch.py): the elementwise loops and vector math, copies and casts,
# reductions and scans, sort and select, random numbers. Each level's folder under strided/_cpu.
DISPATCHED = [
    "strided._cpu.copy",
    "strided._cpu.sort",
    "strided._cpu.select",
    "strided._cpu.random",
    "strided._cpu.binary",
    "strided._cpu.unary",
    "strided._cpu.reduce",
    "strided._cpu.scan",
    "strided._cpu.conv",
    "strided._cpu.gemm_loops",
]
DISPATCH_LEVELS = {3: "x86_64_v3", 4: "x86_64_v4"}

if sys.platform == "win32":  # pragma: no cover - the project's machines are Linux
    compile_args = ["/O2", "/openmp"]
    link_args = []
    march = "none"
else:
    # -g0: no debug information outside STRIDED_DEBUG builds (Python's own flags ask for -g),
    # which makes the build a third faster and the wheel a third of the size.
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3", "-g0"]
    # Note [-march]: a build is either for many CPUs or for this one.
    # * STRIDED_MARCH unset (or "dispatch"), the default and what wheels are: every module is
    #   compiled for the x86-64-v2 baseline, and the hot kernel modules (DISPATCHED below) are
    #   compiled twice more, for x86-64-v3 (AVX2, FMA) and x86-64-v4 (AVX-512), into folders of
    #   their own; strided/_cpu/cpu_dispatch.py loads the best one this CPU runs (Note [Choosing
    #   kernels at run time] there). An in-place build (build_ext --inplace, pip install -e: the
    #   development build) compiles only the levels this CPU runs (BuildExt below). On machines
    #   other than x86-64, the compiler's default target, one build.
    # * STRIDED_MARCH=native: everything once, with every instruction of this CPU (the local
    #   tuned build); STRIDED_MARCH=<any -march value> builds for that target; STRIDED_MARCH=none
    #   adds no flag. None of these has variants.
    # Switching between them changes flags, not sources, so rebuild with --force.
    march = os.environ.get("STRIDED_MARCH", "dispatch")
    if DEBUG:
        march = "none"
    elif march == "dispatch" and platform.machine() not in ("x86_64", "AMD64"):
        march = "none"
        DISPATCH_LEVELS = {}
    if march == "dispatch":
        compile_args.append("-march=x86-64-v2")
    elif march != "none":
        compile_args.append(f"-march={march}")
    # The kernels read and write elements through char* arithmetic: tell the optimiser not to
    # assume that pointers of different types never alias. No kernel reads errno, so sqrt and
    # friends need not set it, which lets their loops vectorise (sqrtf becomes one instruction).
    compile_args += [
        "-fopenmp",
        "-fno-strict-aliasing",
        "-fno-math-errno",
        "-Wno-unused-function",
        "-Wno-maybe-uninitialized",
    ]
    link_args = ["-fopenmp"]


def openblas_options():
    """Compile and link options for the modules that call OpenBLAS (strided._cpu.blas, its
    thread set-up blas_threads, and lapack).

    Note [Finding OpenBLAS at run time]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    The ``scipy-openblas32`` wheel ships ``libscipy_openblas.so`` and its headers (every symbol
    prefixed ``scipy_``, so it cannot clash with the OpenBLAS inside NumPy). The extension links
    to it with an rpath, so that it loads without LD_LIBRARY_PATH. Two rpath entries: the
    wheel's directory as seen by this build (right for ``setup.py build_ext --inplace``), and
    where it will be installed in the environment being built for (right for ``pip install``,
    whose isolated build environment, the first entry, is deleted afterwards). A wheel repaired
    by auditwheel (tools/build_wheels.sh) keeps neither: auditwheel drops every RUNPATH outside
    the wheel, and is told not to copy OpenBLAS in (the package is a dependency). So
    ``strided/_cpu/__init__.py`` loads the package's library itself, before any module that
    links to it, and the loader then finds it already loaded by its soname; the rpaths only
    matter to a program that loads strided._cpu.blas without the package.
    """
    import scipy_openblas32 as openblas

    lib_dir = openblas.get_lib_dir()
    installed = os.path.join(sysconfig.get_paths()["purelib"], "scipy_openblas32", "lib")
    rpath = [lib_dir]
    if os.path.realpath(installed) != os.path.realpath(lib_dir):
        rpath.append(installed)
    return {
        "include_dirs": [openblas.get_include_dir()],
        "library_dirs": [lib_dir],
        "libraries": [openblas.get_library()],
        "runtime_library_dirs": [] if sys.platform == "win32" else rpath,
    }


def lapack_options():
    """OpenBLAS's options, and no fused multiply-adds for the small-matrix loops of Note [Small
    matrices without LAPACK] (strided/_cpu/small_lapack.pxd, compiled into strided._cpu.lapack):
    ``a - (a / p) * p`` is exactly 0 in
    most cases when rounded twice, as LAPACK computes it, and never when fused, so an exactly
    singular matrix (two equal rows) would get a tiny pivot instead of LAPACK's zero."""
    options = openblas_options()
    if sys.platform != "win32":
        options["extra_compile_args"] = ["-ffp-contract=off"]
    return options


def random_options():
    """No fused multiply-adds in the random kernels (strided/_cpu/random.pyx): the CUDA kernels
    compute ``low + span * u`` and ``mean + std * z`` with two roundings (random.cu), and the
    CPU must round the same to give the same numbers for a seed. The fused multiply-adds that
    the kernels want are spelled fma() (Note [Box-Muller math that vectorises]), which this
    flag leaves alone."""
    return {"extra_compile_args": [] if sys.platform == "win32" else ["-ffp-contract=off"]}


def unary_options():
    """-fno-trapping-math for the unary kernels: GCC 12 will not turn a select of a computed
    float (``c ? a : b``) into vector code while floating-point operations may trap, so the
    branch-free functions of strided/_cpu/vecmath.h and scalar_math.h's exp would run one
    element at a time. The flag lets the compiler compute both arms of a select in every lane,
    so the vector code of a checked op (log: NumPy warns on log(0)) computes nothing that can
    raise a flag in any lane, and the arguments that must raise go to the C library in the
    loop's fix-up pass (Note [Vectorised transcendental functions]; tests/test_errstate.py and
    tests/test_vecmath_accuracy.py check the warnings)."""
    return {"extra_compile_args": [] if sys.platform == "win32" else ["-fno-trapping-math"]}


def cpu_features_options():
    """strided._cpu.cpu_features asks the CPU what it can run: it must itself run on any x86-64
    CPU, to say so in Python rather than die of SIGILL (strided/_cpu/cpu_features.h)."""
    native_x86 = sys.platform != "win32" and platform.machine() in ("x86_64", "AMD64")
    return {"extra_compile_args": ["-march=x86-64"] if native_x86 else []}


# Modules that need more than the common options: name -> a function giving the extra ones.
EXTRA_OPTIONS = {
    "strided._cpu.blas_threads": openblas_options,
    "strided._cpu.blas": openblas_options,
    "strided._cpu.conv": openblas_options,  # Winograd's GEMMs
    "strided._cpu.lapack": lapack_options,  # the same library holds LAPACK
    "strided._cpu.random": random_options,
    "strided._cpu.cpu_features": cpu_features_options,
    "strided._cpu.unary": unary_options,
    "strided._cpu.binary": unary_options,  # its VECTORISED rows (vecmath.h) likewise
    "strided._cpu.reduce": unary_options,  # softmax's exp rows (Note [Softmax rows in one pass])
}


def extension(name):
    extra = EXTRA_OPTIONS[name]() if name in EXTRA_OPTIONS else {}
    return Extension(
        name,
        [name.replace(".", "/") + ".pyx"],
        include_dirs=[np.get_include(), "strided", "strided/_cpu", *extra.pop("include_dirs", [])],
        extra_compile_args=compile_args + extra.pop("extra_compile_args", []),
        extra_link_args=link_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        **extra,
    )


extensions = [extension(name) for name in MODULES]


def with_variants(compiled):
    """The compiled modules, and the DISPATCHED ones once more per level above the baseline,
    from the C that Cython wrote once (Note [-march]): ``strided._cpu.x86_64_v3.binary`` is
    binary.c compiled with ``-march=x86-64-v3``. The last part of the name stays, so that the
    file still holds ``PyInit_binary``; strided/_cpu/cpu_dispatch.py loads it as
    ``strided._cpu.binary``."""
    if march != "dispatch":
        return compiled
    out = list(compiled)
    for ext in compiled:
        if ext.name not in DISPATCHED:
            continue
        package, _, leaf = ext.name.rpartition(".")
        for level, folder in DISPATCH_LEVELS.items():
            variant = copy.deepcopy(ext)
            variant.name = f"{package}.{folder}.{leaf}"
            variant.extra_compile_args = [*ext.extra_compile_args, f"-march=x86-64-v{level}"]
            variant.strided_level = level  # for BuildExt
            out.append(variant)
    return out


def write_build_record():
    """strided/_cpu/_build.py: what this build compiled, for cpu_dispatch.py at import (a
    variant folder left over from another build must not be loaded). Generated, not committed."""
    dispatching = march == "dispatch"
    text = (
        "# GENERATED by setup.py: how the compiled modules were built (Note [-march]).\n"
        f"MARCH = {march!r}\n"
        f"DISPATCHED = {tuple(DISPATCHED) if dispatching else ()!r}\n"
        f"FOLDERS = {DISPATCH_LEVELS if dispatching else {}!r}\n"
    )
    path = "strided/_cpu/_build.py"
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)


write_build_record()

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}

# Note [What a distribution carries]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The sdist is the source a build starts from: every .pyx, .pyx.tp, .pxd, .h, .cu and .cuh,
# the tests, docs and benchmarks (MANIFEST.in), and none of what a build writes: no .c, no .so,
# and no .pyx rendered from a .pyx.tp, since setup.py renders those again (a stale rendered copy
# beside its template would only mislead). The wheel carries the compiled modules and, for the
# students the README sends to the source, the .pyx/.pxd/.tp/.h files beside them, but not the
# 29 MB of generated C (pyproject.toml's package-data and exclude-package-data).


def this_cpu_level():
    """The x86-64 level of the CPU that builds (the flags Linux lists in /proc/cpuinfo, which
    name the same features as strided/_cpu/cpu_features.h); 4 where it cannot tell."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next(line for line in f if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return 4
    v3 = {"avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"}
    v4 = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
    return 4 if v3 | v4 <= set(flags) else 3 if v3 <= set(flags) else 2


class BuildExt(build_ext):
    """setuptools' build_ext, which for an in-place build (``build_ext --inplace``, ``pip install
    -e``: the development build, which runs only where it is built) leaves out the variants for
    levels this CPU cannot run, to keep the build short: AVX-512 kernels on an AVX2 machine are
    only compile time (Note [-march]). A wheel (not in place) gets every level.
    Where -j is not given (``pip install``, ``python -m build``) the C compiles run in parallel,
    one per core, or ``STRIDED_BUILD_JOBS``; setuptools' default would compile one module at a
    time."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = int(os.environ.get("STRIDED_BUILD_JOBS", os.cpu_count() or 1))

    def build_extension(self, ext):
        """A level's variant compiles its C into a folder of its own: setuptools names an
        object file after its source, so ``binary.c`` built for the baseline, x86-64-v3 and
        x86-64-v4 would all be ``build/temp.../strided/_cpu/binary.o``, written at once by the
        parallel compiles (a corrupt or wrong-level object in a module). A shallow copy of
        this command carries the variant's folder, since the worker threads share ``self``."""
        level = getattr(ext, "strided_level", None)
        if level is None:
            return super().build_extension(ext)
        variant = copy.copy(self)
        variant.build_temp = os.path.join(self.build_temp, DISPATCH_LEVELS[level])
        return super(BuildExt, variant).build_extension(ext)

    def run(self):
        if self.inplace:
            top = this_cpu_level()
            self.extensions = [e for e in self.extensions if getattr(e, "strided_level", 0) <= top]
            for folder in {
                e.name.split(".")[-2] for e in self.extensions if hasattr(e, "strided_level")
            }:
                os.makedirs(os.path.join("strided", "_cpu", folder), exist_ok=True)
        super().run()


class SourceOnlySdist(sdist):
    """``python -m build --sdist``: setuptools' sdist, less the files that templates render."""

    def make_release_tree(self, base_dir, files):
        written = {os.path.join("strided", "_cpu", "_build.py")}  # write_build_record's
        files = [f for f in files if not os.path.exists(f + ".tp") and f not in written]
        super().make_release_tree(base_dir, files)


setup(
    cmdclass={"build_ext": BuildExt, "sdist": SourceOnlySdist},
    ext_modules=with_variants(
        cythonize(
            extensions,
            compiler_directives=directives,
            nthreads=int(os.environ.get("STRIDED_BUILD_JOBS", os.cpu_count() or 1)),
        )
    ),
)
