"""Edit-level majority rules: the pure verdicts (known answers) and the whole path on a
three-annotator study: settings, dry run, automatic decisions audited and undoable."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.adjudication import decisions as d
from annotator.adjudication import store
from annotator.adjudication.gold import gold_record
from annotator.adjudication.gold_spans import merged_spans
from annotator.adjudication.grouping import EditView
from annotator.adjudication.rules import AutoRules, RulesError, decide_unit
from annotator.annotate.assignment import assign_documents
from annotator.cli import main
from annotator.ingest import import_file
from annotator.models import AdjudicationDecision, AuditEvent, Document, Project, User
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from tests.adjudication_fixtures import SOURCE, TARGET, mark_done
from tests.adjudication_fixtures import qa_edit as add_edit
from tests.conftest import PASSWORD
from tests.helpers import write_jsonl

TYPES = {"deletion": {"question": "text", "answer": "text", "severity": "ordinal",
                      "comment": "text"}}
OPTIONS = {"deletion": {"severity": [1, 2, 3], "question": [], "answer": [], "comment": []}}
MAJORITY = AutoRules(edit_rule="majority")


def view(i, who, start, end, **fields):
    return EditView(i, who, "deletion", (("source", start, end),), fields)


def test_two_of_three_agree_spans_merge_by_token_majority_and_severity_by_median():
    # "Patients received 2.5 mg/kg i.v. daily": ana marks "2.5 mg/kg", ben "2.5 mg/kg i.v.",
    # cy "received 2.5 mg/kg i.v. daily"; tokens covered by 2 of 3: "2.5", "mg/kg", "i.v."
    start = SOURCE.index("2.5")
    members = [view(1, "ana", start, start + 8, question="Dose?", severity=1),
               view(2, "ben", start, start + 14, question="What dose?", severity=3),
               view(3, "cy", SOURCE.index("received"), start + 20, question="How much?",
                    severity=2)]
    verdict = decide_unit(members, {"ana", "ben", "cy"}, MAJORITY, TYPES, OPTIONS, SOURCE,
                          TARGET)
    assert verdict.action == "merge" and verdict.agreeing == [1, 2, 3]
    assert verdict.spans == [{"side": "source", "start": start, "end": start + 14}]
    assert SOURCE[start:start + 14] == "2.5 mg/kg i.v."
    assert verdict.fields == {"question": "Dose?", "severity": 2}  # base's text, median 2


def test_minority_unit_is_rejected_only_when_outvoted():
    lone = [view(7, "cy", 0, 8, question="Who?")]
    verdict = decide_unit(lone, {"ana", "ben", "cy"}, MAJORITY, TYPES, OPTIONS, SOURCE, TARGET)
    assert verdict.action == "reject" and "2 of 3 annotators marked no edit" in verdict.reason
    kept = AutoRules(edit_rule="majority", minority="leave")
    assert decide_unit(lone, {"ana", "ben", "cy"}, kept, TYPES, OPTIONS, SOURCE,
                       TARGET).action == "leave"
    # two annotators: one edit alone is no majority either way -> the lead decides
    assert decide_unit(lone, {"ana", "cy"}, MAJORITY, TYPES, OPTIONS, SOURCE,
                       TARGET).action == "leave"


def test_compared_field_without_majority_leaves_the_unit():
    members = [view(1, "ana", 0, 8, severity=1), view(2, "ben", 0, 8, severity=3)]
    rules = AutoRules(edit_rule="majority", min_agree=2, fields={"severity": "majority"})
    verdict = decide_unit(members, {"ana", "ben", "cy"}, rules, TYPES, OPTIONS, SOURCE, TARGET)
    assert verdict.action == "leave" and "severity: no majority value (tie)" in verdict.reason
    # compared by median instead (the default for ordinal fields): the lower middle value
    verdict = decide_unit(members, {"ana", "ben", "cy"}, AutoRules(edit_rule="majority"),
                          TYPES, OPTIONS, SOURCE, TARGET)
    assert verdict.action == "merge" and verdict.fields["severity"] == 1


def test_identical_rule_keeps_its_old_meaning():
    same = [view(1, "ana", 0, 8, question="Who?"), view(2, "ben", 0, 8, question=" who? ")]
    assert decide_unit(same, {"ana", "ben"}, AutoRules(), TYPES, OPTIONS, SOURCE,
                       TARGET).action == "accept"
    assert decide_unit(same, {"ana", "ben", "cy"}, AutoRules(), TYPES, OPTIONS, SOURCE,
                       TARGET).action == "leave"


def test_span_merge_clips_to_the_annotators_span_ends():
    # "(p < 0.01)." : every annotator stops before the final full stop of the token "0.01)."
    start = SOURCE.index("(p < 0.01)")
    members = [view(i, who, start, start + 10) for i, who in enumerate(("a", "b"), 1)]
    assert merged_spans(members, SOURCE, TARGET) == [
        {"side": "source", "start": start, "end": start + 10}]


def test_bad_settings_name_the_key():
    with pytest.raises(RulesError, match="adjudication.edit_rule: 'most'"):
        AutoRules.from_settings({"adjudication": {"edit_rule": "most"}})
    with pytest.raises(RulesError, match="adjudication.fields.severity: 'mean'"):
        AutoRules.from_settings({"adjudication": {"fields": {"severity": "mean"}}})


# ---------------------------------------------------------------- on a database


@pytest.fixture
def trio(database, tmp_path):
    """Project 'trio' (infolossqa, three annotators per document): t1 where ana and ben
    mark the dose (cy marks it too, wider) and cy alone marks the design; t2 where only
    ben marks something."""
    records = [{"id": f"t{i}", "source": SOURCE, "target": TARGET} for i in (1, 2)]
    with database.session() as session:
        users = {n: create_user(session, n, PASSWORD, r) for n, r in (
            ("lee", "lead"), ("ana", "annotator"), ("ben", "annotator"), ("cy", "annotator"))}
        project = create_project(session, "trio", "infolossqa", annotators_per_doc=3,
                                 leads=[users["lee"]])
        import_file(session, project, write_jsonl(tmp_path / "trio.jsonl", records))
        assign_documents(session, project, ["ana", "ben", "cy"])
        docs = {x.external_id: x for x in project.documents}
        t1, t2 = docs["t1"], docs["t2"]
        add_edit(session, t1, "ana", "deletion", "2.5 mg/kg", "What dose?", severity=1)
        add_edit(session, t1, "ben", "deletion", "2.5 mg/kg i.v.", "How much drug?", severity=3)
        add_edit(session, t1, "cy", "deletion", "received 2.5 mg/kg i.v. daily",
                 "What did patients receive?", severity=2)
        add_edit(session, t1, "cy", "deletion", "double-blind", "How was it designed?")
        add_edit(session, t2, "ben", "deletion", "12 weeks", "How long?")
        for doc in (t1, t2):
            mark_done(session, doc, "ana", "ben", "cy")
        return {"project_id": project.id, "docs": {"t1": t1.id, "t2": t2.id}}


def _count(session, model):
    return session.scalar(select(func.count()).select_from(model))


def test_dry_run_changes_nothing_then_the_majority_rule_finishes_the_study(env, database,
                                                                           trio):
    runner = CliRunner()
    identical = runner.invoke(main, ["adjudicate", "auto", "trio", "--no-embeddings",
                                     "--dry-run", "--json"])
    assert identical.exit_code == 0, identical.output
    assert json.loads(identical.output)["completed"] == 0  # default rule: nothing identical

    shown = runner.invoke(main, ["adjudicate", "rules", "trio", "--edit-rule", "majority",
                                 "--field", "question=ignore"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["edit_rule"] == "majority"
    bad = runner.invoke(main, ["adjudicate", "rules", "trio", "--field", "severity=mean"])
    assert bad.exit_code == 1 and "adjudication.fields.severity: 'mean'" in bad.output

    with database.session() as session:
        before = (_count(session, AdjudicationDecision), _count(session, AuditEvent))
    dry = runner.invoke(main, ["adjudicate", "auto", "trio", "--no-embeddings", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would be accepted" in dry.output and "nothing changed" in dry.output
    assert "merge: 3 of 3 annotators marked deletion here" in dry.output
    assert ("reject: 2 of 3 annotators marked no edit overlapping it (ana and ben); only cy "
            "(deletion) marked it" in dry.output)
    with database.session() as session:
        assert (_count(session, AdjudicationDecision), _count(session, AuditEvent)) == before

    done = runner.invoke(main, ["adjudicate", "auto", "trio", "--no-embeddings", "--json"])
    summary = json.loads(done.output)
    assert summary["completed"] == 2 and summary["left"] == []
    assert summary["units_merged"] == 1 and summary["units_rejected"] == 2
    with database.session() as session:
        t1 = session.get(Document, trio["docs"]["t1"])
        record = gold_record(session, t1)
        (gold,) = record["edits"]
        assert gold["span_texts"]["source"] == ["2.5 mg/kg i.v."]
        assert gold["fields"]["severity"] == 2 and gold["fields"]["question"] == "What dose?"
        assert gold["provenance"]["automatic"] and gold["provenance"]["decision"] == "merge"
        events = session.scalars(select(AuditEvent).where(
            AuditEvent.action.in_(["adjudication.merge", "adjudication.reject"]))).all()
        assert len(events) == 3 and all(e.details["automatic"] for e in events)
        # reversible: reopen, undo the automatic merge; the unit is open again
        lee = session.scalar(select(User).where(User.username == "lee"))
        d.reopen(session, t1, lee)
        merge = next(x for x in store.active_decisions(session, t1) if x.kind == "merge")
        d.undo(session, t1, merge.id, lee, "check the dose by hand")
        assert gold_record(session, t1)["edits"] == []
        project = session.get(Project, trio["project_id"])
        assert project.settings["adjudication"]["fields"] == {"question": "ignore"}
