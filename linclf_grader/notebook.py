"""Turn a submission (``.ipynb`` or ``.py``) into code cells for the worker.

Notebooks are read as JSON (never executed here): the code cells are kept in
order, IPython-only lines are dropped (``%magic``, ``!shell``, ``%%cell``
magics, ``?`` help), and each cell is later executed on its own, so a cell that
plots, prints or fails does not stop the functions defined elsewhere from being
graded.  A ``.py`` file is split at ``# %%`` markers (jupytext/VS Code cells) or
else taken as one cell; the worker executes every cell statement by statement.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

MAX_SUBMISSION_BYTES = 5 * 1024 * 1024
#: First line of the self-install cell that scripts/sync_notebooks.py writes
#: into every generated notebook; the grader drops that cell (it only installs
#: linclf, and its ``import linclf`` is not the student's).
INSTALL_CELL_MARKER = "# Self-install: on Colab or a bare Binder"
_MAGIC = re.compile(r"^\s*(%|!)")
_HELP = re.compile(r"^\s*[\w.]+\s*\?{1,2}\s*$")


class SubmissionError(ValueError):
    """The file cannot be read as a submission."""


def read_submission(path):
    """Return ``(bytes, cells)`` where cells is a list of ``(index, source)``."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SUBMISSION_BYTES + 1)
    except OSError as exc:
        raise SubmissionError(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > MAX_SUBMISSION_BYTES:
        raise SubmissionError(f"{path.name} is larger than {MAX_SUBMISSION_BYTES // 2**20} MB")
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        return data, notebook_cells(data)
    if suffix == ".py":
        text = data.decode("utf-8", errors="replace")
        return data, python_cells(text)
    raise SubmissionError(f"{path.name}: a submission must be a .ipynb or .py file")


def clean_source(source):
    """Drop IPython-only syntax from one cell's source."""
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return ""  # a cell magic (%%time, %%bash ...): the whole cell is not Python
    kept = []
    for line in lines:
        if _MAGIC.match(line) or _HELP.match(line):
            kept.append("")  # keep line numbers stable for error messages
        else:
            kept.append(line)
    return "\n".join(kept)


def notebook_cells(data):
    """Code cells of an ``.ipynb`` (any nbformat 4 notebook, however messy)."""
    try:
        nb = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        raise SubmissionError("the notebook is not valid JSON") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise SubmissionError("the notebook has no list of cells (nbformat 4 expected)")
    cells = []
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        if source.lstrip().startswith(INSTALL_CELL_MARKER):
            continue
        source = clean_source(source)
        if source.strip():
            cells.append((index, source))
    return cells


def python_cells(text):
    """Cells of a ``.py`` file: split at ``# %%`` markers, else one cell."""
    parts = re.split(r"(?m)^# %%.*$", text)
    return [(i, clean_source(p)) for i, p in enumerate(parts) if p.strip()]
