"""Honest feedback: an honest student loses no point to a limit or a detail the pages do not
state, and what went wrong is shown with its cell and line."""

from __future__ import annotations

import json

import pytest
from exercise_harness import ROOT

from linclf_grader import evaluate
from linclf_grader.grade import grade_submission, gradescope_results, student_from_filename
from linclf_grader.notebook import MAX_CODE_BYTES, SubmissionError, read_submission

PERCEPTRON = (ROOT / "exercises" / "solutions" / "perceptron.py").read_text()
KERNELS = (ROOT / "exercises" / "solutions" / "kernels.py").read_text()


def _nb(*sources, outputs=None):
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": i + 1, "source": s,
              "outputs": outputs or []} for i, s in enumerate(sources)]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _public(result, exercise=None):
    return [t for t in result["tests"] if not t["hidden"] and exercise in (None, t["exercise"])]


def test_slow_experiment_cells_do_not_cost_the_functions_points(tmp_path):
    """Each slow cell stays under the per-statement limit; together they exceed the calls'
    budget, which counts only calls. A cell over the limit is stopped and named."""
    path = tmp_path / "s1.ipynb"
    slow = "import time\ntime.sleep(1.2)\n"
    path.write_text(_nb(PERCEPTRON, slow, slow, slow, "import time\ntime.sleep(30)\n"))
    result = grade_submission(path, "perceptron", timeout=2.0, budget=3.0, student="s1")
    assert all(t["score"] == t["max_score"] for t in _public(result)), \
        [t["output"] for t in _public(result)]
    assert any(n.startswith("cell 4:") and "Timeout" in n for n in result["notes"]), result["notes"]


def test_outputs_do_not_count_against_the_size_limit(tmp_path):
    path = tmp_path / "s1.ipynb"
    big = [{"output_type": "stream", "name": "stdout", "text": "x" * (12 * 2**20)}]
    path.write_text(_nb(PERCEPTRON, outputs=big))
    result = grade_submission(path, "perceptron", student="s1")
    assert not result["error"]
    assert all(t["score"] == t["max_score"] for t in _public(result))
    code = tmp_path / "s2.py"
    code.write_text("x = 1\n" * (MAX_CODE_BYTES // 6 + 10))
    with pytest.raises(SubmissionError, match="of code.*outputs do not count"):
        read_submission(code)


@pytest.mark.parametrize("name, sid, noted", [
    ("s2026001 (1).py", "s2026001", True), ("s2026001(2).ipynb", "s2026001", True),
    ("s2026001-1.ipynb", "s2026001", True), ("s2026001.py", "s2026001", False),
    ("alice_smith.py", "alice_smith", False),
])
def test_duplicate_download_names_resolve_to_the_id(name, sid, noted):
    got, note = student_from_filename(name)
    assert got == sid and bool(note) == noted


def test_a_duplicate_download_is_graded_with_the_students_data_and_says_so(tmp_path):
    path = tmp_path / "s2026001 (1).py"
    path.write_text(PERCEPTRON)
    result = grade_submission(path, "perceptron")
    assert result["student"] == "s2026001"
    assert all(t["score"] == t["max_score"] for t in _public(result))
    assert "repeated download" in gradescope_results(result)["output"]


def test_syntax_errors_and_dropped_cells_are_shown_with_cell_and_line(tmp_path):
    path = tmp_path / "s1.ipynb"
    broken = "def perceptron_update(w, b, x, y, eta=1.0):\n    return (w, b\n"
    path.write_text(_nb("import numpy as np\n", broken, "%%bash\nls\n",
                        "%%time\ndef novikoff_bound(X, y, w, b):\n    return 1.0\n"))
    result = grade_submission(path, "perceptron", student="s1")
    rows = _public(result, "perceptron_update")
    assert all("does not define" in t["output"] and "cell 1: SyntaxError at line 2" in t["output"]
               for t in rows), [t["output"] for t in rows]
    assert any(n.startswith("cell 2:") and "%%bash" in n for n in result["notes"])
    # the %%time cell ran: novikoff_bound is defined (and wrong), not missing
    assert not any("does not define" in t["output"] for t in _public(result, "novikoff_bound"))
    assert "SyntaxError at line 2" in gradescope_results(result)["output"]


def test_a_numpy_bool_is_a_bool(tmp_path):
    """The trial's F4: converged = n_mistakes == 0 with numpy integers is a numpy bool."""
    source = KERNELS.replace("def kernel_perceptron(K, y, max_epochs=100):",
                             "def kernel_perceptron(K, y, max_epochs=100):\n"
                             "    alpha, b, converged = _kp(K, y, max_epochs)\n"
                             "    return alpha, b, np.bool_(converged)\n\n\n"
                             "def _kp(K, y, max_epochs=100):")
    path = tmp_path / "s1.py"
    path.write_text(source)
    result = grade_submission(path, "kernels", student="s1")
    rows = _public(result, "kernel_perceptron")
    assert rows and all(t["score"] == t["max_score"] for t in rows), [t["output"] for t in rows]
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    _, results = evaluate("kernels.kernel_perceptron", namespace["kernel_perceptron"], cells=[source])
    assert all(r["score"] == r["max_score"] for r in results)


@pytest.mark.parametrize("answer", [
    "[Fraction(2, 27), Fraction(14, 81), Fraction(20, 81), 0, 0]",
    "[sp.Rational(2, 27), sp.Rational(14, 81), sp.Rational(20, 81), sp.S(0), 0]",
    "np.array([sp.Rational(2, 27), sp.Rational(14, 81), sp.Rational(20, 81), 0, 0], dtype=object)",
    "sp.Matrix([sp.Rational(2, 27), sp.Rational(14, 81), sp.Rational(20, 81), 0, 0])",
])
def test_exact_fractions_are_accepted_where_the_page_promises_them(tmp_path, answer):
    source = ("import numpy as np\nimport sympy as sp\nfrom fractions import Fraction\n\n"
              f"def small_dual_alpha():\n    return {answer}\n")
    path = tmp_path / "s1.py"
    path.write_text(source)
    result = grade_submission(path, "duality", student="s1")
    rows = _public(result, "small_dual_alpha")
    assert rows and all(t["score"] == t["max_score"] for t in rows), [t["output"] for t in rows]
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    _, results = evaluate("duality.small_dual_alpha", namespace["small_dual_alpha"], cells=[source])
    assert [r["score"] for r in results] == [t["score"] for t in rows]
    wrong = source.replace("14, 81", "13, 81")
    path.write_text(wrong)
    assert sum(t["score"] for t in _public(grade_submission(path, "duality", student="s1"),
                                           "small_dual_alpha")) < sum(t["max_score"] for t in rows)


def test_namedtuple_and_longdouble_are_read_as_what_they_are(tmp_path):
    """Hostile trial F5: a namedtuple is a tuple; np.longdouble is checked as the nearest float64.

    Before the fix: "cannot check a value of type Update" and "bad array encoding".
    """
    source = PERCEPTRON.replace(
        "def perceptron_update(w, b, x, y, eta=1.0):",
        "from collections import namedtuple\nUpdate = namedtuple('Update', 'w b')\n\n\n"
        "def perceptron_update(w, b, x, y, eta=1.0):\n    return Update(*_update(w, b, x, y, eta))\n\n\n"
        "def _update(w, b, x, y, eta=1.0):").replace(
        "    return (R / gamma) ** 2", "    return np.longdouble((R / gamma) ** 2)")
    path = tmp_path / "s1.py"
    path.write_text(source)
    result = grade_submission(path, "perceptron", student="s1")
    for exercise in ("perceptron_update", "novikoff_bound"):
        rows = _public(result, exercise)
        assert rows and all(t["score"] == t["max_score"] for t in rows), [t["output"] for t in rows]
        namespace = {}
        exec(compile(source, str(path), "exec"), namespace)
        _, results = evaluate(f"perceptron.{exercise}", namespace[exercise], cells=[source])
        assert [r["score"] for r in results] == [t["score"] for t in rows]


def test_an_integer_array_is_not_described_as_float64():
    """Instructor trial: np.argmax's int64 answer was shown as 'dtype=float64'."""
    import numpy as np

    from linclf_grader.framework import assert_close, assert_equal

    got = np.array([0, 1, 0])
    for check in (assert_equal, assert_close):
        with pytest.raises(AssertionError) as info:
            check(got, np.array([0, 2, 0]))
        shown = str(info.value).split(", got ")[1]
        assert "float64" not in shown and "int64" in shown, str(info.value)
