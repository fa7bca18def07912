"""What the evaluation modes' own pages need beyond the annotation API: the payload of each
page and each mode's "done" rule (registered as the modes' hooks by
:mod:`annotator.evaluation.modes`).

Raters judge blind to the system: a QA item handed to a page carries no model name.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.core.keys import rating_key
from annotator.evaluation.criteria import is_negative
from annotator.evaluation.plainfact import suggested_relation
from annotator.evaluation.store import pair_item, qa_items, recall_pairs
from annotator.models import Assignment, EvalQAItem, TieBreakRequest
from annotator.schemas.files import project_schema


def _qa(item: EvalQAItem) -> dict:
    """A QA item for a rater: no model name (raters judge blind to the system)."""
    return {"id": item.id, "category": item.category, "question": item.question,
            "answer": item.answer, "evidence_spans": item.evidence_spans,
            "rationale_spans": item.rationale_spans, "section": item.section}


def qa_quality_payload(session: Session, assignment: Assignment) -> dict:
    document = assignment.document
    return {"items": [_qa(i) for i in qa_items(session, document.project,
                                               document_id=document.id, sampled=True)]}


def qa_recall_payload(session: Session, assignment: Assignment) -> dict:
    document = assignment.document
    return {"pairs": [{"item": pair_item(p.id), "similarity": round(p.similarity, 3),
                       "reference": _qa(p.reference), "prediction": _qa(p.prediction)}
                      for p in recall_pairs(session, document.project, document.id)]}


def plainfact_payload(session: Session, assignment: Assignment) -> dict:
    document = assignment.document
    return {"suggestions": [suggested_relation(document.alignment, i)
                            for i in range(len(document.target_sentences))],
            "tiebreak": tiebreak_keys(session, assignment)}


def tiebreak_keys(session: Session, assignment: Assignment) -> list[str]:
    """The rating items routed to this (third) annotator, in routing order."""
    return [rating_key(r.level, r.item, r.field) for r in session.scalars(
        select(TieBreakRequest).where(TieBreakRequest.assignment_id == assignment.id)
        .order_by(TieBreakRequest.id))]


def qa_quality_missing(session: Session, assignment: Assignment) -> list[dict]:
    """Every required criterion of every sampled item is rated, and a negative rating has
    a rationale (InfoLossQA evaluation: a negative judgement must say why)."""
    keys = [str(i["id"]) for i in qa_quality_payload(session, assignment)["items"]]
    return _missing_qa_ratings(assignment, keys, rationale_for_negative=True)


def qa_recall_missing(session: Session, assignment: Assignment) -> list[dict]:
    """Every candidate pair of the document is rated."""
    keys = [p["item"] for p in qa_recall_payload(session, assignment)["pairs"]]
    return _missing_qa_ratings(assignment, keys, rationale_for_negative=False)


def _missing_qa_ratings(assignment: Assignment, keys: list[str], *,
                        rationale_for_negative: bool) -> list[dict]:
    have = {(r.item, r.field): r for r in assignment.ratings if r.value not in (None, "")}
    specs = [s for s in project_schema(assignment.document.project).ratings
             if s.level == "qa" and s.required]
    out = []
    for n, key in enumerate(keys, start=1):
        for spec in specs:
            rating = have.get((key, spec.name))
            # `key` lets the page jump to the item and the criterion (or its rationale box)
            where = {"level": "qa", "item": key, "field": spec.name,
                     "key": rating_key("qa", key, spec.name)}
            if rating is None:
                out.append({**where, "message": f"item {n}: {spec.label} is not rated"})
            elif rationale_for_negative and is_negative(spec.name, rating.value) and not (
                    rating.rationale or "").strip():
                out.append({**where, "rationale": True,
                            "message": f"item {n}: {spec.label} is negative: give a rationale"})
    return out
