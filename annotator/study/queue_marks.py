"""Marking a document's adjudication queue entry changed: the call every writer makes.

The stored queue (:mod:`annotator.adjudication.queue`) is derived from a document's
assignments, edits, spans, ratings, decisions, adjudication state, gold and tie-break
requests. Every function that writes one of them calls :func:`document_changed` with the
document's id, in the writer's transaction: the entry's ``changes`` counter is bumped at once
(an UPSERT that creates a missing entry), so the entry is stale from that moment, and the
id is remembered in the session until the caller's commit helper settles it
(``queue.settle``: ``web.commits.commit_work``, ``operations.work.session``). A caller that
commits without settling leaves the entry stale, never wrong: the queue page counts stale
entries, and a ``queue-refresh`` job or ``annotator adjudicate refresh-queue`` recomputes them.

This module sits on the study floor, below every writer (ingest, annotate, interop,
adjudication, evaluation, operations), so each of them can mark what it changed; it knows
nothing of how an entry is computed.
"""

from __future__ import annotations

from contextlib import contextmanager

from sqlalchemy import select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from annotator.models import AdjudicationQueueEntry, Document

# ``session.info`` keys: the documents marked in this transaction and not settled yet; the
# documents whose marking a batch (:func:`deferred_marks`) holds back until its end.
MARKED = "queue_documents"
DEFERRED = "queue_deferred"


def document_changed(session: Session, *document_ids: int | None) -> None:
    """Record that these documents' queue inputs changed in the session's transaction:
    bump their entries' ``changes`` (entries created if missing) and remember them for
    the commit helper's ``queue.settle``. ``None`` ids (an object not flushed yet) are
    ignored; a writer calls this after its flush."""
    ids = {i for i in document_ids if i is not None}
    if not ids:
        return
    deferred = session.info.get(DEFERRED)
    if deferred is not None:  # inside deferred_marks: one UPSERT at the end of the batch
        deferred.update(ids)
        return
    _bump(session, ids)


def _bump(session: Session, ids: set[int]) -> None:
    session.flush()  # a document created in this transaction must be visible to the UPSERT
    mark_changed(session.connection(), sorted(ids))
    session.info.setdefault(MARKED, set()).update(ids)


@contextmanager
def deferred_marks(session: Session):
    """Batch commands (``adjudicate auto``) change thousands of documents; bump their
    ``changes`` once when the block ends instead of once per write. Still inside the
    caller's transaction, so nothing commits unmarked. On an exception the marks are
    written too (whoever catches it may still commit)."""
    if DEFERRED in session.info:  # nested: the outer block marks
        yield
        return
    session.info[DEFERRED] = set()
    try:
        yield
    finally:
        ids = session.info.pop(DEFERRED)
        if ids:
            _bump(session, ids)


def take_marked(session: Session) -> set[int]:
    """The documents marked and not settled yet (forgotten here: the caller settles them)."""
    return session.info.pop(MARKED, set())


def mark_changed(connection, document_ids: list[int]) -> None:
    """Bump ``changes`` of these documents' entries (creating missing ones)."""
    table = AdjudicationQueueEntry.__table__
    insert = sqlite_insert
    if connection.dialect.name == "postgresql":
        # Imported here: on PostgreSQL the dialect is loaded already; on SQLite it would
        # cost every command a tenth of a second at start-up for nothing.
        from sqlalchemy.dialects.postgresql import insert
    for start in range(0, len(document_ids), 500):
        chunk = document_ids[start:start + 500]
        rows = select(Document.id, Document.project_id, Document.position).where(
            Document.id.in_(chunk))
        statement = insert(table).from_select(["document_id", "project_id", "position"], rows)
        connection.execute(statement.on_conflict_do_update(
            index_elements=["document_id"],
            set_={"changes": table.c.changes + 1, "stale": True}))
