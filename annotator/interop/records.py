"""The common shape every interchange format is read into and written from.

A format reader (Thresh, Label Studio, InfoLossQA, JSONL/CSV) turns its file into
:class:`AnnotationRecord` objects: one document pair, one annotator's work on it (edits with
spans and fields, ratings, time, status) and, for every value, *where* in the file it came
from (line and field path). :func:`check_records` then checks every record against the
project's schema and the texts, collecting :class:`~annotator.ingest.Problem` entries with
file, line and field, so a bad file is refused as a whole before anything is written.

Rules every format follows (:class:`ImportOptions`), so an import never loses what it was
given: every key of a record is stored (as a field, a span, time, status, or verbatim in
``Assignment.meta`` / ``Edit.meta``) or refused with ``FILE:LINE: field 'NAME': ... (got
VALUE)``; ``--ignore FIELD`` is the only way to drop one, and the report counts what it
dropped. A span that runs past the end of its text is refused with a hint, or clipped with
``--clip-spans`` and listed in the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.annotate.answers import rating_value_problem
from annotator.core.limits import current_limits
from annotator.core.problems import ValidationFailed
from annotator.core.records import (
    IngestError,
    Problem,
    json_array_rows,
    json_lines_rows,
    read_text,
    text_problem,
)
from annotator.core.shown import got
from annotator.core.spans import read_spans, span_problem
from annotator.core.strict_json import seconds_problem
from annotator.core.usernames import username_problem
from annotator.core.vocabulary import SIDES
from annotator.schemas import Schema
from annotator.schemas.answers import validate_fields


@dataclass
class SpanIn:
    side: str  # "source" (the original) or "target" (the simplification)
    start: int
    end: int
    where: str = ""  # field path in the file, e.g. "edits[0].input_idx[1]"


@dataclass
class EditIn:
    edit_type: str
    fields: dict[str, Any]
    spans: list[SpanIn]
    where: str = ""
    meta: dict[str, Any] = field(default_factory=dict)  # the tool's edit id, extra keys
    constituents: list[EditIn] = field(default_factory=list)  # of a composite edit


@dataclass
class RatingIn:
    level: str
    item: str
    field: str
    value: Any
    rationale: str | None = None
    where: str = ""


@dataclass
class AnnotationRecord:
    """One annotator's work on one document pair, as read from an interchange file."""

    document_id: str
    annotator: str
    line: int
    source: str | None = None  # None: the document must already be in the project
    target: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    edits: list[EditIn] = field(default_factory=list)
    ratings: list[RatingIn] = field(default_factory=list)
    seconds_spent: float | None = 0.0  # None: the file does not say (stored as unknown)
    status: str = "done"
    file: str = ""  # the file it came from, when an import reads several
    # What the record carried beyond texts, edits, ratings, time and status (a tool's ids,
    # per-record metadata), stored in Assignment.meta under the format's name.
    assignment_meta: dict[str, Any] = field(default_factory=dict)
    says_done: bool = False  # the file itself marks the work complete
    # A task of the file nobody worked on (a snapshot taken mid-study): only its document
    # is imported.
    document_only: bool = False
    # The file gives no id, so ``document_id`` was made from the texts (a Thresh record
    # without ``id``): only such a record may join a project document by its texts. A
    # record that names its item is that item, whatever its texts (two items of a rating
    # study often share one abstract).
    keyed_by_texts: bool = False


@dataclass(frozen=True)
class ImportOptions:
    """The choices an import command offers beyond the format (see module docstring)."""

    ignore: tuple[str, ...] = ()  # dotted key paths to drop, e.g. "_modified", "edits.id"
    clip_spans: bool = False
    accept_incomplete: bool = False  # keep "done" when the file says so, values missing
    # An annotator's later annotation of an item replaces the earlier one (a study's
    # re-rating), audited and counted; without it a re-rated item is refused (UPDATE_HINT).
    update: bool = False
    # A Label Studio pull: answers an edit's regions on the two sides give differently are
    # settled against the stored work (labelstudio_merge) instead of refused.
    settle_side_answers: bool = False


@dataclass
class ImportReport:
    """What an import did beyond the counts: kept-but-unmapped edits, invalid predictions,
    users created without a login."""

    records: int = 0
    edits: int = 0
    ratings: int = 0
    documents_created: int = 0
    users_created: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    invalid: list[dict[str, Any]] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)  # --ignore path -> values dropped
    clipped: list[str] = field(default_factory=list)  # one line per clipped span
    incomplete: list[str] = field(default_factory=list)  # values missing: in progress
    # --update: one line per earlier annotation replaced by a later one (of the project, or
    # of an earlier file of the same import).
    replaced: list[str] = field(default_factory=list)
    # Label Studio: every draft read (task, document, annotator, stored or why not).
    drafts: list[dict[str, Any]] = field(default_factory=list)


UPDATE_HINT = "--update replaces an annotator's earlier annotation of an item with the later one"


def where(record: AnnotationRecord, file_name: str = "") -> str:
    """``FILE:LINE`` of a record (the file it came from when an import reads several)."""
    return f"{record.file or file_name}:{record.line}"


def keep_later(records: list[AnnotationRecord], report: ImportReport) -> list[AnnotationRecord]:
    """``--update`` within one import: of two records by one annotator on one item, the later
    one (files in the order given, records in file order) is kept, as a study's own analysis
    keeps the re-rating; each dropped one is listed in ``report.replaced``."""
    last: dict[tuple[str, str], AnnotationRecord] = {}
    for r in records:
        if not r.document_only:
            last[(r.document_id, r.annotator)] = r
    kept = []
    for r in records:
        later = None if r.document_only else last[(r.document_id, r.annotator)]
        if later is not None and later is not r:
            report.replaced.append(f"{where(later)}: {r.annotator} on {r.document_id} "
                                   f"replaces {where(r)}")
            continue
        kept.append(r)
    return kept


def drop_ignored(row: Any, paths: tuple[str, ...], counts: dict[str, int]) -> Any:
    """Remove the ``--ignore`` key paths from a raw record, counting what was dropped.

    A path is dotted keys from the record (``metadata.system``); lists are walked through,
    so ``edits.annotation.comment`` drops that answer from every edit."""
    for path in paths:
        counts.setdefault(path, 0)
        counts[path] += _drop(row, path.split("."))
    return row


def _drop(node: Any, keys: list[str]) -> int:
    if isinstance(node, list):
        return sum(_drop(item, keys) for item in node)
    if not isinstance(node, dict) or keys[0] not in node:
        return 0
    if len(keys) == 1:
        del node[keys[0]]
        return 1
    return _drop(node[keys[0]], keys[1:])


def load_json_array(path: Path) -> list[tuple[int, Any]]:
    """A JSON array of objects as ``(line where the object starts, object)`` pairs."""
    return json_array_rows(read_text(path), str(path))


def load_json_lines(path: Path) -> list[tuple[int, Any]]:
    problems: list[Problem] = []
    rows = json_lines_rows(read_text(path), str(path), problems)
    if problems:
        raise IngestError(problems)
    return rows


def record_owner(row: dict, keys: tuple[str, ...], fallback: str | None, name: str, line: int,
                 problems: list[Problem], hint: str) -> str | None:
    """Who a record belongs to: the first of ``keys`` the record fills, else the command's
    ``--annotator``/``--model`` value; a problem on the first key when neither gives one."""
    who = next((row.get(k) for k in keys if row.get(k)), None) or fallback
    if not isinstance(who, str) or not who.strip():
        problems.append(Problem(name, line, keys[0], hint))
        return None
    return who.strip()


def record_id(row: dict, key: str, name: str, line: int, problems: list[Problem]) -> str | None:
    """The record's document id (string or integer), or a problem naming the field."""
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        problems.append(Problem(name, line, key, "required: the document id (string or "
                            "integer)" + got(value)))
        return None
    return str(value).strip()


def span_pairs(value: Any, side: str, where: str, name: str, line: int,
               problems: list[Problem]) -> list[SpanIn]:
    """``[[start, end], ...]`` (or null/absent) as spans on one side, read by the one span
    rule (:func:`annotator.core.spans.read_spans`; bounds are checked with the texts, in
    :func:`check_records`)."""
    if value is None:
        return []
    spans, faults = read_spans(value, where, side=side)
    problems.extend(f.at(name, line) for f in faults)
    return [SpanIn(s.side, s.start, s.end, s.where) for s in spans]


def check_records(records: list[AnnotationRecord], schema: Schema, name: str,
                  texts: dict[str, tuple[str, str]], options: ImportOptions | None = None,
                  report: ImportReport | None = None) -> list[Problem]:
    """Check edit types, sides, span offsets, field and rating values against the schema.

    ``texts`` maps document ids already in the project to their (source, target); a record
    that carries its own texts is checked against those."""
    options = options or ImportOptions()
    report = report if report is not None else ImportReport()
    problems: list[Problem] = []
    seen: dict[tuple[str, str], AnnotationRecord] = {}
    file_name = name
    for record in records:
        line, name = record.line, record.file or file_name
        key = (record.document_id, record.annotator)
        if key in seen and not record.document_only:
            first = seen[key]
            at = (f"line {first.line}" if (first.file or file_name) == name
                  else where(first, file_name))
            # Without ids, identical texts are one document: two systems with the same
            # output need ids to stay two items.
            hint = ("the records carry no id, so the same two texts are one document: give "
                    "each record its own 'id' to keep them apart, or " if record.keyed_by_texts
                    else "")
            problems.append(Problem(name, line, "id", f"document {record.document_id!r} by "
                                    f"{record.annotator!r} appears twice (first on {at}); "
                                    + hint + UPDATE_HINT))
            continue
        seen[key] = record
        name_wrong = None if record.document_only else username_problem(record.annotator)
        if name_wrong:  # the account the work is stored under must be creatable
            problems.append(Problem(name, line, "annotator", name_wrong))
        seconds_wrong = (None if record.seconds_spent is None  # None: the file gives no time
                         else seconds_problem(record.seconds_spent))
        if seconds_wrong:
            problems.append(Problem(name, line, "seconds_spent", seconds_wrong
                                    + got(record.seconds_spent)))
        known = texts.get(record.document_id)
        if record.source is not None and known is not None and known != (record.source,
                                                                         record.target):
            problems.append(Problem(name, line, "source", f"document {record.document_id!r} "
                                    "exists in the project with different texts"))
            continue
        if record.source is not None and known is None:  # a document this import creates
            wrong = [(side, text_problem(text)) for side, text in zip(SIDES, (record.source,
                                                                           record.target))]
            wrong = [(side, problem) for side, problem in wrong if problem]
            for side, problem in wrong:
                problems.append(Problem(name, line, side, problem))
            if wrong:
                continue
        pair = (record.source, record.target) if record.source is not None else known
        if pair is None:
            problems.append(Problem(name, line, "id", f"document {record.document_id!r} is not "
                                    "in the project and the record carries no texts"))
            continue
        for edit in record.edits:
            _check_edit(edit, schema, dict(zip(SIDES, pair)), name, line,
                        problems, options, report)
        for rating in record.ratings:
            spec = schema.rating(rating.field, rating.level)
            if spec is None:
                problems.append(Problem(name, line, rating.where, f"{rating.field!r} is not a "
                                        f"rating field at level {rating.level!r} in schema "
                                        f"{schema.name!r}"))
            else:
                wrong = rating_value_problem(schema, spec, rating.value)
                if wrong:
                    problems.append(Problem(name, line, rating.where,
                                            f"{rating.field!r}: {wrong}"))
    return problems


def _check_edit(edit: EditIn, schema: Schema, texts: dict[str, str], name: str, line: int,
                problems: list[Problem], options: ImportOptions, report: ImportReport,
                parent=None) -> None:
    edit_type = schema.edit_type(edit.edit_type)
    if edit_type is None:
        problems.append(Problem(name, line, f"{edit.where}.category" if edit.where else
                                "category", f"unknown category; schema {schema.name!r} has: "
                                + ", ".join(e.name for e in schema.edit_types)
                                + got(edit.edit_type)))
        return
    limit = current_limits().max_spans_per_edit
    if len(edit.spans) > limit:
        problems.append(Problem(name, line, f"{edit.where}.spans" if edit.where else "spans",
                                f"{len(edit.spans):,} spans, more than the limit of {limit} "
                                "per edit (ANNOTATOR_MAX_SPANS_PER_EDIT)"))
        return
    for span in edit.spans:
        _check_span(span, edit_type, texts, name, line, problems, options, report)
    if not edit_type.multi_span:
        for side in edit_type.sides:
            on_side = [s for s in edit.spans if s.side == side]
            if len(on_side) > 1:
                problems.append(Problem(name, line, on_side[1].where, f"{edit_type.name} "
                                        "takes one span per side (single span)"
                                        + got([[s.start, s.end] for s in on_side])))
    if edit.constituents and not edit_type.composite:
        problems.append(Problem(name, line, f"{edit.where}.constituent_edits",
                                f"{edit_type.name} is not a composite edit type"
                                + got(len(edit.constituents))))
    if parent is not None and edit_type.composite:
        problems.append(Problem(name, line, f"{edit.where}.category", "a constituent of a "
                                "composite edit cannot be composite itself"
                                + got(edit.edit_type)))
    for constituent in edit.constituents:
        _check_edit(constituent, schema, texts, name, line, problems, options, report, edit)
    try:
        edit.fields = validate_fields(edit.fields, edit_type.fields)
    except ValidationFailed as exc:
        for p in exc.problems:
            where = p["field"].replace("fields.", "annotation.", 1)
            problems.append(Problem(name, line, f"{edit.where}.{where}" if edit.where
                                    else where, p["message"]))


def _check_span(span: SpanIn, edit_type, texts, name, line, problems, options, report):
    length = len(texts[span.side]) if span.side in texts else 0
    past_end = span.side in edit_type.sides and 0 <= span.start < length < span.end
    if past_end and options.clip_spans:
        report.clipped.append(f"{name}:{line}: field '{span.where}': [{span.start}, "
                              f"{span.end}] clipped to [{span.start}, {length}] (the "
                              f"{span.side} text has {length} characters)")
        span.end = length
    problem = span_problem(span.side, span.start, span.end, texts, sides=edit_type.sides,
                           kind=edit_type.name)
    if problem is None:
        return
    if past_end:
        problem += "; --clip-spans clips spans that run past the end of the text"
    problems.append(Problem(name, line, span.where, problem + got([span.start, span.end])))
