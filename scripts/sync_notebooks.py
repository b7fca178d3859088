"""Generate the Jupyter notebooks that Binder and Colab open from the MyST sources.

Every page in ``chapters/*.md`` and ``exercises/*.md`` that is a jupytext MyST
notebook (it has a ``kernelspec``) becomes ``notebooks/NN_name.ipynb`` (chapters)
or ``notebooks/exercises/SET.ipynb`` (exercise sets); the mapping lives in
``book_ext/notebook_map.py``. Outputs are never stored: the notebooks are
sources, executed by the reader.

    python scripts/sync_notebooks.py           # (re)write the notebooks
    python scripts/sync_notebooks.py --check   # exit 1 if any is out of step

``tests/test_notebooks.py`` uses :func:`expected_notebooks` to check that the
committed notebooks match their sources.

A "check your understanding" quiz (the ``quiz`` directive, ``book_ext/quiz_spec.py``)
has no interactive form in a notebook: its question and choices stay in place as
markdown, and the answers with their explanations go to a last markdown cell,
"Answers to the quiz questions", at the end of the chapter.

The first cell of every generated notebook is the self-install cell (hidden on
the website): on Colab or a bare Binder it installs linclf from the repository
named in ``_config.yml`` (``repository.url``), the one place that names it, so a
fork of the book is one edit there. The MyST sources carry no such cell.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book_ext"))

from notebook_map import NOTEBOOK_DIRS, notebook_for  # noqa: E402
from quiz_spec import ANSWERS_TITLE, FENCE_RE, answer_markdown, parse_quiz, question_markdown  # noqa: E402


# Modules a page may import that Colab does not ship -> their pip names.
EXTRA_PACKAGES = {"myst_nb": "myst-nb"}
# the grader recognises (and drops) the install cell by this first line
from linclf_grader.notebook import INSTALL_CELL_MARKER as INSTALL_MARKER  # noqa: E402


def repository_url() -> str:
    """The book's repository, from ``_config.yml``."""
    return yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]


def install_cell_source(url: str, extras: list[str]) -> str:
    """The self-install cell: a no-op where linclf is importable."""
    # a bare VCS URL (not "linclf @ URL"): PEP 508 rejects file:/// URLs, which the tests use
    pip = " ".join([f'"git+{url}"', "sympy", "ipywidgets", *extras])
    return (
        f"{INSTALL_MARKER}, fetch linclf from the book's repository\n"
        "# (and what the page needs besides). Does nothing if linclf is importable.\n"
        "try:\n"
        "    import linclf\n"
        "except ImportError:\n"
        f"    %pip install --quiet {pip}\n"
        "    import linclf"
    )


def _extras(cells) -> list[str]:
    imported = set()
    for cell in cells:
        if cell.cell_type == "code":
            imported |= set(re.findall(r"^\s*(?:from|import)\s+(\w+)", cell.source, re.M))
    return sorted(pip for module, pip in EXTRA_PACKAGES.items() if module in imported)


def quizzes_to_markdown(cells) -> str | None:
    """Replace each quiz directive of the markdown ``cells`` by its question, in place.

    Returns the markdown of the answers section (``None`` when there are no quizzes).
    """
    answers = []

    def question(match):
        quiz = parse_quiz(match.group("id"), match.group("body"))
        answers.append(answer_markdown(quiz, len(answers) + 1))
        return question_markdown(quiz, len(answers))

    for cell in cells:
        if cell.cell_type == "markdown":
            cell.source = FENCE_RE.sub(question, cell.source)
    if not answers:
        return None
    return f"## {ANSWERS_TITLE}\n\n" + "\n".join(answers).rstrip()


def is_notebook_source(path: Path) -> bool:
    """True for MyST markdown files with a jupytext header and a kernelspec."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    header = text.split("---", 2)[1] if text.count("---") >= 2 else ""
    return "kernelspec:" in header and "format_name: myst" in header


def sources() -> list[Path]:
    """The MyST notebook sources, sorted."""
    found = []
    for folder in NOTEBOOK_DIRS:
        found.extend(p for p in sorted((ROOT / folder).glob("*.md")) if is_notebook_source(p))
    return found


def to_ipynb_text(source: Path, url: str | None = None) -> str:
    """The notebook generated from ``source``, as the exact text to store.

    ``url`` is the repository the install cell installs from (default: the one
    in ``_config.yml``; a test points it at the local checkout).
    """
    nb = jupytext.read(source, fmt="md:myst")
    # Drop jupytext's own bookkeeping (format and version of the text file): the
    # .ipynb is a plain notebook, not a paired one.
    nb.metadata.pop("jupytext", None)
    nb.cells = [c for c in nb.cells if not c.source.lstrip().startswith(INSTALL_MARKER)]
    install = nbformat.v4.new_code_cell(
        install_cell_source(url or repository_url(), _extras(nb.cells)),
        metadata={"tags": ["remove-cell"]},
    )
    nb.cells.insert(0, install)
    answers = quizzes_to_markdown(nb.cells)
    if answers:
        nb.cells.append(nbformat.v4.new_markdown_cell(answers))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        # Cell ids would be random for every run; derive them from the position.
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
    nb.metadata.setdefault("language_info", {"name": "python"})
    nbformat.validate(nb)
    return nbformat.writes(nb, version=4) + "\n"


def expected_notebooks() -> dict[Path, str]:
    """{notebook path: expected text} for every source."""
    out = {}
    for src in sources():
        docname = src.relative_to(ROOT).with_suffix("").as_posix()
        out[ROOT / notebook_for(docname)] = to_ipynb_text(src)
    return out


def expected_book_cells() -> str:
    """The text of ``linclf_grader/book_cells.json``: the book's own code cells of every
    exercise page, which the grader recognises in a submitted notebook (and never runs
    when the page hides them)."""
    from linclf_grader import get_set
    from linclf_grader.notebook import page_book_cells

    out = {}
    for src in sorted((ROOT / "exercises").glob("*.md")):
        if not is_notebook_source(src):
            continue
        signatures = [ex.signature for ex in get_set(src.stem).exercises.values()]
        out[src.stem] = page_book_cells(src.read_text(encoding="utf-8"), signatures)
    return json.dumps(out, indent=1, sort_keys=True) + "\n"


def book_cells_path() -> Path:
    from linclf_grader.notebook import BOOK_CELLS

    return BOOK_CELLS


def stale_notebooks() -> list[Path]:
    """Notebooks that are missing or differ from what their source generates."""
    return [
        path
        for path, text in expected_notebooks().items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def orphan_notebooks() -> list[Path]:
    """Generated notebooks whose source no longer exists."""
    expected = set(expected_notebooks())
    found = set()
    for folder in NOTEBOOK_DIRS.values():
        found.update((ROOT / folder).glob("*.ipynb"))
    return sorted(found - expected)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    if args.check:
        stale, orphans = stale_notebooks(), orphan_notebooks()
        if not book_cells_path().is_file() or book_cells_path().read_text() != expected_book_cells():
            stale.append(book_cells_path())
        for path in stale:
            print(f"out of step: {path.relative_to(ROOT)}")
        for path in orphans:
            print(f"no source:   {path.relative_to(ROOT)}")
        if stale or orphans:
            print("run: python scripts/sync_notebooks.py")
            return 1
        print(f"sync_notebooks: {len(expected_notebooks())} notebooks in step")
        return 0
    written = 0
    for path, text in expected_notebooks().items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written += 1
            print(f"wrote {path.relative_to(ROOT)}")
    book = expected_book_cells()
    if not book_cells_path().is_file() or book_cells_path().read_text(encoding="utf-8") != book:
        book_cells_path().write_text(book, encoding="utf-8")
        written += 1
        print(f"wrote {book_cells_path().relative_to(ROOT)}")
    for path in orphan_notebooks():
        path.unlink()
        print(f"removed {path.relative_to(ROOT)} (its source is gone)")
    print(f"sync_notebooks: {written} written, {len(expected_notebooks())} in total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
