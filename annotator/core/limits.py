"""Size limits on what people send (configurable, so a study with long documents can raise
them): a 50 MB document would make a 112 MB annotation page, and an edit with 100,000
spans is no one's annotation.

Read from the environment on use, so the web app and every command agree:

- ``ANNOTATOR_MAX_TEXT_CHARS``: characters per source or target text (imports) and per
  text field an annotator saves (a question, an answer, a comment, a rationale);
- ``ANNOTATOR_MAX_SPANS_PER_EDIT``: spans of one edit (API saves and imports);
- ``ANNOTATOR_MAX_REQUEST_BYTES``: size of one request body (answered with 413);
- schema files (this tool's YAML, Thresh typologies, Label Studio configs), read alike by
  ``annotator schema show`` / ``project create`` / ``project schema`` and the project
  pages (issue 41: a 370-byte YAML alias bomb took the server down, 10,000 nested
  brackets gave a RecursionError): ``ANNOTATOR_MAX_SCHEMA_BYTES`` (size of the file),
  ``ANNOTATOR_MAX_SCHEMA_DEPTH`` (levels of nesting), ``ANNOTATOR_MAX_SCHEMA_VALUES``
  (YAML values or XML elements, counted with every alias expanded),
  ``ANNOTATOR_MAX_SCHEMA_EDIT_TYPES`` and ``ANNOTATOR_MAX_SCHEMA_OPTIONS`` (options of one
  question). The defaults are far above the published schemas: the largest, SALSA's
  Thresh typology, is 11 KB, 12 levels deep, 588 values, 6 edit types of at most 6
  options; InfoLossQA's Label Studio config is 15 KB (and a Number control makes at most
  101 options).
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_text_chars: int = 200_000
    max_spans_per_edit: int = 100
    max_request_bytes: int = 4 * 1024 * 1024
    max_schema_bytes: int = 256 * 1024
    max_schema_depth: int = 32
    max_schema_values: int = 20_000
    max_schema_edit_types: int = 200
    max_schema_options: int = 200


def _int(env, key: str, default: int) -> int:
    raw = env.get(key)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{key}={raw!r}: expected a whole number") from None
    if value < 1:
        raise ValueError(f"{key}={raw!r}: must be at least 1")
    return value


def current_limits(environ=None) -> Limits:
    env = os.environ if environ is None else environ
    base = Limits()
    return Limits(
        max_text_chars=_int(env, "ANNOTATOR_MAX_TEXT_CHARS", base.max_text_chars),
        max_spans_per_edit=_int(env, "ANNOTATOR_MAX_SPANS_PER_EDIT", base.max_spans_per_edit),
        max_request_bytes=_int(env, "ANNOTATOR_MAX_REQUEST_BYTES", base.max_request_bytes),
        max_schema_bytes=_int(env, "ANNOTATOR_MAX_SCHEMA_BYTES", base.max_schema_bytes),
        max_schema_depth=_int(env, "ANNOTATOR_MAX_SCHEMA_DEPTH", base.max_schema_depth),
        max_schema_values=_int(env, "ANNOTATOR_MAX_SCHEMA_VALUES", base.max_schema_values),
        max_schema_edit_types=_int(env, "ANNOTATOR_MAX_SCHEMA_EDIT_TYPES",
                                   base.max_schema_edit_types),
        max_schema_options=_int(env, "ANNOTATOR_MAX_SCHEMA_OPTIONS", base.max_schema_options),
    )
