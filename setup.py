"""Build the compiled half of strided: one C extension per .pyx module.

Cython directives are set here, once, for every module (see STYLE.md). ``STRIDED_DEBUG=1`` in the
environment turns bounds checks, wraparound and initialised-check back on and compiles with
``-O0 -g``, for when a kernel misbehaves.
"""

import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("STRIDED_DEBUG", "0") not in ("", "0")


def render_templates():
    """Render every ``.pyx.tp`` Tempita template to its ``.pyx`` (see Note [Generated loops] in
    strided/_cpu/binary.pyx.tp). Generated files say so on line 1 and are not committed."""
    from Cython import Tempita

    for root, _, files in os.walk("strided"):
        for name in files:
            if not name.endswith(".pyx.tp"):
                continue
            src = os.path.join(root, name)
            dst = src[: -len(".tp")]
            with open(src) as f:
                text = Tempita.sub(f.read())
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
    "strided._core",
    "strided._dlpack",
    "strided._iter",
    "strided._cpu.copy",
    "strided._cpu.random",
    "strided._cpu.binary",
    "strided._cpu.unary",
    "strided._views",
]

if sys.platform == "win32":  # pragma: no cover - the project's machines are Linux
    compile_args = ["/O2", "/openmp"]
    link_args = []
else:
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
    # Note [-march]: strided is built where it runs (pip install -e . compiles in place), so by
    # default the compiler may use every instruction of this CPU (AVX2, FMA, ...): the
    # elementwise loops and vecmath.h vectorise to its full width. STRIDED_MARCH=x86-64 (or any
    # -march value) builds for another target; STRIDED_MARCH=none adds no flag.
    march = os.environ.get("STRIDED_MARCH", "native")
    if march != "none" and not DEBUG:
        compile_args.append(f"-march={march}")
    # The kernels read and write elements through char* arithmetic: tell the optimiser not to
    # assume that pointers of different types never alias.
    compile_args += ["-fopenmp", "-fno-strict-aliasing", "-Wno-unused-function",
                     "-Wno-maybe-uninitialized"]
    link_args = ["-fopenmp"]

extensions = [
    Extension(
        name,
        [name.replace(".", "/") + ".pyx"],
        include_dirs=[np.get_include(), "strided", "strided/_cpu"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
}

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        nthreads=int(os.environ.get("STRIDED_BUILD_JOBS", os.cpu_count() or 1)),
    ),
)
