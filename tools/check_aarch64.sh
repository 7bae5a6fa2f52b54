#!/usr/bin/env bash
# Does strided's C compile for aarch64 (issue 19; the aarch64 design is on paper in Note
# [Choosing kernels at run time], strided/_cpu/cpu_dispatch.py)? Compiles the C that the last
# build generated (run setup.py build_ext first) to aarch64 objects with Debian's cross compiler
# (apt-get install gcc-aarch64-linux-gnu), against this Python's and NumPy's headers (the same
# on every LP64 Linux but for pyconfig.h's few machine facts). Nothing is linked or run.
#
#   tools/check_aarch64.sh [MODULE.c ...]     (default: cpu_features and the dispatched kernels)
set -euo pipefail
cd "$(dirname "$0")/.."
cc=aarch64-linux-gnu-gcc
command -v "$cc" >/dev/null || { echo "no $cc (apt-get install gcc-aarch64-linux-gnu)"; exit 1; }
py_inc=$(python -c "import sysconfig; print(sysconfig.get_paths()['include'])")
np_inc=$(python -c "import numpy; print(numpy.get_include())")
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    files=(strided/_cpu/cpu_features.c)
    for m in copy sort select random binary unary reduce scan; do files+=("strided/_cpu/$m.c"); done
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for c in "${files[@]}"; do
    # the flags of setup.py's build, less -march (aarch64's baseline, NEON, needs none)
    "$cc" -O3 -g0 -fPIC -fopenmp -fno-strict-aliasing -fno-math-errno -Wno-unused-function \
        -DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION -I"$py_inc" -I"$np_inc" -Istrided \
        -Istrided/_cpu -c "$c" -o "$out/$(basename "$c" .c).o"
    echo "  ok  $c -> $(file -b "$out/$(basename "$c" .c).o" | cut -d, -f1-2)"
done
echo "aarch64: all compiled"
