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


def midpoint_margins(X, y):
    # thm-mse-fisher with beta_+ + beta_- = 2: w* = s S_w^{-1} Delta does not depend on how the
    # sum 2 is split, and b* = (beta_+ N_+ - beta_- N_-)/N - m^T w* grows with beta_+ at slope 1.
    # The cut at the midpoint asks b* = -(m_+ + m_-)^T w* / 2; with m - (m_+ + m_-)/2 =
    # (N_+ - N_-)/(2N) Delta this gives beta_+ = 2 N_-/N + (N_+ - N_-)/(2N) s J, J = Delta^T S_w^{-1} Delta
    P, M = X[y == 1], X[y == -1]
    n_p, n_m, n = len(P), len(M), len(X)
    delta = P.mean(axis=0) - M.mean(axis=0)
    S_w = (P - P.mean(0)).T @ (P - P.mean(0)) + (M - M.mean(0)).T @ (M - M.mean(0))
    J = delta @ np.linalg.solve(S_w, delta)
    k = n_p * n_m / n
    s = 2 * k / (1 + k * J)
    beta_p = 2 * n_m / n + (n_p - n_m) / (2 * n) * s * J
    return np.where(y == 1, beta_p, 2 - beta_p)


def lms_update(a, z, margin, eta):
    return a + eta * (margin - a @ z) * z


def loo_score():
    # without row i: Z^T Z - z z^T and Z^T beta - beta_i z; Sherman-Morrison, with A = Z^T Z,
    # (A - z z^T)^{-1} = A^{-1} + A^{-1} z z^T A^{-1} / (1 - h), so
    # z^T a_(-i) = (s - h beta) + h (s - h beta) / (1 - h) = (s - h beta) / (1 - h)
    s, h, beta = sp.symbols("s h beta", real=True)
    return (s - h * beta) / (1 - h)


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


# Fresh inputs from fixed seeds, expected values from the reference above: a table of the
# public tests' answers loses these points.
@test("mse.mse_solution", points=1, hidden=True, visibility="after_due_date")
def test_hidden_mse_solution_fresh_inputs(f):
    rng = np.random.default_rng(401)
    X, y = rng.normal(size=(9, 3)), np.r_[np.ones(4), -np.ones(5)]
    margins = rng.uniform(0.5, 2.0, size=9)
    w_ref, b_ref = mse_solution(X, y, margins)
    w, b = unpack(f(X, y, margins), 2, "the result (w, b)")
    assert_close(w, w_ref, "w")
    assert_close(b, b_ref, "b")


@test("mse.lms_update", points=1, hidden=True, visibility="after_due_date")
def test_hidden_lms_fresh_inputs(f):
    rng = np.random.default_rng(402)
    for _ in range(3):
        a, z = rng.normal(size=4), rng.normal(size=4)
        margin, eta = float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.01, 0.5))
        assert_close(f(a, z, margin, eta), lms_update(a, z, margin, eta), "a_new")


@test("mse.loo_score", points=1, hidden=True, visibility="after_due_date")
def test_hidden_left_out_score_symbolic(f):
    """The whole expression, compared symbolically with the reference's derivation."""
    from linclf_grader.framework import read_expr
    from linclf_grader.symbolic import compare_expr, parse_expr_safely

    ok, msg = compare_expr(read_expr(f(), "the left-out score"), parse_expr_safely(str(loo_score())),
                           ["s", "h", "beta"])
    if not ok:
        raise AssertionError(f"the left-out score: {msg}")


@test("mse.ho_kashyap", points=2, hidden=True, visibility="after_due_date")
def test_hidden_slow_easy_and_three_features(f):
    for X, y in ((_X_SLOW, _Y_SLOW), (_X_EASY, _Y_EASY), (_X_3D, _Y_3D)):
        a_ref, beta_ref, sep_ref = ho_kashyap(X, y)
        a, beta, sep = unpack(f(X, y), 3, "the result (a, beta, separable)")
        assert_equal(sep, bool(sep_ref), "separable")
        assert_close(a, a_ref, "a", rtol=1e-6, atol=1e-9)
        assert_close(beta, beta_ref, "beta", rtol=1e-6)


_X_MID3 = np.array([[0.2, 1.0, -0.5], [1.1, 0.4, 0.3], [2.0, 2.2, 1.0], [3.1, 1.0, 0.0], [2.4, 3.0, 1.5],
                    [1.0, 3.1, 2.0], [3.5, 4.0, 1.0], [0.4, 2.6, 2.5], [2.9, 0.3, 0.8], [1.8, 1.4, -1.0]])
_Y_MID3 = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0])


@test("mse.midpoint_margins", points=1, hidden=True, visibility="after_due_date")
def test_hidden_equal_classes_and_three_features(f):
    """Equal class sizes: the midpoint is the overall mean, beta = 1; then 7 against 3 in 3-D."""
    assert_close(f(_X_MID3, _Y_MID3), np.ones(10), "margins")
    y = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    assert_close(f(_X_MID3, y), midpoint_margins(_X_MID3, y), "margins")


@test("mse.loo_score", points=2, hidden=True, visibility="after_due_date")
def test_hidden_left_out_scores_against_refits(f):
    """The expression, at every sample of a data set, against N refits without that sample."""
    from linclf_grader.sets.mse import check_left_out_scores

    Z = _Z(_X_MID3, _Y_MID3)
    check_left_out_scores(f(), Z, np.linspace(0.5, 2.0, len(Z)), "hidden data")


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


def _midpoint_wrong(which):
    def wrong(X, y):
        if which == "overall mean":                     # the margins N/N_+, N/N_- scaled to sum 2
            n, n_p = len(y), np.sum(y == 1)
            b_p, b_m = n / n_p, n / (n - n_p)
            return np.where(y == 1, 2 * b_p / (b_p + b_m), 2 * b_m / (b_p + b_m))
        if which == "unit margins":
            return np.ones(len(y))
        m = midpoint_margins(X, y)                      # the labels' roles swapped
        return 2 - m
    return wrong


def _loo_wrong(which):
    def wrong():
        s, h, beta = sp.symbols("s h beta", real=True)
        return {"no denominator": s - h * beta, "plus sign": (s - h * beta) / (1 + h),
                "beta forgotten": s / (1 - h)}[which]
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
    "midpoint_margins": {
        "the overall mean's margins": _midpoint_wrong("overall mean"),
        "margins 1": _midpoint_wrong("unit margins"),
        "classes swapped": _midpoint_wrong("swapped"),
    },
    "loo_score": {
        "no denominator": _loo_wrong("no denominator"),
        "1 + h": _loo_wrong("plus sign"),
        "the margin forgotten": _loo_wrong("beta forgotten"),
    },
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
