"""Platt's (1998) SMO heuristics: outer loop over KKT violators, inner choice by the error cache."""

from __future__ import annotations

import numpy as np

from .state import SNAP, hard_margin_check

__all__ = ["platt"]


def platt(prob, rows, limit, hard, R2):
    r"""Platt's SMO: outer loop over KKT violators, inner choice by :math:`\max|E_1 - E_2|`.

    Errors :math:`E_t = f(\mathbf x_t) + b - y_t = b - v_t`. The example :math:`t` violates
    KKT by more than ``tol`` if :math:`y_tE_t < -\mathrm{tol}` and :math:`\alpha_t < C`, or
    :math:`y_tE_t > \mathrm{tol}` and :math:`\alpha_t > 0`. After each step :math:`b` is set
    so that :math:`E = 0` at a free updated variable (the average of the two
    choices when neither is free), as in Platt's paper. The pass order of the
    fallback scans starts at a random position (fixed seed, reproducible).

    Parameters
    ----------
    prob : Problem
    rows : CurvatureRows
    limit : int
        Maximal number of steps.
    hard : bool
        ``C`` is infinite.
    R2 : float
        :math:`\\max_i K_{ii}`.

    Returns
    -------
    n_iter : int
    converged : bool
    """
    C, tol = prob.C, prob.tol
    y, alpha, v, kd = prob.y, prob.alpha, prob.v, prob.kdiag
    n = prob.n
    rng = np.random.default_rng(0)
    state = {"b": 0.0, "it": 0}
    # Platt's tolerance is on y f(x) - 1 with a single b: half of libsvm's
    # m - M on both sides, so both criteria mean the same accuracy.
    ktol = tol / 2

    def take_step(p, q):
        if p == q:
            return False
        if v[p] < v[q]:
            p, q = q, p
        bpq = v[p] - v[q]
        if bpq <= 0:
            return False
        room_p = (C - alpha[p]) if y[p] > 0 else alpha[p]
        room_q = alpha[q] if y[q] > 0 else (C - alpha[q])
        if room_p <= 0 or room_q <= 0:
            return False
        Ap = rows.get(p)
        Aq = rows.get(q)
        t = bpq / max(Ap[q], prob.tau)
        # same clipping and snapping to the bounds as in pairwise
        snapped = False
        if t >= room_p * SNAP:
            t = room_p
            new_p = C if y[p] > 0 else 0.0
            snapped = True
        else:
            new_p = alpha[p] + y[p] * t
        if t >= room_q * SNAP:
            if t > room_q:
                t = room_q
                new_p = alpha[p] + y[p] * t
            new_q = 0.0 if y[q] > 0 else C
            snapped = True
        else:
            new_q = alpha[q] - y[q] * t
        # a negligible step counts as no progress, unless it puts an alpha
        # that sat within round-off of a bound exactly on it
        if t <= 1e-12 * (1.0 + alpha[p] + alpha[q]) and not snapped:
            return False
        alpha[p] = new_p
        alpha[q] = new_q
        # v -= t (K_p - K_q), written with the cached rows A (see CurvatureRows)
        np.add(v, (0.5 * t) * (Ap - Aq) - 0.5 * t * (kd[p] - kd[q]), out=v)
        free_p = 0 < alpha[p] < C
        free_q = 0 < alpha[q] < C
        if free_p and free_q:
            state["b"] = 0.5 * (v[p] + v[q])
        elif free_p:
            state["b"] = v[p]
        elif free_q:
            state["b"] = v[q]
        else:
            state["b"] = 0.5 * (v[p] + v[q])
        state["it"] += 1
        return True

    def examine(i2):
        r2 = y[i2] * (state["b"] - v[i2])
        if not ((r2 < -ktol and alpha[i2] < C) or (r2 > ktol and alpha[i2] > 0)):
            return False
        nonbound = np.flatnonzero((alpha > 0) & (alpha < C))
        if nonbound.size > 1:
            i1 = int(nonbound[np.argmax(np.abs(v[nonbound] - v[i2]))])
            if take_step(i1, i2):
                return True
        if nonbound.size:
            for i1 in np.roll(nonbound, -int(rng.integers(nonbound.size))):
                if take_step(int(i1), i2):
                    return True
        for i1 in np.roll(np.arange(n), -int(rng.integers(n))):
            if take_step(int(i1), i2):
                return True
        return False

    examine_all = True
    n_changed = 0
    passes = 0
    while (n_changed > 0 or examine_all) and state["it"] < limit:
        n_changed = 0
        candidates = range(n) if examine_all else np.flatnonzero((alpha > 0) & (alpha < C))
        for i2 in candidates:
            n_changed += examine(int(i2))
            if state["it"] >= limit:
                break
        passes += 1
        if hard:
            hard_margin_check(prob, R2)
        if examine_all:
            examine_all = False
        elif n_changed == 0:
            examine_all = True
    prob.n_rows = rows.counter[0]
    converged = state["it"] < limit
    return state["it"], converged
