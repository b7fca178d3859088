"""Exercise set "margin" (chapter 7): functional and geometric margins, the canonical hyperplane.

Labels are -1/+1 and f(x) = w @ x + b.  Expected values are literals computed
once from the reference solutions.
"""

import numpy as np

from ..framework import ExerciseSet, assert_close, assert_expr, assert_raises, test, unpack

SET = ExerciseSet("margin", "Maximum-margin classifiers", "07_margin",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "geometric_margin",
    title="The geometric margin of a hyperplane",
    signature="def geometric_margin(X, y, w, b):",
    doc=r"""
    The geometric margin of (w, b) on the training set:
    gamma = min_i y_i (w @ x_i + b) / ||w||.

    It is negative when some point is on the wrong side.  Vectorise.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels in {-1, +1}
    w : ndarray of shape (d,), not zero
    b : float

    Returns
    -------
    gamma : float
    """,
)

SET.exercise(
    "canonical_hyperplane",
    title="The canonical form of a separating hyperplane",
    signature="def canonical_hyperplane(X, y, w, b):",
    doc=r"""
    Rescale a separating (w, b) so that min_i y_i (w @ x_i + b) = 1.

    The rescaled pair describes the same hyperplane.  If (w, b) does not
    separate the training set (some functional margin is <= 0), raise
    ValueError.

    Returns
    -------
    (w_c, b_c) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "best_offset",
    title="The best line with a given normal",
    signature="def best_offset(X, y, u):",
    doc=r"""
    For the normal direction u (any length, not zero), the half-gap
    rho = (min over positives of u_hat @ x_i - max over negatives of u_hat @ x_i) / 2
    with u_hat = u / ||u||, and the offset b of the line u_hat @ x + b = 0
    that sits in the middle of the gap.  rho < 0 when u does not separate.

    Returns
    -------
    (rho, b) : float, float
    """,
)

SET.exercise(
    "two_point_svm",
    title="The SVM of two points, symbolically",
    signature="def two_point_svm():",
    doc=r"""
    One positive point p = (p1, p2) and one negative point q = (q1, q2).
    Return the canonical maximum-margin hyperplane (w*, b*), for which
    w* @ p + b* = 1 and w* @ q + b* = -1, as sp.Matrix([w1, w2, b]) in the
    symbols p1, p2, q1, q2.
    """,
    stub="""p1, p2, q1, q2 = sp.symbols("p1 p2 q1 q2", real=True)
return None  # replace None by sp.Matrix([w1, w2, b])""",
)

# the data of the chapter-8 exercise: canonical solution w* = (2/3, 2/9), b* = -1
X_M = np.array([[2.0, 3.0], [3.0, 0.0], [0.0, 0.0], [4.0, 4.0], [-1.0, 2.0]])
Y_M = np.array([1.0, 1.0, -1.0, 1.0, -1.0])
# three features; the closest point is a negative one with functional margin 0.4
X_3 = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [2.0, -1.0, 1.0], [-1.0, 0.0, -2.0], [0.1, 0.2, 0.3]])
Y_3 = np.array([1.0, 1.0, 1.0, -1.0, -1.0])


@test("geometric_margin", points=1)
def test_scaled_optimal_hyperplane(f):
    # (w, b) = 3 (w*, b*): the functional margin is 3, the geometric margin 1/||w*||
    assert_close(f(X_M, Y_M, np.array([2.0, 2.0 / 3.0]), -3.0), 1.4230249470757705, "gamma")


@test("geometric_margin", points=1)
def test_misclassified_point(f):
    assert_close(f(X_M, Y_M, np.array([1.0, -1.0]), 0.5), -0.35355339059327373, "gamma")


@test("geometric_margin", points=1)
def test_three_features(f):
    assert_close(f(X_3, Y_3, np.array([1.0, 1.0, 1.0]), -1.0), 0.23094010767585027, "gamma")


@test("canonical_hyperplane", points=1)
def test_canonical_two_features(f):
    w_c, b_c = unpack(f(X_M, Y_M, np.array([2.0, 2.0 / 3.0]), -3.0), 2, "the result (w_c, b_c)")
    assert_close(w_c, [2.0 / 3.0, 2.0 / 9.0], "w_c")
    assert_close(b_c, -1.0, "b_c")


@test("canonical_hyperplane", points=1)
def test_canonical_three_features(f):
    w_c, b_c = unpack(f(X_3, Y_3, np.array([1.0, 1.0, 1.0]), -1.0), 2, "the result (w_c, b_c)")
    assert_close(w_c, [2.5, 2.5, 2.5], "w_c")
    assert_close(b_c, -2.5, "b_c")


@test("canonical_hyperplane", points=1)
def test_not_separating_raises(f):
    assert_raises(f, "ValueError", X_M, Y_M, np.array([1.0, -1.0]), 0.5)


@test("canonical_hyperplane", points=1)
def test_point_on_the_hyperplane_raises(f):
    # x_3 = (0, 0) lies on the line x1 = 0; every other point is on its correct side
    assert_raises(f, "ValueError", X_M, Y_M, np.array([1.0, 0.0]), 0.0)


@test("best_offset", points=2)
def test_optimal_direction_not_unit(f):
    rho, b = unpack(f(X_M, Y_M, np.array([3.0, 1.0])), 2, "the result (rho, b)")
    assert_close(rho, 1.4230249470757705, "rho")
    assert_close(b, -1.4230249470757705, "b")


@test("best_offset", points=1)
def test_reversed_direction(f):
    rho, b = unpack(f(X_M, Y_M, np.array([-3.0, -1.0])), 2, "the result (rho, b)")
    assert_close(rho, -2.6879360111431225, "rho")
    assert_close(b, 2.3717082451262845, "b")


@test("best_offset", points=1)
def test_direction_that_does_not_separate(f):
    rho, b = unpack(f(X_M, Y_M, np.array([0.0, 2.0])), 2, "the result (rho, b)")
    assert_close(rho, -1.0, "rho")
    assert_close(b, -1.0, "b")


@test("two_point_svm", points=3)
def test_two_point_hyperplane(f):
    assert_expr(f(), "Matrix([[2*(p1 - q1)/((p1 - q1)**2 + (p2 - q2)**2)], "
                     "[2*(p2 - q2)/((p1 - q1)**2 + (p2 - q2)**2)], "
                     "[(q1**2 + q2**2 - p1**2 - p2**2)/((p1 - q1)**2 + (p2 - q2)**2)]])",
                ["p1", "p2", "q1", "q2"], "(w1, w2, b)")
