"""Exercise set "fisher" (chapter 2): scatter matrices, Fisher's direction and threshold.

Labels are -1/+1; m+ and m- are the class means.  Expected values are literals
computed once from the reference solutions.
"""

import numpy as np

from ..framework import (ExerciseSet, as_float, assert_close, assert_direction, assert_expr,
                         test)

SET = ExerciseSet("fisher", "Fisher's linear discriminant", "02_fisher",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "within_class_scatter",
    title="The within-class scatter matrix",
    signature="def within_class_scatter(X, y):",
    doc=r"""
    S_w = S_+ + S_-, where S_k = sum over the samples of class k of
    (x - m_k)(x - m_k)^T (a sum, not an average).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels in {-1, +1}

    Returns
    -------
    S_w : ndarray of shape (d, d)
    """,
)

SET.exercise(
    "fisher_direction",
    title="Fisher's direction",
    signature="def fisher_direction(X, y):",
    doc=r"""
    The direction w maximising Fisher's criterion, w proportional to
    S_w^{-1} (m_+ - m_-), oriented so that the class +1 projects higher.

    Any positive multiple is accepted (the length does not matter).  Solve a
    linear system rather than inverting S_w.

    Returns
    -------
    w : ndarray of shape (d,)
    """,
)

SET.exercise(
    "fisher_criterion",
    title="Fisher's criterion",
    signature="def fisher_criterion(w, X, y):",
    doc=r"""
    J(w) = (w^T (m_+ - m_-))^2 / (w^T S_w w), the squared distance of the
    projected means over the total projected within-class scatter.

    Returns
    -------
    J : float
    """,
)

SET.exercise(
    "midpoint_bias",
    title="The midpoint threshold",
    signature="def midpoint_bias(w, X, y):",
    doc=r"""
    The bias b that puts the boundary w @ x + b = 0 halfway between the
    projected class means: b = -w @ (m_+ + m_-) / 2.

    (Careful: the midpoint of the two class means is not the mean of all
    samples when the classes have different sizes.)

    Returns
    -------
    b : float
    """,
)

SET.exercise(
    "fisher_max_criterion",
    title="The best value of the criterion, symbolically",
    signature="def fisher_max_criterion():",
    doc=r"""
    In two dimensions, with S_w = diag(s1, s2) (s1, s2 > 0) and
    m_+ - m_- = (d1, d2), return max_w J(w) as a sympy expression in
    s1, s2, d1, d2.  (Hint: substitute the optimal w into J.)
    """,
    stub="""s1, s2 = sp.symbols("s1 s2", positive=True)
d1, d2 = sp.symbols("d1 d2", real=True)
return None  # replace None by your expression""",
)

# two classes of different sizes (4 and 3 samples)
X_2D = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 3.0], [2.0, 1.5], [4.0, 0.0], [5.0, 1.0], [6.0, 0.5]])
Y_2D = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
X_3D = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0], [2.0, 0.0, 1.0], [1.0, 3.0, 0.0],
                 [3.0, 2.0, 2.0], [4.0, 3.0, 1.0], [2.0, 4.0, 3.0], [3.0, 3.0, 4.0]])
Y_3D = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0])


@test("within_class_scatter", points=1)
def test_scatter_two_features(f):
    assert_close(f(X_2D, Y_2D), [[4.0, 1.5], [1.5, 2.1875]], "S_w")


@test("within_class_scatter", points=1)
def test_scatter_three_features(f):
    expected = [[4.0, -2.0, -3.0], [-2.0, 6.75, -1.0], [-3.0, -1.0, 7.0]]
    assert_close(f(X_3D, Y_3D), expected, "S_w")


@test("fisher_direction", points=1)
def test_direction_two_features(f):
    assert_direction(f(X_2D, Y_2D), [-0.6156440419723151, 0.7880243737245634], "w")


@test("fisher_direction", points=2)
def test_direction_three_features(f):
    expected = [-0.7752574595558084, -0.40973446456845136, -0.48072189460006753]
    assert_direction(f(X_3D, Y_3D), expected, "w")


@test("fisher_criterion", points=1)
def test_criterion_of_a_fixed_direction(f):
    assert_close(f(np.array([1.0, -1.0]), X_2D, Y_2D), 7.455882352941177, "J(w)")


@test("fisher_criterion", points=1)
def test_criterion_is_scale_free(f):
    value = as_float(f(np.array([-3.0, 3.0]), X_2D, Y_2D), "J(w)")
    assert_close(value, 7.455882352941177, "J(w) for w = (-3, 3)")


@test("midpoint_bias", points=1)
def test_bias_unequal_class_sizes(f):
    assert_close(f(np.array([1.0, -1.0]), X_2D, Y_2D), -2.0625, "b")


@test("midpoint_bias", points=1)
def test_bias_three_features(f):
    assert_close(f(np.array([0.5, 1.0, -2.0]), X_3D, Y_3D), 0.375, "b")


@test("fisher_max_criterion", points=2)
def test_max_criterion(f):
    assert_expr(f(), "d1**2/s1 + d2**2/s2", ["s1", "s2", "d1", "d2"], "max J",
                positive=["s1", "s2"])
