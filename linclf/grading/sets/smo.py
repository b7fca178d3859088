"""Exercise set "smo" (chapter 10): one step of sequential minimal optimisation.

Notation of Platt (1998): the pair being optimised is (alpha1, alpha2), passed
as arrays of length 2; f(x) = sum_j alpha_j y_j K(x_j, x) + b and the errors are
E_i = f(x_i) - y_i; K is the 2 x 2 Gram matrix of the pair and
kappa = K11 + K22 - 2 K12.  Expected values are literals computed once from the
reference solutions.
"""

import numpy as np

from ..framework import ExerciseSet, assert_close, assert_expr, test, unpack

SET = ExerciseSet("smo", "Sequential minimal optimisation", "10_smo",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "smo_unclipped_alpha2",
    title="The unclipped step, symbolically",
    signature="def smo_unclipped_alpha2():",
    doc=r"""
    Minimise the dual objective along the line y1 alpha1 + y2 alpha2 = const
    and return the unclipped minimiser alpha2_unc as a sympy expression in
    a2 (the old alpha2), y2, E1, E2, K11, K22, K12.
    The checker treats y2 as an arbitrary real symbol, so where you use
    y2**2 = 1 write y2 as a factor (y2*...), never as a divisor (.../y2).
    """,
    stub="""a2, y2, E1, E2, K11, K22, K12 = sp.symbols("a2 y2 E1 E2 K11 K22 K12", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "smo_bounds",
    title="The clipping bounds L and H",
    signature="def smo_bounds(alpha, y, C):",
    doc=r"""
    The interval [L, H] in which the new alpha2 must lie so that both
    multipliers stay in [0, C] while y1 alpha1 + y2 alpha2 stays fixed.

    Parameters
    ----------
    alpha : ndarray of shape (2,), the current (alpha1, alpha2)
    y : ndarray of shape (2,), labels (y1, y2) in {-1, +1}
    C : float > 0

    Returns
    -------
    (L, H) : float, float
    """,
)

SET.exercise(
    "smo_pair_update",
    title="The two-variable update with clipping",
    signature="def smo_pair_update(alpha, y, E, K, C):",
    doc=r"""
    One SMO step on the pair: the unclipped optimum
    alpha2_unc = alpha2 + y2 (E1 - E2) / kappa, clipped to [L, H], then
    alpha1 moved so that y1 alpha1 + y2 alpha2 does not change.
    Assume kappa > 0.

    Parameters
    ----------
    alpha : ndarray of shape (2,)
    y : ndarray of shape (2,)
    E : ndarray of shape (2,), the errors (E1, E2)
    K : ndarray of shape (2, 2), the Gram matrix of the pair
    C : float > 0

    Returns
    -------
    alpha_new : ndarray of shape (2,)
    """,
)

SET.exercise(
    "smo_bias",
    title="The new threshold b",
    signature="def smo_bias(b, E, y, alpha_old, alpha_new, K, C):",
    doc=r"""
    The threshold after an SMO step.  b1 is the value that makes
    g(x1) = y1 with the new multipliers,
    b1 = b - E1 - y1 (a1_new - a1_old) K11 - y2 (a2_new - a2_old) K12,
    and b2 the one that makes g(x2) = y2,
    b2 = b - E2 - y1 (a1_new - a1_old) K12 - y2 (a2_new - a2_old) K22.
    Return b1 if 0 < a1_new < C, else b2 if 0 < a2_new < C, else (b1 + b2) / 2.

    Returns
    -------
    b_new : float
    """,
)

K_PAIR = np.array([[2.0, 0.5], [0.5, 1.0]])   # kappa = 2


@test("smo_bounds", points=1)
def test_bounds_different_labels(f):
    L, H = unpack(f(np.array([0.2, 0.5]), np.array([1.0, -1.0]), 1.0), 2, "the result (L, H)")
    assert_close(L, 0.3, "L")
    assert_close(H, 1.0, "H")
    L, H = unpack(f(np.array([0.7, 0.2]), np.array([1.0, -1.0]), 1.0), 2, "the result (L, H)")
    assert_close(L, 0.0, "L")
    assert_close(H, 0.5, "H")


@test("smo_bounds", points=1)
def test_bounds_equal_labels(f):
    L, H = unpack(f(np.array([0.7, 0.6]), np.array([1.0, 1.0]), 1.0), 2, "the result (L, H)")
    assert_close(L, 0.3, "L")
    assert_close(H, 1.0, "H")
    L, H = unpack(f(np.array([0.2, 0.1]), np.array([-1.0, -1.0]), 1.0), 2, "the result (L, H)")
    assert_close(L, 0.0, "L")
    assert_close(H, 0.3, "H")


@test("smo_pair_update", points=1)
def test_step_inside_the_box(f):
    # alpha2_unc = 0.6 lies in [L, H] = [0.1, 1]
    got = f(np.array([0.2, 0.3]), np.array([1.0, -1.0]), np.array([-0.4, 0.2]), K_PAIR, 1.0)
    assert_close(got, [0.5, 0.6], "alpha_new")
    got = f(np.array([0.2, 0.3]), np.array([-1.0, 1.0]), np.array([0.4, -0.2]), K_PAIR, 1.0)
    assert_close(got, [0.5, 0.6], "alpha_new")


@test("smo_pair_update", points=1)
def test_step_clipped_at_H(f):
    # different labels: alpha2_unc = 1.3 > H = 1
    got = f(np.array([0.2, 0.3]), np.array([1.0, -1.0]), np.array([-1.5, 0.5]), K_PAIR, 1.0)
    assert_close(got, [0.9, 1.0], "alpha_new")
    # equal labels: alpha2_unc = 1.65 > H = 0.7
    got = f(np.array([0.4, 0.3]), np.array([1.0, 1.0]), np.array([1.5, -1.2]), K_PAIR, 1.0)
    assert_close(got, [0.0, 0.7], "alpha_new", atol=1e-12)


@test("smo_pair_update", points=1)
def test_step_clipped_at_L(f):
    # alpha2_unc = -1.05 < L = 0.1
    got = f(np.array([0.2, 0.3]), np.array([1.0, -1.0]), np.array([1.5, -1.2]), K_PAIR, 1.0)
    assert_close(got, [0.0, 0.1], "alpha_new", atol=1e-12)


@test("smo_pair_update", points=1)
def test_step_equal_labels_inside(f):
    got = f(np.array([0.4, 0.3]), np.array([1.0, 1.0]), np.array([0.3, 0.1]), K_PAIR, 1.0)
    assert_close(got, [0.3, 0.4], "alpha_new")


@test("smo_bias", points=1)
def test_bias_alpha1_free(f):
    got = f(0.25, np.array([0.3, -0.2]), np.array([1.0, 1.0]), np.array([0.2, 0.3]),
            np.array([0.4, 0.1]), K_PAIR, 1.0)
    assert_close(got, -0.35, "b_new (= b1)")


@test("smo_bias", points=1)
def test_bias_alpha2_free(f):
    got = f(0.25, np.array([0.3, -0.2]), np.array([1.0, 1.0]), np.array([0.2, 0.3]),
            np.array([0.0, 0.5]), K_PAIR, 1.0)
    assert_close(got, 0.35, "b_new (= b2)")


@test("smo_bias", points=1)
def test_bias_both_at_bounds(f):
    got = f(0.25, np.array([0.6, -0.1]), np.array([1.0, 1.0]), np.array([0.3, 0.7]),
            np.array([0.0, 1.0]), K_PAIR, 1.0)
    assert_close(got, 0.15, "b_new (= (b1 + b2) / 2)")


@test("smo_unclipped_alpha2", points=2)
def test_unclipped(f):
    assert_expr(f(), "a2 + y2*(E1 - E2)/(K11 + K22 - 2*K12)",
                ["a2", "y2", "E1", "E2", "K11", "K22", "K12"], "alpha2_unc")
