"""Bulk changes a lead makes to chosen documents from the data manager: give them to an
annotator, move a not-yet-started assignment to someone else, or reopen finished ones.

Each action checks every chosen document first and changes nothing when one of them is
refused (the message names each refused document and why); an audit event records what
was done.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.annotate.assignment import AssignmentError, annotator_pool
from annotator.annotate.store import adjudication_started, set_status
from annotator.models import Assignment, Document, Project
from annotator.study import audit
from annotator.study.projects import add_member
from annotator.study.queue_marks import document_changed


class BulkError(ValueError):
    pass


def chosen_documents(session: Session, project: Project, document_ids: list[int]) -> list[Document]:
    """The chosen documents, all of this project (an id from elsewhere is refused)."""
    if not document_ids:
        raise BulkError("no document chosen: tick one or more documents first")
    documents = session.scalars(select(Document).where(
        Document.id.in_(document_ids), Document.project_id == project.id)
        .order_by(Document.position, Document.id)).all()
    unknown = sorted(set(document_ids) - {d.id for d in documents})
    if unknown:
        raise BulkError(f"document id(s) {', '.join(map(str, unknown))} are not in project "
                        f"{project.name}")
    return list(documents)


def _annotator(session: Session, project: Project, username: str):
    try:
        (user,) = annotator_pool(session, project, [username.strip()])
    except AssignmentError as exc:
        raise BulkError(str(exc)) from None
    return user


def _holding(document: Document, user_id: int) -> Assignment | None:
    return next((a for a in document.assignments if a.user_id == user_id), None)


def _refuse(problems: list[str], what: str) -> None:
    if problems:
        shown = "; ".join(problems[:20]) + (f"; and {len(problems) - 20} more"
                                             if len(problems) > 20 else "")
        raise BulkError(f"{what} refused, nothing changed: {shown}")


def assign_to(session: Session, project: Project, document_ids: list[int], username: str,
              *, user_id: int | None = None) -> int:
    """Give each chosen document to `username` as well (an extra annotator)."""
    documents = chosen_documents(session, project, document_ids)
    user = _annotator(session, project, username)
    _refuse([f"{d.external_id}: {user.username} holds it already" for d in documents
             if _holding(d, user.id)], "assign")
    add_member(session, project, user, "annotator")
    for d in documents:
        session.add(Assignment(document_id=d.id, user_id=user.id))
    session.flush()
    document_changed(session, *(d.id for d in documents))
    audit.record(session, "documents.assigned", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, created=len(documents),
                 to=user.username, documents=[d.external_id for d in documents])
    return len(documents)


def reassign(session: Session, project: Project, document_ids: list[int], from_username: str,
             to_username: str, *, user_id: int | None = None) -> int:
    """Move `from_username`'s assignment of each chosen document to `to_username`. Only
    assignments nobody started move: started work stays with the person who did it."""
    documents = chosen_documents(session, project, document_ids)
    source = _annotator(session, project, from_username)
    target = _annotator(session, project, to_username)
    if source.id == target.id:
        raise BulkError("reassign: choose two different annotators")
    problems, moving = [], []
    for d in documents:
        held = _holding(d, source.id)
        if held is None:
            problems.append(f"{d.external_id}: {source.username} does not hold it")
        elif held.status != "assigned" or held.edits or held.ratings or held.seconds_spent:
            problems.append(f"{d.external_id}: {source.username} has started it "
                            f"({held.status.replace('_', ' ')})")
        elif _holding(d, target.id):
            problems.append(f"{d.external_id}: {target.username} holds it already")
        else:
            moving.append(held)
    _refuse(problems, "reassign")
    add_member(session, project, target, "annotator")
    for held in moving:
        held.user_id = target.id
    session.flush()
    document_changed(session, *(held.document_id for held in moving))
    audit.record(session, "documents.reassigned", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, moved=len(moving),
                 before=source.username, after=target.username,
                 documents=[d.external_id for d in documents])
    return len(moving)


def reopen(session: Session, project: Project, document_ids: list[int], *,
           username: str = "", user_id: int | None = None) -> int:
    """Give finished documents back to their annotators (done → in progress), for everyone
    or only `username`."""
    documents = chosen_documents(session, project, document_ids)
    user = _annotator(session, project, username) if username.strip() else None
    done = [a for d in documents for a in d.assignments
            if a.status == "done" and (user is None or a.user_id == user.id)]
    if not done:
        raise BulkError("reopen: none of the chosen documents is done"
                        + (f" by {user.username}" if user else ""))
    frozen = sorted({a.document.external_id for a in done
                     if adjudication_started(session, a.document_id)})
    if frozen:
        raise BulkError("reopen: adjudication has started on " + ", ".join(frozen)
                        + ": the annotators' work there is frozen (gold points at it); "
                        "nothing was reopened")
    for a in done:
        set_status(session, a, "in_progress", a.version, user_id)
    return len(done)
