"""Per-student material for a whole roster in one call: templates and notebooks.

For every student and set, ``OUT/ID/SET.py`` is the plain-Python template with
that student's data written into the docstrings of the variant exercises
(:meth:`ExerciseSet.template`), and ``OUT/ID/SET.ipynb`` is the book's exercise
notebook (``notebooks/exercises/SET.ipynb`` of the source tree) whose
``student("YOUR-ID")`` line already holds the student's id, so ``my_data`` and
``check`` use the right data from the first run. Outside a source tree the
notebook is built from the set itself (imports, then each stub and its
``check`` cell). Everything runs in one call (``jobs`` processes share the
roster); most of the time goes to drawing the students' variant data
(``benchmarks/bench_materials.py`` times a class of 60 for the 11 sets).
"""

from __future__ import annotations

import copy
import csv
import json
import re
from pathlib import Path

from .framework import available_sets, get_set
from .variants import check_student_id

__all__ = ["read_student_list", "write_materials", "book_notebook"]

_ID_LINE = re.compile(r'^student\("YOUR-ID"\)[^\n]*$', re.M)


def read_student_list(path, id_column=None, notes=None):
    """Student ids from a CSV with a ``student`` column (one id per row), or from an
    LMS roster: a Canvas gradebook export or a Moodle grading worksheet (the id
    column chosen as when grading, or ``id_column``). ``notes``, a list, receives
    the line that says which column gave the ids."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in (reader.fieldnames or [])]
        if "student" not in header:
            if "Identifier" in header and "Full name" in header:
                from .lms.moodle import read_worksheet

                return _ids_of(read_worksheet(path, id_column)[0], path, notes)
            if "Student" in header and "ID" in header:
                from .lms.canvas import read_gradebook

                return _ids_of(read_gradebook(path, id_column)[0], path, notes)
            raise ValueError(f"{path}: the header must have the column student (or be a Canvas "
                             "gradebook export or a Moodle grading worksheet)")
        ids = []
        for line, row in enumerate(reader, start=2):
            value = {k.strip(): v for k, v in row.items() if k}.get("student") or ""
            try:
                ids.append(check_student_id(value))
            except ValueError as exc:
                raise ValueError(f"{path}, line {line}, column student: {exc}") from None
    dup = sorted({s for s in ids if ids.count(s) > 1})
    if dup:
        raise ValueError(f"{path}: the id(s) {', '.join(dup)} appear more than once")
    return ids


def _ids_of(roster, path, notes):
    if notes is not None and roster:
        notes.append(f"student ids: column {next(iter(roster.values())).id_column!r} of "
                     f"{Path(path).name}")
    return list(roster)


def book_notebook(set_name):
    """The book's notebook of ``set_name`` as a dict, or None outside a source tree."""
    path = Path(__file__).resolve().parents[1] / "notebooks" / "exercises" / f"{set_name}.ipynb"
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _cell(kind, source):
    cell = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _built_notebook(exset):
    cells = [_cell("markdown", f"# Exercises: {exset.title}"),
             _cell("code", exset.preamble.rstrip() + "\nfrom linclf_grader import check, my_data, "
                   'student\n\nstudent("YOUR-ID")  # your student id')]
    for ex in exset.exercises.values():
        cells += [_cell("markdown", f"## {ex.title}"), _cell("code", ex.template().rstrip()),
                  _cell("code", f"check({ex.name})")]
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3",
                                                        "language": "python", "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _with_id(notebook, student, exset=None):
    """A copy of ``notebook`` whose ``student("YOUR-ID")`` line names ``student``.

    With ``exset``, the stub of each exercise with per-student data shows that
    student's data and task parameters, exactly as the ``.py`` template does
    (instead of the "run student("YOUR-ID")" instruction of the book's notebook).
    """
    nb = copy.deepcopy(notebook)
    if exset is not None:
        for ex in exset.exercises.values():
            if ex.variant is None:
                continue
            generic = ex.template().rstrip()
            mine = ex.template(exset.variant_data(ex.name, student), student).rstrip()
            for cell in nb["cells"]:
                src = "".join(cell["source"]) if isinstance(cell["source"], list) \
                    else cell["source"]
                if cell["cell_type"] == "code" and generic in src:
                    cell["source"] = src.replace(generic, mine)
    line = f'student("{student}")  # your student id, filled in by your instructor'
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if _ID_LINE.search(src):
            cell["source"] = _ID_LINE.sub(line, src, count=1)
            return nb
    # a set without per-student data: the id still goes first, for check() and the grader
    at = next((i + 1 for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"
               and "linclf_grader" in "".join(c["source"])), 0)
    nb["cells"].insert(at, _cell("code", "from linclf_grader import student\n\n" + line))
    return nb


def write_materials(students, set_names, out_dir, jobs=1):
    """Write ``OUT/ID/SET.py`` and ``OUT/ID/SET.ipynb`` for every student and set.

    ``jobs`` processes share the students (the variant data of some sets take
    a tenth of a second per student to draw). Returns the number of files written.
    """
    if not students:
        raise ValueError("no students to write material for")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if set_names in ("all", ["all"]):
        set_names = available_sets()
    students = [check_student_id(sid) for sid in students]
    for name in set_names:
        get_set(name)   # an unknown set fails here, before any file is written
    if jobs == 1 or len(students) < 2:
        return _write_some(students, list(set_names), out_dir)
    import concurrent.futures as cf
    import multiprocessing

    chunks = [students[k::jobs] for k in range(jobs) if students[k::jobs]]
    ctx = multiprocessing.get_context("fork")
    with cf.ProcessPoolExecutor(max_workers=len(chunks), mp_context=ctx) as pool:
        return sum(pool.map(_write_some, chunks, [list(set_names)] * len(chunks),
                            [out_dir] * len(chunks)))


def _write_some(students, set_names, out_dir):
    sets = [get_set(name) for name in set_names]
    notebooks = {s.name: book_notebook(s.name) or _built_notebook(s) for s in sets}
    out_dir = Path(out_dir)
    written = 0
    for sid in students:
        folder = out_dir / sid
        folder.mkdir(parents=True, exist_ok=True)
        for exset in sets:
            (folder / f"{exset.name}.py").write_text(exset.template(sid), encoding="utf-8")
            nb = _with_id(notebooks[exset.name], sid, exset)
            (folder / f"{exset.name}.ipynb").write_text(json.dumps(nb, indent=1,
                                                                   ensure_ascii=False) + "\n",
                                                        encoding="utf-8")
            written += 2
    return written
