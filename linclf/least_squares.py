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

__all__ = ["LeastSquaresClassifier", "HoKashyap", "ho_kashyap"]

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
          stopping when the gradient norm is at most ``tol`` times its norm at
          :math:`\\mathbf a = \\mathbf 0`.
        * ``"lms"``: the Widrow-Hoff (LMS) single-sample rule,
          :math:`\\mathbf{a} \\leftarrow \\mathbf{a} + \\eta_k (\\beta_i - \\mathbf{a}^\\top\\mathbf{z}_i)\\mathbf{z}_i`
          over the samples in order, with the decreasing step
          :math:`\\eta_k = \\eta/k` in epoch :math:`k = 1, 2, \\dots`;
          stopping, as ``"gd"``, when after an epoch the gradient of the mean
          squared error is at most ``tol`` times its norm at :math:`\\mathbf a = \\mathbf 0`
          (a small step alone proves nothing: :math:`\\eta/k` shrinks whatever the error).
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
        X, y = check_X_y(X, y, estimator=self)
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
        grad_tol = self.tol * float(np.linalg.norm(Z.T @ beta)) / n  # |gradient| at a = 0
        for it in range(1, max_iter + 1):
            grad = Z.T @ (Z @ a - beta) / n
            if np.linalg.norm(grad) <= grad_tol:
                self.converged_ = True
                it -= 1
                break
            a = a - eta * grad
            self.loss_curve_.append(self._mse(Z, a, beta))
        self.n_iter_ = it
        if not self.converged_:
            warn_not_converged(
                "LeastSquaresClassifier(solver='gd')", max_iter,
                f"the gradient is still {np.linalg.norm(grad) / max(grad_tol, 1e-300) * self.tol:.2g} "
                f"times its initial norm (tol={self.tol:g}); standardise X (a badly scaled feature "
                "makes the step 1/L tiny for the other features), use solver='pinv', or increase max_iter")
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
        n = Z.shape[0]
        self.loss_curve_ = [self._mse(Z, a, beta)]
        self.converged_ = False
        grad_tol = self.tol * float(np.linalg.norm(Z.T @ beta)) / n  # |gradient| at a = 0
        rel = 1.0
        for epoch in range(1, max_iter + 1):
            eta_t = eta / epoch
            for z, beta_i in zip(Z, beta):
                a += eta_t * (beta_i - a @ z) * z
            r = Z @ a - beta
            self.loss_curve_.append(float(r @ r) / n)
            grad_norm = float(np.linalg.norm(Z.T @ r)) / n
            rel = grad_norm / grad_tol * self.tol if grad_tol > 0 else 0.0
            if grad_norm <= grad_tol:
                self.converged_ = True
                break
        self.n_iter_ = epoch
        if not self.converged_:
            warn_not_converged(
                "LeastSquaresClassifier(solver='lms')", max_iter,
                f"the gradient of the mean squared error is still {rel:.2g} times its initial "
                f"norm (tol={self.tol:g}). The step eta/k shrinks with the epoch k and is at most "
                f"{eta:.2g} (1/max ||z_i||^2 for eta='auto'): standardise X (a feature with a "
                "large offset or scale makes it tiny), or use solver='pinv' for the exact "
                "minimiser")
        return a


def ho_kashyap(Z, *, eta=0.5, beta0=None, tol=1e-8, max_iter=10_000):
    r"""The Ho-Kashyap procedure: minimise :math:`\lVert Z\mathbf a - \boldsymbol\beta\rVert^2` over :math:`\mathbf a` *and* :math:`\boldsymbol\beta > 0`.

    Alternates :math:`\mathbf a = Z^+\boldsymbol\beta` with a step on the margins that
    only ever raises them, :math:`\boldsymbol\beta \leftarrow \boldsymbol\beta + 2\eta\,\mathbf e^+`,
    where :math:`\mathbf e = Z\mathbf a - \boldsymbol\beta` and :math:`\mathbf e^+ = \max(\mathbf e, 0)`
    (Ho & Kashyap 1965; Duda, Hart & Stork, section 5.9). For :math:`0 < \eta < 1`:

    * if the samples are linearly separable, :math:`\mathbf e \to \mathbf 0` and
      :math:`Z\mathbf a \to \boldsymbol\beta > \mathbf 0`, so after finitely many steps
      :math:`Z\mathbf a > \mathbf 0`: a separating vector, where the procedure stops;
    * if at some step :math:`\mathbf e \le \mathbf 0` with :math:`\mathbf e \ne \mathbf 0`, the
      samples are **not** separable (then :math:`Z^\top\mathbf e = \mathbf 0` and
      :math:`\mathbf e \le 0` would contradict :math:`Z\hat{\mathbf a} > 0` for a separating
      :math:`\hat{\mathbf a}`: :math:`0 = \hat{\mathbf a}^\top Z^\top\mathbf e = \sum_i (Z\hat{\mathbf a})_i e_i < 0`).

    Parameters
    ----------
    Z : array_like of shape (N, p)
        Normalised augmented samples :math:`\mathbf z_i = y_i\tilde{\mathbf x}_i`.
    eta : float, default=0.5
        Step on the margins, in (0, 1).
    beta0 : array_like of shape (N,) or None
        Initial margins (> 0); all ones by default.
    tol : float, default=1e-8
        Stop when :math:`Z\mathbf a > \mathbf 0` or :math:`\lVert\mathbf e\rVert \le` ``tol``
        (separable), or when
        :math:`\max_i e_i \le` ``tol`` :math:`\cdot\lVert\mathbf e\rVert` with
        :math:`\lVert\mathbf e\rVert >` ``tol`` (not separable).
    max_iter : int, default=10_000

    Returns
    -------
    a : ndarray of shape (p,)
    beta : ndarray of shape (N,)
    status : {"separable", "not separable", "undecided"}
        ``"undecided"`` when ``max_iter`` steps ended neither way.
    n_iter : int
    """
    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 2 or not np.all(np.isfinite(Z)):
        raise ValueError("Z must be a finite 2-D array (one normalised augmented sample per row).")
    if not 0 < eta < 1:
        raise ValueError(f"eta must lie in (0, 1); got {eta!r}.")
    beta = np.ones(Z.shape[0]) if beta0 is None else np.asarray(beta0, dtype=float).copy()
    if beta.shape != (Z.shape[0],) or not np.all(beta > 0):
        raise ValueError(f"beta0 must hold {Z.shape[0]} positive numbers.")
    Z_pinv = np.linalg.pinv(Z)
    for k in range(max_iter + 1):
        a = Z_pinv @ beta
        scores = Z @ a
        e = scores - beta
        e_norm = float(np.linalg.norm(e))
        if e_norm <= tol or np.all(scores > 0):
            return a, beta, "separable", k
        if e.max() <= tol * e_norm:
            return a, beta, "not separable", k
        if k < max_iter:
            beta = beta + eta * (e + np.abs(e))  # 2 eta e^+
    return a, beta, "undecided", max_iter


class HoKashyap(LinearClassifierMixin, BaseEstimator):
    """Linear classifier by the Ho-Kashyap procedure (:func:`ho_kashyap`), which also tells separability.

    Parameters
    ----------
    eta : float, default=0.5
        Step on the margins, in (0, 1).
    tol : float, default=1e-8
    max_iter : int, default=10_000

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    margins_ : ndarray of shape (n_samples,)
        The final :math:`\boldsymbol\beta`.
    separable_ : bool or None
        ``True``/``False`` when the procedure proved it, ``None`` when undecided.
    n_iter_ : int
        Least-squares solves :math:`\\mathbf a = Z^+\\boldsymbol\\beta` (one more than the
        updates of :math:`\\boldsymbol\\beta`).
    classes_, n_features_in_
    """

    _binary_only = True

    _parameter_constraints = {
        "eta": [Interval("real", 0, 1, closed="neither")],
        "tol": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
    }

    def __init__(self, *, eta=0.5, tol=1e-8, max_iter=10_000):
        self.eta = eta
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Run the procedure on the normalised augmented samples.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        p = validate_params(self)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator="HoKashyap")
        Z = augment(X) * y_pm[:, None]
        a, beta, status, n_iter = ho_kashyap(Z, eta=p["eta"], tol=p["tol"], max_iter=p["max_iter"])
        if status == "undecided":
            warn_not_converged("HoKashyap", p["max_iter"],
                               "separability was neither proved nor refuted; try a larger max_iter")
        self.separable_ = {"separable": True, "not separable": False}.get(status)
        self.margins_ = beta
        self.n_iter_ = n_iter + 1
        self.n_features_in_ = X.shape[1]
        self.coef_ = a[None, :-1]
        self.intercept_ = a[-1:].copy()
        return self
