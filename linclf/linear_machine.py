"""The multi-class linear machine, trained by incremental correction (Kesler's construction).

Re-exported by :mod:`linclf.perceptron`, whose two-class rule it generalises.
"""

from __future__ import annotations

import numpy as np

from ._params import Options, validate_params
from ._perceptron_rules import EPOCHS as _EPOCHS
from ._perceptron_rules import ETA as _ETA
from ._perceptron_rules import MARGIN as _MARGIN
from ._perceptron_rules import ORDER as _ORDER
from ._perceptron_rules import RANDOM_STATE as _RANDOM_STATE
from ._perceptron_rules import visit_order as _visit_order
from ._validation import check_random_state, check_X_y, encode_labels
from .base import BaseEstimator, LinearClassifierMixin, binary_decision
from .geometry import augment
from .optim import warn_not_converged

__all__ = ["LinearMachine"]


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
        X, y = check_X_y(X, y, estimator=self)
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
