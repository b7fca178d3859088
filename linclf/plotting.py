r"""Figures used throughout the book (matplotlib only in this module).

Every function draws on the Axes ``ax`` (a new figure when ``ax`` is None),
labels what it draws and returns the Axes; none calls ``plt.show()``. Models
are used duck-typed: anything with ``predict`` (and ``decision_function``
where a score is needed) works, whatever module it comes from.

Colours are the Okabe–Ito palette, which stays distinguishable under the
common forms of colour blindness; classes also get different marker shapes so
that the figures survive grey-scale printing.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "PALETTE",
    "MARKERS",
    "plot_decision_regions",
    "plot_boundary",
    "plot_svm",
    "plot_projection_hist",
    "plot_losses",
    "plot_trace",
]

#: Okabe & Ito (2008) colour-blind-safe palette; the pale yellow comes last
#: because thin lines in it are hard to see on white.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
#: One marker shape per class.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _get_ax(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def _check_2d_data(X, y):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"X must have shape (n_samples, 2) to be drawn in the plane; got {X.shape}."
        )
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinity.")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) to match X; got {y.shape}.")
    return X, y


def _grid(X, resolution, padding):
    if not isinstance(resolution, (int, np.integer)) or resolution < 2:
        raise ValueError(f"resolution must be an integer >= 2; got {resolution!r}.")
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)  # a constant feature still gets a window
    lo, hi = lo - padding * span, hi + padding * span
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], resolution), np.linspace(lo[1], hi[1], resolution))
    return xx, yy, np.column_stack([xx.ravel(), yy.ravel()])


def _scatter_classes(ax, X, y, classes, size=36):
    for k, label in enumerate(classes):
        mask = y == label
        ax.scatter(
            X[mask, 0], X[mask, 1], s=size, c=PALETTE[k % len(PALETTE)],
            marker=MARKERS[k % len(MARKERS)], edgecolors="white", linewidths=0.6,
            label=str(label), zorder=3,
        )


def _classes_of(model, y):
    classes = getattr(model, "classes_", None)
    return np.asarray(classes) if classes is not None else np.unique(y)


def _class_index(classes, labels):
    """Position of each label in ``classes`` (which need not be sorted)."""
    sorter = np.argsort(classes)
    pos = np.clip(np.searchsorted(classes, labels, sorter=sorter), 0, len(classes) - 1)
    index = sorter[pos]
    if not np.all(classes[index] == labels):
        raise ValueError("model.predict returned labels that are not in its classes_ (or in y).")
    return index


def plot_decision_regions(model, X, y, ax=None, resolution=200, *, padding=0.1,
                          fill_alpha=0.25, boundary=True, legend=True):
    """Shade the region each class is predicted in, and plot the data on top.

    Parameters
    ----------
    model : fitted classifier with ``predict`` (and ideally ``classes_``)
    X : array_like of shape (n_samples, 2)
    y : array_like of shape (n_samples,)
    ax : matplotlib Axes or None
    resolution : int, default=200
        Grid points per axis.
    padding : float, default=0.1
        Margin around the data, as a fraction of its range.
    fill_alpha : float, default=0.25
        Opacity of the shaded regions.
    boundary : bool, default=True
        Also draw the region borders as thin black lines.
    legend : bool, default=True

    Returns
    -------
    matplotlib Axes
        ``ax.collections`` holds the filled regions (one ``ContourSet``),
        the borders (one more, if ``boundary``) and one scatter per class.
    """
    from matplotlib.colors import ListedColormap

    X, y = _check_2d_data(X, y)
    ax = _get_ax(ax)
    classes = _classes_of(model, y)
    xx, yy, grid = _grid(X, resolution, padding)
    index = _class_index(classes, np.asarray(model.predict(grid))).reshape(xx.shape)
    k = len(classes)
    levels = np.arange(k + 1) - 0.5
    cmap = ListedColormap([PALETTE[i % len(PALETTE)] for i in range(k)])
    ax.contourf(xx, yy, index, levels=levels, cmap=cmap, alpha=fill_alpha)
    if boundary and np.unique(index).size > 1:
        ax.contour(xx, yy, index, levels=levels[1:-1], colors="k", linewidths=0.8)
    _scatter_classes(ax, X, y, classes)
    ax.set_xlabel(r"$x_1$")
    ax.set_ylabel(r"$x_2$")
    if legend:
        ax.legend(title="class", loc="best", framealpha=0.8)
    return ax


def plot_boundary(w, b, ax=None, *, margins=False, normal=False, color="k", label=None,
                  xlim=None, ylim=None):
    r"""Draw the line :math:`\mathbf{w}^\top\mathbf{x} + b = 0` in the plane.

    Parameters
    ----------
    w : array_like of shape (2,) or (1, 2)
    b : float or array of one element
    ax : matplotlib Axes or None
    margins : bool, default=False
        Also draw the dashed lines :math:`\mathbf{w}^\top\mathbf{x} + b = \pm 1`,
        at distance :math:`1/\lVert\mathbf{w}\rVert` on either side.
    normal : bool, default=False
        Draw the normal vector as an arrow from the point of the boundary closest
        to the origin, :math:`-b\,\mathbf{w}/\lVert\mathbf{w}\rVert^2`, to the
        +1 margin line (length :math:`1/\lVert\mathbf{w}\rVert`); it points
        towards the positive side.
    color : colour, default="k"
    label : str or None
        Legend label of the boundary line.
    xlim, ylim : (float, float) or None
        Axis limits to set (the lines are infinite, so they do not set limits).

    Returns
    -------
    matplotlib Axes
        ``ax.lines`` holds 1 line, or 3 with ``margins``; the arrow is in ``ax.texts``.
    """
    w = np.asarray(w, dtype=float).ravel()
    b = float(np.asarray(b, dtype=float).ravel()[0]) if np.ndim(b) else float(b)
    if w.shape != (2,):
        raise ValueError(f"w must have 2 entries to draw a line in the plane; got shape {w.shape}.")
    if not np.all(np.isfinite(w)) or not np.isfinite(b):
        raise ValueError("w and b must be finite.")
    norm2 = float(w @ w)
    if norm2 == 0.0:
        raise ValueError("w is the zero vector: w^T x + b = 0 is not a line.")
    ax = _get_ax(ax)
    direction = np.array([-w[1], w[0]])  # orthogonal to w: along the line
    point = -b * w / norm2
    ax.axline(point, point + direction, color=color, lw=1.8, label=label)
    if margins:
        for level in (1.0, -1.0):
            p = (level - b) * w / norm2
            ax.axline(p, p + direction, color=color, lw=1.0, ls="--")
    if normal:
        tip = point + w / norm2
        ax.annotate("", xy=tip, xytext=point,
                    arrowprops=dict(arrowstyle="->", color=color, lw=1.5))
        ax.text(*(point + 0.5 * w / norm2), r"  $\mathbf{w}$", color=color)
    if xlim is not None:
        ax.set_xlim(xlim)
    if ylim is not None:
        ax.set_ylim(ylim)
    ax.set_xlabel(r"$x_1$")
    ax.set_ylabel(r"$x_2$")
    return ax


def _support_vector_kinds(svc, n_samples):
    """Indices of margin (0 < alpha < C) and bound (alpha = C) support vectors."""
    support = np.asarray(svc.support_, dtype=int)
    alpha = np.asarray(svc.alpha_, dtype=float).ravel()
    if alpha.shape[0] == n_samples:
        alpha = alpha[support]
    elif alpha.shape[0] != support.shape[0]:
        raise ValueError(
            f"svc.alpha_ has {alpha.shape[0]} entries; expected one per sample "
            f"({n_samples}) or one per support vector ({support.shape[0]})."
        )
    C = float(getattr(svc, "C", np.inf))
    # alpha = C up to the solver's tolerance counts as "at the bound".
    at_bound = np.isfinite(C) & (alpha >= C * (1.0 - 1e-6))
    return support[~at_bound], support[at_bound]


def plot_svm(svc, X, y, ax=None, *, resolution=200, padding=0.1, kinds=True, legend=True):
    r"""Decision function of a two-class SVM: boundary, margins and support vectors.

    Draws the contours :math:`f(\mathbf{x}) = -1, 0, +1` (dashed, solid, dashed),
    the two half-planes lightly shaded, the data, and rings around the support
    vectors.

    Parameters
    ----------
    svc : fitted two-class model with ``decision_function`` and ``support_``
        (``alpha_`` and ``C`` too if ``kinds``).
    X : array_like of shape (n_samples, 2)
        The training data (``support_`` indexes its rows).
    y : array_like of shape (n_samples,)
    ax : matplotlib Axes or None
    resolution : int, default=200
    padding : float, default=0.1
    kinds : bool, default=True
        Ring margin support vectors (:math:`0 < \alpha_i < C`, on the margin)
        and bound ones (:math:`\alpha_i = C`: inside the margin or misclassified)
        differently. Needs ``svc.alpha_``; otherwise all are ringed alike.
    legend : bool, default=True

    Returns
    -------
    matplotlib Axes
        ``ax.collections``: shading, contour lines, one scatter per class, then one
        ring scatter (or two with ``kinds``).
    """
    from matplotlib.colors import ListedColormap

    X, y = _check_2d_data(X, y)
    ax = _get_ax(ax)
    classes = _classes_of(svc, y)
    xx, yy, grid = _grid(X, resolution, padding)
    f = np.asarray(svc.decision_function(grid), dtype=float)
    if f.ndim != 1:
        raise ValueError("plot_svm needs a two-class model (decision_function of shape (n,)).")
    F = f.reshape(xx.shape)
    cmap = ListedColormap([PALETTE[0], PALETTE[1]])
    ax.contourf(xx, yy, (F > 0).astype(float), levels=[-0.5, 0.5, 1.5], cmap=cmap, alpha=0.12)
    ax.contour(xx, yy, F, levels=[-1.0, 0.0, 1.0], colors="k",
               linestyles=["--", "-", "--"], linewidths=[1.0, 1.8, 1.0])
    _scatter_classes(ax, X, y, classes)
    support = np.asarray(svc.support_, dtype=int)
    ring = dict(s=180, facecolors="none", linewidths=1.5, zorder=4)
    if kinds and hasattr(svc, "alpha_"):
        free, bound = _support_vector_kinds(svc, X.shape[0])
        ax.scatter(X[free, 0], X[free, 1], edgecolors="k",
                   label=r"support vector, $0<\alpha_i<C$", **ring)
        ax.scatter(X[bound, 0], X[bound, 1], edgecolors=PALETTE[4], linestyle="--",
                   label=r"support vector, $\alpha_i=C$", **ring)
    else:
        ax.scatter(X[support, 0], X[support, 1], edgecolors="k", label="support vector", **ring)
    ax.set_xlabel(r"$x_1$")
    ax.set_ylabel(r"$x_2$")
    if legend:
        ax.legend(loc="best", framealpha=0.8, fontsize="small")
    return ax


def plot_projection_hist(fisher, X, y, ax=None, *, bins=20, legend=True):
    r"""Histograms of the 1-D projections :math:`\mathbf{w}^\top\mathbf{x}` per class.

    Parameters
    ----------
    fisher : fitted model with ``transform`` (1-D projection) and ``threshold_``
        (for example :class:`linclf.fisher.FisherLDA`); without ``threshold_``
        no threshold line is drawn.
    X : array_like of shape (n_samples, n_features)
    y : array_like of shape (n_samples,)
    ax : matplotlib Axes or None
    bins : int, default=20
        Number of bins, shared by the classes (common edges).
    legend : bool, default=True

    Returns
    -------
    matplotlib Axes
        One histogram per class (bars in ``ax.patches``) and the threshold as a
        vertical line in ``ax.lines``.
    """
    z = np.asarray(fisher.transform(X), dtype=float)
    if z.ndim == 2 and z.shape[1] == 1:
        z = z.ravel()
    if z.ndim != 1:
        raise ValueError(f"transform(X) must return a 1-D projection; got shape {z.shape}.")
    y = np.asarray(y)
    if y.shape != z.shape:
        raise ValueError(f"y must have shape {z.shape} to match X; got {y.shape}.")
    ax = _get_ax(ax)
    classes = _classes_of(fisher, y)
    edges = np.histogram_bin_edges(z, bins=bins)
    for k, label in enumerate(classes):
        ax.hist(z[y == label], bins=edges, color=PALETTE[k % len(PALETTE)], alpha=0.55,
                label=f"class {label}", edgecolor="white", hatch=("", "//", "..", "xx")[k % 4])
    threshold = getattr(fisher, "threshold_", None)
    if threshold is not None:
        ax.axvline(float(threshold), color="k", ls="--", lw=1.5,
                   label=f"threshold $t = {float(threshold):.3g}$")
    ax.set_xlabel(r"projection $\mathbf{w}^\top\mathbf{x}$")
    ax.set_ylabel("count")
    if legend:
        ax.legend(loc="best", framealpha=0.8)
    return ax


_DEFAULT_LOSSES = ("zero_one", "perceptron", "hinge", "squared_hinge",
                   "logistic_base2", "squared", "exponential")
_LOSS_LABELS = {
    "zero_one": "zero-one",
    "perceptron": r"perceptron $\max(0,-m)$",
    "hinge": r"hinge $\max(0,1-m)$",
    "squared_hinge": r"squared hinge $\max(0,1-m)^2$",
    "logistic": r"logistic $\ln(1+e^{-m})$",
    "logistic_base2": r"logistic $\log_2(1+e^{-m})$",
    "squared": r"squared $(1-m)^2$",
    "exponential": r"exponential $e^{-m}$",
}
_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1)), (0, (1, 1)), "-")


def plot_losses(names=None, ax=None, m_range=(-2, 3), *, num=501, ylim=(0, 4)):
    r"""The classic figure: classification losses against the margin :math:`m = y f(\mathbf{x})`.

    Parameters
    ----------
    names : sequence of str or None
        Keys of :data:`linclf.losses.LOSSES`; default: all but the natural-log
        logistic loss (the base-2 one is drawn, which passes through (0, 1)).
    ax : matplotlib Axes or None
    m_range : (float, float), default=(-2, 3)
    num : int, default=501
        Points per curve.
    ylim : (float, float) or None, default=(0, 4)

    Returns
    -------
    matplotlib Axes
        One line per loss in ``ax.lines``, in the order of ``names``.
    """
    from .losses import LOSSES

    names = list(_DEFAULT_LOSSES if names is None else names)
    unknown = [n for n in names if n not in LOSSES]
    if unknown:
        raise ValueError(f"unknown loss name(s) {unknown}; choose from {sorted(LOSSES)}.")
    lo, hi = m_range
    if not lo < hi:
        raise ValueError(f"m_range must be (low, high) with low < high; got {m_range!r}.")
    ax = _get_ax(ax)
    m = np.linspace(lo, hi, num)
    for i, name in enumerate(names):
        loss = LOSSES[name][0]
        style = dict(color=PALETTE[i % len(PALETTE)], ls=_LINESTYLES[i % len(_LINESTYLES)], lw=2)
        if name == "zero_one":
            # Drawn as a step so the jump at m = 0 is vertical, not a slanted segment.
            ax.step(m, loss(m), where="post", label=_LOSS_LABELS[name], **style)
        else:
            ax.plot(m, loss(m), label=_LOSS_LABELS.get(name, name), **style)
    ax.axvline(0.0, color="0.6", lw=0.8, zorder=0)
    ax.set_xlim(lo, hi)
    if ylim is not None:
        ax.set_ylim(ylim)
    ax.set_xlabel(r"margin $m = y\,f(\mathbf{x})$")
    ax.set_ylabel(r"loss $\ell(m)$")
    ax.legend(loc="upper right", framealpha=0.9, fontsize="small")
    return ax


def plot_trace(values, ax=None, *, label=None, logy=False, xlabel="iteration",
               ylabel="loss", legend=None):
    """Training curves: one or several sequences against the iteration number.

    Parameters
    ----------
    values : sequence of numbers, or dict mapping a label to a sequence
    ax : matplotlib Axes or None
    label : str or None
        Legend label for a single sequence.
    logy : bool, default=False
        Logarithmic y axis (all values must then be > 0; to show convergence
        to a minimum, pass ``loss - loss_min`` without the exact zero).
    xlabel, ylabel : str
    legend : bool or None
        Draw a legend; by default when there are labels.

    Returns
    -------
    matplotlib Axes
        One line per sequence in ``ax.lines``.
    """
    curves = dict(values) if isinstance(values, dict) else {label: values}
    if not curves:
        raise ValueError("values is empty: nothing to plot.")
    ax = _get_ax(ax)
    for i, (name, seq) in enumerate(curves.items()):
        v = np.asarray(seq, dtype=float).ravel()
        if v.size == 0:
            raise ValueError(f"the sequence {name!r} is empty.")
        if np.any(np.isnan(v)):
            raise ValueError(f"the sequence {name!r} contains NaN.")
        if logy and np.any(v <= 0):
            raise ValueError(
                f"logy=True needs positive values, but {name!r} has min {v.min():.3g}."
            )
        ax.plot(np.arange(v.size), v, color=PALETTE[i % len(PALETTE)],
                ls=_LINESTYLES[i % len(_LINESTYLES)], lw=1.8,
                label=None if name is None else str(name))
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if legend or (legend is None and any(name is not None for name in curves)):
        ax.legend(loc="best")
    return ax
