"""Exercise set "duality" (chapter 8): the SVM dual objective, back to the primal, a small dual.

Labels are -1/+1.  The dual maximises
W(alpha) = sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j x_i @ x_j
subject to 0 <= alpha_i <= C and sum_i alpha_i y_i = 0 (C = inf: hard margin).
Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..framework import (ExerciseSet, as_array, assert_close, assert_expr, assert_raises, test,
                         unpack)

SET = ExerciseSet("duality", "Lagrange duality and the SVM dual", "08_duality",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "dual_objective",
    title="The dual objective",
    signature="def dual_objective(alpha, X, y):",
    doc=r"""
    W(alpha) = sum_i alpha_i - 1/2 sum_i sum_j alpha_i alpha_j y_i y_j x_i @ x_j,
    without a Python loop.

    Parameters
    ----------
    alpha : ndarray of shape (n,)
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels in {-1, +1}

    Returns
    -------
    W : float
    """,
)

SET.exercise(
    "primal_from_dual",
    title="From the dual solution back to (w, b)",
    signature="def primal_from_dual(alpha, X, y, C=np.inf):",
    doc=r"""
    Recover the primal solution from an optimal alpha:
    w = sum_i alpha_i y_i x_i, and b = y_j - w @ x_j averaged over the free
    support vectors j, those with 1e-8 < alpha_j < C - 1e-8.  Raise
    ValueError when there is no free support vector.

    Returns
    -------
    (w, b) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "small_dual_objective",
    title="The dual of a small problem, symbolically",
    signature="def small_dual_objective():",
    doc=r"""
    Three training points: x1 = (1, 2) and x2 = (2, 0) with label +1,
    x3 = (-1, 0) with label -1.  Return the dual objective W(alpha) as a
    sympy expression in alpha1, alpha2, alpha3 (do not use the equality
    constraint to eliminate a variable).
    """,
    stub="""alpha1, alpha2, alpha3 = sp.symbols("alpha1 alpha2 alpha3", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "small_dual_alpha",
    title="Solve a small hard-margin dual",
    signature="def small_dual_alpha():",
    doc=r"""
    Five training points: x1 = (2, 3), x2 = (3, 0), x4 = (4, 4) with label +1
    and x3 = (0, 0), x5 = (-1, 2) with label -1.  Solve the hard-margin dual
    (by hand, with sympy, or numerically to 1e-9) and return the optimal
    alpha = (alpha1, ..., alpha5).

    Returns
    -------
    alpha : ndarray of shape (5,)
    """,
)

X_M = np.array([[2.0, 3.0], [3.0, 0.0], [0.0, 0.0], [4.0, 4.0], [-1.0, 2.0]])
Y_M = np.array([1.0, 1.0, -1.0, 1.0, -1.0])
ALPHA_M = np.array([2 / 27, 14 / 81, 20 / 81, 0.0, 0.0])       # its exact hard-margin solution
# X_M plus a misclassified negative (2, 1) and a misclassified positive (1, 1); for C = 1
# the exact soft-margin solution has three free and two bounded support vectors
X_S = np.vstack([X_M, [[2.0, 1.0], [1.0, 1.0]]])
Y_S = np.append(Y_M, [-1.0, 1.0])
ALPHA_S = np.array([2 / 27, 41 / 81, 47 / 81, 0.0, 0.0, 1.0, 1.0])


@test("dual_objective", points=1)
def test_objective_at_the_optimum(f):
    # at the optimum W = |w*|^2 / 2 = 20/81
    assert_close(f(ALPHA_M, X_M, Y_M), 0.24691358024691357, "W(alpha)")


@test("dual_objective", points=2)
def test_objective_elsewhere(f):
    assert_close(f(np.array([0.1, 0.3, 0.2, 0.05, 0.15]), X_M, Y_M), -0.27124999999999944, "W(alpha)")


@test("primal_from_dual", points=1)
def test_hard_margin(f):
    w, b = unpack(f(ALPHA_M, X_M, Y_M), 2, "the result (w, b)")
    assert_close(w, [2 / 3, 2 / 9], "w")
    assert_close(b, -1.0, "b")


@test("primal_from_dual", points=2)
def test_soft_margin_with_bounded_vectors(f):
    w, b = unpack(f(ALPHA_S, X_S, Y_S, 1.0), 2, "the result (w, b)")
    assert_close(w, [2 / 3, 2 / 9], "w")
    assert_close(b, -1.0, "b (from the free support vectors only)")


@test("primal_from_dual", points=1)
def test_no_free_vector_raises(f):
    assert_raises(f, "ValueError", np.array([0.0, 1.0, 1.0, 0.0, 0.0]), X_M, Y_M, 1.0)


@test("small_dual_objective", points=2)
def test_small_dual(f):
    assert_expr(f(), "alpha1 + alpha2 + alpha3 - 5*alpha1**2/2 - 2*alpha2**2 - alpha3**2/2"
                     " - 2*alpha1*alpha2 - alpha1*alpha3 - 2*alpha2*alpha3",
                ["alpha1", "alpha2", "alpha3"], "W(alpha1, alpha2, alpha3)")


@test("small_dual_alpha", points=1)
def test_alpha_is_feasible(f):
    alpha = as_array(f(), (5,), "alpha")
    assert_close(alpha @ Y_M, 0.0, "sum_i alpha_i y_i", atol=1e-9)
    assert_close(np.minimum(alpha, 0.0), np.zeros(5), "the negative part of alpha", atol=1e-12)


@test("small_dual_alpha", points=2)
def test_alpha_is_optimal(f):
    assert_close(f(), ALPHA_M, "alpha", rtol=1e-7, atol=1e-9)
