"""End to end, for every set: the book's own notebook, filled in by a student and saved by
Colab, earns full marks from ``linclf-grade``; so does the filled ``.py`` template; the blank
ones earn nothing.

The filled notebooks are made here from the real ``notebooks/exercises/SET.ipynb``: each
stub cell gets the reference function (with the helpers it uses) pasted in, as a student
would, and the notebook is saved the way Colab saves one (nbformat 4.0, Colab metadata and
cell ids, ``execution_count``s, outputs: printed text, a large inline PNG, the traceback of a
plot cell that raised), with the extra cells students add (``%matplotlib inline``, ``%%time``,
``!pip``). The book's hidden helper cells (they import linclf) stay in, untouched.
"""

from __future__ import annotations

import ast
import base64
import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from exercise_harness import ROOT, SOLUTIONS

from linclf_grader import available_sets, get_set

SETS = available_sets()
SID = {"notebook": "s2026001", "template": "s2026002", "blank": "s2026003", "blank_py": "s2026004"}
# a plot a student left in the notebook: about 6 MB of stored output (more than the old
# 5 MB file limit; outputs do not count against the code limit)
PNG = base64.b64encode(os.urandom(4_500_000)).decode("ascii")


def solution_sources(set_name):
    """Exercise -> the source a student pastes: imports, helpers it uses, the function."""
    path = SOLUTIONS / f"{set_name}.py"
    text = path.read_text()
    tree = ast.parse(text)
    defs, imports = {}, []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if not (mod or "").startswith("linclf_grader"):
                imports.append(ast.get_source_segment(text, node))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    defs[t.id] = node
    exercises = get_set(set_name).exercises
    out = {}
    for name in exercises:
        needed, todo = [], [name]
        while todo:
            current = todo.pop()
            node = defs.get(current)
            if node is None or node in needed:
                continue
            needed.append(node)
            todo.extend(n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                        and n.id in defs and n.id not in exercises)
        needed.sort(key=lambda n: n.lineno)
        body = "\n\n\n".join(ast.get_source_segment(text, n) for n in needed)
        out[name] = "\n".join(imports) + "\n\n\n" + body + "\n"
    return out


def _lines(source):
    # Colab stores a cell's source as a list of lines
    parts = source.splitlines(keepends=True)
    if parts and parts[-1].endswith("\n"):
        parts[-1] = parts[-1][:-1]
    return parts


def colab_notebook(set_name, student, *, filled):
    """The set's notebook, run by a student on Colab (filled in or blank) and saved."""
    nb = json.loads((ROOT / "notebooks" / "exercises" / f"{set_name}.ipynb").read_text())
    exercises = get_set(set_name).exercises
    answers = solution_sources(set_name) if filled else {}
    cells, count = [], 0
    first_stub = True

    def code(source, outputs=()):
        nonlocal count
        count += 1
        return {"cell_type": "code", "execution_count": count, "source": _lines(source),
                "metadata": {"id": f"c{len(cells):04d}xYz", "colab": {"base_uri": "https://localhost:8080/"},
                             "outputId": f"{len(cells):08x}-0000"},
                "outputs": list(outputs)}

    def stream(text):
        return {"output_type": "stream", "name": "stdout", "text": _lines(text)}

    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            md = copy.deepcopy(cell)
            md["metadata"] = {"id": f"m{len(cells):04d}xYz"}
            md.pop("id", None)
            md["source"] = _lines("".join(md["source"]) if isinstance(md["source"], list) else md["source"])
            cells.append(md)
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        stub = next((ex for ex in exercises.values() if source.startswith(ex.signature)), None)
        if stub is None and 'student("YOUR-ID")' in source:
            source = source.replace("YOUR-ID", student)
            cells.append(code(source))
            cells.append(code("%matplotlib inline\n%load_ext autoreload"))
            continue
        if stub is not None:
            if filled:
                source = answers[stub.name]
                if first_stub:  # a student timing the first exercise's cell
                    source = "%%time\n" + source
                    first_stub = False
            cells.append(code(source, [stream("CPU times: user 2 ms, sys: 0 ns, total: 2 ms\n")]
                              if source.startswith("%%time") else []))
            continue
        check = re.search(r"check\((\w+)\)", source)
        if check:
            pts = get_set(set_name).max_points(check.group(1))
            got = pts if filled else 0
            cells.append(code(source, [stream(f"{check.group(1)}: {got:g}/{pts:g} points from the "
                                              "public tests\n")]))
            continue
        cells.append(code(source))  # the install cell and the book's hidden helper cells
    # what students add at the end: a timed experiment, a shell line, a plot that fails
    cells.append(code("%%time\n_total = sum(k * k for k in range(10_000))\nprint(_total)",
                      [stream("333283335000\nCPU times: user 1 ms\nWall time: 1 ms\n")]))
    cells.append(code("!pip list 2>/dev/null | grep -i numpy", [stream("numpy 2.1.0\n")]))
    cells.append(code(
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([0, 1], [0, 1, 2])",
        [{"output_type": "display_data", "data": {"image/png": PNG, "text/plain": ["<Figure>"]},
          "metadata": {"needs_background": "light"}},
         {"output_type": "error", "ename": "ValueError",
          "evalue": "x and y must have same first dimension",
          "traceback": ["\u001b[0;31mValueError\u001b[0m  Traceback (most recent call last)",
                        "\u001b[0;32m<ipython-input-9>\u001b[0m in \u001b[0;36m<cell line: 3>\u001b[0m"]}]))
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 0,
            "metadata": {"colab": {"provenance": [], "toc_visible": True},
                         "kernelspec": {"name": "python3", "display_name": "Python 3"},
                         "language_info": {"name": "python"}}}


def filled_template(set_name, student):
    """``linclf-grade --template SET --student ID`` with every stub replaced by the answer."""
    text = get_set(set_name).template(student)
    answers = solution_sources(set_name)
    for name, ex in get_set(set_name).exercises.items():
        start = text.index(ex.signature)
        nxt = text.find("\n# " + "-" * 70, start)
        end = len(text) if nxt < 0 else nxt
        text = text[:start] + answers[name] + "\n" + text[end:]
    return text


_GRADED = {}


def graded(set_name, tmp_path_factory):
    """Grade the four submissions of ``set_name`` with the command line, once."""
    if set_name in _GRADED:
        return _GRADED[set_name]
    folder = tmp_path_factory.mktemp(set_name)
    files = {
        # a second download of the same notebook: the id must still be found
        "notebook": folder / f"{SID['notebook']} (1).ipynb",
        "template": folder / f"{SID['template']}.py",
        "blank": folder / f"{SID['blank']}.ipynb",
        "blank_py": folder / f"{SID['blank_py']}.py",
    }
    files["notebook"].write_text(json.dumps(colab_notebook(set_name, SID["notebook"], filled=True),
                                            indent=2))
    files["template"].write_text(filled_template(set_name, SID["template"]))
    files["blank"].write_text(json.dumps(colab_notebook(set_name, SID["blank"], filled=False)))
    files["blank_py"].write_text(get_set(set_name).template(SID["blank_py"]))
    out = folder / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "linclf_grader.cli", *map(str, files.values()), "--set", set_name,
         "--tests", str(SOLUTIONS), "--out", str(out), "--quiet"],
        capture_output=True, text=True, timeout=600, cwd=folder,
        env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = {}
    for kind, path in files.items():
        found = [json.loads(p.read_text()) for p in out.glob("*.json")
                 if json.loads(p.read_text())["file"] == str(path)]
        assert len(found) == 1, (kind, proc.stdout)
        results[kind] = found[0]
    _GRADED[set_name] = results
    return results


def _lost(result):
    return [(t["name"], t["output"][:300]) for t in result["tests"] if t["score"] < t["max_score"]]


@pytest.mark.parametrize("set_name", SETS)
def test_colab_notebook_filled_in_earns_full_marks(set_name, tmp_path_factory):
    r = graded(set_name, tmp_path_factory)["notebook"]
    assert r["max_score"] == get_set(set_name).max_points() + sum(
        t["max_score"] for t in r["tests"] if t["hidden"])
    assert r["score"] == r["max_score"], _lost(r)
    assert r["student"] == SID["notebook"]  # "s2026001 (1).ipynb"
    assert any("repeated download" in n for n in r["notes"])
    assert not r["imports"]  # the book's helper cells import linclf: never the student's
    # the %%time cell ran (its exercise is defined) and the failing plot is reported, not fatal
    assert any("ValueError" in v for v in r["cell_errors"].values()), r["cell_errors"]


@pytest.mark.parametrize("set_name", SETS)
def test_filled_template_earns_full_marks(set_name, tmp_path_factory):
    r = graded(set_name, tmp_path_factory)["template"]
    assert r["score"] == r["max_score"] > 0, _lost(r)
    assert r["student"] == SID["template"] and not r["imports"]


@pytest.mark.parametrize("set_name", SETS)
def test_blank_notebook_and_template_earn_nothing(set_name, tmp_path_factory):
    for kind in ("blank", "blank_py"):
        r = graded(set_name, tmp_path_factory)[kind]
        assert r["score"] == 0 and r["max_score"] > 0, (kind, _lost(r))
        assert len(r["tests"]) == len(graded(set_name, tmp_path_factory)["notebook"]["tests"])


def test_the_filled_notebooks_are_what_a_student_sends():
    """The generator keeps the book's cells and puts the answers where the stubs were."""
    nb = colab_notebook("perceptron", "s1", filled=True)
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert any("from linclf.perceptron import Perceptron" in s for s in sources)  # hidden helper
    assert sources[0].startswith("# Self-install")
    assert sum(s.startswith("%%time\n") and "def perceptron_update" in s for s in sources) == 1
    assert not any("raise NotImplementedError" in s for s in sources)
    assert len(json.dumps(nb)) > 5 * 2**20  # outputs make the file larger than the old limit
    blank = colab_notebook("perceptron", "s1", filled=False)
    assert sum("raise NotImplementedError" in "".join(c["source"]) for c in blank["cells"]) == 5


@pytest.mark.parametrize("set_name", SETS)
def test_the_gradescope_entry_point_gives_the_filled_notebook_full_marks(set_name, tmp_path):
    """``run_autograder`` of the bundle, run in a copy of Gradescope's layout (its
    ``/autograder`` moved under a temporary folder, this environment as its venv)."""
    from linclf_grader.gradescope import write_bundle

    import zipfile

    root = tmp_path / "autograder"
    bundle = tmp_path / "bundle"
    zip_path = write_bundle(set_name, bundle)
    for sub in ("submission", "results", "source"):
        (root / sub).mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as zf:  # Gradescope unpacks the zip into source/
        zf.extractall(root / "source")
    script = (root / "source" / "run_autograder").read_text().replace("/autograder", str(root))
    (root / "venv").symlink_to(Path(sys.executable).parents[1])
    (root / "submission" / "homework.ipynb").write_text(
        json.dumps(colab_notebook(set_name, SID["notebook"], filled=True)))
    (root / "submission_metadata.json").write_text(
        json.dumps({"users": [{"sid": SID["notebook"], "email": "s@example.org", "id": 7}]}))
    (root / "run_autograder").write_text(script)
    proc = subprocess.run(["bash", str(root / "run_autograder")], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "OMP_NUM_THREADS": "1",
                                            "LINCLF_AUTOGRADER_ROOT": str(root)})
    results = json.loads((root / "results" / "results.json").read_text())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert results["score"] == get_set(set_name).max_points() > 0, \
        [(t["name"], t["output"][:200]) for t in results["tests"] if t["score"] < t["max_score"]]
