"""Pages of the evaluation modes: rating generated QA pairs, comparing reference and model
QAs, typing simplified sentences (PlainFact), and the lead's results page with exports.

PLABA projects use the ordinary annotation page (sentence-level rating controls); the
other modes open their own page instead (the annotation page redirects there). Ratings
are saved through the annotation API (``PUT /api/assignments/<id>/ratings``); this module
adds the payload each page needs and the mode-specific "done" check.
"""

from __future__ import annotations

from flask import (Blueprint, Response, abort, flash, jsonify, redirect, render_template,
                   request, url_for)
from markupsafe import Markup
from sqlalchemy import select

from annotator.core.keys import rating_key
from annotator.annotate.store import set_status
from annotator.core.serialise import assignment_to_dict, rating_to_dict
from annotator.evaluation import mode_of
from annotator.evaluation.criteria import is_negative
from annotator.evaluation.plainfact import suggested_relation
from annotator.evaluation.plot import correlation_svg
from annotator.evaluation.export import results_csv, results_json
from annotator.evaluation.results import project_results
from annotator.evaluation.store import pair_item, qa_items, recall_pairs
from annotator.evaluation.tiebreak import route_disagreements
from annotator.models import Assignment, EvalQAItem, TieBreakRequest
from annotator.study.projects import project_schema
from annotator.web.access import (assignment_for_viewer, db, lead_required, load_user,
                                  login_required, project_for_lead)
from annotator.web.api import body, schema_to_dict

bp = Blueprint("evaluation", __name__, url_prefix="/eval")
OWN_PAGES = {"qa-quality": "eval_qa_quality.html", "qa-recall": "eval_recall.html",
             "plainfact": "eval_plainfact.html"}


@bp.before_app_request
def open_evaluation_page():
    """The annotation page (and, for PlainFact, the tie-break page) of an evaluation
    project redirects to the mode's own page."""
    if request.method != "GET" or request.endpoint not in (
            "documents.view_assignment", "adjudicate.tiebreak"):
        return None
    assignment = db().get(Assignment, (request.view_args or {}).get("assignment_id", 0))
    if assignment is None:
        return None
    mode = mode_of(assignment.document.project.schema_name)
    if mode in OWN_PAGES and (request.endpoint == "documents.view_assignment"
                              or mode == "plainfact"):
        return redirect(url_for("evaluation.page", assignment_id=assignment.id))
    return None


@bp.route("/assignments/<int:assignment_id>")
@login_required
def page(assignment_id: int):
    assignment = assignment_for_viewer(assignment_id)
    mode = mode_of(assignment.document.project.schema_name)
    if mode not in OWN_PAGES:
        return redirect(url_for("documents.view_assignment", assignment_id=assignment_id))
    return render_template(OWN_PAGES[mode], assignment=assignment,
                           document=assignment.document,
                           read_only=assignment.user_id != load_user().id,
                           schema=project_schema(assignment.document.project))


def _qa(item: EvalQAItem) -> dict:
    """A QA item for a rater: no model name (raters judge blind to the system)."""
    return {"id": item.id, "category": item.category, "question": item.question,
            "answer": item.answer, "evidence_spans": item.evidence_spans,
            "rationale_spans": item.rationale_spans, "section": item.section}


def _tiebreak_keys(assignment: Assignment) -> list[str]:
    return [rating_key(r.level, r.item, r.field) for r in db().scalars(
        select(TieBreakRequest).where(TieBreakRequest.assignment_id == assignment.id)
        .order_by(TieBreakRequest.id))]


def _items(assignment: Assignment, mode: str) -> dict:
    document, project = assignment.document, assignment.document.project
    if mode == "qa-quality":
        return {"items": [_qa(i) for i in qa_items(db(), project, document_id=document.id,
                                                     sampled=True)]}
    if mode == "qa-recall":
        return {"pairs": [{"item": pair_item(p.id), "similarity": round(p.similarity, 3),
                           "reference": _qa(p.reference), "prediction": _qa(p.prediction)}
                          for p in recall_pairs(db(), project, document.id)]}
    return {"suggestions": [suggested_relation(document.alignment, i)
                            for i in range(len(document.target_sentences))],
            "tiebreak": _tiebreak_keys(assignment)}


@bp.get("/api/assignments/<int:assignment_id>")
@login_required
def payload(assignment_id: int):
    assignment = assignment_for_viewer(assignment_id)
    document = assignment.document
    mode = mode_of(document.project.schema_name)
    if mode not in OWN_PAGES:
        abort(404)
    return jsonify(
        mode=mode, assignment=assignment_to_dict(assignment),
        read_only=assignment.user_id != load_user().id,
        document={"id": document.id, "external_id": document.external_id,
                  "source": document.source, "target": document.target,
                  "source_sentences": document.source_sentences,
                  "target_sentences": document.target_sentences},
        schema=schema_to_dict(project_schema(document.project)),
        ratings=[rating_to_dict(r) for r in assignment.ratings],
        **_items(assignment, mode))


def missing(assignment: Assignment, mode: str) -> list[dict]:
    """What blocks "done" beyond the schema's required ratings."""
    have = {(r.item, r.field): r for r in assignment.ratings if r.value not in (None, "")}
    out = []
    specs = [s for s in project_schema(assignment.document.project).ratings
             if s.level == "qa" and s.required]
    if mode == "qa-quality":
        keys = [str(i["id"]) for i in _items(assignment, mode)["items"]]
    elif mode == "qa-recall":
        keys = [p["item"] for p in _items(assignment, mode)["pairs"]]
    else:
        return out
    for n, key in enumerate(keys, start=1):
        for spec in specs:
            rating = have.get((key, spec.name))
            if rating is None:
                out.append({"item": key, "field": spec.name,
                            "message": f"item {n}: {spec.label} is not rated"})
            elif mode == "qa-quality" and is_negative(spec.name, rating.value) and not (
                    rating.rationale or "").strip():
                out.append({"item": key, "field": spec.name,
                            "message": f"item {n}: {spec.label} is negative: give a rationale"})
    return out


@bp.post("/api/assignments/<int:assignment_id>/status")
@login_required
def status(assignment_id: int):
    assignment = db().get(Assignment, assignment_id)
    if assignment is None or assignment.user_id != load_user().id:
        abort(404)
    data = body()
    mode = mode_of(assignment.document.project.schema_name)
    problems = missing(assignment, mode) if data.get("status") == "done" else []
    if not problems:
        try:
            problems = set_status(db(), assignment, data.get("status"), data.get("version"),
                                  load_user().id)
        except Exception as exc:  # Conflict / ValidationFailed
            db().rollback()
            return jsonify(error="conflict", message=str(exc)), 409
    if problems:
        db().rollback()
        return jsonify(error="incomplete", message="Some ratings are missing.",
                       missing=problems), 422
    db().commit()
    return jsonify(assignment=assignment_to_dict(assignment))


# ---------------------------------------------------------------- the lead's side


@bp.route("/projects/<int:project_id>/results")
@lead_required
def results(project_id: int):
    project = project_for_lead(project_id)
    mode = mode_of(project.schema_name)
    if mode is None:
        abort(404)
    data = project_results(db(), project)
    plot = None
    if mode == "plaba":  # our own SVG: numbers and escaped axis names only
        plot = Markup(correlation_svg(data["correlations"]))
    return render_template("eval_results.html", project=project, mode=mode, r=data,
                           plot=plot)


@bp.route("/projects/<int:project_id>/results.<fmt>")
@lead_required
def export(project_id: int, fmt: str):
    project = project_for_lead(project_id)
    if mode_of(project.schema_name) is None or fmt not in ("json", "csv"):
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
    if mode_of(project.schema_name) != "plainfact":
        abort(404)
    try:
        routed = route_disagreements(db(), project, load_user())
        db().commit()
        flash(f"Routed {sum(routed.values())} disagreement(s) in {len(routed)} document(s) "
              "to a third annotator.", "ok")
    except Exception as exc:  # AdjudicationError: no third annotator, ...
        db().rollback()
        flash(f"Not routed: {exc}", "error")
    return redirect(url_for("evaluation.results", project_id=project_id))
