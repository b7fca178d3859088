"""Finding the next mistake of a single-sample perceptron epoch in blocks.

The perceptron rule visits the samples in order and corrects ``a`` on the first
``z_i`` with ``a^T z_i <= margin``; every sample before it is left alone, so the
scores of a whole block of them can be computed by one matrix-vector product with
the current ``a``. The decision itself is taken, as before, by the per-sample dot
``a @ z_i``: a block product may round differently from it, so the block only
rules out the rows whose score clears the margin by more than that rounding can
change (``4 (p + 1) eps ||a|| max ||z||``, Cauchy-Schwarz), and the candidates are
checked one by one. The sequence of updates, and so every weight vector, is
bit-for-bit the one of the sample-by-sample loop.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MistakeScanner"]


class MistakeScanner:
    r"""Yield the positions (in visiting order) of the samples the current ``a`` gets wrong.

    Parameters
    ----------
    Zo : ndarray of shape (n, p)
        The samples in visiting order.
    margin : float
    max_norm : float
        :math:`\max_i\lVert\mathbf z_i\rVert`.
    """

    def __init__(self, Zo, margin, max_norm):
        self.Zo = Zo
        self.rows = list(Zo)  # row views: indexing a list is cheaper than a 2-D array
        self.margin = margin
        self.n = Zo.shape[0]
        self.rounding = 4.0 * (Zo.shape[1] + 1) * np.finfo(float).eps * max_norm
        self.block = 8

    def next_mistake(self, a, start):
        """The first position ``k >= start`` with ``a @ Zo[k] <= margin``, or ``n``."""
        Zo, rows, margin, n = self.Zo, self.rows, self.margin, self.n
        band = None
        p = start
        while p < n:
            if self.block <= 8:
                # mistakes every few samples: a block product would not pay, test one by one
                for k in range(p, min(n, p + 8)):
                    if a @ rows[k] <= margin:
                        self.block = 2 * (k - start + 1)
                        return k
                p = min(n, p + 8)
                self.block = 16
                continue
            if band is None:
                band = margin + self.rounding * float(np.sqrt(a @ a))
            q = min(n, p + self.block)
            for k in np.flatnonzero(Zo[p:q] @ a <= band).tolist():
                if a @ rows[p + k] <= margin:  # the per-sample test decides
                    # mistakes come about every (p + k - start) samples: size the next block so
                    self.block = min(4096, 2 * (p + k - start + 1))
                    return p + k
            p = q
            self.block = min(4096, 2 * self.block)
        return n
