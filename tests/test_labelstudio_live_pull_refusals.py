"""`annotator labelstudio pull`, round two (issue 43), against a real Label Studio server
(``scripts/with-labelstudio.sh``): a whole annotation deleted there, a relabel that leaves a
record incomplete, a draft on submitted work, two pulls in a row that change nothing, Thresh
ids unique after edits added in Label Studio, and the server's own JSON-MIN export of a
project with several regions per task."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from annotator.cli import main
from annotator.models import Assignment, AuditEvent, Document, User
from tests import test_labelstudio_live as live
from tests.helpers import INFOLOSSQA
from tests.test_labelstudio_live import _annotate, _deletion, _push, _tasks, run

server, study = live.server, live.study  # the live tests' fixtures: one server, one study

pytestmark = pytest.mark.labelstudio


def pull(server, *extra, project="trial"):
    return run(server, "labelstudio", "pull", project, *extra, "--import",
               "--email-domain", "example.org")


def state(database, project_id) -> dict:
    """Everything a pull that changes nothing must leave as it was."""
    with database.session() as session:
        work = {(a.document.external_id, a.user.username): (
            a.status, a.version, a.completed_at, a.seconds_spent,
            sorted((e.edit_type, e.version) for e in a.edits), len(a.ratings))
            for a in session.scalars(select(Assignment).join(Document).where(
                Document.project_id == project_id))}
        return {"work": work, "audit": session.scalar(select(func.count(AuditEvent.id)))}


def annotation_of(server, task_id: int) -> dict:
    [annotation] = server["http"].get(f"/api/tasks/{task_id}/annotations/").json()
    return annotation


def test_a_whole_annotation_deleted_in_label_studio_is_refused_then_listed(server, study):
    database, project_id = study
    ls_id = _push(server)
    task = _tasks(server, ls_id)["d1"]
    code, out = pull(server, ls_id)
    assert code == 0, out
    before = state(database, project_id)
    server["http"].delete(f"/api/annotations/{annotation_of(server, task['id'])['id']}/"
                          ).raise_for_status()
    code, out = pull(server, ls_id)
    assert code == 2, out
    assert (f"task {task['id']}, document 'd1', ana: the stored annotation (done; 2 edit(s)) "
            "is not in the export (deleted in Label Studio)") in out
    assert "--allow-deletions" in out and state(database, project_id) == before

    code, out = pull(server, ls_id, "--allow-deletions")
    assert code == 0, out
    assert (f"deletions: 1\n  task {task['id']} (d1) ana: the whole annotation (done; 2 "
            "edit(s))") in out
    with database.session() as session:
        ana = session.scalar(select(Assignment).join(Document).join(User).where(
            Document.project_id == project_id, Document.external_id == "d1",
            User.username == "ana"))
        assert (ana.status, len(ana.edits), ana.completed_at) == ("assigned", 0, None)
    after = state(database, project_id)
    for _ in range(2):  # the deletion is made: nothing more to delete or write
        code, out = pull(server, ls_id)
        assert code == 0 and "deletions: 0" in out and "nothing imported" in out, out
        assert state(database, project_id) == after


def test_a_relabel_that_leaves_a_record_incomplete_is_refused_or_stored_in_progress(
        server, study):
    database, project_id = study
    ls_id = _push(server)
    task = _tasks(server, ls_id)["d1"]
    code, out = pull(server, ls_id)
    assert code == 0, out
    before = state(database, project_id)
    assert before["work"][("d1", "ana")][0] == "done"
    # In the page: ana's deletion region becomes an oversimplification, which needs a
    # region on the simplification too; nobody marks one.
    annotation = annotation_of(server, task["id"])
    for r in annotation["result"]:
        if r["type"] == "labels" and r["value"]["labels"] == ["deletion"]:
            r["value"]["labels"] = ["oversimplification"]
    server["http"].patch(f"/api/annotations/{annotation['id']}/",
                         json={"result": annotation["result"]}).raise_for_status()
    code, out = pull(server, ls_id)
    assert code == 2, out
    assert (f"task {task['id']}, document 'd1', ana: the pull would make finished work "
            "incomplete: oversimplification region at source 14-21: Oversimplification #") in out
    assert "mark a span in the simplification" in out and "--allow-incomplete" in out
    assert state(database, project_id) == before

    code, out = pull(server, ls_id, "--allow-incomplete")
    assert code == 0, out
    assert "stored as in progress (incomplete): 1" in out and "(--allow-incomplete)" in out
    after = state(database, project_id)
    assert after["work"][("d1", "ana")][0] == "in_progress"
    for _ in range(2):  # two pulls in a row: nothing written, no version, no audit event
        code, out = pull(server, ls_id)
        assert code == 0, out
        assert "nothing imported into trial" in out, out
        assert state(database, project_id) == after


def test_a_draft_on_submitted_work_is_not_imported_and_said_so(server, study):
    database, project_id = study
    ls_id = _push(server)
    task = _tasks(server, ls_id)["d2"]
    mine = _annotate(server, task["id"], _deletion(0, 5, 2), lead_time=20.0)
    # The lead goes on working on the submitted task and leaves without submitting: Label
    # Studio keeps a draft beside the submission.
    response = server["http"].post(
        f"/api/tasks/{task['id']}/annotations/{mine['id']}/drafts", json={
        "result": _deletion(0, 5, 3, answer="Changed in the draft."), "lead_time": 5.0})
    assert response.status_code in (200, 201), response.text
    code, out = pull(server, ls_id)
    assert code == 0, out
    lead = out.split("drafts not imported: 1\n  ")[1].splitlines()[0]
    assert lead == (f"task {task['id']} (d2) lee: lee has submitted this task: the submitted "
                    "annotation is the work, the draft's changes are not imported"), out
    with database.session() as session:
        lee = session.scalar(select(Assignment).join(Document).join(User).where(
            Document.project_id == project_id, Document.external_id == "d2",
            User.username == "lee"))
        [edit] = lee.edits
        assert (lee.status, edit.fields["severity"]) == ("done", 2)  # the submission
    after = state(database, project_id)
    code, out = pull(server, ls_id, "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["drafts"]["ignored"] == [lead] and data["imported"]["records"] == 0
    assert data["skips"]["unchanged"] == ["task {} (d2) ben".format(task["id"])]
    assert state(database, project_id) == after


@pytest.fixture
def thresh_study(env, database, tmp_path, server):
    """Three of kathryn's InfoLossQA Thresh records (the authors' files) in a project made
    from the authors' typology; kathryn is a member of the Label Studio server."""
    folder = tmp_path / "kathryn"
    folder.mkdir()
    for path in sorted((INFOLOSSQA / "annotations" / "annotations-kathryn").glob(
            "*.json"))[:3]:
        shutil.copy(path, folder / path.name)
    runner = CliRunner()
    for args in (["project", "create", "ilq", "--schema", INFOLOSSQA / "config" / "thresh.yml"],
                 ["import", "ilq", folder, "--format", "thresh", "--annotator", "kathryn"]):
        done = runner.invoke(main, [str(a) for a in args])
        assert done.exit_code == 0, done.output
    if "kathryn@example.org" not in {u["email"] for u in server["http"].get(
            "/api/users/").json()}:
        server["http"].post("/api/users/", json={"email": "kathryn@example.org",
                                                 "username": "kathryn"}).raise_for_status()
    return folder


def thresh_records(folder) -> dict[str, dict]:
    done = CliRunner().invoke(main, ["export", "ilq", "--format", "thresh", "--out",
                                     str(folder)])
    assert done.exit_code == 0, done.output
    return {str(r["id"]): r for r in json.loads((folder / "kathryn.json").read_text())}


def test_thresh_ids_stay_unique_after_edits_added_in_label_studio(server, thresh_study,
                                                                 tmp_path):
    before = thresh_records(tmp_path / "before")
    code, out = run(server, "labelstudio", "push", "ilq", "--email-domain", "example.org")
    assert code == 0, out
    ls_id = int(out.split("Label Studio project ")[1].split()[0])
    http = server["http"]
    tasks = {t["data"]["document_id"]: t for t in http.get(
        "/api/tasks/", params={"project": ls_id, "fields": "all"}).json()["tasks"]}
    doc = next(d for d, r in sorted(before.items())
               if sum(e["category"] == "omission" for e in r["edits"]) >= 2)
    annotation = annotation_of(server, tasks[doc]["id"])
    source = tasks[doc]["data"]["original"]
    # kathryn adds an omission in the page: its region, question and answer.
    annotation["result"] += [
        {"id": "added", "from_name": "source_labels", "to_name": "source", "type": "labels",
         "value": {"start": 0, "end": 9, "text": source[:9], "labels": ["omission"]}},
        {"id": "added", "from_name": "source_omission_question", "to_name": "source",
         "type": "textarea", "value": {"text": ["What else?"]}},
        {"id": "added", "from_name": "source_omission_answer", "to_name": "source",
         "type": "textarea", "value": {"text": ["This."]}}]
    http.patch(f"/api/annotations/{annotation['id']}/",
               json={"result": annotation["result"]}).raise_for_status()
    code, out = pull(server, ls_id, project="ilq")
    assert code == 0, out
    after = thresh_records(tmp_path / "after")
    for record in after.values():
        ids = [(e["category"], e["id"]) for e in record["edits"]]
        assert len(ids) == len(set(ids)), ids
    authors = max(e["id"] for e in before[doc]["edits"] if e["category"] == "omission")
    [added] = [e for e in after[doc]["edits"] if e["annotation"].get("question") == "What else?"]
    assert added == {"category": "omission", "id": authors + 1, "input_idx": [[0, 9]],
                     "annotation": {"question": "What else?", "answer": "This."}}
    assert {k: r for k, r in after.items() if k != doc} == {
        k: r for k, r in before.items() if k != doc}
    code, out = pull(server, ls_id, project="ilq")
    assert code == 0 and "nothing imported into ilq" in out, out

    # The server's own JSON-MIN export of the same project: several regions per task, so
    # the answers' regions are ambiguous, and said so, never as a relabel.
    rows = http.get(f"/api/projects/{ls_id}/export", params={"exportType": "JSON_MIN"}).json()
    path = tmp_path / "min.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["project", "create", "ilq-min", "--schema",
                                str(INFOLOSSQA / "config" / "thresh.yml")]).exit_code == 0
    done = runner.invoke(main, ["import", "ilq-min", str(path), "--format", "labelstudio-min",
                                "--annotator", "kathryn", "--all-errors"])
    assert done.exit_code != 0
    assert "JSON-MIN cannot tell which of the" in done.output, done.output
    assert "is not a field of" not in done.output and "task None" not in done.output
