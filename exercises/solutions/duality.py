"""Reference solutions: exercise set "duality" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def dual_objective(alpha, X, y):
    v = X.T @ (alpha * y)             # sum_i alpha_i y_i x_i, so alpha^T Q alpha = |v|^2
    return float(alpha.sum() - 0.5 * v @ v)


def primal_from_dual(alpha, X, y, C=np.inf):
    w = X.T @ (alpha * y)
    free = (alpha > 1e-8) & (alpha < C - 1e-8)
    if not free.any():
        raise ValueError("no free support vector (0 < alpha_i < C): b is not determined")
    # y_j (w.x_j + b) = 1 and y_j^2 = 1 give b = y_j - w.x_j; average over the free ones
    return w, float(np.mean(y[free] - X[free] @ w))


def small_dual_objective():
    a1, a2, a3 = sp.symbols("alpha1 alpha2 alpha3", real=True)
    X = sp.Matrix([[1, 2], [2, 0], [-1, 0]])
    y = sp.Matrix([1, 1, -1])
    alpha = sp.Matrix([a1, a2, a3])
    Q = sp.diag(*y) * X * X.T * sp.diag(*y)
    return sp.expand(sum(alpha) - (alpha.T * Q * alpha)[0] / 2)


def small_dual_alpha():
    # solved exactly: x1, x2 (positive) and x3 (negative) are the support vectors,
    # w = (2/3, 2/9), b = -1 (see tests/test_exercises_more.py for the KKT check)
    return np.array([2 / 27, 14 / 81, 20 / 81, 0.0, 0.0])
