"""A course end to end: collect from Canvas, Moodle or a folder, grade, return, export.

The commands are the ones ``appendices/grading.md`` shows: the test reads them from
the page's code blocks and runs them on sample archives built to each LMS's naming
convention (``tests/lms_samples.py``).
"""

import csv
import hashlib
import html
import json
import os
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import lms_samples as S
from linclf_grader import get_set
from linclf_grader.cli import main
from linclf_grader.feedback import feedback_html
from linclf_grader.grade import grade_submission
from linclf_grader.lms import collect_folder
from linclf_grader.lms.moodle import collect_moodle, parse_moodle_time, read_worksheet
from linclf_grader.similarity import fingerprint_class, similar_pairs, variant_mismatches

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "appendices" / "grading.md"
EXE = Path(sys.executable).with_name("linclf-grade")
SIS = {k: v[3] for k, v in S.PEOPLE.items()}
EMAIL = {k: v[5] for k, v in S.PEOPLE.items()}
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course_lms")]  # one fixture run


def guide_commands():
    """``{kind: argv}`` of the guide's bash blocks that collect a class or write material."""
    text = GUIDE.read_text()
    out = {}
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for cmd in block.replace("\\\n", " ").splitlines():
            argv = shlex.split(cmd, comments=True)
            if "discriminants" in argv:
                continue   # the copy-signal sample: tests/test_task_variants.py
            for kind in ("canvas", "moodle", "folder", "materials"):
                if argv and argv[0] == "linclf-grade" and f"--{kind}" in argv:
                    assert kind not in out, f"two guide commands use --{kind}"
                    out[kind] = argv
    return out


def run(argv, cwd):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([str(EXE), *argv[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Run every guide command once, each in a folder holding its sample inputs."""
    cmds = guide_commands()
    assert set(cmds) == {"canvas", "moodle", "folder", "materials"}
    done = {}
    for kind, argv in cmds.items():
        d = tmp_path_factory.mktemp(kind)
        (d / "exercises").symlink_to(ROOT / "exercises")
        if kind == "canvas":
            S.write_canvas(d)
            S.write_course_files(d, SIS)
        elif kind == "moodle":
            S.write_moodle(d)
            S.write_course_files(d, EMAIL)
        elif kind in ("folder", "materials"):
            S.write_folder(d)
        done[kind] = (d, run(argv, d), argv)
    return done


def out_dir(course, kind):
    d, _, argv = course[kind]
    return d / argv[argv.index("--out") + 1]


def grades(folder):
    return {r["student"]: r for r in csv.DictReader(open(folder / "grades.csv"))}


# --------------------------------------------------------------------------
# Canvas
# --------------------------------------------------------------------------
def test_canvas_collection_maps_resubmits_and_reports(course):
    out = out_dir(course, "canvas")
    report = (out / "collection.txt").read_text()
    assert "collected 5 submission(s) from Canvas" in report
    # Dee's first attempt is only in the earlier download; the later attempt replaces it
    assert re.search(r"resubmission: s1004: canvas-submissions\.zip:hopperdee_LATE_1004_\d+_"
                     r"perceptron-1\.py replaces canvas-earlier\.zip:hopperdee_1004_\d+_perceptron"
                     r"\.py", report)
    # Eve's attempt holds a notebook and a scratch file: the notebook is graded
    assert re.search(r"same attempt, not graded: s1005: canvas-submissions\.zip:noethereve_1005_"
                     r"\d+_scratch\.py \(graded: canvas-submissions\.zip:noethereve_1005_\d+_"
                     r"perceptron\.ipynb", report)
    assert re.search(r"NOT MAPPED: .*turingal_1099_\d+_perceptron\.py: Canvas user 1099 is not in",
                     report)
    assert "NOT MAPPED: canvas-submissions.zip:notes.txt" in report
    assert "Canvas marked late: s1003, s1004" in report
    # the later upload is the one graded (the reference, not the blank template)
    dee = json.loads((out / "s1004.json").read_text())
    assert dee["collected_from"].endswith("_perceptron-1.py")
    assert dee["sha256"] == hashlib.sha256(S.reference_code().encode()).hexdigest()


def test_canvas_scores_penalty_extension_override_and_summary(course):
    out = out_dir(course, "canvas")
    g = grades(out)
    full = S.full_points()  # public + the set's hidden tests
    # Bob's wrong update is overridden to 2 points for the whole exercise
    bob = full - S.full_points("perceptron_update") + 2
    assert {s: float(r["total"]) for s, r in g.items()} == {
        "s1001": full, "s1002": bob, "s1003": full, "s1004": round(full * 0.9, 6),
        "s1005": full}
    assert g["s1004"]["late_penalty_percent"] == "10" and g["s1003"]["late_penalty_percent"] == "0"
    assert g["s1002"]["overridden"] == "perceptron_update"
    stdout = course["canvas"][1].stdout
    # the terminal shows final scores, after the override and the penalty
    assert f"s1004.py: {full * 0.9:g}/{full:g}  (late -10% from {full:g})" in stdout
    assert f"s1002.py: {bob:g}/{full:g}  (override perceptron_update 1->2)" in stdout


def test_canvas_gradebook_csv_for_import(course):
    out = out_dir(course, "canvas")
    rows = list(csv.reader(open(out / "canvas_gradebook.csv")))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Perceptron (777)"]
    assert rows[1][0] == "Points Possible" and rows[1][-1] == "42"
    by_id = {r[1]: r for r in rows[2:]}
    assert set(by_id) == {"1001", "1002", "1003", "1004", "1005"}  # never Al (not enrolled)
    full = S.full_points()
    assert float(by_id["1001"][-1]) == 42 and by_id["1001"][0] == "Lovelace, Ada"
    assert float(by_id["1004"][-1]) == pytest.approx(42 * 0.9)
    assert float(by_id["1002"][-1]) == pytest.approx(42 * (full - S.full_points("perceptron_update") + 2) / full)


def test_canvas_feedback_zip_names_map_back(course):
    out = out_dir(course, "canvas")
    names = zipfile.ZipFile(out / "canvas_feedback.zip").namelist()
    assert len(names) == 5
    graded = {json.loads((out / f"{s}.json").read_text())["student"]: s for s in
              ("s1001", "s1002", "s1003", "s1004", "s1005")}
    report = (out / "collection.txt").read_text()
    for name in names:
        # Canvas's re-upload reads the first two all-digit parts: user id, attachment id
        user, att = [p for p in name.split("_") if p.isdigit()][:2]
        sid = {v[2]: v[3] for v in S.PEOPLE.values()}[int(user)]
        assert sid in graded
        assert name.endswith("_feedback.html")
    dee = [n for n in names if "_1004_" in n][0]
    dee_att = dee.split("_")[2]
    assert f"_1004_{dee_att}_perceptron-1.py replaces" in report   # the graded upload's id


def test_feedback_html_is_complete_accessible_and_private(course):
    out = out_dir(course, "canvas")
    pages = {p.stem: p.read_text() for p in (out / "feedback").glob("*.html")}
    assert set(pages) == {"s1001", "s1002", "s1003", "s1004", "s1005"}
    bob = pages["s1002"]
    assert "Failed:" in bob and "w_new: expected" in bob
    assert "the statement&#x27;s sign convention was ambiguous" in bob   # the override's reason
    assert re.search(r"Hidden tests passed</th>", bob)
    assert "Hidden tests:" not in pages["s1001"]   # nothing failed: no detail section
    assert "Late penalty: 10 %" in pages["s1004"]
    assert "due 2026-03-03T23:59:00+00:00, your extended due date" in pages["s1003"]
    assert "Canvas did not mark this submission late: no penalty" in pages["s1001"]
    for sid, page in pages.items():
        assert page.startswith("<!DOCTYPE html>") and '<html lang="en">' in page
        assert "<title>" in page and "<caption>" in page and 'scope="col"' in page
        assert "<script" not in page and "src=" not in page and "http" not in page
        assert "def perceptron_update" not in page          # no code, the reference's or anyone's
        assert not [o for o in SIS.values() if o != sid and o in page]   # no classmate


def test_canvas_similarity_finds_the_renamed_copy_not_the_independent_work(course):
    out = out_dir(course, "canvas")
    pairs = {(r["a"], r["b"]): r for r in csv.DictReader(open(out / "similarity.csv"))}
    assert ("s1001", "s1005") in pairs                      # Eve renamed Ada's variables
    assert float(pairs[("s1001", "s1005")]["similarity_b"]) >= 0.8
    assert pairs[("s1001", "s1005")]["lines_a"] and pairs[("s1001", "s1005")]["lines_b"]
    assert not [p for p in pairs if "s1003" in p]           # Cy wrote his own
    html = (out / "similarity.html").read_text()
    assert "s1001 and s1005" in html and "shared regions" in html


# --------------------------------------------------------------------------
# Moodle
# --------------------------------------------------------------------------
def test_moodle_collection_and_late_policy_from_the_worksheet(course):
    out = out_dir(course, "moodle")
    report = (out / "collection.txt").read_text()
    assert "collected 5 submission(s) from Moodle" in report
    assert "same attempt, not graded: dee@uni.example: moodle-submissions.zip:Dee Hopper_504_" \
           "assignsubmission_file_/perceptron.py (graded: moodle-submissions.zip:Dee Hopper_504_" \
           "assignsubmission_file_/perceptron_v2.py" in report
    assert "Al Turing_599_assignsubmission_file_/perceptron.py: Participant 599 is not in" in report
    assert "onlinetext.html: ada@uni.example: not a .ipynb or .py file" in report
    g = grades(out)
    full = S.full_points()
    assert g["dee@uni.example"]["late_penalty_percent"] == "10"   # the worksheet's time
    assert g["cy@uni.example"]["late_penalty_percent"] == "0"     # late, but an extension
    assert float(g["eve@uni.example"]["total"]) == full
    pairs = {(r["a"], r["b"]) for r in csv.DictReader(open(out / "similarity.csv"))}
    assert ("ada@uni.example", "eve@uni.example") in pairs   # the renamed copy, as a notebook
    assert not [p for p in pairs if "cy@uni.example" in p]
    feedback = (out / "feedback" / "dee_uni.example.html").read_text()   # a file-name-safe label
    assert "Late penalty: 10 %" in feedback and "submitted 2026-03-02T12:00:00+00:00" in feedback


def test_moodle_worksheet_for_upload(course):
    out = out_dir(course, "moodle")
    rows = {r["Identifier"]: r for r in csv.DictReader(open(out / "moodle_grades.csv"))}
    assert set(rows) == {f"Participant {n}" for n in (501, 502, 503, 504, 505)}
    full = S.full_points()
    assert rows["Participant 501"]["Grade"] == "100.00"
    assert rows["Participant 504"]["Grade"] == "90.00"
    assert float(rows["Participant 502"]["Grade"]) == pytest.approx(100 * (full - S.full_points("perceptron_update") + 2) / full, abs=0.01)
    # the import applies a row only if its "Last modified (grade)" reads as a time
    assert parse_moodle_time(rows["Participant 501"]["Last modified (grade)"], None, "x")
    assert rows["Participant 504"]["Feedback comments"].startswith("The perceptron: ")
    assert rows["Participant 501"]["Email address"] == "ada@uni.example"


def test_guide_says_grades_csv_exercise_columns_are_before_the_late_penalty(course):
    """Instructor re-check s9b item 4: Dee's columns summed to the maximum against a total
    10 % lower, and the guide did not say which the columns are."""
    g = grades(out_dir(course, "moodle"))["dee@uni.example"]
    names = list(get_set("perceptron").exercises)
    assert sum(float(g[n]) for n in names) == pytest.approx(S.full_points())
    assert float(g["total"]) == pytest.approx(0.9 * S.full_points())
    text = " ".join(GUIDE.read_text().split())
    assert "The per-exercise columns are the points each exercise earned (after overrides) " \
           "**before** the late penalty; `total` is the score after it" in text
    assert "*Last modified (grade)* matters to that upload" in text


def test_moodle_worksheet_keeps_the_downloaded_grade_time(tmp_path):
    """Instructor re-check s9b item 4: every row got "now" as Last modified (grade), which
    defeats Moodle's check against overwriting a grade changed in Moodle after the download.
    A row with a downloaded time keeps it; a row without one ('-') gets the grading time."""
    import datetime as dt

    from linclf_grader.lms.moodle import write_moodle_worksheet

    S.write_moodle(tmp_path)
    ws = tmp_path / "worksheet.csv"
    graded_in_moodle = "Sunday, 1 March 2026, 1:00 PM"
    ws.write_text(ws.read_text().replace('bob@uni.example,Submitted for grading,,100.00,Yes,'
                                         '"Sunday, 1 March 2026, 12:00 PM",-,',
                                         'bob@uni.example,Submitted for grading,40.00,100.00,Yes,'
                                         f'"Sunday, 1 March 2026, 12:00 PM","{graded_in_moodle}",'))
    col = collect_moodle([tmp_path / "moodle-submissions.zip"], ws, tmp_path / "c",
                         set_name="perceptron")
    now = dt.datetime(2026, 3, 5, 9, 30, tzinfo=dt.timezone.utc)
    out = write_moodle_worksheet(tmp_path / "up.csv", col, {"ada@uni.example": 10.0,
                                 "bob@uni.example": 5.0}, 10.0, {}, now)
    rows = {r["Email address"]: r for r in csv.DictReader(open(out))}
    assert rows["bob@uni.example"]["Last modified (grade)"] == graded_in_moodle
    assert rows["bob@uni.example"]["Grade"] == "50.00"
    assert parse_moodle_time(rows["ada@uni.example"]["Last modified (grade)"],
                             dt.timezone.utc, "x") == now


def test_moodle_feedback_zip_folders_map_back(course):
    out = out_dir(course, "moodle")
    names = zipfile.ZipFile(out / "moodle_feedback.zip").namelist()
    assert len(names) == 5
    for name in names:
        # Moodle's importer: explode('_', part, 5) of a path element, [1] is the participant
        info = name.split("/")[0].split("_", 4)
        assert info[1].isdigit() and info[2:4] == ["assignfeedback", "file"]
        assert name.endswith("/feedback.html")
    assert "Dee Hopper_504_assignfeedback_file_/feedback.html" in names


# --------------------------------------------------------------------------
# a plain folder, material for a roster
# --------------------------------------------------------------------------
def test_folder_path_grades_and_writes_markdown_feedback(course):
    out = out_dir(course, "folder")
    g = grades(out)
    assert set(g) == {"s1001", "s1002"}
    md = (out / "feedback" / "s1002.md").read_text()
    assert md.startswith("# Feedback: The perceptron") and "| Exercise | Points |" in md


def test_materials_fill_in_each_students_id(course):
    d, proc, argv = course["materials"]
    out = d / argv[argv.index("--out") + 1]
    for sid in ("s1001", "s1002"):
        nbs = sorted(p.stem for p in (out / sid).glob("*.ipynb"))
        assert nbs == sorted(get_set(n).name for n in
                             ("discriminants", "fisher", "perceptron", "mse", "logistic",
                              "softmax", "margin", "duality", "kernels", "smo", "losses"))
        for name in nbs:
            nb = json.loads((out / sid / f"{name}.ipynb").read_text())
            code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
            first = next(i for i, c in enumerate(code) if f'student("{sid}")' in c)
            assert not any('student("YOUR-ID")' in c.split("\n")[0] for c in code)
            assert first <= 2   # at the top, before the first exercise
        template = (out / sid / "perceptron.py").read_text()
        assert f"Your data (student {sid})" in template
    a = (out / "s1001" / "perceptron.py").read_text()
    b = (out / "s1002" / "perceptron.py").read_text()
    assert a != b   # each student's own data


# --------------------------------------------------------------------------
# errors, ambiguity and regrades
# --------------------------------------------------------------------------
def test_unknown_ids_in_extensions_overrides_times_are_errors(tmp_path, capsys):
    S.write_folder(tmp_path)
    base = ["--folder", str(tmp_path / "submissions"), "--set", "perceptron",
            "--out", str(tmp_path / "o"), "--due", S.DUE]
    for option, text in (("--extensions", "student,due\ns1001,2026-03-05T00:00\ns9999,2026-03-05T00:00\n"),
                         ("--times", "student,submitted\ns1001,2026-03-05T00:00\ns9999,2026-03-05T00:00\n"),
                         ("--overrides", "student,exercise,points\ns1001,perceptron_update,1\n"
                                         "s9999,perceptron_update,1\n")):
        f = tmp_path / "x.csv"
        f.write_text(text)
        assert main([*base, option, str(f)]) == 2
        # instructor trial 8: the line and the column, as for every other problem in the file
        assert f"{f}, line 3, column student: unknown student id 's9999'" in capsys.readouterr().err


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_csv_and_option_errors_stop_before_anything_is_unpacked(tmp_path, capsys, lms):
    """Instructor re-check s9b item 1: a bad overrides file, or --extensions without --due,
    was reported only after the LMS zips had been unpacked into the output folder."""
    if lms == "canvas":
        S.write_canvas(tmp_path)
        base = ["--canvas", str(tmp_path / "canvas-submissions.zip"),
                "--canvas-gradebook", str(tmp_path / "gradebook.csv")]
        known = SIS["bob"]
    else:
        S.write_moodle(tmp_path)
        base = ["--moodle", str(tmp_path / "moodle-submissions.zip"),
                "--moodle-worksheet", str(tmp_path / "worksheet.csv")]
        known = EMAIL["bob"]
    base += ["--set", "perceptron", "--trusted-code"]
    bad = tmp_path / "bad.csv"
    bad.write_text(f"student,exercise,points\n{known},perceptron_update,1\n"
                   "s9999,perceptron_update,1\n")
    ext = tmp_path / "ext.csv"
    ext.write_text(f"student,due\n{known},2026-03-05T00:00+00:00\n")
    for i, (extra, msg) in enumerate((
            (["--overrides", str(bad)], f"{bad}, line 3, column student: unknown student id"),
            (["--extensions", str(ext)], "--times and --extensions need --due"),
            (["--due", S.DUE, "--extensions", str(bad)], f"{bad}")), 1):
        out = tmp_path / f"o{i}"
        assert main([*base, *extra, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert msg in err and "collected" not in err
        assert not (out / "collected").exists() and not out.exists()


def test_roster_bare_name_shared_by_two_submissions_is_an_error(tmp_path, capsys):
    for who in ("alice", "bob"):
        (tmp_path / who).mkdir()
        (tmp_path / who / "perceptron.py").write_text(S.reference_code())
    (tmp_path / "roster.csv").write_text("file,student\nperceptron.py,s1\n")
    assert main([str(tmp_path / "alice" / "perceptron.py"), str(tmp_path / "bob" / "perceptron.py"),
                 "--set", "perceptron", "--roster", str(tmp_path / "roster.csv"),
                 "--out", str(tmp_path / "o")]) == 2
    assert "matches 2 submissions; name each by its path" in capsys.readouterr().err


def test_ambiguous_uploads_are_reported_not_guessed(tmp_path):
    sub = tmp_path / "f"
    sub.mkdir()
    (sub / "s1.py").write_text("x = 1\n")
    (sub / "s1.ipynb").write_text("{}")
    (sub / "s2.py").write_text("x = 2\n")
    (sub / "readme.pdf").write_text("")
    col = collect_folder(sub)
    assert [s.student for s in col.submissions] == ["s2"]
    assert col.ambiguous[0][0] == "s1" and ("readme.pdf", "not a .ipynb or .py file") in col.unmapped
    # Moodle: two files of one participant with the same time in the zip
    S.write_moodle(tmp_path)
    with zipfile.ZipFile(tmp_path / "two.zip", "w") as z:
        for n in ("a.py", "b.py"):
            z.writestr(zipfile.ZipInfo(f"Bob Babbage_502_assignsubmission_file_/{n}",
                                       (2026, 3, 1, 12, 0, 0)), "x = 1\n")
    col = collect_moodle([tmp_path / "two.zip"], tmp_path / "worksheet.csv", tmp_path / "c")
    assert col.submissions == [] and col.ambiguous[0][0] == "bob@uni.example"
    assert any("AMBIGUOUS, not graded: bob@uni.example" in line for line in col.report())


def test_canvas_files_of_one_attempt_are_not_resubmissions(tmp_path):
    """A Canvas zip holds each student's current attempt with all its files (content_zipper.rb):
    the notebook named after the set is graded whatever the attachment ids, a tie is reported,
    and the same attempt in two downloads is one attempt."""
    from linclf_grader.lms.canvas import collect_canvas

    S.write_canvas(tmp_path)
    uploads = {1001: [(70009, "perceptron.py"), (70001, "perceptron.ipynb"), (70005, "notes.py")],
               1002: [(70002, "a.py"), (70003, "b.py")],
               1003: [(70004, "helpers.py"), (70006, "perceptron-1.py")]}
    with zipfile.ZipFile(tmp_path / "one.zip", "w") as z:
        for uid, files in uploads.items():
            for att, fname in files:
                body = S.notebook("x = 1") if fname.endswith(".ipynb") else "x = 1\n"
                z.writestr(f"someone_{uid}_{att}_{fname}", body)
    (tmp_path / "again.zip").write_bytes((tmp_path / "one.zip").read_bytes())  # a second download
    col = collect_canvas([tmp_path / "one.zip", tmp_path / "again.zip"], tmp_path / "gradebook.csv",
                         tmp_path / "c", set_name="perceptron")
    subs = col.by_student()
    assert subs["s1001"].source.endswith("_70001_perceptron.ipynb")   # not the larger id 70009
    assert subs["s1001"].superseded == [] and len(subs["s1001"].companions) == 2
    assert subs["s1003"].source.endswith("_70006_perceptron-1.py")
    assert "s1002" not in subs and col.ambiguous[0][0] == "s1002"
    report = "\n".join(col.report())
    assert "resubmission" not in report and "AMBIGUOUS, not graded: s1002" in report
    assert re.search(r"same attempt, not graded: s1001: one\.zip:someone_1001_70009_perceptron\.py",
                     report)
    # instructor trial 8: the second download's identical files are one summary line, not
    # a "same attempt" line per student that buries the real companion files
    assert "again.zip" not in report
    assert "5 file(s) of 2 student(s) were in more than one download (same attempt): counted once" \
        in report


def test_late_policy_is_recomputed_on_every_regrade(tmp_path):
    S.write_folder(tmp_path)
    (tmp_path / "t.csv").write_text("student,submitted\ns1001,2026-03-03T12:00+00:00\n")
    common = ["--folder", str(tmp_path / "submissions"), "--set", "perceptron", "--due", S.DUE,
              "--times", str(tmp_path / "t.csv"), "--out", str(tmp_path / "o"), "--quiet"]
    assert main(common) == 0
    assert grades(tmp_path / "o")["s1001"]["late_penalty_percent"] == "20"
    (tmp_path / "e.csv").write_text("student,due\ns1001,2026-03-04T00:00+00:00\n")
    assert main([*common, "--extensions", str(tmp_path / "e.csv")]) == 0
    assert grades(tmp_path / "o")["s1001"]["late_penalty_percent"] == "0"


def test_moodle_times_and_ids(tmp_path):
    import datetime as dt
    from zoneinfo import ZoneInfo

    t = parse_moodle_time("Monday, 2 March 2026, 12:00 PM", dt.timezone.utc, "x")
    assert t == dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.timezone.utc)
    assert parse_moodle_time("02 March 2026, 12:00 PM", dt.timezone.utc, "x") == t
    paris = parse_moodle_time("Monday, 2 March 2026, 1:00 PM", ZoneInfo("Europe/Paris"), "x")
    assert paris == t   # 13:00 in Paris in March is 12:00 UTC
    assert parse_moodle_time("-", dt.timezone.utc, "x") is None
    with pytest.raises(ValueError, match="not a time Moodle writes"):
        parse_moodle_time("next Tuesday", dt.timezone.utc, "x")
    S.write_moodle(tmp_path)
    roster, _ = read_worksheet(tmp_path / "worksheet.csv")
    assert roster["dee@uni.example"].lms_user == "504"
    with pytest.raises(ValueError, match="no column 'ID number'"):
        read_worksheet(tmp_path / "worksheet.csv", id_column="ID number")


def test_moodle_full_names_with_underscores_are_mapped(tmp_path):
    """Moodle writes a full name's underscores as spaces in the folder names (mod/assign's
    download prefix); an archive that keeps them is mapped too, by the participant number, and
    the feedback folder never has an underscore in the name (Moodle's import reads the id as
    the second _-separated part)."""
    from linclf_grader.lms.moodle import moodle_feedback_dir

    S.write_moodle(tmp_path)
    sheet = tmp_path / "worksheet.csv"
    sheet.write_text(sheet.read_text()
                     + 'Participant 506,Mary_Jane Doe_2,mj@uni.example,Submitted for grading,,'
                       '100.00,Yes,"Sunday, 1 March 2026, 9:00 AM",-,\n'
                     + 'Participant 507,Agent_007,agent@uni.example,Submitted for grading,,'
                       '100.00,Yes,"Sunday, 1 March 2026, 9:00 AM",-,\n')
    with zipfile.ZipFile(tmp_path / "names.zip", "w") as z:
        for folder in ("Mary Jane Doe 2_506", "Agent_007_507"):   # as Moodle writes; as kept
            z.writestr(zipfile.ZipInfo(f"{folder}_assignsubmission_file_/perceptron.py",
                                       (2026, 3, 1, 9, 0, 0)), "x = 1\n")
    col = collect_moodle([tmp_path / "names.zip"], sheet, tmp_path / "c")
    subs = col.by_student()
    assert set(subs) == {"mj@uni.example", "agent@uni.example"} and col.unmapped == []
    assert moodle_feedback_dir(subs["agent@uni.example"]) == "Agent 007_507_assignfeedback_file_"
    assert moodle_feedback_dir(subs["mj@uni.example"]).split("_")[1] == "506"


def test_moodle_worksheet_in_another_language_still_grades(tmp_path):
    """A German site writes 'Montag, 2. März 2026, 11:30': the time is unknown, not fatal."""
    S.write_moodle(tmp_path)
    sheet = tmp_path / "worksheet.csv"
    rows = list(csv.DictReader(open(sheet, newline="", encoding="utf-8-sig")))
    for row in rows:
        if row["Last modified (submission)"] not in ("", "-"):
            row["Last modified (submission)"] = "Montag, 2. März 2026, 11:30"
    with open(sheet, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    roster, _ = read_worksheet(sheet)
    unread = [e for e in roster.values() if e.time_note]
    assert unread and all(e.submitted is None for e in unread)
    assert "not a time Moodle writes" in unread[0].time_note


def test_identifier_normalisation_is_what_catches_the_renamed_copy(tmp_path):
    """Without the tokenizer's normalisation the renamed copy shares much less."""
    from copydetect import CodeFingerprint, compare_files

    exset = get_set("perceptron")
    a, e = tmp_path / "ada.py", tmp_path / "eve.py"
    a.write_text(S.reference_code())
    e.write_text(S.renamed(S.reference_code()))
    pairs = similar_pairs(fingerprint_class({"ada": a, "eve": e}, exset), threshold=0.8)
    assert [(p["a"], p["b"]) for p in pairs] == [("ada", "eve")]
    raw = [CodeFingerprint(str(p), 25, 6, filter=False) for p in (a, e)]
    _, (sa, _), _ = compare_files(*raw)
    # copydetect's raw fingerprints hash with Python's salted hash(): the raw share of this
    # pair moves between about 0.78 and 0.81 from one process to the next
    assert pairs[0]["similarity_a"] >= 0.99 and pairs[0]["similarity_a"] > sa + 0.1


def test_a_pasted_classmate_answer_fails_the_own_data_test(tmp_path):
    exset = get_set("perceptron")
    theirs = exset.variant_data("perceptron_experiment", "s1001")
    ns = {}
    exec(S.reference_code(), ns)   # trusted: computes Ada's true answer for the paste
    n, bound, claims = ns["perceptron_experiment"](theirs["X"], theirs["y"])
    code = S.reference_code() + (
        "\n\ndef perceptron_experiment(X, y):\n"
        "    if len(X) == 3:\n"
        "        w, b, k = perceptron_train(X, y, eta=1.0, max_epochs=10_000)\n"
        f"        return k, novikoff_bound(X, y, w, b), {claims!r}\n"
        f"    return {n}, {bound!r}, {claims!r}\n")
    sub = tmp_path / "s1005.py"
    sub.write_text(code)
    res = grade_submission(sub, "perceptron", student="s1005")
    assert variant_mismatches([res], exset) == {"s1005": ["perceptron_experiment"]}
    own = [t for t in res["tests"] if t["name"] == "perceptron_experiment: experiment on your own data"]
    assert own[0]["status"] == "failed" and own[0]["output"]
    page = feedback_html(res, exset)   # the expected values for Eve's data would be her answer
    assert "failed on your own data" in page and html.escape(own[0]["output"]) not in page
    ok = grade_submission(sub, "perceptron", student="s1001")
    assert variant_mismatches([ok], exset) == {}


def test_same_file_names_keep_one_feedback_file_each(tmp_path, capsys):
    for who in ("alice", "bob"):
        (tmp_path / who).mkdir()
    (tmp_path / "alice" / "perceptron.py").write_text(S.reference_code())
    (tmp_path / "bob" / "perceptron.py").write_text(S.wrong_code())
    subs = [str(tmp_path / w / "perceptron.py") for w in ("alice", "bob")]
    assert main([*subs, "--set", "perceptron", "--out", str(tmp_path / "o"), "--quiet"]) == 0
    pages = sorted(p.name for p in (tmp_path / "o" / "feedback").iterdir())
    assert pages == ["alice__perceptron.html", "bob__perceptron.html"]
    assert "Failed:" in (tmp_path / "o" / "feedback" / "bob__perceptron.html").read_text()
    assert "Failed:" not in (tmp_path / "o" / "feedback" / "alice__perceptron.html").read_text()
    assert main([*subs, "--set", "perceptron", "--out", str(tmp_path / "o"),
                 "--similarity", "1.5"]) == 2
    assert "--similarity 1.5: a fraction in (0, 1]" in capsys.readouterr().err


def test_materials_roster_can_be_the_lms_export(tmp_path):
    from linclf_grader.materials import read_student_list

    S.write_canvas(tmp_path)
    S.write_moodle(tmp_path)
    assert read_student_list(tmp_path / "gradebook.csv") == ["s1001", "s1002", "s1003", "s1004",
                                                             "s1005"]
    assert read_student_list(tmp_path / "worksheet.csv")[0] == "ada@uni.example"
    assert read_student_list(tmp_path / "gradebook.csv", "SIS Login ID")[:2] == ["ada", "bob"]
    (tmp_path / "bad.csv").write_text("name\nada\n")
    with pytest.raises(ValueError, match="must have the column student"):
        read_student_list(tmp_path / "bad.csv")


def test_feedback_explains_a_skipped_cell_and_hidden_tests(tmp_path):
    from linclf_grader.feedback import feedback_markdown

    sub = tmp_path / "s1.py"
    sub.write_text(S.reference_code().replace("def perceptron_update", "# %%\ndef perceptron_update")
                   + "\n# %%\nprint(undefined_name)\n")
    res = grade_submission(sub, "perceptron", private_tests=ROOT / "exercises" / "solutions")
    assert res["cell_errors"], res
    md = feedback_markdown(res, get_set("perceptron"))
    assert "failed when your notebook was run and was skipped" in md and "undefined_name" in md
    hidden = [t for t in res["tests"] if t["hidden"]]
    assert any("hidden many epochs" in t["name"] for t in hidden)
    assert re.search(r"\| 1 of 1 \|", md)        # the hidden test of an exercise, counted
    assert "hidden many epochs" not in md          # but never named or shown


def test_similarity_without_copydetect_stops_before_grading(tmp_path, capsys, monkeypatch):
    """Instructor trial 1: the check came after grading the class and writing its outputs."""
    monkeypatch.setitem(sys.modules, "copydetect", None)   # import copydetect -> ImportError
    sub = tmp_path / "s1.py"
    sub.write_text(S.reference_code())
    assert main([str(sub), "--set", "perceptron", "--out", str(tmp_path / "o"),
                 "--similarity", "0.8"]) == 2
    err = capsys.readouterr().err
    assert "copydetect" in err and "pip install -e .[grading]" in err and "scripts/setup.sh" in err
    assert not (tmp_path / "o").exists()   # nothing graded, nothing written


def test_setup_installs_what_the_guide_needs():
    """scripts/setup.sh installs requirements/lock.txt: every package of the grading extra
    (copydetect for --similarity, sympy) must be pinned there."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lock = {re.split(r"[=<>\[ ]", line, maxsplit=1)[0].lower().replace("_", "-")
            for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")}
    for req in project["optional-dependencies"]["grading"]:
        name = re.split(r"[=<>\[ ]", req, maxsplit=1)[0].lower().replace("_", "-")
        assert name in lock, f"{name} (grading extra) is not installed by scripts/setup.sh"
    assert "requirements/lock.txt" in (ROOT / "scripts" / "setup.sh").read_text()


def test_moodle_a_file_kept_into_the_next_attempt_is_reported_once(tmp_path):
    """Instructor re-check s9b item 3: Dee's perceptron.py was in the earlier download and,
    unchanged, beside her perceptron_v2.py in the current one. It was reported both as
    "replaced by" v2 and as "same attempt, not graded", and not counted as in both downloads."""
    S.write_moodle(tmp_path)
    with zipfile.ZipFile(tmp_path / "moodle-submissions.zip") as cur, \
            zipfile.ZipFile(tmp_path / "earlier.zip", "w") as z:
        for info in cur.infolist():
            if info.filename.startswith(("Ada Lovelace_501_assignsubmission_file_",
                                         "Dee Hopper_504_assignsubmission_file_/perceptron.py")):
                z.writestr(info, cur.read(info))
    col = collect_moodle([tmp_path / "earlier.zip", tmp_path / "moodle-submissions.zip"],
                         tmp_path / "worksheet.csv", tmp_path / "c", set_name="perceptron")
    dee = col.by_student()["dee@uni.example"]
    assert dee.source.endswith("/perceptron_v2.py") and dee.superseded == []
    report = "\n".join(col.report())
    assert [line for line in report.splitlines() if "/perceptron.py" in line and "Dee" in line] \
        == ["  same attempt, not graded: dee@uni.example: moodle-submissions.zip:Dee Hopper_504_"
            "assignsubmission_file_/perceptron.py (graded: moodle-submissions.zip:Dee Hopper_504_"
            "assignsubmission_file_/perceptron_v2.py, the notebook or file named after the set, "
            "latest version)"]
    assert "resubmission" not in report
    n_ada = sum(1 for i in zipfile.ZipFile(tmp_path / "earlier.zip").infolist() if "Ada" in i.filename)
    assert f"{n_ada + 1} file(s) of 2 student(s) were in more than one download" in report


def test_moodle_files_of_one_attempt_are_chosen_as_on_canvas(tmp_path):
    """Instructor trial 2: a participant's folder is one attempt. The notebook named after the
    set is graded whatever the zip times say (a newer scratch file used to be graded, and
    equal times left the student ungraded); the latest named version wins; the same attempt
    in two downloads is one attempt."""
    S.write_moodle(tmp_path)
    folder = "{}_{}_assignsubmission_file_/{}"
    people = {"Ada Lovelace": 501, "Bob Babbage": 502, "Dee Hopper": 504, "Eve Moriarty": 505}
    uploads = {"Ada Lovelace": [("perceptron.ipynb", (2026, 3, 1, 10, 0, 0)),
                                ("scratch.py", (2026, 3, 1, 10, 1, 0))],
               "Bob Babbage": [("Untitled0.ipynb", (2026, 3, 1, 10, 0, 0)),
                               ("perceptron.ipynb", (2026, 3, 1, 10, 0, 0))],
               "Dee Hopper": [("perceptron.py", (2026, 3, 1, 9, 0, 0)),
                              ("perceptron_v2.py", (2026, 3, 2, 12, 0, 0))],
               "Eve Moriarty": [("a.py", (2026, 3, 1, 10, 0, 0)), ("b.py", (2026, 3, 1, 9, 0, 0))]}
    for zname in ("one.zip", "again.zip"):
        with zipfile.ZipFile(tmp_path / zname, "w") as z:
            for full, files in uploads.items():
                for fname, when in files:
                    z.writestr(zipfile.ZipInfo(folder.format(full, people[full], fname), when),
                               f"# {fname}\n")
    col = collect_moodle([tmp_path / "one.zip", tmp_path / "again.zip"], tmp_path / "worksheet.csv",
                         tmp_path / "c", set_name="perceptron")
    graded = {s.student: s.source.rsplit("/", 1)[1] for s in col.submissions}
    assert graded == {"ada@uni.example": "perceptron.ipynb", "bob@uni.example": "perceptron.ipynb",
                      "dee@uni.example": "perceptron_v2.py"}
    assert [a[0] for a in col.ambiguous] == ["eve@uni.example"]   # neither is named after the set
    subs = col.by_student()
    assert [c.rsplit("/", 1)[1] for c in subs["ada@uni.example"].companions] == ["scratch.py"]
    assert all(not s.superseded for s in col.submissions)   # the second download adds nothing
    report = "\n".join(col.report())
    assert "same attempt, not graded: dee@uni.example: one.zip:Dee Hopper_504_assignsubmission" \
           "_file_/perceptron.py" in report and "resubmission" not in report


def test_the_id_column_is_never_switched_silently(tmp_path, capsys):
    """Instructor trial 3: one student without an SIS User ID switched the whole class to
    Canvas's internal ID, silently (every student's data changed)."""
    from linclf_grader.lms.canvas import read_gradebook
    from linclf_grader.materials import read_student_list

    S.write_canvas(tmp_path)
    gb = tmp_path / "gradebook.csv"
    roster, _, _ = read_gradebook(gb)
    assert {e.id_column for e in roster.values()} == {"SIS User ID"}
    lines = gb.read_text().splitlines()
    lines.insert(3, '"Late, Lou",1077,,,Section 1,,')   # enrolled by hand: no SIS id yet
    gb.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError) as info:
        read_gradebook(gb)
    msg = str(info.value)
    assert "'SIS User ID'" in msg and "line 4 (Late, Lou)" in msg and "--id-column" in msg
    # instructor re-check s9b: the hint named 'SIS Login ID', which is empty on the same row
    assert "--id-column 'ID', filled for every student" in msg and "'SIS Login ID'" not in msg
    from linclf_grader.lms import RosterEntry, pick_id_column

    entries = [(2, RosterEntry("", "1", "A", row={"SIS User ID": "s1", "Login": "a"})),
               (3, RosterEntry("", "2", "B", row={"SIS User ID": "", "Login": ""}))]
    with pytest.raises(ValueError, match="none of 'SIS User ID', 'Login' is filled for every"):
        pick_id_column(["SIS User ID", "Login"], entries, ("SIS User ID", "Login"), None, "g")
    # the instructor chooses for the whole class, and is told which column is used
    roster, _, _ = read_gradebook(gb, id_column="ID")
    assert "1077" in roster and "1001" in roster
    notes = []
    assert len(read_student_list(gb, "ID", notes)) == 6 and notes == [
        "student ids: column 'ID' of gradebook.csv"]
    S.write_moodle(tmp_path)
    assert main(["--materials", str(tmp_path / "worksheet.csv"), "--sets", "perceptron",
                 "--out", str(tmp_path / "m")]) == 0
    assert "student ids: column 'Email address' of worksheet.csv" in capsys.readouterr().err
    assert main(["--materials", str(gb), "--sets", "perceptron", "--out", str(tmp_path / "m2")]) == 2
    assert "line 4 (Late, Lou)" in capsys.readouterr().err


def test_a_pdf_or_online_text_is_not_gradable_rather_than_missing(tmp_path):
    """Instructor trial 8: a student who handed in a PDF or online text was listed as
    'no submission'."""
    from linclf_grader.lms.canvas import collect_canvas

    S.write_canvas(tmp_path)
    with zipfile.ZipFile(tmp_path / "c.zip", "w") as z:
        z.writestr("lovelaceada_1001_70001_perceptron.py", "x = 1\n")
        z.writestr("babbagebob_1002_70002_perceptron.pdf", "%PDF-1.4")
        z.writestr("someone_1003_text.html", "<p>my answer</p>")
    report = "\n".join(collect_canvas([tmp_path / "c.zip"], tmp_path / "gradebook.csv",
                                      tmp_path / "cc", set_name="perceptron").report())
    assert "not gradable (pdf): s1002: no .ipynb or .py file" in report
    assert "not gradable (online text): s1003" in report
    assert "no submission: s1002" not in report and "no submission: s1004" in report
    S.write_moodle(tmp_path)
    with zipfile.ZipFile(tmp_path / "m.zip", "w") as z:
        z.writestr("Bob Babbage_502_assignsubmission_onlinetext_/onlinetext.html", "<p>x</p>")
    report = "\n".join(collect_moodle([tmp_path / "m.zip"], tmp_path / "worksheet.csv",
                                      tmp_path / "mc").report())
    assert "not gradable (online text): bob@uni.example" in report
    assert "no submission: bob@uni.example" not in report


@pytest.mark.parametrize("set_name", ["discriminants", "mse", "perceptron"])
def test_personal_notebook_shows_the_id_and_the_students_own_data(tmp_path, set_name):
    """Instructor trial 8: the personalised notebook still said 'run student("YOUR-ID")' in the
    docstring of an exercise with task parameters, and did not show the parameter that the
    .py template shows."""
    from linclf_grader.materials import write_materials

    write_materials(["s1003"], [set_name], tmp_path)
    nb = json.loads((tmp_path / "s1003" / f"{set_name}.ipynb").read_text())
    text = "\n".join("".join(c["source"]) for c in nb["cells"])
    assert "YOUR-ID" not in text and 'student("s1003")' in text
    exset = get_set(set_name)
    for ex in exset.exercises.values():
        if ex.variant is not None:
            mine = ex.template(exset.variant_data(ex.name, "s1003"), "s1003").rstrip()
            assert mine in text and mine in exset.template("s1003")
            if ex.task:
                assert "Your task parameter" in mine
