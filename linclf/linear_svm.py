r"""The linear soft-margin SVM trained on the primal or by dual coordinate descent.

:class:`LinearSVM` has two solvers for large :math:`N`, where SMO on the kernel
dual (:class:`linclf.SVC`) pays for its :math:`N\times N` kernel rows:

* ``solver="subgradient"``: subgradient steps on the primal, full-batch or
  mini-batch; ``eta="pegasos"`` is Pegasos (Shalev-Shwartz et al. 2007). The
  intercept is not penalised, as in the book's SVM.
* ``solver="dcd"``: dual coordinate descent (Hsieh et al. 2008, the method of
  LIBLINEAR). It needs a dual without the equation :math:`\sum_i\alpha_iy_i = 0`,
  so, as LIBLINEAR does, it appends a constant feature :math:`s` (``intercept_scaling``)
  to every sample and penalises its weight: it minimises

  .. math::

      J_s(\mathbf w, b) = \tfrac12\lVert\mathbf w\rVert^2 + \frac{b^2}{2s^2}
      + C\sum_i\max\bigl(0, 1 - y_i(\mathbf w^\top\mathbf x_i + b)\bigr),

  which tends to the book's objective as :math:`s\to\infty` (at the price of a worse
  conditioned dual). Its dual is :math:`\min_{\boldsymbol\alpha}\tfrac12\boldsymbol\alpha^\top
  Q\boldsymbol\alpha - \mathbf e^\top\boldsymbol\alpha` on the box :math:`0\le\alpha_i\le C` alone,
  with :math:`Q_{ij} = y_iy_j\tilde{\mathbf x}_i^\top\tilde{\mathbf x}_j`,
  :math:`\tilde{\mathbf x}_i = (\mathbf x_i, s)`; one coordinate at a time has the closed-form
  minimiser :math:`\alpha_i \leftarrow \operatorname{clip}_{[0, C]}(\alpha_i - G_i/Q_{ii})` with
  :math:`G_i = y_i\tilde{\mathbf w}^\top\tilde{\mathbf x}_i - 1`, and
  :math:`\tilde{\mathbf w} = \sum_i\alpha_iy_i\tilde{\mathbf x}_i` is kept up to date, so a step
  costs :math:`O(d)`.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._params import Instance, Interval, Options, validate_params
from ._validation import ConvergenceWarning, check_random_state, check_X_y, encode_binary
from .base import BaseEstimator, LinearClassifierMixin

__all__ = ["LinearSVM", "primal_objective", "dcd_objective"]


def primal_objective(w, b, X, y, C):
    r""":math:`\tfrac12\lVert\mathbf w\rVert^2 + C\sum_i\max(0, 1 - y_i(\mathbf w^\top\mathbf x_i + b))` with y in {-1, +1}.

    Parameters
    ----------
    w : ndarray of shape (d,)
    b : float
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,)
        Labels in {-1, +1}.
    C : float

    Returns
    -------
    float
    """
    hinge = np.maximum(0.0, 1 - y * (X @ w + b))
    return float(0.5 * w @ w + C * hinge.sum())


def dcd_objective(w, b, X, y, C, intercept_scaling=1.0):
    r""":math:`J_s(\mathbf w, b)`: the primal with the intercept penalised as a feature of value :math:`s`.

    Parameters
    ----------
    w : ndarray of shape (d,)
    b : float
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,)
        Labels in {-1, +1}.
    C : float
    intercept_scaling : float, default=1.0
        :math:`s`.

    Returns
    -------
    float
    """
    return primal_objective(w, b, X, y, C) + 0.5 * (b / intercept_scaling) ** 2


def _subgradient(X, y_pm, C, eta, max_iter, batch, rng):
    """Best iterate ``(J, w, b)`` of the (mini-batch) subgradient method, and the curve of J."""
    n, d = X.shape
    size = n if batch == "full" else min(batch, n)
    lam = 1.0 / (C * n)
    w = np.zeros(d)
    b = 0.0
    best = (primal_objective(w, b, X, y_pm, C), w.copy(), b)
    curve = []
    for t in range(1, max_iter + 1):
        rows = slice(None) if size == n else rng.choice(n, size=size, replace=False)
        Xb, yb = X[rows], y_pm[rows]
        active = yb * (Xb @ w + b) < 1
        grad_w = lam * w - (yb[active] @ Xb[active]) / size
        grad_b = -yb[active].sum() / size
        step = 1.0 / (lam * t) if isinstance(eta, str) else eta / np.sqrt(t)
        w = w - step * grad_w
        b = b - step * grad_b
        if isinstance(eta, str):
            # Pegasos: the optimum lies in the ball ||w|| <= 1/sqrt(lambda)
            norm = np.linalg.norm(w)
            radius = 1.0 / np.sqrt(lam)
            if norm > radius:
                w *= radius / norm
        J = primal_objective(w, b, X, y_pm, C)
        curve.append(J)
        if J < best[0]:
            best = (J, w.copy(), b)
    return best, curve, max_iter


def _dual_coordinate_descent(X, y_pm, C, s, tol, max_iter, rng):
    """Hsieh et al. (2008), L1 loss; returns ``(alpha, w_tilde, epochs, converged, curve)``."""
    n, d = X.shape
    Xt = np.column_stack([X, np.full(n, s)])
    Q_diag = np.einsum("ij,ij->i", Xt, Xt)
    alpha = np.zeros(n)
    w = np.zeros(d + 1)
    rows = list(Xt)  # row views: indexing a list is cheaper than a 2-D array per step
    curve = []
    converged = False
    epoch = 0
    for epoch in range(1, max_iter + 1):
        pg_max, pg_min = -np.inf, np.inf
        for i in rng.permutation(n).tolist():
            x_i, y_i, a_i = rows[i], y_pm[i], alpha[i]
            G = y_i * float(w @ x_i) - 1.0
            # projected gradient: zero where the box stops the descent
            PG = min(G, 0.0) if a_i == 0.0 else max(G, 0.0) if a_i == C else G
            pg_max, pg_min = max(pg_max, PG), min(pg_min, PG)
            if PG != 0.0 and Q_diag[i] > 0.0:
                a_new = min(max(a_i - G / Q_diag[i], 0.0), C)
                w += (a_new - a_i) * y_i * x_i
                alpha[i] = a_new
        curve.append(dcd_objective(w[:d], w[d] * s, X, y_pm, C, s))
        # LIBLINEAR's stopping rule: the projected gradient's spread over an epoch
        if pg_max - pg_min <= tol:
            converged = True
            break
    return alpha, w, epoch, converged, curve


class LinearSVM(BaseEstimator, LinearClassifierMixin):
    r"""Linear soft-margin SVM for large N: primal subgradient (Pegasos) or dual coordinate descent.

    ``solver="subgradient"`` minimises the book's objective
    :math:`J(\mathbf w, b) = \tfrac12\lVert\mathbf w\rVert^2 + C\sum_i
    \max(0, 1 - y_i(\mathbf w^\top\mathbf x_i + b))`. Dividing by :math:`C` gives
    the "hinge loss + L2" form :math:`\sum_i \mathrm{hinge}_i + \lambda\lVert\mathbf w\rVert^2`
    with :math:`\lambda = 1/(2C)`; the solver divides by :math:`CN` instead and runs on
    :math:`F = \tfrac{\lambda'}2\lVert\mathbf w\rVert^2 + \tfrac1N\sum_i \mathrm{hinge}_i`,
    :math:`\lambda' = 1/(CN)`, which has the same minimiser. Each iteration takes a
    subgradient step on a batch of samples
    (:math:`\partial F = \lambda'\mathbf w - \tfrac1{|B|}\sum_{i\in B,\ y_if_i<1} y_i\mathbf x_i`,
    and the same without the :math:`\lambda'\mathbf w` term for :math:`b`). With
    ``eta="pegasos"`` the step is :math:`1/(\lambda' t)` and :math:`\mathbf w` is projected
    on the ball :math:`\lVert\mathbf w\rVert \le 1/\sqrt{\lambda'}` that contains the optimum
    (Shalev-Shwartz et al., 2007); a number :math:`\eta_0` gives :math:`\eta_0/\sqrt t`.
    Subgradient steps do not decrease :math:`J` monotonically, so the iterate with
    the smallest :math:`J` seen is returned.

    ``solver="dcd"`` is dual coordinate descent (Hsieh et al. 2008); it minimises
    :math:`J_s = J + b^2/(2s^2)` (the intercept penalised as a feature of value
    :math:`s` = ``intercept_scaling``, as in LIBLINEAR and scikit-learn's
    ``LinearSVC(loss="hinge")``); see :mod:`linclf.linear_svm`.

    Parameters
    ----------
    C : float, default=1.0
    solver : {"subgradient", "dcd"}, default="subgradient"
    eta : "pegasos" or float, default="pegasos"
        Step rule of ``"subgradient"``.
    max_iter : int, default=1000
        Iterations (batches) of ``"subgradient"``; epochs of ``"dcd"``.
    tol : float, default=0.1
        ``"dcd"`` stops when the projected gradient's spread over an epoch is at most
        ``tol`` (LIBLINEAR's rule and its default for the dual solvers).
    intercept_scaling : float, default=1.0
        The constant feature :math:`s` of ``"dcd"``.
    random_state : None, int or Generator
        Mini-batches of ``"subgradient"``; the coordinate order of ``"dcd"``.
    batch : "full" or int, default="full"
        ``"subgradient"``: all samples per step, or a mini-batch of this size.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    alpha_ : ndarray of shape (n_samples,)
        ``"dcd"`` only: the dual variables.
    loss_curve_ : list of float
        The objective after every iteration (``"subgradient"``: :math:`J`) or epoch
        (``"dcd"``: :math:`J_s`).
    n_iter_ : int
    classes_, n_features_in_
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    _parameter_constraints = {
        "C": [Interval("real", 0, None, closed="neither")],
        "solver": [Options("subgradient", "dcd")],
        "eta": [Options("pegasos"), Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "tol": [Interval("real", 0, None, closed="neither")],
        "intercept_scaling": [Interval("real", 0, None, closed="neither")],
        "random_state": [Options(None), Interval("integer", 0, None),
                         Instance(np.random.Generator, np.random.RandomState)],
        "batch": [Options("full"), Interval("integer", 1, None)],
    }

    def __init__(self, *, C=1.0, solver="subgradient", eta="pegasos", max_iter=1000, tol=0.1,
                 intercept_scaling=1.0, random_state=None, batch="full"):
        self.C = C
        self.solver = solver
        self.eta = eta
        self.max_iter = max_iter
        self.tol = tol
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state
        self.batch = batch

    primal_objective = staticmethod(primal_objective)

    def fit(self, X, y):
        """Run the chosen solver.

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
        self.classes_, y_pm = encode_binary(y, estimator="LinearSVM")
        rng = check_random_state(self.random_state)
        self.n_features_in_ = X.shape[1]
        self.__dict__.pop("alpha_", None)   # dual variables exist after a dcd fit only
        if p["solver"] == "dcd":
            return self._fit_dcd(X, y_pm, p, rng)
        # Run on centred data: w.(x - mu) + (b + w.mu) is the same score and b is not
        # penalised, so the objective and its minimiser are unchanged; but a feature
        # with a large offset no longer makes every subgradient step on b negligible
        # beside the steps on w (an offset of 1000 used to leave the zero model).
        mu = X.mean(axis=0)
        start = primal_objective(np.zeros(X.shape[1]), 0.0, X - mu, y_pm, p["C"])
        best, curve, n_iter = _subgradient(X - mu, y_pm, p["C"], p["eta"], p["max_iter"],
                                           p["batch"], rng)
        if not best[0] < start:
            warnings.warn(
                f"LinearSVM made no progress in max_iter={p['max_iter']} subgradient steps: "
                f"the best iterate is the starting point w = 0, b = 0 (objective {start:g}). "
                "Increase max_iter, set a smaller eta, or standardise X.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.loss_curve_ = curve
        self.n_iter_ = n_iter
        self.coef_ = best[1][None, :]
        self.intercept_ = np.array([best[2] - best[1] @ mu])
        return self

    def _fit_dcd(self, X, y_pm, p, rng):
        s = p["intercept_scaling"]
        alpha, w, epochs, converged, curve = _dual_coordinate_descent(
            X, y_pm, p["C"], s, p["tol"], p["max_iter"], rng)
        if not converged:
            warnings.warn(
                f"LinearSVM(solver='dcd') did not converge in max_iter={p['max_iter']} epochs "
                f"(tol={p['tol']:g}); increase max_iter, or standardise X (a badly scaled "
                "feature makes coordinate descent slow).",
                ConvergenceWarning,
                stacklevel=3,
            )
        self.alpha_ = alpha
        self.loss_curve_ = curve
        self.n_iter_ = epochs
        self.coef_ = w[None, :-1].copy()
        self.intercept_ = np.array([w[-1] * s])
        return self
