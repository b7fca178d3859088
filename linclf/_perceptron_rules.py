"""What every perceptron variant shares: parameter rules, the visiting order, the start.

:mod:`linclf.perceptron` and :mod:`linclf.linear_machine` both train by
correcting mistakes one sample at a time; these are the pieces they have in common.
"""

from __future__ import annotations

import numpy as np

from ._params import ArrayLike, Instance, Interval, Options

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
