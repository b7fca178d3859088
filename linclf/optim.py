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
    "backtracking_line_search",
    "design_matrix",
    "newton_direction",
    "warn_not_converged",
    "warn_stopped_above_tol",
]


def design_matrix(X, fit_intercept):
    """``X`` with a last column of ones if ``fit_intercept``: the rows the GLM solvers use."""
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def backtracking_line_search(fun, theta, loss, grad, direction, *, c=1e-4, max_halvings=50):
    """Armijo backtracking: the largest step 2^-j whose loss decrease is sufficient.

    Returns ``(step, new_theta, new_loss)``, or ``(0.0, theta, loss)`` if no step
    of the direction lowers the loss (the loss is flat at machine precision).
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


def newton_direction(H, g):
    """Solve ``H p = -g``; fall back to least squares or to ``-g`` if that fails."""
    try:
        p = np.linalg.solve(H, -g)
    except np.linalg.LinAlgError:
        p = np.linalg.lstsq(H, -g, rcond=None)[0]
    if not np.all(np.isfinite(p)) or float(g @ p) >= 0.0:
        # Singular or indefinite to rounding: steepest descent is always a descent direction.
        p = -g
    return p


def warn_stopped_above_tol(est, grad_norm, stalled, hint=""):
    """ConvergenceWarning for a fit that ended with the gradient norm above ``tol``."""
    name = type(est).__name__
    if stalled:
        msg = (
            f"{name} stopped after {est.n_iter_} iterations: the line search could not "
            f"lower the loss any further, with the gradient norm {grad_norm:.2e} still "
            f"above tol={est.tol}. The loss is flat to machine precision there, which "
            "usually means badly scaled features (standardise X) or a tol too small "
            "for the scale of the data"
        )
        if hint:
            msg += f"; {hint}"
        warnings.warn(msg + ".", ConvergenceWarning, stacklevel=3)
    else:
        detail = f"gradient norm {grad_norm:.2e} > tol={est.tol}"
        if hint:
            detail += f"; {hint}"
        warn_not_converged(name, est.max_iter, detail)


class LBFGSMemory:
    """The last few steps s and gradient changes y, and the two-loop recursion."""

    def __init__(self, size):
        self.size = size
        self.s, self.y = [], []

    def update(self, s, y):
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
        r"""Return :math:`-H_k g` with :math:`H_k` the L-BFGS inverse-Hessian estimate."""
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
    """Emit a :class:`ConvergenceWarning` in one consistent wording."""
    msg = f"{estimator_name} did not converge in max_iter={max_iter} iterations"
    if detail:
        msg += f"; {detail}"
    warnings.warn(msg + ".", ConvergenceWarning, stacklevel=3)
