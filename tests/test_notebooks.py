"""The generated notebooks (notebooks/*.ipynb) that Binder and Colab open.

* They are in step with their MyST sources (regenerated in memory and compared).
* Their first code cell makes them self-sufficient: it installs linclf from the
  repository named in _config.yml when linclf is not importable, and is hidden
  on the website.
* Each runs top to bottom in a fresh kernel (nbclient, the repository's
  ``python3`` kernel), as a reader would run it: without LINCLF_BOOK_BUILD, so
  the demos take their live-widget path.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").rglob("*.ipynb"))
REPO_URL = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
CELL_TIMEOUT = 600  # a hang guard, not a speed goal
# Modules a notebook may import that Colab does not ship (it has numpy,
# matplotlib, scipy, sympy and ipywidgets) -> their pip names.
EXTRA_PACKAGES = {"myst_nb": "myst-nb"}


def _sync_module():
    spec = importlib.util.spec_from_file_location("sync_notebooks", ROOT / "scripts" / "sync_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _id(path: Path) -> str:
    return path.relative_to(ROOT / "notebooks").as_posix()


def test_notebooks_in_step_with_sources():
    sync = _sync_module()
    expected = sync.expected_notebooks()
    assert expected, "no MyST notebook sources found"
    stale = [p.relative_to(ROOT).as_posix() for p in sync.stale_notebooks()]
    orphans = [p.relative_to(ROOT).as_posix() for p in sync.orphan_notebooks()]
    assert not stale, f"out of step with their sources (run scripts/sync_notebooks.py): {stale}"
    assert not orphans, f"notebooks without a source: {orphans}"
    assert set(expected) == set(NOTEBOOKS)


def test_every_chapter_has_a_notebook():
    for src in sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md")):
        assert (ROOT / "notebooks" / f"{src.stem}.ipynb").is_file(), f"no notebook for {src.name}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_notebook_metadata_and_install_cell(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "jupytext" not in nb.metadata
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    assert all(c.outputs == [] and c.execution_count is None for c in code), "outputs stored"
    first = code[0]
    src = first.source
    assert "import linclf" in src and "except ImportError" in src, "first cell is not the self-install cell"
    # One install attempt, no dead handler left over from edits.
    assert src.count("except ImportError") == 1 and src.count("%pip install") == 1, (
        "the install cell must try exactly one install"
    )
    assert f"git+{REPO_URL}" in src, f"the install cell must install from {REPO_URL}"
    tags = set(first.metadata.get("tags", []))
    assert tags & {"remove-cell", "hide-cell"}, "the install cell must be hidden on the website"
    # Whatever the notebook imports that Colab lacks must be installed with linclf.
    imported = set()
    for cell in code[1:]:
        imported |= set(re.findall(r"^\s*(?:from|import)\s+(\w+)", cell.source, re.M))
    for module, pip_name in EXTRA_PACKAGES.items():
        if module in imported:
            assert re.search(rf"%pip install .*\b{re.escape(pip_name)}\b", src), (
                f"the notebook imports {module} but the install cell does not install {pip_name}"
            )


def test_install_cell_is_a_no_op_when_linclf_is_importable():
    first = next(c for c in nbformat.read(ROOT / "notebooks" / "01_discriminants.ipynb", 4).cells
                 if c.cell_type == "code")
    from IPython.core.inputtransformer2 import TransformerManager

    calls = []

    class FakeShell:
        def run_line_magic(self, name, line):
            calls.append((name, line))

    code = TransformerManager().transform_cell(first.source)
    exec(compile(code, "install-cell", "exec"), {"get_ipython": lambda: FakeShell()})
    assert calls == [], "the install cell ran pip although linclf is importable"
    # ...and with linclf hidden it asks pip for the repository
    import builtins

    real_import = builtins.__import__

    def no_linclf(name, *args, **kwargs):
        if name == "linclf" and not calls:
            raise ImportError("simulated: linclf not installed")
        return real_import(name, *args, **kwargs)

    builtins.__import__ = no_linclf
    try:
        exec(compile(code, "install-cell", "exec"), {"get_ipython": lambda: FakeShell()})
    finally:
        builtins.__import__ = real_import
    assert len(calls) == 1 and calls[0][0] == "pip" and f"git+{REPO_URL}" in calls[0][1]


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_notebook_runs_top_to_bottom(path, tmp_path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    env_backup = os.environ.pop("LINCLF_BOOK_BUILD", None)
    try:
        client = NotebookClient(
            nb,
            timeout=CELL_TIMEOUT,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
    finally:
        if env_backup is not None:
            os.environ["LINCLF_BOOK_BUILD"] = env_backup
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    if path.name == "01_discriminants.ipynb":
        # in a live kernel the demo is an ipywidgets slider, not the static frames
        mimes = {k for c in nb.cells if c.cell_type == "code" for o in c.outputs for k in o.get("data", {})}
        assert "application/vnd.jupyter.widget-view+json" in mimes


def test_kernel_is_this_python():
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    exe = spec.argv[0]
    assert exe in ("python", "python3", "{python}") or Path(exe).resolve().parent == Path(sys.executable).resolve().parent


def test_binder_environment_installs_the_repository():
    reqs = (ROOT / "binder" / "requirements.txt").read_text().split("\n")
    lines = [line.split("#")[0].strip() for line in reqs]
    lines = [line for line in lines if line]
    assert "." in lines or "-e ." in lines, "binder/requirements.txt must install linclf from the repository"
    lock = {}
    for line in (ROOT / "requirements" / "lock.txt").read_text().splitlines():
        if "==" in line:
            name, version = line.split("==", 1)
            lock[name.strip().lower()] = version.strip()
    for line in lines:
        if "==" in line:
            name, version = line.split("==", 1)
            assert lock.get(name.lower()) == version, f"binder pin {line} differs from requirements/lock.txt"
    pinned = {line.split("==")[0].lower() for line in lines if "==" in line}
    assert {"numpy", "matplotlib", "sympy", "ipywidgets", "myst-nb"} <= pinned
    # every third-party module a page's code imports is pinned for Binder
    dist = {"sklearn": "scikit-learn", "myst_nb": "myst-nb"}
    provided = {"linclf", "linclf_grader", "IPython", "ipywidgets"}  # the repository itself; Jupyter's own
    code_re = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)
    imported = set()
    for page in [*ROOT.glob("chapters/*.md"), *ROOT.glob("appendices/*.md"), *ROOT.glob("exercises/*.md")]:
        for code in code_re.findall(page.read_text(encoding="utf-8")):
            for frm, imp in re.findall(r"^\s*(?:from\s+(\w+)[\w.]*\s+import\s|import\s+(\w+))", code, re.M):
                imported.add(frm or imp)
    missing = {m for m in imported - provided - set(sys.stdlib_module_names)
               if dist.get(m, m).lower() not in pinned}
    assert not missing, f"binder/requirements.txt lacks {sorted(missing)}"


def test_the_install_cell_follows_the_configured_repository(tmp_path):
    # Forking the book is one edit: repository.url in _config.yml.
    sync = _sync_module()
    src = ROOT / "exercises" / "fisher.md"
    fork = nbformat.reads(sync.to_ipynb_text(src, url="https://example.org/fork/book"), 4)
    first = fork.cells[0].source
    assert 'git+https://example.org/fork/book"' in first and REPO_URL not in first
    assert sum("%pip install" in c.source for c in fork.cells) == 1


@pytest.mark.slow
def test_a_notebook_runs_in_a_colab_like_environment(tmp_path):
    """A fresh venv with only what Colab ships; the install cell fetches linclf from this checkout."""
    import subprocess

    from nbclient import NotebookClient

    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("not a git checkout: pip cannot install git+file:// from it")
    env_dir = tmp_path / "colab"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "numpy", "matplotlib", "sympy", "ipywidgets", "ipykernel"], check=True, timeout=900)
    # (run from tmp_path: python -c puts the working directory, the checkout, on sys.path)
    probe = subprocess.run([str(py), "-c", "import linclf"], capture_output=True, cwd=tmp_path)
    assert probe.returncode != 0, "the fresh environment must not have linclf yet"
    subprocess.run([str(py), "-m", "ipykernel", "install", "--prefix", str(env_dir), "--name", "colab-like"],
                   check=True, capture_output=True)
    sync = _sync_module()
    nb = nbformat.reads(sync.to_ipynb_text(ROOT / "exercises" / "discriminants.md", url=f"file://{ROOT}"), 4)
    env_backup = {k: os.environ.get(k) for k in ("JUPYTER_PATH", "LINCLF_BOOK_BUILD")}
    os.environ["JUPYTER_PATH"] = str(env_dir / "share" / "jupyter")
    os.environ.pop("LINCLF_BOOK_BUILD", None)
    try:
        NotebookClient(nb, timeout=900, kernel_name="colab-like",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
    finally:
        for key, value in env_backup.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    installed = subprocess.run([str(py), "-c", "import linclf, sys; print(linclf.__file__)"],
                               capture_output=True, text=True, cwd=tmp_path)
    assert installed.returncode == 0 and str(env_dir) in installed.stdout


def test_only_the_configuration_names_the_repository():
    # the install cells come from _config.yml; no page of the book copies the address
    pages = [*(ROOT / "chapters").glob("*.md"), *(ROOT / "exercises").glob("*.md"),
             *(ROOT / "appendices").glob("*.md"), ROOT / "intro.md"]
    copies = [p.relative_to(ROOT).as_posix() for p in pages if REPO_URL in p.read_text()]
    assert not copies, f"the repository URL is copied into {copies}; it belongs in _config.yml only"
    sync = _sync_module()
    generated = [nbformat.reads(text, 4) for text in sync.expected_notebooks().values()]
    assert all(f"git+{REPO_URL}" in nb.cells[0].source for nb in generated)
