"""Where a document's adjudication stands, completing it, the automatic rules in batch, and
the queue.

Open decisions of a document: candidate units nobody decided yet, rating items without a
gold value, and items waiting for a third annotator. A document's agreement (for ordering
the queue, least agreement first) is the mean over its units (1 when every annotator of the
document has an edit in the unit, else 0) and its rating items (share of agreeing annotator
pairs); a document with nothing to compare counts as full agreement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.adjudication import decisions
from annotator.adjudication.grouping import Unit
from annotator.adjudication.labels import can_auto_resolve, disagreement
from annotator.adjudication.ratings import apply_rating_rules, rating_items
from annotator.adjudication.rules import AutoRules, decide_unit
from annotator.adjudication.store import (
    AdjudicationError,
    batch_reads,
    current_units,
    decided_units,
    edit_view,
    is_ready,
    original_assignments,
    record,
    require_open,
    source_edits,
)
from annotator.annotate.store import ValidationFailed
from annotator.models import AdjudicationDecision, AdjudicationState, Document, Project
from annotator.schemas.files import project_schema


def open_items(session: Session, document: Document, units: list[Unit] | None = None,
               items: list | None = None) -> dict:
    if units is None:
        units = current_units(session, document, freeze=False)
    decided = decided_units(session, document)
    undecided = [u for u in units if u.key not in decided]
    items = rating_items(session, document) if items is None else items
    unresolved = [i for i in items if i.gold is None]
    waiting = [i for i in unresolved if i.pending_tiebreak]
    total = len(undecided) + len(unresolved)
    parts = [f"{len(undecided)} unit(s)" if undecided else "",
             f"{len(unresolved)} rating item(s)" if unresolved else "",
             f"{len(waiting)} waiting for a third annotator" if waiting else ""]
    return {"units": len(undecided), "ratings": len(unresolved), "tiebreaks": len(waiting),
            "total": total, "summary": ", ".join(p for p in parts if p) or "nothing"}


def complete(session, document, user, note="", *, automatic=False) -> AdjudicationDecision:
    """Mark the document adjudicated; refused while anything is open."""
    state = require_open(session, document)
    left = open_items(session, document)
    if left["total"]:
        raise AdjudicationError(f"{left['total']} decision(s) still open: {left['summary']}")
    decision = record(session, document, "complete", user, automatic=automatic, note=note,
                      after={"round": state.round})
    state.status, state.completed_by_id = "complete", user.id if user else None
    state.completed_at = datetime.now(timezone.utc)
    session.flush()
    return decision



def apply_automatic(session: Session, document: Document, user=None, *, embed=None,
                    mark_complete: bool = True) -> dict:
    """The automatic rules on one ready, open document: freeze the units, decide each unit
    by the project's edit rule (:mod:`rules`: identical edits of every annotator, or an
    edit-level majority), resolve ratings by majority (and by tie-break labels), then mark
    the document adjudicated when nothing is left. Every decision is recorded as automatic
    (audited, undoable). ``verdicts`` lists what each rule decided, unit by unit."""
    with batch_reads(session):
        return _apply_automatic(session, document, user, embed, mark_complete)


def pending_verdicts(session, document, embed=None, *, freeze: bool = True) -> list[tuple]:
    """(unit, members, verdict) of the project's rules for every undecided unit of the
    document, deciding nothing (``freeze``: record the grouping if it is not yet)."""
    rules = AutoRules.from_settings(document.project.settings)
    schema = project_schema(document.project)
    field_types = {et.name: {f.name: f.type for f in et.fields} for et in schema.edit_types}
    field_options = {et.name: {f.name: [o.value for o in f.options] for f in et.fields}
                     for et in schema.edit_types}
    field_conditions = {et.name: {f.name: f.when for f in et.fields if f.when is not None}
                        for et in schema.edit_types}
    single_span = {et.name for et in schema.edit_types if not et.multi_span}
    assignments = original_assignments(session, document)
    units = current_units(session, document, embed, freeze=freeze)
    views = {e.id: edit_view(e) for e in source_edits(assignments)}
    every_edit = list(views.values())
    everyone = {a.user.username for a in assignments}
    decided = decided_units(session, document)
    out = []
    for unit in units:
        if unit.key in decided:
            continue
        members = [views[i] for i in unit.edit_ids]
        out.append((unit, members, decide_unit(
            members, everyone, rules, field_types, field_options, document.source,
            document.target, field_conditions, document_edits=every_edit,
            single_span=single_span)))
    return out


def _apply_automatic(session, document, user, embed, mark_complete) -> dict:
    require_open(session, document)
    rules = AutoRules.from_settings(document.project.settings)
    rows = {e.id: e for e in source_edits(original_assignments(session, document))}
    counts = {"accept": 0, "merge": 0, "reject": 0}
    verdicts = []
    for unit, members, verdict in pending_verdicts(session, document, embed):
        note = f"automatic ({rules.edit_rule} rule): {verdict.reason}"
        checked = (unit, [rows[i] for i in unit.edit_ids])  # open, known, undecided
        if verdict.action == "accept":
            decisions.accept(session, document, unit.edit_ids, verdict.base_id, user, note,
                             automatic=True, checked=checked)
        elif verdict.action == "reject":
            decisions.reject(session, document, unit.edit_ids, user, note, automatic=True,
                             checked=checked)
        elif verdict.action == "merge":
            try:
                decisions.merge_each(session, document, unit.edit_ids, verdict.parts, user,
                                     note=note, automatic=True, checked=checked)
            except ValidationFailed as exc:  # e.g. no majority span on a required side
                verdict.action, verdict.category = "leave", "invalid merge"
                verdict.reason += f"; the merged edit is not valid ({exc}): left to the lead"
        verdicts.append({"unit": unit.key, "action": verdict.action, "reason": verdict.reason,
                         "edit_type": verdict.edit_type, "spans": verdict.spans,
                         "fields": verdict.fields, "category": verdict.category,
                         "unit_type": unit_type(verdict.edit_type, members),
                         "evidence": verdict.evidence})
        if verdict.action in counts:
            counts[verdict.action] += 1
    ratings = apply_rating_rules(session, document, user)
    left = open_items(session, document)
    completed = False
    if mark_complete and left["total"] == 0:
        complete(session, document, user, "automatic rules", automatic=True)
        completed = True
    return {"units_accepted": counts["accept"] + counts["merge"],
            "units_merged": counts["merge"], "units_rejected": counts["reject"],
            "ratings_resolved": len(ratings), "open": left, "completed": completed,
            "verdicts": verdicts}


def unit_type(chosen: str | None, members) -> str:
    """The edit type a unit is counted under in the coverage report: the type a verdict or
    decision chose, else the type most of the unit's annotators marked (ties: the first by
    name)."""
    if chosen:
        return chosen
    inside = {m.id for m in members}
    votes: dict[str, set] = {}
    for m in members:
        if m.parent_id not in inside:
            votes.setdefault(m.edit_type, set()).add(m.annotator)
    return min(votes, key=lambda t: (-len(votes[t]), t)) if votes else "none"


@dataclass
class QueueEntry:
    document: Document
    annotators: list[str]
    agreement: float
    open: dict
    status: str
    fields_in_dispute: list[str] = field(default_factory=list)


def document_entry(session: Session, document: Document) -> QueueEntry | None:
    assignments = original_assignments(session, document)
    if not is_ready(assignments):
        return None
    state = session.scalar(select(AdjudicationState).where(
        AdjudicationState.document_id == document.id))
    units = current_units(session, document, freeze=False)
    everyone = sorted(a.user.username for a in assignments)
    views = {e.id: edit_view(e) for e in source_edits(assignments)}
    scores, disputed = [], set()
    categorical = {et.name: [f.name for f in et.fields if can_auto_resolve(f.type)]
                   for et in project_schema(document.project).edit_types}
    for unit in units:
        full = set(unit.annotators) == set(everyone)
        scores.append(1.0 if full else 0.0)
        types = {views[i].edit_type for i in unit.edit_ids}
        if not full or len(types) > 1:
            disputed |= types
        elif len(unit.edit_ids) > 1:
            # Same evidence, same type, but e.g. severity 1 against 2: a tie the lead must
            # break, listed as "<edit type>.<field>".
            (edit_type,) = types
            for name in categorical.get(edit_type, []):
                if disagreement([views[i].fields.get(name) for i in unit.edit_ids]) > 0:
                    disputed.add(f"{edit_type}.{name}")
    items = rating_items(session, document)
    for item in items:
        d = disagreement(list(item.values.values()))
        scores.append(1.0 - d)
        if d > 0:
            disputed.add(item.field)
    return QueueEntry(document=document, annotators=everyone,
                      agreement=sum(scores) / len(scores) if scores else 1.0,
                      open=open_items(session, document, units, items),
                      status=state.status if state else "open",
                      fields_in_dispute=sorted(disputed))


def adjudication_queue(session: Session, project: Project, *, field_name: str | None = None,
                       pair: tuple[str, str] | None = None) -> list[QueueEntry]:
    """Ready documents, least agreement first; optionally only those disputed on one schema
    field (rating field or edit type) or annotated by both of an annotator pair.

    Computed from scratch: the reference the stored queue (:mod:`annotator.adjudication.
    queue`, which the page, the data manager and ``adjudicate status`` read) must equal.
    Reading it on a page would cost seconds per view at 100k documents."""
    entries = []
    for document in session.scalars(select(Document).where(Document.project_id == project.id)
                                    .order_by(Document.position, Document.id)):
        entry = document_entry(session, document)
        if entry is not None and in_view(entry, field_name, pair):
            entries.append(entry)
    return sorted(entries, key=lambda e: (e.status == "complete", e.agreement,
                                          e.document.position, e.document.id))


def in_view(entry: QueueEntry, field_name: str | None = None,
            pair: tuple[str, str] | None = None) -> bool:
    """Does the queue filtered on ``field_name`` (disputed) and ``pair`` (both annotated)
    show this entry?"""
    return ((not field_name or field_name in entry.fields_in_dispute)
            and (not pair or set(pair) <= set(entry.annotators)))

