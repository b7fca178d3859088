"""Exercise set "mse" (chapter 4): the MSE criterion, Fisher's margins, Widrow-Hoff.

Y denotes the matrix of normalised augmented samples, rows y_i * (x_i, 1), and
a = (w, b).  Expected values are literals computed once from the reference
solutions.
"""

import numpy as np

from ..framework import ExerciseSet, assert_close, assert_expr, test, unpack

SET = ExerciseSet("mse", "Least squares (MSE) classifiers", "04_mse",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "mse_solution",
    title="The pseudo-inverse solution",
    signature="def mse_solution(X, y, margins):",
    doc=r"""
    Minimise ||Y a - margins||^2 over a = (w, b), where the rows of Y are the
    normalised augmented samples y_i * (x_i, 1).  Use the pseudo-inverse
    a = pinv(Y) @ margins.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels in {-1, +1}
    margins : ndarray of shape (n,), the target values b_i > 0

    Returns
    -------
    (w, b) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "fisher_margins",
    title="Margins that give Fisher's solution",
    signature="def fisher_margins(y):",
    doc=r"""
    The margin vector that makes the MSE solution Fisher's discriminant:
    b_i = N / N_+ for the samples of class +1 and b_i = N / N_- for those of
    class -1 (N samples in all, N_+ and N_- in each class).

    Returns
    -------
    margins : ndarray of shape (n,)
    """,
)

SET.exercise(
    "lms_update",
    title="One Widrow-Hoff (LMS) step",
    signature="def lms_update(a, y_hat, margin, eta):",
    doc=r"""
    One step of the Widrow-Hoff rule on one normalised augmented sample
    y_hat with target margin b_k: a + eta * (b_k - a @ y_hat) * y_hat.

    Returns
    -------
    a_new : ndarray of the shape of a
    """,
)

SET.exercise(
    "mse_gradient",
    title="The gradient of the squared error, symbolically",
    signature="def mse_gradient():",
    doc=r"""
    For one sample, J(a) = (a1*y1 + a2*y2 - b)**2.  Return the gradient
    (dJ/da1, dJ/da2) as a 2 x 1 sympy Matrix in a1, a2, y1, y2, b.
    """,
    stub="""a1, a2, y1, y2, b = sp.symbols("a1 a2 y1 y2 b", real=True)
return None  # replace None by a sympy Matrix""",
)

X_F = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 3.0], [2.0, 1.5], [4.0, 0.0], [5.0, 1.0], [6.0, 0.5]])
Y_F = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0])


@test("mse_solution", points=2)
def test_unit_margins(f):
    w, b = unpack(f(X_F, Y_F, np.ones(7)), 2, "the result (w, b)")
    assert_close(w, [-0.3445635528330776, 0.4410413476263385], "w")
    assert_close(b, 0.5819295558958657, "b")


@test("mse_solution", points=1)
def test_fisher_margins(f):
    margins = np.array([1.75, 1.75, 1.75, 1.75, 7 / 3, 7 / 3, 7 / 3])
    w, b = unpack(f(X_F, Y_F, margins), 2, "the result (w, b)")
    assert_close(w, [-0.7034839203675336, 0.9004594180704416], "w")
    assert_close(b, 0.8964395099540594, "b")


@test("fisher_margins", points=1)
def test_unbalanced_classes(f):
    assert_close(f(Y_F), [1.75, 1.75, 1.75, 1.75, 7 / 3, 7 / 3, 7 / 3], "margins")


@test("fisher_margins", points=1)
def test_classes_interleaved(f):
    y = np.array([-1.0, 1.0, -1.0, -1.0, -1.0])
    assert_close(f(y), [1.25, 5.0, 1.25, 1.25, 1.25], "margins")


@test("lms_update", points=1)
def test_lms_negative_sample(f):
    got = f(np.array([0.5, -1.0, 0.25]), np.array([-1.0, -2.0, -1.0]), 1.0, 0.1)
    assert_close(got, [0.525, -0.95, 0.275], "a_new")


@test("lms_update", points=1)
def test_lms_overshoot_is_corrected(f):
    # a @ y_hat = 3 exceeds the target 2: the step must move a back
    got = f(np.array([1.0, 1.0, -3.0]), np.array([3.0, 3.0, 1.0]), 2.0, 0.5)
    assert_close(got, [-0.5, -0.5, -3.5], "a_new")


@test("mse_gradient", points=2)
def test_gradient(f):
    assert_expr(f(), "Matrix([[2*y1*(a1*y1 + a2*y2 - b)], [2*y2*(a1*y1 + a2*y2 - b)]])",
                ["a1", "a2", "y1", "y2", "b"], "the gradient")
