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


def bias_interval(alpha, X, y, C):
    w = X.T @ (alpha * y)
    g = y - X @ w                                   # the b that puts x_i exactly on its margin
    zero, at_C = alpha <= 1e-8, alpha >= C - 1e-8
    free = ~zero & ~at_C
    if free.any():
        b = float(np.mean(g[free]))
        return b, b
    # y_i f(x_i) >= 1 (alpha_i = 0) or <= 1 (alpha_i = C); multiplying by y_i = +-1 turns it
    # into b >= g_i or b <= g_i: a lower bound from positives at 0 and negatives at C
    lower = (zero & (y > 0)) | (at_C & (y < 0))
    upper = (zero & (y < 0)) | (at_C & (y > 0))
    lo = float(g[lower].max()) if lower.any() else -np.inf
    hi = float(g[upper].min()) if upper.any() else np.inf
    return lo, hi


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
    # L = |w|^2/2 + b^2/2 + C/2 sum xi^2 - sum alpha_i [y_i(w.x_i + b) - 1 + xi_i]:
    # dL/dw = 0 gives w = sum alpha_i y_i x_i, dL/db = 0 gives b = sum alpha_i y_i (no equality
    # constraint left), dL/dxi_i = 0 gives xi_i = alpha_i / C; only alpha >= 0 remains
    ay = (alpha.T * ys)[0]
    return (sp.nsimplify(sum(alpha) - (alpha.T * Q * alpha)[0] / 2) - ay**2 / 2
            - (alpha.T * alpha)[0] / (2 * C))


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

_RNG = np.random.default_rng(8081125)
_X_R = np.round(_RNG.normal(size=(7, 3)), 3)
_Y_R = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0])
_ALPHA_R = np.array([0.3, 0.0, 1.0, 0.45, 0.55, 1.0, 0.2])     # C = 1: four free, two at C


@test("duality.dual_objective", points=1, hidden=True, visibility="after_due_date")
def test_hidden_objective_in_three_dimensions(f):
    assert_close(f(_ALPHA_R, _X_R, _Y_R), dual_objective(_ALPHA_R, _X_R, _Y_R), "W(alpha)")


@test("duality.primal_from_dual", points=1, hidden=True, visibility="after_due_date")
def test_hidden_primal_in_three_dimensions(f):
    from linclf_grader.framework import unpack

    w_ref, b_ref = primal_from_dual(_ALPHA_R, _X_R, _Y_R, 1.0)
    w, b = unpack(f(_ALPHA_R, _X_R, _Y_R, 1.0), 2, "the result (w, b)")
    assert_close(w, w_ref, "w")
    assert_close(b, b_ref, "b")


@test("duality.small_dual_objective", points=1, hidden=True, visibility="after_due_date")
def test_hidden_small_dual_symbolically(f):
    assert_expr(f(), str(small_dual_objective()), ["alpha1", "alpha2", "alpha3"], "W(alpha1, alpha2, alpha3)")


@test("duality.small_dual_alpha", points=2, hidden=True, visibility="after_due_date")
def test_hidden_small_dual_alpha_exactly(f):
    """The optimum is unique here (three support vectors, independent constraints)."""
    assert_close(as_array(f(), (5,), "alpha"), small_dual_alpha(), "alpha", rtol=1e-7, atol=1e-9)


_X_DUP = np.array([[1.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.0, -1.0]])
_Y_DUP = np.array([1.0, 1.0, -1.0, -1.0])


@test("duality.l2svm_dual", points=1, hidden=True, visibility="after_due_date")
def test_hidden_l2_duplicate_points(f):
    """Two copies of one point: two multipliers, each with its own alpha_i^2/(2C)."""
    names = ["alpha1", "alpha2", "alpha3", "alpha4", "C"]
    assert_expr(f(_X_DUP, _Y_DUP), str(l2svm_dual(_X_DUP, _Y_DUP)), names, "the dual objective",
                positive=["C"])


_X_1 = np.array([[-1.0], [0.5], [2.0], [3.0]])
_Y_1 = np.array([-1.0, 1.0, 1.0, 1.0])


@test("duality.l2svm_dual", points=1, hidden=True, visibility="after_due_date")
def test_hidden_l2_unbalanced_one_feature(f):
    """Unbalanced labels in one feature: the b^2 / 2 term shows as (sum alpha_i y_i)^2 / 2."""
    names = ["alpha1", "alpha2", "alpha3", "alpha4", "C"]
    assert_expr(f(_X_1, _Y_1), str(l2svm_dual(_X_1, _Y_1)), names,
                "the dual objective", positive=["C"])


_X_BI = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [2.0, 1.0], [3.0, 3.0], [1.0, 2.0], [2.0, 0.0],
                  [-1.0, 1.0]])
_Y_BI = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0, -1.0])


@test("duality.bias_interval", points=1, hidden=True, visibility="after_due_date")
def test_hidden_bias_unique_without_a_free_support_vector(f):
    """C = 1/2: no free support vector, yet the bounds meet: b = -1 exactly."""
    alpha = 0.5 * np.array([0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0])
    lo, hi = f(alpha, _X_BI, _Y_BI, 0.5)
    assert_close(lo, -1.0, "b_lo", rtol=1e-9, atol=1e-9)
    assert_close(hi, -1.0, "b_hi", rtol=1e-9, atol=1e-9)


@test("duality.bias_interval", points=1, hidden=True, visibility="after_due_date")
def test_hidden_bias_interval_with_solver_noise(f):
    """The C = 0.2 solution as a solver prints it (1e-11 off the bounds), rows shuffled."""
    C, order = 0.2, np.array([4, 0, 7, 3, 6, 1, 5, 2])
    alpha = C * np.array([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    alpha = np.where(alpha == 0, 1e-11, alpha - 1e-11)
    lo, hi = f(alpha[order], _X_BI[order], _Y_BI[order], C)
    assert_close(lo, -1.0, "b_lo", rtol=1e-8, atol=1e-8)
    assert_close(hi, -0.8, "b_hi", rtol=1e-8, atol=1e-8)


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


def _l2_bias_free(X, y):
    ay = sum(a * v for a, v in zip(sp.symbols(f"alpha1:{len(y) + 1}", real=True), sp.Matrix(y.tolist())))
    return l2svm_dual(X, y) + ay**2 / 2


def _bias_wrong(swap=False, free_too=False):
    def wrong(alpha, X, y, C):
        w = X.T @ (alpha * y)
        g = y - X @ w
        zero, at_C = alpha <= 1e-8, alpha >= C - 1e-8
        free = ~zero & ~at_C
        if free.any() and not free_too:
            return float(np.mean(g[free])), float(np.mean(g[free]))
        lower = (zero & (y > 0)) | (at_C & (y < 0))
        upper = (zero & (y < 0)) | (at_C & (y > 0))
        if swap:                      # the sign of y_i forgotten when dividing the inequality
            lower, upper = (zero & (y > 0)) | (at_C & (y > 0)), (zero & (y < 0)) | (at_C & (y < 0))
        lo = g[lower].max() if lower.any() else -np.inf
        hi = g[upper].min() if upper.any() else np.inf
        return float(lo), float(hi)
    return wrong


WRONG = {
    "bias_interval": {
        "bound by the label only, not by the case of alpha": _bias_wrong(swap=True),
        "ignores the free support vectors": _bias_wrong(free_too=True),
    },
    "l2svm_dual": {
        "bias not penalised (the chapter's L2 dual)": _l2_bias_free,
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
