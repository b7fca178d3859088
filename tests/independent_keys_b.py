"""Independent answers for the sets margin, duality, kernels, smo and losses (see
``tests/independent_keys_a.py``)."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import scipy.optimize
import sympy as sp
from independent_keys_a import key as _key

INDEPENDENT, COMPARE, EXTRA = {}, {}, {}


def key(set_name, exercise):
    return _key(set_name, exercise, INDEPENDENT)


def dual_qp(K, y, C):
    """min 1/2 a^T Q a - sum a, 0 <= a <= C, a.y = 0, by scipy's SLSQP."""
    Q = (y[:, None] * y[None, :]) * K
    n = len(y)
    res = scipy.optimize.minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.zeros(n), jac=lambda a: Q @ a - 1,
                                  bounds=[(0, C)] * n, method="SLSQP",
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
    A = -np.column_stack([-np.ones(len(y)), y]) * 1.0
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
    L = (sum(v**2 for v in w) / 2 + C / 2 * sum(v**2 for v in xi)
         - sum(alpha[i] * (sp.nsimplify(y[i]) * f[i] - 1 + xi[i]) for i in range(N)))
    sol = sp.solve([sp.diff(L, v) for v in (*w, *xi)], [*w, *xi], dict=True)[0]
    # dL/db = -sum alpha_i y_i = 0 is the dual's constraint: the b term drops out under it
    return sp.expand(L.subs(sol).subs(b, 0))


def _l2_extra(ref):
    """Strong duality on data no line separates: max of the dual = min of the primal (scipy)."""
    X = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.0], [1.0, -0.5], [0.5, 0.5], [1.5, 1.0]])
    y = np.array([-1.0, 1.0, 1.0, -1.0, 1.0, -1.0])
    C = 2.0
    primal = scipy.optimize.minimize(
        lambda v: 0.5 * v[:2] @ v[:2] + C / 2 * np.sum(np.maximum(0, 1 - y * (X @ v[:2] + v[2])) ** 2),
        np.zeros(3), method="BFGS", options={"gtol": 1e-12})
    expr = ref(X, y)
    syms = {s.name: s for s in expr.free_symbols}
    fn = sp.lambdify([syms[f"alpha{i + 1}"] for i in range(6)] + [syms["C"]], expr)
    dual = scipy.optimize.minimize(lambda a: -fn(*a, C), np.ones(6), method="SLSQP", bounds=[(0, None)] * 6,
                                   constraints=[{"type": "eq", "fun": lambda a: a @ y}], options={"ftol": 1e-14})
    assert math.isclose(-dual.fun, primal.fun, rel_tol=1e-6)
    from linclf_grader.sets.duality import P_L2
    assert math.isclose(P_L2, primal.fun, rel_tol=1e-7)


EXTRA[("duality", "l2svm_dual")] = _l2_extra


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


@key("kernels", "poly2_features")
def phi2(X):
    # sqrt of the multinomial coefficients of (x1 z1 + x2 z2 + 1)^2, monomial by monomial
    rows = []
    for x1, x2 in X:
        rows.append([1.0, math.sqrt(2) * x1, math.sqrt(2) * x2, x1 * x1, math.sqrt(2) * x1 * x2, x2 * x2])
    return np.array(rows)


COMPARE[("kernels", "poly2_features")] = lambda r, i, a, k: np.testing.assert_allclose(r @ r.T, i @ i.T)


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
    return [table[c] for c in candidates]


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


@key("kernels", "corrected_feature_map")
def _():
    x1, x2, x3, xp1, xp2 = sp.symbols("x1 x2 x3 xp1 xp2", real=True)
    printed = lambda a, b: [a, b, a**2, sp.sqrt(2) * a * b, b, b**2]  # noqa: E731
    computed = sp.expand(sum(u * v for u, v in zip(printed(x1, x2), printed(xp1, xp2))))
    # the monomials of x.x' + (x.x')^2 on R^3, with the square roots of their coefficients
    xs = (x1, x2, x3)
    phi = list(xs) + [xs[i] * xs[j] * (1 if i == j else sp.sqrt(2)) for i in range(3) for j in range(i, 3)]
    return computed, sp.Matrix(phi)


def _feature_map_extra(ref):
    _, phi3 = ref()
    x = sp.symbols("x1 x2 x3")
    entries = [e.xreplace({s: sp.Symbol(s.name) for s in e.free_symbols}) for e in phi3]
    # the kernel's monomials span 3 + 6 = 9 functions: no map with fewer features exists
    k = sp.Poly(sp.expand(sum(a * b for a, b in zip(x, sp.symbols("z1:4")))
                          + sum(a * b for a, b in zip(x, sp.symbols("z1:4"))) ** 2), *x)
    assert len(entries) == len(k.monoms()) == 9


EXTRA[("kernels", "corrected_feature_map")] = _feature_map_extra


def _feature_map_compare(r, i, args, kwargs):
    from test_answer_keys import same

    same(r[0], i[0], where="computed")
    x = sp.symbols("x1:4")
    z = sp.symbols("z1:4")

    def dot(phi):
        e = [t.xreplace({s: sp.Symbol(s.name) for s in t.free_symbols}) for t in phi]
        return sp.expand(sum(a * a.xreplace(dict(zip(x, z))) for a in e))
    assert sp.expand(dot(r[1]) - dot(i[1])) == 0 and len(r[1]) == len(i[1])


COMPARE[("kernels", "corrected_feature_map")] = _feature_map_compare


# --------------------------------------------------------------------------
# smo: the pair's problem written out and solved by sympy / scipy
# --------------------------------------------------------------------------
def _pair_psi():
    """Psi of the pair (a1 + y1 y2 (a2 - t), t) with the others fixed, in terms of the errors:
    the v_i = sum_{j > 2} alpha_j y_j K_ij are eliminated with E_i = f(x_i) - y_i."""
    a1, a2, y1, y2, K11, K22, K12, v1, v2, b, t, E1, E2 = sp.symbols(
        "a1 a2 y1 y2 K11 K22 K12 v1 v2 b t E1 E2", real=True)
    n1 = a1 + y1 * y2 * (a2 - t)             # keeps y1 alpha1 + y2 alpha2 fixed
    psi = lambda p, q: (K11 * p**2 + K22 * q**2 + 2 * y1 * y2 * K12 * p * q) / 2 \
        + y1 * p * v1 + y2 * q * v2 - p - q  # noqa: E731
    Ef1 = y1 * a1 * K11 + y2 * a2 * K12 + v1 + b - y1
    Ef2 = y1 * a1 * K12 + y2 * a2 * K22 + v2 + b - y2
    vs = sp.solve([Ef1 - E1, Ef2 - E2], [v1, v2], dict=True)[0]
    return psi(n1, t).subs(vs), psi(a1, a2).subs(vs), (a1, a2, y1, y2, K11, K22, K12, t, E1, E2)


@key("smo", "smo_unclipped_alpha2")
def _():
    psi_t, _, (a1, a2, y1, y2, K11, K22, K12, t, E1, E2) = _pair_psi()
    best = sp.solve(sp.diff(psi_t, t), t)[0]
    # labels are +-1: the answer may not depend on y1 once y1^2 = y2^2 = 1
    return sp.simplify(best.subs(y1, 1))


def _at_labels(expr, y1=1):
    return expr


def _compare_in_labels(r, i, args, kwargs):
    r, i = sp.sympify(r), sp.sympify(i)
    for label in (1, -1):
        same_expr = [(e.xreplace({s: sp.Symbol(s.name) for s in e.free_symbols})) for e in (r, i)]
        d = (same_expr[0] - same_expr[1]).subs("y2", label)
        names = sorted(s.name for s in d.free_symbols)
        rng = np.random.default_rng(label + 5)
        for _ in range(6):
            pt = {sp.Symbol(n): rng.uniform(0.3, 2.0) * rng.choice([-1, 1]) for n in names}
            if "kappa" in names:
                pt[sp.Symbol("kappa")] = abs(pt[sp.Symbol("kappa")])
            assert abs(complex(d.xreplace(pt).evalf())) < 1e-9, (label, d)


COMPARE[("smo", "smo_unclipped_alpha2")] = _compare_in_labels


def _unclipped_extra(ref):
    # with y1 = -1 as well: the pair's optimum does not depend on y1
    psi_t, _, (a1, a2, y1, y2, K11, K22, K12, t, E1, E2) = _pair_psi()
    best = sp.solve(sp.diff(psi_t, t), t)[0]
    got = ref()
    got = got.xreplace({s: sp.Symbol(s.name) for s in got.free_symbols})
    for l1, l2 in itertools.product((1, -1), repeat=2):
        d = sp.simplify(best.subs({y1: l1, y2: l2}) - got.subs(sp.Symbol("y2"), l2).xreplace(
            {sp.Symbol(n): sp.Symbol(n, real=True) for n in ("a2", "E1", "E2", "K11", "K22", "K12")}))
        assert d == 0


EXTRA[("smo", "smo_unclipped_alpha2")] = _unclipped_extra


@key("smo", "smo_bounds")
def bounds(alpha, y, C):
    # min and max of alpha2 over the feasible segment, by linear programming
    zeta = y[0] * alpha[0] + y[1] * alpha[1]
    A_eq, b_eq = [[y[0], y[1]]], [zeta]
    lo = scipy.optimize.linprog([0, 1], A_eq=A_eq, b_eq=b_eq, bounds=[(0, C), (0, C)]).x[1]
    hi = scipy.optimize.linprog([0, -1], A_eq=A_eq, b_eq=b_eq, bounds=[(0, C), (0, C)]).x[1]
    return float(lo), float(hi)


@key("smo", "smo_pair_update")
def _(alpha, y, E, K, C):
    # minimise Psi along the segment with scipy (E fixes the linear part up to a constant)
    L, H = bounds(alpha, y, C)
    kappa = K[0, 0] + K[1, 1] - 2 * K[0, 1]
    lin = -y[1] * (E[0] - E[1])                 # dPsi/dalpha2 at the old point along the line
    f = lambda a2: lin * (a2 - alpha[1]) + kappa * (a2 - alpha[1]) ** 2 / 2  # noqa: E731
    res = scipy.optimize.minimize(lambda v: f(v[0]), [(L + H) / 2], jac=lambda v: [lin + kappa * (v[0] - alpha[1])],
                                  bounds=[(L, H)], method="L-BFGS-B", options={"ftol": 1e-16, "gtol": 1e-14})
    a2 = float(res.x[0])
    return np.array([alpha[0] + y[0] * y[1] * (alpha[1] - a2), a2])


def _pair_extra(ref):
    # the linear coefficient used above is the derivative of the pair's Psi (sympy)
    psi_t, _, syms = _pair_psi()
    a1, a2, y1, y2, K11, K22, K12, t, E1, E2 = syms
    for l1, l2 in itertools.product((1, -1), repeat=2):
        slope = sp.diff(psi_t, t).subs(t, a2).subs({y1: l1, y2: l2})
        assert sp.simplify(slope - (-l2 * (E1 - E2))) == 0


EXTRA[("smo", "smo_pair_update")] = _pair_extra


@key("smo", "smo_bias")
def _(b, E, y, alpha_old, alpha_new, K, C):
    # f_new(x_k) = f_old(x_k) + sum_j dalpha_j y_j K_jk + (b_new - b); solve f_new(x_k) = y_k
    d = (alpha_new - alpha_old) * y
    f_old = E + y
    bk = [y[k] - (f_old[k] + d @ K[:, k] - b) for k in (0, 1)]
    free = [0 < alpha_new[k] < C for k in (0, 1)]
    return float(bk[0] if free[0] else bk[1] if free[1] else (bk[0] + bk[1]) / 2)


@key("smo", "second_order_gain")
def _():
    psi_t, psi_old, (a1, a2, y1, y2, K11, K22, K12, t, E1, E2) = _pair_psi()
    kappa, a2n = sp.symbols("kappa a2n", real=True)
    gain = sp.expand(psi_old - psi_t.subs(t, a2n))
    gain = sp.expand(gain.subs(y1, 1).subs(K11, kappa - K22 + 2 * K12))
    return sp.simplify(gain)


COMPARE[("smo", "second_order_gain")] = _compare_in_labels


@key("smo", "smo_solver")
def _(K, y, C, tol=1e-3, max_steps=100_000):
    from sklearn.svm import SVC

    if np.linalg.eigvalsh(K).min() < -1e-9:
        # not convex: any KKT point; SLSQP's, with b in the middle of the KKT bracket
        alpha, _ = dual_qp(K, y, C)
        alpha = np.where(alpha < 1e-10 * C, 0.0, np.where(alpha > C * (1 - 1e-10), C, alpha))
        F = K @ (alpha * y) - y
        up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
        low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
        return alpha, float(-(F[up].min() + F[low].max()) / 2)
    model = SVC(C=C, kernel="precomputed", tol=1e-10, max_iter=10**7).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    return alpha, float(model.intercept_[0])


def _solver_compare(r, i, args, kwargs):
    K, y, C = args[:3]
    alpha_r, b_r = r
    v = alpha_r * y
    psi_r = 0.5 * v @ K @ v - alpha_r.sum()
    if np.linalg.eigvalsh(K).min() < -1e-9:
        return                                 # both are KKT points, which the tests check
    alpha_i = i[0]
    psi_i = 0.5 * (alpha_i * y) @ K @ (alpha_i * y) - alpha_i.sum()
    psi_q = dual_qp(K, y, C)[1]
    assert math.isclose(psi_r, psi_i, rel_tol=1e-6, abs_tol=1e-9 * C), (psi_r, psi_i)
    assert psi_r <= psi_q + 1e-6 * abs(psi_q), (psi_r, psi_q)


COMPARE[("smo", "smo_solver")] = _solver_compare


def _solver_extra(ref):
    """The trial's 43 points: the optimum is -20.155 (SLSQP), which the reference reaches."""
    spec = __import__("exercise_harness").load_reference("smo")
    X, y = spec._duplicates_of_opposite_labels()
    K = X @ X.T
    psi_q = dual_qp(K, y, 1.0)[1]
    assert abs(psi_q - (-20.155)) < 1e-3
    alpha, b = ref(K, y, 1.0, 1e-8, 5000)
    assert math.isclose(0.5 * (alpha * y) @ K @ (alpha * y) - alpha.sum(), psi_q, rel_tol=1e-6)
    from linclf_grader.sets.smo import smo_twin
    assert math.isclose(smo_twin(K, y, 1.0)[2], psi_q, rel_tol=1e-6)
    # the indefinite kernel of the hidden test is indefinite indeed
    Ki, _ = spec.indefinite_kernel()
    assert np.linalg.eigvalsh(Ki).min() < -1


EXTRA[("smo", "smo_solver")] = _solver_extra


# --------------------------------------------------------------------------
# losses
# --------------------------------------------------------------------------
@key("losses", "hinge_subgradient")
def _(w, b, X, y, lam=0.0):
    N = len(y)
    J, gw, gb = 0.0, [lam * float(v) for v in w], 0.0
    for x, t in zip(X, y):
        m = t * (sum(float(a) * float(c) for a, c in zip(w, x)) + b)
        J += max(0.0, 1 - m) / N
        if m <= 1:
            gw = [g - t * float(c) / N for g, c in zip(gw, x)]
            gb -= t / N
    return J + lam / 2 * sum(float(v) ** 2 for v in w), np.array(gw), gb


@key("losses", "logistic_loss_bits")
def _(m):
    m = np.asarray(m, dtype=float)
    return np.array([float(mpmath.log(1 + mpmath.exp(-mpmath.mpf(v)), 2)) for v in m.ravel()]).reshape(m.shape)


@key("losses", "exp_loss_minimizer")
def _():
    q = sp.Symbol("q", positive=True)
    f = sp.Symbol("f", real=True)
    sols = sp.solve(sp.diff(q * sp.exp(-f) + (1 - q) * sp.exp(f), f), f)
    real = [s for s in sols if s.subs(q, sp.Rational(1, 3)).is_real]
    return real[0]


_LOSSES = {"quartic": lambda m: (1 - m) ** 4, "cubic_hinge": lambda m: np.maximum(0, 1 - m) ** 3,
           "savage": lambda m: 1 / (1 + np.exp(m)) ** 2}


@key("losses", "conditional_risk_minimiser")
def _(loss):
    """The stationary point of the conditional risk by sympy's solve, the real root in range."""
    q = sp.Symbol("q", positive=True)
    f = sp.Symbol("f", real=True)
    if loss == "savage":
        u = sp.Symbol("u", positive=True)                       # u = exp(f)
        risk = q / (1 + u) ** 2 + (1 - q) / (1 + 1 / u) ** 2
        roots = sp.solve(sp.diff(risk, u), u)
        return sp.log(next(r for r in roots if r.subs(q, sp.Rational(1, 3)).is_positive))
    # on [-1, 1] the cubic hinge is (1 - m)^3 on both sides
    l = (lambda m: (1 - m) ** 4) if loss == "quartic" else (lambda m: (1 - m) ** 3)  # noqa: E731
    roots = sp.solve(sp.diff(q * l(f) + (1 - q) * l(-f), f), f)
    for r in roots:
        v = complex(r.subs(q, sp.Rational(1, 3)).evalf())
        if abs(v.imag) < 1e-12 and -1 <= v.real <= 1:
            return r
    raise AssertionError("no real root")


def _minimiser_at(loss, q):
    """f*(q) by global numerical minimisation: a grid, then scipy's bounded Brent."""
    l = _LOSSES[loss]
    risk = lambda f: q * l(f) + (1 - q) * l(-f)  # noqa: E731
    grid = np.linspace(-12, 12, 24001)
    f0 = grid[np.argmin(risk(grid))]
    return scipy.optimize.minimize_scalar(risk, bounds=(f0 - 2e-3, f0 + 2e-3), method="bounded",
                                          options={"xatol": 1e-12}).x


def _minimiser_compare(r, i, args, kwargs):
    q = sp.Symbol("q")
    expr, indep = (e.xreplace({s: sp.Symbol(s.name) for s in e.free_symbols}) for e in (r, i))
    for qv in (0.05, 0.2, 0.35, 0.5, 0.65, 0.9):      # only 0 < q < 1 is meaningful
        value = float(expr.subs(q, qv))
        solved = complex(sp.limit(indep, q, sp.Rational(str(qv))).evalf())   # 0/0 at q = 1/2
        assert abs(value - solved.real) < 1e-9 and abs(solved.imag) < 1e-9, (args, qv)
        assert abs(value - _minimiser_at(args[0], qv)) < 1e-5, (args, qv)


COMPARE[("losses", "conditional_risk_minimiser")] = _minimiser_compare


@key("losses", "pegasos")
def _(X, y, lam, n_iter=1000, seed=0):
    rng = np.random.default_rng(seed)
    w = [0.0] * X.shape[1]
    for t in range(1, n_iter + 1):
        i = int(rng.integers(len(y)))
        eta = 1.0 / (lam * t)
        hit = y[i] * sum(a * float(c) for a, c in zip(w, X[i])) < 1
        w = [(1 - eta * lam) * a + (eta * y[i] * float(c) if hit else 0.0) for a, c in zip(w, X[i])]
        norm = math.sqrt(sum(a * a for a in w))
        if norm > 1 / math.sqrt(lam):
            w = [a / (norm * math.sqrt(lam)) for a in w]
    return np.array(w)


def _pegasos_extra(ref):
    """linclf's optimum (used by the public tests) against scikit-learn's LinearSVC."""
    from sklearn.svm import LinearSVC

    from linclf_grader.sets.losses import _two_clouds, optimum_by_linclf, svm_objective

    for seed, n, shift, lam in ((11, 40, 1.0, 0.1), (12, 60, 0.8, 0.01), (13, 40, 1.0, 10.0)):
        X, y = _two_clouds(seed, n=n, shift=shift)
        sk = LinearSVC(C=1 / (lam * len(y)), loss="hinge", fit_intercept=False, tol=1e-10,
                       max_iter=10**6, dual=True).fit(X, y).coef_[0]
        assert math.isclose(svm_objective(optimum_by_linclf(X, y, lam), X, y, lam),
                            svm_objective(sk, X, y, lam), rel_tol=1e-5)


EXTRA[("losses", "pegasos")] = _pegasos_extra


@key("losses", "hinge_form_error")
def _():
    C, N, lam, k = sp.symbols("C N lam k", positive=True)
    w2, H = sp.symbols("w2 H", positive=True)           # ||w||^2 and the sum of the hinges
    primal = w2 / 2 + C * H
    # step (3): the factor k with H + w2 / (2C) = k * primal for all w2, H
    factor = sp.solve(sp.Poly(sp.expand(H + w2 / (2 * C) - k * primal), w2, H).coeffs(), k, dict=True)[0][k]
    assert factor != sp.Rational(1, 2)                  # so step 3 is the first wrong one
    # the mean form H / N + lam/2 w2 proportional to the primal: lam / 2 : 1/N = 1/2 : C
    lam_mean = sp.solve(sp.Eq((lam / 2) / (1 / N), sp.Rational(1, 2) / C), lam)[0]
    return 3, factor, lam_mean
