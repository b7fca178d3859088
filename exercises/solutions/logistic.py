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


def logistic_gradient():
    w, x, y = sp.symbols("w x y", real=True)
    return sp.diff(sp.log(1 + sp.exp(-y * w * x)), w)


def irls_fit(X, y, lam=0.0, max_iter=100):
    N, d = X.shape
    Xt = np.hstack([X, np.ones((N, 1))])
    a = np.zeros(d + 1)
    P = lam * np.diag(np.r_[np.ones(d), 0.0])          # the bias is not penalised
    for _ in range(max_iter):
        m = y * (Xt @ a)
        if lam == 0 and np.all(m > 0):
            # every sample strictly on its side: scaling a up lowers the loss forever
            raise ValueError("the data are linearly separable: without a penalty the "
                             "logistic loss has no minimiser")
        s = np.exp(-np.logaddexp(0.0, m))               # sigma(-m)
        grad = -(Xt.T @ (y * s)) / N + P @ a
        H = (Xt * (s * (1 - s))[:, None]).T @ Xt / N + P
        step = np.linalg.solve(H, grad)
        a = a - step
        if np.linalg.norm(step) < 1e-10:
            break
    return a[:d], float(a[d])


def corrected_source_loss():
    y, f = sp.symbols("y f", real=True)
    return sp.log(1 + sp.exp(-y * f))


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
from linclf_grader import test  # noqa: E402
from linclf_grader.framework import assert_close, unpack  # noqa: E402

X_SEP = np.array([[0.0, 0.0], [1.0, 0.2], [3.0, 1.0], [4.0, 1.5], [0.5, -0.3], [3.5, 0.4]])
Y_SEP = np.array([-1.0, -1.0, 1.0, 1.0, -1.0, 1.0])


@test("logistic.irls_fit", points=2, hidden=True, visibility="after_due_date")
def test_hidden_separable_data_with_a_penalty_have_a_minimiser(f):
    """The trap the other way round: with lam > 0 separable data are fine."""
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


def _irls_ignoring_separability(X, y, lam=0.0, max_iter=100):
    N, d = X.shape
    Xt = np.hstack([X, np.ones((N, 1))])
    a = np.zeros(d + 1)
    P = lam * np.diag(np.r_[np.ones(d), 0.0])
    for _ in range(max_iter):
        s = np.exp(-np.logaddexp(0.0, y * (Xt @ a)))
        grad = -(Xt.T @ (y * s)) / N + P @ a
        H = (Xt * (s * (1 - s))[:, None]).T @ Xt / N + P + 1e-12 * np.eye(d + 1)
        a = a - np.linalg.solve(H, grad)
    return a[:d], float(a[d])


WRONG = {
    "irls_fit": {
        "penalises the bias": _irls_penalising_bias,
        "returns whatever the last iterate is on separable data": _irls_ignoring_separability,
    },
    "corrected_source_loss": {
        "sign of the margin lost": lambda: sp.log(1 + sp.exp(sp.Symbol("y", real=True) * sp.Symbol("f", real=True))),
        "label ignored": lambda: sp.log(1 + sp.exp(-sp.Symbol("f", real=True))),
    },
}
