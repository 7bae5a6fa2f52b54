"""The grader: assignments as data, starter files, grading in a child process, reports.

Note [How a submission is graded]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An assignment is a list of tasks; a task names the function of strided the student writes
again, its points, and its check (a property test against strided's own function, see Note
[Grading by counter-example] in _check.py). ``grade DIR`` never imports the student's file
into the grader's own process. It starts a worker (``python -m strided.classroom _worker``)
that loads the file and runs the checks one task at a time, writing one JSON line per task to
a results file. The grader watches that file:

* a task that runs past its time limit (an infinite loop, a kernel that never returns) is
  stopped from the inside first (``SIGALRM`` raises in the student's code) and, if that does
  not work within a few seconds (a loop inside C code), the worker is killed; the task scores 0
  with "time limit", and a fresh worker carries on with the next task;
* a worker that dies (a crash in compiled code) costs only the task it was running, reported
  with the last lines it printed;
* a file that does not compile, or lacks a function, or has one with other parameters than the
  starter's, scores 0 on the tasks concerned with a message saying exactly that.

"Swapping the student's function into strided" happens inside the worker only, inside one
task's check (``swapped``: an attribute of strided is replaced, and put back when the check
ends, so the check can compute strided's own answer before or after): the installed package is
never written to, and the grader's own process never sees the student's code. That is how the
autograd rows, ``sum_to``, the engine's dependency counts and the nn pieces are graded by
strided's own machinery running on the student's parts.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
import importlib.util
import inspect
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from strided.classroom._check import Failed, NotStarted

MARKER = ".classroom.json"  # written by ``start``: which assignment a folder holds
_KILL_GRACE = 3.0  # seconds after the time limit before the worker is killed


@dataclasses.dataclass(frozen=True)
class Task:
    """One task: the student writes ``name`` again; ``check(fn, module)`` grades it.

    ``check`` raises Failed with the message for the student, or returns a list of notes (speed
    reports) for a pass. ``signature`` and ``doc`` make the starter stub (``stub`` replaces it
    for a class or a CUDA kernel), ``solution`` is the body of the reference solution (default:
    a call of ``reference``; "" for a task with nothing to write, which ``needs`` other tasks'
    pieces), ``replaces`` names what the student re-implements (shown in the stub and in
    ``list``)."""

    name: str
    points: int
    signature: str
    doc: str
    check: Callable
    reference: Callable | None = None
    replaces: str = ""
    time_limit: float = 20.0
    stub: str | None = None
    solution: str | None = None
    needs: tuple = ()  # a task on several of the student's pieces: check(module, module)


@dataclasses.dataclass(frozen=True)
class Assignment:
    """A staged assignment: tasks graded from one student file ``filename``."""

    key: str
    number: int
    title: str
    filename: str
    intro: str
    tasks: tuple
    imports: str = ""
    language: str = "python"  # or "cuda": the file is CUDA C, each task a kernel
    solution_extra: str = ""

    def task(self, name):
        for t in self.tasks:
            if t.name == name:
                return t
        raise ValueError(
            f"assignment {self.key!r} has no task {name!r}; its tasks are "
            f"{', '.join(t.name for t in self.tasks)}"
        )

    @property
    def points(self):
        return sum(t.points for t in self.tasks)


_MODULES = ("strides", "iterator", "autograd", "gpu", "nn")


def assignments():
    """Every assignment, in teaching order."""
    out = []
    for key in _MODULES:
        try:
            mod = importlib.import_module(f"strided.classroom.assignment_{key}")
        except ModuleNotFoundError as e:
            if e.name != f"strided.classroom.assignment_{key}":
                raise
            continue
        out.append(mod.ASSIGNMENT)
    return sorted(out, key=lambda a: a.number)


def assignment(key):
    """The assignment named ``key`` (``strides``) or numbered ``key`` (``1``)."""
    for a in assignments():
        if str(key) in (a.key, str(a.number)):
            return a
    names = ", ".join(f"{a.number} ({a.key})" for a in assignments())
    raise ValueError(f"no assignment {key!r}; the assignments are {names}")


# ---------------------------------------------------------------------------------------------
# Starter and solution files
# ---------------------------------------------------------------------------------------------


def _header(a):
    return (
        f"Assignment {a.number} of the strided classroom: {a.title}.\n\n"
        + textwrap.dedent(a.intro).strip()
        + "\n\nGrade your work with\n\n"
        "    python -m strided.classroom grade DIR\n\n"
        "(DIR: the folder holding this file). Each task says which function of strided\n"
        "it re-implements: read that function's source, it is the model answer."
    )


def _python_stub(t):
    if t.stub is not None:
        return textwrap.dedent(t.stub).strip() + "\n"
    doc = textwrap.indent(inspect.cleandoc(t.doc), "    ")
    where = f"\n\n    Re-implements: {t.replaces}.\n    " if t.replaces else "\n    "
    return (
        f"def {t.signature}:\n"
        f'    """{doc.strip()}{where}"""\n'
        f'    raise NotImplementedError("{t.name}: write this function")\n'
    )


def starter_source(a):
    """The text of the starter file of assignment ``a``."""
    if a.language == "cuda":
        head = "\n".join("// " + line if line else "//" for line in _header(a).splitlines())
        return head + "\n\n" + "\n\n".join(textwrap.dedent(t.stub).strip() for t in a.tasks) + "\n"
    parts = [f'"""{_header(a)}\n"""\n', textwrap.dedent(a.imports).strip() + "\n"]
    parts += [_python_stub(t) for t in a.tasks if t.stub != ""]
    return "\n\n".join(p for p in parts if p.strip()) + "\n"


def _forward_call(t):
    params = ast.parse(f"def {t.signature}: pass").body[0].args
    names = [p.arg for p in params.args]
    return f"{t.name}({', '.join(names)})"


def solution_source(a):
    """A completed file of assignment ``a`` made from strided's own functions (the reference
    solution that the test suite grades to full marks)."""
    if a.language == "cuda":
        return "\n\n".join(textwrap.dedent(t.solution).strip() for t in a.tasks) + "\n"
    parts = [
        f'"""Reference solution of assignment {a.number} ({a.title}): strided\'s own functions."""',
        textwrap.dedent(a.imports).strip(),
        f"from strided.classroom import assignment as _assignment\n\n_A = _assignment({a.key!r})",
        textwrap.dedent(a.solution_extra).strip(),
    ]
    for t in a.tasks:
        if t.solution == "":
            continue
        if t.solution is not None:
            parts.append(textwrap.dedent(t.solution).strip())
        else:
            parts.append(
                f"def {t.signature}:\n    return _A.task({t.name!r}).reference"
                f"{_forward_call(t)[len(t.name) :]}"
            )
    return "\n\n\n".join(p for p in parts if p) + "\n"


def start(key, directory, *, solution=False):
    """Write the starter file of assignment ``key`` into ``directory`` (created if missing);
    refuses to overwrite a student's file. Returns the file's path."""
    a = assignment(key)
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / a.filename
    if path.exists():
        raise FileExistsError(
            f"{path} exists already; grade it with `python -m strided.classroom grade {d}`, or "
            "start in another folder"
        )
    path.write_text(solution_source(a) if solution else starter_source(a))
    (d / MARKER).write_text(json.dumps({"assignment": a.key, "file": a.filename}) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# The worker: runs inside a child process, loads the student's file, runs the checks
# ---------------------------------------------------------------------------------------------


class _TimeLimit(BaseException):
    """Raised inside the student's code when a task runs out of time (a BaseException, so a
    student's ``except Exception`` cannot swallow it)."""


_expired = []  # set when the alarm went off: Hypothesis may wrap _TimeLimit in its own errors


def _on_alarm(signum, frame):
    _expired.append(True)
    raise _TimeLimit()


def _load_python(path):
    """The student's module, or the message saying why it cannot be loaded."""
    try:
        source = path.read_text()
    except OSError as e:
        return None, f"cannot read {path}: {e}"
    try:
        compile(source, str(path), "exec")
    except SyntaxError as e:
        where = f"line {e.lineno}" + (f", column {e.offset}" if e.offset else "")
        text = (e.text or "").rstrip()
        return None, f"{path.name} does not compile: {e.msg} ({where})\n    {text}"
    spec = importlib.util.spec_from_file_location(f"student_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # inspect.getsource finds classes through sys.modules
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        return None, f"importing {path.name} raised {type(e).__name__}: {e}"
    return module, None


def _untouched(fn):
    """True when ``fn`` (a function, or a class whose methods all are) is still the starter's
    stub: a docstring and ``raise NotImplementedError(...)``. Graded "not started" without
    running anything, which keeps grading a fresh starter file fast."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return False
    if isinstance(tree, ast.ClassDef):
        methods = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        return bool(methods) and all(_stub_body(m) for m in methods)
    return isinstance(tree, ast.FunctionDef) and _stub_body(tree)


def _stub_body(node):
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc
    name = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(name, ast.Name) and name.id == "NotImplementedError"


def _signature_problem(t, fn):
    """Why the student's ``fn`` does not fit the starter's signature, or None."""
    if t.stub is not None and not t.signature:
        return None
    want = [p.arg for p in ast.parse(f"def {t.signature}: pass").body[0].args.args]
    if inspect.isclass(fn):
        return None
    if not callable(fn):
        return f"{t.name} should be a function, but it is {type(fn).__name__}"
    try:
        got = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    if got != want:
        return (
            f"{t.name} has parameters ({', '.join(got)}), but the starter's are "
            f"({', '.join(want)}): keep the starter's signature"
        )
    return None


@contextlib.contextmanager
def swapped(target, fn):
    """Put ``fn`` at ``target`` ("module.attr" or "module:attr.sub") for the block, then put the
    original back. Used inside the worker only (Note [How a submission is graded])."""
    module_name, _, attr = target.partition(":")
    if not attr:
        module_name, _, attr = target.rpartition(".")
    obj = importlib.import_module(module_name)
    *path, last = attr.split(".")
    for p in path:
        obj = getattr(obj, p) if not isinstance(obj, dict) else obj[p]
    if isinstance(obj, dict):
        old = obj[last]
        obj[last] = fn
        try:
            yield
        finally:
            obj[last] = old
        return
    old = getattr(obj, last)
    setattr(obj, last, fn)
    try:
        yield
    finally:
        setattr(obj, last, old)


_time_cap = []  # grade(isolate=False, time_limit=...) in this process


def _limit(t):
    """The task's time limit, or less when the grader was asked for less (the test suite)."""
    cap = os.environ.get("STRIDED_CLASSROOM_TIME_LIMIT")
    caps = [float(cap)] if cap else _time_cap
    return min([t.time_limit, *caps])


def _run_task(a, t, module, load_error):
    """Grade one task in this (worker) process: a result dict."""
    result = {"task": t.name, "max_points": t.points, "points": 0, "notes": []}
    if load_error is not None:
        return {**result, "status": "error", "message": load_error}
    if a.language == "cuda" or t.needs:
        student = module  # the source text (the check compiles it), or the whole module
        if t.needs and module is not None:
            missing = [n for n in t.needs if not hasattr(module, n)]
            if missing:
                return {**result, "status": "error", "message": f"your file has no {missing[0]}"}
            if any(_untouched(getattr(module, n)) for n in t.needs):
                return {
                    **result,
                    "status": "not started",
                    "message": f"needs {', '.join(t.needs)} written first",
                }
    else:
        student = getattr(module, t.name, None)
        if student is None:
            return {**result, "status": "error", "message": f"your file has no {t.name}"}
        problem = _signature_problem(t, student)
        if problem:
            return {**result, "status": "error", "message": problem}
        if _untouched(student):
            return {**result, "status": "not started", "message": "not implemented yet"}
    _expired.clear()
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, _limit(t))
    try:
        # the student's NaN and overflow warnings say nothing the counter-example does not
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            notes = t.check(student, module) or []
    except _TimeLimit:
        return {**result, "status": "time limit", "message": _time_message(t)}
    except NotStarted as e:
        return {**result, "status": "not started", "message": f"not implemented yet ({e})"}
    except Exception as e:
        if _expired:
            return {**result, "status": "time limit", "message": _time_message(t)}
        if isinstance(e, Failed):
            return {**result, "status": "failed", "message": str(e)}
        # the student's code broke the check itself
        return {
            **result,
            "status": "error",
            "message": f"grading stopped on {type(e).__name__}: {e}",
        }
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if _expired:
        return {**result, "status": "time limit", "message": _time_message(t)}
    return {**result, "status": "passed", "points": t.points, "message": "", "notes": notes}


def _time_message(t):
    return (
        f"{t.name} ran past the time limit of {_limit(t):g} s (an infinite loop, or far "
        "too slow), so it was stopped"
    )


def _load(a, path):
    """(the student's module or CUDA source, None) or (None, why it cannot be loaded)."""
    if a.language == "cuda":
        try:
            return path.read_text(), None
        except OSError as e:
            return None, f"cannot read {path}: {e}"
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))  # the student's own helper modules
    return _load_python(path)


def _graded(a, t, module, load_error):
    t0 = time.perf_counter()
    r = _run_task(a, t, module, load_error)
    r["seconds"] = round(time.perf_counter() - t0, 3)
    return r


def worker_main(key, path, first, results, only):
    """``python -m strided.classroom _worker``: grade tasks from index ``first`` on."""
    a = assignment(key)
    module, load_error = _load(a, Path(path))
    with open(results, "a") as out:
        for i in range(first, len(a.tasks)):
            t = a.tasks[i]
            if only and t.name not in only:
                continue
            out.write(json.dumps({"begin": i, "time": time.time()}) + "\n")
            out.flush()
            r = _graded(a, t, module, load_error)
            out.write(json.dumps({"index": i, **r}) + "\n")
            out.flush()


# ---------------------------------------------------------------------------------------------
# The grader: starts workers, watches them, collects a report
# ---------------------------------------------------------------------------------------------


def _find_file(directory, key):
    d = Path(directory)
    if d.is_file():
        return assignment(key) if key else _assignment_for(d.parent), d
    if key is None:
        a = _assignment_for(d)
    else:
        a = assignment(key)
    return a, d / a.filename


def _assignment_for(d):
    marker = d / MARKER
    if marker.exists():
        return assignment(json.loads(marker.read_text())["assignment"])
    for a in assignments():
        if (d / a.filename).exists():
            return a
    raise FileNotFoundError(
        f"{d} holds no assignment: start one with `python -m strided.classroom start "
        "ASSIGNMENT DIR`, or name it with --assignment"
    )


def grade(directory, *, key=None, only=None, time_limit=None, isolate=True):
    """Grade the student's file in ``directory``: a report dict (see ``format_report``).
    ``time_limit``: at most this many seconds per task (each task has its own limit).
    ``isolate=False`` grades in this process, without a worker: faster, for files that are
    known to behave (the reference solutions in strided's tests, an instructor's own); a
    crash or a hang in compiled code then takes the caller down with it."""
    a, path = _find_file(directory, key)
    if only:
        for name in only:
            a.task(name)  # a clear error for a task name that does not exist
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: start with `start {a.key} DIR`")
    _time_cap[:] = [] if time_limit is None else [time_limit]  # read by _limit, here and below
    try:
        return _grade(a, path, only, time_limit, isolate)
    finally:
        _time_cap.clear()


def _grade(a, path, only, time_limit, isolate):
    by_index = {}
    first = 0
    wanted = [i for i, t in enumerate(a.tasks) if not only or t.name in only]
    if not isolate:
        import strided

        saved_path = list(sys.path)
        module, load_error = _load(a, path)
        sys.path[:] = saved_path  # the student's folder stays off this process's path
        threads = strided.get_num_threads()
        strided.set_num_threads(1)  # as the worker runs (see grade's env below)
        try:
            for i in wanted:
                by_index[i] = _graded(a, a.tasks[i], module, load_error)
        finally:
            strided.set_num_threads(threads)
        first = len(a.tasks)
    with tempfile.TemporaryDirectory(prefix="strided-classroom-") as tmp:
        while first < len(a.tasks) and any(i >= first for i in wanted):
            results = Path(tmp) / f"results-{first}.jsonl"
            log = Path(tmp) / f"log-{first}.txt"
            results.touch()
            cmd = [sys.executable, "-m", "strided.classroom", "_worker", a.key, str(path)]
            cmd += [str(first), str(results)] + (["--only", *only] if only else [])
            # One thread: the checks run tiny problems, where OpenMP's threads only cost (on a
            # busy machine they spin, and a training run takes 7x longer), and the speed notes
            # then compare one thread of the student's loop with one thread of strided's.
            env = {**os.environ, "PYTHONHASHSEED": "0", "STRIDED_NUM_THREADS": "1"}
            if time_limit is not None:
                env["STRIDED_CLASSROOM_TIME_LIMIT"] = str(time_limit)
            with open(log, "w") as log_file:
                proc = subprocess.Popen(
                    cmd, stdout=log_file, stderr=subprocess.STDOUT, cwd=tmp, env=env
                )
                first = _watch(a, proc, results, log, by_index)
        for i in wanted:  # a worker that stopped between tasks (it could not start at all)
            if i not in by_index:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-12:])
                by_index[i] = _crash(
                    a.tasks[i],
                    "the grader's worker stopped before this task (loading your file?)",
                    tail,
                )
    tasks = [by_index[i] for i in wanted]
    return {
        "assignment": a.key,
        "number": a.number,
        "title": a.title,
        "file": str(path),
        "points": sum(r["points"] for r in tasks),
        "max_points": sum(r["max_points"] for r in tasks),
        "tasks": tasks,
    }


def _watch(a, proc, results, log, by_index):
    """Follow one worker; returns the task index the next worker must start at."""
    current, began = None, time.time()
    seen = 0
    while True:
        lines = results.read_text().splitlines()
        for line in lines[seen:]:
            if not line.endswith("}"):
                break
            seen += 1
            msg = json.loads(line)
            if "begin" in msg:
                current, began = msg["begin"], time.time()
            else:
                by_index[msg.pop("index")] = msg
                current = None
        code = proc.poll()
        if code is not None:
            if current is None:
                return len(a.tasks)
            t = a.tasks[current]
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-12:])
            by_index[current] = _crash(t, f"the grader's worker died (exit status {code})", tail)
            return current + 1
        if current is not None and time.time() - began > _limit(a.tasks[current]) + _KILL_GRACE:
            proc.kill()
            proc.wait()
            t = a.tasks[current]
            by_index[current] = {**_crash(t, _time_message(t), ""), "status": "time limit"}
            return current + 1
        time.sleep(0.02)


def _crash(t, why, tail):
    message = why + (f"; its last output:\n{textwrap.indent(tail, '    ')}" if tail else "")
    return {
        "task": t.name,
        "max_points": t.points,
        "points": 0,
        "status": "error",
        "message": message,
        "notes": [],
    }


def format_report(report):
    """The report as the student reads it."""
    lines = [
        f"assignment {report['number']} ({report['title']}): {report['file']}",
        "",
    ]
    width = max((len(r["task"]) for r in report["tasks"]), default=4)
    for r in report["tasks"]:
        score = f"[{r['points']:>3}/{r['max_points']:<3}]"
        secs = f" ({r.get('seconds', 0):.1f} s)" if "seconds" in r else ""
        lines.append(f"  {score} {r['task']:<{width}}  {r['status']}{secs}")
        for n in r.get("notes", []):
            lines.append(textwrap.indent(n, "          "))
        if r["message"]:
            lines.append(textwrap.indent(r["message"], "          "))
    lines += ["", f"total: {report['points']}/{report['max_points']} points"]
    return "\n".join(lines)


def export_classroom(directory, key, *, setup="pip install strided"):
    """Write ``.github/classroom/autograding.json`` for GitHub Classroom into ``directory``:
    one test per task, worth the task's points (each runs ``grade --task NAME``, whose exit
    status is 0 only when that task passes). Returns the file's path."""
    a = assignment(key)
    tests = [
        {
            "name": f"{a.key}: {t.name}",
            "setup": setup,
            "run": f"python -m strided.classroom grade . --assignment {a.key} --task {t.name}",
            "input": "",
            "output": "",
            "comparison": "included",
            "timeout": max(1, int(-(-t.time_limit // 60)) + 1),  # minutes
            "points": t.points,
        }
        for t in a.tasks
    ]
    path = Path(directory) / ".github" / "classroom" / "autograding.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"tests": tests}, indent=2) + "\n")
    return path
