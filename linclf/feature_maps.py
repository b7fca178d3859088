r"""Explicit feature maps: the features whose inner product a kernel computes.

:func:`polynomial_features` is the map :math:`\phi` of the polynomial kernel
(:func:`linclf.kernels.polynomial_kernel` with ``gamma = 1``), used by the book to
check the kernel trick numerically: :math:`\phi(X)\,\phi(Z)^\top` equals the
Gram matrix.
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from ._params import check_coef0, check_degree
from ._validation import check_array

__all__ = ["polynomial_features", "n_polynomial_features"]


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
    degree = check_degree(degree)
    coef0 = check_coef0(coef0)
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
    degree = check_degree(degree)
    return math.comb(int(d) + degree, degree) - 1
