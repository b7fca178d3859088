"""Exits with status 0 at import and in every function: must score 0."""
import os
import sys


def perceptron_update(w, b, x, y, eta=1.0):
    sys.exit(0)


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    os._exit(0)


def batch_perceptron_step(w, b, X, y, eta=1.0):
    raise SystemExit(0)


def novikoff_bound(X, y, w, b):
    raise KeyboardInterrupt


sys.exit(0)
