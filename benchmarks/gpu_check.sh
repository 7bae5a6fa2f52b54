#!/usr/bin/env bash
# Everything the CUDA backend wants from a machine with a GPU, in one command, for a session
# with little GPU time: build, the CUDA tests on the real device, compute-sanitizer over every
# kernel family, the GPU benchmarks against CuPy and PyTorch, and a profile of the shortfalls.
#
#   bash benchmarks/gpu_check.sh [OUT_DIR [STEP ...]]     (default: ./gpu-results, every step)
#
# STEPs: build, tests, memcheck, racecheck, levels, bench, profile (each but build needs build to have
# run, in this call or an earlier one: the extension is built in place). On an H200 (16 cores)
# build takes ~80 s (~45 s with STRIDED_MARCH=native: one CPU level, not three), tests ~170 s,
# bench ~75 s (BENCH_TORCH_COMPILE=0 saves ~20 s), memcheck and racecheck ~35 s each,
# profile ~10 s: in a lease of ~6 minutes run "build tests bench" and leave the sanitizers for
# a second one (a step cut by its time limit loses its summary). The sanitizers run
# benchmarks/sanitize_cuda.py, not the tests (SANITIZER_TIMEOUT each). Where one command may run
# only ~10 minutes, split the steps over calls on the same warm machine. Step timeouts:
# TEST_TIMEOUT, SANITIZER_TIMEOUT, BENCH_TIMEOUT, PROFILE_TIMEOUT (seconds). Needs CuPy (and, for the
# comparisons, PyTorch) importable by python3; pytest and pytest-xdist for the tests. Without
# network access, put the scipy-openblas32 wheel in $WHEELS (default .whl/): it is installed
# from there. Each step writes its log to OUT_DIR and a short summary to stdout; a failing step
# does not stop the next one. The logs are eight files at most (the device's name, the install
# and the build share build.log): a device call brings back no more than eight. The exit status
# is that of the tests (0 when they did not run).
set -u -o pipefail
export PYTHONUNBUFFERED=1
out=${1:-${OUT:-gpu-results}}
shift || true
steps=${*:-build tests memcheck racecheck levels bench profile}
mkdir -p "$out"
jobs=${JOBS:-$(nproc)}
want() { [[ " $steps " == *" $1 "* ]]; }
status=0

step() { printf '== %s\n' "$*"; }

step "device"
python3 -c "import cupy; p = cupy.cuda.runtime.getDeviceProperties(0); \
print(p['name'].decode(), 'driver', cupy.cuda.runtime.driverGetVersion(), 'cupy', cupy.__version__)" \
    2>&1 | tee "$out/build.log"

if ls "${WHEELS:-.whl}"/scipy_openblas32-*.whl >/dev/null 2>&1; then
    if [ ! -d /tmp/strided-site ]; then
        python3 -m pip install -q --no-index --no-deps --target /tmp/strided-site \
            "${WHEELS:-.whl}"/scipy_openblas32-*.whl >>"$out/build.log" 2>&1
    fi
    export PYTHONPATH=/tmp/strided-site${PYTHONPATH:+:$PYTHONPATH}
fi
if want build; then
    step "build (scipy-openblas32 from ${WHEELS:-.whl} if present)"
    python3 setup.py build_ext --inplace -j "$jobs" >>"$out/build.log" 2>&1 ||
        { tail -30 "$out/build.log"; exit 1; }
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}

if want tests; then
    step "CUDA tests on the GPU (STRIDED_REQUIRE_GPU=1: a missing GPU fails instead of skipping)"
    # -v: each result on its own line, so a run that the time limit interrupts still names its
    # failures (grep FAILED); the short summary at the end is lost when xdist is interrupted
    STRIDED_REQUIRE_GPU=1 timeout -s INT -k 30 "${TEST_TIMEOUT:-480}" python3 -m pytest -v -rfE --durations=20 -n "$jobs" \
        -p no:cacheprovider $(ls tests/test_cuda*.py | grep -v emulator) \
        tests/test_autograd_ops.py tests/test_fft.py \
        tests/test_linalg_lapack.py::test_factorisations_on_a_gpu_through_cusolver \
        "tests/test_linalg_lapack.py::test_singular_and_indefinite_matrices_on_a_device[cuda]" \
        -k "not emulated and not compiles and not cpu-" \
        >"$out/tests.log" 2>&1
    status=$?
    grep -E "^\[gw[0-9]+\] .*(FAILED|ERROR)|FAILED " "$out/tests.log" | head -20
    tail -3 "$out/tests.log"
    step "the CUDA cases of the other suites (arrays, errstate, mathfuncs, products, sets, stats, compile)"
    STRIDED_REQUIRE_GPU=1 timeout -s INT -k 30 "${TEST_TIMEOUT:-480}" python3 -m pytest -q -rfE -n "$jobs" \
        -p no:cacheprovider tests/test_arrays.py tests/test_errstate.py tests/test_mathfuncs.py \
        tests/test_products.py tests/test_sets.py tests/test_stats.py tests/test_compile.py \
        -k "cuda and not emulated and not compiles" >"$out/tests-other.log" 2>&1
    other=$?
    [ $status -ne 0 ] || status=$other
    tail -3 "$out/tests-other.log"
fi

# compute-sanitizer: memcheck (out-of-bounds and misaligned accesses) and racecheck (shared
# memory hazards) over benchmarks/sanitize_cuda.py, which launches every kernel family on every
# layout in one process and checks each answer against the CPU (the test suite under the
# sanitizer needs ~10 minutes per tool for a fifth of itself).
if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
        want "$tool" || continue
        step "compute-sanitizer --tool $tool"
        timeout "${SANITIZER_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
            python3 benchmarks/sanitize_cuda.py >"$out/sanitizer-$tool.log" 2>&1
        echo "exit $? ($tool)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed," "$out/sanitizer-$tool.log" | tail -3
    done
fi

# The GPU machines' host CPUs are servers, most with AVX-512: where this one has it, the in-place
# build above compiled the x86-64-v4 kernels (Note [-march] in setup.py), which a machine
# without AVX-512 can build but never run (issue 19). Run them: the wheel's smoke test at this
# CPU's level, then the CPU suites of the dispatched kernels on it.
if want levels; then
    best=$(python3 -c "from strided._cpu import cpu_dispatch as d; print(d.LEVELS[d.level])")
    step "CPU kernels at this CPU's level, $best (issue 19)"
    { python3 tools/wheel_smoke.py "$best" &&
        timeout "${LEVELS_TIMEOUT:-240}" python3 -m pytest -q -n "$jobs" -p no:cacheprovider \
            tests/test_elementwise.py tests/test_reduction.py tests/test_vecmath_accuracy.py \
            tests/test_half.py tests/test_sort.py tests/test_cpu_dispatch.py; } >"$out/levels.log" 2>&1
    echo "exit $? (levels)"; grep -E "^kernels:|passed|failed" "$out/levels.log" | tail -3
fi
if want bench; then
    step "benchmarks/bench_cuda.py"
    timeout "${BENCH_TIMEOUT:-300}" python3 benchmarks/bench_cuda.py 2>&1 | tee "$out/bench_cuda.log" | tail -25
fi

if want profile; then
    step "benchmarks/profile_cuda.py (where the time goes: host, launches, kernels)"
    timeout "${PROFILE_TIMEOUT:-120}" python3 benchmarks/profile_cuda.py >"$out/profile_cuda.log" 2>&1
    grep -E "^## |^GPU time" "$out/profile_cuda.log"
fi
exit $status
