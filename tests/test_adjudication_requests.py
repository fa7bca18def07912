"""The adjudication endpoints: a GET never writes (freezing the grouping is its own POST),
and decision bodies are checked key by key (422 naming the key) before any domain code."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.models import AdjudicationDecision, AdjudicationState
from tests.conftest import csrf_token, login


@pytest.fixture
def lead(app, users):
    app.config["ADJUDICATION_EMBEDDINGS"] = False  # overlap-only grouping: no model here
    client = app.test_client()
    login(client, "lee")
    return client, csrf_token(client, "/projects/")


def _rows(database):
    with database.session() as session:
        return (session.scalar(select(func.count(AdjudicationDecision.id))),
                session.scalar(select(func.count(AdjudicationState.id))))


def test_reading_the_state_writes_nothing_and_the_page_freezes_by_post(lead, database,
                                                                      qa_study):  # noqa: F811
    client, token = lead
    pid, doc, e = qa_study["project_id"], qa_study["docs"]["q1"], qa_study["edits"]
    base = f"/projects/{pid}/adjudicate/{doc}"
    before = _rows(database)
    for _ in range(2):
        state = client.get(f"{base}/state").get_json()
        assert [u["edit_ids"] for u in state["units"]] == [[e["e1"], e["e2"]], [e["e3"]]]
        assert state["state"] == {"status": "open", "round": 1, "ready": True, "version": 0}
    assert _rows(database) == before
    assert client.post(f"{base}/grouping").status_code == 400  # a write: CSRF token needed
    frozen = client.post(f"{base}/grouping", headers={"X-CSRFToken": token}).get_json()
    assert [u["edit_ids"] for u in frozen["units"]] == [[e["e1"], e["e2"]], [e["e3"]]]
    assert [h["kind"] for h in frozen["history"]] == ["regroup"]
    assert _rows(database) == (before[0] + 1, before[1] + 1)
    client.post(f"{base}/grouping", headers={"X-CSRFToken": token})
    assert _rows(database) == (before[0] + 1, before[1] + 1)  # frozen once


@pytest.mark.parametrize("body,field,message", [
    ({"action": "accept", "edit_ids": [1, 2]}, "edit_id", "required: an integer id"),
    ({"action": "accept", "edit_ids": "1,2", "edit_id": 1}, "edit_ids", "a list of integer"),
    ({"action": "undo", "decision_id": "7"}, "decision_id", "expected an integer id"),
    ({"action": "regroup", "groups": [[1], ["2"]]}, "groups", "lists of integer ids"),
    ({"action": "route", "keys": "pair|1|x"}, "keys", "a list of texts"),
    ({"action": "reopen", "reset": "yes"}, "reset", "true or false"),
    ({"action": "complete", "note": 5}, "note", "expected text"),
])
def test_malformed_decision_bodies_are_refused_by_key(lead, database, qa_study, body, field,
                                                      message):  # noqa: F811
    client, token = lead
    pid, doc = qa_study["project_id"], qa_study["docs"]["q1"]
    before = _rows(database)
    answer = client.post(f"/projects/{pid}/adjudicate/{doc}/decisions", json=body,
                         headers={"X-CSRFToken": token})
    assert answer.status_code == 422
    (problem,) = answer.get_json()["problems"]
    assert problem["field"] == field and message in problem["message"]
    assert _rows(database) == before
