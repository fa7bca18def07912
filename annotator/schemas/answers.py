"""Answers checked against a schema, once: an edit's fields and a rating's value.

The annotation API (``annotate/store``), every annotation importer (``interop/records``),
the adjudication merge and a schema revision ask here, so a value one of them accepts is
accepted by all. Pure (no database), so a file reader can check a whole file before anything
is stored. Problems are ``{"field", "message"}`` dicts, the JSON API's 422 form; importers
turn them into FILE:LINE problems.
"""

from __future__ import annotations

from typing import Any

from annotator.core.limits import current_limits
from annotator.core.problems import ValidationFailed
from annotator.core.shown import got
from annotator.schemas import FieldSpec, unmet_condition


def validate_fields(fields: Any, specs: tuple[FieldSpec, ...]) -> dict[str, Any]:
    """The answered fields of an edit (empty answers dropped), or ValidationFailed naming
    every field that is unknown, too long, not an option, or answered where its condition
    (``when:``) does not hold."""
    if not isinstance(fields, dict):
        raise ValidationFailed([{"field": "fields", "message": "must be an object"}])
    known = {f.name: f for f in specs}
    problems, clean = [], {}
    for name, value in fields.items():
        spec = known.get(name)
        if spec is None:
            problems.append({"field": f"fields.{name}", "message": "not a field of this type"
                             + got(value)})
        elif value in (None, ""):
            continue
        elif (wrong := value_problem(spec, value)) is not None:
            problems.append({"field": f"fields.{name}", "message": wrong})
        else:
            clean[name] = value
    for name, value in clean.items():
        spec = known[name]
        unmet = unmet_condition(spec, specs, clean) if spec.when is not None else None
        if unmet is not None:
            parent, values = unmet
            wanted = " or ".join(repr(v) for v in values)
            problems.append({"field": f"fields.{name}", "message": f"only answered when "
                             f"{parent} is {wanted} (it is {clean.get(parent)!r})"
                             + got(value)})
    if problems:
        raise ValidationFailed(problems)
    return clean


def value_problem(spec: FieldSpec, value: Any) -> str | None:
    """Why ``value`` cannot answer ``spec`` (a text beyond the limit, not an option), or
    None. An empty answer (None or "") is always acceptable: it means "not answered"."""
    if value in (None, ""):
        return None
    too_long = text_too_long(value) if spec.type == "text" else None
    if too_long:
        return too_long
    fits = isinstance(value, str) if spec.type == "text" else spec.is_valid_value(value)
    if not fits:
        allowed = ", ".join(repr(v) for v in spec.option_values()) or "text"
        return f"expected {allowed}" + got(value)
    return None


def text_too_long(value: Any) -> str | None:
    """The message for a text beyond ``ANNOTATOR_MAX_TEXT_CHARS`` (None if it fits or is
    not text); the page warns at the same limit while the annotator types."""
    limit = current_limits().max_text_chars
    if isinstance(value, str) and len(value) > limit:
        return f"{len(value):,} characters; the limit is {limit:,} (ANNOTATOR_MAX_TEXT_CHARS)"
    return None


def rationale_problem(rationale: Any) -> str | None:
    """Why a rating's rationale is not acceptable (not text, too long), or None."""
    if rationale is None:
        return None
    if not isinstance(rationale, str):
        return "must be text" + got(rationale)
    return text_too_long(rationale)
