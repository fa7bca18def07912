"""The adjudication queue, stored and updated incrementally.

Computing a document's queue entry (units, agreement, open decisions) takes milliseconds;
computing all of them on every page view took 155 s at 100k documents. So:

1. every writer of a document's assignments, edits, ratings, decisions, gold or tie-break
   requests calls :func:`annotator.study.queue_marks.document_changed`: the entry's
   ``changes`` counter is bumped in the same transaction (batch commands wrap their loop
   in ``deferred_marks`` for one UPSERT per run, still inside the transaction);
2. right before the transaction commits, the caller's commit helper (one per kind of
   caller: ``web.commits.commit_work`` for the pages, ``operations.work.session`` for
   commands and workers) calls :func:`settle`, which recomputes the entries marked (a
   handful after each action; a whole batch run's documents once at its end), each
   written with ``WHERE changes = <value read>`` so that a change committed meanwhile
   keeps the entry stale instead of being overwritten;
3. the page only reads: one page of ready entries in order from an index. Reads never
   write; an entry left stale (its recomputation failed, a caller committed without
   settling, or a migration created it) is counted on the page and recomputed by the next
   settled change of its document or by :func:`refresh_stale` (a ``queue-refresh`` job,
   ``annotator adjudicate refresh-queue``, and every schema upgrade run by a command).

Explicit calls rather than Session hooks (issue 45): what a save does is visible where it
is saved, and no other session in the process runs adjudication code.

The entry itself is :func:`annotator.adjudication.overview.document_entry` (unchanged).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from annotator.adjudication.document_status import table_values
from annotator.models import AdjudicationQueueEntry, Document
from annotator.study.document_status import add_to_counts
from annotator.study.queue_marks import DEFERRED, document_changed, mark_changed, take_marked

log = logging.getLogger(__name__)

PAGE_SIZE = 100


def settle_documents(session: Session, document_ids: list[int]) -> None:
    """For batch runs, inside ``deferred_marks`` and ``batch_reads``: mark these
    documents changed and recompute their entries now, while their reads are still
    memoised, instead of reading everything again when the run commits."""
    session.flush()
    deferred = session.info.get(DEFERRED)
    if deferred is not None:
        deferred.difference_update(document_ids)
    mark_changed(session.connection(), sorted(document_ids))
    _recompute_chunk(session, _stale_entries(
        session, AdjudicationQueueEntry.document_id.in_(sorted(document_ids))))


def settle(session: Session) -> None:
    """Right before commit (the commit helpers call it): recompute the entries this
    transaction marked, so the queue is current the moment the change is visible. The
    entry is derived data: if computing it fails, the change still commits, the entry stays
    stale (the queue page counts it) and the error is logged."""
    for _ in range(3):  # recomputing reads only; a second round is a safety margin
        session.flush()
        documents = take_marked(session)
        if not documents:
            return
        try:
            _recompute(session, _stale_entries(
                session, AdjudicationQueueEntry.document_id.in_(sorted(documents))))
        except Exception:  # noqa: BLE001 - derived data must not cost the user's save
            log.exception("adjudication queue: recomputing documents %s failed; left stale",
                          sorted(documents))
            return


def project_changed(session: Session, project_id: int) -> int:
    """Mark every queue entry of the project changed (recomputed when the caller settles):
    the entries depend on the project's schema (its fields decide what is disputed), which
    no annotation write shows. Returns how many were marked."""
    documents = sorted(session.scalars(select(Document.id).where(
        Document.project_id == project_id)))
    document_changed(session, *documents)
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
# (the commit helpers import this module; a document import recomputes nothing: a third
# of `annotator import`'s start-up, benchmarks/bench_import_labelstudio.py).
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
    """Write each entry of ``stale`` and the data manager's row with it (document_status);
    ``ready``: the documents known ready (the others get no adjudication entry without
    computing one), None: compute every entry. A changed status moves the document between
    the project's stored counts. The write is conditional on the ``changes`` and the status
    read: a change committed meanwhile, or a concurrent recomputation that already moved
    the status, makes it match no row, so a status change is counted exactly once."""
    q = AdjudicationQueueEntry
    deltas: Counter = Counter()
    for document_id, changes in stale:
        document = session.get(Document, document_id)
        entry = document_entry(session, document) if ready is None or \
            document_id in ready else None
        values = {"computed": changes, "stale": False, "ready": entry is not None,
                  "position": document.position, **table_values(session, document, entry)}
        if entry is not None:
            values.update(complete=entry.status == "complete", agreement=entry.agreement,
                          open_total=entry.open["total"], open_summary=entry.open["summary"],
                          annotators=_bars(entry.annotators),
                          disputed=_bars(entry.fields_in_dispute))
        old = session.scalar(select(q.status).where(q.document_id == document_id))
        written = session.execute(update(q).where(
            q.document_id == document_id, q.changes == changes, q.status == old)
            .values(**values).execution_options(synchronize_session=False)).rowcount
        if written and old != values["status"]:
            deltas[(document.project_id, old)] -= 1
            deltas[(document.project_id, values["status"])] += 1
    add_to_counts(session.connection(), deltas)


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

