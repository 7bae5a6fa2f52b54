"""The main job, ``python -m strided``: facts, training on a reduced budget, device errors."""

import subprocess
import sys

import pytest

import strided
from strided import __main__ as main_mod
from strided import _train

pytest.importorskip(
    "sklearn",
    reason="the digits dataset ships with scikit-learn (the "
    "'examples' and 'test' extras install it)",
)


def test_facts_and_tour(capsys):
    assert main_mod.main(["--facts"]) == 0
    out = capsys.readouterr().out
    assert "OpenMP" in out and "A tour of views" in out


def test_training_reaches_the_stated_accuracy_on_a_reduced_budget(capsys, tmp_path):
    # Stated accuracy for `--epochs 2 --quick` (seeded, so reproducible; observed 95.3% and
    # 81.7%): the MLP >= 90%, the narrow CNN >= 70% on the 360 test images.
    path = tmp_path / "digits.strided"
    rc = main_mod.main(["--epochs", "2", "--quick", "--no-progress", "--save", str(path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    acc = {}
    for line in out.splitlines():
        if line.startswith("| mlp") or line.startswith("| cnn"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            acc[cells[0]] = float(cells[-1].rstrip("%")) / 100
    assert acc["mlp"] >= 0.90, out
    assert acc["cnn"] >= 0.70, out
    states = strided.load(path)
    model = _train.make_mlp()
    model.load_state_dict(states["mlp"])
    data = _train.load_digits_data()
    x, y = strided.asarray(data[2]), strided.asarray(data[3])
    assert (
        abs(_train.accuracy(model, x, y) - acc["mlp"]) < 6e-4
    )  # the saved weights (printed to 0.1%)


def test_cuda_emulated_reports_the_missing_ops(capsys):
    rc = main_mod.main(
        ["--device", "cuda-emulated", "--quick", "--no-progress", "--model", "mlp", "--epochs", "1"]
    )
    out = capsys.readouterr().out
    missing = _train.missing_ops("cuda-emulated")
    if missing:  # today: the CUDA backend lacks some ops; the message lists them
        assert rc == 2
        assert "cannot train on cuda-emulated:0" in out
        for name, _ in missing:
            assert name in out
    else:  # once every op has a CUDA kernel, the tiny run trains
        assert rc == 0 and "| mlp" in out


def test_the_command_line_runs():
    r = subprocess.run(
        [sys.executable, "-m", "strided", "--help"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0 and "--device" in r.stdout and "--quick" in r.stdout
