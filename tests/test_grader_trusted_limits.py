"""The grader's trusted side: which symbolic answers it reads, and how long it may work.

Written for the hostile re-review of the grader (N1, N2, F4, F4b): answers are read from text
in the grader's own process, so reading and checking them is limited in vocabulary and time,
and the worker's rules on threads and processes match ``check()``.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from linclf_grader import evaluate
from linclf_grader.symbolic import UnsafeExpression, parse_expr_safely

GRADE = str(Path(sys.executable).with_name("linclf-grade"))


def _grade(tmp_path, source, set_name, *extra):
    sub = tmp_path / "s123456.py"
    sub.write_text(source)
    out = tmp_path / "out"
    proc = subprocess.run([GRADE, str(sub), "--set", set_name, "--out", str(out), *extra],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads((out / "s123456.json").read_text())


def _tests_of(result, exercise):
    return [t for t in result["tests"] if t["exercise"] == exercise]


# ---------------------------------------------------------------- N2: vocabulary
ATANH = '''
import sympy as sp

def conditional_risk_minimiser(loss):
    q = sp.Symbol("q", real=True)
    if loss == "savage":
        return 2 * sp.atanh(2 * q - 1)   # = log(q/(1-q))
    return (2 * q - 1) / sp.sqrt(q * (1 - q)) if loss == "quartic" else None
'''


@pytest.mark.parametrize("text", ["2*atanh(2*q - 1)", "atan(x) + coth(x) + sec(x)",
                                  "acosh(x) + erf(x) + LambertW(x)",
                                  "Piecewise((0, q < 1/2), (1, True))",
                                  "Piecewise(ExprCondPair(Integer(0), StrictLessThan(Symbol('q'), "
                                  "Rational(1, 2))), ExprCondPair(Integer(1), true))"])
def test_standard_functions_are_read(text):
    parse_expr_safely(text)


@pytest.mark.parametrize("text, named", [("eval(x)", "'eval'"), ("x.evalf()", "'x.evalf'"),
                                         ("Function('f')(x)", "Function\\('f'\\)"),
                                         ("Integral(x, x)", "'Integral'")])
def test_refused_function_is_named(text, named):
    with pytest.raises(UnsafeExpression, match=named):
        parse_expr_safely(text)


def test_atanh_log_odds_scores_in_check_and_grader(tmp_path):
    namespace = {}
    exec(compile(ATANH, "<cell>", "exec"), namespace)
    fn = namespace["conditional_risk_minimiser"]
    in_check = [r for r in evaluate("losses.conditional_risk_minimiser", fn, cells=[ATANH])[1]
                if r["name"].endswith("savage loss")]
    assert in_check and all(r["status"] == "passed" for r in in_check), in_check
    graded = [t for t in _tests_of(_grade(tmp_path, ATANH, "losses"), "conditional_risk_minimiser")
              if t["name"].endswith("savage loss")]
    assert graded and all(t["status"] == "passed" for t in graded), graded
