"""Reference solutions: exercise set "losses" (instructor material, not for students).

Also the set's hidden tests (``--tests exercises/solutions``) and typical wrong answers
(``WRONG``, which the test suite proves to lose points).
"""

import numpy as np
import sympy as sp

from linclf_grader import test
from linclf_grader.framework import fail, as_array, assert_expr, unpack


def hinge_subgradient(w, b, X, y, lam=0.0):
    m = y * (X @ w + b)
    n = len(y)
    active = m <= 1                   # at the kink m = 1 take the slope -1 of the violating side
    J = np.maximum(0.0, 1.0 - m).mean() + 0.5 * lam * (w @ w)
    g_w = -(X[active].T @ y[active]) / n + lam * w
    g_b = -y[active].sum() / n
    return float(J), g_w, float(g_b)


def logistic_loss_bits(m):
    # log2(1 + e^{-m}) = logaddexp(0, -m) / ln 2, finite for every finite m
    return np.logaddexp(0.0, -m) / np.log(2.0)


def exp_loss_minimizer():
    q = sp.Symbol("q", positive=True)
    f = sp.Symbol("f", real=True)
    risk = q * sp.exp(-f) + (1 - q) * sp.exp(f)
    # R'(f) = 0  <=>  exp(2 f) = q / (1 - q); sympy's solve also lists complex branches
    f_star = sp.log(q / (1 - q)) / 2
    assert sp.simplify(sp.diff(risk, f).subs(f, f_star)) == 0
    return f_star


def conditional_risk_minimiser(loss):
    q = sp.Symbol("q", positive=True)
    if loss == "quartic":
        # q (1 - f)^3 = (1 - q)(1 + f)^3  =>  (1 - f)/(1 + f) = ((1 - q)/q)^(1/3)
        r = ((1 - q) / q) ** sp.Rational(1, 3)
    elif loss == "cubic_hinge":
        # on [-1, 1] both terms are cubes: q (1 - f)^2 = (1 - q)(1 + f)^2; outside, one term
        # vanishes and the other grows away from the interval
        r = sp.sqrt((1 - q) / q)
    elif loss == "savage":
        # with s = sigma(f): q (1 - s)^2 + (1 - q) s^2, minimised at s = q: the log-odds
        return sp.log(q / (1 - q))
    else:
        raise ValueError(f"unknown loss {loss!r}")
    return sp.simplify((1 - r) / (1 + r))


def pegasos(X, y, lam, n_iter=1000, seed=0):
    rng = np.random.default_rng(seed)
    N, d = X.shape
    w = np.zeros(d)
    radius = 1.0 / np.sqrt(lam)
    for t in range(1, n_iter + 1):
        i = rng.integers(N)
        eta = 1.0 / (lam * t)
        violated = y[i] * (X[i] @ w) < 1          # evaluated before the step
        w = (1.0 - eta * lam) * w
        if violated:
            w = w + eta * y[i] * X[i]
        norm = np.linalg.norm(w)
        if norm > radius:
            w = w * (radius / norm)
    return w


def class_weight_error():
    cp, cm = sp.symbols("cp cm", positive=True)
    f = sp.Symbol("f", real=True)
    # step 3 is the first wrong one: f* > 0 iff cp q > cm (1 - q) iff q > cm / (cp + cm), so a
    # larger cp lowers the bar. Step 4 is wrong too: sigma(f*) = cp q / (cp q + cm (1 - q));
    # solving exp(f) = cp q / (cm (1 - q)) for q gives the probability behind a weighted score
    return 3, cm / (cp + cm), cm * sp.exp(f) / (cp + cm * sp.exp(f))


# --------------------------------------------------------------------------
# hidden tests
# --------------------------------------------------------------------------
@test("losses.hinge_subgradient", points=1, hidden=True, visibility="after_due_date")
def test_hidden_hinge_fresh_data(f):
    """Random data, weights and lam, with two samples put exactly on the kink."""
    from linclf_grader.framework import assert_close

    rng = np.random.default_rng(41)
    for n, d, lam in ((7, 3, 0.0), (12, 2, 0.3), (5, 4, 2.0)):
        X = np.round(rng.normal(size=(n, d)), 1)
        y = rng.choice([-1.0, 1.0], n)
        w, b = np.round(rng.normal(size=d), 1), 0.5
        b = float(y[0] - X[0] @ w) if n > 5 else b     # sample 0 on the kink: margin exactly 1
        J, g_w, g_b = unpack(f(w, b, X, y, lam=lam), 3, "the result (J, g_w, g_b)")
        J_r, g_w_r, g_b_r = hinge_subgradient(w, b, X, y, lam=lam)
        assert_close(J, J_r, "J")
        assert_close(g_w, g_w_r, "g_w", atol=1e-12)
        assert_close(g_b, g_b_r, "g_b", atol=1e-12)


@test("losses.logistic_loss_bits", points=1, hidden=True, visibility="after_due_date")
def test_hidden_bits_fresh_margins(f):
    """Margins no public test uses, from -1e4 to 1e4, in a 2-d array."""
    from linclf_grader.framework import assert_close

    m = np.array([[-1e4, -700.5, -37.2, -2.5], [-0.3, 0.0, 0.7, 19.0], [36.9, 50.0, 745.0, 1e4]])
    assert_close(f(m), logistic_loss_bits(m), "log2(1 + exp(-m))", rtol=1e-10, atol=1e-300)


@test("losses.exp_loss_minimizer", points=1, hidden=True, visibility="after_due_date")
def test_hidden_exp_minimiser_other_probabilities(f):
    """f* at probabilities no public test uses: an interpolant of the public values fails."""
    from linclf_grader.pointwise import assert_values_at

    q = sp.Symbol("q", positive=True)
    exact = exp_loss_minimizer()
    assert_values_at(f(), [({"q": v}, float(exact.subs(q, sp.Rational(str(v))))) for v in (0.01, 0.3, 0.77, 0.99)],
                     ["q"], "f*")


@test("losses.conditional_risk_minimiser", points=2, hidden=True, visibility="after_due_date")
def test_hidden_cubic_hinge_and_the_midpoint(f):
    """The third loss, checked symbolically; every minimiser vanishes at q = 1/2."""
    q = sp.Symbol("q", positive=True)
    assert_expr(f("cubic_hinge"), str(conditional_risk_minimiser("cubic_hinge")), ["q"],
                "f*(q) of the cubic hinge", positive=["q"])
    from linclf_grader.pointwise import assert_values_at

    # other probabilities than the public tests': an interpolant of the public values fails
    for loss in ("quartic", "cubic_hinge", "savage"):
        exact = conditional_risk_minimiser(loss)
        assert_values_at(f(loss), [({"q": v}, float(exact.subs(q, sp.Rational(str(v)))))
                                   for v in (0.02, 0.3, 0.5, 0.71, 0.96)], ["q"], f"f*(q) of {loss}")


def _svm_optimum(X, y, lam):
    """min F via its box-constrained dual (no intercept, so no equality constraint),
    maximised by exact coordinate steps: 0 <= alpha_i <= C = 1/(lam N), w = sum alpha_i y_i x_i."""
    N = len(y)
    C = 1.0 / (lam * N)
    Z = y[:, None] * X
    sq = np.einsum("ij,ij->i", Z, Z)
    alpha, v = np.zeros(N), np.zeros(X.shape[1])
    for _ in range(20_000):
        largest = 0.0
        for i in range(N):
            if sq[i] == 0:
                continue
            new = min(max(alpha[i] - (Z[i] @ v - 1.0) / sq[i], 0.0), C)
            v += (new - alpha[i]) * Z[i]
            largest = max(largest, abs(new - alpha[i]))
            alpha[i] = new
        if largest < 1e-13:
            break
    return v


def _objective(w, X, y, lam):
    return float(lam / 2 * w @ w + np.maximum(0.0, 1.0 - y * (X @ w)).mean())


@test("losses.pegasos", points=2, hidden=True, visibility="after_due_date")
def test_hidden_one_class_and_huge_lam(f):
    """Only positive labels present; and lam = 100, where the minimiser is nearly 0."""
    rng = np.random.default_rng(21)
    X = np.round(np.column_stack([rng.normal(1.0, 1.0, (30, 2)), np.ones(30)]), 2)
    y = np.ones(30)
    for lam, n_iter, factor in ((0.1, 4000, 1.03), (100.0, 1000, 1.001)):
        w = as_array(f(X, y, lam, n_iter=n_iter, seed=3), (3,), "w")
        got, best = _objective(w, X, y, lam), _objective(_svm_optimum(X, y, lam), X, y, lam)
        if not got <= factor * best:
            fail(f"F(w) = {got:.6g}, minimum {best:.6g} (lam = {lam})")
        if np.linalg.norm(w) > 1 / np.sqrt(lam) + 1e-9:
            fail("w outside the ball")


@test("losses.class_weight_error", points=1, hidden=True, visibility="after_due_date")
def test_hidden_first_wrong_step(f):
    """Step 3 (the threshold), not step 4: the source's step 2 is right."""
    from linclf_grader.quiet import assert_equal_quiet

    step, _, _ = unpack(f(), 3, "the result (step, threshold, q_of_f)")
    assert_equal_quiet(step, 3, "step")


@test("losses.class_weight_error", points=1, hidden=True, visibility="after_due_date")
def test_hidden_threshold_symbolic(f):
    _, threshold, _ = unpack(f(), 3, "the result (step, threshold, q_of_f)")
    assert_expr(threshold, str(class_weight_error()[1]), ["cp", "cm"], "threshold", positive=["cp", "cm"])


@test("losses.class_weight_error", points=1, hidden=True, visibility="after_due_date")
def test_hidden_probability_symbolic(f):
    _, _, q_of_f = unpack(f(), 3, "the result (step, threshold, q_of_f)")
    assert_expr(q_of_f, str(class_weight_error()[2]), ["f", "cp", "cm"], "q_of_f", positive=["cp", "cm"])


# --------------------------------------------------------------------------
# typical wrong answers
# --------------------------------------------------------------------------
def _minimiser_wrong(kind):
    def wrong(loss):
        q = sp.Symbol("q", positive=True)
        if kind == "half log-odds":
            return sp.log(q / (1 - q)) / 2
        if kind == "2q - 1":
            return 2 * q - 1
        return -conditional_risk_minimiser(loss)          # q and 1 - q swapped
    return wrong


def _pegasos_wrong(kind):
    def wrong(X, y, lam, n_iter=1000, seed=0):
        rng = np.random.default_rng(seed)
        N, d = X.shape
        w = np.zeros(d)
        for t in range(1, n_iter + 1):
            i = rng.integers(N)
            eta = 1.0 / (lam * t)
            m = y[i] * (X[i] @ w)
            violated = m <= 0 if kind == "mistakes only" else m < 1
            if kind != "no shrinkage":
                w = (1.0 - eta * lam) * w
            if violated:
                w = w + eta * y[i] * X[i]
            norm = np.linalg.norm(w)
            if norm > 1 / np.sqrt(lam):
                w = w / (norm * np.sqrt(lam))
        return w
    return wrong


def _weights_wrong(kind):
    def wrong():
        cp, cm = sp.symbols("cp cm", positive=True)
        f = sp.Symbol("f", real=True)
        step, threshold, q_of_f = class_weight_error()
        if kind == "the source's threshold":
            threshold = cp / (cp + cm)
        elif kind == "threshold 1/2":
            threshold = sp.Rational(1, 2)
        elif kind == "the source's calibration":
            q_of_f = 1 / (1 + sp.exp(-f))
        elif kind == "cp and cm swapped in q":
            q_of_f = cp * sp.exp(f) / (cm + cp * sp.exp(f))
        return step, threshold, q_of_f
    return wrong


def _bits_where(m):
    # both branches for every m: exp overflows in the discarded one
    return np.where(m >= 0, np.log1p(np.exp(-m)), -m + np.log1p(np.exp(m))) / np.log(2.0)


WRONG = {
    "logistic_loss_bits": {
        "np.where over both branches (overflow warnings)": _bits_where,
    },
    "exp_loss_minimizer": {
        "nan (it used to pass every comparison)": lambda: sp.nan,
    },
    "conditional_risk_minimiser": {
        "nan (it used to pass every comparison)": lambda loss: sp.nan,
        "half the log-odds for every loss": _minimiser_wrong("half log-odds"),
        "the squared loss's 2q - 1 for every loss": _minimiser_wrong("2q - 1"),
        "q and 1 - q swapped": _minimiser_wrong("swapped"),
    },
    "pegasos": {
        "no shrinkage (the lam w term forgotten)": _pegasos_wrong("no shrinkage"),
        "updates on mistakes only (the perceptron's condition)": _pegasos_wrong("mistakes only"),
    },
    "class_weight_error": {
        "keeps the source's threshold": _weights_wrong("the source's threshold"),
        "threshold 1/2 (the weights ignored)": _weights_wrong("threshold 1/2"),
        "keeps the source's calibration": _weights_wrong("the source's calibration"),
        "cp and cm swapped in q": _weights_wrong("cp and cm swapped in q"),
    },
}

WRONG_HIDDEN = {
    "class_weight_error": {"blames step 4": lambda: (4, *class_weight_error()[1:])},
}
