"""The lead's adjudication pages: the queue, the adjudication view (JSON state + one
decision endpoint); and the third annotator's tie-break page (releases: :mod:`.releases`).

Every project page goes through :func:`project_for_lead`: a lead of another project gets a
404, never a hint that the project exists. Every POST carries the CSRF token (form field or
X-CSRFToken header, checked by Flask-WTF).
"""

from __future__ import annotations

from itertools import combinations

from flask import (
    Blueprint,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlalchemy import select

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.coverage import project_coverage
from annotator.adjudication.labels import can_auto_resolve
from annotator.adjudication.overview import apply_automatic, complete
from annotator.adjudication.queue import next_open, stored_queue
from annotator.adjudication.ratings import resolve_rating, route_to_third
from annotator.adjudication.view import document_view
from annotator.align.embeddings import default_embedder
from annotator.annotate.store import Conflict, ValidationFailed
from annotator.annotate.tiebreak import routed_requests, save_tiebreak_form, tiebreak_items
from annotator.models import Document, ProjectMember, User
from annotator.schemas.files import project_schema
from annotator.web.access import db, lead_required, load_user, login_required, project_for_lead
from annotator.web.commits import commit_work
from annotator.web.flash_messages import flash
from annotator.web.validation import (
    ANY,
    FLAG,
    ID_GROUPS,
    IDS,
    INT,
    LIST,
    OBJECT,
    TEXT,
    TEXTS,
    body,
    check_body,
    optional,
    required,
)

bp = Blueprint("adjudicate", __name__)


def _embed():
    if not current_app.config.get("ADJUDICATION_EMBEDDINGS", True):
        return None
    return default_embedder().encode


def _document(project, document_id: int) -> Document:
    document = db().get(Document, document_id)
    if document is None or document.project_id != project.id:
        abort(404)
    return document


@bp.route("/projects/<int:project_id>/adjudicate")
@lead_required
def queue(project_id: int):
    project = project_for_lead(project_id)
    schema = project_schema(project)
    field_name = request.args.get("field") or None
    pair_arg = request.args.get("pair") or ""
    pair = tuple(pair_arg.split(",", 1)) if "," in pair_arg else None
    try:
        page = int(request.args.get("page") or 1)
    except ValueError:
        page = 1
    found = stored_queue(db(), project.id, field_name=field_name, pair=pair, page=page)
    everyone = sorted(db().scalars(select(User.username).join(
        ProjectMember, ProjectMember.user_id == User.id).where(
        ProjectMember.project_id == project.id, ProjectMember.role == "annotator")))
    fields = ([e.name for e in schema.edit_types]
              + [f"{e.name}.{f.name}" for e in schema.edit_types for f in e.fields
                 if can_auto_resolve(f.type)]
              + [r.name for r in schema.ratings if r.type != "text"])
    # Coverage per edit type reads every ready document (and runs the rules on what is
    # open), so it is computed only when asked for, not on every view of the queue.
    coverage = project_coverage(db(), project) if request.args.get("coverage") else None
    return render_template("adjudicate_queue.html", project=project, entries=found.entries,
                           queue=found, coverage=coverage,
                           fields=fields, pairs=[",".join(p) for p in combinations(everyone, 2)],
                           field=field_name, pair=pair_arg)


@bp.route("/projects/<int:project_id>/adjudicate/<int:document_id>")
@lead_required
def view(project_id: int, document_id: int):
    project = project_for_lead(project_id)
    document = _document(project, document_id)
    return render_template("adjudicate_view.html", project=project, document=document)


@bp.get("/projects/<int:project_id>/adjudicate/<int:document_id>/state")
@lead_required
def state(project_id: int, document_id: int):
    """The view's data; a read: it never records anything (see :func:`freeze`)."""
    project = project_for_lead(project_id)
    document = _document(project, document_id)
    return jsonify(_with_next(document, document_view(db(), document, _embed(), freeze=False)))


@bp.post("/projects/<int:project_id>/adjudicate/<int:document_id>/grouping")
@lead_required
def freeze(project_id: int, document_id: int):
    """Freeze the candidate units (recorded as an automatic regroup decision) once the
    document is ready and open, so that later edits by the grouping method cannot move
    units under the lead; the page calls this when it opens. Answers the view's data."""
    project = project_for_lead(project_id)
    document = _document(project, document_id)
    data = document_view(db(), document, _embed(), freeze=True)
    commit_work()
    return jsonify(_with_next(document, data))


def _with_next(document: Document, data: dict, **extra) -> dict:
    """The view's data with the way on: the next open document of the queue (the page
    offers "Next in queue" once this one is adjudicated), read after the commit, when the
    queue entries are recomputed."""
    data["next_in_queue"] = next_open(db(), document.project_id, document.id)
    data.update(extra)
    return data


@bp.post("/projects/<int:project_id>/adjudicate/<int:document_id>/decisions")
@lead_required
def decide(project_id: int, document_id: int):
    project = project_for_lead(project_id)
    document = _document(project, document_id)
    try:
        data = body()
    except ValidationFailed as exc:
        return jsonify(error="invalid", message=str(exc), problems=exc.problems), 422
    if data.get("action") not in ACTIONS:
        return jsonify(error="invalid", message="expected {action: " + "|".join(ACTIONS)
                       + ", ...}"), 400
    keys, run = ACTIONS[data["action"]]
    try:
        values = check_body(data, keys + (optional("note", TEXT),))
        outcome = run(document, load_user(), values, values["note"] or "")
        commit_work()
    except ValidationFailed as exc:
        db().rollback()
        return jsonify(error="invalid", message=str(exc), problems=exc.problems), 422
    except store.AdjudicationError as exc:
        db().rollback()
        return jsonify(error="refused", message=str(exc)), 409
    # "Apply automatic rules" says what it did (issue 35): its counts go back with the view.
    extra = {"automatic": _automatic_summary(outcome)} if data["action"] == "auto" else {}
    return jsonify(_with_next(document, document_view(db(), document, None), **extra))


def _automatic_summary(outcome: dict) -> dict:
    return {key: outcome[key] for key in ("units_accepted", "units_merged", "units_rejected",
                                          "ratings_resolved", "completed")}


UNIT = (required("edit_ids", IDS),)
# action -> (the body keys it reads, what it does)
ACTIONS = {
    "accept": (UNIT + (required("edit_id", INT),), lambda doc, u, b, n: d.accept(
        db(), doc, b["edit_ids"], b["edit_id"], u, n)),
    "keep_both": (UNIT, lambda doc, u, b, n: d.keep_both(db(), doc, b["edit_ids"], u, n)),
    "reject": (UNIT, lambda doc, u, b, n: d.reject(db(), doc, b["edit_ids"], u, n)),
    "merge": (UNIT + (required("base_id", INT), optional("edit_type", TEXT),
                      optional("fields", OBJECT), optional("spans", LIST)),
              lambda doc, u, b, n: d.merge(db(), doc, b["edit_ids"], b["base_id"], u,
                                           edit_type=b["edit_type"], fields=b["fields"],
                                           spans=b["spans"], note=n)),
    "regroup": ((required("groups", ID_GROUPS),),
                lambda doc, u, b, n: d.regroup(db(), doc, b["groups"], u, n)),
    "undo": ((required("decision_id", INT),),
             lambda doc, u, b, n: d.undo(db(), doc, b["decision_id"], u, n)),
    "rating": ((required("key", TEXT), optional("value", ANY)),
               lambda doc, u, b, n: resolve_rating(db(), doc, b["key"], b["value"], u, n)),
    "route": ((required("keys", TEXTS), optional("username", TEXT)),
              lambda doc, u, b, n: route_to_third(db(), doc, b["keys"], u,
                                                  username=b["username"] or None, note=n)),
    "auto": ((), lambda doc, u, b, n: apply_automatic(db(), doc, u, embed=None,
                                                      mark_complete=False)),
    "complete": ((), lambda doc, u, b, n: complete(db(), doc, u, n)),
    "reopen": ((optional("reset", FLAG),),
               lambda doc, u, b, n: d.reopen(db(), doc, u, n, reset=bool(b["reset"]))),
}


# ---------------------------------------------------------------- third annotator


@bp.route("/tiebreak/<int:assignment_id>", methods=["GET", "POST"])
@login_required
def tiebreak(assignment_id: int):
    """The third annotator rates only the disputed items routed to them (blind: the other
    annotators' values are not shown)."""
    requests = routed_requests(db(), assignment_id)
    if not requests or requests[0].assignment.user_id != load_user().id:
        abort(404)
    assignment = requests[0].assignment
    if request.method == "POST":
        try:
            save_tiebreak_form(db(), assignment, requests, request.form, load_user().id)
            commit_work()
            flash("Saved. Thank you: your labels go to the lead.", "ok")
        except (Conflict, ValidationFailed) as exc:  # show it, change nothing
            db().rollback()
            flash(f"Not saved: {exc}", "error")
        return redirect(url_for("adjudicate.tiebreak", assignment_id=assignment_id))
    return render_template("adjudicate_tiebreak.html", assignment=assignment,
                           items=tiebreak_items(db(), assignment, requests))
