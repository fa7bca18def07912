"""Which document an annotator works on next: the first of their to-do assignments in
document order, after the one just finished (wrapping round to the start of the project)."""

from __future__ import annotations

from sqlalchemy import and_, or_, select, true
from sqlalchemy.orm import Session

from annotator.models import Assignment, Document

# The statuses that still ask for the annotator's work ("to do" on My documents).
TO_DO = ("assigned", "in_progress")


def next_to_do(session: Session, user_id: int, project_id: int | None = None,
               after: Assignment | None = None) -> int | None:
    """The id of the user's next to-do assignment (in ``project_id`` if given), in the
    order My documents lists them; with ``after``, the first one past that assignment's
    document (else the first one before it), never ``after`` itself. None when nothing is
    left."""
    query = (select(Assignment.id).join(Document)
             .where(Assignment.user_id == user_id, Assignment.status.in_(TO_DO))
             .where(Document.project_id == project_id if project_id else true())
             .order_by(Document.project_id, Document.position, Document.id).limit(1))
    if after is None:
        return session.scalar(query)
    doc = after.document
    query = query.where(Assignment.id != after.id)
    later = or_(Document.position > doc.position,
                and_(Document.position == doc.position, Document.id > doc.id))
    return session.scalar(query.where(later)) or session.scalar(query)
