"""Login throttling under concurrency, sessions that end, the secret key check, and the
login page before anything else."""

from __future__ import annotations

import threading
import time

from click.testing import CliRunner
from sqlalchemy import update

from annotator.cli import main
from annotator.models import LoginThrottle, Project, User
from annotator.study.accounts import deactivate, set_password
from annotator.study.throttle import ThrottlePolicy, pair_key
from tests.conftest import PASSWORD, csrf_token, login
from tests.helpers import http_login

# ana's name overall and from the tests' address (the Flask test client and the live
# server both see 127.0.0.1).
ANA_KEYS = ("user:ana", pair_key("ana", "127.0.0.1"))


def test_parallel_guesses_against_the_last_attempt_evaluate_one_password(
        app, live_server, users, database):
    app.config["LOGIN_THROTTLE"] = ThrottlePolicy(user_limit=5, user_delay=60.0,
                                                  address_limit=1000)
    for _ in range(4):
        assert http_login(live_server, "ana", "wrong-password") == 401
    statuses, start = [], threading.Barrier(20)

    def guess():
        start.wait()
        statuses.append(http_login(live_server, "ana", "wrong-password"))

    threads = [threading.Thread(target=guess) for _ in range(20)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sorted(statuses) == [401] + [429] * 19  # exactly one password evaluated
    assert http_login(live_server, "ana", PASSWORD) == 429  # the right one waits too
    with database.session() as session:  # the user name is slowed, not locked: a minute on
        session.execute(update(LoginThrottle).where(LoginThrottle.key.in_(ANA_KEYS))
                        .values(next_allowed=time.time() - 1))
    assert http_login(live_server, "ana", PASSWORD) == 302


def test_an_address_that_guesses_is_locked_but_not_the_user(app, client, users):
    app.config["LOGIN_THROTTLE"] = ThrottlePolicy(address_limit=3, user_limit=100)
    attacker = app.test_client()
    attacker.environ_base["REMOTE_ADDR"] = "203.0.113.9"
    for name in ("ana", "ben", "lee"):
        assert login(attacker, name, "wrong-password").status_code == 401
    refused = login(attacker, "ana", PASSWORD)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 800
    assert login(client, "ana").status_code == 302  # ana, from her own address, gets in


def test_a_slowed_user_name_waits_seconds_not_a_lockout(app, client, users, database):
    app.config["LOGIN_THROTTLE"] = ThrottlePolicy(user_limit=3, user_delay=30.0)
    for _ in range(3):
        assert login(client, "ana", "wrong-password").status_code == 401
    refused = login(client, "ana", PASSWORD)
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 30
    with database.session() as session:  # the delay has passed
        session.execute(update(LoginThrottle).where(LoginThrottle.key.in_(ANA_KEYS))
                        .values(next_allowed=0.0))
    assert login(client, "ana").status_code == 302


def _saved_cookie_after(app, users, database, end):
    client = app.test_client()
    login(client, "ana")
    saved = client.get_cookie("session").value
    assert client.get("/my").status_code == 200
    end(client)
    replay = app.test_client()
    replay.set_cookie("session", saved)
    return replay


def test_a_cookie_saved_before_logout_no_longer_reads_or_writes(app, users, database):
    replay = _saved_cookie_after(app, users, database, lambda c: c.post(
        "/logout", data={"csrf_token": csrf_token(c, "/my")}))
    assert replay.get("/my").status_code == 302
    assert replay.get("/api/assignments/1").status_code == 401


def test_password_change_and_deactivation_end_every_session(app, users, database):
    def change_password(_client):
        with database.session() as session:
            set_password(session, session.get(User, users["ana"]), "a-new-password-1")

    def deactivate_ana(_client):
        with database.session() as session:
            deactivate(session, session.get(User, users["ana"]))

    for end in (change_password, deactivate_ana):
        assert _saved_cookie_after(app, users, database, end).get("/my").status_code == 302
        with database.session() as session:
            session.get(User, users["ana"]).active = True
            set_password(session, session.get(User, users["ana"]), PASSWORD)


def test_session_lifetime_is_short_and_configurable(tmp_path, database_url):
    from annotator.app import create_app
    from annotator.config import Config

    default = Config.from_env({}, instance_path=tmp_path, database_url=database_url)
    assert create_app(default).permanent_session_lifetime.total_seconds() == 8 * 3600
    two = Config.from_env({"ANNOTATOR_SESSION_HOURS": "2"}, instance_path=tmp_path,
                          database_url=database_url)
    assert create_app(two).permanent_session_lifetime.total_seconds() == 2 * 3600


def test_a_short_secret_key_is_refused_on_a_public_host(env, monkeypatch):
    monkeypatch.setenv("ANNOTATOR_SECRET_KEY", "x")
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "1"])
    assert result.exit_code != 0
    assert "at least 32 characters" in result.output and "got 1" in result.output


def test_anonymous_requests_learn_nothing_about_assignment_ids(app, client, study, database):
    with database.session() as session:  # an evaluation mode: its own page via a hook
        session.execute(update(Project).values(schema_name="qa-quality"))
    existing = study["assignments"]["ana"][0]
    answers = [client.get(f"/assignments/{i}") for i in (existing, 999_999)]
    assert [a.status_code for a in answers] == [302, 302]
    assert all("/login?next=" in a.headers["Location"] for a in answers)
    assert client.get(f"/eval/assignments/{existing}").status_code == 302
    assert client.get("/api/assignments/999999").status_code == 401
    assert client.get("/no-such-page").status_code == 404
