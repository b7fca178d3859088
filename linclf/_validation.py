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
    "check_score_labels",
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


def _is_missing(v):
    """None, pandas' NA or NaT, or a float NaN."""
    if v is None or type(v).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(v, (float, np.floating)) and v != v


def _where(index, columns=None):
    """``row i, column j`` (``column 'name' (position j), row i`` with names) or ``position i``."""
    if len(index) == 2:
        i, j = (int(k) for k in index)
        if columns is not None:
            return f"column {columns[j]!r} (position {j}), row {i}"
        return f"row {i}, column {j}"
    return "position " + ", ".join(str(int(k)) for k in index)


def _missing_error(name, mask, columns=None):
    # scikit-learn says "Input X contains NaN"; a nullable pandas column holds
    # pd.NA instead, which float() refuses with a message about NAType
    k = int(mask.sum())
    return ValueError(
        f"{name} contains {k} missing value{'s' if k > 1 else ''} (NaN, None or pd.NA), the "
        f"first at {_where(np.argwhere(mask)[0], columns)}. Remove or impute them first "
        "(e.g. sklearn.impute.SimpleImputer)."
    )


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
    if callable(getattr(X, "isna", None)) and not isinstance(X, np.ndarray):
        # pandas: isna() sees NaN, None and pd.NA alike, in every column's dtype
        mask = np.asarray(X.isna(), dtype=bool)
        if mask.any():
            columns = list(X.columns) if mask.ndim == 2 and hasattr(X, "columns") else None
            raise _missing_error(name, mask, columns)
    arr = np.asarray(X)
    if arr.dtype.kind == "c" or (arr.dtype.kind == "O" and any(isinstance(v, complex) for v in arr.flat)):
        raise ValueError(
            f"Complex data not supported: {name} has complex entries "
            f"(for example {arr.flat[0]!r}); pass the real part or split it into features."
        )
    if arr.dtype.kind in "USMm" or (
            arr.dtype.kind == "O" and any(isinstance(v, (str, bytes)) for v in arr.flat)):
        # Parsing "1.5" or counting days since 1970 would make a model of the
        # text's or the calendar's encoding, not of a quantity the user chose.
        example = next((v for v in arr.flat if isinstance(v, (str, bytes))), arr.flat[0]) \
            if arr.size else None
        what = "dates or times" if arr.dtype.kind in "Mm" else "strings"
        example = example.item() if isinstance(example, np.generic) else example
        raise TypeError(
            f"{name} must contain real numbers; got {what} (dtype {arr.dtype}, for example "
            f"{example!r}). Convert them to numbers yourself first (e.g. X.astype(float) for "
            "numeric text, an encoding for categories, a chosen unit for dates)."
        )
    if arr.dtype.kind in "OV":
        try:
            arr = arr.astype(dtype)
        except (TypeError, ValueError) as exc:
            if arr.dtype.kind == "O":
                mask = np.frompyfunc(_is_missing, 1, 1)(arr).astype(bool)
                if mask.any():
                    raise _missing_error(name, mask) from None
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
        nan = np.isnan(arr)
        n_nan = int(nan.sum())
        n_inf = int(np.isinf(arr).sum())
        first = _where(np.argwhere(nan if n_nan else ~np.isfinite(arr))[0])
        raise ValueError(
            f"{name} contains NaN or infinity ({n_nan} NaN, {n_inf} inf); "
            + (f"NaN marks a missing value, the first at {first}" if n_nan
               else f"the first at {first}")
            + ". Remove or impute them first (e.g. sklearn.impute.SimpleImputer)."
        )
    return arr


def _feature_names(X):
    """The column names of a data frame when they are all strings, else ``None``.

    Duck-typed on ``X.columns`` so that pandas (or any frame library) stays
    optional. As in scikit-learn, names are recorded only when every column
    name is a string; a mix of strings and other types is refused, since
    some columns could then be matched by name and others not.
    """
    if isinstance(X, np.ndarray):
        return None
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.ndim != 1 or names.size == 0:
        return None
    is_str = [isinstance(v, str) for v in names]
    if all(is_str):
        return names
    if any(is_str):
        kinds = sorted({type(v).__name__ for v in names})
        raise TypeError(
            f"Feature names are used only if every column name is a string; X has column "
            f"names of types {kinds}. Convert them all to str (X.columns = X.columns.astype(str))."
        )
    return None


def _record_feature_names(estimator, X):
    """Set (or, for an unnamed ``X``, remove) ``estimator.feature_names_in_``."""
    names = _feature_names(X)
    if names is None:
        estimator.__dict__.pop("feature_names_in_", None)
    else:
        estimator.feature_names_in_ = names


def _check_feature_names(estimator, X):
    """Compare the column names of ``X`` with those seen in ``fit``.

    Different names, or the same names in another order, are a ``ValueError``
    (matching columns by position would silently use the wrong features);
    names on one side only give a ``UserWarning``, as scikit-learn does.
    """
    fitted = getattr(estimator, "feature_names_in_", None)
    names = _feature_names(X)
    who = type(estimator).__name__
    if fitted is None and names is None:
        return
    if fitted is None:
        warnings.warn(
            f"X has feature names, but {who} was fitted without feature names",
            UserWarning, stacklevel=4)
        return
    if names is None:
        warnings.warn(
            f"X does not have valid feature names, but {who} was fitted with feature names",
            UserWarning, stacklevel=4)
        return
    if len(names) == len(fitted) and np.all(names == fitted):
        return
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))

    def listing(values):
        shown = "".join(f"- {v}\n" for v in values[:5])
        return shown + ("- ...\n" if len(values) > 5 else "")

    # The first sentence is scikit-learn's, so code that matches it keeps working.
    message = "The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + listing(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + listing(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def _label_kinds(values):
    """``{"number"}``, ``{"string"}``, or the type names of an object array's labels."""
    arr = np.asarray(values)
    if arr.dtype.kind in "biuf":
        return {"number"}
    if arr.dtype.kind in "US":
        return {"string"}
    kinds = set()
    for v in arr.ravel():
        if isinstance(v, (str, bytes)):
            kinds.add("string")
        elif isinstance(v, (numbers.Number, np.number, np.bool_)):
            kinds.add("number")
        else:
            kinds.add(type(v).__name__)
    return kinds


def check_score_labels(estimator, y, n_samples):
    """Validate the ``y`` given to ``score`` as ``fit`` does, against ``classes_``.

    A column vector is raveled with a warning (comparing an (n,) prediction
    with an (n, 1) ``y`` would broadcast to n x n and score about 0.5 whatever
    the model). Labels of another type than the training labels (strings
    where the model was fitted on numbers, or the reverse) can never be
    predicted, so they are refused rather than scored 0.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    y = _check_y(y, n_samples)
    classes = getattr(estimator, "classes_", None)
    if classes is not None and y.size:
        foreign = _label_kinds(y) - _label_kinds(classes)
        if foreign:
            raise ValueError(
                f"y holds labels of type {sorted(foreign)}, but {type(estimator).__name__} was "
                f"fitted on labels {np.asarray(classes).tolist()} of type {sorted(_label_kinds(classes))}; "
                "none of them can ever be predicted. Pass y in the encoding used in fit."
            )
    return y


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


def check_X_y(X, y, *, name_X="X", name_y="y", estimator=None):
    """Validate a data matrix and its label vector together.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    name_X, name_y : str
        Names used in error messages.
    estimator : object or None
        The estimator being fitted: it gets ``feature_names_in_`` when ``X`` is
        a data frame whose column names are all strings, and loses a stale one
        otherwise (``check_n_features`` compares them at prediction time).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,)
        Labels are returned unchanged in value (any hashable, sortable type).
    """
    if estimator is not None:
        _record_feature_names(estimator, X)
    X = check_array(X, name=name_X)
    y = _check_y(y, X.shape[0], name=name_y)
    if estimator is not None:
        _check_squares_finite(X, name_X)
    return X, y


def _check_squares_finite(X, name="X"):
    """Refuse training data whose sum of squares overflows or underflows float64.

    Every solver forms inner products, Gram or scatter matrices of the data;
    past about 1e154 they overflow, and numpy then fails deep inside (``SVD
    did not converge``) or the model silently comes out as inf/NaN garbage.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        total = np.einsum("ij,ij->", X, X)
    if total == 0.0 and np.any(X):
        # below about 1e-162 every square is 0, so every solver sees X = 0 and
        # returns the majority class without a word
        raise ValueError(
            f"{name} is too small for float64 arithmetic: its squares underflow to 0 (largest "
            f"entry {np.max(np.abs(X)):.3g}), so every inner product would be 0. Rescale it "
            "(e.g. StandardScaler, or multiply by a power of ten) before fitting."
        )
    if not np.isfinite(total):
        raise ValueError(
            f"{name} is too large for float64 arithmetic: its sum of squares overflows (largest "
            f"entry {np.max(np.abs(X)):.3g}), so every inner product and scatter matrix would be "
            "inf. Rescale it (e.g. StandardScaler, or divide by a power of ten) before fitting."
        )


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
            f"y must be a 1-D array of {n_samples} labels from {np.asarray(classes).tolist()}."
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
    """Validate ``X`` for prediction and check its feature names and count against fit."""
    check_is_fitted(estimator, "n_features_in_")
    _check_feature_names(estimator, X)
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
