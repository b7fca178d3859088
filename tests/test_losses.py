"""Tests for linclf.losses: values, derivatives, subgradient conventions, stability."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from linclf import losses as L
from linclf.losses import LOSSES

SMOOTH = ["squared_hinge", "logistic", "logistic_base2", "squared", "exponential"]
KINKED = {"zero_one": 0.0, "perceptron": 0.0, "hinge": 1.0}


def test_registry_lists_every_loss_with_its_gradient():
    assert set(LOSSES) == {
        "zero_one", "perceptron", "hinge", "squared_hinge", "logistic",
        "logistic_base2", "squared", "exponential",
    }
    for name, (loss, grad) in LOSSES.items():
        assert loss is getattr(L, name) and grad is getattr(L, name + "_grad")


@pytest.mark.parametrize(
    "name, expected",
    [
        ("zero_one", [1, 1, 1, 0, 0]),
        ("perceptron", [2, 0.5, 0, 0, 0]),
        ("hinge", [3, 1.5, 1, 0.5, 0]),
        ("squared_hinge", [9, 2.25, 1, 0.25, 0]),
        ("logistic", [math.log1p(math.e**2), math.log1p(math.e**0.5), math.log(2),
                      math.log1p(math.e**-0.5), math.log1p(math.e**-2)]),
        ("logistic_base2", [math.log2(1 + math.e**2), math.log2(1 + math.e**0.5), 1.0,
                            math.log2(1 + math.e**-0.5), math.log2(1 + math.e**-2)]),
        ("squared", [9, 2.25, 1, 0.25, 1]),
        ("exponential", [math.e**2, math.e**0.5, 1, math.e**-0.5, math.e**-2]),
    ],
)
def test_values(name, expected):
    m = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    np.testing.assert_allclose(LOSSES[name][0](m), expected, rtol=1e-14)


@pytest.mark.parametrize("name", SMOOTH)
def test_gradient_matches_central_differences(name):
    loss, grad = LOSSES[name]
    m = np.linspace(-3, 3, 61) + 0.013  # avoid exact kinks of squared_hinge at 1
    h = 1e-6
    numeric = (loss(m + h) - loss(m - h)) / (2 * h)
    np.testing.assert_allclose(grad(m), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name, kink", KINKED.items())
def test_kinked_losses_gradient_away_from_kink(name, kink):
    loss, grad = LOSSES[name]
    m = np.concatenate([np.linspace(-3, kink - 0.1, 20), np.linspace(kink + 0.1, 3, 20)])
    h = 1e-6
    numeric = (loss(m + h) - loss(m - h)) / (2 * h)
    np.testing.assert_allclose(grad(m), numeric, atol=1e-8)


def test_subgradient_choices_at_kinks():
    # documented choice: a point at the kink keeps the penalising slope
    assert L.perceptron_grad(0.0) == -1.0
    assert L.hinge_grad(1.0) == -1.0
    assert L.zero_one_grad(0.0) == 0.0
    assert L.zero_one(0.0) == 1.0  # a tie counts as an error
    # and each choice lies in the subdifferential [left slope, right slope]
    assert -1.0 <= L.perceptron_grad(0.0) <= 0.0
    assert -1.0 <= L.hinge_grad(1.0) <= 0.0


def test_surrogates_upper_bound_zero_one():
    m = np.linspace(-5, 5, 2001)
    z = L.zero_one(m)
    for name in ["hinge", "squared_hinge", "logistic_base2", "squared", "exponential"]:
        assert np.all(LOSSES[name][0](m) >= z), name
    # the natural-log logistic loss does not: ln 2 < 1 at m = 0
    assert L.logistic(0.0) < L.zero_one(0.0)
    np.testing.assert_allclose(L.logistic(m, base=2), L.logistic_base2(m), rtol=1e-15)
    np.testing.assert_allclose(L.logistic_grad(m, base=2), L.logistic_base2_grad(m), rtol=1e-15)


def test_stable_at_large_margins():
    m = np.array([-1e4, 1e4])
    np.testing.assert_allclose(L.logistic(m), [1e4, 0.0])
    np.testing.assert_allclose(L.logistic_grad(m), [-1.0, 0.0])
    np.testing.assert_allclose(L.hinge(m), [1e4 + 1, 0.0])
    np.testing.assert_allclose(L.squared(m), [(1e4 + 1) ** 2, (1e4 - 1) ** 2])
    # e^{1e4} exceeds the largest double: the correctly rounded value is inf, silently
    assert L.exponential(-1e4) == np.inf and L.exponential_grad(-1e4) == -np.inf
    assert L.exponential(1e4) == 0.0


@given(m=st.floats(allow_nan=False, allow_infinity=False))
def test_no_nan_and_no_warning_for_any_finite_margin(m):
    for name, (loss, grad) in LOSSES.items():
        value, slope = loss(m), grad(m)
        assert not np.isnan(value) and not np.isnan(slope), name
        assert value >= 0, name


def test_shapes_and_scalars():
    m = np.zeros((3, 4))
    for loss, grad in LOSSES.values():
        assert loss(m).shape == (3, 4) and grad(m).shape == (3, 4)
        assert np.ndim(loss(0.5)) == 0
    assert L.hinge([0, 2]).tolist() == [1.0, 0.0]
    assert str(L.perceptron(1.0)) == "0.0"  # no negative zero


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        L.hinge([0.0, np.nan])
    with pytest.raises(TypeError, match="real numbers"):
        L.logistic(["a"])
    with pytest.raises(ValueError, match="base"):
        L.logistic(0.0, base=1)
