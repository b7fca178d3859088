"""One execution of the chapters for the two builds of ``scripts/test.sh``.

``_config.yml`` executes every chapter from scratch in every build (``force``). ``scripts/test.sh``
builds the PDF edition and then the website; executing the chapters twice would only repeat the
same check, so it empties a jupyter-cache directory and names it in ``LINCLF_EXECUTION_CACHE``.
Both builds then run in myst-nb's ``cache`` mode with that directory: the PDF build finds it empty
and executes every chapter (an error still fails it, as in ``force`` mode: same executor, same
``raise_on_error``), and the website build takes the outputs of those executions, since their
code cells are unchanged. Without the variable (``scripts/book.sh`` or ``scripts/pdf.sh`` run
alone) nothing changes.

The build report has to say which of the two happened to each chapter: `execution_report` gives,
for every notebook on the site, its runtime, whether this build executed it or restored it, and
when the execution it shows took place (so a test can check that a restored chapter was executed
after ``scripts/test.sh`` emptied the cache, i.e. in the same run, and not by an older build).
"""

from __future__ import annotations

import os
from datetime import timezone
from pathlib import Path

ENV = "LINCLF_EXECUTION_CACHE"
# written by scripts/test.sh into the cache directory when it empties it: the epoch seconds
EMPTIED_AT = "emptied-at"

_records_before: set[int] = set()


def _cache_records(path: str) -> list:
    from jupyter_cache import get_cache

    return get_cache(path).list_cache_records()


def use_shared_cache(app, config):
    """Switch to ``cache`` mode with the directory named in ``LINCLF_EXECUTION_CACHE``, if set."""
    path = os.environ.get(ENV)
    if not path:
        return
    path = str(Path(path).absolute())
    config.nb_execution_mode = "cache"
    config.nb_execution_cache_path = path
    # the records that exist before this build are those it may restore rather than execute
    _records_before.update(record.pk for record in _cache_records(path))


def _utc_epoch(created) -> float:
    # jupyter-cache stores UTC; SQLite hands it back without its time zone
    if created.tzinfo is None:
        created = created.replace(tzinfo=timezone.utc)
    return round(created.timestamp(), 3)


def execution_report(app) -> dict:
    """``{"cache": path or None, "emptied_at": epoch or None, "notebooks": {docname: {...}}}``.

    Each notebook: ``seconds`` (its execution's runtime), ``executed`` (True if this build ran
    it, False if it restored the outputs of an earlier execution from the cache) and
    ``executed_at`` (epoch seconds of the cache record, in cache mode).
    """
    metadata = getattr(app.env, "nb_metadata", {})
    ran = {
        doc: meta["exec_data"]
        for doc, meta in metadata.items()
        if meta.get("exec_data") and meta["exec_data"].get("runtime") is not None
    }
    mode = app.env.mystnb_config.execution_mode
    if mode != "cache":
        notebooks = {doc: {"seconds": round(data["runtime"], 2), "executed": True} for doc, data in ran.items()}
        return {"mode": mode, "cache": None, "emptied_at": None, "notebooks": dict(sorted(notebooks.items()))}

    path = app.env.mystnb_config.execution_cache_path
    newest: dict[str, object] = {}
    for record in _cache_records(path):
        if record.uri not in newest or record.created > newest[record.uri].created:
            newest[record.uri] = record
    notebooks = {}
    for doc, data in ran.items():
        record = newest.get(str(Path(app.env.doc2path(doc)).absolute()))
        notebooks[doc] = {
            "seconds": round(data["runtime"], 2),
            # a record that existed before the build started was restored, not re-run
            "executed": record is None or record.pk not in _records_before,
            "executed_at": None if record is None else _utc_epoch(record.created),
        }
    stamp = Path(path) / EMPTIED_AT
    emptied_at = float(stamp.read_text()) if stamp.is_file() else None
    return {"mode": mode, "cache": path, "emptied_at": emptied_at, "notebooks": dict(sorted(notebooks.items()))}
