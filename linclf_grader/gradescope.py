"""Build and run a Gradescope autograder bundle for one exercise set.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once
when it builds the image (as root) and ``/autograder/run_autograder`` for every
submission (as root), and reads ``/autograder/results/results.json``.

The bundle (:func:`write_bundle`) holds

* a wheel of the *installed* ``linclf`` and ``linclf_grader`` packages, made
  from the files of the running installation (no checkout needed: a
  ``pip install linclf`` suffices);
* ``requirements.txt`` with the exact versions of numpy, sympy, matplotlib
  (and scipy when installed) of the environment that built it, and
  ``bundle.json`` with the set, ``--timeout``, ``--memory`` and the Python
  version it was built with;
* the instructor's private tests of **this set only**: of the ``*.py`` files in
  ``--tests DIR``, only those that declare tests of the set are shipped, so
  ``--tests exercises/solutions`` ships ``solutions/SET.py`` (the hidden tests
  of the chosen set and the reference they call) and no other set's file.
  Without ``--tests`` no reference solution is shipped.

``setup.sh`` installs Debian's ``bubblewrap`` (and Python) when missing,
creates ``/autograder/venv`` with the pinned requirements and the wheel, and
checks that the sandbox starts.  ``run_autograder`` calls :func:`run`, which
finds the submitted notebook (``.ipynb``, else ``.py``) anywhere under
``/autograder/submission`` (subfolders included), takes the student id from
``submission_metadata.json``, grades it with the bundle's limits and writes
``results.json``.  Since Gradescope runs it as root, every worker runs under
bubblewrap *and* as a fresh unprivileged uid without capabilities
(:mod:`linclf_grader.sandbox`); ``/autograder`` is not even visible inside the
sandbox, and ``setup.sh`` makes ``/autograder/source`` readable by root only.
``LINCLF_AUTOGRADER_ROOT`` replaces ``/autograder`` (the test suite runs the
bundle against a fake tree).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import zipfile
from pathlib import Path

from .framework import get_set, load_private_tests

PINNED = ("numpy", "sympy", "matplotlib", "scipy")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope image setup: bubblewrap, Python, the pinned stack and this linclf.
set -euo pipefail
ROOT=${LINCLF_AUTOGRADER_ROOT:-/autograder}
need=""
command -v bwrap >/dev/null 2>&1 || need="$need bubblewrap"
[ -x /usr/bin/setpriv ] || need="$need util-linux"
# the pins in requirements.txt are those of the Python the bundle was built with ({python}):
# use that Python (Ubuntu ships python{python} as a package), never another one
PY=""
for cand in python{python} python3; do
  if command -v "$cand" >/dev/null 2>&1 && \
     [ "$("$cand" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "{python}" ]; then
    PY=$cand; break
  fi
done
[ -n "$PY" ] || need="$need python{python} python{python}-venv"
[ -z "$PY" ] || "$PY" -c "import venv, ensurepip" >/dev/null 2>&1 || need="$need python{python}-venv"
if [ -n "$need" ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need
fi
PY=${PY:-python{python}}
if ! command -v "$PY" >/dev/null 2>&1; then
  echo "setup.sh: this bundle needs Python {python} (its pins were resolved there), which the" \
       "image cannot install; rebuild the bundle with the image's Python" >&2
  exit 1
fi
"$PY" -m venv "$ROOT/venv"
"$ROOT/venv/bin/pip" install -q -r "$ROOT/source/requirements.txt"
"$ROOT/venv/bin/pip" install -q --no-deps "$ROOT/source/{wheel}"
# the submissions' workers must be able to read the environment, nothing else of /autograder
chmod -R a+rX "$ROOT/venv"
chmod -R go-rwx "$ROOT/source"
"$ROOT/venv/bin/python" -c "from linclf_grader.sandbox import check_isolation as c; print('sandbox:', c())"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Grade the submission for set "{set_name}" (see linclf_grader/gradescope.py).
ROOT=${{LINCLF_AUTOGRADER_ROOT:-/autograder}}
exec "$ROOT/venv/bin/python" -I -m linclf_grader.gradescope "$ROOT/source/bundle.json"
"""


def _installed_files():
    """(archive name, path) of every file of the installed linclf and linclf_grader."""
    import linclf
    import linclf_grader

    files = []
    for pkg in (linclf, linclf_grader):
        base = Path(pkg.__file__).resolve().parent
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.append((f"{base.name}/{path.relative_to(base).as_posix()}", path))
    return files


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [name, f"sha256={digest}", str(len(data))]


def build_wheel(dest):
    """Write a wheel of the installed packages into ``dest``; return its path."""
    try:
        version = importlib.metadata.version("linclf")
    except importlib.metadata.PackageNotFoundError:
        version = "0.0.0"
    dist = f"linclf-{version}.dist-info"
    path = Path(dest) / f"linclf-{version}-py3-none-any.whl"
    deps = "".join(f"Requires-Dist: {name}\n" for name in ("numpy", "matplotlib", "sympy"))
    meta = {
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: linclf\nVersion: {version}\n{deps}",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: linclf_grader.gradescope\n"
                         "Root-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/entry_points.txt": "[console_scripts]\nlinclf-grade = linclf_grader.cli:main\n",
    }
    rows = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, src in _installed_files():
            data = src.read_bytes()
            zf.writestr(name, data)
            rows.append(_record_line(name, data))
        for name, text in meta.items():
            zf.writestr(name, text)
            rows.append(_record_line(name, text.encode()))
        rows.append([f"{dist}/RECORD", "", ""])
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        zf.writestr(f"{dist}/RECORD", buf.getvalue())
    return path


def pinned_requirements():
    """``name==version`` of the running environment's packages the grader needs."""
    lines = []
    for name in PINNED:
        try:
            lines.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            if name != "scipy":
                raise ValueError(f"the Gradescope bundle needs {name} installed") from None
    return "\n".join(lines) + "\n"


def private_test_files(tests, exset):
    """The ``*.py`` files of ``tests`` that declare tests of ``exset`` (only those are shipped)."""
    tests = Path(tests)
    if not tests.is_dir():
        raise ValueError(f"--tests {tests}: not a directory")
    chosen = []
    for path in sorted(tests.glob("*.py")):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(path, Path(tmp) / path.name)
            try:
                found = load_private_tests(tmp, exset)
            except Exception as exc:  # a broken test file must not be shipped silently
                raise ValueError(f"--tests {path}: {type(exc).__name__}: {exc}") from None
        if found:
            chosen.append(path)
    return chosen


def write_bundle(set_name, out_dir, *, tests=None, timeout=10.0, memory=1024):
    """Write ``setup.sh``, ``run_autograder`` and ``autograder_SET.zip`` into ``out_dir``.

    ``memory`` is in MiB, ``timeout`` in seconds (one call).  Returns the zip's path.
    """
    exset = get_set(set_name)  # validates the name
    if float(timeout) <= 0 or int(memory) < 256:
        raise ValueError("--timeout > 0 and --memory >= 256 are required")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shipped = private_test_files(tests, exset) if tests else []
    with tempfile.TemporaryDirectory() as tmp:
        wheel = build_wheel(tmp)
        config = {"set": set_name, "timeout": float(timeout), "memory": int(memory),
                  "tests": bool(shipped), "python": "%d.%d" % sys.version_info[:2]}
        files = {
            "setup.sh": SETUP_SH.replace("{wheel}", wheel.name).replace(
                "{python}", "%d.%d" % sys.version_info[:2]),
            "run_autograder": RUN_AUTOGRADER.format(set_name=set_name),
            "requirements.txt": pinned_requirements(),
            "bundle.json": json.dumps(config, indent=1) + "\n",
        }
        for name in ("setup.sh", "run_autograder"):
            path = out / name
            path.write_text(files[name])
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        zip_path = out / f"autograder_{set_name}.zip"
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, text in files.items():
                info = zipfile.ZipInfo(name)
                info.external_attr = (0o755 if name in ("setup.sh", "run_autograder") else 0o644) << 16
                zf.writestr(info, text)
            zf.write(wheel, wheel.name)
            for path in shipped:
                zf.write(path, f"tests/{path.name}")
    return zip_path


# --------------------------------------------------------------------------
# inside Gradescope: run_autograder
# --------------------------------------------------------------------------
_SKIP_DIRS = {".ipynb_checkpoints", "__MACOSX", "__pycache__"}


def find_submission(folder, set_name):
    """The file to grade under ``folder`` (subfolders too): a notebook before a ``.py``,
    a file named after the set before any other; None if there is none."""
    found = []
    for path in sorted(Path(folder).rglob("*")):
        rel = path.relative_to(folder).parts
        if any(p in _SKIP_DIRS or p.startswith(".") for p in rel) or not path.is_file():
            continue
        if path.suffix in (".ipynb", ".py"):
            found.append(path)
    if not found:
        return None
    return min(found, key=lambda p: (p.suffix != ".ipynb", p.stem != set_name, len(p.parts), str(p)))


def _student_id(root):
    try:
        user = json.loads((root / "submission_metadata.json").read_text())["users"][0]
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    raw = str(user.get("sid") or str(user.get("email", "")).split("@")[0] or user.get("id", ""))
    keep = "".join(c if c.isalnum() or c in "_.@+-" else "_" for c in raw).lstrip("_.@+-")[:100]
    return keep or None


def _write_results(root, results):
    dest = root / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "results.json").write_text(json.dumps(results, indent=1))


def run(config_path):
    """Grade ``/autograder/submission`` with the bundle's settings; return an exit status."""
    from .cli import main as grade_main

    root = Path(os.environ.get("LINCLF_AUTOGRADER_ROOT") or "/autograder")
    config = json.loads(Path(config_path).read_text())
    sub = find_submission(root / "submission", config["set"])
    if sub is None:
        _write_results(root, {"score": 0, "tests": [],
                              "output": "No .ipynb or .py file was found in the submission."})
        return 0
    with tempfile.TemporaryDirectory(prefix="linclf-gs-") as tmp:
        out = Path(tmp) / "out"
        args = [str(sub), "--set", config["set"], "--timeout", str(config["timeout"]),
                "--memory", str(config["memory"]), "--out", str(out), "--quiet"]
        if config.get("tests"):
            args += ["--tests", str(root / "source" / "tests")]
        sid = _student_id(root)
        if sid:
            args += ["--student", sid]
        status = grade_main(args)
        from .grade import unique_labels

        results = out / unique_labels([str(sub)])[0] / "results.json"
        if status not in (0, 1) or not results.exists():
            _write_results(root, {"score": 0, "tests": [], "output":
                                  "The autograder could not grade this submission (a problem on "
                                  "the course's side, not yours); your instructor has been told."})
            return 1
        _write_results(root, json.loads(results.read_text()))
    return status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1]))
