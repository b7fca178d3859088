"""Collect a class's submissions from an LMS bulk download or a plain folder.

Three sources, one result (:class:`Collection`):

* a Canvas "Download submissions" zip and the course's gradebook export
  (:mod:`linclf_grader.lms.canvas`);
* a Moodle assignment's "Download all submissions" zip and its grading
  worksheet (:mod:`linclf_grader.lms.moodle`);
* a plain folder of ``ID.ipynb`` / ``ID.py`` files (:func:`collect_folder`).

Every file of a download is accounted for: it is the graded submission of one
student, or an earlier upload that a later one of the same student replaced
(*superseded*, by the LMS's own order), or it is listed in ``unmapped`` with the
reason (a name that does not follow the LMS's convention, a user the roster does
not know, a file that is not a notebook or a ``.py``). When the LMS's order
cannot tell two files of one student apart, the student is listed in
``ambiguous`` and not graded: the grader never picks one silently.

The chosen files are copied to ``DEST/ID.ipynb`` (or ``.py``), named by the
student id the roster gives, so the reports and the variant data use that id.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import shutil
import zipfile
from pathlib import Path

from ..variants import check_student_id

__all__ = ["Submission", "Collection", "RosterEntry", "collect_folder", "SUBMISSION_SUFFIXES",
           "read_zip_member", "choose_latest", "choose_in_attempt"]

SUBMISSION_SUFFIXES = (".ipynb", ".py")
#: the largest member read from an archive (a notebook with plots is a few MB)
MAX_MEMBER_BYTES = 20 * 2**20


@dataclasses.dataclass
class RosterEntry:
    """One student of an LMS roster: the grading id and what the LMS knows."""

    student: str
    lms_user: str          # Canvas user id, Moodle participant number
    name: str = ""
    email: str = ""
    section: str = ""
    submitted: object = None   # the LMS's submission time, when its roster has one
    row: dict = dataclasses.field(default_factory=dict)   # the roster row, for the exports
    time_note: str = ""        # why ``submitted`` could not be read, if it could not
    id_column: str = ""        # the roster column the grading id comes from


@dataclasses.dataclass
class Submission:
    """The file graded for one student."""

    student: str
    path: Path             # the extracted copy that is graded
    source: str            # where it came from (archive member or file)
    lms: str               # "canvas", "moodle" or "folder"
    lms_user: str = ""
    name: str = ""
    submitted: dt.datetime | None = None
    lms_late: bool = False
    lms_file_id: str = ""  # Canvas attachment id (the feedback file must name it)
    superseded: list = dataclasses.field(default_factory=list)
    companions: list = dataclasses.field(default_factory=list)   # same attempt, not graded
    repeated: int = 0      # files of this attempt found again in another download


@dataclasses.dataclass
class Collection:
    """What :func:`collect_folder` or an LMS reader found."""

    lms: str
    submissions: list
    unmapped: list                    # (entry, reason)
    ambiguous: list                   # (student, [entries], reason)
    roster: dict                      # student id -> RosterEntry
    notes: list = dataclasses.field(default_factory=list)
    header: list = dataclasses.field(default_factory=list)   # the roster file's columns
    points: dict = dataclasses.field(default_factory=dict)   # Canvas's Points Possible row
    ungradable: dict = dataclasses.field(default_factory=dict)   # id -> kinds (pdf, online text)

    def by_student(self):
        return {s.student: s for s in self.submissions}

    def missing(self):
        """Roster students without a graded submission (ambiguous ones included)."""
        have = {s.student for s in self.submissions}
        return [sid for sid in self.roster if sid not in have]

    def report(self):
        """The collection report: one line per fact an instructor must see."""
        lines = [f"collected {len(self.submissions)} submission(s) from {self.lms}"]
        columns = sorted({e.id_column for e in self.roster.values() if e.id_column})
        if columns:
            lines.append(f"  student ids: roster column {', '.join(map(repr, columns))}")
        for s in self.submissions:
            for old in s.superseded:
                lines.append(f"  resubmission: {s.student}: {s.source} replaces {old}")
            for other in s.companions:
                lines.append(f"  same attempt, not graded: {s.student}: {other} (graded: "
                             f"{s.source}, the notebook or file named after the set, latest "
                             "version)")
        repeated = [s for s in self.submissions if s.repeated]
        if repeated:
            # the same attachment in two downloads is one file: one line, not one per student
            lines.append(f"  {sum(s.repeated for s in repeated)} file(s) of {len(repeated)} "
                         "student(s) were in more than one download (same attempt): counted once")
        for entry, reason in self.unmapped:
            lines.append(f"  NOT MAPPED: {entry}: {reason}")
        for sid, entries, reason in self.ambiguous:
            lines.append(f"  AMBIGUOUS, not graded: {sid}: {', '.join(entries)}: {reason}")
        for sid in self.missing():
            if sid in {a[0] for a in self.ambiguous}:
                continue
            if sid in self.ungradable:   # they did hand something in
                kinds = ", ".join(sorted(set(self.ungradable[sid])))
                lines.append(f"  not gradable ({kinds}): {sid}: no .ipynb or .py file in the "
                             "submission")
            else:
                lines.append(f"  no submission: {sid}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return lines


def read_zip_member(archive, info):
    """The bytes of one member of an open :class:`zipfile.ZipFile` (size-capped)."""
    if info.file_size > MAX_MEMBER_BYTES:
        raise ValueError(f"{info.filename}: larger than {MAX_MEMBER_BYTES // 2**20} MB")
    with archive.open(info) as fh:
        data = fh.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise ValueError(f"{info.filename}: larger than {MAX_MEMBER_BYTES // 2**20} MB")
    return data


def choose_latest(candidates, key, what):
    """Split one student's ``candidates`` into (latest, superseded, ambiguity reason).

    ``key(c)`` is the LMS's order (a later upload has a larger key). When the
    largest key is shared, nothing is chosen and the reason says why.
    """
    ranked = sorted(candidates, key=key)
    top = ranked[-1]
    tied = [c for c in ranked if key(c) == key(top)]
    if len(tied) > 1:
        return None, [], f"{len(tied)} files share the latest {what}; keep one and regrade"
    return top, ranked[:-1], ""


def set_file_version(stem, set_name):
    """The version of a file named after the set, or None for any other name.

    ``SET`` is version 0; the copies an LMS or a browser makes of a repeated name,
    and the names students give new versions, count as later versions: ``SET-1``
    (Canvas), ``SET (1)`` (Moodle's file picker, browsers), ``SET_v2``, ``SET-v2``,
    ``SET_2``, ``SETv2``.
    """
    if not set_name:
        return None
    m = re.fullmatch(re.escape(set_name) + r"(?:\s*\((\d+)\)|[-_ ][vV]?(\d+)|[vV](\d+))?", stem)
    if m is None:
        return None
    return int(next((g for g in m.groups() if g), 0))


def choose_in_attempt(candidates, name, set_name):
    """Split the files of one attempt into (graded, others, ambiguity reason).

    The same rule on Canvas and on Moodle: a notebook before a ``.py`` file, a
    file named after the set (:func:`set_file_version`) before any other (the two
    criteria of Gradescope's :func:`linclf_grader.gradescope.find_submission`), and
    among those the latest version (``SET_v2`` before ``SET``). When the best rank
    is shared, nothing is chosen and the reason says so.
    """
    def rank(c):
        path = Path(name(c))
        version = set_file_version(path.stem, set_name)
        return (path.suffix.lower() != ".ipynb", version is None, -(version or 0))

    ranked = sorted(candidates, key=rank)
    best = [c for c in ranked if rank(c) == rank(ranked[0])]
    if len(best) > 1:
        return None, [], (f"{len(best)} files of one attempt could each be the submission "
                          "(none is the notebook named after the set, or several are); "
                          "keep one and regrade")
    return ranked[0], ranked[1:], ""


def open_zip(path):
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise ValueError(f"{path}: not a zip archive") from None


def zip_members(archives):
    """``(archive path, member, "ZIP:NAME")`` of every file in the LMS's zips, in order."""
    for archive_path in archives:
        with open_zip(archive_path) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield archive_path, info, f"{Path(archive_path).name}:{info.filename}"


def copy_member(dest, student, suffix, archive_path, info):
    """Write a zip member as the student's graded copy ``DEST/STUDENT.suffix``."""
    with zipfile.ZipFile(archive_path) as archive:
        return write_submission(dest, student, suffix, read_zip_member(archive, info))


def write_submission(dest, student, suffix, data):
    """Write ``data`` to ``DEST/STUDENT.suffix`` (the graded copy)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / f"{student}{suffix}"
    out.write_bytes(data)
    return out


def collect_folder(folder, dest=None):
    """A folder of ``ID.ipynb`` / ``ID.py``: the file name stem is the student id.

    With ``dest`` the files are copied there (as for an LMS); without it they
    are graded where they are. A student with both an ``.ipynb`` and a ``.py``
    is ambiguous (a folder has no upload order).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a directory")
    found, unmapped = {}, []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_symlink():
            # a student's link could point at the reference solutions or another's work
            unmapped.append((path.name, "a symbolic link, not a submitted file"))
            continue
        if path.is_dir():
            continue
        if path.suffix.lower() not in SUBMISSION_SUFFIXES:
            unmapped.append((path.name, "not a .ipynb or .py file"))
            continue
        try:
            sid = check_student_id(path.stem)
        except ValueError as exc:
            unmapped.append((path.name, str(exc)))
            continue
        found.setdefault(sid, []).append(path)
    subs, ambiguous = [], []
    for sid, paths in found.items():
        if len(paths) > 1:
            ambiguous.append((sid, [p.name for p in paths],
                              "a folder has no upload order; keep one file and regrade"))
            continue
        path = paths[0]
        if dest is not None:
            Path(dest).mkdir(parents=True, exist_ok=True)
            path = Path(shutil.copy(path, Path(dest) / path.name, follow_symlinks=False))
        subs.append(Submission(sid, path, paths[0].name, "folder"))
    roster = {sid: RosterEntry(sid, sid) for sid in found}
    return Collection("a folder", subs, unmapped, ambiguous, roster)


def pick_id_column(header, entries, preferred, id_column, where):
    """The roster column that holds the grading id, for the whole class.

    ``id_column`` when given; else the first column of ``preferred`` that the roster
    fills at all. The column is never switched for the class because a few rows
    lack it (every student's per-student data would silently change): when the
    chosen column is empty for some students, those rows are reported (line and
    name) and the instructor fills them in the LMS or names a column with
    ``--id-column``. ``entries`` are ``(line, RosterEntry)``.
    """
    if id_column:
        if id_column not in header:
            raise ValueError(f"{where}: no column {id_column!r} (found: {', '.join(header)})")
        return id_column
    for col in preferred:
        if col not in header or not any(e.row.get(col, "").strip() for _, e in entries):
            continue
        empty = [(line, e) for line, e in entries if not e.row.get(col, "").strip()]
        if empty:
            shown = "; ".join(f"line {line} ({e.name or 'no name'})" for line, e in empty[:10])
            more = f" and {len(empty) - 10} more" if len(empty) > 10 else ""
            # only a column every row fills is a fix that works (a hint that fails again
            # on the same row is worse than none)
            full = [c for c in preferred if c != col and c in header
                    and all(e.row.get(c, "").strip() for _, e in entries)]
            raise ValueError(
                f"{where}: column {col!r} gives the student ids, but it is empty for "
                f"{len(empty)} student(s): {shown}{more}. Fill it in the LMS and export again, "
                "or choose the id column for the whole class with --id-column"
                + (f" (e.g. --id-column {full[0]!r}, filled for every student)" if full else
                   f" (none of {', '.join(repr(c) for c in preferred if c in header)} is "
                   "filled for every student)")
                + "; the ids must be the ones the students' material was made with")
        return col
    raise ValueError(f"{where}: no column gives the students an id (tried "
                     f"{', '.join(preferred)}); name one with --id-column")


def roster_ids(entries, column, where):
    """``{student id: entry}``; a repeated or malformed id is an error."""
    out = {}
    for line, entry in entries:
        try:
            sid = check_student_id(entry.row.get(column, ""))
        except ValueError as exc:
            raise ValueError(f"{where}, line {line}, column {column}: {exc}") from None
        if sid in out:
            raise ValueError(f"{where}, line {line}, column {column}: the id {sid!r} is "
                             "given to two students")
        entry.student = sid
        entry.id_column = column
        out[sid] = entry
    return out
