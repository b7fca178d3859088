"""Grade submissions: run the tests against sandboxed workers, write the reports.

:func:`grade_submission` runs in the trusted process.  It reads the
submission (without executing it), starts a :class:`~linclf_grader.sandbox.Worker`
holding the student's code, and runs every test; the tests call the student's
functions through the worker and compare what comes back themselves.  A worker
that hangs or dies is restarted (without the cell that broke it); an exercise
whose call timed out or crashed the worker gets zero on its remaining tests
without being called again; a total time budget bounds the whole submission.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import time
from pathlib import Path

from .course import item_analysis
from .framework import StudentError, get_set, load_private_tests, run_tests
from .imports import describe_policy, violations, worker_policy
from .notebook import SubmissionError, read_submission
from .outdir import OutputDir
from .sandbox import Worker, WorkerError, WorkerTimeout
from .values import BadValue, decode_value, encode_args
from .variants import check_student_id

MAX_RESTARTS = 3


def repo_solutions_dir():
    """``exercises/solutions`` of the source tree, if the grader runs from one."""
    return Path(__file__).resolve().parents[1] / "exercises" / "solutions"


class _RemoteBackend:
    """Forward calls to the worker; restart it when it dies."""

    def __init__(self, worker, skip, deadline):
        self.worker = worker
        self.skip = skip
        self.deadline = deadline
        self.broken = {}
        self.restarts = 0

    def __call__(self, name, args, kwargs):
        if name in self.broken:
            raise StudentError(f"not run: {self.broken[name]}", kind="skipped")
        if time.monotonic() > self.deadline:
            raise StudentError("not run: the time budget for this submission is used up",
                               kind="timeout")
        if self.worker.proc is None or self.worker.proc.poll() is not None:
            if self.restarts >= MAX_RESTARTS:
                raise StudentError("not run: the worker died too often", kind="crash")
            self.restarts += 1
            _start(self.worker, self.skip)
        if name not in self.worker.defined:
            raise StudentError(f"the submission does not define {name}()", kind="missing")
        try:
            resp = self.worker.call(name, [encode_args(a) for a in args],
                                    {k: encode_args(v) for k, v in kwargs.items()})
        except WorkerTimeout:
            self.broken[name] = f"an earlier call of {name}() exceeded the time limit"
            raise StudentError(f"TimeoutError: {name}() did not return within "
                               f"{self.worker.timeout:g} s", kind="timeout") from None
        except WorkerError as exc:
            self.broken[name] = f"an earlier call of {name}() stopped the worker"
            raise StudentError(f"{name}() stopped the worker: {exc}", kind="crash") from None
        if resp.get("ok") is True:
            try:
                return decode_value(resp.get("value"))
            except (BadValue, ValueError, TypeError, RecursionError) as exc:
                raise StudentError(f"unreadable return value: {exc}") from None
        error = resp.get("error")
        error = error[:1200] if isinstance(error, str) else "unknown error"
        if error.startswith("NotImplementedError"):
            raise StudentError("not implemented yet (the stub raises NotImplementedError)",
                               kind="not-implemented")
        if error.startswith("TimeoutError: time limit exceeded"):
            self.broken[name] = f"an earlier call of {name}() exceeded the time limit"
            raise StudentError(f"TimeoutError: {name}() did not return within "
                               f"{self.worker.timeout:g} s", kind="timeout")
        where = resp.get("where")
        where = f" ({where})" if isinstance(where, str) and len(where) < 80 else ""
        out = resp.get("output")
        tail = ""
        if isinstance(out, str) and out.strip():
            tail = "\n    its printed output began: " + out.strip()[:300]
        raise StudentError(f"{name}() raised {error}{where}{tail}")


def _start(worker, skip):
    """Start the worker, skipping cells that hang or kill it (bounded retries)."""
    for _ in range(MAX_RESTARTS + 1):
        bad = worker.start(skip)
        if bad is None:
            return
        skip.add(bad)
    raise WorkerError("the submission could not be loaded")


def grade_submission(path, set_name, *, private_tests=None, timeout=10.0, memory=1 << 30,
                     hide=(), budget=None, student=None, isolation="bwrap"):
    """Grade one file; return the result dict (never raises for a bad submission).

    ``student`` is the id whose variant data the variant tests use (default:
    the file name stem).  ``isolation="none"`` runs the student code without
    the bubblewrap sandbox (trusted code only).  A grader problem (the sandbox
    cannot start) raises; a submission's own failures never do.
    """
    started = time.monotonic()
    exset = get_set(set_name)
    tests = list(exset.tests)
    if private_tests:
        tests += load_private_tests(private_tests, exset)
    student = Path(path).stem if student is None else student
    try:
        student = check_student_id(student)
        student_error = ""
    except ValueError as exc:
        student, student_error = None, str(exc)

    def variant_data(exercise):
        if student is None:
            raise ValueError(f"no usable student id for this submission ({student_error}); "
                             "grade it with a roster (--roster)")
        return exset.variant_data(exercise, student)

    result = {
        "file": str(path), "sha256": "", "set": set_name, "student": student or "", "score": 0.0,
        "max_score": float(sum(t.points for t in tests)),
        "exercises": {name: 0.0 for name in exset.exercises},
        "tests": [], "error": "", "cell_errors": {}, "sandbox": {},
    }
    try:
        data, cells = read_submission(path)
    except SubmissionError as exc:
        result["error"] = str(exc)
        result["tests"] = _all_failed(tests, str(exc))
        result["seconds"] = time.monotonic() - started
        return result
    result["sha256"] = hashlib.sha256(data).hexdigest()
    hide = [str(Path(h)) for h in hide]
    if private_tests:
        hide.append(str(private_tests))
    sol = repo_solutions_dir()
    if sol.is_dir():
        hide.append(str(sol))
    hide.append(str(Path(path).resolve().parent))
    budget = float(budget) if budget is not None else max(60.0, 8 * float(timeout))
    banned = violations(cells, exset.exercises, exset.allow_imports)
    policy = worker_policy(exset.allow_imports)
    if student is not None:  # my_data() in the worker returns the graded student's data
        policy["variants"] = {name: encode_args(exset.variant_data(name, student))
                              for name, ex in exset.exercises.items() if ex.variant is not None}
    worker = Worker(cells, hide=hide, timeout=timeout, memory=memory,
                    cell_timeout=min(timeout, 10.0), load_budget=min(budget, 120.0),
                    imports=policy, isolation=isolation)
    skip = set()
    try:
        try:
            _start(worker, skip)
        except WorkerError as exc:
            result["error"] = f"the submission could not be run: {exc}"
            result["tests"] = _all_failed(tests, result["error"])
            return result
        result["sandbox"] = worker.sandbox
        backend = _RemoteBackend(worker, skip, started + budget)
        result["tests"] = run_tests(tests, backend, variant_data)
        result["cell_errors"] = {str(k): v for k, v in worker.cell_errors.items()
                                 if isinstance(v, str)}
        if skip:
            result["error"] = f"cells {sorted(skip)} hung or killed the worker and were skipped"
    finally:
        worker.close()
        result["seconds"] = round(time.monotonic() - started, 3)
    _apply_import_policy(result, banned, exset.allow_imports)
    result["score"] = float(sum(t["score"] for t in result["tests"]))
    for t in result["tests"]:
        result["exercises"][t["exercise"]] = result["exercises"].get(t["exercise"], 0.0) + t["score"]
    return result


def _apply_import_policy(result, banned, extra):
    """Zero the tests of exercises that reach a forbidden import, saying which."""
    for t in result["tests"]:
        modules = banned.get(t["exercise"])
        if not modules:
            continue
        line = (f"import policy: {t['exercise']}() can reach "
                f"{', '.join(modules)}, which this set does not allow ({describe_policy(extra)}); "
                "0 points for this exercise")
        t["score"] = 0.0
        t["status"] = "failed"
        t["output"] = line if t.get("hidden") else (line + ("\n" + t["output"] if t.get("output") else ""))
    result["imports"] = {ex: mods for ex, mods in banned.items()}


def _all_failed(tests, message):
    return [{"name": t.name, "exercise": t.exercise, "score": 0.0, "max_score": t.points,
             "status": "failed", "output": "hidden test: failed" if t.hidden else message,
             "hidden": t.hidden, "visibility": t.visibility} for t in tests]


# --------------------------------------------------------------------------
# reports
# --------------------------------------------------------------------------
def gradescope_results(result):
    """The result in Gradescope's autograder ``results.json`` schema."""
    tests = []
    for t in result["tests"]:
        tests.append({
            "name": t["name"], "score": t["score"], "max_score": t["max_score"],
            "status": t["status"], "output": t["output"],
            "visibility": t.get("visibility") or ("after_published" if t.get("hidden") else "visible"),
        })
    out = {"score": result["score"], "tests": tests, "visibility": "visible",
           "stdout_visibility": "hidden"}
    if result.get("error"):
        out["output"] = result["error"]
    return out


def unique_labels(paths):
    """Short unique names for output files (``alice__fisher`` when stems clash)."""
    parts = [Path(p).resolve().with_suffix("").parts for p in paths]
    labels = []
    for i, p in enumerate(parts):
        for k in range(1, len(p) + 1):
            label = "__".join(p[-k:])
            if all(q[-k:] != p[-k:] for j, q in enumerate(parts) if j != i):
                break
        labels.append(re.sub(r"[^A-Za-z0-9_.-]+", "_", label))
    return labels


def write_reports(results, labels, out_dir, exercise_names):
    """Write ``LABEL.json``, ``LABEL/results.json`` (Gradescope), ``grades.csv`` and ``items.csv``.

    ``out_dir`` is an :class:`~linclf_grader.outdir.OutputDir` or a path; a
    path is opened under the same rules (created by the grader, no links).
    """
    out = out_dir if isinstance(out_dir, OutputDir) else OutputDir(out_dir)
    try:
        for result, label in zip(results, labels):
            out.write_text(f"{label}.json", json.dumps(result, indent=1))
            out.write_text("results.json", json.dumps(gradescope_results(result), indent=1),
                           subdir=label)
        fh = io.StringIO(newline="")
        writer = csv.writer(fh)
        writer.writerow(["file", "sha256", "student", *exercise_names, "total", "max",
                         "late_penalty_percent", "overridden", "error"])
        for r in results:
            writer.writerow([r["file"], r["sha256"], r.get("student", ""),
                             *[f"{r['exercises'].get(n, 0.0):g}" for n in exercise_names],
                             f"{r['score']:g}", f"{r['max_score']:g}",
                             f"{r.get('late', {}).get('penalty_percent', 0.0):g}",
                             " ".join(o["exercise"] for o in r.get("overrides", [])),
                             r["error"].replace("\n", " ")[:300]])
        csv_path = out.write_text("grades.csv", fh.getvalue())
        fh = io.StringIO(newline="")
        cols = ["item", "level", "exercise", "max_score", "n", "passed", "pass_rate", "mean_score"]
        writer = csv.DictWriter(fh, fieldnames=cols)
        writer.writeheader()
        writer.writerows(item_analysis(results))
        out.write_text("items.csv", fh.getvalue())
    finally:
        if out is not out_dir:
            out.close()
    return Path(csv_path)


def summary_line(result):
    """One line per submission for the terminal."""
    line = f"{result['file']}: {result['score']:g}/{result['max_score']:g}"
    notes = []
    if result.get("cell_errors"):
        notes.append(f"{len(result['cell_errors'])} cell(s) failed")
    if result.get("error"):
        notes.append(result["error"][:100])
    if notes:
        line += "  (" + "; ".join(notes) + ")"
    return line


def default_jobs():
    return max(1, min(4, os.cpu_count() or 1))
