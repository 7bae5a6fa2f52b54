"""Build the compiled half of strided: one C extension per .pyx module.

Cython directives are set here, once, for every module (see STYLE.md). ``STRIDED_DEBUG=1`` in the
environment turns bounds checks, wraparound and initialised-check back on and compiles with
``-O0 -g``, for when a kernel misbehaves.
"""

import os
import sys
import sysconfig

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
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
    "strided._cpu.blas",
    "strided._cpu.lapack",
    "strided._cpu.reduce",
    "strided._cpu.scan",
    "strided._cpu.count",
    "strided._views",
    "strided.cuda._params",
]

if sys.platform == "win32":  # pragma: no cover - the project's machines are Linux
    compile_args = ["/O2", "/openmp"]
    link_args = []
else:
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
    # Note [-march]: strided is built where it runs (pip install -e . compiles in place), so by
    # default the compiler may use every instruction of this CPU (AVX2, FMA, ...): the
    # elementwise loops and scalar_math.h's vectorisable layer vectorise to its full width.
    # STRIDED_MARCH=x86-64 (or any -march value) builds for another target; STRIDED_MARCH=none
    # adds no flag.
    march = os.environ.get("STRIDED_MARCH", "native")
    if march != "none" and not DEBUG:
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
    whose isolated build environment, the first entry, is deleted afterwards). As a last resort
    ``strided/_ops/linalg.py`` imports ``scipy_openblas32`` first, which loads the library
    globally, and the loader then finds it already loaded by its soname.
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


# Modules that need more than the common options: name -> a function giving the extra ones.
EXTRA_OPTIONS = {
    "strided._cpu.blas_threads": openblas_options,
    "strided._cpu.blas": openblas_options,
    "strided._cpu.lapack": lapack_options,  # the same library holds LAPACK
    "strided._cpu.random": random_options,
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


class SourceOnlySdist(sdist):
    """``python -m build --sdist``: setuptools' sdist, less the files that templates render."""

    def make_release_tree(self, base_dir, files):
        files = [f for f in files if not os.path.exists(f + ".tp")]
        super().make_release_tree(base_dir, files)


setup(
    cmdclass={"sdist": SourceOnlySdist},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        nthreads=int(os.environ.get("STRIDED_BUILD_JOBS", os.cpu_count() or 1)),
    ),
)
