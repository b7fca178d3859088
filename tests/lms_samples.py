"""A small class in the formats Canvas and Moodle download, for the course tests.

Six people, set "perceptron", due 2026-03-01 23:59 UTC:

* Ada: the reference solution (``exercises/solutions/perceptron.py``, its functions).
* Bob: the reference with the update's sign flipped (a wrong answer).
* Cy: an independent correct solution, one day late, with an extension.
* Dee: first uploaded the blank template, then the reference one day late
  (a resubmission: the later upload must be graded, with a 10 % penalty). On
  Canvas her first attempt is only in an earlier download (a zip holds the
  current attempt of each student), given with a second ``--canvas``.
* Eve: Ada's code with the local variables renamed and comments added, as a notebook;
  on Canvas the same attempt also holds a ``scratch.py`` (the notebook is graded).
* Al: a file from a user the roster does not know (cannot be mapped).

The archives follow the naming conventions cited in ``linclf_grader/lms/canvas.py``
and ``moodle.py``.
"""

from __future__ import annotations

import ast
import io
import json
import tokenize
import zipfile
from pathlib import Path

from linclf_grader import get_set

ROOT = Path(__file__).resolve().parents[1]
DUE = "2026-03-01T23:59+00:00"

INDEPENDENT = '''import numpy as np


def perceptron_update(w, b, x, y, eta=1.0):
    score = float(np.dot(w, x) + b)
    if y * score > 0:
        return np.array(w, dtype=float), b
    return np.asarray(w, dtype=float) + eta * y * np.asarray(x, dtype=float), b + eta * y


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    w = np.zeros(X.shape[1])
    b = 0.0
    total = 0
    epoch = 0
    while epoch < max_epochs:
        changed = False
        for i in range(len(y)):
            if y[i] * (X[i] @ w + b) <= 0:
                w = w + eta * y[i] * X[i]
                b = b + eta * y[i]
                total += 1
                changed = True
        epoch += 1
        if not changed:
            break
    return w, b, total


def batch_perceptron_step(w, b, X, y, eta=1.0):
    idx = np.flatnonzero(y * (X @ w + b) <= 0)
    return w + eta * (X[idx].T @ y[idx]), b + eta * float(np.sum(y[idx])), len(idx)


def novikoff_bound(X, y, w, b):
    Xa = np.column_stack([X, np.ones(len(X))])
    wa = np.concatenate([w, [b]])
    g = np.min(y * (Xa @ wa)) / np.linalg.norm(wa)
    if g <= 0:
        raise ValueError("w, b do not separate the data")
    return float(np.max(np.sum(Xa ** 2, axis=1)) / g ** 2)


def perceptron_experiment(X, y):
    w, b, n = perceptron_train(X, y, 1.0, 10_000)
    return n, novikoff_bound(X, y, w, b), [True, False, False, True]


def novikoff_any_start():
    import sympy as sp
    g, R, eta, n0, beta = sp.symbols("gamma R eta n0 beta", positive=True)
    c, k = sp.symbols("c k", real=True)
    lo, hi = sp.solve((c + k * eta * g) ** 2 - n0 ** 2 - 2 * k * eta * beta - k * eta ** 2 * R ** 2, k)
    return hi if float(hi.subs({g: 1, R: 1, eta: 1, n0: 1, beta: 1, c: 0})) > 0 else lo
'''

RENAME = {"n_updates": "count", "mistakes": "errs", "x_i": "xi", "y_i": "yi", "wrong": "bad",
          "X_hat": "Z", "gamma": "smallest", "R": "radius", "a": "v"}


def full_points(exercise=None):
    """The public points plus the hidden tests' points of the set, or of one exercise
    (what a perfect submission gets)."""
    from linclf_grader.framework import load_private_tests

    exset = get_set("perceptron")
    hidden = load_private_tests(ROOT / "exercises" / "solutions", exset)
    return exset.max_points(exercise) + sum(t.points for t in hidden
                                            if exercise in (None, t.exercise))


def reference_code(leave_out=()):
    """The exercise functions of the reference solution, as a student would hand them in."""
    text = (ROOT / "exercises" / "solutions" / "perceptron.py").read_text()
    names = set(get_set("perceptron").exercises) - set(leave_out)
    parts = ["import numpy as np\nimport sympy as sp"]
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            parts.append(ast.get_source_segment(text, node))
    assert len(parts) == len(names) + 1, "the reference lost an exercise function"
    return "\n\n\n".join(parts) + "\n"


def renamed(code):
    """``code`` with its local variables renamed (tokenize: attributes stay) and comments added."""
    out, prev = [], None
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.NAME and tok.string in RENAME and not (prev and prev.string == "."):
            tok = tok._replace(string=RENAME[tok.string])
        out.append(tok)
        prev = tok
    text = tokenize.untokenize(out)
    return text.replace("def ", "# my own work\ndef ")


WRONG_UPDATE = '''

def perceptron_update(w, b, x, y, eta=1.0):
    if y * (w @ x + b) <= 0:
        return w - eta * y * x, b - eta * y
    return w.copy(), b
'''


def wrong_code():
    """The reference with a sign error in the update (3 of its 4 public tests fail)."""
    return reference_code(leave_out={"perceptron_update"}) + WRONG_UPDATE


def notebook(code):
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": part.strip() + "\n"} for part in code.split("\n\n\ndef ") if part.strip()]
    for c in cells[1:]:
        c["source"] = "def " + c["source"]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def files():
    """The content of each person's upload(s): name -> list of (filename, text, when)."""
    template = get_set("perceptron").template()
    return {
        "ada": [("perceptron.py", reference_code(), (2026, 3, 1, 11, 0, 0))],
        "bob": [("perceptron.py", wrong_code(), (2026, 3, 1, 12, 0, 0))],
        "cy": [("perceptron.py", INDEPENDENT, (2026, 3, 2, 10, 0, 0))],
        "dee": [("perceptron.py", template, (2026, 3, 1, 9, 0, 0)),
                ("perceptron-1.py", reference_code(), (2026, 3, 2, 12, 0, 0))],
        "eve": [("perceptron.ipynb", notebook(renamed(reference_code())), (2026, 3, 1, 20, 0, 0))],
        "al": [("perceptron.py", reference_code(), (2026, 3, 1, 8, 0, 0))],
    }


PEOPLE = {  # key: (sortable name, full name, Canvas user id, SIS id, Moodle participant, email)
    "ada": ("Lovelace, Ada", "Ada Lovelace", 1001, "s1001", 501, "ada@uni.example"),
    "bob": ("Babbage, Bob", "Bob Babbage", 1002, "s1002", 502, "bob@uni.example"),
    "cy": ("Shannon, Cy", "Cy Shannon", 1003, "s1003", 503, "cy@uni.example"),
    "dee": ("Hopper, Dee", "Dee Hopper", 1004, "s1004", 504, "dee@uni.example"),
    "eve": ("Noether, Eve", "Eve Noether", 1005, "s1005", 505, "eve@uni.example"),
    "al": ("Turing, Al", "Al Turing", 1099, "s1099", 599, "al@uni.example"),
}
ENROLLED = ["ada", "bob", "cy", "dee", "eve"]   # Al is not in the rosters


def write_canvas(folder):
    """``canvas-earlier.zip`` (a download made before Dee resubmitted), ``canvas-submissions.zip``
    and ``gradebook.csv`` in ``folder``; ids are SIS User IDs."""
    folder = Path(folder)
    att = 50000
    early, later = [], []
    for key, uploads in files().items():
        sortable, _, uid, *_ = PEOPLE[key]
        name = "".join(ch for ch in sortable.lower() if ch.isalnum())
        if key == "eve":   # one attempt, two files: the notebook and a scratch file
            uploads = uploads + [("scratch.py", "import numpy as np\nprint(np.pi)\n",
                                  uploads[0][2])]
        for i, (fname, text, when) in enumerate(uploads):
            att += 1
            last = i == len(uploads) - 1 or key == "eve"
            late = "_LATE" if key in ("cy", "dee") and last else ""
            member = zipfile.ZipInfo(f"{name}{late}_{uid}_{att}_{fname}", when)
            (later if last else early).append((member, text))
    for zip_name, members in (("canvas-earlier.zip", early), ("canvas-submissions.zip", later)):
        with zipfile.ZipFile(folder / zip_name, "w") as z:
            for member, text in members:
                z.writestr(member, text)
            z.writestr("notes.txt", "downloaded on Monday")
    rows = ["Student,ID,SIS User ID,SIS Login ID,Section,Perceptron (777),Current Score",
            "    Points Possible,,,,,42,(read only)"]
    for key in ENROLLED:
        sortable, _, uid, sis, *_ = PEOPLE[key]
        rows.append(f'"{sortable}",{uid},{sis},{key},Section 1,,')
    rows.append('"Student, Test",9999,,,Section 1,,')   # Canvas's Student View account
    (folder / "gradebook.csv").write_text("\n".join(rows) + "\n")


def write_moodle(folder):
    """``moodle-submissions.zip`` and ``worksheet.csv`` in ``folder``; ids are e-mail addresses."""
    folder = Path(folder)
    with zipfile.ZipFile(folder / "moodle-submissions.zip", "w") as z:
        for key, uploads in files().items():
            _, full, _, _, pid, _ = PEOPLE[key]
            for fname, text, when in uploads:
                fname = fname.replace("-1", "_v2")
                z.writestr(zipfile.ZipInfo(f"{full}_{pid}_assignsubmission_file_/{fname}", when),
                           text)
        z.writestr(zipfile.ZipInfo("Ada Lovelace_501_assignsubmission_onlinetext_/onlinetext.html",
                                   (2026, 3, 1, 11, 0, 0)), "<p>see my file</p>")
    times = {"ada": "Sunday, 1 March 2026, 11:00 AM", "bob": "Sunday, 1 March 2026, 12:00 PM",
             "cy": "Monday, 2 March 2026, 10:00 AM", "dee": "Monday, 2 March 2026, 12:00 PM",
             "eve": "Sunday, 1 March 2026, 8:00 PM"}
    rows = ["Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
            "Last modified (submission),Last modified (grade),Feedback comments"]
    for key in ENROLLED:
        _, full, _, _, pid, email = PEOPLE[key]
        rows.append(f'Participant {pid},{full},{email},Submitted for grading,,100.00,Yes,'
                    f'"{times[key]}",-,')
    (folder / "worksheet.csv").write_text("\n".join(rows) + "\n")


def write_course_files(folder, ids):
    """``extensions.csv`` (Cy), ``times.csv`` (Canvas only) and ``overrides.csv`` (Bob)."""
    folder = Path(folder)
    (folder / "extensions.csv").write_text(f"student,due\n{ids['cy']},2026-03-03T23:59+00:00\n")
    (folder / "times.csv").write_text(f"student,submitted\n{ids['cy']},2026-03-02T10:00+00:00\n"
                                      f"{ids['dee']},2026-03-02T12:00+00:00\n")
    (folder / "overrides.csv").write_text(
        f"student,exercise,points,reason\n{ids['bob']},perceptron_update,2,"
        "the statement's sign convention was ambiguous\n")


def write_folder(folder):
    """``submissions/`` with ``ID.py`` files and ``roster.csv`` (column student)."""
    sub = Path(folder) / "submissions"
    sub.mkdir()
    (sub / "s1001.py").write_text(reference_code())
    (sub / "s1002.py").write_text(wrong_code())
    (Path(folder) / "roster.csv").write_text("student\ns1001\ns1002\n")
