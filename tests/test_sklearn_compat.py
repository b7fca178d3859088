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
    ("fisher", "FisherLDA", {}, {"threshold": ["midpoint", "bayes"]}, True),
    ("perceptron", "Perceptron", {"max_iter": 50}, {"eta": [0.1, 1.0], "rule": ["single", "batch"]}, False),
    ("perceptron", "VotedPerceptron", {"max_iter": 5}, {"max_iter": [2, 5]}, False),
    ("perceptron", "AveragedPerceptron", {"max_iter": 5}, {"margin": [0.0, 1.0]}, False),
    ("perceptron", "LinearMachine", {"max_iter": 50}, {"update": ["max", "all"]}, True),
    ("pocket", "PocketPerceptron", {"max_iter": 20, "random_state": 0}, {"order": ["shuffle", "cyclic"]}, False),
    ("ramp", "RampSVM", {}, {"C": [0.1, 1.0]}, False),
    ("least_squares", "LeastSquaresClassifier", {}, {"margins": ["ones", "fisher"]}, False),
    ("least_squares", "LeastSquaresClassifier", {"solver": "gd"}, {"max_iter": [50, 200]}, False),
    ("least_squares", "HoKashyap", {"max_iter": 200}, {"eta": [0.3, 0.7]}, False),
    ("logistic", "LogisticRegression", {}, {"alpha": [0.0, 1.0]}, False),
    ("softmax", "SoftmaxRegression", {}, {"alpha": [0.0, 1.0]}, True),
    ("svm", "SVC", {"kernel": "linear"}, {"C": [0.1, 1.0]}, False),
    ("svm", "LinearSVM", {"max_iter": 200}, {"C": [0.1, 1.0]}, False),
    ("linear_svm", "LinearSVM", {"solver": "dcd", "max_iter": 200}, {"C": [0.1, 1.0]}, False),
    ("kernel_perceptron", "KernelPerceptron", {"max_iter": 20}, {"max_iter": [5, 20]}, False),
    ("kernel_ridge", "KernelRidgeClassifier", {}, {"alpha": [0.01, 0.1]}, False),
]


def _make(module, name, kwargs):
    # linclf's own modules must exist: a missing one is a failure, not a skip.
    return getattr(importlib.import_module(f"linclf.{module}"), name)(**kwargs)


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
    # GridSearchCV fits clones: the estimator the pipeline holds was fitted once, on all of X.
    assert pipe.named_steps["clf"] is est and est.n_features_in_ == X.shape[1]
    assert search.best_estimator_.named_steps["clf"] is not est


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


# ---------------------------------------------------------------------------
# scikit-learn's own estimator checks, with honestly declared tags: the binary
# estimators say multi_class=False (and must then refuse three classes with
# scikit-learn's message), FisherLDA declares its transform and, with
# threshold="mean", that it is two-class only.
#
# Conformance is a property of every configuration, not of the defaults: each
# solver, threshold, kernel and selection rule of every public estimator runs
# here. The epoch-based learners get a small max_iter, since the checks fit
# random labels on which a perceptron never stops (1000 pure-Python epochs took
# 10-80 s per estimator), and so do the pure-Python LinearSVM solvers. SVC runs
# with its default step budget, max(10**5, 1000 n) for every selection rule
# (linclf.smo.state.default_budget), except SVC(kernel="poly"), which keeps
# max_iter=20_000: on check_fit_idempotent's offset data (kernel values ~1e12)
# its default 10^5 steps run out too, and would only cost time here. No check is skipped or expected to
# fail; scikit-learn itself skips check_array_api_input without SCIPY_ARRAY_API.


class _Harmonic:
    """The step eta_k = 1/k, with a repr that is the same in every process (pytest-xdist
    compares the test ids, which contain the estimators' reprs)."""

    def __call__(self, k):
        return 1.0 / k

    def __repr__(self):
        return "harmonic_step"


def _all_estimators():
    import linclf

    short = {"max_iter": 10}
    configurations = [
        linclf.FisherLDA(), linclf.FisherLDA(threshold="mean"), linclf.FisherLDA(threshold="bayes"),
        linclf.FisherLDA(reg=1e-3), linclf.FisherLDA(n_components=1),
        linclf.Perceptron(**short), linclf.Perceptron(rule="batch", **short),
        linclf.Perceptron(order="shuffle", random_state=0, **short),
        linclf.Perceptron(margin=1.0, step="absolute", **short),
        linclf.Perceptron(step=_Harmonic(), **short),
        linclf.VotedPerceptron(), linclf.AveragedPerceptron(),
        linclf.AveragedPerceptron(margin=1.0, order="shuffle", random_state=0, trace=True),
        linclf.LinearMachine(**short), linclf.LinearMachine(update="all", **short),
        linclf.PocketPerceptron(**short), linclf.PocketPerceptron(order="cyclic", **short),
        linclf.RampSVM(), linclf.RampSVM(s=0.0, C=10.0),
        linclf.LeastSquaresClassifier(), linclf.LeastSquaresClassifier(margins="fisher"),
        linclf.LeastSquaresClassifier(solver="gd"), linclf.LeastSquaresClassifier(solver="lms", max_iter=50),
        linclf.HoKashyap(max_iter=200),
        linclf.LogisticRegression(), linclf.LogisticRegression(solver="gd"),
        linclf.LogisticRegression(alpha=1.0, fit_intercept=False),
        linclf.SoftmaxRegression(), linclf.SoftmaxRegression(solver="newton"),
        linclf.SoftmaxRegression(solver="gd", max_iter=100),
        linclf.SVC(), linclf.SVC(kernel="linear"), linclf.SVC(kernel="poly", max_iter=20_000),
        linclf.SVC(kernel="sigmoid", C=100.0), linclf.SVC(kernel="laplacian"),
        linclf.SVC(selection="platt"), linclf.SVC(selection="mvp", shrinking=True),
        linclf.LinearSVM(max_iter=300), linclf.LinearSVM(solver="dcd", max_iter=100),
        linclf.LinearSVM(batch=5, random_state=0, max_iter=300),
        linclf.KernelPerceptron(**short), linclf.KernelPerceptron(kernel="linear", **short),
        linclf.KernelPerceptron(kernel="poly", **short),
        linclf.KernelRidgeClassifier(), linclf.KernelRidgeClassifier(kernel="linear"),
        linclf.KernelRidgeClassifier(kernel="poly", coef0=1.0),
        linclf.OneVsRest(linclf.Perceptron(**short)), linclf.OneVsRest(linclf.LogisticRegression(alpha=0.1)),
        linclf.OneVsOne(linclf.LogisticRegression()), linclf.OneVsOne(linclf.SVC()),
    ]
    return configurations


def test_every_public_estimator_is_checked():
    import linclf

    public = {name for name in linclf.__all__ if isinstance(getattr(linclf, name), type)
              and hasattr(getattr(linclf, name), "fit")}
    assert public == {type(e).__name__ for e in _all_estimators()}


from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


@parametrize_with_checks(_all_estimators())
def test_sklearn_estimator_checks(estimator, check):
    if "check_dataframe_column_names_consistency" in repr(check):
        # feature_names_in_ is part of the contract: pandas is a test dependency,
        # so this check must run, not be skipped by scikit-learn for want of it
        import pandas  # noqa: F401
    with warnings.catch_warnings():
        # scikit-learn's checks fit on tiny or degenerate data on purpose
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


@pytest.mark.parametrize("make", ["SoftmaxRegression", "OneVsRest", "OneVsOne", "LinearMachine"])
def test_binary_decision_function_is_one_dimensional(make, binary_data):
    import linclf
    from sklearn.multiclass import OneVsRestClassifier

    X, y = binary_data
    X = StandardScaler().fit_transform(X)
    cls = getattr(linclf, make)
    model = cls(linclf.Perceptron()) if make.startswith("OneVs") else cls()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    scores = model.decision_function(X)
    assert scores.shape == (X.shape[0],)
    np.testing.assert_array_equal(model.predict(X), model.classes_[(scores > 0).astype(int)])
    if make == "SoftmaxRegression":
        # the binary score is the log-odds of classes_[1]
        P = model.predict_proba(X)
        np.testing.assert_allclose(scores, np.log(P[:, 1] / P[:, 0]), rtol=1e-8, atol=1e-10)
        # and scikit-learn's one-vs-rest wrapper, which crashed on an (n, 2) score, works
        wrapped = OneVsRestClassifier(linclf.SoftmaxRegression()).fit(X, y)
        assert wrapped.score(X, y) >= 0.9


def test_not_fitted_error_is_scikit_learns_too():
    import linclf
    from sklearn.exceptions import NotFittedError as SkNotFitted

    with pytest.raises(SkNotFitted):
        linclf.Perceptron().predict([[0.0, 1.0]])
    with pytest.raises(linclf.NotFittedError, match="not fitted yet"):
        linclf.SVC().decision_function([[0.0, 1.0]])
