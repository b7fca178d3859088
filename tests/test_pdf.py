"""The PDF edition (scripts/pdf.sh): _build/latex/linear-classifiers.pdf.

scripts/test.sh builds it (installing TeX Live from Debian's packages) before
the tests; without a TeX toolchain on the machine the checks are skipped.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import ROOT

pytestmark = [pytest.mark.book, pytest.mark.slow]

PDF = ROOT / "_build" / "latex" / "linear-classifiers.pdf"


@pytest.fixture(scope="module")
def pdf_text():
    if shutil.which("xelatex") is None or shutil.which("pdftotext") is None:
        pytest.skip("no TeX toolchain here (scripts/pdf.sh installs it)")
    assert PDF.is_file(), f"{PDF.relative_to(ROOT)} is missing: run scripts/pdf.sh"
    return subprocess.run(["pdftotext", "-layout", str(PDF), "-"], capture_output=True,
                          text=True, check=True).stdout


def test_size_and_title(pdf_text):
    info = subprocess.run(["pdfinfo", str(PDF)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert pages > 150, f"only {pages} pages"
    assert pdf_text.lstrip().startswith("Linear Classifiers")


def test_chapters_numbered_as_on_the_website(pdf_text):
    toc = pdf_text[: pdf_text.index("Glossary")]
    for n, title in [(1, "Linear discriminant functions"), (2, "Fisher’s linear discriminant"),
                     (10, "Sequential minimal optimisation"), (11, "Comparing the losses")]:
        assert re.search(rf"^\s*{n}\s+{re.escape(title)}", toc, re.M), f"chapter {n} {title!r}"
    assert not re.search(r"^\s*\d+\s+Notation\b", toc, re.M), "the front matter is numbered"
    for appendix in ("Exercises: kernels", "Errata of the source documents", "References"):
        assert appendix in pdf_text


def test_chinese_text_is_typeset(pdf_text):
    for term in ("感知器", "支持向量机", "线性分类"):
        assert term in pdf_text, f"{term} missing: CJK glyphs not typeset"
    fonts = subprocess.run(["pdffonts", str(PDF)], capture_output=True, text=True, check=True).stdout
    assert "NotoSerifCJK" in fonts.replace(" ", "")


def test_no_object_reprs_and_no_missing_glyphs(pdf_text):
    for bad in ("object>", "<Figure size", "Output hidden"):
        assert bad not in pdf_text, f"{bad!r} printed in the PDF"
    log = (ROOT / "_build" / "latex" / "linear-classifiers.log").read_text(errors="replace")
    assert "Missing character" not in log


def test_the_site_offers_the_pdf():
    site = ROOT / "_build" / "html"
    if not PDF.is_file():
        pytest.skip("no PDF built")
    if not (site / "_static" / "downloads").is_dir():
        pytest.skip("no website built")
    served = site / "_static" / "downloads" / "linear-classifiers.pdf"
    assert served.is_file() and served.stat().st_size == PDF.stat().st_size
    assert 'href="_static/downloads/linear-classifiers.pdf"' in (site / "intro.html").read_text()


def test_no_blank_pages(pdf_text):
    pages = pdf_text.split("\f")
    if pages and not pages[-1].strip():
        pages = pages[:-1]                      # the trailing form feed
    listing = subprocess.run(["pdfimages", "-list", str(PDF)], capture_output=True, text=True,
                             check=True).stdout.splitlines()[2:]
    with_images = {int(line.split()[0]) for line in listing if line.strip()}
    blank = [n for n, text in enumerate(pages, 1) if not text.strip() and n not in with_images]
    assert not blank, f"blank pages: {blank}"


def test_quiz_answers_close_every_chapter(pdf_text):
    """Issue #13: in print a quiz is a question in place; its answer, with the explanation,
    is in the chapter's last section, after the summary."""
    import sys

    sys.path.insert(0, str(ROOT / "book_ext"))
    from quiz_spec import find_quizzes

    def heads(title):
        # body headings "N.k Title" (the contents has dot leaders, running heads "N.k. Title  page")
        return {int(m.group(1)): m.start()
                for m in re.finditer(rf"^\s*(\d+)\.\d+ {title}\s*$", pdf_text, re.M)}

    checks, summaries, answers = heads("Check your understanding"), heads("Summary"), heads(
        "Answers to the quiz questions")
    chapters = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))
    assert set(answers) == set(checks) == {int(p.name[:2]) for p in chapters}
    for path in chapters:
        n = int(path.name[:2])
        assert checks[n] < summaries[n] < answers[n] < checks.get(n + 1, len(pdf_text)), path.name
        asked = pdf_text[checks[n]:answers[n]]
        answered = pdf_text[answers[n]:checks.get(n + 1, len(pdf_text))]
        for k, (_, quiz) in enumerate(find_quizzes(path.read_text(encoding="utf-8")), 1):
            assert f"Question {k}." in asked and f"Question {k}:" not in asked, f"{path.name} {quiz.id}"
            assert f"Question {k}:" in answered, f"{path.name}: no answer to question {k}"
            if quiz.kind == "choice":
                assert "(a)" in asked and "(b)" in asked, f"{path.name} {quiz.id}: choices not printed"
