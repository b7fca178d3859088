"""The sandboxed worker: runs one student's code and answers calls.

This file is executed as a script (``python -I -B _worker.py``) by
:mod:`linclf_grader.sandbox`; it never imports the rest of the grader, so the
process that runs untrusted code holds nothing but the submission and the
arguments of the calls it is asked to make.  It is also importable (the
in-process :func:`linclf_grader.check` uses :func:`encode_value` so that a
function checked in a notebook is judged on exactly what the grader would see).

Protocol: newline-delimited JSON on two private pipes.  The parent sends one
``init`` message (sandbox settings and the code cells), the worker reports
``cell`` events while it executes the cells and then ``ready``; after that each
``call`` request gets exactly one response.  Only plain data travels back:
``None``/bool/int/float/str, lists, dicts with string keys, numeric numpy arrays
(raw little-endian bytes + dtype + shape, never pickles) and sympy expressions
as ``srepr`` strings.  The trusted parent validates all of it.

Isolation, applied in :func:`_enter_sandbox` before any student code runs:
resource limits (address space, CPU seconds, file size, open files, no new
processes or threads), no stdin, an empty private working directory and, when
started as root, a private mount namespace with empty read-only tmpfs mounts
over the instructor's directories, no network, and a fresh unprivileged uid.
"""

from __future__ import annotations

import ast
import base64
import io
import json
import math
import os
import signal
import sys
import time
import traceback
import warnings

MAX_ARRAY_BYTES = 16 * 1024 * 1024
MAX_STR = 20_000
MAX_ITEMS = 10_000
MAX_DEPTH = 8
OUTPUT_CAP = 4_000

_ALLOWED_DTYPES = {"b": "bool", "i": None, "u": None, "f": None}


class EncodeError(TypeError):
    """A returned value is not plain data the grader can check."""


# --------------------------------------------------------------------------
# encoding of values (used by the worker and by the in-process check)
# --------------------------------------------------------------------------
def encode_value(value, _depth=0, _budget=None):
    """Turn a returned value into JSON-compatible plain data.

    Only exact built-in types are accepted (a ``float`` subclass is read
    through ``float.__float__`` of the base class, never through its own
    methods); numpy arrays and scalars become raw bytes with a whitelisted
    dtype; sympy objects become their ``srepr`` string.
    """
    if _budget is None:
        _budget = [MAX_ITEMS]
    _budget[0] -= 1
    if _budget[0] < 0:
        raise EncodeError("the returned value is too large (too many items)")
    if _depth > MAX_DEPTH:
        raise EncodeError("the returned value is nested too deeply")
    if value is None or type(value) is bool:
        return value
    if type(value) is int:
        if abs(value) > 2**63:
            raise EncodeError("the returned integer is too large")
        return value
    if type(value) is float:
        return _encode_float(value)
    if type(value) is str:
        if len(value) > MAX_STR:
            raise EncodeError("the returned string is too long")
        return value
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, (np.ndarray, np.generic)):
        return _encode_array(np, value)
    sp = sys.modules.get("sympy")
    if sp is not None and isinstance(value, (sp.Basic, sp.MatrixBase)):
        text = sp.srepr(value)
        if type(text) is not str or len(text) > MAX_STR:
            raise EncodeError("the returned sympy expression is too large")
        return {"__sympy__": str.__str__(text)}
    if type(value) in (list, tuple):
        return [encode_value(v, _depth + 1, _budget) for v in list.__iter__(list(value))]
    if type(value) is dict:
        out = {}
        for k, v in dict.items(value):
            if type(k) is not str:
                raise EncodeError("dictionary keys must be strings")
            out[str.__str__(k)] = encode_value(v, _depth + 1, _budget)
        return out
    if isinstance(value, float):
        # a float subclass: take the underlying C double, ignore its methods
        return _encode_float(float.__float__(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return encode_value(int.__index__(value), _depth, _budget)
    fractions = sys.modules.get("fractions")
    if fractions is not None and type(value) is fractions.Fraction:
        # "exact fractions" are accepted where numbers are asked: as the nearest float
        try:
            return _encode_float(int.__index__(value.numerator) / int.__index__(value.denominator))
        except (OverflowError, ZeroDivisionError):
            raise EncodeError("the returned fraction is too large") from None
    raise EncodeError(
        f"cannot check a value of type {type(value).__name__!s}; "
        "return numbers, numpy arrays, tuples/lists, or sympy expressions"
    )


def _encode_float(x):
    if math.isnan(x):
        return {"__float__": "nan"}
    if math.isinf(x):
        return {"__float__": "inf" if x > 0 else "-inf"}
    return x


def _encode_array(np, value):
    # np.array(..., copy=True) of a subclass or of a 0-d scalar gives a base
    # ndarray whose bytes we read directly; no method of a student subclass is
    # trusted on the other side anyway.
    arr = np.array(value, copy=True, subok=False)
    if type(arr) is not np.ndarray:
        arr = np.asarray(arr).view(np.ndarray)
    kind = arr.dtype.kind
    if kind == "O" and arr.ndim >= 1 and arr.size <= MAX_ITEMS:
        # an object array (of sympy Rationals, Fractions ...): its items one by one
        return [encode_value(v, 1) for v in arr.tolist()] if arr.ndim == 1 else \
            [_encode_array(np, row) for row in arr]
    if kind not in "biuf":
        raise EncodeError(f"cannot check an array of dtype {arr.dtype}; use numbers")
    if arr.nbytes > MAX_ARRAY_BYTES:
        raise EncodeError("the returned array is too large")
    if kind == "b":
        arr = arr.astype("|b1")
    else:
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return {
        "__ndarray__": base64.b64encode(arr.tobytes()).decode("ascii"),
        "dtype": arr.dtype.str,
        "shape": list(arr.shape),
        "scalar": bool(isinstance(value, np.generic)),
    }


def decode_args(obj):
    """Inverse of the parent's argument encoding (trusted data, in the worker)."""
    if isinstance(obj, dict):
        if "__ndarray__" in obj:
            import numpy as np

            raw = base64.b64decode(obj["__ndarray__"])
            arr = np.frombuffer(raw, dtype=np.dtype(obj["dtype"])).reshape(obj["shape"])
            return arr.copy()
        if "__float__" in obj:
            return float(obj["__float__"])
        if "__tuple__" in obj:
            return tuple(decode_args(v) for v in obj["__tuple__"])
        return {k: decode_args(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [decode_args(v) for v in obj]
    return obj


# --------------------------------------------------------------------------
# output capture
# --------------------------------------------------------------------------
class CappedWriter(io.TextIOBase):
    """A text stream that keeps the first ``cap`` characters and counts the rest."""

    def __init__(self, cap=OUTPUT_CAP):
        self._cap = cap
        self._parts = []
        self._kept = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = self._cap - self._kept
        if room > 0:
            self._parts.append(s[:room])
            self._kept += min(room, len(s))
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def getvalue(self):
        text = "".join(self._parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters of output dropped]"
        return text


# --------------------------------------------------------------------------
# the sandbox
# --------------------------------------------------------------------------
CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_BIND = 4096
MS_REMOUNT = 32
PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4


def _blocked_ancestor(path):
    """The first directory on the way to ``path`` that others cannot traverse."""
    parts = os.path.abspath(path).split(os.sep)[1:]
    current = os.sep
    for part in parts:
        current = os.path.join(current, part)
        try:
            st = os.stat(current)
        except OSError:
            return None
        if os.path.isdir(current) and not st.st_mode & 0o001:
            return current
    return None


def _expose(libc, paths):
    """Make ``paths`` reachable for an unprivileged uid inside the namespace.

    A directory on the way (such as a private ``/root`` holding the Python
    installation) is covered by an empty tmpfs in which only the needed paths
    are bind-mounted back; everything else in it stays invisible.
    """
    needed = sorted({os.path.realpath(p) for p in paths if os.path.isdir(p)}, key=len)
    roots = {}
    for p in needed:
        a = _blocked_ancestor(p)
        if a is not None and a != p:
            kept = roots.setdefault(a, [])
            if not any(p.startswith(q + os.sep) or p == q for q in kept):
                kept.append(p)
    ok = True
    for a, kept in roots.items():
        fds = [(p, os.open(p, os.O_PATH | os.O_DIRECTORY)) for p in kept]
        if libc.mount(b"tmpfs", os.fsencode(a), b"tmpfs", MS_NOSUID | MS_NODEV,
                      b"size=64k,mode=755") != 0:
            ok = False
            continue
        for p, fd in fds:
            os.makedirs(p, mode=0o755, exist_ok=True)
            src = f"/proc/self/fd/{fd}".encode()
            ok = ok and libc.mount(src, os.fsencode(p), None, MS_BIND | MS_REC, None) == 0
            os.close(fd)
        libc.mount(None, os.fsencode(a), None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
    return ok


def _enter_sandbox(cfg):
    """Apply the isolation described in the module docstring; return a report."""
    import resource

    report = {"namespace": False, "uid": os.getuid(), "rlimits": True}
    libc = None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except Exception:  # pragma: no cover - no libc (not Linux)
        libc = None

    if os.geteuid() == 0 and libc is not None and cfg.get("uid") is not None:
        if libc.unshare(CLONE_NEWNS | CLONE_NEWNET) == 0:
            if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) == 0:
                ok = _expose(libc, cfg.get("expose", []))
                for path in cfg.get("hide", []):
                    if os.path.isdir(path):
                        flags = MS_RDONLY | MS_NOSUID | MS_NODEV
                        rc = libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", flags,
                                        b"size=4k,mode=000")
                        ok = ok and rc == 0
                report["namespace"] = ok
    os.chdir(cfg["workdir"])

    limits = cfg.get("limits", {})
    mem = int(limits.get("memory", 1 << 30))
    cpu = int(limits.get("cpu", 60))
    fsize = int(limits.get("fsize", 1 << 20))
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    # a write beyond RLIMIT_FSIZE raises OSError instead of killing the worker
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    # No new processes or threads.  For an unprivileged uid the kernel then
    # refuses fork/clone (and, after setuid, execve) with EAGAIN.
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))

    if os.geteuid() == 0 and cfg.get("uid") is not None:
        uid = int(cfg["uid"])
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        if os.getuid() == 0 or os.geteuid() == 0:  # pragma: no cover - paranoia
            raise SystemError("could not drop root privileges")
        report["uid"] = uid
    if libc is not None:
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    return report


# --------------------------------------------------------------------------
# running code with a time limit
# --------------------------------------------------------------------------
class _TimeLimit(BaseException):
    """Raised in student code when its time is up."""


def _alarm(signum, frame):
    raise _TimeLimit()


def _run_limited(fn, seconds):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _short_error(exc, limit=1200):
    if isinstance(exc, _TimeLimit):
        return "TimeoutError: time limit exceeded"
    try:
        text = f"{type(exc).__name__}: {exc}"
    except BaseException:  # a hostile __str__
        text = f"{type(exc).__name__}"
    return text[:limit]


def _exec_cell(source, namespace, filename, seconds):
    """Execute one cell statement by statement; return an error string or None."""
    try:
        tree = ast.parse(source, filename=filename)
    except BaseException as exc:
        return "SyntaxError: " + _short_error(exc)
    error = None
    for node in tree.body:
        code = compile(ast.Module(body=[node], type_ignores=[]), filename, "exec")
        try:
            _run_limited(lambda: exec(code, namespace), seconds)
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: all ignored
            error = _short_error(exc)
            if isinstance(exc, _TimeLimit):
                break
    return error


_dumps, _loads, _write = json.dumps, json.loads, os.write


class Channel:
    """Newline-delimited JSON over two private file descriptors."""

    def __init__(self, fd_in, fd_out):
        self._in = os.fdopen(fd_in, "rb", buffering=0)
        self._out = fd_out
        self._buf = b""

    def send(self, obj):
        data = (_dumps(obj, allow_nan=True) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            n = _write(self._out, view)
            view = view[n:]

    def recv(self):
        while b"\n" not in self._buf:
            chunk = self._in.read(1 << 16)
            if not chunk:
                return None
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return _loads(line)


def _install_import_policy(policy):
    """Refuse, at run time, imports the rules forbid in this worker's exercises (linclf_grader.imports).

    ``linclf`` and ``linclf_grader`` become stubs (``check``/``student`` do
    nothing here): the submission never loads the library's implementations.
    An import is the submission's when the code asking for it is the
    submission's (a cell, or a string it executes); imports made by libraries
    themselves (scipy.stats importing scipy.optimize) are not refused.
    """
    import builtins
    import importlib.abc
    import types

    forbidden = tuple(policy.get("forbidden") or ())
    deny = frozenset(policy.get("deny") or ())
    grading = policy["grading"]
    package = types.ModuleType("linclf")
    package.__path__ = []
    stub = types.ModuleType(grading)
    stub.check = stub.student = lambda *args, **kwargs: None
    variants = policy.get("variants") or {}

    def my_data(exercise, student_id=None):
        # the grader computed this student's data; the submission cannot pick another id
        if exercise not in variants:
            raise ValueError(f"exercise {exercise!r} has no per-student data in this set")
        return decode_args(variants[exercise])

    stub.my_data = my_data
    sys.modules["linclf"], sys.modules[grading] = package, stub
    import_dir = os.path.dirname(importlib.abc.__file__)

    def refused(name):
        if name.split(".", 1)[0] == grading:
            return False
        return name.split(".", 1)[0] in deny or any(
            name == f or name.startswith(f + ".") for f in forbidden)

    skip_codes = set()

    def students(depth):
        frame = sys._getframe(depth)
        while frame is not None and (frame.f_code.co_filename.startswith("<frozen")
                                     or frame.f_code.co_filename.startswith(import_dir)
                                     or frame.f_code in skip_codes):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename.startswith("<")

    def check(name):
        if refused(name):
            raise ImportError(f"import of {name} is not allowed here ({policy['description']})")

    class Policy(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if students(2):
                check(name)
            return None

    real_import = builtins.__import__

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        # a module already loaded by a library skips the finders: check the name here too
        if level == 0 and students(2):
            check(name)
            for item in fromlist or ():
                if isinstance(item, str) and item != "*":
                    check(f"{name}.{item}")
        return real_import(name, globals, locals, fromlist, level)

    skip_codes.add(guarded_import.__code__)
    sys.meta_path.insert(0, Policy())
    builtins.__import__ = guarded_import


def main():
    # keep the protocol pipes on private descriptors; the student sees no stdin
    # and its low-level writes to fd 1/2 go to the (capped) stderr pipe
    chan = Channel(os.dup(0), os.dup(1))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = None

    cfg = chan.recv()
    if cfg is None or cfg.get("op") != "init":
        return 2
    try:
        report = _enter_sandbox(cfg)
    except BaseException as exc:
        chan.send({"event": "fatal", "error": "sandbox setup failed: " + _short_error(exc)})
        return 3
    chan.send({"event": "sandbox", **report})

    if cfg.get("imports"):
        _install_import_policy(cfg["imports"])
    namespace = {"__name__": "__submission__", "__builtins__": __builtins__}
    cell_errors = {}
    real_stdout, real_stderr = sys.stdout, sys.stderr
    for index, source in cfg["cells"]:
        chan.send({"event": "cell", "index": index})
        sink = CappedWriter(1000)
        sys.stdout = sys.stderr = sink
        try:
            err = _exec_cell(source, namespace, f"<cell {index}>", cfg.get("cell_timeout", 10))
        finally:
            sys.stdout, sys.stderr = real_stdout, real_stderr
        if err:
            cell_errors[str(index)] = err
    defined = sorted(k for k, v in namespace.items() if callable(v) and type(k) is str)
    chan.send({"event": "ready", "cell_errors": cell_errors, "defined": defined[:500]})

    while True:
        req = chan.recv()
        if req is None or req.get("op") == "exit":
            return 0
        chan.send(_answer(req, namespace, real_stdout, real_stderr))


def _warning_texts(caught, limit=5):
    """Up to ``limit`` warnings as short plain strings ("RuntimeWarning: overflow ...")."""
    out = []
    for w in list(caught)[:limit]:
        try:
            out.append(f"{w.category.__name__}: {str.__str__(str(w.message))}"[:200])
        except BaseException:
            out.append("a warning")
    return out


def _answer(req, namespace, real_stdout, real_stderr):
    name = req["func"]
    fn = namespace.get(name)
    resp = {"id": req["id"], "nonce": req.get("nonce"), "ok": False}
    if fn is None or not callable(fn):
        resp["error"] = f"NameError: the submission does not define a function {name}()"
        return resp
    args = decode_args(req.get("args", []))
    kwargs = decode_args(req.get("kwargs", {}))
    sink = CappedWriter()
    sys.stdout = sys.stderr = sink
    start = time.perf_counter()
    caught = []
    try:
        # warnings the call emits go back to the tests (a docstring may promise "no warnings")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = _run_limited(lambda: fn(*args, **kwargs), req.get("timeout", 10))
        try:
            resp["value"] = _run_limited(lambda: encode_value(value), 5)
            resp["ok"] = True
        except BaseException as exc:
            resp["error"] = "bad return value: " + _short_error(exc)
    except BaseException as exc:
        resp["error"] = _short_error(exc)
        if not isinstance(exc, _TimeLimit):
            tb = traceback.extract_tb(exc.__traceback__)
            frames = [f for f in tb if f.filename.startswith("<cell")]
            if frames:
                f = frames[-1]
                resp["where"] = f"{f.filename[1:-1]}, line {f.lineno}"
    finally:
        sys.stdout, sys.stderr = real_stdout, real_stderr
    resp["seconds"] = time.perf_counter() - start
    resp["warnings"] = _warning_texts(caught)
    try:
        resp["output"] = str.__str__(sink.getvalue())
    except BaseException:
        resp["output"] = ""
    return resp


if __name__ == "__main__":
    sys.exit(main())
