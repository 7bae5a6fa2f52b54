"""Compiling generated C at run time with the system C compiler, cached on disk by content.

Note [The kernel cache]
~~~~~~~~~~~~~~~~~~~~~~~
A module's C source, with the compiler's flags, its version line and the text of the headers
it includes (scalar_math.h, vecmath.h), is hashed (SHA-256); the
shared library is ``<cache dir>/<hash>.so``. The same function compiled in another process, or
again after a restart, finds it there and only loads it (``ctypes.CDLL``): no compiler runs.
The directory is ``$STRIDED_COMPILE_CACHE``, else ``~/.cache/strided/compile``. A library is
written under a temporary name and renamed, so two processes compiling the same source at once
never load half a file. The flags are the Cython extensions' (setup.py): ``-O3 -march=native``
(the code is compiled where it runs, as Inductor's), OpenMP, no errno from the math functions
so that sqrt and friends vectorise, and one more: ``-fno-trapping-math``. Without it GCC 12
will not turn the selects of scalar_math.h's branch-free exp (Note [Vectorisable math]) into
vector blends, since a comparison could raise a floating-point exception; with it the fused
``exp`` chain runs about 4x faster (measured on 1e7 float32, one thread: 47 ms -> 12 ms). It
changes no value, only whether the status flags are exact, and the generated kernels do not
read them (so a compiled ``log(0)`` gives -inf without errstate's warning).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

from strided._compile.codegen import _CPU_DIR

__all__ = ["CompileError", "compiler", "build", "build_or_none", "cache_dir", "FLAGS"]

FLAGS = [
    "-O3",
    "-march=native",
    "-fopenmp",
    "-fno-strict-aliasing",
    "-fno-math-errno",
    "-fno-trapping-math",
    "-shared",
    "-fPIC",
    "-std=gnu11",
]
_version = {}


class CompileError(RuntimeError):
    """The C compiler refused the generated source (the message holds its output and source)."""


_found = {}


def compiler():
    """The C compiler's path ($CC, else gcc, else cc), or None when there is none (looked up
    once per value of $CC: a PATH search costs more than a small compiled call)."""
    cc = os.environ.get("CC")
    if cc not in _found:
        _found[cc] = next(
            (shutil.which(n) for n in (cc, "gcc", "cc") if n and shutil.which(n)), None
        )
    return _found[cc]


def cache_dir():
    return os.environ.get("STRIDED_COMPILE_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "strided", "compile"
    )


def _compiler_version(cc):
    if cc not in _version:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False)
        _version[cc] = (out.stdout.splitlines() or [""])[0]
    return _version[cc]


_header_text = None


def _headers():
    """The text of the headers generated C includes (scalar_math.h, vecmath.h): part of the
    cache key, so a kernel built against an older erf is not loaded after the header changed
    (the fused value must stay eager's, Note [The CPU loops' functions in fused C])."""
    global _header_text
    if _header_text is None:
        texts = []
        for name in ("scalar_math.h", "vecmath.h"):
            with open(os.path.join(_CPU_DIR, name)) as f:
                texts.append(f.read())
        _header_text = "\0".join(texts)
    return _header_text


# Note [A precompiled header]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Generated C includes scalar_math.h and vecmath.h (Note [The CPU loops' functions in fused
# C]), and GCC spends ~0.8 s of a ~1 s compile reading them (measured on the 2-core Zen 3: an
# empty file 0.06 s, the two headers alone 0.81 s, a 12-op kernel 1.03 s). So they are
# included through one header, ``strided_fused.h``, which is compiled once per (compiler,
# flags, header text) into a precompiled header (``.gch``, ~27 MB, ~2.7 s) beside it in the
# cache directory; a kernel then compiles in ~0.3 s. GCC uses the ``.gch`` only when it was
# made with the same flags, and otherwise reads the header itself (so does a compiler without
# GCC's precompiled headers): the result is the same either way, only slower. A header
# directory is kept per header text, as kernels are (~27 MB each: clear the cache directory to
# reclaim the space of old ones).
FUSED_HEADER = "strided_fused.h"
_HEADER_TEXT = (
    '#include <math.h>\n#include <stdint.h>\n#include "scalar_math.h"\n#include "vecmath.h"\n'
)


def _header_dir(cc, directory):
    """The directory holding strided_fused.h and, when GCC made it, its precompiled form."""
    key = hashlib.sha256("\0".join([*FLAGS, _compiler_version(cc), _headers()]).encode())
    path = os.path.join(directory, f"header-{key.hexdigest()[:16]}")
    header = os.path.join(path, FUSED_HEADER)
    if os.path.exists(header):
        return path
    os.makedirs(path, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path) as tmp:
        tmp_header = os.path.join(tmp, FUSED_HEADER)
        with open(tmp_header, "w") as f:
            f.write(_HEADER_TEXT)
        if "gcc" in _compiler_version(cc).lower():
            flags = [flag for flag in FLAGS if flag != "-shared"]
            gch = tmp_header + ".gch"
            done = subprocess.run(
                [cc, *flags, "-I", _CPU_DIR, "-x", "c-header", tmp_header, "-o", gch],
                capture_output=True,
                check=False,
            )
            if done.returncode == 0:
                os.replace(gch, header + ".gch")  # before the header: never a header alone
        os.replace(tmp_header, header)  # that a second process would take as "no .gch made"
    return path


def build(source):
    """(ctypes library, path, whether it came from the cache) for a C source."""
    cc = compiler()
    if cc is None:
        raise CompileError("no C compiler found (set CC, or install gcc)")
    parts = [source, *FLAGS, _compiler_version(cc), _headers()]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]
    directory = cache_dir()
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, key + ".so")
    cached = os.path.exists(path)
    if not cached:
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            c_file = os.path.join(tmp, "kernel.c")
            with open(c_file, "w") as f:
                f.write(source)
            tmp_so = os.path.join(tmp, "kernel.so")
            result = subprocess.run(
                [cc, *FLAGS, "-I", _header_dir(cc, directory), "-I", _CPU_DIR, c_file]
                + ["-o", tmp_so, "-lm"],
                capture_output=True,
                text=True,
                check=False,
            )
            if result.returncode != 0:
                raise CompileError(
                    f"{os.path.basename(cc)} failed on the generated source:\n{result.stderr}\n"
                    f"--- source ---\n{source}"
                )
            os.replace(tmp_so, path)
    return ctypes.CDLL(path), path, cached


def build_or_none(source):
    """The loaded library of a fixed C source (the layers' loops, the fused optimizer step),
    or None without a C compiler or when it does not compile: its caller then runs eagerly."""
    if compiler() is None:
        return None
    try:
        return build(source)[0]
    except CompileError:
        return None
