"""Tests for linclf.softmax: derivatives, solvers, scikit-learn agreement, K = 2 case."""

import functools
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from linclf._validation import ConvergenceWarning, NotFittedError
from linclf.logistic import LogisticRegression
from linclf.softmax import (
    SoftmaxRegression,
    softmax_hessian,
    softmax_jacobian,
    softmax_loss_and_grad,
)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


@pytest.fixture(scope="module")
def blobs():
    """Three separable blobs."""
    rng = np.random.default_rng(1)
    centers = [(0, 0), (3, 0), (0, 3)]
    X = np.vstack([rng.normal(c, 0.3, (15, 2)) for c in centers])
    return X, np.repeat(["a", "b", "c"], 15)


def _numeric_grad(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("alpha", [0.0, 0.2])
def test_gradient_and_hessian_match_finite_differences(alpha):
    rng = np.random.default_rng(0)
    N, d, K = 12, 3, 4
    X = rng.normal(size=(N, d))
    Y = np.eye(K)[rng.integers(0, K, N)]
    theta = rng.normal(size=(K, d + 1)).ravel()

    def split(th):
        T = th.reshape(K, d + 1)
        return T[:, :d], T[:, d]

    def loss(th):
        return softmax_loss_and_grad(*split(th), X, Y, alpha)[0]

    def grad(th):
        _, gW, gb = softmax_loss_and_grad(*split(th), X, Y, alpha)
        return np.column_stack([gW, gb]).ravel()

    np.testing.assert_allclose(grad(theta), _numeric_grad(loss, theta), rtol=1e-6, atol=1e-9)
    H = softmax_hessian(*split(theta), X, alpha)
    H_numeric = np.array([_numeric_grad(lambda th: grad(th)[i], theta) for i in range(theta.size)])
    np.testing.assert_allclose(H, H_numeric, rtol=1e-5, atol=1e-8)
    # flat directions: shifting every b_k by the same amount (and every w_k when alpha = 0)
    shift_b = np.tile(np.r_[np.zeros(d), 1.0], K)
    np.testing.assert_allclose(H @ shift_b, 0.0, atol=1e-12)
    shift_w = np.tile(np.r_[1.0, np.zeros(d)], K)
    assert np.allclose(H @ shift_w, 0.0, atol=1e-12) == (alpha == 0)


def test_gradient_formula_from_the_book():
    # dL/dW^T = -(1/N) sum_n x_n (y_n - yhat_n)^T
    rng = np.random.default_rng(2)
    X = rng.normal(size=(7, 2))
    Y = np.eye(3)[[0, 1, 2, 0, 1, 2, 0]]
    W, b = rng.normal(size=(3, 2)), rng.normal(size=3)
    Z = X @ W.T + b
    Yhat = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    book = -sum(np.outer(X[n], Y[n] - Yhat[n]) for n in range(7)) / 7
    _, gW, _ = softmax_loss_and_grad(W, b, X, Y)
    np.testing.assert_allclose(gW.T, book, rtol=1e-12)


def test_jacobian():
    yhat = np.array([0.2, 0.3, 0.5])
    J = softmax_jacobian(yhat)
    np.testing.assert_allclose(J, np.diag(yhat) - np.outer(yhat, yhat))
    np.testing.assert_allclose(J.sum(axis=1), 0.0, atol=1e-15)
    assert np.all(np.linalg.eigvalsh(J) >= -1e-15)
    # matches finite differences of the softmax itself
    z = np.log(yhat) + 0.7
    from linclf.special import softmax

    J_num = np.array([_numeric_grad(lambda v: softmax(v)[k], z) for k in range(3)])
    np.testing.assert_allclose(J, J_num, atol=1e-9)
    assert softmax_jacobian(np.tile(yhat, (4, 1))).shape == (4, 3, 3)
    with pytest.raises(ValueError, match="shape"):
        softmax_jacobian(np.ones((2, 2, 2)))


@functools.lru_cache(maxsize=None)
def _sklearn_iris(alpha):
    X, y = load_iris(return_X_y=True)
    return SkLogisticRegression(C=1 / (alpha * len(X)), tol=1e-12, max_iter=100000).fit(X, y)


@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
@pytest.mark.parametrize("alpha", [1e-3, 0.05])
def test_matches_sklearn_multinomial_on_iris(iris, solver, alpha):
    X, y = iris
    sk = _sklearn_iris(alpha)
    ours = SoftmaxRegression(solver=solver, alpha=alpha, max_iter=2000).fit(X, y)
    assert ours.converged_
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-4)
    # scores are defined up to a constant per sample: compare differences between classes
    D, S = ours.decision_function(X), sk.decision_function(X)
    np.testing.assert_allclose(D - D[:, [0]], S - S[:, [0]], atol=1e-3 * np.abs(S).max())
    # with alpha > 0 the W rows sum to zero at the optimum, as in sklearn's symmetric form
    np.testing.assert_allclose(ours.coef_.sum(axis=0), 0.0, atol=1e-8)
    np.testing.assert_allclose(ours.coef_, sk.coef_, atol=1e-3)
    assert (ours.predict(X) == sk.predict(X)).all()


def test_solvers_agree_and_newton_is_fast(iris):
    X, y = iris
    Xs = (X - X.mean(0)) / X.std(0)
    newton = SoftmaxRegression(solver="newton", alpha=0.01).fit(Xs, y)
    lbfgs = SoftmaxRegression(solver="lbfgs", alpha=0.01).fit(Xs, y)
    gd = SoftmaxRegression(solver="gd", alpha=0.01, eta=1.0, max_iter=3000).fit(Xs, y)
    assert newton.n_iter_ <= 15 < lbfgs.n_iter_ < gd.n_iter_
    for other in (lbfgs, gd):
        np.testing.assert_allclose(other.predict_proba(Xs), newton.predict_proba(Xs), atol=1e-6)
    for est in (newton, lbfgs):
        assert np.all(np.diff(est.loss_curve_) <= 1e-14)
        assert est.loss_curve_[0] == pytest.approx(np.log(3))
        assert len(est.loss_curve_) == est.n_iter_ + 1


def test_two_classes_equal_logistic_regression(iris):
    X, y = iris
    X, y = X[50:, :2], y[50:]  # versicolor vs virginica: overlapping, MLE exists
    soft = SoftmaxRegression(solver="newton").fit(X, y)
    logi = LogisticRegression().fit(X, y)
    np.testing.assert_allclose(soft.predict_proba(X), logi.predict_proba(X), atol=1e-8)
    # w = w_2 - w_1; and softmax's alpha on both rows is logistic's alpha / 2 on w
    np.testing.assert_allclose(soft.coef_[1] - soft.coef_[0], logi.coef_[0], rtol=1e-6)
    soft_r = SoftmaxRegression(solver="newton", alpha=0.2).fit(X, y)
    logi_r = LogisticRegression(alpha=0.1).fit(X, y)
    np.testing.assert_allclose(soft_r.predict_proba(X), logi_r.predict_proba(X), atol=1e-8)
    # two classes: one score, the log-odds of classes_[1], as for every binary linclf model
    np.testing.assert_allclose(soft.decision_function(X), logi.decision_function(X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd"])
def test_separable_data_warn_and_stay_finite(blobs, solver):
    X, y = blobs
    with pytest.warns(ConvergenceWarning, match="linearly separable.*alpha > 0"):
        clf = SoftmaxRegression(solver=solver).fit(X, y)
    assert clf.separable_
    assert np.all(np.isfinite(clf.coef_)) and np.all(np.isfinite(clf.intercept_))
    assert np.all(np.isfinite(clf.predict_log_proba(X)))
    assert (clf.predict(X) == y).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = SoftmaxRegression(solver=solver, alpha=0.1, eta=0.5, max_iter=3000).fit(X, y)
    assert not reg.separable_ and reg.converged_


def test_max_iter_warning(iris):
    X, y = iris
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        clf = SoftmaxRegression(solver="gd", max_iter=5).fit(X, y)
    assert clf.n_iter_ == 5 and not clf.converged_


def test_probabilities(iris):
    X, y = iris
    clf = SoftmaxRegression(alpha=0.01).fit(X, y)
    P = clf.predict_proba(X)
    assert P.shape == (150, 3) and clf.coef_.shape == (3, 4) and clf.intercept_.shape == (3,)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.log(P), clf.predict_log_proba(X), rtol=1e-10)
    assert np.all(np.isfinite(clf.predict_log_proba(X * 1e6)))
    assert clf.score(X, y) > 0.95
    assert clf.loss(X, y) == pytest.approx(clf.loss_curve_[-1])


def test_string_labels_and_no_intercept(blobs):
    X, y = blobs
    clf = SoftmaxRegression(alpha=0.1, fit_intercept=False).fit(X, y)
    assert clf.classes_.tolist() == ["a", "b", "c"]
    assert np.all(clf.intercept_ == 0.0)
    sk = SkLogisticRegression(C=1 / (0.1 * len(X)), fit_intercept=False, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), sk.predict_proba(X), atol=1e-5)


@pytest.mark.parametrize(
    "params, exc, match",
    [
        ({"solver": "sgd"}, ValueError, "solver"),
        ({"alpha": -0.1}, ValueError, "alpha"),
        ({"eta": -1.0}, ValueError, "eta"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": np.inf}, ValueError, "tol"),
    ],
)
def test_bad_parameters(blobs, params, exc, match):
    X, y = blobs
    with pytest.raises(exc, match=match):
        SoftmaxRegression(**params).fit(X, y)


def test_bad_data(blobs):
    X, y = blobs
    with pytest.raises(ValueError, match="only one class"):
        SoftmaxRegression().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="NaN"):
        SoftmaxRegression().fit(np.where(X > 2.9, np.nan, X), y)
    with pytest.raises(TypeError, match="real numbers"):
        SoftmaxRegression().fit(X.astype(str).astype(object) + "x", y)
    with pytest.raises(ValueError, match="inconsistent"):
        SoftmaxRegression().fit(X, y[:-1])
    with pytest.raises(NotFittedError):
        SoftmaxRegression().predict_proba(X)
    clf = SoftmaxRegression(alpha=0.1).fit(X, y)
    with pytest.raises(ValueError, match="2 features"):
        clf.predict(np.ones((3, 5)))


def test_gd_step_that_raises_the_loss_is_halved_with_a_warning():
    import warnings

    from linclf import ConvergenceWarning

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3)) * 100 + 1000
    y = np.arange(90) % 3
    X[:, 0] += 50 * y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = SoftmaxRegression(solver="gd", max_iter=50).fit(X, y)
    curve = np.array(m.loss_curve_)
    assert np.all(np.diff(curve) <= 1e-14 * curve[:-1]) and curve[-1] < curve[0]
    msgs = [str(c.message) for c in caught if issubclass(c.category, ConvergenceWarning)]
    assert len(msgs) == 1 and "diverge" in msgs[0] and "Standardise X" in msgs[0]


def test_newton_without_the_dense_hessian_matches_it(monkeypatch):
    # review 2026-11-25, D8: 10 classes x 801 parameters formed a (8010)^2 Hessian and a
    # kron projector as large (2 GB peak). Beyond _DENSE_HESSIAN_MAX parameters Newton
    # solves its system by CG on Hessian-vector products; the answer is the same.
    import linclf.softmax as sm

    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 6))
    y = np.arange(120) % 4
    X[:, 0] += y
    dense = SoftmaxRegression(solver="newton", alpha=0.1).fit(X, y)
    for alpha in (0.1, 0.0):
        monkeypatch.setattr(sm, "_DENSE_HESSIAN_MAX", 10)

        def no_dense(*args, **kwargs):
            raise AssertionError("the dense Hessian was formed")

        monkeypatch.setattr(sm, "softmax_hessian", no_dense)
        monkeypatch.setattr(sm, "_flat_directions_projector", no_dense)
        cg = SoftmaxRegression(solver="newton", alpha=alpha).fit(X, y)
        monkeypatch.undo()
        assert cg.converged_
        ref = dense if alpha else SoftmaxRegression(solver="newton", alpha=0.0).fit(X, y)
        np.testing.assert_allclose(cg.predict_proba(X), ref.predict_proba(X), atol=1e-6)
