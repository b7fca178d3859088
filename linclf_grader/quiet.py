"""Assertion helpers whose failure messages never show the expected value (issue 20, item 5).

For answers that must not be printed: constant answers (the same for every student) and
values computed for the student's own (variant) data.  A message says what is wrong, which
entry, and the size of the error, and nothing from which the answer can be read off.
Also :func:`assert_no_warnings`, for docstrings that promise "without warnings".
"""

from __future__ import annotations

import math

import numpy as np

from .framework import as_array, as_float, fail as _fail
from .values import describe, type_name


def order_of(x):
    """``"of order 1e-03"``: the size of an error, without the digits that would give the answer away."""
    x = abs(float(x))
    if x == 0 or not math.isfinite(x):
        return repr(x)
    return f"of order 1e{math.floor(math.log10(x)):+03d}"


def assert_close_quiet(got, expected, what="the result", *, rtol=1e-7, atol=1e-9):
    """:func:`assert_close` whose failure message never shows ``expected``.

    For answers that must not be printed: constant answers, and expected values
    computed for the student's own data.  The message names the first wrong
    entry, how many entries are wrong and the size of the error.
    """
    expected = np.asarray(expected, dtype=np.float64)
    if expected.ndim == 0:
        value = as_float(got, what)
        if not math.isclose(value, float(expected), rel_tol=rtol, abs_tol=atol):
            _fail(f"{what}: {value:.10g} is wrong, by an error {order_of(value - float(expected))} "
                  f"(tolerance rtol={rtol:g}, atol={atol:g})")
        return value
    arr = as_array(got, expected.shape, what)
    bad = ~np.isclose(arr, expected, rtol=rtol, atol=atol)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        err = float(arr[first] - expected[first])
        _fail(f"{what}: {int(bad.sum())} of {bad.size} entries are wrong; the first is at index "
              f"{first if len(first) > 1 else first[0]}, where you have {arr[first]:.10g}, "
              f"an error {order_of(err)} (tolerance rtol={rtol:g}, atol={atol:g})")
    return arr


def assert_equal_quiet(got, expected, what="the result"):
    """:func:`assert_equal` for integers and index arrays, without showing ``expected``."""
    expected_arr = np.asarray(expected)
    if expected_arr.ndim == 0:
        if isinstance(got, np.ndarray) and got.size == 1:
            got = got.reshape(())[()]
        if not isinstance(got, (int, np.integer, float, np.floating)) or isinstance(got, (bool, np.bool_)):
            _fail(f"{what} should be an integer, got {type_name(got)}")
        if got != expected:
            _fail(f"{what}: {describe(got)} is wrong")
        return got
    arr = as_array(got, None, what)
    if arr.ndim != expected_arr.ndim:
        _fail(f"{what} should be an array with {expected_arr.ndim} dimension(s), got shape {arr.shape}")
    if arr.shape == expected_arr.shape and np.array_equal(arr, expected_arr):
        return arr
    if expected_arr.ndim == 1 and np.all(arr == np.round(arr)):
        got_set, exp_set = set(arr.astype(int).tolist()), set(expected_arr.astype(int).tolist())
        extra, missing = len(got_set - exp_set), len(exp_set - got_set)
        if extra or missing:
            _fail(f"{what}: {extra} of your {len(got_set)} indices should not be there and "
                  f"{missing} are missing")
        _fail(f"{what}: the right indices, but not once each in increasing order")
    _fail(f"{what}: the answer is wrong (shape {arr.shape})")



def assert_no_warnings(f, what="the call"):
    """The last call of the student's function ``f`` emitted no warning (overflow included)."""
    if f.last_warnings:
        more = f" (and {len(f.last_warnings) - 1} more)" if len(f.last_warnings) > 1 else ""
        _fail(f"{what} emitted a warning: {f.last_warnings[0]}{more}")
