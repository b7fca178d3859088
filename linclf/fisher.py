"""Fisher's linear discriminant: two classes, and c > 2 classes (reduced-rank LDA).

For two classes Fisher projects the data on the direction :math:`\\mathbf{w}`
that maximises the ratio of between-class to within-class scatter of the
projections,

.. math:: J_F(\\mathbf{w}) = \\frac{\\mathbf{w}^\\top S_b \\mathbf{w}}
                                  {\\mathbf{w}^\\top S_w \\mathbf{w}},
          \\qquad \\mathbf{w}^\\star = S_w^{-1}(\\mathbf{m}_+ - \\mathbf{m}_-),

and then classifies by comparing the 1-D projection with a threshold
:math:`t`: :math:`f(\\mathbf{x}) = \\mathbf{w}^\\top\\mathbf{x} - t`.

For :math:`c > 2` classes the between-class scatter is
:math:`S_b = \\sum_k N_k(\\mathbf{m}_k-\\mathbf{m})(\\mathbf{m}_k-\\mathbf{m})^\\top`, of
rank at most :math:`c-1`; the discriminant directions are the leading
generalised eigenvectors of :math:`(S_b, S_w)` (``scalings_``, used by
``transform``), and the classes are predicted by the linear discriminants of
Gaussian classes with one shared covariance (``coef_`` of shape ``(c, d)``).
"""

from __future__ import annotations

import numpy as np

from ._params import ArrayLike, Interval, Options, validate_params
from ._validation import (
    check_is_fitted,
    check_n_features,
    check_X_y,
    encode_labels,
)
from .base import BaseEstimator, LinearClassifierMixin

__all__ = ["FisherLDA"]

_THRESHOLDS = ("midpoint", "mean", "bayes")


def _check_priors(priors, counts):
    """Return the prior probabilities, one per class, as a float array."""
    if priors is None:
        return counts / counts.sum()
    p = np.asarray(priors, dtype=float)
    n_classes = counts.shape[0]
    if p.shape != (n_classes,):
        raise ValueError(
            f"priors must have {n_classes} entries (one per class); got shape {p.shape}."
        )
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ValueError(f"priors must be positive and finite; got {p.tolist()}.")
    if not np.isclose(p.sum(), 1.0):
        raise ValueError(f"priors must sum to 1; got {p.tolist()} (sum {p.sum():g}).")
    return p


class _Within:
    r"""Solves with :math:`A = S_w + \text{reg}\,I` without forming more d x d matrices than needed.

    When there are fewer samples than features, :math:`S_w` and :math:`S_b`
    live in the span of the centred samples and the class-mean offsets, of
    dimension :math:`r \le N + c < d`, and :math:`A` acts as :math:`\text{reg}\,I`
    on its orthogonal complement. With an orthonormal basis :math:`Q` of that
    span, every solve and the generalised eigenproblem reduce exactly to
    :math:`r \times r` ones: :math:`O(N^2 d)` work instead of :math:`O(d^3)`.
    """

    def __init__(self, centred, offsets, S_w, reg):
        n, d = centred.shape
        self.reg, self.d = reg, d
        self.Q = None
        if n + offsets.shape[0] < d:
            self.Q = np.linalg.qr(np.vstack([centred, offsets]).T)[0]      # (d, r)
            C = centred @ self.Q
            self.A = C.T @ C
            sigma2 = np.linalg.svd(centred, compute_uv=False) ** 2
            eig = np.r_[sigma2 + reg, np.full(d - sigma2.size, float(reg))]
        else:
            self.A = S_w.copy()
            eig = np.abs(np.linalg.eigvalsh(S_w)) + reg
        self.A.flat[:: self.A.shape[0] + 1] += reg
        # numpy's matrix_rank tolerance on the eigenvalues of A, without an SVD of A
        self.rank = int(np.sum(eig > eig.max() * d * np.finfo(float).eps)) if eig.max() > 0 else 0

    def reduce(self, M):
        """``M`` (rows in feature space) in the basis Q, or unchanged."""
        return M if self.Q is None else M @ self.Q

    def solve(self, V):
        r""":math:`A^{-1}V` for the columns of ``V`` (shape (d,) or (d, k))."""
        if self.Q is None:
            return np.linalg.solve(self.A, V)
        inside = self.Q.T @ V
        return self.Q @ np.linalg.solve(self.A, inside) + (V - self.Q @ inside) / self.reg

    def eigh(self, B_reduced):
        """Leading eigenpairs of :math:`(S_b, A)`, ``B_reduced`` being :math:`S_b` in the basis."""
        values, U = _generalized_eigh(B_reduced, self.A)
        return values, (U if self.Q is None else self.Q @ U)


def _generalized_eigh(S_b, A):
    """Eigenpairs of :math:`S_b\\mathbf{v} = \\lambda A\\mathbf{v}`, largest first, :math:`V^\\top AV = I`."""
    L = np.linalg.cholesky(A)
    L_inv = np.linalg.solve(L, np.eye(A.shape[0]))
    B = L_inv @ S_b @ L_inv.T                 # the problem in sphered coordinates
    values, U = np.linalg.eigh((B + B.T) / 2)
    order = np.argsort(values)[::-1]
    return values[order], L_inv.T @ U[:, order]


class FisherLDA(LinearClassifierMixin, BaseEstimator):
    """Fisher's linear discriminant (two classes, or c > 2 classes as reduced-rank LDA).

    Parameters
    ----------
    threshold : {"midpoint", "mean", "bayes"}, default="midpoint"
        Where to cut the projection :math:`s = \\mathbf{w}^\\top\\mathbf{x}` (two classes):

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

        For :math:`c > 2` classes the prediction is the class with the largest
        linear discriminant :math:`f_k(\\mathbf{x}) = \\mathbf{w}_k^\\top\\mathbf{x} + b_k`,
        :math:`\\mathbf{w}_k = \\hat\\Sigma^{-1}\\mathbf{m}_k`,
        :math:`b_k = -\\tfrac12\\mathbf{m}_k^\\top\\hat\\Sigma^{-1}\\mathbf{m}_k + \\ln P_k`
        with :math:`\\hat\\Sigma = S_w/N`: ``"bayes"`` uses the priors,
        ``"midpoint"`` drops the :math:`\\ln P_k` term (equal priors: the class
        whose mean is nearest in the metric of :math:`\\hat\\Sigma^{-1}`, which is
        also the nearest class mean in the space of all :math:`\\min(c-1, d)`
        discriminant projections), and ``"mean"``, which has no multi-class
        analogue, raises ``ValueError``. For two classes ``"bayes"`` is the same
        rule, :math:`f_+ - f_-` rescaled by :math:`1/N`.
    priors : array_like of shape (n_classes,) or None, default=None
        :math:`(P(\\text{classes\\_[0]}), P(\\text{classes\\_[1]}), \\dots)`, used only by
        ``threshold="bayes"``. ``None`` uses the class frequencies.
    reg : float, default=0.0
        Ridge added to the diagonal of :math:`S_w` before solving,
        :math:`\\mathbf{w} = (S_w + \\text{reg}\\,I)^{-1}(\\mathbf{m}_+ - \\mathbf{m}_-)`
        (for :math:`c > 2`, :math:`S_w + \\text{reg}\\,I` replaces :math:`S_w` everywhere).
        With the default 0 a singular :math:`S_w` (fewer samples than features,
        or a constant or duplicated feature) raises ``ValueError`` instead of
        returning an arbitrary direction; set ``reg > 0`` to regularise.
    n_components : int or None, default=None
        Number of discriminant directions kept by ``transform``; at most
        :math:`\\min(c-1, d)` (the rank bound of :math:`S_b`), which is the default.
        It does not change ``predict``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        For two classes ``classes_[1]`` is the positive class :math:`\\omega_+` and
        ``classes_[0]`` the negative class :math:`\\omega_-`.
    means_ : ndarray of shape (n_classes, n_features)
        Class means; for two classes :math:`\\mathbf{m}_-` (row 0) and :math:`\\mathbf{m}_+` (row 1).
    scatter_within_ : ndarray of shape (n_features, n_features)
        :math:`S_w = \\sum_k S_k`, the sum of the class scatters
        :math:`S_k = \\sum_{\\mathbf{x}\\in\\omega_k} (\\mathbf{x}-\\mathbf{m}_k)(\\mathbf{x}-\\mathbf{m}_k)^\\top`
        (two classes: :math:`S_w = S_+ + S_-`),
        computed in one product of the centred data (the :math:`S_k` are not
        kept: c of them would take :math:`c d^2` floats).
    scatter_between_ : ndarray of shape (n_features, n_features)
        Two classes: :math:`S_b = (\\mathbf{m}_+ - \\mathbf{m}_-)(\\mathbf{m}_+ - \\mathbf{m}_-)^\\top`.
        :math:`c > 2`: :math:`S_b = \\sum_k N_k(\\mathbf{m}_k-\\mathbf{m})(\\mathbf{m}_k-\\mathbf{m})^\\top`
        (for :math:`c = 2` this sum is :math:`N_+N_-/N` times the two-class matrix).
    priors_ : ndarray of shape (n_classes,)
        Class priors in ``classes_`` order; for two classes
        :math:`(P(\\omega_-), P(\\omega_+))`.
    scalings_ : ndarray of shape (n_features, n_components)
        Discriminant directions, columns ordered by decreasing generalised
        eigenvalue, normalised so that ``scalings_.T @ Sigma @ scalings_`` is the
        identity for :math:`\\hat\\Sigma = (S_w + \\text{reg}\\,I)/N` (unit
        within-class variance along each). For :math:`c > 2` each column's
        largest-magnitude entry is positive; for two classes the one column is
        ``coef_[0]`` rescaled, oriented so that class ``classes_[1]`` projects higher.
    eigenvalues_ : ndarray of shape (n_components,)
        The generalised eigenvalues :math:`\\lambda_j` of
        :math:`(S_b, S_w + \\text{reg}\\,I)` belonging to ``scalings_``; with
        ``reg = 0`` these are :math:`J_F` of each direction (with ``reg > 0``, the
        regularised quotient :math:`\\mathbf w^\\top S_b\\mathbf w / \\mathbf w^\\top(S_w + \\text{reg}\\,I)\\mathbf w`).
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Two classes: :math:`\\mathbf{w} = S_w^{-1}(\\mathbf{m}_+ - \\mathbf{m}_-)`
        (not normalised). :math:`c > 2`: the rows :math:`\\mathbf{w}_k = \\hat\\Sigma^{-1}\\mathbf{m}_k`.
    threshold_ : float or None
        :math:`t`; ``intercept_ == -threshold_`` (two classes). ``None`` for :math:`c > 2`.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        The column names of a data frame ``X`` given to ``fit``, when all are
        strings; prediction then requires the same names in the same order.
    """

    _parameter_constraints = {
        "threshold": [Options(*_THRESHOLDS)],
        "priors": [Options(None), ArrayLike()],  # length and sum: _check_priors
        "reg": [Interval("real", 0, None)],
        "n_components": [Options(None), Interval("integer", 1, None)],
    }

    def __init__(self, *, threshold="midpoint", priors=None, reg=0.0, n_components=None):
        self.threshold = threshold
        self.priors = priors
        self.reg = reg
        self.n_components = n_components

    def fit(self, X, y):
        """Compute the scatter matrices, the directions and the decision rule.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two or more distinct labels

        Returns
        -------
        self
        """
        params = validate_params(self)
        reg = params["reg"]
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, idx = encode_labels(y, estimator="FisherLDA")
        n_classes, d = len(self.classes_), X.shape[1]
        if n_classes > 2 and self.threshold == "mean":
            # the sentence scikit-learn's checks expect of a two-class-only setting
            raise ValueError(
                f"threshold='mean' is defined for two classes only; y has {n_classes} classes. "
                "Only binary classification is supported with threshold='mean': use "
                "'midpoint' (equal priors) or 'bayes' (priors) for c > 2."
            )
        n_max = min(n_classes - 1, d)
        n_components = n_max if params["n_components"] is None else params["n_components"]
        if n_components > n_max:
            raise ValueError(
                f"n_components={n_components}, but there are at most min(c - 1, d) = {n_max} "
                f"discriminant directions (c = {n_classes} classes, d = {d} features): "
                "S_b has rank at most c - 1."
            )
        masks = [idx == k for k in range(n_classes)]
        counts = np.array([m.sum() for m in masks], dtype=float)
        self.priors_ = _check_priors(self.priors, counts)

        self.means_ = np.stack([X[m].mean(axis=0) for m in masks])
        # One (n, d) array and one d x d product: S_w = sum_i S_i without the
        # (c, d, d) stack of the class scatters (1.3 GB for 10 classes of 4000
        # features). S_i is (X_i - m_i)^T (X_i - m_i) if a reader needs one.
        centred = X - self.means_[idx]
        self.scatter_within_ = centred.T @ centred   # finite: check_X_y bounds sum(X**2)
        self.n_features_in_ = d
        offsets = self.means_ - X.mean(axis=0)
        within = _Within(centred, offsets, self.scatter_within_, reg)
        if within.rank < d:
            raise ValueError(
                f"The within-class scatter S_w is singular (rank {within.rank} < {d} features), "
                "e.g. fewer samples than features or a constant/duplicated feature; "
                "set reg > 0 to add a ridge reg*I to S_w."
            )
        if n_classes == 2:
            self._fit_two(X, counts, within, centred)
        else:
            self._fit_many(counts, within, offsets, n_components)
        return self

    def _fit_two(self, X, counts, within, centred):
        diff = self.means_[1] - self.means_[0]
        self.scatter_between_ = np.outer(diff, diff)
        if not np.any(diff):
            raise ValueError(
                "The two class means are identical, so Fisher's direction "
                "S_w^{-1}(m+ - m-) is zero; no linear discriminant separates the means."
            )
        # solve rather than invert: cheaper and more accurate
        w = within.solve(diff)
        self.coef_ = w[None, :]
        self.threshold_ = self._threshold(w, X, counts, centred)
        self.intercept_ = np.array([-self.threshold_])
        wAw = diff @ w                              # w^T A w, since A w = m+ - m-
        self.scalings_ = (w / np.sqrt(wAw / counts.sum()))[:, None]
        self.eigenvalues_ = np.array([wAw])

    def _fit_many(self, counts, within, offsets, n_components):
        N = counts.sum()
        if not np.any(self.means_ - self.means_[0]):
            raise ValueError(
                "All class means are identical, so S_b = 0 and every direction has J_F = 0; "
                "no linear discriminant separates the means."
            )
        self.scatter_between_ = (offsets * counts[:, None]).T @ offsets
        reduced = within.reduce(offsets)
        values, V = within.eigh((reduced * counts[:, None]).T @ reduced)
        V = V[:, :n_components] * np.sqrt(N)      # unit variance under Sigma_hat = A / N
        signs = np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(n_components)])
        self.scalings_ = V * signs
        self.eigenvalues_ = values[:n_components]
        W = N * within.solve(self.means_.T).T       # rows Sigma_hat^{-1} m_k
        log_priors = np.log(self.priors_) if self.threshold == "bayes" else 0.0
        self.coef_ = W
        self.intercept_ = -0.5 * np.sum(W * self.means_, axis=1) + log_priors
        self.threshold_ = None

    def _multi_class(self):
        # threshold="mean" has no multi-class rule (fit refuses c > 2), so the
        # tags scikit-learn reads must say so for that setting
        return self.threshold != "mean"

    def _threshold(self, w, X, counts, centred):
        m_neg, m_pos = self.means_ @ w
        if self.threshold == "midpoint":
            return 0.5 * (m_pos + m_neg)
        if self.threshold == "mean":
            return float(X.mean(axis=0) @ w)
        s_w = centred @ w
        sigma2 = s_w @ s_w / counts.sum()            # w^T S_w w / N
        log_ratio = np.log(self.priors_[1] / self.priors_[0])
        return float(0.5 * (m_pos + m_neg) - sigma2 * log_ratio / (m_pos - m_neg))

    def fit_transform(self, X, y):
        """Fit, then project the training samples (see ``transform``).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples, 1) or (n_samples, n_components)
        """
        return self.fit(X, y).transform(X)

    def transform(self, X):
        """Project on the discriminant direction(s).

        Two classes: the projection :math:`s = \\mathbf{w}^\\top\\mathbf{x}` on
        ``coef_[0]`` as one column (the shape a transformer returns, so that a
        ``Pipeline`` can feed it to the next step; ``transform(X)[:, 0]`` is the
        1-D projection). :math:`c > 2` classes: ``X @ scalings_``, one column
        per discriminant direction (the data are not centred).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 1) for two classes, else (n_samples, n_components)
        """
        check_is_fitted(self, "coef_")
        X = check_n_features(self, X)
        if len(self.classes_) == 2:
            return (X @ self.coef_[0])[:, None]
        return X @ self.scalings_

    def get_feature_names_out(self, input_features=None):
        """Names of the columns of :meth:`transform`: ``fisherlda0``, ``fisherlda1``, ...

        The class name and the column's index, as scikit-learn names the output
        of its ``LinearDiscriminantAnalysis``, so that a ``Pipeline`` can name
        what its next step receives. There is no ``set_output``: linclf has no
        machinery to return DataFrames, and scikit-learn's
        ``Pipeline.set_output(transform="pandas")`` refuses a step without one
        (``ValueError``). For a DataFrame, wrap the output yourself:
        ``pd.DataFrame(lda.transform(X), columns=lda.get_feature_names_out(),
        index=X.index)``.

        Parameters
        ----------
        input_features : array_like of str or None, default=None
            Only checked (the output names do not depend on them): it must have
            ``n_features_in_`` entries, equal to ``feature_names_in_`` if the
            model was fitted on a DataFrame.

        Returns
        -------
        ndarray of str objects, shape (1,) for two classes, else (n_components,)
        """
        check_is_fitted(self, "coef_")
        if input_features is not None:
            given = np.asarray(input_features, dtype=object).ravel()
            fitted = getattr(self, "feature_names_in_", None)
            if fitted is not None and not np.array_equal(given, fitted):
                raise ValueError("input_features is not equal to feature_names_in_")
            if given.shape[0] != self.n_features_in_:
                raise ValueError(
                    f"input_features should have length equal to number of features "
                    f"({self.n_features_in_}), got {given.shape[0]}"
                )
        n_out = 1 if len(self.classes_) == 2 else self.scalings_.shape[1]
        prefix = type(self).__name__.lower()
        return np.array([f"{prefix}{i}" for i in range(n_out)], dtype=object)

    def criterion(self, w):
        """Fisher's criterion :math:`J_F(\\mathbf{w}) = \\mathbf{w}^\\top S_b\\mathbf{w} / \\mathbf{w}^\\top S_w\\mathbf{w}`.

        Parameters
        ----------
        w : array_like of shape (n_features,) or (1, n_features)

        Returns
        -------
        float
            Invariant to the scale of ``w``; maximal at ``coef_`` (two classes)
            or at ``scalings_[:, 0]`` (any number of classes, ``reg=0``).
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
