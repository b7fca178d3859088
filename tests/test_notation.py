"""The notation contract (appendices/notation.md), enforced where a machine can see it,
and the rule that every solution and every exercise page is checked by executed code.

The rules below are the mechanically detectable part of the contract: retired symbols
(``w_0``, an augmented sample written ``\\hat{\\mathbf x}``, the margin vector written
``\\mathbf b``, ...) and symbols that are reserved for one meaning in one set of chapters.
A line that names where a different notation comes from ("001 writes $w_0$ ...") is exempt,
so that the book can say what the sources and classic texts write.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT

CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))
EXERCISE_PAGES = sorted((ROOT / "exercises").glob("*.md"))
APPENDICES = [p for p in sorted((ROOT / "appendices").glob("*.md"))
              if p.name not in ("notation.md", "errata.md", "glossary.md")]
PAGES = CHAPTERS + EXERCISE_PAGES + APPENDICES + [ROOT / "intro.md"]
LIBRARY = sorted(p for p in (ROOT / "linclf").rglob("*.py"))

# A line that attributes a notation to someone else may use it.
EXEMPT = re.compile(
    r"\b(source|sources|writes|write|written|Platt|libsvm|LIBSVM|Duda|DHS|Bishop|Vapnik|"
    r"Novikoff's original|calls|notation of|in place of|instead of|not \$)\b"
)

# (pattern, where it is forbidden (file-name stems; None = everywhere), what to write instead)
RULES = [
    (r"w_\{?0\}?(?![0-9])|w_\{[ik]0\}", None, "the intercept is $b$ ($b_k$ per class), never $w_0$"),
    (r"\\hat\s*\{?\\mathbf\s*\{?x", None, "the augmented sample is $\\tilde{\\mathbf x}$"),
    (r"\\mathbf\s*\{?y\}?_", None, "a per-sample bold y is not used: augmented sample $\\tilde{\\mathbf x}_n$, one-hot target $\\mathbf t_n$"),
    (r"\\hat\s*\{?\\mathbf\s*\{?y", None, "predicted probabilities are $p_n$ / $\\mathbf p_n$"),
    (r"\\hat\s*\{?y\}?_", None, "predicted probabilities are $p_n$, $p_{nk}$; $\\hat y$ is a predicted label"),
    (r"\\mathbf\s*\{?b\b", None, "the margin vector of chapter 4 is $\\boldsymbol\\beta$; $b$ is the intercept"),
    # two classes are omega_+ / omega_- (classes_[1] / classes_[0]); omega_1, omega_2 only begin a
    # list of c classes ("\omega_1, \dots, \omega_c", "\omega_1, \omega_2, \ldots")
    (r"(?:\\omega_(?:\{[12]\}|[12](?![0-9]))|ω[₁₂](?![₀-₉]))"
     r"(?!(?:\s*,\s*\\omega_\{?[0-9]\}?)*\s*,\s*\\[lc]?dots)", None,
     "two classes are $\\omega_+$ ($y=+1$, `classes_[1]`) and $\\omega_-$ (`classes_[0]`); "
     "$\\omega_1,\\dots,\\omega_c$ only for $c$ classes"),
    (r"\\rho(?![A-Za-z(])", None, "step sizes are $\\eta$; $\\rho$ is only the half-gap $\\rho(\\mathbf u)$ of a direction (chapter 7)"),
    (r"\\boldsymbol\{?\\lambda", None, "equality multipliers are $\\nu$; $\\lambda$ is the regularisation strength"),
    (r"(?<![\\A-Za-z_])g_?\{?[ijk]?\}?\(\\mathbf", ["01_discriminants", "02_fisher", "03_perceptron",
     "04_mse", "05_logistic", "06_softmax", "07_margin", "09_kernels", "10_smo", "11_losses"],
     "the linear score (discriminant) is $f(\\mathbf x)$"),
    (r"\\eta(?![A-Za-z])", ["07_margin", "09_kernels", "10_smo", "11_losses", "margin", "kernels", "smo", "losses"],
     "$\\eta$ is the learning rate only: SMO curvature $\\kappa$, $P(y=1\\mid\\mathbf x) = q$, confidence $1-\\delta$"),
    (r"\\alpha", ["05_logistic", "06_softmax", "logistic", "softmax"],
     "the L2 strength is $\\lambda$; $\\alpha$ is a dual coefficient"),
    (r"\\lambda(?!_)", ["02_fisher", "04_mse", "fisher", "mse", "kernels"],
     "eigenvalues carry a subscript ($\\lambda_{\\max}$, $\\lambda_j$); plain $\\lambda$ is the regularisation strength"),
    (r"\\lambda_", ["08_duality", "duality"], "equality multipliers are $\\nu_k$"),
    (r"\^\{?K\}?\b|\$K\$[- ]class|\$K\$ classes|K\s*\\ge", ["06_softmax", "softmax", "01_discriminants", "discriminants"],
     "the number of classes is $c$; $K$ is the Gram matrix"),
    (r"\\gamma", ["09_kernels", "kernels"], "the RBF width is $\\sigma$ (code: gamma = 1/(2 sigma^2)); $\\gamma$ is a margin"),
    (r"W\(\\boldsymbol", ["10_smo", "smo"], "chapter 10 minimises $\\Psi(\\boldsymbol\\alpha) = -W(\\boldsymbol\\alpha)$"),
]

CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```", re.S | re.M)


def prose_lines(path: Path):
    """(line number, text) of the markdown outside code cells."""
    text = path.read_text(encoding="utf-8")
    blanked = CODE_CELL.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return list(enumerate(blanked.splitlines(), 1))


def violations(lines, stem):
    found = []
    for pattern, where, fix in RULES:
        if where is not None and stem not in where:
            continue
        rx = re.compile(pattern)
        for n, line in lines:
            if rx.search(line) and not EXEMPT.search(line):
                found.append(f"line {n}: {line.strip()[:110]!r} -- {fix}")
    return found


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_follows_the_notation_contract(path):
    found = violations(prose_lines(path), path.stem)
    assert not found, "symbols used against appendices/notation.md:\n" + "\n".join(found)


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_docstrings_follow_the_notation_contract(path):
    lines = list(enumerate(path.read_text(encoding="utf-8").splitlines(), 1))
    library_rules = [r for r in RULES if r[1] is None]
    found = []
    for pattern, _, fix in library_rules:
        rx = re.compile(pattern)
        found += [f"line {n}: {t.strip()[:110]!r} -- {fix}" for n, t in lines
                  if rx.search(t) and not EXEMPT.search(t)]
    assert not found, "docstrings against appendices/notation.md:\n" + "\n".join(found)


def test_the_rules_catch_what_they_should():
    # Each retired symbol is caught; the same line attributed to a source is not.
    bad = [r"$g(\mathbf x) = \mathbf w^\top\mathbf x + w_0$", r"$\hat{\mathbf{x}} = (\mathbf x, 1)$",
           r"$Z\mathbf a = \mathbf b$", r"$\hat y_n = \sigma(f_n)$", r"step $\rho_t$"]
    for line in bad:
        assert violations([(1, line)], "01_discriminants"), line
    assert not violations([(1, r"Source 001 writes $w_0$ for $b$.")], "01_discriminants")
    assert not violations([(1, r"the half-gap $\rho(\mathbf u)$")], "07_margin")
    assert violations([(1, r"$\eta = K_{11}+K_{22}-2K_{12}$")], "10_smo")
    assert not violations([(1, r"$\eta$ is the learning rate")], "03_perceptron")
    # two classes: omega_+ / omega_-; omega_1, omega_2 only open a list of c classes
    for line in (r"$\mathbf x \in \omega_1$ if $f(\mathbf x) > 0$", r"the mean $\mathbf m_2$ of $\omega_{2}$",
                 r"$P(\omega_1\mid\mathbf x) - P(\omega_2\mid\mathbf x)$", "labels 1 (ω₁) and 0 (ω₂)"):
        assert violations([(1, line)], "04_mse"), line
    for line in (r"$\mathbf x \in \omega_+$ if $f(\mathbf x) > 0$", r"classes $\omega_1, \dots, \omega_c$",
                 r"$\omega_1,\omega_2,\ldots,\omega_c$", r"$\omega_{1}, \cdots$, $\omega_{12}$",
                 r"source 001 writes $P(\omega_1\mid\mathbf x)$ for our $P(\omega_+\mid\mathbf x)$"):
        assert not violations([(1, line)], "04_mse"), line


# ---------------------------------------------------------------------------
# Every solution is executed.

SOLUTION = re.compile(r"^(```|:::)\{solution\}\s+(\S+)", re.M)
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)


def cells_after(text: str, pos: int):
    return [m for m in CELL.finditer(text) if m.start() > pos]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_solution_is_followed_by_its_checking_cell(path):
    text = path.read_text(encoding="utf-8")
    solutions = list(SOLUTION.finditer(text))
    assert solutions, f"{path.name} has no {{solution}} blocks"
    problems = []
    for sol in solutions:
        fence, label = sol.group(1), sol.group(2)
        close = re.compile(rf"^{re.escape(fence)}[ \t]*$", re.M).search(text, sol.end())
        end = close.end()  # closing fence of the solution
        following = cells_after(text, end)
        between = text[end: following[0].start()] if following else ""
        if not following or between.strip():
            problems.append(f"{label}: no code cell directly after the solution")
            continue
        body = following[0].group(1)
        header, _, code = body.partition("\n\n") if body.startswith(":") else ("", "", body)
        if not re.search(r"\bhide-input\b", header) or not re.search(r"\bcheck\b", header):
            problems.append(f"{label}: the checking cell is not a folded check (tags: [hide-input, check])")
        first = code.strip().splitlines()[0] if code.strip() else ""
        if first.strip() != f"# checks {label}":
            problems.append(f"{label}: the checking cell must start with '# checks {label}', not {first!r}")
        if "assert" not in code:
            problems.append(f"{label}: the checking cell asserts nothing")
    assert not problems, "\n".join(problems)


FIGURE = re.compile(r"^```\{(?:glue:figure|figure)\}[^\n]*\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_citation_inside_a_figure_caption(path):
    """A {cite} in a caption becomes a hyperlink inside LaTeX's moving \\caption argument,
    which stops the PDF build ("Argument of \\Hy@tempa has an extra }")."""
    bad = [m.group(1)[:80] for m in FIGURE.finditer(path.read_text(encoding="utf-8"))
           if "{cite" in m.group(1)]
    assert not bad, f"cite the source in the text, not in the caption: {bad}"
