"""Every exercise page agrees with its set: one stub and one ``check`` per exercise, the
points as graded, and the page runs from top to bottom with the blank stubs."""

import re
import subprocess
import sys

import pytest
from exercise_harness import ROOT, page_cells, stub_functions

from linclf_grader import available_sets, get_set
from linclf_grader.framework import load_private_tests
from linclf_grader.notebook import clean_source

SETS = available_sets()


@pytest.mark.parametrize("set_name", SETS)
def test_page_has_a_stub_and_a_check_per_exercise(set_name):
    page = ROOT / "exercises" / f"{set_name}.md"
    cells = page_cells(page)
    text = page.read_text()
    # no install cell in the source: sync_notebooks writes it into the notebook
    assert not any("%pip install" in c for c in cells)
    assert "format_name: myst" in text
    for name, ex in get_set(set_name).exercises.items():
        stub = next(c for c in cells if c.startswith(ex.signature))
        assert stub.strip() == ex.template().strip()  # the page and the template agree
        assert f"check({name})" in cells[cells.index(stub) + 1]
        points = get_set(set_name).max_points(name)
        assert f"({points:g} point" in text, (name, points)
    assert "solutions" not in text


HEADER = re.compile(r"The set is worth (\S+) points: (\S+) in the public tests that `check` runs"
                    r" and (\S+) in hidden tests your instructor runs\.")


def header_points(text):
    """The three numbers of a page's header sentence (whitespace and line breaks ignored)."""
    found = HEADER.findall(" ".join(text.split()))
    assert len(found) == 1, "the page needs exactly one header sentence 'The set is worth N points: ...'"
    return tuple(float(v) for v in found[0])


@pytest.mark.parametrize("set_name", SETS)
def test_page_header_states_public_and_hidden_points(set_name):
    """'The set is worth N points: P in the public tests that `check` runs and H in hidden
    tests your instructor runs.' with P and H from the declarations and the hidden tests."""
    exset = get_set(set_name)
    public = exset.max_points()
    hidden = sum(t.points for t in load_private_tests(ROOT / "exercises" / "solutions", exset))
    text = (ROOT / "exercises" / f"{set_name}.md").read_text()
    assert header_points(text) == (public + hidden, public, hidden)


def test_header_check_fails_on_a_wrong_sentence():
    good = ("The set is worth 25 points: 19 in the public tests that `check` runs\n"
            "and 6 in hidden tests your instructor runs.")
    assert header_points(good) == (25.0, 19.0, 6.0)
    with pytest.raises(AssertionError):
        header_points("The set is worth 19 points; see the chapter.")
    with pytest.raises(AssertionError):
        header_points(good + " " + good)


@pytest.mark.parametrize("set_name", SETS)
def test_page_states_the_rules_of_every_exercise(set_name):
    """The rules on the page are written from the declarations and cannot drift."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from sync_exercise_rules import page_with_rules

    from linclf_grader.imports import rule_text

    text = (ROOT / "exercises" / f"{set_name}.md").read_text()
    assert page_with_rules(set_name, text) == text, "run scripts/sync_exercise_rules.py"
    cells = page_cells(ROOT / "exercises" / f"{set_name}.md")
    for ex in get_set(set_name).exercises.values():
        before = text[: text.index("```{code-cell} ipython3\n" + ex.signature)]
        assert before.rstrip().endswith(f"*{rule_text(ex)}*")
    assert "**Rules.**" in text and cells


def test_the_graders_list_of_the_books_cells_is_in_step_with_the_pages():
    """The grader recognises the book's cells of a submitted notebook by their text on the
    page (linclf_grader/book_cells.json, written by scripts/sync_notebooks.py)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import sync_notebooks

    from linclf_grader.notebook import BOOK_CELLS, book_cells

    assert BOOK_CELLS.read_text() == sync_notebooks.expected_book_cells()
    skip, run = book_cells("perceptron")
    assert any("from linclf.perceptron import Perceptron" in c for c in skip)
    assert "check(perceptron_update)" in run


@pytest.mark.parametrize("set_name", SETS)
def test_page_runs_top_to_bottom_with_stubs(set_name):
    cells = [clean_source(c) for c in page_cells(ROOT / "exercises" / f"{set_name}.md")]
    code = "ns = {}\n" + "".join(f"exec(compile({c!r}, 'cell', 'exec'), ns)\n" for c in cells)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for name in get_set(set_name).exercises:
        assert f"{name}: 0/" in proc.stdout


@pytest.mark.parametrize("set_name", SETS)
def test_template_is_valid_python_with_all_stubs(set_name):
    ns = stub_functions(set_name)
    for name in get_set(set_name).exercises:
        assert callable(ns[name]) and ns[name].__doc__
