"""Turn a submission (``.ipynb`` or ``.py``) into code cells for the worker.

Notebooks are read as JSON (never executed here), whatever saved them (Jupyter,
Colab, Binder, VS Code): the code cells are kept in order and outputs are
ignored.  IPython syntax is rewritten or dropped, keeping line numbers:
``%time stmt``/``%timeit stmt`` keep ``stmt``, other line magics, ``!shell`` and
``?`` help become blank lines; a cell magic that wraps Python (``%%time``,
``%%timeit``, ``%%capture``, ...) runs its body once; any other cell magic
(``%%bash``, ``%%html`` ...) is not Python and the cell is dropped, with a note.

The book's own cells are recognised by their exact text on the set's page
(``book_cells.json``, written by ``scripts/sync_notebooks.py``): the install
cell and the page's hidden helper cells are never run (they use linclf, which
a submission cannot import); the visible ones (imports, ``check(...)``) run as
they are.  Rules are about what a student's function reaches, so a book cell
never counts against a student either way.

A ``.py`` file is split at ``# %%`` markers (jupytext/VS Code cells) or else
taken as one cell.  Sizes: a file may be at most :data:`MAX_FILE_BYTES`; the
*code* it holds (outputs and attachments of a notebook do not count) at most
:data:`MAX_CODE_BYTES`.
"""

from __future__ import annotations

import ast
import dataclasses
import errno
import functools
import json
import os
import re
import stat
from pathlib import Path

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_CODE_BYTES = 1024 * 1024
#: First line of the self-install cell that scripts/sync_notebooks.py writes
#: into every generated notebook; the grader drops that cell (it only installs
#: linclf, and its ``import linclf`` is not the student's).
INSTALL_CELL_MARKER = "# Self-install: on Colab or a bare Binder"
BOOK_CELLS = Path(__file__).with_name("book_cells.json")
_LINE_MAGIC = re.compile(r"^(\s*)%{1}(time|timeit)\s+(?:-\S+\s+)*(.*)$")
_MAGIC = re.compile(r"^\s*(%|!)|^\s*\w+\s*=\s*(!|%)")
_HELP = re.compile(r"^\s*[\w.]+\s*\?{1,2}\s*$|^\s*\?{1,2}\s*[\w.]+\s*$")
#: cell magics whose body is Python that IPython runs (once or more): run it once
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit"})


class SubmissionError(ValueError):
    """The file cannot be read as a submission."""


@dataclasses.dataclass
class Submission:
    """The code of one submission.

    ``cells`` are ``(index, source)`` to run, in order; ``analysed`` adds the
    book's skipped cells (their names exist in a student's kernel, so the rules
    must see them); ``notes`` say what was dropped or rewritten and why.
    """

    data: bytes
    cells: list
    analysed: list
    notes: list


def _norm(source):
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


@functools.lru_cache(maxsize=None)
def _book_cells_all():
    try:
        return json.loads(BOOK_CELLS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def book_cells(set_name):
    """``(skip, run)``: sets of the normalised texts of the book's cells of ``set_name``."""
    entry = _book_cells_all().get(set_name or "", {})
    return frozenset(entry.get("skip", ())), frozenset(entry.get("run", ()))


def page_book_cells(page_text, signatures):
    """The book's code cells of an exercise page: ``{"skip": [...], "run": [...]}``.

    Every code cell but the stubs (cells that start with an exercise's
    ``signature``) is the book's; those tagged ``remove-cell`` are skipped.
    """
    out = {"skip": [], "run": []}
    for options, body in re.findall(r"```\{code-cell\}[^\n]*\n((?::[^\n]*\n)*)(.*?)```",
                                    page_text, flags=re.S):
        body = body.strip("\n")
        if any(body.lstrip().startswith(sig) for sig in signatures):
            continue
        key = "skip" if "remove-cell" in options else "run"
        out[key].append(_norm(body))
    return out


def clean_source(source):
    """Rewrite IPython-only syntax of one cell as Python (line numbers kept).

    Returns ``""`` for a cell that is not Python (``%%bash`` ...).
    """
    try:
        # valid Python is left alone: a continuation line may start with "%" or "!="
        ast.parse(source)
        return source
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    lines = source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split(None, 1)
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:
            return ""
        lines = [""] + lines[1:]  # %%time etc.: the body is Python, run once
    kept = []
    for line in lines:
        m = _LINE_MAGIC.match(line)
        if m:
            kept.append(m.group(1) + m.group(3))
        elif _MAGIC.match(line) or _HELP.match(line):
            kept.append("")  # keep line numbers stable for error messages
        else:
            kept.append(line)
    return "\n".join(kept)


def _cell_magic(source):
    first = source.lstrip().split("\n", 1)[0]
    return first[2:].split(None, 1)[0] if first.startswith("%%") and len(first) > 2 else ""


def read_submission(path, set_name=None):
    """Read ``path`` as a :class:`Submission` of ``set_name`` (its book cells recognised)."""
    path = Path(path)
    try:
        # never through a link: a student could point one at the reference solutions
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SubmissionError(f"{path.name} is a symbolic link; a submission must be a "
                                  "plain file") from None
        raise SubmissionError(f"cannot read {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise SubmissionError(f"{path.name} is not a plain file")
        data = fh.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise SubmissionError(f"{path.name} is larger than {MAX_FILE_BYTES // 2**20} MB")
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        raw = notebook_sources(data)
    elif suffix == ".py":
        text = data.decode("utf-8-sig", errors="replace")  # an editor's BOM is no code
        raw = [(i, p) for i, p in enumerate(re.split(r"(?m)^# %%.*$", text)) if p.strip()]
    else:
        raise SubmissionError(f"{path.name}: a submission must be a .ipynb or .py file")
    code = sum(len(s.encode("utf-8", errors="replace")) for _, s in raw)
    if code > MAX_CODE_BYTES:
        raise SubmissionError(f"{path.name} holds {code / 2**20:.1f} MB of code; at most "
                              f"{MAX_CODE_BYTES // 2**20} MB is graded (outputs do not count)")
    return submission_cells(data, raw, set_name)


def submission_cells(data, raw, set_name=None):
    """Sort raw ``(index, source)`` cells into run / analysed / notes."""
    skip, run = book_cells(set_name)
    cells, analysed, notes = [], [], []
    for index, source in raw:
        normal = _norm(source)
        if normal.startswith(INSTALL_CELL_MARKER) or normal in skip:
            analysed.append((index, clean_source(source)))
            continue  # the book's hidden helper: never run
        cleaned = clean_source(source)
        if not cleaned.strip():
            magic = _cell_magic(source)
            if magic:
                notes.append(f"cell {index}: a %%{magic} cell is not Python; it was not run")
            continue
        cells.append((index, cleaned))
        analysed.append((index, cleaned))
    return Submission(data, cells, analysed, notes)


def notebook_sources(data):
    """``(index, source)`` of the code cells of an ``.ipynb`` (nbformat 4, however messy)."""
    try:
        nb = json.loads(data.decode("utf-8-sig", errors="replace"))
    except (ValueError, RecursionError):
        raise SubmissionError("the notebook is not valid JSON") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise SubmissionError("the notebook has no list of cells (nbformat 4 expected)")
    out = []
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if isinstance(source, str) and source.strip():
            out.append((index, source))
    return out


def notebook_cells(data, set_name=None):
    """Code cells to run of an ``.ipynb``: ``[(index, source)]``."""
    return submission_cells(data, notebook_sources(data), set_name).cells


def python_cells(text):
    """Cells of a ``.py`` file: split at ``# %%`` markers, else one cell."""
    parts = re.split(r"(?m)^# %%.*$", text)
    return [(i, clean_source(p)) for i, p in enumerate(parts) if p.strip()]
