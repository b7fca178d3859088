r"""Kernel functions, Gram matrices and the explicit polynomial feature map.

A kernel is a function :math:`k(\mathbf{x}, \mathbf{x}')` that equals an inner
product :math:`\phi(\mathbf{x})^\top \phi(\mathbf{x}')` in some feature space.
Every function here takes two data matrices ``X`` of shape ``(n, d)`` and ``Z``
of shape ``(m, d)`` (rows :math:`\mathbf{x}'_j`) and returns the ``(n, m)``
matrix :math:`K` of all pairwise kernel values, computed without Python loops.

The parametrisation follows scikit-learn, so the Gram matrices can be compared
entry by entry with :mod:`sklearn.metrics.pairwise`. In the book's notation
(``gamma`` is the code's parameter name; it is not a margin):

==============  =====================================================
``"linear"``    :math:`\mathbf{x}^\top \mathbf{x}'`
``"poly"``      :math:`(\texttt{gamma}\,\mathbf{x}^\top \mathbf{x}' + c_0)^p`
``"rbf"``       :math:`\exp(-\lVert \mathbf{x} - \mathbf{x}' \rVert_2^2/(2\sigma^2))`, ``gamma`` :math:`= 1/(2\sigma^2)`
``"laplacian"`` :math:`\exp(-\lVert \mathbf{x} - \mathbf{x}' \rVert_1/\sigma)`, ``gamma`` :math:`= 1/\sigma`
``"sigmoid"``   :math:`\tanh(\theta\,\mathbf{x}^\top \mathbf{x}' + c_0)`, ``gamma`` :math:`= \theta` (not PSD in general)
==============  =====================================================
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from ._validation import check_array

__all__ = [
    "KERNELS",
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "laplacian_kernel",
    "sigmoid_kernel",
    "gram_matrix",
    "get_kernel",
    "is_psd",
    "polynomial_features",
    "n_polynomial_features",
]


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------


def _check_pair(X, Z):
    """Validate ``X`` and ``Z`` (``Z=None`` means ``Z = X``) as 2-D float arrays."""
    X = check_array(X, name="X")
    if Z is None:
        return X, X
    Z = check_array(Z, name="Z")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(
            f"X and Z must have the same number of features; got {X.shape[1]} and {Z.shape[1]}."
        )
    return X, Z


def _check_gamma(gamma, n_features):
    """``None`` means ``1 / n_features`` (scikit-learn's default); else a float > 0."""
    if gamma is None:
        return 1.0 / n_features
    if isinstance(gamma, bool) or not isinstance(gamma, (numbers.Real, np.number)):
        raise TypeError(f"gamma must be a positive number; got {gamma!r}.")
    if not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be a finite number > 0; got {gamma!r}.")
    return float(gamma)


def _check_coef0(coef0):
    if isinstance(coef0, bool) or not isinstance(coef0, (numbers.Real, np.number)):
        raise TypeError(f"coef0 must be a real number; got {coef0!r}.")
    if not np.isfinite(coef0):
        raise ValueError(f"coef0 must be finite; got {coef0!r}.")
    return float(coef0)


def _check_degree(degree):
    if isinstance(degree, bool) or not isinstance(degree, (numbers.Integral, np.integer)):
        if isinstance(degree, (numbers.Real, np.number)) and float(degree).is_integer():
            degree = int(degree)
        else:
            raise TypeError(f"degree must be a positive integer; got {degree!r}.")
    if degree < 1:
        raise ValueError(f"degree must be a positive integer (>= 1); got {degree!r}.")
    return int(degree)


# ---------------------------------------------------------------------------
# the kernels
# ---------------------------------------------------------------------------


def linear_kernel(X, Z=None):
    r"""Linear kernel :math:`k(\mathbf{x}, \mathbf{x}') = \mathbf{x}^\top \mathbf{x}'`.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
        Defaults to ``X``.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    X, Z = _check_pair(X, Z)
    return X @ Z.T


def polynomial_kernel(X, Z=None, degree=3, gamma=1.0, coef0=1.0):
    r"""Polynomial kernel :math:`k(\mathbf{x}, \mathbf{x}') = (\texttt{gamma}\,\mathbf{x}^\top\mathbf{x}' + c_0)^p`.

    With :math:`c_0 \ge 0` it is the inner product of the monomials of degree
    :math:`\le p` (see :func:`polynomial_features`), hence positive semi-definite.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
    degree : int, default=3
        The degree :math:`p \ge 1`.
    gamma : float or None, default=1.0
        Scale of the inner product (> 0); ``None`` means ``1 / d``.
    coef0 : float, default=1.0
        The constant :math:`c_0`.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    X, Z = _check_pair(X, Z)
    degree = _check_degree(degree)
    gamma = _check_gamma(gamma, X.shape[1])
    coef0 = _check_coef0(coef0)
    K = X @ Z.T
    K *= gamma
    K += coef0
    return K**degree


def _squared_distances(X, Z):
    r""":math:`\lVert\mathbf{x}_i - \mathbf{x}'_j\rVert^2` via :math:`\lVert\mathbf{x}\rVert^2 + \lVert\mathbf{x}'\rVert^2 - 2\mathbf{x}^\top\mathbf{x}'`."""
    D = X @ Z.T
    D *= -2.0
    D += np.einsum("ij,ij->i", X, X)[:, None]
    D += np.einsum("ij,ij->i", Z, Z)[None, :]
    # The expansion cancels catastrophically for nearby points and can come out
    # as -1e-15 instead of 0; a negative squared distance would give K > 1.
    np.maximum(D, 0.0, out=D)
    if X is Z:
        np.fill_diagonal(D, 0.0)
    return D


def rbf_kernel(X, Z=None, gamma=None):
    r"""Gaussian (RBF) kernel :math:`k(\mathbf{x}, \mathbf{x}') = \exp(-\lVert\mathbf{x}-\mathbf{x}'\rVert_2^2/(2\sigma^2))`, ``gamma`` :math:`= 1/(2\sigma^2)`.

    Positive definite for every ``gamma`` :math:`> 0`; its feature space is
    infinite-dimensional.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
    gamma : float or None, default=None
        Inverse width (> 0); ``None`` means ``1 / d``.

    Returns
    -------
    K : ndarray of shape (n, m), entries in (0, 1]
    """
    X, Z = _check_pair(X, Z)
    gamma = _check_gamma(gamma, X.shape[1])
    D = _squared_distances(X, Z)
    D *= -gamma
    return np.exp(D, out=D)


def laplacian_kernel(X, Z=None, gamma=None):
    r"""Laplacian kernel :math:`k(\mathbf{x}, \mathbf{x}') = \exp(-\lVert\mathbf{x}-\mathbf{x}'\rVert_1/\sigma)`, ``gamma`` :math:`= 1/\sigma`.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
    gamma : float or None, default=None
        Inverse width (> 0); ``None`` means ``1 / d``.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    X, Z = _check_pair(X, Z)
    gamma = _check_gamma(gamma, X.shape[1])
    # Sum |x_k - z_k| one feature at a time: memory O(n m), not O(n m d).
    D = np.zeros((X.shape[0], Z.shape[0]))
    for k in range(X.shape[1]):
        D += np.abs(X[:, k, None] - Z[None, :, k])
    D *= -gamma
    return np.exp(D, out=D)


def sigmoid_kernel(X, Z=None, gamma=None, coef0=1.0):
    r"""Sigmoid ("neural network") kernel :math:`k(\mathbf{x}, \mathbf{x}') = \tanh(\theta\,\mathbf{x}^\top\mathbf{x}' + c_0)`, ``gamma`` :math:`= \theta`.

    Warning: this is **not** positive semi-definite in general (for example its
    Gram matrix can have negative eigenvalues whatever the data when
    :math:`c_0 < 0`), so it is not an inner product in any feature space and the
    SVM dual with it need not be convex. It is listed because it is popular,
    not because it is a kernel in Mercer's sense.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
    gamma : float or None, default=None
        Scale (> 0); ``None`` means ``1 / d``.
    coef0 : float, default=1.0

    Returns
    -------
    K : ndarray of shape (n, m), entries in (-1, 1)
    """
    X, Z = _check_pair(X, Z)
    gamma = _check_gamma(gamma, X.shape[1])
    coef0 = _check_coef0(coef0)
    K = X @ Z.T
    K *= gamma
    K += coef0
    return np.tanh(K, out=K)


#: Kernel names, the function computing each and the parameters it takes.
KERNELS = {
    "linear": (linear_kernel, ()),
    "poly": (polynomial_kernel, ("degree", "gamma", "coef0")),
    "rbf": (rbf_kernel, ("gamma",)),
    "laplacian": (laplacian_kernel, ("gamma",)),
    "sigmoid": (sigmoid_kernel, ("gamma", "coef0")),
}
_ALIASES = {"polynomial": "poly", "gaussian": "rbf"}


def _resolve_name(kernel):
    name = _ALIASES.get(kernel, kernel)
    if name not in KERNELS:
        raise ValueError(
            f"Unknown kernel {kernel!r}; use one of {sorted(KERNELS)} "
            "(or 'polynomial', 'gaussian') or a callable K(X, Z) -> array of shape (n, m)."
        )
    return name


def get_kernel(kernel, **params):
    """Turn a kernel name or a callable into a function ``K(X, Z) -> (n, m) array``.

    Parameters
    ----------
    kernel : str or callable
        One of ``"linear"``, ``"poly"``, ``"rbf"``, ``"laplacian"``,
        ``"sigmoid"``, or a callable ``kernel(X, Z, **params)``.
    **params
        Kernel parameters (``degree``, ``gamma``, ``coef0``). For a named
        kernel only the parameters it uses are accepted.

    Returns
    -------
    callable
        ``K(X, Z=None)``; its output shape is checked for callables.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the valid ones).
    TypeError
        For a parameter the kernel does not take, or a non-callable,
        non-string ``kernel``.
    """
    if callable(kernel):
        user = kernel

        def K(X, Z=None):
            X, Z = _check_pair(X, Z)
            return _check_kernel_output(user(X, Z, **params), X.shape[0], Z.shape[0])

        K.__name__ = getattr(user, "__name__", "kernel")
        return K
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be a string or a callable; got {kernel!r}.")
    name = _resolve_name(kernel)
    func, allowed = KERNELS[name]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise TypeError(
            f"kernel {name!r} takes the parameters {list(allowed)}; got unexpected {unknown}."
        )

    def K(X, Z=None):
        return func(X, Z, **params)

    K.__name__ = f"{name}_kernel"
    return K


def _check_kernel_output(K, n, m):
    """Check that a user kernel returned a finite ``(n, m)`` array."""
    K = np.asarray(K, dtype=float) if not isinstance(K, np.ndarray) else K
    if K.shape != (n, m):
        raise ValueError(
            f"The kernel callable returned an array of shape {K.shape}; expected "
            f"({n}, {m}) = (len(X), len(Z))."
        )
    if K.dtype.kind not in "fiub":
        raise TypeError(f"The kernel callable returned an array of dtype {K.dtype}.")
    K = K.astype(float, copy=False)
    if not np.all(np.isfinite(K)):
        raise ValueError("The kernel callable returned NaN or infinite values.")
    return K


def gram_matrix(X, kernel="rbf", Z=None, **params):
    r"""Gram matrix :math:`K_{ij} = k(\mathbf{x}_i, \mathbf{x}'_j)` (``Z=None``: the square matrix :math:`K_{ij} = k(\mathbf{x}_i, \mathbf{x}_j)`).

    Parameters
    ----------
    X : array_like of shape (n, d)
    kernel : str or callable, default="rbf"
        See :func:`get_kernel`.
    Z : array_like of shape (m, d), optional
    **params
        Kernel parameters.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    return get_kernel(kernel, **params)(X, Z)


def is_psd(K, tol=1e-10):
    r"""Is ``K`` a symmetric positive semi-definite matrix (up to round-off)?

    Checks :math:`K = K^\top` (to ``tol`` times the largest entry) and
    :math:`\lambda_{\min}(K) \ge -\mathrm{tol}\cdot s` with the scale
    :math:`s = \max(1, \max_i |\lambda_i|)`, because eigenvalues computed in
    floating point are only accurate relative to the largest one.

    Parameters
    ----------
    K : array_like of shape (n, n)
    tol : float, default=1e-10

    Returns
    -------
    bool
    """
    K = check_array(K, name="K")
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be square; got shape {K.shape}.")
    if not np.allclose(K, K.T, rtol=0.0, atol=tol * max(1.0, float(np.max(np.abs(K))))):
        return False
    eigenvalues = np.linalg.eigvalsh((K + K.T) / 2)
    scale = max(1.0, float(np.max(np.abs(eigenvalues))))
    return bool(eigenvalues[0] >= -tol * scale)


# ---------------------------------------------------------------------------
# explicit feature map of the polynomial kernel
# ---------------------------------------------------------------------------


def _monomials(n_features, degree):
    """Exponent tuples of all monomials of total degree 0..degree, by degree then index."""
    for q in range(degree + 1):
        for combo in itertools.combinations_with_replacement(range(n_features), q):
            yield q, np.bincount(np.asarray(combo, dtype=int), minlength=n_features)


def polynomial_features(X, degree=2, coef0=1.0):
    r"""Explicit feature map :math:`\phi` with :math:`\phi(\mathbf{x})^\top\phi(\mathbf{x}') = (\mathbf{x}^\top\mathbf{x}' + c_0)^p`.

    By the multinomial theorem, with :math:`k_0 = p - \sum_i k_i`,

    .. math::

        (\mathbf{x}^\top\mathbf{x}' + c_0)^p
        = \sum_{k_0 + k_1 + \dots + k_d = p} \frac{p!}{k_0!\,k_1!\cdots k_d!}\,
          c_0^{k_0} \prod_i (x_i x'_i)^{k_i},

    so one feature per monomial :math:`\prod_i x_i^{k_i}` of degree :math:`\le p`,
    weighted by the square root of its coefficient, reproduces the kernel. For
    :math:`p = 2`, :math:`d = 2`:
    :math:`\phi(\mathbf{x}) = (c_0, \sqrt{2c_0}x_1, \sqrt{2c_0}x_2, x_1^2, \sqrt2 x_1x_2, x_2^2)`.

    Parameters
    ----------
    X : array_like of shape (n, d)
    degree : int, default=2
    coef0 : float, default=1.0
        Must be :math:`\ge 0` (a negative :math:`c_0` would need imaginary
        weights: the kernel is then not PSD in general).

    Returns
    -------
    Phi : ndarray of shape (n, C(d + p, p))
        Columns ordered by total degree (the constant first), then
        lexicographically. With ``coef0=0`` the lower-degree columns are zero.
    """
    X = check_array(X, name="X")
    degree = _check_degree(degree)
    coef0 = _check_coef0(coef0)
    if coef0 < 0:
        raise ValueError(
            f"coef0 must be >= 0 for a real feature map; got {coef0!r}."
        )
    columns = []
    for q, k in _monomials(X.shape[1], degree):
        coefficient = math.factorial(degree) / (
            math.factorial(degree - q) * math.prod(math.factorial(int(e)) for e in k)
        )
        weight = math.sqrt(coefficient * coef0 ** (degree - q))
        columns.append(weight * np.prod(X**k, axis=1))
    return np.column_stack(columns)


def n_polynomial_features(d, degree):
    r"""Number of monomials of degree 1..p in d variables: :math:`\binom{d+p}{p} - 1`.

    The constant is not counted. For :math:`d = 3`: degree :math:`\le 2` gives
    3 + 6 = 9 and degree :math:`\le 3` gives 9 + 10 = 19. (The feature map of
    :func:`polynomial_features` has one more column, the constant.)

    Parameters
    ----------
    d : int
        Number of input features (>= 1).
    degree : int
        Highest total degree p (>= 1).

    Returns
    -------
    int
    """
    if isinstance(d, bool) or not isinstance(d, (numbers.Integral, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer; got {d!r}.")
    degree = _check_degree(degree)
    return math.comb(int(d) + degree, degree) - 1
