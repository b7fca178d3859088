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

import functools
import math

import numpy as np

_EPS = float(np.finfo(float).eps)

__all__ = ["MistakeScanner", "fixed_step_epoch", "lazy_samples", "UNROLL_MAX", "UNROLL_MAX_ENTRIES"]

# Up to this many weights an epoch runs on Python floats with the score written out
# term by term (see _unrolled_loop); beyond, one numpy dot per sample is cheaper.
UNROLL_MAX = 16
# ... and up to this many entries of Z: as Python floats in tuples a sample takes 4.4-6.4
# times its bytes in Z (17 down to 3 weights; 35-50 MB at this size), so larger data stay
# in numpy
UNROLL_MAX_ENTRIES = 2**20


class MistakeScanner:
    r"""Yield the positions (in visiting order) of the samples the current ``a`` gets wrong.

    Parameters
    ----------
    Zo : ndarray of shape (n, p)
        The samples in visiting order.
    margin : float
    max_norm : float
        :math:`\max_i\lVert\mathbf z_i\rVert`.
    rows : list of ndarray or None
        ``list(Zo)``, if the caller has it already.
    """

    def __init__(self, Zo, margin, max_norm, rows=None):
        self.Zo = Zo
        # row views: indexing a list is cheaper than a 2-D array
        self.rows = list(Zo) if rows is None else rows
        self.margin = margin
        self.n = Zo.shape[0]
        self.rounding = 4.0 * (Zo.shape[1] + 1) * np.finfo(float).eps * max_norm
        self.block = 32

    def next_mistake(self, a, start, norm_a=None):
        """The first position ``k >= start`` with ``a @ Zo[k] <= margin``, or ``n``.

        ``norm_a``, if given, is an upper bound on :math:`\\lVert\\mathbf a\\rVert`.
        """
        Zo, rows, margin, n = self.Zo, self.rows, self.margin, self.n
        band = self.rounding * (math.sqrt(a @ a) if norm_a is None else norm_a)
        low, high = margin - band, margin + band
        p = start
        while p < n:
            q = min(n, p + self.block)
            scores = Zo[p:q].dot(a)
            candidate = scores <= high
            k = int(candidate.argmax())
            while candidate[k]:
                # below the band it is a mistake whatever the rounding; within it the
                # per-sample test decides
                if scores[k] < low or a.dot(rows[p + k]) <= margin:
                    # mistakes come about every (p + k - start) samples: size the next block so
                    self.block = min(4096, max(32, 4 * (p + k - start + 1)))
                    return p + k
                candidate[k] = False
                k = int(candidate.argmax())
            p = q
            self.block = min(4096, 2 * self.block)
        return n


def fixed_step_epoch(Zo, rows, a, eta, margin, max_norm, dense, samples=None):
    """One epoch of the fixed-increment rule ``a <- a + eta z_k`` over ``Zo`` in order.

    ``rows`` is ``list(Zo)`` (kept by the caller across epochs when the order does not
    change). ``samples``, if given (for at most ``UNROLL_MAX`` weights and
    ``UNROLL_MAX_ENTRIES`` entries of ``Zo``), returns the rows as :func:`_unrolled_loop`
    takes them (see :func:`lazy_samples`), and the dense stretches then run on Python
    floats.
    Correct stretches are skipped in blocks, as :class:`MistakeScanner` does (here
    inlined: a method call and its bookkeeping per mistake cost a third of the time of
    a sparse epoch). Where mistakes come densely -- ``dense`` (the last epoch
    corrected more than one sample in 4), or one in 4 of the samples seen so far in
    this one -- the rest of the epoch is visited one sample at a time, since a block
    scan costs a few numpy calls per mistake and the plain loop one per sample.
    Either way every decision is the one of ``a @ Zo[k] <= margin`` and every update
    the same float operations, so the result is bit-for-bit that of the plain loop.
    Returns ``(a, mistakes)``.
    """
    n = Zo.shape[0]
    rounding = 4.0 * (Zo.shape[1] + 1) * _EPS * max_norm
    # an upper bound on ||a|| (each update adds at most eta max||z||) spares a numpy
    # call per mistake; eta z is z itself when eta is 1, as the plain loop has it too
    norm_a, step = math.sqrt(a @ a) * (1.0 + 1e-6), eta * max_norm * (1.0 + 1e-6)
    k, mistakes, block = 0, 0, 32
    while k < n:
        if dense or (k >= 64 and 4 * mistakes > k):
            if samples is not None:
                # one band for the rest of the epoch: ||a|| grows by at most step per update
                band = rounding * (norm_a + (n - k) * step)
                listed = samples()
                # Python floats: a numpy scalar eta would make every a_j one, at numpy's speed
                a, mistakes = _unrolled_loop(Zo.shape[1])(
                    listed[k:] if k else listed, a.tolist(), float(eta), float(margin), band,
                    mistakes)
                return np.array(a), mistakes
            return _plain_loop(rows[k:] if k else rows, a, eta, margin, mistakes)
        scores = Zo[k:k + block].dot(a)
        band = rounding * norm_a
        high = margin + band
        hit = int((scores <= high).argmax())
        score = float(scores[hit])
        if score > high:                    # no candidate in the block
            k += block
            block = min(4096, 2 * block)
            continue
        # below the band it is a mistake whatever the rounding; within it the
        # per-sample test decides
        if score < margin - band or a.dot(rows[k + hit]) <= margin:
            a = a + rows[k + hit] if eta == 1.0 else a + eta * rows[k + hit]
            norm_a += step
            mistakes += 1
            # mistakes come about every hit + 1 samples: size the next block so
            block = min(4096, max(32, 4 * hit + 4))
        k += hit + 1
    return a, mistakes


def lazy_samples(Zo, rows):
    """A function returning ``[(z_0, ..., z_{p-1}, z), ...]`` for the rows ``z`` of ``Zo``.

    ``rows`` is ``list(Zo)``; the list is built at the first call (an epoch that never
    turns dense does not pay for it) and kept.
    """
    built = []

    def samples():
        if not built:
            built.append(list(zip(*Zo.T.tolist(), rows)))
        return built[0]

    return samples


def _plain_loop(rows, a, eta, margin, mistakes):
    """The rule sample by sample over ``rows``; returns ``(a, mistakes)``, counting on."""
    for z in rows:
        # the method: np.dot and @ cost twice as much per call (same BLAS ddot)
        if a.dot(z) <= margin:
            a = a + z if eta == 1.0 else a + eta * z
            mistakes += 1
    return a, mistakes


@functools.lru_cache(maxsize=None)
def _unrolled_loop(p):
    """The rule sample by sample for ``p`` weights held as Python floats.

    A numpy call costs about 0.1 us whatever its length; for a few weights the score
    ``a0*z0 + a1*z1 + ...`` written out as one Python expression costs less (4x less at
    p = 6), and so do the ``p`` float additions of an update. Python has no loop over
    the terms that is as cheap, so the function's source is generated for each ``p``.
    The updates are the same IEEE operations as numpy's ``a + eta * z``; the score is
    summed in another order than numpy's dot, so a score within ``band`` of the margin
    (a bound on the rounding of either sum for every ``a`` of the run) is decided, as in
    the plain loop, by ``a.dot(z)``. Returns ``run(samples, a, eta, margin, band,
    mistakes) -> (a, mistakes)``, ``samples`` a list of tuples ``(z_0, ..., z_{p-1},
    z)`` (the floats of a row, then the row itself).
    """
    a, z = ", ".join(f"a{j}" for j in range(p)), ", ".join(f"z{j}" for j in range(p))
    score = " + ".join(f"a{j} * z{j}" for j in range(p))

    def loop(update):
        return f"""
        for {z}, row in samples:
            s = {score}
            if s <= high and (s < low or _dot(({a},), row) <= margin):
                {update}
                mistakes += 1"""

    # eta = 1 adds z itself, as the plain loop does (a + eta * z rounds otherwise)
    src = f"""
def run(samples, a, eta, margin, band, mistakes):
    {a}, = a
    low, high = margin - band, margin + band
    if eta == 1.0:{loop("; ".join(f"a{j} += z{j}" for j in range(p)))}
    else:{loop("; ".join(f"a{j} += eta * z{j}" for j in range(p)))}
    return [{a}], mistakes
"""
    namespace = {"_dot": _exact_dot}
    exec(compile(src, f"<linclf._scan unrolled p={p}>", "exec"), namespace)  # noqa: S102
    return namespace["run"]


def _exact_dot(a, row):
    """``a @ row`` as the plain loop computes it (numpy's dot), ``a`` a tuple of floats."""
    return np.array(a).dot(row)
