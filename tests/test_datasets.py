import numpy as np
import pytest

from linclf.datasets import (
    Bunch,
    load_iris,
    make_circles,
    make_gaussian_classes,
    make_moons,
    make_separable,
    make_xor,
    perceptron_example,
)
from linclf.geometry import signed_distance
from linclf.perceptron import Perceptron

GENERATORS = [
    lambda rs: make_gaussian_classes(50, [[0, 0], [2, 2], [0, 3]], random_state=rs),
    lambda rs: make_xor(50, random_state=rs),
    lambda rs: make_circles(50, random_state=rs),
    lambda rs: make_moons(50, random_state=rs),
    lambda rs: make_separable(50, random_state=rs),
]


@pytest.mark.parametrize("make", GENERATORS)
def test_generators_are_deterministic(make):
    X1, y1 = make(3)
    X2, y2 = make(3)
    X3, _ = make(4)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(X1, X3)
    assert X1.shape[0] == y1.shape[0] == 50 and X1.ndim == 2
    assert np.all(np.isfinite(X1))
    assert y1.dtype.kind == "i" and y1.min() == 0
    # default seed is fixed too
    np.testing.assert_array_equal(make(0)[0], make(0)[0])


def test_gaussian_classes_counts_means_and_covariances():
    means = [[0.0, 0.0], [5.0, -5.0]]
    cov = [[2.0, 0.8], [0.8, 1.0]]
    X, y = make_gaussian_classes(4000, means, covs=cov, priors=[0.3, 0.7], random_state=1)
    np.testing.assert_array_equal(np.bincount(y), [1200, 2800])
    for k in (0, 1):
        np.testing.assert_allclose(X[y == k].mean(0), means[k], atol=0.1)
        np.testing.assert_allclose(np.cov(X[y == k].T), cov, atol=0.15)
    # counts are exact for awkward splits, and samples are shuffled
    _, y = make_gaussian_classes(10, [[0], [1], [2]], random_state=0)
    assert sorted(np.bincount(y)) == [3, 3, 4]
    assert not np.all(np.diff(y) >= 0)


def test_gaussian_classes_scalar_and_per_class_covariances():
    X, y = make_gaussian_classes(2000, [[0, 0], [0, 0]], covs=[np.eye(2) * 0.01, np.eye(2) * 4.0])
    assert X[y == 0].std() < 0.2 < 1.5 < X[y == 1].std()
    X, y = make_gaussian_classes(2000, [[0, 0], [0, 0]], covs=0.25)
    assert X.std() == pytest.approx(0.5, rel=0.1)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"means": [[0, 0]]}, ValueError, "k >= 2"),
        ({"means": [[0, 0], [1, 1]], "covs": [[1, 2], [2, 1]]}, ValueError, "not positive semi-definite"),
        ({"means": [[0, 0], [1, 1]], "covs": [[1, 2], [0, 1]]}, ValueError, "symmetric"),
        ({"means": [[0, 0], [1, 1]], "covs": np.ones((3, 2, 2))}, ValueError, "covs must be"),
        ({"means": [[0, 0], [1, 1]], "priors": [0.2, 0.2]}, ValueError, "priors must sum to 1"),
        ({"means": [[0, 0], [1, 1]], "priors": [1.2, -0.2]}, ValueError, "positive"),
        ({"means": [[0, 0], [1, 1]], "n_samples": 1}, ValueError, "n_samples must be >= 2"),
        ({"means": [[0, 0], [1, 1]], "n_samples": 10.5}, TypeError, "n_samples must be an integer"),
    ],
)
def test_gaussian_classes_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_gaussian_classes(**kwargs)


def test_xor_labels_follow_quadrants():
    X, y = make_xor(400, noise=0.2)
    same_sign = X[:, 0] * X[:, 1] > 0
    assert np.mean(same_sign == (y == 1)) > 0.97
    assert np.bincount(y).tolist() == [200, 200]


def test_circles_radii():
    X, y = make_circles(200, noise=0.0, factor=0.3)
    r = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(r[y == 0], 1.0)
    np.testing.assert_allclose(r[y == 1], 0.3)
    with pytest.raises(ValueError, match="factor must be in \\(0, 1\\)"):
        make_circles(factor=1.5)
    with pytest.raises(ValueError, match="noise must be >= 0"):
        make_circles(noise=-1)


def test_moons_shape():
    X, y = make_moons(100, noise=0.0)
    up, low = X[y == 0], X[y == 1]
    np.testing.assert_allclose(np.linalg.norm(up, axis=1), 1.0)
    np.testing.assert_allclose(np.linalg.norm(low - [1.0, 0.5], axis=1), 1.0)
    assert np.all(up[:, 1] >= 0) and np.all(low[:, 1] <= 0.5)


@pytest.mark.parametrize("n_features", [1, 2, 5])
def test_separable_has_the_promised_margin(n_features):
    X, y, w, b = make_separable(101, margin=0.7, n_features=n_features, random_state=2,
                                return_hyperplane=True)
    assert X.shape == (101, n_features)
    assert np.linalg.norm(w) == pytest.approx(1.0)
    r = signed_distance(X, w, b)
    assert np.all(r[y == 1] >= 0.7) and np.all(r[y == 0] <= -0.7)
    assert np.bincount(y).tolist() == [50, 51]
    assert Perceptron().fit(X, y).score(X, y) == 1.0


def test_separable_bad_input():
    with pytest.raises(ValueError, match="margin must be >= 0"):
        make_separable(margin=-1)
    with pytest.raises(ValueError, match="n_features must be >= 1"):
        make_separable(n_features=0)


def test_perceptron_example():
    X, y = perceptron_example()
    np.testing.assert_array_equal(X, [[3, 3], [4, 3], [1, 1]])
    np.testing.assert_array_equal(y, [1, 1, -1])


def test_load_iris():
    iris = load_iris()
    assert isinstance(iris, Bunch)
    assert iris.data.shape == (150, 4)
    np.testing.assert_array_equal(np.bincount(iris.target), [50, 50, 50])
    assert list(iris.target_names) == ["setosa", "versicolor", "virginica"]
    assert iris.feature_names == ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    assert iris["data"] is iris.data
    # the two samples where the UCI copy departs from Fisher's paper
    np.testing.assert_array_equal(iris.data[34], [4.9, 3.1, 1.5, 0.2])
    np.testing.assert_array_equal(iris.data[37], [4.9, 3.6, 1.4, 0.1])
    np.testing.assert_allclose(iris.data.sum(axis=0), [876.5, 458.6, 563.7, 179.9])
    X, y = load_iris(return_X_y=True)
    np.testing.assert_array_equal(X, iris.data)
    np.testing.assert_array_equal(y, iris.target)


def test_load_iris_matches_scikit_learn():
    sk = pytest.importorskip("sklearn.datasets")
    X, y = load_iris(return_X_y=True)
    Xs, ys = sk.load_iris(return_X_y=True)
    np.testing.assert_array_equal(X, Xs)
    np.testing.assert_array_equal(y, ys)


def test_bunch_attribute_errors():
    b = Bunch(a=1)
    b.c = 3
    assert b["c"] == 3 and b.a == 1
    with pytest.raises(AttributeError):
        b.missing
