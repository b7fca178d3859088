"""Reference solutions: exercise set "perceptron" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np

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


def perceptron_experiment(X, y):
    w, b, n = perceptron_train(X, y, eta=1.0, max_epochs=10_000)
    return n, novikoff_bound(X, y, w, b)


# --------------------------------------------------------------------------
# hidden tests: traps the public tests do not show
# --------------------------------------------------------------------------
# 64 updates over many passes, six of them on a point exactly on the boundary;
# with "< 0" in place of "<= 0" the perceptron never moves from zero
X_SLOW = np.array([[-4.0, 0.0], [3.0, 2.0], [-4.0, 2.0], [4.0, 2.0], [0.0, 4.0], [4.0, 3.0]])
Y_SLOW = np.array([-1.0, -1.0, -1.0, 1.0, -1.0, -1.0])


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
    n_ref, bound_ref = perceptron_experiment(X_SLOW, Y_SLOW)
    n, bound = unpack(f(X_SLOW, Y_SLOW), 2, "the result")
    assert_equal(n, n_ref, "n_updates")
    assert_close(bound, bound_ref, "the bound", rtol=1e-7)


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
            return n, novikoff_bound(X, y, w, b)
        gamma = np.min(y * (X @ w + b)) / np.linalg.norm(w)
        return n, (np.linalg.norm(X, axis=1).max() / gamma) ** 2
    return wrong


WRONG = {
    "perceptron_experiment": {
        "bound without augmenting": _experiment_wrong(bias_in_bound=False),
        "boundary point not a mistake": _experiment_wrong(strict=True),
    },
}
