"""Canvas: the "Download submissions" zip, the gradebook export, and what goes back.

The formats, as Canvas writes and reads them (sources consulted, 2026-11-25):

* **Submissions zip** (Canvas's ``lib/content_zipper.rb``, ``get_filename`` and
  ``add_upload_submission``): each uploaded file is one member named
  ``NAME[_LATE]_USERID_ATTACHMENTID_FILENAME``. ``NAME`` is the student's
  sortable name ("Lovelace, Ada") lower-cased with every non-word character
  removed and any ``_digits_`` run collapsed, so that ``_USERID_`` is the first
  all-digit part; ``LATE`` is present when Canvas counts the submission late
  against *its* due date; ``FILENAME`` is the file's display name (Canvas
  renames an upload whose name is taken, so a resubmission often arrives as
  ``perceptron-1.ipynb``). Anonymous grading writes ``anon_ID`` in place of name
  and user id; text and URL entries become ``NAME_USERID_text.html`` / ``_link.html``.
* **Which files a zip holds** (``zip_assignment``, ``get_uploaded_files_from``):
  one Submission per student, the *current* one, and every file of it
  (``submission.attachment_ids``). So the files of one student in one zip are the
  files of one attempt, never an attempt and its resubmission: the reader grades
  the notebook (else the ``.py``) named after the set, as Gradescope's
  ``find_submission`` does, and reports the others as files of the same attempt;
  when that does not single one out, the student is reported as ambiguous. An
  earlier attempt only appears in an earlier download: given two zips
  (``--canvas`` twice), the attempt with the larger attachment id is the later
  one (attachment ids grow with every upload) and replaces the other.
* **Gradebook export/import CSV** (the OSU CarmenCanvas guide "Import CSV File
  for Carmen Grades", which lists the columns an import needs, and VCU's Canvas
  page "Gradebook Action Menu" on what an export holds): a header ``Student, ID, SIS User ID,
  SIS Login ID, [Integration ID,] Section`` then one column per assignment headed
  ``Assignment name (assignment id)``; a second row ``Points Possible`` (Canvas
  writes it with leading blanks) and, in newer exports, a row of posting
  policies. ``ID`` is the Canvas user id of the zip names. An imported column
  whose header matches no assignment creates a new one. A row ``Student, Test``
  without SIS ids (the account of Canvas's Student View) is left out of the roster.
* **Feedback files** (Canvas's ``Assignment#generate_comments_from_files``,
  behind "Re-Upload Submissions"): in an uploaded zip the first two all-digit
  ``_``-separated parts of a file name are the user id and the id of one of the
  submission's attachments; the file is attached to a comment on that
  submission. So the feedback of a student is named
  ``NAME_USERID_ATTACHMENTID_feedback.html``.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from . import (SUBMISSION_SUFFIXES, Collection, RosterEntry, Submission, choose_in_attempt,
               copy_member, pick_id_column, roster_ids, zip_members)

__all__ = ["read_gradebook", "collect_canvas", "write_canvas_gradebook", "canvas_feedback_name"]

ID_PREFERENCE = ("SIS User ID", "SIS Login ID", "ID")
TEST_STUDENT = "Student, Test"
FIXED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section")
_MEMBER = re.compile(r"^(?P<name>[^/]*?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<att>\d+)_(?P<file>[^/]+)$")


def read_gradebook(path, id_column=None):
    """The roster of a Canvas gradebook export: ``(roster, header, points_possible)``.

    ``roster`` maps the grading id (``id_column``, default the first of SIS User
    ID, SIS Login ID, ID that every student has) to a :class:`RosterEntry` whose
    ``lms_user`` is the Canvas user id.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    if not rows or "Student" not in rows[0] or "ID" not in rows[0]:
        raise ValueError(f"{path}: not a Canvas gradebook export (the header must have the "
                         "columns Student and ID)")
    header = [h.strip() for h in rows[0]]
    points, students = {}, []
    for line, values in enumerate(rows[1:], start=2):
        row = dict(zip(header, (v.strip() for v in values)))
        if row.get("Student") == "Points Possible":
            points = row
            continue
        if not row.get("ID", "").isdigit():
            continue  # the posting-policy row and blank lines carry no student
        if row.get("Student") == TEST_STUDENT and not row.get("SIS User ID"):
            continue  # Canvas's Student View account (once Student View was used): not a student
        students.append((line, RosterEntry("", row["ID"], row.get("Student", ""),
                                           section=row.get("Section", ""), row=row)))
    column = pick_id_column(header, students, ID_PREFERENCE, id_column, path)
    roster = roster_ids(students, column, path)
    users = {}
    for entry in roster.values():
        if entry.lms_user in users:
            raise ValueError(f"{path}: the Canvas user id {entry.lms_user} appears twice")
        users[entry.lms_user] = entry
    return roster, header, points


def collect_canvas(archives, gradebook, dest, id_column=None, set_name=None):
    """Map the members of Canvas submission zips to students; copy each student's file of
    the latest attempt (the one named after ``set_name``, see the module's notes) to ``dest``."""
    roster, header, points = read_gradebook(gradebook, id_column)
    by_user = {e.lms_user: e for e in roster.values()}
    candidates, unmapped, ungradable = {}, [], {}
    for archive_path, info, entry in zip_members(archives):
        m = _MEMBER.match(info.filename)
        if info.filename.startswith("anon_") or "_anon_" in info.filename:
            unmapped.append((entry, "anonymous grading hides the Canvas user id; "
                                    "download again once names are shown"))
            continue
        if m is None:
            text = re.search(r"_(\d+)_(text|link)\.html$", info.filename)
            reason = ("a text or URL entry, not a file" if text else
                      "not named NAME[_LATE]_USERID_ATTACHMENTID_FILE as Canvas names "
                      "submitted files")
            unmapped.append((entry, reason))
            if text and text[1] in by_user:
                ungradable.setdefault(by_user[text[1]].student, []).append(
                    "online text" if text[2] == "text" else "a URL")
            continue
        student = by_user.get(m["user"])
        if student is None:
            unmapped.append((entry, f"Canvas user {m['user']} is not in the gradebook "
                                    f"{Path(gradebook).name}"))
            continue
        suffix = Path(m["file"]).suffix.lower()
        if suffix not in SUBMISSION_SUFFIXES:
            unmapped.append((entry, f"{student.student}: not a .ipynb or .py file"))
            ungradable.setdefault(student.student, []).append(suffix.lstrip(".") or "a file")
            continue
        candidates.setdefault(student.student, []).append(
            (int(m["att"]), entry, bool(m["late"]), suffix, archive_path, info, m["file"]))
    subs, ambiguous = [], []
    for sid, cands in candidates.items():
        attempts, copies = {}, []   # one download holds one attempt of each student
        for c in cands:
            files = attempts.setdefault(c[4], [])
            if any(f[0] == c[0] for f in files):
                copies.append(c[1])   # the same zip given twice
            else:
                files.append(c)
        by_ids = {}   # the same attempt in two downloads is one attempt
        for files in attempts.values():
            if by_ids.setdefault(frozenset(c[0] for c in files), files) is not files:
                copies += [c[1] for c in files]
        ranked = sorted(by_ids.values(), key=lambda files: max(c[0] for c in files))
        latest = ranked[-1]
        if len(ranked) > 1 and max(c[0] for c in ranked[-2]) == max(c[0] for c in latest):
            ambiguous.append((sid, [c[1] for c in cands], "two downloads hold different "
                              "attempts with the same latest Canvas attachment id"))
            continue
        chosen, others, reason = choose_in_attempt(latest, lambda c: c[6], set_name)
        if chosen is None:
            ambiguous.append((sid, [c[1] for c in latest], reason))
            continue
        att, entry, late, suffix, archive_path, info, _ = chosen
        path = copy_member(dest, sid, suffix, archive_path, info)
        older = [c[1] for files in ranked[:-1] for c in sorted(files, key=lambda c: c[0])]
        subs.append(Submission(sid, path, entry, "canvas", roster[sid].lms_user, roster[sid].name,
                               None, late, str(att), older, [c[1] for c in others],
                               repeated=len(copies)))
    notes = []
    late = [s.student for s in subs if s.lms_late]
    if late:
        notes.append("Canvas marked late: " + ", ".join(late) + " (the penalty follows --due, "
                     "--extensions and --times; a Canvas zip carries no submission time)")
    return Collection("Canvas", subs, unmapped, ambiguous, roster, notes, header, points,
                      ungradable)


def assignment_column(header, wanted, default):
    """The gradebook column to fill: the one ``wanted`` names (its title or its id), else
    a new column ``default`` (Canvas creates the assignment on import)."""
    if not wanted:
        return default
    hits = [h for h in header if h not in FIXED and (h == wanted or h.endswith(f"({wanted})")
                                                     or h.startswith(wanted + " ("))]
    if len(hits) != 1:
        found = "none" if not hits else ", ".join(hits)
        raise ValueError(f"--lms-assignment {wanted!r}: exactly one gradebook column must match "
                         f"(matches: {found})")
    return hits[0]


def write_canvas_gradebook(path, collection, results, column, max_score):
    """A CSV for Canvas's gradebook import: the fixed columns, then ``column``.

    ``results`` maps student ids to final scores. Scores are rescaled to the
    column's Points Possible when the export has one; a student without a
    graded submission gets an empty cell (never a silent zero).
    """
    points = collection.points.get(column, "")
    try:
        scale = float(points) / max_score if points else 1.0
    except ValueError:
        scale = 1.0
    fixed = [c for c in ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
             if c in collection.header]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([*fixed, column])
        writer.writerow(["Points Possible", *[""] * (len(fixed) - 1),
                         f"{(float(points) if points else max_score):g}"])
        for sid, entry in collection.roster.items():
            score = results.get(sid)
            cell = "" if score is None else f"{round(score * scale, 4):g}"
            writer.writerow([entry.row.get(c, "") for c in fixed] + [cell])
    return Path(path)


def canvas_feedback_name(submission):
    """The name Canvas's "Re-Upload Submissions" maps back to the student's submission."""
    name = re.sub(r"[^A-Za-z0-9]", "", submission.source.split(":", 1)[-1].split("_", 1)[0])
    return f"{name or 'student'}_{submission.lms_user}_{submission.lms_file_id}_feedback"
