r"""The ramp-loss SVM: a bounded, non-convex loss fitted by the concave-convex procedure.

The hinge loss grows without bound on the wrong side, so a few far, mislabelled
points can turn an SVM's boundary. The ramp loss caps it:
:math:`R_s(m) = \min(1 - s, \max(0, 1 - m)) = H_1(m) - H_s(m)`, with
:math:`H_a(m) = \max(0, a - m)` and :math:`s < 1`. The objective

.. math:: J(\mathbf w, b) = \tfrac12\lVert\mathbf w\rVert^2 + C\sum_i R_s\bigl(y_i f(\mathbf x_i)\bigr)

is a convex function minus a convex one. The concave-convex procedure (CCCP;
Yuille and Rangarajan 2003, used for the ramp loss by Collobert et al. 2006)
replaces the concave part :math:`-C\sum_i H_s(m_i)` by its tangent at the
current iterate, which bounds it from above, and minimises the resulting convex
bound. Each step therefore cannot increase :math:`J`. The tangent of
:math:`-H_s` is :math:`m - s` where :math:`m < s` and 0 elsewhere, so the bound
for a point currently beyond the corner is :math:`H_1(m) + m + \text{const}
= \max(m, 1) + \text{const}`, which is constant where :math:`m \le 1`. The
convex step is thus the soft-margin SVM on the points with :math:`m_i \ge s`,
exactly, as long as every dropped point keeps :math:`m_i \le 1` at the new
solution (then 0 is in the subdifferential of the dropped terms); the
implementation checks this.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._params import Interval, validate_params
from ._validation import (
    ConvergenceWarning,
    check_array,
    check_is_fitted,
    check_known_labels,
    check_n_features,
    check_X_y,
    encode_binary,
)
from .base import BaseEstimator, LinearClassifierMixin
from .losses import ramp
from .svm import SVC

__all__ = ["RampSVM"]


class RampSVM(LinearClassifierMixin, BaseEstimator):
    """Linear SVM with the ramp loss, fitted by the concave-convex procedure (CCCP).

    Starts from the hinge-loss SVM (:class:`~linclf.SVC`, linear kernel, the same
    ``C``). Each CCCP step drops the points whose margin is below ``s`` and refits
    the SVM on the rest; it stops when the set of dropped points repeats.
    The objective :math:`\\tfrac12\\lVert\\mathbf w\\rVert^2 + C\\sum_i R_s(y_if(\\mathbf x_i))`
    never increases (it is a local method: the result is a stationary point of a
    non-convex objective, and depends on the start).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the summed ramp loss, :math:`C > 0`.
    s : float, default=-1.0
        Corner of the ramp :math:`R_s(m) = \\min(1 - s, \\max(0, 1 - m))`, :math:`s < 1`.
    tol : float, default=1e-6
        Stopping tolerance of the inner SMO solver (:class:`~linclf.SVC` ``tol``).
    max_iter : int, default=50
        Maximum number of CCCP steps.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    dropped_ : ndarray of bool, shape (n_samples,)
        Points left out of the convex step that produced ``coef_`` (their margin was
        below ``s`` at the iterate before it); all False when no point was ever dropped.
    objective_path_ : ndarray of shape (n_iter_ + 1,)
        The ramp objective at the hinge-SVM start and after every CCCP step.
    n_iter_ : int
        CCCP steps taken.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0], [-6.0, 0.5]])
    >>> y = np.array([-1, -1, 1, 1, 1])          # the last point is far on the wrong side
    >>> clf = RampSVM(C=10.0).fit(X, y)
    >>> clf.dropped_.tolist()
    [False, False, False, False, True]
    >>> clf.predict(X[:4]).tolist()
    [-1, -1, 1, 1]
    """

    _binary_only = True

    _parameter_constraints = {
        "C": [Interval("real", 0, None, closed="neither")],
        "s": [Interval("real", None, 1, closed="neither")],
        "tol": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
    }

    def __init__(self, *, C=1.0, s=-1.0, tol=1e-6, max_iter=50):
        self.C = C
        self.s = s
        self.tol = tol
        self.max_iter = max_iter

    def objective(self, X, y, w=None, b=None):
        r"""The ramp objective :math:`\tfrac12\|\mathbf w\|^2 + C\sum_i R_s(y_i f(\mathbf x_i))`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Labels from ``classes_``; any other label is refused (it has no
            sign, so it cannot be counted as either class).
        w : array_like of shape (n_features,) or None, default=None
            Weights; ``None`` uses the fitted ``coef_[0]``.
        b : float or None, default=None
            Intercept; ``None`` uses the fitted ``intercept_[0]``.

        Returns
        -------
        float
            With the ``C`` and ``s`` the model was fitted with.
        """
        check_is_fitted(self, "coef_")
        X = check_n_features(self, X)
        y = check_known_labels(y, self.classes_, X.shape[0])
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        w = self.coef_[0] if w is None else check_array(w, name="w", ensure_2d=False).ravel()
        if w.shape != (self.n_features_in_,):
            raise ValueError(f"w must have {self.n_features_in_} entries; got {w.shape[0]}.")
        b = self.intercept_[0] if b is None else float(b)
        C, s = self._fitted_params
        return float(0.5 * w @ w + C * np.sum(ramp(y_pm * (X @ w + b), s=s)))

    def fit(self, X, y):
        """Run CCCP from the hinge-loss SVM.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        params = validate_params(self)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator="RampSVM")
        C, s = params["C"], params["s"]

        def svm_on(keep):
            if np.unique(y_pm[keep]).size < 2:
                # The convex step still has a minimiser: with one class left the
                # hinge terms vanish at w = 0, b = that class's sign (margin 1).
                sign = float(y_pm[keep][0])
                labels = np.asarray(self.classes_).tolist()
                warnings.warn(
                    f"RampSVM: every point of class {labels[int(sign < 0)]!r} fell "
                    f"beyond the ramp's corner s={s:g}, so the CCCP step is the constant "
                    f"classifier predicting {labels[int(sign > 0)]!r} (w = 0). Lower s "
                    "(a longer ramp) or raise C for a non-constant model.", UserWarning,
                    stacklevel=3)
                return np.zeros(X.shape[1]), sign
            svm = SVC(kernel="linear", C=C, tol=params["tol"]).fit(X[keep], y_pm[keep])
            return svm.coef_[0], svm.intercept_[0]

        def J(w, b):
            return float(0.5 * w @ w + C * np.sum(ramp(y_pm * (X @ w + b), s=s)))

        w, b = svm_on(np.ones(len(y_pm), dtype=bool))
        path, seen, fitted_without = [J(w, b)], set(), np.zeros(len(y_pm), dtype=bool)
        for step in range(1, params["max_iter"] + 1):
            dropped = y_pm * (X @ w + b) < s
            key = dropped.tobytes()
            if key in seen:
                step -= 1
                break
            seen.add(key)
            w, b = svm_on(~dropped)
            fitted_without = dropped
            if np.any(y_pm[dropped] * (X[dropped] @ w + b) > 1 + 1e-9):
                warnings.warn("RampSVM: a dropped point ended with margin above 1, so this "
                              "step is not an exact CCCP step.", ConvergenceWarning, stacklevel=2)
            path.append(J(w, b))
        else:
            warnings.warn(f"RampSVM: the dropped set still changed after max_iter="
                          f"{params['max_iter']} CCCP steps.", ConvergenceWarning, stacklevel=2)
        self.coef_, self.intercept_ = w[None, :].copy(), np.array([b])
        self.dropped_ = fitted_without
        self.objective_path_ = np.array(path)
        self.n_iter_ = step
        self.n_features_in_ = X.shape[1]
        self._fitted_params = (C, s)
        return self
