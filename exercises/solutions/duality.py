"""Reference solutions: exercise set "duality" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp


def dual_objective(alpha, X, y):
    v = X.T @ (alpha * y)             # sum_i alpha_i y_i x_i, so alpha^T Q alpha = |v|^2
    return float(alpha.sum() - 0.5 * v @ v)


def primal_from_dual(alpha, X, y, C=np.inf):
    w = X.T @ (alpha * y)
    free = (alpha > 1e-8) & (alpha < C - 1e-8)
    if not free.any():
        raise ValueError("no free support vector (0 < alpha_i < C): b is not determined")
    # y_j (w.x_j + b) = 1 and y_j^2 = 1 give b = y_j - w.x_j; average over the free ones
    return w, float(np.mean(y[free] - X[free] @ w))


def small_dual_objective():
    a1, a2, a3 = sp.symbols("alpha1 alpha2 alpha3", real=True)
    X = sp.Matrix([[1, 2], [2, 0], [-1, 0]])
    y = sp.Matrix([1, 1, -1])
    alpha = sp.Matrix([a1, a2, a3])
    Q = sp.diag(*y) * X * X.T * sp.diag(*y)
    return sp.expand(sum(alpha) - (alpha.T * Q * alpha)[0] / 2)


def small_dual_alpha():
    # solved exactly: x1, x2 (positive) and x3 (negative) are the support vectors,
    # w = (2/3, 2/9), b = -1 (see tests/test_exercises_more.py for the KKT check)
    return np.array([2 / 27, 14 / 81, 20 / 81, 0.0, 0.0])


def l2svm_dual(X, y):
    alpha = sp.Matrix(sp.symbols(f"alpha1:{len(y) + 1}", real=True))
    C = sp.Symbol("C", positive=True)
    Xs, ys = sp.Matrix(X.tolist()), sp.Matrix(y.tolist())
    Q = sp.diag(*ys) * Xs * Xs.T * sp.diag(*ys)
    # L = |w|^2/2 + C/2 sum xi^2 - sum alpha_i [y_i(w.x_i + b) - 1 + xi_i]; dL/dxi_i = 0 gives
    # xi_i = alpha_i / C, and the xi-terms leave -sum alpha_i^2 / (2C); no upper bound on alpha
    return sp.nsimplify(sum(alpha) - (alpha.T * Q * alpha)[0] / 2) - (alpha.T * alpha)[0] / (2 * C)


def kkt_violations(X, y, alpha, b, C, tol):
    m = y * (X @ (X.T @ (alpha * y)) + b)          # y_i f(x_i)
    at_zero, at_C = alpha <= 0, alpha >= C
    violation = np.where(at_zero, 1 - m, np.where(at_C, m - 1, np.abs(m - 1)))
    box = np.maximum(-alpha, alpha - C)
    return np.flatnonzero((violation > tol) | (box > tol))


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
from linclf_grader import test  # noqa: E402
from linclf_grader.framework import as_array, assert_close, assert_equal, assert_expr, read_expr  # noqa: E402

_X_DUP = np.array([[1.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.0, -1.0]])
_Y_DUP = np.array([1.0, 1.0, -1.0, -1.0])


@test("duality.l2svm_dual", points=1, hidden=True, visibility="after_due_date")
def test_hidden_l2_duplicate_points(f):
    """Two copies of one point: two multipliers, each with its own alpha_i^2/(2C)."""
    names = ["alpha1", "alpha2", "alpha3", "alpha4", "C"]
    assert_expr(f(_X_DUP, _Y_DUP), str(l2svm_dual(_X_DUP, _Y_DUP)), names, "the dual objective",
                positive=["C"])


@test("duality.l2svm_dual", points=1, hidden=True, visibility="after_due_date")
def test_hidden_l2_large_C_is_the_hard_margin(f):
    """C -> infinity: the L2 dual tends to the hard-margin W; at C = 1e8 and the hard-margin
    optimum of a separable set it must give |w*|^2 / 2 = 20/81 to 1e-6."""
    from linclf_grader.sets.duality import ALPHA_M, X_M, Y_M, _value_at

    expr = read_expr(f(X_M, Y_M), "the dual objective")
    assert_close(_value_at(expr, ALPHA_M, 1e8, "the dual objective"), 20 / 81, "W at C = 1e8",
                 rtol=1e-6)


_X_T = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [1.0, 1.0]])
_Y_T = np.array([-1.0, 1.0, -1.0, 1.0, 1.0])


@test("duality.kkt_violations", points=1, hidden=True, visibility="after_due_date")
def test_hidden_kkt_on_the_margin_at_C(f):
    """alpha = C with y f(x) = 1 exactly (xi = 0) is no violation. Here w = (1, 1), b = -1:
    x0 (at the origin, alpha = C) and x4 (free) lie exactly on their margins; x1, x2 violate."""
    alpha = np.array([2.0, 0.0, 0.0, 0.0, 1.0])
    got = as_array(f(_X_T, _Y_T, alpha, -1.0, 2.0, 1e-9), None, "idx")
    assert_equal(got, [1, 2], "the violating indices")


@test("duality.kkt_violations", points=1, hidden=True, visibility="after_due_date")
def test_hidden_kkt_alpha_just_outside_the_box(f):
    """alpha_0 = C + 1e-4 or -1e-4 with tol = 1e-6 violates the box although x0 (the origin,
    which does not move w) is exactly on its margin."""
    for a0 in (2.0001, -0.0001):
        alpha = np.array([a0, 0.0, 0.0, 0.0, 1.0])
        got = as_array(f(_X_T, _Y_T, alpha, -1.0, 2.0, 1e-6), None, "idx")
        assert_equal(got, [0, 1, 2], f"the violating indices (alpha_0 = {a0})")


# --------------------------------------------------------------------------
# typical wrong answers (tests/test_exercise_sets.py proves each loses points)
# --------------------------------------------------------------------------
def _l2_wrong(scale):
    def wrong(X, y):
        alpha = sp.Matrix(sp.symbols(f"alpha1:{len(y) + 1}", real=True))
        C = sp.Symbol("C", positive=True)
        W = l2svm_dual(X, y) + (alpha.T * alpha)[0] / (2 * C)
        return W + scale(C) * (alpha.T * alpha)[0]
    return wrong


def _kkt_wrong(box=True, at_C_like_free=False, strict_C=False, inside_C=False):
    def wrong(X, y, alpha, b, C, tol):
        m = y * (X @ (X.T @ (alpha * y)) + b)
        at_zero, at_C = alpha <= 0, alpha >= C
        upper = np.abs(m - 1) if at_C_like_free else (m - 1 if not strict_C else 1 - m)
        violation = np.where(at_zero, 1 - m, np.where(at_C, upper, np.abs(m - 1)))
        bad = violation > tol
        if inside_C:   # "a bound support vector has xi > 0": alpha = C on the margin flagged
            bad |= at_C & (m >= 1)
        if box:
            bad |= np.maximum(-alpha, alpha - C) > tol
        return np.flatnonzero(bad)
    return wrong


WRONG = {
    "l2svm_dual": {
        "the chapter's C sum xi^2 convention (1/(4C))": _l2_wrong(lambda C: -1 / (4 * C)),
        "the L1 dual (no quadratic term)": _l2_wrong(lambda C: 0),
        "sign error: + alpha^2/(2C)": _l2_wrong(lambda C: 1 / (2 * C)),
        "C/2 instead of 1/(2C)": _l2_wrong(lambda C: -C / 2),
    },
    "kkt_violations": {
        "box not checked": _kkt_wrong(box=False),
        "alpha = C treated as on the margin": _kkt_wrong(at_C_like_free=True),
        "alpha = C must be outside the margin": _kkt_wrong(strict_C=True),
        "alpha = C must be strictly inside the margin": _kkt_wrong(inside_C=True),
    },
}
