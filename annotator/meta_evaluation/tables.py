"""The two tables of a metric meta-evaluation, read and joined (pure; no database).

The human side holds one row per item (or per item and rater, averaged per item: the
direct-assessment convention, optionally after standardising each rater's scores, Graham et
al. 2013/2017); the metric side one row per item with a numeric column per metric. Rows join
on key columns (``--on sent_id,sys_name``) after ``--where`` filters. Every problem names
FILE:LINE and the field: a missing key column, a duplicate key, a value that is not a finite
number; items present on one side only are listed, never dropped without a word.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from annotator.core.problems import IngestError, Problem
from annotator.core.records import csv_dict_rows, decode_upload, json_lines_rows, read_text
from annotator.core.shown import got

Key = tuple[str, ...]


@dataclass
class Table:
    name: str
    columns: list[str]
    rows: list[tuple[int, dict[str, Any]]]  # (line, row)
    notes: list[str] = field(default_factory=list)  # what the reader left out, and why


@dataclass
class Joined:
    """Matched items in one order: keys, the human score and each metric's score."""

    keys: list[Key]
    human: np.ndarray
    metrics: dict[str, np.ndarray]
    key_columns: list[str]
    systems: list[str] | None = None
    unmatched_human: list[Key] = field(default_factory=list)
    unmatched_metrics: list[Key] = field(default_factory=list)


def read_table(path: Path) -> Table:
    """A CSV (``.csv``; ``.tsv`` tab-separated) or JSON-lines table (``.jsonl``, ``.json``
    with one object a line), read as UTF-8 by the importers' strict reader."""
    return parse_table(read_text(path), str(path))


def read_uploaded_table(raw: bytes, name: str) -> Table:
    """A table sent from a web page: its bytes and its file name (which every problem
    cites, and whose ending gives the format)."""
    return parse_table(decode_upload(raw, name), name)


def parse_table(text: str, name: str) -> Table:
    """The table in ``text``; ``name``'s ending says CSV, TSV or JSON lines."""
    suffix = Path(name).suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        problems: list[Problem] = []
        rows = json_lines_rows(text, name, problems)
        for line, row in rows:
            if not isinstance(row, dict):
                problems.append(Problem(name, line, None, "expected one JSON object a line"
                                        + got(row)))
        if problems:
            raise IngestError(problems)
        columns = list(dict.fromkeys(k for _, row in rows for k in row))
        return Table(name, columns, rows)
    if suffix not in (".csv", ".tsv", ".txt"):
        raise IngestError([Problem(name, None, None, "a table is .csv, .tsv or .jsonl "
                                   f"(got {suffix or 'no ending'})")])
    reader = csv.DictReader(io.StringIO(text, newline=""),
                            delimiter="\t" if suffix == ".tsv" else ",")
    rows = csv_dict_rows(reader, name)  # the importers' CSV rule: FILE:LINE on a bad row
    return Table(name, list(reader.fieldnames or []), rows)


def parse_where(conditions: list[str]) -> list[tuple[str, str]]:
    """``COL=VALUE`` conditions (``--where``)."""
    parsed = []
    for condition in conditions:
        column, sep, value = condition.partition("=")
        if not sep or not column.strip():
            raise ValueError(f"--where {condition!r}: expected COLUMN=VALUE")
        parsed.append((column.strip(), value))
    return parsed


def filtered(table: Table, where: list[tuple[str, str]]) -> Table:
    """The rows whose every ``--where`` column (that this table has) equals its value."""
    own = [(c, v) for c, v in where if c in table.columns]
    rows = [(line, row) for line, row in table.rows
            if all(_text(row.get(c)) == v for c, v in own)]
    return Table(table.name, table.columns, rows, table.notes)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def number(table: Table, line: int, row: dict, column: str,
           problems: list[Problem]) -> float | None:
    """The cell as a finite number, or a problem naming FILE:LINE and the column."""
    value = row.get(column)
    if isinstance(value, bool) or value is None or value == "":
        problems.append(Problem(table.name, line, column, "a number is required"
                                + ("" if value in (None, "") else got(value))))
        return None
    try:
        found = float(value)
    except (TypeError, ValueError):
        problems.append(Problem(table.name, line, column, "not a number" + got(value)))
        return None
    if not math.isfinite(found):
        problems.append(Problem(table.name, line, column, "not a finite number" + got(value)))
        return None
    return found


def require_columns(table: Table, columns: list[str], problems: list[Problem]) -> None:
    for column in columns:
        if column not in table.columns:
            problems.append(Problem(table.name, 1, column, "missing column (the table has: "
                                    + ", ".join(table.columns[:20]) + ")"))


def keyed(table: Table, on: list[str], problems: list[Problem],
          also: tuple[str, ...] = ()) -> dict[Key, tuple[int, dict]]:
    """Rows by their key (the ``on`` columns, plus ``also``); a repeated key is a problem
    naming both lines."""
    found: dict[Key, tuple[int, dict]] = {}
    for line, row in table.rows:
        key = tuple(_text(row.get(c)) for c in (*on, *also))
        if key in found:
            problems.append(Problem(table.name, line, ",".join((*on, *also)),
                                    f"duplicate key {key!r} (first at line {found[key][0]})"))
            continue
        found[key] = (line, row)
    return found


def human_scores(table: Table, on: list[str], column: str, rater: str | None,
                 z_normalise: bool, problems: list[Problem]) -> dict[Key, float]:
    """One human score per item: the value itself, or with ``rater`` the mean of the raters'
    scores (each rater's standardised first with ``z_normalise``: mean 0 and population
    standard deviation 1 over that rater's ratings)."""
    rows = keyed(table, on, problems, also=(rater,) if rater else ())
    values = {key: number(table, line, row, column, problems)
              for key, (line, row) in rows.items()}
    if rater is None:
        return {key: v for key, v in values.items() if v is not None}
    if z_normalise:
        by_rater: dict[str, list[Key]] = {}
        for key, value in values.items():
            if value is not None:
                by_rater.setdefault(key[-1], []).append(key)
        for name, keys in by_rater.items():
            scores = np.array([values[k] for k in keys])
            spread = scores.std()
            if spread == 0:
                problems.append(Problem(table.name, None, rater, f"rater {name!r} gives every "
                                        "item the same score: it cannot be standardised"))
                continue
            for k, z in zip(keys, (scores - scores.mean()) / spread):
                values[k] = float(z)
    items: dict[Key, list[float]] = {}
    for key, value in values.items():
        if value is not None:
            items.setdefault(key[:-1], []).append(value)
    return {key: float(np.mean(v)) for key, v in items.items()}


def numeric_columns(table: Table, exclude: set[str]) -> list[str]:
    """Columns whose every non-empty cell is a finite number (the default ``--metrics``)."""
    found = []
    for column in table.columns:
        if column in exclude:
            continue
        cells = [row.get(column) for _, row in table.rows]
        if cells and all(_is_number(c) for c in cells):
            found.append(column)
    return found


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or value in (None, ""):
        return False
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def join(human: Table, metrics: Table, on: list[str], human_column: str, *,
         rater: str | None = None, z_normalise: bool = False,
         metric_names: list[str] | None = None, system: str | None = None,
         not_metrics: tuple[str, ...] = ()) -> Joined:
    """Human scores and metric scores of the items both tables hold, in the metric table's
    order. Without ``metric_names`` every numeric column is a metric except the keys, the
    human, rater and system columns and ``not_metrics`` (e.g. the ``--where`` columns).
    Raises IngestError listing every problem of both tables."""
    problems: list[Problem] = [
        Problem(table.name, None, None, "no rows to join (none left after the --where "
                "filters, if any)") for table in (human, metrics) if not table.rows]
    if problems:
        raise IngestError(problems)
    require_columns(human, [*on, human_column, *([rater] if rater else [])], problems)
    require_columns(metrics, on, problems)
    names = metric_names if metric_names is not None else numeric_columns(
        metrics, {*on, human_column, rater or "", system or "", *not_metrics})
    require_columns(metrics, names, problems)
    if system and system not in metrics.columns and system not in human.columns:
        problems.append(Problem(metrics.name, 1, system, "missing column (--system): "
                                "neither table has it"))
    if not names and not problems:
        problems.append(Problem(metrics.name, 1, None, "no numeric metric column (name them "
                                "with --metrics)"))
    if problems:
        raise IngestError(problems)
    people = human_scores(human, on, human_column, rater, z_normalise, problems)
    machine = keyed(metrics, on, problems)
    # the system of an item from the human table when the metric table lacks the column
    # (with raters, an item's rows agree on it; the first is taken)
    human_rows = keyed(human, on, []) if system and system not in metrics.columns else {}
    keys, found_human, found_metrics, systems = [], [], {n: [] for n in names}, []
    for key, (line, row) in machine.items():
        if key not in people:
            continue
        scores = [number(metrics, line, row, n, problems) for n in names]
        if any(s is None for s in scores):
            continue
        keys.append(key)
        found_human.append(people[key])
        for n, s in zip(names, scores):
            found_metrics[n].append(s)
        if system:
            source = row if system in metrics.columns else human_rows[key][1]
            systems.append(_text(source.get(system)))
    if problems:
        raise IngestError(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    return Joined(keys=keys, human=np.array(found_human, dtype=float),
                  metrics={n: np.array(v, dtype=float) for n, v in found_metrics.items()},
                  key_columns=list(on), systems=systems if system else None,
                  unmatched_human=[k for k in people if k not in machine],
                  unmatched_metrics=[k for k in machine if k not in people])
