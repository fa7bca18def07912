"""`annotator labelstudio push|pull` against a real Label Studio server, started by
``scripts/with-labelstudio.sh`` (``make test`` runs the suite through it). These tests fail,
never skip, when no server is given: a green run has always talked to Label Studio."""

from __future__ import annotations

import json
import os

import httpx
import pytest
from click.testing import CliRunner
from playwright.sync_api import expect
from sqlalchemy import select

from annotator.cli import main
from annotator.models import Assignment, Document, User
from annotator.study.accounts import create_user
from annotator.study.projects import create_project
from tests.helpers import write_jsonl
from tests.waiting import wait_until

pytestmark = pytest.mark.labelstudio

SOURCE = ("Mice received 5 mg/kg of the drug i.v. daily for 14 days in a randomised, "
          "double-blind trial.")
TARGET = "Mice got a drug every day for two weeks."
SOURCE_2 = "Serum 25(OH)D level <30 ng/ml was found in 40% of the 120 patients."
TARGET_2 = "Many patients had low vitamin D levels."


@pytest.fixture(scope="module")
def server():
    url = os.environ.get("ANNOTATOR_TEST_LABELSTUDIO_URL")
    token = os.environ.get("ANNOTATOR_TEST_LABELSTUDIO_TOKEN")
    if not url or not token:
        pytest.fail("no Label Studio server: run the tests through "
                    "scripts/with-labelstudio.sh (make test does)")
    http = httpx.Client(base_url=url, headers={"Authorization": f"Token {token}"},
                        timeout=60)
    me = http.get("/api/current-user/whoami").raise_for_status().json()
    known = {u["email"] for u in http.get("/api/users/").raise_for_status().json()}
    for email in ("ana@example.org", "ben@example.org"):
        if email not in known:  # a lead invites the annotators to Label Studio
            http.post("/api/users/", json={"email": email, "username": email.split("@")[0],
                                           "first_name": email.split("@")[0]}
                      ).raise_for_status()
    yield {"url": url, "token": token, "http": http, "me": me,
           "email": os.environ.get("ANNOTATOR_TEST_LABELSTUDIO_EMAIL"),
           "password": os.environ.get("ANNOTATOR_TEST_LABELSTUDIO_PASSWORD")}
    http.close()


def run(server, *args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False,
                                env={"LABEL_STUDIO_URL": server["url"],
                                     "LABEL_STUDIO_API_KEY": server["token"]})
    return result.exit_code, result.output


def ls_projects(server) -> list[dict]:
    body = server["http"].get("/api/projects/", params={"page_size": 1000}).json()
    return body["results"] if isinstance(body, dict) else body


@pytest.fixture
def study(env, database, tmp_path):
    """An InfoLossQA project with two documents; ana (e-mail on her account) annotated
    d1, ben (no e-mail: --email-domain) skipped d2; the lead has an account with the
    e-mail Label Studio knows them by."""
    write_jsonl(tmp_path / "docs.jsonl", [{"id": "d1", "source": SOURCE, "target": TARGET},
                                          {"id": "d2", "source": SOURCE_2,
                                           "target": TARGET_2}])
    with database.session() as session:
        project = create_project(session, "trial", "infolossqa")
        ana = create_user(session, "ana", "pw-ana-123456", "annotator")
        ana.email = "ana@example.org"
        create_user(session, "ben", "pw-ben-123456", "annotator")
        lead = create_user(session, "lee", "pw-lee-123456", "lead")
        lead.email = os.environ.get("ANNOTATOR_TEST_LABELSTUDIO_EMAIL", "lead@annotator.test")
        session.commit()
        project_id = project.id
    assert CliRunner().invoke(main, ["import", "trial", str(tmp_path / "docs.jsonl")]
                              ).exit_code == 0
    # ana's work: a deletion with question, answer and severity; an oversimplification
    # with a span on each side.
    full = [{"id": 1, "data": {"document_id": "d1", "source": SOURCE, "target": TARGET},
             "annotations": [{"completed_by": {"email": "ana@example.org"},
                              "lead_time": 321.5, "result": [
                 {"id": "a", "from_name": "source_labels", "to_name": "source",
                  "type": "labels", "value": {"start": 14, "end": 21, "labels": ["deletion"]}},
                 {"id": "a", "from_name": "source_question", "to_name": "source",
                  "type": "textarea", "value": {"text": ["How much drug did the mice get?"]}},
                 {"id": "a", "from_name": "source_answer", "to_name": "source",
                  "type": "textarea", "value": {"text": ["5 mg per kg."]}},
                 {"id": "a", "from_name": "source_severity", "to_name": "source",
                  "type": "rating", "value": {"rating": 2}},
                 {"id": "b", "from_name": "source_labels", "to_name": "source",
                  "type": "labels", "value": {"start": 62, "end": 92,
                                              "labels": ["oversimplification"]}},
                 {"id": "c", "from_name": "target_labels", "to_name": "target",
                  "type": "labels", "value": {"start": 0, "end": 4,
                                              "labels": ["oversimplification"]}},
                 {"type": "relation", "from_id": "b", "to_id": "c", "direction": "right"},
                 {"id": "c", "from_name": "target_question", "to_name": "target",
                  "type": "textarea", "value": {"text": ["What kind of study was it?"]}},
                 {"id": "c", "from_name": "target_answer", "to_name": "target",
                  "type": "textarea", "value": {"text": ["A randomised, double-blind trial."]}},
             ]}]},
            {"id": 2, "data": {"document_id": "d2", "source": SOURCE_2, "target": TARGET_2},
             "annotations": [{"completed_by": {"email": "ben"}, "lead_time": 12.0,
                              "was_cancelled": True, "result": []}]}]
    path = tmp_path / "work.json"
    path.write_text(json.dumps(full))
    imported = CliRunner().invoke(main, ["import", "trial", str(path), "--format",
                                         "labelstudio"])
    assert imported.exit_code == 0, imported.output
    return database, project_id


def test_push_refuses_unknown_people_before_creating_anything(server, study):
    before = len(ls_projects(server))
    code, out = run(server, "labelstudio", "push", "trial")  # ben has no e-mail
    assert code != 0 and "no e-mail for: ben" in out
    code, out = run(server, "labelstudio", "push", "trial", "--email-domain", "nowhere.test")
    assert code != 0 and "no member with the e-mail of: ben (ben@nowhere.test)" in out
    assert "nothing was created" in out
    assert len(ls_projects(server)) == before


def _push(server) -> int:
    code, out = run(server, "labelstudio", "push", "trial", "--email-domain", "example.org")
    assert code == 0, out
    return int(out.split("Label Studio project ")[1].split()[0])


def _tasks(server, ls_id) -> dict[str, dict]:
    body = server["http"].get("/api/tasks/", params={"project": ls_id, "fields": "all"}).json()
    tasks = body["tasks"] if isinstance(body, dict) else body
    return {t["data"]["document_id"]: t for t in tasks}


def test_push_files_every_annotation_under_its_member(server, study):
    ls_id = _push(server)
    members = {u["id"]: u["email"] for u in server["http"].get("/api/users/").json()}
    tasks = _tasks(server, ls_id)
    assert set(tasks) == {"d1", "d2"}
    first = server["http"].get(f"/api/tasks/{tasks['d1']['id']}/annotations/").json()
    assert [members[a["completed_by"]] for a in first] == ["ana@example.org"]
    assert first[0]["lead_time"] == pytest.approx(321.5)
    kinds = {(r.get("from_name"), r["type"]) for r in first[0]["result"]}
    assert {("source_severity", "rating"), ("source_question", "textarea"),
            ("target_labels", "labels"), (None, "relation")} <= kinds
    # The annotations list hides cancelled work; the export has it.
    export = server["http"].get(f"/api/projects/{ls_id}/export",
                                params={"exportType": "JSON"}).json()
    second = next(t for t in export if t["data"]["document_id"] == "d2")["annotations"]
    assert [(members[a["completed_by"]], a["was_cancelled"], a["lead_time"])
            for a in second] == [("ben@example.org", True, 12.0)]


def _annotate(server, task_id: int, result: list, **extra) -> dict:
    """What the labeling page sends when the lead submits (or skips) a task."""
    response = server["http"].post(f"/api/tasks/{task_id}/annotations/",
                                   json={"result": result, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def _deletion(start, end, severity, question="What was left out?", answer="The dose."):
    return [{"id": "r1", "from_name": "source_labels", "to_name": "source", "type": "labels",
             "value": {"start": start, "end": end, "text": SOURCE[start:end],
                       "labels": ["deletion"]}},
            {"id": "r1", "from_name": "source_question", "to_name": "source",
             "type": "textarea", "value": {"start": start, "end": end,
                                           "text": [question]}},
            {"id": "r1", "from_name": "source_answer", "to_name": "source", "type": "textarea",
             "value": {"start": start, "end": end, "text": [answer]}},
            # A per-region rating carries the region's text too: the answer is `rating`.
            {"id": "r1", "from_name": "source_severity", "to_name": "source", "type": "rating",
             "value": {"start": start, "end": end, "text": SOURCE[start:end],
                       "rating": severity}}]


def test_work_done_in_label_studio_comes_back_with_identity_status_and_time(server, study):
    database, project_id = study
    ls_id = _push(server)
    tasks = _tasks(server, ls_id)
    mine = _annotate(server, tasks["d1"]["id"], _deletion(14, 21, 3), lead_time=95.25)
    _annotate(server, tasks["d2"]["id"], [], was_cancelled=True, lead_time=4.0)

    code, out = run(server, "labelstudio", "pull", "trial", ls_id, "--import",
                        "--email-domain", "example.org")
    assert code == 0, out
    with database.session() as session:
        work = {(a.document.external_id, a.user.username): a for a in session.scalars(
            select(Assignment).join(Document).where(Document.project_id == project_id))}
        assert set(work) == {("d1", "ana"), ("d1", "lee"), ("d2", "ben"), ("d2", "lee")}
        lee = work[("d1", "lee")]
        assert (lee.status, lee.seconds_spent) == ("done", pytest.approx(95.25))
        [edit] = lee.edits
        assert edit.edit_type == "deletion" and edit.fields == {
            "question": "What was left out?", "answer": "The dose.", "severity": 3}
        assert [(s.side, s.start, s.end) for s in edit.spans] == [("source", 14, 21)]
        assert work[("d2", "lee")].status == "skipped"
        assert work[("d2", "ben")].status == "skipped"
        assert (work[("d1", "ana")].status, len(work[("d1", "ana")].edits)) == ("done", 2)
        # Nobody new: the work landed on the accounts with the members' e-mails.
        assert not session.scalars(select(User).where(User.username.like("ls-user%"))).all()

    # More work in Label Studio: the lead revises the annotation. A second pull updates it;
    # nothing is duplicated or refused, and a third pull changes nothing.
    server["http"].patch(f"/api/annotations/{mine['id']}/", json={
        "result": _deletion(0, 4, 1, answer="Five mg per kg."), "lead_time": 130.0}
    ).raise_for_status()
    for _ in range(2):
        code, out = run(server, "labelstudio", "pull", "trial", ls_id, "--import",
                        "--email-domain", "example.org")
        assert code == 0, out
        with database.session() as session:
            lee = session.scalar(select(Assignment).join(Document).join(User).where(
                Document.project_id == project_id, Document.external_id == "d1",
                User.username == "lee"))
            assert lee.seconds_spent == pytest.approx(130.0)
            [edit] = lee.edits
            assert (edit.fields["severity"], edit.fields["answer"]) == (1, "Five mg per kg.")
            assert [(s.start, s.end) for s in edit.spans] == [(0, 4)]
            assert session.query(Assignment).count() == 4


def test_a_draft_in_label_studio_comes_back_in_progress(server, study):
    database, project_id = study
    ls_id = _push(server)
    task_id = _tasks(server, ls_id)["d2"]["id"]
    response = server["http"].post(f"/api/tasks/{task_id}/drafts", json={
        "result": _deletion(0, 5, 2), "lead_time": 33.0})
    assert response.status_code in (200, 201), response.text
    code, out = run(server, "labelstudio", "pull", "trial", ls_id, "--import",
                        "--email-domain", "example.org")
    assert code == 0, out
    with database.session() as session:
        lee = session.scalar(select(Assignment).join(Document).join(User).where(
            Document.project_id == project_id, Document.external_id == "d2",
            User.username == "lee"))
        assert lee.status == "in_progress" and len(lee.edits) == 1


def _open_task(page, url: str, within: float = 60.0) -> str:
    """The labeling page's text once both texts show. Label Studio's data manager sometimes
    first answers "Import data to get your project started" for a project pushed a moment
    ago (its task count lags behind the tasks); a reload then shows the task."""
    page.goto(url)

    def both_texts():
        body = page.inner_text("body")
        if SOURCE[:40] in body and TARGET in body:
            return body
        if "Import data to get your project started" in body:
            page.reload()
        return None

    return wait_until(both_texts, within, "the labeling page to show both texts", interval=0.5)


@pytest.mark.browser
def test_labeling_page_shows_both_texts_and_region_inputs_on_either_side(server, study,
                                                                        chromium):
    # The session's one Chromium (tests/conftest.py): a second Playwright instance cannot
    # start inside the first one's event loop.
    ls_id = _push(server)
    task_id = _tasks(server, ls_id)["d1"]["id"]
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.goto(f"{server['url']}/user/login")
        page.fill("input[name=email]", server["email"])
        page.fill("input[name=password]", server["password"])
        page.click("button[type=submit]")
        page.wait_for_load_state("networkidle")
        body = _open_task(page, f"{server['url']}/projects/{ls_id}/data?task={task_id}")
        assert SOURCE[:40] in body and TARGET in body
        assert '"document_id"' not in body  # the texts, not the task's JSON
        os.makedirs("test-artifacts", exist_ok=True)
        page.screenshot(path="test-artifacts/labelstudio-labeling-page.png")
        inputs = page.locator("input[type=text]:visible, textarea:visible")
        assert inputs.count() == 0  # per-region inputs wait for a region
        assert page.get_by_text("How much drug did the mice get?", exact=True).count() == 0
        for text, side in (("5 mg/kg", "source"), ("Mice", "target")):
            # Select ana's region on this side: its per-region inputs must show.
            page.locator(".htx-highlight", has_text=text).first.click()
            inputs.first.wait_for(timeout=20_000)
            if side == "source":
                # ana's answers show as given (single submission) in the region's inputs
                # and in its details; the comment is still open.
                for given in ("How much drug did the mice get?", "5 mg per kg."):
                    assert page.get_by_text(given, exact=True).count() >= 2, given
                assert inputs.count() >= 1
            else:
                # ana's oversimplification spans both texts: its simplification region
                # shows the edit's own answers, not empty boxes (issue 32); the comment
                # is still open.
                for given in ("What kind of study was it?",
                              "A randomised, double-blind trial."):
                    assert page.get_by_text(given, exact=True).count() >= 2, given
                assert inputs.count() >= 1
            page.screenshot(path=f"test-artifacts/labelstudio-region-{side}.png")
            page.keyboard.press("Escape")
            expect(inputs).to_have_count(0, timeout=20_000)  # the region let go
    finally:
        context.close()


def test_a_study_made_from_its_own_config_goes_to_label_studio_and_back(server, env, tmp_path):
    """The InfoLossQA rating study (its own labeling config, aliases, rationales) pushed to a
    real server and pulled back unchanged."""
    from tests.helpers import INFOLOSSQA_CONFIG as CONFIG
    from tests.helpers import INFOLOSSQA_FILES as FILES

    http = server["http"]
    known = {u["email"] for u in http.get("/api/users/").json()}
    for name in ("kathryn", "keziah"):
        if f"{name}@example.org" not in known:
            http.post("/api/users/", json={"email": f"{name}@example.org", "username": name}
                      ).raise_for_status()
    runner = CliRunner()
    assert runner.invoke(main, ["project", "create", "acc", "--schema",
                                str(CONFIG["accuracy"])]).exit_code == 0
    for rater, path in FILES["accuracy"].items():
        part = tmp_path / f"{rater}.json"
        part.write_text(json.dumps(json.loads(path.read_text())[:3]))
        done = runner.invoke(main, ["import", "acc", str(part), "--format", "labelstudio-min",
                                    "--item-key", "edit_id", "--annotator", rater])
        assert done.exit_code == 0, done.output
    before = _ratings(env)
    code, out = run(server, "labelstudio", "push", "acc", "--email-domain", "example.org")
    assert code == 0, out
    ls_id = int(out.split("Label Studio project ")[1].split()[0])
    config = http.get(f"/api/projects/{ls_id}").json()["label_config"]
    assert 'alias="givenness_phrasing_2"' in config  # the study's own config
    code, out = run(server, "labelstudio", "pull", "acc", ls_id, "--import", "--item-key",
                    "edit_id", "--email-domain", "example.org")
    assert code == 0, out
    after = _ratings(env)
    assert after == before and len(before) == 6
    assert all(len(v) >= 9 for v in after.values())  # nine criteria and the rationales


def _ratings(env) -> dict:
    from annotator.db import Database
    from annotator.models import Rating

    database = Database(env["ANNOTATOR_DATABASE_URL"])
    with database.session() as session:
        found = {}
        for a in session.scalars(select(Assignment)):
            found[(a.document.external_id, a.user.username)] = sorted(
                (g.field, g.value) for g in session.scalars(
                    select(Rating).where(Rating.assignment_id == a.id)))
    database.dispose()
    return found
