"""Giving each document to N annotators, balanced across the pool.

Greedy least-loaded assignment: documents are taken in import order and each goes to the
annotators who currently hold the fewest documents of this project (ties broken by pool
order), never to someone who already has it. Starting from nothing this keeps every
annotator's load within one document of every other's; re-running after new imports only
tops up what is missing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlalchemy import func, select, tuple_
from sqlalchemy.orm import Session

from annotator.models import Assignment, Document, Project, ProjectMember, User
from annotator.study import audit
from annotator.study.projects import add_member
from annotator.study.queue_marks import document_changed


class AssignmentError(ValueError):
    pass


@dataclass
class AssignmentSummary:
    created: int
    load: dict[str, int]  # username -> documents held in this project


def annotator_pool(session: Session, project: Project, usernames: list[str] | None = None):
    if usernames:
        users = []
        for name in usernames:
            user = session.scalar(select(User).where(User.username == name))
            if user is None or not user.active:
                raise AssignmentError(f"no active user named {name!r}")
            if user.role != "annotator":
                raise AssignmentError(f"{name!r} is a {user.role}, not an annotator")
            users.append(user)
        return users
    members = session.scalars(
        select(User).join(ProjectMember, ProjectMember.user_id == User.id).where(
            ProjectMember.project_id == project.id, ProjectMember.role == "annotator",
            User.active.is_(True),
        ).order_by(User.username)
    ).all()
    if members:
        return list(members)
    return list(session.scalars(
        select(User).where(User.role == "annotator", User.active.is_(True)).order_by(User.username)
    ))


def assign_documents(
    session: Session,
    project: Project,
    usernames: list[str] | None = None,
    *,
    per_document: int | None = None,
    user_id: int | None = None,
) -> AssignmentSummary:
    per_document = per_document or project.annotators_per_doc
    pool = annotator_pool(session, project, usernames)
    if len(pool) < per_document:
        raise AssignmentError(
            f"project {project.name!r} needs {per_document} annotators per document but the "
            f"pool has {len(pool)}; add annotators with `annotator user add NAME --role annotator`"
        )
    for user in pool:
        add_member(session, project, user, "annotator")

    # Streamed (issue 44: 100,000 documents took 1 GB held at once): the loads come from
    # one GROUP BY, the documents in batches of BATCH in import order (keyset on position,
    # id), each batch's holders with one query, and each batch's new assignments are
    # flushed and let go before the next.
    load: Counter[int] = Counter(dict(session.execute(
        select(Assignment.user_id, func.count(Assignment.id)).join(Document)
        .where(Document.project_id == project.id).group_by(Assignment.user_id)).all()))
    order = {user.id: i for i, user in enumerate(pool)}
    created = 0
    for batch in _document_batches(session, project.id):
        held: dict[int, set[int]] = {document_id: set() for document_id in batch}
        for document_id, assignee in session.execute(
                select(Assignment.document_id, Assignment.user_id).where(
                    Assignment.document_id.in_(batch))):
            held[document_id].add(assignee)
        made = []
        for document_id in batch:
            assignees = held[document_id]
            missing = per_document - len(assignees)
            if missing <= 0:
                continue
            candidates = sorted((u for u in pool if u.id not in assignees),
                                key=lambda u: (load[u.id], order[u.id]))
            for user in candidates[:missing]:
                made.append(Assignment(document_id=document_id, user_id=user.id))
                assignees.add(user.id)
                load[user.id] += 1
        session.add_all(made)
        session.flush()
        document_changed(session, *(a.document_id for a in made))
        for assignment in made:
            session.expunge(assignment)
        created += len(made)
    audit.record(session, "documents.assigned", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, created=created)
    return AssignmentSummary(created=created, load=project_load(session, project))


BATCH = 1000


def _document_batches(session: Session, project_id: int):
    """The project's document ids in import order (position, id), BATCH at a time."""
    after = None
    while True:
        query = select(Document.id, Document.position).where(Document.project_id == project_id)
        if after is not None:
            query = query.where(tuple_(Document.position, Document.id) > tuple_(*after))
        rows = session.execute(query.order_by(Document.position, Document.id)
                               .limit(BATCH)).all()
        if not rows:
            return
        yield [row.id for row in rows]
        after = tuple(rows[-1])[::-1]


def project_load(session: Session, project: Project) -> dict[str, int]:
    rows = session.execute(
        select(User.username, func.count(Assignment.id))
        .join(Assignment, Assignment.user_id == User.id)
        .join(Document, Document.id == Assignment.document_id)
        .where(Document.project_id == project.id)
        .group_by(User.username).order_by(User.username)
    )
    return {name: count for name, count in rows}
