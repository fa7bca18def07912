"""A third annotator's tie-break work: the disputed rating items routed to them (one
:class:`TieBreakRequest` each, PlainFact: a third annotator resolves disagreements), shown
with the text they are about, and their labels saved as ordinary ratings.

Blind by construction: the items carry neither the other annotators' values nor names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.annotate.store import set_rating
from annotator.core.keys import rating_key
from annotator.models import Assignment, Document, Rating, TieBreakRequest
from annotator.schemas import FieldSpec
from annotator.schemas.files import project_schema


@dataclass
class TieBreakItem:
    key: str
    level: str
    item: str
    spec: FieldSpec
    current: Any  # the third annotator's own value so far
    texts: dict[str, str]  # the sentence (pair) the item is about, else the whole texts


def routed_requests(session: Session, assignment_id: int) -> list[TieBreakRequest]:
    return list(session.scalars(select(TieBreakRequest).where(
        TieBreakRequest.assignment_id == assignment_id).order_by(TieBreakRequest.id)))


def _own_rating(session: Session, assignment: Assignment, r: TieBreakRequest) -> Rating | None:
    return session.scalar(select(Rating).where(
        Rating.assignment_id == assignment.id, Rating.level == r.level,
        Rating.item == r.item, Rating.field == r.field))


def tiebreak_items(session: Session, assignment: Assignment,
                   requests: list[TieBreakRequest]) -> list[TieBreakItem]:
    schema = project_schema(assignment.document.project)
    items = []
    for r in requests:
        own = _own_rating(session, assignment, r)
        items.append(TieBreakItem(rating_key(r.level, r.item, r.field), r.level, r.item,
                                  schema.rating(r.field, r.level),
                                  own.value if own else None,
                                  item_texts(assignment.document, r.level, r.item)))
    return items


def save_tiebreak_form(session: Session, assignment: Assignment,
                       requests: list[TieBreakRequest], form: Mapping[str, str],
                       user_id: int) -> int:
    """Store the labels chosen in the form (one field per item key, the option value as
    text; an empty or unknown choice leaves the item unrated). Returns how many were set.
    Raises the annotation store's Conflict / ValidationFailed, changing nothing then."""
    schema = project_schema(assignment.document.project)
    saved = 0
    for r in requests:
        raw = form.get(rating_key(r.level, r.item, r.field), "")
        spec = schema.rating(r.field, r.level)
        value = next((o.value for o in spec.options if str(o.value) == raw), None)
        if value is None:
            continue
        own = _own_rating(session, assignment, r)
        set_rating(session, assignment, {"level": r.level, "item": r.item, "field": r.field,
                                         "value": value, "version": own.version if own else 0},
                   user_id)
        saved += 1
    return saved


def item_texts(document: Document, level: str, item: str) -> dict[str, str]:
    """The sentence pair (or sentence) an item refers to, else the whole texts."""
    if level == "pair" and document.sentence_pairs and item.isdigit():
        pairs = document.sentence_pairs
        if int(item) < len(pairs):
            s, t = pairs[int(item)]
            (ss, se), (ts, te) = document.source_sentences[s], document.target_sentences[t]
            return {"source": document.source[ss:se], "target": document.target[ts:te]}
    if level == "sentence" and item.isdigit() and int(item) < len(document.target_sentences):
        ts, te = document.target_sentences[int(item)]
        return {"source": document.source, "target": document.target[ts:te]}
    return {"source": document.source, "target": document.target}
