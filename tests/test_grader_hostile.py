"""Hostile submissions (tests/hostile/) score what they should and harm nothing.

All of them are graded in one ``linclf-grade`` run with ``--jobs 2`` and a short
call time limit; the test then checks each score, that the grader's run was
bounded in time, and that no file (the submissions, the reference solutions)
was changed.  ``test_class_of_100`` grades a whole class in parallel and
reports the overhead per submission.
"""

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from linclf_grader import evaluate, get_set
from linclf_grader.sandbox import Worker

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
SOLUTIONS = ROOT / "exercises" / "solutions"
GRADE = str(Path(sys.executable).with_name("linclf-grade"))
IS_ROOT = os.geteuid() == 0

# expected score of each hostile submission on the "perceptron" set (14 points for the
# four exercises they were written for; none defines perceptron_experiment)
EXPECTED = {
    "exit_zero.py": 0,
    "lying_objects.py": 0,
    "patch_framework.py": 0,
    "hang.py": 0,
    "hang_in_functions.py": 0,
    "resources.py": 0,
    "forge_protocol.py": 0,
    "partly_honest.py": 7,  # perceptron_update (4) and novikoff_bound (3) are honest
    "kills_kernel.ipynb": 4,  # only perceptron_update is defined, after a cell that kills the worker
    "messy_honest.ipynb": 14,  # correct functions among magics, plots and failing cells
}
if IS_ROOT:  # without the root sandbox this one could really delete files: never run it then
    EXPECTED["files_and_proc.py"] = 0


def sha(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile")
    subs = work / "submissions"
    shutil.copytree(HOSTILE, subs)
    before = {p.name: sha(p) for p in subs.iterdir()}
    solutions_before = {p.name: sha(p) for p in SOLUTIONS.iterdir() if p.is_file()}
    out = work / "out"
    start = time.monotonic()
    proc = subprocess.run([GRADE, *[str(subs / n) for n in EXPECTED], "--set", "perceptron",
                           "--jobs", "2", "--timeout", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    elapsed = time.monotonic() - start
    return dict(proc=proc, out=out, subs=subs, before=before, elapsed=elapsed,
                solutions_before=solutions_before)


def result_of(graded, name):
    label = Path(name).stem
    return json.loads((graded["out"] / f"{label}.json").read_text())


def test_grader_finished_cleanly(graded):
    assert graded["proc"].returncode == 0, graded["proc"].stderr[-3000:]
    assert graded["elapsed"] < 120
    rows = list(csv.DictReader(open(graded["out"] / "grades.csv")))
    assert len(rows) == len(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_scores(graded, name):
    res = result_of(graded, name)
    assert res["score"] == EXPECTED[name], [(t["name"], t["output"][:200]) for t in res["tests"]]
    assert res["max_score"] == get_set("perceptron").max_points()
    assert res["seconds"] < 60


def test_partly_honest_gets_exactly_its_honest_points(graded):
    res = result_of(graded, "partly_honest.py")
    passed = {t["exercise"] for t in res["tests"] if t["status"] == "passed"}
    assert passed == {"perceptron_update", "novikoff_bound"}
    assert all(t["status"] == "passed" for t in res["tests"] if t["exercise"] in passed)


def test_nothing_was_changed(graded):
    after = {p.name: sha(p) for p in graded["subs"].iterdir()}
    assert after == graded["before"]
    assert {p.name: sha(p) for p in SOLUTIONS.iterdir() if p.is_file()} == graded["solutions_before"]
    assert not Path("/tmp/linclf_pwned").exists()
    for res in graded["out"].glob("*.json"):
        json.loads(res.read_text())  # every report is intact JSON


def test_failures_are_explained(graded):
    hang = result_of(graded, "hang_in_functions.py")
    assert "did not return within 2 s" in hang["tests"][0]["output"]
    liar = result_of(graded, "lying_objects.py")
    assert any("cannot check a value of type Anything" in t["output"] for t in liar["tests"])


def test_sympy_answers_cannot_run_code(tmp_path):
    sub = tmp_path / "sympy_attacks.py"
    shutil.copy(HOSTILE / "sympy_attacks.py", sub)
    out = tmp_path / "out"
    proc = subprocess.run([GRADE, str(sub), "--set", "discriminants", "--timeout", "3", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    res = json.loads((out / "sympy_attacks.json").read_text())
    assert res["score"] == 0 and res["seconds"] < 30
    assert not Path("/tmp/linclf_pwned").exists()


@pytest.mark.skipif(not IS_ROOT, reason="the full sandbox (namespaces, uid drop) needs root")
def test_worker_isolation(tmp_path):
    private = tmp_path / "private"
    private.mkdir()
    (private / "secret.py").write_text("SECRET = 1\n")
    code = f'''
import os, socket, threading, subprocess
def probe():
    out = {{}}
    def attempt(key, fn):
        try:
            out[key] = "OK " + str(fn())[:40]
        except BaseException as exc:
            out[key] = type(exc).__name__
    attempt("solutions", lambda: open({str(SOLUTIONS / "perceptron.py")!r}).read())
    attempt("private", lambda: open({str(private / "secret.py")!r}).read())
    attempt("parent_environ", lambda: open(f"/proc/{{os.getppid()}}/environ").read())
    attempt("parent_mem", lambda: open(f"/proc/{{os.getppid()}}/mem", "rb").read(1))
    attempt("root_home", lambda: os.listdir("/root/.ssh"))
    attempt("network", lambda: socket.create_connection(("1.1.1.1", 53), timeout=1))
    attempt("fork", lambda: os.fork() or os._exit(0))
    attempt("thread", lambda: threading.Thread(target=print).start())
    attempt("exec", lambda: subprocess.run(["true"]))
    attempt("setuid", lambda: os.setuid(0))
    attempt("write_outside", lambda: open("/work/main/pwned.txt", "w"))
    attempt("kill_parent", lambda: os.kill(os.getppid(), 9))
    out["uid"] = os.getuid()
    out["cwd_empty"] = os.listdir(".") == []
    out["stdin"] = os.read(0, 10).decode()
    return out
'''
    with Worker([(0, code)], hide=[str(private)], timeout=10) as w:
        w.start()
        assert w.sandbox["namespace"] is True
        resp = w.call("probe")
    assert resp["ok"], resp
    got = resp["value"]
    for key in ("solutions", "private", "parent_environ", "parent_mem", "root_home", "network",
                "fork", "thread", "exec", "setuid", "write_outside", "kill_parent"):
        assert not got[key].startswith("OK"), (key, got[key])
    assert got["uid"] != 0 and got["cwd_empty"] is True and got["stdin"] == ""


@pytest.mark.slow
def test_class_of_100(tmp_path):
    """A class of 100 (60 correct, 20 blank, 20 half right) graded with --jobs 2."""
    ref = (SOLUTIONS / "perceptron.py").read_text()
    stub = get_set("perceptron").template()
    half = ref.replace("return (R / gamma) ** 2", "return R / gamma").replace(
        "wrong = y * (X @ w + b) <= 0", "wrong = y * (X @ w + b) < 0")
    # the in-process check and the sandboxed grader must agree on the half-right file
    ns = {}
    exec(half, ns)
    half_score = sum(r["score"] for name in get_set("perceptron").exercises
                     for r in evaluate(f"perceptron.{name}", ns[name], student="perceptron")[1])
    full = get_set("perceptron").max_points()
    assert 0 < half_score < full
    expected = {}
    paths = []
    for i in range(100):
        d = tmp_path / "repos" / f"student{i:03d}"
        d.mkdir(parents=True)
        text, score = (ref, full) if i % 5 < 3 else (stub, 0) if i % 5 == 3 else (half, half_score)
        p = d / "perceptron.py"
        p.write_text(text)
        expected[f"student{i:03d}"] = score
        paths.append(str(p))
    out = tmp_path / "out"
    start = time.monotonic()
    proc = subprocess.run([GRADE, *paths, "--set", "perceptron", "--jobs", "2", "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader(open(out / "grades.csv")))
    assert len(rows) == 100
    for row in rows:
        student = Path(row["file"]).parent.name
        assert float(row["total"]) == expected[student], row
    per_submission = elapsed / 100
    print(f"\n100 submissions, --jobs 2: {elapsed:.1f} s in all, {per_submission:.2f} s each "
          f"(about {2 * per_submission:.2f} s of work per submission per job)")
    assert per_submission < 1.0  # "well under a second per submission"
