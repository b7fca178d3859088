"""Multi-class classification from binary classifiers.

* :class:`OneVsRest`: :math:`k` binary classifiers, "class :math:`j` against
  all the others", combined by the largest decision value.
* :class:`OneVsOne`: :math:`k(k-1)/2` classifiers, one per pair of classes,
  combined by majority vote.

Used as plain sign rules, both leave *ambiguous regions*: for one-vs-rest the
points that no classifier or several classifiers claim, for one-vs-one the
points where the vote ties. :meth:`OneVsRest.ambiguity`,
:meth:`OneVsOne.ambiguity` and :func:`ambiguous_fraction` measure them. A
linear machine (one discriminant per class, argmax) has none.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_is_fitted, check_n_features, check_X_y, encode_labels
from .base import BaseEstimator, ClassifierMixin, binary_decision

__all__ = ["OneVsRest", "OneVsOne", "ambiguous_fraction", "clone_estimator"]


def clone_estimator(estimator):
    """A fresh, unfitted copy with the same constructor parameters.

    Parameters
    ----------
    estimator : object with ``get_params``

    Returns
    -------
    object of the same type
    """
    if not hasattr(estimator, "get_params") or isinstance(estimator, type):
        raise TypeError(
            f"estimator must be an estimator instance with get_params(); got {estimator!r}."
        )
    return type(estimator)(**estimator.get_params(deep=False))


def _binary_scores(estimator, X):
    """Real-valued scores of a fitted binary estimator, positive for ``classes_[1]``."""
    if hasattr(estimator, "decision_function"):
        return np.asarray(estimator.decision_function(X), dtype=float).ravel()
    raise TypeError(f"{type(estimator).__name__} has no decision_function; it cannot be combined.")


class _if_base_has:
    """Decorator: the method exists only if the wrapped ``estimator`` has ``name``.

    Like scikit-learn's ``available_if``: ``hasattr(model, "predict_proba")``
    is then ``False`` for a wrapper around a classifier without probabilities,
    and calling it raises an ``AttributeError`` that says why.
    """

    def __init__(self, name):
        self.name = name

    def __call__(self, fn):
        name = self.name

        class _Method:
            __doc__ = fn.__doc__

            def __get__(self, obj, owner=None):
                if obj is None:
                    return fn
                if not hasattr(obj.estimator, name):
                    raise AttributeError(
                        f"{type(obj).__name__} has no {name}() because its estimator "
                        f"{type(obj.estimator).__name__} has none."
                    )
                return fn.__get__(obj, owner)

        return _Method()


def _check_estimator(estimator):
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
        raise TypeError(
            f"estimator must be a classifier instance with fit() and get_params(); got {estimator!r}."
        )
    # Checked before fitting: the scores are only combined at predict time,
    # and a wrapper that fits and then cannot predict wastes every fit.
    if not hasattr(estimator, "decision_function"):
        raise TypeError(
            f"estimator {type(estimator).__name__} has no decision_function; OneVsRest and "
            "OneVsOne combine real-valued scores, so they need a classifier that has one."
        )


class OneVsRest(ClassifierMixin, BaseEstimator):
    """One binary classifier per class, "class :math:`j`" (+1) against "the rest" (-1).

    Prediction takes the class whose classifier gives the largest decision
    value :math:`g_j(\\mathbf{x})` (which assumes the scores are comparable).
    The plain sign rule "the class whose classifier says yes" is ambiguous where
    zero or two or more classifiers say yes; see :meth:`ambiguity`.

    Parameters
    ----------
    estimator : binary classifier instance
        Copied (by its parameters) once per class; the instance itself is
        never fitted.

    Attributes
    ----------
    classes_ : ndarray of shape (k,)
    estimators_ : list of k fitted estimators
        ``estimators_[j]`` separates ``classes_[j]`` (its label 1) from the
        rest (its label -1).
    n_features_in_ : int
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        """Fit one "class j vs rest" copy of ``estimator`` per class.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        _check_estimator(self.estimator)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_index = encode_labels(y, estimator="OneVsRest")
        self.estimators_ = [
            clone_estimator(self.estimator).fit(X, np.where(y_index == j, 1, -1))
            for j in range(self.classes_.shape[0])
        ]
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X):
        """Scores :math:`f_k(\\mathbf{x})`, one column per class.

        For two classes the binary convention of every linclf classifier is
        used instead: :math:`f_1(\\mathbf{x}) - f_0(\\mathbf{x})`, positive where
        ``classes_[1]`` wins.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, c)
        """
        return binary_decision(self._class_scores(X))

    def _class_scores(self, X):
        check_is_fitted(self, "estimators_")
        X = check_n_features(self, X)
        return np.column_stack([_binary_scores(est, X) for est in self.estimators_])

    def predict(self, X):
        """The class with the largest score.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self._class_scores(X)  # checks fittedness before classes_ is read
        return self.classes_[np.argmax(scores, axis=1)]

    def ambiguity(self, X):
        """Flag points that the sign rule cannot assign.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            ``True`` where no classifier, or more than one, has
            :math:`g_j(\\mathbf{x}) > 0`.
        """
        n_claims = np.sum(self._class_scores(X) > 0, axis=1)
        return n_claims != 1

    @_if_base_has("predict_proba")
    def predict_proba(self, X):
        """Class probabilities from the binary ones, renormalised.

        Each classifier gives :math:`p_j(\\mathbf x) = P(\\text{class } j \\mid \\mathbf x)`
        for its own "j against the rest" problem; the :math:`k` numbers need
        not sum to one, so they are divided by their sum (a heuristic, not a
        multinomial model: use :class:`~linclf.SoftmaxRegression` for that).
        Only available if the wrapped estimator has ``predict_proba``.

        Returns
        -------
        ndarray of shape (n_samples, k)
            Rows sum to one; columns follow ``classes_``.
        """
        check_is_fitted(self, "estimators_")
        X = check_n_features(self, X)
        P = np.column_stack([
            est.predict_proba(X)[:, int(np.flatnonzero(est.classes_ == 1)[0])]
            for est in self.estimators_
        ])
        total = P.sum(axis=1, keepdims=True)
        # all k binary probabilities can underflow to 0 far from the data:
        # nothing then prefers a class
        k = P.shape[1]
        return np.divide(P, total, out=np.full_like(P, 1.0 / k), where=total > 0)


class OneVsOne(ClassifierMixin, BaseEstimator):
    """One binary classifier per pair of classes, combined by majority vote.

    For classes :math:`i < j` the classifier is trained on the samples of these
    two classes only, with class :math:`j` as its positive class; a positive
    decision is a vote for :math:`j`, otherwise for :math:`i`. The class with
    the most votes wins; a tie in the vote is broken by the summed confidence
    :math:`c_j(\\mathbf{x})`, the sum of the decision values that pointed
    towards :math:`j` (positive for classifiers where :math:`j` is the
    positive class, negated where it is the negative class).

    Parameters
    ----------
    estimator : binary classifier instance

    Attributes
    ----------
    classes_ : ndarray of shape (k,)
    estimators_ : list of k(k-1)/2 fitted estimators
    pairs_ : list of (i, j) tuples
        ``estimators_[p]`` separates ``classes_[i]`` (negative) from
        ``classes_[j]`` (positive) for ``(i, j) = pairs_[p]``.
    n_features_in_ : int
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        """Fit one copy of ``estimator`` per pair of classes.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self
        """
        _check_estimator(self.estimator)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_index = encode_labels(y, estimator="OneVsOne")
        k = self.classes_.shape[0]
        self.pairs_ = [(i, j) for i in range(k) for j in range(i + 1, k)]
        self.estimators_ = []
        for i, j in self.pairs_:
            mask = (y_index == i) | (y_index == j)
            y_pair = np.where(y_index[mask] == j, 1, -1)
            self.estimators_.append(clone_estimator(self.estimator).fit(X[mask], y_pair))
        self.n_features_in_ = X.shape[1]
        return self

    def votes(self, X):
        """Votes and summed confidences per class.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        votes : ndarray of int, shape (n_samples, k)
        confidence : ndarray of float, shape (n_samples, k)
        """
        check_is_fitted(self, "estimators_")
        X = check_n_features(self, X)
        n, k = X.shape[0], self.classes_.shape[0]
        votes = np.zeros((n, k), dtype=int)
        confidence = np.zeros((n, k))
        for (i, j), est in zip(self.pairs_, self.estimators_):
            g = _binary_scores(est, X)
            votes[:, j] += g > 0
            votes[:, i] += g <= 0
            confidence[:, j] += g
            confidence[:, i] -= g
        return votes, confidence

    def decision_function(self, X):
        """Votes plus a tie-breaker in :math:`(-\\tfrac12, \\tfrac12)`, shape (n_samples, k).

        The tie-breaker is :math:`c/(2(1+|c|))` of the summed confidence
        :math:`c`, so it orders classes with equal votes but never overturns a
        difference of one vote. :meth:`predict` uses votes and confidences
        directly. For two classes the single pairwise classifier's score is
        returned, shape (n_samples,), positive where ``classes_[1]`` wins.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, c)
        """
        check_is_fitted(self, "estimators_")
        if len(self.classes_) == 2:
            return _binary_scores(self.estimators_[0], check_n_features(self, X))
        votes, confidence = self.votes(X)
        return votes + confidence / (2.0 * (1.0 + np.abs(confidence)))

    def predict(self, X):
        """Majority vote; ties go to the largest summed confidence.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        votes, confidence = self.votes(X)
        top = votes == votes.max(axis=1, keepdims=True)
        return self.classes_[np.argmax(np.where(top, confidence, -np.inf), axis=1)]

    def ambiguity(self, X):
        """Flag points where the majority vote ties.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            ``True`` where two or more classes share the largest vote count.
        """
        votes, _ = self.votes(X)
        return np.sum(votes == votes.max(axis=1, keepdims=True), axis=1) > 1


def ambiguous_fraction(model, X):
    """Fraction of the points of ``X`` that ``model`` cannot assign unambiguously.

    Parameters
    ----------
    model : fitted classifier
        :class:`OneVsRest` or :class:`OneVsOne` (anything with an
        ``ambiguity(X)`` method), or any other fitted classifier with
        ``predict``: an argmax rule such as a
        :class:`~linclf.perceptron.LinearMachine` always picks exactly one
        class, so its fraction is 0.
    X : array_like of shape (n_samples, n_features)
        For example the points of a grid covering the plot.

    Returns
    -------
    float in [0, 1]
    """
    if hasattr(model, "ambiguity"):
        return float(np.mean(model.ambiguity(X)))
    if not hasattr(model, "predict"):
        raise TypeError(f"model must be a fitted classifier; got {model!r}.")
    # run predict to validate X and fittedness; an argmax rule is never ambiguous
    return float(np.mean(np.zeros(len(model.predict(X)), dtype=bool)))
