r"""The book's SMO (chapter 10), written for reading: one function per formula.

This is the algorithm of chapter 10 in its notation, on a precomputed Gram
matrix ``K``:

* the errors :math:`E_i = f(\mathbf x_i) - y_i` with
  :math:`f(\mathbf x_i) = \sum_j \alpha_j y_j K_{ij} + b` (the *error cache*);
* for a pair :math:`(i, j)` = ``(1, 2)`` of the chapter, the ends
  :math:`L, H` of the segment that the constraint :math:`y_1\alpha_1 + y_2\alpha_2 = \text{const}`
  cuts out of the box :math:`[0, C]^2` (:func:`segment_bounds`);
* the curvature :math:`\kappa = K_{11} + K_{22} - 2K_{12}`, the unclipped update
  :math:`\alpha_2 + y_2(E_1 - E_2)/\kappa`, clipped to :math:`[L, H]` (:func:`clip`), and
  :math:`\alpha_1` from :math:`\alpha_2`;
* the threshold update (:func:`threshold`) and the error-cache update.

The pair is the *maximal violating pair* (Keerthi et al. 2001): :math:`i` minimises
:math:`E` over :math:`I_\text{up}`, :math:`j` maximises it over :math:`I_\text{low}`, and the run
stops when :math:`\max_{I_\text{low}} E - \min_{I_\text{up}} E \le` ``tol``.

The fast solver (:func:`linclf.smo.smo_solve`) computes the same thing in other
variables and is tested against this one (``tests/test_smo_reference.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_array

__all__ = ["SMOState", "segment_bounds", "clip", "threshold", "working_pair", "take_step", "book_smo"]

#: Floor for kappa: two identical points have kappa = 0 (no curvature).
KAPPA_MIN = 1e-12


def segment_bounds(alpha_1, alpha_2, y_1, y_2, C):
    r"""Ends :math:`L \le H` of the feasible segment of :math:`\alpha_2`.

    Parameters
    ----------
    alpha_1, alpha_2 : float
        Current values, in :math:`[0, C]`.
    y_1, y_2 : {-1, +1}
    C : float

    Returns
    -------
    L, H : float
    """
    if y_1 != y_2:  # alpha_1 - alpha_2 is constant
        return max(0.0, alpha_2 - alpha_1), min(C, C + alpha_2 - alpha_1)
    return max(0.0, alpha_1 + alpha_2 - C), min(C, alpha_1 + alpha_2)


def clip(alpha_2, L, H):
    """The point of :math:`[L, H]` nearest to ``alpha_2``.

    Parameters
    ----------
    alpha_2, L, H : float

    Returns
    -------
    float
    """
    return min(H, max(L, alpha_2))


def threshold(b, E_1, E_2, d_1, d_2, K_11, K_12, K_22, alpha_1, alpha_2, C):
    r"""The new :math:`b` after a step that changed :math:`y_1\alpha_1` by ``d_1`` and :math:`y_2\alpha_2` by ``d_2``.

    :math:`b_1` makes :math:`E_1 = 0` after the step, :math:`b_2` makes :math:`E_2 = 0`.
    A free :math:`\alpha_1` (:math:`0 < \alpha_1 < C`) lies on the margin, so :math:`b_1` is
    right; else a free :math:`\alpha_2` gives :math:`b_2`; with both at a bound every
    value between them satisfies the KKT conditions of the pair, and the
    midpoint is taken.

    Parameters
    ----------
    b, E_1, E_2 : float
        Threshold and errors before the step.
    d_1, d_2 : float
        :math:`y_1(\alpha_1^\text{new} - \alpha_1)`, :math:`y_2(\alpha_2^\text{new} - \alpha_2)`.
    K_11, K_12, K_22 : float
    alpha_1, alpha_2 : float
        The new values.
    C : float

    Returns
    -------
    float
    """
    b_1 = b - E_1 - d_1 * K_11 - d_2 * K_12
    b_2 = b - E_2 - d_1 * K_12 - d_2 * K_22
    if 0 < alpha_1 < C:
        return b_1
    if 0 < alpha_2 < C:
        return b_2
    return (b_1 + b_2) / 2


@dataclass
class SMOState:
    """Multipliers, threshold and error cache of a run, and what it did.

    Parameters
    ----------
    alpha : ndarray of shape (N,)
    b : float
    E : ndarray of shape (N,)
        :math:`E_i = f(\\mathbf x_i) - y_i`.
    n_steps : int
        Two-variable steps taken.
    gap : float
        :math:`\\max_{I_\\text{low}} E - \\min_{I_\\text{up}} E` at the end.
    history : list of dict
        With ``record=True``: the state before the first step and after each
        (``alpha``, ``b``, ``E``, ``pair``, ``gap``).
    """

    alpha: np.ndarray
    b: float
    E: np.ndarray
    n_steps: int = 0
    gap: float = np.inf
    history: list = field(default_factory=list)


def working_pair(alpha, E, y, C):
    r"""The maximal violating pair :math:`(i, j)` and its violation :math:`E_j - E_i`.

    :math:`I_\text{up}` holds the indices where :math:`y_i\alpha_i` may grow, :math:`I_\text{low}`
    those where it may shrink; :math:`i = \arg\min_{I_\text{up}} E`, :math:`j = \arg\max_{I_\text{low}} E`.

    Parameters
    ----------
    alpha, E, y : ndarray of shape (N,)
    C : float

    Returns
    -------
    i, j : int
    gap : float
    """
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    i = int(np.flatnonzero(up)[np.argmin(E[up])])
    j = int(np.flatnonzero(low)[np.argmax(E[low])])
    return i, j, float(E[j] - E[i])


def take_step(state, i, j, K, y, C, snap=True):
    r"""One SMO step on the pair (1, 2) = ``(i, j)``: update ``state`` in place.

    Parameters
    ----------
    state : SMOState
    i, j : int
    K : ndarray of shape (N, N)
    y : ndarray of shape (N,)
    C : float
    snap : bool, default=True
        Put a new value within round-off of a bound exactly on it.

    Returns
    -------
    SMOState
        ``state``, updated.
    """
    alpha, E = state.alpha, state.E
    y_1, y_2, alpha_1, alpha_2 = y[i], y[j], alpha[i], alpha[j]
    L, H = segment_bounds(alpha_1, alpha_2, y_1, y_2, C)
    kappa = max(K[i, i] + K[j, j] - 2 * K[i, j], KAPPA_MIN)
    alpha_2_new = clip(alpha_2 + y_2 * (E[i] - E[j]) / kappa, L, H)
    alpha_1_new = alpha_1 + y_1 * y_2 * (alpha_2 - alpha_2_new)
    # round-off at a bound would leave an alpha "free" by 1e-17 and change
    # which index sets it belongs to; put it exactly on the bound
    if snap:
        alpha_1_new, alpha_2_new = (0.0 if a < KAPPA_MIN * C else C if a > C * (1 - KAPPA_MIN) else a
                                    for a in (alpha_1_new, alpha_2_new))
    d_1, d_2 = y_1 * (alpha_1_new - alpha_1), y_2 * (alpha_2_new - alpha_2)
    b_new = threshold(state.b, E[i], E[j], d_1, d_2, K[i, i], K[i, j], K[j, j],
                      alpha_1_new, alpha_2_new, C)
    E += d_1 * K[i] + d_2 * K[j] + (b_new - state.b)  # the error cache
    alpha[i], alpha[j], state.b = alpha_1_new, alpha_2_new, b_new
    state.n_steps += 1
    return state


def book_smo(K, y, C, *, tol=1e-3, max_steps=10_000, record=False, snap=True):
    r"""Solve the soft-margin dual by SMO with the maximal violating pair.

    Parameters
    ----------
    K : array_like of shape (N, N)
        The Gram matrix.
    y : array_like of shape (N,)
        Labels in {-1, +1}, both present.
    C : float
        Box bound, > 0 and finite.
    tol : float, default=1e-3
        Stop when :math:`\max_{I_\text{low}} E - \min_{I_\text{up}} E \le` ``tol``.
    max_steps : int, default=10_000
    record : bool, default=False
        Keep every intermediate state in ``history``.
    snap : bool, default=True
        See :func:`take_step`; ``False`` shows why the snapping is there.

    Returns
    -------
    SMOState
    """
    K = check_array(K, name="K")
    y = np.asarray(y, dtype=float)
    if K.shape != (y.size, y.size):
        raise ValueError(f"K must be square with one row per label; got {K.shape} for {y.size} labels.")
    if not np.all(np.isin(y, (-1.0, 1.0))) or np.unique(y).size != 2:
        raise ValueError("y must hold the labels -1 and +1, both present.")
    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C must be a finite number > 0; got {C!r}.")
    state = SMOState(alpha=np.zeros(y.size), b=0.0, E=-y.copy())  # f = 0 at alpha = 0
    if record:
        state.history.append(dict(alpha=state.alpha.copy(), b=0.0, E=state.E.copy(), pair=None))
    while True:
        i, j, state.gap = working_pair(state.alpha, state.E, y, C)
        if record:
            state.history[-1]["gap"] = state.gap
        if state.gap <= tol or state.n_steps >= max_steps:
            return state
        take_step(state, i, j, K, y, C, snap)
        if record:
            state.history.append(dict(alpha=state.alpha.copy(), b=state.b, E=state.E.copy(), pair=(i, j)))
