"""Generic JSONL and CSV files of annotations and ratings (this tool's own shapes).

JSONL: one line per annotator and document ::

    {"document_id": "d1", "source": "...", "target": "...", "meta": {}, "annotator": "ana",
     "status": "done", "seconds_spent": 312.5,
     "edits": [{"edit_type": "deletion", "fields": {"question": "...", "answer": "..."},
                "spans": [{"side": "source", "start": 12, "end": 30}]}],
     "ratings": [{"level": "document", "item": "", "field": "simplicity", "value": 1,
                  "rationale": null}]}

CSV: one row per edit or rating (``kind`` = ``edit`` | ``rating``; ``assignment`` for work
with neither), columns ``document_id, annotator, status, seconds_spent, kind, edit_type,
source_spans, target_spans`` (spans as ``start-end;start-end``), one ``field:<name>`` column
per edit field of the schema, and ``rating_level, rating_item, rating_field, rating_value,
rating_rationale``. The CSV carries no texts: its documents must be in the project already.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from annotator.core.vocabulary import SIDES
from annotator.ingest.readers import IngestError, Problem
from annotator.interop.labelstudio_config import choice_to_value
from annotator.interop.records import (
    AnnotationRecord,
    EditIn,
    RatingIn,
    SpanIn,
    load_json_lines,
    read_text,
    record_id,
    record_owner,
)
from annotator.schemas import Schema

FIXED_COLUMNS = ["document_id", "annotator", "status", "seconds_spent", "kind", "edit_type",
                 "source_spans", "target_spans"]
RATING_COLUMNS = ["rating_level", "rating_item", "rating_field", "rating_value",
                  "rating_rationale"]


def to_jsonl(records: list[AnnotationRecord]) -> str:
    lines = []
    for r in records:
        lines.append(json.dumps({
            "document_id": r.document_id, "source": r.source, "target": r.target,
            "meta": r.meta, "annotator": r.annotator, "status": r.status,
            "seconds_spent": r.seconds_spent,
            "edits": [{"edit_type": e.edit_type, "fields": e.fields,
                       "spans": [{"side": s.side, "start": s.start, "end": s.end}
                                 for s in e.spans]} for e in r.edits],
            "ratings": [{"level": g.level, "item": g.item, "field": g.field, "value": g.value,
                         "rationale": g.rationale} for g in r.ratings],
        }, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def read_jsonl(path: Path, annotator: str | None = None) -> list[AnnotationRecord]:
    name, problems, records = str(path), [], []
    for line, row in load_json_lines(path):
        if not isinstance(row, dict):
            problems.append(Problem(name, line, None, "expected an object"))
            continue
        before = len(problems)
        doc_id = record_id(row, "document_id", name, line, problems)
        who = record_owner(row, ("annotator",), annotator, name, line, problems,
                           "required (or --annotator NAME)")
        edits = []
        for i, e in enumerate(row.get("edits") or []):
            where = f"edits[{i}]"
            if not isinstance(e, dict) or not isinstance(e.get("spans", []), list):
                problems.append(Problem(name, line, where, "must be {edit_type, fields, spans}"))
                continue
            spans = []
            for j, s in enumerate(e.get("spans", [])):
                ok = isinstance(s, dict) and all(isinstance(s.get(k), int) and not isinstance(
                    s.get(k), bool) for k in ("start", "end")) and s.get("side") in (
                    "source", "target")
                if not ok:
                    problems.append(Problem(name, line, f"{where}.spans[{j}]",
                                            "must be {side: source|target, start, end}"))
                    continue
                spans.append(SpanIn(s["side"], s["start"], s["end"], f"{where}.spans[{j}]"))
            edits.append(EditIn(str(e.get("edit_type")), e.get("fields") or {}, spans, where))
        ratings = [RatingIn(str(g.get("level", "document")), str(g.get("item", "")),
                            str(g.get("field")), g.get("value"), g.get("rationale"),
                            f"ratings[{i}].value")
                   for i, g in enumerate(row.get("ratings") or []) if isinstance(g, dict)]
        if len(problems) > before:
            continue
        source, target = row.get("source"), row.get("target")
        has_texts = isinstance(source, str) and isinstance(target, str)
        records.append(AnnotationRecord(
            doc_id, who, line, source if has_texts else None,
            target if has_texts else None, row.get("meta") or {}, edits, ratings,
            float(row.get("seconds_spent") or 0), _status(row.get("status")), name))
    if problems:
        raise IngestError(problems)
    return records


def _status(value: Any) -> str:
    return value if value in ("done", "in_progress") else "done"


def _spans_text(spans: list[SpanIn], side: str) -> str:
    return ";".join(f"{s.start}-{s.end}" for s in spans if s.side == side)


def edit_field_names(schema: Schema) -> list[str]:
    return list(dict.fromkeys(f.name for e in schema.edit_types for f in e.fields))


def to_csv(records: list[AnnotationRecord], schema: Schema) -> str:
    fields = edit_field_names(schema)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIXED_COLUMNS + [f"field:{f}" for f in fields] + RATING_COLUMNS)
    for r in records:
        base = [r.document_id, r.annotator, r.status, r.seconds_spent]
        for e in r.edits:
            values = [_cell(e.fields.get(f)) for f in fields]
            writer.writerow(base + ["edit", e.edit_type, _spans_text(e.spans, "source"),
                                    _spans_text(e.spans, "target")] + values
                            + [""] * len(RATING_COLUMNS))
        for g in r.ratings:
            writer.writerow(base + ["rating", "", "", ""] + [""] * len(fields)
                            + [g.level, g.item, g.field, _cell(g.value), g.rationale or ""])
        if not r.edits and not r.ratings:
            writer.writerow(base + ["assignment"] + [""] * (3 + len(fields)
                                                             + len(RATING_COLUMNS)))
    return out.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, list) else str(value)


def read_csv(path: Path, schema: Schema, annotator: str | None = None) -> list[AnnotationRecord]:
    name, problems = str(path), []
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    missing = [c for c in ("document_id", "kind") if c not in (reader.fieldnames or [])]
    if missing:
        raise IngestError([Problem(name, 1, c, "missing column") for c in missing])
    records: dict[tuple[str, str], AnnotationRecord] = {}
    for row in reader:
        line = reader.line_num
        doc_id = record_id(row, "document_id", name, line, problems)
        who = (row.get("annotator") or annotator or "").strip()
        if not who:
            problems.append(Problem(name, line, "annotator", "required (or --annotator NAME)"))
        if doc_id is None or not who:
            continue
        try:
            seconds = float(row.get("seconds_spent") or 0)
        except ValueError:
            problems.append(Problem(name, line, "seconds_spent", "must be a number"))
            seconds = 0.0
        record = records.setdefault((doc_id, who), AnnotationRecord(
            doc_id, who, line, seconds_spent=seconds, status=_status(row.get("status")),
            file=name))
        kind = row.get("kind")
        if kind == "edit":
            edit_type = row.get("edit_type") or ""
            spans = _parse_spans(row, name, line, problems)
            fields = {}
            spec_type = schema.edit_type(edit_type)
            for f in edit_field_names(schema):
                cell = row.get(f"field:{f}") or ""
                if cell:
                    spec = spec_type.field(f) if spec_type else None
                    fields[f] = _typed(cell, spec)
            record.edits.append(EditIn(edit_type, fields, spans, "edit_type"))
        elif kind == "rating":
            level, field = row.get("rating_level") or "document", row.get("rating_field") or ""
            cell = row.get("rating_value") or ""
            record.ratings.append(RatingIn(level, row.get("rating_item") or "", field,
                                           _typed(cell, schema.rating(field, level)) if cell
                                           else None, row.get("rating_rationale") or None,
                                           "rating_value"))
        elif kind != "assignment":
            problems.append(Problem(name, line, "kind", "must be edit, rating or assignment"))
    if problems:
        raise IngestError(problems)
    return list(records.values())


def _typed(cell: str, spec) -> Any:
    if spec is None or spec.type == "text":
        return cell
    if spec.type == "multichoice":
        try:
            items = json.loads(cell)
        except json.JSONDecodeError:
            return cell
        return [choice_to_value(spec, i)[1] for i in items] if isinstance(items, list) else cell
    return choice_to_value(spec, cell)[1]


def _parse_spans(row: dict, name: str, line: int, problems: list[Problem]) -> list[SpanIn]:
    spans = []
    for side in SIDES:
        column = f"{side}_spans"
        for piece in filter(None, (row.get(column) or "").split(";")):
            try:
                start, end = (int(x) for x in piece.split("-"))
            except ValueError:
                problems.append(Problem(name, line, column, f"{piece!r} is not start-end"))
                continue
            spans.append(SpanIn(side, start, end, column))
    return spans
