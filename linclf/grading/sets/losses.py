"""Exercise set "losses" (chapter 11): the hinge subgradient, a stable logistic loss, a risk minimiser.

Losses are functions of the margin m = y f(x) with labels y in {-1, +1}.
Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..framework import ExerciseSet, assert_close, assert_expr, test, unpack

SET = ExerciseSet("losses", "Loss functions", "11_losses", preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "hinge_subgradient",
    title="The regularised hinge loss and a subgradient",
    signature="def hinge_subgradient(w, b, X, y, lam=0.0):",
    doc=r"""
    J(w, b) = mean_i max(0, 1 - y_i (w @ x_i + b)) + (lam / 2) ||w||^2
    (the bias is not penalised) and a subgradient (g_w, g_b).  At the kink
    y_i (w @ x_i + b) = 1 use the slope of the violating side: sample i
    contributes -y_i x_i / n to g_w and -y_i / n to g_b whenever its margin
    is <= 1.  Vectorise.

    Returns
    -------
    (J, g_w, g_b) : float, ndarray of shape (d,), float
    """,
)

SET.exercise(
    "logistic_loss_bits",
    title="The logistic loss in bits, for any margin",
    signature="def logistic_loss_bits(m):",
    doc=r"""
    log2(1 + exp(-m)) elementwise: the logistic loss scaled so that it is 1
    at m = 0 and lies above the zero-one loss.  Accurate and finite for any
    finite m (try m = -1000 and m = 1000), without warnings.

    Parameters
    ----------
    m : ndarray

    Returns
    -------
    ndarray of the shape of m
    """,
)

SET.exercise(
    "exp_loss_minimizer",
    title="What the exponential loss estimates, symbolically",
    signature="def exp_loss_minimizer():",
    doc=r"""
    At a point x where P(y = +1 | x) = p and P(y = -1 | x) = q, the expected
    exponential loss of the score f is R(f) = p exp(-f) + q exp(f).  Return
    the minimiser f* as a sympy expression in p and q (both positive; keep q,
    do not replace it by 1 - p).
    """,
    stub="""p, q = sp.symbols("p q", positive=True)
return None  # replace None by your expression""",
)

# margins y (w @ x + b) = [1, 0.5, 0, 1.5, 1.5]: one point exactly at the kink, one on the boundary
X_H = np.array([[1.0, 2.0], [2.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [3.0, 1.0]])
Y_H = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
W_H = np.array([0.5, 0.5])


@test("hinge_subgradient", points=2)
def test_point_at_the_kink(f):
    J, g_w, g_b = unpack(f(W_H, -0.5, X_H, Y_H), 3, "the result (J, g_w, g_b)")
    assert_close(J, 0.3, "J")
    assert_close(g_w, [-0.6, -0.2], "g_w", atol=1e-12)
    assert_close(g_b, -0.2, "g_b", atol=1e-12)


@test("hinge_subgradient", points=1)
def test_with_l2_penalty(f):
    J, g_w, g_b = unpack(f(W_H, -0.5, X_H, Y_H, lam=0.4), 3, "the result (J, g_w, g_b)")
    assert_close(J, 0.4, "J")
    assert_close(g_w, [-0.4, 0.0], "g_w", atol=1e-12)
    assert_close(g_b, -0.2, "g_b", atol=1e-12)


@test("hinge_subgradient", points=1)
def test_only_one_violation(f):
    # margins [6, 5, -1, 6, 10]: only the third sample counts
    J, g_w, g_b = unpack(f(np.array([3.0, 2.0]), -1.0, X_H, Y_H, lam=0.1), 3, "the result (J, g_w, g_b)")
    assert_close(J, 1.05, "J")
    assert_close(g_w, [0.3, 0.4], "g_w", atol=1e-12)
    assert_close(g_b, 0.2, "g_b", atol=1e-12)


@test("logistic_loss_bits", points=1)
def test_moderate_margins(f):
    assert_close(f(np.array([-1.0, 0.0, 2.0])), [1.8946361239720115, 1.0, 0.18311841208159602],
                 "log2(1 + exp(-m))", rtol=1e-10)


@test("logistic_loss_bits", points=2)
def test_extreme_margins(f):
    assert_close(f(np.array([-1000.0, -40.0, 40.0, 800.0])),
                 [1442.6950408889634, 57.70780163555854, 6.129079616048701e-18, 0.0],
                 "log2(1 + exp(-m))", rtol=1e-10, atol=1e-300)


@test("exp_loss_minimizer", points=2)
def test_minimizer(f):
    assert_expr(f(), "log(p/q)/2", ["p", "q"], "f*", positive=["p", "q"])
