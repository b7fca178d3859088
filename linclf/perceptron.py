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

from ._params import ArrayLike, Callable, Instance, Interval, Options, validate_params
from ._scan import MistakeScanner, fixed_step_epoch
from ._validation import (
    check_is_fitted,
    check_n_features,
    check_random_state,
    check_X_y,
    encode_binary,
    encode_labels,
)
from .base import BaseEstimator, ClassifierMixin, LinearClassifierMixin, binary_decision
from .geometry import augment
from .optim import warn_not_converged

__all__ = ["Perceptron", "VotedPerceptron", "AveragedPerceptron", "LinearMachine"]


# What every perceptron variant accepts (validated by linclf._params.validate_params).
_ETA = [Interval("real", 0, None, closed="neither")]
_MARGIN = [Interval("real", 0, None)]
_ORDER = [Options("cyclic", "shuffle")]
_RANDOM_STATE = [Options(None), Interval("integer", 0, None),
                 Instance(np.random.Generator, np.random.RandomState)]
_EPOCHS = [Interval("integer", 1, None)]
_INIT = {"w_init": [Options(None), ArrayLike()], "b_init": [Interval("real")]}


def _visit_order(n, order, rng):
    """Sample indices for one epoch: ``0..n-1`` or a fresh permutation."""
    return rng.permutation(n) if order == "shuffle" else np.arange(n)


def _initial_weights(w_init, b_init, n_features):
    if w_init is None:
        w = np.zeros(n_features)
    else:
        w = np.asarray(w_init, dtype=float).ravel()
        if w.shape[0] != n_features or not np.all(np.isfinite(w)):
            raise ValueError(
                f"w_init must be {n_features} finite numbers (one per feature); "
                f"got {np.asarray(w_init).tolist()!r}."
            )
    return np.append(w, float(b_init))  # b_init: checked by validate_params


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
        X, y = check_X_y(X, y)
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
            warn_not_converged(
                "Perceptron",
                max_iter,
                f"{self._count_mistakes(Z, a)} of {Z.shape[0]} samples still have "
                f"a^T z <= margin (data not linearly separable?)",
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
        for epoch in range(1, max_iter + 1):
            idx = _visit_order(Z.shape[0], self.order, rng)
            Zo, rows = (Z, rows) if self.order != "shuffle" else (Z[idx], list(Z[idx]))
            if self.step == "fixed" and not self.trace:  # the common case (see linclf._scan)
                a, wrong = fixed_step_epoch(Zo, rows, a, self.eta, self.margin, max_norm, dense)
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


def _survivor_run(Z, eta, margin, order, rng, n_epochs):
    """Single-sample perceptron that keeps every weight vector it visits.

    Returns the augmented weight vectors ``A`` (one per row) and their survival
    counts ``c``: the number of samples each vector handled (the correction
    that created it included) before the next mistake replaced it.
    """
    a = np.zeros(Z.shape[1])
    vectors, counts = [], []
    c = 0
    for _ in range(n_epochs):
        for i in _visit_order(Z.shape[0], order, rng):
            if a @ Z[i] <= margin:
                vectors.append(a)
                counts.append(c)
                a = a + eta * Z[i]
                c = 1
            else:
                c += 1
    vectors.append(a)
    counts.append(c)
    A, c = np.array(vectors), np.array(counts, dtype=float)
    keep = c > 0  # a vector replaced before it classified anything gets no vote
    return A[keep], c[keep]


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

    def _fit_survivors(self, X, y):
        n_epochs = validate_params(self)["max_iter"]
        X, y = check_X_y(X, y)
        self.classes_, y_pm = encode_binary(y, estimator=type(self).__name__)
        Z = augment(X) * y_pm[:, None]
        rng = check_random_state(self.random_state)
        A, c = _survivor_run(Z, self.eta, self.margin, self.order, rng, n_epochs)
        self.coefs_ = A[:, :-1]
        self.intercepts_ = A[:, -1]
        self.survival_counts_ = c
        self.n_iter_ = n_epochs
        self.n_features_in_ = X.shape[1]
        return self


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
        Number of epochs; all of them are run (no early stop, no warning).

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
        return self._fit_survivors(X, y)

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

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    coefs_, intercepts_, survival_counts_
        The intermediate vectors and their weights.
    classes_, n_iter_, n_features_in_
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

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
        self._fit_survivors(X, y)
        weights = self.survival_counts_ / self.survival_counts_.sum()
        self.coef_ = (weights @ self.coefs_)[None, :]
        self.intercept_ = np.array([weights @ self.intercepts_])
        return self


class LinearMachine(LinearClassifierMixin, BaseEstimator):
    """Multi-class linear machine trained by incremental correction.

    One discriminant per class, :math:`g_j(\\mathbf{x}) = \\mathbf{a}_j^\\top\\hat{\\mathbf{x}}`
    with :math:`\\hat{\\mathbf{x}} = (\\mathbf{x}, 1)`, and the largest wins. A
    sample of class :math:`t` is a mistake when some rival :math:`j \\ne t` has
    :math:`g_j(\\mathbf{x}) \\ge g_t(\\mathbf{x}) - \\text{margin}` (ties count
    as mistakes, so the zero start is corrected). Then

    * ``update="max"``: with :math:`j` the highest-scoring rival,
      :math:`\\mathbf{a}_t \\mathrel{+}= \\eta\\hat{\\mathbf{x}}` and
      :math:`\\mathbf{a}_j \\mathrel{-}= \\eta\\hat{\\mathbf{x}}`;
    * ``update="all"``: every rival :math:`j` in the offending set :math:`R`
      gets :math:`\\mathbf{a}_j \\mathrel{-}= \\eta\\hat{\\mathbf{x}}` and
      :math:`\\mathbf{a}_t \\mathrel{+}= \\eta|R|\\hat{\\mathbf{x}}` (the pairwise
      correction applied to every violated pair at once).

    Either way :math:`\\sum_j \\mathbf{a}_j` stays zero from the zero start. On
    linearly separable data the rule stops after finitely many corrections; it
    never produces ambiguous regions (the argmax always picks one class).

    Parameters
    ----------
    eta : float, default=1.0
    margin : float, default=0.0
    update : {"max", "all"}, default="max"
    order : {"cyclic", "shuffle"}, default="cyclic"
    random_state : None, int or numpy Generator, default=None
    max_iter : int, default=1000
        Maximum epochs; a :class:`~linclf.ConvergenceWarning` if an epoch
        without mistakes never comes.
    trace : bool, default=False
        Record every correction in ``updates_``.

    Attributes
    ----------
    classes_ : ndarray of shape (k,)
    coef_ : ndarray of shape (k, n_features)
        Row :math:`j` is :math:`\\mathbf{w}_j` (also for :math:`k = 2`).
    intercept_ : ndarray of shape (k,)
    updates_ : list of dict
        Only with ``trace=True``: ``step``, ``index`` (the sample), ``rivals``
        (the rival classes corrected), ``w`` (shape (k, n_features)) and ``b``
        (shape (k,)), the weights after each correction.
    n_updates_, n_iter_, converged_, n_features_in_
    """

    _parameter_constraints = {
        "eta": _ETA, "margin": _MARGIN, "update": [Options("max", "all")], "order": _ORDER,
        "random_state": _RANDOM_STATE, "max_iter": _EPOCHS, "trace": [Options(True, False)],
    }

    def __init__(self, *, eta=1.0, margin=0.0, update="max", order="cyclic", random_state=None,
                 max_iter=1000, trace=False):
        self.eta = eta
        self.margin = margin
        self.update = update
        self.order = order
        self.random_state = random_state
        self.max_iter = max_iter
        self.trace = trace

    def fit(self, X, y):
        """Correct the class weight vectors until an epoch makes no mistake.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two or more classes

        Returns
        -------
        self
        """
        max_iter = validate_params(self)["max_iter"]
        X, y = check_X_y(X, y)
        self.classes_, t = encode_labels(y, estimator="LinearMachine")
        X_hat = augment(X)
        A = np.zeros((self.classes_.shape[0], X_hat.shape[1]))
        rng = check_random_state(self.random_state)

        self.n_updates_ = 0
        self.converged_ = False
        self.__dict__.pop("updates_", None)
        if self.trace:
            self.updates_ = []
        for epoch in range(1, max_iter + 1):
            clean = True
            for i in _visit_order(X_hat.shape[0], self.order, rng):
                clean &= not self._correct(A, X_hat[i], t[i], int(i))
            if clean:
                self.converged_ = True
                break
        self.n_iter_ = epoch
        if not self.converged_:
            warn_not_converged("LinearMachine", max_iter, "the classes may not be linearly separable")
        self.n_features_in_ = X.shape[1]
        self.coef_ = A[:, :-1].copy()
        self.intercept_ = A[:, -1].copy()
        return self

    def _correct(self, A, x_hat, t, index):
        """Apply one incremental correction in place; return whether one was needed."""
        g = A @ x_hat
        rivals = np.flatnonzero(g >= g[t] - self.margin)
        rivals = rivals[rivals != t]
        if rivals.size == 0:
            return False
        if self.update == "max":
            rivals = rivals[[np.argmax(g[rivals])]]
        A[rivals] -= self.eta * x_hat
        A[t] += self.eta * rivals.size * x_hat
        self.n_updates_ += 1
        if self.trace:
            self.updates_.append({"step": self.n_updates_, "index": index, "rivals": rivals.copy(),
                                  "w": A[:, :-1].copy(), "b": A[:, -1].copy()})
        return True

    def decision_function(self, X):
        """Class scores :math:`f_k(\\mathbf{x})`, shape (n_samples, c).

        For two classes the binary convention is used instead: the single
        column :math:`f_1(\\mathbf{x}) - f_0(\\mathbf{x})`, shape (n_samples,),
        positive where ``classes_[1]`` wins.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, c)
        """
        return binary_decision(super().decision_function(X))
