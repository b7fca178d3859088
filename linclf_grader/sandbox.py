"""Start and talk to the sandboxed worker (the trusted side of the protocol).

:class:`Worker` runs :mod:`linclf_grader._worker` under **bubblewrap**
(``/usr/bin/bwrap``, Debian's ``bubblewrap``), sends it the submission's code
cells, and then forwards calls.  Every wait has a deadline; every byte read is
capped; a worker that misbehaves (hangs, floods, dies, sends garbage) is killed
and, if the caller wants, restarted without the cell that caused it.

The sandbox itself is bubblewrap's: :mod:`linclf_grader.bwrap` builds the command
line (its docstring says what a worker sees: its own namespaces, read-only only the
Python installation, a private working folder, masked packages, a fresh unprivileged
uid when the grader runs as root) and checks that bubblewrap can run here.

**Per-worker masked modules.** ``Worker(..., masked_modules=("scipy.optimize",))``
masks those modules too (a dotted name masks that subpackage's directory, or
its ``.py`` file), so an exercise group whose rule forbids them runs in a
worker that cannot import them, whatever trick the code uses (``exec``,
``__import__``, ``importlib``): the import raises ImportError naming the module.
A module that is not installed is ignored.

When bwrap cannot run (missing, or user namespaces refused) :func:`check_isolation`
raises :class:`SandboxUnavailable` with instructions; ``isolation="none"``
(the CLI's ``--trusted-code``) runs the worker without any of this, for code
the instructor trusts.
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

from .bwrap import (  # noqa: F401  (re-exported: the sandbox's public names)
    ALWAYS_MASKED, WORKDIR, WORKER_INSIDE, WORKER_SCRIPT, SandboxUnavailable, python_inside,
    bwrap_command, check_isolation, masked_paths, python_trees, worker_env,
)

MAX_RESPONSE = 32 * 1024 * 1024
STDERR_CAP = 8_000


class WorkerError(RuntimeError):
    """The worker died, timed out, or broke the protocol."""


class WorkerTimeout(WorkerError):
    """The worker did not answer in time."""


class SandboxFailure(RuntimeError):
    """The sandbox broke before any student code ran (a grader problem, not the student's)."""


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
            cmd = bwrap_command([python_inside(), "-I", "-B", WORKER_INSIDE],
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
