import numpy as np
import pytest

from linclf import NotFittedError
from linclf.datasets import load_iris, make_gaussian_classes
from linclf.least_squares import LeastSquaresClassifier
from linclf.multiclass import OneVsOne, OneVsRest, ambiguous_fraction, clone_estimator
from linclf.perceptron import LinearMachine, Perceptron


@pytest.fixture(scope="module")
def blobs():
    means = [[0.0, 3.0], [-3.0, -1.5], [3.0, -1.5]]
    X, y = make_gaussian_classes(150, means, covs=0.6, random_state=1)
    names = np.array(["north", "west", "east"])
    return X, names[y]


@pytest.fixture(scope="module")
def grid():
    u = np.linspace(-8, 8, 121)
    return np.array(np.meshgrid(u, u)).reshape(2, -1).T


def test_clone_estimator_copies_parameters_not_state():
    base = Perceptron(eta=0.5, margin=1.0)
    c = clone_estimator(base)
    assert c is not base and type(c) is Perceptron
    assert c.get_params() == base.get_params()
    base.fit([[0.0], [1.0]], [0, 1])
    assert not hasattr(clone_estimator(base), "coef_")
    with pytest.raises(TypeError, match="estimator instance with get_params"):
        clone_estimator(Perceptron)


def test_one_vs_rest_structure_and_prediction(blobs, grid):
    X, y = blobs
    ovr = OneVsRest(LeastSquaresClassifier()).fit(X, y)
    np.testing.assert_array_equal(ovr.classes_, ["east", "north", "west"])
    assert len(ovr.estimators_) == 3
    assert len({id(e) for e in ovr.estimators_}) == 3
    assert not hasattr(ovr.estimator, "coef_")  # the template is never fitted
    for j, est in enumerate(ovr.estimators_):
        # classifier j says +1 for classes_[j]
        np.testing.assert_array_equal(est.classes_, [-1, 1])
        assert np.mean(est.predict(X[y == ovr.classes_[j]]) == 1) > 0.9
    scores = ovr.decision_function(X)
    assert scores.shape == (150, 3)
    np.testing.assert_array_equal(ovr.predict(X), ovr.classes_[scores.argmax(axis=1)])
    assert ovr.score(X, y) > 0.95
    flags = ovr.ambiguity(grid)
    np.testing.assert_array_equal(flags, (ovr.decision_function(grid) > 0).sum(axis=1) != 1)
    frac = ambiguous_fraction(ovr, grid)
    assert frac == pytest.approx(flags.mean())
    assert 0.0 < frac < 1.0  # three "one against the rest" lines leave gaps and overlaps


def test_one_vs_one_structure_votes_and_ties(blobs, grid):
    X, y = blobs
    ovo = OneVsOne(LeastSquaresClassifier()).fit(X, y)
    assert len(ovo.estimators_) == 3
    assert ovo.pairs_ == [(0, 1), (0, 2), (1, 2)]
    votes, confidence = ovo.votes(grid)
    np.testing.assert_array_equal(votes.sum(axis=1), 3)
    np.testing.assert_allclose(confidence.sum(axis=1), 0.0, atol=1e-9)
    pred = ovo.predict(grid)
    top = votes == votes.max(axis=1, keepdims=True)
    idx = np.searchsorted(ovo.classes_, pred)
    assert np.all(top[np.arange(len(grid)), idx])  # winner has the most votes
    tied = ovo.ambiguity(grid)
    np.testing.assert_array_equal(tied, top.sum(axis=1) > 1)
    assert 0.0 < tied.mean() < ambiguous_fraction(OneVsRest(LeastSquaresClassifier()).fit(X, y), grid)
    # among tied classes the one with the largest summed confidence wins
    conf_tied = np.where(top, confidence, -np.inf)[tied]
    np.testing.assert_array_equal(idx[tied], conf_tied.argmax(axis=1))
    np.testing.assert_array_equal(ovo.classes_[ovo.decision_function(grid).argmax(axis=1)], pred)
    assert ovo.score(X, y) > 0.95


def test_linear_machine_has_no_ambiguous_region(blobs, grid):
    X, y = blobs
    lm = LinearMachine().fit(X, y)
    assert ambiguous_fraction(lm, grid) == 0.0


def test_iris_three_species():
    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    ovo = OneVsOne(LeastSquaresClassifier()).fit(X, y)
    ovr = OneVsRest(LeastSquaresClassifier()).fit(X, y)
    assert ovo.score(X, y) > 0.9
    assert ovr.score(X, y) > 0.75  # the middle class is hard for one-vs-rest least squares


def test_nested_parameters(blobs):
    ovr = OneVsRest(Perceptron(eta=2.0))
    params = ovr.get_params()
    assert params["estimator__eta"] == 2.0
    ovr.set_params(estimator__max_iter=5)
    assert ovr.estimator.max_iter == 5


def test_errors(blobs):
    X, y = blobs
    with pytest.raises(TypeError, match="classifier instance with fit"):
        OneVsRest("perceptron").fit(X, y)
    with pytest.raises(NotFittedError):
        OneVsOne(Perceptron()).predict(X)
    with pytest.raises(NotFittedError):
        OneVsRest(Perceptron()).ambiguity(X)
    ovr = OneVsRest(LeastSquaresClassifier()).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but OneVsRest is expecting 2 features as input"):
        ovr.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="only one class"):
        OneVsOne(Perceptron()).fit(X, np.zeros(len(X)))
    with pytest.raises(TypeError, match="model must be a fitted classifier"):
        ambiguous_fraction(object(), X)


def test_one_vs_rest_predict_proba_from_logistic(blobs, grid):
    from linclf import LogisticRegression

    X, y = blobs
    ovr = OneVsRest(LogisticRegression(alpha=1e-2)).fit(X, y)
    P = ovr.predict_proba(grid)
    assert P.shape == (grid.shape[0], 3)
    assert np.all(P >= 0) and np.all(np.isfinite(P))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    # the sigmoid is increasing, so the most probable class is the top score
    np.testing.assert_array_equal(ovr.classes_[P.argmax(axis=1)], ovr.predict(grid))
    # columns follow classes_: each column is its classifier's P(+1), renormalised
    raw = np.column_stack([e.predict_proba(grid)[:, 1] for e in ovr.estimators_])
    np.testing.assert_allclose(P, raw / raw.sum(axis=1, keepdims=True))
    with pytest.raises(ValueError, match="feature"):
        ovr.predict_proba(grid[:, :1])


def test_one_vs_rest_has_no_predict_proba_without_base_probabilities(blobs):
    X, y = blobs
    ovr = OneVsRest(Perceptron()).fit(X, y)
    assert not hasattr(ovr, "predict_proba")
    with pytest.raises(AttributeError, match="Perceptron has none"):
        ovr.predict_proba(X)
    assert OneVsRest.predict_proba.__doc__.startswith("Class probabilities")
