r"""Kernel functions, Gram matrices and the explicit polynomial feature map.

A kernel is a function :math:`k(\mathbf{x}, \mathbf{x}')` that equals an inner
product :math:`\phi(\mathbf{x})^\top \phi(\mathbf{x}')` in some feature space.
Every kernel of the library is one :class:`Kernel` object: its formula, its
parameters and their validation live there, and :class:`linclf.SVC`, the SMO
solver (:mod:`linclf.smo`), :class:`linclf.KernelPerceptron` and the book's
chapters all evaluate kernels through it. The functions ``linear_kernel`` ...
``sigmoid_kernel`` are the same formulas with validated inputs, one call each.

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

**Factored form.** Except for the Laplacian kernel (an :math:`\ell_1` distance)
and user callables, each kernel is a scalar *link* applied to a matrix product,
:math:`K(A, B) = \mathrm{link}(P(A)\,Q(B)^\top)` (:meth:`Kernel.factors`): the
linear kernel has :math:`P = Q = X`; the Gaussian kernel
:math:`P = [2\gamma X,\ -\gamma\lVert\mathbf x\rVert^2,\ 1]`,
:math:`Q = [X,\ 1,\ -\gamma\lVert\mathbf x\rVert^2]` and the link
:math:`\exp`. A solver that needs one kernel row at a time (SMO) then computes
it with one matrix-vector product, from the same formula as the Gram matrix.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._params import check_coef0, check_degree
from ._validation import check_array
from .feature_maps import n_polynomial_features, polynomial_features

__all__ = [
    "KERNELS",
    "Kernel",
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

#: Kernel names and the parameters each takes.
KERNELS = {
    "linear": (),
    "poly": ("degree", "gamma", "coef0"),
    "rbf": ("gamma",),
    "laplacian": ("gamma",),
    "sigmoid": ("gamma", "coef0"),
}
_ALIASES = {"polynomial": "poly", "gaussian": "rbf"}


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


def _check_gamma(gamma, X=None, per_feature=False):
    """A number > 0; ``None``/``"auto"`` mean ``1/d``; ``"scale"`` means ``1/(d Var X)`` (scikit-learn's rules).

    With ``per_feature``, ``Var X`` is the mean of the features' variances
    (the variance of ``X`` after centring each feature), which a shift of
    the data does not change; without it, the variance of all entries, as
    scikit-learn computes it, which adds the spread of the feature means.
    """
    if gamma is None or isinstance(gamma, str):
        if X is None:
            raise ValueError(f"gamma={gamma!r} is resolved from the data; no data were given.")
        d = X.shape[1]
        if gamma is None or gamma == "auto":
            return 1.0 / d
        if gamma == "scale":
            with np.errstate(over="ignore", invalid="ignore"):
                var = float(X.var(axis=0).mean() if per_feature else X.var())
            if not np.isfinite(var):
                raise ValueError(
                    "gamma='scale' needs the variance of X, which overflows float64 "
                    "(X.var() = inf); rescale X (e.g. StandardScaler) or pass a number."
                )
            if not per_feature and var > 0:
                spread = float(X.var(axis=0).mean())
                if var > 100.0 * spread:
                    warnings.warn(
                        f"gamma='scale' is 1/(d Var(X)) = {1.0 / (d * var):.3g} with the variance "
                        f"of all entries of X, {var:.3g}, which the offsets between the features' "
                        f"means dominate (the features themselves vary by {spread:.3g} on "
                        "average): the kernel then sees mostly the offsets. Standardise X (e.g. "
                        "StandardScaler) or pass gamma explicitly.",
                        UserWarning,
                        stacklevel=4,
                    )
            return 1.0 / (d * var) if var > 0 else 1.0
        raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0; got {gamma!r}.")
    if isinstance(gamma, bool) or not isinstance(gamma, (numbers.Real, np.number)):
        raise TypeError(f"gamma must be a positive number (or 'scale'/'auto'); got {gamma!r}.")
    if not np.isfinite(gamma) or gamma <= 0:
        raise ValueError(f"gamma must be a finite number > 0; got {gamma!r}.")
    return float(gamma)


def _check_gamma_spec(gamma):
    """Check ``gamma``'s type and range without resolving it from data."""
    if gamma is None or (isinstance(gamma, str) and gamma in ("scale", "auto")):
        return
    if isinstance(gamma, str):
        raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0; got {gamma!r}.")
    _check_gamma(gamma)


def _resolve_name(kernel):
    if not isinstance(kernel, str):
        raise TypeError(f"kernel must be a string or a callable; got {kernel!r}.")
    name = _ALIASES.get(kernel, kernel)
    if name not in KERNELS:
        raise ValueError(
            f"Unknown kernel {kernel!r}; use one of {sorted(KERNELS)} "
            "(or 'polynomial', 'gaussian') or a callable K(X, Z) -> array of shape (n, m)."
        )
    return name


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


def _check_finite_norms(X):
    """Every kernel value would be inf or NaN if a squared row norm overflows."""
    with np.errstate(over="ignore"):
        sq = np.einsum("ij,ij->i", X, X)
    if not np.all(np.isfinite(sq)):
        raise ValueError(
            f"X has rows whose squared norm overflows float64 (for example row "
            f"{int(np.flatnonzero(~np.isfinite(sq))[0])}); every kernel value would be "
            "inf or NaN. Rescale X (e.g. StandardScaler) before fitting."
        )


# ---------------------------------------------------------------------------
# the kernel object
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Kernel:
    r"""A kernel with its parameters: the one place where kernel formulas live.

    Build one with :meth:`from_params` (which validates the parameters and
    resolves ``gamma="scale"``), then call it like a function:
    ``Kernel.from_params("rbf", gamma=0.5)(X, Z)`` is the Gram matrix
    :math:`K_{ij} = k(\mathbf x_i, \mathbf z_j)`. The object holds no data, so a
    fitted model that keeps it keeps only the formula and its parameters.

    Parameters
    ----------
    name : str
        ``"linear"``, ``"poly"``, ``"rbf"``, ``"laplacian"``, ``"sigmoid"`` or
        ``"callable"``.
    gamma : float, default=1.0
        Scale of the kernel (``poly``, ``rbf``, ``laplacian``, ``sigmoid``).
    degree : int, default=3
        Degree :math:`p` of ``poly``.
    coef0 : float, default=0.0
        The constant :math:`c_0` of ``poly`` and ``sigmoid``.
    function : callable or None, default=None
        The user's ``function(A, B) -> (len(A), len(B))`` array (``"callable"``).
    center : ndarray of shape (d,) or None, default=None
        ``"rbf"`` only: a point subtracted from both arguments before the
        factored form is evaluated (:meth:`from_params` uses the mean of the
        training data). The kernel does not change, since it depends on
        :math:`\mathbf x - \mathbf z` only, but the rounding does: the form
        :math:`\lVert\mathbf x\rVert^2 + \lVert\mathbf z\rVert^2 - 2\mathbf x^\top\mathbf z`
        loses every digit of a distance that is small next to the norms, e.g.
        when one feature is offset by 1e8.
    """

    name: str
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 0.0
    function: Callable | None = None
    center: np.ndarray | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_params(cls, kernel="rbf", *, gamma=None, degree=3, coef0=0.0, X=None):
        """Validate a kernel specification and build the :class:`Kernel`.

        Parameters
        ----------
        kernel : str or callable or Kernel, default="rbf"
            A kernel name (aliases ``"polynomial"``, ``"gaussian"``), a callable
            ``kernel(A, B)``, or a :class:`Kernel` (returned unchanged).
        gamma : float, "scale", "auto" or None, default=None
            ``None`` and ``"auto"`` mean :math:`1/d`, ``"scale"`` means
            :math:`1/(d\\,\\mathrm{Var}\\,X)`; both need ``X``.
        degree : int, default=3
        coef0 : float, default=0.0
        X : ndarray of shape (n, d) or None, default=None
            Training data: resolves ``gamma``, is checked for overflowing
            norms, and its mean becomes the ``"rbf"`` kernel's ``center``.

        Returns
        -------
        Kernel
        """
        if isinstance(kernel, Kernel):
            return kernel
        # Every parameter is checked whatever the kernel, as scikit-learn's SVC
        # does: SVC(degree=0) is a mistake even while kernel="rbf" ignores it,
        # and it would surface later, when a grid search switches to "poly".
        _check_gamma_spec(gamma)
        degree = check_degree(degree)
        coef0 = check_coef0(coef0)
        if callable(kernel):
            return cls("callable", function=kernel)
        name = _resolve_name(kernel)
        if X is not None:
            _check_finite_norms(X)
        if name == "linear":
            return cls(name)
        # rbf and laplacian depend on x - z only: their "scale" must not
        # change under a shift of the data either (see _check_gamma)
        gamma = _check_gamma(gamma, X, per_feature=name in ("rbf", "laplacian"))
        if name == "rbf":
            return cls(name, gamma=gamma, center=None if X is None else X.mean(axis=0))
        if name == "laplacian":
            # |x_k - z_k| is computed directly: exact under any offset
            return cls(name, gamma=gamma)
        if name == "sigmoid":
            return cls(name, gamma=gamma, coef0=coef0)
        return cls(name, gamma=gamma, degree=degree, coef0=coef0)

    # -- the formulas ---------------------------------------------------------

    def factors(self, X):
        r"""Factors :math:`(P, Q)` with :math:`K(A, B) = \mathrm{link}(P(A)\,Q(B)^\top)`.

        Parameters
        ----------
        X : ndarray of shape (n, d)

        Returns
        -------
        P, Q : ndarray of shape (n, d') or None
            ``None`` for the Laplacian kernel and callables (no such form).
        """
        if self.name == "linear":
            return X, X
        if self.name in ("poly", "sigmoid"):
            # gamma x.z + c0 = [gamma x, c0] . [z, 1]
            n = X.shape[0]
            return (np.column_stack([self.gamma * X, np.full(n, self.coef0)]),
                    np.column_stack([X, np.ones(n)]))
        if self.name == "rbf":
            # -gamma ||x - z||^2 = [2 gamma x, -gamma |x|^2, 1] . [z, 1, -gamma |z|^2],
            # on centred x and z, so that the norms are not inflated by an offset
            if self.center is not None:
                X = X - self.center
            neg_gsq = -self.gamma * np.einsum("ij,ij->i", X, X)
            one = np.ones(X.shape[0])
            return (np.column_stack([2.0 * self.gamma * X, neg_gsq, one]),
                    np.column_stack([X, one, neg_gsq]))
        return None, None

    def link(self, G):
        """Apply the kernel's scalar link to ``G = P(A) Q(B)^T`` in place and return it.

        Parameters
        ----------
        G : ndarray

        Returns
        -------
        ndarray
            ``G`` itself, overwritten.
        """
        if self.name == "poly":
            return np.power(G, self.degree, out=G)
        if self.name == "sigmoid":
            return np.tanh(G, out=G)
        if self.name == "rbf":
            # round-off can make a squared distance negative (K > 1) for
            # nearby points: the exponent -gamma ||x - z||^2 is at most 0
            np.minimum(G, 0.0, out=G)
            return np.exp(G, out=G)
        return G

    def block(self, A, B):
        """``K(A, B)`` for arrays already validated (the solvers' fast path).

        Parameters
        ----------
        A : ndarray of shape (m, d)
        B : ndarray of shape (n, d)

        Returns
        -------
        ndarray of shape (m, n)
        """
        if self.name == "callable":
            return _check_kernel_output(self.function(A, B), A.shape[0], B.shape[0])
        if self.name == "laplacian":
            # sum |a_k - b_k| one feature at a time: memory O(m n), not O(m n d)
            G = np.zeros((A.shape[0], B.shape[0]))
            for k in range(A.shape[1]):
                G += np.abs(A[:, k, None] - B[None, :, k])
            G *= -self.gamma
            return np.exp(G, out=G)
        P, Q = self.factors(A)
        if B is not A:
            _, Q = self.factors(B)
        G = P @ Q.T
        if self.name == "rbf" and A is B:
            np.fill_diagonal(G, 0.0)  # exact zero distance of a point to itself
        return self.link(G)

    def diagonal(self, X):
        r""":math:`k(\mathbf x_i, \mathbf x_i)` for every row of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n, d)

        Returns
        -------
        ndarray of shape (n,)
        """
        if self.name in ("rbf", "laplacian"):
            return np.ones(X.shape[0])
        if self.name == "callable":
            return np.array([self.block(x[None, :], x[None, :])[0, 0] for x in X])
        P, Q = self.factors(X)
        return self.link(np.einsum("ij,ij->i", P, Q))

    def __call__(self, X, Z=None):
        """The Gram matrix ``K(X, Z)`` (``Z=None``: ``K(X, X)``), inputs validated.

        Parameters
        ----------
        X : array_like of shape (n, d)
        Z : array_like of shape (m, d), optional

        Returns
        -------
        ndarray of shape (n, m)
        """
        X, Z = _check_pair(X, Z)
        return self.block(X, Z)


# ---------------------------------------------------------------------------
# the kernels as functions
# ---------------------------------------------------------------------------


def _evaluate(name, X, Z, **params):
    X, Z = _check_pair(X, Z)
    return Kernel.from_params(name, X=X, **params).block(X, Z)


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
    return _evaluate("linear", X, Z)


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
    return _evaluate("poly", X, Z, degree=degree, gamma=gamma, coef0=coef0)


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
    return _evaluate("rbf", X, Z, gamma=gamma)


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
    return _evaluate("laplacian", X, Z, gamma=gamma)


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
    return _evaluate("sigmoid", X, Z, gamma=gamma, coef0=coef0)


def get_kernel(kernel, **params):
    """Turn a kernel name or a callable into a function ``K(X, Z) -> (n, m) array``.

    Parameters
    ----------
    kernel : str or callable
        One of ``"linear"``, ``"poly"``, ``"rbf"``, ``"laplacian"``,
        ``"sigmoid"``, or a callable ``kernel(X, Z, **params)``.
    **params
        Kernel parameters (``degree``, ``gamma``, ``coef0``). For a named
        kernel only the parameters it uses are accepted; ``gamma`` defaults to
        ``1 / d`` and ``coef0`` of ``poly``/``sigmoid`` to 1, as in the functions above.

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
    name = _resolve_name(kernel)
    unknown = sorted(set(params) - set(KERNELS[name]))
    if unknown:
        raise TypeError(
            f"kernel {name!r} takes the parameters {list(KERNELS[name])}; got unexpected {unknown}."
        )
    defaults = {"coef0": 1.0} if name in ("poly", "sigmoid") else {}

    def K(X, Z=None):
        return _evaluate(name, X, Z, **{**defaults, **params})

    K.__name__ = f"{name}_kernel"
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
