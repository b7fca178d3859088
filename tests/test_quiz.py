"""The "check your understanding" quizzes (issue #13).

* the source format: parsing and validation (``book_ext/quiz_spec.py``), with a
  clear error for a broken quiz, also as a Sphinx build error at its line;
* the markup contract of the website and the PDF's answers section, on a tiny
  Sphinx project that loads only the quiz extension (seconds, no notebook runs);
* the book: every chapter has at least three quizzes in a "Check your
  understanding" section, and the stated answer of every numeric question is
  what its ``check`` code computes;
* the notebooks show each question in place and the answers at the end.

The browser half (answering a quiz right and wrong, by mouse and keyboard, on
the built site) is in ``tests/test_browser.py``; the PDF half in ``tests/test_pdf.py``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import textwrap

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "book_ext"))

from quiz_spec import QuizError, evaluate_check, find_quizzes, parse_quiz  # noqa: E402

CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.md"))

CHOICE = """\
question: Which side of $H$ is $\\mathcal R_+$?
choices:
  - text: where $f(\\mathbf x) > 0$
    correct: true
    feedback: By definition.
  - text: where $f(\\mathbf x) < 0$
    feedback: That is $\\mathcal R_-$.
"""

NUMERIC = """\
question: What is $|b|/\\lVert\\mathbf w\\rVert$ for $\\mathbf w = (3, 4)$, $b = -3$?
answer: 0.6
tolerance: 0.001
check: abs(-3) / np.hypot(3, 4)
explanation: The distance of the origin is $|b|/\\lVert\\mathbf w\\rVert = 3/5$.
feedback: Divide $|b|$ by the length of $\\mathbf w$.
mistakes:
  - answer: 3
    feedback: You forgot to divide by $\\lVert\\mathbf w\\rVert = 5$.
"""


# --- the source format ---------------------------------------------------------

def test_a_choice_quiz_parses():
    quiz = parse_quiz("side", CHOICE)
    assert quiz.kind == "choice" and quiz.correct_index == 0 and len(quiz.choices) == 2
    assert "$\\mathcal R_-$" in quiz.choices[1].feedback


def test_a_numeric_quiz_parses_and_its_check_agrees():
    quiz = parse_quiz("origin", NUMERIC)
    assert quiz.kind == "numeric" and quiz.answer == 0.6 and quiz.mistakes[0].answer == 3
    assert quiz.matches(evaluate_check(quiz), quiz.answer)
    assert not quiz.matches(0.61, quiz.answer)


@pytest.mark.parametrize("body, message", [
    ("question: [unclosed", "not valid YAML"),
    ("- just\n- a list", "must be a YAML mapping"),
    (CHOICE.replace("    correct: true\n", ""),
     "exactly one choice must be marked `correct: true` (none is)"),
    (CHOICE.replace("    feedback: That", "    correct: true\n    feedback: That"), "(2 are)"),
    (CHOICE.replace("    feedback: By definition.\n", ""), "choice 1: `feedback` must be a non-empty text"),
    (CHOICE.replace("correct: true", "correct: yes please"), "`correct` must be true or false"),
    (CHOICE.replace("question:", "questoin:"), "`question` must be a non-empty text"),
    (CHOICE + "answer: 1\n", "not both"),
    ("question: Why?\n", "not neither"),
    (CHOICE + "hint: no\n", "unknown key(s) hint"),
    (NUMERIC.replace("answer: 0.6", "answer: six"), "`answer` must be a finite number"),
    (NUMERIC.replace("check: abs(-3) / np.hypot(3, 4)\n", ""), "`check` must be a non-empty text"),
    (NUMERIC.replace("np.hypot(3, 4)", "np.hypot(3,"), "`check` is not valid Python"),
    (NUMERIC.replace("  - answer: 3", "  - answer: 0.6001"), "within the tolerance of the correct answer"),
    (NUMERIC.replace("tolerance: 0.001", "tolerance: -1"), "must not be negative"),
    (NUMERIC + "  - answer: 3.0005\n    feedback: Again.\n", "within the tolerance of another mistake"),
])
def test_invalid_quizzes_are_rejected_with_a_clear_message(body, message):
    with pytest.raises(QuizError) as err:
        parse_quiz("q", body)
    assert message in str(err.value)


def test_ids_are_checked():
    with pytest.raises(QuizError, match="needs an id"):
        parse_quiz("Not An Id", CHOICE)
    page = f"```{{quiz}} a\n{CHOICE}```\n\ntext\n\n```{{quiz}} a\n{CHOICE}```\n"
    with pytest.raises(QuizError, match="used twice"):
        find_quizzes(page)


# --- the directive, on a tiny Sphinx project ------------------------------------------

PAGE = """\
# Chapter

Text.

## Check your understanding

```{{quiz}} side
{choice}```

```{{quiz}} origin
{numeric}```

## Summary

The end.
"""


def _sphinx_build(tmp_path, builder, page):
    from io import StringIO

    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "conf.py").write_text(textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(ROOT / 'book_ext')!r})
        extensions = ["myst_parser", "quiz"]
        myst_enable_extensions = ["dollarmath", "colon_fence"]
        root_doc = "index"
    """))
    (src / "index.md").write_text(page)
    warnings = StringIO()
    # one process builds several times: docutils_namespace undoes each build's registrations
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(tmp_path / builder), str(tmp_path / "doctrees" / builder),
                     builder, status=None, warning=warnings, freshenv=True)
        app.build()
    return tmp_path / builder, warnings.getvalue()


@pytest.fixture(scope="module")
def tiny_html(tmp_path_factory):
    from bs4 import BeautifulSoup

    out, warnings = _sphinx_build(tmp_path_factory.mktemp("quiz-html"), "html",
                                  PAGE.format(choice=CHOICE, numeric=NUMERIC))
    assert not warnings.strip(), warnings
    return BeautifulSoup((out / "index.html").read_text(), "html.parser"), out


def test_html_follows_the_markup_contract(tiny_html):
    soup, out = tiny_html
    quizzes = soup.select("div.linclf-quiz")
    assert len(quizzes) == 2
    for quiz in quizzes:
        assert quiz["role"] == "group"
        label = soup.find(id=quiz["aria-labelledby"])
        assert label is not None and quiz in label.parents and label.get_text(strip=True)
        feedback = quiz.select_one(".linclf-quiz-feedback")
        assert feedback["aria-live"] == "polite" and feedback["role"] == "status"
        # the explanations are in the page, hidden until an answer picks one
        assert all(e.has_attr("hidden") for e in feedback.select(".linclf-quiz-explain"))
    choice, numeric = quizzes
    buttons = choice.select("button.linclf-quiz-option")
    assert [b["type"] for b in buttons] == ["button", "button"]
    assert [b["data-correct"] for b in buttons] == ["true", "false"]
    assert all(b["aria-pressed"] == "false" for b in buttons)
    assert buttons[0].select_one("span.math"), "math in a choice must reach MathJax"
    assert "That is" in choice.select_one('.linclf-quiz-explain[data-option="1"]').get_text()
    inp = numeric.select_one("input.linclf-quiz-input")
    assert numeric.select_one(f'label[for="{inp["id"]}"]') is not None
    assert numeric.select_one("button.linclf-quiz-check")["type"] == "button"
    assert numeric["data-answer"] == "0.6" and numeric["data-tolerance"] == "0.001"
    assert numeric.select_one('[data-role="mistake"]')["data-value"] == "3"
    # the script and the styles are served by the site itself
    assert (out / "_static" / "linclf-quiz.js").is_file()
    assert soup.find("script", src=re.compile(r"_static/linclf-quiz\.js"))
    assert not soup.find(string=re.compile("Answers to the quiz questions"))


def test_latex_has_the_questions_in_place_and_the_answers_at_the_end(tmp_path):
    out, warnings = _sphinx_build(tmp_path, "latex", PAGE.format(choice=CHOICE, numeric=NUMERIC))
    assert not warnings.strip(), warnings
    tex = next(out.glob("*.tex")).read_text()
    question = tex.index("Question 1.")
    answers = tex.index("Answers to the quiz questions")
    assert question < tex.index("Question 2.") < tex.index("Summary") < answers
    assert r"\sphinxsetlistlabels{\alph}" in tex, "choices are lettered"
    tail = tex[answers:]
    assert "Question 1:" in tail and "(a)" in tail and "By definition." in tail and "Not (b)" in tail
    assert "Question 2:" in tail and "0.6" in tail and "You forgot to divide" in tail
    assert "By definition." not in tex[:answers], "an answer printed next to its question"


@pytest.mark.parametrize("body", [CHOICE.replace("    correct: true\n", ""), "question: [", ])
def test_a_broken_quiz_is_a_build_error_at_its_line(tmp_path, body):
    out, warnings = _sphinx_build(tmp_path, "html", PAGE.format(choice=body, numeric=NUMERIC))
    assert re.search(r"index\.md:\d+: ERROR: invalid quiz: quiz 'side'", warnings), warnings


def test_a_choice_must_be_one_paragraph(tmp_path):
    body = CHOICE.replace("text: where $f(\\mathbf x) < 0$", "text: |\n      one\n\n      two")
    _, warnings = _sphinx_build(tmp_path, "html", PAGE.format(choice=body, numeric=NUMERIC))
    assert "choice 2 of quiz 'side' must be a single paragraph" in warnings


# --- the book ---------------------------------------------------------------------------

def _quizzes(path):
    return [q for _, q in find_quizzes(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_has_a_check_your_understanding_section(path):
    text = path.read_text(encoding="utf-8")
    quizzes = _quizzes(path)
    assert len(quizzes) >= 3, f"{path.name}: only {len(quizzes)} quiz questions"
    head = re.search(r"^## Check your understanding\s*$", text, re.M)
    assert head, f"{path.name}: no '## Check your understanding' section"
    # every quiz is in that section, which ends the main text (before exercises, summary)
    next_head = re.compile(r"^## ", re.M).search(text, head.end())
    end = next_head.start() if next_head else len(text)
    for match, quiz in find_quizzes(text):
        assert head.end() < match.start() < end, f"{path.name}: quiz {quiz.id} outside the section"
    assert not re.search(r"^## (Exercises|Summary)", text[:head.start()], re.M), (
        f"{path.name}: the quizzes must come before the exercises and the summary")


NUMERIC_QUIZZES = [(p, q) for p in CHAPTERS for q in _quizzes(p) if q.kind == "numeric"]


@pytest.mark.parametrize("path, quiz", NUMERIC_QUIZZES, ids=[f"{p.stem}-{q.id}" for p, q in NUMERIC_QUIZZES])
def test_numeric_answer_is_what_the_check_computes(path, quiz):
    value = evaluate_check(quiz)
    assert quiz.matches(value, quiz.answer), (
        f"{path.name}, quiz {quiz.id}: the page says {quiz.answer} (±{quiz.tolerance}), "
        f"the check gives {value}")
    for mistake in quiz.mistakes:
        assert not quiz.matches(value, mistake.answer)


def test_the_book_has_numeric_questions():
    assert len(NUMERIC_QUIZZES) >= 5


# --- the notebooks -------------------------------------------------------------------------

def test_notebooks_show_the_question_in_place_and_the_answers_at_the_end():
    import nbformat

    spec = importlib.util.spec_from_file_location("sync_notebooks", ROOT / "scripts" / "sync_notebooks.py")
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    for path in CHAPTERS:
        quizzes = _quizzes(path)
        nb = nbformat.reads(sync.to_ipynb_text(path), 4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert "{quiz}" not in text, f"{path.name}: a raw quiz directive in the notebook"
        last = nb.cells[-1]
        assert last.cell_type == "markdown" and last.source.startswith("## Answers to the quiz questions")
        for n, quiz in enumerate(quizzes, 1):
            assert f"**Question {n}.**" in text
            assert f"**Question {n}:**" in last.source
            if quiz.kind == "choice":
                right = quiz.choices[quiz.correct_index]
                assert right.feedback.split("\n")[0] in last.source
                assert right.feedback.split("\n")[0] not in text.replace(last.source, "")
