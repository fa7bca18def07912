"""Thresh annotation files and typologies (Heineman, Dou & Xu 2023, "Thresh: A Unified,
Customizable and Deployable Platform for Fine-Grained Text Evaluation", thresh.tools).

A Thresh file is one annotator's work: a JSON list of records ::

    {"id": "d1", "source": "...", "target": "...",
     "edits": [{"category": "omission", "id": 0, "annotation": {"question": "..."},
                "input_idx": [[12, 30]], "output_idx": null}],
     "_thresh_id": 0, "_seconds_spent": 312.5, "_completed": true}

``input_idx`` are character spans in the source (the original), ``output_idx`` in the target
(the simplification); either may be absent or null. This module also writes our own
metadata keys, which Thresh ignores: ``_annotator``, ``_ratings`` (item-level ratings),
``_meta`` (document metadata) and ``_status``.

Categories map to the schema's edit types: an edit type's own name always works; the
built-in aliases (InfoLossQA's ``omission`` -> deletion, ``concept`` -> oversimplification,
``trailing`` -> overgeneration, wherever the schema has that edit type), the project
setting ``category_map`` and ``--map CATEGORY=TYPE`` add or override aliases. A category that maps to nothing is kept as an edit of the schema's comment
type (an edit type named ``comment``, or the project setting ``comment_edit_type``) with
the category and its annotation in the comment text, and reported; without a comment type
the import fails naming the file, line and field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from annotator.ingest.readers import IngestError, Problem
from annotator.interop.records import (
    AnnotationRecord, EditIn, RatingIn, load_json_array, record_id, record_owner, span_pairs,
)
from annotator.interop.infolossqa import EDIT_TYPE_OF_CATEGORY
from annotator.schemas import Schema

# Thresh categories of published typologies -> edit types; an alias applies to every schema
# that has the edit type it points to (InfoLossQA's omission/concept, SimpleOG's trailing).
CATEGORY_ALIASES: dict[str, str] = {
    **EDIT_TYPE_OF_CATEGORY,
    "trailing": "overgeneration", "insertion": "overgeneration", "error": "error_span",
}
RESERVED = {"id", "source", "target", "edits", "_thresh_id", "_seconds_spent", "_completed",
            "_annotator", "annotator", "_ratings", "_meta", "meta", "_status"}


def category_map(schema: Schema, settings: dict | None = None,
                 overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Thresh category -> edit type: built-ins, then project settings, then overrides."""
    mapping = {alias: name for alias, name in CATEGORY_ALIASES.items()
               if schema.edit_type(name) is not None}
    mapping.update({e.name: e.name for e in schema.edit_types})
    mapping.update((settings or {}).get("category_map", {}) or {})
    mapping.update(overrides or {})
    return mapping


def comment_edit_type(schema: Schema, settings: dict | None = None) -> str | None:
    name = (settings or {}).get("comment_edit_type") or "comment"
    edit_type = schema.edit_type(name)
    return edit_type.name if edit_type and _comment_field(edit_type) else None


def _comment_field(edit_type) -> str | None:
    texts = [f.name for f in edit_type.fields if f.type == "text"]
    for preferred in ("comment", "text", "note"):
        if preferred in texts:
            return preferred
    return texts[0] if texts else None


def thresh_files(path: Path) -> list[Path]:
    """One file, or every ``*.json`` file of a folder (one per annotator)."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() == ".json")
        if not files:
            raise IngestError([Problem(str(path), None, None, "the folder holds no .json files")])
        return files
    return [path]


def read_thresh(path: Path, schema: Schema, *, annotator: str | None = None,
                settings: dict | None = None, overrides: dict[str, str] | None = None,
                notes: list[str] | None = None) -> list[AnnotationRecord]:
    """Parse Thresh files into records; raise IngestError listing every problem."""
    mapping = category_map(schema, settings, overrides)
    comment_type = comment_edit_type(schema, settings)
    files = thresh_files(path)
    records, problems = [], []
    notes = notes if notes is not None else []
    for file in files:
        fallback = annotator or (file.stem if path.is_dir() else None)
        try:
            rows = load_json_array(file)
        except IngestError as exc:
            problems += exc.problems
            continue
        for line, row in rows:
            record = _record(row, str(file), line, fallback, schema, mapping, comment_type,
                             problems, notes)
            if record is not None:
                records.append(record)
    if problems:
        raise IngestError(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    return records


def _record(row: Any, name: str, line: int, fallback: str | None, schema: Schema,
            mapping: dict[str, str], comment_type: str | None, problems: list[Problem],
            notes: list[str]) -> AnnotationRecord | None:
    if not isinstance(row, dict):
        problems.append(Problem(name, line, None, "expected an object with id, source, target "
                                                  "and edits"))
        return None
    before = len(problems)
    doc_id = record_id(row, "id", name, line, problems)
    who = record_owner(row, ("_annotator", "annotator"), fallback, name, line, problems,
                       "no annotator: pass --annotator NAME or give '_annotator' in the record")
    texts = {}
    for key in ("source", "target"):
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            problems.append(Problem(name, line, key, "required: a non-empty string"))
        texts[key] = value
    edits_value = row.get("edits") or []
    if not isinstance(edits_value, list):
        problems.append(Problem(name, line, "edits", "must be a list"))
        edits_value = []
    edits = []
    for i, raw in enumerate(edits_value):
        edit = _edit(raw, f"edits[{i}]", name, line, schema, mapping, comment_type, problems,
                     notes)
        if edit is not None:
            edits.append(edit)
    ratings = _ratings(row.get("_ratings"), name, line, problems)
    seconds = row.get("_seconds_spent", 0) or 0
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0:
        problems.append(Problem(name, line, "_seconds_spent", "must be a non-negative number"))
    meta = row.get("_meta", row.get("meta", {})) or {}
    if not isinstance(meta, dict):
        problems.append(Problem(name, line, "_meta", "must be an object"))
    if len(problems) > before:
        return None
    meta = {**{k: v for k, v in row.items() if k not in RESERVED}, **meta}
    status = row.get("_status")
    if status not in ("done", "in_progress"):
        status = "in_progress" if row.get("_completed") is False else "done"
    return AnnotationRecord(document_id=doc_id, annotator=who, line=line,
                            source=texts["source"], target=texts["target"], meta=meta,
                            edits=edits, ratings=ratings, seconds_spent=float(seconds),
                            status=status, file=name)


def _edit(raw: Any, where: str, name: str, line: int, schema: Schema, mapping: dict[str, str],
          comment_type: str | None, problems: list[Problem], notes: list[str]) -> EditIn | None:
    if not isinstance(raw, dict):
        problems.append(Problem(name, line, where, "must be an object with a category"))
        return None
    category = raw.get("category")
    if not isinstance(category, str) or not category.strip():
        problems.append(Problem(name, line, f"{where}.category", "required: a category name"))
        return None
    annotation = raw.get("annotation") or {}
    if not isinstance(annotation, dict):
        problems.append(Problem(name, line, f"{where}.annotation", "must be an object"))
        return None
    spans = (span_pairs(raw.get("input_idx"), "source", f"{where}.input_idx", name, line,
                        problems)
             + span_pairs(raw.get("output_idx"), "target", f"{where}.output_idx", name, line,
                          problems))
    edit_type = mapping.get(category) or mapping.get(category.lower())
    if edit_type is not None:
        return EditIn(edit_type, dict(annotation), spans, where)
    if comment_type is None:
        problems.append(Problem(name, line, f"{where}.category",
                                f"category {category!r} maps to no edit type of schema "
                                f"{schema.name!r} ({', '.join(e.name for e in schema.edit_types)}"
                                f") and the schema has no comment edit type to keep it; map it "
                                f"with --map {category}=TYPE"))
        return None
    field = _comment_field(schema.edit_type(comment_type))
    text = f"Thresh category {category!r}"
    if annotation:
        text += ": " + json.dumps(annotation, ensure_ascii=False, sort_keys=True)
    notes.append(f"{name}:{line}: {where}: category {category!r} kept as a {comment_type} edit")
    return EditIn(comment_type, {field: text}, spans, where)


def _ratings(value: Any, name: str, line: int, problems: list[Problem]) -> list[RatingIn]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(Problem(name, line, "_ratings", "must be a list"))
        return []
    ratings = []
    for i, item in enumerate(value):
        where = f"_ratings[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("field"), str):
            problems.append(Problem(name, line, where, "must be {level, item, field, value}"))
            continue
        ratings.append(RatingIn(str(item.get("level", "document")), str(item.get("item", "")),
                                item["field"], item.get("value"), item.get("rationale"),
                                f"{where}.value"))
    return ratings


def to_thresh(records: list[AnnotationRecord]) -> dict[str, list[dict]]:
    """Records -> one Thresh file (a list of records) per annotator."""
    files: dict[str, list[dict]] = {}
    for r in records:
        out = files.setdefault(r.annotator, [])
        per_category: dict[str, int] = {}
        edits = []
        for e in r.edits:
            number = per_category.get(e.edit_type, 0)
            per_category[e.edit_type] = number + 1
            source = [[s.start, s.end] for s in e.spans if s.side == "source"]
            target = [[s.start, s.end] for s in e.spans if s.side == "target"]
            edits.append({"category": e.edit_type, "id": number, "annotation": e.fields,
                          "input_idx": source or None, "output_idx": target or None})
        record = {"id": r.document_id, "source": r.source, "target": r.target, "edits": edits,
                  "_thresh_id": len(out), "_seconds_spent": r.seconds_spent,
                  "_completed": r.status == "done", "_status": r.status,
                  "_annotator": r.annotator}
        if r.ratings:
            record["_ratings"] = [{"level": g.level, "item": g.item, "field": g.field,
                                   "value": g.value, "rationale": g.rationale}
                                  for g in r.ratings]
        if r.meta:
            record["_meta"] = r.meta
        out.append(record)
    return files


def typology_yaml(schema: Schema) -> str:
    """A Thresh typology (the YAML that configures a Thresh interface) for the schema's edit
    types: each becomes an edit with input/output enabled per its sides and one question
    per field (options for choice/ordinal fields, a text box for text fields)."""
    edits = []
    for e in schema.edit_types:
        questions = []
        for f in e.fields:
            question: dict[str, Any] = {"name": f.name, "question": f.label}
            if f.type == "text":
                question["options"] = "textbox"
            else:
                question["options"] = [{"name": str(o.value), "label": o.label}
                                       for o in f.options]
            if f.required:
                question["required"] = True
            questions.append(question)
        both = set(e.sides) == {"source", "target"}
        edits.append({
            "name": e.name, "label": e.label, "color": e.color,
            "type": "multi_span" if both else "single_span",
            "enable_input": "source" in e.sides, "enable_output": "target" in e.sides,
            **({"annotation": questions} if questions else {}),
        })
    typology = {"template_name": schema.name, "template_label": schema.title,
                "instructions": schema.description or schema.title, "edits": edits}
    return yaml.safe_dump(typology, sort_keys=False, allow_unicode=True)
