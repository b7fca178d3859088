"""Exercise set "logistic" (chapter 5): stable log-sigmoid, the loss and its gradient, the
first Newton step as a ridge regression, Newton's method, deciding whether the maximum-likelihood
estimate exists, and an error in a derivation of the intercept-only model.

Labels are -1/+1 and the loss of a sample is log(1 + exp(-y (w @ x + b))).
Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..imports import OPTIMISERS
from ..framework import ExerciseSet, as_array, assert_close, fail, read_expr, test, unpack
from ..quiet import assert_close_quiet, assert_no_warnings
from ..pointwise import assert_values_at

SET = ExerciseSet("logistic", "Logistic regression", "05_logistic",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "log_sigmoid",
    title="A log-sigmoid that never overflows",
    signature="def log_sigmoid(z):",
    hidden_tests=1,
    doc=r"""
    log(sigma(z)) = -log(1 + exp(-z)) elementwise, finite and to full
    relative precision (about 1e-15 relative error, tiny values included)
    for any finite z (try z = -1000, z = 40 and z = 1000), and without
    warnings: no overflow, not even in a branch np.where then discards.

    Parameters
    ----------
    z : ndarray

    Returns
    -------
    ndarray of the shape of z
    """,
)

SET.exercise(
    "logistic_loss_grad",
    title="The mean logistic loss and its gradient",
    signature="def logistic_loss_grad(w, b, X, y, lam=0.0):",
    hidden_tests=1,
    doc=r"""
    L(w, b) = mean_i log(1 + exp(-y_i (w @ x_i + b))) + (lam / 2) ||w||^2
    (the bias is not penalised) and its gradient.  Vectorise, and stay
    finite for large margins.

    Returns
    -------
    (L, grad_w, grad_b) : float, ndarray of shape (d,), float
    """,
)

SET.exercise(
    "newton_from_zero",
    title="The first Newton step is a ridge regression",
    signature="def newton_from_zero():",
    kind="derivation",
    hidden_tests=1,
    doc=r"""
    Take one Newton step on the objective of ``logistic_loss_grad``
    (mean logistic loss plus (lam / 2) ||w||^2, the bias not penalised)
    from a = (w, b) = 0, on N samples with labels y in {-1, +1}.  The new
    point a_1 turns out to be a multiple of a ridge regression of the
    labels on the augmented samples x_tilde = (x, 1):

        a_1 = s * argmin_a ( ||X_tilde a - y||^2 + mu ||w||^2 ).

    Derive s and mu and return them as sympy expressions in N and lam.

    Returns
    -------
    (s, mu)
    """,
    stub="""N, lam = sp.symbols("N lam", positive=True)
return None  # replace None by the tuple (s, mu)""",
)

def _overlapping_classes(rng, n=30):
    """A student's own data: two overlapping clouds (never separable), labels -1/+1."""
    while True:
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        X = np.round(rng.normal(size=(n, 2)) + 0.6 * y[:, None] * rng.uniform(0.5, 1.0, 2), 2)
        # overlapping for sure: some -1 point lies beyond some +1 point along every axis pair
        if 8 <= (y > 0).sum() <= n - 8 and _not_separable(X, y):
            return {"X": X, "y": y, "lam": float(np.round(rng.uniform(0.01, 0.2), 2))}


def _not_separable(X, y):
    """True when no line separates (X, y): checked on a fine grid of normal directions."""
    for angle in np.linspace(0, np.pi, 721):
        u = np.array([np.cos(angle), np.sin(angle)])
        p = X @ u
        if p[y > 0].min() > p[y < 0].max() or p[y > 0].max() < p[y < 0].min():
            return False
    return True


SET.exercise(
    "irls_fit",
    title="Newton's method (IRLS) for logistic regression",
    signature="def irls_fit(X, y, lam=0.0, max_iter=100):",
    kind="formula",   # the gradient, the Hessian and the Newton step are displayed in the chapter
    forbid=(*OPTIMISERS, "statsmodels"),  # the exercise is to optimise: a ready-made optimiser would do it
    variant=_overlapping_classes,
    hidden_tests=2,
    doc=r"""
    Minimise the objective of ``logistic_loss_grad`` (mean logistic loss plus
    (lam / 2) ||w||^2, the bias not penalised) by Newton's method, starting
    from w = 0, b = 0, until the Newton step is below 1e-10 in size (at most
    ``max_iter`` steps).  You may assume that the minimiser exists (the
    next exercise is about when it does not).

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}
    lam : float >= 0

    Returns
    -------
    (w, b) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "separation_type",
    title="Does the maximum-likelihood estimate exist? Decide it",
    signature="def separation_type(X, y):",
    kind="implementation",   # the chapter defines the three cases; deciding them is left to you
    hidden_tests=4,
    doc=r"""
    Decide which case of the chapter's trichotomy the training set (X, y)
    is in, with a_tilde = (w, b) and x_tilde_n = (x_n, 1):

    "complete"       some a_tilde has y_n a_tilde @ x_tilde_n > 0 for every n;
    "quasi-complete" not complete, but some a_tilde != 0 has
                     y_n a_tilde @ x_tilde_n >= 0 for every n;
    "overlap"        neither.

    You may assume that the augmented matrix X_tilde has full column rank
    and that the coordinates are small integers or halves, so that a
    tolerance of 1e-9 separates zero from non-zero in your computations.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}

    Returns
    -------
    case : str, one of "complete", "quasi-complete", "overlap"
    """,
)

SET.exercise(
    "corrected_intercept",
    title="Find the error: an intercept that runs away",
    signature="def corrected_intercept():",
    kind="find-the-error",
    hidden_tests=1,
    doc=r"""
    A classmate fits logistic regression without features, f(x) = b, on
    N_plus samples of label +1 and N_minus of label -1, and writes

    (1) R(b) = [N_plus log(1 + exp(-b)) + N_minus log(1 + exp(b))] / N
    (2) d/db log(1 + exp(-b)) = -exp(-b) / (1 + exp(-b)) = -sigma(-b)
    (3) d/db log(1 + exp(b))  =  exp(b) / (1 + exp(b))  =  sigma(-b)
    (4) R'(b) = sigma(-b) (N_minus - N_plus) / N
    (5) sigma(-b) > 0, so R'(b) = 0 only when N_plus = N_minus: with
        unbalanced classes R is monotone and b runs off to infinity,
        as on separable data.

    Find the wrong step, then return the minimiser b* of R as a sympy
    expression in N_plus and N_minus.
    """,
    stub="""N_plus, N_minus = sp.symbols("N_plus N_minus", positive=True)
return None  # replace None by your expression""",
)

X_L = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -1.5], [2.0, 1.0], [-2.0, -1.0]])
Y_L = np.array([1.0, -1.0, -1.0, 1.0, -1.0])


@test("log_sigmoid", points=1)
def test_moderate_values(f):
    z = np.array([-1.0, 0.0, 2.0])
    assert_close(f(z), [-1.3132616875182228, -0.6931471805599453, -0.1269280110429725],
                 "log sigma(z)", rtol=1e-10)


@test("log_sigmoid", points=2)
def test_extreme_values(f):
    z = np.array([-1000.0, -30.0, 40.0, 800.0])
    assert_close(f(z), [-1000.0, -30.000000000000092, -4.248354255291589e-18, 0.0],
                 "log sigma(z) (to full relative precision, tiny values included)", rtol=1e-10, atol=1e-300)
    assert_no_warnings(f, "log_sigmoid(z) with z = -1000, -30, 40, 800")


@test("logistic_loss_grad", points=2)
def test_loss_and_gradient(f):
    L, gw, gb = unpack(f(np.array([0.5, -0.25]), 0.1, X_L, Y_L), 3, "the result (L, grad_w, grad_b)")
    assert_close(L, 0.6009977303913404, "L")
    assert_close(gw, [-0.35893917284069793, -0.48343655264482277], "grad_w")
    assert_close(gb, 0.12278535568771387, "grad_b")


@test("logistic_loss_grad", points=1)
def test_l2_penalty(f):
    L, gw, gb = unpack(f(np.array([0.5, -0.25]), 0.1, X_L, Y_L, lam=0.3), 3,
                       "the result (L, grad_w, grad_b)")
    assert_close(L, 0.6478727303913404, "L")
    assert_close(gw, [-0.20893917284069793, -0.5584365526448227], "grad_w")
    assert_close(gb, 0.12278535568771387, "grad_b")


@test("logistic_loss_grad", points=1)
def test_large_margins(f):
    L, gw, gb = unpack(f(np.array([300.0, 0.0]), 0.0, X_L, Y_L), 3, "the result (L, grad_w, grad_b)")
    assert_close(L, 30.0, "L")
    assert_close(gw, [0.1, -0.3], "grad_w")
    assert_close(gb, 0.2, "grad_b")


_NEWTON_SYMBOLS = ["N", "lam"]


def _s_mu(f):
    s, mu = unpack(f(), 2, "the result (s, mu)")
    # a constant may come back as a plain number: read it as the expression it is
    return tuple(repr(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
                 for v in (s, mu))


def _newton_point(f, N, lam):
    """s and mu of the answer evaluated at one (N, lam): the public tests compare numbers only."""
    import sympy as sp

    out = []
    for v, name in zip(_s_mu(f), ("s", "mu")):
        expr = read_expr(v, name)
        unknown = sorted(x.name for x in expr.free_symbols if x.name not in _NEWTON_SYMBOLS)
        if unknown:
            fail(f"{name} uses unknown symbols {unknown}; use only {_NEWTON_SYMBOLS}")
        try:
            out.append(float(expr.xreplace({x: sp.Float({"N": N, "lam": lam}[x.name], 30)
                                            for x in expr.free_symbols})))
        except (TypeError, ValueError):
            fail(f"{name} is not a real number at N = {N}, lam = {lam}")
    return out


@test("newton_from_zero", points=2)
def test_newton_step_on_five_samples(f):
    """a_1 = s * ridge solution, with s and mu at N = 5, lam = 0.3, against one Newton step."""
    s, mu = _newton_point(f, 5, 0.3)
    Xt = np.hstack([X_L, np.ones((5, 1))])
    try:
        a1 = s * np.linalg.solve(Xt.T @ Xt + mu * np.diag([1.0, 1.0, 0.0]), Xt.T @ Y_L)
    except np.linalg.LinAlgError:
        fail("with your mu the ridge problem at N = 5, lam = 0.3 has no unique solution")
    if not np.allclose(a1, [0.5322859013271439, 0.554186752365649, -0.5640659406058443],
                       rtol=1e-8, atol=1e-12):
        fail("s * argmin(...) with your s and mu is not the first Newton step on the five samples"
             " X_L, y_L with lam = 0.3")


@test("newton_from_zero", points=2)
def test_newton_ridge_penalty_at_two_points(f):
    for N, lam, want in ((5, 0.3, 6.0), (12, 0.05, 2.4)):
        _, mu = _newton_point(f, N, lam)
        if abs(mu - want) > 1e-9 * (1 + abs(want)):
            fail(f"mu differs from the right penalty at N = {N}, lam = {lam}")


# ---------------------------------------------------------------------------
X_IR = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -1.5], [2.0, 1.0], [-2.0, -1.0], [0.3, 0.4],
                 [-0.4, -0.8], [1.2, -0.6]])
Y_IR = np.array([1.0, -1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0])


def _w_b(got, what="the result (w, b)"):
    w, b = unpack(got, 2, what)
    return as_array(w, None, "w"), b


@test("irls_fit", points=1)
def test_irls_unregularised(f):
    w, b = _w_b(f(X_IR, Y_IR, lam=0.0))
    assert_close(w, [1.5067071930841396, 0.3381002979471227], "w", rtol=1e-6)
    assert_close(b, -0.3788830798553643, "b", rtol=1e-6, atol=1e-8)


@test("irls_fit", points=1)
def test_irls_penalty_spares_the_bias(f):
    w, b = _w_b(f(X_IR, Y_IR + 0.0, lam=0.5))
    assert_close(w, [0.4178433589645517, 0.18515303280424625], "w", rtol=1e-6)
    assert_close(b, -0.08599756825481852, "b", rtol=1e-6, atol=1e-8)


@test("irls_fit", points=2, variant=True)
def test_irls_on_your_own_data(f, data):
    """Expected values from linclf's LogisticRegression (Newton), the trusted twin."""
    from linclf.logistic import LogisticRegression

    model = LogisticRegression(alpha=data["lam"], tol=1e-12, max_iter=200).fit(data["X"], data["y"])
    w, b = _w_b(f(data["X"], data["y"], lam=data["lam"]))
    assert_close_quiet(w, model.coef_[0], "w on your data", rtol=1e-5, atol=1e-8)
    assert_close_quiet(b, model.intercept_[0], "b on your data", rtol=1e-5, atol=1e-8)


# ---------------------------------------------------------------------------
CASES = ("complete", "quasi-complete", "overlap")


def _check_case(f, name, X, y, expected):
    """The answer is one of three words: a failure names the data set, never the right word."""
    got = f(X, y)
    if not isinstance(got, str) or got not in CASES:
        raise AssertionError(f"the case should be one of the strings {list(CASES)}, got {got!r}")
    if got != expected:
        raise AssertionError(f"data set {name}: {got!r} is not its case; look again at the"
                             " definitions (is there a direction with every margin >= 0? > 0?)")


@test("separation_type", points=1)
def test_case_of_data_set_a(f):
    X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 1.0], [4.0, 1.0]])
    _check_case(f, "A (four points in a row)", X, np.array([-1.0, -1.0, 1.0, 1.0]), "complete")


@test("separation_type", points=1)
def test_case_of_data_set_b(f):
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [-1.0, -1.0], [-2.0, 0.5]])
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    _check_case(f, "B (the origin twice)", X, y, "quasi-complete")


@test("separation_type", points=1)
def test_case_of_data_set_c(f):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    _check_case(f, "C (the corners of a square)", X, np.array([1.0, 1.0, -1.0, -1.0]), "overlap")


@test("corrected_intercept", points=3)
def test_corrected_intercept_at_three_class_counts(f):
    assert_values_at(f(), zip([{"N_plus": 3, "N_minus": 1}, {"N_plus": 2, "N_minus": 5},
                           {"N_plus": 7, "N_minus": 4}],
                     [1.0986122886681098, -0.916290731874155, 0.5596157879354227]), what="b*")
