"""Start and talk to the sandboxed worker (the trusted side of the protocol).

:class:`Worker` runs :mod:`linclf_grader._worker` in a fresh interpreter with a
cleaned environment, an empty private working directory and no stdin, sends it
the submission's code cells, and then forwards calls.  Every wait has a
deadline; every byte read is capped; a worker that misbehaves (hangs, floods,
dies, sends garbage) is killed with its whole process group and, if the caller
wants, restarted without the cell that caused it.
"""

from __future__ import annotations

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
MAX_RESPONSE = 32 * 1024 * 1024
STDERR_CAP = 8_000
# Unprivileged uids for workers when the grader runs as root: one fresh uid per
# worker, so that two students' workers cannot signal or trace each other.
UID_BASE = 2_100_000_000
_uid_counter = itertools.count()


class WorkerError(RuntimeError):
    """The worker died, timed out, or broke the protocol."""


class WorkerTimeout(WorkerError):
    """The worker did not answer in time."""


def _fresh_uid():
    return UID_BASE + (os.getpid() % 100_000) * 1000 + next(_uid_counter) % 1000


def _clean_env(workdir):
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": workdir,
        "LINCLF_GRADING_WORKER": "1",
    }


def _is_ancestor(parent, child):
    try:
        Path(child).resolve().relative_to(Path(parent).resolve())
        return True
    except ValueError:
        return False


def safe_hide_list(paths, workdir):
    """Directories to cover with an empty tmpfs, minus any the worker needs.

    A directory is dropped from the list when it contains the Python
    installation, the ``linclf`` package, the worker script or the working
    directory (hiding those would break the worker itself).
    """
    needed = [sys.prefix, sys.base_prefix, sys.executable, str(WORKER_SCRIPT),
              str(Path(__file__).parents[1]), workdir]
    out = []
    for p in paths:
        p = Path(p)
        if not p.is_dir():
            continue
        if any(_is_ancestor(p, n) for n in needed):
            continue
        out.append(str(p.resolve()))
    return sorted(set(out))


def needed_paths():
    """Directories the worker's interpreter must be able to read."""
    paths = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             str(Path(__file__).resolve().parents[1].parent)]
    paths += [p for p in sys.path if p and os.path.isdir(p)]
    return sorted({os.path.realpath(p) for p in paths})


class Worker:
    """One sandboxed interpreter holding one submission.

    Parameters
    ----------
    cells : list of (int, str)
        Code cells (index, source) to execute in order.
    hide : list of path
        Directories the student code must not see (private tests, reference
        solutions, other submissions, the output directory).
    timeout : float
        Time limit of one call (seconds).
    memory : int
        Address-space limit of the worker (bytes).
    cell_timeout : float
        Time limit of one top-level statement of a cell.
    """

    def __init__(self, cells, *, hide=(), timeout=10.0, memory=1 << 30,
                 cell_timeout=10.0, cpu=120, load_budget=60.0, imports=None):
        self.cells = list(cells)
        self.imports = imports  # the run-time import policy (linclf_grader.imports)
        self.timeout = float(timeout)
        self.cell_timeout = float(cell_timeout)
        self.memory = int(memory)
        self.cpu = int(cpu)
        self.load_budget = float(load_budget)
        solutions = Path(__file__).resolve().parents[1] / "exercises" / "solutions"
        self.hide = [*hide, str(solutions)]
        self.proc = None
        self.workdir = None
        self.stderr_bytes = b""
        self._buf = b""
        self._ids = itertools.count(1)
        self.sandbox = {}
        self.cell_errors = {}
        self.defined = []

    # -- lifecycle -----------------------------------------------------------
    def start(self, skip=()):
        """Start the worker and execute the cells (except those in ``skip``).

        Returns the index of the cell that was running when the worker had to
        be killed, or None when loading finished.
        """
        self.close()
        self.workdir = tempfile.mkdtemp(prefix="linclf-grade-")
        uid = None
        if os.geteuid() == 0:
            uid = _fresh_uid()
            os.chown(self.workdir, uid, uid)
        os.chmod(self.workdir, 0o700)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", str(WORKER_SCRIPT)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=self.workdir, env=_clean_env(self.workdir), close_fds=True,
            start_new_session=True,
        )
        self._buf = b""
        self.stderr_bytes = b""
        cells = [(i, src) for i, src in self.cells if i not in set(skip)]
        self._send({
            "op": "init",
            "uid": uid,
            "hide": safe_hide_list(self.hide, self.workdir),
            "expose": needed_paths(),
            "workdir": self.workdir,
            "limits": {"memory": self.memory, "cpu": self.cpu, "fsize": 1 << 20},
            "cells": cells,
            "cell_timeout": self.cell_timeout,
            "imports": self.imports,
        })
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
            if event == "sandbox":
                self.sandbox = {k: v for k, v in msg.items() if k != "event"}
            elif event == "fatal":
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
        if self.workdir is not None:
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
                    code = self.proc.poll()
                    if code is None:
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
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        hints = {"SIGXCPU": " (CPU time limit)", "SIGKILL": " (killed)",
                 "SIGSEGV": " (crashed)", "SIGXFSZ": " (file size limit)"}
        return f"the worker died with {name}{hints.get(name, '')}"
    return f"the worker exited with status {code}"
