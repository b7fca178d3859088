"""The PDF edition: corrections to the LaTeX that Sphinx and jupyterbook-latex write.

Run at ``build-finished`` of the LaTeX builder, before ``jupyter-book`` calls
``make`` on ``_build/latex``:

* numbering follows the table of contents: only the two ``numbered`` parts of
  ``_toc.yml`` number their chapters (1-11, as on the website); the front
  matter, the exercise sets and the appendices are unnumbered chapters that
  still appear in the table of contents.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

UNNUMBERED = r"\setcounter{secnumdepth}{-2}% linclf: unnumbered part" + "\n"
NUMBERED = r"\setcounter{secnumdepth}{2}% linclf: numbered part" + "\n"


def number_parts_as_the_toc(tex: str, toc: dict) -> str:
    """Insert secnumdepth switches before every ``\\part`` according to ``numbered``."""
    for part in toc.get("parts", []):
        caption = part["caption"]
        marker = "\\part{" + _latex_escape(caption) + "}"
        if marker not in tex:
            raise ValueError(f"part {caption!r} of _toc.yml not found in the LaTeX output")
        switch = NUMBERED if part.get("numbered") else UNNUMBERED
        if switch + marker not in tex:
            tex = tex.replace(marker, switch + marker, 1)
    # the landing page comes before the first part: unnumbered too
    first = tex.index("\\part{")
    if UNNUMBERED not in tex[:first]:
        begin = tex.index("\\begin{document}") + len("\\begin{document}")
        tex = tex[:begin] + "\n" + UNNUMBERED + tex[begin:]
    return tex


def _latex_escape(text: str) -> str:
    return re.sub(r"-", r"\\sphinxhyphen{}", text)


def fix_latex(outdir: Path, srcdir: Path) -> list[Path]:
    """Apply the corrections to every .tex document in ``outdir``; return them."""
    toc = yaml.safe_load((Path(srcdir) / "_toc.yml").read_text())
    done = []
    for tex_file in Path(outdir).glob("*.tex"):
        text = tex_file.read_text(encoding="utf-8")
        if "\\begin{document}" not in text:
            continue
        tex_file.write_text(number_parts_as_the_toc(text, toc), encoding="utf-8")
        done.append(tex_file)
    return done
