import numpy as np
import pytest
from scipy.linalg import eigh, subspace_angles
from scipy.stats import multivariate_normal
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from linclf import NotFittedError
from linclf.datasets import load_iris, make_gaussian_classes
from linclf.fisher import FisherLDA

COV = [[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]]


@pytest.fixture(scope="module")
def data():
    return make_gaussian_classes(300, [[0, 0, 0], [1, 2, 0.5]], covs=COV, priors=[0.3, 0.7])


def cosine(u, v):
    u, v = np.ravel(u), np.ravel(v)
    return u @ v / (np.linalg.norm(u) * np.linalg.norm(v))


def test_direction_matches_sklearn_lda(data):
    X, y = data
    ours = FisherLDA().fit(X, y)
    theirs = LinearDiscriminantAnalysis().fit(X, y)
    assert cosine(ours.coef_, theirs.coef_) >= 1 - 1e-10


def test_direction_is_solution_of_within_scatter_system(data):
    X, y = data
    f = FisherLDA().fit(X, y)
    m_neg, m_pos = X[y == 0].mean(0), X[y == 1].mean(0)
    np.testing.assert_allclose(f.scatter_within_ @ f.coef_[0], m_pos - m_neg, atol=1e-12)


@pytest.mark.parametrize("priors", [None, [0.5, 0.5], [0.2, 0.8], [0.9, 0.1]])
def test_bayes_threshold_predictions_equal_sklearn(data, priors):
    X, y = data
    ours = FisherLDA(threshold="bayes", priors=priors).fit(X, y)
    theirs = LinearDiscriminantAnalysis(priors=priors).fit(X, y)
    grid = np.random.default_rng(1).normal(0.5, 2.0, size=(2000, 3))
    np.testing.assert_array_equal(ours.predict(grid), theirs.predict(grid))
    # same linear function up to a positive factor (sklearn's Sigma^-1 = N S_w^-1)
    np.testing.assert_allclose(theirs.decision_function(grid), len(X) * ours.decision_function(grid),
                               rtol=1e-8, atol=1e-8)


def test_bayes_threshold_is_the_gaussian_bayes_rule(data):
    """With a shared covariance the log posterior ratio is linear and equals N * g(x)."""
    X, y = data
    priors = np.array([0.25, 0.75])
    f = FisherLDA(threshold="bayes", priors=priors).fit(X, y)
    Sigma = f.scatter_within_ / len(X)
    x = np.random.default_rng(2).normal(0.5, 2.0, size=(500, 3))
    log_ratio = (
        multivariate_normal(f.means_[1], Sigma).logpdf(x) + np.log(priors[1])
        - multivariate_normal(f.means_[0], Sigma).logpdf(x) - np.log(priors[0])
    )
    np.testing.assert_allclose(log_ratio, len(X) * f.decision_function(x), rtol=1e-9, atol=1e-9)


def test_bayes_threshold_moves_towards_the_rarer_class(data):
    X, y = data
    eq = FisherLDA(threshold="bayes", priors=[0.5, 0.5]).fit(X, y)
    mid = FisherLDA(threshold="midpoint").fit(X, y)
    rare_pos = FisherLDA(threshold="bayes", priors=[0.9, 0.1]).fit(X, y)
    assert eq.threshold_ == pytest.approx(mid.threshold_, abs=1e-12)
    # positive class projects higher; a rare positive class pushes the cut up towards it
    assert rare_pos.threshold_ > mid.threshold_


def test_thresholds_and_projection(data):
    X, y = data
    f = FisherLDA(threshold="midpoint").fit(X, y)
    proj = f.transform(X)
    assert proj.shape == (len(X), 1)          # a transformer's shape, for Pipeline
    proj = proj[:, 0]
    np.testing.assert_allclose(proj, X @ f.coef_[0])
    expected_mid = 0.5 * (proj[y == 0].mean() + proj[y == 1].mean())
    assert f.threshold_ == pytest.approx(expected_mid)
    np.testing.assert_allclose(f.intercept_, [-f.threshold_])
    np.testing.assert_allclose(f.decision_function(X), proj - f.threshold_)
    g = FisherLDA(threshold="mean").fit(X, y)
    assert g.threshold_ == pytest.approx(proj.mean())
    assert g.threshold_ != pytest.approx(expected_mid)  # unequal class counts


def test_scatter_matrices(data):
    X, y = data
    f = FisherLDA().fit(X, y)
    S_w = 0
    for k in (0, 1):
        Xk = X[y == k]
        np.testing.assert_allclose(f.means_[k], Xk.mean(0))
        S_w = S_w + (len(Xk) - 1) * np.cov(Xk.T)
    np.testing.assert_allclose(f.scatter_within_, S_w)
    assert not hasattr(f, "class_scatters_")          # c d^2 floats are not kept
    d = f.means_[1] - f.means_[0]
    np.testing.assert_allclose(f.scatter_between_, np.outer(d, d))
    assert np.linalg.matrix_rank(f.scatter_between_) == 1


def test_criterion_is_maximal_at_fisher_direction(data):
    X, y = data
    f = FisherLDA().fit(X, y)
    best = f.criterion(f.coef_)
    d = f.means_[1] - f.means_[0]
    assert best == pytest.approx(d @ np.linalg.solve(f.scatter_within_, d))
    assert f.criterion(-3.7 * f.coef_[0]) == pytest.approx(best)
    rng = np.random.default_rng(0)
    for w in rng.standard_normal((200, 3)):
        assert f.criterion(w) <= best * (1 + 1e-12)
    # and it is the top generalised eigenvalue of (S_b, S_w)
    eig = np.linalg.eigvals(np.linalg.solve(f.scatter_within_, f.scatter_between_)).real
    assert best == pytest.approx(eig.max())


def test_criterion_errors(data):
    X, y = data
    f = FisherLDA().fit(X, y)
    with pytest.raises(ValueError, match="w\\^T S_w w = 0"):
        f.criterion(np.zeros(3))
    with pytest.raises(ValueError, match="w has 2 entries"):
        f.criterion([1.0, 2.0])
    with pytest.raises(NotFittedError):
        FisherLDA().criterion([1.0, 2.0, 3.0])


def test_labels_any_type_and_orientation(data):
    X, y = data
    f = FisherLDA().fit(X, y)
    g = FisherLDA().fit(X, np.where(y == 1, "b", "a"))
    np.testing.assert_allclose(g.coef_, f.coef_)
    h = FisherLDA().fit(X, np.where(y == 1, "a", "b"))  # positive class swapped
    np.testing.assert_allclose(h.coef_, -f.coef_)
    assert set(h.predict(X)) <= {"a", "b"}
    assert h.score(X, np.where(y == 1, "a", "b")) == pytest.approx(f.score(X, y))


def test_iris_versicolor_virginica_accuracy():
    X, y = load_iris(return_X_y=True)
    mask = y > 0
    f = FisherLDA().fit(X[mask], y[mask])
    assert f.score(X[mask], y[mask]) >= 0.95


def test_singular_within_scatter_raises_or_uses_ridge():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((4, 6))  # fewer samples than features
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="singular.*reg > 0"):
        FisherLDA().fit(X, y)
    f = FisherLDA(reg=1e-3).fit(X, y)
    assert f.score(X, y) == 1.0
    A = f.scatter_within_ + 1e-3 * np.eye(6)
    np.testing.assert_allclose(A @ f.coef_[0], f.means_[1] - f.means_[0], atol=1e-10)
    # a constant feature makes S_w singular too
    X2 = np.column_stack([rng.standard_normal(20), np.ones(20)])
    with pytest.raises(ValueError, match="singular"):
        FisherLDA().fit(X2, np.r_[np.zeros(10), np.ones(10)])


def test_identical_means_raise():
    # both classes are {(0, 1), (1, 0), (1, 1)}: equal means, invertible S_w
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="class means are identical"):
        FisherLDA().fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"threshold": "median"}, "FisherLDA: threshold must be one of 'midpoint', 'mean', 'bayes'; got 'median'"),
        ({"priors": [0.5, 0.6]}, "priors must sum to 1"),
        ({"priors": [1.0]}, "priors must have 2 entries"),
        ({"priors": [1.5, -0.5]}, "priors must be positive"),
        ({"reg": -1.0}, "reg must be a number in \\[0, inf\\)"),
    ],
)
def test_bad_parameters(data, params, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        FisherLDA(**params).fit(X, y)


# ---------------------------------------------------------------- c > 2 classes: reduced-rank LDA

MEANS4 = [[0, 0, 0, 0, 0], [2, 1, 0, 0, 0], [0, 3, 1, 0, 0], [1, 1, 2.5, 0.5, 0]]


@pytest.fixture(scope="module")
def data4():
    cov = 0.5 * np.eye(5) + 0.3
    return make_gaussian_classes(400, MEANS4, covs=cov, priors=[0.1, 0.2, 0.3, 0.4], random_state=3)


def test_iris_three_classes_agree_with_sklearn_eigen():
    X, y = load_iris(return_X_y=True)
    ours = FisherLDA().fit(X, y)
    theirs = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    assert ours.coef_.shape == (3, 4) and ours.intercept_.shape == (3,)
    assert ours.scalings_.shape == (4, 2) and ours.transform(X).shape == (150, 2)
    angles = subspace_angles(ours.scalings_, theirs.scalings_[:, :2])
    assert np.max(angles) < 1e-8
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-8, atol=1e-8)
    assert ours.score(X, y) == pytest.approx(theirs.score(X, y))


def test_many_classes_match_sklearn_transform_and_bayes_rule(data4):
    X, y = data4
    ours = FisherLDA(threshold="bayes").fit(X, y)
    theirs = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    # same normalisation (unit within-class variance under S_w / N): equal up to column signs
    Z, Z_sk = ours.transform(X), theirs.transform(X)
    assert Z.shape == (len(X), 3)
    signs = np.sign(np.sum(Z * Z_sk, axis=0))
    np.testing.assert_allclose(Z * signs, Z_sk, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(ours.eigenvalues_ / ours.eigenvalues_.sum(),
                               theirs.explained_variance_ratio_, rtol=1e-8)
    grid = np.random.default_rng(5).normal(1.0, 2.0, size=(3000, 5))
    np.testing.assert_array_equal(ours.predict(grid), theirs.predict(grid))
    np.testing.assert_allclose(ours.decision_function(grid), theirs.decision_function(grid),
                               rtol=1e-8, atol=1e-8)


def test_many_classes_generalised_eigenproblem_and_rank(data4):
    X, y = data4
    f = FisherLDA().fit(X, y)
    N = len(X)
    m = X.mean(axis=0)
    S_b = sum(np.sum(y == k) * np.outer(f.means_[k] - m, f.means_[k] - m) for k in range(4))
    np.testing.assert_allclose(f.scatter_between_, S_b, rtol=1e-10, atol=1e-10)
    S_w = f.scatter_within_
    np.testing.assert_allclose(S_b @ f.scalings_, S_w @ f.scalings_ * f.eigenvalues_,
                               rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(f.scalings_.T @ (S_w / N) @ f.scalings_, np.eye(3), atol=1e-10)
    values = eigh(S_b, S_w, eigvals_only=True)[::-1]          # scipy as twin
    np.testing.assert_allclose(f.eigenvalues_, values[:3], rtol=1e-9)
    assert np.all(np.abs(values[3:]) < 1e-10 * values[0])       # rank S_b <= c - 1
    assert np.linalg.matrix_rank(S_b) == 3
    assert f.criterion(f.scalings_[:, 0]) == pytest.approx(values[0])
    for w in np.random.default_rng(0).normal(size=(300, 5)):
        assert f.criterion(w) <= values[0] * (1 + 1e-12)
    with pytest.raises(ValueError, match="at most min\\(c - 1, d\\) = 3"):
        FisherLDA(n_components=4).fit(X, y)
    g = FisherLDA(n_components=1).fit(X, y)
    assert g.transform(X).shape == (len(X), 1)
    np.testing.assert_allclose(g.transform(X)[:, 0], f.transform(X)[:, 0])
    np.testing.assert_array_equal(g.predict(X), f.predict(X))   # predict ignores n_components


def test_many_classes_bayes_rule_with_priors_is_gaussian_log_posterior(data4):
    X, y = data4
    priors = np.array([0.4, 0.3, 0.2, 0.1])
    f = FisherLDA(threshold="bayes", priors=priors).fit(X, y)
    Sigma = f.scatter_within_ / len(X)
    x = np.random.default_rng(6).normal(1.0, 2.0, size=(500, 5))
    log_post = np.column_stack([multivariate_normal(f.means_[k], Sigma).logpdf(x) + np.log(priors[k])
                                for k in range(4)])
    scores = f.decision_function(x)
    # equal up to one additive term per sample (the shared quadratic and normalising terms)
    np.testing.assert_allclose(log_post - log_post[:, :1], scores - scores[:, :1], rtol=1e-9, atol=1e-9)


def test_midpoint_is_nearest_projected_class_mean(data4):
    X, y = data4
    f = FisherLDA().fit(X, y)
    x = np.random.default_rng(7).normal(1.0, 2.0, size=(2000, 5))
    Z, M = f.transform(x), f.transform(f.means_)
    nearest = np.argmin(((Z[:, None, :] - M[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(f.predict(x), f.classes_[nearest])
    # and it differs from the prior-weighted rule for these unequal class sizes
    assert np.any(FisherLDA(threshold="bayes").fit(X, y).predict(x) != f.predict(x))


def test_two_classes_scalings_and_eigenvalue(data):
    X, y = data
    f = FisherLDA().fit(X, y)
    assert f.scalings_.shape == (3, 1) and f.eigenvalues_.shape == (1,)
    assert cosine(f.scalings_[:, 0], f.coef_[0]) == pytest.approx(1.0)
    assert f.scalings_[:, 0] @ (f.scatter_within_ / len(X)) @ f.scalings_[:, 0] == pytest.approx(1.0)
    assert f.eigenvalues_[0] == pytest.approx(f.criterion(f.coef_))
    assert f.threshold_ is not None and f.transform(X).shape == (len(X), 1)
    # the multi-class S_b at c = 2 is N+ N- / N times the two-class one
    m = X.mean(axis=0)
    S_b_many = sum(np.sum(y == k) * np.outer(f.means_[k] - m, f.means_[k] - m) for k in (0, 1))
    n0, n1 = np.sum(y == 0), np.sum(y == 1)
    np.testing.assert_allclose(S_b_many, n0 * n1 / len(X) * f.scatter_between_, rtol=1e-10)


def test_many_classes_parameter_errors(data4):
    X, y = data4
    with pytest.raises(ValueError, match="threshold='mean' is defined for two classes only"):
        FisherLDA(threshold="mean").fit(X, y)
    with pytest.raises(ValueError, match="priors must have 4 entries"):
        FisherLDA(priors=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="n_components must be"):
        FisherLDA(n_components=0).fit(X, y)
    with pytest.raises(TypeError, match="n_components must be"):
        FisherLDA(n_components="two").fit(X, y)
    X3 = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 3)
    with pytest.raises(ValueError, match="All class means are identical"):
        FisherLDA().fit(X3, np.repeat([0, 1, 2], 3))


# --- review of 2026-11-25: D6 tags, D7 transform shape, D8 memory, D13 overflow


def test_threshold_mean_declares_two_classes_only():
    # The tags follow the parameter: "mean" refuses three classes, so it must
    # not declare multi-class support (18 scikit-learn checks failed on it).
    sklearn = pytest.importorskip("sklearn")
    from sklearn.utils import get_tags

    assert get_tags(FisherLDA()).classifier_tags.multi_class
    assert get_tags(FisherLDA(threshold="bayes")).classifier_tags.multi_class
    assert not get_tags(FisherLDA(threshold="mean")).classifier_tags.multi_class
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        FisherLDA(threshold="mean").fit(X, np.arange(30) % 3)
    del sklearn


def test_two_class_transform_feeds_a_pipeline():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression as SkLR
    from sklearn.pipeline import make_pipeline

    X = np.random.default_rng(0).normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    assert FisherLDA().fit_transform(X, y).shape == (80, 1)
    # w = S_w^{-1}(m+ - m-) is small (S_w sums over samples), hence a weak penalty
    pipe = make_pipeline(FisherLDA(), SkLR(C=1e6)).fit(X, y)
    assert pipe.score(X, y) > 0.9


@pytest.mark.parametrize("n_classes", [2, 4])
@pytest.mark.parametrize("threshold", ["midpoint", "bayes"])
def test_fewer_samples_than_features_reduces_exactly(n_classes, threshold, monkeypatch):
    # With N + c < d the solves run in the span of the data (r x r); the
    # answer must be the one of the full d x d computation.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(24, 60)) + 0.5 * (np.arange(24) % n_classes)[:, None]
    y = np.arange(24) % n_classes
    small = FisherLDA(reg=0.3, threshold=threshold).fit(X, y)
    import linclf.fisher as fisher_module

    full_init = fisher_module._Within.__init__

    def no_reduction(self, centred, offsets, S_w, reg):
        # pretend there are many samples: the d x d path
        full_init(self, np.vstack([centred, np.zeros((100, centred.shape[1]))]), offsets, S_w, reg)

    monkeypatch.setattr(fisher_module._Within, "__init__", no_reduction)
    big = FisherLDA(reg=0.3, threshold=threshold).fit(X, y)
    assert big.n_features_in_ == 60
    for name in ("coef_", "intercept_", "scalings_", "eigenvalues_", "scatter_within_"):
        np.testing.assert_allclose(getattr(small, name), getattr(big, name), rtol=1e-8, atol=1e-10,
                                   err_msg=name)


def test_many_features_few_samples_is_cheap_in_memory():
    # 40 x 4000, 10 classes: the (c, d, d) class scatters took 1.28 GB and the
    # d x d eigenproblem 30 s. Now only S_w and S_b (d x d each) are kept, and
    # the solves are 40-dimensional.
    tracemalloc = pytest.importorskip("tracemalloc")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2000)), np.arange(40) % 10
    tracemalloc.start()
    try:
        f = FisherLDA(reg=1.0).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    d2 = 2000 ** 2 * 8
    kept = sum(v.nbytes for v in vars(f).values() if isinstance(v, np.ndarray))
    assert kept < 2.1 * d2                     # S_w and S_b, not 10 class scatters
    assert peak < 4 * d2                       # was > 12 d^2 (the stack, A, L, L^-1, B, U)
    assert f.transform(X).shape == (40, 9)


def test_overflowing_scatter_is_a_clear_error():
    X = np.random.default_rng(0).normal(size=(80, 3)) * 1e300
    y = (X[:, 0] > 0).astype(int)
    # numpy said "SVD did not converge"
    with pytest.raises(ValueError, match="sum of squares overflows.*Rescale"):
        FisherLDA().fit(X, y)


# ---------------------------------------------------------------------------
# FisherLDA as a transformer: the names of its output columns
# ---------------------------------------------------------------------------


def test_get_feature_names_out_follows_sklearn_lda():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from linclf import FisherLDA

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4)) + np.repeat(np.eye(3, 4) * 3, 30, axis=0)
    y3 = np.repeat([0, 1, 2], 30)
    for y, n_out in ((y3, 2), (np.minimum(y3, 1), 1)):
        lda = FisherLDA().fit(X, y)
        names = lda.get_feature_names_out()
        sk = LinearDiscriminantAnalysis().fit(X, y).get_feature_names_out()
        assert names.dtype == object and sk.dtype == object
        assert list(names) == [f"fisherlda{i}" for i in range(n_out)]
        assert [n.replace("fisherlda", "") for n in names] == \
            [n.replace("lineardiscriminantanalysis", "") for n in sk]
        assert lda.transform(X).shape[1] == len(names)
    # in a Pipeline: the names of what the next step receives
    pipe = make_pipeline(StandardScaler(), FisherLDA(), SkLogisticRegression()).fit(X, y3)
    assert list(pipe[:-1].get_feature_names_out()) == ["fisherlda0", "fisherlda1"]
    assert pipe.score(X, y3) >= 0.9


def test_get_feature_names_out_checks_input_features_and_needs_a_fit():
    pd = pytest.importorskip("pandas")
    from linclf import FisherLDA, NotFittedError

    with pytest.raises(NotFittedError):
        FisherLDA().get_feature_names_out()
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    y = np.repeat([0, 1], 20)
    lda = FisherLDA().fit(X, y)
    assert list(lda.get_feature_names_out(["a", "b", "c"])) == ["fisherlda0"]
    with pytest.raises(ValueError, match="input_features is not equal to feature_names_in_"):
        lda.get_feature_names_out(["a", "b", "d"])
    with pytest.raises(ValueError, match="length equal to number of features"):
        FisherLDA().fit(X.to_numpy(), y).get_feature_names_out(["a", "b"])


def test_set_output_is_not_offered():
    # linclf has no set_output machinery (documented on FisherLDA.transform):
    # scikit-learn then refuses to configure pandas output, rather than
    # silently returning arrays
    from sklearn.pipeline import make_pipeline

    from linclf import FisherLDA

    assert not hasattr(FisherLDA(), "set_output")
    with pytest.raises(ValueError, match="set_output`? is not available"):
        make_pipeline(FisherLDA()).set_output(transform="pandas")


@pytest.mark.parametrize("check_name", [
    "check_transformer_get_feature_names_out", "check_transformer_get_feature_names_out_pandas",
    "check_get_feature_names_out_error",
])
def test_sklearn_feature_names_out_checks(check_name):
    # scikit-learn runs these on its own transformers only (not in check_estimator)
    pytest.importorskip("pandas")
    from sklearn.utils import estimator_checks

    from linclf import FisherLDA

    check = getattr(estimator_checks, check_name, None)
    if check is None:
        pytest.skip(f"this scikit-learn has no {check_name}")
    for est in (FisherLDA(), FisherLDA(n_components=1)):
        check("FisherLDA", est)
