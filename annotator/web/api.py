"""The JSON API behind the annotation page.

Blind by construction: every endpoint is scoped to one assignment, and an assignment's
payload holds only its own edits and ratings and its own suggestion actions. Writes are
allowed to the assignment's annotator only; a lead viewing someone's work gets it read-only.

Errors: 400 malformed JSON, 404 not yours / not found, 409 stale version or document marked
done (with the current record), 422 does not fit the schema (with a list of problems).
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import HTTPException

from annotator.align.store.auto_refresh import after_completion
from annotator.annotate.next_up import next_to_do
from annotator.annotate.store import (
    Conflict,
    ValidationFailed,
    add_time,
    create_edit,
    delete_edit,
    done_blockers,
    record_suggestion_action,
    set_rating,
    set_status,
    update_edit,
)
from annotator.core.limits import current_limits
from annotator.core.serialise import (
    assignment_to_dict,
    edit_to_dict,
    rating_to_dict,
    schema_to_dict,
    suggestion_to_dict,
)
from annotator.models import Assignment, Edit, Suggestion, SuggestionAction
from annotator.schemas.files import project_schema
from annotator.web.access import assignment_for_viewer, db, load_user, login_required
from annotator.web.commits import commit_work
from annotator.web.validation import body

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.errorhandler(HTTPException)
def http_error(exc: HTTPException):
    return jsonify(error=exc.name.lower(), message=exc.description), exc.code


@bp.errorhandler(StaleDataError)
@bp.errorhandler(IntegrityError)
def lost_race(exc):
    """Another request changed the same record between our read and our write: the
    version check in the UPDATE (or a unique constraint) caught it."""
    db().rollback()
    return jsonify(error="conflict", message="This was changed at the same moment elsewhere; "
                   "reload to see the newer version.", current=None), 409


@bp.errorhandler(OperationalError)
def busy(exc: OperationalError):
    """The database stayed locked longer than the busy time-out (a long write elsewhere):
    say so and ask the page to retry, instead of a 500 that reads like lost work."""
    db().rollback()
    response = jsonify(error="busy", message="The database is busy; your change was not "
                       "saved yet. It will be retried.")
    response.headers["Retry-After"] = "2"
    return response, 503


@bp.errorhandler(ValidationFailed)
def invalid(exc: ValidationFailed):
    db().rollback()
    return jsonify(error="invalid", message=str(exc), problems=exc.problems), 422


@bp.errorhandler(Conflict)
def conflict(exc: Conflict):
    db().rollback()
    return jsonify(error="conflict", message=str(exc), current=exc.current), 409


def own_assignment(assignment_id: int) -> Assignment:
    """The caller's own assignment, for writing. Anything else is a 404."""
    assignment = db().get(Assignment, assignment_id)
    if assignment is None or assignment.user_id != load_user().id:
        abort(404)
    return assignment


def own_edit(edit_id: int) -> Edit:
    edit = db().get(Edit, edit_id)
    if edit is None or edit.assignment.user_id != load_user().id:
        abort(404)
    return edit


@bp.get("/assignments/<int:assignment_id>")
@login_required
def get_assignment(assignment_id: int):
    assignment = assignment_for_viewer(assignment_id)
    document = assignment.document
    actions = dict(db().execute(
        select(SuggestionAction.suggestion_id, SuggestionAction.action)
        .join(Suggestion, Suggestion.id == SuggestionAction.suggestion_id)
        .where(Suggestion.document_id == document.id,
               SuggestionAction.user_id == assignment.user_id)
    ).all())
    return jsonify(
        assignment=assignment_to_dict(assignment),
        read_only=assignment.user_id != load_user().id,
        document={
            "id": document.id, "external_id": document.external_id,
            "source": document.source, "target": document.target,
            "source_sentences": document.source_sentences,
            "target_sentences": document.target_sentences,
            "alignment": document.alignment, "sentence_pairs": document.sentence_pairs,
            "meta": document.meta,
        },
        schema=schema_to_dict(project_schema(document.project)),
        edits=[edit_to_dict(e) for e in assignment.edits],
        ratings=[rating_to_dict(r) for r in assignment.ratings],
        suggestions=[suggestion_to_dict(s, actions.get(s.id))
                     for s in sorted(document.suggestions, key=_reading_order)],
        limits={"text": current_limits().max_text_chars},
        next_assignment=_next_for(assignment),
    )


def _next_for(assignment: Assignment) -> int | None:
    """The annotator's next to-do document of the same project (the page's "Next
    document" after Mark done or Skip); none for a lead viewing someone's work."""
    if assignment.user_id != load_user().id:
        return None
    return next_to_do(db(), assignment.user_id, assignment.document.project_id, assignment)


def _reading_order(suggestion: Suggestion):
    spans = suggestion.source_spans or suggestion.target_spans or [[0, 0]]
    side = 0 if suggestion.source_spans else 1
    return (side, spans[0][0], suggestion.id)


@bp.post("/assignments/<int:assignment_id>/edits")
@login_required
def post_edit(assignment_id: int):
    assignment = own_assignment(assignment_id)
    edit = create_edit(db(), assignment, body(), load_user().id)
    commit_work()
    return jsonify(edit=edit_to_dict(edit), assignment=assignment_to_dict(assignment)), 201


@bp.put("/edits/<int:edit_id>")
@login_required
def put_edit(edit_id: int):
    edit = own_edit(edit_id)
    update_edit(db(), edit, body(), load_user().id)
    commit_work()
    return jsonify(edit=edit_to_dict(edit), assignment=assignment_to_dict(edit.assignment))


@bp.delete("/edits/<int:edit_id>")
@login_required
def remove_edit(edit_id: int):
    edit = own_edit(edit_id)
    assignment = edit.assignment
    version = request.args.get("version", type=int)
    delete_edit(db(), edit, version, load_user().id)
    commit_work()
    return jsonify(deleted=edit_id, assignment=assignment_to_dict(assignment))


@bp.put("/assignments/<int:assignment_id>/ratings")
@login_required
def put_rating(assignment_id: int):
    assignment = own_assignment(assignment_id)
    data = body()
    rating = set_rating(db(), assignment, data, load_user().id)
    commit_work()
    return jsonify(rating=rating_to_dict(rating), assignment=assignment_to_dict(assignment))


@bp.post("/assignments/<int:assignment_id>/suggestions/<int:suggestion_id>")
@login_required
def suggestion_action(assignment_id: int, suggestion_id: int):
    assignment = own_assignment(assignment_id)
    data = body()
    record = record_suggestion_action(db(), assignment, suggestion_id, data.get("action"),
                                      data.get("edit_id"))
    commit_work()
    if record is None:  # withdrawn (undo)
        return jsonify(suggestion_id=suggestion_id, action=None, edit_id=None)
    return jsonify(suggestion_id=suggestion_id, action=record.action, edit_id=record.edit_id)


@bp.post("/assignments/<int:assignment_id>/time")
@login_required
def report_time(assignment_id: int):
    assignment = own_assignment(assignment_id)
    seconds = add_time(db(), assignment, body().get("seconds"))
    commit_work()
    return jsonify(seconds_spent=round(seconds, 1))


@bp.get("/assignments/<int:assignment_id>/missing")
@login_required
def done_check(assignment_id: int):
    """What blocks marking the document done, all of it (the page lists it with what only
    warns before it asks for "done"); empty when nothing does."""
    assignment = own_assignment(assignment_id)
    return jsonify(missing=done_blockers(db(), assignment))


@bp.post("/assignments/<int:assignment_id>/status")
@login_required
def change_status(assignment_id: int):
    assignment = own_assignment(assignment_id)
    data = body()
    missing = set_status(db(), assignment, data.get("status"), data.get("version"),
                         load_user().id)
    if missing:
        db().rollback()
        return jsonify(error="incomplete", message=f"Not done yet: {len(missing)} "
                       f"thing{'s' if len(missing) > 1 else ''} missing (a rating, a required "
                       "answer or span, or the rationale a negative rating needs). Each entry "
                       "jumps to its place.", missing=missing), 422
    commit_work()
    if assignment.status == "done":
        # The project's automatic pre-highlight refresh (if its lead switched it on) is a
        # job queued after the commit and run by a worker: this save does not wait for it,
        # and, committed already, is not answered with an error if the queueing fails.
        try:
            after_completion(db(), assignment.document.project)
        except SQLAlchemyError:
            db().rollback()
            current_app.logger.exception("queueing the automatic refit failed")
    return jsonify(assignment=assignment_to_dict(assignment), next_assignment=_next_for(assignment))
