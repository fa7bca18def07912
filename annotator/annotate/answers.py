"""One check of a rating value, for every path that stores or keeps one: the schema's
options and text limit (:func:`annotator.schemas.answers.value_problem`), then the task
mode's own rule on the value (:func:`annotator.annotate.modes.rating_problem`, e.g.
PlainFact's "'external' cannot go with original sentence numbers").

Used by the annotation API (``annotate/store.set_rating``), every annotation importer
(``interop/records.check_records``), the lead's gold rating in adjudication
(``adjudication/ratings.resolve_rating``) and schema revisions
(``operations/schema_revision.breaking_problems``), so no path skips the mode's rule.
Edit fields have one check too (:func:`annotator.schemas.answers.validate_fields`); no
task mode adds a rule to them.
"""

from __future__ import annotations

from typing import Any

from annotator.annotate.modes import rating_problem
from annotator.schemas import FieldSpec, Schema
from annotator.schemas.answers import value_problem


def rating_value_problem(schema: Schema, spec: FieldSpec, value: Any) -> str | None:
    """Why ``value`` cannot be stored for rating field ``spec`` of ``schema``, or None.
    An empty answer (None or "") passes: it means "not answered"."""
    return value_problem(spec, value) or rating_problem(schema, spec.name, value)
