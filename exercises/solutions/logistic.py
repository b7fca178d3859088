"""Reference solutions: exercise set "logistic" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def log_sigmoid(z):
    # log sigma(z) = -log(1 + e^{-z}), evaluated without overflow on either side
    return -np.logaddexp(0.0, -z)


def logistic_loss_grad(w, b, X, y, lam=0.0):
    m = y * (X @ w + b)
    loss = np.mean(np.logaddexp(0.0, -m)) + 0.5 * lam * (w @ w)
    s = np.exp(-np.logaddexp(0.0, m))  # sigma(-m), stable
    coef = -y * s / len(y)
    return loss, X.T @ coef + lam * w, coef.sum()


def newton_from_zero():
    # at a = 0 every p_n = 1/2: gradient -X~^T y / (2N), Hessian X~^T X~ / (4N) + lam P, so
    # a_1 = (X~^T X~ / (4N) + lam P)^{-1} X~^T y / (2N) = 2 (X~^T X~ + 4 N lam P)^{-1} X~^T y
    N, lam = sp.symbols("N lam", positive=True)
    return sp.Integer(2), 4 * N * lam


def irls_fit(X, y, lam=0.0, max_iter=100):
    N, d = X.shape
    Xt = np.hstack([X, np.ones((N, 1))])
    a = np.zeros(d + 1)
    P = lam * np.diag(np.r_[np.ones(d), 0.0])          # the bias is not penalised
    for _ in range(max_iter):
        m = y * (Xt @ a)
        s = np.exp(-np.logaddexp(0.0, m))               # sigma(-m)
        grad = -(Xt.T @ (y * s)) / N + P @ a
        H = (Xt * (s * (1 - s))[:, None]).T @ Xt / N + P
        step = np.linalg.solve(H, grad)
        a = a - step
        if np.linalg.norm(step) < 1e-10:
            break
    return a[:d], float(a[d])


def _max_min_margin(Z, bounds):
    """max t subject to Z a >= t (row by row) and a in the box, by linprog; returns t."""
    from scipy.optimize import linprog

    n, k = Z.shape
    res = linprog(np.r_[np.zeros(k), -1.0], A_ub=np.c_[-Z, np.ones(n)], b_ub=np.zeros(n),
                  bounds=[bounds] * k + [(None, 1.0)])
    return -res.fun


def separation_type(X, y):
    # rows z_n = y_n x~_n: complete iff some a has Z a > 0 (LP: max min margin in a box > 0);
    # quasi iff some a != 0 has Z a >= 0, i.e. (X~ of full rank) Z a >= 0 with sum(Z a) > 0
    from scipy.optimize import linprog

    Z = y[:, None] * np.hstack([X, np.ones((len(y), 1))])
    if _max_min_margin(Z, (-1.0, 1.0)) > 1e-9:
        return "complete"
    res = linprog(-Z.sum(axis=0), A_ub=-Z, b_ub=np.zeros(len(y)), bounds=[(-1.0, 1.0)] * Z.shape[1])
    return "quasi-complete" if -res.fun > 1e-9 else "overlap"


def corrected_intercept():
    # step (3) is wrong: d/db log(1 + e^b) = sigma(b); then R'(b) = (N_minus sigma(b) -
    # N_plus sigma(-b)) / N = 0 gives sigma(b) = N_plus / N, b* = log(N_plus / N_minus)
    N_plus, N_minus = sp.symbols("N_plus N_minus", positive=True)
    return sp.log(N_plus / N_minus)


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
from linclf_grader import test  # noqa: E402
from linclf_grader.framework import assert_close, assert_expr, unpack  # noqa: E402

X_SEP = np.array([[0.0, 0.0], [1.0, 0.2], [3.0, 1.0], [4.0, 1.5], [0.5, -0.3], [3.5, 0.4]])
Y_SEP = np.array([-1.0, -1.0, 1.0, 1.0, -1.0, 1.0])


@test("logistic.irls_fit", points=1, hidden=True, visibility="after_due_date")
def test_hidden_separable_data_with_a_penalty_have_a_minimiser(f):
    """With lam > 0 separable data are fine: the penalty gives a finite minimiser."""
    w_ref, b_ref = irls_fit(X_SEP, Y_SEP, lam=0.1)
    w, b = unpack(f(X_SEP, Y_SEP, lam=0.1), 2, "the result (w, b)")
    assert_close(w, w_ref, "w", rtol=1e-6)
    assert_close(b, b_ref, "b", rtol=1e-6, atol=1e-8)


@test("logistic.irls_fit", points=1, hidden=True, visibility="after_due_date")
def test_hidden_unbalanced_classes_and_a_constant_feature_direction(f):
    X = np.array([[2.0, 1.0], [1.0, 1.0], [-1.0, 1.0], [0.5, 1.0], [-2.0, 1.0], [0.0, 1.0], [1.5, 1.0]])
    y = np.array([1.0, -1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    w_ref, b_ref = irls_fit(X, y, lam=0.05)             # x2 = 1 duplicates the bias: the penalty decides
    w, b = unpack(f(X, y, lam=0.05), 2, "the result (w, b)")
    assert_close(w, w_ref, "w", rtol=1e-6, atol=1e-9)
    assert_close(b, b_ref, "b", rtol=1e-6, atol=1e-9)


_RNG = np.random.default_rng(20261125)
Z_HIDDEN = np.r_[_RNG.normal(scale=20.0, size=6), -745.5, 37.25, 710.0]
X_LG = np.round(_RNG.normal(size=(9, 3)), 3)
Y_LG = np.where(_RNG.random(9) < 0.5, -1.0, 1.0)
W_LG = np.round(_RNG.normal(size=3), 3)


@test("logistic.log_sigmoid", points=1, hidden=True, visibility="after_due_date")
def test_hidden_log_sigmoid_on_other_values(f):
    assert_close(f(Z_HIDDEN), log_sigmoid(Z_HIDDEN), "log sigma(z)", rtol=1e-10, atol=1e-300)


@test("logistic.logistic_loss_grad", points=1, hidden=True, visibility="after_due_date")
def test_hidden_loss_and_gradient_in_three_dimensions(f):
    L_ref, gw_ref, gb_ref = logistic_loss_grad(W_LG, -0.4, X_LG, Y_LG, lam=0.2)
    L, gw, gb = unpack(f(W_LG, -0.4, X_LG, Y_LG, lam=0.2), 3, "the result (L, grad_w, grad_b)")
    assert_close(L, L_ref, "L")
    assert_close(gw, gw_ref, "grad_w")
    assert_close(gb, gb_ref, "grad_b")


@test("logistic.newton_from_zero", points=2, hidden=True, visibility="after_due_date")
def test_hidden_newton_s_and_mu_symbolically(f):
    s, mu = unpack(f(), 2, "the result (s, mu)")
    s, mu = (repr(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for v in (s, mu))
    assert_expr(s, "2", ["N", "lam"], "s", positive=["N", "lam"])
    assert_expr(mu, "4*N*lam", ["N", "lam"], "mu", positive=["N", "lam"])


@test("logistic.corrected_intercept", points=1, hidden=True, visibility="after_due_date")
def test_hidden_corrected_intercept_symbolically(f):
    assert_expr(f(), "log(N_plus/N_minus)", ["N_plus", "N_minus"], "b*", positive=["N_plus", "N_minus"])


def _case(f, X, y, expected):
    got = f(X, y)
    assert got == expected, "wrong case"


@test("logistic.separation_type", points=1, hidden=True, visibility="after_due_date")
def test_hidden_quasi_without_a_repeated_point(f):
    """A square's corners (not separable within their plane x3 = 0) between points above (+1)
    and below (-1): x3 gives every margin >= 0, nothing gives all > 0."""
    X = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0],
                  [0.0, 0.0, 1.0], [1.0, 1.0, 2.0], [0.0, 1.0, -1.0], [1.0, 0.0, -1.5]])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    _case(f, X, y, "quasi-complete")


@test("logistic.separation_type", points=1, hidden=True, visibility="after_due_date")
def test_hidden_a_shared_point_that_is_not_quasi(f):
    """x = 1 carries both labels, but the -1 at x = 1 and the +1 at x = 2 pin a to 0: overlap."""
    X = np.array([[-2.0], [-1.0], [1.0], [0.0], [1.0], [2.0]])
    y = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
    _case(f, X, y, "overlap")


@test("logistic.separation_type", points=1, hidden=True, visibility="after_due_date")
def test_hidden_one_class_only_is_complete(f):
    """All labels +1: a = (0, 1) (w = 0, b = 1) gives every margin 1."""
    X = np.array([[0.0, 1.0], [2.0, -1.0], [-1.0, 0.5], [1.5, 2.0]])
    _case(f, X, np.ones(4), "complete")


@test("logistic.separation_type", points=1, hidden=True, visibility="after_due_date")
def test_hidden_complete_against_the_class_means(f):
    """Separable only by a line far from the perpendicular bisector of the class means."""
    X = np.array([[0.0, 0.0], [0.5, 4.0], [1.0, 8.0], [1.5, 0.0], [2.0, 4.5], [2.5, 8.5],
                  [-6.0, 4.0]])
    y = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0])
    _case(f, X, y, "complete")


# --------------------------------------------------------------------------
# typical wrong answers
# --------------------------------------------------------------------------
def _irls_penalising_bias(X, y, lam=0.0, max_iter=100):
    if lam == 0:
        return irls_fit(X, y, lam, max_iter)
    N, d = X.shape
    Xt = np.hstack([X, np.ones((N, 1))])
    a = np.zeros(d + 1)
    for _ in range(max_iter):
        s = np.exp(-np.logaddexp(0.0, y * (Xt @ a)))
        grad = -(Xt.T @ (y * s)) / N + lam * a
        H = (Xt * (s * (1 - s))[:, None]).T @ Xt / N + lam * np.eye(d + 1)
        a = a - np.linalg.solve(H, grad)
    return a[:d], float(a[d])


def _irls_01_gradient(X, y, lam=0.0, max_iter=100):
    """The 0/1-label gradient X~^T (p - y) / N used with labels y in {-1, +1}."""
    N, d = X.shape
    Xt = np.hstack([X, np.ones((N, 1))])
    a = np.zeros(d + 1)
    P = lam * np.diag(np.r_[np.ones(d), 0.0])
    for _ in range(max_iter):
        p = 1 / (1 + np.exp(-np.clip(Xt @ a, -700, 700)))
        H = (Xt * (p * (1 - p))[:, None]).T @ Xt / N + P
        step = np.linalg.solve(H, Xt.T @ (p - y) / N + P @ a)
        a = a - step
        if np.linalg.norm(step) < 1e-10:
            break
    return a[:d], float(a[d])


def _log_sigmoid_where(z):
    # both branches are evaluated for every z: exp overflows in the discarded one
    return np.where(z >= 0, -np.log1p(np.exp(-z)), z - np.log1p(np.exp(z)))


def _log_sigmoid_log_not_log1p(z):
    # finite and without warnings, but log(1 + tiny) loses the tiny value: not full precision
    e = np.exp(-np.abs(z))
    return np.minimum(z, 0.0) - np.log(1.0 + e)


def _strict_lp_only(X, y):
    """Checks complete separation only: never says quasi-complete."""
    Z = y[:, None] * np.hstack([X, np.ones((len(y), 1))])
    return "complete" if _max_min_margin(Z, (-1.0, 1.0)) > 1e-9 else "overlap"


def _weak_lp_only(X, y):
    """Some margin > 0 with all >= 0 is called quasi-complete, even when all can be > 0."""
    from scipy.optimize import linprog

    Z = y[:, None] * np.hstack([X, np.ones((len(y), 1))])
    res = linprog(-Z.sum(axis=0), A_ub=-Z, b_ub=np.zeros(len(y)), bounds=[(-1.0, 1.0)] * Z.shape[1])
    return "quasi-complete" if -res.fun > 1e-9 else "overlap"


def _quasi_means_repeated_point(X, y):
    """Quasi-complete only when one point carries both labels (a common misreading)."""
    if separation_type(X, y) == "complete":
        return "complete"
    rows = {}
    for x, label in zip(map(tuple, X), y):
        rows.setdefault(x, set()).add(label)
    if any(len(v) == 2 for v in rows.values()):
        return "quasi-complete"
    return "overlap"


N_, LAM_ = sp.symbols("N lam", positive=True)
NP_, NM_ = sp.symbols("N_plus N_minus", positive=True)

WRONG = {
    "log_sigmoid": {
        "np.where over both branches (overflow warnings)": _log_sigmoid_where,
        "log(1 + e) instead of log1p (no relative precision)": _log_sigmoid_log_not_log1p,
    },
    "newton_from_zero": {
        "Hessian at p = 1/2 taken as X~^T X~ / (2N)": lambda: (sp.Integer(1), 2 * N_ * LAM_),
        "the 1/N of the mean forgotten": lambda: (sp.Integer(2), 4 * LAM_),
    },
    "irls_fit": {
        "penalises the bias": _irls_penalising_bias,
        "0/1-label gradient with labels -1/+1": _irls_01_gradient,
    },
    "separation_type": {
        "strict separation only": _strict_lp_only,
        "weak separation only": _weak_lp_only,
    },
    "corrected_intercept": {
        "log instead of logit (log(N_plus / N))": lambda: sp.log(NP_ / (NP_ + NM_)),
        "the sign of the classes swapped": lambda: sp.log(NM_ / NP_),
    },
}

#: wrong answers that pass the public tests and only a hidden test catches
#: (tests/test_answer_keys.py proves each loses points there)
WRONG_HIDDEN = {
    "separation_type": {
        "quasi-complete only when a point repeats with both labels": _quasi_means_repeated_point,
    },
}
