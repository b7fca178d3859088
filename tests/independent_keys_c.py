"""Independent answers for the sets smo and losses (see ``tests/independent_keys_a.py``)."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import scipy.optimize
import sympy as sp
from independent_keys_a import key as _key
from independent_keys_b import dual_qp

INDEPENDENT, COMPARE, EXTRA = {}, {}, {}


def key(set_name, exercise):
    return _key(set_name, exercise, INDEPENDENT)


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


def _pair_psi_p():
    """Psi_p of the pair (a1 - y1 y2 t', a2 + t') written with the other multipliers' parts v_i
    of the scores, in terms of g_i = y1 a1 K_i1 + y2 a2 K_i2 + v_i."""
    a1, a2, y1, y2, K11, K22, K12, v1, v2, t, g1, g2, p1, p2 = sp.symbols(
        "a1 a2 y1 y2 K11 K22 K12 v1 v2 t g1 g2 p1 p2", real=True)
    n1, n2 = a1 - y1 * y2 * (t - a2), t      # t is the new alpha2; y1 alpha1 + y2 alpha2 is kept
    psi = (K11 * n1**2 + K22 * n2**2 + 2 * y1 * y2 * K12 * n1 * n2) / 2 + y1 * n1 * v1 + y2 * n2 * v2 \
        - p1 * n1 - p2 * n2
    vs = sp.solve([y1 * a1 * K11 + y2 * a2 * K12 + v1 - g1, y1 * a1 * K12 + y2 * a2 * K22 + v2 - g2],
                  [v1, v2], dict=True)[0]
    return psi.subs(vs), (y1, y2, t)


@key("smo", "smo_unclipped_alpha2")
def _():
    psi_t, (y1, y2, t) = _pair_psi_p()
    return sp.solve(sp.diff(psi_t, t), t)[0]          # still with y1, y2 free: compared at +-1


def _compare_in_both_labels(r, i, args, kwargs):
    r, i = (sp.sympify(e) for e in (r, i))
    r, i = (e.xreplace({s: sp.Symbol(s.name) for s in e.free_symbols}) for e in (r, i))
    rng = np.random.default_rng(7)
    for l1, l2 in itertools.product((1, -1), repeat=2):
        d = (r - i).subs({"y1": l1, "y2": l2})
        names = sorted(s.name for s in d.free_symbols)
        for _ in range(6):
            pt = {sp.Symbol(n): rng.uniform(0.3, 2.0) * rng.choice([-1, 1]) for n in names}
            assert abs(complex(d.xreplace(pt).evalf())) < 1e-9, (l1, l2, d)


COMPARE[("smo", "smo_unclipped_alpha2")] = _compare_in_both_labels


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


def _unclipped_extra(ref):
    # with p1 = p2 = 1 the step is the chapter's a2 + y2 (E1 - E2) / kappa, E_i = g_i + b - y_i
    got = ref()
    got = got.xreplace({s: sp.Symbol(s.name) for s in got.free_symbols})
    a2, g1, g2, b, K11, K22, K12 = sp.symbols("a2 g1 g2 b K11 K22 K12")
    for l1, l2 in itertools.product((1, -1), repeat=2):
        chapter = a2 + l2 * ((g1 + b - l1) - (g2 + b - l2)) / (K11 + K22 - 2 * K12)
        assert sp.simplify(got.subs({"y1": l1, "y2": l2, "p1": 1, "p2": 1}) - chapter) == 0


EXTRA[("smo", "smo_unclipped_alpha2")] = _unclipped_extra


@key("smo", "smo_bounds")
def bounds(alpha, y, C):
    # min and max of alpha2 over the feasible segment, by linear programming
    zeta = y[0] * alpha[0] + y[1] * alpha[1]
    A_eq, b_eq = [[y[0], y[1]]], [zeta]
    caps = [(0, float(c)) for c in np.broadcast_to(C, (2,))]
    lo = scipy.optimize.linprog([0, 1], A_eq=A_eq, b_eq=b_eq, bounds=caps).x[1]
    hi = scipy.optimize.linprog([0, -1], A_eq=A_eq, b_eq=b_eq, bounds=caps).x[1]
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

    C = np.broadcast_to(np.asarray(C, dtype=float), (len(y),)).copy()     # one cap per multiplier
    if np.linalg.eigvalsh(K).min() < -1e-9:
        # not convex: any KKT point; SLSQP's, with b in the middle of the KKT bracket
        alpha, _ = dual_qp(K, y, C)
        alpha = np.where(alpha < 1e-10 * C, 0.0, np.where(alpha > C * (1 - 1e-10), C, alpha))
        F = K @ (alpha * y) - y
        up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
        low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
        return alpha, float(-(F[up].min() + F[low].max()) / 2)
    # scikit-learn's per-sample caps: C_i = C * sample_weight_i
    model = SVC(C=1.0, kernel="precomputed", tol=1e-10, max_iter=10**7).fit(K, y, sample_weight=C)
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
    assert math.isclose(psi_r, psi_i, rel_tol=1e-6, abs_tol=1e-9 * float(np.max(C))), (psi_r, psi_i)
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


@key("losses", "class_weight_error")
def _():
    # from the problem statement: minimise the weighted risk in p = sigma(f) instead of f
    cp, cm, q, p = sp.symbols("cp cm q p", positive=True)
    f = sp.Symbol("f", real=True)
    risk = -cp * q * sp.log(p) - cm * (1 - q) * sp.log(1 - p)
    p_star = sp.solve(sp.diff(risk, p), p)[0]                 # sigma(f*) = cp q / (cp q + cm (1 - q))
    threshold = sp.solve(sp.Eq(p_star, sp.Rational(1, 2)), q)[0]
    assert sp.simplify(threshold - cp / (cp + cm)) != 0       # the source's step 3 is wrong ...
    assert sp.simplify(p_star - q) != 0                       # ... and so is its step 4
    q_of_f = sp.solve(sp.Eq(p_star, 1 / (1 + sp.exp(-f))), q)[0]
    return 3, threshold, q_of_f
