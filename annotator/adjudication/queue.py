"""The adjudication queue, stored and updated incrementally.

Computing a document's queue entry (units, agreement, open decisions) takes milliseconds;
computing all of them on every page view took 155 s at 100k documents. So:

1. every flush of a :class:`QueueKeepingSession` (the only kind of session
   ``Database.sessions`` makes) that touches a document's assignments, edits, ratings,
   decisions, gold or tie-break requests bumps that document's ``changes`` counter in
   ``adjudication_queue``
   (one UPSERT per flush, in the same transaction: nothing can change a document without
   marking it; batch commands wrap their loop in :func:`deferred_marks` for one UPSERT
   per run, still inside the transaction);
2. just before that transaction commits, the entries it marked are recomputed (a handful
   after each action; a whole batch run's documents once at its end), each written with
   ``WHERE changes = <value read>`` so that a change committed meanwhile keeps the entry
   stale instead of being overwritten;
3. the page only reads: one page of ready entries in order from an index. Reads never
   write; an entry left stale (its recomputation failed, or a migration created it) is
   counted on the page and recomputed by the next change of its document or by
   :func:`refresh_stale` (run after every schema upgrade).

The entry itself is :func:`annotator.adjudication.overview.document_entry` (unchanged).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace

from sqlalchemy import event, func, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from annotator.models import (
    AdjudicationDecision,
    AdjudicationQueueEntry,
    AdjudicationState,
    Assignment,
    Document,
    Edit,
    GoldEdit,
    GoldRating,
    Rating,
    TieBreakRequest,
)

log = logging.getLogger(__name__)

PAGE_SIZE = 100
_BY_DOCUMENT = (Assignment, AdjudicationDecision, AdjudicationState, GoldEdit, GoldRating,
                TieBreakRequest)
_BY_ASSIGNMENT = (Edit, Rating)


def _touched(session: Session, _context, _instances) -> None:
    documents = session.info.setdefault("queue_documents", set())
    assignments = session.info.setdefault("queue_assignments", set())
    for obj in (*session.new, *session.dirty, *session.deleted):
        if isinstance(obj, _BY_DOCUMENT):
            if obj.document_id is not None:
                documents.add(obj.document_id)
        elif isinstance(obj, _BY_ASSIGNMENT) and obj.assignment_id is not None:
            assignments.add(obj.assignment_id)


_DEFERRED = "queue_deferred"
_TO_REFRESH = "queue_refresh"  # documents marked in this transaction, recomputed at commit


def _mark(session: Session, _context) -> None:
    documents = session.info.pop("queue_documents", set())
    assignments = session.info.pop("queue_assignments", set())
    if not documents and not assignments:
        return
    deferred = session.info.get(_DEFERRED)
    if deferred is not None:  # inside deferred_marks: one UPSERT at the end of the batch
        deferred[0].update(documents)
        deferred[1].update(assignments)
        return
    _bump(session, documents, assignments)


@contextmanager
def deferred_marks(session: Session):
    """Batch commands (``adjudicate auto``) flush thousands of times; bump the touched
    documents' ``changes`` once when the block ends instead of once per flush. Still
    inside the caller's transaction, so nothing commits unmarked. On an exception the
    marks are written too (whoever catches it may still commit)."""
    if _DEFERRED in session.info:  # nested: the outer block marks
        yield
        return
    session.info[_DEFERRED] = (set(), set())
    try:
        yield
    finally:
        session.flush()  # pending changes are recorded while still deferred
        documents, assignments = session.info.pop(_DEFERRED)
        if documents or assignments:
            _bump(session, documents, assignments)


def settle(session: Session, document_ids: list[int]) -> None:
    """For batch runs, inside :func:`deferred_marks` and ``batch_reads``: mark these
    documents changed and recompute their entries now, while their reads are still
    memoised, instead of reading everything again when the run commits."""
    session.flush()
    deferred = session.info.get(_DEFERRED)
    if deferred is not None:
        deferred[0].difference_update(document_ids)
    mark_changed(session.connection(), sorted(document_ids))
    _recompute_chunk(session, _stale_entries(
        session, AdjudicationQueueEntry.document_id.in_(sorted(document_ids))))


def _bump(session: Session, documents: set, assignments: set) -> None:
    connection = session.connection()
    if assignments:
        documents |= set(connection.scalars(select(Assignment.document_id).where(
            Assignment.id.in_(sorted(assignments)))))
    if documents:
        mark_changed(connection, sorted(documents))
        session.info.setdefault(_TO_REFRESH, set()).update(documents)


def _refresh_marked(session: Session) -> None:
    """``before_commit``: recompute the entries this transaction marked, so the queue is
    current the moment the change is visible. The entry is derived data: if computing it
    fails, the change still commits, the entry stays stale (the queue page counts it) and
    the error is logged."""
    for _ in range(3):  # recomputing reads only; a second round is a safety margin
        session.flush()
        documents = session.info.pop(_TO_REFRESH, None)
        if not documents:
            return
        try:
            _recompute(session, _stale_entries(
                session, AdjudicationQueueEntry.document_id.in_(sorted(documents))))
        except Exception:  # noqa: BLE001 - derived data must not cost the user's save
            log.exception("adjudication queue: recomputing documents %s failed; left stale",
                          sorted(documents))
            return


def _forget_marks(session: Session) -> None:
    for key in ("queue_documents", "queue_assignments", _TO_REFRESH):
        session.info.pop(key, None)


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


class QueueKeepingSession(Session):
    """The project's session: its flushes mark the queue entries of the documents they
    touch and its commit recomputes them (module docstring).

    The hooks sit on this class alone, never on SQLAlchemy's ``Session``: other sessions in
    the process (Alembic's, a library's) run no adjudication code. They are hooks rather
    than a call in every service because the queue is derived from eight tables written
    in some thirty places (saves, imports, pulls, bulk status changes, decisions,
    tie-breaks); a service that forgot the call would leave the queue wrong without a
    trace, while a flush cannot. What a flush cannot see, a change of the project's schema,
    is a named call: :func:`project_changed`."""


event.listen(QueueKeepingSession, "before_flush", _touched)
event.listen(QueueKeepingSession, "after_flush", _mark)
event.listen(QueueKeepingSession, "before_commit", _refresh_marked)
event.listen(QueueKeepingSession, "after_rollback", _forget_marks)


def project_changed(session: Session, project_id: int) -> int:
    """Mark every queue entry of the project changed (recomputed when the transaction
    commits): the entries depend on the project's schema (its fields decide what is
    disputed), which no flush of an annotation shows. Returns how many were marked."""
    documents = sorted(session.scalars(select(Document.id).where(
        Document.project_id == project_id)))
    _bump(session, set(documents), set())
    return len(documents)


def _bars(names) -> str:
    return "|" + "".join(f"{n}|" for n in names)


def refresh_stale(session: Session, project_id: int | None = None) -> int:
    """Recompute the stale entries (of one project, or all); returns how many. A write
    command's job (run after schema upgrades), never a page view's."""
    stale = _stale_entries(session, *(() if project_id is None else (
        AdjudicationQueueEntry.project_id == project_id,)))
    _recompute(session, stale)
    return len(stale)


def _stale_entries(session: Session, *where) -> list:
    """``(document_id, changes)`` of the stale entries matching ``where``."""
    return session.execute(select(
        AdjudicationQueueEntry.document_id, AdjudicationQueueEntry.changes).where(
        AdjudicationQueueEntry.stale.is_(True), *where)).all()


# Imports inside functions: the entry's computation (units and agreement, with numpy)
# loads the first time an entry is recomputed, not in every command that opens a database
# (db.py imports this module for the session class; a document import recomputes nothing:
# a third of `annotator import`'s start-up, benchmarks/bench_import_labelstudio.py).
def document_entry(session: Session, document: Document):
    """:func:`annotator.adjudication.overview.document_entry`, loaded on first use."""
    from annotator.adjudication.overview import document_entry as compute

    return compute(session, document)


def _recompute(session: Session, stale) -> None:
    """Recompute ``(document_id, changes)`` entries, the reads of 100 documents at a time."""
    stale = list(stale)
    if not stale:
        return  # the usual start-up: nothing loaded
    # Imports inside functions: see document_entry above.
    from annotator.adjudication.store import (
        batch_reads,
        preload_original_assignments,
        ready_documents,
    )

    for start in range(0, len(stale), 100):
        chunk = stale[start:start + 100]
        # A document not ready has no entry to compute: its work is not read at all.
        ready = ready_documents(session, [d for d, _ in chunk])
        with batch_reads(session):  # an entry's parts read the same assignments
            preload_original_assignments(session, sorted(ready))
            _recompute_chunk(session, chunk, ready)


def _recompute_chunk(session: Session, stale, ready: set[int] | None = None) -> None:
    """Store the entries of ``stale``; ``ready``: the documents known ready (the others
    get no entry without computing one), None: compute every entry."""
    for document_id, changes in stale:
        document = session.get(Document, document_id)
        entry = document_entry(session, document) if ready is None or \
            document_id in ready else None
        values = {"computed": changes, "stale": False, "ready": entry is not None,
                  "position": document.position}
        if entry is not None:
            values.update(complete=entry.status == "complete", agreement=entry.agreement,
                          open_total=entry.open["total"], open_summary=entry.open["summary"],
                          annotators=_bars(entry.annotators),
                          disputed=_bars(entry.fields_in_dispute))
        session.execute(update(AdjudicationQueueEntry).where(
            AdjudicationQueueEntry.document_id == document_id,
            AdjudicationQueueEntry.changes == changes).values(**values)
            .execution_options(synchronize_session=False))


@dataclass
class QueuePage:
    entries: list
    total: int
    page: int
    pages: int
    stale: int  # entries whose document changed and whose recomputation has not happened


def stored_queue(session: Session, project_id: int, *, field_name: str | None = None,
                 pair: tuple[str, str] | None = None, page: int = 1) -> QueuePage:
    """One page of the ready documents, open before adjudicated, least agreement first.
    Reads only (see the module docstring)."""
    q = AdjudicationQueueEntry
    where = [q.project_id == project_id, q.ready.is_(True)]
    if field_name:
        where.append(q.disputed.contains(f"|{field_name}|", autoescape=True))
    for name in pair or ():
        where.append(q.annotators.contains(f"|{name}|", autoescape=True))
    total = session.scalar(select(func.count()).select_from(q).where(*where)) or 0
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(max(1, page), pages)
    rows = session.execute(
        select(q, Document.external_id).join(Document, Document.id == q.document_id)
        .where(*where).order_by(q.complete, q.agreement, q.position, q.document_id)
        .offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)).all()
    entries = [SimpleNamespace(
        document=SimpleNamespace(id=row.document_id, external_id=external_id),
        annotators=[n for n in row.annotators.split("|") if n],
        agreement=row.agreement,
        open={"total": row.open_total, "summary": row.open_summary},
        fields_in_dispute=[n for n in row.disputed.split("|") if n],
        status="complete" if row.complete else "open") for row, external_id in rows]
    stale = session.scalar(select(func.count()).select_from(q).where(
        q.project_id == project_id, q.stale.is_(True))) or 0
    return QueuePage(entries, total, page, pages, stale)


def next_open(session: Session, project_id: int, after_document_id: int) -> int | None:
    """The document the lead adjudicates next ("Next in queue"): the first open, ready
    entry in the queue's own order (least agreement first), other than the one just
    finished. Reads only."""
    q = AdjudicationQueueEntry
    return session.scalar(
        select(q.document_id).where(q.project_id == project_id, q.ready.is_(True),
                                    q.complete.is_(False), q.document_id != after_document_id)
        .order_by(q.agreement, q.position, q.document_id).limit(1))

