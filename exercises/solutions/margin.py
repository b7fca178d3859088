"""Reference solutions: exercise set "margin" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def geometric_margin(X, y, w, b):
    # the smallest signed distance y_i (w.x_i + b) / |w|; negative when a point is on the wrong side
    return float(np.min(y * (X @ w + b)) / np.linalg.norm(w))


def canonical_hyperplane(X, y, w, b):
    gamma_hat = np.min(y * (X @ w + b))
    if not gamma_hat > 0:
        raise ValueError(f"(w, b) does not separate the training set: the smallest functional "
                         f"margin is {gamma_hat}, it must be > 0")
    return w / gamma_hat, b / gamma_hat


def best_offset(X, y, u):
    u = u / np.linalg.norm(u)        # rho is defined for a unit normal
    p = X @ u
    m_plus, M_minus = p[y > 0].min(), p[y < 0].max()
    return float((m_plus - M_minus) / 2), float(-(m_plus + M_minus) / 2)


def two_point_svm():
    p1, p2, q1, q2 = sp.symbols("p1 p2 q1 q2", real=True)
    p, q = sp.Matrix([p1, p2]), sp.Matrix([q1, q2])
    a = sp.Symbol("a", positive=True)
    # the dual with one point per class: alpha_+ = alpha_- = a, W(a) = 2a - a^2 |p - q|^2 / 2
    W = 2 * a - a**2 * (p - q).dot(p - q) / 2
    (a_star,) = sp.solve(sp.diff(W, a), a)
    w = a_star * (p - q)
    b = 1 - w.dot(p)                  # p is a support vector: w.p + b = 1
    return sp.Matrix([w[0], w[1], sp.simplify(b)])
