"""A symbolic answer checked by its values at a few numeric points.

Public tests of derivation exercises use this instead of a symbolic comparison with the
answer: the test then holds numbers, not the formula, so reading the test does not give the
derivation away (hostile review s9, F2).  The full symbolic comparison is in hidden tests.
"""

from __future__ import annotations

import cmath

import numpy as np
import sympy as sp

from .framework import fail, order_of, read_expr
from .timeouts import time_limit


def assert_values_at(got, cases, names=None, what="the expression", *, matrix=False,
                     rtol=1e-9, atol=1e-12):
    """``got`` (a returned sympy answer) takes the expected value at each numeric point.

    Parameters
    ----------
    got : the returned answer (sympy object or text; a plain number for a constant answer)
    cases : iterable of (dict, value)
        A point, as {symbol name: number}, and the expected value there: a number, or
        nested lists for a Matrix answer.
    names : list of str, optional
        The symbols the answer may use (default: those of the first point).
    what : str
        How the feedback names the answer.
    matrix : bool
        Whether the answer is a Matrix.

    The failure message names the point (and, for a scalar, the size of the error), never
    the expected value.  Evaluation has a time limit: a returned expression is the student's.
    """
    cases = list(cases)
    names = list(cases[0][0]) if names is None and cases else list(names or ())
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        got = repr(got)                                # a constant answer given as a number
    expr = read_expr(got, what, matrix=matrix)
    entries = list(expr) if matrix else [expr]
    for point, expected in cases:
        shown = ", ".join(f"{k} = {v:g}" for k, v in point.items())
        want = np.ravel(np.asarray(expected, dtype=float))
        if len(entries) != want.size:
            fail(f"{what} has {len(entries)} entries, expected {want.size}")
        try:
            with time_limit(10.0):
                values = [_value_at(e, point, names, what) for e in entries]
        except TimeoutError:
            fail(f"{what} could not be evaluated in time at {shown}")
        for value, w in zip(values, want):
            if value is None or not cmath.isfinite(value):
                fail(f"{what} is not defined (or not finite) at {shown}")
            if abs(value.imag) > 1e-12:
                fail(f"{what} is not real at {shown}")
            if not abs(value.real - w) <= atol + rtol * abs(w):
                if matrix:
                    fail(f"{what} differs from the right expression at {shown}")
                fail(f"{what} is wrong at {shown}: yours is {value.real:.10g}, "
                     f"an error {order_of(value.real - w)}")


def _value_at(expr, point, names, what):
    """The complex value of ``expr`` at ``point``; a removable 0/0 counts by its limit."""
    subs = {s: sp.nsimplify(point[s.name]) for s in getattr(expr, "free_symbols", set())
            if s.name in point}
    at = expr.xreplace(subs)
    if getattr(at, "free_symbols", None):
        # another symbol may cancel once labels are +-1 (a1 (1 - y1**2)); only one that stays counts
        at = sp.simplify(at)
        if at.free_symbols:
            fail(f"{what} may use only {', '.join(names)}; it uses "
                 + ", ".join(sorted(s.name for s in at.free_symbols)))
    value = _value(at)
    if value is None or cmath.isnan(value):
        value = _limit(expr, subs)
    return value


def _value(expr):
    try:
        return complex(expr.evalf(30))
    except (TypeError, ValueError, ArithmeticError):
        return None


def _limit(expr, subs):
    """The limit at the point along its first variable, the others substituted; None if none."""
    if not subs:
        return None
    first, *_ = subs
    rest = {k: v for k, v in subs.items() if k != first}
    try:
        return _value(sp.limit(expr.xreplace(rest), first, subs[first]))
    except (TypeError, ValueError, ArithmeticError, NotImplementedError):
        return None
