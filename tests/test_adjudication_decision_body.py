"""The adjudication decision endpoint reads its body through the same strict reader as the
annotation API: a lone surrogate or a NUL in the note is a 422 naming the field (it was a
500 and an accepted NUL), NaN and a syntax error a 400; nothing is decided."""

from __future__ import annotations

import pytest

from tests.adjudication_fixtures import qa_study  # noqa: F401  (fixture)
from tests.test_adjudication_web import lead_client, web_app  # noqa: F401  (fixture)

RAW_BAD_BODIES = [
    # (what, raw body with {ids} for the edit ids, status, field named)
    ("lone surrogate in the note",
     '{"action": "accept", "edit_ids": [%(a)d, %(b)d], "edit_id": %(a)d, "note": "x\\ud800"}',
     422, "note"),
    ("NUL in the note",
     '{"action": "accept", "edit_ids": [%(a)d, %(b)d], "edit_id": %(a)d, "note": "x\\u0000"}',
     422, "note"),
    ("NaN", '{"action": "accept", "edit_ids": [%(a)d, %(b)d], "edit_id": NaN}', 400, None),
    ("syntax error", '{"action": "accept", "edit_ids": [%(a)d, %(b)d}', 400, None),
    ("deep nesting", '{"action": "accept", "note": ' + "[" * 5000 + "]" * 5000 + "}",
     400, None),
]


@pytest.mark.parametrize("what,raw,status,field", RAW_BAD_BODIES,
                         ids=[row[0] for row in RAW_BAD_BODIES])
def test_a_bad_decision_body_is_refused_and_decides_nothing(web_app, qa_study,  # noqa: F811
                                                            what, raw, status, field):
    pid, doc, e = qa_study["project_id"], qa_study["docs"]["q1"], qa_study["edits"]
    client, token = lead_client(web_app)
    url = f"/projects/{pid}/adjudicate/{doc}/decisions"
    answer = client.post(url, data=raw % {"a": e["e1"], "b": e["e2"]},
                         content_type="application/json", headers={"X-CSRFToken": token})
    assert answer.status_code == status, answer.get_data(as_text=True)
    if field is not None:
        assert [p["field"] for p in answer.get_json()["problems"]] == [field]
    state = client.get(f"/projects/{pid}/adjudicate/{doc}/state").get_json()
    assert state["units"][0]["decision"] is None
