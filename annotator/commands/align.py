"""``annotator align FILE.jsonl``: pre-highlight pairs from a file, no database.

Reads one ``{"id", "source", "target"[, "sentence_pairs"]}`` object per line and prints
one ``{"id": ..., "suggestions": [...]}`` line per input line, in input order. The whole
file is validated before anything is printed: a bad line prints ``FILE:LINE: field 'x':
...`` on stderr and exits with status 2.
"""

from __future__ import annotations

import json
import sys

import click

from annotator.align import ALL_DETECTORS, STRING_DETECTORS, AlignSettings, suggest_many
from annotator.align.embeddings import HashingEmbedder
from annotator.core import strict_json


class _InputError(Exception):
    pass


def _check_span(value, where: str) -> None:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            or value[0] < 0 or value[1] < value[0]):
        raise _InputError(f"{where}: expected [start, end] with 0 <= start <= end")


def _validate(obj, seen_ids: set) -> dict:
    if not isinstance(obj, dict):
        raise _InputError("field 'id': line is not a JSON object")
    if "id" not in obj or not isinstance(obj["id"], (str, int)) or isinstance(obj["id"], bool):
        raise _InputError("field 'id': missing or not a string/integer")
    if str(obj["id"]) in seen_ids:
        raise _InputError(f"field 'id': duplicate id {obj['id']!r}")
    seen_ids.add(str(obj["id"]))
    for name in ("source", "target"):
        if not isinstance(obj.get(name), str):
            raise _InputError(f"field '{name}': missing or not a string")
    pairs = obj.get("sentence_pairs")
    if pairs is not None:
        if not isinstance(pairs, list):
            raise _InputError("field 'sentence_pairs': expected a list of [[s, e], [s, e]]")
        for k, pair in enumerate(pairs):
            if not isinstance(pair, list) or len(pair) != 2:
                raise _InputError(f"field 'sentence_pairs': item {k} is not a pair")
            _check_span(pair[0], f"field 'sentence_pairs': item {k} source span")
            _check_span(pair[1], f"field 'sentence_pairs': item {k} target span")
            if pair[0][1] > len(obj["source"]) or pair[1][1] > len(obj["target"]):
                raise _InputError(f"field 'sentence_pairs': item {k} runs past the end of the text")
    return {"id": obj["id"], "source": obj["source"], "target": obj["target"],
            "sentence_pairs": pairs}


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
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Worker processes.")
@click.option("--no-embeddings", is_flag=True,
              help="Skip the embedding model: string-based detectors only, sentences aligned "
                   "by word overlap.")
@click.option("--contextual-renderings", is_flag=True,
              help="Find oversimplifications' renderings from one model pass per target "
                   "sentence instead of one per candidate window (about twice as fast in all; "
                   "other windows for some boxes).")
def align(file: str, detectors: str | None, workers: int, no_embeddings: bool,
          contextual_renderings: bool) -> None:
    """Print pre-highlighting suggestions for each pair in FILE.jsonl (one JSON per line)."""
    wanted = _parse_detectors(detectors, no_embeddings)
    records = []
    seen: set = set()
    with open(file, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                try:
                    obj = strict_json.loads(line)
                except strict_json.StrictJSONError as exc:
                    raise _InputError(f"field 'id': {exc}") from None
                found = strict_json.value_problem(obj)
                if found is not None:
                    raise _InputError(f"field {found[0]!r}: {found[1]}")
                records.append(_validate(obj, seen))
            except _InputError as exc:
                click.echo(f"{file}:{number}: {exc}", err=True)
                sys.exit(2)
    embedder = HashingEmbedder() if no_embeddings else None
    settings = AlignSettings(contextual_renderings=contextual_renderings)
    for pair_id, suggestions in suggest_many(records, workers=workers, detectors=wanted,
                                             embedder=embedder, settings=settings):
        click.echo(json.dumps({"id": pair_id, "suggestions": [s.to_dict() for s in suggestions]},
                              ensure_ascii=False))
