"""Helpers of the grader's hostile and Gradescope tests: an ordinary user, linclf pip-installed.

``installed_env()`` builds a wheel of this checkout and installs it (not editable) with
numpy and sympy into a virtual environment made from the system Python, in a folder every
user can read, so the grader can run from a pip install and as an ordinary user;
``tests/conftest.py`` shares it as the session fixture ``installed_linclf_env``.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IS_ROOT = os.geteuid() == 0
USER = "linclfhostile"  # created with useradd when the suite runs as root


def ordinary_user():
    """Name of an ordinary user to run the grader as (None: this process is one)."""
    if not IS_ROOT:
        return None
    if shutil.which("runuser") is None:
        pytest.skip("runuser (util-linux) is missing: cannot run the grader as an ordinary user")
    if subprocess.run(["id", "-u", USER], capture_output=True).returncode != 0:
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                               USER], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"cannot create an ordinary user with useradd: {made.stderr.strip()}")
    return USER


def world_dir(prefix):
    d = Path(tempfile.mkdtemp(prefix=prefix))
    d.chmod(0o755)
    return d


def installed_env():
    """A virtual environment, readable by everyone, with linclf installed from a wheel (not editable)."""
    base = "/usr/bin/python3"
    if not os.access(base, os.X_OK):
        pytest.skip("no system Python at /usr/bin/python3 to build a separate environment from")
    d = world_dir("linclf-installed-")
    try:
        wheels = d / "wheels"
        steps = [[sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                 [base, "-m", "venv", str(d / "venv")]]
        for cmd in steps:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                pytest.skip(f"cannot build the pip-installed environment: {proc.stderr[-500:]}")
        wheel = next(wheels.glob("linclf-*.whl"))
        proc = subprocess.run([str(d / "venv/bin/pip"), "install", "-q", "numpy", "sympy", str(wheel)],
                              capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            pytest.skip(f"cannot install linclf's wheel: {proc.stderr[-500:]}")
        for root, dirs, files in os.walk(d):
            for name in dirs + files:
                p = os.path.join(root, name)
                if not os.path.islink(p):
                    os.chmod(p, os.stat(p).st_mode | 0o444 | (0o111 if name in dirs else 0))
        yield d / "venv"
    finally:
        shutil.rmtree(d, ignore_errors=True)


class Listener:
    """A TCP listener on every local address; counts connections."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def host_addresses():
    hosts = {"127.0.0.1", "localhost"}
    try:
        hosts.add(socket.gethostbyname(socket.gethostname()))
    except OSError:
        pass
    return sorted(hosts)
