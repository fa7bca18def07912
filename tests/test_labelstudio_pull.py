"""`labelstudio pull --import`, round two (issue 43), on a real SQLite file with a Label
Studio export written as the server writes it (tasks from ``to_tasks``, changed as the page
changes them): a whole annotation deleted is a deletion; a relabel that leaves finished work
incomplete is refused naming task, region and what is missing (or, allowed, stored in
progress and said so); a second pull of the same export changes nothing, also after such a
relabel; every pull accounts for users created, drafts stored or not (and why), skips and
deletions. The live server counterparts are in tests/test_labelstudio_live_pull_refusals.py."""

from __future__ import annotations

import copy
import json

import pytest
from sqlalchemy import select

from annotator.core.records import IngestError
from annotator.ingest import import_file
from annotator.interop.labelstudio_pull import pull_into
from annotator.interop.labelstudio_tasks import to_tasks
from annotator.interop.records import AnnotationRecord, EditIn, SpanIn
from annotator.models import Assignment, AuditEvent, Edit, Project
from annotator.schemas.files import load_schema
from annotator.study.projects import create_project
from tests.helpers import INFOLOSSQA, infolossqa_pairs, row_counts, write_jsonl

TYPOLOGY = str(INFOLOSSQA / "config" / "thresh.yml")
MEMBERS = {"ana@example.org": "ana", "ben@example.org": "ben"}


class Doc:
    def __init__(self, pair):
        self.external_id, self.meta = pair["id"], {}
        self.source, self.target = pair["source"], pair["target"]


@pytest.fixture
def study(database, tmp_path):
    """Project 'ilq' (the InfoLossQA authors' typology) with two real pairs; the export of
    its Label Studio project: ana submitted an omission (question and answer) on the first
    task, ben skipped the second."""
    pairs = infolossqa_pairs(2)
    schema = load_schema(TYPOLOGY)
    with database.session() as session:
        project = create_project(session, "ilq", TYPOLOGY)
        import_file(session, project, write_jsonl(tmp_path / "pairs.jsonl", pairs))
    omission = EditIn("omission", {"question": "What was left out?", "answer": "The dose."},
                      [SpanIn("source", 0, 10)])
    records = [AnnotationRecord(pairs[0]["id"], "ana", 1, edits=[omission],
                                seconds_spent=30.0),
               AnnotationRecord(pairs[1]["id"], "ben", 2, status="skipped",
                                seconds_spent=4.0)]
    tasks, _ = to_tasks(schema, [Doc(p) for p in pairs], records, email_of=lambda n:
                        f"{n}@example.org")
    return {"database": database, "tasks": tasks, "pairs": pairs, "schema": schema,
            "path": tmp_path / "export.json"}


def pull(study, tasks, **flags):
    study["path"].write_text(json.dumps(tasks), encoding="utf-8")
    with study["database"].session() as session:
        project = session.scalar(select(Project).where(Project.name == "ilq"))
        return pull_into(session, project, study["path"], members=MEMBERS, **flags)


def work(study) -> dict[tuple[str, str], tuple]:
    with study["database"].session() as session:
        return {(a.document.external_id, a.user.username): (
            a.status, a.version, a.completed_at, len(a.edits), len(a.ratings))
            for a in session.scalars(select(Assignment))}


def counts(study) -> dict[str, int]:
    with study["database"].session() as session:
        return row_counts(session)


def test_a_first_pull_accounts_for_users_created_and_skips(study):
    summary = pull(study, study["tasks"])
    assert summary.report.users_created == ["ana", "ben"]
    first, second = (p["id"] for p in study["pairs"])
    assert summary.skips_stored == [f"task 2 ({second}) ben"]
    assert summary.drafts_stored == summary.drafts_ignored == [] == summary.merge.deletions
    assert work(study)[(first, "ana")][0] == "done"
    data = summary.as_json()
    assert data["users_created"] == ["ana", "ben"] and data["skips"]["stored"] == [
        f"task 2 ({second}) ben"] and data["imported"]["records"] == 2


def test_a_whole_annotation_deleted_in_label_studio_is_a_deletion(study):
    pull(study, study["tasks"])
    before, rows = work(study), counts(study)
    gone = copy.deepcopy(study["tasks"])
    gone[0]["annotations"] = []  # ana's annotation deleted in Label Studio
    first = study["pairs"][0]["id"]
    with pytest.raises(IngestError) as refused:
        pull(study, gone)
    [problem] = refused.value.problems
    assert (f"task 1, document '{first}', ana: the stored annotation (done; 1 edit(s)) is not "
            "in the export (deleted in Label Studio)") in problem.message
    assert "--allow-deletions" in problem.message
    assert work(study) == before and counts(study) == rows  # nothing changed

    summary = pull(study, gone, allow_deletions=True)
    assert summary.merge.deletions == [f"task 1 ({first}) ana: the whole annotation "
                                       "(done; 1 edit(s))"]
    assert summary.cleared == [f"task 1 ({first}) ana"]
    assert work(study)[(first, "ana")][0::3] == ("assigned", 0)
    with study["database"].session() as session:
        [event] = session.scalars(select(AuditEvent).where(
            AuditEvent.action == "annotations.deleted")).all()
        assert event.details["edits"][0]["fields"]["answer"] == "The dose."
    # Pulled again: the deletion is done, nothing left to delete or change.
    again = pull(study, gone)
    assert again.merge.deletions == [] and again.report.records == 0


def _relabel_to_concept(tasks):
    """ana's omission region relabelled a fuzzy concept in the page (the answers stay in
    the omission's boxes); a fuzzy concept needs a region on the simplification too."""
    changed = copy.deepcopy(tasks)
    for r in changed[0]["annotations"][0]["result"]:
        if r["type"] == "labels":
            r["value"]["labels"] = ["concept"]
    return changed


def test_a_relabel_that_leaves_finished_work_incomplete_is_refused_naming_region(study):
    pull(study, study["tasks"])
    before, rows = work(study), counts(study)
    first = study["pairs"][0]["id"]
    with pytest.raises(IngestError) as refused:
        pull(study, _relabel_to_concept(study["tasks"]))
    [problem] = refused.value.problems
    assert (f"task 1, document '{first}', ana: the pull would make finished work incomplete: "
            "concept region at source 0-10: Fuzzy Concept #1: mark a span in the "
            "simplification") in problem.message
    assert "--allow-incomplete" in problem.message
    assert work(study) == before and counts(study) == rows


def test_allowed_it_is_stored_in_progress_and_said_so_and_a_second_pull_changes_nothing(study):
    pull(study, study["tasks"])
    first = study["pairs"][0]["id"]
    relabelled = _relabel_to_concept(study["tasks"])
    summary = pull(study, relabelled, allow_incomplete=True)
    assert summary.incomplete == [
        f"task 1, document '{first}', ana: done before, stored as in progress "
        "(--allow-incomplete): concept region at source 0-10: Fuzzy Concept #1: mark a "
        "span in the simplification"]
    after, rows = work(study), counts(study)
    assert after[(first, "ana")][0] == "in_progress"
    with study["database"].session() as session:
        events = session.query(AuditEvent).count()
    for _ in range(2):  # without the flag: nothing to refuse, nothing to write
        again = pull(study, relabelled)
        assert (again.report.records, again.merge.unchanged, again.incomplete) == (0, 2, [])
        assert work(study) == after and counts(study) == rows
        with study["database"].session() as session:
            assert session.query(AuditEvent).count() == events


def test_a_draft_beside_a_submission_is_not_imported_and_said_so(study):
    pull(study, study["tasks"])
    first, second = (p["id"] for p in study["pairs"])
    with_drafts = copy.deepcopy(study["tasks"])
    region = {"id": "dr", "from_name": "source_labels", "to_name": "source",
              "type": "labels", "value": {"start": 20, "end": 30, "labels": ["omission"]}}
    question = {"id": "dr", "from_name": "source_omission_question", "to_name": "source",
                "type": "textarea", "value": {"text": ["Which drug?"]}}
    # ana keeps working on her submitted task without submitting again; ben starts the
    # task he skipped.
    with_drafts[0]["drafts"] = [{"id": 71, "user": "ana@example.org", "lead_time": 9.0,
                                 "result": [region, question]}]
    with_drafts[1]["annotations"] = []
    with_drafts[1]["drafts"] = [{"id": 72, "user": "ben@example.org", "lead_time": 3.0,
                                 "result": [region, question]}]
    summary = pull(study, with_drafts)
    assert summary.drafts_ignored == [
        f"task 1 ({first}) ana: ana has submitted this task: the submitted annotation is "
        "the work, the draft's changes are not imported"]
    assert summary.drafts_stored == [f"task 2 ({second}) ben"]
    # `annotator import` of the same export says so in its notes; the pull lists the draft
    # once, under drafts.
    assert summary.report.notes == [
        f"task 1 ({first}): a draft by ana is not imported: ana has submitted this task: the "
        "submitted annotation is the work, the draft's changes are not imported"]
    assert summary.notes() == []
    assert work(study)[(first, "ana")][3] == 1 and work(study)[(second, "ben")][:1] == (
        "in_progress",)
    again = pull(study, with_drafts)
    assert again.drafts_unchanged == [f"task 2 ({second}) ben"] and again.drafts_stored == []
    assert again.drafts_ignored == summary.drafts_ignored
    assert again.as_json()["drafts"]["ignored"] == summary.drafts_ignored



def test_work_stored_done_but_already_incomplete_is_not_refused_but_said_so(study):
    """The pull does not make such work incomplete (it was so before, e.g. imported with
    --accept-incomplete): stored in progress as any incomplete submission, and listed."""
    pull(study, study["tasks"])
    first = study["pairs"][0]["id"]
    with study["database"].session() as session:
        ana = session.scalar(select(Assignment).join(Assignment.user).where(
            Assignment.user.has(username="ana")))
        # A remark without a region (Label Studio cannot hold it) that lacks its answers.
        session.add(Edit(assignment=ana, edit_type="omission", fields={}, spans=[]))
    summary = pull(study, _relabel_to_concept(study["tasks"]))
    assert summary.incomplete == [
        f"task 1, document '{first}', ana: submitted in Label Studio, stored as in progress: "
        "concept region at source 0-10: Fuzzy Concept #1: mark a span in the simplification; "
        "omission edit without a region: Omission #2: mark a span in the original; omission "
        "edit without a region: Omission #2: Question is required; omission edit without a "
        "region: Omission #2: Answer is required"]
    assert work(study)[(first, "ana")][0] == "in_progress"


def test_of_two_drafts_by_one_member_the_latest_is_read_and_the_other_listed(study):
    second = study["pairs"][1]["id"]
    tasks = copy.deepcopy(study["tasks"])
    tasks[1]["annotations"] = []

    def draft(number, when, question):
        return {"id": number, "user": "ben@example.org", "updated_at": when, "result": [
            {"id": "r", "from_name": "source_labels", "to_name": "source", "type": "labels",
             "value": {"start": 0, "end": 8, "labels": ["omission"]}},
            {"id": "r", "from_name": "source_omission_question", "to_name": "source",
             "type": "textarea", "value": {"text": [question]}}]}
    tasks[1]["drafts"] = [draft(81, "2026-11-27T10:00:00Z", "Later?"),
                          draft(80, "2026-11-27T09:00:00Z", "Earlier?")]
    summary = pull(study, tasks)
    assert summary.drafts_stored == [f"task 2 ({second}) ben"]
    assert summary.drafts_ignored == [f"task 2 ({second}) ben: 1 older draft(s) of ben: the "
                                      "latest is the one read"]
    with study["database"].session() as session:
        ben = session.scalar(select(Assignment).join(Assignment.user).where(
            Assignment.user.has(username="ben")))
        assert [e.fields["question"] for e in ben.edits] == ["Later?"]


def test_what_a_pull_prints_is_what_it_did(study):
    from annotator.commands.labelstudio import summary_lines

    first, second = (p["id"] for p in study["pairs"])
    printed = "\n".join(summary_lines(pull(study, study["tasks"]), "ilq"))
    assert printed.startswith("imported 2 annotations (1 edits, 0 ratings) into ilq\n"
                              "0 annotation(s) unchanged, left as stored;")
    assert ("users created (inactive, no known password): 2\n  ana\n  ben\n"
            "drafts stored as in progress: 0\n") in printed
    assert f"skips stored: 1\n  task 2 ({second}) ben\nskips unchanged: 0\n" in printed
    assert "deletions: 0\nstored as in progress (incomplete): 0" in printed
    gone = copy.deepcopy(study["tasks"])
    gone[0]["annotations"] = []
    printed = "\n".join(summary_lines(pull(study, gone, allow_deletions=True), "ilq"))
    assert printed.startswith("nothing imported into ilq\n1 annotation(s) unchanged")
    assert (f"deletions: 1\n  task 1 ({first}) ana: the whole annotation (done; 1 edit(s))"
            in printed)
    printed = "\n".join(summary_lines(pull(study, gone), "ilq"))
    assert printed.startswith("nothing imported into ilq: the export matches the stored "
                              "work\n1 annotation(s) unchanged")


def _closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("command", [["pull", "ilq", "7"], ["pull", "ilq", "7", "--import"],
                                     ["push", "ilq", "--email-domain", "example.org"]])
def test_an_unreachable_server_is_one_line_naming_it_and_changes_nothing(env, study,
                                                                         command):
    from click.testing import CliRunner

    from annotator.cli import main

    url = f"http://127.0.0.1:{_closed_port()}"
    with study["database"].session() as session:
        before = row_counts(session)
    ran = CliRunner().invoke(main, ["labelstudio", *command, "--url", url, "--token", "t"])
    assert ran.exit_code == 1, ran.output
    assert f"cannot reach Label Studio at {url}: ConnectError" in ran.output
    assert "Traceback" not in ran.output and isinstance(ran.exception, SystemExit)
    with study["database"].session() as session:
        assert row_counts(session) == before
