"""The adjudication view's data: one JSON-serialisable dict per document.

Holds both texts (rendered client-side as text only: they are untrusted model output), the
annotators with one colour each, every source edit, the candidate units with their
decisions, the rating items, the pre-highlights (shown dimmed) and the decision history.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication import store
from annotator.adjudication.labels import merged_fields
from annotator.adjudication.overview import open_items
from annotator.adjudication.ratings import rating_items
from annotator.adjudication.store import (
    edit_snapshot,
    is_ready,
    original_assignments,
    source_edits,
)
from annotator.core.serialise import option_dicts, schema_to_dict
from annotator.models import AdjudicationState, Document, Suggestion, TieBreakRequest
from annotator.schemas.files import project_schema

# Colour-blind-friendly palette (Okabe & Ito 2008), one colour per annotator.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")


def decision_dict(x) -> dict:
    return {"id": x.id, "kind": x.kind, "round": x.round, "automatic": x.automatic,
            "user": x.user.username if x.user else None, "item_key": x.item_key,
            "source_edit_ids": x.source_edit_ids, "before": x.before, "after": x.after,
            "note": x.note, "retracted_by_id": x.retracted_by_id,
            "created_at": x.created_at.isoformat(timespec="seconds")}


def document_view(session: Session, document: Document, embed=None, *,
                  freeze: bool = True) -> dict:
    """The view's data. With ``freeze`` (a POST) the state row is created and a fresh
    grouping of a ready, open document is recorded; without it (a GET) nothing is written:
    the units are computed but not stored."""
    schema = project_schema(document.project)
    assignments = original_assignments(session, document)
    ready = is_ready(assignments)
    state = store.state_of(session, document) if freeze else _read_state(session, document)
    units = store.current_units(session, document, embed,
                                freeze=freeze and ready and state.status == "open")
    names = sorted(a.user.username for a in assignments)
    colours = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
    edits = {e.id: edit_snapshot(e) for e in source_edits(assignments)}
    decided = store.decided_units(session, document)
    field_types = {et.name: {f.name: f.type for f in et.fields} for et in schema.edit_types}
    unit_rows = []
    for number, unit in enumerate(units, start=1):
        members = [edits[i] for i in unit.edit_ids]
        types = field_types.get(members[0]["edit_type"], {})
        decision = decided.get(unit.key)
        unit_rows.append({
            "number": number, "key": unit.key, "edit_ids": unit.edit_ids,
            "annotators": unit.annotators, "iou": unit.iou, "similarity": unit.similarity,
            "matched": unit.matched, "granularity": unit.granularity,
            "fields": merged_fields([m["fields"] for m in members], types) if len(members) > 1
            else {},
            "decision": decision_dict(decision) if decision else None})
    tiebreaks = session.scalars(select(TieBreakRequest).where(
        TieBreakRequest.document_id == document.id).order_by(TieBreakRequest.id)).all()
    suggestions = session.scalars(select(Suggestion).where(
        Suggestion.document_id == document.id).order_by(Suggestion.id)).all()
    return {
        "document": {"id": document.id, "external_id": document.external_id,
                     "source": document.source, "target": document.target},
        "state": {"status": state.status, "round": state.round, "ready": ready,
                  "version": state.version},
        "annotators": [{"name": n, "colour": colours[n]} for n in names],
        "schema": schema_to_dict(schema),
        "edits": [edits[i] for i in sorted(edits)],
        "units": unit_rows,
        "ratings": [_rating_row(i, schema) for i in rating_items(session, document)],
        "tiebreak_assignments": sorted({t.assignment_id for t in tiebreaks}),
        "suggestions": [{"id": s.id, "kind": s.kind, "source_spans": s.source_spans,
                         "target_spans": s.target_spans, "explanation": s.explanation}
                        for s in suggestions],
        "open": open_items(session, document, units) if ready else None,
        "history": [decision_dict(x) for x in store.history(session, document)],
    }


def _read_state(session: Session, document: Document) -> AdjudicationState:
    """The document's adjudication state without creating it: an unsaved 'open', round 1
    state (version 0) stands in for a document nobody adjudicated yet."""
    stored = session.scalar(select(AdjudicationState).where(
        AdjudicationState.document_id == document.id))
    return stored or AdjudicationState(document_id=document.id, status="open", round=1,
                                       version=0)


def _rating_row(item, schema) -> dict:
    spec = schema.rating(item.field, item.level)
    return {"key": item.key, "level": item.level, "item": item.item, "field": item.field,
            "label": item.label, "values": item.values, "tiebreak": item.tiebreak,
            "pending_tiebreak": item.pending_tiebreak, "status": item.outcome.status,
            "majority": item.outcome.value, "auto": item.auto,
            "options": option_dicts(spec),
            "gold": None if item.gold is None else {"value": item.gold.value,
                                                    "method": item.gold.method,
                                                    "decision_id": item.gold.decision_id}}
