"""Gallant's pocket algorithm: a perceptron that keeps its best weights.

On data that are not linearly separable the perceptron rule never settles,
and where it stands when it is stopped is a matter of luck. The pocket
algorithm (Gallant, 1990) runs the same rule but keeps "in its pocket" the
weight vector with the fewest training errors seen so far, and returns that
one. This module keeps the error test of Gallant's *ratchet* on its own:
after every correction the new weights' training errors are counted on the
whole training set, and they replace the pocket only when there are strictly
fewer. (Gallant's pocket first asks for a longer run of consecutive correct
classifications; the ratchet adds the error test.) The pocket is therefore
the iterate of the run with the fewest training errors.
"""

from __future__ import annotations

import numpy as np

from ._params import Instance, Interval, Options, validate_params
from ._validation import check_random_state, check_X_y, encode_binary
from .base import BaseEstimator, LinearClassifierMixin
from ._perceptron_rules import warn_if_unseparated
from .geometry import augment

__all__ = ["PocketPerceptron"]


class PocketPerceptron(LinearClassifierMixin, BaseEstimator):
    """The perceptron with a pocket: returns the iterate with the fewest training errors.

    The fixed-increment rule :math:`\\mathbf{a} \\leftarrow \\mathbf{a} + \\eta\\,\\mathbf{z}_i`
    is applied whenever :math:`\\mathbf{a}^\\top\\mathbf{z}_i \\le 0`, exactly as in
    :class:`~linclf.Perceptron`. After every correction the number of training
    samples the current weights misclassify is counted (a sample is
    misclassified when ``predict`` gets it wrong: score :math:`> 0` predicts
    ``classes_[1]``), and the weights are copied into the pocket when they make
    strictly fewer errors than the pocket's. The start :math:`\\mathbf{a} = \\mathbf{0}`
    is the first pocket. Training stops when the pocket has no error or after
    ``max_iter`` epochs. On data that are not separable that is the normal
    end, with no warning, unless it is likely a mistake: the inputs' scales
    differ by more than a factor of 100 (standardise them), or the pocket
    does no better than always predicting the majority class.

    Parameters
    ----------
    eta : float, default=1.0
        Learning rate :math:`\\eta > 0`. From the zero start it only rescales every
        iterate, so it changes neither the errors nor the predictions.
    order : {"shuffle", "cyclic"}, default="shuffle"
        Visit the samples in a fresh random permutation per epoch (Gallant's
        guarantee assumes random visits) or in their given order.
    random_state : None, int or numpy Generator, default=None
        Seed for ``order="shuffle"``. Fitting with the same integer seed gives
        the same run as :class:`~linclf.Perceptron` with ``order="shuffle"`` and
        that seed.
    max_iter : int, default=100
        Number of epochs (passes over the data).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
        The pocket's weights :math:`\\mathbf{w}`.
    intercept_ : ndarray of shape (1,)
        The pocket's intercept :math:`b`.
    n_errors_ : int
        Training errors of the pocket (of ``coef_``, ``intercept_``).
    last_coef_ : ndarray of shape (1, n_features)
    last_intercept_ : ndarray of shape (1,)
        The last iterate of the perceptron run (what :class:`~linclf.Perceptron`
        would return).
    errors_ : ndarray of shape (n_iter_,)
        Training errors of the running weights at the end of each epoch.
    pocket_errors_ : ndarray of shape (n_iter_,)
        Training errors of the pocket at the end of each epoch (non-increasing).
    n_updates_ : int
        Corrections made by the perceptron rule.
    n_pocket_updates_ : int
        How often the pocket was replaced.
    n_iter_ : int
        Epochs run (the last one possibly cut short when the pocket reached
        zero errors).
    converged_ : bool
        Whether the pocket separates the training data.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from linclf.datasets import make_gaussian_classes
    >>> X, y = make_gaussian_classes(200, [[0, 0], [1.5, 1.5]], random_state=0)
    >>> clf = PocketPerceptron(random_state=0, max_iter=20).fit(X, y)
    >>> bool(clf.n_errors_ == np.sum(clf.predict(X) != y))
    True
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    _parameter_constraints = {
        "eta": [Interval("real", 0, None, closed="neither")],
        "order": [Options("shuffle", "cyclic")],
        "random_state": [Options(None), Interval("integer", 0, None),
                         Instance(np.random.Generator, np.random.RandomState)],
        "max_iter": [Interval("integer", 1, None)],
    }

    def __init__(self, *, eta=1.0, order="shuffle", random_state=None, max_iter=100):
        self.eta = eta
        self.order = order
        self.random_state = random_state
        self.max_iter = max_iter

    def fit(self, X, y):
        """Run the perceptron rule and keep the weights with the fewest training errors.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,), two distinct labels

        Returns
        -------
        self
        """
        params = validate_params(self)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator="PocketPerceptron")
        X_tilde = augment(X)
        Z = X_tilde * y_pm[:, None]
        positive = y_pm > 0
        rng = check_random_state(self.random_state)

        def n_errors(a):
            return int(np.sum((X_tilde @ a > 0) != positive))

        a = np.zeros(X_tilde.shape[1])
        pocket, pocket_errors = a.copy(), n_errors(a)
        errors, best = [], []
        self.n_updates_ = self.n_pocket_updates_ = 0
        for epoch in range(1, params["max_iter"] + 1):
            order = rng.permutation(len(Z)) if self.order == "shuffle" else range(len(Z))
            for i in order:
                if a @ Z[i] > 0:
                    continue
                a = a + params["eta"] * Z[i]
                self.n_updates_ += 1
                current = n_errors(a)
                if current < pocket_errors:
                    pocket, pocket_errors = a.copy(), current
                    self.n_pocket_updates_ += 1
                    if pocket_errors == 0:
                        break
            errors.append(n_errors(a))
            best.append(pocket_errors)
            if pocket_errors == 0:
                break

        self.n_iter_ = epoch
        self.converged_ = pocket_errors == 0
        self.n_errors_ = pocket_errors
        self.errors_ = np.array(errors)
        self.pocket_errors_ = np.array(best)
        self.n_features_in_ = X.shape[1]
        self.coef_, self.intercept_ = pocket[None, :-1].copy(), pocket[-1:].copy()
        self.last_coef_, self.last_intercept_ = a[None, :-1].copy(), a[-1:].copy()
        warn_if_unseparated("PocketPerceptron", params["max_iter"], X, pocket_errors,
                            int(min(np.sum(positive), np.sum(~positive))))
        return self
