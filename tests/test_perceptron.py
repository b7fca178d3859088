import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linclf import ConvergenceWarning
from linclf.datasets import make_gaussian_classes, make_separable, make_xor, perceptron_example
from linclf.geometry import normalize_augmented
from linclf.perceptron import AveragedPerceptron, LinearMachine, Perceptron, VotedPerceptron

# the worked example: (index of the corrected sample, w after, b after)
WORKED_UPDATES = [
    (0, (3, 3), 1),
    (2, (2, 2), 0),
    (2, (1, 1), -1),
    (2, (0, 0), -2),
    (0, (3, 3), -1),
    (2, (2, 2), -2),
    (2, (1, 1), -3),
]


def test_worked_example_exactly():
    X, y = perceptron_example()
    clf = Perceptron(trace=True, eta=1.0).fit(X, y)
    assert clf.n_updates_ == 7
    assert [u["step"] for u in clf.updates_] == list(range(1, 8))
    for update, (index, w, b) in zip(clf.updates_, WORKED_UPDATES):
        assert update["index"] == index
        np.testing.assert_array_equal(update["w"], w)
        assert update["b"] == b
        assert isinstance(update["b"], float)
    np.testing.assert_array_equal(clf.coef_, [[1.0, 1.0]])
    np.testing.assert_array_equal(clf.intercept_, [-3.0])
    assert clf.n_iter_ == 6  # five passes with corrections, then one clean pass
    assert clf.converged_
    np.testing.assert_array_equal(clf.predict(X), y)
    np.testing.assert_array_equal(clf.decision_function(X), [3.0, 4.0, -1.0])
    np.testing.assert_array_equal(clf.classes_, [-1, 1])
    assert clf.n_features_in_ == 2


def test_recorded_weights_are_copies():
    X, y = perceptron_example()
    clf = Perceptron(trace=True).fit(X, y)
    clf.updates_[0]["w"][0] = 99.0
    np.testing.assert_array_equal(clf.updates_[1]["w"], [2.0, 2.0])
    np.testing.assert_array_equal(clf.coef_, [[1.0, 1.0]])


def test_worked_example_with_string_labels():
    X, _ = perceptron_example()
    clf = Perceptron(trace=True).fit(X, ["yes", "yes", "no"])  # "no" < "yes" so "no" is negative
    np.testing.assert_array_equal(clf.coef_, [[1.0, 1.0]])
    np.testing.assert_array_equal(clf.predict([[5.0, 5.0], [0.0, 0.0]]), ["yes", "no"])


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([("a", "b"), (-7, 3), (-1.0, 2.0), ("neg", "pos"), (False, True)]),
    st.integers(0, 2**16),
)
def test_result_invariant_to_relabelling(labels, seed):
    X, y01 = make_separable(30, margin=0.3, random_state=seed)
    low, high = labels
    ref = Perceptron(trace=True).fit(X, y01)
    relabelled = np.array([high if v == 1 else low for v in y01], dtype=object)
    clf = Perceptron(trace=True).fit(X, relabelled.tolist())
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    np.testing.assert_array_equal(clf.intercept_, ref.intercept_)
    assert [u["index"] for u in clf.updates_] == [u["index"] for u in ref.updates_]
    np.testing.assert_array_equal(clf.predict(X) == high, ref.predict(X) == 1)


def test_absolute_correction_makes_each_corrected_sample_correct():
    X, y = make_separable(60, margin=0.2, random_state=3)
    Z = normalize_augmented(X, y)
    for margin in (0.0, 1.5):
        clf = Perceptron(trace=True, step="absolute", margin=margin, eta=0.5).fit(X, y)
        assert clf.converged_
        for u in clf.updates_:
            a = np.r_[u["w"], u["b"]]
            assert a @ Z[u["index"]] > margin
        assert np.all(Z @ np.r_[clf.coef_[0], clf.intercept_] > margin)


def test_absolute_correction_on_worked_example():
    X, y = perceptron_example()
    clf = Perceptron(trace=True, step="absolute").fit(X, y)
    assert [u["index"] for u in clf.updates_] == [0, 2, 0, 2, 0, 2]
    # step 2: a = (3, 3, 1), z3 = -(1, 1, 1): a^T z = -7, ||z||^2 = 3, rho = 7/3 + 1
    np.testing.assert_allclose(clf.updates_[1]["w"], [3 - 10 / 3, 3 - 10 / 3])
    assert clf.updates_[1]["b"] == pytest.approx(1 - 10 / 3)
    # each correction leaves its sample at a^T z = eta * ||z||^2 exactly
    Z = normalize_augmented(X, y)
    for u in clf.updates_:
        z = Z[u["index"]]
        assert np.r_[u["w"], u["b"]] @ z == pytest.approx(z @ z)
    assert clf.score(X, y) == 1.0


def test_batch_rule_sums_all_mistakes():
    X, y = perceptron_example()
    clf = Perceptron(trace=True, rule="batch").fit(X, y)
    first = clf.updates_[0]
    np.testing.assert_array_equal(first["index"], [0, 1, 2])  # a = 0 misclassifies all
    np.testing.assert_array_equal(first["w"], [3 + 4 - 1, 3 + 3 - 1])
    assert first["b"] == 1.0
    assert clf.converged_
    assert clf.score(X, y) == 1.0
    assert clf.n_iter_ == clf.n_updates_ + 1


@pytest.mark.parametrize("rule", ["single", "batch"])
def test_margin_is_respected_at_convergence(rule):
    X, y = make_separable(80, margin=0.5, random_state=1)
    Z = normalize_augmented(X, y)
    clf = Perceptron(trace=True, rule=rule, margin=2.0, eta=0.1).fit(X, y)
    assert clf.converged_
    assert np.all(Z @ np.r_[clf.coef_[0], clf.intercept_] > 2.0)


def test_novikoff_bound():
    X, y, w, b = make_separable(200, margin=0.3, n_features=3, random_state=5, return_hyperplane=True)
    Z = normalize_augmented(X, y)
    a_star = np.r_[w, b] / np.linalg.norm(np.r_[w, b])
    gamma = np.min(Z @ a_star)
    R = np.max(np.linalg.norm(Z, axis=1))
    clf = Perceptron(trace=True).fit(X, y)
    assert clf.converged_
    assert 0 < clf.n_updates_ <= (R / gamma) ** 2


def test_shuffle_is_reproducible():
    X, y = make_separable(100, margin=0.1, random_state=2)
    a = Perceptron(trace=True, order="shuffle", random_state=7).fit(X, y)
    b = Perceptron(trace=True, order="shuffle", random_state=7).fit(X, y)
    c = Perceptron(trace=True, order="cyclic").fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert [u["index"] for u in a.updates_] == [u["index"] for u in b.updates_]
    assert [u["index"] for u in a.updates_] != [u["index"] for u in c.updates_]
    assert a.score(X, y) == 1.0


def test_w_init_and_b_init():
    X, y = perceptron_example()
    clf = Perceptron(trace=True, w_init=[1.0, 1.0], b_init=-3.0).fit(X, y)
    assert clf.n_updates_ == 0
    assert clf.n_iter_ == 1
    with pytest.raises(ValueError, match="w_init must be 2 finite numbers"):
        Perceptron(trace=True, w_init=[1.0]).fit(X, y)
    with pytest.raises(TypeError, match="b_init must be a number"):
        Perceptron(trace=True, b_init="0").fit(X, y)


def test_xor_does_not_converge():
    X, y = make_xor(40)
    with pytest.warns(ConvergenceWarning, match="Perceptron did not converge in max_iter=25"):
        clf = Perceptron(trace=True, max_iter=25).fit(X, y)
    assert not clf.converged_
    assert clf.n_iter_ == 25
    with pytest.warns(ConvergenceWarning):
        Perceptron(trace=True, rule="batch", max_iter=25).fit(X, y)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"rule": "online"}, ValueError, "Perceptron: rule must be one of 'single', 'batch'; got 'online'"),
        ({"step": "relative"}, ValueError, "step must be one of 'fixed', 'absolute'"),
        ({"order": "random"}, ValueError, "order must be one of 'cyclic', 'shuffle'"),
        ({"eta": 0.0}, ValueError, "eta must be a number in \\(0, inf\\); got 0.0"),
        ({"eta": -1}, ValueError, "eta must be a number in \\(0, inf\\)"),
        ({"eta": "fast"}, TypeError, "eta must be a number in \\(0, inf\\); got 'fast'"),
        ({"margin": -0.1}, ValueError, "margin must be a number in \\[0, inf\\)"),
        ({"max_iter": 0}, ValueError, "max_iter must be an integer in \\[1, inf\\)"),
        ({"max_iter": 2.5}, TypeError, "max_iter must be an integer in \\[1, inf\\); got 2.5"),
        ({"b_init": float("nan")}, ValueError, "b_init must be a number"),
        ({"rule": "batch", "step": "absolute"}, ValueError, "rule=\"single\" only"),
        ({"random_state": "x", "order": "shuffle"}, TypeError, "random_state"),
    ],
)
def test_bad_parameters(params, error, match):
    X, y = perceptron_example()
    with pytest.raises(error, match=match):
        Perceptron(trace=True, **params).fit(X, y)


# ---------------------------------------------------------------- voted / averaged


def _running_vectors(X, y, n_epochs):
    """Independent reference: the weight vector in use at every visit."""
    Z = normalize_augmented(X, y)
    a = np.zeros(Z.shape[1])
    used = []
    for _ in range(n_epochs):
        for z in Z:
            if a @ z <= 0:
                a = a + z
            used.append(a.copy())
    return np.array(used)


def test_voted_perceptron_counts_and_vote():
    X, y = perceptron_example()
    v = VotedPerceptron(max_iter=10).fit(X, y)
    assert v.survival_counts_.sum() == 10 * 3
    np.testing.assert_array_equal(v.survival_counts_, [2, 3, 3, 1, 2, 3, 16])
    np.testing.assert_array_equal(v.coefs_[-1], [1.0, 1.0])
    assert v.intercepts_[-1] == -3.0
    x = np.array([[2.0, 1.0], [0.0, 0.0], [3.0, 3.0]])
    expected = np.sign(x @ v.coefs_.T + v.intercepts_) @ v.survival_counts_
    np.testing.assert_array_equal(v.decision_function(x), expected)
    np.testing.assert_array_equal(v.predict(X), y)
    assert not hasattr(v, "coef_")


def test_averaged_perceptron_is_mean_of_running_vector():
    X, y = make_separable(50, margin=0.2, random_state=4)
    avg = AveragedPerceptron(max_iter=5).fit(X, y)
    ref = _running_vectors(X, y, 5).mean(axis=0)
    np.testing.assert_allclose(avg.coef_[0], ref[:-1])
    np.testing.assert_allclose(avg.intercept_, ref[-1:])
    # the average is not guaranteed to separate the training data, but comes close
    assert avg.score(X, y) >= 0.9
    voted = VotedPerceptron(max_iter=5).fit(X, y)
    assert voted.score(X, y) >= 0.9


def test_voted_and_averaged_on_noisy_data_beat_chance():
    X, y = make_gaussian_classes(200, [[-1, -1], [1, 1]], random_state=0)
    for est in (VotedPerceptron(), AveragedPerceptron()):
        assert est.fit(X, y).score(X, y) > 0.85


def test_voted_bad_parameter():
    X, y = perceptron_example()
    with pytest.raises(ValueError, match="VotedPerceptron: eta must be a number in \\(0, inf\\)"):
        VotedPerceptron(eta=0).fit(X, y)
    with pytest.raises(ValueError, match="order must be one of"):
        AveragedPerceptron(order="zigzag").fit(X, y)


# ---------------------------------------------------------------- linear machine


@pytest.fixture(scope="module")
def three_blobs():
    means = [[0.0, 4.0], [-4.0, -2.0], [4.0, -2.0]]
    return make_gaussian_classes(150, means, covs=0.5, random_state=0)


@pytest.mark.parametrize("update", ["max", "all"])
def test_linear_machine_separates_three_blobs(three_blobs, update):
    X, y = three_blobs
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        lm = LinearMachine(update=update).fit(X, y)
    assert lm.converged_
    assert lm.coef_.shape == (3, 2) and lm.intercept_.shape == (3,)
    assert lm.score(X, y) == 1.0
    # from the zero start every correction adds and subtracts the same vector
    np.testing.assert_allclose(lm.coef_.sum(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(lm.intercept_.sum(), 0.0, atol=1e-9)
    scores = lm.decision_function(X)
    np.testing.assert_array_equal(lm.predict(X), lm.classes_[np.argmax(scores, axis=1)])


def test_linear_machine_two_classes_follows_binary_convention():
    X, y = perceptron_example()
    lm = LinearMachine().fit(X, np.array(["b", "b", "a"]))
    assert lm.coef_.shape == (2, 2)
    g = lm.decision_function(X)
    assert g.shape == (3,)
    np.testing.assert_allclose(g, (X @ lm.coef_.T + lm.intercept_) @ [-1, 1])
    np.testing.assert_array_equal(lm.predict(X), ["b", "b", "a"])


def test_linear_machine_margin_and_warning(three_blobs):
    X, y = three_blobs
    lm = LinearMachine(margin=5.0).fit(X, y)
    G = X @ lm.coef_.T + lm.intercept_
    true = G[np.arange(len(y)), y]
    G[np.arange(len(y)), y] = -np.inf
    assert np.all(true > G.max(axis=1) + 5.0)
    Xx, yx = make_xor(40)
    with pytest.warns(ConvergenceWarning, match="LinearMachine did not converge"):
        LinearMachine(max_iter=10).fit(Xx, yx)


def test_linear_machine_bad_parameters(three_blobs):
    X, y = three_blobs
    with pytest.raises(ValueError, match="update must be one of 'max', 'all'"):
        LinearMachine(update="some").fit(X, y)
    with pytest.raises(ValueError, match="eta must be a number in"):
        LinearMachine(eta=-2).fit(X, y)


def test_a_fitted_perceptron_does_not_grow_with_max_iter():
    import pickle

    from linclf.datasets import make_xor

    X, y = make_xor(400, random_state=0)        # not separable: every epoch corrects
    sizes = []
    for max_iter in (10, 200):
        with pytest.warns(ConvergenceWarning):
            clf = Perceptron(max_iter=max_iter).fit(X, y)
        assert not hasattr(clf, "updates_") and clf.n_updates_ > max_iter
        sizes.append(len(pickle.dumps(clf)))
    assert sizes[1] == sizes[0]                 # the same size whatever max_iter
    with pytest.warns(ConvergenceWarning):
        traced = Perceptron(max_iter=10, trace=True).fit(X, y)
    assert len(traced.updates_) == traced.n_updates_


# ---------------------------------------------------------------- variable increment, traced machine


def test_variable_increment_step_sequence():
    X, y = make_separable(60, margin=0.3, random_state=4)
    Z = normalize_augmented(X, y)
    clf = Perceptron(step=lambda k: 1.0 / k, trace=True).fit(X, y)
    assert clf.converged_ and clf.score(X, y) == 1.0
    # independent loop: the k-th correction adds z / k
    a, k = np.zeros(3), 0
    for _ in range(clf.n_iter_):
        for z in Z:
            if a @ z <= 0:
                k += 1
                a = a + z / k
    np.testing.assert_allclose(np.r_[clf.coef_[0], clf.intercept_], a)
    assert k == clf.n_updates_
    # a constant callable is the fixed-increment rule
    fixed = Perceptron(eta=0.7).fit(X, y)
    const = Perceptron(step=lambda k: 0.7).fit(X, y)
    np.testing.assert_allclose(const.coef_, fixed.coef_)
    # batch rule: the t-th pass moves by step(t) times the sum of its mistakes
    batch = Perceptron(rule="batch", step=lambda t: 1.0 / t, trace=True).fit(X, y)
    a = np.zeros(3)
    for t, u in enumerate(batch.updates_, start=1):
        a = a + Z[u["index"]].sum(axis=0) / t
        np.testing.assert_allclose(np.r_[u["w"], u["b"]], a)


def test_variable_increment_bad_steps():
    X, y = perceptron_example()
    with pytest.raises(ValueError, match="step\\(k\\) must be finite and >= 0"):
        Perceptron(step=lambda k: -1.0).fit(X, y)
    with pytest.raises(ValueError, match="step\\(k\\) must be finite and >= 0"):
        Perceptron(step=lambda k: float("nan")).fit(X, y)
    with pytest.raises(ValueError, match="or a callable"):
        Perceptron(step="harmonic").fit(X, y)


def test_linear_machine_trace_is_the_kesler_perceptron(three_blobs):
    X, y = three_blobs
    lm = LinearMachine(trace=True).fit(X, y)
    assert len(lm.updates_) == lm.n_updates_ and lm.updates_[-1]["step"] == lm.n_updates_
    np.testing.assert_array_equal(lm.updates_[-1]["w"], lm.coef_)
    np.testing.assert_array_equal(lm.updates_[-1]["b"], lm.intercept_)
    # reference: fixed-increment perceptron on Kesler vectors in R^{c(d+1)}
    Xt = np.column_stack([X, np.ones(len(y))])
    c, d1 = 3, Xt.shape[1]
    a, seq = np.zeros(c * d1), []
    for _ in range(lm.n_iter_):
        for i, (x, t) in enumerate(zip(Xt, y)):
            zetas = []
            for j in range(c):
                if j != t:
                    v = np.zeros((c, d1))
                    v[t], v[j] = x, -x
                    zetas.append((j, v.ravel()))
            gaps = [a @ v for _, v in zetas]
            if min(gaps) <= 0:
                j, v = zetas[int(np.argmin(gaps))]
                a = a + v
                seq.append((i, j, a.copy()))
    assert len(seq) == lm.n_updates_
    for (i, j, a_k), u in zip(seq, lm.updates_):
        assert u["index"] == i and list(u["rivals"]) == [j]
        np.testing.assert_array_equal(np.column_stack([u["w"], u["b"]]).ravel(), a_k)
    untraced = LinearMachine().fit(X, y)
    assert not hasattr(untraced, "updates_")


def test_averaged_perceptron_keeps_running_sums_only_unless_traced():
    # The average needs sum_m s_m a_m and sum_m s_m, not every vector: a
    # 3000 x 50 fit kept 10 287 of them (4.2 MB) to predict with one.
    import pickle

    X, y = make_gaussian_classes(600, [[0.0] * 20, [0.4] * 20], random_state=0)
    plain = AveragedPerceptron(max_iter=5).fit(X, y)
    traced = AveragedPerceptron(max_iter=5, trace=True).fit(X, y)
    assert not hasattr(plain, "coefs_") and not hasattr(plain, "survival_counts_")
    assert traced.coefs_.shape[0] > 100
    np.testing.assert_allclose(plain.coef_, traced.coef_, rtol=1e-10)
    np.testing.assert_allclose(plain.intercept_, traced.intercept_, rtol=1e-10, atol=1e-12)
    assert len(pickle.dumps(plain)) < 20 * X.shape[1] * 8 + 4000
    # a refit without trace drops the stale run
    assert not hasattr(traced.set_params(trace=False).fit(X, y), "coefs_")


# ---------------------------------------------------------------- fast paths = plain loop


def _plain_perceptron(X, y, eta, margin, n_epochs):
    """Independent reference: the fixed-increment rule, one sample at a time, cyclic."""
    Z = normalize_augmented(X, y)
    a = np.zeros(Z.shape[1])
    for _ in range(n_epochs):
        for z in Z:
            if a @ z <= margin:
                a = a + eta * z
    return a


@pytest.mark.parametrize("d", [3, 40])  # Python floats (few weights) and numpy per sample
@pytest.mark.parametrize("gap", [0.5, 5.0])  # a mistake every few samples / rare mistakes
@pytest.mark.parametrize("eta, margin", [(1.0, 0.0), (0.3, 0.7)])
def test_fast_epochs_are_bit_for_bit_the_plain_loop(d, gap, eta, margin):
    rng = np.random.default_rng(d)
    y = np.repeat([0, 1], 300)
    X = rng.normal(size=(600, d))
    X[:, 0] += gap * (y - 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Perceptron(eta=eta, margin=margin, max_iter=12).fit(X, y)
    a = _plain_perceptron(X, y, eta, margin, clf.n_iter_)
    np.testing.assert_array_equal(clf.coef_[0], a[:-1])
    np.testing.assert_array_equal(clf.intercept_, a[-1:])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("d", [2, 6])
def test_scores_within_rounding_of_the_margin_are_decided_as_the_plain_loop_does(seed, d):
    # a feature of 1e8 cancels in the score, whose last bits then depend on the order of
    # summation: a fast path that decided by another sum than the per-sample dot within
    # rounding of the margin would give other weights on these data
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(300, d)).astype(float)
    X[:, 1] *= 1e8
    X[:, 0] += 0.1
    y = (X[:, 0] + rng.integers(-1, 2, 300) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Perceptron(eta=0.1, max_iter=10).fit(X, y)
    a = _plain_perceptron(X, y, 0.1, 0.0, clf.n_iter_)
    np.testing.assert_array_equal(np.append(clf.coef_[0], clf.intercept_), a)


def test_block_scan_decides_within_rounding_as_the_plain_loop_does():
    # the same kind of data with few mistakes (the block scan's regime); deciding by
    # the block product alone gives other weights on this draw
    rng = np.random.default_rng(52)
    for d in (2, 6):  # the second draw is the one
        X = rng.integers(-3, 4, size=(300, d)).astype(float)
        X[:, 1] *= 1e8
        X[:, 0] += 0.1
        y = (X[:, 0] + (rng.random(300) < 0.02) * 5 > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Perceptron(eta=0.1, max_iter=10).fit(X, y)
    a = _plain_perceptron(X, y, 0.1, 0.0, clf.n_iter_)
    np.testing.assert_array_equal(np.append(clf.coef_[0], clf.intercept_), a)


def test_an_epoch_that_turns_dense_midway_is_bit_for_bit_the_plain_loop():
    # a stretch with rare mistakes, then one where about half the samples are wrong:
    # the scan starts in blocks and goes over to the sample-by-sample loop midway
    # (linclf._scan.fixed_step_epoch); it must resume at the right sample
    rng = np.random.default_rng(7)
    y = np.concatenate([np.repeat([0, 1], 50), rng.integers(0, 2, 500)])
    X = rng.normal(size=(600, 4))
    X[:100, 0] += 8.0 * (y[:100] - 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = Perceptron(max_iter=6).fit(X, y)
    a = _plain_perceptron(X, y, 1.0, 0.0, clf.n_iter_)
    np.testing.assert_array_equal(np.append(clf.coef_[0], clf.intercept_), a)


# ---------------------------------------------------------------------------
# E36: a feature offset by 1e6 leaves the survivor perceptrons and the pocket
# at the majority class; stopping at max_iter without separating must say so
# ---------------------------------------------------------------------------


def _offset_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + 0.4 * rng.normal(size=80) > 0).astype(int)
    return X, X + [0.0, 0.0, 1e6], y


@pytest.mark.parametrize("make", [
    lambda: AveragedPerceptron(), lambda: VotedPerceptron(),
    lambda: __import__("linclf").PocketPerceptron(random_state=0), lambda: Perceptron(),
], ids=["averaged", "voted", "pocket", "perceptron"])
def test_offset_features_without_separation_warn_to_standardise(make):
    X, Xo, y = _offset_problem()
    with pytest.warns(ConvergenceWarning,
                      match=r"(?s)without separating.*1e\+06.*[Ss]tandardise the features"):
        model = make().fit(Xo, y)
    assert model.score(Xo, y) <= 0.6   # the majority model: the warning is needed
    # the same data unshifted: the normal end of a non-separable run is silent
    # for the variants designed for it (the plain perceptron always warns)
    if not isinstance(model, Perceptron):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert make().fit(X, y).score(X, y) >= 0.85


@pytest.mark.parametrize("p", [3, 6, 12])
def test_the_unrolled_loop_decides_by_numpys_dot_where_the_two_sums_differ(p):
    # The Python-float epochs (linclf._scan._unrolled_loop) sum the score term by term;
    # numpy's dot may sum (and round) otherwise. With the margin put between the two
    # sums of one pair, the two decide differently: the epoch must decide as a.dot(z).
    from linclf._scan import fixed_step_epoch, lazy_samples

    rng = np.random.default_rng(p)
    checked = 0
    for _ in range(400):
        a = rng.normal(size=p) * 10.0 ** rng.integers(-6, 7, p)
        z = rng.normal(size=p)
        s = a[0] * z[0]
        for j in range(1, p):
            s = s + a[j] * z[j]
        e = float(a.dot(z))
        if s == e:
            continue
        checked += 1
        margin = min(s, e)
        Zo = z[None, :]
        got, wrong = fixed_step_epoch(Zo, list(Zo), a, 1.0, margin, float(np.linalg.norm(z)),
                                      True, lazy_samples(Zo, list(Zo)))
        expected = a + z if e <= margin else a
        np.testing.assert_array_equal(got, expected)
        assert wrong == int(e <= margin)
    assert checked >= 20  # pairs whose two sums differ (about one in four here)


def test_the_python_float_epochs_are_used_only_under_their_memory_budget(monkeypatch):
    # as Python floats in tuples a sample takes 4.4-6.4x its bytes in Z: above
    # UNROLL_MAX_ENTRIES entries the dense epochs stay in numpy (same weights)
    import linclf._scan as scan
    import linclf.perceptron as perceptron_module

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 300)
    X = rng.normal(size=(600, 3))
    X[:, 0] += 0.5 * (y - 0.5)                     # overlapping: dense epochs
    built = []
    real = scan.lazy_samples

    def counting(Zo, rows):
        built.append(Zo.shape)
        return real(Zo, rows)

    monkeypatch.setattr(perceptron_module, "lazy_samples", counting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fast = Perceptron(max_iter=5).fit(X, y)
        assert built                               # within the budget: Python floats
        built.clear()
        monkeypatch.setattr(perceptron_module, "UNROLL_MAX_ENTRIES", 4 * 600 - 1)
        monkeypatch.setattr(scan, "_unrolled_loop", None)   # must not be reached
        big = Perceptron(max_iter=5).fit(X, y)
    assert not built
    np.testing.assert_array_equal(big.coef_, fast.coef_)
    np.testing.assert_array_equal(big.intercept_, fast.intercept_)
    a = _plain_perceptron(X, y, 1.0, 0.0, 5)
    np.testing.assert_array_equal(np.append(big.coef_[0], big.intercept_), a)
