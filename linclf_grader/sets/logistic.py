"""Exercise set "logistic" (chapter 5): stable log-sigmoid, the loss and its gradient.

Labels are -1/+1 and the loss of a sample is log(1 + exp(-y (w @ x + b))).
Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..imports import OPTIMISERS
from ..framework import (ExerciseSet, as_array, assert_close, assert_expr, assert_raises,
                         read_expr, test, unpack)
from ..quiet import assert_close_quiet, assert_no_warnings
from ..symbolic import compare_expr, parse_expr_safely

SET = ExerciseSet("logistic", "Logistic regression", "05_logistic",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "log_sigmoid",
    title="A log-sigmoid that never overflows",
    signature="def log_sigmoid(z):",
    doc=r"""
    log(sigma(z)) = -log(1 + exp(-z)) elementwise, finite and to full
    relative precision (about 1e-15 relative error, tiny values included)
    for any finite z (try z = -1000, z = 40 and z = 1000), and without
    warnings: no overflow, not even in a branch np.where then discards.

    Parameters
    ----------
    z : ndarray

    Returns
    -------
    ndarray of the shape of z
    """,
)

SET.exercise(
    "logistic_loss_grad",
    title="The mean logistic loss and its gradient",
    signature="def logistic_loss_grad(w, b, X, y, lam=0.0):",
    doc=r"""
    L(w, b) = mean_i log(1 + exp(-y_i (w @ x_i + b))) + (lam / 2) ||w||^2
    (the bias is not penalised) and its gradient.  Vectorise, and stay
    finite for large margins.

    Returns
    -------
    (L, grad_w, grad_b) : float, ndarray of shape (d,), float
    """,
)

SET.exercise(
    "logistic_gradient",
    title="The gradient of the logistic loss, symbolically",
    signature="def logistic_gradient():",
    doc=r"""
    For one feature, the loss of a sample is l(w) = log(1 + exp(-y*w*x)).
    Return dl/dw as a sympy expression in w, x, y.
    """,
    stub="""w, x, y = sp.symbols("w x y", real=True)
return None  # replace None by your expression""",
)

def _overlapping_classes(rng, n=30):
    """A student's own data: two overlapping clouds (never separable), labels -1/+1."""
    while True:
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        X = np.round(rng.normal(size=(n, 2)) + 0.6 * y[:, None] * rng.uniform(0.5, 1.0, 2), 2)
        # overlapping for sure: some -1 point lies beyond some +1 point along every axis pair
        if 8 <= (y > 0).sum() <= n - 8 and _not_separable(X, y):
            return {"X": X, "y": y, "lam": float(np.round(rng.uniform(0.01, 0.2), 2))}


def _not_separable(X, y):
    """True when no line separates (X, y): checked on a fine grid of normal directions."""
    for angle in np.linspace(0, np.pi, 721):
        u = np.array([np.cos(angle), np.sin(angle)])
        p = X @ u
        if p[y > 0].min() > p[y < 0].max() or p[y > 0].max() < p[y < 0].min():
            return False
    return True


SET.exercise(
    "irls_fit",
    title="Newton's method (IRLS) for logistic regression",
    signature="def irls_fit(X, y, lam=0.0, max_iter=100):",
    kind="implementation",
    forbid=(*OPTIMISERS, "statsmodels"),  # the exercise is to optimise: a ready-made optimiser would do it
    variant=_overlapping_classes,
    hidden_tests=3,
    doc=r"""
    Minimise the objective of ``logistic_loss_grad`` (mean logistic loss plus
    (lam / 2) ||w||^2, the bias not penalised) by Newton's method, starting
    from w = 0, b = 0, until the Newton step is below 1e-10 in size (at most
    ``max_iter`` steps).

    When lam == 0 the minimiser may not exist.  Detect that case and raise
    ValueError with a message saying why, instead of returning weights that
    only reflect when you stopped.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}
    lam : float >= 0

    Returns
    -------
    (w, b) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "corrected_source_loss",
    title="Find the error: the loss after 1 - sigma(z) = sigma(-z)",
    signature="def corrected_source_loss():",
    kind="find-the-error",
    hidden_tests=0,
    doc=r"""
    One of the sources rewrites the cross-entropy of a sample with score f
    and label y in {-1, +1} as

        -I(y = 1) log sigma(f) - I(y = -1) log[-sigma(f)]

    "using 1 - sigma(z) = sigma(-z)".  Find the error, then return the
    per-sample loss as ONE sympy expression in y and f, without indicator
    functions, that is correct for both labels.
    """,
    stub="""y, f = sp.symbols("y f", real=True)
return None  # replace None by your expression""",
)

X_L = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -1.5], [2.0, 1.0], [-2.0, -1.0]])
Y_L = np.array([1.0, -1.0, -1.0, 1.0, -1.0])


@test("log_sigmoid", points=1)
def test_moderate_values(f):
    z = np.array([-1.0, 0.0, 2.0])
    assert_close(f(z), [-1.3132616875182228, -0.6931471805599453, -0.1269280110429725],
                 "log sigma(z)", rtol=1e-10)


@test("log_sigmoid", points=2)
def test_extreme_values(f):
    z = np.array([-1000.0, -30.0, 40.0, 800.0])
    assert_close(f(z), [-1000.0, -30.000000000000092, -4.248354255291589e-18, 0.0],
                 "log sigma(z) (to full relative precision, tiny values included)", rtol=1e-10, atol=1e-300)
    assert_no_warnings(f, "log_sigmoid(z) with z = -1000, -30, 40, 800")


@test("logistic_loss_grad", points=2)
def test_loss_and_gradient(f):
    L, gw, gb = unpack(f(np.array([0.5, -0.25]), 0.1, X_L, Y_L), 3, "the result (L, grad_w, grad_b)")
    assert_close(L, 0.6009977303913404, "L")
    assert_close(gw, [-0.35893917284069793, -0.48343655264482277], "grad_w")
    assert_close(gb, 0.12278535568771387, "grad_b")


@test("logistic_loss_grad", points=1)
def test_l2_penalty(f):
    L, gw, gb = unpack(f(np.array([0.5, -0.25]), 0.1, X_L, Y_L, lam=0.3), 3,
                       "the result (L, grad_w, grad_b)")
    assert_close(L, 0.6478727303913404, "L")
    assert_close(gw, [-0.20893917284069793, -0.5584365526448227], "grad_w")
    assert_close(gb, 0.12278535568771387, "grad_b")


@test("logistic_loss_grad", points=1)
def test_large_margins(f):
    L, gw, gb = unpack(f(np.array([300.0, 0.0]), 0.0, X_L, Y_L), 3, "the result (L, grad_w, grad_b)")
    assert_close(L, 30.0, "L")
    assert_close(gw, [0.1, -0.3], "grad_w")
    assert_close(gb, 0.2, "grad_b")


@test("logistic_gradient", points=2)
def test_symbolic_gradient(f):
    assert_expr(f(), "-x*y/(1 + exp(w*x*y))", ["w", "x", "y"], "dl/dw")


# ---------------------------------------------------------------------------
X_IR = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -1.5], [2.0, 1.0], [-2.0, -1.0], [0.3, 0.4],
                 [-0.4, -0.8], [1.2, -0.6]])
Y_IR = np.array([1.0, -1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0])


def _w_b(got, what="the result (w, b)"):
    w, b = unpack(got, 2, what)
    return as_array(w, None, "w"), b


@test("irls_fit", points=2)
def test_irls_unregularised(f):
    w, b = _w_b(f(X_IR, Y_IR, lam=0.0))
    assert_close(w, [1.5067071930841396, 0.3381002979471227], "w", rtol=1e-6)
    assert_close(b, -0.3788830798553643, "b", rtol=1e-6, atol=1e-8)


@test("irls_fit", points=1)
def test_irls_penalty_spares_the_bias(f):
    w, b = _w_b(f(X_IR, Y_IR + 0.0, lam=0.5))
    assert_close(w, [0.4178433589645517, 0.18515303280424625], "w", rtol=1e-6)
    assert_close(b, -0.08599756825481852, "b", rtol=1e-6, atol=1e-8)


@test("irls_fit", points=1)
def test_irls_refuses_separable_data_without_penalty(f):
    X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]])
    assert_raises(f, "ValueError", X, np.array([-1.0, -1.0, 1.0, 1.0]), 0.0)


@test("irls_fit", points=2, variant=True)
def test_irls_on_your_own_data(f, data):
    """Expected values from linclf's LogisticRegression (Newton), the trusted twin."""
    from linclf.logistic import LogisticRegression

    model = LogisticRegression(alpha=data["lam"], tol=1e-12, max_iter=200).fit(data["X"], data["y"])
    w, b = _w_b(f(data["X"], data["y"], lam=data["lam"]))
    assert_close_quiet(w, model.coef_[0], "w on your data", rtol=1e-5, atol=1e-8)
    assert_close_quiet(b, model.intercept_[0], "b on your data", rtol=1e-5, atol=1e-8)


@test("corrected_source_loss", points=2)
def test_corrected_loss_for_both_labels(f):
    expr = read_expr(f(), "the loss")
    free = {s.name for s in expr.free_symbols}
    if not free <= {"y", "f"}:
        raise AssertionError(f"the loss may use only y and f; it uses {sorted(free)}")
    for label, expected in ((1, "log(1 + exp(-f))"), (-1, "log(1 + exp(f))")):
        ok, msg = compare_expr(expr.subs("y", label), parse_expr_safely(expected), ["f"])
        if not ok:
            raise AssertionError(f"the loss at y = {label:+d}: {msg}")
