"""Exercise set "kernels" (chapter 9): an RBF Gram matrix, a feature map, the kernel decision function.

Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..framework import ExerciseSet, as_array, assert_close, assert_expr, test

SET = ExerciseSet("kernels", "Kernels", "09_kernels", preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "rbf_gram",
    title="An RBF Gram matrix without loops",
    signature="def rbf_gram(X, Z, gamma):",
    doc=r"""
    K[i, j] = exp(-gamma * ||X[i] - Z[j]||^2), vectorised (no Python loop).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Z : ndarray of shape (m, d)
    gamma : float > 0

    Returns
    -------
    K : ndarray of shape (n, m)
    """,
)

SET.exercise(
    "poly2_features",
    title="The feature map of the quadratic kernel",
    signature="def poly2_features(X):",
    doc=r"""
    An explicit feature map phi: R^2 -> R^6 of the kernel
    K(x, z) = (x @ z + 1)^2, so that phi(x) @ phi(z) = K(x, z) for all x, z.

    Parameters
    ----------
    X : ndarray of shape (n, 2)

    Returns
    -------
    Phi : ndarray of shape (n, 6), row i is phi(X[i])
    """,
)

SET.exercise(
    "kernel_decision",
    title="The decision function of a kernel machine",
    signature="def kernel_decision(alpha, y, X_train, b, X_new, gamma):",
    doc=r"""
    f(x) = sum_i alpha_i y_i K(x_i, x) + b for every row x of X_new, with the
    RBF kernel K(x, z) = exp(-gamma ||x - z||^2) and the training points x_i
    in the rows of X_train.  Vectorise.

    Returns
    -------
    f : ndarray of shape (len(X_new),)
    """,
)

SET.exercise(
    "feature_distance",
    title="Distances in feature space, symbolically",
    signature="def feature_distance():",
    doc=r"""
    For the kernel K(x, z) = (x @ z + 1)^2 on R^2, return the squared
    distance ||phi(x) - phi(z)||^2 between the images of x = (x1, x2) and
    z = (z1, z2) in feature space, as a sympy expression in x1, x2, z1, z2.
    """,
    stub="""x1, x2, z1, z2 = sp.symbols("x1 x2 z1 z2", real=True)
return None  # replace None by your expression""",
)

X_K = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 1.0], [2.0, 2.0, 2.0]])
Z_K = np.array([[1.0, 1.0, 0.0], [-1.0, 0.0, 3.0]])
X_P = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]])
Z_P = np.array([[2.0, -1.0], [0.5, 0.5]])
X_TR = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [0.0, 2.0]])
Y_TR = np.array([-1.0, 1.0, 1.0, -1.0])
ALPHA_TR = np.array([0.5, 0.8, 0.3, 0.0])
X_NEW = np.array([[0.5, 0.5], [2.0, 1.0], [-1.0, 0.0]])


@test("rbf_gram", points=1)
def test_small_gram(f):
    K = f(np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0]]), 0.5)
    assert_close(K, [[0.6065306597126334], [0.36787944117144233]], "K")


@test("rbf_gram", points=2)
def test_rectangular_gram(f):
    expected = [[0.7788007830714049, 0.014264233908999256], [0.22313016014842982, 0.22313016014842982],
                [0.22313016014842982, 0.0301973834223185]]
    assert_close(f(X_K, Z_K, 0.25), expected, "K")


@test("rbf_gram", points=1)
def test_points_far_from_the_origin(f):
    X = np.array([[1000.0, -2000.0], [1000.5, -2000.0]])
    Z = np.array([[1000.0, -2000.0], [1001.0, -1999.0], [999.0, -2001.5]])
    expected = [[1.0, 0.2465969639416065, 0.1027969084352864],
                [0.8394570207692074, 0.4168620196785084, 0.04285212686704019]]
    assert_close(f(X, Z, 0.7), expected, "K", rtol=1e-5)


@test("poly2_features", points=1)
def test_feature_inner_products_same_points(f):
    Phi = as_array(f(X_P), (3, 6), "Phi")
    assert_close(Phi @ Phi.T, [[36.0, 1.0, 49.0], [1.0, 5.0625, 6.25], [49.0, 6.25, 100.0]],
                 "Phi @ Phi.T (should be (X @ X.T + 1)**2)", rtol=1e-9, atol=1e-9)


@test("poly2_features", points=2)
def test_feature_inner_products_other_points(f):
    Phi_X = as_array(f(X_P), (3, 6), "phi(X)")
    Phi_Z = as_array(f(Z_P), (2, 6), "phi(Z)")
    assert_close(Phi_X @ Phi_Z.T, [[1.0, 6.25], [2.25, 0.5625], [4.0, 6.25]],
                 "phi(X) @ phi(Z).T (should be (X @ Z.T + 1)**2)", rtol=1e-9, atol=1e-9)


@test("kernel_decision", points=2)
def test_decision_values(f):
    assert_close(f(ALPHA_TR, Y_TR, X_TR, -0.2, X_NEW, 1.0),
                 [0.006584697500959691, 0.20129841178904384, -0.3785123400452268], "f(X_new)")


@test("kernel_decision", points=1)
def test_decision_values_other_gamma(f):
    assert_close(f(ALPHA_TR, Y_TR, X_TR, 0.1, X_NEW, 0.3),
                 [0.4999223587498218, 0.8033349626756747, -0.07174332840019015], "f(X_new)")


@test("feature_distance", points=2)
def test_feature_distance(f):
    assert_expr(f(), "(x1**2 + x2**2 + 1)**2 + (z1**2 + z2**2 + 1)**2 - 2*(x1*z1 + x2*z2 + 1)**2",
                ["x1", "x2", "z1", "z2"], "||phi(x) - phi(z)||^2")
