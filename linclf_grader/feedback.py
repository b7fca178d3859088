"""One feedback file per student, in Markdown or self-contained HTML.

The file is built from that student's result alone (the grader's JSON after
overrides and the late policy): score per exercise, every public test that
failed with the grader's message (except the tests on the student's own data,
whose messages would state the values expected for that data, i.e. the
answer), the hidden tests counted (passed or not, never their inputs or
messages), cells that failed or were skipped, the late penalty with the due
date that applied, and each override with its reason.
It never contains reference code, another student's code or data, or the
similarity report.

The HTML is one file with its style inline (no scripts, fonts or images to
fetch), a ``lang`` attribute, a title, headings in order, tables with a caption
and header cells, and statuses written as words, not only colours, so that it
reads the same in a screen reader, in print, and in an LMS's file preview.
"""

from __future__ import annotations

import html

__all__ = ["feedback_markdown", "feedback_html", "comment_line"]


#: what a failed own-data test says instead of its message, which would name the
#: expected values for the student's own data: the answer itself
OWN_DATA = ("failed on your own data (or with your own task parameter); the values expected "
            "are not shown, since they are the answer: check your function on the public "
            "examples first")


def _exercises(result, exset):
    """Per exercise: title, points, max, failed public tests, hidden (passed, total)."""
    own = {t.name for t in exset.tests if t.variant}
    rows = []
    for name, ex in exset.exercises.items():
        tests = [t for t in result.get("tests", []) if t["exercise"] == name]
        hidden = [t for t in tests if t.get("hidden")]
        rows.append({
            "name": name, "title": ex.title,
            "points": float(result.get("exercises", {}).get(name, 0.0)),
            "max": float(sum(t["max_score"] for t in tests)),
            "public_passed": sum(t["status"] == "passed" for t in tests if not t.get("hidden")),
            "public_total": sum(not t.get("hidden") for t in tests),
            "failed": [dict(t, output=OWN_DATA) if t["name"] in own else t
                       for t in tests if not t.get("hidden") and t["status"] != "passed"],
            "hidden": (sum(t["status"] == "passed" for t in hidden), len(hidden),
                       sum(t["score"] for t in hidden), sum(t["max_score"] for t in hidden)),
        })
    return rows


def _facts(result):
    """The lines about the final score: late penalty, overrides, grader notes."""
    late = result.get("late") or {}
    if late.get("extension"):
        late = dict(late, due=f"{late['due']}, your extended due date")
    lines = []
    if late.get("penalty_percent"):
        lines.append(f"Late penalty: {late['penalty_percent']:g} % ({late['days_late']} started "
                     f"day(s) after the due date {late.get('due', '')}; submitted "
                     f"{late['submitted']}); score before the penalty "
                     f"{late['score_before']:g}.")
    elif late.get("submitted"):
        lines.append(f"Submitted {late['submitted']}, on time (due {late.get('due', '')}).")
    elif late.get("note"):
        lines.append(f"Late policy: {late['note']}.")
    for o in result.get("overrides", []):
        reason = o.get("reason") or "no reason given"
        lines.append(f"Override on {o['exercise']}: {o['from']:g} -> {o['to']:g} points "
                     f"(reason: {reason}).")
    return lines


def _notes(result):
    notes = []
    for cell, msg in sorted(result.get("cell_errors", {}).items(), key=lambda kv: int(kv[0])
                            if str(kv[0]).isdigit() else 0):
        notes.append(f"Code cell {cell} failed when your notebook was run and was skipped; "
                     f"functions it defined are missing: {msg}")
    if result.get("error"):
        notes.append(result["error"])
    for ex, mods in (result.get("imports") or {}).items():
        notes.append(f"{ex}() can reach {', '.join(mods)}, which this set does not allow: "
                     "0 points for this exercise.")
    return notes


def comment_line(result, exset):
    """A one-paragraph summary (the LMS's comment field): final score and points per exercise."""
    parts = [f"{r['name']} {r['points']:g}/{r['max']:g}" for r in _exercises(result, exset)]
    return (f"{exset.title}: {result['score']:g}/{result['max_score']:g}. " + "; ".join(parts)
            + ". " + " ".join(_facts(result))).strip()


def feedback_markdown(result, exset):
    """The feedback of one student as Markdown."""
    sid = result.get("student") or "(no id)"
    out = [f"# Feedback: {exset.title}", "",
           f"Student: {sid}  ", f"Final score: **{result['score']:g} / {result['max_score']:g}**", ""]
    out += [f"- {line}" for line in _facts(result)]
    out += ["", "| Exercise | Points | Out of | Public tests passed | Hidden tests passed |",
            "| --- | ---: | ---: | --- | --- |"]
    rows = _exercises(result, exset)
    for r in rows:
        hp, ht, _, _ = r["hidden"]
        out.append(f"| {r['title']} (`{r['name']}`) | {r['points']:g} | {r['max']:g} | "
                   f"{r['public_passed']} of {r['public_total']} | "
                   f"{f'{hp} of {ht}' if ht else 'none'} |")
    for r in rows:
        hp, ht, hs, hm = r["hidden"]
        if not r["failed"] and hp == ht:
            continue
        out += ["", f"## {r['title']} (`{r['name']}`)", ""]
        for t in r["failed"]:
            msg = (t.get("output") or "failed").replace("```", "'''")
            out += [f"Failed: {t['name']} (0 of {t['max_score']:g} points)", "", "```text", msg,
                    "```", ""]
        if ht:
            out.append(f"Hidden tests: {hp} of {ht} passed ({hs:g} of {hm:g} points); their "
                       "inputs and messages are not shown.")
    notes = _notes(result)
    if notes:
        out += ["", "## Notes from the grader", ""] + [f"- {n}" for n in notes]
    return "\n".join(out).rstrip() + "\n"


_CSS = ("body{font-family:system-ui,sans-serif;max-width:50rem;margin:1.5rem auto;padding:0 1rem;"
        "color:#1a1a1a;background:#fff;line-height:1.5}table{border-collapse:collapse;width:100%}"
        "th,td{border:1px solid #767676;padding:.3rem .5rem;text-align:left}"
        "td.n{text-align:right}caption{text-align:left;font-weight:bold;padding:.3rem 0}"
        "pre{white-space:pre-wrap;background:#f4f4f4;border:1px solid #767676;padding:.5rem}"
        ".fail{color:#8b0000;font-weight:bold}.pass{color:#05591c}")


def feedback_html(result, exset):
    """The feedback of one student as one self-contained, accessible HTML page."""
    e = html.escape
    sid = result.get("student") or "(no id)"
    title = f"Feedback: {exset.title}, student {sid}"
    body = [f"<h1>Feedback: {e(exset.title)}</h1>",
            f"<p>Student: <strong>{e(sid)}</strong><br>Final score: "
            f"<strong>{result['score']:g} of {result['max_score']:g}</strong></p>"]
    facts = _facts(result)
    if facts:
        body.append("<ul>" + "".join(f"<li>{e(f)}</li>" for f in facts) + "</ul>")
    rows = _exercises(result, exset)
    body.append('<table><caption>Points per exercise</caption><thead><tr>'
                '<th scope="col">Exercise</th><th scope="col">Points</th><th scope="col">Out of</th>'
                '<th scope="col">Public tests passed</th><th scope="col">Hidden tests passed</th>'
                "</tr></thead><tbody>")
    for r in rows:
        hp, ht, _, _ = r["hidden"]
        body.append(f'<tr><th scope="row">{e(r["title"])} (<code>{e(r["name"])}</code>)</th>'
                    f'<td class="n">{r["points"]:g}</td><td class="n">{r["max"]:g}</td>'
                    f'<td>{r["public_passed"]} of {r["public_total"]}</td>'
                    f'<td>{f"{hp} of {ht}" if ht else "none"}</td></tr>')
    body.append("</tbody></table>")
    for r in rows:
        hp, ht, hs, hm = r["hidden"]
        if not r["failed"] and hp == ht:
            continue
        body.append(f'<h2>{e(r["title"])} (<code>{e(r["name"])}</code>)</h2>')
        for t in r["failed"]:
            body.append(f'<p><span class="fail">Failed:</span> {e(t["name"])} (0 of '
                        f'{t["max_score"]:g} points)</p><pre>{e(t.get("output") or "failed")}</pre>')
        if ht:
            body.append(f"<p>Hidden tests: {hp} of {ht} passed ({hs:g} of {hm:g} points); their "
                        "inputs and messages are not shown.</p>")
    notes = _notes(result)
    if notes:
        body.append("<h2>Notes from the grader</h2><ul>"
                    + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(title)}</title><style>{_CSS}</style></head><body><main>\n"
            + "\n".join(body) + "\n</main></body></html>\n")
