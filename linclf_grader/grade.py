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

import ast
import csv
import inspect
import hashlib
import io
import json
import os
import re
import time
from pathlib import Path

from .course import item_analysis
from .framework import StudentError, get_set, load_private_tests, run_tests
from .imports import ALWAYS_FORBIDDEN, apply_breaches, breaches, exercise_groups, reachable_modules, worker_policy
from .notebook import SubmissionError, read_submission
from .outdir import OutputDir
from .sandbox import SandboxFailure, Worker, WorkerError, WorkerTimeout
from .timeouts import CALL_TIMEOUT, calls_budget
from .values import BadValue, decode_value, encode_args
from .variants import check_student_id

MAX_RESTARTS = 3
# whether this sandbox can mask modules per worker (Worker(masked_modules=...)); until it
# can, the worker's import hook alone refuses a group's forbidden modules
_WORKER_MASKS = "masked_modules" in inspect.signature(Worker).parameters


def repo_solutions_dir():
    """``exercises/solutions`` of the source tree, if the grader runs from one."""
    return Path(__file__).resolve().parents[1] / "exercises" / "solutions"


class _RemoteBackend:
    """Forward each call to the worker of its exercise's group; restart a worker that dies."""

    def __init__(self, workers, route, skip, budget):
        self.workers = workers      # group key -> Worker (started lazily)
        self.route = route          # exercise -> group key
        self.skip = skip            # group key -> cells skipped while loading
        self.budget = budget        # seconds of calls, counted from the end of loading
        self.deadline = None
        self.broken = {}
        self.restarts = 0
        self.failed = {}            # group key -> why its worker could not load the submission
        self.last_warnings = []
        self.internal = None        # a SandboxFailure: the grade is not valid

    def worker_for(self, name):
        key = self.route.get(name)
        worker = self.workers[key]
        if key in self.failed:
            raise WorkerError(self.failed[key])
        if worker.proc is None or worker.proc.poll() is not None:
            if worker.proc is not None:
                if self.restarts >= MAX_RESTARTS:
                    raise StudentError("not run: the worker died too often", kind="crash")
                self.restarts += 1
            try:
                _start(worker, self.skip[key])
            except WorkerError as exc:
                self.failed[key] = str(exc)
                raise
            except SandboxFailure as exc:
                # the grader's fault, not the submission's: remembered and raised after the tests
                self.internal = exc
                raise
        if self.deadline is None:
            self.deadline = time.monotonic() + self.budget
        return worker

    def __call__(self, name, args, kwargs):
        self.last_warnings = []
        if name in self.broken:
            raise StudentError(f"not run: {self.broken[name]}", kind="skipped")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise StudentError("not run: the time budget for this submission's calls is used up",
                               kind="timeout")
        try:
            worker = self.worker_for(name)
        except WorkerError as exc:
            self.broken[name] = f"the submission could not be loaded ({exc})"
            raise StudentError(self.broken[name], kind="crash") from None
        if name not in worker.defined:
            raise StudentError(f"the submission does not define {name}()", kind="missing")
        try:
            resp = worker.call(name, [encode_args(a) for a in args],
                               {k: encode_args(v) for k, v in kwargs.items()})
        except WorkerTimeout:
            self.broken[name] = f"an earlier call of {name}() exceeded the time limit"
            raise StudentError(f"TimeoutError: {name}() did not return within "
                               f"{worker.timeout:g} s", kind="timeout") from None
        except WorkerError as exc:
            self.broken[name] = f"an earlier call of {name}() stopped the worker"
            raise StudentError(f"{name}() stopped the worker: {exc}", kind="crash") from None
        warned = resp.get("warnings")
        self.last_warnings = [w[:200] for w in warned[:5] if isinstance(w, str)] \
            if isinstance(warned, list) else []
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
                               f"{worker.timeout:g} s", kind="timeout")
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


_DUPLICATE = re.compile(r"^(?P<id>.+?)(?:\s*\(\d{1,3}\)|-\d{1,2})$")


def student_from_filename(path):
    """``(id, note)`` from a file name; a browser's duplicate-download suffix is removed.

    ``s2026001 (1).py`` and ``s2026001-1.ipynb`` give ``s2026001`` with a note
    saying so; any other stem is the id as it is.
    """
    stem = Path(path).stem
    m = _DUPLICATE.match(stem)
    if m and m.group("id").strip():
        sid = m.group("id").strip()
        return sid, (f"student id {sid!r} taken from the file name {Path(path).name!r} "
                     "(the suffix of a repeated download was removed)")
    return stem, ""


def plan_workers(exset, reached):
    """Which worker serves which exercise: ``{frozenset(masked modules): [exercise names]}``.

    Exercises are grouped by their forbidden set (:func:`~linclf_grader.imports.exercise_groups`).
    An exercise whose forbidden set is smaller joins the strictest group when it reaches
    nothing of the packages only that group masks (``reached``: exercise -> modules), so
    that most submissions need a single worker.
    """
    groups = exercise_groups(exset.exercises)
    if len(groups) == 1:
        return groups
    strict = max(groups, key=len)
    plan = {strict: list(groups[strict])}
    tops = {m.split(".", 1)[0] for m in strict}
    for key, names in groups.items():
        if key == strict:
            continue
        for name in names:
            mine = {m.split(".", 1)[0] for m in reached.get(name, ())}
            if key <= strict and not (tops - {k.split(".", 1)[0] for k in key}) & mine:
                plan[strict].append(name)
            else:
                plan.setdefault(key, []).append(name)
    return plan


def grade_submission(path, set_name, *, private_tests=None, timeout=CALL_TIMEOUT, memory=1 << 30,
                     hide=(), budget=None, student=None, load_budget=120.0, isolation="bwrap",
                     classmates=()):
    """Grade one file; return the result dict (never raises for a bad submission).

    ``student`` is the id whose variant data the variant tests use (default:
    the file name stem, without a duplicate-download suffix such as `` (1)``).
    ``timeout`` limits each call and each top-level statement while loading;
    loading has its own budget ``load_budget`` (a statement over ``timeout`` is
    stopped and named in the notes), and the calls together ``budget`` seconds
    (default ``max(60, 8 * timeout)``), counted from the end of loading.
    ``isolation="none"`` runs the student code without the bubblewrap sandbox
    (trusted code only). A grader problem (the sandbox cannot start) raises; a
    submission's own failures never do. ``classmates`` (the class's student ids):
    a failed own-variant test of an exercise with task parameters is checked against
    each classmate's parameters, and ``result["copy_signals"]`` maps the exercise to
    the classmates whose variant the answers fit (:func:`variants.task_matches`).
    """
    started = time.monotonic()
    exset = get_set(set_name)
    tests = list(exset.tests)
    if private_tests:
        tests += load_private_tests(private_tests, exset)
    notes = []
    if student is None:
        student, note = student_from_filename(path)
        if note:
            notes.append(note)
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

    def alternatives(exercise):
        task = exset.exercises[exercise].task
        if not task:
            return None
        out = []
        for c in classmates:
            try:
                if c != student:
                    out.append((c, exset.variant_data(exercise, check_student_id(c))))
            except (ValueError, TypeError):
                continue   # not a usable id: that file is graded without variant data too
        return task, out

    result = {
        "file": str(path), "sha256": "", "set": set_name, "student": student or "", "score": 0.0,
        "max_score": round(float(sum(t.points for t in tests)), 9),
        "exercises": {name: 0.0 for name in exset.exercises},
        "tests": [], "error": "", "cell_errors": {}, "sandbox": {}, "notes": notes,
    }
    try:
        sub = read_submission(path, set_name)
    except SubmissionError as exc:
        result["error"] = str(exc)
        result["tests"] = _all_failed(tests, str(exc))
        result["seconds"] = time.monotonic() - started
        return result
    result["sha256"] = hashlib.sha256(sub.data).hexdigest()
    notes.extend(sub.notes)
    syntax = syntax_errors(sub.cells)
    result["cell_errors"].update(syntax)
    hide = [str(Path(h)) for h in hide]
    if private_tests:
        hide.append(str(private_tests))
    sol = repo_solutions_dir()
    if sol.is_dir():
        hide.append(str(sol))
    hide.append(str(Path(path).resolve().parent))
    budget = float(budget) if budget is not None else calls_budget(timeout)
    sources = [src for _, src in sub.analysed]
    reached = reachable_modules(sources, list(exset.exercises))
    banned = breaches(sources, exset.exercises, reached)
    variants = None
    if student is not None:  # my_data() in the worker returns the graded student's data
        variants = {name: encode_args(exset.variant_data(name, student))
                    for name, ex in exset.exercises.items() if ex.variant is not None}
    plan = plan_workers(exset, reached)
    workers, route, skip = {}, {}, {}
    for key, names in plan.items():
        policy = worker_policy(key)
        if variants is not None:
            policy["variants"] = variants
        options = {} if isolation is None else {"isolation": isolation}
        if _WORKER_MASKS:  # bubblewrap masks the group's extra modules in its worker's view
            options["masked_modules"] = tuple(sorted(key - set(ALWAYS_FORBIDDEN)))
        workers[key] = Worker(sub.cells, hide=hide, timeout=timeout, memory=memory,
                              cell_timeout=timeout, load_budget=load_budget, imports=policy,
                              **options)
        skip[key] = set()
        route.update((n, key) for n in names)
    backend = _RemoteBackend(workers, route, skip, budget)
    try:
        result["tests"] = run_tests(tests, backend, variant_data,
                                    alternatives if classmates and student else None)
        for t in result["tests"]:
            if "task_matches" in t:
                result.setdefault("copy_signals", {}).setdefault(t["exercise"], [])
                for c in t.pop("task_matches"):
                    if c not in result["copy_signals"][t["exercise"]]:
                        result["copy_signals"][t["exercise"]].append(c)
        if backend.internal is not None:
            raise backend.internal
        for worker in workers.values():
            if worker.sandbox:
                result["sandbox"] = worker.sandbox
            for k, v in worker.cell_errors.items():
                # a refused import is explained by the rules line of the exercise it breaches
                if isinstance(v, str) and str(k) not in result["cell_errors"] \
                        and "is not allowed here (" not in v:
                    result["cell_errors"][str(k)] = v
        if backend.failed:
            result["error"] = ("the submission could not be run: "
                               + "; ".join(sorted(set(backend.failed.values()))))
        dropped = sorted(set().union(*skip.values()))
        if dropped:
            notes.append(f"cell(s) {', '.join(map(str, dropped))} ran over the loading budget "
                         f"({load_budget:g} s) or stopped the worker; they were skipped")
    finally:
        for worker in workers.values():
            worker.close()
        result["seconds"] = round(time.monotonic() - started, 3)
    for index, message in sorted(result["cell_errors"].items(), key=lambda kv: int(kv[0])
                                 if kv[0].lstrip("-").isdigit() else 0):
        notes.append(f"cell {index}: {message}")
    _explain_missing(result, syntax)
    _apply_rules(result, banned)
    # fractional points (0.2 per kernel_closure candidate) must not print as 27.999999999999993
    result["score"] = round(float(sum(t["score"] for t in result["tests"])), 9)
    for t in result["tests"]:
        result["exercises"][t["exercise"]] = result["exercises"].get(t["exercise"], 0.0) + t["score"]
    result["exercises"] = {k: round(v, 9) for k, v in result["exercises"].items()}
    return result


def syntax_errors(cells):
    """``{cell index: "SyntaxError at line L: ..."}`` of the cells that do not parse."""
    out = {}
    for index, source in cells:
        try:
            ast.parse(source)
        except SyntaxError as exc:
            out[str(index)] = f"SyntaxError at line {exc.lineno}: {exc.msg}"
        except (ValueError, RecursionError, MemoryError) as exc:
            out[str(index)] = f"cannot be parsed: {type(exc).__name__}"
    return out


def _explain_missing(result, syntax):
    """A missing function in a submission with broken cells: say where to look."""
    if not syntax:
        return
    where = "; ".join(f"cell {k}: {v}" for k, v in sorted(syntax.items()))
    for t in result["tests"]:
        if "does not define" in t.get("output", "") and not t.get("hidden"):
            t["output"] += f" (a cell that does not parse defines nothing: {where})"


def _apply_rules(result, banned):
    """Zero the tests of exercises that reach a module their rules forbid, saying which."""
    apply_breaches(result["tests"], banned)
    result["imports"] = {ex: mods for ex, mods in banned.items()}


def _all_failed(tests, message):
    return [{"name": t.name, "exercise": t.exercise, "score": 0.0, "max_score": t.points,
             "status": "failed", "output": "hidden test: failed" if t.hidden else message,
             "hidden": t.hidden, "visibility": t.visibility} for t in tests]


# --------------------------------------------------------------------------
# reports
# --------------------------------------------------------------------------
#: Gradescope's visibility levels, from shown earliest to never shown
_REVEAL_ORDER = ("visible", "after_due_date", "after_published", "hidden")


def gradescope_results(result):
    """The result in Gradescope's autograder ``results.json`` schema.

    Gradescope's specification: a test's ``visibility`` overrides the top-level
    one, and students cannot see their total while tests are hidden. So when any
    test is hidden the top level takes the latest-revealing level of the hidden
    tests (the total is not shown before them, and resubmitting cannot turn the
    total into an oracle for hidden tests), each public test stays ``visible``,
    and a hidden test is named only by its exercise and number: its name could
    describe its inputs.
    """
    tests, levels, count = [], [], {}
    for t in result["tests"]:
        level = t.get("visibility") or ("after_published" if t.get("hidden") else "visible")
        name = t["name"]
        if level != "visible":
            levels.append(level)
            count[t["exercise"]] = count.get(t["exercise"], 0) + 1
            name = f"{t['exercise']}: hidden test {count[t['exercise']]}"
        tests.append({"name": name, "score": t["score"], "max_score": t["max_score"],
                      "status": t["status"], "output": t["output"], "visibility": level})
    top = max(levels, key=_REVEAL_ORDER.index) if levels else "visible"
    out = {"score": result["score"], "tests": tests, "visibility": top,
           "stdout_visibility": "hidden"}
    lines = [*([result["error"]] if result.get("error") else []), *result.get("notes", [])]
    if levels:
        when = {"after_due_date": "after the due date", "after_published": "when grades are published",
                "hidden": "to the instructor only"}[top]
        lines.append(f"{len(levels)} hidden test(s) count towards the score; they and the total "
                     f"are shown {when}.")
    if lines:
        out["output"] = "\n".join(lines)
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
