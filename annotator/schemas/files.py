"""Schema files of every kind, and writing a schema back as this tool's YAML.

:func:`load_schema_file` reads a file by its content, not its name ending: a Label Studio
labeling config (XML, a ``<View>`` root), a Thresh typology (YAML with an ``edits:`` list)
or this tool's schema YAML (``edit_types:`` / ``ratings:``). Whatever the input, a project
stores the schema as this tool's YAML (:func:`dump_schema`), so a project never depends on
the file it was made from and ``annotator schema show FILE`` can print what was understood.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from annotator.schemas import FieldSpec, Schema, SchemaError, parse_schema, read_yaml, resolve
from annotator.schemas.bounded import SchemaOutOfBounds, check_byte_size, check_size, check_xml
from annotator.schemas.thresh_typology import parse_typology


def schema_kind(text: str) -> str:
    """``labelstudio``, ``thresh`` or ``yaml``: what a schema file is, by its content."""
    if text.lstrip().startswith("<"):
        return "labelstudio"
    try:
        data = read_yaml(text)
    except SchemaError:
        return "yaml"  # parse_schema reports the YAML error with its line
    if isinstance(data, dict) and "edits" in data and "edit_types" not in data:
        return "thresh"
    return "yaml"


def load_schema(name_or_path: str) -> Schema:
    """A built-in schema by name, or any schema file (:func:`load_schema_file`: our YAML, a
    Thresh typology, a Label Studio config). Here rather than in the package's
    ``__init__``, which this module builds on: the imports inside ``schemas/`` go one way."""
    return load_schema_file(resolve(name_or_path))


def load_schema_file(path: str | Path) -> Schema:
    """Any schema file (this tool's YAML, a Thresh typology, a Label Studio config) as a
    Schema whose ``source_text`` is this tool's YAML for it."""
    path = Path(path)
    try:
        check_byte_size(path.stat().st_size)  # a file beyond the limit is refused unread
        text = path.read_text(encoding="utf-8")
    except SchemaOutOfBounds as exc:
        raise SchemaError.out_of_bounds(str(path), exc) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaError(str(path), "file", "a readable UTF-8 text file", str(exc)) from None
    return schema_from_text(text, str(path))


def schema_from_text(text: str, name: str) -> Schema:
    """The text of a schema file of any kind (an upload on the web page; ``name``, the
    file's name, is what error messages cite) as a Schema, like :func:`load_schema_file`."""
    try:
        check_size(text)
        kind = schema_kind(text)
        if kind == "labelstudio":
            check_xml(text)
    except SchemaOutOfBounds as exc:
        raise SchemaError.out_of_bounds(name, exc) from None
    if kind == "yaml":
        return parse_schema(text, name)
    if kind == "thresh":
        schema = parse_typology(text, name)
    else:
        # Imported on use: label-studio-sdk (a second or more to import, and optional) is
        # loaded for a Label Studio config only.
        try:
            from annotator.schemas.labelstudio_config import parse_labelstudio_config
        except ImportError:
            raise SchemaError(name, "(top level)", "a YAML schema or Thresh typology "
                              "(Label Studio configs are not readable here yet)",
                              "an XML file") from None
        schema = parse_labelstudio_config(text, name)
    # Round through our own format: the project stores (and later re-reads) this text.
    return parse_schema(dump_schema(schema), name)


def dump_schema(schema: Schema) -> str:
    """The schema as this tool's YAML (conditional questions flat, with ``when``)."""
    data: dict[str, Any] = {"name": schema.name, "title": schema.title}
    if schema.description:
        data["description"] = schema.description
    data["unit"] = schema.unit
    if schema.mode != "annotation":
        data["mode"] = schema.mode
    if schema.guideline:
        data["guideline"] = schema.guideline
    if schema.edit_types:
        data["edit_types"] = [_edit_type(e) for e in schema.edit_types]
    if schema.ratings:
        data["ratings"] = [_field(f, rating=True) for f in schema.ratings]
    if schema.prehighlighters:
        data["prehighlighters"] = list(schema.prehighlighters)
    if schema.suggestion_types:
        data["suggestion_types"] = dict(schema.suggestion_types)
    if schema.labelstudio:
        data["labelstudio"] = dict(schema.labelstudio)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _edit_type(e) -> dict[str, Any]:
    out: dict[str, Any] = {"name": e.name, "label": e.label}
    if e.description:
        out["description"] = e.description
    out["sides"] = list(e.sides)
    out["required_sides"] = list(e.required_sides)
    if e.composite:
        out["composite"] = True
    if not e.multi_span:
        out["multi_span"] = False
    out["color"] = e.color
    if e.key:
        out["key"] = e.key
    if e.fields:
        out["fields"] = [_field(f) for f in e.fields]
    return out


def _field(f: FieldSpec, rating: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f.name, "label": f.label, "type": f.type}
    if rating:
        out["level"] = f.level
    if f.required:
        out["required"] = True
    if f.help:
        out["help"] = f.help
    if f.placeholder:
        out["placeholder"] = f.placeholder
    if f.when is not None:
        parent, values = f.when
        out["when"] = {parent: values[0] if len(values) == 1 else list(values)}
    if f.thresh_nested:
        out["thresh_nested"] = True
    if f.options:
        out["options"] = [
            {"value": o.value, "label": o.label,
             **({"agreement_value": o.agreement_value} if o.agreement_value is not None else {})}
            for o in f.options]
    return out


def project_schema(project) -> Schema:
    """The schema frozen into a project when it was created (any object with
    ``schema_yaml`` and ``schema_name``: a ``Project`` row), parsed once per text."""
    return _parse_cached(project.schema_yaml, project.schema_name)


@lru_cache(maxsize=64)
def _parse_cached(text: str, name: str) -> Schema:
    return parse_schema(text, f"project schema {name}")
