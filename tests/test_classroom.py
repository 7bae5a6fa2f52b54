"""The classroom kit (strided/classroom/): every assignment's starter file scores 0 on every task
and the reference solution (strided's own functions) full marks, so an assignment cannot rot
silently when the library changes; deliberately wrong solutions get a short, correct
counter-example; bad submissions (syntax errors, wrong signatures, infinite loops, crashes,
mutated inputs) are reported, never crash the grader."""

import json
import subprocess
import sys
import textwrap

import pytest

from strided import classroom
from strided.classroom import _engine

KEYS = [a.key for a in classroom.assignments()]


def _grade(path, **kw):
    return classroom.grade(path, time_limit=kw.pop("time_limit", 60), **kw)


def _status(report):
    return {r["task"]: (r["status"], r["points"]) for r in report["tasks"]}


@pytest.mark.parametrize("key", KEYS)
def test_starter_scores_zero_on_every_task(key, tmp_path):
    classroom.start(key, tmp_path)
    report = _grade(tmp_path)
    assert report["points"] == 0
    for r in report["tasks"]:
        assert r["points"] == 0, r
        assert r["status"] == "not started", r


@pytest.mark.parametrize("key", KEYS)
def test_reference_scores_full_marks(key, tmp_path):
    classroom.start(key, tmp_path, solution=True)
    report = _grade(tmp_path)
    failed = [r for r in report["tasks"] if r["status"] != "passed"]
    assert not failed, classroom.format_report(report)
    assert report["points"] == report["max_points"] == classroom.assignment(key).points


def _student(tmp_path, key, source, replace=None):
    """A completed (reference) file of ``key`` with some functions replaced by ``source``."""
    a = classroom.assignment(key)
    classroom.start(key, tmp_path, solution=True)
    path = tmp_path / a.filename
    path.write_text(path.read_text() + "\n\n" + textwrap.dedent(source))
    return path


def _one(tmp_path, key, task, source, **kw):
    _student(tmp_path, key, source)
    (r,) = _grade(tmp_path, only=[task], **kw)["tasks"]
    return r


# -- assignment 1: strides and views -----------------------------------------------------------


def test_off_by_one_stride_gets_a_small_counter_example(tmp_path):
    r = _one(
        tmp_path,
        "strides",
        "strides_for_shape",
        """
        def strides_for_shape(shape):
            out, step = [], 1
            for n in reversed(shape):
                out.append(step)
                step *= n + 1          # off by one
            return tuple(reversed(out))
        """,
    )
    assert r["status"] == "failed" and r["points"] == 0
    assert r["message"] == (
        "counter-example (the smallest Hypothesis found): strides_for_shape((0, 1))\n"
        "expected (1, 1), your function returned (2, 1)"
    )


def test_layout_failure_shows_both_explain_pictures(tmp_path):
    r = _one(
        tmp_path,
        "strides",
        "permute",
        """
        def permute(shape, strides, dims):
            return tuple(shape[d] for d in dims), tuple(strides[d] for d in reversed(dims))
        """,
    )
    assert r["status"] == "failed"
    assert "permute((1, 2), (2, 1), (0, 1))" in r["message"]
    assert "expected ((1, 2), (2, 1)), your function returned ((1, 2), (1, 2))" in r["message"]
    assert "the expected view:" in r["message"] and "your view:" in r["message"]
    assert "lives at storage cell 0 + 2*i + 1*j" in r["message"]


def test_bad_submissions_are_reported_not_crashes(tmp_path):
    path = _student(
        tmp_path,
        "strides",
        """
        def is_contiguous(shape, strides):
            while True:
                pass

        def broadcast_shapes(a, b, c):
            return a

        def view_strides(shape, strides, new_shape):
            import os
            os._exit(3)

        def slice_view(shape, strides, offset, dim, start, stop, step):
            raise ZeroDivisionError("oops")
        """,
    )
    report = _grade(tmp_path, time_limit=4)
    got = {r["task"]: r for r in report["tasks"]}
    assert got["is_contiguous"]["status"] == "time limit"
    assert "time limit of 4 s" in got["is_contiguous"]["message"]
    assert got["broadcast_shapes"]["status"] == "error"
    assert (
        "parameters (a, b, c), but the starter's are (a, b)" in (got["broadcast_shapes"]["message"])
    )
    assert got["view_strides"]["status"] == "error"
    assert "worker died (exit status 3)" in got["view_strides"]["message"]
    assert "ZeroDivisionError: oops" in got["slice_view"]["message"]
    # the tasks after a crash are still graded, by a fresh worker
    assert got["permute"]["status"] == "passed"
    assert got["strides_for_shape"]["status"] == "passed"

    path.write_text(path.read_text() + "\ndef oops(:\n")
    report = _grade(tmp_path)
    assert report["points"] == 0
    assert all("does not compile: " in r["message"] for r in report["tasks"])


def test_cli_start_grade_json_and_export(tmp_path):
    run = [sys.executable, "-m", "strided.classroom"]
    out = subprocess.run([*run, "start", "1", str(tmp_path / "hw")], capture_output=True, text=True)
    assert out.returncode == 0 and "strides.py" in out.stdout
    again = subprocess.run(
        [*run, "start", "1", str(tmp_path / "hw")], capture_output=True, text=True
    )
    assert again.returncode == 2 and "exists already" in again.stderr
    graded = subprocess.run(
        [*run, "grade", str(tmp_path / "hw"), "--json", "--task", "permute"],
        capture_output=True,
        text=True,
    )
    assert graded.returncode == 1
    report = json.loads(graded.stdout)
    assert report["max_points"] == 10 and report["tasks"][0]["status"] == "not started"
    out = subprocess.run([*run, "export-classroom", "strides", str(tmp_path)], capture_output=True)
    assert out.returncode == 0
    tests = json.loads((tmp_path / ".github/classroom/autograding.json").read_text())["tests"]
    a = classroom.assignment("strides")
    assert [t["points"] for t in tests] == [t.points for t in a.tasks]
    assert tests[0]["run"].endswith("--assignment strides --task strides_for_shape")
    bad = subprocess.run([*run, "start", "nope", str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 2 and "no assignment 'nope'" in bad.stderr


def test_swapped_restores_the_library():
    from strided import _explain

    original = _explain.contiguous_strides
    with _engine.swapped("strided._explain.contiguous_strides", len):
        assert _explain.contiguous_strides is len
    assert _explain.contiguous_strides is original
