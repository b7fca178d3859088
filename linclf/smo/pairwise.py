"""The pairwise SMO loop (working-set selections ``"wss2"`` and ``"mvp"``) with shrinking.

One step, in the notation of :mod:`linclf.smo`: pick ``i`` in I_up with the largest
``v`` and ``j`` in I_low (the smallest ``v``, or the largest second-order decrease),
move ``alpha_i += y_i t``, ``alpha_j -= y_j t`` with ``t = (v_i - v_j) / a_ij`` clipped
to the box, and update ``v`` with the two kernel rows.
"""

from __future__ import annotations

import numpy as np

from .polish import polish as polish_free_set
from .rows import CurvatureRows
from .state import (
    POLISH_EVERY,
    POLISH_MAX_FREE,
    POLISH_START,
    SNAP,
    STALL_RTOL,
    STALL_WINDOW,
    Level,
    tol_floor,
    hard_margin_check,
    violation,
)

__all__ = ["pairwise"]


def pairwise(prob, root, limit, selection, shrinking, hard, R2, polish=True):
    """Main loop for ``"wss2"`` and ``"mvp"``: pick a pair, solve it, update v.

    Parameters
    ----------
    prob : Problem
    root : CurvatureRows
        Rows over all variables.
    limit : int
        Maximal number of steps.
    selection : {"wss2", "mvp"}
    shrinking, hard, polish : bool
        Shrink the active set; C is infinite; polish the free set.
    R2 : float
        :math:`\\max_i K_{ii}`.

    Returns
    -------
    n_iter : int
    converged : bool
        Also set: ``prob.stalled`` (the dual objective stopped decreasing) and
        ``prob.tol_used`` (``tol`` raised to the floor float64 can resolve, :func:`tol_floor`).
    """
    C, tau = prob.C, prob.tau
    n = prob.n
    tol = max(prob.tol, tol_floor(R2, float(prob.alpha.sum())))
    prob.stalled = False
    # the decrease of the dual objective, accumulated step by step (each step's
    # is exact: t (v_i - v_j) - a_ij t^2 / 2), and its value at the last stall test
    gain = 0.0
    gain_mark = 0.0
    f_mark = None
    polished = False
    stall_window = max(STALL_WINDOW, 10 * n)
    stall_counter = stall_window
    wss2 = selection == "wss2"
    level = Level(prob, np.arange(n), root)
    shrink_every = min(n, 1000)
    counter = shrink_every
    unshrunk = False
    it = 0
    converged = False
    inf = np.inf
    # the two scalars the vector calls take, as 0-d arrays: numpy converts a Python
    # float operand anew at every call (about 0.2 us of a 0.5 us call at N = 500)
    m0 = np.zeros(())
    half_t = np.zeros(())
    add, subtract, multiply, divide, absolute = np.add, np.subtract, np.multiply, np.divide, np.abs
    floor = root.indefinite

    def bind(lv):
        return (lv.V, lv.V[0], lv.V[1], lv.yl, lv.al, lv.kdl, lv.rows,
                lv.rows.rows, lv.rows.max_rows < lv.idx.size,
                lv.buf_b, lv.buf_a, lv.buf_t, lv.shift)

    V, vup, vlow, y, alpha, kd, rows, cached, lru, bb, ba, bt, shift = bind(level)
    polish_every = POLISH_EVERY
    # SMO alone is fast while the number of steps is of the order of n; the
    # polishing pays when it would take many more (see polish)
    polish_counter = max(polish_every, int(POLISH_START * n))
    # the final polish only where the periodic one ran: a run that stops within
    # POLISH_START * n steps is not one of the zigzagging ones it is for
    polish_final = False

    while it < limit:
        counter -= 1
        if counter == 0:
            counter = shrink_every
            # the smallest m - M float64 resolves grows with the size of v
            tol = max(prob.tol, tol_floor(R2, sum(alpha) if level.idx.size == n
                                          else float(prob.alpha.sum())))
            stall_counter -= shrink_every
            if stall_counter <= 0:
                stall_counter = stall_window
                # f = -(total decrease) since alpha = 0 (where f = 0); no decrease
                # worth a rounding error of f in a whole window: nothing more to gain
                # a polish in the window lowered f by an amount the steps' gains do
                # not count: then compare f itself (O(n), once per window)
                f_now = _dual_value(level, alpha, y, shift) if polished and level.idx.size == n else None
                if gain - gain_mark <= STALL_RTOL * max(gain, 1e-300) and (
                        not polished or (f_now is not None and f_mark is not None
                                         and f_mark - f_now <= 1e-12 * abs(f_now))):
                    prob.stalled = True
                    break
                gain_mark = gain
                f_mark = f_now
                polished = False
            level.shift = shift
            if hard:
                level.store(prob)
                if level.idx.size < n:
                    prob.reconstruct(np.setdiff1d(np.arange(n), level.idx))
                hard_margin_check(prob, R2)
            if shrinking:
                level, unshrunk, changed = _shrink(prob, level, root, unshrunk)
                if changed:
                    V, vup, vlow, y, alpha, kd, rows, cached, lru, bb, ba, bt, shift = bind(level)

        if polish:
            polish_counter -= 1
            # not at a point that meets the stopping rule already: the polish
            # could reopen the gap there (it moves the bound variables' v too)
            if polish_counter <= 0 and float(vup.max() - vlow.min()) > tol:
                polish_counter = polish_every
                polish_final = True
                polished = True
                it += polish_free_set(prob, level, alpha, V, POLISH_MAX_FREE)

        i = int(vup.argmax())
        m = float(vup[i])
        if wss2:
            Ai = rows.get(i) if lru else cached.get(i)
            if Ai is None:
                Ai = rows.get(i)
            # j maximises b_it^2 / a_it over t in I_low with b_it = v_i - v_t > 0;
            # the score b |b| / A keeps the sign, so a negative b (and -inf
            # outside I_low) never wins while a positive one exists
            m0[()] = m
            subtract(m0, vlow, bb)
            absolute(bb, ba)
            multiply(bb, ba, bb)
            if floor:
                # an indefinite kernel's rows are exact (the v update needs
                # them); libsvm divides by tau where a_it <= 0
                divide(bb, np.maximum(Ai, tau, out=bt), bb)
            else:
                divide(bb, Ai, bb)
            j = int(bb.argmax())
            vj = float(vlow[j])
            # m - M >= b_ij: the stopping test needs M only when b_ij is small
            stop = m - vj <= tol and m - float(vlow[vlow.argmin()]) <= tol
        else:
            j = int(vlow.argmin())
            vj = float(vlow[j])
            stop = m - vj <= tol
        if stop:
            if level.idx.size == n:
                if polish and polish_final:
                    # once: make the free variables exact for the final partition.
                    # If that reopens the gap (a bound variable's v moved past
                    # the free ones), SMO closes it again: the few steps buy a
                    # point nearer the optimum than the one SMO stopped at
                    polish_final = False
                    moved = polish_free_set(prob, level, alpha, V, POLISH_MAX_FREE)
                    polished = True
                    if moved:
                        it += moved
                        continue
                converged = True
                break
            # converged on the active set: recompute the rest and check them all
            level.shift = shift
            level.store(prob)
            prob.reconstruct(np.setdiff1d(np.arange(n), level.idx))
            level = Level(prob, np.arange(n), root)
            V, vup, vlow, y, alpha, kd, rows, cached, lru, bb, ba, bt, shift = bind(level)
            if violation(V)[0] <= tol:
                if not (polish and polish_final):
                    converged = True
                    break
                # the next pass stops on the whole set, after the final polish
                continue
            counter = 1
            continue
        if not wss2:
            Ai = rows.get(i) if lru else cached.get(i)
            if Ai is None:
                Ai = rows.get(i)
        Aj = rows.get(j) if lru else cached.get(j)
        if Aj is None:
            Aj = rows.get(j)

        # two-variable step: alpha_i += y_i t, alpha_j -= y_j t
        a_ij = float(Ai[j])
        if a_ij < tau:
            a_ij = tau
        t = (m - vj) / a_ij
        b_ij = m - vj
        yi = y[i]
        yj = y[j]
        ai = alpha[i]
        aj = alpha[j]
        room_i = C - ai if yi > 0 else ai
        room_j = aj if yj > 0 else C - aj
        # a step that ends within round-off of a bound lands on it: an alpha
        # 1e-17 inside the box would count as free and could never move
        if t >= room_i * SNAP:
            t = room_i
            ai = C if yi > 0 else 0.0
        else:
            ai += yi * t
        if t >= room_j * SNAP:
            if t > room_j:
                # j's bound binds first: redo i with the smaller step
                t = room_j
                ai = alpha[i] + yi * t
            aj = 0.0 if yj > 0 else C
        else:
            aj -= yj * t
        alpha[i] = ai
        alpha[j] = aj
        gain += t * (b_ij - 0.5 * a_ij * t)

        # v -= t (K_i - K_j) = (t/2)(A_i - A_j) - (t/2)(K_ii - K_jj); the constant
        # goes to `shift`; one addition updates both masked copies of v
        # (two contiguous additions are cheaper than one broadcast over the 2 x n V)
        subtract(Ai, Aj, bt)
        half_t[()] = 0.5 * t
        multiply(bt, half_t, bt)
        add(vup, bt, vup)
        add(vlow, bt, vlow)
        shift -= 0.5 * t * (kd[i] - kd[j])
        # refresh I_up / I_low membership of i and j. i was in I_up and y_i alpha_i
        # grew (t > 0), so i is now in I_low and leaves I_up only at the bound; j,
        # mirrored. The addition above kept vup[i] and vlow[j] current.
        vlow[i] = vup[i]
        if (ai >= C) if yi > 0 else (ai <= 0.0):
            vup[i] = -inf
        vup[j] = vlow[j]
        if (aj <= 0.0) if yj > 0 else (aj >= C):
            vlow[j] = inf
        it += 1

    level.shift = shift
    level.store(prob)
    if level.idx.size < n:
        prob.reconstruct(np.setdiff1d(np.arange(n), level.idx))
    prob.n_rows = root.counter[0]
    prob.tol_used = tol
    return it, converged


def _dual_value(level, alpha, y, shift):
    """The dual objective ``f = w2 / 2 - sum(alpha)`` of a level that holds every variable."""
    a = np.asarray(alpha)
    v = np.where(np.isfinite(level.V[0]), level.V[0], level.V[1]) + shift
    S = float(a.sum())
    return 0.5 * (S - float(np.dot(a * np.asarray(y), v))) - S


def _shrink(prob, level, root, unshrunk):
    """libsvm-style shrinking; returns ``(level, unshrunk, changed)``."""
    changed = False
    V = level.V
    m = V[0].max()
    M = V[1].min()
    n = prob.n
    if not unshrunk and m - M <= 10 * prob.tol:
        # close to the end: bring everything back once, as libsvm does
        unshrunk = True
        if level.idx.size < n:
            level.store(prob)
            prob.reconstruct(np.setdiff1d(np.arange(n), level.idx))
            level = Level(prob, np.arange(n), root)
            changed = True
            V = level.V
            m = V[0].max()
            M = V[1].min()
    # t in I_up only that cannot be the i of a violating pair (v_t < M), and
    # t in I_low only that cannot be its j (v_t > m)
    keep = ~((np.isinf(V[1]) & (V[0] < M)) | (np.isinf(V[0]) & (V[1] > m)))
    n_keep = int(keep.sum())
    if n_keep > 0.9 * level.idx.size or n_keep < 2:
        return level, unshrunk, changed
    level.store(prob)
    pos = np.flatnonzero(keep)
    rows = CurvatureRows(prob, level.idx[pos], parent=level.rows, parent_pos=pos,
                         counter=level.rows.counter)
    return Level(prob, level.idx[pos], rows), unshrunk, True
