"""Exercise set "logistic" (chapter 5): stable log-sigmoid, the loss and its gradient.

Labels are -1/+1 and the loss of a sample is log(1 + exp(-y (w @ x + b))).
Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..framework import ExerciseSet, assert_close, assert_expr, test, unpack

SET = ExerciseSet("logistic", "Logistic regression", "05_logistic",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "log_sigmoid",
    title="A log-sigmoid that never overflows",
    signature="def log_sigmoid(z):",
    doc=r"""
    log(sigma(z)) = -log(1 + exp(-z)) elementwise, accurate and finite for
    any finite z (try z = -1000 and z = 1000), without warnings.

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
                 "log sigma(z)", rtol=1e-10, atol=1e-300)


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
