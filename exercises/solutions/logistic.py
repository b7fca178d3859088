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
            return a[:d], float(a[d])
    if lam == 0:
        # quasi-complete separation (some samples on the boundary, the others strictly on their
        # side): no iterate separates strictly, but |a| grows by about one per step for ever
        raise ValueError(f"Newton's method did not converge in {max_iter} steps without a "
                         "penalty: the data are (quasi-)separable and the loss has no minimiser")
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


# quasi-complete separation: two samples at x = 0 with both labels, the others separated by
# x = 0; the infimum of the loss (2 log 2 / 6) is approached as w -> infinity, never attained
X_QUASI = np.array([[-2.0], [-1.0], [0.0], [0.0], [1.0], [2.0]])
Y_QUASI = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0])


@test("logistic.irls_fit", points=3, hidden=True, visibility="after_due_date")
def test_hidden_no_minimiser_without_penalty(f):
    """lam = 0: separable data whose first Newton iterates do not separate yet, and quasi-separated
    data, which no iterate ever separates strictly. Both have no minimiser: ValueError."""
    from linclf_grader.framework import assert_raises

    X = np.array([[0.0, 0.0], [1.0, 0.2], [3.0, 1.0], [4.0, 1.5], [0.5, -0.3], [3.5, 0.4], [1.9, 0.0],
                  [2.1, 0.1]])
    y = np.array([-1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0, 1.0])
    assert_raises(f, "ValueError", X, y, 0.0)
    assert_raises(f, "ValueError", X_QUASI, Y_QUASI, 0.0)


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


def _irls_strict_separation_only(X, y, lam=0.0, max_iter=100):
    """The old reference: detects only iterates that separate strictly."""
    N, d = X.shape
    Xt = np.hstack([X, np.ones((N, 1))])
    a = np.zeros(d + 1)
    P = lam * np.diag(np.r_[np.ones(d), 0.0])
    for _ in range(max_iter):
        m = y * (Xt @ a)
        if lam == 0 and np.all(m > 0):
            raise ValueError("separable")
        s = np.exp(-np.logaddexp(0.0, m))
        H = (Xt * (s * (1 - s))[:, None]).T @ Xt / N + P
        step = np.linalg.solve(H, -(Xt.T @ (y * s)) / N + P @ a)
        a = a - step
        if np.linalg.norm(step) < 1e-10:
            break
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


def _log_sigmoid_where(z):
    # both branches are evaluated for every z: exp overflows in the discarded one
    return np.where(z >= 0, -np.log1p(np.exp(-z)), z - np.log1p(np.exp(z)))


def _log_sigmoid_log_not_log1p(z):
    # finite and without warnings, but log(1 + tiny) loses the tiny value: not full precision
    e = np.exp(-np.abs(z))
    return np.minimum(z, 0.0) - np.log(1.0 + e)


WRONG = {
    "log_sigmoid": {
        "np.where over both branches (overflow warnings)": _log_sigmoid_where,
        "log(1 + e) instead of log1p (no relative precision)": _log_sigmoid_log_not_log1p,
    },
    "irls_fit": {
        "penalises the bias": _irls_penalising_bias,
        "returns whatever the last iterate is on separable data": _irls_ignoring_separability,
    },
    "corrected_source_loss": {
        "sign of the margin lost": lambda: sp.log(1 + sp.exp(sp.Symbol("y", real=True) * sp.Symbol("f", real=True))),
        "label ignored": lambda: sp.log(1 + sp.exp(-sp.Symbol("f", real=True))),
    },
}

#: wrong answers that pass the public tests and only a hidden test catches
#: (tests/test_answer_keys.py proves each loses points there)
WRONG_HIDDEN = {
    "irls_fit": {
        "detects only strict separation (quasi-separated data run on)": _irls_strict_separation_only,
    },
}
