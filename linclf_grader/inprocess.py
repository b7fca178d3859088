"""Instant feedback in a notebook: run the public tests of one exercise in-process.

The student's function is called directly (it is the student's own kernel, so
there is nothing to protect), but everything the grader applies is applied
here the same way, so that the public points of ``check`` are the grade's
public points: each returned value goes through the worker's encode/decode
round trip; each call has the grader's time limit (:data:`CALL_TIMEOUT`), a call
that runs over it stops the exercise's later calls, and the calls share the
grader's budget; and the rules (:mod:`linclf_grader.imports`) are checked on the
kernel's cells -- IPython's input history in a notebook, the file of the
function in a script -- by the same function the grader uses on the file.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
import time
import warnings

from . import _worker
from .framework import StudentError, find_exercise, get_set, run_tests
from .imports import LOADS, apply_breaches, breaches, forbidden_for, is_forbidden
from .notebook import submission_cells
from .timeouts import CALL_TIMEOUT, calls_budget, time_limit
from .values import BadValue, decode_value, encode_args
from .variants import current_student

__all__ = ["check", "evaluate"]


def _in_process_backend(fn, timeout):
    broken = {}
    deadline = time.monotonic() + calls_budget(timeout)

    def call(name, args, kwargs):
        # the grader's bookkeeping: a timed-out exercise is not called again
        if name in broken:
            raise StudentError(f"not run: {broken[name]}", kind="skipped")
        if time.monotonic() > deadline:
            raise StudentError("not run: the time budget for this submission's calls is used up",
                               kind="timeout")
        call.last_warnings = []
        # the function gets fresh copies, exactly as it would in the worker
        args = _worker.decode_args(json.loads(json.dumps(encode_args(list(args)))))
        kwargs = _worker.decode_args(json.loads(json.dumps(encode_args(dict(kwargs)))))
        try:
            with warnings.catch_warnings(record=True) as caught, time_limit(timeout):
                warnings.simplefilter("always")
                value = fn(*args, **kwargs)
            call.last_warnings = [f"{w.category.__name__}: {w.message}"[:200] for w in caught[:5]]
        except NotImplementedError:
            raise StudentError("not implemented yet (the stub raises NotImplementedError)",
                               kind="not-implemented") from None
        except TimeoutError:
            broken[name] = f"an earlier call of {name}() exceeded the time limit"
            raise StudentError(f"TimeoutError: {name}() did not return within {timeout:g} s",
                               kind="timeout") from None
        except Exception as exc:
            raise StudentError(f"{name}() raised {type(exc).__name__}: {exc}") from None
        try:
            data = json.loads(json.dumps(_worker.encode_value(value), allow_nan=True))
            return decode_value(data)
        except (_worker.EncodeError, BadValue, ValueError) as exc:
            raise StudentError(f"bad return value: {exc}") from None

    call.last_warnings = []
    return call


def kernel_cells(fn, set_name=None):
    """The code the student ran, as the grader would read it from the saved file.

    In IPython: every input of the session, in order (re-running a cell appends it
    again; a later definition replaces an earlier one, as in the kernel).  In a
    script: the file that defines ``fn``.  Else the source of ``fn`` alone.
    """
    shell = None
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        try:
            shell = ipython.get_ipython()
        except Exception:  # pragma: no cover - a broken IPython
            shell = None
    if shell is not None and getattr(shell, "history_manager", None) is not None:
        raw = [(i, src) for i, src in enumerate(shell.history_manager.input_hist_raw)
               if isinstance(src, str) and src.strip()]
        return [src for _, src in submission_cells(b"", raw, set_name).analysed]
    code = getattr(fn, "__code__", None)
    filename = getattr(code, "co_filename", "")
    if filename and os.path.isfile(filename):
        import re

        with open(filename, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        raw = [(i, p) for i, p in enumerate(re.split(r"(?m)^# %%.*$", text)) if p.strip()]
        return [src for _, src in submission_cells(b"", raw, set_name).analysed]
    try:
        return [inspect.getsource(fn)]
    except (OSError, TypeError):
        return []


def evaluate(target, fn=None, *, timeout=CALL_TIMEOUT, student=None, cells=None):
    """Run the public tests of one exercise on ``fn``; return the result dicts.

    Parameters
    ----------
    target : callable or str
        The student's function (looked up by its ``__name__``), or an
        exercise id ``"set.function"`` / ``"function"`` followed by ``fn``.
    student : str, optional
        The id whose data the variant tests use (default: the one set with
        :func:`~linclf_grader.student`).
    cells : list of str, optional
        The code the rules are checked on (default: :func:`kernel_cells`).
    """
    if callable(target) and fn is None:
        fn, target = target, getattr(target, "__name__", "")
    if not callable(fn):
        raise TypeError("check() needs the function to test")
    exset, exercise = find_exercise(str(target))
    tests = [t for t in get_set(exset.name).tests if t.exercise == exercise.name]

    def variant_data(name):
        sid = student if student is not None else current_student()
        if sid is None:
            raise ValueError('this test uses your own data; set your student id with '
                             'student("YOUR-ID")')
        return exset.variant_data(name, sid)

    watch = _ForbiddenCalls(forbidden_for(exercise))
    results = run_tests(tests, watch.wrap(_in_process_backend(fn, timeout)), variant_data)
    if cells is None:
        cells = kernel_cells(fn, exset.name)
    # the grader calls the function by the exercise's name: the rules look it up by that name
    found = breaches(cells, {exercise.name: exercise})
    if watch.seen and exercise.name not in found:
        # an import the static rule cannot see (exec, __import__, importlib): in the grader's
        # sandbox that module is masked and the exercise earns nothing, so here neither
        found[exercise.name] = sorted(watch.seen)
    apply_breaches(results, found)
    return exercise, results


class _ForbiddenCalls:
    """Notice, while the student's function runs, any call into a forbidden package.

    The grader's sandbox masks those packages, so a function that reaches one by a
    route the static rule cannot follow fails there; ``check()`` sees the call
    (by the file of the code that runs, or the module of a built-in) and agrees.
    """

    def __init__(self, forbidden):
        self.forbidden = tuple(forbidden)
        self.seen = set()
        self.dirs = []
        for module in (*self.forbidden, *(p for f in self.forbidden for p in LOADS.get(f, ()))):
            try:
                spec = importlib.util.find_spec(module)
            except (ImportError, ValueError):
                continue  # not installed: nothing can reach it
            if spec is not None and spec.origin:
                self.dirs.append((os.path.dirname(spec.origin) + os.sep, module))

    def _profile(self, frame, event, arg):
        if event == "call":
            name = frame.f_code.co_filename
            for folder, module in self.dirs:
                if name.startswith(folder):
                    self.seen.add(module)
        elif event == "c_call":
            module = getattr(arg, "__module__", None) or ""
            if module and is_forbidden(module, self.forbidden):
                self.seen.add(module)

    def wrap(self, call):
        def watched(name, args, kwargs):
            previous = sys.getprofile()
            sys.setprofile(self._profile)
            try:
                return call(name, args, kwargs)
            finally:
                sys.setprofile(previous)
        # the tests read the warnings of the last call from the backend
        return _Forward(watched, call)


class _Forward:
    """A backend that runs ``watched`` and reads ``last_warnings`` from the wrapped one."""

    def __init__(self, watched, inner):
        self._watched, self._inner = watched, inner

    def __call__(self, name, args, kwargs):
        return self._watched(name, args, kwargs)

    @property
    def last_warnings(self):
        return self._inner.last_warnings


def check(target, fn=None, *, timeout=CALL_TIMEOUT):
    """Check one exercise against its public tests and print what is wrong.

    Use it right after writing the function: ``check(perceptron_update)``.
    It never raises because of the student's code (a failing function is
    reported, not propagated), so a notebook with unfinished exercises still
    runs from top to bottom.  Returns ``None``; see :func:`evaluate` for the
    results as data.
    """
    if os.environ.get("LINCLF_GRADING_WORKER"):
        return None  # inside the grader's sandbox: the grader runs the tests itself
    exercise, results = evaluate(target, fn, timeout=timeout)
    print(feedback(exercise, results))
    return None


def feedback(exercise, results):
    """The text ``check`` prints: per-test partial credit, and what grading adds."""
    score = sum(r["score"] for r in results)
    total = sum(r["max_score"] for r in results)
    passed = sum(r["status"] == "passed" for r in results)
    lines = [f"{exercise.name}: {score:g}/{total:g} points from the public tests "
             f"({passed} of {len(results)} passed)"]
    if results and all("not implemented yet" in r["output"] for r in results):
        lines[0] += " (not implemented yet)"
    else:
        for r in results:
            mark = "PASS" if r["status"] == "passed" else "FAIL"
            lines.append(f"  [{mark}] {r['name']} ({r['score']:g}/{r['max_score']:g} pt)")
            if r["output"]:
                lines.extend("         " + line for line in r["output"].splitlines())
    hidden = exercise.hidden_tests
    if hidden:
        lines.append(f"  {hidden} hidden test(s) of this exercise will run when it is graded; "
                     "passing the public tests does not mean passing those.")
    elif score == total and total > 0:
        lines.append("  All public tests pass. Your instructor may grade with more tests.")
    return "\n".join(lines)
