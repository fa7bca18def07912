"""Setting up a study in the browser (the project's leads): import document pairs, assign
them to annotators, run the pre-highlights and watch their progress; what ``annotator
import``, ``annotator assign`` and ``annotator prehighlight`` do on the command line.

The web layer only translates HTTP: the importer is :func:`annotator.ingest.import_uploads`
(all or nothing, every problem as FILE:LINE: field: what is wrong), the assignment is
:func:`annotator.annotate.assignment.assign_documents`, and a pre-highlight run is started
and read back through :mod:`annotator.align.store.background_run`. Every POST carries the
CSRF token; the status GET only reads.
"""

from __future__ import annotations

from pathlib import Path

from flask import (
    Blueprint,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlalchemy import func, select

from annotator.align.store.background_run import RunRefused, run_status, start_run
from annotator.annotate.assignment import AssignmentError, assign_documents, project_load
from annotator.core.records import FORMATS
from annotator.ingest import IngestError, import_uploads
from annotator.models import Document, Project, ProjectMember, User
from annotator.web.access import db, lead_required, load_user, project_for_lead
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash

bp = Blueprint("project_setup", __name__, url_prefix="/projects")
PROBLEMS_SHOWN = 100  # an import's problems listed on the page (and how many more)
RUN_SCOPES = ("new",)  # which documents a run covers: those not pre-highlighted yet


@bp.route("/<int:project_id>/setup")
@lead_required
def setup(project_id: int):
    return _page(project_for_lead(project_id))


@bp.post("/<int:project_id>/import")
@lead_required
def import_documents(project_id: int):
    project = project_for_lead(project_id)
    fmt = request.form.get("format") or None
    if fmt is not None and fmt not in FORMATS:
        flash(f"Nothing imported: format: expected one of {', '.join(FORMATS)} or "
              f"automatic, got {fmt!r}.", "error")
        return redirect(url_for("project_setup.setup", project_id=project.id))
    uploads = [(Path(f.filename).name, f.read()) for f in request.files.getlist("files")
               if f.filename]
    try:
        result = import_uploads(db(), project, uploads, fmt, user_id=load_user().id)
        commit_work()
    except IngestError as exc:
        db().rollback()
        return _page(project, problems=exc.problems), 400
    flash(f"Imported {result.created} new documents from "
          f"{', '.join(name for name, _ in uploads)}.", "ok")
    return redirect(url_for("project_setup.setup", project_id=project.id))


@bp.post("/<int:project_id>/assign")
@lead_required
def assign(project_id: int):
    project = project_for_lead(project_id)
    names = [n for n in request.form.getlist("annotators") if n.strip()]
    raw = request.form.get("per_document", "").strip()
    try:
        if not names:
            raise AssignmentError("choose the annotators who get documents")
        try:
            per_document = int(raw)
        except ValueError:
            raise AssignmentError(f"annotators per document: expected a whole number, "
                                  f"got {raw!r}") from None
        if per_document < 1:
            raise AssignmentError(f"annotators per document: at least 1, got {per_document}")
        summary = assign_documents(db(), project, names, per_document=per_document,
                                   user_id=load_user().id)
        commit_work()
    except AssignmentError as exc:
        db().rollback()
        flash(f"Not assigned: {exc}.", "error")
        return redirect(url_for("project_setup.setup", project_id=project.id))
    flash(f"Created {summary.created} assignments; "
          + ", ".join(f"{name} holds {count}" for name, count in summary.load.items()) + ".",
          "ok")
    return redirect(url_for("project_setup.setup", project_id=project.id))


@bp.post("/<int:project_id>/prehighlight")
@lead_required
def prehighlight(project_id: int):
    """Start a run over the documents not pre-highlighted yet (``scope=new``). Answers
    JSON (202 started, 409 refused) to the page's script, a redirect to a form."""
    project = project_for_lead(project_id)
    wants_json = request.accept_mimetypes.best == "application/json"
    sent = request.get_json(silent=True) if request.is_json else None
    scope = request.form.get("scope") or (sent.get("scope") if isinstance(sent, dict) else None)
    try:
        if scope not in RUN_SCOPES:
            raise RunRefused(f"scope: expected 'new' (the documents not pre-highlighted "
                             f"yet), got {scope!r}")
        start_run(db(), project, user_id=load_user().id)
    except RunRefused as exc:
        db().rollback()
        if wants_json:
            return jsonify(error="refused", message=f"Not started: {exc}."), 409
        flash(f"Not started: {exc}.", "error")
        return redirect(url_for("project_setup.setup", project_id=project.id))
    if wants_json:
        return jsonify(run_status(db(), project)), 202
    flash("Pre-highlighting started.", "ok")
    return redirect(url_for("project_setup.setup", project_id=project.id))


@bp.get("/<int:project_id>/prehighlight/status")
@lead_required
def prehighlight_status(project_id: int):
    return jsonify(run_status(db(), project_for_lead(project_id)))


def _page(project: Project, problems=()):
    annotators = db().scalars(select(User).where(User.role == "annotator",
                                                 User.active.is_(True))
                              .order_by(User.username)).all()
    members = set(db().scalars(select(ProjectMember.user_id).where(
        ProjectMember.project_id == project.id, ProjectMember.role == "annotator")))
    documents = db().scalar(select(func.count(Document.id)).where(
        Document.project_id == project.id))
    return render_template(
        "project_setup.html", project=project, documents=documents, formats=FORMATS,
        annotators=annotators, members=members, load=project_load(db(), project),
        status=run_status(db(), project), problems=list(problems)[:PROBLEMS_SHOWN],
        more=max(0, len(problems) - PROBLEMS_SHOWN))
