"""Every reference answer, checked by a method that shares no code with it (issue 20, item 4).

For each exercise of each set, ``tests/independent_keys_{a,b,c}.py`` hold an *independent* answer:
scipy or scikit-learn for solvers, Gram eigenvalues for kernel claims, a sympy derivation
from the problem statement for symbolic answers, plain loops, exact fractions or mpmath for
formulas.  Three checks per exercise:

* every call a public, variant (several students) or hidden test makes is answered by the
  independent function, and the reference must give the same answer for the same call
  (compared by value, symbolically for sympy answers, or by an exercise-specific rule
  where the answer is not unique, e.g. the multipliers of an SVM);
* the tests pass with the independent answers, so their literal expected values are
  recomputed independently;
* the exercise's own extra checks (``EXTRA``), e.g. Gram eigenvalues per kernel candidate.

A missing independent answer is a failing test: the table must cover every exercise of
every set.  The second half checks that feedback never prints an answer (issue 20, item 5).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import sympy as sp
from exercise_harness import load_reference
from independent_keys_a import COMPARE as COMPARE_A
from independent_keys_a import EXTRA as EXTRA_A
from independent_keys_a import INDEPENDENT as INDEPENDENT_A
from independent_keys_b import COMPARE as COMPARE_B
from independent_keys_b import EXTRA as EXTRA_B
from independent_keys_b import INDEPENDENT as INDEPENDENT_B
from independent_keys_c import COMPARE as COMPARE_C
from independent_keys_c import EXTRA as EXTRA_C
from independent_keys_c import INDEPENDENT as INDEPENDENT_C

from linclf_grader import available_sets, get_set
from linclf_grader.framework import StudentError, collect_tests, run_tests
from linclf_grader.inprocess import _in_process_backend
from linclf_grader.symbolic import compare_expr

SETS = available_sets()
INDEPENDENT = {**INDEPENDENT_A, **INDEPENDENT_B, **INDEPENDENT_C}
COMPARE = {**COMPARE_A, **COMPARE_B, **COMPARE_C}
EXTRA = {**EXTRA_A, **EXTRA_B, **EXTRA_C}
EXERCISES = [(s, name) for s in SETS for name in get_set(s).exercises]
STUDENTS = ("alice", "bob", "s1234567")


def hidden_tests(set_name, exercise=None):
    out = []
    for t in collect_tests(vars(load_reference(set_name)).values()):
        name = t.exercise.split(".", 1)[1]
        if exercise in (None, name):
            t.exercise = name
            out.append(t)
    return out


def all_tests(set_name, exercise):
    public = [t for t in get_set(set_name).tests if t.exercise == exercise]
    return public + hidden_tests(set_name, exercise)


def test_the_table_covers_every_exercise_of_every_set():
    assert len(SETS) == 11
    missing = [f"{s}.{e}" for s, e in EXERCISES if (s, e) not in INDEPENDENT]
    assert not missing, f"no independent answer for {missing}"
    unknown = sorted(set(INDEPENDENT) - set(EXERCISES))
    assert not unknown, f"independent answers for exercises that do not exist: {unknown}"


# --------------------------------------------------------------------------
# comparing two answers
# --------------------------------------------------------------------------
def _sympy_of(value):
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return value
    if isinstance(value, str):
        from linclf_grader.symbolic import parse_expr_safely

        return parse_expr_safely(value)
    return None


def same(a, b, *, rtol=1e-6, atol=1e-9, where="the answer"):
    """Assert two answers agree: numbers and arrays to rtol/atol, sympy objects as functions."""
    sa, sb = _sympy_of(a), _sympy_of(b)
    if sa is not None or sb is not None:
        assert sa is not None and sb is not None, f"{where}: {a!r} against {b!r}"
        sa = sa.xreplace({s: sp.Symbol(s.name) for s in getattr(sa, "free_symbols", ())})
        sb = sb.xreplace({s: sp.Symbol(s.name) for s in getattr(sb, "free_symbols", ())})
        names = sorted({s.name for s in sa.free_symbols | sb.free_symbols})
        ok, msg = compare_expr(sa, sb, names, positive=[n for n in names if n in POSITIVE])
        assert ok, f"{where}: {msg}"
        return
    if isinstance(a, (list, tuple)) and not _numeric_sequence(a):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{where}: {a!r} against {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, rtol=rtol, atol=atol, where=f"{where}[{i}]")
        return
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        assert bool(a) == bool(b) and isinstance(b, (bool, np.bool_)), f"{where}: {a!r} against {b!r}"
        return
    A, B = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert A.shape == B.shape, f"{where}: shapes {A.shape} and {B.shape}"
    assert np.allclose(A, B, rtol=rtol, atol=atol), f"{where}: {A} against {B}"


def _numeric_sequence(seq):
    return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
               for v in seq)


#: symbols that are positive in the exercises (s1, s2 of fisher, C, N, q, ...)
POSITIVE = {"s1", "s2", "C", "N", "q", "kappa_pos", "gamma", "w_norm", "xi_sum", "p1", "p2", "p3", "p4"}


def _call(fn, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("value", fn(*args, **kwargs))
        except (ValueError, RuntimeError, ZeroDivisionError) as exc:
            return ("raised", type(exc).__name__)


def comparing(set_name, exercise, reference, independent, seen):
    """A backend for run_tests: the independent answer goes to the test; the reference must
    agree with it on the same call."""
    compare = COMPARE.get((set_name, exercise))
    inner = _in_process_backend(independent, 60.0)

    def call(name, args, kwargs):
        kind_i, value_i = _call(independent, args, kwargs)
        kind_r, value_r = _call(reference, args, kwargs)
        assert kind_i == kind_r, f"{set_name}.{exercise}{_short(args)}: independent {kind_i} " \
                                 f"{value_i if kind_i == 'raised' else ''}, reference {kind_r}"
        if kind_i == "value":
            if compare is not None:
                compare(value_r, value_i, args, kwargs)
            else:
                same(value_r, value_i, where=f"{set_name}.{exercise}{_short(args)}")
        seen.append(name)
        return inner(name, args, kwargs)
    return call


def _short(args):
    text = repr(args)
    return f"(args {text[:120]}...)" if len(text) > 120 else f"(args {text})"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("set_name,exercise", EXERCISES)
def test_reference_agrees_with_an_independent_answer(set_name, exercise, monkeypatch):
    from linclf_grader import variants

    assert (set_name, exercise) in INDEPENDENT, "no independent verification for this exercise"
    ref = getattr(load_reference(set_name), exercise)
    independent = INDEPENDENT[(set_name, exercise)]
    exset = get_set(set_name)
    seen = []
    for sid in STUDENTS:
        # the answers of an exercise with task parameters read them with my_data, as students do
        monkeypatch.setattr(variants, "_current", sid)
        tests = all_tests(set_name, exercise) if sid == STUDENTS[0] else \
            [t for t in exset.tests if t.exercise == exercise and t.variant]
        backend = comparing(set_name, exercise, ref, independent, seen)
        results = run_tests(tests, backend, lambda ex, sid=sid: exset.variant_data(ex, sid))
        failed = [(r["name"], r["output"]) for r in results if r["status"] != "passed"]
        # a hidden test hides its message: run it again without hiding to show the reason
        assert not failed, f"the independent answer fails: {failed}; {_reasons(tests, backend, failed)}"
    assert seen, "no test called the function"
    extra = EXTRA.get((set_name, exercise))
    if extra is not None:
        extra(ref)


def _reasons(tests, backend, failed):
    names = {n for n, _ in failed}
    out = []
    for t in tests:
        if t.name in names:
            from linclf_grader.framework import StudentFunction
            try:
                t.func(StudentFunction(t.exercise, backend))
            except (AssertionError, StudentError) as exc:
                out.append(f"{t.name}: {exc}")
    return out


# --------------------------------------------------------------------------
# wrong answers that only hidden tests catch
# --------------------------------------------------------------------------
WRONG_HIDDEN = [(s, ex, label) for s in SETS
                for ex, answers in getattr(load_reference(s), "WRONG_HIDDEN", {}).items() for label in answers]


def test_the_two_fixed_keys_have_hidden_wrong_answers():
    assert ("smo", "smo_solver", "no snapping to the bounds") in WRONG_HIDDEN
    assert ("smo", "smo_solver", "no floor on kappa") in WRONG_HIDDEN


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("set_name,exercise,label", WRONG_HIDDEN)
def test_wrong_answers_only_hidden_tests_catch_lose_points_there(set_name, exercise, label):
    fn = load_reference(set_name).WRONG_HIDDEN[exercise][label]
    exset = get_set(set_name)
    variant = lambda ex: exset.variant_data(ex, "alice")  # noqa: E731
    public = run_tests([t for t in exset.tests if t.exercise == exercise],
                       _in_process_backend(fn, 30.0), variant)
    assert all(r["status"] == "passed" for r in public), \
        f"{label} already fails a public test: it belongs in WRONG"
    hidden = run_tests(hidden_tests(set_name, exercise), _in_process_backend(fn, 30.0), variant)
    assert any(r["status"] == "failed" for r in hidden), f"no hidden test catches {label}"


# --------------------------------------------------------------------------
# feedback never prints an answer
# --------------------------------------------------------------------------
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def numbers_in(text):
    """(value, half-width of the last printed digit) of every number with >= 3 significant digits."""
    out = []
    for token in _NUMBER.findall(text):
        mantissa = token.split("e")[0].split("E")[0].lstrip("-")
        digits = mantissa.replace(".", "").lstrip("0")
        if len(digits) < 3:
            continue
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exponent = int(token.lower().split("e")[1]) if "e" in token.lower() else 0
        out.append((float(token), 0.5 * 10.0 ** (exponent - decimals)))
    return out


def answer_numbers(value):
    """The numbers of an answer worth hiding: nonzero, not a small integer."""
    if isinstance(value, (sp.Basic, sp.MatrixBase, str, bool, np.bool_)) or value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in answer_numbers(item)]
    arr = np.asarray(value, dtype=float).ravel()
    return [float(v) for v in arr if np.isfinite(v) and v != 0 and not float(v).is_integer()]


def leaked(message, secrets):
    found = numbers_in(message)
    return [s for s in secrets for value, half in found
            if abs(value - s) <= max(half, 1e-12 * abs(s)) * 1.000001 and abs(s) > 10 * half * 1e-3]


def _constant(ex):
    return ex.signature.endswith("():")


#: exercises whose answer is a fixed table looked up by the input (yes/no per candidate)
TABLES = {("kernels", "kernel_closure")}
#: constant exercises whose answer is the student's own construction (any valid example
#: passes), so the reference's numbers are no secret
OPEN_ANSWERS = {("margin", "scaling_counterexample")}
Q_POINTS = (0.05, 0.2, 0.5, 0.65, 0.9)


def _expression_secrets(value):
    """Numbers that give a symbolic constant away: its values where tests evaluate it."""
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in _expression_secrets(item)]
    if isinstance(value, sp.Basic) and {s.name for s in value.free_symbols} == {"q"}:
        q = next(iter(value.free_symbols))
        return [float(value.subs(q, sp.Rational(str(p)))) for p in Q_POINTS
                if float(value.subs(q, sp.Rational(str(p)))) != 0]
    return []


def _constant_secrets(sets, expressions):
    """The numbers of the constant answers of ``sets`` (and, with ``expressions``, the values
    of symbolic ones where the set's tests evaluate them)."""
    out = []
    for s in sets:
        ref = load_reference(s)
        for name, ex in get_set(s).exercises.items():
            if _constant(ex) and (s, name) not in OPEN_ANSWERS:
                value = getattr(ref, name)()
                out += answer_numbers(value) + (_expression_secrets(value) if expressions else [])
    return sorted(set(out))


#: numeric constant answers: no message of any set may show them
CONSTANT_SECRETS = _constant_secrets(SETS, False)


def _wrong_answers(set_name, exercise):
    ref = load_reference(set_name)
    found = dict(getattr(ref, "WRONG", {}).get(exercise, {}))
    found.update(getattr(ref, "WRONG_HIDDEN", {}).get(exercise, {}))
    return found


SCAN = [(s, e) for s, e in EXERCISES]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("set_name,exercise", SCAN)
def test_no_failure_message_prints_an_answer(set_name, exercise):
    """Every WRONG answer (and a few generic ones) on every public and variant test: no message
    shows a constant answer of the set (this exercise's or another's), and no variant message
    shows the expected value for the student's own data."""
    exset = get_set(set_name)
    ref_fn = getattr(load_reference(set_name), exercise)
    wrongs = _wrong_answers(set_name, exercise)
    wrongs["perturbed reference"] = _perturbed(ref_fn)
    if (set_name, exercise) in TABLES:
        wrongs["every answer flipped"] = lambda cands: [not a for a in ref_fn(cands)]
    secrets = CONSTANT_SECRETS + _constant_secrets([set_name], True)
    messages = 0
    for label, wrong_fn in wrongs.items():
        own = []
        fn = _recording(wrong_fn, own)
        for sid in ("alice", "bob"):
            for t in exset.tests:
                if t.exercise != exercise or (sid != "alice" and not t.variant):
                    continue
                data_secrets = []
                if t.variant:
                    data = exset.variant_data(exercise, sid)
                    data_secrets = answer_numbers(_call(ref_fn, _variant_args(ref_fn, data), {})[1])
                own.clear()
                r = run_tests([t], _in_process_backend(fn, 30.0), lambda ex: exset.variant_data(ex, sid))[0]
                if r["status"] != "failed":
                    continue
                messages += 1
                text = r["output"]
                # a number the student's own answer holds is no leak: they have it already
                mine = answer_numbers(own) + _expression_secrets(own)
                bad = [v for v in leaked(text, secrets) if not leaked(repr(v), mine)]
                # the inputs of a variant call are the student's own data, not answers
                bad += [v for v in leaked(text.split("\n    in the call ")[0], data_secrets)
                        if not leaked(repr(v), mine)]
                assert not bad, f"{label}: the message of {t.name!r} shows {bad}: {text}"
                if (set_name, exercise) in TABLES:
                    assert "True" not in text and "False" not in text, f"{label}: {text}"
    assert messages, "no wrong answer produced a failure message to scan"


def _recording(fn, store):
    def recorded(*args, **kwargs):
        value = fn(*args, **kwargs)
        store.append(value)
        return value
    recorded.__name__ = getattr(fn, "__name__", "recorded")
    return recorded


def _variant_args(fn, data):
    import inspect

    names = list(inspect.signature(fn).parameters)
    return [data[n] for n in names if n in data]


def _perturbed(fn):
    """The reference with every returned number moved by 1 %: fails the numeric tests."""
    def wrong(*args, **kwargs):
        value = fn(*args, **kwargs)
        return _scale(value)
    return wrong


def _scale(value):
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value * 1.01 + 1e-3
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value + 1
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, (int, np.integer)):
        return value + 1
    if isinstance(value, float):
        return value * 1.01 + 1e-3
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return value * sp.Rational(101, 100)
    if isinstance(value, tuple):
        return tuple(_scale(v) for v in value)
    if isinstance(value, list):
        return [_scale(v) for v in value]
    return value


def test_the_scan_finds_a_printed_answer():
    """The scan is not blind: the old duality message printed ALPHA_M as "expected"."""
    from linclf_grader.values import describe

    alpha = load_reference("duality").small_dual_alpha()
    old = f"alpha: expected {describe(alpha)}, got array([0.1, 0.2, 0.2, 0.0, 0.0])"
    assert leaked(old, answer_numbers(alpha))
    assert leaked("W = 0.2469", [20 / 81]) and not leaked("W = 0.25", [20 / 81])
    assert not leaked("alpha: 3 of 5 entries are wrong; index 0, an error of order 1e-02", answer_numbers(alpha))


def test_warnings_reach_the_tests_through_the_grader_worker(tmp_path):
    """The docstring's "without warnings" holds in the sandboxed worker too, not only in check()."""
    from exercise_harness import SOLUTIONS

    from linclf_grader.grade import grade_submission

    good = (SOLUTIONS / "logistic.py").read_text().split("\n# ----------------------------------------"
                                                        "----------------------------------\n# hidden")[0]
    where = good.replace("    return -np.logaddexp(0.0, -z)",
                         "    return np.where(z >= 0, -np.log1p(np.exp(-z)), z - np.log1p(np.exp(z)))")
    assert where != good
    for name, text in (("good", good), ("warns", where)):
        (tmp_path / f"{name}.py").write_text(text)
    ok = grade_submission(tmp_path / "good.py", "logistic", timeout=10)
    bad = grade_submission(tmp_path / "warns.py", "logistic", timeout=10)
    extreme = [t for t in bad["tests"] if t["name"] == "log_sigmoid: extreme values"][0]
    assert all(t["status"] == "passed" for t in ok["tests"])
    assert extreme["status"] == "failed" and "RuntimeWarning: overflow" in extreme["output"]
