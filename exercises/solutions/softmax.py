"""Reference solutions: exercise set "softmax" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp

from linclf_grader import test
from linclf_grader.framework import assert_expr, unpack
from linclf_grader.sets.softmax import check_null_vector, check_sum_of_squares


# the stub calls the score matrix F; Z here because tests/test_grader_imports.py patches this line
def softmax_rows(Z):
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def softmax_jacobian(p):
    return np.diag(p) - np.outer(p, p)


def softmax_grad(W, X, T):
    P = softmax_rows(X @ W)
    return -X.T @ (T - P) / len(X)


def log_softmax_derivative():
    f1, f2, f3 = sp.symbols("f1 f2 f3", real=True)
    log_p1 = f1 - sp.log(sp.exp(f1) + sp.exp(f2) + sp.exp(f3))
    return sp.diff(log_p1, f2)


def _reduced_hessian(c, d, order="class-major", sign=1, diagonal=True, pinned=False, J_sign=-1):
    p = sp.symbols(f"p1:{c}", real=True)
    x = sp.symbols(f"x1:{d + 1}", real=True)
    xt = sp.Matrix([*x, 1])
    pf = sp.Matrix([*p, 1 - sum(p)])
    A = sp.Matrix(c, c, lambda k, l: (pf[k] if k == l and diagonal else 0) - pf[k] * pf[l])
    # d f / d a_k: x~ for class k, J_sign x~ for class c (a_c = -(a_1 + ... + a_{c-1})), so the
    # c x c score Hessian diag(p) - p p^T is folded as J^T A J with J = [I; -1^T]
    J = sp.Matrix.vstack(sp.eye(c - 1), (0 if pinned else J_sign) * sp.ones(1, c - 1))
    M = J.T * A * J
    if order == "class-major":
        return sign * sp.Matrix(sp.kronecker_product(M, xt * xt.T))
    return sign * sp.Matrix(sp.kronecker_product(xt * xt.T, M))


def softmax_hessian(c, d):
    # the loss is LSE(f) - f_t with f_k = a_k . x~ (k < c) and f_c = -(a_1 + ... + a_{c-1}) . x~;
    # its Hessian in f is A = diag(p) - p p^T, and f = (J kron x~^T) theta with J = [I; -1^T]
    return _reduced_hessian(c, d)


def softmax_convexity_proof(c):
    p = sp.symbols(f"p1:{c + 1}", positive=True)
    v = sp.symbols(f"v1:{c + 1}", real=True)
    pv, vv = sp.Matrix(p), sp.Matrix(v)
    quad = (vv.T * (sp.diag(*p) - pv * pv.T) * vv)[0]
    # sum_k p_k v_k^2 - (sum_k p_k v_k)^2 = 1/2 sum_{k,l} p_k p_l (v_k - v_l)^2 when sum p = 1
    sos = sum(p[k] * p[l] * (v[k] - v[l]) ** 2 for k in range(c) for l in range(k + 1, c))
    return quad, sos, [1] * c


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
_RNG = np.random.default_rng(6061125)
F_HIDDEN = np.round(np.r_[_RNG.normal(scale=3.0, size=(3, 4)), [[-750.0, 2.0, 735.5, 735.0]]], 3)
P_HIDDEN = np.array([0.1, 0.15, 0.3, 0.45])
X_SG = np.round(_RNG.normal(size=(7, 3)), 3)
T_SG = np.eye(4)[[3, 0, 1, 1, 2, 0, 3]]
W_SG = np.round(_RNG.normal(size=(3, 4)), 3)


@test("softmax.softmax_rows", points=1, hidden=True, visibility="after_due_date")
def test_hidden_rows_of_four_scores(f):
    from linclf_grader.framework import assert_close

    assert_close(f(F_HIDDEN), softmax_rows(F_HIDDEN), "P", rtol=1e-10)


@test("softmax.softmax_jacobian", points=1, hidden=True, visibility="after_due_date")
def test_hidden_jacobian_of_four_classes(f):
    from linclf_grader.framework import assert_close

    assert_close(f(P_HIDDEN), softmax_jacobian(P_HIDDEN), "J")


@test("softmax.softmax_grad", points=1, hidden=True, visibility="after_due_date")
def test_hidden_gradient_four_classes(f):
    from linclf_grader.framework import assert_close

    assert_close(f(W_SG, X_SG, T_SG), softmax_grad(W_SG, X_SG, T_SG), "G")


@test("softmax.log_softmax_derivative", points=1, hidden=True, visibility="after_due_date")
def test_hidden_derivative_symbolically(f):
    assert_expr(f(), str(log_softmax_derivative()), ["f1", "f2", "f3"], "the derivative")


@test("softmax.softmax_hessian", points=2, hidden=True, visibility="after_due_date")
def test_hidden_public_cases_symbolically(f):
    for c, d, names in ((3, 1, ["p1", "p2", "x1"]), (2, 2, ["p1", "x1", "x2"])):
        assert_expr(f(c, d), str(softmax_hessian(c, d)), names, f"H (c = {c}, d = {d})")


@test("softmax.softmax_hessian", points=2, hidden=True, visibility="after_due_date")
def test_hidden_two_classes_and_no_features(f):
    """c = 2 is logistic regression with the weights doubled (4 p1 (1 - p1) x_t x_t^T); d = 0
    leaves the intercepts only."""
    for c, d, names in ((2, 1, ["p1", "x1"]), (3, 0, ["p1", "p2"])):
        assert_expr(f(c, d), str(softmax_hessian(c, d)), names, f"H (c = {c}, d = {d})")


@test("softmax.softmax_convexity_proof", points=2, hidden=True, visibility="after_due_date")
def test_hidden_two_classes(f):
    """For c = 2 the variance is p1 p2 (v1 - v2)^2; the null direction is still (1, 1)."""
    quad, sos, v = unpack(f(2), 3, "the result")
    assert_expr(quad, str(softmax_convexity_proof(2)[0]), ["p1", "p2", "v1", "v2"], "quad")
    check_sum_of_squares(sos, 2, "p1*v1**2 + p2*v2**2 - (p1*v1 + p2*v2)**2")
    check_null_vector(v, 2)


# --------------------------------------------------------------------------
# typical wrong answers (tests/test_exercise_sets.py proves each loses points)
# --------------------------------------------------------------------------
def _proof_wrong(kind):
    def wrong(c):
        quad, sos, v = softmax_convexity_proof(c)
        p = sp.symbols(f"p1:{c + 1}", positive=True)
        vs = sp.symbols(f"v1:{c + 1}", real=True)
        if kind == "expanded":
            sos = sp.expand(quad)
        elif kind == "without the mean":
            sos = sum(p[k] * vs[k] ** 2 for k in range(c))
        elif kind == "zero direction":
            v = [0] * c
        elif kind == "sign error":
            quad, sos = -quad, -sos
        return quad, sos, v
    return wrong


WRONG = {
    "softmax_hessian": {
        "the pinned Hessian (a_c = 0), the chapter's other remedy": lambda c, d: _reduced_hessian(c, d, pinned=True),
        "a_c = +(a_1 + ... + a_{c-1}): the sign of the constraint lost": lambda c, d: _reduced_hessian(c, d, J_sign=1),
        "Kronecker factors swapped": lambda c, d: _reduced_hessian(c, d, order="feature-major"),
        "sign error": lambda c, d: _reduced_hessian(c, d, sign=-1),
        "forgot the diagonal": lambda c, d: _reduced_hessian(c, d, diagonal=False),
    },
    "softmax_convexity_proof": {
        "expanded: not visibly >= 0": _proof_wrong("expanded"),
        "the second moment, not the variance": _proof_wrong("without the mean"),
        "zero null direction": _proof_wrong("zero direction"),
        "sign error": _proof_wrong("sign error"),
    },
}


def _gd_experiment(X, y, c, eta=0.1, mean=True, intercept=True, infimum_is_loss=False, present_only=False):
    Xt = np.column_stack([X, np.ones(len(X))]) if intercept else X
    labels = np.unique(y) if present_only else np.arange(c)
    T = (y[:, None] == labels[None, :]).astype(float)
    W = np.zeros((Xt.shape[1], T.shape[1]))
    norms = []
    for t in range(1, 1001):
        G = -Xt.T @ (T - softmax_rows(Xt @ W))
        W = W - eta * (G / len(X) if mean else G)
        if t in (10, 100, 1000):
            norms.append(float(np.linalg.norm(W)))
    P = softmax_rows(Xt @ W)
    loss = float(-np.mean(np.log(np.sum(T * P, axis=1))))
    # separable data: scaling a separating W drives every -log p_{n, y_n} to 0, never reached
    return norms, loss, (loss if infimum_is_loss else 0.0)


def softmax_separable_experiment(X, y, c):
    return _gd_experiment(X, y, c)


@test("softmax.softmax_separable_experiment", points=1, hidden=True, visibility="after_due_date")
def test_hidden_a_class_absent(f):
    """c = 3 but no sample of class 1: its column still moves (its probabilities are pushed to 0)."""
    from linclf_grader.framework import assert_close

    X = np.array([[-2.0, 0.5], [-1.5, -0.5], [2.0, 0.0], [2.5, 1.0], [1.5, -1.0]])
    y = np.array([0, 0, 2, 2, 2])
    norms_ref, loss_ref, _ = softmax_separable_experiment(X, y, 3)
    norms, loss, infimum = unpack(f(X, y, 3), 3, "the result")
    assert_close(norms, norms_ref, "norms", rtol=1e-6)
    assert_close(loss, loss_ref, "loss", rtol=1e-6)
    assert_close(infimum, 0.0, "infimum", atol=1e-9)


WRONG["softmax_separable_experiment"] = {
    "the loss reached taken for the infimum": lambda X, y, c: _gd_experiment(X, y, c, infimum_is_loss=True),
    "sum instead of mean": lambda X, y, c: _gd_experiment(X, y, c, mean=False),
    "no intercept column": lambda X, y, c: _gd_experiment(X, y, c, intercept=False),
}
