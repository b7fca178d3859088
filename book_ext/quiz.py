"""The ``quiz`` directive: "check your understanding" questions that work on the static site.

The source format (YAML in the directive body) is defined and validated in
``quiz_spec.py``; an invalid quiz is a build error at its line. Output:

* HTML: ``div.linclf-quiz`` (``role="group"``, labelled by its question), the
  choices as ``<button type="button" aria-pressed>``, or a labelled text input
  and a Check button for a numeric answer, and a ``div.linclf-quiz-feedback``
  live region holding every explanation, hidden until an answer selects one.
  ``static/linclf-quiz.js`` does the rest (offline, no CDN; it keeps progress
  in ``localStorage`` when the browser allows it); styles in ``static/linclf.css``.
  The answers are in the page: a static site has nowhere to hide them, and the
  quizzes are for learning, not grading.
* Every other format (the PDF): the question and its lettered choices in place,
  and the answers with their explanations in a section "Answers to the quiz
  questions" at the end of the chapter, so that a reader does not see the
  answer while reading the question.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from quiz_spec import ANSWERS_TITLE, LETTERS, QuizError, format_number, parse_quiz

STATIC = Path(__file__).parent / "static"
JS_FILE = "linclf-quiz.js"


class quiz_node(nodes.General, nodes.Element):
    """One question; attributes quiz_id, key (page#id), kind, number, answer, tolerance."""


class quiz_question(nodes.General, nodes.Element):
    """The question text (block content)."""


class quiz_option(nodes.General, nodes.Element):
    """One choice (inline content); attributes index, correct."""


class quiz_numeric(nodes.General, nodes.Element):
    """The input of a numeric answer (no content)."""


class quiz_feedback(nodes.General, nodes.Element):
    """The live region that shows the explanation of the answer given."""


class quiz_explain(nodes.General, nodes.Element):
    """One explanation: role "option" (index), "correct", "mistake" (value) or "other"."""


class QuizDirective(SphinxDirective):
    required_arguments = 1
    has_content = True

    def run(self):
        try:
            spec = parse_quiz(self.arguments[0], "\n".join(self.content))
        except QuizError as err:
            raise self.error(f"invalid quiz: {err}") from None
        seen = self.env.temp_data.setdefault("linclf_quiz_ids", [])
        if spec.id in seen:
            raise self.error(f"invalid quiz: the id {spec.id!r} is used twice on this page")
        seen.append(spec.id)
        html_id = f"quiz-{spec.id}"
        node = quiz_node(ids=[html_id], quiz_id=spec.id, key=f"{self.env.docname}#{spec.id}",
                         kind=spec.kind, number=len(seen))
        self.set_source_info(node)
        question = quiz_question(ids=[f"{html_id}-question"])
        question += self._parse(spec.question)
        node += question
        feedback = quiz_feedback()
        if spec.kind == "choice":
            for i, choice in enumerate(spec.choices):
                option = quiz_option(index=i, correct=choice.correct)
                option += self._parse_inline(choice.text, f"choice {i + 1} of quiz {spec.id!r}")
                node += option
                explain = quiz_explain(role="option", index=i, correct=choice.correct)
                explain += self._parse(choice.feedback)
                feedback += explain
        else:
            node["answer"], node["tolerance"] = spec.answer, spec.tolerance
            node += quiz_numeric(ids=[f"{html_id}-input"])
            explain = quiz_explain(role="correct")
            explain += self._parse(spec.explanation)
            feedback += explain
            for mistake in spec.mistakes:
                explain = quiz_explain(role="mistake", value=mistake.answer)
                explain += self._parse(mistake.feedback)
                feedback += explain
            explain = quiz_explain(role="other")
            explain += self._parse(spec.feedback)
            feedback += explain
        node += feedback
        return [node]

    def _parse(self, text: str) -> list[nodes.Node]:
        """MyST markdown (with $math$) to block nodes."""
        box = nodes.container()
        lines = StringList(text.splitlines(), source=self.get_source_info()[0])
        self.state.nested_parse(lines, self.content_offset, box)
        return box.children

    def _parse_inline(self, text: str, what: str) -> list[nodes.Node]:
        """A choice is one paragraph: it becomes the content of a button."""
        parsed = self._parse(text)
        if len(parsed) != 1 or not isinstance(parsed[0], nodes.paragraph):
            raise self.error(f"invalid quiz: {what} must be a single paragraph (no lists or display math)")
        return parsed[0].children


# --- HTML --------------------------------------------------------------------

def _attrs(**attrs) -> str:
    # class_ because class is a keyword; data_x / aria_x are data-x / aria-x
    return "".join(f' {name.rstrip("_").replace("_", "-")}="{escape(str(value), quote=True)}"'
                   for name, value in attrs.items() if value is not None)


def visit_quiz_html(self, node):
    numeric = node["kind"] == "numeric"
    self.body.append("<div" + _attrs(
        class_=f"linclf-quiz linclf-quiz-{node['kind']}", id=node["ids"][0], role="group",
        aria_labelledby=f"{node['ids'][0]}-question", data_quiz_key=node["key"],
        data_answer=format_number(node["answer"]) if numeric else None,
        data_tolerance=format_number(node["tolerance"]) if numeric else None) + ">\n")


def depart_quiz_html(self, node):
    self.body.append("</div>\n")


def visit_question_html(self, node):
    number = node.parent["number"]
    self.body.append("<div" + _attrs(class_="linclf-quiz-question", id=node["ids"][0]) + ">\n"
                     f'<p class="linclf-quiz-number">Question {number}</p>\n')


def visit_option_html(self, node):
    prev = node.previous_sibling()
    if not isinstance(prev, quiz_option):
        self.body.append('<div class="linclf-quiz-options">\n')
    letter = LETTERS[node["index"]]
    self.body.append("<button" + _attrs(
        type="button", class_="linclf-quiz-option", aria_pressed="false",
        data_option=node["index"], data_correct="true" if node["correct"] else "false")
        + f'><span class="linclf-quiz-letter">({letter})</span> ')


def depart_option_html(self, node):
    self.body.append("</button>\n")
    if not isinstance(node.next_node(descend=False, siblings=True), quiz_option):
        self.body.append("</div>\n")


def visit_numeric_html(self, node):
    input_id = node["ids"][0]
    self.body.append(
        '<div class="linclf-quiz-numeric">'
        f'<label for="{escape(input_id)}">Your answer (a number)</label> '
        "<input" + _attrs(type="text", id=input_id, class_="linclf-quiz-input", inputmode="decimal",
                          autocomplete="off", spellcheck="false") + "> "
        '<button type="button" class="linclf-quiz-check">Check</button></div>\n')
    raise nodes.SkipNode


def visit_feedback_html(self, node):
    # role=status is a polite live region: the explanation is read out when shown
    self.body.append('<div class="linclf-quiz-feedback" role="status" aria-live="polite">'
                     '<p class="linclf-quiz-verdict"></p>\n')


def visit_explain_html(self, node):
    self.body.append("<div" + _attrs(
        class_="linclf-quiz-explain", data_role=node["role"], data_option=node.get("index"),
        data_value=format_number(node["value"]) if "value" in node else None) + " hidden>\n")


def depart_div_html(self, node):
    self.body.append("</div>\n")


# --- every other format: question in place, answers at the end of the chapter --

def _prefixed(prefix: list[nodes.Node], body: list[nodes.Node]) -> list[nodes.Node]:
    """``body`` with ``prefix`` put at the start of its first paragraph (or before it).

    Copies with ``Node.deepcopy``: ``copy.deepcopy`` would follow ``parent`` and copy
    the whole document (for the PDF, the whole book) with every node.
    """
    body = [n.deepcopy() for n in body]
    if body and isinstance(body[0], nodes.paragraph):
        for n in reversed(prefix):
            body[0].insert(0, n)
        return body
    return [nodes.paragraph("", "", *prefix), *body]


def _chapter_of(node: nodes.Node) -> nodes.Element:
    """The section that holds the page's content (LaTeX merges all pages into one tree)."""
    root = node
    while root.parent is not None and not isinstance(root, addnodes.start_of_file):
        root = root.parent
    section = root.next_node(nodes.section)
    return section if section is not None else root


class QuizToPrint(SphinxPostTransform):
    """Replace the interactive quiz by static text, and collect the answers per chapter."""

    default_priority = 400

    def is_supported(self) -> bool:
        return self.app.builder.format != "html"

    def run(self, **kwargs) -> None:
        chapters: dict[int, tuple[nodes.Element, list[nodes.Node]]] = {}
        for quiz in list(self.document.findall(quiz_node)):
            chapter = _chapter_of(quiz)
            question, answer = self._question(quiz), self._answer(quiz)
            chapters.setdefault(id(chapter), (chapter, []))[1].extend(answer)
            quiz.replace_self(question)
        for chapter, answers in chapters.values():
            section = nodes.section("", nodes.title("", ANSWERS_TITLE), *answers,
                                    ids=["linclf-quiz-answers"], names=[])
            chapter += section

    @staticmethod
    def _parts(quiz):
        question = quiz.next_node(quiz_question)
        options = [n for n in quiz.children if isinstance(n, quiz_option)]
        explains = list(quiz.next_node(quiz_feedback).children)
        return question, options, explains

    def _question(self, quiz) -> nodes.Element:
        question, options, _ = self._parts(quiz)
        out = nodes.container(classes=["linclf-quiz"])
        out += _prefixed([nodes.strong("", f"Question {quiz['number']}. ")], question.children)
        if options:
            listing = nodes.enumerated_list(enumtype="loweralpha", prefix="(", suffix=")")
            for option in options:
                text = nodes.paragraph("", "", *[n.deepcopy() for n in option.children])
                listing += nodes.list_item("", text)
            out += listing
        out += nodes.paragraph("", "", nodes.emphasis(
            "", ("Answer with a number. " if not options else "") +
            f"The answer is at the end of the chapter ({ANSWERS_TITLE.lower()})."))
        return out

    def _answer(self, quiz) -> list[nodes.Node]:
        _, options, explains = self._parts(quiz)
        head = nodes.strong("", f"Question {quiz['number']}: ")
        if options:
            right = next(o for o in options if o["correct"])
            letter = LETTERS[right["index"]]
            lead = nodes.paragraph("", "", head, nodes.Text(f"({letter}) "),
                                   *[n.deepcopy() for n in right.children])
            why = next(e for e in explains if e["index"] == right["index"])
            others = [(f"Not ({LETTERS[e['index']]}): ", e) for e in explains if not e["correct"]]
        else:
            tol = f" (±{format_number(quiz['tolerance'])})" if quiz["tolerance"] else ""
            # a typographic minus in print (the website's data attributes stay ASCII)
            value = format_number(quiz["answer"]).replace("-", "\u2212")
            lead = nodes.paragraph("", "", head, nodes.Text(value + tol))
            why = next(e for e in explains if e["role"] == "correct")
            others = [(f"Not {format_number(e['value'])}: ", e) for e in explains if e["role"] == "mistake"]
        out = [lead, *[n.deepcopy() for n in why.children]]
        if others:
            items = nodes.bullet_list()
            for text, explain in others:
                items += nodes.list_item("", *_prefixed([nodes.Text(text)], explain.children))
            out.append(items)
        return out


def _add_static_path(app, config):
    if str(STATIC) not in [str(p) for p in config.html_static_path]:
        config.html_static_path = list(config.html_static_path) + [str(STATIC)]


def setup(app):
    html = {"html": (visit_quiz_html, depart_quiz_html)}
    app.add_node(quiz_node, **html)
    app.add_node(quiz_question, html=(visit_question_html, depart_div_html))
    app.add_node(quiz_option, html=(visit_option_html, depart_option_html))
    app.add_node(quiz_numeric, html=(visit_numeric_html, None))
    app.add_node(quiz_feedback, html=(visit_feedback_html, depart_div_html))
    app.add_node(quiz_explain, html=(visit_explain_html, depart_div_html))
    app.add_directive("quiz", QuizDirective)
    app.add_post_transform(QuizToPrint)
    app.connect("config-inited", _add_static_path)
    app.add_js_file(JS_FILE, loading_method="defer")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
