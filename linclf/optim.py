"""Optimisation helpers shared by the iterative solvers.

Logistic and softmax regression both minimise a smooth convex loss with
gradient descent, Newton's method (IRLS) or L-BFGS; the pieces they share live
here: the design matrix with an intercept column, an Armijo backtracking line
search, a safeguarded Newton direction, the L-BFGS two-loop recursion, and the
convergence warnings every solver of the library emits in one wording.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._validation import ConvergenceWarning

__all__ = [
    "LBFGSMemory",
    "safeguarded_gradient_step",
    "warn_step_diverged",
    "backtracking_line_search",
    "design_matrix",
    "newton_direction",
    "warn_not_converged",
    "warn_stopped_above_tol",
]


def design_matrix(X, fit_intercept):
    """``X`` with a last column of ones if ``fit_intercept``: the rows the GLM solvers use.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    fit_intercept : bool

    Returns
    -------
    ndarray of shape (n_samples, n_features + 1) or (n_samples, n_features)
    """
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def backtracking_line_search(fun, theta, loss, grad, direction, *, c=1e-4, max_halvings=50):
    """Armijo backtracking: the largest step 2^-j whose loss decrease is sufficient.

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` is the loss at ``theta``.
    theta : ndarray
        The current point.
    loss : float
        ``fun(theta)``.
    grad : ndarray
        The gradient at ``theta``.
    direction : ndarray
        A descent direction (``grad @ direction < 0``).
    c : float, default 1e-4
        Armijo constant: a step must lower the loss by ``c * step * grad @ direction``.
    max_halvings : int, default 50
        Steps tried: 1, 1/2, ..., 2**-(max_halvings - 1).

    Returns
    -------
    step : float
        The accepted step, or 0.0 if no step lowers the loss (the loss is flat
        at machine precision along ``direction``).
    new_theta : ndarray
    new_loss : float
    """
    slope = float(grad @ direction)
    step = 1.0
    for _ in range(max_halvings):
        candidate = theta + step * direction
        new_loss = fun(candidate)
        if np.isfinite(new_loss) and new_loss <= loss + c * step * slope:
            return step, candidate, new_loss
        step *= 0.5
    return 0.0, theta, loss


def safeguarded_gradient_step(fun, theta, loss, grad, eta, *, max_halvings=60):
    """A gradient step ``theta - eta * grad`` that may not raise the loss: halve ``eta`` until it does not.

    With a fixed step beyond ``2/L`` (``L`` the largest curvature of the loss, which grows
    with the square of the features' scale) plain gradient descent diverges; this is the
    guard: the first step that raises the loss (or makes it non-finite) is halved until it
    lowers it, and the caller keeps the smaller step from then on.

    Parameters
    ----------
    fun : callable
        ``fun(theta)`` is the loss.
    theta : ndarray
    loss : float
        ``fun(theta)``.
    grad : ndarray
        The gradient at ``theta``.
    eta : float
        The step to try first.
    max_halvings : int, default 60

    Returns
    -------
    new_theta : ndarray
    new_loss : float
    eta : float
        The step taken (``0.0`` if no step lowers the loss: flat to machine precision).
    """
    # a rise within the loss's rounding error is not divergence (near the optimum
    # the computed loss is flat to that level)
    slack = 8.0 * np.finfo(float).eps * abs(loss)
    for _ in range(max_halvings):
        candidate = theta - eta * grad
        new_loss = fun(candidate)
        if np.isfinite(new_loss) and new_loss <= loss + slack:
            return candidate, new_loss, eta
        eta *= 0.5
    return theta, loss, 0.0


def warn_step_diverged(est, eta_used, converged=True):
    """Warn that the fixed gradient-descent step ``est.eta`` raised the loss and was reduced.

    Parameters
    ----------
    est : estimator
        Its ``eta`` is the step the user chose.
    eta_used : float
        The step gradient descent ended with.
    converged : bool, default True
        Whether the fit met its tolerance all the same (if not, the message says so).
    """
    ended = ":" if converged else (
        f" did not converge in max_iter={est.max_iter} iterations, and")
    warnings.warn(
        f"{type(est).__name__}(solver='gd'){ended} the step eta={est.eta:g} makes gradient descent "
        "diverge on these data (it raised the loss: eta exceeds 2/L, L the loss's largest "
        "curvature, which grows with the square of the features' scale); it was halved to "
        f"{eta_used:.3g} to keep the loss decreasing. Standardise X, or pass a smaller eta, "
        "or use solver='newton'.",
        ConvergenceWarning,
        stacklevel=3,
    )


def newton_direction(H, g):
    """Solve ``H p = -g``; fall back to least squares or to ``-g`` if that fails.

    Parameters
    ----------
    H : ndarray of shape (k, k)
        The Hessian (symmetric positive semi-definite for a convex loss).
    g : ndarray of shape (k,)
        The gradient.

    Returns
    -------
    ndarray of shape (k,)
        A descent direction: Newton's if it is one, else ``-g``.
    """
    try:
        p = np.linalg.solve(H, -g)
    except np.linalg.LinAlgError:
        p = np.linalg.lstsq(H, -g, rcond=None)[0]
    if not np.all(np.isfinite(p)) or float(g @ p) >= 0.0:
        # Singular or indefinite to rounding: steepest descent is always a descent direction.
        p = -g
    return p


def warn_stopped_above_tol(est, grad_norm, stalled, hint=""):
    """Warn (:class:`ConvergenceWarning`) that a fit ended with the gradient norm above ``tol``.

    Parameters
    ----------
    est : estimator
        The estimator being fitted (its ``n_iter_``, ``tol`` and ``max_iter`` are quoted).
    grad_norm : float
        The final gradient norm, relative to its norm at the start (``tol`` is relative).
    stalled : bool
        True if the line search could not lower the loss any more (rather than
        ``max_iter`` running out).
    hint : str, default ""
        Advice appended to the message.
    """
    name = type(est).__name__
    if stalled:
        msg = (
            f"{name} stopped after {est.n_iter_} iterations: the line search could not "
            f"lower the loss any further, with the gradient norm {grad_norm:.2e} times its "
            "initial norm, still "
            f"above tol={est.tol}. The loss is flat to machine precision there, which "
            "usually means badly scaled features (standardise X) or a tol too small "
            "for the scale of the data"
        )
        if hint:
            msg += f"; {hint}"
        warnings.warn(msg + ".", ConvergenceWarning, stacklevel=3)
    else:
        detail = f"gradient norm {grad_norm:.2e} times its initial norm > tol={est.tol}"
        if hint:
            detail += f"; {hint}"
        warn_not_converged(name, est.max_iter, detail)


class LBFGSMemory:
    """The last few steps s and gradient changes y, and the two-loop recursion.

    Parameters
    ----------
    size : int
        How many (s, y) pairs to keep.
    """

    def __init__(self, size):
        self.size = size
        self.s, self.y = [], []

    def update(self, s, y):
        """Remember a step and its gradient change (if its curvature is positive).

        Parameters
        ----------
        s : ndarray
            The step ``theta_new - theta_old``.
        y : ndarray
            The gradient change ``grad_new - grad_old``.
        """
        sy = float(s @ y)
        # Keep only pairs with positive curvature, so the implicit inverse
        # Hessian stays positive definite and every direction is a descent one.
        if sy > 1e-12 * float(y @ y):
            self.s.append(s)
            self.y.append(y)
            if len(self.s) > self.size:
                self.s.pop(0)
                self.y.pop(0)

    def direction(self, g):
        r"""Return :math:`-H_k g` with :math:`H_k` the L-BFGS inverse-Hessian estimate.

        Parameters
        ----------
        g : ndarray
            The current gradient.

        Returns
        -------
        ndarray
            The search direction.
        """
        q = g.copy()
        rhos = [1.0 / float(s @ y) for s, y in zip(self.s, self.y)]
        coeffs = []
        for s, y, rho in reversed(list(zip(self.s, self.y, rhos))):
            a = rho * float(s @ q)
            coeffs.append(a)
            q -= a * y
        if self.s:
            s, y = self.s[-1], self.y[-1]
            q *= float(s @ y) / float(y @ y)  # scale of the initial matrix H_0 = gamma I
        else:
            q /= max(1.0, float(np.linalg.norm(g)))  # first step: length at most 1
        for (s, y, rho), a in zip(zip(self.s, self.y, rhos), reversed(coeffs)):
            beta = rho * float(y @ q)
            q += (a - beta) * s
        return -q


def warn_not_converged(estimator_name, max_iter, detail=""):
    """Emit a :class:`ConvergenceWarning` in one consistent wording.

    Parameters
    ----------
    estimator_name : str
        Named at the start of the message.
    max_iter : int
        The iteration budget that ran out.
    detail : str, default ""
        What was still unmet, and advice.
    """
    msg = f"{estimator_name} did not converge in max_iter={max_iter} iterations"
    if detail:
        msg += f"; {detail}"
    warnings.warn(msg + ".", ConvergenceWarning, stacklevel=3)
