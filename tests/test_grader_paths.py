"""What a second hostile trial found (2026-11-25): links, encodings, continuation lines, parents.

Each test would fail on the grader before its fix: a link to the reference solutions earned
full marks, a BOM or a continuation line starting with ``!=`` zeroed an honest file, a
``ab-1.py`` beside ``ab.py`` gave student ab two grades, and an output folder under a parent
that others can write could be swapped for a link while the grader wrote into it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from linclf_grader.gradescope import find_submission
from linclf_grader.lms import collect_folder
from linclf_grader.notebook import SubmissionError, clean_source, read_submission
from linclf_grader.outdir import OutputDir, OutputRefused

SOLUTIONS = ROOT / "exercises" / "solutions"
GRADE = [sys.executable, "-m", "linclf_grader.cli"]


def test_a_link_is_no_submission(tmp_path):
    link = tmp_path / "s666.py"
    link.symlink_to(SOLUTIONS / "smo.py")
    with pytest.raises(SubmissionError, match="symbolic link"):
        read_submission(link, "smo")
    col = collect_folder(tmp_path, dest=tmp_path / "collected")
    assert not col.submissions and col.unmapped and "symbolic link" in col.unmapped[0][1]


def test_gradescope_never_takes_a_link(tmp_path):
    sub = tmp_path / "submission"
    (sub / "deep").mkdir(parents=True)
    (sub / "smo.py").symlink_to(SOLUTIONS / "smo.py")
    (sub / "linked").symlink_to(SOLUTIONS, target_is_directory=True)
    assert find_submission(sub, "smo") is None
    (sub / "deep" / "mine.py").write_text("x = 1\n")
    assert find_submission(sub, "smo") == sub / "deep" / "mine.py"


def test_valid_python_is_not_rewritten_as_magics():
    honest = "ok = (1\n!= 2)\ns = '''\n% not a magic\n'''\n"
    assert clean_source(honest) == honest
    assert clean_source("%matplotlib inline\nx = 1").splitlines() == ["", "x = 1"]


def test_a_bom_is_no_code(tmp_path):
    f = tmp_path / "s1.py"
    f.write_bytes(b"\xef\xbb\xbf" + (SOLUTIONS / "perceptron.py").read_bytes())
    cells = read_submission(f, "perceptron").cells
    assert not cells[0][1].startswith("\ufeff")


def test_two_files_for_one_student_are_refused(tmp_path):
    for name in ("ab.py", "ab-1.py"):
        (tmp_path / name).write_text((SOLUTIONS / "perceptron.py").read_text())
    proc = subprocess.run([*GRADE, "ab.py", "ab-1.py", "--set", "perceptron", "--out", "out"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "all map to student 'ab'" in proc.stderr


def test_output_under_a_parent_others_can_write_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)           # no sticky bit: anyone could rename --out and plant a link
    with pytest.raises(OutputRefused, match="writable by other users"):
        OutputDir(shared / "out")
    shared.chmod(0o1777)          # sticky, like /tmp: only the owner may rename its entries
    OutputDir(shared / "out").close()
    assert (shared / "out").is_dir() and not os.stat(shared / "out").st_mode & 0o077


def test_a_missing_submission_file_is_an_error_not_a_zero(tmp_path):
    """A typo on the command line (issue 23) used to give that 'student' 0 points and exit 0."""
    (tmp_path / "s1.py").write_text((SOLUTIONS / "perceptron.py").read_text())
    (tmp_path / "folder").mkdir()
    for bad in ("s2.py", "folder"):
        proc = subprocess.run([*GRADE, "s1.py", bad, "--set", "perceptron", "--out", "out"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"\nlinclf-grade: {bad}: " in proc.stderr, proc.stderr
        assert not (tmp_path / "out" / "grades.csv").exists()
