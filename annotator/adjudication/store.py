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

from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
from annotator.study.queue_marks import document_changed

UNIT_KINDS = ("accept", "merge", "keep_both", "reject")
UNDOABLE = UNIT_KINDS + ("rating", "majority", "tiebreak")


class AdjudicationError(ValueError):
    """The step is not possible in the document's current state (message says why)."""


def state_of(session: Session, document: Document) -> AdjudicationState:
    return _memo(session, ("state", document.id), lambda: _state_of(session, document))


def _state_of(session: Session, document: Document) -> AdjudicationState:
    state = session.scalar(select(AdjudicationState).where(
        AdjudicationState.document_id == document.id))
    if state is None:
        state = AdjudicationState(document_id=document.id, status="open", round=1)
        session.add(state)
        session.flush()
    return state


def active_decisions(session: Session, document: Document) -> list[AdjudicationDecision]:
    memo = session.info.get(_MEMO)
    if memo is None:
        return _active_decisions(session, document)
    # Within batch_reads: read once, then :func:`record` appends each new decision (the only
    # place decisions are made) and retractions show on the objects themselves.
    key = ("decisions", document.id)
    if key not in memo:
        memo[key] = _active_decisions(session, document)
    return [d for d in memo[key] if d.retracted_by_id is None]


def _active_decisions(session: Session, document: Document) -> list[AdjudicationDecision]:
    return list(session.scalars(select(AdjudicationDecision).where(
        AdjudicationDecision.document_id == document.id,
        AdjudicationDecision.retracted_by_id.is_(None)).order_by(AdjudicationDecision.id)))


def history(session: Session, document: Document) -> list[AdjudicationDecision]:
    return list(session.scalars(select(AdjudicationDecision).where(
        AdjudicationDecision.document_id == document.id).order_by(AdjudicationDecision.id)))


def record(session: Session, document: Document, kind: str, user: User | None, *,
           automatic: bool = False, item_key: str = "", source_edit_ids=(), before=None,
           after=None, note: str = "") -> AdjudicationDecision:
    """A decision, flushed (it has its id) and audited."""
    decision = new_decision(session, document, kind, user, automatic=automatic,
                            item_key=item_key, source_edit_ids=source_edit_ids,
                            before=before, after=after, note=note)
    session.flush()
    recorded(session, document, decision)
    return decision


def new_decision(session: Session, document: Document, kind: str, user: User | None, *,
                 automatic: bool = False, item_key: str = "", source_edit_ids=(),
                 before=None, after=None, note: str = "") -> AdjudicationDecision:
    """A decision added to the session, not flushed yet: a caller adding its gold edits
    flushes once for both, then calls :func:`recorded` (batch runs make thousands)."""
    decision = AdjudicationDecision(
        document_id=document.id, round=state_of(session, document).round, kind=kind,
        automatic=automatic, user_id=user.id if user else None, item_key=item_key,
        source_edit_ids=sorted(source_edit_ids), before=before, after=after,
        note=(note or "").strip())
    session.add(decision)
    return decision


def recorded(session: Session, document: Document, decision: AdjudicationDecision) -> None:
    """After the flush that gave ``decision`` its id: the batch memo, the audit trail and
    the document's queue entry (every decision, gold edit or rating, state change and
    tie-break request comes with a decision recorded here)."""
    document_changed(session, document.id)
    memo = session.info.get(_MEMO)
    if memo is not None and ("decisions", document.id) in memo:
        memo[("decisions", document.id)].append(decision)
    audit.record(session, f"adjudication.{decision.kind}", user_id=decision.user_id,
                 project_id=document.project_id, object_type="document",
                 object_id=document.id, decision_id=decision.id, item=decision.item_key,
                 automatic=decision.automatic)


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
    if decision is not None:  # a grouping decision never changes: memoise by its id
        return _memo(session, ("units", decision.id),
                     lambda: _frozen_units(edits, decision, document))
    units = group_edits(edits, document.source, document.target, embed)
    if freeze and units:
        record(session, document, "regroup", None, automatic=True,
               after={"groups": [u.edit_ids for u in units],
                      "method": "token IoU + question similarity" if embed else "token IoU"})
    return units


def _frozen_units(edits: list[EditView], decision: AdjudicationDecision,
                  document: Document) -> list[Unit]:
    known = {i for g in decision.after["groups"] for i in g}
    groups = [g for g in decision.after["groups"]] + [[e.id] for e in edits
                                                      if e.id not in known]
    present = {e.id for e in edits}
    groups = [[i for i in g if i in present] for g in groups]
    return units_from_groups(edits, groups, document.source, document.target)


def decided_units(session: Session, document: Document) -> dict[str, AdjudicationDecision]:
    return {d.item_key: d for d in active_decisions(session, document) if d.kind in UNIT_KINDS}



# ---------------------------------------------------------------- source work


def tiebreak_assignment_ids(session: Session, document_ids) -> set[int]:
    return set(session.scalars(select(TieBreakRequest.assignment_id).where(
        TieBreakRequest.document_id.in_(list(document_ids)))))


# ---------------------------------------------------------------- batch reads
# The automatic rules take many steps on one document; each step checks the document's
# state again (original work, frozen units), and reading them anew each time made
# `adjudicate auto` spend most of its time on the same queries. Within `batch_reads`,
# those reads are taken once per document: the automatic steps never change the annotators'
# work or the grouping (the first freeze happens before the units are memoised).
_MEMO = "adjudication.batch_reads"


@contextmanager
def batch_reads(session: Session) -> Iterator[None]:
    outer = _MEMO in session.info
    if not outer:
        session.info[_MEMO] = {}
    try:
        yield
    finally:
        if not outer:
            session.info.pop(_MEMO, None)


def _memo(session: Session, key: tuple, compute: Callable):
    memo = session.info.get(_MEMO)
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def preload_original_assignments(session: Session, document_ids: list[int]) -> None:
    """Inside :func:`batch_reads`: read the original assignments (edits, spans, ratings,
    user) of many documents in one set of queries instead of one set per document."""
    memo = session.info.get(_MEMO)
    if memo is None or not document_ids:
        return
    excluded = tiebreak_assignment_ids(session, document_ids)
    found: dict[int, list[Assignment]] = {i: [] for i in document_ids}
    for start in range(0, len(document_ids), 500):
        for a in session.scalars(_assignments_query().where(
                Assignment.document_id.in_(document_ids[start:start + 500]))):
            if a.id not in excluded:
                found[a.document_id].append(a)
    for document_id, assignments in found.items():
        memo[("assignments", document_id)] = assignments


def _assignments_query():
    return (select(Assignment)
            .options(selectinload(Assignment.edits).selectinload(Edit.spans),
                     selectinload(Assignment.ratings), selectinload(Assignment.user))
            .order_by(Assignment.id))


def original_assignments(session: Session, document: Document) -> list[Assignment]:
    return _memo(session, ("assignments", document.id),
                 lambda: _original_assignments(session, document))


def _original_assignments(session: Session, document: Document) -> list[Assignment]:
    excluded = tiebreak_assignment_ids(session, [document.id])
    rows = session.scalars(_assignments_query().where(
        Assignment.document_id == document.id)).all()
    return [a for a in rows if a.id not in excluded]


def open_ready_documents(session: Session, project) -> list[Document]:
    """The project's documents that are ready for adjudication and not adjudicated yet, in
    project order (what the automatic rules work on; cheaper than the ordered queue)."""
    complete = set(session.scalars(select(AdjudicationState.document_id).join(Document).where(
        Document.project_id == project.id, AdjudicationState.status == "complete")))
    excluded = set(session.scalars(select(TieBreakRequest.assignment_id).join(Document).where(
        Document.project_id == project.id)))
    statuses: dict[int, list[str]] = {}
    for document_id, assignment_id, status in session.execute(
            select(Assignment.document_id, Assignment.id, Assignment.status).join(Document)
            .where(Document.project_id == project.id)):
        if assignment_id not in excluded:
            statuses.setdefault(document_id, []).append(status)
    ready = {d for d, s in statuses.items() if all_done(s)}
    return list(session.scalars(select(Document).where(
        Document.project_id == project.id, Document.id.in_(ready - complete))
        .order_by(Document.position, Document.id)))


def all_done(statuses) -> bool:
    """The readiness rule on the original assignments' statuses: at least one, all done."""
    statuses = list(statuses)
    return bool(statuses) and all(status == "done" for status in statuses)


def is_ready(assignments: list[Assignment]) -> bool:
    """Ready for adjudication: every original assignment is marked done (at least one)."""
    return all_done(a.status for a in assignments)


def ready_documents(session: Session, document_ids: list[int]) -> set[int]:
    """Of ``document_ids``, those ready for adjudication (:func:`is_ready`), read from the
    original assignments' statuses alone: no edit, span or rating is loaded (issue 44: an
    annotator's save recomputes the queue entry of a document that is, most of the time,
    still being annotated, and loading its whole work for that was a third of the save)."""
    excluded = tiebreak_assignment_ids(session, document_ids)
    statuses: dict[int, list[str]] = {d: [] for d in document_ids}
    for start in range(0, len(document_ids), 500):
        for document_id, assignment_id, status in session.execute(
                select(Assignment.document_id, Assignment.id, Assignment.status).where(
                    Assignment.document_id.in_(document_ids[start:start + 500]))):
            if assignment_id not in excluded:
                statuses[document_id].append(status)
    return {d for d, found in statuses.items() if all_done(found)}


def source_edits(assignments: list[Assignment]) -> list[Edit]:
    return sorted((e for a in assignments for e in a.edits), key=lambda e: e.id)


def edit_view(edit: Edit) -> EditView:
    snapshot = edit_snapshot(edit)
    return EditView(id=edit.id, annotator=snapshot["annotator"], edit_type=edit.edit_type,
                    spans=tuple((s["side"], s["start"], s["end"]) for s in snapshot["spans"]),
                    fields=snapshot["fields"], parent_id=edit.parent_id,
                    constituents=tuple(sorted(
                        (c.edit_type, tuple(sorted((s.side, s.start, s.end) for s in c.spans)))
                        for c in edit.assignment.edits if c.parent_id == edit.id)))


def edit_snapshot(edit: Edit) -> dict:
    """The annotator's edit as it was when decided on (kept in the decision's ``before``):
    the common serialisation plus who wrote it."""
    return {**edit_to_dict(edit), "annotator": edit.assignment.user.username}
