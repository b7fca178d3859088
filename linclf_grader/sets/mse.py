"""Exercise set "mse" (chapter 4): the MSE criterion, margins that move the threshold, Widrow-Hoff,
leave-one-out without refitting, Ho-Kashyap, and masking with three classes.

Z denotes the matrix of normalised augmented samples, rows z_i = y_i * (x_i, 1),
beta the margin vector, and a = (w, b).  Expected values are literals computed
once from the reference solutions, except in the masking tests, where they come
from a direct least-squares fit with the student's target value (a task parameter).
"""

import numpy as np

from ..imports import OPTIMISERS
from ..framework import ExerciseSet, as_array, assert_close, assert_equal, test, unpack
from ..quiet import assert_close_quiet, assert_equal_quiet

SET = ExerciseSet("mse", "Least squares (MSE) classifiers", "04_mse",
                  preamble="import numpy as np\nimport sympy as sp\n")

SET.exercise(
    "mse_solution",
    kind="formula",
    title="The pseudo-inverse solution",
    signature="def mse_solution(X, y, margins):",
    hidden_tests=1,
    doc=r"""
    Minimise ||Z a - margins||^2 over a = (w, b), where the rows of Z are the
    normalised augmented samples z_i = y_i * (x_i, 1).  Use the
    pseudo-inverse a = pinv(Z) @ margins.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels in {-1, +1}
    margins : ndarray of shape (n,), the margins beta_i > 0

    Returns
    -------
    (w, b) : ndarray of shape (d,), float
    """,
)

SET.exercise(
    "midpoint_margins",
    kind="derivation",
    hidden_tests=1,
    title="Margins that cut halfway between the means",
    signature="def midpoint_margins(X, y):",
    doc=r"""
    The class-constant margins beta_i = beta_+ (class +1) and beta_- (class
    -1), with beta_+ + beta_- = 2, for which the MSE boundary
    w* @ x + b* = 0 passes through the midpoint (m_+ + m_-) / 2 of the two
    class means.  Derive beta_+ from thm-mse-fisher, then compute it.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels in {-1, +1}; S_w invertible

    Returns
    -------
    margins : ndarray of shape (n,)
    """,
)

SET.exercise(
    "lms_update",
    kind="formula",
    title="One Widrow-Hoff (LMS) step",
    signature="def lms_update(a, z, margin, eta):",
    hidden_tests=1,
    doc=r"""
    One step of the Widrow-Hoff rule on one normalised augmented sample z
    with margin beta_k (the argument ``margin``):
    a + eta * (beta_k - a @ z) * z.

    Returns
    -------
    a_new : ndarray of the shape of a
    """,
)

SET.exercise(
    "loo_score",
    kind="derivation",
    hidden_tests=2,
    title="Leaving one sample out, without refitting",
    signature="def loo_score():",
    doc=r"""
    a = pinv(Z) @ beta is the MSE solution on all N samples (Z of full
    column rank), s = z_i @ a the score of sample i, h = z_i @ inv(Z^T Z) @ z_i
    its leverage (h < 1), beta its margin.  a_(-i) is the MSE solution on
    the other N - 1 samples and their margins.  Return the left-out score
    z_i @ a_(-i) as a sympy expression in s, h, beta.
    """,
    stub="""s, h, beta = sp.symbols("s h beta", real=True)
return None  # replace None by your expression""",
)

SET.exercise(
    "ho_kashyap",
    # the iteration is displayed in chapter 4 (eq-mse-ho-kashyap), the start and the stopping
    # rule are in the docstring: transcription, however long
    kind="formula",
    forbid=OPTIMISERS,  # the exercise is to optimise: a ready-made optimiser would do it
    hidden_tests=1,
    title="The Ho-Kashyap procedure: a separating vector, or a proof that none exists",
    signature="def ho_kashyap(X, y, eta=0.5, max_iter=10_000):",
    doc=r"""
    The Ho-Kashyap procedure of chapter 4 on the normalised augmented
    samples z_i = y_i * (x_i, 1): minimise ||Z a - beta||^2 over a and over
    margins beta > 0, starting from beta = (1, ..., 1), with step eta on the
    margins; a is always the least-norm least-squares solution pinv(Z) @ beta
    of the current margins, and e = Z a - beta.

    Stopping rule, checked for every a computed (the first one included):
    stop with separable = True as soon as every z_i @ a > 0; otherwise stop
    with separable = False as soon as no entry of e exceeds
    1e-8 * ||e||; otherwise update beta and continue.  Raise RuntimeError
    if no decision is reached after max_iter updates of beta.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    y : ndarray of shape (N,), labels in {-1, +1}

    Returns
    -------
    (a, beta, separable) : ndarray of shape (d + 1,), ndarray of shape (N,), bool
        a = (w, b) and beta at the stop.
    """,
)


def _collinear_classes(rng):
    """Three Gaussian classes of 10 points whose means lie on a line, two decimals; no
    near-tie between the two largest fitted scores at any training point."""
    while True:
        u = rng.normal(size=2)
        u /= np.linalg.norm(u)
        centre, step, spread = rng.uniform(-1, 1, 2), rng.uniform(1.5, 3.0), rng.uniform(0.3, 0.8)
        X = np.round(np.vstack([rng.normal(centre + t * step * u, spread, (10, 2)) for t in (-1, 0, 1)]), 2)
        y = np.repeat([0, 1, 2], 10)
        X_tilde = np.hstack([X, np.ones((30, 1))])
        F = np.sort(X_tilde @ np.linalg.lstsq(X_tilde, np.eye(3)[y], rcond=None)[0], axis=1)
        if (F[:, -1] - F[:, -2]).min() > 1e-4:
            break
    # the task parameter (the target of class 1), drawn after the data so that every id keeps
    # its data: two decimals in [1.1, 4]; no near-tie for it on the data with their labels
    # swapped as the variant test swaps them, nor on the public example; and it changes an answer
    while True:
        c = int(rng.integers(110, 401)) / 100
        answers = [_masking(X, p[y], c) for p in _SWAPS]
        if min(_masking_gap(X, p[y], c) for p in _SWAPS) > 1e-4 and \
                _masking_gap(X_MASK, Y_MASK, c) > 1e-5 and \
                answers != [_masking(X, p[y], 1.0) for p in _SWAPS]:
            return {"X": X, "y": y, "target": c}


#: the label swaps of the variant test: none, 0 <-> 1, 1 <-> 2 (class 1 is the middle one or not)
_SWAPS = (np.array([0, 1, 2]), np.array([1, 0, 2]), np.array([0, 2, 1]))


def _scores(X, y, c):
    """Least-squares scores on the training points, one-hot targets with c for class 1 (direct)."""
    X_tilde = np.hstack([X, np.ones((len(X), 1))])
    T = np.eye(int(y.max()) + 1)[y]
    T[:, 1] *= c
    return X_tilde @ np.linalg.lstsq(X_tilde, T, rcond=None)[0]


def _masking_gap(X, y, c):
    F = np.sort(_scores(X, y, c), axis=1)
    return float((F[:, -1] - F[:, -2]).min())


def _masking(X, y, c):
    pred = np.argmax(_scores(X, y, c), axis=1)
    return int(len(np.unique(pred))), float(np.mean(pred != y))


SET.exercise(
    "masking_experiment",
    kind="experiment",
    variant=_collinear_classes,
    task={"target": 1.0},   # the target of class 1: 1 is the plain one-hot coding
    hidden_tests=1,
    title="Masking: three classes on a line (your own data)",
    signature="def masking_experiment(X, y):",
    doc=r"""
    Fit multi-class least squares to (X, y): regress the targets T (N x c)
    on the augmented samples (x_i, 1), one linear score per class, and
    predict for each training point the class of largest score.  T is the
    one-hot coding except that class 1 has your target value (the task
    parameter target): T[i, y_i] = 1, or target when y_i = 1; other entries 0.

    Parameters
    ----------
    X : ndarray of shape (N, 2)
    y : integer ndarray of shape (N,), labels 0, ..., c - 1

    Returns
    -------
    (n_predicted, error_rate) : int, float
        The number of classes predicted for at least one training point,
        and the fraction of training points misclassified.  Which class
        suffers, and why?
    """,
)

X_F = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 3.0], [2.0, 1.5], [4.0, 0.0], [5.0, 1.0], [6.0, 0.5]])
Y_F = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0])


@test("mse_solution", points=1)
def test_unit_margins(f):
    w, b = unpack(f(X_F, Y_F, np.ones(7)), 2, "the result (w, b)")
    assert_close(w, [-0.3445635528330776, 0.4410413476263385], "w")
    assert_close(b, 0.5819295558958657, "b")


@test("mse_solution", points=1)
def test_fisher_margins(f):
    margins = np.array([1.75, 1.75, 1.75, 1.75, 7 / 3, 7 / 3, 7 / 3])
    w, b = unpack(f(X_F, Y_F, margins), 2, "the result (w, b)")
    assert_close(w, [-0.7034839203675336, 0.9004594180704416], "w")
    assert_close(b, 0.8964395099540594, "b")


X_MID = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.0], [3.0, 1.0], [2.5, 3.0], [4.0, 2.5], [1.0, 3.0],
                  [3.5, 4.0], [0.5, 2.5]])
Y_MID = np.array([-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0])


@test("midpoint_margins", points=1)
def test_midpoint_larger_class_positive(f):
    expected = [0.9900459418070444] * 4 + [1.0099540581929556] * 3
    assert_close_quiet(f(X_F, Y_F), expected, "margins")


@test("midpoint_margins", points=1)
def test_midpoint_larger_class_negative(f):
    expected = [0.8806837433082606] * 6 + [1.1193162566917394] * 3
    assert_close_quiet(f(X_MID, Y_MID), expected, "margins")


@test("lms_update", points=1)
def test_lms_negative_sample(f):
    got = f(np.array([0.5, -1.0, 0.25]), np.array([-1.0, -2.0, -1.0]), 1.0, 0.1)
    assert_close(got, [0.525, -0.95, 0.275], "a_new")


@test("lms_update", points=1)
def test_lms_overshoot_is_corrected(f):
    # a @ z = 3 exceeds the margin 2: the step must move a back
    got = f(np.array([1.0, 1.0, -3.0]), np.array([3.0, 3.0, 1.0]), 2.0, 0.5)
    assert_close(got, [-0.5, -0.5, -3.5], "a_new")


@test("loo_score", points=2)
def test_left_out_score_against_refits(f):
    """The expression at (s, h, beta) of each sample, against the score of an MSE fit without that
    sample (computed here by refitting); the expression itself is compared in a hidden test."""
    Z = Y_F[:, None] * np.column_stack([X_F, np.ones(len(X_F))])
    check_left_out_scores(f(), Z, np.array([1.0, 2.0, 0.5, 1.5, 1.0, 3.0, 0.75]), "X_F")


def check_left_out_scores(answer, Z, beta, data):
    """``answer`` (an expression in s, h, beta) gives, at every sample of ``Z``, the score of the
    MSE fit refitted without that sample (the hidden tests use it on other data too)."""
    import sympy as sp

    from ..framework import read_expr

    got = read_expr(answer, "the left-out score")
    a = np.linalg.pinv(Z) @ beta
    H = Z @ np.linalg.solve(Z.T @ Z, Z.T)
    for i in range(len(Z)):
        keep = np.arange(len(Z)) != i
        refit = Z[i] @ (np.linalg.pinv(Z[keep]) @ beta[keep])
        at = {sp.Symbol("s"): Z[i] @ a, sp.Symbol("h"): H[i, i], sp.Symbol("beta"): beta[i]}
        value = complex(got.subs(at).evalf())
        if abs(value.imag) > 1e-9:
            raise AssertionError(f"the left-out score is not a real number for sample {i}")
        assert_close(value.real, refit, f"the left-out score of sample {i} ({data}, margins {beta[i]:g})",
                     rtol=1e-8, quiet=True)


# separable, but the plain MSE solution (beta = 1) misclassifies: the margins must move
X_HK = np.array([[0.8, 0.8], [1.5, 0.9], [1.4, 0.0], [1.4, 1.5], [2.3, 0.7], [3.6, 0.3], [3.9, 1.9],
                 [7.8, 2.3]])
Y_HK = np.array([1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0])
# not separable (one label flipped), decided after some updates
X_NS = np.array([[-1.7, -0.4], [-1.0, 1.4], [1.0, 0.2], [0.6, 0.8], [1.1, 1.7], [-1.4, 0.5], [-1.4, -0.2]])
Y_NS = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0])


def _hk(got):
    return unpack(got, 3, "the result (a, beta, separable)")


@test("ho_kashyap", points=1)
def test_hk_separable_after_moving_the_margins(f):
    a, beta, separable = _hk(f(X_HK, Y_HK))
    assert_equal(separable, True, "separable")
    a = as_array(a, (3,), "a")
    Z = Y_HK[:, None] * np.hstack([X_HK, np.ones((8, 1))])
    if not np.all(Z @ a > 0):
        raise AssertionError(f"a does not separate the data: z_i @ a = {np.round(Z @ a, 4).tolist()}")
    assert_close(a, [-0.8148619241929987, 0.2406473412811504, 1.6961165067517454], "a", rtol=1e-6)
    assert_close(beta, [1.213511963654055, 1.0, 1.0, 1.0, 1.0, 1.1219778201464017, 1.0, 3.998530101913115],
                 "beta", rtol=1e-6)


@test("ho_kashyap", points=1)
def test_hk_proves_non_separability(f):
    a, beta, separable = _hk(f(X_NS, Y_NS))
    assert_equal(separable, False, "separable")
    assert_close(a, [0.4166830263556527, 0.2273508135401388, 0.5170261525963877], "a", rtol=1e-6)
    assert_close(beta, [1.0, 1.0, 1.0, 1.0, 1.361873848539441, 1.0, 1.0], "beta", rtol=1e-6)


@test("ho_kashyap", points=1)
def test_hk_xor_at_the_first_step(f):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    a, beta, separable = _hk(f(X, np.array([-1.0, -1.0, 1.0, 1.0])))
    assert_equal(separable, False, "separable")
    assert_close(a, [0.0, 0.0, 0.0], "a", atol=1e-9)
    assert_close(beta, [1.0, 1.0, 1.0, 1.0], "beta")


# three classes of five points, means on the line x2 = x1 / 2
X_MASK = np.array([[-1.8, -0.4], [-1.8, -1.9], [-1.4, -0.7], [-2.4, -0.6], [-1.7, -0.8], [0.0, 0.4],
                   [-0.5, -0.1], [-0.3, 0.4], [0.0, -0.2], [-0.5, -0.2], [2.0, 0.8], [2.9, 1.7],
                   [0.1, -0.3], [1.9, 0.7], [2.1, 1.2]])
Y_MASK = np.repeat([0, 1, 2], 5)


@test("masking_experiment", points=1, variant=True)
def test_masking_small_example(f, data):
    """Expected: a direct least-squares fit with the student's c (no near-tie for any c)."""
    n, err = unpack(f(X_MASK, Y_MASK), 2, "the result (n_predicted, error_rate)")
    n_ref, err_ref = _masking(X_MASK, Y_MASK, data["target"])
    assert_equal_quiet(n, n_ref, "n_predicted with your target")
    assert_close_quiet(err, err_ref, "error_rate with your target")


@test("masking_experiment", points=2, variant=True)
def test_masking_on_your_own_data(f, data):
    """Expected: a direct least-squares fit with the student's c, on the student's data and on the
    same data with labels 0 and 1, then 1 and 2, swapped (the target then lands on an outer class)."""
    X, y, c = data["X"], data["y"], data["target"]
    got = [f(X, swap[y]) for swap in _SWAPS]   # every call first: a copy check replays them
    for swap, answer, what in zip(_SWAPS, got, ("", " (labels 0 and 1 swapped)",
                                                " (labels 1 and 2 swapped)")):
        n, err = unpack(answer, 2, "the result (n_predicted, error_rate)")
        n_ref, err_ref = _masking(X, swap[y], c)
        assert_equal_quiet(n, n_ref, f"n_predicted on your data{what}")
        assert_close_quiet(err, err_ref, f"error_rate on your data{what}")
