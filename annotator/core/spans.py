"""The span rule, once: how a raw span from a file or a request becomes a checked
``(side, start, end)``, and what makes a span valid.

A span ``[start, end)`` counts Unicode code points (Python string indices), lies on a side
its edit type allows, and sits inside that side's text with start < end (:func:`span_problem`).
Raw spans come in two shapes: ``[start, end]`` pairs listed per side (InfoLossQA, Thresh,
QA files, ``annotator align``'s sentence pairs, sentence offsets, detector files) and
``{side, start, end}`` objects (the annotation API, the tool's own annotation JSONL);
:func:`read_spans` reads either (and :func:`cell_pairs` a CSV cell's ``start-end;...``),
checking types (integers, not booleans), lengths and, when the texts are known, bounds and
order. Every fault names the field and quotes the rejected value.

Used by the annotation API, every importer, ``annotator align``, the detector tables and
the adjudication merge; each caller turns a :class:`SpanFault` into its own error form
(``Problem`` with FILE:LINE, or the API's 422 problem list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, NamedTuple

from annotator.core.problems import Problem
from annotator.core.shown import got
from annotator.core.vocabulary import SIDES

_CELL_SPAN = re.compile(r"([0-9]+)-([0-9]+)")
PAIR_SHAPE = "must be [start, end] with integer character offsets"
OBJECT_SHAPE = "must be {side: source|target, start, end} with integer character offsets"


class CheckedSpan(NamedTuple):
    side: str
    start: int
    end: int
    where: str  # the field it came from, e.g. ``edits[0].input_idx[1]``


@dataclass(frozen=True)
class SpanFault:
    """What is wrong with a raw span (or list of spans): the field and a message that
    quotes the rejected value."""

    field: str
    message: str

    def at(self, file: str, line: int | None) -> Problem:
        return Problem(file, line, self.field, self.message)

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def span_problem(side: Any, start: Any, end: Any, texts: Mapping[str, str], *,
                 sides: Iterable[str] = SIDES, kind: str = "") -> str | None:
    """What is wrong with the span, or None when it is valid.

    ``texts`` maps each side to its text; ``sides`` are the sides this edit type may mark
    and ``kind`` names the edit type in the message.
    """
    sides = tuple(sides)
    if not sides:  # a document-level edit type (``sides: []``)
        return f"{kind or 'this edit'} is a document-level edit: it takes no spans"
    if side not in sides:
        return f"{kind + ' ' if kind else ''}spans may only lie on: {', '.join(sides)}"
    if not (_is_int(start) and _is_int(end)) or not 0 <= start < end <= len(texts[side]):
        return (f"span [{start}, {end}] lies outside the {side} text "
                f"(length {len(texts[side])})")
    return None


def read_span(value: Any, where: str, *, side: str | None = None,
              texts: Mapping[str, str] | None = None, sides: Iterable[str] = SIDES,
              kind: str = "", nonempty: bool = False) -> CheckedSpan | SpanFault:
    """One raw span: a ``[start, end]`` pair on ``side``, or (``side`` None) a
    ``{side, start, end}`` object. With ``texts`` the whole rule applies
    (:func:`span_problem`); without, the shape and the side, and with ``nonempty`` also
    ``0 <= start < end`` (a file that carries no text, e.g. detector output)."""
    if side is not None:
        pair = isinstance(value, (list, tuple)) and len(value) == 2
        if not (pair and _is_int(value[0]) and _is_int(value[1])):
            return SpanFault(where, PAIR_SHAPE + got(value))
        start, end = value
    else:
        if not (isinstance(value, dict) and _is_int(value.get("start"))
                and _is_int(value.get("end"))):
            return SpanFault(where, OBJECT_SHAPE + got(value))
        side, start, end = value.get("side"), value["start"], value["end"]
        if texts is None and side not in SIDES:
            return SpanFault(f"{where}.side", OBJECT_SHAPE + got(value))
    sides = tuple(sides)
    if texts is not None:
        problem = span_problem(side, start, end, texts, sides=sides, kind=kind)
        if problem and not sides:  # the message says it all: no span is allowed
            return SpanFault(f"{where}.side", problem)
        if problem and side not in sides:
            return SpanFault(f"{where}.side", problem + got(side))
        if problem:
            return SpanFault(where, problem + got([start, end]))
    elif nonempty and not 0 <= start < end:
        return SpanFault(where, "must be [start, end] with 0 <= start < end" + got([start, end]))
    return CheckedSpan(side, start, end, where)


def read_spans(value: Any, where: str, *, side: str | None = None,
               texts: Mapping[str, str] | None = None, sides: Iterable[str] = SIDES,
               kind: str = "", limit: int | None = None, in_order: bool = False,
               ) -> tuple[list[CheckedSpan], list[SpanFault]]:
    """A raw list of spans read with :func:`read_span`, item ``i`` named
    ``where[i]``: the spans that passed and a fault for each that did not. ``limit``: at
    most this many spans (ANNOTATOR_MAX_SPANS_PER_EDIT); ``in_order``: each span starts at
    or after the previous one's end (sentence offsets)."""
    if not isinstance(value, list):
        shape = "[start, end] pairs" if side is not None else "{side, start, end} objects"
        return [], [SpanFault(where, f"must be a list of {shape}" + got(value))]
    if limit is not None and len(value) > limit:
        return [], [SpanFault(where, f"{len(value):,} spans, more than the limit of {limit} "
                                     "per edit (ANNOTATOR_MAX_SPANS_PER_EDIT)")]
    sides = tuple(sides)
    spans, faults = [], []
    for i, item in enumerate(value):
        found = read_span(item, f"{where}[{i}]", side=side, texts=texts, sides=sides,
                          kind=kind)
        if isinstance(found, SpanFault):
            faults.append(found)
        elif in_order and spans and found.start < spans[-1].end:
            faults.append(SpanFault(found.where, "spans must be in order and must not "
                                    "overlap" + got([spans[-1][1:3], [found.start, found.end]])))
        else:
            spans.append(found)
    return spans, faults


def cell_pairs(cell: str, where: str) -> tuple[list[list[int]], list[SpanFault]]:
    """A CSV cell's spans, ``start-end`` pieces separated by ``;`` (``3-9;14-20``), as
    ``[start, end]`` pairs for :func:`read_spans`; a piece that is not ``start-end`` in
    ASCII digits is a fault (``int`` alone would also take ``1_0``, ``+3`` or ``٣``)."""
    pairs, faults = [], []
    for piece in filter(None, cell.split(";")):
        found = _CELL_SPAN.fullmatch(piece.strip())
        if found is None:
            faults.append(SpanFault(where, f"{piece!r} is not start-end (e.g. 3-9)"))
            continue
        pairs.append([int(found[1]), int(found[2])])
    return pairs, faults
