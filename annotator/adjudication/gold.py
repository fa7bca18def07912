"""The gold record of a document: texts, metadata, gold edits with spans on both sides, gold
ratings, and provenance (decision ids, source edit ids and their annotators).

Only decisions in force count (not retracted by an undo or a reset). Everything is sorted
so the same database state always yields the same record (releases are byte-identical).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication.overview import open_items
from annotator.adjudication.ratings import rating_items
from annotator.adjudication.store import (
    active_decisions,
    is_ready,
    original_assignments,
    source_edits,
    state_of,
)
from annotator.core.vocabulary import SIDES
from annotator.models import AdjudicationState, Document, GoldEdit


def release_blocker(session: Session, document: Document) -> str | None:
    """Why the document cannot go into a release (None: it can)."""
    assignments = original_assignments(session, document)
    if not assignments:
        return "not assigned to any annotator"
    if not is_ready(assignments):
        waiting = sorted(a.user.username for a in assignments if a.status != "done")
        return f"annotation not finished by {', '.join(waiting)}"
    state = session.scalar(select(AdjudicationState).where(
        AdjudicationState.document_id == document.id))
    if state is None or state.status != "complete":
        left = open_items(session, document)
        return f"adjudication not complete ({left['summary']} open)"
    live = {e.id for e in source_edits(assignments)}
    active = {d.id for d in active_decisions(session, document)}
    gone = sorted({i for g in session.scalars(select(GoldEdit).where(
        GoldEdit.document_id == document.id)) if g.decision_id in active
        for i in g.source_edit_ids if i not in live})
    if gone:
        return (f"source edit(s) {', '.join(map(str, gone))} changed after adjudication: "
                "reopen the adjudication and decide again")
    return None


def _span_lists(spans: list[dict]) -> dict[str, list[list[int]]]:
    result = {"source": [], "target": []}
    for s in sorted(spans, key=lambda s: (s["side"], s["start"], s["end"])):
        result[s["side"]].append([s["start"], s["end"]])
    return result


def gold_record(session: Session, document: Document) -> dict:
    state = state_of(session, document)
    active = {d.id: d for d in active_decisions(session, document)}
    assignments = original_assignments(session, document)
    authors = {e.id: e.assignment.user.username for e in source_edits(assignments)}
    # Who wrote each source edit as the decision saw it (its ``before`` snapshots), so the
    # provenance never loses its annotator even if the edit itself is gone.
    authors.update({snap["id"]: snap.get("annotator") for d in active.values()
                    for snap in (d.before if isinstance(d.before, list) else [])
                    if isinstance(snap, dict) and "id" in snap})
    # The composite each source edit is a constituent of, as the decisions saw them: a gold
    # constituent names its composite's source edit (listed in that gold edit's sources).
    composite_of = {snap["id"]: snap.get("parent_id") for d in active.values()
                    for snap in (d.before if isinstance(d.before, list) else [])
                    if isinstance(snap, dict) and "id" in snap}
    edits = []
    for gold in session.scalars(select(GoldEdit).where(GoldEdit.document_id == document.id)
                                .order_by(GoldEdit.id)):
        decision = active.get(gold.decision_id)
        if decision is None:
            continue
        spans = _span_lists(gold.spans)
        edits.append({
            "edit_type": gold.edit_type,
            "fields": dict(sorted(gold.fields.items())),
            "spans": spans,
            "span_texts": {"source": [document.source[s:e] for s, e in spans["source"]],
                           "target": [document.target[s:e] for s, e in spans["target"]]},
            "provenance": {
                "decision_id": decision.id, "decision": decision.kind,
                "automatic": decision.automatic,
                "source_edits": [{"id": i, "annotator": authors.get(i)}
                                 for i in sorted(gold.source_edit_ids)],
                "unit_edit_ids": sorted(decision.source_edit_ids),
            },
        })
        # A constituent copy comes from constituents only; an edit merged from a whole unit
        # also names the unit's constituents among its sources but is not one of them.
        parents = {composite_of.get(i) for i in gold.source_edit_ids}
        if parents and None not in parents:
            edits[-1]["provenance"]["constituent_of"] = sorted(parents)
    edits.sort(
        key=lambda e: (
            _first(e["spans"]),
            e["edit_type"],
            e["provenance"]["decision_id"],
            e["provenance"]["source_edits"][0]["id"] if e["provenance"]["source_edits"] else 0,
        )
    )
    ratings = []
    for item in rating_items(session, document):
        if item.gold is None:
            continue
        ratings.append({"level": item.level, "item": item.item, "field": item.field,
                        "value": item.gold.value, "method": item.gold.method,
                        "provenance": {"decision_id": item.gold.decision_id,
                                       "values": dict(sorted(item.values.items())),
                                       "tiebreak": dict(sorted(item.tiebreak.items()))}})
    rejected = sorted(i for d in active.values() if d.kind == "reject"
                      for i in d.source_edit_ids)
    return {
        "id": document.external_id,
        "source": document.source,
        "target": document.target,
        "meta": dict(sorted((document.meta or {}).items())),
        "source_sentences": document.source_sentences,
        "target_sentences": document.target_sentences,
        "annotators": sorted(a.user.username for a in assignments),
        "adjudication": {"status": state.status, "round": state.round,
                         "rejected_edit_ids": rejected},
        "edits": edits,
        "ratings": ratings,
    }


def _first(spans: dict) -> tuple:
    for side in SIDES:
        if spans[side]:
            return (0 if side == "source" else 1, spans[side][0][0])
    return (2, 0)
