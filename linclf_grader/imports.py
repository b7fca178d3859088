"""The rulebook: which modules would *solve* an exercise, and which exercises a submission breaches.

Every exercise forbids ``linclf`` (the book's own implementations) and ``sklearn``
(scikit-learn); an exercise may forbid more, declared with
``SET.exercise(..., forbid=(...))`` -- an optimiser (:data:`OPTIMISERS`) where
the exercise is to optimise, for instance.  Everything else is allowed: numpy,
sympy, scipy.special, scipy.linalg, the standard library, matplotlib ...

A breach is found statically, from the source of the submission's cells (the
grader reads them from the file, :func:`linclf_grader.check` from the kernel's
history), and costs only the exercises it touches: those whose function can
*reach* a forbidden module through its own body, the globals it reads, the
helper functions it calls and what those read, transitively
(:func:`reachable_modules`).  A module imported at the top of a notebook and used
by one exercise costs that exercise only; an import nobody uses costs nothing.
``__import__("m")`` and ``importlib.import_module("m")`` with a literal name
count as imports.  The grader runs each group of exercises with the same
forbidden set (:func:`exercise_groups`) in a worker where those modules cannot
be imported, so that a computed import name fails at run time.

:func:`breaches` is the one function both the grader and ``check()`` call.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses

#: forbidden in every exercise: the book's library and scikit-learn
ALWAYS_FORBIDDEN = ("linclf", "sklearn")
#: modules that minimise a function or solve an LP/QP for you
OPTIMISERS = ("scipy.optimize", "cvxpy", "cvxopt", "qpsolvers")
#: the package a submission may always import (``check``, ``my_data``, ``student``)
GRADING = "linclf_grader"
#: names of the modules shown to students
DISPLAY = {"sklearn": "scikit-learn (sklearn)"}

# Isolation is bubblewrap's job (no network, no other process, nothing of the instructor's
# to read), not the worker's: no module is refused at run time beyond an exercise's rules,
# so check() and the grade apply the same rules.
SANDBOX_DENY = frozenset()
_BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__", "__builtins__", "get_ipython",
                                        "display", "In", "Out", "_", "__", "___"}


def forbidden_for(exercise) -> tuple:
    """The modules ``exercise`` (an :class:`~linclf_grader.framework.Exercise`) forbids."""
    extra = tuple(getattr(exercise, "forbid", ()) or ())
    return tuple(dict.fromkeys((*ALWAYS_FORBIDDEN, *extra)))


#: Packages whose import loads a forbidden module: where the sandbox masks scipy.optimize,
#: ``import scipy.stats`` fails too, so the rule (and check()) must count them as reaching it.
#: tests/test_grader_imports.py checks this table against the installed scipy.
LOADS = {"scipy.optimize": ("scipy.stats", "scipy.integrate", "scipy.interpolate", "scipy.signal")}


def _inside(module, package):
    return module == package or module.startswith(package + ".")


def is_forbidden(module: str, forbidden) -> bool:
    """True if ``module`` is one of ``forbidden``, inside one of them, or loads one (:data:`LOADS`)."""
    if module.split(".", 1)[0] == GRADING:
        return False
    return any(_inside(module, f) or any(_inside(module, p) for p in LOADS.get(f, ()))
               for f in forbidden)


def _label(module, forbidden):
    """``scipy.stats (it loads scipy.optimize)`` for a module forbidden only through LOADS."""
    for f in forbidden:
        if not _inside(module, f) and any(_inside(module, p) for p in LOADS.get(f, ())):
            return f"{module} (it loads {f})"
    return module


def describe_modules(modules) -> str:
    """``linclf, scikit-learn (sklearn) and scipy.optimize``."""
    names = [DISPLAY.get(m, m) for m in modules]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def rule_text(exercise) -> str:
    """The rule of one exercise as the page and the template state it."""
    return f"Not allowed in this exercise: {describe_modules(forbidden_for(exercise))}."


def rules_paragraph() -> str:
    """The rules as every exercise page states them (``scripts/sync_exercise_rules.py``)."""
    from .notebook import MAX_CODE_BYTES
    from .timeouts import CALL_TIMEOUT

    return (
        "**Rules.** Each exercise names the modules it does not allow, because they would solve "
        "it for you: always `linclf` (the book's own implementations) and scikit-learn, and an "
        "optimiser such as `scipy.optimize` where the exercise is to optimise. Everything else "
        "is fine (numpy, sympy, `scipy.special`, `scipy.linalg`, matplotlib, the standard "
        "library). A forbidden module costs only the exercises whose function can reach it "
        "(directly, through a global or through a helper function); an import no exercise uses "
        f"costs nothing. Each call of one of your functions may take {CALL_TIMEOUT:g} s, and "
        f"the code of a submission may be at most {MAX_CODE_BYTES // 2**20} MB (outputs of a "
        "notebook do not count). `check` applies the same rules and limits as the grader, so its "
        "points are the points of the public tests in your grade."
    )


def rules_header(exset):
    """The rules paragraph of the template (the pages state the same per exercise)."""
    import textwrap

    lines = ["Rules: any module may be used except what would solve an exercise for you:",
             f"{describe_modules(ALWAYS_FORBIDDEN)} in every exercise"]
    extra = {}
    for ex in exset.exercises.values():
        more = [m for m in forbidden_for(ex) if m not in ALWAYS_FORBIDDEN]
        if more:
            extra.setdefault(describe_modules(more), []).append(ex.name)
    for modules, names in extra.items():
        lines.append(f"and {modules} in {', '.join(names)}")
    text = ", ".join(lines[1:])
    body = textwrap.fill(lines[0] + " " + text + ".", 79)
    from .notebook import MAX_CODE_BYTES
    from .timeouts import CALL_TIMEOUT

    return (body + "\nUsing one costs only the exercises whose function can reach it."
            f"\nEach call has a time limit ({CALL_TIMEOUT:g} s by default); the code of a submission\n"
            f"may be at most {MAX_CODE_BYTES // 2**20} MB (outputs of a notebook do not count).\n")


def exercise_groups(exercises) -> dict:
    """Exercises grouped by their forbidden set: ``{frozenset(modules): [names]}``.

    The grader runs each group's calls in one worker in which those modules are
    masked; most sets have a single group.
    """
    groups = {}
    for ex in exercises.values():
        groups.setdefault(frozenset(forbidden_for(ex)), []).append(ex.name)
    return groups


def worker_policy(forbidden) -> dict:
    """The run-time policy of a worker whose exercises forbid ``forbidden``."""
    return {"forbidden": sorted(forbidden), "deny": sorted(SANDBOX_DENY), "grading": GRADING,
            "description": "not allowed in these exercises: " + describe_modules(sorted(forbidden))}


# --------------------------------------------------------------------------
# static reachability
# --------------------------------------------------------------------------
@dataclasses.dataclass
class _Binding:
    """What a global name stands for: a module, or code that reads names and imports modules."""

    module: str | None = None
    modules: set = dataclasses.field(default_factory=set)
    refs: set = dataclasses.field(default_factory=set)  # (name, "attr.chain")

    def merge(self, other):
        out = _Binding(self.module if self.module == other.module else None,
                       self.modules | other.modules, self.refs | other.refs)
        # a name that is a module in one branch and code in another: keep the module too
        for b in (self, other):
            if b.module is not None and out.module is None:
                out.modules.add(b.module)
        return out


def _chain(node):
    """``(root name, "a.b")`` of an attribute chain ``root.a.b``, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return node.id, ".".join(reversed(parts))
    return None


def _import_bindings(node):
    """``[(bound name, module)]`` of an import statement."""
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                out.append((a.asname, a.name))
            else:
                out.append((a.name.split(".", 1)[0], a.name.split(".", 1)[0]))
    elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
        for a in node.names:
            name = node.module if a.name == "*" else f"{node.module}.{a.name}"
            out.append((a.asname or a.name, name))
    return out


def _literal_import(node):
    """The module of ``__import__("m")`` / ``import_module("m")``, or None."""
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in ("__import__", "import_module"):
            return node.args[0].value
    return None


def _targets(node, out):
    """Names a target expression binds (``a, (b, c) = ...``)."""
    if isinstance(node, ast.Name):
        out.add(node.id)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for e in node.elts:
            _targets(e, out)
    elif isinstance(node, ast.Starred):
        _targets(node.value, out)
    return out


def _scope_locals(nodes, args=None):
    """Names local to a function scope: parameters, assignments, imports, defs (not nested scopes)."""
    local = set()
    declared_global = set()
    if args is not None:
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is not None:
                local.add(a.arg)
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared_global.update(n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(n.name)
            stack.extend(n.decorator_list)
            continue
        elif isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            local.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            local.update(name for name, _ in _import_bindings(n))
        elif isinstance(n, ast.ExceptHandler) and n.name:
            local.add(n.name)
        stack.extend(ast.iter_child_nodes(n))
    return local - declared_global


def _free(nodes, local, local_modules, result):
    """Collect free references and imports of ``nodes`` (one scope) into ``result``."""
    for n in nodes:
        _free_node(n, local, local_modules, result)


def _free_node(n, local, local_modules, result):
    mod = _literal_import(n)
    if mod:
        result.modules.add(mod)
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        for name, module in _import_bindings(n):
            result.modules.add(module)
            local_modules[name] = module
        return
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        for d in getattr(n, "decorator_list", []):
            _free_node(d, local, local_modules, result)
        for d in [*n.args.defaults, *[k for k in n.args.kw_defaults if k is not None]]:
            _free_node(d, local, local_modules, result)
        body = n.body if isinstance(n.body, list) else [n.body]
        inner = _scope_locals(body, n.args)
        _free(body, local | inner, dict(local_modules), result)
        return
    if isinstance(n, ast.ClassDef):
        for d in [*n.decorator_list, *n.bases, *[k.value for k in n.keywords]]:
            _free_node(d, local, local_modules, result)
        _free(n.body, local | _scope_locals(n.body), dict(local_modules), result)
        return
    if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        inner = set()
        for g in n.generators:
            _targets(g.target, inner)
        _free(list(ast.iter_child_nodes(n)), local | inner, local_modules, result)
        return
    if isinstance(n, ast.Attribute):
        c = _chain(n)
        if c is not None:
            _ref(c[0], c[1], local, local_modules, result)
            return
    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
        _ref(n.id, "", local, local_modules, result)
        return
    _free(list(ast.iter_child_nodes(n)), local, local_modules, result)


def _ref(name, chain, local, local_modules, result):
    if name in local_modules:
        base = local_modules[name]
        result.modules.add(f"{base}.{chain}" if chain else base)
    elif name not in local:
        result.refs.add((name, chain))


def _statement_binding(node):
    """The binding a top-level statement gives to every name it binds."""
    result = _Binding()
    _free([node] if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
          else [node], set(), {}, result)
    return result


def analyse(cells):
    """Global bindings of a sequence of cells, in execution order.

    Returns ``(bindings, star_modules)``: name -> :class:`_Binding`, and the
    modules of ``from m import *``.
    """
    bindings = {}
    stars = set()

    def bind(name, binding, replace):
        if replace or name not in bindings:
            bindings[name] = binding
        else:
            bindings[name] = bindings[name].merge(binding)

    def top(node, conditional):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, module in _import_bindings(node):
                if name == "*":
                    stars.add(module)
                else:
                    bind(name, _Binding(module=module), not conditional)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name, _statement_binding(node), not conditional)
            return
        if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith,
                             ast.Try)) or type(node).__name__ == "TryStar":
            # names bound inside depend on the whole statement's references (conservative)
            head = _Binding()
            for field in ("test", "iter", "items"):
                value = getattr(node, field, None)
                if value is not None:
                    _free(value if isinstance(value, list) else [value], set(), {}, head)
            loop_targets = _targets(node.target, set()) if hasattr(node, "target") else set()
            for name in loop_targets:
                bind(name, head, False)
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field, []) or []:
                    if isinstance(child, ast.ExceptHandler):
                        for c in child.body:
                            top(c, True)
                    else:
                        top(child, True)
            return
        binding = _statement_binding(node)
        names, roots = set(), set()
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                _targets(t, names)
                for sub in ast.walk(t):
                    if isinstance(sub, (ast.Attribute, ast.Subscript)):
                        c = _chain(sub.value) if not isinstance(sub.value, ast.Name) else (sub.value.id, "")
                        if c:
                            roots.add(c[0])
            simple = isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in targets)
            for name in names:
                bind(name, binding, simple and not conditional)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            c = _chain(node.value.func)
            if c and c[1] and getattr(bindings.get(c[0]), "module", None) is None:
                roots.add(c[0])  # obj.update(...): the object may now hold what the call read
        for root in roots:
            bind(root, binding, False)

    for source in cells:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the grader reports the cell's error
        for node in tree.body:
            top(node, False)
    return bindings, stars


def reachable_modules(cells, names):
    """For each function in ``names``: every module it can reach, as dotted names.

    ``cells`` are source strings in execution order (a later definition of a
    name replaces an earlier one; a conditional one adds to it).
    """
    bindings, stars = analyse(cells)
    out = {}
    for name in names:
        seen, modules, todo = set(), set(), [(name, "")]
        while todo:
            current, chain = todo.pop()
            b = bindings.get(current)
            if b is None:
                if current not in _BUILTINS:
                    modules |= stars
                continue
            if b.module is not None:
                modules.add(f"{b.module}.{chain}" if chain else b.module)
            if current in seen:
                continue
            seen.add(current)
            modules |= b.modules
            todo.extend(b.refs)
        out[name] = modules if name in bindings else set()
    return out


def breaches(cells, exercises, reached=None):
    """Forbidden modules each exercise can reach (only exercises with at least one).

    Parameters
    ----------
    cells : list of str or of (index, str)
        The code (cleaned of IPython syntax), in execution order.
    exercises : dict
        Exercise name -> :class:`~linclf_grader.framework.Exercise`.
    reached : dict, optional
        :func:`reachable_modules` of the cells, when the caller has it already.

    Returns
    -------
    dict
        Exercise name -> sorted list of the forbidden modules it reaches.
    """
    if reached is None:
        sources = [c[1] if isinstance(c, tuple) else c for c in cells]
        reached = reachable_modules(sources, list(exercises))
    found = {}
    for name, modules in reached.items():
        forbidden = forbidden_for(exercises[name])
        bad = sorted({_label(m, forbidden) for m in modules if is_forbidden(m, forbidden)})
        if bad:
            found[name] = bad
    return found


def breach_message(exercise, modules):
    """The feedback line of a breach: the rule and the import, nothing else."""
    return (f"rules: {exercise}() can reach {', '.join(modules)}, which this exercise does not "
            "allow (it would solve the exercise); 0 points for this exercise, the others are "
            "not affected")


def apply_breaches(results, banned):
    """Zero the test results of exercises that breach their rules, saying which module.

    ``results`` are the dicts of :func:`~linclf_grader.framework.run_tests`;
    the grader and ``check()`` both call this, so they agree.
    """
    for t in results:
        modules = banned.get(t["exercise"])
        if not modules:
            continue
        line = breach_message(t["exercise"], modules)
        t["score"] = 0.0
        t["status"] = "failed"
        if t.get("hidden"):
            t["output"] = line
        else:
            t["output"] = line + ("\n" + t["output"] if t.get("output") else "")
    return results
