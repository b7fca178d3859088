"""Exercise sets of chapters 7-11 (margin, duality, kernels, smo, losses).

``tests/test_exercises.py`` already checks, for every set in
``linclf_grader/sets``, that the reference solution gets full points and the blank
stub gets zero.  This file adds what that file does only for chapters 1-6: typical
wrong answers that must lose points, the pages, the templates and the sandboxed
grader; and it checks the reference solutions themselves (the expected values in
the public tests) against sympy derivations, exact KKT solutions and ``linclf``.
"""

import itertools

import numpy as np
import pytest
import sympy as sp
from exercise_harness import SOLUTIONS, load_reference, score

from linclf_grader import get_set

MORE_SETS = ["margin", "duality", "kernels", "smo", "losses"]


def _sym(names):
    return sp.symbols(names, real=True)


# --------------------------------------------------------------------------
# typical wrong answers
# --------------------------------------------------------------------------
def _canonical(X, y, w, b, strict=True, scale=None):
    m = np.min(y * (X @ w + b))
    if (m <= 0) if strict else (m < 0):
        raise ValueError("not separating")
    s = m if scale is None else scale(w, b, m)
    return w / s, b / s


def _best_offset(X, y, u, normalise=True, half=True, sign=1.0):
    if normalise:
        u = u / np.linalg.norm(u)
    p = X @ u
    hi, lo = p[y > 0].min(), p[y < 0].max()
    return (hi - lo) / (2 if half else 1), sign * -(hi + lo) / 2


def _primal(alpha, X, y, C=np.inf, labels=True, free=None, sign=1.0):
    w = X.T @ (alpha * y if labels else alpha)
    mask = (alpha > 1e-8) & (alpha < C - 1e-8) if free is None else free(alpha, C)
    if not mask.any():
        raise ValueError("no free support vector")
    return w, float(np.mean(sign * (y[mask] - X[mask] @ w)))


def _rbf(X, Z, gamma, power=2, cross=2.0):
    d = np.linalg.norm(X[:, None, :] - Z[None, :, :], axis=2)
    if cross != 2.0:  # the expansion of |x - z|^2 with a wrong cross term
        d2 = (X**2).sum(1)[:, None] + (Z**2).sum(1)[None, :] - cross * X @ Z.T
        return np.exp(-gamma * d2)
    return np.exp(-gamma * d**power)


def _bounds(alpha, y, C, swap=False, no_clip=False):
    a1, a2 = alpha
    different = (y[0] != y[1]) != swap
    L, H = (a2 - a1, C + a2 - a1) if different else (a1 + a2 - C, a1 + a2)
    return (L, H) if no_clip else (max(0.0, L), min(C, H))


def _pair(alpha, y, E, K, C, sign=1.0, clip=True, eta_cross=2.0, a1_sign=1.0):
    eta = K[0, 0] + K[1, 1] - eta_cross * K[0, 1]
    a2 = alpha[1] + sign * y[1] * (E[0] - E[1]) / eta
    if clip:
        L, H = _bounds(alpha, y, C)
        a2 = min(max(a2, L), H)
    return np.array([alpha[0] + a1_sign * y[0] * y[1] * (alpha[1] - a2), a2])


def _bias(b, E, y, alpha_old, alpha_new, K, C, rule="platt", sign=1.0):
    b1, b2 = b - E - sign * K @ (y * (alpha_new - alpha_old))
    if rule == "average":
        return float((b1 + b2) / 2)
    if rule == "b1":
        return float(b1)
    if 0 < alpha_new[0] < C:
        return float(b1)
    if 0 < alpha_new[1] < C:
        return float(b2)
    return float((b1 + b2) / 2)


def _hinge(w, b, X, y, lam=0.0, strict=False, mean=True, penalty=True, bias=True):
    m = y * (X @ w + b)
    active = m < 1 if strict else m <= 1
    n = len(y) if mean else 1
    J = np.maximum(0.0, 1 - m).sum() / n + (0.5 * lam * w @ w if penalty else 0.0)
    g_w = -(X[active].T @ y[active]) / n + (lam * w if penalty else 0.0)
    g_b = -y[active].sum() / n if bias else 0.0
    return J, g_w, g_b


# the "all points on the margin" answer: solve Q alpha + y b = 1, y @ alpha = 0 (no alpha >= 0)
_XM = np.array([[2.0, 3.0], [3.0, 0.0], [0.0, 0.0], [4.0, 4.0], [-1.0, 2.0]])
_YM = np.array([1.0, 1.0, -1.0, 1.0, -1.0])
_Q = (_YM[:, None] * _XM) @ (_YM[:, None] * _XM).T


def _all_on_margin():
    A = np.block([[_Q, _YM[:, None]], [_YM[None, :], np.zeros((1, 1))]])
    return np.linalg.lstsq(A, np.append(np.ones(5), 0.0), rcond=None)[0][:5]


WRONG = {
    ("margin", "geometric_margin"): {
        "functional margin (not divided by ||w||)": lambda X, y, w, b: float(np.min(y * (X @ w + b))),
        "forgot the bias": lambda X, y, w, b: float(np.min(y * (X @ w)) / np.linalg.norm(w)),
        "divided by ||(w, b)||": lambda X, y, w, b: float(np.min(y * (X @ w + b)) / np.linalg.norm(np.append(w, b))),
        "max instead of min": lambda X, y, w, b: float(np.max(y * (X @ w + b)) / np.linalg.norm(w)),
        "unsigned distances": lambda X, y, w, b: float(np.min(np.abs(X @ w + b)) / np.linalg.norm(w)),
    },
    ("margin", "canonical_hyperplane"): {
        "normalised w to unit length": lambda X, y, w, b: _canonical(
            X, y, w, b, scale=lambda w_, b_, m: np.linalg.norm(w_)),
        "did not rescale b": lambda X, y, w, b: (_canonical(X, y, w, b)[0], b),
        "no check for separation": lambda X, y, w, b: (w / np.min(y * (X @ w + b)), b / np.min(y * (X @ w + b))),
        "a point on the hyperplane accepted": lambda X, y, w, b: _canonical(X, y, w, b, strict=False),
    },
    ("margin", "best_offset"): {
        "u not normalised": lambda X, y, u: _best_offset(X, y, u, normalise=False),
        "the full gap, not half": lambda X, y, u: _best_offset(X, y, u, half=False),
        "sign error on b": lambda X, y, u: _best_offset(X, y, u, sign=-1.0),
    },
    ("margin", "two_point_svm"): {
        "unit normal": lambda: (lambda p1, p2, q1, q2: sp.Matrix([
            (p1 - q1) / sp.sqrt((p1 - q1)**2 + (p2 - q2)**2), (p2 - q2) / sp.sqrt((p1 - q1)**2 + (p2 - q2)**2),
            (q1**2 + q2**2 - p1**2 - p2**2) / (2 * sp.sqrt((p1 - q1)**2 + (p2 - q2)**2))]))(*_sym("p1 p2 q1 q2")),
        "forgot the factor 2": lambda: (lambda p1, p2, q1, q2: sp.Matrix([
            (p1 - q1) / ((p1 - q1)**2 + (p2 - q2)**2), (p2 - q2) / ((p1 - q1)**2 + (p2 - q2)**2),
            (q1**2 + q2**2 - p1**2 - p2**2) / (2 * ((p1 - q1)**2 + (p2 - q2)**2))]))(*_sym("p1 p2 q1 q2")),
        "sign error on b": lambda: (lambda p1, p2, q1, q2: sp.Matrix([
            2 * (p1 - q1) / ((p1 - q1)**2 + (p2 - q2)**2), 2 * (p2 - q2) / ((p1 - q1)**2 + (p2 - q2)**2),
            (p1**2 + p2**2 - q1**2 - q2**2) / ((p1 - q1)**2 + (p2 - q2)**2)]))(*_sym("p1 p2 q1 q2")),
        "a list instead of a Matrix": lambda: [sp.Integer(1), sp.Integer(1), sp.Integer(0)],
    },
    ("duality", "dual_objective"): {
        "forgot the labels": lambda alpha, X, y: float(alpha.sum() - 0.5 * (X.T @ alpha) @ (X.T @ alpha)),
        "forgot the 1/2": lambda alpha, X, y: float(alpha.sum() - (X.T @ (alpha * y)) @ (X.T @ (alpha * y))),
        "the minimisation form -W": lambda alpha, X, y: float(0.5 * (X.T @ (alpha * y)) @ (X.T @ (alpha * y))
                                                              - alpha.sum()),
    },
    ("duality", "primal_from_dual"): {
        "forgot the labels in w": lambda alpha, X, y, C=np.inf: _primal(alpha, X, y, C, labels=False),
        "b from every support vector": lambda alpha, X, y, C=np.inf: _primal(
            alpha, X, y, C, free=lambda a, C_: a > 1e-8),
        "sign error on b": lambda alpha, X, y, C=np.inf: _primal(alpha, X, y, C, sign=-1.0),
        "b from all points": lambda alpha, X, y, C=np.inf: _primal(
            alpha, X, y, C, free=lambda a, C_: np.ones(len(a), bool)),
    },
    ("duality", "small_dual_objective"): {
        "forgot the labels": lambda: (lambda a1, a2, a3: a1 + a2 + a3 - sp.Rational(1, 2) * (
            5 * a1**2 + 4 * a2**2 + a3**2 + 4 * a1 * a2 - 2 * a1 * a3 - 4 * a2 * a3))(*_sym("alpha1 alpha2 alpha3")),
        "cross terms counted once": lambda: (lambda a1, a2, a3: a1 + a2 + a3 - sp.Rational(1, 2) * (
            5 * a1**2 + 4 * a2**2 + a3**2 + 2 * a1 * a2 + a1 * a3 + 2 * a2 * a3))(*_sym("alpha1 alpha2 alpha3")),
        "forgot the 1/2": lambda: (lambda a1, a2, a3: a1 + a2 + a3 - (
            5 * a1**2 + 4 * a2**2 + a3**2 + 4 * a1 * a2 + 2 * a1 * a3 + 4 * a2 * a3))(*_sym("alpha1 alpha2 alpha3")),
    },
    ("duality", "small_dual_alpha"): {
        "maximised sum(alpha) - alpha^T Q alpha (no 1/2)": lambda: np.array([2 / 27, 14 / 81, 20 / 81, 0, 0]) / 2,
        "every point on the margin": _all_on_margin,
        "only the two closest points": lambda: np.array([0.0, 2 / 9, 2 / 9, 0.0, 0.0]),
    },
    ("kernels", "rbf_gram"): {
        "distance not squared": lambda X, Z, gamma: _rbf(X, Z, gamma, power=1),
        "cross term without the 2": lambda X, Z, gamma: _rbf(X, Z, gamma, cross=1.0),
        "gamma as a width": lambda X, Z, gamma: _rbf(X, Z, 1.0 / gamma),
        "arguments swapped (transposed)": lambda X, Z, gamma: _rbf(Z, X, gamma),
    },
    ("kernels", "poly3_features"): {
        "the quadratic map's six features": lambda X: np.column_stack([X[:, 0]**2, X[:, 1]**2,
                                                                      np.sqrt(2) * X[:, 0] * X[:, 1],
                                                                      np.sqrt(2) * X[:, 0], np.sqrt(2) * X[:, 1],
                                                                      np.ones(len(X)), np.zeros((len(X), 4))]),
        "forgot the constant": lambda X: np.column_stack([np.zeros(len(X)), np.sqrt(3) * X, np.sqrt(3) * X**2,
                                                          np.sqrt(6) * X[:, 0] * X[:, 1], X**3,
                                                          np.sqrt(3) * X[:, 0]**2 * X[:, 1],
                                                          np.sqrt(3) * X[:, 0] * X[:, 1]**2]),
    },
    ("kernels", "kernel_decision"): {
        "forgot the labels": lambda alpha, y, X_train, b, X_new, gamma: _rbf(X_new, X_train, gamma) @ alpha + b,
        "forgot the bias": lambda alpha, y, X_train, b, X_new, gamma: _rbf(X_new, X_train, gamma) @ (alpha * y),
        "linear kernel": lambda alpha, y, X_train, b, X_new, gamma: X_new @ X_train.T @ (alpha * y) + b,
    },
    ("kernels", "feature_distance"): {
        "distance in input space": lambda: (lambda x1, x2, xp1, xp2: (x1 - xp1)**2 + (x2 - xp2)**2)(
            *_sym("x1 x2 xp1 xp2")),
        "forgot the factor 2": lambda: (lambda x1, x2, xp1, xp2: (x1**2 + x2**2 + 1)**2 + (xp1**2 + xp2**2 + 1)**2
                                        - (x1 * xp1 + x2 * xp2 + 1)**2)(*_sym("x1 x2 xp1 xp2")),
        "kernel of the difference": lambda: (lambda x1, x2, xp1, xp2: ((x1 - xp1)**2 + (x2 - xp2)**2 + 1)**2)(
            *_sym("x1 x2 xp1 xp2")),
    },
    ("smo", "smo_bounds"): {
        "cases swapped": lambda alpha, y, C: _bounds(alpha, y, C, swap=True),
        "not limited to [0, C]": lambda alpha, y, C: _bounds(alpha, y, C, no_clip=True),
        "the whole box": lambda alpha, y, C: (0.0, C),
    },
    ("smo", "smo_pair_update"): {
        "sign error in the step": lambda alpha, y, E, K, C: _pair(alpha, y, E, K, C, sign=-1.0),
        "no clipping": lambda alpha, y, E, K, C: _pair(alpha, y, E, K, C, clip=False),
        "eta without the 2": lambda alpha, y, E, K, C: _pair(alpha, y, E, K, C, eta_cross=1.0),
        "alpha1 moved the wrong way": lambda alpha, y, E, K, C: _pair(alpha, y, E, K, C, a1_sign=-1.0),
    },
    ("smo", "smo_bias"): {
        "always the average": lambda b, E, y, ao, an, K, C: _bias(b, E, y, ao, an, K, C, rule="average"),
        "always b1": lambda b, E, y, ao, an, K, C: _bias(b, E, y, ao, an, K, C, rule="b1"),
        "sign error in the correction": lambda b, E, y, ao, an, K, C: _bias(b, E, y, ao, an, K, C, sign=-1.0),
    },
    ("smo", "smo_unclipped_alpha2"): {
        "the chapter's step (p ignored)": lambda: (lambda a2, y1, y2, g1, g2, p1, p2, K11, K22, K12:
                                                   a2 + y2 * ((g1 - y1) - (g2 - y2)) / (K11 + K22 - 2 * K12))(
            *_sym("a2 y1 y2 g1 g2 p1 p2 K11 K22 K12")),
        "eta without the 2": lambda: (lambda a2, y1, y2, g1, g2, p1, p2, K11, K22, K12:
                                      a2 + y2 * ((g1 - y1 * p1) - (g2 - y2 * p2)) / (K11 + K22 - K12))(
            *_sym("a2 y1 y2 g1 g2 p1 p2 K11 K22 K12")),
        "forgot y2": lambda: (lambda a2, y1, y2, g1, g2, p1, p2, K11, K22, K12:
                              a2 + ((g1 - y1 * p1) - (g2 - y2 * p2)) / (K11 + K22 - 2 * K12))(
            *_sym("a2 y1 y2 g1 g2 p1 p2 K11 K22 K12")),
        "the step only": lambda: (lambda a2, y1, y2, g1, g2, p1, p2, K11, K22, K12:
                                  y2 * ((g1 - y1 * p1) - (g2 - y2 * p2)) / (K11 + K22 - 2 * K12))(
            *_sym("a2 y1 y2 g1 g2 p1 p2 K11 K22 K12")),
    },
    ("losses", "hinge_subgradient"): {
        "strict inequality at the kink": lambda w, b, X, y, lam=0.0: _hinge(w, b, X, y, lam, strict=True),
        "sum instead of mean": lambda w, b, X, y, lam=0.0: _hinge(w, b, X, y, lam, mean=False),
        "forgot the penalty": lambda w, b, X, y, lam=0.0: _hinge(w, b, X, y, lam, penalty=False),
        "forgot the bias gradient": lambda w, b, X, y, lam=0.0: _hinge(w, b, X, y, lam, bias=False),
    },
    ("losses", "logistic_loss_bits"): {
        "natural logarithm": lambda m: np.logaddexp(0.0, -m),
        "naive formula": lambda m: np.log2(1 + np.exp(-np.clip(m, -700, 700))),
        "sign error": lambda m: np.logaddexp(0.0, m) / np.log(2.0),
    },
    ("losses", "exp_loss_minimizer"): {
        "the logistic minimiser (no 1/2)": lambda: (lambda q: sp.log(q / (1 - q)))(sp.Symbol("q", positive=True)),
        "sign error": lambda: (lambda q: sp.log((1 - q) / q) / 2)(sp.Symbol("q", positive=True)),
        "the squared-loss minimiser": lambda: (lambda q: 2 * q - 1)(sp.Symbol("q", positive=True)),
    },
}

WRONG_CASES = [(s, e, label) for (s, e), answers in WRONG.items() for label in answers]


def test_sets_are_available_and_big_enough():
    from linclf_grader import available_sets

    assert set(MORE_SETS) <= set(available_sets())
    for s in MORE_SETS:
        assert len(get_set(s).exercises) >= 3, s


def test_every_exercise_has_wrong_answers():
    for s in MORE_SETS:
        for e in get_set(s).exercises:
            kept = getattr(load_reference(s), "WRONG", {}).get(e, {})  # kept with the reference
            assert len(WRONG.get((s, e), {})) + len(kept) >= 2, (s, e)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the naive answers overflow on purpose
@pytest.mark.parametrize("set_name,exercise,label", WRONG_CASES)
def test_wrong_answer_fails(set_name, exercise, label):
    got, total, results = score(set_name, exercise, WRONG[(set_name, exercise)][label])
    assert got < total, f"{label!r} earned full points"
    failed = [r for r in results if r["status"] == "failed"]
    assert all(r["output"] for r in failed)


def test_feedback_names_quantity_and_call():
    _, _, results = score("smo", "smo_pair_update", WRONG[("smo", "smo_pair_update")]["no clipping"])
    msg = next(r["output"] for r in results if r["status"] == "failed")
    assert "alpha_new: expected" in msg and "rtol=" in msg and "in the call smo_pair_update(" in msg
    _, _, results = score("margin", "canonical_hyperplane",
                          WRONG[("margin", "canonical_hyperplane")]["a point on the hyperplane accepted"])
    msg = next(r["output"] for r in results if r["status"] == "failed")
    assert "expected ValueError to be raised" in msg


# --------------------------------------------------------------------------
# the reference solutions are right: derivations and independent computations
# --------------------------------------------------------------------------
def _exact_hard_or_soft_dual(X, y, C=None):
    """The exact dual solution by enumerating which alpha_i are 0, free or C (tiny N only).

    Each state fixes N + 1 linear equations in (alpha, b): alpha_i = 0, alpha_i = C or
    (Q alpha)_i + y_i b = 1, and sum alpha_i y_i = 0. A state whose system has one
    solution, feasible and satisfying the KKT conditions, gives the exact optimum; a
    singular system (no solution, or a family of them) is no candidate. Solved in exact
    rationals with sympy's DomainMatrix (sympy.solve on each of the 3^8 states took 30-80 s).
    """
    from sympy.polys.matrices import DomainMatrix
    from sympy.polys.matrices.exceptions import DMNonInvertibleMatrixError

    X, y = sp.Matrix(X), sp.Matrix(y)
    N = len(y)
    Q = sp.diag(*y) * X * X.T * sp.diag(*y)
    QQ = sp.QQ
    q = [[QQ.convert(Q[i, j]) for j in range(N)] + [QQ.convert(y[i])] for i in range(N)]
    balance = [QQ.convert(v) for v in y] + [QQ(0)]
    unit = [[QQ(int(j == i)) for j in range(N + 1)] for i in range(N)]
    value = {0: QQ(0), 1: QQ(1), 2: None if C is None else QQ.convert(sp.Rational(C))}
    for state in itertools.product((0, 1, 2) if C is not None else (0, 1), repeat=N):
        A = DomainMatrix([q[i] if s == 1 else unit[i] for i, s in enumerate(state)] + [balance],
                         (N + 1, N + 1), QQ)
        rhs = DomainMatrix([[value[s]] for s in state] + [[QQ(0)]], (N + 1, 1), QQ)
        try:
            sol = A.lu_solve(rhs).to_Matrix()
        except DMNonInvertibleMatrixError:
            continue
        alpha, b = list(sol[:N]), sol[N]
        if any(v < 0 for v in alpha) or (C is not None and any(v > C for v in alpha)):
            continue
        w = X.T * sp.diag(*y) * sp.Matrix(alpha)
        m = [y[i] * ((w.T * X.row(i).T)[0] + b) for i in range(N)]
        if all((s != 0 or m[i] >= 1) and (s != 2 or m[i] <= 1) for i, s in enumerate(state)):
            return alpha, w, b
    raise AssertionError("no KKT point found")


def test_small_dual_alpha_is_the_exact_kkt_solution():
    ref = load_reference("duality")
    alpha, w, b = _exact_hard_or_soft_dual(_XM.astype(int).tolist(), _YM.astype(int).tolist())
    assert alpha == [sp.Rational(2, 27), sp.Rational(14, 81), sp.Rational(20, 81), 0, 0]
    assert list(w) == [sp.Rational(2, 3), sp.Rational(2, 9)] and b == -1
    assert np.allclose(ref.small_dual_alpha(), [float(v) for v in alpha], rtol=1e-15)
    # and the library's SMO solver agrees
    from linclf import SVC

    svm = SVC(C=1e6, kernel="linear", tol=1e-10).fit(_XM, _YM)
    assert np.allclose(svm.coef_[0], [2 / 3, 2 / 9], atol=1e-6)
    assert np.allclose(svm.intercept_, [-1.0], atol=1e-6)


def test_soft_margin_alpha_of_the_public_test_is_optimal():
    from linclf_grader.sets import duality as dset

    X_exact = [[sp.Rational(str(v)) for v in row] for row in dset.X_S]   # halves: exact rationals
    alpha, w, b = _exact_hard_or_soft_dual(X_exact, dset.Y_S.astype(int).tolist(), C=1)
    assert np.allclose([float(v) for v in alpha], dset.ALPHA_S, rtol=1e-15)
    assert list(w) == [sp.Rational(2, 7), sp.Rational(4, 7)] and b == sp.Rational(-3, 7)
    from linclf import SVC

    svm = SVC(C=1.0, kernel="linear", tol=1e-10).fit(dset.X_S, dset.Y_S)
    ref = load_reference("duality")
    assert abs(ref.dual_objective(dset.ALPHA_S, dset.X_S, dset.Y_S)
               - ref.dual_objective(svm.alpha_, dset.X_S, dset.Y_S)) < 1e-6


def test_two_point_svm_satisfies_the_constraints_with_equality():
    ref = load_reference("margin")
    p1, p2, q1, q2 = _sym("p1 p2 q1 q2")
    w1, w2, b = ref.two_point_svm()
    assert sp.simplify(w1 * p1 + w2 * p2 + b - 1) == 0
    assert sp.simplify(w1 * q1 + w2 * q2 + b + 1) == 0
    # w is parallel to p - q, so the margin 1/|w| is half the distance of the points
    assert sp.simplify(w1 * (p2 - q2) - w2 * (p1 - q1)) == 0
    assert sp.simplify(1 / (w1**2 + w2**2) - ((p1 - q1)**2 + (p2 - q2)**2) / 4) == 0


def test_small_dual_objective_matches_the_definition():
    ref = load_reference("duality")
    a = _sym("alpha1 alpha2 alpha3")
    X = np.array([[1.0, 2.0], [2.0, 0.0], [-1.0, 0.0]])
    y = np.array([1.0, 1.0, -1.0])
    expr = ref.small_dual_objective()
    rng = np.random.default_rng(0)
    for _ in range(5):
        alpha = rng.uniform(0, 1, 3)
        assert abs(float(expr.subs(dict(zip(a, alpha)))) - ref.dual_objective(alpha, X, y)) < 1e-12


def test_canonical_and_best_offset_agree_with_the_svm():
    ref = load_reference("margin")
    w_c, b_c = ref.canonical_hyperplane(_XM, _YM, np.array([2.0, 2 / 3]), -3.0)
    rho, b_u = ref.best_offset(_XM, _YM, w_c)
    assert np.isclose(rho, ref.geometric_margin(_XM, _YM, w_c, b_c))
    assert np.isclose(b_u, b_c / np.linalg.norm(w_c))


def test_rbf_gram_and_decision_against_linclf():
    from linclf.kernels import rbf_kernel

    ref = load_reference("kernels")
    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    assert np.allclose(ref.rbf_gram(X, Z, 0.4), rbf_kernel(X, Z, gamma=0.4), rtol=1e-12)
    direct = np.exp(-0.7 * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    assert np.allclose(ref.rbf_gram(X, Z, 0.7), direct, rtol=1e-12)
    Xf = np.array([[1000.0, -2000.0], [1000.5, -2000.0]])
    Zf = np.array([[1000.0, -2000.0], [1001.0, -1999.0], [999.0, -2001.5]])
    direct = np.exp(-0.7 * ((Xf[:, None, :] - Zf[None, :, :]) ** 2).sum(-1))
    assert np.allclose(ref.rbf_gram(Xf, Zf, 0.7), direct, rtol=1e-8)
    alpha, y, b = rng.uniform(0, 1, 4), np.array([1.0, -1.0, 1.0, -1.0]), 0.3
    f = ref.kernel_decision(alpha, y, Z, b, X, 0.5)
    assert np.allclose(f, [sum(alpha[i] * y[i] * np.exp(-0.5 * np.sum((x - Z[i]) ** 2)) for i in range(4)) + b
                           for x in X])


def test_poly3_features_and_feature_distance():
    ref = load_reference("kernels")
    rng = np.random.default_rng(2)
    X, Z = rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    assert np.allclose(ref.poly3_features(X) @ ref.poly3_features(Z).T, (X @ Z.T + 1) ** 3)
    assert np.linalg.matrix_rank(ref.poly3_features(rng.normal(size=(30, 2)))) == 10   # no spare feature
    x1, x2, xp1, xp2 = _sym("x1 x2 xp1 xp2")
    expr = ref.feature_distance()

    def phi2(A):
        return np.column_stack([A[:, 0]**2, A[:, 1]**2, np.sqrt(2) * A[:, 0] * A[:, 1], np.sqrt(2) * A,
                                np.ones(len(A))])
    for x, z in zip(X, Z):
        d2 = np.sum((phi2(x[None]) - phi2(z[None])) ** 2)
        assert np.isclose(float(expr.subs({x1: x[0], x2: x[1], xp1: z[0], xp2: z[1]})), d2)


def test_unclipped_step_is_the_minimiser_along_the_constraint():
    """Derive alpha2_unc of Psi_p from the two-variable problem, for each of the four label pairs."""
    ref = load_reference("smo")
    a1, a2, K11, K22, K12, v1, v2, p1, p2, t = _sym("a1 a2 K11 K22 K12 v1 v2 p1 p2 t")
    expected = ref.smo_unclipped_alpha2()
    names = {s.name: s for s in expected.free_symbols}
    for y1, y2 in itertools.product((1, -1), repeat=2):
        # Psi_p = 1/2 a^T Q a - p1 a1 - p2 a2 + (terms linear in a1, a2 from the fixed multipliers)
        def f(al1, al2):
            return (K11 * al1**2 / 2 + K22 * al2**2 / 2 + y1 * y2 * K12 * al1 * al2 - p1 * al1 - p2 * al2
                    + y1 * v1 * al1 + y2 * v2 * al2)
        # move along the constraint y1 a1 + y2 a2 = const: a1 -> a1 - y1 y2 t, a2 -> a2 + t
        phi = f(a1 - y1 * y2 * t, a2 + t)
        (t_star,) = sp.solve(sp.diff(phi, t), t)
        # kernel parts of the scores g_i = y1 a1 K_i1 + y2 a2 K_i2 + v_i
        g1 = y1 * a1 * K11 + y2 * a2 * K12 + v1
        g2 = y1 * a1 * K12 + y2 * a2 * K22 + v2
        formula = expected.subs({names["a2"]: a2, names["y1"]: y1, names["y2"]: y2, names["g1"]: g1,
                                 names["g2"]: g2, names["p1"]: p1, names["p2"]: p2,
                                 names["K11"]: K11, names["K22"]: K22, names["K12"]: K12})
        assert sp.simplify(a2 + t_star - formula) == 0, (y1, y2)


def test_smo_pieces_solve_a_small_svm():
    """Plain SMO built from the reference pieces reaches linclf.SVC's dual optimum."""
    ref = load_reference("smo")
    from linclf import SVC
    from linclf.datasets import make_gaussian_classes

    X, y01 = make_gaussian_classes(n_samples=40, random_state=3)
    y = np.where(y01 == np.unique(y01)[1], 1.0, -1.0)
    C = 1.0
    K = X @ X.T
    alpha, b = np.zeros(len(y)), 0.0
    for _ in range(500):
        changed = 0
        for i in range(len(y)):
            E = K @ (alpha * y) + b - y
            if not ((y[i] * E[i] < -1e-6 and alpha[i] < C) or (y[i] * E[i] > 1e-6 and alpha[i] > 0)):
                continue
            # Platt's second choice: largest |E_i - E_j| first, then the others
            for j in np.argsort(-np.abs(E - E[i])):
                idx = [i, int(j)]
                if j == i or K[i, i] + K[j, j] - 2 * K[i, j] <= 1e-12:
                    continue
                new = ref.smo_pair_update(alpha[idx], y[idx], E[idx], K[np.ix_(idx, idx)], C)
                if np.abs(new - alpha[idx]).max() > 1e-12:
                    b = ref.smo_bias(b, E[idx], y[idx], alpha[idx], new, K[np.ix_(idx, idx)], C)
                    alpha[idx] = new
                    changed += 1
                    break
        if not changed:
            break
    assert np.all(alpha >= -1e-12) and np.all(alpha <= C + 1e-12) and abs(alpha @ y) < 1e-9
    svm = SVC(C=C, kernel="linear", tol=1e-8).fit(X, y)
    W = load_reference("duality").dual_objective
    assert abs(W(alpha, X, y) - W(svm.alpha_, X, y)) < 1e-4 * max(1.0, abs(W(alpha, X, y)))
    # smo_bias kept b consistent: the same hyperplane as the library's
    assert np.allclose(X.T @ (alpha * y), svm.coef_[0], atol=1e-3)
    assert abs(b - svm.intercept_[0]) < 1e-3


def test_hinge_subgradient_against_linclf_losses():
    from linclf.losses import hinge, hinge_grad

    ref = load_reference("losses")
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(30, 3)), np.where(rng.random(30) < 0.5, -1.0, 1.0)
    w, b, lam = rng.normal(size=3), 0.2, 0.3
    J, g_w, g_b = ref.hinge_subgradient(w, b, X, y, lam)
    m = y * (X @ w + b)
    assert np.isclose(J, hinge(m).mean() + lam / 2 * w @ w)
    assert np.allclose(g_w, X.T @ (hinge_grad(m) * y) / len(y) + lam * w)
    assert np.isclose(g_b, np.sum(hinge_grad(m) * y) / len(y))


def test_logistic_bits_and_exp_minimizer():
    from linclf.losses import logistic

    ref = load_reference("losses")
    m = np.linspace(-50, 50, 11)
    assert np.allclose(ref.logistic_loss_bits(m), logistic(m) / np.log(2))
    assert np.all(ref.logistic_loss_bits(m) >= (m <= 0))        # above the zero-one loss
    q = sp.Symbol("q", positive=True)
    f_star = ref.exp_loss_minimizer()
    f = sp.Symbol("f", real=True)
    risk = q * sp.exp(-f) + (1 - q) * sp.exp(f)
    assert sp.simplify(sp.diff(risk, f).subs(f, f_star)) == 0
    assert sp.simplify(sp.diff(risk, f, 2).subs(f, f_star)) != 0     # (a minimum: risk is convex)


# --------------------------------------------------------------------------
# the sandbox (the pages: test_exercise_pages.py)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("set_name", MORE_SETS)
def test_sandboxed_reference_and_stub(set_name, tmp_path):
    from linclf_grader.grade import grade_submission

    stub = tmp_path / f"{set_name}_stub.py"
    stub.write_text(get_set(set_name).template())
    good = grade_submission(SOLUTIONS / f"{set_name}.py", set_name, timeout=10)
    assert good["score"] == good["max_score"] == get_set(set_name).max_points(), good["tests"]
    bad = grade_submission(stub, set_name, timeout=10)
    assert bad["score"] == 0 and bad["max_score"] == good["max_score"]
    assert all(t["status"] == "failed" and t["output"] for t in bad["tests"])
