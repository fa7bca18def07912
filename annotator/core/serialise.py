"""The plain-data form of an annotator's records, once.

Every stage that hands an edit, a rating, a suggestion or an assignment on (JSON API, audit
log, adjudication snapshots, agreement input, exports, releases) starts from these dicts.
They only read attributes, so they work on the ORM rows without importing SQLAlchemy.
Spans come in the order they were marked (or listed in an imported file; the ORM orders an
edit's spans by id): "the first span of an edit" is the first one marked, which is what the
published InfoLossQA first-span figures score, and Thresh's span lists round-trip as they
were. Code that compares span sets compares them as sets.
"""

from __future__ import annotations

from typing import Any

from annotator.core.keys import rating_key


def span_to_dict(span) -> dict[str, Any]:
    return {"side": span.side, "start": span.start, "end": span.end}


def spans_to_dicts(spans) -> list[dict[str, Any]]:
    return [span_to_dict(s) for s in spans]


def edit_to_dict(edit) -> dict[str, Any]:
    return {
        "id": edit.id,
        "edit_type": edit.edit_type,
        "fields": dict(edit.fields or {}),
        "spans": spans_to_dicts(edit.spans),
        "suggestion_id": edit.suggestion_id,
        "parent_id": edit.parent_id,
        "meta": dict(edit.meta or {}),
        "version": edit.version,
    }


def rating_to_dict(rating) -> dict[str, Any]:
    return {"id": rating.id, "key": rating_key(rating.level, rating.item, rating.field),
            "level": rating.level, "item": rating.item, "field": rating.field,
            "value": rating.value, "rationale": rating.rationale, "version": rating.version}


def suggestion_to_dict(suggestion, action: str | None = None) -> dict[str, Any]:
    return {"id": suggestion.id, "kind": suggestion.kind,
            "source_spans": suggestion.source_spans, "target_spans": suggestion.target_spans,
            "score": suggestion.score, "target_score": suggestion.target_score,
            "kind_scores": suggestion.kind_scores,
            "method": suggestion.method,
            "explanation": suggestion.explanation, "category": suggestion.category,
            "action": action}


def assignment_to_dict(assignment) -> dict[str, Any]:
    return {"id": assignment.id, "status": assignment.status, "version": assignment.version,
            "seconds_spent": round(assignment.seconds_spent or 0.0, 1),
            "user": assignment.user.username, "meta": dict(assignment.meta or {})}


def _field_to_dict(f) -> dict[str, Any]:
    return {"name": f.name, "label": f.label, "type": f.type, "required": f.required,
            "help": f.help, "level": f.level,
            # The schema's example answer, shown greyed in an empty box.
            "placeholder": getattr(f, "placeholder", "") or "",
            # A conditional question: [field, [values]] it depends on, or null.
            "when": [f.when[0], list(f.when[1])] if getattr(f, "when", None) else None,
            "options": option_dicts(f)}


def option_dicts(field) -> list[dict[str, Any]]:
    """A choice field's options as the pages read them: ``[{"value", "label"}]``."""
    return [{"value": o.value, "label": o.label} for o in field.options]


def schema_to_dict(schema) -> dict[str, Any]:
    """What the pages need of a schema: its mode, edit types, rating fields and which edit
    type each suggestion kind becomes when accepted."""
    return {
        "name": schema.name, "title": schema.title, "unit": schema.unit, "mode": schema.mode,
        "guideline": schema.guideline,
        "edit_types": [{"name": e.name, "label": e.label, "sides": list(e.sides),
                        "required_sides": list(e.required_sides), "color": e.color,
                        "key": e.key, "description": e.description,
                        "composite": e.composite, "multi_span": e.multi_span,
                        "fields": [_field_to_dict(f) for f in e.fields]}
                       for e in schema.edit_types],
        "ratings": [_field_to_dict(r) for r in schema.ratings],
        "suggestion_types": dict(schema.suggestion_types),
    }
