"""Move the checks of a MyST chapter out of the cells a reader sees open.

A one-off editing aid for the rule in CONTRIBUTING.md ("Checks folded, not
gone"); ``scripts/chapter_stats.py`` and ``tests/test_structure.py`` enforce
the rule, this script only helps to follow it.  For every code cell with a
check (an ``assert`` statement, an ``assert*(...)`` call, or a loop/``if``/
``with`` block made only of those and of assignments):

* a cell made only of checks gets the tags ``hide-input`` and ``check``
  (a ``remove-cell`` check becomes a folded one, so the reader can open it);
* a mixed cell is split: the teaching statements stay in the open cell, the
  checks move, in order, to a folded ``check`` cell right after it;
* a cell whose asserts sit inside statements that also compute (a loop that
  defines a function, say) is folded whole.

Cells with IPython magics are left alone and listed.  Always run the chapter
afterwards: a check that relied on a value the teaching code changes after it
would now fail, loudly.

Usage: ``python scripts/fold_checks.py chapters/NN_name.md [...]`` (in place).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def _is_assert_call(node):
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        f = node.value.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        return name.startswith("assert")
    return False


def is_check(stmt) -> bool:
    if isinstance(stmt, ast.Assert) or _is_assert_call(stmt):
        return True
    if isinstance(stmt, (ast.For, ast.If, ast.With, ast.While)):
        leaves = [n for n in ast.walk(stmt) if isinstance(n, ast.stmt) and n is not stmt
                  and not isinstance(n, (ast.For, ast.If, ast.With, ast.While))]
        has_assert = any(isinstance(n, ast.Assert) or _is_assert_call(n) for n in leaves)
        plain = all(isinstance(n, (ast.Assert, ast.Assign, ast.AugAssign, ast.AnnAssign,
                                   ast.Continue, ast.Break, ast.Pass)) or _is_assert_call(n)
                    for n in leaves)
        return has_assert and plain
    return False


def _split_options(block: str):
    """(option lines, body) of a code-cell block's content."""
    lines = block.split("\n")
    if lines and lines[0].strip() == "---":
        end = lines.index("---", 1)
        return lines[: end + 1], lines[end + 1:]
    opts = []
    while lines and lines[0].startswith(":"):
        opts.append(lines.pop(0))
    return opts, lines


def _tags(opts):
    for line in opts:
        m = re.match(r"^:tags:\s*\[(.*)\]\s*$", line) or re.match(r"^tags:\s*\[(.*)\]\s*$", line)
        if m:
            return [t.strip() for t in m.group(1).split(",") if t.strip()]
    return []


def _with_tags(opts, tags):
    text = f"[{', '.join(tags)}]"
    if opts and opts[0].strip() == "---":
        out = [l for l in opts if not re.match(r"^tags:", l)]
        return out[:1] + [f"tags: {text}"] + out[1:]
    return [l for l in opts if not l.startswith(":tags:")] + [f":tags: {text}"]


def _cell(opts, body_lines):
    body = "\n".join(body_lines).strip("\n")
    head = "\n".join(opts)
    if opts and opts[0].strip() != "---":
        head += "\n"  # MyST wants a blank line after ':key: value' options
    return "```{code-cell} ipython3\n" + (head + "\n" if opts else "") + body + "\n```"


def fold_cell(block: str):
    """Return the replacement text of one code cell (or None to keep it)."""
    opts, body = _split_options(block.rstrip("\n"))
    while body and not body[0].strip():
        body.pop(0)
    src = "\n".join(body)
    if any(l.lstrip().startswith(("%", "!")) for l in body):
        return None
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    stmts = tree.body
    checks = [is_check(s) for s in stmts]
    nested = any(isinstance(n, ast.Assert) or _is_assert_call(n) for n in ast.walk(tree))
    if not nested:
        return None
    tags = _tags(opts)
    check_tags = [t for t in tags if t not in ("remove-cell", "remove-input", "hide-input", "check")]
    check_tags = check_tags + ["hide-input", "check"]
    solution_check = body[0].startswith("# checks ")  # an exercise solution's check cell
    if all(checks) or not any(checks) or solution_check or {"remove-cell", "remove-input"} & set(tags):
        # a hidden cell of checks and their set-up becomes one folded check
        return _cell(_with_tags(opts, check_tags), body)
    # segment i runs from the end of statement i-1 to the end of statement i
    open_lines, check_lines, start = [], [], 0
    for stmt, chk in zip(stmts, checks):
        seg = body[start:stmt.end_lineno]
        start = stmt.end_lineno
        (check_lines if chk else open_lines).extend(seg)
    open_lines.extend(body[start:])
    if not any(l.strip() for l in open_lines):
        return _cell(_with_tags(opts, check_tags), body)
    check_opts = [f":tags: [{', '.join(check_tags)}]"]
    return _cell(opts, open_lines) + "\n\n" + _cell(check_opts, check_lines)


def fold_text(text: str) -> str:
    def repl(m):
        new = fold_cell(m.group(1))
        return m.group(0) if new is None else new
    return CELL.sub(repl, text)


def main(argv):
    for name in argv:
        p = Path(name)
        old = p.read_text(encoding="utf-8")
        new = fold_text(old)
        if new != old:
            p.write_text(new, encoding="utf-8")
            print(f"fold_checks: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
