"""Kernels: Gram matrices against scikit-learn, PSD checks, the polynomial feature map."""

import numpy as np
import pytest
from sklearn.metrics import pairwise

from linclf import kernels as K


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(25, 3)), rng.normal(size=(15, 3))


@pytest.mark.parametrize(
    "ours, theirs, params",
    [
        (K.linear_kernel, pairwise.linear_kernel, {}),
        (K.polynomial_kernel, pairwise.polynomial_kernel, {"degree": 3, "gamma": 0.7, "coef0": 1.5}),
        (K.polynomial_kernel, pairwise.polynomial_kernel, {"degree": 2, "gamma": 1.0, "coef0": 0.0}),
        (K.rbf_kernel, pairwise.rbf_kernel, {"gamma": 0.3}),
        (K.laplacian_kernel, pairwise.laplacian_kernel, {"gamma": 0.3}),
        (K.sigmoid_kernel, pairwise.sigmoid_kernel, {"gamma": 0.2, "coef0": -0.5}),
    ],
)
def test_gram_matches_sklearn(data, ours, theirs, params):
    X, Z = data
    np.testing.assert_allclose(ours(X, Z, **params), theirs(X, Z, **params), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours(X, **params), theirs(X, **params), rtol=1e-12, atol=1e-12)


def test_default_gamma_is_one_over_d(data):
    X, Z = data
    np.testing.assert_allclose(K.rbf_kernel(X, Z), pairwise.rbf_kernel(X, Z, gamma=1 / 3))


def test_rbf_diagonal_is_exactly_one_and_entries_bounded():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 5)) * 1e3  # big norms: the expansion cancels badly
    G = K.rbf_kernel(X, gamma=1e-6)
    assert np.all(np.diag(G) == 1.0)
    assert np.all(G <= 1.0) and np.all(G > 0)


def test_gram_matrix_and_get_kernel(data):
    X, Z = data
    np.testing.assert_allclose(K.gram_matrix(X, "rbf", Z, gamma=0.5), pairwise.rbf_kernel(X, Z, gamma=0.5))
    np.testing.assert_allclose(K.gram_matrix(X, "polynomial", degree=2, gamma=1.0, coef0=1.0),
                               (X @ X.T + 1) ** 2)
    f = K.get_kernel(lambda A, B: A @ B.T)
    np.testing.assert_allclose(f(X, Z), X @ Z.T)


def test_get_kernel_errors(data):
    X, _ = data
    with pytest.raises(ValueError, match="Unknown kernel 'cosine'.*'laplacian'.*'linear'"):
        K.get_kernel("cosine")
    with pytest.raises(TypeError, match="takes the parameters"):
        K.get_kernel("linear", gamma=1.0)
    with pytest.raises(TypeError, match="string or a callable"):
        K.get_kernel(3)
    bad = K.get_kernel(lambda A, B: np.ones((A.shape[0], B.shape[0] + 1)))
    with pytest.raises(ValueError, match=r"shape \(25, 26\); expected \(25, 25\)"):
        bad(X)


@pytest.mark.parametrize("gamma", [0, -1.0, np.nan, np.inf])
def test_bad_gamma(data, gamma):
    X, _ = data
    with pytest.raises(ValueError, match="gamma"):
        K.rbf_kernel(X, gamma=gamma)


def test_bad_inputs(data):
    X, Z = data
    with pytest.raises(ValueError, match="same number of features"):
        K.rbf_kernel(X, Z[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        K.linear_kernel(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="degree"):
        K.polynomial_kernel(X, degree=0)
    with pytest.raises(TypeError, match="degree"):
        K.polynomial_kernel(X, degree=2.5)


def test_psd_true_for_rbf_poly_linear(data):
    X, _ = data
    assert K.is_psd(K.rbf_kernel(X, gamma=0.5))
    assert K.is_psd(K.polynomial_kernel(X, degree=3, gamma=1.0, coef0=1.0))
    assert K.is_psd(K.linear_kernel(X))  # rank 3 < 25: zero eigenvalues are fine


def test_sigmoid_kernel_is_not_psd_concrete_example():
    # x1 = 1, x2 = 2, gamma = 1, c0 = 0: K = [[tanh 1, tanh 2], [tanh 2, tanh 4]],
    # det = tanh(1) tanh(4) - tanh(2)^2 = 0.761 - 0.929 < 0, so one eigenvalue is negative.
    X = np.array([[1.0], [2.0]])
    G = K.sigmoid_kernel(X, gamma=1.0, coef0=0.0)
    assert np.linalg.det(G) == pytest.approx(np.tanh(1) * np.tanh(4) - np.tanh(2) ** 2)
    assert np.linalg.eigvalsh(G)[0] < -0.09
    assert not K.is_psd(G)


def test_is_psd_rejects_asymmetric_and_non_square():
    assert not K.is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        K.is_psd(np.ones((2, 3)))


@pytest.mark.parametrize("degree", [1, 2, 3, 4])
@pytest.mark.parametrize("coef0", [0.0, 1.0, 2.5])
def test_polynomial_features_reproduce_kernel(degree, coef0):
    rng = np.random.default_rng(degree)
    x, z = rng.normal(size=(2, 1, 3))
    phi_x = K.polynomial_features(x, degree=degree, coef0=coef0)
    phi_z = K.polynomial_features(z, degree=degree, coef0=coef0)
    assert phi_x.shape == (1, K.n_polynomial_features(3, degree) + 1)
    np.testing.assert_allclose(phi_x @ phi_z.T, (x @ z.T + coef0) ** degree, rtol=1e-10, atol=1e-13)


def test_polynomial_features_degree2_in_2d_is_the_textbook_map():
    x = np.array([[2.0, 3.0]])
    s2 = np.sqrt(2)
    expected = [1, s2 * 2, s2 * 3, 4, s2 * 6, 9]
    np.testing.assert_allclose(K.polynomial_features(x, degree=2, coef0=1.0)[0], expected)
    with pytest.raises(ValueError, match="coef0 must be >= 0"):
        K.polynomial_features(x, coef0=-1.0)


def test_n_polynomial_features_counts():
    # the two counts that the sources mix up: 3 + 6 = 9 and 9 + 10 = 19
    assert K.n_polynomial_features(3, 2) == 9
    assert K.n_polynomial_features(3, 3) == 19
    assert K.n_polynomial_features(2, 2) == 5
    with pytest.raises(ValueError):
        K.n_polynomial_features(0, 2)


# ---------------------------------------------------------------------------
# the Kernel object: one place for formulas, parameters and validation
# ---------------------------------------------------------------------------

SKLEARN_FORMULAS = {
    "linear": (pairwise.linear_kernel, {}),
    "poly": (pairwise.polynomial_kernel, {"degree": 3, "gamma": 0.7, "coef0": 1.5}),
    "rbf": (pairwise.rbf_kernel, {"gamma": 0.3}),
    "laplacian": (pairwise.laplacian_kernel, {"gamma": 0.3}),
    "sigmoid": (pairwise.sigmoid_kernel, {"gamma": 0.2, "coef0": -0.5}),
}


@pytest.mark.parametrize("name", sorted(SKLEARN_FORMULAS))
def test_kernel_object_block_factors_and_diagonal(data, name):
    X, Z = data
    theirs, params = SKLEARN_FORMULAS[name]
    kern = K.Kernel.from_params(name, **params)
    expected = theirs(X, Z, **params)
    np.testing.assert_allclose(kern(X, Z), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kern.diagonal(X), np.diag(theirs(X, **params)), rtol=1e-12, atol=1e-12)
    P, _ = kern.factors(X)
    if name == "laplacian":
        assert P is None  # an l1 distance has no factored form
    else:
        # the factored form the SMO row cache uses is the same formula
        _, Q = kern.factors(Z)
        np.testing.assert_allclose(kern.link(P @ Q.T), expected, rtol=1e-10, atol=1e-12)


def test_kernel_from_params_validates_and_resolves_gamma():
    X = np.random.default_rng(2).normal(size=(30, 4)) * 3
    assert K.Kernel.from_params("rbf", gamma="scale", X=X).gamma == pytest.approx(
        1 / (4 * X.var(axis=0).mean()))
    assert K.Kernel.from_params("poly", gamma="scale", X=X).gamma == pytest.approx(1 / (4 * X.var()))
    assert K.Kernel.from_params("gaussian", gamma="auto", X=X).gamma == 0.25
    assert K.Kernel.from_params("polynomial", gamma=2.0, degree=2.0).degree == 2
    assert K.Kernel.from_params("linear") == K.Kernel("linear")
    kern = K.Kernel.from_params("rbf", gamma=1.0)
    assert K.Kernel.from_params(kern) is kern
    with pytest.raises(ValueError, match="Unknown kernel 'cubic'"):
        K.Kernel.from_params("cubic")
    with pytest.raises(TypeError, match="string or a callable"):
        K.Kernel.from_params(3)
    with pytest.raises(ValueError, match="resolved from the data"):
        K.Kernel.from_params("rbf", gamma="scale")
    with pytest.raises(ValueError, match="> 0"):
        K.Kernel.from_params("rbf", gamma=-1.0)
    with pytest.raises(TypeError, match="positive integer"):
        K.Kernel.from_params("poly", gamma=1.0, degree=2.5)
    with pytest.raises(ValueError, match="overflows float64"):
        K.Kernel.from_params("rbf", gamma=1.0, X=np.array([[1e200, 0.0]]))


def test_callable_kernel_object_checks_output():
    X = np.random.default_rng(3).normal(size=(6, 2))
    kern = K.Kernel.from_params(lambda A, B: A @ B.T + 1)
    assert kern.name == "callable"
    np.testing.assert_allclose(kern(X), X @ X.T + 1)
    np.testing.assert_allclose(kern.diagonal(X), np.sum(X**2, axis=1) + 1)
    with pytest.raises(ValueError, match="shape"):
        K.Kernel.from_params(lambda A, B: A @ A.T)(X, X[:2])


def test_every_kernel_user_holds_the_kernel_object():
    from linclf import SVC, KernelPerceptron

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1).astype(int)
    for est in (SVC(kernel="poly", gamma=0.5, degree=2, coef0=1.0),
                KernelPerceptron(kernel="poly", gamma=0.5, degree=2, coef0=1.0, max_iter=50)):
        est.fit(X, y)
        assert est.kernel_ == K.Kernel("poly", gamma=0.5, degree=2, coef0=1.0)
        # the fitted model keeps the formula and its parameters, not a Gram matrix
        assert not any(isinstance(v, np.ndarray) and v.shape == (40, 40) for v in vars(est).values())


# ---------------------------------------------------------------------------
# translation invariance (E36): a common offset must not change rbf/laplacian
# ---------------------------------------------------------------------------


def test_rbf_gram_is_exact_under_a_large_common_offset():
    # the factored form -gamma(|x|^2 + |z|^2 - 2 x.z) cancels catastrophically
    # when |x|^2 ~ 1e16 dwarfs the distances; the kernel works on data centred
    # by the mean of the data it was built from, so the offset drops out
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(30, 3)), rng.normal(size=(20, 3))
    shift = np.array([0.0, 0.0, 1e8])
    for gamma in (0.5, "scale"):
        plain = K.Kernel.from_params("rbf", gamma=gamma, X=X)
        moved = K.Kernel.from_params("rbf", gamma=gamma, X=X + shift)
        assert moved.gamma == pytest.approx(plain.gamma, rel=1e-9)
        np.testing.assert_allclose(moved(X + shift, Z + shift), plain(X, Z), atol=1e-6)
        np.testing.assert_allclose(moved(X + shift), plain(X), atol=1e-6)
    np.testing.assert_allclose(K.rbf_kernel(X + shift, Z + shift, gamma=0.5),
                               K.rbf_kernel(X, Z, gamma=0.5), atol=1e-6)


def test_gamma_scale_of_translation_invariant_kernels_ignores_feature_offsets():
    # scikit-learn's "scale" is 1/(d X.var()) over all entries: one feature
    # offset by 1e6 makes it ~1e-12 and every kernel value ~1. For rbf and
    # laplacian the variance is taken per feature, so a shift changes nothing;
    # the other kernels keep scikit-learn's definition.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3)) * [1.0, 2.0, 3.0] + [0.5, -1.0, 0.0]
    Xo = X + [0.0, 0.0, 1e6]
    for name in ("rbf", "laplacian"):
        g = K.Kernel.from_params(name, gamma="scale", X=X).gamma
        assert g == pytest.approx(1 / (3 * X.var(axis=0).mean()))
        assert K.Kernel.from_params(name, gamma="scale", X=Xo).gamma == pytest.approx(g, rel=1e-8)
    for name in ("poly", "sigmoid"):
        assert K.Kernel.from_params(name, gamma="scale", X=X).gamma == pytest.approx(1 / (3 * X.var()))
