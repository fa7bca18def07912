"""``annotator align FILE.jsonl``: pre-highlight pairs from a file, no database.

Reads one ``{"id", "source", "target"[, "sentence_pairs"]}`` object per line and prints
one ``{"id": ..., "suggestions": [...]}`` line per input line, in input order. The whole
file is validated before anything is printed: a bad line prints ``FILE:LINE: field 'x':
...`` on stderr and exits with status 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from annotator.align import ALL_DETECTORS, STRING_DETECTORS, AlignSettings, suggest_many
from annotator.align.embeddings import HashingEmbedder
from annotator.align.pipeline import auto_workers
from annotator.core.records import (
    IngestError,
    Problem,
    json_lines_rows,
    read_text,
    validate_rows,
)
from annotator.core.shown import got
from annotator.core.spans import SpanFault, read_span


def read_pairs(path: Path) -> list[dict]:
    """The pairs of an ``align`` input file, read by the document importer's JSONL reader
    (UTF-8, lines end at "\\n" only, strict JSON, non-empty texts, unique ids, NUL and
    length limits) so both commands answer a bad line the same way; ``sentence_pairs``
    spans go through the one span check (code points, start < end, inside the text).
    Raises IngestError naming FILE:LINE and the field of every problem."""
    name = str(path)
    problems: list[Problem] = []
    rows = json_lines_rows(read_text(path), name, problems)
    records = validate_rows(rows, name, problems)
    pairs_by_line = {line: row.get("sentence_pairs") for line, row in rows}
    ids_by_line = {line: row["id"] for line, row in rows}  # printed back as given (2, not "2")
    problems = []
    for record in records:
        _check_sentence_pairs(pairs_by_line[record.line], record, name, problems)
    if problems:
        raise IngestError(problems)
    return [{"id": ids_by_line[record.line], "source": record.source, "target": record.target,
             "sentence_pairs": pairs_by_line[record.line]} for record in records]


def _check_sentence_pairs(pairs, record, name: str, problems: list[Problem]) -> None:
    if pairs is None:
        return
    field_name = "sentence_pairs"
    if not isinstance(pairs, list):
        problems.append(Problem(name, record.line, field_name,
                                "expected a list of [[start, end], [start, end]]"))
        return
    texts = {"source": record.source, "target": record.target}
    for k, pair in enumerate(pairs):
        if not isinstance(pair, list) or len(pair) != 2:
            problems.append(Problem(name, record.line, f"{field_name}[{k}]",
                                    "must be [source span, target span]" + got(pair)))
            continue
        for side, span in zip(("source", "target"), pair):
            found = read_span(span, f"{field_name}[{k}].{side}", side=side, texts=texts)
            if isinstance(found, SpanFault):
                problems.append(found.at(name, record.line))


def _parse_detectors(value: str | None, no_embeddings: bool) -> set[str] | None:
    if value is None:
        return set(STRING_DETECTORS) if no_embeddings else None
    names = {v.strip() for v in value.split(",") if v.strip()}
    unknown = names - ALL_DETECTORS
    if unknown:
        raise click.BadParameter(
            f"unknown detector(s) {', '.join(sorted(unknown))}; choose from "
            f"{', '.join(sorted(ALL_DETECTORS))}", param_hint="--detectors")
    if no_embeddings:
        names &= STRING_DETECTORS
    return names


@click.command("align")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--detectors", default=None, metavar="a,b",
              help="Comma-separated pre-highlighters to run (default: all): "
                   + ", ".join(sorted(ALL_DETECTORS)) + ".")
@click.option("--workers", default=None, type=click.IntRange(1, 64),
              help="Worker processes (default: one per core, at most one per four pairs).")
@click.option("--no-embeddings", is_flag=True,
              help="Skip the embedding model: string-based detectors only, sentences aligned "
                   "by word overlap.")
@click.option("--contextual-renderings/--window-renderings", default=True, show_default=True,
              help="Find oversimplifications' renderings from one model pass per target "
                   "sentence (the default) or from one pass per candidate window (about twice "
                   "as slow in all; other windows for some boxes).")
def align(file: str, detectors: str | None, workers: int, no_embeddings: bool,
          contextual_renderings: bool) -> None:
    """Print pre-highlighting suggestions for each pair in FILE.jsonl (one JSON per line)."""
    wanted = _parse_detectors(detectors, no_embeddings)
    try:
        records = read_pairs(Path(file))
    except IngestError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    embedder = HashingEmbedder() if no_embeddings else None
    settings = AlignSettings(contextual_renderings=contextual_renderings)
    workers = workers or auto_workers(len(records))
    for pair_id, suggestions in suggest_many(records, workers=workers, detectors=wanted,
                                             embedder=embedder, settings=settings):
        click.echo(json.dumps({"id": pair_id, "suggestions": [s.to_dict() for s in suggestions]},
                              ensure_ascii=False))
