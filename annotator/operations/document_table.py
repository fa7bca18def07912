"""The lead's data manager: one row per document of a project (status, annotators,
agreement, open decisions, time), with search, filters and sort, in the spirit of Label
Studio's data manager.

A document's status follows the data flow: 'unassigned' (nobody holds it), 'not started',
'in progress', 'ready' (every original annotator marked it done: waiting for adjudication)
and 'adjudicated'; 'skipped' when every original annotator skipped it, 'partly skipped'
when every one finished it but some skipped it (adjudication waits for every original
annotator to mark it done, :func:`annotator.adjudication.store.is_ready`: a lead reopens or
reassigns it). Agreement and open decisions come from the stored adjudication queue
(each entry is :func:`annotator.adjudication.overview.document_entry`), so both pages agree.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication.store import tiebreak_assignment_ids
from annotator.models import (
    AdjudicationQueueEntry,
    AdjudicationState,
    Assignment,
    Document,
    Project,
    User,
)

STATUSES = ("unassigned", "not started", "in progress", "skipped", "partly skipped", "ready",
            "adjudicated")
SORTS = ("position", "document", "status", "annotators", "agreement", "open", "time")


@dataclass
class DocumentRow:
    document: Document
    status: str
    holders: list[dict] = field(default_factory=list)  # {username, status, assignment_id}
    agreement: float | None = None
    open_decisions: int | None = None
    seconds: float = 0.0

    @property
    def annotators(self) -> list[str]:
        return [h["username"] for h in self.holders]


def _status(holders: list[dict], adjudication: str | None) -> str:
    if adjudication == "complete":
        return "adjudicated"
    originals = [h for h in holders if not h["tiebreak"]]
    if not originals:
        return "unassigned"
    if all(h["status"] == "done" for h in originals):
        return "ready"
    if all(h["status"] == "assigned" for h in originals):
        return "not started"
    if all(h["status"] == "skipped" for h in originals):
        return "skipped"
    if all(h["status"] in ("done", "skipped") for h in originals):
        return "partly skipped"
    return "in progress"


def document_rows(session: Session, project: Project) -> list[DocumentRow]:
    """Every document of the project with its row (document order), without the scores
    (see :func:`add_scores`)."""
    documents = session.scalars(select(Document).where(Document.project_id == project.id)
                                .order_by(Document.position, Document.id)).all()
    holders: dict[int, list[dict]] = defaultdict(list)
    seconds: dict[int, float] = defaultdict(float)
    rows = session.execute(
        select(Assignment.document_id, Assignment.id, Assignment.status,
               Assignment.seconds_spent, User.username)
        .join(User, User.id == Assignment.user_id).join(Document)
        .where(Document.project_id == project.id).order_by(User.username)).all()
    tiebreaks = tiebreak_assignment_ids(session, [d.id for d in documents]) if rows else set()
    for document_id, assignment_id, status, spent, username in rows:
        holders[document_id].append({"username": username, "status": status,
                                     "assignment_id": assignment_id,
                                     "tiebreak": assignment_id in tiebreaks})
        seconds[document_id] += float(spent or 0.0)
    adjudication = dict(session.execute(
        select(AdjudicationState.document_id, AdjudicationState.status).join(Document)
        .where(Document.project_id == project.id)).all())
    return [DocumentRow(document=document,
                        status=_status(holders[document.id], adjudication.get(document.id)),
                        holders=holders[document.id], seconds=seconds[document.id])
            for document in documents]


def add_scores(session: Session, project: Project, rows: list[DocumentRow]) -> None:
    """Fill agreement and open decisions of the ready and adjudicated rows from the stored
    adjudication queue (:mod:`annotator.adjudication.queue`, kept current by every write),
    the one computation the queue page and ``annotator adjudicate status`` read too. An
    entry left stale (a failed recomputation) shows no figure until it is recomputed; the
    queue page counts such entries."""
    wanted = {r.document.id: r for r in rows if r.status in ("ready", "adjudicated")}
    if not wanted:
        return
    stored = session.execute(select(
        AdjudicationQueueEntry.document_id, AdjudicationQueueEntry.agreement,
        AdjudicationQueueEntry.open_total).where(
        AdjudicationQueueEntry.project_id == project.id, AdjudicationQueueEntry.ready.is_(True),
        AdjudicationQueueEntry.stale.is_(False))).all()
    for document_id, agreement, open_total in stored:
        if document_id in wanted:
            wanted[document_id].agreement = agreement
            wanted[document_id].open_decisions = open_total


def select_rows(rows: list[DocumentRow], *, search: str = "", status: str = "",
                annotator: str = "", sort: str = "position",
                descending: bool = False) -> list[DocumentRow]:
    """Search (document id or either text, case-insensitive), filter, sort. Rows without a
    value for the sort column (agreement before anyone finished) come last either way."""
    needle = search.strip().casefold()
    if needle:
        rows = [r for r in rows if needle in r.document.external_id.casefold()
                or needle in r.document.source.casefold() or needle in r.document.target.casefold()]
    if status:
        rows = [r for r in rows if r.status == status]
    if annotator:
        rows = [r for r in rows if annotator in r.annotators]
    keys = {
        "position": lambda r: (r.document.position, r.document.id),
        "document": lambda r: r.document.external_id.casefold(),
        "status": lambda r: STATUSES.index(r.status),
        "annotators": lambda r: ", ".join(r.annotators),
        "agreement": lambda r: r.agreement,
        "open": lambda r: r.open_decisions,
        "time": lambda r: r.seconds,
    }
    key = keys.get(sort, keys["position"])
    present = [r for r in rows if key(r) is not None]
    missing = [r for r in rows if key(r) is None]
    return sorted(present, key=key, reverse=descending) + missing
