"""The input boundary: reading document pairs from JSONL, JSON and CSV files.

Pure: bytes in, validated records out, nothing written. Every problem is reported with the
file, the line and the field, and all problems in a file are collected before anything is
stored, so a lead fixes the file once instead of once per error.

Two record shapes:

* document pair: ``{"id", "source", "target", "meta"?, "source_sentences"?, "target_sentences"?}``
  (any other top-level key, e.g. ``system``, goes into ``meta``);
* sentence-level pair list: ``{"id", "sentences": [{"source", "target"}, ...], "meta"?}``:
  the sentences are joined with a space and their offsets kept as the alignment.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from annotator.core import strict_json
from annotator.core.annotation_shapes import csv_header_format, first_annotation_record, refusal
from annotator.core.limits import current_limits
from annotator.core.problems import IngestError, Problem  # noqa: F401  (re-exported: the old import path)
from annotator.core.spans import read_spans

RESERVED = {"id", "source", "target", "sentences", "meta", "source_sentences", "target_sentences"}
MAX_ID_LENGTH = 200
SENTENCE_JOINER = " "


@dataclass
class DocumentRecord:
    external_id: str
    source: str
    target: str
    line: int
    meta: dict[str, Any] = field(default_factory=dict)
    source_sentences: list[tuple[int, int]] | None = None
    target_sentences: list[tuple[int, int]] | None = None
    sentence_pairs: list[tuple[int, int]] | None = None


def detect_format(path: Path, fmt: str | None, *, how: str = "pass --format") -> str:
    """The format named, else the one of the file name's ending; ``how`` tells a person
    who sent neither how to name it (the command's option, the web form's menu)."""
    if fmt:
        if fmt not in FORMATS:
            raise IngestError([Problem(str(path), None, None,
                                       f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")])
        return fmt
    suffix = path.suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return suffix
    if suffix == "ndjson":
        return "jsonl"
    raise IngestError([Problem(str(path), None, None,
                               f"cannot tell the format from the file name; {how}")])


def read_documents(path: Path, fmt: str | None = None) -> list[DocumentRecord]:
    """Parse and validate a whole file; raise IngestError listing every problem."""
    fmt = detect_format(path, fmt)
    return parse_documents(read_text(path), str(path), fmt)


def read_uploaded_documents(raw: bytes, name: str, fmt: str | None = None
                            ) -> list[DocumentRecord]:
    """A file sent from the web page: its bytes and its name (what every problem cites,
    and whose ending gives the format unless ``fmt`` names it)."""
    fmt = detect_format(Path(name), fmt, how="choose the format in the form")
    return parse_documents(_decode(raw, name), name, fmt)


def parse_documents(text: str, name: str, fmt: str) -> list[DocumentRecord]:
    """The records of a file's text in format ``fmt``, every problem citing ``name``."""
    parse_problems: list[Problem] = []
    rows = ROW_READERS[fmt](text, name, parse_problems)
    _refuse_annotation_file(rows, name)
    return validate_rows(rows, name, parse_problems)


def _refuse_annotation_file(rows: list[tuple[int, Any]], name: str) -> None:
    """An annotation file given as documents is refused whole, naming the command that
    imports it (:mod:`annotator.core.annotation_shapes`): read as documents, each of its
    records became a document and its edits were dropped without a word."""
    found = first_annotation_record(rows)
    if found is not None:
        line, fmt = found
        raise IngestError([Problem(name, line, *refusal(fmt, name))])


def read_text(path: Path) -> str:
    """A file's text, decoded as UTF-8 (a byte-order mark is dropped); an unreadable file
    or invalid UTF-8 is an IngestError naming the line."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise IngestError([Problem(name, None, None, f"cannot read file: {exc.strerror}")])
    return _decode(raw, name)


def decode_upload(raw: bytes, name: str) -> str:
    """An uploaded file's bytes as text, by the same UTF-8 rule as :func:`read_text`."""
    return _decode(raw, name)


def _decode(raw: bytes, name: str) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise IngestError([Problem(
            name, line, None,
            f"invalid UTF-8 (byte 0x{raw[exc.start]:02x} at column {column}); "
            "save the file as UTF-8",
        )]) from None
    return text[1:] if text.startswith("\ufeff") else text


def json_lines_rows(text: str, name: str, problems: list[Problem]) -> list[tuple[int, Any]]:
    """One JSON value per non-empty line, with its line number; bad lines go to
    ``problems`` so every one of them is reported.

    Lines end at "\n" (and an optional "\r") only: JSON strings may hold U+2028, U+0085
    and other characters that ``str.splitlines`` would wrongly split on."""
    rows = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line[:-1] if line.endswith("\r") else line
        if not line.strip():
            continue
        try:
            value = strict_json.loads(line)
        except strict_json.StrictJSONError as exc:
            problems.append(Problem(name, number, None, str(exc)))
            continue
        if _strict_problem(value, name, number, problems):
            rows.append((number, value))
    return rows


def _strict_problem(value: Any, name: str, line: int, problems: list[Problem]) -> bool:
    """True if ``value`` is acceptable; else its problem (NUL, lone surrogate, NaN, deep
    nesting) goes to ``problems`` with the field that holds it."""
    found = strict_json.value_problem(value)
    if found is None:
        return True
    problems.append(Problem(name, line, found[0], found[1]))
    return False


def json_array_rows(text: str, name: str) -> list[tuple[int, Any]]:
    """A JSON array of records; each record's line is where its object starts.

    Lines are counted forward as the records are read (``_LineCounter``), so reading is
    linear in the file: counting from the start for every record made a 40,000-record
    array take minutes (benchmarks/bench_readers.py)."""
    lines = _LineCounter(text)
    position = _skip_space(text, 0)
    if position >= len(text) or text[position] != "[":
        raise IngestError([Problem(name, lines.at(position), None,
                                   "expected a JSON array of records")])
    rows = []
    position = _skip_space(text, position + 1)
    while position < len(text) and text[position] != "]":
        line = lines.at(position)
        try:
            value, end = strict_json.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise IngestError([Problem(name, exc.lineno, None, f"not valid JSON ({exc.msg})")])
        except strict_json.StrictJSONError as exc:
            raise IngestError([Problem(name, line, None, str(exc))])
        problems: list[Problem] = []
        if not _strict_problem(value, name, line, problems):
            raise IngestError(problems)
        rows.append((line, value))
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position = _skip_space(text, position + 1)
        elif position < len(text) and text[position] != "]":
            raise IngestError([Problem(name, lines.at(position), None,
                                       "not valid JSON (expected ',' or ']')")])
    if position >= len(text):
        raise IngestError([Problem(name, lines.at(position), None,
                                   "not valid JSON (the array is not closed)")])
    return rows


class _LineCounter:
    """The line of a position in ``text``, for positions asked in increasing order: each
    call counts only the newlines since the previous one (a smaller position starts over)."""

    def __init__(self, text: str):
        self._text = text
        self._position = 0
        self._line = 1

    def at(self, position: int) -> int:
        if position < self._position:
            self._position, self._line = 0, 1
        self._line += self._text.count("\n", self._position, position)
        self._position = position
        return self._line


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _csv_rows(text: str, name: str) -> list[tuple[int, Any]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    if csv_header_format(header):  # this tool's annotations CSV (see _refuse_annotation_file)
        raise IngestError([Problem(name, 1, *refusal(csv_header_format(header), name))])
    missing = [c for c in ("id", "source", "target") if c not in header]
    if missing:
        raise IngestError([Problem(name, 1, c, "missing column") for c in missing])
    rows = []
    for line, row in csv_dict_rows(reader, name):
        record = {k: v for k, v in row.items() if k in ("id", "source", "target")}
        meta = {k: v for k, v in row.items() if k not in record and v not in (None, "")}
        record["meta"] = meta
        rows.append((line, record))
    return rows


def csv_dict_rows(reader: csv.DictReader, name: str) -> list[tuple[int, dict]]:
    """(line, row) of every row of a CSV reader whose header the caller has checked; a row
    with more cells than the header, or CSV the module cannot read, is an IngestError
    naming ``name`` and the line."""
    rows = []
    try:
        for row in reader:
            if None in row:
                raise IngestError([Problem(name, reader.line_num, None,
                                           "more cells than header columns")])
            rows.append((reader.line_num, dict(row)))
    except csv.Error as exc:
        raise IngestError([Problem(name, reader.line_num, None, f"not valid CSV ({exc})")])
    return rows


def validate_rows(
    rows: list[tuple[int, Any]], name: str, problems: list[Problem] | None = None
) -> list[DocumentRecord]:
    problems = list(problems or [])
    records: list[DocumentRecord] = []
    first_line: dict[str, int] = {}
    max_chars = current_limits().max_text_chars
    for line, row in rows:
        record = _validate_row(row, line, name, problems, max_chars)
        if record is None:
            continue
        if record.external_id in first_line:
            problems.append(Problem(name, line, "id",
                                    f"duplicate id {record.external_id!r} "
                                    f"(first used on line {first_line[record.external_id]})"))
            continue
        first_line[record.external_id] = line
        records.append(record)
    if not rows and not problems:
        problems.append(Problem(name, None, None, "the file holds no records"))
    if problems:
        raise IngestError(sorted(problems, key=lambda p: p.line or 0))
    return records


def _validate_row(row: Any, line: int, name: str, problems: list[Problem], max_chars: int):
    def bad(field_name: str | None, message: str):
        problems.append(Problem(name, line, field_name, message))

    if not isinstance(row, dict):
        bad(None, f"expected an object with id, source and target, got {type(row).__name__}")
        return None
    count_before = len(problems)
    external_id = row.get("id")
    if isinstance(external_id, bool) or not isinstance(external_id, (str, int)):
        bad("id", "required: a string or integer")
    elif not str(external_id).strip():
        bad("id", "must not be empty")
    elif len(str(external_id)) > MAX_ID_LENGTH:
        bad("id", f"longer than {MAX_ID_LENGTH} characters")
    elif "\x00" in str(external_id):
        bad("id", "contains a NUL character")
    meta = row.get("meta", {})
    if not isinstance(meta, dict):
        bad("meta", "must be an object")
        meta = {}
    meta = {**{k: v for k, v in row.items() if k not in RESERVED}, **meta}
    found = strict_json.value_problem(meta, "meta")
    if found:  # CSV cells reach here without the JSON readers' check
        bad(*found)

    if "sentences" in row:
        source, target, pairs, src_sents, tgt_sents = _sentence_list(row, bad, max_chars)
        if "source" in row or "target" in row:
            bad("sentences", "give either 'sentences' or 'source'/'target', not both")
    else:
        source = _text(row, "source", bad, max_chars)
        target = _text(row, "target", bad, max_chars)
        pairs = None
        src_sents = _offsets(row, "source_sentences", "source", source, bad)
        tgt_sents = _offsets(row, "target_sentences", "target", target, bad)
    if len(problems) > count_before:
        return None
    return DocumentRecord(
        external_id=str(external_id).strip(), source=source, target=target, line=line,
        meta=meta, source_sentences=src_sents, target_sentences=tgt_sents, sentence_pairs=pairs,
    )


def _text(row: dict, key: str, bad, max_chars: int) -> str:
    value = row.get(key)
    problem = text_problem(value, max_chars)
    if problem is None:
        return value
    bad(key, problem)
    return ""


def text_problem(value: Any, max_chars: int | None = None) -> str | None:
    """Why ``value`` cannot be the original or the simplification of a document pair, or
    None: the one rule for document files and for annotation files that carry their texts.
    ``max_chars``: the ANNOTATOR_MAX_TEXT_CHARS limit (default: the limit in effect)."""
    if value is None:
        return "required"
    if not isinstance(value, str):
        return f"must be a string, got {type(value).__name__}"
    if not value.strip():
        return "must not be empty"
    if "\x00" in value:
        return "contains a NUL character"
    limit = current_limits().max_text_chars if max_chars is None else max_chars
    if len(value) > limit:
        return (f"{len(value):,} characters, more than the limit of {limit:,} "
                "(ANNOTATOR_MAX_TEXT_CHARS)")
    return None


def _offsets(row: dict, key: str, side: str, text: str, bad):
    """A document's sentence offsets (``source_sentences``: ``[[start, end], ...]`` inside
    the text, in order) through the one span rule; None when absent or wrong."""
    if key not in row:
        return None
    spans, faults = read_spans(row[key], key, side=side, texts={side: text}, in_order=True)
    for fault in faults:
        bad(fault.field, fault.message)
    return None if faults else [(s.start, s.end) for s in spans]


def _sentence_list(row: dict, bad, max_chars: int):
    value = row["sentences"]
    if not isinstance(value, list) or not value:
        bad("sentences", "must be a non-empty list of {source, target} pairs")
        return "", "", None, None, None
    sources, targets = [], []
    for i, pair in enumerate(value):
        if not isinstance(pair, dict):
            bad(f"sentences[{i}]", "must be an object with source and target")
            continue
        s = _text(pair, "source", lambda f, m, i=i: bad(f"sentences[{i}].{f}", m), max_chars)
        t = _text(pair, "target", lambda f, m, i=i: bad(f"sentences[{i}].{f}", m), max_chars)
        sources.append(s.strip())
        targets.append(t.strip())
    source, src_sents = _join(sources)
    target, tgt_sents = _join(targets)
    pairs = [(i, i) for i in range(len(sources))]
    return source, target, pairs, src_sents, tgt_sents


def _join(sentences: list[str]) -> tuple[str, list[tuple[int, int]]]:
    offsets, position = [], 0
    for sentence in sentences:
        offsets.append((position, position + len(sentence)))
        position += len(sentence) + len(SENTENCE_JOINER)
    return SENTENCE_JOINER.join(sentences), offsets


# The document formats (`annotator import --format`; otherwise the file's ending), each with
# its reader(text, file name, problems) -> [(line, row)]: a reader raises IngestError for a
# file it cannot read at all, or adds a Problem per unreadable line and goes on; every row
# is then checked by the one rule, validate_rows. docs/extending.md: adding a format.
ROW_READERS: dict[str, Callable[[str, str, list[Problem]], list[tuple[int, Any]]]] = {
    "jsonl": json_lines_rows,
    "json": lambda text, name, _problems: json_array_rows(text, name),
    "csv": lambda text, name, _problems: _csv_rows(text, name),
}
FORMATS = tuple(ROW_READERS)
