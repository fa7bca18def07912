"""Adjudication decisions on edits: accept, merge, keep both, reject, regroup; undo and
reopen a document (completing it is :func:`overview.complete`, which checks what is open).

Every step is recorded through :func:`store.record` (who, when, which source edits, the
values before and after, a note). Rows are never deleted: undoing a decision or reopening a
document sets ``retracted_by_id`` on the decisions it replaces, so the full history stays
and every gold edit points at the decision that created it and, via ``source_edit_ids``, at
the annotators' originals.
"""

from __future__ import annotations

from annotator.adjudication.grouping import Unit, unit_key
from annotator.adjudication.store import (
    UNDOABLE,
    AdjudicationError,
    active_decisions,
    current_units,
    decided_units,
    edit_snapshot,
    grouping_decision,
    new_decision,
    original_assignments,
    record,
    recorded,
    require_open,
    source_edits,
    state_of,
)
from annotator.annotate.store import ValidationFailed, validate_spans
from annotator.models import AdjudicationDecision, GoldEdit
from annotator.schemas.answers import validate_fields
from annotator.schemas.files import project_schema


def _unit_for(session, document, edit_ids, checked=None) -> tuple[Unit, list]:
    """The unit of ``edit_ids`` and its edits, refused when the document is not open, the
    unit unknown or decided. ``checked`` is (unit, edits) when the caller (the automatic
    rules, which hold the document's units and decisions) has made these checks already."""
    if checked is not None:
        return checked
    require_open(session, document)
    key = unit_key(edit_ids)
    unit = next((u for u in current_units(session, document) if u.key == key), None)
    if unit is None:
        raise AdjudicationError(f"{key} is not a unit of this document; reload the page")
    if key in decided_units(session, document):
        raise AdjudicationError("this unit is decided already; undo that decision first")
    by_id = {e.id: e for e in source_edits(original_assignments(session, document))}
    return unit, [by_id[i] for i in unit.edit_ids]


def _gold_edit(session, document, decision, edit_type, fields, spans, source_ids) -> GoldEdit:
    gold = GoldEdit(document_id=document.id, decision=decision, edit_type=edit_type,
                    fields=fields, spans=spans, source_edit_ids=sorted(source_ids))
    session.add(gold)
    return gold


def _decide(session, document, kind, user, edits, outcomes, note,
            automatic=False) -> AdjudicationDecision:
    decision = new_decision(session, document, kind, user, automatic=automatic,
                            item_key=unit_key([e.id for e in edits]),
                            source_edit_ids=[e.id for e in edits],
                            before=[edit_snapshot(e) for e in edits], after=outcomes, note=note)
    for o in outcomes:
        _gold_edit(session, document, decision, o["edit_type"], o["fields"], o["spans"],
                   o["source_edit_ids"])
    session.flush()  # one flush for the decision and its gold edits
    recorded(session, document, decision)
    return decision


def _copy(edit, source_ids=None) -> dict:
    snap = edit_snapshot(edit)
    return {"edit_type": snap["edit_type"], "fields": snap["fields"], "spans": snap["spans"],
            "source_edit_ids": source_ids or [edit.id]}


# A composite (SALSA's structure / split, Heineman et al. 2023) is decided with its
# constituents: whatever keeps a composite keeps copies of its constituents, which
# gold_record links to it again (``provenance.constituent_of``), and a constituent whose
# composite is in the unit is never kept on its own, which would cut it loose.


def _top_level(edits: list) -> list:
    """The unit's edits that are not constituents of another edit of the unit."""
    ids = {e.id for e in edits}
    return [e for e in edits if e.parent_id not in ids]


def _with_constituents(edit, edits: list) -> list[dict]:
    return [_copy(edit)] + [_copy(e) for e in edits if e.parent_id == edit.id]


def _refuse_constituent(edit, edits: list, action: str) -> None:
    if edit.parent_id in {e.id for e in edits}:
        raise AdjudicationError(
            f"edit {edit.id} is a constituent of edit {edit.parent_id} ({edit.edit_type} in a "
            f"composite): {action} the composite, which keeps its constituents, or merge to "
            "write a standalone edit")


def accept(session, document, edit_ids, chosen_id: int, user, note="", *,
           automatic=False, checked=None) -> AdjudicationDecision:
    """Take one annotator's edit of the unit as the gold edit."""
    _, edits = _unit_for(session, document, edit_ids, checked)
    chosen = next((e for e in edits if e.id == chosen_id), None)
    if chosen is None:
        raise AdjudicationError("the accepted edit is not part of this unit")
    _refuse_constituent(chosen, edits, "accept")
    return _decide(session, document, "accept", user, edits,
                   _with_constituents(chosen, edits), note, automatic)


def keep_both(session, document, edit_ids, user, note="", keep_ids=None):
    """Keep several edits of the unit as distinct gold edits (two valid questions about the
    same evidence)."""
    _, edits = _unit_for(session, document, edit_ids)
    for e in edits if keep_ids is not None else []:
        if e.id in keep_ids:
            _refuse_constituent(e, edits, "keep")
    keep = [e for e in _top_level(edits) if keep_ids is None or e.id in keep_ids]
    if len(keep) < 2:
        raise AdjudicationError("keep both needs two or more edits; use accept for one")
    return _decide(session, document, "keep_both", user, edits,
                   [c for e in keep for c in _with_constituents(e, edits)], note)


def reject(session, document, edit_ids, user, note="", *,
           automatic=False, checked=None) -> AdjudicationDecision:
    """No gold edit for this unit (e.g. not information loss after all)."""
    _, edits = _unit_for(session, document, edit_ids, checked)
    return _decide(session, document, "reject", user, edits, [], note, automatic)


def merge(session, document, edit_ids, base_id: int, user, *, edit_type=None,
          fields: dict | None = None, spans: list | None = None, note="", automatic=False,
          source_ids: list[int] | None = None, checked=None):
    """One gold edit starting from ``base_id``'s edit, with the lead's spans and fields.

    A composite base of a composite type keeps copies of its constituents; the merged edit's
    sources are then the unit's top-level edits (each constituent copy has its own). Merged
    into a type that is not composite, the edit stands alone and names every edit of the
    unit as its source."""
    _, edits = _unit_for(session, document, edit_ids, checked)
    outcomes = _merged(document, edits, base_id, edit_type, fields, spans, source_ids)
    return _decide(session, document, "merge", user, edits, outcomes, note, automatic)


def merge_each(session, document, edit_ids, parts: list[dict], user, *, note="",
               automatic=False, checked=None):
    """One merge decision writing several gold edits: a unit in which the same annotators
    marked several changes over the same words (say an insertion and a reorder). ``parts``:
    {base_id, edit_type, fields, spans, source_ids}, each checked as :func:`merge` checks
    its edit."""
    _, edits = _unit_for(session, document, edit_ids, checked)
    outcomes = [o for p in parts for o in _merged(
        document, edits, p["base_id"], p["edit_type"], p["fields"], p["spans"],
        p["source_ids"])]
    return _decide(session, document, "merge", user, edits, outcomes, note, automatic)


def _merged(document, edits, base_id, edit_type, fields, spans, source_ids) -> list[dict]:
    """The gold edit (and, for a composite, its constituents' copies) of a merge."""
    base = next((e for e in edits if e.id == base_id), None)
    if base is None:
        raise AdjudicationError("the merge must start from an edit of this unit")
    schema = project_schema(document.project)
    type_spec = schema.edit_type(base.edit_type if edit_type is None else edit_type)
    if type_spec is None:
        raise ValidationFailed([{"field": "edit_type", "message": "not an edit type of the "
                                 "schema"}])
    start = _copy(base)
    clean_spans = validate_spans(start["spans"] if spans is None else spans, type_spec,
                                 base.assignment)
    clean_fields = validate_fields(start["fields"] if fields is None else fields,
                                   type_spec.fields)
    problems = [{"field": f"spans.{s}", "message": "the gold edit needs a span on this side"}
                for s in type_spec.required_sides if s not in {x.side for x in clean_spans}]
    problems += [{"field": f"fields.{f.name}", "message": "required"}
                 for f in type_spec.fields if f.required and f.name not in clean_fields]
    if problems:
        raise ValidationFailed(problems)
    parts = [] if not type_spec.composite else _with_constituents(base, edits)[1:]
    default_sources = _top_level(edits) if parts else edits
    outcome = {"edit_type": type_spec.name, "fields": clean_fields,
               "spans": sorted(({"side": s.side, "start": s.start, "end": s.end}
                                for s in clean_spans),
                               key=lambda s: (s["side"], s["start"], s["end"])),
               "source_edit_ids": sorted(source_ids or [e.id for e in default_sources]),
               "based_on": base.id}
    return [outcome] + parts


def regroup(session, document, groups: list[list[int]], user, note=""):
    """Replace the candidate units by the lead's grouping (a partition of all edits); units
    already decided must stay as they are."""
    require_open(session, document)
    old = current_units(session, document)
    all_ids = sorted(i for u in old for i in u.edit_ids)
    groups = [sorted(int(i) for i in g) for g in groups if g]
    if sorted(i for g in groups for i in g) != all_ids:
        raise AdjudicationError("a regrouping must place every edit of the document exactly "
                                "once")
    decided = decided_units(session, document)
    new_keys = {unit_key(g) for g in groups}
    moved = [k for k in decided if k not in new_keys]
    if moved:
        raise AdjudicationError(f"{', '.join(moved)} is decided; undo it before regrouping")
    previous = grouping_decision(session, document)
    decision = record(session, document, "regroup", user, source_edit_ids=all_ids,
                      before={"groups": [u.edit_ids for u in old]},
                      after={"groups": sorted(groups), "method": "by hand"}, note=note)
    if previous is not None:
        previous.retracted_by_id = decision.id
    session.flush()
    return decision


# ---------------------------------------------------------------- undo, reopen


def undo(session, document, decision_id: int, user, note="") -> AdjudicationDecision:
    require_open(session, document)
    target = session.get(AdjudicationDecision, decision_id)
    if target is None or target.document_id != document.id or target.retracted_by_id:
        raise AdjudicationError("no such active decision on this document")
    if target.kind not in UNDOABLE:
        raise AdjudicationError(f"a {target.kind} decision cannot be undone")
    decision = record(session, document, "undo", user, item_key=target.item_key,
                      source_edit_ids=target.source_edit_ids,
                      before={"decision_id": target.id, "kind": target.kind,
                              "after": target.after}, after=None, note=note)
    target.retracted_by_id = decision.id
    session.flush()
    return decision


def reopen(session, document, user, note="", *, reset: bool = False) -> AdjudicationDecision:
    """Open an adjudicated document again (a new round). Decisions stay in force unless
    ``reset``, which retracts all of them (the units are regrouped afresh); history stays."""
    state = state_of(session, document)
    if state.status != "complete" and not reset:
        raise AdjudicationError("this document is open already")
    active = [d for d in active_decisions(session, document)
              if d.kind not in ("complete", "reopen", "undo")]
    state.status, state.round = "open", state.round + 1
    state.completed_by_id = state.completed_at = None
    decision = record(session, document, "reopen", user, note=note,
                      after={"round": state.round, "reset": reset})
    for d in active if reset else []:
        d.retracted_by_id = decision.id
    session.flush()
    return decision

