"""What a schema file says, as this tool understood it, in lines a lead reads before a study
starts: edit types and their sides, fields, options and conditions, ratings, the guideline.

One text for ``annotator schema show FILE`` and the preview of the web page that creates a
project, so both say the same thing.
"""

from __future__ import annotations

from annotator.core.vocabulary import SIDE_LABELS
from annotator.schemas import Schema
from annotator.schemas.guideline_text import schema_guideline
from annotator.schemas.thresh_typology import unused_keys

KINDS = {"yaml": "schema YAML", "thresh": "Thresh typology",
         "labelstudio": "Label Studio labeling config"}


def describe(schema: Schema, kind: str, text: str) -> list[str]:
    """The schema in lines; ``kind`` is :func:`annotator.schemas.files.schema_kind` of the
    file's ``text``."""
    lines = [f"{KINDS[kind]}: {schema.name} ({schema.title}); one record = one "
             f"{schema.unit} pair"]
    lines.append(f"{len(schema.edit_types)} edit types:")
    for e in schema.edit_types:
        if e.document_level:
            where = "document-level (no spans)"
        else:
            where = " + ".join(SIDE_LABELS[s] for s in e.sides)
            where += ", several spans per side" if e.multi_span else ", one span per side"
        if e.composite:
            where += ", composite (made of constituent edits)"
        lines.append(f"  {e.name} ({e.label}): {where}")
        for f in e.fields:
            lines.append("    " + _field_line(f))
    if schema.ratings:
        lines.append(f"{len(schema.ratings)} rating fields:")
        for r in schema.ratings:
            lines.append(f"  [{r.level}] " + _field_line(r))
    if schema.prehighlighters:
        lines.append("pre-highlighters: " + ", ".join(schema.prehighlighters))
    lines.append(_guideline_line(schema))
    if kind == "thresh":
        unused = unused_keys(text)
        if unused:
            lines.append("not used (Thresh page layout only): " + ", ".join(unused))
    return lines


def _guideline_line(schema: Schema) -> str:
    """Where the annotators' guideline tab (and a release's guideline.md) comes from."""
    guideline = schema_guideline(schema)
    if guideline.file:
        return f"guideline: the file {guideline.file}"
    if guideline.markdown is not None:
        lines = [line for line in guideline.markdown.splitlines() if line.strip()]
        return (f"guideline: {len(lines)} line{'s' if len(lines) != 1 else ''} of text from "
                f"the schema file, starting {lines[0][:60]!r}")
    if guideline.missing_file:
        return f"guideline: the file {guideline.missing_file}, which is not here (none shown)"
    return "guideline: none"


def _field_line(f) -> str:
    line = f"{f.name}: {f.type}" + (", required" if f.required else "")
    if f.options:
        line += " [" + ", ".join(_option(o) for o in f.options) + "]"
    if f.when is not None:
        parent, values = f.when
        line += f"  (asked when {parent} is " + " or ".join(repr(v) for v in values) + ")"
    return line


def _option(o) -> str:
    shown = repr(o.value)
    if o.agreement_value is not None:
        shown += f"={o.agreement_value}"
    return shown
