"""Reference solutions: exercise set "kernels" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp


def rbf_gram(X, Xp, gamma):
    # |x - x'|^2 = |x|^2 + |x'|^2 - 2 x.x'; clip the tiny negatives that rounding can leave
    sq = (X**2).sum(axis=1)[:, None] + (Xp**2).sum(axis=1)[None, :] - 2 * X @ Xp.T
    return np.exp(-gamma * np.maximum(sq, 0.0))


def poly3_features(X):
    # (a + b + 1)^3 with a = x1 x1', b = x2 x2': one feature per monomial a^i b^j (i + j <= 3),
    # times the square root of its trinomial coefficient 3! / (i! j! (3 - i - j)!)
    x1, x2 = X[:, 0], X[:, 1]
    r3, r6 = np.sqrt(3.0), np.sqrt(6.0)
    return np.column_stack([np.ones(len(X)), r3 * x1, r3 * x2, r3 * x1**2, r6 * x1 * x2, r3 * x2**2,
                            x1**3, r3 * x1**2 * x2, r3 * x1 * x2**2, x2**3])


def kernel_decision(alpha, y, X_train, b, X_new, gamma):
    return rbf_gram(X_new, X_train, gamma) @ (alpha * y) + b


def feature_distance():
    x1, x2, xp1, xp2 = sp.symbols("x1 x2 xp1 xp2", real=True)
    K = lambda u1, u2, v1, v2: (u1 * v1 + u2 * v2 + 1) ** 2  # noqa: E731
    # |phi(x) - phi(z)|^2 = K(x, x) + K(z, z) - 2 K(x, z)
    return K(x1, x2, x1, x2) + K(xp1, xp2, xp1, xp2) - 2 * K(x1, x2, xp1, xp2)



IS_KERNEL = {
    "k1 + k2": True,                 # rule 1
    "k1 - k2": False,                # two Gaussians of different widths: zero diagonal
    "k1 * k2": True,                 # Schur
    "3 * k1": True,
    "-k1": False,
    "exp(k1)": True,                 # rule 6
    "exp(k1) - 1": True,             # power series with non-negative coefficients, no constant
    "k1 - 1": False,                 # k1 = 0 (or the linear kernel at x = 0): Gram [-1]
    "k1 + 1": True,
    "(k1 + 2)**3": True,             # rule 5
    "k1**2 - k1": False,             # the constant kernel 1/2 gives -1/4
    "tanh(k1)": False,               # the sigmoid kernel
    "max(k1, k2)": False,            # the chapter's quiz
    "k1(x, x') / sqrt(k1(x, x) k1(x', x'))": True,   # rule 7
    "g(x) k1(x, x') g(x')": True,    # c_i g(x_i) absorbed into c
    "k1(A x, A x')": True,           # rule 3
    "1 / (1 - k1)": True,            # geometric series, coefficients 1
    "min(x, x')": True,              # integral of indicator products
    "max(x, x')": False,             # points 0, 1: det [[0, 1], [1, 1]] = -1
    "||x - x'||**2": False,          # zero diagonal
    "(x @ x' - 1)**2": False,        # x = 1, x' = -1 (d = 1): Gram [[0, 4], [4, 0]], eigenvalue -4
                                     # (the map (x (x) x, -sqrt(2) x, 1) gives (x.x' + 1)^2)
    "cos(x - x')": True,             # cos x cos x' + sin x sin x'
}


def kernel_closure(candidates):
    return [IS_KERNEL[c] for c in candidates]


def kernel_perceptron(K, y, max_epochs=100):
    alpha, f = np.zeros(len(y)), np.zeros(len(y))   # f: the scores of the training points
    for _ in range(max_epochs):
        mistakes = 0
        for t in range(len(y)):
            if y[t] * f[t] <= 0:
                alpha[t] += 1
                f += y[t] * (K[t] + 1.0)
                mistakes += 1
        if mistakes == 0:
            return alpha, float(alpha @ y), True
    return alpha, float(alpha @ y), False


def centring_error(K, K_new):
    # step 3 is wrong: the centred points have mean zero, m itself does not; m @ m is the mean of
    # all the entries of K, and it enters with a plus sign
    row_means = K.mean(axis=1)                      # phi(x_i) @ m
    col_means = K.mean(axis=0)                      # m @ phi(x_j)
    m_m = K.mean()                                  # m @ m
    K_c = K - row_means[:, None] - col_means[None, :] + m_m
    K_new_c = K_new - K_new.mean(axis=1)[:, None] - col_means[None, :] + m_m
    return 3, K_c, K_new_c


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
from linclf_grader import test  # noqa: E402
from linclf_grader.framework import assert_close, assert_equal, unpack  # noqa: E402

def _fresh_points(seed):
    """Random points no public test uses: a table of the public cases scores nothing on them."""
    rng = np.random.default_rng(seed)
    return np.round(rng.normal(size=(6, 2)), 2), np.round(rng.normal(size=(4, 2)) * 2, 2)


@test("kernels.rbf_gram", points=1, hidden=True, visibility="after_due_date")
def test_hidden_rbf_fresh_points(f):
    for (X, Z), gamma in ((_fresh_points(51), 0.8), (_fresh_points(52), 3.0)):
        assert_close(f(X, Z, gamma), rbf_gram(X, Z, gamma), "K", rtol=1e-9)


@test("kernels.poly3_features", points=1, hidden=True, visibility="after_due_date")
def test_hidden_poly3_fresh_points(f):
    """phi(X) @ phi(Z).T = (X @ Z.T + 1)^3 on random points."""
    from linclf_grader.framework import as_array

    X, Z = _fresh_points(53)
    Phi_X = as_array(f(X), (6, 10), "phi(X)")
    Phi_Z = as_array(f(Z), (4, 10), "phi(Z)")
    assert_close(Phi_X @ Phi_Z.T, (X @ Z.T + 1) ** 3, "phi(X) @ phi(Z).T", rtol=1e-9, atol=1e-9)
    assert_close(Phi_X @ Phi_X.T, (X @ X.T + 1) ** 3, "phi(X) @ phi(X).T", rtol=1e-9, atol=1e-9)


@test("kernels.kernel_decision", points=1, hidden=True, visibility="after_due_date")
def test_hidden_decision_fresh_points(f):
    X_train, X_new = _fresh_points(54)
    rng = np.random.default_rng(55)
    alpha, y = np.round(rng.uniform(0, 2, 6), 2), rng.choice([-1.0, 1.0], 6)
    assert_close(f(alpha, y, X_train, 0.35, X_new, 0.6), kernel_decision(alpha, y, X_train, 0.35, X_new, 0.6),
                 "f(X_new)", rtol=1e-9, atol=1e-12)


@test("kernels.feature_distance", points=1, hidden=True, visibility="after_due_date")
def test_hidden_feature_distance_symbolic(f):
    from linclf_grader.framework import assert_expr

    assert_expr(f(), str(feature_distance()), ["x1", "x2", "xp1", "xp2"], "||phi(x) - phi(x')||^2")


HIDDEN_ASKED = ["exp(k1) - 1", "k1**2 - k1", "(k1 + 2)**3", "k1(x, x') / sqrt(k1(x, x) k1(x', x'))",
                "g(x) k1(x, x') g(x')", "k1(A x, A x')", "1 / (1 - k1)", "max(x, x')",
                "(x @ x' - 1)**2", "cos(x - x')"]


def _closure_right(f, asked):
    """How many of the answers for ``asked`` are right (the answers must be booleans)."""
    from linclf_grader.sets.kernels import _answers

    got = _answers(f(list(asked)), len(asked))
    return sum(bool(a) == IS_KERNEL[c] for a, c in zip(got, asked))


# Scored by thresholds, not per candidate: 13 of the 22 candidates are kernels, so a constant
# "True" would collect most per-candidate points without a single argument. With the thresholds
# both constant answers score 0 here (7 or 3 of the 10 hidden ones, 13 or 9 of all 22) and fail
# both public tests, while one slip costs one threshold: 9 of 10 right earns 2 of the 3 points.
@test("kernels.kernel_closure", points=1.5, hidden=True, visibility="after_due_date")
def test_hidden_closure_most_candidates_the_public_tests_do_not_ask(f):
    """At least 8 of the 10 candidates the public tests do not ask are classified right."""
    if _closure_right(f, HIDDEN_ASKED) < 8:
        raise AssertionError("fewer than 8 of the 10 hidden candidates are classified right")


@test("kernels.kernel_closure", points=1, hidden=True, visibility="after_due_date")
def test_hidden_closure_every_candidate_the_public_tests_do_not_ask(f):
    """All 10 candidates the public tests do not ask are classified right (the traps:
    (x.x' - 1)^2 is not a kernel, k1^2 - k1 has a negative coefficient, exp(k1) - 1 and
    1 / (1 - k1) are power series with non-negative coefficients)."""
    if _closure_right(f, HIDDEN_ASKED) < len(HIDDEN_ASKED):
        raise AssertionError("not all 10 hidden candidates are classified right")


@test("kernels.kernel_closure", points=0.5, hidden=True, visibility="after_due_date")
def test_hidden_closure_all_in_another_order(f):
    """Every candidate, asked in reverse order: the answers follow the candidates, not their
    positions, and at least 20 of the 22 are right (a constant answer gets 13 or 9; the public
    keys with a constant answer for the other ten get 19 or 15)."""
    from linclf_grader.sets.kernels import CANDIDATES, _answers

    forward = _answers(f(list(CANDIDATES)), len(CANDIDATES))
    backward = _answers(f(list(reversed(CANDIDATES))), len(CANDIDATES))
    if not np.array_equal(forward, backward[::-1]):
        raise AssertionError("the answers depend on the order in which the candidates are asked")
    if _closure_right(f, list(CANDIDATES)) < 20:
        raise AssertionError("fewer than 20 of the 22 candidates are classified right")


def _hidden_kp_check(f, K, y, max_epochs):
    from linclf_grader.sets.kernels import _alpha_b_conv

    alpha, b, conv = _alpha_b_conv(f(K, y, max_epochs))
    a_ref, b_ref, c_ref = kernel_perceptron(K, y, max_epochs)
    assert_close(alpha, a_ref, "alpha")
    assert_close(b, b_ref, "b", atol=1e-12)
    assert_equal(conv, c_ref, "converged")


@test("kernels.kernel_perceptron", points=1, hidden=True, visibility="after_due_date")
def test_hidden_kp_duplicates_and_a_singular_gram(f):
    """Duplicate points with equal labels and a rank-2 quadratic-kernel Gram matrix (collinear
    points): the perceptron still converges; the result must agree with linclf.KernelPerceptron."""
    from linclf_grader.sets.kernels import kernel_perceptron_twin

    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [-1.0, -1.0]])
    y = np.array([-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])
    kernel = lambda A, B: (A @ B.T) ** 2  # noqa: E731
    K = kernel(X, X)
    assert np.array_equal(kernel_perceptron_twin(X, y, kernel, 200)[0], kernel_perceptron(K, y, 200)[0])
    _hidden_kp_check(f, K, y, 200)


@test("kernels.kernel_perceptron", points=1, hidden=True, visibility="after_due_date")
def test_hidden_kp_ties_on_the_boundary_later(f):
    """A Gram matrix whose scores hit exactly 0 after some updates (a mistake, not a pass)."""
    K = np.array([[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, -1.0], [-1.0, 0.0, 1.0, 0.0],
                  [0.0, -1.0, 0.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, 1.0])
    _hidden_kp_check(f, K, y, 50)


@test("kernels.centring_error", points=1, hidden=True, visibility="after_due_date")
def test_hidden_the_wrong_step(f):
    """The first wrong step is 3: the centred points have mean zero, the mean m does not."""
    step, _, _ = unpack(f(np.eye(2), np.ones((1, 2))), 3, "the result (step, K_c, K_new_c)")
    if not (isinstance(step, (int, np.integer)) and not isinstance(step, bool) and int(step) == 3):
        raise AssertionError("the number of the first wrong step is not right")


@test("kernels.centring_error", points=1, hidden=True, visibility="after_due_date")
def test_hidden_centring_against_explicit_features(f):
    """Random points in R^3 under the quadratic kernel, centred through the explicit 10-feature
    map: the kernel-only answer must match, for more new points than training points."""
    from linclf_grader.framework import as_array

    rng = np.random.default_rng(21)
    X, Z = rng.normal(size=(6, 3)), rng.normal(size=(9, 3))

    def phi(A):
        r2 = np.sqrt(2.0)
        cross = [r2 * A[:, i] * A[:, j] for i in range(3) for j in range(i + 1, 3)]
        return np.column_stack([np.ones(len(A)), r2 * A, A**2, *cross])

    m = phi(X).mean(axis=0)
    assert np.allclose(phi(X) @ phi(Z).T, (X @ Z.T + 1) ** 2)
    _, K_c, K_new_c = unpack(f((X @ X.T + 1) ** 2, (Z @ X.T + 1) ** 2), 3, "the result (step, K_c, K_new_c)")
    assert_close(as_array(K_c, (6, 6), "K_c"), (phi(X) - m) @ (phi(X) - m).T, "K_c", rtol=1e-8, atol=1e-8)
    assert_close(as_array(K_new_c, (9, 6), "K_new_c"), (phi(Z) - m) @ (phi(X) - m).T, "K_new_c",
                 rtol=1e-8, atol=1e-8)


# --------------------------------------------------------------------------
# typical wrong answers
# --------------------------------------------------------------------------
def _closure_wrong(changes):
    table = {**IS_KERNEL, **changes}
    return lambda candidates: [table[c] for c in candidates]


def _kp_wrong(bias=1.0, strict=False, one_epoch=False):
    def wrong(K, y, max_epochs=100):
        alpha, f = np.zeros(len(y)), np.zeros(len(y))
        for _ in range(1 if one_epoch else max_epochs):
            mistakes = 0
            for t in range(len(y)):
                if (y[t] * f[t] < 0) if strict else (y[t] * f[t] <= 0):
                    alpha[t] += 1
                    f += y[t] * (K[t] + bias)
                    mistakes += 1
            if mistakes == 0:
                return alpha, float(alpha @ y), True
        return alpha, float(alpha @ y), one_epoch and False
    return wrong


def _centring_wrong(step=3, mm_sign=1.0, new_rows="own"):
    def wrong(K, K_new):
        col = K.mean(axis=0)
        K_c = K - K.mean(axis=1)[:, None] - col[None, :] + mm_sign * K.mean()
        own = K_new.mean(axis=1)[:, None] if new_rows == "own" else col[None, :]
        K_new_c = K_new - own - col[None, :] + mm_sign * K.mean()
        return step, K_c, K_new_c
    return wrong


def _poly3_wrong(r3, r6):
    def wrong(X):
        x1, x2 = X[:, 0], X[:, 1]
        return np.column_stack([np.ones(len(X)), r3 * x1, r3 * x2, r3 * x1**2, r6 * x1 * x2, r3 * x2**2,
                                x1**3, r3 * x1**2 * x2, r3 * x1 * x2**2, x2**3])
    return wrong


WRONG = {
    "poly3_features": {
        "no square roots (all coefficients 1)": _poly3_wrong(1.0, 1.0),
        "sqrt(2) as in the quadratic map": _poly3_wrong(np.sqrt(2.0), np.sqrt(2.0)),
        "sqrt(3) on x1 x2 as well": _poly3_wrong(np.sqrt(3.0), np.sqrt(3.0)),
    },
    "kernel_closure": {
        "differences allowed": _closure_wrong({"k1 - k2": True, "k1 - 1": True, "-k1": True}),
        "every smooth function of a kernel": _closure_wrong({"tanh(k1)": True, "max(k1, k2)": True}),
        "min is not a kernel": _closure_wrong({"min(x, x')": False}),
        "True for every candidate": lambda candidates: [True] * len(candidates),
        "False for every candidate": lambda candidates: [False] * len(candidates),
    },
    "kernel_perceptron": {
        "no constant feature (+1)": _kp_wrong(bias=0.0),
        "strict inequality: never leaves zero": _kp_wrong(strict=True),
        "one epoch only": _kp_wrong(one_epoch=True),
    },
    "centring_error": {
        "the source's step 4 (m @ m dropped)": _centring_wrong(mm_sign=0.0),
        "m @ m subtracted": _centring_wrong(mm_sign=-1.0),
        "new points: the training row means for their own": _centring_wrong(new_rows="train"),
    },
}

WRONG_HIDDEN = {
    "centring_error": {"step 4 named as the wrong one": lambda K, K_new: (4, *centring_error(K, K_new)[1:])},
}
