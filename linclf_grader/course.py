"""What an instructor adds around the grades: roster, overrides, late policy, item analysis.

All inputs are small CSV files with a header row; every problem in them is a
``ValueError`` that names the file, the line and the column, so that a typo in
a roster never silently grades a student on somebody else's data.

* **Roster** (``--roster``): columns ``file`` and ``student``. ``file`` matches a
  submission by its path as given, its resolved path or its file name.
* **Overrides** (``--overrides``): columns ``student``, ``exercise``, ``points``
  and optionally ``reason``. The exercise's points are replaced by ``points``
  (between 0 and the exercise's maximum) every time the class is regraded.
* **Late policy** (``--due``, ``--late-per-day``, ``--late-cap``, ``--times``,
  ``--extensions``): ``--times`` has columns ``student`` and ``submitted``
  (ISO 8601); an LMS's own submission times (Moodle's worksheet) are used for
  students it does not name. ``--extensions`` has columns ``student`` and ``due``:
  that student's due date replaces ``--due``. A submission ``t`` after the
  student's due date loses ``per_day`` percent per started day, at most ``cap``
  percent. The penalty is computed from these files on every run, never stored.
* **Unknown students**: an id in the overrides, times or extensions that is
  neither in the roster nor among the graded submissions is an error (a typo
  would otherwise silently drop a penalty or an extension).
* **Item analysis**: one row per test and per exercise with the class's pass
  rate and mean score (``items.csv``).
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from pathlib import Path

from .variants import check_student_id

__all__ = ["read_roster", "read_overrides", "apply_overrides", "LatePolicy", "read_times",
           "read_extensions", "check_known_students", "roster_students", "item_analysis",
           "write_items"]


def _rows(path, required):
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in required if c not in header]
        if missing:
            raise ValueError(f"{path}: the header must have the column(s) {', '.join(missing)} "
                             f"(found: {', '.join(header) or 'nothing'})")
        for line, row in enumerate(reader, start=2):
            yield line, {k.strip(): (v or "").strip() for k, v in row.items() if k}


def _student(path, line, value):
    try:
        return check_student_id(value)
    except ValueError as exc:
        raise ValueError(f"{path}, line {line}, column student: {exc}") from None


def read_roster(path):
    """``{file key: student id}`` from a roster CSV (columns ``file``, ``student``)."""
    roster = {}
    for line, row in _rows(path, ("file", "student")):
        if not row["file"]:
            raise ValueError(f"{path}, line {line}, column file: empty")
        if row["file"] in roster:
            raise ValueError(f"{path}, line {line}, column file: {row['file']!r} is listed twice")
        roster[row["file"]] = _student(path, line, row["student"])
    return roster


def roster_students(paths, roster, where="the roster"):
    """The id of each of ``paths`` from ``roster``; ambiguity is an error, never a guess.

    A key that is a bare file name matches every submission of that name: when
    two submissions share it (``alice/perceptron.ipynb``, ``bob/perceptron.ipynb``)
    the roster must name them by path. Two submissions mapped to one student are
    an error too.
    """
    names = {}
    for p in paths:
        names.setdefault(Path(p).name, []).append(p)
    out, owner = [], {}
    for p in paths:
        sid = student_for(p, roster)
        if sid is not None and str(p) not in roster and str(Path(p).resolve()) not in roster \
                and len(names[Path(p).name]) > 1:
            raise ValueError(f"{where}: {Path(p).name!r} matches {len(names[Path(p).name])} "
                             "submissions; name each by its path")
        if sid is not None and sid in owner:
            raise ValueError(f"{where}: {owner[sid]} and {p} are both mapped to student {sid!r}")
        if sid is not None:
            owner[sid] = p
        out.append(sid)
    return out


def student_for(submission, roster):
    """The roster's id for ``submission`` (path as given, resolved, or name), else None."""
    p = Path(submission)
    for key in (str(submission), str(p.resolve()), p.name):
        if key in roster:
            return roster[key]
    return None


def read_overrides(path, exset):
    """``{student: {exercise: (points, reason)}}`` from an overrides CSV."""
    out = {}
    for line, row in _rows(path, ("student", "exercise", "points")):
        sid = _student(path, line, row["student"])
        ex = row["exercise"]
        if ex not in exset.exercises:
            raise ValueError(f"{path}, line {line}, column exercise: set {exset.name!r} has no "
                             f"exercise {ex!r}")
        try:
            points = float(row["points"])
        except ValueError:
            raise ValueError(f"{path}, line {line}, column points: {row['points']!r} is not "
                             "a number") from None
        top = exset.max_points(ex)
        if not 0 <= points <= top:
            raise ValueError(f"{path}, line {line}, column points: {points:g} is outside "
                             f"[0, {top:g}], the range of {ex!r}")
        out.setdefault(sid, {})[ex] = (points, row.get("reason", ""))
    return out


def apply_overrides(result, overrides):
    """Replace exercise points from ``overrides``; recompute the total."""
    mine = overrides.get(result.get("student") or "", {})
    result["overrides"] = []
    for ex, (points, reason) in mine.items():
        result["overrides"].append({"exercise": ex, "from": result["exercises"].get(ex, 0.0),
                                    "to": points, "reason": reason})
        result["exercises"][ex] = points
    if mine:
        result["score"] = float(sum(result["exercises"].values()))
    return result


def parse_time(text, where="a time"):
    """An ISO 8601 time; a time without a zone is taken as UTC."""
    try:
        t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not an ISO 8601 time "
                         "(e.g. 2026-03-01T23:59:00+01:00)") from None
    return t if t.tzinfo else t.replace(tzinfo=dt.timezone.utc)


def read_times(path):
    """``{student: submission time}`` from a CSV with columns ``student``, ``submitted``."""
    return {_student(path, line, row["student"]):
            parse_time(row["submitted"], f"{path}, line {line}, column submitted")
            for line, row in _rows(path, ("student", "submitted"))}


def read_extensions(path):
    """``{student: due time}`` from a CSV with columns ``student``, ``due`` (ISO 8601)."""
    out = {}
    for line, row in _rows(path, ("student", "due")):
        sid = _student(path, line, row["student"])
        if sid in out:
            raise ValueError(f"{path}, line {line}, column student: {sid!r} has two extensions")
        out[sid] = parse_time(row["due"], f"{path}, line {line}, column due")
    return out


def check_known_students(known, **named):
    """Raise ``ValueError`` when a CSV names a student outside ``known``.

    ``named`` maps an option (``overrides=...``) to ``(path, ids)``.
    """
    for option, (path, ids) in named.items():
        unknown = set(ids) - set(known)
        if unknown:
            # name each line and column, as for every other problem in these files
            where = [f"{path}, line {line}, column student: unknown student id {sid!r}"
                     for line, row in _rows(path, ("student",))
                     for sid in [row["student"]] if sid in unknown]
            raise ValueError(f"--{option}: " + "; ".join(where[:10])
                             + (f" and {len(where) - 10} more" if len(where) > 10 else "")
                             + " (neither in the roster nor among the submissions)")


class LatePolicy:
    """``per_day`` percent off per started day after ``due``, at most ``cap`` percent."""

    def __init__(self, due, per_day=10.0, cap=100.0):
        self.due = parse_time(due, "--due") if isinstance(due, str) else due
        if not (0 <= per_day <= 100 and 0 <= cap <= 100):
            raise ValueError("the late penalty per day and its cap are percentages in [0, 100]")
        self.per_day, self.cap = float(per_day), float(cap)

    def penalty(self, submitted):
        """(days late, penalty in percent) of a submission at ``submitted``."""
        late = (submitted - self.due).total_seconds()
        days = math.ceil(late / 86400) if late > 0 else 0
        return days, min(self.cap, days * self.per_day)

    def apply(self, result, submitted, due=None):
        """Record the lateness in ``result`` and scale its score.

        ``due`` is this student's due date (an extension); default the policy's.
        """
        due = self.due if due is None else due
        if submitted is None:
            result["late"] = {"submitted": "", "days_late": 0, "penalty_percent": 0.0,
                              "due": due.isoformat(),
                              "note": "no submission time: no penalty applied"}
            return result
        days, pct = LatePolicy(due, self.per_day, self.cap).penalty(submitted)
        result["late"] = {"submitted": submitted.isoformat(), "days_late": days,
                          "penalty_percent": pct, "score_before": result["score"],
                          "due": due.isoformat(), "extension": due != self.due}
        result["score"] = round(result["score"] * (1 - pct / 100), 6)
        return result


def item_analysis(results):
    """One row per test and per exercise: pass rate and mean score over the class."""
    rows, order = {}, []
    for r in results:
        for t in r.get("tests", []):
            key = ("test", t["name"])
            if key not in rows:
                order.append(key)
                rows[key] = {"item": t["name"], "level": "test", "exercise": t["exercise"],
                             "max_score": t["max_score"], "n": 0, "passed": 0, "total": 0.0}
            row = rows[key]
            row["n"] += 1
            row["passed"] += t["status"] == "passed"
            row["total"] += t["score"]
    exercises = {}
    for r in results:
        for ex, pts in r.get("exercises", {}).items():
            top = sum(t["max_score"] for t in r.get("tests", []) if t["exercise"] == ex)
            e = exercises.setdefault(ex, {"item": ex, "level": "exercise", "exercise": ex,
                                          "max_score": top, "n": 0, "passed": 0, "total": 0.0})
            e["n"] += 1
            e["passed"] += top > 0 and pts >= top
            e["total"] += pts
    out = [rows[k] for k in order] + list(exercises.values())
    for row in out:
        n = max(1, row["n"])
        row["pass_rate"] = round(row["passed"] / n, 4)
        row["mean_score"] = round(row.pop("total") / n, 4)
    return out


def write_items(results, path):
    """Write :func:`item_analysis` to ``path`` (CSV)."""
    rows = item_analysis(results)
    cols = ["item", "level", "exercise", "max_score", "n", "passed", "pass_rate", "mean_score"]
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=cols)
        writer.writeheader()
        writer.writerows(rows)
    return Path(path)
