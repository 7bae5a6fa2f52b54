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


def _grade(path, isolate=False, **kw):
    """Grade in this process (fast) unless ``isolate``: the worker process, its time limits and
    crash recovery are tested by the tests that pass isolate=True."""
    return classroom.grade(path, time_limit=kw.pop("time_limit", 60), isolate=isolate, **kw)


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
    tasks = ["is_contiguous", "broadcast_shapes", "view_strides", "permute", "slice_view"]
    # (8 s: the limit also bounds the fresh worker's first task, permute below, which takes
    # ~2 s with its imports and more on a loaded machine: 3 s failed a CI run)
    report = _grade(tmp_path, time_limit=8, only=tasks, isolate=True)
    got = {r["task"]: r for r in report["tasks"]}
    assert got["is_contiguous"]["status"] == "time limit"
    assert "time limit of 8 s" in got["is_contiguous"]["message"]
    assert got["broadcast_shapes"]["status"] == "error"
    assert (
        "parameters (a, b, c), but the starter's are (a, b)" in (got["broadcast_shapes"]["message"])
    )
    assert got["view_strides"]["status"] == "error"
    assert "worker died (exit status 3)" in got["view_strides"]["message"]
    assert "ZeroDivisionError: oops" in got["slice_view"]["message"]
    # the tasks after a crash are still graded, by a fresh worker
    assert got["permute"]["status"] == "passed"

    path.write_text(path.read_text() + "\ndef oops(:\n")
    report = _grade(tmp_path, only=["permute", "view_strides"], isolate=True)
    assert report["points"] == 0
    assert all("does not compile: " in r["message"] for r in report["tasks"])


def test_cli_start_grade_json_and_export(tmp_path, capsys):
    from strided.classroom.__main__ import main

    assert main(["start", "1", str(tmp_path / "hw")]) == 0
    assert "strides.py" in capsys.readouterr().out
    assert main(["start", "1", str(tmp_path / "hw")]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["start", "nope", str(tmp_path)]) == 2
    assert "no assignment 'nope'" in capsys.readouterr().err
    run = [sys.executable, "-m", "strided.classroom"]
    graded = subprocess.run(
        [*run, "grade", str(tmp_path / "hw"), "--json", "--task", "permute"],
        capture_output=True,
        text=True,
    )
    assert graded.returncode == 1  # the exit status GitHub Classroom reads
    report = json.loads(graded.stdout)
    assert report["max_points"] == 10 and report["tasks"][0]["status"] == "not started"
    assert main(["export-classroom", "strides", str(tmp_path)]) == 0
    tests = json.loads((tmp_path / ".github/classroom/autograding.json").read_text())["tests"]
    a = classroom.assignment("strides")
    assert [t["points"] for t in tests] == [t.points for t in a.tasks]
    assert tests[0]["run"].endswith("--assignment strides --task strides_for_shape")
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    assert all(f"{a.number} {a.key}: " in listing for a in classroom.assignments())


def test_swapped_restores_the_library():
    from strided import _explain

    original = _explain.contiguous_strides
    with _engine.swapped("strided._explain.contiguous_strides", len):
        assert _explain.contiguous_strides is len
    assert _explain.contiguous_strides is original


# a student who follows the docstrings (no strided inside) gets full marks: the docstrings say
# exactly what the reference does
_STRIDES_FROM_DOCSTRINGS = """
import math


def strides_for_shape(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def index_to_offset(index, strides, offset):
    return offset + sum(i * s for i, s in zip(index, strides))


def is_contiguous(shape, strides):
    if 0 in shape:
        return True
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 1:
            continue
        if s != expected:
            return False
        expected *= n
    return True


def broadcast_shapes(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"cannot broadcast {x} and {y}")
        out.append(y if x == 1 else x)
    return tuple(out)


def broadcast_strides(shape, strides, target):
    lead = len(target) - len(shape)
    if lead < 0:
        raise ValueError("too many dims")
    out = [0] * lead
    for n, s, t in zip(shape, strides, target[lead:]):
        if n == t:
            out.append(s)
        elif n == 1:
            out.append(0)
        else:
            raise ValueError(f"cannot broadcast {n} to {t}")
    return tuple(out)


def view_strides(shape, strides, new_shape):
    if math.prod(shape) == 0 or len(shape) == 0:
        return strides_for_shape(new_shape)
    # blocks of dims contiguous among themselves (size-1 dims ignored), innermost first
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    blocks = []  # (numel, innermost stride)
    for d in reversed(dims):
        if blocks and strides[d] == blocks[-1][2] * blocks[-1][3]:
            numel, inner, last_s, last_n = blocks[-1]
            blocks[-1] = (numel * shape[d], inner, strides[d], shape[d])
        else:
            blocks.append((shape[d], strides[d], strides[d], shape[d]))
    if not blocks:
        blocks = [(1, 1, 1, 1)]
    new = [0] * len(new_shape)
    v = len(new_shape) - 1
    for numel, inner, _, _ in blocks:
        acc = 1
        while v >= 0 and (acc < numel or new_shape[v] == 1):
            new[v] = acc * inner
            acc *= new_shape[v]
            v -= 1
        if acc != numel:
            return None
    while v >= 0:  # trailing size-1 dims
        if new_shape[v] != 1:
            return None
        new[v] = 1
        v -= 1
    return tuple(new)


def permute(shape, strides, dims):
    return tuple(shape[d] for d in dims), tuple(strides[d] for d in dims)


def slice_view(shape, strides, offset, dim, start, stop, step):
    a, b, c = slice(start, stop, step).indices(shape[dim])
    n = len(range(a, b, c))
    shape, strides = list(shape), list(strides)
    offset += a * strides[dim] if n else 0
    shape[dim] = n
    strides[dim] *= c
    return tuple(shape), tuple(strides), offset
"""


def test_strides_student_from_the_docstrings(tmp_path):
    classroom.start("strides", tmp_path)
    (tmp_path / "strides.py").write_text(_STRIDES_FROM_DOCSTRINGS)
    report = _grade(tmp_path)
    assert report["points"] == 100, classroom.format_report(report)


# -- assignment 2: the iterator and a kernel ---------------------------------------------------


def test_iterator_student_in_plain_python(tmp_path):
    """Loops written from the docstrings alone pass, and the speed ratio is reported."""
    _student(
        tmp_path,
        "iterator",
        """
        import itertools


        def coalesce_dims(shape, strides):
            sizes, out = [], [[] for _ in strides]
            for d in [d for d in range(len(shape)) if shape[d] != 1]:
                if sizes and all(o[-1] == shape[d] * s[d] for o, s in zip(out, strides)):
                    sizes[-1] *= shape[d]
                    for o, s in zip(out, strides):
                        o[-1] = s[d]
                else:
                    sizes.append(shape[d])
                    for o, s in zip(out, strides):
                        o.append(s[d])
            return tuple(sizes), [tuple(o) for o in out]


        def add_strided(shape, out, out_strides, out_offset, a, a_strides, a_offset, b,
                        b_strides, b_offset):
            for i in itertools.product(*[range(n) for n in shape]):
                o = out_offset + sum(x * s for x, s in zip(i, out_strides))
                p = a_offset + sum(x * s for x, s in zip(i, a_strides))
                q = b_offset + sum(x * s for x, s in zip(i, b_strides))
                out[o] = a[p] + b[q]


        def reorder_dims(shape, strides):    # sorts by the first operand only: wrong
            return tuple(sorted(range(len(shape)), key=lambda d: -abs(strides[0][d])))
        """,
    )
    report = _grade(tmp_path, only=["coalesce_dims", "add_strided", "reorder_dims"])
    got = {r["task"]: r for r in report["tasks"]}
    assert got["coalesce_dims"]["status"] == "passed"
    assert got["add_strided"]["status"] == "passed"
    (note,) = got["add_strided"]["notes"]
    assert note.startswith("speed (reported, not graded): your add_strided took")
    assert got["reorder_dims"]["status"] == "failed"
    assert (
        "counter-example (the smallest Hypothesis found): reorder_dims("
        in (got["reorder_dims"]["message"])
    )


def test_mutating_an_input_is_reported(tmp_path):
    r = _one(
        tmp_path,
        "iterator",
        "sum_strided",
        """
        def sum_strided(shape, a, strides, offset, dim):
            a[:] = 0.0
            return _A.task("sum_strided").reference(shape, a, strides, offset, dim)
        """,
    )
    assert r["status"] == "failed"
    assert "argument 2 was changed in place: np.array([" in r["message"]


# -- assignment 3: autograd ----------------------------------------------------------------------


def test_wrong_sign_in_a_derivative_row(tmp_path):
    _student(
        tmp_path,
        "autograd",
        """
        def subtract_backward(grad, x, other):
            return grad, grad      # the sign of other's gradient is wrong
        """,
    )
    (r,) = _grade(tmp_path, only=["subtract_backward"])["tasks"]
    assert r["status"] == "failed"
    assert r["message"] == (
        "counter-example (the smallest Hypothesis found): subtract_backward on subtract("
        "np.array(0.0, dtype=float64), np.array(0.0, dtype=float64))\n"
        "expected (array(1.), array(-1.)), your function returned (array(1.), array(1.))"
    )


def test_engine_order_counter_example_names_the_nodes(tmp_path):
    r = _one(
        tmp_path,
        "autograd",
        "topological_order",
        """
        def topological_order(root):      # breadth first: not a topological order
            out, queue, seen = [], [root], {root}
            while queue:
                n = queue.pop(0)
                out.append(n)
                for e in n.next_functions:
                    if e is not None and e[0] not in seen:
                        seen.add(e[0])
                        queue.append(e[0])
            return out
        """,
    )
    assert r["status"] == "failed"
    assert "a = leaf; b = leaf; v0 = a * a; v1 = a * v0; loss = v1.sum()" in r["message"]
    assert "puts AccumulateGrad(a) before MultiplyBackward(v0)" in r["message"]


# -- assignment 5: nn ----------------------------------------------------------------------------


def test_naive_softmax_overflows_on_the_smallest_large_logit(tmp_path):
    r = _one(
        tmp_path,
        "nn",
        "cross_entropy",
        """
        def cross_entropy(logits, target):      # no max subtracted: exp overflows
            e = strided.exp(logits)
            p = e / strided.sum(e, axis=1, keepdims=True)
            picked = strided.take_along_axis(p, strided.reshape(target, (-1, 1)), axis=1)
            return strided.mean(-strided.log(picked))
        """,
    )
    assert r["status"] == "failed"
    assert r["message"] == (
        "counter-example (the smallest Hypothesis found): cross_entropy(np.array([[710.0]], "
        "dtype=float64), np.array([0], dtype=int64))\nexpected loss 0.0, your function returned nan"
    )


# -- assignment 4: GPU kernels on the CUDA emulator ----------------------------------------------

_GPU_FIXED = {
    "add": """
        __global__ void add_kernel(const float* a, const float* b, float* out, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i < n) out[i] = a[i] + b[i];
        }
        """,
    "sum_no_barrier": """
        __global__ void sum_kernel(const float* x, float* out, int n) {
          __shared__ float buf[64];
          int t = threadIdx.x;
          int i = blockIdx.x * blockDim.x + t;
          buf[t] = i < n ? x[i] : 0.0f;
          __syncthreads();
          for (int s = blockDim.x / 2; s > 0; s /= 2) {
            if (t < s) buf[t] += buf[t + s];
          }
          if (t == 0) out[blockIdx.x] = buf[0];
        }
        """,
    "matmul_hangs": """
        __global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N,
                                      int K) {
          volatile int spin = 0;
          while (spin == 0) {
          }
        }
        """,
    "add_unguarded": """
        __global__ void add_kernel(const float* a, const float* b, float* out, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          out[i] = a[i] + b[i];
        }
        """,
}


def _cu(tmp_path, *parts):
    classroom.start("gpu", tmp_path)
    (tmp_path / "kernels.cu").write_text("\n".join(textwrap.dedent(p) for p in parts))


def test_gpu_missing_barrier_out_of_bounds_write_and_a_hang(tmp_path):
    parts = ("add_unguarded", "sum_no_barrier", "matmul_hangs")
    _cu(tmp_path, *[_GPU_FIXED[p] for p in parts])
    got = {r["task"]: r for r in _grade(tmp_path, isolate=True, time_limit=3)["tasks"]}
    add, red, mm = got["add_kernel"], got["sum_kernel"], got["matmul_kernel"]
    assert add["status"] == "failed"
    assert "add_kernel on n=1 (1 block of 64 threads)" in add["message"]
    assert "the emulator reported:" in add["message"]
    assert "out-of-bounds write by add_kernel" in add["message"]
    assert red["status"] == "failed"
    assert "sum_kernel on n=4 (1 block of 64 threads)" in red["message"]
    assert "a __syncthreads() is missing" in red["message"]
    # a loop inside compiled code ignores the worker's alarm: the grader kills the worker
    assert mm["status"] == "time limit"
    assert "ran past the time limit of 3 s" in mm["message"]


def test_gpu_missing_kernel(tmp_path):
    _cu(tmp_path, _GPU_FIXED["add"])
    (r,) = _grade(tmp_path, only=["sum_kernel"])["tasks"]
    assert r["status"] == "failed"
    assert "kernels.cu has no kernel `__global__ void sum_kernel(...)`" in r["message"]


def test_gpu_compile_error_is_shown(tmp_path):
    _cu(tmp_path, _GPU_FIXED["add"].replace("out[i] =", "out[i] = undefined_name +"))
    (r,) = _grade(tmp_path, only=["add_kernel"])["tasks"]
    assert r["status"] == "failed"
    assert "kernels.cu does not compile" in r["message"]
    assert "undefined_name" in r["message"]


@pytest.mark.parametrize("key", ["strides", "iterator", "autograd", "nn"])
def test_starter_examples_hold_for_the_reference(key):
    """The examples in each stub's docstring are doctests of strided's own function."""
    import doctest

    import strided

    a = classroom.assignment(key)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    ran = 0
    for t in a.tasks:
        if not t.doc or t.reference is None or ">>>" not in t.doc:
            continue
        test = parser.get_doctest(
            textwrap.dedent(t.doc), {t.name: t.reference, "strided": strided}, t.name, None, 0
        )
        ran += len(test.examples)
        runner.run(test)
    assert ran > 0
    assert runner.summarize(verbose=False).failed == 0
