"""What every perceptron variant shares: parameter rules, the visiting order, the start.

:mod:`linclf.perceptron` and :mod:`linclf.linear_machine` both train by
correcting mistakes one sample at a time; these are the pieces they have in common.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._params import ArrayLike, Instance, Interval, Options
from ._validation import ConvergenceWarning

# What every perceptron variant accepts (validated by linclf._params.validate_params).
ETA = [Interval("real", 0, None, closed="neither")]
MARGIN = [Interval("real", 0, None)]
ORDER = [Options("cyclic", "shuffle")]
RANDOM_STATE = [Options(None), Interval("integer", 0, None),
                Instance(np.random.Generator, np.random.RandomState)]
EPOCHS = [Interval("integer", 1, None)]
INIT = {"w_init": [Options(None), ArrayLike()], "b_init": [Interval("real")]}


def visit_order(n, order, rng):
    """Sample indices for one epoch: ``0..n-1`` or a fresh permutation."""
    return rng.permutation(n) if order == "shuffle" else np.arange(n)


def initial_weights(w_init, b_init, n_features):
    """The augmented start ``(w_init, b_init)``, zeros when ``w_init`` is None."""
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


#: A feature whose magnitude exceeds another's spread (or the bias input, 1)
#: by more than this factor slows the mistake-driven rules down: a correction
#: adds the same multiple of every input, so the small ones, the intercept
#: among them, take many epochs to catch up.
SCALE_RATIO = 100.0


def scale_diagnosis(X):
    """A clause on badly scaled features of ``X``, or ``""`` when they are comparable.

    Compares the largest root-mean-square magnitude :math:`\\sqrt{\\overline{x_j^2}}`
    (at least 1, the bias input) with the smallest spread
    :math:`\\operatorname{std} x_j` of a non-constant feature (at most 1).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        rms = np.sqrt(np.mean(X * X, axis=0))
        std = X.std(axis=0)
    varying = np.flatnonzero(std > 0)
    if varying.size == 0 or not np.all(np.isfinite(rms)):
        return ""
    j = int(np.argmax(rms))
    k = int(varying[np.argmin(std[varying])])
    big, small = max(float(rms[j]), 1.0), min(float(std[k]), 1.0)
    if big <= SCALE_RATIO * small:
        return ""
    return (f"the inputs' scales differ by a factor of {big / small:.2g} (feature {j} has "
            f"magnitude {rms[j]:.3g}, feature {k} a spread std = {std[k]:.3g}, the intercept's "
            "input is 1), so the small ones hardly move between mistakes")


def warn_if_unseparated(name, n_epochs, X, n_errors, n_majority_errors):
    """Warn when a run that ended at ``max_iter`` left training errors that matter.

    A non-separable run of the voted, averaged or pocket perceptron normally
    ends at ``max_iter``: that alone is no cause for a warning. It is one when
    the inputs are badly scaled (:func:`scale_diagnosis`) or when the model is
    no better than always predicting the majority class.

    Parameters
    ----------
    name : str
    n_epochs : int
        The ``max_iter`` that ran out.
    X : ndarray of shape (n_samples, n_features)
    n_errors : int
        Training errors of the returned model.
    n_majority_errors : int
        Training errors of the constant majority-class model.
    """
    if n_errors == 0:
        return
    diagnosis = scale_diagnosis(X)
    useless = n_errors >= n_majority_errors
    if not diagnosis and not useless:
        return
    msg = (f"{name} stopped after max_iter={n_epochs} epochs without separating the training "
           f"data: {n_errors} of {X.shape[0]} samples misclassified")
    if useless:
        msg += f", no fewer than by always predicting the majority class ({n_majority_errors})"
    if diagnosis:
        msg += f"; {diagnosis}. Standardise the features (e.g. StandardScaler) before fitting."
    else:
        msg += (". If the features differ in scale or offset, standardise them (e.g. "
                "StandardScaler); if not, no linear rule may do much better on these data.")
    warnings.warn(msg, ConvergenceWarning, stacklevel=3)
