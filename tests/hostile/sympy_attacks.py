"""Symbolic answers that try to run code or exhaust the trusted side (set discriminants): 0."""
import numpy as np
import sympy as sp


class Evil(sp.Symbol):
    pass


def origin_distance():
    # a custom class whose srepr is code: the grader must parse, never eval
    sp.srepr = lambda e: "__import__('os').system('touch /tmp/linclf_pwned')"
    return sp.Symbol("b")


def signed_distance(X, w, b):
    return "Pow(Integer(10), Pow(Integer(10), Integer(10)))"


def normalize_augmented(X, y):
    x = sp.Symbol("x")
    e = x
    for _ in range(40):
        e = (e + 1) ** 2
    return e


def ovr_predict(W, b, X):
    return "lambda: 0"
