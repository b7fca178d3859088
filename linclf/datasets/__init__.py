"""Small deterministic data sets for the book and the tests.

Every generator takes ``random_state`` (default 0, so a call without it always
returns the same data), returns ``(X, y)`` with ``X`` of shape
``(n_samples, n_features)``, and labels the classes ``0, 1, ...`` (except
:func:`perceptron_example`, which uses the book's :math:`\\pm 1`). Samples are
returned in random order, since the perceptron's result depends on it.
"""

from __future__ import annotations

import csv
import numbers
from importlib import resources

import numpy as np

from .._validation import check_positive, check_random_state

__all__ = [
    "Bunch",
    "make_gaussian_classes",
    "make_xor",
    "make_circles",
    "make_moons",
    "make_separable",
    "perceptron_example",
    "load_iris",
]


class Bunch(dict):
    """A dict whose keys are also attributes (``b.data`` is ``b["data"]``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        self[key] = value

    def __dir__(self):
        return list(self.keys())


def _check_n_samples(n_samples, minimum, name="n_samples"):
    if isinstance(n_samples, bool) or not isinstance(n_samples, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an integer; got {n_samples!r}.")
    if n_samples < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {n_samples}.")
    return int(n_samples)


def _split_counts(n, weights):
    """Split ``n`` into integer counts proportional to ``weights`` (largest remainder)."""
    exact = n * np.asarray(weights, dtype=float) / np.sum(weights)
    counts = np.floor(exact).astype(int)
    leftover = n - counts.sum()
    counts[np.argsort(counts - exact, kind="stable")[:leftover]] += 1
    return counts


def _shuffle(X, y, rng):
    perm = rng.permutation(X.shape[0])
    return X[perm], y[perm]


def _class_covariances(covs, k, d):
    """Turn ``covs`` (None, scalar, one matrix or k matrices) into k validated matrices."""
    if covs is None:
        covs = np.eye(d)
    C = np.asarray(covs, dtype=float)
    if C.ndim == 0:
        C = C * np.eye(d)
    if C.ndim == 2:
        C = np.broadcast_to(C, (k, d, d))
    if C.shape != (k, d, d):
        raise ValueError(
            f"covs must be None, a number, one ({d}, {d}) matrix or {k} of them; got shape {C.shape}."
        )
    for j, S in enumerate(C):
        if not np.all(np.isfinite(S)) or not np.allclose(S, S.T):
            raise ValueError(f"covs[{j}] must be a finite symmetric matrix.")
        if np.linalg.eigvalsh(S)[0] < -1e-12 * max(1.0, np.abs(S).max()):
            raise ValueError(f"covs[{j}] is not positive semi-definite.")
    return C


def make_gaussian_classes(n_samples=200, means=((-1.0, 0.0), (1.0, 0.0)), covs=None,
                          priors=None, random_state=0):
    """Samples from :math:`k` Gaussian classes :math:`\\mathcal{N}(\\boldsymbol\\mu_j, \\Sigma_j)`.

    Parameters
    ----------
    n_samples : int, default=200
        Total number of samples.
    means : array_like of shape (k, n_features)
        Class means; ``k >= 2``.
    covs : None, float, array of shape (d, d) or (k, d, d), default=None
        Covariances: ``None`` is the identity, a number ``s`` means ``s * I``,
        one matrix is shared by all classes (the setting where Fisher's rule is
        Bayes-optimal).
    priors : array_like of shape (k,) or None, default=None
        Class proportions; the counts are ``n_samples * priors`` rounded so
        they sum to ``n_samples`` (not random). ``None``: equal counts.
    random_state : None, int or numpy Generator, default=0

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,), values ``0..k-1``
    """
    M = np.asarray(means, dtype=float)
    if M.ndim != 2 or M.shape[0] < 2 or not np.all(np.isfinite(M)):
        raise ValueError(
            f"means must be a finite array of shape (k, n_features) with k >= 2; got shape {M.shape}."
        )
    k, d = M.shape
    n = _check_n_samples(n_samples, k)
    C = _class_covariances(covs, k, d)
    if priors is None:
        priors = np.ones(k)
    priors = np.asarray(priors, dtype=float)
    if priors.shape != (k,) or not np.all(np.isfinite(priors)) or np.any(priors <= 0):
        raise ValueError(f"priors must be {k} positive numbers; got {priors.tolist()}.")
    if not np.isclose(priors.sum(), 1.0) and not np.allclose(priors, 1.0):
        raise ValueError(f"priors must sum to 1; got {priors.tolist()}.")
    rng = check_random_state(random_state)
    counts = _split_counts(n, priors)
    X = np.vstack([rng.multivariate_normal(M[j], C[j], size=counts[j]) for j in range(k)])
    y = np.repeat(np.arange(k), counts)
    return _shuffle(X, y, rng)


def make_xor(n_samples=200, noise=0.35, random_state=0):
    """The XOR problem: four Gaussian blobs at :math:`(\\pm1, \\pm1)`.

    Class 1 is the blobs at :math:`(1,1)` and :math:`(-1,-1)` (where
    :math:`x_1 x_2 > 0`), class 0 the other two. No line separates them.

    Parameters
    ----------
    n_samples : int, default=200
        Split as evenly as possible over the four blobs (at least 4).
    noise : float, default=0.35
        Standard deviation of each blob.
    random_state : None, int or numpy Generator, default=0

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of int, shape (n_samples,)
    """
    n = _check_n_samples(n_samples, 4)
    check_positive(noise, "noise", strict=False)
    rng = check_random_state(random_state)
    centres = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    counts = _split_counts(n, np.ones(4))
    blob = np.repeat(np.arange(4), counts)
    X = centres[blob] + noise * rng.standard_normal((n, 2))
    y = (blob < 2).astype(int)
    return _shuffle(X, y, rng)


def make_circles(n_samples=200, noise=0.05, factor=0.5, random_state=0):
    """Two concentric circles: radius 1 (class 0) and radius ``factor`` (class 1).

    Parameters
    ----------
    n_samples : int, default=200
    noise : float, default=0.05
        Standard deviation of Gaussian noise added to each coordinate.
    factor : float, default=0.5
        Radius of the inner circle, in (0, 1).
    random_state : None, int or numpy Generator, default=0

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of int, shape (n_samples,)
    """
    n = _check_n_samples(n_samples, 2)
    check_positive(noise, "noise", strict=False)
    check_positive(factor, "factor")
    if not factor < 1:
        raise ValueError(f"factor must be in (0, 1); got {factor!r}.")
    rng = check_random_state(random_state)
    n_outer = n - n // 2
    y = np.r_[np.zeros(n_outer, dtype=int), np.ones(n // 2, dtype=int)]
    radius = np.where(y == 0, 1.0, float(factor))
    theta = rng.uniform(0.0, 2.0 * np.pi, size=n)
    X = radius[:, None] * np.column_stack([np.cos(theta), np.sin(theta)])
    X += noise * rng.standard_normal(X.shape)
    return _shuffle(X, y, rng)


def make_moons(n_samples=200, noise=0.1, random_state=0):
    """Two interleaving half circles.

    Class 0: the upper half of the unit circle centred at :math:`(0, 0)`;
    class 1: the lower half of the unit circle centred at :math:`(1, 0.5)`.

    Parameters
    ----------
    n_samples : int, default=200
    noise : float, default=0.1
        Standard deviation of Gaussian noise added to each coordinate.
    random_state : None, int or numpy Generator, default=0

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of int, shape (n_samples,)
    """
    n = _check_n_samples(n_samples, 2)
    check_positive(noise, "noise", strict=False)
    rng = check_random_state(random_state)
    n_upper = n - n // 2
    y = np.r_[np.zeros(n_upper, dtype=int), np.ones(n // 2, dtype=int)]
    t = rng.uniform(0.0, np.pi, size=n)
    upper = np.column_stack([np.cos(t), np.sin(t)])
    lower = np.column_stack([1.0 - np.cos(t), 0.5 - np.sin(t)])
    X = np.where((y == 0)[:, None], upper, lower)
    X = X + noise * rng.standard_normal(X.shape)
    return _shuffle(X, y, rng)


def make_separable(n_samples=100, margin=0.5, n_features=2, random_state=0,
                   return_hyperplane=False):
    """Two classes separated by a known hyperplane with a guaranteed margin.

    A random unit normal :math:`\\mathbf{w}` and offset :math:`b \\in [-1, 1]`
    are drawn; each sample gets a signed distance :math:`t` with
    :math:`|t| \\ge` ``margin`` (``margin`` plus a half-normal amount) and a
    Gaussian position along the hyperplane, so that
    :math:`\\mathbf{w}^\\top\\mathbf{x} + b = t`. Class 1 is the side
    :math:`t > 0`; the classes have ``n_samples // 2`` and the remaining
    samples.

    Parameters
    ----------
    n_samples : int, default=100
        At least 2.
    margin : float, default=0.5
        Every sample is at distance at least ``margin`` (>= 0) from the
        hyperplane, so the data are linearly separable with geometric margin
        at least ``margin``.
    n_features : int, default=2
    random_state : None, int or numpy Generator, default=0
    return_hyperplane : bool, default=False
        Also return the true ``w`` (unit norm, shape (n_features,)) and ``b``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,)
    w : ndarray of shape (n_features,), only if ``return_hyperplane``
    b : float, only if ``return_hyperplane``
    """
    n = _check_n_samples(n_samples, 2)
    check_positive(margin, "margin", strict=False)
    d = _check_n_samples(n_features, 1, name="n_features")
    rng = check_random_state(random_state)
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    b = float(rng.uniform(-1.0, 1.0))
    y = np.r_[np.zeros(n // 2, dtype=int), np.ones(n - n // 2, dtype=int)]
    t = np.where(y == 1, 1.0, -1.0) * (margin + np.abs(rng.standard_normal(n)))
    # Gaussian spread inside the hyperplane: remove the component along w
    spread = 2.0 * rng.standard_normal((n, d))
    spread -= np.outer(spread @ w, w)
    X = (t - b)[:, None] * w + spread
    X, y = _shuffle(X, y, rng)
    if return_hyperplane:
        return X, y, w, b
    return X, y


def perceptron_example():
    """The three-point example of the perceptron chapter.

    :math:`\\mathbf{x}_1 = (3, 3)` and :math:`\\mathbf{x}_2 = (4, 3)` are
    positive, :math:`\\mathbf{x}_3 = (1, 1)` is negative. From a zero start with
    :math:`\\eta = 1`, visiting the points in this order, the perceptron makes
    7 corrections (with :math:`x_1, x_3, x_3, x_3, x_1, x_3, x_3`) and stops at
    :math:`\\mathbf{w} = (1, 1)`, :math:`b = -3`.

    Returns
    -------
    X : ndarray of shape (3, 2)
    y : ndarray of int, shape (3,), values in {-1, +1}
    """
    X = np.array([[3.0, 3.0], [4.0, 3.0], [1.0, 1.0]])
    y = np.array([1, 1, -1])
    return X, y


_IRIS_FEATURES = ["sepal_length", "sepal_width", "petal_length", "petal_width"]


def load_iris(return_X_y=False):
    """Fisher's iris data: 150 flowers, 4 measurements (cm), 3 species.

    The numbers are those of the copy bundled with scikit-learn, which agrees
    with Fisher's 1936 paper (and with R's ``iris``). The widely circulated UCI
    repository copy differs from the paper in two samples: sample 35 (UCI
    4.9, 3.1, 1.5, **0.1**; paper 0.2 in the last feature) and sample 38 (UCI
    4.9, **3.1, 1.5**, 0.1; paper 3.6, 1.4). So results computed on the UCI
    copy can differ slightly from ours.

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a :class:`Bunch`.

    Returns
    -------
    Bunch with ``data`` (150, 4), ``target`` (150,) in {0, 1, 2},
    ``target_names`` (setosa, versicolor, virginica) and ``feature_names``;
    or ``(data, target)``.
    """
    path = resources.files("linclf.datasets").joinpath("data", "iris.csv")
    with path.open("r", encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    if header != _IRIS_FEATURES + ["species"]:
        raise ValueError(f"unexpected header in {path}: {header}")
    data = np.array([[float(v) for v in row[:4]] for row in rows])
    species = [row[4] for row in rows]
    target_names = np.array(sorted(set(species)))
    target = np.searchsorted(target_names, species)
    if return_X_y:
        return data, target
    return Bunch(
        data=data,
        target=target,
        target_names=target_names,
        feature_names=list(_IRIS_FEATURES),
    )
