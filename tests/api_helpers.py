"""Talking to the JSON API like the annotation page does (Flask test client)."""

from __future__ import annotations

import pytest

from annotator.models import Assignment
from tests.conftest import csrf_token, login


class Api:
    """A logged-in client that sends the CSRF header like the page does."""

    def __init__(self, app, username):
        self.client = app.test_client()
        login(self.client, username)
        self.token = csrf_token(self.client, "/my")

    def get(self, url):
        return self.client.get(url)

    def send(self, method, url, body=None, token=True):
        headers = {"X-CSRFToken": self.token} if token else {}
        return self.client.open(url, method=method, json=body, headers=headers)


def doc_of(database, assignment_id):
    with database.session() as session:
        doc = session.get(Assignment, assignment_id).document
        return {"id": doc.id, "source": doc.source, "target": doc.target}


def new_edit(api, aid, **overrides):
    body = {"edit_type": "deletion", "fields": {"question": "What dose?", "answer": "1.5 mg/kg"},
            "spans": [{"side": "source", "start": 0, "end": 8}]}
    body.update(overrides)
    response = api.send("POST", f"/api/assignments/{aid}/edits", body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


# The two annotators of conftest's `study`, logged in (the API tests' usual pair).
@pytest.fixture
def ana(app, study):
    return Api(app, "ana")


@pytest.fixture
def ben(app, study):
    return Api(app, "ben")
