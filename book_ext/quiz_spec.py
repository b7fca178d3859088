"""The "check your understanding" quizzes: their source format, without Sphinx.

A quiz is written once, in the chapter source, as a ``quiz`` directive whose body
is YAML::

    ```{quiz} origin-distance
    question: What is the distance of the origin to $H$ ...?
    answer: 0.6          # a numeric question ...
    tolerance: 0.005
    check: abs(-3) / np.hypot(3, 4)
    explanation: ...     # why 0.6 is right
    feedback: ...        # for any other wrong number
    mistakes:            # optional: anticipated wrong numbers and why they are wrong
      - answer: 3
        feedback: ...
    ```

or, for a multiple-choice question, ``choices:`` (a list of ``text``,
``feedback`` and ``correct: true`` on exactly one of them).

Three readers use this module, so the format has one definition:
``book_ext/quiz.py`` (the Sphinx directive: website and PDF),
``scripts/sync_notebooks.py`` (the notebooks, where a quiz becomes a markdown
question with its answer at the end) and ``tests/test_quiz.py`` (which runs
every ``check`` to confirm the stated numeric answer).
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

import yaml

# an id becomes part of HTML ids, LaTeX labels and localStorage keys
ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CHOICE_KEYS = {"text", "correct", "feedback"}
MISTAKE_KEYS = {"answer", "feedback"}
CHOICE_QUIZ_KEYS = {"question", "choices"}
NUMERIC_QUIZ_KEYS = {"question", "answer", "tolerance", "check", "explanation", "feedback", "mistakes"}
LETTERS = "abcdefghij"
ANSWERS_TITLE = "Answers to the quiz questions"

# a fenced quiz directive in MyST markdown (backtick or colon fence, any length)
FENCE_RE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{quiz\}[ \t]*(?P<id>[^\n]*?)[ \t]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.M | re.S,
)


class QuizError(ValueError):
    """A quiz whose source is not valid; the message says what to fix."""


@dataclass
class Choice:
    text: str
    feedback: str
    correct: bool = False


@dataclass
class Mistake:
    answer: float
    feedback: str


@dataclass
class Quiz:
    id: str
    question: str
    choices: list[Choice] = field(default_factory=list)
    answer: float | None = None
    tolerance: float = 0.0
    check: str | None = None
    explanation: str | None = None
    feedback: str | None = None
    mistakes: list[Mistake] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "numeric" if self.answer is not None else "choice"

    @property
    def correct_index(self) -> int | None:
        return next((i for i, c in enumerate(self.choices) if c.correct), None)

    def matches(self, value: float, target: float) -> bool:
        """``value`` counts as ``target`` (the same rule as the website's script)."""
        return abs(value - target) <= self.tolerance + 1e-12 * max(1.0, abs(target))


def _text(data: dict, key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise QuizError(f"{where}: `{key}` must be a non-empty text")
    return value.strip()


def _number(value, where: str) -> float:
    # YAML reads "1e-3" as a string and "yes" as a bool: accept only real numbers
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise QuizError(f"{where} must be a finite number, not {value!r}")
    return float(value)


def _unknown(data: dict, allowed: set[str], where: str) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise QuizError(f"{where}: unknown key(s) {', '.join(extra)} (allowed: {', '.join(sorted(allowed))})")


def parse_quiz(quiz_id: str, body: str) -> Quiz:
    """Parse and validate one quiz; raise :class:`QuizError` with a clear message."""
    quiz_id = (quiz_id or "").strip()
    if not ID_RE.match(quiz_id):
        raise QuizError(f"the quiz needs an id of lower-case letters, digits and hyphens after {{quiz}}, "
                        f"not {quiz_id!r}")
    where = f"quiz {quiz_id!r}"
    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError as err:
        raise QuizError(f"{where}: the body is not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise QuizError(f"{where}: the body must be a YAML mapping with `question` and `choices` or `answer`")
    question = _text(data, "question", where)
    if ("choices" in data) == ("answer" in data):
        raise QuizError(f"{where}: give either `choices` (multiple choice) or `answer` (numeric), not "
                        f"{'both' if 'choices' in data else 'neither'}")
    if "choices" in data:
        _unknown(data, CHOICE_QUIZ_KEYS, where)
        raw = data["choices"]
        if not isinstance(raw, list) or not 2 <= len(raw) <= len(LETTERS):
            raise QuizError(f"{where}: `choices` must be a list of 2 to {len(LETTERS)} choices")
        choices = []
        for n, item in enumerate(raw, 1):
            at = f"{where}, choice {n}"
            if not isinstance(item, dict):
                raise QuizError(f"{at}: must be a mapping with `text` and `feedback`")
            _unknown(item, CHOICE_KEYS, at)
            correct = item.get("correct", False)
            if not isinstance(correct, bool):
                raise QuizError(f"{at}: `correct` must be true or false, not {correct!r}")
            choices.append(Choice(_text(item, "text", at), _text(item, "feedback", at), correct))
        n_correct = sum(c.correct for c in choices)
        if n_correct != 1:
            raise QuizError(f"{where}: exactly one choice must be marked `correct: true` "
                            f"({'none is' if n_correct == 0 else f'{n_correct} are'})")
        texts = [c.text for c in choices]
        if len(set(texts)) != len(texts):
            raise QuizError(f"{where}: two choices have the same text")
        return Quiz(quiz_id, question, choices=choices)

    _unknown(data, NUMERIC_QUIZ_KEYS, where)
    answer = _number(data["answer"], f"{where}: `answer`")
    tolerance = _number(data.get("tolerance", 0), f"{where}: `tolerance`")
    if tolerance < 0:
        raise QuizError(f"{where}: `tolerance` must not be negative")
    check = _text(data, "check", where)
    try:
        ast.parse(check, mode="exec")
    except SyntaxError as err:
        raise QuizError(f"{where}: `check` is not valid Python: {err}") from None
    quiz = Quiz(quiz_id, question, answer=answer, tolerance=tolerance, check=check,
                explanation=_text(data, "explanation", where), feedback=_text(data, "feedback", where))
    raw = data.get("mistakes", [])
    if not isinstance(raw, list):
        raise QuizError(f"{where}: `mistakes` must be a list of `answer` and `feedback`")
    for n, item in enumerate(raw, 1):
        at = f"{where}, mistake {n}"
        if not isinstance(item, dict):
            raise QuizError(f"{at}: must be a mapping with `answer` and `feedback`")
        _unknown(item, MISTAKE_KEYS, at)
        mistake = Mistake(_number(item.get("answer"), f"{at}: `answer`"), _text(item, "feedback", at))
        if quiz.matches(mistake.answer, answer):
            raise QuizError(f"{at}: {mistake.answer} is within the tolerance of the correct answer")
        # the website shows the first mistake that matches: two that overlap are ambiguous
        if any(quiz.matches(mistake.answer, m.answer) for m in quiz.mistakes):
            raise QuizError(f"{at}: {mistake.answer} is within the tolerance of another mistake")
        quiz.mistakes.append(mistake)
    return quiz


def find_quizzes(markdown: str) -> list[tuple[re.Match, Quiz]]:
    """Every quiz directive of a MyST page, in order, parsed (raises on an invalid one)."""
    found = [(m, parse_quiz(m.group("id"), m.group("body"))) for m in FENCE_RE.finditer(markdown)]
    ids = [q.id for _, q in found]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise QuizError(f"quiz ids used twice on one page: {', '.join(dup)}")
    return found


def evaluate_check(quiz: Quiz) -> float:
    """Run the quiz's ``check`` code; its last line is an expression whose value is returned.

    numpy is ``np`` and the ``linclf`` package is imported; the code may import more.
    """
    import numpy as np

    import linclf

    tree = ast.parse(quiz.check, mode="exec")
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        raise QuizError(f"quiz {quiz.id!r}: the last line of `check` must be an expression")
    last = ast.Expression(tree.body.pop().value)
    namespace = {"np": np, "numpy": np, "math": math, "linclf": linclf}
    exec(compile(tree, f"<quiz {quiz.id}>", "exec"), namespace)
    return float(eval(compile(last, f"<quiz {quiz.id}>", "eval"), namespace))


# --- markdown for the notebooks (and anything else without the directive) ----

def format_number(value: float) -> str:
    return f"{value:.10g}"


def _item(text: str) -> str:
    """A markdown list item; continuation lines are indented to stay in it."""
    return "- " + text.replace("\n", "\n  ")


def question_markdown(quiz: Quiz, number: int) -> str:
    """The question in place: the text, then the lettered choices or a request for a number."""
    lines = [f"**Question {number}.** {quiz.question}", ""]
    if quiz.kind == "choice":
        lines += [_item(f"**({LETTERS[i]})** {c.text}") for i, c in enumerate(quiz.choices)]
    else:
        lines.append("*Answer with a number.*")
    lines.append("")
    lines.append(f"*The answer is at the end of the chapter ({ANSWERS_TITLE.lower()}).*")
    return "\n".join(lines)


def answer_markdown(quiz: Quiz, number: int) -> str:
    """The answer with its explanation, and why the tempting wrong answers are wrong."""
    if quiz.kind == "choice":
        k = quiz.correct_index
        lines = [f"**Question {number}:** ({LETTERS[k]}) {quiz.choices[k].text}", "",
                 quiz.choices[k].feedback, ""]
        lines += [_item(f"Not ({LETTERS[i]}): {c.feedback}")
                  for i, c in enumerate(quiz.choices) if not c.correct]
    else:
        tol = f" (±{format_number(quiz.tolerance)})" if quiz.tolerance else ""
        lines = [f"**Question {number}:** {format_number(quiz.answer)}{tol}", "", quiz.explanation, ""]
        lines += [_item(f"Not {format_number(m.answer)}: {m.feedback}") for m in quiz.mistakes]
    return "\n".join(lines).rstrip() + "\n"
