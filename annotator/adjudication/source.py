"""What adjudication starts from: the annotators' own assignments, edits and ratings.

The *original* assignments of a document are those given out for annotation; an assignment
created to break a tie (a :class:`TieBreakRequest` points at it) is not one of them, so a
third annotator's partial work never counts as a disagreement or as agreement input.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from annotator.adjudication.grouping import EditView
from annotator.core.serialise import edit_to_dict
from annotator.models import Assignment, Document, Edit, TieBreakRequest


def tiebreak_assignment_ids(session: Session, document_ids) -> set[int]:
    return set(session.scalars(select(TieBreakRequest.assignment_id).where(
        TieBreakRequest.document_id.in_(list(document_ids)))))


def original_assignments(session: Session, document: Document) -> list[Assignment]:
    excluded = tiebreak_assignment_ids(session, [document.id])
    rows = session.scalars(
        select(Assignment).where(Assignment.document_id == document.id)
        .options(selectinload(Assignment.edits).selectinload(Edit.spans),
                 selectinload(Assignment.ratings), selectinload(Assignment.user))
        .order_by(Assignment.id)).all()
    return [a for a in rows if a.id not in excluded]


def is_ready(assignments: list[Assignment]) -> bool:
    """Ready for adjudication: every original assignment is marked done (at least one)."""
    return bool(assignments) and all(a.status == "done" for a in assignments)


def source_edits(assignments: list[Assignment]) -> list[Edit]:
    return sorted((e for a in assignments for e in a.edits), key=lambda e: e.id)


def edit_view(edit: Edit) -> EditView:
    snapshot = edit_snapshot(edit)
    return EditView(id=edit.id, annotator=snapshot["annotator"], edit_type=edit.edit_type,
                    spans=tuple((s["side"], s["start"], s["end"]) for s in snapshot["spans"]),
                    fields=snapshot["fields"])


def edit_snapshot(edit: Edit) -> dict:
    """The annotator's edit as it was when decided on (kept in the decision's ``before``):
    the common serialisation plus who wrote it."""
    return {**edit_to_dict(edit), "annotator": edit.assignment.user.username}
