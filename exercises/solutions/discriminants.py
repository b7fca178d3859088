"""Reference solutions: exercise set "discriminants" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp

from linclf_grader import my_data, test
from linclf_grader.framework import assert_close


def signed_distance(X, w, b):
    return (X @ w + b) / np.linalg.norm(w)


def line_through_points():
    p1, p2, q1, q2, r1, r2 = sp.symbols("p1 p2 q1 q2 r1 r2", real=True)
    # the direction d = r - q turned a quarter to the left is a normal w = (-d2, d1) that
    # points to the left of d; the line is w^T (x - q) = 0 and the distance w^T (p - q) / ||w||
    w = sp.Matrix([-(r2 - q2), r1 - q1])
    return (w.T * sp.Matrix([p1 - q1, p2 - q2]))[0] / sp.sqrt(w.dot(w))


def normalize_augmented(X, y):
    return y[:, None] * np.hstack([X, np.ones((len(X), 1))])


def ovr_predict(W, b, X):
    positive = X @ W.T + b > 0
    labels = np.argmax(positive, axis=1)
    return np.where(positive.sum(axis=1) == 1, labels, -1)


def quadratic_as_linear(A, w, b):
    # x^T A x = A11 x1^2 + (A12 + A21) x1 x2 + A22 x2^2: the off-diagonal entry counts twice
    return np.array([b, w[0], w[1], A[0, 0], A[0, 1] + A[1, 0], A[1, 1]], dtype=float)


def _grid():
    g = np.arange(-60, 61) / 20
    g1, g2 = np.meshgrid(g, g)
    return np.column_stack([g1.ravel(), g2.ravel()])


def ovr_ambiguous_fraction(W, b):
    t = my_data("ovr_ambiguous_fraction")["t"]           # the student's threshold: not an argument
    n_claims = np.sum(_grid() @ W.T + b > t, axis=1)
    return float(np.mean(n_claims != 1))


# --------------------------------------------------------------------------
# hidden tests: traps the public tests do not show
# --------------------------------------------------------------------------
# Fresh inputs from fixed seeds, expected values from the reference above: a table of the
# public tests' answers (hard-coded outputs for the public inputs) loses these points.
@test("discriminants.signed_distance", points=1, hidden=True, visibility="after_due_date")
def test_hidden_signed_distance_fresh_inputs(f):
    rng = np.random.default_rng(101)
    X, w, b = rng.normal(size=(6, 4)), rng.normal(size=4), float(rng.normal())
    assert_close(f(X, w, b), signed_distance(X, w, b), "r")


@test("discriminants.line_through_points", points=2, hidden=True, visibility="after_due_date")
def test_hidden_line_through_points_symbolic(f):
    """The whole expression, compared symbolically with the reference's derivation."""
    from linclf_grader.framework import read_expr
    from linclf_grader.symbolic import compare_expr, parse_expr_safely

    got = read_expr(f(), "the signed distance")
    ok, msg = compare_expr(got, parse_expr_safely(str(line_through_points())),
                           ["p1", "p2", "q1", "q2", "r1", "r2"])
    if not ok:
        raise AssertionError(f"the signed distance: {msg}")


@test("discriminants.normalize_augmented", points=1, hidden=True, visibility="after_due_date")
def test_hidden_normalize_augmented_fresh_inputs(f):
    rng = np.random.default_rng(102)
    X, y = rng.normal(size=(7, 3)), rng.choice([-1.0, 1.0], size=7)
    assert_close(f(X, y), normalize_augmented(X, y), "Y")


@test("discriminants.ovr_predict", points=1, hidden=True, visibility="after_due_date")
def test_hidden_ovr_predict_fresh_inputs(f):
    """Four classes in three dimensions, random scores (no ties): every label, -1 included."""
    from linclf_grader.framework import assert_equal

    rng = np.random.default_rng(109)
    # four normals a quarter turn apart in (x1, x2): each class claims a sector (23 of the 40
    # points are ambiguous, every class gets at least 3)
    angles = rng.uniform(0, 2 * np.pi) + np.arange(4) * np.pi / 2
    W = np.column_stack([np.cos(angles), np.sin(angles), 0.3 * rng.normal(size=4)])
    b, X = rng.uniform(-1, 0, 4), 2 * rng.normal(size=(40, 3))
    assert_equal(f(W, b, X), ovr_predict(W, b, X), "labels")


@test("discriminants.quadratic_as_linear", points=1, hidden=True, visibility="after_due_date")
def test_hidden_cross_term_only_and_degenerate_A(f):
    """A with a zero diagonal (only the cross term), and A = 0 (a plain linear score)."""
    assert_close(f(np.array([[0.0, -1.25], [-1.25, 0.0]]), np.array([3.0, 0.5]), 0.0),
                 [0.0, 3.0, 0.5, 0.0, -2.5, 0.0], "a")
    assert_close(f(np.zeros((2, 2)), np.array([-1.0, 2.0]), 4.0), [4.0, -1.0, 2.0, 0.0, 0.0, 0.0], "a")


@test("discriminants.ovr_ambiguous_fraction", points=2, hidden=True, visibility="after_due_date")
def test_hidden_grid_points_on_the_boundaries(f):
    """Lines x1 = 0, x1 = x2 and x2 = -1 run through grid points: a score of 0 claims nothing.
    Scores are integers on the grid (times 20), so every threshold t in (0, 1) gives one answer."""
    W = 20 * np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]])
    assert_close(f(W, np.array([0.0, 0.0, -20.0])), 5181 / 14641, "the fraction", rtol=1e-12)
    W = 20 * np.array([[0.0, 1.0], [1.0, 0.0], [-1.0, -1.0]])
    assert_close(f(W, np.zeros(3)), 7141 / 14641, "the fraction", rtol=1e-12)


# --------------------------------------------------------------------------
# typical wrong answers (tests/test_exercise_sets.py proves each loses points)
# --------------------------------------------------------------------------
def _fraction_wrong(rule):
    def wrong(W, b):
        t = my_data("ovr_ambiguous_fraction")["t"]
        S = _grid() @ W.T + b
        if rule == "t ignored":
            return float(np.mean(np.sum(S > 0, axis=1) != 1))
        if rule == "only overlaps":
            return float(np.mean(np.sum(S > t, axis=1) > 1))
        if rule == "linspace grid":
            g1, g2 = np.meshgrid(np.linspace(-3, 3, 120), np.linspace(-3, 3, 120))
            S = np.column_stack([g1.ravel(), g2.ravel()]) @ W.T + b
            return float(np.mean(np.sum(S > t, axis=1) != 1))
        return 0.0  # the argmax rule: every point gets a class
    return wrong


WRONG = {
    "quadratic_as_linear": {
        "off-diagonal counted once": lambda A, w, b: np.array([b, w[0], w[1], A[0, 0], A[0, 1], A[1, 1]]),
        "phi in the order (x1^2, x1 x2, x2^2, x1, x2, 1)": lambda A, w, b: np.array(
            [A[0, 0], 2 * A[0, 1], A[1, 1], w[0], w[1], b]),
        "half the off-diagonal": lambda A, w, b: np.array([b, w[0], w[1], A[0, 0], A[0, 1] / 2, A[1, 1]]),
    },
    "ovr_ambiguous_fraction": {
        "the threshold t ignored (scores compared with 0)": _fraction_wrong("t ignored"),
        "only points claimed twice": _fraction_wrong("only overlaps"),
        "argmax: nothing is ambiguous": _fraction_wrong("argmax"),
        "a 120 x 120 linspace grid": _fraction_wrong("linspace grid"),
    },
}
