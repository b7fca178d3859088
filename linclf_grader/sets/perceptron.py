"""Exercise set "perceptron" (chapter 3): updates, training, the batch rule, Novikoff's bound.

Expected values below were computed once from the reference solutions (kept
out of the package) and are stored as literals: the public tests contain no
algorithm code.
"""

import numpy as np

from ..framework import (ExerciseSet, as_float, assert_close, assert_equal, assert_raises, test,
                         unpack)
from ..quiet import assert_close_quiet, assert_equal_quiet

SET = ExerciseSet("perceptron", "The perceptron", "03_perceptron")

SET.exercise(
    "perceptron_update",
    title="One perceptron update",
    signature="def perceptron_update(w, b, x, y, eta=1.0):",
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
    kind="implementation",
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
    hidden_tests=1,
    doc=r"""
    Run the perceptron of ``perceptron_train`` (from zero, eta = 1, cyclic
    order, until a pass without a mistake) on ``(X, y)``, then evaluate
    Novikoff's bound at the hyperplane it found.

    Returns
    -------
    (n_updates, bound) : int, float
        The number of updates made, and (R / gamma)**2 for the final
        (w, b) with augmented vectors.  Look at the two numbers for your
        data: must ``n_updates <= bound`` hold, and why?
    """,
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


@test("perceptron_train", points=2)
def test_worked_example_of_the_lecture_notes(f):
    w, b, n = unpack(f(X_EX, Y_EX, eta=1.0, max_epochs=100), 3, "the result (w, b, n_updates)")
    assert_close(w, [1.0, 1.0], "w")
    assert_close(b, -3.0, "b")
    assert_equal(n, 7, "n_updates")


@test("perceptron_train", points=2)
def test_three_features_half_step(f):
    w, b, n = unpack(f(X_3D, Y_3D, eta=0.5, max_epochs=100), 3, "the result (w, b, n_updates)")
    assert_close(w, [0.75, -2.25, 0.0], "w")
    assert_close(b, -0.5, "b")
    assert_equal(n, 7, "n_updates")


@test("perceptron_experiment", points=1)
def test_experiment_on_the_worked_example(f):
    n, bound = unpack(f(X_EX, Y_EX), 2, "the result (n_updates, bound)")
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
    n, got = unpack(f(X, y), 2, "the result (n_updates, bound)")
    assert_equal_quiet(n, int(model.n_updates_), "n_updates on your data")
    assert_close_quiet(got, bound, "the bound on your data", rtol=1e-7)


@test("batch_perceptron_step", points=1)
def test_batch_from_zero_every_sample_is_a_mistake(f):
    w, b, n = unpack(f(np.zeros(2), 0.0, X_EX, Y_EX, eta=1.0), 3, "the result (w, b, n_mistakes)")
    assert_close(w, [6.0, 5.0], "w_new")
    assert_close(b, 1.0, "b_new")
    assert_equal(n, 3, "n_mistakes")


@test("batch_perceptron_step", points=1)
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
