r"""Support vector machines: the kernel SVC (dual, by SMO) and a primal linear SVM.

The soft-margin SVM solves

.. math::

    \min_{\mathbf w, b, \boldsymbol\xi}\ \tfrac12\lVert\mathbf w\rVert^2 + C\sum_i \xi_i
    \quad\text{s.t.}\quad y_i(\mathbf w^\top\phi(\mathbf x_i) + b) \ge 1 - \xi_i,\ \ \xi_i \ge 0,

whose dual is :math:`\min_{\boldsymbol\alpha} \tfrac12\boldsymbol\alpha^\top Q\boldsymbol\alpha - \mathbf e^\top\boldsymbol\alpha`
subject to :math:`0 \le \alpha_i \le C`, :math:`\mathbf y^\top\boldsymbol\alpha = 0`, with
:math:`Q_{ij} = y_iy_jK(\mathbf x_i, \mathbf x_j)`. :class:`SVC` solves the dual by SMO
(:mod:`linclf.smo`) and predicts with
:math:`f(\mathbf x) = \sum_{i\in SV} y_i\alpha_i K(\mathbf x_i, \mathbf x) + b`.
:class:`LinearSVM` minimises the primal directly by subgradient descent.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ._params import Instance, Interval, Options, validate_params
from ._validation import (
    ConvergenceWarning,
    check_is_fitted,
    check_n_features,
    check_positive,
    check_random_state,
    check_X_y,
    encode_binary,
)
from .base import BaseEstimator, ClassifierMixin, LinearClassifierMixin
from .kernels import Kernel
from .smo import SELECTIONS, smo_solve

__all__ = ["SVC", "LinearSVM", "KKTReport", "dual_objective"]


def dual_objective(dual_coef, K):
    r"""Value of the SVM dual (libsvm's minimisation form) from the dual coefficients.

    With :math:`\beta_i = y_i\alpha_i` (``dual_coef``) and the Gram matrix ``K`` of
    the support vectors,

    .. math:: \tfrac12\boldsymbol\alpha^\top Q\boldsymbol\alpha - \mathbf e^\top\boldsymbol\alpha
              = \tfrac12\boldsymbol\beta^\top K\boldsymbol\beta - \sum_i |\beta_i|,

    because :math:`\alpha_i = |\beta_i|`. This is the ``obj`` that libsvm prints; the
    Lagrangian dual value (which equals the primal optimum) is its negative.
    Works for ``sklearn.svm.SVC`` too: ``dual_objective(svc.dual_coef_,
    K(svc.support_vectors_, svc.support_vectors_))``.

    Parameters
    ----------
    dual_coef : array_like of shape (1, n_SV) or (n_SV,)
    K : array_like of shape (n_SV, n_SV)

    Returns
    -------
    float
    """
    beta = np.asarray(dual_coef, dtype=float).ravel()
    K = np.asarray(K, dtype=float)
    if K.shape != (beta.size, beta.size):
        raise ValueError(
            f"K must have shape ({beta.size}, {beta.size}) to match dual_coef; got {K.shape}."
        )
    return float(0.5 * beta @ K @ beta - np.abs(beta).sum())


@dataclass
class KKTReport:
    """How far a dual solution is from the KKT conditions.

    Attributes
    ----------
    violation : ndarray of shape (n_samples,)
        Per sample, in units of the margin :math:`m_i = y_if(\\mathbf x_i)`:
        :math:`\\max(0, 1 - m_i)` if :math:`\\alpha_i = 0`, :math:`|1 - m_i|` if
        :math:`0 < \\alpha_i < C`, :math:`\\max(0, m_i - 1)` if :math:`\\alpha_i = C`.
    condition : ndarray of str
        The condition that applies to each sample.
    max_violation : float
    worst : int
        Index of the sample with the largest violation.
    n_violations : int
        Number of samples whose violation exceeds ``tol``.
    box_violation : float
        :math:`\\max_i \\max(0, -\\alpha_i, \\alpha_i - C)` (primal feasibility of the dual).
    equality_violation : float
        :math:`|\\mathbf y^\\top\\boldsymbol\\alpha|`.
    tol : float

    Parameters
    ----------
    violation, condition, max_violation, worst, n_violations, box_violation, equality_violation, tol
        As the attributes above (the report is built by :meth:`SVC.kkt_violations`).
    """

    violation: np.ndarray
    condition: np.ndarray
    max_violation: float
    worst: int
    n_violations: int
    box_violation: float
    equality_violation: float
    tol: float

    @property
    def ok(self):
        """True when every condition holds to ``tol``."""
        return (
            self.max_violation <= self.tol
            and self.box_violation <= self.tol
            and self.equality_violation <= self.tol
        )


class SVC(BaseEstimator, ClassifierMixin):
    r"""Kernel support vector classifier trained by SMO on the dual.

    Parameters
    ----------
    C : float or np.inf, default=1.0
        Penalty on the slacks (> 0). ``np.inf`` is the hard margin; it raises
        ``ValueError`` when the data are not separable in the kernel's feature
        space (detected when the iterate certifies that the two classes'
        convex hulls are closer than ``1e-4 * max_i ||phi(x_i)||``, i.e. the
        dual grows without bound).
    kernel : {"linear", "poly", "rbf", "laplacian", "sigmoid"} or callable, default="rbf"
        A callable ``kernel(X, Z)`` must return the ``(len(X), len(Z))`` matrix.
    degree : int, default=3
        Degree of ``"poly"``: :math:`(\gamma\mathbf x^\top\mathbf z + c_0)^{p}`.
    gamma : "scale", "auto" or float, default="scale"
        ``"scale"``: :math:`1/(d\,\mathrm{Var}(X))`; ``"auto"``: :math:`1/d`.
    coef0 : float, default=0.0
        :math:`c_0` of ``"poly"`` and ``"sigmoid"``.
    tol : float, default=1e-3
        Stop when :math:`m(\alpha) - M(\alpha) \le` ``tol`` (see :mod:`linclf.smo`).
    max_iter : int, default=-1
        Maximal number of SMO steps; ``-1``: no practical limit.
    selection : {"wss2", "mvp", "platt"}, default="wss2"
        Working-set selection: second-order (libsvm), maximal violating pair,
        or Platt's heuristics.
    shrinking : bool or "auto", default="auto"
        libsvm-style shrinking of the active set (``"wss2"``/``"mvp"``).
        ``"auto"`` shrinks only for ``kernel="linear"`` and at least 2000
        samples: there the set-aside part of :math:`v` is recomputed in
        :math:`O(Nd)` as :math:`y - X\mathbf w`, and the vectors are long enough
        for their length, not the fixed cost of a numpy call, to dominate a
        step. For other kernels the recomputation (a kernel block between the
        set-aside points and the support vectors) cost more than the shorter
        vectors saved on the benchmark problems (``benchmarks/README.md``).
    cache_size : float, default=200.0
        Kernel-row cache in MB.

    Attributes
    ----------
    alpha_ : ndarray of shape (n_samples,)
    support_ : ndarray of int
        Indices of the support vectors (:math:`\alpha_i > 0`).
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        :math:`y_i\alpha_i` of the support vectors.
    n_support_ : ndarray of shape (2,)
        Support vectors per class.
    intercept_ : ndarray of shape (1,)
    coef_ : ndarray of shape (1, n_features)
        :math:`\mathbf w = \sum_i y_i\alpha_i\mathbf x_i`; only for ``kernel="linear"``.
    n_iter_ : int
        SMO steps taken, plus the active-set polishing steps of the linear
        kernel (see :mod:`linclf.smo`).
    dual_objective_ : float
        :math:`\tfrac12\alpha^\top Q\alpha - \mathbf e^\top\alpha` (libsvm's ``obj``; see
        :func:`dual_objective`).
    gap_ : float
        Final :math:`m(\alpha) - M(\alpha)`.
    gamma_ : float or None
        The numeric gamma used.
    classes_, n_features_in_
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    def __init__(
        self,
        *,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        max_iter=-1,
        selection="wss2",
        shrinking="auto",
        cache_size=200.0,
    ):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.selection = selection
        self.shrinking = shrinking
        self.cache_size = cache_size

    # kernel, gamma, degree and coef0 are checked by Kernel.from_params
    _parameter_constraints = {
        "C": [Interval("real", 0, None, closed="neither"), Options(float("inf"))],
        "tol": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None), Options(-1)],
        "selection": [Options(*SELECTIONS)],
        "shrinking": [Options(True, False, "auto")],
        "cache_size": [Interval("real", 0, None, closed="neither")],
    }

    def _check_params(self):
        p = validate_params(self)
        return p["C"], p["tol"], p["cache_size"]

    def fit(self, X, y):
        """Solve the dual by SMO.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Two classes; ``classes_[1]`` is the +1 class.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad hyper-parameters, bad data, or ``C=np.inf`` on data that are
            not separable.
        """
        C, tol, cache = self._check_params()
        X, y = check_X_y(X, y)
        self.classes_, y_pm = encode_binary(y, estimator="SVC")
        kernel = Kernel.from_params(
            self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0, X=X
        )
        res = smo_solve(
            kernel,
            X,
            y_pm,
            C,
            tol=tol,
            max_iter=self.max_iter,
            selection=self.selection,
            shrinking=(
                kernel.name == "linear" and X.shape[0] >= 2000
                if self.shrinking == "auto" else bool(self.shrinking)
            ),
            cache_size=cache,
        )
        if not res.converged:
            warnings.warn(
                f"SVC did not converge: after {res.n_iter} SMO steps (max_iter="
                f"{self.max_iter}, selection={self.selection!r}) the KKT gap "
                f"m(alpha) - M(alpha) = {res.gap:.3g} > tol = {tol:g}.",
                ConvergenceWarning,
                stacklevel=2,
            )
        # the kernel object holds the formula and its parameters, no data: a
        # callable's training Gram matrix served the solver only
        self.kernel_ = kernel
        self._C = C
        self._y = y_pm
        self._v = res.v
        self.n_features_in_ = X.shape[1]
        self.gamma_ = kernel.gamma if kernel.name in ("poly", "rbf", "laplacian", "sigmoid") else None
        self.alpha_ = res.alpha
        self.support_ = np.flatnonzero(res.alpha > 0)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (y_pm * res.alpha)[self.support_][None, :]
        self.n_support_ = np.array(
            [np.sum(y_pm[self.support_] < 0), np.sum(y_pm[self.support_] > 0)], dtype=np.int32
        )
        self.intercept_ = np.array([res.b])
        self.n_iter_ = int(res.n_iter)
        self.gap_ = res.gap
        self.n_kernel_rows_ = res.n_kernel_rows
        # alpha^T Q alpha = sum(alpha) - sum(alpha y v), from the maintained v
        s = res.alpha.sum()
        self.dual_objective_ = float(0.5 * (s - np.dot(res.alpha * y_pm, res.v)) - s)
        return self

    @property
    def coef_(self):
        """Primal weights :math:`\\mathbf w` (linear kernel only), shape (1, n_features)."""
        if self.kernel != "linear":
            raise AttributeError(
                f"coef_ is only available when kernel='linear' (got kernel={self.kernel!r}): "
                "for other kernels w lives in the feature space."
            )
        check_is_fitted(self, "dual_coef_")
        return self.dual_coef_ @ self.support_vectors_

    def decision_function(self, X):
        r"""Signed score :math:`f(\mathbf x) = \sum_{i\in SV} y_i\alpha_i K(\mathbf x_i, \mathbf x) + b`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "dual_coef_")
        X = check_n_features(self, X)
        if self.support_.size == 0:
            return np.full(X.shape[0], self.intercept_[0])
        K = self.kernel_.block(X, self.support_vectors_)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Class labels: ``classes_[1]`` where the decision function is > 0.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    def kkt_violations(self, tol=1e-3):
        """Check the KKT conditions of the fitted solution on the training data.

        Parameters
        ----------
        tol : float, default=1e-3
            Threshold for counting a sample as violating.

        Returns
        -------
        KKTReport
        """
        check_is_fitted(self, "dual_coef_")
        tol = float(check_positive(tol, "tol"))
        alpha, y, C = self.alpha_, self._y, self._C
        margin = y * (y - self._v + self.intercept_[0])  # y_i f(x_i)
        at_zero = alpha <= 0
        at_C = alpha >= C  # never true for the hard margin (C = inf)
        violation = np.where(
            at_zero, np.maximum(0.0, 1 - margin),
            np.where(at_C, np.maximum(0.0, margin - 1), np.abs(1 - margin)),
        )
        condition = np.where(
            at_zero, "alpha=0: y f(x) >= 1",
            np.where(at_C, "alpha=C: y f(x) <= 1", "0<alpha<C: y f(x) = 1"),
        )
        box = float(np.max(np.maximum(0.0, np.maximum(-alpha, alpha - C))))
        worst = int(np.argmax(violation))
        return KKTReport(
            violation=violation,
            condition=condition,
            max_violation=float(violation[worst]),
            worst=worst,
            n_violations=int(np.sum(violation > tol)),
            box_violation=box,
            equality_violation=float(abs(np.dot(y, alpha))),
            tol=tol,
        )


class LinearSVM(BaseEstimator, LinearClassifierMixin):
    r"""Linear soft-margin SVM trained on the primal by subgradient descent.

    Minimises :math:`J(\mathbf w, b) = \tfrac12\lVert\mathbf w\rVert^2 + C\sum_i
    \max(0, 1 - y_i(\mathbf w^\top\mathbf x_i + b))`. Dividing by :math:`C` gives
    the "hinge loss + L2" form :math:`\sum_i \mathrm{hinge}_i + \lambda\lVert\mathbf w\rVert^2`
    with :math:`\lambda = 1/(2C)`; the solver divides by :math:`CN` instead and runs on
    :math:`F = \tfrac{\lambda'}2\lVert\mathbf w\rVert^2 + \tfrac1N\sum_i \mathrm{hinge}_i`,
    :math:`\lambda' = 1/(CN)`, which has the same minimiser.

    Each iteration takes a subgradient step on a batch of samples
    (:math:`\partial F = \lambda'\mathbf w - \tfrac1{|B|}\sum_{i\in B,\ y_if_i<1} y_i\mathbf x_i`,
    and the same without the :math:`\lambda'\mathbf w` term for :math:`b`). With
    ``eta="pegasos"`` the step is :math:`1/(\lambda' t)` and :math:`\mathbf w` is projected
    on the ball :math:`\lVert\mathbf w\rVert \le 1/\sqrt{\lambda'}` that contains the optimum
    (Shalev-Shwartz et al., 2007); a number :math:`\eta_0` gives :math:`\eta_0/\sqrt t`.
    Subgradient steps do not decrease :math:`J` monotonically, so the iterate with
    the smallest :math:`J` seen is returned.

    Parameters
    ----------
    C : float, default=1.0
    eta : "pegasos" or float, default="pegasos"
    max_iter : int, default=1000
        Number of iterations (batches).
    random_state : None, int or Generator
        For drawing mini-batches.
    batch : "full" or int, default="full"
        All samples per step, or a mini-batch of this size.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    loss_curve_ : list of float
        :math:`J(\mathbf w, b)` after every iteration.
    n_iter_ : int
    classes_, n_features_in_
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    _parameter_constraints = {
        "C": [Interval("real", 0, None, closed="neither")],
        "eta": [Options("pegasos"), Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "random_state": [Options(None), Interval("integer", 0, None),
                         Instance(np.random.Generator, np.random.RandomState)],
        "batch": [Options("full"), Interval("integer", 1, None)],
    }

    def __init__(self, *, C=1.0, eta="pegasos", max_iter=1000, random_state=None, batch="full"):
        self.C = C
        self.eta = eta
        self.max_iter = max_iter
        self.random_state = random_state
        self.batch = batch

    @staticmethod
    def primal_objective(w, b, X, y, C):
        r""":math:`\tfrac12\lVert\mathbf w\rVert^2 + C\sum_i\max(0, 1 - y_i(\mathbf w^\top\mathbf x_i + b))` with y in {-1, +1}."""
        hinge = np.maximum(0.0, 1 - y * (X @ w + b))
        return float(0.5 * w @ w + C * hinge.sum())

    def fit(self, X, y):
        """Run the subgradient method.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        p = validate_params(self)
        C, max_iter = p["C"], p["max_iter"]
        X, y = check_X_y(X, y)
        self.classes_, y_pm = encode_binary(y, estimator="LinearSVM")
        n, d = X.shape
        size = n if p["batch"] == "full" else min(p["batch"], n)
        rng = check_random_state(self.random_state)
        lam = 1.0 / (C * n)
        # Run on centred data: w.(x - mu) + (b + w.mu) is the same score and b is not
        # penalised, so the objective and its minimiser are unchanged; but a feature
        # with a large offset no longer makes every subgradient step on b negligible
        # beside the steps on w (an offset of 1000 used to leave the zero model).
        mu = X.mean(axis=0)
        X = X - mu
        w = np.zeros(d)
        b = 0.0
        best = (self.primal_objective(w, b, X, y_pm, C), w.copy(), b)
        start = best[0]
        curve = []
        for t in range(1, max_iter + 1):
            rows = slice(None) if size == n else rng.choice(n, size=size, replace=False)
            Xb, yb = X[rows], y_pm[rows]
            active = yb * (Xb @ w + b) < 1
            grad_w = lam * w - (yb[active] @ Xb[active]) / size
            grad_b = -yb[active].sum() / size
            eta = 1.0 / (lam * t) if isinstance(self.eta, str) else self.eta / np.sqrt(t)
            w = w - eta * grad_w
            b = b - eta * grad_b
            if isinstance(self.eta, str):
                norm = np.linalg.norm(w)
                radius = 1.0 / np.sqrt(lam)
                if norm > radius:
                    w *= radius / norm
            J = self.primal_objective(w, b, X, y_pm, C)
            curve.append(J)
            if J < best[0]:
                best = (J, w.copy(), b)
        if not best[0] < start:
            warnings.warn(
                f"LinearSVM made no progress in max_iter={max_iter} subgradient steps: "
                f"the best iterate is the starting point w = 0, b = 0 (objective {start:g}). "
                "Increase max_iter, set a smaller eta, or standardise X.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.loss_curve_ = curve
        self.n_iter_ = max_iter
        self.n_features_in_ = d
        self.coef_ = best[1][None, :]
        self.intercept_ = np.array([best[2] - best[1] @ mu])
        return self
