"""Issue 31: ``/healthz`` answers without a login and writes nothing: 200 when the database
answers, its migrations are current and a worker showed a heartbeat lately, 503 with the
reason otherwise. And migration 0009 (jobs) keeps the data of 0008 both ways."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

from sqlalchemy import event, inspect, text, update

from annotator.app import create_app
from annotator.db import Database
from annotator.migrations import downgrade, head_revisions, upgrade
from annotator.models import WorkerBeat
from annotator.study import jobs

WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|UPSERT|MERGE)\b", re.IGNORECASE)


def test_healthz_reports_each_check_and_never_writes(app, database):
    client = app.test_client()  # not logged in
    statements = []
    engine = app.extensions["annotator_db"].health_engine  # its own (see the next test)
    record = lambda *args: statements.append(args[2])  # noqa: E731  (statement text)
    event.listen(engine, "before_cursor_execute", record)
    try:
        missing = client.get("/healthz")
        assert missing.status_code == 503
        body = missing.get_json()
        assert (body["database"], body["migrations"], body["worker"]) == (
            "ok", "current", "missing")
        assert body["revision"]["database"] == body["revision"]["code"] == sorted(
            head_revisions())
        assert isinstance(body["checked_in_ms"], float) and body["checked_in_ms"] >= 0
        assert client.get("/healthz?skip=worker").status_code == 200
        refused = client.get("/healthz?skip=worker,disk")
        assert refused.status_code == 400 and "got 'disk'" in refused.get_json()["message"]

        with database.session() as session:
            jobs.beat(session, "host:1:abc")
        alive = client.get("/healthz")
        assert alive.status_code == 200, alive.get_json()
        assert alive.get_json()["worker"] == "alive"
        assert alive.get_json()["worker_seen_seconds_ago"] < jobs.WORKER_ALIVE_SECONDS

        with database.session() as session:  # that worker went quiet
            session.execute(update(WorkerBeat).values(
                seen_at=jobs.now() - timedelta(seconds=jobs.WORKER_ALIVE_SECONDS + 5)))
        assert client.get("/healthz").get_json()["worker"] == "missing"
        with database.session() as session:  # an hour later its row is cleared away
            assert jobs.forget_silent_workers(session, 3600) == 0
            assert jobs.forget_silent_workers(session, jobs.WORKER_ALIVE_SECONDS) == 1
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert statements and not [s for s in statements if WRITE.match(s)]


def test_healthz_answers_while_every_connection_of_the_app_is_taken(app, database):
    """Issue 44: /healthz has its own connections and a short wait for one, so busy
    requests holding every connection of the app's pool do not hold up the health check
    (a proxy waiting on it would drop a healthy server)."""
    engine = app.extensions["annotator_db"].engine
    capacity = engine.pool.size() + engine.pool._max_overflow
    held = [engine.connect() for _ in range(capacity)]
    try:
        assert engine.pool.checkedout() == capacity  # a request would now wait for one
        with database.session() as session:
            jobs.beat(session, "host:1:abc")
        answer = app.test_client().get("/healthz")
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["database"] == "ok"
    finally:
        for connection in held:
            connection.close()


def test_healthz_says_migrations_are_behind_after_a_downgrade(app, database):
    downgrade(database.engine, "0008_release_blobs")
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    assert answer.get_json()["migrations"] == "behind"
    assert answer.get_json()["revision"]["database"] == ["0008_release_blobs"]
    upgrade(database.engine)
    assert app.test_client().get("/healthz").get_json()["migrations"] == "current"
    with database.engine.begin() as connection:  # a newer release migrated this database
        connection.execute(text("UPDATE alembic_version SET version_num = '0099_future'"))
    assert app.test_client().get("/healthz").get_json()["migrations"] == "ahead"


def test_healthz_with_the_database_gone(config):
    gone = replace(config, database_url="postgresql://nobody@127.0.0.1:1/none")
    app = create_app(gone, migrate=False)
    answer = app.test_client().get("/healthz")
    assert answer.status_code == 503
    assert answer.get_json()["database"] == "unreachable"


def test_migration_0009_keeps_the_data_of_0008_both_ways(database_url):
    db = Database(database_url)
    upgrade(db.engine, "0008_release_blobs")
    now = "2026-01-01 00:00:00+00:00"
    with db.engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO projects (id, name, slug, schema_name, schema_yaml, "
            "annotators_per_doc, settings, created_at, version, updated_at) VALUES (1, 'p', "
            "'p', 'infolossqa', 'name: infolossqa', 2, '{}', :now, 1, :now)"), {"now": now})
        connection.execute(text(
            "INSERT INTO documents (id, project_id, external_id, source, target, meta, "
            "source_sentences, target_sentences, position, created_at, version, updated_at) "
            "VALUES (1, 1, 'd1', 'Original.', 'Simple.', '{}', '[[0, 9]]', '[[0, 7]]', 1, "
            ":now, 1, :now)"), {"now": now})
    upgrade(db.engine)
    assert {"jobs", "worker_beats"} <= set(inspect(db.engine).get_table_names())
    with db.session() as session:
        job = jobs.enqueue(session, "prehighlight", 1)
        assert job.id and job.state == "queued"
    downgrade(db.engine, "0008_release_blobs")
    names = set(inspect(db.engine).get_table_names())
    assert not {"jobs", "worker_beats"} & names
    with db.engine.connect() as connection:
        assert connection.execute(text("SELECT external_id, source FROM documents")).one() \
            == ("d1", "Original.")
    db.dispose()
