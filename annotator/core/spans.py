"""The span check, once: a span ``[start, end)`` counts Unicode code points (Python string
indices), lies on an allowed side, and sits inside that side's text with start < end.

Used by the annotation API, every importer and the adjudication merge; each caller turns the
message into its own error form (a problem list, a file/line/field problem).
"""

from __future__ import annotations

from typing import Any, Iterable

from annotator.core.vocabulary import SIDES


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def span_problem(side: Any, start: Any, end: Any, texts: dict[str, str], *,
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
