"""Kernel rows for SMO, stored as pair curvatures, computed on demand, kept in an LRU cache."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .state import FULL_LINEAR_MAX_N

__all__ = ["CurvatureRows"]


class CurvatureRows:
    r"""Rows :math:`A_{r\cdot} = K_{rr} + \operatorname{diag}(K)_A - 2K_{rA} + \tau` for an index subset ``A``.

    :math:`A_{rt} - \tau = \lVert\phi(\mathbf x_r) - \phi(\mathbf x_t)\rVert^2` is the curvature
    :math:`a_{rt}` of the pair :math:`(r, t)`; adding :math:`\tau` (a tiny multiple of the
    kernel's scale) keeps it positive for duplicate points (for a PSD kernel).

    For the rbf kernel the stored rows are floored at :math:`\tau` (see
    :meth:`_compute`); for indefinite kernels (``indefinite``) they are exact and
    their readers floor them.

    Computed on demand and kept in an LRU cache of at most ``max_rows`` rows.
    A cache built for a shrunk subset first looks for the row in its parent's
    cache (a slice is cheaper than a kernel evaluation).

    Parameters
    ----------
    prob : Problem
        The solve's shared data (kernel, training data, diagonal, cache size, tau).
    idx : ndarray of int
        The variables whose rows (restricted to ``idx``) are served.
    parent, parent_pos : CurvatureRows, ndarray of int or None
        The cache of the superset this one was shrunk from, and the positions of
        ``idx`` in it.
    counter : list of one int or None
        Shared count of computed rows.
    """

    def __init__(self, prob, idx, parent=None, parent_pos=None, counter=None):
        kernel = prob.kernel
        self.kernel = kernel
        self.K = prob.K
        self.tau = prob.tau
        # 0-d arrays: a Python float operand costs numpy a conversion at every call
        self.tau0, self.two_tau = np.array(self.tau), np.array(2.0 + self.tau)
        self.counter = counter if counter is not None else [0]
        self.idx = idx
        self.X = prob.X[idx]
        self.kdiag = prob.kdiag[idx]
        n = idx.shape[0]
        self.max_rows = max(2, int(prob.cache_bytes // (8 * n)))
        # a cache that holds every row never evicts: a plain dict, whose
        # inserts are cheaper and which needs no reordering on a hit
        self.lru = self.max_rows < n
        self.rows = OrderedDict() if self.lru else {}
        # indefinite kernels can give A <= 0: their readers floor it at tau
        self.indefinite = kernel.name in ("sigmoid", "callable")
        self.parent = parent
        self.parent_pos = parent_pos
        self.Xa = self.Za = None
        if kernel.name in ("rbf", "linear"):
            self._affine_rows(kernel.factors(self.X), parent is None)
        elif kernel.name in ("poly", "sigmoid"):
            self.P, self.Q = kernel.factors(self.X)

    def _affine_rows(self, factors, is_root):
        """Arrange a row of A as one matrix-vector product ``Xa @ Za[r]``.

        The kernel's factored form ``K = link(P Q^T)`` (:meth:`linclf.kernels.Kernel.factors`)
        gives it; the affine parts of A ride along in extra columns, because
        numpy's per-call cost, not arithmetic, dominates a row of moderate length.
        """
        P, Q = factors
        n, d = P.shape
        tau = self.tau
        # column-major: OpenBLAS's matrix-vector product on a tall, narrow
        # matrix is 1.3-2.3x faster that way
        if self.kernel.name == "rbf":
            # A_rt = 2 + tau - 2 K_rt = 2 + tau - exp(P_t . Q_r + ln 2): the exp
            # gives 2 K_rt directly, one numpy call less (see _compute)
            self.Xa = np.empty((n, d + 1), order="F")
            self.Za = np.empty((n, d + 1))
            self.Xa[:, :d] = P
            self.Za[:, :d] = Q
            self.Xa[:, d] = 1.0
            self.Za[:, d] = np.log(2.0)
            return
        self.Xa = np.empty((n, d + 2), order="F")
        self.Za = np.empty((n, d + 2))
        # linear: A_rt = K_tt - 2 P_t . Q_r + (K_rr + tau)
        np.multiply(P, -2.0, out=self.Xa[:, :d])
        self.Za[:, :d] = Q
        self.Xa[:, d] = self.kdiag
        self.Za[:, d] = 1.0
        self.Xa[:, d + 1] = 1.0
        self.Za[:, d + 1] = self.kdiag + tau
        if is_root and n <= FULL_LINEAR_MAX_N and self.max_rows >= n:
            # small problems touch half of the rows or more: one matrix
            # product for all of them is cheaper (A is symmetric, so the
            # rows of Xa Za^T are the rows of A). Not for rbf: its exp per
            # entry made that slower where few rows are needed (circles).
            self.rows = dict(zip(range(n), self.Xa @ self.Za.T))
            self.counter[0] += n

    def peek(self, r):
        """The cached row ``r`` (or one derived from an ancestor's), else ``None``."""
        row = self.rows.get(r)
        if row is None and self.parent is not None:
            prow = self.parent.peek(self.parent_pos[r])
            if prow is not None:
                row = prow[self.parent_pos]
                self._store(r, row)
        return row

    def _store(self, r, row):
        rows = self.rows
        rows[r] = row
        if self.lru and len(rows) > self.max_rows:
            rows.popitem(last=False)

    def get(self, r):
        """Row ``r``: from the cache, an ancestor's cache, or computed."""
        row = self.rows.get(r)
        if row is not None:
            if self.lru:
                self.rows.move_to_end(r)
            return row
        row = self.peek(r) if self.parent is not None else None
        if row is None:
            row = self._compute(r)
            self._store(r, row)
        return row

    def _compute(self, r):
        self.counter[0] += 1
        name = self.kernel.name
        if name == "linear":
            return self.Xa @ self.Za[r]
        if name == "rbf":
            # k = ln 2 - gamma ||x_r - x_t||^2, so A_r = 2 + tau - exp(k).
            # Round-off can make a squared distance negative, by up to
            # gamma*|x|^2*eps: with a large gamma that exceeds tau, so K_rt > 1
            # and A_rt < 0 for near-duplicate points. Flooring A at tau is what
            # clipping the distance at 0 would give, for one numpy call less.
            k = self.Xa @ self.Za[r]
            np.exp(k, out=k)
            np.subtract(self.two_tau, k, out=k)
            return np.maximum(k, self.tau0, out=k)
        if self.K is not None:
            k = self.K[self.idx[r], self.idx] * -2.0
        elif name in ("poly", "sigmoid"):
            k = self.kernel.link(self.P @ self.Q[r])
            k *= -2.0
        else:
            k = self.kernel.block(self.X[r : r + 1], self.X)[0]
            k *= -2.0
        # A_r = K_rr + diag(K) - 2 K_r + tau, in place
        k += self.kdiag
        k += self.kdiag[r] + self.tau
        return k
