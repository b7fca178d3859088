"""Geometry of a linear discriminant: augmented vectors and signed distances.

A two-class linear discriminant is :math:`f(\\mathbf{x}) = \\mathbf{w}^\\top
\\mathbf{x} + b`. Appending a constant 1 to every sample turns it into a single
inner product,

.. math:: f(\\mathbf{x}) = \\mathbf{a}^\\top \\tilde{\\mathbf{x}}, \\qquad
          \\tilde{\\mathbf{x}} = (\\mathbf{x}, 1), \\quad \\mathbf{a} = (\\mathbf{w}, b),

and multiplying the augmented vectors of the negative class by :math:`-1`
(the *normalised* augmented vectors :math:`\\mathbf{z}_i = y_i \\tilde{\\mathbf{x}}_i`)
turns "every sample on its correct side" into the single condition
:math:`\\mathbf{a}^\\top \\mathbf{z}_i > 0` for all :math:`i`.

Throughout :mod:`linclf` the 1 is **appended** as the last column, so the last
entry of an augmented weight vector is the intercept :math:`b`.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_array, check_X_y, encode_binary

__all__ = ["augment", "normalize_augmented", "signed_distance"]


def augment(X):
    """Append a column of ones: :math:`\\tilde{\\mathbf{x}} = (\\mathbf{x}, 1)`.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples, n_features + 1)
        ``X`` with a last column of ones, so that ``augment(X) @ np.r_[w, b]``
        equals ``X @ w + b``.
    """
    X = check_array(X)
    return np.hstack([X, np.ones((X.shape[0], 1))])


def normalize_augmented(X, y):
    """Normalised augmented vectors :math:`\\mathbf{z}_i = y_i (\\mathbf{x}_i, 1)`.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
        Exactly two distinct labels of any sortable type. The smaller one
        (``classes_[0]``) is mapped to :math:`y_i = -1`, the larger to
        :math:`+1`.

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features + 1)
        A weight vector :math:`\\mathbf{a} = (\\mathbf{w}, b)` classifies every
        sample correctly (``classes_[1]`` where :math:`f > 0`) exactly when
        ``Z @ a > 0`` holds elementwise.
    """
    X, y = check_X_y(X, y)
    _, y_pm = encode_binary(y, estimator="normalize_augmented")
    return augment(X) * y_pm[:, None]


def _as_weight_vector(w, b):
    w = check_array(w, name="w", ensure_2d=False).ravel()
    b = check_array(b, name="b", ensure_2d=False)
    if b.size != 1:
        raise ValueError(f"b must be a scalar (or an array of one element); got shape {b.shape}.")
    return w, float(b.ravel()[0])


def signed_distance(X, w, b):
    """Signed Euclidean distance of each sample to the hyperplane :math:`f = 0`.

    .. math:: r(\\mathbf{x}) = \\frac{\\mathbf{w}^\\top \\mathbf{x} + b}{\\lVert \\mathbf{w} \\rVert}

    Positive on the side :math:`\\mathbf{w}` points to. The value does not
    change when :math:`(\\mathbf{w}, b)` is multiplied by a positive number.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    w : array_like of shape (n_features,) or (1, n_features)
        Normal vector of the hyperplane (``coef_`` of a fitted model works).
    b : float or array_like of one element
        Intercept (``intercept_`` works).

    Returns
    -------
    ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        If ``w`` is the zero vector (no hyperplane) or its length differs from
        the number of features.
    """
    X = check_array(X)
    w, b = _as_weight_vector(w, b)
    if w.shape[0] != X.shape[1]:
        raise ValueError(
            f"w has {w.shape[0]} entries but X has {X.shape[1]} features."
        )
    norm = np.linalg.norm(w)
    if norm == 0.0:
        raise ValueError("w is the zero vector: w·x + b = 0 is not a hyperplane.")
    return (X @ w + b) / norm
