"""Shared fixtures: the built website.

``built_site`` builds the book once per test run with ``scripts/book.sh``
(the same command as the README) and returns ``_build/html``. With
``LINCLF_SITE_BUILT=1`` (``scripts/test.sh`` sets it after building) the
existing ``_build/html`` is reused. Under pytest-xdist the workers share one
build through a file lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _install_kernel_polls():
    # the notebook tests run nbclient in this process: read kernel replies as they arrive
    # (book_ext/kernel_polls.py says why)
    import importlib.util

    spec = importlib.util.spec_from_file_location("kernel_polls", ROOT / "book_ext" / "kernel_polls.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.install()


_install_kernel_polls()
BUILD = ROOT / "_build"
SITE = BUILD / "html"
REPORT = BUILD / "build-report.json"
# To check another build (with LINCLF_SITE_BUILT=1): LINCLF_BUILD_DIR is its
# _build folder (holding html/ and build-report.json), LINCLF_TOC its _toc.yml.
if os.environ.get("LINCLF_SITE_BUILT") == "1" and os.environ.get("LINCLF_BUILD_DIR"):
    SITE = Path(os.environ["LINCLF_BUILD_DIR"]) / "html"
    REPORT = Path(os.environ["LINCLF_BUILD_DIR"]) / "build-report.json"
TOC = Path(os.environ.get("LINCLF_TOC", ROOT / "_toc.yml"))


def _run_id() -> str:
    # The same for every xdist worker of one run; unique per run otherwise.
    return os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"


def _build_once() -> dict:
    """Run scripts/book.sh unless this test run already did; return its report."""
    BUILD.mkdir(exist_ok=True)
    stamp = BUILD / ".pytest-build-run"
    log = BUILD / "pytest-book-build.log"
    with open(BUILD / ".pytest-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (stamp.is_file() and stamp.read_text() == _run_id()):
            with open(log, "w") as out:
                subprocess.run(
                    ["bash", str(ROOT / "scripts" / "book.sh")],
                    cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, check=False,
                )
            stamp.write_text(_run_id())
    if not REPORT.is_file():
        tail = log.read_text(errors="replace")[-3000:] if log.is_file() else ""
        pytest.fail(f"scripts/book.sh wrote no {REPORT.relative_to(ROOT)}; log tail:\n{tail}")
    report = json.loads(REPORT.read_text())
    report["log"] = str(log)
    return report


@pytest.fixture(scope="session")
def book_build() -> dict:
    """The build report of scripts/book.sh (returncode, command, wall time, exec times)."""
    if os.environ.get("LINCLF_SITE_BUILT") == "1":
        if not REPORT.is_file():
            pytest.fail("LINCLF_SITE_BUILT=1 but there is no _build/build-report.json: run scripts/book.sh")
        return json.loads(REPORT.read_text())
    return _build_once()


@pytest.fixture(scope="session")
def built_site(book_build) -> Path:
    """Path of the built website (``_build/html``); fails if the build failed."""
    if book_build["returncode"] != 0:
        log = book_build.get("log")
        tail = Path(log).read_text(errors="replace")[-4000:] if log and Path(log).is_file() else ""
        pytest.fail(f"the book build failed (exit {book_build['returncode']}):\n{tail}")
    if not (SITE / "index.html").is_file():
        pytest.fail(f"the book build left no {SITE}/index.html")
    return SITE


def toc_docnames() -> list[str]:
    """Every page of _toc.yml (root first), as Sphinx docnames."""
    import yaml

    toc = yaml.safe_load(TOC.read_text())
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(str(Path(entry["file"]).with_suffix("")) if entry["file"].endswith((".md", ".ipynb")) else entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return names



@pytest.fixture(scope="session")
def installed_linclf_env():
    """A virtual environment with linclf installed from a wheel (tests/grader_env.py)."""
    from grader_env import installed_env

    yield from installed_env()
