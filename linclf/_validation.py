"""Input validation shared by every estimator.

The helpers here play the role of scikit-learn's ``check_array``/``check_X_y``:
they turn whatever the user passes into clean float arrays, or raise an error
whose message names the problem (shape, NaN/inf, non-numeric data, labels).
"""

from __future__ import annotations

import numbers
import sys
import warnings

import numpy as np

__all__ = [
    "ConvergenceWarning",
    "DataConversionWarning",
    "NotFittedError",
    "check_array",
    "check_X_y",
    "check_is_fitted",
    "check_known_labels",
    "check_n_features",
    "check_random_state",
    "check_positive",
    "encode_binary",
    "encode_labels",
]


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at ``max_iter`` before it converged."""


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit`` was called.

    It subclasses both ``ValueError`` and ``AttributeError`` (as scikit-learn's
    does) so that ``except ValueError`` catches it too. When scikit-learn is
    loaded, the error raised is also an instance of scikit-learn's own
    ``NotFittedError`` (see :func:`_sklearn_flavoured`).
    """


class DataConversionWarning(UserWarning):
    """The input had to be converted (e.g. a column vector ``y`` raveled)."""


def _sklearn_flavoured(cls, sklearn_name):
    """``cls``, or a subclass that is also scikit-learn's ``sklearn_name``.

    linclf never imports scikit-learn; but when the user has loaded it, code
    written for scikit-learn (``except sklearn.exceptions.NotFittedError``,
    ``check_estimator``) should recognise our errors and warnings too, as the
    scikit-learn layers of other libraries do. The subclass is made once.
    """
    if "sklearn" not in sys.modules:
        return cls
    cached = _FLAVOURED.get(cls)
    if cached is None:
        import sklearn.exceptions

        theirs = getattr(sklearn.exceptions, sklearn_name)
        cached = type(cls.__name__, (cls, theirs), {"__module__": cls.__module__,
                                                    "__doc__": cls.__doc__})
        _FLAVOURED[cls] = cached
    return cached


_FLAVOURED = {}


def check_array(X, *, name="X", ensure_2d=True, allow_1d=False, dtype=np.float64):
    """Return ``X`` as a finite float array, or raise a clear error.

    Parameters
    ----------
    X : array_like
        The data. Lists, tuples and numpy arrays of numbers are accepted.
    name : str, default="X"
        Name used in error messages.
    ensure_2d : bool, default=True
        Require a 2-D array of shape ``(n_samples, n_features)``.
    allow_1d : bool, default=False
        With ``ensure_2d``, accept a 1-D array and treat it as one sample.
    dtype : numpy dtype, default=float64

    Returns
    -------
    ndarray of dtype ``dtype``

    Raises
    ------
    TypeError
        If ``X`` is not numeric (strings, objects, booleans are fine as 0/1 only
        when already boolean arrays).
    ValueError
        If ``X`` has the wrong number of dimensions, no samples, no features,
        or contains NaN or infinity.
    """
    if X is None:
        raise TypeError(f"{name} is None; expected an array of numbers.")
    if hasattr(X, "toarray") and not isinstance(X, np.ndarray):
        raise TypeError(f"{name} is a sparse matrix; linclf needs a dense array.")
    arr = np.asarray(X)
    if arr.dtype.kind == "c" or (arr.dtype.kind == "O" and any(isinstance(v, complex) for v in arr.flat)):
        raise ValueError(
            f"Complex data not supported: {name} has complex entries "
            f"(for example {arr.flat[0]!r}); pass the real part or split it into features."
        )
    if arr.dtype.kind in "OUSV":
        try:
            arr = arr.astype(dtype)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must contain real numbers; got an array of dtype "
                f"{arr.dtype} (for example {arr.flat[0]!r}): {exc}."
            ) from None
    else:
        arr = arr.astype(dtype, copy=False)
    if ensure_2d:
        if arr.ndim == 1 and allow_1d:
            arr = arr.reshape(1, -1)
        if arr.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D array of shape (n_samples, n_features); "
                f"got an array with {arr.ndim} dimension(s) and shape {arr.shape}. "
                "Reshape your data: X.reshape(-1, 1) for a single feature, "
                "X.reshape(1, -1) for a single sample."
            )
        if arr.shape[0] == 0:
            raise ValueError(
                f"{name} has 0 sample(s) (shape={arr.shape}) while a minimum of 1 is required."
            )
        if arr.shape[1] == 0:
            raise ValueError(
                f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required."
            )
    if not np.all(np.isfinite(arr)):
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(np.isinf(arr).sum())
        raise ValueError(
            f"{name} contains NaN or infinity ({n_nan} NaN, {n_inf} inf); "
            "remove or impute them first."
        )
    return arr


def _check_y(y, n_samples, name="y"):
    if y is None:
        raise ValueError(
            f"this estimator requires y to be passed, but the target {name} is None; "
            "pass an array of class labels."
        )
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            f"A column-vector {name} was passed when a 1d array was expected; "
            f"it was raveled to shape ({y.shape[0]},).",
            _sklearn_flavoured(DataConversionWarning, "DataConversionWarning"),
            stacklevel=3,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of labels; got shape {y.shape}."
        )
    if y.shape[0] != n_samples:
        raise ValueError(
            f"X and {name} have inconsistent numbers of samples: "
            f"{n_samples} rows in X but {y.shape[0]} labels in {name}."
        )
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or infinity.")
    if y.dtype.kind == "O":
        if any(v is None for v in y):
            raise ValueError(f"{name} contains None; every sample needs a label.")
    return y


def check_X_y(X, y, *, name_X="X", name_y="y"):
    """Validate a data matrix and its label vector together.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,)
        Labels are returned unchanged in value (any hashable, sortable type).
    """
    X = check_array(X, name=name_X)
    y = _check_y(y, X.shape[0], name=name_y)
    return X, y


def encode_labels(y, *, n_classes=None, estimator=None):
    """Map arbitrary labels to ``0..k-1`` through their sorted unique values.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
    n_classes : int or None
        If 2, exactly two classes are required (binary estimator).
    estimator : str or None
        Name used in error messages.

    Returns
    -------
    classes : ndarray of shape (k,)
    y_index : ndarray of int, shape (n_samples,)
    """
    who = f"{estimator} " if estimator else ""
    y = np.asarray(y)
    if y.dtype.kind in "fc":
        fractional = y[y != np.round(y.real)] if y.dtype.kind == "f" else y[y.imag != 0]
        if fractional.size:
            # A regression target would otherwise become one class per distinct value.
            raise ValueError(
                f"{who}got a continuous target y (non-integer values such as "
                f"{fractional[0]!r}); a classifier needs class labels. "
                "Unknown label type: continuous."
            )
    try:
        classes, y_index = np.unique(y, return_inverse=True)
    except TypeError:
        raise TypeError("y mixes label types that cannot be sorted (e.g. str and int).") from None
    if classes.shape[0] < 2:
        raise ValueError(
            f"{who}needs samples of at least two classes; y has only one class "
            f"({classes[0]!r})."
        )
    if n_classes == 2 and classes.shape[0] != 2:
        raise ValueError(
            f"{who}is a binary classifier but y has {classes.shape[0]} classes "
            f"{classes.tolist()}. Only binary classification is supported: wrap it in "
            "OneVsRest or OneVsOne for multi-class data."
        )
    return classes, y_index.ravel()


def encode_binary(y, *, estimator=None):
    """Map two arbitrary labels to ``-1`` (``classes_[0]``) and ``+1`` (``classes_[1]``).

    Returns
    -------
    classes : ndarray of shape (2,)
    y_pm : ndarray of float64 in {-1, +1}
    """
    classes, idx = encode_labels(y, n_classes=2, estimator=estimator)
    return classes, np.where(idx == 1, 1.0, -1.0)


def check_known_labels(y, classes, n_samples):
    """Validate labels against a fitted ``classes_`` and return ``y`` as an array.

    Used where labels must come from the training classes (e.g. evaluating a
    fitted model's loss), so an unknown label is an error, not a silent miss.
    """
    y = np.asarray(y)
    if y.shape != (n_samples,) or not np.all(np.isin(y, classes)):
        raise ValueError(
            f"y must be a 1-D array of {n_samples} labels from {list(classes)}."
        )
    return y


def check_is_fitted(estimator, attributes=None):
    """Raise :class:`NotFittedError` unless ``estimator`` has been fitted.

    An estimator counts as fitted when it has the given attributes, or by
    default any public attribute ending in ``_``.
    """
    if attributes is None:
        fitted = [
            k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")
        ]
    else:
        if isinstance(attributes, str):
            attributes = [attributes]
        fitted = [a for a in attributes if hasattr(estimator, a)]
        if len(fitted) < len(attributes):
            fitted = []
    if not fitted:
        raise _sklearn_flavoured(NotFittedError, "NotFittedError")(
            f"This {type(estimator).__name__} instance is not fitted yet; "
            "call fit(X, y) before using it."
        )


def check_n_features(estimator, X, *, name="X"):
    """Validate ``X`` for prediction and check its feature count against fit."""
    check_is_fitted(estimator, "n_features_in_")
    X = check_array(X, name=name)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"{name} has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input: it was fitted with "
            f"{estimator.n_features_in_} features."
        )
    return X


def check_random_state(seed):
    """Turn ``None``, an int or a Generator into a ``numpy.random.Generator``."""
    if seed is None or isinstance(seed, (numbers.Integral, np.integer)):
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(2**31))
    raise TypeError(
        f"random_state must be None, an int or a numpy Generator; got {seed!r}."
    )


def check_positive(value, name, *, strict=True, allow_inf=False, integer=False):
    """Check a scalar hyper-parameter and return it; raise naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(f"{name} must be a number; got {value!r}.")
    if integer and not float(value).is_integer():
        raise TypeError(f"{name} must be an integer; got {value!r}.")
    if np.isnan(value) or (np.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    if strict and not value > 0:
        raise ValueError(f"{name} must be > 0; got {value!r}.")
    if not strict and value < 0:
        raise ValueError(f"{name} must be >= 0; got {value!r}.")
    return value
