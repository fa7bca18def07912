"""The lead's side: projects, their progress per annotator and their agreement (a summary
on the project page, the full readable report at ``/projects/<id>/agreement``)."""

from __future__ import annotations

from collections import defaultdict

from flask import Blueprint, render_template
from sqlalchemy import func, select

from annotator.agreement.names import summary_rows
from annotator.agreement.store import bootstrap_settings, live_summary
from annotator.annotate.modes import project_mode
from annotator.models import Assignment, Document, Project, ProjectMember, User
from annotator.operations.agreement_report import report_page
from annotator.schemas.files import project_schema
from annotator.web.access import db, lead_required, load_user, project_for_lead

bp = Blueprint("dashboard", __name__, url_prefix="/projects")
PAGE_SIZE = 50


@bp.route("/")
@lead_required
def projects():
    user = load_user()
    query = select(Project).order_by(Project.name)
    if user.role != "admin":
        query = query.join(ProjectMember).where(
            ProjectMember.user_id == user.id, ProjectMember.role == "lead")
    projects = db().scalars(query).all()
    counts = dict(db().execute(
        select(Document.project_id, func.count(Document.id))
        .where(Document.project_id.in_([p.id for p in projects]))
        .group_by(Document.project_id)).all()) if projects else {}
    rows = [{"project": p, "documents": counts.get(p.id, 0)} for p in projects]
    return render_template("projects.html", rows=rows)


@bp.route("/<int:project_id>")
@bp.route("/<int:project_id>/page/<int:page>")
@lead_required
def overview(project_id: int, page: int = 1):
    project = project_for_lead(project_id)
    progress = annotator_progress(project)
    total = db().scalar(select(func.count(Document.id)).where(Document.project_id == project.id))
    documents = db().scalars(
        select(Document).where(Document.project_id == project.id)
        .order_by(Document.position, Document.id)
        .offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)
    ).all()
    holders = defaultdict(list)
    if documents:
        rows = db().execute(
            select(Assignment.document_id, User.username, Assignment.status, Assignment.id)
            .join(User, User.id == Assignment.user_id)
            .where(Assignment.document_id.in_([d.id for d in documents]))
            .order_by(User.username)
        )
        for document_id, username, status, assignment_id in rows:
            holders[document_id].append(
                {"username": username, "status": status, "assignment_id": assignment_id})
    agreement = live_summary(db(), project)
    return render_template(
        "project_overview.html", project=project, schema=project_schema(project),
        agreement=agreement, agreement_rows=summary_rows(agreement),
        has_results=project_mode(project).has_results,
        progress=progress, documents=documents, holders=holders, total=total, page=page,
        pages=max(1, -(-total // PAGE_SIZE)),
    )


@bp.route("/<int:project_id>/agreement")
@lead_required
def agreement(project_id: int):
    """The readable agreement report (``annotator agreement PROJECT --html``), with plots."""
    project = project_for_lead(project_id)
    return render_template("project_agreement.html", project=project,
                           report=report_page(db(), project),
                           bootstrap=bootstrap_settings(project))


def annotator_progress(project: Project) -> list[dict]:
    """Per annotator: documents held, by status, and time spent."""
    rows = db().execute(
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
