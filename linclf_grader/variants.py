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
"""

from __future__ import annotations

import hashlib
import os
import re

import numpy as np

__all__ = ["student", "current_student", "my_data", "variant_rng", "check_student_id"]

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
