"""Every public function, class and method of linclf has a numpydoc docstring
with its Parameters and Returns sections (numpydoc's own validator, test-only)."""

import importlib
import inspect

import pytest

validate = pytest.importorskip("numpydoc.validate").validate

MODULES = ["base", "datasets", "display", "fisher", "geometry", "interactive", "kernel_perceptron", "kernel_ridge", "kernels",
           "least_squares", "logistic", "losses", "multiclass", "optim", "perceptron", "plotting", "pocket",
           "softmax", "special", "svm", "smo"]
# GL08 no docstring, PR01 a parameter not documented, PR02 a documented parameter that
# does not exist, RT01 no Returns section.
CODES = {"GL08", "PR01", "PR02", "RT01"}


def public_objects():
    for short in MODULES:
        name = f"linclf.{short}"
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            yield f"{name}.{attr}"
            if inspect.isclass(obj):
                for meth, f in vars(obj).items():
                    if not meth.startswith("_") and inspect.isfunction(f):
                        yield f"{name}.{attr}.{meth}"


def test_the_walk_finds_the_api():
    names = list(public_objects())
    assert "linclf.svm.SVC.fit" in names and "linclf.losses.hinge" in names
    assert len(names) > 120


@pytest.mark.parametrize("path", list(public_objects()))
def test_numpydoc_sections(path):
    errors = [f"{code}: {msg}" for code, msg in validate(path)["errors"] if code in CODES]
    assert not errors, errors
