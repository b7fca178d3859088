"""The grader: safe parsing, value decoding, notebooks, private tests, reports, CLI."""

import csv
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from linclf_grader import _worker, get_set
from linclf_grader.cli import main
from linclf_grader.grade import grade_submission, gradescope_results, unique_labels
from linclf_grader.notebook import SubmissionError, clean_source, notebook_cells, read_submission
from linclf_grader.symbolic import UnsafeExpression, compare_expr, parse_expr_safely
from linclf_grader.values import BadValue, SympyText, decode_value, encode_args

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "exercises" / "solutions"
MY_SETS = ["discriminants", "fisher", "perceptron", "mse", "logistic", "softmax"]


# --------------------------------------------------------------------------
# safe sympy parsing
# --------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "b/sqrt(w1**2 + w2**2)",
    "-x*y*exp(-w*x*y)/(1 + exp(-w*x*y))",
    "Matrix([[2*y1*(a1*y1 - b)], [Rational(1, 3)*y2]])",
    "log(1 + exp(-z)) + Abs(z) - Max(0, z) + pi*E",
])
def test_safe_parser_round_trips_srepr_and_str(expr):
    x, y, w, z, b, w1, w2, a1, y1, y2 = sp.symbols("x y w z b w1 w2 a1 y1 y2", real=True)
    ns = dict(x=x, y=y, w=w, z=z, b=b, w1=w1, w2=w2, a1=a1, y1=y1, y2=y2, Matrix=sp.Matrix,
              Rational=sp.Rational, sqrt=sp.sqrt, exp=sp.exp, log=sp.log, Abs=sp.Abs,
              Max=sp.Max, pi=sp.pi, E=sp.E)
    original = eval(expr, ns)  # trusted test input
    for text in (sp.srepr(original), str(original)):
        parsed = parse_expr_safely(text)
        plain = original.xreplace({s: sp.Symbol(s.name) for s in original.free_symbols})
        assert sp.simplify(parsed - plain) == (0 if not isinstance(plain, sp.MatrixBase)
                                               else sp.zeros(*plain.shape))


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",
    "Symbol('x').__class__",
    "(lambda: 0)()",
    "exp.__globals__",
    "Symbol('x', evaluate=eval)",
    "Function('f')(x)",
    "sympify('1+1')",
    "Integer(10)**Integer(10)**Integer(10)",
    "Pow(Integer(10), Integer(1000000))",
    "Integer(" + "9" * 30 + ")",
    "Float('1e999999')",
    "Float('1e-999999')",
    "Float('9' * 40)",
    "x" + "+x" * 30000,
    "(" * 500 + "x" + ")" * 500,
    "[x for x in ()]",
    "x if x else x",
    "'a' + 'b'",
    "Symbol('os.system')",
])
def test_safe_parser_rejects(text):
    with pytest.raises(UnsafeExpression):
        parse_expr_safely(text)


def test_compare_expr():
    x, y, w = sp.symbols("x y w")
    expected = -x * y / (1 + sp.exp(w * x * y))
    ok, _ = compare_expr(-x * y * sp.exp(-w * x * y) / (1 + sp.exp(-w * x * y)), expected, ["w", "x", "y"])
    assert ok
    ok, msg = compare_expr(x * y / (1 + sp.exp(w * x * y)), expected, ["w", "x", "y"])
    assert not ok and "differs" in msg
    ok, msg = compare_expr(-x * y / (1 + sp.exp(w * x * y)) + sp.Symbol("q") * 0 + sp.Symbol("q"),
                           expected, ["w", "x", "y"])
    assert not ok and "unknown symbols" in msg
    ok, msg = compare_expr(sp.Matrix([x]), expected, ["w", "x", "y"])
    assert not ok and "scalar" in msg


# --------------------------------------------------------------------------
# values between worker and grader
# --------------------------------------------------------------------------
def roundtrip(value):
    return decode_value(json.loads(json.dumps(_worker.encode_value(value))))


def test_values_roundtrip_exact_types():
    arr = roundtrip(np.arange(6.0).reshape(2, 3))
    assert type(arr) is np.ndarray and arr.dtype == np.float64 and arr.shape == (2, 3)
    assert roundtrip((1, 2.5, None, True)) == [1, 2.5, None, True]
    assert np.isnan(roundtrip(float("nan"))) and roundtrip(float("-inf")) == float("-inf")
    assert type(roundtrip(np.float64(2.5))) is np.float64
    assert isinstance(roundtrip(sp.Symbol("x") + 1), SympyText)
    assert roundtrip({"a": [np.int64(3)]})["a"][0] == 3


def test_subclasses_lose_their_methods():
    class FakeFloat(float):
        def __eq__(self, other):
            return True

        def __float__(self):
            return 99.0

    class Liar(np.ndarray):
        def __eq__(self, other):
            return True

    got = roundtrip(FakeFloat(1.5))
    assert type(got) is float and got == 1.5
    arr = roundtrip(np.zeros(3).view(Liar))
    assert type(arr) is np.ndarray and not np.array_equal(arr, np.ones(3))


@pytest.mark.parametrize("value", [object(), np.array(["a"]), np.array([object()]), {1: 2},
                                   "x" * 30000, list(range(20000)), lambda: 0, 2**80])
def test_unsupported_values_are_refused(value):
    with pytest.raises(_worker.EncodeError):
        _worker.encode_value(value)


@pytest.mark.parametrize("data", [
    {"__ndarray__": "AAAA", "dtype": "|O", "shape": [1]},
    {"__ndarray__": "AAAAAAAAAAA=", "dtype": "<f8", "shape": [2]},
    {"__ndarray__": "AAAAAAAAAAA=", "dtype": "<f8", "shape": [-1]},
    {"__ndarray__": "!!!", "dtype": "<f8", "shape": [1]},
    {"__float__": "1e5"},
    {"__sympy__": 5},
])
def test_bad_encodings_are_rejected(data):
    with pytest.raises(BadValue):
        decode_value(data)


def test_args_encoding_gives_fresh_arrays():
    a = np.array([[1.0, 2.0]])
    sent = _worker.decode_args(json.loads(json.dumps(encode_args([a, (1, 2.0), float("inf")]))))
    assert np.array_equal(sent[0], a) and sent[0] is not a and sent[0].flags.writeable
    assert sent[1] == (1, 2.0) and sent[2] == float("inf")


# --------------------------------------------------------------------------
# notebooks
# --------------------------------------------------------------------------
def test_clean_source_drops_ipython_syntax():
    # a cell magic that wraps Python runs its body once; one that does not is dropped
    assert clean_source("%%time\nx = 1") == "\nx = 1"
    assert clean_source("%%timeit -n 3\nx = 1") == "\nx = 1"
    assert clean_source("%%bash\nls") == ""
    assert clean_source("%matplotlib inline\n!ls\nx = 1\nnp.sum?") == "\n\nx = 1\n"
    assert clean_source("%time y = f(2)\nfiles = !ls") == "y = f(2)\n"


def test_notebook_cells_and_errors(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "source": "# hi"},
                    {"cell_type": "code", "source": ["x = 1\n", "%time y = 2"]},
                    {"cell_type": "code", "source": 42}, "junk"], "nbformat": 4}
    assert notebook_cells(json.dumps(nb).encode()) == [(1, "x = 1\ny = 2")]
    with pytest.raises(SubmissionError):
        notebook_cells(b"not json")
    bad = tmp_path / "a.txt"
    bad.write_text("x")
    with pytest.raises(SubmissionError, match=".ipynb or .py"):
        read_submission(bad)


# --------------------------------------------------------------------------
# grading through the sandbox
# --------------------------------------------------------------------------
@pytest.mark.parametrize("set_name", MY_SETS)
def test_sandboxed_reference_and_stub(set_name, tmp_path):
    stub = tmp_path / f"{set_name}_stub.py"
    stub.write_text(get_set(set_name).template())
    good = grade_submission(SOLUTIONS / f"{set_name}.py", set_name, timeout=10)
    assert good["score"] == good["max_score"] == get_set(set_name).max_points(), good["tests"]
    bad = grade_submission(stub, set_name, timeout=10)
    assert bad["score"] == 0 and bad["max_score"] == good["max_score"]
    assert all(t["status"] == "failed" and t["output"] for t in bad["tests"])


PRIVATE = '''
import numpy as np
from linclf_grader import test, assert_close, unpack

SECRET_INPUT = 123.456


@test("perceptron_update", points=2, hidden=True)
def test_secret(f):
    w, b = unpack(f(np.array([SECRET_INPUT, 0.0]), 0.0, np.array([1.0, 1.0]), -1), 2)
    assert_close(w, [SECRET_INPUT - 1.0, -1.0], "w_new")


@test("perceptron.novikoff_bound", points=1)
def test_visible_private(f):
    assert_close(f(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, -1.0]), np.array([1.0, 0.0]), 0.0),
                 2.0, "bound")
'''


def test_private_tests_hidden_and_counted(tmp_path):
    private = tmp_path / "private"
    private.mkdir()
    (private / "extra.py").write_text(PRIVATE)
    ok = grade_submission(SOLUTIONS / "perceptron.py", "perceptron", private_tests=private)
    assert ok["max_score"] == get_set("perceptron").max_points() + 3
    assert ok["score"] == ok["max_score"]
    # the update is wrong on the secret input (sign error): the hidden test fails and says nothing
    sub = tmp_path / "wrong.py"
    sub.write_text("def perceptron_update(w, b, x, y, eta=1.0):\n"
                   "    return (w - eta * y * x, b - eta * y) if y * (w @ x + b) <= 0 else (w, b)\n")
    res = grade_submission(sub, "perceptron", private_tests=private)
    hidden = [t for t in res["tests"] if t["hidden"]]
    assert len(hidden) == 1 and hidden[0]["status"] == "failed"
    assert hidden[0]["output"] == "hidden test: failed"
    assert "123.456" not in json.dumps(res)
    gs = gradescope_results(res)
    hidden_rows = [t for t in gs["tests"] if t["visibility"] != "visible"]
    assert [(t["name"], t["visibility"]) for t in hidden_rows] == \
        [("perceptron_update: hidden test 1", "after_published")]


def test_gradescope_total_not_shown_before_hidden_tests(tmp_path):
    """Hostile trial F8: with hidden tests the top-level visibility is theirs (Gradescope then
    hides the total), public tests stay visible, and hidden tests' names say nothing."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "extra.py").write_text(PRIVATE.replace(
        '@test("perceptron_update", points=2, hidden=True)',
        '@test("perceptron_update", points=2, hidden=True, name="the input w = (3, -1)")'))
    res = grade_submission(SOLUTIONS / "perceptron.py", "perceptron", private_tests=private)
    gs = gradescope_results(res)
    assert gs["visibility"] == "after_published" and gs["stdout_visibility"] == "hidden"
    assert "(3, -1)" not in json.dumps(gs)
    public = [t for t in gs["tests"] if t["visibility"] == "visible"]
    assert public and len(public) == len(gs["tests"]) - 1
    assert "shown when grades are published" in gs["output"]
    # no hidden test: everything visible, as before
    plain = gradescope_results(grade_submission(SOLUTIONS / "perceptron.py", "perceptron"))
    assert plain["visibility"] == "visible"


def test_private_test_naming_an_unknown_exercise_is_an_error(tmp_path):
    (tmp_path / "bad.py").write_text(
        "from linclf_grader import test\n@test('nope', points=1)\ndef test_x(f):\n    pass\n")
    assert main([str(SOLUTIONS / "perceptron.py"), "--set", "perceptron", "--tests", str(tmp_path),
                 "--out", str(tmp_path / "o")]) == 2


def test_unreadable_submission_is_reported_not_raised(tmp_path):
    res = grade_submission(tmp_path / "missing.ipynb", "perceptron")
    assert res["score"] == 0 and "cannot read" in res["error"]
    assert all(t["status"] == "failed" for t in res["tests"])


def test_unique_labels_for_classroom_repos():
    labels = unique_labels(["repos/alice/perceptron.ipynb", "repos/bob/perceptron.ipynb", "x/solo.py"])
    assert labels == ["alice__perceptron", "bob__perceptron", "solo"]


def test_cli_writes_json_csv_and_gradescope(tmp_path):
    a, b = tmp_path / "alice", tmp_path / "bob"
    a.mkdir()
    b.mkdir()
    shutil.copy(SOLUTIONS / "perceptron.py", a / "perceptron.py")
    (b / "perceptron.py").write_text(get_set("perceptron").template())
    before = hashlib.sha256((a / "perceptron.py").read_bytes()).hexdigest()
    out = tmp_path / "out"
    proc = subprocess.run([str(Path(sys.executable).with_name("linclf-grade")), str(a / "perceptron.py"),
                           str(b / "perceptron.py"), "--set", "perceptron", "--jobs", "2",
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    full = get_set("perceptron").max_points()
    assert f"perceptron.py: {full:g}/{full:g}" in proc.stdout and f"perceptron.py: 0/{full:g}" in proc.stdout
    assert "[2/2]" in proc.stderr  # progress indicator
    rows = list(csv.DictReader(open(out / "grades.csv")))
    assert [r["total"] for r in rows] == [f"{full:g}", "0"]
    assert rows[0]["sha256"] == before and rows[0]["perceptron_update"] == "4"
    assert list(rows[0]) == ["file", "sha256", "student", *get_set("perceptron").exercises, "total",
                             "max", "late_penalty_percent", "overridden", "error"]
    assert [r["student"] for r in rows] == ["perceptron", "perceptron"]  # the file stems
    items = list(csv.DictReader(open(out / "items.csv")))
    first = items[0]
    assert first["level"] == "test" and first["n"] == "2" and float(first["pass_rate"]) == 0.5
    mine = json.loads((out / "alice__perceptron.json").read_text())
    assert mine["score"] == full and {"name", "score", "max_score", "status", "output"} <= set(mine["tests"][0])
    gs = json.loads((out / "bob__perceptron" / "results.json").read_text())
    assert gs["score"] == 0
    assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(gs["tests"][0])


def test_cli_usage_errors(tmp_path, capsys):
    assert main([]) == 2
    assert main(["x.py", "--set", "nope"]) == 2
    assert main(["x.py", "--set", "perceptron", "--jobs", "0"]) == 2


def test_gradescope_bundle(tmp_path):
    private = tmp_path / "private"
    private.mkdir()
    (private / "extra.py").write_text(PRIVATE)
    assert main(["--gradescope-bundle", "perceptron", "--tests", str(private), "--timeout", "4",
                 "--memory", "512", "--out", str(tmp_path / "gs")]) == 0
    gs = tmp_path / "gs"
    assert (gs / "setup.sh").exists() and (gs / "run_autograder").stat().st_mode & 0o111
    zf = zipfile.ZipFile(gs / "autograder_perceptron.zip")
    names = zf.namelist()
    wheel = next(n for n in names if n.endswith(".whl"))
    assert {"setup.sh", "run_autograder", "tests/extra.py", "requirements.txt", "bundle.json"} <= set(names)
    assert json.loads(zf.read("bundle.json"))["set"] == "perceptron"
    assert json.loads(zf.read("bundle.json"))["timeout"] == 4.0
    assert all("==" in line for line in zf.read("requirements.txt").decode().split())
    import io
    inner = zipfile.ZipFile(io.BytesIO(zf.read(wheel))).namelist()
    assert "linclf_grader/cli.py" in inner and "linclf/perceptron.py" in inner
    assert not any("solutions" in n for n in names + inner)
    for script in ("setup.sh", "run_autograder"):
        assert subprocess.run(["bash", "-n", str(gs / script)]).returncode == 0


def test_list_prints_the_exercises_as_json(capsys):
    import json

    from linclf_grader.cli import main
    from linclf_grader.framework import KINDS

    assert main(["--list", "perceptron"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in listing] == list(get_set("perceptron").exercises)
    assert all({"name", "title", "kind", "public_points", "hidden_tests",
                "hidden_points"} <= set(e) and e["kind"] in KINDS for e in listing)
    # instructor re-check s9b: a field "points" (the public ones) read as the exercise's worth
    assert not any("points" in e for e in listing)
    assert sum(e["public_points"] for e in listing) == get_set("perceptron").max_points()
    assert main(["--list", "nope"]) == 2
    # instructor trial 8: with the course's tests, the hidden points that grades.csv counts
    assert main(["--list", "perceptron", "--tests", str(SOLUTIONS)]) == 0
    listing = {e["name"]: e for e in json.loads(capsys.readouterr().out)}
    full = grade_submission(SOLUTIONS / "perceptron.py", "perceptron", private_tests=SOLUTIONS)
    assert sum(e["total_points"] for e in listing.values()) == full["max_score"]
    assert listing["perceptron_train"]["hidden_points"] > 0
    assert all((e["hidden_points"] > 0) == (e["hidden_tests"] > 0) for e in listing.values())


def test_without_sympy_the_grader_says_what_to_install(tmp_path):
    import subprocess

    # a module named sympy that fails to import shadows the real one, as if only linclf were installed
    (tmp_path / "sympy.py").write_text("raise ImportError('no sympy here')\n")
    proc = subprocess.run([sys.executable, "-c", "import sys; from linclf_grader.cli import main; "
                           "sys.exit(main(['--list', 'perceptron']))"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "linclf-grade: the grader needs sympy; install it with: pip install sympy"
    assert "Traceback" not in proc.stderr


def test_a_multiprocessing_thread_pool_works_as_in_check(tmp_path):
    """Hostile re-review s9b F4: multiprocessing.dummy / ThreadPool needs a writable /dev/shm;
    the worker has a small private one, so the grader gives the points check() gives."""
    sub = tmp_path / "s1.py"
    sub.write_text("import numpy as np\nfrom multiprocessing.dummy import Pool\n\n\n"
                   "def perceptron_update(w, b, x, y, eta=1.0):\n    with Pool(2) as p:\n"
                   "        p.map(abs, [1, 2])\n    wrong = y * (np.dot(w, x) + b) <= 0\n"
                   "    if wrong:\n        return np.asarray(w, float) + eta * y * np.asarray(x, float), b + eta * y\n"
                   "    return np.asarray(w, float), b\n")
    res = grade_submission(sub, "perceptron")
    update = [t for t in res["tests"] if t["exercise"] == "perceptron_update" and not t["hidden"]]
    assert update and all(t["status"] == "passed" for t in update), [t["output"] for t in update]
