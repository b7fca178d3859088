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

**Bounded cost.** ``tol`` is raised to what float64 can resolve,
:math:`64\,\epsilon\,(1 + \max_iK_{ii}\sum_t\alpha_t)` (the size of the terms whose
difference :math:`m - M` is), so a ``tol`` of ``1e-15`` cannot keep the solver
chasing rounding errors; the pairwise loop stops, not converged, when the dual
objective has not decreased by more than its rounding error over
:math:`\max(20\,000, 10N)` steps (a stall); and ``max_iter=-1`` means
:math:`\max(10^5, 1000N)` steps (:func:`.state.default_budget`), which bounds the
ill-conditioned problems (a poly kernel on offset data, a huge ``C``) to seconds
on a few hundred points.

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
:math:`F` is minimised directly (:func:`polish`: a small dense linear system, steps
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

**Where things are.** :mod:`linclf.smo.reference`: the book's SMO (chapter 10),
readable, in the chapter's notation; :mod:`.solver`: :func:`smo_solve`;
:mod:`.pairwise`: the ``"wss2"``/``"mvp"`` main loop with shrinking;
:mod:`.platt`: Platt's heuristics; :mod:`.polish`: active-set polishing;
:mod:`.rows`: the kernel-row cache; :mod:`.state`: constants, result, shared state.

**Dictionary to the book's notation** (chapter 10; ``E``, :math:`\kappa`, :math:`L`, :math:`H`):

=====================================  ===================================================
fast solver (libsvm's symbols)         book (chapter 10, :mod:`linclf.smo.reference`)
=====================================  ===================================================
:math:`f(\boldsymbol\alpha)`           :math:`\Psi(\boldsymbol\alpha) = -W(\boldsymbol\alpha)`, the dual minimised
:math:`v_t = -y_t\nabla_t f`           :math:`b - E_t`, with :math:`E_t = f(\mathbf x_t) - y_t` (score minus label)
:math:`m(\boldsymbol\alpha) - M(\boldsymbol\alpha)`  :math:`\max_{I_\text{low}} E - \min_{I_\text{up}} E`, the stopping gap
:math:`b_{ij} = v_i - v_j`             :math:`E_j - E_i` (libsvm's name; *not* the intercept :math:`b`)
:math:`a_{ij}`                         :math:`\kappa = K_{11} + K_{22} - 2K_{12}` for the pair (1, 2) = (i, j)
:math:`A_{rt} = a_{rt} + \tau`         the cached curvature rows (:class:`.rows.CurvatureRows`)
step :math:`t`, cut at the room        :math:`y_2(\alpha_2^\text{new} - \alpha_2)` clipped to :math:`[L, H]`
intercept: mean of free :math:`v_t`    :math:`b` (the threshold update, averaged at the end)
=====================================  ===================================================
"""

from .reference import (
    SMOState,
    book_smo,
    clip,
    segment_bounds,
    take_step,
    threshold,
    working_pair,
)
from .solver import smo_solve
from .state import SELECTIONS, TAU, NotSeparableError, SMOResult

__all__ = [
    "smo_solve", "SMOResult", "NotSeparableError", "SELECTIONS", "TAU",
    "book_smo", "SMOState", "segment_bounds", "clip", "threshold", "working_pair", "take_step",
]
