"""Start and talk to the sandboxed worker (the trusted side of the protocol).

:class:`Worker` runs :mod:`linclf_grader._worker` under **bubblewrap**
(``/usr/bin/bwrap``, Debian's ``bubblewrap``), sends it the submission's code
cells, and then forwards calls.  Every wait has a deadline; every byte read is
capped; a worker that misbehaves (hangs, floods, dies, sends garbage) is killed
and, if the caller wants, restarted without the cell that caused it.

What the worker sees (:func:`bwrap_command`):

* its own PID, IPC, UTS, network (loopback only) and mount namespaces
  (``--unshare-all``), a new session (``--new-session``: no terminal), and
  death with the grader (``--die-with-parent``);
* a cleared environment with a handful of variables (:func:`worker_env`);
* read-only: the Python installation the grader runs on (``sys.prefix``,
  ``sys.base_prefix``, resolved through symlinks), the system libraries it
  links against (``/usr/lib``, ``/lib*``, ``/etc/ld.so.cache``) and the worker
  script at the fixed path :data:`WORKER_INSIDE`; nothing else of the machine:
  no checkout, no reference solutions, no private tests, no other submission,
  no output folder, no home directory;
* a private, size-capped working folder :data:`WORKDIR` and ``/tmp`` (tmpfs), a minimal
  ``/dev`` and a ``/proc`` of its own PID namespace;
* ``linclf``, ``linclf_grader`` and ``sklearn`` covered with an empty tmpfs
  whose ``__init__.py`` raises ImportError, in every ``site-packages`` /
  ``dist-packages`` directory of the bound trees (pip-installed, editable or
  not: an editable install points into the checkout, which is not bound).

**Per-worker masked modules.** ``Worker(..., masked_modules=("scipy.optimize",))``
masks those modules too (a dotted name masks that subpackage's directory, or
its ``.py`` file), so an exercise group whose rule forbids them runs in a
worker that cannot import them, whatever trick the code uses (``exec``,
``__import__``, ``importlib``): the import raises ImportError naming the module.
A module that is not installed is ignored.

**Users.** Run by an ordinary user, bwrap makes an unprivileged user namespace
(the worker keeps the user's uid, without capabilities).  Run by root (a
Gradescope container), bwrap creates the namespaces without a user namespace
and starts ``/usr/bin/setpriv`` inside, which switches to a fresh unprivileged
uid (:data:`UID_BASE` + n) with no capabilities and ``no_new_privs`` before the
interpreter starts; where root cannot create namespaces itself, ``setpriv``
switches first and bwrap then runs as that uid with a user namespace (the
Python installation must then be readable by that uid).

Resource limits stay limits: the worker sets ``RLIMIT_AS`` (``memory``),
``RLIMIT_CPU``, ``RLIMIT_FSIZE``, ``RLIMIT_NOFILE`` and ``RLIMIT_NPROC=0`` (no
new processes) on itself before any student code runs.

When bwrap cannot run (missing, or user namespaces refused) :func:`check_isolation`
raises :class:`SandboxUnavailable` with instructions; ``isolation="none"``
(the CLI's ``--trusted-code``) runs the worker without any of this, for code
the instructor trusts.
"""

from __future__ import annotations

import glob
import itertools
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORKER_SCRIPT = Path(__file__).with_name("_worker.py")
WORKER_INSIDE = "/opt/linclf-worker/worker.py"
WORKDIR = "/sandbox"  # the worker's private working folder (a tmpfs), also HOME
MAX_RESPONSE = 32 * 1024 * 1024
STDERR_CAP = 8_000
TMP_SIZE = 64 * 1024 * 1024
ALWAYS_MASKED = ("linclf", "linclf_grader", "sklearn")
UID_BASE = 2_100_000_000
_uid_counter = itertools.count()
_MASK_INIT = ('raise ImportError("{name} is not available to submissions here '
              '(the grader masks it)")\n')

INSTALL_HINT = (
    "The grader runs every submission under bubblewrap (bwrap), which it could not start here"
    " ({why}).\nInstall it with `sudo apt-get install bubblewrap` (Debian/Ubuntu; `dnf install"
    " bubblewrap` on Fedora) and make sure unprivileged user namespaces are allowed"
    " (`sysctl kernel.unprivileged_userns_clone=1`; in Docker run the grader as root or with"
    " `--security-opt seccomp=unconfined`).\nFor code you trust (your own reference solutions),"
    " pass --trusted-code to grade without any isolation."
)


class WorkerError(RuntimeError):
    """The worker died, timed out, or broke the protocol."""


class WorkerTimeout(WorkerError):
    """The worker did not answer in time."""


class SandboxUnavailable(RuntimeError):
    """bubblewrap cannot run here; the message says how to get it."""


class SandboxFailure(RuntimeError):
    """The sandbox broke before any student code ran (a grader problem, not the student's)."""


def bwrap_path():
    # LINCLF_GRADE_BWRAP lets the test suite simulate a machine without bwrap
    return os.environ.get("LINCLF_GRADE_BWRAP") or shutil.which("bwrap") or "/usr/bin/bwrap"


def setpriv_path():
    return shutil.which("setpriv") or "/usr/bin/setpriv"


def worker_env(home):
    """The worker's whole environment."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home, "TMPDIR": home, "MPLCONFIGDIR": home,
        "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "LINCLF_GRADING_WORKER": "1",
    }


def _under(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def python_trees():
    """Directories of the Python installation, resolved, none inside another."""
    trees = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                           sys.base_exec_prefix)}
    trees.add(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))
    # the system libraries the interpreter and numpy's extensions link against
    trees |= {os.path.realpath(p) for p in ("/usr/lib", "/usr/lib64") if os.path.isdir(p)}
    trees = sorted(trees, key=len)
    out = []
    for t in trees:
        if t != "/" and not any(_under(t, o) for o in out):
            out.append(t)
    return out


def _site_dirs(trees):
    found = set()
    for t in trees:
        for pattern in ("lib*/python3*/*-packages", "local/lib*/python3*/*-packages",
                        "python3*/*-packages", "python3/dist-packages"):
            found.update(glob.glob(os.path.join(t, pattern)))
    for p in sys.path:  # e.g. a site-packages outside the usual layout
        if p and os.path.basename(p) in ("site-packages", "dist-packages"):
            found.add(p)
    return sorted({os.path.realpath(p) for p in found
                   if os.path.isdir(p) and any(_under(os.path.realpath(p), t) for t in trees)})


def masked_paths(modules, trees=None):
    """Where the ``modules`` live inside the bound trees: [(path, is_dir, name)]."""
    import importlib.util

    trees = python_trees() if trees is None else trees
    sites = _site_dirs(trees)
    out = {}
    for name in modules:
        parts = name.split(".")
        bases = set(sites)
        try:
            spec = importlib.util.find_spec(parts[0])
        except (ImportError, ValueError):
            spec = None
        if spec is not None:
            for loc in spec.submodule_search_locations or ([spec.origin] if spec.origin else []):
                bases.add(os.path.dirname(os.path.realpath(loc)))
        for base in bases:
            stem = os.path.join(base, *parts)
            for path, is_dir in ((stem, True), (stem + ".py", False)):
                real = os.path.realpath(path)
                if os.path.isdir(real) if is_dir else os.path.isfile(real):
                    if any(_under(real, t) for t in trees):
                        out[real] = (real, is_dir, name)
    return sorted(out.values())


def _mode():
    """How to start bwrap: 'user' (ordinary user) or 'root'; see :func:`check_isolation`."""
    return "user" if os.geteuid() != 0 else "root"


def bwrap_command(program, *, masked=(), hide=(), mode=None, uid=None, data_fds=None):
    """The argv that runs ``program`` (a list) inside the sandbox.

    ``data_fds`` collects (fd, text) pairs for the masks' ``__init__.py``; the
    caller writes them into pipes passed to bwrap.
    """
    mode = mode or _mode()
    trees = python_trees()
    cmd = [bwrap_path(), "--die-with-parent", "--new-session", "--clearenv"]
    if mode == "root":
        # no user namespace: it would map the worker to uid 0 outside.  setpriv
        # (below) drops to an unprivileged uid, so keep only what it needs.
        cmd += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--cap-drop", "ALL",
                "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        cmd += ["--unshare-all"]
    for key, value in worker_env(WORKDIR).items():
        cmd += ["--setenv", key, value]
    # the private folders first, so that a Python installation under /tmp
    # (a test's virtual environment) is bound on top of them, not hidden
    cmd += ["--perms", "1777", "--size", str(TMP_SIZE), "--tmpfs", "/tmp",
            "--perms", "1777", "--size", str(TMP_SIZE), "--tmpfs", WORKDIR]
    # bwrap would create the parents of a bind target with mode 0700, which the
    # unprivileged uid could not traverse
    for parent in _parents([*trees, WORKER_INSIDE, "/usr/bin/setpriv"]):
        cmd += ["--perms", "0755", "--dir", parent]
    for t in trees:
        cmd += ["--ro-bind", t, t]
    for link in ("/lib", "/lib64", "/lib32", "/libx32", "/bin"):
        if os.path.islink(link):
            cmd += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link) and link != "/bin":
            cmd += ["--ro-bind", link, link]
    cmd += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    if mode == "root":
        cmd += ["--ro-bind", setpriv_path(), "/usr/bin/setpriv"]
    cmd += ["--ro-bind", str(WORKER_SCRIPT), WORKER_INSIDE,
            "--proc", "/proc", "--dev", "/dev"]
    for path, is_dir, name in masked_paths((*ALWAYS_MASKED, *masked), trees):
        text = _MASK_INIT.format(name=name)
        if is_dir:
            cmd += ["--perms", "0755", "--tmpfs", path]
            target = os.path.join(path, "__init__.py")
        else:
            target = path
        if data_fds is not None:
            r, w = os.pipe()
            os.write(w, text.encode())
            os.close(w)
            data_fds.append(r)
            cmd += ["--perms", "0644", "--ro-bind-data", str(r), target]
        if is_dir:
            cmd += ["--remount-ro", path]
    for h in hide:  # only matters if an instructor's folder sits inside a bound tree
        real = os.path.realpath(h)
        if os.path.isdir(real) and any(_under(real, t) for t in trees):
            cmd += ["--tmpfs", real, "--remount-ro", real]
    cmd += ["--chdir", WORKDIR, "--"]
    if mode == "root":
        uid = _fresh_uid() if uid is None else uid
        cmd += ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    elif mode == "root-setpriv-first":
        uid = _fresh_uid() if uid is None else uid
        cmd = [setpriv_path(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
               "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--", *cmd]
    return cmd + list(program)


def _parents(paths):
    out = []
    for p in paths:
        parts = p.strip("/").split("/")[:-1]
        for k in range(1, len(parts) + 1):
            d = "/" + "/".join(parts[:k])
            if d not in out:
                out.append(d)
    return out


def _fresh_uid():
    return UID_BASE + (os.getpid() % 100_000) * 1000 + next(_uid_counter) % 1000


def _python_inside():
    exe = os.path.abspath(sys.executable)
    if any(_under(exe, t) for t in python_trees()):
        return exe  # keeps a venv's pyvenv.cfg next to it
    return os.path.realpath(exe)


_checked = {}


def check_isolation(isolation="bwrap"):
    """Make sure the worker can start under bwrap here (cached); return the mode used.

    Raises
    ------
    SandboxUnavailable
        With the reason and how to install or enable bubblewrap.
    """
    if isolation == "none":
        return "none"
    if isolation != "bwrap":
        raise ValueError(f"isolation must be 'bwrap' or 'none', not {isolation!r}")
    key = (bwrap_path(), os.geteuid())
    if key in _checked:
        if isinstance(_checked[key], Exception):
            raise _checked[key]
        return _checked[key]
    if not os.path.isfile(key[0]) or not os.access(key[0], os.X_OK):
        _checked[key] = SandboxUnavailable(INSTALL_HINT.format(why=f"{key[0]} is missing"))
        raise _checked[key]
    modes = ["user"] if os.geteuid() != 0 else ["root", "root-setpriv-first"]
    reasons = []
    for mode in modes:
        probe = bwrap_command([_python_inside(), "-I", "-c", "import sys, os; print(os.getuid())"],
                              mode=mode)
        try:
            proc = subprocess.run(probe, capture_output=True, text=True, timeout=60,
                                  env=worker_env(tempfile.gettempdir()), stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            reasons.append(f"{mode}: {exc}")
            continue
        if proc.returncode == 0 and proc.stdout.strip().isdigit() \
                and (os.geteuid() != 0 or proc.stdout.strip() != "0"):
            _checked[key] = mode
            return mode
        last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1][:300]
        reasons.append(f"{mode}: {last}" if len(modes) > 1 else last)
    _checked[key] = SandboxUnavailable(INSTALL_HINT.format(why="; ".join(reasons)))
    raise _checked[key]


class Worker:
    """One sandboxed interpreter holding one submission.

    Parameters
    ----------
    cells : list of (int, str)
        Code cells (index, source) to execute in order.
    hide : list of path
        Instructor folders; they are never bound, and covered if they happen
        to lie inside the bound Python installation.
    timeout : float
        Time limit of one call (seconds).
    memory : int
        Address-space limit of the worker (bytes).
    cell_timeout : float
        Time limit of one top-level statement of a cell.
    masked_modules : tuple of str
        Modules this worker must not be able to import besides
        :data:`ALWAYS_MASKED` (``"scipy.optimize"``).
    isolation : {"bwrap", "none"}
        ``"none"`` runs the worker without a sandbox (trusted code only).
    """

    def __init__(self, cells, *, hide=(), timeout=10.0, memory=1 << 30,
                 cell_timeout=10.0, cpu=120, load_budget=60.0, imports=None,
                 masked_modules=(), isolation="bwrap"):
        self.cells = list(cells)
        self.imports = imports  # the run-time import policy (linclf_grader.imports)
        self.timeout = float(timeout)
        self.cell_timeout = float(cell_timeout)
        self.memory = int(memory)
        self.cpu = int(cpu)
        self.load_budget = float(load_budget)
        self.hide = list(hide)
        self.masked_modules = tuple(masked_modules)
        self.isolation = isolation
        self.mode = check_isolation(isolation)
        self.proc = None
        self.workdir = None
        self.stderr_bytes = b""
        self._buf = b""
        self._ids = itertools.count(1)
        self.sandbox = {}
        self.cell_errors = {}
        self.defined = []

    # -- lifecycle -----------------------------------------------------------
    def _popen(self):
        if self.mode == "none":
            self.workdir = tempfile.mkdtemp(prefix="linclf-grade-")
            return subprocess.Popen(
                [sys.executable, "-I", "-B", str(WORKER_SCRIPT)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.workdir, env=worker_env(self.workdir), close_fds=True,
                start_new_session=True), self.workdir
        fds = []
        try:
            cmd = bwrap_command([_python_inside(), "-I", "-B", WORKER_INSIDE],
                                masked=self.masked_modules, hide=self.hide, mode=self.mode,
                                data_fds=fds)
            proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd="/", env={"PATH": "/usr/bin:/bin"}, close_fds=True, pass_fds=fds,
                start_new_session=True)
        finally:
            for fd in fds:
                os.close(fd)
        return proc, WORKDIR

    def start(self, skip=()):
        """Start the worker and execute the cells (except those in ``skip``).

        Returns the index of the cell that was running when the worker had to
        be killed, or None when loading finished.

        Raises
        ------
        SandboxFailure
            The sandbox itself did not come up (no student code had run).
        """
        self.close()
        self.proc, workdir = self._popen()
        self._buf = b""
        self.stderr_bytes = b""
        cells = [(i, src) for i, src in self.cells if i not in set(skip)]
        try:
            self._send({
                "op": "init", "isolation": self.mode, "workdir": workdir,
                "limits": {"memory": self.memory, "cpu": self.cpu, "fsize": 1 << 20},
                "cells": cells, "cell_timeout": self.cell_timeout, "imports": self.imports,
            })
            first = self._recv(time.monotonic() + 60)
        except WorkerError as exc:
            self.kill()
            detail = self.stderr_bytes.decode("utf-8", "replace").strip()[-500:]
            raise SandboxFailure(f"the sandboxed worker did not start: {exc}; {detail}") from None
        if not isinstance(first, dict) or first.get("event") != "sandbox":
            self.kill()
            raise SandboxFailure(f"the sandboxed worker did not start: {str(first)[:300]}")
        self.sandbox = {k: v for k, v in first.items() if k != "event"}
        deadline = time.monotonic() + self.load_budget
        current = None
        while True:
            per_cell = min(deadline, time.monotonic() + self.cell_timeout + 5)
            try:
                msg = self._recv(per_cell)
            except WorkerError:
                self.kill()
                if current is None:
                    raise
                return current
            event = msg.get("event") if isinstance(msg, dict) else None
            if event == "fatal":
                self.kill()
                raise WorkerError(str(msg.get("error"))[:500])
            elif event == "cell":
                current = msg.get("index")
            elif event == "ready":
                errors = msg.get("cell_errors")
                self.cell_errors = errors if isinstance(errors, dict) else {}
                defined = msg.get("defined")
                self.defined = [d for d in defined if isinstance(d, str)] if isinstance(defined, list) else []
                return None
            else:
                self.kill()
                raise WorkerError("protocol error while loading the submission")

    def call(self, func, args=(), kwargs=None, timeout=None):
        """Call ``func`` in the worker; return the raw (untrusted) response dict."""
        if self.proc is None or self.proc.poll() is not None:
            raise WorkerError("the worker is not running")
        timeout = self.timeout if timeout is None else float(timeout)
        rid = next(self._ids)
        # a fresh random nonce per call: blind forgery of responses fails
        nonce = secrets.token_hex(16)
        if self._buf:
            self.kill()
            raise WorkerError("protocol error: unexpected output from the worker")
        self._send({"op": "call", "id": rid, "nonce": nonce, "func": func, "args": list(args),
                    "kwargs": kwargs or {}, "timeout": timeout})
        try:
            resp = self._recv(time.monotonic() + timeout + 3.0)
        except WorkerTimeout:
            self.kill()
            raise
        if not isinstance(resp, dict) or resp.get("id") != rid or resp.get("nonce") != nonce \
                or self._buf:
            self.kill()
            raise WorkerError("protocol error: unexpected response")
        return resp

    def kill(self):
        # bwrap is the session leader; killing its group takes the sandbox's
        # init down, and the kernel then kills everything in the PID namespace
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    stream.close()
                except Exception:
                    pass

    def close(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self._send({"op": "exit"})
                except WorkerError:
                    pass
            self.kill()
            self.proc = None
        if self.workdir is not None and self.mode == "none":
            shutil.rmtree(self.workdir, ignore_errors=True)
        self.workdir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- transport -----------------------------------------------------------
    def _send(self, obj):
        data = (json.dumps(obj) + "\n").encode("utf-8")
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise WorkerError("the worker has stopped (it may have been killed)") from exc

    def _recv(self, deadline):
        out_fd = self.proc.stdout.fileno()
        err_fd = self.proc.stderr.fileno()
        open_fds = [out_fd, err_fd]
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerTimeout("time limit exceeded")
            ready, _, _ = select.select(open_fds, [], [], remaining)
            for fd in ready:
                chunk = os.read(fd, 1 << 16)
                if fd == err_fd:
                    if not chunk:
                        open_fds.remove(err_fd)
                    elif len(self.stderr_bytes) < STDERR_CAP:
                        self.stderr_bytes += chunk[: STDERR_CAP - len(self.stderr_bytes)]
                    continue
                if not chunk:
                    try:  # the exit status of bwrap is the worker's
                        code = self.proc.wait(timeout=1)
                    except subprocess.TimeoutExpired:
                        code = None
                        self.kill()
                    raise WorkerError(_death_message(code))
                self._buf += chunk
                if len(self._buf) > MAX_RESPONSE:
                    self.kill()
                    raise WorkerError("the response is too large")
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            return json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise WorkerError("protocol error: unreadable response") from exc


def _death_message(code):
    if code is None:
        return "the worker closed its output"
    if code < 0 or code > 128:  # bwrap reports a signal death as 128 + signal
        num = -code if code < 0 else code - 128
        try:
            name = signal.Signals(num).name
        except ValueError:
            name = str(num)
        hints = {"SIGXCPU": " (CPU time limit)", "SIGKILL": " (killed)",
                 "SIGSEGV": " (crashed)", "SIGXFSZ": " (file size limit)"}
        return f"the worker died with {name}{hints.get(name, '')}"
    return f"the worker exited with status {code}"
