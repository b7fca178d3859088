"""Reference solutions: exercise set "perceptron" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp

from linclf_grader import test
from linclf_grader.framework import assert_close, assert_equal, unpack


def perceptron_update(w, b, x, y, eta=1.0):
    if y * (w @ x + b) <= 0:  # a point on the boundary counts as a mistake
        return w + eta * y * x, b + eta * y
    return w.copy(), b


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    w, b, n_updates = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(max_epochs):
        mistakes = 0
        for x_i, y_i in zip(X, y):
            if y_i * (w @ x_i + b) <= 0:
                w, b = w + eta * y_i * x_i, b + eta * y_i
                n_updates += 1
                mistakes += 1
        if mistakes == 0:
            break
    return w, b, n_updates


def batch_perceptron_step(w, b, X, y, eta=1.0):
    wrong = y * (X @ w + b) <= 0
    return w + eta * (y[wrong] @ X[wrong]), b + eta * y[wrong].sum(), int(wrong.sum())


def novikoff_bound(X, y, w, b):
    X_hat = np.hstack([X, np.ones((len(X), 1))])
    a = np.append(w, b)
    gamma = np.min(y * (X_hat @ a)) / np.linalg.norm(a)
    if gamma <= 0:
        raise ValueError("(w, b) does not separate the data")
    R = np.max(np.linalg.norm(X_hat, axis=1))
    return (R / gamma) ** 2


# 0: Novikoff with u = the final (w, b) normalised, which separates (a pass without a mistake);
# 1: every separating (w, b) gives a valid bound, so none is below the count;
# 2: from zero the corrections are the same for every eta (ex-perceptron-eta);
# 3: the augmented vectors change, and with them the run (see the hidden test's example)
CLAIMS = [True, False, False, True]


def perceptron_experiment(X, y):
    w, b, n = perceptron_train(X, y, eta=1.0, max_epochs=10_000)
    return n, novikoff_bound(X, y, w, b), [True, False, False, True]   # CLAIMS


def novikoff_any_start():
    gamma, R, eta, n0 = sp.symbols("gamma R eta n0", positive=True)
    beta = sp.symbols("beta", nonnegative=True)
    c = sp.symbols("c", real=True)
    k = sp.symbols("k", nonnegative=True)
    # after k corrections: u^T a_k >= c + k eta gamma, and, since each correction is made at
    # a^T z <= beta, ||a_k||^2 <= n0^2 + 2 k eta beta + k eta^2 R^2.  Where c + k eta gamma >= 0,
    # Cauchy-Schwarz (u^T a_k <= ||a_k||) squared gives q(k) <= 0 for the quadratic below, whose
    # leading coefficient is positive; q <= 0 at k = 0 (c^2 <= n0^2) and at k = -c/(eta gamma)
    # when c < 0, so the allowed k end at the larger root.
    q = (c + k * eta * gamma) ** 2 - (n0**2 + 2 * k * eta * beta + k * eta**2 * R**2)
    A, B, C = (sp.expand(q).coeff(k, j) for j in (2, 1, 0))
    return sp.simplify((-B + sp.sqrt(B**2 - 4 * A * C)) / (2 * A))


# --------------------------------------------------------------------------
# hidden tests: traps the public tests do not show
# --------------------------------------------------------------------------
# 64 updates over many passes, six of them on a point exactly on the boundary;
# with "< 0" in place of "<= 0" the perceptron never moves from zero
X_SLOW = np.array([[-4.0, 0.0], [3.0, 2.0], [-4.0, 2.0], [4.0, 2.0], [0.0, 4.0], [4.0, 3.0]])
Y_SLOW = np.array([-1.0, -1.0, -1.0, 1.0, -1.0, -1.0])


# Fresh inputs from fixed seeds, expected values from the reference above: a table of the
# public tests' answers loses these points.
@test("perceptron.perceptron_update", points=1, hidden=True, visibility="after_due_date")
def test_hidden_update_fresh_inputs(f):
    """Random (w, b, x, y, eta): some calls are mistakes, some not."""
    rng = np.random.default_rng(301)
    outcomes = set()
    for _ in range(8):
        w, b, x = rng.normal(size=4), float(rng.normal()), rng.normal(size=4)
        y, eta = float(rng.choice([-1.0, 1.0])), float(rng.uniform(0.1, 2.0))
        w_ref, b_ref = perceptron_update(w, b, x, y, eta)
        outcomes.add(b_ref != b)
        w_got, b_got = unpack(f(w, b, x, y, eta=eta), 2, "the result (w_new, b_new)")
        assert_close(w_got, w_ref, "w_new")
        assert_close(b_got, b_ref, "b_new")
    assert outcomes == {True, False}      # the seed gives both kinds of call


@test("perceptron.batch_perceptron_step", points=0.5, hidden=True, visibility="after_due_date")
def test_hidden_batch_fresh_inputs(f):
    rng = np.random.default_rng(302)
    X, y = rng.normal(size=(12, 3)), rng.choice([-1.0, 1.0], size=12)
    w, b = rng.normal(size=3), float(rng.normal())
    w_ref, b_ref, n_ref = batch_perceptron_step(w, b, X, y, eta=0.3)
    w_got, b_got, n_got = unpack(f(w, b, X, y, eta=0.3), 3, "the result (w, b, n_mistakes)")
    assert_close(w_got, w_ref, "w_new")
    assert_close(b_got, b_ref, "b_new")
    assert_equal(n_got, n_ref, "n_mistakes")


@test("perceptron.novikoff_bound", points=0.5, hidden=True, visibility="after_due_date")
def test_hidden_bound_fresh_inputs(f):
    """A separable cloud and the perceptron's own separator, then a (w, b) that is not one."""
    from linclf_grader.framework import assert_raises

    rng = np.random.default_rng(303)
    X = rng.normal(size=(15, 2))
    y = np.where(X @ [1.0, -2.0] + 0.5 > 0, 1.0, -1.0)
    X = X + 0.3 * y[:, None] * np.array([1.0, -2.0]) / np.sqrt(5.0)   # a gap around the line
    w, b, _ = perceptron_train(X, y, 1.0, 1000)
    assert_close(f(X, y, w, b), novikoff_bound(X, y, w, b), "the bound", rtol=1e-9)
    assert_raises(f, "ValueError", X, y, -w, -b)


@test("perceptron.perceptron_train", points=2, hidden=True, visibility="after_due_date")
def test_hidden_many_epochs_and_a_tie(f):
    """Needs several passes; an early sample lands exactly on the boundary (a mistake)."""
    w_ref, b_ref, n_ref = perceptron_train(X_SLOW, Y_SLOW, 1.0, 100)
    w, b, n = unpack(f(X_SLOW, Y_SLOW, eta=1.0, max_epochs=100), 3, "the result")
    assert_close(w, w_ref, "w")
    assert_close(b, b_ref, "b")
    assert_equal(n, n_ref, "n_updates")


@test("perceptron.perceptron_experiment", points=2, hidden=True, visibility="after_due_date")
def test_hidden_experiment_on_slow_data(f):
    n_ref, bound_ref, _ = perceptron_experiment(X_SLOW, Y_SLOW)
    n, bound, _ = unpack(f(X_SLOW, Y_SLOW), 3, "the result")
    assert_equal(n, n_ref, "n_updates")
    assert_close(bound, bound_ref, "the bound", rtol=1e-7)


@test("perceptron.perceptron_experiment", points=2, hidden=True, visibility="after_due_date")
def test_hidden_the_conclusions(f):
    """The four verdicts, all or nothing; the message says only that one is wrong."""
    _, _, claims = unpack(f(X_SLOW, Y_SLOW), 3, "the result")
    if not isinstance(claims, (list, tuple)) or len(claims) != 4:
        raise AssertionError("claims should be a list of 4 booleans")
    if not all(isinstance(v, (bool, np.bool_)) for v in claims):
        raise AssertionError("claims should be a list of 4 booleans (True or False)")
    if [bool(v) for v in claims] != CLAIMS:
        raise AssertionError("at least one of your four verdicts is wrong")


@test("perceptron.novikoff_any_start", points=3, hidden=True, visibility="after_due_date")
def test_hidden_count_where_the_start_points_away(f):
    """At numbers with c < 0 (a start pointing away from u) and with a_0 along u (c = n0)."""
    from linclf_grader.framework import read_expr
    from linclf_grader.symbolic import parse_expr_safely

    got, ref = read_expr(f(), "k"), parse_expr_safely(str(novikoff_any_start()))
    for point in ({"gamma": 0.5, "R": 3.0, "eta": 0.2, "beta": 1.0, "c": -2.0, "n0": 2.5},
                  {"gamma": 1.0, "R": 2.0, "eta": 1.0, "beta": 0.0, "c": 4.0, "n0": 4.0},
                  {"gamma": 0.1, "R": 1.0, "eta": 3.0, "beta": 0.5, "c": -0.3, "n0": 0.3}):
        at = {sp.Symbol(k): v for k, v in point.items()}
        assert_close(complex(got.xreplace(at).evalf()).real, float(ref.xreplace(at).evalf()),
                     "k at a start that points away from u", rtol=1e-9)


@test("perceptron.novikoff_any_start", points=2, hidden=True, visibility="after_due_date")
def test_hidden_count_symbolic(f):
    """The whole expression, compared symbolically with the reference's derivation."""
    from linclf_grader.framework import read_expr
    from linclf_grader.symbolic import compare_expr, parse_expr_safely

    ok, msg = compare_expr(read_expr(f(), "k"), parse_expr_safely(str(novikoff_any_start())),
                           ["gamma", "R", "eta", "beta", "c", "n0"],
                           positive=["gamma", "R", "eta", "beta", "n0"])
    if not ok:
        raise AssertionError(f"k: {msg}")


# --------------------------------------------------------------------------
# typical wrong answers (tests/test_exercise_sets.py proves each loses points)
# --------------------------------------------------------------------------
def _experiment_wrong(bias_in_bound=True, strict=False):
    def wrong(X, y):
        w, b, n = np.zeros(X.shape[1]), 0.0, 0
        for _ in range(10_000):
            mistakes = 0
            for x_i, y_i in zip(X, y):
                m = y_i * (w @ x_i + b)
                if (m < 0) if strict else (m <= 0):
                    w, b, n, mistakes = w + y_i * x_i, b + y_i, n + 1, mistakes + 1
            if mistakes == 0:
                break
        if bias_in_bound:
            return n, novikoff_bound(X, y, w, b), list(CLAIMS)
        gamma = np.min(y * (X @ w + b)) / np.linalg.norm(w)
        return n, (np.linalg.norm(X, axis=1).max() / gamma) ** 2, list(CLAIMS)
    return wrong


def _claims_wrong(flip):
    def wrong(X, y):
        n, bound, claims = perceptron_experiment(X, y)
        claims[flip] = not claims[flip]
        return n, bound, claims
    return wrong


def _count_wrong(which):
    def wrong():
        gamma, R, eta, n0 = sp.symbols("gamma R eta n0", positive=True)
        beta, c = sp.symbols("beta c", real=True)
        B = R**2 * eta + 2 * beta - 2 * c * gamma
        D = B**2 + 4 * gamma**2 * (n0**2 - c**2)
        if which == "smaller root":
            return (B - sp.sqrt(D)) / (2 * gamma**2 * eta)
        if which == "eta instead of eta**2":         # ||a_k||^2 <= n0^2 + 2 k eta beta + k eta R^2
            B = R**2 + 2 * beta - 2 * c * gamma
            return (B + sp.sqrt(B**2 + 4 * gamma**2 * (n0**2 - c**2))) / (2 * gamma**2 * eta)
        if which == "margin forgotten":
            B = R**2 * eta - 2 * c * gamma
            return (B + sp.sqrt(B**2 + 4 * gamma**2 * (n0**2 - c**2))) / (2 * gamma**2 * eta)
        return (n0**2 + 2 * beta / eta + R**2) / gamma**2     # "start ignored in the projection"
    return wrong


# wrong verdicts (only the hidden test sees them): CLAIMS_WRONG, checked by the independent keys
CLAIMS_WRONG = {"another hyperplane can give a smaller bound": _claims_wrong(1),
                "the step changes the count from zero": _claims_wrong(2),
                "shifting cannot change the count": _claims_wrong(3)}

WRONG = {
    "perceptron_experiment": {
        "bound without augmenting": _experiment_wrong(bias_in_bound=False),
        "boundary point not a mistake": _experiment_wrong(strict=True),
    },
    "novikoff_any_start": {
        "the smaller root": _count_wrong("smaller root"),
        "eta instead of eta squared": _count_wrong("eta instead of eta**2"),
        "the margin forgotten": _count_wrong("margin forgotten"),
        "the start ignored along u": _count_wrong("start ignored"),
    },
}
