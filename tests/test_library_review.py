"""Regression tests for the library review of 2026-11-25 (issue 22): score's y, feature
names, parameter values of numpy types, kernel parameters, the fitted kernel of SVC.coef_,
meta-estimators without scores and data too large for float64.

Each test reproduces a defect of the report (D1, D2, D10, D12, D13, D15); the FisherLDA,
RampSVM, AveragedPerceptron and text/date ones live beside their estimators' tests.
"""

import warnings

import numpy as np
import pytest

import linclf
from linclf import ConvergenceWarning


def _estimators():
    # every public estimator, in a configuration that fits 80 x 3 quickly
    return [
        linclf.FisherLDA(), linclf.Perceptron(max_iter=20), linclf.VotedPerceptron(max_iter=3),
        linclf.AveragedPerceptron(max_iter=3), linclf.LinearMachine(max_iter=20),
        linclf.PocketPerceptron(max_iter=5, random_state=0), linclf.RampSVM(),
        linclf.LeastSquaresClassifier(), linclf.HoKashyap(max_iter=50), linclf.LogisticRegression(alpha=0.1),
        linclf.SoftmaxRegression(alpha=0.1), linclf.SVC(), linclf.LinearSVM(max_iter=50),
        linclf.KernelPerceptron(max_iter=5), linclf.KernelRidgeClassifier(),
        linclf.OneVsRest(linclf.LogisticRegression(alpha=0.1)),
        linclf.OneVsOne(linclf.LogisticRegression(alpha=0.1)),
    ]


ESTIMATORS = _estimators()
IDS = [type(e).__name__ + str(i) for i, e in enumerate(ESTIMATORS)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + 0.4 * rng.normal(size=80) > 0).astype(int)
    return X, y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


# --- D1: score validates y as fit does -------------------------------------


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_score_with_a_column_vector_y_is_the_accuracy(est, data):
    # An (n, 1) y broadcast against the (n,) prediction to an n x n comparison
    # and scored about 0.5 whatever the model.
    X, y = data
    model = _fit(est, X, y)
    with pytest.warns(UserWarning, match="column-vector y"):
        col = model.score(X, y.reshape(-1, 1))
    assert col == model.score(X, y) > 0.8


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_score_refuses_labels_of_another_type(est, data):
    X, y = data
    model = _fit(est, X, y)
    with pytest.raises(ValueError, match="labels of type \\['string'\\].*encoding used in fit"):
        model.score(X, np.array(["no", "yes"])[y])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model.score(X, y[:-1])
    # unseen labels of the same type are merely wrong, as in scikit-learn
    assert model.score(X, y + 5) == 0.0


def test_score_with_string_labels_refuses_numbers(data):
    X, y = data
    model = linclf.LogisticRegression().fit(X, np.array(["neg", "pos"])[y])
    with pytest.raises(ValueError, match="labels of type \\['number'\\]"):
        model.score(X, y)
    assert model.score(X, np.array(["neg", "pos"])[y]) > 0.8


def test_cross_val_score_with_a_column_vector_y(data):
    sklearn = pytest.importorskip("sklearn")
    from sklearn.model_selection import cross_val_score

    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # the ravel warnings, one per fold
        scores = cross_val_score(linclf.SVC(), X, y.reshape(-1, 1))
    # was about 0.5 on every fold; now the folds' accuracies, as with a 1-D y
    np.testing.assert_array_equal(scores, cross_val_score(linclf.SVC(), X, y))
    assert scores.mean() > 0.75
    del sklearn


# --- D2: feature names -------------------------------------------------------


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_feature_names_are_recorded_and_checked(est, data):
    pd = pytest.importorskip("pandas")
    X, y = data
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    with warnings.catch_warnings():
        # fit must not call its own methods on the converted array and warn
        warnings.filterwarnings("error", message=".*feature names")
        model = _fit(est, df, y)
    assert isinstance(model.feature_names_in_, np.ndarray)
    assert model.feature_names_in_.dtype == object
    assert model.feature_names_in_.tolist() == ["a", "b", "c"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        accuracy = model.score(df, y)                 # same names: no warning
    assert accuracy > 0.8
    with pytest.raises(ValueError, match="same order as they were in fit"):
        model.predict(df[["b", "a", "c"]])            # silently 0.49 before
    with pytest.raises(ValueError, match="seen at fit time, yet now missing:\n- c"):
        model.decision_function(df[["a", "b"]])
    with pytest.raises(ValueError, match="unseen at fit time:\n- d"):
        model.score(df.rename(columns={"c": "d"}), y)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X)
    # refitted on an array: no names kept, and a frame now warns the other way
    _fit(model, X, y)
    assert not hasattr(model, "feature_names_in_")
    with pytest.warns(UserWarning, match="has feature names, but .* fitted without"):
        model.predict(df)


def test_transform_checks_feature_names(data):
    pd = pytest.importorskip("pandas")
    X, y = data
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    lda = linclf.FisherLDA().fit(df, y)
    with pytest.raises(ValueError, match="same order"):
        lda.transform(df[["c", "b", "a"]])


def test_feature_names_need_string_columns(data):
    pd = pytest.importorskip("pandas")
    X, y = data
    # integer column names (pandas' default) are not names, as in scikit-learn
    model = linclf.LogisticRegression().fit(pd.DataFrame(X), y)
    assert not hasattr(model, "feature_names_in_")
    with pytest.raises(TypeError, match="every column name is a string"):
        linclf.LogisticRegression().fit(pd.DataFrame(X, columns=["a", 1, "c"]), y)


class _Frame:
    """The least a data frame needs to be one for linclf: columns and __array__."""

    def __init__(self, values, columns):
        self.values, self.columns = np.asarray(values), list(columns)

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)


def test_feature_names_without_pandas(data):
    # duck-typed on X.columns: no pandas import anywhere in linclf
    X, y = data
    model = linclf.SVC(kernel="linear").fit(_Frame(X, ["a", "b", "c"]), y)
    assert model.feature_names_in_.tolist() == ["a", "b", "c"]
    with pytest.raises(ValueError, match="same order"):
        model.predict(_Frame(X[:, ::-1], ["c", "b", "a"]))


# --- D10: numpy scalars are the numbers they equal -------------------------


def test_numpy_infinity_is_the_hard_margin():
    X, y = np.array([[0.0], [1.0], [3.0], [4.0]]), [0, 0, 1, 1]
    ours = linclf.SVC(C=np.float64(np.inf), kernel="linear").fit(X, y)
    ref = linclf.SVC(C=np.inf, kernel="linear").fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_)
    assert ours.predict([[2.4]])[0] == 1


def test_grid_search_over_an_array_of_C_values(data):
    pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV

    X, y = data
    X = X + np.sign(X[:, :1]) * np.array([[2.0, 0.0, 0.0]])   # separable, so inf is allowed
    y = (X[:, 0] > 0).astype(int)
    search = GridSearchCV(linclf.SVC(kernel="linear"), {"C": np.array([1.0, np.inf])},
                          cv=3, error_score="raise").fit(X, y)
    assert search.best_score_ == 1.0


def test_numpy_bools_and_ints_where_python_ones_are_allowed(data):
    X, y = data
    assert linclf.LogisticRegression(fit_intercept=np.True_).fit(X, y).intercept_[0] != 0.0
    assert linclf.SVC(max_iter=np.int64(-1)).fit(X, y).n_iter_ > 0
    # but a number is still not a bool, nor a fraction an integer option
    with pytest.raises(TypeError, match="fit_intercept"):
        linclf.LogisticRegression(fit_intercept=1).fit(X, y)
    with pytest.raises(TypeError, match="max_iter"):
        linclf.SVC(max_iter=-1.5).fit(X, y)


# --- inactive kernel parameters are validated (as scikit-learn does) --------


@pytest.mark.parametrize("kernel", ["rbf", "linear", "sigmoid"])
@pytest.mark.parametrize("bad, error", [
    ({"degree": 0}, ValueError), ({"degree": 2.5}, TypeError), ({"degree": -1}, ValueError),
    ({"coef0": np.inf}, ValueError), ({"coef0": "one"}, TypeError), ({"gamma": -1.0}, ValueError),
    ({"gamma": "wide"}, ValueError),
])
@pytest.mark.parametrize("make", [linclf.SVC, linclf.KernelPerceptron, linclf.KernelRidgeClassifier])
def test_kernel_parameters_are_checked_whatever_the_kernel(make, kernel, bad, error, data):
    X, y = data
    (name,) = bad
    if kernel == "sigmoid" and name != "degree":
        return  # active there; tested in test_kernels
    with pytest.raises(error, match=name):
        make(kernel=kernel, **bad).fit(X, y)


# --- D12: SVC.coef_ follows the fitted kernel ---------------------------------


def test_svc_coef_uses_the_fitted_kernel(data):
    X, y = data
    rbf = linclf.SVC().fit(X, y)
    rbf.set_params(kernel="linear")                  # not refitted
    with pytest.raises(AttributeError, match="fitted with kernel='rbf'"):
        rbf.coef_
    lin = linclf.SVC(kernel="linear").fit(X, y)
    w = lin.coef_
    lin.set_params(kernel="rbf")
    np.testing.assert_array_equal(lin.coef_, w)


# --- D15: meta-estimators refuse an estimator without scores at fit ---------


def test_one_vs_rest_needs_a_decision_function_at_fit(data):
    class NoScores(linclf.base.BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.zeros(len(X))

    X, y = data
    for meta in (linclf.OneVsRest, linclf.OneVsOne):
        with pytest.raises(TypeError, match="no decision_function"):
            meta(NoScores()).fit(X, np.arange(80) % 3)


# --- D13: data too large for float64 ----------------------------------------


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_data_whose_squares_overflow_are_refused(est, data):
    X, y = data
    with pytest.raises(ValueError, match="too large for float64.*Rescale"):
        est.fit(X * 1e300, y)


def test_linear_svm_refit_by_subgradient_drops_the_dual_variables(data):
    X, y = data
    model = _fit(linclf.LinearSVM(solver="dcd"), X, y)
    assert model.alpha_.shape == (80,)
    _fit(model.set_params(solver="subgradient", max_iter=50), X, y)
    assert not hasattr(model, "alpha_")             # a stale dcd alpha_ stayed before


@pytest.mark.parametrize("est", ESTIMATORS, ids=IDS)
def test_data_whose_squares_underflow_are_refused(est, data):
    # X * 1e-300 made every estimator predict the majority class, silently
    X, y = data
    with pytest.raises(ValueError, match="too small for float64.*Rescale"):
        est.fit(X * 1e-300, y)


def test_kernel_ridge_does_not_share_the_callers_array(data):
    X, y = data
    X = X.copy()
    model = linclf.KernelRidgeClassifier().fit(X, y)
    before = model.decision_function(X[:5].copy())
    X *= 10.0                                          # the caller reuses its buffer
    np.testing.assert_array_equal(model.decision_function(X[:5] / 10.0), before)


def test_documented_stopping_tests_are_the_relative_ones_the_code_uses():
    # the re-check of 2026-11-26 found docstrings still describing the old
    # absolute gradient test (LogisticRegression) and the old step test (LMS)
    import inspect

    logistic = inspect.getdoc(linclf.LogisticRegression)
    assert "is absolute" not in logistic
    assert "tol * ||grad at w = 0||" in logistic
    lms = inspect.getdoc(linclf.LeastSquaresClassifier).split('"lms"')[1].split("margins :")[0]
    assert "moves" not in lms and "tol * max(1, ||a||)" not in lms
    assert "gradient" in lms and "tol" in lms
