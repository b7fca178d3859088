"""The assertion helpers tests use, and the error a student's function raises.

Each helper raises ``AssertionError`` with a message that names the quantity, the
expected and the obtained value and the tolerance (never more than the student may see).
"""

from __future__ import annotations

import copy
import math

import numpy as np

from .values import SympyText, describe, exact_number, type_name


# --------------------------------------------------------------------------
# errors seen by tests
# --------------------------------------------------------------------------
class StudentError(Exception):
    """The student's function raised, timed out, or returned unusable data."""

    def __init__(self, message, *, kind="error"):
        super().__init__(message)
        self.kind = kind  # "error", "not-implemented", "timeout", "crash", "missing"



# --------------------------------------------------------------------------
# assertion helpers
# --------------------------------------------------------------------------
def fail(msg):
    """Fail the current test with ``msg`` (what a student sees); for checks the helpers do not cover."""
    raise AssertionError(msg)


_fail = fail


def as_array(got, shape=None, what="the result", *, kind="numeric"):
    """``got`` as a finite float array (of ``shape``), or fail with a clear message.

    Exact answers are numbers too: sympy Rationals (alone, in a list or a Matrix)
    and ``fractions.Fraction`` (which arrive as floats).
    """
    got = exact_number(got)
    if isinstance(got, (SympyText, str, dict)) or got is None:
        _fail(f"{what} should be a numpy array, got {type_name(got)}")
    if isinstance(got, np.ndarray):
        arr = got
    else:
        try:
            arr = np.asarray(got, dtype=np.float64)
        except (TypeError, ValueError):
            _fail(f"{what} should be a numpy array of numbers, got {type_name(got)}")
    if arr.dtype.kind == "b" and kind == "numeric":
        arr = arr.astype(np.float64)
    if arr.dtype.kind not in "biuf":
        _fail(f"{what} should hold numbers, got dtype {arr.dtype}")
    if shape is not None and arr.shape != tuple(shape):
        _fail(f"{what} should have shape {tuple(shape)}, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        _fail(f"{what} contains NaN or infinity: {describe(arr)}")
    return arr


def as_float(got, what="the result"):
    """``got`` as a finite Python float (a number, numpy scalar or size-1 array)."""
    got = exact_number(got)
    if isinstance(got, bool) or isinstance(got, (SympyText, str)) or got is None:
        _fail(f"{what} should be a number, got {type_name(got)}")
    if isinstance(got, np.ndarray):
        if got.size != 1:
            _fail(f"{what} should be a single number, got {type_name(got)}")
        got = got.reshape(())[()]
    if isinstance(got, (int, float, np.integer, np.floating)):
        value = float(got)
    else:
        _fail(f"{what} should be a number, got {type_name(got)}")
    if not math.isfinite(value):
        _fail(f"{what} should be finite, got {value}")
    return value


def unpack(got, n, what="the result"):
    """``got`` as a sequence of exactly ``n`` items (a returned tuple arrives as a list)."""
    if not isinstance(got, list) or len(got) != n:
        _fail(f"{what} should be a tuple of {n} values, got {type_name(got)}")
    return got


def order_of(x):
    """``"of order 1e-03"``: the size of an error, without the digits that would give the answer away."""
    x = abs(float(x))
    if x == 0 or not math.isfinite(x):
        return repr(x)
    return f"of order 1e{math.floor(math.log10(x)):+03d}"


def assert_close(got, expected, what="the result", *, rtol=1e-7, atol=1e-9, quiet=False):
    """Array (or scalar) ``got`` equals ``expected`` within ``rtol``/``atol``.

    With ``quiet=True`` the failure message never shows ``expected`` (a constant
    answer, or a value computed for the student's own data): it names the first
    wrong entry, how many are wrong and the size of the error.
    """
    expected = np.asarray(expected, dtype=np.float64)
    tol = f"(tolerance rtol={rtol:g}, atol={atol:g})"
    if expected.ndim == 0:
        value = as_float(got, what)
        if not math.isclose(value, float(expected), rel_tol=rtol, abs_tol=atol):
            if quiet:
                _fail(f"{what}: {value:.10g} is wrong, by an error "
                      f"{order_of(value - float(expected))} {tol}")
            _fail(f"{what}: expected {float(expected):.10g}, got {value:.10g} {tol}")
        return value
    # feedback describes what the student returned (its dtype), not the float64 copy
    arr = as_array(got, expected.shape, what)
    bad = ~np.isclose(arr, expected, rtol=rtol, atol=atol)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        where = first if len(first) > 1 else first[0]
        if quiet:
            _fail(f"{what}: {int(bad.sum())} of {bad.size} entries are wrong; the first is at "
                  f"index {where}, where you have {arr[first]:.10g}, an error "
                  f"{order_of(float(arr[first] - expected[first]))} {tol}")
        _fail(f"{what}: expected {describe(expected)}, got {describe(got)}; "
              f"first mismatch at index {where} {tol}")
    return arr


def assert_direction(got, expected, what="the direction", *, tol=1e-7):
    """``got`` is a positive multiple of ``expected`` (any length, same orientation)."""
    expected = np.asarray(expected, dtype=np.float64)
    arr = as_array(got, expected.shape, what)
    norm = np.linalg.norm(arr)
    if norm == 0:
        _fail(f"{what} is the zero vector")
    cos = float(arr @ expected / (norm * np.linalg.norm(expected)))
    if cos < 1 - tol:
        hint = " (it points the opposite way)" if cos < -1 + tol else ""
        _fail(f"{what}: expected a positive multiple of {describe(expected)}, got {describe(got)}; "
              f"cosine of the angle between them = {cos:.8f}, needs > {1 - tol}{hint}")
    return arr


def assert_equal(got, expected, what="the result"):
    """Exact equality for integers, booleans and integer arrays."""
    expected_arr = np.asarray(expected)
    if expected_arr.ndim == 0:
        if isinstance(got, np.ndarray) and got.size == 1:
            got = got.reshape(())[()]
        if isinstance(expected, (bool, np.bool_)):
            # numpy comparisons return np.bool_, which is not a Python bool: accept both
            if not isinstance(got, (bool, np.bool_)):
                _fail(f"{what} should be True or False, got {type_name(got)}")
            if bool(got) != bool(expected):
                _fail(f"{what}: expected {bool(expected)!r}, got {bool(got)!r}")
            return bool(got)
        if not isinstance(got, (int, np.integer, float, np.floating)) or isinstance(got, (bool, np.bool_)):
            _fail(f"{what} should be an integer, got {type_name(got)}")
        if got != expected:
            _fail(f"{what}: expected {expected!r}, got {describe(got)}")
        return got
    arr = as_array(got, expected_arr.shape, what)
    if not np.array_equal(arr, expected_arr):
        idx = tuple(int(i) for i in np.argwhere(arr != expected_arr)[0])
        _fail(f"{what}: expected {describe(expected_arr)}, got {describe(got)}; "
              f"first mismatch at index {idx if len(idx) > 1 else idx[0]}")
    return arr


def read_expr(got, what="the expression", *, matrix=False):
    """A returned sympy answer (it arrives as text) rebuilt safely, or fail with a clear message.

    ``matrix`` says whether a Matrix is expected (True), a scalar expression (False),
    or either (None).
    """
    from .symbolic import UnsafeExpression, parse_expr_safely

    kind = "Matrix" if matrix else "expression"
    if got is None or not isinstance(got, str):
        fail(f"{what} should be a sympy {kind}, got {type_name(got)}")
    try:
        expr = parse_expr_safely(str(got))
    except UnsafeExpression as exc:
        fail(f"{what} could not be read: {exc}")
    if matrix is not None and bool(getattr(expr, "is_Matrix", False)) != matrix:
        fail(f"{what} should be a {'Matrix' if matrix else 'scalar expression, not a Matrix'}")
    return expr


def assert_expr(got, expected, symbols, what="the expression", *, positive=()):
    """``got`` (a returned sympy object) equals ``expected`` (sympy text) symbolically.

    ``got`` is rebuilt with :func:`linclf_grader.symbolic.parse_expr_safely`
    (never ``eval``); a plain string answer is accepted too.
    """
    from .symbolic import compare_expr, parse_expr_safely

    got_expr = read_expr(got, what, matrix=None)   # compare_expr checks Matrix against scalar
    expected_expr = parse_expr_safely(expected)
    ok, msg = compare_expr(got_expr, expected_expr, symbols, positive=positive)
    if not ok:
        _fail(f"{what}: {msg}")


def assert_raises(f, exception, *args, **kwargs):
    """Calling ``f(*args, **kwargs)`` must raise ``exception`` (given by class name)."""
    try:
        got = f(*args, **kwargs)
    except StudentError as exc:
        text = str(exc)
        if f" raised {exception}:" in text or text.startswith(f"{exception}:") or \
                f" raised {exception}\n" in text or text.endswith(f" raised {exception}"):
            return
        raise AssertionError(f"expected {exception} to be raised, but: {text}") from None
    _fail(f"expected {exception} to be raised, but the call returned {type_name(got)}")
