"""Parse and compare sympy answers without evaluating untrusted code.

``sympy.sympify`` and ``parse_expr`` call ``eval``; a string returned by student
code must never reach them.  :func:`parse_expr_safely` instead walks the Python
AST of the text (``srepr`` or ``str`` form) and builds the expression itself,
allowing only numbers, symbol names, arithmetic operators and calls of a short
list of sympy constructors and functions, with limits on size, on integers and
on exponents so that no answer can make the trusted process hang.

:func:`compare_expr` then checks an answer against the expected expression:
first numerically at random points (cheap, decisive when they differ), then
symbolically with ``simplify(got - expected) == 0``.
"""

from __future__ import annotations

import ast
import math
import random
import re

import sympy as sp

from .timeouts import PARSE_TIMEOUT, time_limit

MAX_TEXT = 20_000
MAX_NODES = 1_500
MAX_INT = 10**12
MAX_EXPONENT = 200
MAX_NUMBER_DIGITS = 60
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,30}$")
_ASSUMPTIONS = {"real", "positive", "negative", "nonnegative", "nonpositive", "nonzero",
                "integer", "finite"}


class UnsafeExpression(ValueError):
    """The text is not an expression built from the allowed vocabulary."""


def _matrix(rows):
    if not isinstance(rows, (list, tuple)) or len(rows) > 20:
        raise UnsafeExpression("a Matrix needs a short list of rows")
    return sp.ImmutableMatrix(rows)


#: elementary and special functions of one or two arguments that sympy evaluates to a
#: number cheaply; nothing here can run code or build an unbounded object
_ELEMENTARY = (
    "exp", "log", "sqrt", "cbrt", "Abs", "sign", "Heaviside", "floor", "ceiling",
    "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "acot", "atan2",
    "sinh", "cosh", "tanh", "coth", "sech", "csch", "asinh", "acosh", "atanh", "acoth",
    "erf", "erfc", "LambertW",
)
#: Max/Min answers are built unevaluated: sympy's argument reduction is quadratic or worse
MAX_MIN_ARGS = 8


def _min_max(cls, args):
    if len(args) > MAX_MIN_ARGS:
        raise UnsafeExpression(f"{cls.__name__}() takes at most {MAX_MIN_ARGS} arguments here")
    return cls(*args, evaluate=False)


_RELATIONALS = (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)


def _piecewise(args):
    # each argument is (expression, condition); conditions are comparisons or True
    if not 1 <= len(args) <= MAX_MIN_ARGS:
        raise UnsafeExpression(f"Piecewise() takes 1 to {MAX_MIN_ARGS} pieces here")
    pieces = []
    for piece in args:
        if not isinstance(piece, (list, tuple)) or len(piece) != 2:
            raise UnsafeExpression("each piece of Piecewise() is (expression, condition)")
        expr, cond = piece
        if not (cond is sp.true or isinstance(cond, _RELATIONALS)):
            raise UnsafeExpression("a Piecewise() condition must be a comparison such as q < 1/2")
        pieces.append((expr, cond))
    return sp.Piecewise(*pieces)


# callables allowed in a Call node (name -> constructor)
_FUNCTIONS = {
    "Symbol": None,  # handled separately
    "Integer": None,
    "Rational": None,
    "Float": None,
    "Add": lambda *a: sp.Add(*a),
    "Mul": lambda *a: sp.Mul(*a),
    "Pow": lambda a, b: _pow(a, b),
    "Max": lambda *a: _min_max(sp.Max, a), "Min": lambda *a: _min_max(sp.Min, a),
    "Piecewise": lambda *a: _piecewise(a), "ExprCondPair": lambda e, c: (e, c),
    "StrictLessThan": sp.StrictLessThan, "LessThan": sp.LessThan,
    "StrictGreaterThan": sp.StrictGreaterThan, "GreaterThan": sp.GreaterThan,
    **{name: getattr(sp, name) for name in _ELEMENTARY},
    "Matrix": _matrix, "ImmutableMatrix": _matrix, "MutableDenseMatrix": _matrix,
    "ImmutableDenseMatrix": _matrix, "Tuple": lambda *a: sp.Tuple(*a),
}
_CONSTANTS = {"pi": sp.pi, "E": sp.E, "oo": sp.oo, "zoo": sp.zoo, "nan": sp.nan,
              "I": sp.I, "true": sp.true}


def _check_number(value):
    if isinstance(value, sp.Number) and value.is_finite is not False:
        if isinstance(value, sp.Rational):
            if max(abs(value.p), abs(value.q)) > 10**MAX_NUMBER_DIGITS:
                raise UnsafeExpression("a number in the expression is too large")
        elif isinstance(value, sp.Float) and abs(value) > 1e300:
            raise UnsafeExpression("a number in the expression is too large")
    return value


def _pow(base, exponent):
    if isinstance(exponent, sp.Number) and abs(exponent) > MAX_EXPONENT:
        raise UnsafeExpression("an exponent in the expression is too large")
    return _check_number(sp.Pow(base, exponent))


class _Builder:
    def __init__(self):
        self.nodes = 0

    def build(self, node):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise UnsafeExpression("the expression is too large")
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise UnsafeExpression(f"{type(node).__name__} is not allowed in an answer")
        return method(node)

    def _Expression(self, node):
        return self.build(node.body)

    def _Constant(self, node):
        v = node.value
        if type(v) is bool:
            return sp.true if v else sp.false
        if type(v) is int:
            if abs(v) > MAX_INT:
                raise UnsafeExpression("an integer in the expression is too large")
            return sp.Integer(v)
        if type(v) is float:
            if not math.isfinite(v):
                raise UnsafeExpression("non-finite number")
            return sp.Float(v)
        raise UnsafeExpression("only numbers may appear as literals here")

    def _Name(self, node):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        if not _NAME.match(node.id) or node.id in _FUNCTIONS:
            raise UnsafeExpression(f"name {node.id!r} is not allowed")
        return sp.Symbol(node.id)

    def _UnaryOp(self, node):
        v = self.build(node.operand)
        if isinstance(node.op, ast.USub):
            return _check_number(-v)
        if isinstance(node.op, ast.UAdd):
            return v
        raise UnsafeExpression("operator not allowed")

    def _BinOp(self, node):
        a, b = self.build(node.left), self.build(node.right)
        op = type(node.op)
        if op is ast.Add:
            return _check_number(a + b)
        if op is ast.Sub:
            return _check_number(a - b)
        if op is ast.Mult:
            return _check_number(a * b)
        if op is ast.Div:
            return _check_number(a / b)
        if op is ast.Pow:
            return _pow(a, b)
        raise UnsafeExpression("operator not allowed")

    def _Compare(self, node):
        # only inside Piecewise conditions: one comparison a < b, a <= b, a > b, a >= b
        ops = {ast.Lt: sp.StrictLessThan, ast.LtE: sp.LessThan,
               ast.Gt: sp.StrictGreaterThan, ast.GtE: sp.GreaterThan}
        if len(node.ops) != 1 or type(node.ops[0]) not in ops:
            raise UnsafeExpression("only one comparison <, <=, >, >= is allowed in a condition")
        return ops[type(node.ops[0])](self.build(node.left), self.build(node.comparators[0]))

    def _List(self, node):
        if len(node.elts) > 400:
            raise UnsafeExpression("list too long")
        return [self.build(e) for e in node.elts]

    _Tuple = _List

    def _Call(self, node):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            called = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)[:40]
            raise UnsafeExpression(
                f"the function {called!r} is not allowed in an answer; allowed: "
                + ", ".join(sorted(_ELEMENTARY + ("Max", "Min", "Piecewise"))))
        name = node.func.id
        if name == "Symbol":
            return self._symbol(node)
        if name in ("Integer", "Rational", "Float"):
            return self._number(name, node)
        if node.keywords:
            raise UnsafeExpression(f"{name}() takes no keyword arguments here")
        if len(node.args) > 400:
            raise UnsafeExpression("too many arguments")
        args = [self.build(a) for a in node.args]
        try:
            return _check_number(_FUNCTIONS[name](*args))
        except UnsafeExpression:
            raise
        except Exception as exc:
            raise UnsafeExpression(f"could not build {name}(...): {type(exc).__name__}") from None

    def _symbol(self, node):
        if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant) or \
                type(node.args[0].value) is not str or not _NAME.match(node.args[0].value):
            raise UnsafeExpression("Symbol() needs a plain name")
        for kw in node.keywords:
            if kw.arg not in _ASSUMPTIONS and kw.arg != "commutative":
                raise UnsafeExpression(f"assumption {kw.arg!r} is not allowed")
            if not isinstance(kw.value, ast.Constant) or type(kw.value.value) is not bool:
                raise UnsafeExpression("assumptions must be True or False")
        # assumptions are dropped: answers are compared by symbol name
        return sp.Symbol(node.args[0].value)

    def _number(self, name, node):
        values = []
        for a in node.args:
            if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) and isinstance(a.operand, ast.Constant):
                v = a.operand.value
                v = -v if type(v) in (int, float) else None
            elif isinstance(a, ast.Constant):
                v = a.value
            else:
                v = None
            if type(v) not in (int, float, str):
                raise UnsafeExpression(f"{name}() needs literal numbers")
            if type(v) is int and abs(v) > MAX_INT:
                raise UnsafeExpression("an integer in the expression is too large")
            if type(v) is str and (len(v) > 40 or not re.fullmatch(r"[-+0-9.eE]+", v)):
                raise UnsafeExpression(f"{name}() got a malformed number")
            if type(v) is str:
                # check the magnitude with Python's float first: sympy would spend
                # minutes converting a string such as '1e999999'
                try:
                    magnitude = abs(float(v))
                except ValueError:
                    raise UnsafeExpression(f"{name}() got a malformed number") from None
                underflow = magnitude == 0 and re.search(r"[1-9]", v.split("e")[0].split("E")[0])
                if not math.isfinite(magnitude) or magnitude > 1e300 or magnitude and magnitude < 1e-300 \
                        or underflow:
                    raise UnsafeExpression("a number in the expression is out of range")
            values.append(v)
        for kw in node.keywords:  # Float('0.5', precision=53)
            if not (name == "Float" and kw.arg == "precision" and isinstance(kw.value, ast.Constant)
                    and type(kw.value.value) is int and 1 <= kw.value.value <= 200):
                raise UnsafeExpression(f"{name}() keyword not allowed")
        if name == "Integer" and len(values) == 1 and type(values[0]) is int:
            return sp.Integer(values[0])
        if name == "Rational" and len(values) == 2 and all(type(v) is int for v in values):
            if values[1] == 0:
                raise UnsafeExpression("Rational with zero denominator")
            return sp.Rational(values[0], values[1])
        if name == "Float" and len(values) == 1:
            value = sp.Float(values[0])
            if not value.is_finite or abs(value) > 1e300:
                raise UnsafeExpression("a number in the expression is too large")
            return value
        raise UnsafeExpression(f"malformed {name}()")


def parse_expr_safely(text):
    """Build a sympy object from ``srepr``/``str`` text using a whitelist.

    Raises
    ------
    UnsafeExpression
        If the text contains anything else than numbers, symbol names,
        ``+ - * / **`` and calls of the allowed functions, or is too large.
    """
    if not isinstance(text, str):
        raise UnsafeExpression("expected the text of an expression")
    if len(text) > MAX_TEXT:
        raise UnsafeExpression("the expression is too long")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise UnsafeExpression("the expression is not valid syntax") from None
    try:
        # the grader's own process builds it: sympy's automatic simplification must not
        # keep it busy for long whatever the text
        with time_limit(PARSE_TIMEOUT):
            return _Builder().build(tree)
    except RecursionError:
        raise UnsafeExpression("the expression is nested too deeply") from None
    except TimeoutError:
        raise UnsafeExpression(f"your expression took too long to read (more than "
                               f"{PARSE_TIMEOUT:.0f} s)") from None


_EXPECTED = {}


def _expected_values(expected, point):
    """The expected answer at ``point``, computed once per grader process (a class of
    submissions reuses the same test points)."""
    key = (expected, tuple(sorted((s.name, str(v)) for s, v in point.items())))
    if key not in _EXPECTED:
        if len(_EXPECTED) > 4096:
            _EXPECTED.clear()
        if isinstance(expected, sp.MatrixBase):
            _EXPECTED[key] = [complex(v) for v in expected.xreplace(point).evalf(30)]
        else:
            _EXPECTED[key] = [_numeric(expected, point)]
    return _EXPECTED[key]


def _numeric(expr, point):
    value = complex(expr.xreplace(point).evalf(30))
    return value


def compare_expr(got, expected, symbols, *, positive=(), n_points=4, seed=0, timeout=10.0):
    """Check that ``got`` equals ``expected`` as functions of ``symbols``.

    Parameters
    ----------
    got, expected : sympy expressions or matrices
        ``got`` has already been built by :func:`parse_expr_safely`.
    symbols : list of str
        The names the answer may use.
    positive : list of str
        Names that take only positive values at the random test points.

    Returns
    -------
    (bool, str)
        Whether they are equal, and a message for the student when not.
    """
    allowed = {sp.Symbol(n) for n in symbols}
    expected = expected.xreplace({s: sp.Symbol(s.name) for s in expected.free_symbols})
    if isinstance(expected, sp.MatrixBase):
        expected = sp.ImmutableMatrix(expected)  # hashable: its values are cached per point
    if isinstance(got, list):
        got = sp.ImmutableMatrix(got)
    # symbols are compared by name: an answer built with sp.symbols("a1", real=True) is the
    # same answer as one built without assumptions
    got = got.xreplace({s: sp.Symbol(s.name) for s in getattr(got, "free_symbols", set())
                        if isinstance(s, sp.Symbol)})
    if isinstance(expected, sp.MatrixBase) != isinstance(got, sp.MatrixBase):
        kind = "a Matrix" if isinstance(expected, sp.MatrixBase) else "a scalar expression"
        return False, f"expected {kind}"
    if isinstance(expected, sp.MatrixBase) and got.shape != expected.shape:
        return False, f"expected a Matrix of shape {expected.shape}, got shape {got.shape}"
    free = getattr(got, "free_symbols", set())
    extra = sorted(s.name for s in free - allowed)
    if extra:
        return False, f"the answer uses unknown symbols {extra}; use only {sorted(symbols)}"
    diff = got - expected
    rng = random.Random(seed)
    for _ in range(n_points):
        point = {}
        for name in symbols:
            mag = rng.uniform(0.3, 1.7)
            sign = 1 if name in positive or rng.random() < 0.5 else -1
            point[sp.Symbol(name)] = sp.Float(sign * mag, 30)
        try:
            with time_limit(timeout):
                if isinstance(diff, sp.MatrixBase):
                    g = [complex(v) for v in got.xreplace(point).evalf(30)]
                else:
                    g = [_numeric(got, point)]
                e = _expected_values(expected, point)
        except TimeoutError:
            return False, "the answer could not be evaluated in time"
        except (TypeError, ValueError, ArithmeticError):
            return False, "the answer cannot be evaluated to a number at some points"
        for gv, ev in zip(g, e):
            if not (math.isfinite(gv.real) and math.isfinite(gv.imag)):
                return False, "the answer is not finite at some points where it should be"
            if abs(gv - ev) > 1e-9 * (1 + abs(ev)):
                pt = ", ".join(f"{k}={float(v):.3g}" for k, v in point.items())
                return False, f"the answer differs from the correct expression at {pt}"
    def is_zero(expr):
        return (expr == sp.zeros(*diff.shape)) if isinstance(diff, sp.MatrixBase) else expr == 0

    try:
        with time_limit(timeout):
            # expand settles polynomial and rational answers exactly and fast; simplify the rest
            zero = is_zero(sp.expand(diff)) or is_zero(sp.simplify(diff))
    except TimeoutError:
        zero = None
    if zero:
        return True, "equal (symbolically)"
    # simplify is incomplete: agreement at many random points is then accepted
    try:
        with time_limit(timeout):
            for _ in range(3 * n_points):
                point = {sp.Symbol(n): sp.Float((1 if n in positive or rng.random() < 0.5 else -1)
                                                * rng.uniform(0.2, 2.5), 30) for n in symbols}
                vals = diff.xreplace(point).evalf(30)
                vals = list(vals) if isinstance(vals, sp.MatrixBase) else [vals]
                if any(abs(complex(v)) > 1e-12 for v in vals):
                    return False, "the answer differs from the correct expression at some points"
    except TimeoutError:
        return False, "the answer could not be checked in time"
    except (TypeError, ValueError, ArithmeticError):
        return False, "the answer cannot be evaluated to a number at some points"
    return True, "equal (numerically at many random points)"
