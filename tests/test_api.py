"""The JSON API behind the annotation page, through the Flask test client."""

from __future__ import annotations

import json
import types

import pytest

from annotator.models import Assignment, Suggestion
from tests.api_helpers import Api, doc_of, new_edit
from tests.helpers import factuality_sentence_pairs


def test_annotators_never_see_each_others_work(app, study, database, ana, ben):
    a_ana, a_ben = study["assignments"]["ana"][0], study["assignments"]["ben"][0]
    doc = doc_of(database, a_ben)
    assert doc["id"] == doc_of(database, a_ana)["id"]       # the same document
    with database.session() as session:
        sugg = Suggestion(document_id=doc["id"], kind="deletion", method="t", score=0.9,
                          explanation="x", source_spans=[[0, 8]], target_spans=[])
        session.add(sugg)
        session.commit()
        sid = sugg.id
    secret = "BEN-ONLY-SECRET-QUESTION"
    bens = new_edit(ben, a_ben, fields={"question": secret, "answer": "x"})["edit"]
    assert ben.send("PUT", f"/api/assignments/{a_ben}/ratings",
                    {"level": "document", "item": "", "field": "x", "value": 1,
                     "version": None}).status_code == 422
    assert ben.send("POST", f"/api/assignments/{a_ben}/suggestions/{sid}",
                    {"action": "dismissed"}).status_code == 200
    new_edit(ana, a_ana)

    responses = [ana.get(f"/api/assignments/{a_ana}"), ana.get(f"/assignments/{a_ana}"),
                 ana.get("/my"), ana.get(f"/guidelines/{a_ana}")]
    for response in responses:
        assert secret not in response.get_data(as_text=True)
    own = responses[0].get_json()
    assert [e["fields"]["question"] for e in own["edits"]] == ["What dose?"]
    assert [s["action"] for s in own["suggestions"]] == [None]   # ben's dismissal is his

    # Every way at ben's work is a 404 for ana, reading or writing.
    assert ana.get(f"/api/assignments/{a_ben}").status_code == 404
    assert ana.get(f"/assignments/{a_ben}").status_code == 404
    assert ana.get(f"/guidelines/{a_ben}").status_code == 404
    for method, url, body in [
        ("PUT", f"/api/edits/{bens['id']}", {"version": bens["version"], "fields": {}}),
        ("DELETE", f"/api/edits/{bens['id']}?version={bens['version']}", None),
        ("POST", f"/api/assignments/{a_ben}/edits", {"edit_type": "deletion", "spans": []}),
        ("PUT", f"/api/assignments/{a_ben}/ratings", {"level": "pair", "item": "0", "field": "x"}),
        ("POST", f"/api/assignments/{a_ben}/suggestions/{sid}", {"action": "accepted"}),
        ("POST", f"/api/assignments/{a_ben}/time", {"seconds": 5}),
        ("POST", f"/api/assignments/{a_ben}/status", {"status": "done", "version": 1}),
    ]:
        response = ana.send(method, url, body)
        assert response.status_code == 404, (method, url)
        assert secret not in response.get_data(as_text=True)
    assert (
        ben.get(f"/api/assignments/{a_ben}").get_json()["edits"][0]["fields"]["question"] == secret
    )


def test_stale_versions_are_refused(study, ana):
    aid = study["assignments"]["ana"][0]
    created = new_edit(ana, aid)["edit"]
    first = ana.send(
        "PUT",
        f"/api/edits/{created['id']}",
        {"version": created["version"], "fields": {"question": "Newer?", "answer": "a"}},
    )
    assert first.status_code == 200
    assert first.get_json()["edit"]["version"] == created["version"] + 1
    stale = ana.send("PUT", f"/api/edits/{created['id']}",
                     {"version": created["version"], "fields": {"question": "Older"}})
    assert stale.status_code == 409
    body = stale.get_json()
    assert body["error"] == "conflict" and body["current"]["fields"]["question"] == "Newer?"
    assert (
        ana.send("DELETE", f"/api/edits/{created['id']}?version={created['version']}").status_code
        == 409
    )
    assert ana.send("PUT", f"/api/edits/{created['id']}", {"fields": {}}).status_code == 422

    state = ana.get(f"/api/assignments/{aid}").get_json()
    assert state["edits"][0]["fields"]["question"] == "Newer?"
    version = state["assignment"]["version"]
    assert ana.send("POST", f"/api/assignments/{aid}/status",
                    {"status": "done", "version": version - 1}).status_code == 409
    deleted = ana.send("DELETE", f"/api/edits/{created['id']}?version={created['version'] + 1}")
    assert deleted.status_code == 200 and deleted.get_json()["deleted"] == created["id"]


def test_rating_versions(app, database, users, tmp_path):
    aid = factuality_sentence_pairs(database, users, tmp_path)[0]
    api = Api(app, "ana")
    url = f"/api/assignments/{aid}/ratings"
    body = {"level": "pair", "item": "0", "field": "insertion", "value": 1, "version": None}
    first = api.send("PUT", url, body)
    assert first.status_code == 200
    rating = first.get_json()["rating"]
    assert api.send("PUT", url, body).status_code == 409              # a second "new" one
    ok = api.send("PUT", url, {**body, "value": -1, "version": rating["version"]})
    assert ok.status_code == 200 and ok.get_json()["rating"]["value"] == -1
    assert (
        api.send("PUT", url, {**body, "value": 2, "version": rating["version"]}).status_code == 409
    )
    bad = api.send("PUT", url, {**body, "value": 5, "version": rating["version"] + 1})
    assert bad.status_code == 422 and bad.get_json()["error"] == "invalid"


@pytest.mark.parametrize(
    "change, field",
    [
        ({"spans": [{"side": "source", "start": 0, "end": 10_000}]}, "spans[0]"),
        ({"spans": [{"side": "source", "start": 5, "end": 5}]}, "spans[0]"),
        (
            {"spans": [{"side": "target", "start": 0, "end": 4}]},
            "spans[0].side",
        ),  # deletion: original only
        ({"fields": {"severity": 7}}, "fields.severity"),
        ({"fields": {"colour": "red"}}, "fields.colour"),
        ({"edit_type": "nonsense"}, "edit_type"),
    ],
)
def test_invalid_edits_are_refused_with_problems(study, ana, change, field):
    aid = study["assignments"]["ana"][0]
    body = {"edit_type": "deletion", "fields": {}, "spans": []}
    body.update(change)
    response = ana.send("POST", f"/api/assignments/{aid}/edits", body)
    assert response.status_code == 422
    data = response.get_json()
    assert data["error"] == "invalid"
    assert [p["field"] for p in data["problems"]] == [field]
    assert ana.get(f"/api/assignments/{aid}").get_json()["edits"] == []


def test_astral_offsets_are_code_points(study, ana, database):
    aid = study["assignments"]["ana"][0]
    with database.session() as session:
        doc = session.get(Assignment, aid).document
        doc.source = "𝛼 and 😀 dose\r\n2 mg"
        session.commit()
    end = len("𝛼 and 😀 dose\r\n2 mg")
    assert end == 18                                   # code points, not UTF-16 units (20)
    ok = new_edit(ana, aid, spans=[{"side": "source", "start": 14, "end": end}])
    assert ok["edit"]["spans"] == [{"side": "source", "start": 14, "end": 18}]
    too_far = ana.send("POST", f"/api/assignments/{aid}/edits", {
        "edit_type": "deletion", "spans": [{"side": "source", "start": 14, "end": 20}]})
    assert too_far.status_code == 422


def test_done_is_blocked_until_complete(study, ana):
    aid = study["assignments"]["ana"][0]
    edit = new_edit(ana, aid, edit_type="oversimplification", fields={"question": "What dose?"},
                    spans=[{"side": "source", "start": 0, "end": 8}])
    assignment = edit["assignment"]
    assert assignment["status"] == "in_progress"
    refused = ana.send("POST", f"/api/assignments/{aid}/status",
                       {"status": "done", "version": assignment["version"]})
    assert refused.status_code == 422
    missing = refused.get_json()["missing"]
    assert {(m["edit_id"], m["field"]) for m in missing} == {
        (edit["edit"]["id"], "spans.target"), (edit["edit"]["id"], "answer")}
    assert all(m["message"] for m in missing)
    fixed = ana.send(
        "PUT",
        f"/api/edits/{edit['edit']['id']}",
        {
            "version": edit["edit"]["version"],
            "fields": {"question": "What dose?", "answer": "1.5 mg"},
            "spans": [
                {"side": "source", "start": 0, "end": 8},
                {"side": "target", "start": 0, "end": 8},
            ],
        },
    )
    assert fixed.status_code == 200
    done = ana.send("POST", f"/api/assignments/{aid}/status",
                    {"status": "done", "version": fixed.get_json()["assignment"]["version"]})
    assert done.status_code == 200 and done.get_json()["assignment"]["status"] == "done"
    # A done document takes no changes until it is reopened.
    assert ana.send("POST", f"/api/assignments/{aid}/edits",
                    {"edit_type": "deletion", "spans": []}).status_code == 409
    reopened = ana.send(
        "POST",
        f"/api/assignments/{aid}/status",
        {"status": "in_progress", "version": done.get_json()["assignment"]["version"]},
    )
    assert reopened.status_code == 200
    new_edit(ana, aid)


def test_time_accumulates_and_is_capped(study, ana, monkeypatch):
    # The server's clock, moved on by the test: the bound below is exact, not "less than
    # however long the test took".
    now = [1_800_000_000.0]
    monkeypatch.setattr("annotator.annotate.store.time", types.SimpleNamespace(time=lambda: now[0]))
    aid = study["assignments"]["ana"][0]
    url = f"/api/assignments/{aid}/time"
    assert ana.send("POST", url, {"seconds": 10_000}).get_json()["seconds_spent"] == 300
    # A heartbeat is credited at most the wall-clock time since the previous one.
    now[0] += 7
    assert ana.send("POST", url, {"seconds": 15}).get_json()["seconds_spent"] == 307
    now[0] += 20
    assert ana.send("POST", url, {"seconds": 15}).get_json()["seconds_spent"] == 322
    assert ana.send("POST", url, {"seconds": -3}).status_code == 422
    assert ana.send("POST", url, {"seconds": "5"}).status_code == 422
    state = ana.get(f"/api/assignments/{aid}").get_json()["assignment"]
    assert state["seconds_spent"] == 322
    assert state["version"] == 1                       # heartbeats never make saves stale


def test_leads_read_but_never_write(app, study, ana):
    aid = study["assignments"]["ana"][0]
    edit = new_edit(ana, aid)["edit"]
    lee = Api(app, "lee")
    view = lee.get(f"/api/assignments/{aid}")
    assert view.status_code == 200
    data = view.get_json()
    assert data["read_only"] is True and data["assignment"]["user"] == "ana"
    assert len(data["edits"]) == 1
    assert ana.get(f"/api/assignments/{aid}").get_json()["read_only"] is False
    for method, url, body in [
        ("POST", f"/api/assignments/{aid}/edits", {"edit_type": "deletion", "spans": []}),
        ("PUT", f"/api/edits/{edit['id']}", {"version": edit["version"], "fields": {}}),
        ("DELETE", f"/api/edits/{edit['id']}?version={edit['version']}", None),
        ("POST", f"/api/assignments/{aid}/time", {"seconds": 5}),
        ("POST", f"/api/assignments/{aid}/status", {"status": "done", "version": 2}),
    ]:
        assert lee.send(method, url, body).status_code == 404, (method, url)
    assert ana.get(f"/api/assignments/{aid}").get_json()["edits"][0]["version"] == edit["version"]


def test_writes_need_the_csrf_header(study, ana):
    aid = study["assignments"]["ana"][0]
    response = ana.send("POST", f"/api/assignments/{aid}/edits",
                        {"edit_type": "deletion", "spans": []}, token=False)
    assert response.status_code == 400
    assert ana.get(f"/api/assignments/{aid}").get_json()["edits"] == []


def test_api_needs_login(client, study):
    response = client.get(f"/api/assignments/{study['assignments']['ana'][0]}")
    assert response.status_code == 401
    assert response.get_json()["error"] == "unauthorized"


def test_page_and_payload_carry_the_pieces_the_page_needs(study, ana):
    aid = study["assignments"]["ana"][2]
    page = ana.get(f"/assignments/{aid}").get_data(as_text=True)
    assert 'id="annotate"' in page and f'data-assignment="{aid}"' in page
    assert 'src="/static/js/main.js"' in page and 'type="module"' in page
    assert "&lt;script&gt;window.__pwned" in page and "<script>window" not in page
    data = ana.get(f"/api/assignments/{aid}").get_json()
    assert set(data["document"]) >= {"source", "target", "source_sentences", "target_sentences",
                                     "alignment", "sentence_pairs", "meta"}
    assert json.dumps(data)  # plain JSON all the way down
