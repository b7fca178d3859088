"""Per-student task parameters: a copied general solution fails on the copier's own variant,
and the grade names the classmate whose variant it fits (issue 23, item 6).

The class (set "discriminants", exercise ``ovr_ambiguous_fraction``, whose threshold ``t`` is
each student's task parameter) is handed in as a Canvas and as a Moodle download built to
their naming conventions, as in ``tests/lms_samples.py``, and graded with the commands of
``appendices/grading.md`` (section "Copy signals"):

* Ada: the reference functions with her own ``t`` written in (as the page asks);
* Eve: Ada's code, variables renamed and comments added: Ada's ``t``;
* Cy: the reference, reading ``t`` with ``my_data`` (a correct general solution);
* Bob: the reference with ``t = 0``, the parameter ignored (wrong, but copied from nobody).
"""

import ast
import csv
import os
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import lms_samples as S
from linclf_grader import get_set
from linclf_grader.feedback import feedback_html
from linclf_grader.framework import StudentFunction, run_tests
from linclf_grader.inprocess import _in_process_backend
from linclf_grader.variants import Recorder, task_matches

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "appendices" / "grading.md"
EXE = Path(sys.executable).with_name("linclf-grade")
EX = "ovr_ambiguous_fraction"
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course_lms")]


def reference(t=None):
    """The set's reference functions; ``t``: that value written in instead of ``my_data``."""
    text = (ROOT / "exercises" / "solutions" / "discriminants.py").read_text()
    names = set(get_set("discriminants").exercises) | {"_grid"}
    parts = ["import numpy as np\nimport sympy as sp\nfrom linclf_grader import my_data"]
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            parts.append(ast.get_source_segment(text, node))
    code = "\n\n\n".join(parts) + "\n"
    line = f't = my_data("{EX}")["t"]'
    assert line in code, "the reference no longer reads t with my_data"
    return code if t is None else code.replace(line, f"t = {t!r}")


def t_of(sid):
    return get_set("discriminants").variant_data(EX, sid)["t"]


def uploads(ids):
    ada = reference(t_of(ids["ada"]))
    return {"ada": ada, "eve": re.sub(r"\b_grid\b", "_points", S.renamed(ada)), "cy": reference(),
            "bob": reference(0.0)}


def write_canvas(folder, ids):
    with zipfile.ZipFile(folder / "ovr-canvas.zip", "w") as z:
        for i, (key, code) in enumerate(uploads(ids).items()):
            sortable, _, uid, *_ = S.PEOPLE[key]
            name = "".join(ch for ch in sortable.lower() if ch.isalnum())
            z.writestr(zipfile.ZipInfo(f"{name}_{uid}_{60001 + i}_discriminants.py",
                                       (2026, 3, 1, 10, 0, 0)), code)
    rows = ["Student,ID,SIS User ID,SIS Login ID,Section,Discriminants (778)",
            "    Points Possible,,,,,20"]
    for key in uploads(ids):
        sortable, _, uid, sis, *_ = S.PEOPLE[key]
        rows.append(f'"{sortable}",{uid},{sis},{key},Section 1,')
    (folder / "gradebook.csv").write_text("\n".join(rows) + "\n")


def write_moodle(folder, ids):
    with zipfile.ZipFile(folder / "ovr-moodle.zip", "w") as z:
        for key, code in uploads(ids).items():
            _, full, _, _, pid, _ = S.PEOPLE[key]
            z.writestr(zipfile.ZipInfo(f"{full}_{pid}_assignsubmission_file_/discriminants.py",
                                       (2026, 3, 1, 10, 0, 0)), code)
    rows = ["Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
            "Last modified (submission),Last modified (grade),Feedback comments"]
    for key in uploads(ids):
        _, full, _, _, pid, email = S.PEOPLE[key]
        rows.append(f'Participant {pid},{full},{email},Submitted for grading,,100.00,Yes,'
                    '"Sunday, 1 March 2026, 10:00 AM",-,')
    (folder / "worksheet.csv").write_text("\n".join(rows) + "\n")


def guide_commands():
    """The guide's commands that grade the copy-signal sample (``--set discriminants``)."""
    out = {}
    for block in re.findall(r"```bash\n(.*?)```", GUIDE.read_text(), re.S):
        for cmd in block.replace("\\\n", " ").splitlines():
            argv = shlex.split(cmd, comments=True)
            if argv[:1] == ["linclf-grade"] and "discriminants" in argv:
                out["canvas" if "--canvas" in argv else "moodle"] = argv
    return out


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    cmds = guide_commands()
    assert set(cmds) == {"canvas", "moodle"}
    done = {}
    for kind, argv in cmds.items():
        d = tmp_path_factory.mktemp(kind)
        (d / "exercises").symlink_to(ROOT / "exercises")
        ids = {k: (v[3] if kind == "canvas" else v[5]) for k, v in S.PEOPLE.items()}
        (write_canvas if kind == "canvas" else write_moodle)(d, ids)
        proc = subprocess.run([str(EXE), *argv[1:]], cwd=d, capture_output=True, text=True,
                              timeout=900, env={**os.environ, "OMP_NUM_THREADS": "1"})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        done[kind] = (d / argv[argv.index("--out") + 1], ids, proc.stdout)
    return done


@pytest.mark.parametrize("kind", ["canvas", "moodle"])
def test_copied_general_solution_fails_and_names_the_source(graded, kind):
    out, ids, stdout = graded[kind]
    assert len({t_of(ids[k]) for k in ("ada", "eve", "cy", "bob")}) == 4
    rows = {r["student"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    full = 2 + 2 + 2   # public, own variant, hidden
    assert float(rows[ids["ada"]][EX]) == full and float(rows[ids["cy"]][EX]) == full
    assert float(rows[ids["eve"]][EX]) == full - 2   # her own variant fails
    assert float(rows[ids["bob"]][EX]) < full      # t ignored: wrong, but copied from nobody
    signals = list(csv.DictReader(open(out / "copy_signals.csv")))
    assert signals == [{"student": ids["eve"], "exercise": EX, "matches_variant_of": ids["ada"],
                        "classmates_fitting": "1"}]
    assert f"copy signal: {ids['eve']}: {EX} matches the variant of {ids['ada']}" in stdout
    page = (out / "similarity.html").read_text()
    assert "fit a classmate" in page and f"matches the variant of {ids['ada']}" in page
    # the renamed copy is also a fingerprint pair; the feedback names no classmate
    pairs = {(r["a"], r["b"]) for r in csv.DictReader(open(out / "similarity.csv"))}
    assert tuple(sorted((ids["ada"], ids["eve"]))) in pairs
    for key in ("eve", "bob"):
        label = re.sub(r"[^A-Za-z0-9_.-]+", "_", ids[key])   # the report name of an e-mail id
        text = (out / "feedback" / f"{label}.html").read_text()
        assert ids["ada"] not in text and str(t_of(ids["ada"])) not in text


def test_an_ambiguous_copy_signal_names_nobody(tmp_path):
    """Hostile trial F6: when several classmates' parameters fit (discrete outputs), the
    report says how many and names none; a unique fit still names the classmate."""
    from linclf_grader.similarity import copy_signals, write_similarity

    results = [{"student": "s9001", "file": "a.py", "copy_signals": {"mx": ["s9002", "s9004"]}},
               {"student": "s9003", "file": "b.py", "copy_signals": {"mx": ["s9002"]}},
               {"student": "s9005", "file": "c.py"}]
    signals = copy_signals(results)
    write_similarity([], tmp_path, 0.5, 3, {}, signals)
    rows = list(csv.DictReader(open(tmp_path / "copy_signals.csv")))
    assert rows == [
        {"student": "s9001", "exercise": "mx", "matches_variant_of": "", "classmates_fitting": "2"},
        {"student": "s9003", "exercise": "mx", "matches_variant_of": "s9002",
         "classmates_fitting": "1"}]
    page = (tmp_path / "similarity.html").read_text()
    assert "s9004" not in page and page.count("s9002") == 1 and "weak" in page
    assert "2 classmates, so they name nobody" in page


def test_template_and_my_data_show_the_task_parameter():
    exset = get_set("discriminants")
    text = exset.template("s1001")
    assert f"t = {t_of('s1001')!r}" in text and "Your task parameter t" in text
    from linclf_grader import my_data

    assert my_data(EX, "s1001")["t"] == t_of("s1001")
    assert get_set("mse").variant_data("masking_experiment", "s1001")["target"] >= 1.1


def test_task_parameters_make_every_answer_differ_from_the_ignored_one():
    """Drawn parameters are never ties on the grid and change the answer (the generator's
    promise; without it ignoring t could pass)."""
    from linclf_grader.sets.discriminants import _fraction

    for sid in [f"s{i}" for i in range(40)]:
        d = get_set("discriminants").variant_data(EX, sid)
        k = round(d["t"] * 10000)
        assert k % 5 and 500 <= k < 7500
        assert _fraction(d["W"], d["b"], d["t"]) != _fraction(d["W"], d["b"], 0.0)


def test_masking_literals_hold_for_every_target():
    """The public example has no near-tie and the hidden test's literal answer holds for every
    target value the generator can draw (two decimals in [1.1, 4])."""
    from exercise_harness import load_reference

    from linclf_grader.sets.mse import X_MASK, Y_MASK, _masking, _masking_gap

    ref = load_reference("mse")
    targets = np.arange(110, 401) / 100
    assert min(_masking_gap(X_MASK, Y_MASK, c) for c in targets) > 1e-5
    assert {_masking(ref._X_MASKED, ref._Y_MASKED, c) for c in targets} == {(2, 1 / 3)}
    assert len({_masking(X_MASK, Y_MASK, c) for c in targets}) > 2


def _replay(set_name, exercise, fn, student, classmates):
    exset = get_set(set_name)
    tests = [t for t in exset.tests if t.exercise == exercise and t.variant]
    ex = exset.exercises[exercise]

    def alternatives(name):
        return ex.task, [(c, exset.variant_data(name, c)) for c in classmates]

    return run_tests(tests, _in_process_backend(fn, 10.0),
                     lambda name: exset.variant_data(name, student), alternatives)


def test_masking_copy_matches_the_source_and_not_the_ignored_target():
    src = get_set("mse").variant_data("masking_experiment", "alice")["target"]

    def with_target(value):
        def fn(X, y):
            X_tilde = np.hstack([X, np.ones((len(X), 1))])
            T = np.eye(3)[y]
            T[:, 1] *= value
            pred = np.argmax(X_tilde @ np.linalg.lstsq(X_tilde, T, rcond=None)[0], axis=1)
            return int(len(np.unique(pred))), float(np.mean(pred != y))
        return fn

    copied = _replay("mse", "masking_experiment", with_target(src), "bob", ["alice", "cy"])
    own = [r for r in copied if r["name"].endswith("on your own data")][0]
    assert own["status"] == "failed" and "alice" in own["task_matches"]
    ignored = _replay("mse", "masking_experiment", with_target(1.0), "bob", ["alice", "cy"])
    assert all("task_matches" not in r for r in ignored)


def test_task_matches_only_replays_recorded_answers():
    """The replay never calls the student's function again, and a test that makes a call the
    recorded run did not make is no match."""
    exset = get_set("discriminants")
    test = [t for t in exset.tests if t.exercise == EX and t.variant][0]
    own, other = exset.variant_data(EX, "bob"), exset.variant_data(EX, "alice")
    from linclf_grader.sets.discriminants import _fraction

    calls = []

    def fn(W, b):
        calls.append(1)
        return _fraction(W, b, other["t"])

    rec = Recorder(_in_process_backend(fn, 10.0))
    with pytest.raises(AssertionError):
        test.func(StudentFunction(EX, rec), own)
    n = len(calls)
    assert task_matches(test, rec.calls, own, {"t": 0.0}, [("alice", other), ("cy", own)]) == \
        ["alice"]
    assert len(calls) == n
    assert task_matches(test, rec.calls[:1], own, {"t": 0.0}, [("alice", other)]) == []


def test_copy_signal_checks_the_whole_roster_not_only_this_run(tmp_path):
    """Hostile re-review s9b F6: the classmates were this run's submissions only, so with the
    real source absent from the run an innocent classmate could be the only fit (and named).
    The roster's absent student is checked too: Eve's copy names Ada, who did not submit."""
    from linclf_grader.cli import main

    ids = {k: v[3] for k, v in S.PEOPLE.items()}
    write_canvas(tmp_path, ids)
    code = uploads(ids)
    with zipfile.ZipFile(tmp_path / "run.zip", "w") as z:
        for i, key in enumerate(("eve", "cy")):
            sortable, _, uid, *_ = S.PEOPLE[key]
            name = "".join(ch for ch in sortable.lower() if ch.isalnum())
            z.writestr(zipfile.ZipInfo(f"{name}_{uid}_{61001 + i}_discriminants.py",
                                       (2026, 3, 1, 10, 0, 0)), code[key])
    out = tmp_path / "o"
    assert main(["--canvas", str(tmp_path / "run.zip"), "--canvas-gradebook",
                 str(tmp_path / "gradebook.csv"), "--set", "discriminants", "--similarity", "0.8",
                 "--out", str(out), "--quiet"]) == 0
    signals = list(csv.DictReader(open(out / "copy_signals.csv")))
    assert [(r["student"], r["matches_variant_of"]) for r in signals] == [(ids["eve"], ids["ada"])]
