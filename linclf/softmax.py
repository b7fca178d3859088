r"""Softmax (multinomial logistic) regression for c >= 2 classes.

Scores :math:`f_k = \mathbf{w}_k^\top\mathbf{x} + b_k` for the :math:`c`
classes are turned into probabilities by the softmax,
:math:`p_k = e^{f_k}/\sum_j e^{f_j}`. With one-hot targets
:math:`\mathbf{t}_n` the training objective is

.. math::

    L(W, b_1, \dots, b_c) = -\frac1N \sum_{n=1}^N \mathbf{t}_n^\top \log\mathbf{p}_n
        + \frac{\lambda}{2}\lVert W\rVert_F^2,

whose gradient with respect to the weight matrix is
:math:`-\frac1N\sum_n \mathbf{x}_n(\mathbf{t}_n - \mathbf{p}_n)^\top + \lambda W^\top`
(of shape :math:`d \times c`; ``coef_`` stores its transpose, one row per class).
The strength :math:`\lambda` is the parameter ``alpha`` (scikit-learn's name).
The Jacobian of the softmax, :math:`\partial\mathbf{p}/\partial\mathbf{f} =
\mathrm{diag}(\mathbf{p}) - \mathbf{p}\mathbf{p}^\top`, gives the Hessian.

**Over-parametrisation.** Adding the same vector to every
:math:`(\mathbf{w}_k, b_k)` leaves every probability unchanged, so the loss is
flat along those directions (for the intercepts always, for :math:`W` when
:math:`\alpha = 0`) and the Hessian is singular. Gradient descent and L-BFGS
started from zero never move along them (the gradient rows sum to zero), so the
returned parameters are the representative whose rows sum to zero. The Newton
solver removes the flat directions by adding the orthogonal projector onto them
to the Hessian: the gradient is orthogonal to them, so the step solves the
original Newton equation and also stays on the sum-to-zero representative.
Fixing the last class at zero would work as well for :math:`\alpha = 0`, but
with :math:`\alpha > 0` it changes the penalty, so it is not used.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._params import Options, validate_params
from ._validation import (
    ConvergenceWarning,
    check_is_fitted,
    check_known_labels,
    check_n_features,
    check_X_y,
    encode_labels,
)
from .base import BaseEstimator, LinearClassifierMixin, binary_decision
from .logistic import GLM_PARAMETERS
from .optim import (
    LBFGSMemory,
    backtracking_line_search,
    design_matrix,
    newton_direction,
    safeguarded_gradient_step,
    warn_step_diverged,
    warn_stopped_above_tol,
)
from .special import log_softmax, softmax

__all__ = ["SoftmaxRegression", "softmax_loss_and_grad", "softmax_jacobian", "softmax_hessian"]

_SEPARABLE_LOSS = 1e-6
_LBFGS_HISTORY = 10


def softmax_loss_and_grad(W, b, X, T, alpha=0.0):
    r"""Regularised mean cross-entropy of softmax regression and its gradient.

    .. math::

        L = -\frac1N\sum_n \mathbf{t}_n^\top\log\operatorname{softmax}(W\mathbf{x}_n + (b_k)_k)
            + \frac{\lambda}{2}\lVert W\rVert_F^2,
        \qquad
        \frac{\partial L}{\partial W} = \frac1N (P - T)^\top X + \lambda W,
        \qquad
        \frac{\partial L}{\partial b_k} = \frac1N \big((P - T)^\top \mathbf{1}\big)_k,

    with :math:`P` the predicted probabilities and :math:`T` the one-hot targets (rows per sample).

    Parameters
    ----------
    W : ndarray of shape (c, d)
        One row of weights per class.
    b : ndarray of shape (c,)
    X : ndarray of shape (N, d)
    T : ndarray of shape (N, c)
        One-hot targets (rows of probabilities summing to 1 also work).
    alpha : float, default=0.0
        L2 strength on ``W`` (the intercepts are not penalised).

    Returns
    -------
    loss : float
    grad_W : ndarray of shape (c, d)
    grad_b : ndarray of shape (c,)
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    b = np.asarray(b, dtype=float).ravel()
    X = np.asarray(X, dtype=float)
    T = np.asarray(T, dtype=float)
    Z = X @ W.T + b
    N = X.shape[0]
    # log_softmax is stable; the cross-entropy only needs log-probabilities.
    loss = -np.sum(T * log_softmax(Z, axis=1)) / N + 0.5 * alpha * float(np.sum(W * W))
    G = (softmax(Z, axis=1) - T) / N
    return float(loss), G.T @ X + alpha * W, G.sum(axis=0)


def softmax_jacobian(yhat):
    r"""Jacobian of the softmax, :math:`\mathrm{diag}(\mathbf{p}) - \mathbf{p}\mathbf{p}^\top`.

    Entry :math:`(k, l)` is :math:`\partial p_k/\partial f_l = p_k(\delta_{kl} - p_l)`.

    Parameters
    ----------
    yhat : array_like of shape (c,) or (n, c)
        Softmax outputs (one probability vector per row).

    Returns
    -------
    ndarray of shape (c, c) or (n, c, c)
        Symmetric, positive semi-definite, with rows summing to 0.
    """
    yhat = np.asarray(yhat, dtype=float)
    if yhat.ndim not in (1, 2):
        raise ValueError(f"yhat must have shape (c,) or (n, c); got {yhat.shape}.")
    outer = yhat[..., :, None] * yhat[..., None, :]
    diag = yhat[..., :, None] * np.eye(yhat.shape[-1])
    return diag - outer


def softmax_hessian(W, b, X, alpha=0.0, fit_intercept=True):
    r"""Hessian of :func:`softmax_loss_and_grad` in the flattened parameters.

    The parameters are ordered class by class, :math:`(\mathbf{w}_1, b_1,
    \mathbf{w}_2, b_2, \dots)` (without the :math:`b_k` if ``fit_intercept`` is
    False). The block for classes :math:`(k, l)` is

    .. math::

        H_{kl} = \frac1N\sum_n \big(\mathrm{diag}(\mathbf{p}_n)
            - \mathbf{p}_n\mathbf{p}_n^\top\big)_{kl}\,
            \tilde{\mathbf{x}}_n\tilde{\mathbf{x}}_n^\top + \lambda\,\delta_{kl}\,\mathrm{diag}(1,\dots,1,0).

    Parameters
    ----------
    W : ndarray of shape (c, d)
    b : ndarray of shape (c,)
    X : ndarray of shape (N, d)
    alpha : float, default=0.0
    fit_intercept : bool, default=True

    Returns
    -------
    ndarray of shape (c * (d + 1), c * (d + 1)), or (c * d, c * d)
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    X = np.asarray(X, dtype=float)
    c, d = W.shape
    J = softmax_jacobian(softmax(X @ W.T + np.asarray(b, dtype=float).ravel(), axis=1))
    Xa = design_matrix(X, fit_intercept)
    p = Xa.shape[1]
    H = np.einsum("nkl,ni,nj->kilj", J, Xa, Xa, optimize=True) / X.shape[0]
    H = H.reshape(c * p, c * p)
    penalised = np.zeros(p)
    penalised[:d] = alpha
    H += np.diag(np.tile(penalised, c))
    return H


def _flat_directions_projector(c, p, d, alpha, fit_intercept):
    """Orthogonal projector onto the parameter directions that do not change the loss."""
    flat = np.zeros(p)
    if fit_intercept:
        flat[d] = 1.0  # shifting every b_k by the same amount
    if alpha == 0:
        flat[:d] = 1.0  # shifting every w_k by the same vector
    return np.kron(np.full((c, c), 1.0 / c), np.diag(flat))


#: Newton forms the c(d+1) square Hessian only up to this many parameters (a 32 MB
#: matrix); beyond, it solves the Newton system by conjugate gradients on
#: Hessian-vector products, in O(N c (d + 1)) memory.
_DENSE_HESSIAN_MAX = 2000


def _newton_cg_direction(W, b, X, alpha, fit_intercept, grad, flat, max_cg):
    """Truncated Newton direction: CG on ``(H + P) p = -g`` with products ``Hv`` never forming H.

    ``P`` is the projector onto the flat directions (:func:`_flat_directions_projector`),
    applied as a class-mean on the flat columns. CG stops at a residual of
    ``min(0.5, sqrt(|g|)) |g|`` (the forcing term of inexact Newton, superlinear near the
    optimum) or after ``max_cg`` products; it returns a descent direction (``-g`` at worst).
    """
    c = W.shape[0]
    Xa = design_matrix(X, fit_intercept)
    P = softmax(X @ W.T + b, axis=1)
    n, pdim = Xa.shape
    penalised = np.zeros(pdim)
    penalised[: X.shape[1]] = alpha

    def hess_vec(v):
        V = v.reshape(c, pdim)
        U = Xa @ V.T  # (n, c): the change of the scores
        JU = P * U - P * np.sum(P * U, axis=1, keepdims=True)
        out = JU.T @ Xa / n + V * penalised
        out += V.mean(axis=0, keepdims=True) * flat
        return out.ravel()

    g = grad
    x = np.zeros_like(g)
    r = -g.copy()
    d_ = r.copy()
    rr = float(r @ r)
    g_norm = np.sqrt(rr)
    stop = min(0.5, np.sqrt(g_norm)) * g_norm
    for _ in range(max_cg):
        if np.sqrt(rr) <= stop:
            break
        Hd = hess_vec(d_)
        curv = float(d_ @ Hd)
        if curv <= 0.0:
            break
        step = rr / curv
        x += step * d_
        r -= step * Hd
        rr_new = float(r @ r)
        d_ = r + (rr_new / rr) * d_
        rr = rr_new
    if not np.any(x) or float(g @ x) >= 0.0:
        return -g
    return x


class SoftmaxRegression(BaseEstimator, LinearClassifierMixin):
    r"""Multinomial logistic (softmax) regression with an optional L2 penalty.

    Minimises the mean cross-entropy with one-hot targets plus
    :math:`\frac{\alpha}{2}\lVert W\rVert_F^2` (intercepts not penalised); the
    same objective as scikit-learn's multinomial ``LogisticRegression(C=1/(alpha * N))``.

    Parameters
    ----------
    solver : {"lbfgs", "newton", "gd"}, default="lbfgs"
        ``"gd"``: gradient descent with the fixed step ``eta``. ``"lbfgs"``:
        limited-memory BFGS (the last 10 steps) with Armijo backtracking.
        ``"newton"``: Newton's method with the full :math:`c(d+1)` square
        Hessian (up to 2000 parameters; beyond, the Newton system is solved by
        conjugate gradients on Hessian-vector products, so memory stays
        :math:`O(Nc(d+1))`) and backtracking; see the module docstring for how
        the flat directions are handled. ``"gd"`` halves ``eta`` (and warns) if
        a step would raise the loss.
    alpha : float >= 0, default=0.0
        L2 regularisation strength.
    fit_intercept : bool, default=True
    eta : float > 0, default=0.1
        Step size of ``"gd"``.
    max_iter : int > 0, default=500
        (L-BFGS needs a few hundred iterations on badly scaled features such as
        raw iris; Newton needs about 10, gradient descent thousands)
    tol : float >= 0, default=1e-8
        Stop when the Euclidean norm of the gradient is at most ``tol`` times its norm
        at the start (:math:`W = 0`): a test relative to the scale of the problem.

    Attributes
    ----------
    classes_ : ndarray of shape (c,)
    coef_ : ndarray of shape (c, n_features)
    intercept_ : ndarray of shape (c,)
    n_features_in_ : int
    n_iter_ : int
    loss_curve_ : list of float
        Loss at the start and after each iteration (length ``n_iter_ + 1``).
    converged_ : bool
    separable_ : bool
        True when ``alpha == 0`` and the fitted model classifies every training
        sample correctly, so that no maximum-likelihood estimate exists.

    Warns
    -----
    ConvergenceWarning
        On separable data with ``alpha == 0``, or when ``max_iter`` is reached.

    Notes
    -----
    Only complete separation (every sample strictly on the right side of every
    pairwise boundary) is detected. When just some classes are separable from
    the rest, as setosa is in the iris data, the maximum-likelihood weights do
    not exist either, but the loss stays positive and the solvers may stop at
    large, finite weights (different ones for different solvers) without a
    warning, once the gradient is below ``tol`` relative to its initial value
    (they still warn if ``max_iter`` is reached first): use ``alpha > 0`` for a
    well-defined answer.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> clf = SoftmaxRegression(alpha=0.1).fit(X, ["a", "b", "c", "b"])
    >>> clf.predict_proba(X).shape
    (4, 3)
    >>> bool(np.allclose(clf.predict_proba(X).sum(axis=1), 1.0))
    True
    """

    _parameter_constraints = {"solver": [Options("lbfgs", "newton", "gd")], **GLM_PARAMETERS}

    def __init__(self, *, solver="lbfgs", alpha=0.0, fit_intercept=True, eta=0.1,
                 max_iter=500, tol=1e-8):
        self.solver = solver
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.eta = eta
        self.max_iter = max_iter
        self.tol = tol

    def _unpack(self, theta, c, d):
        Theta = theta.reshape(c, -1)
        if self.fit_intercept:
            return Theta[:, :d], Theta[:, d]
        return Theta, np.zeros(c)

    def _loss_grad(self, theta, X, T):
        c, d = T.shape[1], X.shape[1]
        W, b = self._unpack(theta, c, d)
        loss, gW, gb = softmax_loss_and_grad(W, b, X, T, self.alpha)
        grad = np.column_stack([gW, gb]) if self.fit_intercept else gW
        return loss, grad.ravel()

    def _separates(self, theta, X, y_index, c):
        W, b = self._unpack(theta, c, X.shape[1])
        Z = X @ W.T + b
        true = Z[np.arange(X.shape[0]), y_index]
        Z[np.arange(X.shape[0]), y_index] = -np.inf
        return bool(np.all(true > Z.max(axis=1)))

    def fit(self, X, y):
        """Fit the model by minimising the regularised cross-entropy.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            At least two distinct labels.

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_index = encode_labels(y, estimator=type(self).__name__)
        c, d = self.classes_.shape[0], X.shape[1]
        self.n_features_in_ = d
        T = np.eye(c)[y_index]

        theta = np.zeros(c * (d + int(self.fit_intercept)))
        fun = lambda th: self._loss_grad(th, X, T)[0]  # noqa: E731
        loss, grad = self._loss_grad(theta, X, T)
        losses = [loss]
        memory = LBFGSMemory(_LBFGS_HISTORY)
        projector = None
        n_par = c * (d + int(self.fit_intercept))
        dense = n_par <= _DENSE_HESSIAN_MAX
        if self.solver == "newton" and dense:
            projector = _flat_directions_projector(
                c, d + int(self.fit_intercept), d, self.alpha, self.fit_intercept
            )
        flat = np.zeros(d + int(self.fit_intercept))
        if self.fit_intercept:
            flat[d] = 1.0
        if self.alpha == 0:
            flat[:d] = 1.0
        converged = stalled = False
        n_iter = 0
        eta = float(self.eta)
        # relative to the gradient at W = 0: the same test whatever the features' scale
        grad_tol = self.tol * float(np.linalg.norm(grad))
        while True:
            if np.linalg.norm(grad) <= grad_tol:
                converged = True
                break
            if (self.alpha == 0 and loss < _SEPARABLE_LOSS
                    and self._separates(theta, X, y_index, c)):
                break
            if n_iter >= self.max_iter:
                break
            if self.solver == "gd":
                new_theta, _, eta = safeguarded_gradient_step(fun, theta, loss, grad, eta)
                if eta == 0.0:
                    stalled = True
                    break
            else:
                if self.solver == "newton" and dense:
                    W, b = self._unpack(theta, c, d)
                    H = softmax_hessian(W, b, X, self.alpha, self.fit_intercept) + projector
                    p = newton_direction(H, grad)
                elif self.solver == "newton":
                    W, b = self._unpack(theta, c, d)
                    p = _newton_cg_direction(W, b, X, self.alpha, self.fit_intercept, grad,
                                             flat, max_cg=min(n_par, 200))
                else:
                    p = memory.direction(grad)
                step, new_theta, _ = backtracking_line_search(fun, theta, loss, grad, p)
                if step == 0.0 and self.solver == "lbfgs" and memory.s:
                    # A stale curvature memory can give a poor direction: restart.
                    memory = LBFGSMemory(_LBFGS_HISTORY)
                    p = memory.direction(grad)
                    step, new_theta, _ = backtracking_line_search(fun, theta, loss, grad, p)
                if step == 0.0:
                    stalled = True
                    break
            new_loss, new_grad = self._loss_grad(new_theta, X, T)
            memory.update(new_theta - theta, new_grad - grad)
            theta, loss, grad = new_theta, new_loss, new_grad
            n_iter += 1
            losses.append(loss)

        W, b = self._unpack(theta, c, d)
        self.coef_ = W.copy()
        self.intercept_ = b.copy()
        self.n_iter_ = n_iter
        self.loss_curve_ = losses
        self.converged_ = converged
        self.separable_ = bool(self.alpha == 0 and self._separates(theta, X, y_index, c))
        diverged = self.solver == "gd" and 0.0 < eta < self.eta
        if diverged:
            warn_step_diverged(self, eta, converged or self.separable_)
        if self.separable_:
            warnings.warn(
                "SoftmaxRegression: the training data look linearly separable "
                f"(the model after {n_iter} iterations classifies every sample "
                "correctly), so with alpha=0 the maximum-likelihood weights do not "
                "exist: the loss tends to 0 as ||W|| grows without bound. Fitting "
                "stopped at finite weights whose probabilities are not meaningful; "
                "use alpha > 0 for a unique solution.",
                ConvergenceWarning,
                stacklevel=2,
            )
        elif not converged and not diverged:
            hint = ""
            if self.alpha == 0:
                hint = (
                    "if some classes are separable from the others the "
                    "maximum-likelihood weights do not exist: consider alpha > 0"
                )
            warn_stopped_above_tol(self, float(np.linalg.norm(grad)) / max(grad_tol / self.tol, 1e-300)
                                   if self.tol > 0 else float(np.linalg.norm(grad)), stalled, hint)
        return self

    def decision_function(self, X):
        """Class scores :math:`f_k(\\mathbf{x})`, shape (n_samples, c).

        For two classes the binary convention of every linclf classifier is
        used instead: the single column :math:`f_1(\\mathbf{x}) - f_0(\\mathbf{x})`
        (the log-odds of ``classes_[1]``), shape (n_samples,).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, c)
        """
        return binary_decision(self._class_scores(X))

    def _class_scores(self, X):
        # the mixin's scores: one column per class, since coef_ has a row per class
        return LinearClassifierMixin.decision_function(self, X)

    def predict_proba(self, X):
        """Softmax probabilities, columns ordered as ``classes_``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, c), rows sum to 1
        """
        return softmax(self._class_scores(X), axis=1)

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`, via the stable log-softmax.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, c)
        """
        return log_softmax(self._class_scores(X), axis=1)

    def loss(self, X, y):
        """Regularised mean cross-entropy of the fitted model on ``(X, y)``.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Labels from ``classes_``.

        Returns
        -------
        float
        """
        check_is_fitted(self, "coef_")
        X = check_n_features(self, X)
        y = check_known_labels(y, self.classes_, X.shape[0])
        T = (y[:, None] == self.classes_[None, :]).astype(float)
        return softmax_loss_and_grad(self.coef_, self.intercept_, X, T, self.alpha)[0]

