"""Every generated notebook runs on the supported floor of its libraries.

`requirements/floor.txt` pins the oldest numpy, scipy, scikit-learn,
matplotlib and sympy the book supports (a stack like the one Colab shipped
through 2025); `pyproject.toml` declares the same floors. This module builds
that environment in a venv (once per machine and pin file, shared by the xdist
workers), and runs each notebook of `notebooks/` top to bottom in a kernel of
that venv that imports linclf from the checkout under test. The lock's versions are covered by tests/test_notebooks.py.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT

FLOOR = ROOT / "requirements" / "floor.txt"
NOTEBOOKS = sorted((ROOT / "notebooks").rglob("*.ipynb"))
LIBRARIES = ("numpy", "scipy", "scikit-learn", "matplotlib", "sympy")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("floor-stack")]


def _floor_pins():
    pins = {}
    for line in FLOOR.read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==")
            pins[name.lower()] = version
    return pins


def _declared_floors():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs += extra
    floors = {}
    for req in reqs:
        m = re.match(r"^([A-Za-z0-9_.-]+)>=([\w.]+)$", req.replace(" ", ""))
        if m:
            floors[m.group(1).lower()] = m.group(2)
    return floors


def _release(version):
    return tuple(int(p) for p in version.split(".")[:2])


def test_floor_file_pins_the_declared_floors():
    pins, floors = _floor_pins(), _declared_floors()
    for lib in LIBRARIES:
        assert lib in pins, f"requirements/floor.txt must pin {lib}"
        assert lib in floors, f"pyproject.toml must declare a floor for {lib}"
        # the tested release is the declared floor's release (2.0.x for >=2.0)
        assert _release(pins[lib]) == _release(floors[lib]), (lib, pins[lib], floors[lib])


def _build_floor_env(env_dir):
    """A venv with exactly the floor pins (linclf itself comes from the checkout, by path)."""
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    pip = [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-r", str(FLOOR)], check=True, timeout=1200)
    versions = subprocess.run(
        [str(py), "-c", "import numpy, scipy, sklearn, matplotlib, sympy;"
         "print(numpy.__version__, scipy.__version__, sklearn.__version__,"
         " matplotlib.__version__, sympy.__version__)"],
        capture_output=True, text=True, check=True, cwd=env_dir.parent).stdout.split()
    pins = _floor_pins()
    assert versions == [pins[lib] for lib in LIBRARIES], versions


@pytest.fixture(scope="module")
def floor_kernel(tmp_path_factory):
    """A Jupyter kernel on the floor stack, importing linclf from this checkout.

    The venv depends only on requirements/floor.txt, so it is built once per machine and
    shared by the xdist workers (a lock file serialises the build; a marker file says it
    finished); the kernel spec, which names this checkout, is each worker's own.
    """
    digest = hashlib.sha256(FLOOR.read_bytes()).hexdigest()[:16]
    shared = Path(tempfile.gettempdir()) / f"linclf-floor-{digest}"
    with open(f"{shared}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "ready").exists():
            shutil.rmtree(shared, ignore_errors=True)
            shared.mkdir(parents=True)
            _build_floor_env(shared / "venv")
            (shared / "ready").write_text(digest)
    spec_root = tmp_path_factory.mktemp("floor-kernel")
    spec = spec_root / "kernels" / "floor-stack"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        # no IPython history: kernels of both workers and both stacks would otherwise share
        # one SQLite file in ~/.ipython, a lock a notebook run has no reason to wait on
        "argv": [str(shared / "venv" / "bin" / "python"), "-m", "ipykernel_launcher",
                 "-f", "{connection_file}", "--HistoryManager.enabled=False"],
        "display_name": "floor stack", "language": "python",
        # linclf from the checkout under test, never an installed copy; IPython's profile
        # directory is this worker's own
        "env": {"PYTHONPATH": str(ROOT), "IPYTHONDIR": str(spec_root / "ipython")}}))
    return spec_root


def test_every_notebook_is_covered():
    names = {p.relative_to(ROOT / "notebooks").as_posix() for p in NOTEBOOKS}
    assert any(n.startswith("exercises/") for n in names)
    assert sum(1 for n in names if re.match(r"\d\d_", n)) == 11


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT / "notebooks").as_posix())
def test_notebook_runs_on_the_floor_stack(path, floor_kernel, tmp_path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    saved = {k: os.environ.get(k) for k in ("JUPYTER_PATH", "LINCLF_BOOK_BUILD")}
    os.environ["JUPYTER_PATH"] = str(floor_kernel)
    os.environ.pop("LINCLF_BOOK_BUILD", None)
    try:
        # the timeouts guard against a hang only (a floor cell runs in seconds); no speed goal
        NotebookClient(nb, timeout=300, startup_timeout=120, kernel_name="floor-stack",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
