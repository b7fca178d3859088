"""The import policy: a submission that imports linclf's implementations (or
anything the set does not allow) earns 0 for the affected exercises, with a
feedback line that names the import; the worker refuses such imports at run time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linclf_grader.grade import grade_submission
from linclf_grader.imports import is_allowed, violations

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = (ROOT / "exercises" / "solutions" / "softmax.py").read_text()
EXERCISES = ["softmax_rows", "softmax_jacobian", "softmax_grad", "log_softmax_derivative"]


def test_the_policy():
    for ok in ("numpy", "numpy.linalg", "sympy", "math", "itertools", "functools", "linclf_grader"):
        assert is_allowed(ok), ok
    for bad in ("linclf", "linclf.special", "linclf.softmax", "sklearn", "scipy.special",
                "subprocess", "ctypes", "importlib"):
        assert not is_allowed(bad), bad
    assert is_allowed("scipy.special", extra=("scipy",))


def test_static_check_scopes_an_import_to_its_exercise():
    cells = [(0, "import numpy as np\nfrom linclf_grader import check\n"),
             (1, "def softmax_rows(Z):\n    from linclf.special import softmax\n    return softmax(Z, axis=1)\n"),
             (2, "def softmax_grad(W, X, Y):\n    def inner():\n        import sklearn\n    return 0\n")]
    found = violations(cells, EXERCISES)
    assert found == {"softmax_rows": ["linclf.special"], "softmax_grad": ["sklearn"]}
    module_level = violations([(0, "import linclf\n")], EXERCISES)
    assert set(module_level) == set(EXERCISES)
    dynamic = violations([(0, "def softmax_jacobian(p):\n    return __import__('linclf.special')\n")], EXERCISES)
    assert dynamic == {"softmax_jacobian": ["linclf.special"]}
    helper = violations([(0, "def helper():\n    import linclf.softmax\n")], EXERCISES)
    assert set(helper) == set(EXERCISES)  # any exercise could call the helper


def _grade(tmp_path, source, name="sub.py"):
    path = tmp_path / name
    path.write_text(source)
    return grade_submission(path, "softmax", timeout=10)


def test_an_import_of_linclf_earns_zero_for_that_exercise_only(tmp_path):
    cheat = REFERENCE.replace(
        "def softmax_jacobian(p):",
        "def softmax_jacobian(p):\n    from linclf.softmax import softmax_jacobian as sj\n    return sj(p)\n\n\ndef _unused(p):",
    )
    result = _grade(tmp_path, cheat)
    rows = [t for t in result["tests"] if t["exercise"] == "softmax_jacobian"]
    others = [t for t in result["tests"] if t["exercise"] != "softmax_jacobian"]
    assert rows and all(t["score"] == 0 for t in rows)
    assert all("import policy" in t["output"] and "linclf.softmax" in t["output"] for t in rows)
    assert all(t["score"] == t["max_score"] for t in others), [t["output"] for t in others]
    assert result["imports"] == {"softmax_jacobian": ["linclf.softmax"]}


def test_a_computed_import_is_refused_at_run_time(tmp_path):
    sneaky = REFERENCE.replace(
        "def softmax_rows(Z):",
        "def softmax_rows(Z):\n    mod = __builtins__['__import__'] if isinstance(__builtins__, dict) "
        "else getattr(__builtins__, '__import__')\n"
        "    special = mod('linclf.' + 'special', fromlist=['softmax'])\n"
        "    return special.softmax(Z, axis=1)\n\n\ndef _unused(Z):",
    )
    result = _grade(tmp_path, sneaky)
    rows = [t for t in result["tests"] if t["exercise"] == "softmax_rows"]
    assert rows and all(t["score"] == 0 for t in rows)
    assert any("not allowed" in t["output"] or "No module" in t["output"] for t in rows)


def test_the_install_cell_of_a_notebook_is_not_the_students(tmp_path):
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": "# Self-install: on Colab or a bare Binder, fetch linclf\ntry:\n    import linclf\n"
                   "except ImportError:\n    %pip install linclf\n    import linclf"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": REFERENCE},
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    result = _grade(tmp_path, json.dumps(nb), name="sub.ipynb")
    assert result["score"] == result["max_score"], [t["output"] for t in result["tests"] if t["score"] == 0]
    assert not result["imports"]
