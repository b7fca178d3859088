"""Reference solutions: exercise set "smo" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp


def smo_bounds(alpha, y, C):
    a1, a2 = alpha
    C1, C2 = np.broadcast_to(np.asarray(C, dtype=float), (2,))
    if y[0] != y[1]:                  # alpha2 - alpha1 stays fixed; alpha1 <= C1 caps alpha2 at C1 + delta
        return float(max(0.0, a2 - a1)), float(min(C2, C1 + a2 - a1))
    return float(max(0.0, a1 + a2 - C1)), float(min(C2, a1 + a2))   # alpha1 + alpha2 stays fixed


def smo_pair_update(alpha, y, E, K, C):
    kappa = K[0, 0] + K[1, 1] - 2 * K[0, 1]
    a2 = alpha[1] + y[1] * (E[0] - E[1]) / kappa
    L, H = smo_bounds(alpha, y, C)
    a2 = min(max(a2, L), H)
    a1 = alpha[0] + y[0] * y[1] * (alpha[1] - a2)    # keeps y1 a1 + y2 a2 fixed
    return np.array([a1, a2])


def smo_bias(b, E, y, alpha_old, alpha_new, K, C):
    # b_k makes f(x_k) = y_k after the step, i.e. the new error E_k = 0
    b1, b2 = b - E - K @ (y * (alpha_new - alpha_old))
    if 0 < alpha_new[0] < C:
        return float(b1)
    if 0 < alpha_new[1] < C:
        return float(b2)
    return float((b1 + b2) / 2)


def smo_unclipped_alpha2():
    a2, y1, y2, g1, g2, p1, p2, K11, K22, K12 = sp.symbols("a2 y1 y2 g1 g2 p1 p2 K11 K22 K12", real=True)
    # the gradient of Psi_p is G_i = y_i g_i - p_i; along (-y1 y2, 1) the slope is
    # G2 - y1 y2 G1 = -y2 ((g1 - y1 p1) - (g2 - y2 p2)) with y^2 = 1: the errors E_i become
    # g_i - y_i p_i (b cancels), and p = 1 gives the chapter's step
    return a2 + y2 * ((g1 - y1 * p1) - (g2 - y2 * p2)) / (K11 + K22 - 2 * K12)


def second_order_gain():
    E1, E2, y2, kappa, a2, a2n = sp.symbols("E1 E2 y2 kappa a2 a2n", real=True)
    # along the segment Psi(a2n) = Psi(a2) - y2 (E1 - E2) d + kappa d^2 / 2 with d = a2n - a2;
    # no division by kappa, so it holds for kappa <= 0 as well
    d = a2n - a2
    return y2 * (E1 - E2) * d - kappa * d**2 / 2


def _snap(a, C, eps=1e-12):
    """``a`` set exactly to 0 or C when it is within round-off (``eps * C``) of it."""
    if a < eps * C:
        return 0.0
    if a > C * (1 - eps):
        return float(C)
    return a


def smo_solver(K, y, C, tol=1e-3, max_steps=100_000):
    alpha = np.zeros(len(y))
    C = np.broadcast_to(np.asarray(C, dtype=float), alpha.shape)   # one cap per multiplier
    F = -y.astype(float)                 # E_i - b = sum_j alpha_j y_j K_ij - y_i

    def index_sets():
        up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
        low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
        return up, low

    for _ in range(max_steps):
        up, low = index_sets()
        i = np.flatnonzero(up)[np.argmin(F[up])]       # the maximal violating pair
        j = np.flatnonzero(low)[np.argmax(F[low])]
        if F[j] - F[i] <= tol:
            break
        # kappa <= 0 (duplicates, round-off): Psi is linear or concave along the segment and
        # decreases towards the bound in the descent direction; a tiny positive curvature gets there
        kappa = max(K[i, i] + K[j, j] - 2 * K[i, j], 1e-12)
        a1, a2 = alpha[i], alpha[j]
        L, H = smo_bounds(np.array([a1, a2]), np.array([y[i], y[j]]), C[[i, j]])
        a2n = min(max(a2 + y[j] * (F[i] - F[j]) / kappa, L), H)
        a1n = a1 + y[i] * y[j] * (a2 - a2n)
        # a multiplier a rounding error away from a bound counts as free and makes the pair
        # (i, j) the maximal violating one again with a zero-length step: put it on the bound
        a1n, a2n = _snap(a1n, C[i]), _snap(a2n, C[j])
        alpha[i], alpha[j] = a1n, a2n
        F += (a1n - a1) * y[i] * K[i] + (a2n - a2) * y[j] * K[j]
    up, low = index_sets()
    # b must make E_i >= 0 on I_up and E_i <= 0 on I_low: the middle of that interval
    return alpha, float(-(F[up].min() + F[low].max()) / 2)


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
from linclf_grader import test  # noqa: E402
from linclf_grader.framework import read_expr, unpack  # noqa: E402


def _fresh_pairs(seed, n=12):
    """Random pairs (alpha, y, C) on both sides of every clipping case: inputs no public test uses."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        C = np.round(rng.uniform(0.2, 3.0, 2), 2) if k % 2 else float(np.round(rng.uniform(0.2, 3.0), 2))
        caps = np.broadcast_to(C, (2,))
        alpha = np.round(rng.uniform(0.0, 1.0, 2) * caps, 3)
        y = rng.choice([-1.0, 1.0], 2)
        out.append((alpha, y, C))
    return out


@test("smo.smo_bounds", points=1, hidden=True, visibility="after_due_date")
def test_hidden_bounds_fresh_pairs(f):
    """Twelve random pairs, one cap or two: a table of the public cases scores nothing here."""
    from linclf_grader.framework import assert_close

    for alpha, y, C in _fresh_pairs(31):
        L, H = unpack(f(alpha, y, C), 2, "the result (L, H)")
        expected = smo_bounds(alpha, y, C)
        assert_close(L, expected[0], "L", atol=1e-12)
        assert_close(H, expected[1], "H", atol=1e-12)


def _fresh_steps(seed, n=12):
    """Random steps (alpha, y, E, K, C) with kappa > 0; some are clipped, some are not."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        C = float(np.round(rng.uniform(0.5, 3.0), 2))
        alpha = np.round(rng.uniform(0.0, C, 2), 3)
        y = rng.choice([-1.0, 1.0], 2)
        E = np.round(rng.normal(0.0, 4.0, 2), 3)
        A = np.round(rng.normal(size=(2, 3)), 2)
        out.append((alpha, y, E, A @ A.T + 0.1 * np.eye(2), C))
    return out


@test("smo.smo_pair_update", points=1, hidden=True, visibility="after_due_date")
def test_hidden_pair_update_fresh_steps(f):
    from linclf_grader.framework import assert_close

    for alpha, y, E, K, C in _fresh_steps(32):
        assert_close(f(alpha, y, E, K, C), smo_pair_update(alpha, y, E, K, C), "alpha_new", atol=1e-12)


@test("smo.smo_bias", points=1, hidden=True, visibility="after_due_date")
def test_hidden_bias_fresh_steps(f):
    """The thresholds after the steps of the hidden pair-update test: free, clipped, both at bounds."""
    from linclf_grader.framework import assert_close

    rng = np.random.default_rng(33)
    for k, (alpha, y, E, K, C) in enumerate(_fresh_steps(32)):
        # the random steps rarely leave both multipliers at a bound: the first three are made to
        news = [smo_pair_update(alpha, y, E, K, C)] + ([np.array([0.0, C]) if k % 2 else np.array([C, 0.0])]
                                                       if k < 3 else [])
        for new in news:
            b = float(np.round(rng.normal(), 2))
            assert_close(f(b, E, y, alpha, new, K, C), smo_bias(b, E, y, alpha, new, K, C), "b_new",
                         atol=1e-12)


@test("smo.smo_unclipped_alpha2", points=2, hidden=True, visibility="after_due_date")
def test_hidden_unclipped_symbolic(f):
    """The whole expression, compared symbolically at the four label choices."""
    from linclf_grader.symbolic import compare_expr, parse_expr_safely

    got = read_expr(f(), "alpha2_unc")
    for l1 in (1, -1):
        for l2 in (1, -1):
            ok, msg = compare_expr(got.subs({"y1": l1, "y2": l2}),
                                   parse_expr_safely(f"a2 + ({l2})*((g1 - ({l1})*p1) - (g2 - ({l2})*p2))"
                                                     "/(K11 + K22 - 2*K12)"),
                                   ["a2", "g1", "g2", "p1", "p2", "K11", "K22", "K12"])
            if not ok:
                raise AssertionError(f"alpha2_unc at y1 = {l1:+d}, y2 = {l2:+d}: {msg}")


@test("smo.second_order_gain", points=2, hidden=True, visibility="after_due_date")
def test_hidden_gain_symbolic(f):
    """The whole expression, compared symbolically for y2 = +1 and -1."""
    from linclf_grader.sets.smo import check_gain

    check_gain(read_expr(f(), "the decrease"), "y2*(E1 - E2)*(a2n - a2) - kappa*(a2n - a2)**2/2")


@test("smo.second_order_gain", points=1, hidden=True, visibility="after_due_date")
def test_hidden_gain_at_zero_curvature(f):
    """kappa = 0 (duplicate points): the decrease is linear in the step and finite; an answer
    written with 1/kappa (the unclipped bound minus a square) is undefined there."""
    from linclf_grader.sets.smo import check_gain

    expr = read_expr(f(), "the decrease").subs("kappa", 0)
    check_gain(expr, "y2*(E1 - E2)*(a2n - a2)", "the decrease at kappa = 0")


_X_DUP = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [-1.0, -1.0], [1.0, 2.0]])
_Y_DUP = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])


def _rbf(X, gamma):
    return np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))


@test("smo.smo_solver", points=2, hidden=True, visibility="after_due_date")
def test_hidden_smo_zero_curvature(f):
    """The first maximal violating pair is one point with both labels: kappa = 0."""
    from linclf_grader.sets.smo import check_solution, smo_twin

    K = _rbf(_X_DUP, 0.5)
    psi = smo_twin(K, _Y_DUP, 5.0)[2]
    check_solution(f(K, _Y_DUP, 5.0, 1e-8), K, _Y_DUP, 5.0, psi)


@test("smo.smo_solver", points=1, hidden=True, visibility="after_due_date")
def test_hidden_smo_tiny_C(f):
    """C = 1e-3: every multiplier ends at a bound; b is only bracketed by the KKT conditions."""
    from linclf_grader.sets.smo import X_10, Y_10, check_solution, smo_twin

    K = X_10 @ X_10.T
    psi = smo_twin(K, Y_10, 1e-3)[2]
    check_solution(f(K, Y_10, 1e-3, 1e-9), K, Y_10, 1e-3, psi, kkt_tol=1e-6)


@test("smo.smo_solver", points=2, hidden=True, visibility="after_due_date")
def test_hidden_smo_against_linclf(f):
    """40 overlapping points, Gaussian kernel: Psi within 1e-6 of linclf.SVC's, the same labels."""
    from linclf_grader.sets.smo import check_solution, smo_twin

    rng = np.random.default_rng(7)
    y = np.where(np.arange(40) < 20, 1.0, -1.0)
    X = np.round(rng.normal(size=(40, 2)) + 0.7 * y[:, None], 2)
    K = _rbf(X, 1.0)
    alpha_t, b_t, psi = smo_twin(K, y, 2.0)
    got = f(K, y, 2.0, 1e-8)
    check_solution(got, K, y, 2.0, psi)
    alpha, b = unpack(got, 2, "the result")
    f_got, f_twin = K @ (np.asarray(alpha) * y) + b, K @ (alpha_t * y) + b_t
    clear = np.abs(f_twin) > 1e-3
    assert np.array_equal(np.sign(f_got[clear]), np.sign(f_twin[clear]))


def _duplicates_of_opposite_labels():
    """The student trial's 43 points: 40 noisy points and copies of the first three with the
    other label (linear kernel, C = 1). A multiplier 1 - 1.1e-16 that is not snapped to C
    counts as free and the maximal violating pair repeats with zero-length steps: Psi stays
    near -11.29, while the optimum is -20.1547 (scipy's SLSQP agrees, tests/test_answer_keys.py)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=40) > 0, 1.0, -1.0)
    return np.r_[X, X[:3]], np.r_[y, -y[:3]]


@test("smo.smo_solver", points=2, hidden=True, visibility="after_due_date")
def test_hidden_smo_snaps_to_the_bounds(f):
    """Round-off next to a bound must not stall the solver (the docstring's snapping rule)."""
    from linclf_grader.sets.smo import check_solution, smo_twin

    X, y = _duplicates_of_opposite_labels()
    K = X @ X.T
    psi = smo_twin(K, y, 1.0)[2]
    check_solution(f(K, y, 1.0, 1e-8, max_steps=5000), K, y, 1.0, psi)


def indefinite_kernel():
    """12 points and the sigmoid kernel tanh(0.8 x.x' - 0.5), which is not PSD (smallest
    eigenvalue -3.35): some pairs have kappa < 0. Without a floor on kappa the step goes
    uphill, is clipped to the wrong end, and the solver stalls far from any KKT point."""
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(12, 2)), 2)
    y = np.where(np.arange(12) < 6, 1.0, -1.0)
    return np.tanh(0.8 * X @ X.T - 0.5), y


@test("smo.smo_solver", points=1, hidden=True, visibility="after_due_date")
def test_hidden_smo_negative_curvature(f):
    """An indefinite kernel: the dual is not convex, so any KKT point (a local minimum) is
    accepted; the solver must reach one within 5000 steps."""
    from linclf_grader.sets.smo import check_solution

    K, y = indefinite_kernel()
    check_solution(f(K, y, 1.0, 1e-8, max_steps=5000), K, y, 1.0, None)


# --------------------------------------------------------------------------
# typical wrong answers
# --------------------------------------------------------------------------
def _gain_wrong(kind):
    def wrong():
        E1, E2, y2, kappa, a2, a2n = sp.symbols("E1 E2 y2 kappa a2 a2n", real=True)
        d = a2n - a2
        return {"unclipped bound": (E1 - E2) ** 2 / (2 * kappa),
                "sign of the quadratic term": y2 * (E1 - E2) * d + kappa * d**2 / 2,
                "no factor 1/2": y2 * (E1 - E2) * d - kappa * d**2}[kind]
    return wrong


def _smo_wrong(clip=True, b_zero=False, max_steps=None, snap=True, floor=True, one_cap=False):
    def wrong(K, y, C, tol=1e-3, max_steps_=100_000):
        alpha, F = np.zeros(len(y)), -y.astype(float)
        C = np.broadcast_to(np.asarray(C, dtype=float), alpha.shape)
        if one_cap:                                  # the smallest cap for every multiplier
            C = np.full(alpha.shape, C.min())
        for _ in range(max_steps or max_steps_):
            up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
            low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
            i = np.flatnonzero(up)[np.argmin(F[up])]
            j = np.flatnonzero(low)[np.argmax(F[low])]
            if F[j] - F[i] <= tol:
                break
            kappa = K[i, i] + K[j, j] - 2 * K[i, j]
            kappa = max(kappa, 1e-12) if floor else kappa
            a1, a2 = alpha[i], alpha[j]
            with np.errstate(divide="ignore", invalid="ignore"):
                a2n = a2 + y[j] * (F[i] - F[j]) / kappa
            if clip:
                L, H = smo_bounds(np.array([a1, a2]), np.array([y[i], y[j]]), C[[i, j]])
                a2n = min(max(a2n, L), H)
            a1n = a1 + y[i] * y[j] * (a2 - a2n)
            if snap:
                a1n, a2n = _snap(a1n, C[i]), _snap(a2n, C[j])
            alpha[i], alpha[j] = a1n, a2n
            F += (a1n - a1) * y[i] * K[i] + (a2n - a2) * y[j] * K[j]
        up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
        low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
        return alpha, 0.0 if b_zero else float(-(F[up].min() + F[low].max()) / 2)
    return wrong


def _unclipped_wrong(kind):
    def wrong():
        a2, y1, y2, g1, g2, p1, p2, K11, K22, K12 = sp.symbols("a2 y1 y2 g1 g2 p1 p2 K11 K22 K12", real=True)
        kappa = K11 + K22 - 2 * K12
        return {"errors with y_i but without p_i": a2 + y2 * ((g1 - y1) - (g2 - y2)) / kappa,
                "p_i without the label": a2 + y2 * ((g1 - p1) - (g2 - p2)) / kappa,
                "sign error": a2 - y2 * ((g1 - y1 * p1) - (g2 - y2 * p2)) / kappa}[kind]
    return wrong


def _bounds_wrong(kind):
    def wrong(alpha, y, C):
        a1, a2 = alpha
        C1, C2 = np.broadcast_to(np.asarray(C, dtype=float), (2,))
        if kind == "C2 for both":
            C1 = C2
        if kind == "caps swapped":
            C1, C2 = C2, C1
        if y[0] != y[1]:
            return float(max(0.0, a2 - a1)), float(min(C2, C1 + a2 - a1))
        return float(max(0.0, a1 + a2 - C1)), float(min(C2, a1 + a2))
    return wrong


WRONG = {
    "smo_unclipped_alpha2": {
        "errors with y_i but without p_i": _unclipped_wrong("errors with y_i but without p_i"),
        "p_i without the label": _unclipped_wrong("p_i without the label"),
        "sign error": _unclipped_wrong("sign error"),
    },
    "smo_bounds": {
        "C2 for both multipliers": _bounds_wrong("C2 for both"),
        "the caps swapped": _bounds_wrong("caps swapped"),
    },
    "second_order_gain": {
        "the unclipped bound": _gain_wrong("unclipped bound"),
        "sign of the quadratic term": _gain_wrong("sign of the quadratic term"),
        "no factor 1/2": _gain_wrong("no factor 1/2"),
    },
    "smo_solver": {
        "no clipping": _smo_wrong(clip=False),
        "b left at 0": _smo_wrong(b_zero=True),
        "ten steps only": _smo_wrong(max_steps=10),
        "one cap for every multiplier": _smo_wrong(one_cap=True),
    },
}

#: wrong answers that pass the public tests and only a hidden test catches
#: (tests/test_answer_keys.py proves each loses points there)
WRONG_HIDDEN = {
    "smo_solver": {
        "no snapping to the bounds": _smo_wrong(snap=False),
        "no floor on kappa": _smo_wrong(floor=False),
    },
}
