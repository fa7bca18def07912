"""API validation for document-level edits and conditional sub-questions."""

from __future__ import annotations

import pytest

from tests.api_helpers import Api
from tests.helpers import mini_typology_assignment


@pytest.fixture
def aid(database, users, tmp_path):
    return mini_typology_assignment(database, tmp_path)["assignment"]


def test_document_level_edit_takes_no_spans(app, aid):
    ana = Api(app, "ana")
    url = f"/api/assignments/{aid}/edits"
    made = ana.send("POST", url, {"edit_type": "comment", "fields": {"comment_text": "ok"}})
    assert made.status_code == 201 and made.get_json()["edit"]["spans"] == []
    refused = ana.send("POST", url, {"edit_type": "comment", "fields": {"comment_text": "x"},
                                     "spans": [{"side": "source", "start": 0, "end": 4}]})
    assert refused.status_code == 422
    assert refused.get_json()["problems"] == [
        {"field": "spans[0].side", "message": "Comment is a document-level edit: it takes no "
                                              "spans"}]


def test_sub_answer_is_accepted_only_under_its_answer(app, aid):
    ana = Api(app, "ana")
    url = f"/api/assignments/{aid}/edits"
    span = [{"side": "source", "start": 0, "end": 8}]
    refused = ana.send("POST", url, {"edit_type": "deletion", "spans": span, "fields": {
        "deletion_type": "bad_deletion", "deletion_type.good_deletion": "a lot"}})
    assert refused.status_code == 422
    assert refused.get_json()["problems"] == [
        {"field": "fields.deletion_type.good_deletion", "message":
         "only answered when deletion_type is 'good_deletion' (it is 'bad_deletion') "
         "(got \"a lot\")"}]
    made = ana.send("POST", url, {"edit_type": "deletion", "spans": span, "fields": {
        "deletion_type": "good_deletion", "deletion_type.good_deletion": "a lot"}})
    assert made.status_code == 201
    wrong = ana.send("POST", url, {"edit_type": "deletion", "spans": span, "fields": {
        "deletion_type": "good_deletion", "deletion_type.good_deletion": "huge"}})
    assert wrong.status_code == 422
    assert wrong.get_json()["problems"][0]["message"].endswith('(got "huge")')
