"""Exercise set "duality" (chapter 8): the SVM dual objective, back to the primal, every optimal
b when no support vector is free, a small dual, the dual of the L2 soft margin with a penalised
bias, and the KKT conditions point by point.

Labels are -1/+1.  The dual maximises
W(alpha) = sum_i alpha_i - 1/2 sum_ij alpha_i alpha_j y_i y_j x_i @ x_j
subject to 0 <= alpha_i <= C and sum_i alpha_i y_i = 0 (C = inf: hard margin).
Expected values are literals computed once from the reference solutions; the variant
test of ``kkt_violations`` takes its expected indices from ``linclf.svm.SVC.kkt_violations``
(the trusted twin).
"""

import numpy as np

from ..framework import (ExerciseSet, as_array, as_float, assert_close, assert_equal, assert_raises, fail,
                         read_expr, test, unpack)
from ..quiet import assert_equal_quiet
from ..pointwise import assert_values_at

SET = ExerciseSet("duality", "Lagrange duality and the SVM dual", "08_duality",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "dual_objective",
    title="The dual objective",
    signature="def dual_objective(alpha, X, y):",
    hidden_tests=1,
    kind="formula",
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
    hidden_tests=1,
    kind="formula",
    doc=r"""
    Recover the primal solution (w, b) from an optimal alpha: w from
    stationarity of the Lagrangian, b from complementary slackness at the
    free support vectors (those with 1e-8 < alpha_j < C - 1e-8), averaged
    over all of them.  Raise ValueError when there is no free support vector.

    Returns
    -------
    (w, b) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "bias_interval",
    title="Every optimal b when no support vector is free",
    signature="def bias_interval(alpha, X, y, C):",
    kind="derivation",   # the chapter says "an interval"; which points bound it, and how, is yours
    hidden_tests=2,
    doc=r"""
    alpha is an optimal solution of the soft-margin dual (linear kernel,
    penalty C), w = sum_i alpha_i y_i x_i.  Return the interval [b_lo, b_hi]
    of all intercepts b for which (w, b) is optimal for the primal.
    Classify each multiplier as in ``primal_from_dual``: alpha_i <= 1e-8 is
    0, alpha_i >= C - 1e-8 is C, the others are free.  When some support
    vector is free, b is unique: return (b, b) with b averaged over the free
    ones as in ``primal_from_dual``.  A side that nothing bounds is
    -inf or inf.

    Returns
    -------
    (b_lo, b_hi) : float, float
    """,
)

SET.exercise(
    "small_dual_objective",
    title="The dual of a small problem, symbolically",
    signature="def small_dual_objective():",
    hidden_tests=1,
    kind="formula",
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
    hidden_tests=1,
    kind="derivation",  # an exact solution of a small dual the chapter does not solve
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

SET.exercise(
    "l2svm_dual",
    title="The dual of the L2 soft margin with a penalised bias",
    signature="def l2svm_dual(X, y):",
    kind="derivation",
    hidden_tests=2,
    doc=r"""
    This soft margin squares the slacks and penalises the bias too:

        minimise  1/2 ||w||^2 + 1/2 b^2 + C/2 sum_i xi_i^2
        subject to  y_i (w @ x_i + b) >= 1 - xi_i  for every i

    (note the C/2, and no constraint xi_i >= 0).  Derive its Lagrange dual
    and return the dual objective, the function of alpha that the dual
    maximises, for the training data (X, y), as a sympy expression in
    alpha1, ..., alphaN and C; leave the constraints out.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}
    """,
    stub="""alpha = sp.symbols(f"alpha1:{len(y) + 1}", real=True)   # alpha[0] is alpha1
C = sp.Symbol("C", positive=True)
return None  # replace None by your expression""",
)


def _kkt_data(rng, n=10):
    """A student's own (X, y, alpha, b, C, tol): some points break the KKT conditions, none is
    within 0.01 of the tolerance (so rounding cannot decide), every kind of point occurs."""
    while True:
        y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
        X = np.round(rng.normal(size=(n, 2)) + 0.8 * y[:, None] * np.array([1.0, 0.5]), 2)
        C = float(rng.choice([0.5, 1.0, 2.0]))
        kind = rng.choice(3, size=n, p=[0.4, 0.3, 0.3])
        free = np.round(rng.uniform(0.05, 0.95, size=n) * C, 2)
        alpha = np.where(kind == 0, 0.0, np.where(kind == 1, C, free))
        if rng.uniform() < 0.5:  # one multiplier just outside the box
            alpha[rng.integers(n)] = float(rng.choice([-0.1, C + 0.1]))
        b = float(np.round(rng.uniform(-0.5, 0.5), 2))
        tol = 0.05
        viol, box = _kkt_twin(X, y, alpha, b, C, tol)
        bad = (viol > tol) | (box > tol)
        clear = np.all(np.abs(viol - tol) > 0.01) and np.all(np.abs(box - tol) > 0.01)
        if clear and 3 <= bad.sum() <= n - 3 and (alpha == 0).any() and (alpha == C).any() \
                and ((alpha > 0) & (alpha < C)).any():
            return {"X": X, "y": y, "alpha": alpha, "b": b, "C": C, "tol": tol}


def _kkt_twin(X, y, alpha, b, C, tol):
    """Per-point violations of the KKT conditions by linclf's ``kkt_report`` (the twin, the
    function behind ``SVC.kkt_violations``) for (alpha, b) on (X, y); and the box violations."""
    from linclf.svm import kkt_report

    alpha, y = np.asarray(alpha, float), np.asarray(y, float)
    margin = y * (X @ ((alpha * y) @ X) + b)
    box = np.maximum(0.0, np.maximum(-alpha, alpha - C))
    return kkt_report(margin, alpha, y, C, tol).violation, box


SET.exercise(
    "kkt_violations",
    title="Which points break the KKT conditions? (your own data)",
    signature="def kkt_violations(X, y, alpha, b, C, tol):",
    kind="formula",   # the three cases and the box are listed on the page
    variant=_kkt_data,
    hidden_tests=2,
    doc=r"""
    A candidate solution (alpha, b) of the soft-margin dual with the linear
    kernel, and f(x) = w @ x + b with the w that alpha gives by stationarity.
    Return the indices of the training points that violate the chapter's
    soft-margin KKT conditions for their multiplier by more than tol: the
    condition on y_i f(x_i) of the case alpha_i falls in (decided exactly:
    alpha_i <= 0, 0 < alpha_i < C, alpha_i >= C), or the box 0 <= alpha_i <= C.
    No loop over the points is needed.

    Returns
    -------
    idx : ndarray of int, increasing
    """,
)

# the five points of small_dual_alpha; its answer is checked publicly by the KKT conditions
# only (no test here contains the optimum, w* or b*), exactly in the hidden tests
X_M = np.array([[2.0, 3.0], [3.0, 0.0], [0.0, 0.0], [4.0, 4.0], [-1.0, 2.0]])
Y_M = np.array([1.0, 1.0, -1.0, 1.0, -1.0])

# the data of exercises 1 and 2: six points whose hard-margin optimum is
# alpha = (8/49, 2/49, 0, 10/49, 0, 0), w* = (2/7, 4/7), b* = -3/7 (three support vectors)
X_P = np.array([[1.0, 2.0], [3.0, 1.0], [2.0, 4.0], [0.0, -1.0], [-2.0, -1.0], [1.0, -2.0]])
Y_P = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
ALPHA_P = np.array([8 / 49, 2 / 49, 0.0, 10 / 49, 0.0, 0.0])
# X_P plus a misclassified negative (1, 0.5) and a misclassified positive (0.5, 0); for C = 1
# the exact soft-margin solution has three free and two bounded support vectors, the same (w, b)
X_S = np.vstack([X_P, [[1.0, 0.5], [0.5, 0.0]]])
Y_S = np.append(Y_P, [-1.0, 1.0])
ALPHA_S = np.array([23 / 98, 9 / 49, 0.0, 41 / 98, 0.0, 0.0, 1.0, 1.0])


@test("dual_objective", points=1)
def test_objective_at_the_optimum(f):
    # at the optimum W = |w*|^2 / 2 = 10/49
    assert_close(f(ALPHA_P, X_P, Y_P), 10 / 49, "W(alpha)")


@test("dual_objective", points=1)
def test_objective_elsewhere(f):
    assert_close(f(np.array([0.1, 0.3, 0.2, 0.05, 0.15, 0.4]), X_P, Y_P), -2.29, "W(alpha)")


@test("primal_from_dual", points=1)
def test_hard_margin(f):
    w, b = unpack(f(ALPHA_P, X_P, Y_P), 2, "the result (w, b)")
    assert_close(w, [2 / 7, 4 / 7], "w")
    assert_close(b, -3 / 7, "b")


@test("primal_from_dual", points=2)
def test_soft_margin_with_bounded_vectors(f):
    w, b = unpack(f(ALPHA_S, X_S, Y_S, 1.0), 2, "the result (w, b)")
    assert_close(w, [2 / 7, 4 / 7], "w")
    assert_close(b, -3 / 7, "b (from the free support vectors only)")


@test("primal_from_dual", points=1)
def test_no_free_vector_raises(f):
    assert_raises(f, "ValueError", np.array([0.0, 1.0, 1.0, 0.0, 1.0, 1.0]), X_P, Y_P, 1.0)


# eight points, a point of each class deep on the other side: for C = 1/5 every support vector
# is bound (w = (0.8, 0.2)), for C = 1/10 two are free (alpha = C/10), all checked exactly
X_B = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [2.0, 1.0], [3.0, 3.0], [1.0, 2.0], [2.0, 0.0],
                [-1.0, 1.0]])
Y_B = np.array([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0, -1.0])


def _interval(got):
    lo, hi = unpack(got, 2, "the result (b_lo, b_hi)")
    return lo, hi


def _check_interval(got, want, case):
    """The interval is the answer: a failure says which end is wrong and how, never the ends."""
    lo, hi = _interval(got)
    for value, right, end in ((lo, want[0], "b_lo"), (hi, want[1], "b_hi")):
        value = as_float(value, end)
        if not np.isfinite(value):
            fail(f"{end} ({case}) is {value}, but a point bounds that side")
        if abs(value - right) > 1e-9 * (1 + abs(right)):
            side = "below" if end == "b_lo" else "above"
            fail(f"{end} ({case}) is wrong: check which points bound b from {side} (the case of"
                 " each multiplier and the sign of its label decide it) and how each bound follows"
                 " from its margin condition")


@test("bias_interval", points=2)
def test_bias_interval_without_a_free_support_vector(f):
    C = 0.2
    alpha = C * np.array([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    _check_interval(f(alpha, X_B, Y_B, C), (-1.0, -0.8), "C = 0.2, no free support vector")


@test("bias_interval", points=1)
def test_bias_interval_with_free_support_vectors(f):
    C = 0.1
    alpha = C * np.array([1.0, 1.0, 1.0, 1.0, 0.1, 1.0, 1.0, 0.1])
    _check_interval(f(alpha, X_B, Y_B, C), (-0.68, -0.68), "C = 0.1, two free support vectors")


@test("small_dual_objective", points=2)
def test_small_dual_at_three_points(f):
    assert_values_at(f(), zip([{"alpha1": 0.5, "alpha2": 0.25, "alpha3": 0.75},
                           {"alpha1": 1.0, "alpha2": -0.5, "alpha3": 2.0},
                           {"alpha1": 0.125, "alpha2": 0.375, "alpha3": 0.5}],
                     [-0.53125, -1.5, 0.0234375]), what="W(alpha1, alpha2, alpha3)")


@test("small_dual_alpha", points=1)
def test_alpha_is_feasible(f):
    alpha = as_array(f(), (5,), "alpha")
    assert_close(alpha @ Y_M, 0.0, "sum_i alpha_i y_i", atol=1e-9)
    assert_close(np.minimum(alpha, 0.0), np.zeros(5), "the negative part of alpha", atol=1e-12)


@test("small_dual_alpha", points=2)
def test_alpha_satisfies_the_kkt_conditions(f):
    """A feasible alpha is optimal iff (w, b) from it satisfy the KKT conditions: every point
    on or outside its margin, every point with alpha_i > 0 exactly on it (the dual is convex).
    The messages name the condition and the point, never the optimum."""
    alpha = as_array(f(), (5,), "alpha")
    if alpha.min() < -1e-9 or abs(alpha @ Y_M) > 1e-9:
        fail("alpha is not feasible (see the other test)")
    sv = np.flatnonzero(alpha > 1e-9)
    if not (Y_M[sv] > 0).any() or not (Y_M[sv] < 0).any():
        fail("alpha has no support vector of some class, so the margin conditions cannot hold")
    w = (alpha * Y_M) @ X_M
    b_each = Y_M[sv] - X_M[sv] @ w              # the b that puts each support vector on its margin
    if np.ptp(b_each) > 1e-7:
        fail("the points with alpha_i > 0 do not all lie on their margins for one b:"
             " complementary slackness fails, so alpha is not optimal")
    margins = Y_M * (X_M @ w + b_each.mean())
    bad = np.flatnonzero(margins < 1 - 1e-7)
    if bad.size:
        fail(f"with w = sum_i alpha_i y_i x_i and b from the support vectors, point x{bad[0] + 1}"
             " violates its margin constraint y f(x) >= 1: alpha is not optimal")


# --------------------------------------------------------------------------
# the L2 soft margin
# --------------------------------------------------------------------------
def _value_at(expr, alpha, C, what):
    names = {f"alpha{i + 1}": float(a) for i, a in enumerate(alpha)}
    names["C"] = float(C)
    extra = sorted(s.name for s in expr.free_symbols if s.name not in names)
    if extra:
        raise AssertionError(f"{what} uses unknown symbols {extra}")
    return float(expr.xreplace({s: names[s.name] for s in expr.free_symbols}).evalf(30))


X_3 = np.array([[1.0, 2.0], [2.0, 0.0], [-1.0, 0.0]])
Y_3 = np.array([1.0, 1.0, -1.0])
# six points no line separates; for C = 2 the primal optimum (minimised directly over (w, b)
# with scipy) is P* = 9050/1683, attained by the dual at ALPHA_L2 (every alpha_i > 0, so the
# dual optimum solves (Q + y y^T + I/C) alpha = 1 exactly)
X_6 = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [1.0, -0.5], [0.5, 0.5], [1.5, 1.0]])
Y_6 = np.array([-1.0, 1.0, 1.0, -1.0, 1.0, -1.0])
ALPHA_L2 = np.array([1.3155080213903743, 1.7052881758764111, 1.4390968508615567, 1.4272133095662507,
                     2.061794414735591, 2.805704099821747])
P_L2 = 9050 / 1683
ALPHA_ELSEWHERE = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.0])
W_ELSEWHERE = -0.75                    # exact: (Q + y y^T + I/C) has binary-fraction entries


@test("l2svm_dual", points=2)
def test_l2_dual_three_points(f):
    assert_values_at(f(X_3, Y_3), zip([{"alpha1": 0.5, "alpha2": 0.25, "alpha3": 0.75, "C": 2.0},
                                   {"alpha1": 1.0, "alpha2": 0.5, "alpha3": 2.0, "C": 0.5},
                                   {"alpha1": 0.125, "alpha2": 0.375, "alpha3": 0.5, "C": 4.0}],
                     [-0.75, -11.875, -0.02734375]), what="the dual objective")


@test("l2svm_dual", points=2)
def test_l2_strong_duality(f):
    """At the dual optimum the dual objective equals the primal optimum; below it elsewhere."""
    expr = read_expr(f(X_6, Y_6), "the dual objective")
    got = _value_at(expr, ALPHA_L2, 2.0, "the dual objective")
    assert_close(got, P_L2, "the dual objective at the dual optimum, C = 2 (must equal the primal "
                            "optimum P* by strong duality)", rtol=1e-9)
    got = _value_at(expr, ALPHA_ELSEWHERE, 2.0, "the dual objective")
    assert_close(got, W_ELSEWHERE, "the dual objective at alpha = (1, 2, 1, 1, 1, 1), C = 2 (a feasible"
                                   " point, so below P*)", rtol=1e-9)


# --------------------------------------------------------------------------
# KKT conditions point by point
# --------------------------------------------------------------------------
# exact binary fractions: w = (0.875, 0.375), b = 0.125, C = 1; points 8 and 9 are one point
# with both labels and alpha = C (x8 exactly on its margin), 12 and 13 another one
X_KKT = np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 1.0], [0.5, 0.0], [0.0, 1.0], [-2.0, 0.5],
                  [1.5, -1.0], [-0.5, 0.5], [-0.5, 3.5], [-0.5, 3.5], [-1.5, 0.5], [0.5, 0.5],
                  [2.0, -1.0], [2.0, -1.0]])
Y_KKT = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0])
ALPHA_KKT = np.array([0.5, 0.25, 0.0, 1.0, 1.0, 0.0, 0.0, 1.25, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0])


@test("kkt_violations", points=1)
def test_kkt_every_case(f):
    idx = as_array(f(X_KKT, Y_KKT, ALPHA_KKT, 0.125, 1.0, 1e-6), None, "idx")
    assert_equal(idx, [1, 7, 11, 12], "the violating indices")


@test("kkt_violations", points=1)
def test_kkt_a_loose_tolerance(f):
    idx = as_array(f(X_KKT, Y_KKT, ALPHA_KKT, 0.125, 1.0, 0.3), None, "idx")
    assert_equal(idx, [12], "the violating indices (tol = 0.3)")


@test("kkt_violations", points=1, variant=True)
def test_kkt_on_your_own_data(f, data):
    """Expected indices from linclf's SVC.kkt_violations (the twin) and the box."""
    viol, box = _kkt_twin(data["X"], data["y"], data["alpha"], data["b"], data["C"], data["tol"])
    expected = np.flatnonzero((viol > data["tol"]) | (box > data["tol"]))
    idx = as_array(f(data["X"], data["y"], data["alpha"], data["b"], data["C"], data["tol"]), None, "idx")
    assert_equal_quiet(idx, expected, "the violating indices on your data")
