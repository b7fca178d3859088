"""Reference solutions: exercise set "losses" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def hinge_subgradient(w, b, X, y, lam=0.0):
    m = y * (X @ w + b)
    n = len(y)
    active = m <= 1                   # at the kink m = 1 take the slope -1 of the violating side
    J = np.maximum(0.0, 1.0 - m).mean() + 0.5 * lam * (w @ w)
    g_w = -(X[active].T @ y[active]) / n + lam * w
    g_b = -y[active].sum() / n
    return float(J), g_w, float(g_b)


def logistic_loss_bits(m):
    # log2(1 + e^{-m}) = logaddexp(0, -m) / ln 2, finite for every finite m
    return np.logaddexp(0.0, -m) / np.log(2.0)


def exp_loss_minimizer():
    p, q = sp.symbols("p q", positive=True)
    f = sp.Symbol("f", real=True)
    risk = p * sp.exp(-f) + q * sp.exp(f)
    (f_star,) = sp.solve(sp.diff(risk, f), f)
    return f_star
