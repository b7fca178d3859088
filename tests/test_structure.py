"""Code-structure rules of linclf: small modules, no private names across module boundaries."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "linclf"
# the library and the grader beside it: both are read by newcomers
MODULES = sorted([*PACKAGE.rglob("*.py"), *(ROOT / "linclf_grader").rglob("*.py")])
MAX_LINES = 600


def _is_module(package_dir, name):
    return (package_dir / f"{name}.py").is_file() or (package_dir / name / "__init__.py").is_file()


def _private_imports(path):
    """``(line, name)`` for every private name of a linclf module used in ``path``.

    Private modules (``from . import _worker``, ``from ._params import ...``) are
    a package's own business; a private *function or class* of another module
    is not, neither imported by name nor reached as ``module._name``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, module_aliases = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("linclf")):
            base = path.parent
            for _ in range(max(node.level - 1, 0)):
                base = base.parent
            if node.module and node.level:
                base = base.joinpath(*node.module.split("."))
            for alias in node.names:
                if _is_module(base, alias.name):
                    module_aliases.add(alias.asname or alias.name)
                elif alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((node.lineno, alias.name))
        elif isinstance(node, ast.Import):
            module_aliases.update(a.asname or a.name.split(".")[0]
                                  for a in node.names if a.name.startswith("linclf"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in module_aliases and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_is_small(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.name} has {n} lines; split it by concern (limit {MAX_LINES})"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_crosses_a_module_boundary(path):
    assert _private_imports(path) == []


def test_the_private_name_rule_can_fail(tmp_path):
    pkg = tmp_path / "linclf"
    pkg.mkdir()
    (pkg / "a.py").write_text("def _helper():\n    pass\n")
    (pkg / "b.py").write_text("from .a import _helper\nfrom . import a\nx = a._helper\n")
    assert _private_imports(pkg / "b.py") == [(1, "_helper"), (3, "a._helper")]


@pytest.mark.xdist_group("xdist-guard")
def test_xdist_groups_hold_under_loadgroup(request):
    # scripts/test.sh runs pytest -n 2 --dist loadgroup so that each xdist_group (a course
    # graded once, the hostile sandboxes, one installed environment) runs on one worker and
    # sets its module fixtures up once. pytest-xdist carries the group in the node id; when
    # that is lost (pytest-xdist 3.8 with pytest 9.2: requirements/test.in) the groups are
    # scattered over both workers and every such fixture is built twice, silently.
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by a pytest-xdist worker under --dist loadgroup")
    assert request.node.nodeid.endswith("@xdist-guard"), (
        f"--dist loadgroup lost this test's group: {request.node.nodeid}")
