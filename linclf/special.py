r"""Numerically stable sigmoid, log-sum-exp and softmax.

Logistic and softmax regression evaluate :math:`e^{z}` for scores :math:`z`
that can be in the thousands once the weights grow (for example on separable
data). Written naively, :math:`1/(1+e^{-z})` overflows for :math:`z < -709`
and :math:`\log\sum_k e^{z_k}` overflows as soon as one :math:`z_k > 709`. The
functions below are rearranged so that every exponential they evaluate has a
non-positive argument; they return finite, correctly rounded results for any
finite input and never emit a ``RuntimeWarning``.

Inputs are array_like of real numbers; NaN propagates (as it does for numpy's
own ufuncs) and ``±inf`` give the mathematically right limits where there is one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sigmoid", "log_sigmoid", "logsumexp", "softmax", "log_softmax"]


def _as_float_array(z, name):
    arr = np.asarray(z)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain real numbers; got an array of dtype {arr.dtype}.")
    return arr.astype(np.float64, copy=False)


def _scalar_or_array(out):
    # 0-d arrays become numpy floats, like numpy ufuncs do for scalar input.
    return out[()] if out.ndim == 0 else out


def sigmoid(z):
    r"""Logistic sigmoid :math:`\sigma(z) = 1/(1 + e^{-z})`, elementwise.

    Uses :math:`\sigma(z) = 1/(1+e^{-|z|})` for :math:`z \ge 0` and
    :math:`\sigma(z) = e^{-|z|}/(1+e^{-|z|})` for :math:`z < 0`, so that the
    exponential never overflows.

    Parameters
    ----------
    z : array_like of real numbers

    Returns
    -------
    ndarray of the same shape (a numpy float for scalar input), values in [0, 1]

    Examples
    --------
    >>> float(sigmoid(0.0))
    0.5
    >>> float(sigmoid(-1e4)), float(sigmoid(1e4))
    (0.0, 1.0)
    """
    z = _as_float_array(z, "z")
    e = np.exp(-np.abs(z))  # in [0, 1]: cannot overflow
    out = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return _scalar_or_array(out)


def log_sigmoid(z):
    r"""Log of the sigmoid, :math:`\log\sigma(z) = -\log(1 + e^{-z})`.

    Computed as :math:`\min(z, 0) - \log(1 + e^{-|z|})` with ``log1p``, which is
    exact to rounding for every finite ``z``: for :math:`z \to -\infty` it
    returns :math:`\approx z` instead of :math:`\log 0 = -\infty`.

    Parameters
    ----------
    z : array_like of real numbers

    Returns
    -------
    ndarray of the same shape (a numpy float for scalar input), values <= 0

    Examples
    --------
    >>> float(log_sigmoid(-1e4))
    -10000.0
    """
    z = _as_float_array(z, "z")
    out = np.minimum(z, 0.0) - np.log1p(np.exp(-np.abs(z)))
    return _scalar_or_array(out)


def logsumexp(Z, axis=None, keepdims=False):
    r"""Stable :math:`\log \sum_k e^{Z_k}` along ``axis``.

    Uses the identity :math:`\log\sum_k e^{Z_k} = m + \log\sum_k e^{Z_k - m}`
    with :math:`m = \max_k Z_k`: every exponent is then :math:`\le 0` and the
    largest term is exactly 1, so the sum lies in :math:`[1, K]`.

    Parameters
    ----------
    Z : array_like of real numbers
    axis : int, tuple of int or None, default=None
        Axis (axes) to reduce; ``None`` reduces over all entries.
    keepdims : bool, default=False
        Keep the reduced axes with length one (handy for broadcasting).

    Returns
    -------
    ndarray (a numpy float when the result is 0-d)

    Examples
    --------
    >>> float(logsumexp([1e4, 1e4]))  # 1e4 + log 2, where exp(1e4) overflows
    10000.69314718056
    """
    Z = _as_float_array(Z, "Z")
    m = np.max(Z, axis=axis, keepdims=True)
    # A row that is all -inf (or contains +inf) has no finite shift; shifting by
    # 0 there gives the right limit (-inf or +inf) without inf - inf = NaN.
    m = np.where(np.isfinite(m), m, 0.0)
    # Z - m can only overflow towards -inf (when Z is near -1.8e308 and m near
    # +1.8e308); exp(-inf) = 0 is then the exact contribution of that term.
    with np.errstate(over="ignore", divide="ignore"):
        out = np.log(np.sum(np.exp(Z - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        out = np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return _scalar_or_array(out)


def log_softmax(Z, axis=-1):
    r"""Log of the softmax, :math:`Z_k - \log\sum_j e^{Z_j}`, along ``axis``.

    Parameters
    ----------
    Z : array_like of real numbers, for example scores of shape (n_samples, K)
    axis : int, default=-1

    Returns
    -------
    ndarray of the same shape as ``Z``, values <= 0
    """
    Z = _as_float_array(Z, "Z")
    m = np.max(Z, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    # Subtract the shift first and log-sum-exp the shifted scores: the result is
    # exact even when |m| is huge, whereas Z - (m + log S) would lose the digits
    # of log S to the rounding of m + log S.
    with np.errstate(over="ignore", divide="ignore"):
        shifted = Z - m
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def softmax(Z, axis=-1):
    r"""Softmax :math:`p_k = e^{f_k} / \sum_j e^{f_j}` along ``axis``.

    The scores are shifted by their maximum first (softmax is invariant to
    adding a constant to every score), so the exponentials lie in
    :math:`(0, 1]` and the denominator in :math:`[1, K]`: no overflow and no
    division by zero. The outputs sum to 1 along ``axis`` up to rounding.

    Parameters
    ----------
    Z : array_like of real numbers, for example scores of shape (n_samples, K)
    axis : int, default=-1

    Returns
    -------
    ndarray of the same shape as ``Z``, values in [0, 1]

    Examples
    --------
    >>> softmax([[1e4, 1e4, -1e4]]).round(3).tolist()
    [[0.5, 0.5, 0.0]]
    """
    Z = _as_float_array(Z, "Z")
    m = np.max(Z, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(over="ignore"):
        E = np.exp(Z - m)
    return E / np.sum(E, axis=axis, keepdims=True)
