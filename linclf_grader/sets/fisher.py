"""Exercise set "fisher" (chapter 2): scatter matrices, Fisher's direction and threshold,
the Bayes rule it estimates, and a proof of its optimality by whitening.

Labels are -1/+1; m+ and m- are the class means.  Expected values are literals
computed once from the reference solutions, except in the variant test, where
they come from ``linclf.FisherLDA(threshold="bayes")``, the trusted twin (same
maximum-likelihood estimate S_w / N of the shared covariance).
"""

import numpy as np

from ..framework import (ExerciseSet, as_float, assert_close, assert_direction, read_expr, test,
                         unpack)
from ..quiet import assert_close_quiet

SET = ExerciseSet("fisher", "Fisher's linear discriminant", "02_fisher",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "within_class_scatter",
    kind="formula",
    hidden_tests=1,
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
    kind="formula",
    hidden_tests=1,
    title="Fisher's direction",
    signature="def fisher_direction(X, y):",
    doc=r"""
    The direction w maximising Fisher's criterion, w proportional to
    S_w^{-1} (m_+ - m_-), oriented so that the class +1 projects higher.

    Any positive multiple is accepted (the length does not matter).  Solve a
    linear system rather than inverting S_w.  If S_w is singular (a feature
    repeated, a constant feature, fewer samples than features), the
    direction is not determined: raise ValueError.

    Returns
    -------
    w : ndarray of shape (d,)
    """,
)

SET.exercise(
    "fisher_criterion",
    kind="formula",
    hidden_tests=1,
    title="Fisher's criterion",
    signature="def fisher_criterion(w, X, y):",
    doc=r"""
    J_F(w) = (w^T (m_+ - m_-))^2 / (w^T S_w w), the squared distance of the
    projected means over the total projected within-class scatter.

    Returns
    -------
    J_F : float
    """,
)

SET.exercise(
    "midpoint_bias",
    kind="formula",
    hidden_tests=1,
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
    "mean_difference_efficiency",
    kind="derivation",
    hidden_tests=1,
    title="How much does ignoring S_w cost?",
    signature="def mean_difference_efficiency():",
    doc=r"""
    The efficiency rho = J_F(d) / max_w J_F(w) of the mean difference
    d = m_+ - m_- = (d1, d2) as a direction, for S_w = diag(s1, s2)
    (s1, s2 > 0), and its smallest value over all d != 0.

    Returns
    -------
    (rho, worst) : rho a sympy expression in s1, s2, d1, d2;
                   worst a sympy expression in s1, s2
    """,
    stub="""s1, s2 = sp.symbols("s1 s2", positive=True)
d1, d2 = sp.symbols("d1 d2", real=True)
return None  # replace None by the tuple (rho, worst)""",
)


def _gaussian_pair(rng):
    """Two Gaussian classes with one shared covariance, two decimals, unequal sizes, a prior."""
    while True:
        n_pos, n_neg = rng.integers(5, 10, size=2)
        if n_pos == n_neg:      # the flawed code of the exercise is right for equal sizes
            continue
        L = np.array([[1.0, 0.0], [rng.uniform(-0.8, 0.8), 1.0]]) * rng.uniform(0.5, 1.2, 2)
        shift = rng.normal(size=2)
        shift *= rng.uniform(1.5, 3.0) / np.linalg.norm(shift)
        X = np.round(np.vstack([rng.normal(size=(n_pos, 2)) @ L.T + shift,
                                rng.normal(size=(n_neg, 2)) @ L.T]), 2)
        y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
        p_plus = float(np.round(rng.choice([rng.uniform(0.15, 0.4), rng.uniform(0.6, 0.85)]), 2))
        D = [X[y == k] - X[y == k].mean(axis=0) for k in (1, -1)]
        S_w = D[0].T @ D[0] + D[1].T @ D[1]
        if np.linalg.cond(S_w) < 50:
            return {"X": X, "y": y, "p_plus": p_plus}


SET.exercise(
    "bayes_rule_shared_covariance",
    kind="find-the-error",
    variant=_gaussian_pair,
    hidden_tests=1,
    title="Find the error: the Bayes rule estimated from data (your own data)",
    signature="def bayes_rule_shared_covariance(X, y, p_plus):",
    doc=r"""
    The plug-in Bayes rule for two Gaussian classes with one shared
    covariance, all parameters estimated by maximum likelihood, with the
    given prior P(+1) = p_plus (and P(-1) = 1 - p_plus).

    The code below is meant to return (w, b) such that w @ x + b is the
    estimated log ratio ln[p(x | +1) P(+1) / (p(x | -1) P(-1))], decide +1
    where it is positive.  It contains one error: on some data sets its
    rule is exactly right, on others it is not.  Find the error, and return
    the corrected (w, b):

        X_p, X_n = X[y == 1], X[y == -1]
        m_p, m_n = X_p.mean(axis=0), X_n.mean(axis=0)
        # the shared covariance, estimated by maximum likelihood from
        # the two class covariances
        Sigma = (np.cov(X_p.T, bias=True) + np.cov(X_n.T, bias=True)) / 2
        w = np.linalg.solve(Sigma, m_p - m_n)
        b = -(m_p + m_n) @ w / 2 + np.log(p_plus / (1 - p_plus))

    Returns
    -------
    (w, b) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "whitening_proof",
    kind="proof",
    hidden_tests=2,
    title="Fisher's bound by whitening: a proof in four steps",
    signature="def whitening_proof():",
    doc=r"""
    Prove J_F(w) <= d^T S_w^{-1} d by whitening, for a 2 x 2 scatter
    S_w = [[s1, r], [r, s2]] (positive definite), d = m_+ - m_- = (d1, d2)
    and any w = (w1, w2) != 0.

    Let L be the lower-triangular Cholesky factor of S_w (S_w = L L^T, with
    a positive diagonal), u = L^T w and v = L^{-1} d, so that
    J_F(w) = (u^T v)**2 / (u^T u).  Return the four steps of the proof as
    sympy objects in s1, s2, r, d1, d2, w1, w2:

    u, v  : the two 2 x 1 Matrices;
    bound : v^T v as a scalar expression in s1, s2, r, d1, d2 (the bound);
    cross : a scalar expression whose square is the Cauchy-Schwarz gap
            (u^T u)(v^T v) - (u^T v)**2 (so the gap is >= 0, and zero
            exactly where cross = 0).

    Returns
    -------
    (u, v, bound, cross)
    """,
    stub="""s1, s2 = sp.symbols("s1 s2", positive=True)
r, d1, d2, w1, w2 = sp.symbols("r d1 d2 w1 w2", real=True)
S_w = sp.Matrix([[s1, r], [r, s2]])
d = sp.Matrix([d1, d2])
w = sp.Matrix([w1, w2])
return None  # replace None by the tuple (u, v, bound, cross)""",
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
    assert_close(f(np.array([1.0, -1.0]), X_2D, Y_2D), 7.455882352941177, "J_F(w)")


@test("fisher_criterion", points=1)
def test_criterion_is_scale_free(f):
    value = as_float(f(np.array([-3.0, 3.0]), X_2D, Y_2D), "J_F(w)")
    assert_close(value, 7.455882352941177, "J_F(w) for w = (-3, 3)")


@test("midpoint_bias", points=1)
def test_bias_unequal_class_sizes(f):
    assert_close(f(np.array([1.0, -1.0]), X_2D, Y_2D), -2.0625, "b")


@test("midpoint_bias", points=1)
def test_bias_three_features(f):
    assert_close(f(np.array([0.5, 1.0, -2.0]), X_3D, Y_3D), 0.375, "b")


def _at(got, point, what, *, matrix=False):
    """A returned sympy answer at numbers: a float, or a flat float array for a Matrix."""
    import sympy as sp

    value = read_expr(got, what, matrix=matrix).subs({sp.Symbol(k): v for k, v in point.items()}).evalf()
    try:
        out = np.array(value.tolist() if matrix else complex(value), dtype=complex).ravel()
    except (TypeError, ValueError):
        raise AssertionError(f"{what} is not a number at {point}") from None
    if np.any(np.abs(out.imag) > 1e-12):
        raise AssertionError(f"{what} is not real at {point}")
    return out.real if matrix else float(out.real[0])


# The public tests of the derivation and the proof check values at numbers, computed here from
# the definitions (never the expressions, which reading this file would give away); the hidden
# tests compare the whole expressions symbolically.
@test("mean_difference_efficiency", points=1)
def test_efficiency_at_numbers(f):
    """rho = J_F(d) / (d^T S_w^-1 d), from its definition, at three numeric points."""
    rho, _ = unpack(f(), 2, "the result (rho, worst)")
    for s1, s2, d1, d2 in ((1.0, 4.0, 1.0, 1.0), (2.5, 0.5, -1.0, 3.0), (3.0, 3.0, 2.0, -0.5)):
        S, d = np.diag([s1, s2]), np.array([d1, d2])
        expected = (d @ d) ** 2 / (d @ S @ d) / (d @ np.linalg.solve(S, d))
        point = {"s1": s1, "s2": s2, "d1": d1, "d2": d2}
        assert_close(_at(rho, point, "rho"), expected, f"rho at {point}", quiet=True)


@test("mean_difference_efficiency", points=1)
def test_worst_case_bounds_rho(f):
    """worst <= rho for every direction d, with equality for some d: checked on 3601 directions."""
    _, worst = unpack(f(), 2, "the result (rho, worst)")
    angles = np.linspace(0, np.pi, 3601)
    for s1, s2 in ((1.0, 4.0), (0.3, 2.0)):
        D = np.column_stack([np.cos(angles), np.sin(angles)])
        rho = (D**2).sum(axis=1) ** 2 / ((D**2) @ [s1, s2]) / ((D**2) @ [1 / s1, 1 / s2])
        assert_close(_at(worst, {"s1": s1, "s2": s2}, "worst"), rho.min(),
                     f"the worst case at s1 = {s1:g}, s2 = {s2:g}", rtol=1e-6, quiet=True)


@test("bayes_rule_shared_covariance", points=1)
def test_bayes_rule_two_features(f):
    w, b = unpack(f(X_2D, Y_2D, 0.25), 2, "the result (w, b)")
    assert_close(w, [-10.096153846153847, 12.923076923076923], "w")
    assert_close(b, 15.661003095947281, "b")


@test("bayes_rule_shared_covariance", points=1)
def test_bayes_rule_three_features(f):
    w, b = unpack(f(X_3D, Y_3D, 0.7), 2, "the result (w, b)")
    assert_close(w, [-14.777448071216615, -7.810089020771512, -9.16320474777448], "w")
    assert_close(b, 63.034241480565235, "b")


@test("bayes_rule_shared_covariance", points=2, variant=True)
def test_bayes_rule_on_your_own_data(f, data):
    """Expected: linclf's FisherLDA with the Bayes threshold, which uses S_w / N; its
    (coef_, intercept_) is the log ratio divided by N."""
    from linclf.fisher import FisherLDA

    X, y, p_plus = data["X"], data["y"], data["p_plus"]
    model = FisherLDA(threshold="bayes", priors=[1 - p_plus, p_plus]).fit(X, y)
    w, b = unpack(f(X, y, p_plus), 2, "the result (w, b)")
    assert_close_quiet(w, len(X) * model.coef_[0], "w on your data")
    assert_close_quiet(b, len(X) * model.intercept_[0], "b on your data")


_PROOF_SYMBOLS = ["s1", "s2", "r", "d1", "d2", "w1", "w2"]
# (S_w, d, w) at numbers: a positive and a negative correlation r
_PROOF_POINTS = ((4.0, 3.0, -1.5, 1.0, -2.0, 0.5, 2.0), (2.0, 5.0, 1.2, -0.5, 1.5, -3.0, 1.0),
                 (1.0, 1.0, 0.6, 2.0, 1.0, 1.0, -1.0))


def _proof_parts(f):
    return unpack(f(), 4, "the result (u, v, bound, cross)")


def _numbers(values):
    s1, s2, r, d1, d2, w1, w2 = values
    S, d, w = np.array([[s1, r], [r, s2]]), np.array([d1, d2]), np.array([w1, w2])
    return dict(zip(_PROOF_SYMBOLS, values)), S, d, w


@test("whitening_proof", points=1)
def test_whitened_vectors(f):
    """u = L^T w and v = L^-1 d at numbers, L from numpy's Cholesky factorisation."""
    u, v, _, _ = _proof_parts(f)
    for values in _PROOF_POINTS:
        point, S, d, w = _numbers(values)
        L = np.linalg.cholesky(S)
        assert_close(_at(u, point, "u", matrix=True), L.T @ w, f"u at {point}", quiet=True)
        assert_close(_at(v, point, "v", matrix=True), np.linalg.solve(L, d), f"v at {point}", quiet=True)


@test("whitening_proof", points=1)
def test_the_bound(f):
    _, _, bound, _ = _proof_parts(f)
    for values in _PROOF_POINTS:
        point, S, d, _ = _numbers(values)
        assert_close(_at(bound, point, "bound"), d @ np.linalg.solve(S, d), f"bound at {point}",
                     quiet=True)


@test("whitening_proof", points=1)
def test_the_gap_is_a_square(f):
    """cross**2 = (w^T S_w w)(d^T S_w^-1 d) - (w^T d)**2 at numbers."""
    _, _, _, cross = _proof_parts(f)
    for values in _PROOF_POINTS:
        point, S, d, w = _numbers(values)
        gap = (w @ S @ w) * (d @ np.linalg.solve(S, d)) - (w @ d) ** 2
        assert_close(_at(cross, point, "cross") ** 2, gap, f"cross**2 at {point}", quiet=True)
