"""Tests of linclf._validation and linclf.base, and the bad-input contract of the
core estimators (every one rejects bad data with a clear message)."""

import warnings

import numpy as np
import pytest

from linclf import ConvergenceWarning, NotFittedError
from linclf._validation import (
    DataConversionWarning,
    check_array,
    check_is_fitted,
    check_n_features,
    check_positive,
    check_random_state,
    check_X_y,
    encode_binary,
    encode_labels,
)
from linclf.base import BaseEstimator, LinearClassifierMixin
from linclf.fisher import FisherLDA
from linclf.least_squares import LeastSquaresClassifier
from linclf.multiclass import OneVsOne, OneVsRest
from linclf.optim import warn_not_converged
from linclf.perceptron import (
    AveragedPerceptron,
    LinearMachine,
    Perceptron,
    VotedPerceptron,
)

# ------------------------------------------------------------------ check_array


def test_check_array_converts_lists_and_ints():
    A = check_array([[1, 2], [3, 4]])
    assert A.dtype == np.float64 and A.shape == (2, 2)
    np.testing.assert_array_equal(check_array(np.array([[True, False]])), [[1.0, 0.0]])


@pytest.mark.parametrize("X", [
    np.array([["1.5", "2"], ["0.1", "3"]]),                       # numeric text
    np.array([[b"1.5", b"2"]]),                                   # bytes
    np.array([[1.5, "2"]], dtype=object),                         # text among numbers
    np.array(["2020-01-01", "2021-06-01"], dtype="datetime64[D]").reshape(-1, 1),
    np.array([1, 2], dtype="timedelta64[s]").reshape(-1, 1),
])
def test_check_array_refuses_text_and_dates(X):
    # Parsing "1.5" or counting days since 1970 would model an encoding the
    # user never chose; scikit-learn refuses them too.
    with pytest.raises(TypeError, match="must contain real numbers; got (strings|dates)"):
        check_array(X)


def test_check_array_1d_handling():
    with pytest.raises(ValueError, match="2-D array .* X.reshape\\(-1, 1\\)"):
        check_array([1.0, 2.0])
    assert check_array([1.0, 2.0], allow_1d=True).shape == (1, 2)
    assert check_array([1.0, 2.0], ensure_2d=False).shape == (2,)
    with pytest.raises(ValueError, match="3 dimension"):
        check_array(np.zeros((2, 2, 2)))


@pytest.mark.parametrize(
    "X, error, match",
    [
        (None, TypeError, "X is None"),
        ([["a", "b"]], TypeError, "must contain real numbers.*'a'"),
        (np.array([[1 + 2j]]), ValueError, "Complex data not supported"),
        (np.array([[1.0], [None]], dtype=object), ValueError, "NaN"),  # None -> NaN
        (np.zeros((0, 3)), ValueError, "0 sample\\(s\\) \\(shape=\\(0, 3\\)\\)"),
        (np.zeros((3, 0)), ValueError, "0 feature\\(s\\) \\(shape=\\(3, 0\\)\\) while a minimum of 1"),
        ([[1.0, np.nan]], ValueError, "NaN or infinity \\(1 NaN, 0 inf\\)"),
        ([[np.inf, -np.inf]], ValueError, "\\(0 NaN, 2 inf\\)"),
    ],
)
def test_check_array_rejects(X, error, match):
    with pytest.raises(error, match=match):
        check_array(X)


def test_check_array_rejects_sparse():
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match="sparse"):
        check_array(sparse.csr_matrix(np.eye(2)))


def test_check_array_uses_name():
    with pytest.raises(ValueError, match="^K contains NaN"):
        check_array([[np.nan]], name="K")


# ------------------------------------------------------------------ check_X_y and labels


def test_check_X_y():
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        X, y = check_X_y([[1.0], [2.0]], np.array([["a"], ["b"]]))
    assert y.shape == (2,) and y.tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="inconsistent numbers of samples: 2 rows in X but 3"):
        check_X_y([[1.0], [2.0]], [0, 1, 1])
    with pytest.raises(ValueError, match="1-D array of labels; got shape \\(2, 2\\)"):
        check_X_y([[1.0], [2.0]], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="y contains NaN"):
        check_X_y([[1.0], [2.0]], [0.0, np.nan])
    with pytest.raises(ValueError, match="y contains None"):
        check_X_y([[1.0], [2.0]], np.array([1, None], dtype=object))
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        check_X_y([[1.0]], None)


def test_encode_labels_and_binary():
    classes, idx = encode_labels(np.array(["b", "a", "c", "a"]))
    assert classes.tolist() == ["a", "b", "c"] and idx.tolist() == [1, 0, 2, 0]
    classes, y_pm = encode_binary(np.array([5, 2, 5]))
    assert classes.tolist() == [2, 5] and y_pm.tolist() == [1.0, -1.0, 1.0]
    with pytest.raises(ValueError, match="^Thing needs samples of at least two classes.*\\(3\\)"):
        encode_labels(np.array([3, 3]), estimator="Thing")
    with pytest.raises(ValueError, match="binary classifier but y has 3 classes.*OneVsRest"):
        encode_binary(np.array([0, 1, 2]))
    with pytest.raises(TypeError, match="cannot be sorted"):
        encode_labels(np.array([1, "a"], dtype=object))


# ------------------------------------------------------------------ fitted / features / params


class _Dummy(BaseEstimator):
    def __init__(self, *, alpha=1.0, inner=None):
        self.alpha = alpha
        self.inner = inner


def test_check_is_fitted_and_n_features():
    d = _Dummy()
    with pytest.raises(NotFittedError, match="This _Dummy instance is not fitted yet"):
        check_is_fitted(d)
    with pytest.raises(NotFittedError):
        check_n_features(d, [[1.0]])
    d.n_features_in_ = 2
    check_is_fitted(d)
    check_is_fitted(d, "n_features_in_")
    with pytest.raises(NotFittedError):
        check_is_fitted(d, ["n_features_in_", "coef_"])
    assert check_n_features(d, [[1, 2]]).shape == (1, 2)
    with pytest.raises(ValueError, match="X has 3 features, but _Dummy is expecting 2 features"):
        check_n_features(d, [[1, 2, 3]])
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)


def test_check_random_state():
    a = check_random_state(3).standard_normal(3)
    np.testing.assert_array_equal(a, check_random_state(np.int64(3)).standard_normal(3))
    g = np.random.default_rng(0)
    assert check_random_state(g) is g
    assert isinstance(check_random_state(np.random.RandomState(0)), np.random.Generator)
    assert isinstance(check_random_state(None), np.random.Generator)
    with pytest.raises(TypeError, match="random_state must be None, an int"):
        check_random_state("seed")


@pytest.mark.parametrize(
    "value, kwargs, error, match",
    [
        (0.0, {}, ValueError, "eta must be > 0; got 0.0"),
        (-1, {"strict": False}, ValueError, "eta must be >= 0"),
        (np.nan, {}, ValueError, "eta must be finite"),
        (np.inf, {}, ValueError, "eta must be finite"),
        ("1", {}, TypeError, "eta must be a number"),
        (True, {}, TypeError, "eta must be a number"),
        (1.5, {"integer": True}, TypeError, "eta must be an integer"),
    ],
)
def test_check_positive_rejects(value, kwargs, error, match):
    with pytest.raises(error, match=match):
        check_positive(value, "eta", **kwargs)


def test_check_positive_accepts():
    assert check_positive(0, "x", strict=False) == 0
    assert check_positive(np.inf, "C", allow_inf=True) == np.inf
    assert check_positive(3, "n", integer=True) == 3


def test_warn_not_converged():
    with pytest.warns(ConvergenceWarning, match="^Solver did not converge in max_iter=5 iterations; try more.$"):
        warn_not_converged("Solver", 5, "try more")


def test_get_set_params_and_repr():
    d = _Dummy(alpha=2.0, inner=_Dummy(alpha=3.0))
    params = d.get_params()
    assert params["alpha"] == 2.0 and params["inner__alpha"] == 3.0
    assert set(d.get_params(deep=False)) == {"alpha", "inner"}
    assert d.set_params(alpha=5.0, inner__alpha=7.0) is d
    assert d.alpha == 5.0 and d.inner.alpha == 7.0
    with pytest.raises(ValueError, match="Invalid parameter 'beta' for _Dummy; valid parameters are \\['alpha', 'inner'\\]"):
        d.set_params(beta=1)
    assert repr(_Dummy()) == "_Dummy()"
    assert repr(_Dummy(alpha=0.5)) == "_Dummy(alpha=0.5)"
    # array-valued parameters do not break repr
    assert "alpha=array" in repr(_Dummy(alpha=np.array([1.0, 2.0])))


class _Fixed(LinearClassifierMixin, BaseEstimator):
    def __init__(self, *, coef=None, intercept=None):
        self.coef = coef
        self.intercept = intercept

    def fit(self, X, y):
        self.coef_ = np.atleast_2d(self.coef)
        self.intercept_ = np.atleast_1d(self.intercept)
        self.classes_ = np.unique(y)
        self.n_features_in_ = self.coef_.shape[1]
        return self


def test_linear_classifier_mixin_binary_and_multiclass():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 3.0]])
    binary = _Fixed(coef=[1.0, 0.0], intercept=0.0).fit(X, ["no", "yes", "yes"])
    np.testing.assert_array_equal(binary.decision_function(X), [1.0, -1.0, 0.0])
    # g > 0 -> classes_[1]; g = 0 -> classes_[0]
    np.testing.assert_array_equal(binary.predict(X), ["yes", "no", "no"])
    assert binary.score(X, ["yes", "no", "no"]) == 1.0
    assert binary.score(X, ["yes", "no", "yes"]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        binary.score(X, ["yes"])
    multi = _Fixed(coef=np.eye(3)[:, :2], intercept=[0.0, 0.0, 0.5]).fit(X, [0, 1, 2])
    assert multi.decision_function(X).shape == (3, 3)
    np.testing.assert_array_equal(multi.predict(X), [0, 2, 1])
    with pytest.raises(NotFittedError):
        _Fixed(coef=[1.0]).predict(X)


# ------------------------------------------------------------------ estimators: bad input

BINARY = [
    FisherLDA,
    Perceptron,
    VotedPerceptron,
    AveragedPerceptron,
    LeastSquaresClassifier,
]
ALL = BINARY + [LinearMachine, lambda: OneVsRest(Perceptron()), lambda: OneVsOne(Perceptron())]
IDS = [getattr(e, "__name__", "meta") for e in ALL]

X_OK = np.array([[0.0, 0.2], [1.0, 0.1], [0.1, 1.0], [1.2, 1.1], [2.0, 2.2], [3.0, 2.5]])
Y_OK = np.array([0, 0, 0, 1, 1, 1])


def _fit_quietly(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


@pytest.mark.parametrize("make", ALL, ids=[f"{i}{k}" for k, i in enumerate(IDS)])
class TestBadInput:
    def test_fit_returns_self_and_sets_attributes(self, make):
        est = make()
        assert _fit_quietly(est, X_OK, Y_OK) is est
        assert est.n_features_in_ == 2
        np.testing.assert_array_equal(est.classes_, [0, 1])
        assert est.score(X_OK, Y_OK) >= 0.8

    def test_string_and_float_labels(self, make):
        for labels in (np.array(["cat", "dog"]), np.array([-1.0, 2.0])):
            est = _fit_quietly(make(), X_OK, labels[Y_OK])
            assert set(est.predict(X_OK)) <= set(labels)
            np.testing.assert_array_equal(est.classes_, labels)

    @pytest.mark.parametrize(
        "X, y, error, match",
        [
            (X_OK[:, 0], Y_OK, ValueError, "2-D array"),
            (X_OK, Y_OK[:-1], ValueError, "inconsistent numbers of samples"),
            (np.where(X_OK == 1.0, np.nan, X_OK), Y_OK, ValueError, "NaN or infinity"),
            (np.where(X_OK == 1.0, np.inf, X_OK), Y_OK, ValueError, "NaN or infinity"),
            (np.full((6, 2), "a"), Y_OK, TypeError, "real numbers"),
            (X_OK, np.zeros(6), ValueError, "only one class"),
            (X_OK, np.linspace(0, 1, 6), ValueError, "continuous"),
            (X_OK, np.array([-0.5, -0.5, -0.5, 2.5, 2.5, 2.5]), ValueError, "continuous"),
        ],
    )
    def test_fit_rejects(self, make, X, y, error, match):
        with pytest.raises(error, match=match):
            make().fit(X, y)

    def test_predict_before_fit(self, make):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            make().predict(X_OK)

    def test_predict_with_other_feature_count(self, make):
        est = _fit_quietly(make(), X_OK, Y_OK)
        with pytest.raises(ValueError, match="X has 3 features, but .* was fitted with 2 features"):
            est.predict(np.ones((2, 3)))
        with pytest.raises(ValueError, match="NaN"):
            est.predict([[np.nan, 1.0]])

    def test_parameters_stored_unchanged(self, make):
        est = make()
        before = est.get_params(deep=False)
        _fit_quietly(est, X_OK, Y_OK)
        after = est.get_params(deep=False)
        assert before.keys() == after.keys()
        for k in before:
            assert before[k] is after[k]


@pytest.mark.parametrize("make", [e for e in BINARY if e is not FisherLDA])  # FisherLDA: c > 2 too
def test_binary_estimators_reject_three_classes(make):
    y3 = np.array([0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match=f"{make.__name__} is a binary classifier but y has 3 classes"):
        make().fit(X_OK, y3)


@pytest.mark.parametrize("make", BINARY + [LinearMachine])
def test_constructor_is_keyword_only(make):
    with pytest.raises(TypeError):
        make("positional")


def _every_estimator():
    import linclf

    return [linclf.FisherLDA(), linclf.Perceptron(), linclf.VotedPerceptron(),
            linclf.AveragedPerceptron(), linclf.LinearMachine(), linclf.LeastSquaresClassifier(),
            linclf.LogisticRegression(), linclf.SoftmaxRegression(), linclf.SVC(),
            linclf.LinearSVM(), linclf.KernelPerceptron(),
            linclf.OneVsRest(linclf.Perceptron()), linclf.OneVsOne(linclf.Perceptron())]


@pytest.mark.parametrize("est", _every_estimator(), ids=lambda e: type(e).__name__)
def test_continuous_target_is_refused_by_name(est):
    # A regression target must not become a 60-class model (or 1 770 pairwise classifiers).
    y = np.random.default_rng(0).normal(size=60)
    X = np.random.default_rng(1).normal(size=(60, 2))
    with pytest.raises(ValueError, match="continuous"):
        est.fit(X, y)


@pytest.mark.parametrize("est", [e for e in _every_estimator() if "max_iter" in e.get_params(deep=False)],
                         ids=lambda e: type(e).__name__)
def test_one_exception_type_per_kind_of_parameter_mistake(est):
    # A value of the wrong type is a TypeError, an admitted type out of range a
    # ValueError, in every estimator, and the message names the estimator.
    X = np.random.default_rng(1).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(int)
    name = type(est).__name__
    for bad, error in ((2.5, TypeError), ("10", TypeError), (None, TypeError), (0, ValueError)):
        with pytest.raises(error, match=f"^{name}: max_iter must be an integer in"):
            est.set_params(max_iter=bad).fit(X, y)


# ------------------------------------------------------------------ missing values


@pytest.mark.parametrize("column, values, dtype", [
    ("count", [1, None, 3, 4], "Int64"),           # pd.NA in a nullable integer column
    ("flag", [True, None, False, True], "boolean"),
    ("ratio", [0.5, np.nan, 0.1, 0.2], "float64"),
    ("note", [1.0, None, 2.0, 3.0], "object"),
])
def test_missing_values_in_a_dataframe_are_named_with_their_column(column, values, dtype):
    # was: TypeError "float() argument must be ... not 'NAType'" with a valid
    # float as its example, and never the words "missing value"
    pd = pytest.importorskip("pandas")
    from linclf import LogisticRegression

    X = pd.DataFrame({"a": [0.1, 0.2, 0.3, 0.4], column: pd.array(values, dtype=dtype)})
    with pytest.raises(ValueError, match=f"(?s)X contains 1 missing value.*column '{column}' "
                                         r"\(position 1\), row 1.*impute"):
        check_array(X)
    with pytest.raises(ValueError, match="missing value"):
        LogisticRegression().fit(X, [0, 1, 0, 1])


def test_missing_values_in_arrays_give_their_position():
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError, match=r"missing value.*row 1, column 0"):
        check_array(np.array([[1.0, 2.0], [pd.NA, 3.0]], dtype=object))
    with pytest.raises(ValueError, match=r"NaN or infinity \(1 NaN, 0 inf\).*missing value.*row 0, column 1"):
        check_array([[1.0, np.nan]])
