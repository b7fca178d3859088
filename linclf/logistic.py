r"""Binary logistic regression by gradient descent or Newton's method (IRLS).

The model is :math:`P(y=+1 \mid \mathbf{x}) = \sigma(\mathbf{w}^\top\mathbf{x} + b)`
and the training objective is the mean cross-entropy plus an L2 penalty on
:math:`\mathbf{w}` (not on the intercept :math:`b`):

.. math::

    L(\mathbf{w}, b) = \frac1N \sum_{n=1}^N \Big[-t_n \log p_n
        - (1 - t_n)\log(1-p_n)\Big] + \frac{\lambda}{2}\lVert\mathbf{w}\rVert^2,
    \qquad p_n = \sigma(\mathbf{w}^\top\mathbf{x}_n + b),\ t_n \in \{0, 1\}.

With the labels :math:`y_n = 2t_n - 1 \in \{-1, +1\}` the bracket equals
:math:`\log(1 + e^{-y_n f(\mathbf{x}_n)})`, the logistic loss of the margin.
The strength :math:`\lambda` is the parameter ``alpha`` (scikit-learn's name).

Gradient and Hessian (with the augmented :math:`\tilde{\mathbf{x}} = (\mathbf{x}, 1)`):

.. math::

    \nabla L = \frac1N \tilde X^\top(\mathbf{p} - \mathbf{t}) + \lambda(\mathbf{w}, 0),
    \qquad
    H = \frac1N \tilde X^\top S\, \tilde X + \lambda\,\mathrm{diag}(1, \dots, 1, 0),
    \quad S = \mathrm{diag}\big(p_n(1-p_n)\big).

When :math:`\lambda = 0` and a hyperplane separates the two classes, the loss
can be driven to 0 by scaling that hyperplane up: the maximum-likelihood
estimate does not exist and the weights grow without bound. :class:`LogisticRegression`
detects this exactly (the current iterate classifies every training point
correctly, so scaling it up lowers the loss towards 0), stops, and warns.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np

from ._params import Interval, Options, validate_params
from ._validation import (
    ConvergenceWarning,
    check_is_fitted,
    check_known_labels,
    check_n_features,
    check_X_y,
    encode_binary,
)
from .base import BaseEstimator, LinearClassifierMixin
from .optim import (
    backtracking_line_search,
    design_matrix,
    newton_direction,
    safeguarded_gradient_step,
    warn_step_diverged,
    warn_stopped_above_tol,
)
from .special import log_sigmoid, sigmoid

__all__ = ["LogisticRegression", "logistic_loss_and_grad", "logistic_hessian", "wald_table"]

# Stop following a separable problem once the mean loss is this small: the
# iterate already separates the data and every further step only rescales it.
_SEPARABLE_LOSS = 1e-6


def logistic_loss_and_grad(w, b, X, t, alpha=0.0):
    r"""Regularised mean cross-entropy of logistic regression and its gradient.

    In the book's notation (targets :math:`t_n \in \{0, 1\}`, labels
    :math:`y_n = 2t_n - 1 \in \{-1, +1\}`, probabilities :math:`p_n = \sigma(f_n)`,
    regularisation :math:`\lambda` = ``alpha``):

    .. math::

        L = \frac1N\sum_n \log\big(1 + e^{-y_n f_n}\big) + \frac{\lambda}{2}\lVert\mathbf{w}\rVert^2,
        \quad f_n = \mathbf{w}^\top\mathbf{x}_n + b,

        \frac{\partial L}{\partial\mathbf{w}} = \frac1N X^\top(\mathbf p - \mathbf t) + \lambda\mathbf{w},
        \qquad \frac{\partial L}{\partial b} = \frac1N\sum_n(p_n - t_n).

    Parameters
    ----------
    w : ndarray of shape (d,)
    b : float
    X : ndarray of shape (N, d)
    t : ndarray of shape (N,)
        Targets in {0, 1}.
    alpha : float, default=0.0
        L2 strength :math:`\lambda` (the intercept is not penalised).

    Returns
    -------
    loss : float
    grad_w : ndarray of shape (d,)
    grad_b : float
    """
    w = np.asarray(w, dtype=float).ravel()
    X = np.asarray(X, dtype=float)
    t = np.asarray(t, dtype=float).ravel()
    f = X @ w + b
    y = 2.0 * t - 1.0
    # -log sigma(y f) is log(1 + e^{-y f}) computed without overflow.
    loss = -np.mean(log_sigmoid(y * f)) + 0.5 * alpha * float(w @ w)
    residual = sigmoid(f) - t  # p - t
    N = X.shape[0]
    grad_w = X.T @ residual / N + alpha * w
    grad_b = float(np.mean(residual))
    return float(loss), grad_w, grad_b


def logistic_hessian(w, b, X, alpha=0.0, fit_intercept=True):
    r"""Hessian of :func:`logistic_loss_and_grad` with respect to :math:`(\mathbf{w}, b)`.

    .. math::

        H = \frac1N \tilde X^\top R \tilde X + \alpha\,\mathrm{diag}(1,\dots,1,0),
        \qquad R_{nn} = \sigma(f_n)\big(1 - \sigma(f_n)\big).

    Parameters
    ----------
    w : ndarray of shape (d,)
    b : float
    X : ndarray of shape (N, d)
    alpha : float, default=0.0
    fit_intercept : bool, default=True
        If True the last row/column is the intercept and the result has shape
        (d + 1, d + 1); otherwise (d, d).

    Returns
    -------
    ndarray of shape (d + 1, d + 1) or (d, d)
    """
    w = np.asarray(w, dtype=float).ravel()
    X = np.asarray(X, dtype=float)
    f = X @ w + b
    # sigma(f)(1 - sigma(f)) = sigma(f) sigma(-f): no cancellation for large |f|.
    r = sigmoid(f) * sigmoid(-f)
    Xa = design_matrix(X, fit_intercept)
    H = (Xa.T * r) @ Xa / X.shape[0]
    d = X.shape[1]
    H[np.arange(d), np.arange(d)] += alpha
    return H


# The parameters logistic and softmax regression share (validate_params checks them).
GLM_PARAMETERS = {
    "alpha": [Interval("real", 0, None)],
    "fit_intercept": [Options(True, False)],
    "eta": [Interval("real", 0, None, closed="neither")],
    "max_iter": [Interval("integer", 1, None)],
    "tol": [Interval("real", 0, None)],
}


class LogisticRegression(BaseEstimator, LinearClassifierMixin):
    r"""Binary logistic regression with an optional L2 penalty.

    Minimises the mean cross-entropy plus :math:`\frac{\alpha}{2}\lVert\mathbf{w}\rVert^2`
    (the intercept is not penalised). This is scikit-learn's
    ``LogisticRegression(C=1/(alpha * N))`` up to the factor N in the objective.

    Parameters
    ----------
    solver : {"newton", "gd"}, default="newton"
        ``"gd"``: batch gradient descent :math:`\theta \leftarrow \theta - \eta\nabla L`
        with the fixed step ``eta``. ``"newton"``: Newton's method, i.e.
        iteratively reweighted least squares, :math:`\theta \leftarrow \theta - t H^{-1}\nabla L`,
        with the step :math:`t \in \{1, \tfrac12, \tfrac14, \dots\}` chosen by
        Armijo backtracking so that the loss always decreases (a pure Newton
        step can overshoot far from the optimum).
    alpha : float >= 0, default=0.0
        L2 regularisation strength :math:`\alpha`.
    fit_intercept : bool, default=True
        Learn :math:`b`; otherwise :math:`b = 0`.
    eta : float > 0, default=0.1
        Step size of ``"gd"`` (ignored by ``"newton"``).
    max_iter : int > 0, default=100
        Maximum number of iterations.
    tol : float >= 0, default=1e-8
        Stop when the Euclidean norm of the gradient is at most ``tol`` times its norm
        at the start (:math:`\mathbf w = \mathbf 0`): a test relative to the scale of the
        problem, so tiny or huge features do not make it trivial or unreachable.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (:math:`y = 1`).
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    n_features_in_ : int
    n_iter_ : int
        Number of iterations (parameter updates) performed.
    loss_curve_ : list of float
        Regularised loss at the start and after each iteration
        (length ``n_iter_ + 1``).
    converged_ : bool
        Whether the gradient norm fell below ``tol``.
    separable_ : bool
        True when ``alpha == 0`` and the fitted hyperplane separates the
        training data, so that no maximum-likelihood estimate exists.

    Warns
    -----
    ConvergenceWarning
        If the data are linearly separable and ``alpha == 0`` (the weights would
        grow forever; fitting stops at a finite separating hyperplane), or if
        ``max_iter`` is reached first.

    Notes
    -----
    The stopping test ``||grad|| <= tol * ||grad at w = 0||`` is relative, so a
    common rescaling of the features does not change when it fires (features
    of size 1e-8 no longer pass it at ``w = 0``). Badly scaled features still
    slow gradient descent down: standardising them helps the solvers, not the test.

    Separability is detected exactly only when it is complete (some hyperplane
    puts every sample strictly on its side). Under *quasi*-complete separation
    (separable except for samples lying on the separating hyperplane) the MLE
    does not exist either, but the loss stays positive; the solvers then stop
    at large but finite weights without a separability warning.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> clf = LogisticRegression(alpha=0.1).fit(X, ["a", "b", "a", "b"])
    >>> clf.predict_proba(X).shape
    (4, 2)
    """

    _binary_only = True  # two classes; wrap in OneVsRest/OneVsOne for more

    _parameter_constraints = {"solver": [Options("newton", "gd")], **GLM_PARAMETERS}

    def __init__(self, *, solver="newton", alpha=0.0, fit_intercept=True, eta=0.1,
                 max_iter=100, tol=1e-8):
        self.solver = solver
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.eta = eta
        self.max_iter = max_iter
        self.tol = tol

    # -- the objective in terms of one flat parameter vector theta = (w, b) --

    def _split(self, theta):
        if self.fit_intercept:
            return theta[:-1], float(theta[-1])
        return theta, 0.0

    def _loss_grad(self, theta, X, t):
        w, b = self._split(theta)
        loss, grad_w, grad_b = logistic_loss_and_grad(w, b, X, t, self.alpha)
        grad = np.append(grad_w, grad_b) if self.fit_intercept else grad_w
        return loss, grad

    def fit(self, X, y):
        """Fit the model by minimising the regularised cross-entropy.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Exactly two distinct labels.

        Returns
        -------
        self
        """
        validate_params(self)
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_pm = encode_binary(y, estimator=type(self).__name__)
        t = (y_pm + 1.0) / 2.0  # targets t_n in {0, 1}
        self.n_features_in_ = X.shape[1]

        theta = np.zeros(X.shape[1] + int(self.fit_intercept))
        loss, grad = self._loss_grad(theta, X, t)
        losses = [loss]
        converged = stalled = False
        n_iter = 0
        eta = float(self.eta)
        # relative to the gradient at w = 0: the same test whatever the features' scale
        grad_tol = self.tol * float(np.linalg.norm(grad))
        while True:
            if np.linalg.norm(grad) <= grad_tol:
                converged = True
                break
            if self.alpha == 0 and loss < _SEPARABLE_LOSS and self._separates(theta, X, y_pm):
                break
            if n_iter >= self.max_iter:
                break
            if self.solver == "gd":
                theta, _, eta = safeguarded_gradient_step(
                    lambda th: self._loss_grad(th, X, t)[0], theta, loss, grad, eta)
                if eta == 0.0:
                    stalled = True
                    break
            else:
                w, b = self._split(theta)
                H = logistic_hessian(w, b, X, self.alpha, self.fit_intercept)
                p = newton_direction(H, grad)
                step, theta, _ = backtracking_line_search(
                    lambda th: self._loss_grad(th, X, t)[0], theta, loss, grad, p
                )
                if step == 0.0:
                    stalled = True
                    break
            n_iter += 1
            loss, grad = self._loss_grad(theta, X, t)
            losses.append(loss)

        w, b = self._split(theta)
        self.coef_ = w.reshape(1, -1).copy()
        self.intercept_ = np.array([b])
        self.n_iter_ = int(n_iter)
        self.loss_curve_ = losses
        self.converged_ = converged
        self.separable_ = bool(self.alpha == 0 and self._separates(theta, X, y_pm))
        diverged = self.solver == "gd" and 0.0 < eta < self.eta
        if diverged:
            warn_step_diverged(self, eta, converged or self.separable_)
        if self.separable_:
            warnings.warn(
                "LogisticRegression: the training data look linearly separable "
                f"(the hyperplane after {self.n_iter_} iterations classifies every "
                "sample correctly), so with alpha=0 the maximum-likelihood weights "
                "do not exist: the loss tends to 0 as ||w|| grows without bound. "
                "Fitting stopped at a finite separating hyperplane whose "
                "probabilities are not meaningful; use alpha > 0 for a unique solution.",
                ConvergenceWarning,
                stacklevel=2,
            )
        elif not self.converged_ and not diverged:
            hint = ("the step is stable but slow: standardise X, use solver='newton', or "
                    "a larger max_iter" if self.solver == "gd" else "")
            warn_stopped_above_tol(self, float(np.linalg.norm(grad)) / max(grad_tol / self.tol, 1e-300)
                                   if self.tol > 0 else float(np.linalg.norm(grad)), stalled, hint)
        return self

    def _separates(self, theta, X, y_pm):
        w, b = self._split(theta)
        return bool(np.all(y_pm * (X @ w + b) > 0))

    def predict_proba(self, X):
        """Class probabilities: column 1 is :math:`\\sigma(f(\\mathbf{x}))`.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2), rows sum to 1, columns ordered as ``classes_``
        """
        f = self.decision_function(X)
        # sigma(-f) rather than 1 - sigma(f): exact for tiny probabilities.
        return np.column_stack([sigmoid(-f), sigmoid(f)])

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`, computed without taking log of 0.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        f = self.decision_function(X)
        return np.column_stack([log_sigmoid(-f), log_sigmoid(f)])

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
        t = (y == self.classes_[1]).astype(float)
        return logistic_loss_and_grad(self.coef_.ravel(), self.intercept_[0], X, t, self.alpha)[0]


def wald_table(model, X, y, level=0.95):
    r"""Standard errors, Wald tests and Wald intervals of an unpenalised logistic fit.

    At the maximum-likelihood estimate :math:`\hat{\mathbf a} = (\hat{\mathbf w}, \hat b)`
    the covariance of the estimate is approximately the inverse of the observed
    information, the Hessian of the *summed* negative log-likelihood:

    .. math::

        \widehat{\mathrm{Cov}}(\hat{\mathbf a}) = \mathcal I^{-1},\qquad
        \mathcal I = \tilde X^\top S\,\tilde X,\quad
        S = \mathrm{diag}\big(p_n(1-p_n)\big),

        \mathrm{SE}_j = \sqrt{(\mathcal I^{-1})_{jj}},\qquad
        z_j = \hat a_j/\mathrm{SE}_j,\qquad
        p\text{-value}_j = 2\,\Phi(-|z_j|),

    and the Wald interval is :math:`\hat a_j \pm \Phi^{-1}(\tfrac{1+\text{level}}{2})\,\mathrm{SE}_j`.

    Parameters
    ----------
    model : LogisticRegression
        Fitted with ``alpha=0`` on ``(X, y)``; the fit must have converged and the
        data must not be separable (then the MLE, and its covariance, do not exist).
    X : array_like of shape (n_samples, n_features)
        The training samples the model was fitted on.
    y : array_like of shape (n_samples,)
        Their labels (from ``model.classes_``).
    level : float in (0, 1), default=0.95
        Coverage of the Wald intervals.

    Returns
    -------
    dict of ndarray
        Keys ``"coef"``, ``"se"``, ``"z"``, ``"p_value"``, ``"ci_low"``, ``"ci_high"``
        and ``"cov"`` (the matrix :math:`\mathcal I^{-1}`). Entries are ordered as
        :math:`\mathbf a = (w_1, \dots, w_d, b)`; without an intercept :math:`b` is left out.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`LogisticRegression` or ``level`` is not a number.
    ValueError
        If the model is penalised, separable or not converged, if ``level`` is
        outside (0, 1), or if the information matrix is singular.
    """
    if not isinstance(model, LogisticRegression):
        raise TypeError(f"wald_table needs a LogisticRegression; got {type(model).__name__}.")
    check_is_fitted(model, "coef_")
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)):
        raise TypeError(f"level must be a real number in (0, 1); got {level!r}.")
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must lie in (0, 1); got {level!r}.")
    if model.alpha != 0:
        raise ValueError("wald_table needs alpha=0: with an L2 penalty the estimate is not the "
                         "MLE and the inverse Hessian is not its covariance.")
    if model.separable_ or not model.converged_:
        raise ValueError("wald_table needs a converged fit of a non-separable problem: "
                         "otherwise the maximum-likelihood estimate does not exist.")
    X = check_n_features(model, X)
    check_known_labels(y, model.classes_, X.shape[0])
    a = np.append(model.coef_[0], model.intercept_) if model.fit_intercept else model.coef_[0].copy()
    # the table is about the MLE of *these* data: its score must vanish there
    _, grad_w, grad_b = logistic_loss_and_grad(model.coef_[0], model.intercept_[0], X,
                                               (np.asarray(y) == model.classes_[1]).astype(float))
    score = np.append(grad_w, grad_b) if model.fit_intercept else grad_w
    if np.abs(score).max() > 1e-4:
        raise ValueError("wald_table: the model is not the maximum-likelihood fit of these (X, y) "
                         f"(the gradient there is {np.abs(score).max():.2g}); pass the training data.")
    info = X.shape[0] * logistic_hessian(model.coef_[0], model.intercept_[0], X, 0.0, model.fit_intercept)
    if np.linalg.matrix_rank(info) < info.shape[0]:
        raise ValueError("the information matrix X~^T S X~ is singular (collinear features?).")
    cov = np.linalg.inv(info)
    se = np.sqrt(np.diag(cov))
    z = a / se
    p_value = np.array([math.erfc(abs(v) / math.sqrt(2.0)) for v in z])  # 2 Phi(-|z|)
    q = NormalDist().inv_cdf(0.5 + float(level) / 2.0)
    return {"coef": a, "se": se, "z": z, "p_value": p_value,
            "ci_low": a - q * se, "ci_high": a + q * se, "cov": cov}
