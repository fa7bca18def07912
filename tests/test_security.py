"""Security boundaries that hold for every route, not only the ones we remembered."""

import re

from tests.conftest import PASSWORD, csrf_token, login
from tests.waiting import wait_until

STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}


def concrete_path(rule) -> str:
    return re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: "1", rule.rule)


def test_every_state_changing_route_refuses_a_request_without_csrf_token(app, client, study):
    login(client, "ana")
    checked = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) & STATE_CHANGING):
            path = concrete_path(rule)
            response = client.open(path, method=method, json={})
            assert response.status_code == 400, (
                f"{method} {rule.rule} answered {response.status_code}"
            )
            checked.append(f"{method} {rule.rule}")
    assert "POST /login" in checked and "PUT /api/edits/<int:edit_id>" in checked
    assert len(checked) >= 8


def test_login_is_throttled_after_repeated_failures(client, users):
    for _ in range(5):
        assert login(client, "ana", "wrong-password").status_code == 401
    throttled = login(client, "ana", PASSWORD)  # even the right password waits
    assert throttled.status_code == 429
    assert "Too many failed attempts" in throttled.get_data(as_text=True)
    assert login(client, "ben").status_code == 302  # other accounts are unaffected


def test_passwords_are_hashed_with_a_modern_kdf(database, users):
    from annotator.models import User
    with database.session() as session:
        stored = session.get(User, users["ana"]).password_hash
    assert stored.startswith(("scrypt:", "pbkdf2:sha256:600000")) and PASSWORD not in stored


def test_logout_needs_a_token_and_ends_the_session(client, users):
    login(client, "ana")
    assert client.post("/logout").status_code == 400
    client.post("/logout", data={"csrf_token": csrf_token(client, "/my")})
    assert client.get("/my").status_code == 302


def test_session_cookie_is_secure_when_served_over_https(config, database, users):
    from dataclasses import replace

    from annotator.app import create_app
    app = create_app(replace(config, https=True))
    client = app.test_client()
    cookie = login(client, "ana").headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    app.extensions["annotator_db"].dispose()


def test_serve_with_workers_runs_under_gunicorn(env, tmp_path):
    """`annotator serve --workers 2` is a real gunicorn master with two workers."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    from pathlib import Path

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    annotator = Path(sys.executable).with_name("annotator")
    process = subprocess.Popen([str(annotator), "serve", "--workers", "2", "--port", str(port)],
                               env={**os.environ}, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True, text=True)
    def login_page_answers() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/login", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(login_page_answers, 60, "gunicorn to answer /login with 200", interval=0.3)
        gunicorns = []
        for proc in Path("/proc").iterdir():
            try:
                cmdline = (proc / "cmdline").read_bytes().split(b"\0")
                # Fields after the parenthesised command name: state, ppid, pgrp, ...
                stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, ValueError):
                continue
            if b"annotator.wsgi:app" in cmdline and int(stat[2]) == process.pid:  # same group
                gunicorns.append(proc.name)
        assert len(gunicorns) >= 3  # the gunicorn master and its 2 workers
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert "gunicorn, 2 worker process(es)" in output
