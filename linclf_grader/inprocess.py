"""Instant feedback in a notebook: run the public tests of one exercise in-process.

The student's function is called directly (it is the student's own kernel, so
there is nothing to protect), but each returned value goes through the same
encode/decode round trip as in the sandboxed grader, so the feedback here and
the grade from ``linclf-grade`` agree.
"""

from __future__ import annotations

import json
import os
import warnings

from . import _worker
from .framework import StudentError, find_exercise, get_set, run_tests
from .timeouts import time_limit
from .values import BadValue, decode_value, encode_args
from .variants import current_student

__all__ = ["check", "evaluate"]


def _in_process_backend(fn, timeout):
    def call(name, args, kwargs):
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
            raise StudentError(f"TimeoutError: no answer within {timeout:g} s", kind="timeout") from None
        except Exception as exc:
            raise StudentError(f"{name}() raised {type(exc).__name__}: {exc}") from None
        try:
            data = json.loads(json.dumps(_worker.encode_value(value), allow_nan=True))
            return decode_value(data)
        except (_worker.EncodeError, BadValue, ValueError) as exc:
            raise StudentError(f"bad return value: {exc}") from None

    call.last_warnings = []
    return call


def evaluate(target, fn=None, *, timeout=30.0, student=None):
    """Run the public tests of one exercise on ``fn``; return the result dicts.

    Parameters
    ----------
    target : callable or str
        The student's function (looked up by its ``__name__``), or an
        exercise id ``"set.function"`` / ``"function"`` followed by ``fn``.
    student : str, optional
        The id whose data the variant tests use (default: the one set with
        :func:`~linclf_grader.student`).
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

    return exercise, run_tests(tests, _in_process_backend(fn, timeout), variant_data)


def check(target, fn=None, *, timeout=30.0):
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
