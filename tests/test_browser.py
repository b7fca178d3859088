"""The built website in headless Chromium: every page of the table of contents.

For each page: no failed and no off-site requests, MathJax rendered, every image
loaded, the static demo sliders change their picture when moved, launch links
point at notebooks that exist in the repository, and every internal link
resolves. A full-page screenshot per page goes to ``test-artifacts/``.

Uses Debian's ``/usr/bin/chromium`` through Playwright (never
``playwright install``), one browser and one context for the whole module.
"""

from __future__ import annotations

import functools
import http.server
import re
import socketserver
import threading
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

import pytest

from conftest import ROOT, toc_docnames

pytestmark = [pytest.mark.book, pytest.mark.slow, pytest.mark.xdist_group("browser")]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
ARTIFACTS = ROOT / "test-artifacts"
PAGES = toc_docnames()

# Visible text (outside code, scripts and typeset math) of the page.
VISIBLE_TEXT_JS = """() => {
  const skip = new Set(["SCRIPT", "STYLE", "PRE", "CODE", "MJX-CONTAINER", "NOSCRIPT", "TEXTAREA"]);
  const out = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { out.push(node.textContent); return; }
    if (node.nodeType !== Node.ELEMENT_NODE || skip.has(node.tagName)) return;
    if (node.closest && node.closest(".highlight, .cell_output .output.text_plain")) return;
    for (const child of node.childNodes) walk(child);
  };
  walk(document.querySelector("main") || document.body);
  return out.join(" ");
}"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@pytest.fixture(scope="module")
def server(built_site):
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    httpd = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def context():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        ctx.set_default_timeout(20_000)
        yield ctx
        ctx.close()
        browser.close()


@functools.lru_cache(maxsize=None)
def _ids_of(path: Path) -> frozenset:
    """Every id and name attribute of a built HTML file (link targets)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    ids = {el["id"] for el in soup.find_all(id=True)}
    ids |= {el["name"] for el in soup.find_all("a", attrs={"name": True})}
    return frozenset(ids)


def _repo_path_of_launch(url: str) -> str:
    """The repository path a Binder or Colab URL opens."""
    if "mybinder.org" in url:
        m = re.search(r"urlpath=(?:lab/tree|tree)/([^&#]+)", url)
    else:
        m = re.search(r"/blob/[^/]+/(.+)$", url)
    assert m, f"cannot find the notebook path in launch URL {url}"
    return unquote(m.group(1))


@pytest.mark.parametrize("docname", PAGES)
def test_page(docname, server, context, built_site):
    page = context.new_page()
    requests, failures = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: failures.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.url} (HTTP {r.status})"))
    page_errors = []
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    try:
        url = f"{server}/{docname}.html"
        response = page.goto(url, wait_until="load")
        assert response is not None and response.ok, f"{url}: {response and response.status}"

        # --- MathJax ------------------------------------------------------
        has_math = page.locator("span.math, div.math").count() > 0
        if has_math:
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("() => MathJax.startup.promise")
            assert page.locator("mjx-container").count() > 0, "math on the page but no mjx-container"
            assert page.locator("mjx-merror").count() == 0, "MathJax reported a TeX error"
        text = page.evaluate(VISIBLE_TEXT_JS)
        for raw in ("\\(", "\\)", "\\[", "\\]", "$$"):
            assert raw not in text, f"raw math delimiter {raw!r} left in the visible text"

        # --- images ------------------------------------------------------
        page.evaluate("() => document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
        page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
        broken = page.evaluate(
            "() => Array.from(document.images).filter(i => !(i.naturalWidth > 0)).map(i => i.src.slice(0, 80))"
        )
        assert not broken, f"images that did not load: {broken}"
        no_alt = page.evaluate(
            "() => Array.from(document.images).filter(i => !(i.getAttribute('alt') || '').trim()).map(i => i.src.slice(0, 80))"
        )
        assert not no_alt, f"images without alt text: {no_alt}"

        # --- static demo sliders: moving the control changes the picture ---
        sliders = page.locator("div.linclf-slider")
        for k in range(sliders.count()):
            slider = sliders.nth(k)
            img = slider.locator("img.linclf-slider-frame")
            control = slider.locator("input[type=range]")
            label = slider.locator("output")
            before_src, before_label = img.get_attribute("src"), label.inner_text()
            control.scroll_into_view_if_needed()
            control.focus()
            start = int(control.input_value())
            key = "ArrowRight" if start < int(control.get_attribute("max")) else "ArrowLeft"
            page.keyboard.press(key)
            page.wait_for_function(
                "([el, start]) => el.value !== String(start)", arg=[control.element_handle(), start]
            )
            after_src, after_label = img.get_attribute("src"), label.inner_text()
            assert after_src != before_src, "the slider moved but the image did not change"
            assert after_src.startswith("data:image/png;base64,")
            assert after_label != before_label, "the slider moved but its value label did not change"
            assert page.evaluate("(i) => i.naturalWidth > 0", img.element_handle())

        # --- launch links -------------------------------------------------
        launch = page.evaluate(
            "() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"
            ".filter(h => h.includes('mybinder.org') || h.includes('colab.research.google.com'))"
        )
        if docname.startswith("chapters/"):
            assert any("mybinder.org" in h for h in launch), "chapter without a Binder link"
            assert any("colab.research.google.com" in h for h in launch), "chapter without a Colab link"
        for href in launch:
            target = _repo_path_of_launch(href)
            assert target.endswith(".ipynb"), f"launch link opens {target}, not a notebook"
            assert (ROOT / target).is_file(), f"launch link opens {target}, missing from the repository"

        # --- internal links -----------------------------------------------
        hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
        origin = urlparse(server)
        for href in hrefs:
            parsed = urlparse(href)
            if parsed.scheme not in ("http", "https") or parsed.netloc != origin.netloc:
                continue
            base, fragment = urldefrag(href)
            rel = unquote(urlparse(base).path).lstrip("/")
            target = built_site / rel
            if target.is_dir():
                target = target / "index.html"
            assert target.is_file(), f"broken link {href}"
            if fragment and target.suffix == ".html":
                assert unquote(fragment) in _ids_of(target), f"missing anchor #{fragment} in {rel}"

        # --- screenshot -----------------------------------------------------
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / (docname.replace("/", "__") + ".jpg")), full_page=True,
                        type="jpeg", quality=70)

        # --- requests: nothing failed, nothing left the site -----------------
        offsite = [
            u for u in requests
            if not (u.startswith(server + "/") or u.startswith(("data:", "blob:", "about:")))
        ]
        assert not offsite, f"off-site requests: {offsite}"
        assert not failures, f"failed requests: {failures}"
        assert not page_errors, f"JavaScript errors: {page_errors}"
    finally:
        page.close()


# --------------------------------------------------------------------------- #
# A tiny book built with the real configuration: a slow notebook is reported
# and does not fail the build, a check cell folds under its label, and a live ipywidgets widget must render from the vendored
# embed manager without any off-site request.
# --------------------------------------------------------------------------- #
TINY_PAGE = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
# {title}

```{{code-cell}} ipython3
{code}
```
"""


@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory):
    import subprocess

    import yaml

    src = tmp_path_factory.mktemp("tiny-book")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["exclude_patterns"] = ["_build"]
    config["bibtex_bibfiles"] = [str(ROOT / "references.bib")]
    config["sphinx"]["local_extensions"] = {"linclf_book": str(ROOT / "book_ext")}
    sph = config["sphinx"]["config"]
    sph["html_static_path"] = [str(ROOT / "_vendor_cache" / "static")]
    sph["linclf_slow_notebook_seconds"] = 0.5
    (src / "_config.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    (src / "_toc.yml").write_text("format: jb-book\nroot: index\nchapters:\n  - file: widget\n")
    (src / "index.md").write_text("# Tiny book\n\nText.\n")
    (src / "widget.md").write_text(TINY_PAGE.format(
        title="A widget",
        code="import time, ipywidgets\ntime.sleep(1.0)\nipywidgets.IntSlider(value=3, min=0, max=9, description='n')",
    ) + "\n```{code-cell} ipython3\n:tags: [hide-input, check]\n\nassert 1 + 1 == 2\n```\n")
    proc = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "jupyter-book"), "build", str(src), "-W", "-n", "--keep-going"],
        cwd=src, capture_output=True, text=True, timeout=300,
        env={**__import__("os").environ, "LINCLF_BOOK_BUILD": "1"},
    )
    return src, proc


def test_a_slow_notebook_is_reported_not_failed(tiny_book):
    # the page sleeps 1 s against a 0.5 s threshold: a busy machine looks like this
    _, proc = tiny_book
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert re.search(r"slow notebook: widget took [\d.]+ s to execute", out), out[-2000:]


def test_check_cells_fold_under_one_label(tiny_book):
    import sys

    sys.path.insert(0, str(ROOT / "book_ext"))
    from linclf_book import CHECK_PROMPT

    src, _ = tiny_book
    html = (src / "_build" / "html" / "widget.html").read_text()
    assert html.count(CHECK_PROMPT) == 1, "the check cell's fold must carry the check label"
    after = re.sub(r"<[^>]+>", "", html.split(CHECK_PROMPT, 1)[1]).replace("&#61;", "=")
    assert "assert 1 + 1 == 2" in after, "the check stays on the page"


def test_live_widget_renders_from_vendored_manager(tiny_book, context):
    src, _ = tiny_book
    site = src / "_build" / "html"
    html = (site / "widget.html").read_text()
    assert "_static/vendored/require.js" in html and "_static/vendored/html-manager/embed-amd.js" in html
    assert "application/vnd.jupyter.widget-state+json" in html

    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    page = context.new_page()
    requests, failures = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: failures.append(r.url))
    try:
        page.goto(f"{base}/widget.html", wait_until="load")
        page.wait_for_selector(".widget-slider, .jupyter-widgets.widget-slider", timeout=20_000)
        assert "3" in page.locator(".widget-readout").first.inner_text()
        offsite = [u for u in requests if not u.startswith((base + "/", "data:", "blob:"))]
        assert not offsite, f"off-site requests: {offsite}"
        assert not failures, f"failed requests: {failures}"
    finally:
        page.close()
        httpd.shutdown()
        httpd.server_close()


# ---------------------------------------------------------------------------
# Accessibility: axe-core (npm, pinned, test-only, injected from the local file)
# finds no serious or critical WCAG 2.0/2.1 A/AA violation on any page, and the
# demos work from the keyboard with a visible focus ring.

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="module")
def axe_js():
    import importlib.util

    spec = importlib.util.spec_from_file_location("vendor_assets", ROOT / "scripts" / "vendor_assets.py")
    vendor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(vendor)
    return vendor.test_asset("axe-core")


@pytest.mark.parametrize("docname", PAGES)
def test_page_is_accessible(docname, server, context, axe_js):
    page = context.new_page()
    console_errors = []
    page.on("console", lambda m: m.type == "error" and console_errors.append(m.text))
    try:
        page.goto(f"{server}/{docname}.html", wait_until="load")
        page.add_script_tag(path=str(axe_js))
        violations = page.evaluate(
            """async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))
                 .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                 .map(v => `${v.id} (${v.impact}): ${v.nodes.length} x ${v.nodes[0].html.slice(0, 120)}`)""",
            AXE_TAGS,
        )
        assert not violations, "\n".join(violations)
        assert not console_errors, console_errors
        if docname == "appendices/glossary":
            # Chinese text is marked as such, so screen readers switch language
            n_zh = page.locator('[lang="zh-Hans"]').count()
            assert n_zh > 50, f"only {n_zh} elements marked lang=zh-Hans in the glossary"
    finally:
        page.close()


def test_demo_slider_works_from_the_keyboard_with_a_visible_focus(server, context):
    page = context.new_page()
    try:
        page.goto(f"{server}/chapters/01_discriminants.html", wait_until="load")
        slider = page.locator("div.linclf-slider input[type=range]").first
        image = page.locator("div.linclf-slider img").first
        before = image.get_attribute("src")
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(100)
        assert image.get_attribute("src") != before, "the arrow key did not move the demo"
        outline = slider.evaluate("el => getComputedStyle(el).outlineStyle")
        assert outline not in ("", "none"), f"no visible focus ring on the slider (outline-style {outline})"
    finally:
        page.close()


# ---------------------------------------------------------------------------
# The "check your understanding" quizzes (issue #13), answered on the built site:
# wrong, then right, by mouse and by keyboard; the feedback says why; progress
# survives a reload; the page works when localStorage is blocked; and axe-core
# finds nothing serious in the answered state either.

QUIZ_PAGE = "chapters/01_discriminants"


def _visible_explanations(quiz):
    return quiz.locator(".linclf-quiz-feedback .linclf-quiz-explain:visible")


def _open_quiz_page(context, server, errors):
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{server}/{QUIZ_PAGE}.html", wait_until="load")
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
    return page


def test_quiz_answered_wrong_and_right_by_mouse_and_keyboard(server, context, axe_js):
    errors = []
    page = _open_quiz_page(context, server, errors)
    try:
        page.evaluate("() => { for (const k of Object.keys(localStorage)) "
                      "if (k.startsWith('linclf-quiz:')) localStorage.removeItem(k); }")
        page.reload(wait_until="load")
        quizzes = page.locator("div.linclf-quiz")
        assert quizzes.count() >= 3
        quiz = page.locator("div.linclf-quiz.linclf-quiz-choice").first
        quiz.scroll_into_view_if_needed()
        feedback = quiz.locator(".linclf-quiz-feedback")
        assert feedback.get_attribute("aria-live") == "polite"
        assert _visible_explanations(quiz).count() == 0, "an explanation is shown before any answer"
        options = quiz.locator("button.linclf-quiz-option")
        flags = [options.nth(k).get_attribute("data-correct") for k in range(options.count())]
        right_at, wrong_at = flags.index("true"), flags.index("false")

        # wrong, with the mouse: the verdict and the explanation of *that* choice
        options.nth(wrong_at).click()
        assert options.nth(wrong_at).get_attribute("aria-pressed") == "true"
        assert "Not quite" in feedback.locator(".linclf-quiz-verdict").inner_text()
        shown = _visible_explanations(quiz)
        assert shown.count() == 1 and shown.get_attribute("data-option") == str(wrong_at)
        assert len(shown.inner_text().strip()) > 40, "the feedback does not say why"
        why_wrong = shown.inner_text()

        # right, with the keyboard: Tab to the right choice (the focus ring shows), Enter
        key = "Tab" if right_at > wrong_at else "Shift+Tab"
        for _ in range(abs(right_at - wrong_at)):
            page.keyboard.press(key)
        focused = page.evaluate("() => document.activeElement.getAttribute('data-option')")
        assert focused == str(right_at), "Tab does not move through the choices"
        outline = options.nth(right_at).evaluate("el => getComputedStyle(el).outlineStyle")
        assert outline not in ("", "none"), "no visible focus ring on a quiz choice"
        page.keyboard.press("Enter")
        assert "Correct" in feedback.locator(".linclf-quiz-verdict").inner_text()
        assert options.nth(right_at).get_attribute("aria-pressed") == "true"
        assert options.nth(wrong_at).get_attribute("aria-pressed") == "false"
        shown = _visible_explanations(quiz)
        assert shown.count() == 1 and shown.get_attribute("data-option") == str(right_at)
        assert shown.inner_text() != why_wrong

        # a numeric question, by keyboard only: garbage, an anticipated mistake, the answer
        numeric = page.locator("div.linclf-quiz.linclf-quiz-numeric").first
        field = numeric.locator("input.linclf-quiz-input")
        label = numeric.locator(f"label[for='{field.get_attribute('id')}']")
        assert label.count() == 1 and label.inner_text().strip()
        verdict = numeric.locator(".linclf-quiz-verdict")
        field.focus()
        field.fill("three")
        page.keyboard.press("Enter")
        assert "enter a number" in verdict.inner_text()
        assert field.get_attribute("aria-invalid") == "true"
        mistake = numeric.locator(".linclf-quiz-explain[data-role='mistake']").first
        field.fill(mistake.get_attribute("data-value"))
        page.keyboard.press("Enter")
        assert "Not quite" in verdict.inner_text()
        assert mistake.is_visible(), "an anticipated mistake did not get its own explanation"
        answer = numeric.get_attribute("data-answer")
        field.fill(answer)
        page.keyboard.press("Enter")
        assert "Correct" in verdict.inner_text()
        assert numeric.locator(".linclf-quiz-explain[data-role='correct']").is_visible()

        # answered state: still no serious accessibility problem
        page.add_script_tag(path=str(axe_js))
        violations = page.evaluate(
            """async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))
                 .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                 .map(v => `${v.id} (${v.impact}): ${v.nodes[0].html.slice(0, 120)}`)""",
            AXE_TAGS,
        )
        assert not violations, "\n".join(violations)

        # progress is kept: after a reload both answers are shown again
        page.reload(wait_until="load")
        quiz = page.locator("div.linclf-quiz.linclf-quiz-choice").first
        assert quiz.locator("button.linclf-quiz-option").nth(right_at).get_attribute("aria-pressed") == "true"
        assert "Correct" in quiz.locator(".linclf-quiz-verdict").inner_text()
        numeric = page.locator("div.linclf-quiz.linclf-quiz-numeric").first
        assert numeric.locator("input.linclf-quiz-input").input_value() == answer
        assert not errors, errors
    finally:
        page.close()


def test_quiz_works_when_local_storage_is_blocked(server, context):
    errors = []
    page = context.new_page()
    # the theme's own scripts fail without storage too; only the quiz script is ours to judge
    page.on("pageerror", lambda e: "linclf-quiz" in (e.stack or "") and errors.append(e.stack))
    # as in a browser that forbids storage for the site: merely reading the property throws
    page.add_init_script("Object.defineProperty(window, 'localStorage', "
                         "{get() { throw new DOMException('blocked', 'SecurityError'); }});")
    try:
        page.goto(f"{server}/{QUIZ_PAGE}.html", wait_until="load")
        quiz = page.locator("div.linclf-quiz.linclf-quiz-choice").first
        assert quiz.locator(".linclf-quiz-verdict").inner_text() == "", "state restored from nowhere"
        quiz.locator("button.linclf-quiz-option[data-correct='true']").click()
        assert "Correct" in quiz.locator(".linclf-quiz-verdict").inner_text()
        assert not errors, errors
    finally:
        page.close()
