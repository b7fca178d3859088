"""Reader-first chapters (CONTRIBUTING.md): a core read in about an hour, checks folded, depth starred."""

import importlib.util
import sys

import pytest

from conftest import ROOT

_spec = importlib.util.spec_from_file_location("chapter_stats", ROOT / "scripts" / "chapter_stats.py")
chapter_stats = importlib.util.module_from_spec(_spec)
sys.modules["chapter_stats"] = chapter_stats  # dataclasses look their module up
_spec.loader.exec_module(chapter_stats)

CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_follows_the_reader_first_rules(path):
    problems = chapter_stats.chapter_stats(path).problems()
    assert not problems, "\n".join(problems)


def test_the_rules_can_fail(tmp_path):
    page = tmp_path / "99_x.md"
    words = " ".join(["word"] * (chapter_stats.CORE_WORD_LIMIT + 1))
    page.write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n---\n"
        f"# T\n\n## Core\n\n{words}\n\n## \\*Depth\n\n{words}\n\n## Late core\n\ntext\n\n"
        "```{code-cell} ipython3\nx = 1\nassert x == 1\n```\n\n"
        "```{code-cell} ipython3\n:tags: [hide-input, check]\n\nassert x == 1\nz = 2 * x\n```\n\n"
        "```{code-cell} ipython3\n:tags: [remove-cell]\n\nglue('z', z)\n```\n\n"
        "```{code-cell} ipython3\nprint(x, z)\n```\n",
        encoding="utf-8")
    st = chapter_stats.chapter_stats(page)
    assert st.core_words > chapter_stats.CORE_WORD_LIMIT and st.starred_words >= chapter_stats.CORE_WORD_LIMIT
    assert len(st.open_checks) == 1 and st.core_after_star == ["Late core"]
    # the open cell reads z, made only in the folded check; the glue plumbing may
    assert st.needs_check == [(4, ["z"])]
    assert len(st.problems()) == 4


def test_prose_after_a_directive_is_counted_and_code_is_not():
    # the closing fence of a theorem once opened a "code block" that swallowed the prose after it
    text = "\n".join([
        "```{prf:theorem}", ":label: thm-x", "", "one two three", "```", "",
        "four five six seven", "", "```python", "x = 1  # not prose", "```", "",
        "```{math}", "a + b", "```", "eight",
    ])
    assert chapter_stats.prose_words(text) == 8
