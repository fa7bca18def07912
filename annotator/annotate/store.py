"""Saving annotators' work: edits with spans, ratings, suggestion actions, status, time.

Every change is checked against the project's schema (edit type, sides, field values) and
against the version the client last saw: a save based on an old version raises
:class:`Conflict` and changes nothing, so two tabs (or two people) never silently overwrite
each other. Drafts may be incomplete; completeness is checked when a document is marked done.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any, Iterable

from sqlalchemy import case, or_, select, update
from sqlalchemy.orm import Session, object_session
from sqlalchemy.orm.attributes import flag_modified

from annotator.annotate.answers import rating_value_problem
from annotator.annotate.modes import schema_mode
from annotator.core.keys import rating_key
from annotator.core.limits import current_limits
from annotator.core.problems import ValidationFailed  # noqa: F401  (re-exported: the old import path)
from annotator.core.row_ids import is_row_id
from annotator.core.serialise import assignment_to_dict, edit_to_dict, rating_to_dict
from annotator.core.shown import got
from annotator.core.spans import read_spans
from annotator.core.strict_json import seconds_problem
from annotator.core.vocabulary import ANNOTATOR_SET_STATUSES, SIDE_LABELS, SUGGESTION_ACTIONS
from annotator.models import (
    AdjudicationDecision,
    Assignment,
    Edit,
    Rating,
    Span,
    Suggestion,
    SuggestionAction,
)
from annotator.schemas import EditType, Schema
from annotator.schemas.answers import rationale_problem, validate_fields
from annotator.schemas.files import project_schema
from annotator.study import audit
from annotator.study.document_status import add_seconds
from annotator.study.queue_marks import document_changed

MAX_TIME_REPORT_SECONDS = 300  # one heartbeat never adds more than this


class Conflict(Exception):
    """The record changed since the client loaded it."""

    def __init__(self, message: str, current: dict | None = None):
        self.current = current
        super().__init__(message)


# ---------------------------------------------------------------- validation


def _check_version(record, version: Any, kind: str, current: dict) -> None:
    if not isinstance(version, int) or isinstance(version, bool):
        raise ValidationFailed([{"field": "version", "message": "required: the version you "
                                 "last loaded"}])
    if version != record.version:
        raise Conflict(f"this {kind} was changed elsewhere (your version {version}, "
                       f"current {record.version}); reload to see the newer version", current)


def _check_open(assignment: Assignment) -> None:
    if assignment.status == "done":
        raise Conflict("this document is marked done; reopen it to change annotations")
    if assignment.status == "skipped":
        raise Conflict("this document is skipped; reopen it to change annotations")


def validate_spans(spans: Any, edit_type: EditType, assignment: Assignment) -> list[Span]:
    """The request's ``{side, start, end}`` spans checked by the one span rule
    (:func:`annotator.core.spans.read_spans`), as span rows."""
    texts = {"source": assignment.document.source, "target": assignment.document.target}
    checked, faults = read_spans(spans, "spans", texts=texts, sides=edit_type.sides,
                                 kind=edit_type.label,
                                 limit=current_limits().max_spans_per_edit)
    if faults:
        raise ValidationFailed([f.as_dict() for f in faults])
    return span_rows((s.side, s.start, s.end) for s in checked)


def span_rows(spans: Iterable[tuple[str, int, int]]) -> list[Span]:
    """Span rows of checked ``(side, start, end)`` triples, each span once, in the order
    given (the first span is the one marked first)."""
    return [Span(side=side, start=start, end=end) for side, start, end in dict.fromkeys(spans)]


def build_edit(assignment: Assignment, edit_type: str, fields: dict, spans: list[Span], *,
               suggestion_id: int | None = None, meta: dict | None = None,
               parent: Edit | None = None) -> Edit:
    """The one way an edit row is made from checked values, for the annotation API and
    every importer (``interop/annotations_store.py``): its span rows (:func:`span_rows`),
    its suggestion, import meta and composite parent."""
    edit = Edit(assignment=assignment, edit_type=edit_type, fields=fields, spans=spans,
                suggestion_id=suggestion_id, meta=dict(meta or {}))
    if parent is not None:
        edit.parent_id = parent.id
    return edit


def _edit_type(schema: Schema, name: Any) -> EditType:
    edit_type = schema.edit_type(name) if isinstance(name, str) else None
    if edit_type is None:
        raise ValidationFailed([{"field": "edit_type", "message": "one of " + ", ".join(
            e.name for e in schema.edit_types)}])
    return edit_type


# ---------------------------------------------------------------- edits


def create_edit(session: Session, assignment: Assignment, data: dict, user_id: int) -> Edit:
    _check_open(assignment)
    schema = project_schema(assignment.document.project)
    edit_type = _edit_type(schema, data.get("edit_type"))
    spans = validate_spans(data.get("spans", []), edit_type, assignment)
    fields = validate_fields(data.get("fields", {}), edit_type.fields)
    suggestion_id = data.get("suggestion_id")
    if suggestion_id is not None:
        suggestion = session.get(Suggestion, suggestion_id) if is_row_id(suggestion_id) \
            else None
        if suggestion is None or suggestion.document_id != assignment.document_id:
            raise ValidationFailed([{"field": "suggestion_id", "message": "not a suggestion of "
                                     "this document"}])
    edit = build_edit(assignment, edit_type.name, fields, spans, suggestion_id=suggestion_id)
    session.add(edit)
    _touch(assignment)
    session.flush()
    document_changed(session, assignment.document_id)
    audit.record(session, "edit.created", user_id=user_id,
                 project_id=assignment.document.project_id, object_type="edit",
                 object_id=edit.id, after=edit_to_dict(edit))
    return edit


def update_edit(session: Session, edit: Edit, data: dict, user_id: int) -> Edit:
    assignment = edit.assignment
    _check_open(assignment)
    _check_version(edit, data.get("version"), "edit", edit_to_dict(edit))
    before = edit_to_dict(edit)
    schema = project_schema(assignment.document.project)
    edit_type = _edit_type(schema, data.get("edit_type", edit.edit_type))
    if "spans" in data or edit_type.name != edit.edit_type:
        spans = validate_spans(data.get("spans", before["spans"]), edit_type, assignment)
        edit.spans = spans
    if "fields" in data or edit_type.name != edit.edit_type:
        edit.fields = validate_fields(data.get("fields", edit.fields), edit_type.fields)
    edit.edit_type = edit_type.name
    # Every save is a new version, also when only spans (child rows) changed: otherwise a
    # stale tab could overwrite spans without a conflict, and an undo would not count.
    flag_modified(edit, "edit_type")
    _touch(assignment)
    session.flush()
    document_changed(session, assignment.document_id)
    audit.record(session, "edit.updated", user_id=user_id,
                 project_id=assignment.document.project_id, object_type="edit",
                 object_id=edit.id, before=before, after=edit_to_dict(edit))
    return edit


def delete_edit(session: Session, edit: Edit, version: Any, user_id: int) -> None:
    _check_open(edit.assignment)
    _check_version(edit, version, "edit", edit_to_dict(edit))
    audit.record(session, "edit.deleted", user_id=user_id,
                 project_id=edit.assignment.document.project_id, object_type="edit",
                 object_id=edit.id, before=edit_to_dict(edit))
    document_id = edit.assignment.document_id
    session.delete(edit)
    session.flush()
    document_changed(session, document_id)


# ---------------------------------------------------------------- ratings


def set_rating(session: Session, assignment: Assignment, data: dict, user_id: int) -> Rating:
    _check_open(assignment)
    schema = project_schema(assignment.document.project)
    level, field_name = data.get("level"), data.get("field")
    spec = schema.rating(field_name, level) if isinstance(field_name, str) else None
    if spec is None:
        raise ValidationFailed([{"field": "field", "message": "not a rating field of this "
                                 "schema at that level"}])
    item = str(data.get("item", ""))
    value = data.get("value")
    problem = rating_value_problem(schema, spec, value)
    if problem:
        raise ValidationFailed([{"field": "value", "message": problem}])
    rationale = data.get("rationale")
    if (wrong := rationale_problem(rationale)) is not None:
        raise ValidationFailed([{"field": "rationale", "message": wrong}])
    rating = session.scalar(select(Rating).where(
        Rating.assignment_id == assignment.id, Rating.level == level, Rating.item == item,
        Rating.field == field_name))
    if rating is None:
        if data.get("version") not in (None, 0):
            raise Conflict("this rating was removed elsewhere; reload")
        rating = Rating(assignment=assignment, level=level, item=item, field=field_name)
        session.add(rating)
    elif data.get("version") is None:
        # The client thought the rating was new: another tab or session created it first.
        raise Conflict("this rating was set elsewhere; reload to see it", rating_to_dict(rating))
    else:
        _check_version(rating, data.get("version"), "rating", rating_to_dict(rating))
    rating.value = None if value == "" else value
    rating.rationale = rationale
    _touch(assignment)
    session.flush()
    document_changed(session, assignment.document_id)
    return rating


# ---------------------------------------------------------------- suggestions, time, status


def record_suggestion_action(session: Session, assignment: Assignment, suggestion_id: Any,
                             action: Any, edit_id: Any = None) -> SuggestionAction | None:
    """Store an accept or dismiss; ``action=None`` withdraws it (the page's undo), so the
    suggestion counts as unreviewed again in the precision report."""
    if action is not None and action not in SUGGESTION_ACTIONS:
        raise ValidationFailed([{"field": "action", "message": "'accepted', 'dismissed' or "
                                 "null (undo)"}])
    suggestion = session.get(Suggestion, suggestion_id) if is_row_id(suggestion_id) else None
    if suggestion is None or suggestion.document_id != assignment.document_id:
        raise ValidationFailed([{"field": "suggestion", "message": "not a suggestion of this "
                                 "document"}])
    if edit_id is not None:
        edit = session.get(Edit, edit_id) if is_row_id(edit_id) else None
        if edit is None or edit.assignment_id != assignment.id:
            raise ValidationFailed([{"field": "edit_id", "message": "not an edit of yours"}])
    record = session.scalar(select(SuggestionAction).where(
        SuggestionAction.suggestion_id == suggestion.id,
        SuggestionAction.user_id == assignment.user_id))
    if action is None:
        if record is not None:
            session.delete(record)
            session.flush()
        return None
    if record is None:
        record = SuggestionAction(suggestion_id=suggestion.id, user_id=assignment.user_id)
        session.add(record)
    record.action, record.edit_id = action, edit_id
    session.flush()
    return record


def add_time(session: Session, assignment: Assignment, seconds: Any,
             now: float | None = None) -> float:
    """Add active time reported by the page (it pauses while the tab is hidden or idle).

    An atomic increment in SQL, outside the version check: time from two tabs adds up
    instead of conflicting, and a heartbeat never makes the annotator's next save stale.
    A heartbeat is credited at most the wall-clock time since the previous one (and at
    most :data:`MAX_TIME_REPORT_SECONDS`), so replaying heartbeats cannot inflate
    ``seconds_spent``; the bound is computed inside the same UPDATE, so parallel
    heartbeats cannot both claim one interval.
    """
    if seconds_problem(seconds):
        raise ValidationFailed([{"field": "seconds", "message": seconds_problem(seconds)
                                 + got(seconds)}])
    if assignment.status != "done":
        # The time before, read under the row's lock, so that the document's stored time
        # (the data manager's, document_status) gets exactly this heartbeat's credit.
        before = session.scalar(select(Assignment.seconds_spent).where(
            Assignment.id == assignment.id).with_for_update())
        now = time.time() if now is None else now
        last = Assignment.last_time_report
        elapsed = case((last.is_(None), MAX_TIME_REPORT_SECONDS), else_=now - last)
        claim = min(float(seconds), float(MAX_TIME_REPORT_SECONDS))
        credit = case((elapsed < claim, elapsed), else_=claim)
        session.execute(
            update(Assignment).where(Assignment.id == assignment.id,
                                     or_(last.is_(None), last < now)).values(
                seconds_spent=Assignment.seconds_spent + credit, last_time_report=now)
            .execution_options(synchronize_session=False))
        session.refresh(assignment, ["seconds_spent", "last_time_report"])
        add_seconds(session.connection(), assignment.document_id,
                    assignment.seconds_spent - (before or 0.0))
    return assignment.seconds_spent


def missing_for_done(assignment: Assignment, schema: Schema) -> list[dict[str, Any]]:
    """Everything that blocks "mark document done": required fields and sides of each edit,
    required ratings of each item. Edits are named by their number among this annotator's
    edits of the document (#1 = their first), never by database id, which would reveal
    how much the others have annotated."""
    missing = []
    for number, edit in enumerate(sorted(assignment.edits, key=lambda e: e.id), start=1):
        edit_type = schema.edit_type(edit.edit_type)
        if edit_type is None or edit.parent_id is not None:
            continue  # constituents of a composite edit are answered through it
        sides = {s.side for s in edit.spans}
        for side in edit_type.required_sides:
            if side not in sides:
                label = SIDE_LABELS[side]
                missing.append({"edit_id": edit.id, "field": f"spans.{side}",
                                "message": f"{edit_type.label} #{number}: mark a span in the "
                                           f"{label}"})
        for spec in edit_type.applicable_fields(edit.fields or {}):
            if spec.required and edit.fields.get(spec.name) in (None, ""):
                missing.append({"edit_id": edit.id, "field": spec.name,
                                "message": f"{edit_type.label} #{number}: {spec.label} is "
                                           "required"})
    given = {(r.level, r.item, r.field) for r in assignment.ratings
             if r.value not in (None, "")}
    for level, item in rateable_items(assignment, schema):
        for spec in schema.ratings:
            if spec.level == level and spec.required and (level, item, spec.name) not in given:
                missing.append({"field": f"ratings.{level}.{item}.{spec.name}",
                                "key": rating_key(level, item, spec.name),
                                "message": f"{spec.label} is not rated for "
                                           f"{_item_label(level, item)}"})
    return missing


def rateable_items(assignment: Assignment, schema: Schema) -> list[tuple[str, str]]:
    """The (level, item) pairs a document offers for ratings."""
    document = assignment.document
    levels = {spec.level for spec in schema.ratings}
    items = []
    if "document" in levels:
        items.append(("document", ""))
    if "sentence" in levels:
        items += [("sentence", str(i)) for i in range(len(document.target_sentences))]
    if "pair" in levels:
        count = len(document.sentence_pairs) if document.sentence_pairs else 1
        items += [("pair", str(i)) for i in range(count)]
    return items


def _item_label(level: str, item: str) -> str:
    if level == "document":
        return "the document"
    return f"{level} {int(item) + 1}" if item.isdigit() else f"{level} {item}"


def set_status(session: Session, assignment: Assignment, status: Any, version: Any,
               user_id: int) -> list[dict]:
    """Mark done (if complete: the schema's required answers and the mode's done rule),
    reopen, or skip (set aside as is, nothing checked; reopening brings it back). Returns
    the list of missing items (empty = done)."""
    if status not in ANNOTATOR_SET_STATUSES:
        raise ValidationFailed([{"field": "status", "message": "one of "
                                 + ", ".join(repr(s) for s in ANNOTATOR_SET_STATUSES)
                                 + got(status)}])
    _check_version(assignment, version, "assignment", assignment_to_dict(assignment))
    if status == "done":
        missing = done_blockers(session, assignment)
        if missing:
            return missing
        assignment.completed_at = datetime.now(timezone.utc)
    else:
        _check_not_adjudicated(session, assignment)
        assignment.completed_at = None
    before = assignment.status
    assignment.status = status
    session.flush()
    document_changed(session, assignment.document_id)
    audit.record(session, "assignment.status", user_id=user_id,
                 project_id=assignment.document.project_id, object_type="assignment",
                 object_id=assignment.id, before=before, after=status)
    return []


def done_blockers(session: Session, assignment: Assignment) -> list[dict]:
    """Everything that blocks "done" (:func:`missing_for_done` and the mode's done rule),
    all at once: what :func:`set_status` refuses with, and what the page lists before it
    asks (issue 43: Mark done reported one problem at a time)."""
    schema = project_schema(assignment.document.project)
    missing = missing_for_done(assignment, schema)
    mode_rule = schema_mode(schema).hook("done_rule")  # e.g. QA items all rated
    if mode_rule is not None:
        missing += mode_rule(session, assignment)
    return missing


def adjudication_started(session: Session, document_id: int) -> bool:
    """True once a lead has decided anything on the document: from then on its annotators'
    work is frozen for every writer (the API, bulk reopen, imports that replace, Label
    Studio pull), since gold edits point at these edits."""
    return session.scalar(select(AdjudicationDecision.id).where(
        AdjudicationDecision.document_id == document_id).limit(1)) is not None


def _check_not_adjudicated(session: Session, assignment: Assignment) -> None:
    """Once a lead has started adjudicating a document, its annotators' work is frozen:
    gold edits point at these edits, and changing them would leave gold without a source."""
    if assignment.status == "done" and adjudication_started(session, assignment.document_id):
        raise Conflict("this document is being adjudicated (or was): your work on it is "
                       "frozen; ask your lead if something must change")


def _touch(assignment: Assignment) -> None:
    """Mark the assignment started on its first save. A conditional UPDATE outside the
    version check (like the time heartbeat): two first saves arriving together (two
    ratings chosen in quick succession) must not make each other stale and lock the page
    with a conflict over a status both of them set the same way."""
    if assignment.status != "assigned" and assignment.started_at is not None:
        return
    session = object_session(assignment)
    session.execute(
        update(Assignment).where(Assignment.id == assignment.id,
                                 Assignment.status == "assigned")
        .values(status="in_progress").execution_options(synchronize_session=False))
    session.execute(
        update(Assignment).where(Assignment.id == assignment.id,
                                 Assignment.started_at.is_(None))
        .values(started_at=datetime.now(timezone.utc))
        .execution_options(synchronize_session=False))
    session.refresh(assignment, ["status", "started_at"])
