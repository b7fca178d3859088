"""Exercise set "discriminants" (chapter 1): hyperplane geometry and several classes.

Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..framework import ExerciseSet, assert_close, assert_equal, assert_expr, test

SET = ExerciseSet("discriminants", "Linear discriminant functions", "01_discriminants",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "signed_distance",
    title="Signed distance to a hyperplane",
    signature="def signed_distance(X, w, b):",
    doc=r"""
    Signed distance of each row of X to the hyperplane w @ x + b = 0.

    The distance is positive on the side the normal vector w points to
    (where g(x) = w @ x + b > 0).  Vectorise: no Python loop.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    w : ndarray of shape (d,), not zero
    b : float

    Returns
    -------
    r : ndarray of shape (n,)
    """,
)

SET.exercise(
    "origin_distance",
    title="Distance of the origin, symbolically",
    signature="def origin_distance():",
    doc=r"""
    The signed distance of the origin to the line w1*x1 + w2*x2 + b = 0.

    Return a sympy expression in the symbols w1, w2, b (positive on the side
    where w1*x1 + w2*x2 + b > 0).
    """,
    stub="""w1, w2, b = sp.symbols("w1 w2 b", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "normalize_augmented",
    title="Normalised augmented vectors",
    signature="def normalize_augmented(X, y):",
    doc=r"""
    The rows y_i * (x_i, 1): augment each sample with a trailing 1, then
    multiply by its label y_i in {-1, +1}.

    With a = (w, b), a sample is correctly classified exactly when the dot
    product of a with its row is positive.

    Returns
    -------
    Y : ndarray of shape (n, d + 1)
    """,
)

SET.exercise(
    "ovr_predict",
    title="One-vs-rest with a reject option",
    signature="def ovr_predict(W, b, X):",
    doc=r"""
    Predict with c one-vs-rest discriminants g_k(x) = W[k] @ x + b[k].

    A sample gets class k when g_k(x) > 0 and g_j(x) <= 0 for every other j;
    when no g_k or more than one g_k is positive the sample lies in an
    ambiguous region and gets the label -1.

    Parameters
    ----------
    W : ndarray of shape (c, d)
    b : ndarray of shape (c,)
    X : ndarray of shape (n, d)

    Returns
    -------
    labels : integer ndarray of shape (n,), values in {-1, 0, ..., c-1}
    """,
)


@test("signed_distance", points=1)
def test_two_dimensions(f):
    X = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 2.0], [-2.0, 0.5]])
    assert_close(f(X, np.array([3.0, 4.0]), -5.0), [-1.0, 4.0, 1.2, -1.8], "r")


@test("signed_distance", points=2)
def test_three_dimensions(f):
    X = np.array([[1.0, -2.0, 0.5], [0.0, 0.0, 0.0], [2.0, 1.0, -1.0]])
    assert_close(f(X, np.array([1.0, -2.0, 2.0]), 1.5), [2.5, 0.5, -1.0 / 6.0], "r")


@test("origin_distance", points=2)
def test_origin_distance(f):
    assert_expr(f(), "b/sqrt(w1**2 + w2**2)", ["w1", "w2", "b"], "the distance")


@test("normalize_augmented", points=1)
def test_worked_example(f):
    X = np.array([[3.0, 3.0], [4.0, 3.0], [1.0, 1.0]])
    got = f(X, np.array([1.0, 1.0, -1.0]))
    assert_close(got, [[3.0, 3.0, 1.0], [4.0, 3.0, 1.0], [-1.0, -1.0, -1.0]], "Y")


@test("normalize_augmented", points=1)
def test_three_features(f):
    X = np.array([[0.5, -1.0, 2.0], [-2.0, 0.0, 1.5]])
    got = f(X, np.array([-1.0, 1.0]))
    assert_close(got, [[-0.5, 1.0, -2.0, -1.0], [-2.0, 0.0, 1.5, 1.0]], "Y")


_W = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]])
_B = np.array([0.0, 0.0, -1.0])


@test("ovr_predict", points=1)
def test_unambiguous_points(f):
    # the last point has a rival score of exactly 0 next to a positive one: f = (1, 0, -2)
    X = np.array([[2.0, 1.0], [-2.0, 0.5], [-0.5, 0.2], [-1.0, -2.0], [1.0, 1.0]])
    assert_equal(f(_W, _B, X), [0, 1, 1, 2, 0], "labels")


@test("ovr_predict", points=2)
def test_ambiguous_points(f):
    # two positive discriminants, two positive, and none (one exactly zero)
    X = np.array([[2.0, -3.0], [0.5, 1.5], [0.0, -0.5]])
    assert_equal(f(_W, _B, X), [-1, -1, -1], "labels")
