"""The column values of a newly queued job, and how a project's pre-highlighting is cut
into chunks, as plain data: :func:`annotator.study.jobs.enqueue` writes them through
SQLAlchemy and ``annotator import``'s direct SQLite path
(:mod:`annotator.ingest.sqlite_import`) through ``sqlite3``; one definition keeps the two
rows alike (``tests/test_import_direct_sqlite.py`` compares them)."""

from __future__ import annotations

from datetime import datetime

PREHIGHLIGHT = "prehighlight"
# A job in these states is waiting to be done (its dedupe_key is set).
WAITING = ("queued", "running")
# Documents of one chunk: at ~1-3 documents/s a chunk takes one to two minutes, the
# longest a release waits for a busy worker; the payload stays small (ids of ~8 characters).
CHUNK_DOCUMENTS = 100


def dedupe_key(kind: str, project_id: int | None, key: str | None = None) -> str:
    """``kind:project`` (``*``: the whole installation), or ``kind:project:key`` for work
    named by a key; unique among queued jobs (models.Job)."""
    base = f"{kind}:{project_id if project_id is not None else '*'}"
    return base if key is None else f"{base}:{key}"


def new_job_row(kind: str, project_id: int | None, payload: dict | None, *,
                key: str | None, created_at: datetime) -> dict:
    """Every column a queued job is written with (the others keep their NULL)."""
    return dict(kind=kind, project_id=project_id, payload=dict(payload or {}),
                dedupe_key=dedupe_key(kind, project_id, key), state="queued",
                progress_done=0, progress_total=0, error="", result={}, attempts=0,
                created_at=created_at, retry_reasons="")


def prehighlight_chunks(pending: list[int], *, chunk: int = CHUNK_DOCUMENTS,
                        user_id: int | None = None) -> list[tuple[dict, str]]:
    """(payload, key) of each chunk of ``pending`` document ids, in the order given."""
    chunks = []
    for start in range(0, len(pending), chunk):
        ids = pending[start:start + chunk]
        payload = {"document_ids": ids} if user_id is None else {"document_ids": ids,
                                                                  "user_id": user_id}
        chunks.append((payload, f"from-{ids[0]}"))
    return chunks
