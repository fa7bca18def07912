"""Label Studio exports in (labelstud.io/guide/export.html); tasks out are in
``labelstudio_tasks``, the labeling config in ``labelstudio_config``.

Import reads the full JSON export (``annotations[].result[]``) and the flat JSON-MIN export
(task data plus one key per control, ``annotator``, ``annotation_id``, ``lead_time``).
JSON-MIN loses which region a per-region answer belongs to, so a per-region value is only
accepted there when the record has a single region.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from annotator.ingest.readers import IngestError, Problem
from annotator.interop.labelstudio_config import (
    choice_to_value,
    edit_field_controls,
    labeling_config,
    parse,
    rating_controls,
)
from annotator.interop.labelstudio_tasks import SINGLE_ITEM
from annotator.interop.records import (
    AnnotationRecord,
    EditIn,
    RatingIn,
    SpanIn,
    load_json_array,
)
from annotator.schemas import Schema


def annotator_name(value: Any, fallback: str | None) -> str | None:
    """``completed_by`` / ``annotator`` of an export -> a user name."""
    if isinstance(value, dict):
        value = value.get("username") or value.get("email") or value.get("id")
    if isinstance(value, bool) or value in (None, ""):
        return fallback
    if isinstance(value, int):
        return fallback or f"ls-user-{value}"
    return str(value).strip() or fallback


def read_labelstudio(path: Path, schema: Schema, *, minimal: bool = False,
                     annotator: str | None = None,
                     notes: list[str] | None = None) -> list[AnnotationRecord]:
    """Parse a Label Studio full JSON (``minimal=False``) or JSON-MIN export."""
    reader = _Reader(schema, str(path), annotator, notes if notes is not None else [])
    records = []
    for line, row in load_json_array(path):
        if minimal:
            record = reader.min_record(row, line)
            if record is not None:
                records.append(record)
        else:
            records += reader.full_task(row, line)
    if reader.problems:
        raise IngestError(reader.problems)
    return records


class _Reader:
    def __init__(self, schema: Schema, name: str, annotator: str | None, notes: list[str]):
        self.schema, self.name, self.annotator, self.notes = schema, name, annotator, notes
        self.interface = parse(labeling_config(schema))
        self.controls = {c.name: c for c in self.interface.controls}
        self.field_of = {(c.name, e): f for (e, f), c in edit_field_controls(schema).items()}
        self.rating_of = {c.name: key for key, c in rating_controls(schema).items()}
        self.specs = {c.name: c for c in (*edit_field_controls(schema).values(),
                                          *rating_controls(schema).values())}
        self.problems: list[Problem] = []

    def bad(self, line: int, where: str, message: str) -> None:
        self.problems.append(Problem(self.name, line, where, message))

    def _document(self, data: Any, fallback_id: Any, line: int, where: str):
        if not isinstance(data, dict):
            self.bad(line, where, "must be an object with the task data")
            return None
        doc_id = data.get("document_id", data.get("id", fallback_id))
        if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)) or not str(
                doc_id).strip():
            self.bad(line, f"{where}.document_id", "required: the document id")
            return None
        texts = [data.get(k) for k in ("source", "target")]
        if not all(isinstance(t, str) and t.strip() for t in texts):
            self.bad(line, where, "needs 'source' and 'target' texts")
            return None
        meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
        return str(doc_id).strip(), texts[0], texts[1], meta

    def full_task(self, task: Any, line: int) -> list[AnnotationRecord]:
        if not isinstance(task, dict):
            self.bad(line, None, "expected a task object with data and annotations")
            return []
        doc = self._document(task.get("data"), task.get("id"), line, "data")
        annotations = task.get("annotations", [])
        if doc is None or not isinstance(annotations, list):
            if doc is not None:
                self.bad(line, "annotations", "must be a list")
            return []
        records = []
        for i, ann in enumerate(annotations):
            where = f"annotations[{i}]"
            if not isinstance(ann, dict) or not isinstance(ann.get("result", []), list):
                self.bad(line, where, "must be an object with a result list")
                continue
            if ann.get("was_cancelled"):
                self.notes.append(f"{self.name}:{line}: {where}: cancelled annotation skipped")
                continue
            who = annotator_name(ann.get("completed_by"), self.annotator)
            if who is None:
                self.bad(line, f"{where}.completed_by", "no annotator (pass --annotator NAME)")
                continue
            edits, ratings = self._results(ann.get("result", []), line, f"{where}.result")
            records.append(self._record(doc, who, line, edits, ratings, ann.get("lead_time"),
                                        ann.get("_status"), f"{where}.lead_time"))
        return records

    def _record(self, doc, who, line, edits, ratings, lead_time, status, where):
        if lead_time is None:
            lead_time = 0.0
        if not isinstance(lead_time, (int, float)) or isinstance(lead_time, bool) \
                or lead_time < 0:
            self.bad(line, where, "must be a non-negative number of seconds")
            lead_time = 0.0
        doc_id, source, target, meta = doc
        return AnnotationRecord(doc_id, who, line, source, target, meta, edits, ratings,
                                float(lead_time), status if status == "in_progress" else "done",
                                self.name)

    def _results(self, results: list, line: int, where: str):
        regions: dict[str, tuple[str, SpanIn, str]] = {}  # id -> (label, span, where)
        values: dict[str, list[tuple[str, Any, str]]] = {}  # region id -> (control, value)
        links: list[tuple[str, str]] = []
        ratings = []
        for j, r in enumerate(results):
            at = r.get("_at") if isinstance(r, dict) and "_at" in r else f"{where}[{j}]"
            if not isinstance(r, dict):
                self.bad(line, at, "must be an object")
                continue
            if r.get("type") == "relation":
                links.append((str(r.get("from_id")), str(r.get("to_id"))))
                continue
            control = self.controls.get(r.get("from_name"))
            value = r.get("value")
            if control is None or not isinstance(value, dict):
                self.bad(line, f"{at}.from_name", f"{r.get('from_name')!r} is not a control "
                         f"of the labeling config for schema {self.schema.name!r}")
                continue
            if control.tag == "Labels":
                span = self._span(control, value, r, line, at)
                if span is not None:
                    regions[str(r.get("id", at))] = span
            elif control.name in self.rating_of:
                level, field = self.rating_of[control.name]
                ratings.append(self._rating(control.name, level, field,
                                            _plain(value), line, at))
            else:
                values.setdefault(str(r.get("id")), []).append(
                    (control.name, _plain(value), at if "_at" in r else f"{at}.value"))
        return self._group(regions, values, links, line), ratings

    def _span(self, control, value, r, line, at):
        labels = value.get("labels")
        start, end = value.get("start"), value.get("end")
        if not (isinstance(labels, list) and len(labels) == 1):
            self.bad(line, f"{at}.value.labels", "exactly one label per region")
            return None
        if labels[0] not in control.labels:
            self.bad(line, f"{at}.value.labels", f"unknown category {labels[0]!r}; "
                     f"{control.name} offers {', '.join(control.labels)}")
            return None
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
            self.bad(line, f"{at}.value", "needs integer start and end offsets")
            return None
        side = "source" if control.name == "source_labels" else "target"
        return labels[0], SpanIn(side, start, end, f"{at}.value"), at

    def _convert(self, control_name: str, value: Any, line: int, at: str) -> Any:
        spec = self.specs[control_name].spec
        if spec.type == "text":
            if isinstance(value, list):
                return "\n".join(str(v) for v in value)
            return value if isinstance(value, str) else None if value is None else str(value)
        items = value if isinstance(value, list) else [] if value is None else [value]
        if not items:
            return [] if spec.type == "multichoice" else None
        converted = []
        for item in items:
            ok, v = choice_to_value(spec, item)
            if not ok:
                self.bad(line, at, f"choice {item!r} is not in the schema (expected "
                         + ", ".join(repr(str(o.value)) for o in spec.options) + ")")
            converted.append(v)
        return converted if spec.type == "multichoice" else converted[0]

    def _rating(self, control_name, level, field, value, line, at) -> RatingIn:
        return RatingIn(level, SINGLE_ITEM[level], field,
                        self._convert(control_name, value, line, at), None, at)

    def _group(self, regions, values, links, line) -> list[EditIn]:
        parent = {rid: rid for rid in regions}

        def root(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x
        for a, b in links:
            if a in parent and b in parent:
                parent[root(b)] = root(a)
        groups: dict[str, list[str]] = {}
        for rid in regions:
            groups.setdefault(root(rid), []).append(rid)
        for rid in values:
            if rid not in regions:
                self.bad(line, values[rid][0][2], f"per-region answer for region {rid!r}, "
                         "which is not a labelled region")
        edits = []
        for ids in groups.values():
            label, _, at = regions[ids[0]]
            if any(regions[i][0] != label for i in ids):
                self.bad(line, at, "linked regions carry different labels")
                continue
            fields = {}
            for rid in ids:
                for control_name, value, vat in values.get(rid, []):
                    field = self.field_of.get((control_name, label))
                    if field is None:
                        self.bad(line, vat, f"{control_name!r} is not a field of {label}")
                        continue
                    fields[field] = self._convert(control_name, value, line, vat)
            edits.append(EditIn(label, fields, [regions[i][1] for i in ids], at))
        return edits

    def min_record(self, row: Any, line: int) -> AnnotationRecord | None:
        if not isinstance(row, dict):
            self.bad(line, None, "expected an object")
            return None
        doc = self._document(row, row.get("id"), line, "document_id")
        who = annotator_name(row.get("annotator"), self.annotator)
        if who is None:
            self.bad(line, "annotator", "no annotator (pass --annotator NAME)")
        if doc is None or who is None:
            return None
        results, regions = [], 0
        for key, value in row.items():
            control = self.controls.get(key)
            if control is None:
                continue
            if control.tag == "Labels":
                items = value if isinstance(value, list) else [value]
                for k, item in enumerate(items):
                    regions += 1
                    results.append({"id": f"{key}-{k}", "from_name": key, "_at": f"{key}[{k}]",
                                    "value": item if isinstance(item, dict) else {}})
            else:
                results.append({"id": None, "from_name": key, "_at": key,
                                "value": {"min": value}})
        for r in results:
            if r["from_name"] not in self.rating_of and \
                    self.controls[r["from_name"]].tag != "Labels":
                if regions != 1:
                    self.bad(line, r["from_name"], "JSON-MIN cannot tell which region this "
                             "answer belongs to; use the full JSON export")
                r["id"] = next(x["id"] for x in results if x["id"]) if regions else None
        edits, ratings = self._results(results, line, "")
        return self._record(doc, who, line, edits, ratings, row.get("lead_time"), None,
                            "lead_time")


def _plain(value: dict) -> Any:
    """The answer inside a Label Studio result value (or a JSON-MIN cell)."""
    if "min" in value:
        v = value["min"]
        if isinstance(v, list) and len(v) == 1 and isinstance(v[0], dict):
            v = v[0]
        if isinstance(v, dict):
            return _plain(v)
        return v
    if "text" in value:
        text = value["text"]
        return text[0] if isinstance(text, list) and len(text) == 1 else text
    if "choices" in value:
        return value["choices"]
    if "rating" in value:
        return value["rating"]
    return None
