"""Exercise set "softmax" (chapter 6): stable softmax, its Jacobian, the gradient, the Hessian
of the identifiable parametrisation, and the convexity proof.

Notation (appendices/notation.md): c classes, scores f_k, probabilities p_k, one-hot
targets t_n (the matrix T), augmented samples x_tilde = (x, 1).  Expected values are
literals computed once from the reference solutions.
"""

import numpy as np
import sympy as sp

from ..imports import OPTIMISERS
from ..framework import (ExerciseSet, as_array, assert_close, assert_expr, fail, read_expr, test,
                         unpack)
from ..quiet import assert_close_quiet
from ..pointwise import assert_values_at

SET = ExerciseSet("softmax", "Softmax regression", "06_softmax",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "softmax_rows",
    title="A stable softmax",
    signature="def softmax_rows(F):",
    hidden_tests=1,
    kind="formula",
    doc=r"""
    Softmax of each row of the score matrix F (row n holds the c scores
    f_n1, ..., f_nc of sample n): P[n, k] = exp(F[n, k]) / sum_j exp(F[n, j]).
    It must stay finite and exact for large scores (try a row [1000, 1001]).

    Parameters
    ----------
    F : ndarray of shape (N, c)

    Returns
    -------
    P : ndarray of shape (N, c), rows summing to 1
    """,
)

SET.exercise(
    "softmax_jacobian",
    title="The Jacobian of the softmax",
    signature="def softmax_jacobian(p):",
    hidden_tests=1,
    kind="formula",  # the chapter displays the result, (eq-softmax-jacobian)
    doc=r"""
    The Jacobian of the softmax map f -> p = softmax(f), the c x c matrix
    J[k, l] = d p_k / d f_l, evaluated at a score vector whose softmax is p.
    Differentiate p_k = exp(f_k) / sum_j exp(f_j) and write the result
    with the probabilities p only (the scores f are not given).

    Parameters
    ----------
    p : ndarray of shape (c,), positive entries summing to 1

    Returns
    -------
    J : ndarray of shape (c, c)
    """,
)

SET.exercise(
    "softmax_grad",
    title="The gradient of the cross-entropy",
    signature="def softmax_grad(W, X, T):",
    hidden_tests=1,
    kind="formula",
    doc=r"""
    The gradient with respect to W of the mean cross-entropy
    R(W) = -(1/N) sum_n sum_k T[n, k] log softmax(X[n] @ W)[k].

    Parameters
    ----------
    W : ndarray of shape (d, c), one column of weights per class
    X : ndarray of shape (N, d)
    T : ndarray of shape (N, c), one-hot rows t_n

    Returns
    -------
    G : ndarray of shape (d, c)
    """,
)

SET.exercise(
    "log_softmax_derivative",
    title="A derivative of the log-softmax, symbolically",
    signature="def log_softmax_derivative():",
    hidden_tests=1,
    kind="formula",  # one entry of the chapter's p - t
    doc=r"""
    With c = 3 classes and scores f1, f2, f3, return the partial derivative
    of log p_1 = log softmax(f)_1 with respect to f2, as a sympy expression
    in f1, f2, f3.
    """,
    stub="""f1, f2, f3 = sp.symbols("f1 f2 f3", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "softmax_hessian",
    title="The Hessian with the sum-to-zero constraint, symbolically",
    signature="def softmax_hessian(c, d):",
    kind="derivation",
    hidden_tests=2,
    doc=r"""
    Softmax regression with c classes and d features has one parameter
    vector too many; impose a_1 + ... + a_c = 0, i.e. a_c = -(a_1 + ... +
    a_{c-1}), and keep the (c - 1)(d + 1) free parameters

        theta = (w_11, ..., w_1d, b_1,  w_21, ..., w_2d, b_2,  ...,  b_{c-1}),

    i.e. the (c - 1) x (d + 1) matrix whose row k is a_k = (w_k, b_k),
    flattened row by row.  For one sample x = (x1, ..., xd) with any target
    class, return the Hessian of its cross-entropy -log p_t with respect to
    theta, a sympy Matrix of shape ((c - 1)(d + 1), (c - 1)(d + 1)) written
    in the symbols p1, ..., p_{c-1} (the probabilities of the first c - 1
    classes at theta) and x1, ..., xd.

    Parameters
    ----------
    c : int >= 2, number of classes
    d : int >= 0, number of features

    Returns
    -------
    H : sympy Matrix
    """,
    stub="""p = sp.symbols(f"p1:{c}", real=True)        # p1, ..., p_{c-1}
x = sp.symbols(f"x1:{d + 1}", real=True)    # x1, ..., xd
return None  # replace None by the Hessian, a sympy Matrix""",
)

SET.exercise(
    "softmax_convexity_proof",
    title="Why the cross-entropy is convex: a proof in three parts",
    signature="def softmax_convexity_proof(c):",
    kind="proof",
    hidden_tests=1,
    doc=r"""
    The Hessian of one sample's cross-entropy with respect to its score
    vector f is H = diag(p) - p p^T.  Prove that it is positive
    semidefinite, and that it is never positive definite.  With the
    symbols p1, ..., pc (positive, summing to 1) and v1, ..., vc, return

    quad : the quadratic form v^T H v, a sympy expression;
    sos  : the same quantity, equal to quad whenever p1 + ... + pc = 1,
           written as a sum of terms each of which is a positive number
           times a product of some p's times the square of an expression,
           e.g. p1*(...)**2 or p1*p2*(...)**2/2, so that sos >= 0 is
           obvious (do not expand the squares; use the symbols p1, ..., pc,
           not 1 - p1 - ...);
    v_null : a list of c numbers, not all zero, for which the form is 0
           at every p.

    Returns
    -------
    (quad, sos, v_null)
    """,
    stub="""p = sp.symbols(f"p1:{c + 1}", positive=True)     # p1, ..., pc
v = sp.symbols(f"v1:{c + 1}", real=True)         # v1, ..., vc
return None  # replace None by the tuple (quad, sos, v_null)""",
)


def _separable_three_classes(rng, n=12):
    """A student's own data: n points of c = 3 classes, two decimals, separable by a linear machine."""
    while True:
        angles = rng.uniform(0, 2 * np.pi) + np.array([0.0, 2.1, 4.2]) + rng.uniform(-0.3, 0.3, 3)
        centres = 2.0 * np.column_stack([np.cos(angles), np.sin(angles)])
        y = np.concatenate([np.arange(3), rng.integers(0, 3, n - 3)])
        X = np.round(centres[y] + rng.normal(0.0, 0.5, (n, 2)), 2)
        norms, _ = gradient_descent_norms(X, y, 3)
        if norms is not None:
            order = rng.permutation(n)
            return {"X": X[order], "y": y[order], "c": 3}


def gradient_descent_norms(X, y, c, eta=0.1, steps=(10, 100, 1000)):
    """Plain gradient descent on the unpenalised cross-entropy with linclf's own gradient (the
    trusted twin): the norms ||W||_F after the given steps and the loss at the last one; (None,
    None) when the last iterate does not separate the data."""
    from linclf.softmax import softmax_loss_and_grad

    T = np.eye(c)[y]
    W, b = np.zeros((c, X.shape[1])), np.zeros(c)
    norms, loss = [], None
    for t in range(1, max(steps) + 1):
        _, gW, gb = softmax_loss_and_grad(W, b, X, T)
        W, b = W - eta * gW, b - eta * gb
        if t in steps:
            norms.append(float(np.sqrt(np.sum(W**2) + np.sum(b**2))))
    loss = softmax_loss_and_grad(W, b, X, T)[0]
    if not np.all(np.argmax(X @ W.T + b, axis=1) == y):
        return None, None
    return norms, float(loss)


SET.exercise(
    "softmax_separable_experiment",
    title="Separable data: the weights run away (your own data)",
    signature="def softmax_separable_experiment(X, y, c):",
    # the gradient step is displayed, and so is the conclusion (the infimum 0, not attained):
    # running it is transcription, whatever the student learns from watching
    kind="formula",
    forbid=OPTIMISERS,  # the exercise is to optimise: a ready-made optimiser would do it
    variant=_separable_three_classes,
    hidden_tests=1,
    doc=r"""
    Run plain gradient descent on the unpenalised mean cross-entropy R(W)
    of softmax regression with c classes on (X, y), labels 0, ..., c - 1:
    W of shape (d + 1, c) acts on the augmented samples x_tilde = (x, 1),
    starts at W = 0, and takes steps W <- W - 0.1 * grad R(W).

    Returns
    -------
    (norms, loss, infimum) : list of 3 floats, float, float
        The Frobenius norms ||W|| after 10, 100 and 1000 steps, R(W)
        after 1000 steps, and the infimum of R over all W (a number you
        find by reasoning, not by running).  Is the infimum attained?
    """,
)


@test("softmax_rows", points=1)
def test_small_scores(f):
    F = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    expected = [[1 / 3, 1 / 3, 1 / 3], [0.09003057317038046, 0.24472847105479764, 0.6652409557748218]]
    assert_close(f(F), expected, "P", rtol=1e-10)


@test("softmax_rows", points=1)
def test_large_scores(f):
    # rows on very different scales: each row needs its own shift
    F = np.array([[1000.0, 1001.0, 999.0], [-1000.0, 0.0, 1000.0], [-1000.0, -999.0, -1001.0]])
    expected = [[0.24472847105479764, 0.6652409557748218, 0.09003057317038046], [0.0, 0.0, 1.0],
                [0.24472847105479764, 0.6652409557748218, 0.09003057317038046]]
    assert_close(f(F), expected, "P", rtol=1e-10)


@test("softmax_jacobian", points=2)
def test_jacobian(f):
    expected = [[0.16, -0.1, -0.06], [-0.1, 0.25, -0.15], [-0.06, -0.15, 0.21]]
    assert_close(f(np.array([0.2, 0.5, 0.3])), expected, "J")


@test("softmax_grad", points=2)
def test_gradient(f):
    X = np.array([[1.0, 0.5], [-1.0, 2.0], [0.5, -1.0], [2.0, 1.0]])
    T = np.eye(3)[[0, 2, 1, 0]]
    W = np.array([[0.1, -0.2, 0.3], [0.5, 0.0, -0.5]])
    expected = [[-0.5089008063156395, -0.01884518028860173, 0.5277459866042412],
                [0.0767566154541183, 0.41439426169773896, -0.49115087715185723]]
    assert_close(f(W, X, T), expected, "G")


@test("log_softmax_derivative", points=1)
def test_derivative_at_three_score_vectors(f):
    assert_values_at(f(), zip([{"f1": 0.0, "f2": 0.0, "f3": 0.0}, {"f1": 1.0, "f2": -0.5, "f3": 2.0},
                           {"f1": -1.0, "f2": 1.5, "f3": 0.25}],
                     [-0.3333333333333333, -0.05661173224047128, -0.7306791292026887]), what="the derivative")


# the Hessians in the sum-to-zero parametrisation at two points per case, computed once from
# the reference (points with short binary fractions, so every entry is exact)
@test("softmax_hessian", points=2)
def test_hessian_three_classes_one_feature(f):
    assert_values_at(f(3, 1), zip([{"p1": 0.25, "p2": 0.5, "x1": 1.5}, {"p1": 0.125, "p2": 0.625, "x1": -2.0}],
                     [[[1.125, 0.75, 0.5625, 0.375], [0.75, 0.5, 0.375, 0.25],
                       [0.5625, 0.375, 1.546875, 1.03125], [0.375, 0.25, 1.03125, 0.6875]],
                      [[1.4375, -0.71875, 1.1875, -0.59375], [-0.71875, 0.359375, -0.59375, 0.296875],
                       [1.1875, -0.59375, 2.9375, -1.46875], [-0.59375, 0.296875, -1.46875, 0.734375]]]), what="H (c = 3, d = 1)", matrix=True)


@test("softmax_hessian", points=1)
def test_hessian_two_classes_two_features(f):
    """The ordering matters: the intercept last in each block."""
    assert_values_at(f(2, 2), zip([{"p1": 0.25, "x1": 0.5, "x2": -1.5}, {"p1": 0.75, "x1": 2.0, "x2": 0.25}],
                     [[[0.1875, -0.5625, 0.375], [-0.5625, 1.6875, -1.125], [0.375, -1.125, 0.75]],
                      [[3.0, 0.375, 1.5], [0.375, 0.046875, 0.1875], [1.5, 0.1875, 0.75]]]), what="H (c = 2, d = 2)", matrix=True)


@test("softmax_hessian", points=1)
def test_hessian_four_classes_no_feature(f):
    assert_values_at(f(4, 0), zip([{"p1": 0.125, "p2": 0.25, "p3": 0.5}, {"p1": 0.375, "p2": 0.125, "p3": 0.25}],
                     [[[0.25, 0.125, 0.125], [0.125, 0.359375, 0.078125], [0.125, 0.078125, 0.484375]],
                      [[0.609375, 0.265625, 0.25], [0.265625, 0.359375, 0.25], [0.25, 0.25, 0.5]]]), what="H (c = 4, d = 0)", matrix=True)


# --------------------------------------------------------------------------
# the convexity proof
# --------------------------------------------------------------------------
def _names(c):
    return [f"p{k}" for k in range(1, c + 1)] + [f"v{k}" for k in range(1, c + 1)]


def check_sum_of_squares(got, c, quad_text, what="sos"):
    """``got`` equals the form when p1 + ... + pc = 1 and is visibly a nonnegative sum of squares."""
    from ..symbolic import compare_expr, parse_expr_safely

    expr = read_expr(got, what)
    p = [sp.Symbol(f"p{k}") for k in range(1, c + 1)]
    last = {p[-1]: 1 - sum(p[:-1])}
    ok, msg = compare_expr(expr.xreplace(last), parse_expr_safely(quad_text).xreplace(last),
                           [n for n in _names(c) if n != f"p{c}"],
                           positive=[f"p{k}" for k in range(1, c)])
    if not ok:
        fail(f"{what} is not equal to v^T (diag p - p p^T) v when p1 + ... + p{c} = 1: {msg}")
    if expr.has(sp.I):
        fail(f"{what} must be real")
    p_set = set(p)
    for term in sp.Add.make_args(expr):
        coeff, rest = term.as_coeff_Mul()
        if not (coeff.is_number and coeff.is_positive):
            fail(f"{what}: the term {term} does not have a positive coefficient")
        squares = 0
        for factor in sp.Mul.make_args(rest):
            if factor in p_set:
                continue
            if factor.is_Pow and factor.base in p_set and factor.exp.is_Integer and factor.exp > 0:
                continue
            if factor.is_Pow and factor.exp.is_Integer and factor.exp > 0 and factor.exp % 2 == 0:
                squares += 1
                continue
            fail(f"{what}: in the term {term}, the factor {factor} is neither a probability p_k "
                  "nor an even power, so the term is not visibly >= 0")
        if squares == 0:
            fail(f"{what}: the term {term} contains no square")


def _proof(f, c):
    return unpack(f(c), 3, "the result (quad, sos, v_null)")


def _quad_text(c):
    r = range(1, c + 1)
    return " + ".join(f"p{k}*v{k}**2" for k in r) + " - (" + " + ".join(f"p{k}*v{k}" for k in r) + ")**2"


def check_null_vector(got, c, what="v_null"):
    v = as_array(got, (c,), what)
    if np.abs(v).max() == 0:
        fail(f"{what} is the zero vector")
    p = np.full(c, 1.0 / c) + np.linspace(-0.5, 0.5, c) / (2 * c)  # a generic distribution
    form = float(v @ (np.diag(p) - np.outer(p, p)) @ v)
    if abs(form) > 1e-9 * float(v @ v):
        fail(f"{what}: the form v^T (diag p - p p^T) v is {form:.3g} at p = {np.round(p, 4)}, not 0")


@test("softmax_convexity_proof", points=1)
def test_quadratic_form(f):
    quad, _, _ = _proof(f, 3)
    assert_expr(quad, _quad_text(3), _names(3), "quad (c = 3)")


@test("softmax_convexity_proof", points=2)
def test_sum_of_squares(f):
    _, sos, _ = _proof(f, 3)
    check_sum_of_squares(sos, 3, _quad_text(3), "sos (c = 3)")


@test("softmax_convexity_proof", points=1)
def test_sum_of_squares_four_classes(f):
    quad, sos, _ = _proof(f, 4)
    assert_expr(quad, _quad_text(4), _names(4), "quad (c = 4)")
    check_sum_of_squares(sos, 4, _quad_text(4), "sos (c = 4)")


@test("softmax_convexity_proof", points=1)
def test_null_direction(f):
    _, _, v = _proof(f, 3)
    check_null_vector(v, 3, "v_null (c = 3)")


# --------------------------------------------------------------------------
# the separable experiment
# --------------------------------------------------------------------------
# three classes on a line, two points each: a linear machine separates them
X_LINE = np.array([[-2.0, 0.5], [-1.5, -0.5], [0.0, 0.5], [0.5, -0.5], [2.0, 0.0], [2.5, 1.0]])
Y_LINE = np.array([0, 0, 1, 1, 2, 2])


def _experiment(f, X, y, c):
    norms, loss, infimum = unpack(f(X, y, c), 3, "the result (norms, loss, infimum)")
    return as_array(norms, (3,), "norms"), loss, infimum


@test("softmax_separable_experiment", points=1)
def test_experiment_three_classes_on_a_line(f):
    norms, loss, infimum = _experiment(f, X_LINE, Y_LINE, 3)
    assert_close(norms, [0.6572272384750025, 2.368184077630146, 6.260057155116305], "norms", rtol=1e-6)
    assert_close(loss, 0.036584235406591704, "loss after 1000 steps", rtol=1e-6)


@test("softmax_separable_experiment", points=1)
def test_experiment_infimum(f):
    _, _, infimum = _experiment(f, X_LINE, Y_LINE, 3)
    assert_close_quiet(infimum, 0.0, "the infimum of R", atol=1e-9)


@test("softmax_separable_experiment", points=1, variant=True)
def test_experiment_on_your_own_data(f, data):
    """Expected values from gradient descent with linclf's softmax_loss_and_grad (the trusted twin)."""
    norms_ref, loss_ref = gradient_descent_norms(data["X"], data["y"], data["c"])
    norms, loss, infimum = _experiment(f, data["X"], data["y"], data["c"])
    assert_close_quiet(norms, norms_ref, "norms on your data", rtol=1e-6)
    assert_close_quiet(loss, loss_ref, "loss after 1000 steps on your data", rtol=1e-6)
    assert_close_quiet(infimum, 0.0, "the infimum of R", atol=1e-9)
