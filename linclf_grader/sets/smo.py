"""Exercise set "smo" (chapter 10): one step of sequential minimal optimisation, the decrease
of a clipped step, and a whole solver.

The pair being optimised is (alpha1, alpha2), passed as arrays of length 2;
f(x) = sum_j alpha_j y_j k(x_j, x) + b and the errors are E_i = f(x_i) - y_i; K is
the 2 x 2 Gram matrix of the pair and kappa = K11 + K22 - 2 K12 (Platt's eta).  The
dual is minimised: Psi(alpha) = 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij - sum_i alpha_i.
Expected values are literals computed once from the reference solutions (and checked
against ``linclf.SVC``, whose ``dual_objective_`` reports Psi).
"""

import numpy as np

from ..imports import OPTIMISERS
from ..framework import (ExerciseSet, as_array, as_float, assert_close, fail, read_expr, test,
                         unpack)
from ..pointwise import assert_values_at
from ..quiet import order_of
from ..symbolic import compare_expr, parse_expr_safely

SET = ExerciseSet("smo", "Sequential minimal optimisation", "10_smo",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "smo_unclipped_alpha2",
    title="The unclipped step for a general linear term",
    signature="def smo_unclipped_alpha2():",
    kind="derivation",  # the chapter derives the case p1 = p2 = 1 only
    hidden_tests=1,
    doc=r"""
    Minimise Psi_p(alpha) = 1/2 sum_ij alpha_i alpha_j y_i y_j K_ij
    - sum_i p_i alpha_i (p_i = 1 for every i is the SVM) along the line
    y1 alpha1 + y2 alpha2 = const and return the unclipped minimiser
    alpha2_unc as a sympy expression in a2 (the old alpha2), y1, y2,
    g1, g2, p1, p2, K11, K22, K12, where g_i = sum_j alpha_j y_j K_ij is
    the kernel part of the score of x_i at the old alpha (no b).
    y1 and y2 are labels: the checker compares your answer at the four
    choices y1, y2 = +-1, so a label as a factor or as a divisor is fine.
    """,
    stub="""a2, y1, y2, g1, g2, p1, p2, K11, K22, K12 = sp.symbols(
    "a2 y1 y2 g1 g2 p1 p2 K11 K22 K12", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "smo_bounds",
    title="The clipping bounds L and H, one cap per multiplier",
    signature="def smo_bounds(alpha, y, C):",
    kind="derivation",  # the chapter's eq-smo-LH has one C for both; here each has its own
    hidden_tests=1,
    doc=r"""
    The interval [L, H] in which the new alpha2 must lie so that
    0 <= alpha1 <= C1 and 0 <= alpha2 <= C2 while y1 alpha1 + y2 alpha2
    stays fixed.  Each multiplier has its own cap (class weights give the
    points of one class a larger C); a single number C means C1 = C2 = C.

    Parameters
    ----------
    alpha : ndarray of shape (2,), the current (alpha1, alpha2)
    y : ndarray of shape (2,), labels (y1, y2) in {-1, +1}
    C : float > 0, or ndarray of shape (2,), the caps (C1, C2)

    Returns
    -------
    (L, H) : float, float
    """,
)

SET.exercise(
    "smo_pair_update",
    title="The two-variable update with clipping",
    signature="def smo_pair_update(alpha, y, E, K, C):",
    kind="formula",
    hidden_tests=1,
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
    kind="formula",
    hidden_tests=1,
    doc=r"""
    The threshold after an SMO step.  b1 is the value that makes
    f(x1) = y1 with the new multipliers,
    b1 = b - E1 - y1 (a1_new - a1_old) K11 - y2 (a2_new - a2_old) K12,
    and b2 the one that makes f(x2) = y2,
    b2 = b - E2 - y1 (a1_new - a1_old) K12 - y2 (a2_new - a2_old) K22.
    Return b1 if 0 < a1_new < C, else b2 if 0 < a2_new < C, else (b1 + b2) / 2.

    Returns
    -------
    b_new : float
    """,
)

SET.exercise(
    "second_order_gain",
    title="How much a clipped step gains",
    signature="def second_order_gain():",
    kind="derivation",
    hidden_tests=2,
    doc=r"""
    An SMO step moves alpha2 from a2 to a2n (anywhere on the segment, in
    particular the clipped value) and alpha1 so that y1 alpha1 + y2 alpha2
    does not change.  Return the decrease Psi(old) - Psi(new) of the dual as
    a sympy expression in E1, E2, y2, kappa, a2, a2n, valid for every kappa,
    kappa <= 0 included (the errors E_i are those before the step).
    The checker sets y2 = +1 and y2 = -1 in your answer.
    """,
    stub="""E1, E2, y2, kappa, a2, a2n = sp.symbols("E1 E2 y2 kappa a2 a2n", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "smo_solver",
    title="A whole SMO solver",
    signature="def smo_solver(K, y, C, tol=1e-3, max_steps=100_000):",
    kind="implementation",
    forbid=OPTIMISERS,  # the exercise is to optimise: a ready-made optimiser would do it
    hidden_tests=5,
    doc=r"""
    Minimise Psi(alpha) subject to 0 <= alpha_i <= C_i and sum_i alpha_i y_i = 0
    by SMO, from alpha = 0: choose a violating pair (any working-set rule),
    take the clipped step (with the bounds of smo_bounds for the pair's two
    caps), keep the errors E_i up to date, and stop when
    max_{i in I_low} E_i - min_{i in I_up} E_i <= tol (or after max_steps
    steps).  Each multiplier has its own cap C_i (class weights); a single
    number C means C_i = C for all i.  A pair with kappa <= 0 must not stall
    the solver, and neither may round-off: a multiplier within round-off of
    0 or C_i must be set exactly to that bound, or the same pair can be
    chosen again and again with a zero-length step.

    Parameters
    ----------
    K : ndarray of shape (N, N), the Gram matrix
    y : ndarray of shape (N,), labels in {-1, +1}
    C : float > 0, or ndarray of shape (N,), the caps C_i
    tol : float > 0

    Returns
    -------
    (alpha, b) : ndarray of shape (N,), float
        The multipliers and a threshold b for which the KKT conditions of
        the chapter hold to within tol.
    """,
)

K_PAIR = np.array([[2.0, 0.5], [0.5, 1.0]])   # kappa = 2


@test("smo_bounds", points=1)
def test_bounds_one_cap_for_both(f):
    for alpha, y, expected in (([0.2, 0.5], [1.0, -1.0], (0.3, 1.0)), ([0.7, 0.2], [1.0, -1.0], (0.0, 0.5)),
                               ([0.7, 0.6], [1.0, 1.0], (0.3, 1.0)), ([0.2, 0.1], [-1.0, -1.0], (0.0, 0.3))):
        L, H = unpack(f(np.array(alpha), np.array(y), 1.0), 2, "the result (L, H)")
        assert_close(L, expected[0], "L")
        assert_close(H, expected[1], "H")


@test("smo_bounds", points=1)
def test_bounds_own_caps_different_labels(f):
    for alpha, C, expected in (([0.2, 0.5], [0.4, 1.0], (0.3, 0.7)), ([0.7, 0.2], [2.0, 0.5], (0.0, 0.5)),
                               ([0.5, 0.1], [0.6, 2.0], (0.0, 0.2))):
        L, H = unpack(f(np.array(alpha), np.array([1.0, -1.0]), np.array(C)), 2, "the result (L, H)")
        assert_close(L, expected[0], "L")
        assert_close(H, expected[1], "H")


@test("smo_bounds", points=1)
def test_bounds_own_caps_equal_labels(f):
    for alpha, y, C, expected in (([0.7, 0.6], [1.0, 1.0], [0.8, 2.0], (0.5, 1.3)),
                                  ([0.2, 0.1], [-1.0, -1.0], [1.0, 0.25], (0.0, 0.25)),
                                  ([1.5, 0.2], [1.0, 1.0], [2.0, 0.5], (0.0, 0.5))):
        L, H = unpack(f(np.array(alpha), np.array(y), np.array(C)), 2, "the result (L, H)")
        assert_close(L, expected[0], "L")
        assert_close(H, expected[1], "H")


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
    # the step of test_step_clipped_at_H: alpha1 = 0.9 is free, alpha2 = C = 1 is at its bound
    got = f(0.25, np.array([-1.5, 0.5]), np.array([1.0, -1.0]), np.array([0.2, 0.3]),
            np.array([0.9, 1.0]), K_PAIR, 1.0)
    assert_close(got, 0.7, "b_new (= b1)")


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


_UNCLIPPED_SYMBOLS = ["a2", "y1", "y2", "g1", "g2", "p1", "p2", "K11", "K22", "K12"]


@test("smo_unclipped_alpha2", points=1)
def test_unclipped_svm_case(f):
    """p1 = p2 = 1 is the chapter's step, checked by values at two points for the four
    label choices (kappa = 3 and 5)."""
    cases = []
    for point, values in (
            (dict(a2=0.5, g1=0.75, g2=-0.25, K11=2.0, K22=1.5, K12=0.25), (5 / 6, 5 / 6, 1.5, 1 / 6)),
            (dict(a2=-1.0, g1=-0.5, g2=1.25, K11=1.0, K22=3.0, K12=-0.5), (-1.35, -0.25, -0.95, -0.65))):
        labels = [(l1, l2) for l1 in (1.0, -1.0) for l2 in (1.0, -1.0)]
        cases += [(dict(point, y1=l1, y2=l2, p1=1.0, p2=1.0), v) for (l1, l2), v in zip(labels, values)]
    assert_values_at(f(), cases, _UNCLIPPED_SYMBOLS, "alpha2_unc with p1 = p2 = 1")


@test("smo_unclipped_alpha2", points=1)
def test_unclipped_general_linear_term(f):
    """Values at two points with p1 != p2, for the four label choices (kappa = 2 and 7)."""
    cases = []
    for point, values in (
            (dict(a2=0.5, g1=0.3, g2=-0.2, p1=2.0, p2=0.5, K11=2.0, K22=1.0, K12=0.5), (0.0, 1.5, 2.0, -0.5)),
            (dict(a2=-0.25, g1=1.5, g2=0.75, p1=0.5, p2=3.0, K11=1.0, K22=4.0, K12=-1.0),
             (3 / 14, 1 / 7, 5 / 14, 0.0))):
        for (l1, l2), value in zip(((1, 1), (1, -1), (-1, 1), (-1, -1)), values):
            cases.append(({**point, "y1": l1, "y2": l2}, value))
    assert_values_at(f(), cases, _UNCLIPPED_SYMBOLS, "alpha2_unc")


# --------------------------------------------------------------------------
# the decrease of a clipped step
# --------------------------------------------------------------------------
_GAIN_SYMBOLS = ["E1", "E2", "y2", "kappa", "a2", "a2n"]


def check_gain(expr, expected, what="the decrease"):
    for label in (1, -1):
        got = expr.subs("y2", label)
        ok, msg = compare_expr(got, parse_expr_safely(expected.replace("y2", f"({label})")),
                               [n for n in _GAIN_SYMBOLS if n != "y2"])
        if not ok:
            raise AssertionError(f"{what} at y2 = {label:+d}: {msg}")


@test("second_order_gain", points=1)
def test_gain_at_three_steps(f):
    """Values for y2 = +1 and -1 at a step with kappa > 0, one with kappa < 0 and one with kappa = 0."""
    cases = []
    for (E1, E2, kappa, a2, a2n), values in (((0.7, -0.4, 2.0, 0.3, 0.8), (0.3, -0.8)),
                                             ((1.5, 0.5, -1.0, 0.2, 0.0), (-0.18, 0.22)),
                                             ((-0.6, 0.9, 0.0, 1.0, 0.25), (1.125, -1.125))):
        for y2, value in zip((1, -1), values):
            cases.append((dict(E1=E1, E2=E2, y2=y2, kappa=kappa, a2=a2, a2n=a2n), value))
    assert_values_at(f(), cases, _GAIN_SYMBOLS, "the decrease")


@test("second_order_gain", points=1)
def test_gain_at_the_vertex_is_the_unclipped_bound(f):
    """At a2n = a2 + y2 (E1 - E2)/kappa your decrease must be (E1 - E2)^2/(2 kappa)."""
    expr = read_expr(f(), "the decrease")
    for label in (1, -1):
        at_vertex = expr.subs("y2", label).subs("a2n", parse_expr_safely(f"a2 + ({label})*(E1 - E2)/kappa"))
        ok, msg = compare_expr(at_vertex, parse_expr_safely("(E1 - E2)**2/(2*kappa)"),
                               ["E1", "E2", "kappa", "a2"], positive=["kappa"])
        if not ok:
            raise AssertionError(f"the decrease at the unclipped vertex, y2 = {label:+d}: {msg}")


# --------------------------------------------------------------------------
# a whole solver
# --------------------------------------------------------------------------
def smo_twin(K, y, C, tol=1e-10):
    """(alpha, b, Psi) of linclf's SVC on the Gram matrix K (the trusted twin)."""
    from linclf.svm import SVC

    index = np.arange(len(y), dtype=float)[:, None]

    def kernel(A, B):
        return K[np.ix_(A[:, 0].astype(int), B[:, 0].astype(int))]

    model = SVC(C=C, kernel=kernel, tol=tol).fit(index, y)
    return model.alpha_, float(model.intercept_[0]), float(model.dual_objective_)


def check_solution(got, K, y, C, psi_star, *, rtol=1e-6, kkt_tol=1e-4):
    """alpha feasible, Psi(alpha) = psi_star to rtol (unless psi_star is None: an indefinite
    kernel, where any KKT point will do), and the KKT conditions hold with b."""
    alpha, b = unpack(got, 2, "the result (alpha, b)")
    alpha = as_array(alpha, (len(y),), "alpha")
    b = as_float(b, "b")
    C_max = float(np.max(C))                   # C: one cap for all, or one per multiplier
    assert_close(np.clip(alpha, None, 0.0), np.zeros(len(y)), "the negative part of alpha", atol=1e-9)
    assert_close(np.clip(alpha - C, 0.0, None), np.zeros(len(y)), "alpha above its cap C_i",
                 atol=1e-9 * max(1.0, C_max))
    assert_close(alpha @ y, 0.0, "sum_i alpha_i y_i", atol=1e-8 * max(1.0, C_max))
    v = alpha * y
    if psi_star is not None:
        psi = 0.5 * v @ K @ v - alpha.sum()
        if not abs(psi - psi_star) <= rtol * abs(psi_star):
            fail(f"Psi(alpha) = {psi:.10g} is not the minimum: it is above it by "
                 f"{order_of(psi - psi_star)} (tolerance {rtol:g} relative)" if psi > psi_star else
                 f"Psi(alpha) = {psi:.10g} is below the minimum of the dual, which is impossible "
                 "for a feasible alpha")
    m = y * (K @ v + b)                        # y_i f(x_i)
    at_zero, at_C = alpha <= 1e-9 * C, alpha >= C * (1 - 1e-9)
    violation = np.where(at_zero, np.maximum(0.0, 1 - m),
                         np.where(at_C, np.maximum(0.0, m - 1), np.abs(m - 1)))
    assert_close(violation, np.zeros(len(y)), "the KKT violations with your b", atol=kkt_tol)


X_10 = np.array([[0.5, 1.0], [1.5, 0.5], [2.0, 2.0], [0.0, 2.5], [1.0, -0.5],
                 [-1.0, 0.0], [0.0, -1.0], [-0.5, 1.5], [1.0, 1.0], [-2.0, -1.0]])
Y_10 = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0])


@test("smo_solver", points=2)
def test_smo_linear_kernel(f):
    K = X_10 @ X_10.T
    check_solution(f(K, Y_10, 1.0, 1e-8), K, Y_10, 1.0, -4.8061224489795915)


@test("smo_solver", points=1)
def test_smo_linear_kernel_threshold(f):
    """Two free support vectors (indices 3 and 6) fix b = -3/7."""
    K = X_10 @ X_10.T
    _, b = unpack(f(K, Y_10, 1.0, 1e-8), 2, "the result (alpha, b)")
    assert_close(b, -3 / 7, "b", atol=1e-5)


@test("smo_solver", points=2)
def test_smo_one_cap_per_class(f):
    """C_i = 0.5 for the positives and 2 for the negatives: all five positives end at their cap
    0.5 and one negative at 2 (Psi* agrees with scipy's SLSQP and scikit-learn's SVC with
    sample_weight; a solver that uses one C for all reaches -2.64 or -8.49)."""
    K = X_10 @ X_10.T
    C = np.where(Y_10 > 0, 0.5, 2.0)
    check_solution(f(K, Y_10, C, 1e-8), K, Y_10, C, -4.7295673076923075)


@test("smo_solver", points=2)
def test_smo_gaussian_kernel(f):
    K = np.exp(-0.5 * ((X_10[:, None, :] - X_10[None, :, :]) ** 2).sum(axis=2))
    check_solution(f(K, Y_10, 10.0, 1e-8), K, Y_10, 10.0, -27.01575429322642)
