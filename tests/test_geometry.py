import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linclf.geometry import augment, normalize_augmented, signed_distance


def test_augment_appends_a_column_of_ones():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    Xa = augment(X)
    assert Xa.shape == (3, 3)
    np.testing.assert_array_equal(Xa[:, :2], X)
    np.testing.assert_array_equal(Xa[:, 2], 1.0)
    w, b = np.array([0.5, -2.0]), 3.0
    np.testing.assert_allclose(Xa @ np.r_[w, b], X @ w + b)


def test_augment_rejects_bad_input():
    with pytest.raises(ValueError, match="2-D"):
        augment([1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        augment([[1.0, np.nan]])


def test_normalize_augmented_signs_follow_sorted_labels():
    X = np.array([[3.0, 3.0], [4.0, 3.0], [1.0, 1.0]])
    Z = normalize_augmented(X, ["pos", "pos", "neg"])  # "neg" < "pos": classes_[0] = "neg"
    np.testing.assert_array_equal(Z, [[3, 3, 1], [4, 3, 1], [-1, -1, -1]])
    # the book's solution a = (1, 1, -3) puts every sample on its side
    assert np.all(Z @ np.array([1.0, 1.0, -3.0]) > 0)


def test_normalize_augmented_needs_two_classes():
    with pytest.raises(ValueError, match="only one class"):
        normalize_augmented([[1.0], [2.0]], [1, 1])
    with pytest.raises(ValueError, match="binary classifier but y has 3 classes"):
        normalize_augmented([[1.0], [2.0], [3.0]], [0, 1, 2])


def test_signed_distance_known_values_and_foot_of_perpendicular():
    w, b = np.array([3.0, 4.0]), -5.0
    X = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 0.5]])
    r = signed_distance(X, w, b)
    np.testing.assert_allclose(r, [-1.0, 4.0, 0.0])
    # moving each point back by r along the unit normal lands on the hyperplane
    feet = X - r[:, None] * w / np.linalg.norm(w)
    np.testing.assert_allclose(feet @ w + b, 0.0, atol=1e-12)


def test_signed_distance_accepts_fitted_shapes():
    X = np.array([[1.0, 1.0]])
    np.testing.assert_allclose(
        signed_distance(X, np.array([[1.0, 1.0]]), np.array([-1.0])), [1.0 / np.sqrt(2)]
    )


def test_signed_distance_errors():
    X = np.ones((2, 2))
    with pytest.raises(ValueError, match="zero vector"):
        signed_distance(X, [0.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="w has 3 entries but X has 2 features"):
        signed_distance(X, [1.0, 2.0, 3.0], 0.0)
    with pytest.raises(ValueError, match="b must be a scalar"):
        signed_distance(X, [1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        signed_distance(X, [np.nan, 1.0], 0.0)


finite = st.floats(-100, 100, allow_nan=False)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(finite, min_size=3, max_size=3),
    finite,
    st.lists(st.lists(finite, min_size=3, max_size=3), min_size=1, max_size=5),
    st.floats(1e-3, 1e3),
)
def test_signed_distance_invariant_to_positive_scaling(w, b, X, scale):
    w = np.array(w)
    if np.linalg.norm(w) < 1e-3:
        w = w + 1.0
    r = signed_distance(X, w, b)
    np.testing.assert_allclose(signed_distance(X, scale * w, scale * b), r, rtol=1e-9, atol=1e-9)
    # flipping the orientation flips the sign
    np.testing.assert_allclose(signed_distance(X, -w, -b), -r, rtol=1e-12, atol=1e-12)
