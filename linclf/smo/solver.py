"""The entry point of the fast SMO solver: set up the problem, run a main loop, read off b."""

from __future__ import annotations

import numpy as np

from .pairwise import pairwise
from .platt import platt
from .rows import CurvatureRows
from .state import (
    REFINE_FACTOR,
    REFINE_GAP,
    REFINE_ROUNDS,
    TAU,
    Problem,
    default_budget,
    tol_floor,
    SMOResult,
    hard_margin_check,
    intercept,
    masked_v,
    relative_duality_gap,
    violation,
)

__all__ = ["smo_solve"]


def smo_solve(
    kernel,
    X,
    y,
    C,
    *,
    tol=1e-3,
    max_iter=-1,
    selection="wss2",
    shrinking=False,
    cache_size=200.0,
    polish="auto",
):
    """Solve the SVM dual by SMO.

    Parameters
    ----------
    kernel : linclf.kernels.Kernel
        The kernel (formula and parameters; a ``"callable"`` kernel is
        evaluated once on all pairs).
    X : ndarray of shape (n, d)
        Training data.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        Box bound; ``np.inf`` for the hard margin.
    tol : float
        Stop when :math:`m(\\alpha) - M(\\alpha) \\le` ``tol``, raised to the
        floor float64 can resolve (:func:`.state.tol_floor`) if that is larger.
    max_iter : int
        Maximal number of steps; ``-1`` means ``max(10**5, 1000 n)`` for every
        selection (:func:`.state.default_budget`). The pairwise loop also stops, not
        converged, when the dual objective stalls (:data:`.state.STALL_RTOL`).
    selection : {"wss2", "mvp", "platt"}
    shrinking : bool
        Use libsvm-style shrinking (``"wss2"`` and ``"mvp"`` only).
    cache_size : float
        Kernel-row cache in MB.
    polish : bool or "auto"
        Active-set polishing of the free variables (``"wss2"`` and ``"mvp"``
        only; see the module docstring). ``"auto"``: for the linear kernel.

    Returns
    -------
    SMOResult

    Raises
    ------
    NotSeparableError
        With ``C = inf`` when the data are not separable in feature space.
    """
    prob = Problem(kernel, X, y, C, tol, cache_size * 2**20)
    n = prob.n
    limit = default_budget(n, selection) if max_iter == -1 else int(max_iter)
    idx = np.arange(n)
    hard = np.isinf(C)
    R2 = float(np.max(prob.kdiag)) if n else 1.0
    prob.tau = TAU * max(1.0, R2)
    root = CurvatureRows(prob, idx)
    b = None  # the intercept, once computed for the final alpha
    if selection == "platt":
        n_iter, converged = platt(prob, root, limit, hard, R2)
    else:
        if polish == "auto":
            polish = kernel.name == "linear"
        n_iter, converged = pairwise(prob, root, limit, selection, shrinking, hard, R2, bool(polish))
        # m - M <= tol bounds the KKT violation, not the objective: where the
        # duality gap says the objective may still be off, go on with a smaller
        # tol (warm start from the current alpha and v)
        for _ in range(REFINE_ROUNDS):
            if hard or not converged or prob.tol_used > prob.tol:
                break
            b = intercept(prob)
            if relative_duality_gap(prob, b) <= REFINE_GAP:
                break
            b = None  # alpha moves on
            prob.tol /= REFINE_FACTOR
            more, converged = pairwise(prob, root, limit - n_iter, selection, shrinking, hard, R2,
                                       bool(polish))
            n_iter += more
        prob.tol = tol
    if hard:
        hard_margin_check(prob, R2)
    gap, _, _ = violation(masked_v(prob.v, prob.alpha, prob.y, C))
    if b is None:
        b = intercept(prob)
    tol_used = max(tol, tol_floor(R2, float(prob.alpha.sum())))
    # Platt's single-threshold test can stop short of m - M <= tol for
    # indefinite kernels; report that as not converged too
    converged = converged and gap <= tol_used * (1 + 1e-9)
    return SMOResult(
        alpha=prob.alpha,
        v=prob.v,
        b=b,
        n_iter=n_iter,
        gap=float(gap),
        converged=converged,
        n_kernel_rows=prob.n_rows,
        stalled=bool(prob.stalled),
        tol=float(tol_used),
    )
