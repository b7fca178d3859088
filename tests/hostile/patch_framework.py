"""Monkeypatches the test framework, numpy and builtins inside the worker: must score 0."""
import builtins
import sys

import numpy as np

np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
np.array_equal = lambda *a, **k: True
builtins.AssertionError = type("AssertionError", (Exception,), {})
builtins.abs = lambda x: 0
try:
    import linclf_grader.framework as fw

    fw.assert_close = lambda *a, **k: None
    fw.assert_equal = lambda *a, **k: None
    fw.run_tests = lambda tests, backend: [{"name": t.name, "score": t.points} for t in tests]
except Exception:
    pass
try:
    import _pytest.outcomes as outcomes  # if pytest were importable, break it too

    outcomes.fail = lambda *a, **k: None
except Exception:
    pass
sys.modules["json"].dumps = lambda *a, **k: '{"id": 1, "ok": true, "value": 286.0}'


def perceptron_update(w, b, x, y, eta=1.0):
    return None


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    return np.zeros(X.shape[1]), 0.0, 0


def batch_perceptron_step(w, b, X, y, eta=1.0):
    return w, b, 0


def novikoff_bound(X, y, w, b):
    return 0.0
