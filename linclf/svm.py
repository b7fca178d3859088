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

from ._params import Interval, Options, validate_params
from ._validation import (
    ConvergenceWarning,
    check_is_fitted,
    check_positive,
    check_X_y,
    encode_binary,
)
from .base import BaseEstimator, KernelClassifierMixin
from .kernels import Kernel
from .smo import SELECTIONS, smo_solve

__all__ = ["SVC", "LinearSVM", "KKTReport", "dual_objective", "kkt_report"]

# the primal solvers of the linear SVM live in their own module
from .linear_svm import LinearSVM  # noqa: E402


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


def kkt_report(margin, alpha, y, C, tol=1e-3):
    """The soft-margin KKT conditions of a candidate ``alpha`` with the margins it gives.

    Parameters
    ----------
    margin : array_like of shape (n_samples,)
        :math:`y_i f(\\mathbf x_i)` under the candidate's :math:`\\mathbf w` and :math:`b`.
    alpha : array_like of shape (n_samples,)
        The multipliers.
    y : array_like of shape (n_samples,)
        Labels in :math:`\\{-1, +1\\}`.
    C : float
        Box bound (``np.inf`` for the hard margin).
    tol : float, default=1e-3
        Threshold for counting a sample as violating.

    Returns
    -------
    KKTReport
        Per point, the amount by which its condition (:math:`\\alpha_i = 0`: :math:`y_if\\ge1`;
        :math:`0<\\alpha_i<C`: :math:`y_if = 1`; :math:`\\alpha_i = C`: :math:`y_if\\le1`) fails,
        and the box and equality violations.
    """
    tol = float(check_positive(tol, "tol"))
    margin, alpha, y = (np.asarray(v, dtype=float) for v in (margin, alpha, y))
    if not (margin.shape == alpha.shape == y.shape) or margin.ndim != 1:
        raise ValueError(f"margin, alpha and y must be 1-D of one length; got shapes "
                         f"{margin.shape}, {alpha.shape}, {y.shape}.")
    C = float(C)
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


class SVC(BaseEstimator, KernelClassifierMixin):
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
        ``"scale"``: :math:`1/(d\,\mathrm{Var}(X))`; ``"auto"``: :math:`1/d`. For
        ``"rbf"`` and ``"laplacian"``, :math:`\mathrm{Var}(X)` is the mean of the
        features' variances, so that shifting the data changes neither the
        kernel nor ``gamma``; scikit-learn takes the variance of all entries
        (the same for centred features), which one feature offset by
        :math:`10^6` shrinks to about :math:`10^{-12}`, making every kernel value
        about 1. The other kernels keep scikit-learn's definition.
    coef0 : float, default=0.0
        :math:`c_0` of ``"poly"`` and ``"sigmoid"``.
    tol : float, default=1e-3
        Stop when :math:`m(\alpha) - M(\alpha) \le` ``tol`` (see :mod:`linclf.smo`); a
        ``tol`` below what float64 resolves at the current iterate,
        :math:`64\,\epsilon\,(1 + \max_iK_{ii}\sum_i\alpha_i)`, is raised to that floor.
    max_iter : int, default=-1
        Maximal number of SMO steps; ``-1``: :math:`\max(10^5, 1000N)` for every
        ``selection``, chosen from the problem's size as libsvm does (a step here costs about 30 times libsvm's, so
        the budget is smaller than its :math:`\max(10^7, 100N)`). The solver also stops
        when the dual objective no longer decreases. Both end with a
        :class:`ConvergenceWarning` that says which limit was hit.
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
        X, y = check_X_y(X, y, estimator=self)
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
            from .smo.state import default_budget

            n = X.shape[0]
            if res.stalled:
                why = ("the dual objective stopped decreasing (no step gains more than its "
                       "rounding error): the problem is at the limit of float64")
            elif self.max_iter == -1:
                why = (f"the default step budget of {default_budget(n, self.selection)} steps "
                       "(max(10**5, 1000 n)) ran out")
            else:
                why = f"max_iter={self.max_iter} steps ran out"
            R2 = float(np.max(kernel.diagonal(X))) if kernel.name != "callable" else None
            advice = []
            if R2 is not None and not 1e-3 <= R2 <= 1e3:
                advice.append(f"standardise X (kernel values reach {R2:.2g}: the dual is badly "
                              "conditioned, typical of the poly or linear kernel on features "
                              "with a large offset or scale)")
            else:
                advice.append("standardise X")
            if np.isfinite(C) and C > 1e3:
                advice.append(f"use a smaller C (C={C:g} makes the dual nearly a hard margin)")
            if self.selection == "platt":
                # Platt's first-order, single-threshold rule needs several
                # times the steps of the second-order one, each step dearer
                advice.append("use selection='wss2' (the default: its second-order pair "
                              "choice needs far fewer steps than Platt's heuristics)")
            advice.append("or pass a larger max_iter")
            warnings.warn(
                f"SVC did not converge: after {res.n_iter} SMO steps (selection="
                f"{self.selection!r}) {why}; the KKT gap m(alpha) - M(alpha) = {res.gap:.3g} "
                f"> tol = {res.tol:g}. To fix it: " + ", ".join(advice) + ".",
                ConvergenceWarning,
                stacklevel=2,
            )
        elif res.tol > max(tol, 1e-3) * (1 + 1e-9):
            R2 = float(np.max(kernel.diagonal(X))) if kernel.name != "callable" else float("nan")
            warnings.warn(
                f"SVC: the kernel's values reach {R2:.2g}, so float64 resolves the KKT gap "
                f"m(alpha) - M(alpha) only to {res.tol:.3g}, above tol = {tol:g}: the solver "
                "stopped there, and the solution is no more accurate than that. Standardise X "
                "(or use a lower degree or a smaller gamma).",
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
        # the fitted kernel decides, not the parameter: set_params(kernel=...)
        # after fit must not turn an rbf expansion into "weights"
        check_is_fitted(self, "dual_coef_")
        if self.kernel_.name != "linear":
            raise AttributeError(
                f"coef_ is only available when kernel='linear' (this model was fitted with "
                f"kernel={self.kernel_.name!r}): for other kernels w lives in the feature space."
            )
        return self.dual_coef_ @ self.support_vectors_

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
        margin = self._y * (self._y - self._v + self.intercept_[0])  # y_i f(x_i)
        return kkt_report(margin, self.alpha_, self._y, self._C, tol)
