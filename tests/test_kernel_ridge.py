"""KernelRidgeClassifier: the representer solution equals the primal ridge solution and scikit-learn's."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.kernel_ridge import KernelRidge

from linclf import KernelRidgeClassifier, NotFittedError
from linclf.datasets import make_circles
from linclf.feature_maps import polynomial_features


def _data(seed=0, n=30, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("kernel, params", [("rbf", {"gamma": 0.4}), ("poly", {"degree": 3, "gamma": 0.7, "coef0": 1.0}),
                                            ("laplacian", {"gamma": 0.5}), ("linear", {})])
@pytest.mark.parametrize("lam", [1e-3, 0.1, 2.0])
def test_matches_sklearn_kernel_ridge(kernel, params, lam):
    X, y = _data(1)
    X_new = np.random.default_rng(2).normal(size=(15, 3))
    ours = KernelRidgeClassifier(alpha=lam, kernel=kernel, **params).fit(X, y)
    theirs = KernelRidge(alpha=len(X) * lam, kernel=kernel, **params).fit(X, y.astype(float))
    np.testing.assert_allclose(ours.dual_coef_[0], theirs.dual_coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ours.decision_function(X_new), theirs.predict(X_new), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("lam", [1e-4, 0.05, 1.0])
def test_equals_primal_ridge_in_feature_space(lam):
    # the polynomial kernel with coef0 = 1 and its explicit map: the feature-space ridge
    # w = (Phi'Phi + N lam I)^-1 Phi'y gives the same scores, and w = Phi' alpha
    X, y = _data(3, n=25)
    Phi = polynomial_features(X, degree=4, coef0=1.0)
    assert Phi.shape[1] > len(X)                       # more features than points
    n, D = Phi.shape
    w = np.linalg.solve(Phi.T @ Phi + n * lam * np.eye(D), Phi.T @ y)
    model = KernelRidgeClassifier(alpha=lam, kernel="poly", degree=4, gamma=1.0, coef0=1.0).fit(X, y)
    X_new = np.random.default_rng(4).normal(size=(10, 3))
    np.testing.assert_allclose(model.decision_function(X_new), polynomial_features(X_new, 4) @ w,
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(Phi.T @ model.dual_coef_[0], w, rtol=1e-6, atol=1e-8)
    J = 0.5 * np.mean((Phi @ w - y) ** 2) + lam / 2 * w @ w
    assert model.objective_ == pytest.approx(J, rel=1e-8)


def test_objective_is_minimal():
    X, y = _data(5)
    model = KernelRidgeClassifier(alpha=0.1, kernel="rbf", gamma=0.5).fit(X, y)
    K = model.kernel_(X, X)
    alpha = model.dual_coef_[0]

    def J(a):
        return 0.5 * np.mean((K @ a - y) ** 2) + 0.05 * a @ K @ a

    assert J(alpha) == pytest.approx(model.objective_)
    rng = np.random.default_rng(0)
    assert all(J(alpha + 1e-3 * rng.normal(size=len(X))) > J(alpha) for _ in range(20))


def test_labels_and_fit_quality():
    X, y = make_circles(120, noise=0.05, factor=0.5, random_state=0)
    labels = np.array(["in", "out"])[y]
    model = KernelRidgeClassifier(alpha=1e-3, kernel="rbf", gamma=2.0).fit(X, labels)
    assert list(model.classes_) == ["in", "out"]
    assert model.score(X, labels) == 1.0
    scores = model.decision_function(X)
    np.testing.assert_array_equal(model.predict(X), model.classes_[(scores > 0).astype(int)])


def test_parameters_are_stored_and_validated():
    model = KernelRidgeClassifier(alpha=0.5, kernel="poly", degree=2)
    assert model.get_params()["alpha"] == 0.5 and clone(model).get_params() == model.get_params()
    X, y = _data(0)
    with pytest.raises(ValueError, match="alpha"):
        KernelRidgeClassifier(alpha=0.0).fit(X, y)
    with pytest.raises(TypeError, match="alpha"):
        KernelRidgeClassifier(alpha="big").fit(X, y)
    with pytest.raises(ValueError):
        KernelRidgeClassifier(kernel="nope").fit(X, y)
    with pytest.raises(ValueError):
        KernelRidgeClassifier().fit(X, np.arange(len(X)) % 3)     # three classes
    with pytest.raises(NotFittedError):
        KernelRidgeClassifier().decision_function(X)
    fitted = KernelRidgeClassifier().fit(X, y)
    with pytest.raises(ValueError):
        fitted.decision_function(X[:, :2])


def test_singular_system_is_a_value_error():
    # a "kernel" that is the negative identity on the data makes K + N lam I singular
    def minus_eye(A, B):
        return -float(len(A)) * 0.5 * (np.abs(A[:, None, 0] - B[None, :, 0]) < 1e-12)

    X = np.arange(6.0)[:, None]
    y = np.array([1, -1, 1, -1, 1, -1])
    with pytest.raises(ValueError, match="singular"):
        KernelRidgeClassifier(alpha=0.5, kernel=minus_eye).fit(X, y)
