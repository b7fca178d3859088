"""``linclf-grade``: grade exercise submissions in sandboxed workers.

Examples
--------
Grade a class from a Canvas or Moodle bulk download, or from a folder of
``ID.ipynb`` files, with private tests (``appendices/grading.md``)::

    linclf-grade --canvas subs.zip --canvas-gradebook gradebook.csv --set perceptron \\
        --tests private/ --jobs 4 --out grades/
    linclf-grade --moodle subs.zip --moodle-worksheet worksheet.csv --set perceptron --out grades/
    linclf-grade --folder submissions/ --set perceptron --out grades/

Per-student templates and notebooks for a roster::

    linclf-grade --materials roster.csv --sets all --out material/

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
import os
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
                   help="print SET's exercises as JSON (name, title, public points, kind, number "
                        "of hidden tests; with --tests their hidden and total points) and exit")
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
    _course_options(p)
    return p


def _grade_one(args):
    from .grade import grade_submission

    path, set_name, tests, timeout, memory, hide, student, isolation, classmates = args
    try:
        return grade_submission(path, set_name, private_tests=tests, timeout=timeout,
                                memory=memory, hide=hide, student=student, isolation=isolation,
                                classmates=classmates)
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
        print(json.dumps(_listing(exset, args.tests), indent=1))
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
    if args.materials:
        return _materials(args)
    has_source = args.submissions or args.canvas or args.moodle or args.folder
    if not args.set_name or not has_source:
        _parser().print_usage(sys.stderr)
        print("linclf-grade: give --set NAME and SUBMISSION files, --canvas, --moodle or --folder "
              "(or --template/--gradescope-bundle/--materials)", file=sys.stderr)
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
    if args.similarity is not None:
        from .similarity import require_copydetect

        try:   # before grading: not after minutes of work, with the report missing
            require_copydetect()
        except ValueError as exc:
            print(f"linclf-grade: {exc}", file=sys.stderr)
            return 2

    try:   # the guide promises: a bad CSV or option stops the grader before it unpacks anything
        _check_course_inputs(args, exset)
    except (ValueError, TypeError) as exc:
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2

    from .grade import unique_labels, write_reports
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

    from .classroom import collect, summary, write_course_outputs

    try:
        out = OutputDir(args.out)
    except OutputRefused as exc:
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2
    try:
        # the grader made the output folder itself (mode 0700), so what it unpacks
        # there cannot be redirected by anyone else's links
        collection = collect(args, out.path)
        if collection is not None:
            print("\n".join(collection.report()), file=sys.stderr)
            paths = [str(s.path) for s in collection.submissions]
        else:
            paths = [str(Path(p)) for p in args.submissions]
            for p in paths:   # a typo must not become a zero in the grade book
                if not os.path.lexists(p):
                    raise ValueError(f"{p}: no such file (a SUBMISSION must be an existing "
                                     ".ipynb or .py file)")
                if Path(p).is_dir():
                    raise ValueError(f"{p}: a folder, not a submission file (use --folder "
                                     "for a folder of ID.ipynb / ID.py files)")
        if not paths:
            raise ValueError("no submission to grade")
        course = _course_inputs(args, exset, paths, collection)
    except (ValueError, TypeError) as exc:
        out.close()
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2
    hide = [out.path]
    # a failed own-variant test is also checked against every classmate's task parameters
    from .grade import student_from_filename

    # the whole roster, not only this run's submissions: with the real source absent (late,
    # another batch) an innocent classmate in the run could otherwise be the "only" fit
    roster_ids = set(collection.roster) if collection is not None else set()
    if collection is None and args.roster:
        from .course import read_roster

        roster_ids = {s for s in read_roster(args.roster).values() if s}
    classmates = tuple(sorted(roster_ids | {s or student_from_filename(p)[0]
                                            for p, s in zip(paths, course["students"])}))
    jobs = [(p, args.set_name, args.tests, args.timeout, args.memory * 2**20, hide,
             course["students"][i], isolation, classmates) for i, p in enumerate(paths)]
    results = [None] * len(jobs)
    start = time.monotonic()
    show_progress = len(jobs) > 1

    def report(i, done):
        _finish(results[i], course)  # the line shows the final score
        if not args.quiet:
            print(summary(results[i]), flush=True)
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
    labels = unique_labels(paths)
    with out:
        csv_path = write_reports(results, labels, out, list(exset.exercises))
        try:
            write_course_outputs(args, exset, results, collection, out.path, labels)
        except ValueError as exc:
            print(f"linclf-grade: {exc}", file=sys.stderr)
            return 2
    total = time.monotonic() - start
    print(f"graded {len(results)} submission(s) in {total:.1f} s "
          f"({total / max(1, len(results)):.2f} s each); wrote {csv_path}")
    failed = [r["file"] for r in results if r.get("internal")]
    if failed:
        print(f"linclf-grade: internal grader error on {len(failed)} submission(s) "
              f"(first: {failed[0]}); their grades are not valid", file=sys.stderr)
        return 1
    return 0


def _check_course_inputs(args, exset):
    """The option and CSV checks that need no collection, run before anything is unpacked.

    An LMS roster is read here (it is small) so that an unknown student id in the
    overrides, times or extensions is found too; :func:`_course_inputs` repeats the
    checks against the collection itself.
    """
    from .course import LatePolicy, check_known_students, read_extensions, read_overrides, \
        read_times

    if args.similarity is not None and not 0 < args.similarity <= 1:
        raise ValueError(f"--similarity {args.similarity:g}: a fraction in (0, 1]")
    if (args.times or args.extensions) and not args.due:
        raise ValueError("--times and --extensions need --due")
    if args.due:
        LatePolicy(args.due, args.late_per_day, args.late_cap)
    named = {"overrides": (args.overrides, read_overrides(args.overrides, exset)
                           if args.overrides else {}),
             "times": (args.times, read_times(args.times) if args.times else {}),
             "extensions": (args.extensions,
                            read_extensions(args.extensions) if args.extensions else {})}
    roster = None
    if args.canvas and args.canvas_gradebook:
        from .lms.canvas import read_gradebook

        roster = read_gradebook(args.canvas_gradebook, args.id_column)[0]
    elif args.moodle and args.moodle_worksheet:
        from .classroom import timezone
        from .lms.moodle import read_worksheet

        roster = read_worksheet(args.moodle_worksheet, args.id_column,
                                timezone(args.timezone))[0]
    if roster is not None:   # every student an LMS download can map is in its roster
        check_known_students(set(roster), **named)


def _course_inputs(args, exset, paths, collection=None):
    """Student ids, overrides and late policy from the command line (validated up front)."""
    from .course import (LatePolicy, check_known_students, read_extensions, read_overrides,
                         read_roster, read_times, roster_students)

    if args.student and len(paths) > 1:
        raise ValueError("--student names one student; for a class use --roster")
    if args.similarity is not None and not 0 < args.similarity <= 1:
        raise ValueError(f"--similarity {args.similarity:g}: a fraction in (0, 1]")
    if collection is not None:
        if args.roster or args.student:
            raise ValueError("--roster/--student are for SUBMISSION files; an LMS download is "
                             "mapped by its own roster")
        students = [s.student for s in collection.submissions]
        known = set(collection.roster) | set(students)
        lms_times = {s.student: s.submitted for s in collection.submissions if s.submitted}
        sources = {s.student: s.source for s in collection.submissions}
        lms_late = ({s.student: s.lms_late for s in collection.submissions}
                    if collection.lms == "Canvas" else {})
    else:
        roster = read_roster(args.roster) if args.roster else {}
        students = ([args.student] * len(paths) if args.student else
                    roster_students(paths, roster, f"--roster {args.roster}"))
        for p, sid in zip(paths, students):
            if args.roster and sid is None:
                raise ValueError(f"{p} is not in the roster {args.roster}")
        if not args.roster and not args.student:
            # "ab-1.py" is read as a second download of "ab": beside "ab.py" that would give
            # student ab two rows, and the later one could overwrite the real grade
            from .grade import student_from_filename

            stems = {}
            for p in paths:
                stems.setdefault(student_from_filename(p)[0], set()).add(Path(p).stem)
            clash = sorted(sid for sid, names in stems.items() if len(names) > 1)
            if clash:
                raise ValueError(f"files {sorted(stems[clash[0]])} all map to student "
                                 f"{clash[0]!r}; keep one, or give --roster")
        known = set(roster.values()) | {s if s else Path(p).stem for p, s in zip(paths, students)}
        lms_times, sources, lms_late = {}, {}, {}
    overrides = read_overrides(args.overrides, exset) if args.overrides else {}
    late, times, extensions = None, {}, {}
    if args.due:
        late = LatePolicy(args.due, args.late_per_day, args.late_cap)
        times = read_times(args.times) if args.times else {}
        extensions = read_extensions(args.extensions) if args.extensions else {}
    elif args.times or args.extensions:
        raise ValueError("--times and --extensions need --due")
    check_known_students(known, overrides=(args.overrides, overrides),
                         times=(args.times, times), extensions=(args.extensions, extensions))
    return {"students": students, "overrides": overrides, "late": late,
            "times": {**lms_times, **times}, "extensions": extensions, "sources": sources,
            "lms_late": lms_late}


def _finish(result, course):
    from .course import apply_overrides

    done = course.setdefault("finished", set())
    if id(result) in done:
        return
    done.add(id(result))
    sid = result.get("student") or ""
    if sid in course["sources"]:  # the archive member graded, for a regrade request
        result["collected_from"] = course["sources"][sid]
    if course["overrides"]:
        apply_overrides(result, course["overrides"])
    if course["late"] is not None:
        course["late"].apply(result, course["times"].get(sid), course["extensions"].get(sid))
        if sid in course["lms_late"] and not result["late"]["submitted"]:
            result["late"]["note"] = (
                "Canvas marked this submission late, but no submission time was given: no "
                "penalty applied" if course["lms_late"][sid] else
                "Canvas did not mark this submission late: no penalty")


# --------------------------------------------------------------------------
# course options (LMS collection, feedback, deadlines, similarity, material)
# --------------------------------------------------------------------------
def _course_options(p):
    g = p.add_argument_group("course: collect from an LMS, return feedback, export grades")
    g.add_argument("--canvas", metavar="ZIP", action="append",
                   help="a Canvas 'Download submissions' zip (repeat for several downloads)")
    g.add_argument("--canvas-gradebook", metavar="CSV",
                   help="the Canvas gradebook export (Grades > Export) that maps user ids")
    g.add_argument("--moodle", metavar="ZIP", action="append",
                   help="a Moodle assignment's 'Download all submissions' zip")
    g.add_argument("--moodle-worksheet", metavar="CSV",
                   help="that assignment's grading worksheet (Identifier, Full name, ...)")
    g.add_argument("--folder", metavar="DIR", help="a folder of ID.ipynb / ID.py files")
    g.add_argument("--id-column", metavar="NAME",
                   help="the roster column that holds the student id (default: Canvas SIS User "
                        "ID, SIS Login ID, ID; Moodle ID number, Username, Email address)")
    g.add_argument("--lms-assignment", metavar="NAME",
                   help="the Canvas gradebook column to fill (its title or id; default: a new "
                        "column, which Canvas turns into a new assignment)")
    g.add_argument("--timezone", metavar="TZ", default="UTC",
                   help="time zone of the times an LMS writes without one (default UTC)")
    g.add_argument("--extensions", metavar="CSV",
                   help="columns student,due (ISO 8601): that student's due date, for --due")
    g.add_argument("--feedback", choices=("html", "md"), default="html",
                   help="format of the per-student feedback files (default html)")
    g.add_argument("--similarity", metavar="FRACTION", type=float, nargs="?", const=0.5,
                   help="write the similarity report; pairs at or above FRACTION (default 0.5)")
    g.add_argument("--materials", metavar="CSV",
                   help="write OUT/ID/SET.py and SET.ipynb for every student of CSV (column "
                        "student, or a Canvas gradebook export or Moodle worksheet) and every "
                        "set of --sets, then exit (--jobs N: N processes)")
    g.add_argument("--sets", default="all", metavar="SET,SET",
                   help="with --materials: the sets (default all)")


def _listing(exset, tests_dir):
    """``--list``: each exercise's public points and hidden tests (their points with ``--tests``,
    which grades.csv and the feedback count), so the totals can be checked."""
    private = {}
    if tests_dir:
        from .framework import load_private_tests

        for t in load_private_tests(tests_dir, exset):
            key = "hidden" if t.hidden else "public"
            private.setdefault(t.exercise, {"public": 0.0, "hidden": 0.0})[key] += t.points
    out = []
    for ex in exset.exercises.values():
        extra = private.get(ex.name, {"public": 0.0, "hidden": 0.0})
        public = exset.max_points(ex.name) + extra["public"]
        # no bare "points": it read as the exercise's worth, which includes the hidden tests
        row = {"name": ex.name, "title": ex.title, "kind": ex.kind, "public_points": public, "hidden_tests": ex.hidden_tests,
               "hidden_points": extra["hidden"] if tests_dir else None}
        if tests_dir:
            row["total_points"] = public + extra["hidden"]
        out.append(row)
    return out


def _materials(args):
    from .materials import read_student_list, write_materials

    start = time.monotonic()
    try:
        notes = []
        students = read_student_list(args.materials, args.id_column, notes)
        for note in notes:   # the id column is never chosen silently
            print(note, file=sys.stderr)
        sets = "all" if args.sets == "all" else [s.strip() for s in args.sets.split(",") if s.strip()]
        n = write_materials(students, sets, args.out, jobs=args.jobs)
    except ValueError as exc:
        print(f"linclf-grade: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {n} files for {len(students)} student(s) to {args.out} "
          f"in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
