r"""Sequential minimal optimisation (SMO) for the soft-margin SVM dual.

The dual, in the minimisation form used by libsvm, is

.. math::

    \min_{\boldsymbol\alpha}\ f(\boldsymbol\alpha) = \tfrac12 \boldsymbol\alpha^\top Q \boldsymbol\alpha
    - \mathbf{e}^\top\boldsymbol\alpha
    \quad\text{s.t.}\quad 0 \le \alpha_i \le C,\ \ \mathbf{y}^\top\boldsymbol\alpha = 0,
    \qquad Q_{ij} = y_i y_j K(\mathbf{x}_i, \mathbf{x}_j).

**State.** Instead of the gradient :math:`\nabla f = Q\boldsymbol\alpha - \mathbf e` the
solver keeps :math:`v_t = -y_t \nabla_t f = y_t - \sum_s y_s \alpha_s K_{ts}`, i.e. the label
minus the bias-free decision value. A step may increase :math:`\alpha_i` in the
direction :math:`y_i` only if :math:`i \in I_{up} = \{t: y_t=+1, \alpha_t<C\} \cup \{t: y_t=-1, \alpha_t>0\}`,
and decrease :math:`y_j\alpha_j` only if :math:`j \in I_{low}` (the mirror set). With

.. math:: m(\boldsymbol\alpha) = \max_{t\in I_{up}} v_t, \qquad M(\boldsymbol\alpha) = \min_{t\in I_{low}} v_t,

the KKT conditions are :math:`m \le M` and the solver stops when :math:`m - M \le` ``tol``
(libsvm's criterion). Any :math:`b \in [m, M]` is then a valid intercept.

**Step.** For a pair :math:`i \in I_{up}`, :math:`j \in I_{low}` with :math:`b_{ij} = v_i - v_j > 0`,
moving :math:`\alpha_i \mathrel{+}= y_i t`, :math:`\alpha_j \mathrel{-}= y_j t` keeps
:math:`\mathbf y^\top\boldsymbol\alpha` fixed and changes :math:`f` by
:math:`-b_{ij} t + \tfrac12 a_{ij} t^2` with :math:`a_{ij} = K_{ii} + K_{jj} - 2K_{ij}
= \lVert\phi(\mathbf x_i) - \phi(\mathbf x_j)\rVert^2`; so :math:`t = \min(b_{ij}/a_{ij}, \text{room at the bounds})`.
Then :math:`\mathbf v \mathrel{-}= t\,(K_{i\cdot} - K_{j\cdot})`.

**Working-set selection** (``selection``):

* ``"mvp"``: the maximal violating pair :math:`i = \arg\max_{I_{up}} v`, :math:`j = \arg\min_{I_{low}} v`
  (Keerthi et al. 2001);
* ``"wss2"``: the same :math:`i`, but :math:`j` maximises the guaranteed decrease
  :math:`b_{it}^2 / a_{it}` among :math:`t \in I_{low}` with :math:`v_t < v_i` (Fan, Chen & Lin
  2005; libsvm's rule);
* ``"platt"``: Platt's (1998) heuristics: an outer loop over KKT violators
  alternating full passes and passes over the non-bound :math:`\alpha`, the second index
  chosen by :math:`\max|E_1 - E_2|` from the error cache, then by scanning.

**Kernel rows.** Row :math:`r` is stored as the curvatures
:math:`A_{rt} = K_{rr} + K_{tt} - 2K_{rt} + \tau = a_{rt} + \tau`, which is what the
second-order selection divides by, and
:math:`K_{i\cdot} - K_{j\cdot} = \tfrac12\big((K_{ii} - K_{jj}) - (A_{i\cdot} - A_{j\cdot})\big)`; the
constant part of that update is accumulated in one scalar, because every choice
the solver makes depends only on differences of :math:`v`. Rows are computed on demand
(vectorised) and kept in a least-recently-used cache of ``cache_size`` MB; when the whole
matrix fits, every row is computed at most once, so for moderate :math:`N` this is the
precomputed Gram matrix minus the rows the solver never touches.

**Shrinking** (``selection`` ``"wss2"``/``"mvp"``): as in libsvm, every ``min(N, 1000)`` steps
the variables at a bound that cannot be part of a violating pair are set aside
(:math:`t \in I_{up}\setminus I_{low}` with :math:`v_t < M`, or :math:`t \in I_{low}\setminus I_{up}`
with :math:`v_t > m`), and the solver works on a compacted copy of the remaining
ones. Their :math:`v_t` are recomputed before the final check on all variables, so
the result satisfies the stopping rule on the whole problem. (Off by default
here; :class:`linclf.svm.SVC` turns it on where it pays, see its ``shrinking``.)

**Active-set polishing** (``polish``; default ``"auto"``: on for the linear
kernel, ``"wss2"``/``"mvp"`` only). SMO moves two variables at a time; when the
optimum has several free variables with a nearly singular block :math:`Q_{FF}`
(the linear kernel on overlapping classes: about :math:`d + 1` free variables
on the margin) it zigzags for tens of thousands of steps. Once SMO has taken
``POLISH_START * n`` steps, every ``POLISH_EVERY`` steps (while :math:`m - M >`
``tol``) the variables at a bound are held fixed and the quadratic on the free set
:math:`F` is minimised directly (:func:`_polish`: a small dense linear system, steps
cut at the first bound as in an active-set method), and once more when SMO stops
(if it ran before; should that reopen the gap, SMO steps close it again). Every step
decreases the objective and keeps the iterate feasible, SMO then corrects the
partition, and the stopping rule is unchanged (:math:`m - M \le` ``tol`` on
all variables), so the result satisfies the same criterion as libsvm's. On the
benchmark's linear cases in :math:`d = 20` this cuts the steps 10-15 fold. For the
RBF kernel the free set is larger and the dense solve costs more than the SMO
steps it saves there, so ``"auto"`` leaves it off (``benchmarks/README.md``).
``n_iter`` counts SMO steps plus polishing steps.

**Hard margin** (``C = inf``): the dual is unbounded when the classes' convex
hulls in feature space intersect. Every ``min(N, 1000)`` steps (every pass for
``"platt"``) the iterate is checked for a proof that the optimal margin is
below ``HARD_MARGIN_RTOL`` times :math:`\max_i\lVert\phi(\mathbf x_i)\rVert`; if so,
:class:`NotSeparableError` (a ``ValueError``) is raised instead of iterating on.

**Cost per step** (``"wss2"``): nine numpy calls on vectors of the active-set
length (two arg-maxima, the score :math:`b_{it}\lvert b_{it}\rvert/A_{it}` in three
calls -- it has the maximiser of :math:`b_{it}^2/a_{it}` over :math:`b_{it} > 0` and
needs no second cached row such as :math:`1/\sqrt{A_{i\cdot}}` -- and the update
:math:`V \mathrel{+}= \tfrac t2(A_{i\cdot} - A_{j\cdot})`, applied to the two
rows of :math:`V` separately because two contiguous additions cost less than one
broadcast) plus a few dozen scalar operations: about 7 µs for :math:`N \le 1000`
on a 2020s x86 core, nearly all of it the fixed cost of calling numpy. A kernel
row of the linear or RBF kernel is one matrix-vector product (the affine terms
ride in two extra columns) plus, for RBF, three element-wise calls; for the
linear kernel with :math:`N \le` ``FULL_LINEAR_MAX_N`` all rows are computed
up front by one matrix product (a run touches 45-100 % of them).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

__all__ = ["KernelSpec", "NotSeparableError", "SMOResult", "smo_solve", "SELECTIONS", "TAU"]

SELECTIONS = ("wss2", "mvp", "platt")

#: Floor for the curvature a_ij (libsvm's tau): guards against a_ij = 0 for
#: duplicate points and a_ij < 0 for indefinite kernels.
TAU = 1e-12

#: Hard margin: C = inf fails once the iterate proves that the optimal margin
#: is below this many times the largest norm max_i ||phi(x_i)|| (see
#: _hard_margin_check); non-separable data have margin 0.
HARD_MARGIN_RTOL = 1e-3

#: A step t >= SNAP * (room to the bound) is rounded to the bound.
SNAP = 1.0 - 1e-12

#: Active-set polishing (see _polish): every POLISH_EVERY steps, if at most
#: POLISH_MAX_FREE variables are free.
POLISH_EVERY = 100
POLISH_START = 2.0
POLISH_MAX_FREE = 1500
#: ... and only if the free v_t are further apart than this many times tol:
#: closer than that the partition's optimum is already reached, and a
#: zero-curvature direction computed from round-off would only move the
#: iterate to a bound for a negligible decrease (and reopen the gap).
POLISH_MIN_SPREAD = 1e-3

#: Linear kernel: up to this many samples (and if the cache holds them all)
#: every row is computed up front by one matrix product.
FULL_LINEAR_MAX_N = 1500


# ---------------------------------------------------------------------------
# kernel rows
# ---------------------------------------------------------------------------


@dataclass
class KernelSpec:
    """A kernel the solver can evaluate row by row.

    Parameters
    ----------
    name : str
        ``"linear"``, ``"poly"``, ``"rbf"``, ``"laplacian"``, ``"sigmoid"`` or
        ``"precomputed"`` (then ``K`` holds the full Gram matrix, e.g. from a
        user callable).
    gamma, degree, coef0 : float, int, float
        The kernel's parameters (validated by :class:`linclf.svm.SVC`).
    K : ndarray of shape (n, n) or None
        The Gram matrix of a ``"precomputed"`` kernel.
    """

    name: str
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 0.0
    K: np.ndarray | None = None

    def block(self, A, B, sq_A=None, sq_B=None):
        """``K(A, B)`` for row blocks of the training data (internal, no validation).

        Parameters
        ----------
        A : ndarray of shape (m, d)
        B : ndarray of shape (n, d)
        sq_A, sq_B : ndarray or None
            Squared row norms of ``A`` and ``B`` if already known (RBF only).

        Returns
        -------
        ndarray of shape (m, n)
        """
        if self.name == "linear":
            return A @ B.T
        if self.name == "poly":
            G = A @ B.T
            G *= self.gamma
            G += self.coef0
            return G**self.degree
        if self.name == "sigmoid":
            G = A @ B.T
            G *= self.gamma
            G += self.coef0
            return np.tanh(G, out=G)
        if self.name == "rbf":
            sq_A = np.einsum("ij,ij->i", A, A) if sq_A is None else sq_A
            sq_B = np.einsum("ij,ij->i", B, B) if sq_B is None else sq_B
            G = A @ B.T
            G *= -2.0
            G += sq_A[:, None]
            G += sq_B[None, :]
            np.maximum(G, 0.0, out=G)
            G *= -self.gamma
            return np.exp(G, out=G)
        if self.name == "laplacian":
            G = np.zeros((A.shape[0], B.shape[0]))
            for k in range(A.shape[1]):
                G += np.abs(A[:, k, None] - B[None, :, k])
            G *= -self.gamma
            return np.exp(G, out=G)
        raise ValueError(f"no block evaluation for kernel {self.name!r}")  # pragma: no cover

    def diagonal(self, X):
        """``K(x_i, x_i)`` for every row of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n, d) or None
            The training data (ignored for a precomputed kernel).

        Returns
        -------
        ndarray of shape (n,)
        """
        if self.name == "precomputed":
            return np.ascontiguousarray(np.diag(self.K), dtype=float)
        if self.name in ("rbf", "laplacian"):
            return np.ones(X.shape[0])
        sq = np.einsum("ij,ij->i", X, X)
        if self.name == "linear":
            return sq
        if self.name == "poly":
            return (self.gamma * sq + self.coef0) ** self.degree
        return np.tanh(self.gamma * sq + self.coef0)


class _Rows:
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
    """

    def __init__(self, spec, X, idx, kdiag, cache_bytes, tau, parent=None, parent_pos=None,
                 counter=None):
        self.spec = spec
        self.tau = tau
        self.counter = counter if counter is not None else [0]
        self.idx = idx
        self.X = X[idx] if X is not None else None
        self.kdiag = kdiag[idx]
        n = idx.shape[0]
        self.max_rows = max(2, int(cache_bytes // (8 * n)))
        self.rows = OrderedDict()
        if spec.name in ("rbf", "linear"):
            # the affine parts ride along in two extra columns, so that a row
            # is one matrix-vector product (numpy's per-call cost dominates)
            d = self.X.shape[1]
            # column-major: OpenBLAS's matrix-vector product on a tall, narrow
            # matrix is 1.3-2.3x faster that way
            self.Xa = np.empty((n, d + 2), order="F")
            self.Za = np.empty((n, d + 2))
            self.Za[:, :d] = self.X
            if spec.name == "rbf":
                # ln 2 - gamma ||x_r - x_t||^2
                #   = 2 gamma x_t.x_r - gamma |x_t|^2 + (ln 2 - gamma |x_r|^2):
                # its exp is 2 K_rt, so that A_r = (2 + tau) - exp(.) is one
                # more call (see _compute)
                neg_gsq = -spec.gamma * np.einsum("ij,ij->i", self.X, self.X)
                np.multiply(self.X, 2.0 * spec.gamma, out=self.Xa[:, :d])
                self.Xa[:, d] = neg_gsq
                self.Za[:, d + 1] = neg_gsq + np.log(2.0)
            else:
                # A_rt = K_tt - 2 x_t.x_r + (K_rr + tau)
                np.multiply(self.X, -2.0, out=self.Xa[:, :d])
                self.Xa[:, d] = self.kdiag
                self.Za[:, d + 1] = self.kdiag + tau
            self.Xa[:, d + 1] = 1.0
            self.Za[:, d] = 1.0
            if (spec.name == "linear" and parent is None and n <= FULL_LINEAR_MAX_N
                    and self.max_rows >= n):
                # small problems touch half of the rows or more: one matrix
                # product for all of them is cheaper (A is symmetric, so the
                # rows of Xa Za^T are the rows of A). Not for rbf: its exp per
                # entry made that slower where few rows are needed (circles).
                self.rows = OrderedDict(zip(range(n), self.Xa @ self.Za.T))
                self.counter[0] += n
        # indefinite kernels can give A <= 0: their readers floor it at tau
        self.indefinite = spec.name in ("sigmoid", "precomputed")
        self.parent = parent
        self.parent_pos = parent_pos

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
        if len(rows) > self.max_rows:
            rows.popitem(last=False)

    def get(self, r):
        row = self.rows.get(r)
        if row is not None:
            self.rows.move_to_end(r)
            return row
        row = self.peek(r) if self.parent is not None else None
        if row is None:
            row = self._compute(r)
            self._store(r, row)
        return row

    def _compute(self, r):
        self.counter[0] += 1
        spec = self.spec
        name = spec.name
        k = None
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
            np.subtract(2.0 + self.tau, k, out=k)
            return np.maximum(k, self.tau, out=k)
        if name == "precomputed":
            k = spec.K[self.idx[r], self.idx] * -2.0
        elif name in ("poly", "sigmoid"):
            k = self.X @ self.X[r]
            k *= spec.gamma
            k += spec.coef0
            if name == "poly":
                np.power(k, spec.degree, out=k)
            else:
                np.tanh(k, out=k)
            k *= -2.0
        else:
            k = spec.block(self.X[r : r + 1], self.X)[0]
            k *= -2.0
        # A_r = K_rr + diag(K) - 2 K_r + tau, in place
        k += self.kdiag
        k += self.kdiag[r] + self.tau
        return k


# ---------------------------------------------------------------------------
# the solver
# ---------------------------------------------------------------------------


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

    Parameters
    ----------
    alpha, v, b, n_iter, gap, converged, n_kernel_rows
        As the attributes above.
    """

    alpha: np.ndarray
    v: np.ndarray
    b: float
    n_iter: int
    gap: float
    converged: bool
    n_kernel_rows: int


class NotSeparableError(ValueError):
    """The hard-margin (C = inf) dual is unbounded: the classes overlap in feature space."""


def _masked_v(v, alpha, y, C):
    """The 2 x n array ``[v on I_up else -inf, v on I_low else +inf]``.

    Every index is in I_up or I_low (or both), so ``v`` can be read back from
    it (:func:`_unmask_v`).
    """
    up = np.where(y > 0, alpha < C, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < C)
    return np.stack([np.where(up, v, -np.inf), np.where(low, v, np.inf)])


def _unmask_v(V):
    return np.where(np.isfinite(V[0]), V[0], V[1])


def _violation(V):
    i = int(V[0].argmax())
    j = int(V[1].argmin())
    return V[0, i] - V[1, j], i, j


class _Problem:
    """Shared data of one solve: labels, kernel, bounds, global alpha and v."""

    def __init__(self, spec, X, y, C, tol, cache_bytes):
        self.spec = spec
        self.X = X
        self.y = y
        self.C = C
        self.tol = tol
        self.cache_bytes = cache_bytes
        self.n = y.shape[0]
        self.kdiag = spec.diagonal(X)
        self.alpha = np.zeros(self.n)
        self.v = y.copy()  # alpha = 0  =>  v = y
        self.n_rows = 0

    def reconstruct(self, stale):
        """Recompute ``v`` on the indices ``stale`` from the current ``alpha``."""
        sv = np.flatnonzero(self.alpha > 0)
        if stale.size == 0:
            return
        beta = self.y[sv] * self.alpha[sv]
        if sv.size == 0:
            self.v[stale] = self.y[stale]
            return
        spec = self.spec
        if spec.name == "precomputed":
            f = spec.K[np.ix_(stale, sv)] @ beta
        elif spec.name == "linear":
            f = self.X[stale] @ (self.X[sv].T @ beta)
        else:
            # blocks of rows so that the temporary stays below ~32 MB
            step = max(1, int(4e6 // max(sv.size, 1)))
            Xsv = self.X[sv]
            f = np.empty(stale.size)
            for s in range(0, stale.size, step):
                rows = stale[s : s + step]
                f[s : s + step] = spec.block(self.X[rows], Xsv) @ beta
        self.v[stale] = self.y[stale] - f


class _Level:
    """The working copy of an active subset ``idx`` of the variables."""

    def __init__(self, prob, idx, rows):
        self.idx = idx
        self.rows = rows
        self.y = prob.y[idx]
        self.alpha = prob.alpha[idx]
        self.kd = prob.kdiag[idx]
        n = idx.shape[0]
        self.V = _masked_v(prob.v[idx], self.alpha, self.y, prob.C)
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
        prob.v[self.idx] = _unmask_v(self.V) + self.shift


def _hard_margin_check(prob, R2):
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


def smo_solve(
    spec,
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
    spec : KernelSpec
    X : ndarray of shape (n, d) or None
        Training data (``None`` for ``spec.name == "precomputed"``).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        Box bound; ``np.inf`` for the hard margin.
    tol : float
        Stop when :math:`m(\\alpha) - M(\\alpha) \\le` ``tol``.
    max_iter : int
        Maximal number of steps; ``-1`` means ``max(10**7, 100 n)``.
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
    prob = _Problem(spec, X, y, C, tol, cache_size * 2**20)
    n = prob.n
    limit = max(10_000_000, 100 * n) if max_iter == -1 else int(max_iter)
    idx = np.arange(n)
    hard = np.isinf(C)
    R2 = float(np.max(prob.kdiag)) if n else 1.0
    prob.tau = TAU * max(1.0, R2)
    root = _Rows(spec, X, idx, prob.kdiag, prob.cache_bytes, prob.tau)
    if selection == "platt":
        n_iter, converged = _platt(prob, root, limit, hard, R2)
    else:
        if polish == "auto":
            polish = spec.name == "linear"
        n_iter, converged = _pairwise(prob, root, limit, selection, shrinking, hard, R2, bool(polish))
    if hard:
        _hard_margin_check(prob, R2)
    V = _masked_v(prob.v, prob.alpha, prob.y, C)
    gap, _, _ = _violation(V)
    free = (prob.alpha > 0) & (prob.alpha < C)
    if np.any(free):
        b = float(prob.v[free].mean())
    else:
        b = float((V[0].max() + V[1].min()) / 2)
    # Platt's single-threshold test can stop short of m - M <= tol for
    # indefinite kernels; report that as not converged too
    converged = converged and gap <= tol * (1 + 1e-9)
    return SMOResult(
        alpha=prob.alpha,
        v=prob.v,
        b=b,
        n_iter=n_iter,
        gap=float(gap),
        converged=converged,
        n_kernel_rows=prob.n_rows,
    )


def _pairwise(prob, root, limit, selection, shrinking, hard, R2, polish=True):
    """Main loop for ``"wss2"`` and ``"mvp"``: pick a pair, solve it, update v."""
    C, tol, tau = prob.C, prob.tol, prob.tau
    n = prob.n
    wss2 = selection == "wss2"
    level = _Level(prob, np.arange(n), root)
    shrink_every = min(n, 1000)
    counter = shrink_every
    unshrunk = False
    it = 0
    converged = False
    inf = np.inf
    add, subtract, multiply, divide, absolute = np.add, np.subtract, np.multiply, np.divide, np.abs
    floor = root.indefinite

    def bind(lv):
        return (lv.V, lv.V[0], lv.V[1], lv.yl, lv.al, lv.kdl, lv.rows,
                lv.rows.rows, lv.rows.max_rows < lv.idx.size,
                lv.buf_b, lv.buf_a, lv.buf_t, lv.shift)

    V, vup, vlow, y, alpha, kd, rows, cached, lru, bb, ba, bt, shift = bind(level)
    polish_every = POLISH_EVERY
    # SMO alone is fast while the number of steps is of the order of n; the
    # polishing pays when it would take many more (see _polish)
    polish_counter = max(polish_every, int(POLISH_START * n))
    # the final polish only where the periodic one ran: a run that stops within
    # POLISH_START * n steps is not one of the zigzagging ones it is for
    polish_final = False

    while it < limit:
        counter -= 1
        if counter == 0:
            counter = shrink_every
            level.shift = shift
            if hard:
                level.store(prob)
                if level.idx.size < n:
                    prob.reconstruct(np.setdiff1d(np.arange(n), level.idx))
                _hard_margin_check(prob, R2)
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
                it += _polish(prob, level, alpha, V, POLISH_MAX_FREE)

        i = int(vup.argmax())
        m = float(vup[i])
        if wss2:
            Ai = rows.get(i) if lru else cached.get(i)
            if Ai is None:
                Ai = rows.get(i)
            # j maximises b_it^2 / a_it over t in I_low with b_it = v_i - v_t > 0;
            # the score b |b| / A keeps the sign, so a negative b (and -inf
            # outside I_low) never wins while a positive one exists
            subtract(m, vlow, bb)
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
                    moved = _polish(prob, level, alpha, V, POLISH_MAX_FREE)
                    if moved:
                        it += moved
                        continue
                converged = True
                break
            # converged on the active set: recompute the rest and check them all
            level.shift = shift
            level.store(prob)
            prob.reconstruct(np.setdiff1d(np.arange(n), level.idx))
            level = _Level(prob, np.arange(n), root)
            V, vup, vlow, y, alpha, kd, rows, cached, lru, bb, ba, bt, shift = bind(level)
            if _violation(V)[0] <= tol:
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

        # v -= t (K_i - K_j) = (t/2)(A_i - A_j) - (t/2)(K_ii - K_jj); the constant
        # goes to `shift`; one addition updates both masked copies of v
        # (two contiguous additions are cheaper than one broadcast over the 2 x n V)
        subtract(Ai, Aj, bt)
        multiply(bt, 0.5 * t, bt)
        add(vup, bt, vup)
        add(vlow, bt, vlow)
        shift -= 0.5 * t * (kd[i] - kd[j])
        # refresh I_up / I_low membership of i and j (i was in I_up, j in I_low)
        vi = vup[i]
        vj = vlow[j]
        if yi > 0:
            vup[i] = vi if ai < C else -inf
            vlow[i] = vi if ai > 0 else inf
        else:
            vup[i] = vi if ai > 0 else -inf
            vlow[i] = vi if ai < C else inf
        if yj > 0:
            vup[j] = vj if aj < C else -inf
            vlow[j] = vj if aj > 0 else inf
        else:
            vup[j] = vj if aj > 0 else -inf
            vlow[j] = vj if aj < C else inf
        it += 1

    level.shift = shift
    level.store(prob)
    if level.idx.size < n:
        prob.reconstruct(np.setdiff1d(np.arange(n), level.idx))
    prob.n_rows = root.counter[0]
    return it, converged


# ---------------------------------------------------------------------------
# active-set polishing
# ---------------------------------------------------------------------------


def _free_block(prob, level, free):
    """Kernel block ``K(level, free)`` of shape (n_level, n_free)."""
    spec = prob.spec
    if spec.name == "precomputed":
        return spec.K[np.ix_(level.idx, level.idx[free])]
    X = level.rows.X
    return spec.block(X, X[free])


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
    if prob.spec.name == "linear":
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


def _polish(prob, level, al, V, max_free):
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
    """
    C = prob.C
    alpha = np.array(al)
    free = np.flatnonzero((alpha > 0) & (alpha < C))
    k = free.size
    if k < 2 or k > max_free:
        return 0
    v = _unmask_v(V)
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
            level = _Level(prob, np.arange(n), root)
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
    rows = _Rows(prob.spec, prob.X, level.idx[pos], prob.kdiag, prob.cache_bytes, prob.tau,
                 parent=level.rows, parent_pos=pos, counter=level.rows.counter)
    return _Level(prob, level.idx[pos], rows), unshrunk, True


# ---------------------------------------------------------------------------
# Platt's heuristics
# ---------------------------------------------------------------------------


def _platt(prob, rows, limit, hard, R2):
    r"""Platt's SMO: outer loop over KKT violators, inner choice by :math:`\max|E_1 - E_2|`.

    Errors :math:`E_t = f(\mathbf x_t) + b - y_t = b - v_t`. The example :math:`t` violates
    KKT by more than ``tol`` if :math:`y_tE_t < -\mathrm{tol}` and :math:`\alpha_t < C`, or
    :math:`y_tE_t > \mathrm{tol}` and :math:`\alpha_t > 0`. After each step :math:`b` is set
    so that :math:`E = 0` at a free updated variable (the average of the two
    choices when neither is free), as in Platt's paper. The pass order of the
    fallback scans starts at a random position (fixed seed, reproducible).
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
        # same clipping and snapping to the bounds as in _pairwise
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
        # v -= t (K_p - K_q), written with the cached rows A (see _Rows)
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
            _hard_margin_check(prob, R2)
        if examine_all:
            examine_all = False
        elif n_changed == 0:
            examine_all = True
    prob.n_rows = rows.counter[0]
    converged = state["it"] < limit
    return state["it"], converged
