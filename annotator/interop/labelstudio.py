"""Label Studio exports in (labelstud.io/guide/export.html); tasks out are in
``labelstudio_tasks``, where answers sit in ``labelstudio_layout``.

Import reads the full JSON export (``annotations[].result[]``, ``drafts``) and the flat
JSON-MIN export (task data plus one key per control, ``annotator``, ``annotation_id``,
``lead_time``). Nothing is dropped: the texts become the document, every other task data key
its metadata, the annotation's ids and timestamps the assignment's metadata, every control
an edit or a rating; a key that is none of these is refused.

- **Items**: ``item_key`` (``--item-key edit_id``, or ``reference_id,prediction_id``)
  names the task data keys that identify an item across per-rater Label Studio projects
  (task ids differ there); the document id is their values joined by ``/``. Without it:
  ``document_id``, else the data's ``id``, else the task id.
- **Raters**: ``annotator_map`` (Label Studio user id -> name, ``--annotator-map``), then
  the export's e-mail / username, then ``annotator`` (``--annotator``). A bare user id with
  neither map nor name is refused: it names nobody.
- **Status**: a cancelled (skipped) annotation is ``skipped``; a draft without a submitted
  annotation is ``in_progress``; else ``done``. ``lead_time`` is the time spent.
- **Unannotated tasks** (a snapshot taken mid-study) import as documents without work.

JSON-MIN loses which region a per-region answer belongs to: an answer is given to the one
region of its row its box fits (side and label), or to the row's only region; otherwise the
row is refused as ambiguous (see ``_Reader._min_region``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from annotator.core.records import IngestError, Problem
from annotator.core.spans import SpanFault, read_span
from annotator.interop.labelstudio_config import SIDE_TITLES
from annotator.interop.labelstudio_layout import ANNOTATION_KEYS, Layout, layout
from annotator.interop.labelstudio_merge import SIDE_ANSWERS
from annotator.interop.labelstudio_tasks import SINGLE_ITEM
from annotator.interop.records import (
    AnnotationRecord,
    EditIn,
    ImportOptions,
    RatingIn,
    SpanIn,
    drop_ignored,
    load_json_array,
)
from annotator.schemas import Schema, choice_to_value

# Where each result type keeps its answer (labelstud.io/guide/export#Label-Studio-JSON-format).
VALUE_KEYS = {"choices": "choices", "textarea": "text", "rating": "rating",
              "number": "number", "labels": "labels"}
# Keys of a JSON-MIN region object besides start, end and labels; text is kept when it is
# not the slice of the text it points at.
REGION_KEYS = ("start", "end", "text", "labels")


def annotator_name(value: Any, fallback: str | None,
                   annotator_map: dict[str, str] | None = None) -> str | None:
    """``completed_by`` / ``annotator`` of an export -> a user name, or None."""
    # One rule for submissions, drafts and skips: a draft names its user by e-mail where
    # an annotation gives a user id or object, so the map is tried with the id and then
    # with the e-mail (the pull's map holds both for every member).
    user_id = value.get("id") if isinstance(value, dict) else value
    email = value.get("email") if isinstance(value, dict) else value
    for key in (user_id, email):
        if annotator_map and key is not None and str(key) in annotator_map:
            return annotator_map[str(key)]
    if isinstance(value, dict):
        value = value.get("email") or value.get("username")
    if isinstance(value, str) and value.strip():
        return value.strip()
    return fallback  # --annotator: for exports that name nobody (a bare user id)


def read_labelstudio(path: Path, schema: Schema, *, minimal: bool = False,
                     annotator: str | None = None, notes: list[str] | None = None,
                     item_key: tuple[str, ...] = (),
                     annotator_map: dict[str, str] | None = None,
                     options: ImportOptions | None = None,
                     ignored: dict[str, int] | None = None,
                     drafts: list[dict] | None = None) -> list[AnnotationRecord]:
    """Parse a Label Studio full JSON (``minimal=False``) or JSON-MIN export.
    ``options.ignore`` drops key paths of each task or row first (counted in ``ignored``);
    ``drafts`` receives one entry per draft read (see ``_Reader.drafts``)."""
    options = options or ImportOptions()
    reader = _Reader(schema, str(path), annotator, notes if notes is not None else [],
                     tuple(item_key), annotator_map or {}, options.settle_side_answers)
    ignored = ignored if ignored is not None else {}
    records = []
    for line, row in load_json_array(path):
        drop_ignored(row, options.ignore, ignored)
        if minimal:
            records += reader.min_record(row, line)
        else:
            records += reader.full_task(row, line)
    if reader.problems:
        raise IngestError(reader.problems)
    if drafts is not None:
        drafts += reader.drafts
    return records


def _when(draft: dict) -> str:
    """When a draft was last saved (ISO time sorts as text); drafts without a time in the
    export's order."""
    return str(draft.get("updated_at") or draft.get("created_at") or "")


def draft_why(draft: dict) -> str | None:
    """Why a draft (an entry of ``_Reader.drafts``, its annotator the account's name) is not
    the record; None when it is."""
    who = draft["annotator"]
    if draft["reason"] == "submitted":
        return (f"{who} has submitted this task: the submitted annotation is the work, the "
                "draft's changes are not imported")
    if draft["reason"] == "older":
        return f"{draft['older']} older draft(s) of {who}: the latest is the one read"
    return None


def draft_note(draft: dict) -> str:
    """The import report's line for a draft that is not the record."""
    return (f"task {draft['task']} ({draft['document']}): a draft by {draft['annotator']} "
            f"is not imported: {draft_why(draft)}")


class _Reader:
    def __init__(self, schema: Schema, name: str, annotator: str | None, notes: list[str],
                 item_key: tuple[str, ...], annotator_map: dict[str, str],
                 settle_side_answers: bool = False):
        self.schema, self.name, self.annotator, self.notes = schema, name, annotator, notes
        self.item_key, self.annotator_map = item_key, annotator_map
        self.settle_side_answers = settle_side_answers
        self.layout: Layout = layout(schema)
        self.problems: list[Problem] = []
        self.task_id: Any = None  # the task being read, named in refusals
        # Every draft read: task, document, annotator, draft id, stored (the record) or
        # not, and why not (``reason``, told by ``draft_why``).
        self.drafts: list[dict[str, Any]] = []

    def bad(self, line: int, where: str | None, message: str) -> None:
        self.problems.append(Problem(self.name, line, where, message))

    def who(self, value: Any, line: int, where: str) -> str | None:
        name = annotator_name(value, self.annotator, self.annotator_map)
        if name is None:
            self.bad(line, where, f"Label Studio user {value!r} names nobody: pass "
                     "--annotator-map FILE (user id -> name) or --annotator NAME")
        return name

    # -- the task data ---------------------------------------------------------------
    def _document(self, data: Any, fallback_id: Any, line: int, where: str,
                  skip: set[str] = frozenset()):
        """(document id, source, target, meta) from the task data, or None."""
        if not isinstance(data, dict):
            self.bad(line, where, "must be an object with the task data")
            return None
        keys = next((k for k in self.layout.legacy_text_keys()
                     if all(isinstance(data.get(v), str) for v in k.values())),
                    self.layout.text_keys)
        texts = [data.get(keys[side]) for side in ("source", "target")]
        if not all(isinstance(t, str) and t.strip() for t in texts):
            self.bad(line, f"{where}.{keys['source']}" if where else keys["source"],
                     f"needs the texts '{keys['source']}' and '{keys['target']}', got "
                     f"{texts[0]!r:.40} and {texts[1]!r:.40}")
            return None
        if self.item_key:
            missing = [k for k in self.item_key if data.get(k) in (None, "")]
            if missing:
                self.bad(line, f"{where}.{missing[0]}" if where else missing[0],
                         f"item key {missing[0]!r} (--item-key) is missing")
                return None
            doc_id = "/".join(str(data[k]) for k in self.item_key)
        else:
            doc_id = data.get("document_id", data.get("id", fallback_id))
            if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)) or not str(
                    doc_id).strip():
                self.bad(line, f"{where}.document_id" if where else "document_id",
                         "required: the document id (or pass --item-key FIELD)")
                return None
        if self.layout.own_config:
            meta = {k: v for k, v in data.items()
                    if k not in keys.values() and k not in skip}
        else:
            meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
        return str(doc_id).strip(), texts[0], texts[1], meta

    # -- full JSON -------------------------------------------------------------------
    def full_task(self, task: Any, line: int) -> list[AnnotationRecord]:
        if not isinstance(task, dict):
            self.bad(line, None, "expected a task object with data and annotations")
            return []
        self.task_id = task.get("id")
        doc = self._document(task.get("data"), task.get("id"), line, "data")
        annotations, drafts = task.get("annotations", []), task.get("drafts", []) or []
        if doc is None:
            return []
        if not isinstance(annotations, list) or not isinstance(drafts, list):
            self.bad(line, "annotations", "annotations and drafts must be lists")
            return []
        records, seen = [], set()
        for i, ann in enumerate(annotations):
            where = f"annotations[{i}]"
            if not isinstance(ann, dict) or not isinstance(ann.get("result", []), list):
                self.bad(line, where, "must be an object with a result list")
                continue
            who = self.who(ann.get("completed_by"), line, f"{where}.completed_by")
            if who is None:
                continue
            status = "skipped" if ann.get("was_cancelled") else ann.get("_status", "done")
            records.append(self._annotation(task, doc, who, line, ann, where, status))
            seen.add(who)
        latest: dict[str, int] = {}  # annotator -> index of their latest draft
        for i, draft in enumerate(drafts):
            where = f"drafts[{i}]"
            if not isinstance(draft, dict) or not isinstance(draft.get("result", []), list):
                self.bad(line, where, "must be an object with a result list")
                continue
            who = self.who(draft.get("user", draft.get("completed_by")), line, f"{where}.user")
            if who is not None and (who not in latest or _when(draft) >= _when(
                    drafts[latest[who]])):
                latest[who] = i
        for i, draft in enumerate(drafts):
            who = next((w for w, j in latest.items() if j == i), None)
            if who is None:
                continue
            # A draft is the record only of a member who has not submitted the task; one
            # beside a submission (Label Studio keeps the submitted annotation as the work)
            # or an older draft is set aside, and said so (``self.drafts``).
            if who not in seen:
                records.append(self._annotation(task, doc, who, line, draft, f"drafts[{i}]",
                                                "in_progress"))
            self.drafts.append({"task": task.get("id"), "document": doc[0],
                                "annotator": who, "draft": draft.get("id"),
                                "stored": who not in seen,
                                "reason": "submitted" if who in seen else None})
            older = sum(1 for j, d in enumerate(drafts) if j != i and isinstance(d, dict)
                        and annotator_name(d.get("user", d.get("completed_by")),
                                           self.annotator, self.annotator_map) == who)
            if older:
                self.drafts.append({"task": task.get("id"), "document": doc[0],
                                    "annotator": who, "draft": None, "stored": False,
                                    "reason": "older", "older": older})
        if not records:
            records.append(self._document_only(doc, line))
        return records

    def _annotation(self, task, doc, who, line, ann, where, status) -> AnnotationRecord:
        edits, ratings = self._results(ann.get("result", []), line, f"{where}.result", doc)
        meta = {"task_id": task.get("id"), "annotation_id": ann.get("id"),
                "created_at": ann.get("created_at"), "updated_at": ann.get("updated_at"),
                "completed_by": ann.get("completed_by", ann.get("user"))}
        meta = {"labelstudio": {k: v for k, v in meta.items() if v is not None}}
        return self._record(doc, who, line, edits, ratings, ann.get("lead_time"), status,
                            f"{where}.lead_time", meta)

    def _document_only(self, doc, line) -> AnnotationRecord:
        doc_id, source, target, meta = doc
        # The task id: a pull tells which stored work this task covers (labelstudio_merge).
        return AnnotationRecord(doc_id, "", line, source, target, meta, file=self.name,
                                document_only=True,
                                assignment_meta={"labelstudio": {"task_id": self.task_id}})

    def _record(self, doc, who, line, edits, ratings, lead_time, status, where, meta):
        if lead_time is None:
            lead_time = 0.0
        if not isinstance(lead_time, (int, float)) or isinstance(lead_time, bool) \
                or lead_time < 0:
            self.bad(line, where, f"must be a non-negative number of seconds, got "
                     f"{lead_time!r}")
            lead_time = 0.0
        if status not in ("done", "in_progress", "skipped"):
            self.bad(line, where.rsplit(".", 1)[0] + "._status", f"unknown status {status!r}")
            status = "done"
        doc_id, source, target, doc_meta = doc
        # A submitted annotation is the rater saying "done" (--accept-incomplete keeps it so
        # when required answers are missing).
        return AnnotationRecord(doc_id, who, line, source, target, doc_meta, edits, ratings,
                                float(lead_time), status, self.name, assignment_meta=meta,
                                says_done=status == "done")

    def _results(self, results: list, line: int, where: str, doc):
        texts = {"source": doc[1], "target": doc[2]}
        regions: dict[str, tuple[str, SpanIn, str, dict]] = {}
        values: dict[str, list[tuple[str, Any, str]]] = {}  # region id -> answers
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
            name, value = r.get("from_name"), r.get("value")
            if not isinstance(value, dict) or (name not in self.layout.region_side
                                               and name not in self.layout.controls):
                self.bad(line, f"{at}.from_name", f"{name!r} is not a control of the "
                         f"labeling config for schema {self.schema.name!r}")
                continue
            if name in self.layout.region_side:
                region = self._span(name, value, line, at, texts)
                if region is not None:
                    regions[str(r.get("id", at))] = region
            elif name in self.layout.task_rating:
                level, field = self.layout.task_rating[name]
                ratings.append(RatingIn(level, SINGLE_ITEM[level], field,
                                        self._convert(name, _answer(r), line, at), None, at))
            else:
                values.setdefault(str(r.get("id")), []).append(
                    (name, _answer(r), at if "_at" in r else f"{at}.value"))
        return self._group(regions, values, links, line), ratings

    def _span(self, control, value, line, at, texts):
        labels = value.get("labels")
        start, end = value.get("start"), value.get("end")
        if not (isinstance(labels, list) and len(labels) == 1):
            self.bad(line, f"{at}.value.labels" if "[" in at else f"{at}.labels",
                     f"exactly one label per region, got {labels!r}")
            return None
        offered = self.layout.labels[control]
        if labels[0] not in offered:
            self.bad(line, f"{at}.value.labels" if "[" in at and "." in at else
                     f"{at}.labels", f"unknown category {labels[0]!r}; {control} offers "
                     f"{', '.join(offered)}")
            return None
        side = self.layout.region_side[control]
        # The one span rule reads the offsets; bounds are checked with the texts later.
        found = read_span([start, end], f"{at}.value", side=side)
        if isinstance(found, SpanFault):
            self.bad(line, found.field, found.message)
            return None
        edit_type = self.layout.edit_type_of[(control, labels[0])]
        text = texts[side]
        # Keep what the region said beyond its offsets when it is not derivable from them.
        extra = {k: v for k, v in value.items() if k not in REGION_KEYS}
        if "text" in value and value["text"] != text[start:end]:
            extra["text"] = value["text"]
        if control != self.layout.label_of.get((edit_type, side), (control,))[0]:
            extra["labelstudio_control"] = control
        where = f"{at}.value" if "[" in at and at.count(".") else at
        return edit_type, SpanIn(side, start, end, where), at, extra

    def _convert(self, control_name: str, value: Any, line: int, at: str) -> Any:
        spec = self.layout.controls[control_name].spec
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
            edit_type, _, at, _ = regions[ids[0]]
            if any(regions[i][0] != edit_type for i in ids):
                self.bad(line, at, "linked regions carry different labels")
                continue
            meta = {}
            answers = [(rid, *a) for rid in ids for a in values.get(rid, [])]
            own = {self.layout.region_fields.get(c, {}).get(edit_type) for _, c, _, _ in answers}
            # field -> (region id, value, where, side)
            given: dict[str, list[tuple[str, Any, str, str]]] = {}
            for rid, control_name, value, vat in answers:
                field = self.layout.region_fields.get(control_name, {}).get(edit_type)
                if field is None:
                    field = self._old_label_field(control_name, edit_type, own)
                if field is None:
                    self.bad(line, vat, f"task {self.task_id}, region {rid}: "
                             f"{control_name!r} is not a field of {edit_type} (an answer "
                             "kept under a label the region no longer has, which does not "
                             "say which of its fields it is)")
                    continue
                given.setdefault(field, []).append(
                    (rid, self._convert(control_name, value, line, vat), vat,
                     regions[rid][1].side))
            fields = self._side_answers(given, edit_type, meta, line)
            extras = [regions[i][3] for i in ids]
            if any(extras):
                meta["labelstudio_regions"] = extras
            edits.append(EditIn(edit_type, fields, [regions[i][1] for i in ids], at, meta))
        return edits

    def _side_answers(self, given: dict[str, list[tuple[str, Any, str, str]]],
                      edit_type: str, meta: dict, line: int) -> dict[str, Any]:
        """One value per field. An edit with regions on both texts carries its answers on
        both (``labelstudio_tasks``); when the page changed them on one side only, the two
        differ: a pull hands them to the merge under ``meta[SIDE_ANSWERS]`` (field -> [region
        id, side, value] each) to settle against the stored work; any other import refuses,
        naming the task and the regions."""
        fields = {}
        for field, items in given.items():
            distinct = []
            for _, value, _, _ in items:
                if value not in distinct:
                    distinct.append(value)
            fields[field] = distinct[0]
            if len(distinct) == 1:
                continue
            if self.settle_side_answers:
                meta.setdefault(SIDE_ANSWERS, {})[field] = [
                    [rid, side, value] for rid, value, _, side in items]
                continue
            first, other = items[0], next(i for i in items if i[1] != items[0][1])
            self.bad(line, other[2], f"task {self.task_id}: regions {first[0]} and "
                     f"{other[0]} of one {edit_type} edit answer {field!r} differently "
                     f"({first[1]!r} / {other[1]!r}); make them agree in Label Studio")
        return fields

    def _old_label_field(self, control_name: str, edit_type: str, own: set) -> str | None:
        """The current label's field an answer kept under the region's old label stands
        for (Label Studio keeps answers in the old label's boxes when a region is
        relabelled): the field of the same name, when the current label has it and no
        answer of its own gives it; else None (ambiguous)."""
        names = set(self.layout.region_fields.get(control_name, {}).values())
        if len(names) != 1:
            return None
        name = names.pop()
        if name in own or not any(k[:2] == (edit_type, name)
                                  for k in self.layout.region_control):
            return None
        return name

    # -- JSON-MIN --------------------------------------------------------------------
    def _min_region(self, control: str, regions: list[tuple[str, str, str | None]],
                    line: int) -> str | None:
        """The region a JSON-MIN per-region answer belongs to. JSON-MIN keeps one key per
        control and drops the region ids, but a per-region box still names its side and
        the labels it serves (``source_omission_question``: omission regions on the
        original): the one region of the row it fits. With no fitting region, a row of
        one region gives it that region (a relabelled region's answer stays in its old
        label's box, read as the new label's in ``_group``). Otherwise None, with a problem
        saying why (never a relabel, which a row of several regions cannot show)."""
        lay = self.layout
        serves = lay.region_fields.get(control, {})  # edit type -> field
        fits = [rid for rid, side, edit_type in regions if edit_type in serves and getattr(
            lay.region_control.get((edit_type, serves[edit_type], side)), "name", None)
            == control]
        if len(fits) == 1:
            return fits[0]
        if not fits and len(regions) == 1:
            return regions[0][0]
        if not regions:
            self.bad(line, control, f"task {self.task_id}: {control!r} answers a region, "
                     "and the row has none")
            return None
        kinds = "/".join(sorted(serves)) or "labelled"
        sides = " and ".join(sorted({SIDE_TITLES[side].lower() for rid, side, _ in regions
                                     if rid in fits} or {"?"}))
        if fits:
            self.bad(line, control, f"task {self.task_id}: JSON-MIN cannot tell which of the "
                     f"{len(fits)} {kinds} regions on the {sides} {control!r} answers "
                     f"({', '.join(fits)}); use the full JSON export")
        else:
            self.bad(line, control, f"task {self.task_id}: {control!r} answers a {kinds} "
                     f"region and none of the row's {len(regions)} regions is one (a "
                     "relabelled region's answer stays in its old label's box); JSON-MIN "
                     "cannot tell which region it belongs to: use the full JSON export")
        return None

    def min_record(self, row: Any, line: int) -> list[AnnotationRecord]:
        if not isinstance(row, dict):
            self.bad(line, None, f"expected an object, got {type(row).__name__}")
            return []
        lay = self.layout
        self.task_id = row.get("id")
        answer_keys = set(lay.controls) | set(lay.region_side)
        doc = self._document(row, row.get("id"), line, "",
                             skip=answer_keys | set(ANNOTATION_KEYS))
        if doc is None:
            return []
        annotated = "annotator" in row or "annotation_id" in row or (self.annotator and any(
            row.get(k) not in (None, "", []) for k in answer_keys))
        if not annotated:
            return [self._document_only(doc, line)]
        who = self.who(row.get("annotator"), line, "annotator")
        if who is None:
            return []
        results, regions = [], regions_of_row(row, lay)
        for key, value in row.items():
            if key in lay.region_side:
                if value is None:
                    continue
                if not isinstance(value, list):
                    self.bad(line, key, f"expected a list of regions, got {value!r:.60}")
                    continue
                for k, item in enumerate(value):
                    results.append({"id": f"{key}-{k}", "from_name": key, "_at": f"{key}[{k}]",
                                    "value": item if isinstance(item, dict) else {}})
            elif key in lay.task_rating and value is not None:
                results.append({"id": None, "from_name": key, "_at": key,
                                "value": {"min": value}})
            elif key in lay.controls and value is not None:
                region_id = self._min_region(key, regions, line)
                if region_id is not None:
                    results.append({"id": region_id, "from_name": key, "_at": key,
                                    "value": {"min": value}})
        edits, ratings = self._results(results, line, "", doc)
        meta = {k: row[k] for k in ANNOTATION_KEYS if k in row}
        return [self._record(doc, who, line, edits, ratings, row.get("lead_time"), "done",
                             "lead_time", {"labelstudio": meta})]


def regions_of_row(row: dict, lay: Layout) -> list[tuple[str, str, str | None]]:
    """(region id as the reader names it, side, edit type or None) of a JSON-MIN row."""
    found = []
    for key, value in row.items():
        if key in lay.region_side and isinstance(value, list):
            for k, item in enumerate(value):
                labels = item.get("labels") if isinstance(item, dict) else None
                label = labels[0] if isinstance(labels, list) and len(labels) == 1 else None
                found.append((f"{key}-{k}", lay.region_side[key],
                              lay.edit_type_of.get((key, label))))
    return found


def _answer(result: dict) -> Any:
    """The answer inside a Label Studio result (or a JSON-MIN cell), read from the key
    its type uses: a per-region rating's value also carries the region's ``text``."""
    value = result.get("value", {})
    if "min" in value:
        v = value["min"]
        if isinstance(v, dict):
            return _answer({"type": "", "value": v})
        if isinstance(v, list) and len(v) == 1 and isinstance(v[0], dict):
            return _answer({"type": "", "value": v[0]})
        return v
    key = VALUE_KEYS.get(result.get("type", ""))
    if key and key in value:
        answer = value[key]
    else:
        key = next((k for k in ("choices", "rating", "number", "text") if k in value), None)
        answer = value.get(key) if key else None
    if key == "text" and isinstance(answer, list) and len(answer) == 1:
        return answer[0]
    return answer
