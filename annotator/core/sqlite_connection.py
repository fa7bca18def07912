"""How every connection to a SQLite database is set up, for SQLAlchemy's engine
(:mod:`annotator.db`) and for ``annotator import``'s direct path
(:mod:`annotator.ingest.sqlite_import`), which opens the file with the standard library's
``sqlite3`` alone (issue 44: SQLAlchemy's import costs more than Label Studio's whole import
API call for 1,000 documents).

WAL mode with foreign keys enforced and ``synchronous=FULL``, so an acknowledged save
survives a killed server; a writer waits up to 30 s for another's lock.
"""

from __future__ import annotations

BUSY_TIMEOUT_SECONDS = 30
PRAGMAS = ("journal_mode=WAL", "foreign_keys=ON", "synchronous=FULL",
           f"busy_timeout={BUSY_TIMEOUT_SECONDS * 1000}")


def apply_pragmas(dbapi_connection, _record=None) -> None:
    """Set :data:`PRAGMAS` on a new DB-API connection (signature of SQLAlchemy's
    ``connect`` event, so the engine listens with it directly)."""
    cursor = dbapi_connection.cursor()
    for pragma in PRAGMAS:
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()
