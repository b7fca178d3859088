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


def poly2_features(X):
    x1, x2 = X[:, 0], X[:, 1]
    r2 = np.sqrt(2.0)
    return np.column_stack([x1**2, x2**2, r2 * x1 * x2, r2 * x1, r2 * x2, np.ones(len(X))])


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


def corrected_feature_map():
    x1, x2, x3, xp1, xp2 = sp.symbols("x1 x2 x3 xp1 xp2", real=True)
    dot = x1 * xp1 + x2 * xp2
    computed = dot + dot**2 + x2 * xp2          # the repeated x2 adds x2 xp2
    r2 = sp.sqrt(2)
    phi3 = sp.Matrix([x1, x2, x3, x1**2, x2**2, x3**2, r2 * x1 * x2, r2 * x1 * x3, r2 * x2 * x3])
    return computed, phi3


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
from linclf_grader import test  # noqa: E402
from linclf_grader.framework import assert_close, assert_equal, read_expr, unpack  # noqa: E402

HIDDEN_ASKED = ["exp(k1) - 1", "k1**2 - k1", "(k1 + 2)**3", "k1(x, x') / sqrt(k1(x, x) k1(x', x'))",
                "g(x) k1(x, x') g(x')", "k1(A x, A x')", "1 / (1 - k1)", "max(x, x')",
                "(x @ x' - 1)**2", "cos(x - x')"]


def _closure_test(candidate):
    def test_hidden_closure(f):
        from linclf_grader.sets.kernels import _answers

        got = _answers(f([candidate]), 1)
        if bool(got[0]) != IS_KERNEL[candidate]:
            raise AssertionError(f"the answer for {candidate} is wrong")
    test_hidden_closure.__name__ = f"test_hidden_closure_{len(_HIDDEN_CLOSURE)}"
    return test("kernels.kernel_closure", points=0.2, hidden=True, visibility="after_due_date",
                name=f"kernel_closure: hidden candidate {candidate}")(test_hidden_closure)


# one test per candidate the public tests do not ask: a wrong answer costs that candidate's
# 0.2 points, not the whole exercise. The traps: (x.x' - 1)^2 is not a kernel (x = 1, x' = -1
# in d = 1 gives the Gram matrix [[0, 4], [4, 0]]), k1^2 - k1 has a negative coefficient,
# exp(k1) - 1 and 1 / (1 - k1) are power series with non-negative coefficients
_HIDDEN_CLOSURE = []
for _candidate in HIDDEN_ASKED:
    _HIDDEN_CLOSURE.append(_closure_test(_candidate))
    globals()[_HIDDEN_CLOSURE[-1].__name__] = _HIDDEN_CLOSURE[-1]


@test("kernels.kernel_closure", points=1, hidden=True, visibility="after_due_date")
def test_hidden_closure_all_in_another_order(f):
    """Every candidate, asked in reverse order: the answers must follow the candidates, not their
    positions (whether they are right is scored per candidate above and by the public tests)."""
    from linclf_grader.sets.kernels import CANDIDATES, _answers

    forward = _answers(f(list(CANDIDATES)), len(CANDIDATES))
    backward = _answers(f(list(reversed(CANDIDATES))), len(CANDIDATES))
    if not np.array_equal(forward, backward[::-1]):
        raise AssertionError("the answers depend on the order in which the candidates are asked")


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


@test("kernels.corrected_feature_map", points=1, hidden=True, visibility="after_due_date")
def test_hidden_minimal_map(f):
    """The corrected 3-D map has exactly 9 features (3 + 6, erratum 13's count; not 19)."""
    from linclf_grader.sets.kernels import check_feature_map

    _, phi3 = unpack(f(), 2, "the result")
    entries = check_feature_map(read_expr(phi3, "phi3", matrix=True), 3,
                                "x1*xp1 + x2*xp2 + x3*xp3 + (x1*xp1 + x2*xp2 + x3*xp3)**2")
    assert len(entries) == 9 and all(e != 0 for e in entries)


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


def _map_wrong(computed_extra, phi3):
    def wrong():
        x1, x2, x3, xp1, xp2 = sp.symbols("x1 x2 x3 xp1 xp2", real=True)
        dot = x1 * xp1 + x2 * xp2
        return dot + dot**2 + computed_extra(x2, xp2), phi3(x1, x2, x3)
    return wrong


WRONG = {
    "kernel_closure": {
        "differences allowed": _closure_wrong({"k1 - k2": True, "k1 - 1": True, "-k1": True}),
        "every smooth function of a kernel": _closure_wrong({"tanh(k1)": True, "max(k1, k2)": True}),
        "min is not a kernel": _closure_wrong({"min(x, x')": False}),
    },
    "kernel_perceptron": {
        "no constant feature (+1)": _kp_wrong(bias=0.0),
        "strict inequality: never leaves zero": _kp_wrong(strict=True),
        "one epoch only": _kp_wrong(one_epoch=True),
    },
    "corrected_feature_map": {
        "the source's claim (no extra term)": _map_wrong(
            lambda x2, xp2: 0, lambda x1, x2, x3: sp.Matrix([x1, x2, x3, x1**2, x2**2, x3**2,
                                                              sp.sqrt(2) * x1 * x2, sp.sqrt(2) * x1 * x3,
                                                              sp.sqrt(2) * x2 * x3])),
        "no sqrt(2) on the cross terms": _map_wrong(
            lambda x2, xp2: x2 * xp2, lambda x1, x2, x3: sp.Matrix([x1, x2, x3, x1**2, x2**2, x3**2,
                                                                     x1 * x2, x1 * x3, x2 * x3])),
        "a repeated coordinate (10 features, x3 split in two)": _map_wrong(
            lambda x2, xp2: x2 * xp2, lambda x1, x2, x3: sp.Matrix([x1, x2, x3 / sp.sqrt(2), x3 / sp.sqrt(2), x1**2,
                                                                     x2**2, x3**2, sp.sqrt(2) * x1 * x2,
                                                                     sp.sqrt(2) * x1 * x3, sp.sqrt(2) * x2 * x3])),
        "the 2-D map": _map_wrong(
            lambda x2, xp2: x2 * xp2, lambda x1, x2, x3: sp.Matrix([x1, x2, x1**2, sp.sqrt(2) * x1 * x2,
                                                                     x2**2])),
    },
}
