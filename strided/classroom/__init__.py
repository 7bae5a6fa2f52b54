"""The strided classroom: staged assignments that students complete inside strided.

A student re-implements one piece of the library at a time (the strides of a view, the
iterator's loop plan, rows of the derivative table, CUDA kernels, nn layers) and the grader
checks each piece against strided's own function, with the smallest counter-example Hypothesis
finds when they disagree. GPU kernels are graded on the CUDA emulator, so no GPU is needed.

From a shell::

    python -m strided.classroom list
    python -m strided.classroom start strides hw1      # writes hw1/strides.py
    python -m strided.classroom grade hw1              # points per task
    python -m strided.classroom grade hw1 --json       # for graders
    python -m strided.classroom export-classroom strides repo/   # GitHub Classroom autograding

See docs/classroom.md (instructors) and docs/classroom/ (one page per assignment). How grading
works: Note [How a submission is graded] in _engine.py and Note [Grading by counter-example] in
_check.py.
"""

from strided.classroom._engine import (
    Assignment,
    Task,
    assignment,
    assignments,
    export_classroom,
    format_report,
    grade,
    solution_source,
    start,
    starter_source,
)

__all__ = [
    "Assignment",
    "Task",
    "assignment",
    "assignments",
    "export_classroom",
    "format_report",
    "grade",
    "solution_source",
    "start",
    "starter_source",
]
