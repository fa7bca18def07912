"""A project's pre-highlighting as chunks of documents that any worker claims (issue 44).

One ``prehighlight`` job per project ran every document on one worker (~1 document/s on a
busy 2-core machine: a 100,000-document import took days while a second worker idled).
Now the work is queued as jobs of at most :data:`CHUNK_DOCUMENTS` documents each, their ids
listed in the payload (``{"document_ids": [...]}``); chunks of one project run side by side
(:mod:`annotator.study.jobs`), so K workers give about K times the throughput, and a chunk
bounds how long a release waits for a busy worker.

Queued once: a document already in a waiting (queued or running) chunk is not queued
again, so a second import while chunks wait adds chunks for its new (or changed) documents
only. A waiting job without a list (queued by an older version) covers every document. A
document queued twice anyway (a chunk that failed, then the button) is stored once: the run
marks it before storing (:mod:`annotator.align.store`).
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.models import Document, Job
from annotator.study import jobs
from annotator.study.job_rows import (  # noqa: F401  (CHUNK_DOCUMENTS re-exported)
    CHUNK_DOCUMENTS,
    PREHIGHLIGHT,
    WAITING,
    prehighlight_chunks,
)

# The chunk size and the payloads: annotator.study.job_rows (shared with the direct import).
KIND = PREHIGHLIGHT


def waiting_document_ids(session: Session, project_id: int) -> set[int] | None:
    """The documents listed by the project's waiting chunks; None when a waiting job
    covers every document (a job without a list). An unreadable payload covers nothing
    (its job fails saying so)."""
    waiting = session.scalars(select(Job.id).where(
        Job.project_id == project_id, Job.kind == KIND, Job.state.in_(WAITING))).all()
    covered: set[int] = set()
    for payload in jobs.stored_json(session, Job.payload, waiting).values():
        if isinstance(payload, jobs.UnreadableJSON):
            continue
        ids = payload.get("document_ids")
        if ids is None:
            return None
        covered.update(i for i in ids if isinstance(i, int))
    return covered


def queue_prehighlight(session: Session, project_id: int, *, user_id: int | None = None,
                       chunk: int = CHUNK_DOCUMENTS) -> list[Job]:
    """Queue, in the caller's transaction, chunks of the project's documents not
    pre-highlighted and in no waiting chunk (id order, ``chunk`` at a time); the jobs
    queued (none: nothing left to queue)."""
    covered = waiting_document_ids(session, project_id)
    if covered is None:
        return []
    pending = [i for i in session.scalars(select(Document.id).where(
        Document.project_id == project_id, Document.prehighlighted_at.is_(None))
        .order_by(Document.id)) if i not in covered]
    return [jobs.enqueue(session, KIND, project_id, payload, key=key)
            for payload, key in prehighlight_chunks(pending, chunk=chunk, user_id=user_id)]


def chunk_counts(session: Session, project_id: int) -> dict[str, int]:
    """The project's pre-highlighting jobs (chunks) by state: ``{"queued", "running",
    "done", "failed"}``."""
    counts = dict.fromkeys(("queued", "running", "done", "failed"), 0)
    counts.update(session.execute(select(Job.state, func.count()).where(
        Job.project_id == project_id, Job.kind == KIND).group_by(Job.state)).all())
    return counts
