"""A symbolic answer checked by its values at a few numeric points.

Public tests of derivation exercises use this instead of a symbolic comparison with the
answer: the test then holds numbers, not the formula, so reading the test does not give the
derivation away (hostile review s9, F2).  The full symbolic comparison is in hidden tests.
"""

from __future__ import annotations

import cmath

import sympy as sp

from .framework import fail, order_of, read_expr


def assert_values_at(got, cases, names, what="the expression", *, rtol=1e-9, atol=1e-12):
    """``got`` (a returned sympy answer) takes the expected value at each numeric point.

    Parameters
    ----------
    got : the returned answer (sympy object or text)
    cases : list of (dict, float)
        A point, as {symbol name: number}, and the expected value there.
    names : list of str
        The symbols the answer may use.
    what : str
        How the feedback names the answer.

    The failure message names the point and the size of the error, never the expected value.
    """
    expr = read_expr(got, what)
    for point, expected in cases:
        shown = ", ".join(f"{k} = {v:g}" for k, v in point.items())
        subs = {sp.Symbol(s.name): sp.nsimplify(point[s.name]) for s in getattr(expr, "free_symbols", set())
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
            # a removable 0/0 (e.g. at q = 1/2) is not wrong: its limit along one variable counts
            value = _limit(expr, subs)
        if value is None or not cmath.isfinite(value):
            fail(f"{what} is not defined (or not finite) at {shown}")
        if abs(value.imag) > 1e-12:
            fail(f"{what} is not real at {shown}")
        if not abs(value.real - expected) <= atol + rtol * abs(expected):
            fail(f"{what} is wrong at {shown}: yours is {value.real:.10g}, "
                 f"an error {order_of(value.real - expected)}")


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
