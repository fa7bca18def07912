"""Size limits on what people send (configurable, so a study with long documents can raise
them): a 50 MB document would make a 112 MB annotation page, and an edit with 100,000
spans is no one's annotation.

Set from the environment once, by the settings object (``annotator.config``, which installs
them here with :func:`use_limits`); this module only defines them and keeps the ones in
effect, so the pure layers read them without reading the environment:

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

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Each field is set by the variable ``ANNOTATOR_`` + its name in capitals."""

    max_text_chars: int = 200_000
    max_spans_per_edit: int = 100
    max_request_bytes: int = 4 * 1024 * 1024
    max_schema_bytes: int = 256 * 1024
    max_schema_depth: int = 32
    max_schema_values: int = 20_000
    max_schema_edit_types: int = 200
    max_schema_options: int = 200


_in_effect = Limits()


def use_limits(limits: Limits) -> None:
    """Install the limits every later check reads (``annotator.config.use`` calls it)."""
    global _in_effect
    _in_effect = limits


def current_limits() -> Limits:
    """The limits in effect: the defaults until the settings object installs its own."""
    return _in_effect
