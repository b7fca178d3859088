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
  costs :math:`O(d)` (here a block of steps shares one small Gram matrix instead, see
  ``_dcd_block``).
"""

from __future__ import annotations

import warnings

import numpy as np

from ._params import Instance, Interval, Options, validate_params
from ._validation import ConvergenceWarning, check_random_state, check_X_y, encode_binary
from .base import BaseEstimator, LinearClassifierMixin

__all__ = ["LinearSVM", "primal_objective", "dcd_objective", "duality_gap"]

#: DCD's passes over the free variables after each epoch over the KKT violators
FREE_SWEEPS = 3


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


def _optimal_intercept(f, y_pm):
    r"""The :math:`b` minimising :math:`\sum_i\max(0, 1 - y_i(f_i + b))` for fixed scores ``f``.

    The sum is convex and piecewise linear in :math:`b`, with a kink at :math:`y_i - f_i`
    for every sample; its slope is (number of negatives active) minus (number of positives
    active), so the minimiser is the first kink where the slope turns non-negative: a
    weighted median, found by one sort.
    """
    kinks = y_pm - f
    order = np.argsort(kinks, kind="stable")
    pos = y_pm[order] > 0
    # slope just right of the k-th kink: negatives with kink <= it, minus positives beyond it
    slope = np.cumsum(~pos) - (pos.sum() - np.cumsum(pos))
    k = int(np.searchsorted(slope, 0, side="left"))
    return float(kinks[order[min(k, kinks.size - 1)]])


def _balanced_dual(alpha, y_pm):
    """Scale down the heavier class of ``alpha`` so that ``y^T alpha = 0`` (dual feasibility)."""
    pos, neg = alpha[y_pm > 0].sum(), alpha[y_pm < 0].sum()
    out = alpha.copy()
    if pos > neg:
        out[y_pm > 0] *= neg / pos
    elif neg > pos:
        out[y_pm < 0] *= pos / neg
    return out


def duality_gap(w, b, alpha, X, y_pm, C):
    r"""Primal :math:`J(\mathbf w, b)` minus the dual value of a feasible ``alpha``: a bound on :math:`J - J^*`.

    The dual of the book's soft-margin SVM is :math:`D(\boldsymbol\alpha) = \sum_i\alpha_i -
    \tfrac12\lVert\sum_i\alpha_iy_i\mathbf x_i\rVert^2` on :math:`0\le\alpha_i\le C`,
    :math:`\mathbf y^\top\boldsymbol\alpha = 0`; by weak duality :math:`D(\boldsymbol\alpha) \le J^*
    \le J(\mathbf w, b)` for every feasible pair, so the gap certifies how far :math:`J` can be
    from the optimum.

    Parameters
    ----------
    w : ndarray of shape (d,)
    b : float
    alpha : ndarray of shape (N,)
        Dual variables in ``[0, C]`` with ``y_pm @ alpha == 0``.
    X : ndarray of shape (N, d)
    y_pm : ndarray of shape (N,)
        Labels in {-1, +1}.
    C : float

    Returns
    -------
    gap : float
    J : float
        The primal objective.
    """
    J = primal_objective(w, b, X, y_pm, C)
    v = (alpha * y_pm) @ X
    return J - (float(alpha.sum()) - 0.5 * float(v @ v)), J


def _subgradient(X, y_pm, C, eta, max_iter, batch, rng, tol):
    """Best iterate of the (mini-batch) subgradient method, stopped by the duality gap.

    Returns ``((J, w, b), curve, n_iter, (gap, alpha))``. The dual estimate is the
    average of the subgradients' weights ``C * [y_i f_i < 1]`` over the iterations,
    weighted by the iteration number (late iterations, near the optimum, count
    more), balanced so that ``y^T alpha = 0``. Its primal twin
    ``w(alpha) = sum alpha_i y_i x_i`` (with the best ``b`` for it) is a candidate too.
    """
    n, d = X.shape
    size = n if batch == "full" else min(batch, n)
    lam = 1.0 / (C * n)
    w = np.zeros(d)
    b = 0.0
    best = (primal_objective(w, b, X, y_pm, C), w.copy(), b)
    active_sum = np.zeros(n)
    weight_sum = 0.0
    gap = np.inf
    alpha = np.zeros(n)
    curve = []
    t = 0
    for t in range(1, max_iter + 1):
        f_all = X @ w + b
        active_sum += t * (y_pm * f_all < 1)
        weight_sum += t
        rows = slice(None) if size == n else rng.choice(n, size=size, replace=False)
        Xb, yb = X[rows], y_pm[rows]
        active = yb * f_all[rows] < 1
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
        # the gap, every few iterations (it costs two passes over X)
        if t % 10 == 0 or t == max_iter:
            alpha = _balanced_dual(C * active_sum / weight_sum, y_pm)
            w_a = (alpha * y_pm) @ X
            b_a = _optimal_intercept(X @ w_a, y_pm)
            J_a = primal_objective(w_a, b_a, X, y_pm, C)
            if J_a < best[0]:
                best = (J_a, w_a, b_a)
            gap = duality_gap(best[1], best[2], alpha, X, y_pm, C)[0]
            if gap <= tol * best[0]:
                break
    # the best intercept for the best w: never worse, and it turns a zero w into
    # the majority-class model rather than an arbitrary one
    b_best = _optimal_intercept(X @ best[1], y_pm)
    J_best = primal_objective(best[1], b_best, X, y_pm, C)
    if J_best <= best[0]:
        best = (J_best, best[1], b_best)
        gap = duality_gap(best[1], best[2], alpha, X, y_pm, C)[0]
    return best, curve, t, gap


def _step_scale(Xc, C):
    r""":math:`C N \max_i\lVert\mathbf x_i\rVert^2` for centred ``Xc``.

    Pegasos' error bound after ``t`` steps is of the order of this over ``t``
    (:math:`R^2 / (\lambda t)` with :math:`\lambda = 1/(CN)`).
    """
    return C * Xc.shape[0] * float(np.einsum("ij,ij->i", Xc, Xc).max(initial=0.0))


def _dual_coordinate_descent(X, y_pm, C, s, tol, max_iter, rng):
    """Hsieh et al. (2008), L1 loss; returns ``(alpha, w_tilde, epochs, converged, curve, gap)``.

    Each epoch visits, in a fresh random order, the dual variables whose projected
    gradient was nonzero at the epoch's start (the others sit at a bound their
    gradient pushes them against, or at the optimum of their coordinate: a step would
    not move them). This is shrinking in the sense of LIBLINEAR, decided afresh every
    epoch from the gradients the duality gap needs anyway: a variable whose gradient
    turns during the epoch is visited in the next one, and if no variable is visited
    the KKT conditions hold and the gap is zero. Each epoch ends with ``FREE_SWEEPS``
    passes over the free variables (``0 < alpha_i < C``). The solver stops when the duality gap
    :math:`J_s(\\tilde{\\mathbf w}) - D_s(\\boldsymbol\\alpha)` is at most ``tol`` times
    :math:`J_s`: a bound on the relative distance to the optimum, whatever the scale of X.
    """
    n, d = X.shape
    Z = np.column_stack([X, np.full(n, s)]) * y_pm[:, None]   # z_i = y_i x~_i
    Q_diag = np.einsum("ij,ij->i", Z, Z)                      # > 0: s > 0
    alpha = np.zeros(n)
    w = np.zeros(d + 1)
    # a block's Gram matrix costs m (d + 1) flops per coordinate: keep it near the
    # cost of the two length-(d + 1) vector operations per update it replaces
    m = int(min(64, max(4, 2048 // (d + 1))))
    curve = []
    G = -np.ones(n)                                           # z_i^T w - 1 at w = 0
    for epoch in range(1, max_iter + 1):
        PG = np.where(alpha <= 0.0, np.minimum(G, 0.0), np.where(alpha >= C, np.maximum(G, 0.0), G))
        w = _sweep(Z, w, np.flatnonzero(PG), alpha, Q_diag, C, m, rng)
        # the free variables are where the remaining work is (few bound ones move
        # after the first epochs): a few cheap passes over them halve the epochs,
        # about 10 % of the time on the benchmark (Platt's non-bound passes, in spirit)
        for _ in range(FREE_SWEEPS):
            w = _sweep(Z, w, np.flatnonzero((alpha > 0.0) & (alpha < C)), alpha, Q_diag, C, m, rng)
        J, gap, G = _dcd_gap(w, alpha, Z, C)
        curve.append(J)
        if gap <= tol * J:
            return alpha, w, epoch, True, curve, gap
    return alpha, w, max_iter, False, curve, gap


def _sweep(Z, w, idx, alpha, Q_diag, C, m, rng):
    """One coordinate step on each dual variable ``idx``, in a random order, ``m`` at a time."""
    order = rng.permutation(idx)
    for start in range(0, order.size, m):
        w = _dcd_block(Z, w, order[start:start + m], alpha, Q_diag, C)
    return w


def _dcd_block(Z, w, block, alpha, Q_diag, C):
    """One exact coordinate step on each of the dual variables ``block``, in order.

    The gradient of :math:`D_s` in :math:`\\alpha_i` is :math:`G_i = \\mathbf z_i^\\top
    \\tilde{\\mathbf w} - 1`. Within the block :math:`\\tilde{\\mathbf w}` is not touched:
    :math:`G_i` is its value at the block's start plus :math:`\\sum_k \\Delta_k Q_{ki}`
    over the block's earlier steps :math:`\\Delta_k` (``Q`` the block's Gram matrix),
    and :math:`\\tilde{\\mathbf w} \\mathrel{+}= \\sum_k \\Delta_k\\mathbf z_k` once at the
    end: one small dot product per coordinate instead of two vector operations per
    update. ``alpha`` is updated in place; returns the new :math:`\\tilde{\\mathbf w}`.
    """
    Z_B = Z[block]
    G0 = (Z_B @ w - 1.0).tolist()
    Q = list(Z_B @ Z_B.T)          # row views: indexing a list is cheaper per step
    Q_ii, alpha_B = Q_diag[block].tolist(), alpha[block].tolist()
    delta = np.zeros(len(G0))
    for j in range(len(G0)):
        # the method: np.dot costs more per call
        G = G0[j] + float(delta.dot(Q[j])) if j else G0[j]
        a_new = alpha_B[j] - G / Q_ii[j]
        a_new = 0.0 if a_new < 0.0 else C if a_new > C else a_new
        delta[j] = a_new - alpha_B[j]
    alpha[block] += delta
    return w + delta @ Z_B


def _dcd_gap(w, alpha, Z, C):
    """``(J_s, gap, G)``: the primal of ``w_tilde``, its gap with ``alpha``, the dual gradient."""
    ww = float(w @ w)
    G = Z @ w - 1.0
    J = 0.5 * ww + C * float(np.maximum(0.0, -G).sum())
    return J, J - (float(np.sum(alpha)) - 0.5 * ww), G


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
    the smallest :math:`J` seen is returned, or, if better, the primal point
    :math:`\mathbf w(\boldsymbol\alpha) = \sum_i\alpha_iy_i\mathbf x_i` of the running dual
    estimate :math:`\boldsymbol\alpha` (the subgradients' weights :math:`C\,[y_if_i < 1]`
    averaged over the iterations), each with its best intercept. That estimate also
    gives the duality gap the solver stops on (``tol``).

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
    tol : float, default=1e-3
        Both solvers stop when the duality gap, primal minus the dual value of a
        feasible dual estimate, is at most ``tol`` times the primal objective: the
        returned objective is then within a factor ``1/(1 - tol)`` of the optimum, whatever
        the scale of X. (``"subgradient"``: the dual estimate is the weighted average of
        the subgradients' weights; ``"dcd"``: its own dual variables, on :math:`J_s`.)
        A fit that ends above it warns (:class:`ConvergenceWarning`).
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
    gap_ : float
        The final relative duality gap (primal minus dual, over the primal).
    converged_ : bool
        Whether ``gap_ <= tol``.
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

    def __init__(self, *, C=1.0, solver="subgradient", eta="pegasos", max_iter=1000, tol=1e-3,
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
        # beside the steps on w.
        mu = X.mean(axis=0)
        best, curve, n_iter, gap = _subgradient(X - mu, y_pm, p["C"], p["eta"], p["max_iter"],
                                                p["batch"], rng, p["tol"])
        self.gap_ = float(gap / best[0]) if best[0] > 0 else 0.0
        self.converged_ = bool(self.gap_ <= p["tol"])
        if not self.converged_:
            warnings.warn(
                f"LinearSVM(solver='subgradient') stopped after max_iter={p['max_iter']} "
                f"steps with a relative duality gap of {self.gap_:.2g} > tol={p['tol']:g}: "
                f"its objective {best[0]:.6g} may exceed the optimum by "
                + (f"up to {100 * self.gap_ / (1 - self.gap_):.3g} %. " if self.gap_ < 0.5 else
                   "an unknown factor (the dual estimate certifies little). ")
                + "Subgradient steps converge slowly (as 1/t at best), and their bound "
                f"grows with C N max||x_i - mean||^2 = {_step_scale(X - mu, p['C']):.2g} "
                "here: standardise X if its features are large, or use solver='dcd' or "
                "SVC(kernel='linear') for the exact optimum; more iterations help only as 1/t.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.__dict__.pop("alpha_", None)  # a dcd fit's dual variables are not this model's
        self.loss_curve_ = curve
        self.n_iter_ = n_iter
        self.coef_ = best[1][None, :].copy()
        self.intercept_ = np.array([best[2] - best[1] @ mu])
        return self

    def _fit_dcd(self, X, y_pm, p, rng):
        s = p["intercept_scaling"]
        alpha, w, epochs, converged, curve, gap = _dual_coordinate_descent(
            X, y_pm, p["C"], s, p["tol"], p["max_iter"], rng)
        self.gap_ = float(gap / curve[-1]) if curve[-1] > 0 else 0.0
        self.converged_ = bool(converged)
        if not converged:
            warnings.warn(
                f"LinearSVM(solver='dcd') did not converge in max_iter={p['max_iter']} epochs: "
                f"the relative duality gap is {self.gap_:.2g} > tol={p['tol']:g}; standardise X "
                "(a badly scaled feature makes coordinate descent slow), or increase max_iter.",
                ConvergenceWarning,
                stacklevel=3,
            )
        self.alpha_ = alpha
        self.loss_curve_ = curve
        self.n_iter_ = epochs
        self.coef_ = w[None, :-1].copy()
        self.intercept_ = np.array([w[-1] * s])
        return self
