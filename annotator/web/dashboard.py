"""The lead's side: projects, their progress per annotator and their agreement (a summary
on the project page, the full readable report at ``/projects/<id>/agreement``). The pages'
data is read by :mod:`annotator.operations.project_overview`; the views render it."""

from __future__ import annotations

from flask import Blueprint, render_template

from annotator.agreement.store import bootstrap_settings
from annotator.operations.agreement_report import report_page
from annotator.operations.project_overview import lead_projects, project_overview
from annotator.web.access import db, lead_required, load_user, project_for_lead

bp = Blueprint("dashboard", __name__, url_prefix="/projects")


@bp.route("/")
@lead_required
def projects():
    return render_template("projects.html", rows=lead_projects(db(), load_user()))


@bp.route("/<int:project_id>")
@bp.route("/<int:project_id>/page/<int:page>")
@lead_required
def overview(project_id: int, page: int = 1):
    project = project_for_lead(project_id)
    return render_template("project_overview.html", project=project,
                           **vars(project_overview(db(), project, page)))


@bp.route("/<int:project_id>/agreement")
@lead_required
def agreement(project_id: int):
    """The readable agreement report (``annotator agreement PROJECT --html``), with plots."""
    project = project_for_lead(project_id)
    return render_template("project_agreement.html", project=project,
                           report=report_page(db(), project),
                           bootstrap=bootstrap_settings(project))
