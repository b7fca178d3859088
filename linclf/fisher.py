"""Fisher's linear discriminant for two classes.

Fisher projects the data on the direction :math:`\\mathbf{w}` that maximises
the ratio of between-class to within-class scatter of the projections,

.. math:: J_F(\\mathbf{w}) = \\frac{\\mathbf{w}^\\top S_b \\mathbf{w}}
                                  {\\mathbf{w}^\\top S_w \\mathbf{w}},
          \\qquad \\mathbf{w}^* = S_w^{-1}(\\mathbf{m}_+ - \\mathbf{m}_-),

and then classifies by comparing the 1-D projection with a threshold
:math:`t`: :math:`f(\\mathbf{x}) = \\mathbf{w}^\\top\\mathbf{x} - t`.
"""

from __future__ import annotations

import numpy as np

from ._params import ArrayLike, Interval, Options, validate_params
from ._validation import (
    check_is_fitted,
    check_n_features,
    check_X_y,
    encode_binary,
)
from .base import BaseEstimator, LinearClassifierMixin

__all__ = ["FisherLDA"]

_THRESHOLDS = ("midpoint", "mean", "bayes")


def _check_priors(priors, counts):
    """Return the prior probabilities ``(P_-, P_+)`` as a float array."""
    if priors is None:
        return counts / counts.sum()
    p = np.asarray(priors, dtype=float)
    if p.shape != (2,):
        raise ValueError(f"priors must have 2 entries (one per class); got shape {p.shape}.")
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ValueError(f"priors must be positive and finite; got {p.tolist()}.")
    if not np.isclose(p.sum(), 1.0):
        raise ValueError(f"priors must sum to 1; got {p.tolist()} (sum {p.sum():g}).")
    return p


class FisherLDA(LinearClassifierMixin, BaseEstimator):
    """Fisher's linear discriminant (two classes).

    Parameters
    ----------
    threshold : {"midpoint", "mean", "bayes"}, default="midpoint"
        Where to cut the projection :math:`s = \\mathbf{w}^\\top\\mathbf{x}`:

        * ``"midpoint"``: :math:`t = (\\tilde m_+ + \\tilde m_-)/2`, halfway
          between the projected class means :math:`\\tilde m_\\pm = \\mathbf{w}^\\top\\mathbf{m}_\\pm`;
        * ``"mean"``: :math:`t = \\tilde m = \\mathbf{w}^\\top\\mathbf{m}`, the
          projected mean of all samples (so each class weighs by its count);
        * ``"bayes"``: the Bayes threshold for two Gaussian classes sharing one
          covariance :math:`\\Sigma` with priors :math:`P_\\pm`,

          .. math:: t = \\frac{\\tilde m_+ + \\tilde m_-}{2}
                    - \\frac{\\tilde\\sigma^2 \\ln(P_+/P_-)}{\\tilde m_+ - \\tilde m_-},
                    \\qquad \\tilde\\sigma^2 = \\mathbf{w}^\\top\\Sigma\\mathbf{w},

          where :math:`\\Sigma = S_w/N` is the maximum-likelihood estimate of the
          shared covariance (the choice of scikit-learn's default
          ``LinearDiscriminantAnalysis``; the unbiased :math:`S_w/(N-2)` would
          move the threshold slightly when the priors differ). With ``reg=0``, :math:`\\mathbf{w} = S_w^{-1}(\\mathbf{m}_+-\\mathbf{m}_-)`
          this rule is exactly the plug-in Bayes rule
          :math:`\\ln p(\\mathbf{x}\\mid +)P_+ > \\ln p(\\mathbf{x}\\mid -)P_-`
          (the quadratic terms in :math:`\\mathbf{x}` cancel). The boundary moves
          towards the class with the smaller prior.
    priors : array_like of shape (2,) or None, default=None
        :math:`(P(\\text{classes\\_[0]}), P(\\text{classes\\_[1]}))`, used only by
        ``threshold="bayes"``. ``None`` uses the class frequencies.
    reg : float, default=0.0
        Ridge added to the diagonal of :math:`S_w` before solving,
        :math:`\\mathbf{w} = (S_w + \\text{reg}\\,I)^{-1}(\\mathbf{m}_+ - \\mathbf{m}_-)`.
        With the default 0 a singular :math:`S_w` (fewer samples than features,
        or a constant or duplicated feature) raises ``ValueError`` instead of
        returning an arbitrary direction; set ``reg > 0`` to regularise.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (:math:`+`).
    means_ : ndarray of shape (2, n_features)
        Class means :math:`\\mathbf{m}_-` (row 0) and :math:`\\mathbf{m}_+` (row 1).
    class_scatters_ : ndarray of shape (2, n_features, n_features)
        :math:`S_i = \\sum_{\\mathbf{x}\\in\\omega_i} (\\mathbf{x}-\\mathbf{m}_i)(\\mathbf{x}-\\mathbf{m}_i)^\\top`.
    scatter_within_ : ndarray of shape (n_features, n_features)
        :math:`S_w = S_- + S_+`.
    scatter_between_ : ndarray of shape (n_features, n_features)
        :math:`S_b = (\\mathbf{m}_+ - \\mathbf{m}_-)(\\mathbf{m}_+ - \\mathbf{m}_-)^\\top`.
    priors_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
        :math:`\\mathbf{w} = S_w^{-1}(\\mathbf{m}_+ - \\mathbf{m}_-)` (not normalised).
    threshold_ : float
        :math:`t`; ``intercept_ == -threshold_``.
    intercept_ : ndarray of shape (1,)
    n_features_in_ : int
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more
    _parameter_constraints = {
        "threshold": [Options(*_THRESHOLDS)],
        "priors": [Options(None), ArrayLike()],  # length and sum: _check_priors
        "reg": [Interval("real", 0, None)],
    }

    def __init__(self, *, threshold="midpoint", priors=None, reg=0.0):
        self.threshold = threshold
        self.priors = priors
        self.reg = reg

    def fit(self, X, y):
        """Compute the scatter matrices, the direction and the threshold.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        reg = validate_params(self)["reg"]
        X, y = check_X_y(X, y)
        self.classes_, y_pm = encode_binary(y, estimator="FisherLDA")
        masks = (y_pm < 0, y_pm > 0)
        counts = np.array([m.sum() for m in masks], dtype=float)
        self.priors_ = _check_priors(self.priors, counts)

        self.means_ = np.stack([X[m].mean(axis=0) for m in masks])
        centred = [X[m] - mu for m, mu in zip(masks, self.means_)]
        self.class_scatters_ = np.stack([D.T @ D for D in centred])
        self.scatter_within_ = self.class_scatters_.sum(axis=0)
        diff = self.means_[1] - self.means_[0]
        self.scatter_between_ = np.outer(diff, diff)

        w = self._direction(self.scatter_within_, diff, reg)
        self.n_features_in_ = X.shape[1]
        self.coef_ = w[None, :]
        self.threshold_ = self._threshold(w, X, counts)
        self.intercept_ = np.array([-self.threshold_])
        return self

    @staticmethod
    def _direction(S_w, diff, reg):
        d = S_w.shape[0]
        A = S_w + reg * np.eye(d)
        rank = np.linalg.matrix_rank(A)
        if rank < d:
            raise ValueError(
                f"The within-class scatter S_w is singular (rank {rank} < {d} features), "
                "e.g. fewer samples than features or a constant/duplicated feature; "
                "set reg > 0 to add a ridge reg*I to S_w."
            )
        if not np.any(diff):
            raise ValueError(
                "The two class means are identical, so Fisher's direction "
                "S_w^{-1}(m+ - m-) is zero; no linear discriminant separates the means."
            )
        # solve rather than invert: cheaper and more accurate
        return np.linalg.solve(A, diff)

    def _threshold(self, w, X, counts):
        m_neg, m_pos = self.means_ @ w
        if self.threshold == "midpoint":
            return 0.5 * (m_pos + m_neg)
        if self.threshold == "mean":
            return float(X.mean(axis=0) @ w)
        sigma2 = w @ self.scatter_within_ @ w / counts.sum()
        log_ratio = np.log(self.priors_[1] / self.priors_[0])
        return float(0.5 * (m_pos + m_neg) - sigma2 * log_ratio / (m_pos - m_neg))

    def fit_transform(self, X, y):
        """Fit, then project the training samples onto Fisher's direction.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.fit(X, y).transform(X)

    def transform(self, X):
        """Project on Fisher's direction: :math:`\\tilde x = \\mathbf{w}^\\top\\mathbf{x}`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "coef_")
        X = check_n_features(self, X)
        return X @ self.coef_[0]

    def criterion(self, w):
        """Fisher's criterion :math:`J_F(\\mathbf{w}) = \\mathbf{w}^\\top S_b\\mathbf{w} / \\mathbf{w}^\\top S_w\\mathbf{w}`.

        Parameters
        ----------
        w : array_like of shape (n_features,) or (1, n_features)

        Returns
        -------
        float
            Invariant to the scale of ``w``; maximal at ``coef_``.
        """
        check_is_fitted(self, "scatter_within_")
        w = np.asarray(w, dtype=float).ravel()
        if w.shape[0] != self.n_features_in_:
            raise ValueError(
                f"w has {w.shape[0]} entries, but FisherLDA was fitted with "
                f"{self.n_features_in_} features."
            )
        if not np.all(np.isfinite(w)):
            raise ValueError("w contains NaN or infinity.")
        denominator = w @ self.scatter_within_ @ w
        if denominator == 0.0:
            raise ValueError(
                "w^T S_w w = 0 (w is zero or lies in the null space of S_w); J_F is undefined."
            )
        return float(w @ self.scatter_between_ @ w / denominator)
