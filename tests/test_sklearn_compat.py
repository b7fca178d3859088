"""Every linclf estimator works inside scikit-learn's Pipeline, GridSearchCV and clone."""

import importlib
import warnings

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone, is_classifier  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from linclf import ConvergenceWarning  # noqa: E402
from linclf.datasets import make_gaussian_classes  # noqa: E402

# (module, class, constructor kwargs, parameter grid, multi-class?)
CASES = [
    ("fisher", "FisherLDA", {}, {"threshold": ["midpoint", "bayes"]}, False),
    ("perceptron", "Perceptron", {"max_iter": 50}, {"eta": [0.1, 1.0], "rule": ["single", "batch"]}, False),
    ("perceptron", "VotedPerceptron", {"max_iter": 5}, {"max_iter": [2, 5]}, False),
    ("perceptron", "AveragedPerceptron", {"max_iter": 5}, {"margin": [0.0, 1.0]}, False),
    ("perceptron", "LinearMachine", {"max_iter": 50}, {"update": ["max", "all"]}, True),
    ("least_squares", "LeastSquaresClassifier", {}, {"margins": ["ones", "fisher"]}, False),
    ("least_squares", "LeastSquaresClassifier", {"solver": "gd"}, {"max_iter": [50, 200]}, False),
    ("logistic", "LogisticRegression", {}, {"alpha": [0.0, 1.0]}, False),
    ("softmax", "SoftmaxRegression", {}, {"alpha": [0.0, 1.0]}, True),
    ("svm", "SVC", {"kernel": "linear"}, {"C": [0.1, 1.0]}, False),
    ("svm", "LinearSVM", {"max_iter": 200}, {"C": [0.1, 1.0]}, False),
    ("kernel_perceptron", "KernelPerceptron", {"max_iter": 20}, {"max_iter": [5, 20]}, False),
]


def _make(module, name, kwargs):
    try:
        mod = importlib.import_module(f"linclf.{module}")
    except ImportError:
        pytest.skip(f"linclf.{module} is not available")
    if not hasattr(mod, name):
        pytest.skip(f"linclf.{module}.{name} is not available")
    return getattr(mod, name)(**kwargs)


@pytest.fixture(scope="module")
def binary_data():
    X, y = make_gaussian_classes(60, [[0.0, 0.0], [3.0, 2.0]], covs=0.8, random_state=0)
    return 10.0 * X + 50.0, np.array(["neg", "pos"])[y]  # badly scaled: the scaler matters


@pytest.fixture(scope="module")
def multi_data():
    X, y = make_gaussian_classes(60, [[0.0, 3.0], [-3.0, -1.5], [3.0, -1.5]], covs=0.5, random_state=0)
    return 10.0 * X + 50.0, y


def _data(multi, binary_data, multi_data):
    return multi_data if multi else binary_data


@pytest.mark.parametrize("module, name, kwargs, grid, multi", CASES, ids=[c[1] + str(i) for i, c in enumerate(CASES)])
def test_clone_and_tags(module, name, kwargs, grid, multi):
    est = _make(module, name, kwargs)
    copy = clone(est)
    assert copy is not est and type(copy) is type(est)
    assert copy.get_params() == est.get_params()
    assert is_classifier(est)


@pytest.mark.parametrize("module, name, kwargs, grid, multi", CASES, ids=[c[1] + str(i) for i, c in enumerate(CASES)])
def test_pipeline_and_grid_search(module, name, kwargs, grid, multi, binary_data, multi_data):
    X, y = _data(multi, binary_data, multi_data)
    est = _make(module, name, kwargs)
    pipe = Pipeline([("scale", StandardScaler()), ("clf", est)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe.fit(X, y)
        assert pipe.score(X, y) >= 0.9
        assert set(pipe.predict(X)) <= set(y)
        search = GridSearchCV(
            pipe, {f"clf__{k}": v for k, v in grid.items()}, cv=3, error_score="raise"
        ).fit(X, y)
    assert set(search.best_params_) == {f"clf__{k}" for k in grid}
    assert search.best_score_ >= 0.8
    assert not hasattr(est, "n_features_in_") or est is pipe.named_steps["clf"]


@pytest.mark.parametrize("meta", ["OneVsRest", "OneVsOne"])
def test_multiclass_wrappers_in_grid_search(meta, multi_data):
    from linclf import multiclass
    from linclf.perceptron import Perceptron

    X, y = multi_data
    model = getattr(multiclass, meta)(Perceptron(max_iter=50))
    assert is_classifier(model)
    copy = clone(model)
    assert copy.estimator is not model.estimator
    assert copy.get_params()["estimator__max_iter"] == 50
    pipe = Pipeline([("scale", StandardScaler()), ("clf", model)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search = GridSearchCV(
            pipe, {"clf__estimator__eta": [0.5, 1.0], "clf__estimator__margin": [0.0, 1.0]},
            cv=3, error_score="raise",
        ).fit(X, y)
    assert search.best_score_ >= 0.9
    assert search.best_estimator_.score(X, y) >= 0.9
