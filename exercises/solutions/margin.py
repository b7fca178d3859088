"""Reference solutions: exercise set "margin" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp

from linclf_grader import test
from linclf_grader.framework import assert_expr, unpack


def geometric_margin(X, y, w, b):
    # the smallest signed distance y_i (w.x_i + b) / |w|; negative when a point is on the wrong side
    return float(np.min(y * (X @ w + b)) / np.linalg.norm(w))


def canonical_hyperplane(X, y, w, b):
    gamma_hat = np.min(y * (X @ w + b))
    if not gamma_hat > 0:
        raise ValueError(f"(w, b) does not separate the training set: the smallest functional "
                         f"margin is {gamma_hat}, it must be > 0")
    return w / gamma_hat, b / gamma_hat


def best_offset(X, y, u):
    u = u / np.linalg.norm(u)        # rho is defined for a unit normal
    p = X @ u
    m_plus, M_minus = p[y > 0].min(), p[y < 0].max()
    return float((m_plus - M_minus) / 2), float(-(m_plus + M_minus) / 2)


def two_point_svm():
    p1, p2, q1, q2 = sp.symbols("p1 p2 q1 q2", real=True)
    p, q = sp.Matrix([p1, p2]), sp.Matrix([q1, q2])
    a = sp.Symbol("a", positive=True)
    # the dual with one point per class: alpha_+ = alpha_- = a, W(a) = 2a - a^2 |p - q|^2 / 2
    W = 2 * a - a**2 * (p - q).dot(p - q) / 2
    (a_star,) = sp.solve(sp.diff(W, a), a)
    w = a_star * (p - q)
    b = 1 - w.dot(p)                  # p is a support vector: w.p + b = 1
    return sp.Matrix([w[0], w[1], sp.simplify(b)])


def support_vector_indices(X, y, alpha, C, tol=1e-6):
    # a support vector is defined by its multiplier (alpha_i > 0), not by where it lies: a point
    # on the margin with alpha_i = 0 is not one; "0" and "C" are meant up to the solver's tol
    sv = np.flatnonzero(alpha > tol)
    at_bound = alpha[sv] >= C - tol
    return sv, sv[~at_bound], sv[at_bound]


def scaling_counterexample():
    # three points: with s = (1, 1) all of them lie on the margin (w = (-1/6, 1/2), b = 0); shrink
    # x1 tenfold and (3, -1) comes so close to (0, -2) in x1 that the negative (0, -2) leaves the
    # margin: the margin is Euclidean, so the units of the features decide which points bind
    # before: all three on the margin, w = (-1/6, 1/2), b = 0 (three equations, three unknowns);
    # after: the SVM of the two remaining margin points, the perpendicular bisector of p = (0, 2)
    # and q = (0.3, -1): w = 2 (p - q) / |p - q|^2, b = (|q|^2 - |p|^2) / |p - q|^2
    X = np.array([[0.0, 2.0], [0.0, -2.0], [3.0, -1.0]])
    y = np.array([1.0, -1.0, -1.0])
    p, q = np.array([0.0, 2.0]), np.array([0.3, -1.0])
    w1 = 2 * (p - q) / ((p - q) @ (p - q))
    b1 = (q @ q - p @ p) / ((p - q) @ (p - q))
    return X, y, np.array([0.1, 1.0]), np.array([-1 / 6, 0.5]), 0.0, w1, float(b1)


def alpha_margin_identity():
    gamma, w_norm, C = sp.symbols("gamma w_norm C", positive=True)
    xi_sum = sp.Symbol("xi_sum", nonnegative=True)
    # ||w||^2 = sum_i alpha_i y_i w.x_i                        (w = sum alpha_i y_i x_i)
    #         = sum_i alpha_i (1 - xi_i - y_i b)               (alpha_i [y_i f(x_i) - 1 + xi_i] = 0)
    #         = sum_i alpha_i - sum_i alpha_i xi_i             (sum alpha_i y_i = 0)
    #         = sum_i alpha_i - C sum_i xi_i                   (xi_i > 0 => mu_i = 0 => alpha_i = C)
    soft = w_norm**2 + C * xi_sum
    hard = soft.subs({xi_sum: 0, w_norm: 1 / gamma})
    dual_value = soft - w_norm**2 / 2          # W = sum alpha - 1/2 ||w||^2: the primal value
    return hard, soft, dual_value


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
# three collinear points on the positive margin x1 = 2 (w = (1, 0), b = -1), two of them
# with alpha = 0; multipliers just inside the tolerance, and a tol given explicitly
X_COL = np.array([[2.0, -1.0], [2.0, 0.0], [2.0, 1.0], [0.0, 0.0], [3.0, 2.0], [-1.0, 1.0]])
Y_COL = np.array([1.0, 1.0, 1.0, -1.0, 1.0, -1.0])
ALPHA_COL = np.array([0.0, 0.5, 5e-7, 0.5, 0.0, 0.0])


@test("margin.support_vector_indices", points=1, hidden=True, visibility="after_due_date")
def test_hidden_collinear_margin_points_and_tol(f):
    from linclf_grader.sets.margin import check_support_vectors

    check_support_vectors(f(X_COL, Y_COL, ALPHA_COL, 1e6), [1, 3], [1, 3], [])
    # with a stricter tolerance the multiplier 5e-7 counts, and 0.5 + 5e-7 is no longer at C = 0.5 + 1e-6
    alpha = np.array([0.0, 0.5, 5e-7, 0.5 + 5e-7, 0.0, 0.0])
    check_support_vectors(f(X_COL, Y_COL, alpha, 0.5 + 1e-6, tol=1e-9), [1, 2, 3], [1, 2, 3], [])
    check_support_vectors(f(X_COL, Y_COL, alpha, 0.5 + 1e-6, tol=1e-5), [1, 3], [], [1, 3])


_RNG = np.random.default_rng(7071125)
X_R = np.round(np.vstack([_RNG.normal(1.5, 0.6, (5, 3)), _RNG.normal(-1.5, 0.6, (5, 3))]), 2)
Y_R = np.repeat([1.0, -1.0], 5)
W_R = np.array([0.8, 1.1, 0.6])


@test("margin.geometric_margin", points=1, hidden=True, visibility="after_due_date")
def test_hidden_margin_of_other_data(f):
    from linclf_grader.framework import assert_close

    assert_close(f(X_R, Y_R, W_R, 0.3), geometric_margin(X_R, Y_R, W_R, 0.3), "gamma")
    assert_close(f(X_R, -Y_R, W_R, 0.3), geometric_margin(X_R, -Y_R, W_R, 0.3), "gamma")


@test("margin.canonical_hyperplane", points=1, hidden=True, visibility="after_due_date")
def test_hidden_canonical_form_of_other_data(f):
    from linclf_grader.framework import assert_close, assert_raises

    w_ref, b_ref = canonical_hyperplane(X_R, Y_R, 4.0 * W_R, 1.2)
    w_c, b_c = unpack(f(X_R, Y_R, 4.0 * W_R, 1.2), 2, "the result (w_c, b_c)")
    assert_close(w_c, w_ref, "w_c")
    assert_close(b_c, b_ref, "b_c")
    assert_raises(f, "ValueError", X_R, -Y_R, W_R, 0.3)


@test("margin.best_offset", points=1, hidden=True, visibility="after_due_date")
def test_hidden_offset_of_other_data(f):
    from linclf_grader.framework import assert_close

    for u in (W_R, np.array([0.0, -2.0, 1.0])):
        rho_ref, b_ref = best_offset(X_R, Y_R, u)
        rho, b = unpack(f(X_R, Y_R, u), 2, "the result (rho_u, b)")
        assert_close(rho, rho_ref, "rho_u")
        assert_close(b, b_ref, "b")


@test("margin.two_point_svm", points=2, hidden=True, visibility="after_due_date")
def test_hidden_two_point_svm_symbolically(f):
    assert_expr(f(), str(two_point_svm()), ["p1", "p2", "q1", "q2"], "(w1, w2, b)")


@test("margin.scaling_counterexample", points=1, hidden=True, visibility="after_due_date")
def test_hidden_counterexample_svms_have_dual_certificates(f):
    """A second, independent check of the student's two SVMs: each (w, b) separates its data
    with y f(x) >= 1 and w = sum alpha_i y_i x_i, sum alpha_i y_i = 0 with alpha >= 0 on the
    points where y f(x) = 1 (non-negative least squares), i.e. the KKT conditions hold."""
    from scipy.optimize import nnls

    X, y, s, w0, b0, w1, b1 = unpack(f(), 7, "the result")
    X, y, s = (np.asarray(v, dtype=float) for v in (X, y, s))
    for data, w, b, what in ((X, w0, b0, "before"), (X * s, w1, b1, "after")):
        w = np.asarray(w, dtype=float)
        yf = y * (data @ w + float(b))
        assert yf.min() > 1 - 1e-6, f"the SVM {what} the scaling violates a margin constraint"
        on = np.abs(yf - 1) <= 1e-6
        A = np.vstack([(y[on, None] * data[on]).T, y[on]])
        _, residual = nnls(A, np.r_[w, 0.0])
        assert residual <= 1e-6 * (1 + np.linalg.norm(w)), f"the SVM {what} the scaling is not optimal"


@test("margin.alpha_margin_identity", points=1, hidden=True, visibility="after_due_date")
def test_hidden_hard_and_soft_sums_symbolically(f):
    hard, soft, _ = unpack(f(), 3, "the result")
    names = ["gamma", "w_norm", "C", "xi_sum"]
    assert_expr(hard, "1/gamma**2", names, "hard", positive=names)
    assert_expr(soft, "w_norm**2 + C*xi_sum", names, "soft", positive=names)


@test("margin.alpha_margin_identity", points=2, hidden=True, visibility="after_due_date")
def test_hidden_zero_duality_gap(f):
    """W(alpha*) equals the primal value 1/2 ||w*||^2 + C sum xi*."""
    _, _, dual_value = unpack(f(), 3, "the result")
    names = ["gamma", "w_norm", "C", "xi_sum"]
    assert_expr(dual_value, "w_norm**2/2 + C*xi_sum", names, "dual_value", positive=names)


# --------------------------------------------------------------------------
# typical wrong answers
# --------------------------------------------------------------------------
def _sv_wrong(kind):
    def wrong(X, y, alpha, C, tol=1e-6):
        if kind == "no tolerance":
            sv = np.flatnonzero(alpha > 0)
            bound = alpha[sv] >= C
            return sv, sv[~bound], sv[bound]
        if kind == "bound counted as margin":
            sv = np.flatnonzero(alpha > tol)
            return sv, sv, sv[alpha[sv] >= C - tol]
        # geometry instead of the multipliers: every point with y f(x) <= 1
        w = (alpha * y) @ X
        free = (alpha > tol) & (alpha < C - tol)
        b = np.mean(y[free] - X[free] @ w)
        m = y * (X @ w + b)
        sv = np.flatnonzero(m <= 1 + 1e-6)
        bound = m[sv] < 1 - 1e-6
        return sv, sv[~bound], sv[bound]
    return wrong


def _identity_wrong(kind):
    def wrong():
        gamma, w_norm, C = sp.symbols("gamma w_norm C", positive=True)
        xi_sum = sp.Symbol("xi_sum", nonnegative=True)
        if kind == "forgot the slack":
            return 1 / gamma**2, w_norm**2, w_norm**2 / 2
        if kind == "slack with the wrong sign":
            return 1 / gamma**2, w_norm**2 - C * xi_sum, w_norm**2 / 2 - C * xi_sum
        return 1 / gamma, w_norm + C * xi_sum, w_norm / 2 + C * xi_sum   # gamma not squared
    return wrong


WRONG = {
    "scaling_counterexample": {
        "a scaling of both features alike (the SVM only rescales)": lambda: (
            np.array([[0.0, 2.0], [0.0, -2.0], [3.0, -1.0]]), np.array([1.0, -1.0, -1.0]), np.array([3.0, 3.0]),
            np.array([-1 / 6, 0.5]), 0.0, np.array([-1 / 18, 1 / 6]), 0.0),
        "data that no line separates": lambda: (
            np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]), np.array([1.0, 1.0, -1.0, -1.0]),
            np.array([2.0, 1.0]), np.zeros(2), 0.0, np.zeros(2), 0.0),
        "a point too close to the margin to call": lambda: (
            np.array([[0.0, 2.0], [0.0, -2.0], [3.0, -1.0], [0.0, 2.0005]]), np.array([1.0, -1.0, -1.0, 1.0]),
            np.array([0.1, 1.0]), np.array([-1 / 6, 0.5]), 0.0, np.array([-1 / 6, 0.5]), 0.0),
        "the SVM after the scaling taken as the scaled SVM (w0 / s)": lambda: (
            lambda r: (*r[:5], r[3] / r[2], r[4]))(scaling_counterexample()),
    },
    "support_vector_indices": {
        "alpha > 0 without tolerance": _sv_wrong("no tolerance"),
        "points with y f(x) <= 1 (geometry)": _sv_wrong("geometry"),
        "bound vectors counted as margin vectors": _sv_wrong("bound counted as margin"),
    },
    "alpha_margin_identity": {
        "forgot the slack": _identity_wrong("forgot the slack"),
        "slack with the wrong sign": _identity_wrong("slack with the wrong sign"),
        "norms not squared": _identity_wrong("not squared"),
    },
}
