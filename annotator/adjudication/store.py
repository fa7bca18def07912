"""The database side of adjudication: what it starts from and where its steps are kept.

*What it starts from*: the original assignments of a document are those given out for
annotation; an assignment created to break a tie (a :class:`TieBreakRequest` points at it)
is not one of them, so a third annotator's partial work never counts as a disagreement or as
agreement input.

*Where its steps are kept*: every step is one :class:`AdjudicationDecision` row plus an
audit event (:func:`record`); rows are never deleted (an undo or a reset sets
``retracted_by_id``). The candidate units of a document are frozen the first time it is
adjudicated (an automatic 'regroup' decision holding the groups of
:func:`grouping.group_edits`), so the units a lead decides on never shift under them.

The step modules build on this one and never on each other in a loop: :mod:`decisions`
(unit decisions, undo, reopen) and :mod:`ratings` (gold ratings) import only this module and
the pure ones; :mod:`overview` (open items, completion, the automatic rules, the queue)
imports those two; :mod:`gold` and :mod:`view` read from all of them.
"""

from __future__ import annotations

from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from annotator.adjudication.grouping import (
    EditView,
    Unit,
    group_edits,
    units_from_groups,
)
from annotator.core.serialise import edit_to_dict
from annotator.models import (
    AdjudicationDecision,
    AdjudicationState,
    Assignment,
    Document,
    Edit,
    TieBreakRequest,
    User,
)
from annotator.study import audit

UNIT_KINDS = ("accept", "merge", "keep_both", "reject")
UNDOABLE = UNIT_KINDS + ("rating", "majority", "tiebreak")


class AdjudicationError(ValueError):
    """The step is not possible in the document's current state (message says why)."""


def state_of(session: Session, document: Document) -> AdjudicationState:
    state = session.scalar(select(AdjudicationState).where(
        AdjudicationState.document_id == document.id))
    if state is None:
        state = AdjudicationState(document_id=document.id, status="open", round=1)
        session.add(state)
        session.flush()
    return state


def active_decisions(session: Session, document: Document) -> list[AdjudicationDecision]:
    return list(session.scalars(select(AdjudicationDecision).where(
        AdjudicationDecision.document_id == document.id,
        AdjudicationDecision.retracted_by_id.is_(None)).order_by(AdjudicationDecision.id)))


def history(session: Session, document: Document) -> list[AdjudicationDecision]:
    return list(session.scalars(select(AdjudicationDecision).where(
        AdjudicationDecision.document_id == document.id).order_by(AdjudicationDecision.id)))


def record(session: Session, document: Document, kind: str, user: User | None, *,
           automatic: bool = False, item_key: str = "", source_edit_ids=(), before=None,
           after=None, note: str = "") -> AdjudicationDecision:
    state = state_of(session, document)
    decision = AdjudicationDecision(
        document_id=document.id, round=state.round, kind=kind, automatic=automatic,
        user_id=user.id if user else None, item_key=item_key,
        source_edit_ids=sorted(source_edit_ids), before=before, after=after,
        note=(note or "").strip())
    session.add(decision)
    session.flush()
    audit.record(session, f"adjudication.{kind}", user_id=decision.user_id,
                 project_id=document.project_id, object_type="document",
                 object_id=document.id, decision_id=decision.id, item=item_key,
                 automatic=automatic)
    return decision


def require_open(session: Session, document: Document) -> AdjudicationState:
    state = state_of(session, document)
    if state.status != "open":
        raise AdjudicationError("this document is adjudicated; reopen it to change decisions")
    if not is_ready(original_assignments(session, document)):
        raise AdjudicationError("not every assigned annotator has marked this document done")
    return state


def grouping_decision(session: Session, document: Document) -> AdjudicationDecision | None:
    return next((d for d in reversed(active_decisions(session, document))
                 if d.kind == "regroup"), None)


def current_units(session: Session, document: Document,
                  embed: Callable | None = None, *, freeze: bool = True) -> list[Unit]:
    """The document's candidate units: the frozen grouping, else a fresh one (stored as an
    automatic regroup decision when ``freeze``)."""
    edits = [edit_view(e) for e in source_edits(original_assignments(session, document))]
    decision = grouping_decision(session, document)
    if decision is not None:
        known = {i for g in decision.after["groups"] for i in g}
        groups = [g for g in decision.after["groups"]] + [[e.id] for e in edits
                                                          if e.id not in known]
        present = {e.id for e in edits}
        groups = [[i for i in g if i in present] for g in groups]
        return units_from_groups(edits, groups, document.source, document.target)
    units = group_edits(edits, document.source, document.target, embed)
    if freeze and units:
        record(session, document, "regroup", None, automatic=True,
               after={"groups": [u.edit_ids for u in units],
                      "method": "token IoU + question similarity" if embed else "token IoU"})
    return units


def decided_units(session: Session, document: Document) -> dict[str, AdjudicationDecision]:
    return {d.item_key: d for d in active_decisions(session, document) if d.kind in UNIT_KINDS}



# ---------------------------------------------------------------- source work


def tiebreak_assignment_ids(session: Session, document_ids) -> set[int]:
    return set(session.scalars(select(TieBreakRequest.assignment_id).where(
        TieBreakRequest.document_id.in_(list(document_ids)))))


def original_assignments(session: Session, document: Document) -> list[Assignment]:
    excluded = tiebreak_assignment_ids(session, [document.id])
    rows = session.scalars(
        select(Assignment).where(Assignment.document_id == document.id)
        .options(selectinload(Assignment.edits).selectinload(Edit.spans),
                 selectinload(Assignment.ratings), selectinload(Assignment.user))
        .order_by(Assignment.id)).all()
    return [a for a in rows if a.id not in excluded]


def is_ready(assignments: list[Assignment]) -> bool:
    """Ready for adjudication: every original assignment is marked done (at least one)."""
    return bool(assignments) and all(a.status == "done" for a in assignments)


def source_edits(assignments: list[Assignment]) -> list[Edit]:
    return sorted((e for a in assignments for e in a.edits), key=lambda e: e.id)


def edit_view(edit: Edit) -> EditView:
    snapshot = edit_snapshot(edit)
    return EditView(id=edit.id, annotator=snapshot["annotator"], edit_type=edit.edit_type,
                    spans=tuple((s["side"], s["start"], s["end"]) for s in snapshot["spans"]),
                    fields=snapshot["fields"])


def edit_snapshot(edit: Edit) -> dict:
    """The annotator's edit as it was when decided on (kept in the decision's ``before``):
    the common serialisation plus who wrote it."""
    return {**edit_to_dict(edit), "annotator": edit.assignment.user.username}
