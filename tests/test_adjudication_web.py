"""The adjudication pages over HTTP: access (404 for another project's lead), CSRF on every
POST, decisions through the JSON endpoint, the release browser and safe downloads, the
third annotator's tie-break page."""

from __future__ import annotations

import pytest

from annotator.study.accounts import create_user
from tests.conftest import PASSWORD, csrf_token, login, run_queued_jobs


@pytest.fixture
def web_app(app):
    app.config["ADJUDICATION_EMBEDDINGS"] = False  # overlap-only grouping: no model here
    return app


def lead_client(web_app, username="lee"):
    client = web_app.test_client()
    login(client, username)
    return client, csrf_token(client, "/projects/")


def test_queue_and_view_are_for_the_projects_lead_only(web_app, database, qa_study):
    pid, doc = qa_study["project_id"], qa_study["docs"]["q1"]
    with database.session() as session:
        create_user(session, "lea", PASSWORD, "lead")
    client, _ = lead_client(web_app)
    page = client.get(f"/projects/{pid}/adjudicate")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'data-document="q1"' in html and 'data-document="q3"' not in html
    assert html.index('data-document="q1"') < html.index('data-document="q2"')
    assert client.get(f"/projects/{pid}/adjudicate/{doc}").status_code == 200
    other, _ = lead_client(web_app, "lea")
    for path in (f"/projects/{pid}/adjudicate", f"/projects/{pid}/adjudicate/{doc}",
                 f"/projects/{pid}/adjudicate/{doc}/state", f"/projects/{pid}/releases"):
        assert other.get(path).status_code == 404, path
    annotator = web_app.test_client()
    login(annotator, "ana")
    assert annotator.get(f"/projects/{pid}/adjudicate").status_code == 403


def test_decisions_need_csrf_and_return_the_new_state(web_app, qa_study):
    pid, doc, e = qa_study["project_id"], qa_study["docs"]["q1"], qa_study["edits"]
    client, token = lead_client(web_app)
    state = client.get(f"/projects/{pid}/adjudicate/{doc}/state").get_json()
    assert [u["edit_ids"] for u in state["units"]] == [[e["e1"], e["e2"]], [e["e3"]]]
    assert [a["name"] for a in state["annotators"]] == ["ana", "ben"]
    url = f"/projects/{pid}/adjudicate/{doc}/decisions"
    body = {"action": "accept", "edit_ids": [e["e1"], e["e2"]], "edit_id": e["e1"]}
    assert client.post(url, json=body).status_code == 400  # no CSRF token
    ok = client.post(url, json=body, headers={"X-CSRFToken": token})
    assert ok.status_code == 200
    assert ok.get_json()["units"][0]["decision"]["kind"] == "accept"
    again = client.post(url, json=body, headers={"X-CSRFToken": token})
    assert again.status_code == 409 and "decided already" in again.get_json()["message"]
    bad = client.post(url, json={"action": "drop"}, headers={"X-CSRFToken": token})
    assert bad.status_code == 400


def test_release_browser_cuts_lists_and_serves_files_safely(web_app, database, qa_study):
    pid, doc = qa_study["project_id"], qa_study["docs"]["q2"]
    client, token = lead_client(web_app)
    client.get(f"/projects/{pid}/adjudicate/{doc}/state")
    url = f"/projects/{pid}/adjudicate/{doc}/decisions"
    for body in ({"action": "auto"}, {"action": "complete"}):
        assert client.post(url, json=body, headers={"X-CSRFToken": token}).status_code == 200
    assert client.post(f"/projects/{pid}/releases", data={"version": "v1"}).status_code == 400
    page = client.post(f"/projects/{pid}/releases", data={
        "version": "v1", "notes": "pilot", "csrf_token": token}, follow_redirects=True)
    html = page.get_data(as_text=True)
    assert "Release v1 queued" in html
    assert 'class="release-pending" data-version="v1" data-state="queued"' in html
    assert "gold.jsonl" not in html  # not built yet
    pending = client.post(f"/projects/{pid}/releases", data={"version": "v1", "csrf_token": token},
                          follow_redirects=True).get_data(as_text=True)
    assert "Release refused" in pending and "being built already" in pending
    status = client.get(f"/projects/{pid}/releases/status").get_json()
    assert [(r["version"], r["state"]) for r in status["in_progress"]] == [("v1", "queued")]
    assert status["stored"] == []
    assert run_queued_jobs(database) >= 1  # any worker builds it (and the import's jobs)
    status = client.get(f"/projects/{pid}/releases/status").get_json()
    assert status["in_progress"] == [] and status["stored"] == ["v1"]
    html = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert 'data-version="v1"' in html and "gold.jsonl" in html
    assert "1 of 3 documents" in html and "2 excluded" in html
    assert "release-pending" not in html
    got = client.get(f"/projects/{pid}/releases/v1/gold.jsonl")
    assert got.status_code == 200 and b'"id":"q2"' in got.data
    assert "attachment" in got.headers["Content-Disposition"]
    for bad in ("../../../etc/passwd", "..%2F..%2Fsecret_key", "annotations/../../x"):
        assert client.get(f"/projects/{pid}/releases/v1/{bad}").status_code == 404
    refused = client.post(f"/projects/{pid}/releases", data={"version": "v1", "csrf_token": token},
                          follow_redirects=True).get_data(as_text=True)
    assert "Release refused" in refused and "exists already" in refused


def test_tiebreak_page_only_for_the_third_annotator(web_app, database, factuality_study):
    pid, doc = factuality_study["project_id"], factuality_study["document_id"]
    client, token = lead_client(web_app)
    url = f"/projects/{pid}/adjudicate/{doc}/decisions"
    client.get(f"/projects/{pid}/adjudicate/{doc}/state")
    state = client.post(url, json={"action": "route", "keys": ["pair|1|insertion"]},
                        headers={"X-CSRFToken": token}).get_json()
    (assignment_id,) = state["tiebreak_assignments"]
    ana = web_app.test_client()
    login(ana, "ana")
    assert ana.get(f"/tiebreak/{assignment_id}").status_code == 404
    cy = web_app.test_client()
    login(cy, "cy")
    page = cy.get(f"/tiebreak/{assignment_id}").get_data(as_text=True)
    assert "Tumours grew, doctors said." in page and 'name="pair|1|insertion"' in page
    assert 'name="pair|1|deletion"' not in page  # only the routed item
    cy_token = csrf_token(cy, f"/tiebreak/{assignment_id}")
    cy.post(f"/tiebreak/{assignment_id}", data={"pair|1|insertion": "2", "csrf_token": cy_token})
    state = client.post(url, json={"action": "auto"}, headers={"X-CSRFToken": token}).get_json()
    row = next(r for r in state["ratings"] if r["key"] == "pair|1|insertion")
    assert row["tiebreak"] == {"cy": 2} and row["gold"]["method"] == "tiebreak"
