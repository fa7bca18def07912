"""Adjudication decisions on edits: accept, merge, keep both, reject, regroup, undo,
complete and reopen, with their audit trail; the queue."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.gold import gold_record, release_blocker
from annotator.adjudication.overview import (
    adjudication_queue,
    apply_automatic,
    complete,
    open_items,
)
from annotator.annotate.store import ValidationFailed
from annotator.models import AdjudicationDecision, AuditEvent, Edit, User
from tests.adjudication_fixtures import load, phrase_span, project_of


@pytest.fixture
def q1(database, qa_study):
    """A session, q1, the lead and q1's units (frozen on first use, without embeddings)."""
    with database.session() as session:
        document = load(session, qa_study, "q1")
        units = store.current_units(session, document)
        yield session, document, session.get(User, qa_study["users"]["lee"]), units, \
            qa_study["edits"]


def test_units_freeze_on_first_use(q1):
    session, document, lee, units, e = q1
    assert [u.edit_ids for u in units] == [[e["e1"], e["e2"]], [e["e3"]]]
    grouping = d.grouping_decision(session, document)
    assert grouping.automatic and grouping.after["groups"] == [[e["e1"], e["e2"]], [e["e3"]]]
    assert open_items(session, document)["units"] == 2


def test_accept_copies_one_edit_and_records_who_what_before_after(q1):
    session, document, lee, units, e = q1
    decision = d.accept(session, document, units[0].edit_ids, e["e2"], lee, "ben's is tighter")
    assert (decision.kind, decision.user_id, decision.note) == ("accept", lee.id,
                                                                "ben's is tighter")
    assert decision.source_edit_ids == [e["e1"], e["e2"]]
    assert {b["annotator"] for b in decision.before} == {"ana", "ben"}
    assert decision.after[0]["fields"]["question"] == "What dose did patients receive?"
    gold = gold_record(session, document)
    assert len(gold["edits"]) == 1
    edit = gold["edits"][0]
    assert edit["span_texts"]["source"] == ["2.5 mg/kg i.v."]
    assert edit["provenance"]["source_edits"] == [{"id": e["e2"], "annotator": "ben"}]
    assert edit["provenance"]["unit_edit_ids"] == [e["e1"], e["e2"]]
    with pytest.raises(store.AdjudicationError, match="decided already"):
        d.reject(session, document, units[0].edit_ids, lee)
    event = session.scalars(select(AuditEvent).where(
        AuditEvent.action == "adjudication.accept")).one()
    assert event.details["decision_id"] == decision.id and event.user_id == lee.id


def test_merge_starts_from_either_edit_with_the_leads_spans_and_text(q1):
    session, document, lee, units, e = q1
    merged_span = phrase_span(document.source, "2.5 mg/kg i.v. daily for 12 weeks", "source")
    with pytest.raises(ValidationFailed):
        d.merge(session, document, units[0].edit_ids, e["e1"], lee,
                fields={"question": "", "answer": "x"})
    with pytest.raises(ValidationFailed):
        d.merge(session, document, units[0].edit_ids, e["e1"], lee,
                spans=[{"side": "source", "start": 0, "end": 10_000}])
    decision = d.merge(session, document, units[0].edit_ids, e["e1"], lee,
                       spans=[merged_span],
                       fields={"question": "What dose, how often and how long?",
                               "answer": "2.5 mg/kg daily for 12 weeks", "severity": 2})
    (edit,) = gold_record(session, document)["edits"]
    assert edit["span_texts"]["source"] == ["2.5 mg/kg i.v. daily for 12 weeks"]
    assert edit["fields"]["question"] == "What dose, how often and how long?"
    assert decision.after[0]["based_on"] == e["e1"]
    assert [s["annotator"] for s in edit["provenance"]["source_edits"]] == ["ana", "ben"]


def test_keep_both_makes_two_gold_edits_and_reject_none(q1):
    session, document, lee, units, e = q1
    with pytest.raises(store.AdjudicationError, match="two or more"):
        d.keep_both(session, document, units[0].edit_ids, lee, keep_ids=[e["e1"]])
    d.keep_both(session, document, units[0].edit_ids, lee, "two valid questions")
    d.reject(session, document, units[1].edit_ids, lee, "the design is still stated")
    gold = gold_record(session, document)
    assert sorted(x["fields"]["question"] for x in gold["edits"]) == [
        "How much of the drug did patients get?", "What dose did patients receive?"]
    assert gold["adjudication"]["rejected_edit_ids"] == [e["e3"]]
    assert open_items(session, document)["total"] == 0


def test_regroup_by_hand_splits_and_protects_decided_units(q1):
    session, document, lee, units, e = q1
    with pytest.raises(store.AdjudicationError, match="exactly once"):
        d.regroup(session, document, [[e["e1"]], [e["e3"]]], lee)
    d.regroup(session, document, [[e["e1"]], [e["e2"], e["e3"]]], lee, "different findings")
    assert [u.edit_ids for u in store.current_units(session, document)] == [
        [e["e1"]], [e["e2"], e["e3"]]]
    d.accept(session, document, [e["e1"]], e["e1"], lee)
    with pytest.raises(store.AdjudicationError, match="undo it"):
        d.regroup(session, document, [[e["e1"], e["e2"]], [e["e3"]]], lee)
    kinds = [x.kind for x in store.history(session, document)]
    assert kinds == ["regroup", "regroup", "accept"]
    assert (
        store.history(session, document)[0].retracted_by_id
        == store.history(session, document)[1].id
    )


def test_undo_retracts_but_keeps_history(q1):
    session, document, lee, units, e = q1
    first = d.accept(session, document, units[0].edit_ids, e["e1"], lee)
    d.undo(session, document, first.id, lee, "wrong one")
    assert gold_record(session, document)["edits"] == []
    d.accept(session, document, units[0].edit_ids, e["e2"], lee)
    (edit,) = gold_record(session, document)["edits"]
    assert edit["provenance"]["source_edits"][0]["id"] == e["e2"]
    history = store.history(session, document)
    assert [x.kind for x in history] == ["regroup", "accept", "undo", "accept"]
    assert history[1].retracted_by_id == history[2].id


def test_complete_reopen_and_reset_keep_the_full_history(q1):
    session, document, lee, units, e = q1
    with pytest.raises(store.AdjudicationError, match="still open"):
        complete(session, document, lee)
    d.accept(session, document, units[0].edit_ids, e["e1"], lee)
    d.reject(session, document, units[1].edit_ids, lee)
    complete(session, document, lee, "done")
    assert release_blocker(session, document) is None
    with pytest.raises(store.AdjudicationError, match="reopen"):
        d.accept(session, document, units[0].edit_ids, e["e2"], lee)
    d.reopen(session, document, lee, "ben's dose question is better")
    state = store.state_of(session, document)
    assert (state.status, state.round) == ("open", 2)
    assert len(gold_record(session, document)["edits"]) == 1  # decisions stay in force
    assert "adjudication not complete" in release_blocker(session, document)
    complete(session, document, lee)
    d.reopen(session, document, lee, "start over", reset=True)
    assert gold_record(session, document)["edits"] == []
    assert open_items(session, document)["units"] == 2
    rows = session.scalars(select(AdjudicationDecision).where(
        AdjudicationDecision.document_id == document.id)).all()
    assert [r.kind for r in rows] == ["regroup", "accept", "reject", "complete", "reopen",
                                      "complete", "reopen"]
    assert [r.round for r in rows][-1] == 3
    assert all(r.retracted_by_id == rows[-1].id for r in rows[:3])


def test_unfinished_documents_cannot_be_adjudicated(database, qa_study):
    with database.session() as session:
        q3 = load(session, qa_study, "q3")
        lee = session.get(User, qa_study["users"]["lee"])
        with pytest.raises(store.AdjudicationError, match="marked this document done"):
            d.reject(session, q3, [1], lee)
        assert "annotation not finished by ana, ben" == release_blocker(session, q3)


def test_automatic_rules_accept_identical_edits_only(database, qa_study):
    with database.session() as session:
        result = apply_automatic(session, load(session, qa_study, "q2"))
        assert result["units_accepted"] == 1 and result["completed"]
        record = gold_record(session, load(session, qa_study, "q2"))
        assert record["edits"][0]["provenance"]["automatic"] is True
        left = apply_automatic(session, load(session, qa_study, "q1"))
        assert left["units_accepted"] == 0 and not left["completed"]
        assert left["open"]["units"] == 2


def test_queue_orders_by_least_agreement_and_filters(database, qa_study):
    with database.session() as session:
        project = project_of(session, qa_study)
        queue = adjudication_queue(session, project)
        assert [q.document.external_id for q in queue] == ["q1", "q2"]  # q3 not finished
        assert queue[0].agreement == pytest.approx(0.5) and queue[1].agreement == 1.0
        assert queue[0].open["units"] == 2
        # ana and ben agree on the deletion's evidence but not its severity (2 vs 1): a tie.
        assert queue[0].fields_in_dispute == ["deletion.severity", "oversimplification"]
        assert [q.document.external_id for q in adjudication_queue(
            session, project, field_name="deletion.severity")] == ["q1"]
        assert [q.document.external_id for q in adjudication_queue(
            session, project, field_name="oversimplification")] == ["q1"]
        assert adjudication_queue(session, project, pair=("ana", "cy")) == []
        assert len(adjudication_queue(session, project, pair=("ana", "ben"))) == 2
        assert session.scalar(select(Edit).where(Edit.id == qa_study["edits"]["e1"]))
