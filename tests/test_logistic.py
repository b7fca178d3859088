"""Tests for linclf.logistic: derivatives, solvers, scikit-learn agreement, separability."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from linclf._validation import ConvergenceWarning, NotFittedError
from linclf.logistic import (
    LogisticRegression,
    logistic_hessian,
    logistic_loss_and_grad,
    wald_table,
)


@pytest.fixture(scope="module")
def overlapping():
    """Two overlapping Gaussian classes: the MLE exists and is unique."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0.0, 1.0, (60, 3)), rng.normal(1.0, 1.0, (60, 3))])
    y = np.repeat(["neg", "pos"], 60)
    return X, y


@pytest.fixture(scope="module")
def separable():
    X = np.array([[0.0, 0.0], [1.0, 0.5], [0.5, 1.0], [3.0, 3.0], [4.0, 3.0], [3.5, 4.0]])
    return X, np.array([0, 0, 0, 1, 1, 1])


def _numeric_grad(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_gradient_and_hessian_match_finite_differences(alpha):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(15, 3))
    y01 = (rng.random(15) < 0.5).astype(float)
    theta = rng.normal(size=4)

    def loss(th):
        return logistic_loss_and_grad(th[:3], th[3], X, y01, alpha)[0]

    def grad(th):
        _, gw, gb = logistic_loss_and_grad(th[:3], th[3], X, y01, alpha)
        return np.append(gw, gb)

    np.testing.assert_allclose(grad(theta), _numeric_grad(loss, theta), rtol=1e-6, atol=1e-9)
    H = logistic_hessian(theta[:3], theta[3], X, alpha)
    H_numeric = np.array([_numeric_grad(lambda th: grad(th)[i], theta) for i in range(4)])
    np.testing.assert_allclose(H, H_numeric, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(H, H.T)
    assert H[3, 3] == pytest.approx(np.mean(1 / (1 + np.exp(-(X @ theta[:3] + theta[3]))) *
                                            (1 - 1 / (1 + np.exp(-(X @ theta[:3] + theta[3]))))))
    assert logistic_hessian(theta[:3], theta[3], X, alpha, fit_intercept=False).shape == (3, 3)


def test_loss_is_cross_entropy():
    X = np.array([[1.0], [-2.0]])
    y01 = np.array([1.0, 0.0])
    loss, gw, gb = logistic_loss_and_grad(np.array([0.5]), 0.25, X, y01, alpha=2.0)
    p = 1 / (1 + np.exp(-np.array([0.75, -0.75])))
    expected = -(np.log(p[0]) + np.log(1 - p[1])) / 2 + 0.5 * 2.0 * 0.25
    assert loss == pytest.approx(expected, rel=1e-14)
    assert gb == pytest.approx(((p[0] - 1) + p[1]) / 2)


@pytest.mark.parametrize("solver", ["newton", "gd"])
def test_matches_sklearn_without_penalty(overlapping, solver):
    X, y = overlapping
    sk = SkLogisticRegression(C=np.inf, tol=1e-10, max_iter=10000).fit(X, y)
    kw = dict(eta=2.0, max_iter=5000) if solver == "gd" else {}
    ours = LogisticRegression(solver=solver, **kw).fit(X, y)
    assert ours.converged_ and not ours.separable_
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-4)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, rtol=1e-4)
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-5)
    assert (ours.predict(X) == sk.predict(X)).all()
    assert list(ours.classes_) == ["neg", "pos"]


def test_matches_sklearn_with_l2_penalty(overlapping):
    X, y = overlapping
    alpha = 0.05
    sk = SkLogisticRegression(C=1 / (alpha * len(X)), tol=1e-12, max_iter=10000).fit(X, y)
    ours = LogisticRegression(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=1e-6)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, rtol=1e-6)
    # gradient is zero at the optimum, including the alpha * w term
    loss, gw, gb = logistic_loss_and_grad(ours.coef_[0], ours.intercept_[0], X,
                                          (y == "pos").astype(float), alpha)
    assert np.linalg.norm(np.append(gw, gb)) < 1e-8
    assert ours.loss(X, y) == pytest.approx(loss)


def test_newton_is_fast_and_loss_decreases(overlapping):
    X, y = overlapping
    newton = LogisticRegression().fit(X, y)
    assert newton.n_iter_ <= 10
    assert len(newton.loss_curve_) == newton.n_iter_ + 1
    assert np.all(np.diff(newton.loss_curve_) <= 1e-15)
    assert newton.loss_curve_[0] == pytest.approx(np.log(2))  # w = 0, b = 0
    gd = LogisticRegression(solver="gd", eta=0.5, max_iter=20)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        gd.fit(X, y)
    assert gd.n_iter_ == 20 and len(gd.loss_curve_) == 21 and not gd.converged_


def test_newton_from_far_away_does_not_diverge():
    # Pure Newton overshoots on badly scaled data; the line search keeps the loss decreasing.
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (40, 2)), rng.normal(0.5, 1, (40, 2))]) * 1e3
    y = np.repeat([0, 1], 40)
    clf = LogisticRegression().fit(X, y)
    assert clf.converged_
    assert np.all(np.diff(clf.loss_curve_) <= 1e-12)
    assert np.all(np.isfinite(clf.coef_))


@pytest.mark.parametrize("solver", ["newton", "gd"])
def test_separable_data_warn_and_stay_finite(separable, solver):
    X, y = separable
    with pytest.warns(ConvergenceWarning, match="linearly separable.*alpha > 0"):
        clf = LogisticRegression(solver=solver).fit(X, y)
    assert clf.separable_
    for arr in (clf.coef_, clf.intercept_, clf.predict_proba(X), clf.predict_log_proba(X)):
        assert np.all(np.isfinite(arr))
    assert (clf.predict(X) == y).all()
    assert clf.loss_curve_[-1] < clf.loss_curve_[0]
    # a penalty makes the solution exist: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = LogisticRegression(solver="newton", alpha=0.1).fit(X, y)
    assert reg.converged_ and not reg.separable_


def test_separable_newton_weights_grow_then_stop(separable):
    X, y = separable
    with pytest.warns(ConvergenceWarning):
        clf = LogisticRegression(max_iter=1000).fit(X, y)
    assert clf.n_iter_ < 1000  # stopped by the divergence test, not by max_iter
    assert clf.loss_curve_[-1] < 1e-6
    with pytest.warns(ConvergenceWarning):
        short = LogisticRegression(max_iter=3).fit(X, y)
    assert np.linalg.norm(clf.coef_) > np.linalg.norm(short.coef_)


def test_predict_proba_and_log_proba(overlapping):
    X, y = overlapping
    clf = LogisticRegression(alpha=0.01).fit(X, y)
    P = clf.predict_proba(X)
    assert P.shape == (len(X), 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.log(P), clf.predict_log_proba(X), rtol=1e-12)
    f = clf.decision_function(X)
    np.testing.assert_allclose(P[:, 1], 1 / (1 + np.exp(-f)))
    assert clf.coef_.shape == (1, 3) and clf.intercept_.shape == (1,)
    # extreme inputs: probabilities are exact 0/1, logs finite
    far = np.array([[1e6, 1e6, 1e6], [-1e6, -1e6, -1e6]])
    assert np.all(np.isfinite(clf.predict_log_proba(far)))


def test_no_intercept():
    X = np.array([[1.0], [2.0], [-1.0], [-3.0], [0.5], [-0.5]])
    y = np.array([1, 0, 0, 1, 1, 0])
    clf = LogisticRegression(fit_intercept=False).fit(X, y)
    assert clf.intercept_.tolist() == [0.0]
    sk = SkLogisticRegression(C=np.inf, fit_intercept=False, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(clf.coef_, sk.coef_, rtol=1e-5)


def test_any_two_labels_and_score(overlapping):
    X, y = overlapping
    y_bool = y == "pos"
    clf = LogisticRegression(alpha=0.01).fit(X, y_bool)
    assert clf.classes_.tolist() == [False, True]
    assert 0.6 < clf.score(X, y_bool) <= 1.0


@pytest.mark.parametrize(
    "params, exc, match",
    [
        ({"solver": "lbfgs"}, ValueError, "solver"),
        ({"alpha": -1.0}, ValueError, "alpha"),
        ({"alpha": np.nan}, ValueError, "alpha"),
        ({"alpha": "big"}, TypeError, "alpha"),
        ({"eta": 0.0}, ValueError, "eta"),
        ({"max_iter": 2.5}, TypeError, "max_iter"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1e-3}, ValueError, "tol"),
        ({"fit_intercept": "yes"}, TypeError, "fit_intercept"),
    ],
)
def test_bad_parameters(overlapping, params, exc, match):
    X, y = overlapping
    with pytest.raises(exc, match=match):
        LogisticRegression(**params).fit(X, y)


def test_bad_data():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="only one class"):
        LogisticRegression().fit(X, [1, 1, 1])
    with pytest.raises(ValueError, match="binary"):
        LogisticRegression().fit(X, [0, 1, 2])
    with pytest.raises(ValueError, match="NaN"):
        LogisticRegression().fit([[0.0, np.nan], [1.0, 0.0]], [0, 1])
    with pytest.raises(TypeError, match="real numbers"):
        LogisticRegression().fit([["a", "b"], ["c", "d"]], [0, 1])
    with pytest.raises(ValueError, match="inconsistent"):
        LogisticRegression().fit(X, [0, 1])
    with pytest.raises(ValueError, match="2-D"):
        LogisticRegression().fit([0.0, 1.0, 2.0], [0, 1, 1])
    with pytest.raises(NotFittedError):
        LogisticRegression().predict(X)
    with pytest.raises(NotFittedError):
        LogisticRegression().predict_proba(X)
    clf = LogisticRegression(alpha=1.0).fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="3 features"):
        clf.predict_proba(np.ones((2, 3)))
    with pytest.raises(ValueError, match="labels from"):
        clf.loss(X, [0, 1, 5])


def test_params_roundtrip():
    clf = LogisticRegression(solver="gd", alpha=0.5)
    assert clf.get_params()["alpha"] == 0.5
    clf.set_params(solver="newton")
    assert clf.solver == "newton"
    from sklearn.base import clone

    assert clone(clf).get_params() == clf.get_params()


# -- standard errors and Wald tests -------------------------------------------------


def _neg_log_likelihood(a, X_tilde, t):
    """Summed negative log-likelihood, written independently of linclf."""
    f = X_tilde @ a
    return float(np.sum(np.logaddexp(0.0, f) - t * f))


def test_wald_table_matches_an_independent_computation(overlapping):
    from scipy.optimize import minimize
    from scipy.stats import norm

    X, y = overlapping
    t = (y == "pos").astype(float)
    model = LogisticRegression().fit(X, y)
    table = wald_table(model, X, y)
    X_tilde = np.c_[X, np.ones(len(X))]
    # the MLE by a different optimiser, and the Hessian by finite differences
    mle = minimize(_neg_log_likelihood, np.zeros(4), args=(X_tilde, t), method="BFGS", tol=1e-10).x
    np.testing.assert_allclose(table["coef"], mle, atol=1e-4)
    hess = np.array([_numeric_grad(lambda a: _numeric_grad(
        lambda b: _neg_log_likelihood(b, X_tilde, t), a, h=1e-4)[i], table["coef"], h=1e-4)
        for i in range(4)])
    np.testing.assert_allclose(table["cov"], np.linalg.inv(hess), rtol=1e-3)
    np.testing.assert_allclose(table["se"], np.sqrt(np.diag(np.linalg.inv(hess))), rtol=1e-3)
    np.testing.assert_allclose(table["z"], table["coef"] / table["se"])
    np.testing.assert_allclose(table["p_value"], 2 * norm.sf(np.abs(table["z"])), rtol=1e-10)
    q = norm.ppf(0.975)
    np.testing.assert_allclose(table["ci_low"], table["coef"] - q * table["se"])
    np.testing.assert_allclose(table["ci_high"], table["coef"] + q * table["se"])
    narrow = wald_table(model, X, y, level=0.5)
    np.testing.assert_allclose(narrow["ci_high"] - narrow["coef"], norm.ppf(0.75) * table["se"])


def test_wald_table_matches_statsmodels(overlapping):
    sm = pytest.importorskip("statsmodels.api")
    X, y = overlapping
    t = (y == "pos").astype(float)
    table = wald_table(LogisticRegression().fit(X, y), X, y)
    res = sm.Logit(t, np.c_[X, np.ones(len(X))]).fit(disp=0, tol=1e-12)
    np.testing.assert_allclose(table["coef"], res.params, rtol=1e-6)
    np.testing.assert_allclose(table["se"], res.bse, rtol=1e-6)
    np.testing.assert_allclose(table["p_value"], res.pvalues, rtol=1e-5)
    np.testing.assert_allclose(np.c_[table["ci_low"], table["ci_high"]], res.conf_int(0.05), rtol=1e-6)


def test_standard_errors_match_the_spread_over_simulated_data_sets():
    # Parametric simulation: X fixed, labels redrawn from a known logistic model.
    rng = np.random.default_rng(11)
    N, n_sim = 300, 200
    X = rng.normal(size=(N, 2))
    a_true = np.array([1.0, -0.5, 0.3])
    prob = 1 / (1 + np.exp(-(np.c_[X, np.ones(N)] @ a_true)))
    estimates, se, covered = [], [], []
    for _ in range(n_sim):
        t = (rng.random(N) < prob).astype(int)
        table = wald_table(LogisticRegression().fit(X, t), X, t)
        estimates.append(table["coef"])
        se.append(table["se"])
        covered.append((table["ci_low"] <= a_true) & (a_true <= table["ci_high"]))
    ratio = np.std(estimates, axis=0, ddof=1) / np.mean(se, axis=0)
    assert np.all(np.abs(ratio - 1) < 0.15), ratio
    assert np.all(np.abs(np.mean(covered, axis=0) - 0.95) < 0.05)


def test_wald_table_without_intercept_and_refusals(overlapping, separable):
    X, y = overlapping
    table = wald_table(LogisticRegression(fit_intercept=False).fit(X, y), X, y)
    assert table["coef"].shape == table["se"].shape == (3,) and table["cov"].shape == (3, 3)
    with pytest.raises(ValueError, match="alpha=0"):
        wald_table(LogisticRegression(alpha=0.1).fit(X, y), X, y)
    with pytest.raises(ValueError, match=r"level must lie in \(0, 1\)"):
        wald_table(LogisticRegression().fit(X, y), X, y, level=1.0)
    with pytest.raises(TypeError, match="level"):
        wald_table(LogisticRegression().fit(X, y), X, y, level="95%")
    with pytest.raises(TypeError, match="LogisticRegression"):
        wald_table(SkLogisticRegression().fit(X, y), X, y)
    with pytest.raises(NotFittedError):
        wald_table(LogisticRegression(), X, y)
    Xs, ys = separable
    with pytest.warns(ConvergenceWarning):
        sep = LogisticRegression().fit(Xs, ys)
    with pytest.raises(ValueError, match="does not exist"):
        wald_table(sep, Xs, ys)
    with pytest.raises(ValueError, match="features"):
        wald_table(LogisticRegression().fit(X, y), X[:, :2], y)
    # other data of the same width: the fit is not their maximum-likelihood estimate
    with pytest.raises(ValueError, match="not the maximum-likelihood fit"):
        wald_table(LogisticRegression().fit(X, y), X[::-1] + 0.5, y)


def test_gd_does_not_diverge_and_says_why():
    # review 2026-11-25, D9: eta=0.1 on X * 100 + 1000 took the loss from 0.69 to ~3e4 and
    # the warning advised "a larger max_iter"
    import warnings

    from linclf import ConvergenceWarning

    X = np.random.default_rng(0).normal(size=(80, 3)) * 100 + 1000
    y = (X[:, 0] > 1000).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = LogisticRegression(solver="gd").fit(X, y)
    curve = np.array(m.loss_curve_)
    assert np.all(np.diff(curve) <= 1e-14 * curve[:-1]) and curve[-1] < curve[0]
    msgs = [str(c.message) for c in caught if issubclass(c.category, ConvergenceWarning)]
    assert len(msgs) == 1 and "diverge" in msgs[0] and "Standardise X" in msgs[0]
    assert "smaller eta" in msgs[0] and "max_iter" not in msgs[0].split("and the step")[-1]


def test_tol_is_relative_to_the_initial_gradient():
    # features of size 1e-8: the gradient at w = 0 is ~1e-9, so an absolute tol=1e-8
    # stopped at once at the zero model; a relative one goes on to the optimum
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)
    big = LogisticRegression().fit(X, y)
    tiny = LogisticRegression().fit(X * 1e-8, y)
    assert tiny.converged_ and tiny.n_iter_ > 0
    np.testing.assert_allclose(tiny.coef_ * 1e-8, big.coef_, rtol=1e-6)
