"""Gold outlives its source: adjudicated work is frozen for annotators, and gold provenance
never loses the annotator of its source edits."""

from __future__ import annotations

import json

from sqlalchemy import delete

from annotator.adjudication.gold import gold_record
from annotator.models import Edit
from tests.adjudication_fixtures import assignment_of, load, release
from tests.conftest import login


def test_an_annotator_cannot_reopen_an_adjudicated_document(app, client, database,
                                                            adjudicated):
    with database.session() as session:
        a = assignment_of(session, load(session, adjudicated, "q1"), "ben")
        assignment_id, version = a.id, a.version
    login(client, "ben")
    token = client.get(f"/api/assignments/{assignment_id}").get_json()
    assert token  # ben reads his own work
    response = client.post(f"/api/assignments/{assignment_id}/status",
                           json={"status": "in_progress", "version": version},
                           headers={"X-CSRFToken": _token(client)})
    assert response.status_code == 409
    assert "frozen" in response.get_json()["message"]
    with database.session() as session:
        assert assignment_of(session, load(session, adjudicated, "q1"), "ben").status == "done"
    edit_id = adjudicated["edits"]["e2"]
    removed = client.delete(f"/api/edits/{edit_id}", json={"version": 1},
                            headers={"X-CSRFToken": _token(client)})
    assert removed.status_code == 409


def test_a_vanished_source_edit_keeps_its_annotator_and_blocks_the_release(
        database, adjudicated, tmp_path):
    with database.session() as session:  # as an older version of the tool allowed
        session.execute(delete(Edit).where(Edit.id == adjudicated["edits"]["e2"]))
    with database.session() as session:
        record = gold_record(session, load(session, adjudicated, "q1"))
    sources = [s for e in record["edits"] for s in e["provenance"]["source_edits"]]
    assert sources == [{"id": adjudicated["edits"]["e2"], "annotator": "ben"}]
    manifest = release(database, adjudicated, tmp_path / "exports")
    reasons = {e["id"]: e["reason"] for e in manifest["excluded"]}
    assert "changed after adjudication" in reasons["q1"]
    gold = (tmp_path / "exports" / "qa" / "v1" / "gold.jsonl").read_text()
    assert [json.loads(line)["id"] for line in gold.splitlines()] == ["q2"]


def _token(client) -> str:
    from tests.conftest import csrf_token

    return csrf_token(client, "/my")
