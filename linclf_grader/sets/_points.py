"""Public checks of a symbolic answer that do not contain the answer (hostile review, F2).

A public test of a derivation reads the returned sympy object, substitutes a few numeric
points and compares with literal values computed once from the reference; the full
symbolic comparison lives in the instructor's hidden tests.  A failure names the point,
never the expected value, so neither the test source nor its message shows the formula.
"""

import math

import numpy as np

from ..framework import fail, read_expr
from ..timeouts import time_limit


def assert_values_at(got, points, expected, what, *, matrix=False, rtol=1e-9):
    """``got`` evaluated at each ``points[i]`` (a dict name -> number) equals ``expected[i]``.

    ``expected[i]`` is a number (or a nested list for a Matrix answer).  The message on a
    mismatch names the point only.
    """
    import sympy as sp

    if isinstance(got, (int, float)) and not isinstance(got, bool):
        got = repr(got)                                # a constant answer given as a number
    expr = read_expr(got, what, matrix=matrix)
    names = set(points[0])
    extra = sorted(s.name for s in expr.free_symbols if s.name not in names)
    if extra:
        fail(f"{what} uses unknown symbols {extra}; use only {sorted(names)}")
    for point, want in zip(points, expected):
        sub = {s: sp.Float(point[s.name], 30) for s in expr.free_symbols}
        where = ", ".join(f"{k} = {v:g}" for k, v in point.items())
        try:
            with time_limit(10.0):
                value = expr.xreplace(sub).evalf(30)
                got_v = np.array([complex(v) for v in value] if matrix else [complex(value)])
        except TimeoutError:
            fail(f"{what} could not be evaluated in time at {where}")
        except (TypeError, ValueError, ArithmeticError):
            fail(f"{what} cannot be evaluated to a number at {where}")
        want_v = np.ravel(np.asarray(want, dtype=float))
        if got_v.shape != want_v.shape:
            fail(f"{what} has {got_v.size} entries, expected {want_v.size}")
        if not all(math.isfinite(v.real) and math.isfinite(v.imag) for v in got_v):
            fail(f"{what} is not finite at {where}")
        if np.any(np.abs(got_v - want_v) > rtol * (1 + np.abs(want_v))):
            fail(f"{what} differs from the right expression at {where}")
