r"""Platt scaling: probabilities from the scores of a classifier that has none.

A margin classifier such as the SVM returns a score :math:`f(\mathbf x)` whose
sign is the decision but whose size is not a probability (chapter 11: the
hinge loss estimates only :math:`\operatorname{sign}(2q-1)`). Platt (1999)
fits a one-dimensional logistic model on the scores,

.. math::

    P(y = +1 \mid f) = \sigma(A f + B),

by maximum likelihood on held-out scores, with the targets smoothed towards
one half (Laplace's rule of succession), :math:`t_+ = (N_+ + 1)/(N_+ + 2)` and
:math:`t_- = 1/(N_- + 2)`, so that a perfectly separated calibration set does
not send :math:`A` to infinity.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_array
from .special import log_sigmoid, sigmoid

__all__ = ["platt_scaling", "platt_probability", "platt_targets"]


def _check_scores_labels(scores, y):
    f = check_array(scores, name="scores", ensure_2d=False, allow_1d=True).ravel()
    y = np.asarray(y)
    if y.shape != f.shape:
        raise ValueError(f"platt_scaling: scores and y must have the same length; got {f.shape[0]} "
                         f"and {y.shape}")
    labels = np.unique(y)
    if not (set(labels.tolist()) <= {-1, 1} or set(labels.tolist()) <= {0, 1}) or labels.size != 2:
        raise ValueError(f"platt_scaling: y must hold both labels of {{-1, +1}} (or {{0, 1}}); "
                         f"got {labels.tolist()}")
    return f, y == labels.max()


def platt_targets(positive):
    """Platt's smoothed targets for a boolean vector of positive labels."""
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    return np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def platt_scaling(scores, y, *, max_iter=100, tol=1e-12):
    """Fit ``P(y = +1 | f) = sigmoid(A f + B)`` to scores by Newton's method.

    Parameters
    ----------
    scores : array_like of shape (n,)
        Decision values, ideally of samples the classifier was not trained on.
    y : array_like of shape (n,)
        Labels in {-1, +1} or {0, 1}; both must occur.
    max_iter : int, default=100
    tol : float, default=1e-12
        Stop when the Newton decrement falls below ``tol``.

    Returns
    -------
    (A, B) : float, float
    """
    f, positive = _check_scores_labels(scores, y)
    t = platt_targets(positive)
    Z = np.column_stack([f, np.ones_like(f)])

    def objective(theta):
        z = Z @ theta
        return -np.sum(t * log_sigmoid(z) + (1 - t) * log_sigmoid(-z))

    # start as Platt does: slope 0, intercept at the prior log-odds
    theta = np.array([0.0, np.log((positive.sum() + 1.0) / (positive.size - positive.sum() + 1.0))])
    for _ in range(max_iter):
        p = sigmoid(Z @ theta)
        grad = Z.T @ (p - t)
        H = (Z * (p * (1 - p))[:, None]).T @ Z + 1e-12 * np.eye(2)
        step = np.linalg.solve(H, grad)
        decrement = grad @ step
        if decrement < tol:
            break
        eta, current = 1.0, objective(theta)
        while objective(theta - eta * step) > current - 1e-4 * eta * decrement and eta > 1e-10:
            eta /= 2  # backtracking: the full Newton step can overshoot far from the optimum
        theta = theta - eta * step
    return float(theta[0]), float(theta[1])


def platt_probability(scores, A, B):
    """``sigmoid(A * scores + B)``: the calibrated probability of the class +1."""
    f = np.asarray(scores, dtype=float)
    return sigmoid(A * f + B)
