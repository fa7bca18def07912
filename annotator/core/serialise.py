"""The plain-data form of an annotator's records, once.

Every stage that hands an edit, a rating, a suggestion or an assignment on (JSON API, audit
log, adjudication snapshots, agreement input, exports, releases) starts from these dicts.
They only read attributes, so they work on the ORM rows without importing SQLAlchemy.
Spans are always in (side, start, end) order, so two serialisations of the same edit compare
equal whatever order the rows came in.
"""

from __future__ import annotations

from typing import Any

from annotator.core.keys import rating_key


def span_to_dict(span) -> dict[str, Any]:
    return {"side": span.side, "start": span.start, "end": span.end}


def spans_to_dicts(spans) -> list[dict[str, Any]]:
    return [span_to_dict(s) for s in sorted(spans, key=lambda s: (s.side, s.start, s.end))]


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
            "score": suggestion.score, "method": suggestion.method,
            "explanation": suggestion.explanation, "category": suggestion.category,
            "action": action}


def assignment_to_dict(assignment) -> dict[str, Any]:
    return {"id": assignment.id, "status": assignment.status, "version": assignment.version,
            "seconds_spent": round(assignment.seconds_spent or 0.0, 1),
            "user": assignment.user.username, "meta": dict(assignment.meta or {})}
