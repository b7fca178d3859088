"""Per-student variants: exercise data that depend on a student id.

An exercise declared with ``variant=make(rng)`` gets its own data for every
student: ``make`` receives a :class:`numpy.random.Generator` seeded from the
set, the exercise and the id, and returns a dict of plain values (arrays,
numbers). The same id always gives the same data, on the student's machine,
in ``linclf-grade --template SET --student ID`` and in the grader, which
recomputes the expected answers from the same seed.

In a notebook the student sets the id once::

    from linclf_grader import student, my_data
    student("s1234567")
    my_data("perceptron_update_count")     # this student's data

The grader takes the id from the submission's file name stem, a roster CSV
(``linclf-grade --roster``) or ``--student``, never from the submission's own
code: in its sandbox ``student(...)`` does nothing and ``my_data`` returns the
data of the graded id.

Some exercises also have per-student *task parameters* (``exercise(..., task=...)``):
entries of the same dict that the function must use but does not receive as
arguments (a threshold, a target value). A classmate's general solution, written
for the classmate's parameter, then fails on one's own variant; and when a variant
test fails, :func:`task_matches` replays the student's recorded answers against
each classmate's parameters: an answer that is right for classmate X's parameter
(and not for the neutral one) is strong evidence that X's solution was copied when
X's is the only parameter that fits; when several fit, the report names nobody.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re

import numpy as np

__all__ = ["student", "current_student", "my_data", "variant_rng", "check_student_id",
           "task_matches"]

ENV = "LINCLF_STUDENT"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,99}$")
_current = None


def check_student_id(student_id):
    """Return the id stripped of surrounding blanks, or raise ``ValueError``."""
    if not isinstance(student_id, str):
        raise TypeError(f"a student id is a string, got {type(student_id).__name__}")
    sid = student_id.strip()
    if not _ID.match(sid):
        raise ValueError(f"student id {student_id!r}: use 1-100 letters, digits or . _ @ + - "
                         "(starting with a letter or digit)")
    return sid


def student(student_id):
    """Set the student id that :func:`my_data` and ``check(...)`` use in this session."""
    global _current
    _current = check_student_id(student_id)
    return _current


def current_student():
    """The id set by :func:`student`, else ``$LINCLF_STUDENT`` (e.g. set by a JupyterHub), else None.

    (Inside the grader's sandbox ``linclf_grader`` is a stub whose ``my_data``
    returns the data the grader computed for the graded id.)
    """
    return _current or os.environ.get(ENV) or None


def variant_rng(set_name, exercise, student_id):
    """The generator of ``exercise``'s data for ``student_id`` (deterministic)."""
    sid = check_student_id(student_id)
    digest = hashlib.sha256(f"linclf/{set_name}/{exercise}/{sid}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def my_data(exercise, student_id=None):
    """The data of a variant exercise for the current (or the given) student."""
    from .framework import find_exercise

    sid = student_id if student_id is not None else current_student()
    if sid is None:
        raise ValueError('set your student id first: student("YOUR-ID")')
    exset, ex = find_exercise(exercise)
    return exset.variant_data(ex.name, sid)


def literal(value, indent="    "):
    """``value`` (a dict of plain data) as Python assignments a student can paste."""
    lines = []
    for key, v in value.items():
        if isinstance(v, np.ndarray):
            text = np.array2string(v, separator=", ", max_line_width=80, threshold=10_000,
                                   floatmode="unique")
            text = f"np.array({text})".replace("\n", "\n" + indent + " " * (len(key) + 3))
        else:
            text = repr(v.item() if isinstance(v, np.generic) else v)
        lines.append(f"{indent}{key} = {text}")
    return "\n".join(lines)


def task_note(task):
    """The sentence of an exercise's docstring that names its task parameters."""
    if not task:
        return ""
    names = ", ".join(task)
    return (f"\n\nYour task parameter{'s' if len(task) > 1 else ''} {names} (in the same dict) "
            "is not an argument:\nyour function must use your own value of it.")


class Recorder:
    """A test backend that keeps every call and its outcome, for :func:`task_matches`."""

    def __init__(self, backend):
        self.backend, self.calls = backend, []

    @property
    def last_warnings(self):
        return getattr(self.backend, "last_warnings", None) or []

    def __call__(self, name, args, kwargs):
        from .framework import StudentError

        try:
            value = self.backend(name, args, kwargs)
        except StudentError as exc:
            self.calls.append((name, args, kwargs, exc))
            raise
        self.calls.append((name, args, kwargs, copy.deepcopy(value)))
        return value


class _Diverged(Exception):
    """The replayed test made a call the recorded run did not make."""


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and \
            a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def task_matches(test, calls, own, neutral, alternatives):
    """The classmates whose task parameters make ``test`` pass on the recorded ``calls``.

    ``own`` is the student's variant dict, ``neutral`` maps each task parameter
    to the value that amounts to ignoring it, ``alternatives`` is a list of
    ``(classmate, variant dict)``. The test is run again (trusted code only: the
    student's function is not called) with the student's own data and the
    classmate's task parameters, the recorded answers standing in for the
    function. Nothing is reported when the answers also pass with the neutral
    parameters (a student who ignored the parameter copied nobody) or when the
    test fails for every classmate. A test of such an exercise makes all its
    calls before its first assertion, so that every answer is recorded.
    """
    from .framework import StudentFunction

    def passes(params):
        replay = iter(calls)

        def backend(name, args, kwargs):
            rec = next(replay, None)
            if rec is None or rec[0] != name or not _same(rec[1], args) or not _same(rec[2], kwargs):
                raise _Diverged
            if isinstance(rec[3], Exception):
                raise rec[3]
            return copy.deepcopy(rec[3])

        try:
            test.func(StudentFunction(test.exercise, backend), {**own, **params})
        except Exception:   # an AssertionError, a replayed StudentError, or _Diverged
            return False
        return True

    if not calls or passes(neutral):
        return []
    out = []
    for label, data in alternatives:
        params = {k: data[k] for k in neutral}
        if not _same(params, {k: own[k] for k in neutral}) and passes(params):
            out.append(label)
    return out
