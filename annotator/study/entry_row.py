"""The values of a new document's data-manager entry (its row of ``adjudication_queue``,
status 'unassigned', nothing computed yet), as plain data: written by
:func:`annotator.study.document_status.add_entries` through SQLAlchemy and by `annotator
import`'s direct SQLite path (:mod:`annotator.ingest.sqlite_import`), which loads no
SQLAlchemy; ``tests/test_import_direct_sqlite.py`` compares what both write."""

from __future__ import annotations

NEW_ENTRY = {"changes": 0, "computed": 0, "stale": False, "ready": False, "complete": False,
             "agreement": 1.0, "open_total": 0, "open_summary": "", "annotators": "|",
             "disputed": "|", "status": "unassigned", "holders": "", "seconds": 0.0}
