"""Reference solutions: exercise set "fisher" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp

from linclf_grader import test
from linclf_grader.framework import assert_close, assert_direction, assert_raises, unpack


def _means(X, y):
    return X[y == 1].mean(axis=0), X[y == -1].mean(axis=0)


def within_class_scatter(X, y):
    S = np.zeros((X.shape[1], X.shape[1]))
    for label in (1, -1):
        D = X[y == label] - X[y == label].mean(axis=0)
        S += D.T @ D
    return S


def fisher_direction(X, y):
    m_plus, m_minus = _means(X, y)
    S_w = within_class_scatter(X, y)
    if np.linalg.matrix_rank(S_w) < S_w.shape[0]:
        raise ValueError("S_w is singular: Fisher's direction is not determined")
    w = np.linalg.solve(S_w, m_plus - m_minus)
    return w / np.linalg.norm(w)


def fisher_criterion(w, X, y):
    m_plus, m_minus = _means(X, y)
    return (w @ (m_plus - m_minus)) ** 2 / (w @ within_class_scatter(X, y) @ w)


def midpoint_bias(w, X, y):
    m_plus, m_minus = _means(X, y)
    return -w @ (m_plus + m_minus) / 2


def mean_difference_efficiency():
    s1, s2 = sp.symbols("s1 s2", positive=True)
    d1, d2 = sp.symbols("d1 d2", real=True)
    d, S_w = sp.Matrix([d1, d2]), sp.diag(s1, s2)
    J_d = (d.T * d)[0] ** 2 / (d.T * S_w * d)[0]           # J_F at w = d
    J_max = (d.T * S_w.inv() * d)[0]                       # the maximum, thm-fisher-max
    rho = sp.simplify(J_d / J_max)
    # rho depends on d only through t = d1^2 / (d1^2 + d2^2) in [0, 1]:
    # rho = 1 / ((s1 t + s2 (1 - t)) (t / s1 + (1 - t) / s2)), whose denominator is a concave
    # parabola in t, symmetric about t = 1/2 (swap t and 1 - t): the worst case is t = 1/2
    t = sp.symbols("t", nonnegative=True)
    rho_t = 1 / ((s1 * t + s2 * (1 - t)) * (t / s1 + (1 - t) / s2))
    assert sp.simplify(rho.subs({d1: sp.sqrt(t), d2: sp.sqrt(1 - t)}) - rho_t) == 0
    worst = sp.factor(sp.simplify(rho_t.subs(t, sp.Rational(1, 2))))
    return rho, worst


def bayes_rule_shared_covariance(X, y, p_plus):
    # the error: the maximum-likelihood estimate of a covariance shared by the two classes
    # weights each class covariance by its size, Sigma = (n_+ C_+ + n_- C_-) / N = S_w / N;
    # the plain average (C_+ + C_-) / 2 is it only when n_+ = n_- (and then the flawed code is
    # right). With unequal sizes both w (its direction too) and b are wrong.
    m_p, m_n = _means(X, y)
    Sigma = within_class_scatter(X, y) / len(X)
    w = np.linalg.solve(Sigma, m_p - m_n)
    return w, float(-(m_p + m_n) @ w / 2 + np.log(p_plus / (1 - p_plus)))


def whitening_proof():
    s1, s2 = sp.symbols("s1 s2", positive=True)
    r, d1, d2, w1, w2 = sp.symbols("r d1 d2 w1 w2", real=True)
    S_w = sp.Matrix([[s1, r], [r, s2]])
    d = sp.Matrix([d1, d2])
    w = sp.Matrix([w1, w2])
    # S_w = L L^T, L lower triangular with a positive diagonal (det S_w = s1 s2 - r^2 > 0)
    L = sp.Matrix([[sp.sqrt(s1), 0], [r / sp.sqrt(s1), sp.sqrt(s1 * s2 - r**2) / sp.sqrt(s1)]])
    assert sp.expand(L * L.T - S_w) == sp.zeros(2, 2)
    u = L.T * w
    v = sp.Matrix([d[0] / L[0, 0], (d[1] - L[1, 0] * d[0] / L[0, 0]) / L[1, 1]])   # L v = d
    bound = sp.cancel((v.T * v)[0])          # = d^T S_w^{-1} d
    # Lagrange's identity in the plane: |u|^2 |v|^2 - (u.v)^2 = (u1 v2 - u2 v1)^2
    cross = sp.cancel(u[0] * v[1] - u[1] * v[0])
    return u, v, bound, cross


# --------------------------------------------------------------------------
# hidden tests: traps the public tests do not show
# --------------------------------------------------------------------------
_X_DUP = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 3.0], [2.0, 1.5], [4.0, 0.0], [5.0, 1.0], [6.0, 0.5]])
_X_DUP = np.column_stack([_X_DUP, _X_DUP[:, 0]])          # the first feature, repeated
_Y_DUP = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0])


def _fresh(seed, n_pos=5, n_neg=8, d=3):
    """Two classes of different sizes from a fixed seed: inputs no public test uses."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_pos, d)) + 1.5, rng.normal(size=(n_neg, d))])
    y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
    order = rng.permutation(len(y))          # the classes interleaved, not in two blocks
    return X[order], y[order], rng


# Fresh inputs, expected values from the reference above: a table of the public tests'
# answers loses these points.
@test("fisher.within_class_scatter", points=1, hidden=True, visibility="after_due_date")
def test_hidden_scatter_fresh_inputs(f):
    X, y, _ = _fresh(201)
    assert_close(f(X, y), within_class_scatter(X, y), "S_w")


@test("fisher.fisher_criterion", points=1, hidden=True, visibility="after_due_date")
def test_hidden_criterion_fresh_inputs(f):
    X, y, rng = _fresh(202)
    w = rng.normal(size=3)
    assert_close(f(w, X, y), fisher_criterion(w, X, y), "J_F(w)")


@test("fisher.midpoint_bias", points=1, hidden=True, visibility="after_due_date")
def test_hidden_bias_fresh_inputs(f):
    X, y, rng = _fresh(203, n_pos=3, n_neg=9)
    w = rng.normal(size=3)
    assert_close(f(w, X, y), midpoint_bias(w, X, y), "b")


def _assert_same_expr(got, ref, symbols, what, matrix=False):
    from linclf_grader.framework import read_expr
    from linclf_grader.symbolic import compare_expr, parse_expr_safely

    ok, msg = compare_expr(read_expr(got, what, matrix=matrix), parse_expr_safely(str(ref)), symbols,
                           positive=["s1", "s2"])
    if not ok:
        raise AssertionError(f"{what}: {msg}")


@test("fisher.mean_difference_efficiency", points=2, hidden=True, visibility="after_due_date")
def test_hidden_efficiency_symbolic(f):
    """rho and its worst case, compared symbolically with the reference's derivation."""
    rho, worst = unpack(f(), 2, "the result (rho, worst)")
    rho_ref, worst_ref = mean_difference_efficiency()
    _assert_same_expr(rho, rho_ref, ["s1", "s2", "d1", "d2"], "rho")
    _assert_same_expr(worst, worst_ref, ["s1", "s2"], "the worst case of rho")


@test("fisher.whitening_proof", points=2, hidden=True, visibility="after_due_date")
def test_hidden_proof_symbolic(f):
    """u, v and the bound compared symbolically; cross**2 against the gap (cross is fixed only
    up to its sign)."""
    u, v, bound, cross = unpack(f(), 4, "the result (u, v, bound, cross)")
    u_ref, v_ref, bound_ref, cross_ref = whitening_proof()
    names = ["s1", "s2", "r", "d1", "d2", "w1", "w2"]
    _assert_same_expr(u, u_ref, names, "u = L^T w", matrix=True)
    _assert_same_expr(v, v_ref, names, "v = L^(-1) d", matrix=True)
    _assert_same_expr(bound, bound_ref, names, "bound = v^T v")
    from linclf_grader.framework import read_expr
    from linclf_grader.symbolic import compare_expr, parse_expr_safely

    ok, msg = compare_expr(read_expr(cross, "cross") ** 2, parse_expr_safely(str(cross_ref**2)), names,
                           positive=["s1", "s2"])
    if not ok:
        raise AssertionError(f"cross**2 is not the Cauchy-Schwarz gap: {msg}")


@test("fisher.fisher_direction", points=2, hidden=True, visibility="after_due_date")
def test_hidden_singular_scatter_and_unequal_classes(f):
    """A repeated feature makes S_w singular: ValueError. Then 2 against 6 samples."""
    assert_raises(f, "ValueError", _X_DUP, _Y_DUP)
    X = np.array([[0.5, 1.0], [1.5, 2.5], [3.0, 0.5], [4.0, 1.0], [3.5, 2.0], [5.0, 1.5], [4.5, 0.0],
                  [6.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0])
    assert_direction(f(X, y), fisher_direction(X, y), "w")


@test("fisher.bayes_rule_shared_covariance", points=2, hidden=True, visibility="after_due_date")
def test_hidden_equal_priors_unequal_classes(f):
    """Equal priors although the classes have 2 and 6 samples (the given priors, not the
    class frequencies), then a strong prior."""
    X = np.array([[0.5, 1.0], [1.5, 2.5], [3.0, 0.5], [4.0, 1.0], [3.5, 2.0], [5.0, 1.5], [4.5, 0.0],
                  [6.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0])
    for p_plus in (0.5, 0.9):
        w_ref, b_ref = bayes_rule_shared_covariance(X, y, p_plus)
        w, b = unpack(f(X, y, p_plus), 2, "the result (w, b)")
        assert_close(w, w_ref, "w")
        assert_close(b, b_ref, "b")


@test("fisher.whitening_proof", points=1, hidden=True, visibility="after_due_date")
def test_hidden_equality_case(f):
    """At numbers: cross vanishes at w = S_w^{-1} d and only there; (u.v)^2/(u.u) is J_F(w)."""
    from linclf_grader.symbolic import parse_expr_safely

    u, v, bound, cross = unpack(f(), 4, "the result (u, v, bound, cross)")
    S = np.array([[4.0, -1.5], [-1.5, 3.0]])
    d = np.array([1.0, -2.0])
    base = {"s1": 4.0, "s2": 3.0, "r": -1.5, "d1": 1.0, "d2": -2.0}

    def at(expr, w):
        point = {sp.Symbol(k): val for k, val in {**base, "w1": w[0], "w2": w[1]}.items()}
        value = parse_expr_safely(str(expr)).xreplace(point).evalf()
        return np.array(value.tolist(), dtype=float).ravel() if hasattr(value, "tolist") else float(value)

    w_star = np.linalg.solve(S, d)
    assert abs(at(cross, 3.0 * w_star)) < 1e-9, "cross should vanish at Fisher's direction"
    for w in (d, np.array([1.0, 0.0]), np.array([0.3, -2.0])):
        uu, vv = at(u, w), at(v, w)
        J = (w @ d) ** 2 / (w @ S @ w)
        assert_close((uu @ vv) ** 2 / (uu @ uu), J, "(u.v)^2 / (u.u)")
        assert abs(at(cross, w)) > 1e-6, "cross vanishes away from Fisher's direction"
        assert_close(at(bound, w), d @ np.linalg.solve(S, d), "the bound")


# --------------------------------------------------------------------------
# typical wrong answers (tests/test_exercise_sets.py proves each loses points)
# --------------------------------------------------------------------------
def _bayes_wrong(scale, priors="given", invert=False):
    def wrong(X, y, p_plus):
        m_p, m_n = _means(X, y)
        if scale == "average":
            S = (np.cov(X[y == 1].T, bias=True) + np.cov(X[y == -1].T, bias=True)) / 2
        else:
            S = within_class_scatter(X, y) / (len(X) if scale == "N" else len(X) - 2 if scale == "N-2" else 1)
        w = np.linalg.solve(S, m_p - m_n)
        p = np.mean(y == 1) if priors == "frequencies" else p_plus
        log_ratio = np.log(p / (1 - p))
        return w, float(-(m_p + m_n) @ w / 2 + (-log_ratio if invert else log_ratio))
    return wrong


def _proof_wrong(which):
    def wrong():
        u, v, bound, cross = whitening_proof()
        s1, s2 = sp.symbols("s1 s2", positive=True)
        r, d1, d2, w1, w2 = sp.symbols("r d1 d2 w1 w2", real=True)
        if which == "upper factor":       # S_w = R^T R with R upper triangular, read as L = R
            R = sp.Matrix([[sp.sqrt(s1), r / sp.sqrt(s1)], [0, sp.sqrt(s1 * s2 - r**2) / sp.sqrt(s1)]])
            u, v = R.T * sp.Matrix([w1, w2]), R.inv() * sp.Matrix([d1, d2])
        elif which == "bound without the inverse":
            bound = s1 * d1**2 + 2 * r * d1 * d2 + s2 * d2**2
        elif which == "gap instead of its root":
            cross = cross**2
        return u, v, bound, cross
    return wrong


def _efficiency_wrong(which):
    def wrong():
        s1, s2 = sp.symbols("s1 s2", positive=True)
        d1, d2 = sp.symbols("d1 d2", real=True)
        rho, worst = mean_difference_efficiency()
        if which == "not normalised by the maximum":
            rho = (d1**2 + d2**2) ** 2 / (s1 * d1**2 + s2 * d2**2)
        elif which == "worst at an axis":          # the best case (rho = 1), taken for the worst
            worst = sp.Integer(1)
        elif which == "square root of the bound":
            worst = 2 * sp.sqrt(s1 * s2) / (s1 + s2)
        return rho, worst
    return wrong


WRONG = {
    "mean_difference_efficiency": {
        "J_F(d) alone": _efficiency_wrong("not normalised by the maximum"),
        "the best case instead of the worst": _efficiency_wrong("worst at an axis"),
        "the square root of the worst case": _efficiency_wrong("square root of the bound"),
    },
    "bayes_rule_shared_covariance": {
        "the flawed code: the unweighted average of the class covariances": _bayes_wrong("average"),
        "S_w instead of S_w / N (chapter 2's trap)": _bayes_wrong("1"),
        "unbiased S_w / (N - 2)": _bayes_wrong("N-2"),
        "class frequencies instead of the priors": _bayes_wrong("N", priors="frequencies"),
        "prior ratio inverted": _bayes_wrong("N", invert=True),
    },
    "whitening_proof": {
        "upper-triangular factor": _proof_wrong("upper factor"),
        "bound with S_w, not its inverse": _proof_wrong("bound without the inverse"),
        "the gap itself, not its root": _proof_wrong("gap instead of its root"),
    },
}
