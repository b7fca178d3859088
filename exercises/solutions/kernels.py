"""Reference solutions: exercise set "kernels" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def rbf_gram(X, Z, gamma):
    # |x - z|^2 = |x|^2 + |z|^2 - 2 x.z; clip the tiny negatives that rounding can leave
    sq = (X**2).sum(axis=1)[:, None] + (Z**2).sum(axis=1)[None, :] - 2 * X @ Z.T
    return np.exp(-gamma * np.maximum(sq, 0.0))


def poly2_features(X):
    x1, x2 = X[:, 0], X[:, 1]
    r2 = np.sqrt(2.0)
    return np.column_stack([x1**2, x2**2, r2 * x1 * x2, r2 * x1, r2 * x2, np.ones(len(X))])


def kernel_decision(alpha, y, X_train, b, X_new, gamma):
    return rbf_gram(X_new, X_train, gamma) @ (alpha * y) + b


def feature_distance():
    x1, x2, z1, z2 = sp.symbols("x1 x2 z1 z2", real=True)
    K = lambda u1, u2, v1, v2: (u1 * v1 + u2 * v2 + 1) ** 2  # noqa: E731
    # |phi(x) - phi(z)|^2 = K(x, x) + K(z, z) - 2 K(x, z)
    return K(x1, x2, x1, x2) + K(z1, z2, z1, z2) - 2 * K(x1, x2, z1, z2)
