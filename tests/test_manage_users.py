"""User management on the web: who may manage whom, every form with its CSRF token, bad
input refused with a message and no change."""

from __future__ import annotations

from sqlalchemy import select

from annotator.models import AuditEvent, ProjectMember, User
from annotator.study.accounts import authenticate, create_user
from tests.conftest import PASSWORD, csrf_token, login


def post(client, path, **form):
    token = csrf_token(client, "/users/")
    return client.post(path, data={"csrf_token": token, **form}, follow_redirects=True)


def says(client, path, **form) -> str:
    """The page after the form was sent (flash messages included)."""
    return post(client, path, **form).get_data(as_text=True)


def user(database, name) -> User:
    with database.session() as session:
        found = session.scalar(select(User).where(User.username == name))
        session.expunge_all()
        return found


def test_lead_creates_an_annotator_in_their_project(client, study, database):
    login(client, "lee")
    page = post(client, "/users/", username="cy", password="long-enough-pw", email="cy@example.org",
                role="annotator", project_id=str(study["project_id"])).get_data(as_text=True)
    assert "Account cy (annotator) created." in page and 'data-user="cy"' in page
    with database.session() as session:
        cy = session.scalar(select(User).where(User.username == "cy"))
        assert cy.email == "cy@example.org" and cy.role == "annotator"
        assert session.scalar(select(ProjectMember.role).where(
            ProjectMember.user_id == cy.id)) == "annotator"
        assert authenticate(session, "cy", "long-enough-pw") is not None


def test_lead_creates_annotators_only_and_sees_only_their_people(client, study, database):
    with database.session() as session:
        create_user(session, "stranger", PASSWORD, "lead")
    login(client, "lee")
    page = post(client, "/users/", username="boss", password="long-enough-pw",
                role="admin").get_data(as_text=True)
    assert "Not changed: role: leads create annotators only" in page
    assert user(database, "boss") is None
    listing = client.get("/users/").get_data(as_text=True)
    assert 'data-user="ana"' in listing and 'data-user="ben"' in listing
    assert 'data-user="stranger"' not in listing and 'data-user="root"' not in listing
    stranger = user(database, "stranger")
    assert post(client, f"/users/{stranger.id}/password", password="x" * 12).status_code == 404


def test_email_password_deactivate_and_membership(client, study, database):
    ana = user(database, "ana")
    login(client, "lee")
    assert "E-mail of ana set to ana@example.org." in post(
        client, f"/users/{ana.id}/email", email="ana@example.org").get_data(as_text=True)
    assert "Password of ana reset" in post(
        client, f"/users/{ana.id}/password", password="a-new-password").get_data(as_text=True)
    assert "ana deactivated" in says(client, f"/users/{ana.id}/active", active="0")
    with database.session() as session:
        assert authenticate(session, "ana", "a-new-password") is None  # inactive
    post(client, f"/users/{ana.id}/active", active="1")
    with database.session() as session:
        assert authenticate(session, "ana", "a-new-password") is not None
    page = says(client, f"/users/{ana.id}/projects/{study['project_id']}/remove")
    assert "ana left trial" in page
    page = says(client, f"/users/{ana.id}/projects", project_id=str(study["project_id"]))
    assert "ana is a member of trial." in page
    with database.session() as session:
        actions = [e.action for e in session.scalars(select(AuditEvent).order_by(AuditEvent.id))]
    for action in ("user.email", "user.password", "user.deactivated", "user.activated",
                   "project.member_removed", "project.member_added"):
        assert action in actions


def test_bad_input_is_refused_with_a_message_and_changes_nothing(client, study, database):
    ana, ben = user(database, "ana"), user(database, "ben")
    login(client, "lee")
    post(client, f"/users/{ben.id}/email", email="ben@example.org")
    page = says(client, f"/users/{ana.id}/email", email="BEN@example.org")
    assert "Not changed: e-mail: &#39;BEN@example.org&#39; is used by another account" in page
    page = says(client, f"/users/{ana.id}/email", email="not an address")
    assert "is not an address like name@example.org" in page
    page = says(client, f"/users/{ana.id}/password", password="short")
    assert "password: at least 8 characters" in page
    page = says(client, "/users/", username="ana", password="long-enough-pw")
    assert "username: &#39;ana&#39; is taken" in page
    page = says(client, "/users/", username="with space", password="long-enough-pw")
    assert "username: 1-80 characters, no spaces" in page
    assert user(database, "ana").email is None
    with database.session() as session:
        assert authenticate(session, "ana", PASSWORD) is not None


def test_admin_changes_roles_but_not_their_own(client, study, database):
    ana, root = user(database, "ana"), user(database, "root")
    login(client, "root")
    assert "ana is now lead." in says(client, f"/users/{ana.id}/role", role="lead")
    page = says(client, f"/users/{root.id}/role", role="annotator")
    assert "you cannot change your own role" in page
    page = says(client, f"/users/{root.id}/active", active="0")
    assert "you cannot deactivate your own account" in page
    assert user(database, "root").role == "admin" and user(database, "root").active
    login(client, "lee")
    assert post(client, f"/users/{ana.id}/role", role="admin").status_code == 404  # now a lead


def test_forms_without_csrf_token_are_refused(client, study, database):
    ana = user(database, "ana")
    login(client, "lee")
    response = client.post(f"/users/{ana.id}/password", data={"password": "x" * 12})
    assert response.status_code == 400
    assert "The form expired" in response.get_data(as_text=True)
    with database.session() as session:
        assert authenticate(session, "ana", PASSWORD) is not None
