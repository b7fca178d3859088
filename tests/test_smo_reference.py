"""The book's readable SMO (linclf.smo.reference) and the fast solver agree; each formula is checked."""

import numpy as np
import pytest

from linclf.kernels import Kernel, gram_matrix
from linclf.smo import book_smo, clip, segment_bounds, smo_solve, take_step, threshold, working_pair
from linclf.smo.reference import SMOState


def _problem(seed, n=40, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _dual_min(alpha, y, K):
    beta = alpha * y
    return 0.5 * beta @ K @ beta - alpha.sum()


def test_segment_bounds_are_the_ends_of_the_feasible_segment():
    rng = np.random.default_rng(0)
    grid = np.linspace(0, 1, 20_001)
    for _ in range(100):
        C = rng.uniform(0.5, 3)
        a1, a2 = rng.uniform(0, C, 2)
        y1, y2 = rng.choice([-1, 1], 2)
        a2s = grid * C
        a1s = a1 + y1 * y2 * (a2 - a2s)  # keeps y1 a1 + y2 a2
        feasible = a2s[(a1s >= 0) & (a1s <= C)]
        L, H = segment_bounds(a1, a2, y1, y2, C)
        assert L == pytest.approx(feasible.min(), abs=1e-4 * C)
        assert H == pytest.approx(feasible.max(), abs=1e-4 * C)
    assert clip(2.0, 0.0, 1.0) == 1.0 and clip(-1.0, 0.0, 1.0) == 0.0 and clip(0.3, 0.0, 1.0) == 0.3


def test_a_step_is_the_exact_minimiser_of_the_dual_on_the_segment():
    X, y = _problem(1)
    K = gram_matrix(X, "rbf", gamma=0.7)
    C = 0.8
    state = book_smo(K, y, C, tol=1e-1)  # somewhere in the middle of a run
    i, j, _ = working_pair(state.alpha, state.E, y, C)
    L, H = segment_bounds(state.alpha[i], state.alpha[j], y[i], y[j], C)
    # brute force: the dual along the segment, from the full objective
    best = None
    for a2 in np.linspace(L, H, 4001):
        trial = state.alpha.copy()
        trial[i] += y[i] * y[j] * (state.alpha[j] - a2)
        trial[j] = a2
        value = _dual_min(trial, y, K)
        best = value if best is None or value < best else best
    after = take_step(SMOState(state.alpha.copy(), state.b, state.E.copy()), i, j, K, y, C)
    assert _dual_min(after.alpha, y, K) <= best + 1e-9
    assert abs(after.alpha @ y) < 1e-12
    # the error cache after the step equals a recomputation from scratch
    np.testing.assert_allclose(after.E, K @ (after.alpha * y) + after.b - y, atol=1e-10)


def test_threshold_makes_the_free_error_zero():
    X, y = _problem(2)
    K = gram_matrix(X, "linear")
    state = book_smo(K, y, 1.0, tol=1e-8)
    f = K @ (state.alpha * y) + state.b
    free = (state.alpha > 1e-8) & (state.alpha < 1 - 1e-8)
    assert free.any()
    np.testing.assert_allclose(y[free] * f[free], 1.0, atol=1e-6)
    # the rule itself: b_1 when alpha_1 is free, b_2 when only alpha_2 is, else the mean
    assert threshold(0.0, 1.0, 2.0, 0.0, 0.0, 1, 0, 1, 0.5, 0.0, 1.0) == -1.0
    assert threshold(0.0, 1.0, 2.0, 0.0, 0.0, 1, 0, 1, 0.0, 0.5, 1.0) == -2.0
    assert threshold(0.0, 1.0, 2.0, 0.0, 0.0, 1, 0, 1, 0.0, 1.0, 1.0) == -1.5


@pytest.mark.parametrize("kernel, params", [("linear", {}), ("rbf", {"gamma": 0.5}),
                                            ("poly", {"gamma": 0.5, "degree": 2, "coef0": 1.0})])
@pytest.mark.parametrize("seed", [3, 4])
def test_fast_solver_reaches_the_books_solution(kernel, params, seed):
    X, y = _problem(seed, n=60)
    K = gram_matrix(X, kernel, **params)
    C = 1.0
    book = book_smo(K, y, C, tol=1e-9, max_steps=100_000)
    assert book.gap <= 1e-9
    for selection in ("wss2", "mvp", "platt"):
        fast = smo_solve(Kernel.from_params(kernel, **params), X, y, C, tol=1e-9, selection=selection)
        assert _dual_min(fast.alpha, y, K) == pytest.approx(_dual_min(book.alpha, y, K), abs=1e-8)
        if kernel == "rbf":  # Q positive definite: the multipliers are unique
            np.testing.assert_allclose(fast.alpha, book.alpha, atol=1e-5)
        # the fast solver's v is b - E of the book (the dictionary in linclf.smo)
        E_fast = K @ (fast.alpha * y) + fast.b - y
        np.testing.assert_allclose(fast.b - fast.v, E_fast, atol=1e-7)
        assert fast.b == pytest.approx(book.b, abs=1e-5)


def test_record_keeps_every_state():
    X, y = _problem(5, n=20)
    K = gram_matrix(X, "linear")
    state = book_smo(K, y, 1.0, tol=1e-6, record=True)
    assert len(state.history) == state.n_steps + 1
    objective = [_dual_min(h["alpha"], y, K) for h in state.history]
    assert np.all(np.diff(objective) <= 1e-12)  # every step decreases the dual
    assert state.history[-1]["gap"] == state.gap <= 1e-6


@pytest.mark.parametrize("args, match", [
    ((np.eye(3), [1, -1], 1.0), "one row per label"),
    ((np.eye(2), [1, 2], 1.0), "-1 and \\+1"),
    ((np.eye(2), [1, 1], 1.0), "-1 and \\+1"),
    ((np.eye(2), [1, -1], np.inf), "finite"),
    ((np.eye(2), [1, -1], 0.0), "finite"),
])
def test_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        book_smo(*args)
