"""The benchmark CLI: --quick (agreement only) over the whole suite, and the report writers on
small cases. No test asserts a time."""

import builtins
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import strided
from strided.bench import _report
from strided.bench._cases import Case
from strided.bench._run import run_suite


def test_quick_mode_checks_every_case_agrees(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "strided.bench", "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["quick"] and len(data["results"]) > 40
    suites = {row["suite"] for row in data["results"]}
    assert {"core", "elementwise", "linalg", "reduce", "nn", "compile"} <= suites
    # issue 24's latency rows: a compile's first call, from the disk cache, a call's overhead
    names = {row["case"] for row in data["results"] if row["suite"] == "compile"}
    assert {n.split(" (")[0] for n in names} >= {
        "compile latency: first call, new 13-op graph",
        "compile latency: first call, kernel on disk",
        "per-call overhead: x * 2 + 1 on 8 float64",
    }
    assert all(row["status"] in ("ok", "unchecked") for row in data["results"])
    assert "agreement only" in (tmp_path / "results.md").read_text()
    assert not (tmp_path / "ratios.png").exists()
    # the CLI restarted itself with the idle-thread settings, and its header names them
    # (Note [The other libraries' idle threads])
    assert "OPENBLAS_THREAD_TIMEOUT=4 GOMP_SPINCOUNT=10000" in r.stdout.splitlines()[0]


def test_a_users_idle_thread_settings_win(tmp_path):
    code = (
        "import os; from strided.bench._run import "
        "settle_idle_threads; settle_idle_threads(); "
        "print(os.environ['GOMP_SPINCOUNT'], os.environ['OPENBLAS_THREAD_TIMEOUT'])"
    )
    script = tmp_path / "prog.py"
    script.write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "STRIDED_BENCH_SETTLED"}
    env["GOMP_SPINCOUNT"] = "123"
    env.pop("OPENBLAS_THREAD_TIMEOUT", None)
    r = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["123", "4"]


def _small_cases():
    a_np = np.arange(1000.0)
    a = strided.asarray(a_np)
    return [
        Case("t", "add", {"strided": lambda: a + a, "numpy": lambda: a_np + a_np}),
        Case("t", "wrong", {"strided": lambda: a + 1, "numpy": lambda: a_np + a_np}),
    ]


def test_timed_run_reports_first_call_median_and_disagreements(tmp_path, monkeypatch):
    results = run_suite(_small_cases())
    ok, wrong = results
    assert ok.status == "ok" and ok.median["strided"] > 0 and ok.first["numpy"] > 0
    assert ok.ratio("numpy") > 0
    assert (
        wrong.status == "disagree"
        and "strided differs from numpy" in wrong.message
        and not wrong.median
    )
    facts = [("cpu", "test")]
    md = _report.markdown(results, facts, quick=False)
    assert "| t | add |" in md and "DISAGREE" in md and "numpy/strided" in md
    msgs = _report.write_all(results, facts, False, str(tmp_path))
    assert (tmp_path / "results.csv").read_text().startswith("suite,case,device,status")
    try:  # matplotlib is in the examples extra, not the test one
        import matplotlib  # noqa: F401

        assert any("ratios.png" in m for m in msgs)
    except ImportError:
        assert any("matplotlib is not installed" in m for m in msgs)

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert "matplotlib is not installed" in _report.plot(results, str(tmp_path / "x.png"))


def test_gpu_linalg_and_fft_cases_agree_on_the_emulator():
    # the GPU suite's cuSOLVER and cuFFT rows, run on the emulator with NumPy standing in for
    # CuPy (its from_dlpack reads the device tensor back to the host): every case agrees
    import types

    from strided.bench._cases import _gpu_linalg_fft_cases

    shim = types.SimpleNamespace(
        from_dlpack=lambda t: np.asarray(t.cpu()), linalg=np.linalg, fft=np.fft
    )
    cases = _gpu_linalg_fft_cases(shim, None, np.random.default_rng(0), device="cuda-emulated")
    results = run_suite(cases, quick=True)
    assert len(results) == 8
    assert [r.status for r in results] == ["ok"] * 8, [(r.name, r.message) for r in results]


def test_numpy_blas_threads_holds_numpy_to_the_count_asked():
    # Note [NumPy's BLAS threads]: a "1 thread" row holds NumPy's own OpenBLAS to one thread
    from strided.bench._run import numpy_blas_threads

    before = numpy_blas_threads()
    if before is None:
        pytest.skip("NumPy's BLAS is not an OpenBLAS this process can reach")
    try:
        assert numpy_blas_threads(1) == 1
        assert numpy_blas_threads() == 1
        a = np.random.default_rng(0).standard_normal((200, 200))
        np.testing.assert_allclose(a @ a.T, (a @ a.T).T)  # NumPy's matmul still works
    finally:
        numpy_blas_threads(before)
    assert numpy_blas_threads() == before
