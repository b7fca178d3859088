"""Minimum squared-error (MSE) linear classifier.

Instead of the inequalities :math:`\\mathbf{a}^\\top\\mathbf{z}_i > 0`, ask for
equalities :math:`\\mathbf{a}^\\top\\mathbf{z}_i = \\beta_i` with chosen positive
*margins* :math:`\\beta_i`, and solve them in the least-squares sense:

.. math:: \\min_{\\mathbf{a}}\\; J_s(\\mathbf{a}) = \\lVert Z\\mathbf{a} - \\boldsymbol\\beta\\rVert^2,
          \\qquad \\mathbf{a}^* = Z^+\\boldsymbol\\beta,

where row :math:`i` of :math:`Z` is the normalised augmented sample
:math:`\\mathbf{z}_i = y_i(\\mathbf{x}_i, 1)` (see :mod:`linclf.geometry`).
"""

from __future__ import annotations

import numpy as np

from ._params import ArrayLike, Interval, Options, validate_params
from ._validation import check_X_y, encode_binary
from .base import BaseEstimator, LinearClassifierMixin
from .geometry import augment
from .optim import warn_not_converged

__all__ = ["LeastSquaresClassifier"]

_SOLVERS = ("pinv", "gd", "lms")


def fisher_margins(y_pm):
    """Margins :math:`\\beta_i = N/N_+` for the positive class and :math:`N/N_-` for the negative.

    Any margins that are constant within each class make the MSE weight vector point
    along Fisher's direction :math:`S_w^{-1}(\\mathbf{m}_+ - \\mathbf{m}_-)`; these
    (or any pair with :math:`\\beta_+N_+ = \\beta_-N_-`) also put the threshold at
    :math:`b = -\\mathbf{m}^\\top\\mathbf{w}` (:math:`\\mathbf{m}` the mean of all samples).

    Parameters
    ----------
    y_pm : ndarray of shape (n_samples,) with values in {-1, +1}

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    n = y_pm.shape[0]
    n_pos = np.sum(y_pm > 0)
    return np.where(y_pm > 0, n / n_pos, n / (n - n_pos))


def _margin_vector(margins, y_pm):
    n = y_pm.shape[0]
    if isinstance(margins, str):
        if margins == "ones":
            return np.ones(n)
        if margins == "fisher":
            return fisher_margins(y_pm)
        raise ValueError(
            f"margins must be 'ones', 'fisher' or an array of {n} positive numbers; got {margins!r}."
        )
    beta = np.asarray(margins)
    if beta.dtype.kind not in "iuf" or beta.shape != (n,):
        raise ValueError(
            f"margins must be 'ones', 'fisher' or an array of {n} positive numbers "
            f"(one per sample); got {'shape ' + str(beta.shape) if beta.dtype.kind in 'iuf' else repr(margins)}."
        )
    beta = beta.astype(float)
    if not np.all(np.isfinite(beta)) or np.any(beta <= 0):
        raise ValueError("margins must be finite and > 0 (they are the targets a^T z_i = beta_i).")
    return beta


class LeastSquaresClassifier(LinearClassifierMixin, BaseEstimator):
    """Linear classifier minimising :math:`\\lVert Z\\mathbf{a} - \\boldsymbol\\beta\\rVert^2`.

    Parameters
    ----------
    solver : {"pinv", "gd", "lms"}, default="pinv"
        * ``"pinv"``: closed form :math:`\\mathbf{a} = Z^+\\boldsymbol\\beta` with the
          Moore-Penrose pseudo-inverse (also fine when :math:`Z^\\top Z` is
          singular: it then returns the minimum-norm solution).
        * ``"gd"``: batch gradient descent on the mean squared error
          :math:`\\tfrac{1}{N}\\lVert Z\\mathbf{a}-\\boldsymbol\\beta\\rVert^2` (same
          minimiser), :math:`\\mathbf{a} \\leftarrow \\mathbf{a} - \\eta\\,\\tfrac{1}{N}Z^\\top(Z\\mathbf{a}-\\boldsymbol\\beta)`,
          stopping when the gradient norm is below ``tol``.
        * ``"lms"``: the Widrow-Hoff (LMS) single-sample rule,
          :math:`\\mathbf{a} \\leftarrow \\mathbf{a} + \\eta_k (\\beta_i - \\mathbf{a}^\\top\\mathbf{z}_i)\\mathbf{z}_i`
          over the samples in order, with the decreasing step
          :math:`\\eta_k = \\eta/k` in epoch :math:`k = 1, 2, \\dots`;
          stopping when one epoch moves :math:`\\mathbf{a}` by at most
          ``tol * max(1, ||a||)``.
    margins : {"ones", "fisher"} or array_like of shape (n_samples,), default="ones"
        The targets :math:`\\beta_i > 0`. ``"ones"``: all 1 (as :math:`N\\to\\infty`
        the solution tends to the best linear approximation, in mean square, of
        the Bayes discriminant :math:`2q(\\mathbf{x}) - 1`, with
        :math:`q(\\mathbf{x}) = P(\\omega_+\\mid\\mathbf{x})`; its sign need not
        match the Bayes rule).
        ``"fisher"``: :math:`N/N_+` for the positive and :math:`N/N_-` for the
        negative class, which gives Fisher's direction with threshold
        :math:`-\\mathbf{m}^\\top\\mathbf{w}`.
    eta : float or "auto", default="auto"
        Step size :math:`\\eta` for ``"gd"``/``"lms"`` (ignored by ``"pinv"``).
        ``"auto"`` is :math:`1/\\lambda_{\\max}` for ``"gd"``, with
        :math:`\\lambda_{\\max}` the largest eigenvalue of :math:`Z^\\top Z/N` (``L`` in
        the error message), and :math:`1/\\max_i\\lVert\\mathbf{z}_i\\rVert^2` for
        ``"lms"``. Steps outside the stable range raise ``ValueError``: for
        ``"gd"`` :math:`\\eta \\ge 2/\\lambda_{\\max}`, where the iteration does not
        converge; for ``"lms"`` :math:`\\eta\\max_i\\lVert\\mathbf{z}_i\\rVert^2 \\ge 2`,
        where the first epoch's updates would amplify the residuals they correct.
    max_iter : int, default=1000
        Iterations (``"gd"``) or epochs (``"lms"``).
    tol : float, default=1e-6

    Attributes
    ----------
    a_ : ndarray of shape (n_features + 1,)
        The augmented solution :math:`(\\mathbf{w}, b)`.
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    margins_ : ndarray of shape (n_samples,)
        The targets :math:`\\boldsymbol\\beta` used.
    loss_curve_ : list of float
        ``"gd"``/``"lms"`` only: :math:`\\lVert Z\\mathbf{a}-\\boldsymbol\\beta\\rVert^2/N`
        at the start and after every iteration/epoch.
    n_iter_ : int
        Iterations (``"gd"``) or epochs (``"lms"``); 1 for the direct ``"pinv"`` solve.
    converged_ : bool
    classes_, n_features_in_
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more
    _parameter_constraints = {
        "solver": [Options(*_SOLVERS)],
        "margins": [Options("ones", "fisher"), ArrayLike()],  # an array: checked against y in fit
        "eta": [Options("auto"), Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "tol": [Interval("real", 0, None)],
    }

    def __init__(self, *, solver="pinv", margins="ones", eta="auto", max_iter=1000, tol=1e-6):
        self.solver = solver
        self.margins = margins
        self.eta = eta
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y):
        """Solve the least-squares problem with the chosen solver.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_X_y(X, y)
        self.classes_, y_pm = encode_binary(y, estimator="LeastSquaresClassifier")
        Z = augment(X) * y_pm[:, None]
        self.margins_ = _margin_vector(self.margins, y_pm)

        if self.solver == "pinv":
            a = np.linalg.pinv(Z) @ self.margins_
            self.converged_ = True
            self.n_iter_ = 1  # one direct solve
        else:
            run = self._gradient_descent if self.solver == "gd" else self._widrow_hoff
            a = run(Z, self.margins_, int(self.max_iter))
        self.a_ = a
        self.n_features_in_ = X.shape[1]
        self.coef_ = a[None, :-1].copy()
        self.intercept_ = a[-1:].copy()
        return self

    @staticmethod
    def _mse(Z, a, beta):
        r = Z @ a - beta
        return float(r @ r) / Z.shape[0]

    def _gradient_descent(self, Z, beta, max_iter):
        n = Z.shape[0]
        L = np.linalg.eigvalsh(Z.T @ Z / n)[-1]
        eta = 1.0 / L if isinstance(self.eta, str) else float(self.eta)
        if eta >= 2.0 / L:
            raise ValueError(
                f"eta={eta:g} is too large: gradient descent diverges for eta >= 2/L = "
                f"{2.0 / L:g} (L = largest eigenvalue of Z^T Z / N); use a smaller eta "
                "or eta='auto', or standardise X."
            )
        a = np.zeros(Z.shape[1])
        self.loss_curve_ = [self._mse(Z, a, beta)]
        self.converged_ = False
        for it in range(1, max_iter + 1):
            grad = Z.T @ (Z @ a - beta) / n
            if np.linalg.norm(grad) <= self.tol:
                self.converged_ = True
                it -= 1
                break
            a = a - eta * grad
            self.loss_curve_.append(self._mse(Z, a, beta))
        self.n_iter_ = it
        if not self.converged_:
            warn_not_converged("LeastSquaresClassifier(solver='gd')", max_iter, "increase max_iter or eta")
        return a

    def _widrow_hoff(self, Z, beta, max_iter):
        sq_norms = np.einsum("ij,ij->i", Z, Z)
        eta = 1.0 / sq_norms.max() if isinstance(self.eta, str) else float(self.eta)
        if eta * sq_norms.max() >= 2.0:
            raise ValueError(
                f"eta={eta:g} is too large for the LMS rule: it must satisfy eta * max ||z_i||^2 < 2, "
                f"i.e. eta < {2.0 / sq_norms.max():g}; use a smaller eta, eta='auto', or standardise X."
            )
        a = np.zeros(Z.shape[1])
        self.loss_curve_ = [self._mse(Z, a, beta)]
        self.converged_ = False
        for epoch in range(1, max_iter + 1):
            eta_t = eta / epoch
            a_start = a.copy()
            for z, beta_i in zip(Z, beta):
                a += eta_t * (beta_i - a @ z) * z
            self.loss_curve_.append(self._mse(Z, a, beta))
            if np.linalg.norm(a - a_start) <= self.tol * max(1.0, np.linalg.norm(a)):
                self.converged_ = True
                break
        self.n_iter_ = epoch
        if not self.converged_:
            warn_not_converged("LeastSquaresClassifier(solver='lms')", max_iter, "increase max_iter")
        return a
