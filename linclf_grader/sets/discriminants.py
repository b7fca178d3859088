"""Exercise set "discriminants" (chapter 1): hyperplane geometry, "linear in what?", several classes.

Expected values are literals computed once from the reference solutions, except
in the variant test, which counts the ambiguous grid points itself (a direct
numpy count, independent of the student's code).
"""

import numpy as np

from ..framework import ExerciseSet, as_array, assert_close, assert_equal, test
from ..quiet import assert_close_quiet

SET = ExerciseSet("discriminants", "Linear discriminant functions", "01_discriminants",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "signed_distance",
    title="Signed distance to a hyperplane",
    signature="def signed_distance(X, w, b):",
    kind="formula",
    hidden_tests=1,
    doc=r"""
    Signed distance of each row of X to the hyperplane w @ x + b = 0.

    The distance is positive on the side the normal vector w points to
    (where the score f(x) = w @ x + b is positive).  Vectorise: no Python loop.

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
    "line_through_points",
    title="A line given by two of its points",
    signature="def line_through_points():",
    kind="derivation",
    hidden_tests=1,
    doc=r"""
    The signed distance of the point p = (p1, p2) to the line through the
    two distinct points q = (q1, q2) and r = (r1, r2), positive when p lies
    to the left of the direction from q to r.

    Return a sympy expression in p1, p2, q1, q2, r1, r2.
    """,
    stub="""p1, p2, q1, q2, r1, r2 = sp.symbols("p1 p2 q1 q2 r1 r2", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "normalize_augmented",
    title="Normalised augmented vectors",
    signature="def normalize_augmented(X, y):",
    kind="formula",
    hidden_tests=1,
    doc=r"""
    The rows z_i = y_i * (x_i, 1): augment each sample with a trailing 1,
    then multiply by its label y_i in {-1, +1}.

    With a = (w, b), a sample is correctly classified exactly when the dot
    product of a with its row is positive.

    Returns
    -------
    Z : ndarray of shape (n, d + 1)
    """,
)

SET.exercise(
    "ovr_predict",
    title="One-vs-rest with a reject option",
    signature="def ovr_predict(W, b, X):",
    # the rule is stated in full on the page: vectorising it is transcription
    kind="formula",
    hidden_tests=1,
    doc=r"""
    Predict with c one-vs-rest scores f_k(x) = W[k] @ x + b[k].

    A sample gets class k when f_k(x) > 0 and f_l(x) <= 0 for every other l;
    when no f_k or more than one f_k is positive the sample lies in an
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

SET.exercise(
    "quadratic_as_linear",
    title="Linear in what? A quadratic discriminant as a linear one",
    signature="def quadratic_as_linear(A, w, b):",
    kind="derivation",
    hidden_tests=1,
    doc=r"""
    The weight vector a of the quadratic score f(x) = x^T A x + w^T x + b in
    the space of the monomials phi(x) = (1, x1, x2, x1**2, x1*x2, x2**2).

    Derive a (on paper or with sympy) so that a @ phi(x) equals f(x) for
    every x in the plane, then return it for the given numbers.

    Parameters
    ----------
    A : ndarray of shape (2, 2), symmetric
    w : ndarray of shape (2,)
    b : float

    Returns
    -------
    a : ndarray of shape (6,), in the order of phi
    """,
)


def _ovr_triple(rng):
    """Three one-vs-rest scores in the plane, two decimals, all three classes claim some grid points,
    and no grid point on a boundary (so that the order of the arithmetic cannot matter)."""
    grid = np.arange(-60, 61) / 20
    g1, g2 = np.meshgrid(grid, grid)
    P = np.column_stack([g1.ravel(), g2.ravel()])
    while True:
        angles = rng.uniform(0, 2 * np.pi) + np.array([0.0, 2.1, 4.2]) + rng.uniform(-0.4, 0.4, 3)
        W = np.round(np.column_stack([np.cos(angles), np.sin(angles)]) * rng.uniform(0.5, 2.0, (3, 1)), 2)
        b = np.round(rng.uniform(-1.5, 1.0, 3), 2)
        S = P @ W.T + b
        n_pos = np.sum(S > 0, axis=1)
        alone = [np.mean((n_pos == 1) & (S[:, k] > 0)) for k in range(3)]
        if np.abs(S).min() > 1e-9 and min(alone) > 0.03 and 0.05 < np.mean(n_pos != 1) < 0.8:
            break
    # the task parameter, drawn after the scores so that the scores of every id stay as they
    # were: four decimals, the last one neither 0 nor 5, so it is at least 1e-4 away from every
    # score on the grid (multiples of 0.0005), doubled or not, and no point is a tie
    while True:
        k = int(rng.integers(500, 7500))
        t = k / 10000
        if k % 5 and _fraction(W, b, t) != _fraction(W, b, 0.0):
            return {"W": W, "b": b, "t": t}


def _fraction(W, b, t):
    """The fraction of the exercise's grid where not exactly one score exceeds t (a direct count)."""
    grid = np.arange(-60, 61) / 20
    g1, g2 = np.meshgrid(grid, grid)
    scores = np.column_stack([g1.ravel(), g2.ravel()]) @ W.T + b
    return float(np.mean(np.sum(scores > t, axis=1) != 1))


SET.exercise(
    "ovr_ambiguous_fraction",
    title="How much of the plane does one-vs-rest leave ambiguous? (your own scores)",
    signature="def ovr_ambiguous_fraction(W, b):",
    kind="experiment",
    variant=_ovr_triple,
    task={"t": 0.0},   # the threshold: 0 is the plain rule of ovr_predict
    hidden_tests=1,
    doc=r"""
    The fraction of the grid points that one-vs-rest with the scores
    f_k(x) = W[k] @ x + b[k] and your threshold t cannot classify.

    The grid is the 121 x 121 points (x1, x2) with both coordinates in
    np.arange(-60, 61) / 20 (steps of 0.05 over [-3, 3]; build it exactly so).
    Detector k claims a point when its score exceeds t (f_k(x) > t); a
    point is classified when exactly one detector claims it.

    Parameters
    ----------
    W : ndarray of shape (c, 2)
    b : ndarray of shape (c,)

    Returns
    -------
    fraction : float in [0, 1]
        Is it larger or smaller than you expected from a plot of the three
        lines f_k = 0?
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


_LINE_SYMBOLS = ["p1", "p2", "q1", "q2", "r1", "r2"]


def _distance_at(expr, point):
    """The returned expression at numbers (a float), or a clear failure."""
    import sympy as sp

    value = complex(expr.subs({sp.Symbol(k): v for k, v in point.items()}).evalf())
    if abs(value.imag) > 1e-12:
        raise AssertionError(f"the signed distance is not a real number at {point}")
    return value.real


# The public test checks values at numbers and two properties, never the expression itself
# (the full symbolic comparison is a hidden test): reading this file does not give the formula.
@test("line_through_points", points=1)
def test_line_through_points_at_numbers(f):
    from ..framework import read_expr

    expr = read_expr(f(), "the signed distance")
    # p on the line through q = (1, 1) and r = (4, 5), p two units to the left of q -> r (a 3-4-5
    # triangle), and p = (0, 1) to the left of the diagonal from (0, 0) to (1, 1)
    for point, expected in (({"p1": 2.5, "p2": 3.0, "q1": 1.0, "q2": 1.0, "r1": 4.0, "r2": 5.0}, 0.0),
                            ({"p1": -0.6, "p2": 2.2, "q1": 1.0, "q2": 1.0, "r1": 4.0, "r2": 5.0}, 2.0),
                            ({"p1": 0.0, "p2": 1.0, "q1": 0.0, "q2": 0.0, "r1": 1.0, "r2": 1.0}, 0.5**0.5)):
        where = ", ".join(f"{k} = {v:g}" for k, v in point.items())
        assert_close(_distance_at(expr, point), expected, f"the signed distance at {where}", quiet=True)
    # swapping q and r turns the direction round: the sign flips, the size stays
    point = {"p1": 0.5, "p2": -2.0, "q1": -1.0, "q2": 0.5, "r1": 2.0, "r2": 3.0}
    swapped = dict(point, q1=2.0, q2=3.0, r1=-1.0, r2=0.5)
    if not np.isclose(_distance_at(expr, point), -_distance_at(expr, swapped), rtol=1e-9, atol=1e-12):
        raise AssertionError("swapping q and r should flip the sign of the distance and keep its size")


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


@test("quadratic_as_linear", points=2)
def test_quadratic_with_cross_term(f):
    a = f(np.array([[1.0, 2.0], [2.0, -3.0]]), np.array([0.5, -1.0]), 2.0)
    assert_close(a, [2.0, 0.5, -1.0, 1.0, 4.0, -3.0], "a")


@test("quadratic_as_linear", points=1)
def test_quadratic_reproduces_the_score(f):
    """a @ phi(x) = x^T A x + w^T x + b at a few points (computed here, directly)."""
    A, w, b = np.array([[0.25, -0.75], [-0.75, 1.5]]), np.array([-2.0, 0.0]), -0.5
    a = as_array(f(A, w, b), (6,), "a")
    X = np.array([[1.0, 2.0], [-0.5, 3.0], [2.0, -1.5], [0.0, 0.0]])
    phi = np.column_stack([np.ones(4), X[:, 0], X[:, 1], X[:, 0] ** 2, X[:, 0] * X[:, 1], X[:, 1] ** 2])
    direct = np.einsum("ni,ij,nj->n", X, A, X) + X @ w + b
    assert_close(phi @ a, direct, "a @ phi(x) at x = (1, 2), (-0.5, 3), (2, -1.5), (0, 0)")


@test("ovr_ambiguous_fraction", points=2)
def test_fraction_with_points_on_the_boundaries(f):
    # lines through grid points: x1 = x2, x1 = -x2 and x2 = 0.5 hold 363 grid points with a zero
    # score; every score is an integer on the grid, so any threshold t in (0, 1) gives one answer
    W = 20 * np.array([[1.0, -1.0], [-1.0, -1.0], [0.0, 2.0]])
    assert_close(f(W, np.array([0.0, 0.0, -20.0])), 6171 / 14641, "the fraction", rtol=1e-12)


@test("ovr_ambiguous_fraction", points=2, variant=True)
def test_fraction_on_your_own_scores(f, data):
    """Expected values: a direct count over the grid, with the student's threshold t, for the
    scores and for the scores doubled (no grid point is a tie in either case)."""
    W, b, t = data["W"], data["b"], data["t"]
    got = f(W, b), f(2 * W, 2 * b)   # both calls first: a copy check replays them (task_matches)
    assert_close_quiet(got[0], _fraction(W, b, t), "the fraction for your scores and your t",
                       rtol=1e-12)
    assert_close_quiet(got[1], _fraction(2 * W, 2 * b, t),
                       "the fraction for your scores doubled, with your t", rtol=1e-12)
