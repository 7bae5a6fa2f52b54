"""``python -m strided.classroom``: start, grade and export assignments (see __init__.py)."""

import argparse
import json
import sys

from strided.classroom import _engine


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m strided.classroom",
        description="Staged assignments graded against strided's own functions.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the assignments and their tasks")
    s = sub.add_parser("start", help="write an assignment's starter file into DIR")
    s.add_argument("assignment", help="name or number (see `list`)")
    s.add_argument("dir")
    s.add_argument(
        "--solution", action="store_true", help="write the reference solution (instructors)"
    )
    g = sub.add_parser("grade", help="grade the assignment in DIR")
    g.add_argument("dir")
    g.add_argument("--assignment", help="which assignment (default: the one `start` wrote)")
    g.add_argument("--task", action="append", help="grade only this task (repeatable)")
    g.add_argument("--json", action="store_true", help="print the report as JSON")
    g.add_argument("--time-limit", type=float, help="at most this many seconds per task")
    e = sub.add_parser("export-classroom", help="write .github/classroom/autograding.json")
    e.add_argument("assignment")
    e.add_argument("dir")
    e.add_argument("--setup", default="pip install strided", help="each test's setup command")
    w = sub.add_parser("_worker")  # internal: Note [How a submission is graded]
    w.add_argument("key")
    w.add_argument("path")
    w.add_argument("first", type=int)
    w.add_argument("results")
    w.add_argument("--only", nargs="*")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            for a in _engine.assignments():
                print(f"{a.number} {a.key}: {a.title} ({a.points} points, file {a.filename})")
                for t in a.tasks:
                    print(f"    {t.name:<24} {t.points:>3} points  {t.replaces}")
            return 0
        if args.command == "start":
            path = _engine.start(args.assignment, args.dir, solution=args.solution)
            print(f"wrote {path}; grade it with: python -m strided.classroom grade {args.dir}")
            return 0
        if args.command == "grade":
            report = _engine.grade(
                args.dir, key=args.assignment, only=args.task, time_limit=args.time_limit
            )
            print(json.dumps(report, indent=2) if args.json else _engine.format_report(report))
            return 0 if report["points"] == report["max_points"] else 1
        if args.command == "export-classroom":
            print(f"wrote {_engine.export_classroom(args.dir, args.assignment, setup=args.setup)}")
            return 0
        if args.command == "_worker":
            _engine.worker_main(args.key, args.path, args.first, args.results, args.only)
            return 0
    except (ValueError, FileNotFoundError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
