#!/usr/bin/env bash
# Run tools/wheel_smoke.py with a given strided installation's Python on every x86-64 level it
# has kernels for (issue 19; Note [Choosing kernels at run time] in strided/_cpu/cpu_dispatch.py):
#   * on this CPU, with the best kernels it runs, and forced down to each lower level
#     (STRIDED_CPU_FEATURES);
#   * under qemu-x86_64 (Debian's qemu-user package) as an Intel Haswell (AVX2 and FMA, no
#     AVX-512: x86-64-v3) and as an Intel Nehalem (SSE4.2, no AVX: x86-64-v2). qemu raises
#     SIGILL at the first instruction the emulated CPU lacks, so a kernel compiled for too high
#     a level cannot pass unnoticed. OpenBLAS (NumPy's and strided's) is told the emulated core
#     (OPENBLAS_CORETYPE): its own detection reads qemu's CPUID wrongly, and NumPy 2.4.6's copy
#     then picked kernels with AVX on the Nehalem (SIGILL while importing numpy.linalg).
#
#   tools/check_levels.sh [PYTHON]     (~1 minute; .ci/run runs it on the editable install,
#                                       tools/check_wheel.sh on an installed wheel)
set -euo pipefail
py=$(command -v "${1:-python}")  # qemu wants a path
smoke=$(realpath "$(dirname "$0")/wheel_smoke.py")
best=$("$py" -c "from strided._cpu import cpu_dispatch as d; print(d.LEVELS[d.level])")
echo "== this CPU ($best)"
"$py" "$smoke" "$best"
for level in x86-64-v3 x86-64-v2; do
    if [[ "$level" < "$best" ]]; then
        echo "== this CPU, STRIDED_CPU_FEATURES=$level"
        STRIDED_CPU_FEATURES=$level "$py" "$smoke" "$level"
    fi
done
if ! command -v qemu-x86_64 >/dev/null; then
    echo "!! qemu-x86_64 not found (apt-get install qemu-user): the emulated CPUs were NOT checked"
    exit 1
fi
# (Haswell-noTSX less the system features that qemu's user mode does not emulate and would warn
# about; the instruction sets are all there)
for cpu in Haswell-noTSX,-pcid,-x2apic,-tsc-deadline,-invpcid:x86-64-v3:Haswell \
    Nehalem:x86-64-v2:Nehalem; do
    IFS=: read -r model level core <<<"$cpu"
    echo "== qemu-x86_64 -cpu $model ($level)"
    OPENBLAS_CORETYPE=$core qemu-x86_64 -cpu "$model" "$py" "$smoke" "$level"
done
