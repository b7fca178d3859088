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

Isolation: the parent starts this script under bubblewrap (namespaces, a
read-only view of the Python installation only, a private ``/tmp``, an
unprivileged uid; see :mod:`linclf_grader.sandbox`).  Here, in
:func:`_enter_sandbox`, before any student code runs, come the resource limits
(address space, CPU seconds, file size, open files, a few threads but no new
processes) and an empty stdin.
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
    if isinstance(value, tuple):
        # a namedtuple (or other tuple subclass) is the tuple it is: read its items
        # through the base class, never through an overridden __iter__
        return [encode_value(v, _depth + 1, _budget) for v in tuple.__iter__(value)]
    if isinstance(value, list):
        return [encode_value(v, _depth + 1, _budget) for v in list.__iter__(value)]
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
    if kind == "f" and arr.dtype.itemsize not in (4, 8):
        # float16 / longdouble: the grader reads float32 and float64; a longdouble
        # answer is checked as the float64 nearest to it
        arr = arr.astype(np.float64)
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
# resource limits (the isolation itself is bubblewrap's, set up by the parent)
# --------------------------------------------------------------------------
def _enter_sandbox(cfg):
    """Set the resource limits before any student code runs; return a report.

    The namespaces, the read-only view of the Python installation, the private
    ``/tmp`` and the unprivileged uid come from bubblewrap
    (:mod:`linclf_grader.sandbox`); here only limits remain.
    """
    import resource

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
    # A few threads, no processes.  A correct answer that uses a thread pool
    # must score here as it does in check(), so the kernel's task limit leaves
    # room for MAX_TASKS threads (counted per uid inside the worker's own
    # namespace/fresh uid, so only the worker's tasks count); new processes are
    # refused by the audit hook below, and the task limit bounds what a
    # ctypes-level fork could still start.
    resource.setrlimit(resource.RLIMIT_NPROC, (MAX_TASKS, MAX_TASKS))
    _disarm_fork_exec()
    sys.addaudithook(_refuse_processes)
    return {"isolation": cfg.get("isolation", "unknown"), "uid": os.getuid(), "rlimits": True}


MAX_TASKS = 48
NO_PROCESSES = "new processes are not allowed in the grader (threads are)"
_PROCESS_EVENTS = frozenset({
    "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system",
    "os.startfile", "subprocess.Popen", "pty.spawn"})
# libc entry points that start a process, reachable through ctypes
_PROCESS_SYMBOLS = frozenset({
    "fork", "vfork", "clone", "clone3", "__clone", "syscall", "posix_spawn", "posix_spawnp",
    "system", "popen", "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
    "fexecve", "daemon", "forkpty"})


def _no_process(*args, **kwargs):
    raise PermissionError(NO_PROCESSES)


def _disarm_fork_exec():
    # _posixsubprocess.fork_exec raises no audit event: replace it wherever the stdlib
    # keeps it, so the original is freed; a fresh import of the module is refused below
    import _posixsubprocess
    import subprocess

    _posixsubprocess.fork_exec = _no_process
    if hasattr(subprocess, "_fork_exec"):
        subprocess._fork_exec = _no_process


def _process_symbol(name):
    """Whether a libc symbol looked up through ctypes could start a process."""
    bare = name.lstrip("_").lower()
    return name in _PROCESS_SYMBOLS or any(
        word in bare for word in ("fork", "spawn", "exec", "clone", "system", "popen"))


def _refuse_processes(event, args):
    """Audit hook of the worker: no process creation, by any Python route.

    An audit hook cannot be removed from Python code, so student code cannot
    undo it; it raises the same error in every route so feedback is uniform.
    """
    if event in _PROCESS_EVENTS or (
            event == "ctypes.dlsym" and len(args) > 1 and _process_symbol(str(args[1]))) or (
            event == "import" and args and args[0] == "_posixsubprocess"):
        raise PermissionError(NO_PROCESSES)


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
    if isinstance(exc, PermissionError) and any(
            f.filename.endswith(("multiprocessing/synchronize.py", "multiprocessing/queues.py"))
            for f in traceback.extract_tb(exc.__traceback__)):
        # the sandbox has no /dev/shm: say why, not only "Permission denied"
        text = (text[:limit // 2] + " (multiprocessing pools, queues and locks, also "
                "multiprocessing.pool.ThreadPool and multiprocessing.dummy, are not available "
                "in the grader; use concurrent.futures.ThreadPoolExecutor for threads)")
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
            # threads the student left running must not hold the worker open
            sys.stdout.flush()
            os._exit(0)
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
