"""Reference solutions: exercise set "smo" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def smo_bounds(alpha, y, C):
    a1, a2 = alpha
    if y[0] != y[1]:                  # alpha2 - alpha1 stays fixed
        return max(0.0, a2 - a1), min(C, C + a2 - a1)
    return max(0.0, a1 + a2 - C), min(C, a1 + a2)   # alpha1 + alpha2 stays fixed


def smo_pair_update(alpha, y, E, K, C):
    kappa = K[0, 0] + K[1, 1] - 2 * K[0, 1]
    a2 = alpha[1] + y[1] * (E[0] - E[1]) / kappa
    L, H = smo_bounds(alpha, y, C)
    a2 = min(max(a2, L), H)
    a1 = alpha[0] + y[0] * y[1] * (alpha[1] - a2)    # keeps y1 a1 + y2 a2 fixed
    return np.array([a1, a2])


def smo_bias(b, E, y, alpha_old, alpha_new, K, C):
    # b_k makes g(x_k) = y_k after the step, i.e. the new error E_k = 0
    b1, b2 = b - E - K @ (y * (alpha_new - alpha_old))
    if 0 < alpha_new[0] < C:
        return float(b1)
    if 0 < alpha_new[1] < C:
        return float(b2)
    return float((b1 + b2) / 2)


def smo_unclipped_alpha2():
    a2, y2, E1, E2, K11, K22, K12 = sp.symbols("a2 y2 E1 E2 K11 K22 K12", real=True)
    return a2 + y2 * (E1 - E2) / (K11 + K22 - 2 * K12)
