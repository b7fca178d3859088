"""The course side of ``linclf-grade``: collect, per-student deadlines, return, export.

:func:`collect` turns the LMS options of the command line into a
:class:`~linclf_grader.lms.Collection` (the files to grade and the report of
every file that could not be mapped); :func:`write_course_outputs` writes, next
to ``grades.csv`` and ``items.csv``, one feedback file per student, the LMS's
bulk-upload zip of those files, the gradebook CSV the LMS imports, the
collection report and, on request, the similarity report.
"""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from pathlib import Path

from .feedback import comment_line, feedback_html, feedback_markdown

__all__ = ["collect", "write_course_outputs", "summary", "timezone"]


def timezone(name):
    """``--timezone``: an IANA name (Europe/Paris) or UTC."""
    if not name or name.upper() == "UTC":
        return dt.timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"--timezone {name!r}: not an IANA time zone name (e.g. Europe/Paris)") \
            from None


def collect(args, out):
    """The :class:`Collection` the options ask for, or None for plain SUBMISSION files."""
    from .lms import collect_folder

    chosen = [o for o in ("canvas", "moodle", "folder") if getattr(args, o)]
    if not chosen:
        return None
    if len(chosen) > 1 or args.submissions:
        raise ValueError("give one source: SUBMISSION files, --canvas, --moodle or --folder")
    dest = Path(out) / "collected"
    if args.canvas:
        from .lms.canvas import collect_canvas

        if not args.canvas_gradebook:
            raise ValueError("--canvas needs --canvas-gradebook (the gradebook export: "
                             "Grades > Export)")
        return collect_canvas(args.canvas, args.canvas_gradebook, dest, args.id_column,
                              args.set_name)
    if args.moodle:
        from .lms.moodle import collect_moodle

        if not args.moodle_worksheet:
            raise ValueError("--moodle needs --moodle-worksheet (the assignment's grading "
                             "worksheet)")
        return collect_moodle(args.moodle, args.moodle_worksheet, dest, args.id_column,
                              timezone(args.timezone), args.set_name)
    return collect_folder(args.folder)


def summary(result):
    """The terminal line of one submission: the final score, and why it is not the raw one."""
    line = f"{result['file']}: {result['score']:g}/{result['max_score']:g}"
    notes = []
    late = result.get("late") or {}
    if late.get("penalty_percent"):
        notes.append(f"late -{late['penalty_percent']:g}% from {late['score_before']:g}")
    for o in result.get("overrides", []):
        notes.append(f"override {o['exercise']} {o['from']:g}->{o['to']:g}")
    if result.get("cell_errors"):
        notes.append(f"{len(result['cell_errors'])} cell(s) failed")
    if result.get("error"):
        notes.append(result["error"][:100])
    return line + (f"  ({'; '.join(notes)})" if notes else "")


def _zip_feedback(path, files):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files:
            z.writestr(name, text)
    return path


def write_course_outputs(args, exset, results, collection, out, labels):
    """Feedback files, LMS zips and gradebooks, collection and similarity reports.

    ``labels`` are the report names of ``results`` (the student ids of a
    collected class); the feedback of result ``i`` is ``feedback/LABEL.html``.
    """
    out = Path(out)
    fmt = args.feedback
    render = feedback_html if fmt == "html" else feedback_markdown
    fb_dir = out / "feedback"
    fb_dir.mkdir(parents=True, exist_ok=True)
    written = []
    by_student = {}
    for r, label in zip(results, labels):
        text = render(r, exset)
        (fb_dir / f"{label}.{fmt}").write_text(text, encoding="utf-8")
        by_student[r.get("student") or label] = (r, text)
    written.append(fb_dir)
    if collection is not None:
        (out / "collection.txt").write_text("\n".join(collection.report()) + "\n")
        written.append(out / "collection.txt")
        finals = {sid: r["score"] for sid, (r, _) in by_student.items()}
        subs = collection.by_student()
        max_score = float(exset.max_points()) if not results else results[0]["max_score"]
        if collection.lms == "Canvas":
            from .lms.canvas import assignment_column, canvas_feedback_name, write_canvas_gradebook

            column = assignment_column(collection.header, args.lms_assignment,
                                       f"Exercises: {exset.title}")
            written.append(write_canvas_gradebook(out / "canvas_gradebook.csv", collection, finals,
                                                  column, max_score))
            written.append(_zip_feedback(out / "canvas_feedback.zip", [
                (f"{canvas_feedback_name(subs[sid])}.{fmt}", text)
                for sid, (_, text) in by_student.items() if sid in subs]))
        elif collection.lms == "Moodle":
            from .lms.moodle import moodle_feedback_dir, write_moodle_worksheet

            comments = {sid: comment_line(r, exset) for sid, (r, _) in by_student.items()}
            now = dt.datetime.now(timezone(args.timezone))
            written.append(write_moodle_worksheet(out / "moodle_grades.csv", collection, finals,
                                                  max_score, comments, now))
            written.append(_zip_feedback(out / "moodle_feedback.zip", [
                (f"{moodle_feedback_dir(subs[sid])}/feedback.{fmt}", text)
                for sid, (_, text) in by_student.items() if sid in subs]))
    from .similarity import copy_signals, describe_signal

    signals = copy_signals(results)
    for student, exercise, named, n_fitting in signals:
        print(f"copy signal: {student}: {describe_signal(exercise, named, n_fitting)}")
    if args.similarity is not None:
        from .similarity import (fingerprint_class, similar_pairs, variant_mismatches,
                                 write_similarity)

        names = [r.get("student") or label for r, label in zip(results, labels)]
        if len(set(names)) < len(names):
            names = labels   # the report names files apart when two share a student id
        paths = dict(zip(names, (r["file"] for r in results)))
        prints = fingerprint_class(paths, exset)
        pairs = similar_pairs(prints, args.similarity)
        written.append(write_similarity(pairs, out, args.similarity, len(prints),
                                        variant_mismatches(results, exset), signals))
        print(f"similarity: {len(pairs)} pair(s) at or above {args.similarity:.0%}; see "
              f"{out / 'similarity.html'}")
        for p in pairs[:10]:
            print(f"  {p['a']} ~ {p['b']}: {p['similarity_a']:.0%} / {p['similarity_b']:.0%}")
    (out / "course.json").write_text(json.dumps({"written": [str(w) for w in written]}, indent=1))
    return written
