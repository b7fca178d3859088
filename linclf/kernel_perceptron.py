r"""The perceptron in dual form, with a kernel.

The primal perceptron started at :math:`\mathbf w = 0, b = 0` with step 1 adds
:math:`y_i\mathbf x_i` to :math:`\mathbf w` and :math:`y_i` to :math:`b` at every mistake,
so after training

.. math:: \mathbf w = \sum_i \alpha_i y_i \mathbf x_i, \qquad b = \sum_i \alpha_i y_i,

where :math:`\alpha_i` counts the mistakes made on :math:`\mathbf x_i`. The decision
function therefore only needs inner products,
:math:`f(\mathbf x) = \sum_i \alpha_i y_i\,(\mathbf x_i^\top\mathbf x + 1)`, and replacing
:math:`\mathbf x_i^\top\mathbf x` by a kernel :math:`k(\mathbf x_i, \mathbf x)` gives the kernel
perceptron. The ":math:`+1`" is the constant feature of the augmented vector
:math:`(\mathbf x, 1)`: it is what makes :math:`b = \sum_i\alpha_i y_i`.
With ``kernel="linear"`` the mistakes, and hence :math:`\mathbf w` and :math:`b`, are
exactly those of :class:`linclf.perceptron.Perceptron` with ``eta=1`` from zero.

Training uses the Gram matrix: the scores of all training points are kept in
a vector and updated by one row of :math:`K` per mistake.
"""

from __future__ import annotations

import numpy as np

from ._params import Interval, validate_params
from ._validation import (
    check_X_y,
    encode_binary,
)
from .base import BaseEstimator, KernelClassifierMixin
from .kernels import Kernel
from .optim import warn_not_converged

__all__ = ["KernelPerceptron"]


#: Bytes of kernel rows kept during fit. The whole Gram matrix is computed at
#: once when it fits (fast); beyond, rows are computed at a point's first
#: mistake and kept while the budget lasts, so n = 20 000 no longer needs 3.2 GB.
_GRAM_BUDGET = 256 * 2**20


class _KernelRows:
    """Row ``i`` of the training Gram matrix, from a full matrix or computed on demand."""

    def __init__(self, kernel, X):
        self.kernel, self.X = kernel, X
        n = X.shape[0]
        self.full = kernel.block(X, X) if n * n * 8 <= _GRAM_BUDGET else None
        self.rows, self.capacity = {}, max(1, _GRAM_BUDGET // (8 * n))

    def __call__(self, i):
        if self.full is not None:
            return self.full[i]
        r = self.rows.get(i)
        if r is None:
            r = self.kernel.block(self.X[i:i + 1], self.X)[0]
            if len(self.rows) < self.capacity:
                self.rows[i] = r
        return r


class KernelPerceptron(BaseEstimator, KernelClassifierMixin):
    r"""Dual (kernel) perceptron: :math:`f(\mathbf x) = \sum_i \alpha_i y_i k(\mathbf x_i, \mathbf x) + b`.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "laplacian", "sigmoid"} or callable, default="rbf"
    gamma : "scale", "auto" or float, default="scale"
        As in :class:`linclf.svm.SVC`.
    degree : int, default=3
    coef0 : float, default=0.0
    max_iter : int, default=1000
        Maximal number of epochs (passes over the data in index order).

    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples,)
        Number of mistakes made on each training point.
    dual_coef_ : ndarray of shape (1, n_SV)
        :math:`\alpha_i y_i` for the points with :math:`\alpha_i > 0`.
    support_ : ndarray of int
        Indices of the points with :math:`\alpha_i > 0`.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    intercept_ : ndarray of shape (1,)
        :math:`b = \sum_i \alpha_i y_i`.
    mistakes_ : list of int
        Index of the misclassified point at each update, in order.
    n_iter_ : int
        Epochs run (the last one without mistakes, if converged).
    converged_ : bool
    classes_, n_features_in_

    Warns
    -----
    ConvergenceWarning
        When an epoch still makes mistakes at ``max_iter`` (the data are not
        separable in the kernel's feature space, or need more epochs).
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    # kernel, gamma, degree and coef0 are checked by Kernel.from_params
    _parameter_constraints = {"max_iter": [Interval("integer", 1, None)]}

    def __init__(self, *, kernel="rbf", gamma="scale", degree=3, coef0=0.0, max_iter=1000):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.max_iter = max_iter

    def fit(self, X, y):
        """Cycle through the data, adding a point's kernel row at each mistake.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator="KernelPerceptron")
        self.kernel_ = Kernel.from_params(
            self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0, X=X
        )
        n = X.shape[0]
        row = _KernelRows(self.kernel_, X)
        alpha = np.zeros(n)
        score = np.zeros(n)  # f(x_t) for every training point, including b
        mistakes = []
        converged = False
        epoch = 0
        while epoch < self.max_iter:
            epoch += 1
            n_mistakes = 0
            for i in range(n):
                # <= 0: at the start every point is a mistake, as in the primal
                if y_pm[i] * score[i] <= 0:
                    alpha[i] += 1
                    score += y_pm[i] * (row(i) + 1.0)
                    mistakes.append(i)
                    n_mistakes += 1
            if n_mistakes == 0:
                converged = True
                break
        if not converged:
            warn_not_converged(
                "KernelPerceptron", self.max_iter,
                "the data may not be separable in the kernel's feature space",
            )
        self.alpha_ = alpha
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (alpha * y_pm)[self.support_][None, :]
        self.intercept_ = np.array([float(np.dot(alpha, y_pm))])
        self.mistakes_ = mistakes
        self.n_iter_ = epoch
        self.converged_ = converged
        self.n_features_in_ = X.shape[1]
        return self
