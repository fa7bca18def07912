"""Human scores derived from a gold release, named on the command line (pure; no database).

A release's ``gold.jsonl`` holds, per document, its gold edits (type, spans, fields) and gold
ratings (level, item, field, value). A score expression turns them into one number per
document (or per sentence, for sentence-level ratings):

- ``count:TYPE`` — gold edits of that type (``count:*``: all edits); per document;
- ``sum:FIELD`` — the numeric values of FIELD summed over the gold edits (an edit field such as
  a severity) and the gold ratings named FIELD (e.g. Devaraj et al.'s insertion / deletion /
  substitution labels);
- ``mean:FIELD`` — the mean of the gold ratings named FIELD;
- ``plaba:AXIS`` — the mean of a PLABA axis (-1/0/1) mapped linearly to 0-100, as the TREC
  PLABA overview reports it;
- ``label:FIELD=VALUE`` — 1 when a gold rating (or edit field) FIELD holds VALUE, else 0; at
  document level a document is positive when any of its sentences is (SimpleOG's rule).

``--unit sentence`` scores each sentence (ratings of level ``sentence``, or ``pair`` for
sentence-pair schemas such as factuality) keyed by ``document_id`` and ``item``.

The derived table has the key columns ``document_id`` (and ``item`` for sentences), the
score column ``human`` and each document's metadata, so ``--system`` can name a metadata key.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from annotator.core.problems import IngestError, Problem
from annotator.core.records import decode_upload, json_lines_rows, read_text
from annotator.meta_evaluation.tables import Table

KINDS = ("count", "sum", "mean", "plaba", "label")
SCORE_COLUMN = "human"
SENTENCE_LEVELS = ("sentence", "pair")  # a rating of one sentence, or of one sentence pair


def is_release(path: Path) -> bool:
    """A release folder, its zip, or its gold.jsonl."""
    return path.is_dir() or path.suffix.lower() == ".zip" or path.name == "gold.jsonl"


def gold_records(path: Path) -> list[tuple[int, dict]]:
    """(line, record) of a release's gold.jsonl, from the folder, the zip or the file."""
    if path.is_dir():
        return _records(read_text(path / "gold.jsonl"), str(path / "gold.jsonl"))
    if path.suffix.lower() == ".zip":
        try:
            with zipfile.ZipFile(path) as archive:
                members = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "gold.jsonl"]
                if len(members) != 1:
                    raise IngestError([Problem(str(path), None, None, "a release zip holds "
                                               f"one gold.jsonl (found {len(members)})")])
                raw = archive.read(members[0])
        except zipfile.BadZipFile as exc:
            raise IngestError([Problem(str(path), None, None, f"not a zip file ({exc})")])
        name = f"{path}:{members[0]}"
        return _records(decode_upload(raw, name), name)
    return _records(read_text(path), str(path))


def _records(text: str, name: str) -> list[tuple[int, dict]]:
    problems: list[Problem] = []
    rows = json_lines_rows(text, name, problems)
    for line, row in rows:
        if not (isinstance(row, dict) and isinstance(row.get("id"), str)
                and isinstance(row.get("edits"), list) and isinstance(row.get("ratings"), list)):
            problems.append(Problem(name, line, None, "not a gold record (id, edits, ratings)"))
    if problems:
        raise IngestError(problems)
    return rows


def parse_expression(expression: str) -> tuple[str, str, str | None]:
    """(kind, name, value) of ``kind:name`` or ``label:name=value``."""
    kind, sep, rest = expression.partition(":")
    if not sep or kind not in KINDS or not rest:
        raise ValueError(f"--human {expression!r}: expected one of "
                         + ", ".join(f"{k}:NAME" for k in KINDS) + " (label:FIELD=VALUE)")
    if kind == "label":
        name, sep, value = rest.partition("=")
        if not sep or not name:
            raise ValueError(f"--human {expression!r}: expected label:FIELD=VALUE")
        return kind, name, value
    return kind, rest, None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def _holds(value: Any, wanted: str) -> bool:
    values = value if isinstance(value, list) else [value]
    return any(str(v) == wanted for v in values)


def release_table(path: Path, expression: str, unit: str = "document") -> Table:
    """The derived human table of a release (see the module docstring)."""
    return derived_table(gold_records(path), str(path), expression, unit)


def stored_gold_records(raw: bytes, name: str) -> list[tuple[int, dict]]:
    """The records of a stored release's gold.jsonl bytes (``name`` is cited in problems),
    decoded by the importers' UTF-8 rule."""
    return _records(decode_upload(raw, name), name)


def derived_table(records: list[tuple[int, dict]], source: str, expression: str,
                  unit: str = "document") -> Table:
    """The human table ``expression`` derives from gold ``records`` read once (a caller
    scoring several expressions reads the release once)."""
    kind, name, wanted = parse_expression(expression)
    if unit == "sentence" and kind in ("count", "sum"):
        raise ValueError(f"--human {expression!r} is per document (edits have no sentence); "
                         "use --unit document")
    rows: list[tuple[int, dict]] = []
    problems: list[Problem] = []
    unscored: list[str] = []
    for line, record in records:
        meta = record.get("meta") if isinstance(record.get("meta"), dict) else {}
        base = {k: v for k, v in meta.items() if isinstance(v, (str, int, float))}
        ratings = [r for r in record["ratings"] if isinstance(r, dict) and r.get("field") == name]
        if unit == "sentence":
            per_sentence = [r for r in ratings if r.get("level") in SENTENCE_LEVELS]
            items = sorted({str(r.get("item")) for r in per_sentence}, key=lambda i: (len(i), i))
            for item in items:
                mine = [r for r in per_sentence if str(r.get("item")) == item]
                score = _score(kind, name, wanted, [], mine, source, line, problems)
                rows.append((line, {**base, "document_id": record["id"], "item": item,
                                    SCORE_COLUMN: score}))
            continue
        score = _score(kind, name, wanted, record["edits"], ratings, source, line, problems)
        if score is None:
            unscored.append(record["id"])
            continue
        rows.append((line, {**base, "document_id": record["id"], SCORE_COLUMN: score}))
    if problems:
        raise IngestError(problems)
    columns = list(dict.fromkeys(k for _, row in rows for k in row))
    notes = [f"{len(unscored)} document(s) have no gold rating {name!r} and no {expression} "
             f"score (left out): {', '.join(unscored[:10])}"] if unscored else []
    return Table(source, columns, rows, notes)


def _score(kind: str, name: str, wanted: str | None, edits: list, ratings: list[dict],
           source: str, line: int, problems: list[Problem]) -> float | None:
    edits = [e for e in edits if isinstance(e, dict)]
    if kind == "count":
        return float(sum(1 for e in edits if name == "*" or e.get("edit_type") == name))
    if kind == "label":
        held = [r.get("value") for r in ratings] + [
            (e.get("fields") or {}).get(name) for e in edits if name in (e.get("fields") or {})]
        return 1.0 if any(_holds(v, wanted or "") for v in held) else 0.0
    values = [r.get("value") for r in ratings]
    if kind == "sum":
        values += [(e.get("fields") or {}).get(name) for e in edits
                   if (e.get("fields") or {}).get(name) is not None]
    numbers = [_number(v) for v in values]
    if any(n is None for n in numbers):
        bad = next(v for v, n in zip(values, numbers) if n is None)
        problems.append(Problem(source, line, name, f"{kind}:{name} needs numeric values "
                                f"(got {bad!r})"))
        return None
    if kind == "sum":
        return float(sum(numbers))
    if not numbers:
        return None  # no gold rating of that field: the item has no human score
    mean = float(np.mean(numbers))
    return (mean + 1) * 50 if kind == "plaba" else mean


def score_choices(schema) -> list[tuple[str, str]]:
    """(expression, what it scores) a project's schema offers: a count per edit type, a sum
    per numeric edit field, a mean (and a PLABA mapping for -1/0/1 axes) per rating field,
    a label per rating choice."""
    choices = [("count:*", "gold edits of any type")]
    numeric = {}
    for edit_type in schema.edit_types:
        choices.append((f"count:{edit_type.name}", f"gold {edit_type.label} edits"))
        for spec in edit_type.fields:
            if spec.type == "ordinal":
                numeric[spec.name] = spec.label
    choices += [(f"sum:{name}", f"summed {label}") for name, label in numeric.items()]
    for spec in schema.ratings:
        values = spec.option_values()
        if spec.type == "ordinal" or all(isinstance(v, (int, float)) for v in values):
            choices.append((f"mean:{spec.name}", f"mean {spec.label}"))
            choices.append((f"sum:{spec.name}", f"summed {spec.label}"))
            if sorted(values) == [-1, 0, 1]:
                choices.append((f"plaba:{spec.name}", f"{spec.label}, 0-100 (PLABA)"))
        for value in values:
            choices.append((f"label:{spec.name}={value}", f"{spec.label} is {value}"))
    return list(dict.fromkeys(choices))
