"""``linclf-grade``: grade exercise submissions in sandboxed workers.

Examples
--------
Grade a class (GitHub Classroom clones in ``repos/*/``) with private tests::

    linclf-grade repos/*/perceptron.ipynb --set perceptron --tests private/ --jobs 4 --out grades/

Print the plain-Python template of a set (one student's version), list a set,
or build a Gradescope autograder::

    linclf-grade --template perceptron --student s123 > s123.py
    linclf-grade --list perceptron
    linclf-grade --gradescope-bundle perceptron --tests private/ --out bundle/

With a roster, overrides and a late policy::

    linclf-grade subs/*.ipynb --set fisher --roster roster.csv --overrides overrides.csv \\
        --due 2026-03-01T23:59+01:00 --late-per-day 10 --late-cap 50 --times times.csv
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import multiprocessing
import sys
import time
from pathlib import Path

from .framework import available_sets, get_set


def _parser():
    p = argparse.ArgumentParser(
        prog="linclf-grade",
        description="Grade exercise notebooks (.ipynb) or .py files against an exercise set.",
    )
    p.add_argument("submissions", nargs="*", metavar="SUBMISSION", help=".ipynb or .py files")
    p.add_argument("--set", dest="set_name", help="exercise set: " + ", ".join(available_sets()))
    p.add_argument("--tests", metavar="DIR", help="directory of private tests (*.py) to add")
    p.add_argument("--jobs", type=int, default=1, help="submissions graded in parallel (default 1)")
    p.add_argument("--timeout", type=float, default=10.0, help="time limit of one call, seconds")
    p.add_argument("--memory", type=int, default=1024, help="memory limit of a worker, MiB")
    p.add_argument("--out", metavar="DIR", default="grading-results",
                   help="output folder; the grader creates it (an existing one is used only if "
                        "it is empty or an earlier output folder of linclf-grade, and yours)")
    p.add_argument("--trusted-code", action="store_true",
                   help="run the submissions WITHOUT the bubblewrap sandbox (only for code you "
                        "trust, e.g. your reference solutions)")
    p.add_argument("--template", metavar="SET", help="print the .py template of SET and exit")
    p.add_argument("--list", metavar="SET",
                   help="print SET's exercises as JSON (name, title, points, kind) and exit")
    p.add_argument("--gradescope-bundle", metavar="SET",
                   help="write a Gradescope autograder (setup.sh, run_autograder, zip) to --out; "
                        "it grades with --timeout and --memory and ships only the --tests files "
                        "of SET")
    p.add_argument("--student", metavar="ID",
                   help="student id: with --template, that student's version; when grading "
                        "one submission, whose variant data to use (default: the file name stem)")
    p.add_argument("--roster", metavar="CSV", help="columns file,student: the id of each submission")
    p.add_argument("--overrides", metavar="CSV",
                   help="columns student,exercise,points[,reason]: points that replace the grader's")
    p.add_argument("--due", metavar="TIME", help="due date (ISO 8601) of the late policy")
    p.add_argument("--late-per-day", type=float, default=10.0, metavar="PCT",
                   help="percent off per started day late (default 10)")
    p.add_argument("--late-cap", type=float, default=100.0, metavar="PCT",
                   help="largest late penalty in percent (default 100)")
    p.add_argument("--times", metavar="CSV", help="columns student,submitted (ISO 8601) for --due")
    p.add_argument("--quiet", action="store_true", help="no per-submission lines")
    return p


def _grade_one(args):
    from .grade import grade_submission

    path, set_name, tests, timeout, memory, hide, student, isolation = args
    try:
        return grade_submission(path, set_name, private_tests=tests, timeout=timeout,
                                memory=memory, hide=hide, student=student, isolation=isolation)
    except Exception as exc:  # a grader bug must not lose the other students' grades
        return _internal_error(path, set_name, f"{type(exc).__name__}: {exc}")


def _internal_error(path, set_name, text):
    # "internal" marks the run as failed (exit status 1); a student's failure never does
    return {"file": str(path), "sha256": "", "set": set_name, "score": 0.0,
            "max_score": float(get_set(set_name).max_points()), "exercises": {},
            "tests": [], "error": f"internal grader error: {text}"[:2000],
            "cell_errors": {}, "sandbox": {}, "internal": True}


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        import sympy  # noqa: F401  (the sets' symbolic tests need it)
    except ImportError:
        print("linclf-grade: the grader needs sympy; install it with: pip install sympy",
              file=sys.stderr)
        return 2
    if args.list:
        try:
            exset = get_set(args.list)
        except ValueError as exc:
            print(f"linclf-grade: {exc}", file=sys.stderr)
            return 2
        listing = [{"name": ex.name, "title": ex.title, "points": exset.max_points(ex.name),
                    "kind": ex.kind} for ex in exset.exercises.values()]
        print(json.dumps(listing, indent=1))
        return 0
    if args.template:
        try:
            sys.stdout.write(get_set(args.template).template(args.student))
        except ValueError as exc:
            print(f"linclf-grade: {exc}", file=sys.stderr)
            return 2
        return 0
    if args.gradescope_bundle:
        from .gradescope import write_bundle

        try:
            zip_path = write_bundle(args.gradescope_bundle, args.out, tests=args.tests,
                                    timeout=args.timeout, memory=args.memory)
        except ValueError as exc:
            print(f"linclf-grade: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {zip_path}")
        return 0
    if not args.set_name or not args.submissions:
        _parser().print_usage(sys.stderr)
        print("linclf-grade: give SUBMISSION files and --set NAME (or --template/--gradescope-bundle)",
              file=sys.stderr)
        return 2
    try:
        exset = get_set(args.set_name)
        if args.tests:
            from .framework import load_private_tests

            load_private_tests(args.tests, exset)  # fail early on a broken test file
    except (ValueError, SyntaxError, ImportError) as exc:
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2
    if args.jobs < 1 or args.timeout <= 0 or args.memory < 256:
        print("linclf-grade: --jobs >= 1, --timeout > 0 and --memory >= 256 are required",
              file=sys.stderr)
        return 2

    from .grade import summary_line, unique_labels, write_reports
    from .outdir import OutputDir, OutputRefused
    from .sandbox import SandboxUnavailable, check_isolation

    isolation = "none" if args.trusted_code else "bwrap"
    try:
        mode = check_isolation(isolation)
    except SandboxUnavailable as exc:
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2
    if mode == "none":
        print("linclf-grade: --trusted-code: the submissions run WITHOUT isolation "
              "(no sandbox; they can read and change anything this user can)", file=sys.stderr)
    elif not args.quiet:
        print(f"isolation: bubblewrap ({'unprivileged uid per worker' if mode != 'user' else 'user namespace'})",
              file=sys.stderr)

    # warm the imports the graders need before forking them
    import sympy  # noqa: F401

    from . import symbolic  # noqa: F401

    paths = [str(Path(p)) for p in args.submissions]
    try:
        course = _course_inputs(args, exset, paths)
    except (ValueError, TypeError) as exc:
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2
    try:
        out = OutputDir(args.out)
    except OutputRefused as exc:
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2
    hide = [out.path]
    jobs = [(p, args.set_name, args.tests, args.timeout, args.memory * 2**20, hide,
             course["students"][i], isolation) for i, p in enumerate(paths)]
    results = [None] * len(jobs)
    start = time.monotonic()
    show_progress = len(jobs) > 1

    def report(i, done):
        if not args.quiet:
            print(summary_line(results[i]), flush=True)
        if show_progress:
            print(f"[{done}/{len(jobs)}] {time.monotonic() - start:.1f} s", file=sys.stderr, flush=True)

    if args.jobs == 1 or len(jobs) == 1:
        for i, job in enumerate(jobs):
            results[i] = _grade_one(job)
            report(i, i + 1)
    else:
        ctx = multiprocessing.get_context("fork")
        with cf.ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx) as pool:
            futures = {pool.submit(_grade_one, job): i for i, job in enumerate(jobs)}
            for done, fut in enumerate(cf.as_completed(futures), 1):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as exc:  # a pool process died
                    results[i] = _internal_error(paths[i], args.set_name, type(exc).__name__)
                report(i, done)
    for r in results:
        _finish(r, course)
    labels = unique_labels(paths)
    with out:
        csv_path = write_reports(results, labels, out, list(exset.exercises))
    total = time.monotonic() - start
    print(f"graded {len(results)} submission(s) in {total:.1f} s "
          f"({total / max(1, len(results)):.2f} s each); wrote {csv_path}")
    failed = [r["file"] for r in results if r.get("internal")]
    if failed:
        print(f"linclf-grade: internal grader error on {len(failed)} submission(s) "
              f"(first: {failed[0]}); their grades are not valid", file=sys.stderr)
        return 1
    return 0


def _course_inputs(args, exset, paths):
    """Student ids, overrides and late policy from the command line (validated up front)."""
    from .course import LatePolicy, read_overrides, read_roster, read_times, student_for

    if args.student and len(paths) > 1:
        raise ValueError("--student names one student; for a class use --roster")
    roster = read_roster(args.roster) if args.roster else {}
    students = []
    for p in paths:
        sid = args.student or student_for(p, roster)
        if args.roster and sid is None:
            raise ValueError(f"{p} is not in the roster {args.roster}")
        students.append(sid)
    overrides = read_overrides(args.overrides, exset) if args.overrides else {}
    late = times = None
    if args.due:
        late = LatePolicy(args.due, args.late_per_day, args.late_cap)
        times = read_times(args.times) if args.times else {}
    elif args.times:
        raise ValueError("--times needs --due")
    return {"students": students, "overrides": overrides, "late": late, "times": times}


def _finish(result, course):
    from .course import apply_overrides

    if course["overrides"]:
        apply_overrides(result, course["overrides"])
    if course["late"] is not None:
        course["late"].apply(result, course["times"].get(result.get("student") or ""))


if __name__ == "__main__":
    sys.exit(main())
