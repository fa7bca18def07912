"""What the lead's project pages show, read in one place: the projects a lead sees with their
document counts, and one project's overview (progress per annotator, one page of documents
with who holds each, the live agreement summary). Plain data out; the web view
(:mod:`annotator.web.dashboard`) only renders it, so a page view's SQL lives beside the
other whole-study reads rather than in a Flask view."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.agreement.names import summary_rows
from annotator.agreement.store import live_summary
from annotator.annotate.modes import project_mode
from annotator.models import Assignment, Document, Project, ProjectMember, User
from annotator.schemas import Schema
from annotator.schemas.files import project_schema

PAGE_SIZE = 50  # documents per page of the overview


def lead_projects(session: Session, user: User) -> list[dict]:
    """``{"project", "documents"}`` per project the user leads (an admin: every project),
    by name."""
    query = select(Project).order_by(Project.name)
    if user.role != "admin":
        query = query.join(ProjectMember).where(
            ProjectMember.user_id == user.id, ProjectMember.role == "lead")
    projects = session.scalars(query).all()
    counts = dict(session.execute(
        select(Document.project_id, func.count(Document.id))
        .where(Document.project_id.in_([p.id for p in projects]))
        .group_by(Document.project_id)).all()) if projects else {}
    return [{"project": p, "documents": counts.get(p.id, 0)} for p in projects]


@dataclass
class ProjectOverview:
    """One page of a project's overview, as the template reads it."""

    schema: Schema
    total: int  # documents in the project
    page: int
    pages: int
    documents: list  # this page's documents, in project order
    holders: dict  # document id -> [{"username", "status", "assignment_id"}]
    progress: list[dict]  # per annotator (:func:`annotator_progress`)
    agreement: dict  # the live summary (annotator.agreement.store.live_summary)
    agreement_rows: list
    has_results: bool  # the mode has a results page


def project_overview(session: Session, project: Project, page: int = 1) -> ProjectOverview:
    total = session.scalar(
        select(func.count(Document.id)).where(Document.project_id == project.id)) or 0
    documents = session.scalars(
        select(Document).where(Document.project_id == project.id)
        .order_by(Document.position, Document.id)
        .offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)).all()
    holders: dict[int, list[dict]] = defaultdict(list)
    if documents:
        rows = session.execute(
            select(Assignment.document_id, User.username, Assignment.status, Assignment.id)
            .join(User, User.id == Assignment.user_id)
            .where(Assignment.document_id.in_([d.id for d in documents]))
            .order_by(User.username))
        for document_id, username, status, assignment_id in rows:
            holders[document_id].append(
                {"username": username, "status": status, "assignment_id": assignment_id})
    agreement = live_summary(session, project)
    return ProjectOverview(
        schema=project_schema(project), total=total, page=page,
        pages=max(1, -(-total // PAGE_SIZE)), documents=list(documents), holders=holders,
        progress=annotator_progress(session, project), agreement=agreement,
        agreement_rows=summary_rows(agreement),
        has_results=project_mode(project).has_results)


def annotator_progress(session: Session, project: Project) -> list[dict]:
    """Per annotator: documents held, by status, and time spent."""
    rows = session.execute(
        select(User.username, Assignment.status, func.count(Assignment.id),
               func.coalesce(func.sum(Assignment.seconds_spent), 0.0))
        .join(Assignment, Assignment.user_id == User.id)
        .join(Document, Document.id == Assignment.document_id)
        .where(Document.project_id == project.id)
        .group_by(User.username, Assignment.status)
    )
    table: dict[str, dict] = {}
    for username, status, count, seconds in rows:
        entry = table.setdefault(username, {"username": username, "assigned": 0,
                                            "in_progress": 0, "done": 0, "skipped": 0,
                                            "seconds": 0.0})
        entry[status] += count
        entry["seconds"] += float(seconds)
    for entry in table.values():
        entry["total"] = (entry["assigned"] + entry["in_progress"] + entry["done"]
                          + entry["skipped"])
        entry["percent_done"] = round(100 * entry["done"] / entry["total"]) if entry["total"] else 0
    return sorted(table.values(), key=lambda e: e["username"])
