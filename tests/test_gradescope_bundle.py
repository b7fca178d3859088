"""The Gradescope bundle, built from a pip install, run against a fake /autograder tree.

The bundle is built by the ``linclf-grade`` of a virtual environment where linclf was
installed from a wheel (no checkout), its ``setup.sh`` creates the environment of the fake
``/autograder`` (``LINCLF_AUTOGRADER_ROOT``) from the pinned requirements, and its
``run_autograder`` grades submissions found in subfolders, as root, like Gradescope.
"""

import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from grader_env import IS_ROOT
from linclf_grader import get_set

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "exercises" / "solutions"
pytestmark = pytest.mark.xdist_group("grader_hostile")  # shares installed_linclf_env


GS_PROBE = '''
import time
import numpy as np


def perceptron_update(w, b, x, y, eta=1.0):
    time.sleep(30)


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    hog = np.ones(200 * 2**20)  # 1.6 GB: over the bundle's --memory
    return hog[:3], 0.0, 0


def novikoff_bound(X, y, w, b):
    seen = []
    for p in @@FILES@@:
        try:
            seen.append("READ " + open(p).read()[:20])
        except OSError as exc:
            seen.append("FAILED " + type(exc).__name__)
    raise RuntimeError("SEEN " + repr(seen))
'''


def _notebook(code):
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                                  "outputs": [], "source": code}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_gradescope_bundle_from_a_pip_install(installed_linclf_env, tmp_path):
    installed_env = installed_linclf_env
    if not IS_ROOT:
        pytest.skip("Gradescope runs the autograder as root; the bundle test does the same")
    # the instructor's folder holds every set's reference file: only perceptron's may ship
    private = tmp_path / "private"
    shutil.copytree(SOLUTIONS, private, ignore=shutil.ignore_patterns("__pycache__"))
    bundle = tmp_path / "bundle"
    proc = subprocess.run([str(installed_env / "bin" / "linclf-grade"), "--gradescope-bundle", "perceptron",
                           "--tests", str(private), "--timeout", "2", "--memory", "600", "--out", str(bundle)],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    zf = zipfile.ZipFile(bundle / "autograder_perceptron.zip")
    names = zf.namelist()
    assert [n for n in names if n.startswith("tests/")] == ["tests/perceptron.py"]
    assert not any(n.startswith("exercises") or "solutions" in n for n in names)
    versions = dict(line.split("==") for line in zf.read("requirements.txt").decode().split())
    py = str(installed_env / "bin" / "python")
    for name in ("numpy", "sympy", "matplotlib"):
        got = subprocess.run([py, "-c", f"import importlib.metadata as m; print(m.version({name!r}))"],
                             capture_output=True, text=True).stdout.strip()
        assert versions[name] == got
    config = json.loads(zf.read("bundle.json"))
    assert (config["set"], config["timeout"], config["memory"]) == ("perceptron", 2.0, 600)

    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    zf.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):
        (root / "source" / name).chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "LINCLF_AUTOGRADER_ROOT": str(root), "HOME": str(tmp_path)}
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], capture_output=True, text=True,
                           timeout=900, env=env)
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    assert "sandbox: root" in setup.stdout

    def grade(files, metadata=True):
        sub = root / "submission"
        shutil.rmtree(sub, ignore_errors=True)
        for rel, text in files.items():
            (sub / rel).parent.mkdir(parents=True, exist_ok=True)
            (sub / rel).write_text(text)
        if metadata:
            (root / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "s2026001"}]}))
        shutil.rmtree(root / "results", ignore_errors=True)
        run = subprocess.run([str(root / "source" / "run_autograder")], capture_output=True, text=True,
                             timeout=600, env=env)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        return json.loads((root / "results" / "results.json").read_text())

    full = get_set("perceptron").max_points()
    hidden = sum(t.points for t in _hidden_tests("perceptron"))
    # a notebook two folders down, beside a stray .py: the notebook is graded, hidden tests count
    good = grade({"my work/week 3/perceptron.ipynb": _notebook((SOLUTIONS / "perceptron.py").read_text()),
                  "notes/scratch.py": "x = 1\n"})
    assert good["score"] == full + hidden, [t for t in good["tests"] if t["score"] < t["max_score"]]
    # the bundle's --timeout (2 s) and --memory (600 MiB) apply; /autograder is out of reach
    files = [str(root / "source" / "tests" / "perceptron.py"), str(root / "submission_metadata.json"),
             str(root / "source" / "bundle.json")]
    bad = grade({"sub/dir/perceptron.py": GS_PROBE.replace("@@FILES@@", repr(files))})
    outputs = {t["name"]: t["output"] for t in bad["tests"]}
    text = json.dumps(outputs)
    assert "did not return within 2 s" in text
    assert "MemoryError" in text or "Unable to allocate" in text
    assert "SEEN" in text and "READ" not in text
    assert bad["score"] == 0


def _hidden_tests(set_name):
    from linclf_grader.framework import load_private_tests

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(SOLUTIONS / f"{set_name}.py", tmp)
        return [t for t in load_private_tests(tmp, get_set(set_name)) if t.hidden]
