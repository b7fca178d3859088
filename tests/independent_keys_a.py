"""Independent answers for the sets discriminants, fisher, perceptron, mse, logistic and softmax.

None of this code is shared with ``exercises/solutions``: plain loops, exact fractions,
mpmath, scipy, scikit-learn, and sympy derivations written from the exercise statements.
Used by ``tests/test_answer_keys.py``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.special
import scipy.stats
import sympy as sp

INDEPENDENT, COMPARE, EXTRA = {}, {}, {}


def key(set_name, exercise, table=INDEPENDENT):
    def register(fn):
        table[(set_name, exercise)] = fn
        return fn
    return register


def _sym(names, **kw):
    return sp.symbols(names, **kw)


def lp_separable(X, y, strict=False):
    """True when some (w, b) != 0 has y_i (w.x_i + b) >= 0 for all i and > 0 for some (strict:
    >= 1 for all), by scipy's linprog."""
    Z = y[:, None] * np.column_stack([X, np.ones(len(X))])
    n = Z.shape[1]
    if strict:
        res = scipy.optimize.linprog(np.zeros(n), A_ub=-Z, b_ub=-np.ones(len(y)), bounds=[(None, None)] * n)
        return res.status == 0
    res = scipy.optimize.linprog(-Z.sum(axis=0), A_ub=-Z, b_ub=np.zeros(len(y)), bounds=[(-1, 1)] * n)
    return res.status == 0 and -res.fun > 1e-9


# --------------------------------------------------------------------------
# discriminants
# --------------------------------------------------------------------------
@key("discriminants", "signed_distance")
def _(X, w, b):
    # the closest point p of the hyperplane from the KKT system [[I, w], [w^T, 0]] [p; mu] = [x; -b]
    d = len(w)
    M = np.block([[np.eye(d), w[:, None]], [w[None, :], np.zeros((1, 1))]])
    out = []
    for x in X:
        p = scipy.linalg.solve(M, np.r_[x, -b])[:d]
        side = 1.0 if w @ x + b > 0 else -1.0
        out.append(side * math.dist(x, p))
    return np.array(out)


@key("discriminants", "line_through_points")
def _():
    p1, p2, q1, q2, r1, r2, tau = _sym("p1 p2 q1 q2 r1 r2 tau", real=True)
    # the foot of the perpendicular q + tau (r - q), tau from d/dtau ||p - foot||^2 = 0; the side
    # from the sign of the cross product (r - q) x (p - q) (positive: p to the left)
    foot = [q1 + tau * (r1 - q1), q2 + tau * (r2 - q2)]
    gap2 = (p1 - foot[0]) ** 2 + (p2 - foot[1]) ** 2
    t_star = sp.solve(sp.diff(gap2, tau), tau)[0]
    cross = (r1 - q1) * (p2 - q2) - (r2 - q2) * (p1 - q1)
    return sp.sign(cross) * sp.sqrt(sp.factor(sp.simplify(gap2.subs(tau, t_star))))


@key("discriminants", "normalize_augmented")
def _(X, y):
    return np.array([[y_i * v for v in list(x) + [1.0]] for x, y_i in zip(X, y)])


@key("discriminants", "ovr_predict")
def _(W, b, X):
    out = []
    for x in X:
        positive = [k for k in range(len(b)) if float(np.dot(W[k], x)) + b[k] > 0]
        out.append(positive[0] if len(positive) == 1 else -1)
    return np.array(out, dtype=int)


@key("discriminants", "quadratic_as_linear")
def _(A, w, b):
    x1, x2 = _sym("x1 x2")
    x = sp.Matrix([x1, x2])
    As, ws = sp.Matrix(A.tolist()), sp.Matrix(w.tolist())
    poly = sp.Poly(sp.expand((x.T * As * x)[0] + (ws.T * x)[0] + sp.nsimplify(b)), x1, x2)
    return np.array([float(poly.coeff_monomial(m)) for m in (1, x1, x2, x1**2, x1 * x2, x2**2)])


@key("discriminants", "ovr_ambiguous_fraction")
def _(W, b):
    # exact rational arithmetic on the grid i / 20 with the decimal coefficients; the threshold t
    # is the student's task parameter, a given of the problem like W and b
    from linclf_grader import my_data

    t = Fraction(repr(float(my_data("ovr_ambiguous_fraction")["t"])))
    Wf = [[Fraction(repr(float(v))) for v in row] for row in W]
    bf = [Fraction(repr(float(v))) for v in b]
    grid = [Fraction(i, 20) for i in range(-60, 61)]
    bad = 0
    for g2 in grid:
        for g1 in grid:
            n_pos = sum(1 for k in range(len(bf)) if Wf[k][0] * g1 + Wf[k][1] * g2 + bf[k] > t)
            bad += n_pos != 1
    return bad / len(grid) ** 2


# --------------------------------------------------------------------------
# fisher
# --------------------------------------------------------------------------
def _class_means(X, y):
    return X[y == 1].mean(axis=0), X[y == -1].mean(axis=0)


@key("fisher", "within_class_scatter")
def within(X, y):
    # np.cov with bias=True is the mean of the outer products: times the class size
    return sum(np.atleast_2d(np.cov(X[y == k].T, bias=True)) * (y == k).sum() for k in (1, -1))


@key("fisher", "fisher_direction")
def _(X, y):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    S = within(X, y)
    if np.linalg.cond(S) > 1e12:
        raise ValueError("singular scatter")
    lda = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    w = lda.coef_[0]
    return w / np.linalg.norm(w)


@key("fisher", "fisher_criterion")
def _(w, X, y):
    p = X @ w                                        # project first, then 1-D statistics
    a, c = p[y == 1], p[y == -1]
    return (a.mean() - c.mean()) ** 2 / (((a - a.mean()) ** 2).sum() + ((c - c.mean()) ** 2).sum())


@key("fisher", "midpoint_bias")
def _(w, X, y):
    p = X @ w
    return -(p[y == 1].mean() + p[y == -1].mean()) / 2


@key("fisher", "mean_difference_efficiency")
def _():
    s1, s2 = _sym("s1 s2", positive=True)
    d1, d2 = _sym("d1 d2", real=True)
    q = _sym("q", positive=True)
    S = sp.diag(s1, s2)
    d = sp.Matrix([d1, d2])
    # the maximum of J_F as the non-zero eigenvalue of S^{-1} d d^T (a rank-one generalised
    # eigenproblem), J_F(d) from the projected means and scatters
    J_max = [e for e in (S.inv() * d * d.T).eigenvals() if e != 0][0]
    J_d = (d1 * d1 + d2 * d2) ** 2 / (s1 * d1**2 + s2 * d2**2)
    rho = sp.simplify(J_d / J_max)
    # the worst case: d = (1, q), q > 0 (rho is even in each coordinate and homogeneous);
    # the stationary point of rho in q, then compared with the ends q -> 0 and q -> oo (rho = 1)
    r_q = rho.subs({d1: 1, d2: q})
    crit = [c for c in sp.solve(sp.diff(r_q, q), q) if c.is_positive]
    worst = sp.simplify(r_q.subs(q, crit[0]))
    assert sp.limit(r_q, q, 0) == 1 and sp.limit(r_q, q, sp.oo) == 1
    return rho, worst


@key("fisher", "bayes_rule_shared_covariance")
def _(X, y, p_plus):
    m_p, m_n = _class_means(X, y)
    Sigma = within(X, y) / len(X)
    d = X.shape[1]
    # the log ratio from scipy's Gaussian densities at d + 1 points, then the affine (w, b)
    P = np.vstack([np.zeros(d), np.eye(d)])
    f = (scipy.stats.multivariate_normal(m_p, Sigma).logpdf(P) + math.log(p_plus)
         - scipy.stats.multivariate_normal(m_n, Sigma).logpdf(P) - math.log(1 - p_plus))
    return f[1:] - f[0], float(f[0])


@key("fisher", "whitening_proof")
def _():
    s1, s2 = _sym("s1 s2", positive=True)
    r, d1, d2, w1, w2 = _sym("r d1 d2 w1 w2", real=True)
    S = sp.Matrix([[s1, r], [r, s2]])
    L = S.cholesky(hermitian=False)
    u = L.T * sp.Matrix([w1, w2])
    v = L.LUsolve(sp.Matrix([d1, d2]))
    bound = sp.simplify((sp.Matrix([[d1, d2]]) * S.inv() * sp.Matrix([d1, d2]))[0])
    return u, v, bound, u[0] * v[1] - u[1] * v[0]


def _whitening_extra(ref):
    """At random numbers, against numpy's Cholesky factor and solve."""
    u, v, bound, cross = ref()
    rng = np.random.default_rng(0)
    for _ in range(5):
        A = rng.normal(size=(2, 2))
        S = A @ A.T + 0.1 * np.eye(2)
        d, w = rng.normal(size=2), rng.normal(size=2)
        pt = {"s1": S[0, 0], "s2": S[1, 1], "r": S[0, 1], "d1": d[0], "d2": d[1], "w1": w[0], "w2": w[1]}

        def ev(e):
            m = sp.Matrix([e]) if not isinstance(e, sp.MatrixBase) else e
            return np.array(m.applyfunc(lambda t: t.xreplace({s: pt[s.name] for s in t.free_symbols}))
                            .evalf(), dtype=float).ravel()
        L = np.linalg.cholesky(S)
        uu, vv = ev(u), ev(v)
        assert np.allclose(uu, L.T @ w) and np.allclose(vv, np.linalg.solve(L, d))
        assert np.isclose(ev(bound)[0], d @ np.linalg.solve(S, d))
        assert np.isclose(ev(cross)[0] ** 2, (uu @ uu) * (vv @ vv) - (uu @ vv) ** 2, atol=1e-9)


EXTRA[("fisher", "whitening_proof")] = _whitening_extra


# --------------------------------------------------------------------------
# perceptron: plain Python, scalar by scalar
# --------------------------------------------------------------------------
def _dot(a, b):
    return sum(float(u) * float(v) for u, v in zip(a, b))


@key("perceptron", "perceptron_update")
def _(w, b, x, y, eta=1.0):
    if y * (_dot(w, x) + b) <= 0:
        return np.array([float(wi) + eta * y * float(xi) for wi, xi in zip(w, x)]), float(b + eta * y)
    return np.array(w, dtype=float), float(b)


@key("perceptron", "perceptron_train")
def train(X, y, eta=1.0, max_epochs=100):
    w, b, n = [0.0] * len(X[0]), 0.0, 0
    for _ in range(max_epochs):
        changed = False
        for x, t in zip(X, y):
            if t * (_dot(w, x) + b) <= 0:
                w = [wi + eta * t * float(xi) for wi, xi in zip(w, x)]
                b, n, changed = b + eta * t, n + 1, True
        if not changed:
            break
    return np.array(w), b, n


@key("perceptron", "batch_perceptron_step")
def _(w, b, X, y, eta=1.0):
    M = [i for i in range(len(y)) if y[i] * (_dot(w, X[i]) + b) <= 0]
    w_new = [float(w[j]) + eta * sum(y[i] * X[i][j] for i in M) for j in range(len(w))]
    return np.array(w_new), float(b + eta * sum(y[i] for i in M)), len(M)


@key("perceptron", "novikoff_bound")
def bound(X, y, w, b):
    a = list(w) + [b]
    rows = [list(x) + [1.0] for x in X]
    norm_a = math.sqrt(_dot(a, a))
    gamma = min(t * _dot(a, r) for r, t in zip(rows, y)) / norm_a
    if gamma <= 0:
        raise ValueError("not separating")
    return max(math.sqrt(_dot(r, r)) for r in rows) ** 2 / gamma**2


def _lp_separators(X, y):
    """A few other separating (w, b): the LP 'y_i (w.x_i + b) >= 1' with random objectives."""
    Z = np.array([[t * v for v in list(x) + [1.0]] for x, t in zip(X, y)])
    out = []
    for seed in range(3):
        c = np.random.default_rng(seed).normal(size=Z.shape[1])
        res = scipy.optimize.linprog(c, A_ub=-Z, b_ub=-np.ones(len(y)), bounds=[(-50, 50)] * Z.shape[1])
        if res.status == 0:
            out.append(res.x)
    return out


@key("perceptron", "perceptron_experiment")
def _(X, y):
    w, b, n = train(X, y, 1.0, 10_000)
    B = bound(X, y, w, b)
    # the verdicts, by experiment on these data: the count against the bound here and at other
    # separators; the count with eta = 2; the counts after a few shifts of the data
    others = [bound(X, y, a[:-1], a[-1]) for a in _lp_separators(X, y)]
    shifted = {train(X + np.array(s), y, 1.0, 100_000)[2] for s in ((5.0, 5.0), (-10.0, 0.0), (20.0, -3.0))
               if len(X[0]) == 2}
    return n, B, [n <= B, any(o < n for o in others), train(X, y, 2.0, 10_000)[2] != n,
                  any(m != n for m in shifted)]


@key("perceptron", "novikoff_any_start")
def count_any_start():
    gamma, R, eta, n0, beta = _sym("gamma R eta n0 beta", positive=True)
    c, k = _sym("c k", real=True)
    # the count where the two bounds on u^T a_k meet: (c + k eta gamma)^2 = ||a_k||^2 bound
    roots = sp.solve(sp.Eq((c + k * eta * gamma) ** 2, n0**2 + 2 * k * eta * beta + k * eta**2 * R**2), k)
    at = {gamma: 0.7, R: 1.3, eta: 0.4, n0: 1.1, beta: 0.2, c: -0.5}
    return max(roots, key=lambda r: float(r.subs(at)))


def _count_extra(ref):
    """Real runs of the margin rule from random starts never exceed the count."""
    from linclf_grader.symbolic import parse_expr_safely

    k_expr = parse_expr_safely(str(ref()))
    rng = np.random.default_rng(3)
    for trial in range(20):
        X = rng.uniform(-2, 2, size=(15, 2))
        u_true = np.array([1.0, -0.5, 0.3])
        Z0 = np.column_stack([X, np.ones(len(X))])
        keep = np.abs(Z0 @ u_true) > 0.3
        Z = Z0[keep] * np.sign(Z0[keep] @ u_true)[:, None]
        u = u_true / np.linalg.norm(u_true)
        gamma, R = (Z @ u).min(), np.linalg.norm(Z, axis=1).max()
        eta, beta = rng.choice([0.1, 1.0, 3.0]), rng.choice([0.0, 0.5, 2.0])
        a = rng.normal(size=3) * rng.choice([0.0, 1.0, 5.0])
        c, n0 = float(u @ a), float(np.linalg.norm(a))
        n = 0
        for _ in range(10_000):
            bad = [z for z in Z if z @ a <= beta]
            if not bad:
                break
            for z in Z:
                if z @ a <= beta:
                    a, n = a + eta * z, n + 1
        subs = {sp.Symbol(s): v for s, v in dict(gamma=gamma, R=R, eta=eta, beta=beta, c=c, n0=n0).items()}
        k_max = float(k_expr.xreplace(subs).evalf())
        assert n <= k_max + 1e-9, (trial, n, k_max)


EXTRA[("perceptron", "novikoff_any_start")] = _count_extra


# --------------------------------------------------------------------------
# mse
# --------------------------------------------------------------------------
def _Z(X, y):
    return np.array([[t * v for v in list(x) + [1.0]] for x, t in zip(X, y)])


@key("mse", "mse_solution")
def _(X, y, margins):
    a = scipy.linalg.lstsq(_Z(X, y), margins, lapack_driver="gelsy")[0]   # least-norm LS
    return a[:-1], float(a[-1])


@key("mse", "midpoint_margins")
def _(X, y):
    # no formula: find beta_+ (beta_- = 2 - beta_+) where the least-squares boundary, refitted by
    # scipy for each trial, passes through the midpoint of the class means (brentq on the bias)
    mid = (np.mean([x for x, t in zip(X, y) if t == 1], axis=0) + np.mean([x for x, t in zip(X, y) if t == -1], axis=0)) / 2

    def offset(beta_p):
        margins = np.array([beta_p if t == 1 else 2 - beta_p for t in y])
        a = scipy.linalg.lstsq(_Z(X, y), margins, lapack_driver="gelsy")[0]
        return float(a[:-1] @ mid + a[-1])

    beta_p = scipy.optimize.brentq(offset, -10.0, 12.0, xtol=1e-14, rtol=1e-14)
    return np.array([beta_p if t == 1 else 2 - beta_p for t in y])


@key("mse", "lms_update")
def _(a, z, margin, eta):
    r = margin - _dot(a, z)
    return np.array([float(ai) + eta * r * float(zi) for ai, zi in zip(a, z)])


@key("mse", "loo_score")
def _():
    # self-consistency instead of Sherman-Morrison: give sample i the margin t = z_i^T a_(-i);
    # then a_(-i) also minimises the full criterion (its own residual is zero), so its score
    # is the full fit's score for those margins, s + h (t - beta) (the fit is linear in beta)
    s, h, beta, t_ = _sym("s h beta t", real=True)
    return sp.solve(sp.Eq(t_, s + h * (t_ - beta)), t_)[0]


@key("mse", "ho_kashyap")
def _(X, y, eta=0.5, max_iter=10_000):
    Z = _Z(X, y)
    beta = np.ones(len(y))
    for _ in range(max_iter + 1):
        a = scipy.linalg.lstsq(Z, beta, lapack_driver="gelsd")[0]
        e = Z @ a - beta
        if (Z @ a > 0).all():
            return a, beta, True
        if max(e) <= 1e-8 * math.sqrt(float(e @ e)):
            return a, beta, False
        beta = beta + 2 * eta * np.maximum(e, 0.0)
    raise RuntimeError("no decision")


def _ho_kashyap_extra(ref):
    # the decision agrees with a linear program, on random data of both kinds
    rng = np.random.default_rng(3)
    for n in (6, 8, 10, 12):
        X = np.round(rng.normal(size=(n, 2)), 1)
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        y[:2] = (1.0, -1.0)
        a, beta, sep = ref(X, y)
        assert sep == lp_separable(X, y, strict=True)
        assert np.all(beta > 0)


EXTRA[("mse", "ho_kashyap")] = _ho_kashyap_extra


@key("mse", "masking_experiment")
def _(X, y):
    from sklearn.linear_model import LinearRegression

    from linclf_grader import my_data

    T = np.eye(int(max(y)) + 1)[np.asarray(y, dtype=int)]
    T[:, 1] *= my_data("masking_experiment")["target"]   # the student's task parameter
    pred = LinearRegression().fit(X, T).predict(X).argmax(axis=1)
    return len(set(pred.tolist())), float(np.mean(pred != y))


# --------------------------------------------------------------------------
# logistic
# --------------------------------------------------------------------------
mpmath.mp.dps = 50


@key("logistic", "log_sigmoid")
def _(z):
    z = np.asarray(z, dtype=float)
    return np.array([float(-mpmath.log1p(mpmath.exp(-mpmath.mpf(v)))) for v in z.ravel()]).reshape(z.shape)


def _mean_loss(w, b, X, y, lam):
    return (sum(mpmath.log1p(mpmath.exp(-t * (mpmath.fsum(mpmath.mpf(wi) * float(xi)
                                                          for wi, xi in zip(w, x)) + b)))
                for x, t in zip(X, y)) / len(y) + lam / 2 * mpmath.fsum(mpmath.mpf(v) ** 2 for v in w))


@key("logistic", "logistic_loss_grad")
def _(w, b, X, y, lam=0.0):
    # the gradient by mpmath's numerical differentiation of the loss, at 50 digits
    L = _mean_loss(w, b, X, y, lam)
    g = []
    for j in range(len(w)):
        f = lambda t, j=j: _mean_loss([t if k == j else w[k] for k in range(len(w))], b, X, y, lam)  # noqa: E731
        g.append(float(mpmath.diff(f, mpmath.mpf(float(w[j])))))
    gb = float(mpmath.diff(lambda t: _mean_loss(w, t, X, y, lam), mpmath.mpf(float(b))))
    return float(L), np.array(g), gb


@key("logistic", "newton_from_zero")
def _():
    # from the statement: per-sample loss l(m) = log(1 + e^-m) with m = y a.x~; at a = 0 the
    # gradient is l'(0)/N X~^T y and the Hessian l''(0)/N X~^T X~ + lam P (y^2 = 1), so the step
    # -H^{-1} g is (-l'(0)/l''(0)) (X~^T X~ + (N lam / l''(0)) P)^{-1} X~^T y
    m = sp.Symbol("m", real=True)
    N, lam = _sym("N lam", positive=True)
    ell = sp.log(1 + sp.exp(-m))
    d1, d2 = (sp.diff(ell, m, k).subs(m, 0) for k in (1, 2))
    return sp.simplify(-d1 / d2), sp.simplify(N * lam / d2)


def _newton_from_zero_extra(ref):
    # one Newton step from 0, by finite differences of the loss, against s times the ridge fit
    s, mu = ref()
    rng = np.random.default_rng(5)
    X, y, lam = rng.normal(size=(9, 2)), np.where(rng.random(9) < 0.5, -1.0, 1.0), 0.3
    Xt = np.c_[X, np.ones(9)]

    def loss(a):
        return np.mean(np.logaddexp(0.0, -y * (Xt @ a))) + lam / 2 * (a[:2] @ a[:2])

    h, E = 1e-4, np.eye(3)
    g = np.array([(loss(h * e) - loss(-h * e)) / (2 * h) for e in E])
    H = np.array([[(loss(h * (e + f)) - loss(h * (e - f)) - loss(h * (f - e)) + loss(-h * (e + f)))
                   / (4 * h * h) for f in E] for e in E])
    step = -np.linalg.solve(H, g)
    values = {"N": 9, "lam": lam}
    sv, muv = (float(sp.sympify(v).subs({t: values[t.name] for t in sp.sympify(v).free_symbols}))
               for v in (s, mu))
    ridge = np.linalg.solve(Xt.T @ Xt + muv * np.diag([1.0, 1.0, 0.0]), Xt.T @ y)
    np.testing.assert_allclose(step, sv * ridge, rtol=1e-5, atol=1e-7)


EXTRA[("logistic", "newton_from_zero")] = _newton_from_zero_extra


@key("logistic", "irls_fit")
def _(X, y, lam=0.0, max_iter=100):
    from sklearn.linear_model import LogisticRegression

    if lam == 0:
        if lp_separable(X, y):
            raise ValueError("(quasi-)separable: no minimiser")
        model = LogisticRegression(penalty=None, tol=1e-12, max_iter=10_000)
    else:
        # sklearn minimises C sum(loss) + |w|^2 / 2 (intercept not penalised): C = 1 / (N lam)
        model = LogisticRegression(C=1.0 / (len(y) * lam), tol=1e-12, max_iter=10_000)
    model.fit(X, y)
    return model.coef_[0], float(model.intercept_[0])


COMPARE[("logistic", "irls_fit")] = lambda r, i, args, kw: (
    np.testing.assert_allclose(r[0], i[0], rtol=1e-5, atol=1e-6),
    np.testing.assert_allclose(r[1], i[1], rtol=1e-5, atol=1e-6))


@key("logistic", "separation_type")
def _(X, y):
    # strict: feasibility of y_n a.x~_n >= 1 (a scaled strict separator); weak: linprog of
    # lp_separable; X~ of full column rank makes "a != 0" the same as "some margin > 0"
    if lp_separable(X, y, strict=True):
        return "complete"
    return "quasi-complete" if lp_separable(X, y) else "overlap"


@key("logistic", "corrected_intercept")
def _():
    # step (1) is right; differentiate it with sympy and solve R'(b) = 0
    b = sp.Symbol("b", real=True)
    Np, Nm = _sym("N_plus N_minus", positive=True)
    R = (Np * sp.log(1 + sp.exp(-b)) + Nm * sp.log(1 + sp.exp(b))) / (Np + Nm)
    (sol,) = sp.solve(sp.Eq(sp.diff(R, b), 0), b)
    return sol


# --------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------
@key("softmax", "softmax_rows")
def _(F):
    return scipy.special.softmax(F, axis=1)


@key("softmax", "softmax_jacobian")
def _(p):
    c = len(p)
    f = sp.symbols(f"f1:{c + 1}")
    s = [sp.exp(fk) / sum(sp.exp(fj) for fj in f) for fk in f]
    at = dict(zip(f, [math.log(v) for v in p]))
    return np.array([[float(sp.diff(s[k], f[l]).subs(at)) for l in range(c)] for k in range(c)])


@key("softmax", "softmax_grad")
def _(W, X, T):
    def R(flat):
        return -np.mean(np.sum(T * scipy.special.log_softmax(X @ flat.reshape(W.shape), axis=1), axis=1))
    h = 1e-6
    g = np.zeros(W.size)
    for k in range(W.size):
        e = np.zeros(W.size)
        e[k] = h
        g[k] = (R(W.ravel() + e) - R(W.ravel() - e)) / (2 * h)
    return g.reshape(W.shape)


COMPARE[("softmax", "softmax_grad")] = lambda r, i, a, k: np.testing.assert_allclose(r, i, atol=1e-8)


@key("softmax", "log_softmax_derivative")
def _():
    f1, f2, f3 = _sym("f1 f2 f3", real=True)
    return sp.diff(sp.log(sp.exp(f1) / (sp.exp(f1) + sp.exp(f2) + sp.exp(f3))), f2)


@key("softmax", "softmax_hessian")
def hessian(c, d):
    """Log-sum-exp of all c scores differentiated twice by sympy and written in p (f_k = log p_k:
    the Hessian depends on f only through softmax(f)), with p_c = 1 - p_1 - ... - p_{c-1}; then
    the chain rule J^T H_f J with J = d f / d theta from sympy's jacobian, where the scores of the
    sum-to-zero parametrisation are f_k = a_k . x~ and f_c = -(a_1 + ... + a_{c-1}) . x~ (the loss
    -log p_t differs from log-sum-exp by a linear term)."""
    f = sp.symbols(f"f1:{c + 1}", real=True)
    p = sp.symbols(f"p1:{c}", real=True)
    pc = 1 - sum(p)
    Hf = sp.hessian(sp.log(sum(sp.exp(v) for v in f)), f)
    Hf = Hf.applyfunc(lambda e: sp.simplify(e.subs({f[k]: sp.log([*p, pc][k]) for k in range(c)})))
    x = sp.symbols(f"x1:{d + 1}", real=True)
    theta = sp.symbols(f"t1:{(c - 1) * (d + 1) + 1}", real=True)
    xt = [*x, 1]
    scores = [sum(theta[k * (d + 1) + j] * xt[j] for j in range(d + 1)) for k in range(c - 1)]
    J = sp.Matrix([*scores, -sum(scores)]).jacobian(theta)
    return sp.expand(J.T * Hf * J)


@key("softmax", "softmax_convexity_proof")
def _(c):
    p = sp.symbols(f"p1:{c + 1}", positive=True)
    v = sp.symbols(f"v1:{c + 1}", real=True)
    quad = sum(p[k] * v[k] ** 2 for k in range(c)) - sum(p[k] * v[k] for k in range(c)) ** 2
    # the variance of v under p: sum_k p_k (v_k - mean)^2 with mean = sum_l p_l v_l
    mean = sum(p[k] * v[k] for k in range(c))
    sos = sum(p[k] * (v[k] - mean) ** 2 for k in range(c))
    return quad, sos, [1.0] * c


def _convexity_compare(r, i, args, kwargs):
    c = args[0]
    p = sp.symbols(f"p1:{c + 1}")
    v = sp.symbols(f"v1:{c + 1}")
    names = {s.name: s for s in p + v}
    rng = np.random.default_rng(c)
    for _ in range(5):
        pv = rng.dirichlet(np.ones(c))
        vv = rng.normal(size=c)
        pt = {**{f"p{k + 1}": pv[k] for k in range(c)}, **{f"v{k + 1}": vv[k] for k in range(c)}}
        val = lambda e: float(e.xreplace({s: pt[s.name] for s in e.free_symbols}))  # noqa: E731
        H = np.diag(pv) - np.outer(pv, pv)
        assert math.isclose(val(r[0]), vv @ H @ vv, abs_tol=1e-12)
        assert math.isclose(val(r[1]), vv @ H @ vv, abs_tol=1e-12)
        assert abs(np.asarray(r[2], float) @ H @ np.asarray(r[2], float)) < 1e-12
    assert names


COMPARE[("softmax", "softmax_convexity_proof")] = _convexity_compare


@key("softmax", "softmax_separable_experiment")
def _(X, y, c):
    Xt = np.column_stack([X, np.ones(len(X))])
    T = np.eye(c)[np.asarray(y, dtype=int)]
    W = np.zeros((Xt.shape[1], c))
    norms = []
    for t in range(1, 1001):
        W = W - 0.1 * Xt.T @ (scipy.special.softmax(Xt @ W, axis=1) - T) / len(X)
        if t in (10, 100, 1000):
            norms.append(float(np.sqrt((W**2).sum())))
    loss = float(-np.mean(np.sum(T * scipy.special.log_softmax(Xt @ W, axis=1), axis=1)))
    # the infimum: 0 exactly when a linear machine separates the classes (a linear program)
    return norms, loss, 0.0 if _multiclass_separable(X, y, c) else float("nan")


def _multiclass_separable(X, y, c):
    Xt = np.column_stack([X, np.ones(len(X))])
    n, D = Xt.shape
    rows = []
    for i in range(n):
        for k in range(c):
            if k != y[i]:
                r = np.zeros(c * D)
                r[y[i] * D:(y[i] + 1) * D] -= Xt[i]
                r[k * D:(k + 1) * D] += Xt[i]
                rows.append(r)
    res = scipy.optimize.linprog(np.zeros(c * D), A_ub=np.array(rows), b_ub=-np.ones(len(rows)),
                                 bounds=[(None, None)] * (c * D))
    return res.status == 0
