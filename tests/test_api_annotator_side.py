"""Server sides of the annotation page's undo, long texts, per-annotator edit numbers and
PlainFact's relation rule, through the Flask test client (SQLite or PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import select

from annotator.config import Config
from annotator.core.limits import current_limits, use_limits
from annotator.models import Suggestion, SuggestionAction
from tests.api_helpers import Api, doc_of, new_edit


def test_a_long_answer_fits_and_the_limit_is_named(app, study, ana):
    aid = study["assignments"]["ana"][0]
    made = new_edit(ana, aid)["edit"]
    answer = "word " * 5_000  # 25,000 characters
    r = ana.send(
        "PUT",
        f"/api/edits/{made['id']}",
        {"fields": {"question": "Q?", "answer": answer}, "version": made["version"]},
    )
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["edit"]["fields"]["answer"] == answer
    use_limits(replace(current_limits(), max_text_chars=30_000))  # the limits in effect
    r = ana.send(
        "PUT",
        f"/api/edits/{made['id']}",
        {"fields": {"answer": "x" * 30_001}, "version": r.get_json()["edit"]["version"]},
    )
    assert r.status_code == 422
    assert r.get_json()["problems"] == [
        {
            "field": "fields.answer",
            "message": "30,001 characters; the limit is 30,000 (ANNOTATOR_MAX_TEXT_CHARS)",
        }
    ]
    assert ana.get(f"/api/assignments/{aid}").get_json()["limits"] == {"text": 30_000}


def test_the_text_limit_comes_from_the_environment():
    assert Config.from_env({"ANNOTATOR_MAX_TEXT_CHARS": "5000"}).limits.max_text_chars == 5000
    assert Config.from_env({}).limits.max_text_chars == 200_000
    with pytest.raises(ValueError, match="ANNOTATOR_MAX_TEXT_CHARS='lots'"):
        Config.from_env({"ANNOTATOR_MAX_TEXT_CHARS": "lots"})


def test_a_span_only_change_is_a_new_version(study, ana):
    aid = study["assignments"]["ana"][0]
    made = new_edit(ana, aid)["edit"]
    r = ana.send(
        "PUT",
        f"/api/edits/{made['id']}",
        {"spans": [{"side": "source", "start": 0, "end": 4}], "version": made["version"]},
    )
    assert r.status_code == 200 and r.get_json()["edit"]["version"] == made["version"] + 1
    stale = ana.send("PUT", f"/api/edits/{made['id']}", {"spans": [], "version": made["version"]})
    assert stale.status_code == 409


def test_an_accept_can_be_withdrawn(app, study, database, ana):
    aid = study["assignments"]["ana"][0]
    doc = doc_of(database, aid)
    with database.session() as session:
        s = Suggestion(
            document_id=doc["id"],
            kind="deletion",
            method="t",
            score=0.9,
            explanation="x",
            source_spans=[[0, 8]],
            target_spans=[],
        )
        session.add(s)
        session.commit()
        sid = s.id
    made = new_edit(ana, aid, suggestion_id=sid)["edit"]
    url = f"/api/assignments/{aid}/suggestions/{sid}"
    assert ana.send("POST", url, {"action": "accepted", "edit_id": made["id"]}).status_code == 200
    r = ana.send("POST", url, {"action": None})
    assert r.status_code == 200 and r.get_json()["action"] is None
    with database.session() as session:
        assert session.scalars(select(SuggestionAction)).all() == []
    assert ana.send("POST", url, {"action": "maybe"}).status_code == 422


def test_edit_numbers_in_the_missing_list_are_per_annotator(study, ana, ben):
    a_ana, a_ben = study["assignments"]["ana"][0], study["assignments"]["ben"][0]
    for _ in range(3):
        new_edit(ana, a_ana)
    new_edit(ben, a_ben, fields={"question": "Why?"})
    version = ben.get(f"/api/assignments/{a_ben}").get_json()["assignment"]["version"]
    r = ben.send("POST", f"/api/assignments/{a_ben}/status", {"status": "done", "version": version})
    assert r.status_code == 422
    assert [m["message"] for m in r.get_json()["missing"]] == ["Deletion #1: Answer is required"]


def test_plainfact_refuses_external_with_a_sentence_number(app, database):
    from annotator.models import Assignment, Document, Project, User
    from annotator.operations.demo import DEMO_USERS, create_demo

    with database.session() as session:
        create_demo(session, with_work=False)  # evaluation projects only: no release to cut
        project = session.scalar(select(Project).where(Project.name == "demo-plainfact"))
        aid = session.scalar(
            select(Assignment.id)
            .join(Document)
            .join(User)
            .where(Document.project_id == project.id, User.username == "ana")
            .order_by(Assignment.id)
        )
    api = Api.__new__(Api)
    api.client = app.test_client()
    from tests.conftest import csrf_token, login

    login(api.client, "ana", {n: p for n, _, p in DEMO_USERS}["ana"])
    api.token = csrf_token(api.client, "/my")
    url = f"/api/assignments/{aid}/ratings"
    body = {"level": "sentence", "item": "0", "field": "relation", "version": None}
    r = api.send("PUT", url, {**body, "value": ["external", 2]})
    assert r.status_code == 422
    assert "'external' cannot go with original sentence numbers (2)" in r.get_json()["message"]
    assert api.send("PUT", url, {**body, "value": ["external"]}).status_code == 200


def test_two_first_saves_at_once_do_not_conflict(database, study):
    """Two ratings chosen in quick succession on a fresh document reach the server as two
    requests that both read the assignment as "assigned": marking it started must not make
    the later one stale (it used to lock the page with a conflict)."""
    from annotator.annotate.store import create_edit
    from annotator.models import Assignment

    aid = study["assignments"]["ana"][0]
    users = study["users"]
    body = {"edit_type": "deletion", "fields": {"question": "Q?"},
            "spans": [{"side": "source", "start": 0, "end": 8}]}
    with database.session() as first, database.session() as second:
        a1, a2 = first.get(Assignment, aid), second.get(Assignment, aid)
        assert a1.status == a2.status == "assigned"
        create_edit(first, a1, body, users["ana"])
        first.commit()
        create_edit(second, a2, body, users["ana"])
        second.commit()
    with database.session() as session:
        a = session.get(Assignment, aid)
        assert a.status == "in_progress" and a.started_at is not None and len(a.edits) == 2
