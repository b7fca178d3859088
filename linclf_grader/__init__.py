"""Autograded exercises: public tests, instant ``check``, and the sandboxed grader.

* :func:`check` -- in an exercise notebook, ``check(my_function)`` runs the
  public tests of that exercise and prints precise feedback.
* ``linclf-grade`` (:mod:`linclf_grader.cli`) -- grades notebooks or ``.py``
  files of a whole class in sandboxed worker processes, with optional private
  tests, and writes JSON, CSV and Gradescope results.
* :func:`student` / :func:`my_data` -- set your student id once; the data of
  the exercises that have a per-student variant depend on it.
* :func:`test` -- the decorator for (public or private) tests; see
  ``linclf_grader/README.md`` for the format of an exercise set.
"""

from .framework import (ExerciseSet, assert_close, assert_direction, assert_equal,
                        assert_expr, as_array, as_float, available_sets, get_set, test,
                        unpack)
from .inprocess import check, evaluate
from .variants import my_data, student

__all__ = [
    "ExerciseSet", "as_array", "as_float", "assert_close", "assert_direction",
    "assert_equal", "assert_expr", "available_sets", "check", "evaluate", "get_set",
    "my_data", "student", "test", "unpack",
]
