"""What every exercise test needs: the reference solutions, scoring, stubs and page cells.

The reference solutions live in ``exercises/solutions`` (instructor material that
a submission cannot import); tests load them by path.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from linclf_grader import evaluate, get_set

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "exercises" / "solutions"


def load_reference(set_name):
    """The reference solution module of ``set_name``."""
    spec = importlib.util.spec_from_file_location(f"_ref_{set_name}", SOLUTIONS / f"{set_name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def score(set_name, exercise, fn):
    """(points, max points, per-test results) of ``fn`` on the public tests."""
    from linclf_grader import variants

    # answers to an exercise with task parameters read them with my_data, as students do
    before, variants._current = variants._current, "alice"
    try:
        _, results = evaluate(f"{set_name}.{exercise}", fn, student="alice")
    finally:
        variants._current = before
    return sum(r["score"] for r in results), sum(r["max_score"] for r in results), results


def stub_functions(set_name):
    """The blank template of ``set_name``, executed: name -> stub function."""
    namespace = {}
    exec(get_set(set_name).template(), namespace)
    return namespace


def page_cells(path):
    """Code cells of a MyST notebook page, without their cell options."""
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", path.read_text(), flags=re.S)
    out = []
    for c in cells:
        lines = c.splitlines()
        while lines and (lines[0].startswith(":") or not lines[0].strip()):
            lines.pop(0)
        out.append("\n".join(lines))
    return out
