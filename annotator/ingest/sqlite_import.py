"""``annotator import`` of new documents into a SQLite database through the standard
library's ``sqlite3`` alone: no SQLAlchemy, no models (issue 44, item 5).

Why a second writer: a fresh ``annotator import`` process of 1,000 documents spent ~0.45 s
of CPU, of which importing SQLAlchemy ~0.15 s, its ORM ~0.05 s and the models' mapping
~0.1 s, while the documents themselves took ~0.06 s; Label Studio's import API answers the
same 1,000 documents in 0.14-0.4 s (benchmarks/bench_import_labelstudio.py). No trimming
inside SQLAlchemy reaches that; not loading it does.

Only the plain case goes this way; anything else is left, before anything is written, to
the ORM path (:mod:`annotator.ingest.store`), which migrates, refreshes and reports every
error as before: a ``sqlite:///FILE`` URL of an existing file (no query options), the
database at the newest migration, no stale adjudication queue entry, the project exists,
no pre-highlighting job of the project waiting, at most :data:`BATCH_SIZE` documents (one
transaction; larger imports are written in committed batches by the ORM path, where
start-up is a small part), and none of the ids already in the project. The writes happen
in one ``BEGIN IMMEDIATE`` transaction, all or nothing, after the checks are made again
under its lock; the file is read before, so the lock is held only while writing.

The rows are the ORM path's: the document values of :mod:`annotator.ingest.rows`, the job
values of :mod:`annotator.study.job_rows`, the audit event of ``study.audit.record``;
``tests/test_import_direct_sqlite.py`` compares every stored column of both paths.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from annotator.core.migration_heads import head_revisions
from annotator.core.records import DocumentRecord, read_documents
from annotator.core.sqlite_connection import BUSY_TIMEOUT_SECONDS, apply_pragmas
from annotator.ingest.rows import BATCH_SIZE, ImportResult, document_row
from annotator.study.entry_row import NEW_ENTRY
from annotator.study.job_rows import PREHIGHLIGHT, WAITING, new_job_row, prehighlight_chunks

SQLITE_PREFIX = "sqlite:///"
# Ids per ``IN (...)`` list, far below SQLite's limit on bound parameters.
IDS_PER_QUERY = 500
JSON_COLUMNS = {"meta", "source_sentences", "target_sentences", "sentence_pairs", "payload",
                "result", "details"}


@dataclass
class NotDirect:
    """This import takes the ORM path; ``records``: the documents, when already read."""

    records: list[DocumentRecord] | None = None


def database_file(database_url: str) -> Path | None:
    """The file of a plain ``sqlite:///FILE`` URL when it exists, else None."""
    if not database_url.startswith(SQLITE_PREFIX) or "?" in database_url:
        return None
    name = database_url[len(SQLITE_PREFIX):]
    if not name or name == ":memory:":
        return None
    path = Path(name)
    return path if path.is_file() else None


def import_documents(database_url: str, project_name: str, path: Path,
                     fmt: str | None) -> ImportResult | NotDirect:
    """Import the new documents of ``path`` into ``project_name`` directly (module
    docstring), or say it is not the plain case. A file that fails its checks raises
    IngestError, as the ORM path would (the project exists). The file is read and its rows
    made before the write lock is taken; the checks are made again under it."""
    database = database_file(database_url)
    if database is None:
        return NotDirect()
    # Autocommit mode: the one transaction is the explicit BEGIN IMMEDIATE below.
    connection = sqlite3.connect(database, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    try:
        try:
            apply_pragmas(connection)
            project_id = _plain_project(connection, project_name)
        except sqlite3.OperationalError:
            raise  # locked, unreadable: the ORM path would meet the same
        except sqlite3.DatabaseError:  # not a database: the ORM path says so
            return NotDirect()
        if project_id is None:
            return NotDirect()
        records = read_documents(path, fmt)
        if len(records) > BATCH_SIZE:
            return NotDirect(records)
        now = datetime.now(timezone.utc)
        # Positions are set under the lock (after the project's last document).
        rows = [document_row(project_id, record, 0)
                | {"created_at": now, "version": 1, "updated_at": now} for record in records]
        connection.execute("BEGIN IMMEDIATE")
        try:
            stored = _store(connection, project_name, project_id, rows, path.name, now)
        except sqlite3.IntegrityError:
            stored = None  # a row another process wrote meanwhile clashes
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT" if stored is not None else "ROLLBACK")
        return stored if stored is not None else NotDirect(records)
    finally:
        connection.close()


def _store(connection: sqlite3.Connection, project_name: str, project_id: int,
           rows: list[dict], file_name: str, now: datetime) -> ImportResult | None:
    """Write the documents, their pre-highlighting chunks and the audit event, under the
    write lock; None (nothing written) when the plain case no longer holds or an id is in
    the project already (the ORM path then says which)."""
    if _plain_project(connection, project_name) != project_id or _any_exists(
            connection, project_id, [row["external_id"] for row in rows]):
        return None
    next_position = (connection.execute(
        "SELECT max(position) FROM documents WHERE project_id = ?", (project_id,)
    ).fetchone()[0] or 0) + 1
    for offset, row in enumerate(rows):
        row["position"] = next_position + offset
    _insert(connection, "documents", rows)
    _add_entries(connection, project_id, next_position, len(rows))
    jobs = _queue_prehighlight(connection, project_id, now) if rows else []
    # The event study.audit.record writes for an import (user_id: the command has none).
    _insert(connection, "audit_events", [{
        "created_at": now, "user_id": None, "project_id": project_id,
        "action": "documents.imported", "object_type": "project", "object_id": str(project_id),
        "details": {"file": file_name, "created": len(rows), "updated": 0}}])
    return ImportResult(created=len(rows), updated=0,
                        prehighlight_job=jobs[0] if jobs else None,
                        prehighlight_chunks=len(jobs))


def _add_entries(connection: sqlite3.Connection, project_id: int, first_position: int,
                 count: int) -> None:
    """Each new document's data-manager entry ('unassigned') and the project's count, as
    :func:`annotator.study.document_status.add_entries` writes them."""
    if not count:
        return
    names = ", ".join(NEW_ENTRY)
    connection.execute(
        f"INSERT INTO adjudication_queue (document_id, project_id, position, {names}) "
        f"SELECT id, project_id, position, {', '.join('?' * len(NEW_ENTRY))} FROM documents "
        "WHERE project_id = ? AND position >= ?",
        (*NEW_ENTRY.values(), project_id, first_position))
    connection.execute(
        "INSERT INTO project_status_counts (project_id, status, documents) VALUES (?, ?, ?) "
        "ON CONFLICT (project_id, status) DO UPDATE SET documents = documents + ?",
        (project_id, NEW_ENTRY["status"], count, count))


def _plain_project(connection: sqlite3.Connection, name: str) -> int | None:
    """The project's id when the plain case holds (module docstring), else None."""
    try:
        revisions = {row[0] for row in connection.execute(
            "SELECT version_num FROM alembic_version")}
    except sqlite3.OperationalError:  # never migrated: the ORM path creates the tables
        return None
    if revisions != head_revisions():
        return None
    if connection.execute("SELECT 1 FROM adjudication_queue WHERE stale = 1 LIMIT 1"
                          ).fetchone():
        return None  # Database.upgrade recomputes these first
    row = connection.execute("SELECT id FROM projects WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None  # the ORM path's error lists the projects
    waiting = connection.execute(
        f"SELECT 1 FROM jobs WHERE project_id = ? AND kind = ? AND state IN "
        f"({', '.join('?' * len(WAITING))}) LIMIT 1", (row[0], PREHIGHLIGHT, *WAITING))
    return None if waiting.fetchone() else row[0]


def _any_exists(connection: sqlite3.Connection, project_id: int, ids: list[str]) -> bool:
    for start in range(0, len(ids), IDS_PER_QUERY):
        chunk = ids[start:start + IDS_PER_QUERY]
        if connection.execute(
                f"SELECT 1 FROM documents WHERE project_id = ? AND external_id IN "
                f"({', '.join('?' * len(chunk))}) LIMIT 1", (project_id, *chunk)).fetchone():
            return True
    return False


def _queue_prehighlight(connection: sqlite3.Connection, project_id: int,
                        now: datetime) -> list[int]:
    """study.prehighlight_queue.queue_prehighlight with no chunk waiting (checked): every
    document of the project not pre-highlighted yet, in chunks; the new jobs' ids."""
    pending = [row[0] for row in connection.execute(
        "SELECT id FROM documents WHERE project_id = ? AND prehighlighted_at IS NULL "
        "ORDER BY id", (project_id,))]
    ids = []
    for payload, key in prehighlight_chunks(pending):
        row = new_job_row(PREHIGHLIGHT, project_id, payload, key=key, created_at=now)
        ids.append(_insert(connection, "jobs", [row]))
    return ids


def _insert(connection: sqlite3.Connection, table: str, rows: list[dict]) -> int | None:
    """Insert ``rows`` (each with the keys of the first) as the ORM's SQLite dialect stores
    them (JSON as its text, times as ``YYYY-MM-DD HH:MM:SS.ffffff``); the id of a single row
    (executemany keeps none)."""
    if not rows:
        return None
    columns = tuple(rows[0])
    sql = (f"INSERT INTO {table} ({', '.join(columns)}) "
           f"VALUES ({', '.join('?' * len(columns))})")
    values = [tuple(_stored(column, row[column]) for column in columns) for row in rows]
    if len(values) == 1:
        return connection.execute(sql, values[0]).lastrowid
    connection.executemany(sql, values)
    return None


def _stored(column: str, value):
    if column in JSON_COLUMNS:
        return json.dumps(value)
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    return value
