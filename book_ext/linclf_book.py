"""Local Sphinx extension of the linclf book.

* Launch buttons: sphinx-book-theme builds its Binder/Colab URLs from the page's
  source file (``chapters/NN_name.md``), which Colab cannot open. After the
  theme has filled ``header_buttons`` we rewrite those URLs to the generated
  ``notebooks/NN_name.ipynb`` (see ``notebook_map``); pages without a
  generated notebook lose their launch buttons rather than keep broken ones.
* Self-contained pages: sphinx-thebe is loaded by Jupyter Book even with thebe
  off; its scripts carry an off-site URL (unpkg) that is never needed here, so
  they are dropped from every page.
* Execution times are reported, never enforced: a build must not fail because
  the machine is busy. The runtimes are written to
  ``<outdir>/../exec_times.json`` (with, for each notebook, whether this build
  executed it or restored it from the cache that ``scripts/test.sh`` shares
  between its two builds: ``execution_cache.py``), and ``scripts/book.sh``
  lists the notebooks over ``linclf_slow_notebook_seconds``; the speed goal
  itself lives in ``benchmarks/bench_notebooks.py``.
* Folded checks: a code cell tagged ``check`` (with ``hide-input``) holds the
  asserts that verify the text; its fold carries one label on every page
  (``CHECK_PROMPT``), so a reader knows what the closed box contains.
* ``LINCLF_BOOK_BUILD=1`` is set for the executing kernels, so
  ``linclf.interactive`` emits static HTML sliders instead of live widgets.
* Accessibility (``accessibility.py``, ``static/linclf.css``): the built pages
  are corrected for the WCAG 2.1 A/AA rules axe-core checks (label in name,
  language of Chinese text, list roles), links and focus rings get enough
  contrast, the colour mode defaults to light (the theme's empty default
  logged an error on every page) and the site has a favicon.
* PDF edition (``latex_edition.py``): chapter numbering follows ``_toc.yml``.
* Quizzes (``quiz.py``, ``quiz_spec.py``, ``static/linclf-quiz.js``): the
  ``quiz`` directive of the "check your understanding" sections.
* Downloads: the generated notebooks and one zip of them all are served by the
  site (``_static/downloads/``); every page that has a notebook gets it, and
  the zip, in the theme's download menu.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from pathlib import Path

from sphinx.util import logging

import kernel_polls
from accessibility import fix_site
from execution_cache import execution_report, use_shared_cache
from latex_edition import fix_latex
from notebook_map import NOTEBOOK_DIRS, notebook_for

LOGGER = logging.getLogger(__name__)

# The theme's launch URLs end with "<pagename><ext>" (Binder: after
# "urlpath=lab/tree/", Colab: after "/blob/<branch>/").
_SOURCE_SUFFIX = re.compile(r"\.(md|ipynb)$")


def rewrite_launch_buttons(app, pagename, templatename, context, doctree):
    """Point the Binder/Colab buttons of ``pagename`` at its generated notebook."""
    buttons = context.get("header_buttons")
    if not buttons:
        return
    groups = [b for b in buttons if b.get("label") == "launch-buttons"]
    if not groups:
        return
    notebook = notebook_for(pagename)
    srcdir = Path(app.srcdir)
    if notebook is None or not (srcdir / notebook).is_file():
        if notebook is not None:
            LOGGER.warning(
                "%s has no generated notebook %s: run scripts/sync_notebooks.py",
                pagename,
                notebook,
                type="linclf",
                subtype="launch",
            )
        for group in groups:
            buttons.remove(group)
        return
    prefix = app.config.html_theme_options.get("path_to_docs", "").strip("/")
    old_tail = f"{prefix + '/' if prefix else ''}{pagename}"
    for group in groups:
        for button in group.get("buttons", []):
            url = button.get("url")
            if not url:
                continue
            new = _SOURCE_SUFFIX.sub("", url)
            if not new.endswith(old_tail):
                raise RuntimeError(f"unexpected launch URL {url!r} on page {pagename}")
            button["url"] = new[: -len(old_tail)] + notebook


ZIP_NAME = "linear-classifiers-notebooks.zip"
PDF_NAME = "linear-classifiers.pdf"
STATIC = Path(__file__).parent / "static"


def configure_theme(app, config):
    """Our CSS and favicon, and a valid default colour mode for the theme."""
    config.html_static_path = list(config.html_static_path) + [str(STATIC)]
    if not config.html_favicon:
        config.html_favicon = str(STATIC / "favicon.svg")
    # the theme's page template reads default_mode from the context; empty, it
    # logs "invalid theme mode" on every page
    config.html_context = {**config.html_context, "default_mode": "light"}


def make_pages_accessible(app, exception):
    if exception is None and app.builder.format == "html":
        LOGGER.info("linclf: accessibility fixes on %d pages", fix_site(Path(app.outdir)))


def correct_latex(app, exception):
    if exception is None and app.builder.name == "latex":
        for tex in fix_latex(Path(app.outdir), Path(app.srcdir)):
            LOGGER.info("linclf: PDF edition corrections in %s", tex.name)


def stage_downloads(app, config):
    """Copy the generated notebooks and a zip of them into a static folder of the site."""
    src = Path(app.srcdir)
    stage = Path(app.outdir).parent / "downloads-static"
    target = stage / "downloads"
    shutil.rmtree(stage, ignore_errors=True)
    notebooks = sorted(
        p for folder in NOTEBOOK_DIRS.values() for p in (src / folder).glob("*.ipynb")
    )
    for nb in notebooks:
        dest = target / nb.relative_to(src)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(nb, dest)
    target.mkdir(parents=True, exist_ok=True)
    # the PDF edition, when scripts/pdf.sh has built it (scripts/test.sh does, first)
    pdf = Path(app.outdir).parent / "latex" / PDF_NAME
    if pdf.is_file():
        shutil.copyfile(pdf, target / PDF_NAME)
    with zipfile.ZipFile(target / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as zf:
        for nb in notebooks:
            zf.write(nb, nb.relative_to(src).as_posix())
    config.html_static_path = list(config.html_static_path) + [str(stage)]


def add_download_buttons(app, pagename, templatename, context, doctree):
    """Offer the page's notebook and the zip of all notebooks in the download menu."""
    notebook = notebook_for(pagename)
    groups = [b for b in context.get("header_buttons") or [] if b.get("label") == "download-buttons"]
    if notebook is None or not groups or not (Path(app.srcdir) / notebook).is_file():
        return
    pathto = context["pathto"]
    groups[0]["buttons"][:0] = [
        {
            "type": "link",
            "url": pathto(f"_static/downloads/{notebook}", 1),
            "text": ".ipynb",
            "tooltip": "Download this page as a Jupyter notebook",
            "icon": "fas fa-code",
            "label": "download-notebook-button",
        },
        {
            "type": "link",
            "url": pathto(f"_static/downloads/{ZIP_NAME}", 1),
            "text": "all notebooks (.zip)",
            "tooltip": "Download every chapter and exercise notebook",
            "icon": "fas fa-file-archive",
            "label": "download-zip-button",
        },
    ]


def drop_thebe_assets(app, pagename, templatename, context, doctree):
    """Remove sphinx-thebe's scripts (they reference unpkg.com) from the page."""

    def is_thebe(asset):
        name = str(getattr(asset, "filename", asset) or "")
        body = str(getattr(asset, "attributes", {}).get("body", ""))
        return "thebe" in name or "THEBE_JS_URL" in body

    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [a for a in context[key] if not is_thebe(a)]


CHECK_PROMPT = "Check: the code that verifies the claims above"
CHECK_PROMPT_HIDE = "Hide the check"


def label_check_cells(app, doctree):
    """Give every folded ``check`` cell the same label instead of the generic one."""
    from docutils import nodes

    for node in doctree.findall(nodes.container):
        if node.get("nb_element") != "cell_code" or "prompt_show" not in node.attributes:
            continue
        tags = (node.get("cell_metadata") or {}).get("tags", [])
        if "check" in tags:
            node["prompt_show"] = CHECK_PROMPT
            node["prompt_hide"] = CHECK_PROMPT_HIDE


def report_execution_time(app, doctree):
    """Log (never warn: -W would fail the build) a notebook that ran slowly."""
    data = getattr(app.env, "nb_metadata", {}).get(app.env.docname, {}).get("exec_data")
    if not data or data.get("runtime") is None:
        return
    if data["runtime"] > app.config.linclf_slow_notebook_seconds:
        LOGGER.info("slow notebook: %s took %.1f s to execute", app.env.docname, data["runtime"])


def write_execution_times(app, exception):
    """Save the runtimes of the notebooks, executed or restored (see execution_cache), next to the output."""
    if exception is not None:
        return
    out = Path(app.outdir).parent / "exec_times.json"
    out.write_text(json.dumps(execution_report(app), indent=1) + "\n")


def setup(app):
    os.environ["LINCLF_BOOK_BUILD"] = "1"
    # myst-nb executes the chapters with nbclient in this process
    kernel_polls.install()
    app.add_config_value("linclf_slow_notebook_seconds", 20.0, "env", [int, float])
    # The theme adds its launch buttons at priority 501; run after it.
    app.connect("html-page-context", rewrite_launch_buttons, priority=900)
    app.connect("html-page-context", drop_thebe_assets, priority=900)
    app.connect("html-page-context", add_download_buttons, priority=900)
    app.connect("config-inited", stage_downloads)
    app.connect("config-inited", configure_theme)
    app.connect("config-inited", use_shared_cache)
    app.add_css_file("linclf.css")
    app.setup_extension("quiz")
    app.connect("build-finished", make_pages_accessible)
    app.connect("build-finished", correct_latex)
    app.connect("doctree-read", report_execution_time)
    app.connect("doctree-read", label_check_cells)
    app.connect("build-finished", write_execution_times)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
