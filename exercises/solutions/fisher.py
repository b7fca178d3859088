"""Reference solutions: exercise set "fisher" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def _means(X, y):
    return X[y == 1].mean(axis=0), X[y == -1].mean(axis=0)


def within_class_scatter(X, y):
    S = np.zeros((X.shape[1], X.shape[1]))
    for label in (1, -1):
        D = X[y == label] - X[y == label].mean(axis=0)
        S += D.T @ D
    return S


def fisher_direction(X, y):
    m_plus, m_minus = _means(X, y)
    w = np.linalg.solve(within_class_scatter(X, y), m_plus - m_minus)
    return w / np.linalg.norm(w)


def fisher_criterion(w, X, y):
    m_plus, m_minus = _means(X, y)
    return (w @ (m_plus - m_minus)) ** 2 / (w @ within_class_scatter(X, y) @ w)


def midpoint_bias(w, X, y):
    m_plus, m_minus = _means(X, y)
    return -w @ (m_plus + m_minus) / 2


def fisher_max_criterion():
    s1, s2 = sp.symbols("s1 s2", positive=True)
    d1, d2 = sp.symbols("d1 d2", real=True)
    dm = sp.Matrix([d1, d2])
    S_w = sp.diag(s1, s2)
    return sp.simplify((dm.T * S_w.inv() * dm)[0, 0])
