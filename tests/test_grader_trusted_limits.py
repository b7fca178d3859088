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


# ---------------------------------------------------------------- N1: time of the trusted side
from linclf_grader.framework import TestSpec, run_tests  # noqa: E402
from linclf_grader.timeouts import paused, time_limit  # noqa: E402


def _spin():
    while True:
        pass


def _sleeping_backend(seconds):
    import time

    def backend(name, args, kwargs):
        time.sleep(seconds)
        return "q"
    return backend


def _spec(func, name):
    func.__name__ = name
    return TestSpec(func=func, exercise="ex", points=1)


def test_reviewers_max_attack_is_refused_at_once():
    # /tmp/hostile-s9b/sym/s910043.py: 49 s of sympy's Max reduction in the grader's process
    terms = ",".join(f"Abs(q-{k}/61)*sign(q-{k}/67)" for k in range(1, 101))
    text = f"log(q/(1-q)) + ((2*q-1)/(4*q-2) - 1/2)*Max({terms},0)"
    with pytest.raises(UnsafeExpression, match="at most 8 arguments"):
        parse_expr_safely(text)
    # a short Max is built unevaluated, as written
    assert str(parse_expr_safely("Max(" + ",".join(f"Abs(q-{k}/61)" for k in range(1, 8)) + ")")) \
        .count("Abs") == 7


def test_slow_trusted_check_fails_with_a_clear_message():
    def test_slow(f):
        f()
        _spin()
    res = run_tests([_spec(test_slow, "test_slow")], _sleeping_backend(0), test_timeout=0.5)
    assert res[0]["status"] == "failed"
    assert "your expression took too long to evaluate" in res[0]["output"]


def test_swallowed_timeout_still_stops_the_test():
    def test_greedy(f):
        try:
            _spin()
        except Exception:  # a broad except in a test's helper, which then carries on
            pass
        _spin()
    res = run_tests([_spec(test_greedy, "test_greedy")], _sleeping_backend(0), test_timeout=0.5)
    assert "took too long" in res[0]["output"]


def test_student_call_time_is_not_counted():
    def test_calls(f):
        f()
        f()
    res = run_tests([_spec(test_calls, "test_calls")], _sleeping_backend(0.8), test_timeout=0.5)
    assert res[0]["status"] == "passed", res


def test_submission_budget_skips_the_rest():
    def test_slow(f):
        _spin()
    tests = [_spec(test_slow, "test_slow") for _ in range(3)]
    res = run_tests(tests, _sleeping_backend(0), test_timeout=0.6, budget=1.0)
    assert [("took too long" in r["output"], "used up" in r["output"]) for r in res] == \
        [(True, False), (True, False), (False, True)]


def test_outer_limit_fires_inside_and_after_an_inner_one():
    import time
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        with time_limit(0.5):
            try:
                with time_limit(30):
                    _spin()
            except TimeoutError:
                pass  # compare_expr turns its own timeout into a failed comparison
            _spin()
    assert time.monotonic() - start < 20


def test_paused_limit_resumes():
    import time
    with pytest.raises(TimeoutError):
        with time_limit(0.5):
            with paused():
                time.sleep(0.8)   # a student's call: not counted
            _spin()


# ---------------------------------------------------------------- F4: thread pools, process pools
POOLS = '''
import numpy as np

def rbf_gram(X, Z, gamma):
    from multiprocessing.pool import ThreadPool
    X, Z = np.asarray(X, dtype=float), np.asarray(Z, dtype=float)
    with ThreadPool(2) as pool:
        rows = pool.map(lambda x: np.exp(-gamma * ((Z - x) ** 2).sum(axis=1)), list(X))
    return np.array(rows)

def poly3_features(x):
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(2) as ex:
        return ex.submit(len, [1]).result()
'''


def test_thread_pools_work_and_process_pools_are_refused(tmp_path):
    res = _grade(tmp_path, POOLS, "kernels")
    rbf = _tests_of(res, "rbf_gram")
    assert rbf and all(t["status"] == "passed" for t in rbf), rbf
    poly = _tests_of(res, "poly3_features")
    assert poly and all(t["status"] == "failed" for t in poly)
    assert any("new processes are not allowed" in t["output"] for t in poly), poly


# ---------------------------------------------------------------- F4b: other routes to a process
FORKS = {
    "fork_exec": '''
        import _posixsubprocess, os
        r, w = os.pipe()
        _posixsubprocess.fork_exec([b"/bin/true"], [b"/bin/true"], True, (), None, None, -1, -1,
                                   -1, -1, -1, -1, r, w, True, False, 0, None, None, None, -1,
                                   None, False)''',
    "fresh_posixsubprocess": '''
        import sys, os
        sys.modules.pop("_posixsubprocess", None)
        import _posixsubprocess
        r, w = os.pipe()
        _posixsubprocess.fork_exec([b"/bin/true"], [b"/bin/true"], True, (), None, None, -1, -1,
                                   -1, -1, -1, -1, r, w, True, False, 0, None, None, None, -1,
                                   None, False)''',
    "subprocess_fork_exec": '''
        import subprocess
        subprocess._fork_exec()''',
    **{name: f'''
        import ctypes, os
        pid = getattr(ctypes.CDLL(None), "{name}")()
        if pid == 0:
            os._exit(0)''' for name in ("_Fork", "__fork", "__libc_fork", "__vfork")},
}


@pytest.mark.parametrize("route", sorted(FORKS))
def test_other_fork_routes_are_refused(tmp_path, route):
    body = FORKS[route]
    source = f"import numpy as np\n\ndef rbf_gram(X, Z, gamma):\n    if True:{body}\n    return 0\n"
    res = _grade(tmp_path, source, "kernels")
    rbf = _tests_of(res, "rbf_gram")
    assert rbf and all("new processes are not allowed" in t["output"] for t in rbf if not t["hidden"]), \
        [t["output"] for t in rbf]


# ---------------------------------------------------------------- F2: the p1 = p2 = 1 case by values
def test_smo_svm_case_shows_no_formula_and_still_checks():
    import inspect

    import sympy as sp

    from linclf_grader import get_set
    spec = next(t for t in get_set("smo").tests if t.name.endswith("unclipped svm case"))
    source = inspect.getsource(spec.func)
    assert "K11 + K22" not in source and "g1 -" not in source and "parse_expr_safely" not in source

    def wrong():  # the chapter's step with the sign of g2's label term flipped
        return sp.sympify("a2 + y2*((g1 - p1*y1) - (g2 + p2*y2))/(K11 + K22 - 2*K12)")
    res = {r["name"]: r for r in evaluate("smo.smo_unclipped_alpha2", wrong, cells=[""])[1]}
    assert res["smo_unclipped_alpha2: unclipped svm case"]["status"] == "failed"
    assert "K11 + K22" not in res["smo_unclipped_alpha2: unclipped svm case"]["output"]
