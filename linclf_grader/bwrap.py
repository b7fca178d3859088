"""The bubblewrap command line of a worker, and whether bubblewrap can run here.

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
``RLIMIT_CPU``, ``RLIMIT_FSIZE``, ``RLIMIT_NOFILE`` and a small ``RLIMIT_NPROC``
(a few threads; an audit hook refuses new processes) on itself before any student code runs.

When bwrap cannot run (missing, or user namespaces refused) :func:`check_isolation`
raises :class:`SandboxUnavailable` with instructions; ``isolation="none"``
(the CLI's ``--trusted-code``) runs the worker without any of this, for code
the instructor trusts.

Options that older bubblewrap releases lack (``--clearenv``, ``--perms``, ``--size``)
are left out when ``bwrap --help`` does not list them.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER_SCRIPT = Path(__file__).with_name("_worker.py")
WORKER_INSIDE = "/opt/linclf-worker/worker.py"
WORKDIR = "/sandbox"  # the worker's private working folder (a tmpfs), also HOME
TMP_SIZE = 64 * 1024 * 1024
#: bytes of the worker's private /dev/shm
SHM_SIZE = 8 * 1024 * 1024
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


class SandboxUnavailable(RuntimeError):
    """bubblewrap cannot run here; the message says how to get it."""


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
            "--proc", "/proc", "--dev", "/dev",
            # multiprocessing's thread pools (ThreadPool, multiprocessing.dummy) create a
            # POSIX semaphore there, as they may in check(); small and private
            "--perms", "1777", "--size", str(SHM_SIZE), "--tmpfs", "/dev/shm"]
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
    cmd = _drop_unsupported(cmd)
    if mode == "root-setpriv-first":
        uid = _fresh_uid() if uid is None else uid
        cmd = [setpriv_path(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
               "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--", *cmd]
    return cmd + list(program)


# options newer than some distributions' bubblewrap (Ubuntu 20.04 has 0.4, 22.04 has 0.6):
# without them the sandbox is the same except for the tmpfs size cap and folder modes
_OPTIONAL = {"--clearenv": 0, "--size": 1, "--perms": 1}
_help_cache = {}


def _drop_unsupported(cmd):
    path = cmd[0]
    if path not in _help_cache:
        try:
            text = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=30)
            _help_cache[path] = text.stdout + text.stderr
        except (OSError, subprocess.TimeoutExpired):
            _help_cache[path] = ""
    known = _help_cache[path]
    if not known or all(opt in known for opt in _OPTIONAL):
        return cmd
    out, i = [], 0
    while i < len(cmd):
        opt = cmd[i]
        if opt == "--":
            out += cmd[i:]
            break
        if opt in _OPTIONAL and opt not in known:
            i += 1 + _OPTIONAL[opt]
            continue
        out.append(opt)
        i += 1
    return out


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


def python_inside():
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
        probe = bwrap_command([python_inside(), "-I", "-c", "import sys, os; print(os.getuid())"],
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
