"""KernelPerceptron: the dual perceptron equals the primal one, and kernels solve XOR."""

import numpy as np
import pytest
from sklearn.base import clone

from linclf import ConvergenceWarning, NotFittedError
from linclf.kernel_perceptron import KernelPerceptron

X_EX = np.array([[3.0, 3.0], [4.0, 3.0], [1.0, 1.0]])
Y_EX = np.array([1, 1, -1])


def primal_perceptron(X, y, max_epochs=1000):
    """Reference: w, b from zero, step 1, cyclic order, mistake when y (w.x + b) <= 0."""
    w = np.zeros(X.shape[1])
    b = 0.0
    mistakes = []
    for _ in range(max_epochs):
        clean = True
        for i in range(X.shape[0]):
            if y[i] * (X[i] @ w + b) <= 0:
                w = w + y[i] * X[i]
                b = b + y[i]
                mistakes.append(i)
                clean = False
        if clean:
            break
    return w, b, mistakes


def test_worked_example():
    kp = KernelPerceptron(kernel="linear").fit(X_EX, Y_EX)
    np.testing.assert_array_equal(kp.alpha_, [2, 0, 5])
    np.testing.assert_array_equal(kp.dual_coef_ @ kp.support_vectors_, [[1.0, 1.0]])
    assert kp.intercept_[0] == -3.0
    # the source's update sequence x1, x3, x3, x3, x1, x3, x3 (7 updates)
    assert kp.mistakes_ == [0, 2, 2, 2, 0, 2, 2]
    np.testing.assert_array_equal(kp.support_, [0, 2])
    assert kp.n_iter_ == 6 and kp.converged_
    np.testing.assert_array_equal(kp.decision_function(X_EX), X_EX @ [1.0, 1.0] - 3)


@pytest.mark.parametrize("seed", range(5))
def test_linear_kernel_equals_primal_perceptron(seed):
    rng = np.random.default_rng(seed)
    w_true = rng.normal(size=3)
    X = rng.normal(size=(40, 3))
    y = np.where(X @ w_true + 0.3 > 0, 1, -1)
    w, b, mistakes = primal_perceptron(X, y)
    kp = KernelPerceptron(kernel="linear").fit(X, y)
    assert kp.mistakes_ == mistakes
    np.testing.assert_allclose(kp.dual_coef_ @ kp.support_vectors_, [w], atol=1e-12)
    assert kp.intercept_[0] == pytest.approx(b)
    np.testing.assert_array_equal(np.bincount(mistakes, minlength=40), kp.alpha_)


def test_matches_linclf_primal_perceptron():
    from linclf import perceptron
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] - X[:, 1] > 0.2, 1, -1)
    primal = perceptron.Perceptron(eta=1.0, max_iter=1000).fit(X, y)
    kp = KernelPerceptron(kernel="linear").fit(X, y)
    np.testing.assert_allclose(kp.dual_coef_ @ kp.support_vectors_, primal.coef_, atol=1e-12)
    np.testing.assert_allclose(kp.intercept_, primal.intercept_, atol=1e-12)


def xor(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    X = X[np.abs(X).min(axis=1) > 0.1]  # keep a gap around the axes
    return X, np.where(X[:, 0] * X[:, 1] > 0, "same", "diff")


def circles(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    r = np.where(y == 1, 0.5, 1.0)
    t = rng.uniform(0, 2 * np.pi, n)
    return np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(scale=0.05, size=(n, 2)), y


@pytest.mark.parametrize("data", [xor, circles])
@pytest.mark.parametrize("kernel, params", [("rbf", {"gamma": 5.0}), ("poly", {"degree": 2, "gamma": 1.0, "coef0": 1.0})])
def test_solves_nonlinear_problems(data, kernel, params):
    X, y = data()
    kp = KernelPerceptron(kernel=kernel, **params).fit(X, y)
    assert kp.converged_
    assert kp.score(X, y) == 1.0
    # fresh points from the same distribution are mostly right too
    X2, y2 = data(seed=1)
    assert kp.score(X2, y2) > 0.9


def test_linear_kernel_cannot_solve_xor_and_warns():
    X, y = xor(60)
    with pytest.warns(ConvergenceWarning, match="KernelPerceptron did not converge in max_iter=20"):
        kp = KernelPerceptron(kernel="linear", max_iter=20).fit(X, y)
    assert not kp.converged_
    assert kp.n_iter_ == 20


def test_callable_kernel_and_attributes():
    X, y = circles(80)
    kp = KernelPerceptron(kernel=lambda A, B: (A @ B.T + 1.0) ** 2).fit(X, y)
    ref = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X, y)
    np.testing.assert_array_equal(kp.alpha_, ref.alpha_)
    assert kp.dual_coef_.shape == (1, kp.support_.size)
    assert np.all(np.abs(kp.dual_coef_) >= 1)
    assert kp.intercept_[0] == pytest.approx(np.sum(kp.dual_coef_))
    assert clone(kp).get_params()["max_iter"] == 1000


@pytest.mark.parametrize(
    "params, error",
    [({"kernel": "cosine"}, ValueError), ({"gamma": -1.0}, ValueError), ({"max_iter": 0}, ValueError),
     ({"kernel": lambda A, B: np.ones((2, 2))}, ValueError)],
)
def test_bad_parameters(params, error):
    X, y = circles(20)
    with pytest.raises(error):
        KernelPerceptron(**params).fit(X, y)


def test_not_fitted_and_bad_input():
    with pytest.raises(NotFittedError):
        KernelPerceptron().predict([[0.0, 0.0]])
    with pytest.raises(ValueError, match="at least two classes"):
        KernelPerceptron().fit([[0.0], [1.0]], [1, 1])


@pytest.mark.parametrize("budget_rows", [0, 5])
def test_kernel_rows_on_demand_give_the_same_run(budget_rows, monkeypatch):
    # Beyond a memory budget the Gram matrix is not formed (0.53 GB at n = 8000,
    # 3.2 GB at 20 000); rows computed at each mistake must give the same run.
    import linclf.kernel_perceptron as kp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1).astype(int)
    full = kp.KernelPerceptron(max_iter=30).fit(X, y)
    monkeypatch.setattr(kp, "_GRAM_BUDGET", budget_rows * 8 * 60)
    seen = []
    block = kp.Kernel.block

    def spy(self, A, B):
        seen.append(A.shape[0])
        return block(self, A, B)

    monkeypatch.setattr(kp.Kernel, "block", spy)
    lazy = kp.KernelPerceptron(max_iter=30).fit(X, y)
    assert seen and max(seen) == 1                  # one row at a time, never 60 x 60
    np.testing.assert_array_equal(lazy.alpha_, full.alpha_)
    assert lazy.mistakes_ == full.mistakes_
