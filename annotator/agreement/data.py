"""Input dataclasses of the agreement engine.

The database layer turns a project into an :class:`AgreementInput`; everything in
``annotator.agreement`` is a pure function of it (no Flask, no database). Offsets are
character offsets into ``Document.source`` (side ``"source"``, the original) or
``Document.target`` (side ``"target"``, the simplification), half-open ``[start, end)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:  # only for the annotation; the schema dataclasses are duck-typed here
    from annotator.schemas import Schema



@dataclass(frozen=True)
class Span:
    """A character span ``[start, end)`` on one side of a document pair."""

    side: str  # "source" (original) or "target" (simplification)
    start: int
    end: int


@dataclass
class Document:
    """One original/simplification pair with sentence offsets ``(start, end)`` per side."""

    id: str
    source: str
    target: str
    source_sentences: list[tuple[int, int]] = field(default_factory=list)
    target_sentences: list[tuple[int, int]] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


@dataclass
class Edit:
    """One annotated edit (e.g. a deletion QA pair) with its spans on either side."""

    id: str
    document_id: str
    annotator: str
    edit_type: str
    fields: dict = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)
    parent_id: str | None = None  # the composite edit this one is a constituent of


@dataclass
class Rating:
    """One rating value; ``item`` identifies the rated unit within the document.

    ``level`` is one of document|sentence|pair|qa; ``item`` is e.g. a sentence index as a
    string ("0") or "" at document level.
    """

    document_id: str
    annotator: str
    level: str
    item: str
    field: str
    value: object


@dataclass
class Work:
    """An annotator's assignment to a document: time spent and status."""

    document_id: str
    annotator: str
    seconds: float | None
    status: str  # assigned | in_progress | done


@dataclass
class AgreementInput:
    """Everything the report builder needs. ``embed`` maps texts to L2-normalised rows."""

    schema: "Schema"
    documents: list[Document]
    edits: list[Edit]
    ratings: list[Rating]
    work: list[Work]
    embed: Callable[[list[str]], np.ndarray] | None = None
    # How constituents of composite edits count (annotator.agreement.composites).
    constituents: str = "own_type"


def document_annotators(inp: AgreementInput) -> dict[str, list[str]]:
    """Annotators whose work on each document counts, sorted by name.

    Rule: the annotators with a ``Work`` row of status ``done`` for the document. For a
    document with no ``Work`` rows at all, every annotator with an edit or a rating on it.
    An annotator counted on a document who made no edit there contributes "no span"
    everywhere (a real zero, not a missing value).
    """
    done: dict[str, set[str]] = {}
    has_work: set[str] = set()
    for w in inp.work:
        has_work.add(w.document_id)
        if w.status == "done":
            done.setdefault(w.document_id, set()).add(w.annotator)
    seen: dict[str, set[str]] = {}
    for e in inp.edits:
        seen.setdefault(e.document_id, set()).add(e.annotator)
    for r in inp.ratings:
        seen.setdefault(r.document_id, set()).add(r.annotator)
    result = {}
    for d in inp.documents:
        names = done.get(d.id, set()) if d.id in has_work else seen.get(d.id, set())
        result[d.id] = sorted(names)
    return result
