"""Active-set polishing of SMO's free variables (see :mod:`linclf.smo`).

SMO moves two variables at a time and zigzags when the free block of the
kernel matrix is nearly singular; here the bound variables are held fixed and
the quadratic on the free set is minimised directly, cut at the first bound.
"""

from __future__ import annotations

import numpy as np

from .state import POLISH_MIN_SPREAD, unmask_v

__all__ = ["polish"]


def _free_block(prob, level, free):
    """Kernel block ``K(level, free)`` of shape (n_level, n_free)."""
    if prob.K is not None:
        return prob.K[np.ix_(level.idx, level.idx[free])]
    X = level.rows.X
    return prob.kernel.block(X, X[free])


def _newton_direction(K_FF, g):
    r"""Minimiser direction of :math:`-\mathbf g^\top\boldsymbol\beta + \tfrac12\boldsymbol\beta^\top K\boldsymbol\beta` on :math:`\mathbf 1^\top\boldsymbol\beta = 0`.

    Returns ``(beta, curved)``. If :math:`K` is positive definite (Cholesky
    succeeds with a pivot that is not negligible) the bordered system
    :math:`K\boldsymbol\beta + b\mathbf 1 = \mathbf g,\ \mathbf 1^\top\boldsymbol\beta = 0`
    is solved directly. Otherwise the problem is written on
    :math:`P = I - \mathbf 1\mathbf 1^\top/k` and :math:`PKP` is diagonalised: if
    :math:`P\mathbf g` has a component in the null space of :math:`PKP` the
    quadratic is unbounded below along it (``curved=False``: a descent
    direction of zero curvature, limited only by the box), else the
    pseudo-inverse gives the Newton step.
    """
    k = g.shape[0]
    scale = max(float(np.max(np.diag(K_FF))), 1e-300)
    try:
        L = np.linalg.cholesky(K_FF)
        if np.min(np.diag(L)) ** 2 > 1e-10 * scale:
            sol = np.linalg.solve(K_FF, np.stack([g, np.ones(k)], axis=1))
            b = sol[:, 0].sum() / sol[:, 1].sum()
            return sol[:, 0] - b * sol[:, 1], True
    except np.linalg.LinAlgError:
        pass
    Kc = K_FF - K_FF.mean(axis=0)
    Kc -= Kc.mean(axis=1)[:, None]
    gc = g - g.mean()
    lam, U = np.linalg.eigh(Kc)
    c = U.T @ gc
    big = lam > 1e-10 * scale * k
    null = U[:, ~big] @ c[~big]
    if null @ null > 1e-20 * max(gc @ gc, 1e-300):
        null -= null.mean()  # exactly on 1^T beta = 0
        return null, False
    return U[:, big] @ (c[big] / lam[big]), True


def _range_basis(prob, level, free, K_FF):
    r"""Orthonormal basis of the column space of :math:`[\Phi, \mathbf 1]` where :math:`K_{FF} = \Phi\Phi^\top`.

    ``None`` when it would span everything (:math:`K_{FF}` positive definite,
    or no more free variables than columns). For the linear kernel
    :math:`\Phi = X_F`; otherwise the eigenvectors of :math:`K_{FF}` with
    non-negligible eigenvalues, computed only when Cholesky fails.
    """
    k = free.size
    if prob.kernel.name == "linear":
        Phi = level.rows.X[free]
    else:
        scale = max(float(np.max(np.diag(K_FF))), 1e-300)
        try:
            L = np.linalg.cholesky(K_FF)
            if np.min(np.diag(L)) ** 2 > 1e-10 * scale:
                return None
        except np.linalg.LinAlgError:
            pass
        lam, U = np.linalg.eigh(K_FF)
        Phi = U[:, lam > 1e-10 * scale * k]
    if Phi.shape[1] + 1 >= k:
        return None
    return np.linalg.qr(np.column_stack([Phi, np.ones(k)]))[0]


def polish(prob, level, al, V, max_free):
    r"""Active-set steps on the free variables of ``level``; returns the number taken.

    With the variables at a bound held fixed, the dual restricted to the free set
    :math:`F` is an equality-constrained quadratic in :math:`\boldsymbol\beta = (y_s\,\Delta\alpha_s)_{s\in F}`:
    :math:`f(\boldsymbol\alpha + \Delta\boldsymbol\alpha) - f(\boldsymbol\alpha)
    = -\mathbf v_F^\top\boldsymbol\beta + \tfrac12\boldsymbol\beta^\top K_{FF}\boldsymbol\beta`
    on :math:`\mathbf 1^\top\boldsymbol\beta = 0`. Its minimiser makes every free :math:`v_t`
    equal (to the intercept). Each step goes along a descent direction, cut at
    the first bound reached (the ratio test of an active-set method; that
    variable is put exactly on its bound and leaves :math:`F`), so the objective
    decreases and the iterate stays feasible:

    * if :math:`K_{FF} = \Phi\Phi^\top` is singular and :math:`\mathbf v_F` has a
      component :math:`\mathbf r` orthogonal to the columns of :math:`[\Phi, \mathbf 1]`,
      the quadratic decreases linearly along :math:`\mathbf r` (zero curvature:
      e.g. more free variables than :math:`d + 1` for the linear kernel), and the
      step goes to the first bound;
    * otherwise along the minimiser's direction (:func:`_newton_direction`) with
      an exact line search; a full step ends the polish.

    ``al`` (list) and ``V`` (masked v) are updated in place.

    Parameters
    ----------
    prob : Problem
    level : Level
    al : list of float
        The level's alpha (updated in place).
    V : ndarray of shape (2, n)
        The level's masked v (updated in place).
    max_free : int
        Skip when more variables than this are free.

    Returns
    -------
    int
        Number of polishing steps taken.
    """
    C = prob.C
    alpha = np.array(al)
    free = np.flatnonzero((alpha > 0) & (alpha < C))
    k = free.size
    if k < 2 or k > max_free:
        return 0
    v = unmask_v(V)
    g = v[free]
    if float(g.max() - g.min()) <= POLISH_MIN_SPREAD * prob.tol:
        return 0
    K_nF = _free_block(prob, level, free)
    K_FF = K_nF[free]
    Q = _range_basis(prob, level, free, K_FF)
    yF = level.y[free]
    a0 = alpha[free]
    aF = a0.copy()
    n_steps = 0
    act = np.ones(k)  # 1.0 while free, 0.0 once put on a bound
    room = np.empty(k)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # 1. zero-curvature steps: each puts one variable on a bound
        if Q is not None:
            Qa = Q.copy()
            # (Qa^T Qa)^{-1}, starts at I (orthonormal columns); rows of Qa are
            # zeroed as variables leave, and the inverse follows by Sherman-Morrison
            P = np.eye(Q.shape[1])
            na = k
            while na > Q.shape[1]:
                gm = g * act
                r = gm - Qa @ (P @ (Qa.T @ gm))
                s1 = gm.sum()
                rr = r @ r
                if not rr > 1e-18 * (gm @ gm - s1 * s1 / na):
                    break
                # r must be orthogonal to [Phi_A, 1] (no curvature, y^T alpha
                # kept); if round-off in P spoils that, leave it to Newton
                Qr = Qa.T @ r
                if not Qr @ Qr <= 1e-16 * rr:
                    break
                r -= act * (r.sum() / na)
                # ratio test on alpha + s y r (r = 0 on the fixed variables)
                da = yF * r
                np.divide(np.where(da > 0, C, 0.0) - aF, da, out=room)
                room[da == 0] = np.inf
                h = int(np.argmin(room))
                s = room[h]
                if not (np.isfinite(s) and s > 0):
                    break
                aF += s * da
                np.clip(aF, 0.0, C, out=aF)
                aF[h] = C if da[h] > 0 else 0.0
                act[h] = 0.0
                Qa[h] = 0.0
                n_steps += 1
                na -= 1
                Pq = P @ Q[h]
                denom = 1.0 - Q[h] @ Pq
                if not denom > 1e-8:
                    break  # the remaining rows no longer span the columns
                P += np.outer(Pq, Pq / denom)
            # the free v_t changed only by round-off; make them exact
            if n_steps:
                g = v[free] - K_FF @ ((aF - a0) * yF)
        # 2. Newton steps on the remaining free set, cut at the first bound
        for _ in range(k):
            idx = np.flatnonzero(act)
            if idx.size < 2:
                break
            gA = g[idx]
            K_AA = K_FF[np.ix_(idx, idx)]
            d, curved = _newton_direction(K_AA, gA)
            # 1^T d = 0 keeps y^T alpha; restore it against round-off in the solve
            d -= d.mean()
            descent = float(gA @ d)
            if not descent > 0:
                break
            s = np.inf
            if curved:
                curv = float(d @ K_AA @ d)
                s = descent / curv if curv > 0 else np.inf
            da = yF[idx] * d
            a = aF[idx]
            ratio = (np.where(da > 0, C, 0.0) - a) / da
            ratio[da == 0] = np.inf
            hit = int(np.argmin(ratio))
            if ratio[hit] <= s:
                s = float(ratio[hit])
            else:
                hit = -1
            if not np.isfinite(s) or s <= 0:
                break
            new = np.clip(a + s * da, 0.0, C)
            if hit >= 0:
                new[hit] = C if da[hit] > 0 else 0.0
            # free v_t change by -K_FA (y_A delta alpha_A)
            g -= K_FF[:, idx] @ ((new - a) * yF[idx])
            aF[idx] = new
            n_steps += 1
            if hit < 0:
                break
            act[idx[hit]] = 0.0
    if n_steps == 0:
        return 0
    v -= K_nF @ ((aF - a0) * yF)
    for pos, t in enumerate(free.tolist()):
        al[t] = float(aF[pos])
    vF = v[free]
    up = np.where(yF > 0, aF < C, aF > 0)
    low = np.where(yF > 0, aF > 0, aF < C)
    V[0] = np.where(np.isfinite(V[0]), v, -np.inf)
    V[1] = np.where(np.isfinite(V[1]), v, np.inf)
    V[0, free] = np.where(up, vF, -np.inf)
    V[1, free] = np.where(low, vF, np.inf)
    return n_steps
