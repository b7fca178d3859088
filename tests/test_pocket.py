import warnings

import numpy as np
import pytest

from linclf import ConvergenceWarning, PocketPerceptron
from linclf.datasets import make_gaussian_classes, make_separable
from linclf.perceptron import Perceptron


@pytest.fixture(scope="module")
def noisy():
    """Overlapping Gaussian classes: not linearly separable."""
    return make_gaussian_classes(120, [[0.0, 0.0], [1.5, 1.0]], random_state=3)


def _errors(X, y, w, b):
    """Brute-force training errors of the rule 'classes_[1] where w.x + b > 0'."""
    classes = np.unique(y)
    pred = np.where(X @ w + b > 0, classes[1], classes[0])
    return int(np.sum(pred != y))


def test_separable_data_reach_zero_errors():
    X, y = make_separable(80, margin=0.3, random_state=1)
    clf = PocketPerceptron(random_state=0).fit(X, y)
    assert clf.converged_ and clf.n_errors_ == 0
    assert clf.score(X, y) == 1.0
    assert clf.pocket_errors_[-1] == 0 and len(clf.errors_) == clf.n_iter_


def test_noisy_data_pocket_beats_last_iterate_and_recount(noisy):
    X, y = noisy
    clf = PocketPerceptron(max_iter=30, random_state=5).fit(X, y)
    assert not clf.converged_ and clf.n_iter_ == 30
    recount = _errors(X, y, clf.coef_[0], clf.intercept_[0])
    assert clf.n_errors_ == recount == np.sum(clf.predict(X) != y)
    last = _errors(X, y, clf.last_coef_[0], clf.last_intercept_[0])
    assert clf.n_errors_ <= last and clf.errors_[-1] == last
    assert np.all(np.diff(clf.pocket_errors_) <= 0)
    assert np.all(clf.pocket_errors_ <= clf.errors_)
    assert clf.pocket_errors_[-1] == clf.n_errors_


def test_pocket_is_the_best_iterate_of_the_same_perceptron_run(noisy):
    """Independent reference: the traced plain perceptron with the same seed, every iterate recounted."""
    X, y = noisy
    for order in ("shuffle", "cyclic"):
        clf = PocketPerceptron(max_iter=15, order=order, random_state=11).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ref = Perceptron(max_iter=15, order=order, random_state=11, trace=True).fit(X, y)
        counts = [_errors(X, y, u["w"], u["b"]) for u in ref.updates_]
        start = _errors(X, y, np.zeros(2), 0.0)
        assert clf.n_errors_ == min([start] + counts)
        first_best = int(np.argmin(counts))
        np.testing.assert_allclose(clf.coef_[0], ref.updates_[first_best]["w"])
        np.testing.assert_allclose(clf.last_coef_, ref.coef_)
        np.testing.assert_allclose(clf.last_intercept_, ref.intercept_)
        assert clf.n_updates_ == ref.n_updates_


def test_eta_only_rescales(noisy):
    X, y = noisy
    one = PocketPerceptron(max_iter=10, random_state=2).fit(X, y)
    three = PocketPerceptron(max_iter=10, random_state=2, eta=3.0).fit(X, y)
    np.testing.assert_allclose(three.coef_, 3.0 * one.coef_)
    assert three.n_errors_ == one.n_errors_
    np.testing.assert_array_equal(three.errors_, one.errors_)


def test_random_state_reproducibility(noisy):
    X, y = noisy
    a = PocketPerceptron(max_iter=10, random_state=7).fit(X, y)
    b = PocketPerceptron(max_iter=10, random_state=7).fit(X, y)
    c = PocketPerceptron(max_iter=10, random_state=8).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.errors_, b.errors_)
    assert not np.array_equal(a.errors_, c.errors_)
    gen = PocketPerceptron(max_iter=10, random_state=np.random.default_rng(7)).fit(X, y)
    np.testing.assert_array_equal(gen.coef_, a.coef_)


def test_string_labels_and_sklearn_twin(noisy):
    """Same last iterate as scikit-learn's Perceptron run cyclically without shuffling."""
    sklearn_linear = pytest.importorskip("sklearn.linear_model")
    X, y = noisy
    labels = np.array(["neg", "pos"])[y]
    clf = PocketPerceptron(max_iter=5, order="cyclic").fit(X, labels)
    assert set(clf.predict(X)) <= {"neg", "pos"}
    assert clf.n_errors_ == np.sum(clf.predict(X) != labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = sklearn_linear.Perceptron(max_iter=5, tol=None, shuffle=False, eta0=1.0).fit(X, y)
    # scikit-learn updates on y f <= 0 as well; its coef_ after 5 epochs is our last iterate
    np.testing.assert_allclose(clf.last_coef_, sk.coef_)
    np.testing.assert_allclose(clf.last_intercept_, sk.intercept_)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"eta": 0.0}, ValueError, "PocketPerceptron: eta must be a number in \\(0, inf\\)"),
        ({"eta": "big"}, TypeError, "eta must be a number"),
        ({"order": "random"}, ValueError, "order must be one of 'shuffle', 'cyclic'"),
        ({"max_iter": 0}, ValueError, "max_iter must be an integer in \\[1, inf\\)"),
        ({"max_iter": 2.5}, TypeError, "max_iter must be an integer"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
)
def test_bad_parameters(params, error, match, noisy):
    X, y = noisy
    with pytest.raises(error, match=match):
        PocketPerceptron(**params).fit(X, y)


def test_bad_data(noisy):
    X, y = noisy
    with pytest.raises(ValueError):
        PocketPerceptron().fit(X, np.arange(len(y)) % 3)          # three classes
    with pytest.raises(ValueError):
        PocketPerceptron().fit(X[:-1], y)                         # lengths differ
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError):
        PocketPerceptron().fit(X_nan, y)
    clf = PocketPerceptron(max_iter=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError):
        clf.predict(np.ones((2, 3)))                              # wrong number of features
