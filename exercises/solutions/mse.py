"""Reference solutions: exercise set "mse" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp

from linclf_grader import my_data, test
from linclf_grader.framework import assert_close, assert_equal, unpack


def _Z(X, y):
    return y[:, None] * np.hstack([X, np.ones((len(X), 1))])


def mse_solution(X, y, margins):
    a = np.linalg.pinv(_Z(X, y)) @ margins
    return a[:-1], a[-1]


def fisher_margins(y):
    n, n_plus, n_minus = len(y), np.sum(y == 1), np.sum(y == -1)
    return np.where(y == 1, n / n_plus, n / n_minus)


def lms_update(a, z, margin, eta):
    return a + eta * (margin - a @ z) * z


def mse_gradient():
    a1, a2, z1, z2, beta = sp.symbols("a1 a2 z1 z2 beta", real=True)
    J = (a1 * z1 + a2 * z2 - beta) ** 2
    return sp.Matrix([sp.diff(J, a1), sp.diff(J, a2)])


def ho_kashyap(X, y, eta=0.5, max_iter=10_000):
    Z = _Z(X, y)
    Z_pinv = np.linalg.pinv(Z)
    beta = np.ones(len(Z))
    for _ in range(max_iter + 1):
        a = Z_pinv @ beta
        e = Z @ a - beta
        if np.all(Z @ a > 0):
            return a, beta, True
        if e.max() <= 1e-8 * np.linalg.norm(e):      # e <= 0, e != 0, Z^T e = 0: no separating a
            return a, beta, False
        beta = beta + eta * (e + np.abs(e))          # 2 eta e^+: the margins only grow
    raise RuntimeError("Ho-Kashyap: no decision after max_iter updates")


def masking_experiment(X, y):
    target = my_data("masking_experiment")["target"]        # the student's target of class 1
    X_tilde = np.hstack([X, np.ones((len(X), 1))])
    T = np.eye(int(y.max()) + 1)[y.astype(int)]
    T[:, 1] *= target
    A = np.linalg.lstsq(X_tilde, T, rcond=None)[0]
    pred = np.argmax(X_tilde @ A, axis=1)
    return int(len(np.unique(pred))), float(np.mean(pred != y))


# --------------------------------------------------------------------------
# hidden tests: traps the public tests do not show
# --------------------------------------------------------------------------
# separable with a small margin: 895 updates of beta
_X_SLOW = np.array([[-1.0, -0.5], [0.3, 1.8], [0.7, -0.9], [1.7, -0.9], [-0.0, -1.0], [-0.7, 1.2],
                    [-1.1, 1.7], [1.2, 1.8]])
_Y_SLOW = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
# plain least squares already separates: no update at all
_X_EASY = np.array([[0.0, 0.0], [1.0, 0.5], [0.5, 1.0], [3.0, 3.0], [4.0, 3.5], [3.5, 4.0]])
_Y_EASY = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
# three features, overlapping classes: certified at the first step
_X_3D = np.array([[0.3, 0.8, 0.3], [-1.3, 0.9, 0.4], [-0.5, 0.6, 0.4], [0.3, 0.0, 0.5], [-0.7, -0.2, -0.5],
                  [0.6, 0.0, -0.3], [-0.8, -0.3, 0.0], [-0.3, 1.3, 1.0], [-2.7, -1.9, -0.2], [-0.4, 0.2, 0.2]])
_Y_3D = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0])


@test("mse.ho_kashyap", points=2, hidden=True, visibility="after_due_date")
def test_hidden_slow_easy_and_three_features(f):
    for X, y in ((_X_SLOW, _Y_SLOW), (_X_EASY, _Y_EASY), (_X_3D, _Y_3D)):
        a_ref, beta_ref, sep_ref = ho_kashyap(X, y)
        a, beta, sep = unpack(f(X, y), 3, "the result (a, beta, separable)")
        assert_equal(sep, bool(sep_ref), "separable")
        assert_close(a, a_ref, "a", rtol=1e-6, atol=1e-9)
        assert_close(beta, beta_ref, "beta", rtol=1e-6)


# complete masking: the middle class (label 0 here) is never predicted; samples shuffled
_X_MASKED = np.array([[-1.6, -0.2], [-0.9, -0.5], [0.3, 0.7], [-1.1, -0.3], [-1.9, -1.1], [1.5, 1.2],
                      [1.7, 1.2], [1.9, 2.0], [-0.4, 0.0], [-2.4, -0.7], [-2.5, -1.9], [2.6, 1.1],
                      [-1.6, -0.9], [1.5, 0.4], [-0.4, -0.2]])
_Y_MASKED = np.array([0, 0, 0, 1, 1, 2, 2, 2, 0, 1, 1, 2, 1, 2, 0])


@test("mse.masking_experiment", points=2, hidden=True, visibility="after_due_date", variant=True)
def test_hidden_middle_class_fully_masked(f, data):
    """The middle class is label 0 here, so the student's target goes to an outer class, which
    does not unmask it: 2 classes predicted, 5 errors, whatever the target in [1.1, 4]."""
    assert 1.1 <= data["target"] <= 4.0
    n, err = unpack(f(_X_MASKED, _Y_MASKED), 2, "the result (n_predicted, error_rate)")
    assert_equal(n, 2, "n_predicted")
    assert_close(err, 1 / 3, "error_rate")


# --------------------------------------------------------------------------
# typical wrong answers (tests/test_exercise_sets.py proves each loses points)
# --------------------------------------------------------------------------
def _hk_wrong(step="positive part", labels=True):
    def wrong(X, y, eta=0.5, max_iter=10_000):
        Z = _Z(X, y) if labels else np.hstack([X, np.ones((len(X), 1))])
        beta = np.ones(len(Z))
        for _ in range(max_iter + 1):
            a = np.linalg.pinv(Z) @ beta
            e = Z @ a - beta
            if np.all(Z @ a > 0):
                return a, beta, True
            if e.max() <= 1e-8 * np.linalg.norm(e):
                return a, beta, False
            if step == "plain gradient":
                beta = beta + 2 * eta * e
            elif step == "no factor 2":
                beta = beta + eta * np.maximum(e, 0.0)
            else:
                beta = beta + eta * (e + np.abs(e))
            if np.any(beta <= 0):
                return a, beta, False
        return a, beta, False
    return wrong


def _masking_wrong(mistake):
    def wrong(X, y):
        X_tilde = X if mistake == "no intercept" else np.hstack([X, np.ones((len(X), 1))])
        T = np.eye(3)[y.astype(int)]
        T[:, 1] *= 1.0 if mistake == "target ignored" else my_data("masking_experiment")["target"]
        if mistake == "ovr signs":          # count a class only where its score alone is above 1/2
            F = X_tilde @ np.linalg.lstsq(X_tilde, T, rcond=None)[0]
            positive = F > 0.5
            pred = np.where(positive.sum(1) == 1, positive.argmax(1), -1)
            return int(len(np.unique(pred[pred >= 0]))), float(np.mean(pred != y))
        pred = np.argmax(X_tilde @ np.linalg.lstsq(X_tilde, T, rcond=None)[0], axis=1)
        if mistake == "classes of y":
            return int(len(np.unique(y))), float(np.mean(pred != y))
        if mistake == "error count":
            return int(len(np.unique(pred))), float(np.sum(pred != y))
        return int(len(np.unique(pred))), float(np.mean(pred != y))
    return wrong


WRONG = {
    "ho_kashyap": {
        "plain gradient step on beta (e, not its positive part)": _hk_wrong(step="plain gradient"),
        "labels not applied (x_tilde instead of z)": _hk_wrong(labels=False),
        "margin step eta e+ (the factor 2 forgotten)": _hk_wrong(step="no factor 2"),
    },
    "masking_experiment": {
        "no intercept column": _masking_wrong("no intercept"),
        "number of classes in y": _masking_wrong("classes of y"),
        "error count instead of rate": _masking_wrong("error count"),
        "the target ignored (plain one-hot)": _masking_wrong("target ignored"),
    },
}
