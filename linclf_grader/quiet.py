"""Assertion helpers whose failure messages never show the expected value (issue 20, item 5).

For answers that must not be printed: constant answers (the same for every student) and
values computed for the student's own (variant) data.  A message says what is wrong, which
entry, and the size of the error, and nothing from which the answer can be read off.
Also :func:`assert_no_warnings`, for docstrings that promise "without warnings".
"""

from __future__ import annotations

import numpy as np

from .framework import as_array, assert_close, fail as _fail, order_of  # noqa: F401 (sets use it)
from .values import describe, type_name


def assert_close_quiet(got, expected, what="the result", *, rtol=1e-7, atol=1e-9):
    """:func:`~linclf_grader.framework.assert_close` whose failure message never shows ``expected``."""
    return assert_close(got, expected, what, rtol=rtol, atol=atol, quiet=True)


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
