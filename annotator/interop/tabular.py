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
Cells that a spreadsheet would run as a formula are written with a leading ``'`` and read
back without it (:mod:`annotator.core.tables`), so an export imports as it was.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from annotator.core import strict_json
from annotator.core.records import IngestError, Problem
from annotator.core.shown import got
from annotator.core.spans import cell_pairs, read_spans
from annotator.core.strict_json import seconds_problem
from annotator.core.tables import cell_value, csv_text
from annotator.core.vocabulary import ASSIGNMENT_STATUSES, SIDES
from annotator.interop.records import (
    AnnotationRecord,
    EditIn,
    ImportOptions,
    RatingIn,
    SpanIn,
    drop_ignored,
    load_json_lines,
    read_text,
    record_id,
    record_owner,
)
from annotator.schemas import Schema, choice_to_value

FIXED_COLUMNS = ["document_id", "annotator", "status", "seconds_spent", "kind", "edit_type",
                 "source_spans", "target_spans"]
RATING_COLUMNS = ["rating_level", "rating_item", "rating_field", "rating_value",
                  "rating_rationale"]


# Keys of this tool's JSONL records, edits, spans and ratings: everything else in a file is
# refused (or dropped on purpose with --ignore), so no value is skipped without a word.
RECORD_KEYS = ("document_id", "source", "target", "meta", "annotator", "status",
               "seconds_spent", "edits", "ratings", "record_meta")
EDIT_KEYS = ("edit_type", "fields", "spans", "meta", "constituents")
SPAN_KEYS = ("side", "start", "end")
RATING_KEYS = ("level", "item", "field", "value", "rationale")
_INDEX = re.compile(r"\[\d+\]")


def _edit_json(e: EditIn) -> dict:
    out = {"edit_type": e.edit_type, "fields": e.fields,
           "spans": [{"side": s.side, "start": s.start, "end": s.end} for s in e.spans]}
    if e.meta:
        out["meta"] = e.meta
    if e.constituents:
        out["constituents"] = [_edit_json(c) for c in e.constituents]
    return out


def to_jsonl(records: list[AnnotationRecord]) -> str:
    lines = []
    for r in records:
        row = {
            "document_id": r.document_id, "source": r.source, "target": r.target,
            "meta": r.meta, "annotator": r.annotator, "status": r.status,
            "seconds_spent": r.seconds_spent,
            "edits": [_edit_json(e) for e in r.edits],
            "ratings": [{"level": g.level, "item": g.item, "field": g.field, "value": g.value,
                         "rationale": g.rationale} for g in r.ratings],
        }
        if r.assignment_meta:
            row["record_meta"] = r.assignment_meta
        lines.append(json.dumps(row, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def _unknown(obj: dict, allowed: tuple[str, ...], where: str, name: str, line: int,
             problems: list[Problem]) -> None:
    for key in obj:
        if key not in allowed:
            field = f"{where}.{key}" if where else key
            path = _INDEX.sub("", field)  # the --ignore path: list positions left out
            problems.append(Problem(name, line, field, f"unknown key (expected one of "
                                    f"{', '.join(allowed)}; --ignore {path} "
                                    f"drops it){got(obj[key])}"))


def _read_edit(e: Any, where: str, name: str, line: int, problems: list[Problem]) -> EditIn | None:
    if not isinstance(e, dict) or not isinstance(e.get("edit_type"), str):
        problems.append(Problem(name, line, where, "must be {edit_type, fields, spans}" + got(e)))
        return None
    _unknown(e, EDIT_KEYS, where, name, line, problems)
    fields, meta = e.get("fields", {}), e.get("meta", {})
    for key, value in (("fields", fields), ("meta", meta)):
        if not isinstance(value, dict):
            problems.append(Problem(name, line, f"{where}.{key}", "must be an object" + got(value)))
    parts = e.get("constituents", [])
    if not isinstance(parts, list):
        problems.append(Problem(name, line, f"{where}.constituents", "must be a list"
                                + got(parts)))
    raw_spans = e.get("spans", [])
    # The one span rule reads them; bounds are checked with the texts (check_records).
    checked, faults = read_spans(raw_spans, f"{where}.spans")
    problems.extend(f.at(name, line) for f in faults)
    for j, sp in enumerate(raw_spans if isinstance(raw_spans, list) else []):
        if isinstance(sp, dict):
            _unknown(sp, SPAN_KEYS, f"{where}.spans[{j}]", name, line, problems)
    spans = [SpanIn(sp.side, sp.start, sp.end, sp.where) for sp in checked]
    constituents = [_read_edit(c, f"{where}.constituents[{k}]", name, line, problems)
                    for k, c in enumerate(parts if isinstance(parts, list) else [])]
    return EditIn(e["edit_type"], fields if isinstance(fields, dict) else {}, spans, where,
                  meta=meta if isinstance(meta, dict) else {},
                  constituents=[c for c in constituents if c is not None])


def read_jsonl(path: Path, annotator: str | None = None, *,
               options: ImportOptions | None = None,
               ignored: dict[str, int] | None = None) -> list[AnnotationRecord]:
    """Records as :func:`to_jsonl` writes them; an unknown key, a status outside
    ASSIGNMENT_STATUSES or a value of the wrong shape is refused with its line and value."""
    options = options or ImportOptions()
    ignored = ignored if ignored is not None else {}
    name, problems, records = str(path), [], []
    for line, row in load_json_lines(path):
        if not isinstance(row, dict):
            problems.append(Problem(name, line, None, "expected an object" + got(row)))
            continue
        drop_ignored(row, options.ignore, ignored)
        before = len(problems)
        _unknown(row, RECORD_KEYS, "", name, line, problems)
        doc_id = record_id(row, "document_id", name, line, problems)
        who = record_owner(row, ("annotator",), annotator, name, line, problems,
                           "required (or --annotator NAME)")
        raw_edits, raw_ratings = row.get("edits", []), row.get("ratings", [])
        for key, value in (("edits", raw_edits), ("ratings", raw_ratings)):
            if not isinstance(value, list):
                problems.append(Problem(name, line, key, "must be a list" + got(value)))
        edits = [_read_edit(e, f"edits[{i}]", name, line, problems)
                 for i, e in enumerate(raw_edits if isinstance(raw_edits, list) else [])]
        ratings = []
        for i, g in enumerate(raw_ratings if isinstance(raw_ratings, list) else []):
            at = f"ratings[{i}]"
            if not isinstance(g, dict) or not isinstance(g.get("field"), str):
                problems.append(Problem(name, line, at, "must be {level, item, field, value, "
                                        "rationale}" + got(g)))
                continue
            _unknown(g, RATING_KEYS, at, name, line, problems)
            ratings.append(RatingIn(str(g.get("level", "document")), str(g.get("item", "")),
                                    g["field"], g.get("value"), g.get("rationale"),
                                    f"{at}.value"))
        status = row.get("status", "done")
        if status not in ASSIGNMENT_STATUSES:
            problems.append(Problem(name, line, "status", f"one of {', '.join(ASSIGNMENT_STATUSES)}"
                                    + got(status)))
        seconds = row.get("seconds_spent", 0)
        if seconds is not None and seconds_problem(seconds):
            problems.append(Problem(name, line, "seconds_spent", seconds_problem(seconds)
                                    + ", or null when unknown" + got(seconds)))
        for key in ("meta", "record_meta"):
            if not isinstance(row.get(key, {}), dict):
                problems.append(Problem(name, line, key, "must be an object" + got(row[key])))
        if len(problems) > before:
            continue
        source, target = row.get("source"), row.get("target")
        has_texts = isinstance(source, str) and isinstance(target, str)
        records.append(AnnotationRecord(
            doc_id, who, line, source if has_texts else None,
            target if has_texts else None, row.get("meta") or {}, edits, ratings,
            None if seconds is None else float(seconds), status, name,
            assignment_meta=row.get("record_meta") or {}, says_done=status == "done"))
    if problems:
        raise IngestError(problems)
    return records


def _spans_text(spans: list[SpanIn], side: str) -> str:
    return ";".join(f"{s.start}-{s.end}" for s in spans if s.side == side)


def edit_field_names(schema: Schema) -> list[str]:
    return list(dict.fromkeys(f.name for e in schema.edit_types for f in e.fields))


def to_csv(records: list[AnnotationRecord], schema: Schema) -> str:
    fields = edit_field_names(schema)
    rows = []
    for r in records:
        base = [r.document_id, r.annotator, r.status, r.seconds_spent]
        for e in r.edits:
            values = [_cell(e.fields.get(f)) for f in fields]
            rows.append(base + ["edit", e.edit_type, _spans_text(e.spans, "source"),
                                _spans_text(e.spans, "target")] + values
                        + [""] * len(RATING_COLUMNS))
        for g in r.ratings:
            rows.append(base + ["rating", "", "", ""] + [""] * len(fields)
                        + [g.level, g.item, g.field, _cell(g.value), g.rationale or ""])
        if not r.edits and not r.ratings:
            rows.append(base + ["assignment"] + [""] * (3 + len(fields) + len(RATING_COLUMNS)))
    return csv_text(FIXED_COLUMNS + [f"field:{f}" for f in fields] + RATING_COLUMNS, rows)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, list) else str(value)


def read_csv(path: Path, schema: Schema, annotator: str | None = None, *,
             options: ImportOptions | None = None,
             ignored: dict[str, int] | None = None) -> list[AnnotationRecord]:
    """Rows as :func:`to_csv` writes them; a column this format does not have is refused
    (``--ignore COLUMN`` drops it), as is a status outside ASSIGNMENT_STATUSES or a bad number."""
    options = options or ImportOptions()
    ignored = ignored if ignored is not None else {}
    name, problems = str(path), []
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    columns = list(reader.fieldnames or [])
    missing = [c for c in ("document_id", "kind") if c not in columns]
    if missing:
        raise IngestError([Problem(name, 1, c, "missing column") for c in missing])
    known = set(FIXED_COLUMNS + RATING_COLUMNS) | {f"field:{f}" for f in edit_field_names(schema)}
    for column in columns:
        if column in options.ignore:
            ignored[column] = ignored.get(column, 0) + 1
        elif column not in known:
            problems.append(Problem(name, 1, column, "unknown column (a field the schema does "
                                    f"not have?); --ignore {column} drops it"))
    records: dict[tuple[str, str], AnnotationRecord] = {}
    for row in reader:
        line = reader.line_num
        # The values behind cells written spreadsheet-safe ("'=..." is "=...").
        row = {k: cell_value(v) if isinstance(v, str) else v for k, v in row.items()}
        if None in row:  # more cells than the header names
            problems.append(Problem(name, line, None, f"{len(columns) + len(row[None])} cells, "
                                    f"the header names {len(columns)}" + got(row[None])))
            continue
        doc_id = record_id(row, "document_id", name, line, problems)
        who = (row.get("annotator") or annotator or "").strip()
        if not who:
            problems.append(Problem(name, line, "annotator", "required (or --annotator NAME)"))
        if doc_id is None or not who:
            continue
        try:
            seconds = float(row.get("seconds_spent") or 0)
        except ValueError:
            seconds = -1.0
        if seconds_problem(seconds):
            problems.append(Problem(name, line, "seconds_spent", seconds_problem(seconds)
                                    + got(row.get("seconds_spent"))))
            seconds = 0.0
        status = row.get("status") or "done"
        if status not in ASSIGNMENT_STATUSES:
            problems.append(Problem(name, line, "status", f"one of {', '.join(ASSIGNMENT_STATUSES)}"
                                    + got(status)))
        record = records.setdefault((doc_id, who), AnnotationRecord(
            doc_id, who, line, seconds_spent=seconds, status=status, file=name,
            says_done=status == "done"))
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
            problems.append(Problem(name, line, "kind", "must be edit, rating or assignment"
                                    + got(kind)))
    if problems:
        raise IngestError(problems)
    return list(records.values())


def _typed(cell: str, spec) -> Any:
    if spec is None or spec.type == "text":
        return cell
    if spec.type == "multichoice":
        try:
            items = strict_json.loads(cell)  # NaN/Infinity are not choices: kept as text
        except strict_json.StrictJSONError:
            return cell
        return [choice_to_value(spec, i)[1] for i in items] if isinstance(items, list) else cell
    return choice_to_value(spec, cell)[1]


def _parse_spans(row: dict, name: str, line: int, problems: list[Problem]) -> list[SpanIn]:
    """The ``source_spans`` / ``target_spans`` cells (``3-9;14-20``) through the one span
    rule; each span is blamed on its column."""
    spans = []
    for side in SIDES:
        column = f"{side}_spans"
        pairs, faults = cell_pairs(row.get(column) or "", column)
        problems.extend(f.at(name, line) for f in faults)
        checked, faults = read_spans(pairs, column, side=side)
        problems.extend(f.at(name, line) for f in faults)
        spans += [SpanIn(side, s.start, s.end, column) for s in checked]
    return spans
