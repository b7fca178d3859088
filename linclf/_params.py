"""Hyper-parameters declared as data and checked in one place.

Every estimator lists what each constructor parameter may be in a class
attribute ``_parameter_constraints`` (as scikit-learn does), for example::

    _parameter_constraints = {
        "eta": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("integer", 1, None)],
        "solver": [Options("newton", "gd")],
    }

and ``fit`` starts with ``validate_params(self)``. One rule decides the
exception, so every estimator reports the same mistake the same way:

* a value of a type that no constraint admits (``max_iter=2.5``, ``eta="fast"``
  where only numbers are allowed, ``None``) is a :class:`TypeError`;
* a value of an admitted type that is out of range or not among the options
  (``max_iter=0``, ``solver="sgd"``) is a :class:`ValueError`.

Both messages name the estimator, the parameter, what is allowed and what was
given.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "Interval", "Options", "Instance", "Callable", "ArrayLike", "validate_params",
    "check_coef0", "check_degree",
]


def _is_real(value):
    return isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_))


class Interval:
    """Numbers between ``low`` and ``high`` (``None`` = unbounded).

    Parameters
    ----------
    kind : {"integer", "real"}
        ``"integer"`` admits ints and integral floats such as ``1e4`` (returned as int).
    low, high : float or None
    closed : {"both", "left", "right", "neither"}
        Which ends belong to the interval.
    """

    def __init__(self, kind, low=None, high=None, *, closed="both"):
        if kind not in ("integer", "real") or closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"bad Interval({kind!r}, closed={closed!r})")
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def admits_type(self, value):
        if not _is_real(value):
            return False
        if self.kind == "integer":
            return math.isfinite(value) and float(value).is_integer()
        return True

    def contains(self, value):
        if not self.admits_type(value) or math.isnan(value):
            return False
        low_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low)
        high_ok = (math.isfinite(value) if self.high is None else (
            value <= self.high if self.closed in ("both", "right") else value < self.high))
        return low_ok and high_ok

    def convert(self, value):
        return int(value) if self.kind == "integer" else float(value)

    def __str__(self):
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        noun = "an integer" if self.kind == "integer" else "a number"
        return f"{noun} in {left}{low}, {high}{right}"


def _same_kind(value, option):
    """Whether ``value`` may be compared with ``option`` by value.

    Numbers compare by value whatever their Python or numpy type, so
    ``np.float64(np.inf)`` (what a grid of C values holds) is the option
    ``inf`` and ``np.True_`` is ``True``; but a bool is never a number here,
    nor a number a bool, so ``1`` is not ``True``; an integer option admits
    only integral numbers.
    """
    if isinstance(option, (bool, np.bool_)):
        return isinstance(value, (bool, np.bool_))
    if _is_real(option):
        if not _is_real(value):
            return False
        if isinstance(option, (numbers.Integral, np.integer)):
            # an integer option (max_iter=-1) admits integral values only, so
            # 2.5 stays a TypeError as for Interval("integer")
            return math.isfinite(value) and float(value).is_integer()
        return True
    if isinstance(option, str):
        return isinstance(value, str)
    return type(value) is type(option)


class Options:
    """One of a few fixed values (strings, ``None``, booleans, numbers).

    A value matches an option of the same kind (see :func:`_same_kind`) that
    it equals; ``convert`` returns the option itself, so the estimator works
    with ``inf`` and ``True`` rather than their numpy counterparts.
    """

    def __init__(self, *values):
        self.values = values

    def _match(self, value):
        for v in self.values:
            if value is v:
                return v
            if _same_kind(value, v):
                try:
                    if bool(value == v):
                        return v
                except (TypeError, ValueError):
                    pass
        return None

    def admits_type(self, value):
        return any(_same_kind(value, v) for v in self.values)

    def contains(self, value):
        return any(value is v for v in self.values) or self._match(value) is not None

    def convert(self, value):
        return value if any(value is v for v in self.values) else self._match(value)

    def __str__(self):
        return "one of " + ", ".join(repr(v) for v in self.values)


class Instance:
    """An instance of one of the given classes (e.g. a random generator)."""

    def __init__(self, *classes):
        self.classes = classes

    def admits_type(self, value):
        return isinstance(value, self.classes)

    contains = admits_type

    def convert(self, value):
        return value

    def __str__(self):
        return "an instance of " + " or ".join(c.__name__ for c in self.classes)


class Callable:
    """A callable (e.g. a user kernel); what it returns is checked where it is called."""

    def admits_type(self, value):
        return callable(value)

    contains = admits_type

    def convert(self, value):
        return value

    def __str__(self):
        return "a callable"


class ArrayLike:
    """An array of numbers; its length and values are checked in ``fit``, which knows the data."""

    def admits_type(self, value):
        return isinstance(value, (list, tuple, np.ndarray))

    contains = admits_type

    def convert(self, value):
        return value

    def __str__(self):
        return "an array of numbers"


def validate_params(estimator):
    """Check every constructor parameter of ``estimator`` against its declaration.

    Returns
    -------
    dict
        Parameter name -> value, with integers as ``int`` and reals as ``float``.

    Raises
    ------
    TypeError
        A value whose type no constraint admits.
    ValueError
        A value of an admitted type outside every constraint.
    """
    checked = {}
    for name, allowed in type(estimator)._parameter_constraints.items():
        value = getattr(estimator, name)
        match = next((c for c in allowed if c.contains(value)), None)
        if match is not None:
            checked[name] = match.convert(value)
            continue
        wanted = " or ".join(str(c) for c in allowed)
        message = f"{type(estimator).__name__}: {name} must be {wanted}; got {value!r}."
        if any(c.admits_type(value) for c in allowed):
            raise ValueError(message)
        raise TypeError(message)
    return checked


# Scalar checks shared by the kernels and the explicit feature maps.


def check_coef0(coef0):
    """A finite real number (a kernel's constant :math:`c_0`)."""
    if isinstance(coef0, bool) or not isinstance(coef0, (numbers.Real, np.number)):
        raise TypeError(f"coef0 must be a real number; got {coef0!r}.")
    if not np.isfinite(coef0):
        raise ValueError(f"coef0 must be finite; got {coef0!r}.")
    return float(coef0)


def check_degree(degree):
    """A positive integer (an integral float such as ``3.0`` is accepted)."""
    if isinstance(degree, bool) or not isinstance(degree, (numbers.Integral, np.integer)):
        if isinstance(degree, (numbers.Real, np.number)) and float(degree).is_integer():
            degree = int(degree)
        else:
            raise TypeError(f"degree must be a positive integer; got {degree!r}.")
    if degree < 1:
        raise ValueError(f"degree must be a positive integer (>= 1); got {degree!r}.")
    return int(degree)
