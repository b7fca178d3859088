"""Base classes: parameters, scoring and the linear decision rule.

Every estimator in :mod:`linclf` follows scikit-learn's conventions without
depending on it:

* constructor parameters are keyword-only and stored unchanged (validation
  happens in ``fit``), so :meth:`BaseEstimator.get_params` and
  :meth:`BaseEstimator.set_params` work and ``sklearn.base.clone`` can copy them;
* ``fit`` returns ``self``; what ``fit`` learns ends in ``_``;
* labels can be any two (or k) sortable values, kept in ``classes_``;
* a data frame whose column names are all strings (``X.columns``, duck-typed:
  pandas is never imported) leaves ``feature_names_in_`` after ``fit``, and
  every method that takes ``X`` then requires the same names in the same
  order (``ValueError`` otherwise; names on one side only warn), as scikit-learn does.
"""

from __future__ import annotations

import inspect

import numpy as np

from ._validation import check_is_fitted, check_n_features, check_score_labels

__all__ = ["BaseEstimator", "ClassifierMixin", "LinearClassifierMixin", "binary_decision"]


class BaseEstimator:
    """Parameter handling shared by all estimators."""

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
        )

    def get_params(self, deep=True):
        """Return the constructor parameters as a dict.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of nested estimators as
            ``"<name>__<param>"``.

        Returns
        -------
        dict
            Parameter name -> value, as stored by the constructor.
        """
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            out[name] = value
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for k, v in value.get_params(deep=True).items():
                    out[f"{name}__{k}"] = v
        return out

    def set_params(self, **params):
        """Set constructor parameters; nested ones as ``"<name>__<param>"``.

        Parameters
        ----------
        **params : dict
            New values, by parameter name.

        Returns
        -------
        self
        """
        valid = self._param_names()
        nested = {}
        for key, value in params.items():
            name, sep, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for {type(self).__name__}; "
                    f"valid parameters are {valid}."
                )
            if sep:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def __repr__(self):
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
        }
        changed = []
        for name in self._param_names():
            value = getattr(self, name, None)
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = value is default or bool(value == default)
            except (ValueError, TypeError):
                same = False
            if not same:
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"


class ClassifierMixin:
    """Adds :meth:`score` (mean accuracy)."""

    _estimator_type = "classifier"

    def score(self, X, y):
        """Mean accuracy of ``predict(X)`` against ``y``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Validated as in ``fit``: a column vector is raveled with a
            ``DataConversionWarning``; labels of another type than ``classes_``
            (strings for a model fitted on numbers, or the reverse) raise
            ``ValueError``.

        Returns
        -------
        float
        """
        y_pred = self.predict(X)
        y = check_score_labels(self, y, y_pred.shape[0])
        return float(np.mean(y_pred == y))

    #: True for estimators that accept exactly two classes (wrap them in
    #: OneVsRest/OneVsOne for more); declared to scikit-learn as ``multi_class=False``.
    _binary_only = False

    def _multi_class(self):
        """Whether the current parameters accept more than two classes.

        The tags scikit-learn reads come from here, so an estimator whose
        parameters decide the matter (``FisherLDA(threshold="mean")``)
        overrides this rather than declaring a support it then refuses.
        """
        return not self._binary_only

    def __sklearn_tags__(self):
        # Lets scikit-learn's Pipeline/GridSearchCV/clone/check_estimator treat
        # us as a classifier without linclf importing scikit-learn at runtime:
        # this method is only ever called by scikit-learn itself.
        from sklearn.utils import ClassifierTags, Tags, TargetTags, TransformerTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(multi_class=self._multi_class()),
            transformer_tags=TransformerTags() if hasattr(self, "transform") else None,
        )


def binary_decision(scores):
    """The decision function of a model with one score column per class.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, c)

    Returns
    -------
    ndarray
        ``scores`` itself for :math:`c > 2` classes; for two classes the single
        column :math:`f_1 - f_0`, shape (n_samples,), positive where
        ``classes_[1]`` wins (the binary convention of every linclf classifier).
    """
    return scores[:, 1] - scores[:, 0] if scores.ndim == 2 and scores.shape[1] == 2 else scores


class LinearClassifierMixin(ClassifierMixin):
    """Decision rule of a linear classifier with ``coef_`` and ``intercept_``.

    For two classes ``coef_`` has shape ``(1, n_features)`` and

    .. math:: f(\\mathbf{x}) = \\mathbf{w}^\\top \\mathbf{x} + b,

    with ``classes_[1]`` predicted where :math:`f(\\mathbf{x}) > 0`. For
    :math:`c > 2` classes ``coef_`` has shape ``(c, n_features)`` and the class
    with the largest :math:`f_k(\\mathbf{x})` wins.
    """

    def decision_function(self, X):
        """Signed score ``X @ w + b`` (or one column per class).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, k)
        """
        check_is_fitted(self, ["coef_", "intercept_"])
        X = check_n_features(self, X)
        scores = X @ self.coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Predict class labels (values from ``classes_``).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            idx = (scores > 0).astype(int)
        else:
            idx = np.argmax(scores, axis=1)
        return self.classes_[idx]


class KernelClassifierMixin(ClassifierMixin):
    r"""Decision rule of a two-class kernel expansion.

    The fitted model holds ``kernel_`` (a :class:`linclf.kernels.Kernel`),
    ``support_vectors_`` (the :math:`\mathbf x_i` kept, shape ``(m, n_features)``),
    ``dual_coef_`` (their coefficients :math:`c_i`, shape ``(1, m)``) and, if it
    has one, ``intercept_`` (shape ``(1,)``; 0 otherwise). Then

    .. math:: f(\mathbf{x}) = \sum_i c_i\,k(\mathbf{x}_i, \mathbf{x}) + b,

    with ``classes_[1]`` predicted where :math:`f(\mathbf{x}) > 0`.
    """

    def decision_function(self, X):
        """Signed score of the kernel expansion.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "dual_coef_")
        X = check_n_features(self, X)
        b = self.intercept_[0] if getattr(self, "intercept_", None) is not None else 0.0
        if self.support_vectors_.shape[0] == 0:
            return np.full(X.shape[0], b)
        return self.kernel_.block(X, self.support_vectors_) @ self.dual_coef_[0] + b

    # the same rule as a linear model's: classes_[1] where the score is > 0
    predict = LinearClassifierMixin.predict
