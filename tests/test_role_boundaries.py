"""Every route, not only the ones we remembered: an annotator cannot reach another
annotator's work or any lead page, and a lead of one project cannot reach another's."""

import re

import pytest

from annotator.models import Assignment, Edit, Span
from annotator.study.accounts import create_user
from tests.conftest import PASSWORD, login

STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
# (/healthz is for proxies and operators, open to all and showing no study data:
# tests/test_jobs_health.py)
PUBLIC = {"auth.login", "auth.logout", "static", "documents.home", "documents.my_documents",
          "dashboard.projects", "favicon", "health.healthz"}
# Open to every lead, but showing only what that lead manages (checked below); creating a
# project (its form, schema preview and creation) concerns no existing project.
ANY_LEAD = {"manage.users", "manage.create", "project_create.new", "project_create.preview",
            "project_create.create"}


@pytest.fixture
def targets(study, database):
    """URL values that point at ben's work in project 'trial'."""
    with database.session() as session:
        ben_assignment = session.get(Assignment, study["assignments"]["ben"][0])
        edit = Edit(assignment=ben_assignment, edit_type="deletion",
                    fields={"question": "Secret question of ben?"},
                    spans=[Span(side="source", start=0, end=8)])
        session.add(edit)
        session.flush()
        create_user(session, "otherlead", PASSWORD, "lead")
        return {"project_id": study["project_id"], "assignment_id": ben_assignment.id,
                "document_id": ben_assignment.document_id, "edit_id": edit.id,
                "suggestion_id": 1, "version": "v1", "filename": "MANIFEST.json",
                "fmt": "json", "page": 1, "user_id": ben_assignment.user_id}


def concrete(rule, values) -> str:
    return re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: str(values[m.group(1)]), rule.rule)


def token_of(client) -> str:
    page = client.get("/my").get_data(as_text=True)
    return page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]


def sweep(app, client, values, skip=()):
    """(method, path, status) for every non-public route, with a valid CSRF token."""
    headers = {"X-CSRFToken": token_of(client)}
    results = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in PUBLIC or rule.endpoint in skip:
            continue
        path = concrete(rule, values)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            response = client.open(path, method=method, json={}, headers=headers)
            results.append((method, path, response.status_code,
                            response.get_data(as_text=True)))
    return results


def test_annotator_reaches_nothing_of_others_and_no_lead_page(app, client, targets):
    login(client, "ana")
    results = sweep(app, client, targets)
    assert len(results) >= 25
    for method, path, status, body in results:
        assert status in (403, 404), f"ana: {method} {path} answered {status}"
        assert "Secret question of ben" not in body


def test_lead_of_another_project_is_kept_out(app, client, targets):
    login(client, "otherlead")
    for method, path, status, body in sweep(app, client, targets, skip=ANY_LEAD):
        assert status in (403, 404), f"otherlead: {method} {path} answered {status}"
        assert "Secret question of ben" not in body
    # The users page lists only accounts this lead manages: not trial's annotators.
    users = client.get("/users/").get_data(as_text=True)
    assert 'data-user="ben"' not in users and 'data-user="ana"' not in users
    assert 'data-user="otherlead"' not in users  # a lead manages annotators only


def test_the_projects_own_lead_gets_in(client, targets):
    login(client, "lee")
    assert client.get(f"/projects/{targets['project_id']}").status_code == 200
    assert client.get(f"/projects/{targets['project_id']}/adjudicate").status_code == 200
    assert client.get(f"/api/assignments/{targets['assignment_id']}").status_code == 200
