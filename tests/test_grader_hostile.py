"""Hostile submissions (tests/hostile/) score what they should and harm nothing.

Part 1: the old catalogue, graded in one ``linclf-grade`` run with ``--jobs 2`` and a short
call time limit; the test then checks each score, that the grader's run was
bounded in time, and that no file (the submissions, the reference solutions)
was changed.  ``test_class_of_100`` grades a whole class in parallel and
reports the overhead per submission.

Part 2: one test per attack class of issue 20, each run as
root and as an ordinary user, with the editable checkout and with linclf pip-installed
from a wheel into a separate virtual environment.
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

from grader_env import IS_ROOT, Listener, host_addresses, world_dir
from linclf_grader import evaluate, get_set

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
SOLUTIONS = ROOT / "exercises" / "solutions"
GRADE = str(Path(sys.executable).with_name("linclf-grade"))

# expected score of each hostile submission on the "perceptron" set (the points of the
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
    # correct functions among magics, plots and failing cells: the four exercises it defines
    "messy_honest.ipynb": sum(get_set("perceptron").max_points(e) for e in (
        "perceptron_update", "perceptron_train", "batch_perceptron_step", "novikoff_bound")),
}
EXPECTED["files_and_proc.py"] = 0  # bubblewrap shows it no file to delete, as root or not


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
    rows = list(csv.DictReader(open(graded["out"] / "grades.csv")))
    assert len(rows) == len(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_scores(graded, name):
    res = result_of(graded, name)
    assert res["score"] == EXPECTED[name], [(t["name"], t["output"][:200]) for t in res["tests"]]
    assert res["max_score"] == get_set("perceptron").max_points()


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
    assert res["score"] == 0
    assert not Path("/tmp/linclf_pwned").exists()


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
    # the speed goal ("well under a second per submission") is benchmarks/bench_grader.py's:
    # no assertion here depends on how busy the machine is


# ==========================================================================
# Part 2: the attack classes of issue 20, as root and as an ordinary user
# ==========================================================================
@pytest.fixture(scope="module")
def ordinary_user():
    from grader_env import ordinary_user as make

    return make()


CASES = ([("root", "dev"), ("root", "installed"), ("user", "installed")] if IS_ROOT
         else [("user", "dev"), ("user", "installed")])
SECRET = 4242.125  # a hidden test's input: it must never leave the grader
pytestmark = pytest.mark.xdist_group("grader_hostile")  # one worker shares the environments
MARKS = {"env": "envmark_" + os.urandom(6).hex(), "ghost": "ghostmark77", "reason": "REASON_FOR_BOB_ONLY_55"}


def _grade_cmd(env, who, user):
    if env == "dev":
        prog = GRADE
    else:
        prog = str(env / "bin" / "linclf-grade")
    if who == "root" and not IS_ROOT:
        pytest.skip("needs root")
    if who == "user" and IS_ROOT:
        return ["runuser", "-u", user, "--", prog]
    return [prog]


@pytest.fixture(params=CASES, ids=lambda c: f"{c[0]}-{c[1]}", scope="module")
def case(request, installed_linclf_env, ordinary_user):
    who, env = request.param
    if who == "user" and env == "dev" and IS_ROOT:
        pytest.skip("the checkout's environment is not readable by other users")
    venv = None if env == "dev" else installed_linclf_env
    return {"who": who, "env": env, "cmd": _grade_cmd(venv or "dev", who, ordinary_user),
            "user": ordinary_user}


def _workspace(case):
    """A folder the grading user can write into (the output folder's parent)."""
    d = world_dir("linclf-hostile-")
    if case["who"] == "user" and IS_ROOT:
        shutil.chown(d, case["user"], case["user"])
    return d


@pytest.fixture(scope="module")
def probed(case):
    """Grade a class of three (probe, honest, probe again) with roster, overrides and private tests."""
    work = _workspace(case)
    subs = work / "subs"
    for name in ("alice", "bob", "carol"):
        (subs / name).mkdir(parents=True)
    private = work / "private"
    private.mkdir()
    (private / "secret_tests.py").write_text(f'''
import numpy as np
from linclf_grader import test, assert_close


@test("novikoff_bound", points=1, hidden=True)
def test_secret(f):
    X = np.array([[{SECRET}, 0.0], [-1.0, 0.0]])
    assert_close(f(X, np.array([1.0, -1.0]), np.array([1.0, 0.0]), 0.0), {SECRET} ** 2, "bound")
''')
    bob = subs / "bob" / "perceptron.py"
    shutil.copy(SOLUTIONS / "perceptron.py", bob)
    roster, overrides = work / "roster.csv", work / "overrides.csv"
    paths = {"solutions": str(SOLUTIONS / "perceptron.py"),
             "solutions_near_package": str(Path(sys.prefix).parent / "exercises" / "solutions" / "perceptron.py"),
             "other_student": str(bob), "roster": str(roster), "overrides": str(overrides),
             "private_tests": str(private / "secret_tests.py"),
             "own_file": str(subs / "alice" / "perceptron.py"),
             "linclf_source": str(ROOT / "linclf" / "perceptron.py")}
    listener = Listener()
    probe = (HOSTILE / "probe.py").read_text().replace("@@PATHS@@", repr(paths)).replace(
        "@@PORT@@", str(listener.port)).replace("@@HOSTS@@", repr(host_addresses()))
    for name in ("alice", "carol"):
        (subs / name / "perceptron.py").write_text(probe)
    files = [subs / n / "perceptron.py" for n in ("alice", "bob", "carol")]
    roster.write_text("file,student\n" + "".join(f"{f},{f.parent.name}0{i}\n" for i, f in enumerate(files, 1))
                      + f"ghost.py,{MARKS['ghost']}\n")
    overrides.write_text(f"student,exercise,points,reason\nbob02,perceptron_update,4,{MARKS['reason']}\n")
    for p in [*work.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    before = sha(bob)
    leaks = _leak_state()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LINCLF_HOSTILE_MARK": MARKS["env"]}
    try:
        proc = subprocess.run([*case["cmd"], *map(str, files), "--set", "perceptron", "--jobs", "1",
                               "--timeout", "5", "--tests", str(private), "--roster", str(roster),
                               "--overrides", str(overrides), "--out", str(work / "out")],
                              capture_output=True, text=True, timeout=600, env=env, cwd=str(work))
    finally:
        listener.close()
    out = work / "out"
    feedback = {}
    for label in ("alice__perceptron", "bob__perceptron", "carol__perceptron"):
        texts = [p.read_text() for p in (out / f"{label}.json", out / label / "results.json") if p.exists()]
        feedback[label.split("__")[0]] = "\n".join(texts)
    yield {"proc": proc, "out": out, "feedback": feedback, "listener": listener, "bob_before": before,
           "bob": bob, "work": work, "leaks": (leaks, _leak_state())}
    shutil.rmtree(work, ignore_errors=True)


def _leak_state():
    # where an unconfined probe would leave its inputs on this machine (stat or None)
    out = {}
    for p in ("/tmp/linclf_leak.txt", "/dev/shm/linclf_leak.txt"):
        try:
            st = os.stat(p)
            out[p] = (st.st_size, st.st_mtime_ns)
        except OSError:
            out[p] = None
    return out


def probe_findings(probed, who, exercise, label=None):
    """The findings a probe reported through its first public test of ``exercise``."""
    res = json.loads((probed["out"] / f"{label or who + '__perceptron'}.json").read_text())
    for t in res["tests"]:
        if t["exercise"] == exercise and "PROBE:" in t["output"]:
            text = t["output"].split("PROBE:", 1)[1]
            return json.loads(text[: text.rindex("}") + 1])
    raise AssertionError(f"no probe report for {exercise}: {[t['output'][:300] for t in res['tests']]}")


def _all_failed(values):
    flat = json.dumps(values)
    return "\"OK " not in flat


def test_probe_run_was_clean(probed):
    proc = probed["proc"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "isolation: bubblewrap" in proc.stderr
    full = get_set("perceptron").max_points() + 1
    bob = json.loads((probed["out"] / "bob__perceptron.json").read_text())
    assert bob["score"] == full, bob["tests"]  # the honest student keeps every point
    assert sha(probed["bob"]) == probed["bob_before"]
    for who in ("alice", "carol"):
        assert json.loads((probed["out"] / f"{who}__perceptron.json").read_text())["score"] == 0


def test_exec_import_of_linclf_fails(probed):
    """`exec`/`__import__`/importlib of linclf's perceptron (and sklearn, the grader's sets) fail."""
    found = probe_findings(probed, "alice", "perceptron_update")
    for key in ("exec_linclf", "dunder_import", "importlib", "sklearn", "grader"):
        assert found[key].startswith("FAILED"), (key, found[key])
    assert _all_failed(found["load_by_path"]), found


def test_reference_solutions_and_instructor_files_unreadable(probed):
    """Reference solutions (with linclf pip-installed too), private tests, roster, overrides."""
    found = probe_findings(probed, "alice", "perceptron_train")
    for key in ("solutions", "solutions_near_package", "private_tests", "roster", "overrides",
                "linclf_source"):
        assert found[key].startswith("FAILED"), (key, found[key])
    assert found["listed"] == [], found["listed"]


def test_other_student_invisible(probed):
    """Folder-per-student layout: alice neither reads nor changes bob's file, nor sees her own."""
    found = probe_findings(probed, "alice", "perceptron_train")
    for key in ("other_student", "write_other", "own_file"):
        assert found[key].startswith("FAILED"), (key, found[key])
    assert sha(probed["bob"]) == probed["bob_before"]


def test_roster_and_overrides_never_in_feedback(probed):
    for who in ("alice", "carol"):
        text = probed["feedback"][who]
        assert text, who
        for mark in (MARKS["ghost"], MARKS["reason"], "bob02"):
            assert mark not in text, (who, mark)


def test_grader_environment_and_cmdline_unreadable(probed):
    """/proc shows only the sandbox's own processes: not the grader's environ or command line."""
    found = probe_findings(probed, "alice", "perceptron_train")
    everything = json.dumps(found)
    assert MARKS["env"] not in everything
    assert "LINCLF_HOSTILE_MARK" not in everything
    assert found["env_mark"] == []
    assert str(probed["work"]) not in json.dumps(found["proc"])  # the grader's arguments
    assert found["ppid"] in (0, 1)  # the parent is outside the PID namespace or bwrap's init
    assert all(MARKS["env"] not in probed["feedback"][w] for w in probed["feedback"])


def test_network_is_unreachable(probed):
    found = probe_findings(probed, "alice", "batch_perceptron_step")
    assert _all_failed(found), found
    assert probed["listener"].connections == 0


def test_hidden_inputs_not_left_for_a_later_submission(probed):
    first = probe_findings(probed, "alice", "novikoff_bound")
    later = probe_findings(probed, "carol", "novikoff_bound")
    assert any(v.startswith("OK") for v in first["wrote"].values())  # it could write privately
    assert _all_failed(later["read"]), later["read"]  # but carol, graded next, finds nothing
    for text in probed["feedback"].values():
        assert str(SECRET) not in text
    before, after = probed["leaks"]
    assert before == after  # nothing reached this machine's /tmp or /dev/shm


def test_kill_attacks_do_not_stop_the_grader(case, tmp_path):
    """os.kill(getppid), killpg, kill(-1), killing every pid: the honest student keeps full marks."""
    work = _workspace(case)
    try:
        for name in ("mallory", "bob", "zoe"):
            (work / name).mkdir()
        shutil.copy(HOSTILE / "killer.py", work / "mallory" / "perceptron.py")
        shutil.copy(SOLUTIONS / "perceptron.py", work / "bob" / "perceptron.py")
        shutil.copy(SOLUTIONS / "perceptron.py", work / "zoe" / "perceptron.py")
        for p in work.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        files = [str(work / n / "perceptron.py") for n in ("mallory", "bob", "zoe")]
        proc = subprocess.run([*case["cmd"], *files, "--set", "perceptron", "--jobs", "2", "--timeout", "3",
                               "--out", str(work / "out")], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        full = get_set("perceptron").max_points()
        rows = {Path(r["file"]).parent.name: r for r in csv.DictReader(open(work / "out" / "grades.csv"))}
        assert float(rows["bob"]["total"]) == full and float(rows["zoe"]["total"]) == full, rows
        # mallory's perceptron_update returns (w, b) unchanged once its kills fail, which is the
        # right answer of "no update when correct" (1 point) and of nothing else
        assert float(rows["mallory"]["total"]) <= 1
        assert "internal grader error" not in json.dumps(rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_control_trusted_code_lets_the_probe_see_everything(case):
    """Control: with --trusted-code (no isolation, as the output says) the probe does read the
    reference solutions, so the probes above would notice a leak."""
    if case["env"] != "dev":
        pytest.skip("one control run is enough")
    work = _workspace(case)
    try:
        paths = {"solutions": str(SOLUTIONS / "perceptron.py")}
        text = (HOSTILE / "probe.py").read_text().replace("@@PATHS@@", repr(paths)).replace(
            "@@PORT@@", "9").replace("@@HOSTS@@", "[]")
        # only the reading probe: unconfined, the others would write into this machine's /tmp
        text = text[:text.index("def perceptron_update")] + text[
            text.index("def perceptron_train"):text.index("def batch_perceptron_step")]
        (work / "alice").mkdir()
        (work / "alice" / "perceptron.py").write_text(text)
        proc = subprocess.run([*case["cmd"], str(work / "alice" / "perceptron.py"), "--set", "perceptron",
                               "--trusted-code", "--timeout", "5", "--out", str(work / "out")],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "WITHOUT isolation" in proc.stderr
        res = json.loads((work / "out" / "perceptron.json").read_text())
        outputs = [t["output"] for t in res["tests"] if t["exercise"] == "perceptron_train"]
        assert any('PROBE:{"solutions": "OK' in o for o in outputs), outputs
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_without_bwrap_the_grader_stops_with_instructions(case):
    work = _workspace(case)
    try:
        sub = work / "perceptron.py"
        shutil.copy(SOLUTIONS / "perceptron.py", sub)
        sub.chmod(0o644)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LINCLF_GRADE_BWRAP": "/nonexistent/bwrap"}
        cmd = case["cmd"]
        if cmd[0] == "runuser":  # runuser would drop the variable: pass it through env(1)
            cmd = [*cmd[:4], "env", f"LINCLF_GRADE_BWRAP={env['LINCLF_GRADE_BWRAP']}", *cmd[4:]]
        proc = subprocess.run([*cmd, str(sub), "--set", "perceptron", "--out", str(work / "out")],
                              capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 2
        assert "apt-get install bubblewrap" in proc.stderr and "--trusted-code" in proc.stderr
        assert not (work / "out").exists()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_internal_failure_gives_a_nonzero_exit_status(case):
    """bwrap that passes the start-up check but then fails: exit status 1, the grades marked invalid."""
    work = _workspace(case)
    try:
        counter = work / "calls"
        fake = work / "bwrap"
        real = shutil.which("bwrap") or "/usr/bin/bwrap"
        fake.write_text(f"#!/bin/sh\n[ \"$1\" = --help ] && exec {real} --help\n"
                        f"if [ -e {counter} ]; then echo 'bwrap: simulated failure' >&2; exit 1; fi\n"
                        f": > {counter}\nexec {real} \"$@\"\n")
        fake.chmod(0o755)
        if case["who"] == "user" and IS_ROOT:
            shutil.chown(fake, case["user"])
        sub = work / "perceptron.py"
        shutil.copy(SOLUTIONS / "perceptron.py", sub)
        sub.chmod(0o644)
        cmd = case["cmd"]
        if cmd[0] == "runuser":
            cmd = [*cmd[:4], "env", f"LINCLF_GRADE_BWRAP={fake}", *cmd[4:]]
        proc = subprocess.run([*cmd, str(sub), "--set", "perceptron", "--out", str(work / "out")],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "LINCLF_GRADE_BWRAP": str(fake)})
        assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
        assert "internal grader error" in proc.stderr
        row = next(csv.DictReader(open(work / "out" / "grades.csv")))
        assert "sandboxed worker did not start" in row["error"]
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.skipif(not IS_ROOT, reason="planting links as another user needs root to set up")
def test_out_folder_planted_by_another_user_is_refused(ordinary_user, tmp_path):
    """A not-yet-existing --out under a world-writable folder, pre-empted by another user with a
    symlink or with a folder full of symlinks: the grader (root) refuses and writes nothing."""
    shared = world_dir("linclf-shared-")
    try:
        shared.chmod(0o1777)
        victim = tmp_path / "victim"
        victim.mkdir()
        (victim / "grades.csv").write_text("precious\n")
        sub = tmp_path / "perceptron.py"
        shutil.copy(SOLUTIONS / "perceptron.py", sub)

        def as_user(*cmd):
            subprocess.run(["runuser", "-u", ordinary_user, "--", *cmd], check=True)

        as_user("ln", "-s", str(victim), str(shared / "out1"))
        as_user("mkdir", str(shared / "out2"))
        for name in ("grades.csv", "items.csv", ".linclf-grade-output", "perceptron.json"):
            as_user("ln", "-s", str(victim / "grades.csv"), str(shared / "out2" / name))
        for out in ("out1", "out2"):
            proc = subprocess.run([GRADE, str(sub), "--set", "perceptron", "--out", str(shared / out)],
                                  capture_output=True, text=True, timeout=120)
            assert proc.returncode == 2 and "--out" in proc.stderr, proc.stderr
        assert (victim / "grades.csv").read_text() == "precious\n"
        assert sorted(p.name for p in victim.iterdir()) == ["grades.csv"]
        # a folder the grader creates itself is fine, and private to the grading user
        proc = subprocess.run([GRADE, str(sub), "--set", "perceptron", "--out", str(shared / "out3")],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        st = (shared / "out3").lstat()
        assert st.st_uid == 0 and st.st_mode & 0o077 == 0
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_out_folder_rules(tmp_path):
    """Reuse only an empty folder or an earlier output folder; never a symlink or someone's files."""
    from linclf_grader.outdir import MARKER, OutputDir, OutputRefused

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "thesis.tex").write_text("mine")
    with pytest.raises(OutputRefused, match="not empty"):
        OutputDir(tmp_path / "notes")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputRefused, match="not a plain directory"):
        OutputDir(tmp_path / "link")
    with pytest.raises(OutputRefused, match="parent"):
        OutputDir(tmp_path / "missing" / "out")
    (tmp_path / "open").mkdir(mode=0o777)
    (tmp_path / "open").chmod(0o777)
    with pytest.raises(OutputRefused, match="writable by other users"):
        OutputDir(tmp_path / "open")
    with OutputDir(tmp_path / "out") as out:
        out.write_text("a.json", "1")
    # a link planted inside an earlier output folder is replaced, its target untouched
    (tmp_path / "out" / "a.json").unlink()
    (tmp_path / "out" / "a.json").symlink_to(tmp_path / "notes" / "thesis.tex")
    with OutputDir(tmp_path / "out") as out:
        out.write_text("a.json", "2")
        out.write_text("results.json", "3", subdir="alice")
    assert (tmp_path / "notes" / "thesis.tex").read_text() == "mine"
    assert (tmp_path / "out" / "a.json").read_text() == "2" and not (tmp_path / "out" / "a.json").is_symlink()
    assert (tmp_path / "out" / MARKER).exists()


def test_worker_view_and_masked_modules(tmp_path):
    """What the worker itself sees: no fork, unprivileged, an empty private folder, masked modules."""
    pytest.importorskip("scipy")
    from linclf_grader.sandbox import Worker

    code = '''
import os
def probe():
    out = {}
    def attempt(key, fn):
        try:
            out[key] = "OK " + str(fn())[:60]
        except BaseException as exc:
            out[key] = type(exc).__name__ + ": " + str(exc)[:80]
    attempt("fork", lambda: os.fork() or os._exit(0))
    attempt("optimize", lambda: exec("from scipy.optimize import minimize"))
    attempt("linalg", lambda: exec("from scipy.linalg import solve"))
    attempt("home", lambda: sorted(os.listdir("/root")))
    out["uid"] = os.getuid()
    out["cwd"] = os.getcwd()
    out["cwd_empty"] = os.listdir(".") == []
    out["stdin"] = os.read(0, 10).decode()
    return out
'''
    with Worker([(0, code)], timeout=20, masked_modules=("scipy.optimize",)) as w:
        w.start()
        resp = w.call("probe")
    assert resp["ok"], resp
    got = resp["value"]
    assert got["fork"] == "PermissionError: new processes are not allowed in the grader (threads are)", got
    assert got["optimize"].startswith("ImportError: scipy.optimize is not available"), got
    assert got["linalg"] == "OK None", got  # only the masked subpackage is gone
    # /root holds at most the folders on the way to the bound Python installation
    from linclf_grader.sandbox import python_trees

    on_the_way = sorted({t.split("/")[2] for t in python_trees() if t.startswith("/root/")})
    assert got["home"] == f"OK {on_the_way}" or got["home"].startswith("FileNotFoundError"), got
    assert got["cwd_empty"] and got["stdin"] == ""
    if IS_ROOT:
        assert got["uid"] >= 2_100_000_000 and w.sandbox["isolation"] == "root"




def test_threads_allowed_processes_refused_in_worker():
    """A correct answer that uses a thread pool scores as in check(); processes stay refused.

    Before the fix the worker's RLIMIT_NPROC=0 refused threads too ("can't start
    new thread"), while check() in a notebook passed the same function.
    """
    from linclf_grader.sandbox import Worker

    code = '''
import os, subprocess, threading, ctypes
from concurrent.futures import ThreadPoolExecutor

def pooled(n):
    with ThreadPoolExecutor(max_workers=8) as pool:
        return sum(pool.map(lambda i: i * i, range(n)))

def many_threads():
    done = []
    ts = [threading.Thread(target=done.append, args=(i,)) for i in range(20)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    return len(done)

def leave_thread_running():
    threading.Thread(target=lambda: threading.Event().wait()).start()
    return 1

def processes():
    out = {}
    for key, fn in [("fork", lambda: os.fork() or os._exit(0)),
                    ("popen", lambda: subprocess.run(["true"])),
                    ("system", lambda: os.system("true")),
                    ("ctypes", lambda: ctypes.CDLL(None).fork)]:
        try:
            fn()
            out[key] = "OK"
        except BaseException as exc:
            out[key] = type(exc).__name__ + ": " + str(exc)
    return out

def thread_bomb():
    started = 0
    ev = threading.Event()
    try:
        for _ in range(10_000):
            threading.Thread(target=ev.wait, daemon=True).start()
            started += 1
    except RuntimeError:
        pass
    ev.set()
    return started
'''
    with Worker([(0, code)], timeout=20) as w:
        w.start()
        assert w.call("pooled", [100])["value"] == sum(i * i for i in range(100))
        assert w.call("many_threads")["value"] == 20
        assert w.call("leave_thread_running")["value"] == 1
        got = w.call("processes")["value"]
        bomb = w.call("thread_bomb")["value"]
    refused = "PermissionError: new processes are not allowed in the grader (threads are)"
    assert got == {k: refused for k in ("fork", "popen", "system", "ctypes")}, got
    assert 0 < bomb < 100, bomb  # bounded by the worker's task limit
    # in-process check() runs the same function in the notebook's kernel
    ns = {}
    exec(code, ns)
    assert ns["pooled"](100) == sum(i * i for i in range(100))


def test_older_bubblewrap_gets_a_command_it_knows(monkeypatch):
    """Ubuntu 20.04/22.04 ship bwrap 0.4/0.6, without --clearenv, --perms or --size."""
    from linclf_grader import bwrap as sandbox

    monkeypatch.setitem(sandbox._help_cache, sandbox.bwrap_path(), "usage: bwrap --ro-bind --tmpfs ...")
    for mode in ("user", "root", "root-setpriv-first"):
        cmd = sandbox.bwrap_command(["python3"], mode=mode)
        assert not {"--clearenv", "--perms", "--size"} & set(cmd[:cmd.index("--chdir")]), mode
        assert "--unshare-pid" in cmd or "--unshare-all" in cmd
        assert cmd[-1] == "python3" and "1777" not in cmd
