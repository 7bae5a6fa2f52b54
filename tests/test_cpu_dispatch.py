"""Run-time choice of the kernels' compiled variant (Note [Choosing kernels at run time] in
strided/_cpu/cpu_dispatch.py): the level read from the CPU, the STRIDED_CPU_FEATURES override,
and that the variant loaded computes what the baseline computes. Each case that changes the
choice runs in a fresh interpreter, since the choice is made once, at import."""

import os
import subprocess
import sys

import numpy as np
import pytest

import strided as st
from strided._cpu import _build, cpu_dispatch, cpu_features

DISPATCHING = _build.MARCH == "dispatch" and cpu_dispatch.cpu_level >= 2
needs_dispatch = pytest.mark.skipif(
    not DISPATCHING, reason="built with STRIDED_MARCH (one build, no variants)"
)

# One line of Python per case: which level ran, which file binary came from, and a result.
PROBE = (
    "import numpy as np, strided as st, strided._cpu.binary as b; "
    "from strided._cpu import cpu_dispatch as d; "
    "x = st.asarray(np.linspace(-3, 3, 1001, dtype=np.float32)); "
    "print(d.level, b.__file__, repr(np.asarray(st.exp(x) * x + x).tolist()))"
)


def probe(features):
    env = dict(os.environ)
    env.pop("STRIDED_CPU_FEATURES", None)
    if features is not None:
        env["STRIDED_CPU_FEATURES"] = features
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=False
    )
    return done


def test_cpu_level_is_a_level():
    # 0 (not x86-64), or 1..4; this project's machines are x86-64-v3 or better
    assert cpu_features.cpu_level() in (0, 1, 2, 3, 4)
    assert cpu_dispatch.cpu_level == cpu_features.cpu_level()


def test_facts_name_the_kernels_loaded():
    facts = cpu_dispatch.facts()
    assert "binary from" in facts
    if DISPATCHING:
        assert cpu_dispatch.LEVELS[cpu_dispatch.level] in facts


@needs_dispatch
def test_the_best_level_is_loaded_by_default():
    level, file, _ = probe(None).stdout.split(" ", 2)
    assert int(level) == cpu_dispatch.cpu_level
    # every build compiles the levels this CPU runs (the baseline's modules are the usual ones)
    folder = _build.FOLDERS.get(cpu_dispatch.cpu_level, "_cpu")
    assert os.path.basename(os.path.dirname(file)) == folder


@needs_dispatch
def test_forcing_the_baseline_loads_the_baseline_and_agrees():
    base = probe("x86-64-v2")
    best = probe(None)
    assert base.returncode == 0, base.stderr
    level, file, values = base.stdout.split(" ", 2)
    assert int(level) == 2
    assert os.path.basename(os.path.dirname(file)) == "_cpu"
    # the same loops compiled for two widths: FMA contraction may differ by an ulp or so
    got = np.array(eval(values), dtype=np.float32)
    want = np.array(eval(best.stdout.split(" ", 2)[2]), dtype=np.float32)
    np.testing.assert_allclose(got, want, rtol=4e-7, atol=1e-6)


@needs_dispatch
def test_a_level_above_the_cpu_warns_and_uses_the_cpu():
    if cpu_dispatch.cpu_level >= 4:
        pytest.skip("this CPU runs every level")
    done = probe("x86-64-v4")
    assert done.returncode == 0, done.stderr
    assert "asks for more than this CPU has" in done.stderr
    assert int(done.stdout.split(" ", 1)[0]) == cpu_dispatch.cpu_level


@needs_dispatch
def test_an_unknown_level_is_refused_by_name():
    done = probe("avx9000")
    assert done.returncode != 0
    assert "STRIDED_CPU_FEATURES='avx9000'" in done.stderr
    assert "x86-64-v2" in done.stderr


def test_the_kernels_compute():
    a = np.linspace(-3, 3, 1001, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(st.exp(st.asarray(a))), np.exp(a), rtol=4e-7)
