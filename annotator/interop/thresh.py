"""Reading Thresh annotation files (Heineman, Dou & Xu 2023, "Thresh: A Unified, Customizable
and Deployable Platform for Fine-Grained Text Evaluation", thresh.tools), as Thresh writes
them. Writing them back is :mod:`annotator.interop.thresh_export`.

A Thresh file is a JSON list of records, one per annotator and text pair ::

    {"id": 1774569, "source": "...", "target": "...",
     "metadata": {"annotator": "annotator_1", "system": "..."},
     "edits": [{"category": "omission", "id": 1, "annotation": {"question": "..."},
                "input_idx": [[12, 30]]},
               {"category": "structure", "id": 1, "annotation": {"impact": {"val": "good",
                "good": "a lot"}}, "constituent_edits": [{"category": "substitution",
                "id": 8, "input_idx": [[0, 7]], "output_idx": [[0, 4]]}]}],
     "_thresh_id": 0, "_seconds_spent": 312, "_completed": "2023-10-08T21:24:29.532Z"}

- ``input_idx`` are character spans in the source (the original), ``output_idx`` in the
  target (the simplification); a document-level edit has neither.
- The annotator is ``_annotator``, ``annotator`` or ``metadata.annotator``, else the
  command's ``--annotator``, else (for a folder) the file name.
- A record without ``id`` is keyed by its two texts: annotators of the same pair meet on
  one document.
- Answers to questions with sub-questions are nested, ``{"val": OPTION, OPTION: answer}``;
  they are stored flat, the sub-answer under the field ``QUESTION.OPTION`` (see
  :mod:`annotator.schemas.thresh_typology`).
- ``constituent_edits`` of a composite edit become edits whose ``parent_id`` is the
  composite (never flattened away).
- ``_seconds_spent`` is the time spent; ``_completed`` (true or a timestamp) says done.
- Everything else a record or an edit carries (``_thresh_id``, ``_modified``,
  ``metadata``, the edit ``id``, any other key) is stored verbatim in ``Assignment.meta`` /
  ``Edit.meta`` under ``"thresh"``, so an export gives it back.

Our own exports add keys Thresh ignores: ``_annotator``, ``_status``, ``_ratings``
(item-level ratings) and ``_meta`` (document metadata).

Categories map to the schema's edit types: an edit type's own name always works; the
built-in aliases (InfoLossQA's ``omission`` -> deletion, ``concept`` ->
oversimplification, ``trailing`` -> overgeneration, wherever the schema has that edit
type), the project setting ``category_map`` and ``--map CATEGORY=TYPE`` add or override
aliases. A category that maps to nothing is kept, with the import report saying so, as an
edit of the schema's comment type (an edit type named ``comment``, or the project setting
``comment_edit_type``) when that type can hold the edit's spans; otherwise the import fails
naming the file, line and field.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from annotator.core.records import IngestError, Problem
from annotator.core.shown import got
from annotator.core.vocabulary import ASSIGNMENT_STATUSES
from annotator.interop.infolossqa import EDIT_TYPE_OF_CATEGORY
from annotator.interop.records import (
    AnnotationRecord,
    EditIn,
    ImportOptions,
    RatingIn,
    drop_ignored,
    load_json_array,
    record_id,
    span_pairs,
)
from annotator.interop.unread_keys import annotation_like_keys, no_edits_note
from annotator.schemas import Schema

# Thresh categories of published typologies -> edit types; an alias applies to every schema
# that has the edit type it points to (InfoLossQA's omission/concept, SimpleOG's trailing).
CATEGORY_ALIASES: dict[str, str] = {
    **EDIT_TYPE_OF_CATEGORY,
    "trailing": "overgeneration", "insertion": "overgeneration", "error": "error_span",
}
# Record keys read into texts, edits, ratings and document metadata; every other key is
# kept verbatim in Assignment.meta["thresh"].
TEXT_KEYS = ("source", "target", "edits", "_ratings", "_meta")
# Edit keys read into type, fields, spans and constituents; the rest go to Edit.meta.
EDIT_KEYS = ("category", "annotation", "input_idx", "output_idx", "constituent_edits")


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
    texts = [f.name for f in edit_type.fields if f.type == "text" and f.when is None]
    for preferred in ("comment", "comment_text", "text", "note"):
        if preferred in texts:
            return preferred
    return texts[0] if texts else None


def pair_key(source: str, target: str) -> str:
    """The document id of a record without ``id``: a digest of its two texts."""
    digest = hashlib.sha1(f"{source}\x00{target}".encode("utf-8")).hexdigest()
    return f"pair-{digest[:12]}"


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
                notes: list[str] | None = None, options: ImportOptions | None = None,
                ignored: dict[str, int] | None = None) -> list[AnnotationRecord]:
    """Parse Thresh files into records; raise IngestError listing every problem."""
    reader = _Reader(schema, category_map(schema, settings, overrides),
                     comment_edit_type(schema, settings),
                     notes if notes is not None else [], options or ImportOptions(),
                     ignored if ignored is not None else {})
    records, problems = [], []
    for file in thresh_files(path):
        fallback = annotator or (file.stem if path.is_dir() else None)
        try:
            rows = load_json_array(file)
        except IngestError as exc:
            problems += exc.problems
            continue
        for line, row in rows:
            record = reader.record(row, str(file), line, fallback, problems)
            if record is not None:
                records.append(record)
    if problems:
        raise IngestError(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    return records


class _Reader:
    def __init__(self, schema, mapping, comment_type, notes, options, ignored):
        self.schema, self.mapping, self.comment_type = schema, mapping, comment_type
        self.notes, self.options, self.ignored = notes, options, ignored

    def record(self, row: Any, name: str, line: int, fallback: str | None,
               problems: list[Problem]) -> AnnotationRecord | None:
        if not isinstance(row, dict):
            problems.append(Problem(name, line, None, "expected an object with source, target "
                                    "and edits" + got(row)))
            return None
        drop_ignored(row, self.options.ignore, self.ignored)
        before = len(problems)
        texts = {}
        for key in ("source", "target"):
            value = row.get(key)
            if not isinstance(value, str) or not value.strip():
                problems.append(Problem(name, line, key, "required: a non-empty string"
                                        + got(value)))
            texts[key] = value
        if "id" in row:
            doc_id = record_id(row, "id", name, line, problems)
        else:  # Thresh's own examples carry no id: the texts identify the pair
            doc_id = pair_key(*texts.values()) if all(
                isinstance(v, str) for v in texts.values()) else None
        who = self.owner(row, fallback, name, line, problems)
        edits = self.edits(row.get("edits", []), "edits", name, line, problems)
        ratings = _ratings(row.get("_ratings"), name, line, problems)
        seconds = row.get("_seconds_spent")
        if seconds is not None and (not isinstance(seconds, (int, float))
                                    or isinstance(seconds, bool) or seconds < 0):
            problems.append(Problem(name, line, "_seconds_spent", "must be a non-negative "
                                    "number of seconds" + got(seconds)))
        meta = row.get("_meta", {})
        if not isinstance(meta, dict):
            problems.append(Problem(name, line, "_meta", "must be an object" + got(meta)))
        status, says_done = _status(row, name, line, problems)
        if len(problems) > before:
            return None
        unread = annotation_like_keys(row, {"edits"}) if not edits else []
        if unread:
            self.notes.append(no_edits_note(name, line, unread, "edits"))
        kept = {k: v for k, v in row.items() if k not in TEXT_KEYS}
        kept["_keys"] = list(row)  # which keys the record had, so an export writes the same
        return AnnotationRecord(document_id=doc_id, annotator=who, line=line,
                                source=texts["source"], target=texts["target"], meta=meta,
                                edits=edits, ratings=ratings,
                                seconds_spent=None if seconds is None else float(seconds),
                                status=status, file=name, assignment_meta={"thresh": kept},
                                says_done=says_done, keyed_by_texts="id" not in row)

    def owner(self, row, fallback, name, line, problems) -> str | None:
        metadata = row.get("metadata")
        candidates = [("_annotator", row.get("_annotator")), ("annotator", row.get("annotator"))]
        if isinstance(metadata, dict):
            candidates.append(("metadata.annotator", metadata.get("annotator")))
        for key, value in candidates:
            if value is None:
                continue
            if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value).strip():
                return str(value).strip()
            problems.append(Problem(name, line, key, "the annotator's name must be text"
                                    + got(value)))
            return None
        if fallback:
            return fallback.strip()
        problems.append(Problem(name, line, "metadata.annotator", "no annotator: give "
                                "'metadata.annotator' (or '_annotator') in the record or pass "
                                "--annotator NAME"))
        return None

    def edits(self, value, where, name, line, problems) -> list[EditIn]:
        if not isinstance(value, list):
            problems.append(Problem(name, line, where, "must be a list of edits" + got(value)))
            return []
        out = []
        for i, raw in enumerate(value):
            edit = self.edit(raw, f"{where}[{i}]", name, line, problems)
            if edit is not None:
                out.append(edit)
        return out

    def edit(self, raw: Any, where: str, name: str, line: int,
             problems: list[Problem]) -> EditIn | None:
        if not isinstance(raw, dict):
            problems.append(Problem(name, line, where, "must be an object with a category"
                                    + got(raw)))
            return None
        category = raw.get("category")
        if not isinstance(category, str) or not category.strip():
            problems.append(Problem(name, line, f"{where}.category", "required: a category "
                                    "name" + got(category)))
            return None
        annotation = raw.get("annotation")
        if annotation is not None and not isinstance(annotation, dict):
            problems.append(Problem(name, line, f"{where}.annotation", "must be an object"
                                    + got(annotation)))
            return None
        fields: dict[str, Any] = {}
        nested: list[str] = []
        for question, answer in (annotation or {}).items():
            _flatten(question, answer, fields, nested, f"{where}.annotation.{question}", name,
                     line, problems)
        spans = (span_pairs(raw.get("input_idx"), "source", f"{where}.input_idx", name, line,
                            problems)
                 + span_pairs(raw.get("output_idx"), "target", f"{where}.output_idx", name,
                              line, problems))
        constituents = []
        if "constituent_edits" in raw:
            constituents = self.edits(raw["constituent_edits"] or [],
                                      f"{where}.constituent_edits", name, line, problems)
        meta = {k: v for k, v in raw.items() if k not in EDIT_KEYS}
        meta["_keys"] = list(raw)
        if annotation:  # which answers the file wrote as {"val": ...} (Thresh is not uniform)
            meta["_nested"] = nested
        empty = {k: raw[k] for k in EDIT_KEYS[1:] if k in raw and not raw[k]}
        if empty:  # null vs [] vs {} as the file had it
            meta["_empty"] = empty
        edit_type = self.mapping.get(category) or self.mapping.get(category.lower())
        if edit_type is None:
            edit_type, fields = self.unmapped(category, annotation, spans, where, name, line,
                                              problems)
            if edit_type is None:
                return None
        if edit_type != category:  # an alias (omission -> deletion): written back as read
            meta["_category"] = category  # ... while the edit keeps the type it was read as
        # The type it was read as: an export tells a relabelled edit (a new Thresh id).
        meta["_category_of"] = edit_type
        return EditIn(edit_type, fields, spans, where, meta={"thresh": meta},
                      constituents=constituents)

    def unmapped(self, category, annotation, spans, where, name, line, problems):
        comment = self.schema.edit_type(self.comment_type) if self.comment_type else None
        if comment is None or any(s.side not in comment.sides for s in spans):
            types = ", ".join(e.name for e in self.schema.edit_types)
            problems.append(Problem(name, line, f"{where}.category",
                                    f"maps to no edit type of schema {self.schema.name!r} "
                                    f"({types}); map it with --map {category}=TYPE"
                                    + got(category)))
            return None, {}
        text = f"Thresh category {category!r}"
        if annotation:
            text += ": " + json.dumps(annotation, ensure_ascii=False, sort_keys=True)
        self.notes.append(f"{name}:{line}: {where}: category {category!r} kept as a "
                          f"{comment.name} edit")
        return comment.name, {_comment_field(comment): text}


def _flatten(question: str, answer: Any, out: dict[str, Any], nested: list[str], where: str,
             name: str, line: int, problems: list[Problem]) -> None:
    """``{"val": OPTION, OPTION: sub-answer}`` -> ``QUESTION = OPTION`` and
    ``QUESTION.OPTION = sub-answer`` (recursively)."""
    if not isinstance(answer, dict):
        out[question] = answer
        return
    if "val" not in answer:
        problems.append(Problem(name, line, where, "expected an answer, or {\"val\": OPTION, "
                                "...} for a question with sub-questions" + got(answer)))
        return
    out[question] = answer["val"]
    nested.append(question)
    for key, sub in answer.items():
        if key != "val":
            _flatten(f"{question}.{key}", sub, out, nested, f"{where}.{key}", name, line,
                     problems)


def _status(row: dict, name: str, line: int, problems: list[Problem]) -> tuple[str, bool]:
    """(status, whether the file says the work is complete)."""
    if "_status" in row:
        status = row["_status"]
        if status not in ASSIGNMENT_STATUSES or status == "assigned":
            allowed = [s for s in ASSIGNMENT_STATUSES if s != "assigned"]
            problems.append(Problem(name, line, "_status", f"one of {allowed}" + got(status)))
            return "done", False
        return status, status == "done"
    if "_completed" in row:
        completed = row["_completed"]
        # Thresh writes true, or the time the annotator finished (a timestamp string).
        return ("done", True) if completed else ("in_progress", False)
    return "done", False


def _ratings(value: Any, name: str, line: int, problems: list[Problem]) -> list[RatingIn]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(Problem(name, line, "_ratings", "must be a list" + got(value)))
        return []
    ratings = []
    for i, item in enumerate(value):
        where = f"_ratings[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("field"), str):
            problems.append(Problem(name, line, where, "must be {level, item, field, value}"
                                    + got(item)))
            continue
        ratings.append(RatingIn(str(item.get("level", "document")), str(item.get("item", "")),
                                item["field"], item.get("value"), item.get("rationale"),
                                f"{where}.value"))
    return ratings
