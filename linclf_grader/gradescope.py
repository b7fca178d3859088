"""Build a Gradescope autograder bundle for one exercise set.

Gradescope runs ``/autograder/source/setup.sh`` once when the image is built and
``/autograder/run_autograder`` for every submission, and reads
``/autograder/results/results.json``.  The bundle ships the ``linclf`` source
(so the image grades with exactly this version) and, optionally, the
instructor's private tests; it never contains reference solutions.
"""

from __future__ import annotations

import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

from .framework import get_set

SETUP_SH = """#!/usr/bin/env bash
# Gradescope image setup: Python with numpy/sympy and this linclf.
set -euo pipefail
apt-get update -q
apt-get install -y -q python3 python3-pip python3-venv
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q --upgrade pip
/autograder/venv/bin/pip install -q numpy sympy matplotlib
/autograder/venv/bin/pip install -q /autograder/source/linclf-src
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Grade the student's notebook (or .py) for set "{set_name}" and hand Gradescope the results.
set -uo pipefail
cd /autograder/submission
SUB=$(ls *.ipynb 2>/dev/null | head -n 1)
if [ -z "$SUB" ]; then SUB=$(ls *.py 2>/dev/null | head -n 1); fi
mkdir -p /autograder/results
if [ -z "$SUB" ]; then
  echo '{{"score": 0, "output": "No .ipynb or .py file was submitted.", "tests": []}}' \\
    > /autograder/results/results.json
  exit 0
fi
# The student's code runs as an unprivileged uid: keep the private tests out of its reach
# even where the container forbids the mount namespace the worker normally uses.
chmod -R go-rwx /autograder/source/tests 2>/dev/null || true
TESTS=""
if [ -d /autograder/source/tests ]; then TESTS="--tests /autograder/source/tests"; fi
mkdir -p /autograder/work
# whose per-student data to grade with: the submitter's id from Gradescope's metadata
SID=$(/autograder/venv/bin/python - <<'PY'
import json, re
try:
    user = json.load(open("/autograder/submission_metadata.json"))["users"][0]
    raw = str(user.get("sid") or user.get("email", "").split("@")[0] or user.get("id", ""))
    print(re.sub(r"[^A-Za-z0-9_.@+-]", "_", raw).lstrip("_.@+-")[:100])
except Exception:
    pass
PY
)
STUDENT=""
if [ -n "$SID" ]; then STUDENT="--student $SID"; fi
EXT="${{SUB##*.}}"
cp "$SUB" "/autograder/work/submission.$EXT"
/autograder/venv/bin/linclf-grade "/autograder/work/submission.$EXT" --set {set_name} $TESTS $STUDENT \
  --timeout {timeout} --out /autograder/linclf-out --quiet
cp /autograder/linclf-out/submission/results.json /autograder/results/results.json
"""


def _copy_source(dest):
    """Copy the installable linclf source tree (package + pyproject) to ``dest``."""
    root = Path(__file__).resolve().parents[1]
    dest.mkdir(parents=True)
    for name in ("linclf", "linclf_grader"):
        shutil.copytree(root / name, dest / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    pyproject = root / "pyproject.toml"
    if not pyproject.exists():
        raise ValueError("the Gradescope bundle needs linclf's source tree (pyproject.toml not found)")
    shutil.copy2(pyproject, dest / "pyproject.toml")
    readme = root / "README.md"
    if readme.exists():
        shutil.copy2(readme, dest / "README.md")
    else:
        (dest / "README.md").write_text("linclf\n")


def write_bundle(set_name, out_dir, *, tests=None, timeout=10):
    """Write ``setup.sh``, ``run_autograder`` and ``autograder_SET.zip`` into ``out_dir``.

    Returns the path of the zip to upload to Gradescope.
    """
    get_set(set_name)  # validates the name
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "setup.sh": SETUP_SH,
        "run_autograder": RUN_AUTOGRADER.format(set_name=set_name, timeout=timeout),
    }
    for name, text in files.items():
        path = out / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    zip_path = out / f"autograder_{set_name}.zip"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "linclf-src"
        _copy_source(src)
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in files:
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o755 << 16
                zf.writestr(info, files[name])
            for path in sorted(src.rglob("*")):
                if path.is_file():
                    zf.write(path, Path("linclf-src") / path.relative_to(src))
            if tests:
                tests = Path(tests)
                if not tests.is_dir():
                    raise ValueError(f"--tests {tests}: not a directory")
                for path in sorted(tests.glob("*.py")):
                    zf.write(path, Path("tests") / path.name)
    return zip_path
