"""The state of one SMO solve: constants, the result, the masked gradient ``V``, the
problem's shared arrays, the working copy of an active set and the hard-margin test.

Symbols as in :mod:`linclf.smo` (``v``, ``m``, ``M``, ``I_up``/``I_low``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "SELECTIONS", "TAU", "HARD_MARGIN_RTOL", "SNAP", "POLISH_EVERY", "POLISH_START",
    "POLISH_MAX_FREE", "POLISH_MIN_SPREAD", "FULL_LINEAR_MAX_N", "SMOResult",
    "NotSeparableError", "masked_v", "unmask_v", "violation", "Problem", "Level",
    "hard_margin_check", "intercept", "relative_duality_gap", "REFINE_GAP", "REFINE_FACTOR",
    "REFINE_ROUNDS", "STALL_WINDOW", "STALL_RTOL", "TOL_FLOOR", "tol_floor", "default_budget",
]

SELECTIONS = ("wss2", "mvp", "platt")

#: Floor for the curvature a_ij (libsvm's tau): guards against a_ij = 0 for
#: duplicate points and a_ij < 0 for indefinite kernels.
TAU = 1e-12

#: Hard margin: C = inf fails once the iterate proves that the optimal margin
#: is below this many times the largest norm max_i ||phi(x_i)|| (see
#: hard_margin_check); non-separable data have margin 0.
HARD_MARGIN_RTOL = 1e-3

#: A step t >= SNAP * (room to the bound) is rounded to the bound.
SNAP = 1.0 - 1e-12

#: Active-set polishing (see polish): every POLISH_EVERY steps, if at most
#: POLISH_MAX_FREE variables are free.
POLISH_EVERY = 100
POLISH_START = 2.0
POLISH_MAX_FREE = 1500
#: ... and only if the free v_t are further apart than this many times tol:
#: closer than that the partition's optimum is already reached, and a
#: zero-curvature direction computed from round-off would only move the
#: iterate to a bound for a negligible decrease (and reopen the gap).
POLISH_MIN_SPREAD = 1e-3

#: Objective accuracy: once m - M <= tol, if the duality gap exceeds REFINE_GAP
#: times |f|, SMO goes on with tol / REFINE_FACTOR, at most REFINE_ROUNDS times.
#: (The gap overstates f - f* by one to three orders of magnitude on the
#: benchmark's problems, so 1e-5 brings f within about 1e-7 of the optimum.)
#: One round: on the benchmark's RBF problems in d = 20 (gap 4e-5 to 1e-4 at the
#: first stop, f - f* about 5e-8) a second round only took f from ~5e-9 to ~5e-10
#: of f* for 10-15 % more steps; the problems that need the refinement (d = 2,
#: f - f* up to 1.4e-6 with a gap of 1.3e-5) were within 5e-8 after one.
REFINE_GAP = 1e-5
REFINE_FACTOR = 3.0
REFINE_ROUNDS = 1

#: Stall test: every max(STALL_WINDOW, 10 n) steps, the run stops (not converged)
#: if the dual objective fell by at most STALL_RTOL times |f| over that window:
#: below the rounding error of f, so no step is making progress any more.
STALL_WINDOW = 20_000
STALL_RTOL = 1e-13

#: The tolerance floor: m - M is a difference of v_t = y_t - sum_s y_s alpha_s K_ts,
#: whose terms reach max_i K_ii * sum(alpha); float64 cannot resolve m - M below
#: about eps times that, so tol is raised to TOL_FLOOR * eps * (1 + R^2 sum(alpha)).
TOL_FLOOR = 64.0


def tol_floor(R2, alpha_sum):
    """The smallest ``m - M`` float64 can resolve: ``TOL_FLOOR * eps * (1 + R2 * sum(alpha))``."""
    return TOL_FLOOR * np.finfo(float).eps * (1.0 + R2 * alpha_sum)


def default_budget(n, selection="wss2"):
    """The step limit of ``max_iter=-1``: ``max(10**5, 1000 n)``, for every ``selection``.

    libsvm allows ``max(10**7, 100 n)`` steps at about 0.2 microseconds each; a step
    here costs 5-10 microseconds, so the same time buys about 50 times fewer
    steps. A well-posed problem needs a small multiple of n steps (at most a few
    hundred n on the benchmark's problems); the limit bounds the ill-conditioned
    ones (a poly kernel on offset data, a huge C) to seconds on a few hundred points.

    Platt's rule gets the same limit although it needs more steps (a few
    thousand n on rare small problems: 267 000 on a 38-point poly problem) and a
    step costs it about 4 times a ``"wss2"`` step: a fixed ``10**6`` made every
    ill-conditioned fit take 12-16 s on 80 points. Running out ends in a
    warning that suggests the default rule. ``selection`` is accepted so that
    the limit can depend on the rule again without changing the callers.
    """
    return max(100_000, 1000 * n)


#: Linear kernel: up to this many samples (and if the cache holds them all)
#: every row is computed up front by one matrix product.
FULL_LINEAR_MAX_N = 1500


@dataclass
class SMOResult:
    """What :func:`smo_solve` returns.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        The dual variables (exactly 0 or C at the bounds).
    v : ndarray of shape (n,)
        :math:`v_t = y_t - \\sum_s y_s\\alpha_s K_{ts}` at the solution.
    b : float
        Intercept: mean of :math:`v_t` over free :math:`\\alpha_t`, else :math:`(m + M)/2`.
    n_iter : int
        Number of two-variable steps taken, plus the polishing steps (each
        move of the free set to its minimiser or to the first bound).
    gap : float
        Final :math:`m(\\alpha) - M(\\alpha)`.
    converged : bool
    n_kernel_rows : int
        Kernel rows evaluated (a cost measure).
    stalled : bool
        The run stopped because the dual objective no longer decreased.
    tol : float
        The tolerance applied: the user's, or the floor float64 can resolve if larger.

    Parameters
    ----------
    alpha, v, b, n_iter, gap, converged, n_kernel_rows, stalled, tol
        As the attributes above.
    """

    alpha: np.ndarray
    v: np.ndarray
    b: float
    n_iter: int
    gap: float
    converged: bool
    n_kernel_rows: int
    stalled: bool = False
    tol: float = 0.0


class NotSeparableError(ValueError):
    """The hard-margin (C = inf) dual is unbounded: the classes overlap in feature space."""


def masked_v(v, alpha, y, C):
    """The 2 x n array ``[v on I_up else -inf, v on I_low else +inf]``.

    Every index is in I_up or I_low (or both), so ``v`` can be read back from
    it (:func:`unmask_v`).
    """
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return np.stack([np.where(up, v, -np.inf), np.where(low, v, np.inf)])


def unmask_v(V):
    return np.where(np.isfinite(V[0]), V[0], V[1])


def violation(V):
    i = int(V[0].argmax())
    j = int(V[1].argmin())
    return V[0, i] - V[1, j], i, j


class Problem:
    """Shared data of one solve: labels, kernel, bounds, global alpha and v."""

    def __init__(self, kernel, X, y, C, tol, cache_bytes):
        self.kernel = kernel
        self.X = X
        # a user callable is evaluated once, on all pairs: the solver needs its
        # rows many times and has no cheaper way to get them; the matrix lives
        # as long as the solve (the fitted model does not keep it)
        self.K = kernel.block(X, X) if kernel.name == "callable" else None
        self.y = y
        self.C = C
        self.tol = tol
        self.cache_bytes = cache_bytes
        self.n = y.shape[0]
        self.kdiag = (np.ascontiguousarray(np.diag(self.K)) if self.K is not None
                      else kernel.diagonal(X))
        self.alpha = np.zeros(self.n)
        self.v = y.copy()  # alpha = 0  =>  v = y
        self.n_rows = 0
        self.stalled = False
        self.tol_used = tol

    def reconstruct(self, stale):
        """Recompute ``v`` on the indices ``stale`` from the current ``alpha``."""
        sv = np.flatnonzero(self.alpha > 0)
        if stale.size == 0:
            return
        beta = self.y[sv] * self.alpha[sv]
        if sv.size == 0:
            self.v[stale] = self.y[stale]
            return
        if self.K is not None:
            f = self.K[np.ix_(stale, sv)] @ beta
        elif self.kernel.name == "linear":
            f = self.X[stale] @ (self.X[sv].T @ beta)
        else:
            # blocks of rows so that the temporary stays below ~32 MB
            step = max(1, int(4e6 // max(sv.size, 1)))
            Xsv = self.X[sv]
            f = np.empty(stale.size)
            for s in range(0, stale.size, step):
                rows = stale[s : s + step]
                f[s : s + step] = self.kernel.block(self.X[rows], Xsv) @ beta
        self.v[stale] = self.y[stale] - f


class Level:
    """The working copy of an active subset ``idx`` of the variables."""

    def __init__(self, prob, idx, rows):
        self.idx = idx
        self.rows = rows
        self.y = prob.y[idx]
        self.alpha = prob.alpha[idx]
        self.kd = prob.kdiag[idx]
        n = idx.shape[0]
        self.V = masked_v(prob.v[idx], self.alpha, self.y, prob.C)
        self.buf_b = np.empty(n)
        self.buf_a = np.empty(n)
        self.buf_t = np.empty(n)
        # Python lists: scalar reads and writes are several times faster than on arrays
        self.al = self.alpha.tolist()
        self.yl = self.y.tolist()
        self.kdl = self.kd.tolist()
        # the stored V holds v - shift: steps add a constant to v that only
        # the final v needs (every choice depends on differences of v)
        self.shift = 0.0

    def store(self, prob):
        self.alpha[:] = self.al
        prob.alpha[self.idx] = self.alpha
        prob.v[self.idx] = unmask_v(self.V) + self.shift


def hard_margin_check(prob, R2):
    r"""Raise if the iterate proves that the hard margin is below ``HARD_MARGIN_RTOL * R``.

    Two certificates bound the optimal geometric margin :math:`\gamma^*` from above
    at any feasible iterate (:math:`S = \sum\alpha`, :math:`\mathbf w = \sum y_t\alpha_t\phi(\mathbf x_t)`):

    * :math:`\alpha/(S/2)` are convex weights on each class (because
      :math:`\mathbf y^\top\alpha = 0`), so :math:`\delta = \lVert\mathbf w\rVert/(S/2)` is the
      distance of two points of the classes' convex hulls and
      :math:`\gamma^* \le \delta/2` (zero if the hulls meet: not separable);
    * the dual objective only decreases and its optimum is
      :math:`f^* = -\tfrac12\sum\alpha^* = -1/(2\gamma^{*2})`, so
      :math:`\gamma^* \le 1/\sqrt{-2f(\alpha)}`.

    :math:`R^2 = \max_i K(\mathbf x_i, \mathbf x_i)`.
    """
    S = float(prob.alpha.sum())
    if S <= 0:
        return
    ywv = float(np.dot(prob.alpha * prob.y, prob.v))
    w2 = max(S - ywv, 0.0)  # alpha^T Q alpha = sum(alpha) - sum(alpha y v)
    neg_f = 0.5 * (S + ywv)
    bound = np.sqrt(w2) / S  # delta / 2
    if neg_f > 0:
        bound = min(bound, 1.0 / np.sqrt(2.0 * neg_f))
    if bound < HARD_MARGIN_RTOL * np.sqrt(R2):
        raise NotSeparableError(
            "C=np.inf (hard margin) needs data that are linearly separable in the "
            "kernel's feature space with a non-negligible margin, but the SMO iterate "
            f"proves the margin is at most {bound:.3g} = {bound / np.sqrt(R2):.2g} * "
            "max ||phi(x)|| (sum(alpha) has grown to "
            f"{S:.3g}): the classes overlap, or nearly so, and the dual grows without "
            "bound. Use a finite C (soft margin)."
        )


def intercept(prob):
    """``b``: the mean of ``v`` over the free variables, else the middle of ``[M, m]``."""
    free = (prob.alpha > 0) & (prob.alpha < prob.C)
    if np.any(free):
        return float(prob.v[free].mean())
    V = masked_v(prob.v, prob.alpha, prob.y, prob.C)
    return float((V[0].max() + V[1].min()) / 2)


def relative_duality_gap(prob, b):
    r"""(primal - dual) / :math:`|f(\boldsymbol\alpha)|` at the current iterate, in :math:`O(N)`.

    With :math:`g_t = y_t - v_t = \sum_s y_s\alpha_sK_{ts}` and
    :math:`\lVert\mathbf w\rVert^2 = \boldsymbol\alpha^\top Q\boldsymbol\alpha = \sum\alpha - \sum\alpha_ty_tv_t`,
    the primal is :math:`\tfrac12\lVert\mathbf w\rVert^2 + C\sum_t\max(0, 1 - y_t(g_t + b))` and the
    dual (minimised) :math:`f = \tfrac12\lVert\mathbf w\rVert^2 - \sum\alpha`; the gap bounds
    :math:`f - f^*` from above.
    """
    S = float(prob.alpha.sum())
    w2 = S - float(np.dot(prob.alpha * prob.y, prob.v))
    f = 0.5 * w2 - S
    if f == 0.0:
        return 0.0
    hinge = np.maximum(0.0, 1.0 - prob.y * (prob.y - prob.v + b))
    return (w2 - S + prob.C * float(hinge.sum())) / abs(f)
