"""Reading-load figures of the chapters: core prose words, starred words, open checks.

The rules these figures serve are in CONTRIBUTING.md ("Reader-first chapters"):

* a chapter's **core** (every section whose heading does not start with ``\\*``)
  has at most ``CORE_WORD_LIMIT`` words of prose;
* optional depth lives in **starred sections** (``## \\*Title``), after the core;
* a code cell that verifies a claim (an ``assert`` statement or an
  ``assert_*``/``assert*`` call) carries the tags ``hide-input`` and ``check``:
  the site folds it under the label "Check", a notebook shows and runs it.

Prose words are the words of markdown cells once display math, directive
options, fenced blocks, HTML comments and MyST targets are removed; an inline formula or a role
(``{cite}``, ``{eq}``) counts as one word.

Usage: ``python scripts/chapter_stats.py [chapters/NN_name.md ...]``; exits 1
when a chapter breaks a rule.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import jupytext

CORE_WORD_LIMIT = 4500
ROOT = Path(__file__).resolve().parents[1]
CHECK_TAGS = {"hide-input", "check"}

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")


def is_starred(title: str) -> bool:
    """A starred (optional) section: its heading text starts with ``\\*`` or ``*``."""
    return title.lstrip().startswith(("\\*", "*"))

_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\S*)")


def _drop_code_blocks(text: str) -> str:
    """Drop plain code and math blocks, keep the prose inside directives (theorems, boxes).

    Fences are matched as a stack, so the closing fence of a directive never starts a code block.
    """
    out, stack, skipping = [], [], None
    for line in text.splitlines():
        m = _FENCE.match(line.strip())
        if skipping is not None:
            if m and m.group(1) == skipping and not m.group(2):
                skipping = None
            continue
        if m:
            fence, info = m.groups()
            if stack and fence == stack[-1] and not info:
                stack.pop()  # a directive closes
            elif info.startswith("{") and not info.startswith("{math}"):
                stack.append(fence)  # a directive opens: its body is prose
            else:
                skipping = fence  # plain code or math
            continue
        out.append(line)
    return "\n".join(out)


def _strip_markup(text: str) -> str:
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = _drop_code_blocks(text)
    # inline math and roles are read as one word each
    text = re.sub(r"\$[^$\n]+\$", " M ", text)
    text = re.sub(r"\{[a-z:-]+\}`[^`]*`", " R ", text)  # roles: {cite}`x`, {eq}`y`
    lines = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith((":", "```", ":::", "(")) and (s.startswith(("```", ":::")) or
                                                   re.match(r"^:[a-z-]+:", s) or
                                                   re.match(r"^\([\w:.-]+\)=$", s)):
            continue
        lines.append(line)
    return "\n".join(lines)


def prose_words(text: str) -> int:
    return len(_WORD.findall(_strip_markup(text)))


def _has_check(source: str) -> bool:
    code = "\n".join(l for l in source.splitlines() if not l.lstrip().startswith(("%", "!")))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return "assert" in code
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name.startswith("assert"):
                return True
    return False


@dataclass
class Stats:
    path: Path
    core_words: int = 0
    starred_words: int = 0
    open_checks: list = field(default_factory=list)   # (cell index, first line)
    core_after_star: list = field(default_factory=list)  # core headings after a starred one
    needs_check: list = field(default_factory=list)  # (cell index, names only a check cell binds)

    def problems(self):
        out = []
        if self.core_words > CORE_WORD_LIMIT:
            out.append(f"core prose {self.core_words} words > {CORE_WORD_LIMIT}")
        for i, first in self.open_checks:
            out.append(f"cell {i}: a check in a cell shown open ({first!r}); tag it "
                       "[hide-input, check]")
        for title in self.core_after_star:
            out.append(f"core section {title!r} comes after a starred section")
        for i, names in self.needs_check:
            out.append(f"cell {i}: uses {', '.join(names)}, made only in a folded check cell; "
                       "a reader who skips the checks gets a NameError (make them in an open cell)")
        return out


def _names(source: str):
    """The names a cell binds and the names it reads (magics skipped; unparsable: none)."""
    code = "\n".join(l for l in source.splitlines() if not l.lstrip().startswith(("%", "!")))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(), set()
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, read


def chapter_stats(path: Path) -> Stats:
    nb = jupytext.read(path, fmt="md:myst")
    st = Stats(path)
    starred_level = None  # heading level of the starred section we are in
    bound_open, bound_check = set(), set()  # names made by open cells / by folded checks
    seen_star = False
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            chunk, starred = [], starred_level is not None
            for line in cell.source.splitlines():
                m = _HEADING.match(line)
                if m and len(m.group(1)) >= 2:
                    level, title = len(m.group(1)), m.group(2)
                    if starred_level is not None and level <= starred_level:
                        starred_level = None
                    if starred_level is None and is_starred(title):
                        starred_level, seen_star = level, True
                    elif starred_level is None and seen_star and level == 2 \
                            and not title.lower().startswith(("summary", "exercises", "key ", "check your understanding")):
                        st.core_after_star.append(title)
                    n = prose_words("\n".join(chunk))
                    if starred:
                        st.starred_words += n
                    else:
                        st.core_words += n
                    chunk, starred = [], starred_level is not None
                chunk.append(line)
            n = prose_words("\n".join(chunk))
            if starred:
                st.starred_words += n
            else:
                st.core_words += n
        elif cell.cell_type == "code":
            tags = set(cell.metadata.get("tags", []))
            if "remove-cell" in tags or "remove-input" in tags:
                hidden_ok = "check" in tags or not _has_check(cell.source)
            else:
                hidden_ok = CHECK_TAGS <= tags or not _has_check(cell.source)
            if not hidden_ok:
                first = next((l for l in cell.source.splitlines() if l.strip()), "")
                st.open_checks.append((i, first[:60]))
            bound, read = _names(cell.source)
            if "check" in tags:
                bound_check |= bound
            elif not tags & {"remove-cell", "remove-input"}:  # glue plumbing is no reading
                missing = sorted((read - bound_open - bound) & bound_check)
                if missing:
                    st.needs_check.append((i, missing))
            if "check" not in tags:
                bound_open |= bound
    return st


def main(argv):
    paths = [Path(a) for a in argv] or sorted((ROOT / "chapters").glob("*.md"))
    bad = 0
    print(f"{'chapter':<28}{'core words':>11}{'starred':>9}{'open checks':>13}")
    for p in paths:
        st = chapter_stats(p)
        print(f"{p.name:<28}{st.core_words:>11}{st.starred_words:>9}{len(st.open_checks):>13}")
        for prob in st.problems():
            bad += 1
            print(f"    {prob}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
