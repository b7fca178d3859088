"""Platt scaling against scikit-learn's sigmoid calibration and its own optimality."""

import numpy as np
import pytest

from linclf.calibration import platt_probability, platt_scaling, platt_targets


def _data(seed, n=300):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.4, 1, -1)
    f = 1.3 * y + rng.normal(scale=1.5, size=n)
    return f, y


@pytest.mark.parametrize("seed", range(5))
def test_matches_scikit_learn_sigmoid_calibration(seed):
    calibration = pytest.importorskip("sklearn.calibration")
    f, y = _data(seed)
    A, B = platt_scaling(f, y)
    a, b = calibration._sigmoid_calibration(f, y)       # P = 1 / (1 + exp(a f + b))
    assert np.isclose(A, -a, rtol=1e-4, atol=1e-6) and np.isclose(B, -b, rtol=1e-4, atol=1e-6)


def test_gradient_vanishes_at_the_solution():
    f, y = _data(7)
    A, B = platt_scaling(f, y)
    t = platt_targets(y == 1)
    p = platt_probability(f, A, B)
    assert np.allclose([np.sum((p - t) * f), np.sum(p - t)], 0, atol=1e-8)


def test_separable_scores_stay_finite_and_labels_01_work():
    f = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    A, B = platt_scaling(f, y)
    assert np.isfinite([A, B]).all() and A > 0
    p = platt_probability(f, A, B)
    assert np.all(np.diff(p) > 0) and p.max() < 1


@pytest.mark.parametrize("scores,y,msg", [
    ([0.0, 1.0], [1, 1], "both labels"),
    ([0.0, 1.0, 2.0], [1, -1], "same length"),
    ([0.0, np.nan], [1, -1], "NaN"),
    ([0.0, 1.0], [1, 2], "both labels"),
])
def test_bad_input(scores, y, msg):
    with pytest.raises(ValueError, match=msg):
        platt_scaling(scores, y)
