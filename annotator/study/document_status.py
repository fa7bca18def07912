"""A document's data-manager status, stored with its adjudication queue entry, and the
per-project counts of statuses (issue 44: the data manager flat at 1,000,000 documents).

A document's status follows the data flow: 'unassigned' (nobody holds it), 'not started',
'in progress', 'skipped' (every original annotator skipped it), 'partly skipped' (every
original annotator is done or skipped it, at least one skipped), 'ready' (every original
annotator marked it done: waiting for adjudication) and 'adjudicated'. Tie-break
assignments (a third annotator rating disputed items) do not count towards the status.

Where it is kept (the bookkeeping is here, on the study floor, so that the writers below
adjudication call it directly; what a ready document's row shows is
:mod:`annotator.adjudication.document_status`):

- every document has a queue entry from the moment it is stored, as 'unassigned'
  (:func:`add_entries`, called by whoever stores documents: the importer's bulk insert,
  the direct SQLite import writes the same rows), so the data manager reads entries only;
- the queue's recomputation of an entry (:mod:`annotator.adjudication.queue`, whenever the
  document's assignments, edits, ratings or decisions change) stores the row with it and
  adds the change of status to ``project_status_counts`` (:func:`add_to_counts`:
  ``documents = documents + delta``, so that concurrent changes add up; the rows of one
  transaction are updated in one order, so two cannot deadlock on them);
- deleting documents takes their statuses off the counts first (:func:`remove_entries`);
- a time heartbeat, an atomic UPDATE no flush sees, adds its credit (:func:`add_seconds`).
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import func, insert, literal, select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from annotator.models import (
    AdjudicationQueueEntry,
    Document,
    ProjectStatusCount,
)
from annotator.study.entry_row import NEW_ENTRY

STATUSES = ("unassigned", "not started", "in progress", "skipped", "partly skipped", "ready",
            "adjudicated")
SCORED = ("ready", "adjudicated")  # the statuses whose row shows agreement and open decisions


def status_of(original_statuses: list[str], adjudication: str | None) -> str:
    """The status of :data:`STATUSES` from the original (non tie-break) assignments'
    statuses and the adjudication state, in the order the rules are checked."""
    if adjudication == "complete":
        return "adjudicated"
    if not original_statuses:
        return "unassigned"
    if all(s == "done" for s in original_statuses):
        return "ready"
    if all(s == "assigned" for s in original_statuses):
        return "not started"
    if all(s == "skipped" for s in original_statuses):
        return "skipped"
    if all(s in ("done", "skipped") for s in original_statuses):
        return "partly skipped"
    return "in progress"


def add_to_counts(connection, deltas: Counter) -> None:
    """Add ``{(project_id, status): delta}`` to the stored counts, in one order."""
    table = ProjectStatusCount.__table__
    upsert = sqlite_insert
    if connection.dialect.name == "postgresql":
        # Imported here: loaded already where PostgreSQL runs (as in queue.mark_changed).
        from sqlalchemy.dialects.postgresql import insert as upsert
    for (project_id, status), delta in sorted(deltas.items()):
        if delta:
            connection.execute(upsert(table).values(
                project_id=project_id, status=status, documents=delta).on_conflict_do_update(
                index_elements=["project_id", "status"],
                set_={"documents": table.c.documents + delta}))


def add_seconds(connection, document_id: int, delta: float) -> None:
    """Add a time heartbeat's credit to the document's stored time: the heartbeat is an
    atomic UPDATE of the assignment that no flush sees, so the queue does not recompute
    the entry for it (``seconds = seconds + delta``: concurrent heartbeats add up)."""
    if delta:
        queue = AdjudicationQueueEntry.__table__
        connection.execute(queue.update().where(queue.c.document_id == document_id).values(
            seconds=queue.c.seconds + delta))


def add_entries(connection, project_id: int, document_ids: list[int]) -> None:
    """New documents of a project: an 'unassigned' queue entry each, counted."""
    queue = AdjudicationQueueEntry.__table__
    columns = {"document_id": Document.id, "project_id": Document.project_id,
               "position": Document.position,
               **{name: literal(value) for name, value in NEW_ENTRY.items()}}
    for start in range(0, len(document_ids), 500):
        chunk = document_ids[start:start + 500]
        connection.execute(insert(queue).from_select(list(columns), select(
            *(c.label(name) for name, c in columns.items())).where(Document.id.in_(chunk))))
    add_to_counts(connection, Counter({(project_id, "unassigned"): len(document_ids)}))


def remove_entries(connection, document_ids: list[int]) -> None:
    """Take these documents' statuses off the counts (before they are deleted; their
    entries go with them)."""
    queue = AdjudicationQueueEntry.__table__
    deltas: Counter = Counter()
    for start in range(0, len(document_ids), 500):
        for project_id, status, count in connection.execute(
                select(queue.c.project_id, queue.c.status, func.count())
                .where(queue.c.document_id.in_(document_ids[start:start + 500]))
                .group_by(queue.c.project_id, queue.c.status)):
            deltas[(project_id, status)] -= count
    add_to_counts(connection, deltas)
