"""The book build (scripts/book.sh) and the structure of the built website.

The build itself is a test: it must succeed with warnings as errors (-W) and
nitpicky references (-n), with no notebook over its execution budget. The
other tests read the HTML of every page of the table of contents.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, toc_docnames

pytestmark = [pytest.mark.book, pytest.mark.slow]

PAGES = toc_docnames()
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def soup_of(site: Path, docname: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup((site / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")


def test_build_succeeded_with_warnings_as_errors(book_build):
    cmd = book_build["command"].split()
    assert cmd[:2] == [".venv/bin/jupyter-book", "build"]
    assert {"-W", "-n", "--keep-going"} <= set(cmd)
    assert "html" in cmd
    assert book_build["returncode"] == 0, "jupyter-book build -W -n failed: see scripts/book.sh output"


def test_every_chapter_executed(book_build, built_site):
    # Times are reported by scripts/book.sh, never asserted: a busy machine must not fail
    # the build (the speed goal lives in benchmarks/bench_notebooks.py).
    execution = book_build["execution"]
    notebooks = execution["notebooks"]
    chapters = [d for d in PAGES if d.startswith("chapters/")]
    assert chapters, "no chapters in _toc.yml"
    missing = [d for d in chapters if d not in notebooks]
    assert not missing, f"chapters neither executed nor restored during the build: {missing}"
    restored = [d for d in chapters if not notebooks[d]["executed"]]
    if execution["mode"] != "cache":
        assert not restored and execution["cache"] is None
        return
    # scripts/test.sh: the website shows the outputs its PDF build executed into an emptied
    # cache. A chapter restored from an execution older than that emptying (a stale cache)
    # would not have been run by this test run at all.
    assert execution["emptied_at"] is not None, f"{execution['cache']} has no emptied-at stamp"
    stale = [d for d in restored if notebooks[d]["executed_at"] < execution["emptied_at"] - 1]
    assert not stale, f"chapters restored from an execution before the cache was emptied: {stale}"


def test_config_essentials():
    assert str(CONFIG["copyright"]) == "2026" and CONFIG["author"]
    ex = CONFIG["execute"]
    assert ex["execute_notebooks"] in ("force", "cache")
    # the cell timeout guards against a hang; it is no speed goal
    assert ex["allow_errors"] is False and ex["timeout"] >= 300
    assert CONFIG["repository"]["url"] == "https://github.com/linclf/linear-classifiers-book"
    assert CONFIG["repository"]["branch"] == "main"
    assert CONFIG["launch_buttons"].get("thebe") is False
    assert not (ROOT / "_static").exists() or not list((ROOT / "_static").rglob("*.py")), (
        "jupyter-book loads every file of a root _static/ folder as an asset"
    )


@pytest.mark.parametrize("docname", PAGES)
def test_page_built(built_site, docname):
    assert (built_site / f"{docname}.html").is_file(), f"{docname} from _toc.yml was not built"


@pytest.mark.parametrize("docname", PAGES)
def test_page_structure(built_site, docname):
    soup = soup_of(built_site, docname)
    html = str(soup)

    # footer: copyright year and author
    copyright_ = soup.select_one("p.copyright")
    assert copyright_ is not None and "2026" in copyright_.get_text(), "copyright 2026 missing"
    assert f"By {CONFIG['author']}" in soup.get_text(" "), "author missing from the footer"

    # every image has alt text, every figure a numbered caption
    for img in soup.find_all("img"):
        assert (img.get("alt") or "").strip(), f"image without alt text: {str(img)[:120]}"
    for fig in soup.select("figure"):
        cap = fig.find("figcaption")
        assert cap is not None and cap.select_one(".caption-number"), f"figure without a numbered caption: {fig.get('id')}"
        assert fig.find("img") is not None, f"figure {fig.get('id')} has no image"
    # a figure rendered as text means matplotlib's inline backend was not active
    assert not re.search(r"&lt;Figure size \d+x\d+ with \d+ Axes&gt;", html), "a figure was rendered as text"

    # nothing loaded from another host
    for tag, attr in (("script", "src"), ("img", "src"), ("link", "href"), ("iframe", "src")):
        for el in soup.find_all(tag):
            value = el.get(attr) or ""
            if tag == "link" and not set(el.get("rel") or []) & {"stylesheet", "preload", "icon", "modulepreload"}:
                continue
            assert not re.match(r"^(https?:)?//", value), f"off-site <{tag} {attr}={value}>"
    for script in soup.find_all("script"):
        assert "unpkg.com" not in (script.string or ""), "a script refers to unpkg.com (thebe?)"

    # launch buttons open notebooks that exist, never the .md source
    for a in soup.find_all("a", href=True):
        href = a["href"]
        if "mybinder.org" in href or "colab.research.google.com" in href:
            assert ".md" not in href, f"launch link to a markdown file: {href}"
            path = re.search(r"(notebooks/[^?&#]+\.ipynb)", href)
            assert path, f"launch link does not open notebooks/*.ipynb: {href}"
            assert (ROOT / path.group(1)).is_file(), f"launch link to a missing notebook: {href}"

    # no execution error output made it to the page
    assert not soup.select(".output.traceback, .cell_output .traceback"), "traceback on the page"


def test_chapters_have_launch_buttons_and_folded_solutions(built_site):
    for docname in (d for d in PAGES if d.startswith("chapters/")):
        soup = soup_of(built_site, docname)
        hrefs = [a["href"] for a in soup.find_all("a", href=True)]
        assert any("mybinder.org" in h for h in hrefs), f"{docname}: no Binder button"
        assert any("colab.research.google.com" in h for h in hrefs), f"{docname}: no Colab button"
        for sol in soup.select("div.solution"):
            assert "dropdown" in sol["class"], f"{docname}: a solution is not folded"


def test_chapter_one_content(built_site):
    soup = soup_of(built_site, "chapters/01_discriminants")
    text = soup.get_text(" ")
    assert len(soup.select("div.exercise")) >= 2 and len(soup.select("div.solution")) >= 2
    assert soup.select("div.proof") or soup.select("div.theorem"), "no sphinx-proof blocks"
    assert len(soup.select("figure")) >= 2
    assert len(soup.select("div.linclf-slider")) == 1, "the interactive demo is missing"
    slider = soup.select_one("div.linclf-slider")
    assert slider.select_one("input[type=range]") and slider.select_one("img[src^='data:image/png']")
    # glued numbers were substituted (no raw glue roles left)
    assert "{glue" not in text
    # the self-install cell is removed from the website
    assert "git+https://github.com/linclf" not in str(soup)


def test_bibliography(built_site):
    soup = soup_of(built_site, "appendices/references")
    text = soup.get_text(" ")
    for title in ("线性分类模型", "线性学习机器与线性分类器", "支持向量机", "从线性感知器到", "线性模型"):
        assert title in text, f"source document {title!r} missing from the bibliography"
    for needle in ("taxonomic problems", "perceptron: a probabilistic model", "Support-vector networks",
                   "Sequential minimal optimization", "Theory of reproducing kernels",
                   "Working set selection", "LIBSVM"):
        assert needle in text, f"{needle!r} missing from the bibliography"


def test_vendored_assets_present(built_site):
    static = built_site / "_static" / "vendored"
    assert (static / "mathjax" / "tex-chtml.js").is_file()
    assert (static / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()
    assert (static / "html-manager" / "embed-amd.js").is_file()
    assert (static / "require.js").is_file()


def test_notebooks_can_be_downloaded(built_site):
    import zipfile

    downloads = built_site / "_static" / "downloads"
    expected = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").rglob("*.ipynb"))
    assert expected, "no generated notebooks"
    with zipfile.ZipFile(downloads / "linear-classifiers-notebooks.zip") as zf:
        assert sorted(zf.namelist()) == expected
    for docname in (d for d in PAGES if d.startswith(("chapters/", "exercises/"))):
        soup = soup_of(built_site, docname)
        links = {a["href"] for a in soup.select("a[href]")
                 if a["href"].endswith((".ipynb", ".zip")) and "_static/downloads/" in a["href"]}
        stem = docname.split("/")[-1]
        own = [h for h in links if h.endswith(f"/{stem}.ipynb")]
        assert own, f"{docname}: no download link to its notebook"
        assert (built_site / docname).parent.joinpath(own[0]).resolve().is_file(), own[0]
        assert any(h.endswith("linear-classifiers-notebooks.zip") for h in links), docname
    intro = soup_of(built_site, "intro")
    assert intro.select_one("a[href='_static/downloads/linear-classifiers-notebooks.zip']")
    assert "How to cite" in intro.get_text(" ")


def test_citation_file():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["title"] and cff["authors"]
    assert cff["repository-code"] == CONFIG["repository"]["url"]
