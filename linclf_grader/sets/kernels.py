"""Exercise set "kernels" (chapter 9): an RBF Gram matrix, the feature map of the cubic kernel,
the kernel decision function, distances in feature space, which constructions are kernels, the
kernel perceptron, and a faulty derivation of centring in feature space.

Expected values are literals computed once from the reference solutions.
"""

import numpy as np

from ..framework import (
    ExerciseSet,
    as_array,
    assert_close,
    assert_equal,
    test,
    unpack,
)
from ..pointwise import assert_values_at

SET = ExerciseSet("kernels", "Kernels", "09_kernels", preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "rbf_gram",
    title="An RBF Gram matrix without loops",
    signature="def rbf_gram(X, Xp, gamma):",
    kind="formula",
    hidden_tests=1,
    doc=r"""
    K[i, j] = exp(-gamma * ||X[i] - Xp[j]||^2), vectorised (no Python loop).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Xp : ndarray of shape (m, d), the second arguments x' of the kernel
    gamma : float > 0

    Returns
    -------
    K : ndarray of shape (n, m)
    """,
)

SET.exercise(
    "poly3_features",
    title="The feature map of the cubic kernel",
    signature="def poly3_features(X):",
    kind="derivation",  # the chapter displays the degree-2 map only; this one is derived
    hidden_tests=1,
    doc=r"""
    An explicit feature map phi: R^2 -> R^10 of the kernel
    k(x, x') = (x @ x' + 1)^3, so that phi(x) @ phi(x') = k(x, x') for all x, x'.

    Parameters
    ----------
    X : ndarray of shape (n, 2)

    Returns
    -------
    Phi : ndarray of shape (n, 10), row i is phi(X[i])
    """,
)

SET.exercise(
    "kernel_decision",
    title="The decision function of a kernel machine",
    signature="def kernel_decision(alpha, y, X_train, b, X_new, gamma):",
    kind="formula",
    hidden_tests=1,
    doc=r"""
    f(x) = sum_i alpha_i y_i k(x_i, x) + b for every row x of X_new, with the
    RBF kernel k(x, x') = exp(-gamma ||x - x'||^2) and the training points x_i
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
    kind="formula",
    hidden_tests=1,
    doc=r"""
    For the kernel k(x, x') = (x @ x' + 1)^2 on R^2, return the squared
    distance ||phi(x) - phi(x')||^2 between the images of x = (x1, x2) and
    x' = (xp1, xp2) in feature space, as a sympy expression in x1, x2, xp1, xp2.
    """,
    stub="""x1, x2, xp1, xp2 = sp.symbols("x1 x2 xp1 xp2", real=True)
return None  # replace None by your expression""",
)

#: the candidates of ``kernel_closure`` (k1, k2: any PSD kernels on R^d; g: any real function;
#: A: any matrix); the answer for each is whether it is a PSD kernel for every such choice
CANDIDATES = ("k1 + k2", "k1 - k2", "k1 * k2", "3 * k1", "-k1", "exp(k1)", "exp(k1) - 1", "k1 - 1",
              "k1 + 1", "(k1 + 2)**3", "k1**2 - k1", "tanh(k1)", "max(k1, k2)",
              "k1(x, x') / sqrt(k1(x, x) k1(x', x'))", "g(x) k1(x, x') g(x')", "k1(A x, A x')",
              "1 / (1 - k1)", "min(x, x')", "max(x, x')", "||x - x'||**2", "(x @ x' - 1)**2",
              "cos(x - x')")

SET.exercise(
    "kernel_closure",
    title="Which constructions are kernels?",
    signature="def kernel_closure(candidates):",
    kind="concept",
    hidden_tests=3,
    doc=r"""
    k1 and k2 are arbitrary PSD kernels on R^d, g an arbitrary real function
    on R^d and A an arbitrary matrix.  For each candidate below decide whether
    it is a PSD kernel for EVERY such choice (True) or not always (False).
    Fill in the dictionary; the function answers for the candidates asked.
    Assumptions under which a candidate is defined: the normalised kernel
    needs k1(x, x) > 0, "1 / (1 - k1)" needs |k1| < 1 everywhere,
    "min(x, x')" and "max(x, x')" are on [0, inf) (d = 1), "cos(x - x')" is
    on R (d = 1).

    Parameters
    ----------
    candidates : list of str, keys of IS_KERNEL

    Returns
    -------
    answers : list of bool, one per candidate, in the same order
    """,
    stub="IS_KERNEL = {\n" + "".join(f"    {c!r}: None,\n" for c in CANDIDATES)
         + "}\nreturn [IS_KERNEL[c] for c in candidates]",
)

SET.exercise(
    "kernel_perceptron",
    title="The kernel perceptron",
    signature="def kernel_perceptron(K, y, max_epochs=100):",
    kind="implementation",
    hidden_tests=2,
    doc=r"""
    Train the chapter's kernel perceptron, whose score is
    f(x) = sum_i alpha_i y_i (k(x_i, x) + 1) (the + 1 is the constant
    feature of the augmented vector), from alpha = 0.  Each epoch visits the
    training points in index order; a point with y_t f(x_t) <= 0 is a
    mistake and counts one more for alpha_t.  Stop after the first epoch
    without a mistake, or after max_epochs epochs.

    Parameters
    ----------
    K : ndarray of shape (N, N), the Gram matrix K[i, j] = k(x_i, x_j)
    y : ndarray of shape (N,), labels in {-1, +1}
    max_epochs : int

    Returns
    -------
    (alpha, b, converged) : ndarray of shape (N,), float, bool
        The mistake counts, the intercept b = sum_i alpha_i y_i, and whether
        an epoch without a mistake was reached.
    """,
)

SET.exercise(
    "centring_error",
    title="Find the error: centring in feature space",
    signature="def centring_error(K, K_new):",
    kind="find-the-error",  # neither the error nor the corrected matrices are in the chapter
    hidden_tests=2,
    doc=r"""
    A source centres the images of the training points x_1, ..., x_N in
    feature space, phi~(x) = phi(x) - m with m = (1/N) sum_k phi(x_k), and
    argues:

      (1) phi~(x_i) @ phi~(x_j)
              = K_ij - phi(x_i) @ m - m @ phi(x_j) + m @ m.
      (2) phi(x_i) @ m = (1/N) sum_k K_ik is the mean of row i of K, and
          m @ phi(x_j) is the mean of column j.
      (3) m @ m = 0, because the centred points phi~(x_k) have mean zero.
      (4) Hence the centred Gram matrix is K - 1_N K - K 1_N, where 1_N is
          the N x N matrix whose entries are all 1/N.

    Find the first wrong step.  Then compute, from kernel values alone, the
    centred Gram matrix K_c[i, j] = phi~(x_i) @ phi~(x_j) and the centred
    kernel values of new points z_a, K_new_c[a, j] = phi~(z_a) @ phi~(x_j),
    where z_a is centred with the same training mean m.  Vectorise.

    Parameters
    ----------
    K : ndarray of shape (N, N), K[i, j] = k(x_i, x_j)
    K_new : ndarray of shape (M, N), K_new[a, j] = k(z_a, x_j)

    Returns
    -------
    (step, K_c, K_new_c) : int, ndarray of shape (N, N), ndarray of shape (M, N)
    """,
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


@test("rbf_gram", points=1)
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


@test("poly3_features", points=1)
def test_feature_inner_products_same_points(f):
    Phi = as_array(f(X_P), (3, 10), "Phi")
    assert_close(Phi @ Phi.T, [[216.0, 1.0, 343.0], [1.0, 11.390625, 15.625], [343.0, 15.625, 1000.0]],
                 "Phi @ Phi.T (should be (X @ X.T + 1)**3)", rtol=1e-9, atol=1e-9)


@test("poly3_features", points=2)
def test_feature_inner_products_other_points(f):
    Phi_X = as_array(f(X_P), (3, 10), "phi(X)")
    Phi_Z = as_array(f(Z_P), (2, 10), "phi(Z)")
    assert_close(Phi_X @ Phi_Z.T, [[1.0, 15.625], [-3.375, 0.421875], [-8.0, 15.625]],
                 "phi(X) @ phi(Z).T (should be (X @ Z.T + 1)**3)", rtol=1e-9, atol=1e-9)


@test("kernel_decision", points=2)
def test_decision_values(f):
    assert_close(f(ALPHA_TR, Y_TR, X_TR, -0.2, X_NEW, 1.0),
                 [0.006584697500959691, 0.20129841178904384, -0.3785123400452268], "f(X_new)")


@test("kernel_decision", points=1)
def test_decision_values_other_gamma(f):
    assert_close(f(ALPHA_TR, Y_TR, X_TR, 0.1, X_NEW, 0.3),
                 [0.4999223587498218, 0.8033349626756747, -0.07174332840019015], "f(X_new)")


@test("feature_distance", points=1)
def test_feature_distance(f):
    """Values at four pairs of points (one pair equal: distance 0); the symbolic comparison is hidden."""
    cases = [(dict(x1=x1, x2=x2, xp1=xp1, xp2=xp2), value) for (x1, x2, xp1, xp2), value in (
        ((1.0, 2.0, 0.0, -1.0), 38.0), ((0.5, -1.0, 2.0, 0.5), 28.125), ((3.0, 0.0, 3.0, 0.0), 0.0),
        ((-1.0, 1.0, 1.0, -1.0), 16.0))]
    assert_values_at(f(), cases, ["x1", "x2", "xp1", "xp2"], "||phi(x) - phi(x')||^2")



# --------------------------------------------------------------------------
# which constructions are kernels
# --------------------------------------------------------------------------
ASKED_1 = ["k1 + k2", "k1 - k2", "k1 * k2", "tanh(k1)", "k1 - 1", "exp(k1)"]
ASKED_2 = ["min(x, x')", "max(k1, k2)", "3 * k1", "-k1", "k1 + 1", "||x - x'||**2"]


def _answers(got, n):
    if not isinstance(got, list) or len(got) != n:
        raise AssertionError(f"the answers should be a list of {n} booleans")
    if not all(isinstance(a, bool) for a in got):
        raise AssertionError("every answer should be True or False (fill in IS_KERNEL)")
    return np.array(got)


def _check_closure(f, asked, key):
    """The answers for ``asked`` against ``key``, all or nothing.  The message neither names nor
    counts the wrong ones: for a yes/no question a count, watched while one answer is flipped,
    gives the right answer away."""
    got = _answers(f(list(asked)), len(asked))
    if any(bool(a) != k for a, k in zip(got, key)):
        raise AssertionError(f"not all {len(asked)} answers for " + ", ".join(asked) + " are right")


@test("kernel_closure", points=1)
def test_closure_sums_products_differences(f):
    _check_closure(f, ASKED_1, [True, False, True, False, False, True])


@test("kernel_closure", points=1)
def test_closure_min_max_scaling(f):
    _check_closure(f, ASKED_2, [True, False, True, False, True, False])


# --------------------------------------------------------------------------
# the kernel perceptron
# --------------------------------------------------------------------------
X_EX = np.array([[3.0, 3.0], [4.0, 3.0], [1.0, 1.0]])
Y_EX = np.array([1.0, 1.0, -1.0])
X_8 = np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [2.0, 0.0],
                [0.0, 2.0], [0.5, -0.5]])
Y_8 = np.array([1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0])
X_XOR = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
Y_XOR = np.array([1.0, 1.0, -1.0, -1.0])


def kernel_perceptron_twin(X, y, kernel, max_epochs):
    """(alpha, b, converged) of linclf's KernelPerceptron with the callable ``kernel``."""
    import warnings

    from linclf.kernel_perceptron import KernelPerceptron

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = KernelPerceptron(kernel=kernel, max_iter=max_epochs).fit(X, y)
    return model.alpha_, float(model.intercept_[0]), bool(model.converged_)


def _alpha_b_conv(got):
    alpha, b, conv = unpack(got, 3, "the result (alpha, b, converged)")
    if not isinstance(conv, bool):
        raise AssertionError(f"converged should be True or False, got {type(conv).__name__}")
    return alpha, b, conv


@test("kernel_perceptron", points=2)
def test_kp_linear_kernel_is_the_primal_perceptron(f):
    """The worked example of chapter 3: w = (1, 1), b = -3 after 7 mistakes."""
    alpha, b, conv = _alpha_b_conv(f(X_EX @ X_EX.T, Y_EX, 100))
    assert_close(alpha, [2.0, 0.0, 5.0], "alpha")
    assert_close(b, -3.0, "b")
    assert_equal(conv, True, "converged")


@test("kernel_perceptron", points=2)
def test_kp_gaussian_kernel(f):
    K = np.exp(-0.5 * ((X_8[:, None, :] - X_8[None, :, :]) ** 2).sum(axis=2))
    alpha, b, conv = _alpha_b_conv(f(K, Y_8, 100))
    assert_close(alpha, [1.0, 4.0, 2.0, 4.0, 1.0, 3.0, 3.0, 4.0], "alpha")
    assert_close(b, 0.0, "b", atol=1e-12)
    assert_equal(conv, True, "converged")


@test("kernel_perceptron", points=1)
def test_kp_xor_with_the_linear_kernel_does_not_converge(f):
    alpha, b, conv = _alpha_b_conv(f(X_XOR @ X_XOR.T, Y_XOR, 4))
    assert_close(alpha, [4.0, 4.0, 4.0, 4.0], "alpha after 4 epochs")
    assert_equal(conv, False, "converged")


# --------------------------------------------------------------------------
# find the error: centring in feature space
# --------------------------------------------------------------------------
# training points (0, 1), (1, 1), (2, 0), (-1, 2) and new points (1, 0), (0, 0), (3, -1) under
# k(x, x') = (x @ x' + 1)^2; the expected values are (Phi - m) @ (Phi - m).T with the explicit map
K_C = np.array([[4.0, 4.0, 1.0, 9.0], [4.0, 9.0, 9.0, 4.0], [1.0, 9.0, 25.0, 1.0], [9.0, 4.0, 1.0, 36.0]])
K_C_NEW = np.array([[1.0, 4.0, 9.0, 0.0], [1.0, 1.0, 1.0, 1.0], [0.0, 9.0, 49.0, 16.0]])


def _centred(got, n, m):
    step, K_c, K_new_c = unpack(got, 3, "the result (step, K_c, K_new_c)")
    return step, as_array(K_c, (n, n), "K_c"), as_array(K_new_c, (m, n), "K_new_c")


@test("centring_error", points=2)
def test_centred_gram_of_the_training_points(f):
    _, K_c, _ = _centred(f(K_C, K_C_NEW), 4, 3)
    assert_close(K_c, [[3.125, 1.125, -4.375, 0.125], [1.125, 4.125, 1.625, -6.875],
                       [-4.375, 1.625, 15.125, -12.375], [0.125, -6.875, -12.375, 19.125]],
                 "K_c", rtol=1e-9, atol=1e-9)


@test("centring_error", points=1)
def test_centred_kernel_of_new_points(f):
    _, _, K_new_c = _centred(f(K_C, K_C_NEW), 4, 3)
    assert_close(K_new_c, [[1.125, 2.125, 4.625, -7.875], [3.625, 1.625, -0.875, -4.375],
                           [-14.875, -7.875, 29.625, -6.875]], "K_new_c", rtol=1e-9, atol=1e-9)
