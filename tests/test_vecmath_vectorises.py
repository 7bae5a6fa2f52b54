"""Every vectorised function's loop is vectorised (Note [Vectorised transcendental functions] in
strided/_cpu/vecmath.h).

The functions in vecmath.h and gelu.h are branch-free C written for the compiler to turn into
SIMD: the loops of unary.pyx.tp call them one element at a time and rely on GCC's vectoriser.
When it declines (a "control flow in loop" it could not if-convert), nothing fails: the loop
runs one element at a time, with branches, and the values are the same. float64 arctan did
that for a year, 3.6-9.2 ms a million elements where the vector loop takes 0.74 (NumPy 0.9),
because GCC 12 gave up on its nested selects. So this test compiles a plain loop over each
function, at the two levels the wheels build for x86-64-v3 and x86-64-v4 with the flags
setup.py gives the unary kernels, and asks GCC (``-fopt-info-vec``) which loops it vectorised.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CPU = os.path.join(HERE, "..", "strided", "_cpu")
HEADERS = ("vecmath.h", "gelu.h")

pytestmark = [
    pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc"),
    pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 levels"),
]


def _functions():
    """(result type, name, argument type) of every one-argument function of the headers."""
    text = "".join(open(os.path.join(CPU, h)).read() for h in HEADERS)
    found = re.findall(r"STRIDED_VINLINE (double|float) (strided_v\w+)\((double|float) \w+\)", text)
    return sorted(set(found), key=lambda f: f[1])


def test_the_headers_have_functions_to_check():
    names = [f[1] for f in _functions()]
    assert len(names) > 40 and "strided_vatan" in names and "strided_vlogf" in names, names


@pytest.mark.parametrize("level", ["x86-64-v3", "x86-64-v4"])
def test_every_function_loop_is_vectorised(level, tmp_path):
    functions = _functions()
    lines = [f'#include "{h}"' for h in HEADERS]
    first = len(lines) + 1  # the line of the first loop
    for i, (result, name, arg) in enumerate(functions):
        lines.append(
            f"void loop_{i}(const {arg}* x, {result}* y, long n) "
            f"{{ for (long i = 0; i < n; i++) y[i] = {name}(x[i]); }}"
        )
    source = tmp_path / "loops.c"
    source.write_text("\n".join(lines) + "\n")
    # setup.py's flags for the unary kernels (-O3, -ffp-contract=off, -fno-math-errno,
    # -fno-trapping-math) at this level
    cmd = ["gcc", "-O3", f"-march={level}", "-ffp-contract=off", "-fno-math-errno"]
    cmd += ["-fno-trapping-math", "-I", CPU, "-c", str(source), "-o", str(tmp_path / "loops.o")]
    done = subprocess.run(cmd + ["-fopt-info-vec-optimized"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    vectorised = {
        int(n) for n in re.findall(r"loops\.c:(\d+):\d+: optimized: loop vectorized", done.stderr)
    }
    missed = [f[1] for i, f in enumerate(functions) if first + i not in vectorised]
    assert not missed, f"GCC did not vectorise the loops of {missed} at {level}"
