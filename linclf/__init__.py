"""linclf: linear classifiers from scratch in numpy.

The companion library of the executable textbook *Linear Classifiers*. Every
estimator follows scikit-learn's API (``fit``/``predict``/``decision_function``/
``score``, fitted attributes ending in ``_``) and uses the book's notation.
"""

from ._validation import ConvergenceWarning, NotFittedError

__version__ = "0.1.0"

__all__ = ["ConvergenceWarning", "NotFittedError", "__version__"]
