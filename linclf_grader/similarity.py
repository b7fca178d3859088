"""Copy signals: winnowing fingerprints across a class, as MOSS does.

Each submission's code cells are joined and fingerprinted with the
``copydetect`` package (PyPI, pinned in the ``grading`` extra): the code is
tokenised and every identifier becomes one symbol (names ``V``, functions ``F``,
classes ``O``), strings ``S``, comments and blanks are dropped, so renaming the
variables or rewording the comments of a copied solution does not hide it; then
k-grams of that token text are hashed and winnowed (Schleimer, Wilkerson and
Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003):
any shared run of at least ``guarantee`` characters of token text is found, none
shorter than ``noise``. The fingerprints of the set's own template (signatures,
docstrings, the ``check(...)`` lines) are boilerplate and never count.

For every pair the similarity is the fraction of each file's fingerprinted
tokens that the other shares; a pair is reported when the larger of the two is
at least ``threshold``, with the shared regions as line ranges of each file.
A high similarity is a signal to read both files, not a verdict: short
exercises leave little room for variety, and two students who both started from
the book's template share its shape.

Where an exercise has per-student data (``variant=``), a classmate's answer
pasted from another student's notebook carries that student's numbers; the
grader checks each student on their own data, so such a copy scores on the
public tests and fails the variant tests, and :func:`variant_mismatches` lists
the exercises where that happened.  Where an exercise also has per-student *task
parameters* (``task=``), a copied general solution carries the classmate's
parameter: the grader checks the answers of a failed own-variant test against
every classmate's parameters (:func:`linclf_grader.variants.task_matches`) and
the report lists each submission whose answers fit classmate X's variant.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
from pathlib import Path

from .notebook import SubmissionError, read_submission

__all__ = ["fingerprint_class", "similar_pairs", "write_similarity", "variant_mismatches",
           "copy_signals", "describe_signal", "require_copydetect"]

NOISE = 25       # copydetect's default noise threshold (characters of token text)
GUARANTEE = 30   # and its guarantee threshold


def _code(path, set_name=None):
    # the student's own cells only: the book's cells of the page are shared by everyone
    try:
        cells = read_submission(path, set_name).cells
    except SubmissionError:
        return ""
    return "\n".join(src for _, src in cells) + "\n"


def _boilerplate(exset):
    from copydetect import CodeFingerprint

    text = exset.template() + "\n" + "\n".join(f"check({n})" for n in exset.exercises)
    fp = CodeFingerprint("template.py", NOISE, GUARANTEE - NOISE + 1, fp=io.StringIO(text))
    return sorted(fp.hashes)


MISSING_COPYDETECT = (
    "the similarity report (--similarity) needs the copydetect package, which the grading "
    "extra installs: from a checkout run `bash scripts/setup.sh` or `pip install -e .[grading]`; "
    "from PyPI `pip install 'linclf[grading]'`")


def require_copydetect():
    """Raise ValueError (with the install command) unless copydetect is importable.

    The CLI calls this before grading anything, so that a class is not graded
    for minutes only to stop at the report.
    """
    try:
        import copydetect  # noqa: F401
    except ImportError:
        raise ValueError(MISSING_COPYDETECT) from None


def fingerprint_class(paths, exset):
    """``{label: CodeFingerprint}`` of every readable submission (``paths``: label -> file)."""
    require_copydetect()
    from copydetect import CodeFingerprint

    boiler = _boilerplate(exset)
    out = {}
    for label, path in paths.items():
        code = _code(path, exset.name)
        if code.strip():
            out[label] = CodeFingerprint(f"{label}.py", NOISE, GUARANTEE - NOISE + 1,
                                         boilerplate=boiler, fp=io.StringIO(code))
    return out


def _lines(code, slices):
    """Character slices of ``code`` as 1-based (first, last) line ranges."""
    starts = [0] + [i + 1 for i, c in enumerate(code) if c == "\n"]
    out = []
    for a, b in zip(*slices):
        first = sum(1 for s in starts if s <= a)
        last = sum(1 for s in starts if s < max(a + 1, b))
        out.append((first, last))
    return out


def similar_pairs(fingerprints, threshold=0.5):
    """Pairs whose similarity reaches ``threshold``, most similar first."""
    from copydetect import compare_files

    if not 0 < threshold <= 1:
        raise ValueError(f"the similarity threshold is a fraction in (0, 1], got {threshold}")
    pairs = []
    for (a, fa), (b, fb) in itertools.combinations(sorted(fingerprints.items()), 2):
        overlap, (sa, sb), (slices_a, slices_b) = compare_files(fa, fb)
        if max(sa, sb) < threshold:
            continue
        pairs.append({"a": a, "b": b, "similarity_a": round(float(sa), 4),
                      "similarity_b": round(float(sb), 4), "shared_tokens": int(overlap),
                      "regions_a": _lines(fa.raw_code, slices_a),
                      "regions_b": _lines(fb.raw_code, slices_b),
                      "code_a": fa.raw_code, "code_b": fb.raw_code})
    pairs.sort(key=lambda p: -max(p["similarity_a"], p["similarity_b"]))
    return pairs


def variant_mismatches(results, exset):
    """``{student: [exercises]}`` where every public test passed but a variant test failed."""
    own = {t.name for t in exset.tests if t.variant}
    out = {}
    for r in results:
        for name, ex in exset.exercises.items():
            if ex.variant is None:
                continue
            tests = [t for t in r.get("tests", []) if t["exercise"] == name and not t.get("hidden")]
            variant = [t for t in tests if t["name"] in own]
            plain = [t for t in tests if t not in variant]
            if plain and all(t["status"] == "passed" for t in plain) and \
                    any(t["status"] != "passed" for t in variant):
                out.setdefault(r.get("student") or r["file"], []).append(name)
    return out


def copy_signals(results):
    """``[(student, exercise, named, n_fitting)]``: answers that fit classmates' task parameters.

    A classmate is ``named`` only when theirs is the one parameter (besides the
    neutral one, which is never a signal) that fits; when several fit (discrete
    outputs: neighbouring parameters give the same answers) nobody is named and
    ``n_fitting`` says how many fit, so an innocent classmate is never accused.
    """
    out = []
    for r in results:
        for exercise, who in sorted((r.get("copy_signals") or {}).items()):
            who = list(who)
            out.append((r.get("student") or r["file"], exercise, who if len(who) == 1 else [],
                        len(who)))
    return sorted(out)


def describe_signal(exercise, named, n_fitting):
    """One line of text for a copy signal (terminal and report), honest about ambiguity."""
    if named:
        return (f"{exercise} matches the variant of {named[0]} (its own variant fails; theirs is "
                "the only classmate's parameter that fits)")
    return (f"{exercise}: weak, its own variant fails and its answers fit the task parameters "
            f"of {n_fitting} classmates, so they name nobody")


def write_similarity(pairs, out_dir, threshold, n_files, mismatches=None, signals=()):
    """``similarity.csv`` (one row per pair), ``similarity.html`` (regions side by side) and,
    when some answers fit a classmate's task parameters, ``copy_signals.csv``."""
    out_dir = Path(out_dir)
    if signals:
        with open(out_dir / "copy_signals.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["student", "exercise", "matches_variant_of", "classmates_fitting"])
            for student, exercise, named, n_fitting in signals:
                w.writerow([student, exercise, " ".join(named), n_fitting])
    elif (out_dir / "copy_signals.csv").is_file():
        (out_dir / "copy_signals.csv").unlink()   # a regrade's report, not an earlier run's
    with open(out_dir / "similarity.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "similarity_a", "similarity_b", "shared_tokens", "lines_a", "lines_b"])
        for p in pairs:
            w.writerow([p["a"], p["b"], p["similarity_a"], p["similarity_b"], p["shared_tokens"],
                        " ".join(f"{x}-{y}" for x, y in p["regions_a"]),
                        " ".join(f"{x}-{y}" for x, y in p["regions_b"])])
    e = html.escape
    parts = [f"<h1>Similarity report</h1><p>{n_files} submission(s) compared; {len(pairs)} pair(s) "
             f"at or above {threshold:.0%} (winnowing fingerprints, identifiers normalised; the "
             "set's template is ignored). A pair is a reason to read both files, not a verdict.</p>"]
    if signals:
        parts.append("<h2>Answers that fit a classmate's variant</h2><p>The submission fails its "
                     "own task parameters but its answers are right for a classmate's (and not "
                     "for the parameter ignored). When exactly one classmate's parameter fits, "
                     "that is strong evidence that their solution was copied; when several fit, "
                     "the signal is weak and names nobody.</p><ul>" + "".join(
                         f"<li>{e(s)}: {e(describe_signal(ex, named, n))}</li>"
                         for s, ex, named, n in signals) + "</ul>")
    if mismatches:
        parts.append("<h2>Public tests passed, own-data tests failed</h2><ul>" + "".join(
            f"<li>{e(s)}: {e(', '.join(ex))}</li>" for s, ex in sorted(mismatches.items()))
            + "</ul>")
    for p in pairs:
        parts.append(f"<h2>{e(p['a'])} and {e(p['b'])}: {p['similarity_a']:.0%} / "
                     f"{p['similarity_b']:.0%}</h2>")
        for who, code, regions in ((p["a"], p["code_a"], p["regions_a"]),
                                   (p["b"], p["code_b"], p["regions_b"])):
            lines = code.splitlines()
            shown = []
            for first, last in regions:
                shown.append(f"lines {first}-{last}:\n" + "\n".join(lines[first - 1:last]))
            parts.append(f"<h3>{e(who)}: shared regions</h3><pre>"
                         + e("\n\n".join(shown)) + "</pre>")
    (out_dir / "similarity.html").write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Similarity report'
        '</title><style>body{font-family:system-ui,sans-serif;max-width:70rem;margin:auto;'
        'padding:1rem}pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem}</style></head>'
        "<body><main>" + "\n".join(parts) + "</main></body></html>\n")
    return out_dir / "similarity.csv"
