"""The property tests of the classroom: the student's function against strided's own, with the
smallest counter-example Hypothesis can find.

Note [Grading by counter-example]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A task is graded by one question: is there an input on which the student's function and
strided's own function (the reference) disagree? ``hypothesis.find`` searches the task's
strategy for such an input and then *shrinks* it: of all the disagreeing inputs it found, it
keeps the simplest (fewest dims, smallest sizes, zeros before other numbers). That input is the
best feedback a student can get: ``strides_for_shape((2,))`` is easier to debug by hand than a
4-d shape with sizes in the hundreds. The search is derandomized (the same inputs every run,
so two graders agree) and keeps no example database (nothing is written beside the student's
files).

"Disagree" covers more than a different value. The student's function may raise where the
reference returns (or raise another kind of error where the reference raises), or change its
arguments in place (every argument is deep-copied before the call and compared after): each is
a counter-example with its own message. ``NotImplementedError`` is not a disagreement: it means
the task is not started, and the grader says so without searching.
"""

from __future__ import annotations

import copy
import math

import numpy as np

__all__ = ["Failed", "NotStarted", "call", "compare", "same_value", "search", "show_call"]


class Failed(AssertionError):
    """A task failed; the message is what the student reads."""


class NotStarted(Exception):
    """The student's function still raises NotImplementedError."""


def show_call(name, args):
    """``name(arg, arg)`` as the student would type it."""
    return f"{name}({', '.join(_show(a) for a in args)})"


def _show(value):
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype={value.dtype.name})"
    if hasattr(value, "numpy") and hasattr(value, "stride"):  # a strided tensor
        return f"strided.asarray({value.numpy().tolist()!r})"
    return repr(value)


def same_value(a, b):
    """Equal as the tasks mean it: tuples and lists alike, NaN equal to NaN, arrays by value."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return _kind(a) == _kind(b) and bool(a == b)


def _kind(v):
    """Values that compare equal but are not the same answer: None vs 0, True vs 1."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    if isinstance(v, (list, tuple)):
        return "sequence"
    return type(v).__name__


def call(fn, args, frozen=True):
    """Run ``fn(*args)``: ("returned", value), ("raised", exception) or ("mutated", message);
    ``frozen=False`` skips the check that the arguments are unchanged (for graph nodes, which
    cannot be copied).

    NotImplementedError becomes NotStarted (see Note [Grading by counter-example])."""
    # the function gets a copy, so the drawn example stays as it was (it is shown, and re-run)
    work = copy.deepcopy(args) if frozen else args
    try:
        value = fn(*work)
    except NotImplementedError as e:
        raise NotStarted(str(e)) from None
    except Exception as e:  # RecursionError included
        return ("raised", e)
    for i, (a, b) in enumerate(zip(work, args, strict=True)):
        if not same_value(a, b):
            return (
                "mutated",
                f"argument {i + 1} was changed in place: {_show(b)} became {_show(a)}",
            )
    return ("returned", value)


def search(strategy, disagree, *, examples=100):
    """The smallest value of ``strategy`` for which ``disagree(value)`` gives a message, as
    (value, message); None when ``examples`` tries find none."""
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    config = settings(
        max_examples=examples,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    try:
        found = find(strategy, lambda v: disagree(v) is not None, settings=config)
    except NoSuchExample:
        return None
    return found, disagree(found)


def compare(name, student, reference, strategy, *, examples=100, same=None, explain=None):
    """Raise Failed with the smallest input on which ``student`` and ``reference`` disagree.

    ``strategy`` draws argument tuples. ``same(expected, got, args)`` decides equality (default:
    equal values of the same kind); ``explain(args, expected, got)`` adds lines to the message (the
    layout tasks draw both views)."""
    same = same or (lambda want, got, args: same_value(want, got))

    def disagree(args):
        want = call(reference, args)
        got = call(student, args)
        if got[0] == "mutated":
            return got[1]
        if want[0] == "raised":
            if got[0] == "raised" and isinstance(got[1], type(want[1])):
                return None
            wanted = f"expected it to raise {type(want[1]).__name__} ({want[1]})"
            if got[0] == "raised":
                return f"{wanted}, but it raised {type(got[1]).__name__}: {got[1]}"
            return f"{wanted}, but it returned {_show(got[1])}"
        if got[0] == "raised":
            return f"expected {_show(want[1])}, but it raised {type(got[1]).__name__}: {got[1]}"
        if not same(want[1], got[1], args):
            msg = f"expected {_show(want[1])}, your function returned {_show(got[1])}"
            if explain is not None:
                msg += "\n" + explain(args, want[1], got[1])
            return msg
        return None

    found = search(strategy, disagree, examples=examples)
    if found is not None:
        args, message = found
        raise Failed(
            f"counter-example (the smallest Hypothesis found): {show_call(name, args)}\n{message}"
        )
