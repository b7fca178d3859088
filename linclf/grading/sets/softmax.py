"""Exercise set "softmax" (chapter 6): stable softmax, its Jacobian, the gradient.

Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..framework import ExerciseSet, assert_close, assert_expr, test

SET = ExerciseSet("softmax", "Softmax regression", "06_softmax",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "softmax_rows",
    title="A stable softmax",
    signature="def softmax_rows(Z):",
    doc=r"""
    Softmax of each row of Z: P[i, k] = exp(Z[i, k]) / sum_j exp(Z[i, j]).
    It must stay finite and exact for large scores (try a row [1000, 1001]).

    Parameters
    ----------
    Z : ndarray of shape (n, k)

    Returns
    -------
    P : ndarray of shape (n, k), rows summing to 1
    """,
)

SET.exercise(
    "softmax_jacobian",
    title="The Jacobian of the softmax",
    signature="def softmax_jacobian(p):",
    doc=r"""
    The Jacobian d p / d z of p = softmax(z), written with p only:
    diag(p) - p p^T.

    Returns
    -------
    J : ndarray of shape (k, k)
    """,
)

SET.exercise(
    "softmax_grad",
    title="The gradient of the cross-entropy",
    signature="def softmax_grad(W, X, Y):",
    doc=r"""
    The gradient with respect to W of the mean cross-entropy
    -(1/n) sum_i sum_k Y[i, k] log softmax(X[i] @ W)[k].

    Parameters
    ----------
    W : ndarray of shape (d, k)
    X : ndarray of shape (n, d)
    Y : ndarray of shape (n, k), one-hot rows

    Returns
    -------
    G : ndarray of shape (d, k)
    """,
)

SET.exercise(
    "log_softmax_derivative",
    title="A derivative of the log-softmax, symbolically",
    signature="def log_softmax_derivative():",
    doc=r"""
    With three classes and scores z1, z2, z3, return the derivative of
    log softmax(z)_1 with respect to z2 as a sympy expression.
    """,
    stub="""z1, z2, z3 = sp.symbols("z1 z2 z3", real=True)
return None  # replace None by your expression""",
)


@test("softmax_rows", points=1)
def test_small_scores(f):
    Z = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    expected = [[1 / 3, 1 / 3, 1 / 3], [0.09003057317038046, 0.24472847105479764, 0.6652409557748218]]
    assert_close(f(Z), expected, "P", rtol=1e-10)


@test("softmax_rows", points=2)
def test_large_scores(f):
    # rows on very different scales: each row needs its own shift
    Z = np.array([[1000.0, 1001.0, 999.0], [-1000.0, 0.0, 1000.0], [-1000.0, -999.0, -1001.0]])
    expected = [[0.24472847105479764, 0.6652409557748218, 0.09003057317038046], [0.0, 0.0, 1.0],
                [0.24472847105479764, 0.6652409557748218, 0.09003057317038046]]
    assert_close(f(Z), expected, "P", rtol=1e-10)


@test("softmax_jacobian", points=2)
def test_jacobian(f):
    expected = [[0.16, -0.1, -0.06], [-0.1, 0.25, -0.15], [-0.06, -0.15, 0.21]]
    assert_close(f(np.array([0.2, 0.5, 0.3])), expected, "J")


@test("softmax_grad", points=2)
def test_gradient(f):
    X = np.array([[1.0, 0.5], [-1.0, 2.0], [0.5, -1.0], [2.0, 1.0]])
    Y = np.eye(3)[[0, 2, 1, 0]]
    W = np.array([[0.1, -0.2, 0.3], [0.5, 0.0, -0.5]])
    expected = [[-0.5089008063156395, -0.01884518028860173, 0.5277459866042412],
                [0.0767566154541183, 0.41439426169773896, -0.49115087715185723]]
    assert_close(f(W, X, Y), expected, "G")


@test("log_softmax_derivative", points=2)
def test_symbolic_derivative(f):
    assert_expr(f(), "-exp(z2)/(exp(z1) + exp(z2) + exp(z3))", ["z1", "z2", "z3"], "the derivative")
