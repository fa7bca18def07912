"""A PostgreSQL outage seen by the app: while the server is stopped every request (an API
save, a page, the login) answers 503 with Retry-After and the session is given back, never a
500; when it is back the same client goes on, and every save acknowledged before the outage
is stored. The test runs its own throw-away PostgreSQL server (Debian's binaries, as in
scripts/with-postgres.sh), so it can stop and start it (tests/private_postgres.py)."""

from __future__ import annotations

from sqlalchemy import func, select

from annotator.app import create_app
from annotator.config import Config
from annotator.db import Database
from annotator.models import Edit
from tests.conftest import PASSWORD, csrf_token, login


def test_requests_during_an_outage_are_503_and_work_resumes(postgres, tmp_path):
    from annotator.annotate.assignment import assign_documents
    from annotator.ingest import import_file
    from annotator.models import Assignment, User
    from annotator.study.accounts import create_user
    from annotator.study.projects import create_project
    from tests.helpers import pairs, write_jsonl

    database = Database(postgres.url)
    database.upgrade()
    with database.session() as session:
        lee = create_user(session, "lee", PASSWORD, "lead")
        create_user(session, "ana", PASSWORD, "annotator")
        create_user(session, "ben", PASSWORD, "annotator")
        project = create_project(session, "trial", "infolossqa", leads=[lee])
        import_file(session, project, write_jsonl(tmp_path / "d.jsonl", pairs(2)))
        assign_documents(session, project, ["ana", "ben"])
        held = [a.id for a in session.scalars(select(Assignment).join(User).where(
            User.username == "ana").order_by(Assignment.id))]
    config = Config.from_env({}, instance_path=tmp_path / "instance",
                             database_url=postgres.url, secret_key="test-secret",
                             exports_path=tmp_path / "exports")
    app = create_app(config)
    client = app.test_client()
    assert login(client, "ana").status_code == 302
    token = csrf_token(client, "/my")

    def save(assignment_id):
        return client.post(f"/api/assignments/{assignment_id}/edits",
                           headers={"X-CSRFToken": token},
                           json={"edit_type": "deletion", "fields": {"question": "What dose?"},
                                 "spans": [{"side": "source", "start": 0, "end": 8}]})

    assert save(held[0]).status_code == 201
    postgres.stop()
    answers = {"api save": save(held[1]), "page": client.get("/my"),
               "project page": client.get(f"/assignments/{held[1]}"),
               "health": client.get("/healthz")}
    for what, response in answers.items():
        assert response.status_code == 503, (what, response.status_code,
                                             response.get_data(as_text=True)[:300])
    for what in ("api save", "page", "project page"):
        assert answers[what].headers["Retry-After"] == "2", what
    assert "try again" in answers["page"].get_data(as_text=True)
    postgres.start()
    assert client.get("/healthz?skip=worker").get_json()["database"] == "ok"
    assert save(held[1]).status_code == 201  # the same client, the same session cookie
    assert client.get("/my").status_code == 200
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Edit)) == 2
    app.extensions["annotator_db"].dispose()
    database.dispose()


def test_healthz_says_slow_on_a_lock_and_ok_after_a_restart(postgres, tmp_path):
    """Issue 44: /healthz waits for nothing. A migration (or a stuck transaction) holding an
    exclusive lock on alembic_version would hold up its read; the health engine's
    lock_timeout stops the wait and it answers 503 "slow" (reachable, not answering in
    time) instead of hanging until a proxy gives up on the server. And it pings nothing
    before its reads: after a restart its first answer is still "ok"."""
    from sqlalchemy import text

    database = Database(postgres.url)
    database.upgrade()
    config = Config.from_env({}, instance_path=tmp_path / "instance",
                             database_url=postgres.url, secret_key="test-secret",
                             exports_path=tmp_path / "exports")
    app = create_app(config, migrate=False)
    client = app.test_client()
    assert client.get("/healthz?skip=worker").get_json()["database"] == "ok"
    with database.engine.connect() as holder:
        # A bound, should the health check wait after all: the server ends the holder's
        # session after 60 s idle, the lock goes, and the check answers "ok" (a failure).
        holder.execute(text("SET idle_in_transaction_session_timeout = '60s'"))
        holder.execute(text("LOCK TABLE alembic_version IN ACCESS EXCLUSIVE MODE"))
        answer = client.get("/healthz?skip=worker")
    assert answer.status_code == 503
    assert answer.get_json()["database"] == "slow", answer.get_json()
    assert client.get("/healthz?skip=worker").get_json()["database"] == "ok"
    # A restart with no health check in between: the check's pooled connection died with
    # the server; it reads once more on a new one instead of reporting an outage that ended.
    postgres.stop()
    postgres.start()
    assert client.get("/healthz?skip=worker").get_json()["database"] == "ok"
    app.extensions["annotator_db"].dispose()
    database.dispose()
