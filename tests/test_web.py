"""The minimal pages: login, roles enforced on the server, CSRF, inert model text."""

from tests.conftest import PASSWORD, csrf_token, login


def test_login_page_and_successful_login_redirects_by_role(client, users):
    assert client.get("/login").status_code == 200
    response = login(client, "ana")
    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert client.get("/").headers["Location"] == "/my"
    client.post("/logout", data={"csrf_token": csrf_token(client, "/my")})
    login(client, "lee")
    assert client.get("/").headers["Location"] == "/projects/"


def test_wrong_password_is_refused(client, users):
    response = login(client, "ana", "wrong-password")
    assert response.status_code == 401
    assert "wrong password" in response.get_data(as_text=True)
    assert client.get("/my").status_code == 302  # still logged out


def test_pages_need_login(client, study):
    assignment = study["assignments"]["ana"][0]
    for path in ("/my", f"/assignments/{assignment}", f"/projects/{study['project_id']}"):
        response = client.get(path)
        assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_post_without_csrf_token_is_refused(client, users):
    response = client.post("/login", data={"username": "ana", "password": PASSWORD})
    assert response.status_code == 400
    assert "CSRF" in response.get_data(as_text=True)


def test_annotator_sees_only_own_assignments(client, study):
    login(client, "ana")
    page = client.get("/my").get_data(as_text=True)
    assert page.count('data-status="assigned"') == 3
    own = study["assignments"]["ana"][0]
    other = study["assignments"]["ben"][0]
    assert client.get(f"/assignments/{own}").status_code == 200
    assert client.get(f"/assignments/{other}").status_code == 404


def test_annotator_cannot_reach_lead_pages(client, study):
    login(client, "ana")
    assert client.get("/projects/").status_code == 403
    assert client.get(f"/projects/{study['project_id']}").status_code == 403


def test_lead_overview_shows_progress_per_annotator(client, study):
    login(client, "lee")
    page = client.get(f"/projects/{study['project_id']}").get_data(as_text=True)
    assert 'data-annotator="ana"' in page and 'data-annotator="ben"' in page
    assert page.count("ana · assigned") == 3
    other = client.get(f"/assignments/{study['assignments']['ben'][1]}")
    assert other.status_code == 200  # leads may look at their project's work


def test_lead_of_another_project_is_not_let_in(client, study, database):
    from annotator.study.accounts import create_user
    with database.session() as session:
        create_user(session, "otherlead", PASSWORD, "lead")
    login(client, "otherlead")
    assert client.get(f"/projects/{study['project_id']}").status_code == 404
    assert client.get(f"/assignments/{study['assignments']['ana'][0]}").status_code == 404
    assert "trial" not in client.get("/projects/").get_data(as_text=True)


def test_model_text_is_rendered_as_inert_text(client, study):
    login(client, "ana")
    page = client.get(f"/assignments/{study['assignments']['ana'][2]}")
    html = page.get_data(as_text=True)
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html
    assert "<script>window.__pwned" not in html
    assert "<img src=x" not in html
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]


def test_session_cookie_flags(client, users):
    response = login(client, "ana")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_login_does_not_redirect_off_site(client, users):
    token = csrf_token(client)
    response = client.post("/login?next=//evil.example/x", data={
        "username": "ana", "password": PASSWORD, "csrf_token": token})
    assert response.headers["Location"] == "/"
