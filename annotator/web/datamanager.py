"""The lead's data manager: the documents of a project in one table (status, annotators,
agreement, open decisions, time) with search, filters, sort and bulk actions (assign,
reassign, reopen, export the selection). Every action is a POST with the CSRF token."""

from __future__ import annotations

from flask import Blueprint, Response, redirect, render_template, request, url_for
from sqlalchemy import select

from annotator.annotate import bulk
from annotator.interop.annotations_store import project_records
from annotator.interop.tabular import to_jsonl
from annotator.models import ProjectMember, User
from annotator.operations.document_table import SORTS, STATUSES, document_page
from annotator.web.access import db, lead_required, load_user, project_for_lead
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash

bp = Blueprint("datamanager", __name__, url_prefix="/projects")
PAGE_SIZE = 50
ACTIONS = ("assign", "reassign", "reopen", "export")


def _annotators() -> list[str]:
    """Active annotators (anyone the lead may add to the project)."""
    return list(db().scalars(
        select(User.username).where(User.role == "annotator", User.active.is_(True))
        .order_by(User.username)))


@bp.route("/<int:project_id>/documents")
@lead_required
def documents(project_id: int):
    project = project_for_lead(project_id)
    args = {"q": request.args.get("q", ""), "status": request.args.get("status", ""),
            "annotator": request.args.get("annotator", ""),
            "sort": request.args.get("sort", "position"),
            "dir": "desc" if request.args.get("dir") == "desc" else "asc"}
    if args["sort"] not in SORTS:
        args["sort"] = "position"
    if args["status"] not in STATUSES:
        args["status"] = ""
    shown = document_page(db(), project, search=args["q"], status=args["status"],
                          annotator=args["annotator"], sort=args["sort"],
                          descending=args["dir"] == "desc",
                          page=request.args.get("page", 1, type=int), page_size=PAGE_SIZE)
    members = set(db().scalars(select(User.username).join(ProjectMember).where(
        ProjectMember.project_id == project.id, ProjectMember.role == "annotator")))
    return render_template(
        "datamanager.html", project=project, rows=shown.rows,
        matching=shown.matching, total=shown.total, counts=shown.counts, args=args,
        page=shown.page, pages=shown.pages, statuses=STATUSES, annotators=_annotators(),
        members=members)


@bp.route("/<int:project_id>/documents/bulk", methods=["POST"])
@lead_required
def bulk_action(project_id: int):
    project = project_for_lead(project_id)
    action = request.form.get("action", "")
    # Back to the same filtered, sorted page: the form carries its query string only, so
    # the redirect cannot leave this page.
    query = request.form.get("query", "").lstrip("?")
    back = redirect(url_for("datamanager.documents", project_id=project.id)
                    + (f"?{query}" if query else ""))
    try:
        ids = [int(x) for x in request.form.getlist("doc")]
    except ValueError:
        flash("Bulk action refused: document ids must be numbers.", "error")
        return back
    me = load_user().id
    try:
        if action == "export":
            documents = bulk.chosen_documents(db(), project, ids)
            records = project_records(db(), project, document_ids=[d.id for d in documents])
            return Response(to_jsonl(records), mimetype="application/jsonl",
                            headers={"Content-Disposition": "attachment; filename="
                                     f"{project.slug}-selection.jsonl"})
        if action == "assign":
            n = bulk.assign_to(db(), project, ids, request.form.get("to", ""), user_id=me)
            message = f"{n} document(s) assigned to {request.form.get('to')}."
        elif action == "reassign":
            n = bulk.reassign(db(), project, ids, request.form.get("from", ""),
                              request.form.get("to", ""), user_id=me)
            message = (f"{n} document(s) moved from {request.form.get('from')} to "
                       f"{request.form.get('to')}.")
        elif action == "reopen":
            n = bulk.reopen(db(), project, ids, username=request.form.get("from", ""),
                            user_id=me)
            message = f"{n} assignment(s) reopened."
        else:
            raise bulk.BulkError(f"action: one of {', '.join(ACTIONS)}, got {action!r}")
        commit_work()
        flash(message, "ok")
    except bulk.BulkError as exc:
        db().rollback()
        flash(f"Not done: {exc}", "error")
    return back
