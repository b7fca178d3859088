"""The sets' instructor side: hidden tests, wrong answers kept with the reference,
per-student variants, honest ``check`` feedback, and the instructor's grade book
(roster, overrides, late policy, item analysis, Gradescope visibility)."""

import csv
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from exercise_harness import SOLUTIONS, load_reference, stub_functions

from linclf_grader import available_sets, evaluate, get_set
from linclf_grader.framework import collect_tests, run_tests
from linclf_grader.inprocess import _in_process_backend, feedback

SETS = available_sets()
GRADE = str(Path(sys.executable).with_name("linclf-grade"))


def hidden_tests(set_name):
    """The hidden tests of ``set_name`` kept in its reference module."""
    ref = load_reference(set_name)
    out = []
    for t in collect_tests(vars(ref).values()):
        if t.exercise.startswith(set_name + "."):
            t.exercise = t.exercise.split(".", 1)[1]
            out.append(t)
    return out


def run(set_name, tests, fn_by_name, student="alice"):
    from linclf_grader import variants

    exset = get_set(set_name)
    results = []
    # answers of an exercise with task parameters read them with my_data, as students do
    before, variants._current = variants._current, student
    try:
        for t in tests:
            results += run_tests([t], _in_process_backend(fn_by_name[t.exercise], 10.0),
                                 lambda ex: exset.variant_data(ex, student))
    finally:
        variants._current = before
    return results


@pytest.mark.parametrize("set_name", SETS)
def test_declared_hidden_counts_match_the_instructor_tests(set_name):
    counts = {}
    for t in hidden_tests(set_name):
        assert t.hidden, t.name
        assert t.exercise in get_set(set_name).exercises, t.name
        counts[t.exercise] = counts.get(t.exercise, 0) + 1
    for name, ex in get_set(set_name).exercises.items():
        assert ex.hidden_tests == counts.get(name, 0), name


@pytest.mark.parametrize("set_name", SETS)
def test_reference_passes_and_stub_fails_the_hidden_tests(set_name):
    tests = hidden_tests(set_name)
    ref = load_reference(set_name)
    good = run(set_name, tests, {t.exercise: getattr(ref, t.exercise) for t in tests})
    assert all(r["status"] == "passed" for r in good), [r["name"] for r in good if r["status"] != "passed"]
    bad = run(set_name, tests, stub_functions(set_name))
    assert all(r["status"] == "failed" for r in bad)


WRONG_CASES = [(s, ex, label) for s in SETS
               for ex, answers in getattr(load_reference(s), "WRONG", {}).items() for label in answers]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("set_name,exercise,label", WRONG_CASES)
def test_wrong_answers_kept_with_the_reference_lose_points(set_name, exercise, label):
    fn = load_reference(set_name).WRONG[exercise][label]
    tests = [t for t in get_set(set_name).tests if t.exercise == exercise]
    public = run(set_name, tests, {exercise: fn})
    assert sum(r["score"] for r in public) < sum(r["max_score"] for r in public), label
    assert all(r["output"] for r in public if r["status"] == "failed")


# --------------------------------------------------------------------------
# per-student variants
# --------------------------------------------------------------------------
VARIANTS = [(s, name) for s in SETS for name, ex in get_set(s).exercises.items() if ex.variant]


@pytest.mark.parametrize("set_name,exercise", VARIANTS)
def test_variant_data_depend_on_the_id_only(set_name, exercise):
    exset = get_set(set_name)
    a1, a2 = exset.variant_data(exercise, "alice"), exset.variant_data(exercise, "alice")
    b = exset.variant_data(exercise, "bob")
    assert a1.keys() == b.keys()
    assert all(np.array_equal(a1[k], a2[k]) for k in a1)
    assert any(not np.array_equal(a1[k], b[k]) for k in a1)


@pytest.mark.parametrize("set_name,exercise", VARIANTS)
def test_reference_passes_the_variant_tests_for_many_students(set_name, exercise):
    tests = [t for t in get_set(set_name).tests if t.exercise == exercise and t.variant]
    assert tests, "a variant exercise needs a test on the student's own data"
    fn = getattr(load_reference(set_name), exercise)
    for sid in ("alice", "bob", "s1234567", "zoe.l@uni.example"):
        results = run(set_name, tests, {exercise: fn}, student=sid)
        assert all(r["status"] == "passed" for r in results), (sid, results)


def test_student_template_shows_that_students_data():
    from linclf_grader import my_data, student
    from linclf_grader.cli import main

    text = get_set("perceptron").template("alice")
    X = get_set("perceptron").variant_data("perceptron_experiment", "alice")["X"]
    assert "Your data (student alice)" in text and f"{X[0, 0]:.2f}" in text
    assert text != get_set("perceptron").template("bob")
    # the printed data are valid Python that give back the same arrays
    block = text.split("Your data (student alice)")[1].split('"""')[0].split("\n", 1)[1]
    ns = {"np": np}
    exec(textwrap.dedent(block), ns)
    assert np.array_equal(ns["X"], X)
    student("alice")
    assert np.array_equal(my_data("perceptron_experiment")["X"], X)
    proc = subprocess.run([GRADE, "--template", "perceptron", "--student", "alice"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == text
    with pytest.raises(ValueError, match="student id"):
        student("no spaces allowed")
    assert main(["--template", "perceptron", "--student", "a b"]) == 2


def test_check_is_honest_about_hidden_and_variant_tests(monkeypatch):
    import linclf_grader.variants as variants

    ref = load_reference("perceptron")
    monkeypatch.setattr(variants, "_current", None)
    monkeypatch.delenv("LINCLF_STUDENT", raising=False)
    ex, results = evaluate("perceptron_experiment", ref.perceptron_experiment)
    text = feedback(ex, results)
    assert "not run" in text and "student(" in text and "All public tests pass" not in text
    variants.student("alice")
    ex, results = evaluate("perceptron_experiment", ref.perceptron_experiment)
    text = feedback(ex, results)
    assert "3/3 points" in text and "2 hidden test(s)" in text
    assert "All public tests pass" not in text  # hidden tests remain
    ex, results = evaluate("perceptron_update", ref.perceptron_update)
    assert "1 hidden test(s)" in feedback(ex, results)
    # every exercise now has a hidden test (a lookup table of the public answers must lose
    # points); the wording without one, on a copy of the declaration
    import dataclasses

    assert "All public tests pass" in feedback(dataclasses.replace(ex, hidden_tests=0), results)


def test_partial_credit_per_test_is_reported():
    wrong = load_reference("perceptron").WRONG["perceptron_experiment"]["bound without augmenting"]
    ex, results = evaluate("perceptron_experiment", wrong)
    assert "(0/1 pt)" in feedback(ex, results)


# --------------------------------------------------------------------------
# the grader: ids from file names or a roster, never from the submission
# --------------------------------------------------------------------------
SNOOP = '''
from linclf_grader import my_data, student
student("mallory")          # ignored by the grader: the id comes from outside


def perceptron_experiment(X, y):
    # answers from my_data() instead of the arguments: right only for the graded id
    import numpy as np
    d = my_data("perceptron_experiment")
    X, y = d["X"], d["y"]
    w, b, n = np.zeros(2), 0.0, 0
    for _ in range(10000):
        k = 0
        for x_i, y_i in zip(X, y):
            if y_i * (w @ x_i + b) <= 0:
                w, b, n, k = w + y_i * x_i, b + y_i, n + 1, k + 1
        if k == 0:
            break
    Xh = np.hstack([X, np.ones((len(X), 1))])
    a = np.append(w, b)
    return n, (np.linalg.norm(Xh, axis=1).max() * np.linalg.norm(a) / (y * (Xh @ a)).min()) ** 2, []
'''


def _variant_score(result):
    return [t["status"] for t in result["tests"] if t["name"].endswith("own data")]


def test_grader_uses_the_file_stem_or_the_roster(tmp_path):
    from linclf_grader.grade import grade_submission

    sub = tmp_path / "alice.py"
    sub.write_text(SNOOP)
    r = grade_submission(sub, "perceptron", timeout=10)
    assert r["student"] == "alice" and _variant_score(r) == ["passed"]
    r = grade_submission(sub, "perceptron", timeout=10, student="bob")
    assert r["student"] == "bob" and _variant_score(r) == ["passed"]  # my_data() follows the grader
    # the roster decides; a file missing from it is an error, said in one line
    roster = tmp_path / "roster.csv"
    roster.write_text("file,student\nalice.py,carol\n")
    out = tmp_path / "out"
    proc = subprocess.run([GRADE, str(sub), "--set", "perceptron", "--roster", str(roster),
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "alice.json").read_text())["student"] == "carol"
    roster.write_text("file,student\nsomeone_else.py,carol\n")
    proc = subprocess.run([GRADE, str(sub), "--set", "perceptron", "--roster", str(roster)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "not in the roster" in proc.stderr


def test_overrides_late_policy_items_and_visibility(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "alice.py").write_text((SOLUTIONS / "perceptron.py").read_text())
    (subs / "bob.py").write_text((SOLUTIONS / "perceptron.py").read_text())
    (subs / "carl.py").write_text(get_set("perceptron").template())
    overrides = tmp_path / "overrides.csv"
    overrides.write_text("student,exercise,points,reason\ncarl,perceptron_update,2,regrade: see email\n")
    times = tmp_path / "times.csv"
    times.write_text("student,submitted\nalice,2026-03-01T20:00:00+00:00\n"
                     "bob,2026-03-03T01:00:00+00:00\n")
    out = tmp_path / "out"
    cmd = [GRADE, *(str(p) for p in sorted(subs.glob("*.py"))), "--set", "perceptron",
           "--tests", str(SOLUTIONS), "--overrides", str(overrides), "--due",
           "2026-03-01T23:59:00+00:00", "--late-per-day", "10", "--late-cap", "15",
           "--times", str(times), "--out", str(out), "--jobs", "2", "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    top = float(rows["alice"]["max"])
    assert top == get_set("perceptron").max_points() + sum(t.points for t in hidden_tests("perceptron"))
    assert float(rows["alice"]["total"]) == top and rows["alice"]["late_penalty_percent"] == "0"
    # 1 h past the due date and one day more: 2 started days, 20 %, capped at 15 %
    assert rows["bob"]["late_penalty_percent"] == "15"
    assert float(rows["bob"]["total"]) == pytest.approx(0.85 * top)
    assert rows["carl"]["perceptron_update"] == "2" and rows["carl"]["overridden"] == "perceptron_update"
    assert float(rows["carl"]["total"]) == 2.0
    carl = json.loads((out / "carl.json").read_text())
    assert carl["overrides"][0]["reason"] == "regrade: see email"
    assert carl["late"]["note"].startswith("no submission time")
    items = list(csv.DictReader(open(out / "items.csv")))
    by = {r["item"]: r for r in items}
    hidden = next(r for r in items if "hidden many epochs" in r["item"])
    assert hidden["n"] == "3" and float(hidden["pass_rate"]) == pytest.approx(2 / 3, abs=1e-4)
    assert by["perceptron_update"]["level"] == "exercise"
    gs = json.loads((out / "bob" / "results.json").read_text())
    vis = {t["name"]: t["visibility"] for t in gs["tests"]}
    # hidden tests keep their results until the due date and lose their descriptive names
    assert hidden["item"] not in vis and "perceptron_train: hidden test 1" in vis
    assert vis["perceptron_train: hidden test 1"] == "after_due_date"
    assert set(vis.values()) == {"visible", "after_due_date"}


@pytest.mark.parametrize("content,message", [
    ("student,exercise,points\ncarl,nope,1\n", "no exercise 'nope'"),
    ("student,exercise,points\ncarl,perceptron_update,9\n", "outside [0, 4]"),
    ("student,exercise,points\ncarl,perceptron_update,x\n", "not a number"),
    ("who,exercise,points\n", "column(s) student"),
])
def test_bad_override_files_are_refused_in_one_line(tmp_path, content, message):
    bad = tmp_path / "o.csv"
    bad.write_text(content)
    sub = tmp_path / "carl.py"
    sub.write_text(get_set("perceptron").template())
    proc = subprocess.run([GRADE, str(sub), "--set", "perceptron", "--overrides", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_late_policy_arithmetic():
    from linclf_grader.course import LatePolicy, parse_time

    policy = LatePolicy("2026-03-01T12:00:00Z", per_day=10, cap=25)
    assert policy.penalty(parse_time("2026-03-01T11:00:00Z")) == (0, 0.0)
    assert policy.penalty(parse_time("2026-03-01T12:00:01Z")) == (1, 10.0)
    assert policy.penalty(parse_time("2026-03-02T12:00:00Z")) == (1, 10.0)
    assert policy.penalty(parse_time("2026-03-05T12:00:00Z")) == (4, 25.0)
    with pytest.raises(ValueError, match="ISO 8601"):
        parse_time("yesterday")
    with pytest.raises(ValueError, match="percentages"):
        LatePolicy("2026-03-01", per_day=150)


@pytest.mark.parametrize("got, expected, ok", [
    (True, True, True), (np.True_, True, True), (np.array([False]), False, True),
    (np.False_, True, False), (1, True, False), ("True", True, False),
    (3, 3, True), (np.int64(3), 3, True), (3.0, 3, True), (True, 1, False), (np.True_, 1, False), (4, 3, False),
])
def test_assert_equal_accepts_numpy_booleans_and_refuses_mixed_kinds(got, expected, ok):
    from linclf_grader.framework import assert_equal
    if ok:
        assert_equal(got, expected, "x")
    else:
        with pytest.raises(AssertionError, match="x"):
            assert_equal(got, expected, "x")
