"""The machine code of one element's index arithmetic on a GPU, read without a GPU.

A strided elementwise kernel turns each element's number into one byte offset per operand
(``operand_offsets`` in strided/cuda/kernels/common.cuh, Note [CUDA loop geometry]): one trip
of a loop per dim but the outermost, each trip a division by the dim's size. Its cost is a
count of instructions, and that count can be read where there is no GPU: NVRTC compiles a
kernel that computes only the three offsets of a binary op, ptxas assembles it for sm_90 (the
H100/H200), nvdisasm prints the SASS, and this script counts the instructions of one trip of
the per-dim loop and the slow ones among them (``MUFU``: the special-function unit's
reciprocal, a quarter of the rate of an add; ``I2F``/``F2I``: conversions, as slow). With
32-bit indices a trip divides by multiplication (Note [Division by a loop size as a
multiplication]); with 64-bit ones, by the compiler's division routine.

Static counts: a trip's branches are both counted (the 64-bit division tests whether both
numbers fit 32 bits and calls a 64-bit routine when not). Measured (NVRTC 13.0, ptxas 13.3,
sm_90): with 32-bit indices a trip was 39 instructions, one MUFU.RCP, an I2F and an F2I among
them, when it divided (HEAD before the dividers) and 21 with none of them now; the outermost dim
takes no trip at all now, so a 2-D loop (a broadcast row, a transposed add) does one trip per
element where it did two. The 64-bit kernels still divide (60 to 70 instructions a trip,
counted both ways).

The tools are those of the ``triton`` wheel that PyTorch installs (ptxas, nvdisasm); NVRTC is
CuPy's. Neither is a dependency of strided: without them the script says so and stops.

Run: ``python benchmarks/sass_offsets.py [-v]`` (``-v`` prints the SASS).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

from strided.cuda import _launch

SOURCE = r"""
template <typename index_t>
__global__ void offsets_only(Geometry<3> g, index_t i, index_t* out) {
    index_t off[3];
    operand_offsets<3, index_t>(g, i, off);
    out[0] = off[0];
    out[1] = off[1];
    out[2] = off[2];
}
"""
_LABEL = re.compile(r"^\.(L_x_\d+):")
_INSN = re.compile(r"/\*([0-9a-f]{4})\*/\s+(.*?);")


def tools():
    """(ptxas, nvdisasm) paths, or None when the triton wheel is not installed."""
    try:
        import triton
    except ImportError:
        return None
    bin_dir = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    ptxas = os.path.join(bin_dir, "ptxas-blackwell")  # the newer one: reads NVRTC 13's PTX
    if not os.path.exists(ptxas):
        ptxas = os.path.join(bin_dir, "ptxas")
    return ptxas, os.path.join(bin_dir, "nvdisasm")


def sass(index_t, ptxas, nvdisasm, arch="sm_90"):
    """The SASS lines of ``offsets_only<index_t>``: labels and instructions."""
    from cupy.cuda import nvrtc

    name = f"offsets_only<{index_t}>"
    prog = nvrtc.createProgram(_launch.source("common.cuh") + SOURCE, "offsets.cu", [], [])
    try:
        nvrtc.addNameExpression(prog, name)
        compute = arch.replace("sm_", "compute_")
        nvrtc.compileProgram(prog, [*_launch.NVRTC_OPTIONS, f"-arch={compute}"])
        ptx = nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    with tempfile.TemporaryDirectory() as d:
        ptx_path, cubin = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(ptx_path, "wb") as f:
            f.write(ptx.rstrip(b"\0"))
        subprocess.run([ptxas, f"-arch={arch}", "-O3", ptx_path, "-o", cubin], check=True)
        out = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True, check=True)
    return [line.strip() for line in out.stdout.splitlines()]


def one_trip(lines):
    """The instructions of the innermost loop that takes one dim per trip: the shortest loop
    (a backward branch to a label), NOPs left out. The compiler also unrolls the loop by four
    dims a trip; a loop of 1 to 3 dims after coalescing runs the one-dim loop."""
    labels, insns = {}, []
    for line in lines:
        m = _LABEL.match(line)
        if m:
            labels[m.group(1)] = len(insns)
        m = _INSN.search(line)
        if m and "NOP" not in m.group(2):
            insns.append(m.group(2))
    loops = []
    for at, insn in enumerate(insns):
        m = re.search(r"BRA `\(\.(L_x_\d+)\)", insn)
        if m and labels.get(m.group(1), at) < at:  # (the trap after EXIT branches to itself)
            loops.append(insns[labels[m.group(1)] : at + 1])
    return min(loops, key=len) if loops else [], insns


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    found = tools()
    if found is None:
        print("sass_offsets: needs the triton wheel's ptxas and nvdisasm (pip install torch)")
        return 2
    print(f"{'index':8s} {'SASS in all':>11s} {'one dim trip':>12s} {'MUFU':>5s} {'I2F/F2I':>8s}")
    for index_t in ("int32_t", "int64_t"):
        lines = sass(index_t, *found)
        trip, insns = one_trip(lines)
        slow = sum(i.startswith("MUFU") for i in trip)
        conv = sum(i.startswith(("I2F", "F2I")) for i in trip)
        print(f"{index_t:8s} {len(insns):11d} {len(trip):12d} {slow:5d} {conv:8d}")
        if "-v" in argv:
            print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
