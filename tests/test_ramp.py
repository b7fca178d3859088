"""The ramp loss and RampSVM (CCCP): values, descent, robustness, local optimality, errors."""

import numpy as np
import pytest

from linclf import SVC, ConvergenceWarning, RampSVM
from linclf.datasets import make_gaussian_classes
from linclf.losses import hinge, ramp, ramp_grad, zero_one


def test_ramp_is_a_capped_hinge_and_a_difference_of_hinges():
    m = np.linspace(-5, 3, 161)
    for s in (-1.0, -0.5, 0.0, 0.5):
        assert np.allclose(ramp(m, s=s), hinge(m) - np.maximum(0.0, s - m))
        assert np.allclose(ramp(m, s=s), np.minimum(1 - s, hinge(m)))
        assert ramp(m, s=s).max() == pytest.approx(1 - s)
    assert np.all(ramp(m) >= zero_one(m))               # s = -1: an upper bound of the 0-1 loss
    assert np.any(ramp(m, s=0.5) < zero_one(m))         # s > 0 caps below 1: no longer a bound
    # not convex: the midpoint of m = -3 and m = 1 lies above the chord
    assert ramp(-1.0) > 0.5 * (ramp(-3.0) + ramp(1.0))


def test_ramp_grad_matches_central_differences_away_from_the_kinks():
    m = np.array([-4.0, -1.5, -0.7, 0.0, 0.4, 0.99, 1.5, 7.0])
    h = 1e-6
    fd = (ramp(m + h) - ramp(m - h)) / (2 * h)
    assert np.allclose(ramp_grad(m), fd, atol=1e-6)
    assert ramp_grad(1.0) == -1.0 and ramp_grad(-1.0) == 0.0      # the documented kink choices


@pytest.mark.parametrize("bad, exc", [(1.0, ValueError), (2.0, ValueError), (np.nan, ValueError),
                                      ("a", TypeError), (True, TypeError)])
def test_ramp_refuses_a_bad_corner(bad, exc):
    with pytest.raises(exc, match="s must"):
        ramp(0.0, s=bad)


def _data(seed=0, n_flip=0):
    X, y = make_gaussian_classes(80, [[0.0, 0.0], [3.0, 3.0]], covs=0.6, random_state=seed)
    X_far = np.tile([[9.0, 9.0]], (n_flip, 1)) + 0.3 * np.arange(n_flip)[:, None]
    return np.vstack([X, X_far]), np.r_[y, np.zeros(n_flip, dtype=y.dtype)]


def _angle(u, v):
    return np.degrees(np.arccos(np.clip(u @ v / np.linalg.norm(u) / np.linalg.norm(v), -1, 1)))


def test_without_far_points_it_is_the_hinge_svm():
    X, y = _data()
    clf = RampSVM(C=1.0).fit(X, y)
    svm = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)
    assert not clf.dropped_.any() and clf.n_iter_ == 1          # one refit on all points, then the set repeats
    assert np.allclose(clf.coef_, svm.coef_, atol=1e-5)
    assert np.isclose(clf.objective_path_[-1], clf.objective_path_[0])


def test_mislabelled_far_points_are_dropped_and_the_boundary_recovers():
    X_clean, y_clean = _data()
    X, y = _data(n_flip=4)
    clean = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X_clean, y_clean)
    hinge_svm = SVC(kernel="linear", C=1.0, tol=1e-6).fit(X, y)
    clf = RampSVM(C=1.0).fit(X, y)
    assert clf.dropped_[-4:].all()
    assert _angle(clf.coef_[0], clean.coef_[0]) < 0.1 * _angle(hinge_svm.coef_[0], clean.coef_[0])
    assert np.all(np.diff(clf.objective_path_) <= 1e-9)           # CCCP never goes up
    assert clf.objective_path_[-1] < clf.objective_path_[0]
    assert clf.objective(X, y) == pytest.approx(clf.objective_path_[-1])


def test_the_result_is_a_local_minimum_of_the_ramp_objective():
    X, y = _data(seed=3, n_flip=3)
    clf = RampSVM(C=2.0).fit(X, y)
    w, b = clf.coef_[0], clf.intercept_[0]
    J0 = clf.objective(X, y)
    rng = np.random.default_rng(0)
    for _ in range(300):
        d = 1e-4 * rng.normal(size=3)
        assert clf.objective(X, y, w + d[:2], b + d[2]) >= J0 - 1e-9
    # independent twin: a derivative-free minimiser started at the result finds nothing lower
    from scipy.optimize import minimize
    res = minimize(lambda a: clf.objective(X, y, a[:2], a[2]), np.r_[w, b], method="Nelder-Mead",
                   options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
    assert res.fun >= J0 * (1 - 1e-6)                         # the inner SMO stops at tol 1e-6


def test_errors_are_clear():
    X, y = _data()
    with pytest.raises(ValueError, match="s"):
        RampSVM(s=1.0).fit(X, y)
    with pytest.raises(ValueError, match="C"):
        RampSVM(C=0.0).fit(X, y)
    with pytest.raises(ValueError):
        RampSVM().fit(X, np.arange(len(y)) % 3)


def test_a_class_dropped_whole_gives_the_exact_constant_cccp_step():
    # A lone positive point amid the negatives: the hinge fit (w = 0, b = -1)
    # puts it below s. The convex step on the negatives alone is minimised by
    # w = 0, b = -1; fit must return that (with a warning), as any well-formed
    # data must fit (scikit-learn's check_estimator fits random labels).
    X_bad = np.array([[-2.0], [-1.0], [0.0], [1.0], [2.0]])
    y_bad = np.array([0, 0, 1, 0, 0])
    with pytest.warns(UserWarning, match="constant classifier predicting 0"):
        clf = RampSVM(C=1.0, s=0.9).fit(X_bad, y_bad)
    np.testing.assert_array_equal(clf.coef_, [[0.0]])
    assert clf.intercept_[0] == -1.0
    assert np.all(np.diff(clf.objective_path_) <= 1e-9)
    np.testing.assert_array_equal(clf.predict(X_bad), np.zeros(5))


def test_objective_refuses_unknown_labels_and_an_unfitted_model():
    from linclf import NotFittedError

    X, y = _data()
    with pytest.raises(NotFittedError):
        RampSVM().objective(X, y)
    clf = RampSVM().fit(X, y)
    with pytest.raises(ValueError, match="labels from"):
        clf.objective(X, y + 5)
    with pytest.raises(ValueError, match="2 entries"):
        clf.objective(X, y, w=[1.0, 2.0, 3.0], b=0.0)
    # the fitted C and s, not parameters changed afterwards
    J = clf.objective(X, y)
    assert clf.set_params(C=100.0).objective(X, y) == J


def test_the_warnings_are_raised():
    X, y = _data(n_flip=4)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        RampSVM(C=1.0, max_iter=1).fit(X, y)
