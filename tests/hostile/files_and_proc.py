"""Reads the reference solutions, the private tests and the parent's memory; deletes files.

Every function returns what it managed to learn as a wrong-typed value, so it scores 0;
`tests/test_grader_hostile.py` also checks that the files are intact.
"""
import glob
import os
import shutil
import socket


def _try(fn):
    try:
        return fn()
    except BaseException as exc:
        return type(exc).__name__


def perceptron_update(w, b, x, y, eta=1.0):
    here = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else "."
    for pattern in ["/work/main/exercises/solutions/*", "/work/main/tests/hostile/*",
                    os.path.join(here, "*")]:
        for path in glob.glob(pattern):
            _try(lambda: os.remove(path))
            _try(lambda: shutil.rmtree(path))
            _try(lambda: open(path, "w").write("pwned"))
    return None


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    ppid = os.getppid()
    return [_try(lambda: open(f"/proc/{ppid}/environ").read()),
            _try(lambda: open(f"/proc/{ppid}/mem", "rb").read(10)),
            _try(lambda: open("/work/main/exercises/solutions/perceptron.py").read())]


def batch_perceptron_step(w, b, X, y, eta=1.0):
    return _try(lambda: socket.create_connection(("pypi.org", 443), timeout=2))


def novikoff_bound(X, y, w, b):
    return _try(lambda: os.listdir("/root"))
