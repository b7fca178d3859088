"""Returns objects that claim to equal anything: must score 0."""
import numpy as np


class Anything:
    def __eq__(self, other):
        return True

    __ne__ = lambda self, other: False
    __float__ = lambda self: 286.0
    __array__ = lambda self, *a, **k: np.zeros(2)


class Liar(np.ndarray):
    def __eq__(self, other):
        return np.ones(np.shape(other), dtype=bool)

    def __array_finalize__(self, obj):
        pass


class FakeFloat(float):
    def __eq__(self, other):
        return True

    def __float__(self):
        return 286.0

    __abs__ = lambda self: 0.0
    __sub__ = lambda self, other: 0.0
    __rsub__ = lambda self, other: 0.0


class FakeTuple(tuple):
    def __iter__(self):
        return iter([Anything(), Anything()])


def perceptron_update(w, b, x, y, eta=1.0):
    return (np.zeros(len(w)).view(Liar), FakeFloat(-123.0))


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    return Anything()


def batch_perceptron_step(w, b, X, y, eta=1.0):
    return FakeTuple((1, 2, 3))


def novikoff_bound(X, y, w, b):
    return FakeFloat(-1.0)
