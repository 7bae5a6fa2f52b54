#!/usr/bin/env bash
# The proof that strided's wheel runs on any x86-64-v2 CPU (issue 19): install the wheel that
# tools/build_wheels.sh made into a fresh virtual environment, then run tools/wheel_smoke.py on
# each level, natively and under qemu (tools/check_levels.sh). Then the wheel's contents: the licence, the sources for students, no generated C, libgomp
# vendored and no absolute RUNPATH.
#
#   tools/check_wheel.sh [dist/strided-*.whl]      (~2 minutes; needs the index for NumPy)
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=$(realpath "${1:-$(ls dist/strided-*manylinux*.whl | head -1)}")
tools=$(realpath tools)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== $wheel ($(du -h "$wheel" | cut -f1))"
python -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$wheel"
py="$work/venv/bin/python"
cd "$work"  # not the checkout: `import strided` must find the installed package
"$py" -m strided --facts | grep -E "^ *(strided|kernels|BLAS)"

"$tools/check_levels.sh" "$py"

echo "== the wheel's contents"
unzip -l "$wheel" > "$work/list"
grep -q "licenses/LICENSE" "$work/list" || { echo "no LICENSE in the wheel"; exit 1; }
grep -q "strided/_cpu/unary.pyx.tp" "$work/list" || { echo "no .pyx.tp sources"; exit 1; }
grep -q "strided/_cpu/scalar_math.h" "$work/list" || { echo "no .h sources"; exit 1; }
if grep -E "\.c$" "$work/list"; then echo "generated C in the wheel"; exit 1; fi
grep -q "strided.libs/libgomp" "$work/list" || { echo "libgomp not vendored"; exit 1; }
site=$("$py" -c "import strided, os; print(os.path.dirname(strided.__file__))")
for so in $(find "$site" -name "*.so"); do
    if readelf -d "$so" | grep -E "R(UN)?PATH" | grep -v '\$ORIGIN' | grep -q .; then
        echo "absolute RUNPATH in $so: $(readelf -d "$so" | grep -E 'R(UN)?PATH')"; exit 1
    fi
done
echo "== wheel ok: $(date -u)"
