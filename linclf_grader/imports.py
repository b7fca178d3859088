"""The import policy of a submission: what a student's code may import.

A submission may import numpy, sympy, math, matplotlib (plots are welcome in a
notebook), the pure standard library and ``linclf_grader`` (for ``check``);
anything else -- ``linclf``'s own
implementations above all (``from linclf.special import softmax``) -- earns 0
for the exercises it can reach, with a feedback line that names the import.
A set may allow more (``ExerciseSet(..., allow_imports=("scipy",))``).

The check is static (the AST of every cell, on the grader's side, before the
code runs): an import inside the function ``f`` affects exercise ``f``; an
import at module level, or inside any other function, affects every exercise.
``__import__("x")`` and ``importlib.import_module("x")`` with a literal name
count as imports; a module that is not installed at all is ignored (importing
it fails and helps nobody). The sandboxed worker enforces the same policy at run time
(:mod:`linclf_grader._worker`), so an import the static check cannot see
(a computed module name) fails there.
"""

from __future__ import annotations

import ast
import importlib.util
import sys

ALWAYS_ALLOWED = ("numpy", "sympy", "math", "matplotlib")
GRADING = "linclf_grader"
# standard-library modules that are not "pure": they reach outside the process
# or load native code, which no exercise needs
STDLIB_EXCLUDED = frozenset({
    "ctypes", "multiprocessing", "subprocess", "socket", "ssl", "asyncio", "concurrent",
    "threading", "_thread", "signal", "resource", "mmap", "pty", "tty", "termios", "fcntl",
    "webbrowser", "http", "urllib", "ftplib", "smtplib", "imaplib", "poplib", "telnetlib",
    "xmlrpc", "socketserver", "shutil", "tempfile", "importlib", "pkgutil", "runpy",
    "site", "sysconfig", "venv", "ensurepip", "zipimport",
})


def is_allowed(module: str, extra=()) -> bool:
    """True if a submission of a set that also allows ``extra`` may import ``module``."""
    top = module.split(".", 1)[0]
    if top == GRADING:
        return True
    if top == "linclf":
        return False
    if top in ALWAYS_ALLOWED or top in extra:
        return True
    return top in sys.stdlib_module_names and top not in STDLIB_EXCLUDED


def worker_policy(extra=()) -> dict:
    """The policy as data for the sandboxed worker (which imports nothing of linclf)."""
    allowed = {m for m in sys.stdlib_module_names if m not in STDLIB_EXCLUDED}
    allowed |= set(ALWAYS_ALLOWED) | set(extra)
    return {"allowed": sorted(allowed), "grading": GRADING, "description": describe_policy(extra)}


def describe_policy(extra=()) -> str:
    """The policy in one phrase, for feedback lines."""
    names = ", ".join([*ALWAYS_ALLOWED, *extra])
    return f"allowed: {names}, the standard library (without process, network and loader modules), {GRADING}"


def _imported_names(node):
    """Module names a statement or call imports, if it is an import."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:  # relative imports cannot reach anything from a notebook
            return []
        base = node.module or ""
        if base == "linclf":  # from linclf import grading / special ...
            return [f"linclf.{alias.name}" for alias in node.names]
        return [base]
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in ("__import__", "import_module"):
            return [node.args[0].value]
    return []


def _exists(module):
    # a module that is not installed cannot help anyone (the import just fails)
    try:
        return importlib.util.find_spec(module.split(".", 1)[0]) is not None
    except (ImportError, ValueError):
        return False


def violations(cells, exercise_names, extra=()):
    """Disallowed imports of a submission, by the exercise they affect.

    Parameters
    ----------
    cells : list of (index, source)
        The submission's code cells.
    exercise_names : iterable of str
        The functions the set grades.
    extra : tuple of str
        Top-level modules the set allows besides the default policy.

    Returns
    -------
    dict
        Exercise name -> sorted list of the disallowed modules it can reach
        (only exercises with at least one).
    """
    names = set(exercise_names)
    found = {}

    def record(module, where):
        if is_allowed(module, extra) or not _exists(module):
            return
        for ex in ([where] if where in names else names):
            found.setdefault(ex, set()).add(module)

    def walk(node, where):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # a function nested in an exercise belongs to it; any other is shared
                walk(child, where if where in names else child.name)
                continue
            for module in _imported_names(child):
                record(module, where)
            walk(child, where)

    for _, source in cells:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError):
            continue  # the worker reports the cell's error
        walk(tree, None)
    return {ex: sorted(mods) for ex, mods in found.items()}
