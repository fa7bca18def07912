"""Saving annotators' work: edits with spans, ratings, suggestion actions, status, time.

Every change is checked against the project's schema (edit type, sides, field values) and
against the version the client last saw: a save based on an old version raises
:class:`Conflict` and changes nothing, so two tabs (or two people) never silently overwrite
each other. Drafts may be incomplete; completeness is checked when a document is marked done.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from annotator.core.serialise import assignment_to_dict, edit_to_dict, rating_to_dict
from annotator.core.keys import rating_key
from annotator.core.spans import span_problem
from annotator.core.vocabulary import ANNOTATOR_SET_STATUSES, SIDE_LABELS, SUGGESTION_ACTIONS
from annotator.models import Assignment, Edit, Rating, Span, Suggestion, SuggestionAction
from annotator.schemas import EditType, FieldSpec, Schema
from annotator.study import audit
from annotator.study.projects import project_schema

MAX_TIME_REPORT_SECONDS = 300  # one heartbeat never adds more than this


class ValidationFailed(ValueError):
    """The request does not fit the schema or the text; ``problems`` says where."""

    def __init__(self, problems: list[dict[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{p['field']}: {p['message']}" for p in problems))


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


def validate_spans(spans: Any, edit_type: EditType, assignment: Assignment) -> list[Span]:
    if not isinstance(spans, list):
        raise ValidationFailed([{"field": "spans", "message": "must be a list"}])
    texts = {"source": assignment.document.source, "target": assignment.document.target}
    problems, result, seen = [], [], set()
    for i, span in enumerate(spans):
        key = f"spans[{i}]"
        if not isinstance(span, dict):
            problems.append({"field": key, "message": "must be {side, start, end}"})
            continue
        side, start, end = span.get("side"), span.get("start"), span.get("end")
        problem = span_problem(side, start, end, texts, sides=edit_type.sides,
                               kind=edit_type.label)
        if problem:
            problems.append({"field": f"{key}.side" if side not in edit_type.sides else key,
                             "message": problem})
            continue
        if (side, start, end) not in seen:
            seen.add((side, start, end))
            result.append(Span(side=side, start=start, end=end))
    if problems:
        raise ValidationFailed(problems)
    return result


def validate_fields(fields: Any, specs: tuple[FieldSpec, ...]) -> dict[str, Any]:
    if not isinstance(fields, dict):
        raise ValidationFailed([{"field": "fields", "message": "must be an object"}])
    known = {f.name: f for f in specs}
    problems, clean = [], {}
    for name, value in fields.items():
        spec = known.get(name)
        if spec is None:
            problems.append({"field": f"fields.{name}", "message": "not a field of this type"})
        elif value in (None, ""):
            continue
        elif not _value_fits(spec, value):
            allowed = ", ".join(repr(v) for v in spec.option_values()) or "text"
            problems.append({"field": f"fields.{name}", "message": f"expected {allowed}"})
        else:
            clean[name] = value
    if problems:
        raise ValidationFailed(problems)
    return clean


def _value_fits(spec: FieldSpec, value: Any) -> bool:
    if spec.type == "text":
        return isinstance(value, str) and len(value) <= 20_000
    return spec.is_valid_value(value)


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
        suggestion = session.get(Suggestion, suggestion_id) if isinstance(suggestion_id, int) \
            else None
        if suggestion is None or suggestion.document_id != assignment.document_id:
            raise ValidationFailed([{"field": "suggestion_id", "message": "not a suggestion of "
                                     "this document"}])
    edit = Edit(assignment=assignment, edit_type=edit_type.name, fields=fields, spans=spans,
                suggestion_id=suggestion_id)
    session.add(edit)
    _touch(assignment)
    session.flush()
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
    _touch(assignment)
    session.flush()
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
    session.delete(edit)
    session.flush()


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
    if value not in (None, "") and not _value_fits(spec, value):
        raise ValidationFailed([{"field": "value", "message": "expected one of " + ", ".join(
            repr(v) for v in spec.option_values())}])
    rationale = data.get("rationale")
    if rationale is not None and not isinstance(rationale, str):
        raise ValidationFailed([{"field": "rationale", "message": "must be text"}])
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
    return rating


# ---------------------------------------------------------------- suggestions, time, status


def record_suggestion_action(session: Session, assignment: Assignment, suggestion_id: Any,
                             action: Any, edit_id: Any = None) -> SuggestionAction:
    if action not in SUGGESTION_ACTIONS:
        raise ValidationFailed([{"field": "action", "message": "'accepted' or 'dismissed'"}])
    suggestion = session.get(Suggestion, suggestion_id) if isinstance(suggestion_id, int) else None
    if suggestion is None or suggestion.document_id != assignment.document_id:
        raise ValidationFailed([{"field": "suggestion", "message": "not a suggestion of this "
                                 "document"}])
    if edit_id is not None:
        edit = session.get(Edit, edit_id) if isinstance(edit_id, int) else None
        if edit is None or edit.assignment_id != assignment.id:
            raise ValidationFailed([{"field": "edit_id", "message": "not an edit of yours"}])
    record = session.scalar(select(SuggestionAction).where(
        SuggestionAction.suggestion_id == suggestion.id,
        SuggestionAction.user_id == assignment.user_id))
    if record is None:
        record = SuggestionAction(suggestion_id=suggestion.id, user_id=assignment.user_id)
        session.add(record)
    record.action, record.edit_id = action, edit_id
    session.flush()
    return record


def add_time(session: Session, assignment: Assignment, seconds: Any) -> float:
    """Add active time reported by the page (it pauses while the tab is hidden or idle).

    An atomic increment in SQL, outside the version check: time from two tabs adds up
    instead of conflicting, and a heartbeat never makes the annotator's next save stale.
    """
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0:
        raise ValidationFailed([{"field": "seconds", "message": "a non-negative number"}])
    if assignment.status != "done":
        session.execute(
            update(Assignment).where(Assignment.id == assignment.id).values(
                seconds_spent=Assignment.seconds_spent + min(float(seconds),
                                                             MAX_TIME_REPORT_SECONDS)))
        session.refresh(assignment, ["seconds_spent"])
    return assignment.seconds_spent


def missing_for_done(assignment: Assignment, schema: Schema) -> list[dict[str, Any]]:
    """Everything that blocks "mark document done": required fields and sides of each edit,
    required ratings of each item."""
    missing = []
    for edit in assignment.edits:
        edit_type = schema.edit_type(edit.edit_type)
        if edit_type is None:
            continue
        sides = {s.side for s in edit.spans}
        for side in edit_type.required_sides:
            if side not in sides:
                label = SIDE_LABELS[side]
                missing.append({"edit_id": edit.id, "field": f"spans.{side}",
                                "message": f"{edit_type.label} #{edit.id}: mark a span in the "
                                           f"{label}"})
        for spec in edit_type.fields:
            if spec.required and edit.fields.get(spec.name) in (None, ""):
                missing.append({"edit_id": edit.id, "field": spec.name,
                                "message": f"{edit_type.label} #{edit.id}: {spec.label} is "
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
    """Mark done (if complete) or reopen. Returns the list of missing items (empty = done)."""
    if status not in ANNOTATOR_SET_STATUSES:
        raise ValidationFailed([{"field": "status", "message": "'done' or 'in_progress'"}])
    _check_version(assignment, version, "assignment", assignment_to_dict(assignment))
    if status == "done":
        missing = missing_for_done(assignment, project_schema(assignment.document.project))
        if missing:
            return missing
        assignment.completed_at = datetime.now(timezone.utc)
    else:
        assignment.completed_at = None
    before = assignment.status
    assignment.status = status
    session.flush()
    audit.record(session, "assignment.status", user_id=user_id,
                 project_id=assignment.document.project_id, object_type="assignment",
                 object_id=assignment.id, before=before, after=status)
    return []


def _touch(assignment: Assignment) -> None:
    if assignment.status == "assigned":
        assignment.status = "in_progress"
    if assignment.started_at is None:
        assignment.started_at = datetime.now(timezone.utc)
