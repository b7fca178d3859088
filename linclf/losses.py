r"""Classification losses as functions of the margin :math:`m = y\,f(\mathbf{x})`.

With labels :math:`y \in \{-1, +1\}` and a real-valued score :math:`f`, a
sample is classified correctly when :math:`m > 0`. Each loss below is a
vectorised function of ``m`` with a companion ``*_grad`` returning
:math:`\mathrm{d}\ell/\mathrm{d}m`; by the chain rule the gradient with
respect to the weights of a linear model is
:math:`\ell'(m)\,y\,\tilde{\mathbf{x}}`.

Where a loss has a kink the ``*_grad`` function returns one element of the
subdifferential, chosen so that a point *at* the kink is treated as still
violating the condition (it keeps the slope of the side that penalises):

=================  ============================  ===========================================
name               :math:`\ell(m)`                derivative (value at the kink)
=================  ============================  ===========================================
``zero_one``       :math:`[m \le 0]`              0 (no useful gradient anywhere)
``perceptron``     :math:`\max(0, -m)`            :math:`-[m \le 0]` (so -1 at m = 0, which is
                                                  what lets a perceptron started at w = 0 move)
``hinge``          :math:`\max(0, 1 - m)`         :math:`-[m \le 1]` (-1 at m = 1)
``squared_hinge``  :math:`\max(0, 1 - m)^2`       :math:`-2\max(0, 1 - m)` (differentiable)
``logistic``       :math:`\ln(1 + e^{-m})`        :math:`-\sigma(-m)`
``logistic_base2`` :math:`\log_2(1 + e^{-m})`     :math:`-\sigma(-m)/\ln 2`
``squared``        :math:`(1 - m)^2`              :math:`-2(1 - m)`
``exponential``    :math:`e^{-m}`                 :math:`-e^{-m}`
=================  ============================  ===========================================

The zero-one loss counts :math:`m = 0` (a point on the boundary) as an error.
``logistic_base2`` passes through :math:`(0, 1)` and upper-bounds the zero-one
loss everywhere, as do the hinge, squared hinge, squared and exponential losses.

Numerics: all functions are exact to rounding for any finite margin and never
emit a warning. The only values that are not finite are those that exceed the
largest double (about 1.8e308): the exponential loss and its derivative for
:math:`m < -709.78`, and the squared losses for :math:`|m| > 1.3\times 10^{154}`.
They return ``inf`` (or ``-inf``), the correctly rounded result, silently.
NaN margins raise ``ValueError``.
"""

from __future__ import annotations

import functools

import numpy as np

from .special import log_sigmoid, sigmoid

__all__ = [
    "zero_one", "zero_one_grad",
    "perceptron", "perceptron_grad",
    "hinge", "hinge_grad",
    "squared_hinge", "squared_hinge_grad",
    "logistic", "logistic_grad",
    "logistic_base2", "logistic_base2_grad",
    "squared", "squared_grad",
    "exponential", "exponential_grad",
    "ramp", "ramp_grad",
    "LOSSES",
]

_LN2 = np.log(2.0)


def _margin(m):
    arr = np.asarray(m)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"the margin m must contain real numbers; got dtype {arr.dtype}.")
    arr = arr.astype(np.float64, copy=False)
    if np.any(np.isnan(arr)):
        raise ValueError("the margin m contains NaN.")
    return arr


def _out(arr):
    arr = arr + 0.0  # turn -0.0 (from negations) into 0.0
    return arr[()] if arr.ndim == 0 else arr


def _overflow_to_inf(func):
    # Squares and exponentials of huge margins exceed the largest double; inf is
    # then the correctly rounded value, so return it without a RuntimeWarning.
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with np.errstate(over="ignore"):
            return func(*args, **kwargs)

    return wrapper


@_overflow_to_inf
def zero_one(m):
    r"""Zero-one loss :math:`[m \le 0]`: 1 for a mistake (or a tie), else 0.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out((_margin(m) <= 0).astype(np.float64))


@_overflow_to_inf
def zero_one_grad(m):
    r"""Derivative of :func:`zero_one`: 0 wherever it exists; 0 also at m = 0 by convention.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(np.zeros_like(_margin(m)))


@_overflow_to_inf
def perceptron(m):
    r"""Perceptron criterion :math:`\max(0, -m)`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(np.maximum(0.0, -_margin(m)))


@_overflow_to_inf
def perceptron_grad(m):
    r"""Subgradient of :func:`perceptron`: :math:`-1` for :math:`m \le 0`, else 0.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(-(_margin(m) <= 0).astype(np.float64))


@_overflow_to_inf
def hinge(m):
    r"""Hinge loss :math:`\max(0, 1 - m)` of the soft-margin SVM.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(np.maximum(0.0, 1.0 - _margin(m)))


@_overflow_to_inf
def hinge_grad(m):
    r"""Subgradient of :func:`hinge`: :math:`-1` for :math:`m \le 1`, else 0.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(-(_margin(m) <= 1).astype(np.float64))


@_overflow_to_inf
def squared_hinge(m):
    r"""Squared hinge loss :math:`\max(0, 1 - m)^2`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(np.maximum(0.0, 1.0 - _margin(m)) ** 2)


@_overflow_to_inf
def squared_hinge_grad(m):
    r"""Derivative of :func:`squared_hinge`: :math:`-2\max(0, 1 - m)`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(-2.0 * np.maximum(0.0, 1.0 - _margin(m)))


@_overflow_to_inf
def logistic(m, *, base=None):
    r"""Logistic loss :math:`\log(1 + e^{-m})`, natural log by default.

    Computed as :math:`-\log\sigma(m)`, which is stable at any magnitude
    (it returns :math:`\approx -m` for very negative ``m``, not ``inf``).

    Parameters
    ----------
    m : array_like
    base : float > 1 or None, default=None
        Base of the logarithm; ``None`` means :math:`e`. With ``base=2`` the
        loss equals 1 at :math:`m = 0` and upper-bounds the zero-one loss.

    Returns
    -------
    ndarray of float
    """
    out = -log_sigmoid(_margin(m))
    if base is not None:
        out = out / _log_base(base)
    return _out(np.asarray(out))


@_overflow_to_inf
def logistic_grad(m, *, base=None):
    r"""Derivative of :func:`logistic`: :math:`-\sigma(-m)` (divided by :math:`\ln` base).

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.
    base : float > 1 or None, default=None
        Base of the logarithm, as in :func:`logistic`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    out = -sigmoid(-_margin(m))
    if base is not None:
        out = out / _log_base(base)
    return _out(np.asarray(out))


def _log_base(base):
    if isinstance(base, bool) or not isinstance(base, (int, float, np.number)) or not base > 1:
        raise ValueError(f"base must be a number > 1 (or None for e); got {base!r}.")
    return np.log(float(base))


@_overflow_to_inf
def logistic_base2(m):
    r"""Logistic loss in bits, :math:`\log_2(1 + e^{-m}) = \ln(1 + e^{-m})/\ln 2`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return logistic(m) / _LN2


@_overflow_to_inf
def logistic_base2_grad(m):
    r"""Derivative of :func:`logistic_base2`: :math:`-\sigma(-m)/\ln 2`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return logistic_grad(m) / _LN2


@_overflow_to_inf
def squared(m):
    r"""Squared loss :math:`(1 - m)^2 = (y - f)^2` for :math:`y \in \{\pm 1\}`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out((1.0 - _margin(m)) ** 2)


@_overflow_to_inf
def squared_grad(m):
    r"""Derivative of :func:`squared`: :math:`-2(1 - m)`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(-2.0 * (1.0 - _margin(m)))


@_overflow_to_inf
def exponential(m):
    r"""Exponential loss :math:`e^{-m}` (AdaBoost's loss).

    Overflows to ``inf`` without a warning for :math:`m < -709.78`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(np.exp(-_margin(m)))


@_overflow_to_inf
def exponential_grad(m):
    r"""Derivative of :func:`exponential`: :math:`-e^{-m}`.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    return _out(-np.asarray(exponential(m)))


@_overflow_to_inf
def ramp(m, s=-1.0):
    r"""Ramp loss :math:`\min(1 - s, \max(0, 1 - m))`, the hinge loss capped at :math:`1 - s`.

    It is the difference of two hinges, :math:`H_1(m) - H_s(m)` with
    :math:`H_a(m) = \max(0, a - m)`, bounded and not convex. With the default
    :math:`s = -1` it lies between 0 and 2 and bounds the zero-one loss from above.
    Not in :data:`LOSSES`, whose members are the seven losses of chapter 11.

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.
    s : float, default=-1.0
        Where the ramp turns flat; must be below 1.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    s = _ramp_corner(s)
    return _out(np.minimum(1.0 - s, np.maximum(0.0, 1.0 - _margin(m))))


@_overflow_to_inf
def ramp_grad(m, s=-1.0):
    r"""Derivative of :func:`ramp`: :math:`-1` for :math:`s < m \le 1`, else 0.

    At the kink :math:`m = 1` the penalising slope is kept (as for the hinge); at
    the corner :math:`m = s` the flat side is taken (0).

    Parameters
    ----------
    m : array_like
        Margins :math:`y f(\mathbf{x})`.
    s : float, default=-1.0
        Where the ramp turns flat; must be below 1.

    Returns
    -------
    ndarray of float (a numpy float for scalar input)
    """
    s = _ramp_corner(s)
    m = _margin(m)
    return _out(-((m > s) & (m <= 1.0)).astype(np.float64))


def _ramp_corner(s):
    if isinstance(s, bool) or not isinstance(s, (int, float, np.integer, np.floating)):
        raise TypeError(f"s must be a real number; got {type(s).__name__}.")
    if not np.isfinite(s) or s >= 1:
        raise ValueError(f"s must be a finite number below 1; got {s}.")
    return float(s)


#: name -> (loss, derivative with respect to the margin)
LOSSES = {
    "zero_one": (zero_one, zero_one_grad),
    "perceptron": (perceptron, perceptron_grad),
    "hinge": (hinge, hinge_grad),
    "squared_hinge": (squared_hinge, squared_hinge_grad),
    "logistic": (logistic, logistic_grad),
    "logistic_base2": (logistic_base2, logistic_base2_grad),
    "squared": (squared, squared_grad),
    "exponential": (exponential, exponential_grad),
}
