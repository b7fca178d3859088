"""Reference solutions: exercise set "logistic" (instructor material, not for students)."""

import numpy as np
import sympy as sp


def log_sigmoid(z):
    # log sigma(z) = -log(1 + e^{-z}), evaluated without overflow on either side
    return -np.logaddexp(0.0, -z)


def logistic_loss_grad(w, b, X, y, lam=0.0):
    m = y * (X @ w + b)
    loss = np.mean(np.logaddexp(0.0, -m)) + 0.5 * lam * (w @ w)
    s = np.exp(-np.logaddexp(0.0, m))  # sigma(-m), stable
    coef = -y * s / len(y)
    return loss, X.T @ coef + lam * w, coef.sum()


def logistic_gradient():
    w, x, y = sp.symbols("w x y", real=True)
    return sp.diff(sp.log(1 + sp.exp(-y * w * x)), w)
