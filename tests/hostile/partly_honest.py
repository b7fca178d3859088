"""Two honest functions (4 + 3 points) and two hostile ones: must score exactly 7."""
import os

import numpy as np


def perceptron_update(w, b, x, y, eta=1.0):
    print("chatty " * 10000)  # lots of output does not cost the honest points
    if y * (w @ x + b) <= 0:
        return w + eta * y * x, b + eta * y
    return w, b


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    os._exit(0)  # kills its worker: later functions must still be graded


def batch_perceptron_step(w, b, X, y, eta=1.0):
    while True:
        pass


def novikoff_bound(X, y, w, b):
    X_hat = np.hstack([X, np.ones((len(X), 1))])
    a = np.append(w, b)
    gamma = np.min(y * (X_hat @ a)) / np.linalg.norm(a)
    if gamma <= 0:
        raise ValueError("not separating")
    return float(np.max(np.sum(X_hat**2, axis=1)) / gamma**2)
