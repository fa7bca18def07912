"""Issue 31: a release cut on the web page is a job any worker builds. What can be refused
at once is refused before anything is queued; a job run again after its worker died finds
the release its first run stored; a version taken meanwhile, or a release refused, fails
the job with its reason (no traceback) and the page says so; a worker may be limited to
some kinds of work."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from annotator.models import AuditEvent, Job, Release
from annotator.operations.worker import Worker
from annotator.releases import ReleaseError
from annotator.releases.building import queue_release, releases_in_progress, run_release_job
from annotator.study import jobs
from tests.adjudication_fixtures import project_of, release
from tests.conftest import csrf_token, login


def _queue(database, ids, version="v1", **options) -> int:
    with database.session() as session:
        return queue_release(session, project_of(session, ids), version, **options).id


def _job(database, job_id) -> Job:
    with database.session() as session:
        return session.get(Job, job_id)


def _release_jobs(database) -> int:
    with database.session() as session:
        return session.scalar(select(func.count()).select_from(Job).where(
            Job.kind == "release"))


def test_what_can_be_refused_at_once_queues_nothing(database, adjudicated):
    release(database, adjudicated, version="v0")
    for version, reason in (("../v1", "use letters, digits"), ("v0", "exists already")):
        with database.session() as session:
            with pytest.raises(ReleaseError, match=reason):
                queue_release(session, project_of(session, adjudicated), version)
    first = _queue(database, adjudicated)
    with database.session() as session, pytest.raises(ReleaseError, match="being built"):
        queue_release(session, project_of(session, adjudicated), "v1")
    assert _release_jobs(database) == 1
    assert _queue(database, adjudicated, "v2") != first  # another version: its own job


def test_a_worker_builds_it_with_progress_and_the_audit_names_the_job(database, adjudicated):
    job_id = _queue(database, adjudicated, notes="pilot", user_id=adjudicated["users"]["lee"])
    assert Worker(database, poll_seconds=0.1, kinds=("release",)).run(once=True) == 1
    job = _job(database, job_id)
    assert job.state == "done" and job.error == ""
    assert job.result == {"version": "v1", "documents": 2, "excluded": 1}
    assert job.progress_done == job.progress_total == 2 + 2  # two records, report, store
    with database.session() as session:
        event = session.scalar(select(AuditEvent).where(AuditEvent.action == "release.created"))
        assert event.details["job"] == job_id and event.user_id == adjudicated["users"]["lee"]
        assert releases_in_progress(session, project_of(session, adjudicated)) == []


def test_a_job_run_again_after_its_worker_died_finds_its_own_release(database, adjudicated):
    job_id = _queue(database, adjudicated)
    first = database.sessions()
    try:  # the first worker stores the release, then dies before marking the job done
        job = jobs.claim(first, "dies", 30, kinds=("release",))
        run_release_job(first, job, lambda done, total: None)
    finally:
        first.close()
    with database.session() as session:
        session.execute(update(Job).where(Job.id == job_id).values(
            lease_expires_at=jobs.now() - timedelta(seconds=1)))
    assert Worker(database, poll_seconds=0.1).run(once=True) >= 1
    job = _job(database, job_id)
    assert job.state == "done" and job.attempts == 2
    assert job.result["resumed"] == "stored by an earlier attempt of this job"
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Release)) == 1


def test_a_version_taken_meanwhile_fails_the_job_with_its_reason(database, adjudicated):
    job_id = _queue(database, adjudicated)
    release(database, adjudicated, version="v1")  # the command line was quicker
    Worker(database, poll_seconds=0.1, kinds=("release",)).run(once=True)
    job = _job(database, job_id)
    assert job.state == "failed"
    assert job.error.startswith("release v1 refused: release v1 of qa exists already")
    with database.session() as session:  # the version exists now: nothing left to show
        assert releases_in_progress(session, project_of(session, adjudicated)) == []


def test_a_refused_release_is_shown_on_the_page_and_can_be_asked_again(
        app, client, database, adjudicated):
    pid = adjudicated["project_id"]
    login(client, "lee")
    token = csrf_token(client, f"/projects/{pid}/releases")
    client.post(f"/projects/{pid}/releases", data={"version": "v1", "require_complete": "1",
                                                   "csrf_token": token})
    Worker(database, poll_seconds=0.1, kinds=("release",)).run(once=True)
    status = client.get(f"/projects/{pid}/releases/status").get_json()
    (failed,) = status["in_progress"]
    assert failed["state"] == "failed" and "1 document(s) not fully adjudicated: q3" in \
        failed["error"] and "Traceback" not in failed["error"]
    page = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert 'class="release-pending" data-version="v1" data-state="failed"' in page
    assert "not fully adjudicated: q3" in page
    # Asked again without the condition: built, and the failed row goes away.
    client.post(f"/projects/{pid}/releases", data={"version": "v1", "csrf_token": token})
    Worker(database, poll_seconds=0.1, kinds=("release",)).run(once=True)
    status = client.get(f"/projects/{pid}/releases/status").get_json()
    assert status["in_progress"] == [] and status["stored"] == ["v1"]


def test_the_status_read_writes_nothing_and_says_when_no_worker_runs(
        app, client, database, adjudicated):
    pid = adjudicated["project_id"]
    login(client, "lee")
    token = csrf_token(client, f"/projects/{pid}/releases")
    client.post(f"/projects/{pid}/releases", data={"version": "v1", "csrf_token": token})
    with database.session() as session:
        before = session.scalar(select(func.count()).select_from(AuditEvent))
    status = client.get(f"/projects/{pid}/releases/status").get_json()
    assert status["worker_alive"] is False
    page = client.get(f"/projects/{pid}/releases").get_data(as_text=True)
    assert 'id="releases-no-worker"' in page
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(AuditEvent)) == before
        assert session.scalar(select(func.count()).select_from(Release)) == 0


def test_a_worker_limited_to_some_kinds_leaves_the_others_queued(database, adjudicated):
    with database.session() as session:
        project = project_of(session, adjudicated)
        other = jobs.enqueue(session, "queue-refresh", project.id).id
    job_id = _queue(database, adjudicated)
    assert Worker(database, poll_seconds=0.1, kinds=("release",)).run(once=True) == 1
    assert _job(database, job_id).state == "done"
    assert _job(database, other).state == "queued"
