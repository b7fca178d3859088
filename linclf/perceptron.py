"""The perceptron family: Rosenblatt's rule, voted and averaged perceptrons,
and the multi-class linear machine.

All of them work on augmented weights :math:`\\mathbf{a} = (\\mathbf{w}, b)`
(see :mod:`linclf.geometry`). For two classes a sample counts as a mistake
when its normalised augmented vector :math:`\\mathbf{z}_i = y_i(\\mathbf{x}_i, 1)`
has :math:`\\mathbf{a}^\\top\\mathbf{z}_i \\le \\text{margin}`, and each
correction moves :math:`\\mathbf{a}` towards :math:`\\mathbf{z}_i`. This is
gradient descent on the perceptron criterion
:math:`J_P(\\mathbf{a}) = \\sum_{\\text{mistakes}} (\\text{margin} - \\mathbf{a}^\\top\\mathbf{z}_i)`.
"""

from __future__ import annotations

import numpy as np

from ._params import Callable, Options, validate_params
from ._scan import (
    UNROLL_MAX,
    UNROLL_MAX_ENTRIES,
    MistakeScanner,
    fixed_step_epoch,
    lazy_samples,
)
from ._validation import (
    check_is_fitted,
    check_n_features,
    check_random_state,
    check_X_y,
    encode_binary,
)
from .base import BaseEstimator, ClassifierMixin, LinearClassifierMixin
from .geometry import augment
from .optim import warn_not_converged

__all__ = ["Perceptron", "VotedPerceptron", "AveragedPerceptron", "LinearMachine"]

# shared with linclf.linear_machine (see linclf._perceptron_rules)
from ._perceptron_rules import EPOCHS as _EPOCHS
from ._perceptron_rules import ETA as _ETA
from ._perceptron_rules import INIT as _INIT
from ._perceptron_rules import MARGIN as _MARGIN
from ._perceptron_rules import ORDER as _ORDER
from ._perceptron_rules import RANDOM_STATE as _RANDOM_STATE
from ._perceptron_rules import initial_weights as _initial_weights
from ._perceptron_rules import scale_diagnosis as _scale_diagnosis
from ._perceptron_rules import visit_order as _visit_order
from ._perceptron_rules import warn_if_unseparated as _warn_if_unseparated



class Perceptron(LinearClassifierMixin, BaseEstimator):
    """Rosenblatt's perceptron with the single-sample or batch rule.

    Parameters
    ----------
    rule : {"single", "batch"}, default="single"
        ``"single"``: visit the samples one at a time and correct
        :math:`\\mathbf{a} \\leftarrow \\mathbf{a} + \\eta_t\\,\\mathbf{z}_i` after
        each mistake (fixed-increment rule). ``"batch"``: one correction per
        pass with the sum of all current mistakes,
        :math:`\\mathbf{a} \\leftarrow \\mathbf{a} + \\eta \\sum_{\\text{mistakes}} \\mathbf{z}_i`
        (gradient descent on :math:`J_P`).
    eta : float, default=1.0
        Learning rate :math:`\\eta > 0`.
    margin : float, default=0.0
        A sample is a mistake when :math:`\\mathbf{a}^\\top\\mathbf{z}_i \\le`
        ``margin`` (must be :math:`\\ge 0`). With ``margin=0`` this is the plain
        perceptron; a positive margin keeps the solution away from the edges of
        the solution region.
    step : {"fixed", "absolute"} or callable, default="fixed"
        Step size :math:`\\eta_t` of the single-sample rule. A callable
        ``step(k)`` gives the step :math:`\\eta_k \\ge 0` of the ``k``-th
        correction, ``k = 1, 2, ...`` (the variable-increment rule, e.g.
        ``lambda k: 1 / k``; also with ``rule="batch"``); ``eta`` is then unused.
        ``"fixed"``:
        :math:`\\eta_t = \\eta`. ``"absolute"`` (absolute correction): the step
        that takes :math:`\\mathbf{a}` onto the offending sample's margin
        hyperplane :math:`\\mathbf{a}^\\top\\mathbf{z}_i = \\text{margin}`, plus
        one ordinary step :math:`\\eta` beyond it,

        .. math:: \\eta_t = \\frac{\\text{margin} - \\mathbf{a}^\\top\\mathbf{z}_i}
                               {\\lVert\\mathbf{z}_i\\rVert^2} + \\eta ,

        after which :math:`\\mathbf{a}^\\top\\mathbf{z}_i = \\text{margin} +
        \\eta\\lVert\\mathbf{z}_i\\rVert^2 > \\text{margin}`: the corrected
        sample is always classified correctly. The bare step
        :math:`|\\mathbf{a}^\\top\\mathbf{z}_i| / \\lVert\\mathbf{z}_i\\rVert^2`
        (margin 0) would leave it exactly on the boundary
        :math:`\\mathbf{a}^\\top\\mathbf{z}_i = 0`, which still counts as a
        mistake (and is no step at all from the zero start).
        Only with ``rule="single"``.
    order : {"cyclic", "shuffle"}, default="cyclic"
        Visit the samples in their given order every epoch, or in a fresh
        random permutation per epoch.
    random_state : None, int or numpy Generator, default=None
        Seed for ``order="shuffle"``.
    max_iter : int, default=1000
        Maximum number of epochs (passes over the data). Training stops at the
        first epoch without a mistake; if none comes a
        :class:`~linclf.ConvergenceWarning` is issued (the data are probably
        not linearly separable with this margin).
    w_init : array_like of shape (n_features,) or None, default=None
        Starting weights; ``None`` means the zero vector.
    b_init : float, default=0.0
        Starting intercept.
    trace : bool, default=False
        Record every correction in ``updates_``. Off by default: on data that
        are not separable a run makes up to ``max_iter`` times N corrections,
        and a fitted model should not grow with ``max_iter``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    updates_ : list of dict
        Only with ``trace=True``. One dict per correction, in order: ``step``
        (1-based count), ``index`` (index of the corrected sample; for
        ``rule="batch"`` an integer array of all mistakes of that pass), ``w``
        (weights after the update) and ``b`` (intercept after the update).
    n_updates_ : int
    n_iter_ : int
        Epochs run (including the final mistake-free one if it converged).
    converged_ : bool
    n_features_in_ : int

    Examples
    --------
    The worked example: :math:`x_1=(3,3), x_2=(4,3)` positive, :math:`x_3=(1,1)`
    negative.

    >>> from linclf.datasets import perceptron_example
    >>> X, y = perceptron_example()
    >>> clf = Perceptron().fit(X, y)
    >>> clf.coef_, clf.intercept_, clf.n_updates_
    (array([[1., 1.]]), array([-3.]), 7)
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    def __init__(
        self,
        *,
        rule="single",
        eta=1.0,
        margin=0.0,
        step="fixed",
        order="cyclic",
        random_state=None,
        max_iter=1000,
        w_init=None,
        b_init=0.0,
        trace=False,
    ):
        self.rule = rule
        self.eta = eta
        self.margin = margin
        self.step = step
        self.order = order
        self.random_state = random_state
        self.max_iter = max_iter
        self.w_init = w_init
        self.b_init = b_init
        self.trace = trace

    _parameter_constraints = {
        "rule": [Options("single", "batch")],
        "step": [Options("fixed", "absolute"), Callable()],
        "order": _ORDER,
        "eta": _ETA,
        "margin": _MARGIN,
        "max_iter": _EPOCHS,
        "random_state": _RANDOM_STATE,
        "trace": [Options(True, False)],
        **_INIT,
    }

    def _validate_params(self):
        max_iter = validate_params(self)["max_iter"]
        if self.rule == "batch" and self.step == "absolute":
            raise ValueError('Perceptron: step="absolute" is defined for rule="single" only.')
        return max_iter

    def fit(self, X, y):
        """Run the perceptron rule until an epoch makes no mistake.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        max_iter = self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator="Perceptron")
        Z = augment(X) * y_pm[:, None]
        a = _initial_weights(self.w_init, self.b_init, X.shape[1])
        rng = check_random_state(self.random_state)

        if self.trace:
            self.updates_ = []
        elif "updates_" in self.__dict__:
            del self.updates_  # a refit without trace keeps no stale record
        self.n_updates_ = 0
        run = self._run_batch if self.rule == "batch" else self._run_single
        a, self.n_iter_, self.converged_ = run(Z, a, max_iter, rng)
        if not self.converged_:
            diagnosis = _scale_diagnosis(X)
            warn_not_converged(
                "Perceptron",
                max_iter,
                f"{self._count_mistakes(Z, a)} of {Z.shape[0]} samples still have "
                f"a^T z <= margin: it stopped without separating them ("
                + (f"{diagnosis}. Standardise the features (e.g. StandardScaler) before fitting"
                   if diagnosis else "data not linearly separable?") + ")",
            )
        self.n_features_in_ = X.shape[1]
        self.coef_ = a[None, :-1].copy()
        self.intercept_ = a[-1:].copy()
        return self

    def _record(self, index, a):
        self.n_updates_ += 1
        if self.trace:
            self.updates_.append(
                {"step": self.n_updates_, "index": index, "w": a[:-1].copy(), "b": float(a[-1])}
            )

    def _count_mistakes(self, Z, a):
        return int(np.sum(Z @ a <= self.margin))

    def _step_size(self, a, z):
        if callable(self.step):  # the k-th correction gets step(k)
            eta_k = float(self.step(self.n_updates_ + 1))
            if not (np.isfinite(eta_k) and eta_k >= 0):
                raise ValueError(f"Perceptron: step(k) must be finite and >= 0; got {eta_k!r}.")
            return eta_k
        if self.step == "fixed":
            return self.eta
        # reach the sample's margin hyperplane, then one fixed step past it
        return (self.margin - a @ z) / (z @ z) + self.eta

    def _run_single(self, Z, a, max_iter, rng):
        max_norm = float(np.sqrt(np.einsum("ij,ij->i", Z, Z).max()))
        rows, dense = list(Z), False  # row views, rebuilt only when the order changes
        # few weights: dense epochs run on Python floats, from the rows as tuples,
        # built at the first such epoch and kept while the order stays
        few = Z.shape[1] <= UNROLL_MAX and Z.size <= UNROLL_MAX_ENTRIES
        samples = lazy_samples(Z, rows) if few else None
        for epoch in range(1, max_iter + 1):
            idx = _visit_order(Z.shape[0], self.order, rng)
            Zo = Z
            if self.order == "shuffle":
                Zo = Z[idx]
                rows = list(Zo)
                samples = lazy_samples(Zo, rows) if few else None
            if self.step == "fixed" and not self.trace:  # the common case (see linclf._scan)
                a, wrong = fixed_step_epoch(Zo, rows, a, self.eta, self.margin, max_norm, dense,
                                            samples)
                self.n_updates_, dense = self.n_updates_ + wrong, 4 * wrong > Zo.shape[0]
                if wrong == 0:
                    return a, epoch, True
                continue
            scan, k, clean = MistakeScanner(Zo, self.margin, max_norm, rows), -1, True
            while (k := scan.next_mistake(a, k + 1)) < Zo.shape[0]:
                clean = False
                a = a + self._step_size(a, Zo[k]) * Zo[k]
                self._record(int(idx[k]), a)
            if clean:
                return a, epoch, True
        return a, max_iter, False

    def _run_batch(self, Z, a, max_iter, rng):
        for epoch in range(1, max_iter + 1):
            wrong = np.flatnonzero(Z @ a <= self.margin)
            if wrong.size == 0:
                return a, epoch, True
            a = a + self._step_size(a, Z[wrong[0]]) * Z[wrong].sum(axis=0)
            self._record(wrong, a)
        return a, max_iter, self._count_mistakes(Z, a) == 0


def _survivor_run(Z, eta, margin, order, rng, n_epochs, keep=True):
    """Single-sample perceptron that keeps every weight vector it visits.

    Returns the augmented weight vectors ``A`` (one per row) and their survival
    counts ``c``: the number of samples each vector handled (the correction
    that created it included) before the next mistake replaced it. With
    ``keep=False`` only the running sum :math:`\\sum_m c_m\\mathbf a_{(m)}` is kept,
    and the average is returned as one vector with count :math:`\\sum_m c_m`.
    """
    a, total, c = np.zeros(Z.shape[1]), np.zeros(Z.shape[1]), 0
    vectors, counts = [], []
    for _ in range(n_epochs):
        for i in _visit_order(Z.shape[0], order, rng):
            if a @ Z[i] <= margin:
                if keep:
                    vectors.append(a)
                    counts.append(c)
                else:
                    total += c * a
                a = a + eta * Z[i]
                c = 1
            else:
                c += 1
    if not keep:
        visits = float(n_epochs * Z.shape[0])     # the average, weighing all the visits
        return ((total + c * a) / visits)[None, :], np.array([visits])
    vectors.append(a)
    counts.append(c)
    A, c = np.array(vectors), np.array(counts, dtype=float)
    return A[c > 0], c[c > 0]  # a vector replaced before it classified anything gets no vote


class _SurvivorMixin(BaseEstimator):
    """Shared parameters and training of the voted and averaged perceptrons."""

    _parameter_constraints = {
        "eta": _ETA, "margin": _MARGIN, "order": _ORDER,
        "random_state": _RANDOM_STATE, "max_iter": _EPOCHS,
    }

    def __init__(self, *, eta=1.0, margin=0.0, order="cyclic", random_state=None, max_iter=10):
        self.eta = eta
        self.margin = margin
        self.order = order
        self.random_state = random_state
        self.max_iter = max_iter

    def _fit_survivors(self, X, y, keep=True):
        n_epochs = validate_params(self)["max_iter"]
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator=type(self).__name__)
        Z, rng = augment(X) * y_pm[:, None], check_random_state(self.random_state)
        A, c = _survivor_run(Z, self.eta, self.margin, self.order, rng, n_epochs, keep=keep)
        for name in ("coefs_", "intercepts_", "survival_counts_"):
            self.__dict__.pop(name, None)          # a refit without trace keeps none stale
        if keep:
            self.coefs_, self.intercepts_, self.survival_counts_ = A[:, :-1], A[:, -1], c
        self.n_iter_ = n_epochs
        self.n_features_in_ = X.shape[1]
        return A, c, X, y_pm

    def _check_result(self, X, y_pm, positive_score):
        """Warn (see :func:`linclf._perceptron_rules.warn_if_unseparated`) from the training scores."""
        n_errors = int(np.sum(positive_score != (y_pm > 0)))
        _warn_if_unseparated(type(self).__name__, self.n_iter_, X, n_errors,
                             int(min(np.sum(y_pm > 0), np.sum(y_pm < 0))))


class VotedPerceptron(ClassifierMixin, _SurvivorMixin):
    """Freund and Schapire's voted perceptron.

    The single-sample perceptron runs for ``max_iter`` full epochs and keeps
    every weight vector :math:`(\\mathbf{w}_{(m)}, b_{(m)})` it passes through, with its
    survival count :math:`s_m` (how many samples it handled before the next
    mistake). Each vector then casts :math:`s_m` votes:

    .. math:: f(\\mathbf{x}) = \\sum_m s_m \\operatorname{sign}(\\mathbf{w}_{(m)}^\\top\\mathbf{x} + b_{(m)}),

    and ``classes_[1]`` is predicted where :math:`f(\\mathbf{x}) > 0`.

    Parameters
    ----------
    eta : float, default=1.0
        Learning rate (from a zero start it only rescales every vector, so it
        does not change the predictions).
    margin : float, default=0.0
        Mistake when :math:`\\mathbf{a}^\\top\\mathbf{z}_i \\le` ``margin``.
    order : {"cyclic", "shuffle"}, default="cyclic"
    random_state : None, int or numpy Generator, default=None
    max_iter : int, default=10
        Number of epochs; all of them are run (no early stop). A run whose
        model still misclassifies training samples warns only when that is
        likely a mistake: the inputs' scales differ by more than a factor
        of 100, or the model does no better than the majority class.

    Attributes
    ----------
    coefs_ : ndarray of shape (n_vectors, n_features)
    intercepts_ : ndarray of shape (n_vectors,)
    survival_counts_ : ndarray of shape (n_vectors,)
        :math:`s_m`; they sum to ``max_iter * n_samples``.
    classes_, n_iter_, n_features_in_
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    def fit(self, X, y):
        """Train and store every intermediate weight vector.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        _, _, X, y_pm = self._fit_survivors(X, y)
        self._check_result(X, y_pm, np.sign(X @ self.coefs_.T + self.intercepts_)
                           @ self.survival_counts_ > 0)
        return self

    def decision_function(self, X):
        """The vote :math:`\\sum_m s_m \\operatorname{sign}(\\mathbf{w}_{(m)}^\\top\\mathbf{x} + b_{(m)})`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "coefs_")
        X = check_n_features(self, X)
        return np.sign(X @ self.coefs_.T + self.intercepts_) @ self.survival_counts_

    def predict(self, X):
        """``classes_[1]`` where the vote is positive, else ``classes_[0]``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]


class AveragedPerceptron(LinearClassifierMixin, _SurvivorMixin):
    """The averaged perceptron: one linear rule from the survival-weighted mean.

    Trains like :class:`VotedPerceptron` and then replaces the vote by the
    average weight vector

    .. math:: \\bar{\\mathbf{a}} = \\frac{\\sum_m s_m \\mathbf{a}_{(m)}}{\\sum_m s_m},

    which equals the average of the weight vector over all ``max_iter *
    n_samples`` visits. It is linear, so ``coef_``/``intercept_`` exist.

    Parameters
    ----------
    eta, margin, order, random_state, max_iter
        As in :class:`VotedPerceptron`.
    trace : bool, default=False
        Also keep every intermediate vector and its survival count. Without it
        only the running sum :math:`\\sum_m s_m\\mathbf{a}_{(m)}` is kept.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    coefs_, intercepts_, survival_counts_
        With ``trace=True`` only: the intermediate vectors and their weights.
    classes_, n_iter_, n_features_in_
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    _parameter_constraints = {**_SurvivorMixin._parameter_constraints, "trace": [Options(True, False)]}

    def __init__(self, *, eta=1.0, margin=0.0, order="cyclic", random_state=None, max_iter=10,
                 trace=False):
        super().__init__(eta=eta, margin=margin, order=order, random_state=random_state,
                         max_iter=max_iter)
        self.trace = trace

    def fit(self, X, y):
        """Train and average the intermediate weight vectors.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        A, c, X, y_pm = self._fit_survivors(X, y, keep=validate_params(self)["trace"])
        mean = (c / c.sum()) @ A
        self.coef_, self.intercept_ = mean[None, :-1], mean[-1:]
        self._check_result(X, y_pm, X @ mean[:-1] + mean[-1] > 0)
        return self


from .linear_machine import LinearMachine  # noqa: E402  (re-exported: one import for the family)
