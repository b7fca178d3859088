"""Tests for linclf.special: stability at any magnitude, identities, exact values."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from linclf.special import log_sigmoid, log_softmax, logsumexp, sigmoid, softmax

finite = st.floats(allow_nan=False, allow_infinity=False)
moderate = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
matrices = arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 6)), elements=finite)
moderate_matrices = arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 6)), elements=moderate)


def test_sigmoid_exact_values_and_extremes():
    assert sigmoid(0.0) == 0.5
    assert sigmoid(1e4) == 1.0 and sigmoid(-1e4) == 0.0
    assert sigmoid(np.inf) == 1.0 and sigmoid(-np.inf) == 0.0
    assert sigmoid(-745.0) > 0  # e^-745 is the smallest subnormal scale: no underflow to 0 yet
    np.testing.assert_allclose(sigmoid(np.log(3.0)), 0.75, rtol=1e-15)
    z = np.linspace(-30, 30, 61)
    np.testing.assert_allclose(sigmoid(z), 1 / (1 + np.exp(-z)), rtol=1e-14)


def test_log_sigmoid_exact_at_large_magnitudes():
    assert log_sigmoid(-1e4) == -1e4
    assert log_sigmoid(1e4) == 0.0
    # For moderately large z, log sigma(z) = -log1p(e^-z) ~ -e^-z, not rounded to 0 too early.
    np.testing.assert_allclose(log_sigmoid(40.0), -math.exp(-40.0), rtol=1e-12)
    np.testing.assert_allclose(log_sigmoid(-40.0), -40.0 - math.log1p(math.exp(-40.0)), rtol=1e-15)
    z = np.linspace(-50, 50, 101)
    mpmath.mp.dps = 40  # reference values with 40 significant digits
    exact = [float(-mpmath.log1p(mpmath.exp(-mpmath.mpf(v)))) for v in z]
    np.testing.assert_allclose(log_sigmoid(z), exact, rtol=1e-14)


def test_logsumexp_values():
    assert logsumexp([1e4, 1e4]) == pytest.approx(1e4 + math.log(2), rel=1e-15)
    assert logsumexp([-1e4, -1e4]) == pytest.approx(-1e4 + math.log(2), rel=1e-15)
    Z = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(logsumexp(Z, axis=1), [math.log(3), math.log(math.e + math.e**2 + math.e**3)])
    assert logsumexp(Z, axis=1, keepdims=True).shape == (2, 1)
    assert logsumexp([-np.inf, -np.inf]) == -np.inf
    assert logsumexp([0.0, -np.inf]) == 0.0


def test_softmax_examples():
    np.testing.assert_allclose(softmax([[1e4, 1e4, -1e4]]), [[0.5, 0.5, 0.0]])
    np.testing.assert_allclose(softmax([0.0, math.log(3.0)]), [0.25, 0.75])
    np.testing.assert_allclose(softmax(np.zeros((2, 4)), axis=0), np.full((2, 4), 0.5))
    np.testing.assert_allclose(log_softmax([[1e4, 0.0]]), [[0.0, -1e4]])


def test_non_numeric_input_is_rejected():
    with pytest.raises(TypeError, match="real numbers"):
        sigmoid(["a", "b"])
    with pytest.raises(TypeError, match="real numbers"):
        softmax(np.array([1 + 2j]))


@given(z=arrays(np.float64, st.integers(1, 20), elements=finite))
def test_sigmoid_finite_in_unit_interval_and_symmetric(z):
    s = sigmoid(z)
    assert np.all(np.isfinite(s)) and np.all((s >= 0) & (s <= 1))
    np.testing.assert_allclose(sigmoid(-z), 1 - s, atol=1e-15)


@given(z=arrays(np.float64, st.integers(1, 20), elements=finite))
def test_log_sigmoid_finite_and_consistent(z):
    ls = log_sigmoid(z)
    assert np.all(np.isfinite(ls)) and np.all(ls <= 0)
    # log sigma(z) - log sigma(-z) = z (the logit of sigma(z) is z)
    np.testing.assert_allclose(ls - log_sigmoid(-z), z, rtol=1e-12, atol=1e-12)


@given(Z=matrices)
def test_softmax_rows_sum_to_one_at_any_magnitude(Z):
    P = softmax(Z, axis=1)
    assert np.all(np.isfinite(P)) and np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    L = log_softmax(Z, axis=1)
    assert not np.any(np.isnan(L)) and np.all(L <= 0)
    # The largest score always has log-probability within log K of 0.
    assert np.all(L.max(axis=1) >= -math.log(Z.shape[1]) - 1e-12)


@given(Z=arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 6)),
                elements=st.floats(min_value=-1e300, max_value=1e300)))
def test_logsumexp_between_max_and_max_plus_log_k(Z):
    lse = logsumexp(Z, axis=1)
    top = Z.max(axis=1)
    assert np.all(np.isfinite(lse))
    assert np.all(lse >= top)
    assert np.all(lse <= top + math.log(Z.shape[1]) + 1e-12 * np.abs(top))


def test_logsumexp_at_the_largest_double():
    big = np.finfo(float).max
    # e^big overflows, but big + log 2 rounds to big: the shifted form gets it right.
    assert logsumexp([big, big]) == big
    assert logsumexp([big, -big]) == big  # big - (-big) overflows to inf inside; e^-inf = 0
    np.testing.assert_allclose(softmax([[big, -big]]), [[1.0, 0.0]])


@given(Z=moderate_matrices, c=arrays(np.float64, 5, elements=moderate))
@settings(max_examples=60)
def test_softmax_invariant_to_a_constant_per_row(Z, c):
    shift = c[: Z.shape[0], None]
    np.testing.assert_allclose(softmax(Z + shift, axis=1), softmax(Z, axis=1), atol=1e-9)


@given(Z=moderate_matrices)
@settings(max_examples=60)
def test_log_softmax_is_log_of_softmax(Z):
    P = softmax(Z, axis=1)
    L = log_softmax(Z, axis=1)
    mask = P > 1e-300
    np.testing.assert_allclose(np.exp(L[mask]), P[mask], rtol=1e-9, atol=1e-300)
