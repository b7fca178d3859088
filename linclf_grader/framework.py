"""Exercise sets and tests with points (the assertion helpers tests use live in
:mod:`linclf_grader.assertions` and are re-exported here).

A *test* is a plain function ``test_something(f)`` decorated with
:func:`test`; ``f`` stands for the student's function.  Calling ``f(...)``
either calls the function directly (the in-process :func:`check` of the
exercise pages) or asks the sandboxed worker to call it (``linclf-grade``);
either way the test receives only trusted plain values (see
:mod:`linclf_grader.values`) and compares them itself, with the helpers below,
which raise ``AssertionError`` with a message that names the quantity, the
expected and the obtained value and the tolerance.

See ``linclf_grader/README.md`` for how to write a set.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import importlib.util
import sys
import textwrap
import time
from pathlib import Path

# the assertion helpers are re-exported: sets and tests import them from here
from .assertions import (StudentError, as_array, as_float, assert_close, assert_direction,  # noqa: F401
                         assert_equal, assert_expr, assert_raises, fail, order_of, read_expr,
                         unpack)
from .timeouts import TEST_TIMEOUT, TRUSTED_BUDGET, paused, time_limit
from .values import describe
from .variants import Recorder, check_student_id, literal, task_matches, task_note, variant_rng


# --------------------------------------------------------------------------
# declarations
# --------------------------------------------------------------------------
@dataclasses.dataclass
class TestSpec:
    """One graded test."""

    func: object
    exercise: str
    points: float
    hidden: bool = False
    name: str = ""
    visibility: str = "visible"
    variant: bool = False

    def __post_init__(self):
        if not self.name:
            base = self.func.__name__
            base = base[5:] if base.startswith("test_") else base
            self.name = f"{self.exercise}: {base.replace('_', ' ')}"


#: Gradescope's visibility levels of a test (``results.json``).
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


def test(exercise, points=1, *, hidden=False, name=None, visibility=None, variant=False):
    """Mark ``func(f)`` as a test of ``exercise`` worth ``points``.

    ``hidden=True`` (for an instructor's private tests) reports only
    passed/failed, never inputs, expected values or messages; on Gradescope
    it is shown ``visibility`` (default ``"after_published"``; ``"hidden"``
    and ``"after_due_date"`` are the others). A test with any visibility but
    ``"visible"`` is hidden. ``variant=True``: the test is ``func(f, data)``
    and receives the student's own data of a variant exercise
    (:mod:`linclf_grader.variants`).
    """
    if points <= 0:
        raise ValueError("points must be positive")
    if visibility is None:
        visibility = "after_published" if hidden else "visible"
    if visibility not in VISIBILITIES:
        raise ValueError(f"visibility must be one of {VISIBILITIES}; got {visibility!r}")
    hidden = visibility != "visible"

    def decorate(func):
        func._linclf_test = TestSpec(func, exercise, float(points), hidden, name or "",
                                     visibility, bool(variant))
        return func

    return decorate


test.__test__ = False  # not a pytest test
TestSpec.__test__ = False


#: What an exercise asks for (``linclf-grade --list`` reports it).
KINDS = ("derivation", "proof", "implementation", "experiment", "find-the-error", "concept",
         "formula")


@dataclasses.dataclass
class Exercise:
    """One function the student writes; ``kind`` is one of :data:`KINDS`."""

    name: str
    title: str
    signature: str
    doc: str
    stub: str = "raise NotImplementedError"
    kind: str = "formula"
    variant: object = None
    hidden_tests: int = 0
    forbid: tuple = ()
    task: dict = None

    def __post_init__(self):
        if isinstance(self.forbid, str) or not all(isinstance(m, str) and m for m in self.forbid):
            raise TypeError(f"exercise {self.name!r}: forbid must be a tuple of module names")
        self.forbid = tuple(self.forbid)
        if self.kind not in KINDS:
            raise ValueError(f"exercise {self.name!r}: kind must be one of {KINDS}; got {self.kind!r}")
        if self.variant is not None and not callable(self.variant):
            raise TypeError(f"exercise {self.name!r}: variant must be a function of an rng")
        self.task = dict(self.task or {})
        if self.task and self.variant is None:
            raise ValueError(f"exercise {self.name!r}: task parameters need a variant")

    def template(self, data=None, student_id=None):
        """The stub with its docstring; a variant exercise shows ``data`` when given."""
        doc = textwrap.dedent(self.doc).strip()
        if self.variant is not None:
            if data is None:
                doc += ("\n\nYour data depend on your student id: run student(\"YOUR-ID\") once,"
                        f"\nthen my_data(\"{self.name}\") returns them.")
            else:
                doc += (f"\n\nYour data (student {student_id}), also returned by"
                        f" my_data(\"{self.name}\"):\n" + literal(data, ""))
            doc += task_note(self.task)
        body = textwrap.indent(doc, "    ")
        stub = textwrap.indent(textwrap.dedent(self.stub).strip(), "    ")
        return f'{self.signature}\n    """{body.lstrip()}\n    """\n{stub}\n'


class ExerciseSet:
    """The exercises of one chapter and their public tests.

    Parameters
    ----------
    name : str
        The set id (``"perceptron"``); also the module name in ``sets/``.
    title : str
    chapter : str
        The chapter file stem (``"03_perceptron"``).
    preamble : str
        Imports the exercises need (written at the top of the template).

    What each exercise may not use is declared per exercise
    (``exercise(..., forbid=...)``, :mod:`linclf_grader.imports`).
    """

    def __init__(self, name, title, chapter, preamble="import numpy as np\n"):
        self.name = name
        self.title = title
        self.chapter = chapter
        self.preamble = preamble
        self.exercises = {}
        self._module = None
        self._variants = {}

    def exercise(self, name, *, title, signature, doc, stub="raise NotImplementedError",
                 kind="formula", variant=None, hidden_tests=0, forbid=(), task=None):
        """Declare an exercise (the function ``name``) of the given ``kind``.

        ``variant(rng) -> dict`` makes the exercise's data depend on the student
        id; ``hidden_tests`` is how many hidden tests the course's grading suite
        (``exercises/solutions/SET.py``) runs on it, which ``check`` announces;
        ``forbid`` names the modules that would solve it besides ``linclf`` and
        scikit-learn, which every exercise forbids (an optimiser such as
        ``imports.OPTIMISERS`` where the exercise is to optimise); ``task``: the variant's
        *task parameters* and their neutral values (:func:`variants.task_matches`).
        """
        if name in self.exercises:
            raise ValueError(f"exercise {name!r} declared twice")
        ex = Exercise(name, title, signature, doc, stub, kind, variant, int(hidden_tests),
                      tuple(forbid), task)
        self.exercises[name] = ex
        return ex

    def variant_data(self, exercise, student_id):
        """The data of the variant ``exercise`` for ``student_id`` (a dict)."""
        make = self.exercises[exercise].variant
        if make is None:
            raise ValueError(f"exercise {exercise!r} has no per-student variant")
        key = (exercise, student_id)
        if key not in self._variants:  # the data are a function of the id: make them once
            data = make(variant_rng(self.name, exercise, student_id))
            if not isinstance(data, dict):
                raise TypeError(f"the variant of {exercise!r} must return a dict")
            if len(self._variants) > 256:
                self._variants.clear()
            self._variants[key] = data
        return copy.deepcopy(self._variants[key])

    @property
    def tests(self):
        """The public tests, in definition order."""
        module = sys.modules[self._module]
        found = collect_tests(vars(module).values())
        return found

    def max_points(self, exercise=None):
        return sum(t.points for t in self.tests if exercise in (None, t.exercise))

    def template(self, student_id=None):
        """The set as a plain ``.py`` file: preamble, then every stub with its docstring.

        With ``student_id`` the variant exercises show that student's data.
        """
        grade = f"linclf-grade THIS_FILE.py --set {self.name}"
        if student_id is not None:
            student_id = check_student_id(student_id)
            grade = f"linclf-grade {student_id}.py --set {self.name}"
        head = (f'"""Exercises: {self.title} (set "{self.name}").\n\n'
                "Fill in each function, then grade locally with\n"
                f"    {grade}\n"
                "or check one function at a time in Python:\n"
                "    from linclf_grader import check; check(function)\n\n"
                + _rules_header(self) + '"""\n')
        preamble = self.preamble.rstrip() + "\n"
        if any(ex.task for ex in self.exercises.values()):   # the task parameters come from it
            preamble += "from linclf_grader import my_data\n"
        parts = [head, preamble]
        for ex in self.exercises.values():
            data = None
            if ex.variant is not None and student_id is not None:
                data = self.variant_data(ex.name, student_id)
            parts.append("\n\n# " + "-" * 70 + f"\n# {ex.title}\n"
                         + ex.template(data, student_id))
        return "".join(parts)


def _rules_header(exset):
    from .imports import rules_header

    return rules_header(exset)


def collect_tests(objects):
    """The :class:`TestSpec` of every decorated function among ``objects``."""
    out = []
    for obj in objects:
        spec = getattr(obj, "_linclf_test", None)
        if isinstance(spec, TestSpec):
            out.append(spec)
    return out


SET_NAMES = ("discriminants", "fisher", "perceptron", "mse", "logistic", "softmax",
             "margin", "duality", "kernels", "smo", "losses")


def available_sets():
    """Names of the sets that exist in ``linclf_grader/sets/``."""
    here = Path(__file__).with_name("sets")
    return [n for n in SET_NAMES if (here / f"{n}.py").exists()]


def get_set(name):
    """Load the exercise set ``name``."""
    if name not in SET_NAMES or name not in available_sets():
        raise ValueError(f"unknown exercise set {name!r}; available: {', '.join(available_sets())}")
    module = importlib.import_module(f"linclf_grader.sets.{name}")
    exset = module.SET
    exset._module = module.__name__
    return exset


def find_exercise(name):
    """Return ``(set, exercise)`` for a function name or ``"set.function"``."""
    if "." in name:
        set_name, func = name.split(".", 1)
        exset = get_set(set_name)
        if func not in exset.exercises:
            raise ValueError(f"set {set_name!r} has no exercise {func!r}")
        return exset, exset.exercises[func]
    for set_name in available_sets():
        exset = get_set(set_name)
        if name in exset.exercises:
            return exset, exset.exercises[name]
    raise ValueError(f"no exercise set has a function called {name!r}")


def load_private_tests(directory, exset):
    """Import every ``*.py`` in ``directory`` (trusted) and keep tests of ``exset``."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"--tests {directory}: not a directory")
    tests = []
    for path in sorted(directory.glob("*.py")):
        mod_name = f"_linclf_private_tests_{abs(hash(str(path.resolve())))}"
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for t in collect_tests(vars(module).values()):
            ex = t.exercise.split(".", 1)[1] if t.exercise.startswith(exset.name + ".") else t.exercise
            if "." in ex:
                continue  # a test of another set
            if ex not in exset.exercises:
                raise ValueError(f"{path.name}: test {t.func.__name__} names unknown exercise {ex!r}")
            t.exercise = ex
            tests.append(t)
    return tests


# --------------------------------------------------------------------------
# the student function as seen by a test
# --------------------------------------------------------------------------
class StudentFunction:
    """Callable stand-in for the student's function.

    ``backend(name, args, kwargs)`` performs the call and returns a decoded
    value or raises :class:`StudentError`.  The arguments of the last call are
    kept for failure messages.
    """

    def __init__(self, name, backend):
        self.__name__ = name
        self._backend = backend
        self.last_call = None
        self.last_warnings = []
        self.call_seconds = 0.0

    def __call__(self, *args, **kwargs):
        self.last_call = (args, kwargs)
        start = time.monotonic()
        try:
            # the call has its own limits; the test's limit counts only the grader's work
            with paused():
                return self._backend(self.__name__, args, kwargs)
        finally:
            self.call_seconds += time.monotonic() - start
            # warnings the call emitted, as short strings (see assert_no_warnings)
            self.last_warnings = list(getattr(self._backend, "last_warnings", None) or [])

    def describe_last_call(self):
        if self.last_call is None:
            return ""
        args, kwargs = self.last_call
        parts = [describe(a, 120) for a in args] + [f"{k}={describe(v, 120)}" for k, v in kwargs.items()]
        return f"{self.__name__}({', '.join(parts)})"


def _run_one(t, f, backend, variant_data, alternatives):
    """Call test ``t`` on ``f``; its variant data and recorded calls are left on ``f``."""
    if not t.variant:
        t.func(f)
        return
    if variant_data is None:
        raise StudentError("not run: this test uses your own data; "
                           'set your student id with student("YOUR-ID")')
    try:
        data = variant_data(t.exercise)
    except ValueError as exc:
        raise StudentError(f"not run: {exc}") from None
    f._data = data
    if alternatives is not None:
        # record the calls (see task_matches); run_tests reads them through f._recorder
        f._recorder = StudentFunction(t.exercise, Recorder(backend))
        try:
            t.func(f._recorder, data)
        finally:
            f.call_seconds += f._recorder.call_seconds
        return
    t.func(f, data)


def run_tests(tests, backend, variant_data=None, alternatives=None, *,
              test_timeout=TEST_TIMEOUT, budget=TRUSTED_BUDGET):
    """Run ``tests`` against ``backend``; return one result dict per test.

    ``variant_data(exercise)`` gives the student's data for the variant tests
    (it raises ``ValueError`` when no student id is known). ``alternatives(exercise)``:
    ``(neutral, [(classmate, data), ...])`` for an exercise with task parameters, else
    None; see :func:`variants.task_matches` (the result's ``task_matches``).
    ``test_timeout`` limits the grader's own work on one test's answers (reading and
    evaluating returned expressions) and ``budget`` that work over all the tests; the
    student's calls are not counted (they have their own limits).
    """
    results = []
    left = float(budget)
    for t in tests:
        f = StudentFunction(t.exercise, backend)
        data, status, message = None, "passed", ""
        start = time.monotonic()
        try:
            if left <= 0:
                raise StudentError(f"not checked: the grader's time for checking your answers "
                                   f"({budget:.0f} s in all) is used up")
            with time_limit(min(test_timeout, left)):
                _run_one(t, f, backend, variant_data, alternatives)
        except TimeoutError:
            status = "failed"
            message = (f"your expression took too long to evaluate: the grader checks one "
                       f"test's answers for at most {min(test_timeout, max(left, 0)):.0f} s")
        except AssertionError as exc:
            status, message = "failed", str(exc) or "assertion failed"
        except StudentError as exc:
            status, message = "failed", str(exc)
        except Exception as exc:  # the result had a shape the test could not use
            status = "failed"
            message = f"the result could not be checked: {type(exc).__name__}: {exc}"
        left -= max(0.0, time.monotonic() - start - f.call_seconds)
        data = getattr(f, "_data", None)
        f = getattr(f, "_recorder", None) or f
        if status == "failed" and f.last_call is not None and message:
            message += f"\n    in the call {f.describe_last_call()}"
        matches = []
        if status == "failed" and isinstance(f._backend, Recorder):
            alt = alternatives(t.exercise)
            if alt is not None:
                matches = task_matches(t, f._backend.calls, data, *alt)
        if t.hidden:
            message = "" if status == "passed" else "hidden test: failed"
        results.append({
            "name": t.name,
            "exercise": t.exercise,
            "score": t.points if status == "passed" else 0.0,
            "max_score": t.points,
            "status": status,
            "output": message,
            "hidden": t.hidden,
            "visibility": t.visibility,
            **({"task_matches": matches} if matches else {}),
        })
    return results
