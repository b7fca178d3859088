"""Exercise set "losses" (chapter 11): the hinge subgradient, a stable logistic loss, what the
losses estimate, Pegasos, and a faulty derivation of class weights in logistic regression.

Losses are functions of the margin m = y f(x) with labels y in {-1, +1}; q = P(y = +1 | x) is
the true conditional probability (appendices/notation.md).  Expected values are literals
computed once from the reference solutions, except Pegasos's, which are graded by behaviour
against linclf.LinearSVM's optimum (the trusted twin).
"""

import cmath

import numpy as np

from ..imports import OPTIMISERS
from ..framework import ExerciseSet, as_array, assert_close, fail, read_expr, test, unpack
from ..pointwise import assert_values_at
from ..quiet import assert_no_warnings, order_of

SET = ExerciseSet("losses", "Loss functions", "11_losses", preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "hinge_subgradient",
    title="The regularised hinge loss and a subgradient",
    signature="def hinge_subgradient(w, b, X, y, lam=0.0):",
    kind="formula",
    hidden_tests=1,
    doc=r"""
    J(w, b) = mean_i max(0, 1 - y_i (w @ x_i + b)) + (lam / 2) ||w||^2
    over the N samples (the bias is not penalised) and a subgradient
    (g_w, g_b).  At the kink y_i (w @ x_i + b) = 1 use the slope of the
    violating side: sample i contributes -y_i x_i / N to g_w and -y_i / N
    to g_b whenever its margin is <= 1.  Vectorise.

    Returns
    -------
    (J, g_w, g_b) : float, ndarray of shape (d,), float
    """,
)

SET.exercise(
    "logistic_loss_bits",
    title="The logistic loss in bits, for any margin",
    signature="def logistic_loss_bits(m):",
    kind="formula",
    hidden_tests=1,
    doc=r"""
    log2(1 + exp(-m)) elementwise: the logistic loss scaled so that it is 1
    at m = 0 and lies above the zero-one loss.  Accurate and finite for any
    finite m (try m = -1000 and m = 1000), without warnings.

    Parameters
    ----------
    m : ndarray

    Returns
    -------
    ndarray of the shape of m
    """,
)

SET.exercise(
    "exp_loss_minimizer",
    title="What the exponential loss estimates, symbolically",
    signature="def exp_loss_minimizer():",
    kind="formula",  # the chapter displays f* = ln(q / (1 - q)) / 2
    hidden_tests=1,
    doc=r"""
    At a point x with q = P(y = +1 | x), 0 < q < 1, the expected
    exponential loss of the score f is R(f) = q exp(-f) + (1 - q) exp(f).
    Return its minimiser f* as a sympy expression in q.
    """,
    stub="""q = sp.Symbol("q", positive=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "conditional_risk_minimiser",
    title="What three other losses estimate",
    signature="def conditional_risk_minimiser(loss):",
    kind="derivation",
    hidden_tests=1,
    doc=r"""
    At a point x with q = P(y = +1 | x), the conditional risk of the score
    f under the margin loss l is q l(f) + (1 - q) l(-f).  Return its
    global minimiser f*(q), for 0 < q < 1, as a sympy expression in q, for

        loss = "quartic"      l(m) = (1 - m)**4
        loss = "cubic_hinge"  l(m) = max(0, 1 - m)**3
        loss = "savage"       l(m) = 1 / (1 + exp(m))**2   (not convex)

    Parameters
    ----------
    loss : str, one of the three names above

    Returns
    -------
    sympy expression in q
    """,
    stub="""q = sp.Symbol("q", positive=True)
return None  # replace None by f*(q) for the given loss""",
)

SET.exercise(
    "pegasos",
    title="Pegasos: a linear SVM by stochastic subgradient steps",
    signature="def pegasos(X, y, lam, n_iter=1000, seed=0):",
    kind="implementation",
    forbid=OPTIMISERS,  # the exercise is to optimise: a ready-made optimiser would do it
    hidden_tests=1,
    doc=r"""
    Minimise F(w) = (lam / 2) ||w||^2 + (1/N) sum_i max(0, 1 - y_i w @ x_i)
    by Pegasos (Shalev-Shwartz et al.).  The model is f(x) = w @ x with no
    separate intercept (a constant column of X, if any, is penalised like
    every other weight).  The contract:

    * start from w = 0;
    * at step t = 1, ..., n_iter draw one index i_t uniformly, with
      rng = np.random.default_rng(seed) and i_t = rng.integers(N);
    * take a subgradient step with step size eta_t = 1 / (lam * t) on the
      objective of that one sample, (lam / 2) ||w||^2 + max(0, 1 - y_i w @ x_i);
    * then project w onto the ball ||w|| <= 1 / sqrt(lam), which contains
      the minimiser;
    * return the last iterate.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}
    lam : float > 0
    n_iter : int
    seed : int

    Returns
    -------
    w : ndarray of shape (d,)
    """,
)

SET.exercise(
    "class_weight_error",
    title="Find the error: class weights in logistic regression",
    signature="def class_weight_error():",
    kind="find-the-error",  # neither the errors nor their corrections are in the book
    hidden_tests=3,
    doc=r"""
    A source adds class weights to logistic regression: the loss of a
    positive sample is multiplied by cp > 0 and that of a negative sample by
    cm > 0, to make a missed positive cp / cm times as costly as a false
    alarm.  It argues:

      (1) At x with q = P(y = +1 | x), the conditional risk of the score f
          is R(f) = cp q log(1 + exp(-f)) + cm (1 - q) log(1 + exp(f)).
      (2) R'(f) = 0 gives exp(f*) = cp q / (cm (1 - q)), that is
          f* = log(q / (1 - q)) + log(cp / cm).
      (3) So the weighted model predicts +1 (f* > 0) exactly where
          q > cp / (cp + cm): a larger cp raises the bar for a positive.
      (4) The weights only shift the score by log(cp / cm), so
          1 / (1 + exp(-f*)) is still the probability P(y = +1 | x).

    Return the number of the first wrong step; the correct threshold, the
    value of q above which the minimiser f* is positive, as a sympy
    expression in cp and cm; and the probability q = P(y = +1 | x) at a
    point where the weighted model's minimiser is f* = f, as a sympy
    expression in f, cp and cm (what step (4) should have said).

    Returns
    -------
    (step, threshold, q_of_f) : int, sympy expression, sympy expression
    """,
    stub="""cp, cm = sp.symbols("cp cm", positive=True)
f = sp.Symbol("f", real=True)
return None  # replace None by the tuple (step, threshold, q_of_f)""",
)

# margins y (w @ x + b) = [1, 0.5, 0, 1.5, 1.5]: one point exactly at the kink, one on the boundary
X_H = np.array([[1.0, 2.0], [2.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [3.0, 1.0]])
Y_H = np.array([1.0, 1.0, -1.0, -1.0, 1.0])
W_H = np.array([0.5, 0.5])


@test("hinge_subgradient", points=1)
def test_point_at_the_kink(f):
    J, g_w, g_b = unpack(f(W_H, -0.5, X_H, Y_H), 3, "the result (J, g_w, g_b)")
    assert_close(J, 0.3, "J")
    assert_close(g_w, [-0.6, -0.2], "g_w", atol=1e-12)
    assert_close(g_b, -0.2, "g_b", atol=1e-12)


@test("hinge_subgradient", points=1)
def test_with_l2_penalty(f):
    J, g_w, g_b = unpack(f(W_H, -0.5, X_H, Y_H, lam=0.4), 3, "the result (J, g_w, g_b)")
    assert_close(J, 0.4, "J")
    assert_close(g_w, [-0.4, 0.0], "g_w", atol=1e-12)
    assert_close(g_b, -0.2, "g_b", atol=1e-12)


@test("hinge_subgradient", points=1)
def test_only_one_violation(f):
    # margins [6, 5, -1, 6, 10]: only the third sample counts
    J, g_w, g_b = unpack(f(np.array([3.0, 2.0]), -1.0, X_H, Y_H, lam=0.1), 3, "the result (J, g_w, g_b)")
    assert_close(J, 1.05, "J")
    assert_close(g_w, [0.3, 0.4], "g_w", atol=1e-12)
    assert_close(g_b, 0.2, "g_b", atol=1e-12)


@test("logistic_loss_bits", points=1)
def test_moderate_margins(f):
    assert_close(f(np.array([-1.0, 0.0, 2.0])), [1.8946361239720115, 1.0, 0.18311841208159602],
                 "log2(1 + exp(-m))", rtol=1e-10)


@test("logistic_loss_bits", points=2)
def test_extreme_margins(f):
    assert_close(f(np.array([-1000.0, -40.0, 40.0, 800.0])),
                 [1442.6950408889634, 57.70780163555854, 6.129079616048701e-18, 0.0],
                 "log2(1 + exp(-m))", rtol=1e-10, atol=1e-300)
    assert_no_warnings(f, "logistic_loss_bits(m) with m = -1000, -40, 40, 800")


@test("exp_loss_minimizer", points=2)
def test_minimizer(f):
    # f*(q) at Q_POINTS (below): half the log-odds
    check_function_of_q(f(), [-1.4722194895832201, -0.6931471805599453, 0.0, 0.3095196042031118,
                              1.0986122886681098], "f*")


# --------------------------------------------------------------------------
# what the losses estimate: f*(q) compared at a few probabilities
# --------------------------------------------------------------------------
Q_POINTS = (0.05, 0.2, 0.5, 0.65, 0.9)


def check_function_of_q(got, expected, what):
    """``got`` (sympy text in q) takes the ``expected`` values at ``Q_POINTS``."""
    import sympy as sp

    expr = read_expr(got, what)
    extra = sorted(s.name for s in getattr(expr, "free_symbols", set()) if s.name != "q")
    if extra or isinstance(expr, sp.MatrixBase):
        fail(f"{what} should be a scalar expression in q only; it uses {extra}")
    for q, value in zip(Q_POINTS, expected):
        try:
            v = complex(expr.xreplace({sp.Symbol("q"): sp.Rational(str(q))}).evalf(30))
            if cmath.isnan(v):      # a removable 0/0 (e.g. at q = 1/2): its limit counts
                v = complex(sp.limit(expr, sp.Symbol("q"), sp.Rational(str(q))).evalf(30))
        except (TypeError, ValueError, ArithmeticError, NotImplementedError):
            fail(f"{what} cannot be evaluated at q = {q}")
        if not cmath.isfinite(v):
            # "nan" would pass every comparison below: it must not
            fail(f"{what} is not defined (or not finite) at q = {q}")
        if abs(v.imag) > 1e-12 or not abs(v.real - value) <= 1e-9 * (1 + abs(value)):
            # the answer is a constant function of q: say where it is wrong and by how much, never
            # the expected value (a few of those would give the formula away)
            if abs(v.imag) > 1e-12:
                fail(f"{what} is not real at q = {q}")
            fail(f"{what}: wrong at q = {q}, where yours is {v.real:.10g}, an error "
                 f"{order_of(v.real - value)}")


@test("conditional_risk_minimiser", points=2)
def test_quartic_loss(f):
    check_function_of_q(f("quartic"), [-0.4548034289819951, -0.22702358087138125, 0.0, 0.10280867053387284,
                                       0.3506670224259358], "f*(q) of the quartic loss")


@test("conditional_risk_minimiser", points=2)
def test_savage_loss(f):
    check_function_of_q(f("savage"), [-2.9444389791664403, -1.3862943611198906, 0.0, 0.6190392084062234,
                                      2.1972245773362196], "f*(q) of the Savage loss")


# --------------------------------------------------------------------------
# Pegasos, graded by behaviour against linclf's optimum
# --------------------------------------------------------------------------
def _two_clouds(seed, n=40, shift=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) + shift * np.repeat([[1.0, 1.0], [-1.0, -1.0]], n // 2, axis=0)
    return np.round(np.column_stack([X, np.ones(n)]), 2), np.repeat([1.0, -1.0], n // 2)


def svm_objective(w, X, y, lam):
    return float(lam / 2 * w @ w + np.maximum(0.0, 1.0 - y * (X @ w)).mean())


def optimum_by_linclf(X, y, lam):
    """min F by linclf's dual coordinate descent (C = 1/(lam N)); its own intercept made negligible."""
    from linclf.linear_svm import LinearSVM

    model = LinearSVM(C=1.0 / (lam * len(y)), solver="dcd", intercept_scaling=1e-6, tol=1e-9,
                      max_iter=100_000, random_state=0).fit(X, y)
    return model.coef_[0]


def check_pegasos(f, X, y, lam, n_iter, factor, seed=0):
    w = as_array(f(X, y, lam, n_iter=n_iter, seed=seed), (X.shape[1],), "w")
    w_opt = optimum_by_linclf(X, y, lam)
    got, best = svm_objective(w, X, y, lam), svm_objective(w_opt, X, y, lam)
    if got > factor * best:
        fail(f"F(w) = {got:.6g} after {n_iter} steps, but the minimum is {best:.6g} (lam = {lam}); "
              f"expected at most {factor} times the minimum")
    if np.linalg.norm(w) > 1 / np.sqrt(lam) + 1e-9:
        fail(f"||w|| = {np.linalg.norm(w):.6g} lies outside the ball of radius 1/sqrt(lam) = {1 / np.sqrt(lam):.6g}")
    return w, w_opt


@test("pegasos", points=2)
def test_pegasos_moderate_regularisation(f):
    X, y = _two_clouds(11)
    w, w_opt = check_pegasos(f, X, y, 0.1, 3000, 1.02)
    acc, acc_opt = np.mean(np.sign(X @ w) == y), np.mean(np.sign(X @ w_opt) == y)
    if acc < acc_opt - 0.05:
        fail(f"training accuracy {acc:.3f}, the SVM's is {acc_opt:.3f}")


@test("pegasos", points=1)
def test_pegasos_weak_regularisation(f):
    X, y = _two_clouds(12, n=60, shift=0.8)
    check_pegasos(f, X, y, 0.01, 5000, 1.06)


@test("pegasos", points=1)
def test_pegasos_strong_regularisation(f):
    """With a large lam the minimiser is a short w; the steps must shrink w."""
    X, y = _two_clouds(13)
    check_pegasos(f, X, y, 10.0, 2000, 1.01)


# --------------------------------------------------------------------------
# find the error: class weights
# --------------------------------------------------------------------------
def _class_weights(f):
    return unpack(f(), 3, "the result (step, threshold, q_of_f)")


@test("class_weight_error", points=1)
def test_corrected_threshold(f):
    """The threshold at three weightings; the symbolic comparison is a hidden test."""
    _, threshold, _ = _class_weights(f)
    assert_values_at(threshold, [({"cp": 2.0, "cm": 1.0}, 1 / 3), ({"cp": 1.0, "cm": 3.0}, 0.75),
                                 ({"cp": 0.5, "cm": 2.0}, 0.8)], ["cp", "cm"], "threshold")


@test("class_weight_error", points=1)
def test_probability_from_the_weighted_score(f):
    """q_of_f at three scores and weightings; the symbolic comparison is a hidden test."""
    _, _, q_of_f = _class_weights(f)
    assert_values_at(q_of_f, [({"f": 0.5, "cp": 2.0, "cm": 1.0}, 0.45186276187760605),
                              ({"f": -1.0, "cp": 1.0, "cm": 3.0}, 0.5246331135813284),
                              ({"f": 0.0, "cp": 3.0, "cm": 2.0}, 0.4)], ["f", "cp", "cm"], "q_of_f")
