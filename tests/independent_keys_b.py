"""Independent answers for the sets margin, duality, kernels, smo and losses (see
``tests/independent_keys_a.py``)."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import scipy.optimize
import sympy as sp
from independent_keys_a import key as _key

INDEPENDENT, COMPARE, EXTRA = {}, {}, {}


def key(set_name, exercise):
    return _key(set_name, exercise, INDEPENDENT)


def dual_qp(K, y, C):
    """min 1/2 a^T Q a - sum a, 0 <= a_i <= C_i, a.y = 0, by scipy's SLSQP."""
    Q = (y[:, None] * y[None, :]) * K
    n = len(y)
    # C: None (hard margin), one cap, or one cap per multiplier
    caps = [(0, None)] * n if C is None else [(0, float(c)) for c in np.broadcast_to(C, (n,))]
    res = scipy.optimize.minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(n), jac=lambda a: Q @ a - 1,
                                  bounds=caps, method="SLSQP",
                                  constraints=[{"type": "eq", "fun": lambda a: a @ y, "jac": lambda a: y}],
                                  options={"ftol": 1e-14, "maxiter": 2000})
    return res.x, float(res.fun)


# --------------------------------------------------------------------------
# margin
# --------------------------------------------------------------------------
def _fm(X, y, w, b):
    return [t * (sum(float(a) * float(c) for a, c in zip(w, x)) + b) for x, t in zip(X, y)]


@key("margin", "geometric_margin")
def _(X, y, w, b):
    return min(_fm(X, y, w, b)) / math.sqrt(sum(float(v) ** 2 for v in w))


@key("margin", "canonical_hyperplane")
def _(X, y, w, b):
    m = min(_fm(X, y, w, b))
    if m <= 0:
        raise ValueError("does not separate")
    return np.array([float(v) / m for v in w]), b / m


@key("margin", "best_offset")
def _(X, y, u):
    # max t over (t, b) with y_i (u_hat.x_i + b) >= t: a linear program
    uh = u / np.linalg.norm(u)
    A = np.column_stack([np.ones(len(y)), -y])
    res = scipy.optimize.linprog([-1.0, 0.0], A_ub=A, b_ub=y * (X @ uh), bounds=[(None, None)] * 2)
    return float(res.x[0]), float(res.x[1])


@key("margin", "two_point_svm")
def _():
    p1, p2, q1, q2 = sp.symbols("p1 p2 q1 q2", real=True)
    w1, w2, b, l1, l2 = sp.symbols("w1 w2 b l1 l2", real=True)
    # the primal with both constraints active, by Lagrange: min |w|^2/2, w.p + b = 1, w.q + b = -1
    L = (w1**2 + w2**2) / 2 - l1 * (w1 * p1 + w2 * p2 + b - 1) + l2 * (w1 * q1 + w2 * q2 + b + 1)
    sol = sp.solve([sp.diff(L, v) for v in (w1, w2, b, l1, l2)], [w1, w2, b, l1, l2], dict=True)[0]
    return sp.Matrix([sp.simplify(sol[w1]), sp.simplify(sol[w2]), sp.simplify(sol[b])])


@key("margin", "support_vector_indices")
def _(X, y, alpha, C, tol=1e-6):
    sv = [i for i, a in enumerate(alpha) if a > tol]
    return (np.array(sv, dtype=int), np.array([i for i in sv if alpha[i] < C - tol], dtype=int),
            np.array([i for i in sv if alpha[i] >= C - tol], dtype=int))


def _hard_margin_scipy(X, y):
    """min |w|^2 / 2 s.t. y_i (w.x_i + b) >= 1 by SLSQP; y_i f(x_i) at the optimum, or None."""
    res = scipy.optimize.minimize(lambda v: 0.5 * v[:2] @ v[:2], np.zeros(3), method="SLSQP",
                                  constraints=[{"type": "ineq", "fun": lambda v: y * (X @ v[:2] + v[2]) - 1}],
                                  options={"ftol": 1e-14, "maxiter": 1000})
    yf = y * (X @ res.x[:2] + res.x[2])
    return (yf, (res.x[:2], float(res.x[2]))) if res.success and yf.min() > 1 - 1e-7 else None


@key("margin", "scaling_counterexample")
def _():
    # another example, found by hand: two positives above a single negative, all three on the
    # margin; stretching x2 tenfold takes (2, 1.5) off it (checked by SLSQP in COMPARE)
    X = np.array([[-1.0, 1.0], [2.0, 1.5], [0.0, -1.0]])
    y = np.array([1.0, 1.0, -1.0])
    s = np.array([1.0, 10.0])
    (w0, b0), (w1, b1) = (_hard_margin_scipy(X * t, y)[1] for t in (np.ones(2), s))
    return X, y, s, w0, b0, w1, b1


def _counterexample_compare(r, i, args, kw):
    """Answers differ by design: each must change the margin points under its own scaling."""
    for X, y, s, w0, b0, w1, b1 in (r, i):
        X, y, s = np.asarray(X, float), np.asarray(y, float), np.asarray(s, float)
        sets = []
        for data, w, b in ((X, w0, b0), (X * s, w1, b1)):
            found = _hard_margin_scipy(data, y)
            assert found is not None
            yf, (w_opt, b_opt) = found
            np.testing.assert_allclose(np.r_[w, b], np.r_[w_opt, b_opt], rtol=1e-5, atol=1e-6)
            on = np.abs(yf - 1) <= 1e-5
            assert np.all(on | (yf >= 1.001))
            sets.append(set(np.flatnonzero(on).tolist()))
        assert sets[0] != sets[1], sets


COMPARE[("margin", "scaling_counterexample")] = _counterexample_compare


@key("margin", "alpha_margin_identity")
def _():
    gamma, w_norm, C = sp.symbols("gamma w_norm C", positive=True)
    xi_sum = sp.Symbol("xi_sum", nonnegative=True)
    return 1 / gamma**2, w_norm**2 + C * xi_sum, w_norm**2 / 2 + C * xi_sum


def _identity_extra(ref):
    """At the optimum of real SVMs (scipy's SLSQP): sum alpha = ||w||^2 + C sum xi, W = P."""
    hard, soft, value = ref()
    sym = {s.name: s for e in (hard, soft, value) for s in e.free_symbols}
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(1.2, 0.8, (8, 2)), rng.normal(-1.2, 0.8, (8, 2))])
    y = np.repeat([1.0, -1.0], 8)
    for C in (0.3, 1e4):
        a, psi = dual_qp(X @ X.T, y, C)
        w = (a * y) @ X
        free = (a > 1e-6 * C) & (a < C * (1 - 1e-6))
        b = np.mean(y[free] - X[free] @ w)
        xi = np.maximum(0, 1 - y * (X @ w + b))
        pt = {"w_norm": np.linalg.norm(w), "C": C, "xi_sum": xi.sum(), "gamma": 1 / np.linalg.norm(w)}
        ev = lambda e: float(e.xreplace({sym[k]: v for k, v in pt.items() if k in sym}))  # noqa: E731
        assert math.isclose(ev(soft), a.sum(), rel_tol=1e-4)
        assert math.isclose(ev(value), -psi, rel_tol=1e-4)
        if xi.sum() < 1e-9:
            assert math.isclose(ev(hard), a.sum(), rel_tol=1e-4)


EXTRA[("margin", "alpha_margin_identity")] = _identity_extra


# --------------------------------------------------------------------------
# duality
# --------------------------------------------------------------------------
@key("duality", "dual_objective")
def _(alpha, X, y):
    n = len(y)
    return float(sum(alpha) - 0.5 * sum(alpha[i] * alpha[j] * y[i] * y[j] * float(X[i] @ X[j])
                                        for i in range(n) for j in range(n)))


@key("duality", "primal_from_dual")
def _(alpha, X, y, C=np.inf):
    w = sum(alpha[i] * y[i] * X[i] for i in range(len(y)))
    free = [j for j in range(len(y)) if 1e-8 < alpha[j] < C - 1e-8]
    if not free:
        raise ValueError("no free support vector")
    return w, sum(y[j] - float(w @ X[j]) for j in free) / len(free)


@key("duality", "small_dual_objective")
def _():
    a = sp.symbols("alpha1 alpha2 alpha3", real=True)
    X = [(1, 2), (2, 0), (-1, 0)]
    y = [1, 1, -1]
    return sum(a) - sp.Rational(1, 2) * sum(a[i] * a[j] * y[i] * y[j] * (X[i][0] * X[j][0] + X[i][1] * X[j][1])
                                            for i in range(3) for j in range(3))


@key("duality", "small_dual_alpha")
def _():
    X = np.array([[2.0, 3.0], [3.0, 0.0], [0.0, 0.0], [4.0, 4.0], [-1.0, 2.0]])
    y = np.array([1.0, 1.0, -1.0, 1.0, -1.0])
    alpha, _ = dual_qp(X @ X.T, y, None)
    return alpha


COMPARE[("duality", "small_dual_alpha")] = lambda r, i, a, k: np.testing.assert_allclose(r, i, atol=1e-6)


def _small_alpha_extra(ref):
    """Exact KKT with fractions: feasibility, y_i f(x_i) >= 1, equality on the support vectors."""
    from fractions import Fraction as F

    X = [(2, 3), (3, 0), (0, 0), (4, 4), (-1, 2)]
    y = [1, 1, -1, 1, -1]
    alpha = [F(v).limit_denominator(1000) for v in ref()]
    assert all(abs(float(a) - v) < 1e-15 for a, v in zip(alpha, ref()))
    assert sum(a * t for a, t in zip(alpha, y)) == 0 and min(alpha) >= 0
    w = [sum(a * t * x[k] for a, t, x in zip(alpha, y, X)) for k in (0, 1)]
    sv = [i for i in range(5) if alpha[i] > 0]
    bs = {t - (w[0] * x[0] + w[1] * x[1]) for i, (x, t) in enumerate(zip(X, y)) if i in sv}
    assert len(bs) == 1
    b = bs.pop()
    assert all(t * (w[0] * x[0] + w[1] * x[1] + b) >= 1 for x, t in zip(X, y))


EXTRA[("duality", "small_dual_alpha")] = _small_alpha_extra


@key("duality", "l2svm_dual")
def _(X, y):
    """The Lagrangian written from the statement and minimised over w, b, xi by sympy."""
    N, d = X.shape
    alpha = sp.symbols(f"alpha1:{N + 1}", real=True)
    C = sp.Symbol("C", positive=True)
    w = sp.symbols(f"w1:{d + 1}", real=True)
    xi = sp.symbols(f"xi1:{N + 1}", real=True)
    b = sp.Symbol("b", real=True)
    f = [sum(w[k] * sp.nsimplify(X[i, k]) for k in range(d)) + b for i in range(N)]
    L = (sum(v**2 for v in w) / 2 + b**2 / 2 + C / 2 * sum(v**2 for v in xi)
         - sum(alpha[i] * (sp.nsimplify(y[i]) * f[i] - 1 + xi[i]) for i in range(N)))
    sol = sp.solve([sp.diff(L, v) for v in (*w, b, *xi)], [*w, b, *xi], dict=True)[0]
    return sp.expand(L.subs(sol))


def _l2_extra(ref):
    """Strong duality on data no line separates: max of the dual = min of the primal (scipy)."""
    X = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [1.0, -0.5], [0.5, 0.5], [1.5, 1.0]])
    y = np.array([-1.0, 1.0, 1.0, -1.0, 1.0, -1.0])
    C = 2.0
    primal = scipy.optimize.minimize(
        lambda v: 0.5 * v @ v + C / 2 * np.sum(np.maximum(0, 1 - y * (X @ v[:2] + v[2])) ** 2),
        np.zeros(3), method="BFGS", options={"gtol": 1e-12})
    expr = ref(X, y)
    syms = {s.name: s for s in expr.free_symbols}
    fn = sp.lambdify([syms[f"alpha{i + 1}"] for i in range(6)] + [syms["C"]], expr)
    dual = scipy.optimize.minimize(lambda a: -fn(*a, C), np.ones(6), method="SLSQP", bounds=[(0, None)] * 6,
                                   options={"ftol": 1e-14})
    assert math.isclose(-dual.fun, primal.fun, rel_tol=1e-6)
    from linclf_grader.sets.duality import P_L2
    assert math.isclose(P_L2, primal.fun, rel_tol=1e-7)


EXTRA[("duality", "l2svm_dual")] = _l2_extra


@key("duality", "bias_interval")
def _(alpha, X, y, C):
    """The primal view: with w fixed, the optimal b minimise sum_i max(0, 1 - y_i (w.x_i + b)),
    convex and piecewise linear with kinks at y_i - w.x_i: evaluate it at every kink (exact
    enough at these sizes) and return the range of the kinks where it is smallest."""
    w = sum(float(alpha[i] * y[i]) * X[i] for i in range(len(y)))
    kinks = sorted(float(y[i] - w @ X[i]) for i in range(len(y)))

    def hinge_sum(b):
        return sum(max(0.0, 1.0 - y[i] * (float(w @ X[i]) + b)) for i in range(len(y)))

    values = [hinge_sum(b) for b in kinks]
    best = min(values)
    at_best = [b for b, v in zip(kinks, values) if v <= best + 1e-9]
    lo, hi = min(at_best), max(at_best)
    # flat beyond the outer kinks only when one class is absent: not in these tests
    return lo, hi


COMPARE[("duality", "bias_interval")] = lambda r, i, args, kw: np.testing.assert_allclose(
    np.asarray(r, float), np.asarray(i, float), rtol=1e-7, atol=1e-7)


@key("duality", "kkt_violations")
def _(X, y, alpha, b, C, tol):
    w = sum(alpha[i] * y[i] * X[i] for i in range(len(y)))
    out = []
    for i in range(len(y)):
        m = y[i] * (float(w @ X[i]) + b)
        a = alpha[i]
        cond = (1 - m) if a <= 0 else (m - 1) if a >= C else abs(m - 1)
        if cond > tol or -a > tol or a - C > tol:
            out.append(i)
    return np.array(out, dtype=int)


# --------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------
@key("kernels", "rbf_gram")
def _(X, Xp, gamma):
    return np.array([[math.exp(-gamma * sum((float(a) - float(c)) ** 2 for a, c in zip(x, z))) for z in Xp]
                     for x in X])


@key("kernels", "poly3_features")
def phi3(X):
    # sqrt of the multinomial coefficients of (x1 z1 + x2 z2 + 1)^3, monomial by monomial
    rows = []
    for x1, x2 in X:
        row = []
        for i in range(4):
            for j in range(4 - i):
                coef = math.factorial(3) / (math.factorial(i) * math.factorial(j) * math.factorial(3 - i - j))
                row.append(math.sqrt(coef) * x1**i * x2**j)
        rows.append(row)
    return np.array(rows)


COMPARE[("kernels", "poly3_features")] = lambda r, i, a, k: np.testing.assert_allclose(r @ r.T, i @ i.T)


@key("kernels", "kernel_decision")
def _(alpha, y, X_train, b, X_new, gamma):
    return np.array([sum(a * t * math.exp(-gamma * float(((xi - x) ** 2).sum()))
                         for a, t, xi in zip(alpha, y, X_train)) + b for x in X_new])


@key("kernels", "feature_distance")
def _():
    x1, x2, xp1, xp2 = sp.symbols("x1 x2 xp1 xp2", real=True)
    r = sp.sqrt(2)
    phi = lambda u, v: sp.Matrix([1, r * u, r * v, u * u, r * u * v, v * v])  # noqa: E731
    d = phi(x1, x2) - phi(xp1, xp2)
    return sp.expand((d.T * d)[0])


def _gauss(X, s):
    return np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / (2 * s * s))


def _k1_choices(X, rng):
    """PSD kernels for k1 (and for k2): Gaussians of two widths, (x.x' + 1)^2, x.x', 1/2,
    and a Gaussian of A x for a random A."""
    A = rng.normal(size=(X.shape[1], 2))
    return [_gauss(X, 0.5), _gauss(X, 2.0), (X @ X.T + 1) ** 2, X @ X.T, 0.5 * np.ones((len(X), len(X))),
            _gauss(X @ A, 0.7)]


def _unit(K):
    return K / max(1.0, np.abs(K).max())        # a positive multiple of a kernel is a kernel


def _normalised(K):
    dg = np.sqrt(np.diag(K))
    return None if np.any(dg <= 1e-12) else K / np.outer(dg, dg)


#: per candidate, its Gram matrix from the Gram matrices K1, K2 of k1, k2 on the points X
GRAM = {
    "k1 + k2": lambda K1, K2, X, r: K1 + K2,
    "k1 - k2": lambda K1, K2, X, r: K1 - K2,
    "k1 * k2": lambda K1, K2, X, r: K1 * K2,
    "3 * k1": lambda K1, K2, X, r: 3 * K1,
    "-k1": lambda K1, K2, X, r: -K1,
    "exp(k1)": lambda K1, K2, X, r: np.exp(_unit(K1)),
    "exp(k1) - 1": lambda K1, K2, X, r: np.expm1(_unit(K1)),
    "k1 - 1": lambda K1, K2, X, r: K1 - 1,
    "k1 + 1": lambda K1, K2, X, r: K1 + 1,
    "(k1 + 2)**3": lambda K1, K2, X, r: (K1 + 2) ** 3,
    "k1**2 - k1": lambda K1, K2, X, r: K1**2 - K1,
    "tanh(k1)": lambda K1, K2, X, r: np.tanh(K1),
    "max(k1, k2)": lambda K1, K2, X, r: np.maximum(K1, K2),
    "k1(x, x') / sqrt(k1(x, x) k1(x', x'))": lambda K1, K2, X, r: _normalised(K1),
    "g(x) k1(x, x') g(x')": lambda K1, K2, X, r: np.outer(np.sin(3 * X[:, 0]) - 0.2, np.sin(3 * X[:, 0]) - 0.2) * K1,
    "k1(A x, A x')": lambda K1, K2, X, r: _gauss(X @ r.normal(size=(X.shape[1], 3)), 0.8),
    "1 / (1 - k1)": lambda K1, K2, X, r: 1 / (1 - 0.9 * _unit(K1)),
    "min(x, x')": lambda K1, K2, X, r: np.minimum.outer(np.abs(X[:, 0]), np.abs(X[:, 0])),
    "max(x, x')": lambda K1, K2, X, r: np.maximum.outer(np.abs(X[:, 0]), np.abs(X[:, 0])),
    "||x - x'||**2": lambda K1, K2, X, r: ((X[:, None] - X[None]) ** 2).sum(-1),
    "(x @ x' - 1)**2": lambda K1, K2, X, r: (X @ X.T - 1) ** 2,
    "cos(x - x')": lambda K1, K2, X, r: np.cos(np.subtract.outer(X[:, 0], X[:, 0])),
}


@functools.lru_cache(maxsize=None)
def closure_table(dims=(1, 2, 3), n_points=25, trials=5, seed=0):
    """True for a candidate whose Gram matrices have no negative eigenvalue (beyond round-off)
    for every choice of k1, k2 and points tried; False as soon as one has."""
    rng = np.random.default_rng(seed)
    table = {c: True for c in GRAM}
    for d in dims:
        for _ in range(trials):
            X = rng.normal(size=(n_points, d)) * rng.choice([0.3, 1.0, 2.0])
            ks = _k1_choices(X, rng)
            for (K1, K2), (c, gram) in itertools.product(itertools.product(ks, ks), GRAM.items()):
                K = gram(K1, K2, X, rng)
                if K is None or not table[c]:
                    continue
                ev = np.linalg.eigvalsh((K + K.T) / 2)
                if ev.min() < -1e-9 * max(1.0, np.abs(ev).max()):
                    table[c] = False
    return table


@key("kernels", "kernel_closure")
def _(candidates):
    table = closure_table()
    return [table[c] for c in candidates]   # the table is computed once (cached)


def _closure_extra(ref):
    from linclf_grader.sets.kernels import CANDIDATES

    table = closure_table()
    assert set(table) == set(CANDIDATES)
    assert ref(list(CANDIDATES)) == [table[c] for c in CANDIDATES]
    # the counterexample of issue 20, by hand: x = 1, x' = -1 in d = 1
    K = (np.outer([1.0, -1.0], [1.0, -1.0]) - 1) ** 2
    assert np.allclose(K, [[0, 4], [4, 0]]) and np.linalg.eigvalsh(K).min() == -4
    assert ref(["(x @ x' - 1)**2"]) == [False]


EXTRA[("kernels", "kernel_closure")] = _closure_extra


@key("kernels", "kernel_perceptron")
def _(K, y, max_epochs=100):
    alpha = [0.0] * len(y)
    for _ in range(max_epochs):
        mistakes = 0
        for t in range(len(y)):
            score = sum(alpha[i] * y[i] * (K[i][t] + 1.0) for i in range(len(y)))   # from scratch
            if y[t] * score <= 0:
                alpha[t] += 1
                mistakes += 1
        if not mistakes:
            return np.array(alpha), float(sum(a * v for a, v in zip(alpha, y))), True
    return np.array(alpha), float(sum(a * v for a, v in zip(alpha, y))), False


@key("kernels", "centring_error")
def _(K, K_new):
    # the centring matrix H = I - 11'/N: Phi~ = H Phi, so K_c = H K H; a new point's row is
    # (k(z, .) - mean over the training points of k(x_k, .)) H, with k(x_k, .) the rows of K
    N = len(K)
    H = np.eye(N) - np.ones((N, N)) / N
    K_new_c = (K_new - np.ones((len(K_new), N)) @ K / N) @ H
    return 3, H @ K @ H, K_new_c


def _centring_extra(ref):
    # the source's claim fails on the smallest example: two points 0 and 1 on a line, k = x x'
    K = np.array([[0.0, 0.0], [0.0, 1.0]])
    source = K - K.mean(axis=1)[:, None] - K.mean(axis=0)[None, :]
    step, K_c, _ = ref(K, K[:1])
    assert step == 3 and np.allclose(K_c, [[0.25, -0.25], [-0.25, 0.25]])   # centred: -1/2, +1/2
    assert not np.allclose(source, K_c)


EXTRA[("kernels", "centring_error")] = _centring_extra
