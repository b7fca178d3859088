"""Every exercise: the reference passes, the blank stub scores 0, typical wrong answers fail.

The public tests run in-process here (``linclf_grader.evaluate``), exactly as
``check(...)`` runs them in an exercise page; ``test_grader.py`` checks that the
sandboxed grader gives the same scores.
"""

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from exercise_harness import load_reference, score, stub_functions

from linclf_grader import available_sets, evaluate, get_set

MY_SETS = ["discriminants", "fisher", "perceptron", "mse", "logistic", "softmax"]


ALL_EXERCISES = [(s, e) for s in available_sets() for e in get_set(s).exercises]


def test_enough_exercises():
    for s in MY_SETS:
        assert len(get_set(s).exercises) >= 3, s
    assert sum(len(get_set(s).exercises) for s in available_sets()) >= 24


def test_exercise_names_are_unique_across_sets():
    names = [e for _, e in ALL_EXERCISES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("set_name,exercise", ALL_EXERCISES)
def test_reference_gets_full_points(set_name, exercise):
    got, total, results = score(set_name, exercise, getattr(load_reference(set_name), exercise))
    assert total > 0
    assert got == total, [r["output"] for r in results if r["status"] != "passed"]


@pytest.mark.parametrize("set_name,exercise", ALL_EXERCISES)
def test_blank_stub_gets_zero(set_name, exercise):
    got, total, results = score(set_name, exercise, stub_functions(set_name)[exercise])
    assert got == 0 and total > 0
    assert all(r["output"] for r in results)  # every failure says why


# --------------------------------------------------------------------------
# typical wrong answers, each with the mistake it makes
# --------------------------------------------------------------------------
def _aug(X):
    return np.hstack([X, np.ones((len(X), 1))])


def _means(X, y):
    return X[y == 1].mean(axis=0), X[y == -1].mean(axis=0)


def _sw(X, y):
    return sum((X[y == k] - X[y == k].mean(0)).T @ (X[y == k] - X[y == k].mean(0)) for k in (1, -1))


def _train(X, y, eta=1.0, max_epochs=100, strict=False, bias=True, start=0):
    w, b, n = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(max_epochs):
        mistakes = 0
        for i in list(range(start, len(X))):
            m = y[i] * (w @ X[i] + b)
            if (m < 0) if strict else (m <= 0):
                w, b, n, mistakes = w + eta * y[i] * X[i], b + (eta * y[i] if bias else 0), n + 1, mistakes + 1
        if mistakes == 0:
            break
    return w, b, n


def _softmax(Z):
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def _sym(names):
    return sp.symbols(names, real=True)


WRONG = {
    ("discriminants", "signed_distance"): {
        "not normalised": lambda X, w, b: X @ w + b,
        "forgot the bias": lambda X, w, b: X @ w / np.linalg.norm(w),
        "divided by the squared norm": lambda X, w, b: (X @ w + b) / (w @ w),
    },
    ("discriminants", "line_through_points"): {
        "right instead of left": lambda: (lambda p1, p2, q1, q2, r1, r2: ((r2 - q2) * (p1 - q1) - (r1 - q1) * (p2 - q2))
                                          / sp.sqrt((r1 - q1) ** 2 + (r2 - q2) ** 2))(*_sym("p1 p2 q1 q2 r1 r2")),
        "unsigned": lambda: (lambda p1, p2, q1, q2, r1, r2: sp.Abs((r1 - q1) * (p2 - q2) - (r2 - q2) * (p1 - q1))
                             / sp.sqrt((r1 - q1) ** 2 + (r2 - q2) ** 2))(*_sym("p1 p2 q1 q2 r1 r2")),
        "not normalised": lambda: (lambda p1, p2, q1, q2, r1, r2: (r1 - q1) * (p2 - q2) - (r2 - q2) * (p1 - q1))(
            *_sym("p1 p2 q1 q2 r1 r2")),
        "a string that is code": lambda: "__import__('os').system('true')",
    },
    ("discriminants", "normalize_augmented"): {
        "ones column first": lambda X, y: y[:, None] * np.hstack([np.ones((len(X), 1)), X]),
        "label not applied to the 1": lambda X, y: np.hstack([y[:, None] * X, np.ones((len(X), 1))]),
        "not normalised": lambda X, y: _aug(X),
    },
    ("discriminants", "ovr_predict"): {
        "argmax without reject": lambda W, b, X: np.argmax(X @ W.T + b, axis=1),
        ">= instead of >": lambda W, b, X: np.where(((X @ W.T + b) >= 0).sum(1) == 1,
                                                     np.argmax((X @ W.T + b) >= 0, axis=1), -1),
        "forgot the bias": lambda W, b, X: np.where(((X @ W.T) > 0).sum(1) == 1,
                                                     np.argmax((X @ W.T) > 0, axis=1), -1),
    },
    ("fisher", "within_class_scatter"): {
        "covariances instead of scatters": lambda X, y: sum(np.cov(X[y == k].T, bias=True) for k in (1, -1)),
        "scatter about the overall mean": lambda X, y: (X - X.mean(0)).T @ (X - X.mean(0)),
        "only one class": lambda X, y: (X[y == 1] - X[y == 1].mean(0)).T @ (X[y == 1] - X[y == 1].mean(0)),
    },
    ("fisher", "fisher_direction"): {
        "difference of means only": lambda X, y: np.subtract(*_means(X, y)),
        "sign error": lambda X, y: np.linalg.solve(_sw(X, y), _means(X, y)[1] - _means(X, y)[0]),
        "S_w not inverted": lambda X, y: _sw(X, y) @ np.subtract(*_means(X, y)),
    },
    ("fisher", "fisher_criterion"): {
        "not squared": lambda w, X, y: w @ np.subtract(*_means(X, y)) / (w @ _sw(X, y) @ w),
        "covariance normalisation": lambda w, X, y: (w @ np.subtract(*_means(X, y))) ** 2
        / (w @ _sw(X, y) @ w / len(X)),
    },
    ("fisher", "midpoint_bias"): {
        "overall mean instead of the midpoint": lambda w, X, y: -w @ X.mean(0),
        "sign error": lambda w, X, y: w @ (_means(X, y)[0] + _means(X, y)[1]) / 2,
        "forgot the half": lambda w, X, y: -w @ (_means(X, y)[0] + _means(X, y)[1]),
    },
    ("fisher", "mean_difference_efficiency"): {
        "max J_F instead of the ratio": lambda: (lambda s1, s2, d1, d2: (d1**2 / s1 + d2**2 / s2, 4 * s1 * s2 / (s1 + s2) ** 2))(*_sym("s1 s2 d1 d2")),
        "worst case inverted": lambda: (lambda s1, s2, d1, d2: ((d1**2 + d2**2) ** 2 / ((s1 * d1**2 + s2 * d2**2) * (d1**2 / s1 + d2**2 / s2)), (s1 + s2) ** 2 / (4 * s1 * s2)))(*_sym("s1 s2 d1 d2")),
    },
    ("perceptron", "perceptron_update"): {
        "strict inequality": lambda w, b, x, y, eta=1.0: (w + eta * y * x, b + eta * y)
        if y * (w @ x + b) < 0 else (w, b),
        "sign error": lambda w, b, x, y, eta=1.0: (w - eta * y * x, b - eta * y)
        if y * (w @ x + b) <= 0 else (w, b),
        "forgot the bias": lambda w, b, x, y, eta=1.0: (w + eta * y * x, b)
        if y * (w @ x + b) <= 0 else (w, b),
        "updates always": lambda w, b, x, y, eta=1.0: (w + eta * y * x, b + eta * y),
        "forgot eta on the bias": lambda w, b, x, y, eta=1.0: (w + eta * y * x, b + y)
        if y * (w @ x + b) <= 0 else (w, b),
    },
    ("perceptron", "perceptron_train"): {
        "strict inequality": lambda X, y, eta=1.0, max_epochs=100: _train(X, y, eta, max_epochs, strict=True),
        "off by one: skips sample 0": lambda X, y, eta=1.0, max_epochs=100: _train(X, y, eta, max_epochs, start=1),
        "forgot the bias": lambda X, y, eta=1.0, max_epochs=100: _train(X, y, eta, max_epochs, bias=False),
        "counts epochs not updates": lambda X, y, eta=1.0, max_epochs=100: (
            lambda r: (r[0], r[1], 3))(_train(X, y, eta, max_epochs)),
    },
    ("perceptron", "batch_perceptron_step"): {
        "mean instead of sum": lambda w, b, X, y, eta=1.0: (
            lambda m: (w + eta * (y[m] @ X[m]) / max(m.sum(), 1), b + eta * y[m].sum() / max(m.sum(), 1),
                       int(m.sum())))(y * (X @ w + b) <= 0),
        "strict inequality": lambda w, b, X, y, eta=1.0: (
            lambda m: (w + eta * (y[m] @ X[m]), b + eta * y[m].sum(), int(m.sum())))(y * (X @ w + b) < 0),
        "all samples": lambda w, b, X, y, eta=1.0: (w + eta * y @ X, b + eta * y.sum(), len(y)),
    },
    ("perceptron", "novikoff_bound"): {
        "R not augmented": lambda X, y, w, b: (np.max(np.linalg.norm(X, axis=1))
                                               / (np.min(y * (X @ w + b)) / np.linalg.norm(np.append(w, b)))) ** 2,
        "gamma not normalised": lambda X, y, w, b: (np.max(np.linalg.norm(_aug(X), axis=1))
                                                    / np.min(y * (X @ w + b))) ** 2,
        "normalised by ||w|| only": lambda X, y, w, b: (np.max(np.linalg.norm(_aug(X), axis=1))
                                                        / (np.min(y * (X @ w + b)) / np.linalg.norm(w))) ** 2,
    },
    ("mse", "mse_solution"): {
        "labels not applied": lambda X, y, m: (lambda a: (a[:-1], a[-1]))(np.linalg.pinv(_aug(X)) @ m),
        "forgot the bias column": lambda X, y, m: (np.linalg.pinv(y[:, None] * X) @ m, 0.0),
        "regressed on the labels": lambda X, y, m: (lambda a: (a[:-1], a[-1]))(np.linalg.pinv(_aug(X)) @ y),
    },
    ("mse", "lms_update"): {
        "sign error": lambda a, z, m, eta: a - eta * (m - a @ z) * z,
        "perceptron-style": lambda a, z, m, eta: a + eta * z if a @ z <= m else a,
        "forgot eta": lambda a, z, m, eta: a + (m - a @ z) * z,
    },
    ("logistic", "log_sigmoid"): {
        "naive formula": lambda z: np.log(1 / (1 + np.exp(-np.clip(z, -700, 700)))),
        "sign error": lambda z: -np.logaddexp(0.0, z),
        "log1p without the shift": lambda z: -np.log1p(np.exp(np.minimum(-z, 700.0))),
    },
    ("logistic", "logistic_loss_grad"): {
        "sum instead of mean": lambda w, b, X, y, lam=0.0: (
            lambda m: (np.sum(np.logaddexp(0, -m)) + lam / 2 * w @ w,
                       X.T @ (-y / (1 + np.exp(np.clip(m, -700, 700)))) + lam * w,
                       np.sum(-y / (1 + np.exp(np.clip(m, -700, 700))))))(y * (X @ w + b)),
        "gradient sign error": lambda w, b, X, y, lam=0.0: (
            lambda m: (np.mean(np.logaddexp(0, -m)) + lam / 2 * w @ w,
                       X.T @ (y / (1 + np.exp(np.clip(m, -700, 700)))) / len(y) + lam * w,
                       np.mean(y / (1 + np.exp(np.clip(m, -700, 700))))))(y * (X @ w + b)),
        "penalised the bias too / forgot lam": lambda w, b, X, y, lam=0.0: (
            lambda m: (np.mean(np.logaddexp(0, -m)),
                       X.T @ (-y / (1 + np.exp(np.clip(m, -700, 700)))) / len(y),
                       np.mean(-y / (1 + np.exp(np.clip(m, -700, 700))))))(y * (X @ w + b)),
    },
    ("softmax", "softmax_rows"): {
        "naive (overflows)": lambda Z: np.exp(np.clip(Z, -700, 700)) / np.exp(np.clip(Z, -700, 700)).sum(1, keepdims=True),
        "normalised over columns": lambda Z: (lambda E: E / E.sum(0, keepdims=True))(np.exp(Z - Z.max())),
        "shift by the global max": lambda Z: (lambda E: E / E.sum(1, keepdims=True))(np.exp(Z - Z.max())),
    },
    ("softmax", "softmax_jacobian"): {
        "forgot the diagonal": lambda p: -np.outer(p, p),
        "sign error": lambda p: np.outer(p, p) - np.diag(p),
        "p p^T read as a dot product": lambda p: np.diag(p) - p @ p,
    },
    ("softmax", "softmax_grad"): {
        "sign error": lambda W, X, Y: X.T @ (Y - _softmax(X @ W)) / len(X),
        "sum instead of mean": lambda W, X, Y: -X.T @ (Y - _softmax(X @ W)),
        "transposed": lambda W, X, Y: (-X.T @ (Y - _softmax(X @ W)) / len(X)).T,
    },
    ("softmax", "log_softmax_derivative"): {
        "derivative with respect to z1": lambda: (lambda z1, z2, z3: 1 - sp.exp(z1) / (
            sp.exp(z1) + sp.exp(z2) + sp.exp(z3)))(*_sym("z1 z2 z3")),
        "missing minus": lambda: (lambda z1, z2, z3: sp.exp(z2) / (
            sp.exp(z1) + sp.exp(z2) + sp.exp(z3)))(*_sym("z1 z2 z3")),
    },
}

WRONG_CASES = [(s, e, label) for (s, e), answers in WRONG.items() for label in answers]


def test_every_exercise_of_my_sets_has_wrong_answers():
    for s in MY_SETS:
        for e in get_set(s).exercises:
            kept = getattr(load_reference(s), "WRONG", {}).get(e, {})  # kept with the reference
            assert len(WRONG.get((s, e), {})) + len(kept) >= 2, (s, e)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the naive answers overflow on purpose
@pytest.mark.parametrize("set_name,exercise,label", WRONG_CASES)
def test_wrong_answer_fails(set_name, exercise, label):
    got, total, results = score(set_name, exercise, WRONG[(set_name, exercise)][label])
    assert got < total, f"{label!r} earned full points"
    failed = [r for r in results if r["status"] == "failed"]
    assert all(r["output"] for r in failed)


def test_feedback_is_precise():
    """A failure names the quantity, expected and obtained values, the tolerance and the call."""
    wrong = WRONG[("perceptron", "perceptron_update")]["strict inequality"]
    _, _, results = score("perceptron", "perceptron_update", wrong)
    msg = next(r["output"] for r in results if r["status"] == "failed")
    assert "w_new: expected" in msg and "got" in msg and "rtol=" in msg
    assert "in the call perceptron_update(array([0., 0.]" in msg


def test_check_prints_and_never_raises(capsys):
    from linclf_grader import check

    def perceptron_update(w, b, x, y, eta=1.0):
        raise ZeroDivisionError("oops")

    assert check(perceptron_update) is None
    out = capsys.readouterr().out
    assert "perceptron_update: 0/4 points" in out and "ZeroDivisionError: oops" in out
    check(stub_functions("perceptron")["perceptron_update"])
    assert "(not implemented yet)" in capsys.readouterr().out
    check(load_reference("perceptron").perceptron_update)
    out = capsys.readouterr().out
    # every exercise has hidden tests now: passing the public ones is said to be no guarantee
    assert "4/4 points from the public tests" in out and "1 hidden test(s)" in out


def test_check_accepts_explicit_ids():
    ref = load_reference("fisher")
    ex, results = evaluate("fisher.midpoint_bias", ref.midpoint_bias)
    assert ex.name == "midpoint_bias" and all(r["status"] == "passed" for r in results)
    with pytest.raises(ValueError, match="no exercise set has a function"):
        evaluate("not_an_exercise", ref.midpoint_bias)


# --------------------------------------------------------------------------
# the template command (the pages: test_exercise_pages.py)
# --------------------------------------------------------------------------
def test_template_cli_prints_the_set():
    from linclf_grader.cli import main

    proc = subprocess.run([sys.executable, "-m", "linclf_grader.cli", "--template", "fisher"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout == get_set("fisher").template()
    assert main(["--template", "nope"]) == 2
