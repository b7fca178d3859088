import numpy as np
import pytest

from linclf import ConvergenceWarning
from linclf.datasets import make_gaussian_classes, perceptron_example
from linclf.fisher import FisherLDA
from linclf.geometry import augment, normalize_augmented
from linclf.least_squares import LeastSquaresClassifier, fisher_margins

COV = [[1.5, 0.4], [0.4, 0.6]]


@pytest.fixture(scope="module")
def data():
    # unequal class sizes so that "fisher" margins differ from "ones"
    return make_gaussian_classes(120, [[0.0, 0.0], [1.5, 1.0]], covs=COV, priors=[0.25, 0.75])


def test_pinv_solves_the_normal_equations(data):
    X, y = data
    clf = LeastSquaresClassifier().fit(X, y)
    Y = normalize_augmented(X, y)
    np.testing.assert_allclose(Y.T @ (Y @ clf.a_ - 1.0), 0.0, atol=1e-10)
    np.testing.assert_allclose(clf.a_, np.r_[clf.coef_[0], clf.intercept_])
    np.testing.assert_array_equal(clf.margins_, 1.0)


def test_ones_margins_equal_regression_on_pm1_labels(data):
    X, y = data
    clf = LeastSquaresClassifier(margins="ones").fit(X, y)
    # y_i (x_i, 1)^T a = 1  <=>  (x_i, 1)^T a = y_i  for y_i in {-1, +1}
    a_reg, *_ = np.linalg.lstsq(augment(X), np.where(y == 1, 1.0, -1.0), rcond=None)
    np.testing.assert_allclose(clf.a_, a_reg, atol=1e-12)


def test_fisher_margins_give_fisher_direction_and_mean_threshold(data):
    X, y = data
    mse = LeastSquaresClassifier(margins="fisher").fit(X, y)
    fisher = FisherLDA(threshold="mean").fit(X, y)
    w, w_f = mse.coef_[0], fisher.coef_[0]
    assert w @ w_f / (np.linalg.norm(w) * np.linalg.norm(w_f)) >= 1 - 1e-10
    # threshold: b = -m^T w, m the mean of all samples
    assert mse.intercept_[0] == pytest.approx(-X.mean(axis=0) @ w, rel=1e-10)
    # hence the same decision function up to a positive factor
    ratio = mse.decision_function(X) / fisher.decision_function(X)
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-8)
    assert ratio[0] > 0
    np.testing.assert_array_equal(mse.predict(X), fisher.predict(X))
    # and the "ones" solution is a different rule on unbalanced data
    ones = LeastSquaresClassifier(margins="ones").fit(X, y)
    assert not np.allclose(ones.a_ / np.linalg.norm(ones.a_), mse.a_ / np.linalg.norm(mse.a_))


def test_fisher_margin_values():
    y_pm = np.array([1.0, 1.0, 1.0, -1.0])
    np.testing.assert_allclose(fisher_margins(y_pm), [4 / 3, 4 / 3, 4 / 3, 4.0])


def test_gradient_descent_reaches_pinv_solution(data):
    X, y = data
    ref = LeastSquaresClassifier(margins="fisher").fit(X, y)
    gd = LeastSquaresClassifier(solver="gd", margins="fisher", max_iter=5000, tol=1e-10).fit(X, y)
    assert gd.converged_
    np.testing.assert_allclose(gd.a_, ref.a_, rtol=1e-7, atol=1e-8)
    curve = np.array(gd.loss_curve_)
    assert len(curve) == gd.n_iter_ + 1
    assert np.all(np.diff(curve) <= 1e-12)  # eta = 1/L never increases the loss
    Y = normalize_augmented(X, y)
    assert curve[-1] == pytest.approx(np.sum((Y @ ref.a_ - ref.margins_) ** 2) / len(X), rel=1e-9)


def test_lms_converges_near_pinv_solution(data):
    X, y = data
    ref = LeastSquaresClassifier().fit(X, y)
    # tol is relative to the gradient at a = 0; the decreasing step eta/k leaves a
    # bias that shrinks like 1/k, so LMS needs hundreds of epochs for 1e-3
    lms = LeastSquaresClassifier(solver="lms", max_iter=2000, tol=1e-3).fit(X, y)
    assert lms.converged_ and lms.n_iter_ < 2000
    np.testing.assert_allclose(lms.a_, ref.a_, atol=2e-3)
    coarse = LeastSquaresClassifier(solver="lms", tol=1e-1).fit(X, y)
    assert np.abs(coarse.a_ - ref.a_).max() > np.abs(lms.a_ - ref.a_).max()
    assert lms.loss_curve_[-1] <= lms.loss_curve_[0]
    assert lms.loss_curve_[-1] == pytest.approx(min(lms.loss_curve_), rel=1e-3)
    np.testing.assert_array_equal(lms.predict(X), ref.predict(X))
    with pytest.warns(ConvergenceWarning, match="still .* times its initial norm"):
        LeastSquaresClassifier(solver="lms", max_iter=50, tol=1e-6).fit(X, y)


def test_lms_does_not_claim_convergence_on_a_tiny_step():
    # review 2026-11-25, D3: an offset of 1e6 on one feature makes eta = 1/max||z||^2
    # ~ 1e-12, every epoch moved a by less than tol * ||a||, and the fit reported
    # converged_=True after 2 epochs with a near-zero model (score 0.55 vs 0.96 for pinv)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    X[:, 2] += 1e6
    with pytest.warns(ConvergenceWarning, match="standardise X"):
        lms = LeastSquaresClassifier(solver="lms", max_iter=20).fit(X, y)
    assert not lms.converged_ and lms.n_iter_ == 20


def test_custom_margins_array():
    X, y = perceptron_example()
    b = np.array([1.0, 2.0, 3.0])
    clf = LeastSquaresClassifier(margins=b).fit(X, y)
    # 3 equations, 3 unknowns: solved exactly
    np.testing.assert_allclose(normalize_augmented(X, y) @ clf.a_, b, atol=1e-10)
    np.testing.assert_array_equal(clf.margins_, b)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"solver": "newton"}, "solver must be one of 'pinv', 'gd', 'lms'"),
        ({"margins": "twos"}, "margins must be one of 'ones', 'fisher' or an array of numbers"),
        ({"margins": [1.0, 2.0]}, "margins must be .* \\(one per sample\\)"),
        ({"margins": [1.0, -2.0, 1.0]}, "margins must be finite and > 0"),
        ({"margins": [1.0, np.nan, 1.0]}, "margins must be finite and > 0"),
        ({"solver": "gd", "eta": 0.0}, "eta must be one of 'auto' or a number in \\(0, inf\\)"),
        ({"solver": "gd", "eta": "big"}, "eta must be one of 'auto' or a number"),
        ({"solver": "gd", "eta": 10.0}, "eta=10 is too large: gradient descent diverges"),
        ({"solver": "lms", "eta": 1.0}, "too large for the LMS rule"),
        ({"tol": -1.0}, "tol must be a number in \\[0, inf\\)"),
    ],
)
def test_bad_parameters(params, match):
    X, y = perceptron_example()
    with pytest.raises(ValueError, match=match):
        LeastSquaresClassifier(**params).fit(X, y)


def test_iterative_solvers_warn_when_stopped_early(data):
    X, y = data
    with pytest.warns(ConvergenceWarning, match="solver='gd'.*max_iter=3"):
        clf = LeastSquaresClassifier(solver="gd", max_iter=3).fit(X, y)
    assert clf.n_iter_ == 3 and not clf.converged_
    with pytest.warns(ConvergenceWarning, match="solver='lms'"):
        LeastSquaresClassifier(solver="lms", max_iter=2).fit(X, y)


# ---------------------------------------------------------------------------
# Ho-Kashyap
# ---------------------------------------------------------------------------


def test_ho_kashyap_finds_a_separating_vector():
    from linclf import HoKashyap, Perceptron
    from linclf.datasets import make_separable

    X, y = make_separable(n_samples=60, margin=0.2, random_state=1)
    hk = HoKashyap().fit(X, y)
    assert hk.separable_ is True and hk.score(X, y) == 1.0
    y_pm = np.where(y == hk.classes_[1], 1.0, -1.0)
    Z = np.column_stack([X, np.ones(len(y))]) * y_pm[:, None]
    a = np.r_[hk.coef_[0], hk.intercept_]
    assert np.all(Z @ a > 0)                                     # a separating vector
    assert np.all(hk.margins_ >= 1.0)                            # the margins only grow
    assert Perceptron(max_iter=1000).fit(X, y).score(X, y) == 1.0  # the same verdict


def test_ho_kashyap_proves_non_separability():
    from linclf import HoKashyap
    from linclf.least_squares import ho_kashyap

    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([0, 0, 1, 1])  # XOR
    hk = HoKashyap().fit(X, y)
    assert hk.separable_ is False
    y_pm = np.where(y == 1, 1.0, -1.0)
    Z = np.column_stack([X, np.ones(4)]) * y_pm[:, None]
    a, beta, status, _ = ho_kashyap(Z)
    e = Z @ a - beta
    # the certificate: e <= 0, e != 0 and Z^T e = 0 (no a can make Z a > 0)
    assert status == "not separable" and np.all(e <= 1e-12) and np.linalg.norm(e) > 0.1
    np.testing.assert_allclose(Z.T @ e, 0, atol=1e-10)


def test_ho_kashyap_bad_input():
    from linclf import HoKashyap
    from linclf.least_squares import ho_kashyap

    with pytest.raises(ValueError, match="eta"):
        ho_kashyap(np.eye(3), eta=1.0)
    with pytest.raises(ValueError, match="beta0"):
        ho_kashyap(np.eye(3), beta0=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="finite 2-D"):
        ho_kashyap(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="eta"):
        HoKashyap(eta=1.5).fit(np.eye(2), [0, 1])
