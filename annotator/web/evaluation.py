"""Pages of the evaluation modes: rating generated QA pairs, comparing reference and model
QAs, typing simplified sentences (PlainFact), and the lead's results page with exports.

Which page a project opens, what its payload holds, its "done" rule and its results come
from the project's task mode (annotator.annotate.modes), never from the schema's name.
PLABA projects use the ordinary annotation page (sentence-level rating controls); modes
with a page of their own open it instead (the annotation page redirects there). Ratings
are saved through the annotation API (``PUT /api/assignments/<id>/ratings``).
"""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup

from annotator.adjudication.store import AdjudicationError
from annotator.annotate.modes import project_mode
from annotator.core.serialise import assignment_to_dict, rating_to_dict, schema_to_dict
from annotator.evaluation.export import results_csv, results_json
from annotator.evaluation.plot import correlation_svg
from annotator.evaluation.results import project_results
from annotator.evaluation.tiebreak import route_disagreements
from annotator.schemas.files import project_schema
from annotator.web import api
from annotator.web.access import (
    assignment_for_viewer,
    db,
    lead_required,
    load_user,
    login_required,
    project_for_lead,
)
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash

bp = Blueprint("evaluation", __name__, url_prefix="/eval")
# The JSON endpoints answer errors the way the annotation API does (422 invalid, 409 stale).
for _error, _handler in ((api.ValidationFailed, api.invalid), (api.Conflict, api.conflict)):
    bp.register_error_handler(_error, _handler)


@bp.before_app_request
def open_evaluation_page():
    """The annotation page (and, where the mode says so, the tie-break page) of a project
    whose mode has its own page redirects there."""
    if request.method != "GET" or request.endpoint not in (
            "documents.view_assignment", "adjudicate.tiebreak"):
        return None
    if load_user() is None:  # the view's own login check answers
        return None
    # Another annotator's assignment is a 404 here too, like an unknown id: a redirect
    # would disclose that it exists.
    assignment = assignment_for_viewer((request.view_args or {}).get("assignment_id", 0))
    mode = project_mode(assignment.document.project)
    if mode.has_own_page and (request.endpoint == "documents.view_assignment"
                              or mode.tiebreak_on_page):
        return redirect(url_for("evaluation.page", assignment_id=assignment.id))
    return None


@bp.route("/assignments/<int:assignment_id>")
@login_required
def page(assignment_id: int):
    assignment = assignment_for_viewer(assignment_id)
    mode = project_mode(assignment.document.project)
    if not mode.has_own_page:
        return redirect(url_for("documents.view_assignment", assignment_id=assignment_id))
    return render_template(mode.page, assignment=assignment,
                           document=assignment.document,
                           read_only=assignment.user_id != load_user().id,
                           schema=project_schema(assignment.document.project))


@bp.get("/api/assignments/<int:assignment_id>")
@login_required
def payload(assignment_id: int):
    assignment = assignment_for_viewer(assignment_id)
    document = assignment.document
    mode = project_mode(document.project)
    if not mode.has_own_page:
        abort(404)
    return jsonify(
        mode=mode.name, assignment=assignment_to_dict(assignment),
        read_only=assignment.user_id != load_user().id,
        document={"id": document.id, "external_id": document.external_id,
                  "source": document.source, "target": document.target,
                  "source_sentences": document.source_sentences,
                  "target_sentences": document.target_sentences},
        schema=schema_to_dict(project_schema(document.project)),
        ratings=[rating_to_dict(r) for r in assignment.ratings],
        **mode.hook("payload")(db(), assignment))


@bp.post("/api/assignments/<int:assignment_id>/status")
@login_required
def status(assignment_id: int):
    """Mark done or reopen; the mode's done rule is part of the annotation store's check."""
    return api.change_status(assignment_id)


# ---------------------------------------------------------------- the lead's side


@bp.route("/projects/<int:project_id>/results")
@lead_required
def results(project_id: int):
    project = project_for_lead(project_id)
    mode = project_mode(project)
    if not mode.has_results:
        abort(404)
    data = project_results(db(), project)
    plot = None
    if mode.name == "plaba":  # our own SVG: numbers and escaped axis names only
        plot = Markup(correlation_svg(data["correlations"]))
    return render_template("eval_results.html", project=project, mode=mode.name, r=data,
                           plot=plot)


@bp.route("/projects/<int:project_id>/results.<fmt>")
@lead_required
def export(project_id: int, fmt: str):
    project = project_for_lead(project_id)
    if not project_mode(project).has_results or fmt not in ("json", "csv"):
        abort(404)
    data = project_results(db(), project)
    name = f"{project.name}-results.{fmt}"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    if fmt == "json":
        return Response(results_json(data), mimetype="application/json", headers=headers)
    return Response(results_csv(data), mimetype="text/csv", headers=headers)


@bp.post("/projects/<int:project_id>/route")
@lead_required
def route(project_id: int):
    project = project_for_lead(project_id)
    if not project_mode(project).routes_disagreements:
        abort(404)
    try:
        routed = route_disagreements(db(), project, load_user())
        commit_work()
        flash(f"Routed {sum(routed.values())} disagreement(s) in {len(routed)} document(s) "
              "to a third annotator.", "ok")
    except AdjudicationError as exc:  # no third annotator, ...
        db().rollback()
        flash(f"Not routed: {exc}", "error")
    return redirect(url_for("evaluation.results", project_id=project_id))
