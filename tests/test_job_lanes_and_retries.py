"""Issue 44, items 2 and 3 on a real database (SQLite, or PostgreSQL with
ANNOTATOR_TEST_POSTGRES_URL): releases and queue refreshes are claimed before queued
pre-highlighting chunks and run beside a project's running chunk; a queued job says what
it waits for, counted from the queue; a job handed back after transient database errors
waits out its back-off and fails after MAX_ATTEMPTS attempts with every reason kept."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError, OperationalError

from annotator.models import Job, User
from annotator.study import jobs
from annotator.study.projects import create_project
from tests.conftest import login


@pytest.fixture
def project_id(database, users):
    with database.session() as session:
        lead = session.get(User, users["lee"])
        return create_project(session, "lanes", "infolossqa", leads=[lead]).id


def _queue_chunks(database, project_id, count):
    with database.session() as session:
        return [jobs.enqueue(session, "prehighlight", project_id, {"document_ids": [i]},
                             key=f"from-{i}").id for i in range(1, count + 1)]


def _job(database, job_id) -> Job:
    with database.session() as session:
        return session.get(Job, job_id)


def test_a_release_is_claimed_before_queued_chunks_and_runs_beside_a_running_one(
        database, project_id):
    chunks = _queue_chunks(database, project_id, 4)
    session = database.sessions()
    try:
        first = jobs.claim(session, "w1", 30)
        assert first.id == chunks[0]
        second = jobs.claim(session, "w2", 30)
        assert second.id == chunks[1], "chunks of one project run side by side"
        with database.session() as writing:
            release = jobs.enqueue(writing, "release", project_id, {"version": "v1"},
                                   key="v1").id
            refresh = jobs.enqueue(writing, "queue-refresh", project_id).id
        # Queued after two more chunks, the release and the refresh are taken first, while
        # the project's chunks run.
        assert jobs.claim(session, "w3", 30).id == release
        # The refresh waits for the release (one of the two at a time per project), not
        # for the chunks; a free worker meanwhile takes the next chunk.
        assert jobs.claim(session, "w4", 30).id == chunks[2]
        assert _job(database, refresh).state == "queued"
        assert jobs.finish(session, release, "w3")
        assert jobs.claim(session, "w3", 30).id == refresh, "before the last chunk"
        assert jobs.claim(session, "w5", 30).id == chunks[3]
    finally:
        session.close()


def test_a_refit_does_not_run_beside_a_chunk_of_its_project(database, project_id):
    chunks = _queue_chunks(database, project_id, 1)
    with database.session() as session:
        refit = jobs.enqueue(session, "refit", project_id).id
    session = database.sessions()
    try:
        assert jobs.claim(session, "w1", 30).id == refit, "the refit's lane is first"
        assert jobs.claim(session, "w2", 30) is None, "both rewrite suggestions"
    finally:
        session.close()
    assert _job(database, chunks[0]).state == "queued"


def test_a_queued_job_says_what_it_waits_for(app, database, project_id):
    chunks = _queue_chunks(database, project_id, 4)
    with database.session() as session:
        jobs.beat(session, "host:1:aaa")
        jobs.beat(session, "host:2:bbb")
        assert jobs.waiting_for(session, chunks[3]) == (
            "waiting: 3 pre-highlighting chunks ahead, 0 of 2 workers busy")
    session = database.sessions()
    try:
        running = jobs.claim(session, "host:1:aaa", 30)
        jobs.beat(session, "host:1:aaa", running.id)
    finally:
        session.close()
    with database.session() as session:
        release = jobs.enqueue(session, "release", project_id, {"version": "v1"}, key="v1")
        # Nothing is ahead of the release in its lane; one of two workers runs a chunk.
        assert jobs.waiting_for(session, release.id) == "waiting: 1 of 2 workers busy"
        assert jobs.waiting_for(session, chunks[3]) == (
            "waiting: 1 release ahead, 2 pre-highlighting chunks ahead, 1 of 2 workers busy")
        assert jobs.waiting_for(session, running.id) == "", "a running job waits for nothing"
        refit = jobs.enqueue(session, "refit", project_id).id
        assert jobs.waiting_for(session, refit) == (
            "waiting: 1 release ahead, 1 pre-highlighting chunk of this project running, "
            "1 of 2 workers busy")
        session.execute(update(Job).where(Job.id == release.id).values(
            not_before=jobs.now() + timedelta(seconds=30)))
        assert jobs.waiting_for(session, release.id).startswith(
            "waiting: retry after a database error at ")
        jobs.forget_worker(session, "host:1:aaa")
        jobs.forget_worker(session, "host:2:bbb")
        assert jobs.waiting_for(session, chunks[2]) == (
            "waiting: 1 release ahead, 1 refit ahead, 1 pre-highlighting chunk ahead, "
            "no worker running")
    client = app.test_client()
    login(client, "lee")
    page = client.get(f"/projects/{project_id}/releases").get_data(as_text=True)
    assert "waiting: retry after a database error at " in page
    project_page = client.get(f"/projects/{project_id}").get_data(as_text=True)
    assert ("waiting: 1 release ahead, 1 refit ahead, 1 pre-highlighting chunk ahead, "
            "no worker running") in project_page


def _transient(n: int) -> str:
    return f"OperationalError: server closed the connection unexpectedly ({n})"


def test_transient_errors_back_off_and_fail_after_the_last_attempt_with_every_reason(
        database, project_id):
    with database.session() as session:
        job_id = jobs.enqueue(session, "queue-refresh", project_id).id
    session = database.sessions()
    try:
        for attempt in range(1, jobs.MAX_ATTEMPTS + 1):
            claimed = jobs.claim(session, f"w{attempt}", 30)
            assert (claimed.id, claimed.attempts) == (job_id, attempt)
            assert jobs.retry_later(session, job_id, f"w{attempt}", _transient(attempt))
            job = _job(database, job_id)
            if attempt < jobs.MAX_ATTEMPTS:
                assert (job.state, job.lease_owner) == ("queued", None)
                wait = (jobs.aware(job.not_before) - jobs.now()).total_seconds()
                assert 0 < wait <= jobs.backoff_seconds(attempt)
                assert jobs.claim(session, "eager", 30) is None, "the back-off holds"
                with database.session() as writing:  # the back-off has passed
                    writing.execute(update(Job).where(Job.id == job_id).values(
                        not_before=jobs.now() - timedelta(seconds=1)))
        assert not jobs.retry_later(session, job_id, "w1", "late"), "no longer held"
    finally:
        session.close()
    job = _job(database, job_id)
    assert (job.state, job.attempts, job.lease_owner) == ("failed", jobs.MAX_ATTEMPTS, None)
    reasons = job.retry_reasons.splitlines()
    assert len(reasons) == jobs.MAX_ATTEMPTS
    for attempt, line in enumerate(reasons, start=1):
        assert line.startswith(f"attempt {attempt} at ") and line.endswith(_transient(attempt))
    assert job.error.startswith(f"the database failed {jobs.MAX_ATTEMPTS} attempts in a row")
    assert all(reason in job.error for reason in reasons)
    assert [jobs.backoff_seconds(n) for n in (1, 2, 3, 4, 10)] == [2, 4, 8, 16, 60]


def test_which_errors_count_as_the_database_being_away():
    away = OperationalError("SELECT 1", {}, Exception("server closed the connection"))
    broken = IntegrityError("INSERT", {}, Exception("duplicate key"))
    assert jobs.is_transient(away) and not jobs.is_transient(broken)
    assert not jobs.is_transient(ValueError("a job's own bug"))
