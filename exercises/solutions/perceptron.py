"""Reference solutions: exercise set "perceptron" (instructor material, not for students)."""

import numpy as np


def perceptron_update(w, b, x, y, eta=1.0):
    if y * (w @ x + b) <= 0:  # a point on the boundary counts as a mistake
        return w + eta * y * x, b + eta * y
    return w.copy(), b


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    w, b, n_updates = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(max_epochs):
        mistakes = 0
        for x_i, y_i in zip(X, y):
            if y_i * (w @ x_i + b) <= 0:
                w, b = w + eta * y_i * x_i, b + eta * y_i
                n_updates += 1
                mistakes += 1
        if mistakes == 0:
            break
    return w, b, n_updates


def batch_perceptron_step(w, b, X, y, eta=1.0):
    wrong = y * (X @ w + b) <= 0
    return w + eta * (y[wrong] @ X[wrong]), b + eta * y[wrong].sum(), int(wrong.sum())


def novikoff_bound(X, y, w, b):
    X_hat = np.hstack([X, np.ones((len(X), 1))])
    a = np.append(w, b)
    gamma = np.min(y * (X_hat @ a)) / np.linalg.norm(a)
    if gamma <= 0:
        raise ValueError("(w, b) does not separate the data")
    R = np.max(np.linalg.norm(X_hat, axis=1))
    return (R / gamma) ** 2
