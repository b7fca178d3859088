"""Where the generated notebook of each book page lives (one rule, used twice).

``scripts/sync_notebooks.py`` writes the notebooks and ``linclf_book`` points
the Binder/Colab buttons at them, so both import this module.
"""

from __future__ import annotations

from pathlib import PurePosixPath

# source folder (relative to the repository root) -> notebook folder
NOTEBOOK_DIRS = {
    "chapters": "notebooks",
    "exercises": "notebooks/exercises",
    "appendices": "notebooks/appendices",
}


def notebook_for(docname: str) -> str | None:
    """Repository-relative path of the ``.ipynb`` generated from ``docname``.

    ``docname`` is a Sphinx docname such as ``"chapters/01_discriminants"``;
    returns ``"notebooks/01_discriminants.ipynb"``, or ``None`` for pages
    that are not generated into notebooks (the intro, appendices, solutions).
    """
    path = PurePosixPath(docname)
    parent = str(path.parent)
    if parent not in NOTEBOOK_DIRS:
        return None
    return f"{NOTEBOOK_DIRS[parent]}/{path.name}.ipynb"
