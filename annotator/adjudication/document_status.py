"""What a document's stored data-manager row shows (issue 44): its status, holders and time,
and for a ready or adjudicated document the agreement and open decisions of its queue entry.
The bookkeeping (statuses, counts, entries of new documents) is
:mod:`annotator.study.document_status`; the queue's recomputation calls :func:`table_values`.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication.store import tiebreak_assignment_ids
from annotator.models import AdjudicationState, Assignment, Document, User
from annotator.study.document_status import SCORED, status_of


def table_values(session: Session, document: Document, entry) -> dict:
    """The stored row of ``document``: status, holders, seconds, and the agreement and
    open decisions shown (those of its queue ``entry``, when it is ready or adjudicated).
    ``entry`` is :func:`annotator.adjudication.overview.document_entry`'s result."""
    # Statuses only: the original assignments' work (edits, spans, ratings) is not read,
    # so a save on a document still annotated costs no more than its status (issue 44).
    excluded = tiebreak_assignment_ids(session, [document.id])
    originals = [status for held, status in session.execute(
        select(Assignment.id, Assignment.status).where(
            Assignment.document_id == document.id)) if held not in excluded]
    if entry is not None:
        adjudication = "complete" if entry.status == "complete" else None
    else:
        adjudication = session.scalar(select(AdjudicationState.status).where(
            AdjudicationState.document_id == document.id))
    holders = session.execute(
        select(User.username, Assignment.seconds_spent).join(User, User.id == Assignment.user_id)
        .where(Assignment.document_id == document.id)).all()
    status = status_of(originals, adjudication)
    scored = entry is not None and status in SCORED
    return {"status": status, "holders": ", ".join(sorted(name for name, _ in holders)),
            "seconds": sum(float(spent or 0.0) for _, spent in holders),
            "shown_agreement": entry.agreement if scored else None,
            "shown_open": entry.open["total"] if scored else None}
