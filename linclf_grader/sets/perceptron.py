"""Exercise set "perceptron" (chapter 3): updates, training, the batch rule, Novikoff's bound,
and its count from any start with a margin.

Expected values below were computed once from the reference solutions (kept
out of the package) and are stored as literals: the public tests contain no
algorithm code.
"""

import numpy as np

from ..framework import (ExerciseSet, as_float, assert_close, assert_equal, assert_raises,
                         read_expr, test, unpack)
from ..quiet import assert_close_quiet, assert_equal_quiet

SET = ExerciseSet("perceptron", "The perceptron", "03_perceptron",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "perceptron_update",
    title="One perceptron update",
    signature="def perceptron_update(w, b, x, y, eta=1.0):",
    hidden_tests=1,
    doc=r"""
    Apply the perceptron rule to one sample.

    The sample ``(x, y)`` with label ``y`` in {-1, +1} is a mistake when
    ``y * (w @ x + b) <= 0`` (a point on the boundary counts as a mistake).
    On a mistake return ``(w + eta*y*x, b + eta*y)``; otherwise return the
    weights unchanged.

    Parameters
    ----------
    w : ndarray of shape (d,)
    b : float
    x : ndarray of shape (d,)
    y : {-1, +1}
    eta : float, the step size

    Returns
    -------
    (w_new, b_new) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "perceptron_train",
    title="Training the perceptron, cyclically",
    signature="def perceptron_train(X, y, eta=1.0, max_epochs=100):",
    # the loop is spelled out on the page: transcription, whatever its length
    kind="formula",
    hidden_tests=1,
    doc=r"""
    Train a perceptron from w = 0, b = 0 by cyclic passes over the data.

    Each pass (epoch) visits the samples in index order 0, 1, ..., n-1 and
    applies the update of ``perceptron_update`` at every mistake.  Stop after
    the first pass without a mistake, or after ``max_epochs`` passes.

    Returns
    -------
    (w, b, n_updates) : ndarray of shape (d,), float, int
        The final weights and the total number of updates made.
    """,
)

SET.exercise(
    "batch_perceptron_step",
    title="One step of the batch perceptron",
    signature="def batch_perceptron_step(w, b, X, y, eta=1.0):",
    hidden_tests=1,
    doc=r"""
    One gradient step on the perceptron criterion over the whole batch.

    With M the set of mistakes, i.e. of i with ``y[i] * (X[i] @ w + b) <= 0``,
    return ``w + eta * sum_{i in M} y[i] X[i]``, ``b + eta * sum_{i in M} y[i]``
    and the number of mistakes ``len(M)``.  Vectorise: no Python loop.

    Returns
    -------
    (w_new, b_new, n_mistakes) : ndarray of shape (d,), float, int
    """,
)

SET.exercise(
    "novikoff_bound",
    title="Novikoff's bound for a given separating hyperplane",
    signature="def novikoff_bound(X, y, w, b):",
    hidden_tests=1,
    doc=r"""
    Novikoff's bound (R / gamma)**2 on the number of perceptron updates.

    Work with augmented vectors x_hat = (x, 1) and a = (w, b):
    R = max_i ||x_hat_i|| and gamma = min_i y_i (a @ x_hat_i) / ||a||.
    Raise ``ValueError`` if (w, b) does not separate the data (gamma <= 0).

    Returns
    -------
    float
    """,
)

def _separable_cloud(rng, n=12):
    """A student's own separable data: n points, two decimals, both classes, a margin."""
    while True:
        X = np.round(rng.uniform(-3.0, 3.0, size=(n, 2)), 2)
        w = rng.normal(size=2)
        m = X @ (w / np.linalg.norm(w)) + np.round(rng.uniform(-1.0, 1.0), 2)
        y = np.where(m > 0, 1.0, -1.0)
        if np.abs(m).min() >= 0.15 and 3 <= (y > 0).sum() <= n - 3:
            return {"X": X, "y": y}


SET.exercise(
    "perceptron_experiment",
    title="Updates against Novikoff's bound, on your own data",
    signature="def perceptron_experiment(X, y):",
    kind="experiment",
    variant=_separable_cloud,
    hidden_tests=2,
    doc=r"""
    Run the perceptron of ``perceptron_train`` (from zero, eta = 1, cyclic
    order, until a pass without a mistake) on ``(X, y)``, then evaluate
    Novikoff's bound at the hyperplane it found.

    Then state your conclusions: for each statement below, True or False.

    0. n_updates <= bound holds on every linearly separable data set,
       not only on yours.
    1. On the same data, the bound evaluated at some other separating
       (w, b) can be smaller than n_updates.
    2. Run from zero with eta = 2 instead of 1, the perceptron makes a
       different number of updates on the same data.
    3. Adding one same vector to every sample (shifting the data) can
       change the number of updates.

    Returns
    -------
    (n_updates, bound, claims) : int, float, list of 4 bool
        The number of updates made, (R / gamma)**2 for the final (w, b)
        with augmented vectors, and your verdicts on statements 0 to 3.
    """,
)


SET.exercise(
    "novikoff_any_start",
    title="Novikoff's count from any start, with a margin",
    signature="def novikoff_any_start():",
    kind="derivation",
    hidden_tests=2,
    doc=r"""
    The largest number k of corrections of the fixed-increment rule with
    margin (correct a when a^T z_i <= beta, a <- a + eta z_i) that the two
    inequalities of Novikoff's proof allow, started at any a_0.

    u is a unit vector with u^T z_i >= gamma > 0 for every i,
    R = max_i ||z_i||, c = u^T a_0 and n0 = ||a_0||; the step eta > 0 and
    the margin beta >= 0 are constant.  Return k as a sympy expression in
    gamma, R, eta, beta, c, n0 (check: it is (R / gamma)**2 when
    a_0 = 0 and beta = 0).
    """,
    stub="""gamma, R, eta, n0 = sp.symbols("gamma R eta n0", positive=True)
beta = sp.symbols("beta", nonnegative=True)
c = sp.symbols("c", real=True)
return None  # replace None by your expression""",
)

# the worked example of the lecture notes: x1, x2 positive, x3 negative
X_EX = np.array([[3.0, 3.0], [4.0, 3.0], [1.0, 1.0]])
Y_EX = np.array([1.0, 1.0, -1.0])
X_3D = np.array([[0.5, -1.0, -2.0], [-2.0, 1.5, 1.5], [0.5, 1.0, 0.0], [1.5, 1.5, -2.0],
                 [1.5, -2.0, 1.0], [-1.5, 1.5, 0.0], [-1.0, -0.5, -2.0], [-1.5, 0.5, 0.5]])
Y_3D = np.array([1.0, -1.0, -1.0, -1.0, 1.0, -1.0, -1.0, -1.0])


def _w_b(got):
    return unpack(got, 2, "the result (w_new, b_new)")


@test("perceptron_update", points=1)
def test_update_from_zero_weights(f):
    """At w = 0, b = 0 the margin is exactly 0, which is a mistake."""
    w, b = _w_b(f(np.zeros(2), 0.0, np.array([3.0, 3.0]), 1, eta=1.0))
    assert_close(w, [3.0, 3.0], "w_new")
    assert_close(b, 1.0, "b_new")


@test("perceptron_update", points=1)
def test_update_on_a_negative_sample(f):
    w, b = _w_b(f(np.array([3.0, 3.0]), 1.0, np.array([1.0, 1.0]), -1, eta=1.0))
    assert_close(w, [2.0, 2.0], "w_new")
    assert_close(b, 0.0, "b_new")


@test("perceptron_update", points=1)
def test_no_update_when_correct(f):
    w, b = _w_b(f(np.array([1.0, 1.0]), -3.0, np.array([3.0, 3.0]), 1, eta=1.0))
    assert_close(w, [1.0, 1.0], "w_new")
    assert_close(b, -3.0, "b_new")


@test("perceptron_update", points=1)
def test_step_size_scales_both_w_and_b(f):
    w, b = _w_b(f(np.array([0.5, -1.0, 2.0]), 0.25, np.array([1.0, 2.0, -1.0]), 1, eta=0.5))
    assert_close(w, [1.0, 0.0, 1.5], "w_new")
    assert_close(b, 0.75, "b_new")


@test("perceptron_train", points=1)
def test_worked_example_of_the_lecture_notes(f):
    w, b, n = unpack(f(X_EX, Y_EX, eta=1.0, max_epochs=100), 3, "the result (w, b, n_updates)")
    assert_close(w, [1.0, 1.0], "w")
    assert_close(b, -3.0, "b")
    assert_equal(n, 7, "n_updates")


@test("perceptron_train", points=1)
def test_three_features_half_step(f):
    w, b, n = unpack(f(X_3D, Y_3D, eta=0.5, max_epochs=100), 3, "the result (w, b, n_updates)")
    assert_close(w, [0.75, -2.25, 0.0], "w")
    assert_close(b, -0.5, "b")
    assert_equal(n, 7, "n_updates")


@test("perceptron_experiment", points=1)
def test_experiment_on_the_worked_example(f):
    n, bound, _ = unpack(f(X_EX, Y_EX), 3, "the result (n_updates, bound, claims)")
    assert_equal(n, 7, "n_updates")
    assert_close(bound, 286.0, "the bound", rtol=1e-9)


@test("perceptron_experiment", points=2, variant=True)
def test_experiment_on_your_own_data(f, data):
    """Expected values from linclf's Perceptron (same rule), the trusted twin."""
    from linclf.perceptron import Perceptron

    X, y = data["X"], data["y"]
    model = Perceptron(eta=1.0, max_iter=10_000).fit(X, y)
    a = np.append(model.coef_[0], model.intercept_[0])
    X_hat = np.hstack([X, np.ones((len(X), 1))])
    bound = (np.linalg.norm(X_hat, axis=1).max() * np.linalg.norm(a) / (y * (X_hat @ a)).min()) ** 2
    n, got, _ = unpack(f(X, y), 3, "the result (n_updates, bound, claims)")
    assert_equal_quiet(n, int(model.n_updates_), "n_updates on your data")
    assert_close_quiet(got, bound, "the bound on your data", rtol=1e-7)


@test("batch_perceptron_step", points=0.5)
def test_batch_from_zero_every_sample_is_a_mistake(f):
    w, b, n = unpack(f(np.zeros(2), 0.0, X_EX, Y_EX, eta=1.0), 3, "the result (w, b, n_mistakes)")
    assert_close(w, [6.0, 5.0], "w_new")
    assert_close(b, 1.0, "b_new")
    assert_equal(n, 3, "n_mistakes")


@test("batch_perceptron_step", points=0.5)
def test_batch_one_mistake(f):
    w, b, n = unpack(f(np.array([1.0, 1.0]), -1.0, X_EX, Y_EX, eta=1.0), 3,
                     "the result (w, b, n_mistakes)")
    assert_close(w, [0.0, 0.0], "w_new")
    assert_close(b, -2.0, "b_new")
    assert_equal(n, 1, "n_mistakes")


@test("batch_perceptron_step", points=1)
def test_batch_three_features(f):
    w, b, n = unpack(f(np.array([0.5, -0.25, 1.0]), 0.5, X_3D, Y_3D, eta=0.1), 3,
                     "the result (w, b, n_mistakes)")
    assert_close(w, [0.85, -0.65, 0.6], "w_new")
    assert_close(b, 0.3, "b_new")
    assert_equal(n, 4, "n_mistakes")


@test("novikoff_bound", points=1)
def test_bound_for_the_worked_example(f):
    assert_close(f(X_EX, Y_EX, np.array([1.0, 1.0]), -3.0), 286.0, "the bound", rtol=1e-9)


@test("novikoff_bound", points=1)
def test_bound_three_features(f):
    value = as_float(f(X_3D, Y_3D, np.array([0.75, -2.25, 0.0]), -0.5), "the bound")
    assert_close(value, 3572.0, "the bound", rtol=1e-9)


@test("novikoff_bound", points=1)
def test_raises_when_not_separating(f):
    assert_raises(f, "ValueError", X_EX, Y_EX, np.array([1.0, 1.0]), -7.0)


_NOVIKOFF_SYMBOLS = ["gamma", "R", "eta", "beta", "c", "n0"]


@test("novikoff_any_start", points=1)
def test_count_from_zero_with_a_margin(f):
    """c = n0 = 0: the start is the origin, only the margin and the step are left."""
    from ..symbolic import compare_expr, parse_expr_safely

    got = read_expr(f(), "k").subs({"c": 0, "n0": 0})
    ok, msg = compare_expr(got, parse_expr_safely("(R**2 + 2*beta/eta)/gamma**2"), _NOVIKOFF_SYMBOLS,
                           positive=["gamma", "R", "eta", "beta"])
    if not ok:
        raise AssertionError(f"k at a_0 = 0: {msg}")


# values of the right expression at numbers with 0 <= c <= n0 (a start that does not point away
# from u); the expression itself is compared in a hidden test, never printed here
_K_AT = (({"gamma": 0.5, "R": 2.0, "eta": 1.0, "beta": 0.5, "c": 1.0, "n0": 1.5}, 16.306623862918073),
         ({"gamma": 0.2, "R": 1.0, "eta": 0.5, "beta": 0.0, "c": 0.5, "n0": 2.0}, 28.26655965729519),
         ({"gamma": 1.0, "R": 3.0, "eta": 0.1, "beta": 2.0, "c": 0.0, "n0": 1.0}, 50.96223724479849))


@test("novikoff_any_start", points=2)
def test_count_from_any_start_at_numbers(f):
    import sympy as sp

    k = read_expr(f(), "k")
    for point, expected in _K_AT:
        value = complex(k.subs({sp.Symbol(name): v for name, v in point.items()}).evalf())
        if abs(value.imag) > 1e-9:
            raise AssertionError(f"k is not a real number at {point}")
        assert_close(value.real, expected, f"k at {point}", rtol=1e-9, quiet=True)
