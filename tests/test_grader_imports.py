"""The rulebook: per exercise, the modules that would solve it; a breach costs only the
exercises whose function can reach the module; ``check()`` applies the same rules and
limits as the grader, so that its public points equal the grade's public points (proved
on every set's wrong-answer catalogue, the reference and submissions that breach a rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from exercise_harness import ROOT, load_reference

from linclf_grader import available_sets, evaluate, get_set, variants
from linclf_grader.framework import Exercise
from linclf_grader.grade import grade_submission, plan_workers
from linclf_grader.imports import (ALWAYS_FORBIDDEN, OPTIMISERS, breaches, exercise_groups,
                                   forbidden_for, reachable_modules, rule_text)

SOFTMAX = (ROOT / "exercises" / "solutions" / "softmax.py").read_text()
LOGISTIC = (ROOT / "exercises" / "solutions" / "logistic.py").read_text()


def _ex(name, forbid=()):
    return Exercise(name, name, f"def {name}():", "", forbid=forbid)


EXS = {"f": _ex("f"), "g": _ex("g", OPTIMISERS), "h": _ex("h")}


def test_every_exercise_forbids_linclf_and_sklearn_and_optimising_ones_an_optimiser():
    for set_name in available_sets():
        for ex in get_set(set_name).exercises.values():
            assert set(ALWAYS_FORBIDDEN) <= set(forbidden_for(ex))
    assert "scipy.optimize" in forbidden_for(get_set("logistic").exercises["irls_fit"])
    assert "scipy.optimize" in forbidden_for(get_set("smo").exercises["smo_solver"])
    # the page invites solving it numerically: an optimiser is allowed there
    assert "scipy.optimize" not in forbidden_for(get_set("duality").exercises["small_dual_alpha"])
    assert "scipy.special" not in forbidden_for(get_set("logistic").exercises["log_sigmoid"])


@pytest.mark.parametrize("source, expected", [
    # a module-level import costs only the exercise that uses it
    ("from scipy.optimize import minimize\ndef f(): return 1\ndef g(): return minimize(1)\n",
     {"g": ["scipy.optimize.minimize"]}),
    ("import scipy.optimize as so\ndef f(): return so.minimize\ndef g(): return so.linprog\n",
     {"g": ["scipy.optimize.linprog"]}),
    # through a helper function and a global, transitively
    ("import scipy\ndef _solve(): return scipy.optimize.minimize\nSOLVER = _solve\n"
     "def _helper(): return SOLVER()\ndef g(): return _helper()\n", {"g": ["scipy.optimize.minimize"]}),
    # scipy.special, scipy.linalg: allowed everywhere
    ("import scipy\nfrom scipy.special import expit\ndef g(): return expit(scipy.linalg.norm(1))\n", {}),
    # linclf and scikit-learn: forbidden everywhere, even through a local import
    ("def f():\n    from linclf.special import sigmoid\n    return sigmoid\n", {"f": ["linclf.special.sigmoid"]}),
    ("def h():\n    return __import__('sklearn')\n", {"h": ["sklearn"]}),
    # an import nobody's function reaches costs nothing (the book's helper cells)
    ("import linclf\nfrom linclf.perceptron import Perceptron\n_ref = Perceptron()\ndef f(): return 1\n", {}),
    # a parameter or local of the same name is not the global
    ("from scipy.optimize import minimize\ndef g(minimize): return minimize\n"
     "def h():\n    minimize = 3\n    return minimize\n", {}),
    # a later definition replaces an earlier one, as in the kernel
    ("from sklearn.svm import SVC\ndef f(): return SVC\n# %%\ndef f(): return 2\n", {}),
    # a module patched at the top level carries what was put into it
    ("import numpy as np\nimport sklearn\nnp.solve = sklearn.svm\ndef f(): return np.solve\n",
     {"f": ["sklearn.svm"]}),
])
def test_breaches_follow_what_each_function_reaches(source, expected):
    cells = source.split("# %%\n")
    assert breaches(cells, EXS) == expected


def test_reachable_modules_is_per_function():
    cells = ["import numpy as np\nimport sympy as sp\ndef f(x): return np.sum(x)\ndef h(): return sp.Symbol('x')\n"]
    reached = reachable_modules(cells, ["f", "h", "missing"])
    assert reached == {"f": {"numpy.sum"}, "h": {"sympy.Symbol"}, "missing": set()}


def test_groups_and_worker_plan():
    exset = get_set("logistic")
    groups = exercise_groups(exset.exercises)
    assert len(groups) == 2 and [n for g, n in groups.items() if "scipy.optimize" in g] == [["irls_fit"]]
    # nothing else reaches scipy: one worker, with the optimisers masked, serves them all
    plan = plan_workers(exset, {"log_sigmoid": {"numpy.logaddexp"}})
    assert len(plan) == 1 and len(next(iter(plan.values()))) == 6
    # an exercise that may use scipy.optimize and does gets a worker of its own
    plan = plan_workers(exset, {"log_sigmoid": {"scipy.optimize.minimize"}})
    assert sorted(map(sorted, plan.values())) == [
        ["corrected_intercept", "irls_fit", "logistic_loss_grad", "newton_from_zero", "separation_type"],
        ["log_sigmoid"]]


def _grade(tmp_path, source, set_name="softmax", name="sub.py"):
    path = tmp_path / name
    path.write_text(source)
    return grade_submission(path, set_name, timeout=10)


def test_an_import_of_linclf_earns_zero_for_that_exercise_only(tmp_path):
    cheat = SOFTMAX.replace(
        "def softmax_jacobian(p):",
        "def softmax_jacobian(p):\n    from linclf.softmax import softmax_jacobian as sj\n    return sj(p)\n\n\ndef _unused(p):",
    )
    result = _grade(tmp_path, cheat)
    rows = [t for t in result["tests"] if t["exercise"] == "softmax_jacobian"]
    others = [t for t in result["tests"] if t["exercise"] != "softmax_jacobian"]
    assert rows and all(t["score"] == 0 for t in rows)
    assert all("rules:" in t["output"] and "linclf.softmax" in t["output"] for t in rows)
    assert all(t["score"] == t["max_score"] for t in others), [t["output"] for t in others]
    assert result["imports"] == {"softmax_jacobian": ["linclf.softmax.softmax_jacobian"]}


def test_a_computed_import_is_refused_at_run_time(tmp_path):
    sneaky = SOFTMAX.replace(
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


def test_an_optimiser_costs_only_the_exercise_that_is_to_optimise(tmp_path):
    """The trial's F2: scipy at the top of a logistic notebook zeroed every exercise."""
    source = LOGISTIC.replace("import sympy as sp\n", "import sympy as sp\nfrom scipy.optimize import minimize\n"
                              "from scipy.special import log_expit\n", 1)
    source = source.replace("def log_sigmoid(z):", "def log_sigmoid(z):\n    return log_expit(z)\n\n\n"
                            "def _old_log_sigmoid(z):")
    source = source.replace("def irls_fit(X, y, lam=0.0, max_iter=100):",
                            "def irls_fit(X, y, lam=0.0, max_iter=100):\n    minimize\n"
                            "    return _irls(X, y, lam, max_iter)\n\n\ndef _irls(X, y, lam=0.0, max_iter=100):")
    result = _grade(tmp_path, source, "logistic")
    by_ex = {}
    for t in result["tests"]:
        by_ex.setdefault(t["exercise"], []).append(t)
    assert result["imports"] == {"irls_fit": ["scipy.optimize.minimize"]}
    assert all(t["score"] == 0 and "scipy.optimize" in t["output"] for t in by_ex["irls_fit"])
    for name, rows in by_ex.items():
        if name != "irls_fit":
            assert all(t["score"] == t["max_score"] for t in rows), (name, [t["output"] for t in rows])


def test_the_install_cell_and_the_books_helper_cells_are_not_the_students(tmp_path):
    nb = json.loads((ROOT / "notebooks" / "exercises" / "perceptron.ipynb").read_text())
    reference = (ROOT / "exercises" / "solutions" / "perceptron.py").read_text()
    nb["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                        "source": reference})
    result = _grade(tmp_path, json.dumps(nb), "perceptron", name="s1.ipynb")
    public = [t for t in result["tests"] if not t["hidden"]]
    assert all(t["score"] == t["max_score"] for t in public), [t["output"] for t in public]
    assert not result["imports"]
    assert not any("linclf" in v for v in result["cell_errors"].values())  # helper cells not run


def test_rules_are_stated_on_every_page_and_in_every_template():
    for set_name in available_sets():
        exset = get_set(set_name)
        page = (ROOT / "exercises" / f"{set_name}.md").read_text()
        template = exset.template()
        assert "Rules:" in template.split('"""', 2)[1]
        for ex in exset.exercises.values():
            assert rule_text(ex) in page, (set_name, ex.name)
            for module in forbidden_for(ex):
                assert module in template.split('"""', 2)[1], (set_name, module)


# --------------------------------------------------------------------------
# check() and the grader agree on every public point
# --------------------------------------------------------------------------
SID = "s2026009"
BREACH_CELL = '''
# %%
import sklearn as _skl
from scipy.optimize import minimize as _minimize


def _uses_sklearn():
    return _skl.__name__


def _uses_optimiser():
    return _minimize


{wraps}
'''
WRAP = '''_orig_{name} = {name}


def {name}(*args, **kwargs):
    {helper}()
    return _orig_{name}(*args, **kwargs)

'''


def _submissions(set_name):
    """(label, source) of submissions: the reference, each WRONG variant, and rule breaches."""
    text = (ROOT / "exercises" / "solutions" / f"{set_name}.py").read_text()
    reference = load_reference(set_name)
    wrong = getattr(reference, "WRONG", {})
    out = [("reference", text)]
    depth = max((len(v) for v in wrong.values()), default=0)
    for j in range(depth):
        lines = []
        for ex, variants in wrong.items():
            labels = list(variants)
            if j < len(labels):
                lines.append(f"{ex} = WRONG[{ex!r}][{labels[j]!r}]")
        out.append((f"wrong-{j}", text + "\n# %%\n" + "\n".join(lines) + "\n"))
    exercises = list(get_set(set_name).exercises.values())
    strict = [e for e in exercises if "scipy.optimize" in forbidden_for(e)]
    lenient = [e for e in exercises if "scipy.optimize" not in forbidden_for(e)]
    wraps = WRAP.format(name=lenient[0].name, helper="_uses_optimiser")   # allowed there
    wraps += WRAP.format(name=lenient[-1].name, helper="_uses_sklearn")   # never allowed
    for e in strict:
        wraps += WRAP.format(name=e.name, helper="_uses_optimiser")
    out.append(("breaches", text + BREACH_CELL.format(wraps=wraps)))
    return out


def _public(results):
    return sorted((t["name"], t["score"]) for t in results if not t["hidden"])


@pytest.mark.parametrize("set_name", available_sets())
def test_check_and_the_grader_agree_on_every_public_point(set_name, tmp_path, monkeypatch):
    exset = get_set(set_name)
    # as in a notebook, where student("ID") comes first: a task parameter read with
    # my_data() inside an exercise function is that student's
    monkeypatch.setattr(variants, "_current", SID)
    for label, source in _submissions(set_name):
        path = tmp_path / f"{SID}-{label}.py"
        path.write_text(source)
        graded = grade_submission(path, set_name, student=SID)
        namespace = {"__name__": "submission"}
        exec(compile(source, str(path), "exec"), namespace)
        in_process = []
        for name in exset.exercises:
            _, results = evaluate(f"{set_name}.{name}", namespace[name], student=SID, cells=[source])
            in_process += results
        assert _public(in_process) == _public(graded["tests"]), label
        if label == "reference":
            assert all(t["score"] == t["max_score"] for t in graded["tests"] if not t["hidden"])
        if label == "breaches":
            exercises = list(exset.exercises.values())
            lenient = [e.name for e in exercises if "scipy.optimize" not in forbidden_for(e)]
            strict = [e.name for e in exercises if "scipy.optimize" in forbidden_for(e)]
            assert set(graded["imports"]) == {lenient[-1], *strict}
            assert all(t["score"] == t["max_score"] for t in graded["tests"]
                       if t["exercise"] == lenient[0] and not t["hidden"]) or lenient[0] == lenient[-1]
        if label.startswith("wrong"):
            assert sum(s for _, s in _public(graded["tests"])) < exset.max_points()


def test_check_in_a_notebook_applies_the_rules_to_the_kernels_cells():
    """check() reads the kernel's input history: the cells the student ran, as the grader
    reads them from the saved notebook (magics and all)."""
    shell_mod = pytest.importorskip("IPython.core.interactiveshell")
    shell = shell_mod.InteractiveShell.instance()
    try:
        reference = (ROOT / "exercises" / "solutions" / "logistic.py").read_text()
        cells = [
            "%time _x = 1\nimport numpy as np\nfrom scipy.optimize import minimize",
            reference + "\n_irls_ref = irls_fit\n",
            "%%time\ndef irls_fit(X, y, lam=0.0, max_iter=100):\n    minimize\n"
            "    return _irls_ref(X, y, lam, max_iter)",
            "from linclf_grader import evaluate\n"
            "_, _r1 = evaluate(irls_fit, student='s1')\n_, _r2 = evaluate(log_sigmoid, student='s1')",
        ]
        for i, source in enumerate(cells):
            assert shell.run_cell(source, store_history=True).success, i
        r1, r2 = shell.user_ns["_r1"], shell.user_ns["_r2"]
        assert r1 and all(r["score"] == 0 and "scipy.optimize" in r["output"] for r in r1)
        assert r2 and all(r["score"] == r["max_score"] for r in r2)
    finally:
        shell_mod.InteractiveShell.clear_instance()


def test_check_and_the_grader_agree_when_a_call_runs_over_the_time_limit(tmp_path):
    """The same per-call limit, and after a timeout the exercise's later calls are not made."""
    source = (ROOT / "exercises" / "solutions" / "perceptron.py").read_text() + (
        "\n# %%\nimport time\n_calls = [0]\n_update = perceptron_update\n\n\n"
        "def perceptron_update(w, b, x, y, eta=1.0):\n    _calls[0] += 1\n"
        "    if _calls[0] == 2:\n        time.sleep(5)\n    return _update(w, b, x, y, eta)\n")
    path = tmp_path / "s1.py"
    path.write_text(source)
    graded = grade_submission(path, "perceptron", student="s1", timeout=1.0)
    namespace = {"__name__": "submission"}
    exec(compile(source, str(path), "exec"), namespace)
    _, results = evaluate("perceptron.perceptron_update", namespace["perceptron_update"],
                          student="s1", cells=[source], timeout=1.0)
    rows = [t for t in graded["tests"] if t["exercise"] == "perceptron_update"]
    assert [(r["name"], r["score"]) for r in results] == [(t["name"], t["score"]) for t in rows]
    assert any("did not return within 1 s" in r["output"] for r in results)
    assert 0 < sum(r["score"] for r in results) < sum(r["max_score"] for r in results)


def test_the_loads_table_matches_the_installed_scipy():
    """Every package LOADS names loads the forbidden module, and scipy's others do not."""
    import subprocess
    import sys

    from linclf_grader.imports import LOADS

    def loads(module, target):
        code = f"import sys, {module}; print({target!r} in sys.modules)"
        out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
        return out.stdout.strip() == "True"

    for target, packages in LOADS.items():
        for package in packages:
            assert loads(package, target), (package, target)
    for other in ("scipy.special", "scipy.linalg", "scipy.spatial", "scipy.sparse", "scipy.fft"):
        assert not loads(other, "scipy.optimize"), other


def test_an_import_that_loads_a_forbidden_module_breaches_in_check_and_grade():
    from linclf_grader import get_set
    from linclf_grader.imports import breaches

    exset = get_set("logistic")
    cells = ["from scipy.stats import logistic\n"
             "def irls_fit(X, y, lam=0.0, max_iter=50):\n    return logistic.cdf(X)\n"]
    found = breaches(cells, exset.exercises)
    assert found == {"irls_fit": ["scipy.stats.logistic.cdf (it loads scipy.optimize)"]}


def test_check_sees_an_import_the_static_rule_cannot():
    """__import__ inside the function: the grader's mask fails it, check() sees the optimiser run
    (whether or not scipy.optimize was imported before)."""
    import runpy

    from linclf_grader.inprocess import evaluate

    ref = runpy.run_path(str(ROOT / "exercises" / "solutions" / "smo.py"))

    def smo_solver(K, y, C, tol=1e-3, max_steps=100_000):
        opt = __import__("scipy.optimize", fromlist=["minimize"])
        opt.minimize(lambda v: float(v @ v), [1.0])   # the optimiser runs: that is seen
        return ref["smo_solver"](K, y, C, tol, max_steps)

    _, honest = evaluate("smo.smo_solver", ref["smo_solver"], cells=[])
    _, dodge = evaluate("smo.smo_solver", smo_solver, cells=[])
    assert sum(r["score"] for r in honest) == sum(r["max_score"] for r in honest) > 0
    assert sum(r["score"] for r in dodge) == 0
    assert all("scipy.optimize" in r["output"] for r in dodge)
