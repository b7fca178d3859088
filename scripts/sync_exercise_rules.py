"""Write the rules of each exercise, from its declaration, onto the exercise pages.

Every page ``exercises/SET.md`` gets a "**Rules.**" paragraph after its introduction and,
right before each exercise's stub cell, the line ``rule_text(exercise)`` (the modules
that exercise does not allow, from ``SET.exercise(..., forbid=...)``), so that the page
cannot drift from what the grader and ``check`` apply (``tests/test_exercise_pages.py``
checks that the pages are in step).

    python scripts/sync_exercise_rules.py           # rewrite the pages
    python scripts/sync_exercise_rules.py --check   # exit 1 if a page is out of step

Run ``scripts/sync_notebooks.py`` afterwards.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from linclf_grader import available_sets, get_set  # noqa: E402
from linclf_grader.imports import rules_paragraph, rule_text  # noqa: E402

RULE_LINE = re.compile(r"^\*?Not allowed in this exercise: .*$\n\n", re.M)
RULES_PARAGRAPH = re.compile(r"^\*\*Rules\.\*\*.*?\n\n", re.M | re.S)


def page_with_rules(set_name, text):
    """The page ``text`` with its rules written from the declarations."""
    exset = get_set(set_name)
    text = RULE_LINE.sub("", text)
    text = RULES_PARAGRAPH.sub("", text)
    anchor = re.search(r"^Your instructor grades .*?\n\n", text, flags=re.M | re.S)
    if anchor is None:
        raise ValueError(f"exercises/{set_name}.md: no 'Your instructor grades' paragraph")
    text = text[:anchor.end()] + textwrap.fill(rules_paragraph(), 96, break_on_hyphens=False) + "\n\n" + text[anchor.end():]
    for ex in exset.exercises.values():
        cell = text.find("```{code-cell} ipython3\n" + ex.signature)
        if cell < 0:
            raise ValueError(f"exercises/{set_name}.md: no stub cell for {ex.name}")
        text = text[:cell] + f"*{rule_text(ex)}*\n\n" + text[cell:]
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = []
    for set_name in available_sets():
        path = ROOT / "exercises" / f"{set_name}.md"
        text = path.read_text(encoding="utf-8")
        new = page_with_rules(set_name, text)
        if new != text:
            stale.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)}")
    if args.check and stale:
        print("out of step:", *[p.relative_to(ROOT).as_posix() for p in stale])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
