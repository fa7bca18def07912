"""The lead's adjudication pages: the queue, the adjudication view (JSON state + one
decision endpoint), the release browser; and the third annotator's tie-break page.

Every project page goes through :func:`project_for_lead`: a lead of another project gets a
404, never a hint that the project exists. Every POST carries the CSRF token (form field or
X-CSRFToken header, checked by Flask-WTF).
"""

from __future__ import annotations

from itertools import combinations

from flask import (Blueprint, abort, current_app, flash, jsonify, redirect, render_template,
                   request, send_file, url_for)
from sqlalchemy import select

from annotator.core.keys import rating_key
from annotator.adjudication import decisions as d
from annotator.adjudication.labels import can_auto_resolve
from annotator.adjudication.overview import adjudication_queue, apply_automatic
from annotator.adjudication.ratings import resolve_rating, route_to_third
from annotator.adjudication.view import document_view
from annotator.annotate.store import ValidationFailed, set_rating
from annotator.models import Document, Rating, TieBreakRequest
from annotator.study.projects import project_schema
from annotator.releases import ReleaseError, cut_release, list_releases, release_file
from annotator.web.access import db, lead_required, load_user, login_required, project_for_lead

bp = Blueprint("adjudicate", __name__)


def _embed():
    if not current_app.config.get("ADJUDICATION_EMBEDDINGS", True):
        return None
    from annotator.align.embeddings import default_embedder

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
    entries = adjudication_queue(db(), project, field_name=field_name, pair=pair)
    everyone = sorted({n for e in adjudication_queue(db(), project) for n in e.annotators})
    fields = ([e.name for e in schema.edit_types]
              + [f"{e.name}.{f.name}" for e in schema.edit_types for f in e.fields
                 if can_auto_resolve(f.type)]
              + [r.name for r in schema.ratings if r.type != "text"])
    return render_template("adjudicate_queue.html", project=project, entries=entries,
                           fields=fields, pairs=[",".join(p) for p in combinations(everyone, 2)],
                           field=field_name, pair=pair_arg)


@bp.route("/projects/<int:project_id>/adjudicate/<int:document_id>")
@lead_required
def view(project_id: int, document_id: int):
    project = project_for_lead(project_id)
    document = _document(project, document_id)
    return render_template("adjudicate_view.html", project=project, document=document)


@bp.route("/projects/<int:project_id>/adjudicate/<int:document_id>/state")
@lead_required
def state(project_id: int, document_id: int):
    project = project_for_lead(project_id)
    data = document_view(db(), _document(project, document_id), _embed())
    db().commit()  # the first look freezes the candidate units
    return jsonify(data)


@bp.route("/projects/<int:project_id>/adjudicate/<int:document_id>/decisions",
          methods=["POST"])
@lead_required
def decide(project_id: int, document_id: int):
    project = project_for_lead(project_id)
    document = _document(project, document_id)
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or body.get("action") not in ACTIONS:
        return jsonify(error="invalid", message="expected {action: " + "|".join(ACTIONS)
                       + ", ...}"), 400
    try:
        ACTIONS[body["action"]](document, load_user(), body, str(body.get("note") or ""))
        db().commit()
    except ValidationFailed as exc:
        db().rollback()
        return jsonify(error="invalid", message=str(exc), problems=exc.problems), 422
    except (d.AdjudicationError, KeyError, TypeError, ValueError) as exc:
        db().rollback()
        return jsonify(error="refused", message=str(exc)), 409
    return jsonify(document_view(db(), document, None))


def _ids(body, key="edit_ids") -> list[int]:
    value = body[key]
    if not isinstance(value, list) or not all(isinstance(i, int) for i in value):
        raise TypeError(f"{key}: a list of edit ids")
    return value


ACTIONS = {
    "accept": lambda doc, u, b, n: d.accept(db(), doc, _ids(b), int(b["edit_id"]), u, n),
    "keep_both": lambda doc, u, b, n: d.keep_both(db(), doc, _ids(b), u, n),
    "reject": lambda doc, u, b, n: d.reject(db(), doc, _ids(b), u, n),
    "merge": lambda doc, u, b, n: d.merge(
        db(), doc, _ids(b), int(b["base_id"]), u, edit_type=b.get("edit_type"),
        fields=b.get("fields"), spans=b.get("spans"), note=n),
    "regroup": lambda doc, u, b, n: d.regroup(db(), doc, b["groups"], u, n),
    "undo": lambda doc, u, b, n: d.undo(db(), doc, int(b["decision_id"]), u, n),
    "rating": lambda doc, u, b, n: resolve_rating(db(), doc, str(b["key"]), b.get("value"),
                                                  u, n),
    "route": lambda doc, u, b, n: route_to_third(db(), doc, list(b["keys"]), u,
                                                 username=b.get("username") or None, note=n),
    "auto": lambda doc, u, b, n: apply_automatic(db(), doc, u, embed=None, complete=False),
    "complete": lambda doc, u, b, n: d.complete(db(), doc, u, n),
    "reopen": lambda doc, u, b, n: d.reopen(db(), doc, u, n, reset=bool(b.get("reset"))),
}


# ---------------------------------------------------------------- releases


def _exports():
    return current_app.config["ANNOTATOR"].exports_path


@bp.route("/projects/<int:project_id>/releases", methods=["GET", "POST"])
@lead_required
def releases(project_id: int):
    project = project_for_lead(project_id)
    if request.method == "POST":
        version = request.form.get("version", "").strip()
        try:
            manifest = cut_release(db(), project, version, exports_path=_exports(),
                                   notes=request.form.get("notes", "").strip(),
                                   require_complete=bool(request.form.get("require_complete")),
                                   bootstrap=200, user_id=load_user().id)
            db().commit()
            flash(f"Release {version} written: {manifest['counts']['documents_released']} "
                  f"document(s), {manifest['counts']['documents_excluded']} excluded.", "ok")
        except ReleaseError as exc:
            db().rollback()
            flash(f"Release refused: {exc}", "error")
        return redirect(url_for("adjudicate.releases", project_id=project.id))
    return render_template("releases.html", project=project,
                           releases=list_releases(_exports(), project.name))


@bp.route("/projects/<int:project_id>/releases/<version>/<path:filename>")
@lead_required
def release_download(project_id: int, version: str, filename: str):
    project = project_for_lead(project_id)
    path = release_file(_exports(), project.name, version, filename)
    if path is None:
        abort(404)
    return send_file(path, as_attachment=True, download_name=path.name,
                     mimetype="text/plain" if path.suffix != ".html" else "application/octet-stream")


# ---------------------------------------------------------------- third annotator


@bp.route("/tiebreak/<int:assignment_id>", methods=["GET", "POST"])
@login_required
def tiebreak(assignment_id: int):
    """The third annotator rates only the disputed items routed to them (blind: the other
    annotators' values are not shown)."""
    requests = db().scalars(select(TieBreakRequest).where(
        TieBreakRequest.assignment_id == assignment_id).order_by(TieBreakRequest.id)).all()
    if not requests or requests[0].assignment.user_id != load_user().id:
        abort(404)
    assignment = requests[0].assignment
    schema = project_schema(assignment.document.project)
    if request.method == "POST":
        try:
            for r in requests:
                raw = request.form.get(rating_key(r.level, r.item, r.field), "")
                spec = schema.rating(r.field, r.level)
                value = next((o.value for o in spec.options if str(o.value) == raw), None)
                if value is not None:
                    current = db().scalar(select(Rating).where(
                        Rating.assignment_id == assignment.id, Rating.level == r.level,
                        Rating.item == r.item, Rating.field == r.field))
                    set_rating(db(), assignment, {"level": r.level, "item": r.item,
                                                  "field": r.field, "value": value,
                                                  "version": current.version if current else 0},
                               load_user().id)
            db().commit()
            flash("Saved. Thank you: your labels go to the lead.", "ok")
        except Exception as exc:  # Conflict / ValidationFailed: show, change nothing
            db().rollback()
            flash(f"Not saved: {exc}", "error")
        return redirect(url_for("adjudicate.tiebreak", assignment_id=assignment_id))
    items = []
    for r in requests:
        spec = schema.rating(r.field, r.level)
        current = db().scalar(select(Rating.value).where(
            Rating.assignment_id == assignment.id, Rating.level == r.level,
            Rating.item == r.item, Rating.field == r.field))
        items.append({"key": rating_key(r.level, r.item, r.field), "spec": spec, "item": r.item,
                      "level": r.level, "current": current,
                      "texts": _item_texts(assignment.document, r.level, r.item)})
    return render_template("adjudicate_tiebreak.html", assignment=assignment, items=items)


def _item_texts(document: Document, level: str, item: str) -> dict:
    """The sentence pair (or sentence) an item refers to, else the whole texts."""
    if level == "pair" and document.sentence_pairs and item.isdigit():
        pairs = document.sentence_pairs
        if int(item) < len(pairs):
            s, t = pairs[int(item)]
            (ss, se), (ts, te) = document.source_sentences[s], document.target_sentences[t]
            return {"source": document.source[ss:se], "target": document.target[ts:te]}
    if level == "sentence" and item.isdigit() and int(item) < len(document.target_sentences):
        ts, te = document.target_sentences[int(item)]
        return {"source": document.source, "target": document.target[ts:te]}
    return {"source": document.source, "target": document.target}
