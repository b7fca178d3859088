"""Tests for linclf.plotting: each function draws the expected artists and returns the Axes."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from linclf import plotting  # noqa: E402
from linclf.logistic import LogisticRegression  # noqa: E402
from linclf.softmax import SoftmaxRegression  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def three_blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.6, (12, 2)) for c in [(0, 0), (3, 0), (0, 3)]])
    return X, np.repeat(["a", "b", "c"], 12)


@pytest.fixture(scope="module")
def two_blobs(three_blobs):
    X, y = three_blobs
    return X[:24], y[:24]


class LinearSVCStub:
    """Duck-typed stand-in for a fitted two-class SVM with a known w, b and alphas."""

    def __init__(self, X, y, w=(1.0, -0.2), b=-1.5, C=1.0):
        self.w, self.b, self.C = np.asarray(w), b, C
        self.classes_ = np.unique(y)
        m = self.decision_function(X) * np.where(y == self.classes_[1], 1, -1)
        self.support_ = np.flatnonzero(m <= 1)
        self.alpha_ = np.zeros(len(X))
        # alternate the two kinds: alpha = C (bound) and 0 < alpha < C (free)
        self.alpha_[self.support_] = np.where(np.arange(self.support_.size) % 2 == 0, C, C / 2)
        self.support_vectors_ = X[self.support_]

    def decision_function(self, X):
        return np.asarray(X) @ self.w + self.b


def test_decision_regions_three_classes(three_blobs):
    X, y = three_blobs
    model = SoftmaxRegression(alpha=0.1).fit(X, y)
    ax = plotting.plot_decision_regions(model, X, y, resolution=50)
    assert isinstance(ax, Axes)
    # filled regions + borders + one scatter per class
    assert len(ax.collections) == 1 + 1 + 3
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "c"]
    assert ax.get_xlabel() and ax.get_ylabel()
    # scatter colours come from the palette, one per class
    colours = {tuple(c.get_facecolor()[0]) for c in ax.collections[2:]}
    assert len(colours) == 3


def test_decision_regions_uses_given_axes_and_binary_model(two_blobs):
    X, y = two_blobs
    fig, ax = plt.subplots()
    model = LogisticRegression(alpha=0.1).fit(X, y)
    out = plotting.plot_decision_regions(model, X, y, ax=ax, resolution=30, boundary=False, legend=False)
    assert out is ax and len(ax.collections) == 1 + 2 and ax.get_legend() is None


def test_decision_regions_bad_input(two_blobs):
    X, y = two_blobs
    model = LogisticRegression(alpha=0.1).fit(X, y)
    with pytest.raises(ValueError, match=r"\(n_samples, 2\)"):
        plotting.plot_decision_regions(model, np.ones((4, 3)), y[:4])
    with pytest.raises(ValueError, match="resolution"):
        plotting.plot_decision_regions(model, X, y, resolution=1)
    with pytest.raises(ValueError, match="shape"):
        plotting.plot_decision_regions(model, X, y[:-1])


def test_boundary_lines_and_normal():
    w, b = np.array([1.0, 2.0]), -2.0
    ax = plotting.plot_boundary(w, b, xlim=(-3, 3), ylim=(-3, 3))
    assert len(ax.lines) == 1 and ax.get_xlim() == (-3, 3)
    ax = plotting.plot_boundary(w.reshape(1, 2), np.array([b]), margins=True, normal=True)
    assert len(ax.lines) == 3
    assert len(ax.texts) == 2  # the arrow (an annotation) and its label
    # every drawn line satisfies w^T x + b = 0, +1 or -1 at its defining points
    levels = sorted(round(float(w @ np.asarray(line._xy1) + b), 12) for line in ax.lines)
    assert levels == [-1.0, 0.0, 1.0]
    ax = plotting.plot_boundary([0.0, 3.0], 1.0)  # horizontal line works too
    assert len(ax.lines) == 1
    with pytest.raises(ValueError, match="zero vector"):
        plotting.plot_boundary([0.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="2 entries"):
        plotting.plot_boundary([1.0, 2.0, 3.0], 1.0)


def test_svm_plot_with_stub(two_blobs):
    X, y = two_blobs
    svc = LinearSVCStub(X, y)
    n_bound = int(np.sum(svc.alpha_ == svc.C))
    assert 0 < n_bound < len(svc.support_)
    ax = plotting.plot_svm(svc, X, y, resolution=60)
    # shading, contours at -1/0/1, two class scatters, rings for the two kinds
    assert len(ax.collections) == 1 + 1 + 2 + 2
    free_ring, bound_ring = ax.collections[-2:]
    assert len(bound_ring.get_offsets()) == n_bound
    assert len(free_ring.get_offsets()) == len(svc.support_) - n_bound
    contour = ax.collections[1]
    assert list(contour.levels) == [-1.0, 0.0, 1.0]
    ax = plotting.plot_svm(svc, X, y, resolution=30, kinds=False)
    assert len(ax.collections[-1].get_offsets()) == len(svc.support_)


def test_svm_plot_with_linclf_svc(two_blobs):
    from linclf import svm
    X, y = two_blobs
    svc = svm.SVC(C=1.0, kernel="linear").fit(X, y)
    ax = plotting.plot_svm(svc, X, y, resolution=40)
    rings = ax.collections[-2:]
    assert sum(len(r.get_offsets()) for r in rings) == len(svc.support_)


def test_svm_plot_needs_two_classes(three_blobs):
    X, y = three_blobs
    model = SoftmaxRegression(alpha=0.1).fit(X, y)
    model.support_ = np.array([0])
    with pytest.raises(ValueError, match="two-class"):
        plotting.plot_svm(model, X, y, resolution=20, kinds=False)


class ProjectionStub:
    classes_ = np.array([0, 1])
    threshold_ = 0.5

    def transform(self, X):
        return np.asarray(X)[:, 0]


def test_projection_hist():
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(0, 0.3, 30), rng.normal(1, 0.3, 20)].reshape(-1, 1)
    y = np.repeat([0, 1], [30, 20])
    ax = plotting.plot_projection_hist(ProjectionStub(), X, y, bins=10)
    assert len(ax.patches) == 2 * 10  # one bar per bin per class
    assert len(ax.lines) == 1 and ax.lines[0].get_xdata()[0] == 0.5
    heights = np.array([p.get_height() for p in ax.patches])
    assert heights[:10].sum() == 30 and heights[10:].sum() == 20


def test_projection_hist_with_linclf_fisher(two_blobs):
    from linclf import fisher
    X, y = two_blobs
    lda = fisher.FisherLDA().fit(X, y)
    ax = plotting.plot_projection_hist(lda, X, y, bins=8)
    assert len(ax.patches) == 16 and ax.lines[0].get_xdata()[0] == pytest.approx(lda.threshold_)


def test_losses_figure():
    ax = plotting.plot_losses()
    assert len(ax.lines) == 7 + 1  # seven losses and the m = 0 guide
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == "zero-one" and any("hinge" in s for s in labels)
    ax = plotting.plot_losses(["hinge", "logistic"], m_range=(-1, 1))
    assert len(ax.lines) == 3 and ax.get_xlim() == (-1, 1)
    with pytest.raises(ValueError, match="unknown loss"):
        plotting.plot_losses(["huber"])
    with pytest.raises(ValueError, match="m_range"):
        plotting.plot_losses(m_range=(2, 1))


def test_trace():
    ax = plotting.plot_trace([3.0, 2.0, 1.5, 1.2], label="gd")
    assert len(ax.lines) == 1 and ax.get_legend() is not None
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), [0, 1, 2, 3])
    ax = plotting.plot_trace({"gd": [1.0, 0.5], "newton": [1.0, 0.1, 0.01]}, logy=True)
    assert len(ax.lines) == 2 and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="positive"):
        plotting.plot_trace([1.0, 0.0], logy=True)
    with pytest.raises(ValueError, match="empty"):
        plotting.plot_trace([])


def test_no_figure_is_shown(monkeypatch, two_blobs):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("plt.show() called"))
    X, y = two_blobs
    plotting.plot_losses()
    plotting.plot_decision_regions(LogisticRegression(alpha=0.1).fit(X, y), X, y, resolution=20)
