"""Plain data between the trusted grader and the worker.

:func:`encode_args` prepares call arguments for the worker; :func:`decode_value`
rebuilds a returned value on the trusted side from JSON data only, checking
every tag, dtype and shape, so that what a test sees is always an exact
built-in type, a base ``numpy.ndarray`` (or numpy scalar) of a numeric dtype, or
a :class:`SympyText` still to be parsed by :mod:`linclf_grader.symbolic`.
"""

from __future__ import annotations

import base64
import math

import numpy as np

_DTYPES = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8"}
_MAX_NDIM = 8


class BadValue(ValueError):
    """A response that does not follow the value format."""


class SympyText(str):
    """The ``srepr`` text of a sympy object returned by student code.

    Kept as text until a test parses it with
    :func:`linclf_grader.symbolic.parse_expr_safely`.
    """

    __slots__ = ()

    def __repr__(self):
        return f"<sympy expression {str.__repr__(self)[:80]}>"


def encode_args(obj):
    """Encode trusted call arguments as JSON-compatible data."""
    if isinstance(obj, np.generic):
        return encode_args(obj.item())
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"cannot send an array of dtype {obj.dtype}")
        arr = obj if obj.dtype.kind == "b" else obj.astype(obj.dtype.newbyteorder("<"))
        return {"__ndarray__": base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii"),
                "dtype": arr.dtype.str, "shape": list(arr.shape)}
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, float):
        if math.isfinite(obj):
            return float(obj)
        return {"__float__": "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")}
    if isinstance(obj, tuple):
        return {"__tuple__": [encode_args(v) for v in obj]}
    if isinstance(obj, list):
        return [encode_args(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): encode_args(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (int, str)):
        return obj
    raise TypeError(f"cannot send a value of type {type(obj).__name__}")


def decode_value(obj, _depth=0):
    """Rebuild a returned value from untrusted JSON data (see module docstring)."""
    if _depth > 12:
        raise BadValue("value nested too deeply")
    t = type(obj)
    if obj is None or t in (bool, int, str):
        return obj
    if t is float:
        return obj
    if t is list:
        return [decode_value(v, _depth + 1) for v in obj]
    if t is not dict:
        raise BadValue(f"unexpected JSON type {t.__name__}")
    if "__ndarray__" in obj:
        return _decode_array(obj)
    if "__float__" in obj:
        text = obj["__float__"]
        if text not in ("nan", "inf", "-inf"):
            raise BadValue("bad float tag")
        return float(text)
    if "__sympy__" in obj:
        text = obj["__sympy__"]
        if type(text) is not str:
            raise BadValue("bad sympy tag")
        return SympyText(text)
    return {str(k): decode_value(v, _depth + 1) for k, v in obj.items()}


def _decode_array(obj):
    data, dtype, shape = obj.get("__ndarray__"), obj.get("dtype"), obj.get("shape")
    if type(data) is not str or type(dtype) is not str or dtype not in _DTYPES:
        raise BadValue("bad array encoding")
    if type(shape) is not list or len(shape) > _MAX_NDIM or any(
        type(n) is not int or n < 0 for n in shape
    ):
        raise BadValue("bad array shape")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError as exc:
        raise BadValue("bad array data") from exc
    dt = np.dtype(dtype)
    if math.prod(shape) * dt.itemsize != len(raw):
        raise BadValue("array data does not match its shape")
    arr = np.frombuffer(raw, dtype=dt).reshape(shape).astype(dt.newbyteorder("="))
    if obj.get("scalar") is True and arr.ndim == 0:
        # a numpy bool where a bool is asked (n_mistakes == 0) is a bool
        return bool(arr[()]) if arr.dtype.kind == "b" else arr[()]
    return arr


def exact_number(got):
    """A sympy number or Matrix of numbers returned where numbers are asked, as floats.

    Returns ``got`` unchanged when it is not such an answer (then the caller's
    message applies).
    """
    if isinstance(got, list):
        return [exact_number(v) for v in got]
    if not isinstance(got, SympyText):
        return got
    from .symbolic import UnsafeExpression, parse_expr_safely  # only now: it imports sympy

    try:
        expr = parse_expr_safely(str(got))
    except UnsafeExpression:
        return got
    try:
        if getattr(expr, "is_Matrix", False):
            if all(getattr(v, "is_number", False) and v.is_real for v in expr):
                return np.array(expr.tolist(), dtype=np.float64).reshape(
                    expr.shape if 1 not in expr.shape else (-1,))
        elif getattr(expr, "is_number", False) and expr.is_real:
            return float(expr)
    except (TypeError, ValueError, OverflowError):
        pass
    return got


def describe(value, limit=200):
    """A short, safe description of a (decoded, trusted-type) value for messages."""
    if isinstance(value, SympyText):
        return repr(value)
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=6, threshold=20, edgeitems=3, linewidth=100):
            text = np.array2string(value, separator=", ")
        text = f"array({text}, shape={value.shape}, dtype={value.dtype})"
    elif isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v, limit) for v in value[:6])
        more = ", ..." if len(value) > 6 else ""
        text = ("(" if isinstance(value, tuple) else "[") + inner + more + (")" if isinstance(value, tuple) else "]")
    else:
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def type_name(value):
    """The name of a decoded value's kind, for error messages."""
    if isinstance(value, SympyText):
        return "a sympy expression"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, np.generic):
        return f"a numpy {value.dtype} scalar"
    if value is None:
        return "None"
    if isinstance(value, list):
        return f"a sequence of length {len(value)}"
    return f"a {type(value).__name__}"
