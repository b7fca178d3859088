r"""Regularised least squares in a reproducing-kernel Hilbert space (kernel ridge).

The least-squares classifier of chapter 4 fits the labels :math:`y_n = \pm1` with a
linear score. Here the score is a function :math:`f` of the RKHS :math:`\mathcal H`
of a kernel :math:`k`, and its norm is penalised:

.. math::

    J(f) = \frac1N\sum_{n=1}^N \tfrac12\bigl(y_n - f(\mathbf x_n)\bigr)^2
           + \frac\lambda2\lVert f\rVert_{\mathcal H}^2 .

By the representer theorem (chapter 9) a minimiser is
:math:`f = \sum_n\alpha_n k(\mathbf x_n,\cdot)`; then
:math:`J = \frac1{2N}\lVert K\boldsymbol\alpha - \mathbf y\rVert^2
+ \frac\lambda2\boldsymbol\alpha^\top K\boldsymbol\alpha`, whose gradient
:math:`K\bigl[(K + N\lambda I)\boldsymbol\alpha - \mathbf y\bigr]/N` vanishes at

.. math:: \boldsymbol\alpha = (K + N\lambda I)^{-1}\mathbf y .

With the mean loss of the book, ``alpha`` :math:`=\lambda` here is
scikit-learn's ``KernelRidge(alpha=N * lambda)``, which penalises a *sum* of
squared errors. There is no separate intercept: a kernel with a constant
feature (``kernel="poly"`` with ``coef0 > 0``) supplies one.
"""

from __future__ import annotations

import numpy as np

from ._params import Interval, validate_params
from ._validation import check_X_y, encode_binary
from .base import BaseEstimator, KernelClassifierMixin
from .kernels import Kernel

__all__ = ["KernelRidgeClassifier"]


class KernelRidgeClassifier(BaseEstimator, KernelClassifierMixin):
    r"""Kernel ridge classifier: :math:`f(\mathbf x) = \sum_n\alpha_n k(\mathbf x_n, \mathbf x)`, :math:`\boldsymbol\alpha = (K + N\lambda I)^{-1}\mathbf y`.

    Parameters
    ----------
    alpha : float, default=1.0
        Regularisation strength :math:`\lambda > 0` of the penalty
        :math:`\frac\lambda2\lVert f\rVert_{\mathcal H}^2` added to the *mean*
        half squared error.
    kernel : {"linear", "poly", "rbf", "laplacian", "sigmoid"} or callable, default="rbf"
    gamma : "scale", "auto" or float, default="scale"
        As in :class:`linclf.svm.SVC`.
    degree : int, default=3
    coef0 : float, default=0.0

    Attributes
    ----------
    dual_coef_ : ndarray of shape (1, n_samples)
        The expansion coefficients :math:`\alpha_n`, one per training point.
    support_vectors_ : ndarray of shape (n_samples, n_features)
        The training points (all of them carry a coefficient).
    objective_ : float
        :math:`J(f)` at the solution.
    kernel_ : Kernel
        The validated kernel.
    classes_, n_features_in_

    Notes
    -----
    The labels are coded :math:`y_n = \pm1` (``classes_[0]`` is :math:`-1`) and
    ``decision_function > 0`` predicts ``classes_[1]``.
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    # kernel, gamma, degree and coef0 are checked by Kernel.from_params
    _parameter_constraints = {"alpha": [Interval("real", 0, None, closed="neither")]}

    def __init__(self, *, alpha=1.0, kernel="rbf", gamma="scale", degree=3, coef0=0.0):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y):
        r"""Solve :math:`(K + N\lambda I)\boldsymbol\alpha = \mathbf y`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self

        Raises
        ------
        ValueError
            If :math:`K + N\lambda I` is singular (possible only for a kernel
            that is not positive semi-definite, such as ``"sigmoid"``).
        """
        params = validate_params(self)
        lam = params["alpha"]
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator="KernelRidgeClassifier")
        self.kernel_ = Kernel.from_params(
            self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0, X=X
        )
        K = self.kernel_.block(X, X)
        n = X.shape[0]
        try:
            coef = np.linalg.solve(K + n * lam * np.eye(n), y_pm)
        except np.linalg.LinAlgError as exc:
            raise ValueError(
                "K + N * alpha * I is singular: the kernel is not positive semi-definite "
                "on these data; use a PSD kernel or a larger alpha."
            ) from exc
        resid = K @ coef - y_pm
        self.objective_ = float(resid @ resid / (2 * n) + lam / 2 * coef @ K @ coef)
        self.dual_coef_ = coef[None, :]
        # a copy: check_X_y returns the caller's own float64 array, and a model
        # must not change when the caller later edits it in place
        self.support_vectors_ = X.copy()
        self.n_features_in_ = X.shape[1]
        return self
