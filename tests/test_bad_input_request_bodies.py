"""The JSON endpoints are rows of the same bad-input table as the file readers
(tests/test_bad_input_file_readers.py, issue 30): every row of that one list is sent, as a request
body, to the annotation API (a new edit) and to the adjudication decision endpoint (a merge,
which carries the same edit type, fields and spans); each is answered 400 (not JSON) or 422
naming the field, never 500, and nothing is stored.

How a file row becomes a body: a record's empty text is an edit's empty ``edit_type``; its
span is the edit's one span; a character placed in the record's text goes into the question;
the U+2028 row keeps its point (the character is text, not a line end, so the answer names
the empty field, not a syntax error)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from annotator.models import AdjudicationDecision, Assignment, Document, Edit, User
from tests.adjudication_fixtures import qa_study  # noqa: F401  (fixture)
from tests.api_helpers import Api
from tests.test_adjudication_web import lead_client, web_app  # noqa: F401  (fixture)
from tests.test_bad_input_file_readers import BAD_INPUTS

# row -> (what goes into the body, expected status, field named by a 422)
BODY_ROWS = {
    "empty text": ({"edit_type": ""}, None, 422, "edit_type"),
    "zero-length span": ({"span": [3, 3]}, None, 422, "spans"),
    "reversed span": ({"span": [5, 2]}, None, 422, "spans"),
    "lone \\r inside a string": ({}, lambda raw: raw.replace("Some", "So\rme"), 400, None),
    "U+2028 in the text and an empty target": (
        {"edit_type": ""}, lambda raw: raw.replace("Some", "So\u2028me"), 422, "edit_type"),
    "invalid UTF-8": ({}, lambda raw: raw.replace("Some", "So\udcffme"), 400, None),
    "NaN": ({}, lambda raw: raw.replace('"fields"', '"n": NaN, "fields"'), 400, None),
    "deep nesting": ({}, lambda raw: raw.replace('"fields"', '"m": ' + "[" * 5000 + "]" * 5000
                                                 + ', "fields"'), 400, None),
    "lone surrogate": ({}, lambda raw: raw.replace("Some", "So\\ud800me"), 422,
                       "fields.question"),
    "NUL": ({}, lambda raw: raw.replace("Some", "So\\u0000me"), 422, "fields.question"),
    "syntax error": ({}, lambda raw: raw.replace('"fields":', '"fields"'), 400, None),
}


def test_the_body_table_is_the_file_table():
    assert list(BODY_ROWS) == [row[0] for row in BAD_INPUTS]


def _edit_part(row: dict) -> dict:
    start, end = row.get("span", [0, 8])
    return {"edit_type": row.get("edit_type", "deletion"),
            "fields": {"question": "Some question?"},
            "spans": [{"side": "source", "start": start, "end": end}]}


def _raw(body: dict, change) -> bytes:
    text = json.dumps(body, ensure_ascii=True)
    text = change(text) if change else text
    # surrogateescape turns the "\udcff" placeholder into the invalid byte 0xff
    return text.encode("utf-8", "surrogateescape")


def _check(answer, status: int, field: str | None):
    assert answer.status_code == status, answer.get_data(as_text=True)
    payload = answer.get_json()
    if field is None:
        assert "request body" in payload["message"]
    else:
        named = [p["field"] for p in payload["problems"]]
        assert any(n == field or n.startswith(field + "[") for n in named), named


def _count(database, model) -> int:
    with database.session() as session:
        return session.scalar(select(func.count()).select_from(model))


@pytest.mark.parametrize("row", list(BODY_ROWS))
def test_the_annotation_api_answers_every_row(web_app, database, qa_study, row):  # noqa: F811
    fields, change, status, field = BODY_ROWS[row]
    with database.session() as session:
        aid = session.scalar(select(Assignment.id).join(Document).join(User).where(
            Document.external_id == "q3", User.username == "ana"))
    api = Api(web_app, "ana")
    before = _count(database, Edit)
    answer = api.client.post(f"/api/assignments/{aid}/edits",
                             data=_raw(_edit_part(fields), change),
                             content_type="application/json", headers={"X-CSRFToken": api.token})
    _check(answer, status, field)
    assert _count(database, Edit) == before


@pytest.mark.parametrize("row", list(BODY_ROWS))
def test_the_decision_endpoint_answers_every_row(web_app, database, qa_study, row):  # noqa: F811
    fields, change, status, field = BODY_ROWS[row]
    pid, doc, e = qa_study["project_id"], qa_study["docs"]["q1"], qa_study["edits"]
    lead = lead_client(web_app)
    body = {"action": "merge", "edit_ids": [e["e1"], e["e2"]], "base_id": e["e1"],
            **_edit_part(fields)}
    answer = lead[0].post(f"/projects/{pid}/adjudicate/{doc}/decisions",
                              data=_raw(body, change), content_type="application/json",
                              headers={"X-CSRFToken": lead[1]})
    _check(answer, status, field)
    assert _count(database, AdjudicationDecision) == 0
