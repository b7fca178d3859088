"""linclf: linear classifiers from scratch in numpy.

The companion library of the executable textbook *Linear Classifiers*. Every
estimator follows scikit-learn's API (``fit``/``predict``/``decision_function``/
``score``, fitted attributes ending in ``_``) and uses the book's notation.

Submodules that need more than numpy are not imported here:
:mod:`linclf.plotting` and :mod:`linclf.interactive` (matplotlib). The
exercise sets and the grader are a separate package, :mod:`linclf_grader`,
installed alongside (``pip install .`` brings both).
"""

from . import calibration, datasets, kernels, losses, special
from ._validation import ConvergenceWarning, NotFittedError
from .fisher import FisherLDA
from .geometry import augment, normalize_augmented, signed_distance
from .kernel_perceptron import KernelPerceptron
from .kernel_ridge import KernelRidgeClassifier
from .least_squares import HoKashyap, LeastSquaresClassifier
from .logistic import LogisticRegression, wald_table
from .multiclass import OneVsOne, OneVsRest, ambiguous_fraction
from .perceptron import AveragedPerceptron, LinearMachine, Perceptron, VotedPerceptron
from .pocket import PocketPerceptron
from .ramp import RampSVM
from .softmax import SoftmaxRegression
from .svm import SVC, LinearSVM

__version__ = "0.1.0"

__all__ = [
    "AveragedPerceptron",
    "ConvergenceWarning",
    "FisherLDA",
    "KernelPerceptron",
    "KernelRidgeClassifier",
    "LeastSquaresClassifier",
    "HoKashyap",
    "LinearMachine",
    "LinearSVM",
    "LogisticRegression",
    "NotFittedError",
    "OneVsOne",
    "OneVsRest",
    "Perceptron",
    "PocketPerceptron",
    "RampSVM",
    "SVC",
    "SoftmaxRegression",
    "VotedPerceptron",
    "__version__",
    "ambiguous_fraction",
    "augment",
    "calibration",
    "datasets",
    "kernels",
    "losses",
    "normalize_augmented",
    "signed_distance",
    "special",
    "wald_table",
]
