"""Moodle: "Download all submissions", the grading worksheet, and what goes back.

The formats, as Moodle's assignment module writes and reads them (sources
consulted, 2026-11-25: ``mod/assign/locallib.php`` ``download_submissions``,
``mod/assign/feedback/offline/importgradeslib.php`` and ``locallib.php``,
``mod/assign/feedback/file/importziplib.php``, the English strings of
``mod/assign/lang/en/assign.php`` and ``lang/en/langconfig.php``):

* **Submissions zip**: one folder per participant and submission plugin,
  ``FULL NAME_PARTICIPANTID_assignsubmission_file_/`` followed by the file's own
  path (Moodle 3.1 and later; before, and with "download as folders" off, the
  file name follows the prefix directly). Underscores in the full name become
  spaces, so the participant id is the second ``_``-separated part (the reader
  takes the number right before ``_assignsubmission_``, so a name that kept its
  underscores is mapped too); with blind marking the name is ``Participant``. The participant id is the assignment's
  *unique id* for the user, the number in the worksheet's ``Identifier``.
  Online text is ``..._assignsubmission_onlinetext_/onlinetext.html``.
* **Grading worksheet** (Assignment > "Download grading worksheet"): CSV with
  ``Identifier`` (``Participant N``), ``Full name``, the site's identity fields
  (``Email address``, ``ID number``, ...), ``Status``, ``Grade``, ``Maximum Grade``,
  ``Grade can be changed``, ``Last modified (submission)``, ``Last modified (grade)``,
  ``Feedback comments``. Times are written in the user's time zone by
  ``userdate``, with or without the weekday (``Tuesday, 3 March 2026, 11:59 PM``;
  langconfig's ``strftimedatetime`` is ``%d %B %Y, %I:%M %p``), ``-`` when there
  is none; the reader takes both forms and ISO 8601. The import
  ("Upload grading worksheet") needs ``Identifier``, ``Grade`` and
  ``Last modified (grade)``; it skips a grade above the assignment's maximum, and
  a row whose grade was changed in Moodle after that row's ``Last modified
  (grade)`` unless "Allow updating records that have been modified more
  recently in Moodle" is ticked. ``Feedback comments`` is imported as text.
* **Feedback files** ("Upload multiple feedback files in a zip"): a file is
  given to the participant whose id is the second ``_``-separated part of a
  path element ``NAME_ID_PLUGINTYPE_PLUGIN[_]``; so ``FULL NAME_ID_assignfeedback_file_/
  feedback.html`` becomes that student's feedback file.

Moodle's zip holds the files of each participant's *latest* attempt only, so the
files of one participant's folder are one attempt: the file graded is chosen as
on Canvas and Gradescope (a notebook named after the set, else a notebook, else
the ``.py`` named after the set; a tie is reported as ambiguous and that student
is not graded), never by time, and the others are reported as "same attempt, not
graded". When the instructor gives the zips of two downloads, an attempt found
in both (same file names and contents) counts once; two different attempts are
told apart by the newest modification time the zip records for the
participant's files (Moodle adds each file from its content store, so the time
is in practice when the content was uploaded: an observation, not a documented
promise), and equal times are reported as ambiguous.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from pathlib import Path

from . import (SUBMISSION_SUFFIXES, Collection, RosterEntry, Submission, choose_in_attempt,
               choose_latest, copy_member, pick_id_column, roster_ids, zip_members)

__all__ = ["read_worksheet", "collect_moodle", "write_moodle_worksheet", "moodle_feedback_dir",
           "parse_moodle_time"]

ID_PREFERENCE = ("ID number", "Username", "Email address")
# the name may still hold underscores (an archive not made by a current Moodle): the participant
# id is the number right before "_assignsubmission_"
_MEMBER = re.compile(r"^(?P<name>[^/]*?)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_"
                     r"(?P<rest>.*)$")
_PARTICIPANT = re.compile(r"^\D*?(\d+)$")
_FORMATS = ("%A, %d %B %Y, %I:%M %p", "%d %B %Y, %I:%M %p", "%A, %d %B %Y, %H:%M",
            "%d %B %Y, %H:%M")


def parse_moodle_time(text, tz, where):
    """A worksheet time (``Tuesday, 3 March 2026, 11:59 PM`` or ISO 8601) in ``tz``; None for ``-``."""
    text = (text or "").strip()
    if text in ("", "-"):
        return None
    for fmt in _FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).replace(tzinfo=tz)
        except ValueError:
            pass
    try:
        t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a time Moodle writes "
                         "(e.g. 'Tuesday, 3 March 2026, 11:59 PM')") from None
    return t if t.tzinfo else t.replace(tzinfo=tz)


def read_worksheet(path, id_column=None, tz=dt.timezone.utc):
    """The roster of a Moodle grading worksheet: ``(roster, header)``.

    ``lms_user`` of each entry is its participant number; ``row`` keeps the
    worksheet row (the export writes it back with the grade filled in).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in (reader.fieldnames or [])]
        if "Identifier" not in header or "Full name" not in header:
            raise ValueError(f"{path}: not a Moodle grading worksheet (the header must have "
                             "the columns Identifier and Full name)")
        entries = []
        for line, raw in enumerate(reader, start=2):
            row = {k.strip(): (v or "").strip() for k, v in raw.items() if k}
            m = _PARTICIPANT.match(row["Identifier"])
            if m is None:
                raise ValueError(f"{path}, line {line}, column Identifier: {row['Identifier']!r} "
                                 "is not 'Participant N'")
            entry = RosterEntry("", m[1], row["Full name"], row.get("Email address", ""), row=row)
            try:
                entry.submitted = parse_moodle_time(row.get("Last modified (submission)"), tz,
                                                    f"{path}, line {line}")
            except ValueError as exc:
                # a site in another language writes its own month names: the time is then
                # unknown (say so), and --times gives it; grading goes on
                entry.submitted, entry.time_note = None, str(exc)
            entries.append((line, entry))
    column = pick_id_column(header, entries, ID_PREFERENCE, id_column, path)
    roster = roster_ids(entries, column, path)
    seen = set()
    for entry in roster.values():
        if entry.lms_user in seen:
            raise ValueError(f"{path}: Participant {entry.lms_user} appears twice")
        seen.add(entry.lms_user)
    return roster, header


def collect_moodle(archives, worksheet, dest, id_column=None, tz=dt.timezone.utc, set_name=None):
    """Map Moodle's per-participant folders to students; copy the chosen file to ``dest``.

    The files of one participant's folder are one attempt, and the file graded is
    chosen as on Canvas (:func:`~linclf_grader.lms.choose_in_attempt`); the others
    are reported as "same attempt, not graded".
    """
    roster, header = read_worksheet(worksheet, id_column, tz)
    by_pid = {e.lms_user: e for e in roster.values()}
    candidates, unmapped, ungradable = {}, [], {}
    for archive_path, info, entry in zip_members(archives):
        m = _MEMBER.match(info.filename)
        if m is None:
            unmapped.append((entry, "not under a folder FULL NAME_ID_assignsubmission_"
                                    "PLUGIN_ as Moodle names submissions"))
            continue
        student = by_pid.get(m["pid"])
        if student is None:
            unmapped.append((entry, f"Participant {m['pid']} is not in the worksheet "
                                    f"{Path(worksheet).name}"))
            continue
        name = m["rest"].lstrip("/")
        if m["plugin"] != "file" or Path(name).suffix.lower() not in SUBMISSION_SUFFIXES:
            unmapped.append((entry, f"{student.student}: not a .ipynb or .py file"))
            ungradable.setdefault(student.student, []).append(
                "online text" if m["plugin"] == "onlinetext" else
                Path(name).suffix.lower().lstrip(".") or "a file")
            continue
        candidates.setdefault(student.student, []).append(
            (info.date_time, entry, Path(name).suffix.lower(), archive_path, info, name))
    subs, ambiguous = [], []
    for sid, cands in candidates.items():
        # one download holds one attempt (the latest) of each participant; the same
        # attempt in two downloads (same names and contents) is one attempt
        attempts = {}
        for c in cands:
            attempts.setdefault(c[3], []).append(c)
        by_files, repeated = {}, 0
        for files in attempts.values():
            key = frozenset((c[5], c[4].CRC, c[4].file_size) for c in files)
            if by_files.setdefault(key, files) is not files:
                repeated += len(files)
        if len(by_files) > 1:
            # different attempts in different downloads: the later download is told by
            # the newest time its zip records for that participant's files
            attempt, older, reason = choose_latest(
                list(by_files.values()), key=lambda files: max(c[0] for c in files),
                what="modification time in the zips (two downloads, different attempts)")
            if attempt is None:
                ambiguous.append((sid, [c[1] for c in cands], reason))
                continue
            # a file the later attempt still holds unchanged was not replaced: it is the same
            # file found in both downloads (reported once, as a file of the graded attempt)
            kept = {(c[5], c[4].CRC, c[4].file_size) for c in attempt}
            older = [c for files in older for c in files]
            repeated += sum((c[5], c[4].CRC, c[4].file_size) in kept for c in older)
            older = [c[1] for c in older if (c[5], c[4].CRC, c[4].file_size) not in kept]
        else:
            attempt, older = next(iter(by_files.values())), []
        # within one attempt: the same rule as Canvas and Gradescope (a notebook named
        # after the set, else a notebook, else the .py named after the set)
        chosen, others, reason = choose_in_attempt(attempt, lambda c: c[5], set_name)
        if chosen is None:
            ambiguous.append((sid, [c[1] for c in attempt], reason))
            continue
        _, entry, suffix, archive_path, info, _ = chosen
        path = copy_member(dest, sid, suffix, archive_path, info)
        r = roster[sid]
        subs.append(Submission(sid, path, entry, "moodle", r.lms_user, r.name, r.submitted,
                               superseded=older, companions=[c[1] for c in others],
                               repeated=repeated))
    collection = Collection("Moodle", subs, unmapped, ambiguous, roster, header=header,
                            ungradable=ungradable)
    unread = [e for e in roster.values() if e.time_note]
    if unread:
        collection.notes.append(
            f"submission times unreadable for {len(unread)} student(s) (first: "
            f"{unread[0].time_note}); download the worksheet with Moodle set to English, or give "
            "the times with --times; until then no late penalty applies to them")
    return collection


def format_moodle_time(t):
    """A time the worksheet import reads back (Moodle parses it with strtotime)."""
    return t.strftime("%A, %d %B %Y, %I:%M %p")


def write_moodle_worksheet(path, collection, results, max_score, comments, now):
    """The worksheet with ``Grade`` and ``Feedback comments`` filled in, for "Upload grading
    worksheet".

    Scores are rescaled to the worksheet's ``Maximum Grade`` (Moodle skips a grade
    above it); a student without a graded submission keeps an empty grade.
    ``Last modified (grade)`` keeps the downloaded time when the row has one: the
    import then skips a row whose grade was changed in Moodle after the download
    (its overwrite check, ``timemodified > worksheet time + 60 s``). A row without
    one (``-``, never graded) gets ``now``: Moodle reads ``-`` as time 0 and would
    skip every student whose grade record it created when the submission arrived.
    """
    header = list(collection.header)
    for col in ("Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments"):
        if col not in header:
            header.append(col)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=header, extrasaction="ignore")
        writer.writeheader()
        for sid, entry in collection.roster.items():
            row = dict(entry.row)
            score = results.get(sid)
            try:
                top = float(row.get("Maximum Grade", "") or max_score)
            except ValueError:
                top = max_score
            if score is not None:
                row["Grade"] = f"{round(score * top / max_score, 2):.2f}"
                row["Maximum Grade"] = f"{top:.2f}"
                try:
                    kept = parse_moodle_time(row.get("Last modified (grade)"), now.tzinfo, "")
                except ValueError:
                    kept = None
                if kept is None:
                    row["Last modified (grade)"] = format_moodle_time(now)
                row["Feedback comments"] = comments.get(sid, "")
            writer.writerow(row)
    return Path(path)


def moodle_feedback_dir(submission):
    """The folder of the feedback zip that Moodle maps back to the participant."""
    name = submission.name.replace("_", " ").replace("/", " ") or "Participant"
    return f"{name}_{submission.lms_user}_assignfeedback_file_"
