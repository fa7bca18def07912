"""PlainFact disagreements go to a third annotator through the adjudication tie-break
route (:func:`annotator.adjudication.ratings.route_to_third`): every categorical sentence
item on which the two annotators differ and that has no gold value yet."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication.ratings import rating_items, route_to_third
from annotator.adjudication.store import is_ready, original_assignments
from annotator.core.keys import rating_key
from annotator.models import Document, Project, TieBreakRequest


def disputed_keys(session: Session, project: Project) -> dict[int, list[str]]:
    """document id -> keys ('sentence|i|field') of unresolved disagreements."""
    out = {}
    for doc in session.scalars(select(Document).where(Document.project_id == project.id)
                               .order_by(Document.position, Document.id)):
        out[doc.id] = [i.key for i in rating_items(session, doc)
                       if i.gold is None and len(i.values) >= 2 and not i.outcome.resolved]
    return out


def route_disagreements(session: Session, project: Project, user, username: str | None = None
                        ) -> dict[str, int]:
    """Route each ready document's unresolved, not yet routed disagreements to a third
    annotator; returns {document external id: number of items routed}."""
    routed = {}
    for doc_id, keys in disputed_keys(session, project).items():
        document = session.get(Document, doc_id)
        if not keys or not is_ready(original_assignments(session, document)):
            continue
        asked = {rating_key(r.level, r.item, r.field) for r in session.scalars(
            select(TieBreakRequest).where(TieBreakRequest.document_id == doc_id))}
        keys = [k for k in keys if k not in asked]
        if keys:
            route_to_third(session, document, keys, user, username=username,
                           note="PlainFact: disagreement between the two annotators")
            routed[document.external_id] = len(keys)
    return routed
