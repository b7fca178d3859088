"""Exercise set "margin" (chapter 7): functional and geometric margins, the canonical hyperplane,
support vectors, and what the multipliers add up to.

Labels are -1/+1 and f(x) = w @ x + b (appendices/notation.md).  Expected values are
literals computed once from the reference solutions; the variant test checks the
student's own data against the definitions.
"""

import numpy as np

from ..framework import ExerciseSet, fail, as_array, assert_close, assert_raises, test, unpack
from ..imports import OPTIMISERS
from ..quiet import assert_close_quiet, assert_equal_quiet
from ..pointwise import assert_values_at

SET = ExerciseSet("margin", "Maximum-margin classifiers", "07_margin",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "geometric_margin",
    title="The geometric margin of a hyperplane",
    signature="def geometric_margin(X, y, w, b):",
    hidden_tests=1,
    kind="formula",
    doc=r"""
    The geometric margin of (w, b) on the training set:
    gamma = min_i y_i (w @ x_i + b) / ||w||.

    It is negative when some point is on the wrong side.  Vectorise.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}
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
    hidden_tests=1,
    kind="formula",
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
    hidden_tests=1,
    kind="formula",
    doc=r"""
    For the normal direction u (any length, not zero), the margin of that
    direction, the half-gap
    rho_u = (min over positives of u_hat @ x_i - max over negatives of u_hat @ x_i) / 2
    with u_hat = u / ||u||, and the offset b of the line u_hat @ x + b = 0
    that sits in the middle of the gap.  rho_u < 0 when u does not separate.

    Returns
    -------
    (rho_u, b) : float, float
    """,
)

SET.exercise(
    "two_point_svm",
    title="The SVM of two points, symbolically",
    signature="def two_point_svm():",
    hidden_tests=1,
    kind="derivation",
    doc=r"""
    One positive point p = (p1, p2) and one negative point q = (q1, q2).
    Return the maximum-margin hyperplane (w*, b*) in canonical form (the
    closest points have functional margin 1) as sp.Matrix([w1, w2, b]) in
    the symbols p1, p2, q1, q2.
    """,
    stub="""p1, p2, q1, q2 = sp.symbols("p1 p2 q1 q2", real=True)
return None  # replace None by sp.Matrix([w1, w2, b])""",
)

def _soft_margin_solution(rng):
    """A student's own soft-margin SVM: ten points, its multipliers, and one duplicated support vector.

    The multipliers come from linclf.SVC (six decimals); the duplicate of a margin support
    vector gets alpha = 0 (still optimal: it lies on the margin), and, as a solver returns
    them, some zeros and some bounds carry rounding noise below 1e-9.
    """
    from linclf import SVC

    while True:
        n = 5
        C = float(rng.choice([0.5, 1.0, 2.0]))
        X = np.round(np.vstack([rng.normal(0.8, 1.0, (n, 2)), rng.normal(-0.8, 1.0, (n, 2))]), 2)
        y = np.repeat([1.0, -1.0], n)
        order = rng.permutation(2 * n)
        X, y = X[order], y[order]
        alpha = SVC(C=C, kernel="linear", tol=1e-10).fit(X, y).alpha_.copy()
        zero, at_c = alpha <= 1e-6, alpha >= C - 1e-6
        free = np.flatnonzero(~zero & ~at_c)
        unclear = np.any((alpha[free] < 1e-3) | (alpha[free] > C - 1e-3))
        if len(free) >= 2 and at_c.sum() >= 1 and zero.sum() >= 3 and not unclear:
            break
    alpha = np.where(zero, 0.0, np.where(at_c, C, np.round(alpha, 6)))
    j, pos = int(rng.choice(free)), int(rng.integers(0, 2 * n + 1))
    X = np.insert(X, pos, X[j], axis=0)
    y = np.insert(y, pos, y[j])
    alpha = np.insert(alpha, pos, 0.0)
    # solver noise of a few 1e-10 on about half the zeros and half the bounds
    noise = np.array([float(f"{k}e-10") for k in rng.integers(1, 10, len(alpha))])
    pick = rng.random(len(alpha)) < 0.5
    alpha = np.where((alpha == 0) & pick, noise, np.where((alpha == C) & pick, C - noise, alpha))
    return {"X": X, "y": y, "alpha": alpha, "C": C}


SET.exercise(
    "support_vector_indices",
    title="Which points are support vectors? (your own data)",
    signature="def support_vector_indices(X, y, alpha, C, tol=1e-6):",
    kind="formula",   # the definitions are the notation contract's, applied with a tolerance
    variant=_soft_margin_solution,
    hidden_tests=1,
    doc=r"""
    A soft-margin SVM with penalty C was trained on (X, y); alpha holds the
    optimal multipliers as a numerical solver returns them, accurate to
    tol: a multiplier within tol of 0 is 0, one within tol of C is C.
    Return the indices of the support vectors, and among them those of the
    margin (free) support vectors and of the bound support vectors, in
    the sense of the book's notation contract.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}
    alpha : ndarray of shape (N,), 0 <= alpha_i <= C up to tol
    C : float
    tol : float

    Returns
    -------
    (sv, margin_sv, bound_sv) : three int ndarrays of indices, increasing
    """,
)

SET.exercise(
    "scaling_counterexample",
    title="Scaling a feature changes the support vectors: a counterexample",
    signature="def scaling_counterexample():",
    hidden_tests=1,
    kind="concept",
    forbid=OPTIMISERS,   # solve your example's two SVMs by reasoning, not by a solver
    doc=r"""
    Construct a small training set in the plane and a positive scaling of
    its two features, x -> (s1 x1, s2 x2), such that the set of points
    lying on the margin of the hard-margin SVM (y_i f(x_i) = 1) is not the
    same before and after the scaling, and give both SVMs.

    Rules: 3 to 8 points, both labels present, coordinates and s1, s2
    between -100 and 100 (s1, s2 > 0), linearly separable data; and make
    it clear-cut: every point off the margin must have y_i f(x_i) >= 1.001,
    before and after the scaling.

    Returns
    -------
    (X, y, s, w0, b0, w1, b1) : X of shape (N, 2), y of shape (N,) in
        {-1, +1}, s of shape (2,); (w0, b0) the hard-margin SVM of (X, y)
        and (w1, b1) that of the scaled data, w0 and w1 of shape (2,)
    """,
)

SET.exercise(
    "alpha_margin_identity",
    title="What the multipliers add up to: a proof in three steps",
    signature="def alpha_margin_identity():",
    kind="proof",
    hidden_tests=2,
    doc=r"""
    Let (w*, b*, xi*) solve the soft-margin primal
    min 1/2 ||w||^2 + C sum_i xi_i  s.t.  y_i f(x_i) >= 1 - xi_i, xi_i >= 0,
    and alpha* the dual solution.  Using only w* = sum_i alpha_i* y_i x_i,
    sum_i alpha_i* y_i = 0 and the complementary-slackness conditions,
    express, as sympy expressions in the symbols of the stub:

    hard : sum_i alpha_i* for a hard-margin SVM (separable data, no
           slack), in terms of its geometric margin gamma;
    soft : sum_i alpha_i* for the soft margin, in terms of
           w_norm = ||w*||, C and xi_sum = sum_i xi_i*;
    dual_value : the value W(alpha*) of the dual objective at the
           optimum, in terms of w_norm, C and xi_sum.

    Returns
    -------
    (hard, soft, dual_value)
    """,
    stub="""gamma, w_norm, C = sp.symbols("gamma w_norm C", positive=True)
xi_sum = sp.Symbol("xi_sum", nonnegative=True)
return None  # replace None by the tuple (hard, soft, dual_value)""",
)

# six points whose maximum-margin hyperplane is w* = (2/7, 4/7), b* = -3/7 (not the data of
# the duality set's small_dual_alpha, whose optimum is that exercise's answer)
X_M = np.array([[1.0, 2.0], [3.0, 1.0], [2.0, 4.0], [0.0, -1.0], [-2.0, -1.0], [1.0, -2.0]])
Y_M = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
# three features; the closest point is a negative one with functional margin 0.4
X_3 = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [2.0, -1.0, 1.0], [-1.0, 0.0, -2.0], [0.1, 0.2, 0.3]])
Y_3 = np.array([1.0, 1.0, 1.0, -1.0, -1.0])


@test("geometric_margin", points=1)
def test_scaled_optimal_hyperplane(f):
    # (w, b) = 3 (w*, b*): the functional margin is 3, the geometric margin 1/||w*|| = 7/sqrt(20)
    assert_close(f(X_M, Y_M, np.array([6.0 / 7.0, 12.0 / 7.0]), -9.0 / 7.0), 1.565247584249853, "gamma")


@test("geometric_margin", points=1)
def test_misclassified_point_and_three_features(f):
    assert_close(f(X_M, Y_M, np.array([1.0, -1.0]), 0.5), -2.4748737341529163, "gamma")
    assert_close(f(X_3, Y_3, np.array([1.0, 1.0, 1.0]), -1.0), 0.23094010767585027, "gamma")


@test("canonical_hyperplane", points=1)
def test_canonical_two_features(f):
    w_c, b_c = unpack(f(X_M, Y_M, np.array([6.0 / 7.0, 12.0 / 7.0]), -9.0 / 7.0), 2, "the result (w_c, b_c)")
    assert_close(w_c, [2.0 / 7.0, 4.0 / 7.0], "w_c")
    assert_close(b_c, -3.0 / 7.0, "b_c")


@test("canonical_hyperplane", points=1)
def test_canonical_three_features(f):
    w_c, b_c = unpack(f(X_3, Y_3, np.array([1.0, 1.0, 1.0]), -1.0), 2, "the result (w_c, b_c)")
    assert_close(w_c, [2.5, 2.5, 2.5], "w_c")
    assert_close(b_c, -2.5, "b_c")


@test("canonical_hyperplane", points=1)
def test_not_separating_or_on_the_hyperplane_raises(f):
    assert_raises(f, "ValueError", X_M, Y_M, np.array([1.0, -1.0]), 0.5)
    # x_4 = (0, -1) and x_5 = (-2, -1) lie on the line x2 = -1; every other point is on its correct side
    assert_raises(f, "ValueError", X_M, Y_M, np.array([0.0, 1.0]), 1.0)


@test("best_offset", points=1)
def test_optimal_direction_not_unit(f):
    rho, b = unpack(f(X_M, Y_M, np.array([1.0, 2.0])), 2, "the result (rho_u, b)")
    assert_close(rho, 1.5652475842498528, "rho_u")
    assert_close(b, -0.670820393249937, "b")


@test("best_offset", points=1)
def test_reversed_direction(f):
    rho, b = unpack(f(X_M, Y_M, np.array([-1.0, -2.0])), 2, "the result (rho_u, b)")
    assert_close(rho, -3.1304951684997055, "rho_u")
    assert_close(b, 1.341640786499874, "b")


@test("best_offset", points=1)
def test_direction_that_does_not_separate(f):
    rho, b = unpack(f(X_M, Y_M, np.array([1.0, -1.0])), 2, "the result (rho_u, b)")
    assert_close(rho, -1.7677669529663687, "rho_u")
    assert_close(b, -0.35355339059327373, "b")


@test("two_point_svm", points=3)
def test_two_point_hyperplane_at_three_pairs(f):
    assert_values_at(f(), zip([{"p1": 2.0, "p2": 1.0, "q1": 0.0, "q2": -1.0},
                           {"p1": 1.0, "p2": 3.0, "q1": 2.0, "q2": -1.0},
                           {"p1": -0.5, "p2": 0.25, "q1": -2.0, "q2": 0.75}],
                     [[0.5, 0.5, -0.5], [-0.11764705882352941, 0.47058823529411764, -0.29411764705882354],
                      [1.2, -0.4, 1.7]]), what="(w1, w2, b)", matrix=True)


# --------------------------------------------------------------------------
# support vectors
# --------------------------------------------------------------------------
# the source's worked example (support vectors x1, x3) with x1 given twice: the copy lies
# on the margin, but its multiplier is 0, so it is not a support vector
X_DUP = np.array([[3.0, 3.0], [4.0, 3.0], [1.0, 1.0], [3.0, 3.0]])
Y_DUP = np.array([1.0, 1.0, -1.0, 1.0])
ALPHA_DUP = np.array([0.25, 0.0, 0.25, 0.0])
# a soft margin (X_M and two misclassified points, C = 1) with solver noise on a zero and on a bound
X_SOFT = np.vstack([X_M, [[1.0, 0.5], [0.5, 0.0]]])
Y_SOFT = np.append(Y_M, [-1.0, 1.0])
ALPHA_SOFT = np.array([23 / 98, 9 / 49, 0.0, 41 / 98, 4e-12, 0.0, 1.0 - 3e-11, 1.0])


def _indices(got, what):
    arr = as_array(got, None, what)
    if arr.ndim != 1 or np.any(arr != np.round(arr)):
        fail(f"{what} should be a 1-d array of integer indices, got {arr!r}")
    return arr


def check_support_vectors(got, sv, margin_sv, bound_sv):
    parts = unpack(got, 3, "the result (sv, margin_sv, bound_sv)")
    for part, expected, what in zip(parts, (sv, margin_sv, bound_sv), ("sv", "margin_sv", "bound_sv")):
        arr = _indices(part, what)
        # counts of wrong indices, never the expected ones: the variant test uses the student's data
        assert_equal_quiet(arr.astype(int), np.asarray(expected, dtype=int), what)


@test("support_vector_indices", points=1)
def test_duplicated_support_vector(f):
    check_support_vectors(f(X_DUP, Y_DUP, ALPHA_DUP, 10.0), [0, 2], [0, 2], [])


@test("support_vector_indices", points=1)
def test_solver_noise_and_bounds(f):
    check_support_vectors(f(X_SOFT, Y_SOFT, ALPHA_SOFT, 1.0), [0, 1, 3, 6, 7], [0, 1, 3], [6, 7])


@test("support_vector_indices", points=1, variant=True)
def test_support_vectors_of_your_own_data(f, data):
    """Checked against the contract's definitions, on your multipliers."""
    alpha, C, tol = data["alpha"], data["C"], 1e-6
    sv = np.flatnonzero(alpha > tol)
    check_support_vectors(f(data["X"], data["y"], alpha, C), sv,
                          sv[alpha[sv] < C - tol], sv[alpha[sv] >= C - tol])


# --------------------------------------------------------------------------
# what the multipliers add up to
# --------------------------------------------------------------------------
_IDENTITY_SYMBOLS = ["gamma", "w_norm", "C", "xi_sum"]


def _identity(f):
    return unpack(f(), 3, "the result (hard, soft, dual_value)")


# --------------------------------------------------------------------------
# the scaling counterexample
# --------------------------------------------------------------------------
def _hard_margin_yf(X, y):
    """y_i f(x_i) of the hard-margin SVM, by linclf's SVC (the trusted twin); None if the data are
    not separable."""
    from linclf.svm import SVC

    try:
        model = SVC(C=np.inf, kernel="linear", tol=1e-10).fit(X, y)
    except ValueError:
        return None
    yf = y * (X @ model.coef_[0] + model.intercept_[0])
    return (yf, model.coef_[0], model.intercept_[0]) if yf.min() > 1 - 1e-6 else None


def _counterexample(f):
    X, y, s, *_ = unpack(f(), 7, "the result (X, y, s, w0, b0, w1, b1)")
    X = as_array(X, None, "X")
    if X.ndim != 2 or X.shape[1] != 2 or not 3 <= len(X) <= 8:
        fail(f"X should have shape (N, 2) with 3 <= N <= 8, got shape {X.shape}")
    y = as_array(y, (len(X),), "y")
    s = as_array(s, (2,), "s")
    if not np.all(np.isin(y, [-1.0, 1.0])) or len(np.unique(y)) != 2:
        fail("y should hold both labels -1 and +1, and nothing else")
    if np.abs(X).max() > 100 or s.min() <= 0 or s.max() > 100:
        fail("the coordinates must lie in [-100, 100] and s1, s2 in (0, 100]")
    return X, y, s


def _margin_set(yf, what):
    on = np.abs(yf - 1) <= 1e-6
    if np.any(~on & (yf < 1.001)):
        fail(f"{what}: some point has 1 < y f(x) < 1.001, too close to the margin to call")
    return set(np.flatnonzero(on).tolist())


@test("scaling_counterexample", points=1)
def test_counterexample_is_separable(f):
    X, y, s = _counterexample(f)
    for data, what in ((X, "the data"), (X * s, "the scaled data")):
        if _hard_margin_yf(data, y) is None:
            fail(f"{what} are not linearly separable: the hard-margin SVM does not exist")


def _both_svms(X, y, s):
    before, after = _hard_margin_yf(X, y), _hard_margin_yf(X * s, y)
    if before is None or after is None:
        fail("the data (or the scaled data) are not linearly separable")
    return before, after


@test("scaling_counterexample", points=2)
def test_counterexample_changes_the_margin_points(f):
    X, y, s = _counterexample(f)
    before, after = _both_svms(X, y, s)
    on_before = _margin_set(before[0], "before the scaling")
    on_after = _margin_set(after[0], "after the scaling")
    if on_before == on_after:
        fail(f"the same points lie on the margin before and after the scaling: {sorted(on_before)}")


@test("scaling_counterexample", points=2)
def test_counterexample_gives_both_svms(f):
    got = unpack(f(), 7, "the result (X, y, s, w0, b0, w1, b1)")
    X, y, s = _counterexample(f)
    before, after = _both_svms(X, y, s)
    # the SVMs of the student's own example: checked quietly, never printed
    assert_close_quiet(as_array(got[3], (2,), "w0"), before[1], "w0 (before the scaling)", rtol=1e-6, atol=1e-8)
    assert_close_quiet(got[4], before[2], "b0 (before the scaling)", rtol=1e-6, atol=1e-8)
    assert_close_quiet(as_array(got[5], (2,), "w1"), after[1], "w1 (after the scaling)", rtol=1e-6, atol=1e-8)
    assert_close_quiet(got[6], after[2], "b1 (after the scaling)", rtol=1e-6, atol=1e-8)


@test("alpha_margin_identity", points=1)
def test_hard_margin_sum(f):
    hard, _, _ = _identity(f)
    assert_values_at(hard, zip([{"gamma": g, "w_norm": 1.0, "C": 1.0, "xi_sum": 0.0} for g in (0.5, 2.0, 0.8)],
                     [4.0, 0.25, 1.5625]), what="hard")


@test("alpha_margin_identity", points=2)
def test_soft_margin_sum(f):
    _, soft, _ = _identity(f)
    points = [{"gamma": 1.0, "w_norm": 1.5, "C": 2.0, "xi_sum": 0.25},
              {"gamma": 1.0, "w_norm": 0.5, "C": 10.0, "xi_sum": 0.1},
              {"gamma": 1.0, "w_norm": 2.0, "C": 0.5, "xi_sum": 0.0}]
    assert_values_at(soft, zip(points,
                     [2.75, 1.25, 4.0]), what="soft")
