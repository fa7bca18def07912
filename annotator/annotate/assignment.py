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

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.models import Assignment, Document, Project, ProjectMember, User
from annotator.study import audit
from annotator.study.projects import add_member


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

    held: dict[int, set[int]] = {}
    load: Counter[int] = Counter()
    rows = session.execute(
        select(Assignment.document_id, Assignment.user_id).join(Document).where(
            Document.project_id == project.id)
    )
    for document_id, assignee in rows:
        held.setdefault(document_id, set()).add(assignee)
        load[assignee] += 1

    order = {user.id: i for i, user in enumerate(pool)}
    created = 0
    documents = session.scalars(
        select(Document.id).where(Document.project_id == project.id)
        .order_by(Document.position, Document.id)
    )
    for document_id in documents:
        assignees = held.setdefault(document_id, set())
        missing = per_document - len(assignees)
        if missing <= 0:
            continue
        candidates = sorted(
            (u for u in pool if u.id not in assignees), key=lambda u: (load[u.id], order[u.id])
        )
        for user in candidates[:missing]:
            session.add(Assignment(document_id=document_id, user_id=user.id))
            assignees.add(user.id)
            load[user.id] += 1
            created += 1
    session.flush()
    audit.record(session, "documents.assigned", user_id=user_id, project_id=project.id,
                 object_type="project", object_id=project.id, created=created)
    return AssignmentSummary(created=created, load=project_load(session, project))


def project_load(session: Session, project: Project) -> dict[str, int]:
    rows = session.execute(
        select(User.username, func.count(Assignment.id))
        .join(Assignment, Assignment.user_id == User.id)
        .join(Document, Document.id == Assignment.document_id)
        .where(Document.project_id == project.id)
        .group_by(User.username).order_by(User.username)
    )
    return {name: count for name, count in rows}
