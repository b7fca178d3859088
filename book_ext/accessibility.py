"""Accessibility fixes applied to every built page (WCAG 2.1 A/AA, checked with axe-core).

The theme and the extensions write a few things that assistive technology
reads badly; rather than editing installed packages, the built HTML is
corrected here, once, after the build:

* an ``aria-label`` that hides the visible text of its element (the theme's
  search and colour-mode buttons, myst-nb's "Show code cell source" toggles)
  is removed, so the accessible name is the text a sighted user reads
  (WCAG 2.5.3 "label in name");
* runs of Chinese characters are marked ``lang="zh-Hans"``, so screen readers
  switch voice (WCAG 3.1.2 "language of parts");
* the bibliography's ``role="list"`` gets its ``listitem`` children.

:func:`fix_page` is idempotent, so a page may be fixed twice.

Colours and focus outlines are in ``static/linclf.css``.
"""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString

# CJK Unified Ideographs (+ extension A) and CJK punctuation / full-width forms.
CJK_RUN = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+(?:[\s·、，。（）()\-/]*"
                     r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+)*")
SKIP_TEXT_IN = {"script", "style", "code", "pre", "kbd", "title", "textarea"}


def _words(text):
    return re.sub(r"\s+", " ", text).strip().lower()


def fix_label_in_name(soup):
    """Drop aria-labels that do not contain the element's visible text.

    Icons inside a labelled control are decorative: their tooltips (``title``)
    would otherwise count as visible text that the label does not contain.
    """
    for el in soup.select("[aria-label]"):
        if el.name not in ("button", "summary", "a"):
            continue
        for icon in el.find_all("i"):
            if icon.has_attr("title"):
                del icon["title"]
            icon["aria-hidden"] = "true"
        visible = _words(el.get_text(" "))
        if visible and visible not in _words(el["aria-label"]):
            del el["aria-label"]


def mark_chinese(soup):
    """Wrap each run of Chinese text in ``<span lang="zh-Hans">``."""
    for text in list(soup.find_all(string=CJK_RUN)):
        if not isinstance(text, NavigableString) or text.find_parent(SKIP_TEXT_IN):
            continue
        parent = text.parent
        if parent is not None and parent.get("lang") == "zh-Hans":
            continue
        pieces, last = [], 0
        for m in CJK_RUN.finditer(text):
            if m.start() > last:
                pieces.append(NavigableString(text[last:m.start()]))
            span = soup.new_tag("span", lang="zh-Hans")
            span.string = m.group(0)
            pieces.append(span)
            last = m.end()
        if last < len(text):
            pieces.append(NavigableString(text[last:]))
        for piece in pieces:
            text.insert_before(piece)
        text.extract()


def fix_list_roles(soup):
    """Give the children of ``role="list"`` containers the ``listitem`` role they need.

    docutils marks bibliography entries ``role="doc-biblioentry"``, a role that
    DPUB-ARIA 1.1 deprecates (in favour of ``listitem``) and that is not a
    valid child of ``role="list"``.
    """
    for lst in soup.select('[role="list"]'):
        for child in lst.find_all(recursive=False):
            if child.get("role") in (None, "doc-biblioentry"):
                child["role"] = "listitem"


def fix_page(html: str) -> str:
    soup = BeautifulSoup(html, "html.parser")
    fix_label_in_name(soup)
    mark_chinese(soup)
    fix_list_roles(soup)
    return str(soup)


def fix_site(outdir: Path) -> int:
    """Apply :func:`fix_page` to every page of the built site; return how many."""
    pages = [p for p in Path(outdir).rglob("*.html") if "_static" not in p.parts]
    for page in pages:
        page.write_text(fix_page(page.read_text(encoding="utf-8")), encoding="utf-8")
    return len(pages)
